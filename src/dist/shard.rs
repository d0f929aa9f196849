//! An array split along its first axis over the ranks: elementwise work is local, the
//! reductions combine over the ranks (in rank order, as [`Comm::allreduce`]), a product
//! with a replicated matrix is local, and `gather` joins the parts again.

use crate::array::Array;
use crate::dtype::{Element, Float, Real};
use crate::error::{Error, Result};

use super::agree::same_but;
use super::{Comm, ReduceOp};

/// An array of `shape()` whose rows `start()..start() + local().shape()[0]` live on this
/// rank (a part of the first axis per rank, in rank order; parts may differ in length,
/// 0 included). Made by [`Comm::shard`] (NumPy's `array_split` of one rank's array) or
/// [`ShardedArray::from_local`] (each rank's own rows). Operations that combine over the
/// ranks are collective: every rank calls them in the same order.
///
/// ```no_run
/// # let comm = gpuarray::dist::init()?;
/// let x = comm.device().arange::<f32>(0.0, 10.0, 1.0)?;
/// let s = comm.shard((comm.rank() == 0).then_some(&x), 0)?;
/// assert_eq!(s.shape(), vec![10]);
/// assert_eq!(s.sum()?.to_scalar()?, 45.0); // on every rank
/// let doubled = s.map(|a| a.mul_scalar(2.0))?; // local
/// assert_eq!(doubled.max()?.to_scalar()?, 18.0);
/// assert_eq!(doubled.argmax()?, 9);
/// # Ok::<(), gpuarray::Error>(())
/// ```
pub struct ShardedArray<'c, T: Element> {
    comm: &'c Comm,
    local: Array<T>,
    rows: usize,
    start: usize,
    parts: Vec<usize>,
}

impl<T: Element> std::fmt::Debug for ShardedArray<'_, T> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("ShardedArray")
            .field("shape", &self.shape())
            .field("start", &self.start)
            .field("parts", &self.parts)
            .finish()
    }
}

impl Comm {
    /// Rank `root`'s `x` split along axis 0 over the ranks ([`Comm::scatter`]).
    ///
    /// # Errors
    /// Those of [`Comm::scatter`].
    ///
    /// See [`ShardedArray`] for an example.
    pub fn shard<T: Element>(
        &self,
        x: Option<&Array<T>>,
        root: usize,
    ) -> Result<ShardedArray<'_, T>> {
        let local = self.scatter(x, 0, root)?;
        ShardedArray::from_local(self, local)
    }
}

impl<'c, T: Element> ShardedArray<'c, T> {
    /// The sharded array whose rows on this rank are `local` (collective: every rank
    /// passes its part; the shapes agree except along axis 0).
    ///
    /// # Errors
    /// [`Error::InvalidArgument`] for a 0-d part; [`Error::Mpi`] for
    /// shapes or dtypes that differ between ranks, or a timeout.
    ///
    /// ```no_run
    /// # let comm = gpuarray::dist::init()?;
    /// let mine = comm.device().full::<f64>([comm.rank() + 1, 2], 1.0)?;
    /// let s = gpuarray::dist::ShardedArray::from_local(&comm, mine)?;
    /// let n = comm.size();
    /// assert_eq!(s.shape(), vec![n * (n + 1) / 2, 2]);
    /// # Ok::<(), gpuarray::Error>(())
    /// ```
    pub fn from_local(comm: &'c Comm, local: Array<T>) -> Result<Self> {
        let op = "ShardedArray";
        let err = local.shape.is_empty().then_some(Error::InvalidArgument {
            op,
            reason: "a sharded array's part needs at least 1 dimension",
        });
        let shape = local.shape.clone();
        let table = comm.agree(op, T::DTYPE, Some(shape), 0, 0, 0, err, same_but(0))?;
        let parts: Vec<usize> = table.shapes.iter().map(|s| s[0]).collect();
        Ok(ShardedArray {
            comm,
            rows: parts.iter().sum(),
            start: parts[..comm.rank()].iter().sum(),
            parts,
            local,
        })
    }

    /// This rank's rows.
    pub fn local(&self) -> &Array<T> {
        &self.local
    }

    /// The shape of the whole array.
    pub fn shape(&self) -> Vec<usize> {
        let mut s = self.local.shape.clone();
        s[0] = self.rows;
        s
    }

    /// The first row of this rank's part in the whole array.
    pub fn start(&self) -> usize {
        self.start
    }

    /// The rows of every rank's part, in rank order.
    pub fn parts(&self) -> &[usize] {
        &self.parts
    }

    /// The communicator.
    pub fn comm(&self) -> &'c Comm {
        self.comm
    }

    /// `f` applied to this rank's part (elementwise work, no communication): the result
    /// keeps the rows of the part.
    ///
    /// # Errors
    /// `f`'s error; [`Error::InvalidArgument`] when its result has other rows.
    pub fn map<U: Element>(
        &self,
        f: impl FnOnce(&Array<T>) -> Result<Array<U>>,
    ) -> Result<ShardedArray<'c, U>> {
        let local = f(&self.local)?;
        if local.shape.first() != self.local.shape.first() {
            return Err(Error::InvalidArgument {
                op: "ShardedArray::map",
                reason: "the function must keep the part's rows (axis 0)",
            });
        }
        Ok(ShardedArray {
            comm: self.comm,
            local,
            rows: self.rows,
            start: self.start,
            parts: self.parts.clone(),
        })
    }

    /// The product of this row-sharded matrix with the matrix `b` every rank holds: the
    /// rows of the result are sharded as this array's (local products, no
    /// communication).
    ///
    /// # Errors
    /// Those of [`Array::matmul`].
    ///
    /// ```no_run
    /// # let comm = gpuarray::dist::init()?;
    /// let a = comm.device().ones::<f32>([5, 3])?;
    /// let s = comm.shard((comm.rank() == 0).then_some(&a), 0)?;
    /// let b = comm.device().ones::<f32>([3, 2])?;
    /// let c = s.matmul(&b)?.allgather()?;
    /// assert_eq!(c.to_vec()?, vec![3.0; 10]);
    /// # Ok::<(), gpuarray::Error>(())
    /// ```
    pub fn matmul(&self, b: &Array<T>) -> Result<ShardedArray<'c, T>> {
        self.map(|a| a.matmul(b))
    }

    /// The whole array on rank `root` (`Some` there).
    ///
    /// # Errors
    /// Those of [`Comm::gather`].
    pub fn gather(&self, root: usize) -> Result<Option<Array<T>>> {
        self.comm.gather(&self.local, 0, root)
    }

    /// The whole array on every rank.
    ///
    /// # Errors
    /// Those of [`Comm::allgather`].
    pub fn allgather(&self) -> Result<Array<T>> {
        self.comm.allgather(&self.local, 0)
    }

    /// The sum of every element, a 0-d array on every rank (bitwise the same): each
    /// rank's sum of its part, combined in rank order.
    ///
    /// # Errors
    /// Those of [`Array::sum`] and [`Comm::allreduce`].
    pub fn sum(&self) -> Result<Array<T>> {
        self.comm.allreduce(&self.local.sum()?, ReduceOp::Sum)
    }
}

impl<T: Real> ShardedArray<'_, T> {
    /// The largest element (NaN if any is NaN), a 0-d array on every rank.
    ///
    /// # Errors
    /// [`Error::InvalidArgument`] when the whole array is empty (on every rank); those of
    /// [`Comm::allgather`].
    pub fn max(&self) -> Result<Array<T>> {
        self.extremes()?.0.max()
    }

    /// Each non-empty part's largest element and its flat index in the whole array.
    fn extremes(&self) -> Result<(Array<T>, Vec<i64>)> {
        let has = !self.local.is_empty();
        let (m, i) = if has {
            let i = self.local.argmax()?.to_scalar()?;
            let row: usize = self.local.shape[1..].iter().product();
            let m = self
                .local
                .reshape([self.local.len()])?
                .slice(i as usize..i as usize + 1)?;
            (m, vec![i + (self.start * row) as i64])
        } else {
            (self.comm.device().zeros::<T>([0])?, vec![])
        };
        let all = self.comm.allgather(&m, 0)?;
        let idx = self.comm.device().from_slice(&i, [i.len()])?;
        let idx = self.comm.allgather(&idx, 0)?.to_vec()?;
        Ok((all, idx))
    }

    /// The flat (row-major) index of the largest element in the whole array (its first
    /// occurrence, or the first NaN), on every rank.
    ///
    /// # Errors
    /// As [`ShardedArray::max`].
    pub fn argmax(&self) -> Result<usize> {
        let (all, idx) = self.extremes()?;
        let k = all.argmax()?.to_scalar()? as usize;
        Ok(idx[k] as usize)
    }
}

impl<T: Float> ShardedArray<'_, T> {
    /// The mean of every element, a 0-d array on every rank: [`ShardedArray::sum`]
    /// divided by the element count.
    ///
    /// # Errors
    /// Those of [`ShardedArray::sum`].
    pub fn mean(&self) -> Result<Array<T>> {
        let n: usize = self.shape().iter().product();
        self.sum()?.div_scalar(T::from_f64(n as f64))
    }

    /// The Frobenius (2-) norm of the whole array, a 0-d array on every rank: the square
    /// root of the ranks' sums of squares combined in rank order.
    ///
    /// # Errors
    /// Those of [`ShardedArray::sum`].
    pub fn norm(&self) -> Result<Array<T>> {
        let sq = self.local.mul(&self.local)?.sum()?;
        self.comm.allreduce(&sq, ReduceOp::Sum)?.sqrt()
    }
}
