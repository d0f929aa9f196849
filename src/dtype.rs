//! Element types: [`Element`] for everything an [`crate::Array`] can hold, [`Float`] and
//! [`Signed`] for the operations that need them.

use std::fmt;

pub use half::f16;

/// The element type of an array, at run time.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum DType {
    /// IEEE half precision (needs the adapter's SHADER_F16).
    F16,
    /// IEEE single precision.
    F32,
    /// IEEE double precision (needs the adapter's SHADER_F64).
    F64,
    /// 32-bit signed integer.
    I32,
    /// 32-bit unsigned integer; also the element type of boolean masks (0 or 1).
    U32,
}

impl DType {
    /// The WGSL name of the type.
    ///
    /// ```
    /// assert_eq!(gpuarray::DType::F16.wgsl(), "f16");
    /// ```
    pub fn wgsl(self) -> &'static str {
        match self {
            DType::F16 => "f16",
            DType::F32 => "f32",
            DType::F64 => "f64",
            DType::I32 => "i32",
            DType::U32 => "u32",
        }
    }

    /// Bytes per element.
    ///
    /// ```
    /// assert_eq!(gpuarray::DType::F64.size(), 8);
    /// ```
    pub fn size(self) -> usize {
        match self {
            DType::F16 => 2,
            DType::F32 | DType::I32 | DType::U32 => 4,
            DType::F64 => 8,
        }
    }

    /// Whether the type is a floating-point type.
    ///
    /// ```
    /// assert!(gpuarray::DType::F32.is_float());
    /// ```
    pub fn is_float(self) -> bool {
        matches!(self, DType::F16 | DType::F32 | DType::F64)
    }

    /// All element types.
    pub const ALL: [DType; 5] = [DType::F16, DType::F32, DType::F64, DType::I32, DType::U32];
}

impl fmt::Display for DType {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.wgsl())
    }
}

mod sealed {
    pub trait Sealed {}
    impl Sealed for f32 {}
    impl Sealed for f64 {}
    impl Sealed for half::f16 {}
    impl Sealed for i32 {}
    impl Sealed for u32 {}
}

/// A type an [`crate::Array`] can hold: `f32`, `i32`, `u32`, and [`f16`](struct@crate::f16) / `f64` where the
/// adapter supports them ([`crate::Device::supports`]).
///
/// ```
/// use gpuarray::{DType, Element};
/// assert_eq!(<i32 as Element>::DTYPE, DType::I32);
/// ```
pub trait Element:
    sealed::Sealed + bytemuck::Pod + Copy + Send + Sync + PartialEq + PartialOrd + fmt::Debug + 'static
{
    /// The run-time tag of the type.
    const DTYPE: DType;
    /// Converts to f64 (exactly, for every type but none of them loses bits).
    fn to_f64(self) -> f64;
    /// Converts from f64 as Rust's `as` does (saturating for integers, rounding for floats).
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
pub trait Float: Element {}
/// Signed element types: the floats and `i32`.
pub trait Signed: Element {}

macro_rules! element {
    ($t:ty, $d:expr, $to:expr, $from:expr) => {
        impl Element for $t {
            const DTYPE: DType = $d;
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

impl Float for f32 {}
impl Float for f64 {}
impl Float for f16 {}
impl Signed for f32 {}
impl Signed for f64 {}
impl Signed for f16 {}
impl Signed for i32 {}
