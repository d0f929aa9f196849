//! LU with partial pivoting: SciPy's `lu_factor`, `lu_solve` and `lu`.

use super::blocked::{extract, lu_in_place, lu_solve_in_place};
use super::factor::{FParams, Launcher, LOWER, UNIT};
use super::prep::{check, shaped, work, Rhs};
use super::stack::stack;
use crate::array::Array;
use crate::dtype::Float;
use crate::error::{Error, Result};

/// Which system a solve with a factorization solves: SciPy's `trans` (0 or `'N'`: `A x =
/// b`; 1 or `'T'`: `A^T x = b`; for real matrices 2, `'C'`, is `'T'`).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum Trans {
    /// `A x = b`.
    #[default]
    N,
    /// `A^T x = b`.
    T,
}

/// An LU factorization with partial pivoting, SciPy's `(lu, piv)`: `lu` holds `L` below
/// the diagonal (its unit diagonal not stored) and `U` on and above it; `piv[i]` is the
/// row (0-based) that row `i` was swapped with, in order. Made by [`lu_factor`], used by
/// [`lu_solve`].
#[derive(Clone)]
pub struct LuFactor<T: Float> {
    lu: Array<T>,
    piv: Array<i32>,
    /// The pivots' buffer, its status word after them.
    status: Array<i32>,
    count: usize,
}

impl<T: Float> std::fmt::Debug for LuFactor<T> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("LuFactor")
            .field("shape", &self.lu.shape())
            .finish()
    }
}

impl<T: Float> LuFactor<T> {
    /// The combined factors, of `a`'s shape `[..., M, N]`.
    ///
    /// ```
    /// # let dev = gpuarray::Device::new()?;
    /// let a = dev.from_slice(&[1.0f64, 2.0, 3.0, 4.0], [2, 2])?;
    /// let f = gpuarray::linalg::lu_factor(&a)?;
    /// assert_eq!(f.lu().to_vec()?, vec![3.0, 4.0, 1.0 / 3.0, 2.0 - 4.0 / 3.0]);
    /// # Ok::<(), gpuarray::Error>(())
    /// ```
    pub fn lu(&self) -> &Array<T> {
        &self.lu
    }

    /// The pivot rows, `[..., min(M, N)]`, 0-based (SciPy's `piv`).
    ///
    /// ```
    /// # let dev = gpuarray::Device::new()?;
    /// let a = dev.from_slice(&[1.0f32, 2.0, 3.0, 4.0], [2, 2])?;
    /// assert_eq!(gpuarray::linalg::lu_factor(&a)?.piv().to_vec()?, vec![1, 1]);
    /// # Ok::<(), gpuarray::Error>(())
    /// ```
    pub fn piv(&self) -> &Array<i32> {
        &self.piv
    }
}

/// SciPy's `lu_factor(a)`: the LU factorization with partial pivoting (`P A = L U`, rows
/// swapped as LAPACK's getrf does) of each matrix of the stack `a` (`[..., M, N]`).
///
/// A singular matrix is factored all the same (a zero on U's diagonal); [`lu_solve`]
/// reports it. Blocked right-looking: panels of 64 columns, their trailing updates by
/// [`Array::matmul`]; each panel (up to 4096 rows) is factored in sub-panels held in the
/// registers of one workgroup per matrix, read and written once. Does not wait for the
/// GPU.
///
/// # Errors
/// [`Error::InvalidArgument`] for fewer than 2 dimensions, [`Error::Unsupported`] for a
/// dtype other than f32 and f64.
///
/// ```
/// # let dev = gpuarray::Device::new()?;
/// let a = dev.from_slice(&[2.0f32, 1.0, 1.0, 3.0], [2, 2])?;
/// let f = gpuarray::linalg::lu_factor(&a)?;
/// let b = dev.from_slice(&[3.0f32, 5.0], [2])?;
/// let x = gpuarray::linalg::lu_solve(&f, &b, gpuarray::linalg::Trans::N)?.to_vec()?;
/// assert!((x[0] - 0.8).abs() < 1e-6 && (x[1] - 1.4).abs() < 1e-6);
/// # Ok::<(), gpuarray::Error>(())
/// ```
pub fn lu_factor<T: Float>(a: &Array<T>) -> Result<LuFactor<T>> {
    let st = stack("lu_factor", a)?;
    let kmax = st.m.min(st.n);
    let w = work(a, None)?;
    let l = Launcher::<T>::new(&a.dev)?;
    let status = lu_in_place(&l, &w, st.count, st.m, st.n)?;
    let piv = shaped(
        &status.view(vec![st.count * kmax], vec![1], 0),
        st.per_matrix(Some(kmax)),
    );
    Ok(LuFactor {
        lu: shaped(&w, a.shape().to_vec()),
        piv,
        status,
        count: st.count,
    })
}

/// SciPy's `lu_solve((lu, piv), b, trans)`: the solution of `A x = b` (or `A^T x = b`)
/// from the factorization of `A`. `b` follows [`solve`](super::solve)'s rule: one vector
/// when 1-D, else a stack `[..., N, K]` whose batch dimensions broadcast to the
/// factorization's (the factorization's are not broadcast).
///
/// Reads back the factorization's status word to report a singular matrix (one wait for
/// the GPU) where `Options::linalg_check` is on (the default); off, such a matrix gives
/// infinities or NaN.
///
/// # Errors
/// [`Error::NotSquare`] for a factorization of non-square matrices,
/// [`Error::ShapeMismatch`] when `b` does not fit, [`Error::Singular`] naming the first
/// singular matrix of the stack.
///
/// ```
/// # let dev = gpuarray::Device::new()?;
/// use gpuarray::linalg::{lu_factor, lu_solve, Trans};
/// let a = dev.from_slice(&[4.0f64, 3.0, 6.0, 3.0], [2, 2])?;
/// let f = lu_factor(&a)?;
/// let b = dev.from_slice(&[10.0f64, 12.0], [2])?;
/// assert_eq!(lu_solve(&f, &b, Trans::N)?.to_vec()?, vec![1.0, 2.0]);
/// // A^T x = b
/// let x = lu_solve(&f, &b, Trans::T)?.to_vec()?;
/// assert!((x[0] - 7.0).abs() < 1e-12 && (x[1] + 3.0).abs() < 1e-12);
/// # Ok::<(), gpuarray::Error>(())
/// ```
pub fn lu_solve<T: Float>(f: &LuFactor<T>, b: &Array<T>, trans: Trans) -> Result<Array<T>> {
    let op = "lu_solve";
    let r = Rhs::new(op, &f.lu, b)?;
    if r.batch != r.a.batch {
        return Err(Error::ShapeMismatch {
            op,
            lhs: f.lu.shape().to_vec(),
            rhs: b.shape().to_vec(),
        });
    }
    let n = r.a.n;
    if r.empty() {
        return b.dev.zeros::<T>(r.out_shape());
    }
    let x = r.work_b(b)?;
    let lu = shaped(&f.lu, vec![r.count, n, n]);
    let l = Launcher::<T>::new(&b.dev)?;
    lu_solve_in_place(&l, &lu, &f.status, &x, (r.count, n, r.k), trans == Trans::T)?;
    check(&f.status, f.count * n, |index| Error::Singular {
        op,
        index,
    })?;
    Ok(shaped(&x, r.out_shape()))
}

/// SciPy's `lu(a)`: `(P, L, U)` with `A = P L U` for each matrix of the stack `a`
/// (`[..., M, N]`, `K = min(M, N)`): the permutation `P` (`[..., M, M]`), `L` (`[..., M,
/// K]`, unit lower triangular) and `U` (`[..., K, N]`, upper triangular). Does not wait for
/// the GPU; a singular matrix is factored all the same.
///
/// # Errors
/// As [`lu_factor`].
///
/// ```
/// # let dev = gpuarray::Device::new()?;
/// let a = dev.from_slice(&[1.0f64, 2.0, 3.0, 4.0], [2, 2])?;
/// let (p, l, u) = gpuarray::linalg::lu(&a)?;
/// assert_eq!(p.to_vec()?, vec![0.0, 1.0, 1.0, 0.0]);
/// assert_eq!(l.to_vec()?, vec![1.0, 0.0, 1.0 / 3.0, 1.0]);
/// assert_eq!(p.matmul(&l)?.matmul(&u)?.to_vec()?, vec![1.0, 2.0, 3.0, 4.0]);
/// # Ok::<(), gpuarray::Error>(())
/// ```
pub fn lu<T: Float>(a: &Array<T>) -> Result<(Array<T>, Array<T>, Array<T>)> {
    let st = stack("lu", a)?;
    let (m, n, count) = (st.m, st.n, st.count);
    let k = m.min(n);
    let dev = &a.dev;
    if count == 0 || m == 0 || n == 0 {
        let p = dev.eye::<T>(m)?.broadcast_to(st.shape(m, m))?.copy()?;
        return Ok((p, dev.zeros(st.shape(m, k))?, dev.zeros(st.shape(k, n))?));
    }
    let f = lu_factor(a)?;
    let l = Launcher::<T>::new(dev)?;
    let w = shaped(&f.lu, vec![count, m, n]);
    let lower = extract(&l, &w, (count, m, n), (m, k), LOWER | UNIT)?;
    let upper = extract(&l, &w, (count, m, n), (k, n), 0)?;
    let p = dev.zeros::<T>([count, m, m])?;
    let q = FParams {
        rows: m,
        kmax: k,
        count,
        ..FParams::default()
    };
    l.perm_matrix(&q, &f.status, &p)?;
    Ok((
        shaped(&p, st.shape(m, m)),
        shaped(&lower, st.shape(m, k)),
        shaped(&upper, st.shape(k, n)),
    ))
}
