//! Issue 18's audit, zero sizes where the tests had none: the `*_into` forms and compound
//! assignment (with their bad outputs and a strided output checked against the values it
//! must hold), index_axis and divmod; the arrays intact on error.

use crate::common::dev;
use gpuarray::{Error, Slice};

#[test]
fn into_forms_over_zero_sizes_and_bad_outputs() {
    let x = dev().zeros::<f32>([0, 3]).unwrap();
    let y = dev().from_slice(&[1.0f32, 2.0, 3.0], [3]).unwrap();
    let out = dev().zeros::<f32>([0, 3]).unwrap();
    x.add_into(&y, &out).unwrap();
    x.mul_scalar_into(2.0, &out).unwrap();
    assert_eq!(out.shape(), &[0, 3]);
    let mut z = dev().zeros::<i32>([4, 0]).unwrap();
    z += &dev().zeros::<i32>([0]).unwrap();
    assert_eq!((z.shape(), z.len()), (&[4, 0][..], 0));
    // Bad outputs: another shape, a broadcast view; `out` untouched.
    let full = dev().from_slice(&[9.0f32; 6], [2, 3]).unwrap();
    let two = dev().from_slice(&[1.0f32; 6], [2, 3]).unwrap();
    let wrong = dev().from_slice(&[7.0f32; 3], [3]).unwrap();
    assert!(matches!(
        two.add_into(&y, &wrong),
        Err(Error::ShapeMismatch { .. })
    ));
    assert!(matches!(
        x.add_into(&y, &wrong),
        Err(Error::ShapeMismatch { .. })
    ));
    let row = dev().from_slice(&[5.0f32; 3], [3]).unwrap();
    let broadcast = row.broadcast_to([2, 3]).unwrap();
    assert!(matches!(
        two.add_into(&y, &broadcast),
        Err(Error::InvalidArgument { .. })
    ));
    assert_eq!(wrong.to_vec().unwrap(), vec![7.0; 3]);
    assert_eq!(row.to_vec().unwrap(), vec![5.0; 3]);
    // A strided view as `out`: the values land through its strides, the rest untouched.
    let col = full
        .slice([Slice::from(..), Slice::from(..).step(2)])
        .unwrap();
    two.slice([Slice::from(..), Slice::from(1..)])
        .unwrap()
        .add_into(&y.slice(Slice::from(..2)).unwrap(), &col)
        .unwrap();
    assert_eq!(full.to_vec().unwrap(), vec![2.0, 9.0, 3.0, 2.0, 9.0, 3.0]);
}

#[test]
fn index_axis_and_divmod_over_zero_sizes() {
    let x = dev().zeros::<f32>([0, 3]).unwrap();
    assert_eq!(x.index_axis(1, -1).unwrap().shape(), &[0]);
    assert!(matches!(
        x.index_axis(0, 0),
        Err(Error::IndexOutOfRange { .. })
    ));
    assert!(matches!(
        x.index_axis(2, 0),
        Err(Error::AxisOutOfRange { .. })
    ));
    // A view with an empty axis from slicing: rows 2.. of 2.
    let v = dev()
        .from_slice(&[1i32, 2, 3, 4], [2, 2])
        .unwrap()
        .slice([Slice::from(2..)])
        .unwrap();
    assert_eq!(v.index_axis(-1, 1).unwrap().shape(), &[0]);
    let (q, r) = v.divmod(&dev().from_slice(&[3i32], [1]).unwrap()).unwrap();
    assert_eq!((q.shape(), r.shape()), (&[0, 2][..], &[0, 2][..]));
    let f = dev().zeros::<f32>([2, 0]).unwrap();
    let (q, r) = f.divmod(&f).unwrap();
    assert_eq!((q.len(), r.len()), (0, 0));
    let bad = dev().zeros::<f32>([3]).unwrap();
    assert!(matches!(f.divmod(&bad), Err(Error::ShapeMismatch { .. })));
}
