//! Kernels of shaders/radix_sg.wgsl, the radix sort's scatter by subgroup ranking (and its
//! onesweep form), appended to shaders/sort.wgsl only in their own kernels so that the
//! family's other kernels need no subgroup operations: the plan of the scatter on an
//! adapter ([`scatter_sg_plan`]) and its kernels. The sort runs them in [`super::radix`].

use std::sync::Arc;

use super::plan::{build, ITEMS, SG_STEPS, WG};
use crate::device::Device;
use crate::dtype::DType;
use crate::error::Result;
use crate::kernel::cache::Kernel;

/// The text appended to shaders/sort.wgsl in these kernels.
pub(super) const RADIX_SG: &str = include_str!("../../../shaders/radix_sg.wgsl");

/// The sort family's variants with this file's kernels (before their constants), for the
/// shader validation test.
#[cfg(test)]
pub(crate) fn all_specs() -> Vec<crate::kernel::source::Spec> {
    DType::ALL
        .iter()
        .map(|&d| {
            super::plan::spec(d)
                .include(RADIX_SG)
                .include(super::radix64::RADIX64)
                .include(super::radix64::RADIX64_OS)
        })
        .collect()
}

/// The radix scatter by subgroup ranking (shaders/radix_sg.wgsl) of the plan `sg` (from
/// [`scatter_sg_plan`]): `scatter_sg` for the tiles of `hist`, or with `onesweep` the
/// look-back scatter `scatter_os` (tiles of one round, its scratch a writable third input);
/// with `skip`, reading the pass table of shaders/radix64.wgsl (`SKIP`).
pub(super) fn scatter_sg_kernel(
    dev: &Device,
    d: DType,
    sg: SgPlan,
    keys_only: bool,
    onesweep: bool,
    skip: bool,
) -> Result<Arc<Kernel>> {
    let sgs = sg.wg / dev.info().subgroup_min_size;
    let rounds = if onesweep {
        1
    } else {
        WG * ITEMS / (sg.wg * SG_STEPS)
    };
    let staged = u32::from(sg.staged);
    // Ballots in one word where every subgroup has at most 32 lanes.
    let narrow =
        u32::from(dev.info().subgroup_max_size <= 32 && !dev.options().tuning.radix_wide_ballots);
    let spin = dev.options().tuning.radix_spin.unwrap_or(OS_SPIN);
    let full = full_rounds();
    let extra = format!(
        "s{sgs} r{rounds} st{staged} nw{narrow} sp{spin} k{} f{full}",
        u32::from(skip)
    );
    let (entry, inputs) = if onesweep {
        ("scatter_os", 3)
    } else {
        ("scatter_sg", 2)
    };
    build(dev, d, (entry, inputs, sg.wg), keys_only, extra, |s| {
        let s = s
            .include(RADIX_SG)
            .constant("SGS", sgs)
            .constant("ROUNDS", rounds)
            .constant("STAGED", staged)
            .constant("NARROW", narrow)
            .constant("SPIN", spin)
            .constant("FULL", full);
        let s = if skip { s.constant("SKIP", 1) } else { s };
        if onesweep {
            s.writable_last_input()
        } else {
            s
        }
    })
}

/// `FULL` of shaders/radix_sg.wgsl (`scatter_sg`, `scatter_os`, and radix64's `scatter64`):
/// 1 (rounds whose lanes all hold keys ranked without the ballot of `valid`, one ballot of
/// the nine a step fewer) unless the measuring switch `GPUARRAY_RADIX_FULL=0` (read once)
/// keeps the ranking of sessions 13-18. H200, 16M f64 argsort (2026-11-29): its eight
/// `scatter_sg` passes 2.35 -> 2.27-2.28 ms, the row 3.18-3.23 -> 3.09-3.17 ms.
pub(super) fn full_rounds() -> u32 {
    static FULL: std::sync::OnceLock<u32> = std::sync::OnceLock::new();
    *FULL.get_or_init(|| u32::from(crate::config::switch("GPUARRAY_RADIX_FULL") != Some(0)))
}

/// Re-reads of unset statuses one invocation of `scatter_os` may spend before it counts
/// predecessors' keys itself (lavapipe ends all loops of an invocation past 65535
/// iterations together: this keeps well under it).
pub(super) const OS_SPIN: u32 = 1 << 12;
/// Tile counters ahead of the status planes in the onesweep scratch (`OS_HEAD`): the most
/// passes of one onesweep sort.
pub(super) const OS_HEAD: u32 = 16;

/// The onesweep histogram kernels of shaders/radix_sg.wgsl: `os_hist` (`entry`; the
/// histograms of `np` passes in one read, `kpass` of them of the key words) or `os_scan`
/// (their exclusive scans), in workgroups of WG.
pub(super) fn onesweep_kernel(
    dev: &Device,
    d: DType,
    entry: &'static str,
    keys_only: bool,
    (np, kpass): (u32, u32),
) -> Result<Arc<Kernel>> {
    let inputs = if entry == "os_hist" { 3 } else { 0 };
    let extra = format!("np{np} kp{kpass}");
    build(dev, d, (entry, inputs, WG), keys_only, extra, |s| {
        let s = s
            .include(RADIX_SG)
            .constant("NP", np)
            .constant("KPASS", kpass)
            .constant("SGS", np);
        if inputs == 3 {
            s.writable_last_input()
        } else {
            s
        }
    })
}

/// How the subgroup-ranking scatter runs: workgroups of `wg` (a multiple of every subgroup
/// size of the adapter), its writes staged through workgroup memory or not.
#[derive(Debug, Clone, Copy)]
pub(super) struct SgPlan {
    pub wg: u32,
    pub staged: bool,
}

/// The plan of the subgroup-ranking scatter on `dev`, or `None` where it cannot run (no
/// subgroups, `Tuning::subgroups` off, subgroup sizes outside 8..=128, or too little
/// workgroup memory): then the chunk-ranking `scatter` does the work.
/// `Tuning::radix_stage` sets the staged workgroup (0: unstaged).
pub(super) fn scatter_sg_plan(dev: &Device) -> Option<SgPlan> {
    let i = dev.info();
    let (lo, hi) = (i.subgroup_min_size, i.subgroup_max_size);
    let sizes_ok = lo >= 8 && hi <= 128 && lo.is_power_of_two() && hi.is_power_of_two();
    if !(dev.options().tuning.subgroups && dev.has_subgroups() && sizes_ok) {
        return None;
    }
    let stage = dev.options().tuning.radix_stage;
    let limit = dev.limits().max_compute_workgroup_storage_size;
    // At most 8 subgroups of the smallest size (staged: at most `stage` invocations), but
    // room for one of the largest; staged where its memory fits (a round's entries of one
    // plane, `gofs` and the subgroups' sums besides the counters), else unstaged.
    let plan = |most: u32, staged: bool| {
        let wg = most.max(hi).min(WG);
        // The subgroups' counters and the tile's slots.
        let mut bytes = (wg / lo) * 256 * 4 + 256 * 4;
        if staged {
            // A round's entries of one plane, `gofs` and the subgroups' sums.
            bytes += wg * SG_STEPS * 4 + 256 * 4 + (wg / lo) * 4;
        }
        let whole = (WG * ITEMS).is_multiple_of(wg * SG_STEPS) && 256 % wg == 0;
        (bytes <= limit && whole).then_some(SgPlan { wg, staged })
    };
    let staged = (stage > 0).then(|| plan(stage.min(8 * lo), true)).flatten();
    staged.or_else(|| plan(8 * lo, false))
}
