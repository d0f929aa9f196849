//! [`Options`]: every switch and tuning knob of a [`crate::Device`], in one place.
//!
//! A device is opened with options ([`crate::Device::with_options`]); [`Options::default`]
//! gives the measured defaults, and [`Options::from_env`] (what [`crate::Device::new`] uses)
//! reads the `GPUARRAY_*` environment variables over them. `from_env` is the only code in
//! gpuarray that reads the environment, and it reads it once per device, when the device is
//! opened: operations consult the device's options, never the process environment.
//!
//! Tests choose a code path by opening a device with other options (parameters through a
//! uniform buffer, small reads through a kernel, no subgroup shuffles, a forced kernel), so
//! every path runs in one test binary.

use std::path::PathBuf;
use std::time::Duration;

use crate::error::{Error, Result};

/// A graphics API that wgpu can drive.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
#[non_exhaustive]
pub enum Backend {
    /// Vulkan (Linux, Windows, Android; lavapipe on CPU-only machines).
    Vulkan,
    /// Metal (macOS, iOS).
    Metal,
    /// Direct3D 12 (Windows).
    Dx12,
    /// OpenGL / OpenGL ES (a fallback).
    Gl,
}

impl Backend {
    /// Parses `vulkan`/`vk`, `metal`, `dx12`/`d3d12`, `gl`/`gles`/`opengl` (any case).
    ///
    /// # Errors
    /// [`Error::UnknownBackend`] for any other text.
    ///
    /// ```
    /// use gpuarray::config::Backend;
    /// assert_eq!(Backend::parse("VK")?, Backend::Vulkan);
    /// assert!(Backend::parse("glide").is_err());
    /// # Ok::<(), gpuarray::Error>(())
    /// ```
    pub fn parse(s: &str) -> Result<Backend> {
        match s.to_lowercase().as_str() {
            "vulkan" | "vk" => Ok(Backend::Vulkan),
            "metal" => Ok(Backend::Metal),
            "dx12" | "d3d12" => Ok(Backend::Dx12),
            "gl" | "gles" | "opengl" => Ok(Backend::Gl),
            _ => Err(Error::UnknownBackend(s.to_string())),
        }
    }
}

/// A tile configuration of the tiled matrix-product kernel (f32, and f16 without
/// cooperative matrices): workgroup tile `bm` x `bn`, depth `bk`, `tm` x `tn` outputs per
/// invocation.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub struct MatmulTiles {
    /// Rows of the workgroup tile.
    pub bm: u32,
    /// Columns of the workgroup tile.
    pub bn: u32,
    /// Depth of one step along K.
    pub bk: u32,
    /// Rows per invocation.
    pub tm: u32,
    /// Columns per invocation.
    pub tn: u32,
}

/// A configuration of the staged cooperative-matrix (tensor-core) kernel:
/// `sgm` x `sgn` subgroups of `fm` x `fn_` 16x16 fragments, depth `bk`, `stages` workgroup
/// buffers and loads `depth` steps ahead (kernel defaults where `None`).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub struct CoopVariant {
    /// Subgroups along M.
    pub sgm: u32,
    /// Subgroups along N.
    pub sgn: u32,
    /// Fragments per subgroup along M.
    pub fm: u32,
    /// Fragments per subgroup along N.
    pub fn_: u32,
    /// Depth of one step along K.
    pub bk: u32,
    /// Workgroup-memory stages (1 or 2).
    pub stages: Option<u32>,
    /// Steps loads are issued ahead (1 to 4).
    pub depth: Option<u32>,
}

impl CoopVariant {
    /// Parses `SGMxSGN:FMxFN:BK[:STAGES[:DEPTH]]`, as `GPUARRAY_COOP_VARIANT` gives it.
    /// Whether the configuration is usable is for the kernel and the adapter's limits.
    ///
    /// # Errors
    /// [`Error::InvalidOption`] when the text is not five to seven numbers.
    ///
    /// ```
    /// use gpuarray::config::CoopVariant;
    /// let v = CoopVariant::parse("4x4:2x4:32:1:2")?;
    /// assert_eq!((v.sgm, v.fn_, v.bk, v.depth), (4, 4, 32, Some(2)));
    /// assert!(CoopVariant::parse("4x4:2").is_err());
    /// # Ok::<(), gpuarray::Error>(())
    /// ```
    pub fn parse(s: &str) -> Result<CoopVariant> {
        let bad = || {
            invalid(
                "GPUARRAY_COOP_VARIANT",
                s,
                "SGMxSGN:FMxFN:BK[:STAGES[:DEPTH]]",
            )
        };
        let n: Vec<u32> = s
            .split([':', 'x'])
            .map(|x| x.trim().parse().ok())
            .collect::<Option<_>>()
            .ok_or_else(bad)?;
        if !(5..=7).contains(&n.len()) {
            return Err(bad());
        }
        Ok(CoopVariant {
            sgm: n[0],
            sgn: n[1],
            fm: n[2],
            fn_: n[3],
            bk: n[4],
            stages: n.get(5).copied(),
            depth: n.get(6).copied(),
        })
    }
}

/// How parameters (sizes, strides, scalars) reach the kernels.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Default)]
#[non_exhaustive]
pub enum ParamsPath {
    /// Immediates (push constants) where the adapter has them, else the uniform arena.
    #[default]
    Auto,
    /// Always a slot of the uniform arena (`GPUARRAY_PARAMS=uniform`; tests use it).
    Uniform,
}

/// How small arrays are read back on adapters that can map storage buffers.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Default)]
#[non_exhaustive]
pub enum SmallRead {
    /// Map the array's buffer directly on UMA adapters (integrated GPUs, lavapipe); copy
    /// through a kernel into host-visible memory on discrete ones.
    #[default]
    Auto,
    /// Always through the copy kernel, where the adapter can map storage buffers at all
    /// (`GPUARRAY_SMALL_READ=kernel`; tests use it).
    Kernel,
}

/// Where the driver's compiled pipelines are kept between runs.
#[derive(Debug, Clone, PartialEq, Eq, Hash, Default)]
#[non_exhaustive]
pub enum PipelineCacheDir {
    /// The platform's cache folder (`$XDG_CACHE_HOME/gpuarray`, `~/.cache/gpuarray`,
    /// `~/Library/Caches/gpuarray`, `%LOCALAPPDATA%\gpuarray`), read when the options are
    /// made.
    #[default]
    Platform,
    /// This folder.
    Dir(PathBuf),
    /// No on-disk cache.
    Off,
}

/// Every switch and tuning knob of a device. Defaults were measured on the adapters named
/// beside them; the environment variable of each field is the one [`Options::from_env`]
/// reads.
///
/// ```
/// use gpuarray::{config::Options, Device};
/// let mut opts = Options::default();
/// opts.subgroups = false; // reduction trees in workgroup memory only (same bits)
/// let dev = Device::with_options(opts)?;
/// assert_eq!(dev.from_slice(&[1.0f32, 2.0, 3.0], [3])?.sum()?.to_scalar()?, 6.0);
/// # Ok::<(), gpuarray::Error>(())
/// ```
#[derive(Debug, Clone, PartialEq)]
#[non_exhaustive]
pub struct Options {
    /// Open the first adapter whose name contains this (case-insensitive);
    /// `GPUARRAY_ADAPTER`. Default: any.
    pub adapter: Option<String>,
    /// Only this backend; `GPUARRAY_BACKEND` (`vulkan`, `metal`, `dx12`, `gl`). Default:
    /// Vulkan, Metal and DX12, then GL where they have no adapter.
    pub backend: Option<Backend>,
    /// How long a wait spins on non-blocking polls before it blocks; `GPUARRAY_SPIN_US`.
    /// Default 1 ms: short work finishes sooner than a blocked thread wakes up (H100 and
    /// lavapipe, 2026-11-20).
    pub spin: Duration,
    /// How long a wait blocks before [`Error::Timeout`] (after which the device is no longer
    /// used); `GPUARRAY_TIMEOUT_S`, whole or fractional seconds. Default 300 s.
    /// [`crate::Device::set_timeout`] changes it on an open device.
    pub timeout: Duration,
    /// How parameters reach the kernels; `GPUARRAY_PARAMS=uniform`. Default: immediates
    /// where the adapter has them.
    pub params: ParamsPath,
    /// How small arrays are read back; `GPUARRAY_SMALL_READ=kernel`. Default: by the kind
    /// of adapter.
    pub small_read: SmallRead,
    /// Reduction trees begin with subgroup shuffles where the adapter's subgroups have at
    /// least 8 invocations (the same tree, the same bits), and the radix sort's scatter
    /// ranks keys by subgroup ballots (the same order); `GPUARRAY_SUBGROUPS=0` turns both
    /// off. Default on.
    pub subgroups: bool,
    /// Workgroups a reduction with few outputs spreads over; `GPUARRAY_REDUCE_GROUPS`.
    /// Default (`None`): 528 on GPUs (four per SM of an H100), 32 on CPUs. Results change
    /// in the last bits with it, since the tree changes.
    pub reduce_groups: Option<u32>,
    /// Split reductions whose outputs each span one workgroup's rows combine their partial
    /// results in the last workgroup of each output to finish (counted with an atomic; the
    /// same fixed order every run) instead of a second dispatch; `GPUARRAY_REDUCE_FUSE=0`
    /// turns it off. Default on.
    pub reduce_fuse: bool,
    /// Print each reduction stage's GPU time to stderr; `GPUARRAY_REDUCE_PROFILE` (any
    /// value). Diagnostics: every stage waits for its timestamps.
    pub reduce_profile: bool,
    /// Force the tiled matrix-product kernel's tiles; `GPUARRAY_MATMUL_TILES=BM,BN,BK,TM,TN`.
    /// Default: a timed trial per device and size class.
    pub matmul_tiles: Option<MatmulTiles>,
    /// Print the matrix-product tile trial; `GPUARRAY_MATMUL_VERBOSE` (any value).
    pub matmul_verbose: bool,
    /// Print each matrix product's path to stderr (matrix-vector, split-K, cooperative
    /// matrices with their tiles and load widths, tiled with its tiles and how they were
    /// chosen); `GPUARRAY_LINALG_TRACE` (any value). Diagnostics.
    pub linalg_trace: bool,
    /// Print each radix sort stage's GPU time to stderr; `GPUARRAY_SORT_PROFILE` (any
    /// value). Diagnostics: every stage waits for its timestamps.
    pub sort_profile: bool,
    /// Workgroup size of the radix sort's staged scatter (its writes go through workgroup
    /// memory in runs of one digit; at most 8 subgroups, 256 invocations), or 0 for the
    /// unstaged scatter (each lane stores its own keys); `GPUARRAY_RADIX_STAGE`. Default
    /// 128: on the H100 (2026-11-23) the scatter of 64M u32 keys took 2.57 ms (4 passes)
    /// staged in workgroups of 128, 3.01 in workgroups of 256, 3.17 of 64, 4.34 unstaged.
    pub radix_stage: u32,
    /// The radix scatter's subgroup ballots in four words (up to 128 lanes) even where every
    /// subgroup has at most 32 lanes and one word would do; `GPUARRAY_RADIX_WIDE_BALLOTS=1`.
    /// Default off (testing: adapters with 64-lane subgroups take the four-word path).
    pub radix_wide_ballots: bool,
    /// Compile every kernel with naga's runtime checks (indices clamped, loops bounded),
    /// the ones that index in bounds by construction (`Spec::unchecked`: the products, the
    /// convolutions, the radix sort's passes) included; `GPUARRAY_CHECKED=1`. Default off
    /// (diagnostics: a suspected out-of-bounds access, and timing what the checks cost).
    pub checked_kernels: bool,
    /// Products with one row or one column (matrix-vector, vector-matrix) through the
    /// bandwidth-bound matrix-vector kernel; `GPUARRAY_MATMUL_GEMV=0` sends them to the
    /// tiled kernel. Default on.
    pub matmul_gemv: bool,
    /// Products with a long K and few output tiles split K into slices summed in order;
    /// `GPUARRAY_MATMUL_SPLIT_K=0` turns it off. Default on.
    pub matmul_split_k: bool,
    /// `top_k` of f16 and f64 rows (the other dtypes take a radix select) by per-tile
    /// selection (each tile's k best by a bitonic sort in workgroup memory, in rounds)
    /// instead of a full sort; `GPUARRAY_TOP_K_SELECT=1`. Default off: for f32, k = 100 of
    /// 64M took 22.3 ms this way against 13.3 ms for the sort on the H100 (2026-11-23).
    pub top_k_select: bool,
    /// f32 `scatter_add` with the adapter's native atomic add where it has
    /// SHADER_FLOAT32_ATOMIC; `GPUARRAY_FLOAT_ATOMICS=0` sends it to the compare-and-swap
    /// loop that adapters without it use. Default on.
    pub float_atomics: bool,
    /// Ask for SHADER_INT64 where the adapter has it; `GPUARRAY_INT64=0` opens the device
    /// without it (`i64`/`u64` arrays then give `Unsupported`, index arrays still work), to
    /// test what adapters without it do. Default on.
    pub int64: bool,
    /// Use cooperative matrices (tensor cores) for f16 products where the adapter has
    /// them; `GPUARRAY_COOP=0` turns them off. Default on.
    pub coop: bool,
    /// Force the cooperative-matrix kernel's configuration; `GPUARRAY_COOP_VARIANT`.
    /// Default: 128x256 tiles where there are at least 256 of them, else 64x128 (H100,
    /// 2026-11-22).
    pub coop_variant: Option<CoopVariant>,
    /// Load width of the cooperative-matrix kernel's tile copies, in halves (4 or 8);
    /// `GPUARRAY_COOP_UNIT`. Default: the configuration's.
    pub coop_unit: Option<u32>,
    /// Epilogue of the cooperative-matrix kernel (0 direct stores, 1 through workgroup
    /// memory); `GPUARRAY_COOP_EPI`. Default: the configuration's.
    pub coop_epi: Option<u32>,
    /// Write each generated cooperative-matrix kernel's WGSL into this folder (for
    /// debugging); `GPUARRAY_COOP_DUMP`.
    pub coop_dump: Option<PathBuf>,
    /// Convolutions through the direct (untiled) kernels, to compare them;
    /// `GPUARRAY_CONV_DIRECT=1`. Default off.
    pub conv_direct: bool,
    /// 1x1 convolutions without padding that are too small to fill the GPU on the conv GEMM
    /// kernel run as batched matrix products (linalg's `matmul`); larger ones always run on
    /// the GEMM kernel. `GPUARRAY_CONV_POINTWISE=0` runs every 1x1 layer on the conv kernels.
    /// Default on.
    pub conv_pointwise: bool,
    /// Force the implicit-GEMM conv2d kernel's tiles where it runs and supports them (TM and
    /// TN 4 or 8; tuning); `GPUARRAY_CONV_TILES=BM,BN,BK,TM,TN`. Default: by layer shape.
    pub conv_tiles: Option<MatmulTiles>,
    /// Events time with the host clock even where the adapter has timestamp queries;
    /// `GPUARRAY_EVENTS=host`. Default off.
    pub host_events: bool,
    /// Where compiled pipelines are kept between runs, where the adapter has
    /// PIPELINE_CACHE; `GPUARRAY_PIPELINE_CACHE` (`0`/`off` for none, or a folder).
    pub pipeline_cache: PipelineCacheDir,
    /// Print the GPU time of each pass of the ziggurat's normals to stderr;
    /// `GPUARRAY_ZIG_PROFILE` (any value). Diagnostics: each pass waits for its timestamps.
    pub zig_profile: bool,
    /// Timing variants of the ziggurat's normals, whose values they leave wrong
    /// (`GPUARRAY_ZIG_AB`): 2 no second pass, 3 no second pass and no list appends in the
    /// first. Default 0 (the normals); 1, the first version's second pass in session 12's
    /// measurement, is now 0.
    pub zig_ab: u32,
    /// Large f32 products on the 128 x 128 kernel of shaders/linalg_big.wgsl (M and N
    /// multiples of 128, K of its depth, operands with vec4 loads);
    /// `GPUARRAY_MATMUL_BIG`: `0` never, `8` or `16` always where eligible at that depth,
    /// any other number always at the deepest eligible depth. Default (`None`): where the
    /// tile trial finds it fastest.
    pub matmul_big: Option<u32>,
    /// Where `matmul_big` forces the large f32 kernel, its warps of 8 x 4 invocations
    /// instead of 16 x 2; `GPUARRAY_MATMUL_BIG_QUAD=1`. Default off (the trial times both).
    pub matmul_big_quad: bool,
    /// The radix sort in onesweep form where its subgroup scatter runs unstaged: every
    /// pass's digit histogram from one read of the keys, and each scatter pass's tile
    /// offsets by a chained scan with decoupled look-back (one dispatch a pass instead of
    /// five); `GPUARRAY_RADIX_ONESWEEP=1`. Default off: on the H100 (2026-11-23) the
    /// look-back scatter cost what the histograms saved (64M u32 5.68 ms either way; 16M
    /// f32 1.71 against 1.64 ms, its argsort 3.65 against 3.28).
    pub radix_onesweep: bool,
    /// Re-reads of unset predecessor statuses an invocation of the onesweep look-back may
    /// spend before it counts those tiles' keys itself (0: the nearest predecessor always,
    /// to test that path); `GPUARRAY_RADIX_SPIN`. Default: 4096.
    pub radix_spin: Option<u32>,
}

impl Default for Options {
    fn default() -> Options {
        Options {
            adapter: None,
            backend: None,
            spin: Duration::from_micros(1000),
            timeout: Duration::from_secs(300),
            params: ParamsPath::Auto,
            small_read: SmallRead::Auto,
            subgroups: true,
            reduce_groups: None,
            reduce_fuse: true,
            reduce_profile: false,
            matmul_tiles: None,
            matmul_verbose: false,
            linalg_trace: false,
            sort_profile: false,
            radix_stage: 128,
            radix_wide_ballots: false,
            checked_kernels: false,
            matmul_gemv: true,
            matmul_split_k: true,
            top_k_select: false,
            float_atomics: true,
            int64: true,
            coop: true,
            coop_variant: None,
            coop_unit: None,
            coop_epi: None,
            coop_dump: None,
            conv_direct: false,
            conv_pointwise: true,
            conv_tiles: None,
            host_events: false,
            pipeline_cache: PipelineCacheDir::Platform,
            zig_profile: false,
            zig_ab: 0,
            matmul_big: None,
            matmul_big_quad: false,
            radix_onesweep: false,
            radix_spin: None,
        }
    }
}

/// The error of a malformed variable.
fn invalid(name: &'static str, value: &str, expected: &'static str) -> Error {
    Error::InvalidOption {
        name,
        value: value.to_string(),
        expected,
    }
}

impl Options {
    /// The defaults, with every `GPUARRAY_*` variable that is set (and not empty) applied.
    ///
    /// # Errors
    /// [`Error::UnknownBackend`] for a bad `GPUARRAY_BACKEND`, [`Error::InvalidOption`] for
    /// any other malformed value (a number that is not one, an unknown switch value).
    ///
    /// ```
    /// let opts = gpuarray::config::Options::from_env()?;
    /// let dev = gpuarray::Device::with_options(opts)?; // what Device::new() does
    /// # Ok::<(), gpuarray::Error>(())
    /// ```
    pub fn from_env() -> Result<Options> {
        Self::from_lookup(|name| std::env::var(name).ok().filter(|v| !v.is_empty()))
    }

    /// The defaults with the variables that `get` gives applied (`from_env` with
    /// `std::env::var`); separate so that tests can parse without touching the process
    /// environment.
    // Long because it is the list of variables, a few lines each, in the order of the
    // fields; helpers above keep each entry short.
    pub(crate) fn from_lookup(get: impl Fn(&str) -> Option<String>) -> Result<Options> {
        let mut o = Options::default();
        let num = |name: &'static str| -> Result<Option<u64>> {
            get(name)
                .map(|v| {
                    v.trim()
                        .parse::<u64>()
                        .map_err(|_| invalid(name, &v, "a whole number"))
                })
                .transpose()
        };
        let small = |name: &'static str| -> Result<Option<u32>> {
            num(name)?
                .map(|v| u32::try_from(v).map_err(|_| invalid(name, &v.to_string(), "a u32")))
                .transpose()
        };
        let switch = |name: &'static str, on: &[&str], off: &[&str]| -> Result<Option<bool>> {
            match get(name) {
                None => Ok(None),
                Some(v) if on.contains(&v.to_lowercase().as_str()) => Ok(Some(true)),
                Some(v) if off.contains(&v.to_lowercase().as_str()) => Ok(Some(false)),
                Some(v) => Err(invalid(name, &v, "one of the documented values")),
            }
        };
        const ON: &[&str] = &["1", "on", "true", "yes"];
        const OFF: &[&str] = &["0", "off", "false", "no"];

        o.adapter = get("GPUARRAY_ADAPTER");
        o.backend = get("GPUARRAY_BACKEND")
            .map(|v| Backend::parse(&v))
            .transpose()?;
        if let Some(us) = num("GPUARRAY_SPIN_US")? {
            o.spin = Duration::from_micros(us);
        }
        if let Some(v) = get("GPUARRAY_TIMEOUT_S") {
            o.timeout = v
                .trim()
                .parse::<f64>()
                .ok()
                .and_then(|s| Duration::try_from_secs_f64(s).ok())
                .ok_or_else(|| invalid("GPUARRAY_TIMEOUT_S", &v, "a number of seconds"))?;
        }
        if let Some(v) = get("GPUARRAY_PARAMS") {
            o.params = match v.to_lowercase().as_str() {
                "uniform" => ParamsPath::Uniform,
                "auto" | "immediate" | "immediates" => ParamsPath::Auto,
                _ => return Err(invalid("GPUARRAY_PARAMS", &v, "uniform or auto")),
            };
        }
        if let Some(v) = get("GPUARRAY_SMALL_READ") {
            o.small_read = match v.to_lowercase().as_str() {
                "kernel" => SmallRead::Kernel,
                "auto" => SmallRead::Auto,
                _ => return Err(invalid("GPUARRAY_SMALL_READ", &v, "kernel or auto")),
            };
        }
        if let Some(on) = switch("GPUARRAY_SUBGROUPS", ON, OFF)? {
            o.subgroups = on;
        }
        o.reduce_groups = small("GPUARRAY_REDUCE_GROUPS")?.filter(|&g| g > 0);
        if let Some(on) = switch("GPUARRAY_REDUCE_FUSE", ON, OFF)? {
            o.reduce_fuse = on;
        }
        // Tiles as BM,BN,BK,TM,TN.
        let tiles = |name: &'static str| -> Result<Option<MatmulTiles>> {
            let Some(v) = get(name) else { return Ok(None) };
            let n: Option<Vec<u32>> = v.split(',').map(|x| x.trim().parse().ok()).collect();
            match n.as_deref() {
                Some(&[bm, bn, bk, tm, tn]) => Ok(Some(MatmulTiles { bm, bn, bk, tm, tn })),
                _ => Err(invalid(name, &v, "BM,BN,BK,TM,TN")),
            }
        };
        if let Some(t) = tiles("GPUARRAY_MATMUL_TILES")? {
            o.matmul_tiles = Some(t);
        }
        if let Some(t) = tiles("GPUARRAY_CONV_TILES")? {
            o.conv_tiles = Some(t);
        }
        o.matmul_verbose = get("GPUARRAY_MATMUL_VERBOSE").is_some();
        o.linalg_trace = get("GPUARRAY_LINALG_TRACE").is_some();
        o.sort_profile = get("GPUARRAY_SORT_PROFILE").is_some();
        o.reduce_profile = get("GPUARRAY_REDUCE_PROFILE").is_some();
        if let Some(s) = small("GPUARRAY_RADIX_STAGE")? {
            o.radix_stage = s;
        }
        o.radix_wide_ballots = get("GPUARRAY_RADIX_WIDE_BALLOTS").is_some();
        o.checked_kernels = get("GPUARRAY_CHECKED").is_some();
        if let Some(on) = switch("GPUARRAY_MATMUL_GEMV", ON, OFF)? {
            o.matmul_gemv = on;
        }
        if let Some(on) = switch("GPUARRAY_MATMUL_SPLIT_K", ON, OFF)? {
            o.matmul_split_k = on;
        }
        if let Some(on) = switch("GPUARRAY_TOP_K_SELECT", ON, OFF)? {
            o.top_k_select = on;
        }
        if let Some(on) = switch("GPUARRAY_FLOAT_ATOMICS", ON, OFF)? {
            o.float_atomics = on;
        }
        if let Some(on) = switch("GPUARRAY_INT64", ON, OFF)? {
            o.int64 = on;
        }
        if let Some(on) = switch("GPUARRAY_COOP", ON, OFF)? {
            o.coop = on;
        }
        o.coop_variant = get("GPUARRAY_COOP_VARIANT")
            .map(|v| CoopVariant::parse(&v))
            .transpose()?;
        o.coop_unit = small("GPUARRAY_COOP_UNIT")?;
        o.coop_epi = small("GPUARRAY_COOP_EPI")?;
        o.coop_dump = get("GPUARRAY_COOP_DUMP").map(PathBuf::from);
        if let Some(on) = switch("GPUARRAY_CONV_DIRECT", ON, OFF)? {
            o.conv_direct = on;
        }
        if let Some(on) = switch("GPUARRAY_CONV_POINTWISE", ON, OFF)? {
            o.conv_pointwise = on;
        }
        if let Some(v) = get("GPUARRAY_EVENTS") {
            o.host_events = match v.to_lowercase().as_str() {
                "host" => true,
                "gpu" | "auto" => false,
                _ => return Err(invalid("GPUARRAY_EVENTS", &v, "host or auto")),
            };
        }
        if let Some(v) = get("GPUARRAY_PIPELINE_CACHE") {
            o.pipeline_cache = match v.to_lowercase().as_str() {
                "0" | "off" | "false" => PipelineCacheDir::Off,
                "1" | "on" | "true" => PipelineCacheDir::Platform,
                _ => PipelineCacheDir::Dir(PathBuf::from(v)),
            };
        }
        (o.zig_profile, o.zig_ab) = (
            get("GPUARRAY_ZIG_PROFILE").is_some(),
            small("GPUARRAY_ZIG_AB")?.unwrap_or(0),
        );
        o.matmul_big = small("GPUARRAY_MATMUL_BIG")?;
        if let Some(on) = switch("GPUARRAY_MATMUL_BIG_QUAD", ON, OFF)? {
            o.matmul_big_quad = on;
        }
        o.radix_onesweep = switch("GPUARRAY_RADIX_ONESWEEP", ON, OFF)?.unwrap_or(false);
        o.radix_spin = small("GPUARRAY_RADIX_SPIN")?;
        Ok(o)
    }
}

impl PipelineCacheDir {
    /// The folder to use, if any: the platform's cache folder comes from the environment
    /// (`XDG_CACHE_HOME`, `HOME`, `LOCALAPPDATA`).
    pub(crate) fn resolve(&self) -> Option<PathBuf> {
        match self {
            PipelineCacheDir::Off => None,
            PipelineCacheDir::Dir(d) => Some(d.clone()),
            PipelineCacheDir::Platform => platform_cache_dir(),
        }
    }
}

/// The platform's cache folder for gpuarray.
fn platform_cache_dir() -> Option<PathBuf> {
    let env = |k: &str| {
        std::env::var_os(k)
            .filter(|v| !v.is_empty())
            .map(PathBuf::from)
    };
    let base = if cfg!(target_os = "windows") {
        env("LOCALAPPDATA")
    } else if cfg!(target_os = "macos") {
        env("HOME").map(|h| h.join("Library").join("Caches"))
    } else {
        env("XDG_CACHE_HOME").or_else(|| env("HOME").map(|h| h.join(".cache")))
    };
    base.map(|b| b.join("gpuarray"))
}

#[cfg(test)]
mod tests;
