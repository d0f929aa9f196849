//! Gathers by index: `take`, `take_along_axis`, and the range check of index arrays
//! (`check`: a flag word the host reads once per call, never a read per element).

use crate::array::complex::by_component;
use crate::array::Array;
use crate::device::Work;
use crate::dtype::{accepts, DType, Element};
use crate::error::{Error, Result};
use crate::kernel::launch::Params;
use crate::shape::{broadcast_shapes, Axes};

use super::{key, spec};

/// What an index outside its axis does (NumPy's `mode` of `take`).
///
/// ```
/// use gpuarray::IndexMode;
/// # let dev = gpuarray::Device::new()?;
/// let x = dev.from_slice(&[1.0f32, 2.0], [2])?;
/// let idx = dev.from_slice(&[2i32], [1])?;
/// assert_eq!(IndexMode::default(), IndexMode::Raise);
/// assert!(x.take_mode(&idx, 0, IndexMode::Raise).is_err());
/// assert_eq!(x.take_mode(&idx, 0, IndexMode::Wrap)?.to_vec()?, vec![1.0]);
/// # Ok::<(), gpuarray::Error>(())
/// ```
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum IndexMode {
    /// An error ([`Error::IndexOutOfRange`]), found on the device and read back once; negative
    /// indices count from the end (NumPy's default, `mode='raise'`).
    #[default]
    Raise,
    /// Indices wrap around modulo the axis length (`mode='wrap'`; CuPy's `take` always
    /// wraps).
    Wrap,
    /// Indices are clipped into the axis, negative ones to 0 (`mode='clip'`).
    Clip,
}

impl IndexMode {
    /// The `mode()` of shaders/index.wgsl's `take` (after `check`, Raise is "checked").
    pub(super) fn code(self) -> u32 {
        match self {
            IndexMode::Raise => 0,
            IndexMode::Wrap => 1,
            IndexMode::Clip => 2,
        }
    }
}

/// Refuses index arrays of dtypes other than i64, i32 and u32 (i64 is read as two 32-bit
/// words: no SHADER_INT64 needed).
pub(super) fn index_dtype<I: Element>(x: &crate::Device, op: &'static str) -> Result<DType> {
    match I::DTYPE {
        DType::I64 | DType::I32 | DType::U32 => Ok(I::DTYPE),
        d => Err(x.unsupported(op, d)),
    }
}

/// `x` itself when contiguous (from any offset), else a contiguous copy.
pub(super) fn dense<T: Element>(x: &Array<T>) -> Result<Array<T>> {
    if x.is_contiguous() {
        Ok(x.clone())
    } else {
        x.contiguous()
    }
}

/// Checks on the device that every index of the contiguous `idx` lies in `[-len, len)`;
/// reads one flag word back (a sync point).
///
/// # Errors
/// [`Error::IndexOutOfRange`] naming `axis` and `len` when one does not.
pub(super) fn check<I: Element>(
    idx: &Array<I>,
    op: &'static str,
    axis: usize,
    len: usize,
) -> Result<()> {
    let dev = &idx.dev;
    let n = idx.len();
    if n == 0 {
        return Ok(());
    }
    if len == 0 {
        return Err(Error::IndexOutOfRange { op, axis, len });
    }
    let flag = dev.zeros::<u32>([1])?;
    let i = I::DTYPE;
    let kernel = dev.kernel(key("check", (DType::U32, DType::U32, i), 2, 0), || {
        spec(DType::U32, DType::U32, i)
    })?;
    let mut p = Params::new(n as u32);
    p.aux[0] = len as u32;
    p.offs[1] = idx.offset as u32;
    let inputs = [idx.binding(), idx.binding()];
    dev.launch(&kernel, &p, &inputs, flag.binding(), Work::Items(n as u32))?;
    if flag.to_vec()?[0] != 0 {
        return Err(Error::IndexOutOfRange { op, axis, len });
    }
    Ok(())
}

/// Elements of the contiguous `x` (`[outer, len, inner]` around the axis) at the indices of
/// the contiguous `idx`, into a new array of `shape`: one index per position along the axis
/// (`along` false) or one per result element (`along` true, `idx` of `shape`).
fn gather<T: Element, I: Element>(
    x: &Array<T>,
    idx: &Array<I>,
    (len, inner, m): (usize, usize, usize),
    (mode, along): (IndexMode, bool),
    shape: Vec<usize>,
) -> Result<Array<T>> {
    let dev = &x.dev;
    let op = "take";
    if T::DTYPE.is_complex() {
        // The components: twice the inner extent; one index per component when `along`.
        let mut cshape = shape.clone();
        cshape.push(2);
        let idx = if along {
            idx.expand_dims(-1)?
                .broadcast_to(cshape.clone())?
                .contiguous()?
        } else {
            idx.clone()
        };
        return by_component!(T::DTYPE, R => Ok(gather::<R, I>(
            &x.components(),
            &idx,
            (len, 2 * inner, m),
            (mode, along),
            cshape,
        )?
        .as_complex::<T>()));
    }
    let out = Array::<T>::alloc_with(dev, op, shape, |b| dev.alloc_apart(b, &[&x.buf, &idx.buf]))?;
    let n = out.len();
    if n == 0 {
        return Ok(out);
    }
    let (e, i) = (T::DTYPE, I::DTYPE);
    let kernel = dev.kernel(key("take", (e, e, i), 2, 0), || spec(e, e, i))?;
    let mut p = Params::new(n as u32);
    p.aux = [len as u32, inner as u32];
    p.shape[0] = m as u32;
    p.shape[1] = mode.code();
    p.shape[2] = u32::from(along);
    p.offs[0] = x.offset as u32;
    p.offs[1] = idx.offset as u32;
    let inputs = [x.binding(), idx.binding()];
    dev.launch(&kernel, &p, &inputs, out.binding(), Work::Items(n as u32))?;
    Ok(out)
}

impl<T: Element> Array<T> {
    /// The elements at `indices` along `axis` (one axis, negative from the end; for all
    /// axes, `..` or `None`, of the flattened array): NumPy's `take(x, indices, axis)`. The
    /// result's shape is `x.shape[..axis] + indices.shape + x.shape[axis + 1..]`; indices are
    /// i64 (as the index functions return them) or i32, negative ones counting from the end,
    /// or u32 (i64 needs no SHADER_INT64: read as two words). Out-of-range indices are an error,
    /// checked on the device and read back once (a sync point); see [`Array::take_mode`].
    ///
    /// # Errors
    /// [`Error::IndexOutOfRange`]; [`Error::AxisOutOfRange`]; [`Error::InvalidArgument`]
    /// for several axes; [`Error::Unsupported`] for
    /// an index dtype other than i64, i32 and u32; [`Error::DeviceMismatch`].
    ///
    /// ```
    /// # let dev = gpuarray::Device::new()?;
    /// let x = dev.arange::<f32>(0.0, 6.0, 1.0)?.reshape([2, 3])?;
    /// let idx = dev.from_slice(&[2i32, -3, 2], [3])?;
    /// assert_eq!(x.take(&idx, 1)?.to_vec()?, vec![2.0, 0.0, 2.0, 5.0, 3.0, 5.0]);
    /// assert!(x.take(&dev.from_slice(&[3i32], [1])?, 1).is_err());
    /// assert_eq!(x.take(&idx, None)?.to_vec()?, vec![2.0, 3.0, 2.0]);
    /// # Ok::<(), gpuarray::Error>(())
    /// ```
    pub fn take<I: Element>(&self, indices: &Array<I>, axis: impl Into<Axes>) -> Result<Array<T>> {
        self.take_mode(indices, axis, IndexMode::Raise)
    }

    /// [`Array::take`] with NumPy's `mode` for out-of-range indices: [`IndexMode::Raise`]
    /// (an error), [`IndexMode::Wrap`] (modulo the axis, what CuPy's `take` does) or
    /// [`IndexMode::Clip`]. Wrap and clip need no check and no sync point.
    ///
    /// # Errors
    /// As [`Array::take`]; with wrap or clip, [`Error::IndexOutOfRange`] only for a
    /// non-empty take from an empty axis.
    ///
    /// ```
    /// use gpuarray::IndexMode;
    /// # let dev = gpuarray::Device::new()?;
    /// let x = dev.from_slice(&[10u32, 20, 30], [3])?;
    /// let idx = dev.from_slice(&[4i32, -4], [2])?;
    /// assert_eq!(x.take_mode(&idx, 0, IndexMode::Wrap)?.to_vec()?, vec![20, 30]);
    /// assert_eq!(x.take_mode(&idx, 0, IndexMode::Clip)?.to_vec()?, vec![30, 10]);
    /// # Ok::<(), gpuarray::Error>(())
    /// ```
    pub fn take_mode<I: Element>(
        &self,
        indices: &Array<I>,
        axis: impl Into<Axes>,
        mode: IndexMode,
    ) -> Result<Array<T>> {
        let op = "take";
        let Some(ax) = axis.into().resolve_one(self.ndim(), op)? else {
            return self.ravel()?.take_mode(indices, 0, mode);
        };
        self.dev.expect_same(op, &[&indices.dev])?;
        self.dev.accept(op, T::DTYPE, accepts::moves)?;
        index_dtype::<I>(&self.dev, op)?;
        let len = self.shape[ax];
        let idx = dense(indices)?;
        let mut shape = self.shape[..ax].to_vec();
        shape.extend(&idx.shape);
        shape.extend(&self.shape[ax + 1..]);
        let outer: usize = self.shape[..ax].iter().product();
        let inner: usize = self.shape[ax + 1..].iter().product();
        if mode == IndexMode::Raise {
            check(&idx, op, ax, len)?;
        } else if len == 0 && outer * inner * idx.len() > 0 {
            return Err(Error::IndexOutOfRange { op, axis: ax, len });
        }
        let x = dense(self)?;
        gather(&x, &idx, (len, inner, idx.len()), (mode, false), shape)
    }

    /// NumPy's `take_along_axis(x, indices, axis)`: `indices` has `x`'s number of
    /// dimensions; result element `p` is `x` at `p` with its `axis` coordinate replaced by
    /// `indices[p]`. The other axes broadcast (extent 1 against any). Indices as in
    /// [`Array::take`] (i64, i32 or u32, negative from the end, checked). For all axes
    /// (`..` or `None`, NumPy's `axis=None`), 1-D indices into the flattened array.
    ///
    /// # Errors
    /// [`Error::InvalidArgument`] when the dimensions differ; [`Error::ShapeMismatch`]
    /// when the other axes do not broadcast; as [`Array::take`] otherwise.
    ///
    /// ```
    /// # let dev = gpuarray::Device::new()?;
    /// let x = dev.from_slice(&[3.0f32, 1.0, 2.0, 9.0, 7.0, 8.0], [2, 3])?;
    /// let idx = x.argsort_axis(1)?.slice_axis(1, 0..1)?; // each row's min
    /// assert_eq!(x.take_along_axis(&idx, -1)?.to_vec()?, vec![1.0, 7.0]);
    /// # Ok::<(), gpuarray::Error>(())
    /// ```
    pub fn take_along_axis<I: Element>(
        &self,
        indices: &Array<I>,
        axis: impl Into<Axes>,
    ) -> Result<Array<T>> {
        let op = "take_along_axis";
        self.dev.expect_same(op, &[&indices.dev])?;
        self.dev.accept(op, T::DTYPE, accepts::moves)?;
        index_dtype::<I>(&self.dev, op)?;
        let axis = axis.into();
        if axis == Axes::All {
            return self.ravel()?.take_along_axis(indices, 0);
        }
        if indices.ndim() != self.ndim() {
            return Err(Error::InvalidArgument {
                op,
                reason: "the indices must have as many dimensions as the array",
            });
        }
        let ax = axis.resolve_single(self.ndim(), op)?;
        let len = self.shape[ax];
        // The other axes broadcast together; the axis keeps each operand's extent.
        let (mut xs, mut is) = (self.shape.clone(), indices.shape.clone());
        xs[ax] = 1;
        is[ax] = 1;
        let mut shape = broadcast_shapes(op, &xs, &is)?;
        shape[ax] = indices.shape[ax];
        let mut x_shape = shape.clone();
        x_shape[ax] = len;
        let idx = dense(&indices.broadcast_to(shape.clone())?)?;
        check(&idx, op, ax, len)?;
        let x = dense(&self.broadcast_to(x_shape)?)?;
        let inner: usize = shape[ax + 1..].iter().product();
        gather(
            &x,
            &idx,
            (len, inner, shape[ax]),
            (IndexMode::Raise, true),
            shape,
        )
    }
}

impl<T: Element> Array<T> {
    /// Indexing by one index array per axis (NumPy's advanced indexing `x[i0, :, i2]`):
    /// `indices[d]` is `Some(array)` to index axis `d`, `None` to take it whole; axes past
    /// the list are taken whole. The index arrays broadcast together to a shape `B`; when
    /// the indexed axes are adjacent, `B` replaces them in the result, else `B` comes first
    /// and the other axes follow in order (NumPy's rule). Indices as in [`Array::take`]
    /// (i64, i32 or u32, negative from the end, checked: one flag read back per index array).
    /// Always a new array.
    ///
    /// # Errors
    /// [`Error::TooManySlices`] for more entries than axes; [`Error::ShapeMismatch`] when
    /// the index arrays do not broadcast together; as [`Array::take`] otherwise.
    ///
    /// ```
    /// # let dev = gpuarray::Device::new()?;
    /// let x = dev.arange::<i32>(0, 12, 1)?.reshape([3, 4])?;
    /// let rows = dev.from_slice(&[0i32, 2, -1], [3])?;
    /// let cols = dev.from_slice(&[1i32, 3, 0], [3])?;
    /// assert_eq!(x.gather(&[Some(&rows), Some(&cols)])?.to_vec()?, vec![1, 11, 8]);
    /// assert_eq!(x.gather(&[None, Some(&cols)])?.shape(), &[3, 3]);
    /// # Ok::<(), gpuarray::Error>(())
    /// ```
    pub fn gather<I: Element>(&self, indices: &[Option<&Array<I>>]) -> Result<Array<T>> {
        let op = "gather";
        let nd = self.ndim();
        if indices.len() > nd {
            return Err(Error::TooManySlices {
                given: indices.len(),
                ndim: nd,
            });
        }
        let axes: Vec<usize> = (0..indices.len())
            .filter(|&d| indices[d].is_some())
            .collect();
        let arrays: Vec<&Array<I>> = indices.iter().flatten().copied().collect();
        for a in &arrays {
            self.dev.expect_same(op, &[&a.dev])?;
        }
        self.dev.accept(op, T::DTYPE, accepts::moves)?;
        index_dtype::<I>(&self.dev, op)?;
        if axes.is_empty() {
            return self.cast::<T>();
        }
        let mut b_shape: Vec<usize> = Vec::new();
        for a in &arrays {
            b_shape = broadcast_shapes(op, &b_shape, &a.shape)?;
        }
        // Indexed axes first unless adjacent; then [before, indexed..., after].
        let adjacent = axes.windows(2).all(|w| w[1] == w[0] + 1);
        let perm: Vec<usize> = if adjacent {
            (0..nd).collect()
        } else {
            axes.iter()
                .copied()
                .chain((0..nd).filter(|d| !axes.contains(d)))
                .collect()
        };
        let x = self.transpose(&perm)?;
        let first = if adjacent { axes[0] } else { 0 };
        let group = first..first + axes.len();
        // The flat position in the indexed group: sum of resolved index * group stride.
        let mut lin: Option<Array<u32>> = None;
        let mut stride = 1usize;
        for (k, a) in arrays.iter().enumerate().rev() {
            let len = self.shape[axes[k]];
            let idx = dense(&a.broadcast_to(b_shape.clone())?)?;
            check(&idx, op, axes[k], len)?;
            // After the check, wrapping is NumPy's resolution of negative indices.
            let pos =
                self.dev
                    .arange::<u32>(0, len as u32, 1)?
                    .take_mode(&idx, 0, IndexMode::Wrap)?;
            let term = if stride == 1 {
                pos
            } else {
                pos.mul_scalar(stride as u32)?
            };
            lin = Some(match lin {
                None => term,
                Some(l) => l.add(&term)?,
            });
            stride *= len;
        }
        let lin = lin.expect("at least one index array");
        let before: usize = x.shape[..group.start].iter().product();
        let after: usize = x.shape[group.end..].iter().product();
        let merged = dense(&x)?.reshape([before, stride, after])?;
        let got = merged.take_mode(&lin, 1, IndexMode::Clip)?;
        let mut shape = x.shape[..group.start].to_vec();
        shape.extend(&b_shape);
        shape.extend(&x.shape[group.end..]);
        got.reshape(shape)
    }
}
