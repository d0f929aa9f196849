//! NumPy's index helpers, composed on the host from views, existing copies and the scatter
//! family (no kernel of their own): trace with offset and axes, put_along_axis,
//! fill_diagonal, diag_indices, indices, unravel_index, ravel_multi_index.

use crate::array::Array;
use crate::device::Device;
use crate::dtype::{Element, Real};
use crate::error::{Error, Result};
use crate::ops::index::{widen, widen_all, IndexMode};

use super::join::join;
use crate::shape::Axes;

impl<T: Element> Array<T> {
    /// The sums along diagonal `offset` of the planes spanned by `axis1` and `axis2`
    /// (negative from the end): NumPy's `trace(x, offset, axis1, axis2)`, of shape the
    /// other axes in order (a 0-d array for a matrix). Zeros where the diagonal is empty.
    ///
    /// # Errors
    /// As [`Array::diagonal`]; [`Error::Unsupported`] where the sum is.
    ///
    /// ```
    /// # let dev = gpuarray::Device::new()?;
    /// let m = dev.arange::<i32>(0, 12, 1)?.reshape([3, 4])?;
    /// assert_eq!(m.trace_axes(1, 0, 1)?.to_scalar()?, 1 + 6 + 11);
    /// assert_eq!(m.trace_axes(-1, -2, -1)?.to_scalar()?, 4 + 9);
    /// # Ok::<(), gpuarray::Error>(())
    /// ```
    pub fn trace_axes(
        &self,
        offset: isize,
        axis1: impl Into<Axes>,
        axis2: impl Into<Axes>,
    ) -> Result<Array<T>> {
        self.diagonal(offset, axis1, axis2)?.sum_axis(-1, false)
    }

    /// NumPy's `put_along_axis(x, indices, values, axis)`, in place: for every position `p`
    /// of `indices`, `x` at `p` with its `axis` coordinate replaced by `indices[p]` is set
    /// to `values[p]`. `indices` has `x`'s number of dimensions; its other axes are 1 or
    /// `x`'s extent (broadcast), and `values` broadcasts to the indices' shape. Indices are
    /// i64 or i32 (negative from the end) or u32; where two go to one place the last in C order
    /// wins (through [`Array::scatter`]).
    ///
    /// # Errors
    /// [`Error::InvalidArgument`] when the dimensions differ; [`Error::Broadcast`] when
    /// indices or values do not broadcast; as [`Array::scatter`] otherwise (nothing is
    /// written on an error).
    ///
    /// ```
    /// # let dev = gpuarray::Device::new()?;
    /// let x = dev.from_slice(&[3.0f32, 1.0, 2.0, 9.0, 7.0, 8.0], [2, 3])?;
    /// let i = x.argmax_axis(1, true)?;
    /// x.put_along_axis(&i, &dev.from_slice(&[0.0f32], [1])?, 1)?;
    /// assert_eq!(x.to_vec()?, vec![0.0, 1.0, 2.0, 0.0, 7.0, 8.0]);
    /// # Ok::<(), gpuarray::Error>(())
    /// ```
    pub fn put_along_axis<I: Element>(
        &self,
        indices: &Array<I>,
        values: &Array<T>,
        axis: impl Into<Axes>,
    ) -> Result<()> {
        let op = "put_along_axis";
        self.dev.expect_same(op, &[&indices.dev, &values.dev])?;
        if indices.ndim() != self.ndim() {
            return Err(Error::InvalidArgument {
                op,
                reason: "the indices must have as many dimensions as the array",
            });
        }
        let ax = axis.into().resolve_single(self.ndim(), op)?;
        let mut shape = self.shape.clone();
        shape[ax] = indices.shape[ax];
        let idx = indices.broadcast_to(shape.clone())?;
        let vals = values.broadcast_to(shape)?;
        self.scatter(ax, &idx, &vals)
    }

    /// Sets the main diagonal to `value`, in place: NumPy's `fill_diagonal(x, value, wrap)`.
    /// A 2-D array's diagonal runs to the shorter side, or, with `wrap`, restarts every
    /// `cols + 1` rows of a tall matrix as NumPy's does; an array of more dimensions must
    /// have them all equal (its diagonal `x[i, i, ..., i]`).
    ///
    /// # Errors
    /// [`Error::InvalidArgument`] for fewer than 2 dimensions, or unequal ones past 2.
    ///
    /// ```
    /// # let dev = gpuarray::Device::new()?;
    /// let x = dev.zeros::<i32>([2, 3])?;
    /// x.fill_diagonal(5, false)?;
    /// assert_eq!(x.to_vec()?, vec![5, 0, 0, 0, 5, 0]);
    /// # Ok::<(), gpuarray::Error>(())
    /// ```
    pub fn fill_diagonal(&self, value: T, wrap: bool) -> Result<()> {
        let op = "fill_diagonal";
        let n = self.ndim();
        if n < 2 || (n > 2 && self.shape.iter().any(|&d| d != self.shape[0])) {
            return Err(Error::InvalidArgument {
                op,
                reason: "needs 2 dimensions, or more all of one length",
            });
        }
        let (rows, cols) = (self.shape[0], self.shape[1]);
        if n == 2 && wrap && rows > cols + 1 && cols > 0 {
            // NumPy's flat rule: every (cols + 1)-th element in C order.
            let flat: Vec<u32> = (0..rows * cols)
                .step_by(cols + 1)
                .map(|p| p as u32)
                .collect();
            let idx = self.dev.from_slice(&flat, [flat.len()])?;
            return self.put(&idx, &self.dev.from_slice(&[value], [1])?);
        }
        let len = rows.min(cols);
        let stride = self.strides.iter().sum();
        self.view(vec![len], vec![stride], self.offset).fill(value)
    }
}

impl Device {
    /// The indices of the main diagonal of an `ndim`-dimensional array of side `n`: `ndim`
    /// arrays `0..n` (NumPy's `diag_indices`), to use with [`Array::gather`].
    ///
    /// # Errors
    /// [`Error::OutOfMemory`].
    ///
    /// ```
    /// # let dev = gpuarray::Device::new()?;
    /// let m = dev.arange::<i32>(0, 9, 1)?.reshape([3, 3])?;
    /// let d = dev.diag_indices(3, 2)?;
    /// assert_eq!(m.gather(&[Some(&d[0]), Some(&d[1])])?.to_vec()?, vec![0, 4, 8]);
    /// # Ok::<(), gpuarray::Error>(())
    /// ```
    pub fn diag_indices(&self, n: usize, ndim: usize) -> Result<Vec<Array<i64>>> {
        let count = u32::try_from(n).map_err(|_| Error::InvalidArgument {
            op: "diag_indices",
            reason: "n must fit in u32",
        })?;
        let i = widen(&self.arange::<u32>(0, count, 1)?, false)?;
        Ok(vec![i; ndim])
    }

    /// A grid of indices of shape `[dims.len(), dims...]`: element `[k, i0, i1, ...]` is
    /// `ik`, as NumPy's `indices(dims)`. One copy per axis.
    ///
    /// # Errors
    /// [`Error::Unsupported`] where `T` cannot hold indices (bool) or the adapter lacks it.
    ///
    /// ```
    /// # let dev = gpuarray::Device::new()?;
    /// let g = dev.indices::<i32>(&[2, 3])?;
    /// assert_eq!(g.shape(), &[2, 2, 3]);
    /// assert_eq!(g.to_vec()?, vec![0, 0, 0, 1, 1, 1, 0, 1, 2, 0, 1, 2]);
    /// # Ok::<(), gpuarray::Error>(())
    /// ```
    pub fn indices<T: Real>(&self, dims: &[usize]) -> Result<Array<T>> {
        let k = dims.len();
        if k == 0 {
            return self.zeros::<T>([0]);
        }
        let mut parts = Vec::with_capacity(k);
        for (a, &d) in dims.iter().enumerate() {
            let mut shape = vec![1; k + 1];
            shape[a + 1] = d;
            let r = self.arange::<T>(T::zero(), T::from_f64(d as f64), T::one())?;
            let mut full = vec![1];
            full.extend(dims);
            parts.push(r.reshape(shape)?.broadcast_to(full)?);
        }
        join(&parts.iter().collect::<Vec<_>>(), 0, "indices")
    }
}

impl Array<u32> {
    /// The coordinates in an array of `shape` (C order) of each flat index: NumPy's
    /// `unravel_index(indices, shape)`, one i64 array (NumPy's intp) per axis, each of the
    /// indices' shape. Reads the largest index back to check it (a sync point). i64
    /// indices: [`Array::unravel_index`] of `Array<i64>`.
    ///
    /// # Errors
    /// [`Error::IndexOutOfRange`] (axis 0) for an index not below the shape's size.
    ///
    /// ```
    /// # let dev = gpuarray::Device::new()?;
    /// let flat = dev.from_slice(&[5u32, 0, 11], [3])?;
    /// let c = flat.unravel_index(&[3, 4])?;
    /// assert_eq!((c[0].to_vec()?, c[1].to_vec()?), (vec![1, 0, 2], vec![1, 0, 3]));
    /// # Ok::<(), gpuarray::Error>(())
    /// ```
    pub fn unravel_index(&self, shape: &[usize]) -> Result<Vec<Array<i64>>> {
        widen_all(self.unravel_u32(shape)?)
    }

    /// [`Array::unravel_index`] as u32 coordinates.
    fn unravel_u32(&self, shape: &[usize]) -> Result<Vec<Array<u32>>> {
        let total = shape.iter().try_fold(1u64, |a, &d| a.checked_mul(d as u64));
        if !self.is_empty() {
            let max = self.max()?.to_scalar()? as u64;
            if total.is_none_or(|t| max >= t) {
                let len = total.map_or(usize::MAX, |t| t as usize);
                return Err(Error::IndexOutOfRange {
                    op: "unravel_index",
                    axis: 0,
                    len,
                });
            }
        }
        let mut stride = 1u64;
        let mut out = Vec::with_capacity(shape.len());
        for &d in shape.iter().rev() {
            let c = if self.is_empty() || stride > u32::MAX as u64 {
                self.zeros_like()?
            } else {
                let q = self.div_scalar(stride as u32)?;
                match u32::try_from(d) {
                    Ok(d) if (d as u64) * stride <= u32::MAX as u64 => q.rem_scalar(d)?,
                    _ => q,
                }
            };
            out.push(c);
            stride = stride.saturating_mul(d as u64);
        }
        out.reverse();
        Ok(out)
    }
}

impl Array<i64> {
    /// [`Array::unravel_index`] of i64 flat indices (as index functions return them).
    /// Reads the smallest and largest index back to check them (a sync point); needs
    /// SHADER_INT64 (the indices are narrowed to u32 on the device).
    ///
    /// # Errors
    /// [`Error::IndexOutOfRange`] (axis 0) for a negative index or one not below the
    /// shape's size; [`Error::Unsupported`] where the adapter lacks i64.
    ///
    /// ```
    /// # let dev = gpuarray::Device::new()?;
    /// let x = dev.from_slice(&[3.0f32, 1.0, 9.0, 4.0, 2.0, 0.0], [2, 3])?;
    /// let c = x.argmax()?.unravel_index(x.shape())?;
    /// assert_eq!((c[0].to_scalar()?, c[1].to_scalar()?), (0, 2));
    /// assert!(dev.from_slice(&[-1i64], [1])?.unravel_index(&[3]).is_err());
    /// # Ok::<(), gpuarray::Error>(())
    /// ```
    pub fn unravel_index(&self, shape: &[usize]) -> Result<Vec<Array<i64>>> {
        if !self.is_empty() {
            let (min, max) = (self.min()?.to_scalar()?, self.max()?.to_scalar()?);
            if min < 0 || max > u32::MAX as i64 {
                let len = shape.iter().try_fold(1usize, |a, &d| a.checked_mul(d));
                return Err(Error::IndexOutOfRange {
                    op: "unravel_index",
                    axis: 0,
                    len: len.unwrap_or(usize::MAX),
                });
            }
        }
        self.cast::<u32>()?.unravel_index(shape)
    }
}

impl Array<i32> {
    /// The flat (C-order) indices in an array of `dims` of the coordinates `coords` (one
    /// array per axis, broadcast together): NumPy's `ravel_multi_index(coords, dims, mode)`.
    /// [`IndexMode::Raise`] refuses a coordinate outside `0..dim` (negative ones too, as
    /// NumPy; one flag read back), `Wrap` takes it modulo the dim, `Clip` clips it.
    ///
    /// # Errors
    /// [`Error::InvalidArgument`] when the number of arrays is not `dims.len()` (or is 0),
    /// or the size of `dims` exceeds `u32`; [`Error::IndexOutOfRange`];
    /// [`Error::Broadcast`] / [`Error::ShapeMismatch`]; [`Error::DeviceMismatch`].
    ///
    /// ```
    /// use gpuarray::{Array, IndexMode};
    /// # let dev = gpuarray::Device::new()?;
    /// let r = dev.from_slice(&[1i32, 2, 5], [3])?;
    /// let c = dev.from_slice(&[3i32, 0, -1], [3])?;
    /// let flat = Array::ravel_multi_index(&[&r, &c], &[3, 4], IndexMode::Wrap)?;
    /// assert_eq!(flat.to_vec()?, vec![7, 8, 11]);
    /// assert!(Array::ravel_multi_index(&[&r, &c], &[3, 4], IndexMode::Raise).is_err());
    /// # Ok::<(), gpuarray::Error>(())
    /// ```
    pub fn ravel_multi_index(
        coords: &[&Array<i32>],
        dims: &[usize],
        mode: IndexMode,
    ) -> Result<Array<u32>> {
        let op = "ravel_multi_index";
        if coords.is_empty() || coords.len() != dims.len() {
            return Err(Error::InvalidArgument {
                op,
                reason: "needs one coordinate array per dimension, and at least one",
            });
        }
        let devs: Vec<&Device> = coords.iter().map(|c| &c.dev).collect();
        coords[0].dev.expect_same(op, &devs)?;
        let total = dims.iter().try_fold(1u64, |a, &d| a.checked_mul(d as u64));
        if total.is_none_or(|t| t > u32::MAX as u64 + 1) {
            return Err(Error::InvalidArgument {
                op,
                reason: "the array's size must fit in u32 indices",
            });
        }
        let mut acc: Option<Array<u32>> = None;
        let mut stride = 1u64;
        for (axis, (c, &d)) in coords.iter().zip(dims).enumerate().rev() {
            let len = d;
            let d = d as i32;
            let fixed = match mode {
                _ if c.is_empty() => (*c).clone(),
                _ if d == 0 => return Err(Error::IndexOutOfRange { op, axis, len }),
                IndexMode::Raise => {
                    if c.lt_scalar(0)?.or(&c.ge_scalar(d)?)?.any()?.to_scalar()? {
                        return Err(Error::IndexOutOfRange { op, axis, len });
                    }
                    (*c).clone()
                }
                IndexMode::Wrap => c.remainder_scalar(d)?,
                IndexMode::Clip => c.clip(0, d - 1)?,
            };
            let term = fixed.cast::<u32>()?.mul_scalar(stride as u32)?;
            acc = Some(match acc {
                None => term,
                Some(a) => a.add(&term)?,
            });
            stride *= len as u64;
        }
        acc.ok_or(Error::InvalidArgument {
            op,
            reason: "needs at least one coordinate array",
        })
    }
}
