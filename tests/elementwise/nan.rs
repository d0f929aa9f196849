//! NaN semantics of comparisons and remainders.

use super::*;

// ---------------------------------------------------------------------------------------
// Casts: saturation and NaN, as Rust's `as`
// ---------------------------------------------------------------------------------------

/// Floats below the integer range saturate to its minimum, as Rust's `as`.
#[test]
fn cast_float_to_int_saturates_below() {
    let dev = dev();
    let v = [
        -3e9f32,
        -1e10,
        -2147483648.0,
        f32::NEG_INFINITY,
        2147483520.0,
        -3.5,
        -0.25,
    ];
    let x = dev.from_slice(&v, [v.len()]).unwrap();
    let ei: Vec<f64> = v.iter().map(|&f| f as i32 as f64).collect();
    let eu: Vec<f64> = v.iter().map(|&f| f as u32 as f64).collect();
    assert_close(&host(&x.cast::<i32>().unwrap()), &ei, 0.0, 0.0);
    assert_close(&host(&x.cast::<u32>().unwrap()), &eu, 0.0, 0.0);
}

/// Floats above the integer range saturate to i32::MAX / u32::MAX as Rust's `as` (WGSL's
/// own conversion clamps to the largest float below: 2147483520 / 4294967040).
#[test]
fn cast_float_to_int_saturates_above() {
    let dev = dev();
    let x = dev.from_slice(&[3e9f32, 5e9, f32::INFINITY], [3]).unwrap();
    let (imax, umax) = (i32::MAX as f64, u32::MAX as f64);
    assert_close(
        &host(&x.cast::<i32>().unwrap()),
        &[imax, imax, imax],
        0.0,
        0.0,
    );
    assert_close(
        &host(&x.cast::<u32>().unwrap()),
        &[3e9, umax, umax],
        0.0,
        0.0,
    );
}

/// NaN converts to 0, as Rust's `as` (a plain conversion gives i32::MIN on lavapipe).
#[test]
fn cast_nan_to_int_is_zero() {
    let dev = dev();
    let x = dev.from_slice(&[f32::NAN, 1.0], [2]).unwrap();
    assert_close(&host(&x.cast::<u32>().unwrap()), &[0.0, 1.0], 0.0, 0.0);
    assert_close(&host(&x.cast::<i32>().unwrap()), &[0.0, 1.0], 0.0, 0.0);
}

#[test]
fn cast_int_to_f16_overflows_to_inf() {
    let dev = dev();
    require_dtype!(f16);
    let i = dev
        .from_slice(&[100_000i32, -100_000, 65504, 7], [4])
        .unwrap();
    let inf = f64::INFINITY;
    assert_close(
        &host(&i.cast::<f16>().unwrap()),
        &[inf, -inf, 65504.0, 7.0],
        0.0,
        0.0,
    );
    let u = dev.from_slice(&[4_000_000_000u32, 70_000, 3], [3]).unwrap();
    assert_close(&host(&u.cast::<f16>().unwrap()), &[inf, inf, 3.0], 0.0, 0.0);
}

#[test]
fn cast_int_to_int_wraps() {
    let dev = dev();
    let i = dev.from_slice(&[-1i32, i32::MIN, 5], [3]).unwrap();
    assert_eq!(
        i.cast::<u32>().unwrap().to_vec().unwrap(),
        vec![u32::MAX, 1 << 31, 5]
    );
    let u = dev.from_slice(&[u32::MAX, 1 << 31, 5], [3]).unwrap();
    assert_eq!(
        u.cast::<i32>().unwrap().to_vec().unwrap(),
        vec![-1, i32::MIN, 5]
    );
}

// ---------------------------------------------------------------------------------------
// NaN semantics. naga lowers WGSL's float `!=` to SPIR-V's ordered FOrdNotEqual, so
// `a != a` is false for NaN on Vulkan: these once failed.
// ---------------------------------------------------------------------------------------

/// maximum/minimum propagate NaN (documented "NaN if either is NaN").
#[test]
fn maximum_minimum_propagate_nan() {
    let dev = dev();
    let nan = f32::NAN;
    let a = dev.from_slice(&[nan, 1.0, nan, 2.0], [4]).unwrap();
    let b = dev.from_slice(&[1.0, nan, nan, 3.0], [4]).unwrap();
    let n = f64::NAN;
    assert_close(&host(&a.maximum(&b).unwrap()), &[n, n, n, 3.0], 0.0, 0.0);
    assert_close(&host(&a.minimum(&b).unwrap()), &[n, n, n, 2.0], 0.0, 0.0);
    assert_close(
        &host(&a.maximum_scalar(0.0).unwrap()),
        &[n, 1.0, n, 2.0],
        0.0,
        0.0,
    );
}

/// clip keeps NaN (documented "NaN stays NaN").
#[test]
fn clip_keeps_nan() {
    let dev = dev();
    let a = dev.from_slice(&[f32::NAN, -5.0, 0.5, 5.0], [4]).unwrap();
    let expected = [f64::NAN, -2.0, 0.5, 3.0];
    assert_close(&host(&a.clip(-2.0, 3.0).unwrap()), &expected, 0.0, 0.0);
}

/// `ne` is 1 where an operand is NaN, as IEEE (Rust's `!=`, NumPy).
#[test]
fn ne_is_true_for_nan() {
    let dev = dev();
    let a = dev
        .from_slice(&[f32::NAN, 1.0, f32::NAN, 1.0], [4])
        .unwrap();
    let b = dev
        .from_slice(&[f32::NAN, f32::NAN, 1.0, 1.0], [4])
        .unwrap();
    assert_close(&host(&a.ne(&b).unwrap()), &[1.0, 1.0, 1.0, 0.0], 0.0, 0.0);
    assert_close(&host(&a.ne_scalar(f32::NAN).unwrap()), &[1.0; 4], 0.0, 0.0);
}

/// f16 `rem` where x / y rounds to an integer in f16: WGSL's x - y * trunc(x / y) evaluated
/// in f16 gives 0 there; Rust's `%` gives about |y| (here -7.8164 % 0.2522 = -0.2505).
#[test]
fn rem_f16_quotient_near_an_integer() {
    let dev = dev();
    require_dtype!(f16);
    let x = [-7.8164063f32, 2.1074219, -5.84375];
    let y = [0.25219727f32, -0.105407715, -0.9741211];
    let (a, ha) = upload::<f16>(dev, &to_f64(&x), &[3]);
    let (b, hb) = upload::<f16>(dev, &to_f64(&y), &[3]);
    let expected: Vec<f64> = ha.iter().zip(&hb).map(|(x, y)| f16::wrap(x % y)).collect();
    assert_close(&host(&a.rem(&b).unwrap()), &expected, 0.0, 1e-3);
}

/// Float `rem` at exact multiples (x = k * y gives 0, where an approximate x / y just below
/// k would give about |y|) and with an infinite divisor (x % inf = x, as Rust's `%`), for
/// every float type. y = m / 16 and |k| <= 20, so that k * y is exact even in f16.
macro_rules! rem_edges {
    ($($name:ident: $t:ty),*) => {$(
        #[test]
        fn $name() {
            let dev = dev();
            require_dtype!($t);
            let mut rng = Rng::new(seed(stringify!($name)));
            let y: Vec<f64> = (0..257).map(|_| rng.int(1, 48) / 16.0).collect();
            let x: Vec<f64> = y.iter().map(|&y| y * rng.int(-20, 20)).collect();
            let (a, ha) = upload::<$t>(dev, &x, &[257]);
            let (b, hb) = upload::<$t>(dev, &y, &[257]);
            let expected: Vec<f64> = ha.iter().zip(&hb).map(|(x, y)| x % y).collect();
            assert!(expected.iter().all(|&r| r == 0.0));
            assert_close(&host(&a.rem(&b).unwrap()), &expected, 0.0, 0.0);

            let inf = [f64::INFINITY, f64::NEG_INFINITY, f64::INFINITY];
            let (a, _) = upload::<$t>(dev, &[5.5, -2.25, 1.0], &[3]);
            let (b, _) = upload::<$t>(dev, &inf, &[3]);
            assert_close(&host(&a.rem(&b).unwrap()), &[5.5, -2.25, 1.0], 0.0, 0.0);
        }
    )*};
}
rem_edges!(rem_edges_f16: f16, rem_edges_f32: f32, rem_edges_f64: f64);
