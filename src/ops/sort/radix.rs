//! The LSD radix sort of shaders/sort.wgsl: 8 bits a pass over records of key words and an
//! index plane (argsort), or of the values alone (one row of u32, i32 or f32: the first pass
//! reads the input, the last writes the sorted values), each pass a per-tile histogram, an
//! exclusive scan of the counts and a stable scatter: by subgroup ranking (`scatter_sg`,
//! its writes staged in workgroup memory where `Options::radix_stage` asks) where the
//! adapter has subgroups of 8 to 128 lanes and `Options::subgroups` is on, else by chunk
//! ranking (`scatter`). On the H100 (2026-11-23, through Vulkan) 64M u32 keys sort in 6.33
//! ms by the unstaged subgroup scatter (hist 0.74, scan 0.25, scatter 5.34 ms of 4 passes;
//! the ranking alone is 3.1 of those: shaders/radix_sg.wgsl says where the time goes),
//! 11.2 ms staged, 7.51 ms by the chunk ranking; 16M f32 in 1.85 ms (3.64 as an argsort
//! and a gather).
//!
//! `Options::sort_profile` (`GPUARRAY_SORT_PROFILE`) prints each stage's GPU time
//! (timestamps where the adapter has them) of every radix sort to stderr, for tuning.

use super::params::SortParams;
use super::plan::{
    grid, kernel_of, key_bits, scan_in_place, scatter_sg_kernel, scatter_sg_plan, whole, ITEMS, WG,
};
use crate::array::Array;
use crate::device::{Device, Work};
use crate::dtype::{DType, Element};
use crate::error::Result;
use crate::kernel::launch::Binding;
use crate::memory::pool::BufferHandle;
use crate::profile::Event;

/// Events after each stage of one sort, where `Options::sort_profile` asks for them.
struct Prof {
    marks: Vec<(&'static str, Event)>,
}

impl Prof {
    fn new(dev: &Device) -> Result<Option<Prof>> {
        if !dev.options().sort_profile {
            return Ok(None);
        }
        Ok(Some(Prof {
            marks: vec![("start", dev.record_event()?)],
        }))
    }

    /// Records the end of stage `label`.
    fn mark(p: &mut Option<Prof>, dev: &Device, label: &'static str) -> Result<()> {
        if let Some(p) = p {
            p.marks.push((label, dev.record_event()?));
        }
        Ok(())
    }

    /// Prints each stage's total time and count, and the sum.
    fn report(p: Option<Prof>, n: u32) -> Result<()> {
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

/// The scratch and kernels' shared parameters of one radix sort of `n` elements.
struct Radix<'a> {
    dev: &'a Device,
    d: DType,
    keys_only: bool,
    base: SortParams,
    counts: BufferHandle,
    sums: BufferHandle,
    prof: Option<Prof>,
}

impl<'a> Radix<'a> {
    fn new(dev: &'a Device, d: DType, rows: u32, len: u32, keys_only: bool) -> Result<Self> {
        let n = rows * len;
        let tiles = n.div_ceil(WG * ITEMS);
        let count = 256 * tiles;
        Ok(Radix {
            dev,
            d,
            keys_only,
            base: SortParams {
                n,
                row_len: len,
                tiles,
                ..Default::default()
            },
            counts: dev.alloc(count as u64 * 4)?,
            sums: dev.alloc(count.div_ceil(WG * 4) as u64 * 4)?,
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
        let (dev, d, keys_only) = (self.dev, self.d, self.keys_only);
        let prm = SortParams {
            word,
            shift,
            in_off: src_off,
            ..self.base
        };
        let count = 256 * prm.tiles;
        let hist = kernel_of(dev, d, "hist", 1, WG, 0, keys_only)?;
        let (scatter, label) = match scatter_sg_plan(dev) {
            Some(sg) => (scatter_sg_kernel(dev, d, sg, keys_only)?, "scatter_sg"),
            None => (
                kernel_of(dev, d, "scatter", 2, WG, 0, keys_only)?,
                "scatter",
            ),
        };
        let counts = whole(&self.counts, count as u64 * 4);
        dev.launch(&hist, &prm.encode(), &[src], counts, grid(prm.tiles))?;
        Prof::mark(&mut self.prof, dev, "hist")?;
        scan_in_place(dev, d, keys_only, &prm, counts, count, &self.sums)?;
        Prof::mark(&mut self.prof, dev, "scan")?;
        dev.launch(
            &scatter,
            &prm.encode(),
            &[src, counts],
            dst,
            grid(prm.tiles),
        )?;
        Prof::mark(&mut self.prof, dev, label)
    }
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
    let n = rows * len;
    let rec_bytes = (w as u64 + 1) * n as u64 * 4;
    let a = dev.alloc_apart(rec_bytes, &[&*x.buf])?;
    let b = dev.alloc(rec_bytes)?;
    let mut r = Radix::new(dev, d, rows, len, false)?;
    let keys = kernel_of(dev, d, "keys", 1, WG, 0, false)?;
    let first = SortParams {
        in_off: x.offset as u32,
        descending,
        ..r.base
    };
    let recs = whole(&a, rec_bytes);
    dev.launch(&keys, &first.encode(), &[x.binding()], recs, Work::Items(n))?;
    Prof::mark(&mut r.prof, dev, "keys")?;
    let mut passes: Vec<(u32, u32)> = (0..bits / 8).map(|i| (i / 4, (i % 4) * 8)).collect();
    let row_bits = 32 - (rows - 1).leading_zeros();
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
    let mut r = Radix::new(dev, d, 1, n, true)?;
    let passes = key_bits(d).1 / 8;
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
