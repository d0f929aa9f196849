//! [`Tuning`]: the knobs that force a code path of an operation (a kernel, its tiles, a
//! way of passing parameters or reading back), for tests and for tuning. Every path
//! computes the same function as the default one (where a knob changes the order of a sum,
//! the results may change in the last bits); the defaults are what a user wants.

use crate::error::Result;

use super::clock::{ClockBurst, HoldSetting, KeepAlive, Trial};
use super::invalid;

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
    /// [`Error::InvalidOption`](crate::Error::InvalidOption) when the text is not five to
    /// seven numbers.
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

/// The knobs that force a code path: test paths (how parameters reach the kernels, how small
/// arrays are read back, which adapter features are asked for) and the forcing and tuning
/// knobs of the families (tiles, kernels, workgroup counts). A user leaves them at their
/// defaults; a test opens a device with the path it tests, and a tuning session forces
/// one configuration at a time. The environment variable of each field is the one
/// [`Options::from_env`](super::Options::from_env) reads.
///
/// ```
/// use gpuarray::{config::Options, Device};
/// let mut opts = Options::default();
/// opts.tuning.subgroups = false; // reduction trees in workgroup memory only (same bits)
/// let dev = Device::with_options(opts)?;
/// assert_eq!(dev.from_slice(&[1.0f32, 2.0, 3.0], [3])?.sum()?.to_scalar()?, 6.0);
/// # Ok::<(), gpuarray::Error>(())
/// ```
#[derive(Debug, Clone, PartialEq)]
#[non_exhaustive]
pub struct Tuning {
    // ---- test paths: how the device is opened and how data moves ----
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
    /// Ask for SHADER_INT64 where the adapter has it; `GPUARRAY_INT64=0` opens the device
    /// without it (`i64`/`u64` arrays then give `Unsupported`, index arrays still work), to
    /// test what adapters without it do. Default on.
    pub int64: bool,
    /// f32 `scatter_add` with the adapter's native atomic add where it has
    /// SHADER_FLOAT32_ATOMIC; `GPUARRAY_FLOAT_ATOMICS=0` sends it to the compare-and-swap
    /// loop that adapters without it use. Default on.
    pub float_atomics: bool,

    // ---- reductions ----
    /// Workgroups a reduction with few outputs spreads over; `GPUARRAY_REDUCE_GROUPS`.
    /// Default (`None`): four per multiprocessor of a large GPU (528), 32 on CPUs. Results
    /// change in the last bits with it, since the tree changes.
    pub reduce_groups: Option<u32>,
    /// Split reductions whose outputs each span one workgroup's rows combine their partial
    /// results in the last workgroup of each output to finish (counted with an atomic; the
    /// same fixed order every run) instead of a second dispatch; `GPUARRAY_REDUCE_FUSE=0`
    /// turns it off. Default on.
    pub reduce_fuse: bool,

    // ---- matrix products ----
    /// Force the tiled matrix-product kernel's tiles; `GPUARRAY_MATMUL_TILES=BM,BN,BK,TM,TN`.
    /// Default: a timed trial per adapter, driver and size class, kept on disk (see
    /// [`Tuning::trial`]).
    pub matmul_tiles: Option<MatmulTiles>,
    /// Products with one row or one column (matrix-vector, vector-matrix) through the
    /// bandwidth-bound matrix-vector kernel; `GPUARRAY_MATMUL_GEMV=0` sends them to the
    /// tiled kernel. Default on.
    pub matmul_gemv: bool,
    /// Products with a long K and few output tiles split K into slices summed in order;
    /// `GPUARRAY_MATMUL_SPLIT_K=0` turns it off. Default on.
    pub matmul_split_k: bool,
    /// Large f32 products on the 128 x 128 kernel of shaders/linalg_big.wgsl (M and N
    /// multiples of 128, K of its depth, operands with vec4 loads);
    /// `GPUARRAY_MATMUL_BIG`: `0` never, `8` or `16` always where eligible at that depth,
    /// any other number always at the deepest eligible depth. Default (`None`): where the
    /// tile trial finds it fastest.
    pub matmul_big: Option<u32>,
    /// Where `matmul_big` forces the large f32 kernel, its warps of 8 x 4 invocations
    /// instead of 16 x 2; `GPUARRAY_MATMUL_BIG_QUAD=1`. Default off (the trial times both).
    pub matmul_big_quad: bool,
    /// Force f64 products onto the f64 kernel of shaders/linalg_f64.wgsl with this tiling
    /// (`tm`, `tn` 2, 4 or 8; `bk` 4, 8 or 16; 32 to 256 invocations);
    /// `GPUARRAY_MATMUL_F64=BM,BN,BK,TM,TN`. Tilings the kernel or the adapter cannot run are
    /// ignored. Default: the tile trial's choice for large f64 products, the tiled kernel for
    /// small ones.
    pub matmul_f64: Option<MatmulTiles>,
    /// Use cooperative matrices (tensor cores) for f16 products where the adapter has
    /// them; `GPUARRAY_COOP=0` turns them off. Default on.
    pub coop: bool,
    /// Force the cooperative-matrix kernel's configuration; `GPUARRAY_COOP_VARIANT`.
    /// Default: 128x256 tiles where there are at least 256 of them, else 64x128 (see
    /// BENCHMARKS.md for the measurement).
    pub coop_variant: Option<CoopVariant>,
    /// Load width of the cooperative-matrix kernel's tile copies, in halves (4 or 8);
    /// `GPUARRAY_COOP_UNIT`. Default: the configuration's.
    pub coop_unit: Option<u32>,
    /// Epilogue of the cooperative-matrix kernel (0 direct stores, 1 through workgroup
    /// memory); `GPUARRAY_COOP_EPI`. Default: the configuration's.
    pub coop_epi: Option<u32>,

    // ---- convolutions ----
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

    // ---- sorting and selection ----
    /// Workgroup size of the radix sort's staged scatter (its writes go through workgroup
    /// memory in runs of one digit; at most 8 subgroups, 256 invocations), or 0 for the
    /// unstaged scatter (each lane stores its own keys); `GPUARRAY_RADIX_STAGE`. Default
    /// 128, the fastest of 0, 64, 128 and 256 where it was measured (BENCHMARKS.md).
    pub radix_stage: u32,
    /// The radix scatter's subgroup ballots in four words (up to 128 lanes) even where every
    /// subgroup has at most 32 lanes and one word would do; `GPUARRAY_RADIX_WIDE_BALLOTS=1`.
    /// Default off (testing: adapters with 64-lane subgroups take the four-word path).
    pub radix_wide_ballots: bool,
    /// The radix sort in onesweep form where its subgroup scatter runs unstaged: every
    /// pass's digit histogram from one read of the keys, and each scatter pass's tile
    /// offsets by a chained scan with decoupled look-back (one dispatch a pass instead of
    /// five); `GPUARRAY_RADIX_ONESWEEP=1`. Default off: where it was measured the look-back
    /// scatter cost what the histograms saved (BENCHMARKS.md).
    pub radix_onesweep: bool,
    /// Re-reads of unset predecessor statuses an invocation of the onesweep look-back may
    /// spend before it counts those tiles' keys itself (0: the nearest predecessor always,
    /// to test that path); `GPUARRAY_RADIX_SPIN`. Default: 4096.
    pub radix_spin: Option<u32>,
    /// `top_k` of f16 and f64 rows (the other dtypes take a radix select) by per-tile
    /// selection (each tile's k best by a bitonic sort in workgroup memory, in rounds)
    /// instead of a full sort; `GPUARRAY_TOP_K_SELECT=1`. Default off: slower than the sort
    /// where it was measured (BENCHMARKS.md).
    pub top_k_select: bool,

    // ---- trials and the clock (issue 34) ----
    /// How the choices made by timing (the matrix-product tile trial) are made: a trial on
    /// first use whose choice is kept on disk beside the pipeline cache, the disk's choices
    /// only, or a default table per adapter kind; `GPUARRAY_TRIAL=run|cached|off`. Default
    /// [`Trial::Run`]. With `Options::pipeline_cache` off, choices are not kept on disk.
    pub trial: Trial,
    /// A burst of heavy work before the first launch after an idle spell, to bring the
    /// GPU's clock up; `GPUARRAY_CLOCK_BURST=IDLE_MS:BURST_MS[:ELEMENTS]`. Default off
    /// (see [`ClockBurst`] for its cost).
    pub clock_burst: Option<ClockBurst>,
    /// A background thread submitting work while the program works, to keep the GPU's
    /// clock up; `GPUARRAY_CLOCK_KEEPALIVE=PERIOD_MS:ELEMENTS:LINGER_MS`. Default off (see
    /// [`KeepAlive`] for its cost).
    pub clock_keepalive: Option<KeepAlive>,
    /// A background thread that fills the program's host pauses with GPU work up to a duty
    /// cycle, to keep the clock up;
    /// `GPUARRAY_CLOCK_HOLD=auto|off|DUTY_PCT:LINGER_MS[:PIECE_US[:spin|stream]]`. Default
    /// [`HoldSetting::Auto`]: on for NVIDIA's discrete GPUs, off elsewhere (see
    /// [`ClockHold`](super::ClockHold) for its cost). A device's options show the resolved
    /// setting.
    pub clock_hold: HoldSetting,
    /// Submit the open batch after this many dispatches (1 to
    /// [`BATCH_DISPATCHES`](crate::device::BATCH_DISPATCHES)) instead of at sync points and every
    /// `BATCH_DISPATCHES`: smaller batches, more submits (a submission pattern to measure
    /// against the clock; each submit costs host time); `GPUARRAY_BATCH_DISPATCHES`.
    /// Default (`None`): `BATCH_DISPATCHES`.
    pub batch_dispatches: Option<u32>,
}

impl Default for Tuning {
    fn default() -> Tuning {
        Tuning {
            params: ParamsPath::Auto,
            small_read: SmallRead::Auto,
            subgroups: true,
            int64: true,
            float_atomics: true,
            reduce_groups: None,
            reduce_fuse: true,
            matmul_tiles: None,
            matmul_gemv: true,
            matmul_split_k: true,
            matmul_big: None,
            matmul_big_quad: false,
            matmul_f64: None,
            coop: true,
            coop_variant: None,
            coop_unit: None,
            coop_epi: None,
            conv_direct: false,
            conv_pointwise: true,
            conv_tiles: None,
            radix_stage: 128,
            radix_wide_ballots: false,
            radix_onesweep: false,
            radix_spin: None,
            top_k_select: false,
            trial: Trial::Run,
            clock_burst: None,
            clock_keepalive: None,
            clock_hold: HoldSetting::Auto,
            batch_dispatches: None,
        }
    }
}
