//! Element types: [`DType`], the run-time tag, and the traits split by what they promise
//! (in `traits`): [`Element`] for everything an [`crate::Array`] can hold (storage),
//! [`Real`] for ordered numbers convertible to f64, [`Float`], [`Int`] and [`Signed`] under
//! it. See `traits` for where a complex type goes.

use std::fmt;

pub(crate) mod accepts;
#[cfg(test)]
mod refusals;
mod traits;

#[cfg(test)]
use traits::sealed;
pub use traits::{ComplexFloat, Element, Float, Int, Real, Signed};

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
    /// Complex number of two f32 (real, imaginary), interleaved as NumPy's `complex64`:
    /// host type `Complex<f32>` ([`crate::Complex`]), a WGSL `vec2<f32>` on the device.
    Complex64,
    /// Complex number of two f64, interleaved as NumPy's `complex128` (needs the adapter's
    /// SHADER_F64): host type `Complex<f64>`, a WGSL `vec2<f64>` on the device.
    Complex128,
    /// A test-only dtype of 8 bytes that is not a real number (as complex64 will be): its
    /// host type ([`Opaque8`]) implements [`Element`] only, and the tests show every family
    /// that is generic over `Element` refuses it.
    #[cfg(test)]
    Opaque8,
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
            DType::Complex64 => "vec2<f32>",
            DType::Complex128 => "vec2<f64>",
            #[cfg(test)]
            DType::Opaque8 => "vec2<u32>",
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
            DType::Complex64 => "complex64",
            DType::Complex128 => "complex128",
            #[cfg(test)]
            DType::Opaque8 => "opaque8",
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
            DType::F64 | DType::I64 | DType::U64 | DType::Complex64 => 8,
            DType::Complex128 => 16,
            #[cfg(test)]
            DType::Opaque8 => 8,
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

    /// Whether the type is a complex type ([`DType::Complex64`], [`DType::Complex128`]).
    ///
    /// ```
    /// assert!(gpuarray::DType::Complex64.is_complex());
    /// assert!(!gpuarray::DType::F32.is_complex());
    /// ```
    pub fn is_complex(self) -> bool {
        matches!(self, DType::Complex64 | DType::Complex128)
    }

    /// The real type of a complex type's components (f32 for complex64, f64 for
    /// complex128); `None` for the other types.
    ///
    /// ```
    /// use gpuarray::DType;
    /// assert_eq!(DType::Complex128.component(), Some(DType::F64));
    /// assert_eq!(DType::F64.component(), None);
    /// ```
    pub fn component(self) -> Option<DType> {
        match self {
            DType::Complex64 => Some(DType::F32),
            DType::Complex128 => Some(DType::F64),
            _ => None,
        }
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

    /// Whether the type is a real number ([`Real`]): every dtype gpuarray has today, listed
    /// one by one, so that a dtype added later (complex) is not one by default.
    ///
    /// ```
    /// assert!(gpuarray::DType::Bool.is_real());
    /// assert!(gpuarray::DType::U8.is_real());
    /// ```
    pub fn is_real(self) -> bool {
        matches!(
            self,
            DType::F16
                | DType::F32
                | DType::F64
                | DType::I32
                | DType::U32
                | DType::I64
                | DType::U64
                | DType::Bool
                | DType::U8
                | DType::I8
                | DType::U16
                | DType::I16
        )
    }

    /// The indefinite article of the type's name, as a message says "an i32 array" and "a
    /// u8 array" (the letters read aloud: "eff", "eye", but "you").
    ///
    /// ```
    /// use gpuarray::DType;
    /// assert_eq!(format!("{} {} array", DType::I32.article(), DType::I32), "an i32 array");
    /// assert_eq!(format!("{} {} array", DType::F16.article(), DType::F16), "an f16 array");
    /// assert_eq!(format!("{} {} array", DType::U8.article(), DType::U8), "a u8 array");
    /// assert_eq!(DType::Bool.article(), "a");
    /// ```
    pub fn article(self) -> &'static str {
        match self.name().as_bytes()[0] {
            b'a' | b'e' | b'f' | b'i' | b'o' => "an",
            _ => "a",
        }
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

    /// The complex element types ([`DType::is_complex`]).
    ///
    /// ```
    /// assert!(gpuarray::DType::COMPLEX.iter().all(|d| d.is_complex()));
    /// ```
    pub const COMPLEX: [DType; 2] = [DType::Complex64, DType::Complex128];
}

impl fmt::Display for DType {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.name())
    }
}

/// The value of an element of a packed type (u8, i8, u16, i16) or i32 as i32, read from its
/// stored bytes (each such value exactly); `None` for the other dtypes.
pub(crate) fn packed_i32<T: Element>(v: T) -> Option<i32> {
    let repr = T::to_repr(std::slice::from_ref(&v));
    let b: &[u8] = bytemuck::cast_slice(&repr);
    Some(match T::DTYPE {
        DType::U8 => i32::from(b[0]),
        DType::I8 => i32::from(b[0] as i8),
        DType::U16 => i32::from(u16::from_ne_bytes([b[0], b[1]])),
        DType::I16 => i32::from(i16::from_ne_bytes([b[0], b[1]])),
        DType::I32 => i32::from_ne_bytes([b[0], b[1], b[2], b[3]]),
        _ => return None,
    })
}

/// The value of an element of a real dtype as f64 (as [`Real::to_f64`]), read from its
/// stored bytes, for storage code generic over [`Element`] (printing); `None` for a dtype
/// that is not real.
pub(crate) fn real_f64<T: Element>(v: T) -> Option<f64> {
    let repr = T::to_repr(std::slice::from_ref(&v));
    let b: &[u8] = bytemuck::cast_slice(&repr);
    let w4 = || [b[0], b[1], b[2], b[3]];
    let w8 = || [b[0], b[1], b[2], b[3], b[4], b[5], b[6], b[7]];
    Some(match T::DTYPE {
        DType::F16 => f16::from_ne_bytes([b[0], b[1]]).to_f64(),
        DType::F32 => f64::from(f32::from_ne_bytes(w4())),
        DType::F64 => f64::from_ne_bytes(w8()),
        DType::I32 => f64::from(i32::from_ne_bytes(w4())),
        DType::U32 | DType::Bool => f64::from(u32::from_ne_bytes(w4())),
        DType::I64 => i64::from_ne_bytes(w8()) as f64,
        DType::U64 => u64::from_ne_bytes(w8()) as f64,
        DType::U8 | DType::I8 | DType::U16 | DType::I16 => f64::from(packed_i32(v)?),
        DType::Complex64 | DType::Complex128 => return None,
        #[cfg(test)]
        DType::Opaque8 => return None,
    })
}

/// `x` as an element of a real dtype (as [`Real::from_f64`]), for storage code generic
/// over [`Element`] (a reduction's identity); `None` for a dtype that is not real.
pub(crate) fn real_from_f64<T: Element>(x: f64) -> Option<T> {
    fn read<T: Element, R: bytemuck::Pod>(v: R) -> T {
        let repr: T::Repr = bytemuck::pod_read_unaligned(bytemuck::bytes_of(&v));
        T::from_repr(vec![repr])[0]
    }
    Some(match T::DTYPE {
        DType::F16 => read(f16::from_f64(x)),
        DType::F32 => read(x as f32),
        DType::F64 => read(x),
        DType::I32 => read(x as i32),
        DType::U32 => read(x as u32),
        DType::Bool => read(u32::from(x != 0.0)),
        DType::I64 => read(x as i64),
        DType::U64 => read(x as u64),
        DType::U8 => read(x as u8),
        DType::I8 => read(x as i8),
        DType::U16 => read(x as u16),
        DType::I16 => read(x as i16),
        DType::Complex64 | DType::Complex128 => return None,
        #[cfg(test)]
        DType::Opaque8 => return None,
    })
}

/// `x` rounded to the float dtype `d` and back (as `T::from_f64(x).to_f64()`); `None` for
/// a dtype that is not a float.
pub(crate) fn round_to_float(d: DType, x: f64) -> Option<f64> {
    match d {
        DType::F16 => Some(f16::from_f64(x).to_f64()),
        DType::F32 => Some(f64::from(x as f32)),
        DType::F64 => Some(x),
        _ => None,
    }
}

/// The test-only dtype [`DType::Opaque8`]: 8 bytes, storage only (as a complex64 will be).
#[cfg(test)]
pub(crate) mod opaque {
    use std::borrow::Cow;

    use super::{sealed, DType, Element};

    /// Two words of no numeric meaning.
    #[derive(Debug, Clone, Copy, PartialEq, Default, bytemuck::Pod, bytemuck::Zeroable)]
    #[repr(C)]
    pub(crate) struct Opaque8(pub [u32; 2]);

    impl sealed::Sealed for Opaque8 {}

    impl Element for Opaque8 {
        const DTYPE: DType = DType::Opaque8;
        type Repr = Opaque8;
        fn to_repr(data: &[Self]) -> Cow<'_, [Self]> {
            Cow::Borrowed(data)
        }
        fn from_repr(data: Vec<Self>) -> Vec<Self> {
            data
        }
    }
}
