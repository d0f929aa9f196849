//! Functions composed of other operations: [`Array::i0`] (a [`fuse`] expression, one
//! elementwise kernel) and [`Array::nanmedian`] (the median of a doubled array).

use crate::array::Array;
use crate::custom::{fuse, Var};
use crate::dtype::{DType, Float};
use crate::error::Result;
use crate::shape::{keepdims_shape, Axes};

/// I0(x): for |x| below the switch its power series sum (x²/4)^k / (k!)², nested as
/// 1 + y/1² (1 + y/2² (1 + ...)) so that no coefficient underflows; above it the
/// asymptotic series e^|x| / sqrt(2 pi |x|) (1 + 1²/(8|x|) (1 + 3²/(2·8|x|) (1 + ...))),
/// with e^|x| taken as two halves so that it overflows only where I0 does. `wide`: f64's
/// switch and term counts, else f32's (whose truncation errors are 3e-14 and 2e-9).
fn i0_expr(x: Var, wide: bool) -> Var {
    let (switch, ns, na) = if wide { (20.0, 60, 30) } else { (12.0, 35, 10) };
    let a = x.abs();
    let y = a * a * 0.25;
    let mut s = Var::from(1.0);
    for k in (1..=ns).rev() {
        s = 1.0 + s * (y * (1.0 / (k * k) as f64));
    }
    let mut t = Var::from(1.0);
    for k in (1..=na).rev() {
        let c = ((2 * k - 1) * (2 * k - 1)) as f64 / (8 * k) as f64;
        t = 1.0 + t * (c / a);
    }
    let h = (a * 0.5).exp();
    let big = h * (h / (a * std::f64::consts::TAU).sqrt()) * t;
    Var::where_(a.lt(switch), s, Var::where_(a.isinf(), a, big))
}

impl<T: Float> Array<T> {
    /// The modified Bessel function of the first kind, order 0, elementwise (NumPy's
    /// `i0`): one fused kernel of a power series below |x| = 12 (f64: 20) and an asymptotic
    /// series above. Accuracy against an f64 summation of the series, measured on lavapipe
    /// over |x| up to I0's overflow: f32 within 2e-6 relative, f64 within 1e-13, f16
    /// within 3e-3 (computed in f16). i0(±inf) = inf, NaN stays NaN; results past the
    /// dtype's range are inf.
    ///
    /// # Errors
    /// [`crate::Error::Unsupported`] when the adapter lacks `T`.
    ///
    /// ```
    /// # let dev = gpuarray::Device::new()?;
    /// let x = dev.from_slice(&[0.0f32, 1.0, -1.0], [3])?;
    /// let y = x.i0()?.to_vec()?;
    /// assert_eq!(y[0], 1.0);
    /// assert!((y[1] - 1.2660658).abs() < 1e-6 && y[1] == y[2]);
    /// # Ok::<(), gpuarray::Error>(())
    /// ```
    pub fn i0(&self) -> Result<Array<T>> {
        let wide = T::DTYPE == DType::F64;
        fuse(&self.dev, |[x]| i0_expr(x, wide))?.call::<T>(&[self])
    }
}

impl<T: Float> Array<T> {
    /// The median of the non-NaN elements along `axis` (one, several or all: see [`Axes`];
    /// `..` or `None` for every element), as NumPy's `nanmedian(axis=, keepdims=)`; NaN
    /// where a slice holds only NaN; with `keepdims` the reduced axes stay, with extent 1. Composed: the slices are doubled (`concatenate`) and the NaNs of the
    /// first copy become -inf and those of the second +inf, which leaves the median of the
    /// doubled non-NaN values, the same median, in the middle; then [`Array::median`].
    /// Exact as the median is (the mean of two elements where their count is even).
    ///
    /// # Errors
    /// As [`Array::median`]: [`crate::Error::InvalidArgument`] for an axis of length 0,
    /// [`crate::Error::AxisOutOfRange`], [`crate::Error::Unsupported`] where the adapter
    /// lacks `O`.
    ///
    /// ```
    /// # let dev = gpuarray::Device::new()?;
    /// let x = dev.from_slice(&[1.0f32, f32::NAN, 3.0, f32::NAN, f32::NAN, 4.0], [2, 3])?;
    /// assert_eq!(x.nanmedian::<f32>(None, false)?.to_scalar()?, 3.0);
    /// assert_eq!(x.nanmedian::<f32>(-1, false)?.to_vec()?, vec![2.0, 4.0]);
    /// assert_eq!(x.nanmedian::<f32>(-1, true)?.shape(), &[2, 1]);
    /// # Ok::<(), gpuarray::Error>(())
    /// ```
    pub fn nanmedian<O: Float>(&self, axis: impl Into<Axes>, keepdims: bool) -> Result<Array<O>> {
        let axes = axis.into().resolve(self.ndim(), "nanmedian")?;
        let (x, kept) = self.merged_last(&axes)?;
        let nan = x.isnan()?;
        let lo = self.dev.full([], T::NEG_INFINITY)?;
        let hi = self.dev.full([], T::INFINITY)?;
        let doubled = Array::concatenate(
            &[
                &Array::where_(&nan, &lo, &x)?,
                &Array::where_(&nan, &hi, &x)?,
            ],
            -1,
        )?;
        let m = doubled.median::<O>(-1, false)?;
        match keepdims {
            true => m.reshape(keepdims_shape(&kept, &axes)),
            false => Ok(m),
        }
    }
}
