//! Elementwise math with NumPy broadcasting. Host side of shaders/elementwise.wgsl.
//!
//! Each operation is a WGSL expression over `a` (and `b`, `c`) specialised per dtype. f16
//! division and math functions are computed in f32 and rounded once, as NumPy does (some
//! drivers' f16 arithmetic is off by several ulps).
//! Contiguous operands of one shape take the `*_contig` entries, vectorised with vec4 loads
//! when every offset and the length are multiples of 4; other layouts take the `*_strided`
//! entries, after adjacent axes that are contiguous in every operand have been merged.

use std::ops;

use crate::array::Array;
use crate::device::Work;
use crate::dtype::{DType, Element, Float, Signed};
use crate::error::{Error, Result};
use crate::kernel::cache::Key;
use crate::kernel::launch::{Binding, Params, MAX_DIMS};
use crate::kernel::source::Spec;
use crate::shape::{broadcast_shapes, broadcast_strides, collapse, is_contiguous};

const SRC: &str = include_str!("../../shaders/elementwise.wgsl");
const WG: u32 = 256;

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
    fn name(self) -> &'static str {
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
    fn expr(self, d: DType, x: &str, y: &str) -> Option<(String, bool)> {
        let float = d.is_float();
        let cmp = |op: &str| format!("select(U(0u), U(1u), {x} {op} {y})");
        let e = match self {
            Binary::Add => format!("{x} + {y}"),
            Binary::Sub => format!("{x} - {y}"),
            Binary::Mul => format!("{x} * {y}"),
            Binary::Div if float => format!("T(TW({x}) / TW({y}))"),
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
    fn name(self) -> &'static str {
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
    fn expr(self, d: DType) -> Option<(String, bool)> {
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
            Unary::Sign if d != DType::U32 => any("sign(a)"),
            Unary::Neg | Unary::Abs | Unary::Sign => None,
            Unary::Exp => f("T(exp(TW(a)))"),
            Unary::Exp2 => f("T(exp2(TW(a)))"),
            Unary::Log => f("T(log(TW(a)))"),
            Unary::Log2 => f("T(log2(TW(a)))"),
            Unary::Log1p => f("T(log1p_(TW(a)))"),
            Unary::Expm1 => f("T(expm1_(TW(a)))"),
            Unary::Sin => f("T(sin(TW(a)))"),
            Unary::Cos => f("T(cos(TW(a)))"),
            Unary::Tan => f("T(tan(TW(a)))"),
            Unary::Tanh => f("T(tanh_(TW(a)))"),
            Unary::Sigmoid => f("T(sigmoid_(TW(a)))"),
            Unary::Sqrt if float => any("T(sqrt(TW(a)))"),
            Unary::Rsqrt if float => any("T(inverseSqrt(TW(a)))"),
            Unary::Floor if float => any("floor(a)"),
            Unary::Ceil if float => any("ceil(a)"),
            Unary::Round if float => any("round(a)"),
            Unary::Sqrt | Unary::Rsqrt | Unary::Floor | Unary::Ceil | Unary::Round => None,
            Unary::Clip if float => {
                any("select(min(max(a, T(arg(0u))), T(arg(1u))), a, isnan_(a))")
            }
            Unary::Clip => any("min(max(a, T(arg(0u))), T(arg(1u)))"),
            Unary::Scalar(b) => b.expr(d, "a", "T(arg(0u))"),
            Unary::ScalarLeft(b) => b.expr(d, "T(arg(0u))", "a"),
        }
    }
}

/// The conversion from `from` to `to` with Rust's `as` semantics: floats to integers
/// saturate (WGSL's conversion stops at the largest float below the integer maximum) and
/// NaN becomes 0.
fn cast_expr(from: DType, to: DType) -> (String, bool) {
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
fn spec(input: DType, output: DType, vec: bool, function: &'static str, def: String) -> Spec {
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
}

fn op1_def(e: &str) -> String {
    format!("fn op1(a: T) -> U {{ return {e}; }}")
}
fn op2_def(e: &str) -> String {
    format!("fn op2(a: T, b: T) -> U {{ return {e}; }}")
}
const WHERE_DEF: &str = "fn op3(a: T, b: T, c: M) -> U { return select(b, a, c != M(0u)); }";

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

/// How a kernel walks its operands.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Layout {
    /// Every operand contiguous, of the output's shape.
    Contig,
    /// Offsets from the multi-index and strides, one or four elements per invocation.
    Strided,
    /// As strided, four elements of a row per invocation as vec4 values.
    Rows,
}

/// An input of a map: its buffer binding and layout.
pub(crate) struct Operand<'a> {
    pub binding: Binding<'a>,
    pub shape: &'a [usize],
    pub strides: &'a [usize],
    pub offset: usize,
}

impl<T: Element> Array<T> {
    pub(crate) fn operand(&self) -> Operand<'_> {
        Operand {
            binding: self.binding(),
            shape: &self.shape,
            strides: &self.strides,
            offset: self.offset,
        }
    }
}

/// A new output array, after checking that the adapter has the input dtype.
fn output<O: Element>(
    dev: &crate::Device,
    name: &'static str,
    input: DType,
    shape: Vec<usize>,
) -> Result<Array<O>> {
    dev.require(name, input)?;
    Array::<O>::alloc(dev, name, shape)
}

/// Whether every operand is contiguous and of `shape` (the `*_contig` entries' case).
pub(crate) fn is_plain(inputs: &[Operand<'_>], shape: &[usize]) -> bool {
    inputs
        .iter()
        .all(|x| x.shape == shape && is_contiguous(x.shape, x.strides))
}

/// The strided layout of `inputs` broadcast to `shape` in `params` (n, NDIM dimensions
/// after merging, strides and offsets), with the merged shape and strides.
pub(crate) fn broadcast_layout(
    inputs: &[Operand<'_>],
    shape: &[usize],
    params: Params,
) -> Result<(Params, Vec<usize>, Vec<Vec<usize>>)> {
    let strides: Vec<Vec<usize>> = inputs
        .iter()
        .map(|x| broadcast_strides(x.shape, x.strides, shape))
        .collect::<Result<_>>()?;
    let refs: Vec<&[usize]> = strides.iter().map(|s| s.as_slice()).collect();
    let (cshape, cstrides) = collapse(shape, &refs);
    if cshape.len() > MAX_DIMS {
        return Err(Error::TooManyDims {
            ndim: cshape.len(),
            max: MAX_DIMS,
        });
    }
    let mut p = params.layout(&cshape, &cstrides);
    p.n = shape.iter().product::<usize>() as u32;
    for (k, x) in inputs.iter().enumerate() {
        p.offs[k] = x.offset as u32;
    }
    Ok((p, cshape, cstrides))
}

/// Runs an elementwise kernel: `inputs` (of dtype `input`) broadcast to the shape of `out`
/// (a fresh contiguous array), writing `out`.
fn run<O: Element>(
    dev: &crate::Device,
    input: DType,
    expr: (String, bool),
    inputs: &[Operand<'_>],
    out: Array<O>,
    params: Params,
) -> Result<Array<O>> {
    let n = out.len();
    if n == 0 {
        return Ok(out);
    }
    let plain = is_plain(inputs, &out.shape);
    // (layout, vectorised, elements per invocation of a strided entry, parameters)
    let (layout, vec, per, params) = if plain {
        let vec =
            expr.1 && n.is_multiple_of(4) && inputs.iter().all(|x| x.offset.is_multiple_of(4));
        let q = if vec { 4 } else { 1 };
        let mut p = params;
        p.n = (n / q) as u32;
        for (k, x) in inputs.iter().enumerate() {
            p.offs[k] = (x.offset / q) as u32;
        }
        (Layout::Contig, vec, q as u32, p)
    } else {
        let (p, cshape, cstrides) = broadcast_layout(inputs, &out.shape, params)?;
        // Where every operand's rows are contiguous or broadcast: four elements of a row per
        // invocation (one index computation for four), with vec4 loads of contiguous rows
        // when they are aligned. Elsewhere (a transposed operand) one per invocation, which
        // keeps neighbouring invocations on neighbouring rows.
        let inner = cshape.len() - 1;
        let rows_ok = cshape[inner].is_multiple_of(4) && cstrides.iter().all(|s| s[inner] <= 1);
        let aligned = inputs.iter().zip(&cstrides).all(|(x, s)| {
            s[inner] == 0
                || (x.offset.is_multiple_of(4) && s[..inner].iter().all(|d| d.is_multiple_of(4)))
        });
        match (rows_ok, aligned && expr.1) {
            (true, true) => (Layout::Rows, true, 4, p),
            (true, false) => (Layout::Strided, false, 4, p),
            (false, _) => (Layout::Strided, false, 1, p),
        }
    };
    let strided = layout != Layout::Contig;
    let entry = match (inputs.len(), layout) {
        (1, Layout::Contig) => "unary_contig",
        (1, Layout::Strided) => "unary_strided",
        (1, Layout::Rows) => "unary_rows",
        (2, Layout::Contig) => "binary_contig",
        (2, Layout::Strided) => "binary_strided",
        (2, Layout::Rows) => "binary_rows",
        (_, Layout::Contig) => "ternary_contig",
        (_, Layout::Strided) => "ternary_strided",
        (_, Layout::Rows) => "ternary_rows",
    };
    let def = match inputs.len() {
        1 => op1_def(&expr.0),
        2 => op2_def(&expr.0),
        _ => WHERE_DEF.to_string(),
    };
    let key = Key {
        family: "elementwise",
        entry,
        variant: format!("{def}|{input}|{}|{vec}", O::DTYPE),
        inputs: inputs.len(),
        wg: WG,
        ndim: if strided { params.ndim } else { 0 },
        per: if strided { per } else { 0 },
    };
    let function = ["op1", "op2", "op3"][inputs.len() - 1];
    let kernel = dev.kernel(key, || spec(input, O::DTYPE, vec, function, def))?;
    let bindings: Vec<Binding<'_>> = inputs.iter().map(|x| x.binding).collect();
    let sizes = [
        input.size(),
        input.size(),
        DType::U32.size(),
        O::DTYPE.size(),
    ];
    let geometry = (strided, per, sizes);
    launch_windows(dev, &kernel, &params, &bindings, out.binding(), geometry)?;
    Ok(out)
}

/// A kernel's walk for [`launch_windows`]: strided (or contiguous), elements per item, and
/// the element sizes of inputs a, b, c and of the output.
type Geometry = (bool, u32, [usize; 4]);

/// Dispatches an elementwise kernel whose `params` are set for the whole output. When an
/// operand (or the output) spans more bytes than one storage binding takes, the work is split
/// into pieces that each bind windows of the buffers (offsets rebased to the windows): runs
/// of the flat index for contiguous layouts, boxes along the outermost axes for strided ones.
fn launch_windows(
    dev: &crate::Device,
    kernel: &crate::kernel::cache::Kernel,
    params: &Params,
    inputs: &[Binding<'_>],
    out: Binding<'_>,
    (strided, per, sizes): Geometry,
) -> Result<()> {
    let max = dev.limits().max_storage_buffer_binding_size & !3;
    if inputs.iter().chain([&out]).all(|b| b.bytes <= max) {
        let work = if strided { params.n / per } else { params.n };
        return dev.launch(kernel, params, inputs, out, Work::Items(work));
    }
    let align = dev.limits().min_storage_buffer_offset_alignment.max(4) as usize;
    // Window starts, in elements: aligned for the binding, and multiples of 4 elements so
    // that vec4 variants keep whole vectors.
    let quantum = |size: usize| align.div_ceil(size).max(4);
    let win = |k: usize, lo: usize, hi: usize| -> (usize, bool) {
        let base = lo / quantum(sizes[k]) * quantum(sizes[k]);
        (base, ((hi + 1 - base) * sizes[k]) as u64 <= max)
    };
    let too_large = || Error::BufferTooLarge {
        requested: inputs
            .iter()
            .chain([&out])
            .map(|b| b.bytes)
            .max()
            .unwrap_or(0),
        max,
    };
    let mut pieces: Vec<(Params, Vec<Binding<'_>>, Binding<'_>, u32)> = Vec::new();
    if !strided {
        // Contiguous: n and offsets count items of `per` elements.
        let per = per as usize;
        let n = params.n as usize * per;
        let widest = sizes.iter().copied().max().unwrap_or(4);
        // Chunks start at multiples of `step` elements, aligned for every element size.
        let step = quantum(1);
        let chunk = (max as usize / widest).saturating_sub(step) / step * step;
        if chunk == 0 {
            return Err(too_large());
        }
        let mut c0 = 0;
        while c0 < n {
            let c1 = (c0 + chunk).min(n);
            let mut p = *params;
            p.n = ((c1 - c0) / per) as u32;
            let mut bound = Vec::with_capacity(inputs.len());
            for (k, b) in inputs.iter().enumerate() {
                let lo = params.offs[k] as usize * per + c0;
                let (base, ok) = win(k, lo, lo + (c1 - c0) - 1);
                if !ok {
                    return Err(too_large());
                }
                p.offs[k] = ((lo - base) / per) as u32;
                bound.push(window(b, base, lo + (c1 - c0), sizes[k]));
            }
            let o = window(&out, c0, c1, sizes[3]);
            pieces.push((p, bound, o, p.n));
            c0 = c1;
        }
    } else {
        let ndim = params.ndim as usize;
        let shape: Vec<usize> = params.shape[..ndim].iter().map(|&s| s as usize).collect();
        let mut ostride = vec![1usize; ndim];
        for d in (0..ndim.saturating_sub(1)).rev() {
            ostride[d] = ostride[d + 1] * shape[d + 1];
        }
        let offs: Vec<usize> = (0..inputs.len()).map(|k| params.offs[k] as usize).collect();
        let ctx = Boxes {
            params,
            inputs,
            out: &out,
            shape: &shape,
            ostride: &ostride,
            per: per as usize,
            sizes,
            max,
            quantum: &quantum,
        };
        ctx.split(0, &offs, 0, &mut pieces).ok_or_else(too_large)?;
    }
    for (p, bound, o, work) in &pieces {
        dev.launch(kernel, p, bound, *o, Work::Items(*work))?;
    }
    Ok(())
}

/// `b` bound from element `base` to element `end` (elements of `size` bytes).
fn window<'a>(b: &Binding<'a>, base: usize, end: usize, size: usize) -> Binding<'a> {
    Binding {
        buffer: b.buffer,
        bytes: (end * size) as u64,
        window: (base * size) as u64,
    }
}

/// The split of a strided elementwise dispatch into boxes that fit one binding window.
struct Boxes<'a, 'b, Q: Fn(usize) -> usize> {
    params: &'a Params,
    inputs: &'a [Binding<'b>],
    out: &'a Binding<'b>,
    shape: &'a [usize],
    /// Strides of the (contiguous) output.
    ostride: &'a [usize],
    per: usize,
    sizes: [usize; 4],
    max: u64,
    quantum: &'a Q,
}

type Piece<'b> = (Params, Vec<Binding<'b>>, Binding<'b>, u32);

impl<'b, Q: Fn(usize) -> usize> Boxes<'_, 'b, Q> {
    /// The piece for indices `j0..j1` of axis `d` (outer axes fixed: their contribution is in
    /// `offs` and `start`), or `None` when a window would not fit.
    fn piece(
        &self,
        d: usize,
        offs: &[usize],
        start: usize,
        j0: usize,
        j1: usize,
    ) -> Option<Piece<'b>> {
        let ndim = self.shape.len();
        let mut p = *self.params;
        let count = (j1 - j0) * self.ostride[d];
        let mut bound = Vec::with_capacity(offs.len());
        for (k, b) in self.inputs.iter().enumerate() {
            let st = |e: usize| p.strides[k][e] as usize;
            let lo = offs[k] + j0 * st(d);
            let tail: usize = (d + 1..ndim).map(|e| (self.shape[e] - 1) * st(e)).sum();
            let hi = lo + (j1 - j0 - 1) * st(d) + tail;
            let q = (self.quantum)(self.sizes[k]);
            let base = lo / q * q;
            if ((hi + 1 - base) * self.sizes[k]) as u64 > self.max {
                return None;
            }
            p.offs[k] = (lo - base) as u32;
            bound.push(window(b, base, hi + 1, self.sizes[k]));
        }
        // The output window starts at an aligned element at or before the piece's first.
        let o0 = start + j0 * self.ostride[d];
        let q = (self.quantum)(self.sizes[3]);
        let base = o0 / q * q;
        if ((o0 + count - base) * self.sizes[3]) as u64 > self.max {
            return None;
        }
        p.offs[3] = (o0 - base) as u32;
        for e in 0..d {
            p.shape[e] = 1;
        }
        p.shape[d] = (j1 - j0) as u32;
        p.n = count as u32;
        let o = window(self.out, base, o0 + count, self.sizes[3]);
        Some((p, bound, o, (count / self.per) as u32))
    }

    /// Splits axis `d` (outer axes fixed) into pieces; `None` when some part cannot be bound.
    fn split(
        &self,
        d: usize,
        offs: &[usize],
        start: usize,
        out: &mut Vec<Piece<'b>>,
    ) -> Option<()> {
        let extent = self.shape[d];
        // Pieces of the innermost axis keep whole items of `per` elements.
        let q = if d + 1 == self.shape.len() {
            self.per
        } else {
            1
        };
        let mut j = 0;
        while j < extent {
            let end = |m: usize| (j + m * q).min(extent);
            if let Some(first) = self.piece(d, offs, start, j, end(1)) {
                // The most multiples of q that fit (the spans grow with the count).
                let (mut lo, mut hi) = (1usize, (extent - j).div_ceil(q));
                let mut best = first;
                while lo < hi {
                    let mid = lo + (hi - lo).div_ceil(2);
                    match self.piece(d, offs, start, j, end(mid)) {
                        Some(p) => {
                            best = p;
                            lo = mid;
                        }
                        None => hi = mid - 1,
                    }
                }
                out.push(best);
                j = end(lo);
            } else if d + 1 < self.shape.len() {
                // One index of this axis at a time, split along the next axis.
                for jj in j..end(1) {
                    let offs: Vec<usize> = offs
                        .iter()
                        .enumerate()
                        .map(|(k, &o)| o + jj * self.params.strides[k][d] as usize)
                        .collect();
                    self.split(d + 1, &offs, start + jj * self.ostride[d], out)?;
                }
                j = end(1);
            } else {
                return None;
            }
        }
        Some(())
    }
}

/// Applies a one-operand map; `scalars` are its arguments `arg(0u)`, `arg(1u)`.
pub(crate) fn map_unary<T: Element, O: Element>(
    x: &Array<T>,
    op: Unary,
    scalars: &[T],
) -> Result<Array<O>> {
    let out = output::<O>(&x.dev, op.name(), T::DTYPE, x.shape.clone())?;
    map_unary_into(x, op, scalars, out)
}

/// Applies a one-operand map into `out`, a fresh contiguous array of `x`'s shape.
pub(crate) fn map_unary_into<T: Element, O: Element>(
    x: &Array<T>,
    op: Unary,
    scalars: &[T],
    out: Array<O>,
) -> Result<Array<O>> {
    let expr = match op {
        Unary::Cast => Some(cast_expr(T::DTYPE, O::DTYPE)),
        _ => op.expr(T::DTYPE),
    }
    .ok_or_else(|| x.dev.unsupported(op.name(), T::DTYPE))?;
    run::<O>(
        &x.dev,
        T::DTYPE,
        expr,
        &[x.operand()],
        out,
        Params::new(0).scalars(scalars),
    )
}

fn map_binary<T: Element, O: Element>(x: &Array<T>, y: &Array<T>, op: Binary) -> Result<Array<O>> {
    x.same_device(op.name(), &y.dev)?;
    let shape = broadcast_shapes(op.name(), &x.shape, &y.shape)?;
    let expr = op
        .expr(T::DTYPE, "a", "b")
        .ok_or_else(|| x.dev.unsupported(op.name(), T::DTYPE))?;
    let out = output::<O>(&x.dev, op.name(), T::DTYPE, shape)?;
    run::<O>(
        &x.dev,
        T::DTYPE,
        expr,
        &[x.operand(), y.operand()],
        out,
        Params::new(0),
    )
}

macro_rules! binary_methods {
    ($( $name:ident, $scalar:ident, $op:ident, $doc:literal, $example:literal; )*) => {$(
        #[doc = concat!($doc, ", with NumPy broadcasting.")]
        ///
        /// # Errors
        /// [`Error::ShapeMismatch`] when the shapes do not broadcast together;
        /// [`Error::Unsupported`] where the operation does not exist for `T`.
        ///
        /// ```
        /// # let dev = gpuarray::Device::new()?;
        /// let x = dev.from_slice(&[1.0f32, 2.0, 3.0, 4.0], [2, 2])?;
        /// let y = dev.from_slice(&[2.0f32, 0.5], [2])?;
        #[doc = concat!("let z = x.", stringify!($name), "(&y)?;")]
        #[doc = concat!("let expected = [", $example, "];")]
        /// assert!(z.to_vec()?.iter().zip(expected).all(|(a, b)| (a - b).abs() < 1e-5));
        /// assert!(x.add(&dev.zeros::<f32>([3])?).is_err());
        /// # Ok::<(), gpuarray::Error>(())
        /// ```
        pub fn $name(&self, other: &Array<T>) -> Result<Array<T>> {
            map_binary(self, other, Binary::$op)
        }

        #[doc = concat!($doc, " with a scalar as the second operand.")]
        ///
        /// # Errors
        /// [`Error::Unsupported`] where the operation does not exist for `T`.
        ///
        /// ```
        /// # let dev = gpuarray::Device::new()?;
        /// let x = dev.from_slice(&[1.0f32, 2.0], [2])?;
        #[doc = concat!("let z = x.", stringify!($scalar), "(2.0)?;")]
        /// assert_eq!(z.len(), 2);
        /// # Ok::<(), gpuarray::Error>(())
        /// ```
        pub fn $scalar(&self, value: T) -> Result<Array<T>> {
            map_unary(self, Unary::Scalar(Binary::$op), &[value])
        }
    )*};
}

macro_rules! comparison_methods {
    ($( $name:ident, $scalar:ident, $op:ident, $sym:literal; )*) => {$(
        #[doc = concat!("Elementwise `self ", $sym, " other` as a mask: a `u32` array of 0 and 1, with broadcasting.")]
        ///
        /// # Errors
        /// [`Error::ShapeMismatch`] when the shapes do not broadcast together.
        ///
        /// ```
        /// # let dev = gpuarray::Device::new()?;
        /// let x = dev.from_slice(&[1.0f32, 2.0, 3.0], [3])?;
        /// let y = dev.from_slice(&[2.0f32], [1])?;
        #[doc = concat!("let m = x.", stringify!($name), "(&y)?;")]
        /// assert!(m.to_vec()?.iter().all(|&v| v <= 1));
        /// # Ok::<(), gpuarray::Error>(())
        /// ```
        pub fn $name(&self, other: &Array<T>) -> Result<Array<u32>> {
            map_binary(self, other, Binary::$op)
        }

        #[doc = concat!("Elementwise `self ", $sym, " value` as a mask of 0 and 1 (`u32`).")]
        ///
        /// # Errors
        /// [`Error::Unsupported`] when the adapter lacks `T`.
        ///
        /// ```
        /// # let dev = gpuarray::Device::new()?;
        /// let x = dev.from_slice(&[1i32, 2, 3], [3])?;
        #[doc = concat!("let m = x.", stringify!($scalar), "(2)?;")]
        /// assert_eq!(m.len(), 3);
        /// # Ok::<(), gpuarray::Error>(())
        /// ```
        pub fn $scalar(&self, value: T) -> Result<Array<u32>> {
            map_unary(self, Unary::Scalar(Binary::$op), &[value])
        }
    )*};
}

macro_rules! unary_methods {
    ($( $name:ident, $op:ident, $doc:literal; )*) => {$(
        #[doc = $doc]
        ///
        /// # Errors
        /// [`Error::Unsupported`] where the operation does not exist for `T` on this
        /// adapter (the transcendental functions of f64).
        ///
        /// ```
        /// # let dev = gpuarray::Device::new()?;
        /// let x = dev.from_slice(&[0.25f32, 0.5, 2.0], [3])?;
        #[doc = concat!("let y = x.", stringify!($name), "()?;")]
        /// assert_eq!(y.shape(), x.shape());
        /// # Ok::<(), gpuarray::Error>(())
        /// ```
        pub fn $name(&self) -> Result<Array<T>> {
            map_unary(self, Unary::$op, &[])
        }
    )*};
}

impl<T: Element> Array<T> {
    binary_methods! {
        add, add_scalar, Add, "Elementwise sum", "3.0, 2.5, 5.0, 4.5";
        sub, sub_scalar, Sub, "Elementwise difference", "-1.0, 1.5, 1.0, 3.5";
        mul, mul_scalar, Mul, "Elementwise product", "2.0, 1.0, 6.0, 2.0";
        div, div_scalar, Div, "Elementwise quotient (integers: truncated toward zero as Rust's `/`, and 0 where the divisor is 0, as NumPy)", "0.5, 4.0, 1.5, 8.0";
        rem, rem_scalar, Rem, "Elementwise remainder with the sign of the dividend, as Rust's `%` (0 where an integer divisor is 0). For floats, `x - y * trunc(x / y)` corrected where the division is off by an ulp: within a rounding of a multiple of `y` it may give 0 rather than a value just below `|y|`", "1.0, 0.0, 1.0, 0.0";
        maximum, maximum_scalar, Maximum, "Elementwise maximum (NaN if either is NaN)", "2.0, 2.0, 3.0, 4.0";
        minimum, minimum_scalar, Minimum, "Elementwise minimum (NaN if either is NaN)", "1.0, 0.5, 2.0, 0.5";
        pow, pow_scalar, Pow, "Elementwise power, NumPy's: negative bases with integral exponents, 0^0 = 1; integer exponents below 0 give 0 except for bases 1 and -1. Not for f64", "1.0, 1.4142135, 9.0, 2.0";
    }

    comparison_methods! {
        eq, eq_scalar, Eq, "==";
        ne, ne_scalar, Ne, "!=";
        lt, lt_scalar, Lt, "<";
        le, le_scalar, Le, "<=";
        gt, gt_scalar, Gt, ">";
        ge, ge_scalar, Ge, ">=";
    }

    /// `value - self`, elementwise.
    ///
    /// ```
    /// # let dev = gpuarray::Device::new()?;
    /// let x = dev.from_slice(&[1i32, 5], [2])?;
    /// assert_eq!(x.rsub_scalar(10)?.to_vec()?, vec![9, 5]);
    /// # Ok::<(), gpuarray::Error>(())
    /// ```
    ///
    /// # Errors
    /// [`Error::Unsupported`] when the adapter lacks `T`.
    pub fn rsub_scalar(&self, value: T) -> Result<Array<T>> {
        map_unary(self, Unary::ScalarLeft(Binary::Sub), &[value])
    }

    /// `value / self`, elementwise.
    ///
    /// ```
    /// # let dev = gpuarray::Device::new()?;
    /// let x = dev.from_slice(&[2.0f32, 4.0], [2])?;
    /// assert_eq!(x.rdiv_scalar(1.0)?.to_vec()?, vec![0.5, 0.25]);
    /// # Ok::<(), gpuarray::Error>(())
    /// ```
    ///
    /// # Errors
    /// [`Error::Unsupported`] when the adapter lacks `T`.
    pub fn rdiv_scalar(&self, value: T) -> Result<Array<T>> {
        map_unary(self, Unary::ScalarLeft(Binary::Div), &[value])
    }

    /// Each element clamped to `[lo, hi]` (NaN stays NaN).
    ///
    /// ```
    /// # let dev = gpuarray::Device::new()?;
    /// let x = dev.from_slice(&[-3i32, 0, 9], [3])?;
    /// assert_eq!(x.clip(-1, 5)?.to_vec()?, vec![-1, 0, 5]);
    /// # Ok::<(), gpuarray::Error>(())
    /// ```
    ///
    /// # Errors
    /// [`Error::Unsupported`] when the adapter lacks `T`.
    pub fn clip(&self, lo: T, hi: T) -> Result<Array<T>> {
        map_unary(self, Unary::Clip, &[lo, hi])
    }

    /// Elements of `x` where `mask` is non-zero, else of `y`, broadcasting all three.
    ///
    /// # Errors
    /// [`Error::ShapeMismatch`] when the shapes do not broadcast together.
    ///
    /// ```
    /// use gpuarray::Array;
    /// # let dev = gpuarray::Device::new()?;
    /// let x = dev.from_slice(&[1.0f32, 2.0, 3.0], [3])?;
    /// let y = dev.zeros::<f32>([3])?;
    /// let m = x.gt_scalar(1.5)?;
    /// assert_eq!(Array::where_(&m, &x, &y)?.to_vec()?, vec![0.0, 2.0, 3.0]);
    /// # Ok::<(), gpuarray::Error>(())
    /// ```
    pub fn where_(mask: &Array<u32>, x: &Array<T>, y: &Array<T>) -> Result<Array<T>> {
        x.same_device("where", &y.dev)?;
        x.same_device("where", &mask.dev)?;
        let xy = broadcast_shapes("where", &x.shape, &y.shape)?;
        let shape = broadcast_shapes("where", &xy, &mask.shape)?;
        let out = output::<T>(&x.dev, "where", T::DTYPE, shape)?;
        run::<T>(
            &x.dev,
            T::DTYPE,
            (WHERE_DEF.to_string(), true),
            &[x.operand(), y.operand(), mask.operand()],
            out,
            Params::new(0),
        )
    }
}

impl<T: Signed> Array<T> {
    unary_methods! {
        neg, Neg, "Elementwise negation.";
        abs, Abs, "Elementwise absolute value.";
        sign, Sign, "Elementwise sign: -1, 0 or 1.";
    }
}

impl<T: Float> Array<T> {
    unary_methods! {
        exp, Exp, "Elementwise e^x.";
        exp2, Exp2, "Elementwise 2^x.";
        log, Log, "Elementwise natural logarithm.";
        log2, Log2, "Elementwise base-2 logarithm.";
        log1p, Log1p, "Elementwise ln(1 + x), accurate near 0.";
        expm1, Expm1, "Elementwise e^x - 1, accurate near 0.";
        sqrt, Sqrt, "Elementwise square root.";
        rsqrt, Rsqrt, "Elementwise 1 / sqrt(x).";
        sin, Sin, "Elementwise sine.";
        cos, Cos, "Elementwise cosine.";
        tan, Tan, "Elementwise tangent.";
        tanh, Tanh, "Elementwise hyperbolic tangent.";
        sigmoid, Sigmoid, "Elementwise logistic function 1 / (1 + e^-x).";
        floor, Floor, "Elementwise floor.";
        ceil, Ceil, "Elementwise ceiling.";
        round, Round, "Elementwise rounding to the nearest integer, halves to even (as NumPy).";
    }
}

macro_rules! operator {
    ($trait:ident, $method:ident, $call:ident) => {
        impl<T: Element> ops::$trait<&Array<T>> for &Array<T> {
            type Output = Array<T>;
            /// # Panics
            /// When the shapes do not broadcast together (as ndarray's operators do); use
            /// the named method for a `Result`.
            fn $method(self, rhs: &Array<T>) -> Array<T> {
                self.$call(rhs).unwrap_or_else(|e| panic!("{e}"))
            }
        }
    };
}

operator!(Add, add, add);
operator!(Sub, sub, sub);
operator!(Mul, mul, mul);
operator!(Div, div, div);
operator!(Rem, rem, rem);

impl<T: Signed> ops::Neg for &Array<T> {
    type Output = Array<T>;
    /// # Panics
    /// When the device fails; use [`Array::neg`] for a `Result`.
    fn neg(self) -> Array<T> {
        Array::neg(self).unwrap_or_else(|e| panic!("{e}"))
    }
}
