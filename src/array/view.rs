//! Views that share the buffer: reshape, transpose, broadcast, slicing; and the copies
//! `contiguous` and `cast`.

use crate::array::Array;
use crate::dtype::Element;
use crate::error::{Error, Result};
use crate::ops::elementwise::{map_unary, Unary};
use crate::shape::{
    broadcast_strides, checked_len, contiguous_strides, Axes, Shape, Slice, SliceInfo,
};

impl<T: Element> Array<T> {
    /// The same elements in another shape. Contiguous arrays are reshaped as views; others are
    /// copied first (as NumPy does).
    ///
    /// # Errors
    /// [`Error::SizeMismatch`] when the new shape holds a different number of elements;
    /// [`Error::BufferTooLarge`] when its element count overflows.
    ///
    /// ```
    /// # let dev = gpuarray::Device::new()?;
    /// let x = dev.arange::<i32>(0, 6, 1)?;
    /// let m = x.reshape([2, 3])?;
    /// assert_eq!(m.shape(), &[2, 3]);
    /// assert!(x.reshape([4, 2]).is_err());
    /// # Ok::<(), gpuarray::Error>(())
    /// ```
    pub fn reshape(&self, shape: impl Into<Shape>) -> Result<Array<T>> {
        let shape = shape.into().0;
        let n = checked_len(&shape, T::DTYPE.size())?;
        if n != self.len() {
            return Err(Error::SizeMismatch {
                expected: n,
                actual: self.len(),
                shape,
            });
        }
        let base = if self.is_contiguous() {
            self.clone()
        } else {
            self.contiguous()?
        };
        let strides = contiguous_strides(&shape);
        Ok(base.view(shape, strides, base.offset))
    }

    /// The axes in another order: axis `k` of the result is axis `perm[k]` of `self`.
    ///
    /// # Errors
    /// [`Error::InvalidPermutation`] unless `perm` is a permutation of `0..ndim`.
    ///
    /// ```
    /// # let dev = gpuarray::Device::new()?;
    /// let x = dev.zeros::<f32>([2, 3, 4])?;
    /// assert_eq!(x.transpose(&[2, 0, 1])?.shape(), &[4, 2, 3]);
    /// assert!(x.transpose(&[0, 0, 1]).is_err());
    /// # Ok::<(), gpuarray::Error>(())
    /// ```
    pub fn transpose(&self, perm: &[usize]) -> Result<Array<T>> {
        let n = self.ndim();
        let mut seen = vec![false; n];
        let ok = perm.len() == n
            && perm
                .iter()
                .all(|&p| p < n && !std::mem::replace(&mut seen[p], true));
        if !ok {
            return Err(Error::InvalidPermutation {
                perm: perm.to_vec(),
                ndim: n,
            });
        }
        Ok(self.view(
            perm.iter().map(|&p| self.shape[p]).collect(),
            perm.iter().map(|&p| self.strides[p]).collect(),
            self.offset,
        ))
    }

    /// The axes reversed (the matrix transpose for 2-D arrays). A view.
    ///
    /// ```
    /// # let dev = gpuarray::Device::new()?;
    /// let x = dev.from_slice(&[1.0f32, 2.0, 3.0, 4.0, 5.0, 6.0], [2, 3])?;
    /// assert_eq!(x.t().to_vec()?, vec![1.0, 4.0, 2.0, 5.0, 3.0, 6.0]);
    /// # Ok::<(), gpuarray::Error>(())
    /// ```
    pub fn t(&self) -> Array<T> {
        self.view(
            self.shape.iter().rev().copied().collect(),
            self.strides.iter().rev().copied().collect(),
            self.offset,
        )
    }

    /// A view repeated along new leading axes and along axes of extent 1 (NumPy's rules).
    ///
    /// # Errors
    /// [`Error::Broadcast`] when the shapes are incompatible; [`Error::BufferTooLarge`] when
    /// the element count overflows.
    ///
    /// ```
    /// # let dev = gpuarray::Device::new()?;
    /// let row = dev.from_slice(&[1u32, 2, 3], [3])?;
    /// assert_eq!(row.broadcast_to([2, 3])?.to_vec()?, vec![1, 2, 3, 1, 2, 3]);
    /// assert!(row.broadcast_to([2, 4]).is_err());
    /// # Ok::<(), gpuarray::Error>(())
    /// ```
    pub fn broadcast_to(&self, shape: impl Into<Shape>) -> Result<Array<T>> {
        let shape = shape.into().0;
        checked_len(&shape, T::DTYPE.size())?;
        let strides = broadcast_strides(&self.shape, &self.strides, &shape)?;
        Ok(self.view(shape, strides, self.offset))
    }

    /// A view of a sub-range of the leading axes: one [`Slice`] (or Rust range) per axis,
    /// axes not named taken whole. Steps take every k-th element; negative steps walk an
    /// axis backwards (NumPy's `x[::-1]`, a view with a negative stride that reads and
    /// writes through to the same buffer).
    ///
    /// # Errors
    /// [`Error::SliceOutOfRange`] for bounds outside an axis or a zero step;
    /// [`Error::TooManySlices`] for more slices than axes.
    ///
    /// ```
    /// use gpuarray::Slice;
    /// # let dev = gpuarray::Device::new()?;
    /// let x = dev.arange::<f32>(0.0, 12.0, 1.0)?.reshape([3, 4])?;
    /// let v = x.slice([Slice::from(1..), Slice::from(..).step(2)])?;
    /// assert_eq!(v.to_vec()?, vec![4.0, 6.0, 8.0, 10.0]);
    /// assert!(x.slice(0..4).is_err());
    /// // x[::-1, 3:0:-2]
    /// let r = x.slice([Slice::from(..).step(-1), Slice::new(3, Some(0), -2)])?;
    /// assert_eq!(r.to_vec()?, vec![11.0, 9.0, 7.0, 5.0, 3.0, 1.0]);
    /// # Ok::<(), gpuarray::Error>(())
    /// ```
    pub fn slice(&self, info: impl Into<SliceInfo>) -> Result<Array<T>> {
        let info = info.into().0;
        if info.len() > self.ndim() {
            return Err(Error::TooManySlices {
                given: info.len(),
                ndim: self.ndim(),
            });
        }
        let mut shape = self.shape.clone();
        let mut strides = self.strides.clone();
        let mut offset = self.offset as isize;
        for (axis, s) in info.iter().enumerate() {
            let (start, extent) = s.resolve(axis, self.shape[axis])?;
            if extent > 0 {
                offset += start as isize * self.strides[axis];
            }
            shape[axis] = extent;
            // Saturating: a step past the axis leaves one element, whose stride is unused.
            strides[axis] = strides[axis].saturating_mul(s.step);
        }
        // The first element of a non-empty view lies in the buffer (`start` is within the
        // axis); an empty one keeps an offset that addresses nothing.
        let offset = offset.max(0) as usize;
        Ok(self.view(shape, strides, offset))
    }

    /// A view sliced along one axis (negative counts from the end).
    ///
    /// # Errors
    /// [`Error::AxisOutOfRange`], [`Error::SliceOutOfRange`]; [`Error::InvalidArgument`]
    /// for several axes or all (`..`).
    ///
    /// ```
    /// use gpuarray::Slice;
    /// # let dev = gpuarray::Device::new()?;
    /// let x = dev.arange::<i32>(0, 6, 1)?.reshape([2, 3])?;
    /// assert_eq!(x.slice_axis(1, Slice::from(1..))?.to_vec()?, vec![1, 2, 4, 5]);
    /// assert_eq!(x.slice_axis(-1, ..2)?.to_vec()?, vec![0, 1, 3, 4]);
    /// # Ok::<(), gpuarray::Error>(())
    /// ```
    pub fn slice_axis(&self, axis: impl Into<Axes>, s: impl Into<Slice>) -> Result<Array<T>> {
        let axis = axis.into().resolve_single(self.ndim(), "slice_axis")?;
        let mut info = vec![Slice::from(..); axis + 1];
        info[axis] = s.into();
        self.slice(info)
    }

    /// The array as a contiguous one (row-major, offset 0): NumPy's `ascontiguousarray`. A
    /// strided or offset view is copied into a new array; an array already contiguous from
    /// offset 0 is returned as another handle of the same buffer (no copy, as NumPy), so a
    /// write into either ([`Array::fill`], [`Array::assign`]) is seen through both. For an
    /// independent array use an operation that returns a new one, such as [`Array::cast`]
    /// to the same type.
    ///
    /// # Errors
    /// [`Error::OutOfMemory`] when the copy does not fit.
    ///
    /// ```
    /// # let dev = gpuarray::Device::new()?;
    /// let x = dev.zeros::<f32>([3, 2])?.t();
    /// let c = x.contiguous()?;
    /// assert!(c.is_contiguous() && c.strides() == &[3, 1]);
    /// # Ok::<(), gpuarray::Error>(())
    /// ```
    pub fn contiguous(&self) -> Result<Array<T>> {
        if self.is_contiguous() && self.offset == 0 {
            // The same elements with C-order strides: a contiguous layout may still carry
            // a negative or odd stride on an axis of extent 1 (or any stride when empty),
            // which callers of `contiguous` must not see.
            let strides = crate::shape::contiguous_strides(&self.shape);
            return Ok(self.view(self.shape.clone(), strides, 0));
        }
        map_unary::<T, T>(self, Unary::Copy, &[])
    }

    /// The elements converted to `U`, as Rust's `as` converts, exactly on every adapter:
    /// floats to integers round toward zero and saturate (infinities to the limits, NaN to
    /// 0); integers to floats and floats to narrower floats round once to nearest, ties to
    /// even, overflowing to infinity (to f16, which `as` does not reach, as the `half`
    /// crate rounds: -65520 and below become -inf, `i32::MIN` too).
    ///
    /// Always a new array, also to the same type (NumPy's `astype`, which copies by default).
    ///
    /// # Errors
    /// [`Error::Unsupported`] when the adapter lacks `U`.
    ///
    /// ```
    /// # let dev = gpuarray::Device::new()?;
    /// let x = dev.from_slice(&[1.7f32, -2.2, 3.0], [3])?;
    /// assert_eq!(x.cast::<i32>()?.to_vec()?, vec![1, -2, 3]);
    /// # Ok::<(), gpuarray::Error>(())
    /// ```
    pub fn cast<U: Element>(&self) -> Result<Array<U>> {
        if T::DTYPE.is_complex() || U::DTYPE.is_complex() {
            return crate::ops::elementwise::cast_complex(self);
        }
        map_unary::<T, U>(self, Unary::Cast, &[])
    }
}
