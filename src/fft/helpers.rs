//! The sample frequencies and the shifts of the zero frequency.

use crate::array::Array;
use crate::device::Device;
use crate::dtype::{Element, Float};
use crate::error::{Error, Result};
use crate::shape::Axes;

fn check(op: &'static str, n: usize, d: f64) -> Result<()> {
    if n == 0 {
        return Err(Error::InvalidArgument {
            op,
            reason: "the window length must be at least 1",
        });
    }
    if d == 0.0 || !d.is_finite() {
        return Err(Error::InvalidArgument {
            op,
            reason: "the sample spacing must be finite and not zero",
        });
    }
    Ok(())
}

/// NumPy's `fftfreq(n, d)`: the sample frequencies of [`super::fft`]'s output for a window
/// of `n` samples `d` apart: `[0, 1, ..., (n - 1) / 2, -(n / 2), ..., -1] / (n d)`
/// (computed in f64).
///
/// # Errors
/// [`Error::InvalidArgument`] for `n == 0` or `d` zero or not finite;
/// [`Error::Unsupported`] where the adapter lacks `T`.
///
/// ```
/// # let dev = gpuarray::Device::new()?;
/// let f = gpuarray::fft::fftfreq::<f32>(&dev, 4, 0.5)?;
/// assert_eq!(f.to_vec()?, vec![0.0, 0.5, -1.0, -0.5]);
/// # Ok::<(), gpuarray::Error>(())
/// ```
pub fn fftfreq<T: Float>(dev: &Device, n: usize, d: f64) -> Result<Array<T>> {
    check("fftfreq", n, d)?;
    let half = (n - 1) / 2 + 1;
    let v: Vec<T> = (0..n)
        .map(|i| {
            let k = if i < half {
                i as f64
            } else {
                i as f64 - n as f64
            };
            T::from_f64(k / (n as f64 * d))
        })
        .collect();
    dev.from_slice(&v, [n])
}

/// NumPy's `rfftfreq(n, d)`: the sample frequencies of [`super::rfft`]'s output,
/// `[0, 1, ..., n / 2] / (n d)`.
///
/// # Errors
/// As [`fftfreq`].
///
/// ```
/// # let dev = gpuarray::Device::new()?;
/// let f = gpuarray::fft::rfftfreq::<f64>(&dev, 5, 1.0)?;
/// assert_eq!(f.to_vec()?, vec![0.0, 0.2, 0.4]);
/// # Ok::<(), gpuarray::Error>(())
/// ```
pub fn rfftfreq<T: Float>(dev: &Device, n: usize, d: f64) -> Result<Array<T>> {
    check("rfftfreq", n, d)?;
    let v: Vec<T> = (0..=n / 2)
        .map(|i| T::from_f64(i as f64 / (n as f64 * d)))
        .collect();
    dev.from_slice(&v, [n / 2 + 1])
}

fn shift<T: Element>(op: &'static str, x: &Array<T>, axes: Axes, back: bool) -> Result<Array<T>> {
    let axes = axes.resolve(x.ndim(), op)?;
    let mut out: Option<Array<T>> = None;
    for a in axes {
        let e = x.shape()[a] as isize;
        let by = if back { -(e / 2) } else { e / 2 };
        let src = out.as_ref().unwrap_or(x);
        out = Some(src.roll(by, a)?);
    }
    match out {
        Some(o) => Ok(o),
        None => x.roll(0, ..),
    }
}

/// NumPy's `fftshift(x, axes)`: the zero-frequency term moved to the centre of each axis
/// of `axes` (`..`: all), a roll by `extent / 2`.
///
/// # Errors
/// [`Error::AxisOutOfRange`]; the errors of [`Array::roll`] (its dtypes).
///
/// ```
/// # let dev = gpuarray::Device::new()?;
/// let f = gpuarray::fft::fftfreq::<f32>(&dev, 5, 1.0)?;
/// let s = gpuarray::fft::fftshift(&f, ..)?;
/// assert_eq!(s.to_vec()?, vec![-0.4, -0.2, 0.0, 0.2, 0.4]);
/// # Ok::<(), gpuarray::Error>(())
/// ```
pub fn fftshift<T: Element>(x: &Array<T>, axes: impl Into<Axes>) -> Result<Array<T>> {
    shift("fftshift", x, axes.into(), false)
}

/// NumPy's `ifftshift(x, axes)`: the inverse of [`fftshift`] (a roll by `-(extent / 2)`).
///
/// # Errors
/// As [`fftshift`].
///
/// ```
/// # let dev = gpuarray::Device::new()?;
/// let x = dev.from_slice(&[1i32, 2, 3, 4, 5], [5])?;
/// let s = gpuarray::fft::fftshift(&x, 0)?;
/// assert_eq!(gpuarray::fft::ifftshift(&s, 0)?.to_vec()?, vec![1, 2, 3, 4, 5]);
/// # Ok::<(), gpuarray::Error>(())
/// ```
pub fn ifftshift<T: Element>(x: &Array<T>, axes: impl Into<Axes>) -> Result<Array<T>> {
    shift("ifftshift", x, axes.into(), true)
}
