//! 1x1 conv2d layers without padding as batched matrix products: with stride 1 the NCHW
//! input is already, per image and group, a [C / groups, H * W] matrix, so
//! `out[n, g] = W[g] @ X[n, g]` with the weight as [groups, O / groups, C / groups], through
//! linalg's `matmul` (its tile trials, split-K and shape classes) and no gathering. Only
//! layers too small to fill the GPU with `nn_gemm`'s tiles take this path: with its
//! tap-major loads `nn_gemm` beat the product on larger ones. Strided 1x1 layers stay on
//! the conv kernels: through a subsampled copy and the product they measured slower
//! (BENCHMARKS.md, "Measurements behind the code's choices").

use super::dense;
use super::params::Layer;
use super::plan::fills_gpu;
use crate::array::Array;
use crate::device::Device;
use crate::dtype::Float;
use crate::error::Result;

/// Whether `layer` runs as a matrix product: a 1x1 filter, stride 1, no padding, too few
/// pixels and output channels to fill the GPU with `nn_gemm` ([`fills_gpu`]), and
/// `Tuning::conv_pointwise` (default on; off where `Tuning::conv_direct` is on).
pub(super) fn pointwise_applies(dev: &Device, layer: &Layer) -> bool {
    let o = dev.options();
    layer.kh == 1
        && layer.kw == 1
        && layer.opts.padding == [0, 0]
        && layer.opts.stride == [1, 1]
        && !fills_gpu(&layer.shape())
        && o.tuning.conv_pointwise
        && !o.tuning.conv_direct
}

/// The layer's output, `[n, o, oh, ow]`, from a dense `input` (see [`pointwise_applies`]).
pub(super) fn run_pointwise<T: Float>(
    layer: &Layer,
    input: &Array<T>,
    weight: &Array<T>,
    bias: Option<&Array<T>>,
) -> Result<Array<T>> {
    let (n, g, cg, og) = (layer.n, layer.opts.groups, layer.cg, layer.og());
    let (oh, ow) = (layer.oh, layer.ow);
    let x = input.reshape([n, g, cg, oh * ow])?;
    let wm = dense(weight)?.reshape([g, og, cg])?;
    let mut y = wm.matmul(&x)?;
    if let Some(b) = bias {
        y = y.add(&b.reshape([g, og, 1])?)?;
    }
    y.reshape([n, layer.o, oh, ow])
}
