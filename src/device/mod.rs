//! [`Device`]: one adapter's device and queue, its memory pools, kernel cache and pending
//! batch of work.
//!
//! - `adapter`: choosing an adapter and opening a device ([`Device::new`], [`Device::enumerate`]);
//! - `batch`: the open batch of recorded work, `Device::launch` (the one way operations
//!   dispatch a kernel), submission and sync;
//! - `transfer`: uploads, downloads and clears, recorded into the batch;
//! - `timestamp`: GPU timestamps for events;
//! - `state`: per-device state of the operation families (tuning results and the like);
//! - `memory_pool`: [`MemoryPool`], the public face of the array pool;
//! - `trial`: timed trials a cold GPU cannot fool; `tune_store`: their choices on disk;
//! - `clock`: the work that may keep the GPU's clock up (`Tuning::clock_*`, off by default).
//!
//! Every op records its dispatch into the device's pending compute pass and returns at
//! once. The pending work is submitted at a sync point (a read back, [`Device::synchronize`])
//! or when the parameter arena is full ([`BATCH_DISPATCHES`] dispatches), so a chain of small
//! ops costs one submit.

mod adapter;
mod batch;
mod clock;
mod memory_pool;
mod probe;
mod state;
mod timestamp;
mod transfer;
pub(crate) mod trial;
mod tune_store;

use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::Arc;

pub use self::adapter::{DeviceInfo, DeviceKind, Subnormals};
pub(crate) use self::batch::Work;
pub use self::batch::BATCH_DISPATCHES;
#[cfg(test)]
pub(crate) use self::clock::spec as clock_spec;
pub use self::memory_pool::MemoryPool;
#[cfg(test)]
pub(crate) use self::probe::all_specs as probe_specs;
pub(crate) use self::timestamp::Stamp;
#[cfg(feature = "mpi")]
pub(crate) use self::transfer::QueueMark;
pub(crate) use crate::gpu::lock;
pub use crate::gpu::DeviceLimits;

use crate::config::{ClockHold, HoldSetting, Options, SmallRead, Trial};
use crate::dtype::{accepts, DType, Element};
use crate::error::{Error, Result};
use crate::gpu::Gpu;
use crate::kernel::cache::KernelCache;
use crate::kernel::launch::{BindCache, Params};
use crate::memory::pool::Pool;
use crate::memory::staging::Staging;

/// Counters of the work a device has done, for tests and tuning.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub struct DeviceStats {
    /// Queue submissions.
    pub submits: u64,
    /// Compute dispatches recorded.
    pub dispatches: u64,
    /// Pipelines compiled.
    pub pipelines: u64,
}

/// A GPU (or software) device and its queue, memory pools and kernel cache.
///
/// Cheap to clone (a reference count), `Send + Sync`, usable from several threads at once.
/// Open one per adapter and share it, as CuPy shares one context per GPU: on the H100 with
/// NVIDIA's Linux Vulkan driver 580, about ten devices in use at once in one process hung
/// inside the driver in a quarter of the runs (one or two never did).
///
/// ```
/// # fn main() -> gpuarray::Result<()> {
/// let dev = gpuarray::Device::new()?;
/// println!("{} ({})", dev.info().name, dev.info().backend);
/// let x = dev.from_slice(&[1.0f32, 2.0, 3.0], [3])?;
/// assert_eq!(x.add_scalar(1.0)?.to_vec()?, vec![2.0, 3.0, 4.0]);
/// # Ok(()) }
/// ```
#[derive(Clone)]
pub struct Device {
    pub(crate) inner: Arc<Inner>,
}

impl std::fmt::Debug for Device {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Device")
            .field("name", &self.inner.info.name)
            .field("backend", &self.inner.info.backend)
            .finish()
    }
}

/// What a device owns, over the ground floor.
pub(crate) struct Inner {
    pub(crate) gpu: Gpu,
    info: DeviceInfo,
    pool: Arc<Pool>,
    /// Host-visible storage buffers for small reads on discrete adapters, where available.
    readback: Option<Arc<Pool>>,
    staging: Staging,
    kernels: KernelCache,
    binds: BindCache,
    batch: batch::Pending,
    submits: AtomicU64,
    dispatches: AtomicU64,
    state: state::StateMap,
    clock: clock::ClockState,
    tuned: tune_store::TuneStore,
}

impl Device {
    /// Builds the device over an open wgpu device (all ways of opening one end here).
    fn from_parts(
        device: wgpu::Device,
        queue: wgpu::Queue,
        f16_in_f32: bool,
        mut opts: Options,
    ) -> Device {
        let info = adapter::info_of(&device.adapter_info(), device.features());
        if opts.tuning.clock_hold == HoldSetting::Auto {
            // NVIDIA's driver lowers the clock under Vulkan work with host pauses (issue 34).
            let nvidia = info.vendor == 0x10de && info.kind == DeviceKind::DiscreteGpu;
            opts.tuning.clock_hold = if nvidia {
                HoldSetting::On(ClockHold::DEFAULT)
            } else {
                HoldSetting::Off
            };
        }
        let uma = matches!(info.kind, DeviceKind::IntegratedGpu | DeviceKind::Cpu);
        let mappable = device
            .features()
            .contains(wgpu::Features::MAPPABLE_PRIMARY_BUFFERS);
        let kernels = KernelCache::new(
            &device,
            &device.adapter_info(),
            opts.pipeline_cache.resolve(),
        );
        // The trials' choices on disk, beside the pipeline cache (not with `Trial::Off`).
        let tune_dir = match opts.tuning.trial {
            Trial::Off => None,
            _ => opts.pipeline_cache.resolve(),
        };
        let tuned = tune_store::TuneStore::open(&device.adapter_info(), tune_dir);
        // Small reads through a kernel into host-visible memory: on discrete adapters (UMA
        // ones map arrays directly), or anywhere with `SmallRead::Kernel` (for tests).
        let small_read_kernel = opts.tuning.small_read == SmallRead::Kernel;
        let params = std::mem::size_of::<Params>();
        // On CPU adapters (lavapipe) a submit runs the work before it returns: submit from
        // a helper thread, so that the timeout bounds it too.
        let cpu = info.kind == DeviceKind::Cpu;
        let gpu = Gpu::new(
            device,
            queue,
            f16_in_f32,
            opts,
            uma && mappable,
            params,
            cpu,
        );
        let pool = Arc::new(Pool::storage(&gpu));
        let readback = (mappable && (!gpu.mappable_storage || small_read_kernel))
            .then(|| Arc::new(Pool::readback(&gpu)));
        let batch = batch::Pending::new(&gpu);
        Device {
            inner: Arc::new(Inner {
                gpu,
                info,
                pool,
                readback,
                staging: Staging::default(),
                kernels,
                binds: BindCache::default(),
                batch,
                submits: AtomicU64::new(0),
                dispatches: AtomicU64::new(0),
                state: state::StateMap::default(),
                clock: clock::ClockState::default(),
                tuned,
            }),
        }
    }

    /// The device with the facts its probes measure filled into its [`DeviceInfo`]: called
    /// once on a new device, outside the driver lock (the probes wait for the GPU).
    fn probed(mut self) -> Device {
        // The probes are not the program's work: no clock thread may start (and hold the
        // device, which would leave `Arc::get_mut` below without the results).
        let (flushes, fused) = clock::as_clock(|| {
            let flushes = self.measure_subnormals();
            // Where f64 is, whether its fma is fused (`None` where the probe failed).
            let fused = self
                .supports_dtype(DType::F64)
                .then(|| probe::fma_fused(&self).ok())
                .flatten();
            (flushes, fused)
        });
        // The probes leave no trace in the counters or the pool: a new device starts at zero.
        self.inner.submits.store(0, Ordering::Relaxed);
        self.inner.dispatches.store(0, Ordering::Relaxed);
        self.inner.pool.free_all();
        if let Some(inner) = Arc::get_mut(&mut self.inner) {
            inner.info.flushes_subnormals = flushes;
            inner.info.f64_fma_fused = fused;
            inner.gpu.f64_fma_fused = fused == Some(true);
        }
        self
    }

    /// Whether each float dtype the adapter has flushes subnormals (`None` where it lacks
    /// the dtype, or where the probe failed: a device lost as it opened).
    fn measure_subnormals(&self) -> Subnormals {
        let probe = |d: DType| {
            self.supports_dtype(d)
                .then(|| probe::flushes(self, d).ok())
                .flatten()
        };
        Subnormals {
            f16: probe(DType::F16),
            f32: probe(DType::F32),
            f64: probe(DType::F64),
        }
    }

    /// What the adapter is.
    ///
    /// ```
    /// let dev = gpuarray::Device::new()?;
    /// println!("{:?}, subgroups of {}..{}", dev.info().kind,
    ///          dev.info().subgroup_min_size, dev.info().subgroup_max_size);
    /// # Ok::<(), gpuarray::Error>(())
    /// ```
    pub fn info(&self) -> &DeviceInfo {
        &self.inner.info
    }

    /// The limits in force (the adapter's own).
    ///
    /// ```
    /// let dev = gpuarray::Device::new()?;
    /// assert!(dev.limits().max_storage_buffer_binding_size >= 128 << 20);
    /// # Ok::<(), gpuarray::Error>(())
    /// ```
    pub fn limits(&self) -> &DeviceLimits {
        &self.inner.gpu.limits
    }

    /// Whether arrays of `T` work on this adapter (f16 needs SHADER_F16, f64 SHADER_F64).
    ///
    /// ```
    /// let dev = gpuarray::Device::new()?;
    /// assert!(dev.supports::<f32>());
    /// if !dev.supports::<f64>() {
    ///     assert!(dev.zeros::<f64>([4]).is_err());
    /// }
    /// # Ok::<(), gpuarray::Error>(())
    /// ```
    pub fn supports<T: Element>(&self) -> bool {
        self.supports_dtype(T::DTYPE)
    }

    pub(crate) fn supports_dtype(&self, d: DType) -> bool {
        match d {
            DType::F16 => self.inner.gpu.features.contains(wgpu::Features::SHADER_F16),
            DType::F64 | DType::Complex128 => {
                self.inner.gpu.features.contains(wgpu::Features::SHADER_F64)
            }
            DType::I64 | DType::U64 => self
                .inner
                .gpu
                .features
                .contains(wgpu::Features::SHADER_INT64),
            _ => true,
        }
    }

    /// The one dtype gate of the families: `Err(Unsupported)` naming the public operation
    /// `op` unless `accepts(d)` (the family's whitelist, a positive list of dtypes: see
    /// [`crate::dtype::accepts`]) and the adapter supports `d`. A dtype a family does not
    /// list (a complex one, say) is refused here, never sent down a real or integer path.
    pub(crate) fn accept(
        &self,
        op: &'static str,
        d: DType,
        accepts: impl Fn(DType) -> bool,
    ) -> Result<()> {
        if accepts(d) {
            self.require_storage(op, d)
        } else {
            Err(self.unsupported(op, d))
        }
    }

    /// [`Device::accept`] with [`accepts::slots`]: the real dtypes stored one element per
    /// slot (not the packed small integers): the gate of every family whose kernels index
    /// one element per storage slot. The packed family (`ops::elementwise::packed`), the
    /// transfers, creation and reductions take more.
    pub(crate) fn require(&self, op: &'static str, d: DType) -> Result<()> {
        self.accept(op, d, accepts::slots)
    }

    /// `Err(Unsupported)` unless the adapter can store `d` (every packed type can): the
    /// gate of storage (allocation, transfers, views), which takes every dtype.
    pub(crate) fn require_storage(&self, op: &'static str, d: DType) -> Result<()> {
        if self.supports_dtype(d) {
            Ok(())
        } else {
            Err(self.unsupported(op, d))
        }
    }

    /// [`Device::accept`] with [`accepts::words32`]: the families whose kernels take
    /// 32-bit words (histograms, convolutions).
    pub(crate) fn require_32(&self, op: &'static str, d: DType) -> Result<()> {
        self.accept(op, d, accepts::words32)
    }

    pub(crate) fn unsupported(&self, op: &'static str, dtype: DType) -> Error {
        Error::Unsupported {
            op,
            dtype,
            adapter: self.adapter_label(),
        }
    }

    /// The adapter's name and its backend, as [`Error::Unsupported`] names them:
    /// "llvmpipe (LLVM 15.0.6, 256 bits) through GL" (Mesa's llvmpipe serves both Vulkan,
    /// as lavapipe, and GL under one name).
    pub(crate) fn adapter_label(&self) -> String {
        let backend = match self.inner.info.backend.as_str() {
            "gl" => "GL".to_string(),
            "vulkan" => "Vulkan".to_string(),
            "metal" => "Metal".to_string(),
            "dx12" => "DX12".to_string(),
            other => other.to_string(),
        };
        format!("{} through {backend}", self.inner.info.name)
    }

    /// The device-buffer pool: bytes in use, bytes held, limit.
    ///
    /// ```
    /// let dev = gpuarray::Device::new()?;
    /// let x = dev.zeros::<f32>([1024])?;
    /// assert!(dev.memory_pool().used_bytes() >= 4096);
    /// # drop(x);
    /// # Ok::<(), gpuarray::Error>(())
    /// ```
    pub fn memory_pool(&self) -> MemoryPool {
        MemoryPool { dev: self.clone() }
    }

    /// Counters: submits, dispatches, pipelines compiled.
    ///
    /// ```
    /// let dev = gpuarray::Device::new()?;
    /// let before = dev.stats();
    /// let x = dev.ones::<f32>([8])?;
    /// let y = x.exp()?.sqrt()?.add_scalar(1.0)?;
    /// y.to_vec()?;
    /// assert_eq!(dev.stats().submits - before.submits, 1);
    /// # Ok::<(), gpuarray::Error>(())
    /// ```
    pub fn stats(&self) -> DeviceStats {
        DeviceStats {
            submits: self.inner.submits.load(Ordering::Relaxed),
            dispatches: self.inner.dispatches.load(Ordering::Relaxed),
            pipelines: self.inner.kernels.compiled(),
        }
    }

    /// Submits the pending work and waits until the device has finished all of it.
    ///
    /// # Errors
    /// [`Error::DeviceLost`] if the device was lost, [`Error::Validation`] if wgpu reported
    /// an error for earlier work, [`Error::Timeout`] if the work is not done within the
    /// timeout ([`Device::set_timeout`]; after it the device is no longer used).
    ///
    /// ```
    /// let dev = gpuarray::Device::new()?;
    /// let _x = dev.random_uniform::<f32>([1 << 16], 7)?;
    /// dev.synchronize()?;
    /// # Ok::<(), gpuarray::Error>(())
    /// ```
    pub fn synchronize(&self) -> Result<()> {
        self.wait_mark(&self.mark()?)
    }

    /// Destroys the device: pending work is dropped, and every later operation on it (or on
    /// its arrays) returns [`Error::DeviceLost`]. Other devices are unaffected.
    ///
    /// ```
    /// let dev = gpuarray::Device::new()?;
    /// let x = dev.ones::<f32>([4])?;
    /// dev.destroy();
    /// assert!(matches!(x.to_vec(), Err(gpuarray::Error::DeviceLost(_))));
    /// assert!(matches!(dev.zeros::<f32>([4]), Err(gpuarray::Error::DeviceLost(_))));
    /// # Ok::<(), gpuarray::Error>(())
    /// ```
    pub fn destroy(&self) {
        self.inner.batch.discard();
        self.inner.gpu.destroy("destroyed by Device::destroy");
    }

    /// How long a wait (a read back, [`Device::synchronize`]) blocks before it gives up with
    /// [`Error::Timeout`]; the options' `timeout` until [`Device::set_timeout`] changes it.
    ///
    /// ```
    /// let dev = gpuarray::Device::new()?;
    /// assert_eq!(dev.timeout(), dev.options().timeout);
    /// # Ok::<(), gpuarray::Error>(())
    /// ```
    pub fn timeout(&self) -> std::time::Duration {
        self.inner.gpu.timeout()
    }

    /// Sets how long later waits block before they give up with [`Error::Timeout`] (whole
    /// or fractional seconds; at least a millisecond is waited). A timeout leaves the
    /// device unusable (see [`Error::Timeout`]): set it above the longest work you expect.
    ///
    /// ```
    /// use std::time::Duration;
    /// let dev = gpuarray::Device::new()?;
    /// dev.set_timeout(Duration::from_secs_f64(60.5));
    /// assert_eq!(dev.timeout(), Duration::from_millis(60_500));
    /// assert_eq!(dev.ones::<f32>([3])?.to_vec()?, vec![1.0; 3]);
    /// # Ok::<(), gpuarray::Error>(())
    /// ```
    pub fn set_timeout(&self, timeout: std::time::Duration) {
        self.inner.gpu.set_timeout(timeout);
    }

    /// The options the device was opened with ([`Device::timeout`] is the timeout in
    /// force).
    ///
    /// ```
    /// let dev = gpuarray::Device::new()?;
    /// assert!(dev.options().timeout.as_secs() > 0);
    /// # Ok::<(), gpuarray::Error>(())
    /// ```
    pub fn options(&self) -> &Options {
        &self.inner.gpu.opts
    }

    /// Errors recorded since the last check: a lost device, uncaptured wgpu errors.
    pub(crate) fn check(&self) -> Result<()> {
        self.inner.gpu.check()
    }

    /// `Err(DeviceMismatch { op })` unless every device of `others` is this one. The one
    /// identity check: every entry point that takes arrays or kernels (built-in ops, user
    /// kernels, events) makes it through this function before it allocates or records
    /// anything, so that nothing of another device is ever bound here.
    pub(crate) fn expect_same(&self, op: &'static str, others: &[&Device]) -> Result<()> {
        if others.iter().all(|d| Arc::ptr_eq(&self.inner, &d.inner)) {
            Ok(())
        } else {
            Err(Error::DeviceMismatch { op })
        }
    }

    /// `Err(DeviceLost)` when the device was lost or destroyed: the first check of every
    /// constructor of user kernels (array constructors make it when they allocate).
    pub(crate) fn expect_alive(&self) -> Result<()> {
        if self.inner.gpu.is_lost() {
            // `check` reports the loss first, with its reason.
            self.check()?;
        }
        Ok(())
    }

    /// Whether kernel parameters travel as immediates on this device.
    pub(crate) fn immediates(&self) -> bool {
        self.inner.gpu.immediates
    }

    /// The choices of the timed trials kept for this adapter and driver (see
    /// `tune_store`).
    pub(crate) fn tune_store(&self) -> &tune_store::TuneStore {
        &self.inner.tuned
    }

    /// Whether the device has subgroup operations in compute shaders.
    pub(crate) fn has_subgroups(&self) -> bool {
        self.inner.gpu.has_subgroups()
    }

    /// Whether the device has wgpu's cooperative matrices (tensor cores).
    pub(crate) fn has_coop_matrix(&self) -> bool {
        self.inner.gpu.has_coop_matrix()
    }

    /// Whether f32 scatter_add takes the native atomic add: the adapter has it and
    /// [`Tuning::float_atomics`](crate::config::Tuning::float_atomics) is on.
    pub(crate) fn has_f32_atomics(&self) -> bool {
        self.inner.gpu.has_f32_atomics() && self.options().tuning.float_atomics
    }

    /// Naga capabilities matching the device's features, for validating shaders.
    pub(crate) fn naga_capabilities(&self) -> naga::valid::Capabilities {
        self.inner.gpu.naga_capabilities()
    }
}

impl Drop for Inner {
    fn drop(&mut self) {
        if !self.gpu.is_lost() {
            self.kernels.save();
        }
    }
}
