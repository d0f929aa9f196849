//! Every family generic over [`Element`] refuses a dtype it does not list: the test-only
//! [`DType::Opaque8`] (8 bytes, storage only, as complex64 will be) is stored, moved and
//! viewed, and refused with `Unsupported` by everything that computes.
//!
//! What takes it: creation by clearing (`zeros`), transfers (`from_slice`, `to_vec`) and
//! views (`reshape`, `transpose`, `broadcast_to`, `flip`, `diagonal`), which touch bytes only.
//! What refuses it at run time (this test): elementwise arithmetic, math and comparisons,
//! casts, `where_`, `full` / `fill` (the creation kernels write real dtypes), reductions,
//! scans and compaction, indexing (take, gather, scatter, put, masks), the manip copies
//! (concatenate, stack, roll, tile, repeat, contiguous: their kernels
//! index one real element per slot today; an 8-byte element copy would be right for
//! complex too, and the complex issue may list it there, as the f64 path), products
//! (einsum and multi_dot too),
//! random permutations, and user kernels (ElementwiseKernel, ReductionKernel, fuse).
//! What refuses it at compile time (`T: Real` or `T: Float`, so not in this test): the
//! ordered comparisons (`lt`, `le`, `gt`, `ge`), `maximum`, `minimum`, `clip`, sort,
//! argsort, top_k, partition, searchsorted, unique, isin, quantiles, histograms, `ones`,
//! `arange`, `indices`, the NaN-reductions, convolutions and the random distributions,
//! and `gpuarray::linalg`'s factorizations and solvers (`T: Float`; f16 refused at run
//! time by `accepts::factor`, tests/linalg_factor).

use super::opaque::Opaque8;
use super::DType;
use crate::{Array, Device, ElementwiseKernel, Error, ReductionKernel, Result};

#[track_caller]
fn refused<U: std::fmt::Debug>(what: &str, r: Result<U>) {
    match r {
        Err(Error::Unsupported {
            dtype: DType::Opaque8,
            op,
            ..
        }) => assert!(!op.is_empty(), "{what}"),
        other => panic!("{what} of an opaque8 array: expected Unsupported, got {other:?}"),
    }
}

fn values() -> Vec<Opaque8> {
    (0..6u32).map(|i| Opaque8([i, 100 + i])).collect()
}

#[test]
fn storage_takes_a_dtype_that_is_not_real() {
    let dev = Device::new().expect("a device");
    let v = values();
    let x = dev.from_slice(&v, [2, 3]).expect("upload");
    assert_eq!(x.to_vec().expect("download"), v);
    let z = dev.zeros::<Opaque8>([3]).expect("zeros");
    assert_eq!(z.to_vec().expect("download"), vec![Opaque8([0, 0]); 3]);
    let t = x.t();
    assert_eq!(t.shape(), &[3, 2]);
    let r = x.reshape([6]).expect("reshape").to_vec().expect("download");
    assert_eq!(r, v);
    let b = dev
        .from_slice(&v[..3], [3])
        .expect("upload")
        .broadcast_to([2, 3])
        .expect("broadcast");
    assert_eq!(b.shape(), &[2, 3]);
    // flip is a view (a negative stride).
    assert_eq!(x.flip(0).expect("flip").shape(), &[2, 3]);
    // diagonal is a view (a stride of a row plus one).
    assert_eq!(x.diagonal(0, 0, 1).expect("diagonal").shape(), &[2]);
}

#[test]
fn every_computing_family_refuses_a_dtype_that_is_not_real() {
    let dev = Device::new().expect("a device");
    let x: Array<Opaque8> = dev.from_slice(&values(), [2, 3]).expect("upload");
    let mask = dev.from_slice(&[true, false, true, false, true, false], [2, 3]);
    let mask = mask.expect("mask");
    let idx = dev.from_slice(&[1i32, 0], [2]).expect("indices");
    let one = Opaque8([1, 1]);
    // Creation kernels and fills.
    refused("full", dev.full([2], one));
    refused("fill", x.fill(one));
    // Elementwise arithmetic, comparisons, casts, where_.
    refused("add", x.add(&x));
    refused("mul", x.mul(&x));
    refused("add_scalar", x.add_scalar(one));
    refused("eq", x.eq(&x));
    refused("cast to f32", x.cast::<f32>());
    let f = dev.zeros::<f32>([2, 3]).expect("zeros");
    refused("cast from f32", f.cast::<Opaque8>());
    refused("where_", Array::where_(&mask, &x, &x));
    // Reductions.
    refused("sum", x.sum());
    // max, min, argmax, argmin and ptp take `T: Real`: refused at compile time.
    // Scans and compaction.
    refused("cumsum", x.cumsum(0));
    refused("cumprod", x.cumprod(1));
    refused("diff", x.diff(1, 0));
    refused("extract", x.extract(&mask));
    refused("nonzero", x.nonzero());
    refused("count_nonzero", x.count_nonzero());
    // Indexing.
    refused("take", x.take(&idx, 0));
    refused("gather", x.gather(&[Some(&idx)]));
    let flat = x.reshape([6]).expect("reshape");
    let two = dev.from_slice(&values()[..2], [2]).expect("upload");
    refused("put", flat.put(&idx, &two));
    let at = dev.zeros::<i32>([2, 3]).expect("zeros");
    refused("scatter_add", x.scatter_add(0, &at, &x));
    // Manip copies.
    refused("contiguous", x.t().contiguous());
    refused("concatenate", Array::concatenate(&[&x, &x], 0));
    refused("stack", Array::stack(&[&x, &x], 0));
    refused("roll", x.roll(1, Some(1)));
    refused("tile", x.tile(&[2]));
    refused("repeat", x.repeat(2, Some(0)));
    // Products.
    refused("matmul", x.matmul(&x.t()));
    refused("dot", x.dot(&x.t()));
    refused("trace", x.trace());
    refused("outer", x.outer(&x));
    refused("einsum", crate::linalg::einsum("ij,kj->ik", &[&x, &x]));
    refused("multi_dot", crate::linalg::multi_dot(&[&x, &x.t()]));
    // Random permutations.
    let mut rng = dev.default_rng(1);
    refused("permuted", rng.permuted(&x));
    // User kernels.
    let copy = ElementwiseKernel::new(&dev, "T x", "T y", "y = x;", "copy").expect("kernel");
    refused("ElementwiseKernel", copy.call::<Opaque8>(&[&x]));
    let sum = ReductionKernel::new(&dev, "T x", "T y", "x", "a + b", "y = a", "0", "s");
    refused(
        "ReductionKernel",
        sum.expect("kernel").call::<Opaque8, Opaque8>(&x),
    );
    let fused = crate::fuse(&dev, |[a, b]| a + b).expect("fuse");
    refused("fuse", fused.call::<Opaque8>(&[&x, &x]));
}
