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

/// The median of the non-NaN values of `g` (NaN where there are none).
fn nanmedian_ref(g: &[f64]) -> f64 {
    let mut v: Vec<f64> = g.iter().cloned().filter(|x| !x.is_nan()).collect();
    v.sort_by(|a, b| a.partial_cmp(b).unwrap());
    match v.len() {
        0 => f64::NAN,
        n if n % 2 == 1 => v[n / 2],
        n => (v[n / 2 - 1] + v[n / 2]) / 2.0,
    }
}

/// `nanmedian` whole and along each axis of a [7, 10] strided view (every other column of
/// a [7, 20] array, offset 1) with NaNs, a row of only NaN and infinities; rtol one ulp of
/// `T` (the mean of two middle values rounds once).
fn nanmedian_case<T: Float>(rtol: f64) {
    let (r, c) = (7, 10);
    let mut rng = crate::common::Rng::new(12);
    let mut vals = rng.ints(r * 2 * c, -50, 50);
    for (k, v) in vals.iter_mut().enumerate() {
        if k % 7 == 3 || (k / (2 * c) == 2) {
            *v = f64::NAN;
        }
    }
    vals[5] = f64::INFINITY;
    let (t, back) = cast_in::<T>(&vals);
    let base = dev().from_slice(&t, [r, 2 * c]).unwrap();
    let x = base
        .slice([Slice::from(..), Slice::new(1, None, 2)])
        .unwrap();
    let at = |i: usize, j: usize| back[i * 2 * c + 1 + 2 * j];
    let all: Vec<f64> = (0..r * c).map(|k| at(k / c, k % c)).collect();
    let cast = |v: f64| T::from_f64(v).to_f64();
    let got = host(&x.nanmedian::<T>(None, false).unwrap());
    assert_close(&got, &[cast(nanmedian_ref(&all))], 0.0, rtol);
    for (axis, a) in [(Some(0), 0), (Some(1), 1), (Some(-1), 1)] {
        let got = host(&x.nanmedian::<T>(axis, false).unwrap());
        let want: Vec<f64> = if a == 0 {
            (0..c)
                .map(|j| cast(nanmedian_ref(&(0..r).map(|i| at(i, j)).collect::<Vec<_>>())))
                .collect()
        } else {
            (0..r)
                .map(|i| cast(nanmedian_ref(&(0..c).map(|j| at(i, j)).collect::<Vec<_>>())))
                .collect()
        };
        assert_close(&got, &want, 0.0, rtol);
        if a == 1 {
            assert!(got[2].is_nan(), "the row of only NaN");
        }
    }
    let e = dev().zeros::<T>([3, 0]).unwrap();
    assert!(e.nanmedian::<T>(1, false).is_err());
    assert!(x.nanmedian::<T>(2, false).is_err());
}

#[test]
fn nanmedian_matches_numpy() {
    nanmedian_case::<f32>(f32::EPSILON as f64);
    if_supported::<f64>(|| nanmedian_case::<f64>(f64::EPSILON));
    if_supported::<gpuarray::f16>(|| nanmedian_case::<gpuarray::f16>(1e-3));
}
