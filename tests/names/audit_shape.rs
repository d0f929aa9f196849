//! Issue 18's audit, the shape and indexing functions whose tests lacked views or bad
//! arguments: hstack/vstack/dstack, moveaxis and tile refusing bad arguments (typed
//! errors, the operands intact), take_along_axis from and put_along_axis into strided,
//! offset and transposed views against a CPU model (the rest of the buffer untouched).

use crate::common::{dev, Rng};
use gpuarray::{Array, Error, Slice};

/// A [rows, cols] view that is not contiguous: rows from 1 of a [rows + 1, 2 cols]
/// array, every other column (offset 2 cols + 0, strides [2 cols, 2]); with its values.
fn grid(rows: usize, cols: usize, seed: u64) -> (Array<f32>, Vec<f32>, Array<f32>) {
    let mut rng = Rng::new(seed);
    let all: Vec<f32> = rng
        .vec((rows + 1) * 2 * cols, -9.0, 9.0)
        .into_iter()
        .map(|v| v as f32)
        .collect();
    let base = dev().from_slice(&all, [rows + 1, 2 * cols]).unwrap();
    let v = base
        .slice([Slice::from(1..), Slice::from(..).step(2)])
        .unwrap();
    let vals: Vec<f32> = (0..rows * cols)
        .map(|k| all[(1 + k / cols) * 2 * cols + 2 * (k % cols)])
        .collect();
    (v, vals, base)
}

#[test]
fn joins_moveaxis_and_tile_refuse_bad_arguments() {
    let a = dev().from_slice(&[1.0f32, 2.0, 3.0, 4.0], [2, 2]).unwrap();
    let b = dev().from_slice(&[5.0f32, 6.0, 7.0], [3, 1]).unwrap();
    let c = dev().from_slice(&[1.0f32, 2.0, 3.0], [3]).unwrap();
    // Shapes that do not join: [2, 2] and [3, 1] agree on no axis but the joined one.
    for r in [
        Array::hstack(&[&a, &b]),
        Array::vstack(&[&a, &b]),
        Array::dstack(&[&a, &b]),
    ] {
        // The joins' own error: which array, its shape, and what a join needs.
        assert!(
            matches!(r, Err(Error::JoinMismatch { index: 1, .. })),
            "{r:?}"
        );
    }
    // No arrays.
    for r in [
        Array::<f32>::hstack(&[]),
        Array::<f32>::vstack(&[]),
        Array::<f32>::dstack(&[]),
    ] {
        assert!(matches!(r, Err(Error::InvalidArgument { .. })), "{r:?}");
    }
    // Different dimensions for hstack ([2, 2] and [3]).
    assert!(Array::hstack(&[&a, &c]).is_err());
    // A view joins as its values.
    let t = a.t();
    let h = Array::hstack(&[&t, &a]).unwrap();
    assert_eq!(
        h.to_vec().unwrap(),
        vec![1.0, 3.0, 1.0, 2.0, 2.0, 4.0, 3.0, 4.0]
    );
    let x = dev().zeros::<f32>([2, 3, 4]).unwrap();
    for (src, dst) in [(3, 0), (0, -4), (-4, 1)] {
        assert!(
            matches!(x.moveaxis(src, dst), Err(Error::AxisOutOfRange { .. })),
            "moveaxis({src}, {dst})"
        );
    }
    assert_eq!(x.moveaxis(-1, 0).unwrap().shape(), &[4, 2, 3]);
    assert_eq!(t.tile(&[2, 0]).unwrap().shape(), &[4, 0]);
    assert_eq!(
        t.tile(&[]).unwrap().to_vec().unwrap(),
        vec![1.0, 3.0, 2.0, 4.0]
    );
    assert_eq!(a.to_vec().unwrap(), vec![1.0, 2.0, 3.0, 4.0]);
    assert_eq!(b.to_vec().unwrap(), vec![5.0, 6.0, 7.0]);
}

#[test]
fn take_along_axis_from_views() {
    let (x, vals, _base) = grid(5, 7, 201);
    let xt = x.t(); // [7, 5], strides [2, 14]
    let mut rng = Rng::new(202);
    // Indices [7, 3] along axis 1 (0..5, negative from the end), from a view too.
    let raw: Vec<i32> = (0..7 * 6).map(|_| rng.int(-5, 4) as i32).collect();
    let iv = dev()
        .from_slice(&raw, [7, 6])
        .unwrap()
        .slice([Slice::from(..), Slice::from(1..).step(2)])
        .unwrap();
    let got = xt.take_along_axis(&iv, 1).unwrap();
    assert_eq!(got.shape(), &[7, 3]);
    let got = got.to_vec().unwrap();
    for i in 0..7 {
        for j in 0..3 {
            let k = raw[i * 6 + 1 + 2 * j];
            let col = if k < 0 { k + 5 } else { k } as usize;
            // xt[i][col] = x[col][i].
            assert_eq!(got[i * 3 + j], vals[col * 7 + i], "[{i}, {j}] index {k}");
        }
    }
    // Along axis 0, with the indices broadcast over axis 1 ([2, 1] against [7, 5]).
    let i0 = dev().from_slice(&[6i32, -7], [2, 1]).unwrap();
    let got = xt.take_along_axis(&i0, 0).unwrap().to_vec().unwrap();
    let want: Vec<f32> = [6, 0]
        .iter()
        .flat_map(|&r| (0..5).map(move |c| (r, c)))
        .map(|(r, c)| vals[c * 7 + r])
        .collect();
    assert_eq!(got, want);
    let zero = dev().from_slice::<i32>(&[], [7, 0]).unwrap();
    assert_eq!(xt.take_along_axis(&zero, 1).unwrap().shape(), &[7, 0]);
    // Bad arguments: out of range, other dimensions, shapes that do not broadcast.
    let far = dev().from_slice(&[5i32], [1, 1]).unwrap();
    assert!(matches!(
        xt.take_along_axis(&far, 1),
        Err(Error::IndexOutOfRange { .. })
    ));
    let flat = dev().from_slice(&[0i32], [1]).unwrap();
    assert!(matches!(
        xt.take_along_axis(&flat, 1),
        Err(Error::InvalidArgument { .. })
    ));
    let wide = dev().from_slice(&[0i32; 3], [3, 1]).unwrap();
    assert!(matches!(
        xt.take_along_axis(&wide, 1),
        Err(Error::ShapeMismatch { .. })
    ));
    assert!(matches!(
        xt.take_along_axis(&far, 2),
        Err(Error::AxisOutOfRange { .. })
    ));
    let kept = xt.copy().unwrap().to_vec().unwrap();
    assert_eq!(
        kept,
        (0..35)
            .map(|k| vals[(k % 5) * 7 + k / 5])
            .collect::<Vec<_>>()
    );
}

#[test]
fn put_along_axis_into_views() {
    let (x, vals, base) = grid(4, 6, 203);
    let before = base.to_vec().unwrap();
    // One index per row of the [4, 6] view, from a strided i32 view; values broadcast.
    let idx = dev()
        .from_slice(&[9i32, 5, 9, -1, 9, 0, 9, 2], [8, 1])
        .unwrap()
        .slice([Slice::from(1..).step(2)])
        .unwrap();
    let v = dev()
        .from_slice(&[100.0f32, 200.0, 300.0, 400.0], [4, 1])
        .unwrap();
    x.put_along_axis(&idx, &v, 1).unwrap();
    // The model: the view's element (r, c) is base (1 + r, 2 c).
    let mut want = before.clone();
    for (r, c) in [(0usize, 5usize), (1, 5), (2, 0), (3, 2)] {
        want[(1 + r) * 12 + 2 * c] = 100.0 * (r + 1) as f32;
    }
    assert_eq!(base.to_vec().unwrap(), want);
    assert_eq!(
        x.to_vec().unwrap().len(),
        vals.len(),
        "the view keeps its shape"
    );
    // Into the transposed view (axis 0 of [6, 4] is axis 1 of x).
    let xt = x.t();
    let i0 = dev().from_slice(&[3i32, 1, 0, 2], [1, 4]).unwrap();
    xt.put_along_axis(&i0, &dev().from_slice(&[-1.0f32], [1]).unwrap(), 0)
        .unwrap();
    for (c, r) in [(3usize, 0usize), (1, 1), (0, 2), (2, 3)] {
        want[(1 + r) * 12 + 2 * c] = -1.0;
    }
    assert_eq!(base.to_vec().unwrap(), want);
    // Bad arguments write nothing.
    let far = dev().from_slice(&[6i32, 0, 0, 0], [4, 1]).unwrap();
    assert!(matches!(
        x.put_along_axis(&far, &v, 1),
        Err(Error::IndexOutOfRange { .. })
    ));
    let flat = dev().from_slice(&[0i32], [1]).unwrap();
    assert!(matches!(
        x.put_along_axis(&flat, &v, 1),
        Err(Error::InvalidArgument { .. })
    ));
    let three = dev().from_slice(&[1.0f32; 3], [3]).unwrap();
    assert!(x.put_along_axis(&idx, &three, 1).is_err());
    assert_eq!(base.to_vec().unwrap(), want);
}
