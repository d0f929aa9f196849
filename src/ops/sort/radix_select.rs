//! Radix select: the elements of given ranks along each row, without sorting. Host side of
//! shaders/select.wgsl.
//!
//! Each rank's key is found 8 bits a pass from the top (4 passes for 32-bit keys): a pass
//! counts the next digit of the keys that match the bits found so far (per workgroup in
//! workgroup memory, then summed per row), and a tiny kernel picks the digit holding the
//! rank. Each pass reads the input once; nothing is written per element. Counts are
//! integers, so the result is the same on every run. Keys are the sort's (NumPy's order).
//!
//! 32-bit dtypes (f32, i32, u32, bool) go through it; f16 and f64 keep the sort (their
//! keys are 16 or 64 bits: left to do).

use super::plan::{grid, key_expr, whole, SORT_KEYS};
use crate::array::Array;
use crate::device::Work;
use crate::dtype::{DType, Element};
use crate::error::Result;
use crate::kernel::cache::{Kernel, Key};
use crate::kernel::launch::Params;
use crate::kernel::source::Spec;
use std::sync::Arc;

const SRC: &str = include_str!("../../../shaders/select.wgsl");
const WG: u32 = 256;
/// Targets one select handles at once (`MAXT` in the shader).
const MAXT: usize = 4;
/// Workgroups of a `hist` dispatch to aim for (rows of few tiles take fewer).
const GROUPS: u32 = 2048;
/// Elements per invocation below which a row takes fewer tiles.
const PER: u32 = 16;

/// Parameters of one dispatch; shaders/select.wgsl reads them through its accessors.
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
    targets: u32,
    ranks: [u32; MAXT],
}

impl SelectParams {
    fn encode(&self) -> Params {
        let mut p = Params::new(self.rows);
        p.offs = [self.in_off, self.row_len, self.tiles, self.chunk];
        p.aux = [self.shift, 0];
        p.ndim = self.targets;
        p.shape[..MAXT].copy_from_slice(&self.ranks);
        p
    }
}

/// Whether rows of dtype `d` go through the radix select (else through the sort).
pub(super) fn selects(d: DType) -> bool {
    matches!(d, DType::F32 | DType::I32 | DType::U32 | DType::Bool)
}

fn spec(d: DType) -> Spec {
    let unkey = match d {
        DType::F32 => "unkey_f32(k)",
        DType::I32 => "k ^ 0x80000000u",
        _ => "k",
    };
    Spec::new("select", SRC)
        .include(SORT_KEYS)
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

fn kernel(
    x: DType,
    entry: &'static str,
    inputs: usize,
    dev: &crate::Device,
) -> Result<Arc<Kernel>> {
    let key = Key {
        family: "select",
        entry,
        variant: x.wgsl().to_string(),
        inputs,
        wg: WG,
        ndim: 0,
        per: 0,
    };
    dev.kernel(key, || spec(x))
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
    let d = T::DTYPE;
    let (init, hist, pick, finish) = (
        kernel(d, "init", 0, dev)?,
        kernel(d, "hist", 1, dev)?,
        kernel(d, "pick", 0, dev)?,
        kernel(d, "finish", 1, dev)?,
    );
    let tiles = len.div_ceil(WG * PER).clamp(1, (GROUPS / rows).max(1));
    let chunk = len.div_ceil(tiles);
    let words = rows as u64 * MAXT as u64 * (2 + 256);
    let work = dev.alloc_apart(words * 4, &[&*x.buf, &*out.buf])?;
    let work_b = whole(&work, words * 4);
    for (g, group) in ranks.chunks(MAXT).enumerate() {
        let nt = group.len() as u32;
        let mut prm = SelectParams {
            rows,
            in_off: x.offset as u32,
            row_len: len,
            tiles,
            chunk,
            targets: nt,
            ..Default::default()
        };
        prm.ranks[..group.len()].copy_from_slice(group);
        let items = Work::Items(rows * nt);
        dev.launch(&init, &prm.encode(), &[], work_b, items)?;
        for shift in [24, 16, 8, 0] {
            let p = SelectParams { shift, ..prm }.encode();
            dev.launch(&hist, &p, &[x.binding()], work_b, grid(rows * tiles))?;
            dev.launch(&pick, &p, &[], work_b, items)?;
        }
        let f = SelectParams {
            tiles: cols as u32,
            chunk: (g * MAXT) as u32,
            ..prm
        };
        dev.launch(&finish, &f.encode(), &[work_b], out.binding(), items)?;
    }
    Ok(out)
}
