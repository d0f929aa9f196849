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
//! iteration (one invocation per vector), makes them orthonormal by Newton-Schulz steps
//! through products (a CholeskyQR pass first where they are far from orthonormal), or
//! Householder QR where a check at the end finds them still not orthonormal (any
//! orthonormal basis of a degenerate cluster's invariant subspace is a correct answer;
//! cholqr.rs), and applies the reflectors to them in blocks through matmul. It always
//! converges; eigvalsh waits for nothing, eigh two to four times (one scalar each). Below 33 x 33 Jacobi stays: its `small` kernel runs every sweep of a whole
//! stack in one dispatch, a workgroup per matrix in workgroup memory, where the
//! tridiagonal route costs 2 (n - 1) dispatches of the reduction, a QR and a product per
//! 64 reflectors. eigh and eigvalsh of those small matrices run eig_small.rs
//! (shaders/eig_small.wgsl) instead: the same one-sided Jacobi with an invocation per
//! column, W and V in registers, the columns exchanged by subgroup shuffles (or through
//! workgroup memory), and the eigenvalues ranked and written in order by the same
//! dispatch. `svd` and `svdvals` of matrices up to 32 x 32 run that kernel too
//! (svd_small.rs), with W = A (A^T for a wide matrix): the singular values, V and U = W / S
//! from one dispatch, the vectors of tiny singular values (and, for full matrices, the
//! rest of the longer side's basis) completed by a second.
//!
//! `svd` and `svdvals` of matrices with `min(M, N)` from 384 on take the polar route
//! (svd_polar.rs, QDWH-SVD): the polar decomposition `A = U_p H` by QDWH
//! ([`crate::linalg::polar`]: QR, Cholesky, triangular solves and products), then `eigh`
//! (`eigvalsh` for the values) of `H`, `U = U_p V`; [`svd_with`] chooses either route.
//!
//! Each Jacobi call waits once for the GPU: it reads back one status value, the first matrix
//! of the stack that did not converge ([`Error::NoConvergence`]). NaN or infinite entries do
//! not hang: the rotations stop, and the results of such a matrix are NaN.

mod cholqr;
mod derived;
mod eig_small;
mod jacobi;
mod norm;
mod svd_polar;
mod svd_small;
mod tridiag;

pub use derived::{cond, lstsq, matrix_rank, pinv, Lstsq};
pub use norm::{norm, NormOrd};

#[cfg(test)]
pub(crate) use eig_small::all_specs as eig_small_specs;
#[cfg(test)]
pub(crate) use jacobi::all_specs;
#[cfg(test)]
pub(crate) use svd_small::all_specs as svd_small_specs;
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

/// How [`svd_with`] computes the SVD.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum SvdMethod {
    /// By size: [`SvdMethod::Polar`] where `min(M, N) >= 384`, else [`SvdMethod::Jacobi`].
    #[default]
    Auto,
    /// One-sided Jacobi: the whole stack's small matrices in one dispatch, a workgroup per
    /// matrix (up to 32 x 32, an invocation per column, the columns in registers); small
    /// singular values often to high relative accuracy. Its sweeps rotate
    /// pairs of columns (about `n^3` work per sweep, 6 to 10 sweeps, in a kernel of its
    /// own rather than the library's products), so its time grows fast past a few hundred.
    Jacobi,
    /// The polar decomposition by QDWH ([`crate::linalg::polar`]), then [`eigh`] of its
    /// symmetric factor (or [`eigvalsh`] for the values alone): QR, Cholesky, triangular
    /// solves and products, which run at the product rate on large matrices, but tens of
    /// dispatches per step (too many for small matrices, where Jacobi's single dispatch
    /// wins). The values are accurate to about `N eps ||A||` (absolute).
    Polar,
}

/// From this `min(M, N)` on, [`SvdMethod::Auto`] takes the polar route: Jacobi's SVD of
/// 256 x 256 already takes 17.5 ms on an H200 and grows as `n^3` times the sweeps, while
/// the polar route's cost is 40 to 50 `n^3` flops at the product rate plus a fixed cost of
/// a few hundred dispatches and its eigh.
pub(crate) const POLAR_MIN: usize = 384;

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
/// the GPU once (the convergence status of one-sided Jacobi); from `N = 33` on (the
/// tridiagonal route: Householder reduction, bisection, inverse iteration made orthonormal
/// by Newton-Schulz steps or CholeskyQR, the back-transform through matmul) it waits two
/// to four times, for one scalar each: how far the vectors are from orthonormal after each
/// round, which decides the next step, and whether they came out orthonormal to 8 `N eps`
/// (where not, as in some degenerate clusters, the inverse iteration runs again with
/// Householder QR, which always holds; also without `Options::linalg_check`, since the
/// result depends on it). A matrix with a
/// NaN or infinite entry in the triangle read gets NaN eigenvalues and vectors.
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
    let upper = uplo == Triangle::Upper;
    if let Some(plan) = eig_small::plan::<T>(a.device(), n) {
        let r = eig_small::eigh(op, &c, &plan, st.count, upper, vectors)?;
        let w = r.w.reshape(st.per_matrix(Some(n)))?;
        let v = match &r.v {
            Some(v) => Some(v.reshape(st.shape(n, n))?),
            None => None,
        };
        if checks(a) {
            r.check(op)?;
        }
        return Ok((w, v));
    }
    let prep = Prep::Eigh { upper };
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
/// relative accuracy below `min(M, N) = 384`), the vectors orthonormal to a few tens of
/// `max(M, N) eps`. Below `min(M, N) = 384` one-sided Jacobi, which waits for the GPU once
/// (the convergence status); from there the polar route ([`SvdMethod::Polar`]), which
/// waits only where its [`eigh`] does. Matrices up to 32 x 32 run an invocation per column
/// with the columns in registers (a stack in one dispatch); there, a matrix with a NaN or
/// infinite entry gets NaN singular values and vectors, and a matrix whose largest
/// magnitude lies outside about `[sqrt(min_positive) / eps, sqrt(max) / 128]` is scaled
/// (no overflow or underflow in the squared norms).
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

/// [`svd`] by the algorithm `method` names (SciPy's `lapack_driver`, in spirit):
/// [`SvdMethod::Auto`] is what [`svd`] and [`svdvals`] do. The polar route reads nothing
/// back of its own (the eigensolver it calls may read its status word once).
///
/// # Errors
/// As [`svd`].
///
/// ```
/// use gpuarray::linalg::{svd_with, SvdMethod};
/// # let dev = gpuarray::Device::new()?;
/// let a = dev.from_slice(&[3.0f64, 0.0, 4.0, 5.0], [2, 2])?;
/// let p = svd_with(&a, false, true, SvdMethod::Polar)?;
/// let j = svd_with(&a, false, true, SvdMethod::Jacobi)?;
/// let (sp, sj) = (p.s.to_vec()?, j.s.to_vec()?);
/// // Singular values sqrt(45) and sqrt(5).
/// assert!((sp[0] - 45f64.sqrt()).abs() < 1e-12 && (sp[1] - 5f64.sqrt()).abs() < 1e-12);
/// assert!((sp[0] - sj[0]).abs() < 1e-12 && (sp[1] - sj[1]).abs() < 1e-12);
/// # Ok::<(), gpuarray::Error>(())
/// ```
pub fn svd_with<T: Float>(
    a: &Array<T>,
    full_matrices: bool,
    compute_uv: bool,
    method: SvdMethod,
) -> Result<Svd<T>> {
    decompose_with("svd", a, full_matrices, compute_uv, method)
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
    decompose_with(op, a, full, compute_uv, SvdMethod::Auto)
}

fn decompose_with<T: Float>(
    op: &'static str,
    a: &Array<T>,
    full: bool,
    compute_uv: bool,
    method: SvdMethod,
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
    let tall = m >= n;
    let polar = match method {
        SvdMethod::Auto => k >= POLAR_MIN,
        SvdMethod::Jacobi => false,
        SvdMethod::Polar => true,
    };
    if polar {
        return by_polar(a, &st, full, compute_uv);
    }
    let c = a.contiguous()?;
    if let Some(plan) = svd_small::plan::<T>(dev, m, n) {
        return by_small(op, &c, &st, &plan, full, compute_uv);
    }
    // Tall (or square): W = A^T, whose rows are A's columns; wide: W = A.
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

/// The SVD of the (non-empty, contiguous) stack `c` of matrices up to 32 x 32 by the
/// eig_small family's kernel (svd_small.rs): a wide matrix through its transpose, whose V
/// is U and whose U (from W) is Vh^T.
fn by_small<T: Float>(
    op: &'static str,
    c: &Array<T>,
    st: &Stack,
    plan: &eig_small::Plan,
    full: bool,
    uv: bool,
) -> Result<Svd<T>> {
    let (m, n) = (st.m, st.n);
    let k = m.min(n);
    let r = svd_small::svd(op, c, plan, st.count, m, n, full, uv)?;
    let s = r.w.reshape(st.per_matrix(Some(k)))?;
    let (u, vh) = match (&r.u, &r.v) {
        (Some(wu), Some(v)) if m >= n => {
            let ur = if full { m } else { k };
            (wu.reshape(st.shape(m, ur))?, v.reshape(st.shape(n, n))?)
        }
        (Some(wu), Some(v)) => {
            let vr = if full { n } else { k };
            (v.reshape(st.shape(m, m))?, wu.reshape(st.shape(vr, n))?)
        }
        _ => {
            if checks(c) {
                r.check(op)?;
            }
            return Ok(Svd {
                u: None,
                s,
                vh: None,
            });
        }
    };
    if checks(c) {
        r.check(op)?;
    }
    Ok(Svd {
        u: Some(u),
        s,
        vh: Some(vh),
    })
}

/// The SVD of the (non-empty) stack `a` by the polar route ([`svd_polar`]): a wide matrix
/// through its transpose, `A^T = U' S V'^T`, so `U = V'` and `Vh = U'^T`.
fn by_polar<T: Float>(a: &Array<T>, st: &Stack, full: bool, uv: bool) -> Result<Svd<T>> {
    let (m, n, count) = (st.m, st.n, st.count);
    let k = m.min(n);
    let tall = m >= n;
    let (p, q) = if tall { (m, n) } else { (n, m) };
    let t = if tall {
        a.contiguous()?.reshape([count, m, n])?
    } else {
        a.swapaxes(-1, -2)?.contiguous()?.reshape([count, n, m])?
    };
    let (ut, s, vt) = svd_polar::tall_svd(&t, count, p, q, full, uv)?;
    let s = s.reshape(st.per_matrix(Some(k)))?;
    let (Some(ut), Some(vt)) = (ut, vt) else {
        return Ok(Svd {
            u: None,
            s,
            vh: None,
        });
    };
    let pc = ut.shape()[2];
    let (u, vh) = if tall {
        (
            ut.reshape(st.shape(m, pc))?,
            vt.swapaxes(1, 2)?.contiguous()?.reshape(st.shape(n, n))?,
        )
    } else {
        (
            vt.reshape(st.shape(m, m))?,
            ut.swapaxes(1, 2)?.contiguous()?.reshape(st.shape(pc, n))?,
        )
    };
    Ok(Svd {
        u: Some(u),
        s,
        vh: Some(vh),
    })
}

/// [`Error::InvalidArgument`] for `op`.
pub(crate) fn invalid(op: &'static str, reason: &'static str) -> Error {
    Error::InvalidArgument { op, reason }
}
