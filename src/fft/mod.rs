//! Discrete Fourier transforms, NumPy's `numpy.fft`: [`fft`], [`ifft`], [`rfft`],
//! [`irfft`], [`hfft`], [`ihfft`], their 2-D and n-D forms ([`fft2`], [`fftn`], ...), the
//! sample frequencies ([`fftfreq`], [`rfftfreq`]) and the shifts ([`fftshift`],
//! [`ifftshift`]); a [`Plan`] keeps a length's plan for repeated use.
//!
//! Inputs are complex64 / complex128, or f32 / f64 (promoted as NumPy 2 promotes them:
//! f32 to complex64). Any length: lengths whose prime factors are at most 13 run as
//! mixed-radix Stockham passes in workgroup memory (one read and one write of global memory
//! while the transform fits a workgroup; two or three passes, four-step, past that), other
//! lengths by Bluestein's algorithm over power-of-two transforms (two fused kernels where
//! the padded length fits a workgroup). Real transforms of long even lengths run as the
//! complex transform of half the length plus a pairing pass. Any axis of any view is
//! transformed in place of its strides, without a transposing copy. Twiddles are computed
//! in f64 on the host and uploaded once per plan; plans are kept per device and (length,
//! dtype).
//!
//! Host side of shaders/fft.wgsl (src/fft/kernel.rs: the kernels; plan.rs: the plans and
//! their execution) and shaders/fft_bluestein.wgsl.

mod banks;
mod bluestein;
mod columns;
mod helpers;
mod kernel;
mod nd;
mod passes;
mod plan;
mod real;
mod runs;
mod tune;

use std::sync::Arc;

use crate::array::Array;
use crate::device::Device;
use crate::dtype::{ComplexFloat, Element, Float};
use crate::error::{Error, Result};
use crate::shape::Axes;
use num_complex::Complex;

pub use helpers::{fftfreq, fftshift, ifftshift, rfftfreq};
pub use nd::{fft2, fftn, ifft2, ifftn, irfft2, irfftn, rfft2, rfftn};

#[cfg(test)]
pub(crate) use kernel::all_specs;

use kernel::{Dim, FftParams, Io, MAX_BATCH_DIMS};
use plan::{cached, exec, merge, Job, Node};

/// The normalisation of a transform pair (NumPy's `norm`): which direction is scaled.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum Norm {
    /// The forward transform unscaled, the inverse scaled by 1/n (NumPy's default).
    #[default]
    Backward,
    /// Both scaled by 1/sqrt(n): the transforms are unitary.
    Ortho,
    /// The forward transform scaled by 1/n, the inverse unscaled.
    Forward,
}

impl Norm {
    /// The scale of a transform of length `n` in this direction.
    fn factor(self, n: usize, inverse: bool) -> f64 {
        match (self, inverse) {
            (Norm::Ortho, _) => 1.0 / (n as f64).sqrt(),
            (Norm::Backward, true) | (Norm::Forward, false) => 1.0 / n as f64,
            _ => 1.0,
        }
    }

    /// Backward and forward exchanged (NumPy's `_swap_direction`, for hfft and ihfft).
    fn swap(self) -> Norm {
        match self {
            Norm::Backward => Norm::Forward,
            Norm::Forward => Norm::Backward,
            Norm::Ortho => Norm::Ortho,
        }
    }
}

/// An element type the transforms take: f32 and complex64 (transformed in complex64), f64
/// and complex128 (in complex128).
pub trait FftInput: Element {
    /// The complex type of the transform (itself an input, whose transforms are of its own
    /// type).
    type Complex: ComplexFloat + FftInput<Complex = Self::Complex>;
}

impl FftInput for f32 {
    type Complex = Complex<f32>;
}
impl FftInput for f64 {
    type Complex = Complex<f64>;
}
impl FftInput for Complex<f32> {
    type Complex = Complex<f32>;
}
impl FftInput for Complex<f64> {
    type Complex = Complex<f64>;
}

/// The real element types of the real transforms ([`rfft`], [`ihfft`]): f32 and f64.
pub trait FftFloat: FftInput + Float {}
impl FftFloat for f32 {}
impl FftFloat for f64 {}

/// The real type of `T`'s transforms.
type RealOf<T> = <<T as FftInput>::Complex as ComplexFloat>::Real;

fn zero_length(op: &'static str) -> Error {
    Error::InvalidArgument {
        op,
        reason: "the transform's length must be at least 1",
    }
}

/// The length `n` or the axis's extent, at least 1.
fn length(op: &'static str, n: Option<usize>, extent: usize) -> Result<usize> {
    match n.unwrap_or(extent) {
        0 => Err(zero_length(op)),
        n => Ok(n),
    }
}

/// The adapter can run transforms of `C` (complex128 needs f64 shaders).
fn gate<C: ComplexFloat>(dev: &Device, op: &'static str) -> Result<()> {
    dev.require_storage(op, C::DTYPE)?;
    dev.expect_alive()
}

/// A 1-D transform along one axis: its length, output length, Hermitian input, direction
/// and scale.
struct Along {
    axis: usize,
    n: usize,
    n_out: usize,
    herm: usize,
    inverse: bool,
    scale: f64,
}

/// Runs `node` along `a.axis` of `x` (read through its strides) into a new contiguous
/// array of `O` (complex, or the real parts).
fn along<I: Element, C: ComplexFloat, O: Element>(
    op: &'static str,
    node: &Node<C>,
    x: &Array<I>,
    a: &Along,
) -> Result<Array<O>> {
    let dev = &x.dev;
    let mut shape = x.shape.clone();
    let extent = shape[a.axis];
    shape[a.axis] = a.n_out;
    let out = Array::<O>::alloc_any(dev, op, shape, |b| dev.alloc_apart(b, &[&x.buf]))?;
    if out.is_empty() {
        return Ok(out);
    }
    let limit = if a.herm != 0 { a.herm } else { a.n };
    let dims: Vec<Dim> = (0..x.ndim())
        .filter(|&d| d != a.axis)
        .map(|d| Dim {
            extent: x.shape[d],
            s_in: x.strides[d],
            s_out: out.strides[d],
            tw: 0,
        })
        .collect();
    let p = FftParams {
        dims: merge(&dims),
        off_in: x.offset,
        off_out: 0,
        s_in: x.strides[a.axis],
        s_out: out.strides[a.axis],
        inverse: a.inverse,
        herm: a.herm,
        n_in: extent.min(limit),
        n_out: a.n_out,
        scale: a.scale,
        ..FftParams::default()
    };
    let job = Job {
        src: x.binding(),
        dst: out.binding(),
        io: Io {
            real_in: !I::DTYPE.is_complex(),
            real_out: !O::DTYPE.is_complex(),
        },
        p,
    };
    split(node, dev, job)?;
    Ok(out)
}

/// Runs `job`, looping on the host over its outer batch dimensions past the
/// [`MAX_BATCH_DIMS`] a launch addresses.
fn split<C: ComplexFloat>(node: &Node<C>, dev: &Device, job: Job<'_>) -> Result<()> {
    if job.p.dims.len() <= MAX_BATCH_DIMS {
        return exec(node, dev, &job);
    }
    let first = job.p.dims[0];
    for i in 0..first.extent as isize {
        let mut j = job.clone();
        j.p.dims.remove(0);
        j.p.off_in = (job.p.off_in as isize + i * first.s_in) as usize;
        j.p.off_out = (job.p.off_out as isize + i * first.s_out) as usize;
        split(node, dev, j)?;
    }
    Ok(())
}

/// A complex transform of `x` along `axis` (length `n`, padded or cropped).
pub(crate) fn c2c<I: Element, C: ComplexFloat>(
    op: &'static str,
    x: &Array<I>,
    n: Option<usize>,
    axis: usize,
    norm: Norm,
    inverse: bool,
) -> Result<Array<C>> {
    gate::<C>(&x.dev, op)?;
    let n = length(op, n, x.shape[axis])?;
    let node = cached::<C>(&x.dev, n)?;
    let a = Along {
        axis,
        n,
        n_out: n,
        herm: 0,
        inverse,
        scale: norm.factor(n, inverse),
    };
    along(op, &node, x, &a)
}

/// The real transform of real `x` along `axis`: the n/2 + 1 non-negative frequencies
/// (`inverse`: of the inverse transform, for ihfft).
pub(crate) fn r2c<I: Element, C: ComplexFloat>(
    op: &'static str,
    x: &Array<I>,
    n: Option<usize>,
    axis: usize,
    scale: impl Fn(usize) -> f64,
    inverse: bool,
) -> Result<Array<C>> {
    gate::<C>(&x.dev, op)?;
    let n = length(op, n, x.shape[axis])?;
    if !inverse && real::applies::<I, C>(x, n, axis) {
        return real::rfft_half(op, x, n, axis, scale(n));
    }
    let node = cached::<C>(&x.dev, n)?;
    let a = Along {
        axis,
        n,
        n_out: n / 2 + 1,
        herm: 0,
        inverse,
        scale: scale(n),
    };
    along(op, &node, x, &a)
}

/// The real output of length `n` (default 2 (m - 1)) of a Hermitian spectrum's n/2 + 1
/// terms along `axis` (`inverse`: irfft; forward: hfft).
pub(crate) fn c2r<I: Element, C: ComplexFloat>(
    op: &'static str,
    x: &Array<I>,
    n: Option<usize>,
    axis: usize,
    scale: impl Fn(usize) -> f64,
    inverse: bool,
) -> Result<Array<C::Real>> {
    gate::<C>(&x.dev, op)?;
    let m = x.shape[axis];
    let n = match n {
        Some(n) => n,
        None => (2 * m).saturating_sub(2),
    };
    if n == 0 {
        return Err(zero_length(op));
    }
    let node = cached::<C>(&x.dev, n)?;
    let a = Along {
        axis,
        n,
        n_out: n,
        herm: n / 2 + 1,
        inverse,
        scale: scale(n),
    };
    along(op, &node, x, &a)
}

/// NumPy's `fft(x, n, axis, norm)`: the discrete Fourier transform along one axis,
/// `X_k = sum_j x_j exp(-2 pi i j k / n)`, of length `n` (the axis's extent when `None`;
/// the input cropped or padded with zeros to it). Real input is promoted (f32 to
/// complex64, f64 to complex128).
///
/// # Errors
/// [`Error::InvalidArgument`] for a length of 0; [`Error::AxisOutOfRange`] (also for a
/// 0-d array), [`Error::InvalidArgument`] for more than one axis; [`Error::Unsupported`]
/// where the adapter lacks f64 (complex128).
///
/// ```
/// use gpuarray::{fft, Complex};
/// # let dev = gpuarray::Device::new()?;
/// let x = dev.from_slice(&[1.0f32, 2.0, 3.0, 4.0], [4])?;
/// let y = fft::fft(&x, None, -1, fft::Norm::Backward)?.to_vec()?;
/// let want = [Complex::new(10.0, 0.0), Complex::new(-2.0, 2.0), Complex::new(-2.0, 0.0), Complex::new(-2.0, -2.0)];
/// for (a, b) in y.iter().zip(want) {
///     assert!((a - b).norm() < 1e-5);
/// }
/// assert!(fft::fft(&x, Some(0), 0, fft::Norm::Backward).is_err());
/// # Ok::<(), gpuarray::Error>(())
/// ```
pub fn fft<T: FftInput>(
    x: &Array<T>,
    n: Option<usize>,
    axis: impl Into<Axes>,
    norm: Norm,
) -> Result<Array<T::Complex>> {
    let op = "fft";
    let axis = axis.into().resolve_single(x.ndim(), op)?;
    c2c(op, x, n, axis, norm, false)
}

/// NumPy's `ifft(x, n, axis, norm)`: the inverse transform along one axis,
/// `x_j = (1/n) sum_k X_k exp(2 pi i j k / n)` (the scale by `norm`).
///
/// # Errors
/// As [`fft`].
///
/// ```
/// use gpuarray::{fft, Complex};
/// # let dev = gpuarray::Device::new()?;
/// let x = dev.from_slice(&[Complex::new(1.0f32, 1.0), Complex::new(2.0, -1.0), Complex::new(0.5, 0.0)], [3])?;
/// let back = fft::ifft(&fft::fft(&x, None, 0, fft::Norm::Backward)?, None, 0, fft::Norm::Backward)?;
/// for (a, b) in back.to_vec()?.iter().zip(x.to_vec()?) {
///     assert!((a - b).norm() < 1e-5);
/// }
/// # Ok::<(), gpuarray::Error>(())
/// ```
pub fn ifft<T: FftInput>(
    x: &Array<T>,
    n: Option<usize>,
    axis: impl Into<Axes>,
    norm: Norm,
) -> Result<Array<T::Complex>> {
    let op = "ifft";
    let axis = axis.into().resolve_single(x.ndim(), op)?;
    c2c(op, x, n, axis, norm, true)
}

/// NumPy's `rfft(x, n, axis, norm)`: the transform of real input along one axis, its
/// `n / 2 + 1` non-negative frequency terms (the others are their conjugates).
///
/// # Errors
/// As [`fft`].
///
/// ```
/// use gpuarray::fft;
/// # let dev = gpuarray::Device::new()?;
/// let x = dev.from_slice(&[1.0f64, 0.0, -1.0, 0.0, 1.0], [5])?;
/// let y = fft::rfft(&x, None, 0, fft::Norm::Backward)?;
/// assert_eq!(y.shape(), &[3]);
/// assert!((y.to_vec()?[0].re - 1.0).abs() < 1e-12);
/// # Ok::<(), gpuarray::Error>(())
/// ```
pub fn rfft<T: FftFloat>(
    x: &Array<T>,
    n: Option<usize>,
    axis: impl Into<Axes>,
    norm: Norm,
) -> Result<Array<T::Complex>> {
    let op = "rfft";
    let axis = axis.into().resolve_single(x.ndim(), op)?;
    r2c(op, x, n, axis, |n| norm.factor(n, false), false)
}

/// NumPy's `irfft(x, n, axis, norm)`: the inverse of [`rfft`], real output of length `n`
/// (by default `2 (m - 1)` for `m` input terms) from the non-negative frequency terms
/// (the imaginary parts of the zero and, for even `n`, Nyquist terms are ignored).
///
/// # Errors
/// As [`fft`]; a length of 0 (also the default from one input term).
///
/// ```
/// use gpuarray::fft;
/// # let dev = gpuarray::Device::new()?;
/// let x = dev.from_slice(&[0.5f32, 2.0, -1.0, 3.0, 0.25], [5])?;
/// let y = fft::rfft(&x, None, 0, fft::Norm::Backward)?;
/// let back = fft::irfft(&y, Some(5), 0, fft::Norm::Backward)?.to_vec()?;
/// for (a, b) in back.iter().zip(x.to_vec()?) {
///     assert!((a - b).abs() < 1e-5);
/// }
/// # Ok::<(), gpuarray::Error>(())
/// ```
pub fn irfft<T: FftInput>(
    x: &Array<T>,
    n: Option<usize>,
    axis: impl Into<Axes>,
    norm: Norm,
) -> Result<Array<RealOf<T>>> {
    let op = "irfft";
    let axis = axis.into().resolve_single(x.ndim(), op)?;
    c2r::<T, T::Complex>(op, x, n, axis, |n| norm.factor(n, true), true)
}

/// NumPy's `hfft(x, n, axis, norm)`: the transform of a signal with Hermitian symmetry
/// given by its first half, real output of length `n` (by default `2 (m - 1)`).
///
/// # Errors
/// As [`irfft`].
///
/// ```
/// use gpuarray::{fft, Complex};
/// # let dev = gpuarray::Device::new()?;
/// let x = dev.from_slice(&[Complex::new(1.0f32, 0.0), Complex::new(2.0, 0.0)], [2])?;
/// // The full signal [1, 2, 2] transforms to [5, -1, -1].
/// let y = fft::hfft(&x, Some(3), 0, fft::Norm::Backward)?.to_vec()?;
/// assert!((y[0] - 5.0).abs() < 1e-5 && (y[1] + 1.0).abs() < 1e-5);
/// # Ok::<(), gpuarray::Error>(())
/// ```
pub fn hfft<T: FftInput>(
    x: &Array<T>,
    n: Option<usize>,
    axis: impl Into<Axes>,
    norm: Norm,
) -> Result<Array<RealOf<T>>> {
    let op = "hfft";
    let axis = axis.into().resolve_single(x.ndim(), op)?;
    c2r::<T, T::Complex>(op, x, n, axis, |n| norm.swap().factor(n, true), false)
}

/// NumPy's `ihfft(x, n, axis, norm)`: the inverse of [`hfft`]: the `n / 2 + 1`
/// non-negative frequency terms of the inverse transform of real input.
///
/// # Errors
/// As [`fft`].
///
/// ```
/// use gpuarray::fft;
/// # let dev = gpuarray::Device::new()?;
/// let x = dev.from_slice(&[5.0f32, -1.0, -1.0], [3])?;
/// let y = fft::ihfft(&x, None, 0, fft::Norm::Backward)?.to_vec()?;
/// assert!((y[0].re - 1.0).abs() < 1e-5 && (y[1].re - 2.0).abs() < 1e-5);
/// # Ok::<(), gpuarray::Error>(())
/// ```
pub fn ihfft<T: FftFloat>(
    x: &Array<T>,
    n: Option<usize>,
    axis: impl Into<Axes>,
    norm: Norm,
) -> Result<Array<T::Complex>> {
    let op = "ihfft";
    let axis = axis.into().resolve_single(x.ndim(), op)?;
    r2c(op, x, n, axis, |n| norm.swap().factor(n, false), true)
}

/// A plan for complex transforms of one length, kept for repeated use: its twiddle tables
/// (and for Bluestein lengths its chirp filter) live on the device. The functions of this
/// module keep the same plans per device, so a `Plan` saves the look-up, and keeps the
/// plan alive beyond the device's cache.
///
/// ```
/// use gpuarray::{fft::{Norm, Plan}, Complex};
/// # let dev = gpuarray::Device::new()?;
/// let plan = Plan::<Complex<f32>>::new(&dev, 6)?;
/// assert_eq!(plan.n(), 6);
/// let x = dev.from_slice(&vec![Complex::new(1.0f32, 0.0); 12], [2, 6])?;
/// let y = plan.forward(&x, -1, Norm::Backward)?.to_vec()?;
/// assert!((y[0].re - 6.0).abs() < 1e-5 && y[1].norm() < 1e-5);
/// let back = plan.inverse(&plan.forward(&x, 1, Norm::Ortho)?, 1, Norm::Ortho)?;
/// assert!((back.to_vec()?[7].re - 1.0).abs() < 1e-5);
/// assert!(Plan::<Complex<f32>>::new(&dev, 0).is_err());
/// # Ok::<(), gpuarray::Error>(())
/// ```
pub struct Plan<C: ComplexFloat> {
    dev: Device,
    n: usize,
    node: Arc<Node<C>>,
}

impl<C: ComplexFloat> std::fmt::Debug for Plan<C> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Plan")
            .field("n", &self.n)
            .field("dtype", &C::DTYPE)
            .finish()
    }
}

impl<C: ComplexFloat> Plan<C> {
    /// The plan for transforms of length `n` on `dev` (the device's cached one where it
    /// has one).
    ///
    /// # Errors
    /// [`Error::InvalidArgument`] for `n == 0`; [`Error::Unsupported`] where the adapter
    /// lacks f64 (complex128); [`Error::OutOfMemory`] for the tables.
    ///
    /// ```
    /// # let dev = gpuarray::Device::new()?;
    /// let plan = gpuarray::fft::Plan::<gpuarray::Complex<f32>>::new(&dev, 1009)?;
    /// assert_eq!(plan.n(), 1009);
    /// # Ok::<(), gpuarray::Error>(())
    /// ```
    pub fn new(dev: &Device, n: usize) -> Result<Plan<C>> {
        let op = "Plan::new";
        gate::<C>(dev, op)?;
        if n == 0 {
            return Err(zero_length(op));
        }
        Ok(Plan {
            dev: dev.clone(),
            n,
            node: cached::<C>(dev, n)?,
        })
    }

    /// The length of the plan's transforms.
    ///
    /// ```
    /// # let dev = gpuarray::Device::new()?;
    /// assert_eq!(gpuarray::fft::Plan::<gpuarray::Complex<f32>>::new(&dev, 8)?.n(), 8);
    /// # Ok::<(), gpuarray::Error>(())
    /// ```
    pub fn n(&self) -> usize {
        self.n
    }

    fn run(
        &self,
        op: &'static str,
        x: &Array<C>,
        axis: Axes,
        norm: Norm,
        inverse: bool,
    ) -> Result<Array<C>> {
        self.dev.expect_same(op, &[&x.dev])?;
        let axis = axis.resolve_single(x.ndim(), op)?;
        let a = Along {
            axis,
            n: self.n,
            n_out: self.n,
            herm: 0,
            inverse,
            scale: norm.factor(self.n, inverse),
        };
        along(op, &self.node, x, &a)
    }

    /// The forward transform of `x` along `axis` (as [`fft`] with the plan's length).
    ///
    /// # Errors
    /// [`Error::DeviceMismatch`] for an array of another device; [`Error::AxisOutOfRange`].
    ///
    /// ```
    /// use gpuarray::{fft::{Norm, Plan}, Complex};
    /// # let dev = gpuarray::Device::new()?;
    /// let plan = Plan::<Complex<f32>>::new(&dev, 4)?;
    /// let x = dev.from_slice(&[Complex::new(1.0f32, 0.0); 4], [4])?;
    /// assert!((plan.forward(&x, 0, Norm::Backward)?.to_vec()?[0].re - 4.0).abs() < 1e-6);
    /// # Ok::<(), gpuarray::Error>(())
    /// ```
    pub fn forward(&self, x: &Array<C>, axis: impl Into<Axes>, norm: Norm) -> Result<Array<C>> {
        self.run("Plan::forward", x, axis.into(), norm, false)
    }

    /// The inverse transform of `x` along `axis` (as [`ifft`] with the plan's length).
    ///
    /// # Errors
    /// As [`Plan::forward`].
    ///
    /// ```
    /// use gpuarray::{fft::{Norm, Plan}, Complex};
    /// # let dev = gpuarray::Device::new()?;
    /// let plan = Plan::<Complex<f32>>::new(&dev, 4)?;
    /// let x = dev.from_slice(&[Complex::new(4.0f32, 0.0), Complex::new(0.0, 0.0), Complex::new(0.0, 0.0), Complex::new(0.0, 0.0)], [4])?;
    /// assert!((plan.inverse(&x, 0, Norm::Backward)?.to_vec()?[3].re - 1.0).abs() < 1e-6);
    /// # Ok::<(), gpuarray::Error>(())
    /// ```
    pub fn inverse(&self, x: &Array<C>, axis: impl Into<Axes>, norm: Norm) -> Result<Array<C>> {
        self.run("Plan::inverse", x, axis.into(), norm, true)
    }
}

/// The elementwise product of two complex arrays of one shape (fresh, contiguous): the
/// spectra's product of [`crate::signal::fftconvolve`] (shaders/fft_bluestein.wgsl's
/// `pointwise`, which multiplies by a filter repeating every `len` elements).
pub(crate) fn multiply<C: ComplexFloat>(a: &Array<C>, b: &Array<C>) -> Result<Array<C>> {
    plan::multiply(a, b)
}
