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
/// Copies of twice this or more are split across threads (at most 8). Measured on the
/// H200's host (2026-11-29, examples/bandwidth, the switch below at 0 and at its 4 MiB
/// then): split, a 4 MiB `to_vec` ran at 3.0-3.6 GB/s against 6.1 on one thread (the
/// threads' page faults in a fresh Vec contend) and `from_slice` at 9.7-14 against 13.2;
/// from 16 MiB the threads win (16 MiB 7.0-8.9 / 21-26 GB/s against 5.4 / 15; a 256 MiB
/// `to_vec` 5.1-5.8 against 1.4).
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

/// Host threads for work over `len` bytes: one below [`par_threshold`], else the CPUs this
/// process may run on (its affinity: one under `mpirun`'s default binding of two ranks),
/// at most 8.
pub(crate) fn host_threads(len: usize) -> usize {
    if len < par_threshold() {
        1
    } else {
        // Asked only for large work: available_parallelism reads cgroup files (tens of us).
        std::thread::available_parallelism().map_or(1, |n| n.get().min(8))
    }
}

/// The bytes from which a host copy is split over threads: [`PAR_COPY_CHUNK`] twice, or
/// `GPUARRAY_PAR_COPY_KIB` (a measuring switch read once; 0: never).
fn par_threshold() -> usize {
    static AT: std::sync::OnceLock<usize> = std::sync::OnceLock::new();
    *AT.get_or_init(|| match crate::config::switch("GPUARRAY_PAR_COPY_KIB") {
        Some(0) => usize::MAX,
        Some(k) => k << 10,
        None => 2 * PAR_COPY_CHUNK,
    })
}

/// Copies `src` into `dst`, on several threads when large.
pub(crate) fn par_copy(dst: &mut [u8], src: &[u8]) {
    let threads = host_threads(src.len());
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

/// Writes `src` into mapped memory `dst` (its length), on several threads when large.
fn par_write(mut dst: wgpu::WriteOnly<'_, [u8]>, src: &[u8]) {
    let threads = host_threads(src.len());
    if threads < 2 {
        dst.copy_from_slice(src);
        return;
    }
    let chunk = src.len().div_ceil(threads).div_ceil(4096) * 4096;
    /// A piece of the mapping for another thread.
    struct Piece<'a>(wgpu::WriteOnly<'a, [u8]>);
    // SAFETY: a unique, write-only reference to mapped bytes, as `&mut [u8]` (which is
    // Send); `WriteOnly`'s own Send impl leaves out unsized targets only by its bound's
    // implicit `Sized`.
    unsafe impl Send for Piece<'_> {}
    std::thread::scope(|s| {
        let mut rest = dst;
        for c in src.chunks(chunk) {
            let (head, tail) = rest.split_at(c.len());
            rest = tail;
            let piece = Piece(head);
            s.spawn(move || {
                // The whole Piece moves in (not its field, which is not Send).
                let mut piece = piece;
                piece.0.copy_from_slice(c)
            });
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
    /// A pooled upload buffer of at least the parts' total bytes (rounded up to 4) holding
    /// `parts` one after another, unmapped and ready to be copied from; and the bytes to
    /// copy. `used`: the bytes the device's arrays hold, for the error if the driver is out
    /// of memory.
    pub(crate) fn upload_buffer(
        &self,
        gpu: &Gpu,
        parts: &[&[u8]],
        used: u64,
    ) -> Result<(wgpu::Buffer, u64)> {
        let total: usize = parts.iter().map(|d| d.len()).sum();
        let size = round4(total as u64);
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
            let mut at = 0;
            for d in parts {
                par_write(view.slice(at..at + d.len()), d);
                at += d.len();
            }
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
