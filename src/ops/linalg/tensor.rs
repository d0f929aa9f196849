//! NumPy's tensor products composed from views, copies and [`Array::matmul`]: `inner`,
//! `vdot`, `tensordot` (an axis count or axis pairs: permute, make contiguous, reshape to
//! one matrix product) and `kron` (one broadcast product of interleaved views).

use crate::array::Array;
use crate::dtype::Element;
use crate::error::{Error, Result};
use crate::shape::Axes;

impl<T: Element> Array<T> {
    /// The sum over the axes `a_axes` of `self` and `b_axes` of `other` (paired in order,
    /// negative from the end) of the products: NumPy's `tensordot(a, b, axes=(a_axes,
    /// b_axes))`. The result's axes are `self`'s others, then `other`'s others, in order.
    /// Both operands are permuted into one matrix each (a copy unless already in place) and
    /// multiplied by [`Array::matmul`].
    ///
    /// # Errors
    /// [`Error::InvalidArgument`] for lists of different lengths or an axis listed twice;
    /// [`Error::ShapeMismatch`] when paired axes differ in extent;
    /// [`Error::AxisOutOfRange`]; as [`Array::matmul`] otherwise.
    ///
    /// ```
    /// # let dev = gpuarray::Device::new()?;
    /// let a = dev.arange::<f32>(0.0, 24.0, 1.0)?.reshape([2, 3, 4])?;
    /// let b = dev.ones::<f32>([4, 3])?;
    /// let c = a.tensordot_axes(&b, [1, 2], [1, 0])?; // sum over j, k of a[i, j, k] b[k, j]
    /// assert_eq!(c.to_vec()?, vec![66.0, 210.0]);
    /// # Ok::<(), gpuarray::Error>(())
    /// ```
    pub fn tensordot_axes(
        &self,
        other: &Array<T>,
        a_axes: impl Into<Axes>,
        b_axes: impl Into<Axes>,
    ) -> Result<Array<T>> {
        let op = "tensordot";
        self.dev.expect_same(op, &[&other.dev])?;
        let sa = a_axes.into().resolve_ordered(self.ndim(), op)?;
        let sb = b_axes.into().resolve_ordered(other.ndim(), op)?;
        if sa.len() != sb.len() {
            return Err(Error::InvalidArgument {
                op,
                reason: "the two axis lists must have one length",
            });
        }
        for (&i, &j) in sa.iter().zip(&sb) {
            if self.shape[i] != other.shape[j] {
                return Err(Error::ShapeMismatch {
                    op,
                    lhs: self.shape.clone(),
                    rhs: other.shape.clone(),
                });
            }
        }
        let fa: Vec<usize> = (0..self.ndim()).filter(|d| !sa.contains(d)).collect();
        let fb: Vec<usize> = (0..other.ndim()).filter(|d| !sb.contains(d)).collect();
        let k: usize = sa.iter().map(|&d| self.shape[d]).product();
        let m: usize = fa.iter().map(|&d| self.shape[d]).product();
        let n: usize = fb.iter().map(|&d| other.shape[d]).product();
        let mut shape: Vec<usize> = fa.iter().map(|&d| self.shape[d]).collect();
        shape.extend(fb.iter().map(|&d| other.shape[d]));
        if k * m * n == 0 {
            return self.dev.zeros::<T>(shape);
        }
        let pa: Vec<usize> = fa.iter().chain(&sa).copied().collect();
        let pb: Vec<usize> = sb.iter().chain(&fb).copied().collect();
        let a = self.transpose(&pa)?.contiguous()?.reshape([m, k])?;
        let b = other.transpose(&pb)?.contiguous()?.reshape([k, n])?;
        a.matmul(&b)?.reshape(shape)
    }

    /// NumPy's `tensordot(a, b, axes=n)`: the sum over the last `n` axes of `self` and the
    /// first `n` of `other`. See [`Array::tensordot_axes`].
    ///
    /// # Errors
    /// [`Error::InvalidArgument`] when `n` exceeds either's dimensions; as
    /// [`Array::tensordot_axes`] otherwise.
    ///
    /// ```
    /// # let dev = gpuarray::Device::new()?;
    /// let a = dev.from_slice(&[1, 2, 3, 4], [2, 2])?;
    /// assert_eq!(a.tensordot(&a, 2)?.to_scalar()?, 30);
    /// assert_eq!(a.tensordot(&a, 0)?.shape(), &[2, 2, 2, 2]);
    /// # Ok::<(), gpuarray::Error>(())
    /// ```
    pub fn tensordot(&self, other: &Array<T>, n: usize) -> Result<Array<T>> {
        if n > self.ndim() || n > other.ndim() {
            return Err(Error::InvalidArgument {
                op: "tensordot",
                reason: "the axis count exceeds an operand's dimensions",
            });
        }
        let a: Vec<isize> = (self.ndim() - n..self.ndim()).map(|d| d as isize).collect();
        let b: Vec<isize> = (0..n).map(|d| d as isize).collect();
        self.tensordot_axes(other, &a, &b)
    }

    /// NumPy's `inner`: the sum over the last axes of both of the products, of shape
    /// `self.shape[..-1] + other.shape[..-1]`; a 0-d operand scales the other.
    ///
    /// # Errors
    /// [`Error::ShapeMismatch`] when the last axes differ; as [`Array::tensordot_axes`].
    ///
    /// ```
    /// # let dev = gpuarray::Device::new()?;
    /// let a = dev.from_slice(&[1.0f32, 2.0, 3.0, 4.0], [2, 2])?;
    /// let v = dev.from_slice(&[1.0f32, 10.0], [2])?;
    /// assert_eq!(a.inner(&v)?.to_vec()?, vec![21.0, 43.0]);
    /// # Ok::<(), gpuarray::Error>(())
    /// ```
    pub fn inner(&self, other: &Array<T>) -> Result<Array<T>> {
        if self.ndim() == 0 || other.ndim() == 0 {
            self.dev.expect_same("inner", &[&other.dev])?;
            return self.mul(other);
        }
        self.tensordot_axes(other, [-1], [-1])
    }

    /// NumPy's `vdot`: both flattened (C order), the sum of the products, as a 0-d array;
    /// a complex `self` is conjugated first (`sum(conj(a) * b)`).
    ///
    /// # Errors
    /// [`Error::SizeMismatch`] when the element counts differ; [`Error::DeviceMismatch`].
    ///
    /// ```
    /// # let dev = gpuarray::Device::new()?;
    /// let a = dev.from_slice(&[1, 2, 3, 4], [2, 2])?;
    /// let b = dev.from_slice(&[1, 1, 2, 2], [4])?;
    /// assert_eq!(a.vdot(&b)?.to_scalar()?, 17);
    /// use gpuarray::Complex;
    /// let z = dev.from_slice(&[Complex::new(1.0f32, 2.0), Complex::new(3.0, 4.0)], [2])?;
    /// let w = dev.from_slice(&[Complex::new(5.0f32, 6.0), Complex::new(7.0, 8.0)], [2])?;
    /// assert_eq!(z.vdot(&w)?.to_scalar()?, Complex::new(70.0, -8.0));
    /// # Ok::<(), gpuarray::Error>(())
    /// ```
    pub fn vdot(&self, other: &Array<T>) -> Result<Array<T>> {
        self.dev.expect_same("vdot", &[&other.dev])?;
        if self.len() != other.len() {
            return Err(Error::SizeMismatch {
                shape: other.shape.clone(),
                expected: self.len(),
                actual: other.len(),
            });
        }
        let a = self.ravel()?;
        let a = if T::DTYPE.is_complex() {
            crate::ops::elementwise::conj_any(&a)?
        } else {
            a
        };
        a.tensordot(&other.ravel()?, 1)
    }

    /// The Kronecker product, NumPy's `kron`: the shorter shape padded with leading 1s,
    /// then `out[i * nb + j] = self[i] * other[j]` along every axis (shape the products of
    /// the extents). One broadcast product of interleaved views.
    ///
    /// # Errors
    /// [`Error::DeviceMismatch`]; [`Error::Unsupported`] when the adapter lacks `T`.
    ///
    /// ```
    /// # let dev = gpuarray::Device::new()?;
    /// let a = dev.from_slice(&[1, 10], [2])?;
    /// let b = dev.from_slice(&[1, 2, 3], [3])?;
    /// assert_eq!(a.kron(&b)?.to_vec()?, vec![1, 2, 3, 10, 20, 30]);
    /// # Ok::<(), gpuarray::Error>(())
    /// ```
    pub fn kron(&self, other: &Array<T>) -> Result<Array<T>> {
        self.dev.expect_same("kron", &[&other.dev])?;
        let nd = self.ndim().max(other.ndim());
        let (mut a, mut b) = (self.clone(), other.clone());
        while a.ndim() < nd {
            a = a.expand_dims(0)?;
        }
        while b.ndim() < nd {
            b = b.expand_dims(0)?;
        }
        let shape: Vec<usize> = (0..nd).map(|d| a.shape[d] * b.shape[d]).collect();
        for d in 0..nd {
            a = a.expand_dims((2 * d + 1) as isize)?;
            b = b.expand_dims((2 * d) as isize)?;
        }
        a.mul(&b)?.reshape(shape)
    }
}
