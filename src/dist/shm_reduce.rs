//! `reduce` and `allreduce` among ranks of one host through the shared-memory window
//! (shm.rs), with one host copy each way and three threads per rank in flight together: a
//! download thread writes chunk k of the array straight into slot k % [`SLOTS`] of this
//! rank's part of the window; this thread (1) passes the first barrier of chunk k (every
//! rank's chunk k is in place), (2) folds this rank's segment of the chunk over the others'
//! in place, in rank order, (3) passes the second barrier (every segment is combined) and
//! hands the chunk to an upload thread, which (4) uploads it to the result from the ranks'
//! segments where they lie, one staging buffer for all of them.
//!
//! Why a slot is free when the download thread writes it again: chunk k + SLOTS goes to
//! chunk k's slot, which the ranks read in their steps (2) and (4) of chunk k. A rank
//! enters the first barrier of chunk k + [`LAG`] only after its upload of chunk k is done,
//! so once this rank has passed that barrier no rank reads the slot again, and this thread
//! grants the download of chunk k + SLOTS then. Between the two barriers of a chunk each
//! rank writes only its own segment of its own slot and reads only that segment of the
//! others'.

use std::sync::mpsc;

use crate::array::Array;
use crate::dtype::Element;
use crate::error::{Error, Result};

use super::fold::fold_into_par;
use super::profile::Stage;
use super::reduce::{byte_ranges, ReduceOp};
use super::shm::{Shm, SLOTS};
use super::split_extents;
use super::stage::{chunks_of, dense, Ctl, Uploader};
use super::wire::Link;

/// Chunks an upload may lag behind the fold: the upload of chunk k overlaps the fold of
/// chunk k + 1 and must be done before the first barrier of chunk k + LAG.
const LAG: usize = 2;

/// The start of one slot of one rank's part of the window, for the helper threads.
#[derive(Clone, Copy)]
struct SlotPtr(*mut u8);

// SAFETY: an address in the window, mapped for the window's life, which outlasts the helper
// threads (joined before `reduce` returns); they write a slot only after this thread granted
// it and read one only between the second barrier of its chunk and the first barrier LAG
// chunks later (see the module doc).
unsafe impl Send for SlotPtr {}

/// Fails step `k` where a test asked for a failure there (`Comm::fail_after_chunks`).
fn injected(ctl: &Ctl, k: usize) -> Result<()> {
    if ctl.fail_at == Some(k) {
        return Err(Error::DeviceLost(format!(
            "injected before chunk {k} by Comm::fail_after_chunks (a test of failures midway)"
        )));
    }
    Ok(())
}

/// Step (2): this rank's segment `mine` of slot `slot` (chunk of `n` bytes) folded over the
/// other ranks' in place, in rank order.
///
/// # Safety
/// Between the chunk's two barriers (module doc).
unsafe fn fold_segment(
    shm: &Shm,
    (slot, n): (usize, usize),
    mine: std::ops::Range<usize>,
    (me, p): (usize, usize),
    d: crate::DType,
    op: ReduceOp,
) {
    // SAFETY: the caller's.
    unsafe {
        let at = |q: usize| shm.part(q, slot, n).add(mine.start);
        let dst = std::slice::from_raw_parts_mut(at(me), mine.len());
        let others: Vec<&[u8]> = (0..p)
            .filter(|&q| q != me)
            .map(|q| std::slice::from_raw_parts(at(q).cast_const(), mine.len()))
            .collect();
        fold_into_par(d, op, dst, me, &others);
    }
}

/// Step (4)'s input: each rank's combined segment of slot `slot`, in rank order.
///
/// # Safety
/// Between the chunk's second barrier and the first barrier [`LAG`] chunks later.
unsafe fn combined<'a>(
    slots: &[Vec<SlotPtr>],
    slot: usize,
    segments: &[std::ops::Range<usize>],
) -> Vec<&'a [u8]> {
    segments
        .iter()
        .enumerate()
        // SAFETY: the caller's.
        .map(|(q, r)| unsafe {
            std::slice::from_raw_parts(slots[q][slot].0.add(r.start).cast_const(), r.len())
        })
        .collect()
}

/// One reduction through the window: `x` (this rank's array, `chunk` bytes a step, the
/// window's slot size) combined by `op` in rank order; the result goes to `up` on the
/// ranks that get it (all for allreduce, `root` for reduce). `me` and `p`: this rank and
/// the number of ranks.
#[allow(clippy::too_many_arguments)]
pub(crate) fn reduce<T: Element>(
    shm: &Shm,
    link: &Link,
    x: &Array<T>,
    op: ReduceOp,
    chunk: usize,
    up: Option<&mut Uploader<T>>,
    ctl: &Ctl,
    (me, p): (usize, usize),
) -> Result<()> {
    let size = T::DTYPE.size();
    // A failure here is this rank's own, midway for the others (they passed the header).
    let src = match dense(x) {
        Ok(s) => s,
        Err(e) => return ctl.finish(Err(e), None),
    };
    let bytes = src.len() * size;
    let steps = chunks_of(bytes, chunk);
    let prof = ctl.prof;
    let (dev, buf, base) = (&src.dev, src.buf.as_ref(), (src.offset * size) as u64);
    // SAFETY: slot starts; nothing is read or written through them here.
    let slots: Vec<Vec<SlotPtr>> = (0..p)
        .map(|q| {
            (0..SLOTS)
                .map(|s| SlotPtr(unsafe { shm.part(q, s, chunk.min(shm.slot)) }))
                .collect()
        })
        .collect();
    let (mine_slots, all_slots) = (slots[me].clone(), slots);
    // The byte extents of each rank's segment of a chunk of `n` bytes.
    let segments = move |n: usize| byte_ranges(&split_extents(n / size, p), size);
    if steps == 1 {
        // One chunk: every step on this thread (the helpers' start would cost more).
        let r = (|| -> Result<()> {
            injected(ctl, 0)?;
            // SAFETY: slot 0 of this rank, which no rank reads before the first barrier
            // (every rank finished its previous reduction before this one's header).
            let dst = unsafe { std::slice::from_raw_parts_mut(mine_slots[0].0, bytes) };
            prof.time(Stage::Download, || dev.download(buf, base, dst))?;
            let segs = segments(bytes);
            prof.time(Stage::Scatter, || shm.fence(link))?;
            // SAFETY: between the two barriers.
            prof.time(Stage::Fold, || unsafe {
                fold_segment(shm, (0, bytes), segs[me].clone(), (me, p), T::DTYPE, op)
            });
            prof.time(Stage::Gather, || shm.fence(link))?;
            Ok(())
        })();
        ctl.finish(r, None)?;
        prof.chunk();
        return match up {
            // SAFETY: after the second barrier, before this rank returns.
            Some(u) => prof.time(Stage::Upload, || {
                u.put_parts(0, &unsafe { combined(&all_slots, 0, &segments(bytes)) })
            }),
            None => Ok(()),
        };
    }
    std::thread::scope(|s| {
        // Declared inside the scope: on an early return they drop first, so the helper
        // threads' next send or receive fails and they end before the scope joins them.
        let (full_tx, full_rx) = mpsc::sync_channel::<Result<()>>(SLOTS);
        let (grant_tx, grant_rx) = mpsc::channel::<()>();
        let (job_tx, job_rx) = mpsc::channel::<usize>();
        let (done_tx, done_rx) = mpsc::channel::<()>();
        s.spawn(move || {
            for k in 0..steps {
                if k >= SLOTS && grant_rx.recv().is_err() {
                    return;
                }
                let start = k * chunk;
                let len = chunk.min(bytes - start);
                // SAFETY: `len` bytes of slot k % SLOTS of this rank, which no rank reads
                // until the first barrier of chunk k (granted above: see the module doc).
                let dst = unsafe { std::slice::from_raw_parts_mut(mine_slots[k % SLOTS].0, len) };
                let r = prof.time(Stage::Download, || {
                    dev.download(buf, base + start as u64, dst)
                });
                let failed = r.is_err();
                if full_tx.send(r).is_err() || failed {
                    return;
                }
            }
        });
        let uploading = up.is_some();
        // A failed upload stops the uploads but not the steps (the other ranks' go on to
        // the end); it is returned after them.
        let uploader = up.map(|u| {
            s.spawn(move || -> Result<()> {
                let mut failed = None;
                for k in job_rx {
                    let (start, slot) = (k * chunk, k % SLOTS);
                    let n = chunk.min(bytes - start);
                    if failed.is_none() {
                        // SAFETY: read between the chunk's second barrier and the first
                        // barrier LAG chunks later, which this rank enters only after the
                        // acknowledgement below (module doc).
                        let parts = unsafe { combined(&all_slots, slot, &segments(n)) };
                        if let Err(e) = prof.time(Stage::Upload, || u.put_parts(start, &parts)) {
                            failed = Some(e);
                        }
                    }
                    if done_tx.send(()).is_err() {
                        break;
                    }
                }
                failed.map_or(Ok(()), Err)
            })
        });
        let stepped = (|| -> Result<()> {
            for k in 0..steps {
                injected(ctl, k)?;
                match prof.time(Stage::Wait, || full_rx.recv()) {
                    Ok(r) => r?,
                    Err(_) => unreachable!("the download thread sends every chunk or an error"),
                }
                if uploading && k >= LAG {
                    // The upload of chunk k - LAG, before the barrier that frees its slot.
                    prof.time(Stage::Handoff, || done_rx.recv())
                        .expect("the upload thread acknowledges every chunk");
                }
                let (slot, n) = (k % SLOTS, chunk.min(bytes - k * chunk));
                let mine = segments(n)[me].clone();
                prof.time(Stage::Scatter, || shm.fence(link))?;
                if k >= LAG && k + SLOTS - LAG < steps {
                    // Chunk k + SLOTS - LAG reuses chunk k - LAG's slot, which every rank
                    // has finished reading (it uploaded it before this barrier).
                    let _ = grant_tx.send(());
                }
                // SAFETY: between the two barriers this rank writes only its segment of its
                // own slot and reads only that segment of the others' (module doc).
                prof.time(Stage::Fold, || unsafe {
                    fold_segment(shm, (slot, n), mine, (me, p), T::DTYPE, op)
                });
                prof.time(Stage::Gather, || shm.fence(link))?;
                if uploading {
                    let _ = job_tx.send(k);
                }
                prof.chunk();
            }
            Ok(())
        })();
        drop((grant_tx, job_tx));
        ctl.finish(stepped, uploader)
    })
}
