//! Arrays: creation against the CPU, views (reshape, transpose, broadcast_to, slice), copies
//! (contiguous, cast), transfers (to_vec, to_vec_async, to_scalar) and the errors of each,
//! after which the device must keep working.

#[macro_use]
mod common;

use common::*;
use gpuarray::{f16, Array, DType, Device, Error, Float, Shape, Slice};

/// A small op whose result is checked: the device still works.
#[track_caller]
fn still_works(dev: &Device) {
    let x = dev.from_slice(&[1.5f32, -2.0, 4.0], [3]).unwrap();
    let y = x.mul_scalar(2.0).unwrap().add_scalar(1.0).unwrap();
    assert_close(&host(&y), &[4.0, -3.0, 9.0], 0.0, 0.0);
}

// ---------------------------------------------------------------------------------------
// Creation
// ---------------------------------------------------------------------------------------

fn creation<T: Ty>() {
    let dev = dev();
    require_dtype!(T);
    let shapes: [&[usize]; 6] = [&[], &[0], &[1], &[7], &[3, 5], &[2, 3, 1030]];
    let value = if T::FLOAT {
        -1.5
    } else if T::SIGNED {
        -7.0
    } else {
        7.0
    };
    for shape in shapes {
        let n: usize = shape.iter().product();
        let z = dev.zeros::<T>(shape).unwrap();
        assert_eq!((z.shape(), z.len(), z.dtype()), (shape, n, T::DTYPE));
        assert_eq!(z.ndim(), shape.len());
        assert_eq!(z.is_empty(), n == 0);
        assert!(z.is_contiguous());
        assert_close(&host(&z), &vec![0.0; n], 0.0, 0.0);
        assert_close(
            &host(&dev.ones::<T>(shape).unwrap()),
            &vec![1.0; n],
            0.0,
            0.0,
        );
        let f = dev.full::<T>(shape, T::from_f64(value)).unwrap();
        assert_close(&host(&f), &vec![value; n], 0.0, 0.0);
    }
    // Pooled buffers come back dirty: zeros must clear a reused buffer.
    let dirty = dev.full::<T>([1000], T::from_f64(value)).unwrap();
    dirty.to_vec().unwrap();
    drop(dirty);
    assert_close(
        &host(&dev.zeros::<T>([1000]).unwrap()),
        &[0.0; 1000],
        0.0,
        0.0,
    );

    for (n, m, k) in [
        (0, 0, 0),
        (1, 1, 0),
        (4, 4, 0),
        (3, 5, 1),
        (5, 3, -2),
        (4, 6, 7),
        (4, 6, -9),
        (6, 4, 3),
    ] {
        let e = dev.eye_rect::<T>(n, m, k).unwrap();
        let expected: Vec<f64> = (0..n * m)
            .map(|i| ((i % m) as isize - (i / m) as isize == k) as u32 as f64)
            .collect();
        assert_eq!(e.shape(), &[n, m]);
        eprintln!("case: eye_rect({n}, {m}, {k})");
        assert_close(&host(&e), &expected, 0.0, 0.0);
    }
    let e = dev.eye::<T>(5).unwrap();
    let expected: Vec<f64> = (0..25).map(|i| (i % 6 == 0) as u32 as f64).collect();
    assert_close(&host(&e), &expected, 0.0, 0.0);
}

#[test]
fn creation_f16() {
    creation::<f16>();
}

#[test]
fn creation_f32() {
    creation::<f32>();
}

#[test]
fn creation_f64() {
    creation::<f64>();
}

#[test]
fn creation_i32() {
    creation::<i32>();
}

#[test]
fn creation_u32() {
    creation::<u32>();
}

/// arange: element i is start + i * step (in T), up to but excluding stop.
fn arange_case<T: Ty>(start: f64, stop: f64, step: f64) {
    let dev = dev();
    let (s, e, st) = (T::from_f64(start), T::from_f64(stop), T::from_f64(step));
    let (start, stop, step) = (s.to_f64(), e.to_f64(), st.to_f64());
    let n = ((stop - start) / step).ceil().max(0.0) as usize;
    let expected: Vec<f64> = (0..n).map(|i| T::wrap(start + i as f64 * step)).collect();
    let a = dev.arange::<T>(s, e, st).unwrap();
    eprintln!("case: arange::<{}>({start}, {stop}, {step})", T::NAME);
    assert_eq!(a.shape(), &[n]);
    // f32/f16 compute start + i * step in T: an ulp or two of the largest magnitude.
    let big = start.abs().max(stop.abs());
    assert_close(
        &host(&a),
        &expected,
        4.0 * big * T::EPS * T::FLOAT as u32 as f64,
        0.0,
    );
}

#[test]
fn arange_float() {
    arange_case::<f32>(0.0, 10.0, 1.0);
    arange_case::<f32>(1.0, 2.0, 0.25);
    arange_case::<f32>(-3.0, 7.5, 0.1);
    arange_case::<f32>(5.0, -5.0, -0.75);
    arange_case::<f32>(0.0, 100_000.0, 0.5);
    arange_case::<f32>(2.0, 1.0, 0.5); // empty
    arange_case::<f32>(1.0, 2.0, -0.5); // empty
    if_supported::<f64>(|| {
        arange_case::<f64>(-1.0, 1.0, 1.0 / 64.0);
        arange_case::<f64>(10.0, -10.0, -0.3);
    });
    if_supported::<f16>(|| {
        arange_case::<f16>(0.0, 100.0, 0.25);
        arange_case::<f16>(4.0, -4.0, -0.125);
    });
}

#[test]
fn arange_int() {
    arange_case::<i32>(0.0, 10.0, 1.0);
    arange_case::<i32>(5.0, 0.0, -2.0);
    arange_case::<i32>(-7.0, 8.0, 3.0);
    arange_case::<i32>(100.0, -1000.0, -7.0);
    arange_case::<i32>(3.0, 3.0, 1.0); // empty
    arange_case::<i32>(0.0, 1_000_003.0, 1.0);
    arange_case::<u32>(0.0, 10.0, 1.0);
    arange_case::<u32>(3.0, 1000.0, 7.0);
    arange_case::<u32>(10.0, 3.0, 1.0); // empty
    let a = dev().arange::<i32>(5, 0, -2).unwrap();
    assert_close(&host(&a), &[5.0, 3.0, 1.0], 0.0, 0.0);
}

fn linspace_case<T: Ty + Float>(start: f64, stop: f64, num: usize) {
    let dev = dev();
    let (s, e) = (T::from_f64(start), T::from_f64(stop));
    let (start, stop) = (s.to_f64(), e.to_f64());
    let step = if num > 1 {
        (stop - start) / (num - 1) as f64
    } else {
        0.0
    };
    let mut expected: Vec<f64> = (0..num).map(|i| T::wrap(start + i as f64 * step)).collect();
    if num > 1 {
        expected[num - 1] = stop; // the last element is exactly stop
    }
    let a = dev.linspace::<T>(s, e, num).unwrap();
    eprintln!("case: linspace::<{}>({start}, {stop}, {num})", T::NAME);
    assert_eq!(a.shape(), &[num]);
    let big = start.abs().max(stop.abs());
    let got = host(&a);
    assert_close(&got, &expected, 4.0 * big * T::EPS, 0.0);
    if num > 1 {
        assert_eq!(
            got[num - 1].to_bits(),
            stop.to_bits(),
            "linspace ends exactly at stop"
        );
    }
}

#[test]
fn linspace() {
    for (a, b, n) in [
        (0.0, 1.0, 5),
        (0.0, 1.0, 0),
        (3.0, 3.0, 1),
        (-2.0, 7.0, 1),
        (-2.0, 7.0, 2),
        (1.0, -1.0, 1001),
        (0.1, 0.7, 3),
    ] {
        linspace_case::<f32>(a, b, n);
        if_supported::<f64>(|| {
            linspace_case::<f64>(a, b, n);
        });
        if_supported::<f16>(|| {
            linspace_case::<f16>(a, b, n);
        });
    }
}

#[test]
fn from_slice_and_to_vec_round_trip() {
    let dev = dev();
    let mut rng = Rng::new(11);
    for n in [0usize, 1, 2, 3, 5, 257, 1030] {
        let f: Vec<f32> = rng.vec(n, -1e6, 1e6).iter().map(|&x| x as f32).collect();
        assert_close(
            &to_f64(&dev.from_slice(&f, [n]).unwrap().to_vec().unwrap()),
            &to_f64(&f),
            0.0,
            0.0,
        );
        let i: Vec<i32> = rng
            .ints(n, i32::MIN as i64, i32::MAX as i64)
            .iter()
            .map(|&x| x as i32)
            .collect();
        assert_close(
            &to_f64(&dev.from_slice(&i, [n]).unwrap().to_vec().unwrap()),
            &to_f64(&i),
            0.0,
            0.0,
        );
        let u: Vec<u32> = rng
            .ints(n, 0, u32::MAX as i64)
            .iter()
            .map(|&x| x as u32)
            .collect();
        assert_close(
            &to_f64(&dev.from_slice(&u, [n]).unwrap().to_vec().unwrap()),
            &to_f64(&u),
            0.0,
            0.0,
        );
        if dev.supports::<f16>() {
            let (h, hv) = upload::<f16>(dev, &rng.vec(n, -6e4, 6e4), &[n]);
            assert_close(&host(&h), &hv, 0.0, 0.0);
        }
        if dev.supports::<f64>() {
            let (d, dv) = upload::<f64>(dev, &rng.vec(n, -1e300, 1e300), &[n]);
            assert_close(&host(&d), &dv, 0.0, 0.0);
        }
    }
    // Special float values survive the trip.
    let s = [
        f32::NAN,
        f32::INFINITY,
        f32::NEG_INFINITY,
        -0.0,
        f32::MIN_POSITIVE,
        f32::MAX,
    ];
    let back = dev.from_slice(&s, [6]).unwrap().to_vec().unwrap();
    assert!(back[0].is_nan());
    assert_eq!(
        back[1..].iter().map(|x| x.to_bits()).collect::<Vec<_>>(),
        s[1..].iter().map(|x| x.to_bits()).collect::<Vec<_>>()
    );
}

/// Reads of f16 slices at every offset, odd ones included (2-byte elements inside 4-byte
/// words).
#[test]
fn f16_reads_at_odd_offsets() {
    let dev = dev();
    require_dtype!(f16);
    let mut rng = Rng::new(12);
    let (a, ha) = upload::<f16>(dev, &rng.vec(64, -100.0, 100.0), &[64]);
    for start in 0..9 {
        for len in [0, 1, 2, 3, 5, 8, 13] {
            let v = a.slice(start..start + len).unwrap();
            assert_eq!(v.offset(), if len > 0 { start } else { v.offset() });
            eprintln!("case: f16 slice {start}..{}", start + len);
            assert_close(&host(&v), &ha[start..start + len], 0.0, 0.0);
        }
    }
    let v = a.slice(Slice::from(3..).step(3)).unwrap();
    let e: Vec<f64> = ha[3..].iter().step_by(3).copied().collect();
    assert_close(&host(&v), &e, 0.0, 0.0);
    assert_close(
        &[a.slice(61..62).unwrap().to_scalar().unwrap().to_f64()],
        &[ha[61]],
        0.0,
        0.0,
    );
}

// ---------------------------------------------------------------------------------------
// Views and copies
// ---------------------------------------------------------------------------------------

fn iota(dev: &Device, shape: &[usize]) -> (Array<f32>, Host) {
    let n: usize = shape.iter().product();
    let v: Vec<f64> = (0..n).map(|i| i as f64 * 0.5 - 3.0).collect();
    let (a, hv) = upload::<f32>(dev, &v, shape);
    (a, Host::new(shape, hv))
}

#[test]
fn reshape() {
    let dev = dev();
    let (a, ha) = iota(dev, &[4, 6]);
    for shape in [&[24][..], &[2, 12], &[2, 3, 4], &[1, 24, 1], &[3, 2, 2, 2]] {
        let r = a.reshape(shape).unwrap();
        assert_eq!(r.shape(), shape);
        assert!(r.is_contiguous());
        assert_close(&host(&r), &ha.data, 0.0, 0.0);
    }
    // A contiguous view with an offset reshapes as a view (keeping the offset).
    let s = a.slice(1..3).unwrap();
    assert_eq!(s.offset(), 6);
    let r = s.reshape([3, 4]).unwrap();
    assert_eq!((r.offset(), r.shape()), (6, &[3, 4][..]));
    assert_close(&host(&r), &ha.data[6..18], 0.0, 0.0);
    // Non-contiguous views are copied first.
    let t = a.t();
    let r = t.reshape([24]).unwrap();
    assert!(r.is_contiguous());
    assert_eq!(r.offset(), 0);
    assert_close(&host(&r), &ha.t().data, 0.0, 0.0);
    let s = a
        .slice([Slice::from(1..).step(2), Slice::from(..).step(3)])
        .unwrap();
    let r = s.reshape([4]).unwrap();
    assert_close(&host(&r), &ha.slice(&[(1, 4, 2), (0, 6, 3)]).data, 0.0, 0.0);
    let b = dev.from_slice(&[1.0f32, 2.0, 3.0], [3]).unwrap();
    let r = b.broadcast_to([2, 3]).unwrap().reshape([3, 2]).unwrap();
    assert_close(&host(&r), &[1.0, 2.0, 3.0, 1.0, 2.0, 3.0], 0.0, 0.0);
    // One element to 0-d and back; empty arrays.
    let one = dev.full::<i32>([1, 1], 9).unwrap();
    let z = one.reshape(()).unwrap();
    assert_eq!((z.shape(), z.len(), z.ndim()), (&[][..], 1, 0));
    assert_eq!(z.to_scalar().unwrap(), 9);
    assert_eq!(z.reshape([1]).unwrap().shape(), &[1]);
    let e = dev
        .zeros::<f32>([0, 3])
        .unwrap()
        .reshape([3, 0, 5])
        .unwrap();
    assert_eq!(e.shape(), &[3, 0, 5]);
    assert!(e.to_vec().unwrap().is_empty());
    // Writing into the original is not possible, but a reshape of a view shares its data:
    // operations on both give the same values.
    let r = a.reshape([6, 4]).unwrap();
    assert_close(
        &host(&r.add(&r).unwrap()),
        &host(&a.add(&a).unwrap()),
        0.0,
        0.0,
    );
}

#[test]
fn transpose_and_t() {
    let dev = dev();
    let (a, ha) = iota(dev, &[2, 3, 4]);
    assert_eq!(a.strides(), &[12, 4, 1]);
    for perm in [
        [0, 1, 2],
        [2, 1, 0],
        [1, 0, 2],
        [2, 0, 1],
        [1, 2, 0],
        [0, 2, 1],
    ] {
        let v = a.transpose(&perm).unwrap();
        let hv = ha.transpose(&perm);
        assert_eq!(v.shape(), hv.shape.as_slice());
        assert_eq!(v.offset(), 0);
        assert_eq!(v.is_contiguous(), perm == [0, 1, 2]);
        eprintln!("case: transpose {perm:?}");
        assert_close(&host(&v), &hv.data, 0.0, 0.0);
        let c = v.contiguous().unwrap();
        assert!(c.is_contiguous());
        assert_close(&host(&c), &hv.data, 0.0, 0.0);
    }
    let t = a.t();
    assert_eq!((t.shape(), t.strides()), (&[4, 3, 2][..], &[1, 4, 12][..]));
    assert_close(&host(&t), &ha.t().data, 0.0, 0.0);
    assert_close(&host(&t.t()), &ha.data, 0.0, 0.0);
    // t of 1-d and 0-d arrays is the identity.
    let v = dev.from_slice(&[1u32, 2, 3], [3]).unwrap();
    assert_eq!(v.t().to_vec().unwrap(), vec![1, 2, 3]);
    let s = dev.full::<u32>((), 4).unwrap();
    assert_eq!(s.t().to_scalar().unwrap(), 4);
    assert_eq!(s.transpose(&[]).unwrap().shape(), &[] as &[usize]);
    // A transposed slice.
    let v = a.slice([Slice::from(1..2), Slice::from(1..)]).unwrap().t();
    assert_close(
        &host(&v),
        &ha.slice(&[(1, 2, 1), (1, 3, 1)]).t().data,
        0.0,
        0.0,
    );
}

#[test]
fn broadcast_to() {
    let dev = dev();
    let (a, ha) = iota(dev, &[3, 1]);
    for shape in [&[3, 1][..], &[3, 4], &[2, 3, 4], &[1, 3, 1], &[5, 3, 0]] {
        let b = a.broadcast_to(shape).unwrap();
        assert_eq!(b.shape(), shape);
        eprintln!("case: broadcast_to {shape:?}");
        assert_close(&host(&b), &ha.broadcast_to(shape).data, 0.0, 0.0);
    }
    let b = a.broadcast_to([2, 3, 4]).unwrap();
    assert_eq!(b.strides(), &[0, 1, 0]);
    // 0-d to anything; a broadcast view broadcast again; a broadcast of a transposed view.
    let s = dev.full::<i32>((), -3).unwrap();
    assert_eq!(
        s.broadcast_to([2, 2]).unwrap().to_vec().unwrap(),
        vec![-3; 4]
    );
    let bb = b.broadcast_to([2, 2, 3, 4]).unwrap();
    assert_close(&host(&bb), &ha.broadcast_to(&[2, 2, 3, 4]).data, 0.0, 0.0);
    let (m, hm) = iota(dev, &[2, 3]);
    let v = m.t().broadcast_to([2, 3, 2]).unwrap();
    assert_close(&host(&v), &hm.t().broadcast_to(&[2, 3, 2]).data, 0.0, 0.0);
}

/// Slices and the same slices as (start, end, step) for the host model.
type SliceCase = (Vec<Slice>, Vec<(usize, usize, usize)>);

#[test]
fn slice_and_slice_axis() {
    let dev = dev();
    let (a, ha) = iota(dev, &[6, 7]);
    let cases: Vec<SliceCase> = vec![
        (vec![Slice::from(..)], vec![(0, 6, 1)]),
        (vec![Slice::from(2..5)], vec![(2, 5, 1)]),
        (vec![Slice::from(1..=4)], vec![(1, 5, 1)]),
        (vec![Slice::from(..=2)], vec![(0, 3, 1)]),
        (
            vec![Slice::from(..3), Slice::from(4..)],
            vec![(0, 3, 1), (4, 7, 1)],
        ),
        (
            vec![Slice::from(1..).step(2), Slice::from(..).step(3)],
            vec![(1, 6, 2), (0, 7, 3)],
        ),
        (
            vec![Slice::new(-2, None, 1), Slice::new(-5, Some(-1), 2)],
            vec![(4, 6, 1), (2, 6, 2)],
        ),
        (vec![Slice::from(..).step(10)], vec![(0, 6, 10)]),
        (vec![Slice::new(4, Some(2), 1)], vec![(4, 2, 1)]),
        (vec![Slice::from(6..)], vec![(6, 6, 1)]),
        (
            vec![Slice::from(3..4), Slice::from(6..7)],
            vec![(3, 4, 1), (6, 7, 1)],
        ),
    ];
    for (s, h) in cases {
        let v = a.slice(s.clone()).unwrap();
        let hv = ha.slice(&h);
        eprintln!("case: slice {s:?}");
        assert_eq!(v.shape(), hv.shape.as_slice());
        assert_close(&host(&v), &hv.data, 0.0, 0.0);
    }
    // Offsets in elements.
    assert_eq!(
        a.slice([Slice::from(2..), Slice::from(3..)])
            .unwrap()
            .offset(),
        17
    );
    // Slices of slices.
    let v = a
        .slice(Slice::from(1..).step(2))
        .unwrap()
        .slice([Slice::from(1..), Slice::from(1..6).step(2)])
        .unwrap();
    let hv = ha.slice(&[(1, 6, 2)]).slice(&[(1, 3, 1), (1, 6, 2)]);
    assert_close(&host(&v), &hv.data, 0.0, 0.0);
    // slice_axis.
    let v = a.slice_axis(1, Slice::from(2..6).step(3)).unwrap();
    assert_close(&host(&v), &ha.slice(&[(0, 6, 1), (2, 6, 3)]).data, 0.0, 0.0);
    let v = a.slice_axis(0, 5..).unwrap();
    assert_close(&host(&v), &ha.slice(&[(5, 6, 1)]).data, 0.0, 0.0);
    // A 3-d slice leaving the last axis whole.
    let (c, hc) = iota(dev, &[3, 4, 5]);
    let v = c
        .slice([Slice::from(1..), Slice::from(..).step(2)])
        .unwrap();
    assert_close(&host(&v), &hc.slice(&[(1, 3, 1), (0, 4, 2)]).data, 0.0, 0.0);
}

#[test]
fn contiguous_and_cast() {
    let dev = dev();
    let (a, ha) = iota(dev, &[5, 6]);
    // Already contiguous with offset 0: a cheap clone with the same layout.
    let c = a.contiguous().unwrap();
    assert_eq!(
        (c.shape(), c.strides(), c.offset()),
        (a.shape(), a.strides(), 0)
    );
    // Contiguous with an offset: copied to offset 0.
    let s = a.slice(2..).unwrap();
    let c = s.contiguous().unwrap();
    assert_eq!((c.offset(), c.strides()), (0, &[6, 1][..]));
    assert_close(&host(&c), &ha.data[12..], 0.0, 0.0);
    let c = a
        .t()
        .slice(Slice::from(1..).step(2))
        .unwrap()
        .contiguous()
        .unwrap();
    assert!(c.is_contiguous() && c.offset() == 0);
    assert_close(&host(&c), &ha.t().slice(&[(1, 6, 2)]).data, 0.0, 0.0);
    // cast of views.
    let i = a.t().cast::<i32>().unwrap();
    let e: Vec<f64> = ha.t().data.iter().map(|x| x.trunc()).collect();
    assert_close(&host(&i), &e, 0.0, 0.0);
    let u = i
        .abs()
        .unwrap()
        .cast::<u32>()
        .unwrap()
        .cast::<f32>()
        .unwrap();
    let e: Vec<f64> = ha.t().data.iter().map(|x| x.trunc().abs()).collect();
    assert_close(&host(&u), &e, 0.0, 0.0);
    assert_eq!(u.dtype(), DType::F32);
    if dev.supports::<f64>() {
        let d = a.slice_axis(1, 1..).unwrap().cast::<f64>().unwrap();
        assert_close(&host(&d), &ha.slice(&[(0, 5, 1), (1, 6, 1)]).data, 0.0, 0.0);
    }
    if dev.supports::<f16>() {
        let h = a.broadcast_to([2, 5, 6]).unwrap().cast::<f16>().unwrap();
        assert_close(&host(&h), &ha.broadcast_to(&[2, 5, 6]).data, 0.0, 1e-3);
    }
}

#[test]
fn to_vec_async() {
    let dev = dev();
    let (a, ha) = iota(dev, &[40, 30]);
    let futures: Vec<_> = (0..4)
        .map(|k| a.add_scalar(k as f32).unwrap().to_vec_async())
        .collect();
    let t = a.t().to_vec_async();
    for (k, f) in futures.into_iter().enumerate() {
        let v = pollster::block_on(f).unwrap();
        let e: Vec<f64> = ha.data.iter().map(|x| f32::wrap(x + k as f64)).collect();
        assert_close(&to_f64(&v), &e, 0.0, 0.0);
    }
    assert_close(
        &to_f64(&pollster::block_on(t).unwrap()),
        &ha.t().data,
        0.0,
        0.0,
    );
    // The future is Send + 'static: it may be awaited on another thread after the array is gone.
    let b = dev
        .arange::<i32>(0, 1000, 1)
        .unwrap()
        .mul_scalar(3)
        .unwrap();
    let f = b.slice(Slice::from(1..).step(7)).unwrap().to_vec_async();
    drop(b);
    let v = std::thread::spawn(move || pollster::block_on(f))
        .join()
        .unwrap()
        .unwrap();
    let e: Vec<f64> = (1..1000).step_by(7).map(|i| 3.0 * i as f64).collect();
    assert_close(&to_f64(&v), &e, 0.0, 0.0);
    let empty = dev.zeros::<f32>([0]).unwrap();
    assert!(pollster::block_on(empty.to_vec_async()).unwrap().is_empty());
}

#[test]
fn to_scalar() {
    let dev = dev();
    assert_eq!(dev.full::<f32>((), 2.5).unwrap().to_scalar().unwrap(), 2.5);
    assert_eq!(dev.full::<i32>([1], -4).unwrap().to_scalar().unwrap(), -4);
    assert_eq!(
        dev.full::<u32>([1, 1, 1], 9).unwrap().to_scalar().unwrap(),
        9
    );
    let (a, ha) = iota(dev, &[3, 4]);
    let v = a.slice([Slice::from(2..3), Slice::from(3..4)]).unwrap();
    assert_close(
        &[v.to_scalar().unwrap() as f64],
        &[ha.at(&[2, 3])],
        0.0,
        0.0,
    );
    // One-element views of every row, summed on the host.
    let sum: f64 = (0..3)
        .map(|r| {
            let v = a.slice([Slice::from(r..r + 1), Slice::from(0..1)]).unwrap();
            v.to_scalar().unwrap() as f64
        })
        .sum();
    let e = ha.at(&[0, 0]) + ha.at(&[1, 0]) + ha.at(&[2, 0]);
    assert_close(&[sum], &[e], 0.0, 1e-6);
}

#[test]
fn shape_conversions() {
    assert_eq!(Shape::from(5).dims(), &[5]);
    assert_eq!(Shape::from(()).len(), 1);
    assert_eq!(Shape::from(vec![2, 3]).ndim(), 2);
    let dev = dev();
    let a = dev.zeros::<f32>(vec![2, 3]).unwrap();
    assert_eq!(a.dim(), Shape::from([2, 3]));
    assert_eq!(dev.zeros::<f32>(&[4usize, 1][..]).unwrap().shape(), &[4, 1]);
    assert_eq!(dev.zeros::<f32>(7).unwrap().shape(), &[7]);
}

// ---------------------------------------------------------------------------------------
// Errors: the exact variant, then the device keeps working
// ---------------------------------------------------------------------------------------

#[test]
fn error_shape_mismatch() {
    let dev = dev();
    let a = dev.ones::<f32>([2, 3]).unwrap();
    let b = dev.ones::<f32>([3, 2]).unwrap();
    let r = a.add(&b);
    assert!(
        matches!(&r, Err(Error::ShapeMismatch { op: "add", lhs, rhs }) if lhs == &[2, 3] && rhs == &[3, 2]),
        "{r:?}"
    );
    assert!(matches!(
        a.pow(&b),
        Err(Error::ShapeMismatch { op: "pow", .. })
    ));
    assert!(matches!(
        a.eq(&b),
        Err(Error::ShapeMismatch { op: "eq", .. })
    ));
    still_works(dev);
}

#[test]
fn error_broadcast() {
    let dev = dev();
    let a = dev.ones::<f32>([3, 2]).unwrap();
    for to in [&[3][..], &[3, 3], &[2, 2], &[3, 2, 1], &[]] {
        let r = a.broadcast_to(to);
        assert!(
            matches!(&r, Err(Error::Broadcast { from, to: t }) if from == &[3, 2] && t == to),
            "{to:?}: {r:?}"
        );
    }
    still_works(dev);
}

#[test]
fn error_reshape_size() {
    let dev = dev();
    let a = dev.ones::<f32>([2, 3]).unwrap();
    let r = a.reshape([4, 2]);
    assert!(
        matches!(&r, Err(Error::SizeMismatch { shape, expected: 8, actual: 6 }) if shape == &[4, 2]),
        "{r:?}"
    );
    assert!(matches!(
        a.t().reshape([7]),
        Err(Error::SizeMismatch { .. })
    ));
    assert!(matches!(a.reshape(()), Err(Error::SizeMismatch { .. })));
    still_works(dev);
}

#[test]
fn error_slice_out_of_range() {
    let dev = dev();
    let a = dev.ones::<f32>([4, 5]).unwrap();
    let r = a.slice(0..5);
    assert!(
        matches!(
            r,
            Err(Error::SliceOutOfRange {
                axis: 0,
                start: 0,
                end: 5,
                step: 1,
                len: 4
            })
        ),
        "{r:?}"
    );
    let r = a.slice([Slice::from(..), Slice::from(6..)]);
    assert!(
        matches!(
            r,
            Err(Error::SliceOutOfRange {
                axis: 1,
                len: 5,
                ..
            })
        ),
        "{r:?}"
    );
    let r = a.slice(Slice::new(-5, None, 1));
    assert!(
        matches!(
            r,
            Err(Error::SliceOutOfRange {
                axis: 0,
                start: -1,
                ..
            })
        ),
        "{r:?}"
    );
    let r = a.slice([Slice::from(..), Slice::from(1..3).step(0)]);
    assert!(
        matches!(
            r,
            Err(Error::SliceOutOfRange {
                axis: 1,
                step: 0,
                ..
            })
        ),
        "{r:?}"
    );
    let r = a.slice_axis(1, 2..9);
    assert!(
        matches!(r, Err(Error::SliceOutOfRange { axis: 1, .. })),
        "{r:?}"
    );
    still_works(dev);
}

#[test]
fn error_too_many_slices() {
    let dev = dev();
    let a = dev.ones::<f32>([4, 5]).unwrap();
    let r = a.slice([Slice::from(..), Slice::from(..), Slice::from(..)]);
    assert!(
        matches!(r, Err(Error::TooManySlices { given: 3, ndim: 2 })),
        "{r:?}"
    );
    let s = dev.full::<f32>((), 1.0).unwrap();
    assert!(matches!(
        s.slice(..),
        Err(Error::TooManySlices { given: 1, ndim: 0 })
    ));
    still_works(dev);
}

#[test]
fn error_invalid_permutation() {
    let dev = dev();
    let a = dev.ones::<f32>([2, 3, 4]).unwrap();
    for perm in [&[0, 1][..], &[0, 0, 1], &[0, 1, 3], &[0, 1, 2, 3], &[]] {
        let r = a.transpose(perm);
        assert!(
            matches!(&r, Err(Error::InvalidPermutation { perm: p, ndim: 3 }) if p == perm),
            "{perm:?}: {r:?}"
        );
    }
    still_works(dev);
}

#[test]
fn error_axis_out_of_range() {
    let dev = dev();
    let a = dev.ones::<f32>([2, 3]).unwrap();
    let r = a.slice_axis(2, ..);
    assert!(
        matches!(r, Err(Error::AxisOutOfRange { axis: 2, ndim: 2 })),
        "{r:?}"
    );
    still_works(dev);
}

#[test]
fn error_not_scalar() {
    let dev = dev();
    let r = dev.ones::<f32>([2]).unwrap().to_scalar();
    assert!(matches!(r, Err(Error::NotScalar { len: 2 })), "{r:?}");
    let r = dev.ones::<f32>([0]).unwrap().to_scalar();
    assert!(matches!(r, Err(Error::NotScalar { len: 0 })), "{r:?}");
    still_works(dev);
}

#[test]
fn error_from_slice_size() {
    let dev = dev();
    let r = dev.from_slice(&[1.0f32, 2.0, 3.0], [2, 2]);
    assert!(
        matches!(&r, Err(Error::SizeMismatch { shape, expected: 4, actual: 3 }) if shape == &[2, 2]),
        "{r:?}"
    );
    let r = dev.from_slice::<i32>(&[], ());
    assert!(
        matches!(
            r,
            Err(Error::SizeMismatch {
                expected: 1,
                actual: 0,
                ..
            })
        ),
        "{r:?}"
    );
    still_works(dev);
}

#[test]
fn error_arange_step() {
    let dev = dev();
    let r = dev.arange::<f32>(0.0, 1.0, 0.0);
    assert!(
        matches!(r, Err(Error::InvalidArgument { op: "arange", .. })),
        "{r:?}"
    );
    let r = dev.arange::<i32>(0, 10, 0);
    assert!(
        matches!(r, Err(Error::InvalidArgument { op: "arange", .. })),
        "{r:?}"
    );
    let r = dev.arange::<f32>(0.0, f32::INFINITY, 1.0);
    assert!(
        matches!(r, Err(Error::InvalidArgument { op: "arange", .. })),
        "{r:?}"
    );
    let r = dev.arange::<f32>(0.0, 1.0, f32::NAN);
    assert!(
        matches!(r, Err(Error::InvalidArgument { op: "arange", .. })),
        "{r:?}"
    );
    still_works(dev);
}

#[test]
fn error_device_mismatch() {
    let dev = dev();
    let other = Device::new().unwrap();
    let a = dev.ones::<f32>([3]).unwrap();
    let b = other.ones::<f32>([3]).unwrap();
    assert!(matches!(
        a.add(&b),
        Err(Error::DeviceMismatch { op: "add" })
    ));
    let m = other.ones::<bool>([3]).unwrap();
    assert!(matches!(
        Array::where_(&m, &a, &a),
        Err(Error::DeviceMismatch { op: "where" })
    ));
    still_works(dev);
    still_works(&other);
}

/// A pool limit makes a larger allocation fail with OutOfMemory; the device keeps working,
/// and lifting the limit lets the allocation succeed.
#[test]
fn error_out_of_memory() {
    let dev = Device::new().unwrap();
    let pool = dev.memory_pool();
    pool.set_limit(Some(1 << 20));
    assert_eq!(pool.limit(), Some(1 << 20));
    let r = dev.zeros::<f32>([1 << 20]);
    assert!(
        matches!(r, Err(Error::OutOfMemory { requested, limit, .. }) if requested == 4 << 20 && limit == 1 << 20),
        "{r:?}"
    );
    let small = dev.ones::<f32>([1000]).unwrap();
    let r = small.broadcast_to([1000, 1000]).unwrap().contiguous();
    assert!(matches!(r, Err(Error::OutOfMemory { .. })), "{r:?}");
    still_works(&dev);
    pool.set_limit(None);
    assert_eq!(pool.limit(), None);
    let big = dev.full::<f32>([1 << 20], 2.0).unwrap();
    assert_close(
        &host(&big.slice((1 << 20) - 3..).unwrap()),
        &[2.0; 3],
        0.0,
        0.0,
    );
}

/// Empty arrays with the zero-length axis in every position, as arrays and as views: reads
/// (sync and async), copies and ops give empty results of the right shape. (A recursion
/// between reads and `contiguous` on such arrays once overflowed the stack, which aborts the
/// whole test binary.)
#[test]
fn empty_arrays() {
    let dev = dev();
    for shape in [&[0][..], &[0, 3], &[3, 0], &[2, 0, 5], &[2, 5, 0], &[0, 0]] {
        eprintln!("case: empty {shape:?}");
        let z = dev.zeros::<f32>(shape).unwrap();
        assert!(z.is_empty());
        assert!(z.to_vec().unwrap().is_empty());
        assert!(pollster::block_on(z.to_vec_async()).unwrap().is_empty());
        let t = z.t();
        assert!(t.to_vec().unwrap().is_empty());
        let c = t.contiguous().unwrap();
        assert_eq!(c.shape(), t.shape());
        assert!(c.to_vec().unwrap().is_empty());
        let s = z.add_scalar(1.0).unwrap().exp().unwrap();
        assert_eq!(s.shape(), shape);
        assert!(s.to_vec().unwrap().is_empty());
        let r = t.reshape([0]).unwrap();
        assert!(r.to_vec().unwrap().is_empty());
        assert!(z.cast::<i32>().unwrap().to_vec().unwrap().is_empty());
    }
    let one = dev.ones::<f32>([3, 1]).unwrap();
    let b = one.broadcast_to([2, 3, 0]).unwrap();
    assert!(b.to_vec().unwrap().is_empty());
    assert!(b.contiguous().unwrap().to_vec().unwrap().is_empty());
    let e = dev.zeros::<f32>([0, 1]).unwrap();
    let sum = one.add(&e.reshape([0, 1, 1]).unwrap()).unwrap();
    assert_eq!(sum.shape(), &[0, 3, 1]);
    assert!(sum.to_vec().unwrap().is_empty());
    let sliced = one.slice(Slice::new(2, Some(1), 1)).unwrap();
    assert_eq!(sliced.shape(), &[0, 1]);
    assert!(sliced.neg().unwrap().to_vec().unwrap().is_empty());
    still_works(dev);
}

/// Shapes whose element count overflows are errors, never a panic, and the device works on.
#[test]
fn overflowing_shapes() {
    let dev = dev();
    let huge = [1usize << 40, 1 << 40];
    assert!(matches!(
        dev.zeros::<f32>(huge),
        Err(Error::BufferTooLarge { .. })
    ));
    assert!(matches!(
        dev.from_slice(&[1.0f32], huge),
        Err(Error::BufferTooLarge { .. })
    ));
    let x = dev.ones::<f32>([2]).unwrap();
    assert!(matches!(
        x.broadcast_to([usize::MAX, 2]),
        Err(Error::BufferTooLarge { .. })
    ));
    assert!(matches!(
        x.reshape([usize::MAX, 2]),
        Err(Error::BufferTooLarge { .. })
    ));
    // A broadcast view too large for one kernel is fine as a view; computing on it is not.
    let wide = x.broadcast_to([1 << 20, 1 << 13, 2]).unwrap();
    assert!(matches!(
        wide.add_scalar(1.0),
        Err(Error::BufferTooLarge { .. })
    ));
    // A step far past the axis takes the first element.
    let s = x
        .slice([gpuarray::Slice::from(..).step(usize::MAX)])
        .unwrap();
    assert_close(&host(&s), &[1.0], 0.0, 0.0);
    assert_close(&host(&x.add_scalar(1.0).unwrap()), &[2.0, 2.0], 0.0, 0.0);
}

/// Diagonals far outside the matrix give zeros; absurd sizes are errors, not panics.
#[test]
fn eye_extreme_arguments() {
    let dev = dev();
    let e = dev.eye_rect::<i32>(2, 3, isize::MAX).unwrap();
    assert_close(&host(&e), &[0.0; 6], 0.0, 0.0);
    let e = dev.eye_rect::<i32>(2, 3, isize::MIN).unwrap();
    assert_close(&host(&e), &[0.0; 6], 0.0, 0.0);
    let e = dev.eye_rect::<f32>(3, 2, -1).unwrap();
    assert_close(&host(&e), &[0.0, 0.0, 1.0, 0.0, 0.0, 1.0], 0.0, 0.0);
    assert!(matches!(
        dev.eye_rect::<f32>(usize::MAX, 2, 0),
        Err(Error::BufferTooLarge { .. })
    ));
    assert!(matches!(
        dev.eye::<f32>(1 << 20),
        Err(Error::BufferTooLarge { .. }) | Err(Error::OutOfMemory { .. })
    ));
}
