//! Small arrays sub-allocated from shared slab buffers.
//!
//! A driver buffer costs far more than a small array's bytes (lavapipe: about 4 KiB of
//! resident memory each, whatever its size), so arrays of at most [`SLAB_MAX`] bytes take a
//! slot of a [`SLAB_BYTES`] slab instead: slots are multiples of [`SLOT_ALIGN`] bytes, so a
//! small array wastes less than 256 bytes and every slot can be bound at its start. Each
//! slab holds slots of one size. A freed slot returns to its slab; an empty slab stays
//! cached in the pool (re-cut for another slot size when needed) until
//! `MemoryPool::free_all_blocks` or the pool's limit releases it.
//!
//! wgpu tracks usage per buffer, not per range: one dispatch must not bind a slab read-only
//! (an input) and writable (an output). Outputs are allocated apart from their inputs' slabs
//! where the op knows them, and `Device::launch` copies an input that still shares a slab
//! with a writable binding into a buffer of its own.

use std::collections::HashMap;

/// Arrays of at most this many bytes are sub-allocated.
pub(crate) const SLAB_MAX: u64 = 4 << 10;
/// Bytes of one slab (a size class of the pool, so slab buffers are reused as any other).
pub(crate) const SLAB_BYTES: u64 = 64 << 10;
/// Size granularity and alignment of slots: the largest `min_storage_buffer_offset_alignment`
/// that WebGPU allows.
pub(crate) const SLOT_ALIGN: u64 = 256;

/// The slot size of a request of `bytes` (more than 0, at most [`SLAB_MAX`]).
pub(crate) fn slot_size(bytes: u64) -> u64 {
    bytes.max(1).div_ceil(SLOT_ALIGN) * SLOT_ALIGN
}

/// One slab: a buffer cut into slots of one size.
pub(crate) struct Slab {
    pub(crate) buffer: wgpu::Buffer,
    pub(crate) slot: u64,
    /// Byte offsets of the free slots.
    free: Vec<u64>,
    live: u32,
}

impl Slab {
    fn new(buffer: wgpu::Buffer, slot: u64) -> Slab {
        let n = SLAB_BYTES / slot;
        Slab {
            buffer,
            slot,
            free: (0..n).rev().map(|k| k * slot).collect(),
            live: 0,
        }
    }
}

/// A slot taken from a slab: the slab's id (which the slab's buffer keeps while it is cut
/// into slots of this size), its buffer, the slot's offset and size.
pub(crate) struct Slot {
    pub(crate) slab: u64,
    pub(crate) buffer: wgpu::Buffer,
    pub(crate) base: u64,
    pub(crate) size: u64,
}

/// The slabs of a pool.
#[derive(Default)]
pub(crate) struct Slabs {
    by_id: HashMap<u64, Slab>,
    /// Ids of the slabs with free slots and at least one live slot, by slot size.
    open: HashMap<u64, Vec<u64>>,
    /// Ids of the slabs without a live slot.
    empty: Vec<u64>,
}

impl Slabs {
    /// A slot of `slot` bytes from an open slab whose id is not in `avoid`, else from an
    /// empty slab (re-cut, under the new id `fresh()`, if its slots differ).
    pub(crate) fn take(
        &mut self,
        slot: u64,
        avoid: &[u64],
        fresh: impl FnOnce() -> u64,
    ) -> Option<Slot> {
        let open = self.open.entry(slot).or_default();
        if let Some(k) = open.iter().rposition(|id| !avoid.contains(id)) {
            let id = open[k];
            let s = self.by_id.get_mut(&id).expect("open slabs exist");
            let base = s.free.pop().expect("open slabs have a free slot");
            s.live += 1;
            if s.free.is_empty() {
                open.swap_remove(k);
            }
            return Some(slot_of(id, s, base));
        }
        let k = self
            .empty
            .iter()
            .rposition(|id| !avoid.contains(id) && self.by_id[id].slot == slot)
            .or_else(|| self.empty.iter().rposition(|id| !avoid.contains(id)))?;
        let mut id = self.empty.swap_remove(k);
        let mut s = self.by_id.remove(&id).expect("empty slabs exist");
        if s.slot != slot {
            s = Slab::new(s.buffer, slot);
            id = fresh();
        }
        Some(self.start(id, s))
    }

    /// Adds the new slab `buffer` (of [`SLAB_BYTES`]) under `id` and takes its first slot.
    pub(crate) fn add(&mut self, id: u64, buffer: wgpu::Buffer, slot: u64) -> Slot {
        self.start(id, Slab::new(buffer, slot))
    }

    /// Takes the first slot of the slab `s` that has none live, and registers it.
    fn start(&mut self, id: u64, mut s: Slab) -> Slot {
        let base = s.free.pop().expect("a new slab has free slots");
        s.live = 1;
        if !s.free.is_empty() {
            self.open.entry(s.slot).or_default().push(id);
        }
        let slot = slot_of(id, &s, base);
        self.by_id.insert(id, s);
        slot
    }

    /// Returns the slot at `base` to slab `id`; true when the slab is now empty.
    pub(crate) fn put(&mut self, id: u64, base: u64) -> bool {
        let s = self.by_id.get_mut(&id).expect("a live slot's slab exists");
        let was_full = s.free.is_empty();
        s.free.push(base);
        s.live -= 1;
        let open = self.open.entry(s.slot).or_default();
        if s.live == 0 {
            if !was_full && let Some(k) = open.iter().position(|&o| o == id) {
                open.swap_remove(k);
            }
            self.empty.push(id);
            true
        } else {
            if was_full {
                open.push(id);
            }
            false
        }
    }

    /// Number of empty slabs.
    pub(crate) fn empty_count(&self) -> usize {
        self.empty.len()
    }

    /// Removes every empty slab; returns how many.
    pub(crate) fn drop_empty(&mut self) -> usize {
        let n = self.empty.len();
        for id in self.empty.drain(..) {
            self.by_id.remove(&id);
        }
        n
    }
}

fn slot_of(id: u64, s: &Slab, base: u64) -> Slot {
    Slot {
        slab: id,
        buffer: s.buffer.clone(),
        base,
        size: s.slot,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn slot_sizes_waste_less_than_256_bytes() {
        assert_eq!(slot_size(1), 256);
        assert_eq!(slot_size(256), 256);
        assert_eq!(slot_size(257), 512);
        for b in 1..=SLAB_MAX {
            let s = slot_size(b);
            assert!(s >= b && s - b < SLOT_ALIGN && s.is_multiple_of(SLOT_ALIGN));
        }
    }
}
