//! The SVD of large matrices through the polar decomposition (QDWH-SVD, Nakatsukasa and
//! Higham): `A = U_p H` by QDWH ([`crate::linalg::polar`]), `H = V diag(s) V^T` by the
//! public [`super::eigh`] (or [`super::eigvalsh`] for the values alone), `U = U_p V`.
//! Everything is QR, Cholesky, triangular solves, products and the symmetric eigensolver,
//! so the work runs at the rate of the library's products rather than of Jacobi's pair
//! rotations; nothing is read back beyond what eigh reads.

use super::{eigh, eigvalsh, Triangle};
use crate::linalg::polar::tall_parts;
use crate::linalg::qr::{qr, QrMode};
use crate::{Array, Float, Result};

/// `(U, s, V)`, the vectors `None` where not asked for.
type Parts<T> = (Option<Array<T>>, Array<T>, Option<Array<T>>);

/// The SVD of a tall (or square) stack `t` (`[count, p, q]`, `p >= q`, contiguous):
/// `(U, s, V)` with `t = U diag(s) V^T`, `s` `[count, q]` descending, `V` `[count, q, q]`
/// and `U` `[count, p, q]`, or `[count, p, p]` where `full` (completed to an orthogonal
/// matrix); `U` and `V` `None` without `uv`.
pub(super) fn tall_svd<T: Float>(
    t: &Array<T>,
    count: usize,
    p: usize,
    q: usize,
    full: bool,
    uv: bool,
) -> Result<Parts<T>> {
    let mode = match (uv, full) {
        (false, _) => QrMode::R,
        (true, false) => QrMode::Reduced,
        (true, true) => QrMode::Complete,
    };
    let (qf, up, h) = tall_parts(t, count, p, q, mode)?;
    let zero = T::from_f64(0.0);
    if !uv {
        // H is positive semidefinite: its eigenvalues are the singular values (a rounding
        // below zero is clamped).
        let w = eigvalsh(&h, Triangle::Lower)?;
        return Ok((None, w.flip(-1)?.maximum_scalar(zero)?.contiguous()?, None));
    }
    let (w, v) = eigh(&h, Triangle::Lower)?;
    let s = w.flip(-1)?.maximum_scalar(zero)?.contiguous()?;
    let v = v.flip(-1)?.contiguous()?;
    let w = up.matmul(&v)?;
    let w = orthonormal(&w)?;
    let u = match qf {
        None => w,
        Some(qf) => {
            let qf = qf.contiguous()?;
            let cols = qf.shape()[2];
            let q1 = qf.view(
                vec![count, p, q],
                vec![(p * cols) as isize, cols as isize, 1],
                qf.offset,
            );
            let u = q1.matmul(&w)?;
            if cols > q {
                // Complete: Q's other columns span the orthogonal complement of A's range.
                let q2 = qf.view(
                    vec![count, p, cols - q],
                    vec![(p * cols) as isize, cols as isize, 1],
                    qf.offset + q,
                );
                Array::concatenate(&[&u, &q2], 2)?
            } else {
                u
            }
        }
    };
    Ok((Some(u), s, Some(v)))
}

/// `w` (`[count, q, q]`) with orthonormal columns: the Q of its QR factorization, each
/// column's sign that of R's diagonal (a zero diagonal counts as positive), so that
/// columns already orthonormal are kept (R = I to rounding). The columns of singular
/// values below `eps ||A||_F`, which QDWH leaves shorter than 1 (zero for a zero singular
/// value), become an orthonormal basis of what the others leave.
fn orthonormal<T: Float>(w: &Array<T>) -> Result<Array<T>> {
    let f = qr(w, QrMode::Reduced)?;
    let q = f.q.expect("reduced QR forms Q");
    let d = f.r.diagonal(0, -2, -1)?.sign()?;
    // sign(d) - |sign(d)| + 1: 1 for d >= 0, -1 for d < 0.
    let sg = d.sub(&d.abs()?)?.add_scalar(T::from_f64(1.0))?;
    let sh = sg.shape().to_vec();
    let sg = sg.reshape([sh[0], 1, sh[1]])?;
    q.mul(&sg)
}
