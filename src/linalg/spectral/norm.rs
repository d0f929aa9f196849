//! NumPy's `linalg.norm`: vector norms of any order and the matrix norms, composed of the
//! library's reductions (and, for the 2-norm, -2 and the nuclear norm, the singular values).

use super::{decompose, invalid};
use crate::{Array, Axes, Float, Result};

/// The order of a norm (NumPy's `ord`).
#[derive(Debug, Clone, Copy, PartialEq)]
pub enum NormOrd {
    /// The Frobenius norm (matrices only): the square root of the sum of squares.
    Fro,
    /// The nuclear norm (matrices only): the sum of the singular values.
    Nuc,
    /// A number: for vectors `sum(|x|^p)^(1/p)` (`inf` the largest `|x|`, `-inf` the
    /// smallest, 0 the count of non-zero elements); for matrices 1 (largest column sum of
    /// `|x|`), -1 (smallest), 2 (largest singular value), -2 (smallest), `inf` (largest row
    /// sum), `-inf` (smallest).
    P(f64),
}

/// The norm of `x` (NumPy's `linalg.norm(x, ord, axis, keepdims)`): over one axis a vector
/// norm, over two axes (rows, then columns) a matrix norm, over `..` (all) the 2-norm of the
/// flattened array where `ord` is `None`, else a vector norm of a 1-D `x` or a matrix norm
/// of a 2-D one. `ord` `None` is the 2-norm of vectors and the Frobenius norm of matrices.
/// With `keepdims` the reduced axes stay, with extent 1.
///
/// # Errors
/// [`crate::Error::InvalidArgument`] for an order that does not apply (`Fro` or `Nuc` of a
/// vector, a matrix order other than those listed in [`NormOrd::P`]), for more than two
/// axes, two equal axes, or `..` with an order on more than two dimensions;
/// [`crate::Error::AxisOutOfRange`]; the errors of the reductions (the extremes of no
/// elements) and of [`super::svd`].
///
/// ```
/// use gpuarray::linalg::{norm, NormOrd};
/// # let dev = gpuarray::Device::new()?;
/// let x = dev.from_slice(&[3.0f32, -4.0, 0.0, 0.0], [2, 2])?;
/// assert_eq!(norm(&x, None, .., false)?.to_scalar()?, 5.0);
/// assert_eq!(norm(&x, Some(NormOrd::P(1.0)), 1, false)?.to_vec()?, vec![7.0, 0.0]);
/// assert_eq!(norm(&x, Some(NormOrd::P(f64::INFINITY)), [0, 1], false)?.to_scalar()?, 7.0);
/// # Ok::<(), gpuarray::Error>(())
/// ```
pub fn norm<T: Float>(
    x: &Array<T>,
    ord: Option<NormOrd>,
    axis: impl Into<Axes>,
    keepdims: bool,
) -> Result<Array<T>> {
    const OP: &str = "norm";
    x.device()
        .accept(OP, T::DTYPE, crate::dtype::accepts::factor)?;
    let axis = axis.into();
    let nd = x.ndim();
    let axes: Vec<usize> = match &axis {
        Axes::All => {
            if ord.is_none() {
                return x.norm_axis(.., keepdims);
            }
            match nd {
                1 => vec![0],
                2 => vec![0, 1],
                _ => {
                    return Err(invalid(
                        OP,
                        "needs 1 or 2 dimensions for an order over all axes",
                    ))
                }
            }
        }
        Axes::One(_) => axis.resolve(nd, OP)?,
        Axes::Many(list) => {
            // Kept in the order given: (rows, columns).
            let r = axis.resolve_ordered(nd, OP)?;
            if list.len() > 2 || r.is_empty() {
                return Err(invalid(OP, "needs one axis (vectors) or two (matrices)"));
            }
            r
        }
    };
    let out = if axes.len() == 1 {
        vector(x, ord, axes[0])?
    } else {
        matrix(x, ord, axes[0], axes[1])?
    };
    if !keepdims {
        return Ok(out);
    }
    let mut shape = x.shape().to_vec();
    for &a in &axes {
        shape[a] = 1;
    }
    out.reshape(shape)
}

fn vector<T: Float>(x: &Array<T>, ord: Option<NormOrd>, ax: usize) -> Result<Array<T>> {
    let p = match ord {
        None => 2.0,
        Some(NormOrd::P(p)) => p,
        Some(_) => return Err(invalid("norm", "Fro and Nuc are matrix norms")),
    };
    let ax = ax as isize;
    if p == 2.0 {
        return x.norm_axis(ax, false);
    }
    if p == 0.0 {
        return x.count_nonzero_axis(ax, false)?.cast::<T>();
    }
    let a = x.abs()?;
    if p == f64::INFINITY {
        a.max_axis(ax, false)
    } else if p == f64::NEG_INFINITY {
        a.min_axis(ax, false)
    } else if p == 1.0 {
        a.sum_axis(ax, false)
    } else if p.is_nan() {
        Err(invalid("norm", "the order is NaN"))
    } else {
        a.pow_scalar(T::from_f64(p))?
            .sum_axis(ax, false)?
            .pow_scalar(T::from_f64(1.0 / p))
    }
}

fn matrix<T: Float>(x: &Array<T>, ord: Option<NormOrd>, r: usize, c: usize) -> Result<Array<T>> {
    if r == c {
        return Err(invalid("norm", "the two axes are the same"));
    }
    let (ri, ci) = (r as isize, c as isize);
    match ord {
        None | Some(NormOrd::Fro) => x.norm_axis([ri, ci], false),
        Some(NormOrd::Nuc) => singular(x, r, c)?.sum_axis(-1, false),
        Some(NormOrd::P(p)) => {
            let a = x.abs()?;
            // Column sums (over rows r), then the extreme over the columns (c shifted down
            // where it came after r); likewise the row sums for inf.
            let c_after = if c > r { ci - 1 } else { ci };
            let r_after = if r > c { ri - 1 } else { ri };
            if p == 2.0 {
                singular(x, r, c)?.max_axis(-1, false)
            } else if p == -2.0 {
                singular(x, r, c)?.min_axis(-1, false)
            } else if p == 1.0 {
                a.sum_axis(ri, false)?.max_axis(c_after, false)
            } else if p == -1.0 {
                a.sum_axis(ri, false)?.min_axis(c_after, false)
            } else if p == f64::INFINITY {
                a.sum_axis(ci, false)?.max_axis(r_after, false)
            } else if p == f64::NEG_INFINITY {
                a.sum_axis(ci, false)?.min_axis(r_after, false)
            } else {
                Err(invalid(
                    "norm",
                    "not a matrix norm order (1, -1, 2, -2, inf, -inf, Fro, Nuc)",
                ))
            }
        }
    }
}

/// The singular values of the matrices of `x` over axes (r, c), `[..., K]`.
fn singular<T: Float>(x: &Array<T>, r: usize, c: usize) -> Result<Array<T>> {
    let moved = x.moveaxis([r as isize, c as isize], [-2isize, -1])?;
    Ok(decompose("norm", &moved, false, false)?.s)
}
