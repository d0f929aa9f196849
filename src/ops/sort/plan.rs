//! Kernels of shaders/sort.wgsl and the plans that chain them: a bitonic sort in workgroup
//! memory for rows that fit one workgroup, an LSD radix sort (8 bits a pass) for longer
//! rows, and the gather of values by indices.

use std::sync::Arc;

use super::params::SortParams;
use crate::array::Array;
use crate::device::{Device, Work};
use crate::dtype::{DType, Element};
use crate::error::Result;
use crate::kernel::cache::{Kernel, Key};
use crate::kernel::launch::{groups, Binding};
use crate::kernel::source::Spec;
use crate::memory::pool::BufferHandle;

/// The family's kernels, which import the dtypes' key transforms (shaders/shared/
/// sort_keys.wgsl, shared with the select family).
const SRC: &str = include_str!("../../../shaders/sort.wgsl");
/// Keys an invocation of `scatter_sg` holds (`SG_STEPS` in shaders/radix_sg.wgsl).
pub(super) const SG_STEPS: u32 = 16;
pub(super) const WG: u32 = 256;
/// Chunks of WG elements per radix tile (`ITEMS` in shaders/sort.wgsl).
pub(super) const ITEMS: u32 = 16;
/// Counts each invocation of the scan's reduce and down-sweep takes (`SCAN_ITEMS`).
const SCAN_ITEMS: u32 = 4;
/// Bytes of workgroup memory per element of a bitonic row (two key words and an index).
const BITONIC_BYTES: u32 = 12;
/// The longest bitonic row on any adapter (more is faster as a radix sort).
const BITONIC_MAX: u32 = 4096;

/// Key words per element of dtype `d`, and the key bits.
pub(super) fn key_bits(d: DType) -> (u32, u32) {
    match d {
        DType::F64 | DType::I64 | DType::U64 => (2, 64),
        DType::F16 => (1, 16),
        _ => (1, 32),
    }
}

/// The key of element `e` of binding `buf` (`a` or `b`) for dtype `d`, in WGSL.
pub(super) fn key_expr(d: DType, buf: &str) -> String {
    let half = if buf == "a" { "half_at" } else { "half_q" };
    match d {
        DType::F32 => format!("key_f32({buf}[e])"),
        DType::I32 => format!("key_i32({buf}[e])"),
        DType::U32 | DType::Bool => format!("key_u32({buf}[e])"),
        DType::F16 => format!("key_f16({half}(e))"),
        DType::F64 => format!("key_f64({buf}[2u * e], {buf}[2u * e + 1u])"),
        DType::I64 => format!("key_i64({buf}[2u * e], {buf}[2u * e + 1u])"),
        DType::U64 => format!("key_u64({buf}[2u * e], {buf}[2u * e + 1u])"),
        // Refused by the same gate: one element per storage slot.
        DType::U8 | DType::I8 | DType::U16 | DType::I16 => unreachable!("sort of packed types"),
        // Refused by the same gate: not a real number.
        DType::Complex64 | DType::Complex128 => unreachable!("sort of a complex dtype"),
        #[cfg(test)]
        DType::Opaque8 => unreachable!("sort of a non-real dtype"),
    }
}

pub(super) fn spec(d: DType) -> Spec {
    let (key, query) = (key_expr(d, "a"), key_expr(d, "b"));
    let take = match d {
        DType::F64 | DType::I64 | DType::U64 => "take_f64(w)",
        DType::F16 => "take_f16(w)",
        _ => "a[src(w)]",
    };
    // The key of a 32-bit value from its word (the values-only records; other dtypes keep
    // the file's `key_u32`: their records always carry an index plane).
    let key_w = match d {
        DType::F32 => "key_f32(w)",
        DType::I32 => "key_i32(w)",
        _ => "key_u32(w)",
    };
    // The key of an 8-byte value from its two words (the 8-byte values-only records).
    let key_w2 = match d {
        DType::F64 => "key_f64(lo, hi)",
        DType::I64 => "key_i64(lo, hi)",
        _ => "key_u64(lo, hi)",
    };
    Spec::new("sort", SRC)
        .unroll("SG_STEPS", SG_STEPS)
        .unroll("ITEMS", ITEMS)
        .function(
            "key_w",
            format!("fn key_w(w: u32) -> vec2<u32> {{ return {key_w}; }}"),
        )
        .function(
            "key_w2",
            format!("fn key_w2(lo: u32, hi: u32) -> vec2<u32> {{ return {key_w2}; }}"),
        )
        .function(
            "key_of",
            format!("fn key_of(e: u32) -> vec2<u32> {{ return {key}; }}"),
        )
        .function(
            "key_q",
            format!("fn key_q(e: u32) -> vec2<u32> {{ return {query}; }}"),
        )
        .function(
            "take_word",
            format!("fn take_word(w: u32) -> u32 {{ return {take}; }}"),
        )
}

/// Every variant, for the shader validation test (those with the subgroup scatter:
/// `radix_sg::all_specs`).
#[cfg(test)]
pub(crate) fn all_specs() -> Vec<Spec> {
    DType::ALL.iter().map(|&d| spec(d)).collect()
}

/// A kernel of the family: `entry` for dtype `d` with `inputs` bindings, workgroups of
/// `wg`, and `pmax` (bitonic rows; 0 elsewhere); radix records with an index plane unless
/// `keys_only`.
pub(super) fn kernel(
    dev: &Device,
    d: DType,
    entry: &'static str,
    inputs: usize,
    wg: u32,
    pmax: u32,
) -> Result<Arc<Kernel>> {
    kernel_of(dev, d, entry, inputs, wg, pmax, false)
}

pub(super) fn kernel_of(
    dev: &Device,
    d: DType,
    entry: &'static str,
    inputs: usize,
    wg: u32,
    pmax: u32,
    keys_only: bool,
) -> Result<Arc<Kernel>> {
    let extra = format!("p{pmax}");
    build(dev, d, (entry, inputs, wg), keys_only, extra, |s| {
        if pmax > 0 {
            s.constant("PMAX", pmax)
        } else {
            s
        }
    })
}

/// A kernel of the family with the record constants, `extra` naming the variant's other
/// constants, which `more` sets.
pub(super) fn build(
    dev: &Device,
    d: DType,
    (entry, inputs, wg): (&'static str, usize, u32),
    keys_only: bool,
    extra: String,
    more: impl FnOnce(Spec) -> Spec,
) -> Result<Arc<Kernel>> {
    // The public operations gate first (`super::accept`); this names the family, never
    // the kernel.
    dev.require("sort", d)?;
    let w = key_bits(d).0;
    let carry = u32::from(!keys_only);
    let key = Key {
        family: "sort",
        entry,
        variant: format!("{} w{w} c{carry} {extra}", d.wgsl()),
        inputs,
        wg,
        ndim: 0,
        per: 0,
    };
    dev.kernel(key, || {
        let s = more(spec(d).constant("W", w).constant("CARRY", carry));
        // The radix passes index in bounds by construction: tiles from `n`, digits below
        // 256, subgroup counters below SGS * 256, and destinations from the scanned counts
        // of the same keys (at most n). Without naga's clamps the step loops keep their
        // keys in registers.
        if RADIX_UNCHECKED.contains(&entry) {
            s.unchecked()
        } else {
            s
        }
    })
}

/// The radix sort's per-element passes, compiled without runtime checks.
const RADIX_UNCHECKED: &[&str] = &[
    "hist",
    "scatter_sg",
    "scatter_os",
    "os_hist",
    "hist64",
    "scatter64",
    "os_hist64",
    "scatter64_os",
    "scatter64_pairs",
];

/// A whole buffer as a binding.
pub(super) fn whole(b: &BufferHandle, bytes: u64) -> Binding<'_> {
    Binding {
        buffer: b,
        bytes,
        window: 0,
    }
}

/// Workgroups for `count` items of one workgroup each.
pub(super) fn grid(count: u32) -> Work {
    let (x, y) = groups(count, 1);
    Work::Groups([x, y, 1])
}

/// The longest row the bitonic kernel sorts on this device.
pub(super) fn bitonic_max(dev: &Device) -> u32 {
    let bytes = dev.limits().max_compute_workgroup_storage_size;
    let mut p = BITONIC_MAX;
    while p > 1 && p * BITONIC_BYTES > bytes {
        p /= 2;
    }
    p
}

/// Sorts `rows` rows of `len` elements (at most [`bitonic_max`]) of the contiguous array `x`
/// in workgroup memory, one workgroup a row: their indices within each row into `out`.
pub(super) fn bitonic<T: Element>(
    x: &Array<T>,
    rows: u32,
    len: u32,
    descending: bool,
    out: &Array<u32>,
) -> Result<()> {
    let p = len.next_power_of_two();
    let wg = if p <= 128 { 64 } else { WG };
    let k = kernel(&x.dev, T::DTYPE, "bitonic", 1, wg, p)?;
    let prm = SortParams {
        n: rows * len,
        row_len: len,
        in_off: x.offset as u32,
        tiles: rows,
        count: p,
        descending,
        ..Default::default()
    };
    x.dev
        .launch(&k, &prm.encode(), &[x.binding()], out.binding(), grid(rows))
}

/// Words of block sums that [`scan_in_place`] needs for `count` words.
pub(super) fn scan_blocks(count: u32) -> u32 {
    count.div_ceil(WG * SCAN_ITEMS)
}

/// Replaces the first `count` u32 words of `data` by their exclusive scan (reduce, scan of
/// the block sums in one workgroup, down-sweep: no workgroup waits on another), with
/// `sums` ([`scan_blocks`] words) as scratch; `prm` gives the other slots (kernels of
/// dtype `d`, as the caller's).
pub(super) fn scan_in_place(
    dev: &Device,
    d: DType,
    keys_only: bool,
    prm: &SortParams,
    data: Binding<'_>,
    count: u32,
    sums: &BufferHandle,
) -> Result<()> {
    let blocks = scan_blocks(count);
    let sums = whole(sums, blocks as u64 * 4);
    let scan = SortParams { count, ..*prm };
    let top = SortParams {
        count: blocks,
        ..*prm
    };
    let reduce = kernel_of(dev, d, "scan_reduce", 1, WG, 0, keys_only)?;
    let scan_top = kernel_of(dev, d, "scan_top", 0, WG, 0, keys_only)?;
    let down = kernel_of(dev, d, "scan_down", 1, WG, 0, keys_only)?;
    dev.launch(&reduce, &scan.encode(), &[data], sums, grid(blocks))?;
    dev.launch(&scan_top, &top.encode(), &[], sums, grid(1))?;
    dev.launch(&down, &scan.encode(), &[sums], data, grid(blocks))
}

/// Whether [`top_k_rows`] selects rather than sorts: where the device's options ask for it
/// (`Tuning::top_k_select`; off by default: slower than the sort on the H100 and on
/// lavapipe), k small against long rows.
pub(super) fn selects(dev: &Device, len: u32, k: u32) -> bool {
    let pmax = bitonic_max(dev);
    dev.options().tuning.top_k_select
        && k > 0
        && k <= 256
        && len >= 16 * k
        && len > pmax
        && 2 * k <= pmax
}

/// Indices within each row of the `k` first elements (smallest, or with `descending`
/// largest; ties by lower index) of `rows` rows of `len` of `x` (contiguous from its
/// offset), in order: shape `[rows * k]`. Rounds of `tile_top` keep each tile's k best
/// until one tile holds a row's candidates; only where [`selects`].
pub(super) fn top_k_rows<T: Element>(
    x: &Array<T>,
    rows: u32,
    len: u32,
    k: u32,
    descending: bool,
) -> Result<Array<u32>> {
    let dev = &x.dev;
    let d = T::DTYPE;
    let pmax = bitonic_max(dev);
    let planes = key_bits(d).0 as u64 + 1;
    let top = kernel(dev, d, "tile_top", 1, WG, pmax)?;
    let mut src: Option<BufferHandle> = None;
    let mut level = len;
    loop {
        let tiles = level.div_ceil(pmax);
        let m = rows * tiles * k;
        let out = dev.alloc(planes * m as u64 * 4)?;
        let prm = SortParams {
            n: rows * level,
            row_len: level,
            in_off: x.offset as u32,
            tiles,
            count: k,
            word: u32::from(src.is_some()),
            descending,
            ..Default::default()
        };
        let input = match &src {
            Some(b) => whole(b, planes * (rows * level) as u64 * 4),
            None => x.binding(),
        };
        let dst = whole(&out, planes * m as u64 * 4);
        dev.launch(&top, &prm.encode(), &[input], dst, grid(rows * tiles))?;
        src = Some(out);
        level = tiles * k;
        if tiles == 1 {
            break;
        }
    }
    let n = rows * k;
    let idx = Array::<u32>::alloc(dev, "top_k", vec![n as usize])?;
    let prm = SortParams {
        n,
        row_len: len,
        ..Default::default()
    };
    let fin = kernel(dev, d, "finish", 1, WG, 0)?;
    let recs = src.expect("one round at least");
    let recs = whole(&recs, planes * n as u64 * 4);
    dev.launch(&fin, &prm.encode(), &[recs], idx.binding(), Work::Items(n))?;
    Ok(idx)
}

/// Values of `x` (contiguous from its offset, rows of `len`) at the indices `idx`
/// (contiguous, rows of the last extent of `shape`) within each row: shape `shape`.
pub(super) fn take_rows<T: Element>(
    x: &Array<T>,
    idx: &Array<u32>,
    len: u32,
    shape: Vec<usize>,
) -> Result<Array<T>> {
    let out_row = shape.last().copied().unwrap_or(1) as u32;
    let dev = &x.dev;
    let out = Array::<T>::alloc_with(dev, "sort", shape, |b| {
        dev.alloc_apart(b, &[&*x.buf, &*idx.buf])
    })?;
    let n = out.len() as u32;
    if n == 0 {
        return Ok(out);
    }
    let words = match T::DTYPE {
        DType::F64 | DType::I64 | DType::U64 => 2 * n,
        DType::F16 => n.div_ceil(2),
        _ => n,
    };
    let prm = SortParams {
        n,
        row_len: len,
        in_off: x.offset as u32,
        tiles: out_row,
        count: words,
        ..Default::default()
    };
    let k = kernel(dev, T::DTYPE, "take", 2, WG, 0)?;
    dev.launch(
        &k,
        &prm.encode(),
        &[x.binding(), idx.binding()],
        out.binding(),
        Work::Items(words),
    )?;
    Ok(out)
}

/// Insertion points of the queries `q` (contiguous from its offset) in the sorted 1-D `a`
/// (contiguous from its offset): the first index whose value is not below the query
/// (`right`: above it).
pub(super) fn search<T: Element>(a: &Array<T>, q: &Array<T>, right: bool) -> Result<Array<u32>> {
    let dev = &a.dev;
    let out = Array::<u32>::alloc(dev, "searchsorted", q.shape.clone())?;
    let n = out.len() as u32;
    if n == 0 {
        return Ok(out);
    }
    let prm = SortParams {
        n,
        row_len: a.len() as u32,
        in_off: a.offset as u32,
        tiles: q.offset as u32,
        shift: right as u32,
        ..Default::default()
    };
    let k = kernel(dev, T::DTYPE, "search", 2, WG, 0)?;
    dev.launch(
        &k,
        &prm.encode(),
        &[a.binding(), q.binding()],
        out.binding(),
        Work::Items(n),
    )?;
    Ok(out)
}
