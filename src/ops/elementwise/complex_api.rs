//! The methods of complex arrays (complex64, complex128): parts, conjugate, modulus and
//! argument, and the functions whose real versions take `T: Float` (exp, log, sqrt, the
//! circular and hyperbolic functions) or `T: Signed` (abs, neg), written for each complex
//! type (a generic `impl<C: ComplexFloat>` would overlap the real ones). The arithmetic
//! (`add`, `mul`, `div`, `pow`, operators, scalars), `square`, `reciprocal`, `isnan`,
//! `isinf`, `isfinite`, `eq` and `ne` are the generic methods, which take complex arrays.

use std::ops;

use num_complex::Complex;

use super::complex::{angle, map_expr};
use super::map_unary;
use super::operators::or_panic;
use super::table::Unary;
use crate::array::Array;
use crate::dtype::ComplexFloat;
#[allow(unused_imports)]
use crate::error::Error;
use crate::error::Result;

impl<C: ComplexFloat> Array<C> {
    /// The real parts: NumPy's `x.real`, a view of the same buffer (every other component,
    /// stride doubled), so writes into it change `self`.
    ///
    /// ```
    /// use gpuarray::Complex;
    /// # let dev = gpuarray::Device::new()?;
    /// let z = dev.from_slice(&[Complex::new(1.0f32, 2.0), Complex::new(3.0, -4.0)], [2])?;
    /// assert_eq!(z.real().to_vec()?, vec![1.0, 3.0]);
    /// z.real().fill(0.5)?;
    /// assert_eq!(z.to_vec()?[1], Complex::new(0.5, -4.0));
    /// # Ok::<(), gpuarray::Error>(())
    /// ```
    pub fn real(&self) -> Array<C::Real> {
        self.component_view(0)
    }

    /// The imaginary parts: NumPy's `x.imag`, a view as [`Array::real`].
    ///
    /// ```
    /// use gpuarray::Complex;
    /// # let dev = gpuarray::Device::new()?;
    /// let z = dev.from_slice(&[Complex::new(1.0f32, 2.0), Complex::new(3.0, -4.0)], [2])?;
    /// assert_eq!(z.imag().to_vec()?, vec![2.0, -4.0]);
    /// assert_eq!(z.t().imag().sum()?, -2.0);
    /// # Ok::<(), gpuarray::Error>(())
    /// ```
    pub fn imag(&self) -> Array<C::Real> {
        self.component_view(1)
    }

    /// The complex array `re + i im`, the parts broadcast together (NumPy's
    /// `re + 1j * im`, exactly: no rounding).
    ///
    /// # Errors
    /// [`Error::Broadcast`] when the shapes do not broadcast; [`Error::DeviceMismatch`];
    /// [`Error::Unsupported`] when the adapter lacks `C` (complex128 needs f64).
    ///
    /// ```
    /// use gpuarray::{Array, Complex};
    /// # let dev = gpuarray::Device::new()?;
    /// let re = dev.from_slice(&[1.0f32, 2.0], [2])?;
    /// let im = dev.from_slice(&[-1.0f32], [1])?;
    /// let z: Array<Complex<f32>> = Array::complex(&re, &im)?;
    /// assert_eq!(z.to_vec()?, vec![Complex::new(1.0, -1.0), Complex::new(2.0, -1.0)]);
    /// # Ok::<(), gpuarray::Error>(())
    /// ```
    pub fn complex(re: &Array<C::Real>, im: &Array<C::Real>) -> Result<Array<C>> {
        let op = "complex";
        let dev = &re.dev;
        dev.expect_same(op, &[&im.dev])?;
        dev.require_storage(op, <C as crate::dtype::Element>::DTYPE)?;
        let shape = crate::shape::broadcast_shapes(op, &re.shape, &im.shape)?;
        let out =
            Array::<C>::alloc_any(dev, op, shape, |b| dev.alloc_apart(b, &[&re.buf, &im.buf]))?;
        out.real().assign(re)?;
        out.imag().assign(im)?;
        Ok(out)
    }

    /// The complex conjugate `re - i im`, elementwise (NumPy's `conj`).
    ///
    /// # Errors
    /// [`Error::Unsupported`] when the adapter lacks `C`.
    ///
    /// ```
    /// use gpuarray::Complex;
    /// # let dev = gpuarray::Device::new()?;
    /// let z = dev.from_slice(&[Complex::new(1.0f32, 2.0)], [1])?;
    /// assert_eq!(z.conj()?.to_vec()?, vec![Complex::new(1.0, -2.0)]);
    /// # Ok::<(), gpuarray::Error>(())
    /// ```
    pub fn conj(&self) -> Result<Array<C>> {
        map_expr(self, "conj", "CX(a.x, -a.y)")
    }

    /// The argument (phase) in radians, in [-pi, pi]: NumPy's `angle`, `atan2(im, re)`
    /// with its signed zeros (`angle(-1 + 0i)` is pi, `angle(-1 - 0i)` is -pi).
    ///
    /// # Errors
    /// [`Error::Unsupported`] when the adapter lacks `C`.
    ///
    /// ```
    /// use gpuarray::Complex;
    /// # let dev = gpuarray::Device::new()?;
    /// let z = dev.from_slice(&[Complex::new(0.0f32, 2.0), Complex::new(-1.0, 0.0)], [2])?;
    /// let a = z.angle()?.to_vec()?;
    /// assert!((a[0] - std::f32::consts::FRAC_PI_2).abs() < 1e-6);
    /// assert!((a[1] - std::f32::consts::PI).abs() < 1e-6);
    /// # Ok::<(), gpuarray::Error>(())
    /// ```
    pub fn angle(&self) -> Result<Array<C::Real>> {
        angle(self)
    }
}

macro_rules! complex_unary {
    ($c:ty, $r:ty, $($name:ident, $op:ident, $doc:literal, $z:literal, $want:literal;)*) => {$(
        #[doc = $doc]
        ///
        /// # Errors
        /// [`Error::Unsupported`] when the adapter lacks the dtype.
        ///
        /// ```
        /// use gpuarray::Complex;
        /// # let dev = gpuarray::Device::new()?;
        #[doc = concat!("let z = dev.from_slice(&[Complex::<", stringify!($r), ">::new(", $z, ")], [1])?;")]
        #[doc = concat!("let w = z.", stringify!($name), "()?.to_vec()?[0];")]
        #[doc = concat!("let want = Complex::<", stringify!($r), ">::new(", $want, ");")]
        /// assert!((w - want).norm() <= 1e-5 * want.norm().max(1.0), "{w} vs {want}");
        /// # Ok::<(), gpuarray::Error>(())
        /// ```
        pub fn $name(&self) -> Result<Array<$c>> {
            map_unary(self, Unary::$op, &[])
        }
    )*};
}

macro_rules! complex_methods {
    ($($c:ty => $r:ty),*) => {$(
        impl Array<$c> {
            complex_unary! { $c, $r,
                exp, Exp, "Elementwise e^z = e^re (cos im + i sin im), within a few ulps per component; C99 Annex G's special values (NumPy's): e^(±0 + 0i) = 1 + 0i, e^(inf + nan i) = inf + nan i, e^(-inf + y i) = ±0 ± 0i.", "1.0, 2.0", "-1.1312043837568135, 2.4717266720048188";
                log, Log, "Elementwise natural logarithm log|z| + i arg z, the branch cut along the negative real axis (arg in [-pi, pi], signed zeros honoured): log(-0 + 0i) = -inf + pi i; near |z| = 1 through log1p so the small result keeps its accuracy.", "1.0, 2.0", "0.8047189562170503, 1.1071487177940904";
                sqrt, Sqrt, "Elementwise principal square root (real part >= 0), as C99's csqrt: sqrt(-4 + 0i) = 2i, sqrt(-4 - 0i) = -2i, sqrt(x + inf i) = inf + inf i, sqrt(-inf + nan i) = nan ± inf i; no overflow near the largest values.", "-3.0, 4.0", "1.0, 2.0";
                sin, Sin, "Elementwise sine, sin(re) cosh(im) + i cos(re) sinh(im) (as -i sinh(iz)).", "1.0, 2.0", "3.165778513216168, 1.9596010414216063";
                cos, Cos, "Elementwise cosine, cos(re) cosh(im) - i sin(re) sinh(im) (as cosh(iz)).", "1.0, 2.0", "2.0327230070196656, -3.0518977991518";
                tan, Tan, "Elementwise tangent (as -i tanh(iz)), without overflow for large imaginary parts (tends to ±i).", "1.0, 2.0", "0.0338128260798967, 1.0147936161466335";
                sinh, Sinh, "Elementwise hyperbolic sine, sinh(re) cos(im) + i cosh(re) sin(im), with Annex G's values on the axes.", "1.0, 2.0", "-0.4890562590412937, 1.4031192506220405";
                cosh, Cosh, "Elementwise hyperbolic cosine, cosh(re) cos(im) + i sinh(re) sin(im), with Annex G's values on the axes.", "1.0, 2.0", "-0.64214812471552, 1.0686074213827783";
                tanh, Tanh, "Elementwise hyperbolic tangent (FreeBSD's ctanh: exact ±1 and no overflow for large real parts).", "1.0, 2.0", "1.16673625724092, -0.24345820118572534";
                neg, Neg, "Elementwise negation of both components (`-z`; the sign of zeros flips).", "1.0, -0.0", "-1.0, 0.0";
            }

            /// Elementwise modulus |z| = hypot(re, im), without overflow or underflow in
            /// between (NumPy's `abs` of a complex array): a real array; |inf + nan i| = inf.
            ///
            /// # Errors
            /// [`Error::Unsupported`] when the adapter lacks the dtype.
            ///
            /// ```
            /// use gpuarray::Complex;
            /// # let dev = gpuarray::Device::new()?;
            /// let z = dev.from_slice(&[Complex::new(3e30f32, -4e30)], [1])?;
            /// assert_eq!(z.abs()?.to_vec()?, vec![5e30]);
            /// # Ok::<(), gpuarray::Error>(())
            /// ```
            pub fn abs(&self) -> Result<Array<$r>> {
                map_unary(self, Unary::Abs, &[])
            }
        }

        impl ops::Neg for &Array<$c> {
            type Output = Array<$c>;
            /// # Panics
            /// When the device fails; use [`Array::neg`] for a `Result`.
            fn neg(self) -> Array<$c> {
                or_panic(Array::<$c>::neg(self))
            }
        }

        impl ops::Neg for Array<$c> {
            type Output = Array<$c>;
            /// # Panics
            /// When the device fails; use [`Array::neg`] for a `Result`.
            fn neg(self) -> Array<$c> {
                or_panic(Array::<$c>::neg(&self))
            }
        }
    )*};
}

complex_methods!(Complex<f32> => f32, Complex<f64> => f64);
