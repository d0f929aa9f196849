//! [`Diagnostics`]: what a device prints or writes about its own work (stage times, the
//! path each product takes, generated kernels). None of them changes a result; the timing
//! ones make each stage wait for its timestamps, so the work runs slower while they are on.

use std::path::PathBuf;

/// What a device reports about its own work, to stderr or into a folder. All off by default;
/// the environment variable of each field is the one
/// [`Options::from_env`](super::Options::from_env) reads (any value turns a switch on).
///
/// ```
/// use gpuarray::{config::Options, Device};
/// let mut opts = Options::default();
/// opts.diagnostics.linalg_trace = true; // each product's path on stderr
/// let dev = Device::with_options(opts)?;
/// let a = dev.ones::<f32>([4, 4])?;
/// assert_eq!(a.matmul(&a)?.to_vec()?, vec![4.0; 16]);
/// # Ok::<(), gpuarray::Error>(())
/// ```
#[derive(Debug, Clone, PartialEq, Eq, Default)]
#[non_exhaustive]
pub struct Diagnostics {
    /// Print each reduction stage's GPU time to stderr; `GPUARRAY_REDUCE_PROFILE`. Every
    /// stage waits for its timestamps.
    pub reduce_profile: bool,
    /// Print the matrix-product tile trial (each candidate's time, the choice);
    /// `GPUARRAY_MATMUL_VERBOSE`.
    pub matmul_verbose: bool,
    /// Print each matrix product's path to stderr (matrix-vector, split-K, cooperative
    /// matrices with their tiles and load widths, tiled with its tiles and how they were
    /// chosen); `GPUARRAY_LINALG_TRACE`.
    pub linalg_trace: bool,
    /// Write each generated cooperative-matrix kernel's WGSL into this folder;
    /// `GPUARRAY_COOP_DUMP`.
    pub coop_dump: Option<PathBuf>,
    /// Print each radix sort stage's GPU time to stderr; `GPUARRAY_SORT_PROFILE`. Every
    /// stage waits for its timestamps.
    pub sort_profile: bool,
    /// Print the GPU time of each pass of the ziggurat's normals to stderr;
    /// `GPUARRAY_ZIG_PROFILE`. Each pass waits for its timestamps.
    pub zig_profile: bool,
    /// Print the stage times of each pipelined reduction across MPI ranks (download,
    /// reduce-scatter, fold, all-gather, upload, per chunk) to stderr on rank 0;
    /// `GPUARRAY_DIST_PROFILE` (the `mpi` feature).
    pub dist_profile: bool,
}
