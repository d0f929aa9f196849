//! erf for every float dtype: the sweep and a dense sweep of [-6.5, 6.5] (where erf is not
//! ±1 to rounding) within 4 ulps of a reference from the Taylor series in 320-bit binary
//! floats (astro-float), f16 within 1 ulp (computed in f32, rounded once), and the special
//! values bit for bit.

use astro_float::BigFloat;
use gpuarray::{f16, Array, Float};

use crate::f64::{big, consts, exact, P, RM};
use crate::sweep::{run, run_on, ulp_error, Check, Exact, Swept};

/// erf(x) = 2/sqrt(pi) * sum over n of (-1)^n x^(2n+1) / (n! (2n+1)), in 320 bits: the
/// terms peak near n = x^2 (about 2^70 at |x| = 7, far inside the precision) and the sum
/// stops where they are below 2^-400. Past |x| = 7, erfc(x) < 2^-74: ±1 to far below an ulp.
fn erf_reference(x: f64) -> Exact {
    if x.is_nan() {
        return f64::NAN.into();
    }
    if x == 0.0 {
        return x.into();
    }
    if x.abs() >= 7.0 {
        return x.signum().into();
    }
    let mut cc = consts();
    let b = big(x);
    let z = b.mul(&b, P, RM);
    let mut term = b.clone();
    let mut sum = b.clone();
    let n_max = 24 + (8.0 * x * x) as usize;
    for n in 1..=n_max {
        term = term.mul(&z, P, RM).div(&big(n as f64), P, RM);
        let t = term.div(&big((2 * n + 1) as f64), P, RM);
        sum = if n % 2 == 1 {
            sum.sub(&t, P, RM)
        } else {
            sum.add(&t, P, RM)
        };
    }
    let two_over_sqrt_pi: BigFloat = big(2.0).div(&cc.pi(P, RM).sqrt(P, RM), P, RM);
    exact(&sum.mul(&two_over_sqrt_pi, P, RM))
}

/// The dense sweep: `n` evenly spaced points of [-6.5, 6.5], each moved by a random fraction
/// of the spacing.
fn dense<T: Swept>(n: usize) -> Vec<T> {
    let mut rng = crate::common::Rng::new(41);
    (0..n)
        .map(|i| {
            let x = -6.5 + 13.0 * (i as f64 + rng.unit()) / n as f64;
            T::from_f64(x)
        })
        .collect()
}

fn check<T: Swept + Float>(bound: f64) {
    let c = || Check::<T> {
        name: "erf",
        bound,
        skip: &|_| false,
        device: &|a: &Array<T>| a.erf(),
        reference: &erf_reference,
    };
    run::<T>(c());
    run_on::<T>(c(), &dense::<T>(20_000));
}

#[test]
fn erf_f64_within_4_ulps() {
    require_dtype!(f64);
    check::<f64>(4.0);
}

#[test]
fn erf_f32_within_4_ulps() {
    check::<f32>(4.0);
}

#[test]
fn erf_f16_within_1_ulp() {
    require_dtype!(f16);
    check::<f16>(1.0);
}

/// erf(±0) = ±0, erf(±inf) = ±1, NaN stays NaN, the extremes are ±1 and the smallest
/// subnormals keep their sign (2/sqrt(pi) times them rounds back to a subnormal or a zero
/// of their sign), for every float dtype.
fn special<T: Swept + Float>() {
    let max = T::MAX;
    let tiny = T::MIN_NORMAL * 2f64.powi(1 - T::PRECISION);
    let xs = [
        0.0,
        -0.0,
        f64::INFINITY,
        f64::NEG_INFINITY,
        f64::NAN,
        max,
        -max,
        tiny,
        -tiny,
        T::MIN_NORMAL,
        -T::MIN_NORMAL,
    ];
    let v: Vec<T> = xs.iter().map(|&x| T::from_f64(x)).collect();
    let a = crate::common::dev().from_slice(&v, [v.len()]).unwrap();
    let got = a.erf().unwrap().to_vec().unwrap();
    for (&x, g) in xs.iter().zip(got) {
        let g = g.to_f64();
        if x.is_nan() {
            assert!(g.is_nan(), "erf({x}) = {g} ({})", T::NAME);
            continue;
        }
        assert_eq!(
            g.is_sign_negative(),
            x.is_sign_negative(),
            "erf({x:e}) = {g:e}: the sign ({})",
            T::NAME
        );
        if x == 0.0 || x.is_infinite() || x.abs() == max {
            assert_eq!(
                g,
                x.signum() * f64::from(x != 0.0),
                "erf({x:e}) ({})",
                T::NAME
            );
        } else {
            let want = erf_reference(x);
            // A subnormal may be flushed (to a zero of its sign, checked above).
            let flushed = g == 0.0 && crate::sweep::flushes::<T>();
            assert!(
                flushed || ulp_error::<T>(g, want) <= 1.0,
                "erf({x:e}) = {g:e}, exact {:e} ({})",
                want.hi,
                T::NAME
            );
        }
    }
}

#[test]
fn erf_special_values() {
    special::<f32>();
    if crate::common::supported::<f64>(crate::common::dev()) {
        special::<f64>();
    }
    if crate::common::supported::<f16>(crate::common::dev()) {
        special::<f16>();
    }
}
