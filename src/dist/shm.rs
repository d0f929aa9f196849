//! MPI-3 shared-memory windows for the reductions of ranks on one host
//! (`MPI_Win_allocate_shared`): each rank downloads its chunk straight into its own part of
//! the window, where the others read it in place, so the reduce-scatter and the all-gather
//! are plain loads and stores at memory speed instead of messages that Open MPI copies
//! through its shared-memory queues in small fragments (twice per byte without CMA, and
//! only while a rank polls). [`SLOTS`] slots per rank take the chunks in turn; two
//! barriers per chunk (`MPI_Ibarrier`, polled against the timeout like every wait, with
//! `MPI_Win_sync` around them) order the stores and loads: after the staging (every chunk
//! is in place) and after the fold (every segment is combined). The order of one chunk's
//! work, and why a slot is free when it is written again, is in shm_reduce.rs.

use std::os::raw::{c_int, c_void};

use mpi::ffi;

use crate::error::{MpiErrorKind, Result};

use super::wire::{mpi_error, Batch, Link};

/// Slots of the window per rank: chunk k goes to slot k % SLOTS, so the download of chunk
/// k + 2 overlaps the fold of chunk k and the upload of chunk k - 1 (shm_reduce.rs).
pub(crate) const SLOTS: usize = 4;

/// One window over the ranks of a communicator, all on one host: [`SLOTS`] slots of `slot`
/// bytes per rank.
pub(crate) struct Shm {
    win: ffi::MPI_Win,
    pub(crate) slot: usize,
    /// Each rank's part of the window, mapped into this process.
    bases: Vec<*mut u8>,
}

/// Free bytes where Open MPI backs shared-memory windows on Linux (`/dev/shm`, its
/// `osc_sm_backing_directory` default), or `None` where that cannot be told.
fn backing_room() -> Option<u64> {
    if !cfg!(target_os = "linux") {
        return None;
    }
    // SAFETY: a zeroed statvfs written by the call; the path is a NUL-terminated literal.
    let mut st: libc::statvfs = unsafe { std::mem::zeroed() };
    let rc = unsafe { libc::statvfs(c"/dev/shm".as_ptr(), &mut st) };
    (rc == 0).then(|| st.f_bavail as u64 * st.f_frsize as u64)
}

/// Whether every rank sees room for a window of `slot`-byte slots over `p` ranks (twice
/// its bytes free where the window's backing file goes; `pretend`: this rank's free bytes
/// instead, for tests). Collective over `link` (MPI_Allreduce of the answers): the ranks
/// take the same path. A window past the room would fail when touched (SIGBUS in a
/// container's small /dev/shm), not when made.
pub(crate) fn room_for(link: &Link, p: usize, slot: usize, pretend: Option<u64>) -> Result<bool> {
    link.open()?;
    let need = 2 * (p * SLOTS * slot) as u64;
    let mine = u64::from(
        pretend
            .or_else(backing_room)
            .is_none_or(|free| free >= need),
    );
    let mut all = 0u64;
    // SAFETY: one u64 each way, valid communicator; blocking as the window's own
    // allocation is.
    let rc = unsafe {
        ffi::MPI_Allreduce(
            (&mine as *const u64).cast::<c_void>(),
            (&mut all as *mut u64).cast::<c_void>(),
            1,
            ffi::RSMPI_UINT64_T,
            ffi::RSMPI_MIN,
            link.comm,
        )
    };
    if rc != 0 {
        return Err(mpi_error(
            link.op,
            MpiErrorKind::Call,
            format!("MPI_Allreduce: code {rc}"),
        ));
    }
    Ok(all == 1)
}

impl Shm {
    /// Allocates the window (collective over `link`'s communicator: every rank calls it
    /// with the same `slot`).
    pub(crate) fn new(link: &Link, p: usize, slot: usize) -> Result<Shm> {
        link.open()?;
        let fail = |what: &str, rc: c_int| {
            mpi_error(link.op, MpiErrorKind::Call, format!("{what}: code {rc}"))
        };
        let mut base: *mut u8 = std::ptr::null_mut();
        // SAFETY: a null handle, written by the call.
        let mut win: ffi::MPI_Win = unsafe { ffi::RSMPI_WIN_NULL };
        // SAFETY: valid communicator and info; `base` and `win` outlive the call, which
        // writes the address of this rank's part into `base`.
        let rc = unsafe {
            ffi::MPI_Win_allocate_shared(
                (SLOTS * slot) as ffi::MPI_Aint,
                1,
                ffi::RSMPI_INFO_NULL,
                link.comm,
                (&mut base as *mut *mut u8).cast::<c_void>(),
                &mut win,
            )
        };
        if rc != 0 {
            return Err(fail("MPI_Win_allocate_shared", rc));
        }
        // SAFETY: the window just made; a passive epoch to every rank for the window's
        // life (MPI_Win_sync needs one).
        let rc = unsafe { ffi::MPI_Win_lock_all(ffi::MPI_MODE_NOCHECK as c_int, win) };
        if rc != 0 {
            return Err(fail("MPI_Win_lock_all", rc));
        }
        let mut bases = Vec::with_capacity(p);
        for q in 0..p {
            let mut size: ffi::MPI_Aint = 0;
            let mut unit: c_int = 0;
            let mut b: *mut u8 = std::ptr::null_mut();
            // SAFETY: valid window and rank; the outputs outlive the call.
            let rc = unsafe {
                ffi::MPI_Win_shared_query(
                    win,
                    q as c_int,
                    &mut size,
                    &mut unit,
                    (&mut b as *mut *mut u8).cast::<c_void>(),
                )
            };
            if rc != 0 || (size as usize) < SLOTS * slot || b.is_null() {
                return Err(fail("MPI_Win_shared_query", rc));
            }
            bases.push(b);
        }
        Ok(Shm { win, slot, bases })
    }

    /// Slot `s` (below [`SLOTS`]) of rank `q`'s part: `len` bytes at most `slot`.
    ///
    /// # Safety
    /// The caller orders its loads and stores against the other ranks' with
    /// [`Shm::fence`] (no rank writes what another reads between two fences).
    pub(crate) unsafe fn part(&self, q: usize, s: usize, len: usize) -> *mut u8 {
        debug_assert!(s < SLOTS && len <= self.slot);
        // SAFETY: within this rank's SLOTS * slot bytes.
        unsafe { self.bases[q].add(s * self.slot) }
    }

    /// Every rank's stores before this are visible to every rank's loads after it: a
    /// barrier polled against the link's timeout, with `MPI_Win_sync` around it.
    pub(crate) fn fence(&self, link: &Link) -> Result<()> {
        // SAFETY: the window is valid and locked (lock_all) on this rank.
        unsafe { ffi::MPI_Win_sync(self.win) };
        let mut b = Batch::new();
        b.barrier(link)?;
        b.wait(link)?;
        // SAFETY: as above.
        unsafe { ffi::MPI_Win_sync(self.win) };
        Ok(())
    }

    /// Frees the window: collective, so only while every rank's communicator is open
    /// (otherwise the window is left to MPI_Finalize).
    pub(crate) fn free(mut self, open: bool) {
        if open {
            // SAFETY: the window made by `new`, locked by it.
            unsafe {
                ffi::MPI_Win_unlock_all(self.win);
                ffi::MPI_Win_free(&mut self.win);
            }
        }
    }
}
