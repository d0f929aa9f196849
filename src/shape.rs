//! Shapes, strides, axes, broadcasting and slice specifications.

use std::ops::{Range, RangeFrom, RangeFull, RangeInclusive, RangeTo, RangeToInclusive};

use crate::error::{Error, Result};

mod axes;
pub use axes::Axes;
pub(crate) use axes::{keepdims_shape, resolve_axis};

/// One axis index, counted from the front, as in ndarray: `a.sum_axis(Axis(0), false)`.
/// Every axis argument takes [`Axes`], which an `Axis` converts into.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct Axis(pub usize);

/// The shape of an array: its extent along each axis, outermost first.
///
/// Built from arrays, slices, vectors or a single `usize`:
/// ```
/// use gpuarray::Shape;
/// assert_eq!(Shape::from([2, 3]).dims(), &[2, 3]);
/// assert_eq!(Shape::from(5).len(), 5);
/// ```
#[derive(Debug, Clone, PartialEq, Eq, Hash, Default)]
pub struct Shape(pub Vec<usize>);

impl Shape {
    /// The extents, outermost first.
    ///
    /// ```
    /// assert_eq!(gpuarray::Shape::from([4, 2]).dims(), &[4, 2]);
    /// ```
    pub fn dims(&self) -> &[usize] {
        &self.0
    }
    /// Number of dimensions.
    ///
    /// ```
    /// assert_eq!(gpuarray::Shape::from(()).ndim(), 0);
    /// ```
    pub fn ndim(&self) -> usize {
        self.0.len()
    }
    /// Number of elements (1 for a 0-d shape; saturating at `usize::MAX`).
    ///
    /// ```
    /// assert_eq!(gpuarray::Shape::from([3, 0]).len(), 0);
    /// assert_eq!(gpuarray::Shape::from(()).len(), 1);
    /// ```
    #[allow(clippy::len_without_is_empty)]
    pub fn len(&self) -> usize {
        self.0
            .iter()
            .try_fold(1usize, |acc, &d| acc.checked_mul(d))
            .unwrap_or(usize::MAX)
    }
}

impl<const N: usize> From<[usize; N]> for Shape {
    fn from(d: [usize; N]) -> Self {
        Shape(d.to_vec())
    }
}
impl From<&[usize]> for Shape {
    fn from(d: &[usize]) -> Self {
        Shape(d.to_vec())
    }
}
impl From<Vec<usize>> for Shape {
    fn from(d: Vec<usize>) -> Self {
        Shape(d)
    }
}
impl From<&Vec<usize>> for Shape {
    fn from(d: &Vec<usize>) -> Self {
        Shape(d.clone())
    }
}
impl From<usize> for Shape {
    fn from(d: usize) -> Self {
        Shape(vec![d])
    }
}
impl From<()> for Shape {
    fn from(_: ()) -> Self {
        Shape(Vec::new())
    }
}

/// Elements in `shape`, or [`Error::BufferTooLarge`] where the count overflows `usize`.
pub(crate) fn checked_len(shape: &[usize], elem: usize) -> Result<usize> {
    shape
        .iter()
        .try_fold(1usize, |acc, &d| acc.checked_mul(d))
        .ok_or(Error::BufferTooLarge {
            requested: u64::MAX,
            max: u32::MAX as u64 * elem as u64,
        })
}

/// Row-major (C order) strides, in elements, of a shape.
pub(crate) fn contiguous_strides(shape: &[usize]) -> Vec<isize> {
    let mut strides = vec![0; shape.len()];
    let mut acc = 1isize;
    for (s, &d) in strides.iter_mut().zip(shape).rev() {
        *s = acc;
        // Saturating: an empty array may have other extents whose product overflows (its
        // strides are never used to address anything).
        acc = acc.saturating_mul(d.max(1).min(isize::MAX as usize) as isize);
    }
    strides
}

/// Whether `strides` describe a row-major layout of `shape` (axes of extent 1 may have any
/// stride; empty arrays are contiguous).
pub(crate) fn is_contiguous(shape: &[usize], strides: &[isize]) -> bool {
    if shape.contains(&0) {
        return true;
    }
    let mut acc = 1;
    for (&d, &s) in shape.iter().zip(strides).rev() {
        if d != 1 && s != acc {
            return false;
        }
        acc *= d as isize;
    }
    true
}

/// The lowest and highest element offsets (relative to the first element) that a view of
/// `shape` and `strides` reaches: `(0, 0)` for an empty or 0-d one. Negative strides reach
/// below the first element.
pub(crate) fn reach(shape: &[usize], strides: &[isize]) -> (isize, isize) {
    if shape.contains(&0) {
        return (0, 0);
    }
    shape
        .iter()
        .zip(strides)
        .fold((0, 0), |(lo, hi), (&d, &s)| {
            let r = (d as isize - 1).saturating_mul(s);
            (lo + r.min(0), hi + r.max(0))
        })
}

/// Whether a stride vector walks every axis forwards (no negative stride).
pub(crate) fn forwards(strides: &[isize]) -> bool {
    strides.iter().all(|&s| s >= 0)
}

/// NumPy's broadcasting of two shapes.
pub(crate) fn broadcast_shapes(op: &'static str, a: &[usize], b: &[usize]) -> Result<Vec<usize>> {
    let n = a.len().max(b.len());
    let mut out = vec![0; n];
    for (i, o) in out.iter_mut().enumerate() {
        let da = if i + a.len() >= n {
            a[i + a.len() - n]
        } else {
            1
        };
        let db = if i + b.len() >= n {
            b[i + b.len() - n]
        } else {
            1
        };
        *o = match (da, db) {
            (x, y) if x == y => x,
            (1, y) => y,
            (x, 1) => x,
            _ => {
                return Err(Error::ShapeMismatch {
                    op,
                    lhs: a.to_vec(),
                    rhs: b.to_vec(),
                })
            }
        };
    }
    Ok(out)
}

/// Strides that view an array of `shape`/`strides` as `target` (0 along broadcast axes).
pub(crate) fn broadcast_strides(
    shape: &[usize],
    strides: &[isize],
    target: &[usize],
) -> Result<Vec<isize>> {
    let err = || Error::Broadcast {
        from: shape.to_vec(),
        to: target.to_vec(),
    };
    if shape.len() > target.len() {
        return Err(err());
    }
    let lead = target.len() - shape.len();
    let mut out = vec![0; target.len()];
    for i in 0..shape.len() {
        let t = target[lead + i];
        out[lead + i] = if shape[i] == t {
            strides[i]
        } else if shape[i] == 1 {
            0
        } else {
            return Err(err());
        };
    }
    Ok(out)
}

/// Merges adjacent axes that are contiguous with each other in every operand, and drops axes
/// of extent 1, so kernels see as few dimensions as possible (at least one). Returns the
/// merged shape and one merged stride vector per operand.
pub(crate) fn collapse(shape: &[usize], strides: &[&[isize]]) -> (Vec<usize>, Vec<Vec<isize>>) {
    let mut out_shape: Vec<usize> = Vec::new();
    let mut out_strides: Vec<Vec<isize>> = vec![Vec::new(); strides.len()];
    for d in 0..shape.len() {
        if shape[d] == 1 {
            continue;
        }
        let mergeable = !out_shape.is_empty()
            && strides.iter().zip(&out_strides).all(|(s, os)| {
                let last = *os.last().unwrap();
                last == s[d] * shape[d] as isize
            });
        if mergeable {
            *out_shape.last_mut().unwrap() *= shape[d];
            for (s, os) in strides.iter().zip(out_strides.iter_mut()) {
                *os.last_mut().unwrap() = s[d];
            }
        } else {
            out_shape.push(shape[d]);
            for (s, os) in strides.iter().zip(out_strides.iter_mut()) {
                os.push(s[d]);
            }
        }
    }
    if out_shape.is_empty() {
        out_shape.push(1);
        for os in out_strides.iter_mut() {
            os.push(0);
        }
    }
    (out_shape, out_strides)
}

/// One axis of a slice: NumPy's `start:end:step`, negative indices counting from the end,
/// and a negative step walking the axis backwards (a view with a negative stride).
///
/// Made from Rust ranges (`2..7`, `..`, `3..`, `..=4`), with [`Slice::new`] or with
/// [`Slice::numpy`] (every part optional, as NumPy writes them); `.step(k)` takes every
/// k-th element, `.step(-1)` of `..` reverses the axis.
/// ```
/// use gpuarray::Slice;
/// let s = Slice::from(1..9).step(2);
/// assert_eq!((s.start, s.end, s.step), (Some(1), Some(9), 2));
/// # let dev = gpuarray::Device::new()?;
/// let x = dev.arange::<i32>(0, 5, 1)?;
/// assert_eq!(x.slice(Slice::from(..).step(-1))?.to_vec()?, vec![4, 3, 2, 1, 0]);
/// # Ok::<(), gpuarray::Error>(())
/// ```
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Slice {
    /// First index (negative counts from the end); `None` for the start of the walk: the
    /// first element for a positive step, the last for a negative one.
    pub start: Option<isize>,
    /// Where the walk stops, exclusive (negative counts from the end); `None` to walk to
    /// the end of the axis (past the first element for a negative step).
    pub end: Option<isize>,
    /// Distance between taken elements, negative to walk backwards; never 0.
    pub step: isize,
}

/// A slice step: the integer types that convert to one (`isize`; `usize` values past
/// `isize::MAX` saturate, which takes one element as any step past the axis does).
pub trait SliceStep: Copy {
    /// The step as an `isize`.
    ///
    /// ```
    /// use gpuarray::SliceStep;
    /// assert_eq!(usize::MAX.to_step(), isize::MAX);
    /// assert_eq!((-2i32).to_step(), -2);
    /// ```
    fn to_step(self) -> isize;
}

macro_rules! slice_step {
    ($($t:ty),*) => {$(
        impl SliceStep for $t {
            fn to_step(self) -> isize {
                isize::try_from(self).unwrap_or(isize::MAX)
            }
        }
    )*};
}
slice_step!(i32, i64, isize, u32, u64, usize);

impl Slice {
    /// A slice from `start` to `end` (exclusive) taking every `step`-th element (backwards
    /// from `start` for a negative step).
    ///
    /// ```
    /// # let dev = gpuarray::Device::new()?;
    /// let x = dev.arange::<i32>(0, 10, 1)?;
    /// // the last three, NumPy's x[-3:]
    /// assert_eq!(x.slice(gpuarray::Slice::new(-3, None, 1))?.to_vec()?, vec![7, 8, 9]);
    /// // NumPy's x[5:1:-2]
    /// assert_eq!(x.slice(gpuarray::Slice::new(5, Some(1), -2))?.to_vec()?, vec![5, 3]);
    /// # Ok::<(), gpuarray::Error>(())
    /// ```
    pub fn new(start: isize, end: Option<isize>, step: impl SliceStep) -> Self {
        Slice {
            start: Some(start),
            end,
            step: step.to_step(),
        }
    }
    /// NumPy's `start:end:step` with every part optional (`None` for a part left out; a
    /// step left out is 1).
    ///
    /// ```
    /// use gpuarray::Slice;
    /// # let dev = gpuarray::Device::new()?;
    /// let x = dev.arange::<i32>(0, 10, 1)?;
    /// // x[::-3]
    /// let v = x.slice(Slice::numpy(None, None, Some(-3)))?;
    /// assert_eq!(v.to_vec()?, vec![9, 6, 3, 0]);
    /// // x[-2::-4]
    /// assert_eq!(x.slice(Slice::numpy(Some(-2), None, Some(-4)))?.to_vec()?, vec![8, 4, 0]);
    /// # Ok::<(), gpuarray::Error>(())
    /// ```
    pub fn numpy(start: Option<isize>, end: Option<isize>, step: Option<isize>) -> Self {
        Slice {
            start,
            end,
            step: step.unwrap_or(1),
        }
    }
    /// The same slice with another step (negative to walk backwards).
    ///
    /// ```
    /// # let dev = gpuarray::Device::new()?;
    /// let x = dev.arange::<i32>(0, 10, 1)?;
    /// assert_eq!(x.slice(gpuarray::Slice::from(1..).step(3))?.to_vec()?, vec![1, 4, 7]);
    /// assert_eq!(x.slice(gpuarray::Slice::from(..7).step(-3))?.to_vec()?, vec![9]);
    /// # Ok::<(), gpuarray::Error>(())
    /// ```
    pub fn step(self, step: impl SliceStep) -> Self {
        Slice {
            step: step.to_step(),
            ..self
        }
    }

    /// Resolves against an axis of length `len`: (index of the first element taken, extent).
    /// Bounds resolve in `0..=len` (as for positive steps; a negative step's start of `len`
    /// starts at the last element).
    pub(crate) fn resolve(&self, axis: usize, len: usize) -> Result<(usize, usize)> {
        let n = len as isize;
        let fix = |i: isize| if i < 0 { i + n } else { i };
        let back = self.step < 0;
        let start = self.start.map(fix).unwrap_or(if back { n - 1 } else { 0 });
        let end = self.end.map(fix).unwrap_or(if back { -1 } else { n });
        let bad = |i: isize, default: bool| !default && !(0..=n).contains(&i);
        if self.step == 0 || bad(start, self.start.is_none()) || bad(end, self.end.is_none()) {
            return Err(Error::SliceOutOfRange {
                axis,
                start,
                end,
                step: self.step,
                len,
            });
        }
        let step = self.step.unsigned_abs();
        if back {
            let start = start.min(n - 1);
            let extent = if start > end {
                ((start - end) as usize).div_ceil(step)
            } else {
                0
            };
            return Ok((start.max(0) as usize, extent));
        }
        let extent = if end > start {
            ((end - start) as usize).div_ceil(step)
        } else {
            0
        };
        Ok((start as usize, extent))
    }
}

impl From<Range<usize>> for Slice {
    fn from(r: Range<usize>) -> Self {
        Slice::new(r.start as isize, Some(r.end as isize), 1)
    }
}
impl From<RangeInclusive<usize>> for Slice {
    fn from(r: RangeInclusive<usize>) -> Self {
        Slice::new(*r.start() as isize, Some(*r.end() as isize + 1), 1)
    }
}
impl From<RangeFrom<usize>> for Slice {
    fn from(r: RangeFrom<usize>) -> Self {
        Slice::new(r.start as isize, None, 1)
    }
}
impl From<RangeTo<usize>> for Slice {
    fn from(r: RangeTo<usize>) -> Self {
        Slice::numpy(None, Some(r.end as isize), None)
    }
}
impl From<RangeToInclusive<usize>> for Slice {
    fn from(r: RangeToInclusive<usize>) -> Self {
        Slice::numpy(None, Some(r.end as isize + 1), None)
    }
}
impl From<RangeFull> for Slice {
    fn from(_: RangeFull) -> Self {
        Slice::numpy(None, None, None)
    }
}

/// Slices for the leading axes of an array; axes not named are taken whole.
///
/// A single range slices axis 0; an array or vector of [`Slice`]s slices one axis each.
/// ```
/// use gpuarray::{Slice, SliceInfo};
/// let one: SliceInfo = (2..5).into();
/// let two: SliceInfo = [Slice::from(..), Slice::from(1..).step(2)].into();
/// assert_eq!(two.0.len(), 2);
/// # let _ = one;
/// ```
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct SliceInfo(pub Vec<Slice>);

macro_rules! one_axis {
    ($($t:ty),*) => {$(
        impl From<$t> for SliceInfo {
            fn from(r: $t) -> Self {
                SliceInfo(vec![Slice::from(r)])
            }
        }
    )*};
}
one_axis!(
    Range<usize>,
    RangeInclusive<usize>,
    RangeFrom<usize>,
    RangeTo<usize>,
    RangeToInclusive<usize>,
    RangeFull
);
impl From<Slice> for SliceInfo {
    fn from(s: Slice) -> Self {
        SliceInfo(vec![s])
    }
}
impl<const N: usize> From<[Slice; N]> for SliceInfo {
    fn from(s: [Slice; N]) -> Self {
        SliceInfo(s.to_vec())
    }
}
impl From<&[Slice]> for SliceInfo {
    fn from(s: &[Slice]) -> Self {
        SliceInfo(s.to_vec())
    }
}
impl From<Vec<Slice>> for SliceInfo {
    fn from(s: Vec<Slice>) -> Self {
        SliceInfo(s)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// An empty shape whose other extents multiply past usize (found by tests/fuzz.rs).
    #[test]
    fn strides_of_empty_shapes_with_huge_extents() {
        let s = contiguous_strides(&[8, 0, 1 << 62, 4]);
        assert_eq!(s[3], 1);
        assert_eq!(checked_len(&[8, 0, 1 << 62, 4], 4).unwrap(), 0);
    }

    #[test]
    fn broadcasting() {
        assert_eq!(broadcast_shapes("t", &[3, 1], &[4]).unwrap(), vec![3, 4]);
        assert_eq!(broadcast_shapes("t", &[], &[2, 2]).unwrap(), vec![2, 2]);
        assert!(broadcast_shapes("t", &[3], &[4]).is_err());
        assert_eq!(
            broadcast_strides(&[3, 1], &[1, 1], &[2, 3, 4]).unwrap(),
            vec![0, 1, 0]
        );
    }

    #[test]
    fn collapsing() {
        let (s, st) = collapse(&[2, 3, 4], &[&[12, 4, 1], &[0, 4, 1]]);
        assert_eq!(s, vec![2, 12]);
        assert_eq!(st, vec![vec![12, 1], vec![0, 1]]);
        let (s, st) = collapse(&[2, 1, 4], &[&[4, 4, 1]]);
        assert_eq!(s, vec![8]);
        assert_eq!(st, vec![vec![1]]);
    }

    #[test]
    fn slices() {
        assert_eq!(Slice::from(1..9).step(2).resolve(0, 10).unwrap(), (1, 4));
        assert_eq!(Slice::new(-3, None, 1).resolve(0, 10).unwrap(), (7, 3));
        assert!(Slice::from(0..11).resolve(0, 10).is_err());
        assert!(Slice::from(0..1).step(0).resolve(0, 10).is_err());
        assert_eq!(Slice::new(5, Some(2), 1).resolve(0, 10).unwrap(), (5, 0));
    }
}
