//! Empty and one-element inputs, ddof, bad arguments.

use super::*;

#[track_caller]
fn invalid<R: std::fmt::Debug>(r: Result<R>, what: &str) {
    match r {
        Err(Error::InvalidArgument { .. }) => {}
        other => panic!("{what}: expected InvalidArgument, got {other:?}"),
    }
}

#[track_caller]
fn out_of_range<R: std::fmt::Debug>(r: Result<R>, axis: isize, ndim: usize, what: &str) {
    match r {
        Err(Error::AxisOutOfRange { axis: a, ndim: n }) => {
            assert_eq!((a, n), (axis, ndim), "{what}")
        }
        other => panic!("{what}: expected AxisOutOfRange, got {other:?}"),
    }
}

/// Sum of nothing is 0, product 1, all 1, any 0, mean/var/std NaN, norm 0; max/min/arg* of
/// an empty reduced set are errors after which the device works; an output with a zero
/// extent is an empty array.
#[test]
fn empty_inputs() {
    let dev = dev();
    let e = dev.zeros::<f32>([0]).unwrap();
    let scalar = |a: Array<f32>| {
        assert_eq!(a.shape(), &[] as &[usize]);
        a.to_scalar().unwrap()
    };
    assert_eq!(scalar(e.sum().unwrap()), 0.0);
    assert_eq!(scalar(e.prod().unwrap()), 1.0);
    assert_eq!(scalar(e.norm().unwrap()), 0.0);
    assert!(scalar(e.mean().unwrap()).is_nan());
    assert!(scalar(e.var().unwrap()).is_nan());
    assert!(scalar(e.std().unwrap()).is_nan());
    assert!(e.all().unwrap().to_scalar().unwrap());
    assert!(!e.any().unwrap().to_scalar().unwrap());
    invalid(e.max(), "max of [0]");
    invalid(e.min(), "min of [0]");
    invalid(e.argmax(), "argmax of [0]");
    invalid(e.argmin(), "argmin of [0]");
    invalid(e.max_axis(0, false), "max_axis(0) of [0]");
    still_works(dev);

    let ei = dev.zeros::<i32>([0, 4]).unwrap();
    assert_eq!(host(&ei.sum_axis(0, false).unwrap()), vec![0.0; 4]);
    assert_eq!(host(&ei.prod_axis(0, false).unwrap()), vec![1.0; 4]);
    assert_eq!(host(&ei.all_axis(0, false).unwrap()), vec![1.0; 4]);
    assert_eq!(host(&ei.any_axis(0, false).unwrap()), vec![0.0; 4]);
    invalid(ei.max_axis(0, false), "max_axis(0) of [0, 4]");
    invalid(ei.argmin_axis(0, false), "argmin_axis(0) of [0, 4]");
    invalid(ei.min_axis([0], true), "min_axis([0], keepdims) of [0, 4]");
    still_works(dev);
    // Kept zero-length axis: empty outputs, no error.
    let m = ei.max_axis(1, false).unwrap();
    assert_eq!((m.shape(), m.len()), (&[0usize][..], 0));
    let m = ei.argmax_axis(1, false).unwrap();
    assert_eq!(m.shape(), &[0]);
    let m = ei.sum_axis([1], true).unwrap();
    assert_eq!(m.shape(), &[0, 1]);
    assert!(m.to_vec().unwrap().is_empty());
    let m = ei.min_axis([1], false).unwrap();
    assert_eq!(m.shape(), &[0]);

    let ef = dev.zeros::<f32>([3, 0]).unwrap();
    let m = ef.mean_axis(1, false).unwrap();
    assert_eq!(m.shape(), &[3]);
    assert!(host(&m).iter().all(|x| x.is_nan()));
    assert_eq!(host(&ef.norm_axis(1, false).unwrap()), vec![0.0; 3]);
    let m = ef.var_axis([1], 0, true).unwrap();
    assert_eq!(m.shape(), &[3, 1]);
    assert!(host(&m).iter().all(|x| x.is_nan()));
    assert_eq!(ef.mean_axis(0, false).unwrap().shape(), &[0]);
    invalid(ef.max(), "max of [3, 0]");
    still_works(dev);
}

/// One element: the value itself (sum, max, mean, norm of |x|), index 0, variance 0, and the
/// 0-d array.
#[test]
fn one_element() {
    let dev = dev();
    for shape in [&[][..], &[1], &[1, 1, 1]] {
        let a = dev.full::<f32>(shape, -2.5).unwrap();
        let s = |r: Result<Array<f32>>| r.unwrap().to_scalar().unwrap();
        assert_eq!(s(a.sum()), -2.5);
        assert_eq!(s(a.prod()), -2.5);
        assert_eq!(s(a.max()), -2.5);
        assert_eq!(s(a.min()), -2.5);
        assert_eq!(s(a.mean()), -2.5);
        assert_eq!(s(a.var()), 0.0);
        assert_eq!(s(a.std()), 0.0);
        assert_eq!(s(a.norm()), 2.5);
        assert!(s(a.var_axis(.., 1, false)).is_nan());
        assert_eq!(a.argmax().unwrap().to_scalar().unwrap(), 0);
        assert_eq!(a.argmin().unwrap().to_scalar().unwrap(), 0);
        assert!(a.all().unwrap().to_scalar().unwrap());
        assert!(a.any().unwrap().to_scalar().unwrap());
        let same = a.sum_axis(gpuarray::Axes::Many(vec![]), false).unwrap();
        assert_eq!(same.shape(), shape);
        assert_eq!(host(&same), vec![-2.5]);
    }
    let u = dev.from_slice(&[7u32], [1]).unwrap();
    assert_eq!(u.sum().unwrap().to_scalar().unwrap(), 7);
    assert_eq!(u.max_axis(0, false).unwrap().to_scalar().unwrap(), 7);
}

/// `sum_axis(Axes::Many(vec![]), ..)` reduces nothing: the same values and shape.
#[test]
fn empty_axis_set_is_identity() {
    let dev = dev();
    let mut rng = Rng::new(seed("identity"));
    let (a, v) = upload::<f32>(dev, &rng.vec(60, -1.0, 2.0), &[3, 4, 5]);
    for kd in [false, true] {
        for r in [
            a.sum_axis(gpuarray::Axes::Many(vec![]), kd),
            a.prod_axis(gpuarray::Axes::Many(vec![]), kd),
            a.max_axis(gpuarray::Axes::Many(vec![]), kd),
            a.min_axis(gpuarray::Axes::Many(vec![]), kd),
            a.mean_axis(gpuarray::Axes::Many(vec![]), kd),
        ] {
            let r = r.unwrap();
            assert_eq!(r.shape(), &[3, 4, 5]);
            assert_eq!(host(&r), v);
        }
        assert_eq!(
            host(&a.var_axis(gpuarray::Axes::Many(vec![]), 0, kd).unwrap()),
            vec![0.0; 60]
        );
        let n = a.norm_axis(gpuarray::Axes::Many(vec![]), kd).unwrap();
        assert_eq!(host(&n), v.iter().map(|x| x.abs()).collect::<Vec<_>>());
    }
    let (b, v) = upload::<i32>(dev, &rng.ints(12, -5, 5), &[4, 3]);
    let t = b.t();
    let r = t.sum_axis(gpuarray::Axes::Many(vec![]), false).unwrap();
    assert_eq!(r.shape(), &[3, 4]);
    assert_eq!(host(&r), Host::new(&[4, 3], v).t().data);
}

/// var/std divide by max(n - ddof, 0): ddof >= n gives inf (or NaN for zero squares).
fn ddof_cases<T: Red + Float>() {
    let dev = dev();
    require_dtype!(T);
    let a = dev
        .from_slice(&[T::from_f64(1.0), T::from_f64(2.0)], [2])
        .unwrap();
    let s = |r: Result<Array<T>>| r.unwrap().to_scalar().unwrap().to_f64();
    assert_eq!(s(a.var()), 0.25);
    assert_eq!(s(a.var_axis(.., 0, false)), 0.25);
    assert_eq!(s(a.var_axis(.., 1, false)), 0.5);
    assert_eq!(s(a.var_axis(.., 2, false)), f64::INFINITY);
    assert_eq!(s(a.var_axis(.., 3, false)), f64::INFINITY);
    assert_eq!(s(a.std()), 0.5);
    assert_eq!(s(a.std_axis(.., 2, false)), f64::INFINITY);
    let one = dev.from_slice(&[T::from_f64(3.0)], [1]).unwrap();
    assert!(s(one.var_axis(.., 1, false)).is_nan());
    assert!(s(one.std_axis(.., 1, false)).is_nan());

    let mut rng = Rng::new(seed(&format!("ddof {}", T::NAME)));
    let (a, h) = make::<T>(Op::Var(0), &mut rng, &[4, 5, 3]);
    for d in [0, 1, 2, 3, 5, 7, 15, 60, 61] {
        for form in [
            Form::Whole,
            Form::One(1),
            Form::Set(vec![0, 2], true),
            Form::Set(vec![2], false),
        ] {
            check("[4, 5, 3]", &a, &h, Op::Var(d), &form);
            check("[4, 5, 3]", &a, &h, Op::Std(d), &form);
        }
    }
    // A constant array has variance 0 (up to rounding of the mean).
    let h = Host::new(&[1031], vec![2.5; 1031]);
    let c = special::to_device::<T>(&h);
    for op in [Op::Var(0), Op::Std(0), Op::Var(1)] {
        check("[2.5; 1031]", &c, &h, op, &Form::Whole);
    }
}

#[test]
fn ddof_f32() {
    ddof_cases::<f32>();
}

#[test]
fn ddof_f16() {
    ddof_cases::<f16>();
}

#[test]
fn ddof_f64() {
    ddof_cases::<f64>();
}

/// An axis >= ndim is AxisOutOfRange, a repeated axis InvalidArgument, for every op; the
/// device works afterwards.
#[test]
fn bad_axes_are_errors() {
    let dev = dev();
    let a = dev.zeros::<f32>([2, 3, 4]).unwrap();
    out_of_range(a.sum_axis(3, false), 3, 3, "sum_axis");
    out_of_range(a.prod_axis(3, false), 3, 3, "prod_axis");
    out_of_range(a.max_axis(3, false), 3, 3, "max_axis");
    out_of_range(a.min_axis(7, false), 7, 3, "min_axis");
    out_of_range(a.argmax_axis(3, false), 3, 3, "argmax_axis");
    out_of_range(a.argmin_axis(4, false), 4, 3, "argmin_axis");
    out_of_range(a.all_axis(3, false), 3, 3, "all_axis");
    out_of_range(a.any_axis(3, false), 3, 3, "any_axis");
    out_of_range(a.mean_axis(3, false), 3, 3, "mean_axis");
    out_of_range(a.var_axis(3, 0, false), 3, 3, "var_axis");
    out_of_range(a.std_axis(3, 0, false), 3, 3, "std_axis");
    out_of_range(a.norm_axis(3, false), 3, 3, "norm_axis");
    out_of_range(a.sum_axis([0, 3], false), 3, 3, "sum_axis");
    out_of_range(a.max_axis([5], true), 5, 3, "max_axis");
    out_of_range(a.all_axis([1, 9], true), 9, 3, "all_axis");
    out_of_range(a.var_axis([3], 1, false), 3, 3, "var_axis");
    out_of_range(a.std_axis([0, 1, 2, 3], 0, true), 3, 3, "std_axis");
    out_of_range(a.norm_axis([6], false), 6, 3, "norm_axis");
    let z = dev.full::<f32>([], 1.0).unwrap();
    out_of_range(z.sum_axis(0, false), 0, 0, "sum_axis of 0-d");
    out_of_range(z.argmax_axis(0, false), 0, 0, "argmax_axis of 0-d");
    still_works(dev);

    invalid(a.sum_axis([1, 1], false), "sum_axis [1, 1]");
    invalid(a.prod_axis([0, 2, 0], true), "prod_axis [0, 2, 0]");
    invalid(a.max_axis([2, 2], true), "max_axis [2, 2]");
    invalid(a.min_axis([0, 0], false), "min_axis [0, 0]");
    invalid(a.any_axis([1, 1], false), "any_axis [1, 1]");
    invalid(a.all_axis([2, 1, 2], false), "all_axis [2, 1, 2]");
    invalid(a.mean_axis([2, 2], false), "mean_axis [2, 2]");
    invalid(a.var_axis([0, 0], 1, false), "var_axis [0, 0]");
    invalid(a.std_axis([1, 1], 0, true), "std_axis [1, 1]");
    invalid(a.norm_axis([0, 1, 0], false), "norm_axis [0, 1, 0]");
    let b = dev.zeros::<i32>([5, 3]).unwrap();
    invalid(b.sum_axis([0, 0], false), "i32 sum_axis [0, 0]");
    out_of_range(b.argmin_axis(2, false), 2, 2, "i32 argmin_axis");
    still_works(dev);
}

/// Whole-array argmax / argmin write their i64 index as two u32 words from the reduction's
/// final stage: right on a device opened without SHADER_INT64 (`Tuning::int64 = false`, no
/// 64-bit integer in any shader), past one workgroup's elements, for f32 and i32, and the
/// same as the axis form (which widens u32 indices in a second pass).
#[test]
fn whole_arg_indices_without_int64() {
    let mut o = gpuarray::Options::default();
    o.tuning.int64 = false;
    let d = Device::with_options(o).expect("a device");
    // A permutation of 0..n (n prime), so one maximum and one minimum.
    let n = 100_003usize;
    let v: Vec<i32> = (0..n).map(|i| ((i * 7919) % n) as i32).collect();
    let first = |want: i32| v.iter().position(|&x| x == want).unwrap() as i64;
    let (imax, imin) = (first(n as i32 - 1), first(0));
    let a = d.from_slice(&v, [n]).unwrap();
    let f: Vec<f32> = v.iter().map(|&x| x as f32).collect();
    let af = d.from_slice(&f, [n]).unwrap();
    assert_eq!(a.argmax().unwrap().to_scalar().unwrap(), imax);
    assert_eq!(a.argmin().unwrap().to_scalar().unwrap(), imin);
    assert_eq!(af.argmax().unwrap().to_scalar().unwrap(), imax);
    assert_eq!(af.argmin().unwrap().to_scalar().unwrap(), imin);
    let m = af.reshape([1, n]).unwrap();
    assert_eq!(
        m.argmax_axis(1, false).unwrap().to_vec().unwrap(),
        vec![imax]
    );
    assert_eq!(
        m.argmin_axis(1, false).unwrap().to_vec().unwrap(),
        vec![imin]
    );
}
