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

use super::coop;
use super::product::{Operand, Product};
use super::tiled;

/// Output tiles (64 x 64) below which K is split, and the workgroups the split aims at
/// (about four per H100 multiprocessor).
const FEW_TILES: usize = 256;
const TARGET_GROUPS: usize = 512;
/// The shortest slice of K.
const MIN_SLICE: usize = 256;

/// The slices of K for this product, or `None` where it is not split: one batch, f16 only
/// on the cooperative-matrix kernel, the option on.
pub(super) fn slices<T: Element>(dev: &Device, prod: &Product<'_>) -> Option<usize> {
    if !dev.options().tuning.matmul_split_k
        || prod.batches != 1
        || (T::DTYPE == DType::F16 && !coop::eligible(dev))
    {
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
    let batch = vec![(slice * step) as isize];
    Operand {
        binding: x.binding,
        offset: x.offset + k0 * step,
        trans: x.trans,
        ld: x.ld,
        vec: x.vec && (slice * step).is_multiple_of(4) && (k0 * step).is_multiple_of(4),
        batch,
    }
}

/// The product in `s` slices of K, as a new `[M, N]` array reshaped to `shape`; `None`
/// (nothing recorded) where an f16 product finds no cooperative-matrix kernel.
pub(super) fn run<T: Element>(
    dev: &Device,
    prod: &Product<'_>,
    s: usize,
    shape: &[usize],
) -> Result<Option<Array<T>>> {
    let f16 = T::DTYPE == DType::F16;
    // Slices of a multiple of 4 columns keep vec4 loads (32, one step of the
    // cooperative-matrix kernel, for f16).
    let slice = (prod.k / s) & if f16 { !31 } else { !3 };
    let main = Product {
        a: along_k(&prod.a, true, 0, slice),
        b: along_k(&prod.b, false, 0, slice),
        m: prod.m,
        n: prod.n,
        k: slice,
        batch_shape: vec![s],
        batches: s,
    };
    let done = s * slice;
    prod.trace(dev, T::DTYPE, || {
        format!(
            "split-K {s} slices of {slice}, tail {}, on {}",
            prod.k - done,
            if f16 { "coop (f32 out)" } else { "tiled" }
        )
    });
    let tail = (done < prod.k).then(|| Product {
        a: along_k(&prod.a, true, done, 0),
        b: along_k(&prod.b, false, done, 0),
        k: prod.k - done,
        batch_shape: vec![1],
        batches: 1,
        ..main
    });
    let c = if f16 {
        match partial_sums::<f32>(dev, &main, tail.as_ref(), true)? {
            Some(c) => c.cast::<T>()?,
            None => return Ok(None),
        }
    } else {
        partial_sums::<T>(dev, &main, tail.as_ref(), false)?.expect("the tiled kernel records")
    };
    c.reshape(shape).map(Some)
}

/// The sum over the slices of `main` (a batch of partial products of type `P`) and `tail`,
/// on the tiled kernel, or for f32 sums of f16 operands on the cooperative-matrix kernel;
/// `None` where that kernel is unavailable.
fn partial_sums<P: Element>(
    dev: &Device,
    main: &Product<'_>,
    tail: Option<&Product<'_>>,
    coop: bool,
) -> Result<Option<Array<P>>> {
    let record = |p: &Product<'_>, out: &Array<P>| -> Result<bool> {
        if coop {
            return coop::run(dev, p, out);
        }
        tiled::record(dev, p, out)?;
        Ok(true)
    };
    let parts = Array::<P>::alloc(dev, "matmul", vec![main.batches, main.m, main.n])?;
    if !record(main, &parts)? {
        return Ok(None);
    }
    let mut c = parts.sum_axis(Axis(0))?;
    if let Some(t) = tail {
        let rest = Array::<P>::alloc(dev, "matmul", vec![t.m, t.n])?;
        if !record(t, &rest)? {
            return Ok(None);
        }
        c = c.add(&rest)?;
    }
    Ok(Some(c))
}
