//! Weighted means and covariances built from the reductions, the elementwise operations
//! and matmul: `average` with weights, `cov` and `corrcoef`.

use crate::array::Array;
use crate::dtype::Float;
use crate::error::{Error, Result};
use crate::shape::Axes;

impl<T: Float> Array<T> {
    /// The weighted mean (NumPy's `average(axis=, weights=, keepdims=)`): `sum(x * w) /
    /// sum(w)` along `axis` (one, several or all: see [`Axes`]; `..` or `None` for the
    /// whole array); without weights, the mean. The weights have the array's shape, or are
    /// 1-D along a single `axis`. With `keepdims` the reduced axes stay, with extent 1.
    ///
    /// # Errors
    /// [`Error::ShapeMismatch`] for weights of another shape; [`Error::InvalidArgument`]
    /// where the weights of an output sum to zero (NumPy's `ZeroDivisionError`; this
    /// reads the sums back); [`Error::AxisOutOfRange`].
    ///
    /// ```
    /// # let dev = gpuarray::Device::new()?;
    /// let x = dev.from_slice(&[1.0f32, 2.0, 3.0, 4.0], [2, 2])?;
    /// let w = dev.from_slice(&[3.0f32, 1.0], [2])?;
    /// assert_eq!(x.average(Some(&w), -1, false)?.to_vec()?, vec![1.25, 3.25]);
    /// assert_eq!(x.average(Some(&w), -1, true)?.shape(), &[2, 1]);
    /// assert_eq!(x.average(None, None, false)?.to_scalar()?, 2.5);
    /// # Ok::<(), gpuarray::Error>(())
    /// ```
    pub fn average(
        &self,
        weights: Option<&Array<T>>,
        axis: impl Into<Axes>,
        keepdims: bool,
    ) -> Result<Array<T>> {
        let axis = axis.into();
        let axes = axis.resolve(self.ndim(), "average")?;
        let Some(w) = weights else {
            return self.mean_axis(axis, keepdims);
        };
        let one = match axis {
            Axes::All => None,
            _ if axes.len() == 1 => Some(axes[0]),
            _ => None,
        };
        let w = match one {
            _ if w.shape == self.shape => w.clone(),
            Some(a) if w.ndim() == 1 && w.len() == self.shape[a] => {
                let mut along = vec![1; self.ndim()];
                along[a] = w.len();
                w.reshape(along)?
            }
            _ => {
                return Err(Error::ShapeMismatch {
                    op: "average",
                    lhs: self.shape.clone(),
                    rhs: w.shape.clone(),
                })
            }
        };
        let xw = self.mul(&w)?;
        let num = xw.sum_axis(&axes, keepdims)?;
        let den = w
            .broadcast_to(self.shape.clone())?
            .sum_axis(&axes, keepdims)?;
        if den.to_vec()?.iter().any(|d| d.to_f64() == 0.0) {
            return Err(Error::InvalidArgument {
                op: "average",
                reason: "the weights sum to zero",
            });
        }
        num.div(&den)
    }

    /// The covariance matrix of the variables in the rows (`rowvar`) or the columns of a
    /// 2-D array, observations along the other axis (NumPy's `cov`): the centred data times
    /// its transpose (matmul), over `observations - ddof` (inf or NaN where that is not
    /// positive, as NumPy). A 1-D array is one variable: a 0-d result.
    ///
    /// # Errors
    /// [`Error::InvalidArgument`] for more than 2 dimensions.
    ///
    /// ```
    /// # let dev = gpuarray::Device::new()?;
    /// let x = dev.from_slice(&[0.0f32, 1.0, 2.0, 2.0, 1.0, 0.0], [2, 3])?;
    /// assert_eq!(x.cov(true, 1)?.to_vec()?, vec![1.0, -1.0, -1.0, 1.0]);
    /// # Ok::<(), gpuarray::Error>(())
    /// ```
    pub fn cov(&self, rowvar: bool, ddof: usize) -> Result<Array<T>> {
        let (c, n) = self.scatter_matrix("cov", rowvar)?;
        let divisor = (n as f64 - ddof as f64).max(0.0);
        let c = c.div_scalar(T::from_f64(divisor))?;
        if self.ndim() == 1 {
            return c.reshape(Vec::<usize>::new());
        }
        Ok(c)
    }

    /// The correlation coefficients of the variables (NumPy's `corrcoef`): the covariance
    /// over the product of the standard deviations, clipped to [-1, 1]; NaN for a variable
    /// of zero variance.
    ///
    /// # Errors
    /// As [`Array::cov`].
    ///
    /// ```
    /// # let dev = gpuarray::Device::new()?;
    /// let x = dev.from_slice(&[0.0f32, 1.0, 2.0, 4.0, 2.0, 0.0], [2, 3])?;
    /// assert_eq!(x.corrcoef(true)?.to_vec()?, vec![1.0, -1.0, -1.0, 1.0]);
    /// # Ok::<(), gpuarray::Error>(())
    /// ```
    pub fn corrcoef(&self, rowvar: bool) -> Result<Array<T>> {
        let (c, _) = self.scatter_matrix("corrcoef", rowvar)?;
        let v = c.shape[0];
        let sd = c.view(vec![v], vec![v as isize + 1], c.offset).sqrt()?;
        let r = c
            .div(&sd.reshape([v, 1])?)?
            .div(&sd.reshape([1, v])?)?
            .clip(T::from_f64(-1.0), T::from_f64(1.0))?;
        if self.ndim() == 1 {
            return r.reshape(Vec::<usize>::new());
        }
        Ok(r)
    }

    /// The scatter matrix of the variables (the centred data times its transpose), [v, v],
    /// and the number of observations.
    fn scatter_matrix(&self, op: &'static str, rowvar: bool) -> Result<(Array<T>, usize)> {
        let x = match self.ndim() {
            1 => self.reshape([1, self.len()])?,
            2 if rowvar => self.clone(),
            2 => self.t(),
            _ => {
                return Err(Error::InvalidArgument {
                    op,
                    reason: "the data must be 1-D or 2-D",
                })
            }
        };
        let n = x.shape[1];
        let centred = x.sub(&x.mean_axis(1, true)?)?;
        Ok((centred.matmul(&centred.t())?, n))
    }
}
