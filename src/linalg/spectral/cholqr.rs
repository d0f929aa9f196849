//! Orthonormalising the eigenvectors of the tridiagonal route between its rounds of inverse
//! iteration: CholeskyQR through the library's products (G = Z^T Z, G = L L^T, Q^T = L^-1
//! Z^T), checked at the end, with Householder QR where the check fails.
//!
//! Householder QR of an n x n Z was the slowest step of eigh (the H200 ran qr of 1024 f32
//! in about 30 ms, twice per eigh), while a CholeskyQR pass is one product, one Cholesky and
//! one triangular solve with n right-hand sides. CholeskyQR2 is as accurate as Householder
//! QR for Z of condition below about eps^-1/2 (Yamamoto et al. 2015), which the rounds of
//! inverse iteration give for every spectrum but some degenerate clusters (solves from
//! random starts with one shift lean the cluster's vectors towards one direction: the
//! Cholesky then meets a G that is not positive definite and leaves NaN).
//!
//! The Cholesky and the triangular solve are chains of n / 64 blocked steps of several
//! dispatches each (the H200 ran cholesky f32 4096 in 14.6 ms, 64 steps of about 230 us),
//! so each pass costs about as much as a Cholesky of n, and session 19's four passes
//! (CholeskyQR2 after both rounds) were the bulk of eigh's vectors. [`Orth::Adaptive`]
//! (the default) runs one pass after each round: the first round's basis need not be
//! orthonormal, only well conditioned, for the next solve to start from (a pass leaves
//! `||Q^T Q - I||` of about eps cond(Z)^2, small wherever its Cholesky succeeds, and fails
//! (NaN) only where CholeskyQR2's first pass fails too); after the last round the vectors
//! of separated eigenvalues are already orthogonal to about eps ||T|| / gap, so one pass
//! makes them orthonormal to working accuracy. The check reads one scalar; only where it
//! fails (the vectors of clusters, cond(Z) of 10 to eps^-1/2) the second pass of
//! CholeskyQR2 runs and a second check decides; where that fails too, Householder QR.
//! Two passes and one wait on a spectrum without clusters instead of four and one.

use super::jacobi::eps;
use crate::array::Array;
use crate::dtype::Float;
use crate::error::Result;
use crate::linalg::cholesky::cholesky_unchecked;
use crate::linalg::factor_prof::mark;
use crate::linalg::{qr, solve_triangular, QrMode, Trans, Triangle};

/// The largest ||Z^T Z - I||_F / (n eps) accepted from CholeskyQR (the eigh tests' bound
/// is 40; CholeskyQR2 gave about 0.2 on lavapipe's runs of them).
const ORTH: f64 = 8.0;

/// How eigh makes its inverse iteration's vectors orthonormal between and after the rounds
/// (`GPUARRAY_EIGH_ORTH`, a measuring switch read once: 2 selects [`Orth::Qr2`], anything
/// else [`Orth::Adaptive`]).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Orth {
    /// CholeskyQR2 after every round and one check at the end (session 19's form: four
    /// passes).
    Qr2,
    /// One CholeskyQR pass after every round, the check, and the second pass only where the
    /// check fails (see the module docs): two passes where the spectrum has no clusters.
    Adaptive,
}

impl Orth {
    /// The form `GPUARRAY_EIGH_ORTH` selects (read once).
    pub(crate) fn selected() -> Orth {
        static ORTH_MODE: std::sync::OnceLock<Orth> = std::sync::OnceLock::new();
        *ORTH_MODE.get_or_init(|| match crate::config::switch("GPUARRAY_EIGH_ORTH") {
            Some(2) => Orth::Qr2,
            _ => Orth::Adaptive,
        })
    }

    /// The orthonormalisation after a round of inverse iteration (not yet checked).
    pub(super) fn round<T: Float>(self, z: &Array<T>) -> Result<Array<T>> {
        match self {
            Orth::Qr2 => cholesky_qr2(z),
            Orth::Adaptive => one_pass(z),
        }
    }
}

/// What made the returned vectors orthonormal (for the tests of each way).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Finish {
    /// The passes of [`Orth::round`] alone.
    Rounds,
    /// A second CholeskyQR pass after the last round ([`Orth::Adaptive`] only).
    SecondPass,
    /// The rounds again with Householder QR.
    Householder,
}

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

/// The worst ||Z^T Z - I||_F / (n eps) over the n x n matrices of `z` (NaN where any is).
/// Reads one scalar back: waits for the GPU.
pub(super) fn orthonormality<T: Float>(z: &Array<T>, n: usize) -> Result<f64> {
    let e = z
        .swapaxes(-1, -2)?
        .matmul(z)?
        .sub(&z.device().eye::<T>(n)?)?;
    let worst = e
        .mul(&e)?
        .sum_axis([-2isize, -1], false)?
        .max()?
        .to_scalar()?;
    Ok(worst.to_f64().sqrt() / (n as f64 * eps::<T>()))
}

/// Whether [`orthonormality`]'s measure `e` is within [`ORTH`] (false for NaN).
pub(super) fn enough(e: f64) -> bool {
    e <= ORTH
}

/// Whether a further CholeskyQR pass can mend vectors of measure `e`: ||Z^T Z - I||_F
/// below 1 (so ||Z^T Z - I||_2 too), where Z^T Z is positive definite and its Cholesky
/// succeeds.
pub(super) fn mendable<T: Float>(e: f64, n: usize) -> bool {
    e * n as f64 * eps::<T>() < 0.5
}

/// One CholeskyQR pass: Q = Z L^-T with L L^T = Z^T Z.
pub(super) fn one_pass<T: Float>(z: &Array<T>) -> Result<Array<T>> {
    let dev = z.device();
    let zt = z.swapaxes(-1, -2)?;
    let g = zt.matmul(z)?;
    mark(dev, "cq_syrk")?;
    let l = cholesky_unchecked(&g)?;
    mark(dev, "cq_chol")?;
    let qt = solve_triangular(&l, &zt, Triangle::Lower, Trans::N, false)?;
    mark(dev, "cq_trsm")?;
    let q = qt.swapaxes(-1, -2)?.contiguous()?;
    mark(dev, "cq_copy")?;
    Ok(q)
}
