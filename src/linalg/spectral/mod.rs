//! Eigenvalues of symmetric matrices and singular values: `eigh`, `eigvalsh`, `svd`,
//! `svdvals`, and what is built on them (`lstsq`, `pinv`, `matrix_rank`, `cond`, `norm`).
//!
//! Both run one-sided Jacobi on the GPU (jacobi.rs, shaders/spectral.wgsl): the columns of
//! the matrix are rotated in pairs until every pair is orthogonal to working precision, so
//! that A V = U S; eigh runs it on A + sigma I (sigma = ||A||_F: positive semi-definite,
//! with A's eigenvectors as its singular vectors). One-sided Jacobi was chosen because it is
//! correct first: accurate singular values (small ones to high relative accuracy),
//! orthogonal vectors, and a single kernel for both; small matrices run every sweep in one
//! dispatch, a workgroup per matrix in workgroup memory.
//!
//! `eigh` and `eigvalsh` of matrices from 33 x 33 on take another route (tridiag.rs,
//! shaders/tridiag.wgsl): Householder reduction to tridiagonal form on the GPU, then the
//! eigenvalues of the tridiagonal matrix by bisection on Sturm counts, one invocation per
//! eigenvalue; eigh then finds the eigenvectors of the tridiagonal matrix by inverse
//! iteration (one invocation per vector), makes them orthonormal by Householder QR (any
//! orthonormal basis of a degenerate cluster's invariant subspace is a correct answer) and
//! applies the reflectors to them in blocks through matmul. It always converges and waits
//! for nothing. Below 33 x 33 Jacobi stays: its `small` kernel runs every sweep of a whole
//! stack in one dispatch, a workgroup per matrix in workgroup memory, where the
//! tridiagonal route costs 2 (n - 1) dispatches of the reduction, a QR and a product per
//! 64 reflectors.
//!
//! Each Jacobi call waits once for the GPU: it reads back one status value, the first matrix
//! of the stack that did not converge ([`Error::NoConvergence`]). NaN or infinite entries do
//! not hang: the rotations stop, and the results of such a matrix are NaN.

mod derived;
mod jacobi;
mod norm;
mod tridiag;

pub use derived::{cond, lstsq, matrix_rank, pinv, Lstsq};
pub use norm::{norm, NormOrd};

#[cfg(test)]
pub(crate) use jacobi::all_specs;
#[cfg(test)]
pub(crate) use tridiag::all_specs as tridiag_specs;

use super::stack::{square, stack, Stack};
use super::Triangle;
use crate::{Array, Error, Float, Result};
use jacobi::{Jacobi, Prep};

/// The result of [`svd`]: `u` and `vh` are `None` where `compute_uv` was false.
#[derive(Clone)]
pub struct Svd<T: crate::Element> {
    /// Left singular vectors as columns, `[..., M, M]` (full) or `[..., M, K]`.
    pub u: Option<Array<T>>,
    /// Singular values in descending order, `[..., K]`, `K = min(M, N)`.
    pub s: Array<T>,
    /// Right singular vectors as rows, `[..., N, N]` (full) or `[..., K, N]`.
    pub vh: Option<Array<T>>,
}

/// Whether a call reads back its status word and reports non-convergence
/// (`Options::linalg_check`, on by default; off, nothing waits and a matrix that did not
/// converge keeps the last sweep's values).
fn checks(a: &Array<impl Float>) -> bool {
    a.device().options().linalg_check
}

/// The eigenvalues (ascending) and eigenvectors (columns) of each symmetric matrix of the
/// stack `a` (`[..., N, N]`), from the triangle `uplo` names (the other is not read), as
/// NumPy's `linalg.eigh`: `(w, v)` with `w` of shape `[..., N]`, `v` of `[..., N, N]`,
/// `A v[:, k] = w[k] v[:, k]`.
///
/// Eigenvalues are accurate to about `N eps ||A||_F` (absolute), eigenvectors orthonormal
/// to a few tens of `N eps` (measured up to 25 `N eps`). Below `N = 33` the call waits for
/// the GPU once (the convergence status of one-sided Jacobi); from `N = 33` on it waits for
/// nothing (the tridiagonal route: Householder reduction, bisection, inverse iteration
/// made orthonormal by QR, the back-transform through matmul), and a matrix with a NaN or
/// infinite entry in the triangle read gets NaN eigenvalues and vectors.
///
/// # Errors
/// [`Error::Unsupported`] for dtypes other than f32 and f64 (and f64 where the adapter
/// lacks it); [`Error::InvalidArgument`] for fewer than 2 dimensions; [`Error::NotSquare`];
/// [`Error::NoConvergence`] naming the first matrix that did not converge (below `N = 33`
/// only).
///
/// ```
/// use gpuarray::linalg::{eigh, Triangle};
/// # let dev = gpuarray::Device::new()?;
/// let a = dev.from_slice(&[2.0f32, 1.0, 1.0, 2.0], [2, 2])?;
/// let (w, v) = eigh(&a, Triangle::Lower)?;
/// let w = w.to_vec()?;
/// assert!((w[0] - 1.0).abs() < 1e-5 && (w[1] - 3.0).abs() < 1e-5);
/// assert_eq!(v.shape(), &[2, 2]);
///
/// // 40 x 40 (the tridiagonal route), the identity with 3 at [0][0]: eigenvalue 3 has the
/// // first unit vector, eigenvalue 1 (39 times) any orthonormal basis of the others.
/// let n = 40;
/// let mut m = vec![0.0f64; n * n];
/// for i in 0..n {
///     m[i * n + i] = if i == 0 { 3.0 } else { 1.0 };
/// }
/// let (w, v) = eigh(&dev.from_slice(&m, [n, n])?, Triangle::Lower)?;
/// let (w, v) = (w.to_vec()?, v.to_vec()?);
/// assert!((w[n - 1] - 3.0).abs() < 1e-12 && (w[0] - 1.0).abs() < 1e-12);
/// assert!((v[n - 1].abs() - 1.0).abs() < 1e-12); // column n - 1, row 0
/// # Ok::<(), gpuarray::Error>(())
/// ```
pub fn eigh<T: Float>(a: &Array<T>, uplo: Triangle) -> Result<(Array<T>, Array<T>)> {
    let (w, v) = eigen("eigh", a, uplo, true)?;
    Ok((w, v.expect("vectors asked")))
}

/// The eigenvalues (ascending) of each symmetric matrix of the stack `a`, from the triangle
/// `uplo` names: NumPy's `linalg.eigvalsh`, shape `[..., N]`.
///
/// From `N = 33` on the matrices are reduced to tridiagonal form by Householder reflections
/// (two dispatches per column, the whole stack in each) and the eigenvalues found by
/// bisection on Sturm counts: accurate to about `N eps ||A||_F` (absolute), deterministic,
/// and the call waits for nothing (no convergence to report). A matrix with a NaN or
/// infinite entry in the triangle read gets NaN eigenvalues. Smaller matrices run eigh's
/// one-sided Jacobi (one dispatch for a whole stack), which waits once for its status.
///
/// # Errors
/// As [`eigh`] ([`Error::NoConvergence`] only below `N = 33`).
///
/// ```
/// use gpuarray::linalg::{eigvalsh, Triangle};
/// # let dev = gpuarray::Device::new()?;
/// // Only the upper triangle is read: the 9.0 below the diagonal is ignored.
/// let a = dev.from_slice(&[2.0f64, 1.0, 9.0, 2.0], [2, 2])?;
/// let w = eigvalsh(&a, Triangle::Upper)?.to_vec()?;
/// assert!((w[0] - 1.0).abs() < 1e-12 && (w[1] - 3.0).abs() < 1e-12);
///
/// // 40 x 40 (the tridiagonal route): 2 on the diagonal, -1 beside it; its eigenvalues
/// // are 2 - 2 cos(k pi / 41), k = 1..40.
/// let n = 40;
/// let mut m = vec![0.0f64; n * n];
/// for i in 0..n {
///     m[i * n + i] = 2.0;
///     if i > 0 {
///         m[i * n + i - 1] = -1.0;
///     }
/// }
/// let w = eigvalsh(&dev.from_slice(&m, [n, n])?, Triangle::Lower)?.to_vec()?;
/// for (k, x) in w.iter().enumerate() {
///     let want = 2.0 - 2.0 * ((k + 1) as f64 * std::f64::consts::PI / 41.0).cos();
///     assert!((x - want).abs() < 1e-12);
/// }
/// # Ok::<(), gpuarray::Error>(())
/// ```
pub fn eigvalsh<T: Float>(a: &Array<T>, uplo: Triangle) -> Result<Array<T>> {
    Ok(eigen("eigvalsh", a, uplo, false)?.0)
}

fn eigen<T: Float>(
    op: &'static str,
    a: &Array<T>,
    uplo: Triangle,
    vectors: bool,
) -> Result<(Array<T>, Option<Array<T>>)> {
    let st = square(op, a)?;
    let n = st.n;
    if st.count == 0 || n == 0 {
        let w = a.device().zeros::<T>(st.per_matrix(Some(n)))?;
        let v = if vectors {
            Some(a.device().zeros::<T>(st.shape(n, n))?)
        } else {
            None
        };
        return Ok((w, v));
    }
    let c = a.contiguous()?;
    if n >= tridiag::MIN_N {
        let upper = uplo == Triangle::Upper;
        if !vectors {
            let w = tridiag::eigvalsh(op, &c, st.count, n, upper)?;
            return Ok((w.reshape(st.per_matrix(Some(n)))?, None));
        }
        let (w, v) = tridiag::eigh(op, &c, st.count, n, upper)?;
        return Ok((
            w.reshape(st.per_matrix(Some(n)))?,
            Some(v.reshape(st.shape(n, n))?),
        ));
    }
    let prep = Prep::Eigh {
        upper: uplo == Triangle::Upper,
    };
    let j = Jacobi::run(op, &c, st.count, n, n, prep, vectors)?;
    let w = j.values(op)?.reshape(st.per_matrix(Some(n)))?;
    let v = if vectors {
        Some(j.v(op, true)?.reshape(st.shape(n, n))?)
    } else {
        None
    };
    if checks(a) {
        j.check(op)?;
    }
    Ok((w, v))
}

/// The singular value decomposition of each matrix of the stack `a` (`[..., M, N]`), as
/// NumPy's `linalg.svd(a, full_matrices, compute_uv)`: `A = U diag(S) Vh`, `S` descending.
/// With `full_matrices` U is `[..., M, M]` and Vh `[..., N, N]` (the singular vectors of
/// the zero singular values completed to orthonormal bases), else `[..., M, K]` and
/// `[..., K, N]`, `K = min(M, N)`; without `compute_uv` only `S` is computed (`u` and `vh`
/// `None`).
///
/// Singular values are accurate to about `max(M, N) eps ||A||` (small ones often to high
/// relative accuracy), the vectors orthonormal to a few tens of `max(M, N) eps`. The call waits for
/// the GPU once (the convergence status).
///
/// # Errors
/// As [`eigh`], but for [`Error::NotSquare`] (any shape is taken).
///
/// ```
/// use gpuarray::linalg::svd;
/// # let dev = gpuarray::Device::new()?;
/// let a = dev.from_slice(&[3.0f32, 0.0, 0.0, 0.0, -2.0, 0.0], [2, 3])?;
/// let r = svd(&a, false, true)?;
/// let s = r.s.to_vec()?;
/// assert!((s[0] - 3.0).abs() < 1e-5 && (s[1] - 2.0).abs() < 1e-5);
/// assert_eq!(r.u.unwrap().shape(), &[2, 2]);
/// assert_eq!(r.vh.unwrap().shape(), &[2, 3]);
/// # Ok::<(), gpuarray::Error>(())
/// ```
pub fn svd<T: Float>(a: &Array<T>, full_matrices: bool, compute_uv: bool) -> Result<Svd<T>> {
    decompose("svd", a, full_matrices, compute_uv)
}

/// The singular values of each matrix of the stack `a`, descending, `[..., min(M, N)]`:
/// NumPy's `linalg.svdvals`.
///
/// # Errors
/// As [`svd`].
///
/// ```
/// use gpuarray::linalg::svdvals;
/// # let dev = gpuarray::Device::new()?;
/// let a = dev.from_slice(&[0.0f64, 2.0, 1.0, 0.0], [2, 2])?;
/// let s = svdvals(&a)?.to_vec()?;
/// assert!((s[0] - 2.0).abs() < 1e-12 && (s[1] - 1.0).abs() < 1e-12);
/// # Ok::<(), gpuarray::Error>(())
/// ```
pub fn svdvals<T: Float>(a: &Array<T>) -> Result<Array<T>> {
    Ok(decompose("svdvals", a, false, false)?.s)
}

/// `[..., n, n]` identity matrices of `st`'s batch.
fn eyes<T: Float>(a: &Array<T>, st: &Stack, n: usize) -> Result<Array<T>> {
    let eye = a.device().eye::<T>(n)?;
    eye.broadcast_to(st.shape(n, n))?.contiguous()
}

pub(crate) fn decompose<T: Float>(
    op: &'static str,
    a: &Array<T>,
    full: bool,
    compute_uv: bool,
) -> Result<Svd<T>> {
    let st = stack(op, a)?;
    let (m, n) = (st.m, st.n);
    let k = m.min(n);
    let (ur, vr) = if full { (m, n) } else { (k, k) };
    let dev = a.device();
    if st.count == 0 || k == 0 {
        let s = dev.zeros::<T>(st.per_matrix(Some(k)))?;
        if !compute_uv {
            return Ok(Svd {
                u: None,
                s,
                vh: None,
            });
        }
        let u = if full {
            eyes(a, &st, m)?
        } else {
            dev.zeros::<T>(st.shape(m, k))?
        };
        let vh = if full {
            eyes(a, &st, n)?
        } else {
            dev.zeros::<T>(st.shape(k, n))?
        };
        return Ok(Svd {
            u: Some(u),
            s,
            vh: Some(vh),
        });
    }
    let c = a.contiguous()?;
    // Tall (or square): W = A^T, whose rows are A's columns; wide: W = A.
    let tall = m >= n;
    let (p, q) = if tall { (m, n) } else { (n, m) };
    let j = Jacobi::run(
        op,
        &c,
        st.count,
        p,
        q,
        Prep::Svd { trans: tall },
        compute_uv,
    )?;
    let s = j.values(op)?.reshape(st.per_matrix(Some(k)))?;
    let (u, vh) = if !compute_uv {
        (None, None)
    } else if tall {
        // U's columns are W's normalised rows; Vh's rows V^T's.
        let ut = j.u_rows(op, ur)?;
        let u = ut
            .swapaxes(-1, -2)?
            .contiguous()?
            .reshape(st.shape(m, ur))?;
        let vh = j.v(op, false)?.reshape(st.shape(n, n))?;
        (Some(u), Some(vh))
    } else {
        // A^T = U' S V'^T: U = V', Vh = U'^T (W's normalised rows).
        let u = j.v(op, true)?.reshape(st.shape(m, m))?;
        let vh = j.u_rows(op, vr)?.reshape(st.shape(vr, n))?;
        (Some(u), Some(vh))
    };
    if checks(a) {
        j.check(op)?;
    }
    Ok(Svd { u, s, vh })
}

/// [`Error::InvalidArgument`] for `op`.
pub(crate) fn invalid(op: &'static str, reason: &'static str) -> Error {
    Error::InvalidArgument { op, reason }
}
