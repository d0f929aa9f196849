//! Rounding in the elementwise family as [`Array`] methods: floor, ceil, round (halves to
//! even), trunc and modf. The operations are rows of `table.rs`.

use crate::array::Array;
use crate::dtype::Float;
#[allow(unused_imports)]
use crate::error::Error;
use crate::error::Result;

use super::map_unary;
use super::table::Unary;

impl<T: Float> Array<T> {
    unary_methods! {
        floor, Floor, "Elementwise floor.";
        ceil, Ceil, "Elementwise ceiling.";
        round, Round, "Elementwise rounding to the nearest integer, halves to even (as NumPy).";
    }

    float_unary! {
        trunc, Trunc, "Elementwise truncation toward zero (exact; -0.5 gives -0, NaN and ±inf stay).", "2.7f32, -2.7", "2.0, -2.0";
    }

    /// The fractional and integral parts, both with the sign of `self`: NumPy's `modf`
    /// (`modf(-3.5)` is `(-0.5, -3.0)`, `modf(inf)` is `(0.0, inf)`, NaN gives two NaNs).
    /// Exact; two dispatches.
    ///
    /// # Errors
    /// [`Error::Unsupported`] when the adapter lacks `T`.
    ///
    /// ```
    /// # let dev = gpuarray::Device::new()?;
    /// let x = dev.from_slice(&[2.25f32, -3.5, f32::INFINITY], [3])?;
    /// let (frac, int) = x.modf()?;
    /// assert_eq!(frac.to_vec()?, vec![0.25, -0.5, 0.0]);
    /// assert_eq!(int.to_vec()?, vec![2.0, -3.0, f32::INFINITY]);
    /// # Ok::<(), gpuarray::Error>(())
    /// ```
    pub fn modf(&self) -> Result<(Array<T>, Array<T>)> {
        let frac = map_unary(self, Unary::ModfFrac, &[])?;
        Ok((frac, self.trunc()?))
    }
}
