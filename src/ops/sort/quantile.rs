//! `quantile`, `percentile` and `median` (NumPy's default 'linear' method) by selection:
//! the two values around each quantile's position and the row's largest (NaN where the row
//! holds one) are found by the radix select (32-bit dtypes, rows longer than a workgroup's
//! sort; shorter rows and f16 and f64 are sorted and the values gathered), and the interpolation is elementwise arithmetic in the output
//! type.

use super::radix_select::{select_rows, selects};
use super::{rows_last, sorted_rows};
use crate::array::Array;
use crate::dtype::{Element, Float, Real};
use crate::error::{Error, Result};
use crate::shape::{keepdims_shape, Axes};
use crate::Slice;

/// Where quantile `q` of a sorted row of `len` falls: the lower and upper positions and the
/// fraction between them (NumPy's 'linear' method: position `(len - 1) * q`).
fn position(q: f64, len: usize) -> (u32, u32, f64) {
    let h = (len - 1) as f64 * q;
    let lo = (h.floor() as usize).min(len - 1);
    let hi = (lo + 1).min(len - 1);
    (lo as u32, hi as u32, h - lo as f64)
}

/// A u32 mask of `nq` columns, broadcast to `[rows, nq]`.
fn column_mask<T: Element>(
    x: &Array<T>,
    bits: impl Iterator<Item = bool>,
    shape: [usize; 2],
) -> Result<Array<bool>> {
    let v: Vec<bool> = bits.collect();
    x.dev.from_slice(&v, [shape[1]])?.broadcast_to(shape)
}

/// The values of ranks `ranks` of each row of `x` (`rows` rows of `len`, contiguous from its
/// offset), shape `[rows, ranks.len()]`: by the radix select where the dtype has 32-bit
/// keys and the rows are longer than a workgroup's sort, else by the sort of the rows
/// (in workgroup memory where they fit) and a gather.
fn ranked<T: Element>(x: &Array<T>, rows: usize, len: usize, ranks: &[u32]) -> Result<Array<T>> {
    if selects(T::DTYPE) && len as u32 > super::plan::bitonic_max(&x.dev) {
        return select_rows(x, rows as u32, len as u32, ranks);
    }
    let cols = ranks.len();
    let idx: Vec<u32> = (0..rows).flat_map(|_| ranks.iter().copied()).collect();
    let idx = x.dev.from_slice(&idx, [rows, cols])?;
    let sorted = sorted_rows(x, rows as u32, len as u32)?;
    super::plan::take_rows(&sorted, &idx, len as u32, vec![rows, cols])
}

impl<T: Real> Array<T> {
    /// The quantiles `q` (each in [0, 1]) along `axis` (one, several or all: see [`Axes`];
    /// `..` or `None` for the whole array), by NumPy's default 'linear' method: the sorted values at positions
    /// `floor(h)` and `floor(h) + 1`, `h = (n - 1) q`, interpolated as NumPy's `_lerp`
    /// does (exactly the lower value where `h` is a whole number). A slice holding a NaN
    /// gives NaN, as NumPy. The result has a leading axis of `q.len()`, then the input's
    /// shape without the reduced axes (`[q.len()]` for all), or with them of extent 1 with
    /// `keepdims` (NumPy's `quantile(q, axis=, keepdims=)`).
    ///
    /// The output type `O` (f32, f64 or f16) is the caller's: NumPy gives f64 for integer
    /// and f64 inputs (ask for `f64` where `dev.supports::<f64>()`, else `f32`), and the
    /// input's type for f32 and f16. Computed by a radix select of the ranks needed (four
    /// reads of the input for 32-bit dtypes; rows that fit a workgroup's sort, and f16
    /// and f64, are sorted).
    ///
    /// # Errors
    /// [`Error::InvalidArgument`] for a q outside [0, 1] or NaN, or an axis of length 0;
    /// [`Error::Unsupported`] when the adapter lacks `O` or `O` is not f32/f64/f16 arithmetic
    /// it has; [`Error::AxisOutOfRange`]; as [`Array::sort`].
    ///
    /// ```
    /// # let dev = gpuarray::Device::new()?;
    /// let x = dev.from_slice(&[4i32, 1, 3, 2, 10, 20], [2, 3])?;
    /// let q = x.quantile::<f32>(&[0.5, 0.25], 1, false)?;
    /// assert_eq!(q.shape(), &[2, 2]);
    /// assert_eq!(q.to_vec()?, vec![3.0, 10.0, 2.0, 6.0]);
    /// assert_eq!(x.quantile::<f32>(&[0.5], -1, true)?.shape(), &[1, 2, 1]);
    /// assert_eq!(x.quantile::<f32>(&[1.0], None, false)?.to_vec()?, vec![20.0]);
    /// assert_eq!(x.quantile::<f32>(&[1.0], [0, 1], true)?.shape(), &[1, 1, 1]);
    /// # Ok::<(), gpuarray::Error>(())
    /// ```
    pub fn quantile<O: Float>(
        &self,
        q: &[f64],
        axis: impl Into<Axes>,
        keepdims: bool,
    ) -> Result<Array<O>> {
        self.quantile_of("quantile", q, axis.into(), keepdims)
    }

    /// The percentiles `q` (each in [0, 100]) as [`Array::quantile`] of `q / 100`.
    ///
    /// # Errors
    /// As [`Array::quantile`], for a q outside [0, 100] or NaN.
    ///
    /// ```
    /// # let dev = gpuarray::Device::new()?;
    /// let x = dev.from_slice(&[1.0f32, 2.0, 3.0, 4.0, 5.0], [5])?;
    /// assert_eq!(x.percentile::<f32>(&[25.0, 90.0], None, false)?.to_vec()?, vec![2.0, 4.6]);
    /// assert!(x.percentile::<f32>(&[101.0], None, false).is_err());
    /// # Ok::<(), gpuarray::Error>(())
    /// ```
    pub fn percentile<O: Float>(
        &self,
        q: &[f64],
        axis: impl Into<Axes>,
        keepdims: bool,
    ) -> Result<Array<O>> {
        let q: Vec<f64> = q.iter().map(|&p| p / 100.0).collect();
        self.quantile_of("percentile", &q, axis.into(), keepdims)
    }

    /// The median along `axis` (one, several or all: see [`Axes`]; `..` or `None` for the
    /// whole array, a 0-d array), the reduced axes dropped or, with `keepdims`, kept with
    /// extent 1: [`Array::quantile`] at 0.5. (NumPy's `median` averages the two
    /// middle values; the two differ only where they are infinities of one sign, which
    /// the interpolation makes NaN.) NaN where the slice holds a NaN.
    ///
    /// # Errors
    /// As [`Array::quantile`].
    ///
    /// ```
    /// # let dev = gpuarray::Device::new()?;
    /// let x = dev.from_slice(&[5u32, 1, 4, 2], [4])?;
    /// assert_eq!(x.median::<f32>(None, false)?.to_scalar()?, 3.0);
    /// let y = dev.from_slice(&[1.0f32, f32::NAN, 3.0, 2.0], [2, 2])?;
    /// assert_eq!(y.median::<f32>(-1, true)?.shape(), &[2, 1]);
    /// let m = y.median::<f32>(-1, false)?.to_vec()?;
    /// assert!(m[0].is_nan() && m[1] == 2.5);
    /// # Ok::<(), gpuarray::Error>(())
    /// ```
    pub fn median<O: Float>(&self, axis: impl Into<Axes>, keepdims: bool) -> Result<Array<O>> {
        let m = self.quantile_of("median", &[0.5], axis.into(), keepdims)?;
        let shape = m.shape[1..].to_vec();
        m.reshape(shape)
    }

    /// The array with the axes `axes` (sorted) moved last and merged into one (a copy
    /// where the layout needs one), and the extents of the others, in order.
    pub(crate) fn merged_last(&self, axes: &[usize]) -> Result<(Array<T>, Vec<usize>)> {
        let kept: Vec<usize> = (0..self.ndim()).filter(|d| !axes.contains(d)).collect();
        let perm: Vec<usize> = kept.iter().chain(axes).copied().collect();
        let rest: Vec<usize> = kept.iter().map(|&d| self.shape[d]).collect();
        let mut shape = rest.clone();
        shape.push(axes.iter().map(|&d| self.shape[d]).product());
        let moved = self.transpose(&perm)?;
        let x = moved
            .reshape(shape.clone())
            .or_else(|_| moved.contiguous()?.reshape(shape))?;
        Ok((x, rest))
    }

    fn quantile_of<O: Float>(
        &self,
        op: &'static str,
        q: &[f64],
        axis: Axes,
        keepdims: bool,
    ) -> Result<Array<O>> {
        super::accept(self, op)?;
        self.dev.require_32(op, O::DTYPE)?;
        if q.iter().any(|p| !(0.0..=1.0).contains(p)) {
            return Err(Error::InvalidArgument {
                op,
                reason: "q must lie in [0, 1] (percentile: [0, 100]) and not be NaN",
            });
        }
        let axes = axis.resolve(self.ndim(), op)?;
        let (x, kept) = self.merged_last(&axes)?;
        let (moved, _, rows, len) = rows_last(&x, -1)?;
        let nq = q.len();
        if len == 0 {
            return Err(Error::InvalidArgument {
                op,
                reason: "the axis is empty",
            });
        }
        let (rows, len) = (rows as usize, len as usize);
        let pos: Vec<(u32, u32, f64)> = q.iter().map(|&p| position(p, len)).collect();
        let mut ranks: Vec<u32> = pos.iter().flat_map(|&(lo, hi, _)| [lo, hi]).collect();
        ranks.push(len as u32 - 1);
        let g = ranked(&moved, rows, len, &ranks)?.cast::<O>()?;
        let shape = [rows, nq];
        let lo = g.slice_axis(1, Slice::from(..2 * nq).step(2))?;
        let hi = g.slice_axis(1, Slice::from(1..2 * nq).step(2))?;
        let last = g.slice_axis(1, 2 * nq..)?.broadcast_to(shape)?;
        let t: Vec<O> = pos.iter().map(|p| O::from_f64(p.2)).collect();
        let u: Vec<O> = pos.iter().map(|p| O::from_f64(1.0 - p.2)).collect();
        let t_arr = self.dev.from_slice(&t, [nq])?;
        let u_arr = self.dev.from_slice(&u, [nq])?;
        // NumPy's _lerp: a + (b - a) t, or b - (b - a)(1 - t) where t >= 0.5.
        let diff = hi.sub(&lo)?;
        let below = lo.add(&diff.mul(&t_arr)?)?;
        let above = hi.sub(&diff.mul(&u_arr)?)?;
        let upper = column_mask(&g, pos.iter().map(|p| p.2 >= 0.5), shape)?;
        let exact = column_mask(&g, pos.iter().map(|p| p.2 == 0.0), shape)?;
        let r = Array::where_(&upper, &above, &below)?;
        let r = Array::where_(&exact, &lo.broadcast_to(shape)?, &r)?;
        let r = Array::where_(&last.ne(&last)?, &last, &r)?;
        let mut out_shape = vec![nq];
        match keepdims {
            true => out_shape.extend(keepdims_shape(&kept, &axes)),
            false => out_shape.extend(kept),
        }
        r.t().contiguous()?.reshape(out_shape)
    }
}
