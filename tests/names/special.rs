//! `i0` against an f64 summation of its power series (all terms positive, so accurate to a
//! few ulps of f64 at every x), on a strided view with an offset, both signs, both series
//! of the kernel, special values and overflow, for f32, f64 and f16.

use crate::common::{assert_close, cast_in, dev, host, if_supported};
use gpuarray::{Float, Slice};

/// I0(x) by summing (x²/4)^k / (k!)² until the terms no longer count.
fn i0_ref(x: f64) -> f64 {
    if x.is_nan() || x.is_infinite() {
        return x.abs();
    }
    let y = x * x / 4.0;
    let (mut s, mut t, mut k) = (0.0, 1.0, 0.0);
    while t > 1e-20 * s || k < 1.0 {
        s += t;
        k += 1.0;
        t = t * y / (k * k);
    }
    s
}

/// 301 points over [-range, range], special values and an overflowing `over`, as the
/// every-other elements (offset 1) of a larger array; `rtol` the stated accuracy.
fn check<T: Float>(range: f64, over: f64, rtol: f64) {
    let mut vals: Vec<f64> = (0..301).map(|i| range * (i as f64 / 150.0 - 1.0)).collect();
    vals.extend([
        f64::NAN,
        f64::INFINITY,
        f64::NEG_INFINITY,
        -0.0,
        1e-30,
        over,
        -over,
    ]);
    let mut spread = vec![7.0; 2 * vals.len() + 1];
    for (k, &v) in vals.iter().enumerate() {
        spread[1 + 2 * k] = v;
    }
    let (t, back) = cast_in::<T>(&spread);
    let base = dev().from_slice(&t, [spread.len()]).unwrap();
    let x = base.slice([Slice::new(1, None, 2)]).unwrap();
    let got = host(&x.i0().unwrap());
    let want: Vec<f64> = (0..vals.len())
        .map(|k| T::from_f64(i0_ref(back[1 + 2 * k])).to_f64())
        .collect();
    assert_close(&got, &want, 0.0, rtol);
    assert_eq!(got[got.len() - 1], f64::INFINITY);
    assert_eq!(dev().zeros::<T>([0]).unwrap().i0().unwrap().shape(), &[0]);
}

#[test]
fn i0_matches_its_series() {
    check::<f32>(88.0, 95.0, 2e-6);
    if_supported::<f64>(|| check::<f64>(705.0, 720.0, 1e-13));
    if_supported::<gpuarray::f16>(|| check::<gpuarray::f16>(11.0, 15.0, 3e-3));
}
