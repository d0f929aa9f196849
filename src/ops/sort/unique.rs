//! `unique` and `unique_all`: a sort, a flag where each run of equal values starts, an
//! exclusive scan of the flags (the run of each element) and scatters by it
//! (shaders/sort.wgsl: `flags`, `run_starts`, `inverse`).

use super::params::SortParams;
use super::plan::{self, grid, kernel, scan_blocks, scan_in_place, ITEMS, WG};
use crate::array::Array;
use crate::device::Work;
use crate::dtype::{DType, Element, Real};
use crate::error::Result;
use crate::ops::index::widen;

/// What [`Array::unique_all`] returns (NumPy's `unique_all`, the four arrays of
/// `np.unique(x, return_index=True, return_inverse=True, return_counts=True)`).
///
/// ```
/// # let dev = gpuarray::Device::new()?;
/// let x = dev.from_slice(&[1u32, 1, 0], [3])?;
/// let gpuarray::UniqueAll { values, counts, .. } = x.unique_all()?;
/// assert_eq!((values.to_vec()?, counts.to_vec()?), (vec![0, 1], vec![1, 2]));
/// # Ok::<(), gpuarray::Error>(())
/// ```
#[derive(Debug, Clone)]
pub struct UniqueAll<T: Element> {
    /// The distinct values, sorted (1-D).
    pub values: Array<T>,
    /// The flat index of the first occurrence of each value in the input (i64, NumPy's
    /// intp, as every index array).
    pub indices: Array<i64>,
    /// For every element of the input (its shape), the index of its value in `values`.
    pub inverse_indices: Array<i64>,
    /// How many times each value occurs (u32, as every count: see the README's dtypes).
    pub counts: Array<u32>,
}

/// The flat, contiguous elements of `x`.
fn flat<T: Element>(x: &Array<T>) -> Result<Array<T>> {
    let c = if x.is_contiguous() {
        x.clone()
    } else {
        x.contiguous()?
    };
    c.reshape([x.len()])
}

/// The runs of equal keys of the sorted 1-D `s` (`n` > 0 elements, contiguous from its
/// offset): the exclusive scan of the run flags (`n + 1` words, the last the number of
/// runs), the first element of each run followed by `n` (`runs + 1` words), and the runs.
fn runs<T: Element>(s: &Array<T>) -> Result<(Array<u32>, Array<u32>, usize)> {
    let dev = &s.dev;
    let n = s.len() as u32;
    let d = T::DTYPE;
    let prm = SortParams {
        n,
        in_off: s.offset as u32,
        ..Default::default()
    };
    let scan = Array::<u32>::alloc(dev, "unique", vec![n as usize + 1])?;
    let flags = kernel(dev, d, "flags", 1, WG, 0)?;
    dev.launch(
        &flags,
        &prm.encode(),
        &[s.binding()],
        scan.binding(),
        Work::Items(n + 1),
    )?;
    let sums = dev.alloc(scan_blocks(n + 1) as u64 * 4)?;
    scan_in_place(dev, d, false, &prm, scan.binding(), n + 1, &sums)?;
    let m = scan.slice_axis(0, n as usize..)?.to_vec()?[0] as usize;
    let starts = Array::<u32>::alloc(dev, "unique", vec![m + 1])?;
    let k = kernel(dev, d, "run_starts", 2, WG, 0)?;
    dev.launch(
        &k,
        &prm.encode(),
        &[s.binding(), scan.binding()],
        starts.binding(),
        Work::Items(n),
    )?;
    Ok((scan, starts, m))
}

/// The first value of each run of the sorted, non-empty `s` of a 32-bit dtype, by the tile
/// passes `run_count` and `run_write` (shaders/sort.wgsl): the sorted values are read twice,
/// no flag or position array is written (the general path, [`runs`], writes and scans one
/// word per element). Reads the count back to size the result, as [`runs`] does.
fn unique_words<T: Element>(s: &Array<T>) -> Result<Array<T>> {
    let dev = &s.dev;
    let d = T::DTYPE;
    let n = s.len() as u32;
    let tiles = n.div_ceil(WG * ITEMS);
    let prm = SortParams {
        n,
        in_off: s.offset as u32,
        tiles,
        ..Default::default()
    };
    let offs = Array::<u32>::alloc(dev, "unique", vec![tiles as usize + 1])?;
    let count = kernel(dev, d, "run_count", 1, WG, 0)?;
    dev.launch(
        &count,
        &prm.encode(),
        &[s.binding()],
        offs.binding(),
        grid(tiles),
    )?;
    let sums = dev.alloc(scan_blocks(tiles + 1) as u64 * 4)?;
    scan_in_place(dev, d, false, &prm, offs.binding(), tiles + 1, &sums)?;
    let m = offs.slice_axis(0, tiles as usize..)?.to_vec()?[0] as usize;
    let out = Array::<T>::alloc_with(dev, "unique", vec![m], |b| {
        dev.alloc_apart(b, &[&*s.buf, &*offs.buf])
    })?;
    let write = kernel(dev, d, "run_write", 2, WG, 0)?;
    dev.launch(
        &write,
        &prm.encode(),
        &[s.binding(), offs.binding()],
        out.binding(),
        grid(tiles),
    )?;
    Ok(out)
}

impl<T: Real> Array<T> {
    /// The distinct values of the flattened array, sorted (NumPy's `unique`).
    ///
    /// Values compare as in [`Array::sort`]: -0.0 and +0.0 are one value (the one kept is
    /// the first in the input), and all NaNs are one value, kept once at the end, as NumPy
    /// (>= 1.21, `equal_nan=True`) does. Deterministic: a sort, then a scan of the places
    /// where the value changes; reading the number of values back waits for the GPU.
    ///
    /// # Errors
    /// As [`Array::sort`].
    ///
    /// ```
    /// # let dev = gpuarray::Device::new()?;
    /// let x = dev.from_slice(&[3.0f32, f32::NAN, 1.0, 3.0, f32::NAN, -0.0, 0.0], [7])?;
    /// let u = x.unique()?.to_vec()?;
    /// assert_eq!(&u[..3], &[-0.0, 1.0, 3.0]);
    /// assert!(u.len() == 4 && u[3].is_nan());
    /// # Ok::<(), gpuarray::Error>(())
    /// ```
    pub fn unique(&self) -> Result<Array<T>> {
        super::accept(self, "unique")?;
        let x = flat(self)?;
        if x.is_empty() {
            // A new (empty) array, never a view of the input.
            return self.dev.zeros::<T>([0]);
        }
        let s = x.sort()?;
        if matches!(T::DTYPE, DType::U32 | DType::I32 | DType::F32 | DType::Bool) {
            return unique_words(&s);
        }
        let (_, starts, m) = runs(&s)?;
        let first = starts.slice_axis(0, ..m)?;
        plan::take_rows(&s, &first, s.len() as u32, vec![m])
    }

    /// The distinct values of the flattened array with the index of each one's first
    /// occurrence, the inverse (the index into `values` of every input element, in the
    /// input's shape) and the counts: NumPy's `unique_all`. Values compare as in
    /// [`Array::unique`]. Built on the stable argsort, so each run's first element is the
    /// first occurrence.
    ///
    /// # Errors
    /// As [`Array::sort`].
    ///
    /// ```
    /// # let dev = gpuarray::Device::new()?;
    /// let x = dev.from_slice(&[2i32, 7, 2, 5, 7, 2], [2, 3])?;
    /// let u = x.unique_all()?;
    /// assert_eq!(u.values.to_vec()?, vec![2, 5, 7]);
    /// assert_eq!(u.indices.to_vec()?, vec![0, 3, 1]);
    /// assert_eq!(u.inverse_indices.to_vec()?, vec![0, 2, 0, 1, 2, 0]);
    /// assert_eq!(u.inverse_indices.shape(), &[2, 3]);
    /// assert_eq!(u.counts.to_vec()?, vec![3, 1, 2]);
    /// # Ok::<(), gpuarray::Error>(())
    /// ```
    pub fn unique_all(&self) -> Result<UniqueAll<T>> {
        super::accept(self, "unique_all")?;
        let x = flat(self)?;
        let n = x.len() as u32;
        if n == 0 {
            let none = Array::<u32>::alloc(&self.dev, "unique", vec![0])?;
            return Ok(UniqueAll {
                values: x,
                indices: widen(&none, false)?,
                inverse_indices: widen(&none.reshape(self.shape.clone())?, false)?,
                counts: none,
            });
        }
        let idx = super::argsort_rows(&x, 1, n, false)?;
        let s = plan::take_rows(&x, &idx, n, vec![n as usize])?;
        let (scan, starts, m) = runs(&s)?;
        let first = starts.slice_axis(0, ..m)?;
        let values = plan::take_rows(&s, &first, n, vec![m])?;
        let indices = plan::take_rows(&idx, &first, n, vec![m])?;
        let counts = starts.slice_axis(0, 1..)?.sub(&first)?;
        let dev = &self.dev;
        let inverse = Array::<u32>::alloc(dev, "unique", vec![n as usize])?;
        let prm = SortParams {
            n,
            in_off: s.offset as u32,
            ..Default::default()
        };
        let k = kernel(dev, T::DTYPE, "inverse", 3, WG, 0)?;
        dev.launch(
            &k,
            &prm.encode(),
            &[s.binding(), scan.binding(), idx.binding()],
            inverse.binding(),
            Work::Items(n),
        )?;
        Ok(UniqueAll {
            values,
            indices: widen(&indices, false)?,
            inverse_indices: widen(&inverse.reshape(self.shape.clone())?, false)?,
            counts,
        })
    }
}
