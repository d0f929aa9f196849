//! [`Device`]: adapter choice, limits, features, the queue, batched submission and sync.
//!
//! Every op records its dispatch into the device's pending compute pass and returns at
//! once. The pending work is submitted at a sync point (a read back, [`Device::synchronize`])
//! or when the parameter arena is full ([`BATCH_DISPATCHES`] dispatches), so a chain of small
//! ops costs one submit.

use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use std::sync::{Arc, Mutex, MutexGuard, OnceLock};
use std::time::{Duration, Instant};

use crate::config::{Backend, Options, ParamsPath, SmallRead};
use crate::dtype::{DType, Element};
use crate::error::{Error, Result};
use crate::kernel::cache::{Kernel, KernelCache, Key};
use crate::kernel::launch::{BindCache, Binding, Params};
use crate::kernel::source::Spec;
use crate::memory::pool::{BufferHandle, Pool};
use crate::memory::staging::Staging;
use crate::memory::MemoryPool;

/// Bytes of the parameter arena given to one dispatch (the uniform offset alignment that
/// every adapter accepts).
pub(crate) const PARAM_SLOT: u64 = 256;
/// Serialises the driver calls that some drivers do not survive concurrently: instance,
/// device and pipeline creation (wgpu issues 10010 and 10234 report crashes when threads
/// create devices and pipelines at once). Pipelines are cached, so this costs nothing after
/// warm-up.
pub(crate) static DRIVER_LOCK: Mutex<()> = Mutex::new(());

/// Dispatches recorded before the pending work is submitted without a sync point.
pub const BATCH_DISPATCHES: u32 = 512;

/// The kind of adapter.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
#[non_exhaustive]
pub enum DeviceKind {
    /// A GPU with its own memory.
    DiscreteGpu,
    /// A GPU sharing memory with the CPU.
    IntegratedGpu,
    /// A virtualised GPU.
    VirtualGpu,
    /// A software rasteriser on the CPU (lavapipe, WARP, SwiftShader).
    Cpu,
    /// Unknown.
    Other,
}

/// What an adapter is: returned by [`Device::info`] and [`Device::enumerate`].
#[derive(Debug, Clone, PartialEq, Eq)]
#[non_exhaustive]
pub struct DeviceInfo {
    /// The adapter's name, e.g. "NVIDIA H100 80GB HBM3" or "llvmpipe (LLVM 15.0.6, 256 bits)".
    pub name: String,
    /// Backend: "vulkan", "metal", "dx12" or "gl".
    pub backend: String,
    /// Discrete, integrated, CPU...
    pub kind: DeviceKind,
    /// PCI vendor id.
    pub vendor: u32,
    /// Driver name.
    pub driver: String,
    /// Driver version text.
    pub driver_info: String,
    /// Smallest subgroup size the adapter may use.
    pub subgroup_min_size: u32,
    /// Largest subgroup size the adapter may use.
    pub subgroup_max_size: u32,
    /// The optional features gpuarray uses that this adapter has, by wgpu's names.
    pub features: Vec<&'static str>,
}

/// The limits gpuarray works within (the adapter's own, not WebGPU's defaults).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
#[non_exhaustive]
pub struct DeviceLimits {
    /// Largest buffer, in bytes.
    pub max_buffer_size: u64,
    /// Largest storage binding, in bytes.
    pub max_storage_buffer_binding_size: u64,
    /// Workgroup memory per workgroup, in bytes.
    pub max_compute_workgroup_storage_size: u32,
    /// Invocations per workgroup.
    pub max_compute_invocations_per_workgroup: u32,
    /// Workgroups per dispatch dimension.
    pub max_compute_workgroups_per_dimension: u32,
    /// Storage buffers per shader stage.
    pub max_storage_buffers_per_shader_stage: u32,
    /// Alignment of a storage binding's offset into its buffer, in bytes.
    pub min_storage_buffer_offset_alignment: u32,
}

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

pub(crate) struct Inner {
    pub(crate) device: wgpu::Device,
    pub(crate) queue: wgpu::Queue,
    info: DeviceInfo,
    limits: DeviceLimits,
    opts: Options,
    features: wgpu::Features,
    /// Storage buffers can be mapped by the host (UMA adapter with MAPPABLE_PRIMARY_BUFFERS).
    pub(crate) mappable_storage: bool,
    /// Dispatch parameters travel as immediates (push constants) rather than through the
    /// uniform arena: no buffer write per submit.
    pub(crate) immediates: bool,
    /// WGSL's `pack2x16float`, `unpack2x16float` and `quantizeToF16` are available.
    f16_in_f32: bool,
    pub(crate) pool: Arc<Pool>,
    /// Host-visible storage buffers for small reads on discrete adapters, where available.
    pub(crate) readback: Option<Arc<Pool>>,
    pub(crate) staging: Staging,
    pub(crate) kernels: KernelCache,
    pub(crate) binds: BindCache,
    arena: wgpu::Buffer,
    batch: Mutex<Batch>,
    submits: AtomicU64,
    dispatches: AtomicU64,
    errors: Arc<Mutex<Vec<String>>>,
    lost: Arc<Mutex<Option<String>>>,
}

/// Work recorded but not yet submitted: dispatches go into one open compute pass (on some
/// drivers every pass costs tens of microseconds of command-buffer set-up), which copies
/// and clears close.
#[derive(Default)]
pub(crate) struct Batch {
    /// Declared before `encoder`: the pass must end before the encoder is finished.
    pass: Option<wgpu::ComputePass<'static>>,
    encoder: Option<wgpu::CommandEncoder>,
    /// Parameters of the recorded dispatches, one slot each, written at submit.
    params: Vec<u8>,
    slots: u32,
    /// Upload staging buffers used by the recorded work, recycled after submit.
    uploads: Vec<wgpu::Buffer>,
}

impl Batch {
    /// The pending encoder, created on first use; ends the open compute pass, if any.
    pub(crate) fn encoder(&mut self, device: &wgpu::Device) -> &mut wgpu::CommandEncoder {
        self.pass = None;
        self.encoder.get_or_insert_with(|| {
            device.create_command_encoder(&wgpu::CommandEncoderDescriptor {
                label: Some("gpuarray batch"),
            })
        })
    }
    /// The open compute pass, begun on first use.
    fn pass(&mut self, device: &wgpu::Device) -> &mut wgpu::ComputePass<'static> {
        if self.pass.is_none() {
            let pass = self
                .encoder(device)
                .begin_compute_pass(&wgpu::ComputePassDescriptor {
                    label: None,
                    timestamp_writes: None,
                })
                .forget_lifetime();
            self.pass = Some(pass);
        }
        self.pass.as_mut().expect("just set")
    }

    /// Registers an upload staging buffer to recycle once the batch is submitted.
    pub(crate) fn add_upload(&mut self, buffer: wgpu::Buffer) {
        self.uploads.push(buffer);
    }
}

const FEATURES: [(wgpu::Features, &str); 10] = [
    (wgpu::Features::SHADER_F16, "SHADER_F16"),
    (wgpu::Features::SHADER_F64, "SHADER_F64"),
    (wgpu::Features::SUBGROUP, "SUBGROUP"),
    (wgpu::Features::TIMESTAMP_QUERY, "TIMESTAMP_QUERY"),
    (
        wgpu::Features::TIMESTAMP_QUERY_INSIDE_ENCODERS,
        "TIMESTAMP_QUERY_INSIDE_ENCODERS",
    ),
    (
        wgpu::Features::TIMESTAMP_QUERY_INSIDE_PASSES,
        "TIMESTAMP_QUERY_INSIDE_PASSES",
    ),
    (wgpu::Features::IMMEDIATES, "IMMEDIATES"),
    (
        wgpu::Features::MAPPABLE_PRIMARY_BUFFERS,
        "MAPPABLE_PRIMARY_BUFFERS",
    ),
    (wgpu::Features::PIPELINE_CACHE, "PIPELINE_CACHE"),
    // Tensor-core matrix products (f16 matmul); requested with wgpu's experimental token.
    (
        wgpu::Features::EXPERIMENTAL_COOPERATIVE_MATRIX,
        "EXPERIMENTAL_COOPERATIVE_MATRIX",
    ),
];

fn wanted_features() -> wgpu::Features {
    FEATURES
        .iter()
        .fold(wgpu::Features::empty(), |acc, (f, _)| acc | *f)
}

fn kind_of(t: wgpu::DeviceType) -> DeviceKind {
    match t {
        wgpu::DeviceType::DiscreteGpu => DeviceKind::DiscreteGpu,
        wgpu::DeviceType::IntegratedGpu => DeviceKind::IntegratedGpu,
        wgpu::DeviceType::VirtualGpu => DeviceKind::VirtualGpu,
        wgpu::DeviceType::Cpu => DeviceKind::Cpu,
        wgpu::DeviceType::Other => DeviceKind::Other,
    }
}

fn rank(kind: DeviceKind) -> u32 {
    match kind {
        DeviceKind::DiscreteGpu => 0,
        DeviceKind::IntegratedGpu => 1,
        DeviceKind::VirtualGpu => 2,
        DeviceKind::Cpu => 3,
        DeviceKind::Other => 4,
    }
}

fn backend_name(b: wgpu::Backend) -> String {
    match b {
        wgpu::Backend::Vulkan => "vulkan".into(),
        wgpu::Backend::Metal => "metal".into(),
        wgpu::Backend::Dx12 => "dx12".into(),
        wgpu::Backend::Gl => "gl".into(),
        other => format!("{other:?}").to_lowercase(),
    }
}

fn info_of(i: &wgpu::AdapterInfo, features: wgpu::Features) -> DeviceInfo {
    DeviceInfo {
        name: i.name.clone(),
        backend: backend_name(i.backend),
        kind: kind_of(i.device_type),
        vendor: i.vendor,
        driver: i.driver.clone(),
        driver_info: i.driver_info.clone(),
        subgroup_min_size: i.subgroup_min_size,
        subgroup_max_size: i.subgroup_max_size,
        features: FEATURES
            .iter()
            .filter(|(f, _)| features.contains(*f))
            .map(|(_, n)| *n)
            .collect(),
    }
}

fn wgpu_backends(b: Backend) -> wgpu::Backends {
    match b {
        Backend::Vulkan => wgpu::Backends::VULKAN,
        Backend::Metal => wgpu::Backends::METAL,
        Backend::Dx12 => wgpu::Backends::DX12,
        Backend::Gl => wgpu::Backends::GL,
    }
}

fn adapters_of(backends: wgpu::Backends) -> Vec<wgpu::Adapter> {
    let _driver = lock(&DRIVER_LOCK);
    let mut desc = wgpu::InstanceDescriptor::new_without_display_handle_from_env();
    desc.backends = backends;
    let instance = wgpu::Instance::new(desc);
    pollster::block_on(instance.enumerate_adapters(backends))
}

/// The adapters of the chosen backends; without a choice, GL only where Vulkan, Metal and
/// DX12 have none (probing GL needs a display server on some systems).
fn adapters(backend: Option<Backend>) -> Vec<wgpu::Adapter> {
    match backend {
        Some(b) => adapters_of(wgpu_backends(b)),
        None => {
            let primary = adapters_of(wgpu::Backends::PRIMARY);
            if primary.is_empty() {
                adapters_of(wgpu::Backends::GL)
            } else {
                primary
            }
        }
    }
}

impl Device {
    /// Opens the best adapter: discrete GPU, then integrated, then virtual, then CPU.
    ///
    /// `GPUARRAY_ADAPTER` (a case-insensitive substring of the adapter's name) and
    /// `GPUARRAY_BACKEND` (vulkan, metal, dx12, gl) narrow the choice.
    ///
    /// # Errors
    /// [`Error::NoAdapter`] when no adapter matches, [`Error::UnknownBackend`] for a bad
    /// `GPUARRAY_BACKEND`, [`Error::RequestDevice`] when the adapter refuses.
    ///
    /// ```
    /// let dev = gpuarray::Device::new()?;
    /// assert!(!dev.info().name.is_empty());
    /// # Ok::<(), gpuarray::Error>(())
    /// ```
    pub fn new() -> Result<Device> {
        Self::with_options(Options::from_env()?)
    }

    /// Opens the best adapter (as [`Device::new`]) with these options: `opts.adapter` and
    /// `opts.backend` narrow the choice, the rest configure the device's kernels.
    ///
    /// # Errors
    /// As [`Device::new`].
    ///
    /// ```
    /// use gpuarray::{config::{Options, ParamsPath}, Device};
    /// let mut opts = Options::default();
    /// opts.params = ParamsPath::Uniform; // parameters through the uniform arena
    /// let dev = Device::with_options(opts)?;
    /// assert_eq!(dev.from_slice(&[1i32, 2], [2])?.add_scalar(1)?.to_vec()?, vec![2, 3]);
    /// # Ok::<(), gpuarray::Error>(())
    /// ```
    pub fn with_options(opts: Options) -> Result<Device> {
        let filter = opts.adapter.clone().unwrap_or_default().to_lowercase();
        let adapter = adapters(opts.backend)
            .into_iter()
            .filter(|a| a.get_info().name.to_lowercase().contains(&filter))
            .min_by_key(|a| {
                let i = a.get_info();
                (
                    rank(kind_of(i.device_type)),
                    (i.backend == wgpu::Backend::Gl) as u32,
                )
            })
            .ok_or(Error::NoAdapter { filter })?;
        Self::from_adapter(&adapter, opts)
    }

    /// Lists the adapters there are (after `GPUARRAY_BACKEND`, if set).
    ///
    /// # Errors
    /// [`Error::UnknownBackend`] for a bad `GPUARRAY_BACKEND`.
    ///
    /// ```
    /// for info in gpuarray::Device::enumerate()? {
    ///     println!("{} on {}: {:?}", info.name, info.backend, info.kind);
    /// }
    /// # Ok::<(), gpuarray::Error>(())
    /// ```
    pub fn enumerate() -> Result<Vec<DeviceInfo>> {
        Ok(adapters(Options::from_env()?.backend)
            .iter()
            .map(|a| info_of(&a.get_info(), a.features()))
            .collect())
    }

    fn from_adapter(adapter: &wgpu::Adapter, opts: Options) -> Result<Device> {
        let mut features = adapter.features() & wanted_features();
        if !opts.coop {
            features.remove(wgpu::Features::EXPERIMENTAL_COOPERATIVE_MATRIX);
        }
        let experimental = if features.contains(wgpu::Features::EXPERIMENTAL_COOPERATIVE_MATRIX) {
            // SAFETY: the token only unlocks EXPERIMENTAL_COOPERATIVE_MATRIX, which gpuarray
            // uses in one kernel (the f16 matmul) with the configurations the adapter lists;
            // GPUARRAY_COOP=0 leaves it off.
            unsafe { wgpu::ExperimentalFeatures::enabled() }
        } else {
            wgpu::ExperimentalFeatures::disabled()
        };
        let desc = wgpu::DeviceDescriptor {
            label: Some("gpuarray"),
            required_features: features,
            required_limits: adapter.limits(),
            experimental_features: experimental,
            memory_hints: wgpu::MemoryHints::Performance,
            trace: wgpu::Trace::Off,
        };
        let _driver = lock(&DRIVER_LOCK);
        let (device, queue) = pollster::block_on(adapter.request_device(&desc)).map_err(|e| {
            Error::RequestDevice {
                adapter: adapter.get_info().name,
                reason: e.to_string(),
            }
        })?;
        let f16_in_f32 = adapter
            .get_downlevel_capabilities()
            .flags
            .contains(wgpu::DownlevelFlags::SHADER_F16_IN_F32);
        Ok(Self::from_parts(device, queue, f16_in_f32, opts))
    }

    /// Uses a device and queue that the program already owns. gpuarray installs its own
    /// uncaptured-error handler and device-lost callback on it.
    ///
    /// ```
    /// let instance = wgpu::Instance::new(wgpu::InstanceDescriptor::new_without_display_handle_from_env());
    /// let adapter = pollster::block_on(instance.request_adapter(&Default::default())).unwrap();
    /// let (device, queue) = pollster::block_on(adapter.request_device(&Default::default())).unwrap();
    /// let dev = gpuarray::Device::from_wgpu(device, queue);
    /// assert_eq!(dev.from_slice(&[1u32, 2], [2])?.to_vec()?, vec![1, 2]);
    /// # Ok::<(), gpuarray::Error>(())
    /// ```
    pub fn from_wgpu(device: wgpu::Device, queue: wgpu::Queue) -> Device {
        Self::from_wgpu_with_options(device, queue, Options::default())
    }

    /// As [`Device::from_wgpu`], with these options (`adapter` and `backend` are ignored:
    /// the device is chosen).
    ///
    /// ```
    /// let instance = wgpu::Instance::new(wgpu::InstanceDescriptor::new_without_display_handle_from_env());
    /// let adapter = pollster::block_on(instance.request_adapter(&Default::default())).unwrap();
    /// let (device, queue) = pollster::block_on(adapter.request_device(&Default::default())).unwrap();
    /// let mut opts = gpuarray::Options::default();
    /// opts.subgroups = false;
    /// let dev = gpuarray::Device::from_wgpu_with_options(device, queue, opts);
    /// assert_eq!(dev.from_slice(&[1u32, 2], [2])?.sum()?.to_scalar()?, 3);
    /// # Ok::<(), gpuarray::Error>(())
    /// ```
    pub fn from_wgpu_with_options(
        device: wgpu::Device,
        queue: wgpu::Queue,
        opts: Options,
    ) -> Device {
        // The device does not say whether it has WGSL's pack/unpack2x16float and
        // quantizeToF16 (the adapter does): wgpu's backends give them to Vulkan (except
        // llvmpipe without SHADER_F16), Metal and DX12. wgpu validates each shader again,
        // so a wrong guess is still a typed error.
        let i = device.adapter_info();
        let f16_in_f32 = match i.backend {
            wgpu::Backend::Vulkan => {
                !i.driver.to_lowercase().contains("llvmpipe")
                    || device.features().contains(wgpu::Features::SHADER_F16)
            }
            wgpu::Backend::Metal | wgpu::Backend::Dx12 => true,
            _ => false,
        };
        Self::from_parts(device, queue, f16_in_f32, opts)
    }

    fn from_parts(
        device: wgpu::Device,
        queue: wgpu::Queue,
        f16_in_f32: bool,
        opts: Options,
    ) -> Device {
        let adapter_info = device.adapter_info();
        let features = device.features();
        let l = device.limits();
        let info = info_of(&adapter_info, features);
        let limits = DeviceLimits {
            max_buffer_size: l.max_buffer_size,
            max_storage_buffer_binding_size: l.max_storage_buffer_binding_size,
            max_compute_workgroup_storage_size: l.max_compute_workgroup_storage_size,
            max_compute_invocations_per_workgroup: l.max_compute_invocations_per_workgroup,
            max_compute_workgroups_per_dimension: l.max_compute_workgroups_per_dimension,
            max_storage_buffers_per_shader_stage: l.max_storage_buffers_per_shader_stage,
            min_storage_buffer_offset_alignment: l.min_storage_buffer_offset_alignment,
        };
        let uma = matches!(info.kind, DeviceKind::IntegratedGpu | DeviceKind::Cpu);
        let mappable_storage = uma && features.contains(wgpu::Features::MAPPABLE_PRIMARY_BUFFERS);

        let immediates = features.contains(wgpu::Features::IMMEDIATES)
            && l.max_immediate_size as usize >= std::mem::size_of::<Params>()
            && opts.params != ParamsPath::Uniform;
        let errors = Arc::new(Mutex::new(Vec::new()));
        let sink = errors.clone();
        device.on_uncaptured_error(Arc::new(move |e: wgpu::Error| {
            log::error!("gpuarray: uncaptured wgpu error: {e}");
            lock(&sink).push(e.to_string());
        }));
        let lost = Arc::new(Mutex::new(None));
        let lost_sink = lost.clone();
        device.set_device_lost_callback(move |reason, msg| {
            *lock(&lost_sink) = Some(format!("{reason:?}: {msg}"));
        });
        let arena = device.create_buffer(&wgpu::BufferDescriptor {
            label: Some("gpuarray params"),
            size: PARAM_SLOT * BATCH_DISPATCHES as u64,
            usage: wgpu::BufferUsages::UNIFORM | wgpu::BufferUsages::COPY_DST,
            mapped_at_creation: false,
        });
        let pool = Arc::new(Pool::storage(limits.max_buffer_size, mappable_storage));
        let kernels = KernelCache::new(&device, &adapter_info, opts.pipeline_cache.resolve());
        // Small reads through a kernel into host-visible memory: on discrete adapters (UMA
        // ones map arrays directly), or anywhere with GPUARRAY_SMALL_READ=kernel (for tests).
        let small_read_kernel = opts.small_read == SmallRead::Kernel;
        let readback = (features.contains(wgpu::Features::MAPPABLE_PRIMARY_BUFFERS)
            && (!mappable_storage || small_read_kernel))
            .then(|| Arc::new(Pool::readback(limits.max_buffer_size)));
        Device {
            inner: Arc::new(Inner {
                device,
                queue,
                info,
                limits,
                features,
                opts,
                mappable_storage,
                immediates,
                f16_in_f32,
                pool,
                readback,
                staging: Staging::default(),
                kernels,
                binds: BindCache::default(),
                arena,
                batch: Mutex::new(Batch::default()),
                submits: AtomicU64::new(0),
                dispatches: AtomicU64::new(0),
                errors,
                lost,
            }),
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
        &self.inner.limits
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
            DType::F16 => self.inner.features.contains(wgpu::Features::SHADER_F16),
            DType::F64 => self.inner.features.contains(wgpu::Features::SHADER_F64),
            _ => true,
        }
    }

    /// `Err(Unsupported)` unless the adapter supports `d`.
    pub(crate) fn require(&self, op: &'static str, d: DType) -> Result<()> {
        if self.supports_dtype(d) {
            Ok(())
        } else {
            Err(self.unsupported(op, d))
        }
    }

    pub(crate) fn unsupported(&self, op: &'static str, dtype: DType) -> Error {
        Error::Unsupported {
            op,
            dtype,
            adapter: self.inner.info.name.clone(),
        }
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
        MemoryPool {
            pool: self.inner.pool.clone(),
            dev: self.clone(),
        }
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
    /// an error for earlier work, [`Error::Timeout`] if the work is not done within
    /// `GPUARRAY_TIMEOUT_S` seconds (default 300).
    ///
    /// ```
    /// let dev = gpuarray::Device::new()?;
    /// let _x = dev.random_uniform::<f32>([1 << 16], 7)?;
    /// dev.synchronize()?;
    /// # Ok::<(), gpuarray::Error>(())
    /// ```
    pub fn synchronize(&self) -> Result<()> {
        let index = self.flush()?;
        let done = Arc::new(AtomicBool::new(false));
        let flag = done.clone();
        self.inner
            .queue
            .on_submitted_work_done(move || flag.store(true, Ordering::Release));
        self.wait_until(index, || done.load(Ordering::Acquire))
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
        {
            let mut batch = self.batch();
            batch.pass = None;
            batch.encoder = None;
            batch.params.clear();
            batch.slots = 0;
            batch.uploads.clear();
        }
        lock(&self.inner.lost).get_or_insert_with(|| "destroyed by Device::destroy".into());
        self.inner.device.destroy();
    }

    /// Errors recorded since the last check: a lost device, uncaptured wgpu errors.
    pub(crate) fn check(&self) -> Result<()> {
        if let Some(msg) = lock(&self.inner.lost).clone() {
            return Err(Error::DeviceLost(msg));
        }
        let mut errors = lock(&self.inner.errors);
        if !errors.is_empty() {
            let msg = errors.join("\n");
            errors.clear();
            return Err(Error::Validation(msg));
        }
        Ok(())
    }

    pub(crate) fn batch(&self) -> MutexGuard<'_, Batch> {
        lock(&self.inner.batch)
    }

    /// Records one dispatch into the pending batch. `record` gets the open compute pass and,
    /// without immediates, the dynamic offset of the parameter slot holding `params`.
    pub(crate) fn record_dispatch(
        &self,
        params: &[u8],
        record: impl FnOnce(&mut wgpu::ComputePass<'static>, Option<u32>),
    ) -> Result<()> {
        self.record_in_pass(params, !self.inner.immediates, record)
    }

    /// As [`Device::record_dispatch`], with `params` in an arena slot whether or not the
    /// device has immediates (`slot`), for kernels that read a uniform (raw kernels).
    pub(crate) fn record_in_pass(
        &self,
        params: &[u8],
        slot: bool,
        record: impl FnOnce(&mut wgpu::ComputePass<'static>, Option<u32>),
    ) -> Result<()> {
        debug_assert!(params.len() as u64 <= PARAM_SLOT);
        let mut batch = self.batch();
        let offset = batch.slots * PARAM_SLOT as u32;
        if slot {
            // Dispatches with immediates left no bytes in the arena: pad to this slot.
            batch.params.resize(offset as usize, 0);
            batch.params.extend_from_slice(params);
            let end = ((batch.slots + 1) as u64 * PARAM_SLOT) as usize;
            batch.params.resize(end, 0);
        }
        batch.slots += 1;
        let offset = slot.then_some(offset);
        let device = &self.inner.device;
        record(batch.pass(device), offset);
        self.inner.dispatches.fetch_add(1, Ordering::Relaxed);
        if batch.slots == BATCH_DISPATCHES {
            self.submit_locked(&mut batch);
        }
        Ok(())
    }

    /// Submits the pending batch while its lock is held.
    pub(crate) fn submit_locked(&self, batch: &mut Batch) -> Option<wgpu::SubmissionIndex> {
        batch.pass = None;
        let encoder = batch.encoder.take()?;
        if !batch.params.is_empty() {
            self.inner
                .queue
                .write_buffer(&self.inner.arena, 0, &batch.params);
        }
        batch.params.clear();
        batch.slots = 0;
        let index = self.inner.queue.submit([encoder.finish()]);
        self.inner.submits.fetch_add(1, Ordering::Relaxed);
        for buffer in batch.uploads.drain(..) {
            self.inner.staging.recycle_upload(buffer);
        }
        Some(index)
    }

    /// Submits the pending work (if any); returns the index to wait for.
    pub(crate) fn flush(&self) -> Result<Option<wgpu::SubmissionIndex>> {
        let mut batch = self.batch();
        let index = self.submit_locked(&mut batch);
        drop(batch);
        self.check()?;
        Ok(index)
    }

    /// Blocks until the submission (or all work, for `None`) is done, polling callbacks.
    /// Gives up with [`Error::Timeout`] after `GPUARRAY_TIMEOUT_S` seconds (default 300).
    pub(crate) fn wait(&self, index: Option<wgpu::SubmissionIndex>) -> Result<()> {
        let limit = self.inner.opts.timeout.as_secs();
        let start = Instant::now();
        loop {
            self.check()?;
            let r = self.inner.device.poll(wgpu::PollType::Wait {
                submission_index: index.clone(),
                timeout: Some(Duration::from_secs(1)),
            });
            match r {
                Ok(_) => return self.check(),
                Err(wgpu::PollError::Timeout) if start.elapsed().as_secs() >= limit => {
                    log::error!("gpuarray: work not done after {limit} s");
                    return Err(Error::Timeout { seconds: limit });
                }
                Err(wgpu::PollError::Timeout) => continue,
                Err(e) => {
                    self.check()?;
                    return Err(Error::DeviceLost(e.to_string()));
                }
            }
        }
    }

    /// Waits until `done()` holds, `done` being set by a callback of work up to `index`.
    /// Spins on non-blocking polls for up to `GPUARRAY_SPIN_US` microseconds (default
    /// 1000; short work finishes sooner than a blocking wait wakes up), then blocks.
    pub(crate) fn wait_until(
        &self,
        index: Option<wgpu::SubmissionIndex>,
        done: impl Fn() -> bool,
    ) -> Result<()> {
        let spin = self.inner.opts.spin;
        let start = Instant::now();
        loop {
            self.poll();
            if done() {
                return self.check();
            }
            if start.elapsed() >= spin {
                break;
            }
            std::hint::spin_loop();
        }
        let mut index = index;
        loop {
            self.wait(index.take())?;
            if done() {
                return Ok(());
            }
            let limit = self.inner.opts.timeout.as_secs();
            if start.elapsed().as_secs() >= limit {
                return Err(Error::Timeout { seconds: limit });
            }
            // The work is done but its callback has not run yet: poll again shortly.
            std::thread::sleep(Duration::from_micros(100));
        }
    }

    /// Polls without blocking, running any completed callbacks.
    pub(crate) fn poll(&self) {
        let _ = self.inner.device.poll(wgpu::PollType::Poll);
    }

    /// The parameter arena (a uniform buffer of [`BATCH_DISPATCHES`] slots).
    pub(crate) fn arena(&self) -> &wgpu::Buffer {
        &self.inner.arena
    }

    pub(crate) fn wgpu(&self) -> &wgpu::Device {
        &self.inner.device
    }

    pub(crate) fn same(&self, other: &Device) -> bool {
        Arc::ptr_eq(&self.inner, &other.inner)
    }

    /// The options the device was opened with.
    ///
    /// ```
    /// let dev = gpuarray::Device::new()?;
    /// assert!(dev.options().timeout.as_secs() > 0);
    /// # Ok::<(), gpuarray::Error>(())
    /// ```
    pub fn options(&self) -> &Options {
        &self.inner.opts
    }

    /// Whether kernel parameters travel as immediates rather than a uniform binding.
    pub(crate) fn immediates(&self) -> bool {
        self.inner.immediates
    }

    /// Whether the device has subgroup operations in compute shaders.
    pub(crate) fn has_subgroups(&self) -> bool {
        self.inner.features.contains(wgpu::Features::SUBGROUP)
    }

    /// Naga capabilities matching the device's features, for validating shaders.
    pub(crate) fn naga_capabilities(&self) -> naga::valid::Capabilities {
        let mut caps = naga::valid::Capabilities::empty();
        let f = self.inner.features;
        if f.contains(wgpu::Features::SHADER_F16) {
            caps |= naga::valid::Capabilities::SHADER_FLOAT16;
        }
        if f.contains(wgpu::Features::SHADER_F64) {
            caps |= naga::valid::Capabilities::FLOAT64;
        }
        if f.contains(wgpu::Features::SUBGROUP) {
            caps |= naga::valid::Capabilities::SUBGROUP;
        }
        if f.contains(wgpu::Features::IMMEDIATES) {
            caps |= naga::valid::Capabilities::IMMEDIATES;
        }
        if f.contains(wgpu::Features::EXPERIMENTAL_COOPERATIVE_MATRIX) {
            caps |= naga::valid::Capabilities::COOPERATIVE_MATRIX;
        }
        if self.inner.f16_in_f32 {
            caps |= naga::valid::Capabilities::SHADER_FLOAT16_IN_FLOAT32;
        }
        caps
    }

    /// Whether the device has wgpu's cooperative matrices (tensor cores).
    pub(crate) fn has_coop_matrix(&self) -> bool {
        self.inner
            .features
            .contains(wgpu::Features::EXPERIMENTAL_COOPERATIVE_MATRIX)
    }

    /// Runs `f` inside validation and out-of-memory error scopes; returns what they caught.
    pub(crate) fn scoped<R>(&self, f: impl FnOnce(&wgpu::Device) -> R) -> (R, Option<ScopeError>) {
        let d = &self.inner.device;
        let oom = d.push_error_scope(wgpu::ErrorFilter::OutOfMemory);
        let val = d.push_error_scope(wgpu::ErrorFilter::Validation);
        let r = f(d);
        let v = pollster::block_on(val.pop());
        let o = pollster::block_on(oom.pop());
        let err = match (o, v) {
            (Some(_), _) => Some(ScopeError::OutOfMemory),
            (None, Some(e)) => Some(ScopeError::Validation(e.to_string())),
            (None, None) => None,
        };
        (r, err)
    }
}

/// What one dispatch covers.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Work {
    /// This many work items, one per invocation: a 1-D grid of workgroups folded into 2-D.
    Items(u32),
    /// An explicit grid of workgroups (each extent at most 65,535), for kernels that tile a
    /// 2-D or 3-D problem.
    Groups([u32; 3]),
}

impl Device {
    /// The pipeline for `key`, compiling `spec()` on first use.
    pub(crate) fn kernel(&self, key: Key, spec: impl FnOnce() -> Spec) -> Result<Arc<Kernel>> {
        self.inner.kernels.get(self, key, spec)
    }

    /// Records one dispatch of `kernel` with `params`, reading `inputs` and writing
    /// `output`, over `work`. The one way operations launch a kernel.
    pub(crate) fn launch(
        &self,
        kernel: &Kernel,
        params: &Params,
        inputs: &[Binding<'_>],
        output: Binding<'_>,
        work: Work,
    ) -> Result<()> {
        match work {
            Work::Items(n) => {
                crate::kernel::launch::launch(self, kernel, params, inputs, output, n)
            }
            Work::Groups(g) => {
                crate::kernel::launch::launch_groups(self, kernel, params, inputs, output, g)
            }
        }
    }

    /// A device buffer of at least `bytes` bytes from the pool.
    pub(crate) fn alloc(&self, bytes: u64) -> Result<BufferHandle> {
        self.inner.pool.alloc(self, bytes)
    }
}

/// A GPU timestamp: a query written into the pending work, resolved when first read.
pub(crate) struct Stamp {
    set: wgpu::QuerySet,
    resolve: wgpu::Buffer,
    read: wgpu::Buffer,
    value: OnceLock<f64>,
}

impl Device {
    /// Whether events use GPU timestamps: the adapter has TIMESTAMP_QUERY and
    /// `GPUARRAY_EVENTS` is not `host`.
    pub(crate) fn has_timestamps(&self) -> bool {
        self.inner
            .features
            .contains(wgpu::Features::TIMESTAMP_QUERY)
            && !self.inner.opts.host_events
    }

    /// Writes a timestamp after the work recorded so far: inside the open compute pass
    /// where the adapter allows (TIMESTAMP_QUERY_INSIDE_PASSES), else between passes
    /// (INSIDE_ENCODERS), else as the start of an empty pass.
    pub(crate) fn write_stamp(&self) -> Result<Stamp> {
        self.check()?;
        let d = &self.inner.device;
        let set = d.create_query_set(&wgpu::QuerySetDescriptor {
            label: Some("gpuarray event"),
            ty: wgpu::QueryType::Timestamp,
            count: 1,
        });
        let buffer = |usage| {
            d.create_buffer(&wgpu::BufferDescriptor {
                label: Some("gpuarray event"),
                size: 8,
                usage,
                mapped_at_creation: false,
            })
        };
        let resolve = buffer(wgpu::BufferUsages::QUERY_RESOLVE | wgpu::BufferUsages::COPY_SRC);
        let read = buffer(wgpu::BufferUsages::MAP_READ | wgpu::BufferUsages::COPY_DST);
        let f = self.inner.features;
        let mut batch = self.batch();
        if f.contains(wgpu::Features::TIMESTAMP_QUERY_INSIDE_PASSES) {
            batch.pass(d).write_timestamp(&set, 0);
        } else if f.contains(wgpu::Features::TIMESTAMP_QUERY_INSIDE_ENCODERS) {
            batch.encoder(d).write_timestamp(&set, 0);
        } else {
            let pass = batch
                .encoder(d)
                .begin_compute_pass(&wgpu::ComputePassDescriptor {
                    label: Some("gpuarray event"),
                    timestamp_writes: Some(wgpu::ComputePassTimestampWrites {
                        query_set: &set,
                        beginning_of_pass_write_index: Some(0),
                        end_of_pass_write_index: None,
                    }),
                });
            drop(pass);
        }
        Ok(Stamp {
            set,
            resolve,
            read,
            value: OnceLock::new(),
        })
    }

    /// The time of `stamp` in milliseconds on the GPU's clock: resolves it (submitting the
    /// pending work) and waits for it, the first time.
    pub(crate) fn read_stamp(&self, stamp: &Stamp) -> Result<f64> {
        if let Some(v) = stamp.value.get() {
            return Ok(*v);
        }
        let index = {
            let mut batch = self.batch();
            let enc = batch.encoder(&self.inner.device);
            enc.resolve_query_set(&stamp.set, 0..1, &stamp.resolve, 0);
            enc.copy_buffer_to_buffer(&stamp.resolve, 0, &stamp.read, 0, 8);
            self.submit_locked(&mut batch)
        };
        self.check()?;
        let done = Arc::new(Mutex::new(None));
        let flag = done.clone();
        stamp
            .read
            .slice(..)
            .map_async(wgpu::MapMode::Read, move |r| *lock(&flag) = Some(r));
        self.wait_until(index, || lock(&done).is_some())?;
        if let Some(Err(e)) = lock(&done).take() {
            return Err(Error::Map(e.to_string()));
        }
        let ticks = {
            let view = stamp
                .read
                .slice(..)
                .get_mapped_range()
                .map_err(|e| Error::Map(e.to_string()))?;
            u64::from_le_bytes(view[..8].try_into().expect("8 bytes"))
        };
        stamp.read.unmap();
        let ms = ticks as f64 * self.inner.queue.get_timestamp_period() as f64 * 1e-6;
        Ok(*stamp.value.get_or_init(|| ms))
    }
}

impl Drop for Inner {
    fn drop(&mut self) {
        if lock(&self.lost).is_none() {
            self.kernels.save();
        }
    }
}

/// What an error scope caught.
pub(crate) enum ScopeError {
    OutOfMemory,
    Validation(String),
}

/// Locks a mutex, ignoring poisoning (a panic elsewhere leaves our state consistent: every
/// critical section is a few plain assignments).
pub(crate) fn lock<T>(m: &Mutex<T>) -> MutexGuard<'_, T> {
    m.lock().unwrap_or_else(|p| p.into_inner())
}
