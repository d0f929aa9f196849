//! NumPy's `solve`, `inv`, `det`, `slogdet` and `matrix_power`, through the LU of
//! [`super::blocked`].

use super::blocked::{lu_in_place, lu_solve_in_place};
use super::factor::{status_array, FParams, Launcher};
use super::factor_small;
use super::prep::{check, shaped, work, Rhs};
use super::stack::square;
use crate::array::Array;
use crate::dtype::Float;
use crate::error::{Error, Result};
use crate::shape::contiguous_strides;

/// NumPy 2's `linalg.solve(a, b)`: `x` with `A x = b` for each square matrix of the stack
/// `a` (`[..., N, N]`). `b` is one vector (`[N]`, the result `[..., N]`) only when it is
/// 1-D; otherwise a stack of matrices `[..., N, K]` (the result `[..., N, K]`). Batch
/// dimensions broadcast.
///
/// LU with partial pivoting (blocked, trailing updates by [`Array::matmul`]), then the two
/// triangular solves, all on the GPU; systems up to 32 x 32 with up to 32 right-hand sides
/// in one dispatch, 8, 16 or 32 invocations per system holding its rows in registers. A
/// singular matrix (an exact zero on U's diagonal, as NumPy finds it) is reported by
/// reading back one status word, which waits for the GPU to finish the call; with
/// `Options::linalg_check` off (`GPUARRAY_LINALG_CHECK=0`) the call returns at once and
/// such a matrix gives infinities or NaN.
///
/// # Errors
/// [`Error::NotSquare`], [`Error::ShapeMismatch`] when `b` does not fit `a` (rows, batch),
/// [`Error::Singular`] naming the first singular matrix of the (broadcast) stack,
/// [`Error::Unsupported`] for dtypes other than f32 and f64.
///
/// ```
/// # let dev = gpuarray::Device::new()?;
/// let a = dev.from_slice(&[3.0f64, 1.0, 1.0, 2.0], [2, 2])?;
/// let b = dev.from_slice(&[9.0f64, 8.0], [2])?;
/// let x = gpuarray::linalg::solve(&a, &b)?.to_vec()?;
/// assert!((x[0] - 2.0).abs() < 1e-12 && (x[1] - 3.0).abs() < 1e-12);
/// let singular = dev.zeros::<f64>([2, 2])?;
/// assert!(gpuarray::linalg::solve(&singular, &b).is_err());
/// # Ok::<(), gpuarray::Error>(())
/// ```
pub fn solve<T: Float>(a: &Array<T>, b: &Array<T>) -> Result<Array<T>> {
    solve_op("solve", a, b)
}

fn solve_op<T: Float>(op: &'static str, a: &Array<T>, b: &Array<T>) -> Result<Array<T>> {
    let r = Rhs::new(op, a, b)?;
    if r.empty() {
        return a.dev.zeros::<T>(r.out_shape());
    }
    let n = r.a.n;
    let x = r.work_b(b)?;
    if factor_small::fits(n, r.k) {
        // One dispatch (src/linalg/factor_small.rs); `a` only read (in place where it is a
        // contiguous stack already).
        let w = if a.is_contiguous() && a.offset == 0 && a.shape() == r.a_shape() {
            shaped(a, vec![r.count, n, n])
        } else {
            work(a, Some(&r.a_shape()))?
        };
        let st = status_array(&a.dev, 0)?;
        factor_small::solve(&w, &x, &st, (r.count, n, r.k))?;
        check(&st, 0, |index| Error::Singular { op, index })?;
        return Ok(shaped(&x, r.out_shape()));
    }
    let w = work(a, Some(&r.a_shape()))?;
    let l = Launcher::<T>::new(&a.dev)?;
    let st = lu_in_place(&l, &w, r.count, n, n)?;
    lu_solve_in_place(&l, &w, &st, &x, (r.count, n, r.k), false)?;
    check(&st, r.count * n, |index| Error::Singular { op, index })?;
    Ok(shaped(&x, r.out_shape()))
}

/// NumPy's `linalg.inv(a)`: the inverse of each square matrix of the stack `a`
/// (`[..., N, N]`): [`solve`] with the identity, with its costs and its check (one status
/// word read back, unless `Options::linalg_check` is off).
///
/// # Errors
/// [`Error::NotSquare`], [`Error::Singular`] naming the first singular matrix,
/// [`Error::Unsupported`] for dtypes other than f32 and f64.
///
/// ```
/// # let dev = gpuarray::Device::new()?;
/// let a = dev.from_slice(&[2.0f32, 0.0, 0.0, 4.0], [2, 2])?;
/// assert_eq!(gpuarray::linalg::inv(&a)?.to_vec()?, vec![0.5, 0.0, 0.0, 0.25]);
/// # Ok::<(), gpuarray::Error>(())
/// ```
pub fn inv<T: Float>(a: &Array<T>) -> Result<Array<T>> {
    let st = square("inv", a)?;
    let eye = a.dev.eye::<T>(st.n)?;
    solve_op("inv", a, &eye)
}

/// Sign, log of the magnitude and determinant of each matrix, `[count, 3]`.
fn det_parts<T: Float>(op: &'static str, a: &Array<T>) -> Result<(Array<T>, Vec<usize>)> {
    let st = square(op, a)?;
    let n = st.n;
    let dev = &a.dev;
    if st.count == 0 || n == 0 {
        // The empty product: sign 1, log 0, determinant 1.
        let mut v = Vec::with_capacity(st.count * 3);
        for _ in 0..st.count {
            v.extend([T::from_f64(1.0), T::from_f64(0.0), T::from_f64(1.0)]);
        }
        return Ok((dev.from_slice(&v, [st.count, 3])?, st.batch));
    }
    let w = work(a, None)?;
    let l = Launcher::<T>::new(dev)?;
    let piv = lu_in_place(&l, &w, st.count, n, n)?;
    let out = Array::<T>::alloc(dev, op, vec![st.count, 3])?;
    let p = FParams {
        an: n,
        count: st.count,
        ..FParams::default()
    };
    l.det(&p, &w, &piv, &out)?;
    Ok((out, st.batch))
}

/// Column `k` of the `[count, 3]` parts, as a contiguous array of the batch shape.
fn part<T: Float>(parts: &Array<T>, batch: &[usize], k: usize) -> Result<Array<T>> {
    let strides = contiguous_strides(batch).iter().map(|s| s * 3).collect();
    parts.view(batch.to_vec(), strides, parts.offset + k).copy()
}

/// NumPy's `linalg.det(a)`: the determinant of each square matrix of the stack `a`
/// (`[..., N, N]`, the result `[...]`; 1 for 0 x 0 matrices), from its LU (the product of
/// U's diagonal, signed by the row swaps). Singular matrices give 0 (no error); does not
/// wait for the GPU.
///
/// # Errors
/// [`Error::NotSquare`], [`Error::Unsupported`] for dtypes other than f32 and f64.
///
/// ```
/// # let dev = gpuarray::Device::new()?;
/// let a = dev.from_slice(&[1.0f64, 2.0, 3.0, 4.0], [2, 2])?;
/// let d = gpuarray::linalg::det(&a)?.to_vec()?[0];
/// assert!((d + 2.0).abs() < 1e-12);
/// # Ok::<(), gpuarray::Error>(())
/// ```
pub fn det<T: Float>(a: &Array<T>) -> Result<Array<T>> {
    let (parts, batch) = det_parts("det", a)?;
    part(&parts, &batch, 2)
}

/// NumPy's `linalg.slogdet(a)`: `(sign, logabsdet)` of each square matrix of the stack `a`
/// (`[..., N, N]`, each result `[...]`): the determinant is `sign * exp(logabsdet)`, without
/// its overflow. A singular matrix gives `(0, -inf)` (no error); does not wait for the GPU.
///
/// # Errors
/// [`Error::NotSquare`], [`Error::Unsupported`] for dtypes other than f32 and f64.
///
/// ```
/// # let dev = gpuarray::Device::new()?;
/// let a = dev.from_slice(&[1e200f64, 0.0, 0.0, -1e200], [2, 2])?;
/// let (sign, logdet) = gpuarray::linalg::slogdet(&a)?;
/// assert_eq!(sign.to_vec()?, vec![-1.0]);
/// assert!((logdet.to_vec()?[0] - 400.0 * 10f64.ln()).abs() < 1e-9);
/// # Ok::<(), gpuarray::Error>(())
/// ```
pub fn slogdet<T: Float>(a: &Array<T>) -> Result<(Array<T>, Array<T>)> {
    let (parts, batch) = det_parts("slogdet", a)?;
    Ok((part(&parts, &batch, 0)?, part(&parts, &batch, 1)?))
}

/// NumPy's `linalg.matrix_power(a, n)`: each square matrix of the stack `a` (`[..., M,
/// M]`) to the integer power `n` by repeated squaring with [`Array::matmul`]; `n = 0`
/// gives identities, negative `n` the powers of [`inv`] (with its check).
///
/// # Errors
/// [`Error::NotSquare`], [`Error::Singular`] for negative `n` and a singular matrix,
/// [`Error::Unsupported`] for dtypes other than f32 and f64.
///
/// ```
/// # let dev = gpuarray::Device::new()?;
/// let a = dev.from_slice(&[1.0f32, 1.0, 0.0, 1.0], [2, 2])?;
/// let p = gpuarray::linalg::matrix_power(&a, 5)?;
/// assert_eq!(p.to_vec()?, vec![1.0, 5.0, 0.0, 1.0]);
/// let q = gpuarray::linalg::matrix_power(&a, -2)?;
/// assert_eq!(q.to_vec()?, vec![1.0, -2.0, 0.0, 1.0]);
/// # Ok::<(), gpuarray::Error>(())
/// ```
pub fn matrix_power<T: Float>(a: &Array<T>, n: i64) -> Result<Array<T>> {
    let st = square("matrix_power", a)?;
    if n == 0 {
        return a
            .dev
            .eye::<T>(st.n)?
            .broadcast_to(a.shape().to_vec())?
            .copy();
    }
    let mut base = if n < 0 { inv(a)? } else { a.copy()? };
    let mut e = n.unsigned_abs();
    let mut acc: Option<Array<T>> = None;
    loop {
        if e & 1 == 1 {
            acc = Some(match acc {
                None => base.clone(),
                Some(x) => x.matmul(&base)?,
            });
        }
        e >>= 1;
        if e == 0 {
            break;
        }
        base = base.matmul(&base)?;
    }
    Ok(acc.expect("n != 0 sets a bit"))
}
