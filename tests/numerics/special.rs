//! Special values of the f32 and f16 elementwise functions against NumPy's golden tables
//! (`golden/special.py` made `golden/special_tables.rs`): every unary function over ±0,
//! ±1, ±0.5, ±2, ±3, ±2.5, ±inf, NaN, the extremes, the smallest subnormal and 2^31 - 128
//! (f16: 2048), pow and division over every pair of them, sign, and clip with NaN bounds.
//!
//! Where NumPy's result is a special value (NaN, an infinity, a zero, ±1) or one of the
//! operands, the result must have the same bits (any NaN for NaN, the sign of zeros
//! included). The other entries are ordinary rounded values (`exp(1)`, `pow(2.5, 0.5)`),
//! checked within the sweep's bound (f32 4 ulps, f16 1 ulp) of NumPy's value. On an adapter
//! that flushes subnormals, an entry with a subnormal operand or result may also be the
//! value for a zero operand or a zero (`flushes`).

use gpuarray::{f16, Array, Real, Result};

use crate::common::dev;
use crate::sweep::{flushes, ulp_error, Binary, Exact, Swept};

#[allow(dead_code)]
mod golden {
    include!("golden/special_tables.rs");
}

/// A float type whose bits the tables hold.
trait Bits: Swept {
    fn from_bits32(b: u32) -> Self;
    fn to_bits32(self) -> u32;
    const BOUND: f64;
}
impl Bits for f32 {
    fn from_bits32(b: u32) -> f32 {
        f32::from_bits(b)
    }
    fn to_bits32(self) -> u32 {
        self.to_bits()
    }
    const BOUND: f64 = 4.0;
}
impl Bits for f16 {
    fn from_bits32(b: u32) -> f16 {
        f16::from_bits(b as u16)
    }
    fn to_bits32(self) -> u32 {
        self.to_bits() as u32
    }
    const BOUND: f64 = 1.0;
}

fn subnormal<T: Swept>(v: f64) -> bool {
    v != 0.0 && v.abs() < T::MIN_NORMAL
}

/// Whether `got` matches NumPy's `want` for `operands`, as the module says; `bound` for the
/// ordinary entries.
fn matches<T: Bits>(got: T, want: T, operands: &[T], bound: f64, flush: bool) -> bool {
    let (g, w) = (got.to_f64(), want.to_f64());
    if w.is_nan() {
        return g.is_nan();
    }
    if got.to_bits32() == want.to_bits32() {
        return true;
    }
    let ops: Vec<f64> = operands.iter().map(|o| o.to_f64()).collect();
    if flush && (subnormal::<T>(w) || ops.iter().any(|&o| subnormal::<T>(o))) {
        return g == 0.0 || ulp_error::<T>(g, Exact::from(w)) <= bound;
    }
    let special = w == 0.0 || w.is_infinite() || w.abs() == 1.0;
    let operand = operands.iter().any(|o| o.to_bits32() == want.to_bits32());
    !special && !operand && ulp_error::<T>(g, Exact::from(w)) <= bound
}

/// Runs a unary method over a table and lists the mismatches.
fn unary<T: Bits>(
    name: &str,
    table: &[(u32, u32)],
    f: &dyn Fn(&Array<T>) -> Result<Array<T>>,
) -> Vec<String> {
    let xs: Vec<T> = table.iter().map(|r| T::from_bits32(r.0)).collect();
    let got = f(&dev().from_slice(&xs, [xs.len()]).unwrap())
        .unwrap()
        .to_vec()
        .unwrap();
    let flush = flushes::<T>();
    let mut bad = Vec::new();
    for ((x, g), r) in xs.iter().zip(got).zip(table) {
        let want = T::from_bits32(r.1);
        if !matches(g, want, &[*x], T::BOUND, flush) {
            bad.push(format!(
                "{name}({:e}) = {:e} (bits {:x}), NumPy {:e} (bits {:x})",
                x.to_f64(),
                g.to_f64(),
                g.to_bits32(),
                want.to_f64(),
                r.1
            ));
        }
    }
    bad
}

/// Runs a binary method over a table of pairs and lists the mismatches.
fn binary<T: Bits>(name: &str, table: &[(u32, u32, u32)], f: Binary<T>) -> Vec<String> {
    let xs: Vec<T> = table.iter().map(|r| T::from_bits32(r.0)).collect();
    let ys: Vec<T> = table.iter().map(|r| T::from_bits32(r.1)).collect();
    let d = dev();
    let a = d.from_slice(&xs, [xs.len()]).unwrap();
    let b = d.from_slice(&ys, [ys.len()]).unwrap();
    let got = f(&a, &b).unwrap().to_vec().unwrap();
    let flush = flushes::<T>();
    let mut bad = Vec::new();
    for (((x, y), g), r) in xs.iter().zip(&ys).zip(got).zip(table) {
        let want = T::from_bits32(r.2);
        if !matches(g, want, &[*x, *y], T::BOUND, flush) {
            bad.push(format!(
                "{name}({:e}, {:e}) = {:e} (bits {:x}), NumPy {:e} (bits {:x})",
                x.to_f64(),
                y.to_f64(),
                g.to_f64(),
                g.to_bits32(),
                want.to_f64(),
                r.2
            ));
        }
    }
    bad
}

#[track_caller]
fn assert_none(bad: Vec<String>) {
    assert!(
        bad.is_empty(),
        "{} mismatches:\n{}",
        bad.len(),
        bad.join("\n")
    );
}

macro_rules! unary_tables {
    ($( $test:ident, $t:ty, $name:literal, $table:ident, $f:expr; )*) => {$(
        #[test]
        fn $test() {
            require_dtype!($t);
            assert_none(unary::<$t>($name, golden::$table, &$f));
        }
    )*};
}

unary_tables! {
    exp_f32_special_values, f32, "exp", EXP_F32, |a| a.exp();
    exp2_f32_special_values, f32, "exp2", EXP2_F32, |a| a.exp2();
    log_f32_special_values, f32, "log", LOG_F32, |a| a.log();
    log2_f32_special_values, f32, "log2", LOG2_F32, |a| a.log2();
    log1p_f32_special_values, f32, "log1p", LOG1P_F32, |a| a.log1p();
    expm1_f32_special_values, f32, "expm1", EXPM1_F32, |a| a.expm1();
    sqrt_f32_special_values, f32, "sqrt", SQRT_F32, |a| a.sqrt();
    rsqrt_f32_special_values, f32, "rsqrt", RSQRT_F32, |a| a.rsqrt();
    sin_f32_special_values, f32, "sin", SIN_F32, |a| a.sin();
    cos_f32_special_values, f32, "cos", COS_F32, |a| a.cos();
    tan_f32_special_values, f32, "tan", TAN_F32, |a| a.tan();
    tanh_f32_special_values_nan_stays_nan, f32, "tanh", TANH_F32, |a| a.tanh();
    sigmoid_f32_special_values, f32, "sigmoid", SIGMOID_F32, |a| a.sigmoid();
    sign_f32_of_nan_is_nan, f32, "sign", SIGN_F32, |a| a.sign();
    exp_f16_special_values, f16, "exp", EXP_F16, |a| a.exp();
    exp2_f16_special_values, f16, "exp2", EXP2_F16, |a| a.exp2();
    log_f16_special_values, f16, "log", LOG_F16, |a| a.log();
    log2_f16_special_values, f16, "log2", LOG2_F16, |a| a.log2();
    log1p_f16_special_values, f16, "log1p", LOG1P_F16, |a| a.log1p();
    expm1_f16_special_values, f16, "expm1", EXPM1_F16, |a| a.expm1();
    sqrt_f16_special_values, f16, "sqrt", SQRT_F16, |a| a.sqrt();
    rsqrt_f16_special_values, f16, "rsqrt", RSQRT_F16, |a| a.rsqrt();
    sin_f16_special_values, f16, "sin", SIN_F16, |a| a.sin();
    cos_f16_special_values, f16, "cos", COS_F16, |a| a.cos();
    tan_f16_special_values, f16, "tan", TAN_F16, |a| a.tan();
    tanh_f16_special_values_nan_stays_nan, f16, "tanh", TANH_F16, |a| a.tanh();
    sigmoid_f16_special_values, f16, "sigmoid", SIGMOID_F16, |a| a.sigmoid();
    sign_f16_of_nan_is_nan, f16, "sign", SIGN_F16, |a| a.sign();
}

/// C99's whole table for pow (finding 2: NaN^7 was 0; finding 4: pow(1, NaN), pow(-1, inf),
/// pow(-inf, 3.5), pow(-0, -1), pow(3.4e38, 1)), both array operands and scalar forms.
#[test]
fn pow_f32_special_value_table() {
    assert_none(binary::<f32>("pow", golden::POWER_F32, &|a, b| a.pow(b)));
}

#[test]
fn pow_f16_special_value_table() {
    require_dtype!(f16);
    assert_none(binary::<f16>("pow", golden::POWER_F16, &|a, b| a.pow(b)));
}

/// The scalar forms (`pow_scalar`, the issue's `pow_scalar(NaN, 7.0)`) take the same path.
#[test]
fn pow_scalar_of_nan_is_nan_and_nan_to_the_zero_is_one() {
    let x = dev().from_slice(&[f32::NAN, 1.0, -0.0], [3]).unwrap();
    let r = x.pow_scalar(7.0).unwrap().to_vec().unwrap();
    assert!(r[0].is_nan(), "{r:?}");
    assert_eq!(r[1], 1.0);
    assert_eq!(r[2].to_bits(), (-0.0f32).to_bits());
    let r = x.pow_scalar(0.0).unwrap().to_vec().unwrap();
    assert_eq!(r, vec![1.0, 1.0, 1.0]);
    let r = x.pow_scalar(f32::NAN).unwrap().to_vec().unwrap();
    assert!(r[0].is_nan() && r[1] == 1.0 && r[2].is_nan(), "{r:?}");
}

/// Division by every pair of special values, the H100's extreme quotients among them
/// (`inf / -3.4e38` is -inf, `-3.4e38 / -3.4e38` is 1, `2147483520 / -3.4e38` is -6.3e-30).
#[test]
fn div_f32_special_value_table() {
    assert_none(binary::<f32>("divide", golden::DIVIDE_F32, &|a, b| {
        a.div(b)
    }));
}

#[test]
fn div_f16_special_value_table() {
    require_dtype!(f16);
    assert_none(binary::<f16>("divide", golden::DIVIDE_F16, &|a, b| {
        a.div(b)
    }));
}

/// clip with a NaN bound gives NaN (NumPy's minimum(maximum(x, lo), hi)); NaN stays NaN.
fn clip<T: Bits + Real>(table: &[(u32, u32, u32, u32)]) -> Vec<String> {
    let mut bad = Vec::new();
    for r in table {
        let (lo, hi, x) = (
            T::from_bits32(r.0),
            T::from_bits32(r.1),
            T::from_bits32(r.2),
        );
        let got = dev()
            .from_slice(&[x], [1])
            .unwrap()
            .clip(lo, hi)
            .unwrap()
            .to_vec()
            .unwrap()[0];
        let want = T::from_bits32(r.3);
        if !matches(got, want, &[x, lo, hi], 0.0, flushes::<T>()) {
            bad.push(format!(
                "clip({:e}, {:e}, {:e}) = {:e}, NumPy {:e}",
                x.to_f64(),
                lo.to_f64(),
                hi.to_f64(),
                got.to_f64(),
                want.to_f64()
            ));
        }
    }
    bad
}

#[test]
fn clip_f32_with_nan_bounds_is_nan() {
    assert_none(clip::<f32>(golden::CLIP_F32));
}

#[test]
fn clip_f16_with_nan_bounds_is_nan() {
    require_dtype!(f16);
    assert_none(clip::<f16>(golden::CLIP_F16));
}
