//! Reductions of complex arrays: sums and means componentwise (the real reductions of the
//! components, whose axis is kept), products by pairwise complex multiplication (a tree
//! over the reduced elements, one elementwise dispatch per level, so the rounding error
//! grows with the logarithm of the count). The reductions that need an order refuse them.

use super::dispatch::reduce;
use super::source::Op;
use crate::array::complex::by_component;
use crate::array::Array;
use crate::dtype::{DType, Element};
#[allow(unused_imports)]
use crate::error::Error;
use crate::error::Result;
use crate::shape::Axes;

/// [`reduce`] of a complex `x` over `axes` (all when `None`).
pub(super) fn reduce_complex<T: Element, O: Element>(
    x: &Array<T>,
    op: Op,
    axes: Option<&[usize]>,
    keepdims: bool,
) -> Result<Array<O>> {
    let name = op.name();
    let dev = &x.dev;
    dev.accept(name, T::DTYPE, DType::is_complex)?;
    if O::DTYPE != T::DTYPE || !matches!(op, Op::Sum | Op::Mean | Op::Prod) {
        return Err(dev.unsupported(name, T::DTYPE));
    }
    let all: Vec<usize> = (0..x.ndim()).collect();
    let axes = axes.unwrap_or(&all);
    if op == Op::Prod {
        return prod(&x.reinterpret::<O>(), axes, keepdims);
    }
    by_component!(T::DTYPE, R => Ok(
        reduce::<R, R>(&x.components(), op, Some(axes), keepdims)?.as_complex::<O>()
    ))
}

/// The product over `axes` (resolved, sorted): the reduced axes moved first and merged
/// (one copy where the layout needs it), then halves multiplied until one row is left.
fn prod<T: Element>(x: &Array<T>, axes: &[usize], keepdims: bool) -> Result<Array<T>> {
    let nd = x.ndim();
    let kept: Vec<usize> = (0..nd).filter(|d| !axes.contains(d)).collect();
    let n: usize = axes.iter().map(|&d| x.shape[d]).product();
    let m: usize = kept.iter().map(|&d| x.shape[d]).product();
    let shape: Vec<usize> = if keepdims {
        (0..nd)
            .map(|d| if axes.contains(&d) { 1 } else { x.shape[d] })
            .collect()
    } else {
        kept.iter().map(|&d| x.shape[d]).collect()
    };
    if n == 0 {
        return by_component!(T::DTYPE, R => x.dev.ones::<R>(shape)?.cast::<T>());
    }
    let mut perm = axes.to_vec();
    perm.extend(&kept);
    let mut cur = x.transpose(&perm)?.reshape([n, m])?;
    while cur.shape[0] > 1 {
        let k = cur.shape[0];
        let h = k / 2;
        let p = cur
            .slice_axis(0, 0..h)?
            .mul(&cur.slice_axis(0, h..2 * h)?)?;
        cur = if k % 2 == 1 {
            Array::concatenate(&[&p, &cur.slice_axis(0, 2 * h..k)?], 0)?
        } else {
            p
        };
    }
    cur.reshape(shape)
}

/// The mean of a complex `x` over `axis` (each component's), for `ComplexOps::mean_axis`.
pub(crate) fn mean_complex<T: Element>(
    x: &Array<T>,
    axis: Axes,
    keepdims: bool,
) -> Result<Array<T>> {
    let axes = axis.resolve_opt(x.ndim(), "mean")?;
    reduce(x, Op::Mean, axes.as_deref(), keepdims)
}
