// Spectral family: eigh and svd of stacks of matrices by one-sided (Hestenes) Jacobi.
// Host: src/linalg/spectral/jacobi.rs.
//
// Each matrix of the stack is held as W, q rows of p elements ([count][q][p], row k the
// k-th column being orthogonalised), with V^T beside it (`vt`, [count][q][q], identity at
// the start; rows rotated as W's). A rotation of the pair (i, j) makes rows i and j of W
// orthogonal; sweeps of q' - 1 rounds (q' = q rounded up to even), each a perfect matching
// of the rows (the circle method: pairs (r + k, r - k) mod q' - 1 and (r, q' - 1)), repeat
// until no pair needs a rotation. Then W = U S (rows of norm S) and V^T holds the rotations.
// eigh runs the same on B = A + sigma I, sigma = ||A||_F (B positive semi-definite: its
// singular vectors are A's eigenvectors, its singular values A's eigenvalues plus sigma).
//
// The work buffer `wk` holds W, then S (count * q), then the permutation (count * q, as T),
// then 3 control values per matrix: rotated in this sweep, converged, sigma; then the
// status (one value: the first matrix not converged, or -1).
//
// Bindings: 0 params; 1 `src` (read); 2 `vt` (read-write); 4 `wk` (read-write).
// Entry points:
// - `prep_svd`: an invocation per element of W. 1 the contiguous input ([count][m][n]);
//   4 W: W[k][r] = A[r][k] (trans(): tall input, columns of A) or A[k][r].
// - `prep_eigh`: a workgroup per matrix. 1 the contiguous input; 4 W = B (the triangle
//   named by upper() mirrored, sigma on the diagonal), sigma to the control values.
// - `init`: an invocation per element of V^T and per control value: V^T = I, controls 0.
// - `rotate_pairs`: a workgroup per (pair, matrix): the pair's dot products (a tree in workgroup
//   memory), its rotation where |gamma| > tol sqrt(alpha beta), applied to W and V^T
//   (has_v()); returns at once where the matrix converged.
// - `block_round`: a workgroup per (pair of blocks, matrix): blocks of blk() rows (q / blk()
//   of them, even), paired by the circle method; the workgroup runs a whole sweep over the
//   2 blk() rows of its pair (2 blk() - 1 sub-rounds, a group of WG / blk() invocations per
//   pair, storage barriers between sub-rounds). A sweep of block rounds covers every pair
//   of rows: q / blk() - 1 dispatches a sweep rather than q - 1.
// - `sweep_end`: an invocation per matrix: converged where no rotation in the sweep.
// - `small`: a workgroup per matrix, every sweep in workgroup memory (q <= 32,
//   q (p + q) <= SMALL): an invocation per pair (WG >= 16); then S as `norms`.
// - `norms`: a workgroup per (row, matrix): S[k] = ||W[k]||.
// - `rank`: an invocation per (matrix, k): perm[rank of S[k]] = k, descending (or
//   ascending with ascending()), NaN last, ties by k.
// - `check`: one workgroup: the status (the first matrix not converged, or -1).
// - `gather_w`: an invocation per output element ([count][out_rows][out_cols]): row i of
//   the output is W[perm[i]] / S[perm[i]] (zero where S is too small: `complete` fills it;
//   zero for i >= q). 1 the work buffer; 4 the output.
// - `gather_v`: as gather_w from V^T, unscaled; trans(): out[i][j] = V^T[perm[j]][i].
// - `values`: an invocation per (matrix, k): out[k] = S[perm[k]] - sigma (eigh) or S.
// - `complete`: a workgroup per matrix. 4 the output of gather_w; its rows with S too small
//   (a suffix, by the order) completed to an orthonormal set: e_j minus its projections,
//   the first j whose remainder is large enough, orthogonalised twice, normalised.

#import params

alias T = f32;
alias S = f32;
alias SC = f32;

override WG: u32 = 64u;
const WGMAX: u32 = 256u;
// Elements of W and V^T that `small` holds in workgroup memory.
const SMALL: u32 = 2048u;

@group(0) @binding(1) var<storage, read> src: array<T>;
@group(0) @binding(2) var<storage, read_write> vt: array<T>;
@group(0) @binding(4) var<storage, read_write> wk: array<T>;

// The family's parameters, mirroring `JParams` in src/linalg/spectral/jacobi.rs.
fn count() -> u32 { return P.aux.x; }           // matrices
fn flags() -> u32 { return P.aux.y; }           // bit 0 has_v, 1 trans/upper, 2 ascending
fn rows() -> u32 { return P.shape[0].x; }       // p: elements of a row of W
fn cols() -> u32 { return P.shape[0].y; }       // q: rows of W
fn round_no() -> u32 { return P.shape[0].z; }   // the round of `round`
fn s_off() -> u32 { return P.shape[0].w; }      // where S starts in the work buffer
fn ctl_off() -> u32 { return P.shape[1].x; }    // where the control values start
fn perm_off() -> u32 { return P.shape[1].y; }   // where the permutation starts
fn out_rows() -> u32 { return P.shape[1].z; }   // rows of a gathered output
fn out_cols() -> u32 { return P.shape[1].w; }   // columns of a gathered output
fn sweeps() -> u32 { return P.offs.x; }         // sweeps of `small`
fn blk() -> u32 { return P.offs.y; }            // rows of a block of `block_round`
fn tol() -> T { return T(P.sc.x); }             // rotation threshold (a cosine)
fn tiny() -> T { return T(P.sc.y); }            // smallest S normalised
fn has_v() -> bool { return (flags() & 1u) != 0u; }
fn trans() -> bool { return (flags() & 2u) != 0u; }
fn ascending() -> bool { return (flags() & 4u) != 0u; }

// The matrix of a workgroup in a grid of (x, count folded into y and z).
fn matrix_of(wid: vec3<u32>) -> u32 { return wid.z * 65535u + wid.y; }

// NaN, as the elementwise family tests it in f64: `!=` may compile to an ordered comparison,
// false for NaN.
fn is_nan_t(x: T) -> bool { return !(x == x); }

// Square root and quotient within an ulp or two: the built-ins refined by a Newton step
// (Vulkan promises f64 division and square roots no better than f32's).
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

// Cosine and sine of the rotation making (alpha, gamma; gamma, beta) diagonal, or (1, 0)
// where |gamma| <= tol sqrt(alpha beta) (and for NaN).
fn rotation(alpha: T, beta: T, gamma: T) -> vec2<T> {
    if (!(abs(gamma) > tol() * sqrt_t(alpha) * sqrt_t(beta))) { return vec2<T>(T(1.0), T(0.0)); }
    let zeta = div_t(beta - alpha, T(2.0) * gamma);
    let az = abs(zeta);
    // 1 / (|zeta| + sqrt(1 + zeta^2)), without squaring a huge zeta.
    var t: T;
    if (az > T(1.0)) {
        let r = div_t(T(1.0), az);
        t = div_t(r, T(1.0) + sqrt_t(T(1.0) + r * r));
    } else {
        t = div_t(T(1.0), az + sqrt_t(T(1.0) + az * az));
    }
    t = select(t, -t, zeta < T(0.0));
    let c = div_t(T(1.0), sqrt_t(T(1.0) + t * t));
    return vec2<T>(c, c * t);
}

@compute @workgroup_size(WG)
fn prep_svd(@builtin(workgroup_id) wid: vec3<u32>, @builtin(num_workgroups) nwg: vec3<u32>,
            @builtin(local_invocation_index) lid: u32) {
    let i = linear_id(wid, nwg, lid, WG);
    if (i >= P.n) { return; }
    let p = rows();
    let q = cols();
    let b = i / (p * q);
    let e = i % (p * q);
    let k = e / p;
    let r = e % p;
    if (trans()) {
        wk[i] = src[b * p * q + r * q + k];
    } else {
        wk[i] = src[i];
    }
}

var<workgroup> red: array<T, 768>; // 3 * WGMAX

// The sum over the workgroup of each component of v (every invocation gets it).
fn reduce3(lid: u32, v: vec3<T>) -> vec3<T> {
    red[lid] = v.x;
    red[WGMAX + lid] = v.y;
    red[2u * WGMAX + lid] = v.z;
    workgroupBarrier();
    for (var h = WG / 2u; h > 0u; h = h / 2u) {
        if (lid < h) {
            red[lid] += red[lid + h];
            red[WGMAX + lid] += red[WGMAX + lid + h];
            red[2u * WGMAX + lid] += red[2u * WGMAX + lid + h];
        }
        workgroupBarrier();
    }
    let s = vec3<T>(red[0], red[WGMAX], red[2u * WGMAX]);
    workgroupBarrier();
    return s;
}

// B[r][k] of eigh: the named triangle of A mirrored.
fn sym(base: u32, n: u32, r: u32, k: u32) -> T {
    let lo = min(r, k);
    let hi = max(r, k);
    if (trans()) { return src[base + lo * n + hi]; }
    return src[base + hi * n + lo];
}

@compute @workgroup_size(WG)
fn prep_eigh(@builtin(workgroup_id) wid: vec3<u32>, @builtin(local_invocation_index) lid: u32) {
    let b = matrix_of(wid);
    if (b >= count()) { return; }
    let n = cols();
    let base = b * n * n;
    var acc = T(0.0);
    for (var e = lid; e < n * n; e += WG) {
        let x = sym(base, n, e / n, e % n);
        acc += x * x;
    }
    let sigma = sqrt_t(reduce3(lid, vec3<T>(acc, T(0.0), T(0.0))).x);
    for (var e = lid; e < n * n; e += WG) {
        let r = e / n;
        let k = e % n;
        wk[base + e] = sym(base, n, r, k) + select(T(0.0), sigma, r == k);
    }
    if (lid == 0u) { wk[ctl_off() + 3u * b + 2u] = sigma; }
}

@compute @workgroup_size(WG)
fn init(@builtin(workgroup_id) wid: vec3<u32>, @builtin(num_workgroups) nwg: vec3<u32>,
        @builtin(local_invocation_index) lid: u32) {
    let i = linear_id(wid, nwg, lid, WG);
    let q = cols();
    let nv = select(0u, count() * q * q, has_v());
    if (i < nv) {
        let e = i % (q * q);
        vt[i] = select(T(0.0), T(1.0), e / q == e % q);
    }
    // Controls 0 and 1; sigma (2) stays: prep_eigh writes it first, prep_svd never.
    if (i < 2u * count()) {
        wk[ctl_off() + 3u * (i / 2u) + (i % 2u)] = T(0.0);
    }
}

// The pair of round r, pair k, among q2 (even) rows.
fn pair(r: u32, k: u32, q2: u32) -> vec2<u32> {
    let m = q2 - 1u;
    if (k == 0u) { return vec2<u32>(r, m); }
    return vec2<u32>((r + k) % m, (r + m - k) % m);
}

var<workgroup> done: u32;

@compute @workgroup_size(WG)
fn rotate_pairs(@builtin(workgroup_id) wid: vec3<u32>, @builtin(local_invocation_index) lid: u32) {
    let b = matrix_of(wid);
    let q = cols();
    let pr = pair(round_no(), wid.x, q + (q & 1u));
    if (lid == 0u) {
        done = select(0u, 1u, b >= count() || max(pr.x, pr.y) >= q);
        if (done == 0u && wk[ctl_off() + 3u * b + 1u] != T(0.0)) { done = 1u; }
    }
    if (workgroupUniformLoad(&done) != 0u) { return; }
    let p = rows();
    let wi = (b * q + pr.x) * p;
    let wj = (b * q + pr.y) * p;
    var acc = vec3<T>(T(0.0));
    for (var r = lid; r < p; r += WG) {
        let x = wk[wi + r];
        let y = wk[wj + r];
        acc += vec3<T>(x * x, y * y, x * y);
    }
    let g = reduce3(lid, acc);
    let cs = rotation(g.x, g.y, g.z);
    if (cs.y == T(0.0)) { return; }
    if (lid == 0u) { wk[ctl_off() + 3u * b] = T(1.0); }
    for (var r = lid; r < p; r += WG) {
        let x = wk[wi + r];
        let y = wk[wj + r];
        wk[wi + r] = cs.x * x - cs.y * y;
        wk[wj + r] = cs.y * x + cs.x * y;
    }
    if (has_v()) {
        let vi = (b * q + pr.x) * q;
        let vj = (b * q + pr.y) * q;
        for (var r = lid; r < q; r += WG) {
            let x = vt[vi + r];
            let y = vt[vj + r];
            vt[vi + r] = cs.x * x - cs.y * y;
            vt[vj + r] = cs.y * x + cs.x * y;
        }
    }
}

// Rows of W a pair group of `block_round` handles: g(l) for local index l of 2 blk().
fn block_row(bi: u32, bj: u32, l: u32) -> u32 {
    let b = blk();
    return select(bj * b + (l - b), bi * b + l, l < b);
}

@compute @workgroup_size(WG)
fn block_round(@builtin(workgroup_id) wid: vec3<u32>, @builtin(local_invocation_index) lid: u32) {
    let b = matrix_of(wid);
    let q = cols();
    let nb = q / blk();
    let bp = pair(round_no(), wid.x, nb);
    if (lid == 0u) {
        done = select(0u, 1u, b >= count());
        if (done == 0u && wk[ctl_off() + 3u * b + 1u] != T(0.0)) { done = 1u; }
    }
    if (workgroupUniformLoad(&done) != 0u) { return; }
    let p = rows();
    let g = WG / blk();        // invocations per pair (a power of two)
    let t = lid / g;           // this invocation's pair of the sub-round
    let lane = lid % g;
    let hv = has_v();
    for (var sub = 0u; sub + 1u < 2u * blk(); sub++) {
        let lp = pair(sub, t, 2u * blk());
        let ri = block_row(bp.x, bp.y, lp.x);
        let rj = block_row(bp.x, bp.y, lp.y);
        let wi = (b * q + ri) * p;
        let wj = (b * q + rj) * p;
        var acc = vec3<T>(T(0.0));
        for (var r = lane; r < p; r += g) {
            let x = wk[wi + r];
            let y = wk[wj + r];
            acc += vec3<T>(x * x, y * y, x * y);
        }
        // The sums over each group of g invocations.
        red[lid] = acc.x;
        red[WGMAX + lid] = acc.y;
        red[2u * WGMAX + lid] = acc.z;
        workgroupBarrier();
        for (var h = g / 2u; h > 0u; h = h / 2u) {
            if (lane < h) {
                red[lid] += red[lid + h];
                red[WGMAX + lid] += red[WGMAX + lid + h];
                red[2u * WGMAX + lid] += red[2u * WGMAX + lid + h];
            }
            workgroupBarrier();
        }
        let head = t * g;
        let cs = rotation(red[head], red[WGMAX + head], red[2u * WGMAX + head]);
        workgroupBarrier();
        if (cs.y != T(0.0)) {
            if (lane == 0u) { wk[ctl_off() + 3u * b] = T(1.0); }
            for (var r = lane; r < p; r += g) {
                let x = wk[wi + r];
                let y = wk[wj + r];
                wk[wi + r] = cs.x * x - cs.y * y;
                wk[wj + r] = cs.y * x + cs.x * y;
            }
            if (hv) {
                let vi = (b * q + ri) * q;
                let vj = (b * q + rj) * q;
                for (var r = lane; r < q; r += g) {
                    let x = vt[vi + r];
                    let y = vt[vj + r];
                    vt[vi + r] = cs.x * x - cs.y * y;
                    vt[vj + r] = cs.y * x + cs.x * y;
                }
            }
        }
        storageBarrier();
        workgroupBarrier();
    }
}

@compute @workgroup_size(WG)
fn sweep_end(@builtin(workgroup_id) wid: vec3<u32>, @builtin(num_workgroups) nwg: vec3<u32>,
             @builtin(local_invocation_index) lid: u32) {
    let b = linear_id(wid, nwg, lid, WG);
    if (b >= count()) { return; }
    let c = ctl_off() + 3u * b;
    if (wk[c] == T(0.0)) { wk[c + 1u] = T(1.0); }
    wk[c] = T(0.0);
}

var<workgroup> sw: array<T, SMALL>;
var<workgroup> rotated: u32;

@compute @workgroup_size(WG)
fn small(@builtin(workgroup_id) wid: vec3<u32>, @builtin(local_invocation_index) lid: u32) {
    let b = matrix_of(wid);
    if (b >= count()) { return; }
    let p = rows();
    let q = cols();
    let nw = q * p;
    let hv = has_v();
    let nv = select(0u, q * q, hv);
    for (var e = lid; e < nw; e += WG) { sw[e] = wk[b * nw + e]; }
    for (var e = lid; e < nv; e += WG) { sw[nw + e] = vt[b * nv + e]; }
    let q2 = q + (q & 1u);
    var converged = false;
    for (var s = 0u; s < sweeps(); s++) {
        if (lid == 0u) { rotated = 0u; }
        workgroupBarrier();
        for (var r = 0u; r + 1u < q2; r++) {
            let pr = pair(r, lid, q2);
            if (lid < q2 / 2u && max(pr.x, pr.y) < q) {
                let wi = pr.x * p;
                let wj = pr.y * p;
                var g = vec3<T>(T(0.0));
                for (var e = 0u; e < p; e++) {
                    let x = sw[wi + e];
                    let y = sw[wj + e];
                    g += vec3<T>(x * x, y * y, x * y);
                }
                let cs = rotation(g.x, g.y, g.z);
                if (cs.y != T(0.0)) {
                    rotated = 1u;
                    for (var e = 0u; e < p; e++) {
                        let x = sw[wi + e];
                        let y = sw[wj + e];
                        sw[wi + e] = cs.x * x - cs.y * y;
                        sw[wj + e] = cs.y * x + cs.x * y;
                    }
                    if (hv) {
                        let vi = nw + pr.x * q;
                        let vj = nw + pr.y * q;
                        for (var e = 0u; e < q; e++) {
                            let x = sw[vi + e];
                            let y = sw[vj + e];
                            sw[vi + e] = cs.x * x - cs.y * y;
                            sw[vj + e] = cs.y * x + cs.x * y;
                        }
                    }
                }
            }
            workgroupBarrier();
        }
        if (workgroupUniformLoad(&rotated) == 0u) {
            converged = true;
            break;
        }
    }
    for (var e = lid; e < nw; e += WG) { wk[b * nw + e] = sw[e]; }
    for (var e = lid; e < nv; e += WG) { vt[b * nv + e] = sw[nw + e]; }
    // The norms of the rows (S), as `norms` computes them.
    for (var k = lid; k < q; k += WG) {
        var acc = T(0.0);
        for (var e = 0u; e < p; e++) { acc += sw[k * p + e] * sw[k * p + e]; }
        wk[s_off() + b * q + k] = sqrt_t(acc);
    }
    if (lid == 0u) { wk[ctl_off() + 3u * b + 1u] = select(T(0.0), T(1.0), converged); }
}

@compute @workgroup_size(WG)
fn norms(@builtin(workgroup_id) wid: vec3<u32>, @builtin(local_invocation_index) lid: u32) {
    let b = matrix_of(wid);
    let k = wid.x;
    if (b >= count()) { return; }
    let p = rows();
    let w = (b * cols() + k) * p;
    var acc = T(0.0);
    for (var r = lid; r < p; r += WG) { acc += wk[w + r] * wk[w + r]; }
    let s = reduce3(lid, vec3<T>(acc, T(0.0), T(0.0))).x;
    if (lid == 0u) { wk[s_off() + b * cols() + k] = sqrt_t(s); }
}

// The order's key of a value: the value, negated for the ascending order.
fn order_key(x: T) -> T { return select(x, -x, ascending()); }

@compute @workgroup_size(WG)
fn rank(@builtin(workgroup_id) wid: vec3<u32>, @builtin(num_workgroups) nwg: vec3<u32>,
        @builtin(local_invocation_index) lid: u32) {
    let i = linear_id(wid, nwg, lid, WG);
    let q = cols();
    if (i >= count() * q) { return; }
    let b = i / q;
    let k = i % q;
    let base = s_off() + b * q;
    let x = order_key(wk[base + k]);
    let nan_x = is_nan_t(wk[base + k]);
    var r = 0u;
    for (var j = 0u; j < q; j++) {
        let raw = wk[base + j];
        let y = order_key(raw);
        let nan_y = is_nan_t(raw);
        // Descending key order; NaN after every number (and equal among themselves).
        var before: bool;
        if (nan_x || nan_y) {
            before = (!nan_y && nan_x) || (nan_x && nan_y && j < k);
        } else {
            before = y > x || (y == x && j < k);
        }
        r += select(0u, 1u, before);
    }
    wk[perm_off() + b * q + r] = T(f32(k));
}

var<workgroup> firsts: array<u32, WGMAX>;

@compute @workgroup_size(WG)
fn check(@builtin(local_invocation_index) lid: u32) {
    // Each invocation the first of its matrices (lid, lid + WG, ...) not converged, then
    // the least over the workgroup.
    var first = 0xffffffffu;
    for (var b = lid; b < count(); b += WG) {
        if (wk[ctl_off() + 3u * b + 1u] == T(0.0)) {
            first = b;
            break;
        }
    }
    firsts[lid] = first;
    workgroupBarrier();
    for (var h = WG / 2u; h > 0u; h = h / 2u) {
        if (lid < h) { firsts[lid] = min(firsts[lid], firsts[lid + h]); }
        workgroupBarrier();
    }
    if (lid == 0u) {
        wk[ctl_off() + 3u * count()] = select(T(f32(firsts[0])), T(-1.0), firsts[0] == 0xffffffffu);
    }
}

fn perm_at(b: u32, i: u32) -> u32 { return u32(f32(src[perm_off() + b * cols() + i])); }

@compute @workgroup_size(WG)
fn gather_w(@builtin(workgroup_id) wid: vec3<u32>, @builtin(num_workgroups) nwg: vec3<u32>,
            @builtin(local_invocation_index) lid: u32) {
    let o = linear_id(wid, nwg, lid, WG);
    if (o >= P.n) { return; }
    let per = out_rows() * out_cols();
    let b = o / per;
    let i = (o % per) / out_cols();
    let j = o % out_cols();
    var v = T(0.0);
    if (i < cols()) {
        let k = perm_at(b, i);
        let s = src[s_off() + b * cols() + k];
        if (s > tiny()) {
            v = div_t(src[(b * cols() + k) * rows() + j], s);
        } else if (is_nan_t(s)) {
            v = s;
        }
    }
    wk[o] = v;
}

@compute @workgroup_size(WG)
fn gather_v(@builtin(workgroup_id) wid: vec3<u32>, @builtin(num_workgroups) nwg: vec3<u32>,
            @builtin(local_invocation_index) lid: u32) {
    let o = linear_id(wid, nwg, lid, WG);
    if (o >= P.n) { return; }
    let per = out_rows() * out_cols();
    let b = o / per;
    var i = (o % per) / out_cols();
    var j = o % out_cols();
    if (trans()) { let t = i; i = j; j = t; }
    let q = cols();
    wk[o] = vt[(b * q + perm_at(b, i)) * q + j];
}

@compute @workgroup_size(WG)
fn values(@builtin(workgroup_id) wid: vec3<u32>, @builtin(num_workgroups) nwg: vec3<u32>,
          @builtin(local_invocation_index) lid: u32) {
    let o = linear_id(wid, nwg, lid, WG);
    let q = cols();
    if (o >= count() * q) { return; }
    let b = o / q;
    let s = src[s_off() + b * q + perm_at(b, o % q)];
    // eigh (ascending): minus sigma.
    wk[o] = select(s, s - src[ctl_off() + 3u * b + 2u], ascending());
}

// complete: the row's candidate remainder e_j - sum_l U[l][j] U[l], into row k.
fn project_unit(base: u32, k: u32, j: u32, lid: u32) {
    let c = out_cols();
    for (var e = lid; e < c; e += WG) {
        var v = select(T(0.0), T(1.0), e == j);
        for (var l = 0u; l < out_rows(); l++) {
            if (l != k) { v -= wk[base + l * c + j] * wk[base + l * c + e]; }
        }
        wk[base + k * c + e] = v;
    }
    storageBarrier();
    workgroupBarrier();
}

// ||row k||^2 over the workgroup.
fn row_norm2(base: u32, k: u32, lid: u32) -> T {
    var acc = T(0.0);
    for (var e = lid; e < out_cols(); e += WG) { acc += wk[base + k * out_cols() + e] * wk[base + k * out_cols() + e]; }
    return reduce3(lid, vec3<T>(acc, T(0.0), T(0.0))).x;
}

var<workgroup> wg_scalar: T;

@compute @workgroup_size(WG)
fn complete(@builtin(workgroup_id) wid: vec3<u32>, @builtin(local_invocation_index) lid: u32) {
    let b = matrix_of(wid);
    if (b >= count()) { return; }
    let c = out_cols();
    let nr = out_rows();
    let base = b * nr * c;
    for (var k = 0u; k < nr; k++) {
        // Rows of S above tiny() are kept (a prefix: the order is descending).
        if (lid == 0u) {
            var keep = false;
            if (k < cols()) {
                let s = src[s_off() + b * cols() + perm_at(b, k)];
                keep = s > tiny() || is_nan_t(s);
            }
            done = select(0u, 1u, keep);
        }
        if (workgroupUniformLoad(&done) != 0u) { continue; }
        // The first unit vector (from k on) with enough left after the projections: the
        // remainders' squares sum to the missing dimensions, so one has at least 1 / c.
        for (var t = 0u; t < c; t++) {
            project_unit(base, k, (k + t) % c, lid);
            let r2 = row_norm2(base, k, lid);
            if (lid == 0u) { wg_scalar = r2; }
            if (workgroupUniformLoad(&wg_scalar) > T(0.5) / T(f32(c))) { break; }
        }
        // The second orthogonalisation (modified Gram-Schmidt), then the norm.
        for (var l = 0u; l < nr; l++) {
            if (l == k) { continue; }
            var acc = T(0.0);
            for (var e = lid; e < c; e += WG) {
                acc += wk[base + l * c + e] * wk[base + k * c + e];
            }
            let d = reduce3(lid, vec3<T>(acc, T(0.0), T(0.0))).x;
            for (var e = lid; e < c; e += WG) {
                wk[base + k * c + e] -= d * wk[base + l * c + e];
            }
            storageBarrier();
            workgroupBarrier();
        }
        let nrm = sqrt_t(row_norm2(base, k, lid));
        for (var e = lid; e < c; e += WG) {
            wk[base + k * c + e] = div_t(wk[base + k * c + e], nrm);
        }
        storageBarrier();
        workgroupBarrier();
    }
}
