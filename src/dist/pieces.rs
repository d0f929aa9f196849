//! The collectives that move bytes without combining them (`gather`, `allgather`,
//! `scatter`, `alltoall`) as one pipelined engine. Each sending rank streams its array in
//! chunks ([`pipeline`]: chunk k+1 downloads while chunk k moves); the bytes of chunk k
//! meant for rank r go to r as pieces cut where r's result windows (chunk-sized spans of
//! r's result) begin, so each receiving rank receives straight into the host buffer of
//! the window a piece belongs to and uploads each window once it is complete (the upload
//! thread, while the next step moves). Sender and receiver cut the same pieces from the
//! same table, and MPI keeps the messages of one sender and tag in order, so every piece
//! lands where it belongs.

use std::collections::BTreeMap;
use std::ops::Range;

use crate::array::Array;
use crate::dtype::Element;
use crate::error::Result;

use super::profile::{Profile, Stage};
use super::stage::{chunks_of, pipeline, Ctl, Put, Uploader};
use super::wire::{Batch, Link};

const TAG_PIECES: i32 = 5;

/// The pieces of chunk `k` (of `chunk` bytes) of an array of `len` bytes that go where
/// `route` says (`(its bytes, their place in the result)`), cut at the result's windows
/// (multiples of `chunk`): `(bytes of the array, byte of the result)` each.
fn pieces(
    route: Option<(Range<usize>, usize)>,
    len: usize,
    chunk: usize,
    k: usize,
) -> Vec<(Range<usize>, usize)> {
    let Some((src, dst)) = route else {
        return vec![];
    };
    let lo = (k * chunk).max(src.start);
    let hi = ((k + 1) * chunk).min(len).min(src.end);
    let mut out = Vec::new();
    let mut s = lo;
    while s < hi {
        let d = dst + (s - src.start);
        let n = (hi - s).min((d / chunk + 1) * chunk - d);
        out.push((s..s + n, d));
        s += n;
    }
    out
}

/// One rank's part of a pipelined move among `p` ranks. `lens[q]`: the bytes of rank q's
/// array (0 where it sends nothing); `x`: this rank's array (contiguous, `lens[me]`
/// bytes); `route(q, r)`: the bytes of q's array that go to rank r and their place in r's
/// result, whose bytes on this rank are `total`, written through `up`.
#[allow(clippy::too_many_arguments)]
pub(crate) fn move_pieces<T: Element>(
    link: &Link,
    me: usize,
    p: usize,
    chunk: usize,
    x: Option<&Array<T>>,
    lens: &[usize],
    total: usize,
    route: impl Fn(usize, usize) -> Option<(Range<usize>, usize)>,
    up: Option<&mut Uploader<T>>,
    prof: &Profile,
    fail_at: Option<usize>,
) -> Result<()> {
    let steps = lens.iter().map(|&l| chunks_of(l, chunk)).max().unwrap_or(0);
    let others: Vec<usize> = (0..p).filter(|&q| q != me).collect();
    let mine: Vec<Option<(Range<usize>, usize)>> = (0..p).map(|r| route(me, r)).collect();
    let from: Vec<Option<(Range<usize>, usize)>> = (0..p).map(|q| route(q, me)).collect();
    // Result windows being filled: their buffer and the bytes still missing.
    let mut open: BTreeMap<usize, (Vec<u8>, usize)> = BTreeMap::new();
    let win_len = |w: usize| chunk.min(total - w * chunk);
    let abort = |e: &crate::Error| link.notify_failure(&others, e);
    let ctl = Ctl {
        prof,
        fail_at,
        abort: &abort,
    };
    pipeline(x, chunk, steps, up, &ctl, |k, own, pool| {
        let window = |w: usize, open: &mut BTreeMap<usize, (Vec<u8>, usize)>| {
            open.entry(w)
                .or_insert_with(|| (pool.take(win_len(w)), win_len(w)))
                .0
                .len()
        };
        let mut b = Batch::new();
        // This rank's own bytes for itself: copied on the host.
        let own_slot = own.map(|(start, bytes)| {
            for (src, d) in pieces(mine[me].clone(), lens[me], chunk, k) {
                let w = d / chunk;
                window(w, &mut open);
                let e = open.get_mut(&w).expect("opened");
                e.0[d - w * chunk..][..src.len()]
                    .copy_from_slice(&bytes[src.start - start..src.end - start]);
                e.1 -= src.len();
            }
            (start, b.adopt(bytes))
        });
        // Every peer's pieces of its chunk k, received in place into their windows.
        let mut slots: BTreeMap<usize, usize> = BTreeMap::new();
        for &q in &others {
            for (src, d) in pieces(from[q].clone(), lens[q], chunk, k) {
                let w = d / chunk;
                window(w, &mut open);
                let e = open.get_mut(&w).expect("opened");
                let slot = *slots
                    .entry(w)
                    .or_insert_with(|| b.adopt(std::mem::take(&mut e.0)));
                e.1 -= src.len();
                let at = d - w * chunk;
                b.post(link, slot, at..at + src.len(), q, TAG_PIECES, true)?;
            }
        }
        // This rank's chunk k to the others, straight from its buffer.
        if let Some((start, slot)) = own_slot {
            for &r in &others {
                for (src, _) in pieces(mine[r].clone(), lens[me], chunk, k) {
                    b.post(
                        link,
                        slot,
                        src.start - start..src.end - start,
                        r,
                        TAG_PIECES,
                        false,
                    )?;
                }
            }
        }
        let mut bufs = prof.time(Stage::Gather, || b.wait(link))?;
        for (w, slot) in slots {
            open.get_mut(&w).expect("opened").0 = std::mem::take(&mut bufs[slot]);
        }
        if let Some((_, slot)) = own_slot {
            pool.give(std::mem::take(&mut bufs[slot]));
        }
        let done: Vec<usize> = open
            .iter()
            .filter(|(_, e)| e.1 == 0)
            .map(|(&w, _)| w)
            .collect();
        Ok(done
            .into_iter()
            .map(|w| {
                let (buf, _) = open.remove(&w).expect("listed");
                let range = 0..buf.len();
                Put {
                    at: w * chunk,
                    buf,
                    range,
                }
            })
            .collect())
    })
}

#[cfg(test)]
mod tests {
    use super::pieces;

    /// Every byte of every route lands once, in pieces within one chunk of the sender and
    /// one window of the receiver.
    #[test]
    fn pieces_cover_each_route_once_within_chunks_and_windows() {
        for chunk in [8, 16, 24] {
            for (src, dst, len) in [
                (0..40, 0, 40),
                (5..37, 3, 40),
                (0..0, 8, 9),
                (12..13, 99, 20),
            ] {
                let mut seen = vec![0; len];
                for k in 0..len.div_ceil(chunk) {
                    for (s, d) in pieces(Some((src.clone(), dst)), len, chunk, k) {
                        assert!(s.start >= k * chunk && s.end <= (k + 1) * chunk);
                        assert_eq!(d - dst, s.start - src.start);
                        assert_eq!(d / chunk, (d + s.len() - 1) / chunk, "one window");
                        seen[s.clone()].iter_mut().for_each(|c| *c += 1);
                    }
                }
                for (i, c) in seen.iter().enumerate() {
                    assert_eq!(*c, usize::from(src.contains(&i)), "byte {i} of {src:?}");
                }
            }
        }
        assert!(pieces(None, 10, 8, 0).is_empty());
    }
}
