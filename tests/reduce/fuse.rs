//! The fused last stage of split reductions (`Tuning::reduce_fuse`, default on: the last
//! workgroup of each output combines the partial results) against the CPU reference and
//! against the two-dispatch path (`reduce_fuse` off), on sizes whose rows are split across
//! workgroups (primes above 2^16, a few outputs) and the small ones that are not (0, 1):
//! sums within the tree tolerance, maxima and arg-reductions exact (NaN and ties included),
//! and the same bits on every run, also after a stage of another size has used the
//! device's counters.

use super::*;

/// A device whose split reductions take two dispatches.
fn unfused() -> &'static Device {
    static DEV: std::sync::OnceLock<Device> = std::sync::OnceLock::new();
    DEV.get_or_init(|| {
        let mut opts = gpuarray::Options::default();
        opts.tuning.reduce_fuse = false;
        Device::with_options(opts).expect("a device without fused reductions")
    })
}

/// `op` in `form` of the values `v` (as `T` holds them) (shape `shape`) on both devices: each against the
/// reference, and the fused result the same bits on a second run. Returns the fused values.
fn both<T: Red>(op: Op, form: &Form, shape: &[usize], v: &[f64]) -> Vec<f64> {
    let mut first = None;
    for (name, d) in [("fused", dev()), ("unfused", unfused())] {
        let (a, back) = upload::<T>(d, v, shape);
        let (axes, keepdims) = form.axes(shape.len());
        let (_, groups) = group(&Host::new(shape, back), &axes, keepdims);
        let label = format!("{} {op:?} {form:?} of {shape:?} ({name})", T::NAME);
        if op.extreme() && groups.iter().any(|g| g.is_empty()) {
            assert!(
                matches!(gpu(&a, op, form), Err(Error::InvalidArgument { .. })),
                "{label}"
            );
            continue;
        }
        let (_, got) = gpu(&a, op, form).unwrap_or_else(|e| panic!("{label}: {e}"));
        let (exp, tol): (Vec<f64>, Vec<f64>) = groups.iter().map(|g| reference::<T>(op, g)).unzip();
        assert_within(&label, &got, &exp, &tol);
        let (_, again) = gpu(&a, op, form).unwrap();
        let bits = |x: &[f64]| x.iter().map(|f| f.to_bits()).collect::<Vec<_>>();
        assert_eq!(bits(&got), bits(&again), "{label}: not the same bits twice");
        first.get_or_insert(got);
    }
    first.unwrap_or_default()
}

const SIZES: [&[usize]; 6] = [
    &[0],
    &[1],
    &[100_003],
    &[3, 100_003],
    &[2, 65_537],
    &[1 << 18],
];

#[test]
fn split_sums_and_extremes_f32() {
    let mut rng = Rng::new(seed("fuse_f32"));
    for shape in SIZES {
        for op in [Op::Sum, Op::Max, Op::ArgMax, Op::ArgMin, Op::Mean] {
            let v = values::<f32>(op, &mut rng, shape.iter().product());
            both::<f32>(op, &Form::Whole, shape, &v);
            both::<f32>(op, &Form::One(shape.len() - 1), shape, &v);
        }
    }
}

#[test]
fn split_sums_and_extremes_i32() {
    let mut rng = Rng::new(seed("fuse_i32"));
    for shape in [&[100_003][..], &[3, 100_003]] {
        for op in [Op::Sum, Op::Min, Op::ArgMax, Op::ArgMin] {
            let v = values::<i32>(op, &mut rng, shape.iter().product());
            both::<i32>(op, &Form::Whole, shape, &v);
            both::<i32>(op, &Form::One(1 % shape.len()), shape, &v);
        }
    }
}

/// NaN anywhere wins max and argmax (its first index); ties give the first index, also when
/// the first and a later occurrence fall in different splits.
#[test]
fn split_nan_and_ties_f32() {
    let n = 100_003;
    for (nan_at, tie_at) in [
        (None, [5, 90_001]),
        (Some(77_777), [3, 4]),
        (Some(n - 1), [0, n - 1]),
    ] {
        let mut v: Vec<f64> = (0..n).map(|i| (i % 1000) as f64 / 1000.0).collect();
        for t in tie_at {
            v[t] = 2.0;
        }
        if let Some(i) = nan_at {
            v[i] = f64::NAN;
        }
        let arg = both::<f32>(Op::ArgMax, &Form::Whole, &[n], &v);
        assert_eq!(arg, vec![nan_at.unwrap_or(tie_at[0]) as f64]);
        both::<f32>(Op::Max, &Form::Whole, &[n], &v);
    }
}
