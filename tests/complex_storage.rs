//! complex64 / complex128 as storage: transfers and views round-trip the interleaved
//! values; the families not taught them (the scans, ...) refuse them (tests/complex has
//! the families that take them).

mod common;

use common::dev;
use gpuarray::{Complex, DType, Error};

#[test]
fn complex64_round_trips_through_the_device() {
    let d = dev();
    let v: Vec<Complex<f32>> = (0..7)
        .map(|i| Complex::new(i as f32, -(i as f32) * 0.5))
        .collect();
    let a = d.from_slice(&v, [7]).unwrap();
    assert_eq!(a.dtype(), DType::Complex64);
    assert_eq!(a.to_vec().unwrap(), v);
    let m = d.from_slice(&v[..6], [2, 3]).unwrap();
    // A contiguous view (a row) reads its interleaved pairs whole.
    let row = m.slice_axis(0, 1..2).unwrap().to_vec().unwrap();
    assert_eq!(row, v[3..6].to_vec());
}

#[test]
fn complex128_round_trips_where_f64_is_supported() {
    let d = dev();
    require_dtype!(Complex<f64>);
    let v = vec![
        Complex::new(1.5f64, f64::MIN_POSITIVE),
        Complex::new(-0.0, f64::NAN),
    ];
    let got = d.from_slice(&v, [2]).unwrap().to_vec().unwrap();
    assert_eq!(got[0], v[0]);
    assert!(got[1].re == 0.0 && got[1].re.is_sign_negative() && got[1].im.is_nan());
}

#[test]
fn running_sums_refuse_complex() {
    let d = dev();
    let a = d.from_slice(&[Complex::new(1.0f32, 2.0)], [1]).unwrap();
    match a.cumsum(0) {
        Err(Error::Unsupported { dtype, .. }) => assert_eq!(dtype, DType::Complex64),
        other => panic!("expected Unsupported, got {other:?}"),
    }
    assert_eq!(a.to_vec().unwrap(), vec![Complex::new(1.0f32, 2.0)]);
}
