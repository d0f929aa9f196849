//! The trigonometric and hyperbolic functions of the elementwise family as [`Array`]
//! methods: sin, cos, tan and their inverses, atan2, hypot, sinh, cosh, tanh and their
//! inverses, degrees, radians and sinc. The operations are rows of `table.rs`; their WGSL
//! is in shaders/shared/f32_trig.wgsl and f64_trig.wgsl (hyperbolic ones beside the
//! exponentials).
//!
//! NumPy's names that are spelled differently here: `arctan2` is [`Array::atan2`],
//! `arcsin`/`arccos`/`arctan` are [`Array::asin`]/[`Array::acos`]/[`Array::atan`],
//! `arcsinh`/`arccosh`/`arctanh` are [`Array::asinh`]/[`Array::acosh`]/[`Array::atanh`]
//! (each found under NumPy's name by rustdoc's search).

use crate::array::Array;
use crate::dtype::{Element, Float};
#[allow(unused_imports)]
use crate::error::Error;
use crate::error::Result;

use super::table::{Binary, Unary};
use super::{map_binary, map_unary};

impl<T: Float> Array<T> {
    unary_methods! {
        sin, Sin, "Elementwise sine. f32 within 4 ulps (1.37 measured) for every finite argument, the largest included (exact range reduction: Cody-Waite below 98304, Payne-Hanek in integer arithmetic above); f16 0.5 ulp; sin(±inf) NaN, sin(-0) = -0. f64: in software (f64 arithmetic only), within 4 ulps for every finite argument (exact reduction: Cody-Waite below 2^20, Payne-Hanek above).";
        cos, Cos, "Elementwise cosine. f32 within 4 ulps (1.40 measured) for every finite argument (exact range reduction, as `sin`); f16 0.5 ulp; cos(±inf) NaN. f64: in software (f64 arithmetic only), within 4 ulps for every finite argument (exact reduction: Cody-Waite below 2^20, Payne-Hanek above).";
        tan, Tan, "Elementwise tangent. f32 within 4 ulps (2.46 measured) for every finite argument (exact range reduction, as `sin`); f16 0.5 ulp; tan(±inf) NaN, tan(-0) = -0. f64: in software (f64 arithmetic only), within 4 ulps for every finite argument (exact reduction: Cody-Waite below 2^20, Payne-Hanek above).";
        tanh, Tanh, "Elementwise hyperbolic tangent. f32 within 4 ulps (2.27 measured), small x too; f16 0.5 ulp; tanh(±inf) = ±1, NaN stays NaN, tanh(-0) = -0. f64: in software (f64 arithmetic only), within 4 ulps.";
        sinh, Sinh, "Elementwise hyperbolic sine.";
        cosh, Cosh, "Elementwise hyperbolic cosine.";
        asin, Asin, "Elementwise arcsine, in [-pi/2, pi/2] (NaN outside [-1, 1]).";
        acos, Acos, "Elementwise arccosine, in [0, pi] (NaN outside [-1, 1]).";
        atan, Atan, "Elementwise arctangent, in [-pi/2, pi/2].";
    }

    float_unary! {
        #[doc(alias = "arcsinh")]
        asinh, Asinh, "Elementwise inverse hyperbolic sine (NumPy's `arcsinh`), odd; asinh(±0) = ±0, ±inf stays ±inf. f32 within 4 ulps (log1p(|x| + x^2 / (1 + sqrt(1 + x^2))), log(2|x|) past 2^12), f16 computed in f32 and rounded once, f64 in software within 4 ulps.", "0.5f32, -3.0", "0.48121182505960347, -1.8184464592320668";
        #[doc(alias = "arccosh")]
        acosh, Acosh, "Elementwise inverse hyperbolic cosine (NumPy's `arccosh`), for x >= 1 (NaN below); acosh(1) = 0, acosh(inf) = inf. f32 within 4 ulps, f16 computed in f32 and rounded once, f64 in software within 4 ulps.", "1.5f32, 10.0", "0.9624236501192069, 2.993222846126381";
        #[doc(alias = "arctanh")]
        atanh, Atanh, "Elementwise inverse hyperbolic tangent (NumPy's `arctanh`), odd; ±1 give ±inf, |x| > 1 NaN, ±0 stay ±0. f32 within 4 ulps, f16 computed in f32 and rounded once, f64 in software within 4 ulps.", "0.5f32, -0.25", "0.5493061443340549, -0.25541281188299536";
        degrees, Degrees, "Elementwise radians to degrees: one rounded product by 180/pi rounded to the type, as NumPy (`x * (180.0f / NPY_PIf)` for f32: within 1.5 ulps of the exact value, bit for bit NumPy's; f16 in f32, rounded once).", "3.141592653589793f32, -1.0", "180.0, -57.29577951308232";
        radians, Radians, "Elementwise degrees to radians: one rounded product by pi/180 rounded to the type, as NumPy (f16 in f32, rounded once).", "180.0f32, -90.0", "3.141592653589793, -1.5707963267948966";
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
        map_binary(self, other, Binary::Hypot)
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
        map_unary(self, Unary::Sinc, &[])
    }
}

impl<T: Element> Array<T> {
    binary_methods! {
        atan2, atan2_scalar, Atan2, "Elementwise four-quadrant arctangent of `self / other` (`self` is y, `other` x), in [-pi, pi], with C99's special values (floats only)", "0.4636476, 1.3258177, 0.9827937, 1.4464413";
    }
}
