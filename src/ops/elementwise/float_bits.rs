//! The elementwise functions of the name map's second group as [`Array`] methods:
//! logaddexp, logaddexp2, heaviside, sinc, signbit, gcd, lcm, nextafter, spacing,
//! ldexp, and the two-output modf, divmod and frexp. The operations are rows of `numpy.rs`'s table (so they work on views, broadcast
//! and fuse); their WGSL is in shaders/shared/f32_more.wgsl, f64_more.wgsl and
//! int_more.wgsl. The two-output functions are two dispatches (the family writes one
//! output per kernel).

use crate::array::Array;
use crate::dtype::{DType, Element, Float};
#[allow(unused_imports)]
use crate::error::Error;
use crate::error::Result;

use super::expr::{Binary, Unary};
use super::numpy::{NpBinary, NpUnary};
use super::{map_binary, map_unary};

/// The WGSL of the functions here (logaddexp, sinc, ..., gcd), included in the float and
/// 32-bit integer variants of the elementwise table (`expr::library_includes`).
pub(super) const F32_MORE: &str = include_str!("../../../shaders/shared/f32_more.wgsl");
pub(super) const F64_MORE: &str = include_str!("../../../shaders/shared/f64_more.wgsl");
/// The bit-built f64 functions (nextafter, spacing, frexp), which need 64-bit integers:
/// included only where an expression calls them (`expr::uses_f64_bits`).
pub(crate) const F64_BITS: &str = include_str!("../../../shaders/shared/f64_bits.wgsl");
pub(super) const INT_MORE: &str = include_str!("../../../shaders/shared/int_more.wgsl");

impl<T: Float> Array<T> {
    /// Elementwise `log(e^self + e^other)` with broadcasting, without overflow: NumPy's
    /// `logaddexp`, as `max + log1p(e^-|self - other|)`; equal arguments give `x + ln 2`
    /// (so `-inf` with `-inf` stays `-inf`), NaN if either is NaN. f32 within 4 ulps where
    /// the result is not near 0 (the numerics harness, tests/numerics/names_math.rs), f16
    /// computed in f32 and rounded once, f64 in software.
    ///
    /// # Errors
    /// [`Error::ShapeMismatch`] when the shapes do not broadcast; [`Error::Unsupported`]
    /// when the adapter lacks `T`.
    ///
    /// ```
    /// # let dev = gpuarray::Device::new()?;
    /// let x = dev.from_slice(&[1000.0f32, 0.0], [2])?;
    /// let y = dev.from_slice(&[1000.0f32, f32::NEG_INFINITY], [2])?;
    /// let z = x.logaddexp(&y)?.to_vec()?;
    /// assert_eq!(z, vec![1000.0 + std::f32::consts::LN_2, 0.0]);
    /// # Ok::<(), gpuarray::Error>(())
    /// ```
    pub fn logaddexp(&self, other: &Array<T>) -> Result<Array<T>> {
        map_binary(self, other, Binary::Np(NpBinary::LogAddExp))
    }

    /// Elementwise `log2(2^self + 2^other)` with broadcasting, without overflow: NumPy's
    /// `logaddexp2`, as `max + log1p(2^-|self - other|) / ln 2`; equal arguments give
    /// `x + 1`. Accuracy as [`Array::logaddexp`].
    ///
    /// # Errors
    /// As [`Array::logaddexp`].
    ///
    /// ```
    /// # let dev = gpuarray::Device::new()?;
    /// let x = dev.from_slice(&[3.0f32, 200.0], [2])?;
    /// let y = dev.from_slice(&[3.0f32, 0.0], [2])?;
    /// assert_eq!(x.logaddexp2(&y)?.to_vec()?, vec![4.0, 200.0]);
    /// # Ok::<(), gpuarray::Error>(())
    /// ```
    pub fn logaddexp2(&self, other: &Array<T>) -> Result<Array<T>> {
        map_binary(self, other, Binary::Np(NpBinary::LogAddExp2))
    }

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
        map_binary(self, h0, Binary::Np(NpBinary::Heaviside))
    }

    /// The normalised sinc `sin(pi x) / (pi x)`, 1 at 0: NumPy's `sinc`, computed as NumPy
    /// computes it (`pi x` rounded once, then sine and quotient; f32 within 4 ulps of that
    /// formula, which near non-zero integers is far from the true sinc in relative terms,
    /// as NumPy's is). f16 in f32, rounded once; f64 in software.
    ///
    /// # Errors
    /// [`Error::Unsupported`] when the adapter lacks `T`.
    ///
    /// ```
    /// # let dev = gpuarray::Device::new()?;
    /// let x = dev.from_slice(&[0.0f32, 0.5], [2])?;
    /// let y = x.sinc()?.to_vec()?;
    /// assert_eq!(y[0], 1.0);
    /// assert!((y[1] - 2.0 / std::f32::consts::PI).abs() < 1e-6);
    /// # Ok::<(), gpuarray::Error>(())
    /// ```
    pub fn sinc(&self) -> Result<Array<T>> {
        map_unary(self, Unary::Np(NpUnary::Sinc), &[])
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
        let frac = map_unary(self, Unary::Np(NpUnary::ModfFrac), &[])?;
        Ok((frac, self.trunc()?))
    }
}

impl<T: Float> Array<T> {
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
        let m = map_unary(self, Unary::Np(NpUnary::FrexpMant), &[])?;
        let e: Array<T> = map_unary(self, Unary::Np(NpUnary::FrexpExp), &[])?;
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
        map_binary(self, &n.cast::<T>()?, Binary::Np(NpBinary::Ldexp))
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
    /// negative numbers, false for unsigned integers). For f32 and f16 read from the bits,
    /// so a NaN's sign bit counts as NumPy's does; for f64 a NaN gives false.
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
        map_unary(self, Unary::Np(NpUnary::SignBit), &[])
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
        map_binary(self, other, Binary::Np(NpBinary::Gcd))
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
        map_binary(self, other, Binary::Np(NpBinary::Lcm))
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
        map_binary(self, other, Binary::Np(NpBinary::NextAfter))
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
        map_unary(self, Unary::Np(NpUnary::Spacing), &[])
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

/// `Err(Unsupported)` for an f64 `x` where the adapter lacks 64-bit integers: `op`'s f64
/// form is built from the bits (shaders/shared/f64_bits.wgsl).
fn need_f64_bits<T: Element>(x: &Array<T>, op: &'static str) -> Result<()> {
    if T::DTYPE == DType::F64 && !x.dev.supports_dtype(DType::U64) {
        return Err(x.dev.unsupported(op, DType::F64));
    }
    Ok(())
}
