//! Code that runs on the CPU or the GPU: [`ArrayOps`], the common array operations as one
//! trait, implemented by [`Array`] and, with the `ndarray` feature, by `ndarray::ArrayD` of
//! f32 and f64 (CuPy's `xp = cp.get_array_module(x)`, as a generic parameter).
//!
//! ```
//! use gpuarray::{ArrayOps, Result};
//!
//! /// softplus(x) = log(1 + exp(x)), written once.
//! fn softplus<A: ArrayOps>(x: &A) -> Result<A> {
//!     x.exp()?.log1p()
//! }
//!
//! let dev = gpuarray::Device::new()?;
//! let x = dev.from_slice(&[-1.0f32, 0.0, 2.0], [3])?;
//! let y = softplus(&x)?.to_host()?;
//! assert!((y[1] - 2f32.ln()).abs() < 1e-6);
//! # Ok::<(), gpuarray::Error>(())
//! ```

use crate::array::Array;
use crate::dtype::{Float, Signed};
use crate::error::Result;
use crate::shape::Axes;

/// The array operations generic code may use, on any array type (see the module docs).
///
/// Binary operations broadcast as NumPy; reductions over axes drop them unless `keepdims`; `*_all`
/// reductions give a host scalar. Errors are those of [`Array`]'s methods of the same name
/// (shape mismatches, axes out of range, `max` over no elements); the CPU implementation
/// gives the same typed errors.
///
/// In generic code the trait's methods are called as methods; on a concrete `ndarray`
/// array, whose own `sum_axis` and `mean_axis` come first, call them as
/// `ArrayOps::sum_axis(&x, axis, keepdims)`.
///
/// ```
/// use gpuarray::{ArrayOps, Result};
///
/// /// Each column scaled to mean 0 and variance 1.
/// fn normalise<A: ArrayOps<Elem = f32>>(x: &A) -> Result<A> {
///     let centred = x.sub(&x.mean_axis(0, true)?)?;
///     let var = centred.mul(&centred)?.mean_axis(0, true)?;
///     centred.div(&var.add_scalar(1e-6)?.sqrt()?)
/// }
///
/// let dev = gpuarray::Device::new()?;
/// let x = dev.from_slice(&[1.0f32, 10.0, 3.0, 30.0], [2, 2])?;
/// let z = normalise(&x)?;
/// assert_eq!(z.dims(), vec![2, 2]);
/// assert!((z.max_all()? - 1.0).abs() < 1e-3);
/// # Ok::<(), gpuarray::Error>(())
/// ```
pub trait ArrayOps: Sized {
    /// The element type.
    type Elem: Copy + std::fmt::Debug;

    /// The extents of the axes.
    fn dims(&self) -> Vec<usize>;
    /// The elements in row-major order, on the host.
    fn to_host(&self) -> Result<Vec<Self::Elem>>;

    /// `self + other`, broadcast.
    fn add(&self, other: &Self) -> Result<Self>;
    /// `self - other`, broadcast.
    fn sub(&self, other: &Self) -> Result<Self>;
    /// `self * other`, broadcast.
    fn mul(&self, other: &Self) -> Result<Self>;
    /// `self / other`, broadcast.
    fn div(&self, other: &Self) -> Result<Self>;
    /// The larger of the two, broadcast (NaN if either is NaN).
    fn maximum(&self, other: &Self) -> Result<Self>;

    /// `self + v`.
    fn add_scalar(&self, v: Self::Elem) -> Result<Self>;
    /// `self - v`.
    fn sub_scalar(&self, v: Self::Elem) -> Result<Self>;
    /// `self * v`.
    fn mul_scalar(&self, v: Self::Elem) -> Result<Self>;
    /// `self / v`.
    fn div_scalar(&self, v: Self::Elem) -> Result<Self>;

    /// e^x.
    fn exp(&self) -> Result<Self>;
    /// ln x.
    fn log(&self) -> Result<Self>;
    /// ln(1 + x).
    fn log1p(&self) -> Result<Self>;
    /// tanh x.
    fn tanh(&self) -> Result<Self>;
    /// √x.
    fn sqrt(&self) -> Result<Self>;
    /// |x|.
    fn abs(&self) -> Result<Self>;

    /// The sum along `axis` (one, several or all: see [`Axes`]); with `keepdims` the
    /// reduced axes stay, with extent 1.
    fn sum_axis(&self, axis: impl Into<Axes>, keepdims: bool) -> Result<Self>;
    /// The mean along `axis`, as [`ArrayOps::sum_axis`].
    fn mean_axis(&self, axis: impl Into<Axes>, keepdims: bool) -> Result<Self>;
    /// The largest element along `axis`, as [`ArrayOps::sum_axis`].
    fn max_axis(&self, axis: impl Into<Axes>, keepdims: bool) -> Result<Self>;
    /// The sum of every element.
    fn sum_all(&self) -> Result<Self::Elem>;
    /// The mean of every element.
    fn mean_all(&self) -> Result<Self::Elem>;
    /// The largest element.
    fn max_all(&self) -> Result<Self::Elem>;

    /// The matrix product of two 2-D arrays.
    fn matmul(&self, other: &Self) -> Result<Self>;
}

/// Forwards trait methods to `Array`'s inherent methods of the same name.
macro_rules! forward {
    ($( $name:ident ( $($arg:ident : $t:ty),* ) -> $out:ty; )*) => {$(
        fn $name(&self, $($arg: $t),*) -> Result<$out> {
            Array::$name(self, $($arg),*)
        }
    )*};
}

impl<T: Float + Signed> ArrayOps for Array<T> {
    type Elem = T;

    fn dims(&self) -> Vec<usize> {
        self.shape().to_vec()
    }

    forward! {
        add(other: &Self) -> Self;
        sub(other: &Self) -> Self;
        mul(other: &Self) -> Self;
        div(other: &Self) -> Self;
        maximum(other: &Self) -> Self;
        add_scalar(v: T) -> Self;
        sub_scalar(v: T) -> Self;
        mul_scalar(v: T) -> Self;
        div_scalar(v: T) -> Self;
        exp() -> Self;
        log() -> Self;
        log1p() -> Self;
        tanh() -> Self;
        sqrt() -> Self;
        abs() -> Self;
        sum_axis(axis: impl Into<Axes>, keepdims: bool) -> Self;
        mean_axis(axis: impl Into<Axes>, keepdims: bool) -> Self;
        max_axis(axis: impl Into<Axes>, keepdims: bool) -> Self;
        matmul(other: &Self) -> Self;
    }

    fn to_host(&self) -> Result<Vec<T>> {
        self.to_vec()
    }

    fn sum_all(&self) -> Result<T> {
        self.sum()?.to_scalar()
    }

    fn mean_all(&self) -> Result<T> {
        self.mean()?.to_scalar()
    }

    fn max_all(&self) -> Result<T> {
        self.max()?.to_scalar()
    }
}

#[cfg(feature = "ndarray")]
mod cpu;
