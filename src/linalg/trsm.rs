//! One step of a blocked triangular solve with few right-hand sides: host side of
//! shaders/trsm.wgsl, used by [`super::blocked::trsm`] for at most [`MAX_RHS`] columns.
//!
//! The blocked solve's step at a diagonal block is its solution (the block's inverse times
//! its rows of `b`) and the update of the rows after it (before it, backwards); by products
//! those are four dispatches (two products, two copies), here one: every workgroup remakes
//! the block's small solution in workgroup memory (64 x at most 8 values) and updates its
//! share of the rows, so a solve of one vector of order 4096 takes 64 dispatches a
//! triangle rather than 256.

use crate::array::Array;
use crate::device::{Device, Work};
use crate::dtype::{DType, Float};
use crate::error::Result;
use crate::kernel::cache::Key;
use crate::kernel::launch::{Params, MAX_GROUPS};
use crate::kernel::source::Spec;

const SRC: &str = include_str!("../../shaders/trsm.wgsl");
/// Invocations per workgroup.
const WG: u32 = 256;
/// Most right-hand sides: the block's solution, 64 rows of them, fills the kernel's 512
/// elements of workgroup memory.
pub(crate) const MAX_RHS: usize = 8;

/// One step: block `blk` (rows [k, k + wdt)) of `blocks` per matrix, rows [r0, r0 + nr)
/// updated, of `count` systems of order `n` with `nrhs` right-hand sides.
#[derive(Debug, Clone, Copy)]
pub(crate) struct Step {
    pub n: usize,
    pub nrhs: usize,
    pub count: usize,
    pub k: usize,
    pub wdt: usize,
    pub blk: usize,
    /// Rows of an inverse's slot.
    pub slot: usize,
    pub blocks: usize,
    pub r0: usize,
    pub nr: usize,
    /// Read the triangular matrices transposed.
    pub trans: bool,
}

impl Step {
    fn encode(&self) -> Params {
        let mut p = Params::new(0);
        p.shape = [
            self.n,
            self.nrhs,
            self.k,
            self.wdt,
            self.slot,
            self.blk,
            self.blocks,
            0,
        ]
        .map(|v| v as u32);
        p.strides[0][0] = self.count as u32;
        p.strides[0][1] = if self.trans { 4 } else { 0 };
        p.strides[0][2] = self.r0 as u32;
        p.strides[0][3] = self.nr as u32;
        p
    }
}

fn spec(d: DType) -> Spec {
    Spec::new("trsm", SRC)
        .alias("T", d.wgsl())
        .scalar(d)
        .writable_last_input()
}

/// Every variant, for the shader validation test.
#[cfg(test)]
pub(crate) fn all_specs() -> Vec<Spec> {
    vec![spec(DType::F32), spec(DType::F64)]
}

/// A new array for the solution of `count` systems of order `n` with `nrhs` right-hand
/// sides, in a pooled buffer of its own (past the slabs' largest slot).
pub(crate) fn solution<T: Float>(
    dev: &Device,
    count: usize,
    n: usize,
    nrhs: usize,
) -> Result<Array<T>> {
    let len = count * n * nrhs;
    let x = Array::<T>::alloc(dev, "linalg", vec![len.max(PAST_SLABS / T::DTYPE.size())])?;
    Ok(x.view(vec![len], vec![1], 0))
}

/// Bytes past the slabs' largest slot (`memory::slab::SLAB_MAX`, 4 KiB).
const PAST_SLABS: usize = (4 << 10) + 256;

/// Records step `s`: `x`'s rows of the block become its solution, `b`'s rows [r0, r0 +
/// nr) lose the block's contribution. `a` [count, n, n], `inv` [count, blocks, NB, NB],
/// `b` and `x` [count, n, nrhs], all contiguous; `x` in a buffer of its own ([`solution`]),
/// never one that `a` or `inv` share (it is bound read-write beside them).
pub(crate) fn step<T: Float>(
    dev: &Device,
    s: &Step,
    a: &Array<T>,
    inv: &Array<T>,
    b: &Array<T>,
    x: &Array<T>,
) -> Result<()> {
    debug_assert!(s.nrhs <= MAX_RHS && s.wdt <= super::blocked::NB);
    let key = Key {
        family: "trsm",
        entry: "trsm_step",
        variant: format!("{:?}", T::DTYPE),
        inputs: 3,
        wg: WG,
        ndim: 0,
        per: 0,
    };
    let k = dev.kernel(key, || spec(T::DTYPE))?;
    let groups = (s.nr * s.nrhs).div_ceil(WG as usize).max(1);
    let y = s.count.min(MAX_GROUPS as usize).max(1);
    let z = s.count.div_ceil(y);
    dev.launch(
        &k,
        &s.encode(),
        &[a.binding(), inv.binding(), x.binding()],
        b.binding(),
        Work::Groups([groups as u32, y as u32, z as u32]),
    )
}
