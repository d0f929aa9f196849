//! `polar`: SciPy's `linalg.polar(a, side='right')` by QDWH (Nakatsukasa, Bai and Gygi's
//! dynamically weighted Halley iteration, in the QR and Cholesky forms of Nakatsukasa and
//! Higham's QDWH-SVD), made only of the library's QR, Cholesky, triangular solves and
//! products, on the GPU from start to end. [`super::svd`] builds on it for large matrices.
//!
//! The iteration starts from `X0 = A / ||A||_F` (every singular value in `(0, 1]`) and a
//! lower bound `l0` of `sigma_min(X0)`: the dtype's epsilon. Singular values below
//! `eps ||A||_F` are rounding noise of `A` itself, so the bound costs nothing in accuracy,
//! and fixing it ahead makes the whole schedule of weights `(a, b, c)` (a function of `l`
//! alone) known on the host before anything runs: no value is read back, nothing waits.
//! From `l0 = eps` the schedule has 6 steps in f64 (2 QR steps, then 4 Cholesky steps) and
//! 4 in f32 (2 and 2).
//!
//! Cost per `n x n` matrix, in flops: a QR step factors `[sqrt(c) X; I]` (`2n x n`, about
//! 3.3 n^3), forms its Q (3.3 n^3) and multiplies `Q1 Q2^T` (2 n^3); a Cholesky step forms
//! `X^T X` (2 n^3), factors it (n^3 / 3) and solves with both triangles (2 n^3). f64: about
//! 35 n^3 in all, f32 26 n^3, plus `H = U^T A` (2 n^3).

use super::blocked::{cholesky_in_place, trsm, Tri};
use super::factor::Launcher;
use super::prep::work;
use super::qr::{qr, QrMode};
use super::stack::stack;
use crate::{Array, DType, Float, Result};

/// One step of the iteration: `X <- X (a I + b X^T X) (I + c X^T X)^-1`.
#[derive(Debug, Clone, Copy, PartialEq)]
pub(crate) struct Weights {
    pub a: f64,
    pub b: f64,
    pub c: f64,
}

/// The dtype's machine epsilon.
pub(crate) fn eps_of<T: Float>() -> f64 {
    match T::DTYPE {
        DType::F64 => f64::EPSILON,
        _ => f32::EPSILON as f64,
    }
}

/// Below this `c` a step runs in Cholesky form (`I + c X^T X` then has condition number
/// at most `1 + c`, so the Cholesky form loses nothing), above it in QR form.
const CHOLESKY_BELOW: f64 = 100.0;

/// The weights from the lower bound `l0` of the singular values (the largest being at
/// most one) until the bound is within `10 eps` of one: the optimal rational weights of
/// Nakatsukasa, Bai and Gygi, each step moving the bound to where it takes the smallest
/// singular value.
pub(crate) fn schedule(l0: f64, eps: f64) -> Vec<Weights> {
    let mut l = l0;
    let mut steps = Vec::new();
    while 1.0 - l > 10.0 * eps && steps.len() < 12 {
        let l2 = l * l;
        let d = (4.0 * (1.0 - l2) / (l2 * l2)).cbrt();
        let sd = (1.0 + d).sqrt();
        let a = sd + 0.5 * (8.0 - 4.0 * d + 8.0 * (2.0 - l2) / (l2 * sd)).sqrt();
        let b = (a - 1.0) * (a - 1.0) / 4.0;
        let c = a + b - 1.0;
        steps.push(Weights { a, b, c });
        l = (l * (a + b * l2) / (1.0 + c * l2)).min(1.0);
    }
    // No extra Halley step after the bound reaches 1: measured on lavapipe (sizes 1 to
    // 50, random, graded to 1e-12, orthogonal), one more step left ||U^T U - I|| and
    // ||A - U H|| / ||A|| where they were (up to 1.4 and 0.8 n eps), and it would cost a
    // Cholesky step (about a tenth of the whole).
    steps
}

/// `[count, n, n]` identity matrices (a broadcast view).
fn eyes<T: Float>(x: &Array<T>, count: usize, n: usize) -> Result<Array<T>> {
    x.device().eye::<T>(n)?.broadcast_to([count, n, n])
}

/// The unitary polar factor of each matrix of `a` (`[count, n, n]`, square): QDWH from
/// `a / ||a||_F`. Nothing is read back.
pub(crate) fn qdwh<T: Float>(a: &Array<T>, count: usize, n: usize) -> Result<Array<T>> {
    let dev = a.device();
    // A zero matrix divides by the smallest normal number instead (and stays zero).
    let tiny = match T::DTYPE {
        DType::F64 => f64::MIN_POSITIVE,
        _ => f32::MIN_POSITIVE as f64,
    };
    let alpha = a
        .norm_axis([1, 2], true)?
        .maximum_scalar(T::from_f64(tiny))?;
    let mut x = a.div(&alpha)?;
    let eye = eyes(a, count, n)?;
    let launcher = Launcher::<T>::new(dev)?;
    let per = (n * n) as isize;
    for w in schedule(eps_of::<T>(), eps_of::<T>()) {
        let keep = T::from_f64(w.b / w.c);
        if w.c >= CHOLESKY_BELOW {
            // [sqrt(c) X; I] = [Q1; Q2] R: X <- b/c X + (a - b/c) / sqrt(c) Q1 Q2^T.
            let sc = w.c.sqrt();
            let xs = x.mul_scalar(T::from_f64(sc))?;
            let stacked = Array::concatenate(&[&xs, &eye], 1)?;
            let q = qr(&stacked, QrMode::Reduced)?
                .q
                .expect("reduced QR forms Q");
            let q = q.contiguous()?;
            let strides = vec![2 * per, n as isize, 1];
            let q1 = q.view(vec![count, n, n], strides.clone(), q.offset);
            let q2 = q.view(vec![count, n, n], strides, q.offset + n * n);
            let p = q1.matmul(&q2.swapaxes(1, 2)?)?;
            let k = T::from_f64((w.a - w.b / w.c) / sc);
            x = x.mul_scalar(keep)?.add(&p.mul_scalar(k)?)?;
        } else {
            // Z = I + c X^T X = L L^T: X <- b/c X + (a - b/c) X Z^-1, with
            // (X Z^-1)^T = L^-T L^-1 X^T (Z symmetric).
            let z = x
                .swapaxes(1, 2)?
                .matmul(&x)?
                .mul_scalar(T::from_f64(w.c))?
                .add(&eye)?;
            let l = work(&z, None)?;
            // Z is positive definite by construction (condition at most 1 + c): the
            // status word is not read (a NaN input gives NaN, as everywhere else).
            drop(cholesky_in_place(&launcher, &l, count, n)?);
            let y = work(&x.swapaxes(1, 2)?, None)?;
            for trans in [false, true] {
                let tri = Tri {
                    lower: true,
                    trans,
                    unit: false,
                };
                trsm(&launcher, &l, &y, (count, n, n), tri)?;
            }
            let k = T::from_f64(w.a - w.b / w.c);
            x = x.mul_scalar(keep)?.add(&y.swapaxes(1, 2)?.mul_scalar(k)?)?;
        }
    }
    Ok(x)
}

/// `(U^T A + A^T U) / 2` for `u` and `a` of `[count, m, n]`: the symmetric factor.
pub(crate) fn symmetric_factor<T: Float>(u: &Array<T>, a: &Array<T>) -> Result<Array<T>> {
    let h = u.swapaxes(1, 2)?.matmul(a)?;
    h.add(&h.swapaxes(1, 2)?)?.mul_scalar(T::from_f64(0.5))
}

/// What [`tall_parts`] gives: `(Q, U_R, H)`.
pub(crate) type Parts<T> = (Option<Array<T>>, Array<T>, Array<T>);

/// The polar decomposition of each matrix of a tall (or square) stack `t`
/// (`[count, p, q]`, `p >= q`, contiguous): `(Q, U_R, H)` with `t = Q U_R H`, `Q` from a
/// QR factorization first where `p > q` (`[count, p, q]` for `mode` reduced, `[count, p,
/// p]` complete; `None` for R and for square matrices), `U_R` and `H` `[count, q, q]`.
pub(crate) fn tall_parts<T: Float>(
    t: &Array<T>,
    count: usize,
    p: usize,
    q: usize,
    mode: QrMode,
) -> Result<Parts<T>> {
    let (qf, r) = if p > q {
        let f = qr(t, mode)?;
        let rows = f.r.shape()[1];
        let r = f.r.contiguous()?;
        let r = r.view(
            vec![count, q, q],
            vec![(rows * q) as isize, q as isize, 1],
            r.offset,
        );
        (f.q, r.contiguous()?)
    } else {
        (None, t.clone())
    };
    let u = qdwh(&r, count, q)?;
    let h = symmetric_factor(&u, &r)?;
    Ok((qf, u, h))
}

/// SciPy's `linalg.polar(a)` (side `'right'`) for each matrix of the stack `a`
/// (`[..., M, N]`): `(U, H)` with `A = U H`, `H` (`[..., N, N]`) symmetric positive
/// semidefinite, and `U` (`[..., M, N]`) with orthonormal columns (`M >= N`) or rows
/// (`M < N`).
///
/// By QDWH, the dynamically weighted Halley iteration of Nakatsukasa, Bai and Gygi:
/// `X0 = A / ||A||_F`, then `X <- X (a I + b X^T X) (I + c X^T X)^-1` with weights that
/// take every singular value above `eps ||A||_F` to 1 in 4 (f32) or 6 (f64) steps, the
/// first two as a QR factorization of `[sqrt(c) X; I]` and a product, the others by
/// Cholesky of `I + c X^T X` and two triangular solves; `H = (U^T A + A^T U) / 2`. A tall
/// matrix is factored `A = Q R` first and `U = Q U_R`; a wide one goes through `A^T`. The
/// weights depend on the dtype alone (the iteration starts from the lower bound `eps` of
/// `sigma_min / ||A||_F`), so nothing is read back and the call returns at once.
///
/// Accuracy: `||A - U H|| / ||A||` and `||U^T U - I||` a small multiple of `N eps`. Where
/// `A` is (numerically) rank deficient, the singular values below `eps ||A||_F` are not
/// taken to 1: `U` is then, to working precision, the partial isometry of the canonical
/// polar decomposition on the range of `A^T` (exact zeros stay zero), and still `A = U H`
/// to rounding; a NaN or infinite entry gives NaN in that matrix's results.
///
/// # Errors
/// [`crate::Error::InvalidArgument`] for fewer than 2 dimensions;
/// [`crate::Error::Unsupported`] for dtypes other than f32 and f64 (f64 where the adapter
/// lacks it); [`crate::Error::BufferTooLarge`] where the work (`[2N, N]` per matrix for
/// the QR steps) exceeds the adapter's largest binding.
///
/// ```
/// use gpuarray::linalg::polar;
/// # let dev = gpuarray::Device::new()?;
/// let a = dev.from_slice(&[1.0f64, 2.0, 3.0, 4.0, 5.0, 6.0], [3, 2])?;
/// let (u, h) = polar(&a)?;
/// assert_eq!((u.shape(), h.shape()), (&[3, 2][..], &[2, 2][..]));
/// // A = U H, U^T U = I and H symmetric.
/// let back = u.matmul(&h)?.to_vec()?;
/// for (x, y) in back.iter().zip([1.0, 2.0, 3.0, 4.0, 5.0, 6.0]) {
///     assert!((x - y).abs() < 1e-12);
/// }
/// let utu = u.t().matmul(&u)?.to_vec()?;
/// for (x, y) in utu.iter().zip([1.0, 0.0, 0.0, 1.0]) {
///     assert!((x - y).abs() < 1e-12);
/// }
/// let h = h.to_vec()?;
/// assert_eq!(h[1], h[2]);
/// # Ok::<(), gpuarray::Error>(())
/// ```
pub fn polar<T: Float>(a: &Array<T>) -> Result<(Array<T>, Array<T>)> {
    let st = stack("polar", a)?;
    let (m, n) = (st.m, st.n);
    let dev = a.device();
    if st.count == 0 || m == 0 || n == 0 {
        // U = 0 of A's shape (no columns or rows to be orthonormal), H = 0.
        return Ok((
            dev.zeros::<T>(st.shape(m, n))?,
            dev.zeros::<T>(st.shape(n, n))?,
        ));
    }
    let count = st.count;
    let tall = m >= n;
    let (p, q) = if tall { (m, n) } else { (n, m) };
    let t = if tall {
        a.contiguous()?.reshape([count, m, n])?
    } else {
        a.swapaxes(-1, -2)?.contiguous()?.reshape([count, n, m])?
    };
    let (qf, ur, hr) = tall_parts(&t, count, p, q, QrMode::Reduced)?;
    // U of the tall matrix t.
    let ut = match qf {
        Some(qf) => qf.matmul(&ur)?,
        None => ur,
    };
    let (u, h) = if tall {
        (ut, hr)
    } else {
        // A = U H with U = (t's U)^T (orthonormal rows) and H = U^T A (N x N).
        let u = ut.swapaxes(1, 2)?.contiguous()?;
        let a3 = a.contiguous()?.reshape([count, m, n])?;
        let h = symmetric_factor(&u, &a3)?;
        (u, h)
    };
    Ok((u.reshape(st.shape(m, n))?, h.reshape(st.shape(n, n))?))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn schedule_reaches_one() {
        for eps in [f64::EPSILON, f32::EPSILON as f64] {
            let s = schedule(eps, eps);
            // Nakatsukasa and Higham: 6 steps from l0 = 1e-16 (f64), 2 of them QR steps.
            let want = if eps < 1e-10 { 6 } else { 4 };
            assert_eq!(s.len(), want);
            let qr_steps = s.iter().filter(|w| w.c >= CHOLESKY_BELOW).count();
            assert_eq!(qr_steps, 2);
            // The map of each step keeps [l, 1] in (0, 1].
            let mut l = eps;
            for w in &s {
                let f = |x: f64| x * (w.a + w.b * x * x) / (1.0 + w.c * x * x);
                assert!(f(1.0) <= 1.0 + 1e-12 && f(l) > l);
                l = f(l);
            }
            assert!(1.0 - l < 10.0 * eps, "ends at 1 - {}", 1.0 - l);
        }
    }
}
