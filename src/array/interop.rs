//! Conversions to and from other representations: raw bytes (any `bytemuck::Pod` element)
//! and, with the `ndarray` feature, `ndarray` arrays and views of any layout.

use crate::array::Array;
use crate::device::Device;
use crate::dtype::Element;
use crate::error::{Error, Result};
use crate::shape::{checked_len, Shape};

impl Device {
    /// A new array from raw bytes: the elements in row-major order, each in the host's byte
    /// order (what [`Array::to_bytes`] returns). The bytes need no alignment.
    ///
    /// # Errors
    /// [`Error::SizeMismatch`] when `bytes.len()` is not the shape's element count times
    /// the element size (`expected` and `actual` count bytes);
    /// [`Error::Unsupported`] when the adapter lacks `T`; [`Error::OutOfMemory`].
    ///
    /// ```
    /// # let dev = gpuarray::Device::new()?;
    /// let bytes: Vec<u8> = [1.5f32, -2.0].iter().flat_map(|v| v.to_ne_bytes()).collect();
    /// let x = dev.from_bytes::<f32>(&bytes, [2])?;
    /// assert_eq!(x.to_vec()?, vec![1.5, -2.0]);
    /// assert_eq!(x.to_bytes()?, bytes);
    /// assert!(dev.from_bytes::<f32>(&bytes[..7], [2]).is_err());
    /// # Ok::<(), gpuarray::Error>(())
    /// ```
    pub fn from_bytes<T: Element + bytemuck::Pod>(
        &self,
        bytes: &[u8],
        shape: impl Into<Shape>,
    ) -> Result<Array<T>> {
        let shape = shape.into().0;
        let size = std::mem::size_of::<T>();
        let n = checked_len(&shape, size)?;
        if bytes.len() != n * size {
            return Err(Error::SizeMismatch {
                shape,
                expected: n * size,
                actual: bytes.len(),
            });
        }
        // Copied element by element so that unaligned input is accepted.
        let data: Vec<T> = bytes
            .chunks_exact(size)
            .map(bytemuck::pod_read_unaligned)
            .collect();
        self.from_slice(&data, shape)
    }
}

impl<T: Element + bytemuck::Pod> Array<T> {
    /// The elements as raw bytes, row-major, each in the host's byte order; waits for the
    /// work that makes the array. [`Device::from_bytes`] reads them back.
    ///
    /// # Errors
    /// As [`Array::to_vec`].
    ///
    /// ```
    /// # let dev = gpuarray::Device::new()?;
    /// let x = dev.from_slice(&[1u32, 2, 3, 4], [2, 2])?;
    /// let b = x.t().to_bytes()?;
    /// assert_eq!(b.len(), 16);
    /// assert_eq!(&b[4..8], &3u32.to_ne_bytes());
    /// # Ok::<(), gpuarray::Error>(())
    /// ```
    pub fn to_bytes(&self) -> Result<Vec<u8>> {
        Ok(bytemuck::cast_slice(&self.to_vec()?).to_vec())
    }
}

#[cfg(feature = "ndarray")]
mod nd {
    use ndarray::{ArrayBase, ArrayD, Data, Dimension, IxDyn};

    use super::*;

    impl Device {
        /// A new device array from an `ndarray` array or view of any layout (feature
        /// `ndarray`).
        ///
        /// A row-major array is uploaded as it is. An array whose elements fill one block
        /// of memory in another order (a transposed or column-major array) is uploaded as
        /// that block, and the result is a strided view of it with the same strides (negative
        /// ones too: a reversed array stays a reversed view), with no reordering on the host.
        /// Anything else (slices with steps, broadcast views) is gathered on the host first.
        ///
        /// # Errors
        /// [`Error::Unsupported`] when the adapter lacks `T`; [`Error::OutOfMemory`].
        ///
        /// ```
        /// # let dev = gpuarray::Device::new()?;
        /// let a = ndarray::array![[1.0f32, 2.0, 3.0], [4.0, 5.0, 6.0]];
        /// let x = dev.from_ndarray(&a.t())?;
        /// assert_eq!(x.shape(), &[3, 2]);
        /// assert_eq!(x.to_ndarray()?, a.t().into_dyn());
        /// let r = dev.from_ndarray(&a.slice(ndarray::s![.., ..;-1]))?;
        /// assert_eq!((r.strides(), r.to_vec()?), (&[3, -1][..], vec![3.0, 2.0, 1.0, 6.0, 5.0, 4.0]));
        /// # Ok::<(), gpuarray::Error>(())
        /// ```
        pub fn from_ndarray<T, S, D>(&self, a: &ArrayBase<S, D>) -> Result<Array<T>>
        where
            T: Element,
            S: Data<Elem = T>,
            D: Dimension,
        {
            let shape = a.shape().to_vec();
            if let Some(s) = a.as_slice() {
                return self.from_slice(s, shape);
            }
            if let Some(block) = a.as_slice_memory_order() {
                // The block starts at the lowest element; negative strides (reversed
                // axes) put the first element above it.
                let flat = self.from_slice(block, [block.len()])?;
                let strides = a.strides().to_vec();
                let first = -crate::shape::reach(&shape, &strides).0;
                return Ok(flat.view(shape, strides, first as usize));
            }
            let data: Vec<T> = a.iter().copied().collect();
            self.from_slice(&data, shape)
        }
    }

    impl<T: Element> Array<T> {
        /// The elements as a row-major `ndarray::ArrayD` (feature `ndarray`); waits for the
        /// work that makes the array.
        ///
        /// # Errors
        /// As [`Array::to_vec`].
        ///
        /// ```
        /// # let dev = gpuarray::Device::new()?;
        /// let x = dev.arange::<i32>(0, 6, 1)?.reshape([2, 3])?;
        /// let a = x.to_ndarray()?;
        /// assert_eq!(a[[1, 2]], 5);
        /// # Ok::<(), gpuarray::Error>(())
        /// ```
        pub fn to_ndarray(&self) -> Result<ArrayD<T>> {
            let v = self.to_vec()?;
            Ok(ArrayD::from_shape_vec(IxDyn(&self.shape), v)
                .expect("to_vec returns exactly the shape's element count"))
        }
    }
}
