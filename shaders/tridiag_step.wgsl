// The tridiagonal family's fused reduction step (appended to shaders/tridiag.wgsl; host:
// src/linalg/spectral/tridiag.rs `reduce`). Dispatch k does what `rank2` of step k - 1 and
// `house` of step k do in two: each workgroup
// 1. forms w = p - (tau / 2)(p^T v) v of step k - 1 (its v and p in the fields of k - 1's
//    parity, indexed from row k), and row k of the trailing matrix with step k - 1's
//    rank-2 update applied (that row is read by every workgroup, updated by none);
// 2. forms H_k from that row (dlarfg, as `reflector`), v_k in registers;
// 3. updates its own `rows()` rows i of the trailing matrix (A[i] -= v_i w + w_i v), writes
//    them once, and forms p_k[i] = tau_k A[i] . v_k from the values it holds.
// So the trailing matrix is read once and written once per step (`house` + `rank2` read it
// twice and write it once) in one dispatch rather than two. Workgroup 0 writes d[k], e[k],
// tau[k] and v_k (in k's parity), and step k - 1's v into row k - 1 (no workgroup of
// dispatch k reads that row; row k is read by all, so v_k goes there one dispatch later; the
// last step's v is its implicit 1, which `vblock` never reads).
//
// An invocation holds J columns (u = lid + j WG, J WG >= n - 1) of v_k, v_{k-1} and
// w_{k-1}: the loops over them are unrolled by the host (`// unroll`), so the arrays stay
// in registers. `rows()` <= RMAX rows a workgroup, their dot products summed together.

fn rows() -> u32 { return nb(); }
// Most columns an invocation holds (J <= JMAX).
const JMAX: u32 = 16u;

var<workgroup> rsum: array<T, 2048>;   // RMAX * WGMAX
var<workgroup> bcast: T;

fn field_v(parity: u32, b: u32) -> u32 { return field(select(F_V, F_V1, parity == 1u), b); }
fn field_p(parity: u32, b: u32) -> u32 { return field(select(F_P, F_P1, parity == 1u), b); }

@compute @workgroup_size(WG)
fn step(@builtin(workgroup_id) wid: vec3<u32>, @builtin(local_invocation_index) lid: u32) {
    let b = matrix_of(wid);
    if (b >= count()) { return; }
    let n = dim();
    let k = step_k();
    let m = n - k - 1u;
    let base = b * n * n;
    let cur = k & 1u;
    let pend = k > 0u;
    let fv = field_v(cur ^ 1u, b);
    let fp = field_p(cur ^ 1u, b);
    // 1. Step k - 1's w: w = p + c v, c = -(tau / 2) p^T v over its m + 1 rows.
    var c = T(0.0);
    if (pend) {
        var acc = T(0.0);
        for (var t = lid; t <= m; t += WG) { acc += aux[fp + t] * aux[fv + t]; }
        c = T(-0.5) * aux[field(F_TAU, b) + k - 1u] * wsum(lid, acc);
    }
    var v0 = T(0.0);
    var w0 = T(0.0);
    if (pend) {
        v0 = aux[fv];
        w0 = aux[fp] + c * v0;
    }
    let rowk = base + k * n + k;
    var vs: array<T, JMAX>;
    var ws: array<T, JMAX>;
    var xs: array<T, JMAX>;
    var mx = T(0.0);
    // unroll
    for (var j = 0u; j < J; j++) {
        let u = lid + j * WG;
        var pv = T(0.0);
        var pw = T(0.0);
        var xv = T(0.0);
        if (u < m) {
            if (pend) {
                pv = aux[fv + 1u + u];
                pw = aux[fp + 1u + u] + c * pv;
            }
            xv = wk[rowk + 1u + u] - (v0 * pw + w0 * pv);
            if (u >= 1u) { mx = max_nan(mx, abs(xv)); }
        }
        vs[j] = pv;
        ws[j] = pw;
        xs[j] = xv;
    }
    if (lid == 0u) { bcast = xs[0]; }
    // 2. H_k from x = row k past the diagonal (alpha = x[0]).
    mx = wmax(lid, mx);
    var ssq = T(0.0);
    if (mx != T(0.0)) {
        // unroll
        for (var j = 0u; j < J; j++) {
            let u = lid + j * WG;
            if (u >= 1u && u < m) {
                let y = xs[j] / mx;
                ssq += y * y;
            }
        }
    }
    let xnorm = mx * sqrt_t(wsum(lid, ssq));
    let h = reflect_from(bcast, xnorm);
    // unroll
    for (var j = 0u; j < J; j++) {
        let u = lid + j * WG;
        xs[j] = select(xs[j] * h.y, T(1.0), u == 0u);
    }
    if (wid.x == 0u) {
        // unroll
        for (var j = 0u; j < J; j++) {
            let u = lid + j * WG;
            if (u < m) { aux[field_v(cur, b) + u] = xs[j]; }
        }
        if (pend) {
            for (var t = lid; t <= m; t += WG) { wk[rowk - n + t] = aux[fv + t]; }
        }
        if (lid == 0u) {
            aux[field(F_E, b) + k] = h.z;
            aux[field(F_TAU, b) + k] = h.x;
            aux[field(F_D, b) + k] = wk[rowk] - (v0 * w0 + w0 * v0);
        }
    }
    // 3. The workgroup's rows: the pending update, then p_k.
    let r0 = wid.x * rows();
    // unroll
    for (var r = 0u; r < RMAX; r++) {
        let i = r0 + r;
        var acc = T(0.0);
        if (r < rows() && i < m) {
            let rowi = base + (k + 1u + i) * n + k + 1u;
            var vi = T(0.0);
            var wi = T(0.0);
            if (pend) {
                vi = aux[fv + 1u + i];
                wi = aux[fp + 1u + i] + c * vi;
            }
            // unroll
            for (var j = 0u; j < J; j++) {
                let u = lid + j * WG;
                if (u < m) {
                    var y = wk[rowi + u];
                    if (pend) {
                        y -= vi * ws[j] + wi * vs[j];
                        wk[rowi + u] = y;
                    }
                    acc += y * xs[j];
                    if (m == 1u) {
                        aux[field(F_D, b) + k + 1u] = y;
                        aux[field(F_E, b) + k + 1u] = T(0.0);
                    }
                }
            }
        }
        rsum[r * WG + lid] = acc;
    }
    workgroupBarrier();
    for (var half = WG / 2u; half > 0u; half = half / 2u) {
        if (lid < half) {
            // unroll
            for (var r = 0u; r < RMAX; r++) {
                rsum[r * WG + lid] += rsum[r * WG + lid + half];
            }
        }
        workgroupBarrier();
    }
    if (lid < rows() && r0 + lid < m) {
        aux[field_p(cur, b) + r0 + lid] = h.x * rsum[lid * WG];
    }
}
