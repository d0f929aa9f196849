//! Typed parameters of the convolution kernels. The kernels share shaders/conv.wgsl but read
//! three layouts of the generic [`Params`] block: one struct each here, and each struct's
//! `encode` is the only code that assigns their slots. The WGSL reads every slot through the
//! accessor function named in each field's doc (declared once atop shaders/conv.wgsl, which
//! mirrors these structs); only the generic `P.n` (outputs), `P.offs` (element offsets of x,
//! w and bias) and `arg(0u)` (scalar arguments) are read directly. The checked sizes of a
//! conv2d layer ([`Layer`]) make its kernels' [`LayerParams`].

use super::plan::LayerShape;
use super::types::Conv2d;
use crate::array::Array;
use crate::dtype::Float;
use crate::kernel::launch::Params;

/// How the 2-D signal kernels extend the input beyond its edges (WGSL `s2_edge()`: the code
/// `bmap` takes).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(super) enum Edge {
    /// The fill value (`arg(0u)`).
    Fill = 0,
    /// Reflected about the edge.
    Symmetric = 1,
    /// Periodic.
    Wrap = 2,
}

/// Parameters of `sig1d`, SciPy's 1-D correlation with zero fill.
#[derive(Debug, Clone, Copy)]
pub(super) struct Signal1dParams {
    /// Input length (`s1_len_in()`).
    pub len_in: u32,
    /// Filter taps (`s1_taps()`).
    pub taps: u32,
    /// Output length (`s1_len_out()`; also `P.n`).
    pub len_out: u32,
    /// Workgroup blocks of outputs, 4 * R1 * WG each (`s1_blocks()`).
    pub blocks: u32,
    /// Signed origin of the output in the input (`s1_origin()`).
    pub origin: i32,
    /// Reverse the taps: a convolution (`sig_flip()`).
    pub flip: bool,
    /// Element offsets of the input and the filter (`P.offs.x`, `P.offs.y`).
    pub offsets: [u32; 2],
}

impl Signal1dParams {
    pub(super) fn encode(&self) -> Params {
        let mut p = Params::new(self.len_out);
        p.shape[..4].copy_from_slice(&[self.len_in, self.taps, self.len_out, self.blocks]);
        p.shape[6] = self.origin as u32;
        p.strides[0][1] = self.flip as u32;
        p.offs[..2].copy_from_slice(&self.offsets);
        p
    }
}

/// Parameters of `sig2d_direct` and `sig2d_tile`, SciPy's 2-D correlation.
#[derive(Debug, Clone, Copy)]
pub(super) struct Signal2dParams<T> {
    /// Input height and width (`s2_in_h()`, `s2_in_w()`).
    pub input: [u32; 2],
    /// Output height and width (`s2_out_h()`, `s2_out_w()`); `P.n` is their product.
    pub output: [u32; 2],
    /// Filter height and width (`s2_k_h()`, `s2_k_w()`).
    pub filter: [u32; 2],
    /// Signed origin (row, column) of the output in the input (`s2_origin_y()`,
    /// `s2_origin_x()`).
    pub origin: [i32; 2],
    /// The boundary rule (`s2_edge()`).
    pub edge: Edge,
    /// The value of [`Edge::Fill`] (`arg(0u)`).
    pub fill: T,
    /// Reverse the taps: a convolution (`sig_flip()`).
    pub flip: bool,
    /// Element offsets of the input and the filter (`P.offs.x`, `P.offs.y`).
    pub offsets: [u32; 2],
}

impl<T: Float> Signal2dParams<T> {
    pub(super) fn encode(&self) -> Params {
        let [oh, ow] = self.output;
        // The outputs as the u32 the launch counts (the host checked they fit).
        let mut p = Params::new(oh.wrapping_mul(ow)).scalars(&[self.fill]);
        p.shape = [
            self.input[0],
            self.input[1],
            oh,
            ow,
            self.filter[0],
            self.filter[1],
            self.origin[0] as u32,
            self.origin[1] as u32,
        ];
        p.strides[0][0] = self.edge as u32;
        p.strides[0][1] = self.flip as u32;
        p.offs[..2].copy_from_slice(&self.offsets);
        p
    }
}

/// Parameters of `nn_direct` and `nn_gemm`, PyTorch's conv2d.
#[derive(Debug, Clone, Copy)]
pub(super) struct LayerParams {
    /// Output elements (`P.n`).
    pub n: u32,
    /// Images N (`nn_batch()`, read by `nn_gemm` only).
    pub batch: u32,
    /// Input channels C (`nn_channels()`).
    pub channels: u32,
    /// Input height and width (`nn_in_h()`, `nn_in_w()`).
    pub input: [u32; 2],
    /// Output channels O (`nn_out_channels()`).
    pub out_channels: u32,
    /// Output height and width (`nn_out_h()`, `nn_out_w()`).
    pub output: [u32; 2],
    /// Channel groups (`nn_groups()`).
    pub groups: u32,
    /// Filter height and width (`nn_k_h()`, `nn_k_w()`).
    pub filter: [u32; 2],
    /// Strides (`nn_stride_h()`, `nn_stride_w()`).
    pub stride: [u32; 2],
    /// Zero padding (`nn_pad_h()`, `nn_pad_w()`).
    pub padding: [u32; 2],
    /// Dilations (`nn_dil_h()`, `nn_dil_w()`).
    pub dilation: [u32; 2],
    /// Input channels per group, C / groups (`nn_group_channels()`).
    pub group_channels: u32,
    /// Output channels per group, O / groups (`nn_group_outputs()`).
    pub group_outputs: u32,
    /// Reduction depth, C / groups * kh * kw (`nn_depth()`).
    pub depth: u32,
    /// Output pixels per channel, OH * OW (`nn_pixels()`).
    pub pixels: u32,
    /// Whether binding 3 holds a bias (`nn_has_bias()`).
    pub has_bias: bool,
    /// Element offsets of the input, the weight (as the kernel reads it) and the bias
    /// (`P.offs.x`, `P.offs.y`, `P.offs.z`).
    pub offsets: [u32; 3],
}

impl LayerParams {
    pub(super) fn encode(&self) -> Params {
        let mut p = Params::new(self.n);
        p.shape = [
            self.channels,
            self.input[0],
            self.input[1],
            self.batch,
            self.out_channels,
            self.output[0],
            self.output[1],
            self.groups,
        ];
        p.strides[0] = [
            self.filter[0],
            self.filter[1],
            self.stride[0],
            self.stride[1],
            self.padding[0],
            self.padding[1],
            self.dilation[0],
            self.dilation[1],
        ];
        p.strides[1][..5].copy_from_slice(&[
            self.group_channels,
            self.group_outputs,
            self.depth,
            self.pixels,
            self.has_bias as u32,
        ]);
        p.offs[..3].copy_from_slice(&self.offsets);
        p
    }
}

/// The checked sizes of one conv2d call: input `[n, c, h, w]`, weight `[o, cg, kh, kw]`,
/// output `[n, o, oh, ow]`.
#[derive(Debug, Clone, Copy)]
pub(super) struct Layer {
    pub n: usize,
    pub c: usize,
    pub h: usize,
    pub w: usize,
    pub o: usize,
    pub cg: usize,
    pub kh: usize,
    pub kw: usize,
    pub oh: usize,
    pub ow: usize,
    pub opts: Conv2d,
}

impl Layer {
    /// Output channels per group.
    pub(super) fn og(&self) -> usize {
        self.o / self.opts.groups
    }

    /// Reduction depth: input channels per group times filter taps.
    pub(super) fn depth(&self) -> usize {
        self.cg * self.kh * self.kw
    }

    /// The sizes that choose the kernel.
    pub(super) fn shape(&self) -> LayerShape {
        LayerShape {
            images: self.n,
            groups: self.opts.groups,
            group_outputs: self.og(),
            depth: self.depth(),
            pixels: self.oh * self.ow,
            filter: [self.kh, self.kw],
        }
    }

    /// The kernels' parameters, for element offsets `offsets` of the input, the weight (as
    /// the kernel reads it) and the bias.
    pub(super) fn params(&self, offsets: [usize; 3], has_bias: bool) -> LayerParams {
        let u = |v: usize| v as u32;
        let g = self.opts;
        LayerParams {
            n: u(self.n * self.o * self.oh * self.ow),
            batch: u(self.n),
            channels: u(self.c),
            input: [u(self.h), u(self.w)],
            out_channels: u(self.o),
            output: [u(self.oh), u(self.ow)],
            groups: u(g.groups),
            filter: [u(self.kh), u(self.kw)],
            stride: g.stride.map(u),
            padding: g.padding.map(u),
            dilation: g.dilation.map(u),
            group_channels: u(self.cg),
            group_outputs: u(self.og()),
            depth: u(self.depth()),
            pixels: u(self.oh * self.ow),
            has_bias,
            offsets: offsets.map(u),
        }
    }
}

/// Element offsets of the input, the weight and the bias (0 without one), and whether there
/// is a bias.
pub(super) fn offsets<T: Float>(
    input: &Array<T>,
    weight: &Array<T>,
    bias: Option<&Array<T>>,
) -> ([usize; 3], bool) {
    let b = bias.map_or(0, |b| b.offset);
    ([input.offset, weight.offset, b], bias.is_some())
}
