//! Elementwise math with NumPy broadcasting. Host side of shaders/elementwise.wgsl.
//!
//! Each operation is a WGSL expression over `a` (and `b`, `c`) specialised per dtype. f16
//! division and math functions are computed in f32 and rounded once, as NumPy does (some
//! drivers' f16 arithmetic is off by several ulps).
//! Contiguous operands of one shape take the `*_contig` entries, vectorised with vec4 loads
//! when every offset and the length are multiples of 4; other layouts take the `*_strided`
//! entries, after adjacent axes that are contiguous in every operand have been merged.
//!
//! The operation table is `table.rs` (each operation's WGSL expression per dtype); `wgsl.rs`
//! builds a kernel's source around one expression; `plan.rs` chooses the layout and
//! launches. The public methods are grouped by mathematical family: `arithmetic`,
//! `exp_log`, `trig`, `rounding`, `float_bits` (the floating-point representation),
//! `int_bits` (bits and divisors of integers), `compare` (comparisons, classification,
//! logic, where), `logical` (bool arrays), `operators`, `assign` (the `*_into` forms),
//! `cast`; `packed` runs the table on u8/i8/u16/i16.

use crate::array::Array;
use crate::dtype::{accepts, DType, Element};
use crate::error::Result;
use crate::kernel::launch::Params;
use crate::memory::pool::BufferHandle;
use crate::shape::broadcast_shapes;

#[macro_use]
mod macros;
mod arithmetic;
mod assign;
mod cast;
mod compare;
mod complex;
mod complex_api;
mod exp_log;
mod float_bits;
mod int_bits;
mod logical;
mod operators;
pub(crate) mod packed;
mod plan;
mod rounding;
mod table;
mod tiles;
mod trig;
mod wgsl;

use cast::cast_expr;
pub(crate) use complex::{cast_complex, conj_any};
pub use complex_api::ComplexOps;
#[cfg(test)]
pub(crate) use packed::all_specs as packed_specs;
use plan::run;
pub(crate) use plan::{broadcast_layout, is_plain, Operand};
pub(crate) use table::{truth, Binary, Unary};
#[cfg(test)]
pub(crate) use wgsl::all_specs;
pub(crate) use wgsl::{library, uses_f64_bits};

/// A new output array, after checking that the adapter has the input dtype; a small one
/// apart from the slabs of `inputs` (see `memory::slab`).
fn output<O: Element>(
    dev: &crate::Device,
    name: &'static str,
    input: DType,
    shape: Vec<usize>,
    inputs: &[&BufferHandle],
) -> Result<Array<O>> {
    dev.require(name, input)?;
    Array::<O>::alloc_with(dev, name, shape, |bytes| dev.alloc_apart(bytes, inputs))
}

/// Applies a one-operand map; `scalars` are its arguments `arg(0u)`, `arg(1u)`.
pub(crate) fn map_unary<T: Element, O: Element>(
    x: &Array<T>,
    op: Unary,
    scalars: &[T],
) -> Result<Array<O>> {
    if T::DTYPE.is_complex() || O::DTYPE.is_complex() {
        return complex::map_unary(x, op, scalars);
    }
    if T::DTYPE.is_packed() || O::DTYPE.is_packed() {
        return packed::map_unary(x, op, scalars);
    }
    let out = output::<O>(&x.dev, op.name(), T::DTYPE, x.shape.clone(), &[&*x.buf])?;
    map_unary_into(x, op, scalars, out)
}

/// Applies a one-operand map into `out`, a fresh contiguous array of `x`'s shape.
pub(crate) fn map_unary_into<T: Element, O: Element>(
    x: &Array<T>,
    op: Unary,
    scalars: &[T],
    out: Array<O>,
) -> Result<Array<O>> {
    // The elementwise family's whitelist: the real dtypes (the packed ones through
    // packed.rs).
    x.dev.accept(op.name(), T::DTYPE, accepts::real)?;
    x.dev.accept(op.name(), O::DTYPE, accepts::real)?;
    if T::DTYPE.is_packed() || O::DTYPE.is_packed() {
        return packed::map_unary_into(x, op, scalars, out);
    }
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
    if T::DTYPE.is_complex() {
        return complex::map_binary(x, y, op);
    }
    x.dev.accept(op.name(), T::DTYPE, accepts::real)?;
    x.dev.accept(op.name(), O::DTYPE, accepts::real)?;
    if T::DTYPE.is_packed() {
        return packed::map_binary(x, y, op);
    }
    x.dev.expect_same(op.name(), &[&y.dev])?;
    let shape = broadcast_shapes(op.name(), &x.shape, &y.shape)?;
    let expr = op
        .expr(T::DTYPE, "a", "b")
        .ok_or_else(|| x.dev.unsupported(op.name(), T::DTYPE))?;
    let out = output::<O>(&x.dev, op.name(), T::DTYPE, shape, &[&*x.buf, &*y.buf])?;
    run::<O>(
        &x.dev,
        T::DTYPE,
        expr,
        &[x.operand(), y.operand()],
        out,
        Params::new(0),
    )
}
