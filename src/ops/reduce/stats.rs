//! Statistics built from the reductions: the peak-to-peak range, and sums, products and
//! means accumulated in another dtype (NumPy's `dtype=`), integer means among them.

use crate::array::Array;
use crate::dtype::{Element, Float};
// For the methods' doc links.
#[cfg(doc)]
use crate::error::Error;
use crate::error::Result;
use crate::ops::sort::resolve_axis;
use crate::shape::Axis;

use super::dispatch::reduce;
use super::source::Op;

/// `op` over the whole array (`None`) or one axis (negative counts from the end).
fn over<T: Element, O: Element>(x: &Array<T>, op: Op, axis: Option<isize>) -> Result<Array<O>> {
    match axis {
        None => reduce(x, op, None, false),
        Some(a) => reduce(x, op, Some(&[resolve_axis(a, x.ndim())?]), false),
    }
}

impl<T: Element> Array<T> {
    /// The range `max - min` of every element (NumPy's `ptp`): a 0-d array. NaN if any
    /// element is NaN; integers wrap around as [`Array::sub`] does (as NumPy's).
    ///
    /// # Errors
    /// [`Error::InvalidArgument`] for an empty array; [`Error::Unsupported`] when the
    /// adapter lacks `T`.
    ///
    /// ```
    /// # let dev = gpuarray::Device::new()?;
    /// let x = dev.from_slice(&[4i32, -2, 7, 1], [2, 2])?;
    /// assert_eq!(x.ptp()?.to_scalar()?, 9);
    /// # Ok::<(), gpuarray::Error>(())
    /// ```
    pub fn ptp(&self) -> Result<Array<T>> {
        self.max()?.sub(&self.min()?)
    }

    /// The range `max - min` along one axis (negative counts from the end), which the
    /// result drops.
    ///
    /// # Errors
    /// [`Error::AxisOutOfRange`]; [`Error::InvalidArgument`] when the axis is empty.
    ///
    /// ```
    /// # let dev = gpuarray::Device::new()?;
    /// let x = dev.from_slice(&[4.0f32, -2.0, 7.0, 1.0, 0.5, 3.0], [2, 3])?;
    /// assert_eq!(x.ptp_axis(-1)?.to_vec()?, vec![9.0, 2.5]);
    /// # Ok::<(), gpuarray::Error>(())
    /// ```
    pub fn ptp_axis(&self, axis: isize) -> Result<Array<T>> {
        let a = Axis(resolve_axis(axis, self.ndim())?);
        self.max_axis(a)?.sub(&self.min_axis(a)?)
    }

    /// The range `max - min` over a set of axes; with `keepdims` they stay, with extent 1.
    ///
    /// # Errors
    /// As [`Array::sum_axes`]; [`Error::InvalidArgument`] when the axes hold no elements.
    ///
    /// ```
    /// # let dev = gpuarray::Device::new()?;
    /// let x = dev.from_slice(&[4i32, -2, 7, 1, 0, 3], [2, 1, 3])?;
    /// let r = x.ptp_axes(&[0, 2], true)?;
    /// assert_eq!(r.shape(), &[1, 1, 1]);
    /// assert_eq!(r.to_vec()?, vec![9]);
    /// # Ok::<(), gpuarray::Error>(())
    /// ```
    pub fn ptp_axes(&self, axes: &[usize], keepdims: bool) -> Result<Array<T>> {
        self.max_axes(axes, keepdims)?
            .sub(&self.min_axes(axes, keepdims)?)
    }

    /// The sum accumulated in, and returned as, `O` (NumPy's `sum(dtype=O)`): over the
    /// whole array (`axis` `None`, a 0-d array) or one axis (negative counts from the end).
    /// Each element is converted to `O` as it is read (f16 accumulates in f32), so that,
    /// for example, f32 sums in f64 and i32 sums in f64 without wrapping around. Integers
    /// sum into any dtype; floats into floats.
    ///
    /// # Errors
    /// [`Error::AxisOutOfRange`]; [`Error::Unsupported`] when the adapter lacks `T` or `O`,
    /// and for a float `T` with an integer `O`.
    ///
    /// ```
    /// # let dev = gpuarray::Device::new()?;
    /// let x = dev.from_slice(&[i32::MAX, i32::MAX, 2], [3])?;
    /// assert_eq!(x.sum_as::<f32>(None)?.to_scalar()?, 4294967296.0);
    /// assert_eq!(x.sum()?.to_scalar()?, 0); // wraps around in i32
    /// # Ok::<(), gpuarray::Error>(())
    /// ```
    pub fn sum_as<O: Element>(&self, axis: Option<isize>) -> Result<Array<O>> {
        over(self, Op::SumAs(O::DTYPE), axis)
    }

    /// The product accumulated in, and returned as, `O` (NumPy's `prod(dtype=O)`); as
    /// [`Array::sum_as`].
    ///
    /// # Errors
    /// As [`Array::sum_as`].
    ///
    /// ```
    /// # let dev = gpuarray::Device::new()?;
    /// let x = dev.from_slice(&[1000i32, 1000, 1000, 1000], [2, 2])?;
    /// assert_eq!(x.prod_as::<f32>(Some(-1))?.to_vec()?, vec![1e6, 1e6]);
    /// # Ok::<(), gpuarray::Error>(())
    /// ```
    pub fn prod_as<O: Element>(&self, axis: Option<isize>) -> Result<Array<O>> {
        over(self, Op::ProdAs(O::DTYPE), axis)
    }

    /// The mean accumulated in, and returned as, the float type `O` (NumPy's
    /// `mean(dtype=O)`): the mean of integers is `mean_as::<f64>` (NumPy's default), or
    /// `mean_as::<f32>` where the adapter lacks f64 (`Device::supports::<f64>()`). NaN over
    /// no elements.
    ///
    /// # Errors
    /// [`Error::AxisOutOfRange`]; [`Error::Unsupported`] when the adapter lacks `T` or `O`.
    ///
    /// ```
    /// # let dev = gpuarray::Device::new()?;
    /// let x = dev.from_slice(&[1i32, 2, 3, 5], [2, 2])?;
    /// assert_eq!(x.mean_as::<f32>(None)?.to_scalar()?, 2.75);
    /// assert_eq!(x.mean_as::<f32>(Some(0))?.to_vec()?, vec![2.0, 3.5]);
    /// # Ok::<(), gpuarray::Error>(())
    /// ```
    pub fn mean_as<O: Float>(&self, axis: Option<isize>) -> Result<Array<O>> {
        over(self, Op::MeanAs(O::DTYPE), axis)
    }

    /// The number of non-zero elements along one axis (negative counts from the end),
    /// which the result drops, as `u32` (NumPy's `count_nonzero(axis=)`; NaN counts as
    /// non-zero, -0 as zero). One pass, no mask first; [`Array::count_nonzero`] counts the
    /// whole array and reads the count back.
    ///
    /// # Errors
    /// [`Error::AxisOutOfRange`]; [`Error::Unsupported`] when the adapter lacks `T`.
    ///
    /// ```
    /// # let dev = gpuarray::Device::new()?;
    /// let x = dev.from_slice(&[0.0f32, 2.0, -0.0, f32::NAN, 1.0, 3.0], [2, 3])?;
    /// assert_eq!(x.count_nonzero_axis(-1)?.to_vec()?, vec![1, 3]);
    /// assert_eq!(x.count_nonzero_axis(0)?.to_vec()?, vec![1, 2, 1]);
    /// # Ok::<(), gpuarray::Error>(())
    /// ```
    pub fn count_nonzero_axis(&self, axis: isize) -> Result<Array<u32>> {
        over(self, Op::CountNonzero, Some(axis))
    }

    /// The number of non-zero elements (NaN counts) over a set of axes, as u32; with
    /// `keepdims` the axes stay, with extent 1.
    ///
    /// # Errors
    /// As [`Array::sum_axes`].
    ///
    /// ```
    /// # let dev = gpuarray::Device::new()?;
    /// let x = dev.from_slice(&[0.0f32, 2.0, -0.0, f32::NAN, 1.0, 3.0], [2, 3])?;
    /// let r = x.count_nonzero_axes(&[1], true)?;
    /// assert_eq!(r.shape(), &[2, 1]);
    /// assert_eq!(r.to_vec()?, vec![1, 3]);
    /// # Ok::<(), gpuarray::Error>(())
    /// ```
    pub fn count_nonzero_axes(&self, axes: &[usize], keepdims: bool) -> Result<Array<u32>> {
        reduce(self, Op::CountNonzero, Some(axes), keepdims)
    }
}
