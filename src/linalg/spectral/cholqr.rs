//! Orthonormalising the eigenvectors of the tridiagonal route between its rounds of inverse
//! iteration: CholeskyQR2 through the library's products (G = Z^T Z, G = L L^T, Q^T = L^-1
//! Z^T, twice), with Householder QR where that cannot be trusted.
//!
//! Householder QR of an n x n Z is the slowest step of eigh (qr of 1024 f32 ~30 ms on the
//! H200, twice per eigh), while CholeskyQR2's work is one product, one Cholesky and one
//! triangular solve with n right-hand sides per pass. CholeskyQR2 is as accurate as
//! Householder QR for Z of condition below about eps^-1/2 (Yamamoto et al. 2015), which the
//! rounds of inverse iteration give for every spectrum but degenerate clusters (solves from
//! random starts with one shift lean the cluster's vectors towards one direction). So:
//! where the Cholesky finds G not positive definite (one status word read back), or where
//! Q^T Q is further from I than `ORTH` n eps in the Frobenius norm of some matrix of the
//! stack (one scalar read back), the stack takes Householder QR instead.

use super::jacobi::eps;
use crate::array::Array;
use crate::dtype::Float;
use crate::error::{Error, Result};
use crate::linalg::{cholesky, qr, solve_triangular, QrMode, Trans, Triangle};

/// The largest ||Q^T Q - I||_F / (n eps) accepted from CholeskyQR2 (the eigh tests' bound
/// is 40: this leaves them the rest for the residual's share).
const ORTH: f64 = 8.0;

/// An orthonormal basis of the column space of each n x n matrix of `z` (`[count, n, n]`,
/// full rank), in the order of its columns (column j of Q spans the first j + 1 of Z).
pub(super) fn orthonormal<T: Float>(z: &Array<T>, n: usize) -> Result<Array<T>> {
    if let Some(q) = cholesky_qr2(z, n)? {
        return Ok(q);
    }
    let q = qr(z, QrMode::Reduced)?;
    q.q.expect("reduced QR has Q").contiguous()
}

/// CholeskyQR2, or `None` where the Cholesky fails or Q is not orthonormal to [`ORTH`].
fn cholesky_qr2<T: Float>(z: &Array<T>, n: usize) -> Result<Option<Array<T>>> {
    let mut q = one_pass(z)?;
    if let Some(q1) = q {
        q = one_pass(&q1)?;
    }
    let Some(q) = q else { return Ok(None) };
    let e = q
        .swapaxes(-1, -2)?
        .matmul(&q)?
        .sub(&z.device().eye::<T>(n)?)?;
    let worst = e
        .mul(&e)?
        .sum_axis([-2isize, -1], false)?
        .max()?
        .to_scalar()?;
    let tol = ORTH * n as f64 * eps::<T>();
    // NaN (a Cholesky that was not checked) fails the test too.
    Ok((worst.to_f64().sqrt() <= tol).then_some(q))
}

/// One CholeskyQR pass: Q = Z L^-T with L L^T = Z^T Z; `None` where the Cholesky reports
/// a matrix that is not positive definite.
fn one_pass<T: Float>(z: &Array<T>) -> Result<Option<Array<T>>> {
    let zt = z.swapaxes(-1, -2)?;
    let g = zt.matmul(z)?;
    let l = match cholesky(&g, Triangle::Lower) {
        Ok(l) => l,
        Err(Error::NotPositiveDefinite { .. }) => return Ok(None),
        Err(e) => return Err(e),
    };
    let qt = solve_triangular(&l, &zt, Triangle::Lower, Trans::N, false)?;
    Ok(Some(qt.swapaxes(-1, -2)?.contiguous()?))
}
