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

mod spectral;
mod stack;

#[cfg(test)]
pub(crate) use spectral::all_specs as spectral_specs;
pub use spectral::{
    cond, eigh, eigvalsh, lstsq, matrix_rank, norm, pinv, svd, svdvals, Lstsq, NormOrd, Svd, Uplo,
};
