//! Device buffers in size classes, reused on drop.

use std::collections::HashMap;
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::{Arc, Mutex};

use crate::error::{Error, Result};
use crate::gpu::{lock, Gpu, ScopeError};

/// Ids of buffers, unique in the process and never reused, so that caches keyed by them
/// (bind groups) never see a stale hit, whichever device the buffer belongs to.
static NEXT_ID: AtomicU64 = AtomicU64::new(1);

/// Smallest allocation; every binding is rounded up to 4 bytes inside it.
const MIN_CLASS: u64 = 256;

/// The size class of a request: powers of two up to 1 MiB, then steps of an eighth of the
/// next power of two (at most 12.5% waste).
pub(crate) fn size_class(bytes: u64) -> u64 {
    let bytes = bytes.max(MIN_CLASS);
    let p = bytes.next_power_of_two();
    if p <= 1 << 20 {
        p
    } else {
        let step = p / 8;
        bytes.div_ceil(step) * step
    }
}

#[derive(Default)]
struct State {
    /// Cached buffers by size class, with their ids.
    free: HashMap<u64, Vec<(u64, wgpu::Buffer)>>,
    used: u64,
    cached: u64,
    free_blocks: usize,
}

/// Counters of a pool.
pub(crate) struct PoolStats {
    pub used: u64,
    pub cached: u64,
    pub limit: u64,
    pub free_blocks: usize,
}

/// A pool of buffers of one usage on one device.
pub(crate) struct Pool {
    state: Mutex<State>,
    limit: Mutex<u64>,
    max_buffer: u64,
    usage: wgpu::BufferUsages,
    /// The device's count of releases to the driver (`Gpu::released`), bumped on each.
    released: Arc<AtomicU64>,
}

impl Pool {
    /// The pool of array buffers of `gpu`; MAP_READ where the host maps storage buffers.
    pub(crate) fn storage(gpu: &Gpu) -> Pool {
        let mut usage = wgpu::BufferUsages::STORAGE
            | wgpu::BufferUsages::COPY_SRC
            | wgpu::BufferUsages::COPY_DST;
        if gpu.mappable_storage {
            usage |= wgpu::BufferUsages::MAP_READ;
        }
        Self::new(gpu, usage)
    }

    /// A pool of host-visible storage buffers that kernels write and the host maps, for
    /// small reads (needs MAPPABLE_PRIMARY_BUFFERS).
    pub(crate) fn readback(gpu: &Gpu) -> Pool {
        Self::new(
            gpu,
            wgpu::BufferUsages::STORAGE | wgpu::BufferUsages::MAP_READ,
        )
    }

    fn new(gpu: &Gpu, usage: wgpu::BufferUsages) -> Pool {
        Pool {
            state: Mutex::new(State::default()),
            limit: Mutex::new(u64::MAX),
            max_buffer: gpu.limits.max_buffer_size,
            usage,
            released: gpu.released.clone(),
        }
    }

    pub(crate) fn stats(&self) -> PoolStats {
        let s = lock(&self.state);
        PoolStats {
            used: s.used,
            cached: s.cached,
            limit: *lock(&self.limit),
            free_blocks: s.free_blocks,
        }
    }

    pub(crate) fn set_limit(&self, limit: u64) {
        *lock(&self.limit) = limit;
    }

    pub(crate) fn free_all(&self) {
        let mut s = lock(&self.state);
        self.released.fetch_add(1, Ordering::Relaxed);
        s.free.clear();
        s.cached = 0;
        s.free_blocks = 0;
    }

    /// A buffer of at least `bytes` bytes (contents undefined).
    pub(crate) fn alloc(self: &Arc<Self>, gpu: &Gpu, bytes: u64) -> Result<BufferHandle> {
        let mut class = size_class(bytes);
        if class > self.max_buffer {
            if bytes > self.max_buffer {
                return Err(Error::BufferTooLarge {
                    requested: bytes,
                    max: self.max_buffer,
                });
            }
            class = bytes.div_ceil(MIN_CLASS) * MIN_CLASS;
        }
        let limit = *lock(&self.limit);
        {
            let mut s = lock(&self.state);
            if let Some((id, buffer)) = s.free.get_mut(&class).and_then(|v| v.pop()) {
                s.cached -= class;
                s.free_blocks -= 1;
                s.used += class;
                return Ok(self.handle(id, buffer, class));
            }
            if s.used.saturating_add(s.cached).saturating_add(class) > limit {
                self.released.fetch_add(1, Ordering::Relaxed);
                s.free.clear();
                s.cached = 0;
                s.free_blocks = 0;
            }
            if s.used.saturating_add(class) > limit {
                return Err(Error::OutOfMemory {
                    requested: bytes,
                    used: s.used,
                    limit,
                });
            }
            // Reserve before creating, so that threads racing for the last bytes see it.
            s.used += class;
        }
        match self.create(gpu, class) {
            Ok(buffer) => Ok(self.handle(NEXT_ID.fetch_add(1, Ordering::Relaxed), buffer, class)),
            Err(e) => {
                lock(&self.state).used -= class;
                Err(e)
            }
        }
    }

    fn create(&self, gpu: &Gpu, class: u64) -> Result<wgpu::Buffer> {
        let make = |d: &wgpu::Device| {
            d.create_buffer(&wgpu::BufferDescriptor {
                label: Some("gpuarray array"),
                size: class,
                usage: self.usage,
                mapped_at_creation: false,
            })
        };
        let (buffer, err) = gpu.scoped(make);
        match err {
            None => Ok(buffer),
            Some(ScopeError::OutOfMemory) => {
                // The driver is out of memory: give back what the pool caches and retry once.
                self.free_all();
                let (buffer, err) = gpu.scoped(make);
                match err {
                    None => Ok(buffer),
                    Some(_) => Err(Error::OutOfMemory {
                        requested: class,
                        used: self.stats().used,
                        limit: u64::MAX,
                    }),
                }
            }
            Some(ScopeError::Validation(msg)) => Err(Error::Validation(msg)),
        }
    }

    fn handle(self: &Arc<Self>, id: u64, buffer: wgpu::Buffer, class: u64) -> BufferHandle {
        BufferHandle {
            buffer: Some(buffer),
            id,
            class,
            pool: self.clone(),
        }
    }

    fn release(&self, id: u64, buffer: wgpu::Buffer, class: u64) {
        let limit = *lock(&self.limit);
        let mut s = lock(&self.state);
        s.used -= class;
        if s.used + s.cached + class <= limit {
            s.cached += class;
            s.free_blocks += 1;
            s.free.entry(class).or_default().push((id, buffer));
        } else {
            self.released.fetch_add(1, Ordering::Relaxed);
        }
    }
}

/// A pooled device buffer; dropping it returns the buffer to its pool. Queue order keeps
/// the reuse safe: work recorded later runs after work recorded earlier.
pub(crate) struct BufferHandle {
    buffer: Option<wgpu::Buffer>,
    /// Unique for the life of the process, and the same while the buffer is reused.
    id: u64,
    class: u64,
    pool: Arc<Pool>,
}

impl BufferHandle {
    pub(crate) fn buffer(&self) -> &wgpu::Buffer {
        self.buffer.as_ref().expect("buffer present until drop")
    }
    /// The buffer's id, for caches keyed by buffers.
    pub(crate) fn id(&self) -> u64 {
        self.id
    }
    /// Bytes the buffer holds (its size class).
    pub(crate) fn size(&self) -> u64 {
        self.class
    }
}

impl Drop for BufferHandle {
    fn drop(&mut self) {
        if let Some(b) = self.buffer.take() {
            self.pool.release(self.id, b, self.class);
        }
    }
}

#[cfg(test)]
mod tests {
    use super::size_class;

    #[test]
    fn classes() {
        assert_eq!(size_class(0), 256);
        assert_eq!(size_class(257), 512);
        assert_eq!(size_class(1 << 20), 1 << 20);
        assert_eq!(size_class((1 << 20) + 1), (1 << 20) + (1 << 18));
        assert_eq!(size_class(256 << 20), 256 << 20);
        for b in [3u64 << 20, 100 << 20, 999_999_999] {
            let c = size_class(b);
            assert!(c >= b && c <= b + b / 4, "{b} -> {c}");
        }
    }
}
