//! Creation from another array's shape (`*_like`), without initial values (`empty`), the
//! identity, and a deep `copy`.

use crate::array::Array;
use crate::device::Device;
use crate::dtype::Element;
use crate::error::Result;
use crate::ops::elementwise::{map_unary, Unary};
use crate::shape::Shape;

impl Device {
    /// An array whose contents are unspecified (NumPy's `empty`); in practice zeros or
    /// values of earlier arrays whose memory the pool reuses. Write it before reading it.
    ///
    /// # Errors
    /// [`crate::Error::Unsupported`] when the adapter lacks `T`;
    /// [`crate::Error::OutOfMemory`].
    ///
    /// ```
    /// # let dev = gpuarray::Device::new()?;
    /// assert_eq!(dev.empty::<f32>([2, 3])?.shape(), &[2, 3]);
    /// # Ok::<(), gpuarray::Error>(())
    /// ```
    pub fn empty<T: Element>(&self, shape: impl Into<Shape>) -> Result<Array<T>> {
        if T::DTYPE.is_complex() {
            return Array::<T>::alloc_any(self, "empty", shape.into().0, |b| self.alloc(b));
        }
        Array::<T>::alloc(self, "empty", shape.into().0)
    }

    /// The `n` x `n` identity matrix (NumPy's `identity`; as [`Device::eye`]).
    ///
    /// # Errors
    /// As [`Device::empty`].
    ///
    /// ```
    /// # let dev = gpuarray::Device::new()?;
    /// assert_eq!(dev.identity::<i32>(2)?.to_vec()?, vec![1, 0, 0, 1]);
    /// # Ok::<(), gpuarray::Error>(())
    /// ```
    pub fn identity<T: Element>(&self, n: usize) -> Result<Array<T>> {
        self.eye(n)
    }
}

impl<T: Element> Array<T> {
    /// Zeros of this array's shape and type, on its device (NumPy's `zeros_like`).
    ///
    /// # Errors
    /// [`crate::Error::OutOfMemory`].
    ///
    /// ```
    /// # let dev = gpuarray::Device::new()?;
    /// let x = dev.ones::<f32>([2])?;
    /// assert_eq!(x.zeros_like()?.to_vec()?, vec![0.0, 0.0]);
    /// # Ok::<(), gpuarray::Error>(())
    /// ```
    pub fn zeros_like(&self) -> Result<Array<T>> {
        self.dev.zeros(self.dim())
    }

    /// Ones of this array's shape and type (NumPy's `ones_like`).
    ///
    /// # Errors
    /// [`crate::Error::OutOfMemory`].
    ///
    /// ```
    /// # let dev = gpuarray::Device::new()?;
    /// assert_eq!(dev.zeros::<i32>([2])?.ones_like()?.to_vec()?, vec![1, 1]);
    /// # Ok::<(), gpuarray::Error>(())
    /// ```
    pub fn ones_like(&self) -> Result<Array<T>>
    where
        T: crate::dtype::Real,
    {
        self.dev.ones(self.dim())
    }

    /// An array of this shape and type with unspecified contents (NumPy's `empty_like`).
    ///
    /// # Errors
    /// [`crate::Error::OutOfMemory`].
    ///
    /// ```
    /// # let dev = gpuarray::Device::new()?;
    /// let x = dev.zeros::<f32>([3, 2])?.t();
    /// assert_eq!(x.empty_like()?.shape(), &[2, 3]);
    /// # Ok::<(), gpuarray::Error>(())
    /// ```
    pub fn empty_like(&self) -> Result<Array<T>> {
        self.dev.empty(self.dim())
    }

    /// `value` in an array of this shape and type (NumPy's `full_like`).
    ///
    /// # Errors
    /// [`crate::Error::OutOfMemory`].
    ///
    /// ```
    /// # let dev = gpuarray::Device::new()?;
    /// assert_eq!(dev.zeros::<f32>([2])?.full_like(2.5)?.to_vec()?, vec![2.5, 2.5]);
    /// # Ok::<(), gpuarray::Error>(())
    /// ```
    pub fn full_like(&self, value: T) -> Result<Array<T>> {
        self.dev.full(self.dim(), value)
    }

    /// A deep copy: a new contiguous array holding the elements, sharing nothing (`clone`
    /// shares the buffer).
    ///
    /// # Errors
    /// [`crate::Error::OutOfMemory`].
    ///
    /// ```
    /// # let dev = gpuarray::Device::new()?;
    /// let x = dev.from_slice(&[1, 2, 3, 4], [2, 2])?;
    /// let c = x.t().copy()?;
    /// assert!(c.is_contiguous() && c.to_vec()? == vec![1, 3, 2, 4]);
    /// # Ok::<(), gpuarray::Error>(())
    /// ```
    pub fn copy(&self) -> Result<Array<T>> {
        map_unary::<T, T>(self, Unary::Copy, &[])
    }
}
