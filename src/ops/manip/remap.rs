//! Copies whose every output element reads one input element found by a rule per axis:
//! flip, roll, pad, tile, repeat (the `remap` kernel).

use crate::array::Array;
use crate::dtype::Element;
use crate::error::{Error, Result};
use crate::shape::checked_len;

use super::kernel::{remap, repeat_runs, roll_flat, Mode};
use crate::shape::Axes;

/// How [`Array::pad`] fills the border, as NumPy's `pad` modes.
///
/// ```
/// use gpuarray::PadMode;
/// # let dev = gpuarray::Device::new()?;
/// let x = dev.from_slice(&[1, 2, 3], [3])?;
/// assert_eq!(x.pad(&[(2, 2)], PadMode::Reflect)?.to_vec()?, vec![3, 2, 1, 2, 3, 2, 1]);
/// assert_eq!(x.pad(&[(2, 2)], PadMode::Symmetric)?.to_vec()?, vec![2, 1, 1, 2, 3, 3, 2]);
/// # Ok::<(), gpuarray::Error>(())
/// ```
#[derive(Debug, Clone, Copy, PartialEq)]
pub enum PadMode<T> {
    /// The value everywhere outside the array.
    Constant(T),
    /// The edge element repeated.
    Edge,
    /// Mirrored about the edge element, which is not repeated (`3 2 | 1 2 3 | 2 1`).
    Reflect,
    /// Mirrored about the edge, which is repeated (`2 1 | 1 2 3 | 3 2`).
    Symmetric,
    /// The array repeated periodically (`2 3 | 1 2 3 | 1 2`).
    Wrap,
}

impl<T: Element> Array<T> {
    /// The elements reversed along `axis` (one, several, or all for `..` / `None`;
    /// negative from the end), as NumPy's `flip(axis=)`: a view with those axes' strides
    /// negated (no copy; writes through it reach `self`).
    ///
    /// # Errors
    /// [`Error::AxisOutOfRange`]; [`Error::InvalidArgument`] for an axis named twice.
    ///
    /// ```
    /// # let dev = gpuarray::Device::new()?;
    /// let x = dev.from_slice(&[1, 2, 3, 4, 5, 6], [2, 3])?;
    /// let f = x.flip(-1)?;
    /// assert_eq!((f.strides(), f.to_vec()?), (&[3, -1][..], vec![3, 2, 1, 6, 5, 4]));
    /// assert_eq!(x.flip([0])?.to_vec()?, vec![4, 5, 6, 1, 2, 3]);
    /// assert_eq!(x.flip(..)?.to_vec()?, vec![6, 5, 4, 3, 2, 1]);
    /// # Ok::<(), gpuarray::Error>(())
    /// ```
    pub fn flip(&self, axis: impl Into<Axes>) -> Result<Array<T>> {
        let axes = axis.into().resolve(self.ndim(), "flip")?;
        let flip: Vec<bool> = (0..self.ndim()).map(|d| axes.contains(&d)).collect();
        let mut strides = self.strides.clone();
        let mut offset = self.offset as isize;
        for (d, s) in strides.iter_mut().enumerate().filter(|(d, _)| flip[*d]) {
            // The first element moves to the axis' last (an empty axis has none).
            offset += self.shape[d].saturating_sub(1) as isize * *s;
            *s = -*s;
        }
        Ok(self.view(self.shape.clone(), strides, offset as usize))
    }

    /// The elements shifted by `shift` places along `axis` (one axis, negative from the
    /// end), those past the end coming back at the start, as NumPy's `roll`; with all axes
    /// (`..` or `None`), over the flattened array, the shape kept.
    ///
    /// # Errors
    /// [`Error::AxisOutOfRange`]; [`Error::InvalidArgument`] for several axes.
    ///
    /// ```
    /// # let dev = gpuarray::Device::new()?;
    /// let x = dev.from_slice(&[1, 2, 3, 4, 5, 6], [2, 3])?;
    /// assert_eq!(x.roll(1, 1)?.to_vec()?, vec![3, 1, 2, 6, 4, 5]);
    /// assert_eq!(x.roll(-1, None)?.to_vec()?, vec![2, 3, 4, 5, 6, 1]);
    /// # Ok::<(), gpuarray::Error>(())
    /// ```
    pub fn roll(&self, shift: isize, axis: impl Into<Axes>) -> Result<Array<T>> {
        let Some(d) = axis.into().resolve_one(self.ndim(), "roll")? else {
            return self
                .reshape([self.len()])?
                .roll(shift, 0)?
                .reshape(self.dim());
        };
        let mut lo = vec![0; self.ndim()];
        let n = self.shape[d].max(1) as isize;
        lo[d] = shift.rem_euclid(n) as usize;
        // A contiguous array rolled along an axis with only unit axes before it is its
        // flattened elements rolled by the shift times the elements of a slice.
        let inner: usize = self.shape[d + 1..].iter().product();
        let flat = lo[d] * inner;
        if self.is_contiguous() && self.shape[..d].iter().all(|&e| e == 1) && flat > 0 {
            let size = T::DTYPE.size();
            if (size == 4 || size == 8) && self.len() < u32::MAX as usize {
                return roll_flat(self, flat, self.shape.clone());
            }
        }
        remap(
            self,
            "roll",
            self.shape.clone(),
            &lo,
            Mode::Wrap,
            T::zeroed(),
        )
    }

    /// The array padded by `(before, after)` elements along each axis, as NumPy's `pad`:
    /// one pair per axis, or one pair for all. Widths past the array's extent repeat the
    /// rule (reflect and symmetric mirror again, wrap repeats).
    ///
    /// # Errors
    /// [`Error::InvalidArgument`] for a number of pairs other than 1 or `ndim`, or a
    /// non-constant mode padding an empty axis; [`Error::BufferTooLarge`].
    ///
    /// ```
    /// use gpuarray::PadMode;
    /// # let dev = gpuarray::Device::new()?;
    /// let x = dev.from_slice(&[1.0f32, 2.0], [1, 2])?;
    /// let p = x.pad(&[(0, 0), (1, 2)], PadMode::Constant(9.0))?;
    /// assert_eq!(p.to_vec()?, vec![9.0, 1.0, 2.0, 9.0, 9.0]);
    /// assert_eq!(x.pad(&[(1, 1)], PadMode::Edge)?.shape(), &[3, 4]);
    /// # Ok::<(), gpuarray::Error>(())
    /// ```
    pub fn pad(&self, widths: &[(usize, usize)], mode: PadMode<T>) -> Result<Array<T>> {
        let bad = |reason| Error::InvalidArgument { op: "pad", reason };
        let widths = match widths.len() {
            1 => vec![widths[0]; self.ndim()],
            n if n == self.ndim() => widths.to_vec(),
            _ => {
                return Err(bad(
                    "give one (before, after) pair per axis, or one for all",
                ))
            }
        };
        let (mode, fill) = match mode {
            PadMode::Constant(v) => (Mode::Constant, v),
            PadMode::Edge => (Mode::Edge, T::zeroed()),
            PadMode::Reflect => (Mode::Reflect, T::zeroed()),
            PadMode::Symmetric => (Mode::Symmetric, T::zeroed()),
            PadMode::Wrap => (Mode::Wrap, T::zeroed()),
        };
        let mut shape = Vec::with_capacity(self.ndim());
        for (&n, &(b, a)) in self.shape.iter().zip(&widths) {
            if n == 0 && b + a > 0 && mode != Mode::Constant {
                return Err(bad("only constant mode can pad an empty axis"));
            }
            shape.push(n.checked_add(b).and_then(|m| m.checked_add(a)).ok_or(
                Error::BufferTooLarge {
                    requested: u64::MAX,
                    max: u32::MAX as u64,
                },
            )?);
        }
        checked_len(&shape, T::DTYPE.size())?;
        let lo: Vec<usize> = widths.iter().map(|w| w.0).collect();
        remap(self, "pad", shape, &lo, mode, fill)
    }

    /// The array repeated `reps[k]` times along axis k, as NumPy's `tile` (with fewer
    /// repetitions than axes the leading axes are kept once; with more, the array gains
    /// leading axes of extent 1 first).
    ///
    /// # Errors
    /// [`Error::BufferTooLarge`] when the result's element count overflows.
    ///
    /// ```
    /// # let dev = gpuarray::Device::new()?;
    /// let x = dev.from_slice(&[1, 2], [2])?;
    /// assert_eq!(x.tile(&[2, 2])?.to_vec()?, vec![1, 2, 1, 2, 1, 2, 1, 2]);
    /// # Ok::<(), gpuarray::Error>(())
    /// ```
    pub fn tile(&self, reps: &[usize]) -> Result<Array<T>> {
        let nd = self.ndim().max(reps.len());
        let mut x = self.clone();
        while x.ndim() < nd {
            x = x.expand_dims(0)?;
        }
        let mut r = vec![1; nd - reps.len()];
        r.extend_from_slice(reps);
        let shape: Vec<usize> = x.shape.iter().zip(&r).map(|(n, k)| n * k).collect();
        checked_len(&shape, T::DTYPE.size())?;
        remap(&x, "tile", shape, &vec![0; nd], Mode::Wrap, T::zeroed())
    }

    /// Each element repeated `repeats` times along `axis`, as NumPy's `repeat` with one
    /// count, along one axis (negative from the end); with all axes (`..` or `None`), over
    /// the flattened array (a 1-D result).
    ///
    /// # Errors
    /// [`Error::AxisOutOfRange`]; [`Error::InvalidArgument`] for several axes;
    /// [`Error::BufferTooLarge`].
    ///
    /// ```
    /// # let dev = gpuarray::Device::new()?;
    /// let x = dev.from_slice(&[1, 2, 3, 4], [2, 2])?;
    /// assert_eq!(x.repeat(2, 0)?.to_vec()?, vec![1, 2, 1, 2, 3, 4, 3, 4]);
    /// assert_eq!(x.repeat(2, None)?.to_vec()?, vec![1, 1, 2, 2, 3, 3, 4, 4]);
    /// # Ok::<(), gpuarray::Error>(())
    /// ```
    pub fn repeat(&self, repeats: usize, axis: impl Into<Axes>) -> Result<Array<T>> {
        let Some(d) = axis.into().resolve_one(self.ndim(), "repeat")? else {
            return self.reshape([self.len()])?.repeat(repeats, 0);
        };
        let mut shape = self.shape.clone();
        shape[d] *= repeats;
        checked_len(&shape, T::DTYPE.size())?;
        let mut lo = vec![1; self.ndim()];
        lo[d] = repeats.max(1);
        remap(self, "repeat", shape, &lo, Mode::Repeat, T::zeroed())
    }

    /// Element j repeated `counts[j]` times along `axis`, as NumPy's `repeat` with a count
    /// per element (host values, as CuPy takes them); one count repeats every element (as
    /// [`Array::repeat`]); with all axes (`..` or `None`), over the flattened array. One dispatch: each
    /// output element finds its source by binary search in the counts' cumulative sum.
    ///
    /// # Errors
    /// [`Error::InvalidArgument`] unless there is one count or one per element along the
    /// axis; [`Error::AxisOutOfRange`]; [`Error::BufferTooLarge`] when the result's size
    /// overflows.
    ///
    /// ```
    /// # let dev = gpuarray::Device::new()?;
    /// let x = dev.from_slice(&[1, 2, 3, 4], [2, 2])?;
    /// assert_eq!(x.repeat_each(&[1, 2], 0)?.to_vec()?, vec![1, 2, 3, 4, 3, 4]);
    /// assert_eq!(x.repeat_each(&[0, 3], -1)?.to_vec()?, vec![2, 2, 2, 4, 4, 4]);
    /// assert_eq!(x.repeat_each(&[2, 0, 1, 0], None)?.to_vec()?, vec![1, 1, 3]);
    /// # Ok::<(), gpuarray::Error>(())
    /// ```
    pub fn repeat_each(&self, counts: &[usize], axis: impl Into<Axes>) -> Result<Array<T>> {
        let Some(d) = axis.into().resolve_one(self.ndim(), "repeat")? else {
            return self.reshape([self.len()])?.repeat_each(counts, 0);
        };
        if counts.len() == 1 {
            return self.repeat(counts[0], d);
        }
        if counts.len() != self.shape[d] {
            return Err(Error::InvalidArgument {
                op: "repeat",
                reason: "give one count, or one per element along the axis",
            });
        }
        let too_large = Error::BufferTooLarge {
            requested: u64::MAX,
            max: u32::MAX as u64,
        };
        let mut ends = Vec::with_capacity(counts.len());
        let mut total = 0usize;
        for &c in counts {
            total = total.checked_add(c).ok_or(too_large.clone())?;
            ends.push(u32::try_from(total).map_err(|_| too_large.clone())?);
        }
        let mut shape = self.shape.clone();
        shape[d] = total;
        checked_len(&shape, T::DTYPE.size())?;
        if ends.is_empty() {
            return self.dev.zeros(shape);
        }
        let ends = self.dev.from_slice(&ends, [counts.len()])?;
        repeat_runs(self, d, &ends, shape)
    }
}
