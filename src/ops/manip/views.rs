//! Views that relabel axes (squeeze, expand_dims, swapaxes, moveaxis, broadcast_arrays) and
//! the flat forms ravel and flatten.

use crate::array::Array;
use crate::dtype::Element;
use crate::error::{Error, Result};
use crate::shape::{broadcast_shapes, Axes};

impl<T: Element> Array<T> {
    /// A view without the axes of extent 1: all of them for `..` or `None`, else the axes
    /// named (one or several, negative from the end), as NumPy's `squeeze(axis=)`.
    ///
    /// # Errors
    /// [`Error::AxisOutOfRange`]; [`Error::InvalidArgument`] when an axis named is not of
    /// extent 1, or is named twice.
    ///
    /// ```
    /// # let dev = gpuarray::Device::new()?;
    /// let x = dev.zeros::<f32>([1, 3, 1])?;
    /// assert_eq!(x.squeeze(None)?.shape(), &[3]);
    /// assert_eq!(x.squeeze(-1)?.shape(), &[1, 3]);
    /// assert_eq!(x.squeeze([0, -1])?.shape(), &[3]);
    /// assert!(x.squeeze(1).is_err());
    /// # Ok::<(), gpuarray::Error>(())
    /// ```
    pub fn squeeze(&self, axis: impl Into<Axes>) -> Result<Array<T>> {
        let keep: Vec<usize> = match axis.into().resolve_opt(self.ndim(), "squeeze")? {
            None => (0..self.ndim()).filter(|&d| self.shape[d] != 1).collect(),
            Some(axes) => {
                if axes.iter().any(|&d| self.shape[d] != 1) {
                    return Err(Error::InvalidArgument {
                        op: "squeeze",
                        reason: "the axis to remove must have extent 1",
                    });
                }
                (0..self.ndim()).filter(|k| !axes.contains(k)).collect()
            }
        };
        Ok(self.view(
            keep.iter().map(|&d| self.shape[d]).collect(),
            keep.iter().map(|&d| self.strides[d]).collect(),
            self.offset,
        ))
    }

    /// A view with new axes of extent 1 at the positions `axis` of the result (one or
    /// several, negative from its end), as NumPy's `expand_dims(axis=)`.
    ///
    /// # Errors
    /// [`Error::AxisOutOfRange`] unless each `-(ndim + k) <= axis < ndim + k` for `k` new
    /// axes; [`Error::InvalidArgument`] for a position named twice, or for all (`..`).
    ///
    /// ```
    /// # let dev = gpuarray::Device::new()?;
    /// let x = dev.zeros::<f32>([2, 3])?;
    /// assert_eq!(x.expand_dims(1)?.shape(), &[2, 1, 3]);
    /// assert_eq!(x.expand_dims(-1)?.shape(), &[2, 3, 1]);
    /// assert_eq!(x.expand_dims([0, -1])?.shape(), &[1, 2, 3, 1]);
    /// # Ok::<(), gpuarray::Error>(())
    /// ```
    pub fn expand_dims(&self, axis: impl Into<Axes>) -> Result<Array<T>> {
        let axis = axis.into();
        let Some(list) = axis.raw() else {
            return Err(Error::InvalidArgument {
                op: "expand_dims",
                reason:
                    "it needs the positions of the new axes, and all axes (`..` or None) were given",
            });
        };
        let new = axis.resolve(self.ndim() + list.len(), "expand_dims")?;
        let mut shape = self.shape.clone();
        let mut strides = self.strides.clone();
        for d in new {
            shape.insert(d, 1);
            strides.insert(d, 0);
        }
        Ok(self.view(shape, strides, self.offset))
    }

    /// A view with axes `a` and `b` exchanged (negative from the end), as NumPy's
    /// `swapaxes`.
    ///
    /// # Errors
    /// [`Error::AxisOutOfRange`]; [`Error::InvalidArgument`] for several axes or all.
    ///
    /// ```
    /// # let dev = gpuarray::Device::new()?;
    /// let x = dev.zeros::<f32>([2, 3, 4])?;
    /// assert_eq!(x.swapaxes(0, -1)?.shape(), &[4, 3, 2]);
    /// # Ok::<(), gpuarray::Error>(())
    /// ```
    pub fn swapaxes(&self, a: impl Into<Axes>, b: impl Into<Axes>) -> Result<Array<T>> {
        let a = a.into().resolve_single(self.ndim(), "swapaxes")?;
        let b = b.into().resolve_single(self.ndim(), "swapaxes")?;
        let mut perm: Vec<usize> = (0..self.ndim()).collect();
        perm.swap(a, b);
        self.transpose(&perm)
    }

    /// A view with axes `src` moved to positions `dst`, the others in their order, as
    /// NumPy's `moveaxis` (one axis each, or as many in each; negative from the end).
    ///
    /// # Errors
    /// [`Error::AxisOutOfRange`]; [`Error::InvalidArgument`] for an axis named twice, or
    /// when `src` and `dst` name different numbers of axes.
    ///
    /// ```
    /// # let dev = gpuarray::Device::new()?;
    /// let x = dev.zeros::<f32>([2, 3, 4])?;
    /// assert_eq!(x.moveaxis(0, -1)?.shape(), &[3, 4, 2]);
    /// assert_eq!(x.moveaxis([0, 1], [-1, -2])?.shape(), &[4, 3, 2]);
    /// # Ok::<(), gpuarray::Error>(())
    /// ```
    pub fn moveaxis(&self, src: impl Into<Axes>, dst: impl Into<Axes>) -> Result<Array<T>> {
        let s = src.into().resolve_ordered(self.ndim(), "moveaxis")?;
        let d = dst.into().resolve_ordered(self.ndim(), "moveaxis")?;
        if s.len() != d.len() {
            return Err(Error::InvalidArgument {
                op: "moveaxis",
                reason: "the source and destination name different numbers of axes",
            });
        }
        let mut perm: Vec<usize> = (0..self.ndim()).filter(|k| !s.contains(k)).collect();
        let mut pairs: Vec<(usize, usize)> = d.into_iter().zip(s).collect();
        pairs.sort_unstable();
        for (to, from) in pairs {
            perm.insert(to, from);
        }
        self.transpose(&perm)
    }

    /// The elements as a 1-D array: a view when contiguous, else a copy (NumPy's `ravel`).
    ///
    /// # Errors
    /// [`Error::OutOfMemory`] when a copy does not fit.
    ///
    /// ```
    /// # let dev = gpuarray::Device::new()?;
    /// let x = dev.from_slice(&[1, 2, 3, 4], [2, 2])?;
    /// assert_eq!(x.t().ravel()?.to_vec()?, vec![1, 3, 2, 4]);
    /// # Ok::<(), gpuarray::Error>(())
    /// ```
    pub fn ravel(&self) -> Result<Array<T>> {
        self.reshape([self.len()])
    }

    /// The elements as a new 1-D array, always a copy (NumPy's `flatten`).
    ///
    /// # Errors
    /// [`Error::OutOfMemory`].
    ///
    /// ```
    /// # let dev = gpuarray::Device::new()?;
    /// let x = dev.from_slice(&[1, 2, 3, 4], [2, 2])?;
    /// let f = x.flatten()?;
    /// assert_eq!((f.shape(), f.to_vec()?), (&[4usize][..], vec![1, 2, 3, 4]));
    /// # Ok::<(), gpuarray::Error>(())
    /// ```
    pub fn flatten(&self) -> Result<Array<T>> {
        self.copy()?.reshape([self.len()])
    }

    /// Views of every array broadcast to their common shape, as NumPy's
    /// `broadcast_arrays`.
    ///
    /// # Errors
    /// [`Error::ShapeMismatch`] when the shapes do not broadcast together.
    ///
    /// ```
    /// use gpuarray::Array;
    /// # let dev = gpuarray::Device::new()?;
    /// let a = dev.zeros::<f32>([3, 1])?;
    /// let b = dev.zeros::<f32>([4])?;
    /// let v = Array::broadcast_arrays(&[&a, &b])?;
    /// assert!(v.iter().all(|x| x.shape() == &[3, 4]));
    /// # Ok::<(), gpuarray::Error>(())
    /// ```
    pub fn broadcast_arrays(arrays: &[&Array<T>]) -> Result<Vec<Array<T>>> {
        let mut shape: Vec<usize> = Vec::new();
        for a in arrays {
            shape = broadcast_shapes("broadcast_arrays", &shape, &a.shape)?;
        }
        arrays
            .iter()
            .map(|a| a.broadcast_to(shape.clone()))
            .collect()
    }
}
