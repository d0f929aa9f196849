//! The `*_into` forms: an operation written into an existing array (`out`) rather than a new
//! one. Where `out` is contiguous from the start of its buffer, one elementwise dispatch
//! whose output binding is `out`'s buffer; where it is a strided or offset view, the result
//! is made first and then written through the view's strides (the `unary_scatter` entry).
//! Operands that share `out`'s buffer (`a += &a.t()`, `x.add_into(&y, &x)`) are read from a
//! copy taken before the dispatch (the launch makes it, as wgpu forbids reading and writing
//! one buffer in a dispatch), so the result is as if every operand were read first, as
//! NumPy's.

use super::plan::WG;
use super::wgsl::{op_def, spec};
use super::{broadcast_layout, map_binary, map_unary, run, Binary, Operand, Unary};
use crate::array::Array;
use crate::device::Work;
use crate::dtype::Element;
use crate::error::{Error, Result};
use crate::kernel::cache::Key;
use crate::kernel::launch::Params;
use crate::shape::broadcast_shapes;

/// How `out` takes a result of `shape`: `Ok(true)` written directly (contiguous from the
/// start of its buffer, where the elementwise kernels write), `Ok(false)` through its
/// strides; an error for another shape or a view that overlaps itself (broadcast).
fn check_out<T: Element>(op: &'static str, shape: &[usize], out: &Array<T>) -> Result<bool> {
    if out.shape != shape {
        return Err(Error::ShapeMismatch {
            op,
            lhs: out.shape.clone(),
            rhs: shape.to_vec(),
        });
    }
    if out
        .shape
        .iter()
        .zip(&out.strides)
        .any(|(&e, &s)| e > 1 && s == 0)
    {
        return Err(Error::InvalidArgument {
            op,
            reason: "the output is a broadcast view (several elements share one address)",
        });
    }
    Ok(out.offset == 0 && out.is_contiguous())
}

/// `out = op(out, y)` (`y` `None`: `out = op(out)`, a scalar form) with one dispatch of the
/// `*_inplace` entries, where that is possible: `out` contiguous from the start of its
/// buffer and within one binding, `y` contiguous of `out`'s shape in another buffer. The
/// in-place entries read `out` through its own binding, so `a += &b` moves 3 bytes a byte
/// of `a` (not 5, as with the copy the launch takes of an operand sharing the output).
/// Returns whether it ran.
fn in_place<T: Element>(
    expr: &(String, bool),
    y: Option<&Array<T>>,
    out: &Array<T>,
    params: Params,
) -> Result<bool> {
    let dev = &out.dev;
    let max = dev.limits().max_storage_buffer_binding_size & !3;
    let y_ok = y.is_none_or(|y| {
        y.shape == out.shape
            && y.is_contiguous()
            && y.buf.buffer_id() != out.buf.buffer_id()
            && y.binding().bytes <= max
    });
    if !y_ok || out.binding().bytes > max {
        return Ok(false);
    }
    let n = out.len();
    if n == 0 {
        return Ok(true);
    }
    let y_offset = y.map_or(0, |y| y.offset);
    let vec = expr.1 && n.is_multiple_of(4) && y_offset.is_multiple_of(4);
    let q = if vec { 4 } else { 1 };
    let arity = 1 + usize::from(y.is_some());
    let (function, def) = op_def(arity, &expr.0);
    let key = Key {
        family: "elementwise",
        entry: if y.is_some() {
            "binary_inplace"
        } else {
            "unary_inplace"
        },
        variant: format!("{def}|{}|{}|{vec}", T::DTYPE, T::DTYPE),
        inputs: arity - 1,
        wg: WG,
        ndim: 0,
        per: 0,
    };
    let kernel = dev.kernel(key, || spec(T::DTYPE, T::DTYPE, vec, function, def))?;
    let mut p = params;
    p.n = (n / q) as u32;
    p.offs[0] = (y_offset / q) as u32;
    let inputs: Vec<_> = y.iter().map(|y| y.binding()).collect();
    dev.launch(&kernel, &p, &inputs, out.binding(), Work::Items(p.n))?;
    Ok(true)
}

/// Whether `x` is the very array `out` is (its buffer, offset, shape and strides).
fn same_view<T: Element>(x: &Array<T>, out: &Array<T>) -> bool {
    std::sync::Arc::ptr_eq(&x.buf, &out.buf)
        && x.offset == out.offset
        && x.shape == out.shape
        && x.strides == out.strides
}

/// Writes `src` (of `out`'s shape, any layout) into `out` through `out`'s strides and
/// offset: one dispatch of `unary_scatter`.
fn scatter<T: Element>(src: &Array<T>, out: &Array<T>) -> Result<()> {
    let dev = &src.dev;
    if out.is_empty() {
        return Ok(());
    }
    let dst = Operand {
        binding: out.binding(),
        shape: &out.shape,
        strides: &out.strides,
        offset: out.offset,
    };
    let walk = [src.operand(), src.operand(), dst];
    let (params, _, _) = broadcast_layout(&walk, &out.shape, Params::new(0))?;
    let max = dev.limits().max_storage_buffer_binding_size & !3;
    for b in [src.binding(), out.binding()] {
        if b.bytes > max {
            return Err(Error::BufferTooLarge {
                requested: b.bytes,
                max,
            });
        }
    }
    let (function, def) = op_def(1, "a");
    let key = Key {
        family: "elementwise",
        entry: "unary_scatter",
        variant: format!("{def}|{}|{}|false", T::DTYPE, T::DTYPE),
        inputs: 1,
        wg: WG,
        ndim: params.ndim.max(1),
        per: 1,
    };
    let kernel = dev.kernel(key, || spec(T::DTYPE, T::DTYPE, false, function, def))?;
    let work = Work::Items(out.len() as u32);
    dev.launch(&kernel, &params, &[src.binding()], out.binding(), work)
}

fn binary_into<T: Element>(x: &Array<T>, y: &Array<T>, op: Binary, out: &Array<T>) -> Result<()> {
    let name = op.name();
    x.dev.expect_same(name, &[&y.dev, &out.dev])?;
    x.dev.require(name, T::DTYPE)?;
    let shape = broadcast_shapes(name, &x.shape, &y.shape)?;
    if !check_out(name, &shape, out)? {
        return scatter(&map_binary(x, y, op)?, out);
    }
    let expr = op
        .expr(T::DTYPE, "a", "b")
        .ok_or_else(|| x.dev.unsupported(name, T::DTYPE))?;
    if same_view(x, out) && in_place(&expr, Some(y), out, Params::new(0))? {
        return Ok(());
    }
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
    if !check_out(name, &x.shape, out)? {
        return scatter(&map_unary(x, Unary::Scalar(op), &[value])?, out);
    }
    let expr = Unary::Scalar(op)
        .expr(T::DTYPE)
        .ok_or_else(|| x.dev.unsupported(name, T::DTYPE))?;
    let params = Params::new(0).scalars(&[value]);
    if same_view(x, out) && in_place(&expr, None, out, params)? {
        return Ok(());
    }
    run::<T>(&x.dev, T::DTYPE, expr, &[x.operand()], out.clone(), params)?;
    Ok(())
}

macro_rules! into_methods {
    ($( $name:ident, $scalar:ident, $op:ident, $sym:literal; )*) => {$(
        #[doc = concat!("`self ", $sym, " other` (broadcast) written into `out`, an existing array of the broadcast shape (NumPy's `out=`); every view of its buffer sees the result. `out` may be `self` or `other`, and a strided or offset view (written through its strides after the result is made; a contiguous `out` from the start of its buffer takes one dispatch).")]
        ///
        /// # Errors
        /// [`Error::ShapeMismatch`] when the shapes do not broadcast together or `out` is
        /// not of the broadcast shape; [`Error::InvalidArgument`] when `out` is a broadcast
        /// view (elements sharing an address); [`Error::DeviceMismatch`];
        /// [`Error::Unsupported`] where the operation does not exist for `T`. `out` is
        /// untouched on error.
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
