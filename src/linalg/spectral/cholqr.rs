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
//! dispatches each (the H200 ran cholesky f32 4096 in 14.6 ms, 64 steps of about 230 us;
//! 1024 in 2.8 ms), so each pass costs about as much as a Cholesky of n, and session 19's
//! four passes (CholeskyQR2 after both rounds) were the bulk of eigh's vectors (eigh f32
//! 1024 34.6 ms against eigvalsh's 14.3). [`Orth::Polar`], the default, needs none where
//! the spectrum has no clusters:
//! - after the first round the basis need not be orthonormal, only well conditioned, for
//!   the next solve to start from; the vectors of separated eigenvalues after two solves
//!   are orthogonal to about eps ||T|| / gap already, so one product and one wait measure
//!   ||Z^T Z - I||_F and the pass runs only where it is 1/2 or more ([`condition`]);
//! - after the last round Newton-Schulz steps X <- X (3 I - X^T X) / 2 (two products each)
//!   take Z to its polar factor, the orthonormal matrix nearest to it (each vector moves
//!   within its own error), E = X^T X - I going to about 3/4 E^2 a step: from the measured
//!   E (about 1e-2 in f32 at n = 4096: eps ||T|| / gap summed over neighbours) two or three
//!   steps reach n eps, and the Gram matrix of the last step is the check's
//!   ([`finish_polar`]). Where E is 1/2 or more (the vectors of clusters), a CholeskyQR
//!   pass first; where the steps still fail (NaN, a failed Cholesky), Householder QR.
//!
//! Products run at the product rate (a 1024 product in well under 0.1 ms, 4096 in about 3
//! ms), against a pass's 5 ms (1024) to 30 ms (4096) of chained dispatches; the cost is
//! two or three waits for one scalar each. On the H200 (2026-11-29, random matrices)
//! the vectors after the last round were orthonormal to 2 n eps already at 1024 and 4096
//! (no pass, no step): the orthonormalisation took 3.1 ms of eigh f32 1024 (two products,
//! two waits) against CholeskyQR2's 14.9, and 14.4 of 4096 against 106; eigh f32 1024
//! 24.8 ms against 34.6, 4096 342 against 425, f64 1024 34.5 against 49.1, f32 256 5.6
//! against 9.8 ([`Orth::OnePass`]: 29.6, 381, 41.2, 7.4). [`Orth::OnePass`] and
//! [`Orth::Qr2`] (session 19's form) stay for measuring (`GPUARRAY_EIGH_ORTH`).

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
/// (`GPUARRAY_EIGH_ORTH`, a measuring switch read once: 2 selects [`Orth::Qr2`], 1
/// [`Orth::OnePass`], anything else [`Orth::Polar`]).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Orth {
    /// CholeskyQR2 after every round and one check at the end (session 19's form: four
    /// passes).
    Qr2,
    /// One CholeskyQR pass after every round, the check, and the second pass only where the
    /// check fails: two passes where the spectrum has no clusters.
    OnePass,
    /// The default (see the module docs): after the first round a CholeskyQR pass only
    /// where Z is not already well conditioned ([`condition`]); after the last, Newton-Schulz
    /// steps to the polar factor where Z is near orthonormal, else a CholeskyQR pass first
    /// ([`finish_polar`]): products alone where the spectrum has no clusters.
    Polar,
}

impl Orth {
    /// The form `GPUARRAY_EIGH_ORTH` selects (read once).
    pub(crate) fn selected() -> Orth {
        static ORTH_MODE: std::sync::OnceLock<Orth> = std::sync::OnceLock::new();
        *ORTH_MODE.get_or_init(|| match crate::config::switch("GPUARRAY_EIGH_ORTH") {
            Some(2) => Orth::Qr2,
            Some(1) => Orth::OnePass,
            _ => Orth::Polar,
        })
    }

    /// The orthonormalisation after round `round` of inverse iteration (not yet checked;
    /// [`Orth::Polar`]'s last round is finished by [`finish_polar`]).
    pub(super) fn round<T: Float>(self, z: &Array<T>, n: usize, last: bool) -> Result<Array<T>> {
        match self {
            Orth::Qr2 => cholesky_qr2(z),
            Orth::OnePass => one_pass(z),
            Orth::Polar if last => Ok(z.clone()),
            Orth::Polar => condition(z, n),
        }
    }
}

/// What made the returned vectors orthonormal (for the tests of each way).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Finish {
    /// The passes of [`Orth::round`] alone.
    Rounds,
    /// A second CholeskyQR pass after the last round ([`Orth::OnePass`] only).
    SecondPass,
    /// Newton-Schulz steps after the last round ([`Orth::Polar`] only), with as many
    /// CholeskyQR passes before them.
    Polished {
        /// CholeskyQR passes (0 or 1).
        passes: u8,
        /// Newton-Schulz steps.
        steps: u8,
    },
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
    deviation(&gram(z)?, n)
}

/// G = Z^T Z of each matrix of `z`.
fn gram<T: Float>(z: &Array<T>) -> Result<Array<T>> {
    let g = z.swapaxes(-1, -2)?.matmul(z)?;
    mark(z.device(), "gram")?;
    Ok(g)
}

/// The worst ||G - I||_F / (n eps) over the n x n matrices of `g` (NaN where any is). Reads
/// one scalar back: waits for the GPU.
fn deviation<T: Float>(g: &Array<T>, n: usize) -> Result<f64> {
    let e = g.sub(&g.device().eye::<T>(n)?)?;
    let worst = e
        .mul(&e)?
        .sum_axis([-2isize, -1], false)?
        .max()?
        .to_scalar()?;
    mark(g.device(), "check")?;
    Ok(worst.to_f64().sqrt() / (n as f64 * eps::<T>()))
}

/// Whether [`orthonormality`]'s measure `e` is within [`ORTH`] (false for NaN).
pub(super) fn enough(e: f64) -> bool {
    e <= ORTH
}

/// Whether vectors of measure `e` are near orthonormal: ||Z^T Z - I||_F below 1/2 (so
/// the 2-norm too), where Z^T Z is positive definite (a CholeskyQR pass succeeds), Z's
/// condition is below sqrt 3 and Newton-Schulz steps converge.
pub(super) fn mendable<T: Float>(e: f64, n: usize) -> bool {
    e * n as f64 * eps::<T>() < 0.5
}

/// One CholeskyQR pass: Q = Z L^-T with L L^T = Z^T Z.
pub(super) fn one_pass<T: Float>(z: &Array<T>) -> Result<Array<T>> {
    pass_with(z, &gram(z)?)
}

/// A CholeskyQR pass of `z` with its Gram matrix `g` already formed.
fn pass_with<T: Float>(z: &Array<T>, g: &Array<T>) -> Result<Array<T>> {
    let dev = z.device();
    let zt = z.swapaxes(-1, -2)?;
    let l = cholesky_unchecked(g)?;
    mark(dev, "cq_chol")?;
    let qt = solve_triangular(&l, &zt, Triangle::Lower, Trans::N, false)?;
    mark(dev, "cq_trsm")?;
    let q = qt.swapaxes(-1, -2)?.contiguous()?;
    mark(dev, "cq_copy")?;
    Ok(q)
}

/// [`Orth::Polar`] after the first round: `z` as it is where ||Z^T Z - I||_F < 1/2
/// (condition below sqrt 3: a start the next solve can take; the vectors of separated
/// eigenvalues after two solves, which are orthogonal to about eps ||T|| / gap), else a
/// CholeskyQR pass (NaN where its Cholesky fails: the check at the end then fails).
/// Waits for the GPU once (the measure).
pub(super) fn condition<T: Float>(z: &Array<T>, n: usize) -> Result<Array<T>> {
    let g = gram(z)?;
    if mendable::<T>(deviation(&g, n)?, n) {
        return Ok(z.clone());
    }
    pass_with(z, &g)
}

/// The measure [`finish_polar`] takes without a further Newton-Schulz step.
const POLISH: f64 = 2.0;

/// Most Newton-Schulz steps [`finish_polar`] takes (from ||E|| = 1/2 the map
/// e -> 3/4 e^2 reaches f64's eps in 6).
const MAX_STEPS: u8 = 8;

/// [`Orth::Polar`] after the last round: Z made orthonormal by Newton-Schulz steps towards
/// its polar factor, X <- X (3 I - X^T X) / 2, each two products (the second step's Gram
/// matrix is the next one's, and the last one's the check), E = X^T X - I going to about
/// 3/4 E^2 a step; as many steps as that predicts from the measured ||E||_F for it to fall
/// below n eps, then the check, and one step more while it fails and may still converge.
/// Where ||E||_F >= 1/2 (the vectors of a cluster), a CholeskyQR pass first. `None` where
/// the vectors are still not orthonormal (NaN, or a Cholesky that failed): the caller
/// then takes Householder QR. Waits for the GPU two or three times (the measures).
pub(super) fn finish_polar<T: Float>(z: &Array<T>, n: usize) -> Result<Option<(Array<T>, Finish)>> {
    let mut x = z.clone();
    let mut g = gram(&x)?;
    let mut e = deviation(&g, n)?;
    let mut passes = 0;
    if !mendable::<T>(e, n) {
        if !e.is_finite() {
            return Ok(None);
        }
        x = pass_with(&x, &g)?;
        g = gram(&x)?;
        e = deviation(&g, n)?;
        passes = 1;
    }
    let ne = n as f64 * eps::<T>();
    let mut steps = 0;
    // Accepted at POLISH n eps, or at the check's bound once a step has run since the
    // measure that found it past POLISH (a CholeskyQR pass of a cluster's vectors leaves up
    // to about 8 n eps, Newton-Schulz steps about 1).
    let mut stepped = false;
    while !(e <= POLISH || (stepped && enough(e))) {
        if !mendable::<T>(e, n) || steps >= MAX_STEPS {
            if enough(e) {
                break;
            }
            return Ok(None);
        }
        stepped = true;
        // Steps until 3/4 e^2 a step predicts ||E||_F below n eps.
        let mut d = e * ne;
        let mut k = 0;
        while d > ne && k < MAX_STEPS - steps {
            d = 0.75 * d * d;
            k += 1;
        }
        for _ in 0..k.max(1) {
            x = newton_schulz(&x, &g, n)?;
            g = gram(&x)?;
            steps += 1;
        }
        e = deviation(&g, n)?;
    }
    Ok(Some((x, Finish::Polished { passes, steps })))
}

/// One Newton-Schulz step towards the polar factor: X (3 I - G) / 2 with G = X^T X.
fn newton_schulz<T: Float>(x: &Array<T>, g: &Array<T>, n: usize) -> Result<Array<T>> {
    let eye = x.device().eye::<T>(n)?.mul_scalar(T::from_f64(1.5))?;
    let m = eye.sub(&g.mul_scalar(T::from_f64(0.5))?)?;
    let y = x.matmul(&m)?;
    mark(x.device(), "ns_step")?;
    Ok(y)
}
