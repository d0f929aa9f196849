// Eig_small family: eigh of stacks of small symmetric matrices (n <= 32) by one-sided
// (Hestenes) Jacobi with one invocation per column. Host: src/linalg/spectral/eig_small.rs.
//
// The matrix B = A + sigma I (sigma = ||A||_F, the triangle named by upper() mirrored: B is
// positive semi-definite, its singular vectors A's eigenvectors, its singular values A's
// eigenvalues plus sigma) is held by G invocations (lanes; G a power of two, at least n
// rounded up to even, NE): lane k holds column k of W (= B at the start) and of V (= I) in
// private arrays of NR = n elements, every index a constant after unrolling (the loops
// marked `// unroll`), so that both stay in registers. A sweep is NE - 1 rounds of the
// circle method (column NE - 1 meets column r in round r, the others k and 2 r - k mod
// NE - 1); in a round, each lane takes its partner's column of W (and then of V) and
// rotates its own: the pair (i < j) makes columns i and j orthogonal, W_i' = c W_i - s W_j,
// W_j' = s W_i + c W_j, with (c, s) from (|W_i|^2, |W_j|^2, W_i . W_j), which both lanes
// compute from the same numbers (the dot product in the same order, each norm computed by
// its owner and passed), so both agree bit for bit. Lanes from n on hold zero columns and
// never rotate. Sweeps repeat until no pair of the subgroup (workgroup) rotated in a sweep,
// at most sweeps(); a matrix converged where none of its pairs rotated in its last sweep.
// Then S[k] = |W_k|, the lanes rank their S (ascending, NaN last, ties by column: the
// spectral family's `rank`), and lane k writes eigenvalue S[k] - sigma and eigenvector
// V_k as number rank(k) of its matrix.
//
// Kernels (the host keeps the other exchange's text out of the module, so that `eig_wg`
// needs no subgroup operations):
// - `eig_sg`: the columns pass by subgroup shuffles: a matrix's G lanes lie within one
//   subgroup (the host checks that the smallest subgroup has at least G lanes), WG / G
//   matrices a workgroup, no barrier. A round exchanges V only where a pair of the subgroup
//   rotated. With hold_w() false, a lane does not hold its partner's column of W between
//   the dot product and the update but shuffles it again (NR more shuffles a rotating
//   round, NR fewer registers: 2 NR in f64).
// - `eig_wg`: the columns pass through workgroup memory (`xs`, a row of NR + 1 per lane:
//   the column and its norm), two barriers per exchange; WG / G matrices a workgroup.
// - `check`: one workgroup: the status, the first matrix not converged (or -1).
//
// Bindings: 0 params; 1 `src` the contiguous input ([count][n][n]); 4 `out`: the
// eigenvalues ([count][n], ascending), then the eigenvectors ([count][n][n], as columns;
// where has_v()), then the converged flags (count: 1 converged, 0 not), then the status.
// Grid: (1, y, z) workgroups, y * z at least count / (WG / G); `check` (1, 1, 1).

#import params

alias T = f32;
alias S = f32;
alias SC = f32;
// A column: NR elements.
alias Col = array<f32, 8>;
// eig_wg's exchange rows: WG (NR + 1) elements.
alias Rows = array<f32, 576>;

override WG: u32 = 64u;

fn order() -> u32 { return 8u; }          // n (NR)
fn lanes() -> u32 { return 8u; }          // G
fn paired() -> u32 { return 8u; }         // NE: n rounded up to even
fn has_v() -> bool { return true; }       // V kept
fn hold_w() -> bool { return true; }      // eig_sg holds the partner's column of W

@group(0) @binding(1) var<storage, read> src: array<T>;
@group(0) @binding(4) var<storage, read_write> out: array<T>;

// The family's parameters, mirroring `run` in src/linalg/spectral/eig_small.rs.
fn count() -> u32 { return P.aux.x; }           // matrices
fn upper() -> bool { return (P.aux.y & 2u) != 0u; }
fn flag_off() -> u32 { return P.shape[0].x; }   // where the converged flags start in out
fn sweeps() -> u32 { return P.shape[0].z; }     // sweeps at most
fn tol() -> T { return T(P.sc.x); }             // rotation threshold (a cosine)

// The matrix of a workgroup's first lane group in a grid of (1, y, z).
fn group_of(wid: vec3<u32>) -> u32 { return (wid.z * 65535u + wid.y) * (WG / lanes()); }

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
// where |gamma| <= tol sqrt(alpha beta) (and for NaN): shaders/spectral.wgsl's, with the
// threshold and t = tan(theta) from the plain built-ins (an error in t leaves the pair
// slightly less orthogonal, for the next sweep, but the rotation exactly orthogonal: c
// and s = c t still from the refined quotient and root, as there). Every lane evaluates it
// every round, so its divisions and roots count (in f64 most of all).
fn rotation(alpha: T, beta: T, gamma: T) -> vec2<T> {
    if (!(abs(gamma) > tol() * sqrt(alpha) * sqrt(beta))) { return vec2<T>(T(1.0), T(0.0)); }
    let zeta = (beta - alpha) / (T(2.0) * gamma);
    let az = abs(zeta);
    var t: T;
    if (az > T(1.0)) {
        let r = T(1.0) / az;
        t = r / (T(1.0) + sqrt(T(1.0) + r * r));
    } else {
        t = T(1.0) / (az + sqrt(T(1.0) + az * az));
    }
    t = select(t, -t, zeta < T(0.0));
    let c = div_t(T(1.0), sqrt_t(T(1.0) + t * t));
    return vec2<T>(c, c * t);
}

// Column k's partner in round r of the circle method over paired() columns (itself for
// the lanes past them).
fn partner(r: u32, k: u32) -> u32 {
    let m = paired() - 1u;
    if (k > m) { return k; }
    if (k == m) { return r; }
    if (k == r) { return m; }
    return (2u * r + m - k) % m;
}

// B[e][k] of matrix `base`: the named triangle of A mirrored.
fn sym(base: u32, e: u32, k: u32) -> T {
    let n = order();
    let lo = min(e, k);
    let hi = max(e, k);
    if (upper()) { return src[base + lo * n + hi]; }
    return src[base + hi * n + lo];
}

// NaN, as the elementwise family tests it in f64: `!=` may compile to an ordered
// comparison, false for NaN.
fn is_nan_t(x: T) -> bool { return !(x == x); }

// Whether y (column j) comes before x (column k): ascending, NaN last, ties by column.
fn before(y: T, j: u32, x: T, k: u32) -> bool {
    let nx = is_nan_t(x);
    let ny = is_nan_t(y);
    if (nx || ny) { return (!ny && nx) || (nx && ny && j < k); }
    return y < x || (y == x && j < k);
}

// |W_k|.
fn norm_of(w: Col) -> T {
    return sqrt_t(dot4(w, w));
}

// The dot product of x and y as 4 interleaved partial sums (4 short chains of dependent
// multiply-adds rather than one of NR), added in a fixed order: the same bits for (x, y)
// and (y, x).
fn dot4(x: Col, y: Col) -> T {
    var a = vec4<T>(T(0.0));
    // unroll
    for (var e = 0u; e < NR; e++) {
        a[e & 3u] += x[e] * y[e];
    }
    return (a.x + a.y) + (a.z + a.w);
}

// Matrix b's results from lane k, number `at` of its order: eigenvalue s - sigma, vector
// V_k, and (lane 0) its converged flag.
fn finish(b: u32, k: u32, at: u32, s: T, v: Col, conv: bool, sigma: T) {
    let n = order();
    out[b * n + at] = s - sigma;
    if (has_v()) {
        let base = count() * n + b * n * n;
        // unroll
        for (var e = 0u; e < NR; e++) {
            out[base + e * n + at] = v[e];
        }
    }
    if (k == 0u) { out[flag_off() + b] = select(T(0.0), T(1.0), conv); }
}

//@sg-begin
@compute @workgroup_size(WG)
fn eig_sg(@builtin(workgroup_id) wid: vec3<u32>, @builtin(subgroup_id) sg: u32,
          @builtin(subgroup_size) sgs: u32, @builtin(subgroup_invocation_id) lane: u32) {
    let g = lanes();
    let b = group_of(wid) + (sg * sgs + lane) / g;
    let k = lane % g;
    let head = lane - k;
    let live = b < count() && k < order();
    let base = b * order() * order();
    var w: Col;
    var v: Col;
    var sq = T(0.0);
    // unroll
    for (var e = 0u; e < NR; e++) {
        var x = T(0.0);
        if (live) { x = sym(base, e, k); }
        w[e] = x;
        sq += x * x;
        v[e] = select(T(0.0), T(1.0), e == k);
    }
    // sigma^2: the group's sum by a butterfly (every lane the same bits: each step adds
    // the same two numbers on both sides).
    for (var h = 1u; h < g; h *= 2u) { sq += subgroupShuffleXor(sq, h); }
    let sigma = sqrt_t(sq);
    // unroll
    for (var e = 0u; e < NR; e++) {
        w[e] += select(T(0.0), sigma, e == k);
    }
    var conv = false;
    var last = false;
    for (var s = 0u; s < sweeps(); s++) {
        var rot = false;
        for (var r = 0u; r + 1u < paired(); r++) {
            let src_l = head + partner(r, k);
            let lo = k < partner(r, k);
            // The partner's column, held (hold_w()) or shuffled again for the update.
            var pw: Col;
            var ga = vec4<T>(T(0.0));
            // unroll
            for (var e = 0u; e < NR; e++) {
                let y = subgroupShuffle(w[e], src_l);
                if (hold_w()) { pw[e] = y; }
                ga[e & 3u] += w[e] * y;
            }
            let alpha = dot4(w, w);
            let gamma = (ga.x + ga.y) + (ga.z + ga.w);
            let beta = subgroupShuffle(alpha, src_l);
            let cs = rotation(select(beta, alpha, lo), select(alpha, beta, lo), gamma);
            let sn = select(cs.y, -cs.y, lo);
            let turn = cs.y != T(0.0);
            rot = rot || turn;
            if (hold_w()) {
                if (turn) {
                    // unroll
                    for (var e = 0u; e < NR; e++) {
                        w[e] = cs.x * w[e] + sn * pw[e];
                    }
                }
            } else if (subgroupAny(turn)) {
                // unroll
                for (var e = 0u; e < NR; e++) {
                    let y = subgroupShuffle(w[e], src_l);
                    if (turn) { w[e] = cs.x * w[e] + sn * y; }
                }
            }
            if (has_v() && subgroupAny(turn)) {
                // unroll
                for (var e = 0u; e < NR; e++) {
                    let y = subgroupShuffle(v[e], src_l);
                    if (turn) { v[e] = cs.x * v[e] + sn * y; }
                }
            }
        }
        last = rot;
        if (!subgroupAny(rot)) {
            conv = true;
            break;
        }
    }
    // Out of sweeps: the matrices whose pairs rotated in the last sweep did not converge.
    var open = select(0u, 1u, last);
    for (var h = 1u; h < g; h *= 2u) { open |= subgroupShuffleXor(open, h); }
    // The order: each lane counts the columns before its own.
    let sk = norm_of(w);
    var at = 0u;
    // unroll
    for (var t = 0u; t < NR; t++) {
        let st = subgroupShuffle(sk, head + t);
        at += select(0u, 1u, before(st, t, sk, k));
    }
    if (live) { finish(b, k, at, sk, v, conv || open == 0u, sigma); }
}
//@sg-end

//@wg-begin
var<workgroup> xs: Rows;
var<workgroup> rotated: u32;

@compute @workgroup_size(WG)
fn eig_wg(@builtin(workgroup_id) wid: vec3<u32>, @builtin(local_invocation_index) lid: u32) {
    let g = lanes();
    let rs = order() + 1u;     // a lane's row of xs
    let b = group_of(wid) + lid / g;
    let k = lid % g;
    let head = lid - k;
    let live = b < count() && k < order();
    let base = b * order() * order();
    var w: Col;
    var v: Col;
    var sq = T(0.0);
    // unroll
    for (var e = 0u; e < NR; e++) {
        var x = T(0.0);
        if (live) { x = sym(base, e, k); }
        w[e] = x;
        sq += x * x;
        v[e] = select(T(0.0), T(1.0), e == k);
    }
    // sigma^2: the group's sum in the order of its lanes (the same on every lane).
    xs[lid * rs] = sq;
    workgroupBarrier();
    sq = T(0.0);
    for (var t = 0u; t < g; t++) { sq += xs[(head + t) * rs]; }
    workgroupBarrier();
    let sigma = sqrt_t(sq);
    // unroll
    for (var e = 0u; e < NR; e++) {
        w[e] += select(T(0.0), sigma, e == k);
    }
    var conv = false;
    var last = false;
    for (var s = 0u; s < sweeps(); s++) {
        if (lid == 0u) { rotated = 0u; }
        var rot = false;
        for (var r = 0u; r + 1u < paired(); r++) {
            let src_l = (head + partner(r, k)) * rs;
            let lo = k < partner(r, k);
            let alpha = dot4(w, w);
            // unroll
            for (var e = 0u; e < NR; e++) {
                xs[lid * rs + e] = w[e];
            }
            xs[lid * rs + order()] = alpha;
            workgroupBarrier();
            var pw: Col;
            // unroll
            for (var e = 0u; e < NR; e++) {
                pw[e] = xs[src_l + e];
            }
            let gamma = dot4(w, pw);
            let beta = xs[src_l + order()];
            workgroupBarrier();
            let cs = rotation(select(beta, alpha, lo), select(alpha, beta, lo), gamma);
            let sn = select(cs.y, -cs.y, lo);
            let turn = cs.y != T(0.0);
            if (turn) {
                rot = true;
                rotated = 1u;
                // unroll
                for (var e = 0u; e < NR; e++) {
                    w[e] = cs.x * w[e] + sn * pw[e];
                }
            }
            if (has_v()) {
                // unroll
                for (var e = 0u; e < NR; e++) {
                    xs[lid * rs + e] = v[e];
                }
                workgroupBarrier();
                // unroll
                for (var e = 0u; e < NR; e++) {
                    let y = xs[src_l + e];
                    if (turn) { v[e] = cs.x * v[e] + sn * y; }
                }
                workgroupBarrier();
            }
        }
        last = rot;
        if (workgroupUniformLoad(&rotated) == 0u) {
            conv = true;
            break;
        }
    }
    // Out of sweeps: the matrices whose pairs rotated in the last sweep did not converge.
    xs[lid * rs] = select(T(0.0), T(1.0), last);
    workgroupBarrier();
    var open = false;
    for (var t = 0u; t < g; t++) { open = open || xs[(head + t) * rs] != T(0.0); }
    workgroupBarrier();
    // The order: each lane counts the columns before its own.
    let sk = norm_of(w);
    xs[lid * rs] = sk;
    workgroupBarrier();
    var at = 0u;
    // unroll
    for (var t = 0u; t < NR; t++) {
        at += select(0u, 1u, before(xs[(head + t) * rs], t, sk, k));
    }
    if (live) { finish(b, k, at, sk, v, conv || !open, sigma); }
}
//@wg-end

var<workgroup> firsts: array<u32, 256>;

@compute @workgroup_size(WG)
fn check(@builtin(local_invocation_index) lid: u32) {
    // Each invocation the first of its matrices (lid, lid + WG, ...) not converged (every
    // flag read, so that the loads need not wait on each other), then the least.
    var first = 0xffffffffu;
    for (var b = lid; b < count(); b += WG) {
        if (out[flag_off() + b] == T(0.0)) { first = min(first, b); }
    }
    firsts[lid] = first;
    workgroupBarrier();
    for (var h = WG / 2u; h > 0u; h = h / 2u) {
        if (lid < h) { firsts[lid] = min(firsts[lid], firsts[lid + h]); }
        workgroupBarrier();
    }
    if (lid == 0u) {
        out[flag_off() + count()] = select(T(f32(firsts[0])), T(-1.0), firsts[0] == 0xffffffffu);
    }
}
