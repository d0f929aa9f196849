//! The matrix-vector kernels of shaders/gemv.wgsl: products with one column (`N = 1`,
//! `y = A v`) or one row (`M = 1`, `y = v B`, read as `B^T v`), batched and broadcast as
//! every product. They are bandwidth-bound: the matrix is read once, coalesced whichever of
//! its dimensions is contiguous (`gemv_dot` when k is, `gemv_cols` when the output's
//! dimension is). Where the rows are too few to fill the GPU, the sum over k is split into
//! slices whose partial sums the host adds in order (a sum over the slice axis, the same
//! bits every run); f16 accumulates in f32 and is rounded once.
//!
//! f32 and f16 matrices whose extents, strides and offsets are whole 16-byte words go
//! through the wide entries (`gemv_dot_w`, `gemv_cols_w`): several word loads per
//! invocation issued before their products, clamped rather than branched, compiled without
//! naga's bounds checks; f16 is written directly where k is not split. Where it was measured
//! that more than halved the time of an f16 8192 x 8192 matrix times a vector
//! (BENCHMARKS.md, "Measurements behind the code's choices").

use crate::array::Array;
use crate::device::{Device, Work};
use crate::dtype::{DType, Element};
use crate::error::Result;
use crate::kernel::cache::Key;
use crate::kernel::launch::MAX_GROUPS;
use crate::kernel::source::Spec;
use crate::shape::Axis;

use super::params::GemvParams;
use super::product::{Operand, Product};

/// The text of shaders/gemv.wgsl.
const SRC: &str = include_str!("../../../shaders/gemv.wgsl");

/// Invocations per workgroup, lanes per row of `gemv_dot`, k slices of `gemv_cols`.
const WG: u32 = 256;
const LANES: u32 = 32;
const KS: u32 = 4;
/// Workgroups (rows groups x slices x batches) that fill a large GPU about twice (an H100
/// has 132 multiprocessors of 2,048 invocations: 1,056 workgroups of 256).
const TARGET_GROUPS: usize = 2048;
/// The shortest slice of k worth its own workgroup.
const MIN_CHUNK: usize = 512;
/// Loop steps per invocation at most (lavapipe cuts loops at 65,535 iterations).
const MAX_STEPS: usize = 32_768;

/// How the kernel reads X: element by element, as vec4s of its type, or (f32 and f16) as
/// 16-byte words, several per invocation issued before their products (`gemv_*_w`).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(super) enum Mode {
    Scalar,
    Vec4,
    Wide,
}

/// Slices of k of `gemv_cols_w` per workgroup (its rows per invocation are a 16-byte word,
/// so it takes more slices than `gemv_cols` for as many rows per workgroup).
const KS_WIDE: u32 = 16;
/// Workgroups that fill an H100 about once: the wide entries keep U loads in flight per
/// invocation, so they split k only where the rows give fewer.
const TARGET_WIDE: usize = 1024;

/// The kernel variant: element type, how X is read, and (wide only) whether the output is
/// the element type itself rather than f32.
pub(super) fn spec(d: DType, mode: Mode, direct: bool) -> Spec {
    let acc = if d == DType::F16 { DType::F32 } else { d };
    let s = d.wgsl();
    let spec = Spec::new("gemv", SRC)
        .scalar(d)
        .alias("ACC", acc.wgsl())
        .alias(
            "VX",
            if mode == Mode::Vec4 {
                format!("vec4<{s}>")
            } else {
                s.into()
            },
        )
        .constant("LANES", LANES);
    match mode {
        Mode::Scalar => spec.constant("KS", KS),
        Mode::Vec4 => spec.constant("KS", KS).function(
            "fetch_x",
            "fn fetch_x(e: u32, cnt: u32) -> vec4<ACC> { if (cnt < 4u) { return vec4<ACC>(); } return vec4<ACC>(x[e / 4u]); }",
        ),
        // Every index of the wide entries is clamped in bounds (rows to the last, k to the
        // slice's last word), so they compile without naga's checks: a checked load sits in
        // a branch, which the H100's compiler neither batches nor overlaps.
        Mode::Wide => {
            let spec = spec
                .unchecked()
                .constant("KS", KS_WIDE)
                .constant("E", (16 / d.size()) as u32)
                .alias("OW", if direct { s } else { "f32" });
            if d != DType::F16 {
                return spec;
            }
            spec.function(
                "lo",
                "fn lo(q: vec4<u32>) -> vec4<f32> { return vec4<f32>(unpack2x16float(q.x), unpack2x16float(q.y)); }",
            )
            .function(
                "hi",
                "fn hi(q: vec4<u32>) -> vec4<f32> { return vec4<f32>(unpack2x16float(q.z), unpack2x16float(q.w)); }",
            )
        }
    }
}

/// Every variant, for the naga validation of all shaders.
#[cfg(test)]
pub(super) fn specs() -> Vec<Spec> {
    let mut out = Vec::new();
    for d in DType::ALL {
        out.push(spec(d, Mode::Scalar, false));
        out.push(spec(d, Mode::Vec4, false));
        if matches!(d, DType::F16 | DType::F32) {
            out.push(spec(d, Mode::Wide, false));
            out.push(spec(d, Mode::Wide, true));
        }
    }
    out
}

/// Whether the product is a matrix-vector one this kernel takes.
pub(super) fn eligible(dev: &Device, prod: &Product<'_>) -> bool {
    dev.options().tuning.matmul_gemv
        && (prod.n == 1 || prod.m == 1)
        && prod.batches <= MAX_GROUPS as usize
}

/// X (rows r, columns k) and v as the kernel reads them: offsets, strides, batch strides.
struct Layout<'a> {
    x: &'a Operand<'a>,
    v: &'a Operand<'a>,
    r: usize,
    stride_r: usize,
    stride_k: usize,
    stride_v: usize,
}

/// X = A and v = B's column when N = 1, else X = B^T and v = A's row. An operand's element
/// (i, j) lies at `offset + (trans ? j * ld + i : i * ld + j)`.
fn layout<'a>(prod: &'a Product<'a>) -> Layout<'a> {
    let (a, b) = (&prod.a, &prod.b);
    if prod.n == 1 {
        let (stride_r, stride_k) = if a.trans { (1, a.ld) } else { (a.ld, 1) };
        Layout {
            x: a,
            v: b,
            r: prod.m,
            stride_r,
            stride_k,
            stride_v: if b.trans { 1 } else { b.ld },
        }
    } else {
        let (stride_r, stride_k) = if b.trans { (b.ld, 1) } else { (1, b.ld) };
        Layout {
            x: b,
            v: a,
            r: prod.n,
            stride_r,
            stride_k,
            stride_v: if a.trans { a.ld } else { 1 },
        }
    }
}

/// Slices of k: enough workgroups (`target`) to fill the GPU where the rows are few, each
/// slice at least [`MIN_CHUNK`] long, and never more loop steps per invocation than
/// [`MAX_STEPS`].
fn slices(target: usize, groups: usize, batches: usize, k: usize, step: usize) -> usize {
    let want = target.div_ceil(groups * batches).min(k.div_ceil(MIN_CHUNK));
    want.max(k.div_ceil(MAX_STEPS * step)).max(1)
}

/// How one product runs: the layout, the entry point and its mode, the slices of k.
struct Plan<'a> {
    l: Layout<'a>,
    entry: &'static str,
    mode: Mode,
    groups: usize,
    split: usize,
    chunk: usize,
}

/// Whether every offset and stride in `all` is a multiple of `e` elements.
fn aligned(e: usize, all: &[usize], batch: &[isize]) -> bool {
    all.iter()
        .copied()
        .chain(batch.iter().map(|b| b.unsigned_abs()))
        .all(|s| s.is_multiple_of(e))
}

fn plan<'a>(dev: &Device, dtype: DType, prod: &'a Product<'a>) -> Plan<'a> {
    let l = layout(prod);
    let dot = l.stride_k == 1;
    // X's contiguous extent and its other stride.
    let (ext, other) = if dot {
        (prod.k, l.stride_r)
    } else {
        (l.r, l.stride_k)
    };
    let x_at = |e: usize| aligned(e, &[ext, other, l.x.offset], &l.x.batch);
    // 16-byte words: X's extent, stride, offset and batch strides multiples of a word (and
    // v's, contiguous, where `gemv_dot_w` reads it by words too). f16 words are unpacked by
    // unpack2x16float (a bitcast to vec2<f16> reads wrong values on lavapipe).
    let e = 16 / dtype.size().max(1);
    let unpack = dev
        .naga_capabilities()
        .contains(naga::valid::Capabilities::SHADER_FLOAT16_IN_FLOAT32);
    let wide = (dtype == DType::F32 || (dtype == DType::F16 && unpack))
        && x_at(e)
        && (!dot || (l.stride_v == 1 && aligned(e, &[l.v.offset], &l.v.batch)));
    let mode = if wide {
        Mode::Wide
    } else if x_at(4) {
        Mode::Vec4
    } else {
        Mode::Scalar
    };
    let (entry, per_group, step) = match (dot, wide) {
        (true, false) => ("gemv_dot", (WG / LANES) as usize, 4 * LANES as usize),
        (false, false) => ("gemv_cols", (4 * WG / KS) as usize, KS as usize),
        (true, true) => ("gemv_dot_w", (WG / LANES) as usize, e * LANES as usize),
        (false, true) => ("gemv_cols_w", e * (WG / KS_WIDE) as usize, KS_WIDE as usize),
    };
    let target = if wide { TARGET_WIDE } else { TARGET_GROUPS };
    let groups = l.r.div_ceil(per_group);
    let split = slices(target, groups, prod.batches, prod.k, step);
    // Slices of a multiple of 4 (of a word in `gemv_dot_w`).
    let chunk = prod.k.div_ceil(split).next_multiple_of(e.max(4));
    let split = prod.k.div_ceil(chunk);
    Plan {
        l,
        entry,
        mode,
        groups,
        split,
        chunk,
    }
}

/// The product as `y = X v`, as a new array of the product's output shape.
pub(super) fn run<T: Element>(
    dev: &Device,
    prod: &Product<'_>,
    shape: &[usize],
) -> Result<Array<T>> {
    let p = plan(dev, T::DTYPE, prod);
    // f16 sums in f32, rounded once: by the wide kernel itself where k is not split.
    if T::DTYPE == DType::F16 && !(p.mode == Mode::Wide && p.split == 1) {
        let y = gemv::<T, f32>(dev, prod, &p)?;
        return y.cast::<T>()?.reshape(shape);
    }
    gemv::<T, T>(dev, prod, &p)?.reshape(shape)
}

/// The sums in `A` (T itself, or f32 for f16): `[batches, R]`, the partial sums of the
/// slices added in order where k was split.
fn gemv<T: Element, A: Element>(dev: &Device, prod: &Product<'_>, plan: &Plan) -> Result<Array<A>> {
    let Plan {
        l,
        entry,
        mode,
        groups,
        split,
        chunk,
    } = plan;
    let (groups, split, chunk) = (*groups, *split, *chunk);
    let direct = A::DTYPE == T::DTYPE;
    prod.trace(dev, T::DTYPE, || {
        format!(
            "gemv {entry} {mode:?} rows={} k slices={split} of {chunk}",
            l.r
        )
    });
    let out = Array::<A>::alloc(dev, "matmul", vec![split, prod.batches, l.r])?;
    let key = Key {
        family: "gemv",
        entry,
        variant: format!("{}|{mode:?}|{}", T::DTYPE, direct as u8),
        inputs: 2,
        wg: WG,
        ndim: 0,
        per: 0,
    };
    let kernel = dev.kernel(key, || spec(T::DTYPE, *mode, direct))?;
    let (shape, strides) = crate::shape::collapse(&prod.batch_shape, &[&l.x.batch, &l.v.batch]);
    for first in (0..groups).step_by(MAX_GROUPS as usize) {
        let p = GemvParams {
            batches: prod.batches as u32,
            batch_shape: &shape,
            batch_strides: &strides,
            offset_x: l.x.offset as u32,
            offset_v: l.v.offset as u32,
            r: l.r as u32,
            k: prod.k as u32,
            stride_r: l.stride_r as u32,
            stride_k: l.stride_k as u32,
            stride_v: l.stride_v as u32,
            chunk: chunk as u32,
            first_group: first as u32,
        };
        let grid = [
            (groups - first).min(MAX_GROUPS as usize) as u32,
            split as u32,
            prod.batches as u32,
        ];
        dev.launch(
            &kernel,
            &p.encode(),
            &[l.x.binding, l.v.binding],
            out.binding(),
            Work::Groups(grid),
        )?;
    }
    if split == 1 {
        return out.reshape(vec![prod.batches, l.r]);
    }
    out.sum_axis(Axis(0))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn slices_fill_the_gpu_and_bound_the_loops() {
        // Many rows: no split.
        assert_eq!(slices(TARGET_GROUPS, 2048, 1, 8192, 32), 1);
        assert_eq!(slices(TARGET_WIDE, 1024, 1, 8192, 256), 1);
        // One row group of a long k: split into slices of at least MIN_CHUNK.
        assert_eq!(slices(TARGET_GROUPS, 1, 1, 1 << 20, 32), 2048);
        assert_eq!(slices(TARGET_GROUPS, 1, 1, 4096, 32), 8);
        // Short k: never split below MIN_CHUNK.
        assert_eq!(slices(TARGET_GROUPS, 1, 1, 100, 4), 1);
        // Loop bound: k / (split * step) <= MAX_STEPS even with many rows.
        let s = slices(TARGET_GROUPS, 100_000, 1, 1 << 24, 4);
        assert!((1usize << 24).div_ceil(s) <= MAX_STEPS * 4);
    }
}
