// Scan family: inclusive scans (cumsum, cumprod, running counts of non-zero elements)
// along one axis of a contiguous array, by reduce-then-scan, and the scatter of stream
// compaction (nonzero, masked select).
//
// The host sees a scan as `outer` lines of `len()` elements, element r of line (o, i) at
// `(o * len() + r) * inner() + i` (inner() = 1: the lines are contiguous rows). Each line is
// cut into `segs()` segments of `seg_len()` elements. With one segment a single dispatch
// scans every line. With several, three stages, none of which waits on another workgroup:
//   1. `*_reduce`: the total of every segment, into partials[(o * segs() + c) * inner() + i]
//      (accumulator type `A`), a problem of `outer` lines of `segs()` elements;
//   2. the host scans the partials (inclusive) with these same kernels (recursively);
//   3. `*_scan_off`: every segment scanned again, starting from partial c - 1 (binding 2).
// So the input is read twice and the output written once.
//
// Bindings: 0 params; 1 `a`, the input (elements, or partials of an earlier stage; `a4` the
// same as vec4s); 2 `b`, the scanned partials (only in the `_off` entries); 4 `out` (`out4`).
// Dispatch geometry:
// - `row_*` (inner() = 1, lines of at least a few tiles): one workgroup per (line, segment),
//   unit = line * segs() + segment, workgroups numbered through a 1-D grid folded into 2-D.
//   The workgroup walks its segment in tiles of WG * PER elements. Every load of a tile is
//   issued before the first use (unconditional, indices clamped to the segment's last
//   element). `row_scan*`: invocation `lid` holds PER consecutive elements in registers and
//   scans them, the WG totals are scanned in workgroup memory (Hillis-Steele, log2(WG)
//   steps), and a carry passes from tile to tile. `row_reduce`: invocation `lid` reads the
//   tile's groups of 4 at (q * WG + lid) * 4, q < 4 (neighbours read neighbouring
//   groups), masked past the end. The vec4 variants (lines of a multiple of 4 elements of
//   4 bytes) move each group of 4 with one vec4 access (`a4`, `out4`).
// - `col_*` (inner() > 1, or short rows): one invocation per (line o, segment c, column i),
//   i fastest, so that neighbouring invocations read neighbouring addresses; each walks its
//   segment serially with stride inner().
// - `compact`: one invocation per element i of the flattened input; where element i is
//   non-zero, element scan[i] - 1 of the output gets i (nonzero) or the value (masked
//   select). Bindings: 1 the flags' source (or the mask), 2 the inclusive scan of the
//   flags (u32), 3 the values (select only), 4 the output.
//
// Determinism: every combination happens in an order fixed by the shape (and WG, PER), never
// by timing, atomics or the subgroup size: the same input gives the same bits on every run.
// f32 and f16 sums accumulate in pairs of f32 (a value and its rounding error, added with
// two-sum), so the error does not grow with the length of the line.
//
// The host replaces the alias lines and the one-line functions identity, combine, conv,
// out_of, load4 and store4 per operation, dtype, stage and alignment
// (src/ops/scan/source.rs).

#import params

alias E = f32;   // element type of the input
alias Src = f32; // what `a` holds: E, or A for partials
alias A = f32;   // accumulator type
alias Dst = f32; // what `out` holds: the result's element type, or A for partials
alias V = f32;   // compact (masked select): the values' type
alias S = f32;   // scalar arguments (unused)
alias SC = f32;
alias W = u32;   // what `a4` holds vectors of: Src in the vec4 variants (unused otherwise)
alias WO = u32;  // what `out4` holds vectors of: Dst in the vec4 variants (unused otherwise)

override WG: u32 = 256u;
// Elements per invocation and tile in the row kernels (four groups of 4, written out in
// row_scan_from and row_reduce; `TILE` in src/ops/scan/plan.rs is WG * PER).
const PER: u32 = 16u;

@group(0) @binding(1) var<storage, read> a: array<Src>;
@group(0) @binding(1) var<storage, read> a4: array<vec4<W>>;
@group(0) @binding(2) var<storage, read> b: array<A>;
@group(0) @binding(3) var<storage, read> vals: array<V>;
@group(0) @binding(4) var<storage, read_write> out: array<Dst>;
@group(0) @binding(4) var<storage, read_write> out4: array<vec4<WO>>;

var<workgroup> sh: array<A, WG>;

// The family's parameters, mirroring `ScanParams` in src/ops/scan/plan.rs (whose `encode`
// is the only code that fills these slots).
fn units() -> u32 { return P.n; }          // work units of this dispatch
fn len() -> u32 { return P.aux.x; }        // elements per line
fn inner() -> u32 { return P.aux.y; }      // stride of the scanned axis (columns per line)
fn segs() -> u32 { return P.shape[0].x; }  // segments per line
fn seg_len() -> u32 { return P.shape[0].y; } // elements per segment
fn zero_bits() -> u32 { return P.shape[0].z; } // 0, unknown to the compiler (see opaque)

// The operation (replaced by the host).
fn identity() -> A { return -0.0; }
fn combine(x: A, y: A) -> A { return x + y; }
fn conv(v: Src) -> A { return A(v); }
fn out_of(v: A) -> Dst { return Dst(v); }
fn load(i: u32) -> A { return conv(a[i]); }
fn store(i: u32, v: A) { out[i] = out_of(v); }
// Elements i .. i + 3, each index clamped to `last` (vec4 variants: i a multiple of 4, the
// group of `last` whole).
fn load4(i: u32, last: u32) -> array<A, 4> { return array<A, 4>(load(min(i, last)), load(min(i + 1u, last)), load(min(i + 2u, last)), load(min(i + 3u, last))); }
// Elements i .. i + 3 stored where below `end` (vec4 variants: `end` a multiple of 4).
fn store4(i: u32, end: u32, v: array<A, 4>) { if i < end { store(i, v[0]); } if i + 1u < end { store(i + 1u, v[1]); } if i + 2u < end { store(i + 2u, v[2]); } if i + 3u < end { store(i + 3u, v[3]); } }

// v itself, in a form the compiler cannot see through: Mesa's NIR folds (a + b) - a to b
// (WGSL cannot mark an addition exact), which would cancel the error terms of df_add.
fn opaque(v: f32) -> f32 {
    return bitcast<f32>(bitcast<u32>(v) | zero_bits());
}

// Two-sum of pairs (value, error) of f32: the f32 sums' combine. A non-finite sum keeps no
// error term (it would be NaN); an exact zero sum keeps the sign of s (-0 + -0 = -0).
fn df_add(x: vec2<f32>, y: vec2<f32>) -> vec2<f32> {
    let s = opaque(x.x + y.x);
    if (bitcast<u32>(s) & 0x7f800000u) == 0x7f800000u {
        return vec2<f32>(s, 0.0);
    }
    // Each difference opaque too: the H100's compiler reassociates (x - (s - bb) as
    // (x - s) + bb), which left its running sums 2.5 ulps off.
    let bb = opaque(s - x.x);
    let e = (opaque(x.x - opaque(s - bb)) + opaque(y.x - bb)) + (x.y + y.y);
    let hi = select(opaque(s + e), s, e == 0.0);
    return vec2<f32>(hi, e - opaque(hi - s));
}

// Inclusive scan of the workgroup's values v (one per invocation) in workgroup memory; the
// total is left in sh[WG - 1] until the next barrier.
fn wg_scan(lid: u32, v: A) -> A {
    sh[lid] = v;
    workgroupBarrier();
    for (var d = 1u; d < WG; d = d << 1u) {
        var y = sh[lid];
        if lid >= d {
            y = combine(sh[lid - d], y);
        }
        workgroupBarrier();
        sh[lid] = y;
        workgroupBarrier();
    }
    return sh[lid];
}

fn unit_of(wid: vec3<u32>, nwg: vec3<u32>) -> u32 {
    return wid.y * nwg.x + wid.x;
}

// The inclusive scan of v from c (c first). Written out, like every walk over the PER = 16
// elements of an invocation below: arrays indexed by loop counters end up in memory
// rather than registers on some drivers (the H100's: twice the time).
fn scan4(c: A, v: array<A, 4>) -> array<A, 4> {
    let r0 = combine(c, v[0]);
    let r1 = combine(r0, v[1]);
    let r2 = combine(r1, v[2]);
    return array<A, 4>(r0, r1, r2, combine(r2, v[3]));
}

// Each of v after p.
fn after4(p: A, v: array<A, 4>) -> array<A, 4> {
    return array<A, 4>(combine(p, v[0]), combine(p, v[1]), combine(p, v[2]), combine(p, v[3]));
}

// c followed by the elements of v whose indices (from i) lie below end.
fn acc4(c: A, v: array<A, 4>, i: u32, end: u32) -> A {
    let r0 = combine(c, select(identity(), v[0], i < end));
    let r1 = combine(r0, select(identity(), v[1], i + 1u < end));
    let r2 = combine(r1, select(identity(), v[2], i + 2u < end));
    return combine(r2, select(identity(), v[3], i + 3u < end));
}

// Row segment `unit` scanned from `carry_in`. Elements past the segment's end only reach
// invocations whose own elements lie past it too, and the carry after the last tile, so
// they need no mask.
fn row_scan_from(unit: u32, lid: u32, carry_in: A) {
    let base = (unit / segs()) * len();
    let start = base + (unit % segs()) * seg_len();
    let end = base + min((unit % segs()) * seg_len() + seg_len(), len());
    var carry = carry_in;
    for (var t = start; t < end; t += WG * PER) {
        let i0 = t + lid * PER;
        let x0 = load4(i0, end - 1u);
        let x1 = load4(i0 + 4u, end - 1u);
        let x2 = load4(i0 + 8u, end - 1u);
        let x3 = load4(i0 + 12u, end - 1u);
        let r0 = scan4(identity(), x0);
        let r1 = scan4(r0[3], x1);
        let r2 = scan4(r1[3], x2);
        let r3 = scan4(r2[3], x3);
        _ = wg_scan(lid, r3[3]);
        let total = sh[WG - 1u];
        var pre = carry;
        if lid > 0u {
            pre = combine(carry, sh[lid - 1u]);
        }
        store4(i0, end, after4(pre, r0));
        store4(i0 + 4u, end, after4(pre, r1));
        store4(i0 + 8u, end, after4(pre, r2));
        store4(i0 + 12u, end, after4(pre, r3));
        carry = combine(carry, total);
        workgroupBarrier();
    }
}

@compute @workgroup_size(WG)
fn row_scan(@builtin(workgroup_id) wid: vec3<u32>, @builtin(num_workgroups) nwg: vec3<u32>,
            @builtin(local_invocation_index) lid: u32) {
    let unit = unit_of(wid, nwg);
    if unit >= units() {
        return;
    }
    row_scan_from(unit, lid, identity());
}

@compute @workgroup_size(WG)
fn row_scan_off(@builtin(workgroup_id) wid: vec3<u32>, @builtin(num_workgroups) nwg: vec3<u32>,
                @builtin(local_invocation_index) lid: u32) {
    let unit = unit_of(wid, nwg);
    if unit >= units() {
        return;
    }
    var carry = identity();
    if unit % segs() > 0u {
        carry = b[unit - 1u];
    }
    row_scan_from(unit, lid, carry);
}

// The total of row segment `unit`: each invocation accumulates its groups of every tile,
// then one workgroup scan; invocation 0 writes it to out[unit].
@compute @workgroup_size(WG)
fn row_reduce(@builtin(workgroup_id) wid: vec3<u32>, @builtin(num_workgroups) nwg: vec3<u32>,
              @builtin(local_invocation_index) lid: u32) {
    let unit = unit_of(wid, nwg);
    if unit >= units() {
        return;
    }
    let base = (unit / segs()) * len();
    let start = base + (unit % segs()) * seg_len();
    let end = base + min((unit % segs()) * seg_len() + seg_len(), len());
    var run = identity();
    for (var t = start; t < end; t += WG * PER) {
        let i0 = t + 4u * lid;
        let x0 = load4(i0, end - 1u);
        let x1 = load4(i0 + 4u * WG, end - 1u);
        let x2 = load4(i0 + 8u * WG, end - 1u);
        let x3 = load4(i0 + 12u * WG, end - 1u);
        run = acc4(run, x0, i0, end);
        run = acc4(run, x1, i0 + 4u * WG, end);
        run = acc4(run, x2, i0 + 8u * WG, end);
        run = acc4(run, x3, i0 + 12u * WG, end);
    }
    _ = wg_scan(lid, run);
    if lid == 0u {
        store(unit, sh[WG - 1u]);
    }
}

// Column segment of invocation u: (first element, elements, partial index).
fn col_segment(u: u32) -> vec3<u32> {
    let i = u % inner();
    let rest = u / inner();
    let c = rest % segs();
    let o = rest / segs();
    let start = c * seg_len();
    let n = min(start + seg_len(), len()) - start;
    return vec3<u32>((o * len() + start) * inner() + i, n, u);
}

fn col_scan_from(u: u32, carry_in: A) {
    let s = col_segment(u);
    var acc = carry_in;
    for (var r = 0u; r < s.y; r++) {
        let at = s.x + r * inner();
        acc = combine(acc, load(at));
        store(at, acc);
    }
}

@compute @workgroup_size(WG)
fn col_scan(@builtin(workgroup_id) wid: vec3<u32>, @builtin(num_workgroups) nwg: vec3<u32>,
            @builtin(local_invocation_index) lid: u32) {
    let u = linear_id(wid, nwg, lid, WG);
    if u >= units() {
        return;
    }
    col_scan_from(u, identity());
}

@compute @workgroup_size(WG)
fn col_scan_off(@builtin(workgroup_id) wid: vec3<u32>, @builtin(num_workgroups) nwg: vec3<u32>,
                @builtin(local_invocation_index) lid: u32) {
    let u = linear_id(wid, nwg, lid, WG);
    if u >= units() {
        return;
    }
    var carry = identity();
    if (u / inner()) % segs() > 0u {
        carry = b[u - inner()];
    }
    col_scan_from(u, carry);
}

@compute @workgroup_size(WG)
fn col_reduce(@builtin(workgroup_id) wid: vec3<u32>, @builtin(num_workgroups) nwg: vec3<u32>,
              @builtin(local_invocation_index) lid: u32) {
    let u = linear_id(wid, nwg, lid, WG);
    if u >= units() {
        return;
    }
    let s = col_segment(u);
    var acc = identity();
    for (var r = 0u; r < s.y; r++) {
        acc = combine(acc, load(s.x + r * inner()));
    }
    store(u, acc);
}

// Stream compaction: invocation i of the flattened input; where flagged(i), the element
// goes to position pos(i) (the inclusive running count of the flags in `b`, less one) and
// put writes its index (nonzero) or its value from `vals` (masked select). The three are
// replaced in the compaction variants; the scans' variants keep these inert ones.
fn flagged(i: u32) -> bool { return false; }
fn pos(i: u32) -> u32 { return 0u; }
fn put(j: u32, i: u32) { }

@compute @workgroup_size(WG)
fn compact(@builtin(workgroup_id) wid: vec3<u32>, @builtin(num_workgroups) nwg: vec3<u32>,
           @builtin(local_invocation_index) lid: u32) {
    let i = linear_id(wid, nwg, lid, WG);
    if i >= units() {
        return;
    }
    if flagged(i) {
        put(pos(i), i);
    }
}
