//! Cholesky and triangular solves: NumPy's `cholesky`, SciPy's `cho_solve` and
//! `solve_triangular`.

use super::blocked::{cholesky_in_place, extract, trsm, Tri};
use super::factor::{Launcher, LOWER, TRANS};
use super::lu::Trans;
use super::prep::{check, shaped, work, Rhs};
use super::stack::square;
use crate::array::Array;
use crate::dtype::Float;
use crate::error::{Error, Result};

/// A triangle of a square matrix: which one a factor is, or which one a function reads.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum Triangle {
    /// On and below the diagonal (NumPy's default, `upper=False`; SciPy's `lower=True`).
    #[default]
    Lower,
    /// On and above the diagonal.
    Upper,
}

/// NumPy 2's `linalg.cholesky(a, upper)`: the Cholesky factor of each symmetric positive
/// definite matrix of the stack `a` (`[..., N, N]`; only its lower triangle is read): `L`
/// with `A = L L^T` ([`Triangle::Lower`], NumPy's default) or `U = L^T` with `A = U^T U`
/// ([`Triangle::Upper`]); the other triangle of the result is zero.
///
/// Blocked right-looking: diagonal blocks of 64, the panel below each solved against it
/// (each workgroup of one dispatch factors the block with its own 64 rows of the panel
/// as one 128 x 64 Cholesky, in registers), the trailing update of the lower triangle in place: two dispatches a block, and one at
/// the end for the diagonal blocks. A matrix that is not positive definite (a
/// diagonal that is not positive, or NaN, as LAPACK's potrf finds it) is reported by
/// reading back one status word, which waits for the GPU to finish the call; with
/// `Options::linalg_check` off (`GPUARRAY_LINALG_CHECK=0`) the call returns at once and
/// such a matrix gives NaN in its factor.
///
/// # Errors
/// [`Error::NotSquare`], [`Error::NotPositiveDefinite`] naming the first such matrix of
/// the stack, [`Error::Unsupported`] for dtypes other than f32 and f64.
///
/// ```
/// # let dev = gpuarray::Device::new()?;
/// use gpuarray::linalg::{cholesky, Triangle};
/// let a = dev.from_slice(&[4.0f32, 2.0, 2.0, 5.0], [2, 2])?;
/// assert_eq!(cholesky(&a, Triangle::Lower)?.to_vec()?, vec![2.0, 0.0, 1.0, 2.0]);
/// assert_eq!(cholesky(&a, Triangle::Upper)?.to_vec()?, vec![2.0, 1.0, 0.0, 2.0]);
/// let not_pd = dev.from_slice(&[1.0f32, 2.0, 2.0, 1.0], [2, 2])?;
/// assert!(cholesky(&not_pd, Triangle::Lower).is_err());
/// # Ok::<(), gpuarray::Error>(())
/// ```
pub fn cholesky<T: Float>(a: &Array<T>, upper: Triangle) -> Result<Array<T>> {
    let op = "cholesky";
    let st = square(op, a)?;
    let n = st.n;
    if st.count == 0 || n == 0 {
        return a.dev.zeros::<T>(a.shape().to_vec());
    }
    let (f, status) = factor(a, upper, st.count, n)?;
    check(&status, 0, |index| Error::NotPositiveDefinite { op, index })?;
    Ok(f)
}

/// The Cholesky factor of each matrix of the square stack `a` (`count` matrices of `n x n`,
/// n >= 1) and the status word that [`check`] reads; nothing is read back.
fn factor<T: Float>(
    a: &Array<T>,
    upper: Triangle,
    count: usize,
    n: usize,
) -> Result<(Array<T>, Array<i32>)> {
    let w = work(a, None)?;
    let l = Launcher::<T>::new(&a.dev)?;
    let status = cholesky_in_place(&l, &w, count, n)?;
    let flags = match upper {
        Triangle::Lower => LOWER,
        Triangle::Upper => TRANS,
    };
    let f = extract(&l, &w, (count, n, n), (n, n), flags)?;
    Ok((shaped(&f, a.shape().to_vec()), status))
}

/// [`cholesky`]'s lower factor without the check: nothing is read back, and a matrix that
/// is not positive definite gives NaN in its factor (for the callers that test their
/// result anyway, as the eigenvectors' CholeskyQR2 does).
pub(crate) fn cholesky_unchecked<T: Float>(a: &Array<T>) -> Result<Array<T>> {
    let st = square("cholesky", a)?;
    if st.count == 0 || st.n == 0 {
        return a.dev.zeros::<T>(a.shape().to_vec());
    }
    Ok(factor(a, Triangle::Lower, st.count, st.n)?.0)
}

/// SciPy's `cho_solve((c, lower), b)`: `x` with `A x = b` from the Cholesky factor `c` of
/// `A` (`[..., N, N]`, as [`cholesky`] gives it: `A = L L^T` for [`Triangle::Lower`], `A =
/// U^T U` for [`Triangle::Upper`]; only that triangle is read). `b` follows
/// [`solve`](super::solve)'s rule (one vector when 1-D, else `[..., N, K]`), batch
/// dimensions broadcast. Two triangular solves; no check, no wait (a zero on the diagonal
/// gives infinities or NaN).
///
/// # Errors
/// [`Error::NotSquare`], [`Error::ShapeMismatch`] when `b` does not fit,
/// [`Error::Unsupported`] for dtypes other than f32 and f64.
///
/// ```
/// # let dev = gpuarray::Device::new()?;
/// use gpuarray::linalg::{cho_solve, cholesky, Triangle};
/// let a = dev.from_slice(&[4.0f64, 2.0, 2.0, 5.0], [2, 2])?;
/// let c = cholesky(&a, Triangle::Lower)?;
/// let b = dev.from_slice(&[8.0f64, 12.0], [2])?;
/// assert_eq!(cho_solve(&c, Triangle::Lower, &b)?.to_vec()?, vec![1.0, 2.0]);
/// # Ok::<(), gpuarray::Error>(())
/// ```
pub fn cho_solve<T: Float>(c: &Array<T>, lower: Triangle, b: &Array<T>) -> Result<Array<T>> {
    let r = Rhs::new("cho_solve", c, b)?;
    if r.empty() {
        return c.dev.zeros::<T>(r.out_shape());
    }
    let n = r.a.n;
    let w = work(c, Some(&r.a_shape()))?;
    let x = r.work_b(b)?;
    let l = Launcher::<T>::new(&c.dev)?;
    let dims = (r.count, n, r.k);
    let is_lower = lower == Triangle::Lower;
    // L L^T x = b: L, then L^T; U^T U x = b: U^T, then U.
    let order = if is_lower {
        [false, true]
    } else {
        [true, false]
    };
    for trans in order {
        let tri = Tri {
            lower: is_lower,
            trans,
            unit: false,
        };
        trsm(&l, &w, &x, dims, tri)?;
    }
    Ok(shaped(&x, r.out_shape()))
}

/// SciPy's `solve_triangular(a, b, trans, lower, unit_diagonal)`: `x` with `op(A) x = b`
/// (`op` the identity or the transpose, [`Trans`]) for the triangular matrices of the stack
/// `a` (`[..., N, N]`; only the triangle `lower` names is read, and not its diagonal where
/// `unit_diagonal`: ones there). `b` follows [`solve`](super::solve)'s rule, batch
/// dimensions broadcast. Blocked: diagonal blocks of 64 solved by substitution, the rest by
/// [`Array::matmul`]. No check, no wait (a zero on the diagonal gives infinities or NaN).
///
/// # Errors
/// [`Error::NotSquare`], [`Error::ShapeMismatch`] when `b` does not fit,
/// [`Error::Unsupported`] for dtypes other than f32 and f64.
///
/// ```
/// # let dev = gpuarray::Device::new()?;
/// use gpuarray::linalg::{solve_triangular, Trans, Triangle};
/// let a = dev.from_slice(&[2.0f32, 0.0, 1.0, 4.0], [2, 2])?;
/// let b = dev.from_slice(&[2.0f32, 9.0], [2])?;
/// let x = solve_triangular(&a, &b, Triangle::Lower, Trans::N, false)?;
/// assert_eq!(x.to_vec()?, vec![1.0, 2.0]);
/// # Ok::<(), gpuarray::Error>(())
/// ```
pub fn solve_triangular<T: Float>(
    a: &Array<T>,
    b: &Array<T>,
    lower: Triangle,
    trans: Trans,
    unit_diagonal: bool,
) -> Result<Array<T>> {
    let r = Rhs::new("solve_triangular", a, b)?;
    if r.empty() {
        return a.dev.zeros::<T>(r.out_shape());
    }
    let n = r.a.n;
    let w = work(a, Some(&r.a_shape()))?;
    let x = r.work_b(b)?;
    let l = Launcher::<T>::new(&a.dev)?;
    let tri = Tri {
        lower: lower == Triangle::Lower,
        trans: trans == Trans::T,
        unit: unit_diagonal,
    };
    trsm(&l, &w, &x, (r.count, n, r.k), tri)?;
    Ok(shaped(&x, r.out_shape()))
}
