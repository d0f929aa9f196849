//! Neural-network layers: PyTorch's `conv1d` and `conv2d` (`torch.nn.functional`).
//!
//! Inputs are `[N, C, W]` (1-D) or `[N, C, H, W]` (2-D), weights `[O, C / groups, kW]` or
//! `[O, C / groups, kH, kW]`, the bias `[O]`; stride, zero padding, dilation and groups
//! follow PyTorch (groups = C = O is a depthwise convolution). Like PyTorch, these compute a
//! cross-correlation (the filter is not flipped).
//!
//! ```
//! use gpuarray::nn::{conv2d, Conv2d};
//! # let dev = gpuarray::Device::new()?;
//! let x = dev.ones::<f32>([1, 2, 4, 4])?;
//! let w = dev.ones::<f32>([3, 2, 3, 3])?;
//! let b = dev.from_slice(&[0.0f32, 1.0, 2.0], [3])?;
//! let y = conv2d(&x, &w, Some(&b), Conv2d { padding: [1, 1], ..Default::default() })?;
//! assert_eq!(y.shape(), &[1, 3, 4, 4]);
//! assert_eq!(y.to_vec()?[..4], [8.0, 12.0, 12.0, 8.0]);
//! # Ok::<(), gpuarray::Error>(())
//! ```

use crate::array::Array;
use crate::dtype::Float;
use crate::error::{Error, Result};
use crate::ops::conv;

pub use crate::ops::conv::Conv2d;

/// Options of [`conv1d`].
///
/// ```
/// let o = gpuarray::nn::Conv1d { stride: 2, ..Default::default() };
/// assert_eq!((o.stride, o.padding, o.dilation, o.groups), (2, 0, 1, 1));
/// ```
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub struct Conv1d {
    /// Step between output positions (at least 1).
    pub stride: usize,
    /// Zeros added on both sides.
    pub padding: usize,
    /// Spacing between filter taps (at least 1).
    pub dilation: usize,
    /// Channel groups: input and output channels must both be divisible by it.
    pub groups: usize,
}

impl Default for Conv1d {
    fn default() -> Conv1d {
        Conv1d {
            stride: 1,
            padding: 0,
            dilation: 1,
            groups: 1,
        }
    }
}

/// PyTorch's `conv2d`: `out[n, o, y, x] = bias[o] + sum_{c, a, b} input[n, g * C/g + c,
/// y * sh - ph + a * dh, x * sw - pw + b * dw] * weight[o, c, a, b]` with `g` the group of
/// output channel `o`; the output is `[N, O, OH, OW]` with
/// `OH = (H + 2 ph - dh (kH - 1) - 1) / sh + 1` (and OW alike).
///
/// 1x1 layers of stride 1 without padding run as batched matrix products (the input is
/// already a `[C, H * W]` matrix per image). Other layers with at least 16 output channels
/// per group and a reduction (`C/g * kH * kW`) of at least 16 run an implicit GEMM (the
/// im2col matrix gathered on the fly into workgroup tiles, 128 or 64 pixels x 64 or 32
/// channels per workgroup); depthwise, grouped and other channel-poor layers a kernel that
/// stages each input channel's tile in workgroup memory once and computes up to 8 output
/// channels from it. f16 accumulates in f32.
///
/// # Errors
/// [`Error::InvalidArgument`] when the input or weight is not 4-D, the weight is empty,
/// `groups`, a stride or a dilation is 0, the output channels are not divisible by
/// `groups`, or the dilated filter is larger than the padded input;
/// [`Error::ShapeMismatch`] when the input's channels are not `groups` times the weight's,
/// or the bias is not `[O]`; [`Error::Unsupported`] when the adapter lacks `T`.
///
/// ```
/// use gpuarray::nn::{conv2d, Conv2d};
/// # let dev = gpuarray::Device::new()?;
/// let x = dev.arange::<f32>(0.0, 16.0, 1.0)?.reshape([1, 1, 4, 4])?;
/// let w = dev.ones::<f32>([1, 1, 2, 2])?;
/// let y = conv2d(&x, &w, None, Conv2d { stride: [2, 2], ..Default::default() })?;
/// assert_eq!(y.to_vec()?, vec![10.0, 18.0, 42.0, 50.0]);
/// // depthwise: 2 channels, one filter each
/// let x = dev.ones::<f32>([1, 2, 3, 3])?;
/// let w = dev.from_slice(&[1.0f32, 2.0], [2, 1, 1, 1])?;
/// let y = conv2d(&x, &w, None, Conv2d { groups: 2, ..Default::default() })?;
/// assert_eq!(y.to_vec()?[8..10], [1.0, 2.0]);
/// assert!(conv2d(&x, &w, None, Conv2d::default()).is_err()); // 2 channels, weight has 1
/// # Ok::<(), gpuarray::Error>(())
/// ```
pub fn conv2d<T: Float>(
    input: &Array<T>,
    weight: &Array<T>,
    bias: Option<&Array<T>>,
    options: Conv2d,
) -> Result<Array<T>> {
    conv::conv2d("conv2d", input, weight, bias, options)
}

/// PyTorch's `conv1d`: input `[N, C, W]`, weight `[O, C / groups, kW]`, output
/// `[N, O, OW]` with `OW = (W + 2 p - d (kW - 1) - 1) / s + 1`; run as a [`conv2d`] of
/// height 1.
///
/// # Errors
/// As [`conv2d`], for 3-D inputs and weights.
///
/// ```
/// use gpuarray::nn::{conv1d, Conv1d};
/// # let dev = gpuarray::Device::new()?;
/// let x = dev.from_slice(&[1.0f32, 2.0, 3.0, 4.0, 5.0], [1, 1, 5])?;
/// let w = dev.from_slice(&[1.0f32, -1.0], [1, 1, 2])?;
/// let y = conv1d(&x, &w, None, Conv1d { dilation: 2, padding: 1, ..Default::default() })?;
/// assert_eq!(y.to_vec()?, vec![-2.0, -2.0, -2.0, -2.0, 4.0]);
/// # Ok::<(), gpuarray::Error>(())
/// ```
pub fn conv1d<T: Float>(
    input: &Array<T>,
    weight: &Array<T>,
    bias: Option<&Array<T>>,
    options: Conv1d,
) -> Result<Array<T>> {
    if input.ndim() != 3 || weight.ndim() != 3 {
        return Err(Error::InvalidArgument {
            op: "conv1d",
            reason: "input must be [N, C, W] and weight [O, C / groups, kW]",
        });
    }
    let (s, ws) = (input.shape(), weight.shape());
    let x = input.reshape([s[0], s[1], 1, s[2]])?;
    let w = weight.reshape([ws[0], ws[1], 1, ws[2]])?;
    let y = conv::conv2d(
        "conv1d",
        &x,
        &w,
        bias,
        Conv2d {
            stride: [1, options.stride],
            padding: [0, options.padding],
            dilation: [1, options.dilation],
            groups: options.groups,
        },
    )?;
    let o = y.shape().to_vec();
    y.reshape([o[0], o[1], o[3]])
}
