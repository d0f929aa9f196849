//! The LU's tournament pivoting (src/linalg/calu.rs, shaders/calu.wgsl), chosen by the
//! measuring switch `GPUARRAY_FACTOR_CALU=128` (blocks of 128 rows, set by this binary's one
//! test before anything is factored: the switch is read once a process), so that panels
//! past 128 rows take two to four levels of the tournament here. Its pivots are not partial
//! pivoting's where a panel has more than 128 rows, so the factors are checked by the
//! backward error `||P A - L U||_F / (max(m, n) eps ||A||_F)` <= 8 (not by |L| <= 1, which
//! only panels of one block keep), and the solves, inverses and determinants by their own
//! errors against f64 references; singular matrices at a late column of a stack keep their
//! `Singular` error.

#[path = "common/mod.rs"]
mod common;
#[allow(dead_code)]
#[path = "linalg_factor/reference.rs"]
mod reference;

use gpuarray::linalg::{self, Trans};
use gpuarray::{DType, Error, Float};

use common::{dev, host, upload, Rng};
use reference::*;

fn eps<T: Float>() -> f64 {
    if T::DTYPE == DType::F32 {
        f32::EPSILON as f64
    } else {
        f64::EPSILON
    }
}

/// The bound of a backward error or reconstruction for order n: 8 n eps (as
/// tests/linalg_factor).
fn bound<T: Float>(n: usize) -> f64 {
    8.0 * (n.max(1) as f64) * eps::<T>()
}

/// A's m rows swapped as the pivots say, in order.
fn permuted(a: &[f64], piv: &[usize], m: usize, n: usize) -> Vec<f64> {
    let mut pa = a[..m * n].to_vec();
    for (j, &p) in piv.iter().enumerate() {
        for c in 0..n {
            pa.swap(j * n + c, p * n + c);
        }
    }
    pa
}

/// L U from the combined m x n factors `f` (L unit lower, m x k; U upper, k x n), and the
/// largest |l|.
fn lu_product(f: &[f64], m: usize, n: usize) -> (Vec<f64>, f64) {
    let k = m.min(n);
    let l: Vec<f64> = (0..m * k)
        .map(|t| match (t / k).cmp(&(t % k)) {
            std::cmp::Ordering::Greater => f[(t / k) * n + t % k],
            std::cmp::Ordering::Equal => 1.0,
            std::cmp::Ordering::Less => 0.0,
        })
        .collect();
    let lmax = l.iter().fold(0.0f64, |a, v| a.max(v.abs()));
    let u: Vec<f64> = (0..k * n)
        .map(|t| if t % n >= t / n { f[t] } else { 0.0 })
        .collect();
    (matmul(&l, &u, m, k, n), lmax)
}

/// Factors `v` ([count, m, n]; its transpose's storage where `t`, factored as a transposed
/// view) and checks every matrix's reconstruction P A = L U and pivots; `one_block`: the
/// panels have at most one block of rows (partial pivoting: |l| <= 1). Returns the
/// largest |l|.
fn check_factors<T: Float>(
    what: &str,
    v: &[f64],
    (count, m, n): (usize, usize, usize),
    t: bool,
) -> f64 {
    let (a, ah) = if t {
        // The matrices stored transposed ([count, n, m]), factored through a view.
        let mut s = vec![0.0; count * m * n];
        for i in 0..count {
            for r in 0..m {
                for c in 0..n {
                    s[i * m * n + c * m + r] = v[i * m * n + r * n + c];
                }
            }
        }
        let (st, sh) = upload::<T>(dev(), &s, &[count, n, m]);
        let mut h = vec![0.0; count * m * n];
        for i in 0..count {
            for r in 0..m {
                for c in 0..n {
                    h[i * m * n + r * n + c] = sh[i * m * n + c * m + r];
                }
            }
        }
        (st.transpose(&[0, 2, 1]).expect("a view"), h)
    } else {
        upload::<T>(dev(), v, &[count, m, n])
    };
    let f = linalg::lu_factor(&a).expect("lu_factor");
    let piv = f.piv().to_vec().expect("piv");
    let lu = host(f.lu());
    let k = m.min(n);
    let mut most = 0.0f64;
    for i in 0..count {
        let p: Vec<usize> = piv[i * k..][..k].iter().map(|&p| p as usize).collect();
        for (j, &q) in p.iter().enumerate() {
            assert!(q >= j && q < m, "{what} #{i}: pivot {j} is {q}");
        }
        let (prod, lmax) = lu_product(&lu[i * m * n..][..m * n], m, n);
        let e = rel_diff(&prod, &permuted(&ah[i * m * n..][..m * n], &p, m, n));
        let e = e / (m.max(n) as f64 * eps::<T>());
        assert!(
            e <= 8.0,
            "{what} #{i} {m}x{n}: ||PA - LU|| = {e:.2} max(m, n) eps ||A||"
        );
        if m <= 128 {
            assert!(lmax <= 1.0, "{what} #{i}: |l| {lmax} past 1 in one block");
        }
        most = most.max(lmax);
    }
    most
}

fn factors<T: Float>() {
    let mut rng = Rng::new(71);
    // One element; fewer rows than a block; one block exactly; one past (two levels);
    // past four blocks (four levels: 700 rows -> 6 blocks -> 384 picks -> 3 -> 192 -> 2 ->
    // 128 -> 1); wide and tall; a panel narrower than the widest; stacks.
    for (count, m, n, t) in [
        (1usize, 1usize, 1usize, false),
        (2, 37, 37, false),
        (1, 128, 128, false),
        (1, 129, 70, false),
        (3, 200, 131, false),
        (1, 700, 65, false),
        (1, 260, 260, true),
        (1, 600, 20, false),
        (2, 40, 197, false),
    ] {
        let v = rng.vec(count * m * n, -1.0, 1.0);
        let lmax = check_factors::<T>("random", &v, (count, m, n), t);
        if m == 700 {
            // The tournament itself ran (partial pivoting keeps |l| <= 1; here 1.9 in a
            // CPU model of the same tournament).
            assert!(lmax > 1.0, "700 rows: |l| <= 1, partial pivoting's pivots");
        }
    }
    // Ties (equal magnitudes in every block) and rows graded to 1e-6 (f32) or 1e-12 (f64).
    let (m, n) = (389, 100);
    let mut v = rng.vec(m * n, -1.0, 1.0);
    for r in (0..m).step_by(7) {
        v[r * n] = if r % 2 == 0 { 2.0 } else { -2.0 };
    }
    check_factors::<T>("ties", &v, (1, m, n), false);
    let top = if T::DTYPE == DType::F32 { 6.0 } else { 12.0 };
    let g = graded(&mut rng, 200, top);
    check_factors::<T>("graded", &g, (1, 200, 200), false);
}

/// Solves, inverses and determinants through the tournament's factors.
fn solves<T: Float>() {
    let mut rng = Rng::new(72);
    let top = if T::DTYPE == DType::F32 { 5.0 } else { 12.0 };
    for (what, n) in [("random", 257usize), ("graded", 200), ("hilbert", 130)] {
        let ah = match what {
            "random" => rng.vec(n * n, -1.0, 1.0),
            "graded" => graded(&mut rng, n, top),
            // Hilbert-like (ill-conditioned, a plateau of condition past 1e17) plus a
            // random term: every column's candidates close in magnitude.
            _ => (0..n * n)
                .map(|t| 1.0 / ((t / n + t % n + 1) as f64) + 1e-3 * rng.uniform(-1.0, 1.0))
                .collect(),
        };
        let (a, ah) = upload::<T>(dev(), &ah, &[n, n]);
        for k in [1usize, 3] {
            if k == 1 && what != "random" {
                continue;
            }
            let (b, bh) = upload::<T>(dev(), &rng.vec(n * k, -1.0, 1.0), &[n, k]);
            let x = host(&linalg::solve(&a, &b).expect("solve"));
            let e = backward_error(&ah, &x, &bh, n, k);
            assert!(e <= bound::<T>(n), "{what} solve n={n} k={k}: {e:e}");
            // A^T x = b through the same factors.
            let f = linalg::lu_factor(&a).expect("lu_factor");
            let x = host(&linalg::lu_solve(&f, &b, Trans::T).expect("lu_solve"));
            let e = backward_error(&transpose(&ah, n, n), &x, &bh, n, k);
            assert!(e <= bound::<T>(n), "{what} lu_solve T n={n} k={k}: {e:e}");
        }
        if what == "random" {
            // inv: ||A X - I|| / (||A|| ||X||) and the determinant against f64's.
            let x = host(&linalg::inv(&a).expect("inv"));
            let e = backward_error(&ah, &x, &identity(n), n, n);
            assert!(e <= bound::<T>(n), "inv n={n}: {e:e}");
            let d = host(&linalg::slogdet(&a).expect("slogdet").1)[0];
            let (_, dr) = slogdet_ref(&ah, n);
            assert!(
                (d - dr).abs() <= bound::<T>(n) * n as f64,
                "slogdet n={n}: {d} against {dr}"
            );
        }
    }
}

/// A stack whose matrix 1 has a zero column (an exact zero pivot at column 190, in the
/// third panel and in the tournament's every block): `Singular` names it.
fn singular_late<T: Float>() {
    let mut rng = Rng::new(73);
    let n = 200;
    let mut v = rng.vec(3 * n * n, -1.0, 1.0);
    for r in 0..n {
        v[n * n + r * n + 190] = 0.0;
    }
    let (a, _) = upload::<T>(dev(), &v, &[3, n, n]);
    let (b, _) = upload::<T>(dev(), &rng.vec(n, -1.0, 1.0), &[n]);
    match linalg::solve(&a, &b) {
        Err(Error::Singular { index: 1, .. }) => {}
        other => panic!("expected Singular at 1, got {:?}", other.map(|_| ())),
    }
    match linalg::inv(&a) {
        Err(Error::Singular { index: 1, .. }) => {}
        other => panic!("expected Singular at 1, got {:?}", other.map(|_| ())),
    }
    // slogdet (det itself overflows at this order): sign 0 and -inf for matrix 1 only.
    let (sign, logdet) = linalg::slogdet(&a).expect("slogdet");
    let (sign, logdet) = (host(&sign), host(&logdet));
    assert_eq!((sign[1], logdet[1]), (0.0, f64::NEG_INFINITY));
    for i in [0, 2] {
        assert!(
            sign[i].abs() == 1.0 && logdet[i].is_finite(),
            "#{i}: {sign:?} {logdet:?}"
        );
    }
}

fn all<T: Float>() {
    factors::<T>();
    solves::<T>();
    singular_late::<T>();
}

#[test]
fn tournament_pivoting_factors_and_solves() {
    // SAFETY: this binary's only test, run before anything reads the environment.
    unsafe { std::env::set_var("GPUARRAY_FACTOR_CALU", "128") };
    all::<f32>();
    if dev().supports::<f64>() {
        all::<f64>();
    } else {
        common::skip("f64 is not supported: only f32 checked");
    }
}
