//! Adapter limits: arrays larger than one storage binding (elementwise ops bind windows of
//! them), arrays larger than the largest buffer (BufferTooLarge), and dispatches of the
//! largest sizes (the workgroup grid stays within the per-dimension limit).

#[macro_use]
mod common;

use common::*;
use gpuarray::{Array, Error, Slice};

/// Elements of `T` just past one storage binding (and a little more, not a round number).
fn past_binding(size: usize) -> usize {
    let max = dev().limits().max_storage_buffer_binding_size as usize;
    max / size + 4099
}

/// Values of `y` at a few positions (start, around every binding boundary, end).
#[track_caller]
fn probe<T: gpuarray::Real>(y: &Array<T>, f: impl Fn(usize) -> f64) {
    let n = y.len();
    let y = &y.reshape([n]).unwrap();
    let max = dev().limits().max_storage_buffer_binding_size as usize / std::mem::size_of::<T>();
    let mut at = vec![0, n - 1];
    let mut b = max;
    while b < n {
        at.extend([b - 1, b, (b + 1).min(n - 1)]);
        b += max;
    }
    for i in at {
        let got = host(&y.slice(i..i + 1).unwrap())[0];
        assert_eq!(got, f(i), "element {i} of {n}");
    }
}

#[test]
fn elementwise_beyond_one_binding() {
    let dev = dev();
    let n = past_binding(4);
    let data: Vec<i32> = (0..n as i32).collect();
    let x = dev.from_slice(&data, [n]).unwrap();
    drop(data);
    // full (the fill kernel) binds windows too.
    probe(&dev.full::<i32>([n], 7).unwrap(), |_| 7.0);
    // Contiguous (vectorised when aligned): unary, scalar and binary forms.
    let y = x.mul_scalar(3).unwrap();
    probe(&y, |i| (3 * i) as f64);
    let z = y.sub(&x).unwrap(); // 2 i
    probe(&z, |i| (2 * i) as f64);
    // An unaligned view (offset 1, odd length): the scalar contiguous entry.
    let v = x.slice(1..n - 2).unwrap().add_scalar(5).unwrap();
    probe(&v, |i| (i + 6) as f64);
    // A small view at the end of the large buffer: one window far from the start.
    let tail = x.slice(n - 5..).unwrap().neg().unwrap();
    let e: Vec<f64> = (n - 5..n).map(|i| -(i as f64)).collect();
    assert_close(&host(&tail), &e, 0.0, 0.0);
    // Broadcast (strided layouts): a row over a tall matrix, and a column.
    let cols = 1000;
    let m = x
        .slice(..n / cols * cols)
        .unwrap()
        .reshape([n / cols, cols])
        .unwrap();
    let row = dev.arange::<i32>(0, cols as i32, 1).unwrap();
    let s = m.add(&row).unwrap();
    probe(&s, |i| (i + i % cols) as f64);
    let col = dev.full::<i32>([n / cols, 1], -1).unwrap();
    let w = Array::where_(&m.gt_scalar(10).unwrap(), &m, &col).unwrap();
    probe(&w, |i| if i > 10 { i as f64 } else { -1.0 });
    // A stepped slice (strided, not contiguous) and a transpose of the big matrix.
    let st = m.slice([Slice::from(..), Slice::from(..).step(3)]).unwrap();
    let sc = st.mul_scalar(2).unwrap();
    let k = st.shape()[1];
    probe(&sc, |i| (2 * ((i / k) * cols + (i % k) * 3)) as f64);
    let rows = n / cols;
    let tr = m.t().add_scalar(1).unwrap();
    probe(&tr, |i| ((i % rows) * cols + i / rows + 1) as f64);
    // Reductions already bind windows: the sum of 0..n as f64 is exact in i32 wraparound.
    let total = x.cast::<f32>().unwrap().max().unwrap().to_scalar().unwrap();
    assert_eq!(total as f64, ((n - 1) as f32) as f64);
}

/// An array beyond the largest buffer is BufferTooLarge (nothing allocated), and the device
/// still works.
#[test]
fn beyond_the_largest_buffer() {
    let dev = dev();
    let max = dev.limits().max_buffer_size;
    let n = (max / 4 + 1) as usize;
    for r in [
        dev.zeros::<f32>([n]).map(drop),
        dev.zeros::<f32>([2, n / 2 + 1]).map(drop),
        dev.full::<u32>([1 << 16, 1 << 16], 1).map(drop),
    ] {
        assert!(
            matches!(
                r,
                Err(Error::BufferTooLarge { .. }) | Err(Error::OutOfMemory { .. })
            ),
            "{r:?}"
        );
    }
    // A broadcast view may describe more elements than any buffer: ops on it fail cleanly.
    let one = dev.ones::<f32>([1]).unwrap();
    let huge = one.broadcast_to([1 << 20, 1 << 20]).unwrap();
    let r = huge.add_scalar(1.0);
    assert!(matches!(r, Err(Error::BufferTooLarge { .. })), "{r:?}");
    let r = huge.sum();
    assert!(
        r.is_ok() || matches!(r, Err(Error::BufferTooLarge { .. })),
        "{r:?}"
    );
    assert_close(&host(&one.add_scalar(1.0).unwrap()), &[2.0], 0.0, 0.0);
}

/// The largest grids: the most work items a dispatch takes fold into at most
/// `max_compute_workgroups_per_dimension` groups per dimension (the folding is unit-tested
/// up to u32::MAX items; here a dispatch of more than 65,535 x 256 items runs).
#[test]
fn dispatches_past_one_grid_dimension() {
    let dev = dev();
    assert!(dev.limits().max_compute_workgroups_per_dimension >= 65_535);
    let n = 65_535 * 256 + 777; // more items than one grid row of 256-wide groups
    let x = dev.ones::<u32>([n]).unwrap();
    // Unaligned views take one element per invocation: n / 1 items.
    let y = x.slice(1..).unwrap().add_scalar(1).unwrap();
    probe(&y, |_| 2.0);
    let s = y.sum().unwrap().to_scalar().unwrap();
    assert_eq!(s as usize, 2 * (n - 1));
}
