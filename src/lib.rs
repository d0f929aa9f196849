//! # gpuarray
//!
//! Array computing on any GPU: device arrays, elementwise math with NumPy broadcasting,
//! random numbers and a buffer pool, as WGSL compute shaders dispatched through wgpu on
//! Vulkan, Metal and DX12 (and lavapipe, Mesa's software Vulkan, on machines without a GPU).
//!
//! ```
//! use gpuarray::{Device, Result};
//!
//! fn main() -> Result<()> {
//!     let dev = Device::new()?; // the best adapter; GPUARRAY_ADAPTER / GPUARRAY_BACKEND override
//!     let x = dev.from_slice(&[1.0f32, 2.0, 3.0, 4.0], [2, 2])?;
//!     let y = dev.random_uniform::<f32>([2], 42)?; // broadcast along rows
//!     let z = (&x * &x).add(&y)?.sqrt()?;
//!     let host = z.to_vec()?; // waits for the GPU
//!     assert_eq!(host.len(), 4);
//!     assert!(host[3] > 4.0 && host[3] < 4.2);
//!     Ok(())
//! }
//! ```
//!
//! ## Model
//! - A [`Device`] is opened with [`Options`] ([`Device::new`] reads them from the
//!   `GPUARRAY_*` environment variables, [`Device::with_options`] takes them from code) and
//!   owns a wgpu device and queue, a pool of device buffers
//!   ([`MemoryPool`]), staging pools for transfers and a pipeline cache. It is cheap to
//!   clone and may be shared between threads.
//! - An [`Array<T>`] is a view (shape, strides, offset) of a pooled buffer, for
//!   `T` in f32, i32, u32, and [`f16`](struct@crate::f16) / f64 where the adapter supports them
//!   ([`Device::supports`]). Comparisons give masks of `u32` 0 and 1.
//! - Operations record their work and return at once; work is submitted when you read back,
//!   call [`Device::synchronize`], or after [`device::BATCH_DISPATCHES`] dispatches.
//! - User kernels in WGSL, as CuPy's: [`ElementwiseKernel`], [`ReductionKernel`],
//!   [`RawKernel`] and [`fuse`] (module [`custom`]); events and a benchmark in [`profile`].
//! - Every fallible call returns [`Result`]; errors are found on the host before any work is
//!   recorded, so the device stays usable. Only the operator sugar (`&a + &b`) panics, with
//!   the same message, as ndarray's operators do.

#![warn(missing_docs)]

mod agnostic;
mod array;
pub mod config;
pub mod custom;
pub mod device;
#[cfg(feature = "mpi")]
pub mod dist;
mod dtype;
mod error;
pub mod fft;
mod gpu;
mod kernel;
pub mod linalg;
mod memory;
pub mod multi;
pub mod nn;
mod ops;
pub mod profile;
/// Random numbers: the stateful [`random::Generator`] (NumPy's `default_rng`, made by
/// [`Device::default_rng`]) beside the stateless seed-per-call functions
/// ([`Device::random_uniform`], [`Device::random_normal`]).
///
/// ```
/// # let dev = gpuarray::Device::new()?;
/// let mut rng: gpuarray::random::Generator = dev.default_rng(42);
/// let dice = rng.integers::<i32>([6], 1, 7)?;
/// assert!(dice.to_vec()?.iter().all(|&d| (1..7).contains(&d)));
/// # Ok::<(), gpuarray::Error>(())
/// ```
pub mod random {
    pub use crate::ops::random::generator::{Generator, Mask};
}
#[cfg(test)]
mod shader_validation;
mod shape;
pub mod signal;

pub use agnostic::ArrayOps;
pub use array::{Array, DisplayWith, PrintOptions};
#[cfg(feature = "image")]
pub use array::{Gray16Image, GrayImage};
pub use config::Options;
pub use custom::{fuse, ElementwiseKernel, RawKernel, ReductionKernel};
pub use device::MemoryPool;
pub use device::{Device, DeviceInfo, DeviceKind, DeviceLimits, DeviceStats, Subnormals};
pub use dtype::{f16, ComplexFloat, DType, Element, Float, Int, Real, Signed};
pub use error::{Error, MpiErrorKind, Result};
pub use linalg::einsum;
/// num-complex's complex number: `Complex<f32>` is NumPy's complex64, `Complex<f64>` its
/// complex128 (see [`ComplexFloat`]).
pub use num_complex::Complex;
pub use ops::elementwise::ComplexOps;
pub use ops::index::{IndexMode, Mask};
pub use ops::manip::{Indexing, PadMode};
pub use ops::sort::{Side, UniqueAll};
pub use shape::{Axes, Axis, Shape, Slice, SliceInfo, SliceStep};

/// The README's code, compiled and run as a doc test.
#[cfg(doctest)]
#[doc = include_str!("../README.md")]
pub struct ReadmeDoctests;
