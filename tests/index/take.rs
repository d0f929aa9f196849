//! take, take_mode, take_along_axis and gather against a CPU reference.

use super::common::*;
use super::{exact, values};
use gpuarray::{f16, Error, IndexMode, Slice};

per_dtype! {
    take_every_axis: take;
    take_along_axis_broadcast: take_along;
    gather_by_index_arrays: gather;
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
            .slice_axis(1, 0..1)
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

fn gather<T: Ty>() {
    let d = dev();
    let mut rng = Rng::new(9);
    let (base, h) = upload::<T>(d, &values::<T>(&mut rng, 4 * 5 * 12), &[4, 5, 12]);
    // A strided view [4, 5, 6] as the indexed array.
    let x = base
        .slice([Slice::from(..), Slice::from(..), Slice::from(..).step(2)])
        .unwrap();
    let hx = Host::new(&[4, 5, 12], h).slice(&[(0, 4, 1), (0, 5, 1), (0, 12, 2)]);
    let ints = |n: usize, len: i64, shape: &[usize], rng: &mut Rng| {
        let raw = rng.ints(n, -len, len - 1);
        let pos: Vec<usize> = raw
            .iter()
            .map(|&v| (v as i64).rem_euclid(len) as usize)
            .collect();
        let a = d
            .from_slice(
                &raw.iter().map(|&v| v as i32).collect::<Vec<_>>(),
                shape.to_vec(),
            )
            .unwrap();
        (a, pos)
    };
    // Not adjacent: the broadcast index shape [2, 3] first, then axis 1.
    let (i0, p0) = ints(6, 4, &[2, 3], &mut rng);
    let (i2, p2) = ints(3, 6, &[3], &mut rng);
    let got = x.gather(&[Some(&i0), None, Some(&i2)]).unwrap();
    assert_eq!(got.shape(), &[2, 3, 5]);
    let want: Vec<f64> = (0..30)
        .map(|k| {
            let (b0, b1, j) = (k / 15, (k / 5) % 3, k % 5);
            hx.at(&[p0[b0 * 3 + b1], j, p2[b1]])
        })
        .collect();
    exact(&host(&got), &want);
    // Adjacent: [3, 1] and [2] broadcast to [3, 2] in place of axes 1 and 2.
    let (i1, p1) = ints(3, 5, &[3, 1], &mut rng);
    let (j2, q2) = ints(2, 6, &[2], &mut rng);
    let got = x.gather(&[None, Some(&i1), Some(&j2)]).unwrap();
    assert_eq!(got.shape(), &[4, 3, 2]);
    let want: Vec<f64> = (0..24)
        .map(|k| hx.at(&[k / 6, p1[(k / 2) % 3], q2[k % 2]]))
        .collect();
    exact(&host(&got), &want);
    // One array, shorter list: axis 0 with the rest whole; no arrays: a copy.
    let row = i0.index_axis(0, 1).unwrap(); // a view with an offset
    let got = x.gather(&[Some(&row)]).unwrap();
    assert_eq!(got.shape(), &[3, 5, 6]);
    let want: Vec<f64> = (0..90)
        .map(|k| hx.at(&[p0[3 + k / 30], (k / 6) % 5, k % 6]))
        .collect();
    exact(&host(&got), &want);
    let whole = x.gather::<i32>(&[None, None]).unwrap();
    exact(&host(&whole), &hx.data);
    // Bad: too many entries, shapes that do not broadcast, out of range.
    let none: Option<&gpuarray::Array<i32>> = None;
    assert!(matches!(
        x.gather(&[none, none, none, none]),
        Err(Error::TooManySlices { .. })
    ));
    let (k4, _) = ints(4, 4, &[4], &mut rng);
    assert!(matches!(
        x.gather(&[Some(&k4), Some(&i2)]),
        Err(Error::ShapeMismatch { .. })
    ));
    let far = d.from_slice(&[5i32], [1]).unwrap();
    assert!(matches!(
        x.gather(&[None, Some(&far)]),
        Err(Error::IndexOutOfRange {
            axis: 1,
            len: 5,
            ..
        })
    ));
    // Empty index arrays give empty results.
    let e = d.zeros::<i32>([0]).unwrap();
    assert_eq!(x.gather(&[Some(&e)]).unwrap().shape(), &[0, 5, 6]);
}
