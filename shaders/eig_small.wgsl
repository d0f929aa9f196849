// Eig_small family: eigh and svd of stacks of small matrices (at most 32 columns of at most
// 32 elements) by one-sided (Hestenes) Jacobi with one invocation per column. Host:
// src/linalg/spectral/eig_small.rs (eigh) and svd_small.rs (svd).
//
// eigh (svd() false): the matrix B = A + sigma I (sigma = ||A||_F, the triangle named by
// upper() mirrored: B is positive semi-definite, its singular vectors A's eigenvectors, its
// singular values A's eigenvalues plus sigma). svd (svd() true): W = A (tall(): its
// columns) or A^T (its rows), q = order() columns of p = rows_p() elements, p >= q.
// G invocations (lanes; G a power of two, at least q rounded up to even, NE) hold the
// matrix: lane k holds column k of W (NR = p elements; = B's at the start) and of V (NQ = q
// elements; = I) in private arrays, every index a constant after unrolling (the loops
// marked `// unroll`), so that both stay in registers. A sweep is NE - 1 rounds of the
// circle method (column NE - 1 meets column r in round r, the others k and 2 r - k mod
// NE - 1); in a round, each lane takes its partner's column of W (and then of V) and
// rotates its own: the pair (i < j) makes columns i and j orthogonal, W_i' = c W_i - s W_j,
// W_j' = s W_i + c W_j, with (c, s) from (|W_i|^2, |W_j|^2, W_i . W_j), which both lanes
// compute from the same numbers (the dot product in the same order, each norm computed by
// its owner and passed), so both agree bit for bit. Lanes from q on hold zero columns and
// never rotate. Sweeps repeat until no pair of the subgroup (workgroup) rotated in a sweep,
// at most sweeps(); a matrix converged where none of its pairs rotated in its last sweep.
// Then S[k] = |W_k|, the lanes rank their S (eigh ascending, svd descending; NaN last, ties
// by column: the spectral family's `rank`), and lane k writes, as number rank(k) of its
// matrix: eigh, eigenvalue S[k] - sigma and eigenvector V_k; svd, singular value S[k]
// (times the scale), V_k (a row of Vh where tall(), else a column of U) and W_k / S[k]
// (a column of U where tall(), else a row of Vh; zero where S[k] <= tiny(), for
// shaders/svd_small.wgsl's `complete`).
// svd first finds the largest |a| of its matrix (the lanes' maxima by a butterfly or
// through workgroup memory): where it lies outside [small(), huge()], W is divided by it
// (and the values multiplied back at the end), so that no |W_k|^2 overflows or loses its
// small entries; where an entry is NaN or infinite, every column becomes NaN (nothing
// rotates; every value and vector of the matrix NaN).
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
// Bindings: 0 params; 1 `src` the contiguous input ([count][n][n] for eigh, [count][m][n]
// for svd); 4 `out`: the values ([count][q]), then the vectors ([count][q][q], as columns,
// or as rows where svd() and tall(); where has_v()), then (svd, has_v()) U from W
// ([count][p][cols()] as columns where tall(), else [count][cols()][p] as rows; cols() is
// q, or p for full matrices), then the converged flags (count: 1 converged, 0 not), then
// the status.
// Grid: (1, y, z) workgroups, y * z at least count / (WG / G); `check` (1, 1, 1).

#import params

alias T = f32;
alias S = f32;
alias SC = f32;
// A column of W: NR elements.
alias Col = array<f32, 8>;
// A column of V: NQ elements.
alias VCol = array<f32, 8>;
// eig_wg's exchange rows: WG (NR + 1) elements.
alias Rows = array<f32, 576>;

override WG: u32 = 64u;

fn order() -> u32 { return 8u; }          // q: columns (NQ)
fn rows_p() -> u32 { return 8u; }         // p: elements of a column of W (NR)
fn svd() -> bool { return false; }        // svd (else eigh)
fn lanes() -> u32 { return 8u; }          // G
fn paired() -> u32 { return 8u; }         // NE: n rounded up to even
fn has_v() -> bool { return true; }       // V kept
fn hold_w() -> bool { return true; }      // eig_sg holds the partner's column of W

@group(0) @binding(1) var<storage, read> src: array<T>;
@group(0) @binding(4) var<storage, read_write> out: array<T>;

// The family's parameters, mirroring `run` in src/linalg/spectral/eig_small.rs.
fn count() -> u32 { return P.aux.x; }           // matrices
fn tall() -> bool { return (P.aux.y & 1u) != 0u; }  // svd: W = A (else A^T)
fn upper() -> bool { return (P.aux.y & 2u) != 0u; }
fn flag_off() -> u32 { return P.shape[0].x; }   // where the converged flags start in out
fn cols() -> u32 { return P.shape[0].y; }       // svd: U's columns from W (q, or p if full)
fn sweeps() -> u32 { return P.shape[0].z; }     // sweeps at most
fn u_off() -> u32 { return P.shape[0].w; }      // svd: where U from W starts in out
fn tol() -> T { return T(P.sc.x); }             // rotation threshold (a cosine)
fn tiny() -> T { return T(P.sc.y); }            // svd: the smallest S whose column is kept
fn huge() -> T { return T(P.sc.z); }            // svd: the largest |a| not scaled
fn small() -> T { return T(P.sc.w); }           // svd: the smallest |a| not scaled

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

// Element e of lane k's column of W at the start, of matrix b: B's (eigh), A's column k
// (svd, tall()) or row k.
fn load(b: u32, e: u32, k: u32) -> T {
    let base = b * order() * rows_p();
    if (!svd()) { return sym(base, e, k); }
    if (tall()) { return src[base + e * order() + k]; }
    return src[base + k * rows_p() + e];
}

// NaN by comparison (`!=` may compile to an ordered comparison, false for NaN). The host
// replaces this line by a test of the bits for f32, and for f64 where the adapter has 64-bit
// integers: on the H200 the comparison form let a NaN entry through svd's largest-magnitude
// butterfly (a compiler may fold x == x), and the matrix came out partly finite.
fn is_nan_t(x: T) -> bool { return !(x == x); }

// |x|, or NaN where x is NaN or infinite (x - x here; from the bits where is_nan_t is).
fn magnitude(x: T) -> T { let d = x - x; return select(abs(x), d, !(d == T(0.0))); }

// The larger of two magnitudes, NaN where either is.
fn worse(a: T, b: T) -> T {
    if (is_nan_t(a)) { return a; }
    if (is_nan_t(b)) { return b; }
    return max(a, b);
}

// svd: W scaled by the matrix's largest magnitude mx where it lies outside [small(),
// huge()] (returned: the divisor, else 1), or NaN throughout where mx is NaN.
fn scaled(w: ptr<function, Col>, mx: T) -> T {
    if (is_nan_t(mx)) {
        // unroll
        for (var e = 0u; e < NR; e++) {
            (*w)[e] = mx;
        }
        return T(1.0);
    }
    if (!(mx > huge() || (mx < small() && mx > T(0.0)))) { return T(1.0); }
    // unroll
    for (var e = 0u; e < NR; e++) {
        (*w)[e] = div_t((*w)[e], mx);
    }
    return mx;
}

// The order's key: eigh ascending, svd descending (NaN stays NaN).
fn key(x: T) -> T { return select(x, -x, svd()); }

// Whether y (column j) comes before x (column k): ascending keys, NaN last, ties by column.
fn before(y: T, j: u32, x: T, k: u32) -> bool {
    let nx = is_nan_t(x);
    let ny = is_nan_t(y);
    if (nx || ny) { return (!ny && nx) || (nx && ny && j < k); }
    return key(y) < key(x) || (y == x && j < k);
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

// Matrix b's results from lane k, number `at` of its order: eigh, eigenvalue s - sigma and
// vector V_k; svd, singular value s scale, V_k and W_k / s (NaN throughout where s is);
// and (lane 0) its converged flag.
fn finish(b: u32, k: u32, at: u32, s: T, w: Col, v: VCol, conv: bool, sigma: T, scale: T) {
    let q = order();
    let p = rows_p();
    if (svd()) {
        out[b * q + at] = s * scale;
    } else {
        out[b * q + at] = s - sigma;
    }
    if (has_v()) {
        let base = count() * q + b * q * q;
        let nan_s = svd() && is_nan_t(s);
        let rows = svd() && tall();
        // unroll
        for (var e = 0u; e < NQ; e++) {
            out[base + select(e * q + at, at * q + e, rows)] = select(v[e], s, nan_s);
        }
        if (svd()) {
            let c = cols();
            let ub = u_off() + b * p * c;
            let keep = s > tiny() || nan_s;
            // unroll
            for (var e = 0u; e < NR; e++) {
                var x = T(0.0);
                if (keep) { x = div_t(w[e], s); }
                out[ub + select(at * p + e, e * c + at, tall())] = x;
            }
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
    var w: Col;
    var v: VCol;
    var sq = T(0.0);
    var mx = T(0.0);
    // unroll
    for (var e = 0u; e < NR; e++) {
        var x = T(0.0);
        if (live) { x = load(b, e, k); }
        w[e] = x;
        sq += x * x;
        mx = worse(mx, magnitude(x));
    }
    // unroll
    for (var e = 0u; e < NQ; e++) {
        v[e] = select(T(0.0), T(1.0), e == k);
    }
    var sigma = T(0.0);
    var scale = T(1.0);
    if (svd()) {
        // The matrix's largest magnitude, by a butterfly.
        for (var h = 1u; h < g; h *= 2u) { mx = worse(mx, subgroupShuffleXor(mx, h)); }
        scale = scaled(&w, mx);
    } else {
        // sigma^2: the group's sum by a butterfly (every lane the same bits: each step
        // adds the same two numbers on both sides).
        for (var h = 1u; h < g; h *= 2u) { sq += subgroupShuffleXor(sq, h); }
        sigma = sqrt_t(sq);
        // unroll
        for (var e = 0u; e < NR; e++) {
            w[e] += select(T(0.0), sigma, e == k);
        }
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
                for (var e = 0u; e < NQ; e++) {
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
    for (var t = 0u; t < NQ; t++) {
        let st = subgroupShuffle(sk, head + t);
        at += select(0u, 1u, before(st, t, sk, k));
    }
    if (live) { finish(b, k, at, sk, w, v, conv || open == 0u, sigma, scale); }
}
//@sg-end

//@wg-begin
var<workgroup> xs: Rows;
var<workgroup> rotated: u32;

@compute @workgroup_size(WG)
fn eig_wg(@builtin(workgroup_id) wid: vec3<u32>, @builtin(local_invocation_index) lid: u32) {
    let g = lanes();
    let rs = rows_p() + 1u;    // a lane's row of xs
    let b = group_of(wid) + lid / g;
    let k = lid % g;
    let head = lid - k;
    let live = b < count() && k < order();
    var w: Col;
    var v: VCol;
    var sq = T(0.0);
    var mx = T(0.0);
    // unroll
    for (var e = 0u; e < NR; e++) {
        var x = T(0.0);
        if (live) { x = load(b, e, k); }
        w[e] = x;
        sq += x * x;
        mx = worse(mx, magnitude(x));
    }
    // unroll
    for (var e = 0u; e < NQ; e++) {
        v[e] = select(T(0.0), T(1.0), e == k);
    }
    // sigma^2 (eigh) or the largest magnitude (svd): the group's in the order of its lanes
    // (the same on every lane).
    xs[lid * rs] = select(sq, mx, svd());
    workgroupBarrier();
    sq = T(0.0);
    mx = T(0.0);
    for (var t = 0u; t < g; t++) {
        let y = xs[(head + t) * rs];
        sq += y;
        mx = worse(mx, y);
    }
    workgroupBarrier();
    var sigma = T(0.0);
    var scale = T(1.0);
    if (svd()) {
        scale = scaled(&w, mx);
    } else {
        sigma = sqrt_t(sq);
        // unroll
        for (var e = 0u; e < NR; e++) {
            w[e] += select(T(0.0), sigma, e == k);
        }
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
            xs[lid * rs + rows_p()] = alpha;
            workgroupBarrier();
            var pw: Col;
            // unroll
            for (var e = 0u; e < NR; e++) {
                pw[e] = xs[src_l + e];
            }
            let gamma = dot4(w, pw);
            let beta = xs[src_l + rows_p()];
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
                for (var e = 0u; e < NQ; e++) {
                    xs[lid * rs + e] = v[e];
                }
                workgroupBarrier();
                // unroll
                for (var e = 0u; e < NQ; e++) {
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
    for (var t = 0u; t < NQ; t++) {
        at += select(0u, 1u, before(xs[(head + t) * rs], t, sk, k));
    }
    if (live) { finish(b, k, at, sk, w, v, conv || !open, sigma, scale); }
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
