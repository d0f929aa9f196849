//! The bits and divisors of integers in the elementwise family as [`Array`] methods:
//! bitwise and, or, xor and not, the bit count, the shifts, gcd and lcm. The operations are rows of
//! `table.rs`; gcd and lcm are in shaders/shared/int_divisors.wgsl.

use crate::array::Array;
use crate::dtype::Element;
#[allow(unused_imports)]
use crate::error::Error;
use crate::error::Result;

use super::map_binary;
use super::map_unary;
use super::table::{Binary, Unary};

impl<T: Element> Array<T> {
    element_binary! {
        bitwise_and, BitwiseAnd, T, "Elementwise bitwise and of integers (floats: [`Error::Unsupported`])", "12i32, -1, 7", "10i32, 5, 0", "8, 5, 0";
        bitwise_or, BitwiseOr, T, "Elementwise bitwise or of integers (floats: [`Error::Unsupported`])", "12u32, 1, 7", "10u32, 4, 0", "14, 5, 7";
        bitwise_xor, BitwiseXor, T, "Elementwise bitwise exclusive or of integers (floats: [`Error::Unsupported`])", "12i32, -1, 7", "10i32, 5, 7", "6, -6, 0";
        left_shift, LeftShift, T, "Elementwise `self << other` for integers, as NumPy: a count of the bit width (32, 64 for i64 and u64) or more, or a negative count, gives 0 (floats: [`Error::Unsupported`])", "1i32, 3, 1", "4i32, 32, -1", "16, 0, 0";
        right_shift, RightShift, T, "Elementwise `self >> other` for integers, as NumPy: arithmetic for signed integers (the sign fills in), logical for unsigned ones; a count of the bit width or more, or a negative count, gives 0, or -1 for a negative signed value (floats: [`Error::Unsupported`])", "-16i32, -16, 16", "2i32, 40, 40", "-4, -1, 0";
    }

    element_unary! {
        #[doc(alias = "invert")]
        bitwise_not, BitwiseNot, T, "Elementwise bitwise complement of integers (NumPy's `invert`: `-x - 1` for i32); floats are [`Error::Unsupported`].", "0i32, -1, 5", "-1, 0, -6";
    }

    /// The number of one bits in the magnitude of each element, as u8: NumPy 2's
    /// `bitwise_count` (popcount; `bitwise_count(-1i32)` is 1, of `|i32::MIN|` 1, of
    /// `u64::MAX` 64; a bool counts as 0 or 1). Every integer dtype and bool; counted in
    /// the input's type, then narrowed to u8 (two dispatches).
    ///
    /// # Errors
    /// [`Error::Unsupported`] for floats and where the adapter lacks `T`.
    ///
    /// ```
    /// # let dev = gpuarray::Device::new()?;
    /// let x = dev.from_slice(&[0i32, 7, -1, i32::MIN, i32::MAX], [5])?;
    /// assert_eq!(x.bitwise_count()?.to_vec()?, vec![0u8, 3, 1, 1, 31]);
    /// assert!(dev.from_slice(&[1.0f32], [1])?.bitwise_count().is_err());
    /// # Ok::<(), gpuarray::Error>(())
    /// ```
    pub fn bitwise_count(&self) -> Result<Array<u8>> {
        map_unary::<T, T>(self, Unary::BitwiseCount, &[])?.cast::<u8>()
    }

    /// The greatest common divisor of the magnitudes, elementwise with broadcasting:
    /// NumPy's `gcd` (`gcd(0, 0) = 0`; `gcd(i32::MIN, 0) = i32::MIN`, as NumPy's). i32 and
    /// u32.
    ///
    /// # Errors
    /// [`Error::Unsupported`] for other dtypes; [`Error::ShapeMismatch`] when the shapes
    /// do not broadcast.
    ///
    /// ```
    /// # let dev = gpuarray::Device::new()?;
    /// let x = dev.from_slice(&[12i32, -18, 0, 7], [4])?;
    /// let y = dev.from_slice(&[18i32, 12, 0, 0], [4])?;
    /// assert_eq!(x.gcd(&y)?.to_vec()?, vec![6, 6, 0, 7]);
    /// # Ok::<(), gpuarray::Error>(())
    /// ```
    pub fn gcd(&self, other: &Array<T>) -> Result<Array<T>> {
        map_binary(self, other, Binary::Gcd)
    }

    /// The least common multiple of the magnitudes, `|x| / gcd * |y|` (wrapping on
    /// overflow, as NumPy's), 0 where either is 0: NumPy's `lcm`. i32 and u32.
    ///
    /// # Errors
    /// As [`Array::gcd`].
    ///
    /// ```
    /// # let dev = gpuarray::Device::new()?;
    /// let x = dev.from_slice(&[4u32, 6, 0], [3])?;
    /// let y = dev.from_slice(&[6u32, 7, 5], [3])?;
    /// assert_eq!(x.lcm(&y)?.to_vec()?, vec![12, 42, 0]);
    /// # Ok::<(), gpuarray::Error>(())
    /// ```
    pub fn lcm(&self, other: &Array<T>) -> Result<Array<T>> {
        map_binary(self, other, Binary::Lcm)
    }
}
