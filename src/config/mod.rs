//! [`Options`]: what a user chooses when opening a [`crate::Device`] (the adapter, the
//! backend, how long waits spin and block, the pipeline cache, checked kernels, host-clock
//! events), with the forcing knobs and test paths apart in [`Tuning`] (`options.tuning`) and
//! what the device reports about its own work in [`Diagnostics`] (`options.diagnostics`).
//!
//! A device is opened with options ([`crate::Device::with_options`]); [`Options::default`]
//! gives the defaults, and [`Options::from_env`] (what [`crate::Device::new`] uses) reads the
//! `GPUARRAY_*` environment variables over them, those of the tuning and diagnostics
//! included. `from_env` is the only code in gpuarray that reads the environment, and it
//! reads it once per device, when the device is opened: operations consult the device's
//! options, never the process environment.
//!
//! Tests choose a code path by opening a device with other tuning (parameters through a
//! uniform buffer, small reads through a kernel, no subgroup shuffles, a forced kernel), so
//! every path runs in one test binary.

mod clock;
mod diagnostics;
mod env;
pub(crate) use env::switch;
mod tuning;

pub use clock::{ClockBurst, ClockHold, HoldSetting, HoldWork, KeepAlive, Trial};
pub use diagnostics::Diagnostics;
pub use tuning::{CoopVariant, MatmulTiles, ParamsPath, SmallRead, Tuning};

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

/// What a user chooses when opening a device, each field with its default and the
/// environment variable [`Options::from_env`] reads for it; the forcing knobs and test paths
/// are in [`Options::tuning`], the reports in [`Options::diagnostics`].
///
/// ```
/// use std::time::Duration;
/// use gpuarray::{config::Options, Device};
/// let mut opts = Options::default();
/// opts.timeout = Duration::from_secs(60); // give up on a wait after a minute
/// let dev = Device::with_options(opts)?;
/// assert_eq!(dev.from_slice(&[1.0f32, 2.0, 3.0], [3])?.sum()?.to_scalar()?, 6.0);
/// # Ok::<(), gpuarray::Error>(())
/// ```
#[derive(Debug, Clone, PartialEq)]
#[non_exhaustive]
pub struct Options {
    /// Open the first adapter whose name contains this (case-insensitive);
    /// `GPUARRAY_ADAPTER`. Default: any (the best one).
    pub adapter: Option<String>,
    /// Only this backend; `GPUARRAY_BACKEND` (`vulkan`, `metal`, `dx12`, `gl`). Default:
    /// Vulkan, Metal and DX12, then GL where they have no adapter.
    pub backend: Option<Backend>,
    /// How long a wait spins on non-blocking polls before it blocks; `GPUARRAY_SPIN_US`.
    /// Default 1 ms: short work finishes sooner than a blocked thread wakes up. Spinning
    /// costs a CPU core while it lasts; 0 blocks at once.
    pub spin: Duration,
    /// How long a wait blocks before [`Error::Timeout`] (after which the device is no longer
    /// used); `GPUARRAY_TIMEOUT_S`, whole or fractional seconds. Default 300 s.
    /// [`crate::Device::set_timeout`] changes it on an open device.
    pub timeout: Duration,
    /// Where compiled pipelines are kept between runs, where the adapter has
    /// PIPELINE_CACHE; `GPUARRAY_PIPELINE_CACHE` (`0`/`off` for none, or a folder).
    /// Default: the platform's cache folder.
    pub pipeline_cache: PipelineCacheDir,
    /// Compile every kernel with naga's runtime checks (indices clamped, loops bounded),
    /// the ones that index in bounds by construction (`Spec::unchecked`: the products, the
    /// convolutions, the radix sort's passes) included; `GPUARRAY_CHECKED=1`. Default off
    /// (for a suspected out-of-bounds access, and to time what the checks cost).
    pub checked_kernels: bool,
    /// Events time with the host clock even where the adapter has timestamp queries;
    /// `GPUARRAY_EVENTS=host`. Default off.
    pub host_events: bool,
    /// Linear algebra that can fail on the values (`linalg::solve`, `inv`, `lu_solve`,
    /// `cholesky`, ...) reads back one status word per call to report a singular or not
    /// positive definite matrix as a typed error, which waits for the GPU to finish the
    /// call; off, the call returns at once and such matrices give NaN or infinities in
    /// the result (as CuPy does by default); `GPUARRAY_LINALG_CHECK=0`. Default on.
    pub linalg_check: bool,
    /// The forcing knobs and test paths (kernels, tiles, parameter and read-back paths);
    /// their defaults are what a user wants.
    pub tuning: Tuning,
    /// What the device prints or writes about its own work; all off by default.
    pub diagnostics: Diagnostics,
}

impl Default for Options {
    fn default() -> Options {
        Options {
            adapter: None,
            backend: None,
            spin: Duration::from_micros(1000),
            timeout: Duration::from_secs(300),
            pipeline_cache: PipelineCacheDir::Platform,
            checked_kernels: false,
            host_events: false,
            linalg_check: true,
            tuning: Tuning::default(),
            diagnostics: Diagnostics::default(),
        }
    }
}

/// The error of a malformed variable.
pub(crate) fn invalid(name: &'static str, value: &str, expected: &'static str) -> Error {
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
