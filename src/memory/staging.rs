//! Staging buffers between host and device.
//!
//! Uploads write into a pooled MAP_WRITE buffer that stays mapped while idle; the device
//! records a copy from it into its pending batch, and after the batch is submitted the
//! buffer is mapped again and returns to its pool. Downloads copy into a pooled MAP_READ
//! buffer owned by that read alone until it has been copied out, or, on adapters whose
//! storage buffers the host can map (integrated GPUs, lavapipe), map the array's own buffer
//! and skip the copy (`device/transfer.rs` decides and records the copies).

use std::collections::HashMap;
use std::sync::{Arc, Mutex};

use crate::error::{Error, Result};
use crate::gpu::{lock, Gpu};
use crate::memory::pool::size_class;

/// Staging bytes each pool keeps cached; beyond this, buffers are released after use.
const KEEP_BYTES: u64 = 1 << 30;
/// Copies larger than this are split across threads.
const PAR_COPY_CHUNK: usize = 8 << 20;

#[derive(Default)]
struct Cached {
    free: HashMap<u64, Vec<wgpu::Buffer>>,
    bytes: u64,
}

impl Cached {
    fn take(&mut self, class: u64) -> Option<wgpu::Buffer> {
        let b = self.free.get_mut(&class)?.pop()?;
        self.bytes -= class;
        Some(b)
    }
    fn put(&mut self, class: u64, b: wgpu::Buffer) {
        if self.bytes + class <= KEEP_BYTES {
            self.bytes += class;
            self.free.entry(class).or_default().push(b);
        }
    }
}

/// The staging pools of a device.
#[derive(Default)]
pub(crate) struct Staging {
    reads: Mutex<Cached>,
    /// Upload buffers that are mapped and ready to be written.
    writes: Arc<Mutex<Cached>>,
}

pub(crate) fn round4(x: u64) -> u64 {
    x.div_ceil(4) * 4
}

/// Copies `src` into `dst`, on several threads when large.
fn par_copy(dst: &mut [u8], src: &[u8]) {
    // Asked only for large copies: available_parallelism reads cgroup files (tens of us).
    let threads = if src.len() < 2 * PAR_COPY_CHUNK {
        1
    } else {
        std::thread::available_parallelism().map_or(1, |n| n.get().min(8))
    };
    if threads < 2 {
        dst.copy_from_slice(src);
        return;
    }
    let chunk = src.len().div_ceil(threads).div_ceil(4096) * 4096;
    std::thread::scope(|s| {
        for (d, c) in dst.chunks_mut(chunk).zip(src.chunks(chunk)) {
            s.spawn(move || d.copy_from_slice(c));
        }
    });
}

impl Staging {
    /// Returns an upload buffer to its pool once the GPU has finished reading it.
    pub(crate) fn recycle_upload(&self, gpu: &Gpu, buffer: wgpu::Buffer) {
        let pool = self.writes.clone();
        let b = buffer.clone();
        let _gl = gpu.gl_lock();
        buffer.map_async(wgpu::MapMode::Write, .., move |r| {
            if r.is_ok() {
                let class = b.size();
                lock(&pool).put(class, b);
            }
        });
    }
}

impl Staging {
    /// A pooled upload buffer of at least `data.len()` bytes (rounded up to 4) holding
    /// `data`, unmapped and ready to be copied from; and the bytes to copy. `used`: the
    /// bytes the device's arrays hold, for the error if the driver is out of memory.
    pub(crate) fn upload_buffer(
        &self,
        gpu: &Gpu,
        data: &[u8],
        used: u64,
    ) -> Result<(wgpu::Buffer, u64)> {
        let size = round4(data.len() as u64);
        let class = size_class(size);
        gpu.poll(); // collect upload buffers whose copies have finished
        let staging = lock(&self.writes).take(class);
        let staging = match staging {
            Some(b) => b,
            None => gpu.create_buffer(
                &wgpu::BufferDescriptor {
                    label: Some("gpuarray staging"),
                    size: class,
                    usage: wgpu::BufferUsages::MAP_WRITE | wgpu::BufferUsages::COPY_SRC,
                    mapped_at_creation: true,
                },
                used,
            )?,
        };
        {
            let mut view = staging
                .slice(..size)
                .get_mapped_range_mut()
                .map_err(|e| Error::Map(e.to_string()))?;
            view.slice(..data.len()).copy_from_slice(data);
        }
        {
            let _gl = gpu.gl_lock();
            staging.unmap();
        }
        Ok((staging, size))
    }

    /// A pooled MAP_READ buffer of size class `class`, owned by one read until
    /// [`Staging::put_read`]. `used` as for [`Staging::upload_buffer`].
    pub(crate) fn take_read(&self, gpu: &Gpu, class: u64, used: u64) -> Result<wgpu::Buffer> {
        let cached = lock(&self.reads).take(class);
        match cached {
            Some(b) => Ok(b),
            None => gpu.create_buffer(
                &wgpu::BufferDescriptor {
                    label: Some("gpuarray staging"),
                    size: class,
                    usage: wgpu::BufferUsages::MAP_READ | wgpu::BufferUsages::COPY_DST,
                    mapped_at_creation: false,
                },
                used,
            ),
        }
    }

    /// Returns a read buffer to its pool.
    pub(crate) fn put_read(&self, class: u64, buffer: wgpu::Buffer) {
        lock(&self.reads).put(class, buffer);
    }
}

/// Maps `range` of `buffer` once the work up to `index` is done and copies it, from byte
/// `skip` of the range, into `out`.
pub(crate) fn map_and_copy(
    gpu: &Gpu,
    buffer: &wgpu::Buffer,
    range: std::ops::Range<u64>,
    index: Option<wgpu::SubmissionIndex>,
    skip: usize,
    out: &mut [u8],
) -> Result<()> {
    let done: Arc<Mutex<Option<std::result::Result<(), String>>>> = Arc::default();
    let flag = done.clone();
    {
        let _gl = gpu.gl_lock();
        buffer.map_async(wgpu::MapMode::Read, range.clone(), move |r| {
            *lock(&flag) = Some(r.map_err(|e| e.to_string()));
        });
    }
    gpu.wait_until(index, || lock(&done).is_some())?;
    let result = lock(&done).take().unwrap_or(Err("no map result".into()));
    result.map_err(|e| gpu.check().err().unwrap_or(Error::Map(e)))?;
    {
        let view = buffer
            .slice(range)
            .get_mapped_range()
            .map_err(|e| Error::Map(e.to_string()))?;
        par_copy(out, &view[skip..skip + out.len()]);
    }
    let _gl = gpu.gl_lock();
    buffer.unmap();
    Ok(())
}
