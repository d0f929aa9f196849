//! WGSL generation for the elementwise family: the operation table (each [`Unary`] and
//! [`Binary`] operation as a WGSL expression over `a` and `b`, per dtype), the casts, and
//! the [`Spec`] of one variant of shaders/elementwise.wgsl (types aliased per dtype,
//! scalar or vec4, the operation's `op1`/`op2`/`op3`). [`all_specs`] lists every variant
//! for the shader validation test.

use crate::dtype::DType;
use crate::kernel::source::Spec;

const SRC: &str = include_str!("../../../shaders/elementwise.wgsl");
/// `strided_offsets`, included by this family and by the user kernels' shader
/// (shaders/elementwise_kernel.wgsl), both of which declare the `NDIM` override it reads.
pub(crate) const STRIDED_OFFSETS: &str = include_str!("../../../shaders/shared/strided.wgsl");
/// The f32 math of f32 and f16 inputs (division, roots, exponentials, logarithms, pow, tanh,
/// sigmoid) and their sin/cos/tan, computed without the adapter's approximate built-ins.
const F32_MATH: &str = include_str!("../../../shaders/shared/f32_math.wgsl");
const F32_TRIG: &str = include_str!("../../../shaders/shared/f32_trig.wgsl");

/// One-operand maps (including the scalar forms of binary operations).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub(crate) enum Unary {
    Copy,
    Cast,
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
    Floor,
    Ceil,
    Round,
    /// Clamp to [sc.x, sc.y].
    Clip,
    /// `binary(a, sc.x)`.
    Scalar(Binary),
    /// `binary(sc.x, a)`.
    ScalarLeft(Binary),
}

/// Two-operand maps.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub(crate) enum Binary {
    Add,
    Sub,
    Mul,
    Div,
    Rem,
    Pow,
    Maximum,
    Minimum,
    Eq,
    Ne,
    Lt,
    Le,
    Gt,
    Ge,
}

#[cfg(test)]
const UNARY: [Unary; 21] = [
    Unary::Copy,
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
    Unary::Floor,
    Unary::Ceil,
    Unary::Round,
    Unary::Clip,
];

#[cfg(test)]
const BINARY: [Binary; 14] = [
    Binary::Add,
    Binary::Sub,
    Binary::Mul,
    Binary::Div,
    Binary::Rem,
    Binary::Pow,
    Binary::Maximum,
    Binary::Minimum,
    Binary::Eq,
    Binary::Ne,
    Binary::Lt,
    Binary::Le,
    Binary::Gt,
    Binary::Ge,
];

impl Binary {
    pub(super) fn name(self) -> &'static str {
        match self {
            Binary::Add => "add",
            Binary::Sub => "sub",
            Binary::Mul => "mul",
            Binary::Div => "div",
            Binary::Rem => "rem",
            Binary::Pow => "pow",
            Binary::Maximum => "maximum",
            Binary::Minimum => "minimum",
            Binary::Eq => "eq",
            Binary::Ne => "ne",
            Binary::Lt => "lt",
            Binary::Le => "le",
            Binary::Gt => "gt",
            Binary::Ge => "ge",
        }
    }

    #[cfg(test)]
    fn is_comparison(self) -> bool {
        matches!(
            self,
            Binary::Eq | Binary::Ne | Binary::Lt | Binary::Le | Binary::Gt | Binary::Ge
        )
    }

    /// The WGSL expression of `x op y` for inputs of dtype `d`, and whether it works on
    /// vec4 values; `None` where the operation does not exist for `d`.
    pub(super) fn expr(self, d: DType, x: &str, y: &str) -> Option<(String, bool)> {
        let float = d.is_float();
        let cmp = |op: &str| format!("select(U(0u), U(1u), {x} {op} {y})");
        let e = match self {
            Binary::Add => format!("{x} + {y}"),
            Binary::Sub => format!("{x} - {y}"),
            Binary::Mul => format!("{x} * {y}"),
            Binary::Div if d == DType::F64 => format!("{x} / {y}"),
            Binary::Div if float => format!("T(div_(TW({x}), TW({y})))"),
            Binary::Div => format!("select({x} / {y}, T(0), {y} == T(0))"),
            Binary::Rem if float => format!("T(rem_(TW({x}), TW({y})))"),
            Binary::Rem => format!("select({x} % {y}, T(0), {y} == T(0))"),
            Binary::Pow if d == DType::F64 => return None,
            Binary::Pow if float => format!("T(pow_(TW({x}), TW({y})))"),
            Binary::Pow => return Some((format!("ipow_({x}, {y})"), false)),
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
        };
        Some((e, true))
    }
}

impl Unary {
    pub(super) fn name(self) -> &'static str {
        match self {
            Unary::Copy => "contiguous",
            Unary::Cast => "cast",
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
            Unary::Floor => "floor",
            Unary::Ceil => "ceil",
            Unary::Round => "round",
            Unary::Clip => "clip",
            Unary::Scalar(b) | Unary::ScalarLeft(b) => b.name(),
        }
    }

    /// The WGSL expression for inputs of dtype `d` and whether it vectorises; `None` where
    /// the operation does not exist for `d` (transcendentals of f64: Vulkan's GLSL.std.450
    /// defines them for 16- and 32-bit floats only).
    pub(super) fn expr(self, d: DType) -> Option<(String, bool)> {
        let float = d.is_float();
        let f = |e: &str| -> Option<(String, bool)> {
            (float && d != DType::F64).then(|| (e.to_string(), true))
        };
        let any = |e: &str| Some((e.to_string(), true));
        match self {
            Unary::Copy => any("a"),
            Unary::Cast => Some(cast_expr(d, d)),
            Unary::Neg if d != DType::U32 => any("-a"),
            Unary::Abs if d != DType::U32 => any("abs(a)"),
            // f32 from the bits: a flushing adapter's sign() gives 0 for subnormals.
            Unary::Sign if d == DType::F32 => any("sign_bits_(a)"),
            Unary::Sign if float => any("select(sign(a), a, isnan_(a))"),
            Unary::Sign if d != DType::U32 => any("sign(a)"),
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
            Unary::Sqrt if d == DType::F64 => any("sqrt(a)"),
            Unary::Rsqrt if d == DType::F64 => any("inverseSqrt(a)"),
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
            Unary::Clip => any("min(max(a, T(arg(0u))), T(arg(1u)))"),
            Unary::Scalar(b) => b.expr(d, "a", "T(arg(0u))"),
            Unary::ScalarLeft(b) => b.expr(d, "T(arg(0u))", "a"),
        }
    }
}

/// The conversion from `from` to `to` with Rust's `as` semantics: floats to integers
/// saturate (WGSL's conversion stops at the largest float below the integer maximum) and
/// NaN becomes 0.
pub(super) fn cast_expr(from: DType, to: DType) -> (String, bool) {
    let sat = |max: &str, lim: &str| {
        // f16's largest finite value converts exactly; only infinity needs saturating.
        let over = if from == DType::F16 {
            "a > T(65504.0)".to_string()
        } else {
            format!("a >= T({lim})")
        };
        format!("select(select(U(a), U({max}), {over}), U(0), !(a == a))")
    };
    let e = match (from.is_float(), to) {
        (true, DType::I32) => sat("2147483647", "2147483648.0"),
        (true, DType::U32) => sat("4294967295u", "4294967296.0"),
        _ => "U(a)".to_string(),
    };
    (e, true)
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
    Spec::new("elementwise", SRC)
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
        .function(function, def)
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
        .function(
            "max_finite_",
            match input {
                DType::F64 => "fn max_finite_() -> TW { return TW(1.7976931348623157e308); }",
                DType::F32 | DType::F16 => {
                    "fn max_finite_() -> TW { return TW(3.4028234663852886e38); }"
                }
                DType::I32 | DType::U32 => "fn max_finite_() -> TW { return TW(0); }",
            },
        )
        .math_for(input)
        .include(STRIDED_OFFSETS)
        .include(if input == DType::F32 || input == DType::F16 {
            F32_MATH
        } else {
            ""
        })
        .include(if input == DType::F32 || input == DType::F16 {
            F32_TRIG
        } else {
            ""
        })
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
        let unary = UNARY
            .iter()
            .copied()
            .chain(BINARY.iter().map(|&b| Unary::Scalar(b)))
            .chain(BINARY.iter().map(|&b| Unary::ScalarLeft(b)));
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
            let e = cast_expr(d, to).0;
            specs.push(spec(d, to, false, "op1", op1_def(&e)));
            specs.push(spec(d, to, true, "op1", op1_def(&e)));
        }
        for &b in &BINARY {
            let out = if b.is_comparison() { DType::U32 } else { d };
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
        Unary::Scalar(b) | Unary::ScalarLeft(b) if b.is_comparison() => DType::U32,
        _ => d,
    }
}
