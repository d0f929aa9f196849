//! The keys-only radix sort of 8-byte values (f64, i64, u64; shaders/radix64.wgsl): one row
//! longer than a bitonic row, sorted by its values alone (each digit taken of the value's
//! key), with the passes whose byte cannot move anything skipped on the GPU.
//!
//! Bytes an element, against the key-index records of [`super::radix::radix`] (a key pass
//! writing 12 bytes, 8 passes of a 4-byte histogram read and 12 + 12 bytes scattered, the
//! index plane read, then the values gathered, 8 + 8): 8 read by the reduction that plans
//! the passes, then per live pass 8 for the histogram and 8 + 8 for the scatter: 200 bytes
//! for 8 live passes where the records moved about 350, and 8 + 24 k for k live passes
//! (k = 3 for i64 data spanning less than 2^24, k = 8 for f64 of both signs and spread
//! exponents). The host cannot know k without waiting for the GPU, so it launches all 8
//! slots; the dead ones return at once (two empty grids and the small scan of the counts).
//! `Diagnostics::sort_profile` prints each stage's time, as for the other radix sorts (a
//! dead slot's stages show as the near-empty ones).

use std::sync::Arc;

use super::params::SortParams;
use super::plan::{build, grid, kernel_of, scan_blocks, scan_in_place, whole, ITEMS, SG_STEPS, WG};
use super::radix::Prof;
use super::radix_sg::{scatter_sg_kernel, scatter_sg_plan, SgPlan, RADIX_SG};
use crate::array::Array;
use crate::device::{Device, Work};
use crate::dtype::{DType, Element};
use crate::error::Result;
use crate::kernel::cache::Kernel;
use crate::kernel::source::Spec;
use crate::memory::pool::BufferHandle;

/// The text appended to shaders/sort.wgsl (after shaders/radix_sg.wgsl) in these kernels.
pub(super) const RADIX64: &str = include_str!("../../../shaders/radix64.wgsl");
/// Pass slots: one per byte of the key.
const NSLOT: u32 = 8;
/// Words of the pass table ahead of the reduction's partials (`TAB_WORDS`).
const TAB_WORDS: u32 = 16;
/// The most workgroups of the reduction (`k64_reduce`, grid-stride).
const PARTS_MAX: u32 = 1024;

/// The plan of the subgroup scatter where this sort can run: subgroups as
/// [`scatter_sg_plan`] wants them, its writes staged, and room for both words of a round
/// in workgroup memory. `None`: the key-index records sort the 8-byte values instead.
pub(super) fn plan64(dev: &Device) -> Option<SgPlan> {
    let sg = scatter_sg_plan(dev).filter(|sg| sg.staged)?;
    let lo = dev.info().subgroup_min_size;
    let sgs = sg.wg / lo;
    // Counters, slots, both staged planes, `gofs`, the subgroups' sums and the table word.
    let bytes = sgs * 256 * 4 + 256 * 4 + 2 * sg.wg * SG_STEPS * 4 + 256 * 4 + sgs * 4 + 4;
    (bytes <= dev.limits().max_compute_workgroup_storage_size).then_some(sg)
}

/// A kernel of shaders/radix64.wgsl for dtype `d` and the scatter plan `sg`.
fn kernel64(
    dev: &Device,
    d: DType,
    sg: SgPlan,
    (entry, inputs, wg): (&'static str, usize, u32),
) -> Result<Arc<Kernel>> {
    let sgs = sg.wg / dev.info().subgroup_min_size;
    let rounds = WG * ITEMS / (sg.wg * SG_STEPS);
    let narrow =
        u32::from(dev.info().subgroup_max_size <= 32 && !dev.options().tuning.radix_wide_ballots);
    let extra = format!("k64 s{sgs} r{rounds} nw{narrow}");
    build(dev, d, (entry, inputs, wg), true, extra, |s| {
        s.include(RADIX_SG)
            .include(RADIX64)
            .constant("SGS", sgs)
            .constant("ROUNDS", rounds)
            .constant("STAGED", 1)
            .constant("NARROW", narrow)
    })
}

/// The values of the 1-D `x` (f64, i64 or u64, longer than a bitonic row) sorted by their
/// keys alone, on the plan `sg` of [`plan64`]. Stable: equal keys (-0.0 and +0.0, every
/// NaN) keep their bits and input order.
pub(super) fn sort_keys_only64<T: Element>(x: &Array<T>, sg: SgPlan) -> Result<Array<T>> {
    let d = T::DTYPE;
    debug_assert!(matches!(d, DType::F64 | DType::I64 | DType::U64));
    let dev = &x.dev;
    let out = Array::<T>::alloc_with(dev, "sort", x.shape.clone(), |b| {
        dev.alloc_apart(b, &[&*x.buf])
    })?;
    let n = x.len() as u32;
    if n == 0 {
        return Ok(out);
    }
    let bytes = n as u64 * 8;
    let tmp = dev.alloc(bytes)?;
    let (counts, table_bytes, sums, tiles, parts) = scratch(dev, n)?;
    let count = 256 * tiles;
    let base = SortParams {
        n,
        row_len: n,
        in_off: x.offset as u32,
        tiles,
        ..Default::default()
    };
    let table = whole(&counts, table_bytes);
    let reduce = kernel64(dev, d, sg, ("k64_reduce", 1, WG))?;
    let plan = kernel64(dev, d, sg, ("k64_plan", 0, WG))?;
    let hist = kernel64(dev, d, sg, ("hist64", 3, WG))?;
    let scatter = kernel64(dev, d, sg, ("scatter64", 3, sg.wg))?;
    let mut prof = Prof::new(dev)?;
    dev.launch(&reduce, &base.encode(), &[x.binding()], table, grid(parts))?;
    let prm = SortParams {
        count: parts,
        ..base
    };
    dev.launch(&plan, &prm.encode(), &[], table, grid(1))?;
    Prof::mark(&mut prof, dev, "plan64")?;
    for i in 0..NSLOT {
        // The slots alternate between the scratch and the output, the last into the output.
        let scratch = whole(&tmp, bytes);
        let (dst, prev) = if (NSLOT - 1 - i).is_multiple_of(2) {
            (out.binding(), scratch)
        } else {
            (scratch, out.binding())
        };
        let prm = SortParams { word: i, ..base };
        let work = grid(tiles);
        dev.launch(
            &hist,
            &prm.encode(),
            &[prev, x.binding(), x.binding()],
            table,
            work,
        )?;
        Prof::mark(&mut prof, dev, "hist64")?;
        let scanned = whole(&counts, count as u64 * 4);
        scan_in_place(dev, d, true, &prm, scanned, count, &sums)?;
        Prof::mark(&mut prof, dev, "scan")?;
        dev.launch(
            &scatter,
            &prm.encode(),
            &[prev, table, x.binding()],
            dst,
            work,
        )?;
        Prof::mark(&mut prof, dev, "scatter64")?;
    }
    Prof::report(prof, n)?;
    Ok(out)
}

/// The counts of one sort of `n` elements (`256 * tiles` words) with the pass table and the
/// reduction's partials after them, and the scan's block sums: (counts, their bytes with
/// the table, sums, tiles, parts).
fn scratch(dev: &Device, n: u32) -> Result<(BufferHandle, u64, BufferHandle, u32, u32)> {
    let tiles = n.div_ceil(WG * ITEMS);
    let parts = n.div_ceil(WG * 16).clamp(1, PARTS_MAX);
    let count = 256 * tiles;
    let table_bytes = (count + TAB_WORDS + 8 * parts) as u64 * 4;
    let counts = dev.alloc(table_bytes)?;
    let sums = dev.alloc(scan_blocks(count) as u64 * 4)?;
    Ok((counts, table_bytes, sums, tiles, parts))
}

/// Indices that sort the one row `x` (f64, i64 or u64, contiguous from its offset, longer
/// than a bitonic row) into `out`, on the plan `sg` of [`plan64`]: key-index records (two
/// key words and the index, as [`super::radix::radix`]'s) whose passes over bytes no two
/// keys differ in are skipped as in [`sort_keys_only64`]. The key pass runs twice, each
/// writing the records only where the live passes' parity makes its buffer the one the
/// first live slot reads (and the keys less the least key in the table's form 1: `keys_skip`); the
/// slots alternate between the two record buffers, the last into the first, which
/// `finish` reads.
pub(super) fn argsort64<T: Element>(
    x: &Array<T>,
    descending: bool,
    out: &Array<u32>,
    sg: SgPlan,
) -> Result<()> {
    let d = T::DTYPE;
    let dev = &x.dev;
    let n = x.len() as u32;
    let rec_bytes = 3 * n as u64 * 4;
    let recs = [
        dev.alloc_apart(rec_bytes, &[&*x.buf])?,
        dev.alloc(rec_bytes)?,
    ];
    let (counts, table_bytes, sums, tiles, parts) = scratch(dev, n)?;
    let count = 256 * tiles;
    let base = SortParams {
        n,
        row_len: n,
        in_off: x.offset as u32,
        tiles,
        descending,
        ..Default::default()
    };
    let table = whole(&counts, table_bytes);
    let reduce = kernel64(dev, d, sg, ("k64_reduce", 1, WG))?;
    let plan = kernel64(dev, d, sg, ("k64_plan", 0, WG))?;
    let skip = |s: Spec| s.constant("SKIP", 1);
    let keys = build(dev, d, ("keys_skip", 2, WG), false, String::new(), |s| s)?;
    let hist = build(dev, d, ("hist", 1, WG), false, "k1".into(), skip)?;
    let scatter = scatter_sg_kernel(dev, d, sg, false, false, true)?;
    let mut prof = Prof::new(dev)?;
    dev.launch(&reduce, &base.encode(), &[x.binding()], table, grid(parts))?;
    let prm = SortParams {
        count: parts,
        ..base
    };
    dev.launch(&plan, &prm.encode(), &[], table, grid(1))?;
    Prof::mark(&mut prof, dev, "plan64")?;
    for (parity, r) in recs.iter().enumerate() {
        let prm = SortParams {
            word: parity as u32,
            ..base
        };
        let dst = whole(r, rec_bytes);
        dev.launch(
            &keys,
            &prm.encode(),
            &[x.binding(), table],
            dst,
            Work::Items(n),
        )?;
    }
    Prof::mark(&mut prof, dev, "keys_skip")?;
    for i in 0..NSLOT {
        // Slot i writes records[0] where NSLOT - 1 - i is even, so the last writes it.
        let to = ((NSLOT - 1 - i) % 2) as usize;
        let (dst, prev) = (whole(&recs[to], rec_bytes), whole(&recs[1 - to], rec_bytes));
        // The records start at element 0.
        let prm = SortParams {
            word: i,
            in_off: 0,
            ..base
        };
        let work = grid(tiles);
        dev.launch(&hist, &prm.encode(), &[prev], table, work)?;
        Prof::mark(&mut prof, dev, "hist")?;
        let scanned = whole(&counts, count as u64 * 4);
        scan_in_place(dev, d, false, &prm, scanned, count, &sums)?;
        Prof::mark(&mut prof, dev, "scan")?;
        dev.launch(&scatter, &prm.encode(), &[prev, table], dst, work)?;
        Prof::mark(&mut prof, dev, "scatter_sg")?;
    }
    let fin = kernel_of(dev, d, "finish", 1, WG, 0, false)?;
    let last = whole(&recs[0], rec_bytes);
    dev.launch(&fin, &base.encode(), &[last], out.binding(), Work::Items(n))?;
    Prof::mark(&mut prof, dev, "finish")?;
    Prof::report(prof, n)
}
