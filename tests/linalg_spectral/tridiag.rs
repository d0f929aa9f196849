//! eigvalsh from n = 33 on, the tridiagonal route (Householder reduction, Sturm bisection),
//! against the f64 reference's eigenvalues within 20 n eps ||A||_F (main.rs's bound) and
//! against eigh's (one-sided Jacobi) within the same. Sizes at the route's edge (33), primes,
//! past one workgroup (256); clustered, repeated, graded and wide-range spectra, zero,
//! identity, diagonal, large entries, stacks, transposed and strided views, NaN and inf.

use super::common::{dev, host, upload, Rng};
use super::reference as r;
use super::{symmetric, tol};
use gpuarray::linalg::{eigh, eigvalsh, Triangle};
use gpuarray::{Array, Float, Slice};

/// eigvalsh of the stack `a` (count matrices n x n, `x` as read) through `uplo` against the
/// reference, ascending.
#[track_caller]
fn check<T: Float>(x: &[f64], n: usize, uplo: Triangle, a: &Array<T>) {
    let w = host(&eigvalsh(a, uplo).unwrap());
    let count = x.len() / (n * n);
    assert_eq!(w.len(), count * n);
    for b in 0..count {
        let s = symmetric(&x[b * n * n..(b + 1) * n * n], n, uplo);
        let wr = r::eigvalsh(&s, n);
        let tl = tol::<T>(n) * r::fro(&s).max(f64::MIN_POSITIVE);
        for k in 0..n {
            assert!(
                (w[b * n + k] - wr[k]).abs() <= tl,
                "n {n} matrix {b}: w[{k}] = {} against {} (tolerance {tl:e})",
                w[b * n + k],
                wr[k]
            );
            if k > 0 {
                assert!(w[b * n + k] >= w[b * n + k - 1], "not ascending at {k}");
            }
        }
    }
}

pub fn sizes<T: Float>() {
    let mut rng = Rng::new(11);
    for n in [33, 47, 64, 97, 131, 257] {
        let (a, x) = upload::<T>(dev(), &rng.vec(n * n, -1.0, 1.0), &[n, n]);
        for uplo in [Triangle::Lower, Triangle::Upper] {
            check::<T>(&x, n, uplo, &a);
        }
    }
    // Beside eigh's values (one-sided Jacobi).
    let n = 40;
    let (a, x) = upload::<T>(dev(), &rng.vec(n * n, -1.0, 1.0), &[n, n]);
    let (w, _) = eigh(&a, Triangle::Lower).unwrap();
    let tl = tol::<T>(n) * r::fro(&x);
    let wv = host(&eigvalsh(&a, Triangle::Lower).unwrap());
    super::common::assert_close(&wv, &host(&w), tl, 0.0);
}

pub fn spectra<T: Float>() {
    let mut rng = Rng::new(12);
    let d = dev();
    let n = 70;
    let repeated: Vec<f64> = (0..n).map(|k| [1.0, 1.0, 1.0, -2.0][k % 4]).collect();
    let tight: Vec<f64> = (0..n)
        .map(|k| {
            if k < 10 {
                1.0 + k as f64 * 1e-7
            } else {
                k as f64
            }
        })
        .collect();
    let graded: Vec<f64> = (0..n).map(|k| 10f64.powf(-(k as f64) / 6.0)).collect();
    let signed: Vec<f64> = (0..n)
        .map(|k| if k % 2 == 0 { 1e3 } else { -1e-3 } * (k + 1) as f64)
        .collect();
    for ev in [repeated, tight, graded, signed] {
        let (a, x) = upload::<T>(d, &r::with_eigenvalues(&mut rng, &ev), &[n, n]);
        check::<T>(&x, n, Triangle::Lower, &a);
    }
    // Zero, identity, diagonal (T already diagonal), large entries (scaled reflector norms).
    let (z, x) = upload::<T>(d, &vec![0.0; 40 * 40], &[40, 40]);
    check::<T>(&x, 40, Triangle::Lower, &z);
    assert_eq!(host(&eigvalsh(&z, Triangle::Lower).unwrap()), vec![0.0; 40]);
    let i = d.eye::<T>(45).unwrap();
    assert_eq!(host(&eigvalsh(&i, Triangle::Upper).unwrap()), vec![1.0; 45]);
    let n = 50;
    let mut dm = vec![0.0; n * n];
    for k in 0..n {
        dm[k * (n + 1)] = ((k * 37) % 11) as f64 - 5.0;
    }
    let (a, x) = upload::<T>(d, &dm, &[n, n]);
    check::<T>(&x, n, Triangle::Upper, &a);
    let big: Vec<f64> = rng
        .vec(40 * 40, -1.0, 1.0)
        .iter()
        .map(|v| v * 1e15)
        .collect();
    let (a, x) = upload::<T>(d, &big, &[40, 40]);
    check::<T>(&x, 40, Triangle::Lower, &a);
}

pub fn stacks_and_views<T: Float>() {
    let mut rng = Rng::new(13);
    let d = dev();
    let n = 41;
    let (a, x) = upload::<T>(d, &rng.vec(6 * n * n, -1.0, 1.0), &[2, 3, n, n]);
    assert_eq!(eigvalsh(&a, Triangle::Lower).unwrap().shape(), &[2, 3, n]);
    check::<T>(&x, n, Triangle::Lower, &a.reshape([6, n, n]).unwrap());
    // Transposed: A^T's lower triangle is A's upper.
    let (a, x) = upload::<T>(d, &rng.vec(n * n, -1.0, 1.0), &[n, n]);
    check::<T>(&r::transpose(&x, n, n), n, Triangle::Lower, &a.t());
    // Strided: every other row and column of 72 x 72.
    let m = 72;
    let (a, x) = upload::<T>(d, &rng.vec(m * m, -1.0, 1.0), &[m, m]);
    let s = a
        .slice([Slice::from(..).step(2), Slice::from(1..).step(2)])
        .unwrap();
    let k = m / 2;
    let xs: Vec<f64> = (0..k * k)
        .map(|e| x[(2 * (e / k)) * m + 2 * (e % k) + 1])
        .collect();
    check::<T>(&xs, k, Triangle::Upper, &s);
}

pub fn not_finite<T: Float>() {
    let d = dev();
    for bad in [T::NAN, T::INFINITY, T::NEG_INFINITY] {
        let n = 40;
        let mut v = vec![T::from_f64(0.25); n * n];
        v[5 * n + 3] = bad;
        let a = d.from_slice(&v, [n, n]).unwrap();
        let w = host(&eigvalsh(&a, Triangle::Lower).unwrap());
        assert!(w.iter().all(|x| x.is_nan()), "{w:?}");
        // The upper triangle does not hold it: 0.25 * 40 and zeros.
        let w = host(&eigvalsh(&a, Triangle::Upper).unwrap());
        let x: Vec<f64> = v.iter().map(|t| t.to_f64()).collect();
        let x: Vec<f64> = symmetric(&x, n, Triangle::Upper);
        let wr = r::eigvalsh(&x, n);
        super::common::assert_close(&w, &wr, tol::<T>(n) * r::fro(&x), 0.0);
    }
}

/// An order where the reduction's fused step holds several columns an invocation and
/// updates several rows a workgroup (n = 520: 4 columns of 256 invocations, up to 3 rows),
/// in a stack of two (the second the first plus I): eigvalsh through both triangles
/// against the known eigenvalues (Q diag(d) Q^T, a cluster of equal ones among them)
/// within 20 n eps ||A||_F, and eigh's residual ||A V - V diag(w)||_F and orthogonality
/// ||V^T V - I|| within main.rs's bounds (the first matrix: the f64 reference's products
/// are what this test's time goes to).
pub fn wide<T: Float>() {
    let mut rng = Rng::new(13);
    let n = 520;
    let d: Vec<f64> = (0..n)
        .map(|k| match k % 7 {
            0 => 0.5,
            _ => (k as f64 / n as f64) * 4.0 - 2.0,
        })
        .collect();
    let s = r::with_eigenvalues(&mut rng, &d);
    let mut x = s.clone();
    x.extend(
        s.iter()
            .enumerate()
            .map(|(e, v)| v + f64::from(u8::from(e % (n + 1) == 0))),
    );
    let mut known = d;
    known.sort_by(|p, q| p.partial_cmp(q).unwrap());
    let (a, _) = upload::<T>(dev(), &x, &[2, n, n]);
    for uplo in [Triangle::Lower, Triangle::Upper] {
        let w = host(&eigvalsh(&a, uplo).unwrap());
        for b in 0..2 {
            let tl = tol::<T>(n) * r::fro(&x[b * n * n..(b + 1) * n * n]);
            let want: Vec<f64> = known.iter().map(|v| v + b as f64).collect();
            super::common::assert_close(&w[b * n..(b + 1) * n], &want, tl, 0.0);
        }
    }
    let a0 = a.index_axis(0, 0).unwrap();
    let (w, v) = eigh(&a0, Triangle::Lower).unwrap();
    let (w, v) = (host(&w), host(&v));
    let norm = r::fro(&s);
    super::common::assert_close(&w, &known, tol::<T>(n) * norm, 0.0);
    let av = r::matmul(&s, &v, n, n, n);
    let res = (0..n * n)
        .map(|e| (av[e] - v[e] * w[e % n]).powi(2))
        .sum::<f64>()
        .sqrt();
    assert!(res <= tol::<T>(n) * norm, "eigen-residual {res:e}");
    let orth = r::orthogonality(&v, n, n);
    assert!(orth <= super::orth_tol::<T>(n), "orthogonality {orth:e}");
}

per_dtype! {
    [f32_: f32, f64_: f64] => {
        tridiag_random_sizes => sizes::<T>();
        tridiag_past_one_column_group => wide::<T>();
        tridiag_spectra => spectra::<T>();
        tridiag_stacks_and_views => stacks_and_views::<T>();
        tridiag_not_finite => not_finite::<T>();
    }
}
