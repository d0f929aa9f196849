//! One axis argument everywhere (`impl Into<Axes>`): per family (reductions, sort / top-k /
//! quantile, scans, manipulation and joins, indexing, `ReductionKernel`, `fuse`), negative
//! axes, several axes and all (`..`) against a CPU reference on a [3, 4, 5] array, `keepdims`
//! against the reduction without it, and bad axes: a typed error, after which the device
//! still computes.

mod common;

use common::{assert_close, dev, host, unravel, upload, Host, Rng};
use gpuarray::custom::{fuse, ReductionKernel};
use gpuarray::{Array, Axes, Error, Result};

const SHAPE: [usize; 3] = [3, 4, 5];

/// The test array: small integers as f32 (sums exact), and its host copy.
fn data() -> (Array<f32>, Host) {
    let mut rng = Rng::new(31);
    let v = rng.ints(60, -9, 9);
    let (x, v) = upload::<f32>(dev(), &v, &SHAPE);
    (x, Host::new(&SHAPE, v))
}

/// `f` of each lane over the (sorted) axes `axes` of `h`; with `keepdims` they stay as 1.
fn reduce_ref(h: &Host, axes: &[usize], keepdims: bool, f: impl Fn(&[f64]) -> f64) -> Host {
    let kept: Vec<usize> = (0..h.shape.len()).filter(|d| !axes.contains(d)).collect();
    let out_shape: Vec<usize> = kept.iter().map(|&d| h.shape[d]).collect();
    let m: usize = out_shape.iter().product();
    let mut lanes = vec![Vec::new(); m];
    for (i, &v) in h.data.iter().enumerate() {
        let idx = unravel(i, &h.shape);
        let mut o = 0;
        for &d in &kept {
            o = o * h.shape[d] + idx[d];
        }
        lanes[o].push(v);
    }
    let data = lanes.iter().map(|l| f(l)).collect();
    let shape = if keepdims {
        (0..h.shape.len())
            .map(|d| if axes.contains(&d) { 1 } else { h.shape[d] })
            .collect()
    } else {
        out_shape
    };
    Host::new(&shape, data)
}

fn sum(l: &[f64]) -> f64 {
    l.iter().sum()
}
fn max(l: &[f64]) -> f64 {
    l.iter().copied().fold(f64::NEG_INFINITY, f64::max)
}
fn mean(l: &[f64]) -> f64 {
    sum(l) / l.len() as f64
}
fn var1(l: &[f64]) -> f64 {
    let m = mean(l);
    l.iter().map(|v| (v - m) * (v - m)).sum::<f64>() / (l.len() - 1) as f64
}
fn argmax(l: &[f64]) -> f64 {
    (0..l.len()).fold(0, |b, i| if l[i] > l[b] { i } else { b }) as f64
}
fn median(l: &[f64]) -> f64 {
    let mut s = l.to_vec();
    s.sort_by(|a, b| a.partial_cmp(b).unwrap());
    let n = s.len();
    if n % 2 == 1 {
        s[n / 2]
    } else {
        (s[n / 2 - 1] + s[n / 2]) / 2.0
    }
}

#[track_caller]
fn same<T: gpuarray::Real>(got: &Array<T>, want: &Host, tol: f64) {
    assert_eq!(got.shape(), &want.shape[..]);
    assert_close(&host(got), &want.data, tol, tol);
}

#[track_caller]
fn out_of_range<R: std::fmt::Debug>(r: Result<R>, axis: isize) {
    match r {
        Err(Error::AxisOutOfRange { axis: a, ndim: 3 }) => assert_eq!(a, axis),
        other => panic!("axis {axis}: expected AxisOutOfRange, got {other:?}"),
    }
}

#[track_caller]
fn invalid<R: std::fmt::Debug>(r: Result<R>, op: &str) {
    match r {
        Err(Error::InvalidArgument { op: o, .. }) => assert!(o.contains(op), "{o} for {op}"),
        other => panic!("{op}: expected InvalidArgument, got {other:?}"),
    }
}

/// The device computes after the errors.
fn still_works(x: &Array<f32>, h: &Host) {
    assert_eq!(x.sum().unwrap().to_scalar().unwrap() as f64, sum(&h.data));
}

/// The spellings of one axis spec and the sorted axes they resolve to in 3 dimensions.
fn specs() -> Vec<(Axes, Vec<usize>)> {
    vec![
        (Axes::from(-1), vec![2]),
        (Axes::from(-3), vec![0]),
        (Axes::from(1usize), vec![1]),
        (Axes::from([0, -1]), vec![0, 2]),
        (Axes::from(vec![-1isize, -2]), vec![1, 2]),
        (Axes::from(&[2usize, 0][..]), vec![0, 2]),
        (Axes::from(..), vec![0, 1, 2]),
        (Axes::from(None), vec![0, 1, 2]),
    ]
}

#[test]
fn reductions() {
    let (x, h) = data();
    for (spec, axes) in specs() {
        for kd in [false, true] {
            let r = |f: fn(&[f64]) -> f64| reduce_ref(&h, &axes, kd, f);
            same(&x.sum_axis(&spec, kd).unwrap(), &r(sum), 0.0);
            same(&x.max_axis(&spec, kd).unwrap(), &r(max), 0.0);
            same(&x.mean_axis(&spec, kd).unwrap(), &r(mean), 1e-6);
            same(&x.var_axis(&spec, 1, kd).unwrap(), &r(var1), 1e-5);
            same(&x.nansum_axis(&spec, kd).unwrap(), &r(sum), 0.0);
            let ptp = |l: &[f64]| max(l) + max(&l.iter().map(|v| -v).collect::<Vec<_>>());
            same(&x.ptp_axis(&spec, kd).unwrap(), &r(ptp), 0.0);
            let nz = |l: &[f64]| l.iter().filter(|&&v| v != 0.0).count() as f64;
            same(&x.count_nonzero_axis(&spec, kd).unwrap(), &r(nz), 0.0);
            same(&x.sum_as::<f32>(&spec, kd).unwrap(), &r(sum), 0.0);
            let lse = |l: &[f64]| l.iter().map(|v| v.exp()).sum::<f64>().ln();
            same(&x.logsumexp(&spec, kd).unwrap(), &r(lse), 1e-5);
            same(&x.average(None, &spec, kd).unwrap(), &r(mean), 1e-6);
        }
    }
    // The arg-reductions: one axis, or all (the flat index).
    for (spec, axis) in [(-1isize, 2usize), (-2, 1), (0, 0)] {
        for kd in [false, true] {
            same(
                &x.argmax_axis(spec, kd).unwrap(),
                &reduce_ref(&h, &[axis], kd, argmax),
                0.0,
            );
            same(
                &x.nanargmax_axis(spec, kd).unwrap(),
                &reduce_ref(&h, &[axis], kd, argmax),
                0.0,
            );
        }
    }
    for kd in [false, true] {
        let p = reduce_ref(&h, &[2], kd, |l| l.iter().product());
        same(&x.nanprod(-1, kd).unwrap(), &p, 0.0);
    }
    let flat = x.argmax_axis(.., true).unwrap();
    assert_eq!(flat.shape(), &[1, 1, 1]);
    assert_eq!(flat.to_vec().unwrap()[0], argmax(&h.data) as i64);
    // Bad axes.
    out_of_range(x.sum_axis(3, false), 3);
    out_of_range(x.sum_axis(-4, true), -4);
    out_of_range(x.var_axis([0, 5], 0, false), 5);
    out_of_range(x.nanmax_axis(-7, false), -7);
    out_of_range(x.count_nonzero_axis([-4], false), -4);
    invalid(x.sum_axis([1, -2], false), "sum");
    invalid(x.mean_axis([0, 0], true), "mean");
    invalid(x.argmax_axis([0, 1], false), "argmax");
    invalid(x.logsumexp([2, -1], false), "logsumexp");
    still_works(&x, &h);
}

#[test]
fn keepdims_is_a_reshape() {
    let (x, _) = data();
    for spec in [Axes::from(-1), Axes::from([0, 2]), Axes::All] {
        let plain = x.median::<f32>(&spec, false).unwrap();
        let kept = x.median::<f32>(&spec, true).unwrap();
        let axes = spec.resolve(3, "t").unwrap();
        let want: Vec<usize> = (0..3)
            .map(|d| if axes.contains(&d) { 1 } else { SHAPE[d] })
            .collect();
        assert_eq!(kept.shape(), &want[..]);
        assert_eq!(kept.to_vec().unwrap(), plain.to_vec().unwrap());
        let q = x.quantile::<f32>(&[0.25, 0.5], &spec, true).unwrap();
        let mut qs = vec![2];
        qs.extend(&want);
        assert_eq!(q.shape(), &qs[..]);
        let p = x.percentile::<f32>(&[50.0], &spec, true).unwrap();
        assert_eq!(p.to_vec().unwrap(), plain.to_vec().unwrap());
        let nm = x.nanmedian::<f32>(&spec, true).unwrap();
        assert_eq!(nm.shape(), &want[..]);
        assert_eq!(nm.to_vec().unwrap(), plain.to_vec().unwrap());
    }
}

#[test]
fn sort_top_k_quantile() {
    let (x, h) = data();
    // sort along -2 (axis 1) against the host.
    let s = host(&x.sort_axis(-2).unwrap());
    for i in 0..3 {
        for k in 0..5 {
            let mut lane: Vec<f64> = (0..4).map(|j| h.at(&[i, j, k])).collect();
            lane.sort_by(|a, b| a.partial_cmp(b).unwrap());
            for (j, &v) in lane.iter().enumerate() {
                assert_eq!(s[(i * 4 + j) * 5 + k], v);
            }
        }
    }
    let mut all = h.data.clone();
    all.sort_by(|a, b| a.partial_cmp(b).unwrap());
    assert_eq!(host(&x.sort_axis(..).unwrap()), all);
    let (v, i) = x.top_k(1, -3, true).unwrap();
    same(&v, &reduce_ref(&h, &[0], true, max), 0.0);
    same(&i, &reduce_ref(&h, &[0], true, argmax), 0.0);
    for (spec, axes) in specs() {
        same(
            &x.median::<f32>(&spec, false).unwrap(),
            &reduce_ref(&h, &axes, false, median),
            1e-6,
        );
    }
    let p = x.partition(2, -1).unwrap();
    assert_eq!(p.shape(), &SHAPE);
    out_of_range(x.sort_axis(-4), -4);
    out_of_range(x.argsort_axis(3), 3);
    out_of_range(x.top_k(1, 3, false), 3);
    out_of_range(x.median::<f32>([0, -5], false), -5);
    invalid(x.sort_axis([0, 1]), "sort");
    invalid(x.median::<f32>([2, -1], true), "median");
    invalid(x.top_k(1, [0, 1], true), "top_k");
    still_works(&x, &h);
}

#[test]
fn scans() {
    let (x, h) = data();
    let c = host(&x.cumsum(-1).unwrap());
    for (i, &got) in c.iter().enumerate() {
        let k = i % 5;
        let want: f64 = (i - k..=i).map(|j| h.data[j]).sum();
        assert_eq!(got, want);
    }
    let flat = host(&x.cumsum(..).unwrap());
    let mut acc = 0.0;
    for (i, &v) in h.data.iter().enumerate() {
        acc += v;
        assert_eq!(flat[i], acc);
    }
    let d = x.diff(1, -3).unwrap();
    assert_eq!(d.shape(), &[2, 4, 5]);
    assert_eq!(host(&d)[0], h.data[20] - h.data[0]);
    assert_eq!(host(&x.nancumsum(None).unwrap()), flat);
    out_of_range(x.cumsum(-4), -4);
    out_of_range(x.cumprod(3), 3);
    invalid(x.cumsum([0, 1]), "cumsum");
    invalid(x.diff(1, ..), "diff");
    still_works(&x, &h);
}

#[test]
fn manipulation_and_joins() {
    let (x, h) = data();
    let hv = h.data.clone();
    let c = Array::concatenate(&[&x, &x], -1).unwrap();
    assert_eq!(c.shape(), &[3, 4, 10]);
    assert_eq!(host(&c)[5..10], hv[..5]);
    let s = Array::stack(&[&x, &x], -1).unwrap();
    assert_eq!(s.shape(), &[3, 4, 5, 2]);
    let parts = x.split(5, -1).unwrap();
    assert_eq!(parts[4].shape(), &[3, 4, 1]);
    assert_eq!(host(&parts[4])[0], hv[4]);
    let f = host(&x.flip([-1, 0]).unwrap());
    assert_eq!(f[0], h.at(&[2, 0, 4]));
    assert_eq!(host(&x.flip(..).unwrap())[0], hv[59]);
    assert_eq!(host(&x.roll(1, -2).unwrap())[0], h.at(&[0, 3, 0]));
    assert_eq!(x.expand_dims([-1, 0]).unwrap().shape(), &[1, 3, 4, 5, 1]);
    let e = x.expand_dims(-1).unwrap();
    assert_eq!(e.squeeze(-1).unwrap().shape(), &SHAPE);
    assert_eq!(e.swapaxes(-1, 0).unwrap().shape(), &[1, 4, 5, 3]);
    assert_eq!(x.moveaxis([0, -1], [-1, 0]).unwrap().shape(), &[5, 4, 3]);
    assert_eq!(x.moveaxis(0, -1).unwrap().shape(), &[4, 5, 3]);
    assert_eq!(x.rot90(1, [-1, -2]).unwrap().shape(), &[3, 5, 4]);
    assert_eq!(x.diagonal(0, -1, -2).unwrap().shape(), &[3, 4]);
    assert_eq!(x.repeat(2, -3).unwrap().shape(), &[6, 4, 5]);
    assert_eq!(x.delete(&[0], -1).unwrap().shape(), &[3, 4, 4]);
    assert_eq!(x.append(&x, -2).unwrap().shape(), &[3, 8, 5]);
    assert_eq!(Array::concatenate(&[&x, &x], None).unwrap().shape(), &[120]);
    out_of_range(Array::concatenate(&[&x, &x], -4), -4);
    out_of_range(x.flip(3), 3);
    out_of_range(x.roll(1, -4), -4);
    out_of_range(x.swapaxes(0, 3), 3);
    out_of_range(x.split(1, 3), 3);
    invalid(x.expand_dims(..), "expand_dims");
    invalid(x.flip([0, -3]), "flip");
    invalid(x.squeeze(0), "squeeze");
    invalid(x.moveaxis([0, 1], 2), "moveaxis");
    invalid(x.swapaxes([0, 1], 2), "swapaxes");
    invalid(x.rot90(1, [0]), "rot90");
    match Array::stack(&[&x, &x], 4) {
        Err(Error::AxisOutOfRange { axis: 4, ndim: 4 }) => {}
        other => panic!("stack axis 4: {other:?}"),
    }
    still_works(&x, &h);
}

#[test]
fn indexing() {
    let (x, h) = data();
    let idx = dev().from_slice(&[4i32, 0], [2]).unwrap();
    let t = host(&x.take(&idx, -1).unwrap());
    assert_eq!(t[..2], [h.at(&[0, 0, 4]), h.at(&[0, 0, 0])]);
    assert_eq!(
        host(&x.take(&idx, None).unwrap()),
        vec![h.data[4], h.data[0]]
    );
    let am = x.argmax_axis(-2, true).unwrap();
    same(
        &x.take_along_axis(&am, -2).unwrap(),
        &reduce_ref(&h, &[1], true, max),
        0.0,
    );
    assert_eq!(host(&x.index_axis(-1, 0).unwrap())[1], h.at(&[0, 1, 0]));
    assert_eq!(x.slice_axis(-1, ..2).unwrap().shape(), &[3, 4, 2]);
    let y = x.copy().unwrap();
    let zero = dev().zeros::<f32>([1]).unwrap();
    y.put_along_axis(&am, &zero, -2).unwrap();
    assert_eq!(host(&y.take_along_axis(&am, -2).unwrap()), vec![0.0; 15]);
    assert_eq!(
        host(&y.sum().unwrap())[0],
        sum(&h.data) - sum(&host(&x.max_axis(1, false).unwrap()))
    );
    out_of_range(x.take(&idx, 3), 3);
    out_of_range(x.index_axis(-4, 0), -4);
    out_of_range(x.take_along_axis(&am, -4), -4);
    invalid(x.take(&idx, [0, 1]), "take");
    invalid(x.index_axis(.., 0), "index_axis");
    still_works(&x, &h);
}

#[test]
fn reduction_kernel() {
    let (x, h) = data();
    let k = ReductionKernel::new(dev(), "T x", "T y", "x", "a + b", "y = a", "0", "s").unwrap();
    for (spec, axes) in specs() {
        for kd in [false, true] {
            same(
                &k.call_axis::<f32, f32>(&x, &spec, kd).unwrap(),
                &reduce_ref(&h, &axes, kd, sum),
                0.0,
            );
        }
    }
    out_of_range(k.call_axis::<f32, f32>(&x, 3, false), 3);
    out_of_range(k.call_axis::<f32, f32>(&x, [0, -4], true), -4);
    invalid(k.call_axis::<f32, f32>(&x, [1, 1], true), "ReductionKernel");
    still_works(&x, &h);
}

#[test]
fn fused() {
    let (x, h) = data();
    for (spec, axes) in specs() {
        for kd in [false, true] {
            let s = spec.clone();
            let f = fuse(dev(), move |[v]| (v * 2.0).sum_axis(&s, kd)).unwrap();
            let want = reduce_ref(&h, &axes, kd, |l| 2.0 * sum(l));
            same(&f.call::<f32>(&[&x]).unwrap(), &want, 0.0);
            let s = spec.clone();
            let m = fuse(dev(), move |[v]| v.max_axis(&s, kd)).unwrap();
            same(
                &m.call::<f32>(&[&x]).unwrap(),
                &reduce_ref(&h, &axes, kd, max),
                0.0,
            );
        }
    }
    let bad = fuse(dev(), |[v]| v.sum_axis(-4, false)).unwrap();
    out_of_range(bad.call::<f32>(&[&x]), -4);
    let twice = fuse(dev(), |[v]| v.mean_axis([0, -3], false)).unwrap();
    invalid(twice.call::<f32>(&[&x]), "Fused");
    still_works(&x, &h);
}

/// `ArrayOps` (the CPU/GPU-agnostic trait) takes the same axes on both: ndarray's arrays
/// give the GPU's values, shapes and errors.
#[cfg(feature = "ndarray")]
#[test]
fn array_ops_on_both() {
    use gpuarray::ArrayOps;
    use ndarray::{ArrayD, IxDyn};
    let (x, h) = data();
    let c =
        ArrayD::from_shape_vec(IxDyn(&SHAPE), h.data.iter().map(|&v| v as f32).collect()).unwrap();
    for (spec, axes) in specs() {
        for kd in [false, true] {
            let want = reduce_ref(&h, &axes, kd, sum);
            let g = ArrayOps::sum_axis(&x, &spec, kd).unwrap();
            let cpu = ArrayOps::sum_axis(&c, &spec, kd).unwrap();
            same(&g, &want, 0.0);
            assert_eq!(cpu.dims(), want.shape);
            let got: Vec<f64> = cpu.to_host().unwrap().iter().map(|&v| v as f64).collect();
            assert_eq!(got, want.data);
            let m = ArrayOps::max_axis(&c, &spec, kd).unwrap();
            let want = reduce_ref(&h, &axes, kd, max);
            let got: Vec<f64> = m.to_host().unwrap().iter().map(|&v| v as f64).collect();
            assert_eq!(got, want.data);
        }
    }
    out_of_range(ArrayOps::mean_axis(&c, -4, false), -4);
    invalid(ArrayOps::mean_axis(&c, [0, -3], false), "mean");
}
