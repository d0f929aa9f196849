//! What the SVD gives: least squares, the pseudo-inverse, the rank and the condition
//! number, composed of [`super::decompose`], products and elementwise operations.

use super::jacobi::eps;
use super::norm::{norm, NormOrd};
use super::{decompose, invalid};
use crate::linalg::stack::{square, stack};
use crate::{Array, Error, Float, Result, Slice};

/// The result of [`lstsq`], NumPy's `(x, residuals, rank, s)`.
#[derive(Clone)]
pub struct Lstsq<T: crate::Element> {
    /// The least-squares solution, `[N]` or `[N, K]` as `b`.
    pub x: Array<T>,
    /// The squared 2-norms of the residuals `b - a x` per column of `b` (`[K]`, or `[1]`
    /// for a 1-D `b`) where `a` has full column rank and `M > N`; else empty (`[0]`).
    pub residuals: Array<T>,
    /// The effective rank of `a`.
    pub rank: usize,
    /// The singular values of `a`, descending, `[min(M, N)]`.
    pub s: Array<T>,
}

/// `1 / s` where `s > cutoff` (per matrix: `rcond` times its largest), else 0, and the mask.
fn inverse_values<T: Float>(s: &Array<T>, rcond: f64) -> Result<(Array<T>, Array<bool>)> {
    let cutoff = s.max_axis(-1, true)?.mul_scalar(T::from_f64(rcond))?;
    let mask = s.gt(&cutoff)?;
    let zero = s.device().zeros::<T>(s.shape().to_vec())?;
    Ok((Array::where_(&mask, &s.reciprocal()?, &zero)?, mask))
}

/// The least-squares solution of `a x = b` (NumPy 2's `linalg.lstsq`): the `x` of least
/// norm among those minimising `||b - a x||`, by the SVD of `a` (`[M, N]`); singular values
/// at most `rcond` times the largest count as zero (`None`: `eps * max(M, N)`, NumPy 2's
/// default). `b` is `[M]` or `[M, K]`.
///
/// The call waits for the GPU (the rank is read back).
///
/// # Errors
/// [`Error::InvalidArgument`] when `a` is not 2-D or `b` not 1-D or 2-D, or `rcond` is
/// negative or NaN; [`Error::ShapeMismatch`] when `b`'s first extent is not `M`;
/// [`Error::Unsupported`] for dtypes other than f32 and f64; as [`super::svd`].
///
/// ```
/// use gpuarray::linalg::lstsq;
/// # let dev = gpuarray::Device::new()?;
/// // The line y = c0 + c1 t through (0, 1), (1, 3), (2, 5).
/// let a = dev.from_slice(&[1.0f64, 0.0, 1.0, 1.0, 1.0, 2.0], [3, 2])?;
/// let b = dev.from_slice(&[1.0f64, 3.0, 5.0], [3])?;
/// let r = lstsq(&a, &b, None)?;
/// let x = r.x.to_vec()?;
/// assert!((x[0] - 1.0).abs() < 1e-12 && (x[1] - 2.0).abs() < 1e-12);
/// assert_eq!(r.rank, 2);
/// assert!(r.residuals.to_vec()?[0].abs() < 1e-20);
/// # Ok::<(), gpuarray::Error>(())
/// ```
pub fn lstsq<T: Float>(a: &Array<T>, b: &Array<T>, rcond: Option<f64>) -> Result<Lstsq<T>> {
    const OP: &str = "lstsq";
    let st = stack(OP, a)?;
    if a.ndim() != 2 {
        return Err(invalid(OP, "needs a 2-D matrix a"));
    }
    if b.ndim() == 0 || b.ndim() > 2 {
        return Err(invalid(OP, "needs b of 1 or 2 dimensions"));
    }
    let (m, n) = (st.m, st.n);
    if b.shape()[0] != m {
        return Err(Error::ShapeMismatch {
            op: OP,
            lhs: a.shape().to_vec(),
            rhs: b.shape().to_vec(),
        });
    }
    let rcond = rcond.unwrap_or(eps::<T>() * m.max(n) as f64);
    if rcond.is_nan() || rcond < 0.0 {
        return Err(invalid(OP, "needs rcond >= 0"));
    }
    let vector = b.ndim() == 1;
    let kb = if vector { 1 } else { b.shape()[1] };
    let b2 = b.reshape([m, kb])?;
    let dev = a.device();
    let r = decompose(OP, a, false, true)?;
    let (u, s, vh) = (r.u.expect("u"), r.s, r.vh.expect("vh"));
    let (x, rank) = if m.min(n) == 0 {
        (dev.zeros::<T>([n, kb])?, 0)
    } else {
        let (sinv, mask) = inverse_values(&s, rcond)?;
        let rank = mask.count_nonzero()?;
        let utb = u.t().matmul(&b2)?;
        let scaled = utb.mul(&sinv.reshape([m.min(n), 1])?)?;
        (vh.t().matmul(&scaled)?, rank)
    };
    let residuals = if rank == n && m > n {
        let res = if n == 0 {
            b2.clone()
        } else {
            b2.sub(&a.matmul(&x)?)?
        };
        res.square()?.sum_axis(0, false)?
    } else {
        dev.zeros::<T>([0])?
    };
    let x = if vector { x.reshape([n])? } else { x };
    Ok(Lstsq {
        x,
        residuals,
        rank,
        s,
    })
}

/// The Moore-Penrose pseudo-inverse of each matrix of the stack `a` (`[..., M, N]` gives
/// `[..., N, M]`), by its SVD: NumPy's `linalg.pinv(a, rcond)`. Singular values at most
/// `rcond` times the matrix's largest count as zero; `None` is NumPy's default, 1e-15.
///
/// # Errors
/// [`Error::InvalidArgument`] for `rcond` negative or NaN; as [`super::svd`].
///
/// ```
/// use gpuarray::linalg::pinv;
/// # let dev = gpuarray::Device::new()?;
/// let a = dev.from_slice(&[2.0f64, 0.0, 0.0, 0.0], [2, 2])?;
/// assert_eq!(pinv(&a, None)?.to_vec()?, vec![0.5, 0.0, 0.0, 0.0]);
/// # Ok::<(), gpuarray::Error>(())
/// ```
pub fn pinv<T: Float>(a: &Array<T>, rcond: Option<f64>) -> Result<Array<T>> {
    const OP: &str = "pinv";
    let st = stack(OP, a)?;
    let rcond = rcond.unwrap_or(1e-15);
    if rcond.is_nan() || rcond < 0.0 {
        return Err(invalid(OP, "needs rcond >= 0"));
    }
    let k = st.m.min(st.n);
    if st.count == 0 || k == 0 {
        return a.device().zeros::<T>(st.shape(st.n, st.m));
    }
    let r = decompose(OP, a, false, true)?;
    let (u, s, vh) = (r.u.expect("u"), r.s, r.vh.expect("vh"));
    let (sinv, _) = inverse_values(&s, rcond)?;
    // V diag(1/s) U^T: V's columns scaled, times U^T.
    let v = vh.swapaxes(-1, -2)?;
    let scaled = v.mul(&sinv.reshape(st.shape(1, k))?)?;
    scaled.matmul(&u.swapaxes(-1, -2)?)
}

/// The rank of each matrix of the stack `a`: how many singular values exceed `tol`
/// (`None`: the largest times `max(M, N) eps`, NumPy's default), NumPy's
/// `linalg.matrix_rank`, as u32 of shape `[...]` (the stack's batch shape).
///
/// # Errors
/// [`Error::InvalidArgument`] for `tol` negative or NaN; as [`super::svdvals`].
///
/// ```
/// use gpuarray::linalg::matrix_rank;
/// # let dev = gpuarray::Device::new()?;
/// let a = dev.from_slice(&[1.0f32, 2.0, 2.0, 4.0], [2, 2])?;
/// assert_eq!(matrix_rank(&a, None)?.to_vec()?, vec![1]);
/// # Ok::<(), gpuarray::Error>(())
/// ```
pub fn matrix_rank<T: Float>(a: &Array<T>, tol: Option<f64>) -> Result<Array<u32>> {
    const OP: &str = "matrix_rank";
    let st = stack(OP, a)?;
    if tol.is_some_and(|t| t.is_nan() || t < 0.0) {
        return Err(invalid(OP, "needs tol >= 0"));
    }
    if st.m.min(st.n) == 0 {
        return a.device().zeros::<u32>(st.per_matrix(None));
    }
    let s = decompose(OP, a, false, false)?.s;
    let cutoff = match tol {
        Some(t) => a
            .device()
            .full::<T>(st.per_matrix(Some(1)), T::from_f64(t))?,
        None => s
            .max_axis(-1, true)?
            .mul_scalar(T::from_f64(st.m.max(st.n) as f64 * eps::<T>()))?,
    };
    s.gt(&cutoff)?.count_nonzero_axis(-1, false)
}

/// The condition number of each matrix of the stack `a` in the norm `p`, NumPy's
/// `linalg.cond`: `None` and `P(2.0)` the ratio of the largest singular value to the
/// smallest (`P(-2.0)` the inverse), from the singular values of any `[..., M, N]`; the other
/// norms (`Fro`, `Nuc`, `P(±1.0)`, `P(±inf)`) `norm(a) * norm(inv(a))` of square
/// matrices, the inverse computed as the pseudo-inverse (a singular matrix then gives a
/// large finite number where NumPy gives inf).
///
/// # Errors
/// [`Error::NotSquare`] for the norms other than 2 and -2 of a non-square matrix;
/// [`Error::InvalidArgument`] for an order that is not a matrix norm; as [`super::svd`].
///
/// ```
/// use gpuarray::linalg::{cond, NormOrd};
/// # let dev = gpuarray::Device::new()?;
/// let a = dev.from_slice(&[4.0f64, 0.0, 0.0, 0.5], [2, 2])?;
/// assert!((cond(&a, None)?.to_vec()?[0] - 8.0).abs() < 1e-12);
/// assert!((cond(&a, Some(NormOrd::P(f64::INFINITY)))?.to_vec()?[0] - 8.0).abs() < 1e-12);
/// # Ok::<(), gpuarray::Error>(())
/// ```
pub fn cond<T: Float>(a: &Array<T>, p: Option<NormOrd>) -> Result<Array<T>> {
    const OP: &str = "cond";
    let st = stack(OP, a)?;
    match p {
        None | Some(NormOrd::P(2.0)) | Some(NormOrd::P(-2.0)) => {
            let k = st.m.min(st.n);
            if k == 0 {
                return Err(invalid(OP, "needs a non-empty matrix"));
            }
            let s = decompose(OP, a, false, false)?.s.reshape([st.count, k])?;
            let hi = s.slice([Slice::from(..), Slice::from(0..1)])?;
            let lo = s.slice([Slice::from(..), Slice::from(k - 1..k)])?;
            let r = if p == Some(NormOrd::P(-2.0)) {
                lo.div(&hi)?
            } else {
                hi.div(&lo)?
            };
            r.reshape(st.per_matrix(None))
        }
        Some(ord) => {
            square(OP, a)?;
            if st.n == 0 {
                return Err(invalid(OP, "needs a non-empty matrix"));
            }
            let inv = super::pinv(a, Some(0.0))?;
            let axes = [-2isize, -1];
            norm(a, Some(ord), axes, false)?.mul(&norm(&inv, Some(ord), axes, false)?)
        }
    }
}
