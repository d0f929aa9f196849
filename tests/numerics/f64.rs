//! f64 math in software (shaders/shared/f64_math.wgsl, f64_trig.wgsl): every function over
//! the f64 sweep within 4 ulps of a reference computed with 320-bit binary floats
//! (astro-float), and the special values of C99 (Rust's std functions follow C99 there).
//! The f32 and f16 forms of the functions added with them (log10, sinh, ...) are checked
//! here too.

use astro_float::{BigFloat, Consts, RoundingMode, Sign};
use gpuarray::{f16, Array, Result};

use crate::common::Rng;
use crate::sweep::{run, run2, ulp_error, Check, Check2, Exact, Swept};

/// Bits of the references: far more than pow's exponents up to 2^11 lose (astro-float's
/// sin, cos and tan reduce their argument with pi to the bits its exponent needs).
pub(crate) const P: usize = 320;
pub(crate) const RM: RoundingMode = RoundingMode::ToEven;

pub(crate) fn consts() -> Consts {
    Consts::new().expect("astro-float constants")
}

/// `x` exactly (astro-float's from_f64 halves subnormals: they go through a scaling by 2^100).
pub(crate) fn big(x: f64) -> BigFloat {
    if x != 0.0 && x.abs() < f64::MIN_POSITIVE {
        let up = BigFloat::from_f64(x * 2f64.powi(100), P);
        return up.mul(&BigFloat::from_f64(2f64.powi(-100), P), P, RM);
    }
    BigFloat::from_f64(x, P)
}

/// The f64 nearest to a finite non-zero `b`'s top 64 bits (correctly rounded but where the
/// lower words would break a tie), scaled by its exponent; subnormal results rounded twice.
fn top_f64(b: &BigFloat) -> f64 {
    let (words, _, sign, e, _) = b.as_raw_parts().expect("a finite value");
    let top = *words.last().expect("a mantissa word");
    let mut v = top as f64 * 2f64.powi(-64);
    let mut e = e as i64;
    while e > 0 {
        let k = e.min(1000);
        v *= 2f64.powi(k as i32);
        e -= k;
    }
    while e < 0 {
        let k = (-e).min(1000);
        v *= 2f64.powi(-(k as i32));
        e += k;
    }
    if sign == Sign::Neg {
        -v
    } else {
        v
    }
}

/// `b` as a double-double reference.
pub(crate) fn exact(b: &BigFloat) -> Exact {
    if b.is_nan() {
        return f64::NAN.into();
    }
    if b.is_inf() {
        return if b.is_inf_pos() {
            f64::INFINITY
        } else {
            f64::NEG_INFINITY
        }
        .into();
    }
    if b.is_zero() {
        return 0.0.into();
    }
    let hi = top_f64(b);
    if !hi.is_finite() {
        return hi.into();
    }
    let rest = b.sub(&big(hi), P, RM);
    let lo = if rest.is_zero() { 0.0 } else { top_f64(&rest) };
    Exact { hi, lo }
}

/// A reference through `f` for finite non-zero inputs, and `special` (C99's value, from
/// Rust's std) for NaN, infinities and signed zeros.
fn via(x: f64, special: f64, f: impl Fn(&BigFloat, &mut Consts) -> BigFloat) -> Exact {
    if !x.is_finite() || x == 0.0 {
        return special.into();
    }
    thread_local!(static CC: std::cell::RefCell<Consts> = std::cell::RefCell::new(consts()));
    CC.with(|cc| exact(&f(&big(x), &mut cc.borrow_mut())))
}

/// One unary f64 function: the device method, C99's value for special inputs (std), the
/// multiprecision reference, and inputs left out of the bound.
fn check64(
    name: &str,
    device: &dyn Fn(&Array<f64>) -> Result<Array<f64>>,
    std: fn(f64) -> f64,
    reference: &dyn Fn(&BigFloat, &mut Consts) -> BigFloat,
    skip: &dyn Fn(f64) -> bool,
) {
    require_dtype!(f64);
    run::<f64>(Check {
        name,
        bound: 4.0,
        skip,
        device,
        reference: &|x| via(x, std(x), reference),
    });
}

fn one() -> BigFloat {
    big(1.0)
}

macro_rules! unary64 {
    ($( $test:ident, $method:ident, $std:expr, $reference:expr, $skip:expr; )*) => {$(
        #[test]
        fn $test() {
            check64(stringify!($method), &|a| a.$method(), $std, &$reference, &$skip);
        }
    )*};
}

/// Whether `x` is so small that `f(x) = x + c x^2` holds to far below an ulp (the
/// multiprecision 1 + x would lose x).
fn tiny(x: f64) -> bool {
    x != 0.0 && x.abs() < 2f64.powi(-80)
}

unary64! {
    exp_f64_within_4_ulps, exp, f64::exp, |x, cc| x.exp(P, RM, cc), |_| false;
    exp2_f64_within_4_ulps, exp2, f64::exp2, |x, cc| big(2.0).pow(x, P, RM, cc), |_| false;
    log_f64_within_4_ulps, log, f64::ln, |x, cc| x.ln(P, RM, cc), |_| false;
    log2_f64_within_4_ulps, log2, f64::log2, |x, cc| x.log2(P, RM, cc), |_| false;
    log10_f64_within_4_ulps, log10, f64::log10, |x, cc| x.log10(P, RM, cc), |_| false;
    sqrt_f64_within_4_ulps, sqrt, f64::sqrt, |x, _| x.sqrt(P, RM), |_| false;
    rsqrt_f64_within_4_ulps, rsqrt, |x: f64| 1.0 / x.sqrt(), |x, _| one().div(&x.sqrt(P, RM), P, RM), |_| false;
    sin_f64_within_4_ulps, sin, f64::sin, |x, cc| x.sin(P, RM, cc), |_| false;
    cos_f64_within_4_ulps, cos, f64::cos, |x, cc| x.cos(P, RM, cc), |_| false;
    tan_f64_within_4_ulps, tan, f64::tan, |x, cc| x.tan(P, RM, cc), |_| false;
    sinh_f64_within_4_ulps, sinh, f64::sinh, |x, cc| x.sinh(P, RM, cc), |_| false;
    cosh_f64_within_4_ulps, cosh, f64::cosh, |x, cc| x.cosh(P, RM, cc), |_| false;
    tanh_f64_within_4_ulps, tanh, f64::tanh, |x, cc| x.tanh(P, RM, cc), |_| false;
    asin_f64_within_4_ulps, asin, f64::asin, |x, cc| x.asin(P, RM, cc), |_| false;
    acos_f64_within_4_ulps, acos, f64::acos, |x, cc| x.acos(P, RM, cc), |_| false;
    atan_f64_within_4_ulps, atan, f64::atan, |x, cc| x.atan(P, RM, cc), |_| false;
    cbrt_f64_within_4_ulps, cbrt, f64::cbrt, |x, _| x.cbrt(P, RM), |_| false;
    sigmoid_f64_within_4_ulps, sigmoid, |x: f64| 1.0 / (1.0 + (-x).exp()),
        |x, cc| one().div(&one().add(&x.neg().exp(P, RM, cc), P, RM), P, RM), |_| false;
}

/// sin, cos and tan where the reduction by pi/2 is hardest: 6381956970095103 2^797 lies
/// 2^-60.9 from a multiple of pi/2 (the closest f64 of all), so its remainder needs 114
/// bits of 2/pi's product; with the largest finite f64, the ends of the two reductions
/// (2^20 and its predecessor) and odd multiples of large powers of two.
#[test]
fn trig_f64_hardest_reductions() {
    require_dtype!(f64);
    let hard = 6381956970095103.0 * 2f64.powi(797);
    let mut xs = vec![
        hard,
        -hard,
        f64::MAX,
        -f64::MAX,
        1048576.0,
        1048575.999_999_999_9,
    ];
    xs.extend([
        1e22,
        3.0 * 2f64.powi(600),
        2f64.powi(1000),
        5.0e15,
        -7.0e300,
    ]);
    let a = crate::common::dev().from_slice(&xs, [xs.len()]).unwrap();
    type F = fn(&Array<f64>) -> Result<Array<f64>>;
    type R = fn(&BigFloat, &mut Consts) -> BigFloat;
    type Trig = (&'static str, F, fn(f64) -> f64, R);
    let table: [Trig; 3] = [
        ("sin", |a| a.sin(), f64::sin, |x, cc| x.sin(P, RM, cc)),
        ("cos", |a| a.cos(), f64::cos, |x, cc| x.cos(P, RM, cc)),
        ("tan", |a| a.tan(), f64::tan, |x, cc| x.tan(P, RM, cc)),
    ];
    for (name, device, std, reference) in table {
        let got = device(&a).unwrap().to_vec().unwrap();
        for (&x, g) in xs.iter().zip(got) {
            let err = ulp_error::<f64>(g, via(x, std(x), reference));
            assert!(err <= 4.0, "{name}({x:e}) = {g:e}: {err:.2} ulps");
        }
    }
}

/// expm1 and log1p: the multiprecision 1 + x loses tiny x, where x + x^2/2 (or - x^2/2) is
/// exact to far below an ulp.
#[test]
fn expm1_f64_within_4_ulps() {
    require_dtype!(f64);
    run::<f64>(Check {
        name: "expm1",
        bound: 4.0,
        skip: &|_| false,
        device: &|a| a.expm1(),
        reference: &|x| {
            if tiny(x) {
                return Exact {
                    hi: x,
                    lo: x * x / 2.0,
                };
            }
            via(x, x.exp_m1(), |b, cc| b.exp(P, RM, cc).sub(&one(), P, RM))
        },
    });
}

#[test]
fn log1p_f64_within_4_ulps() {
    require_dtype!(f64);
    run::<f64>(Check {
        name: "log1p",
        bound: 4.0,
        skip: &|_| false,
        device: &|a| a.log1p(),
        reference: &|x| {
            if tiny(x) {
                return Exact {
                    hi: x,
                    lo: -x * x / 2.0,
                };
            }
            if x < -1.0 {
                return f64::NAN.into();
            }
            via(x, x.ln_1p(), |b, cc| b.add(&one(), P, RM).ln(P, RM, cc))
        },
    });
}

/// Pairs for the binary functions: the sweep's values paired at random, pairs whose
/// `y log2|x|` spreads over [-1100, 1100] (pow's whole range of results), integers as
/// exponents of negative bases, and every pair of special values.
fn pairs(seed: u64) -> (Vec<f64>, Vec<f64>) {
    let sweep = f64::inputs();
    let mut rng = Rng::new(seed);
    let (mut xs, mut ys) = (Vec::new(), Vec::new());
    let pick = |rng: &mut Rng| sweep[(rng.next_u64() % sweep.len() as u64) as usize];
    for _ in 0..40_000 {
        xs.push(pick(&mut rng));
        ys.push(pick(&mut rng));
    }
    for _ in 0..60_000 {
        let x = 2f64.powf(rng.uniform(-1074.0, 1024.0)).min(f64::MAX);
        let x = if rng.bool(0.5) {
            x
        } else {
            1.0 + rng.uniform(-0.5, 1.0)
        };
        let t = rng.uniform(-1100.0, 1100.0);
        let y = t / x.log2();
        xs.push(if rng.bool(0.2) { -x } else { x });
        ys.push(if xs.last().unwrap() < &0.0 {
            y.round()
        } else {
            y
        });
    }
    let special = [
        0.0,
        -0.0,
        f64::INFINITY,
        f64::NEG_INFINITY,
        f64::NAN,
        1.0,
        -1.0,
        0.5,
        -0.5,
        2.0,
        -2.0,
        3.0,
        -3.0,
        2.5,
        -2.5,
        f64::MAX,
        -f64::MAX,
        5e-324,
        -5e-324,
    ];
    for &x in &special {
        for &y in &special {
            xs.push(x);
            ys.push(y);
        }
    }
    (xs, ys)
}

fn pow_reference(x: f64, y: f64) -> Exact {
    let std = x.powf(y);
    if !x.is_finite() || !y.is_finite() || x == 0.0 || y == 0.0 || std.is_nan() {
        return std.into();
    }
    let odd = y.fract() == 0.0 && y.abs() < 2f64.powi(53) && (y / 2.0).fract() != 0.0;
    let mut cc = consts();
    let l = big(x.abs()).ln(P, RM, &mut cc).mul(&big(y), P, RM);
    // Past e^800 and e^-800 only the overflow or the underflow matters.
    let v = if top_f64(&l) > 800.0 {
        f64::INFINITY.into()
    } else if top_f64(&l) < -800.0 {
        0.0.into()
    } else {
        exact(&l.exp(P, RM, &mut cc))
    };
    if x < 0.0 && odd {
        Exact {
            hi: -v.hi,
            lo: -v.lo,
        }
    } else {
        v
    }
}

/// pow over 100,000 pairs and the special-value table within 4 ulps; zeros and infinities of
/// the table with C99's sign. log's double-double needs exact products: Dekker's, without fma
/// (lavapipe's f64 fma is unfused; with it pow was off by ~1000 ulps there).
#[test]
fn pow_f64_within_4_ulps() {
    require_dtype!(f64);
    let (xs, ys) = pairs(7);
    run2::<f64>(
        Check2 {
            name: "pow",
            bound: 4.0,
            device: &|a, b| a.pow(b),
            reference: &pow_reference,
        },
        &zip(&xs, &ys),
    );
    let a = crate::common::dev().from_slice(&xs, [xs.len()]).unwrap();
    let b = crate::common::dev().from_slice(&ys, [ys.len()]).unwrap();
    let got = a.pow(&b).unwrap().to_vec().unwrap();
    for ((x, y), g) in xs.iter().zip(&ys).zip(got) {
        let want = x.powf(*y);
        if want == 0.0 || want.is_infinite() {
            assert_eq!(
                g.to_bits(),
                want.to_bits(),
                "pow({x:e}, {y:e}) = {g:e}, C99 {want:e}"
            );
        }
    }
}

/// pow's lanes that skip the special-value table without a test of their own: y = ±0 and
/// x = 1 (log(1) is exactly 0, so t = 0 and the result 1) for any other operand, and the
/// edges of the table's tests: |y| just inside and past 2^990 (huge finite exponents, whose
/// y log|x| overflows), |y log x| near 800, x next to 1 and negative bases. 1, 0 and inf
/// bit for bit as C99, the rest within 4 ulps.
#[test]
fn pow_f64_plain_path_edges() {
    require_dtype!(f64);
    let mut rng = Rng::new(71);
    let mut xs = Vec::new();
    let mut ys = Vec::new();
    let near1 = [
        1.0,
        1.0 + f64::EPSILON,
        1.0 - f64::EPSILON / 2.0,
        -1.0,
        -1.0 - f64::EPSILON,
        0.5,
        2.0,
        -2.0,
        3.0,
    ];
    let big_y = [
        2f64.powi(990),
        -(2f64.powi(990)),
        2f64.powi(990) * (1.0 + f64::EPSILON),
        -(2f64.powi(991)),
        1e300,
        -1e300,
        f64::MAX,
        800.0 / 2f64.ln() - 1.0,
        -800.0 / 2f64.ln() + 1.0,
        800.0 / 2f64.ln() + 2.0,
        1e16,
        -1e16,
        0.0,
        -0.0,
    ];
    for &x in &near1 {
        for &y in &big_y {
            xs.push(x);
            ys.push(y);
        }
    }
    for _ in 0..2000 {
        let v = 2f64.powf(rng.uniform(-1074.0, 1024.0)).min(f64::MAX);
        let v = if rng.bool(0.5) { v } else { -v };
        // x = 1 with any y, any x with y = ±0.
        xs.extend([1.0, v, v]);
        ys.extend([v, 0.0, -0.0]);
    }
    let a = crate::common::dev().from_slice(&xs, [xs.len()]).unwrap();
    let b = crate::common::dev().from_slice(&ys, [ys.len()]).unwrap();
    let got = a.pow(&b).unwrap().to_vec().unwrap();
    let mut failures = Vec::new();
    for ((&x, &y), g) in xs.iter().zip(&ys).zip(got) {
        let want = x.powf(y);
        let ok = if want == 0.0 || want == 1.0 || want.is_infinite() || want.is_nan() {
            g.to_bits() == want.to_bits() || (want.is_nan() && g.is_nan())
        } else {
            ulp_error::<f64>(g, pow_reference(x, y)) <= 4.0
        };
        if !ok {
            failures.push(format!("pow({x:e}, {y:e}) = {g:e}, C99 {want:e}"));
        }
    }
    assert!(failures.is_empty(), "{}", failures.join("\n"));
}

/// The pairs `(xs[i], ys[i])`, as `sweep::run2` takes them.
fn zip(xs: &[f64], ys: &[f64]) -> Vec<(f64, f64)> {
    xs.iter().copied().zip(ys.iter().copied()).collect()
}

fn atan2_reference(y: f64, x: f64) -> Exact {
    let std = y.atan2(x);
    if !x.is_finite() || !y.is_finite() || x == 0.0 || y == 0.0 {
        return std.into();
    }
    let mut cc = consts();
    let t = big(y).div(&big(x), P, RM).atan(P, RM, &mut cc);
    let pi = cc.pi(P, RM);
    let v = if x > 0.0 {
        t
    } else if y > 0.0 {
        t.add(&pi, P, RM)
    } else {
        t.sub(&pi, P, RM)
    };
    exact(&v)
}

/// atan2 over the same pairs, special values (signed zeros, the infinite diagonals) exact.
#[test]
fn atan2_f64_within_4_ulps() {
    require_dtype!(f64);
    let (ys, xs) = pairs(8);
    run2::<f64>(
        Check2 {
            name: "atan2",
            bound: 4.0,
            device: &|a, b| a.atan2(b),
            reference: &atan2_reference,
        },
        &zip(&ys, &xs),
    );
    let a = crate::common::dev().from_slice(&ys, [ys.len()]).unwrap();
    let b = crate::common::dev().from_slice(&xs, [xs.len()]).unwrap();
    let got = a.atan2(&b).unwrap().to_vec().unwrap();
    for ((y, x), g) in ys.iter().zip(&xs).zip(got) {
        if (*y == 0.0 || x.is_infinite() || y.is_infinite()) && !x.is_nan() && !y.is_nan() {
            let want = y.atan2(*x);
            assert!(
                ulp_error::<f64>(g, want.into()) <= 1.0
                    && g.is_sign_negative() == want.is_sign_negative(),
                "atan2({y:e}, {x:e}) = {g:e}, C99 {want:e}"
            );
        }
    }
}

/// Division within half an ulp plus the refinement's rounding (bound 1) over the same pairs.
#[test]
fn div_f64_within_1_ulp() {
    require_dtype!(f64);
    let (xs, ys) = pairs(9);
    run2::<f64>(
        Check2 {
            name: "div",
            bound: 1.0,
            device: &|a, b| a.div(b),
            reference: &|x, y| {
                if !x.is_finite() || !y.is_finite() || x == 0.0 || y == 0.0 {
                    return (x / y).into();
                }
                exact(&big(x).div(&big(y), P, RM))
            },
        },
        &zip(&xs, &ys),
    );
}

/// The special values of every unary f64 function as C99 (Rust's std): NaN, the infinities,
/// signed zeros, the extremes, subnormals and the domain edges, bit for bit where C99's
/// result is NaN, zero or infinite, within 4 ulps elsewhere.
#[test]
fn f64_special_values_as_c99() {
    require_dtype!(f64);
    let xs = [
        f64::NAN,
        f64::INFINITY,
        f64::NEG_INFINITY,
        0.0,
        -0.0,
        1.0,
        -1.0,
        5e-324,
        -5e-324,
        f64::MIN_POSITIVE,
        f64::MAX,
        -f64::MAX,
        1.0 + f64::EPSILON,
        1.0 - f64::EPSILON / 2.0,
        -1.0 - f64::EPSILON,
        709.8,
        -745.2,
        711.0,
    ];
    type F = fn(&Array<f64>) -> Result<Array<f64>>;
    type Row = (&'static str, F, fn(f64) -> f64);
    let table: [Row; 19] = [
        ("exp", |a| a.exp(), f64::exp),
        ("exp2", |a| a.exp2(), f64::exp2),
        ("expm1", |a| a.expm1(), f64::exp_m1),
        ("log", |a| a.log(), f64::ln),
        ("log2", |a| a.log2(), f64::log2),
        ("log10", |a| a.log10(), f64::log10),
        ("log1p", |a| a.log1p(), f64::ln_1p),
        ("sqrt", |a| a.sqrt(), f64::sqrt),
        ("rsqrt", |a| a.rsqrt(), |x| 1.0 / x.sqrt()),
        ("sin", |a| a.sin(), f64::sin),
        ("cos", |a| a.cos(), f64::cos),
        ("tan", |a| a.tan(), f64::tan),
        ("sinh", |a| a.sinh(), f64::sinh),
        ("cosh", |a| a.cosh(), f64::cosh),
        ("tanh", |a| a.tanh(), f64::tanh),
        ("asin", |a| a.asin(), f64::asin),
        ("acos", |a| a.acos(), f64::acos),
        ("atan", |a| a.atan(), f64::atan),
        ("cbrt", |a| a.cbrt(), f64::cbrt),
    ];
    let a = crate::common::dev().from_slice(&xs, [xs.len()]).unwrap();
    let mut failures = Vec::new();
    for (name, device, std) in table {
        let got = device(&a).unwrap().to_vec().unwrap();
        for (&x, g) in xs.iter().zip(got) {
            let want = std(x);
            let ok = if want.is_nan() || want == 0.0 || want.is_infinite() {
                g.to_bits() == want.to_bits() || (want.is_nan() && g.is_nan())
            } else {
                ulp_error::<f64>(g, want.into()) <= 4.0
            };
            if !ok {
                failures.push(format!("{name}({x:e}) = {g:e}, C99 {want:e}"));
            }
        }
    }
    assert!(failures.is_empty(), "{}", failures.join("\n"));
}

/// The f32 and f16 forms of the functions added with the f64 library, against f64's std
/// (exact to far below an f32 ulp): 4 ulps for f32, 1 for f16 (computed in f32, rounded once).
macro_rules! extra32 {
    ($( $test:ident, $method:ident, $std:expr; )*) => {$(
        #[test]
        fn $test() {
            let f: fn(f64) -> f64 = $std;
            run::<f32>(Check {
                name: stringify!($method),
                bound: 4.0,
                skip: &|_| false,
                device: &|a| a.$method(),
                reference: &|x| f(x).into(),
            });
            require_dtype!(f16);
            run::<f16>(Check {
                name: stringify!($method),
                bound: 1.0,
                skip: &|_| false,
                device: &|a| a.$method(),
                reference: &|x| f(x).into(),
            });
        }
    )*};
}

extra32! {
    log10_f32_f16, log10, f64::log10;
    sinh_f32_f16, sinh, f64::sinh;
    cosh_f32_f16, cosh, f64::cosh;
    asin_f32_f16, asin, f64::asin;
    acos_f32_f16, acos, f64::acos;
    atan_f32_f16, atan, f64::atan;
    cbrt_f32_f16, cbrt, f64::cbrt;
}

/// atan2 of f32 (4 ulps) and f16 (1 ulp) over 100,000 random pairs of the sweep and every
/// pair of special values, against f64's (C99's special values: signed zeros, the
/// infinite diagonals, NaN).
#[test]
fn atan2_f32_f16() {
    let specials = [
        0.0,
        -0.0,
        f64::INFINITY,
        f64::NEG_INFINITY,
        f64::NAN,
        1.0,
        -1.0,
        3.0e38,
        -3.0e38,
        1e-40,
        -1e-40,
        65504.0,
    ];
    let reference = |y: f64, x: f64| -> Exact { y.atan2(x).into() };
    let pairs32 = crate::sweep::pairs::<f32>(100_000, &specials, 11);
    run2::<f32>(
        Check2 {
            name: "atan2",
            bound: 4.0,
            device: &|a, b| a.atan2(b),
            reference: &reference,
        },
        &pairs32,
    );
    // Zero results with C99's sign (atan2(±0, x > 0) = ±0), which run2's ulps do not see.
    let ys: Vec<f32> = pairs32.iter().map(|p| p.0).collect();
    let xs: Vec<f32> = pairs32.iter().map(|p| p.1).collect();
    let a = crate::common::dev().from_slice(&ys, [ys.len()]).unwrap();
    let b = crate::common::dev().from_slice(&xs, [xs.len()]).unwrap();
    let got = a.atan2(&b).unwrap().to_vec().unwrap();
    for ((y, x), g) in ys.iter().zip(&xs).zip(got) {
        let want = (*y as f64).atan2(*x as f64);
        if want == 0.0 {
            assert_eq!(
                g.is_sign_negative(),
                want.is_sign_negative(),
                "atan2({y:e}, {x:e}) = {g:e}, C99 {want:e}"
            );
        }
    }
    require_dtype!(f16);
    let pairs16 = crate::sweep::pairs::<f16>(100_000, &specials, 12);
    run2::<f16>(
        Check2 {
            name: "atan2",
            bound: 1.0,
            device: &|a, b| a.atan2(b),
            reference: &reference,
        },
        &pairs16,
    );
}
