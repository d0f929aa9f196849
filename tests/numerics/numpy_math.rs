//! The NumPy functions of issue 18 over the sweep, against references in higher precision:
//! asinh, acosh, atanh, degrees, radians, trunc (f32 and f16 against f64 std, whose error
//! is far below an f32 ulp; f64 against astro-float), hypot over pairs, and erfc against
//! 320-bit references (the Taylor series of erf below 2, the continued fraction of erfc
//! above), in ulps of relative error into the tail.

use astro_float::BigFloat;
use gpuarray::{f16, Array, Float};

use crate::common::dev;
use crate::f64::{big, consts, exact, P, RM};
use crate::sweep::{flushes, pairs, run, run2, Check, Check2, Exact, Swept};

fn check<T: Swept + Float>(
    name: &str,
    bound: f64,
    device: &dyn Fn(&Array<T>) -> gpuarray::Result<Array<T>>,
    reference: &dyn Fn(f64) -> Exact,
) {
    run(Check {
        name,
        bound,
        skip: &|_| false,
        device,
        reference,
    });
}

macro_rules! std_sweep {
    ($( $t32:ident, $t16:ident, $name:literal, $b32:expr, $dev:expr, $refr:expr; )*) => {$(
        #[test]
        fn $t32() {
            check::<f32>($name, $b32, &$dev, &|x| Exact::from($refr(x)));
        }
        #[test]
        fn $t16() {
            require_dtype!(f16);
            check::<f16>($name, 1.0, &$dev, &|x| Exact::from($refr(x)));
        }
    )*};
}

std_sweep! {
    asinh_f32_within_4_ulps, asinh_f16_within_1_ulp, "asinh", 4.0, |a| a.asinh(), f64::asinh;
    acosh_f32_within_4_ulps, acosh_f16_within_1_ulp, "acosh", 4.0, |a| a.acosh(), f64::acosh;
    atanh_f32_within_4_ulps, atanh_f16_within_1_ulp, "atanh", 4.0, |a| a.atanh(), f64::atanh;
    // NumPy's formula, x * (180 / pi rounded to f32), errs by up to 1.5 ulps (0.5 the
    // constant's rounding, 0.5 the product's; 1.42 measured): the f32 bound is NumPy's,
    // and `degrees_and_radians_are_numpys_products` checks the bits.
    degrees_f32_within_1_5_ulps, degrees_f16_within_1_ulp, "degrees", 1.5, |a| a.degrees(), f64::to_degrees;
    radians_f32_within_1_ulp, radians_f16_within_1_ulp, "radians", 1.0, |a| a.radians(), f64::to_radians;
    trunc_f32_exact, trunc_f16_exact, "trunc", 0.0, |a| a.trunc(), f64::trunc;
}

/// hypot over random pairs of the sweep and pairs of special values (f64 reference: the
/// exact sum of squares of two f32 values fits in f64, one rounding before sqrt).
fn hypot_check<T: Swept + Float>(bound: f64) {
    let specials = [
        0.0,
        -0.0,
        1.0,
        -3.0,
        f64::INFINITY,
        f64::NEG_INFINITY,
        f64::NAN,
        1e-45,
    ];
    run2(
        Check2 {
            name: "hypot",
            bound,
            device: &|a: &Array<T>, b: &Array<T>| a.hypot(b),
            reference: &|x: f64, y: f64| Exact::from(x.hypot(y)),
        },
        &pairs::<T>(100_000, &specials, 7),
    );
}

#[test]
fn hypot_f32_within_2_ulps() {
    hypot_check::<f32>(2.0);
}

#[test]
fn hypot_f16_within_1_ulp() {
    require_dtype!(f16);
    hypot_check::<f16>(1.0);
}

/// erfc in 320 bits: 1 - the Taylor series of erf below 2 (erfc(2) = 0.0047: 8 bits
/// cancel), the continued fraction e^(-x^2) / sqrt(pi) / (x + (1/2) / (x + 1 / (x + ...)))
/// evaluated from its tail above; 2 and 0 at the ends.
pub(crate) fn erfc_reference(x: f64) -> Exact {
    if x.is_nan() {
        return f64::NAN.into();
    }
    if x <= -7.0 {
        return 2.0.into();
    }
    if x >= 27.5 {
        return 0.0.into();
    }
    let mut cc = consts();
    let sqrt_pi = cc.pi(P, RM).sqrt(P, RM);
    let b = big(x);
    if x < 2.0 {
        let z = b.mul(&b, P, RM);
        let mut term = b.clone();
        let mut sum = b.clone();
        for n in 1..=(24 + (8.0 * x * x) as usize) {
            term = term.mul(&z, P, RM).div(&big(n as f64), P, RM);
            let t = term.div(&big((2 * n + 1) as f64), P, RM);
            sum = if n % 2 == 1 {
                sum.sub(&t, P, RM)
            } else {
                sum.add(&t, P, RM)
            };
        }
        let erf = sum.mul(&big(2.0), P, RM).div(&sqrt_pi, P, RM);
        return exact(&big(1.0).sub(&erf, P, RM));
    }
    // Continued fraction: erfc(x) = e^(-x^2)/sqrt(pi) * 1/(x + (1/2)/(x + 1/(x + (3/2)/...))).
    let terms = 60 + (4000.0 / (x * x)) as usize;
    let mut tail = b.clone();
    for k in (1..=terms).rev() {
        tail = b.add(&big(k as f64 * 0.5).div(&tail, P, RM), P, RM);
    }
    let e = b.mul(&b, P, RM).neg().exp(P, RM, &mut cc);
    exact(&e.div(&sqrt_pi, P, RM).div(&tail, P, RM))
}

fn erfc_check<T: Swept + Float>(bound: f64) {
    // The dense part: [-1, 27.5] where erfc is neither 2 nor 0 to rounding.
    let mut rng = crate::common::Rng::new(43);
    let dense: Vec<T> = (0..4000)
        .map(|i| T::from_f64(-1.0 + 28.5 * (i as f64 + rng.unit()) / 4000.0))
        .collect();
    let c = || Check::<T> {
        name: "erfc",
        bound,
        skip: &|_| false,
        device: &|a: &Array<T>| a.erfc(),
        reference: &erfc_reference,
    };
    run::<T>(c());
    crate::sweep::run_on::<T>(c(), &dense);
}

/// The two methods of the reference agree where they meet (to 2^-100 relative).
#[test]
fn erfc_reference_is_consistent() {
    let mut cc = consts();
    let x = 2.0;
    let b = big(x);
    let terms = 60 + (4000.0 / (x * x)) as usize;
    let mut tail = b.clone();
    for k in (1..=terms).rev() {
        tail = b.add(&big(k as f64 * 0.5).div(&tail, P, RM), P, RM);
    }
    let sqrt_pi = cc.pi(P, RM).sqrt(P, RM);
    let e = b.mul(&b, P, RM).neg().exp(P, RM, &mut cc);
    let cf: BigFloat = e.div(&sqrt_pi, P, RM).div(&tail, P, RM);
    let series = erfc_reference(1.9999999999999998);
    let cf = exact(&cf);
    assert!(
        ((cf.hi - series.hi) / cf.hi).abs() < 1e-15,
        "{} vs {}",
        cf.hi,
        series.hi
    );
}

#[test]
fn erfc_f32_within_4_ulps() {
    erfc_check::<f32>(4.0);
}

#[test]
fn erfc_f16_within_1_ulp() {
    require_dtype!(f16);
    erfc_check::<f16>(1.0);
}

#[test]
fn erfc_f64_within_4_ulps() {
    require_dtype!(f64);
    erfc_check::<f64>(4.0);
}

/// f64 asinh, acosh, atanh against astro-float (320 bits), over every tenth input of the
/// f64 sweep (10,000 inputs, every binade still present): astro-float's inverse hyperbolic
/// functions take about 0.5 ms per input, and the whole sweep took over a minute of CI.
#[test]
fn inverse_hyperbolic_f64_within_4_ulps() {
    require_dtype!(f64);
    let asinh = |x: f64| -> Exact {
        if !x.is_finite() || x == 0.0 {
            return x.into();
        }
        let mut cc = consts();
        let b = big(x);
        exact(&b.asinh(P, RM, &mut cc))
    };
    check_every10("asinh", &|a| a.asinh(), &asinh);
    let acosh = |x: f64| -> Exact {
        if x.is_nan() || x < 1.0 {
            return f64::NAN.into();
        }
        if x.is_infinite() {
            return x.into();
        }
        exact(&big(x).acosh(P, RM, &mut consts()))
    };
    check_every10("acosh", &|a| a.acosh(), &acosh);
    let atanh = |x: f64| -> Exact {
        if x.is_nan() || x.abs() > 1.0 {
            return f64::NAN.into();
        }
        if x.abs() == 1.0 {
            return (x * f64::INFINITY).into();
        }
        if x == 0.0 {
            return x.into();
        }
        exact(&big(x).atanh(P, RM, &mut consts()))
    };
    check_every10("atanh", &|a| a.atanh(), &atanh);
}

/// [`check`] of an f64 function within 4 ulps over every tenth input of the f64 sweep.
fn check_every10(
    name: &str,
    device: &dyn Fn(&Array<f64>) -> gpuarray::Result<Array<f64>>,
    reference: &dyn Fn(f64) -> Exact,
) {
    let xs: Vec<f64> = f64::inputs().into_iter().step_by(10).collect();
    crate::sweep::run_on::<f64>(
        Check {
            name,
            bound: 4.0,
            skip: &|_| false,
            device,
            reference,
        },
        &xs,
    );
}

#[test]
fn hypot_f64_within_2_ulps() {
    require_dtype!(f64);
    let specials = [0.0, -0.0, 1.0, f64::INFINITY, f64::NAN, 5e-324, 1e308];
    run2(
        Check2 {
            name: "hypot",
            bound: 2.0,
            device: &|a: &Array<f64>, b: &Array<f64>| a.hypot(b),
            reference: &|x: f64, y: f64| {
                if x.is_infinite() || y.is_infinite() {
                    return f64::INFINITY.into();
                }
                if x.is_nan() || y.is_nan() {
                    return f64::NAN.into();
                }
                let s = big(x)
                    .mul(&big(x), P, RM)
                    .add(&big(y).mul(&big(y), P, RM), P, RM);
                exact(&s.sqrt(P, RM))
            },
        },
        &pairs::<f64>(50_000, &specials, 9),
    );
}

/// Values for the exact checks below: both signs, zeros, integers, halves, fractions below 1,
/// the extremes, subnormals, infinities and an f32 grid.
fn exact_inputs() -> Vec<f64> {
    let mut v = vec![
        3.0,
        -0.656,
        0.656,
        -0.0,
        0.0,
        -0.99999,
        -2.5,
        3.7,
        -1e-30,
        1e-40,
        -1e-40,
        65504.0,
        3.4e38,
        -3.4e38,
        f64::INFINITY,
        f64::NEG_INFINITY,
    ];
    v.extend((0..4000).map(|i| (i as f64 - 2000.0) * 0.0731));
    v
}

/// The differential check against NumPy (2026-11-28): f32 `degrees(3)` gave 171.887344,
/// NumPy 171.887329. NumPy computes `x * (180 / pi)` with the constant rounded to the
/// type (`180.0f / NPY_PIf` for f32 and, through f32, f16), and `radians` as
/// `x * (pi / 180)` likewise: bit for bit.
#[test]
fn degrees_and_radians_are_numpys_products() {
    let to_deg32 = 180.0f32 / std::f32::consts::PI;
    let to_rad32 = std::f32::consts::PI / 180.0f32;
    let xs: Vec<f32> = exact_inputs().iter().map(|&v| v as f32).collect();
    let a = dev().from_slice(&xs, [xs.len()]).unwrap();
    let deg = a.degrees().unwrap().to_vec().unwrap();
    let rad = a.radians().unwrap().to_vec().unwrap();
    for (i, &x) in xs.iter().enumerate() {
        if flushes::<f32>() && (x * to_rad32).abs() < f32::MIN_POSITIVE {
            continue;
        }
        assert_eq!(
            deg[i].to_bits(),
            (x * to_deg32).to_bits(),
            "degrees({x}): {}",
            deg[i]
        );
        assert_eq!(
            rad[i].to_bits(),
            (x * to_rad32).to_bits(),
            "radians({x}): {}",
            rad[i]
        );
    }
    if dev().supports::<f16>() {
        let xs: Vec<f16> = (0..=u16::MAX)
            .map(f16::from_bits)
            .filter(|v| !v.is_nan())
            .collect();
        let a = dev().from_slice(&xs, [xs.len()]).unwrap();
        let deg = a.degrees().unwrap().to_vec().unwrap();
        let rad = a.radians().unwrap().to_vec().unwrap();
        for (i, &x) in xs.iter().enumerate() {
            let d = f16::from_f32(x.to_f32() * to_deg32);
            let r = f16::from_f32(x.to_f32() * to_rad32);
            assert_eq!(deg[i].to_bits(), d.to_bits(), "degrees({x}): {}", deg[i]);
            assert_eq!(rad[i].to_bits(), r.to_bits(), "radians({x}): {}", rad[i]);
        }
    }
    if dev().supports::<f64>() {
        let xs = exact_inputs();
        let a = dev().from_slice(&xs, [xs.len()]).unwrap();
        let deg = a.degrees().unwrap().to_vec().unwrap();
        let rad = a.radians().unwrap().to_vec().unwrap();
        for (i, &x) in xs.iter().enumerate() {
            let d = x * (180.0 / std::f64::consts::PI);
            let r = x * (std::f64::consts::PI / 180.0);
            assert_eq!(deg[i].to_bits(), d.to_bits(), "degrees({x}): {}", deg[i]);
            assert_eq!(rad[i].to_bits(), r.to_bits(), "radians({x}): {}", rad[i]);
        }
    }
}

/// The differential check against NumPy (2026-11-28): f64 `trunc(-0.656)` gave +0 (NumPy
/// -0). Every float dtype, bit for bit against Rust's `trunc` (zeros by sign).
#[test]
fn trunc_keeps_the_sign_of_zero() {
    let vals = exact_inputs();
    let xs: Vec<f32> = vals.iter().map(|&v| v as f32).collect();
    let got = dev()
        .from_slice(&xs, [xs.len()])
        .unwrap()
        .trunc()
        .unwrap()
        .to_vec()
        .unwrap();
    for (g, x) in got.iter().zip(&xs) {
        if flushes::<f32>() && x.abs() < f32::MIN_POSITIVE {
            continue;
        }
        assert_eq!(g.to_bits(), x.trunc().to_bits(), "trunc({x}): {g}");
    }
    if dev().supports::<f16>() {
        let xs: Vec<f16> = vals.iter().map(|&v| f16::from_f64(v)).collect();
        let a = dev().from_slice(&xs, [xs.len()]).unwrap();
        for (g, x) in a.trunc().unwrap().to_vec().unwrap().iter().zip(&xs) {
            let want = f16::from_f32(x.to_f32().trunc());
            assert_eq!(g.to_bits(), want.to_bits(), "trunc({x}): {g}");
        }
    }
    if dev().supports::<f64>() {
        let a = dev().from_slice(&vals, [vals.len()]).unwrap();
        for (g, x) in a.trunc().unwrap().to_vec().unwrap().iter().zip(&vals) {
            assert_eq!(g.to_bits(), x.trunc().to_bits(), "trunc({x}): {g}");
        }
    }
}
