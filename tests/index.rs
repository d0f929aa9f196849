//! Indexing and assignment against a CPU reference: fill, assign, copy_from_slice and
//! copy_to_slice into views with strides and offsets (and overlapping their source),
//! index_axis, take / take_mode / take_along_axis, select / masked_fill / masked_assign,
//! scatter_add / scatter_max / scatter_min with duplicate indices; every dtype, 0-size
//! arrays, negative indices and axes, special values; bad arguments leave every array as it
//! was; views alias their base, results of operations do not.
//!
//! Writes and gathers move values without arithmetic: exact comparisons (NaN equal to NaN).
//! f32 scatter_add sums in an unfixed order: within (count) * 2^-24 * sum |v| of the f64 sum.

#[macro_use]
mod common;

use common::*;
use gpuarray::{f16, Array, Element, Error, IndexMode, Slice};

/// The buffer offsets of a view's elements, in C order.
fn offsets<T: Element>(a: &Array<T>) -> Vec<usize> {
    (0..a.len())
        .map(|i| {
            let idx = unravel(i, a.shape());
            a.offset()
                + idx
                    .iter()
                    .zip(a.strides())
                    .map(|(i, s)| i * s)
                    .sum::<usize>()
        })
        .collect()
}

/// Random values of T (exact in every dtype), with T's special values where it has them.
fn values<T: Ty>(rng: &mut Rng, n: usize) -> Vec<f64> {
    let lo = if T::SIGNED { -60 } else { 0 };
    let mut v = rng.ints(n, lo, 60);
    let special: &[f64] = if T::FLOAT {
        &[f64::NAN, f64::INFINITY, f64::NEG_INFINITY, -0.0]
    } else if T::SIGNED {
        &[i32::MIN as f64, i32::MAX as f64]
    } else {
        &[u32::MAX as f64]
    };
    for (k, &s) in special.iter().enumerate() {
        if k < n {
            v[(k * 7) % n] = s;
        }
    }
    v
}

fn exact(actual: &[f64], expected: &[f64]) {
    assert_close(actual, expected, 0.0, 0.0);
}

fn writes<T: Ty>() {
    let d = dev();
    let mut rng = Rng::new(1);
    let (base, mut want) = upload::<T>(d, &values::<T>(&mut rng, 7 * 11), &[7, 11]);
    // A transposed view with steps and an offset.
    let view = base
        .slice([Slice::from(1..6), Slice::from(2..).step(3)])
        .unwrap()
        .t();
    let (fill_v, _) = cast_in::<T>(&[5.0]);
    view.fill(fill_v[0]).unwrap();
    for o in offsets(&view) {
        want[o] = 5.0;
    }
    exact(&host(&base), &want);
    // assign: a broadcast row, then a strided source.
    let (row, row_h) = upload::<T>(d, &values::<T>(&mut rng, 5), &[5]);
    view.assign(&row).unwrap();
    for (k, o) in offsets(&view).into_iter().enumerate() {
        want[o] = row_h[k % 5];
    }
    exact(&host(&base), &want);
    let (src, src_h) = upload::<T>(d, &values::<T>(&mut rng, 5 * 3), &[5, 3]);
    let src_t = src.t(); // [3, 5], strided
    let target = base
        .slice([Slice::from(4..7), Slice::from(..).step(2)])
        .unwrap(); // [3, 6]
    let target = target.slice([Slice::from(..), Slice::from(1..)]).unwrap(); // [3, 5]
    target.assign(&src_t).unwrap();
    for (k, o) in offsets(&target).into_iter().enumerate() {
        let (i, j) = (k / 5, k % 5);
        want[o] = src_h[j * 3 + i];
    }
    exact(&host(&base), &want);
    // copy_from_slice into a view, copy_to_slice from one.
    let (data, data_h) = cast_in::<T>(&values::<T>(&mut rng, 15));
    target.copy_from_slice(&data).unwrap();
    for (k, o) in offsets(&target).into_iter().enumerate() {
        want[o] = data_h[k];
    }
    exact(&host(&base), &want);
    let mut out = vec![T::zero(); 15];
    target.copy_to_slice(&mut out).unwrap();
    exact(&to_f64(&out), &data_h);
    // Bad arguments leave everything as it was.
    assert!(matches!(
        target.assign(&dev().zeros::<T>([4]).unwrap()),
        Err(Error::Broadcast { .. })
    ));
    assert!(matches!(
        target.copy_from_slice(&data[..14]),
        Err(Error::SizeMismatch { .. })
    ));
    let mut short = vec![T::zero(); 14];
    assert!(target.copy_to_slice(&mut short).is_err());
    assert!(short.iter().all(|&x| x == T::zero()));
    let wide = base.slice(0..1).unwrap().broadcast_to([3, 1, 11]).unwrap();
    assert!(matches!(
        wide.fill(fill_v[0]),
        Err(Error::InvalidArgument { .. })
    ));
    assert!(wide.assign(&row).is_err());
    exact(&host(&base), &want);
    // 0-size targets and sources.
    let empty = base.slice(3..3).unwrap();
    empty.fill(fill_v[0]).unwrap();
    empty.assign(&dev().zeros::<T>([0, 11]).unwrap()).unwrap();
    empty.copy_from_slice(&[]).unwrap();
    exact(&host(&base), &want);
}

fn overlapping<T: Ty>() {
    // NumPy's x[:-1] = x[1:] and x[1:] = x[:-1]: the source is read as it was.
    let d = dev();
    for shift_right in [false, true] {
        let n = 37;
        let (x, h) = upload::<T>(d, &(0..n).map(|v| v as f64).collect::<Vec<_>>(), &[n]);
        let (dst, src) = if shift_right {
            (x.slice(1..).unwrap(), x.slice(..n - 1).unwrap())
        } else {
            (x.slice(..n - 1).unwrap(), x.slice(1..).unwrap())
        };
        dst.assign(&src).unwrap();
        let mut want = h.clone();
        for k in 0..n - 1 {
            if shift_right {
                want[k + 1] = h[k];
            } else {
                want[k] = h[k + 1];
            }
        }
        exact(&host(&x), &want);
    }
}

fn index_axis<T: Ty>() {
    let d = dev();
    let mut rng = Rng::new(2);
    let shape = [3, 5, 2];
    let (x, h) = upload::<T>(d, &values::<T>(&mut rng, 30), &shape);
    let hx = Host::new(&shape, h);
    for axis in -3isize..3 {
        let ax = axis.rem_euclid(3) as usize;
        for i in -(shape[ax] as isize)..shape[ax] as isize {
            let v = x.index_axis(axis, i).unwrap();
            let k = i.rem_euclid(shape[ax] as isize) as usize;
            let mut s: Vec<(usize, usize, usize)> = shape.iter().map(|&n| (0, n, 1)).collect();
            s[ax] = (k, k + 1, 1);
            let mut want_shape = shape.to_vec();
            want_shape.remove(ax);
            assert_eq!(v.shape(), &want_shape[..]);
            exact(&host(&v), &hx.slice(&s).data);
        }
        let len = shape[ax] as isize;
        for bad in [len, -len - 1] {
            assert!(matches!(
                x.index_axis(axis, bad),
                Err(Error::IndexOutOfRange { len: l, .. }) if l == shape[ax]
            ));
        }
    }
    assert!(matches!(
        x.index_axis(3, 0),
        Err(Error::AxisOutOfRange { .. })
    ));
}

macro_rules! per_dtype {
    ($($name:ident: $f:ident;)*) => {
        mod per_dtype {
            use super::*;
            $(
                #[test]
                fn $name() {
                    if_supported::<f32>(super::$f::<f32>);
                    if_supported::<f16>(super::$f::<f16>);
                    if_supported::<f64>(super::$f::<f64>);
                    if_supported::<i32>(super::$f::<i32>);
                    if_supported::<u32>(super::$f::<u32>);
                }
            )*
        }
    };
}

per_dtype! {
    fill_assign_copy_into_views: writes;
    assign_overlapping_views: overlapping;
    index_axis_every_axis: index_axis;
    take_every_axis: take;
    take_along_axis_broadcast: take_along;
    masks: masks;
    scatter_and_put_last_writer_wins: scatter_last;
}

/// The reference of take along `ax` with resolved positions `pos` (of shape `ishape`).
fn take_ref(hx: &Host, ax: usize, pos: &[usize], ishape: &[usize]) -> Vec<f64> {
    let shape = &hx.shape;
    let outer: usize = shape[..ax].iter().product();
    let inner: usize = shape[ax + 1..].iter().product();
    let mut out = Vec::new();
    let _ = ishape;
    for o in 0..outer {
        for &p in pos {
            for r in 0..inner {
                out.push(hx.data[(o * shape[ax] + p) * inner + r]);
            }
        }
    }
    out
}

fn take<T: Ty>() {
    let d = dev();
    let mut rng = Rng::new(3);
    let shape = [3, 7, 5];
    let (base, h) = upload::<T>(d, &values::<T>(&mut rng, 3 * 7 * 10), &[3, 7, 10]);
    // A strided view as the gathered array.
    let x = base
        .slice([Slice::from(..), Slice::from(..), Slice::from(1..).step(2)])
        .unwrap();
    let hx = Host::new(&[3, 7, 10], h).slice(&[(0, 3, 1), (0, 7, 1), (1, 10, 2)]);
    for axis in -3isize..3 {
        let ax = axis.rem_euclid(3) as usize;
        let len = shape[ax] as i64;
        let raw = rng.ints(2 * 3, -len, len - 1);
        let pos: Vec<usize> = raw
            .iter()
            .map(|&v| (v as i64).rem_euclid(len) as usize)
            .collect();
        let idx = d
            .from_slice(&raw.iter().map(|&v| v as i32).collect::<Vec<_>>(), [2, 3])
            .unwrap();
        let got = x.take(&idx, axis).unwrap();
        let mut want_shape = shape[..ax].to_vec();
        want_shape.extend([2, 3]);
        want_shape.extend(&shape[ax + 1..]);
        assert_eq!(got.shape(), &want_shape[..]);
        exact(&host(&got), &take_ref(&hx, ax, &pos, &[2, 3]));
        // u32 indices, given as a strided view.
        let upos: Vec<u32> = pos.iter().map(|&p| p as u32).collect();
        let wide: Vec<u32> = upos.iter().flat_map(|&p| [p, 999]).collect();
        let uidx = d
            .from_slice(&wide, [6, 2])
            .unwrap()
            .slice_axis(gpuarray::Axis(1), 0..1)
            .unwrap();
        let got = x.take(&uidx, axis).unwrap();
        exact(&host(&got), &take_ref(&hx, ax, &pos, &[6, 1]));
        // Out of range: an error for raise; wrap and clip as NumPy.
        let wild = [len, -len - 1, 3 * len + 1, -2 * len - 3, 0];
        let widx = d.from_slice(&wild.map(|v| v as i32), [5]).unwrap();
        assert!(matches!(
            x.take(&widx, axis),
            Err(Error::IndexOutOfRange { axis: a, len: l, .. }) if a == ax && l == len as usize
        ));
        let wrap: Vec<usize> = wild.iter().map(|&v| v.rem_euclid(len) as usize).collect();
        let got = x.take_mode(&widx, axis, IndexMode::Wrap).unwrap();
        exact(&host(&got), &take_ref(&hx, ax, &wrap, &[5]));
        let clip: Vec<usize> = wild.iter().map(|&v| v.clamp(0, len - 1) as usize).collect();
        let got = x.take_mode(&widx, axis, IndexMode::Clip).unwrap();
        exact(&host(&got), &take_ref(&hx, ax, &clip, &[5]));
        // No indices: an empty result.
        let none = d.zeros::<i32>([0]).unwrap();
        assert_eq!(x.take(&none, axis).unwrap().len(), 0);
    }
    // i32 extremes are out of range; an empty axis takes nothing.
    let ext = d.from_slice(&[i32::MIN, i32::MAX], [2]).unwrap();
    assert!(x.take(&ext, 0).is_err());
    let got = x.take_mode(&ext, 1, IndexMode::Wrap).unwrap();
    let wrap = [
        (i32::MIN as i64).rem_euclid(7) as usize,
        (i32::MAX as i64).rem_euclid(7) as usize,
    ];
    exact(&host(&got), &take_ref(&hx, 1, &wrap, &[2]));
    let empty_axis = d.zeros::<T>([2, 0]).unwrap();
    let zero = d.from_slice(&[0i32], [1]).unwrap();
    assert!(matches!(
        empty_axis.take(&zero, 1),
        Err(Error::IndexOutOfRange { .. })
    ));
    assert!(empty_axis.take_mode(&zero, 1, IndexMode::Wrap).is_err());
    assert!(matches!(
        x.take(&zero, 3),
        Err(Error::AxisOutOfRange { .. })
    ));
    assert_unsupported(
        x.take(&d.zeros::<f32>([1]).unwrap(), 0),
        gpuarray::DType::F32,
    );
}

fn take_along<T: Ty>() {
    let d = dev();
    let mut rng = Rng::new(4);
    let (x, h) = upload::<T>(d, &values::<T>(&mut rng, 4 * 6), &[4, 6]);
    let hx = Host::new(&[4, 6], h);
    // Along axis 1 with indices [4, 3]; along axis 0 with indices [2, 1] broadcast over 6.
    let raw = rng.ints(12, -6, 5);
    let idx = d
        .from_slice(&raw.iter().map(|&v| v as i32).collect::<Vec<_>>(), [4, 3])
        .unwrap();
    let got = x.take_along_axis(&idx, -1).unwrap();
    assert_eq!(got.shape(), &[4, 3]);
    let want: Vec<f64> = (0..12)
        .map(|k| hx.at(&[k / 3, (raw[k] as i64).rem_euclid(6) as usize]))
        .collect();
    exact(&host(&got), &want);
    let col = d.from_slice(&[3u32, 0], [2, 1]).unwrap();
    let got = x.take_along_axis(&col, 0).unwrap();
    assert_eq!(got.shape(), &[2, 6]);
    let want: Vec<f64> = (0..12).map(|k| hx.at(&[[3, 0][k / 6], k % 6])).collect();
    exact(&host(&got), &want);
    // Bad: other dimensions, out of range, shapes that do not broadcast.
    assert!(matches!(
        x.take_along_axis(&d.zeros::<i32>([3]).unwrap(), 0),
        Err(Error::InvalidArgument { .. })
    ));
    let far = d.from_slice(&[6i32], [1, 1]).unwrap();
    assert!(matches!(
        x.take_along_axis(&far, 1),
        Err(Error::IndexOutOfRange { .. })
    ));
    assert!(x
        .take_along_axis(&d.zeros::<i32>([3, 2]).unwrap(), 1)
        .is_err());
}

fn masks<T: Ty>() {
    let d = dev();
    let mut rng = Rng::new(5);
    let (base, h) = upload::<T>(d, &values::<T>(&mut rng, 6 * 9), &[6, 9]);
    let mut want = h.clone();
    // A strided, offset view as the target.
    let view = base
        .slice([Slice::from(1..).step(2), Slice::from(2..)])
        .unwrap(); // [3, 7]
    let bits: Vec<u32> = (0..21).map(|_| u32::from(rng.bool(0.4))).collect();
    let mask = d.from_slice(&bits, [3, 7]).unwrap();
    let count = bits.iter().filter(|&&b| b != 0).count();
    let offs = offsets(&view);
    // select is masked_select.
    let sel: Vec<f64> = offs
        .iter()
        .zip(&bits)
        .filter(|(_, &b)| b != 0)
        .map(|(&o, _)| want[o])
        .collect();
    exact(&host(&view.select(&mask).unwrap()), &sel);
    let (v, _) = cast_in::<T>(&[7.0]);
    view.masked_fill(&mask, v[0]).unwrap();
    for (&o, &b) in offs.iter().zip(&bits) {
        if b != 0 {
            want[o] = 7.0;
        }
    }
    exact(&host(&base), &want);
    // masked_assign: values in order, from a strided view.
    let (vals, vh) = upload::<T>(d, &values::<T>(&mut rng, 2 * count), &[2 * count]);
    let vals = vals.slice(Slice::from(1..).step(2)).unwrap();
    view.masked_assign(&mask, &vals).unwrap();
    let mut k = 0;
    for (&o, &b) in offs.iter().zip(&bits) {
        if b != 0 {
            want[o] = vh[1 + 2 * k];
            k += 1;
        }
    }
    exact(&host(&base), &want);
    // One value for every true entry.
    let one = d.from_slice(&cast_in::<T>(&[3.0]).0, [1]).unwrap();
    view.masked_assign(&mask, &one).unwrap();
    for (&o, &b) in offs.iter().zip(&bits) {
        if b != 0 {
            want[o] = 3.0;
        }
    }
    exact(&host(&base), &want);
    // Bad arguments write nothing.
    let short = d.zeros::<T>([count + 1]).unwrap();
    assert!(matches!(
        view.masked_assign(&mask, &short),
        Err(Error::SizeMismatch { .. })
    ));
    let other = d.zeros::<u32>([7, 3]).unwrap();
    assert!(matches!(
        view.masked_fill(&other, v[0]),
        Err(Error::ShapeMismatch { .. })
    ));
    assert!(view
        .masked_assign(&mask, &d.zeros::<T>([1, 1]).unwrap())
        .is_err());
    exact(&host(&base), &want);
    // Empty arrays and masks with no true entry.
    let e = d.zeros::<T>([0, 3]).unwrap();
    let em = d.zeros::<u32>([0, 3]).unwrap();
    e.masked_fill(&em, v[0]).unwrap();
    e.masked_assign(&em, &d.zeros::<T>([0]).unwrap()).unwrap();
    assert_eq!(e.select(&em).unwrap().len(), 0);
    let none = d.zeros::<u32>([3, 7]).unwrap();
    view.masked_assign(&none, &d.zeros::<T>([0]).unwrap())
        .unwrap();
    exact(&host(&base), &want);
}

/// Views alias their base; results of operations never share the input's buffer.
#[test]
fn views_alias_results_do_not() {
    let d = dev();
    let x = d
        .arange::<f32>(0.0, 12.0, 1.0)
        .unwrap()
        .reshape([3, 4])
        .unwrap();
    let view = x.index_axis(0, 1).unwrap();
    let reshaped = x.reshape([12]).unwrap();
    let cast = x.cast::<f32>().unwrap();
    let added = x.add_scalar(0.0).unwrap();
    let copied_t = x.t().contiguous().unwrap();
    let moved = x.to_device(d).unwrap();
    let same = x.contiguous().unwrap(); // NumPy's ascontiguousarray: no copy needed, none made
    view.fill(-1.0).unwrap();
    let mut want: Vec<f32> = (0..12).map(|v| v as f32).collect();
    want[4..8].fill(-1.0);
    assert_eq!(x.to_vec().unwrap(), want);
    assert_eq!(reshaped.to_vec().unwrap(), want);
    assert_eq!(same.to_vec().unwrap(), want);
    let orig: Vec<f32> = (0..12).map(|v| v as f32).collect();
    assert_eq!(cast.to_vec().unwrap(), orig);
    assert_eq!(added.to_vec().unwrap(), orig);
    assert_eq!(moved.to_vec().unwrap(), orig);
    let orig_t: Vec<f32> = (0..12).map(|k| ((k % 3) * 4 + k / 3) as f32).collect();
    assert_eq!(copied_t.to_vec().unwrap(), orig_t);
    // An array computed before a write keeps the old values (queue order).
    let before = x.mul_scalar(2.0).unwrap();
    x.fill(0.0).unwrap();
    let doubled: Vec<f32> = want.iter().map(|v| v * 2.0).collect();
    assert_eq!(before.to_vec().unwrap(), doubled);
}

/// Reference of a scatter: target (row-major, `shape`), indices and sources (row-major,
/// `ishape`), positions resolved along `ax`, combined by `f`.
fn scatter_ref(
    target: &mut [f64],
    shape: &[usize],
    ax: usize,
    (pos, src, ishape): (&[usize], &[f64], &[usize]),
    f: impl Fn(f64, f64) -> f64,
) {
    for k in 0..pos.len() {
        let mut idx = unravel(k, ishape);
        idx[ax] = pos[k];
        let mut o = 0;
        for (d, &i) in idx.iter().enumerate() {
            o = o * shape[d] + i;
        }
        target[o] = f(target[o], src[k]);
    }
}

fn scatter_case<T: Ty>(op: &str) {
    let d = dev();
    let mut rng = Rng::new(6);
    let shape = [5, 4];
    for axis in [0isize, -1] {
        let ax = axis.rem_euclid(2) as usize;
        let ishape = if ax == 0 { [23, 3] } else { [4, 31] };
        let n = ishape[0] * ishape[1];
        let len = shape[ax] as i64;
        let (x, mut want) = upload::<T>(d, &values::<T>(&mut rng, 20), &shape);
        if T::FLOAT {
            // Finite targets for the sums (inf + -inf is NaN in any order, fine; keep it simple).
            want.iter_mut()
                .for_each(|v| *v = if v.is_finite() { *v } else { 1.0 });
            x.copy_from_slice(&cast_in::<T>(&want).0).unwrap();
        }
        let lo = if T::SIGNED { -20 } else { 0 };
        let sv = rng.ints(n, lo, 20);
        let (src, sv) = upload::<T>(d, &sv, &ishape);
        let raw = rng.ints(n, -len, len - 1); // many duplicates
        let idx = d
            .from_slice(&raw.iter().map(|&v| v as i32).collect::<Vec<_>>(), ishape)
            .unwrap();
        let pos: Vec<usize> = raw
            .iter()
            .map(|&v| (v as i64).rem_euclid(len) as usize)
            .collect();
        let r = match op {
            "add" => x.scatter_add(axis, &idx, &src),
            "max" => x.scatter_max(axis, &idx, &src),
            _ => x.scatter_min(axis, &idx, &src),
        };
        r.unwrap();
        let f = |a: f64, b: f64| match op {
            "add" => T::wrap(a + b),
            "max" => a.max(b),
            _ => a.min(b),
        };
        scatter_ref(&mut want, &shape, ax, (&pos, &sv, &ishape), f);
        // Exact: integers, and f32 sums of small integers.
        exact(&host(&x), &want);
    }
}

#[test]
fn scatter_add_max_min() {
    for op in ["add", "max", "min"] {
        scatter_case::<f32>(op);
        scatter_case::<i32>(op);
        scatter_case::<u32>(op);
    }
}

#[test]
fn scatter_special_values_and_errors() {
    let d = dev();
    // NaN wins in max and min, as NumPy's maximum.at.
    let x = d.from_slice(&[0.0f32, 0.0, 5.0], [3]).unwrap();
    let idx = d.from_slice(&[0i32, 1, 1, 2], [4]).unwrap();
    let src = d
        .from_slice(&[f32::NAN, 3.0, -1.0, f32::NEG_INFINITY], [4])
        .unwrap();
    x.scatter_max(0, &idx, &src).unwrap();
    exact(&host(&x), &[f64::NAN, 3.0, 5.0]);
    x.scatter_min(0, &idx, &src).unwrap();
    exact(&host(&x), &[f64::NAN, -1.0, f64::NEG_INFINITY]);
    // i32 sums wrap; u32 indices.
    let y = d.from_slice(&[i32::MAX, 0], [2]).unwrap();
    let u = d.from_slice(&[0u32, 0, 1], [3]).unwrap();
    y.scatter_add(0, &u, &d.from_slice(&[1, 1, i32::MIN], [3]).unwrap())
        .unwrap();
    assert_eq!(y.to_vec().unwrap(), vec![i32::MIN + 1, i32::MIN]);
    // Out of range indices: an error, nothing written.
    let bad = d.from_slice(&[0i32, 3], [2]).unwrap();
    let two = d.from_slice(&[1.0f32, 1.0], [2]).unwrap();
    let before = host(&x);
    assert!(matches!(
        x.scatter_add(0, &bad, &two),
        Err(Error::IndexOutOfRange { len: 3, .. })
    ));
    assert!(matches!(
        x.scatter_add(0, &idx, &two),
        Err(Error::ShapeMismatch { .. })
    ));
    let bcast = d.zeros::<f32>([1]).unwrap().broadcast_to([3]).unwrap();
    assert!(matches!(
        bcast.scatter_add(0, &bad, &two),
        Err(Error::InvalidArgument { .. })
    ));
    let wide = d.zeros::<i32>([2, 5]).unwrap();
    assert!(x
        .scatter_add(0, &wide, &d.zeros::<f32>([2, 5]).unwrap())
        .is_err());
    exact(&host(&x), &before);
    // No atomics for f16 and f64.
    if_supported::<f64>(|| {
        let z = d.zeros::<f64>([2]).unwrap();
        let i = d.zeros::<i32>([1]).unwrap();
        assert_unsupported(
            z.scatter_add(0, &i, &d.zeros::<f64>([1]).unwrap()),
            gpuarray::DType::F64,
        );
    });
    if_supported::<f16>(|| {
        let z = d.zeros::<f16>([2]).unwrap();
        let i = d.zeros::<i32>([1]).unwrap();
        assert_unsupported(
            z.scatter_max(0, &i, &d.zeros::<f16>([1]).unwrap()),
            gpuarray::DType::F16,
        );
    });
    // Empty indices write nothing.
    x.scatter_add(
        0,
        &d.zeros::<i32>([0]).unwrap(),
        &d.zeros::<f32>([0]).unwrap(),
    )
    .unwrap();
    exact(&host(&x), &before);
}

/// f32 scatter_add of random sums into few bins: within the bound of any summation order.
#[test]
fn scatter_add_f32_random_sums() {
    let d = dev();
    let mut rng = Rng::new(7);
    let (n, bins) = (10_007, 13);
    let v = rng.vec(n, -1.0, 1.0);
    let (src, v) = upload::<f32>(d, &v, &[n]);
    let raw = rng.ints(n, 0, bins as i64 - 1);
    let idx = d
        .from_slice(&raw.iter().map(|&v| v as u32).collect::<Vec<_>>(), [n])
        .unwrap();
    let x = d.zeros::<f32>([bins]).unwrap();
    x.scatter_add(0, &idx, &src).unwrap();
    let (mut sum, mut abs, mut cnt) = (vec![0.0; bins], vec![0.0; bins], vec![0.0; bins]);
    for k in 0..n {
        let b = raw[k] as usize;
        sum[b] += v[k];
        abs[b] += v[k].abs();
        cnt[b] += 1.0;
    }
    let got = host(&x);
    for b in 0..bins {
        let tol = cnt[b] * f32::EPSILON as f64 * abs[b];
        assert!(
            (got[b] - sum[b]).abs() <= tol,
            "bin {b}: {} vs {} (tol {tol})",
            got[b],
            sum[b]
        );
    }
}

/// scatter and put: the last writer in C order of the indices wins, on every run; every
/// dtype; strided targets; errors leave the target as it was.
fn scatter_last<T: Ty>() {
    let d = dev();
    let mut rng = Rng::new(8);
    let (base, h) = upload::<T>(d, &values::<T>(&mut rng, 6 * 8), &[6, 8]);
    let mut want = h.clone();
    // Target: a strided view [3, 4] (rows 0, 2, 4; columns 1, 3, 5, 7), along axis 0.
    let view = base
        .slice([Slice::from(..).step(2), Slice::from(1..).step(2)])
        .unwrap();
    let offs = offsets(&view);
    let ishape = [9, 4];
    let raw = rng.ints(36, -3, 2);
    let idx = d
        .from_slice(&raw.iter().map(|&v| v as i32).collect::<Vec<_>>(), ishape)
        .unwrap();
    let (src, sv) = upload::<T>(d, &values::<T>(&mut rng, 36), &ishape);
    view.scatter(0, &idx, &src).unwrap();
    for k in 0..36 {
        let j = k % 4;
        let r = (raw[k] as i64).rem_euclid(3) as usize;
        want[offs[r * 4 + j]] = sv[k]; // later k overwrite earlier ones
    }
    exact(&host(&base), &want);
    // put into the strided view (through a copy) and into a contiguous array.
    let pidx: Vec<i32> = vec![0, -1, 5, 5, 11, 0];
    let (pv, pvh) = upload::<T>(d, &values::<T>(&mut rng, 6), &[2, 3]);
    view.put(&d.from_slice(&pidx, [6]).unwrap(), &pv).unwrap();
    for (k, &p) in pidx.iter().enumerate() {
        want[offs[(p as i64).rem_euclid(12) as usize]] = pvh[k];
    }
    exact(&host(&base), &want);
    let flat = d.zeros::<T>([5]).unwrap();
    let one = d.from_slice(&cast_in::<T>(&[4.0]).0, [1]).unwrap();
    flat.put(&d.from_slice(&[1u32, 3], [2]).unwrap(), &one)
        .unwrap();
    exact(&host(&flat), &[0.0, 4.0, 0.0, 4.0, 0.0]);
    // Errors write nothing.
    let far = d.from_slice(&[0i32, 12], [2]).unwrap();
    assert!(matches!(
        view.put(&far, &one),
        Err(Error::IndexOutOfRange { .. })
    ));
    let two = d.zeros::<T>([2]).unwrap();
    assert!(matches!(
        view.put(&d.zeros::<i32>([3]).unwrap(), &two),
        Err(Error::SizeMismatch { .. })
    ));
    let bad = d.from_slice(&[3i32; 4], [1, 4]).unwrap();
    assert!(view
        .scatter(0, &bad, &d.zeros::<T>([1, 4]).unwrap())
        .is_err());
    exact(&host(&base), &want);
}
