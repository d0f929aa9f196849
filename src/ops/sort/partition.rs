//! Built on the sort: `top_k`, `partition`, `argpartition`, `searchsorted`.

use super::{plan, radix_select, restore, rows_last};
use crate::array::Array;
use crate::dtype::Real;
use crate::error::{Error, Result};
use crate::ops::index::widen;
use crate::shape::Axes;

/// Which insertion point [`Array::searchsorted`] gives for a query equal to values of the
/// array (NumPy's `side`).
///
/// ```
/// assert_eq!(gpuarray::Side::default(), gpuarray::Side::Left);
/// ```
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum Side {
    /// The first index whose value is not below the query.
    #[default]
    Left,
    /// The first index whose value is above the query.
    Right,
}

/// `Err(InvalidArgument)` unless `k <= len` (`k < len` where `strict`).
fn check_k(op: &'static str, k: usize, len: usize, strict: bool) -> Result<()> {
    if k > len || (strict && k == len) {
        return Err(Error::InvalidArgument {
            op,
            reason: if strict {
                "kth must be below the length of the axis"
            } else {
                "k exceeds the length of the axis"
            },
        });
    }
    Ok(())
}

impl<T: Real> Array<T> {
    /// The `k` largest (or, with `largest` false, smallest) values along `axis` and their
    /// indices, in order: largest first (smallest first), equal values by lower index first.
    /// NaNs count as larger than every number (NumPy's order). The axis keeps extent `k`.
    ///
    /// Rows longer than a workgroup's sort (4096 elements where the adapter has 48 KiB of
    /// workgroup memory) of f32, i32, u32 or bool with `k` at most that go through a radix
    /// select: the element of rank `k - 1` in the order by (value, index) is found 8 bits a
    /// pass (4 passes over the values' keys, 4 over the indices among the ties), the `k`
    /// elements up to it gathered and sorted in workgroup memory. Other rows are sorted
    /// (the radix or the workgroup sort) and the first `k` kept; with
    /// [`Tuning::top_k_select`](crate::config::Tuning::top_k_select) on (off by default: slower
    /// than the sort; it now matters only for f16 and f64), long rows with `k <= 256` go
    /// through rounds of per-tile bitonic sorts instead. All order by (value, index), so
    /// the result is the same whichever way and on every run.
    ///
    /// # Errors
    /// [`Error::InvalidArgument`] when `k` exceeds the axis, or for several axes (all,
    /// `..`, is the flattened array); [`Error::AxisOutOfRange`]; as [`Array::sort`].
    ///
    /// ```
    /// # let dev = gpuarray::Device::new()?;
    /// let x = dev.from_slice(&[1.0f32, 5.0, 3.0, 5.0, 2.0, 0.0], [2, 3])?;
    /// let (v, i) = x.top_k(2, -1, true)?;
    /// assert_eq!(v.to_vec()?, vec![5.0, 3.0, 5.0, 2.0]);
    /// assert_eq!(i.to_vec()?, vec![1, 2, 0, 1]);
    /// # Ok::<(), gpuarray::Error>(())
    /// ```
    pub fn top_k(
        &self,
        k: usize,
        axis: impl Into<Axes>,
        largest: bool,
    ) -> Result<(Array<T>, Array<i64>)> {
        let (values, idx) = match axis.into().resolve_one(self.ndim(), "top_k")? {
            None => self.ravel()?.top_k_u32(k, 0, largest)?,
            Some(a) => self.top_k_u32(k, a as isize, largest)?,
        };
        Ok((values, widen(&idx, false)?))
    }

    /// [`Array::top_k`] with the indices as the kernels compute them, u32.
    pub(crate) fn top_k_u32(
        &self,
        k: usize,
        axis: isize,
        largest: bool,
    ) -> Result<(Array<T>, Array<u32>)> {
        super::accept(self, "top_k")?;
        let (moved, perm, rows, len) = rows_last(self, axis)?;
        check_k("top_k", k, len as usize, false)?;
        let mut shape = moved.shape.clone();
        let last = shape.len() - 1;
        shape[last] = k;
        let idx = if radix_select::selects_top_k(&self.dev, T::DTYPE, len, k as u32) {
            radix_select::top_k_rows(&moved, rows, len, k as u32, largest)?
                .reshape(shape.clone())?
        } else if rows > 0 && plan::selects(&self.dev, len, k as u32) {
            plan::top_k_rows(&moved, rows, len, k as u32, largest)?.reshape(shape.clone())?
        } else {
            let idx = super::argsort_rows(&moved, rows, len, largest)?;
            let idx = idx.reshape(moved.shape.clone())?;
            idx.slice_axis(last, ..k)?.contiguous()?
        };
        let values = plan::take_rows(&moved, &idx, len, shape)?;
        Ok((restore(values, &perm)?, restore(idx, &perm)?))
    }

    /// The array along `axis` rearranged so that the element at `kth` is the one a sort
    /// would put there, none before it larger and none after it smaller (NumPy's
    /// `partition`), along one axis (negative from the end) or, for all axes (`..` or
    /// `None`), the flattened array. The order within each side is unspecified (today:
    /// sorted).
    ///
    /// # Errors
    /// [`Error::InvalidArgument`] unless `kth` is below the axis' length, and for several
    /// axes; [`Error::AxisOutOfRange`]; as [`Array::sort`].
    ///
    /// ```
    /// # let dev = gpuarray::Device::new()?;
    /// let x = dev.from_slice(&[3i32, 4, 2, 1], [4])?;
    /// assert_eq!(x.partition(2, 0)?.to_vec()?[2], 3);
    /// # Ok::<(), gpuarray::Error>(())
    /// ```
    pub fn partition(&self, kth: usize, axis: impl Into<Axes>) -> Result<Array<T>> {
        let Some(ax) = axis.into().resolve_one(self.ndim(), "partition")? else {
            return self.ravel()?.partition(kth, 0);
        };
        check_k("partition", kth, self.shape[ax], true)?;
        super::accept(self, "partition")?;
        self.sort_axis(ax)
    }

    /// The indices that [`Array::partition`] would put in place (NumPy's `argpartition`).
    ///
    /// # Errors
    /// As [`Array::partition`].
    ///
    /// ```
    /// # let dev = gpuarray::Device::new()?;
    /// let x = dev.from_slice(&[3i32, 4, 2, 1], [4])?;
    /// assert_eq!(x.argpartition(1, 0)?.to_vec()?[1], 2);
    /// # Ok::<(), gpuarray::Error>(())
    /// ```
    pub fn argpartition(&self, kth: usize, axis: impl Into<Axes>) -> Result<Array<i64>> {
        let Some(ax) = axis.into().resolve_one(self.ndim(), "argpartition")? else {
            return self.ravel()?.argpartition(kth, 0);
        };
        check_k("argpartition", kth, self.shape[ax], true)?;
        super::accept(self, "argpartition")?;
        self.argsort_axis(ax)
    }

    /// Where each of `queries` would go in this sorted 1-D array to keep it sorted (NumPy's
    /// `searchsorted`): per query, the first index whose value is not below it
    /// ([`Side::Left`]) or is above it ([`Side::Right`]). The order is the sort's: NaN
    /// queries go after every number (before or after the array's NaNs by `side`), -0.0
    /// equals +0.0. The result has the queries' shape. An unsorted array gives unspecified
    /// (but in-range) indices.
    ///
    /// # Errors
    /// [`Error::InvalidArgument`] unless the array is 1-D; [`Error::DeviceMismatch`];
    /// [`Error::OutOfMemory`].
    ///
    /// ```
    /// # let dev = gpuarray::Device::new()?;
    /// use gpuarray::Side;
    /// let a = dev.from_slice(&[1.0f32, 2.0, 2.0, 3.0], [4])?;
    /// let q = dev.from_slice(&[2.0f32, 0.0, f32::NAN], [3])?;
    /// assert_eq!(a.searchsorted(&q, Side::Left)?.to_vec()?, vec![1, 0, 4]);
    /// assert_eq!(a.searchsorted(&q, Side::Right)?.to_vec()?, vec![3, 0, 4]);
    /// # Ok::<(), gpuarray::Error>(())
    /// ```
    pub fn searchsorted(&self, queries: &Array<T>, side: Side) -> Result<Array<i64>> {
        widen(&self.searchsorted_u32(queries, side)?, false)
    }

    /// [`Array::searchsorted`] as the kernel computes it, u32 (for `isin` and `choice`).
    pub(crate) fn searchsorted_u32(&self, queries: &Array<T>, side: Side) -> Result<Array<u32>> {
        super::accept(self, "searchsorted")?;
        self.dev.expect_same("searchsorted", &[&queries.dev])?;
        if self.ndim() != 1 {
            return Err(Error::InvalidArgument {
                op: "searchsorted",
                reason: "the sorted array must be 1-D",
            });
        }
        if self.is_empty() {
            return self.dev.zeros::<u32>(queries.shape.clone());
        }
        let a = if self.is_contiguous() {
            self.clone()
        } else {
            self.contiguous()?
        };
        let q = if queries.is_contiguous() {
            queries.clone()
        } else {
            queries.contiguous()?
        };
        plan::search(&a, &q, side == Side::Right)
    }
}
