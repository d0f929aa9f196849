// Tridiagonal family: eigvalsh of symmetric matrices by Householder reduction to tridiagonal
// form and Sturm bisection. Host: src/linalg/spectral/tridiag.rs.
//
// Each matrix b of the stack (n x n) is held in the work buffer `wk` ([count][n][n], both
// triangles kept equal). Step k (0 <= k < n - 1) of the reduction makes column and row k of
// the trailing matrix zero below the subdiagonal with H_k = I - tau v v^T acting on rows and
// columns k+1..n-1 (v[k+1] = 1): p = tau A v, w = p - (tau / 2)(p^T v) v, A -= v w^T + w v^T
// (LAPACK's dsytd2). After step k row k of `wk` is free: v is kept there, A[k][k+1..n]
// (for a back-transform of eigenvectors).
//
// `aux` holds per matrix, each field n long at (f * count + b) * n: 0 the current v, 1 p,
// 2 the subdiagonal e, 3 tau, 4 the diagonal d, 5 and 6 v and p of the fused step's odd
// steps (shaders/tridiag_step.wgsl); stein's scratch follows.
//
// Bindings: 0 params; 1 `src` (read); 2 `aux` (read-write); 4 `wk` (read-write).
// Entry points:
// - `prep`: an invocation per element. 1 the contiguous input; 4 A, the triangle named by
//   upper() mirrored.
// - `house`: a workgroup per (row i of the trailing matrix, matrix). 4 A. Every workgroup
//   computes H_k from row k (symmetric: column k) and p[i] = tau A[k+1+i][k+1..] . v; the
//   first also writes d[k], e[k], tau[k] (and d[n-1] at the last step).
// - `rank2`: a workgroup per (row i of the trailing matrix, matrix). 4 A: the row's update
//   (each workgroup forms p^T v itself: no dispatch between), and v[i] to row k.
// - `bisect`: an invocation per (matrix, eigenvalue j). 4 the values [count][n]: the j-th
//   smallest eigenvalue of T by bisection on Sturm counts in Gershgorin's interval, to
//   within max(eps ||T|| / 4, 2 eps |lambda|); NaN for a T with a non-finite entry (NaN and
//   infinities spread through the reduction's products). At most step_k() steps a
//   dispatch; the bracket is left in aux's v and p fields, and a dispatch with first != 0
//   resumes from it (vec0() != 0; CPU adapters split the steps: lavapipe's loop budget).

#import params

alias T = f32;
alias S = f32;
alias SC = f32;

override WG: u32 = 256u;
const WGMAX: u32 = 256u;

@group(0) @binding(1) var<storage, read> src: array<T>;
@group(0) @binding(2) var<storage, read_write> aux: array<T>;
@group(0) @binding(4) var<storage, read_write> wk: array<T>;

// The family's parameters, mirroring `TParams` in src/linalg/spectral/tridiag.rs.
fn count() -> u32 { return P.aux.x; }          // matrices
fn upper() -> bool { return (P.aux.y & 1u) != 0u; }
fn dim() -> u32 { return P.shape[0].x; }       // n
fn step_k() -> u32 { return P.shape[0].y; }    // k of house / rank2
fn eps() -> T { return T(P.sc.x); }            // machine epsilon
fn safemin() -> T { return T(P.sc.y); }        // smallest normal number
fn big_t() -> T { return T(P.sc.z); }          // largest finite number
fn nan_t() -> T { return T(P.sc.w); }          // NaN

const F_V: u32 = 0u;
const F_P: u32 = 1u;
const F_E: u32 = 2u;
const F_TAU: u32 = 3u;
const F_D: u32 = 4u;
// v and p of the odd steps of shaders/tridiag_step.wgsl (the even ones in F_V, F_P).
const F_V1: u32 = 5u;
const F_P1: u32 = 6u;
// The fields before stein's scratch.
const AUX_FIELDS: u32 = 7u;
fn field(f: u32, b: u32) -> u32 { return (f * count() + b) * dim(); }

// The matrix of a workgroup in a grid of (x, count folded into y and z).
fn matrix_of(wid: vec3<u32>) -> u32 { return wid.z * 65535u + wid.y; }

fn is_nan_t(x: T) -> bool { return !(x == x); }
// Ordered comparisons (x - x == 0 may be folded to true by a driver).
fn finite(x: T) -> bool { return abs(x) <= big_t(); }

// Square root within an ulp or two (a Newton step: Vulkan promises f64 square roots no
// better than f32's).
fn sqrt_t(x: T) -> T {
    let s = sqrt(x);
    if (!(s > T(0.0)) || s + s == s) { return s; }
    return s + (x - s * s) * (T(0.5) / s);
}
fn div_t(a: T, b: T) -> T {
    let q = a / b;
    let c = q + (a - q * b) / b;
    return select(q, c, c - c == T(0.0));
}

var<workgroup> red: array<T, WGMAX>;

// The sum over the workgroup (every invocation gets it).
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

// max(a, b), NaN where either is.
fn max_nan(a: T, b: T) -> T {
    return select(max(a, b), a + b, is_nan_t(a) || is_nan_t(b));
}

// The largest value over the workgroup (NaN where any is).
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

@compute @workgroup_size(WG)
fn prep(@builtin(workgroup_id) wid: vec3<u32>, @builtin(num_workgroups) nwg: vec3<u32>,
        @builtin(local_invocation_index) lid: u32) {
    let i = linear_id(wid, nwg, lid, WG);
    if (i >= P.n) { return; }
    let n = dim();
    let b = i / (n * n);
    let e = i % (n * n);
    let lo = min(e / n, e % n);
    let hi = max(e / n, e % n);
    let base = b * n * n;
    wk[i] = select(src[base + hi * n + lo], src[base + lo * n + hi], upper());
}

// H_k of matrix b from row k (x = A[k][k+1..n]): (tau, 1 / (alpha - beta), beta), LAPACK's
// dlarfg, with the norm of x[1..] scaled by its largest magnitude (no overflow or underflow).
fn reflector(lid: u32, b: u32) -> vec3<T> {
    let n = dim();
    let k = step_k();
    let m = n - k - 1u;
    let row = b * n * n + k * n + k + 1u;
    var mx = T(0.0);
    for (var t = 1u + lid; t < m; t += WG) { mx = max_nan(mx, abs(wk[row + t])); }
    mx = wmax(lid, mx);
    var ssq = T(0.0);
    if (mx != T(0.0)) {
        for (var t = 1u + lid; t < m; t += WG) {
            let y = wk[row + t] / mx;
            ssq += y * y;
        }
    }
    return reflect_from(wk[row], mx * sqrt_t(wsum(lid, ssq)));
}

// dlarfg's (tau, 1 / (alpha - beta), beta) from alpha = x[0] and the norm of x[1..].
fn reflect_from(alpha: T, xnorm: T) -> vec3<T> {
    if (xnorm == T(0.0)) { return vec3<T>(T(0.0), T(0.0), alpha); }
    let s = max(abs(alpha), xnorm);
    let ra = alpha / s;
    let rx = xnorm / s;
    let h = s * sqrt_t(ra * ra + rx * rx);
    let beta = select(h, -h, alpha >= T(0.0));
    return vec3<T>(div_t(beta - alpha, beta), div_t(T(1.0), alpha - beta), beta);
}

@compute @workgroup_size(WG)
fn house(@builtin(workgroup_id) wid: vec3<u32>, @builtin(local_invocation_index) lid: u32) {
    let b = matrix_of(wid);
    if (b >= count()) { return; }
    let n = dim();
    let k = step_k();
    let m = n - k - 1u;
    let i = wid.x;
    let h = reflector(lid, b);
    let row = b * n * n + k * n + k + 1u;
    let rowi = b * n * n + (k + 1u + i) * n + k + 1u;
    var acc = T(0.0);
    for (var t = lid; t < m; t += WG) {
        let v = select(wk[row + t] * h.y, T(1.0), t == 0u);
        acc += wk[rowi + t] * v;
    }
    acc = wsum(lid, acc);
    if (lid == 0u) {
        aux[field(F_P, b) + i] = h.x * acc;
        aux[field(F_V, b) + i] = select(wk[row + i] * h.y, T(1.0), i == 0u);
        if (i == 0u) {
            aux[field(F_E, b) + k] = h.z;
            aux[field(F_TAU, b) + k] = h.x;
            aux[field(F_D, b) + k] = wk[b * n * n + k * n + k];
            if (k + 2u == n) {
                aux[field(F_D, b) + k + 1u] = wk[b * n * n + (k + 1u) * n + k + 1u];
                aux[field(F_E, b) + k + 1u] = T(0.0);
            }
        }
    }
}

@compute @workgroup_size(WG)
fn rank2(@builtin(workgroup_id) wid: vec3<u32>, @builtin(local_invocation_index) lid: u32) {
    let b = matrix_of(wid);
    if (b >= count()) { return; }
    let n = dim();
    let k = step_k();
    let m = n - k - 1u;
    let i = wid.x;
    let fv = field(F_V, b);
    let fp = field(F_P, b);
    var acc = T(0.0);
    for (var t = lid; t < m; t += WG) { acc += aux[fp + t] * aux[fv + t]; }
    let c = T(-0.5) * aux[field(F_TAU, b) + k] * wsum(lid, acc);
    let vi = aux[fv + i];
    let wi = aux[fp + i] + c * vi;
    let rowi = b * n * n + (k + 1u + i) * n + k + 1u;
    for (var t = lid; t < m; t += WG) {
        let vt = aux[fv + t];
        let wt = aux[fp + t] + c * vt;
        wk[rowi + t] -= vi * wt + wi * vt;
    }
    if (lid == 0u) { wk[b * n * n + k * n + k + 1u + i] = vi; }
}

// The number of eigenvalues of T (matrix b) below x: the negative pivots of T - x I.
fn sturm(b: u32, x: T, pivmin: T) -> u32 {
    let n = dim();
    let fd = field(F_D, b);
    let fe = field(F_E, b);
    var c = 0u;
    var q = aux[fd] - x;
    if (abs(q) <= pivmin) { q = -pivmin; }
    if (q < T(0.0)) { c += 1u; }
    for (var i = 1u; i < n; i++) {
        let e = aux[fe + i - 1u];
        q = aux[fd + i] - x - e * e / q;
        if (abs(q) <= pivmin) { q = -pivmin; }
        if (q < T(0.0)) { c += 1u; }
    }
    return c;
}

// Gershgorin's interval of T (matrix b) and 1 where every entry is finite: (lo, hi, ok).
fn gershgorin(b: u32) -> vec3<T> {
    let n = dim();
    let fd = field(F_D, b);
    let fe = field(F_E, b);
    var lo = aux[fd];
    var hi = aux[fd];
    var ok = true;
    var prev = T(0.0);
    for (var i = 0u; i < n; i++) {
        let e = select(T(0.0), abs(aux[fe + i]), i + 1u < n);
        let d = aux[fd + i];
        ok = ok && finite(d) && finite(e);
        lo = min(lo, d - prev - e);
        hi = max(hi, d + prev + e);
        prev = e;
    }
    return vec3<T>(lo, hi, select(T(0.0), T(1.0), ok));
}

fn emax2(b: u32) -> T {
    let n = dim();
    let fe = field(F_E, b);
    var m = T(0.0);
    for (var i = 0u; i + 1u < n; i++) {
        let e = aux[fe + i];
        m = max(m, e * e);
    }
    return m;
}

@compute @workgroup_size(WG)
fn bisect(@builtin(workgroup_id) wid: vec3<u32>, @builtin(num_workgroups) nwg: vec3<u32>,
          @builtin(local_invocation_index) lid: u32) {
    let id = linear_id(wid, nwg, lid, WG);
    if (id >= P.n) { return; }
    let n = dim();
    let b = id / n;
    let j = id % n;
    let g = gershgorin(b);
    if (g.z == T(0.0)) {
        wk[id] = nan_t();
        return;
    }
    // Gershgorin's interval a point: T = d I, every eigenvalue d exactly (zero, identity).
    if (g.x == g.y) {
        wk[id] = g.x;
        return;
    }
    let tnorm = max(abs(g.x), abs(g.y));
    let pivmin = safemin() * max(T(1.0), emax2(b));
    let widen = T(2.1) * eps() * tnorm * T(n) + T(4.2) * pivmin;
    var lo = g.x - widen;
    var hi = g.y + widen;
    // A dispatch after the first resumes the bracket the one before left in v and p's
    // fields (free after the reduction): at index id of both.
    if (vec0() != 0u) {
        lo = aux[field(F_V, b) + j];
        hi = aux[field(F_P, b) + j];
    }
    let atol = eps() * tnorm * T(0.25);
    for (var it = 0u; it < step_k(); it++) {
        if (!(hi - lo > max(atol, T(2.0) * eps() * max(abs(lo), abs(hi))))) { break; }
        let mid = T(0.5) * (lo + hi);
        if (mid <= lo || mid >= hi) { break; }
        if (sturm(b, mid, pivmin) > j) { hi = mid; } else { lo = mid; }
    }
    aux[field(F_V, b) + j] = lo;
    aux[field(F_P, b) + j] = hi;
    wk[id] = T(0.5) * (lo + hi);
}

// ---- eigh: eigenvectors of T and the back-transform ----
//
// - `stein`: an invocation per (matrix, eigenvalue j) of a chunk of P.n vectors from
//   vec0() on. 1 the eigenvalues [count][n]; 4 Z ([count][n][n], Z[b][i][j] component i of
//   the vector of eigenvalue j: neighbouring invocations touch neighbouring words).
//   solves() steps of inverse iteration (LAPACK's dstein): T - sigma I factored with
//   partial pivoting (dlagtf, its U in aux past the five fields, interleaved by invocation)
//   while the right-hand side is eliminated, then back-substitution with pivots below
//   tol = eps ||T||_1 raised to +-tol (dlagts, job -1). fresh(): start from pseudo-random
//   values, else from Z as it stands (orthonormalised by the host between rounds). sigma
//   is the vector's own eigenvalue, never perturbed (dstein's push of close shifts apart by
//   10 eps ||T||_1 chains through graded runs and carries shifts past the next eigenvalue:
//   see src/linalg/spectral/tridiag.rs); a cluster's vectors stay independent through
//   their random starts. The vector is left with unit 2-norm. NaN vectors for a T with a non-finite entry, the unit
//   vectors for T = 0.
// - `vblock`: an invocation per element of V_blk^T ([count][nb()][n]): row r the
//   Householder vector of step step_k() + r (1 at k + 1, zero above). 1 the work matrix.
// - `larft`: a workgroup per matrix: the nb() x nb() upper triangular factor of the block
//   reflector H_k0 .. H_k0+nb-1 = I - V Tf V^T (LAPACK's dlarft, forward, columnwise) from
//   1 = G = V^T V ([count][nb][nb]) and tau; 4 Tf.

fn vec0() -> u32 { return P.shape[0].z; }       // first vector of a stein chunk
fn nb() -> u32 { return P.shape[0].w; }         // reflectors of a vblock / larft block
fn solves() -> u32 { return P.shape[0].y & 15u; }
fn fresh() -> bool { return (P.shape[0].y & 16u) != 0u; }

// ||T||_1 of matrix b.
fn onenorm(b: u32) -> T {
    let n = dim();
    let fd = field(F_D, b);
    let fe = field(F_E, b);
    var r = T(0.0);
    var prev = T(0.0);
    for (var i = 0u; i < n; i++) {
        let e = select(T(0.0), abs(aux[fe + i]), i + 1u < n);
        r = max_nan(r, abs(aux[fd + i]) + prev + e);
        prev = e;
    }
    return r;
}

// A pseudo-random value in [-1, 1) from a counter (deterministic start vectors).
fn hash_unit(x: u32) -> T {
    var h = x * 747796405u + 2891336453u;
    h = ((h >> ((h >> 28u) + 4u)) ^ h) * 277803737u;
    h = (h >> 22u) ^ h;
    return T(f32(h >> 8u) * (1.0 / 8388608.0)) - T(1.0);
}

// Where stein keeps entry i of U's factor f (0 the diagonal, 1 and 2 the superdiagonals)
// for invocation `lane` of the chunk.
fn ufac(f: u32, i: u32, lane: u32) -> u32 {
    return AUX_FIELDS * count() * dim() + (f * dim() + i) * P.n + lane;
}

@compute @workgroup_size(WG)
fn stein(@builtin(workgroup_id) wid: vec3<u32>, @builtin(num_workgroups) nwg: vec3<u32>,
         @builtin(local_invocation_index) lid: u32) {
    let lane = linear_id(wid, nwg, lid, WG);
    if (lane >= P.n) { return; }
    let n = dim();
    let g = vec0() + lane;
    let b = g / n;
    let j = g % n;
    let zb = b * n * n + j;
    let lam = src[b * n + j];
    let onenrm = onenorm(b);
    let ok = finite(lam) && finite(onenrm);
    if (!ok || onenrm == T(0.0)) {
        let fill = select(nan_t(), T(0.0), ok);
        for (var i = 0u; i < n; i++) { wk[zb + i * n] = select(fill, T(1.0), ok && i == j); }
        return;
    }
    let sigma = lam;
    let tol = max(eps() * onenrm, safemin());
    if (fresh()) {
        for (var i = 0u; i < n; i++) { wk[zb + i * n] = hash_unit(i * 7919u + j * 104729u + 1u); }
    }
    let fd = field(F_D, b);
    let fe = field(F_E, b);
    for (var its = 0u; its < solves(); its++) {
        // Scaled as dstein: ||z||_1 = n eps ||T||_1 (the solution cannot overflow).
        var asum = T(0.0);
        for (var i = 0u; i < n; i++) { asum += abs(wk[zb + i * n]); }
        let scl = select(T(n) * eps() * onenrm / asum, T(1.0), !(asum > T(0.0)));
        // Factorisation with partial pivoting and forward elimination together.
        var ak = aux[fd] - sigma;
        var bk = select(T(0.0), aux[fe], n > 1u);
        var yk = wk[zb] * scl;
        for (var k = 0u; k + 1u < n; k++) {
            let ck = aux[fe + k];
            var an = aux[fd + k + 1u] - sigma;
            var bn = select(T(0.0), aux[fe + k + 1u], k + 2u < n);
            var yn = wk[zb + (k + 1u) * n] * scl;
            if (abs(ck) <= abs(ak)) {
                let m = select(ck / ak, T(0.0), ak == T(0.0));
                aux[ufac(0u, k, lane)] = ak;
                aux[ufac(1u, k, lane)] = bk;
                aux[ufac(2u, k, lane)] = T(0.0);
                an -= m * bk;
                wk[zb + k * n] = yk;
                yn -= m * yk;
            } else {
                let m = ak / ck;
                aux[ufac(0u, k, lane)] = ck;
                aux[ufac(1u, k, lane)] = an;
                aux[ufac(2u, k, lane)] = bn;
                an = bk - m * an;
                bn = -m * bn;
                wk[zb + k * n] = yn;
                yn = yk - m * yn;
            }
            ak = an;
            bk = bn;
            yk = yn;
        }
        aux[ufac(0u, n - 1u, lane)] = ak;
        wk[zb + (n - 1u) * n] = yk;
        // Back-substitution.
        var x1 = T(0.0);
        var x2 = T(0.0);
        for (var kk = 0u; kk < n; kk++) {
            let k = n - 1u - kk;
            var a = aux[ufac(0u, k, lane)];
            if (abs(a) < tol) { a = select(-tol, tol, a >= T(0.0)); }
            var t = wk[zb + k * n];
            if (k + 1u < n) { t -= aux[ufac(1u, k, lane)] * x1; }
            if (k + 2u < n) { t -= aux[ufac(2u, k, lane)] * x2; }
            let x = t / a;
            wk[zb + k * n] = x;
            x2 = x1;
            x1 = x;
        }
    }
    // Unit 2-norm (scaled by the largest magnitude first).
    var mx = T(0.0);
    for (var i = 0u; i < n; i++) { mx = max_nan(mx, abs(wk[zb + i * n])); }
    var ss = T(0.0);
    for (var i = 0u; i < n; i++) {
        let y = wk[zb + i * n] / mx;
        ss += y * y;
    }
    let sc = T(1.0) / (mx * sqrt_t(ss));
    for (var i = 0u; i < n; i++) { wk[zb + i * n] *= sc; }
}

@compute @workgroup_size(WG)
fn vblock(@builtin(workgroup_id) wid: vec3<u32>, @builtin(num_workgroups) nwg: vec3<u32>,
          @builtin(local_invocation_index) lid: u32) {
    let id = linear_id(wid, nwg, lid, WG);
    if (id >= P.n) { return; }
    let n = dim();
    let q = nb();
    let b = id / (q * n);
    let r = (id / n) % q;
    let c = id % n;
    let k = step_k() + r;
    var v = T(0.0);
    if (c == k + 1u) {
        v = T(1.0);
    } else if (c > k + 1u) {
        v = src[b * n * n + k * n + c];
    }
    wk[id] = v;
}

@compute @workgroup_size(WG)
fn larft(@builtin(workgroup_id) wid: vec3<u32>, @builtin(local_invocation_index) lid: u32) {
    let b = matrix_of(wid);
    if (b >= count()) { return; }
    let q = nb();
    let base = b * q * q;
    let ft = field(F_TAU, b) + step_k();
    for (var e = lid; e < q * q; e += WG) { wk[base + e] = T(0.0); }
    storageBarrier();
    for (var i = 0u; i < q; i++) {
        let tau = aux[ft + i];
        // Tf[r][i] = -tau Tf[r][r..i] . G[r..i][i], rows r < i (reads columns < i).
        for (var r = lid; r < i; r += WG) {
            var acc = T(0.0);
            for (var s = r; s < i; s++) { acc += wk[base + r * q + s] * src[base + s * q + i]; }
            wk[base + r * q + i] = -tau * acc;
        }
        if (lid == 0u) { wk[base + i * q + i] = tau; }
        storageBarrier();
    }
}

// `larft_wg`: `larft` with G's strict upper triangle and Tf in workgroup memory, for nb() <=
// 64 (64 x 64 values: 32 KiB in f64, lavapipe's whole workgroup memory): the same
// recurrence, its dependent steps reading workgroup memory rather than global memory
// after a storage barrier. Tf[r][s] (s >= r) at lt[r * q + s], G[s][i] (s < i) transposed
// to lt[i * q + s]: each step i reads columns below i of Tf and row i of G's copy, and
// writes column i of Tf, so nothing read is written in the same step.
const LT_MAX: u32 = 4096u;
var<workgroup> lt: array<T, LT_MAX>;

@compute @workgroup_size(WG)
fn larft_wg(@builtin(workgroup_id) wid: vec3<u32>, @builtin(local_invocation_index) lid: u32) {
    let b = matrix_of(wid);
    if (b >= count()) { return; }
    let q = nb();
    let base = b * q * q;
    let ft = field(F_TAU, b) + step_k();
    for (var e = lid; e < q * q; e += WG) {
        let r = e / q;
        let c = e % q;
        lt[e] = select(T(0.0), src[base + c * q + r], r > c);
    }
    workgroupBarrier();
    for (var i = 0u; i < q; i++) {
        let tau = aux[ft + i];
        if (lid < i) {
            var acc = T(0.0);
            for (var s = lid; s < i; s++) { acc += lt[lid * q + s] * lt[i * q + s]; }
            lt[lid * q + i] = -tau * acc;
        }
        if (lid == i) { lt[i * q + i] = tau; }
        workgroupBarrier();
    }
    for (var e = lid; e < q * q; e += WG) {
        wk[base + e] = select(T(0.0), lt[e], e / q <= e % q);
    }
}
