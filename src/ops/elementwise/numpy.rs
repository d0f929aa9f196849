//! The operations added for NumPy's API (issue 18): their WGSL expressions per dtype, in
//! the form of `expr`'s table. [`NpUnary`] and [`NpBinary`] sit inside `Unary::Np` and
//! `Binary::Np`, so the scalar forms, the layouts and the launches are the family's own.
//! The float functions are in shaders/shared/f32_numpy.wgsl and f64_numpy.wgsl.

use crate::dtype::DType;

/// One-operand operations (masks: `u32` 0 or 1).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub(crate) enum NpUnary {
    Asinh,
    Acosh,
    Atanh,
    Erfc,
    Square,
    Reciprocal,
    Trunc,
    Degrees,
    Radians,
    /// NaN, +inf and -inf replaced by `P.sc[0]`, `P.sc[1]`, `P.sc[2]`.
    NanToNum,
    IsNan,
    IsInf,
    IsFinite,
    LogicalNot,
    BitNot,
    Sinc,
    SignBit,
    /// modf's fractional part (x - trunc(x) with x's sign, ±0 for ±inf).
    ModfFrac,
    Spacing,
    /// frexp's mantissa and exponent (as a float of the input type).
    FrexpMant,
    FrexpExp,
}

/// Two-operand operations.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub(crate) enum NpBinary {
    Hypot,
    Copysign,
    Fmax,
    Fmin,
    BitAnd,
    BitOr,
    BitXor,
    Shl,
    Shr,
    LogicalAnd,
    LogicalOr,
    LogicalXor,
    /// `|a - b| <= P.sc[1] + P.sc[0] |b|`; NaNs equal where `P.sc[2]` is non-zero.
    IsClose,
    LogAddExp,
    LogAddExp2,
    Heaviside,
    Gcd,
    Lcm,
    NextAfter,
    /// `x 2^y`, `y` an integer held in the float dtype (`Array::ldexp` casts it).
    Ldexp,
}

#[cfg(test)]
pub(crate) const NP_UNARY: [NpUnary; 21] = [
    NpUnary::Asinh,
    NpUnary::Acosh,
    NpUnary::Atanh,
    NpUnary::Erfc,
    NpUnary::Square,
    NpUnary::Reciprocal,
    NpUnary::Trunc,
    NpUnary::Degrees,
    NpUnary::Radians,
    NpUnary::NanToNum,
    NpUnary::IsNan,
    NpUnary::IsInf,
    NpUnary::IsFinite,
    NpUnary::LogicalNot,
    NpUnary::BitNot,
    NpUnary::Sinc,
    NpUnary::SignBit,
    NpUnary::ModfFrac,
    NpUnary::Spacing,
    NpUnary::FrexpMant,
    NpUnary::FrexpExp,
];

#[cfg(test)]
pub(crate) const NP_BINARY: [NpBinary; 20] = [
    NpBinary::Hypot,
    NpBinary::Copysign,
    NpBinary::Fmax,
    NpBinary::Fmin,
    NpBinary::BitAnd,
    NpBinary::BitOr,
    NpBinary::BitXor,
    NpBinary::Shl,
    NpBinary::Shr,
    NpBinary::LogicalAnd,
    NpBinary::LogicalOr,
    NpBinary::LogicalXor,
    NpBinary::IsClose,
    NpBinary::LogAddExp,
    NpBinary::LogAddExp2,
    NpBinary::Heaviside,
    NpBinary::Gcd,
    NpBinary::Lcm,
    NpBinary::NextAfter,
    NpBinary::Ldexp,
];

/// A 0/1 mask of the boolean WGSL expression `b`.
fn mask(b: &str) -> String {
    format!("select(U(0u), U(1u), {b})")
}

/// Whether `x` is non-zero, NumPy's truth of a number (NaN is true), for dtype `d`: f32 and
/// f16 from the bits (a flushing adapter compares a subnormal equal to 0).
pub(crate) fn truth(d: DType, x: &str) -> String {
    match d {
        DType::F32 | DType::F16 => format!("!is_zero_(TW({x}))"),
        _ => format!("!({x} == T(0))"),
    }
}

/// The WGSL of a float function of the f32 library (f16 widened) or of the f64 one.
fn float_fn(d: DType, f32_name: &str, f64_name: &str, args: &[&str]) -> Option<String> {
    match d {
        DType::F64 => Some(format!("{f64_name}({})", args.join(", "))),
        DType::F32 | DType::F16 => {
            let wide: Vec<String> = args.iter().map(|a| format!("TW({a})")).collect();
            Some(format!("T({f32_name}({}))", wide.join(", ")))
        }
        _ => None,
    }
}

/// Whether `x` is finite: f32 and f16 from the bits, f64 by comparison (NaN compares false).
fn finite(d: DType, x: &str) -> String {
    match d {
        DType::F32 | DType::F16 => format!("(abits_(TW({x})) < M(0x7f800000u))"),
        _ => format!("(abs({x}) <= T(1.7976931348623157e308))"),
    }
}

impl NpUnary {
    pub(super) fn name(self) -> &'static str {
        match self {
            NpUnary::Asinh => "asinh",
            NpUnary::Acosh => "acosh",
            NpUnary::Atanh => "atanh",
            NpUnary::Erfc => "erfc",
            NpUnary::Square => "square",
            NpUnary::Reciprocal => "reciprocal",
            NpUnary::Trunc => "trunc",
            NpUnary::Degrees => "degrees",
            NpUnary::Radians => "radians",
            NpUnary::NanToNum => "nan_to_num",
            NpUnary::IsNan => "isnan",
            NpUnary::IsInf => "isinf",
            NpUnary::IsFinite => "isfinite",
            NpUnary::LogicalNot => "logical_not",
            NpUnary::BitNot => "bitwise_not",
            NpUnary::Sinc => "sinc",
            NpUnary::SignBit => "signbit",
            NpUnary::ModfFrac => "modf_frac",
            NpUnary::Spacing => "spacing",
            NpUnary::FrexpMant => "frexp_mantissa",
            NpUnary::FrexpExp => "frexp_exponent",
        }
    }

    /// Whether the result is a `u32` mask rather than the input dtype.
    #[cfg(test)]
    pub(crate) fn is_mask(self) -> bool {
        matches!(
            self,
            NpUnary::IsNan
                | NpUnary::IsInf
                | NpUnary::IsFinite
                | NpUnary::LogicalNot
                | NpUnary::SignBit
        )
    }

    /// The WGSL expression over `a` for dtype `d` and whether it vectorises.
    pub(super) fn expr(self, d: DType) -> Option<(String, bool)> {
        let float = d.is_float();
        let e = match self {
            NpUnary::Asinh => float_fn(d, "asinh_32_", "asinh64_", &["a"])?,
            NpUnary::Acosh => float_fn(d, "acosh_32_", "acosh64_", &["a"])?,
            NpUnary::Atanh => float_fn(d, "atanh_32_", "atanh64_", &["a"])?,
            NpUnary::Erfc => float_fn(d, "erfc_32_", "erfc64_", &["a"])?,
            NpUnary::Square => "a * a".to_string(),
            NpUnary::Reciprocal => return super::expr::Binary::Div.expr(d, "T(1)", "a"),
            NpUnary::Trunc if float => "trunc(a)".to_string(),
            // One rounded product, as NumPy (f16 in f32, rounded once).
            NpUnary::Degrees if float => "T(TW(a) * TW(57.29577951308232))".to_string(),
            NpUnary::Radians if float => "T(TW(a) * TW(0.017453292519943295))".to_string(),
            NpUnary::NanToNum if float => {
                "T(select(select(select(TW(a), TW(P.sc[1]), TW(a) > max_finite_()), \
                 TW(P.sc[2]), TW(a) < -max_finite_()), TW(P.sc[0]), isnan_(a)))"
                    .to_string()
            }
            NpUnary::NanToNum => "a".to_string(),
            NpUnary::Trunc | NpUnary::Degrees | NpUnary::Radians => return None,
            NpUnary::IsNan if float => mask(&nan_bits(d, "a")),
            NpUnary::IsInf if float => {
                mask(&format!("!{} & !({})", finite(d, "a"), nan_bits(d, "a")))
            }
            NpUnary::IsNan | NpUnary::IsInf => "U(0u)".to_string(),
            NpUnary::IsFinite if float => mask(&finite(d, "a")),
            NpUnary::IsFinite => "U(1u)".to_string(),
            NpUnary::LogicalNot => mask(&format!("!({})", truth(d, "a"))),
            NpUnary::BitNot if !float => "~a".to_string(),
            NpUnary::BitNot => return None,
            NpUnary::Sinc => float_fn(d, "sinc_32_", "sinc64_", &["a"])?,
            NpUnary::ModfFrac => float_fn(d, "modf_frac_32_", "modf_frac64_", &["a"])?,
            // f64 from the bits (shaders/shared/f64_bits.wgsl), scalar only.
            NpUnary::Spacing | NpUnary::FrexpMant | NpUnary::FrexpExp if d == DType::F64 => {
                let f = match self {
                    NpUnary::Spacing => "spacing_b64_",
                    NpUnary::FrexpMant => "frexp_mant_b64_",
                    _ => "frexp_exp_b64_",
                };
                return Some((format!("{f}(a)"), false));
            }
            NpUnary::Spacing if d == DType::F32 => "spacing_32_(a)".to_string(),
            NpUnary::Spacing if d == DType::F16 => "T(spacing_16_(TW(a)))".to_string(),
            NpUnary::Spacing => return None,
            NpUnary::FrexpMant => float_fn(d, "frexp_mant_32_", "", &["a"])?,
            NpUnary::FrexpExp => float_fn(d, "frexp_exp_32_", "", &["a"])?,
            NpUnary::SignBit => mask(&match d {
                DType::F64 => "signbit64_(a)".to_string(),
                DType::F32 | DType::F16 => "sign_bit_(TW(a))".to_string(),
                DType::I32 | DType::I64 => "a < T(0)".to_string(),
                _ => "a != a".to_string(),
            }),
        };
        Some((e, true))
    }
}

/// Whether `a` is NaN: f32 and f16 from the bits (a compiler may fold `x != x`), f64 by
/// `!(a == a)` (naga's comparisons are ordered).
fn nan_bits(d: DType, x: &str) -> String {
    match d {
        DType::F32 | DType::F16 => format!("is_nan_(TW({x}))"),
        _ => format!("!({x} == {x})"),
    }
}

impl NpBinary {
    pub(super) fn name(self) -> &'static str {
        match self {
            NpBinary::Hypot => "hypot",
            NpBinary::Copysign => "copysign",
            NpBinary::Fmax => "fmax",
            NpBinary::Fmin => "fmin",
            NpBinary::BitAnd => "bitwise_and",
            NpBinary::BitOr => "bitwise_or",
            NpBinary::BitXor => "bitwise_xor",
            NpBinary::Shl => "left_shift",
            NpBinary::Shr => "right_shift",
            NpBinary::LogicalAnd => "logical_and",
            NpBinary::LogicalOr => "logical_or",
            NpBinary::LogicalXor => "logical_xor",
            NpBinary::IsClose => "isclose",
            NpBinary::LogAddExp => "logaddexp",
            NpBinary::LogAddExp2 => "logaddexp2",
            NpBinary::Heaviside => "heaviside",
            NpBinary::Gcd => "gcd",
            NpBinary::Lcm => "lcm",
            NpBinary::NextAfter => "nextafter",
            NpBinary::Ldexp => "ldexp",
        }
    }

    /// Whether the result is a `u32` mask rather than the input dtype.
    #[cfg(test)]
    pub(crate) fn is_mask(self) -> bool {
        matches!(
            self,
            NpBinary::LogicalAnd | NpBinary::LogicalOr | NpBinary::LogicalXor | NpBinary::IsClose
        )
    }

    /// The WGSL expression of `x op y` for dtype `d` and whether it vectorises.
    pub(super) fn expr(self, d: DType, x: &str, y: &str) -> Option<(String, bool)> {
        let float = d.is_float();
        let int = |e: String| (!float).then_some(e);
        // A shift count as u32 (a negative i32 count is huge, as NumPy's cast to size_t).
        let count = format!("bitcast<M>({y})");
        let e = match self {
            NpBinary::Hypot => float_fn(d, "hypot_32_", "hypot64_", &[x, y])?,
            NpBinary::Copysign if d == DType::F64 => format!("copysign64_({x}, {y})"),
            NpBinary::Copysign if float => format!("T(copysign_(TW({x}), TW({y})))"),
            NpBinary::Copysign => return None,
            NpBinary::Fmax if float => {
                format!("select(select(max({x}, {y}), {x}, isnan_({y})), {y}, isnan_({x}))")
            }
            NpBinary::Fmin if float => {
                format!("select(select(min({x}, {y}), {x}, isnan_({y})), {y}, isnan_({x}))")
            }
            NpBinary::Fmax => format!("max({x}, {y})"),
            NpBinary::Fmin => format!("min({x}, {y})"),
            NpBinary::BitAnd => int(format!("{x} & {y}"))?,
            NpBinary::BitOr => int(format!("{x} | {y}"))?,
            NpBinary::BitXor => int(format!("{x} ^ {y}"))?,
            // Shifts are written for 32-bit words (counts masked to 31): not for i64/u64
            // (Unsupported until 64-bit forms exist), nor bool.
            NpBinary::Shl | NpBinary::Shr if d.is_int64() || d == DType::Bool => return None,
            // NumPy: a count past the width shifts everything out.
            NpBinary::Shl => int(format!(
                "select({x} << ({count} & M(31u)), T(0), {count} >= M(32u))"
            ))?,
            NpBinary::Shr => {
                let fill = if d == DType::I32 {
                    format!("{x} >> M(31u)")
                } else {
                    "T(0)".to_string()
                };
                int(format!(
                    "select({x} >> ({count} & M(31u)), {fill}, {count} >= M(32u))"
                ))?
            }
            NpBinary::LogicalAnd => mask(&format!("({}) & ({})", truth(d, x), truth(d, y))),
            NpBinary::LogicalOr => mask(&format!("({}) | ({})", truth(d, x), truth(d, y))),
            NpBinary::LogicalXor => mask(&format!("({}) != ({})", truth(d, x), truth(d, y))),
            NpBinary::IsClose if float => mask(&isclose(d, x, y)),
            NpBinary::IsClose => return None,
            NpBinary::LogAddExp => float_fn(d, "logaddexp_32_", "logaddexp64_", &[x, y])?,
            NpBinary::LogAddExp2 => float_fn(d, "logaddexp2_32_", "logaddexp2_64_", &[x, y])?,
            NpBinary::Heaviside if float => format!(
                "select(select(select(T(0), T(1), {x} > T(0)), {y}, {x} == T(0)), {x}, isnan_({x}))"
            ),
            NpBinary::Gcd | NpBinary::Lcm if !matches!(d, DType::I32 | DType::U32) => return None,
            NpBinary::Gcd => format!("gcd_int_({x}, {y})"),
            NpBinary::Lcm => format!("lcm_int_({x}, {y})"),
            NpBinary::Heaviside => return None,
            NpBinary::NextAfter => match d {
                DType::F32 => format!("nextafter_32_({x}, {y})"),
                DType::F16 => format!("T(nextafter_16_(TW({x}), TW({y})))"),
                DType::F64 => return Some((format!("nextafter_b64_({x}, {y})"), false)),
                _ => return None,
            },
            // Bit-built in f32; f16 through it, overflowing past f16's range (a float
            // conversion of an out-of-range value is not defined); f64 by products.
            NpBinary::Ldexp => match d {
                DType::F32 => format!("ldexp_32_({x}, {y})"),
                DType::F16 => format!(
                    "T(select(ldexp_32_(TW({x}), TW({y})), TW({x}) * f32_inf_(), \
                     abs(ldexp_32_(TW({x}), TW({y}))) >= TW(65520.0)))"
                ),
                DType::F64 => format!("ldexp64_({x}, {y})"),
                _ => return None,
            },
        };
        Some((e, true))
    }
}

/// NumPy's isclose: finite pairs within `atol + rtol |y|` (computed in TW: f16 in f32),
/// others only when equal (infinities of one sign), NaN pairs when `equal_nan`.
fn isclose(d: DType, x: &str, y: &str) -> String {
    let both_finite = format!("{} & {}", finite(d, x), finite(d, y));
    let near = format!("(abs(TW({x}) - TW({y})) <= TW(P.sc[1]) + TW(P.sc[0]) * abs(TW({y})))");
    let nans = format!(
        "{} & {} & TB(P.sc[2] != SC(0))",
        nan_bits(d, x),
        nan_bits(d, y)
    );
    format!("select({x} == {y}, {near}, {both_finite}) | ({nans})")
}
