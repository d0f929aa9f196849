//! Diagonals and triangles: `diagonal` (a strided view), `diag` (both directions) and
//! `triu`/`tril` (the `band` kernel).

use crate::array::Array;
use crate::dtype::Element;
use crate::error::{Error, Result};
use crate::shape::{checked_len, Axes};

use super::kernel::{band, copy_into};

/// `k` clamped into i32 at `±(n + 1)`, past which a band keeps everything or nothing.
fn clamp_k(k: isize, n: usize) -> i32 {
    let lim = n.min(i32::MAX as usize - 1) as isize + 1;
    k.clamp(-lim, lim) as i32
}

impl<T: Element> Array<T> {
    /// The diagonal `offset` (positive above the main one, negative below) of the matrices
    /// spanned by `axis1` and `axis2` (negative from the end), as NumPy's `diagonal`: a
    /// VIEW whose last axis runs along the diagonal, the other axes kept in order before it.
    /// (NumPy's view is read-only; this one shares the buffer as any view does.)
    ///
    /// # Errors
    /// [`Error::AxisOutOfRange`]; [`Error::InvalidArgument`] when the two axes are the same,
    /// or either is several axes or all.
    ///
    /// ```
    /// # let dev = gpuarray::Device::new()?;
    /// let x = dev.arange::<i32>(0, 6, 1)?.reshape([2, 3])?;
    /// assert_eq!(x.diagonal(0, 0, 1)?.to_vec()?, vec![0, 4]);
    /// assert_eq!(x.diagonal(1, 0, 1)?.to_vec()?, vec![1, 5]);
    /// assert_eq!(x.diagonal(-1, -2, -1)?.to_vec()?, vec![3]);
    /// # Ok::<(), gpuarray::Error>(())
    /// ```
    pub fn diagonal(
        &self,
        offset: isize,
        axis1: impl Into<Axes>,
        axis2: impl Into<Axes>,
    ) -> Result<Array<T>> {
        let (a, b) = (
            axis1.into().resolve_single(self.ndim(), "diagonal")?,
            axis2.into().resolve_single(self.ndim(), "diagonal")?,
        );
        if a == b {
            return Err(Error::InvalidArgument {
                op: "diagonal",
                reason: "axis1 and axis2 must differ",
            });
        }
        let (na, nb) = (self.shape[a] as isize, self.shape[b] as isize);
        let len = if offset >= 0 {
            na.min(nb - offset)
        } else {
            (na + offset).min(nb)
        }
        .max(0) as usize;
        let start = match (len, offset >= 0) {
            (0, _) => 0,
            (_, true) => offset * self.strides[b],
            (_, false) => -offset * self.strides[a],
        };
        let keep = (0..self.ndim()).filter(|&d| d != a && d != b);
        let mut shape: Vec<usize> = keep.clone().map(|d| self.shape[d]).collect();
        let mut strides: Vec<isize> = keep.map(|d| self.strides[d]).collect();
        shape.push(len);
        strides.push(self.strides[a] + self.strides[b]);
        let start = (self.offset as isize + start) as usize;
        Ok(self.view(shape, strides, start))
    }

    /// As NumPy's `diag`: for a 1-D array, a new square matrix with it on diagonal `k` and
    /// zeros elsewhere; for a 2-D array, its diagonal `k` as a VIEW (see
    /// [`Array::diagonal`]).
    ///
    /// # Errors
    /// [`Error::InvalidArgument`] for other dimensionalities; [`Error::BufferTooLarge`].
    ///
    /// ```
    /// # let dev = gpuarray::Device::new()?;
    /// let v = dev.from_slice(&[1, 2], [2])?;
    /// assert_eq!(v.diag(1)?.to_vec()?, vec![0, 1, 0, 0, 0, 2, 0, 0, 0]);
    /// assert_eq!(v.diag(0)?.diag(0)?.to_vec()?, vec![1, 2]);
    /// # Ok::<(), gpuarray::Error>(())
    /// ```
    pub fn diag(&self, k: isize) -> Result<Array<T>> {
        match self.ndim() {
            2 => self.diagonal(k, 0, 1),
            1 => {
                let m = self
                    .len()
                    .checked_add(k.unsigned_abs())
                    .ok_or(Error::BufferTooLarge {
                        requested: u64::MAX,
                        max: u32::MAX as u64,
                    })?;
                checked_len(&[m, m], T::DTYPE.size())?;
                let out = self.dev.zeros::<T>([m, m])?;
                let start = if k >= 0 {
                    k as usize
                } else {
                    k.unsigned_abs() * m
                };
                copy_into(self, &out, start, &[m as isize + 1])?;
                Ok(out)
            }
            _ => Err(Error::InvalidArgument {
                op: "diag",
                reason: "the input must be 1-D or 2-D",
            }),
        }
    }

    /// A copy with the elements below diagonal `k` of the last two axes zeroed (kept where
    /// column - row >= `k`), as NumPy's `triu`, for any ndim of at least 2 (NumPy also takes
    /// 1-D input as a row broadcast; here broadcast first with [`Array::broadcast_to`]).
    ///
    /// # Errors
    /// [`Error::InvalidArgument`] for fewer than 2 dimensions.
    ///
    /// ```
    /// # let dev = gpuarray::Device::new()?;
    /// let x = dev.from_slice(&[1, 2, 3, 4], [2, 2])?;
    /// assert_eq!(x.triu(0)?.to_vec()?, vec![1, 2, 0, 4]);
    /// assert_eq!(x.triu(1)?.to_vec()?, vec![0, 2, 0, 0]);
    /// # Ok::<(), gpuarray::Error>(())
    /// ```
    pub fn triu(&self, k: isize) -> Result<Array<T>> {
        self.triangle(true, k)
    }

    /// A copy with the elements above diagonal `k` of the last two axes zeroed (kept where
    /// column - row <= `k`), as NumPy's `tril`; as [`Array::triu`] otherwise.
    ///
    /// # Errors
    /// [`Error::InvalidArgument`] for fewer than 2 dimensions.
    ///
    /// ```
    /// # let dev = gpuarray::Device::new()?;
    /// let x = dev.from_slice(&[1, 2, 3, 4], [2, 2])?;
    /// assert_eq!(x.tril(0)?.to_vec()?, vec![1, 0, 3, 4]);
    /// assert_eq!(x.tril(-1)?.to_vec()?, vec![0, 0, 3, 0]);
    /// # Ok::<(), gpuarray::Error>(())
    /// ```
    pub fn tril(&self, k: isize) -> Result<Array<T>> {
        self.triangle(false, k)
    }

    fn triangle(&self, upper: bool, k: isize) -> Result<Array<T>> {
        let nd = self.ndim();
        if nd < 2 {
            return Err(Error::InvalidArgument {
                op: if upper { "triu" } else { "tril" },
                reason: "the input must have at least 2 dimensions",
            });
        }
        band(
            self,
            upper,
            clamp_k(k, self.shape[nd - 1].max(self.shape[nd - 2])),
        )
    }
}

/// How [`Array::meshgrid`] orders its output axes, as NumPy's `indexing=`.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Indexing {
    /// Cartesian: the first two axes swapped (outputs of shape `(n1, n0, n2, ...)`), NumPy's
    /// default.
    Xy,
    /// Matrix: output axis `i` runs along input `i` (shape `(n0, n1, n2, ...)`).
    Ij,
}

impl<T: Element> Array<T> {
    /// Coordinate grids from 1-D coordinate vectors, as NumPy's `meshgrid`: output `i`
    /// holds `xs[i]`'s values along its axis and repeats them along the others. With `copy`
    /// (NumPy's default) each output is a new contiguous array (one copy each); without, a
    /// broadcast VIEW of the input (stride 0 along the repeated axes), which costs nothing.
    ///
    /// # Errors
    /// [`Error::InvalidArgument`] unless every input is 1-D; [`Error::BufferTooLarge`].
    ///
    /// ```
    /// use gpuarray::{Array, Indexing};
    /// # let dev = gpuarray::Device::new()?;
    /// let x = dev.from_slice(&[1, 2, 3], [3])?;
    /// let y = dev.from_slice(&[7, 8], [2])?;
    /// let g = Array::meshgrid(&[&x, &y], Indexing::Xy, true)?;
    /// assert_eq!(g[0].to_vec()?, vec![1, 2, 3, 1, 2, 3]);
    /// assert_eq!(g[1].to_vec()?, vec![7, 7, 7, 8, 8, 8]);
    /// let v = Array::meshgrid(&[&x, &y], Indexing::Ij, false)?;
    /// assert_eq!((v[1].shape(), v[1].strides()), (&[3, 2][..], &[0, 1][..]));
    /// # Ok::<(), gpuarray::Error>(())
    /// ```
    pub fn meshgrid(xs: &[&Array<T>], indexing: Indexing, copy: bool) -> Result<Vec<Array<T>>> {
        if xs.iter().any(|x| x.ndim() != 1) {
            return Err(Error::InvalidArgument {
                op: "meshgrid",
                reason: "every coordinate vector must be 1-D",
            });
        }
        // Output axis of input i.
        let axis = |i: usize| match (indexing, i) {
            (Indexing::Xy, 0) if xs.len() > 1 => 1,
            (Indexing::Xy, 1) => 0,
            _ => i,
        };
        let mut shape = vec![0; xs.len()];
        for (i, x) in xs.iter().enumerate() {
            shape[axis(i)] = x.len();
        }
        checked_len(&shape, T::DTYPE.size())?;
        xs.iter()
            .enumerate()
            .map(|(i, x)| {
                let mut strides = vec![0; shape.len()];
                strides[axis(i)] = x.strides[0];
                let v = x.view(shape.clone(), strides, x.offset);
                if copy {
                    v.contiguous()
                } else {
                    Ok(v)
                }
            })
            .collect()
    }
}
