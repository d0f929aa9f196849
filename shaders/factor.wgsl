// Factorization family (gpuarray::linalg: LU with partial pivoting, Cholesky, triangular
// solves): the steps of the blocked algorithms of src/linalg/blocked.rs, on
// stacks of contiguous row-major matrices, matrix `bi` of a stack at `bi * rows * cols`.
// The blocks' products (trailing updates) are the library's matmul; these kernels are the
// panels, the diagonal blocks, the row swaps and the copies of products; the readers of a
// finished factorization (det, perm_matrix, extract) are shaders/factor_read.wgsl.
//
// Bindings: 0 params; 1 `a`, a read-only matrix stack (the triangular factor of a solve, a
// product to subtract); 2 `st`, pivots and status (i32: pivot rows, 0-based,
// `kmax` per matrix, then one status word: the first matrix found singular or not positive
// definite, i32::MAX for none, lowered with atomicMin); 4 `out`, the stack worked on in place.
// Entries that do not use `a` or `st` are bound with a placeholder there.
// Dispatch geometry: the matrix of a workgroup is `wid.z * nwg.y + wid.y` (a 2-D grid of
// matrices) for the per-matrix entries (`lu_panel`, `chol_diag`: one workgroup per matrix)
// and the per-column entries (`trsm_block`, `permute`: one invocation per column, `wid.x`
// over them; `tri_inv`: one workgroup per diagonal block); the flat entry `sub_block` takes one invocation per element of a 1-D grid folded into
// 2-D.
//
// The host replaces the aliases per dtype and, for f64, the one-line functions div_ and
// sqrt_ by shared/f64_math's correctly rounded ones (Vulkan promises f64 division and
// square root only to single precision).

#import params

alias T = f32;  // element type: f32 or f64
alias S = f32;  // scalar arguments (unused)
alias SC = f32;
alias TW = f32; // T for shared/f64_math (imported for f64 only)
alias TB = bool;
alias TF = f32; // f32 for shared/f64_math's sign-bit reads
alias M = u32;  // bits of TF
alias NI = i32; // exponents of ldexp

override WG: u32 = 256u;

const LOWER: u32 = 1u;    // the triangle (trsm_block: the effective one, after TRANS)
const UNIT: u32 = 2u;     // unit diagonal (not read)
const TRANS: u32 = 4u;    // read the triangular (or source) matrix transposed
const SELF: u32 = 8u;     // trsm_block: the triangular matrix is `out` itself (LU's U12)
const REVERSE: u32 = 16u; // permute: the swaps in reverse order (solves with A^T)
const ASSIGN: u32 = 32u;  // sub_block: out = a rather than out -= a

@group(0) @binding(1) var<storage, read> a: array<T>;
@group(0) @binding(2) var<storage, read_write> st: array<atomic<i32>>;
@group(0) @binding(4) var<storage, read_write> out: array<T>;

// The pivot search's reduction (lu_panel, whose WG is a power of two up to 1024).
var<workgroup> red_v: array<T, 1024>;
var<workgroup> red_i: array<u32, 1024>;
var<workgroup> red_s: array<T, 1024>;
// Columns of a sub-panel of lu_panel, and its U12 block (SB rows of at most 64 - SB).
const SB: u32 = 16u;
var<workgroup> u12: array<T, 768>;
// chol_diag's block and tri_inv's inverse, lower triangles packed (64 x 65 / 2 elements).
var<workgroup> chol: array<T, 2080>;

// The family's parameters, mirroring `FParams` in src/linalg/factor.rs (whose `encode` is
// the only code that fills these slots).
fn rows() -> u32 { return P.shape[0].x; }   // rows of each matrix of `out`
fn cols() -> u32 { return P.shape[0].y; }   // columns of each matrix of `out` (its row stride)
fn k0() -> u32 { return P.shape[0].z; }     // first row/column of the block worked on
fn wdt() -> u32 { return P.shape[0].w; }    // width of that block
fn c0() -> u32 { return P.shape[1].x; }     // first column (trsm_block, sub_block)
fn ncols() -> u32 { return P.shape[1].y; }  // columns (trsm_block, sub_block)
fn an() -> u32 { return P.shape[1].z; }     // rows and columns of `a`'s (square) matrices
fn kmax() -> u32 { return P.shape[1].w; }   // pivots per matrix
fn count() -> u32 { return P.st0[0].x; }    // matrices in the stack
fn flags() -> u32 { return P.st0[0].y; }    // LOWER | UNIT | TRANS | SELF | REVERSE
fn r0() -> u32 { return P.st0[0].z; }       // first row (sub_block)
fn nrows() -> u32 { return P.st0[0].w; }    // rows (sub_block)
fn has(f: u32) -> bool { return (flags() & f) != 0u; }

// Replaced for f64 (see the header).
fn div_(x: T, y: T) -> T { return x / y; }
fn sqrt_(x: T) -> T { return sqrt(x); }

fn matrix(wid: vec3<u32>, nwg: vec3<u32>) -> u32 {
    return wid.z * nwg.y + wid.y;
}

// One step of the LU panel: columns [k0, k0 + wdt) of matrix `bi`, rows [column, rows),
// pivoted (rows swapped within the panel), scaled and updated within the panel. One workgroup per
// matrix; pivots to st[bi * kmax + j]; a zero pivot lowers the status word.
@compute @workgroup_size(WG)
fn lu_panel(
    @builtin(workgroup_id) wid: vec3<u32>,
    @builtin(num_workgroups) nwg: vec3<u32>,
    @builtin(local_invocation_index) lid: u32,
) {
    let bi = matrix(wid, nwg);
    if bi >= count() {
        return;
    }
    let m = rows();
    let n = cols();
    let base = bi * m * n;
    let end = k0() + wdt();
    // Sub-panels of SB columns: rank-1 updates within one, then its effect on the panel's
    // columns right of it at once (a forward substitution for its rows, a product of
    // depth SB for the rows below): each element of the panel is read and written once
    // per sub-panel rather than once per column.
    for (var s0 = k0(); s0 < end; s0 += SB) {
        let s1 = min(s0 + SB, end);
        var pending = Pending(T(0.0), false);
        for (var j = s0; j < s1; j++) {
            pending = pivot_step(bi, base, j, s1, lid, pending);
        }
        // The last column's multipliers (each column's are written in the next step).
        scale_column(base, s1 - 1u, s1, pending, lid);
        storageBarrier();
        if s1 < end {
            let wr = end - s1;
            // U12 = L11^-1 A12 for rows [s0, s1), columns [s1, end) (unit lower).
            for (var c = s1 + lid; c < end; c += WG) {
                for (var r = s0 + 1u; r < s1; r++) {
                    var x = out[base + r * n + c];
                    for (var q = s0; q < r; q++) {
                        x -= out[base + r * n + q] * out[base + q * n + c];
                    }
                    out[base + r * n + c] = x;
                }
            }
            storageBarrier();
            for (var t = lid; t < (s1 - s0) * wr; t += WG) {
                u12[t] = out[base + (s0 + t / wr) * n + s1 + t % wr];
            }
            workgroupBarrier();
            // A22 -= L21 U12 for rows [s1, m), columns [s1, end).
            let todo = (m - s1) * wr;
            for (var t = lid; t < todo; t += WG) {
                let i = s1 + t / wr;
                let c = t % wr;
                var x = out[base + i * n + s1 + c];
                for (var q = 0u; q < s1 - s0; q++) {
                    x -= out[base + i * n + s0 + q] * u12[q * wr + c];
                }
                out[base + i * n + s1 + c] = x;
            }
            storageBarrier();
            workgroupBarrier();
        }
    }
}

// The multipliers of column j waiting to be written: its rows below the diagonal times
// r = 1 / pivot (`on`: a nonzero pivot; a zero pivot leaves its column, all zeros, as
// LAPACK does).
struct Pending {
    r: T,
    on: bool,
}

// Rows [first, rows) of column j times the pending r.
fn scale_column(base: u32, j: u32, first: u32, pending: Pending, lid: u32) {
    if pending.on {
        for (var i = first + lid; i < rows(); i += WG) {
            out[base + i * cols() + j] *= pending.r;
        }
    }
}

// Column j of the panel: the previous column's multipliers written (`prev`) beside the
// pivot search, the swap of rows j and p over the panel's columns, and the rank-1 update
// of columns (j, s1) by the multipliers as they will be (column j itself is scaled in the
// next step, or by the caller after the last). Called by every invocation; returns column
// j's pending scale.
fn pivot_step(bi: u32, base: u32, j: u32, s1: u32, lid: u32, prev: Pending) -> Pending {
    let m = rows();
    let n = cols();
    let end = k0() + wdt();
    if j > 0u {
        scale_column(base, j - 1u, j, prev, lid);
    }
    // The pivot: the largest magnitude of column j at or below the diagonal, the first
    // of equals (LAPACK's idamax); NaN never wins. The signed value travels with it.
    var best = T(-1.0);
    var bidx = j;
    var bval = T(0.0);
    for (var i = j + lid; i < m; i += WG) {
        let x = out[base + i * n + j];
        let v = abs(x);
        if v > best {
            best = v;
            bidx = i;
            bval = x;
        }
    }
    red_v[lid] = best;
    red_i[lid] = bidx;
    red_s[lid] = bval;
    storageBarrier();
    workgroupBarrier();
    for (var s = WG / 2u; s > 0u; s >>= 1u) {
        if lid < s {
            let v = red_v[lid + s];
            let k = red_i[lid + s];
            if v > red_v[lid] || (v == red_v[lid] && k < red_i[lid]) {
                red_v[lid] = v;
                red_i[lid] = k;
                red_s[lid] = red_s[lid + s];
            }
        }
        workgroupBarrier();
    }
    let p = red_i[0];
    // No element above -1 (all NaN, or no rows): the diagonal itself.
    var piv = red_s[0];
    if red_v[0] < T(0.0) {
        piv = out[base + j * n + j];
    }
    if lid == 0u {
        atomicStore(&st[bi * kmax() + j], i32(p));
        if piv == T(0.0) {
            atomicMin(&st[count() * kmax()], i32(bi));
        }
    }
    if p != j {
        // The panel's columns only: `permute` swaps the others after the panel.
        for (var c = k0() + lid; c < end; c += WG) {
            let t = out[base + j * n + c];
            out[base + j * n + c] = out[base + p * n + c];
            out[base + p * n + c] = t;
        }
    }
    storageBarrier();
    var r = T(0.0);
    if piv != T(0.0) {
        r = div_(T(1.0), piv);
    }
    // The rank-1 update of the sub-panel's columns right of j, by the multipliers
    // out[i][j] * r (written in the next step).
    let wc = s1 - j - 1u;
    if wc > 0u {
        let todo = (m - j - 1u) * wc;
        for (var t = lid; t < todo; t += WG) {
            let i = j + 1u + t / wc;
            let c = j + 1u + t % wc;
            out[base + i * n + c] -= (out[base + i * n + j] * r) * out[base + j * n + c];
        }
    }
    storageBarrier();
    workgroupBarrier();
    return Pending(r, piv != T(0.0));
}

// Element (i, p) of the triangular matrix of a solve (transposed where TRANS), from `out`
// (SELF) or `a`.
fn tri(base: u32, ld: u32, i: u32, p: u32) -> T {
    var idx = base + i * ld + p;
    if has(TRANS) {
        idx = base + p * ld + i;
    }
    if has(SELF) {
        return out[idx];
    }
    return a[idx];
}

// Triangular solve of a diagonal block: rows [k0, k0 + wdt) of columns [c0, c0 + ncols) of
// `out` become (the block's triangle)^-1 times themselves. One invocation per column; the
// triangle is the block at (k0, k0) of `a` (an x an matrices) or of `out` (SELF).
@compute @workgroup_size(WG)
fn trsm_block(
    @builtin(workgroup_id) wid: vec3<u32>,
    @builtin(num_workgroups) nwg: vec3<u32>,
    @builtin(local_invocation_index) lid: u32,
) {
    let bi = matrix(wid, nwg);
    let c = wid.x * WG + lid;
    if bi >= count() || c >= ncols() {
        return;
    }
    let n = cols();
    let base = bi * rows() * n;
    let col = c0() + c;
    var tb = bi * an() * an();
    var ld = an();
    if has(SELF) {
        tb = base;
        ld = n;
    }
    let w = wdt();
    let lo = k0();
    for (var s = 0u; s < w; s++) {
        var x: T;
        var i: u32;
        if has(LOWER) {
            i = lo + s;
            x = out[base + i * n + col];
            for (var p = lo; p < i; p++) {
                x -= tri(tb, ld, i, p) * out[base + p * n + col];
            }
        } else {
            i = lo + w - 1u - s;
            x = out[base + i * n + col];
            for (var p = i + 1u; p < lo + w; p++) {
                x -= tri(tb, ld, i, p) * out[base + p * n + col];
            }
        }
        if !has(UNIT) {
            x = div_(x, tri(tb, ld, i, i));
        }
        out[base + i * n + col] = x;
    }
}

// out[r0 + i, c0 + j] -= a[i, j] for the nrows x ncols contiguous matrices of `a`: the
// trailing update after the product. One invocation per element.
@compute @workgroup_size(WG)
fn sub_block(
    @builtin(workgroup_id) wid: vec3<u32>,
    @builtin(num_workgroups) nwg: vec3<u32>,
    @builtin(local_invocation_index) lid: u32,
) {
    let t = linear_id(wid, nwg, lid, WG);
    let per = nrows() * ncols();
    if t >= per * count() {
        return;
    }
    let bi = t / per;
    let r = t % per;
    let i = r0() + r / ncols();
    let j = c0() + r % ncols();
    let o = bi * rows() * cols() + i * cols() + j;
    if has(ASSIGN) {
        out[o] = a[t];
    } else {
        out[o] -= a[t];
    }
}

// The inverses of the diagonal blocks of triangular matrices: block b (rows and columns
// [k0 + b wdt, + min(wdt, nrows - b wdt))) of op(A) for the matrices of `a` (rows x cols,
// transposed where TRANS; the triangle LOWER names, unit diagonal where UNIT), each
// inverse to a wdt x wdt slot of `out` ([count, blocks, wdt, wdt]). Workgroup (b, matrix).
// The inverse is built in workgroup memory (its lower triangle packed), column by column of
// the triangle: at step q its row q is final once divided by the diagonal, then every
// row below takes its multiple of it; two barriers a step, every invocation busy on the
// block's elements. An upper triangle is worked on reversed (row and column i as w - 1 - i),
// which makes it lower.
@compute @workgroup_size(WG)
fn tri_inv(
    @builtin(workgroup_id) wid: vec3<u32>,
    @builtin(num_workgroups) nwg: vec3<u32>,
    @builtin(local_invocation_index) lid: u32,
) {
    // Every invocation reaches the barriers; a workgroup past the stack writes nothing.
    let bi = matrix(wid, nwg);
    let live = bi < count();
    let blocks = nwg.x;
    let blk = wid.x;
    let kk = k0() + blk * wdt();
    let w = min(wdt(), k0() + nrows() - kk);
    let ld = cols();
    let base = bi * rows() * ld;
    let ob = (bi * blocks + blk) * wdt() * wdt();
    let lower = has(LOWER);
    for (var t = lid; t < w * (w + 1u) / 2u; t += WG) {
        chol[t] = T(0.0);
    }
    workgroupBarrier();
    for (var i = lid; i < w; i += WG) {
        chol[packed(i, i)] = T(1.0);
    }
    workgroupBarrier();
    for (var q = 0u; q < w; q++) {
        // Row q of the inverse: columns [0, q].
        if !has(UNIT) && live {
            let d = tri_rev(base, ld, kk, w, lower, q, q);
            for (var c = lid; c <= q; c += WG) {
                chol[packed(q, c)] = div_(chol[packed(q, c)], d);
            }
        }
        workgroupBarrier();
        // Rows below q: X[i][c] -= T[i][q] X[q][c] for c <= q.
        let below = w - q - 1u;
        if live {
            for (var t = lid; t < below * (q + 1u); t += WG) {
                let i = q + 1u + t / (q + 1u);
                let c = t % (q + 1u);
                chol[packed(i, c)] -= tri_rev(base, ld, kk, w, lower, i, q) * chol[packed(q, c)];
            }
        }
        workgroupBarrier();
    }
    if live {
        for (var t = lid; t < w * w; t += WG) {
            let i = t / w;
            let c = t % w;
            var v = T(0.0);
            if c <= i {
                v = chol[packed(i, c)];
            }
            // Back from reversed coordinates for an upper triangle.
            var o = ob + i * wdt() + c;
            if !lower {
                o = ob + (w - 1u - i) * wdt() + (w - 1u - c);
            }
            out[o] = v;
        }
    }
}

// Element (i, p) of the block at (kk, kk) of op(A), i and p reversed (w - 1 - i) where the
// triangle is upper.
fn tri_rev(base: u32, ld: u32, kk: u32, w: u32, lower: bool, i: u32, p: u32) -> T {
    if lower {
        return tri_at(base, ld, kk + i, kk + p);
    }
    return tri_at(base, ld, kk + w - 1u - i, kk + w - 1u - p);
}

// Element (i, p) of op(A) from `a` (row stride ld; transposed where TRANS).
fn tri_at(base: u32, ld: u32, i: u32, p: u32) -> T {
    if has(TRANS) {
        return a[base + p * ld + i];
    }
    return a[base + i * ld + p];
}

// Cholesky of the diagonal block at (k0, k0) of width wdt (at most 64; lower triangle, in
// place; right-looking, unblocked, the block's lower triangle in workgroup memory, packed).
// One workgroup per matrix; a diagonal that is not positive (or NaN) lowers the status
// word st[0] (the computation goes on, giving NaN).
@compute @workgroup_size(WG)
fn chol_diag(
    @builtin(workgroup_id) wid: vec3<u32>,
    @builtin(num_workgroups) nwg: vec3<u32>,
    @builtin(local_invocation_index) lid: u32,
) {
    let bi = matrix(wid, nwg);
    if bi >= count() {
        return;
    }
    let n = cols();
    let base = bi * rows() * n + k0() * n + k0();
    let w = wdt();
    for (var t = lid; t < w * w; t += WG) {
        let i = t / w;
        let j = t % w;
        if j <= i {
            chol[packed(i, j)] = out[base + i * n + j];
        }
    }
    workgroupBarrier();
    for (var j = 0u; j < w; j++) {
        let d = chol[packed(j, j)];
        workgroupBarrier();
        if lid == 0u {
            if !(d > T(0.0)) {
                atomicMin(&st[0], i32(bi));
            }
        }
        let s = sqrt_(d);
        let r = div_(T(1.0), s);
        for (var i = j + lid; i < w; i += WG) {
            if i == j {
                chol[packed(j, j)] = s;
            } else {
                chol[packed(i, j)] *= r;
            }
        }
        workgroupBarrier();
        let wc = w - j - 1u;
        for (var t = lid; t < wc * wc; t += WG) {
            let i = j + 1u + t / wc;
            let c = j + 1u + t % wc;
            if c <= i {
                chol[packed(i, c)] -= chol[packed(i, j)] * chol[packed(c, j)];
            }
        }
        workgroupBarrier();
    }
    for (var t = lid; t < w * w; t += WG) {
        let i = t / w;
        let j = t % w;
        if j <= i {
            out[base + i * n + j] = chol[packed(i, j)];
        }
    }
}

// Element (i, j), j <= i, of a packed lower triangle.
fn packed(i: u32, j: u32) -> u32 {
    return i * (i + 1u) / 2u + j;
}

// The row swaps [k0, k0 + wdt) of an LU (st: kmax pivots per matrix) applied to the
// columns of `out` but [c0, c0 + ncols), in order, or in reverse order (REVERSE). One
// invocation per column.
@compute @workgroup_size(WG)
fn permute(
    @builtin(workgroup_id) wid: vec3<u32>,
    @builtin(num_workgroups) nwg: vec3<u32>,
    @builtin(local_invocation_index) lid: u32,
) {
    let bi = matrix(wid, nwg);
    let c = wid.x * WG + lid;
    if bi >= count() || c >= cols() || (c >= c0() && c < c0() + ncols()) {
        return;
    }
    let n = cols();
    let base = bi * rows() * n;
    let k = kmax();
    for (var s = 0u; s < wdt(); s++) {
        var j = k0() + s;
        if has(REVERSE) {
            j = k0() + wdt() - 1u - s;
        }
        let p = u32(atomicLoad(&st[bi * k + j]));
        if p != j {
            let t = out[base + j * n + c];
            out[base + j * n + c] = out[base + p * n + c];
            out[base + p * n + c] = t;
        }
    }
}
