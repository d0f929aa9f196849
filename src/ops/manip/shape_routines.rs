//! NumPy's smaller shape functions, composed on the host from views and existing copies (no
//! kernel of their own): column_stack, hsplit/vsplit/dsplit, atleast_1d/2d/3d, append,
//! insert, delete, rot90, trim_zeros, resize, array_equiv.

use crate::array::Array;
use crate::dtype::Element;
use crate::error::{Error, Result};
use crate::shape::Slice;

use super::join::{at_least, join};
use crate::shape::Axes;

/// `i` (negative from the end) as a position in `0..=len` for insert, or `0..len` otherwise.
fn norm_index(
    i: isize,
    len: usize,
    op: &'static str,
    axis: usize,
    inclusive: bool,
) -> Result<usize> {
    let j = if i < 0 { i + len as isize } else { i };
    let end = len as isize + isize::from(inclusive);
    if j < 0 || j >= end {
        return Err(Error::IndexOutOfRange { op, axis, len });
    }
    Ok(j as usize)
}

/// The array and the axis an axis-or-flattened operation works on: `All` flattens (a copy
/// only when not contiguous), as NumPy's `axis=None`.
fn along<T: Element>(x: &Array<T>, axis: &Axes, op: &'static str) -> Result<(Array<T>, usize)> {
    match axis.resolve_one(x.ndim(), op)? {
        None => Ok((x.ravel()?, 0)),
        Some(a) => Ok((x.clone(), a)),
    }
}

impl<T: Element> Array<T> {
    /// 1-D arrays as columns (n, 1), 2-D and higher ones as they are, joined along the
    /// second axis: NumPy's `column_stack`.
    ///
    /// # Errors
    /// As [`Array::concatenate`].
    ///
    /// ```
    /// use gpuarray::Array;
    /// # let dev = gpuarray::Device::new()?;
    /// let a = dev.from_slice(&[1, 2], [2])?;
    /// let b = dev.from_slice(&[3, 4], [2])?;
    /// assert_eq!(Array::column_stack(&[&a, &b])?.to_vec()?, vec![1, 3, 2, 4]);
    /// # Ok::<(), gpuarray::Error>(())
    /// ```
    pub fn column_stack(arrays: &[&Array<T>]) -> Result<Array<T>> {
        let cols = arrays
            .iter()
            .map(|a| match a.ndim() {
                0 => a.reshape([1, 1]),
                1 => a.expand_dims(1),
                _ => Ok((*a).clone()),
            })
            .collect::<Result<Vec<_>>>()?;
        join(&cols.iter().collect::<Vec<_>>(), 1, "column_stack")
    }

    /// `sections` equal views along the second axis (the first for 1-D arrays): NumPy's
    /// `hsplit` with an integer. [`Array::split_at`] takes a list of indices.
    ///
    /// # Errors
    /// [`Error::InvalidArgument`] for 0-d arrays, zero sections or a length they do not
    /// divide.
    ///
    /// ```
    /// # let dev = gpuarray::Device::new()?;
    /// let x = dev.arange::<i32>(0, 8, 1)?.reshape([2, 4])?;
    /// assert_eq!(x.hsplit(2)?[1].to_vec()?, vec![2, 3, 6, 7]);
    /// # Ok::<(), gpuarray::Error>(())
    /// ```
    pub fn hsplit(&self, sections: usize) -> Result<Vec<Array<T>>> {
        match self.ndim() {
            0 => Err(Error::InvalidArgument {
                op: "hsplit",
                reason: "hsplit needs at least 1 dimension",
            }),
            1 => self.split(sections, 0),
            _ => self.split(sections, 1),
        }
    }

    /// `sections` equal views along the first axis of an array of 2 or more dimensions:
    /// NumPy's `vsplit` with an integer.
    ///
    /// # Errors
    /// [`Error::InvalidArgument`] for fewer than 2 dimensions, as [`Array::split`] otherwise.
    ///
    /// ```
    /// # let dev = gpuarray::Device::new()?;
    /// let x = dev.arange::<i32>(0, 6, 1)?.reshape([3, 2])?;
    /// assert_eq!(x.vsplit(3)?[2].to_vec()?, vec![4, 5]);
    /// # Ok::<(), gpuarray::Error>(())
    /// ```
    pub fn vsplit(&self, sections: usize) -> Result<Vec<Array<T>>> {
        self.split_min_dims(sections, 0, 2, "vsplit needs at least 2 dimensions")
    }

    /// `sections` equal views along the third axis of an array of 3 or more dimensions:
    /// NumPy's `dsplit` with an integer.
    ///
    /// # Errors
    /// [`Error::InvalidArgument`] for fewer than 3 dimensions, as [`Array::split`] otherwise.
    ///
    /// ```
    /// # let dev = gpuarray::Device::new()?;
    /// let x = dev.arange::<i32>(0, 4, 1)?.reshape([1, 2, 2])?;
    /// assert_eq!(x.dsplit(2)?[0].to_vec()?, vec![0, 2]);
    /// # Ok::<(), gpuarray::Error>(())
    /// ```
    pub fn dsplit(&self, sections: usize) -> Result<Vec<Array<T>>> {
        self.split_min_dims(sections, 2, 3, "dsplit needs at least 3 dimensions")
    }

    fn split_min_dims(
        &self,
        sections: usize,
        axis: isize,
        min: usize,
        reason: &'static str,
    ) -> Result<Vec<Array<T>>> {
        if self.ndim() < min {
            let op = if min == 2 { "vsplit" } else { "dsplit" };
            return Err(Error::InvalidArgument { op, reason });
        }
        self.split(sections, axis)
    }

    /// A view with at least one dimension (a 0-d array as shape (1)): NumPy's `atleast_1d`.
    ///
    /// # Errors
    /// None in practice; `Result` for uniformity with the other view functions.
    ///
    /// ```
    /// # let dev = gpuarray::Device::new()?;
    /// let s = dev.from_slice(&[7.0f32], [])?;
    /// assert_eq!(s.atleast_1d()?.shape(), &[1]);
    /// # Ok::<(), gpuarray::Error>(())
    /// ```
    pub fn atleast_1d(&self) -> Result<Array<T>> {
        Ok(at_least(&[self], 1)?.remove(0))
    }

    /// A view with at least two dimensions: 0-d as (1, 1), 1-D of length n as (1, n):
    /// NumPy's `atleast_2d`.
    ///
    /// # Errors
    /// As [`Array::atleast_1d`].
    ///
    /// ```
    /// # let dev = gpuarray::Device::new()?;
    /// let v = dev.from_slice(&[1, 2, 3], [3])?;
    /// assert_eq!(v.atleast_2d()?.shape(), &[1, 3]);
    /// # Ok::<(), gpuarray::Error>(())
    /// ```
    pub fn atleast_2d(&self) -> Result<Array<T>> {
        Ok(at_least(&[self], 2)?.remove(0))
    }

    /// A view with at least three dimensions: 0-d as (1, 1, 1), 1-D of length n as
    /// (1, n, 1), 2-D (m, n) as (m, n, 1): NumPy's `atleast_3d`.
    ///
    /// # Errors
    /// As [`Array::atleast_1d`].
    ///
    /// ```
    /// # let dev = gpuarray::Device::new()?;
    /// let m = dev.zeros::<f32>([2, 3])?;
    /// assert_eq!(m.atleast_3d()?.shape(), &[2, 3, 1]);
    /// # Ok::<(), gpuarray::Error>(())
    /// ```
    pub fn atleast_3d(&self) -> Result<Array<T>> {
        Ok(at_least(&[self], 3)?.remove(0))
    }

    /// `values` appended along `axis` (one, negative from the end), or both flattened and
    /// joined for all axes (`..` or `None`):
    /// NumPy's `append`. A copy.
    ///
    /// # Errors
    /// As [`Array::concatenate`]: with an axis, the shapes must agree elsewhere.
    ///
    /// ```
    /// # let dev = gpuarray::Device::new()?;
    /// let x = dev.from_slice(&[1, 2, 3, 4], [2, 2])?;
    /// let v = dev.from_slice(&[5, 6], [1, 2])?;
    /// assert_eq!(x.append(&v, None)?.to_vec()?, vec![1, 2, 3, 4, 5, 6]);
    /// assert_eq!(x.append(&v, 0)?.shape(), &[3, 2]);
    /// # Ok::<(), gpuarray::Error>(())
    /// ```
    pub fn append(&self, values: &Array<T>, axis: impl Into<Axes>) -> Result<Array<T>> {
        let axis = axis.into();
        let (x, ax) = along(self, &axis, "append")?;
        let v = if axis == Axes::All {
            values.ravel()?
        } else {
            values.clone()
        };
        join(&[&x, &v], ax, "append")
    }

    /// `values` inserted before the positions `indices` (negative from the end; the length
    /// itself appends) along `axis`, or into the flattened array for all axes (`..`, `None`):
    /// NumPy's `insert` with a list of indices. `values` broadcasts to the array's shape with
    /// `indices.len()` along the axis; the k-th slot takes `values`' k-th slice, and slots
    /// given the same position keep their order. (NumPy's scalar `obj` form, which moves
    /// the values' first axis, is not provided: repeat the index to insert several.) A copy.
    ///
    /// # Errors
    /// [`Error::IndexOutOfRange`]; [`Error::Broadcast`] when `values` does not broadcast;
    /// [`Error::AxisOutOfRange`]; [`Error::DeviceMismatch`].
    ///
    /// ```
    /// # let dev = gpuarray::Device::new()?;
    /// let x = dev.from_slice(&[1, 2, 3, 4], [2, 2])?;
    /// let v = dev.from_slice(&[9], [1])?;
    /// assert_eq!(x.insert(&[1, 2], &v, 1)?.to_vec()?, vec![1, 9, 2, 9, 3, 9, 4, 9]);
    /// assert_eq!(x.insert(&[0], &v, None)?.to_vec()?, vec![9, 1, 2, 3, 4]);
    /// # Ok::<(), gpuarray::Error>(())
    /// ```
    pub fn insert(
        &self,
        indices: &[isize],
        values: &Array<T>,
        axis: impl Into<Axes>,
    ) -> Result<Array<T>> {
        let op = "insert";
        self.dev.expect_same(op, &[&values.dev])?;
        let (x, ax) = along(self, &axis.into(), op)?;
        let (len, m) = (x.shape[ax], indices.len());
        let mut pos = indices
            .iter()
            .map(|&i| norm_index(i, len, op, ax, true))
            .collect::<Result<Vec<_>>>()?;
        let mut slot = x.shape.clone();
        slot[ax] = m;
        let v = values.broadcast_to(slot)?;
        // Slot k goes to its position plus the slots placed before it (stable by position).
        let mut order: Vec<usize> = (0..m).collect();
        order.sort_by_key(|&k| pos[k]);
        for (rank, &k) in order.iter().enumerate() {
            pos[k] += rank;
        }
        // Source of each output position in [x, v] joined along the axis.
        let mut src = vec![u32::MAX; len + m];
        for (k, &p) in pos.iter().enumerate() {
            src[p] = (len + k) as u32;
        }
        let old = src.iter_mut().filter(|s| **s == u32::MAX);
        for (next, s) in old.enumerate() {
            *s = next as u32;
        }
        let both = join(&[&x, &v], ax, op)?;
        let idx = self.dev.from_slice(&src, [src.len()])?;
        both.take(&idx, ax)
    }

    /// The array without the positions `indices` (negative from the end; repeats allowed)
    /// along `axis`, or of the flattened array for all axes (`..`, `None`): NumPy's `delete` with
    /// a list of indices. A copy.
    ///
    /// # Errors
    /// [`Error::IndexOutOfRange`]; [`Error::AxisOutOfRange`].
    ///
    /// ```
    /// # let dev = gpuarray::Device::new()?;
    /// let x = dev.arange::<i32>(0, 6, 1)?.reshape([2, 3])?;
    /// assert_eq!(x.delete(&[0, -1], 1)?.to_vec()?, vec![1, 4]);
    /// assert_eq!(x.delete(&[1], None)?.to_vec()?, vec![0, 2, 3, 4, 5]);
    /// # Ok::<(), gpuarray::Error>(())
    /// ```
    pub fn delete(&self, indices: &[isize], axis: impl Into<Axes>) -> Result<Array<T>> {
        let (x, ax) = along(self, &axis.into(), "delete")?;
        let len = x.shape[ax];
        let mut keep = vec![true; len];
        for &i in indices {
            keep[norm_index(i, len, "delete", ax, false)?] = false;
        }
        let kept: Vec<u32> = (0..len as u32).filter(|&i| keep[i as usize]).collect();
        let idx = self.dev.from_slice(&kept, [kept.len()])?;
        x.take(&idx, ax)
    }

    /// Rotated by 90 degrees `k` times (negative turns the other way) in the plane of
    /// `axes` (two axes, negative from the end), from the first toward the second: NumPy's
    /// `rot90`. A view, as NumPy's:
    /// flipped ([`Array::flip`], a negative stride) and seen through swapped axes.
    ///
    /// # Errors
    /// [`Error::InvalidArgument`] for fewer than 2 dimensions, other than two axes, or equal axes;
    /// [`Error::AxisOutOfRange`].
    ///
    /// ```
    /// # let dev = gpuarray::Device::new()?;
    /// let m = dev.from_slice(&[1, 2, 3, 4], [2, 2])?;
    /// assert_eq!(m.rot90(1, [0, 1])?.to_vec()?, vec![2, 4, 1, 3]);
    /// assert_eq!(m.rot90(-1, [-2, -1])?.to_vec()?, vec![3, 1, 4, 2]);
    /// # Ok::<(), gpuarray::Error>(())
    /// ```
    pub fn rot90(&self, k: isize, axes: impl Into<Axes>) -> Result<Array<T>> {
        let op = "rot90";
        if self.ndim() < 2 {
            return Err(Error::InvalidArgument {
                op,
                reason: "rot90 needs at least 2 dimensions",
            });
        }
        let axes = axes.into();
        let (a, b) = match axes.raw().as_deref() {
            Some(&[a, b]) => (
                crate::shape::resolve_axis(a, self.ndim())?,
                crate::shape::resolve_axis(b, self.ndim())?,
            ),
            _ => {
                return Err(Error::InvalidArgument {
                    op,
                    reason: "rot90 takes two axes",
                })
            }
        };
        if a == b {
            return Err(Error::InvalidArgument {
                op,
                reason: "the two axes must differ",
            });
        }
        match k.rem_euclid(4) {
            0 => Ok(self.clone()),
            1 => self.flip(b)?.swapaxes(a, b),
            2 => self.flip([a, b]),
            _ => self.swapaxes(a, b)?.flip(b),
        }
    }

    /// A view of a 1-D array without its leading (`front`) and/or trailing (`back`) zeros:
    /// NumPy's `trim_zeros` with `trim` "f", "b" or "fb". NaN and -0: NaN is kept, -0 is a
    /// zero. Finds the non-zeros through [`Array::flatnonzero`] (a sync point).
    ///
    /// # Errors
    /// [`Error::InvalidArgument`] for arrays that are not 1-D.
    ///
    /// ```
    /// # let dev = gpuarray::Device::new()?;
    /// let x = dev.from_slice(&[0, 0, 3, 0, 2, 0], [6])?;
    /// assert_eq!(x.trim_zeros(true, true)?.to_vec()?, vec![3, 0, 2]);
    /// assert_eq!(x.trim_zeros(false, true)?.to_vec()?, vec![0, 0, 3, 0, 2]);
    /// # Ok::<(), gpuarray::Error>(())
    /// ```
    pub fn trim_zeros(&self, front: bool, back: bool) -> Result<Array<T>> {
        if self.ndim() != 1 {
            return Err(Error::InvalidArgument {
                op: "trim_zeros",
                reason: "trim_zeros takes a 1-D array",
            });
        }
        let nz = self.flatnonzero_u32()?;
        let (lo, hi) = match nz.len() {
            0 => (self.len(), 0),
            k => {
                let ends = Array::concatenate(&[&nz.slice(0..1)?, &nz.slice(k - 1..k)?], 0)?;
                let e = ends.to_vec()?;
                (e[0] as usize, e[1] as usize + 1)
            }
        };
        let start = if front { lo } else { 0 };
        let end = if back { hi } else { self.len() };
        self.slice(Slice::from(start..end.max(start)))
    }

    /// A new array of `shape`, filled with this array's elements in C order, repeated as
    /// often as needed (and cut): NumPy's `resize` (the function, not the method). Zeros
    /// when the array is empty.
    ///
    /// # Errors
    /// [`Error::BufferTooLarge`] / [`Error::OutOfMemory`].
    ///
    /// ```
    /// # let dev = gpuarray::Device::new()?;
    /// let x = dev.from_slice(&[1, 2, 3], [3])?;
    /// assert_eq!(x.resize([2, 4])?.to_vec()?, vec![1, 2, 3, 1, 2, 3, 1, 2]);
    /// # Ok::<(), gpuarray::Error>(())
    /// ```
    pub fn resize(&self, shape: impl Into<crate::Shape>) -> Result<Array<T>> {
        let shape: Vec<usize> = shape.into().0;
        let total = crate::shape::checked_len(&shape, std::mem::size_of::<T>())?;
        let n = self.len();
        if n == 0 || total == 0 {
            return self.dev.zeros::<T>(shape);
        }
        let flat = self.ravel()?;
        let reps = total.div_ceil(n);
        let long = if reps == 1 { flat } else { flat.tile(&[reps])? };
        long.slice(0..total)?.contiguous()?.reshape(shape)
    }

    /// Whether the two arrays are equal after broadcasting together (false when they do not
    /// broadcast): NumPy's `array_equiv`. NaN is unequal to everything. A sync point.
    ///
    /// # Errors
    /// [`Error::DeviceMismatch`].
    ///
    /// ```
    /// # let dev = gpuarray::Device::new()?;
    /// let row = dev.from_slice(&[1, 2], [2])?;
    /// let m = dev.from_slice(&[1, 2, 1, 2], [2, 2])?;
    /// assert!(row.array_equiv(&m)?);
    /// assert!(!row.array_equiv(&dev.from_slice(&[1, 2, 3], [3])?)?);
    /// # Ok::<(), gpuarray::Error>(())
    /// ```
    pub fn array_equiv(&self, other: &Array<T>) -> Result<bool> {
        self.dev.expect_same("array_equiv", &[&other.dev])?;
        match Array::broadcast_arrays(&[self, other]) {
            Ok(b) => b[0].eq(&b[1])?.all()?.to_scalar(),
            Err(Error::Broadcast { .. } | Error::ShapeMismatch { .. }) => Ok(false),
            Err(e) => Err(e),
        }
    }
}
