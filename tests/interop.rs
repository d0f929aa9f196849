//! Conversions: raw bytes in and out (`Device::from_bytes`, `Array::to_bytes`) and, with the
//! `ndarray` feature (which `make test` enables), ndarray arrays and views of every layout.

mod common;

use common::{dev, if_supported, Rng};
use gpuarray::{f16, Error, Real};

/// Bytes round trip bit for bit for every dtype, special values included, from unaligned
/// input, and `to_bytes` of a strided view gives its elements in row-major order.
fn bytes_roundtrip<T: Real + bytemuck::Pod>(values: &[T]) {
    let d = dev();
    let bytes: Vec<u8> = bytemuck::cast_slice(values).to_vec();
    // One leading byte makes the slice misaligned for every element type wider than 1.
    let mut shifted = vec![0xAAu8];
    shifted.extend_from_slice(&bytes);
    let x = d.from_bytes::<T>(&shifted[1..], [values.len()]).unwrap();
    assert_eq!(x.to_bytes().unwrap(), bytes, "{:?}", T::DTYPE);
    // A 2-column view read back as bytes: the transpose's row-major order.
    let m = values.len() / 2 * 2;
    if m >= 2 {
        let a = d
            .from_bytes::<T>(&bytes[..m * std::mem::size_of::<T>()], [m / 2, 2])
            .unwrap();
        let got = a.t().to_bytes().unwrap();
        let want: Vec<T> = (0..2)
            .flat_map(|c| (0..m / 2).map(move |r| values[r * 2 + c]))
            .collect();
        assert_eq!(
            got,
            bytemuck::cast_slice::<T, u8>(&want),
            "{:?} view",
            T::DTYPE
        );
    }
}

#[test]
fn bytes_every_dtype_bit_exact() {
    let mut rng = Rng::new(7);
    let f: Vec<f64> = rng.vec(37, -1e3, 1e3);
    let mut f32s: Vec<f32> = f.iter().map(|&v| v as f32).collect();
    f32s.extend([
        f32::NAN,
        -0.0,
        f32::INFINITY,
        f32::NEG_INFINITY,
        1e-40,
        f32::MIN_POSITIVE,
    ]);
    f32s.push(f32::from_bits(0x7FC0_1234)); // a NaN with a payload
    bytes_roundtrip(&f32s);
    bytes_roundtrip(&[i32::MIN, -1, 0, 1, i32::MAX]);
    bytes_roundtrip(&[0u32, 1, u32::MAX, 0x8000_0000, 12345]);
    if_supported::<f64>(|| {
        let mut v: Vec<f64> = f.clone();
        v.extend([f64::NAN, -0.0, 5e-324, f64::MAX, f64::NEG_INFINITY]);
        bytes_roundtrip(&v);
    });
    if_supported::<f16>(|| {
        // Odd counts of f16 end in half a 4-byte word.
        let v: Vec<f16> = [0.5, -0.0, 65504.0, 6e-8, f64::NAN, 3.25, -7.0]
            .iter()
            .map(|&x| f16::from_f64(x))
            .collect();
        bytes_roundtrip(&v);
    });
}

#[test]
fn bytes_empty_and_bad_lengths() {
    let d = dev();
    let e = d.from_bytes::<f32>(&[], [0, 5]).unwrap();
    assert_eq!(e.shape(), &[0, 5]);
    assert!(e.to_bytes().unwrap().is_empty());
    let bytes = [0u8; 13];
    for (len, n) in [(2usize, 12usize), (4, 12), (3, 11), (3, 13)] {
        match d.from_bytes::<f32>(&bytes[..n], [len]) {
            Err(Error::SizeMismatch {
                expected, actual, ..
            }) => {
                assert_eq!((expected, actual), (len * 4, n));
            }
            other => panic!("{len} elements from {n} bytes: {other:?}"),
        }
    }
    assert_eq!(d.from_bytes::<f32>(&bytes[..12], [3]).unwrap().len(), 3);
    // The device still works after the refusals.
    assert_eq!(
        d.from_bytes::<u32>(&[1, 0, 0, 0], [1])
            .unwrap()
            .to_vec()
            .unwrap(),
        [1]
    );
}

#[cfg(feature = "ndarray")]
mod nd {
    use super::*;
    use ndarray::{s, Array2, Array3, ArrayD, IxDyn, ShapeBuilder};

    fn check<T: Real + std::fmt::Debug>(a: ndarray::ArrayViewD<'_, T>, what: &str) {
        let x = dev().from_ndarray(&a).unwrap();
        assert_eq!(x.shape(), a.shape(), "{what}");
        let want: Vec<T> = a.iter().copied().collect();
        let got = x.to_vec().unwrap();
        let same = got.len() == want.len()
            && got
                .iter()
                .zip(&want)
                .all(|(g, w)| g == w || (g.to_f64().is_nan() && w.to_f64().is_nan()));
        assert!(same, "{what}: {got:?} vs {want:?}");
        assert_eq!(x.to_ndarray().unwrap().shape(), a.shape(), "{what}");
    }

    /// Every layout ndarray can hand over: row-major, column-major, transposed and permuted
    /// (uploaded as one block, a strided view on the device), sliced with steps, reversed,
    /// broadcast (gathered on the host), empty and 0-d.
    fn layouts<T: Real + std::fmt::Debug>(vals: &[T]) {
        let n = vals.len();
        assert_eq!(n, 2 * 3 * 5);
        let a3 = Array3::from_shape_vec((2, 3, 5), vals.to_vec()).unwrap();
        check(a3.view().into_dyn(), "row-major");
        check(a3.view().permuted_axes([2, 0, 1]).into_dyn(), "permuted");
        let f = Array2::from_shape_vec((5, 6).f(), vals.to_vec()).unwrap();
        check(f.view().into_dyn(), "column-major");
        check(a3.slice(s![.., 1.., ..;2]).into_dyn(), "stepped slice");
        check(a3.slice(s![..;-1, .., 1..4]).into_dyn(), "reversed");
        check(
            a3.slice(s![0, 0, ..]).broadcast((4, 5)).unwrap().into_dyn(),
            "broadcast",
        );
        check(a3.slice(s![.., 0..0, ..]).into_dyn(), "empty");
        check(a3.slice(s![1, 2, 3]).into_dyn(), "0-d");
    }

    #[test]
    fn from_ndarray_every_layout_and_dtype() {
        let mut rng = Rng::new(11);
        let v = rng.vec(30, -100.0, 100.0);
        let mut f: Vec<f32> = v.iter().map(|&x| x as f32).collect();
        f[3] = f32::NAN;
        f[4] = -0.0;
        layouts(&f);
        layouts(&v.iter().map(|&x| x as i32).collect::<Vec<_>>());
        layouts(&(0..30).map(|i| u32::MAX - i).collect::<Vec<u32>>());
        if_supported::<f64>(|| layouts(&v));
        if_supported::<f16>(|| layouts(&v.iter().map(|&x| f16::from_f64(x)).collect::<Vec<_>>()));
    }

    /// A column-major upload is a strided device view; device ops on it see the right
    /// elements, and `to_ndarray` of device views (transposed, sliced) is row-major.
    #[test]
    fn device_views_to_ndarray() {
        let d = dev();
        let f = Array2::from_shape_fn((4, 3).f(), |(i, j)| (10 * i + j) as f32);
        let x = d.from_ndarray(&f).unwrap();
        assert_eq!(x.strides(), &[1, 4]);
        let y = x.add_scalar(1.0).unwrap().to_ndarray().unwrap();
        assert_eq!(y, (&f + 1.0).into_dyn());
        let g = d
            .arange::<i32>(0, 24, 1)
            .unwrap()
            .reshape([2, 3, 4])
            .unwrap();
        let host = ArrayD::from_shape_vec(IxDyn(&[2, 3, 4]), (0..24).collect()).unwrap();
        assert_eq!(g.to_ndarray().unwrap(), host);
        let gt = g.transpose(&[2, 0, 1]).unwrap().to_ndarray().unwrap();
        assert_eq!(gt, host.view().permuted_axes(vec![2, 0, 1]));
        let e = d.zeros::<f32>([0, 3]).unwrap().to_ndarray().unwrap();
        assert_eq!(e.shape(), &[0, 3]);
    }
}
