//! The NaN-ignoring reductions (NumPy's `nansum`, `nanmax`, ...): one pass each (two for
//! the variance, the means first), in which a NaN element loads as the reduction's
//! identity. Integers have no NaN: for them these are the plain reductions.

use crate::array::Array;
use crate::dtype::{Element, Float};
// For the methods' doc links.
#[cfg(doc)]
use crate::error::Error;
use crate::error::Result;
use crate::shape::Axes;

use super::dispatch::reduce;
use super::reduce_axes;
use super::source::Op;
use crate::ops::index::widen;

/// `op` for elements of `T`: the plain reduction for integers.
fn for_dtype<T: Element>(op: Op) -> Op {
    if T::DTYPE.is_float() {
        return op;
    }
    match op {
        Op::NanSum => Op::Sum,
        Op::NanMax => Op::Max,
        Op::NanMin => Op::Min,
        Op::NanArgMax => Op::ArgMax,
        Op::NanArgMin => Op::ArgMin,
        other => other,
    }
}

/// `op` over the whole array (flattened first for the arg ops, whose index is flat).
fn whole<T: Element, O: Element>(x: &Array<T>, op: Op) -> Result<Array<O>> {
    let op = for_dtype::<T>(op);
    if op.is_arg() {
        reduce(&x.flat()?, op, None, false)
    } else {
        reduce(x, op, None, false)
    }
}

/// The result as computed (the value reductions).
fn value<O: Element>(r: Result<Array<O>>) -> Result<Array<O>> {
    r
}

/// The u32 indices of a nan-arg reduction as i64, `u32::MAX` (every element NaN) as -1.
fn index(r: Result<Array<u32>>) -> Result<Array<i64>> {
    widen(&r?, true)
}

/// `op` along `axis` (see [`Axes`]); with `keepdims` the reduced axes stay.
fn along<T: Element, O: Element>(
    x: &Array<T>,
    op: Op,
    axis: Axes,
    keepdims: bool,
) -> Result<Array<O>> {
    reduce_axes(x, for_dtype::<T>(op), axis, keepdims)
}

macro_rules! nan_reductions {
    ($( $all:ident, $axis:ident, $op:expr, $out:ty, $fin:ident, $doc:literal, $ex:literal; )*) => {$(
        #[doc = concat!($doc, ", over the whole array: a 0-d array (read it with [`Array::to_scalar`]).")]
        ///
        /// # Errors
        /// [`Error::InvalidArgument`] for an empty array where the reduction has no
        /// identity (the extremes and their indices); [`Error::Unsupported`] when the
        /// adapter lacks `T`.
        ///
        /// ```
        /// # let dev = gpuarray::Device::new()?;
        /// let x = dev.from_slice(&[1.0f32, f32::NAN, 3.0, 4.0], [2, 2])?;
        #[doc = concat!("let r = x.", stringify!($all), "()?;")]
        #[doc = concat!("assert!((r.to_scalar()? as f64 - ", $ex, ").abs() < 1e-5);")]
        /// # Ok::<(), gpuarray::Error>(())
        /// ```
        pub fn $all(&self) -> Result<Array<$out>> {
            $fin(whole(self, $op))
        }

        #[doc = concat!($doc, ", along `axis` (one, several or all: see [`Axes`]; \
            negative counts from the end; the index reductions take one axis, or all for the flat index); \
            with `keepdims` the reduced axes stay, with extent 1.")]
        ///
        /// # Errors
        /// [`Error::AxisOutOfRange`]; [`Error::InvalidArgument`] for an axis listed twice;
        /// otherwise as the whole-array form.
        ///
        /// ```
        /// # let dev = gpuarray::Device::new()?;
        /// let x = dev.from_slice(&[1.0f32, f32::NAN, 3.0, 4.0, 5.0, 6.0], [1, 2, 3])?;
        #[doc = concat!("assert_eq!(x.", stringify!($axis), "(-1, false)?.shape(), &[1, 2]);")]
        #[doc = concat!("assert_eq!(x.", stringify!($axis), "(2, true)?.shape(), &[1, 2, 1]);")]
        /// # Ok::<(), gpuarray::Error>(())
        /// ```
        pub fn $axis(&self, axis: impl Into<Axes>, keepdims: bool) -> Result<Array<$out>> {
            $fin(along(self, $op, axis.into(), keepdims))
        }
    )*};
}

impl<T: Element> Array<T> {
    nan_reductions! {
        nansum, nansum_axis, Op::NanSum, T, value, "The sum of the non-NaN elements (0 where all are NaN; integers: [`Array::sum`])", "8.0";
        nanmax, nanmax_axis, Op::NanMax, T, value, "The largest non-NaN element (NaN where all are NaN, as NumPy's value; integers: [`Array::max`])", "4.0";
        nanmin, nanmin_axis, Op::NanMin, T, value, "The smallest non-NaN element (NaN where all are NaN; integers: [`Array::min`])", "1.0";
        nanargmax, nanargmax_axis, Op::NanArgMax, i64, index, "The index of the largest non-NaN element, its first occurrence (flat, C order, for the whole array). An i64 array (NumPy's intp); where every element is NaN the index is -1 (NumPy raises instead; CuPy returns an unspecified index)", "3.0";
        nanargmin, nanargmin_axis, Op::NanArgMin, i64, index, "The index of the smallest non-NaN element, its first occurrence (flat, C order, for the whole array); -1 where every element is NaN", "0.0";
    }
}

impl<T: Float> Array<T> {
    nan_reductions! {
        nanmean, nanmean_axis, Op::NanMean, T, value, "The mean of the non-NaN elements (NaN where all are NaN, and over no elements)", "2.6666667";
    }

    /// The variance of the non-NaN elements (ddof 0), over the whole array: a 0-d array
    /// (NaN where all are NaN).
    ///
    /// # Errors
    /// [`Error::Unsupported`] when the adapter lacks `T`.
    ///
    /// ```
    /// # let dev = gpuarray::Device::new()?;
    /// let x = dev.from_slice(&[1.0f32, f32::NAN, 3.0, 4.0], [2, 2])?;
    /// assert!((x.nanvar()?.to_scalar()? - 1.5555556).abs() < 1e-5);
    /// # Ok::<(), gpuarray::Error>(())
    /// ```
    pub fn nanvar(&self) -> Result<Array<T>> {
        whole(self, Op::NanVar(0))
    }

    /// The standard deviation of the non-NaN elements (ddof 0), over the whole array.
    ///
    /// # Errors
    /// [`Error::Unsupported`] when the adapter lacks `T`.
    ///
    /// ```
    /// # let dev = gpuarray::Device::new()?;
    /// let x = dev.from_slice(&[1.0f32, f32::NAN, 3.0, 4.0], [2, 2])?;
    /// assert!((x.nanstd()?.to_scalar()? - 1.2472191).abs() < 1e-5);
    /// # Ok::<(), gpuarray::Error>(())
    /// ```
    pub fn nanstd(&self) -> Result<Array<T>> {
        whole(self, Op::NanStd(0))
    }

    /// The variance of the non-NaN elements along `axis` (one, several or all: see
    /// [`Axes`]) with `ddof` delta degrees of freedom: the sum of their squared deviations
    /// from their mean over `count - ddof`, NaN where that is not positive (as NumPy,
    /// which warns). Two passes: the means, then the deviations. With `keepdims` the
    /// reduced axes stay, with extent 1 (NumPy's `nanvar(axis=, ddof=, keepdims=)`).
    ///
    /// # Errors
    /// [`Error::AxisOutOfRange`]; [`Error::InvalidArgument`] for an axis listed twice;
    /// [`Error::Unsupported`] when the adapter lacks `T`.
    ///
    /// ```
    /// # let dev = gpuarray::Device::new()?;
    /// let x = dev.from_slice(&[1.0f32, f32::NAN, 3.0, 5.0], [2, 2])?;
    /// assert!((x.nanvar_axis(.., 1, false)?.to_scalar()? - 4.0).abs() < 1e-6);
    /// assert_eq!(x.nanvar_axis(-1, 1, false)?.to_vec()?[1], 2.0);
    /// assert_eq!(x.nanvar_axis(-1, 1, true)?.shape(), &[2, 1]);
    /// # Ok::<(), gpuarray::Error>(())
    /// ```
    pub fn nanvar_axis(
        &self,
        axis: impl Into<Axes>,
        ddof: usize,
        keepdims: bool,
    ) -> Result<Array<T>> {
        along(self, Op::NanVar(ddof), axis.into(), keepdims)
    }

    /// The standard deviation of the non-NaN elements along `axis` with `ddof` delta
    /// degrees of freedom: the square root of [`Array::nanvar_axis`].
    ///
    /// # Errors
    /// As [`Array::nanvar_axis`].
    ///
    /// ```
    /// # let dev = gpuarray::Device::new()?;
    /// let x = dev.from_slice(&[1.0f32, f32::NAN, 3.0], [3])?;
    /// assert!((x.nanstd_axis(.., 1, false)?.to_scalar()? - 2f32.sqrt()).abs() < 1e-6);
    /// # Ok::<(), gpuarray::Error>(())
    /// ```
    pub fn nanstd_axis(
        &self,
        axis: impl Into<Axes>,
        ddof: usize,
        keepdims: bool,
    ) -> Result<Array<T>> {
        along(self, Op::NanStd(ddof), axis.into(), keepdims)
    }
}
