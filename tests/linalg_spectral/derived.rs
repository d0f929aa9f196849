//! lstsq, pinv, matrix_rank, cond and norm against CPU references in f64, per dtype.

use super::common::{assert_close, dev, host, upload, Rng};
use super::reference as r;
use super::{eps, tol};
use gpuarray::linalg::{cond, lstsq, matrix_rank, norm, pinv, NormOrd};
use gpuarray::{Error, Float};

/// Checks the four Moore-Penrose conditions of `x` = pinv(`a`) (m x n).
#[track_caller]
fn check_pinv<T: Float>(a: &[f64], x: &[f64], m: usize, n: usize, cond_a: f64) {
    let tl = tol::<T>(m.max(n)) * cond_a.max(1.0);
    let axa = r::matmul(&r::matmul(a, x, m, n, m), a, m, m, n);
    let e = r::fro(&axa.iter().zip(a).map(|(p, q)| p - q).collect::<Vec<_>>()) / r::fro(a);
    assert!(e <= tl, "A X A - A: {e:e} > {tl:e}");
    let xax = r::matmul(&r::matmul(x, a, n, m, n), x, n, n, m);
    let e = r::fro(&xax.iter().zip(x).map(|(p, q)| p - q).collect::<Vec<_>>()) / r::fro(x);
    assert!(e <= tl, "X A X - X: {e:e} > {tl:e}");
    let ax = r::matmul(a, x, m, n, m);
    let e = r::fro(
        &ax.iter()
            .zip(r::transpose(&ax, m, m))
            .map(|(p, q)| p - q)
            .collect::<Vec<_>>(),
    );
    assert!(e <= tl * r::fro(&ax), "A X not symmetric: {e:e}");
}

pub fn lstsq_cases<T: Float>() {
    let mut rng = Rng::new(11);
    let d = dev();
    // Full column rank, tall: residuals; b a vector and a matrix.
    for (m, n, k) in [(7, 3, 1), (40, 20, 3), (5, 5, 2)] {
        let (a, xa) = upload::<T>(d, &rng.vec(m * n, -1.0, 1.0), &[m, n]);
        let (b, xb) = upload::<T>(d, &rng.vec(m * k, -1.0, 1.0), &[m, k]);
        let out = lstsq(&a, &b, None).unwrap();
        assert_eq!(out.rank, n);
        assert_eq!(out.x.shape(), &[n, k]);
        // The normal equations: A^T (b - A x) = 0.
        let x = host(&out.x);
        let res: Vec<f64> = r::matmul(&xa, &x, m, n, k)
            .iter()
            .zip(&xb)
            .map(|(p, q)| q - p)
            .collect();
        let g = r::matmul(&r::transpose(&xa, m, n), &res, n, m, k);
        let scale = r::fro(&xa) * (r::fro(&xa) * r::fro(&x) + r::fro(&xb));
        assert!(
            r::fro(&g) <= 100.0 * tol::<T>(m) * scale,
            "normal equations {:e}",
            r::fro(&g)
        );
        if m > n {
            let want: Vec<f64> = (0..k)
                .map(|j| (0..m).map(|i| res[i * k + j].powi(2)).sum())
                .collect();
            assert_close(
                &host(&out.residuals),
                &want,
                1e3 * eps::<T>() * r::fro(&xb).powi(2),
                1e-3,
            );
        } else {
            assert_eq!(out.residuals.shape(), &[0]);
        }
        let bv = b
            .slice([gpuarray::Slice::from(..), gpuarray::Slice::from(0..1)])
            .unwrap();
        let bv = bv.reshape([m]).unwrap();
        assert_eq!(lstsq(&a, &bv, None).unwrap().x.shape(), &[n]);
    }
    // Rank-deficient: the minimum-norm solution, rank 2, no residuals.
    let (m, n) = (8, 5);
    let p = r::matmul(
        &rng.vec(m * 2, -1.0, 1.0),
        &rng.vec(2 * n, -1.0, 1.0),
        m,
        2,
        n,
    );
    let (a, xa) = upload::<T>(d, &p, &[m, n]);
    let (b, _) = upload::<T>(d, &rng.vec(m, -1.0, 1.0), &[m]);
    let out = lstsq(&a, &b, Some(1e-4)).unwrap();
    assert_eq!(out.rank, 2);
    assert_eq!(out.residuals.shape(), &[0]);
    let want = host(&pinv(&a, Some(1e-4)).unwrap().matmul(&b).unwrap());
    assert_close(&host(&out.x), &want, 1e3 * eps::<T>() * r::fro(&want), 1e-3);
    check_pinv::<T>(&xa, &host(&pinv(&a, Some(1e-4)).unwrap()), m, n, 1e2);
    // Bad input.
    assert!(matches!(
        lstsq(&a, &b.reshape([1, m]).unwrap(), None),
        Err(Error::ShapeMismatch { .. })
    ));
    assert!(matches!(
        lstsq(&a, &b, Some(-1.0)),
        Err(Error::InvalidArgument { .. })
    ));
}

pub fn pinv_cases<T: Float>() {
    let mut rng = Rng::new(12);
    let d = dev();
    for (m, n) in [(1, 1), (6, 4), (4, 6), (35, 33)] {
        let (a, xa) = upload::<T>(d, &rng.vec(m * n, -1.0, 1.0), &[m, n]);
        let x = pinv(&a, None).unwrap();
        assert_eq!(x.shape(), &[n, m]);
        let s = r::svdvals(&xa, m, n);
        check_pinv::<T>(&xa, &host(&x), m, n, s[0] / s[s.len() - 1]);
    }
    // A stack, and zero matrices (pinv 0).
    let (a, xa) = upload::<T>(d, &rng.vec(3 * 20, -1.0, 1.0), &[3, 5, 4]);
    let x = host(&pinv(&a, None).unwrap());
    for b in 0..3 {
        let ab = &xa[b * 20..(b + 1) * 20];
        let s = r::svdvals(ab, 5, 4);
        check_pinv::<T>(ab, &x[b * 20..(b + 1) * 20], 5, 4, s[0] / s[3]);
    }
    let z = d.zeros::<T>([3, 2]).unwrap();
    assert_eq!(host(&pinv(&z, None).unwrap()), vec![0.0; 6]);
    assert_eq!(
        pinv(&d.zeros::<T>([0, 3]).unwrap(), None).unwrap().shape(),
        &[3, 0]
    );
}

pub fn rank_and_cond<T: Float>() {
    let mut rng = Rng::new(13);
    let d = dev();
    let mut data = Vec::new();
    for rank in [0, 1, 3, 5] {
        let b = rng.vec(6 * rank, -1.0, 1.0);
        let c = rng.vec(rank * 5, -1.0, 1.0);
        data.extend(if rank == 0 {
            vec![0.0; 30]
        } else {
            r::matmul(&b, &c, 6, rank, 5)
        });
    }
    let (a, xa) = upload::<T>(d, &data, &[2, 2, 6, 5]);
    let ranks = matrix_rank(&a, None).unwrap();
    assert_eq!(ranks.shape(), &[2, 2]);
    assert_eq!(ranks.to_vec().unwrap(), vec![0, 1, 3, 5]);
    assert_eq!(
        matrix_rank(&a, Some(1e9)).unwrap().to_vec().unwrap(),
        vec![0; 4]
    );
    // cond in every order of a well-conditioned square stack.
    let (a, xa2) = upload::<T>(d, &rng.vec(2 * 16, -1.0, 1.0), &[2, 4, 4]);
    let _ = xa;
    for b in 0..2 {
        let ab = &xa2[b * 16..(b + 1) * 16];
        let s = r::svdvals(ab, 4, 4);
        let c2 = s[0] / s[3];
        let tl = 1e3 * eps::<T>() * c2 * c2;
        assert_close(&[host(&cond(&a, None).unwrap())[b]], &[c2], 0.0, tl);
        assert_close(
            &[host(&cond(&a, Some(NormOrd::P(-2.0))).unwrap())[b]],
            &[1.0 / c2],
            0.0,
            tl,
        );
        let inv = host_inverse(ab, 4);
        for (ord, f) in [
            (NormOrd::Fro, fro_norm as fn(&[f64], usize) -> f64),
            (NormOrd::P(1.0), one_norm),
            (NormOrd::P(f64::INFINITY), inf_norm),
        ] {
            let want = f(ab, 4) * f(&inv, 4);
            assert_close(&[host(&cond(&a, Some(ord)).unwrap())[b]], &[want], 0.0, tl);
        }
    }
    let ns = d.zeros::<T>([3, 4]).unwrap();
    assert!(matches!(
        cond(&ns, Some(NormOrd::Fro)),
        Err(Error::NotSquare { .. })
    ));
}

fn fro_norm(a: &[f64], _n: usize) -> f64 {
    r::fro(a)
}
fn one_norm(a: &[f64], n: usize) -> f64 {
    (0..n)
        .map(|j| (0..n).map(|i| a[i * n + j].abs()).sum::<f64>())
        .fold(0.0, f64::max)
}
fn inf_norm(a: &[f64], n: usize) -> f64 {
    (0..n)
        .map(|i| (0..n).map(|j| a[i * n + j].abs()).sum::<f64>())
        .fold(0.0, f64::max)
}

/// Gauss-Jordan with partial pivoting (f64).
fn host_inverse(a: &[f64], n: usize) -> Vec<f64> {
    let mut m = a.to_vec();
    let mut inv = vec![0.0; n * n];
    for i in 0..n {
        inv[i * n + i] = 1.0;
    }
    for c in 0..n {
        let p = (c..n)
            .max_by(|&x, &y| m[x * n + c].abs().partial_cmp(&m[y * n + c].abs()).unwrap())
            .unwrap();
        for j in 0..n {
            m.swap(c * n + j, p * n + j);
            inv.swap(c * n + j, p * n + j);
        }
        let d = m[c * n + c];
        for j in 0..n {
            m[c * n + j] /= d;
            inv[c * n + j] /= d;
        }
        for i in 0..n {
            if i != c {
                let f = m[i * n + c];
                for j in 0..n {
                    m[i * n + j] -= f * m[c * n + j];
                    inv[i * n + j] -= f * inv[c * n + j];
                }
            }
        }
    }
    inv
}

pub fn norms<T: Float>() {
    let mut rng = Rng::new(14);
    let d = dev();
    let (m, n) = (5, 7);
    let (x, xs) = upload::<T>(d, &rng.vec(3 * m * n, -2.0, 2.0), &[3, m, n]);
    let tl = 1e2 * eps::<T>();
    // Vector norms along the last axis.
    for p in [1.0, 2.0, 3.0, 0.5, f64::INFINITY, f64::NEG_INFINITY] {
        let got = host(&norm(&x, Some(NormOrd::P(p)), -1, false).unwrap());
        let want: Vec<f64> = xs
            .chunks(n)
            .map(|row| {
                let a = row.iter().map(|v| v.abs());
                if p == f64::INFINITY {
                    a.fold(0.0, f64::max)
                } else if p == f64::NEG_INFINITY {
                    a.fold(f64::INFINITY, f64::min)
                } else {
                    a.map(|v| v.powf(p)).sum::<f64>().powf(1.0 / p)
                }
            })
            .collect();
        assert_close(&got, &want, 0.0, tl);
    }
    let mut z = xs.clone();
    z[3] = 0.0;
    let (xz, _) = upload::<T>(d, &z, &[3 * m * n]);
    assert_eq!(
        host(&norm(&xz, Some(NormOrd::P(0.0)), 0, false).unwrap()),
        vec![(3 * m * n - 1) as f64]
    );
    // Matrix norms over the last two axes, keepdims.
    for (ord, f) in [
        (None, fro_rect as fn(&[f64], usize, usize) -> f64),
        (Some(NormOrd::Fro), fro_rect),
        (Some(NormOrd::P(1.0)), |a: &[f64], m, n| {
            col_sums(a, m, n).into_iter().fold(0.0, f64::max)
        }),
        (Some(NormOrd::P(-1.0)), |a: &[f64], m, n| {
            col_sums(a, m, n).into_iter().fold(f64::INFINITY, f64::min)
        }),
        (Some(NormOrd::P(f64::INFINITY)), |a: &[f64], m, n| {
            row_sums(a, m, n).into_iter().fold(0.0, f64::max)
        }),
        (Some(NormOrd::P(f64::NEG_INFINITY)), |a: &[f64], m, n| {
            row_sums(a, m, n).into_iter().fold(f64::INFINITY, f64::min)
        }),
        (Some(NormOrd::P(2.0)), |a: &[f64], m, n| {
            r::svdvals(a, m, n)[0]
        }),
        (Some(NormOrd::P(-2.0)), |a: &[f64], m, n| {
            *r::svdvals(a, m, n).last().unwrap()
        }),
        (Some(NormOrd::Nuc), |a: &[f64], m, n| {
            r::svdvals(a, m, n).iter().sum()
        }),
    ] {
        let got = norm(&x, ord, [-2, -1], true).unwrap();
        assert_eq!(got.shape(), &[3, 1, 1]);
        let want: Vec<f64> = xs.chunks(m * n).map(|a| f(a, m, n)).collect();
        assert_close(&host(&got), &want, 0.0, tol::<T>(n) * 10.0);
        // The axes reversed: the transposed matrices' norm.
        let got_t = host(&norm(&x, ord, [-1, -2], false).unwrap());
        let want_t: Vec<f64> = xs
            .chunks(m * n)
            .map(|a| f(&r::transpose(a, m, n), n, m))
            .collect();
        assert_close(&got_t, &want_t, 0.0, tol::<T>(n) * 10.0);
    }
    // The whole array.
    assert_close(
        &host(&norm(&x, None, .., false).unwrap()),
        &[r::fro(&xs)],
        0.0,
        tl,
    );
    // Bad orders and axes.
    assert!(matches!(
        norm(&x, Some(NormOrd::Fro), -1, false),
        Err(Error::InvalidArgument { .. })
    ));
    assert!(matches!(
        norm(&x, Some(NormOrd::P(3.0)), [0, 1], false),
        Err(Error::InvalidArgument { .. })
    ));
    assert!(matches!(
        norm(&x, Some(NormOrd::P(1.0)), .., false),
        Err(Error::InvalidArgument { .. })
    ));
    assert!(matches!(
        norm(&x, None, [0, 1, 2], false),
        Err(Error::InvalidArgument { .. })
    ));
    assert!(matches!(
        norm(&x, None, 3, false),
        Err(Error::AxisOutOfRange { .. })
    ));
}

fn fro_rect(a: &[f64], _m: usize, _n: usize) -> f64 {
    r::fro(a)
}
fn col_sums(a: &[f64], m: usize, n: usize) -> Vec<f64> {
    (0..n)
        .map(|j| (0..m).map(|i| a[i * n + j].abs()).sum())
        .collect()
}
fn row_sums(a: &[f64], m: usize, n: usize) -> Vec<f64> {
    (0..m)
        .map(|i| (0..n).map(|j| a[i * n + j].abs()).sum())
        .collect()
}

per_dtype! {
    [f32_: f32, f64_: f64] => {
        lstsq_full_and_deficient => lstsq_cases::<T>();
        pinv_penrose => pinv_cases::<T>();
        matrix_rank_and_cond => rank_and_cond::<T>();
        vector_and_matrix_norms => norms::<T>();
    }
}
