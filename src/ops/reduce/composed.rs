//! NumPy's `nanprod`, `nancumsum` and SciPy's `logsumexp`, composed from existing kernels:
//! NaN replaced by the identity (a NaN mask and a `where_` copy), then the plain product
//! or cumulative sum; logsumexp as a max, one
//! elementwise pass and a sum. (The reduce family's NaN-as-identity load would save the
//! copy for nanprod; it has no product form yet.)

use crate::array::Array;
use crate::dtype::{Float, Real};
// For the methods' doc links.
#[cfg(doc)]
use crate::error::Error;
use crate::error::Result;
use crate::shape::Axes;

/// `x` with NaN replaced by `v` and the infinities kept (integers as they are).
fn nan_as<T: Real>(x: &Array<T>, v: f64) -> Result<Array<T>> {
    if !T::DTYPE.is_float() {
        return Ok(x.clone());
    }
    let fill = x.dev.full([], T::from_f64(v))?;
    Array::where_(&x.isnan()?, &fill, x)
}

impl<T: Real> Array<T> {
    /// The product with NaN taken as 1, along `axis` (one, several or all: see [`Axes`];
    /// `..` or `None` for every element, a 0-d array): NumPy's `nanprod(axis=,
    /// keepdims=)`; with `keepdims` the reduced axes stay, with extent 1. Integers: the
    /// product. A mask and a `where_` copy, then [`Array::prod_axis`].
    ///
    /// # Errors
    /// [`Error::AxisOutOfRange`]; [`Error::InvalidArgument`] for an axis listed twice;
    /// [`Error::Unsupported`] when the adapter lacks `T`.
    ///
    /// ```
    /// # let dev = gpuarray::Device::new()?;
    /// let x = dev.from_slice(&[2.0f32, f32::NAN, 3.0, 4.0], [2, 2])?;
    /// assert_eq!(x.nanprod(None, false)?.to_scalar()?, 24.0);
    /// assert_eq!(x.nanprod(-1, false)?.to_vec()?, vec![2.0, 12.0]);
    /// assert_eq!(x.nanprod(-1, true)?.shape(), &[2, 1]);
    /// # Ok::<(), gpuarray::Error>(())
    /// ```
    pub fn nanprod(&self, axis: impl Into<Axes>, keepdims: bool) -> Result<Array<T>> {
        let axis = axis.into();
        axis.resolve(self.ndim(), "nanprod")?;
        nan_as(self, 1.0)?.prod_axis(axis, keepdims)
    }

    /// The cumulative sum with NaN taken as 0, along `axis` (one axis, negative from the
    /// end), or of the flattened array for `..` or `None`: NumPy's `nancumsum`. A mask and a `where_` copy, then
    /// [`Array::cumsum`].
    ///
    /// # Errors
    /// As [`Array::cumsum`].
    ///
    /// ```
    /// # let dev = gpuarray::Device::new()?;
    /// let x = dev.from_slice(&[1.0f32, f32::NAN, 2.0], [3])?;
    /// assert_eq!(x.nancumsum(None)?.to_vec()?, vec![1.0, 1.0, 3.0]);
    /// # Ok::<(), gpuarray::Error>(())
    /// ```
    pub fn nancumsum(&self, axis: impl Into<Axes>) -> Result<Array<T>> {
        let axis = axis.into();
        axis.resolve_one(self.ndim(), "nancumsum")?;
        nan_as(self, 0.0)?.cumsum(axis)
    }
}

impl<T: Float> Array<T> {
    /// `log(sum(exp(x)))` along `axis` (one, several or all: see [`Axes`]) without
    /// overflow: SciPy's `logsumexp`, shifted by the maximum (a non-finite maximum taken
    /// as 0, as SciPy: all `-inf` gives `-inf`, a `+inf` gives `+inf`, NaN gives NaN).
    /// With `keepdims` the reduced axes stay with extent 1. Three passes: max, `exp(x -
    /// max)` summed, `log + max`.
    ///
    /// # Errors
    /// [`Error::AxisOutOfRange`]; [`Error::InvalidArgument`] for an axis listed twice, or
    /// for an empty reduction (whose maximum is undefined).
    ///
    /// ```
    /// # let dev = gpuarray::Device::new()?;
    /// let x = dev.from_slice(&[1000.0f32, 1000.0, 0.0, f32::NEG_INFINITY], [2, 2])?;
    /// let r = x.logsumexp(-1, false)?.to_vec()?;
    /// assert_eq!(r, vec![1000.0 + std::f32::consts::LN_2, 0.0]);
    /// # Ok::<(), gpuarray::Error>(())
    /// ```
    pub fn logsumexp(&self, axis: impl Into<Axes>, keepdims: bool) -> Result<Array<T>> {
        let axes = axis.into().resolve(self.ndim(), "logsumexp")?;
        let m = self.max_axis(&axes, true)?;
        let zero = T::from_f64(0.0);
        let shift = m.nan_to_num(zero, Some(zero), Some(zero))?;
        let shift = Array::where_(&m.isnan()?, &m, &shift)?;
        let s = self.sub(&shift)?.exp()?.sum_axis(&axes, keepdims)?;
        let back = if keepdims {
            shift
        } else {
            let mut kept = shift.shape().to_vec();
            for &a in axes.iter().rev() {
                kept.remove(a);
            }
            shift.reshape(kept)?
        };
        s.log()?.add(&back)
    }
}
