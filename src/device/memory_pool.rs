//! [`MemoryPool`]: the public face of a device's array pool (`memory::pool`), like CuPy's.

use super::Device;

/// The device-buffer pool of a [`crate::Device`], like CuPy's `MemoryPool`.
///
/// Buffers are grouped in size classes; a dropped array's buffer goes back to its class and is
/// reused by the next allocation of that class. Arrays of at most 4 KiB share 64 KiB slabs
/// instead, each in a slot of a multiple of 256 bytes (a driver buffer costs more than a small
/// array); a freed slot returns to its slab, and an empty slab stays cached in the pool.
/// Zero-byte arrays take nothing from the pool.
///
/// The statistics are exact: [`MemoryPool::used_bytes`] counts each live array's slot or
/// size class, [`MemoryPool::total_bytes`] every buffer the pool holds (slabs in full), and
/// the limit caps `total_bytes`.
///
/// ```
/// # fn main() -> gpuarray::Result<()> {
/// let dev = gpuarray::Device::new()?;
/// let pool = dev.memory_pool();
/// let x = dev.zeros::<f32>([1 << 20])?;
/// assert!(pool.used_bytes() >= 4 << 20);
/// drop(x);
/// assert!(pool.total_bytes() >= 4 << 20); // kept for reuse
/// pool.free_all_blocks();
/// pool.set_limit(Some(1 << 20));
/// assert!(dev.zeros::<f32>([1 << 20]).is_err()); // past the limit: OutOfMemory
/// pool.set_limit(None);
/// # Ok(()) }
/// ```
#[derive(Clone)]
pub struct MemoryPool {
    pub(crate) dev: Device,
}

impl MemoryPool {
    /// Bytes held by live arrays: small ones by their slots (multiples of 256 bytes), others
    /// by their size classes; zero-byte arrays count nothing.
    ///
    /// ```
    /// # let dev = gpuarray::Device::new()?;
    /// let before = dev.memory_pool().used_bytes();
    /// let x = dev.zeros::<f32>([1000])?;
    /// assert!(dev.memory_pool().used_bytes() >= before + 4000);
    /// # drop(x);
    /// # Ok::<(), gpuarray::Error>(())
    /// ```
    pub fn used_bytes(&self) -> u64 {
        self.dev.inner.pool.stats().used
    }
    /// Bytes of device buffers the pool holds: in use plus cached for reuse (free slots and
    /// empty slabs included: a slab counts in full).
    ///
    /// ```
    /// # let dev = gpuarray::Device::new()?;
    /// let pool = dev.memory_pool();
    /// drop(dev.zeros::<f32>([1000])?);
    /// assert!(pool.total_bytes() >= pool.used_bytes() + 4000);
    /// # Ok::<(), gpuarray::Error>(())
    /// ```
    pub fn total_bytes(&self) -> u64 {
        let s = self.dev.inner.pool.stats();
        s.used + s.cached
    }
    /// Number of cached (free) buffers, empty slabs included.
    ///
    /// ```
    /// # let dev = gpuarray::Device::new()?;
    /// drop(dev.zeros::<u32>([10])?);
    /// assert!(dev.memory_pool().n_free_blocks() >= 1);
    /// # Ok::<(), gpuarray::Error>(())
    /// ```
    pub fn n_free_blocks(&self) -> usize {
        self.dev.inner.pool.stats().free_blocks
    }
    /// Releases every cached buffer back to the driver.
    ///
    /// ```
    /// # let dev = gpuarray::Device::new()?;
    /// let pool = dev.memory_pool();
    /// drop(dev.zeros::<f32>([1 << 16])?);
    /// pool.free_all_blocks();
    /// assert_eq!(pool.n_free_blocks(), 0);
    /// assert_eq!(pool.total_bytes(), pool.used_bytes());
    /// # Ok::<(), gpuarray::Error>(())
    /// ```
    pub fn free_all_blocks(&self) {
        let i = &self.dev.inner;
        i.pool.free_all();
        if let Some(readback) = &i.readback {
            readback.free_all();
        }
        i.binds.clear();
    }
    /// Caps the bytes the pool may hold, [`MemoryPool::total_bytes`] (`None` for no cap). An
    /// allocation past the cap first releases cached buffers and empty slabs, then fails with
    /// [`crate::Error::OutOfMemory`]; a small array for which no new slab fits takes a buffer
    /// the size of its slot. Zero-byte arrays are never refused.
    ///
    /// ```
    /// # let dev = gpuarray::Device::new()?;
    /// let pool = dev.memory_pool();
    /// pool.set_limit(Some(pool.used_bytes() + (1 << 20)));
    /// let err = dev.zeros::<f32>([1 << 20]).unwrap_err();
    /// assert!(matches!(err, gpuarray::Error::OutOfMemory { .. }));
    /// pool.set_limit(None);
    /// assert!(dev.zeros::<f32>([1 << 20]).is_ok());
    /// # Ok::<(), gpuarray::Error>(())
    /// ```
    pub fn set_limit(&self, bytes: Option<u64>) {
        self.dev.inner.pool.set_limit(bytes.unwrap_or(u64::MAX));
    }
    /// The cap, if any.
    ///
    /// ```
    /// # let dev = gpuarray::Device::new()?;
    /// let pool = dev.memory_pool();
    /// assert_eq!(pool.limit(), None);
    /// pool.set_limit(Some(1 << 30));
    /// assert_eq!(pool.limit(), Some(1 << 30));
    /// # pool.set_limit(None);
    /// # Ok::<(), gpuarray::Error>(())
    /// ```
    pub fn limit(&self) -> Option<u64> {
        let l = self.dev.inner.pool.stats().limit;
        (l != u64::MAX).then_some(l)
    }
}

impl std::fmt::Debug for MemoryPool {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        let s = self.dev.inner.pool.stats();
        f.debug_struct("MemoryPool")
            .field("used", &s.used)
            .field("cached", &s.cached)
            .field("limit", &s.limit)
            .finish()
    }
}
