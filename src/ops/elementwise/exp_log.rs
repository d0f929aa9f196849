//! Exponentials, logarithms, roots and the error functions of the elementwise family as
//! [`Array`] methods: exp, exp2, expm1, log, log2, log10, log1p, logaddexp, logaddexp2,
//! sqrt, rsqrt, cbrt, sigmoid, erf, erfc. The operations are rows of `table.rs`; their WGSL
//! is in shaders/shared/f32_exp_log.wgsl, f64_exp_log.wgsl and the *_erf files.

use crate::array::Array;
use crate::dtype::Float;
#[allow(unused_imports)]
use crate::error::Error;
use crate::error::Result;

use super::table::{Binary, Unary};
use super::{map_binary, map_unary};

impl<T: Float> Array<T> {
    unary_methods! {
        exp, Exp, "Elementwise e^x. f32 within 4 ulps of the correctly rounded result (1.14 measured on lavapipe), f16 computed in f32 and rounded once (0.5 ulp of f16), on every adapter (no approximate built-in); e^-inf = 0, NaN stays NaN. f64: in software (f64 arithmetic only), within 4 ulps.";
        exp2, Exp2, "Elementwise 2^x. f32 within 4 ulps (1.19 measured), f16 rounded once from f32 (0.5 ulp); 2^-inf = 0. f64: in software (f64 arithmetic only), within 4 ulps.";
        log, Log, "Elementwise natural logarithm. f32 within 4 ulps (0.75 measured) over the whole range, subnormal inputs included (read from their bits, so adapters that flush subnormals still see them); f16 0.5 ulp. log(±0) = -inf, negative x NaN. f64: in software (f64 arithmetic only), within 4 ulps.";
        log2, Log2, "Elementwise base-2 logarithm. f32 within 4 ulps (0.83 measured, near 1 too), f16 0.5 ulp; log2(±0) = -inf, negative x NaN. f64: in software (f64 arithmetic only), within 4 ulps.";
        log1p, Log1p, "Elementwise ln(1 + x), accurate for small x too: f32 within 4 ulps over the whole range (0.76 measured), f16 0.5 ulp; log1p(-1) = -inf, x < -1 NaN, log1p(-0) = -0. f64: in software (f64 arithmetic only), within 4 ulps.";
        expm1, Expm1, "Elementwise e^x - 1, accurate for small x too: f32 within 4 ulps over the whole range (1.25 measured), f16 0.5 ulp; expm1(-inf) = -1, expm1(-0) = -0. f64: in software (f64 arithmetic only), within 4 ulps.";
        sqrt, Sqrt, "Elementwise square root. f32 within 2 ulps (0.5 measured: a Newton step with an exact residual), f16 0.5 ulp; sqrt(-0) = -0, negative x NaN. f64: in software (f64 arithmetic only), within 4 ulps.";
        rsqrt, Rsqrt, "Elementwise 1 / sqrt(x). f32 within 4 ulps (1.48 measured), f16 0.5 ulp; rsqrt(±0) = ±inf. f64: in software (f64 arithmetic only), within 4 ulps.";
        sigmoid, Sigmoid, "Elementwise logistic function 1 / (1 + e^-x). f32 within 4 ulps (2.13 measured), subnormal results for x down to -103 kept; f16 0.5 ulp. f64: in software (f64 arithmetic only), within 4 ulps.";
        log10, Log10, "Elementwise base-10 logarithm.";
        cbrt, Cbrt, "Elementwise cube root (negative for negative inputs).";
    }

    float_unary! {
        erfc, Erfc, "Elementwise complementary error function 1 - erf(x), accurate in relative terms into the tail (not computed as 1 - erf there): erfc(10) = 2.09e-45 in f32, erfc(26) = 5.67e-296 in f64. e^(-x^2) from an exact square times an interpolant of erfc(x) e^(x^2); f32 within 4 ulps, f16 computed in f32 and rounded once, f64 in software within 4 ulps. erfc(-inf) = 2, erfc(inf) = 0, NaN stays NaN.", "0.5f32, 5.0", "0.4795001221869535, 1.5374597944280349e-12";
    }

    /// Elementwise error function erf(x) = 2/sqrt(pi) * integral of e^(-t^2) over [0, x],
    /// odd, in [-1, 1]. Within 4 ulps of the correctly rounded result for every float
    /// dtype (f16 computed in f32 and rounded once), from arithmetic only (no built-in
    /// that Vulkan lets be approximate): erf(±0) = ±0, erf(±inf) = ±1, NaN stays NaN.
    ///
    /// # Errors
    /// [`Error::Unsupported`] when the adapter lacks `T`.
    ///
    /// ```
    /// # let dev = gpuarray::Device::new()?;
    /// let x = dev.from_slice(&[0.0f32, 0.5, -1.0, 10.0], [4])?;
    /// let y = x.erf()?.to_vec()?;
    /// let want = [0.0, 0.5204999, -0.8427008, 1.0];
    /// for (g, w) in y.iter().zip(want) {
    ///     assert!((g - w).abs() <= 1e-6, "{g} vs {w}");
    /// }
    /// # Ok::<(), gpuarray::Error>(())
    /// ```
    pub fn erf(&self) -> Result<Array<T>> {
        map_unary(self, Unary::Erf, &[])
    }

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
        map_binary(self, other, Binary::LogAddExp)
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
        map_binary(self, other, Binary::LogAddExp2)
    }
}
