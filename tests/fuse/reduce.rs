//! Fused reductions as one kernel (shaders/fused_reduce.wgsl): the dispatch count, every
//! reduction whole and along each axis for every dtype, on strided views with offsets and
//! broadcast operands and scalars, against an f64 CPU reduction of the device's own
//! elementwise values (so the expression's rounding is the same on both sides) and against
//! the built-in reductions of those values; long (split) reductions, NaN, infinities,
//! zero sizes, determinism.
//!
//! Tolerances: integer sums and products wrap as the device's (exact); max and min exact
//! (the same bits as `Array::max`); float sums and means within K * eps(accumulator) *
//! sum(|v|) (f32 accumulates f16), products within K * eps relative, plus half an f16 ulp
//! (1e-3 relative) where the output is f16.

use crate::common::{assert_close, dev, host, if_supported, upload, Rng};
use gpuarray::custom::{fuse, KernelArg, Var};
use gpuarray::{Array, DType, Device, Error, Real, Slice};

#[derive(Debug, Clone, Copy, PartialEq)]
enum R {
    Sum,
    Prod,
    Max,
    Min,
    Mean,
}
const ALL: [R; 5] = [R::Sum, R::Prod, R::Max, R::Min, R::Mean];

/// `v` reduced by `r` over `axis` (every element for `None`).
fn var(r: R, v: Var, axis: Option<isize>) -> Var {
    match (r, axis) {
        (R::Sum, None) => v.sum(),
        (R::Sum, Some(a)) => v.sum_axis(a, false),
        (R::Prod, None) => v.prod(),
        (R::Prod, Some(a)) => v.prod_axis(a, false),
        (R::Max, None) => v.max(),
        (R::Max, Some(a)) => v.max_axis(a, false),
        (R::Min, None) => v.min(),
        (R::Min, Some(a)) => v.min_axis(a, false),
        (R::Mean, None) => v.mean(),
        (R::Mean, Some(a)) => v.mean_axis(a, false),
    }
}

/// The built-in reduction of `e` (not mean, whose method is for float types only).
fn method<T: Real>(r: R, e: &Array<T>, axis: Option<usize>) -> Vec<f64> {
    let a = match (r, axis) {
        (R::Sum, None) => e.sum(),
        (R::Sum, Some(a)) => e.sum_axis(a, false),
        (R::Prod, None) => e.prod(),
        (R::Prod, Some(a)) => e.prod_axis(a, false),
        (R::Max, None) => e.max(),
        (R::Max, Some(a)) => e.max_axis(a, false),
        (R::Min, None) => e.min(),
        (R::Min, Some(a)) => e.min_axis(a, false),
        (R::Mean, _) => unreachable!(),
    };
    host(&a.unwrap())
}

/// Integer results wrap to dtype `d` as the device's do.
fn wrap(d: DType, v: i64) -> f64 {
    match d {
        DType::I32 => v as i32 as f64,
        _ => v as u32 as f64,
    }
}

/// The CPU reduction of one group of values of dtype `d`.
fn cpu_group(r: R, d: DType, g: &[f64]) -> f64 {
    let nan = g.iter().any(|v| v.is_nan());
    match r {
        R::Sum if !d.is_float() => wrap(d, g.iter().fold(0i64, |s, &v| s.wrapping_add(v as i64))),
        R::Prod if !d.is_float() => wrap(d, g.iter().fold(1i64, |s, &v| s.wrapping_mul(v as i64))),
        R::Sum => g.iter().sum(),
        R::Prod => g.iter().product(),
        R::Mean => g.iter().sum::<f64>() / g.len() as f64,
        _ if nan => f64::NAN,
        R::Max => g.iter().cloned().fold(f64::NEG_INFINITY, f64::max),
        R::Min => g.iter().cloned().fold(f64::INFINITY, f64::min),
    }
}

/// Groups of the row-major `vals` of `shape` reduced over `axis`, in output order.
fn groups(vals: &[f64], shape: &[usize], axis: Option<usize>) -> Vec<Vec<f64>> {
    let Some(a) = axis else {
        return vec![vals.to_vec()];
    };
    let outer: usize = shape[..a].iter().product();
    let len = shape[a];
    let inner: usize = shape[a + 1..].iter().product();
    (0..outer)
        .flat_map(|o| {
            (0..inner).map(move |i| (0..len).map(|k| vals[(o * len + k) * inner + i]).collect())
        })
        .collect()
}

/// (atol, rtol) of reduction `r` of a group `g` of dtype `d` (see the module's comment).
fn tolerance(r: R, d: DType, g: &[f64]) -> (f64, f64) {
    let acc_eps = match d {
        DType::F64 => f64::EPSILON,
        DType::F32 | DType::F16 => f32::EPSILON as f64,
        _ => return (0.0, 0.0),
    };
    // f16 outputs: half an ulp, and half the smallest subnormal.
    let (out, tiny) = if d == DType::F16 {
        (1e-3, 2f64.powi(-25))
    } else {
        (0.0, 0.0)
    };
    let k = g.len() as f64;
    let abs: f64 = g.iter().map(|v| v.abs()).sum();
    match r {
        R::Sum => (k * acc_eps * abs + tiny, out),
        R::Mean => (acc_eps * abs + tiny, out),
        R::Prod => (tiny, k * acc_eps + out),
        R::Max | R::Min => (0.0, 0.0),
    }
}

/// Checks every reduction of `expr` on `args` over every axis of the broadcast shape
/// against the CPU and the built-in reductions of the elementwise values.
fn check_all<T: Real>(args: &[&dyn KernelArg], expr: fn([Var; 3]) -> Var) {
    let dev = dev();
    let d = T::DTYPE;
    let e = fuse(dev, expr).unwrap().call::<T>(args).unwrap();
    let shape = e.shape().to_vec();
    let vals = host(&e);
    let nd = shape.len() as isize;
    let axes = std::iter::once(None).chain((-nd..nd).map(Some));
    for axis in axes {
        let a = axis.map(|a| if a < 0 { a + nd } else { a } as usize);
        for r in ALL {
            if r == R::Mean && !d.is_float() {
                continue;
            }
            let f = fuse(dev, move |v: [Var; 3]| var(r, expr(v), axis)).unwrap();
            let got = host(&f.call::<T>(args).unwrap());
            let gs = groups(&vals, &shape, a);
            assert_eq!(got.len(), gs.len(), "{d:?} {r:?} {axis:?}");
            for (j, g) in gs.iter().enumerate() {
                let (atol, rtol) = tolerance(r, d, g);
                let want = [cpu_group(r, d, g)];
                assert_close(&got[j..j + 1], &want, atol, rtol);
            }
            if r != R::Mean {
                let m = method(r, &e, a);
                if !d.is_float() || matches!(r, R::Max | R::Min) {
                    let bits = |v: &[f64]| v.iter().map(|x| x.to_bits()).collect::<Vec<_>>();
                    assert_eq!(bits(&got), bits(&m), "{d:?} {r:?} {axis:?}: same bits");
                }
            }
        }
    }
}

/// Every reduction, whole and along each axis (negative too), of `x * y + s` with `x` a
/// strided view with an offset and `y` a broadcast row (and of contiguous operands of one
/// shape), for one dtype: axis 0 has 67 elements (a workgroup per output), axis 1 has 13
/// (an invocation per output).
fn every_reduction<T: Real + KernelArg>() {
    let dev = dev();
    let mut rng = Rng::new(11);
    let (r, c) = (67, 13);
    let d = T::DTYPE;
    let (lo, hi) = match d {
        DType::I32 => (-3.0, 3.0),
        DType::U32 => (0.0, 5.0),
        _ => (0.9, 1.1),
    };
    let draw = |rng: &mut Rng, n: usize| -> Vec<f64> {
        if d.is_float() {
            rng.vec(n, lo, hi)
        } else {
            rng.ints(n, lo as i64, hi as i64)
        }
    };
    let (base, _) = upload::<T>(dev, &draw(&mut rng, 2 * r * (c + 3)), &[2 * r, c + 3]);
    let x = base
        .slice([
            Slice::new(1, None, 2),
            Slice::new(2, Some(2 + c as isize), 1),
        ])
        .unwrap();
    let (y, _) = upload::<T>(dev, &draw(&mut rng, c), &[c]);
    // The third operand: a scalar (f64: a broadcast [1], as adapters without SHADER_INT64
    // refuse 64-bit scalars).
    let sv = if d.is_float() { 0.015625 } else { 1.0 };
    let scalar = T::from_f64(sv);
    let one = upload::<T>(dev, &[sv], &[1]).0;
    let s: &dyn KernelArg = if d == DType::F64 { &one } else { &scalar };
    let expr: fn([Var; 3]) -> Var = |[x, y, s]| x * y + s;
    check_all::<T>(&[&x, &y, s], expr);
    // Contiguous operands of one shape: the `offs + i` loads.
    let (x2, _) = upload::<T>(dev, &draw(&mut rng, r * c), &[r, c]);
    let (y2, _) = upload::<T>(dev, &draw(&mut rng, r * c), &[r, c]);
    check_all::<T>(&[&x2, &y2, s], expr);
}

#[test]
fn every_reduction_every_dtype_on_views_and_broadcasts() {
    every_reduction::<f32>();
    every_reduction::<i32>();
    every_reduction::<u32>();
    if_supported::<gpuarray::f16>(every_reduction::<gpuarray::f16>);
    if_supported::<f64>(every_reduction::<f64>);
}

/// The dispatches of `f` on a device of its own (the shared one runs other tests at once).
fn dispatches(dev: &Device, f: impl Fn() -> Vec<f64>) -> (u64, Vec<f64>) {
    let _ = f(); // compiles the kernels
    let before = dev.stats().dispatches;
    let v = f();
    (dev.stats().dispatches - before, v)
}

/// One kernel: a fused reduction records one dispatch where the built-in path records two
/// (the elementwise kernel, then the reduction); a split reduction (over 4096 elements per
/// workgroup) records two, the second over the partial results.
#[test]
fn a_fused_reduction_is_one_dispatch() {
    let dev = Device::new().unwrap();
    let mut rng = Rng::new(5);
    let xs: Vec<f32> = (0..37 * 41)
        .map(|_| rng.uniform(-1.0, 1.0) as f32)
        .collect();
    let x = dev.from_slice(&xs, [37, 41]).unwrap();
    let y = dev.from_slice(&xs[..41], [41]).unwrap();
    let sq = fuse(&dev, |[x, y]| (x - y) * (x - y)).unwrap();
    for (axis, want) in [(None, 1), (Some(0), 1), (Some(1), 1)] {
        let f = fuse(&dev, move |[x, y]| var(R::Sum, (x - y) * (x - y), axis)).unwrap();
        let (n, got) = dispatches(&dev, || host(&f.call::<f32>(&[&x, &y]).unwrap()));
        assert_eq!(n, want, "{axis:?}");
        let (n2, unfused) = dispatches(&dev, || {
            let e = sq.call::<f32>(&[&x, &y]).unwrap();
            host(&match axis {
                None => e.sum().unwrap(),
                Some(a) => e.sum_axis(a as usize, false).unwrap(),
            })
        });
        assert!(n2 >= 2, "{n2}");
        assert_close(&got, &unfused, 1e-5, 1e-5);
    }
    let big = dev.zeros::<f32>([100_003]).unwrap();
    let f = fuse(&dev, |[x]| (x + 1.0).sum()).unwrap();
    let (n, got) = dispatches(&dev, || host(&f.call::<f32>(&[&big]).unwrap()));
    assert_eq!((n, got), (2, vec![100_003.0]));
}

/// Long reductions split over workgroups (whole, along a contiguous axis, along a strided
/// one of a transposed view), sums, means, extremes with a NaN and with infinities, against
/// f64; twice, for the same bits.
#[test]
fn split_reductions_nan_and_infinities() {
    let dev = dev();
    let mut rng = Rng::new(9);
    let n = 3 * 20_011;
    let xs: Vec<f32> = (0..n).map(|_| rng.uniform(-2.0, 2.0) as f32).collect();
    let flat = dev.from_slice(&xs, [n]).unwrap();
    let rows = dev.from_slice(&xs, [3, 20_011]).unwrap();
    let cols = dev.from_slice(&xs, [20_011, 3]).unwrap().t();
    // f32 squares, as the device computes them; the rows of `rows` and of `cols`.
    let sq: Vec<f64> = xs.iter().map(|&v| (v * v) as f64).collect();
    let m = 20_011;
    let by_rows: Vec<Vec<f64>> = (0..3).map(|i| sq[i * m..(i + 1) * m].to_vec()).collect();
    let by_cols: Vec<Vec<f64>> = (0..3)
        .map(|i| (0..m).map(|k| sq[k * 3 + i]).collect())
        .collect();
    for (x, groups) in [
        (&flat, vec![sq.clone()]),
        (&rows, by_rows),
        (&cols, by_cols),
    ] {
        let axis = if groups.len() == 1 { None } else { Some(-1) };
        // (Products of 20,011 squares under 4 leave f32's range: covered above.)
        for r in [R::Sum, R::Max, R::Min, R::Mean] {
            let f = fuse(dev, move |[v]| var(r, v * v, axis)).unwrap();
            let got = host(&f.call::<f32>(&[x]).unwrap());
            let again = host(&f.call::<f32>(&[x]).unwrap());
            assert_eq!(got, again, "{r:?}: the same bits every run");
            for (j, g) in groups.iter().enumerate() {
                let (atol, rtol) = tolerance(r, DType::F32, g);
                assert_close(&got[j..j + 1], &[cpu_group(r, DType::F32, g)], atol, rtol);
            }
        }
    }
    // f16: the partial results are f32 accumulators, the output f16.
    if_supported::<gpuarray::f16>(|| {
        let h = dev.full([30_000], gpuarray::f16::from_f32(0.25)).unwrap();
        let f = fuse(dev, |[v]| (v + v).sum()).unwrap();
        let got = f.call::<gpuarray::f16>(&[&h]).unwrap().to_scalar().unwrap();
        assert_eq!(got.to_f32(), 15_000.0);
        let f = fuse(dev, |[v]| (v + v).mean()).unwrap();
        let got = f.call::<gpuarray::f16>(&[&h]).unwrap().to_scalar().unwrap();
        assert_eq!(got.to_f32(), 0.5);
    });
    // NaN anywhere propagates through sum, max and min; infinities are values.
    let mut ys = xs.clone();
    ys[40_000] = f32::NAN;
    let y = dev.from_slice(&ys, [3, 20_011]).unwrap();
    for r in [R::Sum, R::Max, R::Min, R::Mean] {
        let f = fuse(dev, move |[v]| var(r, v.abs(), None)).unwrap();
        assert!(
            f.call::<f32>(&[&y]).unwrap().to_scalar().unwrap().is_nan(),
            "{r:?}"
        );
        let f = fuse(dev, move |[v]| var(r, v.abs(), Some(1))).unwrap();
        let got = host(&f.call::<f32>(&[&y]).unwrap());
        assert!(
            got[1].is_nan() && !got[0].is_nan() && !got[2].is_nan(),
            "{r:?} {got:?}"
        );
    }
    let inf = dev.full([5, 70], f32::NEG_INFINITY).unwrap();
    let f = fuse(dev, |[v]| v.max_axis(1, false)).unwrap();
    assert_eq!(
        f.call::<f32>(&[&inf]).unwrap().to_vec().unwrap(),
        vec![f32::NEG_INFINITY; 5]
    );
    let f = fuse(dev, |[v]| (-v).min()).unwrap();
    assert_eq!(
        f.call::<f32>(&[&inf]).unwrap().to_scalar().unwrap(),
        f32::INFINITY
    );
    let pos = dev.full([70], f32::INFINITY).unwrap();
    let f = fuse(dev, |[v, w]| (v + w).sum()).unwrap();
    let r = f.call::<f32>(&[&inf, &pos]).unwrap().to_scalar().unwrap();
    assert!(r.is_nan(), "{r}");
}

/// Zero sizes: sums of nothing are 0, products 1, means NaN, extremes an error; an empty
/// kept axis gives an empty result; bad axes and arguments give typed errors and leave the
/// inputs intact.
#[test]
fn zero_sizes_and_bad_arguments() {
    let dev = dev();
    let e = dev.zeros::<f32>([0, 3]).unwrap();
    let sum = fuse(dev, |[v]| (v + 1.0).sum()).unwrap();
    assert_eq!(sum.call::<f32>(&[&e]).unwrap().to_scalar().unwrap(), 0.0);
    let sum0 = fuse(dev, |[v]| (v + 1.0).sum_axis(0, false)).unwrap();
    assert_eq!(
        sum0.call::<f32>(&[&e]).unwrap().to_vec().unwrap(),
        vec![0.0; 3]
    );
    let sum1 = fuse(dev, |[v]| (v + 1.0).sum_axis(1, false)).unwrap();
    assert_eq!(sum1.call::<f32>(&[&e]).unwrap().shape(), &[0]);
    let prod = fuse(dev, |[v]| v.prod()).unwrap();
    assert_eq!(
        prod.call::<i32>(&[&dev.zeros::<i32>([0]).unwrap()])
            .unwrap()
            .to_scalar()
            .unwrap(),
        1
    );
    let mean = fuse(dev, |[v]| v.mean_axis(0, false)).unwrap();
    assert!(host(&mean.call::<f32>(&[&e]).unwrap())
        .iter()
        .all(|v| v.is_nan()));
    for max in [
        fuse(dev, |[v]| v.max()).unwrap(),
        fuse(dev, |[v]| v.min_axis(0, false)).unwrap(),
    ] {
        let r = max.call::<f32>(&[&e]);
        assert!(matches!(r, Err(Error::InvalidArgument { .. })), "{r:?}");
    }
    let max1 = fuse(dev, |[v]| v.max_axis(1, false)).unwrap();
    assert_eq!(max1.call::<f32>(&[&e]).unwrap().shape(), &[0]);
    // Bad arguments of a fused reduction.
    let x = dev.from_slice(&[1.0f32, 2.0, 3.0], [3]).unwrap();
    let f = fuse(dev, |[a, b]| (a * b).sum_axis(0, false)).unwrap();
    assert!(matches!(
        f.call::<f32>(&[&x]),
        Err(Error::ArgumentCount { .. })
    ));
    // A scalar of another type takes the arrays' (as a Python scalar in CuPy).
    let r = f.call::<f32>(&[&x, &2.5f64]).unwrap();
    assert_eq!(r.to_scalar().unwrap(), 15.0);
    assert!(matches!(
        f.call::<i32>(&[&x, &x]),
        Err(Error::ArgumentType { .. })
    ));
    let y = dev.from_slice(&[1.0f32, 2.0], [2]).unwrap();
    assert!(matches!(
        f.call::<f32>(&[&x, &y]),
        Err(Error::ShapeMismatch { .. } | Error::Broadcast { .. })
    ));
    let f2 = fuse(dev, |[a, b]| (a * b).max_axis(1, false)).unwrap();
    assert!(matches!(
        f2.call::<f32>(&[&x, &x]),
        Err(Error::AxisOutOfRange { .. })
    ));
    assert_eq!(x.to_vec().unwrap(), vec![1.0, 2.0, 3.0]);
    assert_eq!(
        f.call::<f32>(&[&x, &2.0f32]).unwrap().to_scalar().unwrap(),
        12.0
    );
}
