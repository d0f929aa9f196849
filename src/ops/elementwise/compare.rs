//! The NumPy math and logic functions of issue 18 as [`Array`] methods: hyperbolic
//! inverses, erfc, hypot, copysign, fmax/fmin, nan_to_num, the bitwise and shift
//! operations of integers, the float class tests and the logical operations, isclose,
//! allclose and array_equal. The operations themselves are in `numpy.rs`.
//!
//! NumPy's names that are spelled differently here: `arctan2` is [`Array::atan2`],
//! `arcsin`/`arccos`/`arctan` are [`Array::asin`]/[`Array::acos`]/[`Array::atan`],
//! `arcsinh`/`arccosh`/`arctanh` are [`Array::asinh`]/[`Array::acosh`]/[`Array::atanh`],
//! `invert` is [`Array::bitwise_not`] (each found under NumPy's name by rustdoc's search).

use crate::array::Array;
use crate::dtype::{DType, Element, Float};
#[allow(unused_imports)]
use crate::error::Error;
use crate::error::Result;
use crate::kernel::launch::Params;
use crate::shape::broadcast_shapes;

use super::expr::{Binary, Unary};
use super::numpy::{NpBinary, NpUnary};
use super::{map_binary, map_unary, output, run};

/// Parameters carrying float arguments in the kernel's scalar carrier (f32 for f16 and f32,
/// f64 for f64).
fn float_params<T: Element>(values: &[f64]) -> Params {
    if T::DTYPE == DType::F64 {
        Params::new(0).scalars(values)
    } else {
        let v: Vec<f32> = values.iter().map(|&x| x as f32).collect();
        Params::new(0).scalars(&v)
    }
}

fn np_unary<T: Element, O: Element>(x: &Array<T>, op: NpUnary) -> Result<Array<O>> {
    map_unary(x, Unary::Np(op), &[])
}

fn np_binary<T: Element, O: Element>(x: &Array<T>, y: &Array<T>, op: NpBinary) -> Result<Array<O>> {
    map_binary(x, y, Binary::Np(op))
}

macro_rules! float_unary {
    ($( $(#[$attr:meta])* $name:ident, $op:ident, $doc:literal, $input:literal, $want:literal; )*) => {$(
        #[doc = $doc]
        ///
        /// # Errors
        /// [`Error::Unsupported`] when the adapter lacks `T`.
        ///
        /// ```
        /// # let dev = gpuarray::Device::new()?;
        #[doc = concat!("let x = dev.from_slice(&[", $input, "], [2])?;")]
        #[doc = concat!("let y = x.", stringify!($name), "()?.to_vec()?;")]
        #[doc = concat!("let want = [", $want, "];")]
        /// for (g, w) in y.iter().zip(want) {
        ///     assert!((g - w).abs() <= 1e-6 * w.abs().max(1.0), "{g} vs {w}");
        /// }
        /// # Ok::<(), gpuarray::Error>(())
        /// ```
        $(#[$attr])*
        pub fn $name(&self) -> Result<Array<T>> {
            np_unary(self, NpUnary::$op)
        }
    )*};
}

impl<T: Float> Array<T> {
    float_unary! {
        #[doc(alias = "arcsinh")]
        asinh, Asinh, "Elementwise inverse hyperbolic sine (NumPy's `arcsinh`), odd; asinh(±0) = ±0, ±inf stays ±inf. f32 within 4 ulps (log1p(|x| + x^2 / (1 + sqrt(1 + x^2))), log(2|x|) past 2^12), f16 computed in f32 and rounded once, f64 in software within 4 ulps.", "0.5f32, -3.0", "0.48121182505960347, -1.8184464592320668";
        #[doc(alias = "arccosh")]
        acosh, Acosh, "Elementwise inverse hyperbolic cosine (NumPy's `arccosh`), for x >= 1 (NaN below); acosh(1) = 0, acosh(inf) = inf. f32 within 4 ulps, f16 computed in f32 and rounded once, f64 in software within 4 ulps.", "1.5f32, 10.0", "0.9624236501192069, 2.993222846126381";
        #[doc(alias = "arctanh")]
        atanh, Atanh, "Elementwise inverse hyperbolic tangent (NumPy's `arctanh`), odd; ±1 give ±inf, |x| > 1 NaN, ±0 stay ±0. f32 within 4 ulps, f16 computed in f32 and rounded once, f64 in software within 4 ulps.", "0.5f32, -0.25", "0.5493061443340549, -0.25541281188299536";
        erfc, Erfc, "Elementwise complementary error function 1 - erf(x), accurate in relative terms into the tail (not computed as 1 - erf there): erfc(10) = 2.09e-45 in f32, erfc(26) = 5.67e-296 in f64. e^(-x^2) from an exact square times an interpolant of erfc(x) e^(x^2); f32 within 4 ulps, f16 computed in f32 and rounded once, f64 in software within 4 ulps. erfc(-inf) = 2, erfc(inf) = 0, NaN stays NaN.", "0.5f32, 5.0", "0.4795001221869535, 1.5374597944280349e-12";
        trunc, Trunc, "Elementwise truncation toward zero (exact; -0.5 gives -0, NaN and ±inf stay).", "2.7f32, -2.7", "2.0, -2.0";
        degrees, Degrees, "Elementwise radians to degrees: one rounded product by 180/pi, as NumPy (f16 in f32, rounded once).", "3.141592653589793f32, -1.0", "180.0, -57.29577951308232";
        radians, Radians, "Elementwise degrees to radians: one rounded product by pi/180, as NumPy (f16 in f32, rounded once).", "180.0f32, -90.0", "3.141592653589793, -1.5707963267948966";
    }

    /// Elementwise `sqrt(self^2 + other^2)` with broadcasting, without overflow or
    /// underflow in between (`hypot(1.5e38, 2e38)` is 2.5e38, `hypot(3e-45, 4e-45)` a
    /// subnormal; subnormal operands read from their bits also on adapters that flush
    /// them). inf where either operand is infinite, even with a NaN (C99), else NaN where
    /// either is NaN. f32 within 2 ulps, f16 computed in f32 and rounded once, f64 in
    /// software within 2 ulps.
    ///
    /// # Errors
    /// [`Error::ShapeMismatch`] when the shapes do not broadcast together;
    /// [`Error::Unsupported`] when the adapter lacks `T`.
    ///
    /// ```
    /// # let dev = gpuarray::Device::new()?;
    /// let x = dev.from_slice(&[3.0f32, 3e37, f32::INFINITY], [3])?;
    /// let y = dev.from_slice(&[4.0f32, 4e37, f32::NAN], [3])?;
    /// assert_eq!(x.hypot(&y)?.to_vec()?, vec![5.0, 5e37, f32::INFINITY]);
    /// # Ok::<(), gpuarray::Error>(())
    /// ```
    pub fn hypot(&self, other: &Array<T>) -> Result<Array<T>> {
        np_binary(self, other, NpBinary::Hypot)
    }

    /// Elementwise magnitude of `self` with the sign bit of `other` (-0 and NaNs
    /// included for f32 and f16; f64 reads the sign of a NaN `other` as +), broadcasting.
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
        np_binary(self, other, NpBinary::Copysign)
    }

    /// NaN replaced by `nan`, +inf by `posinf` and -inf by `neginf` (NumPy's
    /// `nan_to_num`; `None` takes NumPy's defaults: the largest finite value of `T` and its
    /// negative).
    ///
    /// # Errors
    /// [`Error::Unsupported`] when the adapter lacks `T`.
    ///
    /// ```
    /// # let dev = gpuarray::Device::new()?;
    /// let x = dev.from_slice(&[f32::NAN, f32::INFINITY, f32::NEG_INFINITY, 2.0], [4])?;
    /// let y = x.nan_to_num(0.0, None, Some(-1.0))?.to_vec()?;
    /// assert_eq!(y, vec![0.0, f32::MAX, -1.0, 2.0]);
    /// # Ok::<(), gpuarray::Error>(())
    /// ```
    pub fn nan_to_num(&self, nan: T, posinf: Option<T>, neginf: Option<T>) -> Result<Array<T>> {
        let max = match T::DTYPE {
            DType::F16 => 65504.0,
            DType::F32 => f32::MAX as f64,
            _ => f64::MAX,
        };
        let values = [
            nan.to_f64(),
            posinf.map_or(max, |v| v.to_f64()),
            neginf.map_or(-max, |v| v.to_f64()),
        ];
        let out = output::<T>(
            &self.dev,
            "nan_to_num",
            T::DTYPE,
            self.shape.clone(),
            &[&*self.buf],
        )?;
        let expr = NpUnary::NanToNum.expr(T::DTYPE).expect("floats");
        run::<T>(
            &self.dev,
            T::DTYPE,
            expr,
            &[self.operand()],
            out,
            float_params::<T>(&values),
        )
    }

    /// Elementwise NumPy `isclose`: `|self - other| <= atol + rtol * |other|` for finite
    /// pairs (computed in f32 for f16), equality for the others (infinities of one sign),
    /// and NaN pairs only with `equal_nan`; a mask, broadcasting. NumPy's
    /// defaults are `rtol = 1e-5`, `atol = 1e-8`. On adapters that flush f32 subnormals
    /// (the H100), differences below 2^-126 count as 0.
    ///
    /// # Errors
    /// [`Error::ShapeMismatch`] when the shapes do not broadcast together;
    /// [`Error::InvalidArgument`] for a negative or NaN tolerance;
    /// [`Error::Unsupported`] when the adapter lacks `T`.
    ///
    /// ```
    /// # let dev = gpuarray::Device::new()?;
    /// let x = dev.from_slice(&[1.0f32, 1.0, f32::NAN, f32::INFINITY], [4])?;
    /// let y = dev.from_slice(&[1.000001f32, 1.1, f32::NAN, f32::INFINITY], [4])?;
    /// assert_eq!(x.isclose(&y, 1e-5, 1e-8, true)?.to_vec()?, vec![true, false, true, true]);
    /// assert!(x.isclose(&y, -1.0, 0.0, false).is_err());
    /// # Ok::<(), gpuarray::Error>(())
    /// ```
    pub fn isclose(
        &self,
        other: &Array<T>,
        rtol: f64,
        atol: f64,
        equal_nan: bool,
    ) -> Result<Array<bool>> {
        if !(rtol >= 0.0 && atol >= 0.0) {
            return Err(Error::InvalidArgument {
                op: "isclose",
                reason: "rtol and atol must be non-negative numbers",
            });
        }
        self.dev.expect_same("isclose", &[&other.dev])?;
        let shape = broadcast_shapes("isclose", &self.shape, &other.shape)?;
        let out = output::<bool>(
            &self.dev,
            "isclose",
            T::DTYPE,
            shape,
            &[&*self.buf, &*other.buf],
        )?;
        let expr = NpBinary::IsClose.expr(T::DTYPE, "a", "b").expect("floats");
        let flag = if equal_nan { 1.0 } else { 0.0 };
        let params = float_params::<T>(&[rtol, atol, flag]);
        run::<bool>(
            &self.dev,
            T::DTYPE,
            expr,
            &[self.operand(), other.operand()],
            out,
            params,
        )
    }

    /// Whether [`Array::isclose`] holds for every pair (NumPy's `allclose`): the mask
    /// reduced on the device, one scalar read back. True for empty arrays.
    ///
    /// # Errors
    /// As [`Array::isclose`].
    ///
    /// ```
    /// # let dev = gpuarray::Device::new()?;
    /// let x = dev.from_slice(&[1.0f32, 2.0], [2])?;
    /// let y = dev.from_slice(&[1.0f32, 2.00001], [2])?;
    /// assert!(x.allclose(&y, 1e-5, 1e-8, false)?);
    /// assert!(!x.allclose(&y, 0.0, 0.0, false)?);
    /// # Ok::<(), gpuarray::Error>(())
    /// ```
    pub fn allclose(
        &self,
        other: &Array<T>,
        rtol: f64,
        atol: f64,
        equal_nan: bool,
    ) -> Result<bool> {
        self.isclose(other, rtol, atol, equal_nan)?
            .all()?
            .to_scalar()
    }
}

macro_rules! element_binary {
    ($( $(#[$attr:meta])* $name:ident, $op:ident, $out:ty, $doc:literal, $x:literal, $y:literal, $want:literal; )*) => {$(
        #[doc = concat!($doc, ", with NumPy broadcasting.")]
        ///
        /// # Errors
        /// [`Error::ShapeMismatch`] when the shapes do not broadcast together;
        /// [`Error::Unsupported`] where the operation does not exist for `T`.
        ///
        /// ```
        /// # let dev = gpuarray::Device::new()?;
        #[doc = concat!("let x = dev.from_slice(&[", $x, "], [3])?;")]
        #[doc = concat!("let y = dev.from_slice(&[", $y, "], [3])?;")]
        #[doc = concat!("assert_eq!(x.", stringify!($name), "(&y)?.to_vec()?, vec![", $want, "]);")]
        /// # Ok::<(), gpuarray::Error>(())
        /// ```
        $(#[$attr])*
        pub fn $name(&self, other: &Array<T>) -> Result<Array<$out>> {
            np_binary(self, other, NpBinary::$op)
        }
    )*};
}

macro_rules! element_unary {
    ($( $(#[$attr:meta])* $name:ident, $op:ident, $out:ty, $doc:literal, $x:literal, $want:literal; )*) => {$(
        #[doc = $doc]
        ///
        /// # Errors
        /// [`Error::Unsupported`] where the operation does not exist for `T`.
        ///
        /// ```
        /// # let dev = gpuarray::Device::new()?;
        #[doc = concat!("let x = dev.from_slice(&[", $x, "], [3])?;")]
        #[doc = concat!("assert_eq!(x.", stringify!($name), "()?.to_vec()?, vec![", $want, "]);")]
        /// # Ok::<(), gpuarray::Error>(())
        /// ```
        $(#[$attr])*
        pub fn $name(&self) -> Result<Array<$out>> {
            np_unary(self, NpUnary::$op)
        }
    )*};
}

impl<T: Element> Array<T> {
    element_unary! {
        square, Square, T, "Elementwise `x * x` (integers wrap around on overflow).", "3i32, -4, 46341", "9, 16, -2147479015";
        reciprocal, Reciprocal, T, "Elementwise `1 / x`: floats as [`Array::div`] (1/±0 = ±inf); integers by integer division, as NumPy (1 for 1, -1 for -1, 0 for the rest, 0 also for 0 where NumPy's result is undefined).", "2.0f32, -0.5, 0.0", "0.5, -2.0, f32::INFINITY";
        isnan, IsNan, bool, "Elementwise NaN test as a mask, decided from the bits for f32 and f16 (no comparison a compiler could fold); integers are never NaN.", "1.0f32, f32::NAN, f32::INFINITY", "false, true, false";
        isinf, IsInf, bool, "Elementwise test for ±inf as a mask, from the bits for f32 and f16; integers are never infinite.", "1.0f32, f32::NAN, f32::NEG_INFINITY", "false, false, true";
        isfinite, IsFinite, bool, "Elementwise test for a finite value (not NaN nor ±inf) as a mask, from the bits for f32 and f16 (subnormals are finite on adapters that flush them too); integers are always finite.", "1e-45f32, f32::NAN, f32::INFINITY", "true, false, false";
        logical_not, LogicalNot, bool, "Elementwise NumPy truth negated: true where the element is zero (±0) (NaN and subnormals are true, also on adapters that flush subnormals).", "0.0f32, -0.0, f32::NAN", "true, true, false";
        #[doc(alias = "invert")]
        bitwise_not, BitNot, T, "Elementwise bitwise complement of integers (NumPy's `invert`: `-x - 1` for i32); floats are [`Error::Unsupported`].", "0i32, -1, 5", "-1, 0, -6";
    }

    element_binary! {
        fmax, Fmax, T, "Elementwise maximum ignoring NaN (NumPy's `fmax`): the other operand where one is NaN, NaN only where both are", "1.0f32, f32::NAN, 3.0", "2.0f32, 5.0, -1.0", "2.0, 5.0, 3.0";
        fmin, Fmin, T, "Elementwise minimum ignoring NaN (NumPy's `fmin`): the other operand where one is NaN, NaN only where both are", "1.0f32, f32::NAN, 3.0", "2.0f32, 5.0, -1.0", "1.0, 5.0, -1.0";
        bitwise_and, BitAnd, T, "Elementwise bitwise and of integers (floats: [`Error::Unsupported`])", "12i32, -1, 7", "10i32, 5, 0", "8, 5, 0";
        bitwise_or, BitOr, T, "Elementwise bitwise or of integers (floats: [`Error::Unsupported`])", "12u32, 1, 7", "10u32, 4, 0", "14, 5, 7";
        bitwise_xor, BitXor, T, "Elementwise bitwise exclusive or of integers (floats: [`Error::Unsupported`])", "12i32, -1, 7", "10i32, 5, 7", "6, -6, 0";
        left_shift, Shl, T, "Elementwise `self << other` for integers, as NumPy: a count of the bit width (32) or more, or a negative count, gives 0 (floats: [`Error::Unsupported`])", "1i32, 3, 1", "4i32, 32, -1", "16, 0, 0";
        right_shift, Shr, T, "Elementwise `self >> other` for integers, as NumPy: arithmetic for i32 (the sign fills in), logical for u32; a count of 32 or more, or a negative count, gives 0, or -1 for a negative i32 (floats: [`Error::Unsupported`])", "-16i32, -16, 16", "2i32, 40, 40", "-4, -1, 0";
        logical_and, LogicalAnd, bool, "Elementwise NumPy truth of both operands (non-zero; NaN is true) as a mask", "1.0f32, 0.0, f32::NAN", "2.0f32, 1.0, 1.0", "true, false, true";
        logical_or, LogicalOr, bool, "Elementwise NumPy truth of either operand as a mask", "0i32, 0, 5", "0i32, 3, 0", "false, true, true";
        logical_xor, LogicalXor, bool, "Elementwise NumPy truth of exactly one operand as a mask", "0i32, 2, 5", "0i32, 3, 0", "false, false, true";
    }

    /// Whether both arrays have the same shape and equal elements (NumPy's
    /// `array_equal`; NaN equals nothing, -0 equals 0): the comparison reduced on the
    /// device, one scalar read back. Arrays of different shapes are unequal (no
    /// broadcasting), not an error.
    ///
    /// # Errors
    /// [`Error::DeviceMismatch`] for arrays of two devices; [`Error::Unsupported`] when the
    /// adapter lacks `T`.
    ///
    /// ```
    /// # let dev = gpuarray::Device::new()?;
    /// let x = dev.from_slice(&[1i32, 2, 3], [3])?;
    /// assert!(x.array_equal(&dev.from_slice(&[1i32, 2, 3], [3])?)?);
    /// assert!(!x.array_equal(&dev.from_slice(&[1i32, 2, 3], [1, 3])?)?);
    /// # Ok::<(), gpuarray::Error>(())
    /// ```
    pub fn array_equal(&self, other: &Array<T>) -> Result<bool> {
        self.dev.expect_same("array_equal", &[&other.dev])?;
        if self.shape != other.shape {
            return Ok(false);
        }
        self.eq(other)?.all()?.to_scalar()
    }
}
