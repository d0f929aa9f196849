//! Signal processing: SciPy's `scipy.signal` convolutions and correlations.
//!
//! [`convolve`] and [`correlate`] take 1-D arrays, [`convolve2d`] and [`correlate2d`] 2-D
//! ones (with [`convolve2d_with`] / [`correlate2d_with`] for a [`Boundary`] other than zero
//! fill). Output shapes and alignment are SciPy's exactly, even-sized filters and filters
//! larger than the input included:
//! - [`Mode::Full`]: every point where the two overlap, `n + m - 1` per axis.
//! - [`Mode::Same`]: the shape of the first input, centred on the full output (for
//!   `correlate2d` with an even filter side SciPy centres one element later than for
//!   `convolve2d`; this module does the same).
//! - [`Mode::Valid`]: the points where one input lies wholly inside the other,
//!   `max(n, m) - min(n, m) + 1` per axis. When the second input is the larger, SciPy swaps
//!   the inputs (and, for a correlation, reverses the result); the values are the central
//!   part of the full output either way. In 2-D one input must be at least as large as the
//!   other in both axes.
//!
//! Only real inputs exist here, so `correlate` is SciPy's without the conjugate:
//! `correlate(a, v)[k] = sum_l a[l + k - s] * v[l]` for the mode's start `s`.
//!
//! ```
//! use gpuarray::signal::{convolve, correlate, Mode};
//! # let dev = gpuarray::Device::new()?;
//! let x = dev.from_slice(&[1.0f32, 2.0, 3.0], [3])?;
//! let k = dev.from_slice(&[0.0f32, 1.0, 0.5], [3])?;
//! assert_eq!(convolve(&x, &k, Mode::Full)?.to_vec()?, vec![0.0, 1.0, 2.5, 4.0, 1.5]);
//! assert_eq!(convolve(&x, &k, Mode::Same)?.to_vec()?, vec![1.0, 2.5, 4.0]);
//! assert_eq!(correlate(&x, &k, Mode::Valid)?.to_vec()?, vec![3.5]);
//! # Ok::<(), gpuarray::Error>(())
//! ```

use crate::array::Array;
use crate::dtype::Float;
use crate::error::Result;
use crate::ops::conv;

pub use crate::ops::conv::{Boundary, Mode};

/// The 1-D convolution of `in1` and `in2` (`scipy.signal.convolve`, `numpy.convolve`):
/// `full[k] = sum_j in1[j] * in2[k - j]`, cut to `mode`; mode `Same` keeps `in1.len()`
/// outputs from `(in2.len() - 1) / 2` of the full output on.
///
/// Runs a blocked kernel: each workgroup computes 2,048 consecutive outputs, with the taps
/// (128 at a time) and the input segment they need in workgroup memory. f16 accumulates in
/// f32.
///
/// # Errors
/// [`Error::InvalidArgument`](crate::Error::InvalidArgument) when an input is not 1-D or is
/// empty; [`Error::Unsupported`](crate::Error::Unsupported) when the adapter lacks `T`;
/// [`Error::DeviceMismatch`](crate::Error::DeviceMismatch) for arrays of two devices.
///
/// ```
/// use gpuarray::signal::{convolve, Mode};
/// # let dev = gpuarray::Device::new()?;
/// let x = dev.from_slice(&[1.0f32, 2.0, 3.0], [3])?;
/// let k = dev.from_slice(&[1.0f32, 1.0], [2])?;
/// assert_eq!(convolve(&x, &k, Mode::Full)?.to_vec()?, vec![1.0, 3.0, 5.0, 3.0]);
/// assert_eq!(convolve(&x, &k, Mode::Same)?.to_vec()?, vec![1.0, 3.0, 5.0]);
/// // a filter longer than the input: valid swaps them
/// assert_eq!(convolve(&k, &x, Mode::Valid)?.to_vec()?, vec![3.0, 5.0]);
/// # Ok::<(), gpuarray::Error>(())
/// ```
pub fn convolve<T: Float>(in1: &Array<T>, in2: &Array<T>, mode: Mode) -> Result<Array<T>> {
    conv::signal1d("convolve", in1, in2, mode, true)
}

/// The 1-D cross-correlation of `in1` and `in2` (`scipy.signal.correlate` of real inputs,
/// `numpy.correlate`): `full[k] = sum_l in1[l] * in2[l - k + m - 1]` for `m = in2.len()`,
/// cut to `mode` as [`convolve`] cuts it.
///
/// # Errors
/// As [`convolve`].
///
/// ```
/// use gpuarray::signal::{correlate, Mode};
/// # let dev = gpuarray::Device::new()?;
/// let x = dev.from_slice(&[1.0f32, 2.0, 3.0], [3])?;
/// let k = dev.from_slice(&[0.0f32, 1.0, 0.5], [3])?;
/// assert_eq!(correlate(&x, &k, Mode::Full)?.to_vec()?, vec![0.5, 2.0, 3.5, 3.0, 0.0]);
/// assert_eq!(correlate(&x, &k, Mode::Same)?.to_vec()?, vec![2.0, 3.5, 3.0]);
/// # Ok::<(), gpuarray::Error>(())
/// ```
pub fn correlate<T: Float>(in1: &Array<T>, in2: &Array<T>, mode: Mode) -> Result<Array<T>> {
    conv::signal1d("correlate", in1, in2, mode, false)
}

/// The 2-D convolution of `in1` and `in2` with zero fill (`scipy.signal.convolve2d`):
/// `full[i, j] = sum in1[p, q] * in2[i - p, j - q]`, cut to `mode` (mode `Same` from
/// `((kh - 1) / 2, (kw - 1) / 2)` of the full output on).
///
/// Filters up to 16 x 16 run a tiled kernel (a 64 x 32 output tile per workgroup, with its
/// input tile, halo and the taps in workgroup memory; the filter size is compiled in);
/// larger filters a direct one. f16 accumulates in f32.
///
/// # Errors
/// [`Error::InvalidArgument`](crate::Error::InvalidArgument) when an input is not 2-D or
/// is empty; [`Error::ShapeMismatch`](crate::Error::ShapeMismatch) in mode `Valid` when
/// neither input is at least as large as the other in both axes;
/// [`Error::Unsupported`](crate::Error::Unsupported) when the adapter lacks `T`.
///
/// ```
/// use gpuarray::signal::{convolve2d, Mode};
/// # let dev = gpuarray::Device::new()?;
/// let img = dev.arange::<f32>(0.0, 9.0, 1.0)?.reshape([3, 3])?;
/// let k = dev.from_slice(&[1.0f32, 0.0, 0.0, -1.0], [2, 2])?;
/// assert_eq!(convolve2d(&img, &k, Mode::Valid)?.to_vec()?, vec![4.0, 4.0, 4.0, 4.0]);
/// assert_eq!(convolve2d(&img, &k, Mode::Same)?.shape(), &[3, 3]);
/// assert_eq!(convolve2d(&img, &k, Mode::Full)?.shape(), &[4, 4]);
/// # Ok::<(), gpuarray::Error>(())
/// ```
pub fn convolve2d<T: Float>(in1: &Array<T>, in2: &Array<T>, mode: Mode) -> Result<Array<T>> {
    convolve2d_with(in1, in2, mode, Boundary::Fill(0.0))
}

/// [`convolve2d`] with another [`Boundary`] (`scipy.signal.convolve2d(in1, in2, mode,
/// boundary, fillvalue)`).
///
/// # Errors
/// As [`convolve2d`].
///
/// ```
/// use gpuarray::signal::{convolve2d_with, Boundary, Mode};
/// # let dev = gpuarray::Device::new()?;
/// let img = dev.from_slice(&[1.0f32, 2.0, 3.0], [1, 3])?;
/// let k = dev.ones::<f32>([1, 2])?;
/// let y = convolve2d_with(&img, &k, Mode::Full, Boundary::Wrap)?;
/// assert_eq!(y.to_vec()?, vec![4.0, 3.0, 5.0, 4.0]);
/// # Ok::<(), gpuarray::Error>(())
/// ```
pub fn convolve2d_with<T: Float>(
    in1: &Array<T>,
    in2: &Array<T>,
    mode: Mode,
    boundary: Boundary,
) -> Result<Array<T>> {
    conv::signal2d("convolve2d", in1, in2, mode, boundary, true)
}

/// The 2-D cross-correlation of `in1` and `in2` with zero fill (`scipy.signal.correlate2d`
/// of real inputs): `full[i, j] = sum in1[p, q] * in2[p - i + kh - 1, q - j + kw - 1]`, cut
/// to `mode` (mode `Same` from `(kh / 2, kw / 2)` on, SciPy's alignment).
///
/// # Errors
/// As [`convolve2d`].
///
/// ```
/// use gpuarray::signal::{correlate2d, Mode};
/// # let dev = gpuarray::Device::new()?;
/// let img = dev.arange::<f32>(0.0, 9.0, 1.0)?.reshape([3, 3])?;
/// let k = dev.from_slice(&[1.0f32, 0.0, 0.0, -1.0], [2, 2])?;
/// assert_eq!(correlate2d(&img, &k, Mode::Valid)?.to_vec()?, vec![-4.0, -4.0, -4.0, -4.0]);
/// assert_eq!(correlate2d(&img, &k, Mode::Same)?.to_vec()?[..3], [-4.0, -4.0, 2.0]);
/// # Ok::<(), gpuarray::Error>(())
/// ```
pub fn correlate2d<T: Float>(in1: &Array<T>, in2: &Array<T>, mode: Mode) -> Result<Array<T>> {
    correlate2d_with(in1, in2, mode, Boundary::Fill(0.0))
}

/// [`correlate2d`] with another [`Boundary`].
///
/// # Errors
/// As [`convolve2d`].
///
/// ```
/// use gpuarray::signal::{correlate2d_with, Boundary, Mode};
/// # let dev = gpuarray::Device::new()?;
/// let img = dev.from_slice(&[1.0f32, 2.0, 3.0], [1, 3])?;
/// let k = dev.from_slice(&[1.0f32, 10.0], [1, 2])?;
/// let y = correlate2d_with(&img, &k, Mode::Same, Boundary::Symmetric)?;
/// assert_eq!(y.to_vec()?, vec![21.0, 32.0, 33.0]);
/// # Ok::<(), gpuarray::Error>(())
/// ```
pub fn correlate2d_with<T: Float>(
    in1: &Array<T>,
    in2: &Array<T>,
    mode: Mode,
    boundary: Boundary,
) -> Result<Array<T>> {
    conv::signal2d("correlate2d", in1, in2, mode, boundary, false)
}

/// SciPy's `fftconvolve(in1, in2, mode)`: the n-D convolution of two real arrays of the
/// same number of dimensions through their transforms (`rfftn` of both at the full shape
/// `n + m - 1` per axis, their product, `irfftn`), cut to `mode` as [`convolve`] cuts
/// (`Same`: `in1`'s shape, centred; `Valid`: `max(n, m) - min(n, m) + 1` per axis, one
/// input at least as large as the other in every axis). Cheaper than the direct
/// convolution for long filters; rounding errors spread over the output (relative to its
/// largest values, about `log2(n) * eps`), unlike the direct sums.
///
/// # Errors
/// [`Error::InvalidArgument`](crate::Error::InvalidArgument) for inputs of different
/// numbers of dimensions, an empty input, or (`Valid`) neither input at least as large as
/// the other in every axis; [`Error::DeviceMismatch`](crate::Error::DeviceMismatch);
/// [`Error::Unsupported`](crate::Error::Unsupported) when the adapter lacks `T`.
///
/// ```
/// use gpuarray::signal::{fftconvolve, Mode};
/// # let dev = gpuarray::Device::new()?;
/// let x = dev.from_slice(&[1.0f32, 2.0, 3.0], [3])?;
/// let k = dev.from_slice(&[0.0f32, 1.0, 0.5], [3])?;
/// let full = fftconvolve(&x, &k, Mode::Full)?.to_vec()?;
/// for (a, b) in full.iter().zip([0.0, 1.0, 2.5, 4.0, 1.5]) {
///     assert!((a - b).abs() < 1e-5);
/// }
/// assert_eq!(fftconvolve(&x, &k, Mode::Same)?.shape(), &[3]);
/// assert_eq!(fftconvolve(&x, &k, Mode::Valid)?.shape(), &[1]);
/// # Ok::<(), gpuarray::Error>(())
/// ```
pub fn fftconvolve<T: crate::fft::FftFloat>(
    in1: &Array<T>,
    in2: &Array<T>,
    mode: Mode,
) -> Result<Array<T>>
where
    T::Complex: crate::dtype::ComplexFloat<Real = T>,
{
    use crate::error::Error;
    use crate::fft::{irfftn, rfftn, Norm};
    use crate::shape::Slice;
    let op = "fftconvolve";
    in1.dev.expect_same(op, &[&in2.dev])?;
    let invalid = |reason| Error::InvalidArgument { op, reason };
    if in1.ndim() != in2.ndim() {
        return Err(invalid(
            "the inputs must have the same number of dimensions",
        ));
    }
    if in1.is_empty() || in2.is_empty() {
        return Err(invalid("an input is empty"));
    }
    let (s1, s2) = (in1.shape(), in2.shape());
    let full: Vec<usize> = s1.iter().zip(s2).map(|(a, b)| a + b - 1).collect();
    let keep: Vec<usize> = match mode {
        Mode::Full => full.clone(),
        Mode::Same => s1.to_vec(),
        Mode::Valid => {
            let ge1 = s1.iter().zip(s2).all(|(a, b)| a >= b);
            let ge2 = s1.iter().zip(s2).all(|(a, b)| b >= a);
            if !ge1 && !ge2 {
                return Err(invalid(
                    "in valid mode one input must be at least as large as the other in every axis",
                ));
            }
            s1.iter()
                .zip(s2)
                .map(|(a, b)| a.max(b) - a.min(b) + 1)
                .collect()
        }
    };
    if in1.ndim() == 0 {
        return in1.mul(in2);
    }
    let a = rfftn(in1, Some(&full), .., Norm::Backward)?;
    let b = rfftn(in2, Some(&full), .., Norm::Backward)?;
    let prod = crate::fft::multiply(&a, &b)?;
    let out = irfftn(&prod, Some(&full), .., Norm::Backward)?;
    if keep == full {
        return Ok(out);
    }
    let cut: Vec<Slice> = full
        .iter()
        .zip(&keep)
        .map(|(&f, &k)| {
            let start = (f - k) / 2;
            Slice::from(start..start + k)
        })
        .collect();
    out.slice(cut)?.contiguous()
}
