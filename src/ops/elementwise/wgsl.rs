//! The WGSL of one variant of shaders/elementwise.wgsl: the [`Spec`] with the types aliased
//! per dtype (scalar or vec4), the operation's `op1`/`op2`/`op3` built around an expression
//! of the table (`table.rs`), and the shared helpers the dtype's expressions call.
//! [`all_specs`] lists every variant for the shader validation test.

#[cfg(test)]
use super::cast::cast_expr;
#[cfg(test)]
use super::table::{Binary, Unary};
use crate::dtype::DType;
use crate::kernel::source::Spec;

pub(super) const SRC: &str = include_str!("../../../shaders/elementwise.wgsl");

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
    if vec && input.is_complex() {
        return super::complex::pair_spec(input, output, function, &def);
    }
    // A complex kernel computes on its components (`lib`): TW and the float helpers are
    // theirs, and complex_math's functions follow the component functions it names.
    let (lib, def) = match super::complex::kernel_prelude(input) {
        Some(prelude) => (input.component().unwrap_or(input), prelude + &def),
        None => (input, def),
    };
    let spec = Spec::new("elementwise", SRC)
        .scalar(input)
        .alias("T", value(input, vec))
        .alias(
            "TW",
            value(if lib == DType::F16 { DType::F32 } else { lib }, vec),
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
        .function("max_finite_", max_finite_def(lib))
        .function("nan_", nan_def(lib))
        .function("fdiv_", fdiv_def(lib));
    // The bit-built f64 functions need 64-bit integers: only in the kernels that call them.
    let bits = (input == DType::F64 && uses_f64_bits(&def)).then_some(F64_BITS);
    let mut spec = spec.function(function, def);
    if input.is_complex() {
        // The file's other `op` lines convert a T to U, which a vec2 does not to a real U:
        // stubs in their place (the kernel calls only `function`).
        for (name, stub) in [
            ("op1", "fn op1(a: T) -> U { return U(0); }"),
            ("op2", "fn op2(a: T, b: T) -> U { return U(0); }"),
            ("op3", "fn op3(a: T, b: T, c: M) -> U { return U(0); }"),
        ] {
            if name != function {
                spec = spec.function(name, stub);
            }
        }
    }
    library_imports(input)
        .iter()
        .copied()
        .chain(bits)
        .fold(spec, |spec, name| spec.import(name))
        .f64_lanes(vec)
}

/// shaders/shared/f64_bits.wgsl, the f64 functions built from the bits (nextafter,
/// spacing, frexp), which need 64-bit integers: imported only where an expression calls them
/// ([`uses_f64_bits`]).
const F64_BITS: &str = "f64_bits";

/// Whether WGSL text calls a function of shaders/shared/f64_bits.wgsl ([`F64_BITS`]).
pub(crate) fn uses_f64_bits(text: &str) -> bool {
    text.contains("_b64_(")
}

/// The shared files (shaders/shared, by `#import` name) holding the helpers of the table's
/// expressions for inputs of `d`: the arithmetic helpers, then the f32 (and f16), f64 or
/// integer functions by family. Each file imports what it builds on (f32_math, f64_math),
/// so only f64 kernels see f64 helpers, and only 64-bit integer kernels int64.
pub(super) fn library_imports(d: DType) -> &'static [&'static str] {
    match d {
        DType::F64 => &[
            "float_math",
            "f64_math",
            "f64_exp_log",
            "f64_trig",
            "f64_hyperbolic",
            "f64_erf",
            "f64_parts",
        ],
        DType::F32 | DType::F16 => &[
            "float_math",
            "f32_math",
            "f32_exp_log",
            "f32_trig",
            "f32_inverse_trig",
            "f32_hyperbolic",
            "f32_erf",
            "f32_parts",
        ],
        DType::I64 | DType::U64 => &["int_math", "int64"],
        DType::Bool => &["int_math"],
        // The packed types are computed as i32 (packed.rs).
        DType::I32 | DType::U32 | DType::U8 | DType::I8 | DType::U16 | DType::I16 => {
            &["int_math", "int_divisors"]
        }
        // Complex: the component's libraries and the complex functions (complex.rs); not
        // float_math, whose helpers take the (vec2) value type.
        DType::Complex64 => &[
            "f32_math",
            "f32_exp_log",
            "f32_trig",
            "f32_inverse_trig",
            "f32_hyperbolic",
            "complex_math",
            "complex_f32",
        ],
        DType::Complex128 => &[
            "f64_math",
            "f64_exp_log",
            "f64_trig",
            "f64_hyperbolic",
            "f64_parts",
            "complex_math",
            "complex_f64",
        ],
        #[cfg(test)]
        DType::Opaque8 => &[],
    }
}

/// What the table's expressions need in a kernel of another family (fused expressions,
/// whose `T` is the input dtype `d`, a vec4 where `vec`, and `S` its scalar): the aliases
/// beyond `T` and `S` (`U` is `M`: the caller converts masks to `T`), the one-line helpers
/// of shaders/elementwise.wgsl, and the shared files to import (`Spec::import`).
pub(crate) fn library(d: DType, vec: bool) -> (String, &'static [&'static str]) {
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
    (text, library_imports(d))
}

/// `max_finite_()`: the largest finite value of TW (0 for integers).
pub(super) fn max_finite_def(d: DType) -> &'static str {
    match d {
        DType::F64 => "fn max_finite_() -> TW { return TW(1.7976931348623157e308); }",
        DType::F32 | DType::F16 => "fn max_finite_() -> TW { return TW(3.4028234663852886e38); }",
        _ => "fn max_finite_() -> TW { return TW(0); }",
    }
}

/// `fdiv_(x, y)`: the correctly rounded quotient of TW.
pub(super) fn fdiv_def(d: DType) -> &'static str {
    match d {
        // f32 correctly rounded where the quotient is normal (floor_divide's, as NumPy's).
        DType::F32 | DType::F16 => "fn fdiv_(x: TW, y: TW) -> TW { return div_rn_(x, y); }",
        // f64: the built-in, correctly rounded on lavapipe and NVIDIA (div64_ would
        // serve too: its residual is exact without a fused fma).
        _ => "fn fdiv_(x: TW, y: TW) -> TW { return x / y; }",
    }
}

/// `nan_()`: a quiet NaN of TW, from f32 bits (arithmetic such as 0 / 0 may be folded).
pub(super) fn nan_def(d: DType) -> &'static str {
    match d {
        // f64 too: naga has no bitcast to f64, and converting a NaN keeps it a NaN.
        DType::F64 => "fn nan_() -> TW { return TW(f64(bitcast<f32>(0x7fc00000u))); }",
        DType::F32 | DType::F16 => "fn nan_() -> TW { return TW(bitcast<f32>(0x7fc00000u)); }",
        _ => "fn nan_() -> TW { return TW(0); }",
    }
}

pub(super) fn op1_def(e: &str) -> String {
    format!("fn op1(a: T) -> U {{ return {e}; }}")
}
pub(super) fn op2_def(e: &str) -> String {
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
        let unary = Unary::ROWS
            .iter()
            .copied()
            .chain(Binary::ROWS.iter().map(|&b| Unary::Scalar(b)))
            .chain(Binary::ROWS.iter().map(|&b| Unary::ScalarLeft(b)));
        for u in unary {
            let out = if u.gives_mask() { DType::Bool } else { d };
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
        for &b in Binary::ROWS {
            let out = if b.gives_mask() { DType::Bool } else { d };
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
    specs.extend(super::complex::all_specs());
    specs
}
