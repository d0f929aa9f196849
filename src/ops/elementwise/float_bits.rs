//! The floating-point representation in the elementwise family as [`Array`] methods:
//! copysign, signbit, nextafter, spacing, frexp and ldexp, exact and mostly built from the
//! bits (f64 through 64-bit integers: shaders/shared/f64_bits.wgsl, included only in the
//! kernels that call it). The operations are rows of `table.rs`; frexp is two dispatches
//! (the family writes one output per kernel).

use crate::array::Array;
use crate::dtype::{DType, Element, Float};
#[allow(unused_imports)]
use crate::error::Error;
use crate::error::Result;

use super::table::{Binary, Unary};
use super::{map_binary, map_unary};

impl<T: Float> Array<T> {
    /// Elementwise magnitude of `self` with the sign bit of `other` (-0 and NaNs
    /// included for f32 and f16, read from their bits, f16's without a conversion to f32:
    /// five small dispatches, on its bits as u16; f64 reads the sign of a NaN `other` as +),
    /// broadcasting.
    ///
    /// # Errors
    /// [`Error::ShapeMismatch`] when the shapes do not broadcast together;
    /// [`Error::Unsupported`] when the adapter lacks `T`.
    ///
    /// ```
    /// # let dev = gpuarray::Device::new()?;
    /// let x = dev.from_slice(&[1.0f32, -2.0, 3.0], [3])?;
    /// let y = dev.from_slice(&[-0.0f32, 1.0, -5.0], [3])?;
    /// assert_eq!(x.copysign(&y)?.to_vec()?, vec![-1.0, 2.0, -3.0]);
    /// # Ok::<(), gpuarray::Error>(())
    /// ```
    pub fn copysign(&self, other: &Array<T>) -> Result<Array<T>> {
        if T::DTYPE == DType::F16 {
            // From the bits as u16 (the packed family's integer lanes), with no conversion
            // to f32, which may drop a NaN's sign (the H200's did, 2026-11-28).
            let dev = &self.dev;
            let mag = self
                .reinterpret::<u16>()
                .bitwise_and(&dev.full([0usize; 0], 0x7fffu16)?)?;
            let sign = other
                .reinterpret::<u16>()
                .bitwise_and(&dev.full([0usize; 0], 0x8000u16)?)?;
            return Ok(mag.bitwise_or(&sign)?.reinterpret());
        }
        map_binary(self, other, Binary::Copysign)
    }

    /// The mantissa and the exponent, `self = m 2^e` with `|m|` in [0.5, 1): NumPy's
    /// `frexp` (`(x, 0)` for ±0, ±inf and NaN; subnormals exact). Exact. Three dispatches
    /// (the mantissa, the exponent as a float, its cast to i32). f32 and f16 (in f32);
    /// f64 from its bits through 64-bit integers.
    ///
    /// # Errors
    /// [`Error::Unsupported`] where the adapter lacks `T`, and for f64 where it lacks
    /// 64-bit integers (SHADER_INT64).
    ///
    /// ```
    /// # let dev = gpuarray::Device::new()?;
    /// let x = dev.from_slice(&[8.0f32, -0.75, 0.0], [3])?;
    /// let (m, e) = x.frexp()?;
    /// assert_eq!((m.to_vec()?, e.to_vec()?), (vec![0.5, -0.75, 0.0], vec![4, 0, 0]));
    /// # Ok::<(), gpuarray::Error>(())
    /// ```
    pub fn frexp(&self) -> Result<(Array<T>, Array<i32>)> {
        need_f64_bits(self, "frexp")?;
        let m = map_unary(self, Unary::FrexpMant, &[])?;
        let e: Array<T> = map_unary(self, Unary::FrexpExp, &[])?;
        Ok((m, e.cast::<i32>()?))
    }

    /// `self 2^n` elementwise with broadcasting: NumPy's `ldexp`, frexp's inverse. Exact
    /// where the result is normal, correctly rounded (half to even) into the subnormals,
    /// ±inf past the largest finite value; ±0, ±inf and NaN are kept. f32 is built from
    /// the bits (so a flushing adapter keeps its subnormals), f16 through f32 and rounded
    /// once, f64 by products with powers of two of which only the last rounds. Two
    /// dispatches (`n` cast to `T`, any i32 reaching the same result as the clamped one).
    ///
    /// # Errors
    /// [`Error::ShapeMismatch`] when the shapes do not broadcast; [`Error::Unsupported`]
    /// when the adapter lacks `T`.
    ///
    /// ```
    /// # let dev = gpuarray::Device::new()?;
    /// let x = dev.from_slice(&[0.75f32, 1.0, -3.0], [3])?;
    /// let n = dev.from_slice(&[4i32, -149, 200], [3])?;
    /// let y = x.ldexp(&n)?.to_vec()?;
    /// assert_eq!(y, vec![12.0, f32::from_bits(1), f32::NEG_INFINITY]);
    /// # Ok::<(), gpuarray::Error>(())
    /// ```
    pub fn ldexp(&self, n: &Array<i32>) -> Result<Array<T>> {
        map_binary(self, &n.cast::<T>()?, Binary::Ldexp)
    }

    /// [`Array::ldexp`] by one exponent: `self 2^n`.
    ///
    /// # Errors
    /// [`Error::Unsupported`] when the adapter lacks `T`.
    ///
    /// ```
    /// # let dev = gpuarray::Device::new()?;
    /// let x = dev.from_slice(&[3.0f64, -0.0], [2])?;
    /// assert_eq!(x.ldexp_scalar(-2)?.to_vec()?, vec![0.75, -0.0]);
    /// # Ok::<(), gpuarray::Error>(())
    /// ```
    pub fn ldexp_scalar(&self, n: i32) -> Result<Array<T>> {
        self.ldexp(&self.device().from_slice(&[n], [0usize; 0])?)
    }
}

impl<T: Element> Array<T> {
    /// Whether the sign bit is set, as a mask: NumPy's `signbit` (true for -0.0 and
    /// negative numbers, false for unsigned integers). For f32 and f16 read from the bits
    /// (f16's own, without a conversion to f32), so a NaN's sign bit counts as NumPy's
    /// does; for f64 a NaN gives false.
    ///
    /// # Errors
    /// [`Error::Unsupported`] when the adapter lacks `T`.
    ///
    /// ```
    /// # let dev = gpuarray::Device::new()?;
    /// let x = dev.from_slice(&[-0.0f32, 0.0, -2.0], [3])?;
    /// assert_eq!(x.signbit()?.to_vec()?, vec![true, false, true]);
    /// # Ok::<(), gpuarray::Error>(())
    /// ```
    pub fn signbit(&self) -> Result<Array<bool>> {
        if T::DTYPE == DType::F16 {
            // From the bits as u16, as copysign.
            return self.reinterpret::<u16>().ge_scalar(0x8000);
        }
        map_unary(self, Unary::SignBit, &[])
    }

    /// The next representable value after `self` toward `other`, elementwise with
    /// broadcasting: NumPy's `nextafter` (`other` itself where equal, the smallest
    /// subnormal of `other`'s sign from ±0, NaN if either is NaN). Exact, from the bits:
    /// f32 and f64 (f64 through 64-bit integers), f16 in f32 a step of its 16 bits.
    ///
    /// # Errors
    /// [`Error::Unsupported`] for integer dtypes, where the adapter lacks `T`, and for f64
    /// where it lacks 64-bit integers (SHADER_INT64); [`Error::ShapeMismatch`] when the
    /// shapes do not broadcast.
    ///
    /// ```
    /// # let dev = gpuarray::Device::new()?;
    /// let x = dev.from_slice(&[1.0f32, 0.0], [2])?;
    /// let y = dev.from_slice(&[2.0f32, -1.0], [2])?;
    /// let n = x.nextafter(&y)?.to_vec()?;
    /// assert_eq!(n, vec![1.0 + f32::EPSILON, -f32::from_bits(1)]);
    /// # Ok::<(), gpuarray::Error>(())
    /// ```
    pub fn nextafter(&self, other: &Array<T>) -> Result<Array<T>> {
        need_f64_bits(self, "nextafter")?;
        map_binary(self, other, Binary::NextAfter)
    }

    /// The distance from `self` to the next value away from zero, negative for negative
    /// numbers (and -0): NumPy's `spacing`; NaN for infinities and NaN, inf for the largest
    /// finite value. Exact, from the bits: f32, f16 (in f32) and f64 (through 64-bit
    /// integers).
    ///
    /// # Errors
    /// [`Error::Unsupported`] for integer dtypes, where the adapter lacks `T`, and for f64
    /// where it lacks 64-bit integers (SHADER_INT64).
    ///
    /// ```
    /// # let dev = gpuarray::Device::new()?;
    /// let x = dev.from_slice(&[1.0f32, -4.0], [2])?;
    /// assert_eq!(x.spacing()?.to_vec()?, vec![f32::EPSILON, -4.0 * f32::EPSILON]);
    /// # Ok::<(), gpuarray::Error>(())
    /// ```
    pub fn spacing(&self) -> Result<Array<T>> {
        need_f64_bits(self, "spacing")?;
        map_unary(self, Unary::Spacing, &[])
    }
}

/// `Err(Unsupported)` for an f64 `x` where the adapter lacks 64-bit integers: `op`'s f64
/// form is built from the bits (shaders/shared/f64_bits.wgsl).
fn need_f64_bits<T: Element>(x: &Array<T>, op: &'static str) -> Result<()> {
    if T::DTYPE == DType::F64 && !x.dev.supports_dtype(DType::U64) {
        return Err(x.dev.unsupported(op, DType::F64));
    }
    Ok(())
}
