//! Stacks of matrices: the `[..., M, N]` convention every function of the module follows,
//! checked once here.

use crate::dtype::accepts;
use crate::{Array, Element, Error, Result};

/// A stack of `count` matrices of `m` rows and `n` columns, with batch shape `batch`
/// (`count` is its product; 1 for a single matrix).
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct Stack {
    pub batch: Vec<usize>,
    pub count: usize,
    pub m: usize,
    pub n: usize,
}

impl Stack {
    /// The shape of a stack of `rows` x `cols` matrices with this stack's batch shape.
    pub fn shape(&self, rows: usize, cols: usize) -> Vec<usize> {
        let mut s = self.batch.clone();
        s.extend([rows, cols]);
        s
    }

    /// The shape of one value (or vector of `len`, when `Some`) per matrix.
    pub fn per_matrix(&self, len: Option<usize>) -> Vec<usize> {
        let mut s = self.batch.clone();
        s.extend(len);
        s
    }
}

/// The stack `a` is, after the dtype gate of the module (f32 and f64): an error when `a`
/// has fewer than two dimensions.
pub(crate) fn stack<T: Element>(op: &'static str, a: &Array<T>) -> Result<Stack> {
    a.device().accept(op, T::DTYPE, accepts::factor)?;
    let nd = a.ndim();
    if nd < 2 {
        return Err(Error::InvalidArgument {
            op,
            reason: "needs an array of at least 2 dimensions (a stack of matrices)",
        });
    }
    let s = a.shape();
    let batch = s[..nd - 2].to_vec();
    Ok(Stack {
        count: batch.iter().product(),
        batch,
        m: s[nd - 2],
        n: s[nd - 1],
    })
}

/// [`stack`] of square matrices: [`Error::NotSquare`] otherwise.
pub(crate) fn square<T: Element>(op: &'static str, a: &Array<T>) -> Result<Stack> {
    let st = stack(op, a)?;
    if st.m != st.n {
        return Err(Error::NotSquare {
            op,
            shape: a.shape().to_vec(),
        });
    }
    Ok(st)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn shapes_of_a_stack() {
        let st = Stack {
            batch: vec![2, 3],
            count: 6,
            m: 4,
            n: 5,
        };
        assert_eq!(st.shape(5, 1), vec![2, 3, 5, 1]);
        assert_eq!(st.per_matrix(None), vec![2, 3]);
        assert_eq!(st.per_matrix(Some(4)), vec![2, 3, 4]);
    }
}
