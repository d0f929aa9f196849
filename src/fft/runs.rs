//! How long 1-D transforms split into four-step passes so that every pass moves global
//! memory in wide runs, and the order of the last pass's batch dimensions.
//!
//! Every pass of a four-step plan reads or writes strided: the columns pass reads and
//! writes columns (stride n2), the rows pass writes its outputs transposed. The kernel's
//! column mapping puts `m_col` neighbouring transforms on neighbouring invocations, so a
//! strided access moves runs of `m_col` elements, and `m_col` transforms of length `l` must
//! share one workgroup's memory: runs of 128 bytes (16 complex64) allow `l` <= 256 on 48
//! KiB, of 32 bytes `l` <= 1,024. The earlier rule split 2^24 as 1,024 x (16 x 1,024): two
//! of its three passes moved runs of 32 bytes (4 transforms of 1,024 a workgroup), and its
//! last pass, which wrote the rows of the inner split with the inner batch dimension
//! innermost, wrote runs of one element (8 bytes, 1,024 apart). On the H200 (2026-11-29) the
//! long columns ran at 930 GB/s in runs of 32 bytes, 480 GB/s in runs of 8, and
//! 4096^2's columns as two passes of 64 (runs of 128 bytes) near the rows' 1,650 GB/s.
//!
//! The rule here (for transforms of [`RUN_MIN_BYTES`] and more; shorter ones stay in L2
//! and keep the fewer passes of `plan.rs`'s rule): the fewest passes of lengths that would
//! allow runs of 128 bytes (16 transforms a workgroup), or of 64 bytes where that saves a
//! pass (a 64-byte pass counted as 1.25 of a 128-byte one: an estimate), the factors
//! balanced (2^24 = 256 x 256 x 256, 2^25 = 512 x 256 x 256, 2^27 = 512^3); each pass then
//! taking the transforms of runs of [`RUN_GROUP_BYTES`] (32: 4 complex64, 2 complex128) a
//! workgroup, which measured faster than 16 (smaller workgroups); and the last pass's batch
//! dimensions ordered so that neighbouring transforms write neighbouring elements
//! (`order_out`). On the H200 (2026-11-29, against the earlier rule and order): 2^24 0.789
//! -> 0.525 ms (the order alone 0.623), 2^22 0.176 -> 0.140, 2^27 7.89 -> 5.33, Bluestein
//! 4 x 1,048,577 1.50 -> 1.21, the rfft of 2^26 1.83 -> 1.28, complex128 2^24 1.36 -> 1.107
//! with groups of 4 (1.024 with groups of 2: then the default). `GPUARRAY_FFT_RUN=128` (2^27
//! as 256^3 x 8) measured 2^27 at 5.15 against the rule's 5.33 ms but the rfft of 2^26 (128
//! x 64^3) at 1.37 against 1.28: the rule kept. Switches (src/fft/tune.rs):
//! `GPUARRAY_FFT_RUN` (0: the earlier rule; 64 or 128: pass lengths for runs of that many
//! bytes only), `GPUARRAY_FFT_RUNMIN` (bytes from which the rule applies),
//! `GPUARRAY_FFT_RUNM` (the group), `GPUARRAY_FFT_ORDER` (0: the earlier order of the last
//! pass).

use super::kernel::{Dim, PER_INVOCATION};
use crate::device::Device;
use crate::dtype::DType;

/// Bytes of a transform from which the run rule plans it: 32 MiB (2^22 complex64).
pub(super) const RUN_MIN_BYTES: usize = 32 << 20;

/// Bytes of the runs of a run split's strided passes (transforms per workgroup: 4
/// complex64, 2 complex128; workgroups of 256 and 128 invocations at length 256). On the
/// H200 (2026-11-29, 256^3 for 2^24) groups of 16 complex64 (runs of 128 bytes, 1,024
/// invocations) took 0.607 ms, 8 0.561, 4 0.525, 2 0.810; 2^27 (512^3) 5.55 against 5.33
/// ms at 4, 2^22 0.153 against 0.140, the rfft of 2^26 1.43 against 1.28; complex128 2^24
/// with 8 1.114, 4 1.107, 2 1.024 ms: smaller workgroups' barriers and occupancy count for
/// more than the runs' width, down to one 32-byte sector.
pub(super) const RUN_GROUP_BYTES: usize = 32;

/// Transforms per workgroup of the kernel's column mapping (plan.rs `COL_TRANSFORMS`): the
/// widest run the rule asks for.
const MOST_RUN: usize = 16;

/// The longest pass of `C` (complex of `d`, `cap` elements of workgroup memory) whose
/// workgroups hold `r` transforms (as `plan::direct` counts them).
fn longest(dev: &Device, cap: usize, r: usize) -> usize {
    let max_inv = dev.limits().max_compute_invocations_per_workgroup as usize;
    (cap / r)
        .saturating_sub(1)
        .min(PER_INVOCATION * max_inv.clamp(64, 1024) / r)
}

/// Factors of `n` into at most `passes` factors of at most `l`, balanced (each the
/// smallest divisor at least the remaining length's `passes`-th root, else the largest
/// divisor at most `l`); `None` where they do not reach `n`.
fn balanced(n: usize, l: usize, passes: usize) -> Option<Vec<usize>> {
    let mut out = Vec::new();
    let mut rest = n;
    for left in (1..=passes).rev() {
        if rest <= l {
            out.push(rest);
            return Some(out);
        }
        if left == 1 {
            return None;
        }
        // Less a little, so that an exact root (256 of 2^24) is not rounded past itself.
        let root = ((rest as f64).powf(1.0 / left as f64) - 1e-6).ceil() as usize;
        let divs: Vec<usize> = (2..=l.min(rest))
            .filter(|d| rest.is_multiple_of(*d))
            .collect();
        let d = divs
            .iter()
            .copied()
            .find(|&d| d >= root)
            .or_else(|| divs.last().copied())?;
        out.push(d);
        rest /= d;
    }
    None
}

/// The fewest passes of at most `l` for `n` and their factors.
fn fewest(n: usize, l: usize) -> Option<Vec<usize>> {
    if l < 2 {
        return None;
    }
    // Every factor of a planned length is at most 13: passes of at most l >= 13 reach n
    // within log2(n) + 1 of them.
    (2..=usize::BITS as usize).find_map(|p| balanced(n, l, p))
}

/// The passes of a transform of `n` elements of complex `d` (`cap` elements of workgroup
/// memory) by the run rule, in order (the first the columns of the whole length); `None`
/// where `plan.rs`'s rule applies (shorter transforms, `GPUARRAY_FFT_RUN=0`).
pub(super) fn factors(dev: &Device, n: usize, d: DType, cap: usize) -> Option<Vec<usize>> {
    let k = super::tune::knobs();
    let min = k.runmin.unwrap_or(RUN_MIN_BYTES);
    if n <= cap || n * d.size() < min || k.run == Some(0) {
        return None;
    }
    let plan = |bytes: usize| {
        let r = (bytes / d.size()).clamp(1, MOST_RUN);
        fewest(n, longest(dev, cap, r))
    };
    match k.run {
        Some(b) => plan(b),
        None => {
            let wide = plan(128);
            let half = plan(64);
            match (wide, half) {
                // Four 128-byte passes against five 64-byte ones cost the same: 4 >= 5 / 1.25.
                (Some(w), Some(h)) if 4 * w.len() > 5 * h.len() => Some(h),
                (Some(w), _) => Some(w),
                (None, h) => h,
            }
        }
    }
}

/// Transforms per workgroup of a run split's passes of complex `d` where they read or
/// write strided (`GPUARRAY_FFT_RUNM`, else [`RUN_GROUP_BYTES`] of them).
pub(super) fn group(d: DType) -> usize {
    super::tune::knobs()
        .runm
        .unwrap_or((RUN_GROUP_BYTES / d.size()).max(1))
}

/// Moves the batch dimension whose outputs lie closest together (the smallest |s_out|)
/// innermost, so that a workgroup's neighbouring transforms write neighbouring elements
/// (the last pass of a split reads contiguous rows and writes them transposed); unless
/// `GPUARRAY_FFT_ORDER=0`.
pub(super) fn order_out(dims: &mut Vec<Dim>) {
    if super::tune::knobs().order == Some(0) || dims.len() < 2 {
        return;
    }
    let at = dims
        .iter()
        .enumerate()
        .min_by_key(|(_, d)| d.s_out.unsigned_abs())
        .map(|(i, _)| i)
        .unwrap_or(0);
    let d = dims.remove(at);
    dims.push(d);
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The plans the device keeps (direct, four-step, Bluestein fused and not) hold their
    /// tables without the device: dropping the last handle drops it (and saves its
    /// pipeline cache).
    #[test]
    fn plans_let_the_device_drop() {
        use crate::fft::{fft, Norm};
        use crate::Complex;
        let dev = crate::Device::new().expect("a device");
        let weak = std::sync::Arc::downgrade(&dev.inner);
        for n in [64usize, 1 << 14, 17, 5003] {
            let a = dev.zeros::<Complex<f32>>([n]).expect("zeros");
            let y = fft(&a, None, 0, Norm::Backward).expect("fft");
            assert_eq!(y.to_vec().expect("read back").len(), n);
        }
        drop(dev);
        assert!(weak.upgrade().is_none(), "the plan cache holds the device");
    }

    #[test]
    fn balanced_factors() {
        assert_eq!(fewest(1 << 24, 256), Some(vec![256, 256, 256]));
        assert_eq!(fewest(1 << 25, 512), Some(vec![512, 256, 256]));
        assert_eq!(fewest(1 << 27, 512), Some(vec![512, 512, 512]));
        assert_eq!(fewest(1 << 25, 256), Some(vec![128, 64, 64, 64]));
        assert_eq!(fewest(3usize.pow(14), 255), Some(vec![243, 243, 81]));
        assert_eq!(fewest(100, 255), Some(vec![100]));
        assert_eq!(fewest(1 << 10, 1), None);
        for n in [
            1usize << 22,
            1 << 23,
            3 * (1 << 20),
            5usize.pow(9),
            7 * 11 * 13 * 4096,
        ] {
            let f = fewest(n, 255).unwrap();
            assert_eq!(f.iter().product::<usize>(), n, "{n}: {f:?}");
            assert!(f.iter().all(|&x| x <= 255), "{n}: {f:?}");
        }
    }

    #[test]
    fn order_moves_the_nearest_output_inside() {
        let dim = |extent, s_out| Dim {
            extent,
            s_in: 7,
            s_out,
            tw: 0,
        };
        let mut d = vec![dim(256, 1), dim(16, 256)];
        order_out(&mut d);
        assert_eq!(d, vec![dim(16, 256), dim(256, 1)]);
        let mut d = vec![dim(3, 900), dim(256, -1), dim(16, 256)];
        order_out(&mut d);
        assert_eq!(d, vec![dim(3, 900), dim(16, 256), dim(256, -1)]);
    }
}
