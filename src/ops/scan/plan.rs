//! Planning and running scans: a scan along one axis of a contiguous array is `outer`
//! lines of `len` elements with stride `inner` ([`Problem`]); [`plan`] picks the kernel
//! (rows or columns) and cuts the lines into segments, and [`run`] launches one dispatch,
//! or reduce-then-scan in three stages (the segments' totals, their scan by the same
//! function, the segments again from their offsets) when a line has several segments.

use crate::device::{Device, Work};
use crate::dtype::DType;
use crate::error::Result;
use crate::kernel::cache::Key;
use crate::kernel::launch::{Binding, Params};

use super::source::{spec, Op, Side};

/// Invocations per workgroup of every scan kernel.
pub(crate) const WG: usize = 256;
/// Elements per tile of the row kernels (WG invocations, PER = 16 elements each, as
/// shaders/scan.wgsl's `PER`).
const TILE: usize = WG * 16;
/// Workgroups the row kernels aim for: long lines are cut into segments of one tile each
/// up to this many (their totals, the partials, are then a small scan of their own).
const ROW_GROUPS: usize = 1 << 14;
/// Invocations the column kernels aim to fill.
const COL_ITEMS: usize = 1 << 17;
/// Rows shorter than this go to the column kernels (a serial walk per row).
const SHORT: usize = 64;

/// A scan of `outer * inner` lines of `len` elements each: element r of line (o, i) at
/// `(o * len + r) * inner + i`.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) struct Problem {
    pub outer: usize,
    pub len: usize,
    pub inner: usize,
}

/// How a problem is cut: by rows (one workgroup per segment) or by columns (one invocation
/// per segment), and its segments.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) struct Plan {
    pub rows: bool,
    pub segs: usize,
    pub seg_len: usize,
}

impl Plan {
    /// Work units of a dispatch: workgroups (rows) or invocations (columns).
    fn units(&self, p: &Problem) -> usize {
        p.outer * self.segs * p.inner
    }
    fn work(&self, p: &Problem) -> Work {
        let items = if self.rows { WG } else { 1 };
        Work::Items((self.units(p) * items) as u32)
    }
}

/// The plan of `p`.
pub(crate) fn plan(p: &Problem) -> Plan {
    let lines = p.outer * p.inner;
    let rows = p.inner == 1 && p.len >= SHORT && (p.outer as u64) * (WG as u64) <= u32::MAX as u64;
    let (segs, grain) = if rows {
        let tiles = p.len.div_ceil(TILE);
        let segs = if tiles <= 8 {
            1
        } else {
            tiles.min(ROW_GROUPS.div_ceil(lines)).max(1)
        };
        (segs, TILE)
    } else {
        let segs = if p.len <= SHORT {
            1
        } else {
            p.len.div_ceil(32).min(COL_ITEMS.div_ceil(lines)).max(1)
        };
        (segs, 1)
    };
    let seg_len = p.len.div_ceil(segs).div_ceil(grain) * grain;
    Plan {
        rows,
        segs: p.len.div_ceil(seg_len.max(1)).max(1),
        seg_len: seg_len.max(1),
    }
}

/// Parameters of one scan dispatch; shaders/scan.wgsl reads them through its accessors
/// `units()`, `len()`, `inner()`, `segs()` and `seg_len()`.
#[derive(Debug, Clone, Copy)]
pub(crate) struct ScanParams {
    pub units: usize,
    pub len: usize,
    pub inner: usize,
    pub segs: usize,
    pub seg_len: usize,
}

impl ScanParams {
    pub(crate) fn encode(&self) -> Params {
        let mut p = Params::new(self.units as u32);
        p.aux = [self.len as u32, self.inner as u32];
        p.shape[0] = self.segs as u32;
        p.shape[1] = self.seg_len as u32;
        // shape[2] stays 0: `zero_bits()`, which hides the f32 pairs' arithmetic from the
        // compiler's algebra.
        p
    }
}

/// One stage: the entry and the sides it reads and writes.
struct Stage<'a> {
    entry: &'static str,
    src: Side,
    dst: Side,
    inputs: &'a [Binding<'a>],
    out: Binding<'a>,
}

fn launch(dev: &Device, op: Op, d: DType, p: &Problem, plan: &Plan, s: Stage<'_>) -> Result<()> {
    // Lines of a multiple of 4 elements start on vec4 boundaries (the buffers start at 0).
    let vec = plan.rows && p.len.is_multiple_of(4);
    let key = Key {
        family: "scan",
        entry: s.entry,
        variant: format!("{op:?}|{d:?}|{:?}|{:?}|{vec}", s.src, s.dst),
        inputs: s.inputs.len(),
        wg: WG as u32,
        ndim: 0,
        per: 0,
    };
    let kernel = dev.kernel(key, || spec(op, d, s.src, s.dst, vec))?;
    let params = ScanParams {
        units: plan.units(p),
        len: p.len,
        inner: p.inner,
        segs: plan.segs,
        seg_len: plan.seg_len,
    };
    dev.launch(&kernel, &params.encode(), s.inputs, s.out, plan.work(p))
}

/// The inclusive scan `op` of problem `p` (inputs of dtype `d`) from `src` (elements or
/// partials, as `src_side` says) into `out` (as `dst_side` says).
pub(crate) fn run(
    dev: &Device,
    op: Op,
    d: DType,
    p: &Problem,
    (src, src_side): (Binding<'_>, Side),
    (out, dst_side): (Binding<'_>, Side),
) -> Result<()> {
    let plan = plan(p);
    let (scan, scan_off, reduce) = if plan.rows {
        ("row_scan", "row_scan_off", "row_reduce")
    } else {
        ("col_scan", "col_scan_off", "col_reduce")
    };
    let stage = |entry, inputs, out| Stage {
        entry,
        src: src_side,
        dst: dst_side,
        inputs,
        out,
    };
    let only_src = [src];
    if plan.segs == 1 {
        return launch(dev, op, d, p, &plan, stage(scan, &only_src, out));
    }
    let parts = Problem {
        outer: p.outer,
        len: plan.segs,
        inner: p.inner,
    };
    let bytes = (parts.outer * parts.len * parts.inner * op.acc_size(d)) as u64;
    let totals = dev.alloc_apart(bytes, &[src.buffer, out.buffer])?;
    let scanned = dev.alloc_apart(bytes, &[src.buffer, out.buffer, &totals])?;
    let whole = |buffer| Binding {
        buffer,
        bytes,
        window: 0,
    };
    let reduce_stage = Stage {
        dst: Side::Partial,
        ..stage(reduce, &only_src, whole(&totals))
    };
    launch(dev, op, d, p, &plan, reduce_stage)?;
    run(
        dev,
        op,
        d,
        &parts,
        (whole(&totals), Side::Partial),
        (whole(&scanned), Side::Partial),
    )?;
    let with_offsets = [src, whole(&scanned)];
    launch(dev, op, d, p, &plan, stage(scan_off, &with_offsets, out))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn plans_cover_every_element() {
        for &(outer, len, inner) in &[
            (1, 1, 1),
            (1, 64 << 20, 1),
            (8192, 8192, 1),
            (1, 8192, 8192),
            (3, 100_003, 1),
            (1, 1_000_003, 2),
            (100_000, 3, 1),
        ] {
            let p = Problem { outer, len, inner };
            let pl = plan(&p);
            assert!(pl.segs * pl.seg_len >= len, "{p:?} {pl:?}");
            assert!((pl.segs - 1) * pl.seg_len < len, "{p:?} {pl:?}");
            if pl.rows {
                assert_eq!(pl.seg_len % TILE, 0);
            }
        }
    }
}
