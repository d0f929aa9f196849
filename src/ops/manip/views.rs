//! Views that relabel axes (squeeze, expand_dims, swapaxes, moveaxis, broadcast_arrays) and
//! the flat forms ravel and flatten.

use crate::array::Array;
use crate::dtype::Element;
use crate::error::{Error, Result};
use crate::shape::broadcast_shapes;

use super::norm_axis;

impl<T: Element> Array<T> {
    /// A view without the axes of extent 1 (`None`: all of them; `Some(axis)`: that one,
    /// negative from the end), as NumPy's `squeeze`.
    ///
    /// # Errors
    /// [`Error::AxisOutOfRange`]; [`Error::InvalidArgument`] when the axis named is not of
    /// extent 1.
    ///
    /// ```
    /// # let dev = gpuarray::Device::new()?;
    /// let x = dev.zeros::<f32>([1, 3, 1])?;
    /// assert_eq!(x.squeeze(None)?.shape(), &[3]);
    /// assert_eq!(x.squeeze(Some(-1))?.shape(), &[1, 3]);
    /// assert!(x.squeeze(Some(1)).is_err());
    /// # Ok::<(), gpuarray::Error>(())
    /// ```
    pub fn squeeze(&self, axis: Option<isize>) -> Result<Array<T>> {
        let keep: Vec<usize> = match axis {
            None => (0..self.ndim()).filter(|&d| self.shape[d] != 1).collect(),
            Some(a) => {
                let d = norm_axis(a, self.ndim())?;
                if self.shape[d] != 1 {
                    return Err(Error::InvalidArgument {
                        op: "squeeze",
                        reason: "the axis to remove must have extent 1",
                    });
                }
                (0..self.ndim()).filter(|&k| k != d).collect()
            }
        };
        Ok(self.view(
            keep.iter().map(|&d| self.shape[d]).collect(),
            keep.iter().map(|&d| self.strides[d]).collect(),
            self.offset,
        ))
    }

    /// A view with a new axis of extent 1 at `axis` of the result (negative from its end),
    /// as NumPy's `expand_dims`.
    ///
    /// # Errors
    /// [`Error::AxisOutOfRange`] unless `-(ndim + 1) <= axis <= ndim`.
    ///
    /// ```
    /// # let dev = gpuarray::Device::new()?;
    /// let x = dev.zeros::<f32>([2, 3])?;
    /// assert_eq!(x.expand_dims(1)?.shape(), &[2, 1, 3]);
    /// assert_eq!(x.expand_dims(-1)?.shape(), &[2, 3, 1]);
    /// # Ok::<(), gpuarray::Error>(())
    /// ```
    pub fn expand_dims(&self, axis: isize) -> Result<Array<T>> {
        let d = norm_axis(axis, self.ndim() + 1)?;
        let mut shape = self.shape.clone();
        let mut strides = self.strides.clone();
        shape.insert(d, 1);
        strides.insert(d, 0);
        Ok(self.view(shape, strides, self.offset))
    }

    /// A view with axes `a` and `b` exchanged (negative from the end), as NumPy's
    /// `swapaxes`.
    ///
    /// # Errors
    /// [`Error::AxisOutOfRange`].
    ///
    /// ```
    /// # let dev = gpuarray::Device::new()?;
    /// let x = dev.zeros::<f32>([2, 3, 4])?;
    /// assert_eq!(x.swapaxes(0, -1)?.shape(), &[4, 3, 2]);
    /// # Ok::<(), gpuarray::Error>(())
    /// ```
    pub fn swapaxes(&self, a: isize, b: isize) -> Result<Array<T>> {
        let (a, b) = (norm_axis(a, self.ndim())?, norm_axis(b, self.ndim())?);
        let mut perm: Vec<usize> = (0..self.ndim()).collect();
        perm.swap(a, b);
        self.transpose(&perm)
    }

    /// A view with axis `src` moved to position `dst`, the others in their order, as
    /// NumPy's `moveaxis` (both negative from the end).
    ///
    /// # Errors
    /// [`Error::AxisOutOfRange`].
    ///
    /// ```
    /// # let dev = gpuarray::Device::new()?;
    /// let x = dev.zeros::<f32>([2, 3, 4])?;
    /// assert_eq!(x.moveaxis(0, -1)?.shape(), &[3, 4, 2]);
    /// # Ok::<(), gpuarray::Error>(())
    /// ```
    pub fn moveaxis(&self, src: isize, dst: isize) -> Result<Array<T>> {
        let (s, d) = (norm_axis(src, self.ndim())?, norm_axis(dst, self.ndim())?);
        let mut perm: Vec<usize> = (0..self.ndim()).filter(|&k| k != s).collect();
        perm.insert(d, s);
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
