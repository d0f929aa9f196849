//! The blocked tridiagonal reduction (src/linalg/spectral/sytrd.rs, panels of NB = 32
//! columns) under eigh and eigvalsh, at the panels' edges: n - 1 reflectors one panel
//! exactly (33), one past (34, 35: a trailing product of 2 and 3 rows), two panels and a
//! part (65, 66, 2 NB + 3 = 67), a prime past one workgroup (257), a stack of 3 (its
//! matrices each another spectrum), both triangles, a transposed view and graded spectra;
//! 560 (its columns with n - k > 512 reduced by two dispatches each, the rest by one, a
//! panel holding both) against known eigenvalues.
//! Eigenvalues within main.rs's 20 n eps ||A||_F of the f64 reference; eigh's vectors by
//! main.rs's `check_eigh` (eigen-residual within 20 n eps, orthogonality within 40 n eps).

use super::common::{dev, host, upload, Rng};
use super::reference as r;
use super::{check_eigh, symmetric, tol};
use gpuarray::linalg::{eigh, eigvalsh, Triangle};
use gpuarray::{Array, Float};

/// eigvalsh of the stack `a` (count matrices n x n, `x` as read) through `uplo` against the
/// reference.
#[track_caller]
fn values<T: Float>(x: &[f64], n: usize, uplo: Triangle, a: &Array<T>) {
    let w = host(&eigvalsh(a, uplo).unwrap());
    let count = x.len() / (n * n);
    assert_eq!(w.len(), count * n);
    for b in 0..count {
        let s = symmetric(&x[b * n * n..(b + 1) * n * n], n, uplo);
        let wr = r::eigvalsh(&s, n);
        let tl = tol::<T>(n) * r::fro(&s).max(f64::MIN_POSITIVE);
        for k in 0..n {
            let got = w[b * n + k];
            assert!(
                (got - wr[k]).abs() <= tl,
                "n {n} matrix {b} {uplo:?}: w[{k}] = {got} against {} (tolerance {tl:e})",
                wr[k]
            );
        }
    }
}

pub fn panel_edges<T: Float>() {
    let mut rng = Rng::new(321);
    for n in [33, 34, 35, 65, 66, 67] {
        let (a, x) = upload::<T>(dev(), &rng.vec(n * n, -1.0, 1.0), &[n, n]);
        for uplo in [Triangle::Lower, Triangle::Upper] {
            values::<T>(&x, n, uplo, &a);
            let (w, v) = eigh(&a, uplo).unwrap();
            check_eigh::<T>(&x, n, uplo, &w, &v);
        }
    }
}

pub fn past_one_workgroup<T: Float>() {
    let mut rng = Rng::new(322);
    let n = 257;
    let (a, x) = upload::<T>(dev(), &rng.vec(n * n, -1.0, 1.0), &[n, n]);
    values::<T>(&x, n, Triangle::Upper, &a);
    let (w, v) = eigh(&a, Triangle::Lower).unwrap();
    check_eigh::<T>(&x, n, Triangle::Lower, &w, &v);
}

pub fn stack_of_three<T: Float>() {
    let mut rng = Rng::new(323);
    let n = 67;
    // Three spectra: random, graded to 1e-8, and one eigenvalue repeated 40 times.
    let mut x = rng.vec(n * n, -1.0, 1.0);
    let graded: Vec<f64> = (0..n)
        .map(|k| 10f64.powf(-8.0 * k as f64 / n as f64))
        .collect();
    let repeated: Vec<f64> = (0..n)
        .map(|k| if k < 40 { 2.0 } else { k as f64 })
        .collect();
    x.extend(r::with_eigenvalues(&mut rng, &graded));
    x.extend(r::with_eigenvalues(&mut rng, &repeated));
    let (a, x) = upload::<T>(dev(), &x, &[3, n, n]);
    for uplo in [Triangle::Lower, Triangle::Upper] {
        values::<T>(&x, n, uplo, &a);
        let (w, v) = eigh(&a, uplo).unwrap();
        assert_eq!((w.shape(), v.shape()), (&[3, n][..], &[3, n, n][..]));
        check_eigh::<T>(&x, n, uplo, &w, &v);
    }
}

pub fn transposed_view<T: Float>() {
    let mut rng = Rng::new(324);
    let n = 70;
    let (a, x) = upload::<T>(dev(), &rng.vec(n * n, -1.0, 1.0), &[n, n]);
    // The transpose's lower triangle is the input's upper one.
    let at = a.t();
    values::<T>(&r::transpose(&x, n, n), n, Triangle::Lower, &at);
    let (w, v) = eigh(&at, Triangle::Lower).unwrap();
    check_eigh::<T>(&r::transpose(&x, n, n), n, Triangle::Lower, &w, &v);
}

pub fn two_kernels_and_one<T: Float>() {
    let mut rng = Rng::new(325);
    let n = 560;
    // Known eigenvalues (no reference solver at this size): random in [-1, 1] and a
    // cluster of 50 at 0.25.
    let mut ev: Vec<f64> = (0..n)
        .map(|k| {
            if k < 50 {
                0.25
            } else {
                rng.vec(1, -1.0, 1.0)[0]
            }
        })
        .collect();
    let (a, x) = upload::<T>(dev(), &r::with_eigenvalues(&mut rng, &ev), &[n, n]);
    ev.sort_by(f64::total_cmp);
    let norm = r::fro(&x);
    let tl = tol::<T>(n) * norm;
    for uplo in [Triangle::Lower, Triangle::Upper] {
        let w = host(&eigvalsh(&a, uplo).unwrap());
        for k in 0..n {
            assert!(
                (w[k] - ev[k]).abs() <= tl,
                "w[{k}] = {} against {}",
                w[k],
                ev[k]
            );
        }
    }
    let (w, v) = eigh(&a, Triangle::Lower).unwrap();
    let (w, v) = (host(&w), host(&v));
    let av = r::matmul(&x, &v, n, n, n);
    let mut res = 0.0;
    for i in 0..n {
        for k in 0..n {
            res += (av[i * n + k] - v[i * n + k] * w[k]).powi(2);
        }
    }
    let res = res.sqrt() / norm;
    assert!(res <= tol::<T>(n), "eigen-residual {res:e}");
    let orth = r::orthogonality(&v, n, n);
    assert!(orth <= super::orth_tol::<T>(n), "orthogonality {orth:e}");
}

per_dtype! {
    [f32_: f32, f64_: f64] => {
        sytrd_panel_edges => panel_edges::<T>();
        sytrd_past_one_workgroup => past_one_workgroup::<T>();
        sytrd_stack_of_three => stack_of_three::<T>();
        sytrd_transposed_view => transposed_view::<T>();
        sytrd_two_kernels_and_one => two_kernels_and_one::<T>();
    }
}
