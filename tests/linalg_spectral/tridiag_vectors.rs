//! eigh from n = 33 on, the tridiagonal route: Householder reduction, bisection, inverse
//! iteration on T with Householder QR between rounds, and the compact-WY back-transform.
//! Each result is checked by main.rs's `check_eigh` against the f64 reference: eigen-residual
//! ||A V - V diag(w)||_F <= 20 n eps ||A||_F, orthogonality ||V^T V - I||_F <= 40 n eps and
//! the eigenvalues within 20 n eps ||A||_F. Degenerate spectra (multiplicity 52 of 70, the
//! identity, zero, all equal but one, Wilkinson's W+ matrices alone and glued into tight
//! clusters), ill-conditioned (graded to 1e-11; graded runs that chained dstein's shift
//! perturbation), sizes at the route's edge (33), powers of two
//! and their neighbours, primes and past one workgroup (257), stacks, views, NaN and inf.

use super::check_eigh;
use super::common::{dev, host, upload, Rng};
use super::reference as r;
use gpuarray::linalg::{eigh, Triangle};
use gpuarray::{Float, Slice};

/// eigh of the n x n `x` (f64 values, uploaded as T) through `uplo`, checked.
#[track_caller]
fn run<T: Float>(x: &[f64], n: usize, uplo: Triangle) {
    let (a, x) = upload::<T>(dev(), x, &[n, n]);
    let (w, v) = eigh(&a, uplo).unwrap();
    assert_eq!((w.shape(), v.shape()), (&[n][..], &[n, n][..]));
    check_eigh::<T>(&x, n, uplo, &w, &v);
}

/// Wilkinson's W+ of order 2m + 1 (|m - i| on the diagonal, 1 beside it).
fn wilkinson(m: usize) -> Vec<f64> {
    let n = 2 * m + 1;
    let mut t = vec![0.0; n * n];
    for i in 0..n {
        t[i * n + i] = (m as f64 - i as f64).abs();
        if i + 1 < n {
            t[i * n + i + 1] = 1.0;
            t[(i + 1) * n + i] = 1.0;
        }
    }
    t
}

/// `copies` W+ of order 2m + 1 along the diagonal, glued by `glue` between them (tight
/// clusters: each eigenvalue of W+ about `copies` times, split by about `glue`).
fn glued(m: usize, copies: usize, glue: f64) -> (Vec<f64>, usize) {
    let w = wilkinson(m);
    let k = 2 * m + 1;
    let n = k * copies;
    let mut t = vec![0.0; n * n];
    for c in 0..copies {
        for i in 0..k {
            for j in 0..k {
                t[(c * k + i) * n + c * k + j] = w[i * k + j];
            }
        }
        if c > 0 {
            let (p, q) = (c * k - 1, c * k);
            t[p * n + q] = glue;
            t[q * n + p] = glue;
        }
    }
    (t, n)
}

/// Q T Q^T for a random orthogonal Q (the same spectrum, dense).
fn rotated(rng: &mut Rng, t: &[f64], n: usize) -> Vec<f64> {
    let q = r::orthogonal(rng, n);
    let qt = r::matmul(&q, t, n, n, n);
    r::matmul(&qt, &r::transpose(&q, n, n), n, n, n)
}

pub fn sizes<T: Float>() {
    let mut rng = Rng::new(31);
    for n in [33, 64, 65, 127, 257] {
        let x = rng.vec(n * n, -1.0, 1.0);
        run::<T>(&x, n, Triangle::Lower);
        if n < 100 {
            run::<T>(&x, n, Triangle::Upper);
        }
    }
}

pub fn degenerate<T: Float>() {
    let mut rng = Rng::new(32);
    let n = 70;
    // Eigenvalue 1 of multiplicity 52, the rest spread in [-3, 3].
    let ev: Vec<f64> = (0..n)
        .map(|k| {
            if k < 52 {
                1.0
            } else {
                -3.0 + 6.0 * (k - 52) as f64 / 17.0
            }
        })
        .collect();
    run::<T>(&r::with_eigenvalues(&mut rng, &ev), n, Triangle::Lower);
    // Identity, zero, all equal but one.
    let mut eye = vec![0.0; 50 * 50];
    for k in 0..50 {
        eye[k * 51] = 1.0;
    }
    run::<T>(&eye, 50, Triangle::Upper);
    run::<T>(&vec![0.0; 40 * 40], 40, Triangle::Lower);
    let mut ev = vec![2.0; 40];
    ev[17] = 5.0;
    run::<T>(&r::with_eigenvalues(&mut rng, &ev), 40, Triangle::Lower);
    // Wilkinson's W41+ (pairs of eigenvalues equal to about 1e-14 and closer), as it is and
    // rotated into a dense matrix.
    let w = wilkinson(20);
    run::<T>(&w, 41, Triangle::Lower);
    run::<T>(&rotated(&mut rng, &w, 41), 41, Triangle::Upper);
    // Glued W21+: three copies joined by 1e-10 (clusters of six nearly equal eigenvalues),
    // and four joined by 1e-5.
    for (copies, glue) in [(3, 1e-10), (4, 1e-5)] {
        let (t, n) = glued(10, copies, glue);
        run::<T>(&t, n, Triangle::Lower);
        run::<T>(&rotated(&mut rng, &t, n), n, Triangle::Lower);
    }
}

pub fn ill_conditioned<T: Float>() {
    let mut rng = Rng::new(33);
    let n = 67;
    // Graded: 1 down to 1e-11, signs alternating; and eigenvalues in a tight band.
    let graded: Vec<f64> = (0..n)
        .map(|k| if k % 2 == 0 { 1.0 } else { -1.0 } * 10f64.powf(-(k as f64) / 6.0))
        .collect();
    run::<T>(&r::with_eigenvalues(&mut rng, &graded), n, Triangle::Lower);
    let band: Vec<f64> = (0..n).map(|k| 1.0 + k as f64 * 1e-6).collect();
    run::<T>(&r::with_eigenvalues(&mut rng, &band), n, Triangle::Upper);
}

/// Graded spectra long enough for runs of gaps just under 10 eps ||T||_1: dstein's push of
/// close shifts apart chained through such a run and carried shifts past the next
/// eigenvalue (f32, 1 down to 1e-6 over 200: residual 39 n eps ||T|| on a CPU port of
/// the kernel, 3,000 eps ||T|| in one column; the polar SVD's graded 40 x 40 missed its
/// reconstruction bound through it). Positive and with alternating signs.
pub fn graded_runs<T: Float>() {
    let mut rng = Rng::new(35);
    let floor = if T::DTYPE == gpuarray::DType::F64 {
        1e-14
    } else {
        1e-6
    };
    for (n, signs) in [(200, false), (120, true)] {
        let ev: Vec<f64> = (0..n)
            .map(|k| {
                let s = if signs && k % 2 == 1 { -1.0 } else { 1.0 };
                s * f64::powf(floor, k as f64 / (n - 1) as f64)
            })
            .collect();
        run::<T>(&r::with_eigenvalues(&mut rng, &ev), n, Triangle::Lower);
    }
}

pub fn stacks_and_views<T: Float>() {
    let mut rng = Rng::new(34);
    let d = dev();
    let n = 41;
    let (a, x) = upload::<T>(d, &rng.vec(6 * n * n, -1.0, 1.0), &[2, 3, n, n]);
    let (w, v) = eigh(&a, Triangle::Lower).unwrap();
    assert_eq!((w.shape(), v.shape()), (&[2, 3, n][..], &[2, 3, n, n][..]));
    check_eigh::<T>(&x, n, Triangle::Lower, &w, &v);
    // Transposed: A^T's lower triangle is A's upper.
    let (a, x) = upload::<T>(d, &rng.vec(n * n, -1.0, 1.0), &[n, n]);
    let (w, v) = eigh(&a.t(), Triangle::Lower).unwrap();
    check_eigh::<T>(&r::transpose(&x, n, n), n, Triangle::Lower, &w, &v);
    // Strided: every other row and column of 2 x 76 x 76.
    let m = 76;
    let (big, xb) = upload::<T>(d, &rng.vec(2 * m * m, -1.0, 1.0), &[2, m, m]);
    let s = big
        .slice([
            Slice::from(..),
            Slice::from(..).step(2),
            Slice::from(1..).step(2),
        ])
        .unwrap();
    let k = m / 2;
    let xs: Vec<f64> = (0..2 * k * k)
        .map(|e| {
            let (b, i, j) = (e / (k * k), (e / k) % k, e % k);
            xb[b * m * m + 2 * i * m + 2 * j + 1]
        })
        .collect();
    let (w, v) = eigh(&s, Triangle::Upper).unwrap();
    check_eigh::<T>(&xs, k, Triangle::Upper, &w, &v);
}

pub fn not_finite<T: Float>() {
    let d = dev();
    let n = 37;
    for bad in [T::NAN, T::INFINITY, T::NEG_INFINITY] {
        let mut v = vec![T::from_f64(0.25); n * n];
        v[5 * n + 3] = bad;
        let a = d.from_slice(&v, [n, n]).unwrap();
        // No hang; NaN values and vectors.
        let (w, vv) = eigh(&a, Triangle::Lower).unwrap();
        assert!(host(&w).iter().all(|x| x.is_nan()));
        assert!(host(&vv).iter().any(|x| x.is_nan()));
        // The upper triangle does not hold it.
        let (w, vv) = eigh(&a, Triangle::Upper).unwrap();
        let x: Vec<f64> = v.iter().map(|t| t.to_f64()).collect();
        check_eigh::<T>(&x, n, Triangle::Upper, &w, &vv);
    }
}

per_dtype! {
    [f32_: f32, f64_: f64] => {
        eigh_tridiag_sizes => sizes::<T>();
        eigh_tridiag_degenerate => degenerate::<T>();
        eigh_tridiag_ill_conditioned => ill_conditioned::<T>();
        eigh_tridiag_graded_runs => graded_runs::<T>();
        eigh_tridiag_stacks_and_views => stacks_and_views::<T>();
        eigh_tridiag_not_finite => not_finite::<T>();
    }
}
