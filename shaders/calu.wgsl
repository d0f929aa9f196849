// Tournament pivoting for the LU's panels (CALU's TSLU; gpuarray::linalg's LU,
// src/linalg/calu.rs, the measuring switch GPUARRAY_FACTOR_CALU): the pivots of a tall
// panel chosen by a reduction tree of small LUs with partial pivoting, one dispatch a level
// over many workgroups, then the panel factored against those rows without a search.
// Matrices are the contiguous row-major stack of src/linalg/blocked.rs, matrix `bi` at
// `bi * rows * cols`; the panel is columns [k0, k0 + wdt) (wdt <= W), rows [k0, rows).
//
// Bindings: 0 params; 1 `cin`, the candidate rows of a level (i32 row indices of the
// matrix, `an` per matrix, -1 for none; unread at the first level, which takes the panel's
// rows in order); 2 `st`: at a level but the last the candidates it picks (`c0` per
// matrix: workgroup b's wdt picks at b * wdt), at the last level the pivots and status
// (shaders/factor_reg.wgsl's layout: `kmax` pivot rows per matrix, then the first matrix
// with a zero pivot, lowered with atomicMin); 4 `out`, the stack worked on in place.
//
// `tslu`: workgroup (b, matrix) reads its WG candidates (one row an invocation, the
// panel's columns in a private array whose every index is a constant once the host has
// unrolled the loops marked `// unroll`; the column loop stays a loop, column j picked by
// a tree of selects on j's bits) and factors them with partial pivoting: per column the largest magnitude of
// the candidates not yet picked (the lowest slot of equals, NaN below every number), its
// row broadcast through workgroup memory, the others updated: three barriers a column.
// Rows never move: the pick is recorded as its order. A level but the last writes the
// rows it picked, in order; the last (one workgroup a matrix) has picked the panel's
// pivot rows, and its factored rows are the panel's L11 and U11 (the LU with partial
// pivoting of those rows, in that order). It writes the pivots as LAPACK's sequence of
// swaps (row k0 + t trades places with the one holding the t-th pick), moves the panel
// columns of the rows at [k0, k0 + wdt) that were not picked to the places the swaps take
// them (the picked rows' old places), and writes L11 \ U11 to rows [k0, k0 + wdt). The
// other columns are swapped by shaders/factor_reg.wgsl's `swap_rows`.
//
// `tslu_apply`: L21 = A21 U11^-1 for rows [k0 + wdt, rows) of the panel's columns (after
// the swaps): one invocation a row, by substitution against U11 in workgroup memory. A
// zero diagonal of U11 (a singular matrix, reported by the status word) gives a zero
// column of L.

#import params

alias T = f32; // element type: f32 or f64
alias S = f32;
alias SC = f32;
alias TW = f32;
alias TB = bool;
alias TF = f32;
alias M = u32;
alias NI = i32;

override WG: u32 = 256u;
// The widest panel (64: the column picks' trees of selects assume it).
const W: u32 = 64u;
// The largest workgroup of `tslu` (its reduction's first level).
const WGMAX: u32 = 512u;
// No row.
const NONE: u32 = 0xffffffffu;
// Flags: the first level (the panel's rows in order), the last level (one workgroup).
const FIRST: u32 = 1u;
const LAST: u32 = 2u;

@group(0) @binding(1) var<storage, read> cin: array<i32>;
@group(0) @binding(2) var<storage, read_write> st: array<atomic<i32>>;
@group(0) @binding(4) var<storage, read_write> out: array<T>;

// The pivot search's first level (one candidate an invocation) and second (one per group
// of 32 invocations), the pivot row, and the rows picked in order.
var<workgroup> red_v: array<T, WGMAX>;
var<workgroup> red2_v: array<T, 32>;
var<workgroup> red2_s: array<u32, 32>;
var<workgroup> prow: array<T, W>;
var<workgroup> win: array<u32, W>;
// The last level's swaps: the row of the matrix at position k0 + u, and the position of
// the matrix's row k0 + u.
var<workgroup> top_at: array<u32, W>;
var<workgroup> top_loc: array<u32, W>;
// `tslu_apply`: U11's upper triangle packed by rows, and its diagonal's reciprocals.
var<workgroup> u11: array<T, W * (W + 1u) / 2u>;
var<workgroup> dinv: array<T, W>;

// The parameters, mirroring `FParams` in src/linalg/factor.rs.
fn rows() -> u32 { return P.shape[0].x; }
fn cols() -> u32 { return P.shape[0].y; }
fn k0() -> u32 { return P.shape[0].z; }
fn wdt() -> u32 { return P.shape[0].w; }
fn out_stride() -> u32 { return P.shape[1].x; } // FParams::c0
fn in_stride() -> u32 { return P.shape[1].z; }  // FParams::an
fn kmax() -> u32 { return P.shape[1].w; }
fn count() -> u32 { return P.st0[0].x; }
fn flags() -> u32 { return P.st0[0].y; }
fn ents() -> u32 { return P.st0[0].w; }         // FParams::nrows: candidates per matrix

// Replaced for f64 by shared/f64_math's correctly rounded division.
fn div_(x: T, y: T) -> T { return x / y; }

// Whether candidate (v, s) beats (bv, bs): larger value, or equal and a lower slot.
fn beats(v: T, s: u32, bv: T, bs: u32) -> bool {
    return v > bv || (v == bv && s < bs);
}

@compute @workgroup_size(WG)
fn tslu(
    @builtin(workgroup_id) wid: vec3<u32>,
    @builtin(num_workgroups) nwg: vec3<u32>,
    @builtin(local_invocation_index) lid: u32,
) {
    // Every invocation runs the column loop (its barriers); a workgroup past the stack
    // holds nothing.
    let bi = wid.z * nwg.y + wid.y;
    let live = bi < count();
    let m = rows();
    let n = cols();
    let kk = k0();
    let w = wdt();
    let base = bi * m * n;
    let last = (flags() & LAST) != 0u;
    // This invocation's candidate row.
    var rid = NONE;
    let e = wid.x * WG + lid;
    if live {
        if (flags() & FIRST) != 0u {
            if kk + e < m {
                rid = kk + e;
            }
        } else if e < ents() {
            rid = u32(cin[bi * in_stride() + e]);
        }
    }
    var x: array<T, W>;
    // unroll
    for (var c = 0u; c < W; c++) {
        var v = T(0.0);
        if rid != NONE && c < w {
            v = out[base + rid * n + kk + c];
        }
        x[c] = v;
    }
    if lid < W {
        win[lid] = NONE;
    }
    var act = rid != NONE;
    var ord = NONE;
    for (var j = 0u; j < w; j++) {
        // Element j of the row by a tree of selects on j's bits (depth 6 for W = 64, every
        // index a constant once unrolled), not a chain of W compares and selects: on the
        // H200 (2026-11-29) that chain was the column step's longest path.
        var p32: array<T, 32>;
        // unroll
        for (var i = 0u; i < 32u; i++) {
            p32[i] = select(x[2u * i], x[2u * i + 1u], (j & 1u) != 0u);
        }
        var p16: array<T, 16>;
        // unroll
        for (var i = 0u; i < 16u; i++) {
            p16[i] = select(p32[2u * i], p32[2u * i + 1u], (j & 2u) != 0u);
        }
        var p8: array<T, 8>;
        // unroll
        for (var i = 0u; i < 8u; i++) {
            p8[i] = select(p16[2u * i], p16[2u * i + 1u], (j & 4u) != 0u);
        }
        var p4: array<T, 4>;
        // unroll
        for (var i = 0u; i < 4u; i++) {
            p4[i] = select(p8[2u * i], p8[2u * i + 1u], (j & 8u) != 0u);
        }
        let p2a = select(select(p4[0], p4[1], (j & 16u) != 0u), select(p4[2], p4[3], (j & 16u) != 0u), (j & 32u) != 0u);
        let xj = p2a;
        // The candidate's value: its magnitude, -0.5 for NaN (below every number, above
        // no candidate), -1 for none.
        var v = T(-1.0);
        if act {
            v = abs(xj);
            if !(v >= T(0.0)) {
                v = T(-0.5);
            }
        }
        red_v[lid] = v;
        workgroupBarrier();
        if lid < 32u {
            var bv = v;
            var bs = lid;
            // unroll
            for (var q = 0u; q < 15u; q++) {
                let t = lid + 32u * (q + 1u);
                if t < WG {
                    let tv = red_v[t];
                    if beats(tv, t, bv, bs) {
                        bv = tv;
                        bs = t;
                    }
                }
            }
            red2_v[lid] = bv;
            red2_s[lid] = bs;
        }
        workgroupBarrier();
        // Every invocation reduces the 32 group winners itself (broadcast reads).
        var pv = red2_v[0];
        var ps = red2_s[0];
        // unroll
        for (var q = 0u; q < 31u; q++) {
            let t = q + 1u;
            let tv = red2_v[t];
            let ts = red2_s[t];
            if beats(tv, ts, pv, ps) {
                pv = tv;
                ps = ts;
            }
        }
        // A pick where any candidate is left (always at the last level: at least wdt
        // rows reach it).
        let have = pv > T(-1.0);
        if have && lid == ps {
            ord = j;
            act = false;
            win[j] = rid;
            // unroll
            for (var c = 0u; c < W; c++) {
                prow[c] = x[c];
            }
        }
        workgroupBarrier();
        var piv = T(0.0);
        if have {
            piv = prow[j];
        }
        var rinv = T(0.0);
        if piv != T(0.0) {
            rinv = div_(T(1.0), piv);
        }
        if last && live && lid == 0u && have && piv == T(0.0) {
            atomicMin(&st[count() * kmax()], i32(bi));
        }
        if act {
            // The multiplier (a zero pivot leaves its column, all zeros, as LAPACK does)
            // and the rank-1 update of the columns right of j.
            let l = xj * rinv;
            // unroll
            for (var c = 0u; c < W; c++) {
                if c == j && piv != T(0.0) {
                    x[c] = l;
                }
                if c > j && c < w {
                    x[c] -= l * prow[c];
                }
            }
        }
    }
    workgroupBarrier();
    if !last {
        if live && lid < w {
            atomicStore(&st[bi * out_stride() + wid.x * w + lid], i32(win[lid]));
        }
        return;
    }
    // The pivots: the swaps that bring pick t to position kk + t, in order (invocation 0;
    // the positions [kk, kk + w) not yet swapped hold rows of the matrix from there, and a
    // pick from below kk + w was never moved before its swap).
    if live && lid == 0u {
        for (var u = 0u; u < w; u++) {
            top_at[u] = kk + u;
            top_loc[u] = kk + u;
        }
        for (var t = 0u; t < w; t++) {
            let r = win[t];
            var p = r;
            if r < kk + w {
                p = top_loc[r - kk];
            }
            let c = top_at[t];
            top_at[t] = r;
            if p < kk + w {
                top_at[p - kk] = c;
            }
            if c < kk + w {
                top_loc[c - kk] = p;
            }
            if r < kk + w {
                top_loc[r - kk] = kk + t;
            }
            atomicStore(&st[bi * kmax() + kk + t], i32(p));
        }
    }
    workgroupBarrier();
    // The rows at [kk, kk + w) not picked, their panel columns to their places after the
    // swaps (picked rows' old places, read already); then the picked rows, factored.
    if live {
        for (var t = lid; t < w * w; t += WG) {
            let u = t / w;
            let c = t % w;
            let d = top_loc[u];
            if d >= kk + w {
                out[base + d * n + kk + c] = out[base + (kk + u) * n + kk + c];
            }
        }
    }
    storageBarrier();
    workgroupBarrier();
    if live && ord != NONE {
        // unroll
        for (var c = 0u; c < W; c++) {
            if c < w {
                out[base + (kk + ord) * n + kk + c] = x[c];
            }
        }
    }
}

// Element (j, c), c >= j, of U11 packed by rows.
fn upk(j: u32, c: u32) -> u32 {
    return j * W - j * (j - 1u) / 2u + c - j;
}

@compute @workgroup_size(WG)
fn tslu_apply(
    @builtin(workgroup_id) wid: vec3<u32>,
    @builtin(num_workgroups) nwg: vec3<u32>,
    @builtin(local_invocation_index) lid: u32,
) {
    let bi = wid.z * nwg.y + wid.y;
    let live = bi < count();
    let m = rows();
    let n = cols();
    let kk = k0();
    let w = wdt();
    let base = bi * m * n;
    if live {
        for (var t = lid; t < w * w; t += WG) {
            let j = t / w;
            let c = t % w;
            if c >= j {
                let v = out[base + (kk + j) * n + kk + c];
                u11[upk(j, c)] = v;
                if c == j {
                    var r = T(0.0);
                    if v != T(0.0) {
                        r = div_(T(1.0), v);
                    }
                    dinv[j] = r;
                }
            }
        }
    }
    workgroupBarrier();
    let i = kk + w + wid.x * WG + lid;
    if !live || i >= m {
        return;
    }
    var x: array<T, W>;
    // unroll
    for (var c = 0u; c < W; c++) {
        var v = T(0.0);
        if c < w {
            v = out[base + i * n + kk + c];
        }
        x[c] = v;
    }
    // x U11 = a, column by column: x_j final once divided by U[j][j], then taken from the
    // columns right of it.
    for (var j = 0u; j < w; j++) {
        // Element j of the row by a tree of selects on j's bits (depth 6 for W = 64, every
        // index a constant once unrolled), not a chain of W compares and selects: on the
        // H200 (2026-11-29) that chain was the column step's longest path.
        var p32: array<T, 32>;
        // unroll
        for (var i = 0u; i < 32u; i++) {
            p32[i] = select(x[2u * i], x[2u * i + 1u], (j & 1u) != 0u);
        }
        var p16: array<T, 16>;
        // unroll
        for (var i = 0u; i < 16u; i++) {
            p16[i] = select(p32[2u * i], p32[2u * i + 1u], (j & 2u) != 0u);
        }
        var p8: array<T, 8>;
        // unroll
        for (var i = 0u; i < 8u; i++) {
            p8[i] = select(p16[2u * i], p16[2u * i + 1u], (j & 4u) != 0u);
        }
        var p4: array<T, 4>;
        // unroll
        for (var i = 0u; i < 4u; i++) {
            p4[i] = select(p8[2u * i], p8[2u * i + 1u], (j & 8u) != 0u);
        }
        let p2a = select(select(p4[0], p4[1], (j & 16u) != 0u), select(p4[2], p4[3], (j & 16u) != 0u), (j & 32u) != 0u);
        let xj = p2a;
        let l = xj * dinv[j];
        // unroll
        for (var c = 0u; c < W; c++) {
            if c == j {
                x[c] = l;
            }
            if c > j && c < w {
                x[c] -= l * u11[upk(j, c)];
            }
        }
    }
    // unroll
    for (var c = 0u; c < W; c++) {
        if c < w {
            out[base + i * n + kk + c] = x[c];
        }
    }
}

// `tslu_swap`: the panel's row swaps [k0, k0 + wdt) (st: kmax pivots per matrix) in the
// columns of `out` but [k0, k0 + wdt), as shaders/factor_reg.wgsl's `swap_rows` (each
// column's affected rows read at once, then written), for panels of up to W = 64 columns:
// the workgroup (at least 2 W invocations) first finds, for each of the 2 wdt destinations
// (rows k0 + t and piv[t]), the row whose content ends there by replaying the swaps
// backwards; then invocation `c` moves its column's rows.
var<workgroup> sw_piv: array<u32, W>;
var<workgroup> sw_src: array<u32, 2u * W>;
var<workgroup> sw_dst: array<u32, 2u * W>;

@compute @workgroup_size(WG)
fn tslu_swap(
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
