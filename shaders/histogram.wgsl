// Histogram family: counts of values per bin (histogram over ascending edges, bincount of
// non-negative integers), privatised per workgroup.
//
// Bindings: 0 params; 1 `a`, the input (contiguous elements; in `merge`, the partial counts);
// 2 `edges`, the bins' edges (histogram only: bins() + 1 ascending values of E);
// 4 `out` (in `count`, the partial counts, one row of bin_count() per workgroup; in `merge`,
// the counts).
// Dispatch geometry:
// - `count`: a 1-D grid of groups() workgroups (folded into 2-D); workgroup g takes elements
//   [g * chunk(), (g + 1) * chunk()), its invocations striding through them by WG, 8
//   elements loaded at once. Each
//   element's bin (bin_of: a binary search among the edges, or for uniform bins a guess
//   and a walk; the edges held in workgroup memory where at most EDGE_CACHE) is counted with an atomic add in workgroup memory, for the bins
//   [bin_base(), bin_base() + bin_count()) of this pass, in copies() copies (invocation l
//   adds to copy l % copies(): fewer invocations contend for one bin; at most BLOCK
//   counters, 12 KiB), and the workgroup's counts (the copies' sums) are written to
//   out[g * bin_count() + k]: no atomic in global memory.
// - `merge`: one invocation per bin k of the pass: the sum over the groups() rows of the
//   partial counts, written to out[bin_base() + k].
// Integer counts: the result does not depend on the order of the atomic adds.
//
// The host replaces the alias line and the one-line functions bin_of and (for bincount, which
// binds no edges) load_edges per dtype and kind (src/ops/histogram.rs).

#import params

alias E = f32; // element type of the input (u32 in `merge`)
alias S = f32; // scalar arguments (unused)
alias SC = f32;

override WG: u32 = 256u;
const BLOCK: u32 = 3072u;
const NONE: u32 = 0xffffffffu;
// Edges held in workgroup memory where bins() + 1 is at most this many.
const EDGE_CACHE: u32 = 512u;

@group(0) @binding(1) var<storage, read> a: array<E>;
@group(0) @binding(2) var<storage, read> edges: array<E>;
@group(0) @binding(4) var<storage, read_write> out: array<u32>;

var<workgroup> hist: array<atomic<u32>, BLOCK>;
var<workgroup> wedges: array<E, EDGE_CACHE>;

// The family's parameters, mirroring `HistParams` in src/ops/histogram.rs (whose `encode`
// is the only code that fills these slots).
fn n() -> u32 { return P.n; }                    // elements (merge: bins of the pass)
fn bins() -> u32 { return P.aux.x; }             // bins in all
fn chunk() -> u32 { return P.aux.y; }            // elements per workgroup
fn bin_base() -> u32 { return P.shape[0].x; }    // first bin of this pass
fn bin_count() -> u32 { return P.shape[0].y; }   // bins of this pass (at most BLOCK)
fn groups() -> u32 { return P.shape[0].z; }      // workgroups of `count`
fn copies() -> u32 { return P.shape[0].w; }      // copies of the pass's bins (a power of 2)
fn cached() -> bool { return bins() < EDGE_CACHE; }

// Edge k: from workgroup memory where the edges fit there (filled by `count`).
fn edge(k: u32) -> E {
    if (cached()) { return wedges[k]; }
    return edges[k];
}

// The bin of x, or NONE (replaced by the host: by_edges or an integer's own value).
fn bin_of(x: E) -> u32 { return by_edges(x); }

// The bin of x among the ascending edges: k with edges[k] <= x < edges[k + 1], the last bin
// closed (x == edges[bins()] is in bin bins() - 1, as NumPy); NONE outside and for NaN.
fn by_edges(x: E) -> u32 {
    let nb = bins();
    if !(x >= edge(0u) && x <= edge(nb)) {
        return NONE;
    }
    var lo = 0u;
    var hi = nb;
    while hi - lo > 1u {
        let mid = (lo + hi) / 2u;
        if edge(mid) <= x {
            lo = mid;
        } else {
            hi = mid;
        }
    }
    return lo;
}

// The edges into workgroup memory, where they fit (histogram by edges only; replaced by an
// empty function for bincount).
fn load_edges(lid: u32) { if (cached()) { copy_edges(lid); } }

fn copy_edges(lid: u32) {
    for (var k = lid; k <= bins(); k += WG) {
        wedges[k] = edges[k];
    }
}

// The bin of x among uniform edges (histogram with a range): a guess from x's position
// between the end edges (in f32), moved until edges[k] <= x < edges[k + 1] (the last bin
// closed), so that the edges as rounded decide, as for `by_edges`; NONE outside and NaN.
fn by_uniform(x: E) -> u32 {
    let nb = bins();
    if !(x >= edge(0u) && x <= edge(nb)) {
        return NONE;
    }
    let lo = f32(edge(0u));
    let t = (f32(x) - lo) / (f32(edge(nb)) - lo) * f32(nb);
    var k = min(u32(max(t, 0.0)), nb - 1u);
    while k > 0u && x < edge(k) {
        k--;
    }
    while k + 1u < nb && x >= edge(k + 1u) {
        k++;
    }
    return k;
}

// Counts x in copy `copy` of its bin, where the bin is among this pass's.
fn tally(x: E, copy: u32) {
    let k = bin_of(x) - bin_base();
    if k < bin_count() {
        atomicAdd(&hist[k * copies() + copy], 1u);
    }
}

@compute @workgroup_size(WG)
fn count(@builtin(workgroup_id) wid: vec3<u32>, @builtin(num_workgroups) nwg: vec3<u32>,
         @builtin(local_invocation_index) lid: u32) {
    let g = wid.y * nwg.x + wid.x;
    if g >= groups() {
        return;
    }
    let nc = copies();
    for (var k = lid; k < bin_count() * nc; k += WG) {
        atomicStore(&hist[k], 0u);
    }
    load_edges(lid);
    workgroupBarrier();
    let start = g * chunk();
    let end = min(start + chunk(), n());
    let copy = lid & (nc - 1u);
    var i = start + lid;
    // Whole batches of 8 elements an invocation, all loaded before any is counted (loads
    // in flight together: no branch between them), then the rest one at a time.
    for (; i + 7u * WG < end; i += 8u * WG) {
        let x0 = a[i];
        let x1 = a[i + WG];
        let x2 = a[i + 2u * WG];
        let x3 = a[i + 3u * WG];
        let x4 = a[i + 4u * WG];
        let x5 = a[i + 5u * WG];
        let x6 = a[i + 6u * WG];
        let x7 = a[i + 7u * WG];
        tally(x0, copy);
        tally(x1, copy);
        tally(x2, copy);
        tally(x3, copy);
        tally(x4, copy);
        tally(x5, copy);
        tally(x6, copy);
        tally(x7, copy);
    }
    for (; i < end; i += WG) {
        tally(a[i], copy);
    }
    workgroupBarrier();
    for (var k = lid; k < bin_count(); k += WG) {
        var s = 0u;
        for (var c = 0u; c < nc; c++) {
            s += atomicLoad(&hist[k * nc + c]);
        }
        out[g * bin_count() + k] = s;
    }
}

@compute @workgroup_size(WG)
fn merge(@builtin(workgroup_id) wid: vec3<u32>, @builtin(num_workgroups) nwg: vec3<u32>,
         @builtin(local_invocation_index) lid: u32) {
    let k = linear_id(wid, nwg, lid, WG);
    if k >= n() {
        return;
    }
    var s = 0u;
    for (var g = 0u; g < groups(); g++) {
        s += u32(a[g * n() + k]);
    }
    out[bin_base() + k] = s;
}
