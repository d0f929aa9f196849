//! Indexing and assignment. Host side of shaders/index.wgsl (writes into existing arrays,
//! gathers by index) and shaders/scatter.wgsl (`scatter`: atomic scatter-combine).
//!
//! Arrays are handles: a view (`slice`, `index_axis`, `t`, `reshape` of a contiguous array)
//! and a `clone` share the buffer, so a write through one is seen by all of them, as a
//! write into a NumPy or CuPy view is. The writing methods therefore take `&self`, as
//! CuPy's do: Rust's borrow rules cannot see that two handles share a buffer. Functions
//! that return new arrays (every operation, `cast`, `to_device`) never share the input's
//! buffer; `contiguous` of an array already contiguous from offset 0 returns the same
//! buffer, as NumPy's `ascontiguousarray` does.
//!
//! Writes are recorded in the device's queue in call order, after every earlier operation
//! that reads the target: an array computed from `x` before `x.fill(..)` keeps the old
//! values. A write whose source shares the target's buffer reads a copy of the source
//! (overlapping views behave as if the source were copied first, as in NumPy).

use crate::array::complex::{by_component, parts};
use crate::array::Array;
use crate::device::Work;
use crate::dtype::{accepts, DType, Element};
use crate::error::{Error, Result};
use crate::kernel::cache::Key;
use crate::kernel::launch::Params;
use crate::kernel::source::Spec;
use crate::ops::elementwise::{broadcast_layout, Operand};
use crate::shape::Axes;

mod mask;
mod scatter;
mod take;
mod widen;

pub use mask::Mask;
pub use take::IndexMode;
pub(crate) use widen::{widen, widen_all};

/// The family's kernels, which import `resolve` (the position an index names, shared with
/// shaders/scatter.wgsl) from shaders/shared/index.wgsl.
const SRC: &str = include_str!("../../../shaders/index.wgsl");
const WG: u32 = 256;

/// The one-line `split_index` of shaders/index.wgsl and shaders/scatter.wgsl for index
/// dtype `i`. An i64 index is read as its two words (low, high; [`index_wgsl`]), so no
/// SHADER_INT64 is needed: a value outside `[-(2^32 - 1), 2^32 - 1]` saturates to that
/// range, which every axis (at most `u32::MAX` elements) has out of range.
fn split_index(i: DType) -> &'static str {
    match i {
        DType::U32 => "fn split_index(raw: I) -> vec2<u32> { return vec2<u32>(raw, 0u); }",
        DType::I64 => "fn split_index(raw: I) -> vec2<u32> { if (raw.y >> 31u) == 0u { return select(vec2<u32>(NONE, 0u), vec2<u32>(raw.x, 0u), raw.y == 0u); } return select(vec2<u32>(0u, NONE), vec2<u32>(0u, 0u - raw.x), raw.y == NONE && raw.x != 0u); }",
        _ => "fn split_index(raw: I) -> vec2<u32> { return select(vec2<u32>(u32(raw), 0u), vec2<u32>(0u, u32(-(raw + 1)) + 1u), raw < 0); }",
    }
}

/// The WGSL type of index dtype `i` in the bindings: i64 as two u32 words (low first).
fn index_wgsl(i: DType) -> &'static str {
    match i {
        DType::I64 => "vec2<u32>",
        _ => i.wgsl(),
    }
}

/// The index family's source for target `e`, binding-1 type `a` and index type `i`.
fn spec(e: DType, a: DType, i: DType) -> Spec {
    Spec::new("index", SRC)
        .alias("E", e.wgsl())
        .alias("A", a.wgsl())
        .alias("I", index_wgsl(i))
        .scalar(e)
        .function("split_index", split_index(i))
}

/// Every variant, for the shader validation test.
#[cfg(test)]
pub(crate) fn all_specs() -> Vec<Spec> {
    let all = [DType::F16, DType::F32, DType::F64, DType::I32, DType::U32];
    let mut v = Vec::new();
    for &e in &all {
        for i in [DType::I32, DType::U32] {
            v.push(spec(e, e, i));
        }
        v.push(spec(e, DType::U32, DType::U32));
    }
    for i in [DType::I32, DType::U32, DType::I64] {
        v.push(spec(DType::U32, DType::U32, i));
        v.push(spec(DType::F32, DType::F32, i));
    }
    v.extend(scatter::all_specs());
    v
}

/// The pipeline key of `entry` with target `e`, binding-1 type `a`, index type `i`.
fn key(entry: &'static str, (e, a, i): (DType, DType, DType), inputs: usize, ndim: u32) -> Key {
    Key {
        family: "index",
        entry,
        variant: format!("{e:?}|{a:?}|{i:?}"),
        inputs,
        wg: WG,
        ndim,
        per: u32::from(ndim > 0),
    }
}

/// Refuses a write target with a broadcast axis (stride 0 over several elements): its
/// elements share memory, so NumPy marks such views read-only.
fn check_writable<T: Element>(x: &Array<T>, op: &'static str) -> Result<()> {
    if x.shape
        .iter()
        .zip(&x.strides)
        .any(|(&d, &s)| d > 1 && s == 0)
    {
        return Err(Error::InvalidArgument {
            op,
            reason: "the target is a broadcast view (read-only): write into the array it views",
        });
    }
    x.dev.check()
}

/// Launches a strided write `entry` over every element of `dst`, with `src` (broadcast to
/// `dst`'s shape) in slot x of the layout: `inputs` are bound at bindings 1.., `dtypes` name
/// the variant, `params` carry the scalars and the family's slots.
fn write_strided<T: Element>(
    dst: &Array<T>,
    src: Operand<'_>,
    inputs: &[crate::kernel::launch::Binding<'_>],
    (entry, dtypes): (&'static str, (DType, DType, DType)),
    params: Params,
) -> Result<()> {
    let n = dst.len();
    if n == 0 {
        return Ok(());
    }
    if n > u32::MAX as usize {
        return Err(Error::BufferTooLarge {
            requested: (n * T::DTYPE.size()) as u64,
            max: u32::MAX as u64,
        });
    }
    let aux = params.aux;
    let (mut p, _, _) = broadcast_layout(&[src, dst.operand()], &dst.shape, params)?;
    p.aux = aux;
    let dev = &dst.dev;
    let kernel = dev.kernel(key(entry, dtypes, inputs.len(), p.ndim.max(1)), || {
        spec(dtypes.0, dtypes.1, dtypes.2)
    })?;
    dev.launch(&kernel, &p, inputs, dst.binding(), Work::Items(n as u32))
}

/// `i` along an axis of `len` elements, negative from the end.
fn resolve_index(op: &'static str, i: isize, axis: usize, len: usize) -> Result<usize> {
    let r = if i < 0 { i + len as isize } else { i };
    if r < 0 || r >= len as isize {
        return Err(Error::IndexOutOfRange { op, axis, len });
    }
    Ok(r as usize)
}

impl<T: Element> Array<T> {
    /// Sets every element of the array (any view of it: the elements it views) to `value`:
    /// NumPy's `x[...] = value`, `x.fill(value)`. The write is seen by every view sharing
    /// the buffer.
    ///
    /// # Errors
    /// [`Error::InvalidArgument`] for a broadcast view (read-only, as in NumPy);
    /// [`Error::Unsupported`] when the adapter lacks `T`; [`Error::DeviceLost`].
    ///
    /// ```
    /// # let dev = gpuarray::Device::new()?;
    /// let x = dev.zeros::<f32>([2, 3])?;
    /// x.slice(1..)?.fill(7.0)?; // the second row, through a view
    /// assert_eq!(x.to_vec()?, vec![0.0, 0.0, 0.0, 7.0, 7.0, 7.0]);
    /// # Ok::<(), gpuarray::Error>(())
    /// ```
    pub fn fill(&self, value: T) -> Result<()> {
        let op = "fill";
        self.dev.accept(op, T::DTYPE, accepts::moves)?;
        check_writable(self, op)?;
        if T::DTYPE.is_complex() {
            return by_component!(T::DTYPE, R => {
                let (re, im) = parts::<T, R>(value);
                self.component_view::<R>(0).fill(re)?;
                self.component_view::<R>(1).fill(im)
            });
        }
        let d = T::DTYPE;
        let params = Params::new(0).scalars(&[value]);
        write_strided(self, self.operand(), &[], (op, (d, d, DType::U32)), params)
    }

    /// Writes `src`, broadcast to this array's shape, into the elements this array views:
    /// NumPy's `x[...] = src`, and with a view `x.slice(..)?.assign(&src)` for
    /// `x[a:b] = src`. One dispatch; both sides may have any strides and offsets. A source
    /// sharing the target's buffer is read as it was before the write (as NumPy).
    ///
    /// # Errors
    /// [`Error::Broadcast`] when `src` does not broadcast to this shape;
    /// [`Error::InvalidArgument`] for a broadcast target; [`Error::DeviceMismatch`];
    /// [`Error::Unsupported`] when the adapter lacks `T`. On error nothing is written.
    ///
    /// ```
    /// # let dev = gpuarray::Device::new()?;
    /// let x = dev.zeros::<i32>([3, 4])?;
    /// let row = dev.from_slice(&[1, 2], [2])?;
    /// x.slice([gpuarray::Slice::from(..), gpuarray::Slice::from(1..).step(2)])?.assign(&row)?;
    /// assert_eq!(x.to_vec()?, vec![0, 1, 0, 2, 0, 1, 0, 2, 0, 1, 0, 2]);
    /// assert!(x.assign(&dev.zeros::<i32>([5])?).is_err());
    /// # Ok::<(), gpuarray::Error>(())
    /// ```
    pub fn assign(&self, src: &Array<T>) -> Result<()> {
        let op = "assign";
        self.dev.expect_same(op, &[&src.dev])?;
        self.dev.accept(op, T::DTYPE, accepts::moves)?;
        check_writable(self, op)?;
        crate::shape::broadcast_strides(&src.shape, &src.strides, &self.shape)?;
        if T::DTYPE.is_complex() {
            // The components broadcast as the numbers do: their axis of 2 matches.
            return by_component!(T::DTYPE, R => self
                .components::<R>()
                .assign(&src.components::<R>()));
        }
        let d = T::DTYPE;
        let params = Params::new(0);
        write_strided(
            self,
            src.operand(),
            &[src.binding()],
            (op, (d, d, DType::U32)),
            params,
        )
    }

    /// Copies host data into the elements this array views, in C order: NumPy's
    /// `x[...] = np.asarray(data).reshape(x.shape)`. Uploads `data`, then writes it as
    /// [`Array::assign`] does.
    ///
    /// # Errors
    /// [`Error::SizeMismatch`] unless `data` has exactly as many elements as the array;
    /// as [`Array::assign`] otherwise. On error nothing is written.
    ///
    /// ```
    /// # let dev = gpuarray::Device::new()?;
    /// let x = dev.zeros::<f32>([2, 2])?;
    /// x.t().copy_from_slice(&[1.0, 2.0, 3.0, 4.0])?;
    /// assert_eq!(x.to_vec()?, vec![1.0, 3.0, 2.0, 4.0]);
    /// assert!(x.copy_from_slice(&[1.0]).is_err());
    /// # Ok::<(), gpuarray::Error>(())
    /// ```
    pub fn copy_from_slice(&self, data: &[T]) -> Result<()> {
        if data.len() != self.len() {
            return Err(Error::SizeMismatch {
                shape: self.shape.clone(),
                expected: self.len(),
                actual: data.len(),
            });
        }
        check_writable(self, "copy_from_slice")?;
        if data.is_empty() {
            return Ok(());
        }
        let src = self.dev.from_slice(data, self.shape.clone())?;
        self.assign(&src)
    }

    /// Copies the elements, in C order, into an existing host slice (waits for the work
    /// that computes them, as [`Array::to_vec`]).
    ///
    /// # Errors
    /// [`Error::SizeMismatch`] unless `out` has exactly as many elements as the array (then
    /// `out` is left as it was); as [`Array::to_vec`] otherwise.
    ///
    /// ```
    /// # let dev = gpuarray::Device::new()?;
    /// let x = dev.arange::<i32>(0, 6, 1)?.reshape([2, 3])?;
    /// let mut host = [0i32; 6];
    /// x.t().copy_to_slice(&mut host)?;
    /// assert_eq!(host, [0, 3, 1, 4, 2, 5]);
    /// assert!(x.copy_to_slice(&mut [0; 5]).is_err());
    /// # Ok::<(), gpuarray::Error>(())
    /// ```
    pub fn copy_to_slice(&self, out: &mut [T]) -> Result<()> {
        if out.len() != self.len() {
            return Err(Error::SizeMismatch {
                shape: self.shape.clone(),
                expected: self.len(),
                actual: out.len(),
            });
        }
        out.copy_from_slice(&self.to_vec()?);
        Ok(())
    }

    /// The view at index `i` of axis `axis`, without that axis (ndim - 1): NumPy's
    /// `x[i]` for axis 0, `x[:, i]` for axis 1. Negative `axis` and `i` count from the end.
    /// A view: writes into it are seen by `self`.
    ///
    /// # Errors
    /// [`Error::AxisOutOfRange`]; [`Error::IndexOutOfRange`] for `i` outside the axis.
    ///
    /// ```
    /// # let dev = gpuarray::Device::new()?;
    /// let x = dev.arange::<i32>(0, 6, 1)?.reshape([2, 3])?;
    /// assert_eq!(x.index_axis(0, -1)?.to_vec()?, vec![3, 4, 5]);
    /// assert_eq!(x.index_axis(1, 1)?.to_vec()?, vec![1, 4]);
    /// assert!(x.index_axis(0, 2).is_err());
    /// # Ok::<(), gpuarray::Error>(())
    /// ```
    pub fn index_axis(&self, axis: impl Into<Axes>, i: isize) -> Result<Array<T>> {
        let ax = axis.into().resolve_single(self.ndim(), "index_axis")?;
        let k = resolve_index("index_axis", i, ax, self.shape[ax])?;
        let mut shape = self.shape.clone();
        let mut strides = self.strides.clone();
        shape.remove(ax);
        let s = strides.remove(ax);
        Ok(self.view(
            shape,
            strides,
            (self.offset as isize + k as isize * s) as usize,
        ))
    }
}
