// Blocked tridiagonal reduction (LAPACK's dsytrd / dlatrd): the panels of the Householder
// reduction of shaders/tridiag.wgsl, NB reflectors at a time. Host:
// src/linalg/spectral/sytrd.rs.
//
// Each matrix b of the stack (n x n, both triangles) is in `out` (the work matrix of
// tridiag.wgsl). A panel of nb columns starting at p0 is reduced against the trailing matrix
// as it stood at the panel's start, A0: with V (the panel's reflectors, v_t at rows past
// p0 + t, v_t[p0 + t + 1] = 1) and W (LAPACK's W, w_t = tau_t (A_t v_t) - (tau_t^2 / 2)
// (v_t^T A_t v_t) v_t), the current trailing matrix is A0 - V W^T - W V^T, and column j
// (k = p0 + j) needs:
// - row k of it, x = A0[k] - V W[k]^T - W V[k]^T (`panel_col`), whose reflector gives v_j;
// - y = A0 v_j over the trailing block (`panel_gemv`), the only pass over the trailing
//   matrix per column; the corrections -V (W^T v_j) - W (V^T v_j) and the scalar
//   v_j^T A_j v_j come from partial sums that each workgroup of `panel_gemv` leaves,
//   summed by the next `panel_col`, which forms w_j row by row.
// After the panel, A0 -= [V W] [W V]^T is one product of inner dimension 2 nb (the
// library's matmul, on the host) and `panel_update` subtracts it.
//
// `pan` holds per matrix b, at b * pstride(): VW ([n][3 NB]: V in columns 0..NB, W in
// NB..2 NB, V again in 2 NB..3 NB, so that [V W] and [W V] are both views of it), X (row k
// updated, by column), Y (A0 v_j, by row), D, E, TAU (the tridiagonal matrix and the
// scalars, as tridiag.wgsl's aux fields 4, 2, 3, copied there by `panel_out`), GP (the
// partial sums of `panel_gemv`, QS per workgroup) and NP (the partial norms of x of
// `panel_col`, 2 per workgroup).
//
// Bindings: 0 params; 1 `src` (read); 2 `pan` (read-write); 4 `out` (read-write).
// Entry points (grids: x as stated, the matrices along y and z):
// - `panel_col`: a workgroup per WG rows r >= k. 4 the work matrix. With j > 0 it first
//   finishes w_{j-1} (row r of W); unless finish(), x[r] = the updated A[k][r], and the
//   workgroup's partial scaled norm of x past k.
// - `panel_gemv`: a workgroup per RB rows r > k (8 row lanes of 32 column lanes). 4 the
//   work matrix: the reflector from the partial norms, Y[r] = A0[r] . v, v into VW, into
//   row k of the work matrix (where the back-transform reads it) and the workgroup's
//   partial sums V^T v, W^T v, Y^T v over its rows; the first workgroup writes d, e, tau.
// - `panel_step`: panel_col and panel_gemv in one dispatch where n - k <= XS (a grid of
//   panel_gemv's): every workgroup forms row k (in workgroup memory, read from column k),
//   its norm and w_{j-1} itself; row k of the work matrix is written by `panel_rows` at the
//   panel's end (an invocation per (matrix, panel column, index)).
// - `panel_update`: an invocation per element of the trailing block. 1 the product
//   C = [V W] [W V]^T ([count][m2][m2]); 4 the work matrix: A0 -= C.
// - `panel_out`: an invocation per (matrix, index). 1 pan; 4 aux of tridiag.wgsl: d, e and
//   tau copied into its fields.

#import params

alias T = f32;
alias S = f32;
alias SC = f32;

override WG: u32 = 256u;
// Panel width (the host's NB) and rows of a panel_gemv workgroup (the host's RB).
const NB: u32 = 32u;
const LD: u32 = 96u;
const RB: u32 = 16u;
// Partial-sum slots per panel_gemv workgroup: V^T v and W^T v (j < NB each) and Y^T v.
const QS: u32 = 64u;

@group(0) @binding(1) var<storage, read> src: array<T>;
@group(0) @binding(2) var<storage, read_write> pan: array<T>;
@group(0) @binding(4) var<storage, read_write> out: array<T>;

fn count() -> u32 { return P.aux.x; }
fn finish() -> bool { return (P.aux.y & 1u) != 0u; }
fn dim() -> u32 { return P.shape[0].x; }
fn step_k() -> u32 { return P.shape[0].y; }     // k = p0 + j
fn col_j() -> u32 { return P.shape[0].z; }      // j, the column in the panel
fn gprev() -> u32 { return P.shape[1].x; }      // panel_gemv workgroups of column j - 1
fn ga() -> u32 { return P.shape[1].y; }         // panel_col workgroups of column j
fn m2() -> u32 { return P.shape[1].z; }         // panel_update: the trailing block's size
fn start() -> u32 { return P.shape[1].w; }      // panel_update: its first row and column
fn big_t() -> T { return T(P.sc.x); }           // largest finite number

fn matrix_of(wid: vec3<u32>) -> u32 { return wid.z * 65535u + wid.y; }

// pan's regions of matrix b.
fn gmax() -> u32 { return (dim() + RB - 1u) / RB; }
fn pstride() -> u32 {
    let n = dim();
    return n * LD + 6u * n + 2u * gmax() * QS + 2u * ((n + WG - 1u) / WG);
}
fn vw(b: u32) -> u32 { return b * pstride(); }
fn o_x(b: u32) -> u32 { return b * pstride() + dim() * LD; }
// Y and GP of column kk, two of each (panel_step reads column k - 1's while it writes k's).
fn o_y(b: u32, kk: u32) -> u32 { return o_x(b) + (1u + (kk & 1u)) * dim(); }
fn o_d(b: u32) -> u32 { return o_x(b) + 3u * dim(); }
fn o_e(b: u32) -> u32 { return o_x(b) + 4u * dim(); }
fn o_tau(b: u32) -> u32 { return o_x(b) + 5u * dim(); }
fn o_gp(b: u32, kk: u32) -> u32 { return o_x(b) + 6u * dim() + (kk & 1u) * gmax() * QS; }
fn o_np(b: u32) -> u32 { return o_x(b) + 6u * dim() + 2u * gmax() * QS; }

fn is_nan_t(x: T) -> bool { return !(x == x); }
fn max_nan(a: T, b: T) -> T {
    return select(max(a, b), a + b, is_nan_t(a) || is_nan_t(b));
}
// Square root within an ulp or two (Vulkan's f64 square root may be f32's).
fn sqrt_t(x: T) -> T {
    let s = sqrt(x);
    if (!(s > T(0.0)) || s + s == s) { return s; }
    return s + (x - s * s) * (T(0.5) / s);
}
fn div_t(a: T, b: T) -> T {
    let q = a / b;
    let c = q + (a - q * b) / b;
    return select(q, c, abs(c) <= big_t());
}

var<workgroup> red: array<T, 256>;
var<workgroup> sh: array<T, QS>;
var<workgroup> ysh: array<T, RB>;
// panel_step: row k (x[c] at c - k) and its workgroup's rows of W's column j - 1.
const XS: u32 = 512u;
var<workgroup> xs: array<T, XS>;
var<workgroup> wsh: array<T, RB>;

fn wsum(lid: u32, v: T) -> T {
    red[lid] = v;
    workgroupBarrier();
    for (var h = WG / 2u; h > 0u; h = h / 2u) {
        if (lid < h) { red[lid] += red[lid + h]; }
        workgroupBarrier();
    }
    let s = red[0];
    workgroupBarrier();
    return s;
}

fn wmax(lid: u32, v: T) -> T {
    red[lid] = v;
    workgroupBarrier();
    for (var h = WG / 2u; h > 0u; h = h / 2u) {
        if (lid < h) { red[lid] = max_nan(red[lid], red[lid + h]); }
        workgroupBarrier();
    }
    let s = red[0];
    workgroupBarrier();
    return s;
}

// sh[q] = the sum of quantity q over the gprev() partials of panel_gemv (every invocation
// of the workgroup takes part; four groups of QS invocations, then combined).
fn sum_partials(lid: u32, b: u32) {
    let q = lid % QS;
    let part = lid / QS;
    var acc = T(0.0);
    let gp = o_gp(b, step_k() - 1u);
    for (var g = part; g < gprev(); g += WG / QS) { acc += pan[gp + g * QS + q]; }
    red[lid] = acc;
    workgroupBarrier();
    if (lid < QS) {
        var s = T(0.0);
        for (var p = 0u; p < WG / QS; p++) { s += red[lid + p * QS]; }
        sh[lid] = s;
    }
    workgroupBarrier();
}

// Row r of w_{j-1} (jp = j - 1, tau its reflector's scalar, al the multiple of v):
// tau (y[r] - V[r] s1 - W[r] s2) + al v[r], s1 = W^T v (sh[jp..]), s2 = V^T v (sh[0..]).
fn w_row(b: u32, r: u32, jp: u32, tau: T, al: T) -> T {
    let base = vw(b) + r * LD;
    var c = T(0.0);
    for (var t = 0u; t < jp; t++) {
        c += pan[base + t] * sh[jp + t] + pan[base + NB + t] * sh[t];
    }
    return tau * (pan[o_y(b, step_k() - 1u) + r] - c) + al * pan[base + jp];
}

@compute @workgroup_size(WG)
fn panel_col(@builtin(workgroup_id) wid: vec3<u32>, @builtin(local_invocation_index) lid: u32) {
    let b = matrix_of(wid);
    if (b >= count()) { return; }
    let n = dim();
    let k = step_k();
    let j = col_j();
    let r = k + wid.x * WG + lid;
    let valid = r < n;
    var wr = T(0.0);
    var wk_ = T(0.0);
    if (j > 0u) {
        let jp = j - 1u;
        sum_partials(lid, b);
        let tau = pan[o_tau(b) + k - 1u];
        var s12 = T(0.0);
        for (var t = 0u; t < jp; t++) { s12 += sh[t] * sh[jp + t]; }
        let al = T(-0.5) * tau * tau * (sh[2u * jp] - T(2.0) * s12);
        if (valid) {
            wr = w_row(b, r, jp, tau, al);
            pan[vw(b) + r * LD + NB + jp] = wr;
        }
        wk_ = w_row(b, k, jp, tau, al);
    }
    if (finish()) { return; }
    var x = T(0.0);
    if (valid) {
        let mb = b * n * n;
        let vk = vw(b) + k * LD;
        let vr = vw(b) + r * LD;
        // The last step also finishes d[n - 1] (its reflector is the identity).
        let last_d = k + 2u == n && r == n - 1u;
        x = out[mb + k * n + r];
        var dl = out[mb + r * n + r];
        for (var t = 0u; t < j; t++) {
            let last = t + 1u == j;
            let w_r = select(pan[vr + NB + t], wr, last);
            let w_k = select(pan[vk + NB + t], wk_, last);
            x -= pan[vk + t] * w_r + w_k * pan[vr + t];
            if (last_d) { dl -= T(2.0) * pan[vr + t] * w_r; }
        }
        pan[o_x(b) + r] = x;
        if (last_d) {
            pan[o_d(b) + r] = dl;
            pan[o_e(b) + r] = T(0.0);
        }
    }
    // The workgroup's part of ||x[k + 2..]|| (dlarfg's norm leaves alpha = x[k + 1] out):
    // its largest magnitude and the sum of squares scaled by it.
    let past = valid && r > k + 1u;
    let mx = wmax(lid, select(T(0.0), abs(x), past));
    var q = T(0.0);
    if (past && mx > T(0.0)) {
        let y = x / mx;
        q = y * y;
    }
    let ssq = wsum(lid, q);
    if (lid == 0u) {
        pan[o_np(b) + 2u * wid.x] = mx;
        pan[o_np(b) + 2u * wid.x + 1u] = ssq;
    }
}

// H_k from the partial norms of x: (tau, 1 / (alpha - beta), beta), as dlarfg.
fn reflector(b: u32) -> vec3<T> {
    let k = step_k();
    let np = o_np(b);
    var mx = T(0.0);
    for (var g = 0u; g < ga(); g++) { mx = max_nan(mx, pan[np + 2u * g]); }
    var ssq = T(0.0);
    if (mx > T(0.0)) {
        for (var g = 0u; g < ga(); g++) {
            let m = pan[np + 2u * g];
            if (m > T(0.0)) {
                let f = m / mx;
                ssq += pan[np + 2u * g + 1u] * f * f;
            }
        }
    }
    let xnorm = mx * sqrt_t(ssq);
    let alpha = pan[o_x(b) + k + 1u];
    if (xnorm == T(0.0)) { return vec3<T>(T(0.0), T(0.0), alpha); }
    let s = max(abs(alpha), xnorm);
    let ra = alpha / s;
    let rx = xnorm / s;
    let h = s * sqrt_t(ra * ra + rx * rx);
    let beta = select(h, -h, alpha >= T(0.0));
    return vec3<T>(div_t(beta - alpha, beta), div_t(T(1.0), alpha - beta), beta);
}

// x[c] of column k: from xs (panel_step, c - k) or from pan's X (panel_gemv).
fn xat(ox: u32, c: u32, fused: bool) -> T {
    if (fused) { return xs[c - step_k()]; }
    return pan[ox + c];
}

// The rows of workgroup `g` of panel_gemv and panel_step: Y[r] = A0[r] . v, v into VW and
// row k of the work matrix, and the partial sums V^T v, W^T v, Y^T v over its rows (W's
// column j - 1 from wsh where `fused`: this dispatch writes it).
fn gemv_rows(b: u32, g: u32, lid: u32, h: vec3<T>, fused: bool) {
    let n = dim();
    let k = step_k();
    let j = col_j();
    let ox = o_x(b);
    let mb = b * n * n;
    let rl = lid / 32u;
    let cl = lid % 32u;
    let r0 = k + 1u + g * RB;
    for (var it = 0u; it < RB / 8u; it++) {
        let i = it * 8u + rl;
        let r = r0 + i;
        var acc = T(0.0);
        if (r < n) {
            let row = mb + r * n;
            var a0 = T(0.0);
            var a1 = T(0.0);
            var a2 = T(0.0);
            var a3 = T(0.0);
            // v = x h.y past its first entry, which is 1: lane 0 takes column k + 1 apart.
            var first = T(0.0);
            var c = k + 1u + cl;
            if (cl == 0u) {
                first = out[row + c];
                c += 32u;
            }
            for (; c + 96u < n; c += 128u) {
                a0 += out[row + c] * xat(ox, c, fused);
                a1 += out[row + c + 32u] * xat(ox, c + 32u, fused);
                a2 += out[row + c + 64u] * xat(ox, c + 64u, fused);
                a3 += out[row + c + 96u] * xat(ox, c + 96u, fused);
            }
            for (; c < n; c += 32u) { a0 += out[row + c] * xat(ox, c, fused); }
            acc = first + ((a0 + a1) + (a2 + a3)) * h.y;
        }
        red[lid] = acc;
        workgroupBarrier();
        for (var s = 16u; s > 0u; s = s / 2u) {
            if (cl < s) { red[lid] += red[lid + s]; }
            workgroupBarrier();
        }
        if (cl == 0u) { ysh[i] = red[lid]; }
        workgroupBarrier();
    }
    // Y, v and the partial sums of this workgroup's rows.
    if (lid < RB) {
        let r = r0 + lid;
        if (r < n) {
            let v = select(xat(ox, r, fused) * h.y, T(1.0), r == k + 1u);
            pan[o_y(b, k) + r] = ysh[lid];
            let base = vw(b) + r * LD;
            pan[base + j] = v;
            pan[base + 2u * NB + j] = v;
            // panel_step's other workgroups still read row k: it keeps column k.
            if (!fused) { out[mb + k * n + r] = v; }
        }
    }
    if (lid <= 2u * j) {
        var acc = T(0.0);
        for (var i = 0u; i < RB; i++) {
            let r = r0 + i;
            if (r >= n) { break; }
            let v = select(xat(ox, r, fused) * h.y, T(1.0), r == k + 1u);
            let base = vw(b) + r * LD;
            var q = ysh[i];
            if (lid < j) {
                q = pan[base + lid];
            } else if (fused && lid + 1u == 2u * j) {
                q = wsh[i];
            } else if (lid < 2u * j) {
                q = pan[base + NB + lid - j];
            }
            acc += q * v;
        }
        pan[o_gp(b, k) + g * QS + lid] = acc;
    }
}

@compute @workgroup_size(WG)
fn panel_gemv(@builtin(workgroup_id) wid: vec3<u32>, @builtin(local_invocation_index) lid: u32) {
    let b = matrix_of(wid);
    if (b >= count()) { return; }
    let k = step_k();
    let h = reflector(b);
    if (wid.x == 0u && lid == 0u) {
        pan[o_d(b) + k] = pan[o_x(b) + k];
        pan[o_e(b) + k] = h.z;
        pan[o_tau(b) + k] = h.x;
    }
    gemv_rows(b, wid.x, lid, h, false);
}

// panel_col and panel_gemv in one dispatch, for n - k <= XS: every workgroup finishes
// w_{j-1} and forms row k (in xs) and its reflector itself; it writes W's column j - 1
// only for its own rows (and the first workgroup for row k), which it keeps in wsh.
@compute @workgroup_size(WG)
fn panel_step(@builtin(workgroup_id) wid: vec3<u32>, @builtin(local_invocation_index) lid: u32) {
    let b = matrix_of(wid);
    if (b >= count()) { return; }
    let n = dim();
    let k = step_k();
    let j = col_j();
    let mb = b * n * n;
    let r0 = k + 1u + wid.x * RB;
    var wk_ = T(0.0);
    var tau = T(0.0);
    var al = T(0.0);
    let jp = max(j, 1u) - 1u;
    if (j > 0u) {
        sum_partials(lid, b);
        tau = pan[o_tau(b) + k - 1u];
        var s12 = T(0.0);
        for (var t = 0u; t < jp; t++) { s12 += sh[t] * sh[jp + t]; }
        al = T(-0.5) * tau * tau * (sh[2u * jp] - T(2.0) * s12);
        wk_ = w_row(b, k, jp, tau, al);
    }
    let vk = vw(b) + k * LD;
    for (var r = k + lid; r < n; r += WG) {
        var wr = T(0.0);
        if (j > 0u) {
            wr = w_row(b, r, jp, tau, al);
            if (r >= r0 && r < r0 + RB) {
                wsh[r - r0] = wr;
                pan[vw(b) + r * LD + NB + jp] = wr;
            }
            if (r == k && wid.x == 0u) { pan[vw(b) + r * LD + NB + jp] = wr; }
        }
        let last_d = k + 2u == n && r == n - 1u;
        let vr = vw(b) + r * LD;
        // Row k of A0 from column k (A0 is symmetric; row k is v's once the panel ends).
        var x = out[mb + r * n + k];
        var dl = out[mb + r * n + r];
        for (var t = 0u; t < j; t++) {
            let last = t + 1u == j;
            let w_r = select(pan[vr + NB + t], wr, last);
            let w_k = select(pan[vk + NB + t], wk_, last);
            x -= pan[vk + t] * w_r + w_k * pan[vr + t];
            if (last_d) { dl -= T(2.0) * pan[vr + t] * w_r; }
        }
        xs[r - k] = x;
        if (last_d && wid.x == 0u) {
            pan[o_d(b) + r] = dl;
            pan[o_e(b) + r] = T(0.0);
        }
    }
    workgroupBarrier();
    // The reflector of x[k + 1..] (norm of x[k + 2..]), the same in every workgroup.
    var mx = T(0.0);
    for (var r = k + 2u + lid; r < n; r += WG) { mx = max_nan(mx, abs(xs[r - k])); }
    mx = wmax(lid, mx);
    var q = T(0.0);
    if (mx > T(0.0)) {
        for (var r = k + 2u + lid; r < n; r += WG) {
            let y = xs[r - k] / mx;
            q += y * y;
        }
    }
    let xnorm = mx * sqrt_t(wsum(lid, q));
    let alpha = xs[1];
    var h = vec3<T>(T(0.0), T(0.0), alpha);
    if (xnorm != T(0.0)) {
        let s = max(abs(alpha), xnorm);
        let ra = alpha / s;
        let rx = xnorm / s;
        let hh = s * sqrt_t(ra * ra + rx * rx);
        let beta = select(hh, -hh, alpha >= T(0.0));
        h = vec3<T>(div_t(beta - alpha, beta), div_t(T(1.0), alpha - beta), beta);
    }
    if (wid.x == 0u && lid == 0u) {
        pan[o_d(b) + k] = xs[0];
        pan[o_e(b) + k] = h.z;
        pan[o_tau(b) + k] = h.x;
    }
    gemv_rows(b, wid.x, lid, h, true);
}

@compute @workgroup_size(WG)
fn panel_update(@builtin(workgroup_id) wid: vec3<u32>, @builtin(num_workgroups) nwg: vec3<u32>,
                @builtin(local_invocation_index) lid: u32) {
    let id = linear_id(wid, nwg, lid, WG);
    if (id >= P.n) { return; }
    let n = dim();
    let m = m2();
    let b = id / (m * m);
    let e = id % (m * m);
    let s = start();
    out[b * n * n + (s + e / m) * n + s + e % m] -= src[id];
}

@compute @workgroup_size(WG)
fn panel_out(@builtin(workgroup_id) wid: vec3<u32>, @builtin(num_workgroups) nwg: vec3<u32>,
             @builtin(local_invocation_index) lid: u32) {
    let id = linear_id(wid, nwg, lid, WG);
    if (id >= P.n) { return; }
    let n = dim();
    let b = id / n;
    let i = id % n;
    // tridiag.wgsl's aux: field f of matrix b at (f * count + b) * n.
    let c = count();
    out[(4u * c + b) * n + i] = src[o_d(b) + i];
    out[(2u * c + b) * n + i] = src[o_e(b) + i];
    if (i + 1u < n) { out[(3u * c + b) * n + i] = src[o_tau(b) + i]; }
}

// - `panel_rows`: an invocation per (matrix, column jj < m2() of the panel at start(),
//   index r): row start() + jj of the work matrix past the diagonal becomes v from VW (the
//   columns panel_step reduced keep their rows until the panel ends).
@compute @workgroup_size(WG)
fn panel_rows(@builtin(workgroup_id) wid: vec3<u32>, @builtin(num_workgroups) nwg: vec3<u32>,
              @builtin(local_invocation_index) lid: u32) {
    let id = linear_id(wid, nwg, lid, WG);
    if (id >= P.n) { return; }
    let n = dim();
    let jb = m2();
    let b = id / (jb * n);
    let jj = (id / n) % jb;
    let r = id % n;
    let k = start() + jj;
    if (r > k) { out[b * n * n + k * n + r] = pan[vw(b) + r * LD + jj]; }
}
