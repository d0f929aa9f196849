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
#[path = "../common/mod.rs"]
mod common;

use common::*;
use gpuarray::{f16, Array, Element, Error, Slice};

/// The buffer offsets of a view's elements, in C order.
pub(crate) fn offsets<T: Element>(a: &Array<T>) -> Vec<usize> {
    (0..a.len())
        .map(|i| {
            let idx = unravel(i, a.shape());
            (a.offset() as isize
                + idx
                    .iter()
                    .zip(a.strides())
                    .map(|(&i, s)| i as isize * s)
                    .sum::<isize>()) as usize
        })
        .collect()
}

/// Random values of T (exact in every dtype), with T's special values where it has them.
pub(crate) fn values<T: Ty>(rng: &mut Rng, n: usize) -> Vec<f64> {
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

pub(crate) fn exact(actual: &[f64], expected: &[f64]) {
    assert_close(actual, expected, 0.0, 0.0);
}

/// One test per dtype of each generic function named.
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

mod scatter;
mod take;
mod wide;

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

per_dtype! {
    fill_assign_copy_into_views: writes;
    assign_overlapping_views: overlapping;
    index_axis_every_axis: index_axis;
    masks: masks;
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
    let flags: Vec<bool> = bits.iter().map(|&b| b != 0).collect();
    let mask = d.from_slice(&flags, [3, 7]).unwrap();
    let count = bits.iter().filter(|&&b| b != 0).count();
    let offs = offsets(&view);
    // extract: the elements under the mask, in C order.
    let sel: Vec<f64> = offs
        .iter()
        .zip(&bits)
        .filter(|&(_, &b)| b != 0)
        .map(|(&o, _)| want[o])
        .collect();
    exact(&host(&view.extract(&mask).unwrap()), &sel);
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
    let other = d.zeros::<bool>([7, 3]).unwrap();
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
    let em = d.zeros::<bool>([0, 3]).unwrap();
    e.masked_fill(&em, v[0]).unwrap();
    e.masked_assign(&em, &d.zeros::<T>([0]).unwrap()).unwrap();
    assert_eq!(e.extract(&em).unwrap().len(), 0);
    let none = d.zeros::<bool>([3, 7]).unwrap();
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
