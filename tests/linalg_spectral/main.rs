//! eigh, eigvalsh, svd, svdvals against f64 CPU references (reference.rs: Jacobi in f64),
//! per dtype (f32, f64): eigen-residuals ||A V - V W|| / ||A|| and reconstruction
//! ||A - U S Vh|| / ||A|| within 20 max(M, N, 4) eps, orthogonality ||V^T V - I|| within 40
//! max(M, N, 4) eps, and the values within 20 max(M, N, 4) eps ||A||_F of the reference's. Inputs: random, ill-conditioned, rank-
//! deficient, zero, identity, diagonal, repeated eigenvalues, 1x1, 0x0, wide and tall, a
//! stack of 10,000 tiny matrices, transposed and strided views, NaN and inf; bad input.
//! derived.rs: lstsq, pinv, matrix_rank, cond, norm.

#[macro_use]
#[path = "../common/mod.rs"]
mod common;
mod derived;
mod eig_small;
mod polar;
mod reference;
mod svd_small;
mod tridiag;
mod tridiag_vectors;

use common::{dev, host, upload, Rng};
use gpuarray::linalg::{eigh, eigvalsh, svd, svdvals, Triangle};
use gpuarray::{f16, Array, Error, Float, Real, Slice};
use reference as r;

pub fn eps<T: Float>() -> f64 {
    if T::DTYPE == gpuarray::DType::F64 {
        f64::EPSILON
    } else {
        f32::EPSILON as f64
    }
}

/// The tolerance of the checks for matrices of largest extent `n`.
pub fn tol<T: Float>(n: usize) -> f64 {
    20.0 * n.max(4) as f64 * eps::<T>()
}

/// The tolerance of orthogonality, 2 times [`tol`]: the rounds of pairs of blocks
/// (`block_round`, from 64 rows) rotate each vector about twice as often per sweep as the
/// rounds of pairs (whose errors stay within 10 n eps here), and their vectors measured up
/// to 25 n eps (f64, graded 72 x 64; eigen-residuals up to 11 n eps).
pub fn orth_tol<T: Float>(n: usize) -> f64 {
    2.0 * tol::<T>(n)
}

/// The symmetric matrix eigh sees in `a` (n x n) through triangle `uplo`.
fn symmetric(a: &[f64], n: usize, uplo: Triangle) -> Vec<f64> {
    let mut s = vec![0.0; n * n];
    for i in 0..n {
        for j in 0..n {
            let (lo, hi) = (i.min(j), i.max(j));
            s[i * n + j] = match uplo {
                Triangle::Lower => a[hi * n + lo],
                Triangle::Upper => a[lo * n + hi],
            };
        }
    }
    s
}

/// Checks eigh's (w, v) of the stack `a` (count matrices n x n, as f64 read from the input)
/// read through `uplo`.
#[track_caller]
fn check_eigh<T: Float>(a: &[f64], n: usize, uplo: Triangle, w: &Array<T>, v: &Array<T>) {
    let (w, v) = (host(w), host(v));
    let count = a.len().checked_div(n * n).unwrap_or(0);
    let tl = tol::<T>(n);
    for b in 0..count {
        let s = symmetric(&a[b * n * n..(b + 1) * n * n], n, uplo);
        let wb = &w[b * n..(b + 1) * n];
        let vb = &v[b * n * n..(b + 1) * n * n];
        let norm = r::fro(&s).max(f64::MIN_POSITIVE);
        let av = r::matmul(&s, vb, n, n, n);
        let mut res = 0.0;
        for i in 0..n {
            for k in 0..n {
                let d = av[i * n + k] - vb[i * n + k] * wb[k];
                res += d * d;
            }
        }
        let res = res.sqrt() / norm;
        assert!(res <= tl, "matrix {b}: eigen-residual {res:e} > {tl:e}");
        let orth = r::orthogonality(vb, n, n);
        let to = orth_tol::<T>(n);
        assert!(orth <= to, "matrix {b}: orthogonality {orth:e} > {to:e}");
        let wr = r::eigvalsh(&s, n);
        for k in 0..n {
            assert!(
                (wb[k] - wr[k]).abs() <= tl * norm,
                "matrix {b}: w[{k}] = {} against {} (tolerance {:e})",
                wb[k],
                wr[k],
                tl * norm
            );
        }
    }
}

/// Checks svd's (u, s, vh) of the stack `a` (count matrices m x n).
#[track_caller]
fn check_svd<T: Float>(a: &[f64], m: usize, n: usize, full: bool, out: &gpuarray::linalg::Svd<T>) {
    check_svd_scaled(a, m, n, full, out, 1.0);
}

/// [`check_svd`] of the results for `scale` times `a` (a power of two): the singular values
/// divided by it.
#[track_caller]
fn check_svd_scaled<T: Float>(
    a: &[f64],
    m: usize,
    n: usize,
    full: bool,
    out: &gpuarray::linalg::Svd<T>,
    scale: f64,
) {
    let k = m.min(n);
    let (ur, vr) = if full { (m, n) } else { (k, k) };
    let u = host(out.u.as_ref().unwrap());
    let s: Vec<f64> = host(&out.s).iter().map(|x| x / scale).collect();
    let vh = host(out.vh.as_ref().unwrap());
    let count = a.len().checked_div(m * n).unwrap_or(out.s.len() / k.max(1));
    assert_eq!(out.u.as_ref().unwrap().shape()[out.s.ndim() - 1..], [m, ur]);
    assert_eq!(
        out.vh.as_ref().unwrap().shape()[out.s.ndim() - 1..],
        [vr, n]
    );
    let tl = tol::<T>(m.max(n));
    for b in 0..count {
        let ab = &a[b * m * n..(b + 1) * m * n];
        let ub = &u[b * m * ur..(b + 1) * m * ur];
        let sb = &s[b * k..(b + 1) * k];
        let vb = &vh[b * vr * n..(b + 1) * vr * n];
        let norm = r::fro(ab).max(f64::MIN_POSITIVE);
        // U[:, :k] diag(s) Vh[:k, :].
        let mut us = vec![0.0; m * k];
        for i in 0..m {
            for j in 0..k {
                us[i * k + j] = ub[i * ur + j] * sb[j];
            }
        }
        let rec = r::matmul(&us, &vb[..k * n], m, k, n);
        let err = rec
            .iter()
            .zip(ab)
            .map(|(x, y)| (x - y).powi(2))
            .sum::<f64>()
            .sqrt()
            / norm;
        assert!(err <= tl, "matrix {b}: reconstruction {err:e} > {tl:e}");
        let to = orth_tol::<T>(m.max(n));
        let ou = r::orthogonality(ub, m, ur);
        assert!(ou <= to, "matrix {b}: U orthogonality {ou:e} > {to:e}");
        let ov = r::orthogonality(&r::transpose(vb, vr, n), n, vr);
        assert!(ov <= to, "matrix {b}: Vh orthogonality {ov:e} > {to:e}");
        check_values::<T>(ab, m, n, sb, b);
    }
}

#[track_caller]
fn check_values<T: Float>(ab: &[f64], m: usize, n: usize, sb: &[f64], b: usize) {
    let norm = r::fro(ab).max(f64::MIN_POSITIVE);
    let tl = tol::<T>(m.max(n));
    let sr = r::svdvals(ab, m, n);
    for j in 0..sr.len() {
        assert!(
            (sb[j] - sr[j]).abs() <= tl * norm,
            "matrix {b}: s[{j}] = {} against {}",
            sb[j],
            sr[j]
        );
        if j > 0 {
            assert!(sb[j] <= sb[j - 1], "matrix {b}: not descending at {j}");
        }
    }
}

fn random_square<T: Float>(rng: &mut Rng, count: usize, n: usize) -> (Array<T>, Vec<f64>) {
    let mut shape = vec![count, n, n];
    if count == 1 {
        shape.remove(0);
    }
    upload::<T>(dev(), &rng.vec(count * n * n, -1.0, 1.0), &shape)
}

fn eigh_sizes<T: Float>() {
    let mut rng = Rng::new(1);
    for n in [1, 2, 3, 8, 17, 32, 33, 40, 64] {
        // Random in both triangles: each triangle names another symmetric matrix.
        let (a, x) = random_square::<T>(&mut rng, 1, n);
        for uplo in [Triangle::Lower, Triangle::Upper] {
            let (w, v) = eigh(&a, uplo).unwrap();
            assert_eq!(w.shape(), &[n]);
            check_eigh::<T>(&x, n, uplo, &w, &v);
            let wv = host(&eigvalsh(&a, uplo).unwrap());
            common::assert_close(&wv, &host(&w), tol::<T>(n) * r::fro(&x), 0.0);
        }
    }
}

fn eigh_special<T: Float>() {
    let mut rng = Rng::new(2);
    // Zero, identity, diagonal, repeated eigenvalues (a small and a large matrix).
    let d = dev();
    let z = d.zeros::<T>([5, 5]).unwrap();
    let (w, v) = eigh(&z, Triangle::Lower).unwrap();
    check_eigh::<T>(&[0.0; 25], 5, Triangle::Lower, &w, &v);
    let i = d.eye::<T>(6).unwrap();
    let (w, v) = eigh(&i, Triangle::Lower).unwrap();
    assert_eq!(host(&w), vec![1.0; 6]);
    check_eigh::<T>(&host(&i), 6, Triangle::Lower, &w, &v);
    let diag: Vec<f64> = (0..7)
        .map(|k| [3.0, -1.0, 0.5, 7.0, -2.0, 0.0, 1.0][k])
        .collect();
    let mut dm = vec![0.0; 49];
    for k in 0..7 {
        dm[k * 8] = diag[k];
    }
    let (a, x) = upload::<T>(d, &dm, &[7, 7]);
    let (w, v) = eigh(&a, Triangle::Lower).unwrap();
    check_eigh::<T>(&x, 7, Triangle::Lower, &w, &v);
    for n in [12, 36] {
        let ev: Vec<f64> = (0..n).map(|k| [1.0, 1.0, 1.0, -2.0][k % 4]).collect();
        let (a, x) = upload::<T>(d, &r::with_eigenvalues(&mut rng, &ev), &[n, n]);
        let (w, v) = eigh(&a, Triangle::Lower).unwrap();
        check_eigh::<T>(&x, n, Triangle::Lower, &w, &v);
    }
    // 0x0, a stack with an empty batch, a stack of 2 x 3.
    let e = d.zeros::<T>([0, 0]).unwrap();
    let (w, v) = eigh(&e, Triangle::Lower).unwrap();
    assert_eq!((w.shape(), v.shape()), (&[0usize][..], &[0usize, 0][..]));
    let e = d.zeros::<T>([0, 3, 3]).unwrap();
    assert_eq!(eigvalsh(&e, Triangle::Lower).unwrap().shape(), &[0, 3]);
    let (a, x) = upload::<T>(d, &rng.vec(6 * 25, -1.0, 1.0), &[2, 3, 5, 5]);
    let (w, v) = eigh(&a, Triangle::Lower).unwrap();
    assert_eq!(
        (w.shape(), v.shape()),
        (&[2usize, 3, 5][..], &[2usize, 3, 5, 5][..])
    );
    check_eigh::<T>(&x, 5, Triangle::Lower, &w, &v);
}

fn tiny_stack<T: Float>() {
    let mut rng = Rng::new(3);
    let (a, x) = random_square::<T>(&mut rng, 10_000, 3);
    let (w, v) = eigh(&a, Triangle::Lower).unwrap();
    check_eigh::<T>(&x, 3, Triangle::Lower, &w, &v);
    let out = svd(&a, true, true).unwrap();
    check_svd::<T>(&x, 3, 3, true, &out);
}

fn views<T: Float>() {
    let mut rng = Rng::new(4);
    let d = dev();
    // Transposed: eigh of A^T reading its lower triangle (A's upper).
    let n = 9;
    let (a, x) = upload::<T>(d, &rng.vec(n * n, -1.0, 1.0), &[n, n]);
    let (w, v) = eigh(&a.t(), Triangle::Lower).unwrap();
    check_eigh::<T>(&r::transpose(&x, n, n), n, Triangle::Lower, &w, &v);
    // Strided: every other row and column of a 2 x 14 x 14 stack.
    let (big, xb) = upload::<T>(d, &rng.vec(2 * 14 * 14, -1.0, 1.0), &[2, 14, 14]);
    let s = big
        .slice([
            Slice::from(..),
            Slice::from(..).step(2),
            Slice::from(1..).step(2),
        ])
        .unwrap();
    let hs = common::Host::new(&[2, 14, 14], xb).slice(&[(0, 2, 1), (0, 14, 2), (1, 14, 2)]);
    let (w, v) = eigh(&s, Triangle::Upper).unwrap();
    check_eigh::<T>(&hs.data, 7, Triangle::Upper, &w, &v);
    let out = svd(&s, false, true).unwrap();
    check_svd::<T>(&hs.data, 7, 7, false, &out);
    // SVD of a transposed tall matrix (wide).
    let (t, xt) = upload::<T>(d, &rng.vec(40 * 11, -1.0, 1.0), &[40, 11]);
    let out = svd(&t.t(), true, true).unwrap();
    check_svd::<T>(&r::transpose(&xt, 40, 11), 11, 40, true, &out);
}

fn svd_shapes<T: Float>() {
    let mut rng = Rng::new(5);
    let shapes = [
        (1, 1),
        (5, 3),
        (3, 5),
        (8, 8),
        (17, 5),
        (5, 17),
        (33, 33),
        (40, 20),
        (20, 40),
        (50, 7),
        // Pairs of blocks of rows (block_round): square, tall, wide.
        (64, 64),
        (96, 80),
        (80, 96),
    ];
    for (m, n) in shapes {
        let (a, x) = upload::<T>(dev(), &rng.vec(m * n, -1.0, 1.0), &[m, n]);
        for full in [false, true] {
            let out = svd(&a, full, true).unwrap();
            check_svd::<T>(&x, m, n, full, &out);
        }
        let s = host(&svdvals(&a).unwrap());
        check_values::<T>(&x, m, n, &s, 0);
        let no_uv = svd(&a, true, false).unwrap();
        assert!(no_uv.u.is_none() && no_uv.vh.is_none());
        common::assert_close(&host(&no_uv.s), &s, tol::<T>(m.max(n)) * r::fro(&x), 0.0);
    }
}

fn svd_special<T: Float>() {
    let mut rng = Rng::new(6);
    let d = dev();
    // Zero (every vector completed), identity, rank-deficient (rank 3 of 9 x 6 and 6 x 9).
    for (m, n) in [(4, 3), (3, 4), (36, 34)] {
        let z = d.zeros::<T>([m, n]).unwrap();
        let out = svd(&z, true, true).unwrap();
        check_svd::<T>(&vec![0.0; m * n], m, n, true, &out);
    }
    let i = d.eye::<T>(5).unwrap();
    let out = svd(&i, true, true).unwrap();
    assert_eq!(host(&out.s), vec![1.0; 5]);
    for (m, n) in [(9, 6), (6, 9), (40, 35)] {
        let b = rng.vec(m * 3, -1.0, 1.0);
        let c = rng.vec(3 * n, -1.0, 1.0);
        let (a, x) = upload::<T>(d, &r::matmul(&b, &c, m, 3, n), &[m, n]);
        for full in [false, true] {
            let out = svd(&a, full, true).unwrap();
            check_svd::<T>(&x, m, n, full, &out);
        }
    }
    // Ill-conditioned: singular values graded from 1 to 1e-12 (f64) or 1e-5 (f32).
    let floor: f64 = if T::DTYPE == gpuarray::DType::F64 {
        1e-12
    } else {
        1e-5
    };
    for (m, n) in [(12, 10), (45, 40), (72, 64)] {
        let s: Vec<f64> = (0..n)
            .map(|k| floor.powf(k as f64 / (n - 1) as f64))
            .collect();
        let (a, x) = upload::<T>(d, &r::with_singular_values(&mut rng, m, n, &s), &[m, n]);
        let out = svd(&a, false, true).unwrap();
        check_svd::<T>(&x, m, n, false, &out);
        // eigh of the graded symmetric matrix too.
        let sym = r::with_eigenvalues(&mut rng, &s);
        let (a, x) = upload::<T>(d, &sym, &[n, n]);
        let (w, v) = eigh(&a, Triangle::Lower).unwrap();
        check_eigh::<T>(&x, n, Triangle::Lower, &w, &v);
    }
    // Empty matrices: NumPy's shapes, identity bases where full.
    for (m, n) in [(0, 0), (0, 3), (3, 0)] {
        let e = d.zeros::<T>([m, n]).unwrap();
        let out = svd(&e, true, true).unwrap();
        assert_eq!(out.s.shape(), &[0]);
        assert_eq!(out.u.as_ref().unwrap().shape(), &[m, m]);
        assert_eq!(out.vh.as_ref().unwrap().shape(), &[n, n]);
        assert_eq!(r::orthogonality(&host(out.vh.as_ref().unwrap()), n, n), 0.0);
        let out = svd(&e, false, true).unwrap();
        assert_eq!(out.u.unwrap().shape(), &[m, 0]);
        assert_eq!(out.vh.unwrap().shape(), &[0, n]);
    }
    // A stack of 2 x 2 wide matrices.
    let (a, x) = upload::<T>(d, &rng.vec(4 * 3 * 8, -1.0, 1.0), &[2, 2, 3, 8]);
    let out = svd(&a, false, true).unwrap();
    assert_eq!(out.s.shape(), &[2, 2, 3]);
    check_svd::<T>(&x, 3, 8, false, &out);
}

fn special_values<T: Float>() {
    let d = dev();
    for bad in [T::NAN, T::INFINITY] {
        for n in [4, 35] {
            let mut v = vec![T::from_f64(0.5); n * n];
            v[2 * n + 1] = bad; // below the diagonal: eigh's lower triangle reads it
            let a = d.from_slice(&v, [n, n]).unwrap();
            // No hang; NaN in the results (NumPy raises or gives NaN).
            let w = host(&eigvalsh(&a, Triangle::Lower).unwrap());
            assert!(w.iter().any(|x| x.is_nan()), "{w:?}");
            let s = host(&svdvals(&a).unwrap());
            assert!(s.iter().any(|x| !x.is_finite()), "{s:?}");
            let out = svd(&a, true, true).unwrap();
            assert!(host(&out.u.unwrap()).iter().any(|x| x.is_nan()));
        }
    }
}

fn bad_input<T: Float>() {
    let d = dev();
    let v = d.zeros::<T>([4]).unwrap();
    assert!(matches!(
        eigh(&v, Triangle::Lower),
        Err(Error::InvalidArgument { op: "eigh", .. })
    ));
    assert!(matches!(
        svd(&v, true, true),
        Err(Error::InvalidArgument { op: "svd", .. })
    ));
    let ns = d.zeros::<T>([2, 3, 4]).unwrap();
    assert!(matches!(
        eigvalsh(&ns, Triangle::Lower),
        Err(Error::NotSquare { op: "eigvalsh", .. })
    ));
    // The device is still usable.
    let a = d.eye::<T>(3).unwrap();
    assert_eq!(host(&svdvals(&a).unwrap()), vec![1.0; 3]);
}

per_dtype! {
    [f32_: f32, f64_: f64] => {
        eigh_random_sizes => eigh_sizes::<T>();
        eigh_special_matrices => eigh_special::<T>();
        stack_of_10000_tiny => tiny_stack::<T>();
        transposed_and_strided_views => views::<T>();
        svd_tall_wide_square => svd_shapes::<T>();
        svd_special_matrices => svd_special::<T>();
        nan_and_inf_do_not_hang => special_values::<T>();
        bad_input_is_typed => bad_input::<T>();
        eig_small_sizes_and_stacks => eig_small::sizes_and_stacks::<T>();
        eig_small_mixed_stack => eig_small::mixed_stack::<T>();
        eig_small_special_values_in_a_stack => eig_small::special_values_in_a_stack::<T>();
        svd_small_shapes_and_stacks => svd_small::shapes_and_stacks::<T>();
        svd_small_special_matrices => svd_small::special_matrices::<T>();
        svd_small_scaled => svd_small::scaled::<T>();
        svd_small_special_values_in_a_stack => svd_small::special_values_in_a_stack::<T>();
        svd_small_views => svd_small::views::<T>();
    }
}

#[test]
fn f16_is_refused() {
    require_dtype!(f16);
    let a = dev().eye::<f16>(3).unwrap();
    common::assert_unsupported(eigh(&a, Triangle::Lower), gpuarray::DType::F16);
    common::assert_unsupported(svdvals(&a), gpuarray::DType::F16);
    common::assert_unsupported(
        gpuarray::linalg::norm(&a, None, .., false),
        gpuarray::DType::F16,
    );
    // Still usable.
    let b = dev().eye::<f32>(2).unwrap();
    assert_eq!(host(&svdvals(&b).unwrap()), vec![1.0, 1.0]);
}

/// Real is needed by `host`; keep the import used in every configuration.
#[allow(dead_code)]
fn _real<T: Real>() {}
