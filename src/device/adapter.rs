//! Choosing an adapter and opening a device on it: [`Device::new`], [`Device::with_options`],
//! [`Device::enumerate`], [`Device::from_wgpu`]; what an adapter is ([`DeviceInfo`]).

use crate::config::{Backend, Options};
use crate::error::{Error, Result};
use crate::gpu::{lock, DRIVER_LOCK};

use super::Device;

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
    /// PCI device id (0 where the backend does not say).
    pub device_id: u32,
    /// PCI bus id, e.g. "0000:17:00.0" (empty where the backend does not say).
    pub pci_bus_id: String,
    /// The adapter's place in [`Device::enumerate`]'s list: `Some` for devices opened by
    /// [`Device::new`], [`Device::with_options`], [`Device::open`] and for every entry of
    /// [`Device::enumerate`]; `None` for a device built with [`Device::from_wgpu`].
    pub index: Option<usize>,
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
    /// Whether the adapter's arithmetic flushes subnormal values to zero (Vulkan allows it),
    /// per float dtype: measured once when the device opens, `None` from
    /// [`Device::enumerate`] (no device open) and for a dtype the adapter lacks.
    pub flushes_subnormals: Subnormals,
    /// Whether the adapter's f64 `fma` is fused (rounded once; Vulkan lets it be a product
    /// and a sum, each rounded, as lavapipe's is): measured once when the device opens,
    /// `None` from [`Device::enumerate`] and where the adapter lacks f64. Where it is, the
    /// f64 functions take their exact products from one fma instead of Dekker's splitting
    /// (the same results, fewer operations).
    ///
    /// ```
    /// let dev = gpuarray::Device::new()?;
    /// assert_eq!(dev.info().f64_fma_fused.is_some(), dev.supports::<f64>());
    /// # Ok::<(), gpuarray::Error>(())
    /// ```
    pub f64_fma_fused: Option<bool>,
}

/// Whether arithmetic in each float dtype flushes subnormal values (magnitudes below
/// 2^-14 for f16, 2^-126 for f32, 2^-1022 for f64) to zero, reading them as zeros and
/// writing zeros for results in that range: [`DeviceInfo::flushes_subnormals`], measured
/// when a device opens by multiplying the smallest subnormal (read from a buffer, so that no
/// compiler folds it) by 3.
///
/// Where a dtype flushes: subnormals compare equal to zero (`eq` of 0 and 1.4e-45 gives 1,
/// `lt` gives 0), `maximum` of a negative subnormal and zero, and a `max` reduction whose
/// largest value is a negative subnormal, may give -0; functions of a subnormal are those
/// of zero (`log(1.4e-45)` is -inf, not -103.28); results below the normal range are
/// zeros of their sign; exact operations (`rem`, casts) are exact only outside that range.
/// lavapipe keeps subnormals; NVIDIA's Vulkan driver flushes f32 (issue 15).
///
/// ```
/// let dev = gpuarray::Device::new()?;
/// let f = dev.info().flushes_subnormals;
/// assert!(f.f32.is_some());
/// if f.f32 == Some(false) {
///     let x = dev.from_slice(&[1e-45f32], [1])?;
///     assert_eq!(x.gt_scalar(0.0)?.to_vec()?, vec![true]);
/// }
/// # Ok::<(), gpuarray::Error>(())
/// ```
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Hash)]
#[non_exhaustive]
pub struct Subnormals {
    /// f16 (where the adapter has SHADER_F16).
    pub f16: Option<bool>,
    /// f32.
    pub f32: Option<bool>,
    /// f64 (where the adapter has SHADER_F64).
    pub f64: Option<bool>,
}

const FEATURES: [(wgpu::Features, &str); 12] = [
    (wgpu::Features::SHADER_F16, "SHADER_F16"),
    (wgpu::Features::SHADER_F64, "SHADER_F64"),
    (wgpu::Features::SHADER_INT64, "SHADER_INT64"),
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
    // Native f32 atomic adds (scatter_add).
    (
        wgpu::Features::SHADER_FLOAT32_ATOMIC,
        "SHADER_FLOAT32_ATOMIC",
    ),
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

pub(super) fn info_of(i: &wgpu::AdapterInfo, features: wgpu::Features) -> DeviceInfo {
    DeviceInfo {
        name: i.name.clone(),
        backend: backend_name(i.backend),
        kind: kind_of(i.device_type),
        vendor: i.vendor,
        device_id: i.device,
        pci_bus_id: i.device_pci_bus_id.clone(),
        index: None,
        driver: i.driver.clone(),
        driver_info: i.driver_info.clone(),
        subgroup_min_size: i.subgroup_min_size,
        subgroup_max_size: i.subgroup_max_size,
        features: FEATURES
            .iter()
            .filter(|(f, _)| features.contains(*f))
            .map(|(_, n)| *n)
            .collect(),
        flushes_subnormals: Subnormals::default(),
        f64_fma_fused: None,
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

fn backend_rank(b: wgpu::Backend) -> u32 {
    match b {
        wgpu::Backend::Vulkan => 0,
        wgpu::Backend::Metal => 1,
        wgpu::Backend::Dx12 => 2,
        wgpu::Backend::Gl => 3,
        _ => 4,
    }
}

/// The order of [`Device::enumerate`]: backend (Vulkan, Metal, DX12, GL), then PCI bus id,
/// vendor id, device id, name, driver and driver text. It depends only on what the adapters
/// are, never on the order the driver lists them in, so an index names the same adapter
/// in every call and every process on the machine.
fn order_key(i: &wgpu::AdapterInfo) -> impl Ord + use<> {
    (
        backend_rank(i.backend),
        i.device_pci_bus_id.clone(),
        i.vendor,
        i.device,
        i.name.clone(),
        i.driver.clone(),
        i.driver_info.clone(),
    )
}

fn adapters_of(backends: wgpu::Backends) -> Vec<wgpu::Adapter> {
    let _driver = lock(&DRIVER_LOCK);
    let mut desc = wgpu::InstanceDescriptor::new_without_display_handle_from_env();
    desc.backends = backends;
    let instance = wgpu::Instance::new(desc);
    let mut all = pollster::block_on(instance.enumerate_adapters(backends));
    all.sort_by_cached_key(|a| order_key(&a.get_info()));
    all
}

/// The adapters of the chosen backends in [`Device::enumerate`]'s order; without a choice, GL only where Vulkan, Metal and
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
    /// `GPUARRAY_BACKEND`, [`Error::InvalidOption`] for another malformed `GPUARRAY_*`
    /// variable ([`Options::from_env`]), [`Error::RequestDevice`] when the adapter refuses.
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
    /// As [`Device::new`], less [`Error::InvalidOption`] (nothing is read from the
    /// environment).
    ///
    /// ```
    /// use gpuarray::{config::{Options, ParamsPath}, Device};
    /// let mut opts = Options::default();
    /// opts.tuning.params = ParamsPath::Uniform; // parameters through the uniform arena
    /// let dev = Device::with_options(opts)?;
    /// assert_eq!(dev.from_slice(&[1i32, 2], [2])?.add_scalar(1)?.to_vec()?, vec![2, 3]);
    /// # Ok::<(), gpuarray::Error>(())
    /// ```
    pub fn with_options(opts: Options) -> Result<Device> {
        let filter = opts.adapter.clone().unwrap_or_default().to_lowercase();
        let (index, adapter) = adapters(opts.backend)
            .into_iter()
            .enumerate()
            .filter(|(_, a)| a.get_info().name.to_lowercase().contains(&filter))
            .min_by_key(|(index, a)| {
                let i = a.get_info();
                (
                    rank(kind_of(i.device_type)),
                    (i.backend == wgpu::Backend::Gl) as u32,
                    *index,
                )
            })
            .ok_or(Error::NoAdapter { filter })?;
        Self::from_adapter(&adapter, opts, index)
    }

    /// Opens the adapter at `index` of [`Device::enumerate`]'s list, with the options of
    /// the environment ([`Options::from_env`]), as CuPy's `cp.cuda.Device(index)`.
    ///
    /// # Errors
    /// [`Error::NoSuchDevice`] when `index` is not below the number of adapters (nothing is
    /// opened), and those of [`Device::new`].
    ///
    /// ```
    /// let n = gpuarray::Device::enumerate()?.len();
    /// let dev = gpuarray::Device::open(0)?;
    /// assert_eq!(dev.info().index, Some(0));
    /// assert!(matches!(gpuarray::Device::open(n),
    ///                  Err(gpuarray::Error::NoSuchDevice { count, .. }) if count == n));
    /// # Ok::<(), gpuarray::Error>(())
    /// ```
    pub fn open(index: usize) -> Result<Device> {
        Self::open_with_options(index, Options::from_env()?)
    }

    /// Opens the adapter at `index` of [`Device::enumerate`]'s list (listed under
    /// `opts.backend`) with these options; `opts.adapter` is not consulted: the index
    /// chooses.
    ///
    /// # Errors
    /// [`Error::NoSuchDevice`] when `index` is out of range; those of
    /// [`Device::with_options`].
    ///
    /// ```
    /// let mut opts = gpuarray::Options::default();
    /// opts.tuning.subgroups = false;
    /// let dev = gpuarray::Device::open_with_options(0, opts)?;
    /// assert_eq!(dev.from_slice(&[1u32, 2], [2])?.sum()?.to_scalar()?, 3);
    /// # Ok::<(), gpuarray::Error>(())
    /// ```
    pub fn open_with_options(index: usize, opts: Options) -> Result<Device> {
        let mut all = adapters(opts.backend);
        let count = all.len();
        if index >= count {
            return Err(Error::NoSuchDevice { index, count });
        }
        let adapter = all.swap_remove(index);
        Self::from_adapter(&adapter, opts, index)
    }

    /// Opens every adapter of [`Device::enumerate`]'s list that is a GPU (discrete,
    /// integrated or virtual), in index order, with the environment's options; where
    /// there is none, the best adapter there is (as [`Device::new`]: lavapipe on a
    /// machine without a GPU).
    ///
    /// # Errors
    /// Those of [`Device::new`]; nothing stays open after an error.
    ///
    /// ```
    /// let devs = gpuarray::Device::open_gpus()?;
    /// assert!(!devs.is_empty());
    /// # Ok::<(), gpuarray::Error>(())
    /// ```
    pub fn open_gpus() -> Result<Vec<Device>> {
        let opts = Options::from_env()?;
        let gpus: Vec<usize> = Self::enumerate()?
            .iter()
            .filter(|i| rank(i.kind) <= rank(DeviceKind::VirtualGpu))
            .filter_map(|i| i.index)
            .collect();
        if gpus.is_empty() {
            return Ok(vec![Self::with_options(opts)?]);
        }
        gpus.into_iter()
            .map(|i| Self::open_with_options(i, opts.clone()))
            .collect()
    }

    /// Lists the adapters there are (after `GPUARRAY_BACKEND`, if set), each with its
    /// index for [`Device::open`]. The order is fixed by what the adapters are: backend
    /// (Vulkan, Metal, DX12, GL), then PCI bus id, vendor id, device id and name, so an
    /// index names the same adapter in every call.
    ///
    /// # Errors
    /// [`Error::UnknownBackend`] for a bad `GPUARRAY_BACKEND`, [`Error::InvalidOption`] for
    /// another malformed `GPUARRAY_*` variable.
    ///
    /// ```
    /// for (i, info) in gpuarray::Device::enumerate()?.iter().enumerate() {
    ///     assert_eq!(info.index, Some(i));
    ///     println!("{i}: {} on {}: {:?}", info.name, info.backend, info.kind);
    /// }
    /// # Ok::<(), gpuarray::Error>(())
    /// ```
    pub fn enumerate() -> Result<Vec<DeviceInfo>> {
        Ok(adapters(Options::from_env()?.backend)
            .iter()
            .enumerate()
            .map(|(index, a)| DeviceInfo {
                index: Some(index),
                ..info_of(&a.get_info(), a.features())
            })
            .collect())
    }

    fn from_adapter(adapter: &wgpu::Adapter, opts: Options, index: usize) -> Result<Device> {
        let mut features = adapter.features() & wanted_features();
        if !opts.tuning.coop {
            features.remove(wgpu::Features::EXPERIMENTAL_COOPERATIVE_MATRIX);
        }
        if !opts.tuning.int64 {
            features.remove(wgpu::Features::SHADER_INT64);
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
        let dev = {
            let _driver = lock(&DRIVER_LOCK);
            let (device, queue) =
                pollster::block_on(adapter.request_device(&desc)).map_err(|e| {
                    Error::RequestDevice {
                        adapter: adapter.get_info().name,
                        reason: e.to_string(),
                    }
                })?;
            let f16_in_f32 = adapter
                .get_downlevel_capabilities()
                .flags
                .contains(wgpu::DownlevelFlags::SHADER_F16_IN_F32);
            let mut dev = Self::from_parts(device, queue, f16_in_f32, opts);
            if let Some(inner) = std::sync::Arc::get_mut(&mut dev.inner) {
                inner.info.index = Some(index);
            }
            dev
        };
        // Waits for the GPU take the driver lock: the probes run after it is released.
        Ok(dev.probed())
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
    /// opts.tuning.subgroups = false;
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
        Self::from_parts(device, queue, f16_in_f32, opts).probed()
    }
}
