//! PyTorch's conv2d (the kernels behind `gpuarray::nn`; conv1d is a conv2d of height 1):
//! checks the layer, then runs small 1x1 layers without padding as matrix products
//! ([`pointwise_applies`]), others on the implicit GEMM `nn_gemm` where [`gemm_plan`] allows it,
//! else `nn_depthwise` ([`depthwise_plan`]: depthwise, channel multipliers, narrow groups,
//! channel-poor layers), else the direct `nn_direct`.

use super::depthwise::{depthwise_plan, run_depthwise};
use super::params::{offsets, Layer};
use super::plan::{gemm_plan, gemm_spec, GemmTiles};
use super::pointwise::{pointwise_applies, run_pointwise};
use super::types::Conv2d;
use super::{base_spec, dense, key};
use crate::array::Array;
use crate::device::Work;
use crate::dtype::Float;
use crate::error::{Error, Result};

/// Checks that the arrays share a device that has `T`.
fn check_devices<T: Float>(
    op: &'static str,
    input: &Array<T>,
    weight: &Array<T>,
    bias: Option<&Array<T>>,
) -> Result<()> {
    let bias = bias.map(|b| &b.dev);
    let others: Vec<&crate::Device> = [Some(&weight.dev), bias].into_iter().flatten().collect();
    input.dev.expect_same(op, &others)?;
    input.dev.require_32(op, T::DTYPE)
}

/// Checks the options that need no shapes: groups, strides and dilations of at least 1.
fn check_options(op: &'static str, g: &Conv2d) -> Result<()> {
    let invalid = |reason: &'static str| Err(Error::InvalidArgument { op, reason });
    if g.groups == 0 {
        return invalid("groups must be at least 1");
    }
    if g.stride.contains(&0) || g.dilation.contains(&0) {
        return invalid("stride and dilation must be at least 1");
    }
    Ok(())
}

/// Output length along one axis of input length `size`, filter length `k`, stride `s`,
/// padding `p` and dilation `d`.
fn out_len(op: &'static str, size: usize, k: usize, s: usize, p: usize, d: usize) -> Result<usize> {
    // At most 2^31 * 2^32: no overflow in u64 or 64-bit usize.
    let span = d * (k - 1) + 1;
    if size + 2 * p < span {
        return Err(Error::InvalidArgument {
            op,
            reason: "the dilated kernel is larger than the padded input",
        });
    }
    Ok((size + 2 * p - span) / s + 1)
}

/// Checks the shapes and options of a conv2d call, in PyTorch's order, and sizes its output.
fn check_layer<T: Float>(
    op: &'static str,
    input: &Array<T>,
    weight: &Array<T>,
    bias: Option<&Array<T>>,
    g: Conv2d,
) -> Result<Layer> {
    let invalid = |reason: &'static str| Error::InvalidArgument { op, reason };
    if input.ndim() != 4 || weight.ndim() != 4 {
        return Err(invalid(
            "input must be [N, C, H, W] and weight [O, C / groups, kH, kW]",
        ));
    }
    check_options(op, &g)?;
    let [n, c, h, w]: [usize; 4] = input.shape[..].try_into().expect("4-D");
    let [o, cg, kh, kw]: [usize; 4] = weight.shape[..].try_into().expect("4-D");
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
        return Err(Error::ShapeMismatch {
            op,
            lhs: input.shape.clone(),
            rhs: weight.shape.clone(),
        });
    }
    if o % g.groups != 0 {
        return Err(invalid("out channels must be divisible by groups"));
    }
    if let Some(b) = bias
        && b.shape != [o]
    {
        return Err(Error::ShapeMismatch {
            op,
            lhs: b.shape.clone(),
            rhs: vec![o],
        });
    }
    let oh = out_len(op, h, kh, g.stride[0], g.padding[0], g.dilation[0])?;
    let ow = out_len(op, w, kw, g.stride[1], g.padding[1], g.dilation[1])?;
    Ok(Layer {
        n,
        c,
        h,
        w,
        o,
        cg,
        kh,
        kw,
        oh,
        ow,
        opts: g,
    })
}

/// PyTorch's conv2d: input [N, C, H, W], weight [O, C / groups, kh, kw], bias [O].
pub(crate) fn conv2d<T: Float>(
    op: &'static str,
    input: &Array<T>,
    weight: &Array<T>,
    bias: Option<&Array<T>>,
    opts: Conv2d,
) -> Result<Array<T>> {
    check_devices(op, input, weight, bias)?;
    let layer = check_layer(op, input, weight, bias, opts)?;
    let dev = &input.dev;
    let shape = vec![layer.n, layer.o, layer.oh, layer.ow];
    if shape.contains(&0) {
        return Array::<T>::alloc(dev, op, shape);
    }
    let input = dense(input)?;
    let bias = bias.map(dense).transpose()?;
    let bias = bias.as_ref();
    if pointwise_applies(dev, &layer) {
        return run_pointwise(&layer, &input, weight, bias);
    }
    let out = Array::<T>::alloc(dev, op, shape)?;
    if let Some((tiles, grid)) = gemm_plan(dev, T::DTYPE, &layer.shape()) {
        run_gemm(&layer, &input, weight, bias, &out, tiles, grid)?;
    } else if let Some(plan) = depthwise_plan(dev, T::DTYPE, &layer) {
        run_depthwise(&layer, &input, weight, bias, &out, plan)?;
    } else {
        run_direct(&layer, &input, weight, bias, &out)?;
    }
    Ok(out)
}

/// Runs `nn_gemm` with `tiles` over `grid` (from [`gemm_plan`]).
fn run_gemm<T: Float>(
    layer: &Layer,
    input: &Array<T>,
    weight: &Array<T>,
    bias: Option<&Array<T>>,
    out: &Array<T>,
    tiles: GemmTiles,
    grid: [u32; 3],
) -> Result<()> {
    let dev = &input.dev;
    let (kh, kw) = (layer.kh, layer.kw);
    let (g, og, cg) = (layer.opts.groups, layer.og(), layer.cg);
    let taps = tiles.taps(&layer.shape());
    // B = the weight as [groups, K, Og] (K tap-major, [groups, taps, Cg, Og], with `taps`):
    // channels contiguous for the tile loads.
    let wt = dense(weight)?;
    let wt = if taps {
        wt.reshape([g, og, cg, kh * kw])?.transpose(&[0, 3, 2, 1])?
    } else {
        wt.reshape([g, og, layer.depth()])?.transpose(&[0, 2, 1])?
    };
    let wt = wt.contiguous()?;
    let (offs, has_bias) = offsets(input, &wt, bias);
    let p = layer.params(offs, has_bias).encode();
    let k = key(
        "nn_gemm",
        format!("{}|{kh}x{kw}|{tiles:?}|{taps}", T::DTYPE),
        3,
        tiles.wg(),
    );
    let kernel = dev.kernel(k, || gemm_spec(T::DTYPE, tiles, kh as u32, kw as u32, taps))?;
    let bias = bias.map_or(input.binding(), |b| b.binding());
    let inputs = [input.binding(), wt.binding(), bias];
    dev.launch(&kernel, &p, &inputs, out.binding(), Work::Groups(grid))
}

/// Runs `nn_direct`, one invocation per output element.
fn run_direct<T: Float>(
    layer: &Layer,
    input: &Array<T>,
    weight: &Array<T>,
    bias: Option<&Array<T>>,
    out: &Array<T>,
) -> Result<()> {
    let dev = &input.dev;
    let weight = dense(weight)?;
    let (offs, has_bias) = offsets(input, &weight, bias);
    let p = layer.params(offs, has_bias).encode();
    let k = key("nn_direct", format!("{}", T::DTYPE), 3, 256);
    let kernel = dev.kernel(k, || base_spec(T::DTYPE))?;
    let bias = bias.map_or(input.binding(), |b| b.binding());
    let inputs = [input.binding(), weight.binding(), bias];
    dev.launch(
        &kernel,
        &p,
        &inputs,
        out.binding(),
        Work::Items(out.len() as u32),
    )
}
