//! Edge cases: empty and 1 x 1 matrices, identity and diagonal, NaN and infinity entries,
//! singular and not positive definite matrices in stacks (the typed error naming the
//! right matrix; with the check off, non-finite results and no wait), bad input (the
//! typed error, the device still usable).

use gpuarray::linalg::{self, Trans, Triangle};
use gpuarray::{f16, DType, Device, Error, Float, Options};

use super::common::{assert_unsupported, dev, host, upload, Rng};

fn empty<T: Float>() {
    let d = dev();
    let a = d.zeros::<T>([0, 0]).unwrap();
    assert_eq!(linalg::inv(&a).unwrap().shape(), &[0, 0]);
    assert_eq!(host(&linalg::det(&a).unwrap()), vec![1.0]);
    let (s, l) = linalg::slogdet(&a).unwrap();
    assert_eq!((host(&s), host(&l)), (vec![1.0], vec![0.0]));
    assert_eq!(
        linalg::cholesky(&a, Triangle::Lower).unwrap().shape(),
        &[0, 0]
    );
    let b = d.zeros::<T>([0]).unwrap();
    assert_eq!(linalg::solve(&a, &b).unwrap().shape(), &[0]);
    let (p, l, u) = linalg::lu(&a).unwrap();
    assert_eq!(
        (p.shape(), l.shape(), u.shape()),
        (&[0, 0][..], &[0, 0][..], &[0, 0][..])
    );
    // A stack of no matrices, and matrices with no right-hand sides.
    let s = d.zeros::<T>([0, 3, 3]).unwrap();
    assert_eq!(linalg::inv(&s).unwrap().shape(), &[0, 3, 3]);
    assert_eq!(linalg::det(&s).unwrap().shape(), &[0]);
    let a3 = d.eye::<T>(3).unwrap();
    let b0 = d.zeros::<T>([3, 0]).unwrap();
    assert_eq!(linalg::solve(&a3, &b0).unwrap().shape(), &[3, 0]);
    let f = linalg::lu_factor(&s).unwrap();
    assert_eq!(f.piv().shape(), &[0, 3]);
}

fn one_by_one_identity_diagonal<T: Float>() {
    let d = dev();
    let (a, _) = upload::<T>(d, &[4.0], &[1, 1]);
    assert_eq!(host(&linalg::inv(&a).unwrap()), vec![0.25]);
    assert_eq!(host(&linalg::det(&a).unwrap()), vec![4.0]);
    assert_eq!(
        host(&linalg::cholesky(&a, Triangle::Lower).unwrap()),
        vec![2.0]
    );
    let eye = d.eye::<T>(70).unwrap();
    assert_eq!(host(&linalg::inv(&eye).unwrap()), host(&eye));
    assert_eq!(
        host(&linalg::cholesky(&eye, Triangle::Upper).unwrap()),
        host(&eye)
    );
    assert_eq!(host(&linalg::det(&eye).unwrap()), vec![1.0]);
    // A diagonal matrix of powers of two: exact inverse and determinant.
    let n = 67;
    let diag: Vec<f64> = (0..n * n)
        .map(|t| {
            if t / n == t % n {
                2f64.powi((t / n % 7) as i32 - 3)
            } else {
                0.0
            }
        })
        .collect();
    let (a, ah) = upload::<T>(d, &diag, &[n, n]);
    let want: Vec<f64> = ah
        .iter()
        .map(|&v| if v == 0.0 { 0.0 } else { 1.0 / v })
        .collect();
    assert_eq!(host(&linalg::inv(&a).unwrap()), want);
    let det: f64 = (0..n).map(|i| ah[i * n + i]).product();
    assert_eq!(host(&linalg::det(&a).unwrap()), vec![det]);
}

fn special_values<T: Float>() {
    let d = dev();
    let mut rng = Rng::new(20);
    let n = 6;
    for bad in [f64::NAN, f64::INFINITY] {
        let mut v = rng.vec(n * n, -1.0, 1.0);
        v[2 * n + 3] = bad;
        let (a, _) = upload::<T>(d, &v, &[n, n]);
        let (b, _) = upload::<T>(d, &rng.vec(n, -1.0, 1.0), &[n]);
        // No hang; NaN in the result (or a singular matrix found on the way).
        match linalg::solve(&a, &b) {
            Ok(x) => assert!(host(&x).iter().any(|v| v.is_nan()), "{bad}"),
            Err(Error::Singular { index: 0, .. }) => {}
            Err(e) => panic!("{bad}: {e:?}"),
        }
        let dt = host(&linalg::det(&a).unwrap())[0];
        assert!(!dt.is_finite(), "{bad}: det {dt}");
        // Cholesky: NaN on the diagonal's way is not positive definite (LAPACK's potrf).
        let mut s = super::reference::spd(&mut rng, 1, n);
        s[n + 1] = bad;
        let (a, _) = upload::<T>(d, &s, &[n, n]);
        match linalg::cholesky(&a, Triangle::Lower) {
            Ok(c) => assert!(host(&c).iter().any(|v| !v.is_finite())),
            Err(Error::NotPositiveDefinite { index: 0, .. }) => {}
            Err(e) => panic!("{bad}: {e:?}"),
        }
    }
}

/// A stack of 5 matrices whose matrix 3 is singular (a zero column: exact in any dtype),
/// and the same for not positive definite.
fn failures_name_the_matrix<T: Float>() {
    let d = dev();
    let mut rng = Rng::new(21);
    let n = 70;
    let mut v = rng.vec(5 * n * n, -1.0, 1.0);
    for r in 0..n {
        v[3 * n * n + r * n + 5] = 0.0;
        v[4 * n * n + r * n + 9] = 0.0;
    }
    let (a, _) = upload::<T>(d, &v, &[5, n, n]);
    let (b, _) = upload::<T>(d, &rng.vec(n, -1.0, 1.0), &[n]);
    let singular = |r: gpuarray::Result<gpuarray::Array<T>>, op: &str| match r {
        Err(Error::Singular { index: 3, op: o }) => assert_eq!(o, op),
        other => panic!("{op}: expected Singular at 3, got {:?}", other.map(|_| ())),
    };
    singular(linalg::solve(&a, &b), "solve");
    singular(linalg::inv(&a), "inv");
    let f = linalg::lu_factor(&a).unwrap();
    singular(linalg::lu_solve(&f, &b, Trans::N), "lu_solve");
    let dt = host(&linalg::det(&a).unwrap());
    assert_eq!((dt[3], dt[4]), (0.0, 0.0));
    assert!(dt[..3].iter().all(|&x| x != 0.0 && x.is_finite()));
    let (s, l) = linalg::slogdet(&a).unwrap();
    let (s, l) = (host(&s), host(&l));
    assert_eq!((s[3], l[3]), (0.0, f64::NEG_INFINITY));
    // The same in small matrices (the one-workgroup kernel).
    let m = 6;
    let mut w = rng.vec(5 * m * m, -1.0, 1.0);
    for c in 0..m {
        w[2 * m * m + 4 * m + c] = 0.0;
    }
    let (sa, _) = upload::<T>(d, &w, &[5, m, m]);
    let (sb, _) = upload::<T>(d, &rng.vec(m, -1.0, 1.0), &[m]);
    match linalg::solve(&sa, &sb) {
        Err(Error::Singular { index: 2, .. }) => {}
        other => panic!(
            "small solve: expected Singular at 2, got {:?}",
            other.map(|_| ())
        ),
    }
    match linalg::inv(&sa) {
        Err(Error::Singular { index: 2, .. }) => {}
        other => panic!(
            "small inv: expected Singular at 2, got {:?}",
            other.map(|_| ())
        ),
    }
    // Not positive definite: matrix 2 of 4 has a negative eigenvalue.
    let mut p = super::reference::spd(&mut rng, 4, n);
    p[2 * n * n + 40 * n + 40] = -5.0;
    p[3 * n * n] = -1.0;
    let (pa, _) = upload::<T>(d, &p, &[4, n, n]);
    match linalg::cholesky(&pa, Triangle::Lower) {
        Err(Error::NotPositiveDefinite {
            op: "cholesky",
            index: 2,
        }) => {}
        other => panic!(
            "expected NotPositiveDefinite at 2, got {:?}",
            other.map(|_| ())
        ),
    }
    // The inputs are intact and the device usable.
    assert_eq!(host(&a), super::common::cast_in::<T>(&v).1);
    assert!(linalg::det(&d.eye::<T>(3).unwrap()).is_ok());

    // With the check off: no error, non-finite results where the matrix failed.
    let mut opts = Options::default();
    opts.linalg_check = false;
    let unchecked = Device::with_options(opts).unwrap();
    let a2 = unchecked
        .from_slice(&a.to_vec().unwrap(), [5, n, n])
        .unwrap();
    let b2 = unchecked.from_slice(&b.to_vec().unwrap(), [n]).unwrap();
    let x = host(&linalg::solve(&a2, &b2).unwrap());
    assert!(x[3 * n..4 * n].iter().any(|v| !v.is_finite()));
    assert!(x[..3 * n].iter().all(|v| v.is_finite()));
    let sa2 = unchecked
        .from_slice(&sa.to_vec().unwrap(), [5, m, m])
        .unwrap();
    let xi = host(&linalg::inv(&sa2).unwrap());
    assert!(xi[2 * m * m..3 * m * m].iter().any(|v| !v.is_finite()));
    assert!(xi[..2 * m * m].iter().all(|v| v.is_finite()));
    let pa2 = unchecked
        .from_slice(&pa.to_vec().unwrap(), [4, n, n])
        .unwrap();
    let c = host(&linalg::cholesky(&pa2, Triangle::Lower).unwrap());
    assert!(c[2 * n * n..3 * n * n].iter().any(|v| v.is_nan()));
    assert!(c[n * n..2 * n * n].iter().all(|v| v.is_finite()));
}

fn bad_input<T: Float>() {
    let d = dev();
    let v = d.zeros::<T>([4]).unwrap();
    let bad_dims =
        |r: gpuarray::Result<()>| assert!(matches!(r, Err(Error::InvalidArgument { .. })), "{r:?}");
    bad_dims(linalg::inv(&v).map(|_| ()));
    bad_dims(linalg::det(&v).map(|_| ()));
    bad_dims(linalg::lu_factor(&v).map(|_| ()));
    let rect = d.zeros::<T>([2, 3, 4]).unwrap();
    let not_square = |r: gpuarray::Result<()>| match r {
        Err(Error::NotSquare { shape, .. }) => assert_eq!(shape, vec![2, 3, 4]),
        other => panic!("expected NotSquare, got {other:?}"),
    };
    not_square(linalg::inv(&rect).map(|_| ()));
    not_square(linalg::det(&rect).map(|_| ()));
    not_square(linalg::slogdet(&rect).map(|_| ()));
    not_square(linalg::cholesky(&rect, Triangle::Lower).map(|_| ()));
    not_square(linalg::matrix_power(&rect, 2).map(|_| ()));
    let b3 = d.zeros::<T>([3]).unwrap();
    not_square(linalg::solve(&rect, &b3).map(|_| ()));
    not_square(linalg::solve_triangular(&rect, &b3, Triangle::Lower, Trans::N, false).map(|_| ()));
    let f = linalg::lu_factor(&rect).unwrap();
    not_square(linalg::lu_solve(&f, &b3, Trans::N).map(|_| ()));
    // Mismatched right-hand sides and stacks.
    let a = d.eye::<T>(3).unwrap().broadcast_to([2, 3, 3]).unwrap();
    let mismatch =
        |r: gpuarray::Result<()>| assert!(matches!(r, Err(Error::ShapeMismatch { .. })), "{r:?}");
    mismatch(linalg::solve(&a, &d.zeros::<T>([4]).unwrap()).map(|_| ()));
    mismatch(linalg::solve(&a, &d.zeros::<T>([4, 1]).unwrap()).map(|_| ()));
    mismatch(linalg::solve(&a, &d.zeros::<T>([3, 3, 1]).unwrap()).map(|_| ()));
    mismatch(linalg::cho_solve(&a, Triangle::Lower, &d.zeros::<T>([2]).unwrap()).map(|_| ()));
    let f = linalg::lu_factor(&a).unwrap();
    mismatch(linalg::lu_solve(&f, &d.zeros::<T>([4, 3, 1]).unwrap(), Trans::N).map(|_| ()));
    // The device is still usable.
    assert_eq!(host(&linalg::inv(&a).unwrap()), host(&a));
}

#[test]
fn f16_is_refused() {
    let d = dev();
    if !d.supports::<f16>() {
        return;
    }
    let a = d.zeros::<f16>([2, 2]).unwrap();
    assert_unsupported(linalg::inv(&a), DType::F16);
    assert_unsupported(linalg::det(&a), DType::F16);
    assert_unsupported(linalg::cholesky(&a, Triangle::Lower), DType::F16);
    assert_unsupported(linalg::lu_factor(&a).map(|_| ()), DType::F16);
    assert_unsupported(linalg::solve(&a, &d.zeros::<f16>([2]).unwrap()), DType::F16);
    // i32 and the other non-float dtypes are refused at compile time (`T: Float`).
    assert!(linalg::inv(&d.eye::<f32>(2).unwrap()).is_ok());
}

per_dtype! {
    [f32_: f32, f64_: f64] => {
        empty => super::empty::<T>();
        one_by_one_identity_diagonal => super::one_by_one_identity_diagonal::<T>();
        special_values => super::special_values::<T>();
        failures_name_the_matrix => super::failures_name_the_matrix::<T>();
        bad_input => super::bad_input::<T>();
    }
}
