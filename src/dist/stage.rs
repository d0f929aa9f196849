//! Host staging of arrays for MPI: whole downloads and uploads, and the pipelined stream
//! of large arrays in chunks (a helper thread downloads chunk i+1 while this thread moves
//! chunk i through MPI, while the device still copies in chunk i-1's upload), as
//! [`Array::to_device`] pipelines between two devices.

use std::collections::VecDeque;
use std::sync::{mpsc, Mutex};

use crate::array::Array;
use crate::device::Device;
use crate::dtype::Element;
use crate::error::Result;

use super::profile::{Profile, Stage};

/// Uploads whose copy may still be queued on the device before the next one waits.
const IN_FLIGHT: usize = 2;

/// The array made contiguous (a new copy only when it is not).
pub(crate) fn dense<T: Element>(x: &Array<T>) -> Result<Array<T>> {
    if x.is_contiguous() {
        Ok(x.clone())
    } else {
        x.contiguous()
    }
}

/// The array's elements as bytes, row-major.
pub(crate) fn host_bytes<T: Element>(x: &Array<T>) -> Result<Vec<u8>> {
    let size = T::DTYPE.size();
    let mut out = vec![0u8; x.len() * size];
    if out.is_empty() {
        return Ok(out);
    }
    let src = dense(x)?;
    src.dev
        .download(&src.buf, (src.offset * size) as u64, &mut out)?;
    Ok(out)
}

/// A new array of `shape` on `dev` holding `bytes` (row-major, `T`'s size each).
pub(crate) fn from_bytes<T: Element>(
    dev: &Device,
    op: &'static str,
    shape: Vec<usize>,
    bytes: &[u8],
) -> Result<Array<T>> {
    let a = Array::<T>::alloc_any(dev, op, shape, |b| dev.alloc(b))?;
    debug_assert_eq!(a.len() * T::DTYPE.size(), bytes.len());
    dev.upload(&a.buf, 0, bytes)?;
    Ok(a)
}

/// Writes chunks into a new contiguous array, keeping at most [`IN_FLIGHT`] uploads queued.
pub(crate) struct Uploader<T: Element> {
    pub(crate) out: Array<T>,
    marks: VecDeque<crate::device::QueueMark>,
}

impl<T: Element> Uploader<T> {
    pub(crate) fn new(dev: &Device, op: &'static str, shape: Vec<usize>) -> Result<Self> {
        let out = Array::<T>::alloc_any(dev, op, shape, |b| dev.alloc(b))?;
        Ok(Uploader {
            out,
            marks: VecDeque::new(),
        })
    }

    /// Queues `bytes` for byte `at` of the array (a multiple of 4).
    pub(crate) fn put(&mut self, at: usize, bytes: &[u8]) -> Result<()> {
        self.put_parts(at, &[bytes])
    }

    /// Queues `parts`, one after another, for byte `at` of the array (a multiple of 4)
    /// through one staging buffer.
    pub(crate) fn put_parts(&mut self, at: usize, parts: &[&[u8]]) -> Result<()> {
        let dev = &self.out.dev;
        dev.upload_parts(&self.out.buf, at as u64, parts)?;
        self.marks.push_back(dev.mark()?);
        if self.marks.len() > IN_FLIGHT
            && let Some(m) = self.marks.pop_front()
        {
            dev.wait_mark(&m)?;
        }
        Ok(())
    }

    pub(crate) fn finish(self) -> Array<T> {
        self.out
    }
}

/// Calls `f(byte start, chunk)` for the array's bytes in chunks of `chunk` bytes (a
/// multiple of 8), in order; a helper thread downloads the next chunk meanwhile. `f` may
/// hand a spent buffer back for reuse.
pub(crate) fn download_chunks<T: Element>(
    x: &Array<T>,
    chunk: usize,
    mut f: impl FnMut(usize, Vec<u8>) -> Result<Option<Vec<u8>>>,
) -> Result<()> {
    let size = T::DTYPE.size();
    let bytes = x.len() * size;
    if bytes <= chunk {
        f(0, host_bytes(x)?)?;
        return Ok(());
    }
    let src = dense(x)?;
    let (dev, buf, base) = (&src.dev, src.buf.as_ref(), (src.offset * size) as u64);
    std::thread::scope(|s| {
        // Declared inside the scope: on an early return they drop first, so the reader's
        // next send or receive fails and it ends before the scope joins it.
        let (full_tx, full_rx) = mpsc::sync_channel::<Result<(usize, Vec<u8>)>>(1);
        let (empty_tx, empty_rx) = mpsc::channel::<Vec<u8>>();
        s.spawn(move || {
            for start in (0..bytes).step_by(chunk) {
                let len = chunk.min(bytes - start);
                let mut b = empty_rx.try_recv().unwrap_or_default();
                b.resize(len, 0);
                let r = dev.download(buf, base + start as u64, &mut b);
                let failed = r.is_err();
                if full_tx.send(r.map(|_| (start, b))).is_err() || failed {
                    return;
                }
            }
        });
        for r in full_rx {
            let (start, b) = r?;
            if let Some(spent) = f(start, b)? {
                let _ = empty_tx.send(spent);
            }
        }
        Ok(())
    })
}

/// What a pipelined transfer reports to and learns from its collective: the profile, a
/// step to fail at (tests), and how to tell the other ranks of a failure midway.
pub(crate) struct Ctl<'a> {
    pub(crate) prof: &'a Profile,
    pub(crate) fail_at: Option<usize>,
    pub(crate) abort: &'a dyn Fn(&crate::Error),
}

impl Ctl<'_> {
    /// The end of a pipelined transfer: tells the other ranks of this rank's own failure
    /// (an MPI error they saw themselves), waits for the upload thread, and returns the
    /// steps' error, else the uploads'.
    pub(crate) fn finish(
        &self,
        stepped: Result<()>,
        uploader: Option<std::thread::ScopedJoinHandle<'_, Result<()>>>,
    ) -> Result<()> {
        if let Err(e) = &stepped
            && !matches!(e, crate::Error::Mpi { .. })
        {
            (self.abort)(e);
        }
        let uploaded = match uploader {
            Some(h) => self
                .prof
                .time(Stage::Drain, || h.join())
                .unwrap_or_else(|p| std::panic::resume_unwind(p)),
            None => Ok(()),
        };
        stepped.and(uploaded)
    }
}

/// Bytes for the device: `buf[range]` goes to byte `at` of the result (a multiple of 4).
pub(crate) struct Put {
    pub(crate) at: usize,
    pub(crate) buf: Vec<u8>,
    pub(crate) range: std::ops::Range<usize>,
}

/// Spent host buffers, shared by a pipeline's threads for reuse (a chunk's buffer costs
/// as much to fault in as to fill).
#[derive(Default)]
pub(crate) struct Pool(Mutex<Vec<Vec<u8>>>);

impl Pool {
    /// A buffer of `len` bytes (a spent one where there is one; its bytes are stale).
    pub(crate) fn take(&self, len: usize) -> Vec<u8> {
        let mut b = self
            .0
            .lock()
            .unwrap_or_else(|e| e.into_inner())
            .pop()
            .unwrap_or_default();
        b.resize(len, 0);
        b
    }

    /// Keeps `b` for a later [`Pool::take`] (a few at most).
    pub(crate) fn give(&self, b: Vec<u8>) {
        let mut pool = self.0.lock().unwrap_or_else(|e| e.into_inner());
        if pool.len() < 8 {
            pool.push(b);
        }
    }
}

/// The chunks of `bytes` bytes: `bytes.div_ceil(chunk)`.
pub(crate) fn chunks_of(bytes: usize, chunk: usize) -> usize {
    bytes.div_ceil(chunk)
}

/// Runs `steps` steps of a pipelined transfer, three stages in flight: a download thread
/// fetches chunk k+1 of `x` (when given; chunks of `chunk` bytes, a multiple of 8) while
/// `f` works on step k on this thread (MPI, the fold) and, where `up` is given, an upload
/// thread writes step k-1's [`Put`]s to the device. `f(k, own, pool)` gets chunk k of `x`
/// as `(byte start, bytes)` while there is one, and returns what to upload (the buffers
/// then go to `pool`). A failed upload stops the uploads but not the steps (the other
/// ranks' transfers go on to the end) and is returned after them. A step that fails for
/// this rank's own reason (a download, not MPI) ends the transfer midway: `ctl.abort`
/// tells the others.
pub(crate) fn pipeline<T: Element>(
    x: Option<&Array<T>>,
    chunk: usize,
    steps: usize,
    up: Option<&mut Uploader<T>>,
    ctl: &Ctl,
    mut f: impl FnMut(usize, Option<(usize, Vec<u8>)>, &Pool) -> Result<Vec<Put>>,
) -> Result<()> {
    let prof = ctl.prof;
    let size = T::DTYPE.size();
    // A failure here is this rank's own, midway for the others (they passed the header).
    let src = match x {
        Some(x) if !x.is_empty() => match dense(x) {
            Ok(s) => Some(s),
            Err(e) => return ctl.finish(Err(e), None),
        },
        _ => None,
    };
    let bytes = src.as_ref().map_or(0, |s| s.len() * size);
    let pool = &Pool::default();
    std::thread::scope(|s| {
        // Declared inside the scope: on an early return they drop first, so the threads'
        // next send or receive fails and they end before the scope joins them.
        let (full_tx, full_rx) = mpsc::sync_channel::<Result<(usize, Vec<u8>)>>(1);
        let (up_tx, up_rx) = mpsc::sync_channel::<Vec<Put>>(1);
        if let Some(src) = src.as_ref() {
            let (dev, buf, base) = (&src.dev, src.buf.as_ref(), (src.offset * size) as u64);
            s.spawn(move || {
                for start in (0..bytes).step_by(chunk) {
                    let mut b = pool.take(chunk.min(bytes - start));
                    let r = prof.time(Stage::Download, || {
                        dev.download(buf, base + start as u64, &mut b)
                    });
                    let failed = r.is_err();
                    if full_tx.send(r.map(|_| (start, b))).is_err() || failed {
                        return;
                    }
                }
            });
        } else {
            drop(full_tx);
        }
        let uploader = up.map(|u| {
            s.spawn(move || -> Result<()> {
                for puts in up_rx {
                    for p in puts {
                        prof.time(Stage::Upload, || u.put(p.at, &p.buf[p.range.clone()]))?;
                        pool.give(p.buf);
                    }
                }
                Ok(())
            })
        });
        let mut uploading = uploader.is_some();
        let own = chunks_of(bytes, chunk);
        let stepped = (|| -> Result<()> {
            for k in 0..steps {
                if ctl.fail_at == Some(k) {
                    return Err(crate::Error::DeviceLost(format!(
                        "injected before chunk {k} by Comm::fail_after_chunks (a test of \
                         failures midway)"
                    )));
                }
                let mine = if k < own {
                    match prof.time(Stage::Wait, || full_rx.recv()) {
                        Ok(r) => Some(r?),
                        Err(_) => unreachable!("the download thread sends every chunk or an error"),
                    }
                } else {
                    None
                };
                let puts = f(k, mine, pool)?;
                prof.chunk();
                if uploading {
                    // A closed channel: the upload thread failed (its error comes below).
                    if let Err(mpsc::SendError(puts)) =
                        prof.time(Stage::Handoff, || up_tx.send(puts))
                    {
                        uploading = false;
                        puts.into_iter().for_each(|p| pool.give(p.buf));
                    }
                } else {
                    puts.into_iter().for_each(|p| pool.give(p.buf));
                }
            }
            Ok(())
        })();
        drop(up_tx);
        ctl.finish(stepped, uploader)
    })
}
