//! The operation table of the elementwise family: every one-operand ([`Unary`]) and
//! two-operand ([`Binary`]) operation, one entry each, named as its public method (NumPy's
//! name where NumPy has one), and its WGSL expression over `a` (and `b`) per dtype. The
//! expressions call the helpers of shaders/shared (f32_*, f64_*, float_*, int_*), which
//! `wgsl.rs` imports per dtype; the casts are in `cast.rs`, apart for their length.

use super::cast::cast_expr;
use crate::dtype::DType;

/// Declares an operation enum from rows `Variant => "name"`, its `name()` (the public
/// operation's name, as errors give it) and, for the shader test, the list of its rows.
macro_rules! op_enum {
    (
        $(#[$doc:meta])* $E:ident {
            $( $(#[$m:meta])* $v:ident => $s:literal, )*
        }
        $( $(#[$xm:meta])* $x:ident($t:ty), )*
    ) => {
        $(#[$doc])*
        #[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
        pub(crate) enum $E {
            $( $(#[$m])* $v, )*
            $( $(#[$xm])* $x($t), )*
        }

        impl $E {
            /// Every row of the table (not the wrapped forms), for the shader test.
            #[cfg(test)]
            pub(crate) const ROWS: &'static [$E] = &[$($E::$v),*];

            /// The public operation's name, as errors give it.
            pub(crate) fn name(self) -> &'static str {
                match self {
                    $( $E::$v => $s, )*
                    $( $E::$x(b) => b.name(), )*
                }
            }
        }
    };
}

op_enum! {
    /// One-operand maps (including the scalar forms of binary operations). Masks are `u32`
    /// words of 0 and 1.
    Unary {
        Copy => "contiguous",
        Cast => "cast",
        // Arithmetic.
        Neg => "neg",
        Abs => "abs",
        Sign => "sign",
        Square => "square",
        Reciprocal => "reciprocal",
        /// Clamp to [sc.x, sc.y].
        Clip => "clip",
        // Exponentials, logarithms, roots, the error function.
        Exp => "exp",
        Exp2 => "exp2",
        Expm1 => "expm1",
        Log => "log",
        Log2 => "log2",
        Log10 => "log10",
        Log1p => "log1p",
        Sqrt => "sqrt",
        Rsqrt => "rsqrt",
        Cbrt => "cbrt",
        Sigmoid => "sigmoid",
        Erf => "erf",
        Erfc => "erfc",
        // Trigonometric and hyperbolic.
        Sin => "sin",
        Cos => "cos",
        Tan => "tan",
        Asin => "asin",
        Acos => "acos",
        Atan => "atan",
        Sinh => "sinh",
        Cosh => "cosh",
        Tanh => "tanh",
        Asinh => "asinh",
        Acosh => "acosh",
        Atanh => "atanh",
        Degrees => "degrees",
        Radians => "radians",
        Sinc => "sinc",
        // Rounding.
        Floor => "floor",
        Ceil => "ceil",
        Round => "round",
        Trunc => "trunc",
        /// modf's fractional part (x - trunc(x) with x's sign, ±0 for ±inf).
        ModfFrac => "modf",
        // The floating-point representation.
        SignBit => "signbit",
        Spacing => "spacing",
        /// frexp's mantissa and exponent (as a float of the input type).
        FrexpMant => "frexp",
        FrexpExp => "frexp",
        // Classification and logic (masks).
        /// NaN, +inf and -inf replaced by `P.sc[0]`, `P.sc[1]`, `P.sc[2]`.
        NanToNum => "nan_to_num",
        IsNan => "isnan",
        IsInf => "isinf",
        IsFinite => "isfinite",
        LogicalNot => "logical_not",
        // Bits of integers.
        BitwiseNot => "bitwise_not",
        /// The number of one bits of `|a|` (NumPy 2's `bitwise_count`), in `a`'s type.
        BitwiseCount => "bitwise_count",
    }
    /// `binary(a, sc.x)`.
    Scalar(Binary),
    /// `binary(sc.x, a)`.
    ScalarLeft(Binary),
}

op_enum! {
    /// Two-operand maps.
    Binary {
        // Arithmetic.
        Add => "add",
        Sub => "sub",
        Mul => "mul",
        Div => "div",
        /// The sign of the dividend (C's fmod).
        Rem => "rem",
        /// NumPy's `remainder`: the sign of the divisor.
        Remainder => "remainder",
        FloorDivide => "floor_divide",
        Pow => "pow",
        Maximum => "maximum",
        Minimum => "minimum",
        Fmax => "fmax",
        Fmin => "fmin",
        Heaviside => "heaviside",
        // Exponentials and logarithms.
        LogAddExp => "logaddexp",
        LogAddExp2 => "logaddexp2",
        // Trigonometric.
        Atan2 => "atan2",
        Hypot => "hypot",
        // The floating-point representation.
        Copysign => "copysign",
        NextAfter => "nextafter",
        /// `x 2^y`, `y` an integer held in the float dtype (`Array::ldexp` casts it).
        Ldexp => "ldexp",
        // Comparisons and logic (masks).
        Eq => "eq",
        Ne => "ne",
        Lt => "lt",
        Le => "le",
        Gt => "gt",
        Ge => "ge",
        /// `|a - b| <= P.sc[1] + P.sc[0] |b|`; NaNs equal where `P.sc[2]` is non-zero.
        IsClose => "isclose",
        LogicalAnd => "logical_and",
        LogicalOr => "logical_or",
        LogicalXor => "logical_xor",
        // Bits of integers.
        BitwiseAnd => "bitwise_and",
        BitwiseOr => "bitwise_or",
        BitwiseXor => "bitwise_xor",
        LeftShift => "left_shift",
        RightShift => "right_shift",
        Gcd => "gcd",
        Lcm => "lcm",
    }
}

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

/// Whether `x` is NaN: f32 and f16 from the bits (a compiler may fold `x != x`), f64 by
/// `!(x == x)` (naga's comparisons are ordered).
fn nan_bits(d: DType, x: &str) -> String {
    match d {
        DType::F32 | DType::F16 => format!("is_nan_(TW({x}))"),
        _ => format!("!({x} == {x})"),
    }
}

impl Unary {
    /// Whether the result is a `u32` mask rather than the input dtype.
    #[cfg(test)]
    pub(crate) fn gives_mask(self) -> bool {
        match self {
            Unary::Scalar(b) | Unary::ScalarLeft(b) => b.gives_mask(),
            _ => matches!(
                self,
                Unary::IsNan | Unary::IsInf | Unary::IsFinite | Unary::LogicalNot | Unary::SignBit
            ),
        }
    }

    /// The f64 function of the f64 library computing this operation in software (Vulkan
    /// defines no f64 transcendentals), if it has one.
    fn f64_function(self) -> Option<&'static str> {
        Some(match self {
            Unary::Exp => "exp64_",
            Unary::Exp2 => "exp2_64_",
            Unary::Log => "log64_",
            Unary::Log2 => "log2_64_",
            Unary::Log10 => "log10_64_",
            Unary::Log1p => "log1p64_",
            Unary::Expm1 => "expm1_64_",
            Unary::Sqrt => "sqrt64_",
            Unary::Rsqrt => "rsqrt64_",
            Unary::Sin => "sin64_",
            Unary::Cos => "cos64_",
            Unary::Tan if !f64_tan_seeded() => "tan_q64_",
            Unary::Tan => "tan64_",
            Unary::Sinh => "sinh64_",
            Unary::Cosh => "cosh64_",
            Unary::Tanh => "tanh64_",
            Unary::Sigmoid => "sigmoid64_",
            Unary::Asin => "asin64_",
            Unary::Acos => "acos64_",
            Unary::Atan => "atan64_",
            Unary::Cbrt => "cbrt64_",
            Unary::Erf => "erf64_",
            Unary::Asinh => "asinh64_",
            Unary::Acosh => "acosh64_",
            Unary::Atanh => "atanh64_",
            Unary::Erfc => "erfc64_",
            Unary::Sinc => "sinc64_",
            Unary::ModfFrac => "modf_frac64_",
            _ => return None,
        })
    }

    /// The f32 function computing this operation for f32 and f16 (widened to f32 and
    /// rounded once), if it has one.
    fn f32_function(self) -> Option<&'static str> {
        Some(match self {
            Unary::Exp => "exp_",
            Unary::Exp2 => "exp2_",
            Unary::Log => "log_",
            Unary::Log2 => "log2_",
            Unary::Log1p => "log1p_",
            Unary::Expm1 => "expm1_",
            Unary::Sqrt => "sqrt_",
            Unary::Sin => "sin_",
            Unary::Cos => "cos_",
            Unary::Tan => "tan_",
            Unary::Tanh => "tanh_",
            Unary::Sigmoid => "sigmoid_",
            Unary::Log10 => "log10_32_",
            Unary::Sinh => "sinh_32_",
            Unary::Cosh => "cosh_32_",
            Unary::Asin => "asin_32_",
            Unary::Acos => "acos_32_",
            Unary::Atan => "atan_32_",
            Unary::Cbrt => "cbrt_32_",
            Unary::Erf => "erf_32_",
            Unary::Asinh => "asinh_32_",
            Unary::Acosh => "acosh_32_",
            Unary::Atanh => "atanh_32_",
            Unary::Erfc => "erfc_32_",
            Unary::Sinc => "sinc_32_",
            Unary::ModfFrac => "modf_frac_32_",
            _ => return None,
        })
    }

    /// The WGSL expression for inputs of dtype `d` and whether it vectorises; `None` where
    /// the operation does not exist for `d`.
    pub(crate) fn expr(self, d: DType) -> Option<(String, bool)> {
        // The table knows the real dtypes only (its else-branches are integer paths).
        if !d.is_real() {
            return None;
        }
        match d {
            DType::F64 => {
                if let Some(f) = self.f64_function() {
                    return Some((format!("{f}(a)"), f64_vec()));
                }
            }
            DType::F32 | DType::F16 => {
                if let Some(f) = self.f32_function() {
                    return Some((format!("T({f}(TW(a)))"), true));
                }
            }
            _ if self.f32_function().is_some() => return None,
            _ => {}
        }
        let float = d.is_float();
        let any = |e: &str| Some((e.to_string(), true));
        let signed = !matches!(d, DType::U32 | DType::U64 | DType::Bool);
        let e = match self {
            Unary::Copy => "a".to_string(),
            Unary::Cast => return Some(cast_expr(d, d)),
            Unary::Neg if signed => "-a".to_string(),
            Unary::Abs if signed => "abs(a)".to_string(),
            // f32 from the bits: a flushing adapter's sign() gives 0 for subnormals.
            Unary::Sign if d == DType::F32 => "sign_bits_(a)".to_string(),
            Unary::Sign if float => "select(sign(a), a, isnan_(a))".to_string(),
            Unary::Sign if signed => "sign(a)".to_string(),
            Unary::Neg | Unary::Abs | Unary::Sign => return None,
            Unary::Square => "a * a".to_string(),
            Unary::Reciprocal => return Binary::Div.expr(d, "T(1)", "a"),
            // NumPy's minimum(maximum(a, lo), hi): a NaN operand or bound gives NaN.
            Unary::Clip if float => "min_(max_(a, T(arg(0u))), T(arg(1u)))".to_string(),
            Unary::Clip if d == DType::Bool => return None,
            Unary::Clip => "min(max(a, T(arg(0u))), T(arg(1u)))".to_string(),
            Unary::Rsqrt if float => "T(div_(TW(1.0), sqrt_(TW(a))))".to_string(),
            Unary::Floor if float => "floor(a)".to_string(),
            Unary::Ceil if float => "ceil(a)".to_string(),
            // f64 in arithmetic: lavapipe's f64 round() rounds halves up (float_math.wgsl).
            Unary::Round if d == DType::F64 => "round_even_(a)".to_string(),
            Unary::Round if float => "round(a)".to_string(),
            // The sign set from the input's (-0.656 gives -0, as NumPy): a driver's f64
            // trunc gave +0 (the H200's, 2026-11-28).
            Unary::Trunc if d == DType::F64 => "copysign64_(trunc(a), a)".to_string(),
            Unary::Trunc if float => "T(copysign_(trunc(TW(a)), TW(a)))".to_string(),
            // One rounded product by the constant rounded to the type, as NumPy
            // (`x * (180.0f / NPY_PIf)`; f16 through f32, rounded once).
            Unary::Degrees if d == DType::F64 => "a * T(57.29577951308232)".to_string(),
            Unary::Degrees if float => "T(TW(a) * TW(57.2957763671875))".to_string(),
            Unary::Radians if d == DType::F64 => "a * T(0.017453292519943295)".to_string(),
            Unary::Radians if float => "T(TW(a) * TW(0.01745329238474369))".to_string(),
            Unary::NanToNum if float => {
                "T(select(select(select(TW(a), TW(P.sc[1]), TW(a) > max_finite_()), \
                 TW(P.sc[2]), TW(a) < -max_finite_()), TW(P.sc[0]), isnan_(a)))"
                    .to_string()
            }
            Unary::NanToNum => "a".to_string(),
            Unary::IsNan if float => mask(&nan_bits(d, "a")),
            Unary::IsInf if float => {
                mask(&format!("!{} & !({})", finite(d, "a"), nan_bits(d, "a")))
            }
            Unary::IsNan | Unary::IsInf => "U(0u)".to_string(),
            Unary::IsFinite if float => mask(&finite(d, "a")),
            Unary::IsFinite => "U(1u)".to_string(),
            // Bools are words of 0 and 1.
            Unary::LogicalNot if d == DType::Bool => "a ^ T(1u)".to_string(),
            Unary::LogicalNot => mask(&format!("!({})", truth(d, "a"))),
            // Bools are words of 0 and 1: NumPy's invert of a bool is its logical not.
            Unary::BitwiseNot if d == DType::Bool => "a ^ T(1u)".to_string(),
            Unary::BitwiseNot if !float => "~a".to_string(),
            // NumPy counts the bits of the magnitude (|i32::MIN| = 2^31: one bit, as
            // WGSL's wrapping abs gives). Bools are words of 0 and 1, their own count.
            Unary::BitwiseCount if d == DType::Bool => "a".to_string(),
            Unary::BitwiseCount if signed && !float => "countOneBits(abs(a))".to_string(),
            Unary::BitwiseCount if !float => "countOneBits(a)".to_string(),
            // f64 from the bits (shaders/shared/f64_bits.wgsl), scalar only.
            Unary::Spacing | Unary::FrexpMant | Unary::FrexpExp if d == DType::F64 => {
                let f = match self {
                    Unary::Spacing => "spacing_b64_",
                    Unary::FrexpMant => "frexp_mant_b64_",
                    _ => "frexp_exp_b64_",
                };
                return Some((format!("{f}(a)"), false));
            }
            Unary::Spacing if d == DType::F32 => "spacing_32_(a)".to_string(),
            Unary::Spacing if d == DType::F16 => "T(spacing_16_(TW(a)))".to_string(),
            Unary::FrexpMant if float => "T(frexp_mant_32_(TW(a)))".to_string(),
            Unary::FrexpExp if float => "T(frexp_exp_32_(TW(a)))".to_string(),
            // f16 through f32, whose conversion may drop a NaN's sign (the H200's did,
            // 2026-11-28): `Array::signbit` reads f16's own bits (float_bits.rs); this row
            // serves fused expressions.
            Unary::SignBit => mask(&match d {
                DType::F64 => "signbit64_(a)".to_string(),
                DType::F32 | DType::F16 => "sign_bit_(TW(a))".to_string(),
                DType::I32 | DType::I64 => "a < T(0)".to_string(),
                _ => "a != a".to_string(),
            }),
            Unary::Scalar(b) => return b.expr(d, "a", "T(arg(0u))"),
            Unary::ScalarLeft(b) => return b.expr(d, "T(arg(0u))", "a"),
            _ => return None,
        };
        any(&e)
    }
}

impl Binary {
    /// Whether the result is a `u32` mask rather than the input dtype.
    #[cfg(test)]
    pub(crate) fn gives_mask(self) -> bool {
        matches!(
            self,
            Binary::Eq
                | Binary::Ne
                | Binary::Lt
                | Binary::Le
                | Binary::Gt
                | Binary::Ge
                | Binary::IsClose
                | Binary::LogicalAnd
                | Binary::LogicalOr
                | Binary::LogicalXor
        )
    }

    /// The WGSL expression of `x op y` for inputs of dtype `d`, and whether it works on
    /// vec4 values; `None` where the operation does not exist for `d`.
    pub(crate) fn expr(self, d: DType, x: &str, y: &str) -> Option<(String, bool)> {
        // The table knows the real dtypes only (its else-branches are integer paths).
        if !d.is_real() {
            return None;
        }
        let float = d.is_float();
        let cmp = |op: &str| mask(&format!("{x} {op} {y}"));
        if d == DType::Bool {
            // Words of 0 and 1: comparisons, maximum (or) and minimum (and) as for u32, the
            // logical and bitwise operations bitwise; no arithmetic (NumPy's bool + bool is
            // an or, a trap for a port, so it is refused).
            let e = match self {
                Binary::LogicalAnd | Binary::BitwiseAnd => format!("{x} & {y}"),
                Binary::LogicalOr | Binary::BitwiseOr => format!("{x} | {y}"),
                Binary::LogicalXor | Binary::BitwiseXor => format!("{x} ^ {y}"),
                Binary::Maximum | Binary::Fmax => format!("max({x}, {y})"),
                Binary::Minimum | Binary::Fmin => format!("min({x}, {y})"),
                Binary::Eq => cmp("=="),
                Binary::Ne => cmp("!="),
                Binary::Lt => cmp("<"),
                Binary::Le => cmp("<="),
                Binary::Gt => cmp(">"),
                Binary::Ge => cmp(">="),
                _ => return None,
            };
            return Some((e, true));
        }
        // A shift count as u32 (a negative i32 count is huge, as NumPy's cast to size_t).
        let count = format!("bitcast<M>({y})");
        let e = match self {
            Binary::Add => format!("{x} + {y}"),
            Binary::Sub => format!("{x} - {y}"),
            Binary::Mul => format!("{x} * {y}"),
            Binary::Div if d == DType::F64 => format!("div64_({x}, {y})"),
            Binary::Div if float => format!("T(div_(TW({x}), TW({y})))"),
            // Integers through int_math.wgsl: no backend's undefined behaviour reached.
            Binary::Div => format!("idiv_({x}, {y})"),
            Binary::Rem if float => format!("T(rem_(TW({x}), TW({y})))"),
            Binary::Rem => format!("irem_({x}, {y})"),
            Binary::Remainder if float => format!("T(mod_(TW({x}), TW({y})))"),
            Binary::Remainder => format!("imod_({x}, {y})"),
            Binary::FloorDivide if float => format!("T(floordiv_(TW({x}), TW({y})))"),
            Binary::FloorDivide => format!("ifloordiv_({x}, {y})"),
            Binary::Pow if d == DType::F64 => format!("pow64_({x}, {y})"),
            Binary::Pow if float => format!("T(pow_(TW({x}), TW({y})))"),
            Binary::Pow => return Some((format!("ipow_({x}, {y})"), false)),
            Binary::Maximum if float => format!("max_({x}, {y})"),
            Binary::Maximum | Binary::Fmax if !float => format!("max({x}, {y})"),
            Binary::Minimum if float => format!("min_({x}, {y})"),
            Binary::Minimum | Binary::Fmin if !float => format!("min({x}, {y})"),
            Binary::Fmax => {
                format!("select(select(max({x}, {y}), {x}, isnan_({y})), {y}, isnan_({x}))")
            }
            Binary::Fmin => {
                format!("select(select(min({x}, {y}), {x}, isnan_({y})), {y}, isnan_({x}))")
            }
            Binary::Heaviside if float => format!(
                "select(select(select(T(0), T(1), {x} > T(0)), {y}, {x} == T(0)), {x}, isnan_({x}))"
            ),
            Binary::LogAddExp => float_fn(d, "logaddexp_32_", "logaddexp64_", &[x, y])?,
            Binary::LogAddExp2 => float_fn(d, "logaddexp2_32_", "logaddexp2_64_", &[x, y])?,
            Binary::Atan2 => float_fn(d, "atan2_32_", "atan2_64_", &[x, y])?,
            Binary::Hypot => float_fn(d, "hypot_32_", "hypot64_", &[x, y])?,
            // f16 through f32, as signbit (`Array::copysign` reads f16's own bits).
            Binary::Copysign => float_fn(d, "copysign_", "copysign64_", &[x, y])?,
            Binary::NextAfter => match d {
                DType::F32 => format!("nextafter_32_({x}, {y})"),
                DType::F16 => format!("T(nextafter_16_(TW({x}), TW({y})))"),
                DType::F64 => return Some((format!("nextafter_b64_({x}, {y})"), false)),
                _ => return None,
            },
            // Bit-built in f32; f16 through it, overflowing past f16's range (a float
            // conversion of an out-of-range value is not defined); f64 by products.
            Binary::Ldexp => match d {
                DType::F32 => format!("ldexp_32_({x}, {y})"),
                DType::F16 => format!(
                    "T(select(ldexp_32_(TW({x}), TW({y})), TW({x}) * f32_inf_(), \
                     abs(ldexp_32_(TW({x}), TW({y}))) >= TW(65520.0)))"
                ),
                DType::F64 => format!("ldexp64_({x}, {y})"),
                _ => return None,
            },
            Binary::Eq => cmp("=="),
            // Not `!=`: naga emits an ordered comparison, false for NaN operands.
            Binary::Ne => mask(&format!("!({x} == {y})")),
            Binary::Lt => cmp("<"),
            Binary::Le => cmp("<="),
            Binary::Gt => cmp(">"),
            Binary::Ge => cmp(">="),
            Binary::IsClose if float => mask(&isclose(d, x, y)),
            Binary::LogicalAnd => mask(&format!("({}) & ({})", truth(d, x), truth(d, y))),
            Binary::LogicalOr => mask(&format!("({}) | ({})", truth(d, x), truth(d, y))),
            Binary::LogicalXor => mask(&format!("({}) != ({})", truth(d, x), truth(d, y))),
            Binary::BitwiseAnd if !float => format!("{x} & {y}"),
            Binary::BitwiseOr if !float => format!("{x} | {y}"),
            Binary::BitwiseXor if !float => format!("{x} ^ {y}"),
            Binary::LeftShift | Binary::RightShift if float => return None,
            // The 64-bit integers, scalar only (the casts of i64 are): counts as u64.
            Binary::LeftShift | Binary::RightShift if d.is_int64() => {
                let count = format!("bitcast<u64>({y})");
                let fill = if self == Binary::RightShift && d == DType::I64 {
                    format!("{x} >> 63u")
                } else {
                    "T(0)".to_string()
                };
                let op = if self == Binary::LeftShift {
                    "<<"
                } else {
                    ">>"
                };
                let e = format!("select({x} {op} u32({count} & 63lu), {fill}, {count} >= 64lu)");
                return Some((e, false));
            }
            // NumPy: a count past the width shifts everything out.
            Binary::LeftShift => {
                format!("select({x} << ({count} & M(31u)), T(0), {count} >= M(32u))")
            }
            Binary::RightShift => {
                let fill = if d == DType::I32 {
                    format!("{x} >> M(31u)")
                } else {
                    "T(0)".to_string()
                };
                format!("select({x} >> ({count} & M(31u)), {fill}, {count} >= M(32u))")
            }
            Binary::Gcd if matches!(d, DType::I32 | DType::U32) => format!("gcd_int_({x}, {y})"),
            Binary::Lcm if matches!(d, DType::I32 | DType::U32) => format!("lcm_int_({x}, {y})"),
            _ => return None,
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

/// The measuring switch `GPUARRAY_F64_TAN_DIV` (read once through `config::switch`): 0
/// divides f64 tan's two kernels by the built-in quotient everywhere; unset or any other
/// value by `fdiv_seeded64_` (shaders/shared/f64_prod_fma.wgsl: an f32 seed, a Newton step
/// and a correction by the residual where the adapter's fma is fused).
fn f64_tan_seeded() -> bool {
    static SEEDED: std::sync::OnceLock<bool> = std::sync::OnceLock::new();
    *SEEDED.get_or_init(|| crate::config::switch("GPUARRAY_F64_TAN_DIV") != Some(0))
}

/// The measuring switch `GPUARRAY_F64_VEC` (read once through `config::switch`): 0 computes
/// the f64 library's functions (sin, exp, pow, ...) one element per invocation on contiguous
/// arrays too, for timing that beside the rule's vec4 values (four elements an invocation:
/// four times the registers, which the rare slow paths' share of them may cost in
/// occupancy); unset or any other value, the rule.
fn f64_vec() -> bool {
    static VEC: std::sync::OnceLock<bool> = std::sync::OnceLock::new();
    *VEC.get_or_init(|| crate::config::switch("GPUARRAY_F64_VEC") != Some(0))
}
