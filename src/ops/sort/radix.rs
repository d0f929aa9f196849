//! The LSD radix sort of shaders/sort.wgsl: 8 bits a pass over records of key words (and
//! an index plane), each pass a per-tile histogram, an exclusive scan of the counts and a
//! stable scatter.
//!
//! `GPUARRAY_SORT_PROFILE` (any value) prints each stage's GPU time (timestamps where the
//! adapter has them) of every radix sort to stderr, for tuning.

use super::params::SortParams;
use super::plan::{grid, kernel_of, key_bits, scan_blocks, scan_in_place, whole, Consts, WG};
use crate::array::Array;
use crate::device::Device;
use crate::dtype::{DType, Element};
use crate::error::Result;
use crate::kernel::launch::Binding;
use crate::profile::Event;

/// Events after each stage of one sort, where `GPUARRAY_SORT_PROFILE` asks for them.
struct Prof {
    marks: Vec<(&'static str, Event)>,
}

impl Prof {
    fn new(dev: &Device) -> Result<Option<Prof>> {
        if std::env::var_os("GPUARRAY_SORT_PROFILE").is_none() {
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

/// Chunks of WG elements per tile.
const ITEMS: u32 = 16;
/// `pass_flags()` of shaders/sort.wgsl: the pass reads the input, writes the result.
const FIRST: u32 = 1;
const LAST: u32 = 2;

/// Indices within rows that sort `rows` rows of `len` elements of `x` (contiguous from its
/// offset), stably, into `out`.
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
/// index plane: half the traffic of [`radix`]'s records).
pub(super) fn sort_keys_only<T: Element>(x: &Array<T>) -> Result<Array<T>> {
    debug_assert!(matches!(T::DTYPE, DType::U32 | DType::I32));
    let out = Array::<T>::alloc_with(&x.dev, "sort", x.shape.clone(), |b| {
        x.dev.alloc_apart(b, &[&*x.buf])
    })?;
    radix_into(x, 1, x.len() as u32, false, true, out.binding())?;
    Ok(out)
}

/// The radix passes of a sort: (key word, or W for the row number; shift) each.
fn passes(d: DType, rows: u32) -> Vec<(u32, u32)> {
    let (w, bits) = key_bits(d);
    let mut passes: Vec<(u32, u32)> = (0..bits / 8).map(|i| (i / 4, (i % 4) * 8)).collect();
    let row_bits = 32 - (rows - 1).leading_zeros();
    passes.extend((0..row_bits.div_ceil(8)).map(|i| (w, i * 8)));
    passes
}

/// The radix sort of `rows` rows of `len` elements of `x`: indices within rows into `out`,
/// or with `keys_only` (one row of u32 or i32) the sorted values. The first pass reads `x`
/// (keys made on load), the last writes `out`; records between them go back and forth
/// between two buffers.
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
    let n = rows * len;
    let planes = key_bits(d).0 + u32::from(!keys_only);
    let rec_bytes = planes as u64 * n as u64 * 4;
    let tiles = n.div_ceil(WG * ITEMS);
    let count = 256 * tiles;
    let passes = passes(d, rows);
    let last = passes.len() - 1;
    let a = dev.alloc_apart(rec_bytes, &[&*x.buf])?;
    let b = if last > 1 {
        Some(dev.alloc(rec_bytes)?)
    } else {
        None
    };
    let recs = [&a, b.as_ref().unwrap_or(&a)];
    let counts = dev.alloc(count as u64 * 4)?;
    let sums = dev.alloc(scan_blocks(count) as u64 * 4)?;
    let c = Consts {
        pmax: 0,
        keys_only,
        items: ITEMS,
    };
    let hist = kernel_of(dev, d, "hist", 1, WG, c)?;
    let scatter = kernel_of(dev, d, "scatter", 2, WG, c)?;
    let counts_b = whole(&counts, count as u64 * 4);
    let mut prof = Prof::new(dev)?;
    for (i, &(word, shift)) in passes.iter().enumerate() {
        let flags = if i == 0 { FIRST } else { 0 } | if i == last { LAST } else { 0 };
        let prm = SortParams {
            n,
            row_len: len,
            in_off: x.offset as u32,
            tiles,
            count: flags,
            word,
            shift,
            descending,
        }
        .encode();
        let src = match i {
            0 => x.binding(),
            _ => whole(recs[(i - 1) % 2], rec_bytes),
        };
        let dst = if i == last {
            out
        } else {
            whole(recs[i % 2], rec_bytes)
        };
        dev.launch(&hist, &prm, &[src], counts_b, grid(tiles))?;
        Prof::mark(&mut prof, dev, "hist")?;
        let scan = SortParams {
            n,
            ..Default::default()
        };
        scan_in_place(dev, d, keys_only, &scan, counts_b, count, &sums)?;
        Prof::mark(&mut prof, dev, "scan")?;
        dev.launch(&scatter, &prm, &[src, counts_b], dst, grid(tiles))?;
        Prof::mark(&mut prof, dev, "scatter")?;
    }
    Prof::report(prof, n)
}
