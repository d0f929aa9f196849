//! Binary, comparison, unary and cast checks (every dtype), called by the generated tests.

use super::*;

// ---------------------------------------------------------------------------------------
// Binary operations and their scalar forms (every dtype)
// ---------------------------------------------------------------------------------------

pub(crate) fn add<T: Ty>() {
    let g = || vals::<T>((-10.0, 10.0), (-1000.0, 1000.0));
    check_binary::<T, T>("add", g(), g(), Array::add, |x, y| x + y, T::ARITH);
}

pub(crate) fn sub<T: Ty>() {
    // u32 results below zero wrap.
    let g = || vals::<T>((-10.0, 10.0), (-1000.0, 1000.0));
    check_binary::<T, T>("sub", g(), g(), Array::sub, |x, y| x - y, T::ARITH);
}

pub(crate) fn mul<T: Ty>() {
    // Integer products up to 4.9e9 overflow and wrap.
    let g = || vals::<T>((-10.0, 10.0), (-70000.0, 70000.0));
    check_binary::<T, T>("mul", g(), g(), Array::mul, |x, y| x * y, T::ARITH);
}

pub(crate) fn div<T: Ty>() {
    let a = vals::<T>((-10.0, 10.0), (-1000.0, 1000.0));
    check_binary::<T, T>(
        "div",
        a,
        divisors::<T>(),
        Array::div,
        div_ref::<T>,
        T::ARITH,
    );
}

pub(crate) fn rem<T: Ty>() {
    let a = vals::<T>((-10.0, 10.0), (-1000.0, 1000.0));
    check_binary::<T, T>(
        "rem",
        a,
        divisors::<T>(),
        Array::rem,
        rem_ref::<T>,
        rem_tol::<T>(),
    );
}

pub(crate) fn pow<T: Ty>() {
    check_binary::<T, T>(
        "pow",
        bases::<T>(),
        exponents::<T>(),
        Array::pow,
        pow_ref::<T>,
        T::TRANS,
    );
}

/// With NaNs (floats) and ties.
pub(crate) fn max_min_vals<T: Ty>() -> Gen {
    with_nan::<T>(
        sprinkle(vals::<T>((-10.0, 10.0), (-1000.0, 1000.0)), 0.1, 1.0),
        0.1,
    )
}

pub(crate) fn maximum<T: Ty>() {
    let g = max_min_vals::<T>;
    check_binary::<T, T>("maximum", g(), g(), Array::maximum, nan_max, T::ARITH);
}

pub(crate) fn minimum<T: Ty>() {
    let g = max_min_vals::<T>;
    check_binary::<T, T>("minimum", g(), g(), Array::minimum, nan_min, T::ARITH);
}

pub(crate) fn add_scalar<T: Ty>() {
    let g = vals::<T>((-10.0, 10.0), (-1000.0, 1000.0));
    let s = [one::<T>(1.75, 7.0), second::<T>()];
    check_scalar::<T, T>(
        "add_scalar",
        g,
        &s,
        Array::add_scalar,
        |x, s| x + s,
        T::ARITH,
    );
}

pub(crate) fn sub_scalar<T: Ty>() {
    let g = vals::<T>((-10.0, 10.0), (-1000.0, 1000.0));
    let s = [one::<T>(1.75, 7.0), second::<T>()];
    check_scalar::<T, T>(
        "sub_scalar",
        g,
        &s,
        Array::sub_scalar,
        |x, s| x - s,
        T::ARITH,
    );
}

pub(crate) fn rsub_scalar<T: Ty>() {
    let g = vals::<T>((-10.0, 10.0), (-1000.0, 1000.0));
    let s = [one::<T>(1.75, 7.0)];
    check_scalar::<T, T>(
        "rsub_scalar",
        g,
        &s,
        Array::rsub_scalar,
        |x, s| s - x,
        T::ARITH,
    );
}

pub(crate) fn mul_scalar<T: Ty>() {
    let g = vals::<T>((-10.0, 10.0), (-1000.0, 1000.0));
    let s = [one::<T>(1.75, 7.0), second::<T>() * 750.0];
    check_scalar::<T, T>(
        "mul_scalar",
        g,
        &s,
        Array::mul_scalar,
        |x, s| x * s,
        T::ARITH,
    );
}

pub(crate) fn div_scalar<T: Ty>() {
    let g = vals::<T>((-10.0, 10.0), (-1000.0, 1000.0));
    let s = [one::<T>(1.75, 7.0), one::<T>(-3.25, 0.0)];
    check_scalar::<T, T>(
        "div_scalar",
        g,
        &s,
        Array::div_scalar,
        div_ref::<T>,
        T::ARITH,
    );
}

pub(crate) fn rdiv_scalar<T: Ty>() {
    let s = [one::<T>(1.75, 100.0), second::<T>()];
    let f = |x: f64, s: f64| div_ref::<T>(s, x);
    check_scalar::<T, T>(
        "rdiv_scalar",
        divisors::<T>(),
        &s,
        Array::rdiv_scalar,
        f,
        T::ARITH,
    );
}

pub(crate) fn rem_scalar<T: Ty>() {
    let g = vals::<T>((-10.0, 10.0), (-1000.0, 1000.0));
    let s = [one::<T>(1.75, 7.0), one::<T>(-3.25, 0.0)];
    check_scalar::<T, T>(
        "rem_scalar",
        g,
        &s,
        Array::rem_scalar,
        rem_ref::<T>,
        rem_tol::<T>(),
    );
}

pub(crate) fn pow_scalar<T: Ty>() {
    let s = if T::FLOAT {
        vec![2.0, -1.0, 0.5, 3.0, 0.0]
    } else {
        vec![3.0, 0.0, -1.0]
    };
    check_scalar::<T, T>(
        "pow_scalar",
        bases::<T>(),
        &s,
        Array::pow_scalar,
        pow_ref::<T>,
        T::TRANS,
    );
}

pub(crate) fn maximum_scalar<T: Ty>() {
    let g = max_min_vals::<T>();
    let s = [one::<T>(1.75, 7.0)];
    check_scalar::<T, T>(
        "maximum_scalar",
        g,
        &s,
        Array::maximum_scalar,
        nan_max,
        T::ARITH,
    );
}

pub(crate) fn minimum_scalar<T: Ty>() {
    let g = max_min_vals::<T>();
    let s = [one::<T>(1.75, 7.0)];
    check_scalar::<T, T>(
        "minimum_scalar",
        g,
        &s,
        Array::minimum_scalar,
        nan_min,
        T::ARITH,
    );
}

// ---------------------------------------------------------------------------------------
// Comparisons (bool masks) and where_
// ---------------------------------------------------------------------------------------

pub(crate) fn b2f(b: bool) -> f64 {
    b as u32 as f64
}

macro_rules! comparison {
    ($name:ident, $scalar:ident, $op:tt) => {
        pub(crate) fn $name<T: Ty>() {
            check_binary::<T, bool>(
                stringify!($name),
                cmp_vals::<T>(),
                cmp_vals::<T>(),
                Array::$name,
                |x, y| b2f(x $op y),
                (0.0, 0.0),
            );
        }

        pub(crate) fn $scalar<T: Ty>() {
            let s = if T::FLOAT {
                vec![1.0, -2.5, f64::NAN]
            } else {
                vec![1.0, 3.0]
            };
            check_scalar::<T, bool>(
                stringify!($scalar),
                cmp_vals::<T>(),
                &s,
                Array::$scalar,
                |x, s| b2f(x $op s),
                (0.0, 0.0),
            );
        }
    };
}

// IEEE semantics with NaN operands, as Rust and NumPy: every comparison but `ne` is false,
// `ne` is true.
comparison!(eq, eq_scalar, ==);
comparison!(ne, ne_scalar, !=);
comparison!(lt, lt_scalar, <);
comparison!(le, le_scalar, <=);
comparison!(gt, gt_scalar, >);
comparison!(ge, ge_scalar, >=);

/// `Array::where_` over contiguous sizes, offsets, broadcasting of each operand and views.
pub(crate) fn where_<T: Ty>() {
    let dev = dev();
    require_dtype!(T);
    let mut rng = Rng::new(seed("where") ^ seed(T::NAME));
    let gx = with_nan::<T>(vals::<T>((-10.0, 10.0), (-1000.0, 1000.0)), 0.05);
    let gm = |rng: &mut Rng, n: usize| -> Vec<f64> {
        (0..n)
            .map(|_| [0.0, 1.0, 2.0, 7.0, 0.0][(rng.next_u64() % 5) as usize])
            .collect()
    };
    let run = |what: &str,
               m: &Array<bool>,
               x: &Array<T>,
               y: &Array<T>,
               hm: &Host,
               hx: &Host,
               hy: &Host| {
        let shape = broadcast_shape(&broadcast_shape(&hx.shape, &hy.shape), &hm.shape);
        let (hm, hx, hy) = (
            hm.broadcast_to(&shape),
            hx.broadcast_to(&shape),
            hy.broadcast_to(&shape),
        );
        let expected: Vec<f64> = (0..hm.len())
            .map(|i| {
                if hm.data[i] != 0.0 {
                    hx.data[i]
                } else {
                    hy.data[i]
                }
            })
            .collect();
        let out = Array::where_(m, x, y).unwrap();
        check::<T>(
            &format!("where {} {what}", T::NAME),
            &out,
            &shape,
            &expected,
            (0.0, 0.0),
        );
    };
    for n in SIZES {
        let (m, hm) = upload::<bool>(dev, &gm(&mut rng, n), &[n]);
        let (x, hx) = upload::<T>(dev, &gx(&mut rng, n), &[n]);
        let (y, hy) = upload::<T>(dev, &gx(&mut rng, n), &[n]);
        let h = |v| Host::new(&[n], v);
        run(&format!("n={n}"), &m, &x, &y, &h(hm), &h(hx), &h(hy));
    }
    // Offsets: vec4 path (all multiples of 4) and scalar path.
    for (n, om, ox, oy) in [(300, 4, 8, 0), (300, 1, 2, 3), (1030, 4, 4, 4)] {
        let (m, hm) = upload::<bool>(dev, &gm(&mut rng, n + om), &[n + om]);
        let (x, hx) = upload::<T>(dev, &gx(&mut rng, n + ox), &[n + ox]);
        let (y, hy) = upload::<T>(dev, &gx(&mut rng, n + oy), &[n + oy]);
        run(
            &format!("offsets {om},{ox},{oy} n={n}"),
            &m.slice(om..).unwrap(),
            &x.slice(ox..).unwrap(),
            &y.slice(oy..).unwrap(),
            &Host::new(&[n], hm[om..].to_vec()),
            &Host::new(&[n], hx[ox..].to_vec()),
            &Host::new(&[n], hy[oy..].to_vec()),
        );
    }
    // Broadcasting: each operand in turn is the small one, and 0-d operands.
    let shapes: [[&[usize]; 3]; 5] = [
        [&[3, 1], &[4], &[]],
        [&[], &[3, 4], &[4]],
        [&[3, 4], &[3, 1], &[1, 4]],
        [&[2, 1, 4], &[3, 1], &[1]],
        [&[], &[], &[]],
    ];
    for [sm, sx, sy] in shapes {
        let n = |s: &[usize]| s.iter().product::<usize>();
        let (m, hm) = upload::<bool>(dev, &gm(&mut rng, n(sm)), sm);
        let (x, hx) = upload::<T>(dev, &gx(&mut rng, n(sx)), sx);
        let (y, hy) = upload::<T>(dev, &gx(&mut rng, n(sy)), sy);
        run(
            &format!("broadcast {sm:?} {sx:?} {sy:?}"),
            &m,
            &x,
            &y,
            &Host::new(sm, hm),
            &Host::new(sx, hx),
            &Host::new(sy, hy),
        );
    }
    // Views: a transposed mask, a stepped x, a broadcast y.
    let (m, hm) = upload::<bool>(dev, &gm(&mut rng, 20), &[5, 4]);
    let (x, hx) = upload::<T>(dev, &gx(&mut rng, 40), &[8, 5]);
    let (y, hy) = upload::<T>(dev, &gx(&mut rng, 5), &[5]);
    run(
        "views",
        &m.t(),
        &x.slice(Slice::from(1..).step(2)).unwrap(),
        &y.broadcast_to([4, 5]).unwrap(),
        &Host::new(&[5, 4], hm).t(),
        &Host::new(&[8, 5], hx).slice(&[(1, 8, 2)]),
        &Host::new(&[5], hy).broadcast_to(&[4, 5]),
    );
}

pub(crate) fn clip<T: Ty>() {
    let g = with_nan::<T>(vals::<T>((-5.0, 5.0), (-5.0, 5.0)), 0.1);
    let (lo, hi) = if T::SIGNED { (-2.0, 3.0) } else { (1.0, 3.0) };
    let (tlo, thi) = (T::from_f64(lo), T::from_f64(hi));
    let f = move |x: f64| if x.is_nan() { x } else { x.clamp(lo, hi) };
    check_unary::<T, T>("clip", g, |a| a.clip(tlo, thi), f, (0.0, 0.0));
}

// ---------------------------------------------------------------------------------------
// Unary operations
// ---------------------------------------------------------------------------------------

/// Values for neg/abs/sign: with zeros.
pub(crate) fn signed_vals<T: Ty>() -> Gen {
    sprinkle(vals::<T>((-10.0, 10.0), (-1000.0, 1000.0)), 0.1, 0.0)
}

pub(crate) fn neg<T: Ty + Signed>() {
    check_unary::<T, T>("neg", signed_vals::<T>(), Array::neg, |x| -x, T::ARITH);
}

pub(crate) fn abs<T: Ty + Signed>() {
    check_unary::<T, T>("abs", signed_vals::<T>(), Array::abs, f64::abs, T::ARITH);
}

pub(crate) fn sign<T: Ty + Signed>() {
    let f = |x: f64| {
        if x > 0.0 {
            1.0
        } else if x < 0.0 {
            -1.0
        } else {
            0.0
        }
    };
    check_unary::<T, T>("sign", signed_vals::<T>(), Array::sign, f, T::ARITH);
}

/// `-&a` is `neg`.
pub(crate) fn neg_operator<T: Ty + Signed>() {
    check_unary::<T, T>("-&a", signed_vals::<T>(), |a| Ok(-a), |x| -x, T::ARITH);
}

pub(crate) fn sqrt<T: Ty + Float>() {
    let g = sprinkle(range::<T>(0.0, 100.0), 0.05, 0.0);
    check_unary::<T, T>("sqrt", g, Array::sqrt, f64::sqrt, T::TRANS);
}

pub(crate) fn rsqrt<T: Ty + Float>() {
    let f = |x: f64| 1.0 / x.sqrt();
    check_unary::<T, T>("rsqrt", range::<T>(0.01, 100.0), Array::rsqrt, f, T::TRANS);
}

/// Values with many exact halves (for round's ties) and integers.
pub(crate) fn halves<T: Ty>() -> Gen {
    Rc::new(|rng, n| {
        (0..n)
            .map(|_| match rng.next_u64() % 3 {
                0 => rng.int(-50, 50) + 0.5,
                1 => rng.int(-50, 50),
                _ => rng.uniform(-100.0, 100.0),
            })
            .collect()
    })
}

pub(crate) fn floor<T: Ty + Float>() {
    check_unary::<T, T>("floor", halves::<T>(), Array::floor, f64::floor, (0.0, 0.0));
}

pub(crate) fn ceil<T: Ty + Float>() {
    check_unary::<T, T>("ceil", halves::<T>(), Array::ceil, f64::ceil, (0.0, 0.0));
}

pub(crate) fn round<T: Ty + Float>() {
    // The gate first: the special values below upload `T` directly.
    require_dtype!(T);
    let f = f64::round_ties_even;
    check_unary::<T, T>("round", halves::<T>(), Array::round, f, (0.0, 0.0));
    // Special values, ties of both parities and signs, the sign of zero results, and
    // values past the last fraction bit (f64's round is arithmetic: float_math.wgsl).
    let special = [
        f64::NAN,
        f64::INFINITY,
        f64::NEG_INFINITY,
        -0.0,
        0.0,
        -0.3,
        0.3,
        0.5,
        -0.5,
        1.5,
        2.5,
        -2.5,
        -17.5,
        4097.5,
        1e30,
        -1e30,
    ];
    let host_in: Vec<T> = special.iter().map(|&v| T::from_f64(v)).collect();
    let x = dev().from_slice(&host_in, [special.len()]).unwrap();
    let got = x.round().unwrap().to_vec().unwrap();
    for ((&v, &h), g) in special.iter().zip(&host_in).zip(got) {
        let want = f(h.to_f64());
        let g = g.to_f64();
        let same = (want.is_nan() && g.is_nan())
            || (want == g && want.is_sign_negative() == g.is_sign_negative());
        assert!(same, "{} round({v}) gave {g}, expected {want}", T::NAME);
    }
}

/// A range for f32 and a narrower one for f16 (whose range ends at 65504).
pub(crate) fn trans<T: Ty>(f32r: (f64, f64), f16r: (f64, f64)) -> Gen {
    let (lo, hi) = if is_f16::<T>() { f16r } else { f32r };
    range::<T>(lo, hi)
}

/// `g` with a fraction of tiny values of both signs (for log1p and expm1 near 0).
pub(crate) fn with_tiny<T: Ty>(g: Gen) -> Gen {
    let (lo, hi) = if is_f16::<T>() {
        (1e-3, 1e-2)
    } else {
        (1e-6, 1e-3)
    };
    Rc::new(move |rng, n| {
        let mut v = g(rng, n);
        for x in &mut v {
            if rng.bool(0.3) {
                let m = rng.uniform(lo, hi);
                *x = if rng.bool(0.5) { -m } else { m };
            }
        }
        v
    })
}

pub(crate) fn exp<T: Ty + Float>() {
    let g = trans::<T>((-20.0, 20.0), (-8.0, 8.0));
    check_unary::<T, T>("exp", g, Array::exp, f64::exp, T::TRANS);
}

pub(crate) fn exp2<T: Ty + Float>() {
    let g = trans::<T>((-30.0, 30.0), (-12.0, 12.0));
    check_unary::<T, T>("exp2", g, Array::exp2, f64::exp2, T::TRANS);
}

pub(crate) fn log<T: Ty + Float>() {
    let g = trans::<T>((1e-3, 1e4), (1e-2, 1e3));
    check_unary::<T, T>("log", g, Array::log, f64::ln, T::TRANS);
}

pub(crate) fn log2<T: Ty + Float>() {
    let g = trans::<T>((1e-3, 1e4), (1e-2, 1e3));
    check_unary::<T, T>("log2", g, Array::log2, f64::log2, T::TRANS);
}

pub(crate) fn log1p<T: Ty + Float>() {
    let g = with_tiny::<T>(range::<T>(-0.99, 10.0));
    check_unary::<T, T>("log1p", g, Array::log1p, f64::ln_1p, T::TRANS);
}

pub(crate) fn expm1<T: Ty + Float>() {
    let g = with_tiny::<T>(range::<T>(-5.0, 5.0));
    check_unary::<T, T>("expm1", g, Array::expm1, f64::exp_m1, T::TRANS);
}

pub(crate) fn sin<T: Ty + Float>() {
    check_unary::<T, T>(
        "sin",
        range::<T>(-10.0, 10.0),
        Array::sin,
        f64::sin,
        T::TRANS,
    );
}

pub(crate) fn cos<T: Ty + Float>() {
    check_unary::<T, T>(
        "cos",
        range::<T>(-10.0, 10.0),
        Array::cos,
        f64::cos,
        T::TRANS,
    );
}

pub(crate) fn tan<T: Ty + Float>() {
    check_unary::<T, T>("tan", range::<T>(-1.4, 1.4), Array::tan, f64::tan, T::TRANS);
}

pub(crate) fn tanh<T: Ty + Float>() {
    check_unary::<T, T>(
        "tanh",
        range::<T>(-20.0, 20.0),
        Array::tanh,
        f64::tanh,
        T::TRANS,
    );
}

pub(crate) fn sigmoid<T: Ty + Float>() {
    let f = |x: f64| 1.0 / (1.0 + (-x).exp());
    check_unary::<T, T>(
        "sigmoid",
        range::<T>(-20.0, 20.0),
        Array::sigmoid,
        f,
        T::TRANS,
    );
}

// ---------------------------------------------------------------------------------------
// Casts between every pair of dtypes
// ---------------------------------------------------------------------------------------

/// Source values representable (up to rounding) in every destination: floats with
/// fractions (negative ones saturate to 0 in u32, as Rust's `as`), integers within f16's
/// range.
pub(crate) fn cast_source<S: Ty>() -> Gen {
    if S::FLOAT {
        sprinkle(range::<S>(-1000.0, 1000.0), 0.1, 17.0)
    } else {
        range::<S>(-30000.0, 60000.0)
    }
}

pub(crate) fn cast<S: Ty, D: Ty>() {
    require_dtype!(D);
    // Integer to integer reinterprets (wraps) as Rust's `as`; every other pair converts as
    // Rust's `as`: rounding to the nearest float, floats truncated toward zero and saturated.
    let f = |x: f64| {
        if !S::FLOAT && !D::FLOAT {
            D::wrap(x)
        } else {
            D::from_f64(x).to_f64()
        }
    };
    let name = format!("cast to {}", D::NAME);
    check_unary::<S, D>(&name, cast_source::<S>(), Array::cast::<D>, f, D::ARITH);
}
