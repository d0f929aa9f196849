//! The float functions of the name map's second group over the sweep: logaddexp and
//! logaddexp2 over pairs (f32 and f16 against an f64 evaluation, whose error is far below
//! an f32 ulp; f64 against astro-float), in ulps of relative error where the result does
//! not cancel, and sinc against NumPy's own formula (pi x rounded in the input type, then
//! sin(y) / y exactly), which is what NumPy computes.

use astro_float::BigFloat;
use gpuarray::{f16, Array, Float};

use crate::common::assert_close;
use crate::f64::{big, consts, exact, P, RM};
use crate::sweep::{pairs, run, run2, Check, Check2, Exact, Swept};

const SPECIALS: [f64; 9] = [
    0.0,
    -0.0,
    1.0,
    -std::f64::consts::LN_2,
    f64::INFINITY,
    f64::NEG_INFINITY,
    f64::NAN,
    1e-45,
    88.0,
];

/// log(e^x + e^y) (`base2`: log2(2^x + 2^y)) in f64: exact to far below an f32 ulp.
fn lae(x: f64, y: f64, base2: bool) -> f64 {
    if x.is_nan() || y.is_nan() {
        return f64::NAN;
    }
    if x == y {
        return x + if base2 { 1.0 } else { std::f64::consts::LN_2 };
    }
    let (m, d) = (x.max(y), (x - y).abs());
    if base2 {
        m + (-d).exp2().ln_1p() / std::f64::consts::LN_2
    } else {
        m + (-d).exp().ln_1p()
    }
}

/// The same in 320 bits for f64 inputs.
fn lae_big(x: f64, y: f64, base2: bool) -> Exact {
    let (m, d) = (x.max(y), (x - y).abs());
    if !(d.is_finite() && m.is_finite()) || d > 2000.0 || x == y {
        return lae(x, y, base2).into();
    }
    let mut cc = consts();
    let ln2 = cc.ln_2(P, RM);
    let t = if base2 {
        big(-d).mul(&ln2, P, RM)
    } else {
        big(-d)
    };
    let e = t.exp(P, RM, &mut cc);
    // ln(1 + e): e - e^2 / 2 where 1 + e would not fit in P bits (e < 2^-60).
    let l = if d > 40.0 {
        e.sub(&e.mul(&e, P, RM).div(&big(2.0), P, RM), P, RM)
    } else {
        e.add(&BigFloat::from_f64(1.0, P), P, RM).ln(P, RM, &mut cc)
    };
    let l = if base2 { l.div(&ln2, P, RM) } else { l };
    exact(&big(m).add(&l, P, RM))
}

/// Pairs whose result does not cancel (|result| >= |max(x, y)| / 2, or a special result);
/// the others are checked against an absolute bound of a few ulps of max(x, y).
fn lae_check<T: Swept + Float>(base2: bool, bound: f64) {
    let name = if base2 { "logaddexp2" } else { "logaddexp" };
    let n = if T::DTYPE == gpuarray::DType::F64 {
        15_000
    } else {
        100_000
    };
    let all = pairs::<T>(n, &SPECIALS, 11);
    let (mut plain, mut cancel) = (vec![], vec![]);
    for &(x, y) in &all {
        let (a, b) = (x.to_f64(), y.to_f64());
        let r = lae(a, b, base2);
        let m = a.max(b);
        if !r.is_finite() || !m.is_finite() || r.abs() >= m.abs() / 2.0 {
            plain.push((x, y));
        } else {
            cancel.push((x, y));
        }
    }
    let device = |a: &Array<T>, b: &Array<T>| {
        if base2 {
            a.logaddexp2(b)
        } else {
            a.logaddexp(b)
        }
    };
    let reference = |x: f64, y: f64| {
        if T::DTYPE == gpuarray::DType::F64 {
            lae_big(x, y, base2)
        } else {
            Exact::from(lae(x, y, base2))
        }
    };
    run2(
        Check2 {
            name,
            bound,
            device: &device,
            reference: &reference,
        },
        &plain,
    );
    let d = crate::common::dev();
    let xs: Vec<T> = cancel.iter().map(|p| p.0).collect();
    let ys: Vec<T> = cancel.iter().map(|p| p.1).collect();
    let got = device(
        &d.from_slice(&xs, [xs.len()]).unwrap(),
        &d.from_slice(&ys, [ys.len()]).unwrap(),
    )
    .unwrap()
    .to_vec()
    .unwrap();
    let eps = 2f64.powi(1 - T::PRECISION);
    for ((x, y), g) in xs.iter().zip(&ys).zip(&got) {
        let (a, b) = (x.to_f64(), y.to_f64());
        let want = lae(a, b, base2);
        assert_close(&[g.to_f64()], &[want], 4.0 * eps * a.max(b).abs(), 0.0);
    }
}

#[test]
fn logaddexp_f32_within_5_ulps() {
    lae_check::<f32>(false, 5.0);
}

#[test]
fn logaddexp2_f32_within_5_ulps() {
    lae_check::<f32>(true, 5.0);
}

#[test]
fn logaddexp_f16_within_1_ulp() {
    require_dtype!(f16);
    lae_check::<f16>(false, 1.0);
    lae_check::<f16>(true, 1.0);
}

#[test]
fn logaddexp_f64_within_4_ulps() {
    require_dtype!(f64);
    lae_check::<f64>(false, 4.0);
    lae_check::<f64>(true, 4.0);
}

/// NumPy's sinc formula with `pi x` rounded to `T` (f16: in f32, as the kernel does).
fn sinc_numpy<T: Swept>(x: f64) -> Exact {
    if x.is_infinite() {
        return f64::NAN.into();
    }
    let x = if x == 0.0 { 1e-20 } else { x };
    let y = (std::f32::consts::PI * x as f32) as f64;
    let y = if T::DTYPE == gpuarray::DType::F64 {
        std::f64::consts::PI * x
    } else {
        y
    };
    Exact::from(y.sin() / y)
}

fn sinc_check<T: Swept + Float>(bound: f64) {
    run(Check {
        name: "sinc",
        bound,
        skip: &|_| false,
        device: &|a: &Array<T>| a.sinc(),
        reference: &sinc_numpy::<T>,
    });
}

#[test]
fn sinc_f32_within_5_ulps_of_numpys_formula() {
    sinc_check::<f32>(5.0);
}

#[test]
fn sinc_f16_within_1_ulp_of_numpys_formula() {
    require_dtype!(f16);
    sinc_check::<f16>(1.0);
}
