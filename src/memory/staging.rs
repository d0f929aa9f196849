//! Staging buffers between host and device.
//!
//! Uploads write into a pooled MAP_WRITE buffer that stays mapped while idle, and record a
//! copy into the pending batch; after the batch is submitted the buffer is mapped again and
//! returns to its pool. Downloads copy into a pooled MAP_READ buffer owned by that read alone
//! until it has been copied out, or, on adapters whose storage buffers the host can map
//! (integrated GPUs, lavapipe), map the array's own buffer and skip the copy.

use std::collections::HashMap;
use std::sync::{Arc, Mutex};

use crate::device::{lock, Device, ScopeError};
use crate::error::{Error, Result};
use crate::memory::pool::{size_class, BufferHandle};

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

fn round4(x: u64) -> u64 {
    x.div_ceil(4) * 4
}

fn create(
    dev: &Device,
    size: u64,
    usage: wgpu::BufferUsages,
    mapped: bool,
) -> Result<wgpu::Buffer> {
    let (buffer, err) = dev.scoped(|d| {
        d.create_buffer(&wgpu::BufferDescriptor {
            label: Some("gpuarray staging"),
            size,
            usage,
            mapped_at_creation: mapped,
        })
    });
    match err {
        None => Ok(buffer),
        Some(ScopeError::OutOfMemory) => Err(Error::OutOfMemory {
            requested: size,
            used: dev.memory_pool().used_bytes(),
            limit: u64::MAX,
        }),
        Some(ScopeError::Validation(m)) => Err(Error::Validation(m)),
    }
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
    pub(crate) fn recycle_upload(&self, buffer: wgpu::Buffer) {
        let pool = self.writes.clone();
        let b = buffer.clone();
        buffer.map_async(wgpu::MapMode::Write, .., move |r| {
            if r.is_ok() {
                let class = b.size();
                lock(&pool).put(class, b);
            }
        });
    }
}

/// Writes `data` into `dst` at byte `offset` (a multiple of 4), through a pooled staging
/// buffer and a copy recorded in the pending batch.
pub(crate) fn upload(dev: &Device, dst: &BufferHandle, offset: u64, data: &[u8]) -> Result<()> {
    if data.is_empty() {
        return Ok(());
    }
    let size = round4(data.len() as u64);
    debug_assert!(offset.is_multiple_of(4) && offset + size <= dst.size());
    let class = size_class(size);
    dev.poll(); // collect upload buffers whose copies have finished
    let staging = lock(&dev.inner.staging.writes).take(class);
    let staging = match staging {
        Some(b) => b,
        None => create(
            dev,
            class,
            wgpu::BufferUsages::MAP_WRITE | wgpu::BufferUsages::COPY_SRC,
            true,
        )?,
    };
    {
        let mut view = staging
            .slice(..size)
            .get_mapped_range_mut()
            .map_err(|e| Error::Map(e.to_string()))?;
        view.slice(..data.len()).copy_from_slice(data);
    }
    staging.unmap();
    let mut batch = dev.batch();
    batch
        .encoder(dev.wgpu())
        .copy_buffer_to_buffer(&staging, 0, dst.buffer(), offset, size);
    batch.add_upload(staging);
    Ok(())
}

/// Copies `out.len()` bytes starting at byte `offset` of `src` to the host. Submits the
/// pending work and waits for it.
pub(crate) fn download(
    dev: &Device,
    src: &BufferHandle,
    offset: u64,
    out: &mut [u8],
) -> Result<()> {
    if out.is_empty() {
        return dev.flush().map(|_| ());
    }
    let len = out.len() as u64;
    if dev.inner.mappable_storage {
        return download_mapped(dev, src, offset, out, true);
    }
    let start = offset & !3;
    let size = round4(offset + len) - start;
    let class = size_class(size);
    let staging = lock(&dev.inner.staging.reads).take(class);
    let staging = match staging {
        Some(b) => b,
        None => create(
            dev,
            class,
            wgpu::BufferUsages::MAP_READ | wgpu::BufferUsages::COPY_DST,
            false,
        )?,
    };
    let index = {
        let mut batch = dev.batch();
        batch
            .encoder(dev.wgpu())
            .copy_buffer_to_buffer(src.buffer(), start, &staging, 0, size);
        dev.submit_locked(&mut batch)
    };
    let r = map_and_copy(
        dev,
        &staging,
        0..size,
        index,
        (offset - start) as usize,
        out,
    );
    lock(&dev.inner.staging.reads).put(class, staging);
    r
}

/// Copies bytes from a host-mappable buffer: submits the pending work, maps `src` once it
/// is done, copies out. `shared`: other arrays may use the buffer, so the batch stays locked
/// while it is mapped and no other thread can submit work that uses it meanwhile.
pub(crate) fn download_mapped(
    dev: &Device,
    src: &BufferHandle,
    offset: u64,
    out: &mut [u8],
    shared: bool,
) -> Result<()> {
    let start = offset & !7;
    let end = round4(offset + out.len() as u64);
    let skip = (offset - start) as usize;
    let mut batch = dev.batch();
    let index = dev.submit_locked(&mut batch);
    if shared {
        let r = map_and_copy(dev, src.buffer(), start..end, index, skip, out);
        drop(batch);
        r
    } else {
        drop(batch);
        map_and_copy(dev, src.buffer(), start..end, index, skip, out)
    }
}

fn map_and_copy(
    dev: &Device,
    buffer: &wgpu::Buffer,
    range: std::ops::Range<u64>,
    index: Option<wgpu::SubmissionIndex>,
    skip: usize,
    out: &mut [u8],
) -> Result<()> {
    let done: Arc<Mutex<Option<std::result::Result<(), String>>>> = Arc::default();
    let flag = done.clone();
    buffer.map_async(wgpu::MapMode::Read, range.clone(), move |r| {
        *lock(&flag) = Some(r.map_err(|e| e.to_string()));
    });
    dev.wait_until(index, || lock(&done).is_some())?;
    let result = lock(&done).take().unwrap_or(Err("no map result".into()));
    result.map_err(|e| dev.check().err().unwrap_or(Error::Map(e)))?;
    {
        let view = buffer
            .slice(range)
            .get_mapped_range()
            .map_err(|e| Error::Map(e.to_string()))?;
        par_copy(out, &view[skip..skip + out.len()]);
    }
    buffer.unmap();
    Ok(())
}
