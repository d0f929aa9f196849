//! [`ArrayOps`] on the CPU: `ndarray::ArrayD` of f32 and f64 (feature `ndarray`), with the
//! same broadcasting and the same typed errors as the GPU arrays.

use ndarray::{ArrayD, ArrayView1, Ix2};

use super::ArrayOps;
use crate::error::{Error, Result};
use crate::shape::{broadcast_shapes, Axes};

/// `f` of `a` and `b` broadcast to their common shape, or `ShapeMismatch`.
fn zip<A: Copy>(
    op: &'static str,
    a: &ArrayD<A>,
    b: &ArrayD<A>,
    f: impl Fn(A, A) -> A,
) -> Result<ArrayD<A>> {
    let shape = broadcast_shapes(op, a.shape(), b.shape())?;
    let (x, y) = (a.broadcast(shape.clone()), b.broadcast(shape));
    let (Some(x), Some(y)) = (x, y) else {
        unreachable!("shapes that broadcast_shapes accepts broadcast in ndarray too")
    };
    Ok(ndarray::Zip::from(&x).and(&y).map_collect(|&p, &q| f(p, q)))
}

/// `f` of each lane along the axes `axis` of `a` (resolved as the GPU arrays do, so with
/// the same errors), one axis at a time from the last; with `keepdims` the reduced axes
/// stay, with extent 1. `empty` is the error for reducing no elements, if that is one.
fn along<A: Copy>(
    a: &ArrayD<A>,
    op: &'static str,
    axis: Axes,
    keepdims: bool,
    empty: Option<Error>,
    f: impl Fn(ArrayView1<A>) -> A,
) -> Result<ArrayD<A>> {
    let axes = axis.resolve(a.ndim(), op)?;
    if let Some(e) = empty.filter(|_| axes.iter().any(|&d| a.shape()[d] == 0)) {
        return Err(e);
    }
    let mut r = a.clone();
    for &d in axes.iter().rev() {
        r = r.map_axis(ndarray::Axis(d), &f);
    }
    if keepdims {
        for &d in &axes {
            r = r.insert_axis(ndarray::Axis(d));
        }
    }
    Ok(r)
}

fn empty_max() -> Error {
    Error::InvalidArgument {
        op: "max",
        reason: "max over no elements",
    }
}

macro_rules! cpu_array_ops {
    ($($t:ty),*) => {$(
        impl ArrayOps for ArrayD<$t> {
            type Elem = $t;

            fn dims(&self) -> Vec<usize> {
                self.shape().to_vec()
            }
            fn to_host(&self) -> Result<Vec<$t>> {
                Ok(self.iter().copied().collect())
            }
            fn add(&self, o: &Self) -> Result<Self> { zip("add", self, o, |p, q| p + q) }
            fn sub(&self, o: &Self) -> Result<Self> { zip("sub", self, o, |p, q| p - q) }
            fn mul(&self, o: &Self) -> Result<Self> { zip("mul", self, o, |p, q| p * q) }
            fn div(&self, o: &Self) -> Result<Self> { zip("div", self, o, |p, q| p / q) }
            fn maximum(&self, o: &Self) -> Result<Self> {
                zip("maximum", self, o, NanMax::nan_max)
            }
            fn add_scalar(&self, v: $t) -> Result<Self> { Ok(self.mapv(|x| x + v)) }
            fn sub_scalar(&self, v: $t) -> Result<Self> { Ok(self.mapv(|x| x - v)) }
            fn mul_scalar(&self, v: $t) -> Result<Self> { Ok(self.mapv(|x| x * v)) }
            fn div_scalar(&self, v: $t) -> Result<Self> { Ok(self.mapv(|x| x / v)) }
            fn exp(&self) -> Result<Self> { Ok(self.mapv(<$t>::exp)) }
            fn log(&self) -> Result<Self> { Ok(self.mapv(<$t>::ln)) }
            fn log1p(&self) -> Result<Self> { Ok(self.mapv(<$t>::ln_1p)) }
            fn tanh(&self) -> Result<Self> { Ok(self.mapv(<$t>::tanh)) }
            fn sqrt(&self) -> Result<Self> { Ok(self.mapv(<$t>::sqrt)) }
            fn abs(&self) -> Result<Self> { Ok(self.mapv(<$t>::abs)) }
            fn sum_axis(&self, axis: impl Into<Axes>, keepdims: bool) -> Result<Self> {
                along(self, "sum", axis.into(), keepdims, None, |l| l.sum())
            }
            fn mean_axis(&self, axis: impl Into<Axes>, keepdims: bool) -> Result<Self> {
                along(self, "mean", axis.into(), keepdims, None, |l| l.sum() / l.len() as $t)
            }
            fn max_axis(&self, axis: impl Into<Axes>, keepdims: bool) -> Result<Self> {
                along(self, "max", axis.into(), keepdims, Some(empty_max()), |l| {
                    l.fold(<$t>::NEG_INFINITY, |m, &x| m.nan_max(x))
                })
            }
            fn sum_all(&self) -> Result<$t> { Ok(self.sum()) }
            fn mean_all(&self) -> Result<$t> { Ok(self.sum() / self.len() as $t) }
            fn max_all(&self) -> Result<$t> {
                if self.is_empty() {
                    return Err(empty_max());
                }
                Ok(self.fold(<$t>::NEG_INFINITY, |m, &x| m.nan_max(x)))
            }
            fn matmul(&self, o: &Self) -> Result<Self> {
                let mismatch = || Error::ShapeMismatch { op: "matmul", lhs: self.shape().to_vec(), rhs: o.shape().to_vec() };
                let a = self.view().into_dimensionality::<Ix2>().map_err(|_| mismatch())?;
                let b = o.view().into_dimensionality::<Ix2>().map_err(|_| mismatch())?;
                if a.ncols() != b.nrows() {
                    return Err(mismatch());
                }
                Ok(a.dot(&b).into_dyn())
            }
        }
    )*};
}

cpu_array_ops!(f32, f64);

/// The larger of two values, NaN if either is NaN (as the GPU's `maximum` and `max`).
trait NanMax: Copy {
    fn nan_max(self, other: Self) -> Self;
}

macro_rules! nan_max {
    ($($t:ty),*) => {$(
        impl NanMax for $t {
            fn nan_max(self, other: $t) -> $t {
                if self.is_nan() || other.is_nan() { <$t>::NAN } else { self.max(other) }
            }
        }
    )*};
}

nan_max!(f32, f64);
