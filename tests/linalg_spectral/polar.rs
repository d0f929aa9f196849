//! `polar` (QDWH) and the SVD's polar route (`svd_with(.., SvdMethod::Polar)`, which
//! `svd` takes from min(M, N) = 384 on) at sizes lavapipe runs quickly, against f64 CPU
//! references with main.rs's bounds: A = U H and A = U S Vh within 20 max(M, N, 4) eps
//! ||A||_F, orthogonality within 40 max(M, N, 4) eps, H symmetric with eigenvalues the
//! singular values of A (within 20 max(M, N, 4) eps ||A||_F, so positive semidefinite to
//! that bound). Inputs: random (1 x 1, primes, 33, 64, 100, a prime past 256 for the
//! values), tall, wide, stacks, transposed and strided views, ill-conditioned (1e-6 f32,
//! 1e-12 f64), rank-deficient, zero, identity, repeated singular values; NaN; bad input.

use super::common::{dev, host, upload, Rng};
use super::reference as r;
use super::{check_svd, check_values, orth_tol, tol};
use gpuarray::linalg::{polar, svd_with, svdvals, SvdMethod};
use gpuarray::{f16, Array, DType, Error, Float, Slice};

/// Checks polar's (u, h) of the stack `x` (count matrices m x n, as read): A = U H, H
/// symmetric with the singular values of A as eigenvalues, and U's columns (m >= n) or
/// rows (m < n) orthonormal where `full_rank`, else of norm at most 1 (the partial
/// isometry of a rank-deficient A).
#[track_caller]
fn check_polar<T: Float>(
    x: &[f64],
    m: usize,
    n: usize,
    u: &Array<T>,
    h: &Array<T>,
    full_rank: bool,
) {
    let (ud, hd) = (host(u), host(h));
    let count = x.len() / (m * n);
    assert_eq!(u.shape()[u.ndim() - 2..], [m, n]);
    assert_eq!(h.shape()[h.ndim() - 2..], [n, n]);
    assert_eq!(ud.len(), count * m * n);
    let tl = tol::<T>(m.max(n));
    for b in 0..count {
        let ab = &x[b * m * n..(b + 1) * m * n];
        let ub = &ud[b * m * n..(b + 1) * m * n];
        let hb = &hd[b * n * n..(b + 1) * n * n];
        let norm = r::fro(ab).max(f64::MIN_POSITIVE);
        let uh = r::matmul(ub, hb, m, n, n);
        let d: Vec<f64> = uh.iter().zip(ab).map(|(p, q)| p - q).collect();
        let err = r::fro(&d) / norm;
        assert!(
            err <= tl,
            "matrix {b}: ||A - U H|| / ||A|| = {err:e} > {tl:e}"
        );
        for i in 0..n {
            for j in 0..i {
                assert_eq!(hb[i * n + j], hb[j * n + i], "matrix {b}: H not symmetric");
            }
        }
        // H's eigenvalues: A's singular values (and zeros beyond min(m, n) when wide).
        let w = r::eigvalsh(hb, n);
        let mut want = r::svdvals(ab, m, n);
        want.resize(n, 0.0);
        want.reverse();
        for k in 0..n {
            assert!(
                (w[k] - want[k]).abs() <= tl * norm,
                "matrix {b}: eig(H)[{k}] = {} against sigma {}",
                w[k],
                want[k]
            );
        }
        // Orthonormal columns of U (tall) or of U^T (wide).
        let (q, rows, cols) = if m >= n {
            (ub.to_vec(), m, n)
        } else {
            (r::transpose(ub, m, n), n, m)
        };
        let to = orth_tol::<T>(m.max(n));
        if full_rank {
            let o = r::orthogonality(&q, rows, cols);
            assert!(o <= to, "matrix {b}: ||U^T U - I|| = {o:e} > {to:e}");
        } else {
            // Every column of norm at most 1 (to rounding).
            for j in 0..cols {
                let c: f64 = (0..rows).map(|i| q[i * cols + j].powi(2)).sum::<f64>();
                assert!(
                    c.sqrt() <= 1.0 + to,
                    "matrix {b}: column {j} of norm {}",
                    c.sqrt()
                );
            }
        }
    }
}

fn polar_shapes<T: Float>() {
    let mut rng = Rng::new(31);
    let d = dev();
    for (shape, m, n) in [
        (vec![1, 1], 1, 1),
        (vec![2, 2], 2, 2),
        (vec![7, 7], 7, 7),
        (vec![33, 33], 33, 33),
        (vec![41, 17], 41, 17),
        (vec![17, 41], 17, 41),
        (vec![3, 20, 20], 20, 20),
        (vec![2, 30, 11], 30, 11),
    ] {
        let len: usize = shape.iter().product();
        let (a, x) = upload::<T>(d, &rng.vec(len, -1.0, 1.0), &shape);
        let (u, h) = polar(&a).unwrap();
        assert_eq!(u.shape(), &shape[..]);
        check_polar::<T>(&x, m, n, &u, &h, true);
    }
    // A transposed view (wide) and a strided one.
    let (t, xt) = upload::<T>(d, &rng.vec(37 * 13, -1.0, 1.0), &[37, 13]);
    let (u, h) = polar(&t.t()).unwrap();
    check_polar::<T>(&r::transpose(&xt, 37, 13), 13, 37, &u, &h, true);
    let (big, xb) = upload::<T>(d, &rng.vec(26 * 26, -1.0, 1.0), &[26, 26]);
    let s = big
        .slice([Slice::from(..).step(2), Slice::from(1..).step(2)])
        .unwrap();
    let hs = super::common::Host::new(&[26, 26], xb).slice(&[(0, 26, 2), (1, 26, 2)]);
    let (u, h) = polar(&s).unwrap();
    check_polar::<T>(&hs.data, 13, 13, &u, &h, true);
}

/// Singular values graded from 1 down to `floor` (condition 1/floor).
fn graded(n: usize, floor: f64) -> Vec<f64> {
    (0..n)
        .map(|k| floor.powf(k as f64 / (n - 1).max(1) as f64))
        .collect()
}

fn ill_floor<T: Float>() -> f64 {
    if T::DTYPE == DType::F64 {
        1e-12
    } else {
        1e-6
    }
}

fn polar_special<T: Float>() {
    let mut rng = Rng::new(32);
    let d = dev();
    // Ill-conditioned: the smallest singular value ill_floor() (above eps ||A||_F).
    for (m, n) in [(40, 40), (50, 34)] {
        let s = graded(n, ill_floor::<T>());
        let (a, x) = upload::<T>(d, &r::with_singular_values(&mut rng, m, n, &s), &[m, n]);
        let (u, h) = polar(&a).unwrap();
        check_polar::<T>(&x, m, n, &u, &h, true);
    }
    // Rank-deficient (rank 3), zero: A = U H still, U a partial isometry.
    for (m, n) in [(35, 35), (40, 33), (12, 20)] {
        let b = rng.vec(m * 3, -1.0, 1.0);
        let c = rng.vec(3 * n, -1.0, 1.0);
        let (a, x) = upload::<T>(d, &r::matmul(&b, &c, m, 3, n), &[m, n]);
        let (u, h) = polar(&a).unwrap();
        check_polar::<T>(&x, m, n, &u, &h, false);
        let z = d.zeros::<T>([m, n]).unwrap();
        let (u, h) = polar(&z).unwrap();
        check_polar::<T>(&vec![0.0; m * n], m, n, &u, &h, false);
        assert!(host(&u).iter().chain(host(&h).iter()).all(|v| *v == 0.0));
    }
    // Orthogonal matrices are their own polar factor (H = I).
    let q = r::orthogonal(&mut rng, 34);
    for x in [r::with_singular_values(&mut rng, 34, 34, &[1.0; 34]), q] {
        let (a, x) = upload::<T>(d, &x, &[34, 34]);
        let (u, h) = polar(&a).unwrap();
        check_polar::<T>(&x, 34, 34, &u, &h, true);
        let hd = host(&h);
        for i in 0..34 {
            for j in 0..34 {
                let want = if i == j { 1.0 } else { 0.0 };
                assert!((hd[i * 34 + j] - want).abs() <= tol::<T>(34));
            }
        }
    }
    let mut xi = vec![0.0; 25];
    for k in 0..5 {
        xi[k * 5 + k] = 1.0;
    }
    let (u, h) = polar(&d.eye::<T>(5).unwrap()).unwrap();
    check_polar::<T>(&xi, 5, 5, &u, &h, true);
    super::common::assert_close(&host(&h), &xi, tol::<T>(5), 0.0);
    // Empty: NumPy's shapes.
    for (m, n) in [(0, 0), (0, 3), (3, 0)] {
        let (u, h) = polar(&d.zeros::<T>([2, m, n]).unwrap()).unwrap();
        assert_eq!((u.shape(), h.shape()), (&[2, m, n][..], &[2, n, n][..]));
    }
}

/// The polar route of the SVD: full and reduced, values alone.
#[track_caller]
fn check_route<T: Float>(a: &Array<T>, x: &[f64], m: usize, n: usize) {
    for full in [false, true] {
        let out = svd_with(a, full, true, SvdMethod::Polar).unwrap();
        check_svd::<T>(x, m, n, full, &out);
    }
    let out = svd_with(a, false, false, SvdMethod::Polar).unwrap();
    assert!(out.u.is_none() && out.vh.is_none());
    let s = host(&out.s);
    let k = m.min(n);
    for b in 0..s.len() / k.max(1) {
        check_values::<T>(
            &x[b * m * n..(b + 1) * m * n],
            m,
            n,
            &s[b * k..(b + 1) * k],
            b,
        );
    }
}

fn svd_polar_shapes<T: Float>() {
    let mut rng = Rng::new(33);
    let d = dev();
    for (shape, m, n) in [
        (vec![1, 1], 1, 1),
        (vec![5, 3], 5, 3),
        (vec![33, 33], 33, 33),
        (vec![64, 64], 64, 64),
        (vec![45, 33], 45, 33),
        (vec![33, 45], 33, 45),
        (vec![3, 17, 17], 17, 17),
        (vec![2, 9, 20], 9, 20),
    ] {
        let len: usize = shape.iter().product();
        let (a, x) = upload::<T>(d, &rng.vec(len, -1.0, 1.0), &shape);
        check_route::<T>(&a, &x, m, n);
    }
    // A transposed view.
    let (t, xt) = upload::<T>(d, &rng.vec(36 * 19, -1.0, 1.0), &[36, 19]);
    check_route::<T>(&t.t(), &r::transpose(&xt, 36, 19), 19, 36);
}

fn svd_polar_special<T: Float>() {
    let mut rng = Rng::new(34);
    let d = dev();
    // Ill-conditioned.
    for (m, n) in [(40, 40), (44, 36)] {
        let s = graded(n, ill_floor::<T>());
        let (a, x) = upload::<T>(d, &r::with_singular_values(&mut rng, m, n, &s), &[m, n]);
        check_route::<T>(&a, &x, m, n);
    }
    // Rank-deficient (rank 3): U's columns of the zero singular values completed.
    for (m, n) in [(34, 34), (40, 33), (20, 36)] {
        let b = rng.vec(m * 3, -1.0, 1.0);
        let c = rng.vec(3 * n, -1.0, 1.0);
        let (a, x) = upload::<T>(d, &r::matmul(&b, &c, m, 3, n), &[m, n]);
        check_route::<T>(&a, &x, m, n);
    }
    // Zero, identity, repeated singular values (1, 1, 1, 2, 2, ..., a cluster at 0.5).
    let z = d.zeros::<T>([35, 35]).unwrap();
    check_route::<T>(&z, &vec![0.0; 35 * 35], 35, 35);
    let i = d.eye::<T>(33).unwrap();
    let mut xi = vec![0.0; 33 * 33];
    for k in 0..33 {
        xi[k * 33 + k] = 1.0;
    }
    check_route::<T>(&i, &xi, 33, 33);
    assert!(host(&svdvals(&i).unwrap())
        .iter()
        .all(|s| (s - 1.0).abs() <= tol::<T>(33)));
    let s: Vec<f64> = (0..40).map(|k| [2.0, 1.0, 0.5][k % 3]).collect();
    let (a, x) = upload::<T>(d, &r::with_singular_values(&mut rng, 40, 40, &s), &[40, 40]);
    check_route::<T>(&a, &x, 40, 40);
}

/// Larger sizes: 100 x 100 (a stack of 2) with vectors, a prime past 256 values only.
fn svd_polar_larger<T: Float>() {
    let mut rng = Rng::new(35);
    let d = dev();
    let (a, x) = upload::<T>(d, &rng.vec(2 * 100 * 100, -1.0, 1.0), &[2, 100, 100]);
    let out = svd_with(&a, false, true, SvdMethod::Polar).unwrap();
    check_svd::<T>(&x, 100, 100, false, &out);
    let (a, x) = upload::<T>(d, &rng.vec(257 * 257, -1.0, 1.0), &[257, 257]);
    let s = host(&svd_with(&a, false, false, SvdMethod::Polar).unwrap().s);
    check_values::<T>(&x, 257, 257, &s, 0);
}

fn nan_and_bad_input<T: Float>() {
    let d = dev();
    for bad in [T::NAN, T::INFINITY] {
        let mut v = vec![T::from_f64(0.5); 34 * 34];
        v[3 * 34 + 1] = bad;
        let a = d.from_slice(&v, [34, 34]).unwrap();
        // No hang, no error: NaN in the results.
        let (u, h) = polar(&a).unwrap();
        assert!(host(&u).iter().any(|x| x.is_nan()));
        assert!(host(&h).iter().any(|x| x.is_nan()));
        let s = host(&svd_with(&a, false, false, SvdMethod::Polar).unwrap().s);
        assert!(s.iter().any(|x| !x.is_finite()), "{s:?}");
    }
    let v = d.zeros::<T>([4]).unwrap();
    assert!(matches!(
        polar(&v),
        Err(Error::InvalidArgument { op: "polar", .. })
    ));
    assert!(matches!(
        svd_with(&v, true, true, SvdMethod::Polar),
        Err(Error::InvalidArgument { op: "svd", .. })
    ));
    // The device is still usable.
    let (u, _) = polar(&d.eye::<T>(3).unwrap()).unwrap();
    let want = [1.0, 0.0, 0.0, 0.0, 1.0, 0.0, 0.0, 0.0, 1.0];
    super::common::assert_close(&host(&u), &want, tol::<T>(3), 0.0);
}

per_dtype! {
    [polar_f32: f32, polar_f64: f64] => {
        polar_random_shapes_and_views => polar_shapes::<T>();
        polar_special_matrices => polar_special::<T>();
        svd_polar_route_shapes => svd_polar_shapes::<T>();
        svd_polar_route_special_matrices => svd_polar_special::<T>();
        svd_polar_route_larger => svd_polar_larger::<T>();
        polar_nan_and_bad_input => nan_and_bad_input::<T>();
    }
}

#[test]
fn polar_refuses_f16() {
    require_dtype!(f16);
    let a = dev().eye::<f16>(3).unwrap();
    super::common::assert_unsupported(polar(&a), DType::F16);
    super::common::assert_unsupported(
        svd_with(&a, false, true, SvdMethod::Polar).map(|r| r.s),
        DType::F16,
    );
}
