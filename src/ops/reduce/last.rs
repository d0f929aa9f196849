//! The fused last stage of split reductions (`rows_last` / `rows4_last` in
//! shaders/reduce.wgsl): each unit writes its partial result to a scratch buffer of the
//! device's own and counts itself in its output's counter; the unit that counts last
//! combines its output's partial results (in a fixed order) and puts the counter back to
//! zero, so the counters are zero between dispatches and need no clear per launch.

use std::sync::{Arc, Mutex};

use crate::device::Device;
use crate::error::Result;
use crate::memory::pool::BufferHandle;
use crate::memory::slab::SLAB_MAX;

use super::plan::{Plan, MAX_CHAIN, WG};

/// Most outputs a fused stage counts: the scratch's first words, one counter each, always
/// there (shaders/reduce.wgsl `COUNTERS`), so that a larger scratch never finds its
/// counters where an earlier stage left partial results.
const COUNTERS: usize = 4096;

/// The device's scratch of fused stages: counters, then partial results.
#[derive(Default)]
pub(super) struct LastScratch {
    buf: Mutex<Option<Arc<BufferHandle>>>,
}

/// Whether a stage of `m` outputs under `plan`, in `windows` dispatches, with 32-bit
/// accumulators when `acc32`, reading no means, runs fused: one output per workgroup row
/// (PER = WG), K split, one dispatch (the units' counts must all be in one), and few enough
/// partial results that each invocation of the last unit folds at most [`MAX_CHAIN`].
pub(super) fn fusable(
    dev: &Device,
    plan: &Plan,
    m: usize,
    windows: usize,
    acc32: bool,
    means: bool,
) -> bool {
    dev.options().tuning.reduce_fuse
        && !plan.cols
        && plan.per == WG
        && plan.splits > 1
        && plan.splits <= WG * MAX_CHAIN
        && windows == 1
        && acc32
        && !means
        && m <= COUNTERS
}

/// The device's scratch for `m` outputs of `splits` partial results each (the zeroed
/// counters first; made, or remade larger, on demand). Its own buffer (never a slot of a slab), so
/// that no array the stage reads shares it, owned by the device: not in the pool's
/// `used_bytes` (which counts arrays) nor under its limit.
pub(super) fn scratch(dev: &Device, m: usize, splits: usize) -> Result<Arc<BufferHandle>> {
    let state = dev.state::<LastScratch>();
    let mut buf = crate::gpu::lock(&state.buf);
    let bytes = (4 * (COUNTERS + 2 * m * splits)) as u64;
    if let Some(b) = buf.as_ref().filter(|b| b.size() >= bytes) {
        return Ok(b.clone());
    }
    let b = Arc::new(dev.alloc_owned(bytes.max(SLAB_MAX + 4))?);
    dev.clear(&b);
    *buf = Some(b.clone());
    Ok(b)
}
