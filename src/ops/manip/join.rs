//! Joining and splitting: concatenate, stack, hstack/vstack/dstack; split, array_split.

use crate::array::Array;
use crate::dtype::Element;
use crate::error::{Error, Result};
use crate::shape::{contiguous_strides, Slice};

use super::kernel::copy_into;
use crate::shape::Axes;

/// Joins `parts` (same device, same shape but along `axis`) along `axis`: one copy dispatch
/// per non-empty part, each writing its slab of the output.
pub(crate) fn join<T: Element>(
    parts: &[&Array<T>],
    axis: usize,
    op: &'static str,
) -> Result<Array<T>> {
    let first = parts.first().ok_or(Error::InvalidArgument {
        op,
        reason: "needs at least one array",
    })?;
    let dev = &first.dev;
    let others: Vec<&crate::Device> = parts.iter().map(|p| &p.dev).collect();
    dev.expect_same(op, &others)?;
    let mut shape = first.shape.clone();
    shape[axis] = 0;
    for (index, p) in parts.iter().enumerate() {
        let same = p.ndim() == first.ndim()
            && (0..p.ndim()).all(|d| d == axis || p.shape[d] == first.shape[d]);
        if !same {
            return Err(Error::JoinMismatch {
                op,
                index,
                shape: p.shape.clone(),
                first: first.shape.clone(),
                axis: Some(axis),
            });
        }
        shape[axis] += p.shape[axis];
    }
    let bufs: Vec<_> = parts.iter().map(|p| &*p.buf).collect();
    // The copies move elements only: complex ones too (as their components).
    dev.accept(op, T::DTYPE, crate::dtype::accepts::moves)?;
    let out = Array::<T>::alloc_any(dev, op, shape, |b| dev.alloc_apart(b, &bufs))?;
    let strides = contiguous_strides(&out.shape);
    let mut at = 0;
    for p in parts {
        copy_into(p, &out, at * strides[axis] as usize, &strides)?;
        at += p.shape[axis];
    }
    Ok(out)
}

impl<T: Element> Array<T> {
    /// The arrays joined along an existing axis (negative from the end), as NumPy's
    /// `concatenate`: every other extent must agree; with all axes (`..` or `None`), the
    /// arrays flattened and joined into one 1-D array. One copy per input, reading strided
    /// inputs directly.
    ///
    /// # Errors
    /// [`Error::InvalidArgument`] for no arrays; [`Error::JoinMismatch`] when the shapes
    /// differ elsewhere than along `axis` or in rank (naming the first that does); [`Error::AxisOutOfRange`];
    /// [`Error::DeviceMismatch`].
    ///
    /// ```
    /// use gpuarray::Array;
    /// # let dev = gpuarray::Device::new()?;
    /// let a = dev.from_slice(&[1, 2, 3, 4], [2, 2])?;
    /// let b = dev.from_slice(&[5, 6], [2, 1])?;
    /// assert_eq!(Array::concatenate(&[&a, &b], -1)?.to_vec()?, vec![1, 2, 5, 3, 4, 6]);
    /// assert!(Array::concatenate(&[&a, &b], 0).is_err());
    /// assert_eq!(Array::concatenate(&[&a, &b], None)?.to_vec()?, vec![1, 2, 3, 4, 5, 6]);
    /// # Ok::<(), gpuarray::Error>(())
    /// ```
    pub fn concatenate(arrays: &[&Array<T>], axis: impl Into<Axes>) -> Result<Array<T>> {
        let axis = axis.into();
        if axis == Axes::All {
            let flat = arrays
                .iter()
                .map(|a| a.reshape([a.len()]))
                .collect::<Result<Vec<_>>>()?;
            return join(&flat.iter().collect::<Vec<_>>(), 0, "concatenate");
        }
        let ndim = arrays.first().map_or(0, |a| a.ndim());
        if ndim == 0 && !arrays.is_empty() {
            return Err(Error::InvalidArgument {
                op: "concatenate",
                reason: "0-d arrays cannot be concatenated",
            });
        }
        let axis = if arrays.is_empty() {
            0
        } else {
            axis.resolve_single(ndim, "concatenate")?
        };
        join(arrays, axis, "concatenate")
    }

    /// The arrays (all of one shape) joined along a new axis at `axis` (negative from the
    /// end of the result's axes), as NumPy's `stack`.
    ///
    /// # Errors
    /// As [`Array::concatenate`]; [`Error::JoinMismatch`] when the shapes differ.
    ///
    /// ```
    /// use gpuarray::Array;
    /// # let dev = gpuarray::Device::new()?;
    /// let a = dev.from_slice(&[1.0f32, 2.0], [2])?;
    /// let b = dev.from_slice(&[3.0f32, 4.0], [2])?;
    /// let s = Array::stack(&[&a, &b], -1)?;
    /// assert_eq!((s.shape(), s.to_vec()?), (&[2usize, 2][..], vec![1.0, 3.0, 2.0, 4.0]));
    /// # Ok::<(), gpuarray::Error>(())
    /// ```
    pub fn stack(arrays: &[&Array<T>], axis: impl Into<Axes>) -> Result<Array<T>> {
        let Some(first) = arrays.first() else {
            return join(arrays, 0, "stack");
        };
        let axis = axis.into().resolve_single(first.ndim() + 1, "stack")?;
        let mut views = Vec::with_capacity(arrays.len());
        for (index, a) in arrays.iter().enumerate() {
            if a.shape != first.shape {
                return Err(Error::JoinMismatch {
                    op: "stack",
                    index,
                    shape: a.shape.clone(),
                    first: first.shape.clone(),
                    axis: None,
                });
            }
            views.push(a.expand_dims(axis)?);
        }
        let refs: Vec<&Array<T>> = views.iter().collect();
        join(&refs, axis, "stack")
    }

    /// Joined along the second axis (the first for 1-D arrays), as NumPy's `hstack`.
    ///
    /// # Errors
    /// As [`Array::concatenate`].
    ///
    /// ```
    /// use gpuarray::Array;
    /// # let dev = gpuarray::Device::new()?;
    /// let a = dev.from_slice(&[1u32, 2], [2])?;
    /// assert_eq!(Array::hstack(&[&a, &a])?.to_vec()?, vec![1, 2, 1, 2]);
    /// # Ok::<(), gpuarray::Error>(())
    /// ```
    pub fn hstack(arrays: &[&Array<T>]) -> Result<Array<T>> {
        let views = at_least(arrays, 1)?;
        let axis = if views.first().is_some_and(|v| v.ndim() == 1) {
            0
        } else {
            1
        };
        join(&views.iter().collect::<Vec<_>>(), axis, "hstack")
    }

    /// Joined along the first axis, 1-D arrays of length n taken as rows (1, n), as NumPy's
    /// `vstack`.
    ///
    /// # Errors
    /// As [`Array::concatenate`].
    ///
    /// ```
    /// use gpuarray::Array;
    /// # let dev = gpuarray::Device::new()?;
    /// let a = dev.from_slice(&[1u32, 2], [2])?;
    /// assert_eq!(Array::vstack(&[&a, &a])?.shape(), &[2, 2]);
    /// # Ok::<(), gpuarray::Error>(())
    /// ```
    pub fn vstack(arrays: &[&Array<T>]) -> Result<Array<T>> {
        let views = at_least(arrays, 2)?;
        join(&views.iter().collect::<Vec<_>>(), 0, "vstack")
    }

    /// Joined along the third axis, 1-D arrays of length n taken as (1, n, 1) and 2-D ones
    /// as (m, n, 1), as NumPy's `dstack`.
    ///
    /// # Errors
    /// As [`Array::concatenate`].
    ///
    /// ```
    /// use gpuarray::Array;
    /// # let dev = gpuarray::Device::new()?;
    /// let a = dev.from_slice(&[1u32, 2], [2])?;
    /// let d = Array::dstack(&[&a, &a])?;
    /// assert_eq!((d.shape(), d.to_vec()?), (&[1usize, 2, 2][..], vec![1, 1, 2, 2]));
    /// # Ok::<(), gpuarray::Error>(())
    /// ```
    pub fn dstack(arrays: &[&Array<T>]) -> Result<Array<T>> {
        let views = at_least(arrays, 3)?;
        join(&views.iter().collect::<Vec<_>>(), 2, "dstack")
    }

    /// `sections` views of equal length along `axis`, as NumPy's `split` with an integer.
    ///
    /// # Errors
    /// [`Error::InvalidArgument`] for zero sections or a length they do not divide;
    /// [`Error::AxisOutOfRange`].
    ///
    /// ```
    /// # let dev = gpuarray::Device::new()?;
    /// let x = dev.arange::<i32>(0, 6, 1)?;
    /// let parts = x.split(3, 0)?;
    /// assert_eq!(parts[1].to_vec()?, vec![2, 3]);
    /// assert!(x.split(4, 0).is_err());
    /// # Ok::<(), gpuarray::Error>(())
    /// ```
    pub fn split(&self, sections: usize, axis: impl Into<Axes>) -> Result<Vec<Array<T>>> {
        let d = axis.into().resolve_single(self.ndim(), "split")?;
        if sections == 0 || !self.shape[d].is_multiple_of(sections) {
            return Err(Error::InvalidArgument {
                op: "split",
                reason: "the sections must divide the axis equally (array_split does not)",
            });
        }
        self.array_split(sections, d)
    }

    /// `sections` views along `axis`, the first `len % sections` one element longer, as
    /// NumPy's `array_split`.
    ///
    /// # Errors
    /// [`Error::InvalidArgument`] for zero sections; [`Error::AxisOutOfRange`].
    ///
    /// ```
    /// # let dev = gpuarray::Device::new()?;
    /// let x = dev.arange::<i32>(0, 5, 1)?;
    /// let lens: Vec<usize> = x.array_split(3, -1)?.iter().map(|p| p.len()).collect();
    /// assert_eq!(lens, vec![2, 2, 1]);
    /// # Ok::<(), gpuarray::Error>(())
    /// ```
    pub fn array_split(&self, sections: usize, axis: impl Into<Axes>) -> Result<Vec<Array<T>>> {
        let d = axis.into().resolve_single(self.ndim(), "array_split")?;
        if sections == 0 {
            return Err(Error::InvalidArgument {
                op: "array_split",
                reason: "the number of sections must be positive",
            });
        }
        let (q, r) = (self.shape[d] / sections, self.shape[d] % sections);
        let cuts: Vec<usize> = (1..sections).map(|k| k * q + k.min(r)).collect();
        self.split_at(&cuts, d)
    }

    /// Views between the given indices along `axis` (`[..i0], [i0..i1], ..., [ik..]`), as
    /// NumPy's `split` with a list; indices past the end give empty views.
    ///
    /// # Errors
    /// [`Error::AxisOutOfRange`].
    ///
    /// ```
    /// # let dev = gpuarray::Device::new()?;
    /// let x = dev.arange::<i32>(0, 5, 1)?;
    /// let p = x.split_at(&[1, 3], 0)?;
    /// assert_eq!(p[1].to_vec()?, vec![1, 2]);
    /// # Ok::<(), gpuarray::Error>(())
    /// ```
    pub fn split_at(&self, indices: &[usize], axis: impl Into<Axes>) -> Result<Vec<Array<T>>> {
        let d = axis.into().resolve_single(self.ndim(), "split")?;
        let n = self.shape[d];
        let mut bounds = vec![0];
        bounds.extend(indices.iter().map(|&i| i.min(n)));
        bounds.push(n);
        let mut info = vec![Slice::from(..); d + 1];
        bounds
            .windows(2)
            .map(|w| {
                let (a, b) = (w[0], w[1].max(w[0]));
                info[d] = Slice::from(a..b);
                self.slice(info.clone())
            })
            .collect()
    }
}

/// Views of `arrays` with at least `ndim` axes: 1-D as (1, n) then (1, n, 1) (NumPy's
/// `atleast_2d` / `atleast_3d`), 0-d as ones.
pub(super) fn at_least<T: Element>(arrays: &[&Array<T>], ndim: usize) -> Result<Vec<Array<T>>> {
    arrays
        .iter()
        .map(|a| {
            let mut v = (*a).clone();
            if v.ndim() == 0 {
                v = v.reshape([1])?;
            }
            if ndim >= 2 && v.ndim() == 1 {
                v = v.expand_dims(0)?;
            }
            if ndim >= 3 && v.ndim() == 2 {
                v = v.expand_dims(2)?;
            }
            Ok(v)
        })
        .collect()
}
