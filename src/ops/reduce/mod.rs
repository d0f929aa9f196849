//! Reductions over the whole array, one axis or any set of axes. Host side of
//! shaders/reduce.wgsl.
//!
//! Every reduction becomes an M x K problem: M outputs (the kept axes, in order), each
//! reducing K elements (the reduced axes, merged into one strided axis). Where the reduced
//! axes are contiguous the `rows` kernels give each output one or more invocations (a
//! whole workgroup for long rows); where the kept axes are contiguous instead (a sum over
//! an outer axis) the `cols` kernels give each invocation its own column, so that
//! neighbouring invocations read neighbouring addresses. When there are too few outputs to
//! fill the GPU, K is split across workgroups and a second `rows` dispatch reduces the
//! partial results. Layouts whose reduced axes do not merge into one strided axis are
//! copied first, with the reduced axes innermost.
//!
//! The order of every combination is fixed by the shape (and the adapter's kind), so
//! results are bit-identical from run to run; floating-point sums are trees (a short serial
//! walk per invocation, then pairwise in workgroup memory, then across workgroups), so the
//! error grows with log(K), not K.
//!
//! This module holds the public methods; `plan` turns a reduction into M x K problems and
//! plans their work, `source` specialises shaders/reduce.wgsl per operation and dtype,
//! `params` holds the typed parameters of a dispatch and `dispatch` runs the stages.

mod complex;
mod composed;
pub(crate) use complex::mean_complex;
mod dispatch;
mod last;
mod nan;
mod params;
mod plan;
mod shuffle;
mod source;
mod stats;
#[cfg(test)]
mod test_specs;
mod weighted;

pub(crate) use dispatch::reduce_with;
pub(crate) use source::{spec, Load, Reducer};
#[cfg(test)]
pub(crate) use test_specs::all_specs;

use crate::array::Array;
use crate::dtype::{Element, Float, Real};
// For the methods' doc links.
#[cfg(doc)]
use crate::error::Error;
use crate::error::Result;
use crate::shape::Axes;

use crate::ops::index::widen;
use dispatch::reduce;

/// The mean of any dtype's array (floats only: others are refused as `Unsupported`), over
/// every element or the listed axes: for fused expressions (`custom::fuse`), whose dtype is
/// known only at run time.
/// The largest (`max`) or smallest element of any dtype's array over the listed axes (the
/// reduce table refuses dtypes without an order at run time): for fused expressions, whose
/// dtype is known only at run time.
pub(crate) fn extreme_of<T: Element>(
    x: &Array<T>,
    max: bool,
    axes: Option<&[usize]>,
    keepdims: bool,
) -> Result<Array<T>> {
    reduce(x, if max { Op::Max } else { Op::Min }, axes, keepdims)
}

pub(crate) fn mean_of<T: Element>(
    x: &Array<T>,
    axes: Option<&[usize]>,
    keepdims: bool,
) -> Result<Array<T>> {
    reduce(x, Op::Mean, axes, keepdims)
}
use plan::merge;
use source::Op;

/// `reduce` over `axis` (resolved against `x`'s dimensions; `All` is every axis). The arg
/// reductions take one axis, or `All` for the flat index of the flattened array (whose
/// `keepdims` shape is all ones).
fn reduce_axes<T: Element, O: Element>(
    x: &Array<T>,
    op: Op,
    axis: Axes,
    keepdims: bool,
) -> Result<Array<O>> {
    if op.is_arg() {
        return match axis.resolve_one(x.ndim(), op.name())? {
            Some(a) => reduce(x, op, Some(&[a]), keepdims),
            None => {
                let r = reduce(&x.flat()?, op, None, false)?;
                match keepdims {
                    true => r.reshape(vec![1; x.ndim()]),
                    false => Ok(r),
                }
            }
        };
    }
    let axes = axis.resolve_opt(x.ndim(), op.name())?;
    reduce(x, op, axes.as_deref(), keepdims)
}

macro_rules! whole_and_axis {
    ($( $all:ident, $axis:ident, $op:expr, $out:ty, $doc:literal, $ex:literal; )*) => {$(
        #[doc = concat!($doc, ", over the whole array: a 0-d array (read it with [`Array::to_scalar`]).")]
        ///
        /// # Errors
        /// See [`Array::sum_axis`].
        ///
        /// ```
        /// # let dev = gpuarray::Device::new()?;
        /// let x = dev.from_slice(&[1.0f32, 2.0, 3.0, 4.0], [2, 2])?;
        #[doc = concat!("let r = x.", stringify!($all), "()?;")]
        /// assert_eq!(r.shape(), &[] as &[usize]);
        #[doc = concat!("assert!((f64::from(r.to_scalar()?) - ", $ex, ").abs() < 1e-5);")]
        /// # Ok::<(), gpuarray::Error>(())
        /// ```
        pub fn $all(&self) -> Result<Array<$out>> {
            reduce(self, $op, None, false)
        }

        #[doc = concat!($doc, ", along `axis` (one, several or all: see [`Axes`]; negative \
            counts from the end); with `keepdims` the reduced axes stay, with extent 1.")]
        ///
        /// # Errors
        /// See [`Array::sum_axis`].
        ///
        /// ```
        /// # let dev = gpuarray::Device::new()?;
        /// let x = dev.from_slice(&[1.0f32, 2.0, 3.0, 4.0, 5.0, 6.0], [1, 2, 3])?;
        #[doc = concat!("assert_eq!(x.", stringify!($axis), "(-1, false)?.shape(), &[1, 2]);")]
        #[doc = concat!("assert_eq!(x.", stringify!($axis), "([0, 2], true)?.shape(), &[1, 2, 1]);")]
        /// # Ok::<(), gpuarray::Error>(())
        /// ```
        pub fn $axis(&self, axis: impl Into<Axes>, keepdims: bool) -> Result<Array<$out>> {
            reduce_axes(self, $op, axis.into(), keepdims)
        }
    )*};
}

impl<T: Element> Array<T> {
    /// The array as one axis in C order: a view where the layout allows, else a copy.
    pub(super) fn flat(&self) -> Result<Array<T>> {
        if !self.is_forwards() {
            // A reversed axis (negative stride): 1-D as it is, else copied in C order.
            return match self.ndim() {
                1 => Ok(self.clone()),
                _ => self.reshape([self.len()]),
            };
        }
        let merged = merge(
            &self
                .shape
                .iter()
                .copied()
                .zip(self.strides.iter().map(|&s| s as usize))
                .collect::<Vec<_>>(),
        );
        match merged.as_slice() {
            [] => Ok(self.view(vec![self.len()], vec![1], self.offset)),
            [(n, s)] => Ok(self.view(vec![*n], vec![*s as isize], self.offset)),
            _ => self.reshape([self.len()]),
        }
    }

    /// The sum of every element: a 0-d array (read it with [`Array::to_scalar`]).
    ///
    /// # Errors
    /// See [`Array::sum_axis`].
    ///
    /// ```
    /// # let dev = gpuarray::Device::new()?;
    /// let x = dev.from_slice(&[1.0f32, 2.0, 3.0, 4.0], [2, 2])?;
    /// assert_eq!(x.sum()?.to_scalar()?, 10.0);
    /// # Ok::<(), gpuarray::Error>(())
    /// ```
    pub fn sum(&self) -> Result<Array<T>> {
        reduce(self, Op::Sum, None, false)
    }

    /// The sum along `axis`: one axis, several or all (see [`Axes`]; negative axes count
    /// from the end), as NumPy's `sum(axis=, keepdims=)`; with `keepdims` the reduced axes
    /// stay, with extent 1.
    ///
    /// Integers accumulate in their own type and wrap around on overflow (as CuPy's
    /// `sum(dtype=int32)`); f16 accumulates in f32 and rounds once; f32 and f64 in their
    /// own type, as a tree, so the error grows with the logarithm of the count. The same
    /// input on the same adapter gives the same bits every time.
    ///
    /// # Errors
    /// [`Error::AxisOutOfRange`] for an axis not in `-ndim..ndim`;
    /// [`Error::InvalidArgument`] for an axis listed twice, and for max, min, argmax and
    /// argmin over no elements (sum gives 0, prod 1, all 1, any 0, mean, var and std NaN);
    /// [`Error::Unsupported`] when the adapter lacks `T`.
    ///
    /// ```
    /// # let dev = gpuarray::Device::new()?;
    /// let x = dev.from_slice(&[1i32, 2, 3, 4, 5, 6], [1, 2, 3])?;
    /// assert_eq!(x.sum_axis([0, 2], false)?.to_vec()?, vec![6, 15]);
    /// assert_eq!(x.sum_axis(-1, true)?.shape(), &[1, 2, 1]);
    /// assert_eq!(x.sum_axis(.., false)?.to_scalar()?, 21);
    /// assert!(x.sum_axis(3, false).is_err());
    /// # Ok::<(), gpuarray::Error>(())
    /// ```
    pub fn sum_axis(&self, axis: impl Into<Axes>, keepdims: bool) -> Result<Array<T>> {
        reduce_axes(self, Op::Sum, axis.into(), keepdims)
    }

    whole_and_axis! {
        prod, prod_axis, Op::Prod, T, "The product (integers wrap around, as in [`Array::sum_axis`])", "24.0";
        all, all_axis, Op::All, bool, "Whether every element is non-zero (NaN counts as non-zero)", "1.0";
        any, any_axis, Op::Any, bool, "Whether some element is non-zero (NaN counts as non-zero)", "1.0";
    }
}

/// The reductions that need an order: the extremes and their positions.
impl<T: Real> Array<T> {
    whole_and_axis! {
        max, max_axis, Op::Max, T, "The largest element (NaN if any is NaN)", "4.0";
        min, min_axis, Op::Min, T, "The smallest element (NaN if any is NaN)", "1.0";
    }

    /// The flat (C-order) index of the largest element: its first occurrence, or of the
    /// first NaN, as NumPy. A 0-d `i64` array (NumPy's intp).
    ///
    /// # Errors
    /// [`Error::InvalidArgument`] for an empty array.
    ///
    /// ```
    /// # let dev = gpuarray::Device::new()?;
    /// let x = dev.from_slice(&[1.0f32, 7.0, 7.0, 2.0], [2, 2])?;
    /// assert_eq!(x.argmax()?.to_scalar()?, 1);
    /// # Ok::<(), gpuarray::Error>(())
    /// ```
    pub fn argmax(&self) -> Result<Array<i64>> {
        dispatch::reduce_index(&self.flat()?, Op::ArgMax, None, false)
    }

    /// The flat (C-order) index of the smallest element: its first occurrence, or of the
    /// first NaN. A 0-d `i64` array.
    ///
    /// # Errors
    /// [`Error::InvalidArgument`] for an empty array.
    ///
    /// ```
    /// # let dev = gpuarray::Device::new()?;
    /// let x = dev.from_slice(&[3i32, 1, 1, 2], [4])?;
    /// assert_eq!(x.argmin()?.to_scalar()?, 1);
    /// # Ok::<(), gpuarray::Error>(())
    /// ```
    pub fn argmin(&self) -> Result<Array<i64>> {
        dispatch::reduce_index(&self.flat()?, Op::ArgMin, None, false)
    }

    /// The index along `axis` of the largest element of each lane (the first occurrence,
    /// or the first NaN), as NumPy's `argmax(axis=, keepdims=)`: one axis (negative counts
    /// from the end), or all (`..`: the flat index, as [`Array::argmax`]). With `keepdims`
    /// the axis stays, with extent 1, so that the result broadcasts against the input, as
    /// `take_along_axis` wants.
    ///
    /// # Errors
    /// [`Error::AxisOutOfRange`]; [`Error::InvalidArgument`] when the axis is empty or
    /// several axes are given.
    ///
    /// ```
    /// # let dev = gpuarray::Device::new()?;
    /// let x = dev.from_slice(&[1.0f32, 9.0, 3.0, 8.0, 5.0, 6.0], [2, 3])?;
    /// assert_eq!(x.argmax_axis(1, false)?.to_vec()?, vec![1, 0]);
    /// let i = x.argmax_axis(-1, true)?;
    /// assert_eq!((i.shape(), i.to_vec()?), (&[2, 1][..], vec![1, 0]));
    /// # Ok::<(), gpuarray::Error>(())
    /// ```
    pub fn argmax_axis(&self, axis: impl Into<Axes>, keepdims: bool) -> Result<Array<i64>> {
        self.arg_axis(Op::ArgMax, axis.into(), keepdims)
    }

    /// The index along `axis` of the smallest element of each lane (the first occurrence,
    /// or the first NaN); see [`Array::argmax_axis`].
    ///
    /// # Errors
    /// As [`Array::argmax_axis`].
    ///
    /// ```
    /// # let dev = gpuarray::Device::new()?;
    /// let x = dev.from_slice(&[1.0f32, 9.0, 3.0, 8.0, 5.0, 6.0], [2, 3])?;
    /// assert_eq!(x.argmin_axis(0, false)?.to_vec()?, vec![0, 1, 0]);
    /// let i = x.argmin_axis(0, true)?;
    /// assert_eq!((i.shape(), i.to_vec()?), (&[1, 3][..], vec![0, 1, 0]));
    /// # Ok::<(), gpuarray::Error>(())
    /// ```
    pub fn argmin_axis(&self, axis: impl Into<Axes>, keepdims: bool) -> Result<Array<i64>> {
        self.arg_axis(Op::ArgMin, axis.into(), keepdims)
    }

    /// argmax / argmin along one axis, or of the flattened array for `All`.
    fn arg_axis(&self, op: Op, axis: Axes, keepdims: bool) -> Result<Array<i64>> {
        widen(&reduce_axes(self, op, axis, keepdims)?, false)
    }
}

impl<T: Float> Array<T> {
    whole_and_axis! {
        mean, mean_axis, Op::Mean, T, "The arithmetic mean (NaN over no elements)", "2.5";
        norm, norm_axis, Op::Norm, T, "The Euclidean (L2) norm: the square root of the sum of squares", "5.477226";
    }

    /// The variance of every element, `mean(|x - mean(x)|²)` (ddof 0; two passes, the
    /// mean first): a 0-d array.
    ///
    /// # Errors
    /// See [`Array::sum_axis`].
    ///
    /// ```
    /// # let dev = gpuarray::Device::new()?;
    /// let x = dev.from_slice(&[1.0f32, 2.0, 3.0, 4.0], [2, 2])?;
    /// assert!((x.var()?.to_scalar()? - 1.25).abs() < 1e-6);
    /// # Ok::<(), gpuarray::Error>(())
    /// ```
    pub fn var(&self) -> Result<Array<T>> {
        reduce(self, Op::Var(0), None, false)
    }

    /// The variance along `axis` (one, several or all: see [`Axes`]) with `ddof` delta
    /// degrees of freedom: the sum of squared deviations divided by `count - ddof`
    /// (infinite or NaN when that is not positive, as NumPy); with `keepdims` the reduced
    /// axes stay, with extent 1. NumPy's `var(axis=, ddof=, keepdims=)`.
    ///
    /// # Errors
    /// See [`Array::sum_axis`].
    ///
    /// ```
    /// # let dev = gpuarray::Device::new()?;
    /// let x = dev.from_slice(&[1.0f32, 2.0, 3.0, 5.0], [2, 2])?;
    /// assert_eq!(x.var_axis(-1, 0, true)?.to_vec()?, vec![0.25, 1.0]);
    /// let y = dev.from_slice(&[1.0f32, 2.0, 3.0, 4.0], [4])?;
    /// assert!((y.var_axis(.., 1, false)?.to_scalar()? - 5.0 / 3.0).abs() < 1e-6);
    /// # Ok::<(), gpuarray::Error>(())
    /// ```
    pub fn var_axis(&self, axis: impl Into<Axes>, ddof: usize, keepdims: bool) -> Result<Array<T>> {
        reduce_axes(self, Op::Var(ddof), axis.into(), keepdims)
    }

    /// The standard deviation of every element, the square root of the variance (ddof
    /// 0): a 0-d array.
    ///
    /// # Errors
    /// See [`Array::sum_axis`].
    ///
    /// ```
    /// # let dev = gpuarray::Device::new()?;
    /// let x = dev.from_slice(&[1.0f32, 2.0, 3.0, 4.0], [2, 2])?;
    /// assert!((x.std()?.to_scalar()? - 1.118034).abs() < 1e-5);
    /// # Ok::<(), gpuarray::Error>(())
    /// ```
    pub fn std(&self) -> Result<Array<T>> {
        reduce(self, Op::Std(0), None, false)
    }

    /// The standard deviation along `axis` with `ddof` delta degrees of freedom (see
    /// [`Array::var_axis`]); with `keepdims` the reduced axes stay, with extent 1.
    ///
    /// # Errors
    /// See [`Array::sum_axis`].
    ///
    /// ```
    /// # let dev = gpuarray::Device::new()?;
    /// let x = dev.from_slice(&[1.0f32, 3.0, 2.0, 2.0], [2, 2])?;
    /// assert_eq!(x.std_axis(1, 0, false)?.to_vec()?, vec![1.0, 0.0]);
    /// let y = dev.from_slice(&[1.0f32, 3.0], [2])?;
    /// assert!((y.std_axis(.., 1, false)?.to_scalar()? - 2f32.sqrt()).abs() < 1e-6);
    /// # Ok::<(), gpuarray::Error>(())
    /// ```
    pub fn std_axis(&self, axis: impl Into<Axes>, ddof: usize, keepdims: bool) -> Result<Array<T>> {
        reduce_axes(self, Op::Std(ddof), axis.into(), keepdims)
    }
}
