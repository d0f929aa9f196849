//! Manipulation (concatenate, stack, split, flip, roll, pad, tile, repeat, the axis views)
//! against a CPU model, for every dtype, on views with strides and offsets, zero sizes,
//! negative axes and bad arguments. Copies must be exact (NaN, -0 and infinities kept).

mod common;

use common::{assert_close, dev, host, if_supported, unravel, Host, Rng};
use gpuarray::{f16, Array, Error, Indexing, PadMode, Real};

/// Host model of an output of `shape` whose element at `idx` is `src` at `map(idx)`, or
/// `fill` where `map` gives `None`.
fn model(
    src: &Host,
    shape: &[usize],
    fill: f64,
    map: impl Fn(&[usize]) -> Option<Vec<usize>>,
) -> Host {
    let n: usize = shape.iter().product();
    let data = (0..n)
        .map(|i| map(&unravel(i, shape)).map_or(fill, |s| src.at(&s)))
        .collect();
    Host::new(shape, data)
}

/// Random values of `T` (with NaN, infinities and -0 for floats) as a strided view with an
/// offset: a slice of a larger array, transposed. Returns the view and its host model.
fn strided<T: Real>(rng: &mut Rng, shape: &[usize]) -> (Array<T>, Host) {
    // The view is base[1.., 1..][::2 on the last axis] of base (shape with room), transposed.
    let rev: Vec<usize> = shape.iter().rev().copied().collect();
    let mut bshape: Vec<usize> = rev.iter().map(|&n| n + 1).collect();
    let last = bshape.len() - 1;
    bshape[last] = 2 * rev[last] + 1;
    let n: usize = bshape.iter().product();
    let mut vals = rng.ints(n, -50, 50);
    if T::DTYPE.is_float() {
        for (k, v) in vals.iter_mut().enumerate().take(n.min(40)) {
            *v = [f64::NAN, f64::INFINITY, f64::NEG_INFINITY, -0.0, 0.5][k % 5];
        }
    } else if T::DTYPE == gpuarray::DType::U32 {
        vals.iter_mut().for_each(|v| *v = v.abs());
    }
    let (t, back): (Vec<T>, Vec<f64>) = common::cast_in(&vals);
    let base = dev().from_slice(&t, bshape.clone()).unwrap();
    let hb = Host::new(&bshape, back);
    let mut info: Vec<gpuarray::Slice> = vec![gpuarray::Slice::from(1..); bshape.len()];
    info[last] = gpuarray::Slice::from(1..).step(2);
    let v = base.slice(info).unwrap().t();
    let mut s: Vec<(usize, usize, usize)> = bshape.iter().map(|&b| (1, b, 1)).collect();
    s[last] = (1, bshape[last], 2);
    let hv = hb.slice(&s).t();
    assert_eq!(v.shape(), shape);
    assert_eq!(hv.shape, shape);
    (v, hv)
}

#[track_caller]
fn check<T: Real>(got: &Array<T>, want: &Host) {
    assert_eq!(got.shape(), &want.shape[..]);
    assert_close(&host(got), &want.data, 0.0, 0.0);
}

fn joins<T: Real>() {
    let mut rng = Rng::new(1);
    let (a, ha) = strided::<T>(&mut rng, &[3, 5, 2]);
    let (b, hb) = strided::<T>(&mut rng, &[3, 1, 2]);
    let c = dev().zeros::<T>([3, 0, 2]).unwrap();
    for axis in [1isize, -2] {
        let got = Array::concatenate(&[&a, &c, &b, &a], axis).unwrap();
        let want = Host::new(
            &[3, 11, 2],
            (0..66)
                .map(|k| {
                    let i = unravel(k, &[3, 11, 2]);
                    match i[1] {
                        0..=4 => ha.at(&i),
                        5 => hb.at(&[i[0], 0, i[2]]),
                        j => ha.at(&[i[0], j - 6, i[2]]),
                    }
                })
                .collect(),
        );
        check(&got, &want);
    }
    // Axis 0 and the last; stack along a new first and last axis.
    let got = Array::concatenate(&[&a, &a], 0).unwrap();
    check(
        &got,
        &model(&ha, &[6, 5, 2], 0.0, |i| Some(vec![i[0] % 3, i[1], i[2]])),
    );
    let got = Array::concatenate(&[&a, &a], 2).unwrap();
    check(
        &got,
        &model(&ha, &[3, 5, 4], 0.0, |i| Some(vec![i[0], i[1], i[2] % 2])),
    );
    let got = Array::stack(&[&a, &a], -1).unwrap();
    check(
        &got,
        &model(&ha, &[3, 5, 2, 2], 0.0, |i| Some(i[..3].to_vec())),
    );
    let got = Array::stack(&[&a, &a, &a], 0).unwrap();
    check(
        &got,
        &model(&ha, &[3, 3, 5, 2], 0.0, |i| Some(i[1..].to_vec())),
    );
    // h/v/dstack of 1-D arrays.
    let (v, hv) = strided::<T>(&mut rng, &[7]);
    check(
        &Array::hstack(&[&v, &v]).unwrap(),
        &model(&hv, &[14], 0.0, |i| Some(vec![i[0] % 7])),
    );
    check(
        &Array::vstack(&[&v, &v]).unwrap(),
        &model(&hv, &[2, 7], 0.0, |i| Some(vec![i[1]])),
    );
    check(
        &Array::dstack(&[&v, &v]).unwrap(),
        &model(&hv, &[1, 7, 2], 0.0, |i| Some(vec![i[1]])),
    );
    // Splits are views of the right parts.
    let parts = a.array_split(2, -2).unwrap();
    assert_eq!(parts.len(), 2);
    check(
        &parts[0],
        &model(&ha, &[3, 3, 2], 0.0, |i| Some(i.to_vec())),
    );
    check(
        &parts[1],
        &model(&ha, &[3, 2, 2], 0.0, |i| Some(vec![i[0], i[1] + 3, i[2]])),
    );
    let parts = a.split_at(&[1, 9], 1).unwrap();
    assert_eq!(
        parts.iter().map(|p| p.shape()[1]).collect::<Vec<_>>(),
        vec![1, 4, 0]
    );
    assert_eq!(
        a.split(3, 0).unwrap()[2].offset(),
        a.offset() + 2 * a.strides()[0] as usize
    );
}

/// Pad's rule on the host: the input coordinate of x (before the shift) in an axis of n.
type Rule = fn(isize, isize) -> Option<isize>;

/// `a.pad(widths, mode)` for every mode against the host rule of each.
fn check_pads<T: Real>(a: &Array<T>, ha: &Host, widths: &[(usize, usize)]) {
    let sh = &ha.shape;
    let out: Vec<usize> = sh.iter().zip(widths).map(|(n, w)| n + w.0 + w.1).collect();
    let modes: [(PadMode<T>, Rule); 5] = [
        (PadMode::Constant(T::from_f64(7.0)), |x, n| {
            (0..n).contains(&x).then_some(x)
        }),
        (PadMode::Edge, |x, n| Some(x.clamp(0, n - 1))),
        (PadMode::Reflect, |x, n| {
            let p = 2 * (n - 1);
            let t = if p == 0 { 0 } else { x.rem_euclid(p) };
            Some(if t < n { t } else { p - t })
        }),
        (PadMode::Symmetric, |x, n| {
            let t = x.rem_euclid(2 * n);
            Some(if t < n { t } else { 2 * n - 1 - t })
        }),
        (PadMode::Wrap, |x, n| Some(x.rem_euclid(n))),
    ];
    for (mode, rule) in modes {
        let got = a.pad(widths, mode).unwrap();
        let want = model(ha, &out, 7.0, |i| {
            (0..sh.len())
                .map(|d| {
                    rule(i[d] as isize - widths[d].0 as isize, sh[d] as isize).map(|x| x as usize)
                })
                .collect()
        });
        check(&got, &want);
    }
}

/// Rows longer than a workgroup's stride in remap (each invocation's outputs in one row),
/// pads of up to two periods, flip and roll along them.
#[test]
fn remap_long_rows() {
    let mut rng = Rng::new(5);
    let (a, ha) = strided::<f32>(&mut rng, &[3, 700]);
    check_pads(&a, &ha, &[(5, 2), (300, 1401)]);
    check(
        &a.flip(-1).unwrap(),
        &model(&ha, &[3, 700], 0.0, |i| Some(vec![i[0], 699 - i[1]])),
    );
    for shift in [1isize, -699, 1234] {
        let s = shift.rem_euclid(700) as usize;
        let want = model(&ha, &[3, 700], 0.0, |i| {
            Some(vec![i[0], (i[1] + 700 - s) % 700])
        });
        check(&a.roll(shift, 1).unwrap(), &want);
    }
    let z = dev().from_slice(&[5i32], []).unwrap();
    assert_eq!(host(&z.flip(..).unwrap()), vec![5.0]);
    assert_eq!(host(&z.pad(&[], PadMode::Edge).unwrap()), vec![5.0]);
}

fn remaps<T: Real>() {
    let mut rng = Rng::new(2);
    let sh = [4usize, 3, 5];
    let (a, ha) = strided::<T>(&mut rng, &sh);
    // flip
    check(
        &a.flip(-1).unwrap(),
        &model(&ha, &sh, 0.0, |i| Some(vec![i[0], i[1], 4 - i[2]])),
    );
    check(
        &a.flip(..).unwrap(),
        &model(&ha, &sh, 0.0, |i| Some(vec![3 - i[0], 2 - i[1], 4 - i[2]])),
    );
    // roll, shifts negative and past the extent
    for (shift, axis) in [(2isize, 0usize), (-7, 2), (13, 1)] {
        let got = a.roll(shift, Some(axis as isize)).unwrap();
        let n = sh[axis] as isize;
        check(
            &got,
            &model(&ha, &sh, 0.0, |i| {
                let mut s = i.to_vec();
                s[axis] = (i[axis] as isize - shift).rem_euclid(n) as usize;
                Some(s)
            }),
        );
    }
    let flat = Host::new(&[60], {
        let c: Vec<f64> = (0..60).map(|k| ha.at(&unravel(k, &sh))).collect();
        (0..60).map(|k| c[(k + 60 - 4) % 60]).collect()
    });
    assert_close(&host(&a.roll(4, None).unwrap()), &flat.data, 0.0, 0.0);
    // pad: every mode, widths up to past the extents
    check_pads(&a, &ha, &[(2, 5), (0, 4), (7, 1)]);
    // tile and repeat
    check(
        &a.tile(&[2, 1, 3]).unwrap(),
        &model(&ha, &[8, 3, 15], 0.0, |i| {
            Some(vec![i[0] % 4, i[1], i[2] % 5])
        }),
    );
    check(
        &a.tile(&[2, 1, 1, 1]).unwrap(),
        &model(&ha, &[2, 4, 3, 5], 0.0, |i| Some(i[1..].to_vec())),
    );
    check(
        &a.repeat(3, -2).unwrap(),
        &model(&ha, &[4, 9, 5], 0.0, |i| Some(vec![i[0], i[1] / 3, i[2]])),
    );
    let got = a.repeat(2, None).unwrap();
    let c: Vec<f64> = (0..60).map(|k| ha.at(&unravel(k, &sh))).collect();
    assert_close(
        &host(&got),
        &(0..120).map(|k| c[k / 2]).collect::<Vec<_>>(),
        0.0,
        0.0,
    );
    check(&a.repeat(0, 0).unwrap(), &Host::new(&[0, 3, 5], vec![]));
}

/// diagonal/diag (views and the 1-D -> 2-D copy), triu/tril over the last two axes, and
/// meshgrid, on strided views with offsets, against the host model; negative k and axes.
fn diagonals<T: Real>() {
    let mut rng = Rng::new(7);
    let (a, ha) = strided::<T>(&mut rng, &[3, 4, 5]);
    for (k, ax1, ax2) in [
        (0isize, 0isize, 1isize),
        (2, -1, 0),
        (-1, 1, -1),
        (-3, 2, 1),
        (9, 0, 2),
    ] {
        let got = a.diagonal(k, ax1, ax2).unwrap();
        let (p, q) = (ax1.rem_euclid(3) as usize, ax2.rem_euclid(3) as usize);
        assert_eq!(got.strides()[1], a.strides()[p] + a.strides()[q], "a view");
        let o = 3 - p - q;
        let (np, nq) = (ha.shape[p] as isize, ha.shape[q] as isize);
        let len = if k >= 0 {
            np.min(nq - k)
        } else {
            (np + k).min(nq)
        }
        .max(0) as usize;
        let want = model(&ha, &[ha.shape[o], len], 0.0, |i| {
            let mut at = vec![0; 3];
            at[o] = i[0];
            at[p] = (i[1] as isize - k.min(0)) as usize;
            at[q] = (i[1] as isize + k.max(0)) as usize;
            Some(at)
        });
        check(&got, &want);
    }
    let (v, hv) = strided::<T>(&mut rng, &[4]);
    for k in [0isize, 2, -3] {
        let m = 4 + k.unsigned_abs();
        let want = model(&hv, &[m, m], 0.0, |i| {
            (i[1] as isize - i[0] as isize == k).then(|| vec![i[0].min(i[1])])
        });
        let d = v.diag(k).unwrap();
        check(&d, &want);
        check(&d.diag(k).unwrap(), &hv);
    }
    for k in [0isize, 1, -2, 7, -7] {
        let up = model(&ha, &ha.shape, 0.0, |i| {
            (i[2] as isize - i[1] as isize >= k).then(|| i.to_vec())
        });
        check(&a.triu(k).unwrap(), &up);
        let lo = model(&ha, &ha.shape, 0.0, |i| {
            (i[2] as isize - i[1] as isize <= k).then(|| i.to_vec())
        });
        check(&a.tril(k).unwrap(), &lo);
    }
    let (w, hw) = strided::<T>(&mut rng, &[3]);
    let (z, hz) = strided::<T>(&mut rng, &[2]);
    for copy in [true, false] {
        let g = Array::meshgrid(&[&v, &w, &z], Indexing::Xy, copy).unwrap();
        check(&g[0], &model(&hv, &[3, 4, 2], 0.0, |i| Some(vec![i[1]])));
        check(&g[1], &model(&hw, &[3, 4, 2], 0.0, |i| Some(vec![i[0]])));
        check(&g[2], &model(&hz, &[3, 4, 2], 0.0, |i| Some(vec![i[2]])));
        assert_eq!(g[0].is_contiguous(), copy);
        let g = Array::meshgrid(&[&v, &w], Indexing::Ij, copy).unwrap();
        check(&g[0], &model(&hv, &[4, 3], 0.0, |i| Some(vec![i[0]])));
        check(&g[1], &model(&hw, &[4, 3], 0.0, |i| Some(vec![i[1]])));
    }
    let g = Array::meshgrid(&[&v], Indexing::Xy, true).unwrap();
    check(&g[0], &hv);
}

/// repeat_each on a strided view: per-element counts (zeros included) along each axis,
/// negative axes, the flattened form, one count, all-zero counts.
fn repeats_each<T: Real>() {
    let mut rng = Rng::new(11);
    let (a, ha) = strided::<T>(&mut rng, &[3, 5, 2]);
    for (axis, counts) in [
        (0isize, vec![2usize, 0, 3]),
        (-2, vec![1, 4, 0, 0, 2]),
        (2, vec![3, 1]),
        (1, vec![0; 5]),
        (-1, vec![4]),
    ] {
        let d = axis.rem_euclid(3) as usize;
        let src: Vec<usize> = if counts.len() == 1 {
            (0..ha.shape[d]).flat_map(|j| vec![j; counts[0]]).collect()
        } else {
            (0..ha.shape[d]).flat_map(|j| vec![j; counts[j]]).collect()
        };
        let mut shape = ha.shape.clone();
        shape[d] = src.len();
        let want = model(&ha, &shape, 0.0, |i| {
            let mut at = i.to_vec();
            at[d] = src[i[d]];
            Some(at)
        });
        check(&a.repeat_each(&counts, axis).unwrap(), &want);
    }
    let counts: Vec<usize> = (0..30).map(|k| (k * 7) % 4).collect();
    let flat = Host::new(
        &[30],
        (0..30).map(|k| ha.at(&unravel(k, &[3, 5, 2]))).collect(),
    );
    let src: Vec<usize> = (0..30).flat_map(|j| vec![j; counts[j]]).collect();
    let want = model(&flat, &[src.len()], 0.0, |i| Some(vec![src[i[0]]]));
    check(&a.repeat_each(&counts, None).unwrap(), &want);
    assert!(matches!(
        a.repeat_each(&[1, 2], 0),
        Err(Error::InvalidArgument { op: "repeat", .. })
    ));
    assert!(matches!(
        a.repeat_each(&[1, 2], 3),
        Err(Error::AxisOutOfRange { .. })
    ));
}

/// roll of contiguous arrays along their first non-unit axis (the flattened elements rolled,
/// four outputs an invocation with vec4 stores; 4- and 8-byte types): sizes around the
/// vec4 tail, shifts of both signs and past the extent, a view with an offset, a 2-D array
/// along axis 0 and a [1, 5, 7] array along axis 1, each against the rolled host copy.
fn rolls_flat<T: Real>() {
    let roll_host = |v: &[f64], s: isize| -> Vec<f64> {
        let n = v.len() as isize;
        (0..n).map(|i| v[(i - s).rem_euclid(n) as usize]).collect()
    };
    let mut rng = Rng::new(9);
    for n in [1usize, 2, 5, 7, 8, 257, 4099] {
        let hv = rng.ints(n + 3, 0, 100);
        let t: Vec<T> = hv.iter().map(|&x| T::from_f64(x)).collect();
        let whole = dev().from_slice(&t, [n + 3]).unwrap();
        let view = whole.slice(3..).unwrap();
        for shift in [
            1isize,
            -1,
            3,
            n as isize - 1,
            n as isize + 5,
            -13 * n as isize - 2,
        ] {
            let want = roll_host(&hv[3..], shift);
            assert_close(&host(&view.roll(shift, 0).unwrap()), &want, 0.0, 0.0);
        }
    }
    let hv = rng.ints(35, 0, 100);
    let t: Vec<T> = hv.iter().map(|&x| T::from_f64(x)).collect();
    let m = dev().from_slice(&t, [5, 7]).unwrap();
    assert_close(
        &host(&m.roll(-2, 0).unwrap()),
        &roll_host(&hv, -14),
        0.0,
        0.0,
    );
    let c = dev().from_slice(&t, [1, 5, 7]).unwrap();
    let got = c.roll(6, 1).unwrap();
    assert_eq!(got.shape(), &[1, 5, 7]);
    assert_close(&host(&got), &roll_host(&hv, 42), 0.0, 0.0);
}

macro_rules! per_dtype {
    ($($name:ident: $t:ty,)*) => {$(
        #[test]
        fn $name() {
            if_supported::<$t>(|| {
                joins::<$t>();
                remaps::<$t>();
                rolls_flat::<$t>();
                diagonals::<$t>();
                repeats_each::<$t>();
            });
        }
    )*};
}

per_dtype! {
    manip_f16: f16,
    manip_f32: f32,
    manip_f64: f64,
    manip_i32: i32,
    manip_u32: u32,
}

#[test]
fn zero_sizes_and_one_element() {
    let d = dev();
    let e = d.zeros::<f32>([0, 3]).unwrap();
    assert_eq!(Array::concatenate(&[&e, &e], 0).unwrap().shape(), &[0, 3]);
    assert_eq!(e.flip(0).unwrap().shape(), &[0, 3]);
    assert_eq!(e.roll(5, 0).unwrap().shape(), &[0, 3]);
    assert_eq!(e.tile(&[3, 2]).unwrap().shape(), &[0, 6]);
    let p = e.pad(&[(1, 1)], PadMode::Constant(2.0)).unwrap();
    assert_eq!((p.shape(), host(&p)), (&[2usize, 5][..], vec![2.0; 10]));
    let one = d.from_slice(&[4.0f32], [1]).unwrap();
    assert_eq!(
        host(&one.pad(&[(2, 1)], PadMode::Reflect).unwrap()),
        vec![4.0; 4]
    );
    assert_eq!(host(&one.roll(-3, 0).unwrap()), vec![4.0]);
}

#[test]
fn views_stay_views() {
    let d = dev();
    let x = d
        .arange::<i32>(0, 24, 1)
        .unwrap()
        .reshape([2, 1, 3, 4])
        .unwrap();
    let s = x.squeeze(None).unwrap();
    assert_eq!(
        (s.shape(), s.strides()),
        (&[2usize, 3, 4][..], &[12isize, 4, 1][..])
    );
    assert_eq!(x.squeeze(-3).unwrap().shape(), &[2, 3, 4]);
    let e = s.expand_dims(-4).unwrap();
    assert_eq!(e.shape(), &[1, 2, 3, 4]);
    let w = s.swapaxes(0, -1).unwrap();
    assert_eq!(
        (w.shape(), w.strides()),
        (&[4usize, 3, 2][..], &[1isize, 4, 12][..])
    );
    let m = s.moveaxis(-1, 0).unwrap();
    assert_eq!(
        (m.shape(), m.strides()),
        (&[4usize, 2, 3][..], &[1isize, 12, 4][..])
    );
    let h = Host::new(&[2, 3, 4], (0..24).map(f64::from).collect());
    assert_close(&host(&m), &h.transpose(&[2, 0, 1]).data, 0.0, 0.0);
    assert_eq!(host(&m.ravel().unwrap()), h.transpose(&[2, 0, 1]).data);
    let r = s.ravel().unwrap();
    assert_eq!((r.shape(), r.offset()), (&[24usize][..], 0));
    let f = s.flatten().unwrap();
    assert_eq!(host(&f), h.data);
    let a = d.zeros::<f32>([3, 1]).unwrap();
    let b = d.arange::<f32>(0.0, 4.0, 1.0).unwrap();
    let v = Array::broadcast_arrays(&[&a, &b]).unwrap();
    assert_eq!(v[1].strides(), &[0, 1]);
    assert_eq!(host(&v[1]), [0.0, 1.0, 2.0, 3.0].repeat(3));
    // A deep copy shares nothing.
    let c = s.copy().unwrap();
    assert_eq!(host(&c), h.data);
}

#[test]
fn bad_arguments() {
    let d = dev();
    let a = d.zeros::<f32>([2, 3]).unwrap();
    let b = d.zeros::<f32>([3, 3]).unwrap();
    let z = d.zeros::<f32>([]).unwrap();
    let axis = |r: gpuarray::Result<Array<f32>>| matches!(r, Err(Error::AxisOutOfRange { .. }));
    let shape = |r: gpuarray::Result<Array<f32>>| matches!(r, Err(Error::JoinMismatch { .. }));
    let arg = |r: gpuarray::Result<Array<f32>>| matches!(r, Err(Error::InvalidArgument { .. }));
    assert!(shape(Array::concatenate(&[&a, &b], 1)));
    assert!(axis(Array::concatenate(&[&a, &b], 2)));
    assert!(axis(Array::concatenate(&[&a, &b], -3)));
    assert!(arg(Array::concatenate(&[], 0)));
    assert!(arg(Array::concatenate(&[&z, &z], 0)));
    assert!(shape(Array::stack(&[&a, &b], 0)));
    assert!(axis(Array::stack(&[&a, &a], 3)));
    assert!(shape(Array::concatenate(
        &[&a, &d.zeros::<f32>([2, 3, 1]).unwrap()],
        0
    )));
    assert!(axis(a.flip(2)));
    assert!(axis(a.roll(1, -3)));
    assert!(axis(a.repeat(2, 5)));
    assert!(arg(a.pad(&[(1, 1), (1, 1), (1, 1)], PadMode::Edge)));
    assert!(arg(d
        .zeros::<f32>([0])
        .unwrap()
        .pad(&[(1, 0)], PadMode::Wrap)));
    assert!(matches!(a.split(4, 1), Err(Error::InvalidArgument { .. })));
    assert!(matches!(
        a.array_split(0, 1),
        Err(Error::InvalidArgument { .. })
    ));
    assert!(arg(a.squeeze(0)));
    assert!(axis(a.expand_dims(3)));
    assert!(axis(a.swapaxes(0, 2)));
    assert!(matches!(
        Array::broadcast_arrays(&[&a, &b]),
        Err(Error::ShapeMismatch { .. })
    ));
    // Nothing was disturbed.
    assert_eq!(host(&a), vec![0.0; 6]);
}

/// A join of mismatched shapes says what the join needs, and names the first array that
/// does not fit, not that shapes "do not broadcast together" (NumPy: "all the input array
/// dimensions except for the concatenation axis must match exactly, but along dimension 0,
/// the array at index 2 has size 3 and the array at index 0 has size 2").
#[test]
fn join_errors_say_what_the_join_needs() {
    let d = dev();
    let a = d.zeros::<f32>([2, 3]).unwrap();
    let b = d.zeros::<f32>([3, 3]).unwrap();
    let c = d.zeros::<f32>([3, 2]).unwrap();
    let e = Array::concatenate(&[&a, &a, &c, &b], 1).unwrap_err();
    assert_eq!(
        e,
        Error::JoinMismatch {
            op: "concatenate",
            index: 2,
            shape: vec![3, 2],
            first: vec![2, 3],
            axis: Some(1),
        }
    );
    let msg = e.to_string();
    assert!(!msg.contains("broadcast"), "{msg}");
    assert!(msg.contains("array 2 has shape [3, 2]"), "{msg}");
    assert!(msg.contains("equal extents except along axis 1"), "{msg}");
    let msg = Array::concatenate(&[&a, &d.zeros::<f32>([2]).unwrap()], 0)
        .unwrap_err()
        .to_string();
    assert!(msg.contains("same number of dimensions"), "{msg}");
    let e = Array::stack(&[&a, &a, &b], 0).unwrap_err();
    assert!(
        matches!(
            e,
            Error::JoinMismatch {
                index: 2,
                axis: None,
                ..
            }
        ),
        "{e:?}"
    );
    let msg = e.to_string();
    assert!(
        msg.contains("stack needs arrays of identical shapes"),
        "{msg}"
    );
    assert!(
        msg.contains("array 2 has shape [3, 3], array 0 has [2, 3]"),
        "{msg}"
    );
    let msg = Array::vstack(&[&a, &c]).unwrap_err().to_string();
    assert!(msg.starts_with("vstack: array 1 has shape [3, 2]"), "{msg}");
}
