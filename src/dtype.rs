//! Element types: [`Element`] for everything an [`crate::Array`] can hold, [`Float`] and
//! [`Signed`] for the operations that need them.

use std::borrow::Cow;
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
    /// 32-bit unsigned integer.
    U32,
    /// 64-bit signed integer (needs the adapter's SHADER_INT64).
    I64,
    /// 64-bit unsigned integer (needs the adapter's SHADER_INT64).
    U64,
    /// Boolean: what comparisons, `all`/`any` and masks are. Stored as one u32 word per
    /// element (0 or 1) on the device, where NumPy stores one byte: a deliberate
    /// difference, so that masks are read and written a whole word per element at the
    /// speed of every other 32-bit type.
    Bool,
    /// 8-bit unsigned integer, stored packed: four elements per u32 word, little-endian
    /// lanes (element e in word e / 4, bits 8 * (e % 4)). See [`DType::is_packed`].
    U8,
    /// 8-bit signed integer, stored packed as [`DType::U8`] (two's complement lanes).
    I8,
    /// 16-bit unsigned integer, stored packed: two elements per u32 word (element e in
    /// word e / 2, bits 16 * (e % 2)).
    U16,
    /// 16-bit signed integer, stored packed as [`DType::U16`].
    I16,
}

impl DType {
    /// The WGSL type of an element as computed on the device: `u32` for [`DType::Bool`]
    /// (one word per element), `u32` / `i32` for the packed types (whose lanes are
    /// widened to 32 bits), else the type's own name.
    ///
    /// ```
    /// assert_eq!(gpuarray::DType::F16.wgsl(), "f16");
    /// assert_eq!(gpuarray::DType::Bool.wgsl(), "u32");
    /// ```
    pub fn wgsl(self) -> &'static str {
        match self {
            DType::F16 => "f16",
            DType::F32 => "f32",
            DType::F64 => "f64",
            DType::I32 => "i32",
            DType::U32 | DType::Bool | DType::U8 | DType::U16 => "u32",
            DType::I8 | DType::I16 => "i32",
            DType::I64 => "i64",
            DType::U64 => "u64",
        }
    }

    /// The type's name as NumPy spells it for Rust's types (`f32`, `bool`, ...).
    ///
    /// ```
    /// assert_eq!(gpuarray::DType::Bool.name(), "bool");
    /// ```
    pub fn name(self) -> &'static str {
        match self {
            DType::Bool => "bool",
            DType::U8 => "u8",
            DType::I8 => "i8",
            DType::U16 => "u16",
            DType::I16 => "i16",
            d => d.wgsl(),
        }
    }

    /// Bytes per element on the device (4 for [`DType::Bool`], 1 and 2 for the packed
    /// types).
    ///
    /// ```
    /// assert_eq!(gpuarray::DType::F64.size(), 8);
    /// assert_eq!(gpuarray::DType::Bool.size(), 4);
    /// ```
    pub fn size(self) -> usize {
        match self {
            DType::U8 | DType::I8 => 1,
            DType::F16 | DType::U16 | DType::I16 => 2,
            DType::F32 | DType::I32 | DType::U32 | DType::Bool => 4,
            DType::F64 | DType::I64 | DType::U64 => 8,
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

    /// Whether the type is an integer type (not [`DType::Bool`]).
    ///
    /// ```
    /// assert!(gpuarray::DType::I32.is_integer());
    /// assert!(!gpuarray::DType::Bool.is_integer());
    /// ```
    pub fn is_integer(self) -> bool {
        matches!(
            self,
            DType::I32
                | DType::U32
                | DType::I64
                | DType::U64
                | DType::U8
                | DType::I8
                | DType::U16
                | DType::I16
        )
    }

    /// Whether the type is a 64-bit integer (SHADER_INT64).
    ///
    /// ```
    /// assert!(gpuarray::DType::U64.is_int64());
    /// ```
    pub fn is_int64(self) -> bool {
        matches!(self, DType::I64 | DType::U64)
    }

    /// Whether the type is stored packed, several elements per u32 word (u8, i8, u16,
    /// i16). Their arrays take uploads and downloads (any view), creation, printing,
    /// elementwise operations (computed in i32, wrapping as NumPy's on the store), casts
    /// with every dtype and reductions; the other families (sort, scans, histograms,
    /// indexing, joining and reshaping copies, products, convolutions, random, user
    /// kernels) and writes into existing arrays refuse them with
    /// [`crate::Error::Unsupported`]. `sum()` wraps in the type (as CuPy's
    /// `sum(dtype=uint8)`); NumPy's default accumulator (u64 for u8) is
    /// `sum_as::<u64>(.., false)` where the adapter has SHADER_INT64, else `sum_as::<u32>`.
    ///
    /// ```
    /// assert!(gpuarray::DType::U8.is_packed());
    /// assert!(!gpuarray::DType::F16.is_packed());
    /// ```
    pub fn is_packed(self) -> bool {
        matches!(self, DType::U8 | DType::I8 | DType::U16 | DType::I16)
    }

    /// Elements per u32 word of a packed type (4 or 2), 1 otherwise.
    ///
    /// ```
    /// assert_eq!(gpuarray::DType::I8.lanes(), 4);
    /// assert_eq!(gpuarray::DType::U16.lanes(), 2);
    /// ```
    pub fn lanes(self) -> usize {
        if self.is_packed() {
            4 / self.size()
        } else {
            1
        }
    }

    /// The element types stored one element per slot, which every family takes (where the
    /// adapter has them); the packed ones are [`DType::PACKED`].
    pub const ALL: [DType; 8] = [
        DType::F16,
        DType::F32,
        DType::F64,
        DType::I32,
        DType::U32,
        DType::I64,
        DType::U64,
        DType::Bool,
    ];

    /// The packed element types ([`DType::is_packed`]).
    ///
    /// ```
    /// assert!(gpuarray::DType::PACKED.iter().all(|d| d.is_packed()));
    /// ```
    pub const PACKED: [DType; 4] = [DType::U8, DType::I8, DType::U16, DType::I16];
}

impl fmt::Display for DType {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.name())
    }
}

mod sealed {
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
}

/// A type an [`crate::Array`] can hold: `f32`, `i32`, `u32`, `bool`, the packed `u8`,
/// `i8`, `u16`, `i16` ([`DType::is_packed`]), and
/// [`f16`](struct@crate::f16) / `f64` / `i64` / `u64` where the adapter supports them
/// ([`crate::Device::supports`]).
///
/// ```
/// use gpuarray::{DType, Element};
/// assert_eq!(<i32 as Element>::DTYPE, DType::I32);
/// assert_eq!(<bool as Element>::DTYPE, DType::Bool);
/// ```
pub trait Element:
    sealed::Sealed + Copy + Send + Sync + PartialEq + PartialOrd + fmt::Debug + 'static
{
    /// The run-time tag of the type.
    const DTYPE: DType;
    /// The element as stored on the device: the type itself, or `u32` for `bool`.
    type Repr: bytemuck::Pod;
    /// The elements as stored on the device (borrowed where they already are).
    fn to_repr(data: &[Self]) -> Cow<'_, [Self::Repr]>;
    /// The elements from their stored form.
    fn from_repr(data: Vec<Self::Repr>) -> Vec<Self>;
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
pub trait Float: Element {}
/// Signed element types: the floats, `i32` and `i64`.
pub trait Signed: Element {}

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
    fn to_f64(self) -> f64 {
        f64::from(u8::from(self))
    }
    fn from_f64(v: f64) -> bool {
        v != 0.0
    }
}

impl Float for f32 {}
impl Float for f64 {}
impl Float for f16 {}
impl Signed for f32 {}
impl Signed for f64 {}
impl Signed for f16 {}
impl Signed for i32 {}
impl Signed for i64 {}
impl Signed for i8 {}
impl Signed for i16 {}
