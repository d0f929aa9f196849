//! The subgroup shuffles that start the reduction kernels' trees: whether an adapter and an
//! accumulator can take them, and the WGSL `shuffle` / `shuffle_width` functions of a spec.

use crate::device::Device;
use crate::dtype::DType;
use crate::kernel::source::Spec;

/// `s` with shuffle and shuffle_width: subgroup shuffles for the first [`SHUFFLE_WIDTH`]
/// levels of the rows' trees when `shuffles`, else none.
pub(super) fn with_shuffles(s: Spec, acc: DType, shuffles: bool) -> Spec {
    s.function(
        "shuffle",
        if !shuffles {
            "fn shuffle(x: Acc, h: u32) -> Acc { return x; }"
        } else if acc.is_int64() {
            // Subgroup operations on 64-bit values need an extension WGSL lacks: the value
            // travels as its two 32-bit halves.
            "fn shuffle(x: Acc, h: u32) -> Acc { let u = u64(x.v); let lo = subgroupShuffleXor(u32(u & 0xfffffffflu), h); let hi = subgroupShuffleXor(u32(u >> 32u), h); return Acc(A((u64(hi) << 32u) | u64(lo)), subgroupShuffleXor(x.i, h)); }"
        } else {
            "fn shuffle(x: Acc, h: u32) -> Acc { return Acc(subgroupShuffleXor(x.v, h), subgroupShuffleXor(x.i, h)); }"
        },
    )
    .function(
        "shuffle_width",
        format!(
            "fn shuffle_width() -> u32 {{ return {}u; }}",
            if shuffles { SHUFFLE_WIDTH } else { 1 }
        ),
    )
}

/// Tree levels done with subgroup shuffles: pairs, fours and eights of invocations, which
/// every adapter whose subgroups have at least this many invocations can do.
const SHUFFLE_WIDTH: u32 = 8;

/// Whether the rows' trees may start with subgroup shuffles: the adapter has subgroups of at
/// least [`SHUFFLE_WIDTH`] invocations and the accumulator can be shuffled.
/// `Tuning::subgroups` turns them off (for tests: the results are the same bits).
pub(super) fn shuffles(dev: &Device, acc: DType) -> bool {
    dev.options().tuning.subgroups
        && dev.has_subgroups()
        && dev.info().subgroup_min_size >= SHUFFLE_WIDTH
        && shufflable(acc)
}

/// Accumulators the shuffles can carry: 32-bit ones, and 64-bit integers as two halves (f64
/// is left to workgroup memory).
pub(super) fn shufflable(acc: DType) -> bool {
    acc.size() == 4 || acc.is_int64()
}
