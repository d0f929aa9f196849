//! Creation from parameters (logspace, geomspace, tri) against f64 host references, for every
//! float dtype (tri: every dtype), with zero and one element, negative k, and bad arguments
//! of these and of the diagonal/triangle/meshgrid functions.

mod common;

use common::{assert_close, dev, host, if_supported};
use gpuarray::custom::Var;
use gpuarray::{f16, Array, Error, Float, Indexing, Real};

/// Relative tolerance of the geom kernel for `T`: the exponent is computed in the carrier
/// (f32 for f16 and f32), so its rounding error (about |exponent| * 2^-24 for f32) scales
/// the value's relative error; plus the rounding of f16 results.
fn rtol<T: Real>(max_exp2: f64) -> f64 {
    match T::DTYPE {
        gpuarray::DType::F64 => 1e-14 * (1.0 + max_exp2),
        gpuarray::DType::F32 => 4.0 * f32::EPSILON as f64 * (1.0 + max_exp2),
        _ => 1e-3,
    }
}

fn spaces<T: Float>() {
    let d = dev();
    // logspace: (start, stop, num, base); endpoints are base^start and base^stop exactly
    // (rounded once from f64).
    for (a, b, num, base) in [
        (0.0, 3.0, 4, 10.0),
        (-2.5, 4.0, 97, 10.0),
        (3.0, -3.0, 13, 2.0),
        (1.0, 2.0, 1, 3.0),
        (0.0, 1.0, 0, 10.0),
        (-4.0, 4.0, 31, 0.5),
        (0.0, 7.0, 8, 1.0),
    ] {
        let got = host(&d.logspace::<T>(a, b, num, base).unwrap());
        let want: Vec<f64> = (0..num)
            .map(|i| {
                let e = if num > 1 {
                    a + (b - a) * i as f64 / (num - 1) as f64
                } else {
                    a
                };
                T::from_f64(base.powf(e)).to_f64()
            })
            .collect();
        let lg = (a.abs().max(b.abs()) * base.log2().abs()).max(1.0);
        assert_close(&got, &want, 0.0, rtol::<T>(lg));
        if num > 0 {
            assert_eq!(got[0], want[0], "logspace({a}, {b}, {num}, {base}) first");
            assert_eq!(got[num - 1], want[num - 1], "last");
        }
    }
    // geomspace: endpoints exactly start and stop; negative pairs negated.
    for (a, b, num) in [
        (1.0, 1000.0, 4),
        (1000.0, 1.0, 4),
        (-1.0, -1e4, 5),
        (0.3, 7.1, 101),
        (-2.0, -0.125, 1),
        (5.0, 9.0, 0),
        (2.0, 2.0, 3),
        (1e-3, 6e4, 50),
    ] {
        let (ta, tb) = (T::from_f64(a), T::from_f64(b));
        let (fa, fb) = (ta.to_f64(), tb.to_f64());
        let got = host(&d.geomspace::<T>(ta, tb, num).unwrap());
        let want: Vec<f64> = (0..num)
            .map(|i| {
                let t = if num > 1 {
                    i as f64 / (num - 1) as f64
                } else {
                    0.0
                };
                let v = fa.signum() * (fa.abs().ln() * (1.0 - t) + fb.abs().ln() * t).exp();
                T::from_f64(v).to_f64()
            })
            .collect();
        let lg = fa.abs().log2().abs().max(fb.abs().log2().abs()).max(1.0);
        assert_close(&got, &want, 0.0, rtol::<T>(lg));
        if num > 0 {
            assert_eq!(got[0], fa, "geomspace first is start");
        }
        if num > 1 {
            assert_eq!(got[num - 1], fb, "geomspace last is stop");
        }
    }
}

#[test]
fn spaces_f16() {
    if_supported::<f16>(spaces::<f16>);
}

#[test]
fn spaces_f32() {
    spaces::<f32>();
}

#[test]
fn spaces_f64() {
    if_supported::<f64>(spaces::<f64>);
}

fn tri_of<T: Real>() {
    for (n, m) in [(0usize, 3usize), (3, 0), (1, 1), (5, 3), (3, 7)] {
        for k in [0isize, 1, -1, 2, -4, 100, -100, isize::MAX, isize::MIN] {
            let got = host(&dev().tri::<T>(n, m, k).unwrap());
            let want: Vec<f64> = (0..n * m)
                .map(|i| ((i % m) as isize - (i / m) as isize <= k) as u8 as f64)
                .collect();
            assert_eq!(got, want, "tri({n}, {m}, {k})");
        }
    }
}

#[test]
fn tri_every_dtype() {
    if_supported::<f16>(tri_of::<f16>);
    tri_of::<f32>();
    if_supported::<f64>(tri_of::<f64>);
    tri_of::<i32>();
    tri_of::<u32>();
}

#[test]
fn zero_sizes() {
    let d = dev();
    let e = d.zeros::<f32>([0]).unwrap();
    assert_eq!(e.diag(2).unwrap().shape(), &[2, 2]);
    assert_eq!(host(&e.diag(-2).unwrap()), vec![0.0; 4]);
    let z = d.zeros::<i32>([2, 0, 3]).unwrap();
    assert_eq!(z.triu(0).unwrap().shape(), &[2, 0, 3]);
    assert_eq!(z.diagonal(0, 1, 2).unwrap().shape(), &[2, 0]);
    let m = d.zeros::<f32>([3, 4]).unwrap();
    assert_eq!(m.diagonal(5, 0, 1).unwrap().shape(), &[0]);
    assert_eq!(m.diagonal(-3, 0, 1).unwrap().shape(), &[0]);
    let g = Array::meshgrid(&[&e, &m.diagonal(0, 0, 1).unwrap()], Indexing::Xy, true).unwrap();
    assert_eq!(g[0].shape(), &[3, 0]);
    assert!(Array::<f32>::meshgrid(&[], Indexing::Ij, true)
        .unwrap()
        .is_empty());
}

#[test]
fn bad_arguments() {
    let d = dev();
    let bad = |r: Result<Array<f32>, Error>, op: &str| match r {
        Err(Error::InvalidArgument { op: o, .. }) => assert_eq!(o, op),
        other => panic!("{op}: expected InvalidArgument, got {other:?}"),
    };
    bad(d.geomspace(0.0, 1.0, 3), "geomspace");
    bad(d.geomspace(1.0, -0.0, 3), "geomspace");
    bad(d.geomspace(-1.0, 1.0, 3), "geomspace");
    bad(d.geomspace(1.0, f32::INFINITY, 3), "geomspace");
    bad(d.geomspace(f32::NAN, 1.0, 3), "geomspace");
    bad(d.logspace(0.0, 1.0, 3, 0.0), "logspace");
    bad(d.logspace(0.0, 1.0, 3, -2.0), "logspace");
    bad(d.logspace(0.0, f64::NAN, 3, 10.0), "logspace");
    bad(d.logspace(f64::INFINITY, 1.0, 3, 10.0), "logspace");
    let x = d.arange::<f32>(0.0, 24.0, 1.0).unwrap();
    bad(x.triu(0), "triu");
    bad(x.tril(0), "tril");
    bad(x.reshape([2, 3, 4]).unwrap().diag(0), "diag");
    bad(x.reshape([4, 6]).unwrap().diagonal(0, 1, -1), "diagonal");
    assert!(matches!(
        x.reshape([4, 6]).unwrap().diagonal(0, 0, 2),
        Err(Error::AxisOutOfRange { axis: 2, ndim: 2 })
    ));
    let m = x.reshape([4, 6]).unwrap();
    match Array::meshgrid(&[&x, &m], Indexing::Xy, true) {
        Err(Error::InvalidArgument { op: "meshgrid", .. }) => {}
        other => panic!("meshgrid: {other:?}"),
    }
    // The inputs are intact and the device still works.
    assert_eq!(host(&x)[23], 23.0);
    assert_eq!(
        host(&d.tri::<f32>(2, 2, 0).unwrap()),
        vec![1.0, 0.0, 1.0, 1.0]
    );
}

/// from_fn against the host evaluation of the same expression at every index, for every
/// dtype, 0 to 5 axes, zero sizes and a prime extent; a traced sum and 6 axes are refused.
fn from_fn_of<T: Real>() {
    let d = dev();
    let got = d
        .from_fn::<T, 2>([7, 3], |[i, j]| i * 3.0 + j + 1.0)
        .unwrap();
    let want: Vec<f64> = (0..21)
        .map(|k| T::from_f64(k as f64 + 1.0).to_f64())
        .collect();
    assert_eq!((got.shape(), host(&got)), (&[7usize, 3][..], want));
    let got = d.from_fn::<T, 3>([2, 0, 4], |[i, j, k]| i + j + k).unwrap();
    assert_eq!(got.shape(), &[2, 0, 4]);
    let got = d.from_fn::<T, 1>([5], |[i]| i * i * 2.0 + 1.0).unwrap();
    let want: Vec<f64> = (0..5).map(|i| (i * i * 2 + 1) as f64).collect();
    assert_eq!(host(&got), want);
    let got = d.from_fn::<T, 0>([], |[]| Var::from(3.0)).unwrap();
    assert_eq!((got.shape(), host(&got)), (&[][..], vec![3.0]));
    let shape = [2, 3, 1, 2, 3];
    let got = d
        .from_fn::<T, 5>(shape, |[a, b, c, e, f]| {
            a * 4.0 + b * 3.0 + c * 7.0 + e * 2.0 + f
        })
        .unwrap();
    let want: Vec<f64> = (0..36)
        .map(|k| {
            let i = common::unravel(k, &shape);
            (i[0] * 4 + i[1] * 3 + i[2] * 7 + i[3] * 2 + i[4]) as f64
        })
        .collect();
    assert_eq!(host(&got), want);
}

#[test]
fn from_fn_every_dtype() {
    if_supported::<f16>(from_fn_of::<f16>);
    from_fn_of::<f32>();
    if_supported::<f64>(from_fn_of::<f64>);
    from_fn_of::<i32>();
    from_fn_of::<u32>();
    // Float math on indices: a Gaussian bump, against f64 with f32 tolerance.
    let got = dev()
        .from_fn::<f32, 2>([5, 4], |[i, j]| (-(i * i + j * j) * 0.1).exp())
        .unwrap();
    let want: Vec<f64> = (0..20)
        .map(|k| (-(((k / 4) * (k / 4) + (k % 4) * (k % 4)) as f64) * 0.1).exp())
        .collect();
    assert_close(&host(&got), &want, 1e-6, 1e-5);
    match dev().from_fn::<f32, 1>([3], |[i]| i.sum()) {
        Err(Error::InvalidArgument { op: "from_fn", .. }) => {}
        other => panic!("{other:?}"),
    }
    match dev().from_fn::<f32, 6>([1; 6], |[i, ..]| i) {
        Err(Error::TooManyDims { ndim: 6, max: 5 }) => {}
        other => panic!("{other:?}"),
    }
}
