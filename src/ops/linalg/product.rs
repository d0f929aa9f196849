//! One batched product `C[z] = A[z] @ B[z]` as the kernels read it: each operand read in
//! place when one of its two matrix dimensions has stride 1 (row-major, or a transposed
//! view) and copied first otherwise, its batch strides broadcast to the output's batch
//! shape, and the dispatches that cover the output, for the tiled and the
//! cooperative-matrix kernels alike.

use crate::array::Array;
use crate::device::{Device, Work};
use crate::dtype::{DType, Element};
use crate::error::Result;
use crate::kernel::cache::Kernel;
use crate::kernel::launch::{Binding, MAX_GROUPS};
use crate::shape::collapse;

use super::params::MatmulParams;

/// One operand of a batched product as the kernel reads it.
pub(super) struct Operand<'a> {
    pub binding: Binding<'a>,
    pub offset: usize,
    /// The matrix is stored with its first dimension contiguous (a transposed view).
    pub trans: bool,
    /// Stride along the non-contiguous matrix dimension.
    pub ld: usize,
    /// Strides of the batch dimensions, broadcast to the output's batch shape.
    pub batch: Vec<isize>,
    /// Vec4 loads are safe: contiguous extent, `ld`, offset and batch strides multiples of 4.
    pub vec: bool,
}

/// How the kernel may read a matrix of `rows x cols` with strides `(sr, sc)`: `Some((trans,
/// ld))` when one dimension has stride 1 (or extent 1), preferring the layout that allows
/// vec4 loads.
fn layout_of(rows: usize, cols: usize, sr: usize, sc: usize) -> Option<(bool, usize)> {
    // Row-major: columns contiguous; the row stride matters only with several rows.
    let row_major = (cols == 1 || sc == 1).then_some((false, if rows == 1 { 0 } else { sr }));
    let col_major = (rows == 1 || sr == 1).then_some((true, if cols == 1 { 0 } else { sc }));
    let aligned = |(trans, ld): (bool, usize)| {
        let ext = if trans { rows } else { cols };
        ext.is_multiple_of(4) && ld.is_multiple_of(4)
    };
    match (row_major, col_major) {
        (Some(r), Some(c)) if !aligned(r) && aligned(c) => Some(c),
        (Some(r), _) => Some(r),
        (None, c) => c,
    }
}

/// `x` (at least 2-D), copied to contiguous memory when neither matrix dimension has
/// stride 1 or a stride is negative.
pub(super) fn prepare<T: Element>(x: &Array<T>) -> Result<Array<T>> {
    let n = x.ndim();
    let (r, c) = (x.shape[n - 2], x.shape[n - 1]);
    let (sr, sc) = (x.strides[n - 2] as usize, x.strides[n - 1] as usize);
    if x.is_forwards() && layout_of(r, c, sr, sc).is_some() {
        Ok(x.clone())
    } else {
        x.contiguous()
    }
}

/// `x` (prepared) as an operand over the output's batch shape `batch`.
pub(super) fn operand<'a, T: Element>(x: &'a Array<T>, batch: &[usize]) -> Operand<'a> {
    let n = x.ndim();
    let (r, c) = (x.shape[n - 2], x.shape[n - 1]);
    let (sr, sc) = (x.strides[n - 2] as usize, x.strides[n - 1] as usize);
    let (trans, ld) = layout_of(r, c, sr, sc).expect("prepare made the operand readable");
    // Batch strides broadcast to the output's batch shape (0 along broadcast dimensions).
    let lead = batch.len() - (n - 2);
    let mut strides = vec![0; batch.len()];
    for d in 0..n - 2 {
        if x.shape[d] != 1 {
            strides[lead + d] = x.strides[d];
        }
    }
    let ext = if trans { r } else { c };
    let vec = ext.is_multiple_of(4)
        && ld.is_multiple_of(4)
        && x.offset.is_multiple_of(4)
        && strides.iter().all(|s| s % 4 == 0);
    Operand {
        binding: x.binding(),
        offset: x.offset,
        trans,
        ld,
        batch: strides,
        vec,
    }
}

/// A product ready to launch: operands, sizes, batch layout.
pub(super) struct Product<'a> {
    pub a: Operand<'a>,
    pub b: Operand<'a>,
    pub m: usize,
    pub n: usize,
    pub k: usize,
    /// Batch shape (before collapsing; the operands' `batch` strides run along it).
    pub batch_shape: Vec<usize>,
    pub batches: usize,
}

impl Product<'_> {
    /// The batch shape with unit and mergeable dimensions collapsed, and A's and B's
    /// strides along it.
    pub(super) fn collapsed(&self) -> (Vec<usize>, Vec<Vec<isize>>) {
        collapse(&self.batch_shape, &[&self.a.batch, &self.b.batch])
    }

    /// The parameters of the first dispatch, over the collapsed batch layout.
    fn params<'s>(&self, shape: &'s [usize], strides: &'s [Vec<isize>]) -> MatmulParams<'s> {
        MatmulParams {
            batches: self.batches as u32,
            batch_shape: shape,
            batch_strides: strides,
            offset_a: self.a.offset as u32,
            offset_b: self.b.offset as u32,
            m: self.m as u32,
            n: self.n as u32,
            k: self.k as u32,
            lda: self.a.ld as u32,
            ldb: self.b.ld as u32,
            first_tile_m: 0,
            first_tile_n: 0,
            first_batch: 0,
        }
    }

    /// Prints this product's path to stderr where the device's `linalg_trace` option is on
    /// (`GPUARRAY_LINALG_TRACE`): sizes, each operand's layout (`n` row-major, `t`
    /// transposed), element offset, leading dimension and vec4 flag, then `path`.
    pub(super) fn trace(&self, dev: &Device, dtype: DType, path: impl FnOnce() -> String) {
        if !dev.options().diagnostics.linalg_trace {
            return;
        }
        let op = |x: &Operand<'_>| {
            let t = if x.trans { 't' } else { 'n' };
            format!(
                "{t}@{}/ld{}{}",
                x.offset,
                x.ld,
                if x.vec { "/v4" } else { "" }
            )
        };
        eprintln!(
            "gpuarray linalg: {dtype} {}x{}x{} b{} A {} B {}: {}",
            self.m,
            self.n,
            self.k,
            self.batches,
            op(&self.a),
            op(&self.b),
            path()
        );
    }

    pub(super) fn fmas(&self) -> f64 {
        self.m as f64 * self.n as f64 * self.k as f64 * self.batches as f64
    }
}

/// Records the dispatches of one product into `out` with the given kernel and tiles,
/// splitting grids beyond [`MAX_GROUPS`] workgroups per dimension.
pub(super) fn dispatch(
    dev: &Device,
    kernel: &Kernel,
    prod: &Product<'_>,
    out: Binding<'_>,
    (bm, bn): (u32, u32),
) -> Result<()> {
    let (shape, strides) = prod.collapsed();
    let base = prod.params(&shape, &strides);
    let gx = prod.n.div_ceil(bn as usize);
    let gy = prod.m.div_ceil(bm as usize);
    let gz = prod.batches;
    let step = MAX_GROUPS as usize;
    for z in (0..gz).step_by(step) {
        for y in (0..gy).step_by(step) {
            for x in (0..gx).step_by(step) {
                let p = MatmulParams {
                    first_tile_m: y as u32,
                    first_tile_n: x as u32,
                    first_batch: z as u32,
                    ..base
                };
                let grid = [
                    (gx - x).min(step) as u32,
                    (gy - y).min(step) as u32,
                    (gz - z).min(step) as u32,
                ];
                dev.launch(
                    kernel,
                    &p.encode(),
                    &[prod.a.binding, prod.b.binding],
                    out,
                    Work::Groups(grid),
                )?;
            }
        }
    }
    Ok(())
}
