//! Linear algebra beyond products: NumPy's `numpy.linalg` (and SciPy's `scipy.linalg`
//! where NumPy has no such function) on the GPU, for f32 and f64.
//!
//! Every function takes a stack of matrices, an array of shape `[..., M, N]`, and works on
//! each matrix of the stack (NumPy 2's convention); strided and transposed views are
//! accepted; results have the input's dtype. The products of the library
//! ([`crate::Array::matmul`]) are in [`crate::Array`] itself.
//!
//! Errors are typed: [`crate::Error::NotSquare`], [`crate::Error::Singular`],
//! [`crate::Error::NotPositiveDefinite`] and [`crate::Error::NoConvergence`] name the
//! function and the first matrix of the stack concerned.

mod stack;

mod blocked;
pub(crate) mod chol_panel;
mod cholesky;
pub(crate) mod factor;
pub(crate) mod factor_prof;
pub(crate) mod factor_read;
pub(crate) mod factor_reg;
pub(crate) mod factor_small;
mod lu;
mod prep;
mod solve;
pub(crate) mod trsm;

pub use cholesky::{cho_solve, cholesky, solve_triangular, Triangle};
pub use lu::{lu, lu_factor, lu_solve, LuFactor, Trans};
pub use solve::{det, inv, matrix_power, slogdet, solve};

// einsum, multi_dot and qr.
mod einsum;
mod einsum_parse;
mod multi_dot;
mod qr;
pub(crate) mod qr_kernel;

pub use einsum::einsum;
pub use multi_dot::multi_dot;
pub use qr::{qr, qr_raw, Qr, QrMode};

// polar (QDWH), which the SVD of large matrices builds on.
pub(crate) mod polar;

pub use polar::polar;

// eigh, svd and what is built on them.
mod spectral;

#[cfg(test)]
pub(crate) use spectral::all_specs as spectral_specs;
#[cfg(test)]
pub(crate) use spectral::eig_small_specs;
#[cfg(test)]
pub(crate) use spectral::svd_small_specs;
#[cfg(test)]
pub(crate) use spectral::tridiag_specs;
pub use spectral::{
    cond, eigh, eigvalsh, lstsq, matrix_rank, norm, pinv, svd, svdvals, Lstsq, NormOrd, Svd,
};
pub use spectral::{svd_with, SvdMethod};
