//! Convolutions: SciPy's `signal` convolutions and correlations (1-D and 2-D) and PyTorch's
//! `conv1d` / `conv2d`. Host side of shaders/conv.wgsl; the public faces are
//! [`crate::signal`] and [`crate::nn`].
//!
//! Every signal function becomes one correlation with signed output origin (from the mode and
//! SciPy's alignment rules) and the taps reversed for a convolution:
//! - 2-D filters up to [`TILE_MAX_K`] per side: `sig2d_tile` (input tile and halo, and the
//!   taps, in workgroup memory; the filter size is a pipeline constant); larger: `sig2d_direct`.
//! - 1-D: `sig1d`, blocked (taps in workgroup memory in chunks, 8 outputs per invocation).
//! - conv2d (conv1d as conv2d of height 1): `nn_gemm`, an implicit GEMM, where the layer has
//!   enough output channels per group and a deep enough reduction; `nn_direct` otherwise
//!   (depthwise and channel-poor layers).

use crate::array::Array;
use crate::device::Work;
use crate::dtype::{DType, Float};
use crate::error::{Error, Result};
use crate::kernel::cache::Key;
use crate::kernel::launch::{groups, Params, MAX_GROUPS};
use crate::kernel::source::Spec;
use crate::signal::{Boundary, Mode};

const SRC: &str = include_str!("../../shaders/conv.wgsl");

/// Largest filter side the tiled 2-D kernel takes (its register column holds 16 taps).
pub(crate) const TILE_MAX_K: usize = 16;
/// The tiled 2-D kernel's workgroup (TX x TY invocations) and outputs per invocation (PY).
const TILE: (u32, u32, u32) = (32, 8, 8);
/// The 1-D kernel: invocations, vec4 output groups per invocation, taps per chunk.
const SIG1D: (u32, u32, u32) = (256, 2, 128);

/// Tiles of the implicit GEMM: (BM, BN, BK, TM, TN).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
struct GemmTiles {
    bm: u32,
    bn: u32,
    bk: u32,
    tm: u32,
    tn: u32,
}

impl GemmTiles {
    fn wg(self) -> u32 {
        (self.bm / self.tm) * (self.bn / self.tn)
    }
}

const GEMM_WIDE: GemmTiles = GemmTiles {
    bm: 128,
    bn: 64,
    bk: 16,
    tm: 8,
    tn: 4,
};
const GEMM_NARROW: GemmTiles = GemmTiles {
    bm: 128,
    bn: 32,
    bk: 16,
    tm: 8,
    tn: 4,
};

/// Accumulator type and its size in bytes.
fn acc(d: DType) -> DType {
    if d == DType::F16 {
        DType::F32
    } else {
        d
    }
}

fn base_spec(d: DType) -> Spec {
    Spec::new("conv", SRC).scalar(d).alias("ACC", acc(d).wgsl())
}

/// The tiled 2-D kernel for a `kh x kw` filter.
fn tile_spec(d: DType, kh: u32, kw: u32) -> Spec {
    let (tx, ty, py) = TILE;
    base_spec(d)
        .constant("KH", kh)
        .constant("KW", kw)
        .constant("TX", tx)
        .constant("TY", ty)
        .constant("PY", py)
        .unchecked()
}

fn sig1d_spec(d: DType) -> Spec {
    let (wg, r1, tc) = SIG1D;
    base_spec(d)
        .constant("R1", r1)
        .constant("TC", tc)
        .constant("SEG4", r1 * wg + tc / 4)
        .unchecked()
}

fn gemm_spec(d: DType, t: GemmTiles, kh: u32, kw: u32) -> Spec {
    base_spec(d)
        .constant("KH", kh)
        .constant("KW", kw)
        .constant("BM", t.bm)
        .constant("BN", t.bn)
        .constant("BK", t.bk)
        .constant("TM", t.tm)
        .constant("TN", t.tn)
        .unchecked()
}

/// Every variant, for the shader validation test.
#[cfg(test)]
pub(crate) fn all_specs() -> Vec<Spec> {
    let mut specs = Vec::new();
    for &d in &[DType::F32, DType::F16, DType::F64] {
        specs.push(base_spec(d));
        specs.push(tile_spec(d, 7, 7));
        specs.push(tile_spec(d, 16, 1));
        specs.push(sig1d_spec(d));
        specs.push(gemm_spec(d, GEMM_WIDE, 3, 3));
        specs.push(gemm_spec(d, GEMM_NARROW, 1, 5));
    }
    specs
}

/// Workgroup memory of the tiled 2-D kernel for a `kh x kw` filter, in bytes.
fn tile_smem(d: DType, kh: usize, kw: usize) -> usize {
    let (tx, ty, py) = TILE;
    let (tx, ty, py) = (tx as usize, ty as usize, py as usize);
    // Plus the other entry points' arrays at their minimal sizes (a few hundred bytes).
    ((ty * py + kh - 1) * (tx + kw - 1) + kh * kw + 64) * acc(d).size() + 256
}

fn gemm_smem(d: DType, t: GemmTiles) -> usize {
    ((t.bm + t.bn) * t.bk) as usize * acc(d).size() + 512
}

fn key(entry: &'static str, variant: String, inputs: usize, wg: u32) -> Key {
    Key {
        family: "conv",
        entry,
        variant,
        inputs,
        wg,
        ndim: 0,
        per: 0,
    }
}

/// `x` as a contiguous array (a copy only when it is a strided view).
fn dense<T: Float>(x: &Array<T>) -> Result<Array<T>> {
    if x.is_contiguous() {
        Ok(x.clone())
    } else {
        x.contiguous()
    }
}

fn check_pair<T: Float>(op: &'static str, a: &Array<T>, b: &Array<T>, ndim: usize) -> Result<()> {
    a.same_device(op, &b.dev)?;
    a.dev.require(op, T::DTYPE)?;
    if a.ndim() != ndim || b.ndim() != ndim {
        return Err(Error::InvalidArgument {
            op,
            reason: if ndim == 1 {
                "both inputs must be 1-D"
            } else {
                "both inputs must be 2-D"
            },
        });
    }
    if a.is_empty() || b.is_empty() {
        return Err(Error::InvalidArgument {
            op,
            reason: "inputs must not be empty",
        });
    }
    Ok(())
}

/// Output length and start in the full output along one axis, for input length `n` and
/// filter length `m`. `same_start` is SciPy's offset of mode `same` along this axis.
fn axis(mode: Mode, n: usize, m: usize, same_start: usize) -> (usize, usize) {
    match mode {
        Mode::Full => (n + m - 1, 0),
        Mode::Same => (n, same_start),
        Mode::Valid => (n.max(m) - n.min(m) + 1, n.min(m) - 1),
    }
}

/// SciPy's 1-D `convolve` (`flip`) or `correlate` of two 1-D arrays.
pub(crate) fn signal1d<T: Float>(
    op: &'static str,
    a: &Array<T>,
    v: &Array<T>,
    mode: Mode,
    flip: bool,
) -> Result<Array<T>> {
    check_pair(op, a, v, 1)?;
    let (n, m) = (a.len(), v.len());
    // numpy / scipy: mode same starts at (m - 1) / 2 of the full output for both functions.
    let (len, start) = axis(mode, n, m, (m - 1) / 2);
    let ox = start as i64 - (m as i64 - 1);
    let dev = &a.dev;
    let (a, v) = (dense(a)?, dense(v)?);
    let out = Array::<T>::alloc(dev, op, vec![len])?;
    let (wg, r1, _) = SIG1D;
    let block = (4 * r1 * wg) as usize;
    let blocks = len.div_ceil(block);
    let mut p = Params::new(len as u32);
    p.shape[..4].copy_from_slice(&[n as u32, m as u32, len as u32, blocks as u32]);
    p.shape[6] = ox as i32 as u32;
    p.strides[0][1] = flip as u32;
    p.offs[0] = a.offset as u32;
    p.offs[1] = v.offset as u32;
    let k = key("sig1d", format!("{}|{SIG1D:?}", T::DTYPE), 2, wg);
    let kernel = dev.kernel(k, || sig1d_spec(T::DTYPE))?;
    let (gx, gy) = groups(blocks as u32, 1);
    dev.launch(
        &kernel,
        &p,
        &[a.binding(), v.binding()],
        out.binding(),
        Work::Groups([gx, gy, 1]),
    )?;
    Ok(out)
}

/// SciPy's `convolve2d` (`flip`) or `correlate2d` of two 2-D arrays.
pub(crate) fn signal2d<T: Float>(
    op: &'static str,
    a: &Array<T>,
    k: &Array<T>,
    mode: Mode,
    boundary: Boundary,
    flip: bool,
) -> Result<Array<T>> {
    check_pair(op, a, k, 2)?;
    let (h, w) = (a.shape[0], a.shape[1]);
    let (kh, kw) = (k.shape[0], k.shape[1]);
    if mode == Mode::Valid && !((h >= kh && w >= kw) || (h <= kh && w <= kw)) {
        return Err(Error::ShapeMismatch {
            op,
            lhs: a.shape.clone(),
            rhs: k.shape.clone(),
        });
    }
    // scipy's _convolve2d centres mode same at (k - 1) / 2 for a convolution and at k / 2
    // for a correlation (they differ for even sizes).
    let same = |k: usize| if flip { (k - 1) / 2 } else { k / 2 };
    let (oh, sy) = axis(mode, h, kh, same(kh));
    let (ow, sx) = axis(mode, w, kw, same(kw));
    let oy = sy as i64 - (kh as i64 - 1);
    let ox = sx as i64 - (kw as i64 - 1);
    // Mode valid never reads the boundary, except after SciPy's swap of a larger filter,
    // where the missing terms are zero.
    let (bmode, fill) = match (mode, boundary) {
        (Mode::Valid, _) => (0u32, 0.0),
        (_, Boundary::Fill(v)) => (0, v),
        (_, Boundary::Symmetric) => (1, 0.0),
        (_, Boundary::Wrap) => (2, 0.0),
    };
    let dev = &a.dev;
    let (a, k) = (dense(a)?, dense(k)?);
    let out = Array::<T>::alloc(dev, op, vec![oh, ow])?;
    let n = oh * ow;
    let mut p = Params::new(n as u32).scalars(&[T::from_f64(fill)]);
    p.shape = [
        h as u32,
        w as u32,
        oh as u32,
        ow as u32,
        kh as u32,
        kw as u32,
        oy as i32 as u32,
        ox as i32 as u32,
    ];
    p.strides[0][0] = bmode;
    p.strides[0][1] = flip as u32;
    p.offs[0] = a.offset as u32;
    p.offs[1] = k.offset as u32;
    let inputs = [a.binding(), k.binding()];
    let (tx, ty, py) = TILE;
    let grid = [ow.div_ceil(tx as usize), oh.div_ceil((ty * py) as usize)];
    let smem_ok =
        tile_smem(T::DTYPE, kh, kw) <= dev.limits().max_compute_workgroup_storage_size as usize;
    if kh <= TILE_MAX_K
        && kw <= TILE_MAX_K
        && smem_ok
        && grid.iter().all(|&g| g <= MAX_GROUPS as usize)
        && !dev.options().conv_direct
    {
        let k = key(
            "sig2d_tile",
            format!("{}|{kh}x{kw}|{TILE:?}", T::DTYPE),
            2,
            tx * ty,
        );
        let kernel = dev.kernel(k, || tile_spec(T::DTYPE, kh as u32, kw as u32))?;
        dev.launch(
            &kernel,
            &p,
            &inputs,
            out.binding(),
            Work::Groups([grid[0] as u32, grid[1] as u32, 1]),
        )?;
    } else {
        let k = key("sig2d_direct", format!("{}", T::DTYPE), 2, 256);
        let kernel = dev.kernel(k, || base_spec(T::DTYPE))?;
        dev.launch(&kernel, &p, &inputs, out.binding(), Work::Items(n as u32))?;
    }
    Ok(out)
}

/// Options of a 2-D convolution layer, per spatial axis (height, width).
#[derive(Debug, Clone, Copy)]
pub(crate) struct Geometry {
    pub stride: [usize; 2],
    pub padding: [usize; 2],
    pub dilation: [usize; 2],
    pub groups: usize,
}

/// PyTorch's conv2d: input [N, C, H, W], weight [O, C / groups, kh, kw], bias [O].
pub(crate) fn conv2d<T: Float>(
    op: &'static str,
    input: &Array<T>,
    weight: &Array<T>,
    bias: Option<&Array<T>>,
    g: Geometry,
) -> Result<Array<T>> {
    input.same_device(op, &weight.dev)?;
    input.dev.require(op, T::DTYPE)?;
    if let Some(b) = bias {
        input.same_device(op, &b.dev)?;
    }
    let invalid = |reason: &'static str| Error::InvalidArgument { op, reason };
    let mismatch = || Error::ShapeMismatch {
        op,
        lhs: input.shape.clone(),
        rhs: weight.shape.clone(),
    };
    if input.ndim() != 4 || weight.ndim() != 4 {
        return Err(invalid(
            "input must be [N, C, H, W] and weight [O, C / groups, kH, kW]",
        ));
    }
    if g.groups == 0 {
        return Err(invalid("groups must be at least 1"));
    }
    if g.stride.contains(&0) || g.dilation.contains(&0) {
        return Err(invalid("stride and dilation must be at least 1"));
    }
    let [n, c, h, w] = [
        input.shape[0],
        input.shape[1],
        input.shape[2],
        input.shape[3],
    ];
    let [o, cg, kh, kw] = [
        weight.shape[0],
        weight.shape[1],
        weight.shape[2],
        weight.shape[3],
    ];
    if o == 0 || cg == 0 || kh == 0 || kw == 0 {
        return Err(invalid("the weight must not be empty"));
    }
    // Kernels take 32-bit geometry: larger strides, paddings or dilations could only be
    // truncated (found by tests/fuzz.rs).
    let fits = |v: &usize| *v <= i32::MAX as usize;
    if ![g.stride, g.padding, g.dilation, [g.groups, 1]]
        .iter()
        .all(|v| v.iter().all(fits))
    {
        return Err(invalid(
            "stride, padding, dilation and groups must be below 2^31",
        ));
    }
    if cg.checked_mul(g.groups) != Some(c) {
        return Err(mismatch());
    }
    if o % g.groups != 0 {
        return Err(invalid("out channels must be divisible by groups"));
    }
    if let Some(b) = bias {
        if b.shape != [o] {
            return Err(Error::ShapeMismatch {
                op,
                lhs: b.shape.clone(),
                rhs: vec![o],
            });
        }
    }
    let out_len = |size: usize, k: usize, s: usize, p: usize, d: usize| -> Result<usize> {
        // At most 2^31 * 2^32: no overflow in u64 or 64-bit usize.
        let span = d * (k - 1) + 1;
        if size + 2 * p < span {
            return Err(invalid(
                "the dilated kernel is larger than the padded input",
            ));
        }
        Ok((size + 2 * p - span) / s + 1)
    };
    let ohh = out_len(h, kh, g.stride[0], g.padding[0], g.dilation[0])?;
    let oww = out_len(w, kw, g.stride[1], g.padding[1], g.dilation[1])?;
    let dev = &input.dev;
    let out = Array::<T>::alloc(dev, op, vec![n, o, ohh, oww])?;
    if out.is_empty() {
        return Ok(out);
    }
    let og = o / g.groups;
    let kdim = cg * kh * kw;
    let pix = ohh * oww;
    let input = dense(input)?;
    let bias = bias.map(dense).transpose()?;
    let mut p = Params::new(out.len() as u32);
    p.shape = [
        c as u32,
        h as u32,
        w as u32,
        n as u32,
        o as u32,
        ohh as u32,
        oww as u32,
        g.groups as u32,
    ];
    p.strides[0] = [
        kh as u32,
        kw as u32,
        g.stride[0] as u32,
        g.stride[1] as u32,
        g.padding[0] as u32,
        g.padding[1] as u32,
        g.dilation[0] as u32,
        g.dilation[1] as u32,
    ];
    p.strides[1][..5].copy_from_slice(&[
        cg as u32,
        og as u32,
        kdim as u32,
        pix as u32,
        bias.is_some() as u32,
    ]);
    p.offs[0] = input.offset as u32;
    p.offs[2] = bias.as_ref().map_or(0, |b| b.offset as u32);
    let bias_binding = bias.as_ref().map_or(input.binding(), |b| b.binding());

    let tiles = if og >= 64 { GEMM_WIDE } else { GEMM_NARROW };
    let gemm = og >= 16
        && kdim >= 16
        && n * g.groups <= MAX_GROUPS as usize
        && pix.div_ceil(tiles.bm as usize) <= MAX_GROUPS as usize
        && kh <= 64
        && kw <= 64
        && gemm_smem(T::DTYPE, tiles) <= dev.limits().max_compute_workgroup_storage_size as usize
        && tiles.wg() <= dev.limits().max_compute_invocations_per_workgroup
        && !dev.options().conv_direct;
    if gemm {
        // B = the weight as [groups, K, Og]: channels contiguous for the tile loads.
        let wt = dense(weight)?
            .reshape([g.groups, og, kdim])?
            .transpose(&[0, 2, 1])?
            .contiguous()?;
        p.offs[1] = wt.offset as u32;
        let k = key(
            "nn_gemm",
            format!("{}|{kh}x{kw}|{tiles:?}", T::DTYPE),
            3,
            tiles.wg(),
        );
        let kernel = dev.kernel(k, || gemm_spec(T::DTYPE, tiles, kh as u32, kw as u32))?;
        let grid = [
            pix.div_ceil(tiles.bm as usize) as u32,
            og.div_ceil(tiles.bn as usize) as u32,
            (n * g.groups) as u32,
        ];
        dev.launch(
            &kernel,
            &p,
            &[input.binding(), wt.binding(), bias_binding],
            out.binding(),
            Work::Groups(grid),
        )?;
    } else {
        let weight = dense(weight)?;
        p.offs[1] = weight.offset as u32;
        let k = key("nn_direct", format!("{}", T::DTYPE), 3, 256);
        let kernel = dev.kernel(k, || base_spec(T::DTYPE))?;
        dev.launch(
            &kernel,
            &p,
            &[input.binding(), weight.binding(), bias_binding],
            out.binding(),
            Work::Items(out.len() as u32),
        )?;
    }
    Ok(out)
}
