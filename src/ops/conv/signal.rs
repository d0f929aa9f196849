//! SciPy's 1-D and 2-D convolutions and correlations (the kernels behind `gpuarray::signal`).
//!
//! Each call becomes one correlation with a signed output origin (from the [`Mode`] and
//! SciPy's alignment rules) and the taps reversed for a convolution: `sig1d` in 1-D,
//! `sig2d_tile` or `sig2d_direct` in 2-D ([`sig2d_tile_grid`] chooses).

use super::params::{Edge, Signal1dParams, Signal2dParams};
use super::plan::{sig1d_spec, sig2d_tile_grid, tile_spec, SIG1D, TILE};
use super::types::{Boundary, Mode};
use super::{base_spec, dense, key};
use crate::array::Array;
use crate::device::Work;
use crate::dtype::Float;
use crate::error::{Error, Result};
use crate::kernel::launch::groups;

/// Checks that `a` and `b` share a device that has `T`, have `ndim` dimensions and are not
/// empty.
fn check_pair<T: Float>(op: &'static str, a: &Array<T>, b: &Array<T>, ndim: usize) -> Result<()> {
    a.dev.expect_same(op, &[&b.dev])?;
    a.dev.require_32(op, T::DTYPE)?;
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
    let p = Signal1dParams {
        len_in: n as u32,
        taps: m as u32,
        len_out: len as u32,
        blocks: blocks as u32,
        origin: ox as i32,
        flip,
        offsets: [a.offset as u32, v.offset as u32],
    };
    let k = key("sig1d", format!("{}|{SIG1D:?}", T::DTYPE), 2, wg);
    let kernel = dev.kernel(k, || sig1d_spec(T::DTYPE))?;
    let (gx, gy) = groups(blocks as u32, 1);
    dev.launch(
        &kernel,
        &p.encode(),
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
    let (edge, fill) = match (mode, boundary) {
        (Mode::Valid, _) => (Edge::Fill, 0.0),
        (_, Boundary::Fill(v)) => (Edge::Fill, v),
        (_, Boundary::Symmetric) => (Edge::Symmetric, 0.0),
        (_, Boundary::Wrap) => (Edge::Wrap, 0.0),
    };
    let dev = &a.dev;
    let (a, k) = (dense(a)?, dense(k)?);
    let out = Array::<T>::alloc(dev, op, vec![oh, ow])?;
    let p = Signal2dParams {
        input: [h as u32, w as u32],
        output: [oh as u32, ow as u32],
        filter: [kh as u32, kw as u32],
        origin: [oy as i32, ox as i32],
        edge,
        fill: T::from_f64(fill),
        flip,
        offsets: [a.offset as u32, k.offset as u32],
    }
    .encode();
    let inputs = [a.binding(), k.binding()];
    if let Some(grid) = sig2d_tile_grid(dev, T::DTYPE, [oh, ow], [kh, kw]) {
        let (tx, ty, _) = TILE;
        let cache_key = key(
            "sig2d_tile",
            format!("{}|{kh}x{kw}|{TILE:?}", T::DTYPE),
            2,
            tx * ty,
        );
        let kernel = dev.kernel(cache_key, || tile_spec(T::DTYPE, kh as u32, kw as u32))?;
        dev.launch(&kernel, &p, &inputs, out.binding(), Work::Groups(grid))?;
    } else {
        let cache_key = key("sig2d_direct", format!("{}", T::DTYPE), 2, 256);
        let kernel = dev.kernel(cache_key, || base_spec(T::DTYPE))?;
        let n = oh * ow;
        dev.launch(&kernel, &p, &inputs, out.binding(), Work::Items(n as u32))?;
    }
    Ok(out)
}
