//! The two kernels of shaders/manip.wgsl: `copy_into` (a strided input into a strided slab
//! of an output) and `remap` (a new contiguous array whose every axis maps its coordinate to
//! the input's by one rule: pad's modes, flip, roll, tile, repeat).

use std::sync::Arc;

use crate::array::complex::by_component;
use crate::array::Array;
use crate::device::{Device, Work};
use crate::dtype::{accepts, DType, Element};
use crate::error::{Error, Result};
use crate::kernel::cache::{Kernel, Key};
use crate::kernel::launch::{Params, MAX_DIMS};
use crate::kernel::source::Spec;
use crate::shape::{collapse, contiguous_strides};

const SRC: &str = include_str!("../../../shaders/manip.wgsl");
const WG: u32 = 256;

/// How `remap` maps an output coordinate `c` to the input's along every axis, from the
/// axis' shift `lo` and the input's extent `n` (`remap_mode()` in shaders/manip.wgsl).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Mode {
    /// `c - lo`, the constant outside the input.
    Constant = 0,
    /// `c - lo` clamped into the input.
    Edge = 1,
    /// `c - lo` reflected about the edges, which are not repeated.
    Reflect = 2,
    /// `c - lo` reflected about the edges, which are repeated.
    Symmetric = 3,
    /// `c - lo` modulo `n`.
    Wrap = 4,
    /// `c / lo`.
    Repeat = 5,
}

/// Parameters of the manip kernels. `encode` is the only code filling their slots;
/// shaders/manip.wgsl reads them as its header says.
struct ManipParams<'a> {
    /// The walked shape (merged in `copy_into`).
    shape: &'a [usize],
    /// Per axis: the input's strides, then the output's strides (`copy_into`) or the
    /// shifts `lo` (`remap`), then the input's extents (`remap`).
    per_axis: [&'a [isize]; 3],
    in_offset: usize,
    out_offset: usize,
    /// `band`: (1 for triu, k); `repeat_runs`: (0, the repeated axis); else unused.
    aux: [u32; 2],
}

impl ManipParams<'_> {
    fn encode<T: Element>(&self, fill: T) -> Result<Params> {
        if self.shape.len() > MAX_DIMS {
            return Err(Error::TooManyDims {
                ndim: self.shape.len(),
                max: MAX_DIMS,
            });
        }
        let strides: Vec<Vec<isize>> = self.per_axis.iter().map(|s| s.to_vec()).collect();
        let mut p = Params::new(self.shape.iter().product::<usize>() as u32)
            .layout(self.shape, &strides)
            .scalars(&[fill]);
        p.offs[0] = self.in_offset as u32;
        p.offs[3] = self.out_offset as u32;
        p.aux = self.aux;
        Ok(p)
    }
}

/// The variant of dtype `d`: complex elements move whole (S a vec2), but in roll4, which
/// the host never launches on them (`V4` and `lane4` keep its text valid).
fn spec(d: DType) -> Spec {
    let s = Spec::new("manip", SRC).scalar(d);
    match d.component() {
        Some(c) => s
            .alias("V4", format!("vec4<{}>", c.wgsl()))
            .function("lane4", "fn lane4(x: S) -> SC { return x.x; }"),
        None => s.alias("V4", format!("vec4<{}>", d.wgsl())),
    }
}

/// Every variant, for the shader validation test.
#[cfg(test)]
pub(crate) fn all_specs() -> Vec<Spec> {
    DType::ALL
        .iter()
        .chain(&DType::COMPLEX)
        .map(|&d| spec(d))
        .collect()
}

fn kernel<T: Element>(dev: &Device, entry: &'static str) -> Result<Arc<Kernel>> {
    kernel_for::<T>(dev, entry, Mode::Constant)
}

/// The kernel of `entry` with `remap`'s mode fixed at pipeline creation (the override
/// `MODE`), so each mode's pipeline holds its own coordinate rule alone.
fn kernel_for<T: Element>(dev: &Device, entry: &'static str, mode: Mode) -> Result<Arc<Kernel>> {
    let key = Key {
        family: "manip",
        entry,
        variant: format!("{}_{}", T::DTYPE.wgsl(), mode as u32),
        inputs: if entry == "repeat_runs" { 2 } else { 1 },
        wg: WG,
        ndim: 0,
        per: 0,
    };
    dev.kernel(key, || spec(T::DTYPE).constant("MODE", mode as u32))
}

/// Copies `src` into `dst`'s buffer at element `offset` with `strides` (one per axis of
/// `src`); `dst` is the whole output array. Adjacent axes contiguous in both are merged,
/// so a slab of whole rows is one linear run.
pub(crate) fn copy_into<T: Element>(
    src: &Array<T>,
    dst: &Array<T>,
    offset: usize,
    strides: &[isize],
) -> Result<()> {
    let n = src.len();
    if n == 0 {
        return Ok(());
    }
    let (shape, st) = collapse(&src.shape, &[&src.strides, strides]);
    let p = ManipParams {
        shape: &shape,
        per_axis: [&st[0], &st[1], &[]],
        in_offset: src.offset,
        out_offset: offset,
        aux: [0, 0],
    }
    .encode(T::zeroed())?;
    let k = kernel::<T>(&dst.dev, "copy_into")?;
    let dev = &dst.dev;
    dev.launch(
        &k,
        &p,
        &[src.binding()],
        dst.binding(),
        Work::Items(n as u32),
    )
}

/// A new contiguous array of `shape` whose element at `c` is `src` at `map(c[d] - lo[d])`
/// along every axis, by `mode` (`fill` outside the input in [`Mode::Constant`]).
pub(crate) fn remap<T: Element>(
    src: &Array<T>,
    op: &'static str,
    shape: Vec<usize>,
    lo: &[usize],
    mode: Mode,
    fill: T,
) -> Result<Array<T>> {
    let dev = &src.dev;
    if src.is_empty() {
        return dev.full(shape, fill);
    }
    if T::DTYPE.is_complex() && mode == Mode::Constant && !is_zero(fill) {
        return fill_then_copy(src, shape, lo, fill);
    }
    if shape.is_empty() {
        // No axes to map: the kernel walks the last axis, which a 0-d array lacks.
        return src.copy();
    }
    dev.accept(op, T::DTYPE, accepts::moves)?;
    let out = Array::<T>::alloc_any(dev, op, shape, |b| dev.alloc_apart(b, &[&src.buf]))?;
    let n = out.len();
    if n == 0 {
        return Ok(out);
    }
    let lo: Vec<isize> = lo.iter().map(|&l| l as isize).collect();
    let extents: Vec<isize> = src.shape.iter().map(|&e| e as isize).collect();
    let p = ManipParams {
        shape: &out.shape,
        per_axis: [&src.strides, &lo, &extents],
        in_offset: src.offset,
        out_offset: 0,
        aux: [0, 0],
    }
    .encode(fill)?;
    let k = kernel_for::<T>(dev, "remap", mode)?;
    // REMAP_PER (4) outputs per invocation, in blocks of 4 workgroups' worth.
    let items = (n as u32).div_ceil(4 * WG) * WG;
    dev.launch(&k, &p, &[src.binding()], out.binding(), Work::Items(items))?;
    Ok(out)
}

/// `src`, contiguous, rolled by `shift` in [1, len) over its flattened elements into a new
/// array of `shape` (the `roll4` kernel: four outputs an invocation, one vec4 store, into a
/// buffer of whole vec4s of which the result views the first elements).
pub(crate) fn roll_flat<T: Element>(
    src: &Array<T>,
    shift: usize,
    shape: Vec<usize>,
) -> Result<Array<T>> {
    let dev = &src.dev;
    let n = src.len();
    if T::DTYPE.is_complex() {
        // The flat components rolled by twice the shift, read back as pairs.
        return by_component!(T::DTYPE, R => {
            let flat = src.components::<R>().view(vec![2 * n], vec![1], 2 * src.offset);
            Ok(roll_flat::<R>(&flat, 2 * shift, vec![2 * n])?.flat_as::<T>(shape))
        });
    }
    let whole = vec![n.div_ceil(4) * 4];
    let out = Array::<T>::alloc_with(dev, "roll", whole, |b| dev.alloc_apart(b, &[&src.buf]))?;
    let p = ManipParams {
        shape: &[n],
        per_axis: [&[1], &[], &[]],
        in_offset: src.offset,
        out_offset: 0,
        aux: [shift as u32, 0],
    }
    .encode(T::zeroed())?;
    let k = kernel::<T>(dev, "roll4")?;
    let items = (n as u32).div_ceil(4);
    dev.launch(&k, &p, &[src.binding()], out.binding(), Work::Items(items))?;
    let strides = contiguous_strides(&shape);
    Ok(out.view(shape, strides, 0))
}

/// A new contiguous copy of `src` (at least 2-D) with the elements outside a band of its
/// last two axes zeroed: kept where column - row >= `k` (`upper`, triu) or <= `k` (tril).
pub(crate) fn band<T: Element>(src: &Array<T>, upper: bool, k: i32) -> Result<Array<T>> {
    let dev = &src.dev;
    let op = if upper { "triu" } else { "tril" };
    dev.accept(op, T::DTYPE, accepts::moves)?;
    let out = Array::<T>::alloc_any(dev, op, src.shape.clone(), |b| {
        dev.alloc_apart(b, &[&src.buf])
    })?;
    let n = out.len();
    if n == 0 {
        return Ok(out);
    }
    let p = ManipParams {
        shape: &src.shape,
        per_axis: [&src.strides, &[], &[]],
        in_offset: src.offset,
        out_offset: 0,
        aux: [upper as u32, k as u32],
    }
    .encode(T::zeroed())?;
    let kern = kernel::<T>(dev, "band")?;
    dev.launch(
        &kern,
        &p,
        &[src.binding()],
        out.binding(),
        Work::Items(n as u32),
    )?;
    Ok(out)
}

/// A new contiguous array of `shape` (`src`'s, but `ends[last]` along `axis`) in which
/// element j of `src` along `axis` fills output coordinates `ends[j - 1]..ends[j]` (`ends`:
/// the inclusive cumulative sum of per-element counts).
pub(crate) fn repeat_runs<T: Element>(
    src: &Array<T>,
    axis: usize,
    ends: &Array<u32>,
    shape: Vec<usize>,
) -> Result<Array<T>> {
    let dev = &src.dev;
    dev.accept("repeat", T::DTYPE, accepts::moves)?;
    let out = Array::<T>::alloc_any(dev, "repeat", shape, |b| {
        dev.alloc_apart(b, &[&src.buf, &ends.buf])
    })?;
    let n = out.len();
    if n == 0 {
        return Ok(out);
    }
    let extents: Vec<isize> = src.shape.iter().map(|&e| e as isize).collect();
    let p = ManipParams {
        shape: &out.shape,
        per_axis: [&src.strides, &[], &extents],
        in_offset: src.offset,
        out_offset: 0,
        aux: [0, axis as u32],
    }
    .encode(T::zeroed())?;
    let kern = kernel::<T>(dev, "repeat_runs")?;
    dev.launch(
        &kern,
        &p,
        &[src.binding(), ends.binding()],
        out.binding(),
        Work::Items(n as u32),
    )?;
    Ok(out)
}

/// Whether `fill` is all zero bits (complex fills other than zero differ between the
/// components, which the remap kernel's one scalar argument cannot carry).
fn is_zero<T: Element>(fill: T) -> bool {
    bytemuck::cast_slice::<T::Repr, u8>(&T::to_repr(&[fill]))
        .iter()
        .all(|&b| b == 0)
}

/// [`remap`] in constant mode with a complex fill other than zero: the output filled with
/// it, the input copied into its place.
fn fill_then_copy<T: Element>(
    src: &Array<T>,
    shape: Vec<usize>,
    lo: &[usize],
    fill: T,
) -> Result<Array<T>> {
    let out = src.dev.full(shape, fill)?;
    let at: usize = lo
        .iter()
        .zip(&out.strides)
        .map(|(&l, &s)| l * s as usize)
        .sum();
    copy_into(src, &out, at, &out.strides.clone())?;
    Ok(out)
}
