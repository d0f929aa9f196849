//! User-defined kernels: [`ElementwiseKernel`], [`ReductionKernel`], [`RawKernel`] and
//! [`fuse`], as CuPy's, in WGSL. Every user kernel is validated with naga before wgpu sees
//! it, and its errors give the line and column in the user's own text.
//!
//! Arguments are passed as a slice of [`KernelArg`]: arrays (`&x`) and scalars (`&2.0f32`).
//!
//! ```
//! use gpuarray::custom::ElementwiseKernel;
//! # let dev = gpuarray::Device::new()?;
//! let k = ElementwiseKernel::new(&dev, "T x, T y", "T z", "z = (x - y) * (x - y);", "squared_diff")?;
//! let x = dev.from_slice(&[1.0f32, 2.0, 3.0], [3])?;
//! let y = dev.from_slice(&[0.0f32], [1])?;
//! assert_eq!(k.call::<f32>(&[&x, &y])?.to_vec()?, vec![1.0, 4.0, 9.0]);
//! # Ok::<(), gpuarray::Error>(())
//! ```

mod composed;
mod elementwise_kernel;
mod from_fn;
mod fuse;
mod fused_reduce;
mod raw_kernel;
mod reduction_kernel;

pub use elementwise_kernel::ElementwiseKernel;
pub use fuse::{fuse, Fused, Var};
pub use raw_kernel::{Grid, RawKernel};
pub use reduction_kernel::ReductionKernel;

use crate::array::Array;
use crate::device::Device;
use crate::dtype::{f16, DType, Element};
use crate::error::{Error, Result};
use crate::ops::elementwise::Operand;

/// Variants of the user-kernel shader, for the shader validation test.
#[cfg(test)]
pub(crate) fn all_specs() -> Vec<crate::kernel::source::Spec> {
    elementwise_kernel::all_specs()
        .into_iter()
        .chain(fused_reduce::all_specs(fuse::sample))
        .collect()
}

/// An argument of a user kernel: an array (`&x`) or a scalar (`&2.0f32`, `&3u32`, `&-7i64`;
/// the 64-bit ones where the adapter has SHADER_INT64).
///
/// ```
/// use gpuarray::custom::KernelArg;
/// # let dev = gpuarray::Device::new()?;
/// let x = dev.zeros::<f32>([4])?;
/// let args: [&dyn KernelArg; 2] = [&x, &1.5f32];
/// assert_eq!(args.len(), 2);
///
/// // 64-bit scalars keep every bit (two parameter words each).
/// use gpuarray::custom::ElementwiseKernel;
/// if dev.supports::<i64>() {
///     let k = ElementwiseKernel::new(&dev, "T x, T s", "T y", "y = x + s;", "add_s")?;
///     let big = dev.from_slice(&[1i64 << 40, -1], [2])?;
///     assert_eq!(k.call::<i64>(&[&big, &(i64::MAX - (1 << 40))])?.to_vec()?, [i64::MAX, i64::MAX - (1 << 40) - 1]);
/// }
/// # Ok::<(), gpuarray::Error>(())
/// ```
pub trait KernelArg: private::Sealed {}

// The trait is public but unnameable outside the crate (sealed), so the crate-private
// `Arg` in its method never reaches users.
#[allow(private_interfaces)]
pub(crate) mod private {
    /// What an argument is, for the kernels.
    pub trait Sealed {
        fn kernel_arg(&self) -> super::Arg<'_>;
    }
}

/// An argument, seen by the kernels.
pub(crate) enum Arg<'a> {
    Array {
        dev: &'a Device,
        dtype: DType,
        operand: Operand<'a>,
        contiguous: bool,
    },
    Scalar {
        dtype: DType,
        /// The value (rounded to f64 for the 64-bit integers).
        value: f64,
        /// The value's own bits, zero-extended (exact for the 8-byte dtypes).
        bits: u64,
    },
}

impl Arg<'_> {
    pub(crate) fn dtype(&self) -> DType {
        match self {
            Arg::Array { dtype, .. } | Arg::Scalar { dtype, .. } => *dtype,
        }
    }
    pub(crate) fn describe(&self) -> String {
        match self {
            Arg::Array { dtype, operand, .. } => {
                let a = dtype.article();
                format!("{a} {dtype} array of shape {:?}", operand.shape)
            }
            Arg::Scalar { dtype, .. } => format!("{} {dtype} scalar", dtype.article()),
        }
    }
}

impl<T: Element> KernelArg for Array<T> {}
#[allow(private_interfaces)]
impl<T: Element> private::Sealed for Array<T> {
    fn kernel_arg(&self) -> Arg<'_> {
        Arg::Array {
            dev: &self.dev,
            dtype: T::DTYPE,
            operand: self.operand(),
            contiguous: crate::shape::is_contiguous(&self.shape, &self.strides),
        }
    }
}

macro_rules! scalar_arg {
    ($($t:ty),*) => {$(
        impl KernelArg for $t {}
        #[allow(private_interfaces)]
        impl private::Sealed for $t {
            fn kernel_arg(&self) -> Arg<'_> {
                Arg::Scalar {
                    dtype: <$t as Element>::DTYPE,
                    value: crate::dtype::Real::to_f64(*self),
                    bits: raw_bits(*self),
                }
            }
        }
    )*};
}
scalar_arg!(f32, f64, i32, u32, i64, u64, f16, bool);

/// The stored bits of `v`, zero-extended to 64.
fn raw_bits<T: Element>(v: T) -> u64 {
    let repr = T::to_repr(std::slice::from_ref(&v));
    let mut b = [0u8; 8];
    let bytes = bytemuck::cast_slice::<T::Repr, u8>(&repr);
    b[..bytes.len().min(8)].copy_from_slice(&bytes[..bytes.len().min(8)]);
    u64::from_le_bytes(b)
}

/// Parameter words a scalar of type `d` takes: two for the 8-byte types (low word first).
pub(crate) fn scalar_width(d: DType) -> usize {
    if matches!(d, DType::F64 | DType::I64 | DType::U64) {
        2
    } else {
        1
    }
}

/// The 32-bit words carrying scalar argument `arg` as type `d` in a kernel's parameters
/// (one, or two for f64, i64 and u64: low word first). A 64-bit integer or f64 argument
/// of the same width keeps its exact bits; others convert through f64 (as `as` does).
/// The 64-bit types are read back through u64 in the kernel, so they need the adapter's
/// SHADER_INT64: `op` names the call in the `Unsupported` error where it lacks it.
pub(crate) fn scalar_words(
    dev: &Device,
    (op, kernel, param): (&'static str, &str, &str),
    d: DType,
    arg: &Arg<'_>,
) -> Result<Vec<u32>> {
    let Arg::Scalar { dtype, value, bits } = *arg else {
        unreachable!("scalar_words of an array");
    };
    let wrong = |expected: &str| Error::ArgumentType {
        kernel: kernel.to_string(),
        param: param.to_string(),
        expected: expected.into(),
        actual: format!("{} {d} scalar", d.article()),
    };
    let wide = |b: u64| vec![b as u32, (b >> 32) as u32];
    Ok(match d {
        DType::F32 | DType::F16 => vec![(value as f32).to_bits()],
        DType::I32 | DType::U8 | DType::I8 | DType::U16 | DType::I16 => vec![value as i32 as u32],
        DType::U32 => vec![value as u32],
        DType::Bool => vec![u32::from(value != 0.0)],
        DType::F64 | DType::I64 | DType::U64 => {
            if !dev.supports_dtype(DType::U64) {
                return Err(dev.unsupported(op, d));
            }
            match d {
                DType::F64 if dtype == DType::F64 => wide(bits),
                DType::F64 => wide(value.to_bits()),
                _ if dtype.is_int64() => wide(bits),
                DType::I64 => wide(value as i64 as u64),
                _ => wide(value as u64),
            }
        }
        DType::Complex64 | DType::Complex128 => return Err(wrong("a real scalar")),
        #[cfg(test)]
        DType::Opaque8 => return Err(wrong("a real scalar")),
    })
}

/// The WGSL expression reading the scalar at word `k` of a user elementwise kernel's
/// parameters as type `d`, through the accessor `scalar_word` of
/// shaders/elementwise_kernel.wgsl (the 8-byte types from words `k` and `k + 1`).
pub(crate) fn scalar_read(d: DType, k: usize) -> String {
    let wide = format!(
        "(u64(scalar_word({k}u)) | (u64(scalar_word({}u)) << 32u))",
        k + 1
    );
    match d {
        DType::F32 => format!("bitcast<f32>(scalar_word({k}u))"),
        DType::F16 => format!("f16(bitcast<f32>(scalar_word({k}u)))"),
        DType::I32 => format!("bitcast<i32>(scalar_word({k}u))"),
        DType::F64 => format!("bitcast<f64>{wide}"),
        DType::I64 => format!("bitcast<i64>{wide}"),
        DType::U64 => wide,
        _ => format!("scalar_word({k}u)"),
    }
}

/// A parameter's type: a placeholder resolved from the arguments, or a concrete dtype.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) enum Ty {
    Placeholder(String),
    Concrete(DType),
}

/// A parameter of a user kernel: `T x`, `f32 y`.
#[derive(Debug, Clone)]
pub(crate) struct Param {
    pub ty: Ty,
    pub name: String,
}

/// Names the generated code uses, which parameters and placeholders may not take.
const RESERVED: &[&str] = &[
    "i", "o", "P", "S", "SC", "WG", "NDIM", "PER", "I0", "I1", "I2", "O0", "in0", "in1", "in2",
    "out0", "element",
];

pub(crate) fn dtype_named(s: &str) -> Option<DType> {
    Some(match s {
        "f16" | "float16" | "half" => DType::F16,
        "f32" | "float32" | "float" => DType::F32,
        "f64" | "float64" | "double" => DType::F64,
        "i32" | "int32" | "int" => DType::I32,
        "u32" | "uint32" | "uint" => DType::U32,
        // Where the adapter has SHADER_INT64 (else refused at the call).
        "i64" | "int64" => DType::I64,
        "u64" | "uint64" => DType::U64,
        // Stored as u32 words of 0 or 1: a kernel reads and writes them as u32.
        "bool" => DType::Bool,
        _ => return None,
    })
}

fn is_ident(s: &str) -> bool {
    let mut c = s.chars();
    c.next()
        .is_some_and(|f| f.is_ascii_alphabetic() || f == '_')
        && c.all(|ch| ch.is_ascii_alphanumeric() || ch == '_')
}

/// Parses a parameter list such as `"T x, f32 alpha"`; names and placeholders may not be
/// among `reserved`.
pub(crate) fn parse_params(
    kernel: &str,
    what: &str,
    text: &str,
    reserved: &[&str],
) -> Result<Vec<Param>> {
    let bad = |reason: String| Error::InvalidShader {
        name: kernel.to_string(),
        message: format!("{kernel}: {what} `{text}`: {reason}"),
    };
    let mut out: Vec<Param> = Vec::new();
    for part in text.split(',').map(str::trim).filter(|p| !p.is_empty()) {
        let words: Vec<&str> = part.split_whitespace().collect();
        let [ty, name] = words[..] else {
            return Err(bad(format!("`{part}` is not `TYPE NAME`")));
        };
        if !is_ident(name) || !is_ident(ty) {
            return Err(bad(format!("`{part}` is not `TYPE NAME`")));
        }
        if reserved.contains(&name) || out.iter().any(|p| p.name == name) {
            return Err(bad(format!("the name `{name}` is reserved or repeated")));
        }
        let ty = match dtype_named(ty) {
            Some(d) => Ty::Concrete(d),
            None if reserved.contains(&ty) => {
                return Err(bad(format!(
                    "the type placeholder `{ty}` clashes with generated code"
                )))
            }
            None => Ty::Placeholder(ty.to_string()),
        };
        out.push(Param {
            ty,
            name: name.to_string(),
        });
    }
    Ok(out)
}

/// Placeholder types resolved from arguments.
#[derive(Debug, Clone, Default)]
pub(crate) struct Types(pub Vec<(String, DType)>);

impl Types {
    pub(crate) fn get(&self, ty: &Ty) -> Option<DType> {
        match ty {
            Ty::Concrete(d) => Some(*d),
            Ty::Placeholder(p) => self.0.iter().find(|(n, _)| n == p).map(|(_, d)| *d),
        }
    }

    /// Binds placeholder `ty` to `d` (checking a concrete type or an earlier binding).
    pub(crate) fn bind(&mut self, kernel: &str, param: &Param, arg: &Arg<'_>) -> Result<()> {
        let d = arg.dtype();
        match self.get(&param.ty) {
            Some(want) if want != d => Err(Error::ArgumentType {
                kernel: kernel.to_string(),
                param: param.name.clone(),
                expected: format!("{want}"),
                actual: arg.describe(),
            }),
            Some(_) => Ok(()),
            None => {
                if let Ty::Placeholder(p) = &param.ty {
                    self.0.push((p.clone(), d));
                }
                Ok(())
            }
        }
    }

    /// `alias T = f32;` lines for the bound placeholders.
    pub(crate) fn aliases(&self) -> String {
        self.0
            .iter()
            .map(|(n, d)| format!("alias {n} = {};\n", d.wgsl()))
            .collect()
    }
}

/// The arguments of `args`, checked to be on `dev` (with `out`, the output array of a
/// call that writes into one) and to be as many as `expected`; `op` names the entry point
/// in errors.
pub(crate) fn args_of<'a>(
    dev: &Device,
    op: &'static str,
    kernel: &str,
    args: &'a [&'a dyn KernelArg],
    out: Option<&Device>,
    expected: usize,
) -> Result<Vec<Arg<'a>>> {
    let out_args: Vec<Arg<'a>> = args.iter().map(|a| a.kernel_arg()).collect();
    let devices: Vec<&Device> = out_args
        .iter()
        .filter_map(|a| match a {
            Arg::Array { dev, .. } => Some(*dev),
            Arg::Scalar { .. } => None,
        })
        .chain(out)
        .collect();
    dev.expect_same(op, &devices)?;
    if args.len() != expected {
        return Err(Error::ArgumentCount {
            kernel: kernel.to_string(),
            expected,
            given: args.len(),
        });
    }
    for a in &out_args {
        if let Arg::Array { dtype, .. } = a {
            dev.require(op, *dtype)?;
        }
    }
    Ok(out_args)
}
