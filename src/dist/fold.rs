//! The host fold of the reductions across ranks: the ranks' parts of one segment combined
//! elementwise in rank order, in the dtype's own arithmetic, written over this rank's own
//! part in place (no copy of the result). Blocked: each block of every part is read once
//! into a small accumulator that stays in the L1 cache, so the fold is one pass over its
//! inputs and one write of the result, and its inner loops (one operator, two slices of
//! one type) vectorise.

use bytemuck::Pod;
use num_complex::Complex;

use crate::dtype::{f16, DType};
use crate::memory::staging::host_threads;

use super::reduce::ReduceOp;

/// Elements per block: 32 KiB of complex128, less of the others.
const BLOCK: usize = 2048;

/// The parts of `dst.len() / size_of::<T>()` elements in rank order, `dst` (this rank's
/// own) at place `me` and `others` around it, combined by `f` into `dst`. Parts need no
/// alignment (unaligned ones are copied a block at a time).
fn fold_typed<T: Pod>(dst: &mut [u8], me: usize, others: &[&[u8]], f: impl Fn(T, T) -> T) {
    let size = size_of::<T>();
    let n = dst.len() / size;
    let p = others.len() + 1;
    let mut acc = vec![T::zeroed(); BLOCK.min(n)];
    let mut tmp = vec![T::zeroed(); BLOCK.min(n)];
    for b0 in (0..n).step_by(BLOCK) {
        let m = BLOCK.min(n - b0);
        let bytes = b0 * size..(b0 + m) * size;
        let acc = &mut acc[..m];
        for k in 0..p {
            let src: &[u8] = if k == me {
                &dst[bytes.clone()]
            } else {
                &others[k - usize::from(k > me)][bytes.clone()]
            };
            if k == 0 {
                bytemuck::cast_slice_mut::<T, u8>(acc).copy_from_slice(src);
                continue;
            }
            let b: &[T] = match bytemuck::try_cast_slice(src) {
                Ok(b) => b,
                Err(_) => {
                    bytemuck::cast_slice_mut::<T, u8>(&mut tmp[..m]).copy_from_slice(src);
                    &tmp[..m]
                }
            };
            for (a, b) in acc.iter_mut().zip(b) {
                *a = f(*a, *b);
            }
        }
        dst[bytes].copy_from_slice(bytemuck::cast_slice(acc));
    }
}

macro_rules! fold_float {
    ($t:ty, $dst:expr, $me:expr, $others:expr, $op:expr) => {
        match $op {
            ReduceOp::Sum => fold_typed::<$t>($dst, $me, $others, |a, b| a + b),
            ReduceOp::Prod => fold_typed::<$t>($dst, $me, $others, |a, b| a * b),
            ReduceOp::Min => {
                fold_typed::<$t>(
                    $dst,
                    $me,
                    $others,
                    |a, b| {
                        if a.is_nan() || b >= a {
                            a
                        } else {
                            b
                        }
                    },
                )
            }
            ReduceOp::Max => {
                fold_typed::<$t>(
                    $dst,
                    $me,
                    $others,
                    |a, b| {
                        if a.is_nan() || b <= a {
                            a
                        } else {
                            b
                        }
                    },
                )
            }
        }
    };
}

macro_rules! fold_int {
    ($t:ty, $dst:expr, $me:expr, $others:expr, $op:expr) => {
        match $op {
            ReduceOp::Sum => fold_typed::<$t>($dst, $me, $others, |a, b| a.wrapping_add(b)),
            ReduceOp::Prod => fold_typed::<$t>($dst, $me, $others, |a, b| a.wrapping_mul(b)),
            ReduceOp::Min => fold_typed::<$t>($dst, $me, $others, |a, b| a.min(b)),
            ReduceOp::Max => fold_typed::<$t>($dst, $me, $others, |a, b| a.max(b)),
        }
    };
}

macro_rules! fold_complex {
    ($t:ty, $dst:expr, $me:expr, $others:expr, $op:expr) => {
        match $op {
            ReduceOp::Prod => fold_typed::<Complex<$t>>($dst, $me, $others, |a, b| a * b),
            _ => fold_typed::<Complex<$t>>($dst, $me, $others, |a, b| a + b),
        }
    };
}

fn fold_f16(dst: &mut [u8], me: usize, others: &[&[u8]], op: ReduceOp) {
    let f = |g: fn(f32, f32) -> f32| {
        move |a: u16, b: u16| -> u16 {
            let (x, y) = (f16::from_bits(a), f16::from_bits(b));
            f16::from_f32(g(x.to_f32(), y.to_f32())).to_bits()
        }
    };
    match op {
        ReduceOp::Sum => fold_typed::<u16>(dst, me, others, f(|a, b| a + b)),
        ReduceOp::Prod => fold_typed::<u16>(dst, me, others, f(|a, b| a * b)),
        ReduceOp::Min => fold_typed::<u16>(dst, me, others, |a, b| {
            let (x, y) = (f16::from_bits(a), f16::from_bits(b));
            if x.is_nan() || y >= x {
                a
            } else {
                b
            }
        }),
        ReduceOp::Max => fold_typed::<u16>(dst, me, others, |a, b| {
            let (x, y) = (f16::from_bits(a), f16::from_bits(b));
            if x.is_nan() || y <= x {
                a
            } else {
                b
            }
        }),
    }
}

/// The parts (the bytes of equal numbers of `d` elements) in rank order, `dst` at place
/// `me` and `others` around it, combined into `dst`: `((x0 op x1) op x2) ...`. `op`
/// takes `d` ([`ReduceOp::takes`]).
pub(crate) fn fold_into(d: DType, op: ReduceOp, dst: &mut [u8], me: usize, others: &[&[u8]]) {
    debug_assert!(others.iter().all(|o| o.len() == dst.len()) && me <= others.len());
    if others.is_empty() || dst.is_empty() {
        return;
    }
    match d {
        DType::F16 => fold_f16(dst, me, others, op),
        DType::F32 => fold_float!(f32, dst, me, others, op),
        DType::F64 => fold_float!(f64, dst, me, others, op),
        DType::I32 => fold_int!(i32, dst, me, others, op),
        DType::U32 | DType::Bool => fold_int!(u32, dst, me, others, op),
        DType::I64 => fold_int!(i64, dst, me, others, op),
        DType::U64 => fold_int!(u64, dst, me, others, op),
        DType::U8 => fold_int!(u8, dst, me, others, op),
        DType::I8 => fold_int!(i8, dst, me, others, op),
        DType::U16 => fold_int!(u16, dst, me, others, op),
        DType::I16 => fold_int!(i16, dst, me, others, op),
        DType::Complex64 => fold_complex!(f32, dst, me, others, op),
        DType::Complex128 => fold_complex!(f64, dst, me, others, op),
        #[allow(unreachable_patterns)]
        _ => {}
    }
}

/// [`fold_into`] split over the host's threads ([`host_threads`]) for large segments: each
/// thread combines a run of whole elements, so the bits are those of one thread.
pub(crate) fn fold_into_par(d: DType, op: ReduceOp, dst: &mut [u8], me: usize, others: &[&[u8]]) {
    let size = d.size();
    let threads = host_threads(dst.len());
    if threads < 2 || others.is_empty() {
        return fold_into(d, op, dst, me, others);
    }
    let run = (dst.len() / size).div_ceil(threads).div_ceil(BLOCK) * BLOCK * size;
    std::thread::scope(|s| {
        for (i, piece) in dst.chunks_mut(run).enumerate() {
            let at = i * run;
            let parts: Vec<&[u8]> = others.iter().map(|o| &o[at..at + piece.len()]).collect();
            s.spawn(move || fold_into(d, op, piece, me, &parts));
        }
    });
}

/// The parts combined in order into a new buffer ([`fold_into`] with the first part's copy).
pub(crate) fn fold(d: DType, op: ReduceOp, parts: &[&[u8]]) -> Vec<u8> {
    let mut out = parts[0].to_vec();
    fold_into(d, op, &mut out, 0, &parts[1..]);
    out
}

#[cfg(test)]
mod tests {
    use super::{fold, fold_into, ReduceOp};
    use crate::dtype::{f16, DType};

    fn bytes<T: bytemuck::Pod>(v: &[T]) -> Vec<u8> {
        bytemuck::cast_slice(v).to_vec()
    }

    #[test]
    fn folds_in_rank_order_in_the_dtypes_arithmetic() {
        // f32: (1e8 + 1) + -1e8 is 0 in rank order (1e8 + 1 rounds to 1e8), not 1.
        let parts = [bytes(&[1e8f32]), bytes(&[1.0f32]), bytes(&[-1e8f32])];
        let refs: Vec<&[u8]> = parts.iter().map(|p| p.as_slice()).collect();
        assert_eq!(fold(DType::F32, ReduceOp::Sum, &refs), bytes(&[0.0f32]));
        // f16 rounds each step: 2048 + 1 is 2048 in f16.
        let h = |x: f32| f16::from_f32(x).to_bits();
        let parts = [bytes(&[h(2048.0)]), bytes(&[h(1.0)]), bytes(&[h(1.0)])];
        let refs: Vec<&[u8]> = parts.iter().map(|p| p.as_slice()).collect();
        assert_eq!(fold(DType::F16, ReduceOp::Sum, &refs), bytes(&[h(2048.0)]));
        // i8 wraps; min and max of NaN are NaN in either place.
        let parts = [bytes(&[100i8]), bytes(&[100i8])];
        let refs: Vec<&[u8]> = parts.iter().map(|p| p.as_slice()).collect();
        assert_eq!(fold(DType::I8, ReduceOp::Sum, &refs), bytes(&[-56i8]));
        for (a, b) in [(f64::NAN, 1.0), (1.0, f64::NAN)] {
            let parts = [bytes(&[a]), bytes(&[b])];
            let refs: Vec<&[u8]> = parts.iter().map(|p| p.as_slice()).collect();
            for op in [ReduceOp::Min, ReduceOp::Max] {
                let r: Vec<f64> = bytemuck::pod_collect_to_vec(&fold(DType::F64, op, &refs));
                assert!(r[0].is_nan(), "{op:?} of {a} and {b}");
            }
        }
        // bool (u32 words): min is and, max is or; complex products.
        let parts = [bytes(&[1u32, 0]), bytes(&[1u32, 1])];
        let refs: Vec<&[u8]> = parts.iter().map(|p| p.as_slice()).collect();
        assert_eq!(fold(DType::Bool, ReduceOp::Min, &refs), bytes(&[1u32, 0]));
        assert_eq!(fold(DType::Bool, ReduceOp::Max, &refs), bytes(&[1u32, 1]));
        let parts = [bytes(&[0.0f32, 1.0]), bytes(&[0.0f32, 1.0])];
        let refs: Vec<&[u8]> = parts.iter().map(|p| p.as_slice()).collect();
        assert_eq!(
            fold(DType::Complex64, ReduceOp::Prod, &refs),
            bytes(&[-1.0f32, 0.0])
        );
        assert!(!ReduceOp::Max.takes(DType::Complex64) && !ReduceOp::Sum.takes(DType::Bool));
    }

    /// In place at every rank's place, past several blocks, from unaligned parts: the same
    /// bits as the element-by-element rank-order fold in f64-free f32 arithmetic.
    #[test]
    fn folds_in_place_at_every_place_and_alignment() {
        let n = 3 * super::BLOCK + 7;
        let p = 4;
        let mut s = 12345u64;
        let mut rnd = || {
            s = s
                .wrapping_mul(6364136223846793005)
                .wrapping_add(1442695040888963407);
            ((s >> 40) as f32 / (1u64 << 24) as f32 - 0.5) * 1e4
        };
        let parts: Vec<Vec<f32>> = (0..p).map(|_| (0..n).map(|_| rnd()).collect()).collect();
        let want: Vec<f32> = (0..n)
            .map(|i| (1..p).fold(parts[0][i], |a, k| a + parts[k][i]))
            .collect();
        for me in 0..p {
            for shift in [0, 1, 3] {
                // Every part at byte `shift` of a longer buffer: unaligned for f32 unless 0.
                let held: Vec<Vec<u8>> = parts
                    .iter()
                    .map(|v| [vec![0u8; shift], bytes(v)].concat())
                    .collect();
                let others: Vec<&[u8]> = (0..p)
                    .filter(|&k| k != me)
                    .map(|k| &held[k][shift..])
                    .collect();
                let mut mine = held[me].clone();
                fold_into(DType::F32, ReduceOp::Sum, &mut mine[shift..], me, &others);
                let got: Vec<f32> = bytemuck::pod_collect_to_vec(&mine[shift..]);
                assert!(
                    got.iter()
                        .zip(&want)
                        .all(|(a, b)| a.to_bits() == b.to_bits()),
                    "rank {me}, shift {shift}"
                );
            }
        }
    }
}
