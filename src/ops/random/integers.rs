//! [`Generator::integers`]: uniform integers by Lemire's method, over 32-bit words (i32,
//! u32: `gen_integers`) or 64-bit ones (i64, u64: `gen_integers64` and
//! shaders/shared/lemire64.wgsl). Host side of those kernels of shaders/generator.wgsl.

use crate::array::Array;
use crate::dtype::{DType, Int};
use crate::error::Result;
use crate::shape::Shape;

use super::generator::{check, Family, GenParams, Generator};

/// The exact value of an integer element (an i64 or u64 from its stored bits; the others
/// through f64, exact for them).
fn wide_int<T: Int>(v: T) -> i128 {
    let repr = T::to_repr(std::slice::from_ref(&v));
    let bytes = bytemuck::cast_slice::<T::Repr, u8>(&repr);
    match T::DTYPE {
        DType::I64 => i64::from_le_bytes(bytes.try_into().expect("8 bytes")) as i128,
        DType::U64 => u64::from_le_bytes(bytes.try_into().expect("8 bytes")) as i128,
        _ => v.to_f64() as i128,
    }
}

impl Generator {
    /// Integers uniform in [low, high) (NumPy's `integers`, high exclusive), unbiased by
    /// Lemire's method: with r = high - low and x a word, the element is low + (x r) >> 32
    /// unless the low 32 bits of x r fall below 2^32 mod r, when x is redrawn from word 0 of
    /// the element's private blocks 0, 1, ... (at most 64 redraws, each taken with
    /// probability below r / 2^32). A range of 2^32 (all of u32) takes the word itself.
    /// `T` is `i32`, `u32`, or where the adapter has SHADER_INT64 `i64` or `u64`, whose
    /// elements take two words each, by the same method over 64-bit words and 128-bit
    /// products (a range of 2^64 takes the words themselves); a float `T` does not compile
    /// (`T: Int`):
    ///
    /// ```compile_fail
    /// # let dev = gpuarray::Device::new()?;
    /// let _ = dev.default_rng(5).integers::<f32>([4], 0.0, 1.0);
    /// # Ok::<(), gpuarray::Error>(())
    /// ```
    ///
    /// # Errors
    /// [`Error::InvalidArgument`](crate::Error::InvalidArgument) unless low < high;
    /// [`Error::Unsupported`](crate::Error::Unsupported) for a `T` that is
    /// not an integer type, and for i64 and u64 where the adapter lacks SHADER_INT64; else
    /// as [`Generator::random`].
    ///
    /// ```
    /// # let dev = gpuarray::Device::new()?;
    /// let mut rng = dev.default_rng(5);
    /// let d = rng.integers::<i32>([1000], -3, 4)?.to_vec()?;
    /// assert!(d.iter().all(|&x| (-3..4).contains(&x)));
    /// assert!(rng.integers::<u32>([1], 5, 5).is_err());
    /// if dev.supports::<i64>() {
    ///     let w = rng.integers::<i64>([1000], -(1 << 40), 1 << 40)?.to_vec()?;
    ///     assert!(w.iter().all(|&x| (-(1 << 40)..1 << 40).contains(&x)));
    /// }
    /// # Ok::<(), gpuarray::Error>(())
    /// ```
    pub fn integers<T: Int>(
        &mut self,
        shape: impl Into<Shape>,
        low: T,
        high: T,
    ) -> Result<Array<T>> {
        if T::DTYPE.is_int64() {
            return self.integers64(shape.into(), low, high);
        }
        if !matches!(T::DTYPE, DType::I32 | DType::U32) {
            return Err(self.dev.unsupported("integers", T::DTYPE));
        }
        let (l, h) = (low.to_f64() as i64, high.to_f64() as i64);
        check(l < h, "integers", "needs low < high")?;
        let p = GenParams {
            // The range as a u32, 2^32 wrapping to 0 (the whole range).
            ints: [l as u32, (h - l) as u32],
            ..Default::default()
        };
        self.draw(Family::Generator, "gen_integers", shape.into(), 4, p)
    }

    /// [`Generator::integers`] of i64 or u64: Lemire's method over 64-bit words, two
    /// elements a Philox block (a range of 2^64 takes the words themselves).
    fn integers64<T: Int>(&mut self, shape: Shape, low: T, high: T) -> Result<Array<T>> {
        self.dev.require("integers", T::DTYPE)?;
        let (l, h) = (wide_int(low), wide_int(high));
        check(l < h, "integers", "needs low < high")?;
        // The range as a u64, 2^64 wrapping to 0 (the whole range); the low end's bits.
        let (lo, r) = (l as u64, (h - l) as u64);
        let p = GenParams {
            wide: [lo as u32, (lo >> 32) as u32, r as u32, (r >> 32) as u32],
            ..Default::default()
        };
        self.draw(Family::Generator, "gen_integers64", shape, 2, p)
    }
}
