//! f32 and f16 accuracy of the elementwise float functions: each function and dtype over the
//! whole sweep (`Swept::inputs`) and over hard cases (near multiples of pi/2, near 1, small
//! arguments), against f64 references, within the bounds: 4 ulps for f32 (2 for
//! sqrt and division, 0 for the rounding functions), and for f16 (computed in f32, rounded
//! once) 1 ulp of f16. Division and pow over 100,000 random pairs of the sweep, pairs with
//! results inside the range, and every pair of special values.

use gpuarray::{f16, Array, Result};

use crate::common::Rng;
use crate::sweep::{pairs, run, run2, run_on, Check, Check2, Exact, Swept};

/// Hard cases: numbers near multiples of pi/2 (small, moderate and huge multiples, with
/// their neighbours), uniform samples of [-2, 2] and [-0.2, 0.2], and the arguments the
/// issue names.
fn hard<T: Swept>() -> Vec<T> {
    let mut rng = Rng::new(15);
    let mut v = Vec::new();
    let mut near = |x: f64| {
        let t = T::from_f64(x);
        v.push(t);
        v.push(T::from_f64(-x));
        let b = t.to_f64();
        let u = crate::sweep::ulp_at::<T>(b);
        for d in [-2.0, -1.0, 1.0, 2.0] {
            v.push(T::from_f64(b + d * u));
        }
    };
    for k in 1..4000 {
        near(k as f64 * std::f64::consts::FRAC_PI_2);
    }
    for _ in 0..4000 {
        let k = (2f64.powf(12.0 + 115.0 * rng.unit())).floor();
        near(k * std::f64::consts::FRAC_PI_2);
    }
    for x in [
        2147483520.0,
        16777216.0,
        1e10,
        10.0,
        1.5,
        0.042,
        0.1,
        1e-4,
        1.0,
        3.4e38,
    ] {
        near(x);
    }
    for _ in 0..20000 {
        v.push(T::from_f64(4.0 * rng.unit() - 2.0));
        v.push(T::from_f64(0.4 * rng.unit() - 0.2));
    }
    v
}

macro_rules! sweep {
    ($( $t32:ident, $t16:ident, $name:literal, $b32:expr, $b16:expr, $dev:expr, $refr:expr; )*) => {$(
        #[test]
        fn $t32() {
            check::<f32>($name, $b32, &$dev, &$refr);
        }
        #[test]
        fn $t16() {
            check::<f16>($name, $b16, &$dev, &$refr);
        }
    )*};
}

/// The bound checked over the sweep and over the hard cases.
fn check<T: Swept + gpuarray::Float>(
    name: &str,
    bound: f64,
    device: &dyn Fn(&Array<T>) -> Result<Array<T>>,
    reference: &dyn Fn(f64) -> f64,
) {
    require_dtype!(T);
    let reference = |x: f64| Exact::from(reference(x));
    run(Check {
        name,
        bound,
        skip: &|_| false,
        device,
        reference: &reference,
    });
    run_on(
        Check {
            name,
            bound,
            skip: &|_| false,
            device,
            reference: &reference,
        },
        &hard::<T>(),
    );
}

fn sigmoid(x: f64) -> f64 {
    1.0 / (1.0 + (-x).exp())
}

sweep! {
    exp_f32_within_4_ulps, exp_f16_within_1_ulp, "exp", 4.0, 1.0, |a| a.exp(), |x| x.exp();
    exp2_f32_within_4_ulps, exp2_f16_within_1_ulp, "exp2", 4.0, 1.0, |a| a.exp2(), |x| x.exp2();
    log_f32_within_4_ulps, log_f16_within_1_ulp, "log", 4.0, 1.0, |a| a.log(), |x| x.ln();
    log2_f32_within_4_ulps, log2_f16_within_1_ulp, "log2", 4.0, 1.0, |a| a.log2(), |x| x.log2();
    log1p_f32_within_4_ulps, log1p_f16_within_1_ulp, "log1p", 4.0, 1.0, |a| a.log1p(), |x| x.ln_1p();
    expm1_f32_within_4_ulps, expm1_f16_within_1_ulp, "expm1", 4.0, 1.0, |a| a.expm1(), |x| x.exp_m1();
    sqrt_f32_within_2_ulps_everywhere, sqrt_f16_within_1_ulp, "sqrt", 2.0, 1.0, |a| a.sqrt(), |x| x.sqrt();
    rsqrt_f32_within_4_ulps, rsqrt_f16_within_1_ulp, "rsqrt", 4.0, 1.0, |a| a.rsqrt(), |x| 1.0 / x.sqrt();
    sin_f32_within_4_ulps, sin_f16_within_1_ulp, "sin", 4.0, 1.0, |a| a.sin(), |x| x.sin();
    cos_f32_within_4_ulps, cos_f16_within_1_ulp, "cos", 4.0, 1.0, |a| a.cos(), |x| x.cos();
    tan_f32_within_4_ulps, tan_f16_within_1_ulp, "tan", 4.0, 1.0, |a| a.tan(), |x| x.tan();
    tanh_f32_within_4_ulps, tanh_f16_within_1_ulp, "tanh", 4.0, 1.0, |a| a.tanh(), |x| x.tanh();
    sigmoid_f32_within_4_ulps, sigmoid_f16_within_1_ulp, "sigmoid", 4.0, 1.0, |a| a.sigmoid(), sigmoid;
    floor_f32_exact, floor_f16_exact, "floor", 0.0, 0.0, |a| a.floor(), |x| x.floor();
    ceil_f32_exact, ceil_f16_exact, "ceil", 0.0, 0.0, |a| a.ceil(), |x| x.ceil();
    round_f32_exact, round_f16_exact, "round", 0.0, 0.0, |a| a.round(), |x| x.round_ties_even();
}

/// Special operands of both binary functions (each pair is checked).
const SPECIALS: [f64; 16] = [
    0.0,
    -0.0,
    1.0,
    -1.0,
    0.5,
    -2.0,
    3.0,
    2.5,
    f64::INFINITY,
    f64::NEG_INFINITY,
    f64::NAN,
    3.4028234663852886e38,
    -3.4028234663852886e38,
    1.401298464324817e-45,
    -1.1754943508222875e-38,
    2147483520.0,
];

/// Pairs whose power is inside the range: y = t / log2|x| for t in [-140, 140], and
/// negative bases with integral exponents.
fn pow_pairs<T: Swept>() -> Vec<(T, T)> {
    let xs = T::inputs();
    let mut rng = Rng::new(7);
    let range = if T::NAME == "f16" { 15.0 } else { 140.0 };
    let mut v = pairs::<T>(100_000, &SPECIALS, 3);
    for i in 0..100_000 {
        let x = xs[(rng.unit() * xs.len() as f64) as usize % xs.len()];
        let l = x.to_f64().abs().log2();
        let y = if i % 2 == 0 {
            (2.0 * rng.unit() - 1.0) * range / l
        } else {
            ((2.0 * rng.unit() - 1.0) * range / l).round()
        };
        if y.is_finite() {
            v.push((x, T::from_f64(y)));
        }
    }
    v
}

fn div_check<T: Swept>(bound: f64) {
    require_dtype!(T);
    run2(
        Check2 {
            name: "div",
            bound,
            device: &|a: &Array<T>, b: &Array<T>| a.div(b),
            reference: &|x, y| Exact::from(x / y),
        },
        &pairs::<T>(100_000, &SPECIALS, 11),
    );
}

fn pow_check<T: Swept + gpuarray::Float>(bound: f64) {
    require_dtype!(T);
    run2(
        Check2 {
            name: "pow",
            bound,
            device: &|a: &Array<T>, b: &Array<T>| a.pow(b),
            reference: &|x, y| Exact::from(x.powf(y)),
        },
        &pow_pairs::<T>(),
    );
}

#[test]
fn div_f32_within_2_ulps() {
    div_check::<f32>(2.0);
}

#[test]
fn div_f16_within_1_ulp() {
    div_check::<f16>(1.0);
}

#[test]
fn pow_f32_within_4_ulps() {
    pow_check::<f32>(4.0);
}

#[test]
fn pow_f16_within_1_ulp() {
    pow_check::<f16>(1.0);
}
