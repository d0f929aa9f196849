//! The LSD radix sort of shaders/sort.wgsl: 8 bits a pass over records of key words and an
//! index plane (argsort), or of the values alone (one row of u32, i32 or f32: the first pass
//! reads the input, the last writes the sorted values), each pass a per-tile histogram, an
//! exclusive scan of the counts and a stable scatter: by subgroup ranking (`scatter_sg`,
//! its writes staged in workgroup memory and written as runs of one digit, unless
//! `Tuning::radix_stage` is 0) where the adapter has subgroups of 8 to 128 lanes and
//! `Tuning::subgroups` is on, else by chunk ranking (`scatter`). The scatter takes most of
//! a sort's time (shaders/radix_sg.wgsl says where it went; the times are in
//! BENCHMARKS.md, "Measurements behind the code's choices").
//!
//! With `Tuning::radix_onesweep` (off by default) the sort runs in onesweep form where
//! the subgroup scatter runs: one `os_hist` pass counts every pass's digits in one
//! read, `os_scan` scans them, and each pass is one `scatter_os` whose tiles find their
//! offsets by a decoupled look-back over the tiles before them (bounded spinning, then
//! counting a slow predecessor's keys itself). It saves the histograms and scans, but where
//! it was measured its look-back scatter cost as much more, and it is slower than the
//! staged scatter (BENCHMARKS.md, "Measurements behind the code's choices"): the per-pass path stays the default.
//! The same option runs the 8-byte sorts of one row in their own onesweep form
//! (src/ops/sort/radix64.rs: all eight bytes counted in one read, one look-back scatter a slot).
//!
//! `Diagnostics::sort_profile` (`GPUARRAY_SORT_PROFILE`) prints each stage's GPU time
//! (timestamps where the adapter has them) of every radix sort to stderr, for tuning.

use super::params::SortParams;
use super::plan::{
    grid, kernel_of, key_bits, scan_blocks, scan_in_place, whole, ITEMS, SG_STEPS, WG,
};
use super::radix_sg::{onesweep_kernel, scatter_sg_kernel, scatter_sg_plan, SgPlan, OS_HEAD};
use crate::array::Array;
use crate::device::{Device, Work};
use crate::dtype::{DType, Element};
use crate::error::Result;
use crate::kernel::launch::Binding;
use crate::memory::pool::BufferHandle;
use crate::profile::Event;

/// Events after each stage of one sort, where `Diagnostics::sort_profile` asks for them.
pub(super) struct Prof {
    marks: Vec<(&'static str, Event)>,
}

impl Prof {
    pub(super) fn new(dev: &Device) -> Result<Option<Prof>> {
        if !dev.options().diagnostics.sort_profile {
            return Ok(None);
        }
        Ok(Some(Prof {
            marks: vec![("start", dev.record_event()?)],
        }))
    }

    /// Records the end of stage `label`.
    pub(super) fn mark(p: &mut Option<Prof>, dev: &Device, label: &'static str) -> Result<()> {
        if let Some(p) = p {
            p.marks.push((label, dev.record_event()?));
        }
        Ok(())
    }

    /// Prints each stage's total time and count, and the sum.
    pub(super) fn report(p: Option<Prof>, n: u32) -> Result<()> {
        let Some(p) = p else { return Ok(()) };
        p.marks.last().expect("the start").1.synchronize()?;
        let mut stages: Vec<(&str, f64, u32)> = Vec::new();
        let mut total = 0.0;
        for w in p.marks.windows(2) {
            let ms = w[0].1.elapsed_ms(&w[1].1)?;
            total += ms;
            match stages.iter_mut().find(|s| s.0 == w[1].0) {
                Some(s) => (s.1, s.2) = (s.1 + ms, s.2 + 1),
                None => stages.push((w[1].0, ms, 1)),
            }
        }
        let list: Vec<String> = stages
            .iter()
            .map(|(l, ms, c)| format!("{l} {ms:.4} ms ({c}x)"))
            .collect();
        eprintln!("radix sort of {n}: {total:.4} ms: {}", list.join(", "));
        Ok(())
    }
}

/// The scratch of the passes: per-tile counts and the scan's block sums (each pass a
/// histogram, a scan and a scatter), or the onesweep scratch (one histogram of every pass
/// first, then one look-back scatter a pass).
enum Scratch {
    Hist {
        counts: BufferHandle,
        sums: BufferHandle,
    },
    Onesweep {
        sg: SgPlan,
        /// Each pass's 256 counts, then their exclusive scans.
        hist: BufferHandle,
        /// Tile counters and the two status planes of `scatter_os`.
        status: BufferHandle,
        /// Passes of the sort, and those of them over key words.
        passes: (u32, u32),
    },
}

/// The kernels' dtype and record form.
#[derive(Clone, Copy)]
struct Form<'a> {
    dev: &'a Device,
    d: DType,
    keys_only: bool,
}

/// The scratch and kernels' shared parameters of one radix sort of `n` elements.
struct Radix<'a> {
    f: Form<'a>,
    base: SortParams,
    scratch: Scratch,
    /// Passes done.
    done: u32,
    prof: Option<Prof>,
}

/// Bytes of the onesweep status scratch for `tiles` tiles.
fn status_bytes(tiles: u32) -> u64 {
    (OS_HEAD as u64 + 2 * 256 * tiles as u64) * 4
}

impl<'a> Radix<'a> {
    /// The sort of `rows` rows of `len` in `passes` passes (`key_passes` of them over the
    /// key words, the rest over the row number).
    fn new(f: Form<'a>, (rows, len): (u32, u32), (passes, key_passes): (u32, u32)) -> Result<Self> {
        let dev = f.dev;
        let n = rows * len;
        let onesweep = scatter_sg_plan(dev)
            .filter(|_| dev.options().tuning.radix_onesweep && n < 1 << 30 && passes <= OS_HEAD);
        let tile = onesweep.map_or(WG * ITEMS, |sg| sg.wg * SG_STEPS);
        let tiles = n.div_ceil(tile);
        let scratch = match onesweep {
            Some(sg) => Scratch::Onesweep {
                sg,
                hist: dev.alloc(passes as u64 * 256 * 4)?,
                status: dev.alloc(status_bytes(tiles))?,
                passes: (passes, key_passes),
            },
            None => {
                let count = 256 * tiles;
                Scratch::Hist {
                    counts: dev.alloc(count as u64 * 4)?,
                    sums: dev.alloc(scan_blocks(count) as u64 * 4)?,
                }
            }
        };
        Ok(Radix {
            f,
            base: SortParams {
                n,
                row_len: len,
                tiles,
                ..Default::default()
            },
            scratch,
            done: 0,
            prof: Prof::new(dev)?,
        })
    }

    /// One pass: the records of `src` (from element `src_off`) into `dst`, ordered stably
    /// by the digit of (`word`, `shift`).
    fn pass(
        &mut self,
        src: Binding<'_>,
        src_off: u32,
        dst: Binding<'_>,
        word: u32,
        shift: u32,
    ) -> Result<()> {
        let prm = SortParams {
            word,
            shift,
            in_off: src_off,
            count: self.done,
            ..self.base
        };
        self.done += 1;
        let (f, prof) = (self.f, &mut self.prof);
        match &self.scratch {
            Scratch::Hist { counts, sums } => hist_pass(f, prof, &prm, (src, dst), counts, sums),
            Scratch::Onesweep {
                sg,
                hist,
                status,
                passes,
            } => {
                let hist = whole(hist, passes.0 as u64 * 256 * 4);
                let status = whole(status, status_bytes(prm.tiles));
                if prm.count == 0 {
                    histograms(f, prof, &prm, src, (hist, status), *passes)?;
                }
                let scatter = scatter_sg_kernel(f.dev, f.d, *sg, f.keys_only, true, false)?;
                let work = grid(prm.tiles);
                f.dev
                    .launch(&scatter, &prm.encode(), &[src, hist, status], dst, work)?;
                Prof::mark(prof, f.dev, "scatter_os")
            }
        }
    }
}

/// Onesweep, before the first pass: every pass's histogram of `src` into `hist` (cleared
/// first) and their scans; the tile counters and first status plane of `status` zeroed.
fn histograms(
    f: Form<'_>,
    prof: &mut Option<Prof>,
    prm: &SortParams,
    src: Binding<'_>,
    (hist, status): (Binding<'_>, Binding<'_>),
    passes: (u32, u32),
) -> Result<()> {
    let dev = f.dev;
    let h = onesweep_kernel(dev, f.d, "os_hist", f.keys_only, passes)?;
    let scan = onesweep_kernel(dev, f.d, "os_scan", f.keys_only, passes)?;
    dev.clear(hist.buffer);
    let groups = prm.n.div_ceil(WG * 64).clamp(1, 1024);
    dev.launch(&h, &prm.encode(), &[src, src, hist], status, grid(groups))?;
    Prof::mark(prof, dev, "os_hist")?;
    dev.launch(&scan, &prm.encode(), &[], hist, grid(1))?;
    Prof::mark(prof, dev, "os_scan")
}

/// A pass of per-tile counts (`hist`), their scan and the scatter by those offsets.
fn hist_pass(
    f: Form<'_>,
    prof: &mut Option<Prof>,
    prm: &SortParams,
    (src, dst): (Binding<'_>, Binding<'_>),
    counts: &BufferHandle,
    sums: &BufferHandle,
) -> Result<()> {
    let (dev, d, keys_only) = (f.dev, f.d, f.keys_only);
    let count = 256 * prm.tiles;
    let hist = kernel_of(dev, d, "hist", 1, WG, 0, keys_only)?;
    let (scatter, label) = match scatter_sg_plan(dev) {
        Some(sg) => (
            scatter_sg_kernel(dev, d, sg, keys_only, false, false)?,
            "scatter_sg",
        ),
        None => (
            kernel_of(dev, d, "scatter", 2, WG, 0, keys_only)?,
            "scatter",
        ),
    };
    let counts = whole(counts, count as u64 * 4);
    dev.launch(&hist, &prm.encode(), &[src], counts, grid(prm.tiles))?;
    Prof::mark(prof, dev, "hist")?;
    scan_in_place(dev, d, keys_only, prm, counts, count, sums)?;
    Prof::mark(prof, dev, "scan")?;
    dev.launch(
        &scatter,
        &prm.encode(),
        &[src, counts],
        dst,
        grid(prm.tiles),
    )?;
    Prof::mark(prof, dev, label)
}

/// Indices within rows that sort `rows` rows of `len` elements of `x` (contiguous from its
/// offset) into `out`: records of key words and an index plane (`keys`), the passes over
/// the key words and then the row number, and the index plane modulo `len` (`finish`).
pub(super) fn radix<T: Element>(
    x: &Array<T>,
    rows: u32,
    len: u32,
    descending: bool,
    out: &Array<u32>,
) -> Result<()> {
    let dev = &x.dev;
    let d = T::DTYPE;
    let (w, bits) = key_bits(d);
    if rows == 1
        && w == 2
        && let Some(sg) = super::radix64::plan64(dev)
    {
        return super::radix64::argsort64(x, descending, out, sg);
    }
    let n = rows * len;
    let rec_bytes = (w as u64 + 1) * n as u64 * 4;
    let a = dev.alloc_apart(rec_bytes, &[&*x.buf])?;
    let b = dev.alloc(rec_bytes)?;
    let row_bits = 32 - (rows - 1).leading_zeros();
    let key_passes = bits / 8;
    let passes = key_passes + row_bits.div_ceil(8);
    let mut r = Radix::new(
        Form {
            dev,
            d,
            keys_only: false,
        },
        (rows, len),
        (passes, key_passes),
    )?;
    let keys = kernel_of(dev, d, "keys", 1, WG, 0, false)?;
    let first = SortParams {
        in_off: x.offset as u32,
        descending,
        ..r.base
    };
    let recs = whole(&a, rec_bytes);
    dev.launch(&keys, &first.encode(), &[x.binding()], recs, Work::Items(n))?;
    Prof::mark(&mut r.prof, dev, "keys")?;
    let mut passes: Vec<(u32, u32)> = (0..key_passes).map(|i| (i / 4, (i % 4) * 8)).collect();
    passes.extend((0..row_bits.div_ceil(8)).map(|i| (w, i * 8)));
    let mut bufs = (&a, &b);
    for (word, shift) in passes {
        let (src, dst) = (whole(bufs.0, rec_bytes), whole(bufs.1, rec_bytes));
        r.pass(src, 0, dst, word, shift)?;
        bufs = (bufs.1, bufs.0);
    }
    let fin = kernel_of(dev, d, "finish", 1, WG, 0, false)?;
    let recs = whole(bufs.0, rec_bytes);
    dev.launch(
        &fin,
        &r.base.encode(),
        &[recs],
        out.binding(),
        Work::Items(n),
    )?;
    Prof::mark(&mut r.prof, dev, "finish")?;
    Prof::report(r.prof, n)
}

/// The values of the 1-D `x` (u32, i32 or f32, longer than a bitonic row) sorted by a radix
/// sort of the values alone: each digit is taken of the value's key, so the first pass reads
/// `x` and the last writes the result (half the traffic of [`radix`]'s records, and no key
/// or index pass). Equal keys keep their input order: -0.0 and +0.0, and NaNs, keep their
/// bits and order.
pub(super) fn sort_keys_only<T: Element>(x: &Array<T>) -> Result<Array<T>> {
    let d = T::DTYPE;
    debug_assert!(matches!(d, DType::U32 | DType::I32 | DType::F32));
    let dev = &x.dev;
    let out = Array::<T>::alloc_with(dev, "sort", x.shape.clone(), |b| {
        dev.alloc_apart(b, &[&*x.buf])
    })?;
    let n = x.len() as u32;
    let bytes = n as u64 * 4;
    let tmp = dev.alloc(bytes)?;
    let passes = key_bits(d).1 / 8;
    let mut r = Radix::new(
        Form {
            dev,
            d,
            keys_only: true,
        },
        (1, n),
        (passes, passes),
    )?;
    let (mut src, mut src_off) = (x.binding(), x.offset as u32);
    for i in 0..passes {
        // The passes alternate between `tmp` and `out`, the last into `out`.
        let dst = if (passes - 1 - i).is_multiple_of(2) {
            out.binding()
        } else {
            whole(&tmp, bytes)
        };
        r.pass(src, src_off, dst, 0, i * 8)?;
        (src, src_off) = (dst, 0);
    }
    Prof::report(r.prof, n)?;
    Ok(out)
}
