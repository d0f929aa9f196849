//! The typed parameters of one reduction dispatch, [`ReduceParams`], and
//! [`ReduceParams::encode`], the one place that puts them into the slots of the generic
//! parameter block (`kernel::launch::Params`, WGSL `struct Params` in
//! shaders/shared/params.wgsl) that shaders/reduce.wgsl reads them from.

use crate::dtype::DType;
use crate::kernel::launch::Params;

/// Parameters of one dispatch of the reduction kernels (rows, rows4, cols, cols4).
///
/// shaders/reduce.wgsl reads the family's own fields only through its accessor block,
/// which mirrors this struct: `end_unit()`, `outputs()`, `k_len()`, `rstride()`, `chunk()`,
/// `splits()`, `first_unit()`, `count()` and `col_blocks()`; the identity through
/// `identity()` / `identity4()` (scalar argument 0). The kept axes and the offset are the
/// generic slots (`P.shape`, `P.st0`, `P.offs.x`), which it reads directly.
#[derive(Debug, Clone, Copy)]
pub(super) struct ReduceParams<'a> {
    /// Kept axes (extent, stride), outermost first: M decoded into multi-indices.
    pub kept: &'a [(usize, usize)],
    /// Element offset of the problem's first element in the input buffer.
    pub offset: usize,
    /// Element at which the input's binding window starts (at most `offset`).
    pub window: usize,
    /// M: outputs of the problem (in cols4, columns, not groups of 4).
    pub outputs: usize,
    /// K: reduced elements per output.
    pub k_len: usize,
    /// Stride of the reduced axis, in elements.
    pub rstride: usize,
    /// Elements of K per split.
    pub chunk: usize,
    /// Splits of K per output (1: final results; more: partial results).
    pub splits: usize,
    /// The units of this dispatch: ids `first_unit..end_unit`.
    pub first_unit: usize,
    pub end_unit: usize,
    /// Divisor of mean, var and std (`count - ddof`).
    pub count: u32,
    /// cols and cols4: blocks of PER columns.
    pub col_blocks: usize,
    /// The identity of the combination, and the accumulator type it travels in.
    pub identity: f64,
    pub acc: DType,
}

impl ReduceParams<'_> {
    /// The generic parameter block. The slots, as shaders/reduce.wgsl's accessors read
    /// them: `end_unit()` P.n; `outputs()` P.aux.x; `k_len()` P.aux.y; `rstride()`,
    /// `chunk()`, `splits()`, `first_unit()` `P.st1[0].xyzw`; `count()`, `col_blocks()`
    /// `P.st1[1].xy` (the strides of input b, which these kernels do not use); the identity
    /// scalar 0 (`arg(0u)`); and the generic P.ndim, P.shape, P.st0 (kept axes) and
    /// P.offs.x (the offset within the window).
    pub(super) fn encode(&self) -> Params {
        let mut p = Params::new(self.end_unit as u32);
        p.ndim = self.kept.len() as u32;
        for (d, &(extent, stride)) in self.kept.iter().enumerate() {
            p.shape[d] = extent as u32;
            p.strides[0][d] = stride as u32;
        }
        p.aux = [self.outputs as u32, self.k_len as u32];
        p.offs = [
            (self.offset as u32).wrapping_sub(self.window as u32),
            0,
            0,
            0,
        ];
        p.strides[1][..6].copy_from_slice(&[
            self.rstride as u32,
            self.chunk as u32,
            self.splits as u32,
            self.first_unit as u32,
            self.count,
            self.col_blocks as u32,
        ]);
        let v = self.identity;
        match self.acc {
            DType::F64 => p.scalars(&[v]),
            DType::I32 => p.scalars(&[v as i32]),
            DType::U32 => p.scalars(&[v as u32]),
            DType::I64 => p.scalars(&[v as i64]),
            DType::U64 => p.scalars(&[v as u64]),
            _ => p.scalars(&[v as f32]),
        }
    }
}
