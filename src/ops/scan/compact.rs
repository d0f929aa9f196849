//! Stream compaction over the scan: the flags (non-zero elements, C order) become their
//! inclusive running count (a u32 scan, `plan::run`), whose last element is the total, read
//! back to size the result; then one invocation per element writes each flagged element's
//! index (or value) to its count - 1. The order is the elements' order, on every run.

use crate::array::Array;
use crate::device::Work;
use crate::dtype::Element;
use crate::error::{Error, Result};
use crate::kernel::cache::Key;
use crate::ops::index::widen;
use crate::shape::Slice;

use super::plan::{run, Problem, ScanParams, WG};
use super::source::{compact_spec, Op, Side};

/// `x` made contiguous, the running count of its non-zero elements (u32, flattened), and
/// the total (read back).
pub(crate) fn running_count<T: Element>(
    x: &Array<T>,
    op: &'static str,
) -> Result<(Array<T>, Array<u32>, usize)> {
    let dev = &x.dev;
    dev.require(op, T::DTYPE)?;
    let c = x.contiguous()?;
    let n = c.len();
    let pos = Array::<u32>::alloc_with(dev, op, vec![n], |b| dev.alloc_apart(b, &[&c.buf]))?;
    if n == 0 {
        return Ok((c, pos, 0));
    }
    let p = Problem {
        outer: 1,
        len: n,
        inner: 1,
    };
    let src = (c.binding(), Side::Elem);
    run(
        dev,
        Op::Count,
        T::DTYPE,
        &p,
        src,
        (pos.binding(), Side::Elem),
    )?;
    let last = pos.slice_axis(0, Slice::new(n as isize - 1, None, 1))?;
    let total = last.to_vec()?[0] as usize;
    Ok((c, pos, total))
}

/// The `total` flagged elements of `flags` (contiguous) in order: their flat indices as
/// `O` = u32 (no `vals`), or the elements of `vals` (contiguous, `flags`' length) there.
fn scatter<F: Element, O: Element>(
    flags: &Array<F>,
    pos: &Array<u32>,
    vals: Option<&Array<O>>,
    total: usize,
    op: &'static str,
) -> Result<Array<O>> {
    let dev = &flags.dev;
    let out = Array::<O>::alloc_with(dev, op, vec![total], |b| {
        dev.alloc_apart(b, &[&flags.buf, &pos.buf])
    })?;
    if total == 0 {
        return Ok(out);
    }
    let value = vals.map(|_| O::DTYPE);
    let mut inputs = vec![flags.binding(), pos.binding()];
    inputs.extend(vals.map(|v| v.binding()));
    let key = Key {
        family: "scan",
        entry: "compact",
        variant: format!("compact|{:?}|{value:?}", F::DTYPE),
        inputs: inputs.len(),
        wg: WG as u32,
        ndim: 0,
        per: 0,
    };
    let kernel = dev.kernel(key, || compact_spec(F::DTYPE, value))?;
    let n = flags.len();
    let params = ScanParams {
        units: n,
        len: n,
        inner: 1,
        segs: 1,
        seg_len: n,
    };
    let work = Work::Items(n as u32);
    dev.launch(&kernel, &params.encode(), &inputs, out.binding(), work)?;
    Ok(out)
}

impl<T: Element> Array<T> {
    /// How many elements are non-zero (NaN counts as non-zero, -0 as zero), as NumPy's
    /// `count_nonzero(x)`. Reads the count back (a sync point).
    ///
    /// # Errors
    /// [`Error::Unsupported`] when the adapter lacks `T`; [`Error::OutOfMemory`].
    ///
    /// ```
    /// # let dev = gpuarray::Device::new()?;
    /// let x = dev.from_slice(&[0.0f32, 2.0, -0.0, f32::NAN], [2, 2])?;
    /// assert_eq!(x.count_nonzero()?, 2);
    /// # Ok::<(), gpuarray::Error>(())
    /// ```
    pub fn count_nonzero(&self) -> Result<usize> {
        if T::DTYPE.is_packed() {
            // The packed types widened to i32 (their scans refuse them).
            return self.cast::<i32>()?.count_nonzero();
        }
        Ok(running_count(self, "count_nonzero")?.2)
    }

    /// The flat (C-order) indices of the non-zero elements, in increasing order, as NumPy's
    /// `flatnonzero(x)`, as i64 (NumPy's intp). Reads the count back to size the result (a sync point, as CuPy).
    ///
    /// # Errors
    /// As [`Array::count_nonzero`].
    ///
    /// ```
    /// # let dev = gpuarray::Device::new()?;
    /// let x = dev.from_slice(&[0i32, 5, 0, 7, 1, 0], [2, 3])?;
    /// assert_eq!(x.flatnonzero()?.to_vec()?, vec![1, 3, 4]);
    /// # Ok::<(), gpuarray::Error>(())
    /// ```
    pub fn flatnonzero(&self) -> Result<Array<i64>> {
        widen(&self.flatnonzero_u32()?, false)
    }

    /// [`Array::flatnonzero`] as the scan computes it, u32.
    pub(crate) fn flatnonzero_u32(&self) -> Result<Array<u32>> {
        let (c, pos, total) = running_count(self, "flatnonzero")?;
        scatter::<T, u32>(&c, &pos, None, total, "flatnonzero")
    }

    /// The indices of the non-zero elements as a `[count, ndim]` array, one row per element
    /// in C order, as NumPy's `argwhere(x)`.
    ///
    /// # Errors
    /// As [`Array::count_nonzero`].
    ///
    /// ```
    /// # let dev = gpuarray::Device::new()?;
    /// let x = dev.from_slice(&[0i32, 5, 0, 7, 1, 0], [2, 3])?;
    /// let w = x.argwhere()?;
    /// assert_eq!(w.shape(), &[3, 2]);
    /// assert_eq!(w.to_vec()?, vec![0, 1, 1, 0, 1, 1]);
    /// # Ok::<(), gpuarray::Error>(())
    /// ```
    pub fn argwhere(&self) -> Result<Array<i64>> {
        widen(&self.argwhere_u32()?, false)
    }

    /// [`Array::argwhere`] as u32 indices.
    fn argwhere_u32(&self) -> Result<Array<u32>> {
        let flat = self.flatnonzero_u32()?;
        let nd = self.ndim();
        let count = flat.len();
        if nd == 0 || count == 0 {
            return self.dev.zeros::<u32>([count, nd]);
        }
        let mut strides = vec![1u32; nd];
        for d in (0..nd - 1).rev() {
            strides[d] = strides[d + 1] * self.shape[d + 1] as u32;
        }
        let extents: Vec<u32> = self.shape.iter().map(|&e| e as u32).collect();
        let strides = self.dev.from_slice(&strides, [nd])?;
        let extents = self.dev.from_slice(&extents, [nd])?;
        flat.reshape([count, 1])?.div(&strides)?.rem(&extents)
    }

    /// The indices of the non-zero elements, one i64 array per axis, as NumPy's
    /// `nonzero(x)`: element k of array d is axis d's index of the k-th non-zero element
    /// (C order).
    ///
    /// # Errors
    /// [`Error::InvalidArgument`] for a 0-d array (as NumPy); otherwise as
    /// [`Array::count_nonzero`].
    ///
    /// ```
    /// # let dev = gpuarray::Device::new()?;
    /// let x = dev.from_slice(&[0i32, 5, 0, 7, 1, 0], [2, 3])?;
    /// let idx = x.nonzero()?;
    /// assert_eq!(idx[0].to_vec()?, vec![0, 1, 1]);
    /// assert_eq!(idx[1].to_vec()?, vec![1, 0, 1]);
    /// # Ok::<(), gpuarray::Error>(())
    /// ```
    pub fn nonzero(&self) -> Result<Vec<Array<i64>>> {
        if self.ndim() == 0 {
            return Err(Error::InvalidArgument {
                op: "nonzero",
                reason: "nonzero of a 0-d array is not defined (as in NumPy)",
            });
        }
        if self.ndim() == 1 {
            return Ok(vec![self.flatnonzero()?]);
        }
        let w = self.argwhere_u32()?;
        (0..self.ndim())
            .map(|d| widen(&w.slice_axis(1, d..d + 1)?.reshape([w.shape[0]])?, false))
            .collect()
    }

    /// The elements where `mask` is true, in C order, as a 1-D array: NumPy's `x[mask]`
    /// and `extract(mask, x)` for a mask of `x`'s shape (as comparisons give; PyTorch's
    /// `masked_select`). Reads the count back to size the result (a sync point, as in CuPy).
    ///
    /// # Errors
    /// [`Error::ShapeMismatch`] when the shapes differ; [`Error::DeviceMismatch`] for a mask
    /// of another device; as [`Array::count_nonzero`] otherwise. `self` and `mask` are left
    /// as they were.
    ///
    /// ```
    /// # let dev = gpuarray::Device::new()?;
    /// let x = dev.from_slice(&[1.0f32, -2.0, 3.0, -4.0], [2, 2])?;
    /// let mask = x.gt(&dev.zeros::<f32>([2, 2])?)?;
    /// assert_eq!(x.extract(&mask)?.to_vec()?, vec![1.0, 3.0]);
    /// # Ok::<(), gpuarray::Error>(())
    /// ```
    pub fn extract(&self, mask: &Array<bool>) -> Result<Array<T>> {
        let op = "extract";
        self.dev.expect_same(op, &[&mask.dev])?;
        self.dev.require(op, T::DTYPE)?;
        if mask.shape != self.shape {
            return Err(Error::ShapeMismatch {
                op,
                lhs: self.shape.clone(),
                rhs: mask.shape.clone(),
            });
        }
        let (m, pos, total) = running_count(mask, op)?;
        let vals = self.contiguous()?;
        scatter(&m, &pos, Some(&vals), total, op)
    }
}
