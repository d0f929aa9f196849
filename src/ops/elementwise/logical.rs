//! The logical operations of boolean arrays: methods and the `&`, `|`, `^`, `!` operators.
//! Booleans are words of 0 and 1 on the device, so each is one bitwise operation per word.

use std::ops;

use super::{map_binary, map_unary, Binary, Unary};
use crate::array::Array;
use crate::error::Result;

impl Array<bool> {
    /// Elementwise logical and, with broadcasting (NumPy's `logical_and`, `&` of bools).
    ///
    /// # Errors
    /// [`crate::Error::ShapeMismatch`] when the shapes do not broadcast together;
    /// [`crate::Error::DeviceMismatch`] for arrays of two devices.
    ///
    /// ```
    /// # let dev = gpuarray::Device::new()?;
    /// let a = dev.from_slice(&[true, true, false, false], [4])?;
    /// let b = dev.from_slice(&[true, false, true, false], [4])?;
    /// assert_eq!(a.and(&b)?.to_vec()?, vec![true, false, false, false]);
    /// assert_eq!((&a & &b).to_vec()?, vec![true, false, false, false]);
    /// # Ok::<(), gpuarray::Error>(())
    /// ```
    pub fn and(&self, other: &Array<bool>) -> Result<Array<bool>> {
        map_binary(self, other, Binary::LogicalAnd)
    }

    /// Elementwise logical or, with broadcasting (NumPy's `logical_or`, `|` of bools).
    ///
    /// # Errors
    /// As [`Array::and`].
    ///
    /// ```
    /// # let dev = gpuarray::Device::new()?;
    /// let a = dev.from_slice(&[true, true, false, false], [4])?;
    /// let b = dev.from_slice(&[true, false, true, false], [4])?;
    /// assert_eq!(a.or(&b)?.to_vec()?, vec![true, true, true, false]);
    /// # Ok::<(), gpuarray::Error>(())
    /// ```
    pub fn or(&self, other: &Array<bool>) -> Result<Array<bool>> {
        map_binary(self, other, Binary::LogicalOr)
    }

    /// Elementwise logical exclusive or, with broadcasting (NumPy's `logical_xor`, `^` of
    /// bools).
    ///
    /// # Errors
    /// As [`Array::and`].
    ///
    /// ```
    /// # let dev = gpuarray::Device::new()?;
    /// let a = dev.from_slice(&[true, true, false, false], [4])?;
    /// let b = dev.from_slice(&[true, false, true, false], [4])?;
    /// assert_eq!(a.xor(&b)?.to_vec()?, vec![false, true, true, false]);
    /// # Ok::<(), gpuarray::Error>(())
    /// ```
    pub fn xor(&self, other: &Array<bool>) -> Result<Array<bool>> {
        map_binary(self, other, Binary::LogicalXor)
    }

    /// Elementwise logical not (NumPy's `logical_not`, `~` of bools; `!` here).
    ///
    /// # Errors
    /// [`crate::Error::OutOfMemory`] and device errors only.
    ///
    /// ```
    /// # let dev = gpuarray::Device::new()?;
    /// let a = dev.from_slice(&[true, false], [2])?;
    /// assert_eq!(a.not()?.to_vec()?, vec![false, true]);
    /// assert_eq!((!&a).to_vec()?, vec![false, true]);
    /// # Ok::<(), gpuarray::Error>(())
    /// ```
    #[allow(clippy::should_implement_trait)]
    pub fn not(&self) -> Result<Array<bool>> {
        map_unary(self, Unary::LogicalNot, &[])
    }

    /// The same elements read as `u32` words of 0 and 1, sharing the buffer (no copy): for
    /// counting (`m.as_u32().sum()`, NumPy's `sum` of a bool array, which gives an integer)
    /// and running counts (`cumsum`), which bool arrays refuse.
    ///
    /// ```
    /// # let dev = gpuarray::Device::new()?;
    /// let m = dev.from_slice(&[1.0f32, 5.0, 7.0], [3])?.gt_scalar(2.0)?;
    /// assert_eq!(m.as_u32().sum()?.to_scalar()?, 2);
    /// assert!(m.sum().is_err());
    /// # Ok::<(), gpuarray::Error>(())
    /// ```
    pub fn as_u32(&self) -> Array<u32> {
        self.reinterpret()
    }
}

macro_rules! logical_operator {
    ($trait:ident, $method:ident, $call:ident) => {
        impl ops::$trait<&Array<bool>> for &Array<bool> {
            type Output = Array<bool>;
            /// # Panics
            /// When the shapes do not broadcast together; use the named method for a
            /// `Result`.
            fn $method(self, rhs: &Array<bool>) -> Array<bool> {
                self.$call(rhs).unwrap_or_else(|e| panic!("{e}"))
            }
        }
    };
}

logical_operator!(BitAnd, bitand, and);
logical_operator!(BitOr, bitor, or);
logical_operator!(BitXor, bitxor, xor);

impl ops::Not for &Array<bool> {
    type Output = Array<bool>;
    /// # Panics
    /// When the device fails; use [`Array::not`] for a `Result`.
    fn not(self) -> Array<bool> {
        Array::not(self).unwrap_or_else(|e| panic!("{e}"))
    }
}
