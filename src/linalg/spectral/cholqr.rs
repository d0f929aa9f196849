//! Orthonormalising the eigenvectors of the tridiagonal route between its rounds of inverse
//! iteration: CholeskyQR2 through the library's products (G = Z^T Z, G = L L^T, Q^T = L^-1
//! Z^T, twice), checked once at the end, with Householder QR where the check fails.
//!
//! Householder QR of an n x n Z was the slowest step of eigh (the H200 ran qr of 1024 f32
//! in about 30 ms, twice per eigh), while a CholeskyQR pass is one product, one Cholesky and
//! one triangular solve with n right-hand sides. CholeskyQR2 is as accurate as Householder
//! QR for Z of condition below about eps^-1/2 (Yamamoto et al. 2015), which the rounds of
//! inverse iteration give for every spectrum but some degenerate clusters (solves from
//! random starts with one shift lean the cluster's vectors towards one direction: the
//! Cholesky then meets a G that is not positive definite and leaves NaN). So nothing is
//! read between the rounds; [`orthonormal_enough`] reads one scalar at the end, and where
//! it fails the caller runs the rounds again with [`householder`].

use super::jacobi::eps;
use crate::array::Array;
use crate::dtype::Float;
use crate::error::Result;
use crate::linalg::cholesky::cholesky_unchecked;
use crate::linalg::{qr, solve_triangular, QrMode, Trans, Triangle};

/// The largest ||Z^T Z - I||_F / (n eps) accepted from CholeskyQR2 (the eigh tests' bound
/// is 40; CholeskyQR2 gave about 0.2 on lavapipe's runs of them).
const ORTH: f64 = 8.0;

/// CholeskyQR2 of each n x n matrix of `z` (`[count, n, n]`): an orthonormal basis of its
/// column space in the order of its columns where Z's condition is below about eps^-1/2,
/// NaN where the Cholesky fails. Nothing is read back.
pub(super) fn cholesky_qr2<T: Float>(z: &Array<T>) -> Result<Array<T>> {
    one_pass(&one_pass(z)?)
}

/// Householder QR's Q of each matrix of `z`: any full-rank Z.
pub(super) fn householder<T: Float>(z: &Array<T>) -> Result<Array<T>> {
    let q = qr(z, QrMode::Reduced)?;
    q.q.expect("reduced QR has Q").contiguous()
}

/// Whether every n x n matrix of `z` has orthonormal columns to [`ORTH`] n eps (false for
/// NaN). Reads one scalar back: waits for the GPU.
pub(super) fn orthonormal_enough<T: Float>(z: &Array<T>, n: usize) -> Result<bool> {
    let e = z
        .swapaxes(-1, -2)?
        .matmul(z)?
        .sub(&z.device().eye::<T>(n)?)?;
    let worst = e
        .mul(&e)?
        .sum_axis([-2isize, -1], false)?
        .max()?
        .to_scalar()?;
    Ok(worst.to_f64().sqrt() <= ORTH * n as f64 * eps::<T>())
}

/// One CholeskyQR pass: Q = Z L^-T with L L^T = Z^T Z.
fn one_pass<T: Float>(z: &Array<T>) -> Result<Array<T>> {
    let zt = z.swapaxes(-1, -2)?;
    let l = cholesky_unchecked(&zt.matmul(z)?)?;
    let qt = solve_triangular(&l, &zt, Triangle::Lower, Trans::N, false)?;
    qt.swapaxes(-1, -2)?.contiguous()
}
