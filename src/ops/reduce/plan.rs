//! Planning: how a reduction becomes an M x K [`Problem`] (which axes are reduced, the
//! kept axes and the reduced ones merged into runs of memory, and when the input must be
//! copied first), and how a problem is cut into work: the rows-or-columns [`Plan`] and its
//! splits of K, and the dispatch [`Window`]s that keep each dispatch within one binding of
//! an input larger than a binding.

use crate::device::{Device, DeviceKind};
use crate::error::{Error, Result};
use crate::kernel::launch::{Binding, MAX_DIMS};

use super::source::Load;

/// Invocations per workgroup of every reduction kernel.
pub(super) const WG: usize = 256;
/// Elements each invocation should reduce, at least, before a split of K pays.
const MIN_PER_INVOCATION: usize = 8;
/// Elements each invocation of a row reads, at least: 8 vec4 loads (one block of the
/// walk), or 16 scalar loads (with 4 scalar loads, a row of 383 took 128 invocations and most
/// of the time went to the tree that combines them).
const ROW_ITEMS: (usize, usize) = (8, 16);
/// Loads per block of an invocation's walk (shaders/reduce.wgsl `walk`): a split of a long
/// row is a whole number of blocks of the workgroup where it can be.
const BLOCK: usize = 8;
/// The longest serial chain of additions in one accumulator: longer reductions are split
/// across workgroups (and the partial results added as a tree), which bounds the rounding
/// error however few outputs or workgroups there are.
pub(super) const MAX_CHAIN: usize = 64;

/// The axes that `axes` reduces in an array of `shape` (all when `None`), the result's
/// shape and the number of elements each output reduces. `op` names the operation in
/// errors.
pub(super) fn reduced_axes(
    shape: &[usize],
    op: &'static str,
    axes: Option<&[usize]>,
    keepdims: bool,
) -> Result<(Vec<bool>, Vec<usize>, usize)> {
    let nd = shape.len();
    let mut red = vec![axes.is_none(); nd];
    for &axis in axes.unwrap_or(&[]) {
        if axis >= nd {
            return Err(Error::AxisOutOfRange { axis, ndim: nd });
        }
        if red[axis] {
            return Err(Error::InvalidArgument {
                op,
                reason: "an axis is listed twice",
            });
        }
        red[axis] = true;
    }
    let out: Vec<usize> = (0..nd)
        .filter_map(|d| {
            if red[d] {
                keepdims.then_some(1)
            } else {
                Some(shape[d])
            }
        })
        .collect();
    let count: usize = (0..nd).filter(|&d| red[d]).map(|d| shape[d]).product();
    Ok((red, out, count))
}

/// Merges neighbouring axes that are one run of memory; drops axes of extent 1.
pub(super) fn merge(axes: &[(usize, usize)]) -> Vec<(usize, usize)> {
    let mut out: Vec<(usize, usize)> = Vec::new();
    for &(e, s) in axes {
        if e == 1 {
            continue;
        }
        match out.last_mut() {
            Some(last) if last.1 == e * s => *last = (last.0 * e, s),
            _ => out.push((e, s)),
        }
    }
    out
}

/// The M x K form of an input's axes.
pub(super) struct Layout {
    /// Kept axes (extent, stride), merged, outermost first; one axis of extent 1 when none
    /// is kept.
    pub kept: Vec<(usize, usize)>,
    /// K and the stride of the one reduced axis; (1, 0) when none is reduced.
    pub k: usize,
    pub rs: usize,
}

/// The M x K form of reducing the axes (extent, stride) marked in `red`. `None` when the
/// reduced axes do not merge into one strided axis or too many kept axes remain: the caller
/// copies the input with [`reduced_last`] first. With `ordered` the reduced axes keep their
/// logical order (arg ops count indices in it); else they are taken in memory order.
pub(super) fn layout(axes: &[(usize, usize)], red: &[bool], ordered: bool) -> Option<Layout> {
    let pick = |reduced: bool| -> Vec<(usize, usize)> {
        axes.iter()
            .zip(red)
            .filter(|&(_, &r)| r == reduced)
            .map(|(a, _)| *a)
            .collect()
    };
    let kept = merge(&pick(false));
    let mut reduced = pick(true);
    // The order of summation does not matter to the answer (only to its rounding, and that
    // is still fixed by the layout), so reduce in memory order; arg ops need the logical
    // order of their indices.
    if !ordered {
        reduced.sort_by_key(|d| std::cmp::Reverse(d.1));
    }
    let reduced = merge(&reduced);
    if reduced.len() > 1 || kept.len() > MAX_DIMS {
        return None;
    }
    let (k, rs) = reduced.first().copied().unwrap_or((1, 0));
    let kept = if kept.is_empty() { vec![(1, 0)] } else { kept };
    Some(Layout { kept, k, rs })
}

/// For a copy of the input whose axes marked in `red` come last: the permutation of the
/// axes (kept ones first, each group in order) and the marks of the copy.
pub(super) fn reduced_last(red: &[bool]) -> (Vec<usize>, Vec<bool>) {
    let perm: Vec<usize> = (0..red.len())
        .filter(|&d| !red[d])
        .chain((0..red.len()).filter(|&d| red[d]))
        .collect();
    let nk = red.iter().filter(|&&r| !r).count();
    (perm, (0..red.len()).map(|d| d >= nk).collect())
}

/// One M x K problem: the input buffer, what it holds and where the elements are.
pub(super) struct Problem<'a> {
    pub src: Binding<'a>,
    /// Dtype of the elements (for partial inputs: of the original elements).
    pub input: crate::dtype::DType,
    pub load: Load,
    /// Bytes per element of `src` (an `Acc` for partial inputs).
    pub elem: usize,
    /// Element offset of the first element.
    pub offset: usize,
    /// Kept axes (extent, stride), outermost first; at least one.
    pub kept: Vec<(usize, usize)>,
    /// Reduced elements per output and their stride.
    pub k: usize,
    pub rs: usize,
}

impl Problem<'_> {
    /// M, the number of outputs.
    pub(super) fn outputs(&self) -> usize {
        self.kept.iter().map(|d| d.0).product()
    }
}

/// The rows-or-columns plan of one stage.
#[derive(Debug, Clone, Copy)]
pub(super) struct Plan {
    pub cols: bool,
    pub vec4: bool,
    /// rows: invocations per output; cols: outputs (columns, or groups of 4) per workgroup.
    pub per: usize,
    /// Blocks of outputs.
    pub blocks: usize,
    pub splits: usize,
    pub chunk: usize,
}

impl Plan {
    pub(super) fn units(&self) -> usize {
        self.blocks * self.splits
    }

    /// The granularity of a chunk of K: vec4 loads in rows need multiples of 4.
    fn quantum(&self) -> usize {
        if self.cols {
            1
        } else {
            4
        }
    }

    /// With `splits` splits of K (fewer where K is short).
    fn split(mut self, k: usize, splits: usize) -> Plan {
        let quantum = self.quantum();
        let chunk = k.div_ceil(splits.max(1)).div_ceil(quantum) * quantum;
        self.chunk = chunk.max(quantum);
        self.splits = k.div_ceil(self.chunk).max(1);
        self
    }

    /// The outputs and the reduced elements of unit `u`: (first output, end, first k, end).
    fn unit(&self, u: usize, m: usize, k: usize) -> (usize, usize, usize, usize) {
        let (block, s) = if self.cols {
            (u % self.blocks, u / self.blocks)
        } else {
            (u / self.splits, u % self.splits)
        };
        let outputs = if self.cols {
            self.per * if self.vec4 { 4 } else { 1 }
        } else {
            WG / self.per
        };
        let m0 = block * outputs;
        let k0 = s * self.chunk;
        (m0, (m0 + outputs).min(m), k0, (k0 + self.chunk).min(k))
    }
}

/// Lowest and highest offsets of outputs `lo..hi` (decoded through the kept axes), bounded
/// by the box of multi-indices between them.
fn span(kept: &[(usize, usize)], lo: usize, hi: usize) -> (usize, usize) {
    let decode = |mut i: usize| {
        let mut idx = vec![0; kept.len()];
        for d in (0..kept.len()).rev() {
            idx[d] = i % kept[d].0;
            i /= kept[d].0;
        }
        idx
    };
    let (a, b) = (decode(lo), decode(hi - 1));
    let (mut min, mut max) = (0, 0);
    let mut varied = false;
    for d in 0..kept.len() {
        let st = kept[d].1;
        if varied {
            max += (kept[d].0 - 1) * st;
        } else {
            min += a[d] * st;
            max += b[d] * st;
            varied = a[d] != b[d];
        }
    }
    (min, max)
}

/// Workgroups a reduction should spread over when its outputs alone are too few: four per SM
/// of a large GPU (528 on an H100's 132 SMs, the fastest of 264, 528, 1024 and 4224 where
/// it was measured: BENCHMARKS.md, "Measurements behind the code's choices"), fewer on a CPU. `Tuning::reduce_groups` overrides it
/// (for tuning; results change in the last bits with it, since the tree changes).
fn target_groups(dev: &Device) -> usize {
    dev.options()
        .tuning
        .reduce_groups
        .map(|g| g as usize)
        .unwrap_or(if dev.info().kind == DeviceKind::Cpu {
            32
        } else {
            528
        })
}

/// Splits of K for `blocks` blocks of outputs whose `k` items are walked by `lanes`
/// invocations each: enough to spread over `target` workgroups while each invocation keeps
/// [`MIN_PER_INVOCATION`] items, and always enough that no chain exceeds [`MAX_CHAIN`].
/// Partial results of an earlier stage (`partial`) split only for the chain: they are few,
/// and another stage would cost more than the walk.
fn splits_for(target: usize, blocks: usize, k: usize, lanes: usize, partial: bool) -> usize {
    let spread = if partial {
        1
    } else {
        target
            .div_ceil(blocks)
            .min(k.div_ceil(lanes * MIN_PER_INVOCATION))
    };
    spread.max(k.div_ceil(lanes * MAX_CHAIN))
}

/// The plan of problem `p`: `cols` where the reduced stride is not 1 but the innermost kept
/// axis is contiguous (neighbouring invocations then read neighbouring columns), else
/// `rows`; vec4 loads where the layout is aligned for them; splits of K as
/// [`splits_for`] asks.
fn plan(dev: &Device, p: &Problem<'_>) -> Plan {
    let m = p.outputs();
    let target = target_groups(dev);
    let inner = p.kept[p.kept.len() - 1];
    if p.rs != 1 && inner.1 == 1 && m > 1 {
        let vec4 = p.load == Load::Elem
            && inner.0.is_multiple_of(4)
            && p.offset.is_multiple_of(4)
            && p.rs.is_multiple_of(4)
            && p.kept.iter().all(|d| d.1 == 1 || d.1.is_multiple_of(4));
        let mv = if vec4 { m / 4 } else { m };
        let per = mv.next_power_of_two().min(64);
        let blocks = mv.div_ceil(per);
        let lanes = WG / per;
        let splits = splits_for(target, blocks, p.k, lanes, p.load == Load::Partial);
        Plan {
            cols: true,
            vec4,
            per,
            blocks,
            splits: 1,
            chunk: p.k,
        }
        .split(p.k, splits)
    } else {
        // Rows of 8-byte elements load one element per invocation: a vec4 of them is 32
        // bytes, which NVIDIA's driver splits into two 16-byte loads half a warp's span
        // apart: slower than one element per invocation (BENCHMARKS.md).
        let vec4 = p.load == Load::Elem
            && p.input.size() < 8
            && p.rs == 1
            && p.k.is_multiple_of(4)
            && p.offset.is_multiple_of(4)
            && p.kept.iter().all(|d| d.1.is_multiple_of(4));
        let kv = if vec4 { p.k / 4 } else { p.k };
        let items = if vec4 { ROW_ITEMS.0 } else { ROW_ITEMS.1 };
        let per = kv.div_ceil(items).next_power_of_two().clamp(1, WG);
        let blocks = m.div_ceil(WG / per);
        // Rows shorter than a workgroup's share need no split (and have short chains).
        let splits = if per == WG {
            splits_for(target, blocks, kv, WG, p.load == Load::Partial)
        } else {
            1
        };
        let plan = Plan {
            cols: false,
            vec4,
            per,
            blocks,
            splits: 1,
            chunk: p.k,
        }
        .split(p.k, splits);
        whole_blocks(plan, p.k, if vec4 { 4 } else { 1 })
    }
}

/// `plan` (rows of a workgroup each, split) with each split of K rounded up to whole blocks
/// of the walk over the workgroup (`width` elements a load), so that every invocation's walk
/// but the last split's is whole blocks of [`BLOCK`] loads, with no partial block at its end.
fn whole_blocks(plan: Plan, k: usize, width: usize) -> Plan {
    let unit = WG * BLOCK * width;
    if plan.per < WG || plan.splits < 2 || plan.chunk <= unit {
        return plan;
    }
    let chunk = plan.chunk.div_ceil(unit) * unit;
    Plan {
        chunk,
        splits: k.div_ceil(chunk),
        ..plan
    }
}

/// One dispatch of a stage: units `first_unit..end_unit`, reading elements `base..end` of
/// the input (bound from `base`, a multiple of the storage offset alignment).
#[derive(Debug, Clone, Copy)]
pub(super) struct Window {
    pub first_unit: usize,
    pub end_unit: usize,
    pub base: usize,
    pub end: usize,
}

/// Dispatch windows, each touching at most one binding's worth of the input; `None` when
/// some unit alone does not fit.
fn windows(dev: &Device, p: &Problem<'_>, plan: &Plan) -> Option<Vec<Window>> {
    let units = plan.units();
    let max = dev.limits().max_storage_buffer_binding_size & !3;
    if p.src.bytes <= max {
        return Some(vec![Window {
            first_unit: 0,
            end_unit: units,
            base: 0,
            end: p.src.bytes as usize / p.elem,
        }]);
    }
    let m = p.outputs();
    let align = (dev.limits().min_storage_buffer_offset_alignment as usize / p.elem).max(4);
    let max_elems = max as usize / p.elem;
    let unit_span = |u: usize| {
        let (m0, m1, k0, k1) = plan.unit(u, m, p.k);
        let (lo, hi) = span(&p.kept, m0, m1);
        (p.offset + lo + k0 * p.rs, p.offset + hi + (k1 - 1) * p.rs)
    };
    let fits = |lo: usize, hi: usize| hi + 1 - lo / align * align <= max_elems;
    let mut out = Vec::new();
    let mut u = 0;
    while u < units {
        let (mut lo, mut hi) = unit_span(u);
        if !fits(lo, hi) {
            return None;
        }
        let mut v = u + 1;
        while v < units {
            let (l, h) = unit_span(v);
            if !fits(lo.min(l), hi.max(h)) {
                break;
            }
            (lo, hi) = (lo.min(l), hi.max(h));
            v += 1;
        }
        out.push(Window {
            first_unit: u,
            end_unit: v,
            base: lo / align * align,
            end: hi + 1,
        });
        u = v;
    }
    Some(out)
}

/// The plan of `p` and its dispatch windows: K is split further (doubling the splits)
/// until every unit fits in one binding of the input.
///
/// # Errors
/// [`Error::BufferTooLarge`] when even the smallest chunk of K does not fit.
pub(super) fn fit(dev: &Device, p: &Problem<'_>) -> Result<(Plan, Vec<Window>)> {
    let mut plan = plan(dev, p);
    loop {
        if let Some(w) = windows(dev, p, &plan) {
            return Ok((plan, w));
        }
        if plan.chunk <= plan.quantum() {
            return Err(Error::BufferTooLarge {
                requested: p.src.bytes,
                max: dev.limits().max_storage_buffer_binding_size,
            });
        }
        plan = plan.split(p.k, plan.splits * 2);
    }
}
