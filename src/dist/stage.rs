//! Host staging of arrays for MPI: whole downloads and uploads, and the pipelined stream
//! of large arrays in chunks (a helper thread downloads chunk i+1 while this thread moves
//! chunk i through MPI, while the device still copies in chunk i-1's upload), as
//! [`Array::to_device`] pipelines between two devices.

use std::collections::VecDeque;
use std::sync::mpsc;

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
        let dev = &self.out.dev;
        dev.upload(&self.out.buf, at as u64, bytes)?;
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

/// Streams the array's bytes through `f` in chunks of `chunk` bytes (a multiple of 8), in
/// order, three stages in flight: a download thread fetches chunk i+1 while `f` works on
/// chunk i on this thread (MPI, the fold) and, where `up` is given, an upload thread
/// writes chunk i-1 to the device. `f(start, bytes)` returns the chunk's buffer: uploaded
/// at byte `start` (with `up`), then handed back to the download thread for reuse. A
/// failed upload stops the uploads but not the stream (the other ranks' transfers go on
/// to the end) and is returned after it.
pub(crate) fn stream_chunks<T: Element>(
    x: &Array<T>,
    chunk: usize,
    up: Option<&mut Uploader<T>>,
    prof: &Profile,
    mut f: impl FnMut(usize, Vec<u8>) -> Result<Vec<u8>>,
) -> Result<()> {
    let size = T::DTYPE.size();
    let bytes = x.len() * size;
    if bytes == 0 {
        return Ok(());
    }
    let src = dense(x)?;
    let (dev, buf, base) = (&src.dev, src.buf.as_ref(), (src.offset * size) as u64);
    std::thread::scope(|s| {
        // Declared inside the scope: on an early return they drop first, so the threads'
        // next send or receive fails and they end before the scope joins them.
        let (full_tx, full_rx) = mpsc::sync_channel::<Result<(usize, Vec<u8>)>>(1);
        let (empty_tx, empty_rx) = mpsc::channel::<Vec<u8>>();
        let (up_tx, up_rx) = mpsc::sync_channel::<(usize, Vec<u8>)>(1);
        s.spawn(move || {
            for start in (0..bytes).step_by(chunk) {
                let len = chunk.min(bytes - start);
                let mut b = empty_rx.try_recv().unwrap_or_default();
                b.resize(len, 0);
                let r = prof.time(Stage::Download, || {
                    dev.download(buf, base + start as u64, &mut b)
                });
                let failed = r.is_err();
                if full_tx.send(r.map(|_| (start, b))).is_err() || failed {
                    return;
                }
            }
        });
        let uploader = up.map(|u| {
            let empty = empty_tx.clone();
            s.spawn(move || -> Result<()> {
                for (start, b) in up_rx {
                    prof.time(Stage::Upload, || u.put(start, &b))?;
                    let _ = empty.send(b);
                }
                Ok(())
            })
        });
        let mut uploading = uploader.is_some();
        let streamed = (|| -> Result<()> {
            while let Ok(r) = prof.time(Stage::Wait, || full_rx.recv()) {
                let (start, b) = r?;
                let out = f(start, b)?;
                prof.chunk();
                if uploading {
                    // A closed channel: the upload thread failed (its error comes below).
                    if let Err(mpsc::SendError((_, out))) =
                        prof.time(Stage::Handoff, || up_tx.send((start, out)))
                    {
                        uploading = false;
                        let _ = empty_tx.send(out);
                    }
                } else {
                    let _ = empty_tx.send(out);
                }
            }
            Ok(())
        })();
        drop(up_tx);
        let uploaded = match uploader {
            Some(h) => prof
                .time(Stage::Drain, || h.join())
                .unwrap_or_else(|p| std::panic::resume_unwind(p)),
            None => Ok(()),
        };
        streamed.and(uploaded)
    })
}
