//! The machinery of the numerics tests: input sweeps per float type, the distance in ulps
//! between a device result and a reference given in higher precision, and the check that
//! runs one function over a sweep, asserts its bound and reports its maximum error.

#![allow(dead_code)]

use std::io::Write;
use std::sync::OnceLock;

use gpuarray::{f16, Array, Real, Result};

use crate::common::{dev, Rng};

/// A float element type under test: its rounding from f64, its ulp and its sweep.
pub trait Swept: Real {
    /// Name in reports ("f32").
    const NAME: &'static str;
    /// Smallest positive normal value.
    const MIN_NORMAL: f64;
    /// Largest finite value.
    const MAX: f64;
    /// Bits of precision, the implicit bit included (f16 11, f32 24, f64 53).
    const PRECISION: i32;
    /// The input sweep: at least 100,000 values for f32 and f64, every bit pattern for f16.
    fn inputs() -> Vec<Self>;
}

/// The spacing of values of `T` at magnitude `x`: the ulp of the binade holding `x`, and the
/// smallest subnormal below the normal range.
pub fn ulp_at<T: Swept>(x: f64) -> f64 {
    let ax = x.abs().max(T::MIN_NORMAL);
    let e = ax.log2().floor() as i32;
    // log2 of values just below a power of two may round up; correct the binade.
    let e = if 2f64.powi(e) > ax { e - 1 } else { e };
    // Two factors: 2f64.powi(-1074) is 0 (it divides by the overflowing 2^1074).
    2f64.powi(e) * 2f64.powi(1 - T::PRECISION)
}

/// The reference value of a function: `hi + lo` (a double-double; `lo` is 0 for references
/// computed in f64 for f32 and f16, whose rounding error is far below their ulp).
#[derive(Debug, Clone, Copy)]
pub struct Exact {
    pub hi: f64,
    pub lo: f64,
}

impl From<f64> for Exact {
    fn from(hi: f64) -> Exact {
        Exact { hi, lo: 0.0 }
    }
}

/// The error of `got` in ulps of `T` at the exact value: 0 when both are NaN or both the
/// same infinity, infinite when exactly one is NaN or infinite (unless the exact value
/// rounds to that infinity).
pub fn ulp_error<T: Swept>(got: f64, exact: Exact) -> f64 {
    let e = exact.hi;
    if e.is_nan() || got.is_nan() {
        return if e.is_nan() && got.is_nan() {
            0.0
        } else {
            f64::INFINITY
        };
    }
    if got.is_infinite() {
        let rounded = T::from_f64(e).to_f64();
        return if rounded == got { 0.0 } else { f64::INFINITY };
    }
    if e.is_infinite() {
        return f64::INFINITY;
    }
    (((got - e) - exact.lo) / ulp_at::<T>(e)).abs()
}

/// Whether the device flushes subnormal values of `T` to zero in arithmetic (Vulkan allows
/// it): the product of the smallest subnormal times 3, computed on the device, is 0.
pub fn flushes<T: Swept>() -> bool {
    let tiny = T::from_f64(T::MIN_NORMAL / 2f64.powi(T::PRECISION - 1));
    let a = dev().from_slice(&[tiny], [1]).unwrap();
    let three = T::from_f64(3.0);
    a.mul_scalar(three).unwrap().to_vec().unwrap()[0].to_f64() == 0.0
}

/// One function's check: its name, the bound in ulps, and which inputs it skips (none by
/// default).
pub struct Check<'a, T: Swept> {
    pub name: &'a str,
    pub bound: f64,
    /// Inputs left out of the bound (still computed): the domain where a documented
    /// difference applies. Counted in the report.
    pub skip: &'a dyn Fn(f64) -> bool,
    pub device: &'a dyn Fn(&Array<T>) -> Result<Array<T>>,
    pub reference: &'a dyn Fn(f64) -> Exact,
}

/// The measured maximum error of one check.
#[derive(Debug, Clone)]
pub struct Measured {
    pub max_ulp: f64,
    pub worst_input: f64,
    pub worst_got: f64,
    pub worst_exact: f64,
    pub n: usize,
}

/// Runs `check` over `T`'s sweep, appends the measured maximum to the report and asserts
/// the bound. Where the device flushes subnormals, an input that is subnormal may be read
/// as a zero of its sign and a result whose exact value is below the normal range may be a
/// zero; both are accepted (and said in the report).
#[track_caller]
pub fn run<T: Swept>(check: Check<T>) -> Measured {
    run_on(check, &T::inputs())
}

/// The error allowed by flushing: the input read as a zero of its sign, or a subnormal
/// exact result written as a zero.
fn flushed_error<T: Swept>(x: f64, got: f64, exact: Exact, f: &dyn Fn(f64) -> Exact) -> f64 {
    let mut err = f64::INFINITY;
    if x != 0.0 && x.abs() < T::MIN_NORMAL {
        err = ulp_error::<T>(got, f(0.0f64.copysign(x)));
    }
    if exact.hi.abs() < T::MIN_NORMAL && got == 0.0 {
        err = 0.0;
    }
    err
}

/// The device's results for `xs`, as f64.
pub fn device_values<T: Swept>(xs: &[T], f: &dyn Fn(&Array<T>) -> Result<Array<T>>) -> Vec<f64> {
    let a = dev().from_slice(xs, [xs.len()]).unwrap();
    f(&a)
        .unwrap()
        .to_vec()
        .unwrap()
        .iter()
        .map(|v| v.to_f64())
        .collect()
}

/// Appends `| function | dtype | max ulp | worst input | inputs |` to the file named by
/// `GPUARRAY_NUMERICS_REPORT`, with the adapter's name.
fn report<T: Swept>(name: &str, m: &Measured, flush: bool) {
    let Some(path) = std::env::var_os("GPUARRAY_NUMERICS_REPORT") else {
        return;
    };
    let adapter = dev().info().name.clone();
    let line = format!(
        "| {} | {} | {:.2} | {:e} | {} | {}{} |\n",
        name,
        T::NAME,
        m.max_ulp,
        m.worst_input,
        m.n,
        adapter,
        if flush { " (flushes subnormals)" } else { "" }
    );
    let mut f = std::fs::OpenOptions::new()
        .create(true)
        .append(true)
        .open(path)
        .unwrap();
    f.write_all(line.as_bytes()).unwrap();
}

/// Magnitudes log-spaced over every binade from the smallest normal to the largest finite
/// (`per_sign` of each sign, mantissas random), integers and halves around 0, and the
/// special values: ±0, ±inf, NaN, the extremes, subnormals, and 1 ± an ulp.
fn sweep_f64(per_sign: usize, min_normal: f64, max: f64, precision: i32, seed: u64) -> Vec<f64> {
    let mut rng = Rng::new(seed);
    let (lo, hi) = (min_normal.log2(), max.log2());
    let mut v = Vec::with_capacity(2 * per_sign + 10_000);
    for i in 0..per_sign {
        let e = lo + (hi - lo) * (i as f64 + rng.unit()) / per_sign as f64;
        let x = 2f64.powf(e).min(max);
        v.push(x);
        v.push(-x);
    }
    for k in -2000..=2000 {
        v.push(k as f64);
        v.push(k as f64 + 0.5);
    }
    let eps = 2f64.powi(1 - precision);
    let tiny = min_normal * eps;
    for x in [
        0.0,
        f64::INFINITY,
        f64::NAN,
        max,
        min_normal,
        tiny,
        3.0 * tiny,
        min_normal / 2.0,
        1.0 + eps,
        1.0 - eps / 2.0,
    ] {
        v.push(x);
        v.push(-x);
    }
    v
}

impl Swept for f32 {
    const NAME: &'static str = "f32";
    const MIN_NORMAL: f64 = f32::MIN_POSITIVE as f64;
    const MAX: f64 = f32::MAX as f64;
    const PRECISION: i32 = 24;
    fn inputs() -> Vec<f32> {
        static V: OnceLock<Vec<f32>> = OnceLock::new();
        V.get_or_init(|| {
            let v = sweep_f64(
                50_000,
                Self::MIN_NORMAL,
                <Self as Swept>::MAX,
                Self::PRECISION,
                32,
            );
            v.into_iter().map(|x| x as f32).collect()
        })
        .clone()
    }
}

impl Swept for f64 {
    const NAME: &'static str = "f64";
    const MIN_NORMAL: f64 = f64::MIN_POSITIVE;
    const MAX: f64 = f64::MAX;
    const PRECISION: i32 = 53;
    fn inputs() -> Vec<f64> {
        static V: OnceLock<Vec<f64>> = OnceLock::new();
        V.get_or_init(|| {
            sweep_f64(
                50_000,
                Self::MIN_NORMAL,
                <Self as Swept>::MAX,
                Self::PRECISION,
                64,
            )
        })
        .clone()
    }
}

impl Swept for f16 {
    const NAME: &'static str = "f16";
    const MIN_NORMAL: f64 = 6.103_515_625e-5;
    const MAX: f64 = 65504.0;
    const PRECISION: i32 = 11;
    fn inputs() -> Vec<f16> {
        (0..=u16::MAX).map(f16::from_bits).collect()
    }
}

#[test]
fn ulp_distance_is_measured_in_the_binade_of_the_exact_value() {
    assert_eq!(ulp_at::<f32>(1.0), f32::EPSILON as f64);
    assert_eq!(ulp_at::<f32>(1.0 - 1e-9), f32::EPSILON as f64 / 2.0);
    assert_eq!(ulp_at::<f32>(1e-40), 2f64.powi(-149));
    assert_eq!(ulp_at::<f64>(2.0), 2.0 * f64::EPSILON);
    assert_eq!(ulp_at::<f64>(0.0), 5e-324);
    assert_eq!(ulp_at::<f16>(1.0), 2f64.powi(-10));
    assert_eq!(ulp_error::<f32>(1.0 + f32::EPSILON as f64, 1.0.into()), 1.0);
    assert_eq!(ulp_error::<f32>(f64::NAN, f64::NAN.into()), 0.0);
    assert!(ulp_error::<f32>(f64::NAN, 1.0.into()).is_infinite());
    assert!(ulp_error::<f32>(1.0, f64::NAN.into()).is_infinite());
    // 3.5e38 rounds to f32's infinity, so inf is the right f32 answer.
    assert_eq!(ulp_error::<f32>(f64::INFINITY, 3.5e38.into()), 0.0);
    assert!(ulp_error::<f32>(f64::INFINITY, 1e38.into()).is_infinite());
    let lo = Exact {
        hi: 1.0,
        lo: f64::EPSILON / 4.0,
    };
    assert_eq!(ulp_error::<f64>(1.0, lo), 0.25);
}

#[test]
fn sweeps_hold_every_kind_of_input() {
    let v = f32::inputs();
    assert!(v.len() >= 100_000, "{}", v.len());
    for want in [
        0.0f32,
        -0.0,
        f32::INFINITY,
        f32::NEG_INFINITY,
        f32::MAX,
        -f32::MAX,
        1e-45,
        0.5,
        -1999.5,
    ] {
        assert!(
            v.iter().any(|x| x.to_bits() == want.to_bits()),
            "{want:e} missing"
        );
    }
    assert!(v.iter().any(|x| x.is_nan()));
    assert!(f64::inputs().len() >= 100_000);
    assert_eq!(f16::inputs().len(), 65_536);
    // Every binade of f32's normal range holds inputs of both signs.
    for e in -126..128 {
        let lo = 2f32.powi(e);
        assert!(v.iter().any(|&x| x >= lo && x < 2.0 * lo), "binade 2^{e}");
        assert!(
            v.iter().any(|&x| x <= -lo && x > -2.0 * lo),
            "binade -2^{e}"
        );
    }
}

/// Runs `check` over the inputs `xs` (a sweep of hard cases beside `T::inputs()`), as `run`.
#[track_caller]
pub fn run_on<T: Swept>(check: Check<T>, xs: &[T]) -> Measured {
    let got = device_values(xs, check.device);
    let flush = flushes::<T>();
    let mut m = Measured {
        max_ulp: 0.0,
        worst_input: 0.0,
        worst_got: 0.0,
        worst_exact: 0.0,
        n: 0,
    };
    for (x, g) in xs.iter().map(|x| x.to_f64()).zip(got) {
        if (check.skip)(x) {
            continue;
        }
        m.n += 1;
        let exact = (check.reference)(x);
        let mut err = ulp_error::<T>(g, exact);
        if flush && err > check.bound {
            err = err.min(flushed_error::<T>(x, g, exact, check.reference));
        }
        if err > m.max_ulp || (err.is_nan() && !m.max_ulp.is_nan()) {
            m = Measured {
                max_ulp: err,
                worst_input: x,
                worst_got: g,
                worst_exact: exact.hi,
                n: m.n,
            };
        }
    }
    report::<T>(check.name, &m, flush);
    assert!(
        m.max_ulp <= check.bound,
        "{}({}): {} ulps at x = {:e} (got {:e}, exact {:e}); bound {}",
        check.name,
        T::NAME,
        m.max_ulp,
        m.worst_input,
        m.worst_got,
        m.worst_exact,
        check.bound
    );
    m
}

/// A two-operand method on the device (`|a, b| a.pow(b)`).
pub type Binary<'a, T> = &'a dyn Fn(&Array<T>, &Array<T>) -> Result<Array<T>>;

/// A two-operand function's check (division, pow): as [`Check`], over pairs.
pub struct Check2<'a, T: Swept> {
    pub name: &'a str,
    pub bound: f64,
    pub device: Binary<'a, T>,
    pub reference: &'a dyn Fn(f64, f64) -> Exact,
}

/// `n` random pairs of `T::inputs()`, then every pair of `specials`.
pub fn pairs<T: Swept>(n: usize, specials: &[f64], seed: u64) -> Vec<(T, T)> {
    let xs = T::inputs();
    let mut rng = Rng::new(seed);
    let mut v: Vec<(T, T)> = (0..n)
        .map(|_| {
            let i = (rng.unit() * xs.len() as f64) as usize % xs.len();
            let j = (rng.unit() * xs.len() as f64) as usize % xs.len();
            (xs[i], xs[j])
        })
        .collect();
    for &a in specials {
        for &b in specials {
            v.push((T::from_f64(a), T::from_f64(b)));
        }
    }
    v
}

/// Runs `check` over `pairs` as [`run`] does over a sweep: the error of each result, an
/// operand that is subnormal on an adapter that flushes may be read as a zero of its sign
/// (and a subnormal exact result written as a zero). Appends `name` with the worst pair to
/// the report and asserts the bound.
#[track_caller]
pub fn run2<T: Swept>(check: Check2<T>, pairs: &[(T, T)]) -> (f64, f64, f64) {
    let dev = dev();
    let xs: Vec<T> = pairs.iter().map(|p| p.0).collect();
    let ys: Vec<T> = pairs.iter().map(|p| p.1).collect();
    let a = dev.from_slice(&xs, [xs.len()]).unwrap();
    let b = dev.from_slice(&ys, [ys.len()]).unwrap();
    let got = (check.device)(&a, &b).unwrap().to_vec().unwrap();
    let flush = flushes::<T>();
    let sub = |v: f64| v != 0.0 && v.abs() < T::MIN_NORMAL;
    let (mut worst, mut wx, mut wy, mut wg) = (0.0f64, 0.0, 0.0, 0.0);
    for ((&x, &y), g) in xs.iter().zip(&ys).zip(&got) {
        let (x, y, g) = (x.to_f64(), y.to_f64(), g.to_f64());
        let exact = (check.reference)(x, y);
        let mut err = ulp_error::<T>(g, exact);
        if flush && err > check.bound {
            for (fx, fy) in [
                (0.0f64.copysign(x), y),
                (x, 0.0f64.copysign(y)),
                (0.0f64.copysign(x), 0.0f64.copysign(y)),
            ] {
                if (fx != x && sub(x)) || (fy != y && sub(y)) {
                    err = err.min(ulp_error::<T>(g, (check.reference)(fx, fy)));
                }
            }
            if exact.hi.abs() < T::MIN_NORMAL && g == 0.0 {
                err = 0.0;
            }
        }
        if err > worst || (err.is_nan() && !worst.is_nan()) {
            (worst, wx, wy, wg) = (err, x, y, g);
        }
    }
    if let Some(path) = std::env::var_os("GPUARRAY_NUMERICS_REPORT") {
        let line = format!(
            "| {} | {} | {:.2} | ({:e}, {:e}) | {} | {}{} |\n",
            check.name,
            T::NAME,
            worst,
            wx,
            wy,
            pairs.len(),
            dev.info().name,
            if flush { " (flushes subnormals)" } else { "" }
        );
        let mut f = std::fs::OpenOptions::new()
            .create(true)
            .append(true)
            .open(path)
            .unwrap();
        f.write_all(line.as_bytes()).unwrap();
    }
    assert!(
        worst <= check.bound,
        "{}({}): {} ulps at ({:e}, {:e}) (got {:e}, exact {:e}); bound {}",
        check.name,
        T::NAME,
        worst,
        wx,
        wy,
        wg,
        (check.reference)(wx, wy).hi,
        check.bound
    );
    (worst, wx, wy)
}
