//! Statistics built from the reductions: the peak-to-peak range, and sums, products and
//! means accumulated in another dtype (NumPy's `dtype=`), integer means among them.

use crate::array::Array;
use crate::dtype::{Element, Float, Real};
// For the methods' doc links.
#[cfg(doc)]
use crate::error::Error;
use crate::error::Result;
use crate::shape::Axes;

use super::reduce_axes;
use super::source::Op;

impl<T: Real> Array<T> {
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

    /// The range `max - min` along `axis` (one, several or all: see [`Axes`]; negative
    /// counts from the end); with `keepdims` the reduced axes stay, with extent 1 (NumPy's
    /// `ptp(axis=, keepdims=)`).
    ///
    /// # Errors
    /// As [`Array::sum_axis`]; [`Error::InvalidArgument`] when the axes hold no elements.
    ///
    /// ```
    /// # let dev = gpuarray::Device::new()?;
    /// let x = dev.from_slice(&[4.0f32, -2.0, 7.0, 1.0, 0.5, 3.0], [2, 3])?;
    /// assert_eq!(x.ptp_axis(-1, false)?.to_vec()?, vec![9.0, 2.5]);
    /// let y = dev.from_slice(&[4i32, -2, 7, 1, 0, 3], [2, 1, 3])?;
    /// let r = y.ptp_axis([0, 2], true)?;
    /// assert_eq!((r.shape(), r.to_vec()?), (&[1, 1, 1][..], vec![9]));
    /// # Ok::<(), gpuarray::Error>(())
    /// ```
    pub fn ptp_axis(&self, axis: impl Into<Axes>, keepdims: bool) -> Result<Array<T>> {
        let axis = axis.into();
        self.max_axis(&axis, keepdims)?
            .sub(&self.min_axis(axis, keepdims)?)
    }
}

impl<T: Element> Array<T> {
    /// The sum accumulated in, and returned as, `O` (NumPy's `sum(dtype=O)`): over the
    /// whole array (`axis` `..` or `None`, a 0-d array) or along `axis` (see [`Axes`]);
    /// with `keepdims` the reduced axes stay, with extent 1.
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
    /// assert_eq!(x.sum_as::<f32>(.., false)?.to_scalar()?, 4294967296.0);
    /// assert_eq!(x.sum()?.to_scalar()?, 0); // wraps around in i32
    /// # Ok::<(), gpuarray::Error>(())
    /// ```
    pub fn sum_as<O: Element>(&self, axis: impl Into<Axes>, keepdims: bool) -> Result<Array<O>> {
        reduce_axes(self, Op::SumAs(O::DTYPE), axis.into(), keepdims)
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
    /// assert_eq!(x.prod_as::<f32>(-1, false)?.to_vec()?, vec![1e6, 1e6]);
    /// # Ok::<(), gpuarray::Error>(())
    /// ```
    pub fn prod_as<O: Element>(&self, axis: impl Into<Axes>, keepdims: bool) -> Result<Array<O>> {
        reduce_axes(self, Op::ProdAs(O::DTYPE), axis.into(), keepdims)
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
    /// assert_eq!(x.mean_as::<f32>(None, false)?.to_scalar()?, 2.75);
    /// assert_eq!(x.mean_as::<f32>(0, false)?.to_vec()?, vec![2.0, 3.5]);
    /// # Ok::<(), gpuarray::Error>(())
    /// ```
    pub fn mean_as<O: Float>(&self, axis: impl Into<Axes>, keepdims: bool) -> Result<Array<O>> {
        reduce_axes(self, Op::MeanAs(O::DTYPE), axis.into(), keepdims)
    }

    /// The number of non-zero elements along `axis` (one, several or all: see [`Axes`];
    /// negative counts from the end), as `u32` (NumPy's `count_nonzero(axis=,
    /// keepdims=)`; NaN counts as non-zero, -0 as zero); with `keepdims` the reduced axes
    /// stay, with extent 1. One pass, no mask first; [`Array::count_nonzero`] counts the
    /// whole array and reads the count back.
    ///
    /// # Errors
    /// As [`Array::sum_axis`].
    ///
    /// ```
    /// # let dev = gpuarray::Device::new()?;
    /// let x = dev.from_slice(&[0.0f32, 2.0, -0.0, f32::NAN, 1.0, 3.0], [2, 3])?;
    /// assert_eq!(x.count_nonzero_axis(-1, false)?.to_vec()?, vec![1, 3]);
    /// assert_eq!(x.count_nonzero_axis(0, false)?.to_vec()?, vec![1, 2, 1]);
    /// let r = x.count_nonzero_axis([1], true)?;
    /// assert_eq!((r.shape(), r.to_vec()?), (&[2, 1][..], vec![1, 3]));
    /// # Ok::<(), gpuarray::Error>(())
    /// ```
    pub fn count_nonzero_axis(&self, axis: impl Into<Axes>, keepdims: bool) -> Result<Array<u32>> {
        reduce_axes(self, Op::CountNonzero, axis.into(), keepdims)
    }
}
