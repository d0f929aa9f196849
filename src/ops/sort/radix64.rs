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
//!
//! Where the time goes (H200 through Vulkan, 16M normal f64, 2026-11-29, before session
//! 19's change): of 3.03 ms, the scatter 2.27 (0.28 ms a pass against a floor of 0.07 for
//! its 16 bytes an element), the histograms 0.48, the scans 0.19 (three dispatches a
//! pass), the plan 0.09. The argsort's key-index scatter (`scatter_sg`, 24 bytes an
//! element) took about as long, 2.35: the scatter's cost is its work an element, not its
//! bytes (the SM clock stayed at 1980 MHz). Its SASS: 2277 instructions, 99 registers a
//! lane (four workgroups of 128 an SM). Session 19 ranks full rounds without the ballot of
//! `valid` (`FULL`, [`full_rounds`]; `GPUARRAY_RADIX_FULL=0` for the earlier form). Measured
//! and dropped (H200, same day): the destination of each entry staged in a third plane
//! beside its words, so that the writes skip the key transform and digit (scatter 3.42 ms
//! against 2.27: 124 registers, twice the scattered stores to workgroup memory); the same
//! with the words loaded again after the ranking (4.34 ms, 129 registers); with `FULL`
//! the staged-destination kernel went from 3.42 to 3.16 ms.
//!
//! Session 21 cuts the work and registers an element of the ranking (`scatter64s`), chosen
//! by the measuring switch `GPUARRAY_SORT64_SCATTER` ([`scatter_mode`]; default 1):
//! - eight keys an invocation in a round, not sixteen: the keys held (two words each) and
//!   their ranks take 24 registers where they took 48; twice the rounds, each with its scan
//!   of the subgroups' 256 counts and its barriers;
//! - the plain digits: where no value is a NaN or -0.0 (the plan's reduction checks, in
//!   its one read) and the form is 0, an f64's key is its bits with the sign flips alone,
//!   so a digit is one word xor-ed, shifted and masked (`digit_plain`) where `digit64`
//!   tests both words for NaN and -0.0, the descending order and the form; every element
//!   takes its digit twice (ranking and writes) and once more in `hist64`;
//! - the first slot's loads from the input or the records chosen once a round, not a
//!   branch a load.
//!
//! Measured (H200 through Vulkan, 16M normal f64, 2026-11-29 14:27, one process a mode,
//! CuPy's sort 1.264 ms): mode 0 (session 19's `scatter64`: R108, 3333 SASS instructions)
//! 2.833 ms; mode 2 (eight keys, `digit64`) 2.699 ms; mode 1 (eight keys, plain digits:
//! R69, 2629 instructions) 2.296 ms, 0.55x CuPy (0.45x before). Mode 3 (sixteen keys with
//! the plain digits, `scatter64`) came after that run: unmeasured. Measured and dropped
//! (same run): the argsort's key-index scatter in rounds of eight keys (`scatter64s_kv`,
//! three planes staged in turn: R71, 1933 instructions) took its eight passes in 2.66 ms
//! against `scatter_sg`'s 2.27 (R127), argsort 3.54 against 3.18 ms: the argsort keeps
//! `scatter_sg`.
//!
//! Every mode gives the same bits (tests/sort64.rs `every_scatter_mode`). (Mode 0's
//! `scatter64` has had the branch to the plain digits since; the table forbids them there.)
//!
//! With `Tuning::radix_onesweep` (`GPUARRAY_RADIX_ONESWEEP`, off by default) both sorts
//! run in onesweep form (Adinets & Merrill 2022), on the ranking and staging of
//! shaders/radix_sg.wgsl: after the plan, one read of the input counts all eight bytes of
//! the keys (`os_hist64`; `os_scan` scans them), then each slot is one dispatch,
//! `scatter64_os` (values) or `scatter64_pairs` (argsort: the values as keys with a u32
//! index plane, made by the first live slot, the last slot writing the indices alone),
//! whose tiles take their offsets by a decoupled look-back over the tiles before them.
//! Per live pass an element moves 8 + 8 bytes (pairs 12 + 12) and a slot costs one
//! dispatch, against 8 + 8 + 8 and five (histogram, the scan's three, scatter) here; the
//! look-back's status words add about 1.5 bytes an element. Which form is faster depends
//! on the GPU (on the H100 the 4-byte onesweep lost what it saved to its look-back):
//! measure with `GPUARRAY_RADIX_ONESWEEP=1` before making it the default.

use std::sync::Arc;

use super::params::SortParams;
use super::plan::{build, grid, kernel_of, scan_blocks, scan_in_place, whole, ITEMS, SG_STEPS, WG};
use super::radix::Prof;
use super::radix_sg::{
    full_rounds, onesweep_kernel, scatter_sg_kernel, scatter_sg_plan, SgPlan, OS_SPIN, RADIX_SG,
};
use crate::array::Array;
use crate::device::{Device, Work};
use crate::dtype::{DType, Element};
use crate::error::Result;
use crate::kernel::cache::Kernel;
use crate::kernel::launch::Binding;
use crate::kernel::source::Spec;
use crate::memory::pool::BufferHandle;

/// The text appended to shaders/sort.wgsl (after shaders/radix_sg.wgsl) in these kernels.
pub(super) const RADIX64: &str = include_str!("../../../shaders/radix64.wgsl");
/// The onesweep kernels, appended after [`RADIX64`] in the onesweep form's kernels alone.
pub(super) const RADIX64_OS: &str = include_str!("../../../shaders/radix64_os.wgsl");
/// Pass slots: one per byte of the key.
const NSLOT: u32 = 8;
/// Words of the pass table ahead of the reduction's partials (`TAB_WORDS`).
const TAB_WORDS: u32 = 16;
/// The most workgroups of the reduction (`k64_reduce`, grid-stride).
const PARTS_MAX: u32 = 1024;
/// Words of one workgroup's partial of the reduction (`PART_W`): the least and greatest
/// key, their OR and AND, and whether a key is not its plain form (a NaN or -0.0).
const PART_WORDS: u32 = 9;
/// Keys an invocation of `scatter64s` holds in a round (`S64`).
const S64: u32 = 8;

/// The measuring switch `GPUARRAY_SORT64_SCATTER` (read once) of the keys-only sort's
/// scatter: 1 (the default) `scatter64s`, eight keys an invocation and the plain digits
/// where the plan allows them; 2 `scatter64s` with the plain digits forbidden (every digit
/// by `digit64`, in the histograms too); 3 `scatter64` (sixteen keys an invocation) with
/// the plain digits; 0 session 19's: `scatter64`, every digit by `digit64`. Every mode
/// gives the same bits.
fn scatter_mode() -> u32 {
    static MODE: std::sync::OnceLock<u32> = std::sync::OnceLock::new();
    *MODE.get_or_init(|| match crate::config::switch("GPUARRAY_SORT64_SCATTER") {
        Some(m @ (0 | 2 | 3)) => m as u32,
        _ => 1,
    })
}

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

/// A kernel of shaders/radix64.wgsl for dtype `d` and the scatter plan `sg`; with `os`, of
/// its onesweep form (`OS64`: tiles of one round, the scratch's onesweep layout, binding 3
/// writable for `os_hist64` and `scatter64_os`; shaders/radix64_os.wgsl appended). `FULL`
/// as [`full_rounds`] says (used by `scatter64`).
fn kernel64(
    dev: &Device,
    d: DType,
    sg: SgPlan,
    (entry, inputs, wg): (&'static str, usize, u32),
    os: bool,
) -> Result<Arc<Kernel>> {
    let mut sgs = sg.wg / dev.info().subgroup_min_size;
    if entry == "os_hist64" {
        // Its counts of the eight bytes are `sgc`.
        sgs = sgs.max(8);
    }
    let eight = entry == "scatter64s";
    let steps = if eight { S64 } else { SG_STEPS };
    let rounds = if os { 1 } else { WG * ITEMS / (sg.wg * steps) };
    let narrow =
        u32::from(dev.info().subgroup_max_size <= 32 && !dev.options().tuning.radix_wide_ballots);
    let spin = dev.options().tuning.radix_spin.unwrap_or(OS_SPIN);
    let full = full_rounds();
    let extra = format!(
        "k64 s{sgs} r{rounds} nw{narrow} os{} sp{spin} f{full}",
        u32::from(os)
    );
    build(dev, d, (entry, inputs, wg), true, extra, |s| {
        let s = s
            .include(RADIX_SG)
            .include(RADIX64)
            .constant("SGS", sgs)
            .constant("ROUNDS", rounds)
            .constant("STAGED", 1)
            .constant("NARROW", narrow)
            .constant("SPIN", spin)
            .constant("OS64", u32::from(os))
            .constant("FULL", full)
            .unroll("S64", S64);
        // Its indices are in bounds by construction, as `scatter64`'s (plan.rs).
        let s = if eight { s.unchecked() } else { s };
        if !os {
            s
        } else if inputs == 3 {
            s.include(RADIX64_OS).writable_last_input()
        } else {
            s.include(RADIX64_OS)
        }
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
    if dev.options().tuning.radix_onesweep && n < 1 << 30 {
        onesweep64(x, &out, sg)?;
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
    let reduce = kernel64(dev, d, sg, ("k64_reduce", 1, WG), false)?;
    let plan = kernel64(dev, d, sg, ("k64_plan", 0, WG), false)?;
    let hist = kernel64(dev, d, sg, ("hist64", 3, WG), false)?;
    let mode = scatter_mode();
    let entry = if matches!(mode, 0 | 3) {
        "scatter64"
    } else {
        "scatter64s"
    };
    let scatter = kernel64(dev, d, sg, (entry, 3, sg.wg), false)?;
    let mut prof = Prof::new(dev)?;
    dev.launch(&reduce, &base.encode(), &[x.binding()], table, grid(parts))?;
    // `word` 1 forbids the plain digits (modes 0 and 2).
    let prm = SortParams {
        count: parts,
        word: u32::from(matches!(mode, 0 | 2)),
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
        Prof::mark(&mut prof, dev, entry)?;
    }
    Prof::report(prof, n)?;
    Ok(out)
}

/// Words of the onesweep scratch ahead of the status planes: the eight bytes' counts
/// and one tile counter per slot (`OS_PL` of shaders/radix64.wgsl).
const OS_PL: u32 = 8 * 256 + 16;

/// The onesweep scratch of one sort of `x` (cleared: the counts, tile counters and first
/// status plane start at zero), its bytes, and the sorts' parameters (tiles of one round
/// of `sg`).
struct Os64 {
    st: BufferHandle,
    bytes: u64,
    base: SortParams,
}

impl Os64 {
    /// Allocates and clears the scratch for `x`, sorted `descending` or not.
    fn new<T: Element>(x: &Array<T>, sg: SgPlan, descending: bool) -> Result<Os64> {
        let dev = &x.dev;
        let n = x.len() as u32;
        let tiles = n.div_ceil(sg.wg * SG_STEPS);
        let parts = n.div_ceil(WG * 16).clamp(1, PARTS_MAX);
        let words = OS_PL as u64 + 512 * tiles as u64 + (TAB_WORDS + PART_WORDS * parts) as u64;
        let st = dev.alloc(words * 4)?;
        dev.clear(&st);
        let base = SortParams {
            n,
            row_len: n,
            in_off: x.offset as u32,
            tiles,
            descending,
            ..Default::default()
        };
        Ok(Os64 {
            st,
            bytes: words * 4,
            base,
        })
    }

    fn scratch(&self) -> Binding<'_> {
        whole(&self.st, self.bytes)
    }

    /// The plan (`k64_reduce`, `k64_plan`) and the scanned counts of all eight bytes
    /// (`os_hist64`, `os_scan`) of `x`; `unused` fills `os_hist64`'s output binding.
    fn prologue<T: Element>(
        &self,
        x: &Array<T>,
        sg: SgPlan,
        unused: Binding<'_>,
        prof: &mut Option<Prof>,
    ) -> Result<()> {
        let (d, dev) = (T::DTYPE, &x.dev);
        let base = self.base;
        let parts = base.n.div_ceil(WG * 16).clamp(1, PARTS_MAX);
        let reduce = kernel64(dev, d, sg, ("k64_reduce", 1, WG), true)?;
        let plan = kernel64(dev, d, sg, ("k64_plan", 0, WG), true)?;
        let hist = kernel64(dev, d, sg, ("os_hist64", 3, WG), true)?;
        let scan = onesweep_kernel(dev, d, "os_scan", true, (NSLOT, NSLOT))?;
        let scratch = self.scratch();
        dev.launch(
            &reduce,
            &base.encode(),
            &[x.binding()],
            scratch,
            grid(parts),
        )?;
        let prm = SortParams {
            count: parts,
            ..base
        };
        dev.launch(&plan, &prm.encode(), &[], scratch, grid(1))?;
        Prof::mark(prof, dev, "plan64")?;
        let groups = base.n.div_ceil(WG * 64).clamp(1, 1024);
        let inputs = [x.binding(), x.binding(), scratch];
        dev.launch(&hist, &base.encode(), &inputs, unused, grid(groups))?;
        Prof::mark(prof, dev, "os_hist64")?;
        dev.launch(&scan, &base.encode(), &[], scratch, grid(1))?;
        Prof::mark(prof, dev, "os_scan")
    }
}

/// [`sort_keys_only64`] in onesweep form (`Tuning::radix_onesweep`): the plan as there,
/// then the histograms of all eight bytes of the keys in one read of the input
/// (`os_hist64`) and their scans (`os_scan`), then one `scatter64_os` per slot, whose
/// tiles take their offsets from the tiles before them by a decoupled look-back; dead
/// slots return at once. Bytes an element: 8 (plan) + 8 (histograms) + 16 a live pass,
/// 144 for 8 live passes against 200 of the per-pass form, and one dispatch a slot
/// against five (a histogram, the scan's three and the scatter).
fn onesweep64<T: Element>(x: &Array<T>, out: &Array<T>, sg: SgPlan) -> Result<()> {
    let dev = &x.dev;
    let n = x.len() as u32;
    let bytes = n as u64 * 8;
    let tmp = dev.alloc(bytes)?;
    let os = Os64::new(x, sg, false)?;
    let scatter = kernel64(dev, T::DTYPE, sg, ("scatter64_os", 3, sg.wg), true)?;
    let mut prof = Prof::new(dev)?;
    os.prologue(x, sg, whole(&tmp, bytes), &mut prof)?;
    for i in 0..NSLOT {
        // As in `sort_keys_only64`: the last slot writes the output.
        let recs = whole(&tmp, bytes);
        let (dst, prev) = if (NSLOT - 1 - i).is_multiple_of(2) {
            (out.binding(), recs)
        } else {
            (recs, out.binding())
        };
        let prm = SortParams { word: i, ..os.base };
        let inputs = [prev, x.binding(), os.scratch()];
        dev.launch(&scatter, &prm.encode(), &inputs, dst, grid(os.base.tiles))?;
        Prof::mark(&mut prof, dev, "scatter64_os")?;
    }
    Prof::report(prof, n)
}

/// Whether `scatter64_pairs` fits the adapter's workgroup memory: [`plan64`]'s budget and
/// a third staged plane (the indices).
fn pairs_fit(dev: &Device, sg: SgPlan) -> bool {
    let sgs = sg.wg / dev.info().subgroup_min_size;
    let bytes = sgs * 256 * 4 + 256 * 4 + 3 * sg.wg * SG_STEPS * 4 + 256 * 4 + sgs * 4 + 4;
    bytes <= dev.limits().max_compute_workgroup_storage_size
}

/// [`argsort64`] in onesweep form (`Tuning::radix_onesweep`): as [`onesweep64`], the
/// records key-index pairs (the values as the keys, a u32 index plane after them: 12 bytes
/// an element), made by the first live slot from the input and its element numbers, and
/// the last slot writing the indices alone into `out`. Bytes an element: 8 + 8 + 24 a live
/// pass (the last 8 + 4 + 4), about 196 for 8 live passes where [`argsort64`] moves about
/// 350 (two key passes of 8 + 12, 28 a pass with its histogram, the finish).
fn argsort_onesweep64<T: Element>(
    x: &Array<T>,
    descending: bool,
    out: &Array<u32>,
    sg: SgPlan,
) -> Result<()> {
    let dev = &x.dev;
    let n = x.len() as u32;
    let rec_bytes = 3 * n as u64 * 4;
    let recs = [
        dev.alloc_apart(rec_bytes, &[&*x.buf])?,
        dev.alloc(rec_bytes)?,
    ];
    let os = Os64::new(x, sg, descending)?;
    let scatter = kernel64(dev, T::DTYPE, sg, ("scatter64_pairs", 3, sg.wg), true)?;
    let mut prof = Prof::new(dev)?;
    os.prologue(x, sg, whole(&recs[1], rec_bytes), &mut prof)?;
    for i in 0..NSLOT {
        // Slot 7 writes the result; before it, the slots alternate so that slot 6 writes
        // records[0], which slot 7 reads.
        let odd = !(NSLOT - 1 - i).is_multiple_of(2);
        let (to, from) = if odd { (0, 1) } else { (1, 0) };
        let dst = if i == NSLOT - 1 {
            out.binding()
        } else {
            whole(&recs[to], rec_bytes)
        };
        let prev = whole(&recs[from], rec_bytes);
        let prm = SortParams { word: i, ..os.base };
        let inputs = [prev, x.binding(), os.scratch()];
        dev.launch(&scatter, &prm.encode(), &inputs, dst, grid(os.base.tiles))?;
        Prof::mark(&mut prof, dev, "scatter64_pairs")?;
    }
    Prof::report(prof, n)
}

/// The counts of one sort of `n` elements (`256 * tiles` words) with the pass table and the
/// reduction's partials after them, and the scan's block sums: (counts, their bytes with
/// the table, sums, tiles, parts).
fn scratch(dev: &Device, n: u32) -> Result<(BufferHandle, u64, BufferHandle, u32, u32)> {
    let tiles = n.div_ceil(WG * ITEMS);
    let parts = n.div_ceil(WG * 16).clamp(1, PARTS_MAX);
    let count = 256 * tiles;
    let table_bytes = (count + TAB_WORDS + PART_WORDS * parts) as u64 * 4;
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
    if dev.options().tuning.radix_onesweep && n < 1 << 30 && pairs_fit(dev, sg) {
        return argsort_onesweep64(x, descending, out, sg);
    }
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
    let reduce = kernel64(dev, d, sg, ("k64_reduce", 1, WG), false)?;
    let plan = kernel64(dev, d, sg, ("k64_plan", 0, WG), false)?;
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
