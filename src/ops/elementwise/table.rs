//! WGSL generation for the elementwise family: the operation table (each [`Unary`] and
//! [`Binary`] operation as a WGSL expression over `a` and `b`, per dtype; the casts are in
//! `cast.rs`), and the [`Spec`] of one variant of shaders/elementwise.wgsl (types aliased
//! per dtype, scalar or vec4, the operation's `op1`/`op2`/`op3`). [`all_specs`] lists every
//! variant for the shader validation test.
use super::cast::cast_expr;
use super::extra::{F32_MORE, F64_BITS, F64_MORE, INT_MORE};
use super::numpy::{NpBinary, NpUnary};
use crate::dtype::DType;
use crate::kernel::source::{Spec, FLOAT_MATH, INT_MATH};

const SRC: &str = include_str!("../../../shaders/elementwise.wgsl");
/// `strided_offsets`, included by this family and by the user kernels' shader
/// (shaders/elementwise_kernel.wgsl), both of which declare the `NDIM` override it reads.
pub(crate) const STRIDED_OFFSETS: &str = include_str!("../../../shaders/shared/strided.wgsl");
/// The f32 math of f32 and f16 inputs (division, roots, exponentials, logarithms, pow, tanh,
/// sigmoid) and their sin/cos/tan, computed without the adapter's approximate built-ins.
pub(crate) const F32_MATH: &str = include_str!("../../../shaders/shared/f32_math.wgsl");
const F32_TRIG: &str = include_str!("../../../shaders/shared/f32_trig.wgsl");
/// f64 math in software (exp, log, pow, ..., division and square root refined with fma),
/// included in f64 variants only.
pub(crate) const F64_MATH: &str = include_str!("../../../shaders/shared/f64_math.wgsl");
const F64_TRIG: &str = include_str!("../../../shaders/shared/f64_trig.wgsl");
/// The f32 forms of the functions added with the f64 library (log10, sinh, ..., erf).
const F32_EXTRA: &str = include_str!("../../../shaders/shared/f32_extra.wgsl");
/// The conversions of the 64-bit integers to f32, included in their variants only.
const INT64: &str = include_str!("../../../shaders/shared/int64.wgsl");
/// The NumPy functions of issue 18 (hypot, asinh, ..., erfc), f32 and f64.
const F32_NUMPY: &str = include_str!("../../../shaders/shared/f32_numpy.wgsl");
const F64_NUMPY: &str = include_str!("../../../shaders/shared/f64_numpy.wgsl");

/// One-operand maps (including the scalar forms of binary operations).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub(crate) enum Unary {
    Copy,
    Cast,
    /// Logical not of bools.
    Not,
    Neg,
    Abs,
    Sign,
    Exp,
    Exp2,
    Log,
    Log2,
    Log1p,
    Expm1,
    Sqrt,
    Rsqrt,
    Sin,
    Cos,
    Tan,
    Tanh,
    Sigmoid,
    Log10,
    Sinh,
    Cosh,
    Asin,
    Acos,
    Atan,
    Cbrt,
    Erf,
    Floor,
    Ceil,
    Round,
    /// Clamp to [sc.x, sc.y].
    Clip,
    /// `binary(a, sc.x)`.
    Scalar(Binary),
    /// `binary(sc.x, a)`.
    ScalarLeft(Binary),
    /// The operations added for NumPy's API (`numpy.rs`).
    Np(NpUnary),
}

/// Two-operand maps.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub(crate) enum Binary {
    Add,
    Sub,
    Mul,
    Div,
    Rem,
    /// NumPy's `remainder`: the sign of the divisor.
    Mod,
    /// NumPy's `floor_divide`.
    FloorDiv,
    Pow,
    Atan2,
    Maximum,
    Minimum,
    Eq,
    Ne,
    Lt,
    Le,
    Gt,
    Ge,
    /// Logical and, or, xor of bools (words of 0 and 1).
    And,
    Or,
    Xor,
    /// The operations added for NumPy's API (`numpy.rs`).
    Np(NpBinary),
}

#[cfg(test)]
const UNARY: [Unary; 30] = [
    Unary::Copy,
    Unary::Not,
    Unary::Neg,
    Unary::Abs,
    Unary::Sign,
    Unary::Exp,
    Unary::Exp2,
    Unary::Log,
    Unary::Log2,
    Unary::Log1p,
    Unary::Expm1,
    Unary::Sqrt,
    Unary::Rsqrt,
    Unary::Sin,
    Unary::Cos,
    Unary::Tan,
    Unary::Tanh,
    Unary::Sigmoid,
    Unary::Log10,
    Unary::Sinh,
    Unary::Cosh,
    Unary::Asin,
    Unary::Acos,
    Unary::Atan,
    Unary::Cbrt,
    Unary::Erf,
    Unary::Floor,
    Unary::Ceil,
    Unary::Round,
    Unary::Clip,
];

#[cfg(test)]
const BINARY: [Binary; 20] = [
    Binary::Add,
    Binary::Sub,
    Binary::Mul,
    Binary::Div,
    Binary::Rem,
    Binary::Mod,
    Binary::FloorDiv,
    Binary::Pow,
    Binary::Atan2,
    Binary::Maximum,
    Binary::Minimum,
    Binary::Eq,
    Binary::Ne,
    Binary::Lt,
    Binary::Le,
    Binary::Gt,
    Binary::Ge,
    Binary::And,
    Binary::Or,
    Binary::Xor,
];

impl Binary {
    pub(super) fn name(self) -> &'static str {
        match self {
            Binary::Add => "add",
            Binary::Sub => "sub",
            Binary::Mul => "mul",
            Binary::Div => "div",
            Binary::Rem => "rem",
            Binary::Mod => "remainder",
            Binary::FloorDiv => "floor_divide",
            Binary::Pow => "pow",
            Binary::Atan2 => "atan2",
            Binary::Maximum => "maximum",
            Binary::Minimum => "minimum",
            Binary::Eq => "eq",
            Binary::Ne => "ne",
            Binary::Lt => "lt",
            Binary::Le => "le",
            Binary::Gt => "gt",
            Binary::Ge => "ge",
            Binary::And => "logical_and",
            Binary::Or => "logical_or",
            Binary::Xor => "logical_xor",
            Binary::Np(b) => b.name(),
        }
    }

    #[cfg(test)]
    fn is_comparison(self) -> bool {
        match self {
            Binary::Np(b) => b.is_mask(),
            _ => matches!(
                self,
                Binary::Eq | Binary::Ne | Binary::Lt | Binary::Le | Binary::Gt | Binary::Ge
            ),
        }
    }

    /// The WGSL expression of `x op y` for inputs of dtype `d`, and whether it works on
    /// vec4 values; `None` where the operation does not exist for `d`.
    pub(crate) fn expr(self, d: DType, x: &str, y: &str) -> Option<(String, bool)> {
        if let Binary::Np(b) = self {
            return b.expr(d, x, y);
        }
        let float = d.is_float();
        let cmp = |op: &str| format!("select(U(0u), U(1u), {x} {op} {y})");
        if d == DType::Bool {
            // Words of 0 and 1: comparisons, maximum (or) and minimum (and) as for u32, the
            // logical operations bitwise; no arithmetic (NumPy's bool + bool is an or, a
            // trap for a port, so it is refused).
            let e = match self {
                Binary::And => format!("{x} & {y}"),
                Binary::Or => format!("{x} | {y}"),
                Binary::Xor => format!("{x} ^ {y}"),
                Binary::Maximum => format!("max({x}, {y})"),
                Binary::Minimum => format!("min({x}, {y})"),
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
        let e = match self {
            Binary::Add => format!("{x} + {y}"),
            Binary::Sub => format!("{x} - {y}"),
            Binary::Mul => format!("{x} * {y}"),
            Binary::Div if d == DType::F64 => format!("div64_({x}, {y})"),
            Binary::Div if float => format!("T(div_(TW({x}), TW({y})))"),
            Binary::Div => format!("select({x} / {y}, T(0), {y} == T(0))"),
            Binary::Rem if float => format!("T(rem_(TW({x}), TW({y})))"),
            Binary::Rem => format!("select({x} % {y}, T(0), {y} == T(0))"),
            Binary::Mod if float => format!("T(mod_(TW({x}), TW({y})))"),
            Binary::Mod => format!("imod_({x}, {y})"),
            Binary::FloorDiv if float => format!("T(floordiv_(TW({x}), TW({y})))"),
            Binary::FloorDiv => format!("ifloordiv_({x}, {y})"),
            Binary::Pow if d == DType::F64 => format!("pow64_({x}, {y})"),
            Binary::Pow if float => format!("T(pow_(TW({x}), TW({y})))"),
            Binary::Pow => return Some((format!("ipow_({x}, {y})"), false)),
            Binary::Atan2 if d == DType::F64 => format!("atan2_64_({x}, {y})"),
            Binary::Atan2 if float => format!("T(atan2_32_(TW({x}), TW({y})))"),
            Binary::Atan2 => return None,
            Binary::Maximum if float => format!("max_({x}, {y})"),
            Binary::Maximum => format!("max({x}, {y})"),
            Binary::Minimum if float => format!("min_({x}, {y})"),
            Binary::Minimum => format!("min({x}, {y})"),
            Binary::Eq => cmp("=="),
            // Not `!=`: naga emits an ordered comparison, false for NaN operands.
            Binary::Ne => format!("select(U(0u), U(1u), !({x} == {y}))"),
            Binary::Lt => cmp("<"),
            Binary::Le => cmp("<="),
            Binary::Gt => cmp(">"),
            Binary::Ge => cmp(">="),
            Binary::And | Binary::Or | Binary::Xor => return None,
            Binary::Np(_) => unreachable!(),
        };
        Some((e, true))
    }
}

impl Unary {
    pub(super) fn name(self) -> &'static str {
        match self {
            Unary::Copy => "contiguous",
            Unary::Cast => "cast",
            Unary::Not => "logical_not",
            Unary::Neg => "neg",
            Unary::Abs => "abs",
            Unary::Sign => "sign",
            Unary::Exp => "exp",
            Unary::Exp2 => "exp2",
            Unary::Log => "log",
            Unary::Log2 => "log2",
            Unary::Log1p => "log1p",
            Unary::Expm1 => "expm1",
            Unary::Sqrt => "sqrt",
            Unary::Rsqrt => "rsqrt",
            Unary::Sin => "sin",
            Unary::Cos => "cos",
            Unary::Tan => "tan",
            Unary::Tanh => "tanh",
            Unary::Sigmoid => "sigmoid",
            Unary::Log10 => "log10",
            Unary::Sinh => "sinh",
            Unary::Cosh => "cosh",
            Unary::Asin => "asin",
            Unary::Acos => "acos",
            Unary::Atan => "atan",
            Unary::Cbrt => "cbrt",
            Unary::Erf => "erf",
            Unary::Floor => "floor",
            Unary::Ceil => "ceil",
            Unary::Round => "round",
            Unary::Clip => "clip",
            Unary::Scalar(b) | Unary::ScalarLeft(b) => b.name(),
            Unary::Np(u) => u.name(),
        }
    }

    /// The f64 function of shaders/shared/f64_math.wgsl or f64_trig.wgsl computing this
    /// operation in software (Vulkan defines no f64 transcendentals), if it has one.
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
            _ => return None,
        })
    }

    /// The WGSL expression for inputs of dtype `d` and whether it vectorises; `None` where
    /// the operation does not exist for `d`.
    pub(crate) fn expr(self, d: DType) -> Option<(String, bool)> {
        if let Unary::Np(u) = self {
            return u.expr(d);
        }
        if let (DType::F64, Some(f)) = (d, self.f64_function()) {
            return Some((format!("{f}(a)"), true));
        }
        let float = d.is_float();
        let f = |e: &str| -> Option<(String, bool)> {
            (float && d != DType::F64).then(|| (e.to_string(), true))
        };
        let any = |e: &str| Some((e.to_string(), true));
        let signed = !matches!(d, DType::U32 | DType::U64 | DType::Bool);
        match self {
            Unary::Copy => any("a"),
            Unary::Cast => Some(cast_expr(d, d)),
            Unary::Not if d == DType::Bool => any("a ^ T(1u)"),
            Unary::Not => None,
            Unary::Neg if signed => any("-a"),
            Unary::Abs if signed => any("abs(a)"),
            // f32 from the bits: a flushing adapter's sign() gives 0 for subnormals.
            Unary::Sign if d == DType::F32 => any("sign_bits_(a)"),
            Unary::Sign if float => any("select(sign(a), a, isnan_(a))"),
            Unary::Sign if signed => any("sign(a)"),
            Unary::Neg | Unary::Abs | Unary::Sign => None,
            Unary::Exp => f("T(exp_(TW(a)))"),
            Unary::Exp2 => f("T(exp2_(TW(a)))"),
            Unary::Log => f("T(log_(TW(a)))"),
            Unary::Log2 => f("T(log2_(TW(a)))"),
            Unary::Log1p => f("T(log1p_(TW(a)))"),
            Unary::Expm1 => f("T(expm1_(TW(a)))"),
            Unary::Sin => f("T(sin_(TW(a)))"),
            Unary::Cos => f("T(cos_(TW(a)))"),
            Unary::Tan => f("T(tan_(TW(a)))"),
            Unary::Tanh => f("T(tanh_(TW(a)))"),
            Unary::Sigmoid => f("T(sigmoid_(TW(a)))"),
            Unary::Log10 => f("T(log10_32_(TW(a)))"),
            Unary::Sinh => f("T(sinh_32_(TW(a)))"),
            Unary::Cosh => f("T(cosh_32_(TW(a)))"),
            Unary::Asin => f("T(asin_32_(TW(a)))"),
            Unary::Acos => f("T(acos_32_(TW(a)))"),
            Unary::Atan => f("T(atan_32_(TW(a)))"),
            Unary::Cbrt => f("T(cbrt_32_(TW(a)))"),
            Unary::Erf => f("T(erf_32_(TW(a)))"),
            Unary::Sqrt if float => any("T(sqrt_(TW(a)))"),
            Unary::Rsqrt if float => any("T(div_(TW(1.0), sqrt_(TW(a))))"),
            Unary::Floor if float => any("floor(a)"),
            Unary::Ceil if float => any("ceil(a)"),
            // f64 in arithmetic: lavapipe's f64 round() rounds halves up (float_math.wgsl).
            Unary::Round if d == DType::F64 => any("round_even_(a)"),
            Unary::Round if float => any("round(a)"),
            Unary::Sqrt | Unary::Rsqrt | Unary::Floor | Unary::Ceil | Unary::Round => None,
            // NumPy's minimum(maximum(a, lo), hi): a NaN operand or bound gives NaN.
            Unary::Clip if float => any("min_(max_(a, T(arg(0u))), T(arg(1u)))"),
            Unary::Clip if d == DType::Bool => None,
            Unary::Clip => any("min(max(a, T(arg(0u))), T(arg(1u)))"),
            Unary::Scalar(b) => b.expr(d, "a", "T(arg(0u))"),
            Unary::ScalarLeft(b) => b.expr(d, "T(arg(0u))", "a"),
            Unary::Np(_) => unreachable!(),
        }
    }
}

/// The value type of a dtype in a kernel: the scalar, or a vec4 of it.
fn value(d: DType, vec: bool) -> String {
    if vec {
        format!("vec4<{}>", d.wgsl())
    } else {
        d.wgsl().to_string()
    }
}

/// The source of one elementwise kernel: inputs of `input`, output of `output`, and the
/// operation's function definition.
pub(super) fn spec(
    input: DType,
    output: DType,
    vec: bool,
    function: &'static str,
    def: String,
) -> Spec {
    let spec = Spec::new("elementwise", SRC)
        .scalar(input)
        .alias("T", value(input, vec))
        .alias(
            "TW",
            value(
                if input == DType::F16 {
                    DType::F32
                } else {
                    input
                },
                vec,
            ),
        )
        .alias("U", value(output, vec))
        .alias("M", value(DType::U32, vec))
        .alias("TB", if vec { "vec4<bool>" } else { "bool" })
        .alias("TF", value(DType::F32, vec))
        .alias("NI", value(DType::I32, vec))
        .function(
            "lane_a",
            if vec {
                "fn lane_a(k: u32) -> S { return a[k / 4u][k % 4u]; }"
            } else {
                "fn lane_a(k: u32) -> S { return S(a[k]); }"
            },
        )
        .function(
            "lane_b",
            if vec {
                "fn lane_b(k: u32) -> S { return b[k / 4u][k % 4u]; }"
            } else {
                "fn lane_b(k: u32) -> S { return S(b[k]); }"
            },
        )
        .function(
            "lane_c",
            if vec {
                "fn lane_c(k: u32) -> u32 { return c[k / 4u][k % 4u]; }"
            } else {
                "fn lane_c(k: u32) -> u32 { return u32(c[k]); }"
            },
        )
        .function("max_finite_", max_finite_def(input))
        .function("nan_", nan_def(input))
        .function("fdiv_", fdiv_def(input))
        .include(STRIDED_OFFSETS);
    // The bit-built f64 functions need 64-bit integers: only in the kernels that call them.
    let bits = (input == DType::F64 && uses_f64_bits(&def)).then_some(F64_BITS);
    let spec = spec.function(function, def);
    library_includes(input)
        .into_iter()
        .chain(bits)
        .fold(spec, |spec, inc| spec.include(inc))
}

/// Whether WGSL text calls a function of shaders/shared/f64_bits.wgsl ([`F64_BITS`]).
pub(crate) fn uses_f64_bits(text: &str) -> bool {
    text.contains("_b64_(")
}

/// The math library of the table's expressions for inputs of `d`, after the arithmetic
/// helpers: f32 (and f16) or f64 functions, none for integers.
fn library_includes(d: DType) -> Vec<&'static str> {
    let arith = if d.is_float() { FLOAT_MATH } else { INT_MATH };
    match d {
        DType::F64 => vec![arith, F64_MATH, F64_TRIG, F64_NUMPY, F64_MORE],
        DType::F32 | DType::F16 => {
            vec![arith, F32_MATH, F32_TRIG, F32_EXTRA, F32_NUMPY, F32_MORE]
        }
        DType::I64 | DType::U64 => vec![arith, INT64],
        DType::I32 | DType::U32 => vec![arith, INT_MORE],
        DType::Bool => vec![arith],
        // The packed types are computed as i32 (packed.rs).
        DType::U8 | DType::I8 | DType::U16 | DType::I16 => vec![arith, INT_MORE],
    }
}

/// What the table's expressions need in a kernel of another family (fused expressions,
/// whose `T` is the input dtype `d`, a vec4 where `vec`, and `S` its scalar): the aliases
/// beyond `T` and `S` (`U` is `M`: the caller converts masks to `T`), the one-line helpers
/// of shaders/elementwise.wgsl, and the library sources to append.
pub(crate) fn library(d: DType, vec: bool) -> (String, Vec<&'static str>) {
    let wide = if d == DType::F16 { DType::F32 } else { d };
    let aliases = [
        ("TW", value(wide, vec)),
        ("U", value(DType::U32, vec)),
        ("M", value(DType::U32, vec)),
        ("TB", (if vec { "vec4<bool>" } else { "bool" }).to_string()),
        ("TF", value(DType::F32, vec)),
        ("NI", value(DType::I32, vec)),
    ];
    let mut text: String = aliases
        .iter()
        .map(|(n, t)| format!("alias {n} = {t};\n"))
        .collect();
    for def in [max_finite_def(d), nan_def(d), fdiv_def(d)] {
        text.push_str(def);
        text.push('\n');
    }
    (text, library_includes(d))
}

/// `max_finite_()`: the largest finite value of TW (0 for integers).
fn max_finite_def(d: DType) -> &'static str {
    match d {
        DType::F64 => "fn max_finite_() -> TW { return TW(1.7976931348623157e308); }",
        DType::F32 | DType::F16 => "fn max_finite_() -> TW { return TW(3.4028234663852886e38); }",
        _ => "fn max_finite_() -> TW { return TW(0); }",
    }
}

/// `fdiv_(x, y)`: the correctly rounded quotient of TW.
fn fdiv_def(d: DType) -> &'static str {
    match d {
        DType::F32 | DType::F16 => "fn fdiv_(x: TW, y: TW) -> TW { return div_(x, y); }",
        // f64: the built-in, correctly rounded on lavapipe and NVIDIA (div64_ would
        // serve too: its residual is exact without a fused fma).
        _ => "fn fdiv_(x: TW, y: TW) -> TW { return x / y; }",
    }
}

/// `nan_()`: a quiet NaN of TW, from f32 bits (arithmetic such as 0 / 0 may be folded).
fn nan_def(d: DType) -> &'static str {
    match d {
        // f64 too: naga has no bitcast to f64, and converting a NaN keeps it a NaN.
        DType::F64 => "fn nan_() -> TW { return TW(f64(bitcast<f32>(0x7fc00000u))); }",
        DType::F32 | DType::F16 => "fn nan_() -> TW { return TW(bitcast<f32>(0x7fc00000u)); }",
        _ => "fn nan_() -> TW { return TW(0); }",
    }
}

fn op1_def(e: &str) -> String {
    format!("fn op1(a: T) -> U {{ return {e}; }}")
}
fn op2_def(e: &str) -> String {
    format!("fn op2(a: T, b: T) -> U {{ return {e}; }}")
}
/// The operation of `where`, as its expression (vectorisable) for [`op_def`].
pub(super) const WHERE_DEF: &str =
    "fn op3(a: T, b: T, c: M) -> U { return select(b, a, c != M(0u)); }";

/// The function an operation of `arity` operands defines (`op1`, `op2` or `op3`) and its
/// definition around expression `e` (for three operands, `where`'s fixed definition).
pub(super) fn op_def(arity: usize, e: &str) -> (&'static str, String) {
    match arity {
        1 => ("op1", op1_def(e)),
        2 => ("op2", op2_def(e)),
        _ => ("op3", WHERE_DEF.to_string()),
    }
}

/// Every variant, for the shader validation test.
#[cfg(test)]
pub(crate) fn all_specs() -> Vec<Spec> {
    let mut specs = Vec::new();
    for &d in &DType::ALL {
        let binary: Vec<Binary> = BINARY
            .iter()
            .copied()
            .chain(super::numpy::NP_BINARY.iter().map(|&b| Binary::Np(b)))
            .collect();
        let unary = UNARY
            .iter()
            .copied()
            .chain(super::numpy::NP_UNARY.iter().map(|&u| Unary::Np(u)))
            .chain(binary.iter().map(|&b| Unary::Scalar(b)))
            .chain(binary.iter().map(|&b| Unary::ScalarLeft(b)));
        for u in unary {
            let out = output_of_unary(u, d);
            if let Some((e, vec_ok)) = u.expr(d) {
                for vec in [false, true] {
                    if vec && !vec_ok {
                        continue;
                    }
                    specs.push(spec(d, out, vec, "op1", op1_def(&e)));
                }
            }
        }
        for &to in &DType::ALL {
            let (e, vec_ok) = cast_expr(d, to);
            specs.push(spec(d, to, false, "op1", op1_def(&e)));
            if vec_ok {
                specs.push(spec(d, to, true, "op1", op1_def(&e)));
            }
        }
        for &b in &binary {
            let out = if b.is_comparison() { DType::Bool } else { d };
            if let Some((e, vec_ok)) = b.expr(d, "a", "b") {
                for vec in [false, true] {
                    if vec && !vec_ok {
                        continue;
                    }
                    specs.push(spec(d, out, vec, "op2", op2_def(&e)));
                }
            }
        }
        for vec in [false, true] {
            specs.push(spec(d, d, vec, "op3", WHERE_DEF.to_string()));
        }
    }
    specs
}

#[cfg(test)]
fn output_of_unary(u: Unary, d: DType) -> DType {
    match u {
        Unary::Scalar(b) | Unary::ScalarLeft(b) if b.is_comparison() => DType::Bool,
        Unary::Np(u) if u.is_mask() => DType::U32,
        _ => d,
    }
}
