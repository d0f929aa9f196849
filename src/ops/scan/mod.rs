//! Scans along an axis (cumsum, cumprod), differences (diff) and stream compaction
//! (count_nonzero, flatnonzero, nonzero, argwhere, extract). Host side of
//! shaders/scan.wgsl.
//!
//! A scan runs by reduce-then-scan (`plan`): no workgroup ever waits on another, so it
//! relies on nothing WebGPU does not promise; the order of every combination is fixed by
//! the shape, so results are the same bits on every run. f32 and f16 sums accumulate as
//! pairs of f32 (a value and its rounding error), so a running sum of millions of
//! elements stays within an ulp or so of the exact one at every position.
//!
//! This module holds the public methods; `plan` cuts a scan into dispatches, `source`
//! specialises the shader per operation and dtype, `compact` runs stream compaction.

pub(crate) mod compact;
mod plan;
mod source;

#[cfg(test)]
pub(crate) use source::all_specs;

use crate::array::Array;
use crate::dtype::{accepts, Element};
use crate::error::{Error, Result};
use crate::shape::Slice;

use plan::{run, Problem};
use source::{Op, Side};

use crate::shape::{resolve_axis, Axes};

/// The inclusive scan `op` of `x` along `axis`, as an array of `O` of `x`'s shape.
fn scan<T: Element, O: Element>(x: &Array<T>, op: Op, axis: isize) -> Result<Array<O>> {
    let dev = &x.dev;
    // No arithmetic on bools: a running count is `as_u32().cumsum(axis)`.
    dev.accept(op.name(), T::DTYPE, accepts::arith)?;
    let ax = resolve_axis(axis, x.ndim())?;
    let out = Array::<O>::alloc_with(dev, op.name(), x.shape.clone(), |b| {
        dev.alloc_apart(b, &[&x.buf])
    })?;
    if out.is_empty() {
        return Ok(out);
    }
    let c = x.contiguous()?;
    let p = Problem {
        outer: x.shape[..ax].iter().product(),
        len: x.shape[ax],
        inner: x.shape[ax + 1..].iter().product(),
    };
    run(
        dev,
        op,
        T::DTYPE,
        &p,
        (c.binding(), Side::Elem),
        (out.binding(), Side::Elem),
    )?;
    Ok(out)
}

/// [`scan`] along one axis, or of the flattened array for `All`.
fn scan_along<T: Element>(x: &Array<T>, op: Op, axis: Axes) -> Result<Array<T>> {
    match axis.resolve_one(x.ndim(), op.name())? {
        Some(a) => scan(x, op, a as isize),
        None => scan(&x.ravel()?, op, 0),
    }
}

impl<T: Element> Array<T> {
    /// The running sum along `axis` (one axis, negative counts from the end), as NumPy's
    /// `cumsum(x, axis)`: element k is the sum of elements 0..=k of its line; for all axes
    /// (`..` or `None`, NumPy's `axis=None`), of the flattened array (a 1-D result).
    ///
    /// Integers accumulate in their own type and wrap around on overflow; f16 accumulates
    /// in f32 and rounds once per element; f32 accumulates as a pair of f32 (value and
    /// rounding error), so every element is within about an ulp of the exact running sum
    /// however long the axis; f64 in f64. NaN and infinities propagate as in NumPy. The
    /// same input gives the same bits on every run.
    ///
    /// # Errors
    /// [`Error::AxisOutOfRange`] for an axis past the last (or any axis of a 0-d array);
    /// [`Error::InvalidArgument`] for several axes;
    /// [`Error::Unsupported`] when the adapter lacks `T`; [`Error::OutOfMemory`];
    /// [`Error::BufferTooLarge`] for arrays larger than one binding.
    ///
    /// ```
    /// # let dev = gpuarray::Device::new()?;
    /// let x = dev.from_slice(&[1i32, 2, 3, 4, 5, 6], [2, 3])?;
    /// assert_eq!(x.cumsum(1)?.to_vec()?, vec![1, 3, 6, 4, 9, 15]);
    /// assert_eq!(x.cumsum(-2)?.to_vec()?, vec![1, 2, 3, 5, 7, 9]);
    /// assert!(x.cumsum(2).is_err());
    /// assert_eq!(x.cumsum(..)?.to_vec()?, vec![1, 3, 6, 10, 15, 21]);
    /// # Ok::<(), gpuarray::Error>(())
    /// ```
    pub fn cumsum(&self, axis: impl Into<Axes>) -> Result<Array<T>> {
        scan_along(self, Op::Sum, axis.into())
    }

    /// The running product along `axis` (one axis, negative counts from the end; all, of
    /// the flattened array), as NumPy's `cumprod(x, axis)`. Integers wrap around on overflow; f16 accumulates in f32. The
    /// products of a long axis are grouped (a tree inside each tile, then carries), so a
    /// float product that a serial loop would bring back from near overflow (or underflow)
    /// may overflow (or underflow) here.
    ///
    /// # Errors
    /// As [`Array::cumsum`].
    ///
    /// ```
    /// # let dev = gpuarray::Device::new()?;
    /// let x = dev.from_slice(&[1.0f32, 2.0, 3.0, 4.0], [4])?;
    /// assert_eq!(x.cumprod(0)?.to_vec()?, vec![1.0, 2.0, 6.0, 24.0]);
    /// # Ok::<(), gpuarray::Error>(())
    /// ```
    pub fn cumprod(&self, axis: impl Into<Axes>) -> Result<Array<T>> {
        scan_along(self, Op::Prod, axis.into())
    }

    /// The `n`-th discrete difference along `axis`, as NumPy's `diff(x, n, axis)`:
    /// `x[1:] - x[:-1]` along the axis, `n` times; the axis shrinks by `n` (to 0 when `n`
    /// is at least its extent). `n = 0` gives `x` itself. Integers wrap around.
    ///
    /// # Errors
    /// [`Error::InvalidArgument`] for a negative `n`, several axes or all (NumPy's `diff`
    /// has no `axis=None`); [`Error::AxisOutOfRange`] for an axis
    /// past the last (or any axis of a 0-d array); [`Error::Unsupported`] when the adapter
    /// lacks `T`.
    ///
    /// ```
    /// # let dev = gpuarray::Device::new()?;
    /// let x = dev.from_slice(&[1i32, 4, 9, 16], [4])?;
    /// assert_eq!(x.diff(1, 0)?.to_vec()?, vec![3, 5, 7]);
    /// assert_eq!(x.diff(2, -1)?.to_vec()?, vec![2, 2]);
    /// assert!(x.diff(-1, 0).is_err());
    /// # Ok::<(), gpuarray::Error>(())
    /// ```
    pub fn diff(&self, n: isize, axis: impl Into<Axes>) -> Result<Array<T>> {
        self.dev.accept("diff", T::DTYPE, accepts::slots)?;
        if n < 0 {
            return Err(Error::InvalidArgument {
                op: "diff",
                reason: "the order n must not be negative",
            });
        }
        let ax = axis.into().resolve_single(self.ndim(), "diff")?;
        let mut y = self.clone();
        for _ in 0..n {
            if y.shape[ax] <= 1 {
                let mut shape = y.shape.clone();
                shape[ax] = 0;
                return self.dev.zeros::<T>(shape);
            }
            let hi = y.slice_axis(ax, Slice::new(1, None, 1))?;
            let lo = y.slice_axis(ax, Slice::new(0, Some(-1), 1))?;
            y = hi.sub(&lo)?;
        }
        Ok(y)
    }
}
