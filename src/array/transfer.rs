//! Moving data between host and device.

use std::collections::VecDeque;
use std::future::Future;
use std::sync::mpsc;

use crate::array::Array;
use crate::device::Device;
use crate::dtype::Element;
use crate::error::{Error, Result};
use crate::memory::pool::BufferHandle;
use crate::ops::elementwise::{map_unary, map_unary_into, Unary};

/// Reads of at most this many bytes take [`Array::read_small`] where the adapter allows.
const SMALL_READ: usize = 256 << 10;
/// Bytes per chunk of a copy between devices ([`Array::to_device`]).
pub(crate) const DEVICE_CHUNK: usize = 4 << 20;
/// Chunks of a copy between devices whose upload may still be queued on the target.
const IN_FLIGHT: usize = 2;
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
        let a = Array::<T>::alloc_any(self, "from_slice", shape, |bytes| self.alloc(bytes))?;
        self.upload(&a.buf, 0, bytemuck::cast_slice(&T::to_repr(data)))?;
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
        // Index arrays (i64) on an adapter without SHADER_INT64: no copy kernel, a download.
        if !self.dev.supports_dtype(T::DTYPE) {
            return Ok(None);
        }
        let tmp = Array::<T>::alloc_any(&self.dev, "to_vec", self.shape.clone(), |bytes| {
            self.dev.alloc_readback(bytes)
        })?;
        // Complex elements by the manip copy (map_unary_into takes the real dtypes).
        let tmp = if T::DTYPE.is_complex() {
            let strides = tmp.strides.clone();
            crate::ops::manip::copy_into(self, &tmp, 0, &strides)?;
            tmp
        } else {
            map_unary_into(self, Unary::Copy, &[], tmp)?
        };
        let mut out = vec![<T::Repr as bytemuck::Zeroable>::zeroed(); self.len()];
        self.dev
            .download_mapped(&tmp.buf, 0, bytemuck::cast_slice_mut(&mut out), false)?;
        Ok(Some(T::from_repr(out)))
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
        let mut out = vec![<T::Repr as bytemuck::Zeroable>::zeroed(); self.len()];
        let size = T::DTYPE.size();
        self.dev.download(
            &self.buf,
            (self.offset * size) as u64,
            bytemuck::cast_slice_mut(&mut out),
        )?;
        Ok(T::from_repr(out))
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
    pub fn to_vec_async(&self) -> impl Future<Output = Result<Vec<T>>> + Send + 'static + use<T> {
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

impl<T: Element> Array<T> {
    /// A copy of the array on `target`, contiguous, in row-major order (views with strides
    /// and offsets are made contiguous on their own device first). On the array's own
    /// device it is a new copy (never a second handle of the same buffer).
    ///
    /// WebGPU has no copy between two devices: the bytes go through the host in chunks of
    /// 4 MiB, pipelined. A helper thread reads chunk i+1 from this device (a copy into a
    /// pooled staging buffer, mapped once done) while this thread writes chunk i into the
    /// target's staging and queues its copy there; at most two chunks wait in the target's
    /// queue and two in host memory, so memory stays bounded whatever the size.
    ///
    /// # Errors
    /// [`Error::Unsupported`] when the target lacks `T`, [`Error::DeviceLost`] when
    /// either device is lost or destroyed, [`Error::OutOfMemory`] on the target; nothing
    /// of this array changes.
    ///
    /// ```
    /// use gpuarray::Device;
    /// let a = Device::open(0)?;
    /// let b = Device::open(0)?; // a second device of the same adapter
    /// let x = a.arange::<f32>(0.0, 6.0, 1.0)?.reshape([2, 3])?;
    /// let y = x.t().to_device(&b)?;
    /// assert_eq!(y.shape(), &[3, 2]);
    /// assert_eq!(y.to_vec()?, vec![0.0, 3.0, 1.0, 4.0, 2.0, 5.0]);
    /// assert_eq!(y.add(&y)?.sum()?.to_scalar()?, 30.0);
    /// # Ok::<(), gpuarray::Error>(())
    /// ```
    pub fn to_device(&self, target: &Device) -> Result<Array<T>> {
        self.to_device_chunked(target, DEVICE_CHUNK)
    }

    /// [`Array::to_device`] in chunks of `chunk` bytes (a multiple of 8).
    pub(crate) fn to_device_chunked(&self, target: &Device, chunk: usize) -> Result<Array<T>> {
        if self.dev.expect_same("to_device", &[target]).is_ok() {
            return map_unary::<T, T>(self, Unary::Copy, &[]);
        }
        self.dev.check()?;
        let out = Array::<T>::alloc(target, "to_device", self.shape.clone())?;
        if self.is_empty() {
            return Ok(out);
        }
        let src = if self.is_contiguous() {
            self.clone()
        } else {
            self.contiguous()?
        };
        let size = T::DTYPE.size();
        let from = (&self.dev, src.buf.as_ref(), (src.offset * size) as u64);
        copy_between(from, (target, &out.buf, 0), self.len() * size, chunk)?;
        Ok(out)
    }

    /// The arrays (of any devices; equal extents but the first) joined along their first
    /// axis into a new array on `target`: each one a run of bytes, copied as by
    /// [`Array::to_device`]. At least one array.
    pub(crate) fn join_first_axis(parts: &[Array<T>], target: &Device) -> Result<Array<T>> {
        let mut shape = parts[0].shape.clone();
        shape[0] = parts.iter().map(|p| p.shape[0]).sum();
        let out = Array::<T>::alloc(target, "DeviceSet::gather", shape)?;
        let size = T::DTYPE.size();
        // Uploads start at multiples of 4 bytes: odd runs of f16 go through one host copy.
        if size < 4 && parts.iter().rev().skip(1).any(|p| p.len() % 2 == 1) {
            let mut all = Vec::with_capacity(out.len());
            for p in parts {
                all.extend(p.to_vec()?);
            }
            target.upload(&out.buf, 0, bytemuck::cast_slice(&T::to_repr(&all)))?;
            return Ok(out);
        }
        let mut at = 0;
        for p in parts.iter().filter(|p| !p.is_empty()) {
            let src = if p.is_contiguous() {
                p.clone()
            } else {
                p.contiguous()?
            };
            let from = (&p.dev, src.buf.as_ref(), (src.offset * size) as u64);
            copy_between(from, (target, &out.buf, at), p.len() * size, DEVICE_CHUNK)?;
            at += (p.len() * size) as u64;
        }
        Ok(out)
    }
}

/// Copies `bytes` bytes from `(device, buffer, byte offset)` to `(device, buffer, byte
/// offset)` (a multiple of 4), in chunks: a reader thread downloads while this thread
/// uploads. The devices may be the same.
fn copy_between(
    (source, from, base): (&Device, &BufferHandle, u64),
    (target, to, to_base): (&Device, &BufferHandle, u64),
    bytes: usize,
    chunk: usize,
) -> Result<()> {
    if bytes <= chunk {
        // One chunk: nothing to overlap, no thread.
        let mut buf = vec![0; bytes];
        source.download(from, base, &mut buf)?;
        return target.upload(to, to_base, &buf);
    }
    std::thread::scope(|s| {
        // Declared inside the scope: on an early return they drop first, so the reader's
        // next send or receive fails and it ends before the scope joins it.
        let (full_tx, full_rx) = mpsc::sync_channel::<Result<(usize, usize, Vec<u8>)>>(1);
        let (empty_tx, empty_rx) = mpsc::channel::<Vec<u8>>();
        for _ in 0..2 {
            let _ = empty_tx.send(vec![0; chunk.min(bytes)]);
        }
        s.spawn(move || {
            for start in (0..bytes).step_by(chunk) {
                let Ok(mut buf) = empty_rx.recv() else { return };
                let len = chunk.min(bytes - start);
                let r = source.download(from, base + start as u64, &mut buf[..len]);
                let failed = r.is_err();
                if full_tx.send(r.map(|_| (start, len, buf))).is_err() || failed {
                    return;
                }
            }
        });
        let mut marks = VecDeque::new();
        for r in full_rx {
            let (start, len, buf) = r?;
            target.upload(to, to_base + start as u64, &buf[..len])?;
            marks.push_back(target.mark()?);
            if marks.len() > IN_FLIGHT
                && let Some(m) = marks.pop_front()
            {
                target.wait_mark(&m)?;
            }
            let _ = empty_tx.send(buf);
        }
        Ok(())
    })
}
