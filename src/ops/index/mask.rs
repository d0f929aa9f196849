//! Boolean masks (selection by a mask is the scan family's [`Array::extract`]): `masked_fill` and
//! `masked_assign` (NumPy's `x[mask] = v`, values taken in order through the running count
//! of the mask, `scan::compact::running_count`).

use crate::array::complex::{by_component, parts};
use crate::array::Array;
use crate::dtype::{accepts, DType, Element};
use crate::error::{Error, Result};
use crate::kernel::launch::Params;
use crate::ops::scan::compact::running_count;

use super::{check_writable, write_strided};

/// The type of mask arrays: bool, as comparisons return them (one u32 word per element on
/// the device). The one place that names the mask's element type.
///
/// ```
/// # let dev = gpuarray::Device::new()?;
/// let x = dev.from_slice(&[1.0f32, -1.0], [2])?;
/// let m: gpuarray::Mask = x.gt(&dev.zeros::<f32>([2])?)?;
/// assert_eq!(x.extract(&m)?.to_vec()?, vec![1.0]);
/// # Ok::<(), gpuarray::Error>(())
/// ```
pub type Mask = Array<bool>;

/// The mask's element dtype, for the kernels' variants.
const MASK: DType = DType::Bool;

/// Refuses a mask of another device or another shape than `x`.
fn check_mask<T: Element>(x: &Array<T>, mask: &Mask, op: &'static str) -> Result<()> {
    x.dev.expect_same(op, &[&mask.dev])?;
    x.dev.accept(op, T::DTYPE, accepts::moves)?;
    if mask.shape != x.shape {
        return Err(Error::ShapeMismatch {
            op,
            lhs: x.shape.clone(),
            rhs: mask.shape.clone(),
        });
    }
    Ok(())
}

impl<T: Element> Array<T> {
    /// Sets the elements where `mask` is true to `value`, in place: NumPy's
    /// `x[mask] = value`. One dispatch, no sync point; `self` may be any (non-broadcast)
    /// view.
    ///
    /// # Errors
    /// [`Error::ShapeMismatch`] unless the mask has the array's shape;
    /// [`Error::InvalidArgument`] for a broadcast target; [`Error::DeviceMismatch`];
    /// [`Error::Unsupported`] when the adapter lacks `T`. On error nothing is written.
    ///
    /// ```
    /// # let dev = gpuarray::Device::new()?;
    /// let x = dev.from_slice(&[1.0f32, f32::NAN, 3.0], [3])?;
    /// x.masked_fill(&x.ne(&x)?, 0.0)?; // NaN to 0
    /// assert_eq!(x.to_vec()?, vec![1.0, 0.0, 3.0]);
    /// # Ok::<(), gpuarray::Error>(())
    /// ```
    pub fn masked_fill(&self, mask: &Mask, value: T) -> Result<()> {
        let op = "masked_fill";
        check_mask(self, mask, op)?;
        check_writable(self, op)?;
        if T::DTYPE.is_complex() {
            return by_component!(T::DTYPE, R => {
                let (re, im) = parts::<T, R>(value);
                self.component_view::<R>(0).masked_fill(mask, re)?;
                self.component_view::<R>(1).masked_fill(mask, im)
            });
        }
        let variant = (T::DTYPE, MASK, DType::U32);
        let params = Params::new(0).scalars(&[value]);
        write_strided(
            self,
            mask.operand(),
            &[mask.binding()],
            (op, variant),
            params,
        )
    }

    /// Writes `values` into the elements where `mask` is true, in C order, in place: NumPy's
    /// `x[mask] = values`. `values` is 1-D with one element per true entry of the mask, or
    /// one element for all of them. Reads the mask's count back (a sync point) to check
    /// the number of values, then writes in one dispatch.
    ///
    /// # Errors
    /// [`Error::SizeMismatch`] when `values` has neither as many elements as the mask has
    /// true entries nor one; [`Error::InvalidArgument`] for `values` not 1-D or a broadcast
    /// target; as [`Array::masked_fill`] otherwise. On error nothing is written.
    ///
    /// ```
    /// # let dev = gpuarray::Device::new()?;
    /// let x = dev.from_slice(&[1i32, -2, 3, -4], [2, 2])?;
    /// let neg = x.lt(&dev.zeros::<i32>([2, 2])?)?;
    /// x.masked_assign(&neg, &dev.from_slice(&[20, 40], [2])?)?;
    /// assert_eq!(x.to_vec()?, vec![1, 20, 3, 40]);
    /// # Ok::<(), gpuarray::Error>(())
    /// ```
    pub fn masked_assign(&self, mask: &Mask, values: &Array<T>) -> Result<()> {
        let op = "masked_assign";
        check_mask(self, mask, op)?;
        self.dev.expect_same(op, &[&values.dev])?;
        check_writable(self, op)?;
        if values.ndim() != 1 {
            return Err(Error::InvalidArgument {
                op,
                reason: "the values must be a 1-D array",
            });
        }
        let (m, pos, total) = running_count(mask, op)?;
        if values.len() != total && values.len() != 1 {
            return Err(Error::SizeMismatch {
                shape: values.shape.clone(),
                expected: total,
                actual: values.len(),
            });
        }
        if total == 0 {
            return Ok(());
        }
        if T::DTYPE.is_complex() {
            return by_component!(T::DTYPE, R => {
                self.component_view::<R>(0)
                    .masked_assign(mask, &values.component_view::<R>(0))?;
                self.component_view::<R>(1)
                    .masked_assign(mask, &values.component_view::<R>(1))
            });
        }
        let mut params = Params::new(0);
        let stride = if values.len() == 1 {
            0
        } else {
            values.strides[0]
        };
        params.aux = [values.offset as u32, stride as i32 as u32];
        let inputs = [m.binding(), pos.binding(), values.binding()];
        let variant = (T::DTYPE, MASK, DType::U32);
        write_strided(self, m.operand(), &inputs, (op, variant), params)
    }
}
