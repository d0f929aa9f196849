//! The LSD radix sort of shaders/sort.wgsl: 8 bits a pass over records of key words (and
//! an index plane), each pass a per-tile histogram, an exclusive scan of the counts and a
//! stable scatter: by subgroup ranking (`scatter_sg`) where the adapter has subgroups of 8 to
//! 128 lanes and `Options::subgroups` is on, else by chunk ranking (`scatter`). On the H100
//! (2026-11-23, through Vulkan) 64M u32 keys sort in 6.72 ms by the first (scatter 5.22 ms
//! of 4 passes), 7.51 ms by the second (scatter 5.99 ms).
//!
//! `Options::sort_profile` (`GPUARRAY_SORT_PROFILE`) prints each stage's GPU time
//! (timestamps where the adapter has them) of every radix sort to stderr, for tuning.

use super::params::SortParams;
use super::plan::{
    grid, kernel_of, key_bits, scan_in_place, scatter_sg_kernel, scatter_sg_wg, whole, ITEMS, WG,
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

/// One radix pass: records `src` into `dst`, ordered stably by the digit of `pass`
/// (word, shift), through `counts` and `sums`.
struct Pass<'a> {
    src: &'a BufferHandle,
    dst: &'a BufferHandle,
    counts: &'a BufferHandle,
    sums: &'a BufferHandle,
}

pub(super) fn radix<T: Element>(
    x: &Array<T>,
    rows: u32,
    len: u32,
    descending: bool,
    out: &Array<u32>,
) -> Result<()> {
    radix_into(x, rows, len, descending, false, out.binding())
}

/// The values of the 1-D `x` (u32 or i32) sorted by a radix sort of the keys alone (no
/// index plane: half the traffic of [`argsort_rows`]' records).
pub(super) fn sort_keys_only<T: Element>(x: &Array<T>) -> Result<Array<T>> {
    debug_assert!(matches!(T::DTYPE, DType::U32 | DType::I32));
    let out = Array::<T>::alloc_with(&x.dev, "sort", x.shape.clone(), |b| {
        x.dev.alloc_apart(b, &[&*x.buf])
    })?;
    radix_into(x, 1, x.len() as u32, false, true, out.binding())?;
    Ok(out)
}

/// The radix sort of `rows` rows of `len` elements of `x`: indices within rows into `out`
/// (`finish`), or with `keys_only` (one row of u32 or i32) the sorted values (`unkey`).
fn radix_into<T: Element>(
    x: &Array<T>,
    rows: u32,
    len: u32,
    descending: bool,
    keys_only: bool,
    out: Binding<'_>,
) -> Result<()> {
    let dev = &x.dev;
    let d = T::DTYPE;
    let (w, bits) = key_bits(d);
    let n = rows * len;
    let planes = w as u64 + u64::from(!keys_only);
    let rec_bytes = planes * n as u64 * 4;
    let tiles = n.div_ceil(WG * ITEMS);
    let count = 256 * tiles;
    let blocks = count.div_ceil(WG * 4);
    let a = dev.alloc_apart(rec_bytes, &[&*x.buf])?;
    let b = dev.alloc(rec_bytes)?;
    let counts = dev.alloc(count as u64 * 4)?;
    let sums = dev.alloc(blocks as u64 * 4)?;
    let base = SortParams {
        n,
        row_len: len,
        in_off: x.offset as u32,
        tiles,
        ..Default::default()
    };
    let mut prof = Prof::new(dev)?;
    let keys = kernel_of(dev, d, "keys", 1, WG, 0, keys_only)?;
    let first = SortParams { descending, ..base };
    dev.launch(
        &keys,
        &first.encode(),
        &[x.binding()],
        whole(&a, rec_bytes),
        Work::Items(n),
    )?;
    Prof::mark(&mut prof, dev, "keys")?;
    let mut passes: Vec<(u32, u32)> = (0..bits / 8).map(|i| (i / 4, (i % 4) * 8)).collect();
    let row_bits = 32 - (rows - 1).leading_zeros();
    passes.extend((0..row_bits.div_ceil(8)).map(|i| (w, i * 8)));
    let mut bufs = (&a, &b);
    for (word, shift) in passes {
        let prm = SortParams {
            word,
            shift,
            ..base
        };
        let pass = Pass {
            src: bufs.0,
            dst: bufs.1,
            counts: &counts,
            sums: &sums,
        };
        radix_pass(dev, d, &prm, &pass, rec_bytes, keys_only, &mut prof)?;
        bufs = (bufs.1, bufs.0);
    }
    let entry = if keys_only { "unkey" } else { "finish" };
    let fin = kernel_of(dev, d, entry, 1, WG, 0, keys_only)?;
    dev.launch(
        &fin,
        &base.encode(),
        &[whole(bufs.0, rec_bytes)],
        out,
        Work::Items(n),
    )?;
    Prof::mark(&mut prof, dev, entry)?;
    Prof::report(prof, n)
}

fn radix_pass(
    dev: &Device,
    d: DType,
    prm: &SortParams,
    p: &Pass,
    rec_bytes: u64,
    keys_only: bool,
    prof: &mut Option<Prof>,
) -> Result<()> {
    let count = 256 * prm.tiles;
    let hist = kernel_of(dev, d, "hist", 1, WG, 0, keys_only)?;
    let (scatter, label) = match scatter_sg_wg(dev) {
        Some(wg) => (scatter_sg_kernel(dev, d, wg, keys_only)?, "scatter_sg"),
        None => (
            kernel_of(dev, d, "scatter", 2, WG, 0, keys_only)?,
            "scatter",
        ),
    };
    let src = whole(p.src, rec_bytes);
    let counts = whole(p.counts, count as u64 * 4);
    dev.launch(&hist, &prm.encode(), &[src], counts, grid(prm.tiles))?;
    Prof::mark(prof, dev, "hist")?;
    scan_in_place(dev, d, keys_only, prm, counts, count, p.sums)?;
    Prof::mark(prof, dev, "scan")?;
    dev.launch(
        &scatter,
        &prm.encode(),
        &[src, counts],
        whole(p.dst, rec_bytes),
        grid(prm.tiles),
    )?;
    Prof::mark(prof, dev, label)
}
