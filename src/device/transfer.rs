//! Moving bytes between host and device buffers, and clearing them: the staging pools of
//! `memory::staging` filled or read here, the copies recorded into the open batch.

use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::Arc;

use crate::error::Result;
use crate::memory::pool::{size_class, BufferHandle};
use crate::memory::staging::{map_and_copy, round4};

use super::Device;

/// A point in a device's queue: done once all work submitted before it is done.
pub(crate) struct QueueMark {
    index: Option<wgpu::SubmissionIndex>,
    done: Arc<AtomicBool>,
}

impl Device {
    /// Submits the pending work and marks the queue after it, without waiting.
    pub(crate) fn mark(&self) -> Result<QueueMark> {
        let index = self.flush()?;
        let done = Arc::new(AtomicBool::new(false));
        let flag = done.clone();
        self.inner
            .gpu
            .queue
            .on_submitted_work_done(move || flag.store(true, Ordering::Release));
        Ok(QueueMark { index, done })
    }

    /// Waits until the work before `mark` is done (within the device's timeout).
    pub(crate) fn wait_mark(&self, mark: &QueueMark) -> Result<()> {
        self.inner
            .gpu
            .wait_until(mark.index.clone(), || mark.done.load(Ordering::Acquire))
    }
}

/// Bytes of one staging buffer of a large upload ([`Device::upload_parts`]).
const UPLOAD_PIECE: usize = 64 << 20;
/// Pieces of a large upload in flight at most.
const UPLOAD_DEPTH: usize = 4;

/// The bytes `range` of the concatenation of `parts`, as slices of them.
fn sub_parts<'a>(parts: &[&'a [u8]], range: std::ops::Range<usize>) -> Vec<&'a [u8]> {
    let mut out = Vec::new();
    let mut at = 0;
    for p in parts {
        let (lo, hi) = (range.start.max(at), range.end.min(at + p.len()));
        if lo < hi {
            out.push(&p[lo - at..hi - at]);
        }
        at += p.len();
    }
    out
}

impl Device {
    /// Writes `data` into `dst` at byte `offset` (a multiple of 4), through a pooled staging
    /// buffer and a copy recorded in the pending batch.
    pub(crate) fn upload(&self, dst: &BufferHandle, offset: u64, data: &[u8]) -> Result<()> {
        self.upload_parts(dst, offset, &[data])
    }

    /// Writes `parts`, one after another, into `dst` from byte `offset` (a multiple of 4):
    /// as [`Device::upload`] of their concatenation, without making it. Up to
    /// [`UPLOAD_PIECE`] bytes go through one staging buffer and one copy recorded in the
    /// pending batch. Past that they go in pieces of that size, each submitted once
    /// written, with at most [`UPLOAD_DEPTH`] pieces' staging buffers in flight: the host's
    /// copy of one piece overlaps the device's copies of the others, and the staging
    /// buffers (pinned host memory, slow to make) are reused rather than one made per call
    /// as large as the array.
    pub(crate) fn upload_parts(
        &self,
        dst: &BufferHandle,
        offset: u64,
        parts: &[&[u8]],
    ) -> Result<()> {
        let total: usize = parts.iter().map(|d| d.len()).sum();
        if total <= UPLOAD_PIECE {
            return self.upload_piece(dst, offset, parts, false).map(|_| ());
        }
        let mut in_flight = std::collections::VecDeque::new();
        for at in (0..total).step_by(UPLOAD_PIECE) {
            if in_flight.len() >= UPLOAD_DEPTH {
                // The oldest piece's copy done: its staging buffer is back in the pool.
                self.inner.gpu.wait(in_flight.pop_front().flatten())?;
            }
            let piece = sub_parts(parts, at..(at + UPLOAD_PIECE).min(total));
            in_flight.push_back(self.upload_piece(dst, offset + at as u64, &piece, true)?);
        }
        Ok(())
    }

    /// One staging buffer's worth of [`Device::upload_parts`], recorded into the pending
    /// batch; the batch is submitted where `submit` asks or where it is full (the index to
    /// wait for).
    fn upload_piece(
        &self,
        dst: &BufferHandle,
        offset: u64,
        parts: &[&[u8]],
        submit: bool,
    ) -> Result<Option<wgpu::SubmissionIndex>> {
        if parts.iter().all(|d| d.is_empty()) {
            return Ok(None);
        }
        let i = &self.inner;
        let used = i.pool.stats().used;
        let (staging, size) = i.staging.upload_buffer(&i.gpu, parts, used)?;
        debug_assert!(offset.is_multiple_of(4) && offset + size <= dst.size());
        let mut batch = self.batch();
        batch.encoder(&i.gpu.device).copy_buffer_to_buffer(
            &staging,
            0,
            dst.buffer(),
            dst.base() + offset,
            size,
        );
        batch.add_upload(staging);
        if batch.count_command() || submit {
            return self.submit_locked(&mut batch);
        }
        Ok(None)
    }

    /// Copies `out.len()` bytes starting at byte `offset` of `src` to the host. Submits the
    /// pending work and waits for it.
    pub(crate) fn download(&self, src: &BufferHandle, offset: u64, out: &mut [u8]) -> Result<()> {
        if out.is_empty() {
            return self.flush().map(|_| ());
        }
        let i = &self.inner;
        if i.gpu.mappable_storage {
            return self.download_mapped(src, offset, out, true);
        }
        let offset = src.base() + offset;
        let start = offset & !3;
        let size = round4(offset + out.len() as u64) - start;
        let class = size_class(size);
        let staging = i.staging.take_read(&i.gpu, class, i.pool.stats().used)?;
        let index = {
            let mut batch = self.batch();
            batch.encoder(&i.gpu.device).copy_buffer_to_buffer(
                src.buffer(),
                start,
                &staging,
                0,
                size,
            );
            self.submit_locked(&mut batch)?
        };
        let skip = (offset - start) as usize;
        let r = map_and_copy(&i.gpu, &staging, 0..size, index, skip, out);
        i.staging.put_read(class, staging);
        r
    }

    /// Copies bytes from a host-mappable buffer: submits the pending work, maps `src` once it
    /// is done, copies out. `shared`: other arrays may use the buffer, so the batch stays
    /// locked while it is mapped and no other thread can submit work that uses it meanwhile.
    pub(crate) fn download_mapped(
        &self,
        src: &BufferHandle,
        offset: u64,
        out: &mut [u8],
        shared: bool,
    ) -> Result<()> {
        let gpu = &self.inner.gpu;
        let offset = src.base() + offset;
        let start = offset & !7;
        let end = round4(offset + out.len() as u64);
        let skip = (offset - start) as usize;
        let mut batch = self.batch();
        let index = self.submit_locked(&mut batch)?;
        if !shared {
            drop(batch);
            return map_and_copy(gpu, src.buffer(), start..end, index, skip, out);
        }
        let r = map_and_copy(gpu, src.buffer(), start..end, index, skip, out);
        drop(batch);
        r
    }

    /// Records a clear to zero of the whole allocation (never its neighbours in a slab)
    /// into the pending batch. A failed submit on the way (a full batch) leaves the device
    /// failed, which the next sync point reports.
    pub(crate) fn clear(&self, buf: &BufferHandle) {
        let mut batch = self.batch();
        batch.encoder(&self.inner.gpu.device).clear_buffer(
            buf.buffer(),
            buf.base(),
            Some(buf.size()),
        );
        if batch.count_command() {
            let _ = self.submit_locked(&mut batch);
        }
    }
}

#[cfg(test)]
mod tests {
    #[test]
    fn sub_parts_cut_across_parts() {
        let (a, b, c) = ([1u8, 2, 3], [4u8], [5u8, 6]);
        let parts: [&[u8]; 3] = [&a, &b, &c];
        let cat = |r: std::ops::Range<usize>| super::sub_parts(&parts, r).concat();
        assert_eq!(cat(0..6), vec![1, 2, 3, 4, 5, 6]);
        assert_eq!(cat(2..5), vec![3, 4, 5]);
        assert_eq!(cat(3..4), vec![4]);
        assert_eq!(super::sub_parts(&parts, 2..5).len(), 3);
        assert!(cat(6..6).is_empty());
    }
}
