//! Moving data between host and device.

use std::future::Future;

use crate::array::Array;
use crate::device::Device;
use crate::dtype::Element;
use crate::error::{Error, Result};
use crate::ops::elementwise::{map_unary_into, Unary};

/// Reads of at most this many bytes take [`Array::read_small`] where the adapter allows.
const SMALL_READ: usize = 256 << 10;
use crate::shape::{checked_len, Shape};

impl Device {
    /// Copies host data into a new array of the given shape (row-major).
    ///
    /// # Errors
    /// [`Error::SizeMismatch`] when `data.len()` differs from the shape's element count;
    /// [`Error::Unsupported`] when the adapter lacks `T`; [`Error::OutOfMemory`].
    ///
    /// ```
    /// # let dev = gpuarray::Device::new()?;
    /// let x = dev.from_slice(&[1.0f32, 2.0, 3.0, 4.0], [2, 2])?;
    /// assert_eq!(x.to_vec()?, vec![1.0, 2.0, 3.0, 4.0]);
    /// assert!(dev.from_slice(&[1.0f32, 2.0, 3.0], [2, 2]).is_err());
    /// # Ok::<(), gpuarray::Error>(())
    /// ```
    pub fn from_slice<T: Element>(&self, data: &[T], shape: impl Into<Shape>) -> Result<Array<T>> {
        let shape = shape.into().0;
        let n = checked_len(&shape, T::DTYPE.size())?;
        if n != data.len() {
            return Err(Error::SizeMismatch {
                shape,
                expected: n,
                actual: data.len(),
            });
        }
        let a = Array::<T>::alloc(self, "from_slice", shape)?;
        self.upload(&a.buf, 0, bytemuck::cast_slice(data))?;
        Ok(a)
    }
}

impl<T: Element> Array<T> {
    /// Small reads on adapters with host-visible storage: a copy kernel (which also makes
    /// strided views contiguous) writes a host-visible buffer that the host maps. One
    /// compute pass and no copy command: the lowest latency for small results.
    fn read_small(&self) -> Result<Option<Vec<T>>> {
        if !self.dev.has_readback() || self.is_empty() || self.len() * T::DTYPE.size() > SMALL_READ
        {
            return Ok(None);
        }
        let tmp = Array::<T>::alloc_with(&self.dev, "to_vec", self.shape.clone(), |bytes| {
            self.dev.alloc_readback(bytes)
        })?;
        let tmp = map_unary_into(self, Unary::Copy, &[], tmp)?;
        let mut out = vec![T::zero(); self.len()];
        self.dev
            .download_mapped(&tmp.buf, 0, bytemuck::cast_slice_mut(&mut out), false)?;
        Ok(Some(out))
    }

    /// Downloads the array, waiting for the work that makes it.
    fn read(&self) -> Result<Vec<T>> {
        self.dev.check()?;
        if self.is_empty() {
            return Ok(Vec::new());
        }
        if let Some(v) = self.read_small()? {
            return Ok(v);
        }
        if !self.is_contiguous() {
            return self.contiguous()?.read();
        }
        let mut out = vec![T::zero(); self.len()];
        let size = T::DTYPE.size();
        self.dev.download(
            &self.buf,
            (self.offset * size) as u64,
            bytemuck::cast_slice_mut(&mut out),
        )?;
        Ok(out)
    }

    /// Copies the elements to the host in row-major order, waiting for pending work.
    ///
    /// # Errors
    /// [`Error::DeviceLost`], [`Error::Map`], [`Error::OutOfMemory`] (for the staging copy).
    ///
    /// ```
    /// # let dev = gpuarray::Device::new()?;
    /// let x = dev.arange::<i32>(0, 4, 1)?;
    /// assert_eq!(x.to_vec()?, vec![0, 1, 2, 3]);
    /// # Ok::<(), gpuarray::Error>(())
    /// ```
    pub fn to_vec(&self) -> Result<Vec<T>> {
        self.read()
    }

    /// Like [`Array::to_vec`], but returns a future; the wait runs on a helper thread. The
    /// work to read is submitted before this returns.
    ///
    /// ```
    /// # let dev = gpuarray::Device::new()?;
    /// let x = dev.full::<f32>([3], 2.5)?;
    /// let v = pollster::block_on(x.to_vec_async())?;
    /// assert_eq!(v, vec![2.5; 3]);
    /// # Ok::<(), gpuarray::Error>(())
    /// ```
    pub fn to_vec_async(&self) -> impl Future<Output = Result<Vec<T>>> + Send + 'static {
        let (tx, rx) = futures_intrusive::channel::shared::oneshot_channel();
        match self.dev.flush().map(|_| self.clone()) {
            Err(e) => {
                let _ = tx.send(Err(e));
            }
            Ok(a) => {
                let reader = a.clone();
                let tx = std::sync::Arc::new(tx);
                let tx2 = tx.clone();
                let spawned = std::thread::Builder::new()
                    .name("gpuarray read".into())
                    .spawn(move || {
                        let _ = tx2.send(reader.read());
                    });
                // No thread to be had: read here instead (the future is then ready at once).
                if spawned.is_err() {
                    let _ = tx.send(a.read());
                }
            }
        }
        async move {
            rx.receive()
                .await
                .unwrap_or_else(|| Err(Error::Map("the reading thread ended early".into())))
        }
    }

    /// The single element of a one-element array (of any shape).
    ///
    /// # Errors
    /// [`Error::NotScalar`] unless the array holds exactly one element.
    ///
    /// ```
    /// # let dev = gpuarray::Device::new()?;
    /// assert_eq!(dev.full::<u32>([1, 1], 7)?.to_scalar()?, 7);
    /// assert!(dev.zeros::<u32>([2])?.to_scalar().is_err());
    /// # Ok::<(), gpuarray::Error>(())
    /// ```
    pub fn to_scalar(&self) -> Result<T> {
        if self.len() != 1 {
            return Err(Error::NotScalar { len: self.len() });
        }
        Ok(self.to_vec()?[0])
    }
}
