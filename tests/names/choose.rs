//! `choose`, `select` and `ix_` against host models: every dtype,
//! strided views with offsets, broadcasting, zero sizes, special values copied exactly, and
//! bad arguments.

use crate::all_dtypes;
use crate::common::{assert_close, dev, host, Host, Rng};
use gpuarray::{Array, Error, Real, Slice};

/// Random values of `T` (NaN, infinities and -0 among floats) as a strided view with an
/// offset of a larger array: the `[1.., ::2]` part of a `[r + 1, 2c]` array.
fn view<T: Real>(rng: &mut Rng, r: usize, c: usize) -> (Array<T>, Vec<f64>) {
    let mut vals = rng.ints((r + 1) * 2 * c, 0, 40);
    if T::DTYPE.is_float() {
        for (k, v) in vals.iter_mut().enumerate().step_by(5) {
            *v = [f64::NAN, f64::INFINITY, -0.0, f64::NEG_INFINITY][k % 4];
        }
    }
    let (t, back) = crate::common::cast_in::<T>(&vals);
    let base = dev().from_slice(&t, [r + 1, 2 * c]).unwrap();
    let v = base
        .slice([Slice::from(1..), Slice::new(0, None, 2)])
        .unwrap();
    let h = Host::new(&[r + 1, 2 * c], back).slice(&[(1, r + 1, 1), (0, 2 * c, 2)]);
    (v, h.data)
}

/// Exact comparison (NaN equal to NaN, -0 told from 0 by the bits).
#[track_caller]
fn exact(got: &[f64], want: &[f64]) {
    assert_close(got, want, 0.0, 0.0);
    let signs = |v: &[f64]| v.iter().map(|x| x.is_sign_negative()).collect::<Vec<_>>();
    assert_eq!(signs(got), signs(want));
}

fn choose_select<T: Real>() {
    let dev = dev();
    let mut rng = Rng::new(4);
    let (r, c) = (7, 11);
    let (a, ha) = view::<T>(&mut rng, r, c);
    let (b, hb) = view::<T>(&mut rng, r, c);
    // A broadcast row as the third choice.
    let (row, hrow) = crate::common::upload::<T>(dev, &rng.ints(c, 0, 9), &[c]);
    let idx: Vec<i32> = (0..r * c).map(|_| rng.int(0, 2) as i32).collect();
    let which = dev.from_slice(&idx, [r, c]).unwrap();
    let got = which.choose(&[&a, &b, &row]).unwrap();
    assert_eq!(got.shape(), &[r, c]);
    let want: Vec<f64> = (0..r * c)
        .map(|i| [ha[i], hb[i], hrow[i % c]][idx[i] as usize])
        .collect();
    exact(&host(&got), &want);
    // One choice: a copy broadcast to the index's shape.
    let one = which.lt_scalar(0).unwrap();
    let zeros = dev.zeros::<i32>([r, c]).unwrap();
    assert!(!host(&one).iter().any(|&v| v != 0.0));
    let got = zeros.choose(&[&row]).unwrap();
    exact(
        &host(&got),
        &(0..r * c).map(|i| hrow[i % c]).collect::<Vec<_>>(),
    );
    // select: the first condition that holds wins, else the default.
    let c0 = which.eq_scalar(0).unwrap();
    let c1 = which.le_scalar(1).unwrap();
    let d = T::from_f64(3.0);
    let got = Array::select(&[&c0, &c1], &[&a, &row], d).unwrap();
    let want: Vec<f64> = (0..r * c)
        .map(|i| match idx[i] {
            0 => ha[i],
            1 => hrow[i % c],
            _ => 3.0,
        })
        .collect();
    exact(&host(&got), &want);
    // Zero sizes.
    let e = dev.zeros::<i32>([0, c]).unwrap();
    assert_eq!(
        e.choose(&[&a.slice([Slice::from(0..0)]).unwrap()])
            .unwrap()
            .shape(),
        &[0, c]
    );
    let ec = dev.zeros::<bool>([0]).unwrap();
    let ex = dev.zeros::<T>([0]).unwrap();
    assert_eq!(Array::select(&[&ec], &[&ex], d).unwrap().shape(), &[0]);
}

#[test]
fn choose_and_select_match_numpy() {
    all_dtypes!(choose_select);
}

fn ix<T: Real>() {
    let mut rng = Rng::new(8);
    // A strided 1-D view with an offset: elements 1, 3, ... 9 of 11.
    let (t, back) = crate::common::cast_in::<T>(&rng.ints(11, 0, 40));
    let base = dev().from_slice(&t, [11]).unwrap();
    let a = base.slice([Slice::new(1, None, 2)]).unwrap();
    let ha: Vec<f64> = (0..5).map(|k| back[1 + 2 * k]).collect();
    let b = dev()
        .from_slice(&[T::one(), T::zero(), T::one()], [3])
        .unwrap();
    let rev = b.flip(0).unwrap();
    let m = Array::ix_(&[&a, &rev, &b]).unwrap();
    assert_eq!(m[0].shape(), &[5, 1, 1]);
    assert_eq!(m[1].shape(), &[1, 3, 1]);
    assert_eq!(m[2].shape(), &[1, 1, 3]);
    exact(&host(&m[0]), &ha);
    exact(&host(&m[1]), &[1.0, 0.0, 1.0]);
    // The mesh broadcasts: m0 + m2 is the outer sum.
    let s = m[0].add(&m[2]).unwrap();
    assert_eq!(s.shape(), &[5, 1, 3]);
    let hb = [1.0, 0.0, 1.0];
    let want: Vec<f64> = (0..15)
        .map(|i| T::from_f64(ha[i / 3] + hb[i % 3]).to_f64())
        .collect();
    exact(&host(&s), &want);
    assert!(Array::<T>::ix_(&[]).unwrap().is_empty());
    let e = dev().zeros::<T>([0]).unwrap();
    assert_eq!(Array::ix_(&[&e, &b]).unwrap()[0].shape(), &[0, 1]);
}

#[test]
fn ix_makes_an_open_mesh_of_views() {
    all_dtypes!(ix);
}

#[test]
fn choose_select_ix_bad_arguments() {
    let dev = dev();
    let which = dev.from_slice(&[0i32, 3, 1], [3]).unwrap();
    let a = dev.from_slice(&[1.0f32, 2.0, 3.0], [3]).unwrap();
    let e = which.choose(&[&a, &a, &a]).unwrap_err();
    assert!(
        matches!(
            e,
            Error::IndexOutOfRange {
                op: "choose",
                len: 3,
                ..
            }
        ),
        "{e:?}"
    );
    let neg = dev.from_slice(&[-1i32], [1]).unwrap();
    assert!(matches!(
        neg.choose(&[&a]),
        Err(Error::IndexOutOfRange { .. })
    ));
    assert!(matches!(
        which.choose::<f32>(&[]),
        Err(Error::InvalidArgument { .. })
    ));
    let short = dev.from_slice(&[1.0f32, 2.0], [2]).unwrap();
    assert!(matches!(
        dev.zeros::<i32>([3]).unwrap().choose(&[&short]),
        Err(Error::ShapeMismatch { .. } | Error::Broadcast { .. })
    ));
    let m = a.gt_scalar(1.0).unwrap();
    assert!(matches!(
        Array::select(&[&m, &m], &[&a], 0.0),
        Err(Error::InvalidArgument { .. })
    ));
    assert!(matches!(
        Array::<f32>::select(&[], &[], 0.0),
        Err(Error::InvalidArgument { .. })
    ));
    let m2 = a.reshape([3, 1]).unwrap();
    assert!(matches!(
        Array::ix_(&[&a, &m2]),
        Err(Error::InvalidArgument { .. })
    ));
    // The inputs are intact.
    assert_eq!(a.to_vec().unwrap(), vec![1.0, 2.0, 3.0]);
    assert_eq!(which.to_vec().unwrap(), vec![0, 3, 1]);
}
