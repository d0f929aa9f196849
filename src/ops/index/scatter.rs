//! Scatter-combine along an axis: `scatter_add`, `scatter_max`, `scatter_min` (PyTorch's
//! `scatter_add_`/`scatter_reduce_`, NumPy's `add.at` / `maximum.at` / `minimum.at` for 1-D).
//! Host side of shaders/scatter.wgsl: one atomic per source element (integers), or a
//! compare-and-swap loop on the bits (f32). The indices are checked first (index.wgsl
//! `check`, one flag read back), so an error leaves the target untouched.

use crate::array::complex::by_component;
use crate::array::Array;
use crate::device::Work;
use crate::dtype::{accepts, DType, Element};
use crate::error::{Error, Result};
use crate::kernel::cache::Key;
use crate::kernel::launch::Params;
use crate::kernel::source::Spec;
use crate::ops::elementwise::{broadcast_layout, Operand};
use crate::shape::Axes;

use super::take::{check, dense, index_dtype, IndexMode};
use super::{check_writable, index_wgsl, key as key_of, spec as index_spec, split_index, WG};

/// The family's kernels, which import `cas_f32` (shaders/shared/scatter_cas.wgsl) for the
/// f32 variants without a native atomic: the others import nothing in its place.
const SRC: &str = include_str!("../../../shaders/scatter.wgsl");

/// How a source element combines with its target.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Combine {
    Add,
    Max,
    Min,
    /// The first pass of `scatter`: the largest source position + 1 per target word.
    Last,
}

impl Combine {
    fn name(self) -> &'static str {
        match self {
            Combine::Add => "scatter_add",
            Combine::Max => "scatter_max",
            Combine::Min => "scatter_min",
            Combine::Last => "scatter",
        }
    }

    /// The one-line `combine` of shaders/scatter.wgsl for dtype `e`; `None` where no atomic
    /// exists (f16, f64; the maximum and minimum of i64 and u64).
    fn def(self, e: DType) -> Option<String> {
        let body = match (e, self) {
            (_, Combine::Last) => "atomicMax(&out[k], i + 1u);".into(),
            (DType::F32, c) => format!("cas_f32(k, v, {}u);", c as u32),
            (DType::I32 | DType::U32, Combine::Add) => "atomicAdd(&out[k], v);".into(),
            (DType::I32 | DType::U32, Combine::Max) => "atomicMax(&out[k], v);".into(),
            (DType::I32 | DType::U32, Combine::Min) => "atomicMin(&out[k], v);".into(),
            // Two 32-bit atomics: the low word's add, then the high word's plus the carry
            // out of the low one. Each add that wraps the low word carries once, so the
            // words hold the exact sum modulo 2^64 once every add is done, in any order.
            (DType::I64 | DType::U64, Combine::Add) => "let lo = u32(v); let old = \
                atomicAdd(&out[2u * k], lo); atomicAdd(&out[2u * k + 1u], u32(v >> 32u) + \
                select(0u, 1u, old + lo < old));"
                .into(),
            _ => return None,
        };
        Some(format!("fn combine(k: u32, v: E, i: u32) {{ {body} }}"))
    }
}

/// The scatter family's source for combine `c`, dtype `e`, index dtype `i`; f32 adds with
/// the native atomic where `native` (the adapter's SHADER_FLOAT32_ATOMIC).
fn spec(c: Combine, e: DType, i: DType, native: bool) -> Option<Spec> {
    let native = native && e == DType::F32 && c == Combine::Add;
    let word = match e {
        DType::I32 if c != Combine::Last => "i32",
        DType::F32 if native => "f32",
        _ => "u32",
    };
    let combine = if native {
        "fn combine(k: u32, v: E, i: u32) { atomicAdd(&out[k], v); }".to_string()
    } else {
        c.def(e)?
    };
    let s = Spec::new("scatter", SRC)
        .alias("E", e.wgsl())
        .alias("I", index_wgsl(i))
        .alias("AT", word)
        .scalar(e)
        .function("split_index", split_index(i))
        .function("combine", combine);
    Some(if e == DType::F32 && !native && c != Combine::Last {
        s
    } else {
        s.import_instead("scatter_cas", None)
    })
}

/// Every variant, for the shader validation test.
#[cfg(test)]
pub(crate) fn all_specs() -> Vec<Spec> {
    let mut v = Vec::new();
    for c in [Combine::Add, Combine::Max, Combine::Min, Combine::Last] {
        let all = [DType::F16, DType::F32, DType::F64, DType::I32, DType::U32];
        for e in all.into_iter().chain([DType::I64, DType::U64]) {
            for i in [DType::I32, DType::U32, DType::I64] {
                v.extend(spec(c, e, i, false));
                v.extend(spec(c, e, i, true));
            }
        }
    }
    v
}

/// Refuses indices and sources of different shapes, or not fitting the target `dst` but
/// along `ax`.
fn check_shapes<T: Element>(
    op: &'static str,
    dst: &Array<T>,
    ax: usize,
    idx: &[usize],
    src: &[usize],
) -> Result<()> {
    if idx != src {
        return Err(Error::ShapeMismatch {
            op,
            lhs: idx.to_vec(),
            rhs: src.to_vec(),
        });
    }
    let fits =
        idx.len() == dst.ndim() && (0..dst.ndim()).all(|d| d == ax || idx[d] <= dst.shape[d]);
    if !fits {
        return Err(Error::InvalidArgument {
            op,
            reason: "the indices need the target's dimensions, each no longer than the target's but along the axis",
        });
    }
    Ok(())
}

/// Checks the operands of a scatter along `axis` and combines `src` into `dst`.
fn scatter<T: Element, I: Element>(
    dst: &Array<T>,
    axis: Axes,
    idx: &Array<I>,
    src: &Array<T>,
    (c, mode): (Combine, IndexMode),
) -> Result<()> {
    let op = c.name();
    let dev = &dst.dev;
    dev.expect_same(op, &[&idx.dev, &src.dev])?;
    dev.accept(op, T::DTYPE, accepts::moves)?;
    let i = index_dtype::<I>(dev, op)?;
    if T::DTYPE.is_complex() {
        // Writes and sums act on each component alone: the components' scatter, one index
        // per component. Maxima and minima have no order to follow.
        if !matches!(c, Combine::Last | Combine::Add) {
            return Err(dev.unsupported(op, T::DTYPE));
        }
        let ax = axis.resolve_single(dst.ndim(), op)?;
        let mut shape = idx.shape.clone();
        shape.push(2);
        let idx = idx.expand_dims(-1)?.broadcast_to(shape)?;
        return by_component!(T::DTYPE, R => scatter::<R, I>(
            &dst.components(),
            Axes::from(ax),
            &idx,
            &src.components(),
            (c, mode),
        ));
    }
    if c.def(T::DTYPE).is_none() {
        return Err(dev.unsupported(op, T::DTYPE));
    }
    check_writable(dst, op)?;
    let ax = axis.resolve_single(dst.ndim(), op)?;
    check_shapes(op, dst, ax, &idx.shape, &src.shape)?;
    let n = idx.len();
    if n == 0 {
        return Ok(());
    }
    let len = dst.shape[ax];
    let idx = dense(idx)?;
    if mode == IndexMode::Raise {
        check(&idx, op, ax, len)?;
    } else if len == 0 {
        return Err(Error::IndexOutOfRange { op, axis: ax, len });
    }
    // The target's offsets over the indices' shape, its axis left out (stride 0).
    let mut st = dst.strides.clone();
    st[ax] = 0;
    let target = Operand {
        binding: dst.binding(),
        shape: &idx.shape,
        strides: &st,
        offset: dst.offset,
    };
    let mut p = Params::new(0);
    let ops = [src.operand(), target, idx.operand()];
    (p, _, _) = broadcast_layout(&ops, &idx.shape, p)?;
    // A negative stride (a reversed target) travels as its two's complement.
    p.aux = [len as u32, dst.strides[ax] as i32 as u32];
    p.offs[3] = mode.code();
    let native = dev.has_f32_atomics();
    let key = Key {
        family: "scatter",
        entry: "scatter",
        variant: format!("{c:?}|{:?}|{i:?}|{native}", T::DTYPE),
        inputs: 2,
        wg: WG,
        ndim: p.ndim.max(1),
        per: 1,
    };
    let kernel = dev.kernel(key, || spec(c, T::DTYPE, i, native).expect("checked above"))?;
    // Binding 3 is unused by `scatter`; the layout of two inputs leaves it out.
    let inputs = [src.binding(), idx.binding()];
    let work = Work::Items(n as u32);
    if c != Combine::Last {
        return dev.launch(&kernel, &p, &inputs, dst.binding(), work);
    }
    // The last writer per target word (by the target's buffer offsets), then its writes.
    let words = dst.binding().bytes as usize / T::DTYPE.size();
    let last = dev.zeros::<u32>([words])?;
    dev.launch(&kernel, &p, &inputs, last.binding(), work)?;
    let dtypes = (T::DTYPE, DType::U32, i);
    let writer = dev.kernel(key_of("scatter_last", dtypes, 3, p.ndim.max(1)), || {
        index_spec(dtypes.0, dtypes.1, dtypes.2)
    })?;
    let inputs = [last.binding(), idx.binding(), src.binding()];
    dev.launch(&writer, &p, &inputs, dst.binding(), work)
}

impl<T: Element> Array<T> {
    /// Writes each element of `src` into this array, in place, at its own position with
    /// the coordinate along `axis` replaced by the index at the same position of `indices`
    /// (PyTorch's `scatter_`, NumPy's `put_along_axis` with `indices` and `src` of one
    /// shape). Where several elements go to one place, the last in C order of `indices`
    /// wins, on every run: a first pass keeps the largest position per target element
    /// (an atomic max), a second writes those. Shapes and indices as in
    /// [`Array::scatter_add`]; every dtype.
    ///
    /// # Errors
    /// As [`Array::scatter_add`], but every dtype the adapter has is supported.
    ///
    /// ```
    /// # let dev = gpuarray::Device::new()?;
    /// let x = dev.zeros::<f32>([3, 2])?;
    /// let idx = dev.from_slice(&[2i32, 0, -1, 1], [2, 2])?;
    /// let src = dev.from_slice(&[1.0, 2.0, 3.0, 4.0], [2, 2])?;
    /// x.scatter(0, &idx, &src)?; // x[idx[i][j]][j] = src[i][j]; (2, 0) is written twice
    /// assert_eq!(x.to_vec()?, vec![0.0, 2.0, 0.0, 4.0, 3.0, 0.0]);
    /// # Ok::<(), gpuarray::Error>(())
    /// ```
    pub fn scatter<I: Element>(
        &self,
        axis: impl Into<Axes>,
        indices: &Array<I>,
        src: &Array<T>,
    ) -> Result<()> {
        scatter(
            self,
            axis.into(),
            indices,
            src,
            (Combine::Last, IndexMode::Raise),
        )
    }

    /// NumPy's `put(x, indices, values)`: writes `values` at the flat (C-order) positions
    /// `indices` of this array, in place; `values` has one element per index (any shape of
    /// as many elements) or one for all. Duplicate positions: the last in C order wins.
    /// Indices as in [`Array::take`] (i64, i32 or u32, negative from the end, checked). A
    /// strided target is written through a contiguous copy, then assigned back.
    ///
    /// # Errors
    /// [`Error::IndexOutOfRange`] (nothing written); [`Error::SizeMismatch`] for another
    /// number of values; as [`Array::scatter`] otherwise.
    ///
    /// ```
    /// # let dev = gpuarray::Device::new()?;
    /// let x = dev.zeros::<i32>([2, 3])?;
    /// x.put(&dev.from_slice(&[0i32, -1, 4, 4], [4])?, &dev.from_slice(&[7, 8, 1, 9], [4])?)?;
    /// assert_eq!(x.to_vec()?, vec![7, 0, 0, 0, 9, 8]);
    /// # Ok::<(), gpuarray::Error>(())
    /// ```
    pub fn put<I: Element>(&self, indices: &Array<I>, values: &Array<T>) -> Result<()> {
        let op = "put";
        self.dev.expect_same(op, &[&indices.dev, &values.dev])?;
        let m = indices.len();
        if values.len() != m && values.len() != 1 {
            return Err(Error::SizeMismatch {
                shape: values.shape.clone(),
                expected: m,
                actual: values.len(),
            });
        }
        check_writable(self, op)?;
        if m == 0 {
            return Ok(());
        }
        let idx = dense(indices)?.reshape([m])?;
        let vals = if values.len() == 1 {
            values.reshape([1])?.broadcast_to([m])?
        } else {
            dense(values)?.reshape([m])?
        };
        if self.is_contiguous() {
            let flat = self.reshape([self.len()])?;
            return scatter(
                &flat,
                Axes::One(0),
                &idx,
                &vals,
                (Combine::Last, IndexMode::Raise),
            );
        }
        let tmp = self.cast::<T>()?;
        scatter(
            &tmp.reshape([self.len()])?,
            Axes::One(0),
            &idx,
            &vals,
            (Combine::Last, IndexMode::Raise),
        )?;
        self.assign(&tmp)
    }

    /// Adds each element of `src` into this array, in place, at its own position with the
    /// coordinate along `axis` replaced by the index at the same position of `indices`
    /// (PyTorch's `scatter_add_`; for 1-D arrays NumPy's `add.at(x, indices, src)`).
    /// Duplicate indices all add. `indices` and `src` have one shape, with the target's
    /// number of dimensions and no longer than the target on the other axes; indices are
    /// i64 or i32 (negative from the end) or u32, checked on the device first (one flag read back).
    ///
    /// Integer sums are exact in any order (wrapping on overflow; i64 and u64, where the
    /// adapter has SHADER_INT64, by two 32-bit atomics per element, the carry of the low
    /// word added to the high one). f32 sums use a
    /// compare-and-swap loop per element: the order of the additions is not fixed, so the
    /// last bits of a sum may differ between runs (as with CuPy's `scatter_add`).
    ///
    /// # Errors
    /// [`Error::IndexOutOfRange`] (nothing written); [`Error::ShapeMismatch`] when `indices`
    /// and `src` differ in shape; [`Error::InvalidArgument`] for other shapes that do not
    /// fit, or a broadcast target; [`Error::Unsupported`] for f16 and f64 (no atomics), for
    /// the maximum and minimum of i64 and u64 ([`Array::scatter_max`], [`Array::scatter_min`])
    /// and index dtypes other than i64, i32 and u32; [`Error::AxisOutOfRange`].
    ///
    /// ```
    /// # let dev = gpuarray::Device::new()?;
    /// let bins = dev.zeros::<f32>([3])?;
    /// let idx = dev.from_slice(&[0i32, 2, 2, -1], [4])?;
    /// let w = dev.from_slice(&[1.0f32, 2.0, 3.0, 4.0], [4])?;
    /// bins.scatter_add(0, &idx, &w)?;
    /// assert_eq!(bins.to_vec()?, vec![1.0, 0.0, 9.0]);
    /// # Ok::<(), gpuarray::Error>(())
    /// ```
    pub fn scatter_add<I: Element>(
        &self,
        axis: impl Into<Axes>,
        indices: &Array<I>,
        src: &Array<T>,
    ) -> Result<()> {
        scatter(
            self,
            axis.into(),
            indices,
            src,
            (Combine::Add, IndexMode::Raise),
        )
    }

    /// [`Array::scatter_add`] with NumPy's `mode` for indices outside the axis:
    /// [`IndexMode::Raise`] (checked first: an error, nothing written), or
    /// [`IndexMode::Wrap`] / [`IndexMode::Clip`], which need no check and so no sync point
    /// (CuPy's `scatter_add` does not check either).
    ///
    /// # Errors
    /// As [`Array::scatter_add`]; with wrap or clip, [`Error::IndexOutOfRange`] only for
    /// an empty axis.
    ///
    /// ```
    /// use gpuarray::IndexMode;
    /// # let dev = gpuarray::Device::new()?;
    /// let bins = dev.zeros::<u32>([3])?;
    /// let idx = dev.from_slice(&[4i32, -1, 0], [3])?;
    /// bins.scatter_add_mode(0, &idx, &dev.from_slice(&[1, 2, 4], [3])?, IndexMode::Wrap)?;
    /// assert_eq!(bins.to_vec()?, vec![4, 1, 2]);
    /// # Ok::<(), gpuarray::Error>(())
    /// ```
    pub fn scatter_add_mode<I: Element>(
        &self,
        axis: impl Into<Axes>,
        indices: &Array<I>,
        src: &Array<T>,
        mode: IndexMode,
    ) -> Result<()> {
        scatter(self, axis.into(), indices, src, (Combine::Add, mode))
    }

    /// As [`Array::scatter_add`], keeping the maximum (NumPy's `maximum.at`; a NaN wins,
    /// as in `maximum`). The result does not depend on the order.
    ///
    /// # Errors
    /// As [`Array::scatter_add`].
    ///
    /// ```
    /// # let dev = gpuarray::Device::new()?;
    /// let x = dev.from_slice(&[0i32, 0], [2])?;
    /// let idx = dev.from_slice(&[1u32, 1, 0], [3])?;
    /// x.scatter_max(0, &idx, &dev.from_slice(&[5, 9, -3], [3])?)?;
    /// assert_eq!(x.to_vec()?, vec![0, 9]);
    /// # Ok::<(), gpuarray::Error>(())
    /// ```
    pub fn scatter_max<I: Element>(
        &self,
        axis: impl Into<Axes>,
        indices: &Array<I>,
        src: &Array<T>,
    ) -> Result<()> {
        scatter(
            self,
            axis.into(),
            indices,
            src,
            (Combine::Max, IndexMode::Raise),
        )
    }

    /// As [`Array::scatter_add`], keeping the minimum (NumPy's `minimum.at`; a NaN wins).
    ///
    /// # Errors
    /// As [`Array::scatter_add`].
    ///
    /// ```
    /// # let dev = gpuarray::Device::new()?;
    /// let x = dev.from_slice(&[0.0f32, 0.0], [2])?;
    /// let idx = dev.from_slice(&[1i32, 1, 0], [3])?;
    /// x.scatter_min(0, &idx, &dev.from_slice(&[5.0, -9.0, 3.0], [3])?)?;
    /// assert_eq!(x.to_vec()?, vec![0.0, -9.0]);
    /// # Ok::<(), gpuarray::Error>(())
    /// ```
    pub fn scatter_min<I: Element>(
        &self,
        axis: impl Into<Axes>,
        indices: &Array<I>,
        src: &Array<T>,
    ) -> Result<()> {
        scatter(
            self,
            axis.into(),
            indices,
            src,
            (Combine::Min, IndexMode::Raise),
        )
    }
}
