// Householder QR (src/linalg/qr.rs): the panel factorization and the compact-WY T factor
// of each panel. The trailing updates and the forming of Q are the library's products.
//
// Bindings: 1 g (qr_t: V^T V per matrix, contiguous [count, JB, JB]; qr_panel: unused, a
// one-element placeholder); 2 hv (read-write: per matrix qr_hv_stride() elements, the
// panel's Householder vectors V, (M - j0) rows x jb, unit lower trapezoidal, row-major,
// then its jb scalars tau); 4 out (qr_panel: the matrices being factored, contiguous
// [count, M, N], read and written; qr_t: T per matrix, contiguous [count, jb, jb]).
// Dispatch: one workgroup of WG = 256 invocations per matrix (a 1-D grid of count
// workgroups folded into 2-D). Stacks of small matrices (M x N <= SMALL elements, N <= 32:
// one panel) take qr_panel's small variant (src/linalg/qr_kernel.rs replaces ld, st,
// stage_in and stage_out), which works on each matrix in workgroup memory.
//
// qr_panel factors columns j0 .. j0 + jb of rows j0 .. M of each matrix as LAPACK's
// dgeqr2: for each column, the reflector H = I - tau v v^T (v[0] = 1) that maps the column
// below the diagonal to beta e_1 (beta = -sign(alpha) ||x||; tau = 0 where the column
// below the diagonal is already zero), written over the column (beta on the diagonal, v
// below it) and into hv, then applied to the panel's later columns. The invocations are 32
// columns x 8 row groups: per column two passes over the panel below the diagonal, the
// products v^T A[:, c] (v scaled as it is read) and the update, which also takes the next
// column's norm (scaled as LAPACK's dnrm2: no square underflows or overflows).
// qr_t builds the upper triangular T of the panel (H_0 H_1 ... = I - V T V^T, LAPACK's
// dlarft, forward and columnwise) from V^T V and tau: T[j, j] = tau_j,
// T[0:j, j] = -tau_j T[0:j, 0:j] (V^T V)[0:j, j].

#import params

alias S = f32;  // element type: f32 or f64
alias SC = f32; // carrier of scalar arguments (unused here; params.wgsl needs it)
override WG: u32 = 256u;

fn qr_m() -> u32 { return P.aux.x; }         // rows of each matrix
fn qr_n() -> u32 { return P.aux.y; }         // columns of each matrix
fn qr_j0() -> u32 { return P.offs.x; }       // the panel's first column (and row)
fn qr_jb() -> u32 { return P.offs.y; }       // the panel's width, at most 32
fn qr_hv_stride() -> u32 { return P.offs.z; } // hv elements per matrix: (M - j0) * jb + jb
fn tiny() -> S { return 1.17549435e-38f; }    // the smallest normal number of S

@group(0) @binding(1) var<storage, read> g: array<S>;
@group(0) @binding(2) var<storage, read_write> hv: array<S>;
@group(0) @binding(4) var<storage, read_write> out: array<S>;

var<workgroup> red: array<S, WG>;
var<workgroup> nsc: array<S, 32>;
var<workgroup> nsq: array<S, 32>;
var<workgroup> wsh: array<S, 32>;
var<workgroup> hh: array<S, 2>;
var<workgroup> tt: array<S, 1024>;
// qr_panel's small variant: the whole matrix (M x N <= SMALL) in workgroup memory.
const SMALL: u32 = 2048u;
var<workgroup> sm: array<S, SMALL>;

// The matrix's element e of the matrix at base, read and written: in `out` (the variant for
// panels of any size) or in `sm` (the small variant, which copies it in first and out last).
fn ld(base: u32, e: u32) -> S { return out[base + e]; }
fn st(base: u32, e: u32, v: S) { out[base + e] = v; }
fn stage_in(base: u32, l: u32) { }
fn stage_out(base: u32, l: u32) { }

// Adds |x| to a scaled sum of squares (LAPACK's dnrm2): sc the largest magnitude so far,
// sq the sum of the squares over sc^2. A NaN is carried in sq.
fn ssq_add(sc: ptr<function, S>, sq: ptr<function, S>, x: S) {
    let a = abs(x);
    if (a != a) {
        *sq = a;
    } else if (a > *sc) {
        *sq = S(1) + *sq * (*sc / a) * (*sc / a);
        *sc = a;
    } else if (a > S(0)) {
        *sq += (a / *sc) * (a / *sc);
    }
}

@compute @workgroup_size(WG)
fn qr_panel(@builtin(workgroup_id) wid: vec3<u32>, @builtin(num_workgroups) nwg: vec3<u32>,
            @builtin(local_invocation_index) l: u32) {
    let z = wid.y * nwg.x + wid.x;
    if (z >= P.n) { return; }
    let m = qr_m();
    let n = qr_n();
    let j0 = qr_j0();
    let jb = qr_jb();
    let base = z * m * n;
    let hb = z * qr_hv_stride();
    let rows = m - j0;
    let c = l % 32u;      // the panel column of this invocation's products and updates
    let r = l / 32u;      // its row group: rows r, r + rg, ... from the diagonal
    let rg = WG / 32u;
    stage_in(base, l);
    workgroupBarrier();
    // The norm of the first column below the diagonal, in rg parts.
    if (c == 0u) {
        var sc = S(0);
        var sq = S(1);
        for (var i = j0 + 1u + r; i < m; i += rg) { ssq_add(&sc, &sq, ld(base, i * n + j0)); }
        nsc[r] = sc;
        nsq[r] = sq;
    }
    workgroupBarrier();
    for (var j = 0u; j < jb; j++) {
        let col = j0 + j;
        let d = j0 + j;   // the diagonal row
        if (l == 0u) {
            // The column's norm from its parts, then the reflector.
            var amax = S(0);
            for (var q = 0u; q < rg; q++) { amax = max(amax, nsc[q]); }
            var ssq = S(0);
            for (var q = 0u; q < rg; q++) {
                if (nsc[q] > S(0)) {
                    ssq += nsq[q] * (nsc[q] / amax) * (nsc[q] / amax);
                } else if (nsq[q] != nsq[q]) {
                    ssq = nsq[q];
                }
            }
            let alpha = ld(base, d * n + col);
            var tau = S(0);
            var scale = S(0);
            var beta = alpha;
            // A column below the diagonal of subnormal (or zero) magnitude is taken as
            // zero: H = I (its entries are below the smallest normal number). NaN goes on.
            if (!(amax < tiny()) || ssq != ssq) {
                let xnorm = amax * sqrt(ssq);
                let hi = max(abs(alpha), xnorm);
                let lo = min(abs(alpha), xnorm);
                beta = -select(S(-1), S(1), alpha >= S(0)) * hi * sqrt(S(1) + (lo / hi) * (lo / hi));
                tau = (beta - alpha) / beta;
                scale = S(1) / (alpha - beta);
            }
            hh[0] = tau;
            hh[1] = scale;
            st(base, d * n + col, beta);
            hv[hb + rows * jb + j] = tau;
        }
        workgroupBarrier();
        let tau = hh[0];
        let scale = hh[1];
        // V's column j (the invocations of column j); the partial products
        // v^T A[d.., j0 + c] of the later columns (v scaled on the fly).
        if (c == j) {
            for (var i = j0 + r; i < m; i += rg) {
                var v = select(S(0), S(1), i == d);
                if (i > d) { v = ld(base, i * n + col) * scale; }
                hv[hb + (i - j0) * jb + j] = v;
            }
        }
        let live = c > j && c < jb;
        var acc = S(0);
        if (live) {
            for (var i = d + r; i < m; i += rg) {
                let v = select(ld(base, i * n + col) * scale, S(1), i == d);
                acc += v * ld(base, i * n + j0 + c);
            }
        }
        red[l] = acc;
        storageBarrier();
        workgroupBarrier();
        if (l < 32u) {
            var t = S(0);
            for (var q = 0u; q < rg; q++) { t += red[q * 32u + l]; }
            wsh[l] = t * tau;
        }
        workgroupBarrier();
        // A[d.., j0 + c] -= v w_c, v read back from V; column j + 1's norm on the way.
        if (live) {
            let wc = wsh[c];
            var sc = S(0);
            var sq = S(1);
            for (var i = d + r; i < m; i += rg) {
                let v = select(hv[hb + (i - j0) * jb + j], S(1), i == d);
                let x = ld(base, i * n + j0 + c) - v * wc;
                st(base, i * n + j0 + c, x);
                if (c == j + 1u && i > d + 1u) { ssq_add(&sc, &sq, x); }
            }
            if (c == j + 1u) {
                nsc[r] = sc;
                nsq[r] = sq;
            }
        }
        if (c == j) {
            for (var i = d + 1u + r; i < m; i += rg) {
                st(base, i * n + col, hv[hb + (i - j0) * jb + j]);
            }
        }
        storageBarrier();
        workgroupBarrier();
    }
    stage_out(base, l);
}

@compute @workgroup_size(WG)
fn qr_t(@builtin(workgroup_id) wid: vec3<u32>, @builtin(num_workgroups) nwg: vec3<u32>,
        @builtin(local_invocation_index) l: u32) {
    let z = wid.y * nwg.x + wid.x;
    if (z >= P.n) { return; }
    let jb = qr_jb();
    let rows = qr_m() - qr_j0();
    let gz = z * jb * jb;
    let taus = z * qr_hv_stride() + rows * jb;
    for (var e = l; e < jb * jb; e += WG) { tt[e] = S(0); }
    workgroupBarrier();
    for (var j = 0u; j < jb; j++) {
        let tau = hv[taus + j];
        if (l < j) {
            var s = S(0);
            for (var q = l; q < j; q++) { s += tt[l * jb + q] * g[gz + q * jb + j]; }
            tt[l * jb + j] = -tau * s;
        }
        if (l == j) { tt[j * jb + j] = tau; }
        workgroupBarrier();
    }
    for (var e = l; e < jb * jb; e += WG) { out[gz + e] = tt[e]; }
}
