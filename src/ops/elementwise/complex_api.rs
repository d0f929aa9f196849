//! The methods of complex arrays (complex64, complex128): parts, conjugate and argument
//! (inherent, generic over [`ComplexFloat`]), and [`ComplexOps`]: the functions whose real
//! versions are inherent methods of `T: Float` or `T: Signed` arrays (exp, log, sqrt, the
//! circular and hyperbolic functions, abs, neg, mean). Those are a trait so that a path
//! such as `Array::exp` keeps naming the real method alone (inherent methods of
//! `Array<Complex<f32>>` of the same names would make it ambiguous). The arithmetic
//! (`add`, `mul`, `div`, `pow`, operators, scalars), `square`, `reciprocal`, `isnan`,
//! `isinf`, `isfinite`, `eq`, `ne`, `sum` and `prod` are the generic methods, which take
//! complex arrays.

use std::ops;

use num_complex::Complex;

use super::complex::{angle, map_expr};
use super::map_unary;
use super::table::Unary;
use crate::array::Array;
use crate::dtype::{ComplexFloat, Element};
#[allow(unused_imports)]
use crate::error::Error;
use crate::error::Result;
use crate::shape::Axes;

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
    /// assert_eq!(z.t().imag().sum()?.to_scalar()?, -2.0);
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

/// The functions of complex arrays whose names the real arrays' inherent methods use: bring
/// the trait into scope (`use gpuarray::ComplexOps;`) to call them on
/// `Array<Complex<f32>>` and `Array<Complex<f64>>`. Each is elementwise (but the means),
/// within a few ulps per component of the correctly rounded result (relative to the
/// modulus where a component cancels), with C99 Annex G's special values as NumPy gives
/// them.
///
/// # Errors
/// Every method: [`Error::Unsupported`] when the adapter lacks the dtype (complex128
/// needs f64); the means as [`Array::sum_axis`].
pub trait ComplexOps: Sized {
    /// The component type's array (f32 for complex64).
    type Real: Element;

    /// e^z = e^re (cos im + i sin im): e^(±0 + 0i) = 1 + 0i, e^(inf + nan i) = inf + nan i,
    /// e^(-inf + y i) = ±0 ± 0i; no overflow where e^re does but the result does not.
    ///
    /// ```
    /// use gpuarray::{Complex, ComplexOps};
    /// # let dev = gpuarray::Device::new()?;
    /// let z = dev.from_slice(&[Complex::new(1.0f32, 2.0)], [1])?;
    /// let w = z.exp()?.to_vec()?[0];
    /// assert!((w - Complex::new(-1.1312044, 2.4717267)).norm() < 1e-5);
    /// # Ok::<(), gpuarray::Error>(())
    /// ```
    fn exp(&self) -> Result<Self>;

    /// The natural logarithm log|z| + i arg z, the branch cut along the negative real axis
    /// (signed zeros honoured): log(-0 + 0i) = -inf + pi i; near |z| = 1 through log1p.
    ///
    /// ```
    /// use gpuarray::{Complex, ComplexOps};
    /// # let dev = gpuarray::Device::new()?;
    /// let z = dev.from_slice(&[Complex::new(-1.0f64, 0.0)], [1])?;
    /// assert_eq!(z.log()?.to_vec()?[0], Complex::new(0.0, std::f64::consts::PI));
    /// # Ok::<(), gpuarray::Error>(())
    /// ```
    fn log(&self) -> Result<Self>;

    /// The principal square root (real part >= 0), as C99's csqrt: sqrt(-4 + 0i) = 2i,
    /// sqrt(-4 - 0i) = -2i, sqrt(x + inf i) = inf + inf i, sqrt(-inf + nan i) = nan ± inf i;
    /// no overflow near the largest values.
    ///
    /// ```
    /// use gpuarray::{Complex, ComplexOps};
    /// # let dev = gpuarray::Device::new()?;
    /// let z = dev.from_slice(&[Complex::new(-3.0f32, 4.0)], [1])?;
    /// assert_eq!(z.sqrt()?.to_vec()?, vec![Complex::new(1.0, 2.0)]);
    /// # Ok::<(), gpuarray::Error>(())
    /// ```
    fn sqrt(&self) -> Result<Self>;

    /// The sine, sin(re) cosh(im) + i cos(re) sinh(im) (as -i sinh(iz)).
    ///
    /// ```
    /// use gpuarray::{Complex, ComplexOps};
    /// # let dev = gpuarray::Device::new()?;
    /// let z = dev.from_slice(&[Complex::new(1.0f32, 2.0)], [1])?;
    /// let w = z.sin()?.to_vec()?[0];
    /// assert!((w - Complex::new(3.1657785, 1.9596010)).norm() < 1e-5);
    /// # Ok::<(), gpuarray::Error>(())
    /// ```
    fn sin(&self) -> Result<Self>;

    /// The cosine, cos(re) cosh(im) - i sin(re) sinh(im) (as cosh(iz)).
    ///
    /// ```
    /// use gpuarray::{Complex, ComplexOps};
    /// # let dev = gpuarray::Device::new()?;
    /// let z = dev.from_slice(&[Complex::new(0.0f32, 0.0)], [1])?;
    /// assert_eq!(z.cos()?.to_vec()?, vec![Complex::new(1.0, -0.0)]);
    /// # Ok::<(), gpuarray::Error>(())
    /// ```
    fn cos(&self) -> Result<Self>;

    /// The tangent (as -i tanh(iz)): tends to ±i for large imaginary parts, no overflow.
    ///
    /// ```
    /// use gpuarray::{Complex, ComplexOps};
    /// # let dev = gpuarray::Device::new()?;
    /// let z = dev.from_slice(&[Complex::new(1.0f32, 100.0)], [1])?;
    /// assert_eq!(z.tan()?.to_vec()?[0].im, 1.0);
    /// # Ok::<(), gpuarray::Error>(())
    /// ```
    fn tan(&self) -> Result<Self>;

    /// The hyperbolic sine, sinh(re) cos(im) + i cosh(re) sin(im), with Annex G's values
    /// on the axes (sinh(inf + 0i) = inf + 0i).
    ///
    /// ```
    /// use gpuarray::{Complex, ComplexOps};
    /// # let dev = gpuarray::Device::new()?;
    /// let z = dev.from_slice(&[Complex::new(f32::INFINITY, 0.0)], [1])?;
    /// assert_eq!(z.sinh()?.to_vec()?, vec![Complex::new(f32::INFINITY, 0.0)]);
    /// # Ok::<(), gpuarray::Error>(())
    /// ```
    fn sinh(&self) -> Result<Self>;

    /// The hyperbolic cosine, cosh(re) cos(im) + i sinh(re) sin(im), with Annex G's values
    /// on the axes.
    ///
    /// ```
    /// use gpuarray::{Complex, ComplexOps};
    /// # let dev = gpuarray::Device::new()?;
    /// let z = dev.from_slice(&[Complex::new(0.0f64, 0.0)], [1])?;
    /// assert_eq!(z.cosh()?.to_vec()?, vec![Complex::new(1.0, 0.0)]);
    /// # Ok::<(), gpuarray::Error>(())
    /// ```
    fn cosh(&self) -> Result<Self>;

    /// The hyperbolic tangent (FreeBSD's ctanh: exactly ±1 and no overflow for large real
    /// parts).
    ///
    /// ```
    /// use gpuarray::{Complex, ComplexOps};
    /// # let dev = gpuarray::Device::new()?;
    /// let z = dev.from_slice(&[Complex::new(50.0f32, 0.5)], [1])?;
    /// assert_eq!(z.tanh()?.to_vec()?[0].re, 1.0);
    /// # Ok::<(), gpuarray::Error>(())
    /// ```
    fn tanh(&self) -> Result<Self>;

    /// The negation of both components (`-z`; zeros change sign).
    ///
    /// ```
    /// use gpuarray::{Complex, ComplexOps};
    /// # let dev = gpuarray::Device::new()?;
    /// let z = dev.from_slice(&[Complex::new(1.0f32, 0.0)], [1])?;
    /// assert_eq!(z.neg()?.to_vec()?, vec![Complex::new(-1.0, -0.0)]);
    /// # Ok::<(), gpuarray::Error>(())
    /// ```
    fn neg(&self) -> Result<Self>;

    /// The modulus |z| = hypot(re, im), without overflow or underflow in between (NumPy's
    /// `abs` of a complex array): a real array; |inf + nan i| = inf.
    ///
    /// ```
    /// use gpuarray::{Complex, ComplexOps};
    /// # let dev = gpuarray::Device::new()?;
    /// let z = dev.from_slice(&[Complex::new(3e30f32, -4e30)], [1])?;
    /// assert_eq!(z.abs()?.to_vec()?, vec![5e30]);
    /// # Ok::<(), gpuarray::Error>(())
    /// ```
    fn abs(&self) -> Result<Array<Self::Real>>;

    /// The mean of every element (of each component): a 0-d array.
    ///
    /// ```
    /// use gpuarray::{Complex, ComplexOps};
    /// # let dev = gpuarray::Device::new()?;
    /// let z = dev.from_slice(&[Complex::new(1.0f32, 2.0), Complex::new(3.0, -4.0)], [2])?;
    /// assert_eq!(z.mean()?.to_scalar()?, Complex::new(2.0, -1.0));
    /// # Ok::<(), gpuarray::Error>(())
    /// ```
    fn mean(&self) -> Result<Self> {
        self.mean_axis(.., false)
    }

    /// The mean along `axis` (one, several or all, see [`Array::sum_axis`]), of each
    /// component; NaN over no elements.
    ///
    /// ```
    /// use gpuarray::{Complex, ComplexOps};
    /// # let dev = gpuarray::Device::new()?;
    /// let z = dev.from_slice(&[Complex::new(1.0f64, 2.0), Complex::new(3.0, -4.0)], [1, 2])?;
    /// assert_eq!(z.mean_axis(-1, true)?.to_vec()?, vec![Complex::new(2.0, -1.0)]);
    /// # Ok::<(), gpuarray::Error>(())
    /// ```
    fn mean_axis(&self, axis: impl Into<Axes>, keepdims: bool) -> Result<Self>;
}

macro_rules! complex_ops {
    ($($c:ty => $r:ty),*) => {$(
        impl ComplexOps for Array<$c> {
            type Real = $r;
            fn exp(&self) -> Result<Self> { map_unary(self, Unary::Exp, &[]) }
            fn log(&self) -> Result<Self> { map_unary(self, Unary::Log, &[]) }
            fn sqrt(&self) -> Result<Self> { map_unary(self, Unary::Sqrt, &[]) }
            fn sin(&self) -> Result<Self> { map_unary(self, Unary::Sin, &[]) }
            fn cos(&self) -> Result<Self> { map_unary(self, Unary::Cos, &[]) }
            fn tan(&self) -> Result<Self> { map_unary(self, Unary::Tan, &[]) }
            fn sinh(&self) -> Result<Self> { map_unary(self, Unary::Sinh, &[]) }
            fn cosh(&self) -> Result<Self> { map_unary(self, Unary::Cosh, &[]) }
            fn tanh(&self) -> Result<Self> { map_unary(self, Unary::Tanh, &[]) }
            fn neg(&self) -> Result<Self> { map_unary(self, Unary::Neg, &[]) }
            fn abs(&self) -> Result<Array<$r>> { map_unary(self, Unary::Abs, &[]) }
            fn mean_axis(&self, axis: impl Into<Axes>, keepdims: bool) -> Result<Self> {
                crate::ops::reduce::mean_complex(self, axis.into(), keepdims)
            }
        }

        impl ops::Neg for &Array<$c> {
            type Output = Array<$c>;
            /// # Panics
            /// When the device fails; use [`ComplexOps::neg`] for a `Result`.
            fn neg(self) -> Array<$c> {
                ComplexOps::neg(self).unwrap_or_else(|e| panic!("{e}"))
            }
        }

        impl ops::Neg for Array<$c> {
            type Output = Array<$c>;
            /// # Panics
            /// When the device fails; use [`ComplexOps::neg`] for a `Result`.
            fn neg(self) -> Array<$c> {
                ComplexOps::neg(&self).unwrap_or_else(|e| panic!("{e}"))
            }
        }
    )*};
}

complex_ops!(Complex<f32> => f32, Complex<f64> => f64);
