//! The arithmetic of the elementwise family as [`Array`] methods: sums, differences,
//! products, quotients (true, truncated, floored) and remainders, powers, maxima and minima
//! (NaN-propagating and NaN-ignoring), negation, absolute value and sign, square and
//! reciprocal, clipping, heaviside. The operations are rows of `table.rs`.

use crate::array::Array;
use crate::dtype::{Element, Float, Real, Signed};
#[allow(unused_imports)]
use crate::error::Error;
use crate::error::Result;

use super::table::{Binary, Unary};
use super::{map_binary, map_unary};

/// The elementwise extremes, which need an order.
impl<T: Real> Array<T> {
    binary_methods! {
        maximum, maximum_scalar, Maximum, "Elementwise maximum (NaN if either is NaN)", "2.0, 2.0, 3.0, 4.0";
        minimum, minimum_scalar, Minimum, "Elementwise minimum (NaN if either is NaN)", "1.0, 0.5, 2.0, 0.5";
    }
}

impl<T: Element> Array<T> {
    binary_methods! {
        add, add_scalar, Add, "Elementwise sum", "3.0, 2.5, 5.0, 4.5";
        sub, sub_scalar, Sub, "Elementwise difference", "-1.0, 1.5, 1.0, 3.5";
        mul, mul_scalar, Mul, "Elementwise product", "2.0, 1.0, 6.0, 2.0";
        div, div_scalar, Div, "Elementwise quotient (integers: truncated toward zero as Rust's `/`, and 0 where the divisor is 0, as NumPy; [`Array::floor_divide`] rounds down as NumPy's `//`). f32 within 2 ulps for every pair of operands, the extremes included (`inf / -3.4e38` is -inf, `-3.4e38 / -3.4e38` is 1; 0.74 measured on lavapipe), computed from a reciprocal corrected with an exact residual rather than the adapter's division (approximate on NVIDIA); f16 computed in f32 and rounded once (0.5 ulp). IEEE's special values: 0 / 0 and inf / inf NaN, x / ±0 ±inf", "0.5, 4.0, 1.5, 8.0";
        rem, rem_scalar, Rem, "Elementwise remainder with the sign of the dividend, as Rust's `%` and C's `fmod` (NumPy's `fmod`), truncating as [`Array::div`] does for integers. Floats: exact for every finite input (the remainder is always representable), a zero result has the dividend's sign (`rem(-1e10, -100)` is -0), `rem(x, ±0)` and `rem(±inf, y)` are NaN and a finite `x` modulo `±inf` is `x`. Integers: 0 where the divisor is 0, and `i32::MIN % -1` is 0. Compare [`Array::remainder`] (NumPy's `%`, the sign of the divisor)", "1.0, 0.0, 1.0, 0.0";
        remainder, remainder_scalar, Remainder, "Elementwise remainder with the sign of the divisor: NumPy's `remainder` (`mod`, Python's `%`), paired with [`Array::floor_divide`] so that `floor_divide(x, y) * y + remainder(x, y)` is `x` (exactly for integers, to rounding for floats). Floats as NumPy computes them: the exact `fmod` moved by the divisor where the signs differ (that sum rounds: `remainder(-1e-30, 1)` is 1, `remainder(-1, inf)` is inf), a zero result has the divisor's sign, `remainder(x, ±0)` is NaN. Integers: 0 where the divisor is 0. Compare [`Array::rem`] (Rust's `%`, the sign of the dividend)", "1.0, 0.0, 1.0, 0.0";
        floor_divide, floor_divide_scalar, FloorDivide, "Elementwise quotient rounded toward minus infinity: NumPy's `floor_divide` (Python's `//`). Floats as NumPy: `(x - fmod(x, y)) / y`, less one where the signs of `y` and the `fmod` differ, snapped to the nearest integer; a zero quotient has the sign of `x / y`; `x / ±0` where the divisor is 0 (±inf or NaN). Integers: 0 where the divisor is 0, and `i32::MIN // -1` wraps to `i32::MIN` (as NumPy). Compare [`Array::div`] (integers truncated toward zero, as Rust's `/`)", "0.0, 4.0, 1.0, 8.0";
        pow, pow_scalar, Pow, "Elementwise power, NumPy's (C99's special values): pow(x, ±0) = 1 and pow(1, y) = 1 even for NaN, pow(-1, ±inf) = 1, pow(x, 1) = x, negative bases with integral exponents (odd ones keep the sign, pow(-0, -1) = -inf), negative finite bases with non-integral exponents NaN, NaN otherwise propagating; subnormal operands are told from zero and from integers by their bits, also on adapters that flush subnormals. f32 within 4 ulps (1.28 measured on lavapipe: y log2|x| in double-f32), f16 computed in f32 and rounded once (0.5 ulp). Integer exponents below 0 give 0 except for bases 1 and -1. f64 in software within 4 ulps, with C99's special values.", "1.0, 1.4142135, 9.0, 2.0";
    }

    element_binary! {
        fmax, Fmax, T, "Elementwise maximum ignoring NaN (NumPy's `fmax`): the other operand where one is NaN, NaN only where both are", "1.0f32, f32::NAN, 3.0", "2.0f32, 5.0, -1.0", "2.0, 5.0, 3.0";
        fmin, Fmin, T, "Elementwise minimum ignoring NaN (NumPy's `fmin`): the other operand where one is NaN, NaN only where both are", "1.0f32, f32::NAN, 3.0", "2.0f32, 5.0, -1.0", "1.0, 5.0, -1.0";
    }

    element_unary! {
        square, Square, T, "Elementwise `x * x` (integers wrap around on overflow).", "3i32, -4, 46341", "9, 16, -2147479015";
        reciprocal, Reciprocal, T, "Elementwise `1 / x`: floats as [`Array::div`] (1/±0 = ±inf); integers by integer division, as NumPy (1 for 1, -1 for -1, 0 for the rest, 0 also for 0 where NumPy's result is undefined).", "2.0f32, -0.5, 0.0", "0.5, -2.0, f32::INFINITY";
    }

    /// `value - self`, elementwise.
    ///
    /// ```
    /// # let dev = gpuarray::Device::new()?;
    /// let x = dev.from_slice(&[1i32, 5], [2])?;
    /// assert_eq!(x.rsub_scalar(10)?.to_vec()?, vec![9, 5]);
    /// # Ok::<(), gpuarray::Error>(())
    /// ```
    ///
    /// # Errors
    /// [`Error::Unsupported`] when the adapter lacks `T`.
    pub fn rsub_scalar(&self, value: T) -> Result<Array<T>> {
        map_unary(self, Unary::ScalarLeft(Binary::Sub), &[value])
    }

    /// `value / self`, elementwise.
    ///
    /// ```
    /// # let dev = gpuarray::Device::new()?;
    /// let x = dev.from_slice(&[2.0f32, 4.0], [2])?;
    /// assert_eq!(x.rdiv_scalar(1.0)?.to_vec()?, vec![0.5, 0.25]);
    /// # Ok::<(), gpuarray::Error>(())
    /// ```
    ///
    /// # Errors
    /// [`Error::Unsupported`] when the adapter lacks `T`.
    pub fn rdiv_scalar(&self, value: T) -> Result<Array<T>> {
        map_unary(self, Unary::ScalarLeft(Binary::Div), &[value])
    }

    /// Each element clamped to `[lo, hi]`, as NumPy's `minimum(maximum(x, lo), hi)`: a NaN
    /// element stays NaN, and a NaN bound gives NaN (floats).
    ///
    /// ```
    /// # let dev = gpuarray::Device::new()?;
    /// let x = dev.from_slice(&[-3i32, 0, 9], [3])?;
    /// assert_eq!(x.clip(-1, 5)?.to_vec()?, vec![-1, 0, 5]);
    /// # Ok::<(), gpuarray::Error>(())
    /// ```
    ///
    /// # Errors
    /// [`Error::Unsupported`] when the adapter lacks `T`.
    pub fn clip(&self, lo: T, hi: T) -> Result<Array<T>>
    where
        T: Real,
    {
        map_unary(self, Unary::Clip, &[lo, hi])
    }

    /// NumPy's `divmod`: ([`Array::floor_divide`], [`Array::remainder`]) with
    /// broadcasting, `q * other + r == self` up to rounding for floats. Two dispatches.
    ///
    /// # Errors
    /// As [`Array::remainder`].
    ///
    /// ```
    /// # let dev = gpuarray::Device::new()?;
    /// let x = dev.from_slice(&[7i32, -7], [2])?;
    /// let (q, r) = x.divmod(&dev.from_slice(&[2i32], [1])?)?;
    /// assert_eq!((q.to_vec()?, r.to_vec()?), (vec![3, -4], vec![1, 1]));
    /// # Ok::<(), gpuarray::Error>(())
    /// ```
    pub fn divmod(&self, other: &Array<T>) -> Result<(Array<T>, Array<T>)> {
        Ok((self.floor_divide(other)?, self.remainder(other)?))
    }
}

impl<T: Signed> Array<T> {
    unary_methods! {
        neg, Neg, "Elementwise negation.";
        abs, Abs, "Elementwise absolute value.";
        sign, Sign, "Elementwise sign: -1, 0 or 1 (NaN for NaN).";
    }
}

impl<T: Float> Array<T> {
    /// NumPy's `heaviside(x, h0)` with broadcasting: 0 where `self < 0`, 1 where
    /// `self > 0`, `h0` where `self` is ±0, NaN where `self` is NaN. Exact.
    ///
    /// # Errors
    /// As [`Array::logaddexp`].
    ///
    /// ```
    /// # let dev = gpuarray::Device::new()?;
    /// let x = dev.from_slice(&[-2.0f32, -0.0, 3.0], [3])?;
    /// let h0 = dev.from_slice(&[0.5f32], [1])?;
    /// assert_eq!(x.heaviside(&h0)?.to_vec()?, vec![0.0, 0.5, 1.0]);
    /// # Ok::<(), gpuarray::Error>(())
    /// ```
    pub fn heaviside(&self, h0: &Array<T>) -> Result<Array<T>> {
        map_binary(self, h0, Binary::Heaviside)
    }
}
