//! The one place that calls MPI to move bytes: non-blocking sends and receives of owned
//! host buffers, completed by polling `MPI_Test` against a deadline, so that no wait can
//! hang. A wait that reaches its deadline frees the requests it leaves (`MPI_Cancel` for
//! receives, `MPI_Request_free` for all), leaks their buffers on purpose (the library may
//! still read or write them) and closes the communicator.

use std::cell::Cell;
use std::os::raw::{c_int, c_void};
use std::time::{Duration, Instant};

use mpi::ffi;

use crate::error::{Error, MpiErrorKind, Result};

/// The tag of failure notices ([`Link::notify_failure`]), on either communicator: above
/// every user tag's pair (`2 * MAX_TAG + 1`) and every collective's tag.
const TAG_FAIL: i32 = 30000;

/// Largest piece of one MPI message (counts are C ints): bigger buffers go as several
/// messages on the same tag, which MPI keeps in order.
const PIECE: usize = 1 << 30;

/// A communicator's raw handle with what every wait needs.
#[derive(Clone, Copy)]
pub(crate) struct Link<'c> {
    pub(crate) comm: ffi::MPI_Comm,
    pub(crate) timeout: Duration,
    pub(crate) closed: &'c Cell<bool>,
    pub(crate) op: &'static str,
}

/// The `Error::Mpi` of operation `op`.
pub(crate) fn mpi_error(op: &'static str, kind: MpiErrorKind, detail: impl Into<String>) -> Error {
    Error::Mpi {
        op,
        kind,
        detail: detail.into(),
    }
}

/// MPI's words for an error code.
fn error_string(code: c_int) -> String {
    let mut buf = vec![0u8; 512];
    let mut len: c_int = 0;
    // SAFETY: the buffer holds MPI_MAX_ERROR_STRING (256 in Open MPI and MPICH) bytes.
    let rc = unsafe { ffi::MPI_Error_string(code, buf.as_mut_ptr().cast(), &mut len) };
    if rc != 0 {
        return format!("code {code}");
    }
    buf.truncate(len.max(0) as usize);
    format!("{} (code {code})", String::from_utf8_lossy(&buf))
}

impl Link<'_> {
    /// `Ok` unless a timeout closed the communicator.
    pub(crate) fn open(&self) -> Result<()> {
        if self.closed.get() {
            return Err(mpi_error(
                self.op,
                MpiErrorKind::Closed,
                "an earlier operation timed out; abort the job or open another communicator",
            ));
        }
        Ok(())
    }

    /// Tells `peers` that this rank's part of a transfer failed midway with `err` (they
    /// get it as [`MpiErrorKind::Remote`] in their next wait instead of a timeout), then
    /// closes the communicator on this rank: messages of the abandoned transfer may still
    /// be on their way.
    pub(crate) fn notify_failure(&self, peers: &[usize], err: &Error) {
        if self.closed.get() {
            return;
        }
        let text = err.to_string().into_bytes();
        let mut b = Batch::new();
        for &q in peers {
            if b.send(self, text.clone(), q, TAG_FAIL).is_err() {
                break;
            }
        }
        // Small messages go at once (eagerly); a peer that is gone does not hold us long.
        let deadline = Instant::now() + self.timeout.min(Duration::from_secs(2));
        while let Ok(false) = b.test(self) {
            if Instant::now() >= deadline {
                b.abandon(self);
                break;
            }
            std::thread::yield_now();
        }
        self.closed.set(true);
    }

    /// A peer's failure notice, if one has come: received, and returned as the error of
    /// this rank's wait.
    fn notice(&self) -> Option<Error> {
        let mut flag: c_int = 0;
        // SAFETY: a plain status struct, written by the call.
        let mut status: ffi::MPI_Status = unsafe { std::mem::zeroed() };
        // SAFETY: valid communicator; the status outlives the call.
        let rc = unsafe {
            ffi::MPI_Iprobe(
                ffi::RSMPI_ANY_SOURCE,
                TAG_FAIL,
                self.comm,
                &mut flag,
                &mut status,
            )
        };
        if rc != 0 || flag == 0 {
            return None;
        }
        let src = status.MPI_SOURCE;
        let mut count: c_int = 0;
        // SAFETY: the status of the probed message.
        unsafe { ffi::MPI_Get_count(&status, ffi::RSMPI_UINT8_T, &mut count) };
        let mut buf = vec![0u8; count.max(0) as usize];
        // SAFETY: the probed message is there: the receive completes at once, into a
        // buffer of its size.
        unsafe {
            ffi::MPI_Recv(
                buf.as_mut_ptr().cast(),
                count.max(0),
                ffi::RSMPI_UINT8_T,
                src,
                TAG_FAIL,
                self.comm,
                ffi::RSMPI_STATUS_IGNORE,
            )
        };
        Some(mpi_error(
            self.op,
            MpiErrorKind::Remote,
            format!(
                "rank {src} failed midway: {}; the communicator is closed",
                String::from_utf8_lossy(&buf)
            ),
        ))
    }

    fn call(&self, what: &str, rc: c_int) -> Result<()> {
        if rc == 0 {
            Ok(())
        } else {
            Err(mpi_error(
                self.op,
                MpiErrorKind::Call,
                format!("{what}: {}", error_string(rc)),
            ))
        }
    }
}

/// A set of posted sends and receives, completed together. The batch owns the buffers
/// they read or write ([`Batch::adopt`]); several requests may use disjoint byte ranges
/// of one buffer (a chunk whose segments go to different ranks, received in place).
pub(crate) struct Batch {
    reqs: Vec<ffi::MPI_Request>,
    /// For each request: its peer and whether it receives, or is a barrier.
    peer: Vec<usize>,
    recv: Vec<bool>,
    barrier: Vec<bool>,
    bufs: Vec<Vec<u8>>,
    /// Each buffer's heap block, taken once when adopted (the block stays put when the
    /// Vec moves).
    ptrs: Vec<*mut u8>,
}

impl Batch {
    pub(crate) fn new() -> Batch {
        Batch {
            reqs: Vec::new(),
            peer: Vec::new(),
            recv: Vec::new(),
            barrier: Vec::new(),
            bufs: Vec::new(),
            ptrs: Vec::new(),
        }
    }

    /// Takes `buf` into the batch without posting anything; returns its slot in
    /// [`Batch::wait`]'s answer.
    pub(crate) fn adopt(&mut self, mut buf: Vec<u8>) -> usize {
        self.ptrs.push(buf.as_mut_ptr());
        self.bufs.push(buf);
        self.bufs.len() - 1
    }

    /// Posts a send of `buf` to `dest`; returns the buffer's slot in [`Batch::wait`]'s answer.
    pub(crate) fn send(
        &mut self,
        link: &Link,
        buf: Vec<u8>,
        dest: usize,
        tag: i32,
    ) -> Result<usize> {
        let len = buf.len();
        let slot = self.adopt(buf);
        self.post(link, slot, 0..len, dest, tag, false)?;
        Ok(slot)
    }

    /// Posts a receive of exactly `len` bytes from `src`; returns the buffer's slot.
    pub(crate) fn recv(&mut self, link: &Link, len: usize, src: usize, tag: i32) -> Result<usize> {
        let slot = self.adopt(vec![0; len]);
        self.post(link, slot, 0..len, src, tag, true)?;
        Ok(slot)
    }

    /// Posts a send (`recv` false) or a receive of bytes `range` of the buffer in `slot`
    /// to or from `peer`. Requests on one buffer must not overlap unless all of them send.
    pub(crate) fn post(
        &mut self,
        link: &Link,
        slot: usize,
        range: std::ops::Range<usize>,
        peer: usize,
        tag: i32,
        recv: bool,
    ) -> Result<()> {
        link.open()?;
        assert!(range.start <= range.end && range.end <= self.bufs[slot].len());
        let ptr = self.ptrs[slot];
        let mut start = range.start;
        loop {
            let n = PIECE.min(range.end - start);
            // SAFETY: start + n <= the buffer's length (asserted above).
            let p = unsafe { ptr.add(start) }.cast::<c_void>();
            // SAFETY: a null request, written by the call.
            let mut req: ffi::MPI_Request = unsafe { ffi::RSMPI_REQUEST_NULL };
            // SAFETY: the buffer lives in `bufs` until the request completes, or is leaked
            // by a timeout; the datatype and communicator are valid handles.
            let rc = unsafe {
                if recv {
                    ffi::MPI_Irecv(
                        p,
                        n as c_int,
                        ffi::RSMPI_UINT8_T,
                        peer as c_int,
                        tag,
                        link.comm,
                        &mut req,
                    )
                } else {
                    ffi::MPI_Isend(
                        p,
                        n as c_int,
                        ffi::RSMPI_UINT8_T,
                        peer as c_int,
                        tag,
                        link.comm,
                        &mut req,
                    )
                }
            };
            if let Err(e) = link.call(if recv { "MPI_Irecv" } else { "MPI_Isend" }, rc) {
                self.abandon(link);
                return Err(e);
            }
            self.reqs.push(req);
            self.peer.push(peer);
            self.recv.push(recv);
            self.barrier.push(false);
            start += n;
            if start >= range.end {
                break;
            }
        }
        Ok(())
    }

    /// Posts a barrier (`MPI_Ibarrier`) over the link's communicator.
    pub(crate) fn barrier(&mut self, link: &Link) -> Result<()> {
        link.open()?;
        // SAFETY: a null request, written by the call.
        let mut req: ffi::MPI_Request = unsafe { ffi::RSMPI_REQUEST_NULL };
        // SAFETY: valid communicator; the request outlives the call.
        let rc = unsafe { ffi::MPI_Ibarrier(link.comm, &mut req) };
        link.call("MPI_Ibarrier", rc)?;
        self.reqs.push(req);
        self.peer.push(usize::MAX);
        self.recv.push(false);
        self.barrier.push(true);
        Ok(())
    }

    /// Whether every request has completed (one `MPI_Test` each).
    pub(crate) fn test(&mut self, link: &Link) -> Result<bool> {
        let mut all = true;
        for i in 0..self.reqs.len() {
            // SAFETY: the null request tests true at once.
            if self.reqs[i] == unsafe { ffi::RSMPI_REQUEST_NULL } {
                continue;
            }
            let mut flag: c_int = 0;
            // SAFETY: a request posted by `post`; MPI sets it to null once complete.
            let rc =
                unsafe { ffi::MPI_Test(&mut self.reqs[i], &mut flag, ffi::RSMPI_STATUS_IGNORE) };
            if let Err(e) = link.call("MPI_Test", rc) {
                self.abandon(link);
                return Err(e);
            }
            all &= flag != 0;
        }
        Ok(all)
    }

    /// Waits for every request within the link's timeout and returns the buffers in slot
    /// order (the received bytes, the sent buffers for reuse).
    pub(crate) fn wait(mut self, link: &Link) -> Result<Vec<Vec<u8>>> {
        let deadline = Instant::now() + link.timeout;
        while !self.test(link)? {
            if let Some(e) = link.notice() {
                self.abandon(link);
                link.closed.set(true);
                return Err(e);
            }
            if Instant::now() >= deadline {
                let waiting = self.waiting_on();
                self.abandon(link);
                return Err(mpi_error(
                    link.op,
                    MpiErrorKind::Timeout,
                    format!(
                        "no answer within {} s (Comm::set_timeout) from rank(s) {waiting:?}",
                        link.timeout.as_secs_f64()
                    ),
                ));
            }
            // Open MPI moves a large message through shared memory only while a rank calls
            // into it (each MPI_Test advances a few fragments), so waiting never sleeps: it
            // polls as MPI_Wait does, yielding the core to other ranks that share it
            // (mpirun --oversubscribe). Sleeping 20-200 us between tests held the H200's
            // 2-rank allreduce to 0.7 GB/s.
            std::thread::yield_now();
        }
        Ok(std::mem::take(&mut self.bufs))
    }

    fn waiting_on(&self) -> Vec<usize> {
        let mut ranks: Vec<usize> = (0..self.reqs.len())
            // SAFETY: comparing handles.
            .filter(|&i| self.reqs[i] != unsafe { ffi::RSMPI_REQUEST_NULL } && !self.barrier[i])
            .map(|i| self.peer[i])
            .collect();
        ranks.sort_unstable();
        ranks.dedup();
        ranks
    }

    /// Gives up the open requests: receives are cancelled, all are freed, their buffers
    /// leaked, and the communicator is closed.
    fn abandon(&mut self, link: &Link) {
        let mut leak = false;
        for i in 0..self.reqs.len() {
            // SAFETY: comparing handles; cancelling and freeing requests this batch posted.
            unsafe {
                if self.reqs[i] == ffi::RSMPI_REQUEST_NULL {
                    continue;
                }
                // A nonblocking collective's request may be neither cancelled nor freed:
                // it is left as it is (the communicator closes).
                if self.barrier[i] {
                    leak = true;
                    continue;
                }
                if self.recv[i] {
                    ffi::MPI_Cancel(&mut self.reqs[i]);
                }
                ffi::MPI_Request_free(&mut self.reqs[i]);
            }
            leak = true;
        }
        self.reqs.clear();
        if leak {
            for b in std::mem::take(&mut self.bufs) {
                std::mem::forget(b);
            }
            link.closed.set(true);
        }
    }
}

impl Drop for Batch {
    fn drop(&mut self) {
        // A batch dropped with requests still open (an early return between post and
        // wait): never free a buffer MPI may still use.
        if self
            .reqs
            .iter()
            .any(|r| *r != unsafe { ffi::RSMPI_REQUEST_NULL })
        {
            for b in std::mem::take(&mut self.bufs) {
                std::mem::forget(b);
            }
        }
    }
}

/// Sends `bufs[k]` to `dests[k]` and receives `lens[k]` bytes from `srcs[k]`, all at once;
/// returns the received buffers in order.
pub(crate) fn exchange(
    link: &Link,
    sends: Vec<(usize, Vec<u8>)>,
    recvs: &[(usize, usize)],
    tag: i32,
) -> Result<Vec<Vec<u8>>> {
    let mut b = Batch::new();
    let mut slots = Vec::with_capacity(recvs.len());
    for &(src, len) in recvs {
        slots.push(b.recv(link, len, src, tag)?);
    }
    for (dest, buf) in sends {
        b.send(link, buf, dest, tag)?;
    }
    let mut bufs = b.wait(link)?;
    Ok(slots
        .into_iter()
        .map(|s| std::mem::take(&mut bufs[s]))
        .collect())
}
