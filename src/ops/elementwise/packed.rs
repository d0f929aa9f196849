//! The packed small integers (u8, i8, u16, i16) through the elementwise operations: host
//! side of shaders/packed.wgsl.
//!
//! Every value is computed as i32 (which holds each packed value exactly) with the
//! elementwise table's i32 expression, and a packed result is truncated to its lanes on the
//! store: NumPy's wrapping arithmetic of the narrow types (`200u8 + 100` is 44, `-128i8 /
//! -1` is -128, shifts past the width give 0 or the sign). Casts follow Rust's `as`:
//! from integers by wrapping, from floats by truncation saturated to the target's range (NaN
//! to 0). Inputs may be any view (offsets, strides, broadcasts: lanes are extracted with
//! shifts); packed outputs are fresh contiguous arrays, one invocation per u32 word, so no
//! word has two writers. Writes into an existing packed view (`assign`, `fill`, the `*_into`
//! forms) are refused with [`crate::Error::Unsupported`].

use crate::array::Array;
use crate::device::{Device, Work};
use crate::dtype::{DType, Element};
use crate::error::{Error, Result};
use crate::kernel::cache::Key;
use crate::kernel::launch::{Binding, Params};
use crate::kernel::source::Spec;
use crate::shape::broadcast_shapes;

use super::cast::cast_expr;
use super::plan::{broadcast_layout, is_plain, Operand};
use super::{Binary, Unary};

const SRC: &str = include_str!("../../../shaders/packed.wgsl");
const WG: u32 = 256;

/// The one-line read of element `e` of binding `buf` (`a` or `b`) as i32, for an input of
/// dtype `d`: a lane's bits, sign-extended for i8 and i16, or a wide element converted as
/// Rust's `as` converts it to i32 (`wide_`).
fn lane_def(name: &str, buf: &str, d: DType) -> String {
    let body = if d.is_packed() {
        let l = d.lanes();
        format!("ext_(u32({buf}[e / {l}u]), e % {l}u)")
    } else {
        format!("wide_({buf}[e])")
    };
    format!("fn {name}(e: u32) -> T {{ return {body}; }}")
}

/// `ext_(w, j)`: lane j of word w of packed type `d` as i32 (a placeholder for wide types,
/// whose kernels do not call it).
fn ext_def(d: DType) -> String {
    let body = match d {
        DType::U8 => "T((w >> (8u * j)) & 255u)",
        DType::I8 => "bitcast<i32>(w << (24u - 8u * j)) >> 24u",
        DType::U16 => "T((w >> (16u * j)) & 65535u)",
        DType::I16 => "bitcast<i32>(w << (16u - 16u * j)) >> 16u",
        _ => "T(w)",
    };
    format!("fn ext_(w: u32, j: u32) -> T {{ return {body}; }}")
}

/// `wide_`: a wide element of dtype `d` (the storage type `A`) as i32, with Rust's `as`
/// semantics (the cast table's expression, its `T` the input and `U` the i32 result).
fn wide_def(d: DType) -> String {
    let e = if d.is_packed() {
        "T(a)".to_string()
    } else {
        cast_expr(d, DType::I32)
            .0
            .replace("T(", "A(")
            .replace("U(", "T(")
    };
    format!("fn wide_(a: A) -> T {{ return {e}; }}")
}

/// `pack_` and `lanes_`: a packed output's lane bits, and the lanes per word of the
/// output where it is packed (the `*_words` entries), else of the input (`fold_elems`).
fn pack_defs(input: DType, output: DType) -> (String, String) {
    let (bits, mask) = if output.size() == 2 {
        (16, 65535)
    } else {
        (8, 255)
    };
    let lanes = if output.is_packed() {
        output.lanes()
    } else {
        input.lanes()
    };
    (
        format!("fn pack_(v: U, j: u32) -> u32 {{ return (u32(v) & {mask}u) << ({bits}u * j); }}"),
        format!("fn lanes_() -> u32 {{ return {lanes}u; }}"),
    )
}

/// The combination of [`fold`]: how `fold_elems` joins the values of a word's lanes.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Fold {
    Sum,
    Max,
    Min,
}

/// Words of elements each invocation of `fold_elems` combines (FOLD_WORDS in the shader).
const FOLD_WORDS: usize = 4;

/// The first stage of a whole-array reduction of packed `x`: each four words' worth of
/// elements (in flat order, any layout) summed, or their max or min, as i32;
/// `ceil(len / (4 lanes))` values, which the caller reduces as i32 (a sum of 16 lanes
/// stays well inside i32).
pub(crate) fn fold<T: Element>(x: &Array<T>, how: Fold) -> Result<Array<i32>> {
    let dev = &x.dev;
    let groups = x.len().div_ceil(T::DTYPE.lanes() * FOLD_WORDS);
    let out = output::<i32>(dev, "sum", vec![groups])?;
    if groups == 0 {
        return Ok(out);
    }
    let lanes = T::DTYPE.lanes();
    let contig = x.is_contiguous() && x.offset.is_multiple_of(lanes);
    let p = if contig {
        let mut p = Params::new(x.len() as u32);
        p.ndim = 1;
        p.offs[0] = (x.offset / lanes) as u32;
        p
    } else {
        broadcast_layout(&[x.operand()], &x.shape, Params::new(0))?.0
    };
    let combine = match how {
        Fold::Sum => "x + y",
        Fold::Max => "max(x, y)",
        Fold::Min => "min(x, y)",
    };
    let key = Key {
        family: "packed",
        entry: if contig {
            "fold_elems_contig"
        } else {
            "fold_elems"
        },
        variant: format!("{how:?}|{:?}", T::DTYPE),
        inputs: 1,
        wg: WG,
        ndim: p.ndim,
        per: 1,
    };
    let kernel = dev.kernel(key, || fold_spec(T::DTYPE, combine))?;
    let bindings = [x.binding()];
    dev.launch(
        &kernel,
        &p,
        &bindings,
        out.binding(),
        Work::Items(groups as u32),
    )?;
    Ok(out)
}

/// The variant of `fold_elems` for input `d` joining lanes with expression `combine`.
fn fold_spec(d: DType, combine: &str) -> Spec {
    spec(
        d,
        DType::I32,
        "op1",
        "fn op1(a: T) -> U { return a; }".into(),
    )
    .function(
        "fold_",
        format!("fn fold_(x: U, y: U) -> U {{ return {combine}; }}"),
    )
}

/// The WGSL storage type of `d` in this family: u32 words for the packed types.
fn storage(d: DType) -> &'static str {
    if d.is_packed() {
        "u32"
    } else {
        d.wgsl()
    }
}

/// The source of one variant: inputs of `input`, output of `output`, operation `def`
/// (`op1` or `op2`, by `function`).
pub(crate) fn spec(input: DType, output: DType, function: &'static str, def: String) -> Spec {
    let (pack, lanes) = pack_defs(input, output);
    let result = if output.is_packed() {
        "i32"
    } else {
        output.wgsl()
    };
    Spec::new("packed", SRC)
        .scalar(DType::I32)
        .alias("U", result)
        .alias("A", storage(input))
        .alias("O", storage(output))
        .function("wide_", wide_def(input))
        .function("ext_", ext_def(input))
        .function("lane_a", lane_def("lane_a", "a", input))
        .function("lane_b", lane_def("lane_b", "b", input))
        .function("pack_", pack)
        .function("lanes_", lanes)
        .function(function, def)
}

/// The operation `op1` computing a cast from `from` to `to` (one of them packed) of an i32
/// lane value `a`: the cast table's i32 row for a wide output; for a packed output the value
/// itself (the store wraps it), clamped to the target's range when the source is a float
/// (Rust's saturating `as`; the read has already saturated it to i32).
fn cast_def(from: DType, to: DType) -> String {
    let e = if !to.is_packed() {
        cast_expr(DType::I32, to).0
    } else if from.is_float() {
        let (lo, hi) = match to {
            DType::U8 => (0, 255),
            DType::I8 => (-128, 127),
            DType::U16 => (0, 65535),
            _ => (-32768, 32767),
        };
        format!("clamp(a, T({lo}), T({hi}))")
    } else {
        "a".to_string()
    };
    format!("fn op1(a: T) -> U {{ return {e}; }}")
}

/// Runs operation `(function, def)` over `inputs` (of dtype `input`) broadcast to the shape
/// of `out` (fresh, contiguous); `params` holds the i32 scalar arguments.
fn run<O: Element>(
    dev: &Device,
    input: DType,
    (function, def): (&'static str, String),
    inputs: &[Operand<'_>],
    out: Array<O>,
    params: Params,
) -> Result<Array<O>> {
    let n = out.len();
    if n == 0 {
        return Ok(out);
    }
    let lanes = input.lanes();
    // Contiguous packed operands of the output's shape, each from a word (and a packed
    // output of as many lanes): word loads.
    let words = O::DTYPE.is_packed();
    let contig = input.is_packed()
        && (!words || O::DTYPE.lanes() == lanes)
        && is_plain(inputs, &out.shape)
        && inputs.iter().all(|x| x.offset.is_multiple_of(lanes));
    let p = if contig {
        let mut p = params;
        p.n = n as u32;
        p.ndim = 1;
        for (k, x) in inputs.iter().enumerate() {
            p.offs[k] = (x.offset / lanes) as u32;
        }
        p
    } else {
        broadcast_layout(inputs, &out.shape, params)?.0
    };
    let bindings: Vec<Binding<'_>> = inputs.iter().map(|x| x.binding).collect();
    let max = dev.limits().max_storage_buffer_binding_size & !3;
    if let Some(b) = bindings
        .iter()
        .chain([&out.binding()])
        .find(|b| b.bytes > max)
    {
        return Err(Error::BufferTooLarge {
            requested: b.bytes,
            max,
        });
    }
    let entry = match (inputs.len(), words, contig) {
        (1, true, false) => "unary_words",
        (1, false, false) => "unary_elems",
        (_, true, false) => "binary_words",
        (_, false, false) => "binary_elems",
        (1, true, true) => "unary_words_contig",
        (1, false, true) => "unary_elems_contig",
        (_, true, true) => "binary_words_contig",
        (_, false, true) => "binary_elems_contig",
    };
    let key = Key {
        family: "packed",
        entry,
        variant: format!("{def}|{input:?}|{:?}", O::DTYPE),
        inputs: inputs.len(),
        wg: WG,
        ndim: p.ndim,
        per: 1,
    };
    let kernel = dev.kernel(key, || spec(input, O::DTYPE, function, def))?;
    let work = match (words, contig) {
        (true, _) => n.div_ceil(O::DTYPE.lanes()),
        (false, true) => n.div_ceil(lanes),
        (false, false) => n,
    };
    dev.launch(
        &kernel,
        &p,
        &bindings,
        out.binding(),
        Work::Items(work as u32),
    )?;
    Ok(out)
}

/// A new contiguous output of `shape` for an operation named `op`.
fn output<O: Element>(dev: &Device, op: &'static str, shape: Vec<usize>) -> Result<Array<O>> {
    Array::<O>::alloc_any(dev, op, shape, |b| dev.alloc(b))
}

/// Scalars of `T` as the i32 arguments of the packed kernels (each packed value exactly).
fn wide_scalars<T: Element>(scalars: &[T]) -> Params {
    let wide: Vec<i32> = scalars
        .iter()
        .map(|&v| crate::dtype::packed_i32(v).expect("a packed dtype"))
        .collect();
    Params::new(0).scalars(&wide)
}

/// [`super::map_unary_into`] where `T` or `O` is packed: casts between any dtype and a
/// packed one, and the operations of the table on packed inputs.
pub(super) fn map_unary_into<T: Element, O: Element>(
    x: &Array<T>,
    op: Unary,
    scalars: &[T],
    out: Array<O>,
) -> Result<Array<O>> {
    let def = match op {
        Unary::Cast => cast_def(T::DTYPE, O::DTYPE),
        _ if T::DTYPE.is_packed() => {
            let (e, _) = op
                .expr(DType::I32)
                .ok_or_else(|| x.dev.unsupported(op.name(), T::DTYPE))?;
            format!("fn op1(a: T) -> U {{ return {e}; }}")
        }
        _ => return Err(x.dev.unsupported(op.name(), O::DTYPE)),
    };
    let params = wide_scalars(scalars);
    run(&x.dev, T::DTYPE, ("op1", def), &[x.operand()], out, params)
}

/// [`super::map_unary`] where `T` or `O` is packed.
pub(super) fn map_unary<T: Element, O: Element>(
    x: &Array<T>,
    op: Unary,
    scalars: &[T],
) -> Result<Array<O>> {
    let out = output::<O>(&x.dev, op.name(), x.shape.clone())?;
    map_unary_into(x, op, scalars, out)
}

/// [`super::map_binary`] for packed operands.
pub(super) fn map_binary<T: Element, O: Element>(
    x: &Array<T>,
    y: &Array<T>,
    op: Binary,
) -> Result<Array<O>> {
    x.dev.expect_same(op.name(), &[&y.dev])?;
    let shape = broadcast_shapes(op.name(), &x.shape, &y.shape)?;
    let (e, _) = op
        .expr(DType::I32, "a", "b")
        .ok_or_else(|| x.dev.unsupported(op.name(), T::DTYPE))?;
    let def = format!("fn op2(a: T, b: T) -> U {{ return {e}; }}");
    let out = output::<O>(&x.dev, op.name(), shape)?;
    let inputs = [x.operand(), y.operand()];
    run(&x.dev, T::DTYPE, ("op2", def), &inputs, out, Params::new(0))
}

/// Every variant, for the shader validation test: casts between each packed type and every
/// dtype both ways, and a unary, a scalar, a comparison and a binary operation.
#[cfg(test)]
pub(crate) fn all_specs() -> Vec<Spec> {
    let mut specs = Vec::new();
    for &p in &DType::PACKED {
        for &d in DType::ALL.iter().chain(&DType::PACKED) {
            specs.push(spec(p, d, "op1", cast_def(p, d)));
            specs.push(spec(d, p, "op1", cast_def(d, p)));
        }
        let ops = [
            Binary::Add,
            Binary::FloorDivide,
            Binary::Remainder,
            Binary::Pow,
            Binary::RightShift,
        ];
        for b in ops {
            let (e, _) = b.expr(DType::I32, "a", "b").unwrap();
            specs.push(spec(
                p,
                p,
                "op2",
                format!("fn op2(a: T, b: T) -> U {{ return {e}; }}"),
            ));
        }
        let (e, _) = Binary::Lt.expr(DType::I32, "a", "b").unwrap();
        let lt = format!("fn op2(a: T, b: T) -> U {{ return {e}; }}");
        specs.push(spec(p, DType::Bool, "op2", lt));
        specs.push(fold_spec(p, "max(x, y)"));
        for u in [Unary::Abs, Unary::Scalar(Binary::Sub), Unary::Clip] {
            let (e, _) = u.expr(DType::I32).unwrap();
            specs.push(spec(
                p,
                p,
                "op1",
                format!("fn op1(a: T) -> U {{ return {e}; }}"),
            ));
        }
    }
    specs
}
