//! `qr`: NumPy's `linalg.qr` (modes reduced, complete, r and raw) by blocked Householder
//! QR with compact-WY panels, on the GPU from start to end (module `qr_kernel`).

use super::qr_kernel::{factor, Factored};
use super::stack::stack;
use crate::{Array, Float, Result};

/// What [`qr`] returns, as NumPy's `mode`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum QrMode {
    /// Q of shape `[..., M, K]` and R of shape `[..., K, N]`, `K = min(M, N)` (NumPy's
    /// default, `'reduced'`).
    #[default]
    Reduced,
    /// Q of shape `[..., M, M]` and R of shape `[..., M, N]` (`'complete'`).
    Complete,
    /// R alone, `[..., K, N]` (`'r'`): Q is not formed.
    R,
}

/// The factors [`qr`] returns: `q` (`None` for [`QrMode::R`]) and `r`.
#[derive(Debug, Clone)]
pub struct Qr<T: crate::Element> {
    /// The orthonormal columns, `[..., M, K]` or `[..., M, M]`.
    pub q: Option<Array<T>>,
    /// The upper triangular (trapezoidal) factor.
    pub r: Array<T>,
}

/// The QR factorization `A = Q R` of each matrix of the stack `a` (`[..., M, N]`, tall or
/// wide), NumPy's `linalg.qr(a, mode)`: Q with orthonormal columns, R upper triangular
/// (upper trapezoidal when `M < N`), the signs of R's diagonal LAPACK's (each reflector
/// maps its column to `-sign(alpha) ||x||`).
///
/// The algorithm is LAPACK's blocked Householder QR with compact-WY panels of 32 columns,
/// all on the GPU: one workgroup per matrix computes a panel's reflectors (every matrix of
/// a stack at once), the panel's T factor comes from `V^T V`, and the rest of the matrix
/// is updated as `A22 -= V (T^T (V^T A22))` by the library's batched products; Q is formed
/// from the identity through the same products. Nothing is read back: the call returns at
/// once. Strided and transposed views are read as they are (the factorization works on a
/// copy). The error is a small multiple of `n` times the dtype's epsilon (`||Q R - A|| /
/// ||A||` and `||Q^T Q - I||`), rank-deficient and zero matrices included; entries beyond
/// about `1e19` in f32 (`1e154` in f64) overflow the column norms.
///
/// # Errors
/// [`crate::Error::InvalidArgument`] for fewer than 2 dimensions;
/// [`crate::Error::Unsupported`] for a dtype other than f32 and f64, or f64 on an adapter
/// without it; [`crate::Error::BufferTooLarge`] for a stack larger than the adapter's
/// largest binding (128 MiB on lavapipe: a 4096 x 4096 f64 matrix fits).
///
/// ```
/// use gpuarray::linalg::{qr, QrMode};
/// # let dev = gpuarray::Device::new()?;
/// let a = dev.from_slice(&[3.0f32, 1.0, 4.0, 2.0], [2, 2])?;
/// let f = qr(&a, QrMode::Reduced)?;
/// let (q, r) = (f.q.unwrap(), f.r);
/// let back = q.matmul(&r)?.to_vec()?;
/// for (x, y) in back.iter().zip([3.0, 1.0, 4.0, 2.0]) {
///     assert!((x - y).abs() < 1e-5);
/// }
/// assert_eq!(r.to_vec()?[2], 0.0); // upper triangular
/// assert!((r.to_vec()?[0].abs() - 5.0).abs() < 1e-5); // |R[0, 0]| = ||a[:, 0]||
/// // a stack of tall matrices, Q complete
/// let s = dev.ones::<f64>([4, 5, 3])?;
/// let f = qr(&s, QrMode::Complete)?;
/// assert_eq!((f.q.unwrap().shape(), f.r.shape()), (&[4, 5, 5][..], &[4, 5, 3][..]));
/// assert!(qr(&dev.ones::<f32>([3])?, QrMode::R).is_err());
/// # Ok::<(), gpuarray::Error>(())
/// ```
pub fn qr<T: Float>(a: &Array<T>, mode: QrMode) -> Result<Qr<T>> {
    let st = stack("qr", a)?;
    let (m, n) = (st.m, st.n);
    let k = m.min(n);
    let f = factor(a, st.count, m, n)?;
    let rows = if mode == QrMode::Complete { m } else { k };
    let r = r_factor(&f, rows)?.reshape(st.shape(rows, n))?;
    let q = match mode {
        QrMode::R => None,
        QrMode::Reduced => Some(f.form_q(k)?.reshape(st.shape(m, k))?),
        QrMode::Complete => Some(f.form_q(m)?.reshape(st.shape(m, m))?),
    };
    Ok(Qr { q, r })
}

/// R's first `rows` rows (`[count, rows, n]`): the upper triangle of the factored work.
fn r_factor<T: Float>(f: &Factored<T>, rows: usize) -> Result<Array<T>> {
    let (count, m, n) = (f.count, f.m, f.n);
    if count * rows * n == 0 {
        return f.work.device().zeros::<T>([count, rows, n]);
    }
    f.work
        .view(
            vec![count, rows, n],
            vec![(m * n) as isize, n as isize, 1],
            0,
        )
        .triu(0)
}

/// NumPy's `linalg.qr(a, mode='raw')`: `(h, tau)`, LAPACK's compact form. `h` has shape
/// `[..., N, M]` (NumPy's: the Fortran-ordered factored matrix, transposed): R on and
/// above the diagonal of `h`'s transpose, the Householder vectors (their unit first
/// element implied) below it; `tau` (`[..., min(M, N)]`) the reflectors' scalars, so that
/// `Q = H_0 H_1 ...` with `H_j = I - tau_j v_j v_j^T`. A reflector whose column is already
/// zero below the diagonal has `tau = 0` (H = I), as LAPACK's.
///
/// # Errors
/// As [`qr`].
///
/// ```
/// use gpuarray::linalg::qr_raw;
/// # let dev = gpuarray::Device::new()?;
/// let a = dev.from_slice(&[3.0f32, 1.0, 4.0, 2.0, 0.0, 5.0], [3, 2])?;
/// let (h, tau) = qr_raw(&a)?;
/// assert_eq!((h.shape(), tau.shape()), (&[2, 3][..], &[2][..]));
/// let tau = tau.to_vec()?;
/// assert!((tau[0] - 1.6).abs() < 1e-5); // (beta - alpha) / beta, beta = -5, alpha = 3
/// # Ok::<(), gpuarray::Error>(())
/// ```
pub fn qr_raw<T: Float>(a: &Array<T>) -> Result<(Array<T>, Array<T>)> {
    let st = stack("qr", a)?;
    let (m, n) = (st.m, st.n);
    let f = factor(a, st.count, m, n)?;
    let h = f
        .work
        .transpose(&[0, 2, 1])?
        .contiguous()?
        .reshape(st.shape(n, m))?;
    let tau = f.tau()?.reshape(st.per_matrix(Some(m.min(n))))?;
    Ok((h, tau))
}
