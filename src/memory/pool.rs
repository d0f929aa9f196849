//! Device buffers in size classes, reused on drop; small arrays in slots of slabs
//! (`memory::slab`).

use std::collections::HashMap;
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::{Arc, Mutex};

use crate::error::{Error, Result};
use crate::gpu::{lock, GlLock, Gpu, ScopeError};
use crate::memory::slab::{slot_size, Slabs, Slot, SLAB_BYTES, SLAB_MAX, SLOT_ALIGN};

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
    /// Cached whole buffers by size class, with their ids.
    free: HashMap<u64, Vec<(u64, wgpu::Buffer)>>,
    /// Slabs of small arrays (storage pools only).
    slabs: Slabs,
    /// Bytes of live allocations: slots for small arrays, size classes for the others.
    used: u64,
    /// Bytes of cached whole buffers.
    cached: u64,
    /// Bytes of slabs not in live slots (free slots, empty slabs, the tail a slot size
    /// leaves).
    slab_free: u64,
    free_blocks: usize,
}

impl State {
    /// Bytes of device buffers held: what the limit caps.
    fn held(&self) -> u64 {
        self.used + self.cached + self.slab_free
    }

    /// Releases every cached buffer and empty slab, holding `gl` (the device's [`GlLock`] on
    /// GL) while they are dropped; true if any was released.
    fn drop_cached(&mut self, gl: Option<&GlLock>) -> bool {
        let _gl = gl.map(|g| lock(g));
        let slabs = self.slabs.drop_empty();
        self.slab_free -= slabs as u64 * SLAB_BYTES;
        let any = slabs > 0 || self.free_blocks > 0;
        self.free.clear();
        self.cached = 0;
        self.free_blocks = 0;
        any
    }
}

/// Counters of a pool.
pub(crate) struct PoolStats {
    /// Bytes of live arrays (small ones by their slots, others by their size classes).
    pub used: u64,
    /// Bytes held and not in use: cached buffers, free slots of slabs, empty slabs.
    pub cached: u64,
    pub limit: u64,
    /// Cached buffers and empty slabs.
    pub free_blocks: usize,
}

/// A pool of buffers of one usage on one device.
pub(crate) struct Pool {
    state: Mutex<State>,
    limit: Mutex<u64>,
    max_buffer: u64,
    usage: wgpu::BufferUsages,
    /// Small allocations come from slabs (the array pool; not the read-back pool, whose
    /// buffers the host maps while other buffers are in use).
    slabs: bool,
    /// The device's count of releases to the driver (`Gpu::released`), bumped on each.
    released: Arc<AtomicU64>,
    /// The device's [`GlLock`] on GL, held while buffers are dropped (a drop can reach the
    /// GL context). Taken after `state`, never before it.
    gl: Option<GlLock>,
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
        let mut pool = Self::new(gpu, usage);
        pool.slabs = u64::from(gpu.limits.min_storage_buffer_offset_alignment) <= SLOT_ALIGN;
        pool
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
            slabs: false,
            released: gpu.released.clone(),
            gl: gpu.gl_handle(),
        }
    }

    pub(crate) fn stats(&self) -> PoolStats {
        let s = lock(&self.state);
        PoolStats {
            used: s.used,
            cached: s.cached + s.slab_free,
            limit: *lock(&self.limit),
            free_blocks: s.free_blocks + s.slabs.empty_count(),
        }
    }

    pub(crate) fn set_limit(&self, limit: u64) {
        *lock(&self.limit) = limit;
    }

    pub(crate) fn free_all(&self) {
        lock(&self.state).drop_cached(self.gl.as_ref());
        self.released.fetch_add(1, Ordering::Relaxed);
    }

    /// A buffer of at least `bytes` bytes (contents undefined). Small requests take a slot
    /// of a slab whose id is not in `avoid` (the [`BufferHandle::buffer_id`]s of the arrays
    /// a kernel reads while it writes this one). Zero bytes take a small buffer of their
    /// own that the pool does not count (and the limit does not cap).
    pub(crate) fn alloc(
        self: &Arc<Self>,
        gpu: &Gpu,
        bytes: u64,
        avoid: &[u64],
    ) -> Result<BufferHandle> {
        if bytes == 0 {
            let buffer = self.create(gpu, MIN_CLASS)?;
            let id = fresh_id();
            return Ok(self.handle(id, buffer, 0, MIN_CLASS, Origin::Uncounted));
        }
        if self.slabs
            && bytes <= SLAB_MAX
            && let Some(h) = self.alloc_slot(gpu, slot_size(bytes), avoid)?
        {
            return Ok(h);
        }
        self.alloc_whole(gpu, bytes)
    }

    /// A buffer of `bytes` bytes (at least 4) that the device keeps for itself (a kernel
    /// family's scratch): outside the size classes, not counted in the statistics and not
    /// capped by the limit, as a library's workspace is not part of CuPy's pool.
    pub(crate) fn alloc_owned(self: &Arc<Self>, gpu: &Gpu, bytes: u64) -> Result<BufferHandle> {
        let size = bytes.max(4).next_multiple_of(4);
        let buffer = self.create(gpu, size)?;
        let id = fresh_id();
        Ok(self.handle(id, buffer, 0, size, Origin::Uncounted))
    }

    /// A slot of `slot` bytes, or `None` when a new slab would pass the limit (the caller
    /// then tries a buffer of the slot's own size).
    fn alloc_slot(
        self: &Arc<Self>,
        gpu: &Gpu,
        slot: u64,
        avoid: &[u64],
    ) -> Result<Option<BufferHandle>> {
        let limit = *lock(&self.limit);
        let reused = {
            let mut s = lock(&self.state);
            if let Some(t) = s.slabs.take(slot, avoid, fresh_id) {
                s.used += slot;
                s.slab_free -= slot;
                return Ok(Some(self.slot_handle(t)));
            }
            if s.held().saturating_add(SLAB_BYTES) > limit && s.drop_cached(self.gl.as_ref()) {
                self.released.fetch_add(1, Ordering::Relaxed);
            }
            if s.held().saturating_add(SLAB_BYTES) > limit {
                return Ok(None);
            }
            // Reserve before creating, so that threads racing for the last bytes see it.
            s.slab_free += SLAB_BYTES;
            let cached = s.free.get_mut(&SLAB_BYTES).and_then(|v| v.pop());
            if cached.is_some() {
                s.cached -= SLAB_BYTES;
                s.free_blocks -= 1;
            }
            cached.map(|(_, b)| b)
        };
        let buffer = match reused {
            Some(b) => b,
            None => match self.create(gpu, SLAB_BYTES) {
                Ok(b) => b,
                Err(e) => {
                    lock(&self.state).slab_free -= SLAB_BYTES;
                    return Err(e);
                }
            },
        };
        let mut s = lock(&self.state);
        let t = s.slabs.add(fresh_id(), buffer, slot);
        s.used += slot;
        s.slab_free -= slot;
        Ok(Some(self.slot_handle(t)))
    }

    /// A buffer of its own (never a slot of a slab), of the size class of `bytes`.
    pub(crate) fn alloc_whole(self: &Arc<Self>, gpu: &Gpu, bytes: u64) -> Result<BufferHandle> {
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
                return Ok(self.handle(id, buffer, 0, class, Origin::Whole));
            }
            if s.held().saturating_add(class) > limit && s.drop_cached(self.gl.as_ref()) {
                self.released.fetch_add(1, Ordering::Relaxed);
            }
            if s.held().saturating_add(class) > limit {
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
            Ok(buffer) => Ok(self.handle(fresh_id(), buffer, 0, class, Origin::Whole)),
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

    fn slot_handle(self: &Arc<Self>, t: Slot) -> BufferHandle {
        self.handle(t.slab, t.buffer, t.base, t.size, Origin::Slab)
    }

    fn handle(
        self: &Arc<Self>,
        buffer_id: u64,
        buffer: wgpu::Buffer,
        base: u64,
        size: u64,
        origin: Origin,
    ) -> BufferHandle {
        BufferHandle {
            buffer: Some(buffer),
            id: fresh_id(),
            buffer_id,
            base,
            size,
            origin,
            pool: self.clone(),
        }
    }

    fn release(&self, h: &mut BufferHandle) {
        let Some(buffer) = h.buffer.take() else {
            return;
        };
        // Dropped at the end, under the GL lock, unless the pool keeps it.
        let mut buffer = Some(buffer);
        let limit = *lock(&self.limit);
        let mut s = lock(&self.state);
        match h.origin {
            Origin::Uncounted => {}
            Origin::Slab => {
                s.used -= h.size;
                s.slab_free += h.size;
                let empty = s.slabs.put(h.buffer_id, h.base);
                if empty && s.held() > limit {
                    let _gl = self.gl.as_deref().map(lock);
                    let n = s.slabs.drop_empty() as u64;
                    s.slab_free -= n * SLAB_BYTES;
                    self.released.fetch_add(1, Ordering::Relaxed);
                }
            }
            Origin::Whole => {
                s.used -= h.size;
                if s.held() + h.size <= limit {
                    s.cached += h.size;
                    s.free_blocks += 1;
                    let kept = buffer.take().expect("taken once");
                    s.free.entry(h.size).or_default().push((h.buffer_id, kept));
                } else {
                    self.released.fetch_add(1, Ordering::Relaxed);
                }
            }
        }
        drop(s);
        if buffer.is_some() {
            let _gl = self.gl.as_deref().map(lock);
            drop(buffer);
        }
    }
}

/// A new id, unique in the process.
fn fresh_id() -> u64 {
    NEXT_ID.fetch_add(1, Ordering::Relaxed)
}

/// Where a handle's memory comes from.
#[derive(Clone, Copy, PartialEq, Eq)]
enum Origin {
    /// A whole pooled buffer.
    Whole,
    /// A slot of a slab.
    Slab,
    /// A buffer of a zero-byte array, or a device-owned scratch: not counted.
    Uncounted,
}

/// A pooled device buffer, or a slot of one; dropping it returns the memory to its pool.
/// Queue order keeps the reuse safe: work recorded later runs after work recorded earlier.
pub(crate) struct BufferHandle {
    buffer: Option<wgpu::Buffer>,
    /// Unique for the life of the process: this allocation.
    id: u64,
    /// The buffer's id, the same while it is reused (for a slab: while it has slots of
    /// one size), for caches keyed by buffers.
    buffer_id: u64,
    /// Where the allocation starts in the buffer, in bytes (a multiple of [`SLOT_ALIGN`]).
    base: u64,
    size: u64,
    origin: Origin,
    pool: Arc<Pool>,
}

impl BufferHandle {
    /// The buffer (for a slot, the slab's: add [`BufferHandle::base`] to offsets into it).
    pub(crate) fn buffer(&self) -> &wgpu::Buffer {
        self.buffer.as_ref().expect("buffer present until drop")
    }
    /// The allocation's id, unique in the process (arrays with the same id share memory).
    pub(crate) fn id(&self) -> u64 {
        self.id
    }
    /// The buffer's id, for caches keyed by buffers (with [`BufferHandle::base`]) and for
    /// telling whether two allocations share a buffer.
    pub(crate) fn buffer_id(&self) -> u64 {
        self.buffer_id
    }
    /// Where the allocation starts in the buffer, in bytes.
    pub(crate) fn base(&self) -> u64 {
        self.base
    }
    /// Bytes the allocation holds (its slot or size class).
    pub(crate) fn size(&self) -> u64 {
        self.size
    }
}

impl Drop for BufferHandle {
    fn drop(&mut self) {
        let pool = self.pool.clone();
        pool.release(self);
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
