//! [`Options::from_lookup`]: the `GPUARRAY_*` variables, parsed over the defaults into
//! [`Options`], its [`Tuning`](super::Tuning) and its [`Diagnostics`](super::Diagnostics).

use std::path::PathBuf;
use std::time::Duration;

use crate::error::Result;

use super::{
    invalid, Backend, ClockBurst, CoopVariant, HoldSetting, KeepAlive, MatmulTiles, Options,
    ParamsPath, PipelineCacheDir, SmallRead, Trial,
};

impl Options {
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
            o.tuning.params = match v.to_lowercase().as_str() {
                "uniform" => ParamsPath::Uniform,
                "auto" | "immediate" | "immediates" => ParamsPath::Auto,
                _ => return Err(invalid("GPUARRAY_PARAMS", &v, "uniform or auto")),
            };
        }
        if let Some(v) = get("GPUARRAY_SMALL_READ") {
            o.tuning.small_read = match v.to_lowercase().as_str() {
                "kernel" => SmallRead::Kernel,
                "auto" => SmallRead::Auto,
                _ => return Err(invalid("GPUARRAY_SMALL_READ", &v, "kernel or auto")),
            };
        }
        if let Some(on) = switch("GPUARRAY_SUBGROUPS", ON, OFF)? {
            o.tuning.subgroups = on;
        }
        o.tuning.reduce_groups = small("GPUARRAY_REDUCE_GROUPS")?.filter(|&g| g > 0);
        if let Some(on) = switch("GPUARRAY_REDUCE_FUSE", ON, OFF)? {
            o.tuning.reduce_fuse = on;
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
            o.tuning.matmul_tiles = Some(t);
        }
        if let Some(t) = tiles("GPUARRAY_MATMUL_F64")? {
            o.tuning.matmul_f64 = Some(t);
        }
        if let Some(t) = tiles("GPUARRAY_CONV_TILES")? {
            o.tuning.conv_tiles = Some(t);
        }
        o.diagnostics.matmul_verbose = get("GPUARRAY_MATMUL_VERBOSE").is_some();
        o.diagnostics.linalg_trace = get("GPUARRAY_LINALG_TRACE").is_some();
        o.diagnostics.sort_profile = get("GPUARRAY_SORT_PROFILE").is_some();
        o.diagnostics.reduce_profile = get("GPUARRAY_REDUCE_PROFILE").is_some();
        if let Some(s) = small("GPUARRAY_RADIX_STAGE")? {
            o.tuning.radix_stage = s;
        }
        o.tuning.radix_wide_ballots = get("GPUARRAY_RADIX_WIDE_BALLOTS").is_some();
        o.checked_kernels = get("GPUARRAY_CHECKED").is_some();
        if let Some(on) = switch("GPUARRAY_MATMUL_GEMV", ON, OFF)? {
            o.tuning.matmul_gemv = on;
        }
        if let Some(on) = switch("GPUARRAY_MATMUL_SPLIT_K", ON, OFF)? {
            o.tuning.matmul_split_k = on;
        }
        if let Some(on) = switch("GPUARRAY_TOP_K_SELECT", ON, OFF)? {
            o.tuning.top_k_select = on;
        }
        if let Some(on) = switch("GPUARRAY_FLOAT_ATOMICS", ON, OFF)? {
            o.tuning.float_atomics = on;
        }
        if let Some(on) = switch("GPUARRAY_INT64", ON, OFF)? {
            o.tuning.int64 = on;
        }
        if let Some(on) = switch("GPUARRAY_COOP", ON, OFF)? {
            o.tuning.coop = on;
        }
        o.tuning.coop_variant = get("GPUARRAY_COOP_VARIANT")
            .map(|v| CoopVariant::parse(&v))
            .transpose()?;
        o.tuning.coop_unit = small("GPUARRAY_COOP_UNIT")?;
        o.tuning.coop_epi = small("GPUARRAY_COOP_EPI")?;
        o.diagnostics.coop_dump = get("GPUARRAY_COOP_DUMP").map(PathBuf::from);
        if let Some(on) = switch("GPUARRAY_CONV_DIRECT", ON, OFF)? {
            o.tuning.conv_direct = on;
        }
        if let Some(on) = switch("GPUARRAY_CONV_POINTWISE", ON, OFF)? {
            o.tuning.conv_pointwise = on;
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
        o.diagnostics.zig_profile = get("GPUARRAY_ZIG_PROFILE").is_some();
        o.diagnostics.dist_profile = get("GPUARRAY_DIST_PROFILE").is_some();
        o.tuning.matmul_big = small("GPUARRAY_MATMUL_BIG")?;
        if let Some(on) = switch("GPUARRAY_LINALG_CHECK", ON, OFF)? {
            o.linalg_check = on;
        }
        if let Some(on) = switch("GPUARRAY_MATMUL_BIG_QUAD", ON, OFF)? {
            o.tuning.matmul_big_quad = on;
        }
        o.tuning.radix_onesweep = switch("GPUARRAY_RADIX_ONESWEEP", ON, OFF)?.unwrap_or(false);
        o.tuning.radix_spin = small("GPUARRAY_RADIX_SPIN")?;
        if let Some(v) = get("GPUARRAY_TRIAL") {
            o.tuning.trial = Trial::parse(&v)?;
        }
        o.tuning.clock_burst = get("GPUARRAY_CLOCK_BURST")
            .map(|v| ClockBurst::parse(&v))
            .transpose()?;
        o.tuning.clock_keepalive = get("GPUARRAY_CLOCK_KEEPALIVE")
            .map(|v| KeepAlive::parse(&v))
            .transpose()?;
        if let Some(v) = get("GPUARRAY_CLOCK_HOLD") {
            o.tuning.clock_hold = HoldSetting::parse(&v)?;
        }
        o.tuning.batch_dispatches = match small("GPUARRAY_BATCH_DISPATCHES")? {
            Some(b) if (1..=crate::device::BATCH_DISPATCHES).contains(&b) => Some(b),
            Some(b) => {
                return Err(invalid(
                    "GPUARRAY_BATCH_DISPATCHES",
                    &b.to_string(),
                    "1 to 512 dispatches",
                ))
            }
            None => None,
        };
        Ok(o)
    }
}

/// A measurement switch of a kernel family (`GPUARRAY_FFT_*`, listed in src/fft/tune.rs's
/// docs), as a whole number: read here so that the options module stays the one reader of
/// the environment. Switches are for timing variants on a device, not options: a malformed
/// or missing value leaves the family's rule (`None`).
pub(crate) fn switch(name: &str) -> Option<usize> {
    std::env::var(name).ok().and_then(|v| v.trim().parse().ok())
}
