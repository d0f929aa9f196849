//! Printing against the strings NumPy prints. The expected strings are NumPy 2's
//! `str(np.array(...))` (made with `print(np.array(...))` for each case below, default
//! print options unless stated).

mod common;

use common::dev;
use gpuarray::{f16, PrintOptions};

#[track_caller]
fn s<T: gpuarray::Element>(v: &[T], shape: &[usize]) -> String {
    dev().from_slice(v, shape.to_vec()).unwrap().to_string()
}

#[test]
fn floats_as_numpy() {
    // Printing is host-side; the values include f64 arrays (not on GL).
    require_dtype!(f64);
    assert_eq!(s(&[1.0f32, 2.0, 3.0, 4.0], &[2, 2]), "[[1. 2.]\n [3. 4.]]");
    assert_eq!(
        s(&[1.0f64, 2.5, -3.0, f64::NAN], &[2, 2]),
        "[[ 1.   2.5]\n [-3.   nan]]"
    );
    assert_eq!(s(&[0.1f32, 0.2], &[2]), "[0.1 0.2]");
    assert_eq!(s(&[1.0f64 / 3.0], &[1]), "[0.33333333]");
    assert_eq!(s(&[-0.0f64, 0.0], &[2]), "[-0.  0.]");
    assert_eq!(
        s(&[f32::INFINITY, f32::NEG_INFINITY, f32::NAN], &[3]),
        "[ inf -inf  nan]"
    );
    assert_eq!(s(&[1.5f64, f64::INFINITY], &[2]), "[1.5 inf]");
    // Scientific past 1e8, below 1e-4, or a ratio over 1000.
    assert_eq!(s(&[1e-5f64, 1.0], &[2]), "[1.e-05 1.e+00]");
    assert_eq!(s(&[1e-5f64, 1.5], &[2]), "[1.0e-05 1.5e+00]");
    assert_eq!(s(&[1e10f32], &[1]), "[1.e+10]");
    assert_eq!(s(&[-1.25e100f64, 3.0], &[2]), "[-1.25e+100  3.00e+000]");
    // f16 values with their own shortest digits.
    let h = |x: f64| f16::from_f64(x);
    assert_eq!(s(&[h(0.1), h(0.2)], &[2]), "[0.1 0.2]");
    assert_eq!(s(&[h(1.0 / 3.0)], &[1]), "[0.3333]");
    assert_eq!(s(&[h(65504.0), h(-2.0)], &[2]), "[ 6.55e+04 -2.00e+00]");
    assert_eq!(s(&[h(2048.0), h(-2.5)], &[2]), "[2048.    -2.5]");
}

#[test]
fn ints_shapes_and_scalars() {
    // Printing is host-side; the values include f64 arrays (not on GL).
    require_dtype!(f64);
    assert_eq!(s(&[1i32, -2, 10], &[3]), "[ 1 -2 10]");
    assert_eq!(s(&[0u32, u32::MAX], &[2]), "[         0 4294967295]");
    assert_eq!(s(&[i32::MIN], &[1]), "[-2147483648]");
    // Booleans as NumPy's, right-aligned to the width of False; i64 past 2^53 exactly.
    assert_eq!(s(&[true, false, true], &[3]), "[ True False  True]");
    assert_eq!(s(&[false], &[]), "False");
    common::if_supported::<i64>(|| {
        assert_eq!(
            s(&[i64::MIN, 1], &[2]),
            "[-9223372036854775808                    1]"
        );
    });
    let x: Vec<i32> = (0..8).collect();
    assert_eq!(s(&x, &[2, 2, 2]), "[[[0 1]\n  [2 3]]\n\n [[4 5]\n  [6 7]]]");
    assert_eq!(s::<f32>(&[], &[0]), "[]");
    assert_eq!(s::<i32>(&[], &[2, 0]), "[]");
    // 0-d arrays print as the scalar.
    assert_eq!(s(&[1.5f64], &[]), "1.5");
    assert_eq!(s(&[2.0f32], &[]), "2.0");
    assert_eq!(s(&[1e20f64], &[]), "1e+20");
    assert_eq!(s(&[1.5e-5f64], &[]), "1.5e-05");
    assert_eq!(s(&[f32::NEG_INFINITY], &[]), "-inf");
    assert_eq!(s(&[-7i32], &[]), "-7");
}

#[test]
fn wrapping_and_summaries() {
    // Printing is host-side; the values include f64 arrays (not on GL).
    require_dtype!(f64);
    let x: Vec<f64> = (0..30).map(f64::from).collect();
    assert_eq!(
        s(&x, &[30]),
        "[ 0.  1.  2.  3.  4.  5.  6.  7.  8.  9. 10. 11. 12. 13. 14. 15. 16. 17.\n \
         18. 19. 20. 21. 22. 23. 24. 25. 26. 27. 28. 29.]"
    );
    let x: Vec<i32> = (0..2000).collect();
    assert_eq!(s(&x, &[2000]), "[   0    1    2 ... 1997 1998 1999]");
    assert_eq!(
        s(&x, &[40, 50]),
        "[[   0    1    2 ...   47   48   49]\n [  50   51   52 ...   97   98   99]\n \
         [ 100  101  102 ...  147  148  149]\n ...\n [1850 1851 1852 ... 1897 1898 1899]\n \
         [1900 1901 1902 ... 1947 1948 1949]\n [1950 1951 1952 ... 1997 1998 1999]]"
    );
    // A strided view is summarised from its own elements; the edges set the width.
    let a = dev().from_slice(&x, [2000]).unwrap();
    let v = a.slice(gpuarray::Slice::from(1..).step(2)).unwrap();
    let opts = PrintOptions {
        threshold: 10,
        edgeitems: 2,
        ..Default::default()
    };
    assert_eq!(
        v.display_with(opts).to_string(),
        "[   1    3 ... 1997 1999]"
    );
}

#[test]
fn precision_and_debug() {
    // Printing is host-side; the values include f64 arrays (not on GL).
    require_dtype!(f64);
    let x = dev().from_slice(&[1.0f64 / 3.0, 2.0], [2]).unwrap();
    assert_eq!(format!("{x:.3}"), "[0.333 2.   ]");
    let opts = PrintOptions {
        precision: 2,
        ..Default::default()
    };
    assert_eq!(x.display_with(opts).to_string(), "[0.33 2.  ]");
    assert_eq!(
        format!("{:.1}", dev().from_slice(&[0.25f64, 0.35], [2]).unwrap()),
        "[0.2 0.3]"
    );
    let d = format!("{:?}", x.reshape([1, 2]).unwrap());
    assert_eq!(
        d,
        "Array { dtype: F64, shape: [1, 2], strides: [2, 1], offset: 0, \
         values: [[0.33333333 2.        ]] }"
    );
}
