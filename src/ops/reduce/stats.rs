//! Statistics built from the reductions: the peak-to-peak range.

use crate::array::Array;
use crate::dtype::Element;
// For the methods' doc links.
#[cfg(doc)]
use crate::error::Error;
use crate::error::Result;
use crate::ops::sort::resolve_axis;
use crate::shape::Axis;

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
}
