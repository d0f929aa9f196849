//! The 2-D and n-D transforms: 1-D transforms along each axis in turn (the last axis first,
//! as NumPy), each reading the previous one's output through its strides.

use super::{c2c, c2r, r2c, FftFloat, FftInput, Norm, RealOf};
use crate::array::Array;
use crate::error::{Error, Result};
use crate::shape::Axes;

/// The axes (in order) and their lengths (`None`: the extent) of an n-D transform:
/// NumPy's rules (with `s` and no axes, the last `s.len()` axes; `all` without `s`).
fn nd_axes(
    op: &'static str,
    ndim: usize,
    s: Option<&[usize]>,
    axes: Axes,
    all: Option<usize>,
) -> Result<(Vec<usize>, Vec<Option<usize>>)> {
    let axes = match (&axes, s, all) {
        (Axes::All, Some(s), _) => {
            if s.len() > ndim {
                return Err(Error::InvalidArgument {
                    op,
                    reason: "`s` has more lengths than the array has axes",
                });
            }
            (ndim - s.len()..ndim).collect()
        }
        (Axes::All, None, Some(k)) => {
            if k > ndim {
                return Err(Error::AxisOutOfRange {
                    axis: -(k as isize),
                    ndim,
                });
            }
            (ndim - k..ndim).collect()
        }
        _ => axes.resolve_ordered(ndim, op)?,
    };
    if axes.is_empty() {
        return Err(Error::InvalidArgument {
            op,
            reason: "it needs at least one axis",
        });
    }
    let lens = match s {
        Some(s) if s.len() != axes.len() => {
            return Err(Error::InvalidArgument {
                op,
                reason: "`s` and `axes` must have the same length",
            })
        }
        Some(s) => s.iter().map(|&n| Some(n)).collect(),
        None => vec![None; axes.len()],
    };
    Ok((axes, lens))
}

fn complex_nd<T: FftInput>(
    op: &'static str,
    x: &Array<T>,
    s: Option<&[usize]>,
    axes: Axes,
    all: Option<usize>,
    norm: Norm,
    inverse: bool,
) -> Result<Array<T::Complex>> {
    let (axes, s) = nd_axes(op, x.ndim(), s, axes, all)?;
    let last = axes.len() - 1;
    let mut a = c2c::<T, T::Complex>(op, x, s[last], axes[last], norm, inverse)?;
    for i in (0..last).rev() {
        a = c2c::<T::Complex, T::Complex>(op, &a, s[i], axes[i], norm, inverse)?;
    }
    Ok(a)
}

fn real_nd<T: FftFloat>(
    op: &'static str,
    x: &Array<T>,
    s: Option<&[usize]>,
    axes: Axes,
    all: Option<usize>,
    norm: Norm,
) -> Result<Array<T::Complex>> {
    let (axes, s) = nd_axes(op, x.ndim(), s, axes, all)?;
    let last = axes.len() - 1;
    let mut a = r2c::<T, T::Complex>(op, x, s[last], axes[last], |n| norm.factor(n, false), false)?;
    for i in (0..last).rev() {
        a = c2c::<T::Complex, T::Complex>(op, &a, s[i], axes[i], norm, false)?;
    }
    Ok(a)
}

fn inverse_real_nd<T: FftInput>(
    op: &'static str,
    x: &Array<T>,
    s: Option<&[usize]>,
    axes: Axes,
    all: Option<usize>,
    norm: Norm,
) -> Result<Array<RealOf<T>>> {
    let (axes, s) = nd_axes(op, x.ndim(), s, axes, all)?;
    let last = axes.len() - 1;
    let scale = |n| norm.factor(n, true);
    if last == 0 {
        return c2r::<T, T::Complex>(op, x, s[0], axes[0], scale, true);
    }
    let mut a = c2c::<T, T::Complex>(op, x, s[last - 1], axes[last - 1], norm, true)?;
    for i in (0..last - 1).rev() {
        a = c2c::<T::Complex, T::Complex>(op, &a, s[i], axes[i], norm, true)?;
    }
    c2r::<T::Complex, T::Complex>(op, &a, s[last], axes[last], scale, true)
}

/// NumPy's `fftn(x, s, axes, norm)`: the n-D transform over `axes` (all axes for `..`, or
/// with `s` the last `s.len()`), each of length `s[i]` (cropped or padded).
///
/// # Errors
/// [`Error::InvalidArgument`] for `s` and `axes` of different lengths, no axes or a length
/// of 0; [`Error::AxisOutOfRange`]; [`Error::Unsupported`] (complex128 without f64).
///
/// ```
/// use gpuarray::fft;
/// # let dev = gpuarray::Device::new()?;
/// let x = dev.from_slice(&[1.0f32; 24], [2, 3, 4])?;
/// let y = fft::fftn(&x, None, .., fft::Norm::Backward)?.to_vec()?;
/// assert!((y[0].re - 24.0).abs() < 1e-4 && y[1].norm() < 1e-4);
/// # Ok::<(), gpuarray::Error>(())
/// ```
pub fn fftn<T: FftInput>(
    x: &Array<T>,
    s: Option<&[usize]>,
    axes: impl Into<Axes>,
    norm: Norm,
) -> Result<Array<T::Complex>> {
    complex_nd("fftn", x, s, axes.into(), None, norm, false)
}

/// NumPy's `ifftn(x, s, axes, norm)`: the inverse of [`fftn`].
///
/// # Errors
/// As [`fftn`].
///
/// ```
/// use gpuarray::fft;
/// # let dev = gpuarray::Device::new()?;
/// let x = dev.from_slice(&[1.0f64, 2.0, 3.0, 4.0, 5.0, 6.0], [2, 3])?;
/// let back = fft::ifftn(&fft::fftn(&x, None, .., fft::Norm::Ortho)?, None, .., fft::Norm::Ortho)?;
/// assert!((back.to_vec()?[5].re - 6.0).abs() < 1e-12);
/// # Ok::<(), gpuarray::Error>(())
/// ```
pub fn ifftn<T: FftInput>(
    x: &Array<T>,
    s: Option<&[usize]>,
    axes: impl Into<Axes>,
    norm: Norm,
) -> Result<Array<T::Complex>> {
    complex_nd("ifftn", x, s, axes.into(), None, norm, true)
}

/// NumPy's `fft2(x, s, axes, norm)`: [`fftn`] whose `..` means the last two axes.
///
/// # Errors
/// As [`fftn`]; [`Error::AxisOutOfRange`] for fewer than 2 axes with `..`.
///
/// ```
/// use gpuarray::fft;
/// # let dev = gpuarray::Device::new()?;
/// let x = dev.from_slice(&[1.0f32, 0.0, 0.0, 0.0], [2, 2])?;
/// let y = fft::fft2(&x, None, .., fft::Norm::Backward)?.to_vec()?;
/// assert!(y.iter().all(|z| (z.re - 1.0).abs() < 1e-6));
/// # Ok::<(), gpuarray::Error>(())
/// ```
pub fn fft2<T: FftInput>(
    x: &Array<T>,
    s: Option<&[usize]>,
    axes: impl Into<Axes>,
    norm: Norm,
) -> Result<Array<T::Complex>> {
    complex_nd("fft2", x, s, axes.into(), Some(2), norm, false)
}

/// NumPy's `ifft2(x, s, axes, norm)`: the inverse of [`fft2`].
///
/// # Errors
/// As [`fft2`].
///
/// ```
/// use gpuarray::fft;
/// # let dev = gpuarray::Device::new()?;
/// let x = dev.from_slice(&[1.0f32, 2.0, 3.0, 4.0], [2, 2])?;
/// let y = fft::ifft2(&x, None, .., fft::Norm::Backward)?.to_vec()?;
/// assert!((y[0].re - 2.5).abs() < 1e-6);
/// # Ok::<(), gpuarray::Error>(())
/// ```
pub fn ifft2<T: FftInput>(
    x: &Array<T>,
    s: Option<&[usize]>,
    axes: impl Into<Axes>,
    norm: Norm,
) -> Result<Array<T::Complex>> {
    complex_nd("ifft2", x, s, axes.into(), Some(2), norm, true)
}

/// NumPy's `rfftn(x, s, axes, norm)`: the n-D transform of real input, the last axis's
/// non-negative frequencies (`s[-1] / 2 + 1` terms) only.
///
/// # Errors
/// As [`fftn`].
///
/// ```
/// use gpuarray::fft;
/// # let dev = gpuarray::Device::new()?;
/// let x = dev.from_slice(&[1.0f32; 12], [3, 4])?;
/// let y = fft::rfftn(&x, None, .., fft::Norm::Backward)?;
/// assert_eq!(y.shape(), &[3, 3]);
/// assert!((y.to_vec()?[0].re - 12.0).abs() < 1e-5);
/// # Ok::<(), gpuarray::Error>(())
/// ```
pub fn rfftn<T: FftFloat>(
    x: &Array<T>,
    s: Option<&[usize]>,
    axes: impl Into<Axes>,
    norm: Norm,
) -> Result<Array<T::Complex>> {
    real_nd("rfftn", x, s, axes.into(), None, norm)
}

/// NumPy's `irfftn(x, s, axes, norm)`: the inverse of [`rfftn`] (the last axis's output
/// length `s[-1]`, by default `2 (m - 1)`).
///
/// # Errors
/// As [`fftn`].
///
/// ```
/// use gpuarray::fft;
/// # let dev = gpuarray::Device::new()?;
/// let x = dev.from_slice(&[1.0f32, 2.0, 3.0, 4.0, 5.0, 6.0], [2, 3])?;
/// let y = fft::rfftn(&x, None, .., fft::Norm::Backward)?;
/// let back = fft::irfftn(&y, Some(&[2, 3]), .., fft::Norm::Backward)?.to_vec()?;
/// assert!((back[4] - 5.0).abs() < 1e-5);
/// # Ok::<(), gpuarray::Error>(())
/// ```
pub fn irfftn<T: FftInput>(
    x: &Array<T>,
    s: Option<&[usize]>,
    axes: impl Into<Axes>,
    norm: Norm,
) -> Result<Array<RealOf<T>>> {
    inverse_real_nd("irfftn", x, s, axes.into(), None, norm)
}

/// NumPy's `rfft2(x, s, axes, norm)`: [`rfftn`] whose `..` means the last two axes.
///
/// # Errors
/// As [`fft2`].
///
/// ```
/// use gpuarray::fft;
/// # let dev = gpuarray::Device::new()?;
/// let x = dev.from_slice(&[1.0f32; 8], [2, 4])?;
/// assert_eq!(fft::rfft2(&x, None, .., fft::Norm::Backward)?.shape(), &[2, 3]);
/// # Ok::<(), gpuarray::Error>(())
/// ```
pub fn rfft2<T: FftFloat>(
    x: &Array<T>,
    s: Option<&[usize]>,
    axes: impl Into<Axes>,
    norm: Norm,
) -> Result<Array<T::Complex>> {
    real_nd("rfft2", x, s, axes.into(), Some(2), norm)
}

/// NumPy's `irfft2(x, s, axes, norm)`: the inverse of [`rfft2`].
///
/// # Errors
/// As [`fft2`].
///
/// ```
/// use gpuarray::fft;
/// # let dev = gpuarray::Device::new()?;
/// let x = dev.from_slice(&[1.0f32; 8], [2, 4])?;
/// let y = fft::rfft2(&x, None, .., fft::Norm::Backward)?;
/// let back = fft::irfft2(&y, Some(&[2, 4]), .., fft::Norm::Backward)?.to_vec()?;
/// assert!(back.iter().all(|v| (v - 1.0).abs() < 1e-5));
/// # Ok::<(), gpuarray::Error>(())
/// ```
pub fn irfft2<T: FftInput>(
    x: &Array<T>,
    s: Option<&[usize]>,
    axes: impl Into<Axes>,
    norm: Norm,
) -> Result<Array<RealOf<T>>> {
    inverse_real_nd("irfft2", x, s, axes.into(), Some(2), norm)
}
