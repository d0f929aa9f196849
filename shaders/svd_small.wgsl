// Svd_small family: the columns of U (from W) that the eig_small family's svd leaves zero or
// unwritten, completed to an orthonormal set. Host: src/linalg/spectral/svd_small.rs.
//
// The eig_small kernel's output `out` holds from u_off() the columns of U' of each matrix
// ([count][p][cols()] as columns where tall(), else [count][cols()][p] as rows, p >= q):
// columns j < q whose singular value (scaled) exceeds the kernel's tiny() (or is NaN) are
// W_j / S[j], the others (a suffix, by the descending order) are zero, and columns
// q..cols() (full matrices where p > q) are not written. `complete` (an invocation per
// matrix; most return after reading the first nonzero element of column q - 1: every
// column kept and cols() = q) fills each column j from the first zero one on: the unit vector e_t (t = j, j + 1, ... mod p) minus its projections on columns
// 0..j, the first whose remainder has |r|^2 > 1/(2 p) (the remainders' squares sum to the
// p - j missing dimensions, so one exceeds 1/p), orthogonalised a second time (modified
// Gram-Schmidt) and normalised: the spectral family's `complete`, a column at a time.
// The loops over a column's NR = p elements are unrolled (the column in registers, and
// lavapipe, which ends a loop nest after 65,535 iterations, counts only the others:
// at most 32 x 32 x 32).
//
// Bindings: 0 params; 4 `out` (read-write). Grid: an invocation per matrix.

#import params

alias T = f32;
alias S = f32;
alias SC = f32;

override WG: u32 = 64u;
// A column: NR = p elements.
alias Col = array<f32, 8>;

fn rows_p() -> u32 { return 8u; }         // p: elements of a column (NR)

@group(0) @binding(4) var<storage, read_write> out: array<T>;

// The family's parameters, mirroring `complete` in src/linalg/spectral/svd_small.rs.
fn count() -> u32 { return P.aux.x; }           // matrices
fn tall() -> bool { return (P.aux.y & 1u) != 0u; }  // U' as columns (else rows)
fn order() -> u32 { return P.shape[0].y; }      // q: singular values
fn cols() -> u32 { return P.shape[0].z; }       // columns of U'
fn u_off() -> u32 { return P.shape[0].w; }      // where U' starts in out

// Square root and quotient within an ulp or two (as shaders/eig_small.wgsl's).
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

// |x|^2.
fn norm2(x: Col) -> T {
    var r = T(0.0);
    // unroll
    for (var e = 0u; e < NR; e++) {
        r += x[e] * x[e];
    }
    return r;
}

// Where element e of column j of matrix base's U' lies.
fn at(base: u32, e: u32, j: u32) -> u32 {
    if (tall()) { return base + e * cols() + j; }
    return base + j * rows_p() + e;
}

@compute @workgroup_size(WG)
fn complete(@builtin(workgroup_id) wid: vec3<u32>, @builtin(num_workgroups) nwg: vec3<u32>,
            @builtin(local_invocation_index) lid: u32) {
    let b = linear_id(wid, nwg, lid, WG);
    if (b >= count()) { return; }
    let p = rows_p();
    let q = order();
    let c = cols();
    let base = u_off() + b * p * c;
    // The columns kept: a prefix, each with an element other than zero (NaN included).
    var kept = q;
    while (kept > 0u) {
        var nonzero = false;
        for (var e = 0u; e < p; e++) {
            if (!(out[at(base, e, kept - 1u)] == T(0.0))) {
                nonzero = true;
                break;
            }
        }
        if (nonzero) { break; }
        kept -= 1u;
    }
    if (kept == c) { return; }
    var x: Col;
    for (var j = kept; j < c; j++) {
        // The first unit vector from e_j on with enough left after the projections.
        for (var t = 0u; t < p; t++) {
            let u = (j + t) % p;
            // unroll
            for (var e = 0u; e < NR; e++) {
                x[e] = select(T(0.0), T(1.0), e == u);
            }
            for (var l = 0u; l < j; l++) {
                let f = out[at(base, u, l)];
                // unroll
                for (var e = 0u; e < NR; e++) {
                    x[e] -= f * out[at(base, e, l)];
                }
            }
            if (norm2(x) > T(0.5) / T(f32(p))) { break; }
        }
        // The second orthogonalisation (modified Gram-Schmidt), then the norm.
        for (var l = 0u; l < j; l++) {
            var d = T(0.0);
            // unroll
            for (var e = 0u; e < NR; e++) {
                d += out[at(base, e, l)] * x[e];
            }
            // unroll
            for (var e = 0u; e < NR; e++) {
                x[e] -= d * out[at(base, e, l)];
            }
        }
        let nrm = sqrt_t(norm2(x));
        // unroll
        for (var e = 0u; e < NR; e++) {
            out[at(base, e, j)] = div_t(x[e], nrm);
        }
    }
}
