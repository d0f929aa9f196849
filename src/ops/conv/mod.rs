//! Convolutions: SciPy's `signal` convolutions and correlations (1-D and 2-D) and PyTorch's
//! `conv1d` / `conv2d`. Host side of shaders/conv.wgsl; the public faces `gpuarray::signal`
//! and `gpuarray::nn` forward here and re-export the option types of [`types`], so that the
//! dependencies point one way: the faces depend on this module, never the reverse.
//!
//! Every signal function becomes one correlation with signed output origin (from the mode and
//! SciPy's alignment rules) and the taps reversed for a convolution:
//! - 2-D filters up to [`plan::TILE_MAX_K`] per side: `sig2d_tile` (input tile and halo, and
//!   the taps, in workgroup memory; the filter size is a pipeline constant); larger:
//!   `sig2d_direct`.
//! - 1-D: `sig1d`, blocked (taps in workgroup memory in chunks, 8 outputs per invocation).
//! - conv2d (conv1d as conv2d of height 1): `nn_gemm`, an implicit GEMM, where the layer has
//!   enough output channels per group and a deep enough reduction; otherwise `nn_depthwise`
//!   (shaders/depthwise.wgsl: depthwise, channel multipliers, narrow groups, each
//!   input tile staged in workgroup memory once), or `nn_direct` where that kernel's tiles
//!   do not fit; 1x1 layers without padding too small to fill the GPU are linalg's batched
//!   matrix products.
//!
//! Modules: [`types`] the public option types, [`signal`] the SciPy functions, [`layer`]
//! conv2d, [`depthwise`] its kernel for narrow groups, [`pointwise`] 1x1 layers as matrix products, [`plan`] the tile sizes and kernel choices, [`params`] the typed parameter blocks.

mod depthwise;
mod layer;
mod params;
mod plan;
mod pointwise;
mod signal;
mod types;

pub(crate) use layer::conv2d;
pub(crate) use signal::{signal1d, signal2d};
pub use types::{Boundary, Conv2d, Mode};

use crate::array::Array;
use crate::dtype::{DType, Float};
use crate::error::Result;
use crate::kernel::cache::Key;
use crate::kernel::source::Spec;

/// The family's kernels; the conv2d layers' parameter accessors and bias are imported from
/// shaders/shared/conv_layer.wgsl (as by the depthwise kernel).
const SRC: &str = include_str!("../../../shaders/conv.wgsl");

/// Accumulator type: f32 for f16, else the element type.
fn acc(d: DType) -> DType {
    if d == DType::F16 {
        DType::F32
    } else {
        d
    }
}

/// The shader with element type `d` and its accumulator; the direct kernels compile it as is,
/// the tiled ones add their constants ([`plan`]).
fn base_spec(d: DType) -> Spec {
    Spec::new("conv", SRC).scalar(d).alias("ACC", acc(d).wgsl())
}

/// Every variant, for the shader validation test.
#[cfg(test)]
pub(crate) fn all_specs() -> Vec<Spec> {
    use plan::{gemm_spec, sig1d_spec, tile_spec, GEMM_NARROW, GEMM_SMALL_NARROW, GEMM_WIDE};
    let mut specs = Vec::new();
    for &d in &[DType::F32, DType::F16, DType::F64] {
        specs.push(base_spec(d));
        specs.push(tile_spec(d, 7, 7));
        specs.push(tile_spec(d, 16, 1));
        specs.push(sig1d_spec(d));
        specs.push(gemm_spec(d, GEMM_WIDE, 3, 3, false));
        specs.push(gemm_spec(d, GEMM_WIDE, 3, 3, true));
        specs.push(gemm_spec(d, GEMM_NARROW, 1, 5, true));
        specs.push(gemm_spec(d, GEMM_SMALL_NARROW, 5, 5, false));
        specs.extend(depthwise::all_specs(d));
    }
    specs
}

/// The cache key of conv kernel `entry`.
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
