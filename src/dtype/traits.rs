//! The element traits, split by what they promise:
//!
//! - [`Element`]: storage only (a run-time tag and a `Pod` representation). Creation,
//!   transfers, views and storage copies take any `Element`.
//! - [`Real`]: a real number, so ordered (`PartialOrd`) and convertible to and from f64;
//!   every family that compares, sorts, clips, bins or converts through f64 asks for it.
//! - [`Float`] (f16, f32, f64) and [`Int`] (the integers, not `bool`) under `Real`, and
//!   [`Signed`] (the floats and the signed integers).
//!
//! The complex types (num-complex's `Complex<f32>` / `Complex<f64>`, stored interleaved as
//! a WGSL `vec2`) are [`ComplexFloat`]: `Element`s standing beside [`Float`], not under
//! [`Real`]: complex numbers have no order, so the families that need one never see it
//! (as cubecl's `Complex` stands beside `Numeric`). The families generic over `Element`
//! refuse a dtype they do not list (each keeps a whitelist of [`DType`]s), so a new dtype
//! is `Unsupported` there until a family learns it.

use std::borrow::Cow;
use std::fmt;

use half::f16;

use super::DType;

pub(crate) mod sealed {
    pub trait Sealed {}
    impl Sealed for f32 {}
    impl Sealed for f64 {}
    impl Sealed for half::f16 {}
    impl Sealed for i32 {}
    impl Sealed for u32 {}
    impl Sealed for bool {}
    impl Sealed for i64 {}
    impl Sealed for u64 {}
    impl Sealed for u8 {}
    impl Sealed for i8 {}
    impl Sealed for u16 {}
    impl Sealed for i16 {}
    impl Sealed for num_complex::Complex<f32> {}
    impl Sealed for num_complex::Complex<f64> {}
}

/// A type an [`crate::Array`] can hold: `f32`, `i32`, `u32`, `bool`, the packed `u8`,
/// `i8`, `u16`, `i16` ([`DType::is_packed`]), and
/// [`f16`](struct@crate::f16) / `f64` / `i64` / `u64` where the adapter supports them
/// ([`crate::Device::supports`]).
///
/// `Element` promises storage only: a run-time tag ([`Element::DTYPE`]) and the form the
/// device stores ([`Element::Repr`]). It promises no order and no conversion to numbers:
/// those are [`Real`]'s. A family generic over `Element` (elementwise arithmetic,
/// reductions, indexing, ...) lists the dtypes it takes and refuses the others with
/// [`crate::Error::Unsupported`].
///
/// ```
/// use gpuarray::{DType, Element};
/// assert_eq!(<i32 as Element>::DTYPE, DType::I32);
/// assert_eq!(<bool as Element>::DTYPE, DType::Bool);
/// assert_eq!(<bool as Element>::to_repr(&[true, false]).into_owned(), vec![1u32, 0]);
/// ```
pub trait Element: sealed::Sealed + Copy + Send + Sync + PartialEq + fmt::Debug + 'static {
    /// The run-time tag of the type.
    const DTYPE: DType;
    /// The element as stored on the device: the type itself, or `u32` for `bool`.
    type Repr: bytemuck::Pod;
    /// The elements as stored on the device (borrowed where they already are).
    fn to_repr(data: &[Self]) -> Cow<'_, [Self::Repr]>;
    /// The elements from their stored form.
    fn from_repr(data: Vec<Self::Repr>) -> Vec<Self>;
    /// The element whose stored form is all zero bits (0, 0.0, false): a placeholder
    /// value for storage code, which knows no arithmetic.
    fn zeroed() -> Self {
        Self::from_repr(vec![bytemuck::Zeroable::zeroed()])[0]
    }
}

/// A real number: every [`Element`] but a future complex one. Real numbers are ordered
/// (`PartialOrd`: NaN compares false) and convert to and from f64, which the families that
/// compare, sort, clip, bin, or take scalar bounds need. `bool` is one (false < true, 0 and
/// 1), as NumPy orders and sums booleans.
///
/// ```
/// use gpuarray::Real;
/// assert_eq!(<u8 as Real>::from_f64(300.0), 255); // saturating, as `as`
/// assert_eq!(true.to_f64(), 1.0);
/// assert_eq!(<i32 as Real>::one() + <i32 as Real>::zero(), 1);
/// ```
pub trait Real: Element + PartialOrd {
    /// Converts to f64 (exactly, but for 64-bit integers past 2^53, rounded; `bool` as 0
    /// or 1).
    fn to_f64(self) -> f64;
    /// Converts from f64 as Rust's `as` does (saturating for integers, rounding for
    /// floats); `bool` is `v != 0` (NaN is true, as NumPy's cast).
    fn from_f64(v: f64) -> Self;
    /// Zero.
    fn zero() -> Self {
        Self::from_f64(0.0)
    }
    /// One.
    fn one() -> Self {
        Self::from_f64(1.0)
    }
}

/// Floating-point element types: `f16`, `f32`, `f64`.
///
/// ```
/// use gpuarray::Float;
/// assert!(<f32 as Float>::NAN.is_nan());
/// assert_eq!(<f64 as Float>::INFINITY, f64::INFINITY);
/// assert_eq!(<f32 as Float>::NEG_INFINITY, f32::NEG_INFINITY);
/// ```
pub trait Float: Real + Signed {
    /// Not a number.
    const NAN: Self;
    /// Positive infinity.
    const INFINITY: Self;
    /// Negative infinity.
    const NEG_INFINITY: Self;
}

/// Integer element types: `i32`, `u32`, `i64`, `u64` and the packed `u8`, `i8`, `u16`,
/// `i16`. `bool` is not one: NumPy's bool takes part in arithmetic as 0 and 1, but is not
/// an integer type for most purposes (bitwise operations are logical on it, shifts refuse
/// it), so it is [`Real`] only.
///
/// ```
/// use gpuarray::Int;
/// assert_eq!(<u8 as Int>::MAX, 255);
/// assert_eq!(<i64 as Int>::MIN, i64::MIN);
/// assert_eq!(<i16 as Int>::BITS, 16);
/// ```
pub trait Int: Real {
    /// The smallest value.
    const MIN: Self;
    /// The largest value.
    const MAX: Self;
    /// Width in bits (of the value, not of its storage slot).
    const BITS: u32;
}

/// Signed element types: the floats, `i8`, `i16`, `i32` and `i64` (those whose negation
/// is defined).
///
/// ```
/// fn negate<T: gpuarray::Signed>(x: T) -> T {
///     T::from_f64(-x.to_f64())
/// }
/// assert_eq!(negate(3i8), -3);
/// ```
pub trait Signed: Real {}

macro_rules! element {
    ($t:ty, $d:expr, $to:expr, $from:expr) => {
        impl Element for $t {
            const DTYPE: DType = $d;
            type Repr = $t;
            fn to_repr(data: &[Self]) -> Cow<'_, [Self]> {
                Cow::Borrowed(data)
            }
            fn from_repr(data: Vec<Self>) -> Vec<Self> {
                data
            }
        }
        impl Real for $t {
            fn to_f64(self) -> f64 {
                $to(self)
            }
            fn from_f64(v: f64) -> Self {
                $from(v)
            }
        }
    };
}

element!(f32, DType::F32, |x: f32| x as f64, |v: f64| v as f32);
element!(f64, DType::F64, |x: f64| x, |v: f64| v);
element!(f16, DType::F16, |x: f16| x.to_f64(), f16::from_f64);
element!(i32, DType::I32, |x: i32| x as f64, |v: f64| v as i32);
element!(u32, DType::U32, |x: u32| x as f64, |v: f64| v as u32);
element!(i64, DType::I64, |x: i64| x as f64, |v: f64| v as i64);
element!(u64, DType::U64, |x: u64| x as f64, |v: f64| v as u64);
element!(u8, DType::U8, f64::from, |v: f64| v as u8);
element!(i8, DType::I8, f64::from, |v: f64| v as i8);
element!(u16, DType::U16, f64::from, |v: f64| v as u16);
element!(i16, DType::I16, f64::from, |v: f64| v as i16);

impl Element for bool {
    const DTYPE: DType = DType::Bool;
    type Repr = u32;
    fn to_repr(data: &[bool]) -> Cow<'_, [u32]> {
        Cow::Owned(data.iter().map(|&b| u32::from(b)).collect())
    }
    /// Any non-zero word reads as true.
    fn from_repr(data: Vec<u32>) -> Vec<bool> {
        data.into_iter().map(|w| w != 0).collect()
    }
}

impl Real for bool {
    fn to_f64(self) -> f64 {
        f64::from(u8::from(self))
    }
    fn from_f64(v: f64) -> bool {
        v != 0.0
    }
}

macro_rules! float {
    ($($t:ty),*) => {$(
        impl Float for $t {
            const NAN: Self = <$t>::NAN;
            const INFINITY: Self = <$t>::INFINITY;
            const NEG_INFINITY: Self = <$t>::NEG_INFINITY;
        }
        impl Signed for $t {}
    )*};
}
float!(f32, f64, f16);

macro_rules! int {
    ($($t:ty),*) => {$(
        impl Int for $t {
            const MIN: Self = <$t>::MIN;
            const MAX: Self = <$t>::MAX;
            const BITS: u32 = <$t>::BITS;
        }
    )*};
}
int!(i32, u32, i64, u64, u8, i8, u16, i16);

impl Signed for i32 {}
impl Signed for i64 {}
impl Signed for i8 {}
impl Signed for i16 {}

/// Complex floating-point element types: num-complex's `Complex<f32>` (NumPy's
/// `complex64`) and `Complex<f64>` (`complex128`), stored interleaved (real, imaginary) as
/// NumPy and CUDA store them. They stand beside [`Float`], not under [`Real`]: complex
/// numbers have no order, so the families that compare or sort never take them.
///
/// ```
/// use gpuarray::{Complex, ComplexFloat, DType, Element};
/// let z = <Complex<f32> as ComplexFloat>::new(1.0, -2.0);
/// assert_eq!((z.re(), z.im()), (1.0, -2.0));
/// assert_eq!(<Complex<f64> as Element>::DTYPE, DType::Complex128);
/// ```
pub trait ComplexFloat: Element {
    /// The type of the components (f32 or f64).
    type Real: Float;
    /// The number `re + im i`.
    fn new(re: Self::Real, im: Self::Real) -> Self;
    /// The real part.
    fn re(self) -> Self::Real;
    /// The imaginary part.
    fn im(self) -> Self::Real;
}

macro_rules! complex {
    ($($t:ty => $d:expr),*) => {$(
        impl Element for num_complex::Complex<$t> {
            const DTYPE: DType = $d;
            type Repr = num_complex::Complex<$t>;
            fn to_repr(data: &[Self]) -> Cow<'_, [Self]> {
                Cow::Borrowed(data)
            }
            fn from_repr(data: Vec<Self>) -> Vec<Self> {
                data
            }
        }
        impl ComplexFloat for num_complex::Complex<$t> {
            type Real = $t;
            fn new(re: $t, im: $t) -> Self {
                num_complex::Complex::new(re, im)
            }
            fn re(self) -> $t {
                self.re
            }
            fn im(self) -> $t {
                self.im
            }
        }
    )*};
}
complex!(f32 => DType::Complex64, f64 => DType::Complex128);
