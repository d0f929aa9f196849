//! `reduce` and `allreduce` among ranks of one host through the shared-memory window
//! (shm.rs), with one host copy each way: a helper thread downloads chunk k of the array
//! straight into slot k % [`SLOTS`] of this rank's part of the window; this thread then
//! (1) passes the first barrier (every rank's chunk k is in place), (2) folds this rank's
//! segment of the chunk over the others' in place, in rank order, (3) passes the second
//! barrier (every segment is combined) and (4) uploads the chunk to the result from the
//! ranks' segments where they lie, one staging buffer for all of them.
//!
//! Why a slot is free when the download thread writes it again: chunk k + SLOTS goes to
//! chunk k's slot, which other ranks read in their steps (2) and (4) of chunk k. A rank
//! reaches the first barrier of chunk k + 1 only after its step (4) of chunk k, so once
//! this rank has passed that barrier no rank reads the slot again, and this thread grants
//! the download of chunk k + SLOTS then. Between the two barriers each rank writes only
//! its own segment of its own slot and reads only that segment of the others'.

use std::sync::mpsc;

use crate::array::Array;
use crate::dtype::Element;
use crate::error::{Error, Result};

use super::fold::fold_into_par;
use super::profile::Stage;
use super::reduce::ReduceOp;
use super::shm::{Shm, SLOTS};
use super::split_extents;
use super::stage::{chunks_of, dense, Ctl, Uploader};
use super::wire::Link;

/// The start of one of this rank's slots, for the download thread.
#[derive(Clone, Copy)]
struct SlotPtr(*mut u8);

// SAFETY: the address of this rank's part of the window, mapped for the window's life,
// which outlasts the download thread (joined before `reduce` returns); the thread writes a
// slot only after this thread granted it (see the module doc).
unsafe impl Send for SlotPtr {}

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
    mut up: Option<&mut Uploader<T>>,
    ctl: &Ctl,
    (me, p): (usize, usize),
) -> Result<()> {
    let size = T::DTYPE.size();
    let src = dense(x)?;
    let bytes = src.len() * size;
    let steps = chunks_of(bytes, chunk);
    let prof = ctl.prof;
    let (dev, buf, base) = (&src.dev, src.buf.as_ref(), (src.offset * size) as u64);
    // SAFETY: slot starts of this rank's part; nothing is read or written through them here.
    let slots: Vec<SlotPtr> = (0..SLOTS)
        .map(|s| SlotPtr(unsafe { shm.part(me, s, chunk.min(shm.slot)) }))
        .collect();
    std::thread::scope(|s| {
        // Declared inside the scope: on an early return they drop first, so the download
        // thread's next send or receive fails and it ends before the scope joins it.
        let (full_tx, full_rx) = mpsc::sync_channel::<Result<()>>(SLOTS);
        let (grant_tx, grant_rx) = mpsc::channel::<()>();
        s.spawn(move || {
            for k in 0..steps {
                if k >= SLOTS && grant_rx.recv().is_err() {
                    return;
                }
                let start = k * chunk;
                let len = chunk.min(bytes - start);
                // SAFETY: `len` bytes of slot k % SLOTS of this rank, which no rank reads
                // until the first barrier of chunk k (granted above: see the module doc).
                let dst = unsafe { std::slice::from_raw_parts_mut(slots[k % SLOTS].0, len) };
                let r = prof.time(Stage::Download, || {
                    dev.download(buf, base + start as u64, dst)
                });
                let failed = r.is_err();
                if full_tx.send(r).is_err() || failed {
                    return;
                }
            }
        });
        // A failed upload stops the uploads but not the steps (the other ranks' go on to
        // the end); it is returned after them.
        let mut upload_failed = None;
        let stepped = (|| -> Result<()> {
            for k in 0..steps {
                if ctl.fail_at == Some(k) {
                    return Err(Error::DeviceLost(format!(
                        "injected before chunk {k} by Comm::fail_after_chunks (a test of \
                         failures midway)"
                    )));
                }
                match prof.time(Stage::Wait, || full_rx.recv()) {
                    Ok(r) => r?,
                    Err(_) => unreachable!("the download thread sends every chunk or an error"),
                }
                let (start, slot) = (k * chunk, k % SLOTS);
                let n = chunk.min(bytes - start);
                let mut ranges = Vec::with_capacity(p);
                let mut at = 0;
                for e in split_extents(n / size, p) {
                    ranges.push(at..at + e * size);
                    at += e * size;
                }
                prof.time(Stage::Scatter, || shm.fence(link))?;
                if k >= 1 && k + SLOTS - 1 < steps {
                    // Chunk k + SLOTS - 1 reuses chunk k - 1's slot, which every rank has
                    // finished reading (it passed this barrier after its upload of k - 1).
                    let _ = grant_tx.send(());
                }
                let mine = ranges[me].clone();
                // SAFETY: between the two barriers this rank writes only its segment of its
                // own slot and reads only that segment of the others' (module doc).
                prof.time(Stage::Fold, || unsafe {
                    let at = |q: usize| shm.part(q, slot, n).add(mine.start);
                    let dst = std::slice::from_raw_parts_mut(at(me), mine.len());
                    let others: Vec<&[u8]> = (0..p)
                        .filter(|&q| q != me)
                        .map(|q| std::slice::from_raw_parts(at(q).cast_const(), mine.len()))
                        .collect();
                    fold_into_par(T::DTYPE, op, dst, me, &others);
                });
                prof.time(Stage::Gather, || shm.fence(link))?;
                if let (Some(u), None) = (up.as_deref_mut(), upload_failed.as_ref()) {
                    // SAFETY: after the second barrier every rank only reads chunk k's slot
                    // until its first barrier of chunk k + 1.
                    let parts: Vec<&[u8]> = ranges
                        .iter()
                        .enumerate()
                        .map(|(q, r)| unsafe {
                            std::slice::from_raw_parts(
                                shm.part(q, slot, n).add(r.start).cast_const(),
                                r.len(),
                            )
                        })
                        .collect();
                    if let Err(e) = prof.time(Stage::Upload, || u.put_parts(start, &parts)) {
                        upload_failed = Some(e);
                    }
                }
                prof.chunk();
            }
            Ok(())
        })();
        drop(grant_tx);
        if let Err(e) = &stepped
            && !matches!(e, Error::Mpi { .. })
        {
            (ctl.abort)(e);
        }
        stepped.and(upload_failed.map_or(Ok(()), Err))
    })
}
