//! [`Array<T>`]: a strided view of a pooled device buffer.

pub(crate) mod complex;
pub(crate) mod creation;
mod creation_like;
#[cfg(feature = "image")]
mod image;
mod interop;
mod print;
mod transfer;
mod view;

#[cfg(feature = "image")]
pub use self::image::{Gray16Image, GrayImage};
pub use print::{DisplayWith, PrintOptions};

use std::marker::PhantomData;
use std::sync::Arc;

use crate::device::Device;
use crate::dtype::{DType, Element};
use crate::error::{Error, Result};
use crate::kernel::launch::Binding;
use crate::memory::pool::BufferHandle;
use crate::shape::{checked_len, contiguous_strides, forwards, is_contiguous, reach, Shape};

/// An n-dimensional array of `T` on a [`Device`].
///
/// An array is a view: a shared device buffer plus shape, strides and offset (in elements).
/// Views (`reshape`, `t`, `transpose`, `broadcast_to`, `slice`) share the buffer and copy
/// nothing; `clone` is cheap and shares it too. Operations are asynchronous: they record
/// work and return; reading back (`to_vec`) waits for it.
///
/// ```
/// # fn main() -> gpuarray::Result<()> {
/// let dev = gpuarray::Device::new()?;
/// let a = dev.arange::<f32>(0.0, 6.0, 1.0)?.reshape([2, 3])?;
/// assert_eq!(a.shape(), &[2, 3]);
/// assert_eq!(a.t().to_vec()?, vec![0.0, 3.0, 1.0, 4.0, 2.0, 5.0]);
/// # Ok(()) }
/// ```
pub struct Array<T: Element> {
    pub(crate) dev: Device,
    pub(crate) buf: Arc<BufferHandle>,
    pub(crate) shape: Vec<usize>,
    pub(crate) strides: Vec<isize>,
    pub(crate) offset: usize,
    _t: PhantomData<T>,
}

impl<T: Element> Clone for Array<T> {
    fn clone(&self) -> Self {
        Array {
            dev: self.dev.clone(),
            buf: self.buf.clone(),
            shape: self.shape.clone(),
            strides: self.strides.clone(),
            offset: self.offset,
            _t: PhantomData,
        }
    }
}

impl<T: Element> Array<T> {
    /// The same view read as `U`, an element type of the same size (bool and u32).
    pub(crate) fn reinterpret<U: Element>(&self) -> Array<U> {
        assert_eq!(
            T::DTYPE.size(),
            U::DTYPE.size(),
            "reinterpret: sizes differ"
        );
        Array {
            dev: self.dev.clone(),
            buf: self.buf.clone(),
            shape: self.shape.clone(),
            strides: self.strides.clone(),
            offset: self.offset,
            _t: PhantomData,
        }
    }

    /// A new contiguous array with undefined contents.
    pub(crate) fn alloc(dev: &Device, op: &'static str, shape: Vec<usize>) -> Result<Array<T>> {
        Self::alloc_with(dev, op, shape, |bytes| dev.alloc(bytes))
    }

    /// A new contiguous array with undefined contents, in a buffer from `alloc`.
    pub(crate) fn alloc_with(
        dev: &Device,
        op: &'static str,
        shape: Vec<usize>,
        alloc: impl FnOnce(u64) -> Result<BufferHandle>,
    ) -> Result<Array<T>> {
        dev.require(op, T::DTYPE)?;
        Self::alloc_any(dev, op, shape, alloc)
    }

    /// [`Array::alloc_with`] for the packed types too (their writers are the packed family,
    /// creation and the uploads): a buffer of whole words, `ceil(len * size / 4)` of them.
    pub(crate) fn alloc_any(
        dev: &Device,
        op: &'static str,
        shape: Vec<usize>,
        alloc: impl FnOnce(u64) -> Result<BufferHandle>,
    ) -> Result<Array<T>> {
        dev.require_storage(op, T::DTYPE)?;
        dev.check()?;
        let len = checked_len(&shape, T::DTYPE.size())?;
        if len > u32::MAX as usize {
            return Err(Error::BufferTooLarge {
                requested: (len as u64).saturating_mul(T::DTYPE.size() as u64),
                max: u32::MAX as u64,
            });
        }
        let bytes = ((len * T::DTYPE.size()) as u64).div_ceil(4) * 4;
        let buf = alloc(bytes)?;
        let strides = contiguous_strides(&shape);
        Ok(Array {
            dev: dev.clone(),
            buf: Arc::new(buf),
            shape,
            strides,
            offset: 0,
            _t: PhantomData,
        })
    }

    /// A view of the same buffer with another layout.
    pub(crate) fn view(&self, shape: Vec<usize>, strides: Vec<isize>, offset: usize) -> Array<T> {
        Array {
            dev: self.dev.clone(),
            buf: self.buf.clone(),
            shape,
            strides,
            offset,
            _t: PhantomData,
        }
    }

    /// The bytes of the buffer the view reaches, from its start (to its highest element;
    /// negative strides reach below `offset`, never below the buffer's start).
    pub(crate) fn binding(&self) -> Binding<'_> {
        let span = if self.is_empty() {
            0
        } else {
            1 + reach(&self.shape, &self.strides).1 as usize
        };
        Binding {
            buffer: &self.buf,
            bytes: ((self.offset + span) * T::DTYPE.size()) as u64,
            window: 0,
        }
    }

    /// Whether no stride is negative (the plans that reason about unsigned strides take
    /// such views; others copy first).
    pub(crate) fn is_forwards(&self) -> bool {
        forwards(&self.strides)
    }

    /// The device the array lives on.
    ///
    /// ```
    /// # let dev = gpuarray::Device::new()?;
    /// let x = dev.zeros::<f32>([3])?;
    /// assert_eq!(x.device().info().name, dev.info().name);
    /// # Ok::<(), gpuarray::Error>(())
    /// ```
    pub fn device(&self) -> &Device {
        &self.dev
    }

    /// The element type.
    ///
    /// ```
    /// # let dev = gpuarray::Device::new()?;
    /// assert_eq!(dev.zeros::<i32>([3])?.dtype(), gpuarray::DType::I32);
    /// # Ok::<(), gpuarray::Error>(())
    /// ```
    pub fn dtype(&self) -> DType {
        T::DTYPE
    }

    /// Extents, outermost first.
    ///
    /// ```
    /// # let dev = gpuarray::Device::new()?;
    /// assert_eq!(dev.zeros::<f32>([2, 5])?.shape(), &[2, 5]);
    /// # Ok::<(), gpuarray::Error>(())
    /// ```
    pub fn shape(&self) -> &[usize] {
        &self.shape
    }

    /// Strides in elements (0 along broadcast axes, negative along reversed ones).
    ///
    /// ```
    /// # let dev = gpuarray::Device::new()?;
    /// let x = dev.zeros::<f32>([2, 5])?;
    /// assert_eq!(x.strides(), &[5, 1]);
    /// assert_eq!(x.t().strides(), &[1, 5]);
    /// assert_eq!(x.slice([gpuarray::Slice::from(..).step(-1)])?.strides(), &[-5, 1]);
    /// # Ok::<(), gpuarray::Error>(())
    /// ```
    pub fn strides(&self) -> &[isize] {
        &self.strides
    }

    /// Offset of the first element (index 0 along every axis) in the buffer, in elements;
    /// with negative strides, other elements lie below it.
    ///
    /// ```
    /// # let dev = gpuarray::Device::new()?;
    /// let x = dev.zeros::<f32>([10])?;
    /// assert_eq!(x.slice(3..)?.offset(), 3);
    /// # Ok::<(), gpuarray::Error>(())
    /// ```
    pub fn offset(&self) -> usize {
        self.offset
    }

    /// Number of dimensions.
    ///
    /// ```
    /// # let dev = gpuarray::Device::new()?;
    /// assert_eq!(dev.zeros::<f32>([2, 3, 4])?.ndim(), 3);
    /// # Ok::<(), gpuarray::Error>(())
    /// ```
    pub fn ndim(&self) -> usize {
        self.shape.len()
    }

    /// Number of elements.
    ///
    /// ```
    /// # let dev = gpuarray::Device::new()?;
    /// assert_eq!(dev.zeros::<f32>([2, 3])?.len(), 6);
    /// # Ok::<(), gpuarray::Error>(())
    /// ```
    pub fn len(&self) -> usize {
        self.shape.iter().product()
    }

    /// Whether the array has no elements.
    ///
    /// ```
    /// # let dev = gpuarray::Device::new()?;
    /// assert!(dev.zeros::<f32>([0, 3])?.is_empty());
    /// # Ok::<(), gpuarray::Error>(())
    /// ```
    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }

    /// The shape as a [`Shape`].
    ///
    /// ```
    /// # let dev = gpuarray::Device::new()?;
    /// assert_eq!(dev.zeros::<f32>([4])?.dim(), gpuarray::Shape::from([4]));
    /// # Ok::<(), gpuarray::Error>(())
    /// ```
    pub fn dim(&self) -> Shape {
        Shape(self.shape.clone())
    }

    /// Whether the elements are laid out row-major without gaps (views may have an offset).
    ///
    /// ```
    /// # let dev = gpuarray::Device::new()?;
    /// let x = dev.zeros::<f32>([2, 3])?;
    /// assert!(x.is_contiguous());
    /// assert!(!x.t().is_contiguous());
    /// # Ok::<(), gpuarray::Error>(())
    /// ```
    pub fn is_contiguous(&self) -> bool {
        is_contiguous(&self.shape, &self.strides)
    }
}

impl Array<u32> {
    /// The buffer of this contiguous, offset-0 array of `2 * len(shape)` words read as the
    /// i64 array `shape` (word pairs, low first): how index arrays are produced without
    /// SHADER_INT64 (src/ops/index/widen.rs).
    pub(crate) fn pairs_as_i64(&self, shape: Vec<usize>) -> Array<i64> {
        debug_assert!(self.is_contiguous() && self.offset == 0);
        debug_assert_eq!(self.len(), 2 * shape.iter().product::<usize>());
        Array {
            dev: self.dev.clone(),
            buf: self.buf.clone(),
            strides: contiguous_strides(&shape),
            shape,
            offset: 0,
            _t: PhantomData,
        }
    }
}
