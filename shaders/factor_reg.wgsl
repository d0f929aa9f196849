// LU panels held in registers (gpuarray::linalg's LU, src/linalg/factor_reg.rs): the tall
// panel of a blocked LU with partial pivoting read once into the invocations' private
// arrays, factored column by column there, and written once; and the rank update of the
// columns right of such a panel within its block. Matrices are the contiguous row-major
// stack of src/linalg/blocked.rs, matrix `bi` at `bi * rows * cols`.
//
// Bindings: 0 params; 1 `a`, a placeholder (never read); 2 `st`, pivots and status (i32:
// pivot rows, 0-based, `kmax` per matrix, then one status word: the first matrix with a
// zero pivot, i32::MAX for none, lowered with atomicMin); 4 `out`, the stack worked on in
// place.
//
// `lu_reg`: one workgroup per matrix (`wid.z * nwg.y + wid.y`); invocation `lid` holds rows
// `k0 + lid + r * WG` (r < R) of the panel's columns [k0, k0 + wdt) (wdt <= W), R * W
// values in a private array whose every index is a constant once the host has unrolled the
// loops marked `// unroll` (src/kernel/unroll.rs; the column loop itself stays a loop,
// column j picked out by compares, so that the text grows as R * W, not R * W * W). Rows never move in registers: each
// carries its position (the row it holds after the swaps so far), and a swap is a change of
// two positions. Per column: the pivot search (largest magnitude, lowest position of equals,
// as LAPACK's idamax; NaN never wins) over the invocations' candidates in two levels of
// workgroup memory, the pivot row broadcast through workgroup memory, then each active row
// scaled and updated in registers: three barriers a column, no global memory traffic. The
// host keeps one of two pivot searches (the lines between `//> wg` or `//> sg` and `//<`,
// src/linalg/factor_reg.rs's `pivot_text`): that one (wg), or by subgroups (sg: each
// subgroup's winner by three subgroup reductions, its row to the subgroup's slot, one
// barrier a column; two sets of slots for alternate columns).
// At the end each row is written to its position. The columns outside the panel are swapped
// afterwards by shaders/factor.wgsl's `permute`.
//
// `rank_update`: out[i, c] -= sum_q out[i, k0 + q] * out[k0 + q, c] for rows [r0, rows) and
// columns [c0, c0 + ncols), q < wdt: the update of a block's columns right of a factored
// panel (after their U12 rows were solved). One invocation per element, a 1-D grid folded
// into 2-D; the rows of L21 and U12 it reads are never written by the dispatch.

#import params

alias T = f32; // element type: f32 or f64
alias S = f32;
alias SC = f32;
alias TW = f32;
alias TB = bool;
alias TF = f32;
alias M = u32;
alias NI = i32;
alias Vals = array<T, 64>; // R * W values

override WG: u32 = 256u;
// Rows per invocation and the panel's widest width: replaced per variant by the host.
const R: u32 = 4u;
const W: u32 = 16u;
// No position (the subgroup pivot search's "no candidate").
const NONE: u32 = 0xffffffffu;

@group(0) @binding(1) var<storage, read> a: array<T>;
@group(0) @binding(2) var<storage, read_write> st: array<atomic<i32>>;
@group(0) @binding(4) var<storage, read_write> out: array<T>;

//> wg
// The pivot search's first level (one candidate per invocation), its second (one per
// group of 32 invocations) and the pivot row.
var<workgroup> red_v: array<T, 1024>;
var<workgroup> red_p: array<u32, 1024>;
var<workgroup> red2_v: array<T, 32>;
var<workgroup> red2_p: array<u32, 32>;
var<workgroup> prow: array<T, W>;
//<
//> sg
// Subgroups of the workgroup at most (WG over the adapter's smallest subgroup size; the
// host's value), and the pivot search's slots, two sets used by alternate columns (so
// that one barrier a column suffices): for each subgroup its winner's key (two words) and
// position and its winner's row; slot NS is the row at the diagonal's position.
const NS: u32 = 32u;
var<workgroup> cand_h: array<u32, 2 * NS>;
var<workgroup> cand_l: array<u32, 2 * NS>;
var<workgroup> cand_p: array<u32, 2 * NS>;
var<workgroup> cand: array<T, 2 * (NS + 1u) * W>;
//<
// L11 of the panel (W x W) and, for each of its rows, the row of `out` it came from.
var<workgroup> l11: array<T, W * W>;
var<workgroup> src_row: array<u32, W>;

// The parameters, mirroring `FParams` in src/linalg/factor.rs (as shaders/factor.wgsl).
fn rows() -> u32 { return P.shape[0].x; }
fn cols() -> u32 { return P.shape[0].y; }
fn k0() -> u32 { return P.shape[0].z; }
fn wdt() -> u32 { return P.shape[0].w; }
fn c0() -> u32 { return P.shape[1].x; }
fn ncols() -> u32 { return P.shape[1].y; }
fn kmax() -> u32 { return P.shape[1].w; }
fn count() -> u32 { return P.st0[0].x; }
fn r0() -> u32 { return P.st0[0].z; }

// Replaced for f64 by shared/f64_math's correctly rounded division.
fn div_(x: T, y: T) -> T { return x / y; }

//> sg
// The pivot search's key of a magnitude v >= 0 (not NaN) in two words, ordered as the
// magnitudes: 1 + its bits (0 is left to "no candidate"), and nothing more for f32; for
// f64 the high word plus one and the low word (replaced by the host).
fn key_hi(v: T) -> u32 { return bitcast<u32>(v) + 1u; }
fn key_lo(v: T) -> u32 { return 0u; }
//<

// Whether candidate (v, p) beats (bv, bp): larger magnitude, or equal and a lower position.
fn beats(v: T, p: u32, bv: T, bp: u32) -> bool {
    return v > bv || (v == bv && p < bp);
}

@compute @workgroup_size(WG)
fn lu_reg(
    @builtin(workgroup_id) wid: vec3<u32>,
    @builtin(num_workgroups) nwg: vec3<u32>,
    @builtin(local_invocation_index) lid: u32,
//> sg
    @builtin(subgroup_invocation_id) lane: u32,
    @builtin(subgroup_id) sgid: u32,
    @builtin(num_subgroups) nsg: u32,
//<
) {
    // Every invocation of a workgroup runs the column loop (its barriers); a workgroup past
    // the stack has nothing to hold.
    let bi = wid.z * nwg.y + wid.y;
    let live = bi < count();
    let n = cols();
    let m = rows();
    let kk = k0();
    let w = wdt();
    let base = bi * m * n;
    var x: Vals;
    var pos: array<u32, R>;
    // unroll
    for (var r = 0u; r < R; r++) {
        let i = kk + lid + r * WG;
        pos[r] = i;
        // unroll
        for (var c = 0u; c < W; c++) {
            var v = T(0.0);
            if live && i < m && c < w {
                v = out[base + i * n + kk + c];
            }
            x[r * W + c] = v;
        }
    }
    // The column loop stays a loop (its body unrolled over the rows and columns held, so
    // that every index into `x` is a constant; column j picked by compares).
    for (var j = 0u; j < w; j++) { // columns
        let pj = kk + j;
//> wg
        // This invocation's candidate: rows at positions >= pj.
        var bv = T(-1.0);
        var bp = pj;
        // unroll
        for (var r = 0u; r < R; r++) {
            var xj = x[r * W];
            // unroll
            for (var c = 0u; c < W; c++) {
                if c == j {
                    xj = x[r * W + c];
                }
            }
            let v = abs(xj);
            if pos[r] >= pj && pos[r] < m && beats(v, pos[r], bv, bp) {
                bv = v;
                bp = pos[r];
            }
        }
        red_v[lid] = bv;
        red_p[lid] = bp;
        workgroupBarrier();
        if lid < 32u {
            for (var t = lid + 32u; t < WG; t += 32u) {
                if beats(red_v[t], red_p[t], bv, bp) {
                    bv = red_v[t];
                    bp = red_p[t];
                }
            }
            red2_v[lid] = bv;
            red2_p[lid] = bp;
        }
        workgroupBarrier();
        // Every invocation reduces the 32 group winners itself (a broadcast read).
        var p = red2_p[0];
        var pv = red2_v[0];
        for (var t = 1u; t < 32u; t++) {
            if beats(red2_v[t], red2_p[t], pv, p) {
                pv = red2_v[t];
                p = red2_p[t];
            }
        }
        // No candidate above -1 (every one NaN): the row at the diagonal is the pivot.
        // The pivot row's owner broadcasts it; positions p and pj trade places.
        // unroll
        for (var r = 0u; r < R; r++) {
            if pos[r] == p && pos[r] < m {
                // unroll
                for (var c = 0u; c < W; c++) {
                    prow[c] = x[r * W + c];
                }
            }
        }
        workgroupBarrier();
        let piv = prow[j];
//<
//> sg
        // This invocation's candidate (rows at positions >= pj, NaN never: key 0 and
        // position NONE for none), its subgroup's winner (largest key, then the lowest
        // position) by three subgroup reductions, and the winner's row to its subgroup's
        // slot of this column's set; then one barrier, and every invocation picks the
        // workgroup's winner from the slots. The row at position pj goes to slot NS, the
        // pivot where every candidate is NaN.
        let half = j & 1u;
        var kh = 0u;
        var kl = 0u;
        var bp = NONE;
        // unroll
        for (var r = 0u; r < R; r++) {
            var xj = x[r * W];
            // unroll
            for (var c = 0u; c < W; c++) {
                if c == j {
                    xj = x[r * W + c];
                }
            }
            // Without branches (selects): every lane of a subgroup reaches the reductions
            // below together, whatever its rows (a subgroup operation covers the active
            // lanes only, and nothing else here asks the compiler to reconverge them).
            let v = abs(xj);
            let ok = pos[r] >= pj && pos[r] < m && v >= T(0.0);
            let h = select(0u, key_hi(v), ok);
            let l = select(0u, key_lo(v), ok);
            let b = ok && (h > kh || (h == kh && (l > kl || (l == kl && pos[r] < bp))));
            kh = select(kh, h, b);
            kl = select(kl, l, b);
            bp = select(bp, pos[r], b);
        }
        let mh = subgroupMax(kh);
        let ml = subgroupMax(select(0u, kl, kh == mh));
        let mp = subgroupMin(select(NONE, bp, kh == mh && kl == ml));
        if lane == 0u {
            cand_h[half * NS + sgid] = mh;
            cand_l[half * NS + sgid] = ml;
            cand_p[half * NS + sgid] = mp;
        }
        // unroll
        for (var r = 0u; r < R; r++) {
            var slot = NS + 1u;
            if pos[r] == mp {
                slot = sgid;
            } else if pos[r] == pj {
                slot = NS;
            }
            if slot <= NS {
                let at = (half * (NS + 1u) + slot) * W;
                // unroll
                for (var c = 0u; c < W; c++) {
                    cand[at + c] = x[r * W + c];
                }
            }
        }
        workgroupBarrier();
        var gh = 0u;
        var gl = 0u;
        var gp = NONE;
        var gs = NS;
        for (var t = 0u; t < nsg; t++) {
            let h = cand_h[half * NS + t];
            let l = cand_l[half * NS + t];
            let q = cand_p[half * NS + t];
            if h > gh || (h == gh && (l > gl || (l == gl && q < gp))) {
                gh = h;
                gl = l;
                gp = q;
                gs = t;
            }
        }
        // No candidate (every one NaN): the row at the diagonal is the pivot.
        var p = gp;
        if gh == 0u {
            p = pj;
            gs = NS;
        }
        let pb = (half * (NS + 1u) + gs) * W;
        let piv = cand[pb + j];
//<
        var rinv = T(0.0);
        if piv != T(0.0) {
            rinv = div_(T(1.0), piv);
        }
        if lid == 0u && live {
            atomicStore(&st[bi * kmax() + pj], i32(p));
            if piv == T(0.0) {
                atomicMin(&st[count() * kmax()], i32(bi));
            }
        }
//> wg
        // unroll
        for (var r = 0u; r < R; r++) {
            if pos[r] == p {
                pos[r] = pj;
            } else if pos[r] == pj {
                pos[r] = p;
            }
            if pos[r] > pj && pos[r] < m {
                // The multiplier (a zero pivot leaves its column, all zeros, as LAPACK
                // does) and the rank-1 update of the columns right of j.
                var l = T(0.0);
                // unroll
                for (var c = 0u; c < W; c++) {
                    if c == j {
                        l = x[r * W + c] * rinv;
                        if piv != T(0.0) {
                            x[r * W + c] = l;
                        }
                    }
                }
                // unroll
                for (var c = 0u; c < W; c++) {
                    if c > j && c < w {
                        x[r * W + c] -= l * prow[c];
                    }
                }
            }
        }
//<
//> sg
        // The same without branches on the rows' positions (selects; see the search).
        // unroll
        for (var r = 0u; r < R; r++) {
            pos[r] = select(select(pos[r], p, pos[r] == pj), pj, pos[r] == p);
            let act = pos[r] > pj && pos[r] < m;
            var l = T(0.0);
            // unroll
            for (var c = 0u; c < W; c++) {
                if c == j {
                    l = x[r * W + c] * rinv;
                    x[r * W + c] = select(x[r * W + c], l, act && piv != T(0.0));
                }
            }
            // unroll
            for (var c = 0u; c < W; c++) {
                if c > j && c < w {
                    x[r * W + c] = select(x[r * W + c], x[r * W + c] - l * cand[pb + c], act);
                }
            }
        }
//<
    } // columns end
    // Every row to its position; the rows at positions [k0, k0 + wdt) (L11) and the rows
    // they came from to workgroup memory.
    // unroll
    for (var r = 0u; r < R; r++) {
        if live && pos[r] < m {
            // unroll
            for (var c = 0u; c < W; c++) {
                if c < w {
                    out[base + pos[r] * n + kk + c] = x[r * W + c];
                }
            }
            if pos[r] < kk + w {
                let q = pos[r] - kk;
                src_row[q] = kk + lid + r * WG;
                // unroll
                for (var c = 0u; c < W; c++) {
                    l11[q * W + c] = x[r * W + c];
                }
            }
        }
    }
    workgroupBarrier();
    // U12 = L11^-1 A12 for the block's columns [c0, c0 + ncols) right of the panel, read
    // from and written to the rows the pivots came from (`permute` then moves them to
    // their positions): one invocation per column, by substitution (at most 60 columns
    // of W rows: not worth registers). The column's W values are all read before the
    // substitution and written after it (loops over W unrolled on GPUs): read and written
    // in one loop, each read waited for the write before it (a chain of W global memory
    // round trips a sub-panel).
    if live && lid < ncols() {
        let col = c0() + lid;
        var y: array<T, W>;
        // unroll
        for (var q = 0u; q < W; q++) {
            if q < w {
                y[q] = out[base + src_row[q] * n + col];
            }
        }
//> wg
        for (var q = 1u; q < w; q++) {
            var v = y[q];
            for (var p = 0u; p < q; p++) {
                v -= l11[q * W + p] * y[p];
            }
            y[q] = v;
        }
//<
//> sg
        // The same steps with every index into `y` a constant on GPUs (registers, not the
        // local memory a dynamically indexed private array takes).
        // unroll
        for (var q = 0u; q < W; q++) {
            // unroll
            for (var p = 0u; p < W; p++) {
                if p < q && q < w {
                    y[q] -= l11[q * W + p] * y[p];
                }
            }
        }
//<
        // unroll
        for (var q = 0u; q < W; q++) {
            if q < w {
                out[base + src_row[q] * n + col] = y[q];
            }
        }
    }
}

// Row swaps [k0, k0 + wdt) of an LU (st: kmax pivots per matrix) in the columns of `out`
// but [k0, k0 + wdt), as shaders/factor.wgsl's `permute` in order, but each column's
// affected rows (at most 2 wdt) read at once and written at once. The workgroup first
// finds, for each of the 2 wdt destinations (rows k0 + t and piv[t]), the row whose
// content ends there by replaying the swaps backwards (one invocation a destination,
// the pivots read once into workgroup memory); then invocation `c` moves its column's
// rows, every load issued before any store (the loops over W unrolled on GPUs).
// Until 2026-11-29 every invocation replayed the swaps itself (O(wdt^2) steps on private
// arrays) after reading the pivots atomically: on the H200 70-150 us a dispatch, a quarter
// of a 4096 LU's time (GPUARRAY_FACTOR_PROFILE).
var<workgroup> sw_piv: array<u32, W>;
var<workgroup> sw_src: array<u32, 2 * W>;
var<workgroup> sw_dst: array<u32, 2 * W>;

@compute @workgroup_size(WG)
fn swap_rows(
    @builtin(workgroup_id) wid: vec3<u32>,
    @builtin(num_workgroups) nwg: vec3<u32>,
    @builtin(local_invocation_index) lid: u32,
) {
    let bi = wid.z * nwg.y + wid.y;
    let kk = k0();
    let w = wdt();
    let live = bi < count();
    if live && lid < w {
        sw_piv[lid] = u32(atomicLoad(&st[bi * kmax() + kk + lid]));
    }
    workgroupBarrier();
    if live && lid < 2u * w {
        var x = kk + lid;
        if lid >= w {
            x = sw_piv[lid - w];
        }
        var y = x;
        for (var t = 0u; t < w; t++) {
            let s = w - 1u - t;
            if y == kk + s {
                y = sw_piv[s];
            } else if y == sw_piv[s] {
                y = kk + s;
            }
        }
        sw_dst[lid] = x;
        sw_src[lid] = y;
    }
    workgroupBarrier();
    let c = wid.x * WG + lid;
    if !live || c >= cols() || (c >= kk && c < kk + w) {
        return;
    }
    let n = cols();
    let base = bi * rows() * n + c;
    var v: array<T, W>;
    var u: array<T, W>;
    // unroll
    for (var t = 0u; t < W; t++) {
        if t < w {
            v[t] = out[base + sw_src[t] * n];
            u[t] = out[base + sw_src[w + t] * n];
        }
    }
    // unroll
    for (var t = 0u; t < W; t++) {
        if t < w {
            out[base + sw_dst[t] * n] = v[t];
            out[base + sw_dst[w + t] * n] = u[t];
        }
    }
}

@compute @workgroup_size(WG)
fn rank_update(
    @builtin(workgroup_id) wid: vec3<u32>,
    @builtin(num_workgroups) nwg: vec3<u32>,
    @builtin(local_invocation_index) lid: u32,
) {
    let t = linear_id(wid, nwg, lid, WG);
    let nr = rows() - r0();
    let per = nr * ncols();
    if t >= per * count() {
        return;
    }
    let bi = t / per;
    let e = t % per;
    let i = r0() + e / ncols();
    let c = c0() + e % ncols();
    let n = cols();
    let base = bi * rows() * n;
    let kk = k0();
    var acc = out[base + i * n + c];
    for (var q = 0u; q < wdt(); q++) {
        acc -= out[base + i * n + kk + q] * out[base + (kk + q) * n + c];
    }
    out[base + i * n + c] = acc;
}
