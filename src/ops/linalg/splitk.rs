//! Split-K: a product whose K is long against few output tiles (256 x 256 x 65536, 32 x 32
//! x 2^20) would leave most of the GPU idle, one workgroup per output tile walking all of
//! K. It runs instead as a batch of S products over S slices of K (the batch dimension
//! steps along K through the operands' strides: no copy) on the tiled kernel, and the S
//! partial products are summed in order (a sum over the batch axis: the same bits every
//! run); the last K mod S columns, if any, are one more product added after.

use crate::array::Array;
use crate::device::Device;
use crate::dtype::{DType, Element};
use crate::error::Result;
use crate::shape::Axis;

use super::product::{Operand, Product};
use super::tiled;

/// Output tiles (64 x 64) below which K is split, and the workgroups the split aims at
/// (about four per H100 multiprocessor).
const FEW_TILES: usize = 256;
const TARGET_GROUPS: usize = 512;
/// The shortest slice of K.
const MIN_SLICE: usize = 256;

/// The slices of K for this product, or `None` where it is not split: one batch, f16 left
/// out (its partial products would be rounded to f16), the option on.
pub(super) fn slices<T: Element>(dev: &Device, prod: &Product<'_>) -> Option<usize> {
    if !dev.options().matmul_split_k || prod.batches != 1 || T::DTYPE == DType::F16 {
        return None;
    }
    let tiles = prod.m.div_ceil(64) * prod.n.div_ceil(64);
    if tiles >= FEW_TILES {
        return None;
    }
    let s = (TARGET_GROUPS / tiles).min(prod.k / MIN_SLICE);
    (s >= 2).then_some(s)
}

/// `x`'s operand moved `k0` columns (A) or rows (B) along K, with `stride` as the batch
/// stride that steps from one slice to the next.
fn along_k<'a>(x: &Operand<'a>, is_a: bool, k0: usize, slice: usize) -> Operand<'a> {
    // A's element (m, k) lies at k * ld + m when transposed, else m * ld + k; B's (k, n) at
    // n * ld + k when transposed, else k * ld + n.
    let step = if x.trans == is_a { x.ld } else { 1 };
    let batch = vec![slice * step];
    Operand {
        binding: x.binding,
        offset: x.offset + k0 * step,
        trans: x.trans,
        ld: x.ld,
        vec: x.vec && batch[0].is_multiple_of(4) && (k0 * step).is_multiple_of(4),
        batch,
    }
}

/// The product in `s` slices of K, as a new `[M, N]` array reshaped to `shape`.
pub(super) fn run<T: Element>(
    dev: &Device,
    prod: &Product<'_>,
    s: usize,
    shape: &[usize],
) -> Result<Array<T>> {
    // Slices of a multiple of 4 columns keep vec4 loads.
    let slice = (prod.k / s) & !3;
    let main = Product {
        a: along_k(&prod.a, true, 0, slice),
        b: along_k(&prod.b, false, 0, slice),
        m: prod.m,
        n: prod.n,
        k: slice,
        batch_shape: vec![s],
        batches: s,
    };
    let parts = Array::<T>::alloc(dev, "matmul", vec![s, prod.m, prod.n])?;
    let tiles = tiled::choose(dev, &main, &parts)?;
    tiled::run_tiled(dev, &main, &parts, tiles)?;
    let mut c = parts.sum_axis(Axis(0))?;
    let done = s * slice;
    if done < prod.k {
        let tail = Product {
            a: along_k(&prod.a, true, done, 0),
            b: along_k(&prod.b, false, done, 0),
            k: prod.k - done,
            batch_shape: vec![1],
            batches: 1,
            ..main
        };
        let rest = Array::<T>::alloc(dev, "matmul", vec![prod.m, prod.n])?;
        let tiles = tiled::choose(dev, &tail, &rest)?;
        tiled::run_tiled(dev, &tail, &rest, tiles)?;
        c = c.add(&rest)?;
    }
    c.reshape(shape)
}
