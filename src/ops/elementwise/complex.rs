//! Complex numbers in the elementwise family: casts between real and complex dtypes, as
//! NumPy casts them, and the complex kernels (arithmetic, exp, log, sqrt, the circular and
//! hyperbolic functions, abs, classification, equality) of shaders/elementwise.wgsl with a
//! `vec2` value type and shaders/shared/complex_math.wgsl.

use super::plan::run;
use super::table::{Binary, Unary};
use super::wgsl::{fdiv_def, library_imports, max_finite_def, nan_def, SRC};
use crate::array::complex::by_component;
use crate::array::Array;
use crate::dtype::{accepts, DType, Element};
use crate::error::Result;
use crate::kernel::launch::Params;
use crate::kernel::source::Spec;
use crate::shape::broadcast_shapes;

/// `x` cast to `U` where either dtype is complex, as NumPy's `astype`: a real number is
/// the real part (imaginary part 0); a complex number cast to a real dtype keeps its real
/// part (NumPy drops the imaginary part, with a `ComplexWarning`); complex64 and
/// complex128 convert each component as f32 and f64 do. Always a new array.
pub(crate) fn cast_complex<T: Element, U: Element>(x: &Array<T>) -> Result<Array<U>> {
    let (from, to) = (T::DTYPE, U::DTYPE);
    // Both dtypes must exist on the adapter, the components' included.
    x.dev.require_storage("cast", from)?;
    x.dev.require_storage("cast", to)?;
    match (from.is_complex(), to.is_complex()) {
        (true, true) if from == to => map_unary(&x.reinterpret::<U>(), Unary::Copy, &[]),
        (true, true) => by_component!(from, R => by_component!(to, Q => Ok(x
            .components::<R>()
            .cast::<Q>()?
            .as_complex::<U>()))),
        (true, false) => by_component!(from, R => x.component_view::<R>(0).cast::<U>()),
        (false, true) => by_component!(to, Q => {
            let out = Array::<U>::alloc_any(&x.dev, "cast", x.shape.clone(), |b| {
                x.dev.alloc_apart(b, &[&x.buf])
            })?;
            let re = out.component_view::<Q>(0);
            if from == Q::DTYPE {
                re.assign(&x.reinterpret::<Q>())?;
            } else {
                re.assign(&x.cast::<Q>()?)?;
            }
            out.component_view::<Q>(1).fill(Q::zeroed())?;
            Ok(out)
        }),
        (false, false) => unreachable!("cast_complex of real dtypes"),
    }
}

/// The component functions shaders/shared/complex_math.wgsl calls (`r_*`), defined in the
/// kernel's own text for the component dtype `c` (f32 or f64) from the float libraries.
fn prelude(c: DType) -> String {
    let f32 = c == DType::F32;
    let pick = |a: &'static str, b: &'static str| if f32 { a } else { b };
    let mut s = String::new();
    for (name, f) in [
        ("r_exp", pick("exp_", "exp64_")),
        ("r_log", pick("log_", "log64_")),
        ("r_log1p", pick("log1p_", "log1p64_")),
        ("r_sqrt", pick("sqrt_", "sqrt64_")),
        ("r_sin", pick("sin_", "sin64_")),
        ("r_cos", pick("cos_", "cos64_")),
        ("r_tan", pick("tan_", "tan64_")),
        ("r_sinh", pick("sinh_32_", "sinh64_")),
        ("r_cosh", pick("cosh_32_", "cosh64_")),
    ] {
        s.push_str(&format!("fn {name}(x: TW) -> TW {{ return {f}(x); }}\n"));
    }
    for (name, f) in [
        ("r_hypot", pick("hypot_32_", "hypot64_")),
        ("r_atan2", pick("atan2_32_", "atan2_64_")),
        ("r_copysign", pick("copysign_", "copysign64_")),
    ] {
        s.push_str(&format!(
            "fn {name}(x: TW, y: TW) -> TW {{ return {f}(x, y); }}\n"
        ));
    }
    s.push_str(if f32 {
        "fn r_div(x: TW, y: TW) -> TW { return div_(x, y); }\n\
         fn r_isnan(x: TW) -> bool { return is_nan_(x); }\n\
         fn r_isinf(x: TW) -> bool { return is_inf_(x); }\n\
         fn r_big() -> TW { return TW(88.0); }\n\
         fn r_tanh_big() -> TW { return TW(9.0); }\n\
         fn r_sqrt_big() -> TW { return TW(1.4e38); }\n"
    } else {
        "fn r_div(x: TW, y: TW) -> TW { return x / y; }\n\
         fn r_isnan(x: TW) -> bool { return !(x == x); }\n\
         fn r_isinf(x: TW) -> bool { return abs(x) > TW(1.7976931348623157e308); }\n\
         fn r_big() -> TW { return TW(709.0); }\n\
         fn r_tanh_big() -> TW { return TW(22.0); }\n\
         fn r_sqrt_big() -> TW { return TW(7.4e307); }\n"
    });
    s
}

/// The expression of a binary operation on complex operands `x` and `y` (CX values).
fn binary_expr(op: Binary, x: &str, y: &str) -> Option<String> {
    Some(match op {
        Binary::Add => format!("{x} + {y}"),
        Binary::Sub => format!("{x} - {y}"),
        Binary::Mul => format!("c_mul({x}, {y})"),
        Binary::Div => format!("c_div({x}, {y})"),
        Binary::Pow => format!("c_pow({x}, {y})"),
        _ => return None,
    })
}

/// The expression of a one-operand operation on the complex `a`, or `None` where complex
/// numbers have none (the orderings, the integer and rounding functions, ...).
fn unary_expr(op: Unary) -> Option<String> {
    Some(match op {
        Unary::Copy => "a".into(),
        Unary::Neg => "-a".into(),
        Unary::Square => "c_mul(a, a)".into(),
        Unary::Reciprocal => "c_div(CX(TW(1.0), TW(0.0)), a)".into(),
        Unary::Exp => "c_exp(a)".into(),
        Unary::Log => "c_log(a)".into(),
        Unary::Sqrt => "c_sqrt(a)".into(),
        Unary::Sin => "c_sin(a)".into(),
        Unary::Cos => "c_cos(a)".into(),
        Unary::Tan => "c_tan(a)".into(),
        Unary::Sinh => "c_sinh(a)".into(),
        Unary::Cosh => "c_cosh(a)".into(),
        Unary::Tanh => "c_tanh(a)".into(),
        Unary::Scalar(b) => return binary_expr(b, "a", "c_arg_(0u)"),
        Unary::ScalarLeft(b) => return binary_expr(b, "c_arg_(0u)", "a"),
        _ => return None,
    })
}

/// [`super::map_unary`] for a complex `x` (or a complex output): the kernel of
/// shaders/elementwise.wgsl with a complex value type and complex_math's functions.
pub(super) fn map_unary<T: Element, O: Element>(
    x: &Array<T>,
    op: Unary,
    scalars: &[T],
) -> Result<Array<O>> {
    let name = op.name();
    let d = T::DTYPE;
    x.dev.accept(name, d, accepts::moves)?;
    let expr = match op {
        Unary::Cast => return cast_complex(x),
        // |z| in one pass over the complex numbers (complex_f32.wgsl's or complex_f64.wgsl's
        // c_abs), two to an invocation where contiguous.
        Unary::Abs if d.component() == Some(O::DTYPE) => Some("c_abs(a)".to_string()),
        _ if d.is_complex() && O::DTYPE != d => return real_result(x, op, scalars),
        _ if d.is_complex() => unary_expr(op),
        _ => None,
    }
    .ok_or_else(|| x.dev.unsupported(name, d))?;
    let out = Array::<O>::alloc_any(&x.dev, name, x.shape.clone(), |b| {
        x.dev.alloc_apart(b, &[&*x.buf])
    })?;
    run::<O>(
        &x.dev,
        d,
        (expr, true),
        &[x.operand()],
        out,
        Params::new(0).scalars(scalars),
    )
}

/// [`super::map_binary`] for complex operands, broadcast together.
pub(super) fn map_binary<T: Element, O: Element>(
    x: &Array<T>,
    y: &Array<T>,
    op: Binary,
) -> Result<Array<O>> {
    let name = op.name();
    let d = T::DTYPE;
    x.dev.accept(name, d, accepts::moves)?;
    x.dev.expect_same(name, &[&y.dev])?;
    if matches!(op, Binary::Eq | Binary::Ne) && O::DTYPE == DType::Bool {
        return equal(x, y, op == Binary::Ne);
    }
    let expr = binary_expr(op, "a", "b")
        .filter(|_| O::DTYPE == d)
        .ok_or_else(|| x.dev.unsupported(name, d))?;
    let shape = broadcast_shapes(name, &x.shape, &y.shape)?;
    let out = Array::<O>::alloc_any(&x.dev, name, shape, |b| {
        x.dev.alloc_apart(b, &[&*x.buf, &*y.buf])
    })?;
    run::<O>(
        &x.dev,
        d,
        (expr, true),
        &[x.operand(), y.operand()],
        out,
        Params::new(0),
    )
}

/// The text a complex kernel adds before its `op` function: the component functions.
pub(super) fn kernel_prelude(input: DType) -> Option<String> {
    input.component().map(prelude)
}

/// The variant of a complex kernel of `input` whose item is two complex numbers: `T` a
/// vec4 of components (one 16-byte load of complex64, 32 bytes of complex128, per operand
/// and invocation, as the real kernels' vec4s), the operation `def` (of `function`, `op1`
/// or `op2`) applied to each half, the output two complex numbers (a vec4) or two real
/// numbers (a vec2: `abs`). Only the contiguous entries launch it (plan.rs); the others are
/// there to validate, so their element helpers read components.
pub(super) fn pair_spec(input: DType, output: DType, function: &'static str, def: &str) -> Spec {
    let c = input.component().expect("a complex dtype");
    let w = c.wgsl();
    let (u, uc, to_t) = if output.is_complex() {
        (
            format!("vec4<{w}>"),
            "CX",
            "fn u_to_t(v: U) -> T { return v; }",
        )
    } else {
        (
            format!("vec2<{}>", output.wgsl()),
            output.wgsl(),
            "fn u_to_t(v: U) -> T { return T(v, v); }",
        )
    };
    let (one, pair) = if function == "op1" {
        (
            def.replacen("fn op1(a: T) -> U", "fn op1_one(a: CX) -> UC", 1),
            "fn op1(a: T) -> U { return U(op1_one(a.xy), op1_one(a.zw)); }",
        )
    } else {
        (
            def.replacen(
                "fn op2(a: T, b: T) -> U",
                "fn op2_one(a: CX, b: CX) -> UC",
                1,
            ),
            "fn op2(a: T, b: T) -> U { return U(op2_one(a.xy, b.xy), op2_one(a.zw, b.zw)); }",
        )
    };
    let text = format!("{}alias UC = {uc};\n{one}\n{pair}", prelude(c));
    let mut spec = Spec::new("elementwise", SRC)
        .alias("S", w)
        .alias("SC", w)
        .alias("T", format!("vec4<{w}>"))
        .alias("TW", w)
        .alias("U", u)
        .alias("M", "u32")
        .alias("TB", "bool")
        .alias("TF", "f32")
        .alias("NI", "i32")
        .function(
            "lane_a",
            "fn lane_a(k: u32) -> S { return a[k / 4u][k % 4u]; }",
        )
        .function(
            "lane_b",
            "fn lane_b(k: u32) -> S { return b[k / 4u][k % 4u]; }",
        )
        .function("max_finite_", max_finite_def(c))
        .function("nan_", nan_def(c))
        .function("fdiv_", fdiv_def(c))
        .function("u_to_t", to_t)
        .function(function, text);
    for (name, stub) in [
        ("op1", "fn op1(a: T) -> U { return U(0); }"),
        ("op2", "fn op2(a: T, b: T) -> U { return U(0); }"),
        ("op3", "fn op3(a: T, b: T, c: M) -> U { return U(0); }"),
    ] {
        if name != function {
            spec = spec.function(name, stub);
        }
    }
    library_imports(input)
        .iter()
        .fold(spec, |spec, name| spec.import(name))
}

/// Every complex variant, for the shader validation test.
#[cfg(test)]
pub(super) fn all_specs() -> Vec<crate::kernel::source::Spec> {
    use super::wgsl::{op1_def, op2_def, spec};
    let mut specs = Vec::new();
    for d in DType::COMPLEX {
        let unary = Unary::ROWS
            .iter()
            .copied()
            .chain(Binary::ROWS.iter().map(|&b| Unary::Scalar(b)));
        for vec in [false, true] {
            for u in unary.clone() {
                if let Some(e) = unary_expr(u) {
                    specs.push(spec(d, d, vec, "op1", op1_def(&e)));
                }
            }
            for &b in Binary::ROWS {
                if let Some(e) = binary_expr(b, "a", "b") {
                    specs.push(spec(d, d, vec, "op2", op2_def(&e)));
                }
            }
            let r = d.component().expect("a complex dtype");
            specs.push(spec(d, r, vec, "op1", op1_def("c_abs(a)")));
        }
    }
    specs
}

/// A one-operand map of the complex `x` by the WGSL expression `expr` over `a` (a CX),
/// into a new array of `O`: the complex methods outside the table (`conj`, `angle`).
pub(super) fn map_expr<T: Element, O: Element>(
    x: &Array<T>,
    name: &'static str,
    expr: &str,
) -> Result<Array<O>> {
    x.dev.accept(name, T::DTYPE, DType::is_complex)?;
    let out = Array::<O>::alloc_any(&x.dev, name, x.shape.clone(), |b| {
        x.dev.alloc_apart(b, &[&*x.buf])
    })?;
    run::<O>(
        &x.dev,
        T::DTYPE,
        (expr.to_string(), false),
        &[x.operand()],
        out,
        Params::new(0),
    )
}

/// The complex conjugate of a complex `x` (of any `Element` type: the generic callers).
pub(crate) fn conj_any<T: Element>(x: &Array<T>) -> Result<Array<T>> {
    map_expr(x, "conj", "CX(a.x, -a.y)")
}

/// The operations of a complex `x` with a mask result, from the components' real
/// operations on strided views: the classification as two and a logical combination,
/// `eq`/`ne` with a scalar.
fn real_result<T: Element, O: Element>(x: &Array<T>, op: Unary, scalars: &[T]) -> Result<Array<O>> {
    let name = op.name();
    by_component!(T::DTYPE, R => {
        let (re, im) = (x.component_view::<R>(0), x.component_view::<R>(1));
        let mask = |m: Array<bool>| -> Result<Array<O>> {
            if O::DTYPE == DType::Bool {
                Ok(m.reinterpret::<O>())
            } else {
                Err(x.dev.unsupported(name, T::DTYPE))
            }
        };
        match op {
            Unary::IsNan => mask(re.isnan()?.logical_or(&im.isnan()?)?),
            Unary::IsInf => mask(re.isinf()?.logical_or(&im.isinf()?)?),
            Unary::IsFinite => mask(re.isfinite()?.logical_and(&im.isfinite()?)?),
            Unary::Scalar(b) | Unary::ScalarLeft(b) if matches!(b, Binary::Eq | Binary::Ne) => {
                let y = x.dev.full(vec![1], scalars[0])?;
                mask(equal(x, &y, b == Binary::Ne)?)
            }
            _ => Err(x.dev.unsupported(name, T::DTYPE)),
        }
    })
}

/// `x == y` (or `!=` with `not`), broadcast: both components equal (NaN equals nothing).
fn equal<T: Element, O: Element>(x: &Array<T>, y: &Array<T>, not: bool) -> Result<Array<O>> {
    by_component!(T::DTYPE, R => {
        let c = |k: usize| -> Result<Array<bool>> {
            x.component_view::<R>(k).eq(&y.component_view::<R>(k))
        };
        let same = c(0)?.logical_and(&c(1)?)?;
        let m = if not { same.logical_not()? } else { same };
        Ok(m.reinterpret::<O>())
    })
}

/// The argument of a complex `x`: atan2(im, re) of the component views.
pub(super) fn angle<T: Element, O: Element>(x: &Array<T>) -> Result<Array<O>> {
    x.dev.accept("angle", T::DTYPE, DType::is_complex)?;
    by_component!(T::DTYPE, R => Ok(x
        .component_view::<R>(1)
        .atan2(&x.component_view::<R>(0))?
        .reinterpret::<O>()))
}
