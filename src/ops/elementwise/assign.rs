//! The `*_into` forms: an operation written into an existing array (`out`) rather than a new
//! one, with one elementwise dispatch whose output binding is `out`'s buffer. Operands that
//! share that buffer (`a += &a.t()`, `x.add_into(&y, &x)`) are read from a copy taken
//! before the dispatch (the launch makes it, as wgpu forbids reading and writing one buffer
//! in a dispatch), so the result is as if every operand were read first, as NumPy's.

use super::{run, Binary, Unary};
use crate::array::Array;
use crate::dtype::Element;
use crate::error::{Error, Result};
use crate::kernel::launch::Params;
use crate::shape::broadcast_shapes;

/// Checks that `out` can take a result of `shape`: the same shape, contiguous from the
/// start of its buffer (the elementwise kernels write contiguous runs from there).
fn check_out<T: Element>(op: &'static str, shape: &[usize], out: &Array<T>) -> Result<()> {
    if out.shape != shape {
        return Err(Error::ShapeMismatch {
            op,
            lhs: out.shape.clone(),
            rhs: shape.to_vec(),
        });
    }
    if out.offset != 0 || !out.is_contiguous() {
        return Err(Error::InvalidArgument {
            op,
            reason: "the output must be contiguous from the start of its buffer \
                     (not a strided, offset or broadcast view)",
        });
    }
    Ok(())
}

fn binary_into<T: Element>(x: &Array<T>, y: &Array<T>, op: Binary, out: &Array<T>) -> Result<()> {
    let name = op.name();
    x.dev.expect_same(name, &[&y.dev, &out.dev])?;
    x.dev.require(name, T::DTYPE)?;
    let shape = broadcast_shapes(name, &x.shape, &y.shape)?;
    check_out(name, &shape, out)?;
    let expr = op
        .expr(T::DTYPE, "a", "b")
        .ok_or_else(|| x.dev.unsupported(name, T::DTYPE))?;
    let operands = [x.operand(), y.operand()];
    run::<T>(
        &x.dev,
        T::DTYPE,
        expr,
        &operands,
        out.clone(),
        Params::new(0),
    )?;
    Ok(())
}

fn scalar_into<T: Element>(x: &Array<T>, value: T, op: Binary, out: &Array<T>) -> Result<()> {
    let name = op.name();
    x.dev.expect_same(name, &[&out.dev])?;
    x.dev.require(name, T::DTYPE)?;
    check_out(name, &x.shape, out)?;
    let expr = Unary::Scalar(op)
        .expr(T::DTYPE)
        .ok_or_else(|| x.dev.unsupported(name, T::DTYPE))?;
    let params = Params::new(0).scalars(&[value]);
    run::<T>(&x.dev, T::DTYPE, expr, &[x.operand()], out.clone(), params)?;
    Ok(())
}

macro_rules! into_methods {
    ($( $name:ident, $scalar:ident, $op:ident, $sym:literal; )*) => {$(
        #[doc = concat!("`self ", $sym, " other` (broadcast) written into `out`, an existing array of the broadcast shape, contiguous from the start of its buffer; every view of that buffer sees the result. `out` may be `self` or `other` (NumPy's `out=`).")]
        ///
        /// # Errors
        /// [`Error::ShapeMismatch`] when the shapes do not broadcast together or `out` is
        /// not of the broadcast shape; [`Error::InvalidArgument`] when `out` is a strided,
        /// offset or broadcast view; [`Error::DeviceMismatch`]; [`Error::Unsupported`]
        /// where the operation does not exist for `T`. `out` is untouched on error.
        ///
        /// ```
        /// # let dev = gpuarray::Device::new()?;
        /// let x = dev.from_slice(&[6i32, 8, 10, 12], [2, 2])?;
        /// let y = dev.from_slice(&[2i32, 4], [2])?;
        /// let out = dev.zeros::<i32>([2, 2])?;
        #[doc = concat!("x.", stringify!($name), "(&y, &out)?;")]
        #[doc = concat!("assert_eq!(out.to_vec()?, [6, 8, 10, 12].iter().zip([2, 4, 2, 4]).map(|(a, b)| a ", $sym, " b).collect::<Vec<i32>>());")]
        /// assert!(x.add_into(&y, &dev.zeros::<i32>([4])?).is_err());
        /// # Ok::<(), gpuarray::Error>(())
        /// ```
        pub fn $name(&self, other: &Array<T>, out: &Array<T>) -> Result<()> {
            binary_into(self, other, Binary::$op, out)
        }

        #[doc = concat!("`self ", $sym, " value` written into `out`, an existing array of `self`'s shape, as [`Array::", stringify!($name), "`].")]
        ///
        /// # Errors
        #[doc = concat!("As [`Array::", stringify!($name), "`].")]
        ///
        /// ```
        /// # let dev = gpuarray::Device::new()?;
        /// let x = dev.from_slice(&[6i32, 8], [2])?;
        #[doc = concat!("x.", stringify!($scalar), "(2, &x)?;")]
        #[doc = concat!("assert_eq!(x.to_vec()?, vec![6 ", $sym, " 2, 8 ", $sym, " 2]);")]
        /// # Ok::<(), gpuarray::Error>(())
        /// ```
        pub fn $scalar(&self, value: T, out: &Array<T>) -> Result<()> {
            scalar_into(self, value, Binary::$op, out)
        }
    )*};
}

impl<T: Element> Array<T> {
    into_methods! {
        add_into, add_scalar_into, Add, "+";
        sub_into, sub_scalar_into, Sub, "-";
        mul_into, mul_scalar_into, Mul, "*";
        div_into, div_scalar_into, Div, "/";
        rem_into, rem_scalar_into, Rem, "%";
    }
}
