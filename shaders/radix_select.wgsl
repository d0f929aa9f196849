// Select family: the elements of given ranks along the rows of an array (radix select), for
// median, quantile and top_k. Host: src/ops/sort/radix_select.rs.
//
// Every row has `targets()` targets (at most MAXT), each a rank r (0 = the smallest, in the
// sort's order through `key_of`: shaders/shared/sort_keys.wgsl, NaN last, -0 == +0; with
// `flip()` all ones, the reverse order: largest first). A target's state is (key prefix,
// rank, index prefix): the bits found so far and the rank among the elements carrying
// them. Each pass takes the next 8 bits down from the top of the key (`index_phase()` 0)
// or, for top_k, then of the index within the row among the elements of the found key
// (`index_phase()` 1): `hist` counts the digit of every element matching a target's
// prefix, `pick` finds the digit holding the target's rank and appends it. After the 4 key
// passes the key prefix is the key of the element of rank r; after the 4 index passes,
// (key, index) is the element of rank r in the order by (key, index), which is unique.
//
// The work buffer: the states (4 words per (row, target): key prefix, rank, index prefix,
// unused), then the counts (256 words per (row, target), zero between passes).
//
// Entry points (bindings: 0 params; 1 input; 4 output):
// - `init`: one invocation per (row, target) i. 4 the work buffer: state i = (0, rank of
//   target i % targets()), its 256 counts zeroed.
// - `hist`: one workgroup per tile of a row, `tiles()` tiles a row (chunk() elements each,
//   the grid folded into 2-D): workgroup g takes row g / tiles(). 1 the input's words (rows
//   of row_len() elements from in_off()); 4 the work buffer (atomic). Targets with equal
//   prefixes share one count in workgroup memory, which holds COPIES copies of 256 bins per
//   target (invocation l adds to copy l % COPIES: less contention where many keys share a
//   digit), each invocation adding a run of equal digits once; the copies' sums are added
//   to the row's counts in global memory (an integer sum: the same whatever the order of
//   the adds). An invocation loads 8 elements before it counts any.
//   An index pass of a state whose index prefix is ALL returns at once.
// - `pick`: one workgroup per (row, target) (WG must be 256: an invocation a digit). 4 the
//   work buffer: the digit d holding the state's rank (counts below d <= rank < counts up
//   to d), the state updated, the counts zeroed; after the last key pass, the index prefix
//   ALL where the rank is the last of its key.
// - `finish`: one invocation per (row, target) i. 1 the work buffer; 4 the values, out[row *
//   out_cols() + col_off() + t] = the value whose key is state i's prefix (`unkey`).
// - `compact` (top_k, one target a row of rank k - 1): workgroups as `hist`. 1 the input;
//   2 the work buffer; 4 the candidates: a counter per row, then per row k key words, then
//   per row k indices. Every element at or before the target's (key, index) takes a slot
//   by an atomic add to its row's counter (exactly k a row; their order there is the
//   order of the adds, undone by `top_sort`).
// - `top_sort`: one workgroup per row. 1 the candidates; 4 the indices, row r's k
//   candidates' indices ordered by (key, index) (a bitonic sort of PMAX pairs, a power of
//   two at least k, in workgroup memory): the same on every run.

#import params
#import sort_keys

alias S = u32;
alias SC = u32;

override WG: u32 = 256u;
override PMAX: u32 = 1024u; // top_sort: the padded row, a power of two
const MAXT: u32 = 4u;
const COPIES: u32 = 3u;
// An index prefix no index pass can leave (its low digit is set before the last pass): all
// the elements of the found key are at or before the target.
const ALL: u32 = 0xffffffffu;

@group(0) @binding(1) var<storage, read> a: array<u32>;
@group(0) @binding(2) var<storage, read> b: array<u32>;
@group(0) @binding(4) var<storage, read_write> out: array<atomic<u32>>;

var<workgroup> bins: array<atomic<u32>, 3072>; // MAXT * 256 * COPIES
var<workgroup> pre: array<vec2<u32>, MAXT>;
var<workgroup> skip: u32;
var<workgroup> sk: array<u32, PMAX>;
var<workgroup> si: array<u32, PMAX>;

// Parameter accessors, mirroring `SelectParams` in src/ops/sort/radix_select.rs.
fn rows() -> u32 { return P.n; }
fn in_off() -> u32 { return P.offs.x; }
fn row_len() -> u32 { return P.offs.y; }
fn tiles() -> u32 { return P.offs.z; }     // hist: tiles a row
fn chunk() -> u32 { return P.offs.w; }     // hist: elements a tile
fn shift() -> u32 { return P.aux.x; }      // the lowest bit of this pass's digit
fn targets() -> u32 { return P.ndim; }
fn index_phase() -> bool { return P.aux.y == 1u; }
fn flip() -> u32 { return P.shape[1].x; }     // 0, or all ones: largest first
fn top_k() -> u32 { return P.shape[1].y; }    // compact, top_sort: k
fn rank_of(t: u32) -> u32 { return P.shape[t / 4u][t % 4u]; } // init: target t's rank
fn out_cols() -> u32 { return P.offs.z; }  // finish: values a row
fn col_off() -> u32 { return P.offs.w; }   // finish: the first target's column
fn counts_at(i: u32) -> u32 { return 4u * rows() * targets() + 256u * i; }

// The key of input element e (replaced per dtype) and the value word of key k.
fn key_of(e: u32) -> vec2<u32> { return key_u32(a[e]); }
fn unkey(k: u32) -> u32 { return k; }

fn unkey_f32(k: u32) -> u32 {
    if ((k & 0x80000000u) != 0u) { return k ^ 0x80000000u; }
    return ~k;
}

// Element e's key in the order asked for.
fn key_at(e: u32) -> u32 { return key_of(e).x ^ flip(); }

// The bits above this pass's digit (those the prefix holds).
fn high_mask() -> u32 {
    if (shift() >= 24u) { return 0u; }
    return ~((1u << (shift() + 8u)) - 1u);
}

@compute @workgroup_size(WG)
fn init(@builtin(local_invocation_index) lid: u32, @builtin(workgroup_id) wid: vec3<u32>,
        @builtin(num_workgroups) nwg: vec3<u32>) {
    let i = linear_id(wid, nwg, lid, WG);
    if (i >= rows() * targets()) { return; }
    atomicStore(&out[4u * i], 0u);
    atomicStore(&out[4u * i + 1u], rank_of(i % targets()));
    atomicStore(&out[4u * i + 2u], 0u);
    let c = counts_at(i);
    for (var d = 0u; d < 256u; d++) { atomicStore(&out[c + d], 0u); }
}

// Adds the run of `n` elements of digit d of target t to its bins (copy `copy`).
fn flush(t: u32, d: u32, n: u32, copy: u32) {
    if (n != 0u) { atomicAdd(&bins[(t * 256u + d) * COPIES + copy], n); }
}

// hist's state, per invocation: the targets' (key, index) prefixes (those past targets()
// repeat target 0's) and the mask, and per target the open run of one digit: private
// variables indexed by constants only, so that they stay in registers.
var<private> h_p: array<vec2<u32>, MAXT>;
var<private> h_m: vec2<u32>;
var<private> h_last0: u32;
var<private> h_run0: u32;
var<private> h_last1: u32;
var<private> h_run1: u32;
var<private> h_last2: u32;
var<private> h_run2: u32;
var<private> h_last3: u32;
var<private> h_run3: u32;

// Adds one element of digit d to target t's open run: a run of one digit is counted once,
// at its end (keys sharing their top bits, as in the first pass, make long runs: fewer
// atomics).
fn bump(t: u32, d: u32, copy: u32, last: ptr<private, u32>, run: ptr<private, u32>) {
    if (d != *last) {
        flush(t, *last, *run, copy);
        *last = d;
        *run = 0u;
    }
    *run += 1u;
}

// Counts element i of the row (key k) for the first target whose prefix it matches.
fn tally(k: u32, i: u32, copy: u32) {
    let d = (select(k, i, index_phase()) >> shift()) & 255u;
    let ki = vec2<u32>(k, i) & h_m;
    if (all(ki == h_p[0])) {
        bump(0u, d, copy, &h_last0, &h_run0);
    } else if (all(ki == h_p[1])) {
        bump(1u, d, copy, &h_last1, &h_run1);
    } else if (all(ki == h_p[2])) {
        bump(2u, d, copy, &h_last2, &h_run2);
    } else if (all(ki == h_p[3])) {
        bump(3u, d, copy, &h_last3, &h_run3);
    }
}

@compute @workgroup_size(WG)
fn hist(@builtin(local_invocation_index) lid: u32, @builtin(workgroup_id) wid: vec3<u32>,
        @builtin(num_workgroups) nwg: vec3<u32>) {
    let g = wid.y * nwg.x + wid.x;
    let row = g / tiles();
    if (row >= rows()) { return; }
    let nt = targets();
    for (var k = lid; k < nt * 256u * COPIES; k += WG) { atomicStore(&bins[k], 0u); }
    if (lid < nt) {
        let s = 4u * (row * nt + lid);
        pre[lid] = vec2<u32>(atomicLoad(&out[s]), atomicLoad(&out[s + 2u]));
        if (lid == 0u) { skip = u32(index_phase() && pre[0].y == ALL); }
    }
    // An index pass of a target whose key's elements are all taken (`pick`) counts nothing.
    if (workgroupUniformLoad(&skip) != 0u) { return; }
    for (var t = 0u; t < MAXT; t++) { h_p[t] = pre[select(0u, t, t < nt)]; }
    h_m = vec2<u32>(high_mask(), 0u);
    if (index_phase()) { h_m = vec2<u32>(0xffffffffu, high_mask()); }
    let copy = lid % COPIES;
    let start = (g % tiles()) * chunk();
    let end = min(start + chunk(), row_len());
    let base = in_off() + row * row_len();
    var i = start + lid;
    // Whole batches: 8 loads issued together, no branch between them.
    for (; i + 7u * WG < end; i += 8u * WG) {
        let e = base + i;
        let lo = vec4<u32>(key_at(e), key_at(e + WG), key_at(e + 2u * WG), key_at(e + 3u * WG));
        let hi = vec4<u32>(key_at(e + 4u * WG), key_at(e + 5u * WG), key_at(e + 6u * WG),
                           key_at(e + 7u * WG));
        for (var u = 0u; u < 4u; u++) { tally(lo[u], i + u * WG, copy); }
        for (var u = 0u; u < 4u; u++) { tally(hi[u], i + (u + 4u) * WG, copy); }
    }
    for (; i < end; i += WG) { tally(key_at(base + i), i, copy); }
    flush(0u, h_last0, h_run0, copy);
    flush(1u, h_last1, h_run1, copy);
    flush(2u, h_last2, h_run2, copy);
    flush(3u, h_last3, h_run3, copy);
    workgroupBarrier();
    for (var k = lid; k < nt * 256u; k += WG) {
        let t = k / 256u;
        // The first target with t's prefix holds the count for both.
        var r = t;
        for (var u = t; u > 0u; u--) {
            if (all(pre[u - 1u] == pre[t])) { r = u - 1u; }
        }
        let at = (r * 256u + k % 256u) * COPIES;
        var v = 0u;
        for (var c = 0u; c < COPIES; c++) { v += atomicLoad(&bins[at + c]); }
        if (v != 0u) { atomicAdd(&out[counts_at(row * nt + t) + k % 256u], v); }
    }
}

@compute @workgroup_size(WG)
fn pick(@builtin(local_invocation_index) lid: u32, @builtin(workgroup_id) wid: vec3<u32>,
        @builtin(num_workgroups) nwg: vec3<u32>) {
    let i = wid.y * nwg.x + wid.x;
    if (i >= rows() * targets()) { return; }
    let c = counts_at(i);
    // Invocation lid takes digit lid (WG is 256): its count, and the counts below it by a
    // scan in workgroup memory (`sk`).
    let n = atomicLoad(&out[c + lid]);
    atomicStore(&out[c + lid], 0u);
    let rank = atomicLoad(&out[4u * i + 1u]); // read before any invocation writes it
    sk[lid] = n;
    workgroupBarrier();
    for (var d = 1u; d < WG; d <<= 1u) {
        var y = sk[lid];
        if (lid >= d) { y += sk[lid - d]; }
        workgroupBarrier();
        sk[lid] = y;
        workgroupBarrier();
    }
    let below = sk[lid] - n;
    // One digit holds the rank (none only for a rank beyond the row: refused by the host).
    if (below <= rank && rank < below + n) {
        let r = rank - below;
        let s = 4u * i + select(0u, 2u, index_phase());
        atomicStore(&out[s], atomicLoad(&out[s]) | (lid << shift()));
        atomicStore(&out[4u * i + 1u], r);
        // After the last key pass: where the target is the last element of its key, every
        // element of that key is at or before it, whatever its index (top_k's index passes
        // then count nothing; `compact` takes them all).
        if (!index_phase() && shift() == 0u && r + 1u == n) {
            atomicStore(&out[4u * i + 2u], ALL);
        }
    }
}

@compute @workgroup_size(WG)
fn finish(@builtin(local_invocation_index) lid: u32, @builtin(workgroup_id) wid: vec3<u32>,
          @builtin(num_workgroups) nwg: vec3<u32>) {
    let i = linear_id(wid, nwg, lid, WG);
    if (i >= rows() * targets()) { return; }
    let row = i / targets();
    let t = i % targets();
    atomicStore(&out[row * out_cols() + col_off() + t], unkey(a[4u * i]));
}

@compute @workgroup_size(WG)
fn compact(@builtin(local_invocation_index) lid: u32, @builtin(workgroup_id) wid: vec3<u32>,
           @builtin(num_workgroups) nwg: vec3<u32>) {
    let g = wid.y * nwg.x + wid.x;
    let row = g / tiles();
    if (row >= rows()) { return; }
    let at = vec2<u32>(b[4u * row], b[4u * row + 2u]);
    let k = top_k();
    let start = (g % tiles()) * chunk();
    let end = min(start + chunk(), row_len());
    let base = in_off() + row * row_len();
    for (var i = start + lid; i < end; i += WG) {
        let key = key_at(base + i);
        if (key < at.x || (key == at.x && i <= at.y)) {
            let slot = atomicAdd(&out[row], 1u);
            atomicStore(&out[rows() + row * k + slot], key);
            atomicStore(&out[rows() + (rows() + row) * k + slot], i);
        }
    }
}

// Whether pair j goes after pair i in the order by (key, index).
fn pair_after(i: u32, j: u32) -> bool {
    return sk[i] > sk[j] || (sk[i] == sk[j] && si[i] > si[j]);
}

@compute @workgroup_size(WG)
fn top_sort(@builtin(local_invocation_index) lid: u32, @builtin(workgroup_id) wid: vec3<u32>,
            @builtin(num_workgroups) nwg: vec3<u32>) {
    let row = wid.y * nwg.x + wid.x;
    if (row >= rows()) { return; }
    let k = top_k();
    for (var e = lid; e < PMAX; e += WG) {
        sk[e] = 0xffffffffu;
        si[e] = 0xffffffffu;
        if (e < k) {
            sk[e] = a[rows() + row * k + e];
            si[e] = a[rows() + (rows() + row) * k + e];
        }
    }
    workgroupBarrier();
    for (var size = 2u; size <= PMAX; size <<= 1u) {
        for (var stride = size >> 1u; stride > 0u; stride >>= 1u) {
            for (var e = lid; e < PMAX / 2u; e += WG) {
                let i = 2u * stride * (e / stride) + e % stride;
                let j = i + stride;
                let up = (i & size) == 0u;
                if (pair_after(i, j) == up) {
                    let tk = sk[i];
                    sk[i] = sk[j];
                    sk[j] = tk;
                    let ti = si[i];
                    si[i] = si[j];
                    si[j] = ti;
                }
            }
            workgroupBarrier();
        }
    }
    for (var e = lid; e < k; e += WG) { atomicStore(&out[row * k + e], si[e]); }
}
