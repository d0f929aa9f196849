//! Arrays across processes and hosts through MPI (the `mpi` feature): a communicator over
//! arrays ([`Comm`]), point-to-point [`Comm::send`] / [`Comm::recv`] (and their
//! non-blocking [`Comm::isend`] / [`Comm::irecv`]), the collectives ([`Comm::broadcast`],
//! [`Comm::reduce`], [`Comm::allreduce`], [`Comm::gather`], [`Comm::allgather`],
//! [`Comm::scatter`], [`Comm::alltoall`], [`Comm::reduce_scatter`]) and an array split
//! along its first axis over the ranks ([`ShardedArray`]).
//!
//! wgpu has no GPU-direct path: arrays cross through host memory. Large arrays move in
//! chunks ([`Comm::set_chunk_bytes`], 32 MiB by default), pipelined in three stages: a
//! download thread fetches chunk i+1 while this thread moves chunk i through MPI (and
//! folds it, for reductions) and an upload thread writes chunk i-1 to the device. Chunks
//! are sent straight from their host buffers and received in place (a reduction's
//! segments, a gather's parts), so each byte is copied once on its way down and once on
//! its way up. `GPUARRAY_DIST_PROFILE=1`
//! ([`Diagnostics::dist_profile`](crate::config::Diagnostics::dist_profile)) prints each
//! reduction's and move's stage times per chunk on rank 0.
//!
//! Reductions among ranks of one host (every rank of the communicator on it) go through an
//! MPI-3 shared-memory window instead: each rank downloads its chunk straight into the
//! window, folds its segment of every rank's chunk in place and uploads the combined chunk
//! from the window, so each byte crosses the host once down and once up with no message
//! copies ([`Comm::set_shared_memory`]). The window takes four chunks per rank where Open
//! MPI backs it (`/dev/shm` on Linux: 128 MiB a rank at the default chunk); where some
//! rank finds less than twice that free (a container's small `/dev/shm`), every rank
//! reduces through messages instead.
//!
//! Launch one process per GPU (`mpirun -np 2 ./app`); [`init`] opens the device of the
//! rank's local rank (its place among the ranks of its host) modulo the host's GPUs;
//! [`Comm::with_device`] takes the user's choice instead.
//!
//! **Give each rank several cores.** The staging runs on a download and an upload thread
//! besides the caller's, and splits large copies and folds over more threads where the
//! process may use more cores. Open MPI binds each rank to one core by default when there
//! are two ranks or fewer, which puts all of them on that core: on two H200s
//! (2026-11-29) a 1 GiB f32 allreduce took 0.95 s bound that way (1.1 GB/s) before the
//! window stages were rewritten, and the same binary under `mpirun --bind-to none` moved
//! 3.1 GB/s at 512 MB; the rewritten stages move 9.6 GB/s at 1 GiB with `--bind-to none`
//! and 2.2-2.3 GB/s from 32 to 512 MB bound to one core. Pass `--bind-to none`, or `--map-by slot:PE=8` (eight cores per
//! rank), or the equivalent of your launcher.
//!
//! **Failure.** Every collective starts with a small header exchange, so ranks that call
//! different operations, or one with different dtypes, shapes (where they must agree),
//! roots or axes, get the same [`Error::Mpi`] ([`MpiErrorKind::Mismatch`]) on every rank,
//! and a rank whose own part failed (a bad axis, a refused dtype) returns its own error
//! while the others get [`MpiErrorKind::Remote`]: nothing moves in either case and the
//! communicator stays usable. Every wait polls `MPI_Test` against the communicator's
//! timeout ([`Comm::set_timeout`], 120 s by default): a peer that stops answering is an
//! [`MpiErrorKind::Timeout`], after which the communicator is closed
//! ([`MpiErrorKind::Closed`]); abort the job with [`Comm::abort`] (`MPI_Abort`) or open
//! another communicator. Nothing waits without a deadline. A rank whose own part fails
//! midway through a pipelined transfer (a download from its device) returns its error and
//! sends it to the others, whose waits return it as [`MpiErrorKind::Remote`] ("rank r
//! failed midway: ...") rather than a timeout; the communicator is then closed on the
//! ranks involved (messages of the abandoned transfer may still be on their way; keep a
//! closed communicator until the job ends rather than drop it, as Open MPI may give a
//! freed communicator's context to the next one, which would then meet those messages). A failed
//! upload on a receiving rank does not stop the transfer: the others finish normally and
//! that rank returns its error at the end.
//!
//! **Determinism.** Reductions combine the ranks' arrays elementwise in rank order, on the
//! host, in the dtype's own arithmetic: `((x0 op x1) op x2) ...`. Each element is combined
//! by one rank and sent to the others, so the result is bitwise identical on every rank,
//! and the same however the work is split, for the documented order.
//!
//! ```no_run
//! # fn main() -> gpuarray::Result<()> {
//! use gpuarray::dist::{self, ReduceOp};
//! let comm = dist::init()?; // MPI_Init, and the device of this rank
//! let x = comm.device().full::<f32>([4], comm.rank() as f32)?;
//! let total = comm.allreduce(&x, ReduceOp::Sum)?; // the same on every rank
//! let n = comm.size() as f32;
//! assert_eq!(total.to_vec()?, vec![n * (n - 1.0) / 2.0; 4]);
//! # Ok(()) }
//! ```

mod agree;
mod collective;
mod fold;
mod p2p;
mod pieces;
mod profile;
mod reduce;
mod shard;
mod shm;
mod shm_reduce;
mod stage;
mod wire;

use std::cell::{Cell, RefCell};
use std::time::Duration;

use mpi::raw::AsRaw;
use mpi::topology::{Communicator, SimpleCommunicator};

use crate::device::{Device, DeviceKind};
pub use crate::error::MpiErrorKind;
use crate::error::{Error, Result};

pub use self::p2p::{RecvRequest, SendRequest};
pub use self::reduce::ReduceOp;
pub use self::shard::ShardedArray;
use self::wire::{mpi_error, Link};

/// Default bytes per pipelined chunk.
const CHUNK: usize = 32 << 20;
/// Default timeout of every wait.
const TIMEOUT: Duration = Duration::from_secs(120);
/// User tags of point-to-point messages: `0..=MAX_TAG`.
pub const MAX_TAG: u32 = 8191;

/// A communicator over arrays: the ranks of an MPI communicator, each with its device.
///
/// It owns two duplicates of the MPI communicator it was made from (one for
/// point-to-point messages, one for collectives, so neither meets the user's own
/// messages), set to return MPI errors rather than abort. Made by [`init`] (which also
/// initialises MPI and finalises it when the communicator drops) or
/// [`Comm::with_device`]. Not `Send`: MPI is initialised for calls from one thread.
///
/// ```no_run
/// let comm = gpuarray::dist::init()?;
/// assert!(comm.rank() < comm.size() && comm.local_rank() < comm.local_size());
/// comm.set_chunk_bytes(32 << 20); // every rank alike
/// assert_eq!(comm.chunk_bytes(), 32 << 20);
/// assert!(!comm.is_closed());
/// println!("{comm:?}"); // rank, size, local rank, device
/// # Ok::<(), gpuarray::Error>(())
/// ```
pub struct Comm {
    p2p: SimpleCommunicator,
    coll: SimpleCommunicator,
    rank: usize,
    size: usize,
    local_rank: usize,
    local_size: usize,
    dev: Device,
    timeout: Cell<Duration>,
    chunk: Cell<usize>,
    seq: Cell<u64>,
    closed: Cell<bool>,
    /// The chunk before which this rank's part of the next pipelined collective fails
    /// ([`Comm::fail_after_chunks`]).
    fail_after: Cell<Option<usize>>,
    /// Whether reductions among ranks of one host use a shared-memory window.
    shared: Cell<bool>,
    /// That window, made by the first reduction that uses it (remade when the chunk size
    /// changes); it lives until `MPI_Finalize` (freeing it is collective, which a rank
    /// whose communicator closed could not join).
    shm: RefCell<Option<shm::Shm>>,
    /// The slot size whose window some rank had no room for (reductions of that chunk
    /// size go through messages without asking again).
    shm_refused: Cell<Option<usize>>,
    /// [`Comm::pretend_shm_room`].
    shm_room: Cell<Option<u64>>,
    /// Dropped last: finalises MPI when [`init`] initialised it.
    _universe: Option<mpi::environment::Universe>,
}

/// Initialises MPI (for calls from one thread at a time, `MPI_THREAD_FUNNELED`) and
/// returns a communicator over `MPI_COMM_WORLD` with the device of this rank: the GPU at
/// the rank's local rank modulo the host's GPUs (in [`Device::enumerate`]'s order), or
/// the best adapter where there is no GPU ([`Device::new`], lavapipe on CI). MPI is
/// finalised when the communicator drops.
///
/// # Errors
/// [`Error::Mpi`] ([`MpiErrorKind::Call`]) when MPI was already initialised (make the
/// communicator with [`Comm::with_device`] then); those of [`Device::open`].
///
/// ```no_run
/// let comm = gpuarray::dist::init()?;
/// println!("rank {} of {} on {}", comm.rank(), comm.size(), comm.device().info().name);
/// # Ok::<(), gpuarray::Error>(())
/// ```
pub fn init() -> Result<Comm> {
    init_with_device(device_for_local_rank)
}

/// [`init`] with the user's choice of device: `choose` gets the rank's local rank (its
/// place among the ranks of its host) and opens the device.
///
/// # Errors
/// Those of [`init`], and `choose`'s.
///
/// ```no_run
/// // Two ranks per host on GPUs 2 and 3.
/// let comm = gpuarray::dist::init_with_device(|local| gpuarray::Device::open(2 + local % 2))?;
/// # Ok::<(), gpuarray::Error>(())
/// ```
pub fn init_with_device(choose: impl FnOnce(usize) -> Result<Device>) -> Result<Comm> {
    let Some((universe, _)) = mpi::initialize_with_threading(mpi::Threading::Funneled) else {
        return Err(mpi_error(
            "init",
            MpiErrorKind::Call,
            "MPI is already initialised: use Comm::with_device",
        ));
    };
    let world = universe.world();
    let (local_rank, _) = local_rank_of(&world);
    let dev = choose(local_rank)?;
    let mut comm = Comm::with_device(&world, dev)?;
    comm._universe = Some(universe);
    Ok(comm)
}

/// This rank's place among the ranks of its host, and their number.
fn local_rank_of(comm: &impl Communicator) -> (usize, usize) {
    let local = comm.split_shared(comm.rank());
    (local.rank() as usize, local.size() as usize)
}

/// The device [`init`] chooses for a local rank: the GPU at `local_rank` modulo the
/// host's GPUs (discrete, integrated or virtual, in [`Device::enumerate`]'s order), or
/// [`Device::new`]'s adapter where there is none.
///
/// # Errors
/// Those of [`Device::open`] and [`Device::new`].
///
/// ```
/// let dev = gpuarray::dist::device_for_local_rank(3)?;
/// assert!(dev.info().index.is_some());
/// # Ok::<(), gpuarray::Error>(())
/// ```
pub fn device_for_local_rank(local_rank: usize) -> Result<Device> {
    let gpus: Vec<usize> = Device::enumerate()?
        .iter()
        .filter(|i| {
            matches!(
                i.kind,
                DeviceKind::DiscreteGpu | DeviceKind::IntegratedGpu | DeviceKind::VirtualGpu
            )
        })
        .filter_map(|i| i.index)
        .collect();
    if gpus.is_empty() {
        return Device::new();
    }
    Device::open(gpus[local_rank % gpus.len()])
}

impl Comm {
    /// A communicator over the ranks of the user's MPI communicator `comm` (which MPI the
    /// user initialised), with the device the user chose for this rank. Collective over
    /// `comm`: every rank calls it.
    ///
    /// # Errors
    /// [`Error::Mpi`] ([`MpiErrorKind::Call`]) when MPI refuses to set the error handler.
    ///
    /// ```no_run
    /// use mpi::topology::Communicator;
    /// let universe = mpi::initialize().unwrap();
    /// let world = universe.world();
    /// let dev = gpuarray::Device::open(world.rank() as usize % 2)?;
    /// let comm = gpuarray::dist::Comm::with_device(&world, dev)?;
    /// comm.barrier()?;
    /// # Ok::<(), gpuarray::Error>(())
    /// ```
    pub fn with_device(comm: &impl Communicator, dev: Device) -> Result<Comm> {
        let (local_rank, local_size) = local_rank_of(comm);
        let p2p = comm.duplicate();
        let coll = comm.duplicate();
        for c in [&p2p, &coll] {
            // SAFETY: valid communicator and predefined error handler.
            let rc = unsafe {
                mpi::ffi::MPI_Comm_set_errhandler(c.as_raw(), mpi::ffi::RSMPI_ERRORS_RETURN)
            };
            if rc != 0 {
                return Err(mpi_error(
                    "with_device",
                    MpiErrorKind::Call,
                    format!("MPI_Comm_set_errhandler: code {rc}"),
                ));
            }
        }
        Ok(Comm {
            rank: comm.rank() as usize,
            size: comm.size() as usize,
            p2p,
            coll,
            local_rank,
            local_size,
            dev,
            timeout: Cell::new(TIMEOUT),
            chunk: Cell::new(CHUNK),
            seq: Cell::new(0),
            closed: Cell::new(false),
            fail_after: Cell::new(None),
            shared: Cell::new(true),
            shm: RefCell::new(None),
            shm_refused: Cell::new(None),
            shm_room: Cell::new(None),
            _universe: None,
        })
    }

    /// This process's rank, `0..size()`.
    pub fn rank(&self) -> usize {
        self.rank
    }

    /// The number of ranks.
    pub fn size(&self) -> usize {
        self.size
    }

    /// This rank's place among the ranks of its host (what [`init`] chose the device by).
    pub fn local_rank(&self) -> usize {
        self.local_rank
    }

    /// The number of ranks on this rank's host.
    pub fn local_size(&self) -> usize {
        self.local_size
    }

    /// This rank's device: where received arrays are made.
    pub fn device(&self) -> &Device {
        &self.dev
    }

    /// The longest any wait of this communicator lasts before it fails with
    /// [`MpiErrorKind::Timeout`] (120 s by default). Every rank should set the same.
    pub fn timeout(&self) -> Duration {
        self.timeout.get()
    }

    /// Sets the timeout of every later wait ([`Comm::timeout`]).
    ///
    /// ```no_run
    /// # let comm = gpuarray::dist::init()?;
    /// comm.set_timeout(std::time::Duration::from_secs(10));
    /// assert_eq!(comm.timeout().as_secs(), 10);
    /// # Ok::<(), gpuarray::Error>(())
    /// ```
    pub fn set_timeout(&self, timeout: Duration) {
        self.timeout.set(timeout);
    }

    /// Bytes per pipelined chunk of large transfers (32 MiB by default).
    pub fn chunk_bytes(&self) -> usize {
        self.chunk.get()
    }

    /// Sets the bytes per pipelined chunk, rounded up to a multiple of 8 (at least 8).
    /// Every rank must set the same.
    pub fn set_chunk_bytes(&self, bytes: usize) {
        self.chunk.set(bytes.max(8).div_ceil(8) * 8);
    }

    /// Whether reductions ([`Comm::allreduce`], [`Comm::reduce`]) among ranks that all
    /// share one host go through an MPI-3 shared-memory window (`MPI_Win_allocate_shared`:
    /// each rank reads the others' staged chunks in place) rather than messages; on by
    /// default. Ranks on several hosts always use messages.
    pub fn shared_memory(&self) -> bool {
        self.shared.get()
    }

    /// Sets [`Comm::shared_memory`]. Every rank must set the same (a reduction whose ranks
    /// differ is a `Mismatch`). The results are the same bits either way.
    ///
    /// ```no_run
    /// # let comm = gpuarray::dist::init()?;
    /// comm.set_shared_memory(false); // messages only
    /// assert!(!comm.shared_memory());
    /// # Ok::<(), gpuarray::Error>(())
    /// ```
    pub fn set_shared_memory(&self, on: bool) {
        self.shared.set(on);
    }

    /// Whether a reduction uses the shared-memory window: every rank on this host, more
    /// than one, and [`Comm::shared_memory`].
    pub(crate) fn uses_shm(&self) -> bool {
        self.shared.get() && self.size > 1 && self.local_size == self.size
    }

    /// The shared-memory window with slots of `slot` bytes (made, or remade for another
    /// size, collectively: every rank of a reduction calls this with the same size), or
    /// `None` on every rank where some rank lacks the room for it ([`shm::room_for`]):
    /// the reduction then goes through messages.
    pub(crate) fn shm(
        &self,
        link: &Link,
        slot: usize,
    ) -> Result<Option<std::cell::Ref<'_, shm::Shm>>> {
        let stale = self.shm.borrow().as_ref().is_none_or(|s| s.slot != slot);
        if stale {
            if self.shm_refused.get() == Some(slot) {
                return Ok(None);
            }
            if let Some(old) = self.shm.borrow_mut().take() {
                old.free(!self.closed.get());
            }
            if !shm::room_for(link, self.size, slot, self.shm_room.get())? {
                self.shm_refused.set(Some(slot));
                return Ok(None);
            }
            self.shm_refused.set(None);
            *self.shm.borrow_mut() = Some(shm::Shm::new(link, self.size, slot)?);
        }
        Ok(Some(std::cell::Ref::map(self.shm.borrow(), |s| {
            s.as_ref().expect("made above")
        })))
    }

    /// For tests of the window's room check: this rank reports `bytes` free where the
    /// window's backing file goes (`None`: what the file system says) at the next window
    /// made.
    #[doc(hidden)]
    pub fn pretend_shm_room(&self, bytes: Option<u64>) {
        self.shm_room.set(bytes);
    }

    /// For tests: the slot bytes of the shared-memory window this communicator holds (0
    /// where it holds none).
    #[doc(hidden)]
    pub fn shm_slot_bytes(&self) -> usize {
        self.shm.borrow().as_ref().map_or(0, |s| s.slot)
    }

    /// For tests of failures midway: this rank's part of the next pipelined collective
    /// (`allreduce`, `reduce`, `gather`, `allgather`, `scatter`, `alltoall`) fails with
    /// [`Error::DeviceLost`] before its chunk `chunks` (as a download that fails there
    /// would). The other ranks get [`MpiErrorKind::Remote`] with this rank's error, and
    /// the communicator is closed on every rank that was waiting on it.
    #[doc(hidden)]
    pub fn fail_after_chunks(&self, chunks: usize) {
        self.fail_after.set(Some(chunks));
    }

    /// Whether an earlier timeout, or a failure midway through a transfer (this rank's or
    /// a peer's), closed the communicator.
    pub fn is_closed(&self) -> bool {
        self.closed.get()
    }

    /// Waits until every rank has called `barrier` (a header exchange: it also checks
    /// that the ranks are at the same collective).
    ///
    /// # Errors
    /// [`Error::Mpi`]: a timeout, or ranks at different collectives.
    ///
    /// ```no_run
    /// # let comm = gpuarray::dist::init()?;
    /// comm.barrier()?;
    /// # Ok::<(), gpuarray::Error>(())
    /// ```
    pub fn barrier(&self) -> Result<()> {
        self.agree(
            "barrier",
            crate::DType::U8,
            Some(vec![]),
            0,
            0,
            0,
            None,
            |_| Ok(()),
        )
        .map(|_| ())
    }

    /// Ends every process of the job (`MPI_Abort` with `code`): the answer to a failure
    /// the others cannot recover from, such as a timeout.
    pub fn abort(&self, code: i32) -> ! {
        self.coll.abort(code)
    }

    fn link<'a>(&'a self, op: &'static str, c: &SimpleCommunicator) -> Link<'a> {
        Link {
            comm: c.as_raw(),
            timeout: self.timeout.get(),
            closed: &self.closed,
            op,
        }
    }

    /// Whether collectives print their stage times ([`Diagnostics::dist_profile`](crate::config::Diagnostics::dist_profile)).
    pub(crate) fn profiling(&self) -> bool {
        self.dev.options().diagnostics.dist_profile
    }

    pub(crate) fn coll_link(&self, op: &'static str) -> Link<'_> {
        self.link(op, &self.coll)
    }

    pub(crate) fn p2p_link(&self, op: &'static str) -> Link<'_> {
        self.link(op, &self.p2p)
    }

    /// The header exchange of a collective ([`agree::agree`]).
    #[allow(clippy::too_many_arguments)]
    pub(crate) fn agree(
        &self,
        op: &'static str,
        dtype: crate::DType,
        shape: Option<Vec<usize>>,
        root: usize,
        axis: usize,
        extra: u64,
        local: Option<Error>,
        rule: impl FnOnce(&[Vec<usize>]) -> std::result::Result<(), String>,
    ) -> Result<agree::Table> {
        let link = self.coll_link(op);
        link.open()?;
        let seq = self.seq.get();
        self.seq.set(seq + 1);
        let too_many = shape.as_ref().is_some_and(|s| s.len() > agree::MAX_DIMS);
        let local = local.or_else(|| {
            too_many.then(|| Error::TooManyDims {
                ndim: shape.as_ref().map_or(0, |s| s.len()),
                max: agree::MAX_DIMS,
            })
        });
        let shape = if local.is_some() { None } else { shape };
        let head = agree::Head {
            op,
            seq,
            dtype,
            shape,
            root,
            axis,
            extra,
            chunk: self.chunk.get(),
        };
        agree::agree(&link, self.rank, self.size, head, local, rule)
    }

    /// [`MpiErrorKind::Argument`] unless `rank` is below the size.
    pub(crate) fn check_rank(&self, op: &'static str, what: &str, rank: usize) -> Result<()> {
        if rank >= self.size {
            return Err(mpi_error(
                op,
                MpiErrorKind::Argument,
                format!(
                    "{what} {rank} is not below the communicator's size {}",
                    self.size
                ),
            ));
        }
        Ok(())
    }
}

impl std::fmt::Debug for Comm {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Comm")
            .field("rank", &self.rank)
            .field("size", &self.size)
            .field("local_rank", &self.local_rank)
            .field("device", &self.dev.info().name)
            .field("closed", &self.closed.get())
            .finish()
    }
}

/// The first `len % parts` parts one longer: NumPy's `array_split` extents.
pub(crate) fn split_extents(len: usize, parts: usize) -> Vec<usize> {
    (0..parts)
        .map(|p| len / parts + usize::from(p < len % parts))
        .collect()
}
