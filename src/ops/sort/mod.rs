//! Sorting: `sort`, `argsort` along any axis; `top_k`, `partition`, `argpartition`,
//! `searchsorted` (partition.rs). Host side of shaders/sort.wgsl.
//!
//! Values sort in NumPy's order: -0.0 and +0.0 compare equal, NaNs after +inf. The sort is
//! stable (equal values keep their input order) and the same bits on every run. Rows that
//! fit a workgroup's memory (up to 4096 elements where the adapter has 48 KiB, fewer on
//! smaller ones; see `plan::bitonic_max`) sort in one workgroup each; longer rows go through
//! a radix sort of 8 bits a pass over the whole array (the row number as the last digits),
//! carrying each element's index; a 1-D sort of u32, i32 or f32 moves the values alone, and
//! so does one of f64, i64 or u64 where the subgroup scatter runs (radix64.rs: passes over
//! bytes that no two keys differ in are skipped). Sorted
//! values of other dtypes are gathered by the indices (so -0.0 keeps its sign and place).
//! Another axis than the last is moved last by a contiguous copy, sorted, and moved back.

mod argsort_rows;
mod params;
mod partition;
mod plan;
mod quantile;
mod radix;
mod radix64;
mod radix_select;
mod radix_sg;
mod sets;
mod unique;

pub use partition::Side;
pub use unique::UniqueAll;

#[cfg(test)]
pub(crate) use plan::all_specs;
#[cfg(test)]
pub(crate) use radix_select::all_specs as radix_select_specs;
#[cfg(test)]
pub(crate) use radix_sg::all_specs as radix_sg_specs;

use crate::array::Array;
use crate::dtype::{accepts, DType, Element, Real};
use crate::error::{Error, Result};
use crate::ops::index::widen;
use crate::shape::Axes;
use argsort_rows::argsort_rows;

pub(crate) use crate::shape::resolve_axis;

/// The array with axis `axis` moved last, contiguous (possibly with an offset), the
/// permutation that did it, the rows and the row length.
pub(super) type Rows<T> = (Array<T>, Vec<usize>, u32, u32);

/// The sort family's dtype gate, naming the public operation `op`: its whitelist is
/// [`accepts::slots`] (the keys its kernels take: f16, f32, f64, i32, u32, i64, u64, bool;
/// the 8-byte ones as two key words), so any dtype added later is refused before a kernel
/// is chosen, and the 64-bit integers where the adapter lacks SHADER_INT64.
pub(super) fn accept<T: Element>(x: &Array<T>, op: &'static str) -> Result<()> {
    x.dev.accept(op, T::DTYPE, accepts::slots)
}

pub(super) fn rows_last<T: Element>(x: &Array<T>, axis: isize) -> Result<Rows<T>> {
    let ax = resolve_axis(axis, x.ndim())?;
    let n = x.ndim();
    let mut perm: Vec<usize> = (0..n).filter(|&d| d != ax).collect();
    perm.push(ax);
    let moved = x.transpose(&perm)?;
    let moved = if moved.is_contiguous() {
        moved
    } else {
        moved.contiguous()?
    };
    let len = x.shape[ax];
    let total = x.len();
    if total > u32::MAX as usize / 3 {
        return Err(Error::BufferTooLarge {
            requested: total as u64 * 12,
            max: u32::MAX as u64,
        });
    }
    let rows = total.checked_div(len).unwrap_or(0);
    Ok((moved, perm, rows as u32, len as u32))
}

/// The `rows` rows of `len` elements of `x` (contiguous from its offset), each sorted:
/// shape `[rows * len]`.
pub(super) fn sorted_rows<T: Element>(x: &Array<T>, rows: u32, len: u32) -> Result<Array<T>> {
    let by_value = matches!(T::DTYPE, DType::U32 | DType::I32 | DType::F32);
    if by_value && rows == 1 && len > plan::bitonic_max(&x.dev) {
        // The values alone are sorted (each digit taken of its key): equal keys keep their
        // input order, so -0.0 and +0.0, and NaNs, keep their bits and order.
        return radix::sort_keys_only(x)?.reshape([len as usize]);
    }
    let wide = matches!(T::DTYPE, DType::F64 | DType::I64 | DType::U64);
    if wide
        && rows == 1
        && len > plan::bitonic_max(&x.dev)
        && let Some(sg) = radix64::plan64(&x.dev)
    {
        // The same by the 8-byte values alone, skipping the bytes no key differs in.
        return radix64::sort_keys_only64(x, sg)?.reshape([len as usize]);
    }
    let idx = argsort_rows(x, rows, len, false)?;
    let (r, l) = (rows as usize, len as usize);
    plan::take_rows(x, &idx, len, vec![r, l])?.reshape([r * l])
}

/// `y`, laid out as `x` with its last axis moved last by `perm`, put back in `perm`'s
/// inverse order (contiguous).
pub(super) fn restore<U: Element>(y: Array<U>, perm: &[usize]) -> Result<Array<U>> {
    if perm.iter().enumerate().all(|(i, &p)| i == p) {
        return Ok(y);
    }
    let mut inv = vec![0; perm.len()];
    for (i, &p) in perm.iter().enumerate() {
        inv[p] = i;
    }
    y.transpose(&inv)?.contiguous()
}

impl<T: Real> Array<T> {
    /// The values sorted along the last axis (NumPy's `sort` with `axis=-1`).
    ///
    /// Stable, NaNs last, -0.0 and +0.0 equal (they keep their input order).
    ///
    /// # Errors
    /// [`Error::AxisOutOfRange`] for a 0-d array; [`Error::OutOfMemory`];
    /// [`Error::BufferTooLarge`] when the records of a radix sort (4 bytes per key word
    /// and index per element) exceed one binding.
    ///
    /// ```
    /// # let dev = gpuarray::Device::new()?;
    /// let x = dev.from_slice(&[3.0f32, f32::NAN, -1.0, 2.0], [4])?;
    /// let s = x.sort()?.to_vec()?;
    /// assert_eq!(&s[..3], &[-1.0, 2.0, 3.0]);
    /// assert!(s[3].is_nan());
    /// # Ok::<(), gpuarray::Error>(())
    /// ```
    pub fn sort(&self) -> Result<Array<T>> {
        self.sort_axis(-1)
    }

    /// The values sorted along `axis` (one axis, negative counts from the end), or the
    /// flattened array sorted for all axes (`..` or `None`, NumPy's `axis=None`).
    ///
    /// # Errors
    /// As [`Array::sort`]; [`Error::AxisOutOfRange`] when `axis` is not an axis;
    /// [`Error::InvalidArgument`] for several axes.
    ///
    /// ```
    /// # let dev = gpuarray::Device::new()?;
    /// let x = dev.from_slice(&[3i32, 1, 2, 0], [2, 2])?;
    /// assert_eq!(x.sort_axis(0)?.to_vec()?, vec![2, 0, 3, 1]);
    /// assert_eq!(x.sort_axis(-1)?.to_vec()?, vec![1, 3, 0, 2]);
    /// assert_eq!(x.sort_axis(..)?.to_vec()?, vec![0, 1, 2, 3]);
    /// # Ok::<(), gpuarray::Error>(())
    /// ```
    pub fn sort_axis(&self, axis: impl Into<Axes>) -> Result<Array<T>> {
        accept(self, "sort")?;
        let Some(axis) = axis.into().resolve_one(self.ndim(), "sort")? else {
            return self.ravel()?.sort_axis(0);
        };
        let (moved, perm, rows, len) = rows_last(self, axis as isize)?;
        let sorted = sorted_rows(&moved, rows, len)?.reshape(moved.shape.clone())?;
        restore(sorted, &perm)
    }

    /// The indices that sort the array along the last axis (stable: equal values keep
    /// their input order), as NumPy's `argsort(kind="stable")`.
    ///
    /// Indices are `i64` (NumPy's intp), what [`Array::take_along_axis`] and
    /// [`Array::take`] take.
    ///
    /// # Errors
    /// As [`Array::sort`].
    ///
    /// ```
    /// # let dev = gpuarray::Device::new()?;
    /// let x = dev.from_slice(&[2.0f32, 1.0, 2.0, 0.0], [4])?;
    /// assert_eq!(x.argsort()?.to_vec()?, vec![3, 1, 0, 2]);
    /// # Ok::<(), gpuarray::Error>(())
    /// ```
    pub fn argsort(&self) -> Result<Array<i64>> {
        self.argsort_axis(-1)
    }

    /// The indices that sort the array along `axis` (one axis, negative counts from the
    /// end), or the flattened array for all axes (`..` or `None`).
    ///
    /// # Errors
    /// As [`Array::sort_axis`].
    ///
    /// ```
    /// # let dev = gpuarray::Device::new()?;
    /// let x = dev.from_slice(&[3u32, 1, 2, 0], [2, 2])?;
    /// assert_eq!(x.argsort_axis(0)?.to_vec()?, vec![1, 1, 0, 0]);
    /// assert_eq!(x.argsort_axis(None)?.to_vec()?, vec![3, 1, 2, 0]);
    /// # Ok::<(), gpuarray::Error>(())
    /// ```
    pub fn argsort_axis(&self, axis: impl Into<Axes>) -> Result<Array<i64>> {
        let Some(axis) = axis.into().resolve_one(self.ndim(), "argsort")? else {
            return widen(&self.ravel()?.argsort_u32(0)?, false);
        };
        widen(&self.argsort_u32(axis as isize)?, false)
    }

    /// [`Array::argsort_axis`] as the kernels compute it, u32 (for the sort family's own
    /// compositions).
    pub(crate) fn argsort_u32(&self, axis: isize) -> Result<Array<u32>> {
        accept(self, "argsort")?;
        let (moved, perm, rows, len) = rows_last(self, axis)?;
        let idx = argsort_rows(&moved, rows, len, false)?;
        let idx = idx.reshape(moved.shape.clone())?;
        restore(idx, &perm)
    }
}
