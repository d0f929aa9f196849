//! Radix select: the elements of given ranks along each row, without sorting. Host side of
//! shaders/radix_select.wgsl.
//!
//! Each rank's key is found 8 bits a pass from the top (4 passes for 32-bit keys): a pass
//! counts the next digit of the keys that match the bits found so far (per workgroup in
//! workgroup memory, then summed per row), and a small kernel (one workgroup scanning the
//! 256 counts) picks the digit holding the rank. Each pass reads the input once; nothing
//! is written per element. top_k's index passes (its ties) are skipped where every element
//! of the found key is taken. Counts are integers, so the result is the same on every run.
//! Keys are the sort's (NumPy's order).
//!
//! 32-bit dtypes (f32, i32, u32, bool) go through it; f16 and f64 keep the sort (their
//! keys are 16 or 64 bits: left to do).

use super::plan::{bitonic_max, grid, key_expr, whole};
use crate::array::Array;
use crate::device::{Device, Work};
use crate::dtype::{DType, Element};
use crate::error::Result;
use crate::kernel::cache::{Kernel, Key};
use crate::kernel::launch::{Binding, Params};
use crate::kernel::source::Spec;
use std::sync::Arc;

const SRC: &str = include_str!("../../../shaders/radix_select.wgsl");
const WG: u32 = 256;
/// Targets one select handles at once (`MAXT` in the shader).
const MAXT: usize = 4;
/// Workgroups of a `hist` dispatch to aim for (rows of few tiles take fewer).
const GROUPS: u32 = 2048;
/// Elements per invocation below which a row takes fewer tiles.
const PER: u32 = 16;

/// Parameters of one dispatch; shaders/radix_select.wgsl reads them through its accessors.
#[derive(Debug, Clone, Copy, Default)]
struct SelectParams {
    rows: u32,
    in_off: u32,
    row_len: u32,
    /// Tiles a row (`hist`), or values a row of the output (`finish`).
    tiles: u32,
    /// Elements a tile (`hist`), or the first target's column (`finish`).
    chunk: u32,
    shift: u32,
    /// Digits of the index within the row (top_k's ties), not of the key.
    index_phase: bool,
    targets: u32,
    ranks: [u32; MAXT],
    /// Largest first: the keys complemented.
    flip: bool,
    /// top_k's k.
    k: u32,
}

impl SelectParams {
    fn encode(&self) -> Params {
        let mut p = Params::new(self.rows);
        p.offs = [self.in_off, self.row_len, self.tiles, self.chunk];
        p.aux = [self.shift, self.index_phase as u32];
        p.ndim = self.targets;
        p.shape[..MAXT].copy_from_slice(&self.ranks);
        p.shape[4] = if self.flip { u32::MAX } else { 0 };
        p.shape[5] = self.k;
        p
    }
}

/// Whether rows of dtype `d` can go through the radix select (else through the sort).
pub(super) fn selects(d: DType) -> bool {
    matches!(d, DType::F32 | DType::I32 | DType::U32 | DType::Bool)
}

fn spec(d: DType) -> Spec {
    let unkey = match d {
        DType::F32 => "unkey_f32(k)",
        DType::I32 => "k ^ 0x80000000u",
        _ => "k",
    };
    Spec::new("radix_select", SRC)
        .function(
            "key_of",
            format!(
                "fn key_of(e: u32) -> vec2<u32> {{ return {}; }}",
                key_expr(d, "a")
            ),
        )
        .function(
            "unkey",
            format!("fn unkey(k: u32) -> u32 {{ return {unkey}; }}"),
        )
}

/// Every variant, for the shader validation test.
#[cfg(test)]
pub(crate) fn all_specs() -> Vec<Spec> {
    DType::ALL
        .iter()
        .filter(|&&d| selects(d))
        .map(|&d| spec(d))
        .collect()
}

/// `entry` for dtype `d`, with PMAX `pmax` where it is not 0 (`top_sort`).
fn kernel(
    d: DType,
    entry: &'static str,
    inputs: usize,
    dev: &Device,
    pmax: u32,
) -> Result<Arc<Kernel>> {
    let key = Key {
        family: "radix_select",
        entry,
        variant: format!("{} p{pmax}", d.wgsl()),
        inputs,
        wg: WG,
        ndim: 0,
        per: 0,
    };
    dev.kernel(key, || {
        let s = spec(d);
        if pmax > 0 {
            s.constant("PMAX", pmax)
        } else {
            s
        }
    })
}

/// Tiles a row of `len` of `rows` rows takes in `hist` and `compact`, and the elements of
/// a tile.
fn tiling(rows: u32, len: u32) -> (u32, u32) {
    let tiles = len.div_ceil(WG * PER).clamp(1, (GROUPS / rows).max(1));
    (tiles, len.div_ceil(tiles))
}

/// The work buffer of `rows` rows of `targets` targets: states and counts.
fn work_bytes(rows: u32, targets: usize) -> u64 {
    rows as u64 * targets as u64 * (4 + 256) * 4
}

/// The passes of one select: `init`, then per pass `hist` and `pick` over the key's 4
/// digits (and with `by_index` then the index's 4), leaving the states in `work`.
fn passes<T: Element>(
    x: &Array<T>,
    prm: &SelectParams,
    work: Binding<'_>,
    by_index: bool,
) -> Result<()> {
    let (dev, d) = (&x.dev, T::DTYPE);
    let init = kernel(d, "init", 0, dev, 0)?;
    let hist = kernel(d, "hist", 1, dev, 0)?;
    let pick = kernel(d, "pick", 0, dev, 0)?;
    let items = Work::Items(prm.rows * prm.targets);
    dev.launch(&init, &prm.encode(), &[], work, items)?;
    let phases: &[bool] = if by_index { &[false, true] } else { &[false] };
    for &index_phase in phases {
        for shift in [24, 16, 8, 0] {
            let p = SelectParams {
                shift,
                index_phase,
                ..*prm
            }
            .encode();
            dev.launch(&hist, &p, &[x.binding()], work, grid(prm.rows * prm.tiles))?;
            dev.launch(&pick, &p, &[], work, grid(prm.rows * prm.targets))?;
        }
    }
    Ok(())
}

/// The values of ranks `ranks` (each below `len`) of each of the `rows` rows of `len`
/// elements of the contiguous (from its offset) `x`: shape `[rows, ranks.len()]`, row r's
/// value of rank `ranks[j]` at `[r, j]`. `x`'s dtype must pass [`selects`].
pub(super) fn select_rows<T: Element>(
    x: &Array<T>,
    rows: u32,
    len: u32,
    ranks: &[u32],
) -> Result<Array<T>> {
    debug_assert!(selects(T::DTYPE) && ranks.iter().all(|&r| r < len));
    let dev = &x.dev;
    let cols = ranks.len();
    let out = Array::<T>::alloc(dev, "select", vec![rows as usize, cols])?;
    if rows == 0 || cols == 0 {
        return Ok(out);
    }
    let finish = kernel(T::DTYPE, "finish", 1, dev, 0)?;
    let (tiles, chunk) = tiling(rows, len);
    let bytes = work_bytes(rows, MAXT.min(cols));
    let work = dev.alloc_apart(bytes, &[&*x.buf, &*out.buf])?;
    let work_b = whole(&work, bytes);
    for (g, group) in ranks.chunks(MAXT).enumerate() {
        let mut prm = SelectParams {
            rows,
            in_off: x.offset as u32,
            row_len: len,
            tiles,
            chunk,
            targets: group.len() as u32,
            ..Default::default()
        };
        prm.ranks[..group.len()].copy_from_slice(group);
        passes(x, &prm, work_b, false)?;
        let f = SelectParams {
            tiles: cols as u32,
            chunk: (g * MAXT) as u32,
            ..prm
        };
        let items = Work::Items(rows * prm.targets);
        dev.launch(&finish, &f.encode(), &[work_b], out.binding(), items)?;
    }
    Ok(out)
}

/// Whether top_k of `k` along rows of `len` of dtype `d` goes through the radix select.
pub(super) fn selects_top_k(dev: &Device, d: DType, len: u32, k: u32) -> bool {
    selects(d) && k > 0 && len > bitonic_max(dev) && k <= bitonic_max(dev)
}

/// The indices within each row of the `k` first elements of each of the `rows` rows of
/// `len` of the contiguous (from its offset) `x`, in the order by (key, index): smallest
/// (with `largest`, largest) first, equal values by lower index: shape `[rows * k]`. The
/// element of rank k - 1 in that order comes from the radix select over key and index,
/// the elements up to it are gathered (`compact`), then sorted (`top_sort`).
pub(super) fn top_k_rows<T: Element>(
    x: &Array<T>,
    rows: u32,
    len: u32,
    k: u32,
    largest: bool,
) -> Result<Array<u32>> {
    debug_assert!(selects_top_k(&x.dev, T::DTYPE, len, k));
    let (dev, d) = (&x.dev, T::DTYPE);
    let out = Array::<u32>::alloc(dev, "top_k", vec![(rows * k) as usize])?;
    if rows == 0 {
        return Ok(out);
    }
    let (tiles, chunk) = tiling(rows, len);
    let mut prm = SelectParams {
        rows,
        in_off: x.offset as u32,
        row_len: len,
        tiles,
        chunk,
        targets: 1,
        flip: largest,
        k,
        ..Default::default()
    };
    prm.ranks[0] = k - 1;
    let bytes = work_bytes(rows, 1);
    let work = dev.alloc_apart(bytes, &[&*x.buf, &*out.buf])?;
    let work_b = whole(&work, bytes);
    passes(x, &prm, work_b, true)?;
    let cand_bytes = (rows as u64 + 2 * (rows * k) as u64) * 4;
    let cand = dev.alloc_apart(cand_bytes, &[&*x.buf, &work, &*out.buf])?;
    dev.clear(&cand);
    let cand_b = whole(&cand, cand_bytes);
    let compact = kernel(d, "compact", 2, dev, 0)?;
    let p = prm.encode();
    dev.launch(
        &compact,
        &p,
        &[x.binding(), work_b],
        cand_b,
        grid(rows * tiles),
    )?;
    let sort = kernel(d, "top_sort", 1, dev, k.next_power_of_two().max(2))?;
    dev.launch(&sort, &p, &[cand_b], out.binding(), grid(rows))?;
    Ok(out)
}
