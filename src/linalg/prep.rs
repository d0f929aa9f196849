//! What the public functions share: the working copies (contiguous stacks the kernels
//! change in place), the right-hand sides of solves (NumPy 2's rules, batch dimensions
//! broadcast) and the read-back of a status word.

use super::stack::{square, Stack};
use crate::array::Array;
use crate::dtype::{Element, Float};
use crate::error::{Error, Result};
use crate::shape::{broadcast_shapes, contiguous_strides};

/// A new contiguous copy of `a` (broadcast to `shape` first where given), seen as the
/// 3-D stack `[count, rows, cols]` of its last two dimensions.
pub(crate) fn work<T: Float>(a: &Array<T>, shape: Option<&[usize]>) -> Result<Array<T>> {
    let c = match shape {
        Some(s) if s != a.shape() => a.broadcast_to(s.to_vec())?.copy()?,
        _ => a.copy()?,
    };
    let nd = c.ndim();
    let s = c.shape();
    let dims = vec![s[..nd - 2].iter().product(), s[nd - 2], s[nd - 1]];
    let strides = contiguous_strides(&dims);
    Ok(c.view(dims, strides, 0))
}

/// `v` (contiguous) seen with shape `shape`.
pub(crate) fn shaped<T: Element>(v: &Array<T>, shape: Vec<usize>) -> Array<T> {
    let strides = contiguous_strides(&shape);
    v.view(shape, strides, v.offset)
}

/// The operands of a solve with square matrices `a` (`[..., n, n]`) and right-hand sides
/// `b`: NumPy 2's rule (`b` is one vector when 1-D, else a stack of `n x k` matrices),
/// batch dimensions broadcast.
pub(crate) struct Rhs {
    /// The square stack's description (of `a`, before broadcasting).
    pub a: Stack,
    /// The broadcast batch shape.
    pub batch: Vec<usize>,
    /// Matrices in the broadcast stack.
    pub count: usize,
    /// Right-hand sides per matrix.
    pub k: usize,
    /// `b` was one vector.
    pub vector: bool,
}

impl Rhs {
    pub(crate) fn new<T: Float>(op: &'static str, a: &Array<T>, b: &Array<T>) -> Result<Rhs> {
        let st = square(op, a)?;
        a.dev.expect_same(op, &[&b.dev])?;
        let mismatch = || Error::ShapeMismatch {
            op,
            lhs: a.shape().to_vec(),
            rhs: b.shape().to_vec(),
        };
        let n = st.n;
        let (vector, bbatch, k) = match b.ndim() {
            0 => return Err(mismatch()),
            1 => (true, &[][..], 1),
            d => (false, &b.shape()[..d - 2], b.shape()[d - 1]),
        };
        let rows = if vector {
            b.shape()[0]
        } else {
            b.shape()[b.ndim() - 2]
        };
        if rows != n {
            return Err(mismatch());
        }
        let batch = broadcast_shapes(op, &st.batch, bbatch).map_err(|_| mismatch())?;
        Ok(Rhs {
            count: batch.iter().product(),
            batch,
            a: st,
            k,
            vector,
        })
    }

    /// The broadcast shape of the square stack.
    pub(crate) fn a_shape(&self) -> Vec<usize> {
        let mut s = self.batch.clone();
        s.extend([self.a.n, self.a.n]);
        s
    }

    /// The broadcast shape of the right-hand sides as matrices.
    pub(crate) fn b_shape(&self) -> Vec<usize> {
        let mut s = self.batch.clone();
        s.extend([self.a.n, self.k]);
        s
    }

    /// The result's shape (NumPy's: the vectors' where `b` was one).
    pub(crate) fn out_shape(&self) -> Vec<usize> {
        let mut s = self.batch.clone();
        s.push(self.a.n);
        if !self.vector {
            s.push(self.k);
        }
        s
    }

    /// A working copy of the right-hand sides, `[count, n, k]`.
    pub(crate) fn work_b<T: Float>(&self, b: &Array<T>) -> Result<Array<T>> {
        let m = if self.vector {
            b.reshape([self.a.n, 1])?
        } else {
            b.clone()
        };
        work(&m, Some(&self.b_shape()))
    }

    /// Whether there is nothing to compute (an empty result).
    pub(crate) fn empty(&self) -> bool {
        self.count == 0 || self.a.n == 0 || self.k == 0
    }
}

/// The status word `st[at]` read back where the device checks (`Options::linalg_check`):
/// `Err(err(index))` when it names a matrix.
pub(crate) fn check(st: &Array<i32>, at: usize, err: impl FnOnce(usize) -> Error) -> Result<()> {
    if !st.dev.options().linalg_check {
        return Ok(());
    }
    let v = st.view(vec![1], vec![1], st.offset + at).to_vec()?[0];
    if v == i32::MAX {
        Ok(())
    } else {
        Err(err(v as usize))
    }
}
