//! Several devices at once: [`DeviceSet`] splits a job along an axis, runs the same
//! function on every device from a thread of its own, and gathers the parts.
//!
//! WebGPU has no peer copies between GPUs and no shared memory between devices: parts
//! travel through the host ([`Array::to_device`], pipelined in chunks), so divide a job
//! where the parts need little exchange (a batch, rows of a large elementwise chain).
//!
//! ```
//! use gpuarray::multi::DeviceSet;
//! let set = DeviceSet::all()?; // every GPU (lavapipe where there is none)
//! let data: Vec<f32> = (0..12).map(|i| i as f32).collect();
//! let parts = set.split_host(&data, [6, 2], 0)?;
//! let out = set.map(&parts, |_dev, x| x.mul_scalar(2.0))?;
//! let y = set.gather(&out, 0, &set.devices()[0])?;
//! assert_eq!(y.to_vec()?, data.iter().map(|x| 2.0 * x).collect::<Vec<_>>());
//! # Ok::<(), gpuarray::Error>(())
//! ```

use crate::array::Array;
use crate::device::Device;
use crate::dtype::Element;
use crate::error::{Error, Result};
use crate::shape::{checked_len, Axes, Axis, Shape};

/// A set of devices that share a job: one part of each split per device, in order.
///
/// ```
/// use gpuarray::{multi::DeviceSet, Device};
/// let set = DeviceSet::new(vec![Device::open(0)?, Device::open(0)?])?;
/// assert_eq!(set.len(), 2);
/// let sums = set.run(|i, dev| dev.full::<i32>([4], i as i32 + 1)?.sum()?.to_scalar())?;
/// assert_eq!(sums, vec![4, 8]);
/// # Ok::<(), gpuarray::Error>(())
/// ```
#[derive(Debug, Clone)]
pub struct DeviceSet {
    devices: Vec<Device>,
}

impl DeviceSet {
    /// A set of these devices (at least one).
    ///
    /// # Errors
    /// [`Error::InvalidArgument`] for an empty list.
    ///
    /// ```
    /// use gpuarray::multi::DeviceSet;
    /// assert!(DeviceSet::new(vec![]).is_err());
    /// let set = DeviceSet::new(vec![gpuarray::Device::new()?])?;
    /// assert_eq!(set.len(), 1);
    /// # Ok::<(), gpuarray::Error>(())
    /// ```
    pub fn new(devices: Vec<Device>) -> Result<DeviceSet> {
        if devices.is_empty() {
            return Err(Error::InvalidArgument {
                op: "DeviceSet::new",
                reason: "a set needs at least one device",
            });
        }
        Ok(DeviceSet { devices })
    }

    /// Every GPU of the machine ([`Device::open_gpus`]), in [`Device::enumerate`]'s order;
    /// the best adapter where there is no GPU.
    ///
    /// # Errors
    /// Those of [`Device::new`].
    ///
    /// ```
    /// let set = gpuarray::multi::DeviceSet::all()?;
    /// assert!(set.len() >= 1);
    /// # Ok::<(), gpuarray::Error>(())
    /// ```
    pub fn all() -> Result<DeviceSet> {
        Self::new(Device::open_gpus()?)
    }

    /// The devices, in order.
    ///
    /// ```
    /// let set = gpuarray::multi::DeviceSet::all()?;
    /// assert_eq!(set.devices().len(), set.len());
    /// # Ok::<(), gpuarray::Error>(())
    /// ```
    pub fn devices(&self) -> &[Device] {
        &self.devices
    }

    /// How many devices.
    ///
    /// ```
    /// assert!(gpuarray::multi::DeviceSet::all()?.len() > 0);
    /// # Ok::<(), gpuarray::Error>(())
    /// ```
    #[allow(clippy::len_without_is_empty)] // never empty
    pub fn len(&self) -> usize {
        self.devices.len()
    }

    /// Where the parts of an extent `n` begin: `len() + 1` bounds, as even as can be (the
    /// first `n % len()` parts one longer). Parts may be empty when `n < len()`.
    ///
    /// ```
    /// let set = gpuarray::multi::DeviceSet::new(vec![gpuarray::Device::new()?; 3])?;
    /// assert_eq!(set.bounds(10), vec![0, 4, 7, 10]);
    /// # Ok::<(), gpuarray::Error>(())
    /// ```
    pub fn bounds(&self, n: usize) -> Vec<usize> {
        let k = self.devices.len();
        (0..=k).map(|i| i * (n / k) + i.min(n % k)).collect()
    }

    /// Runs `f(i, device i)` on every device at once, one thread per device, and returns
    /// the results in device order.
    ///
    /// # Errors
    /// The first error (in device order) that `f` returned.
    ///
    /// ```
    /// let set = gpuarray::multi::DeviceSet::all()?;
    /// let names = set.run(|_, dev| Ok(dev.info().name.clone()))?;
    /// assert_eq!(names.len(), set.len());
    /// # Ok::<(), gpuarray::Error>(())
    /// ```
    pub fn run<R: Send>(&self, f: impl Fn(usize, &Device) -> Result<R> + Sync) -> Result<Vec<R>> {
        let f = &f;
        std::thread::scope(|s| {
            let threads: Vec<_> = self
                .devices
                .iter()
                .enumerate()
                .map(|(i, dev)| s.spawn(move || f(i, dev)))
                .collect();
            threads
                .into_iter()
                .map(|t| t.join().unwrap_or_else(|p| std::panic::resume_unwind(p)))
                .collect()
        })
    }

    /// Waits until every device has finished its work.
    ///
    /// # Errors
    /// Those of [`Device::synchronize`].
    ///
    /// ```
    /// gpuarray::multi::DeviceSet::all()?.synchronize()?;
    /// # Ok::<(), gpuarray::Error>(())
    /// ```
    pub fn synchronize(&self) -> Result<()> {
        self.run(|_, dev| dev.synchronize()).map(|_| ())
    }

    /// Uploads row-major host `data` of `shape` in parts along `axis`, part i to device i
    /// (extents as [`DeviceSet::bounds`]).
    ///
    /// # Errors
    /// [`Error::SizeMismatch`] when `data` does not fill `shape`,
    /// [`Error::AxisOutOfRange`], and those of [`Device::from_slice`].
    ///
    /// ```
    /// use gpuarray::{multi::DeviceSet, Device};
    /// let set = DeviceSet::new(vec![Device::new()?, Device::new()?])?;
    /// let parts = set.split_host(&[1, 2, 3, 4, 5, 6], [2, 3], 1)?;
    /// assert_eq!(parts[0].to_vec()?, vec![1, 2, 4, 5]);
    /// assert_eq!(parts[1].to_vec()?, vec![3, 6]);
    /// # Ok::<(), gpuarray::Error>(())
    /// ```
    pub fn split_host<T: Element>(
        &self,
        data: &[T],
        shape: impl Into<Shape>,
        axis: impl Into<Axes>,
    ) -> Result<Vec<Array<T>>> {
        let shape = shape.into().0;
        let n = checked_len(&shape, T::DTYPE.size())?;
        if n != data.len() {
            return Err(Error::SizeMismatch {
                shape,
                expected: n,
                actual: data.len(),
            });
        }
        let axis = one_axis(&shape, axis.into(), "DeviceSet::split_host")?;
        let extent = shape[axis.0];
        let outer: usize = shape[..axis.0].iter().product();
        let inner: usize = shape[axis.0 + 1..].iter().product();
        let bounds = self.bounds(extent);
        self.run(|i, dev| {
            let (a, b) = (bounds[i], bounds[i + 1]);
            let mut part = Vec::with_capacity(outer * (b - a) * inner);
            for o in 0..outer {
                part.extend_from_slice(&data[(o * extent + a) * inner..(o * extent + b) * inner]);
            }
            let mut s = shape.clone();
            s[axis.0] = b - a;
            dev.from_slice(&part, s)
        })
    }

    /// Splits an array along `axis`, part i copied to device i ([`Array::to_device`]; a
    /// part on the array's own device is a copy too).
    ///
    /// # Errors
    /// [`Error::AxisOutOfRange`], and those of [`Array::to_device`].
    ///
    /// ```
    /// use gpuarray::{multi::DeviceSet, Device};
    /// let set = DeviceSet::new(vec![Device::new()?, Device::new()?])?;
    /// let x = set.devices()[0].arange::<f32>(0.0, 5.0, 1.0)?;
    /// let parts = set.split(&x, 0)?;
    /// assert_eq!(parts[1].to_vec()?, vec![3.0, 4.0]);
    /// # Ok::<(), gpuarray::Error>(())
    /// ```
    pub fn split<T: Element>(&self, a: &Array<T>, axis: impl Into<Axes>) -> Result<Vec<Array<T>>> {
        let axis = one_axis(a.shape(), axis.into(), "DeviceSet::split")?;
        let bounds = self.bounds(a.shape()[axis.0]);
        self.run(|i, dev| a.slice_axis(axis, bounds[i]..bounds[i + 1])?.to_device(dev))
    }

    /// Runs `f(device i, part i)` for every part at once, one thread per device.
    ///
    /// # Errors
    /// [`Error::InvalidArgument`] unless there is one part per device,
    /// [`Error::DeviceMismatch`] when part i is not on device i; the first error `f` gave.
    ///
    /// ```
    /// use gpuarray::multi::DeviceSet;
    /// let set = DeviceSet::all()?;
    /// let parts = set.split_host(&[1.0f32, 4.0, 9.0], [3], 0)?;
    /// let roots = set.map(&parts, |_, x| x.sqrt())?;
    /// assert_eq!(set.gather(&roots, 0, &set.devices()[0])?.to_vec()?, vec![1.0, 2.0, 3.0]);
    /// # Ok::<(), gpuarray::Error>(())
    /// ```
    pub fn map<T: Element, U: Element>(
        &self,
        parts: &[Array<T>],
        f: impl Fn(&Device, &Array<T>) -> Result<Array<U>> + Sync,
    ) -> Result<Vec<Array<U>>> {
        self.check_parts("DeviceSet::map", parts)?;
        self.run(|i, dev| f(dev, &parts[i]))
    }

    /// `Err` unless `parts` has one array per device, on that device.
    fn check_parts<T: Element>(&self, op: &'static str, parts: &[Array<T>]) -> Result<()> {
        if parts.len() != self.devices.len() {
            return Err(Error::InvalidArgument {
                op,
                reason: "one part per device is needed",
            });
        }
        for (dev, p) in self.devices.iter().zip(parts) {
            dev.expect_same(op, &[p.device()])?;
        }
        Ok(())
    }

    /// Joins parts along `axis` into one array on `target` (parts from any devices; the
    /// other axes must agree).
    ///
    /// # Errors
    /// [`Error::InvalidArgument`] for no parts, [`Error::AxisOutOfRange`],
    /// [`Error::ShapeMismatch`] when the parts differ off `axis`; those of
    /// [`Array::to_device`].
    ///
    /// ```
    /// use gpuarray::{multi::DeviceSet, Device};
    /// let set = DeviceSet::new(vec![Device::new()?, Device::new()?])?;
    /// let parts = set.split_host(&[1, 2, 3, 4, 5, 6], [3, 2], 1)?;
    /// let back = set.gather(&parts, 1, &set.devices()[1])?;
    /// assert_eq!(back.shape(), &[3, 2]);
    /// assert_eq!(back.to_vec()?, vec![1, 2, 3, 4, 5, 6]);
    /// # Ok::<(), gpuarray::Error>(())
    /// ```
    pub fn gather<T: Element>(
        &self,
        parts: &[Array<T>],
        axis: impl Into<Axes>,
        target: &Device,
    ) -> Result<Array<T>> {
        let first = parts.first().ok_or(Error::InvalidArgument {
            op: "DeviceSet::gather",
            reason: "no parts to gather",
        })?;
        let axis = one_axis(first.shape(), axis.into(), "DeviceSet::gather")?;
        let off_axis = |s: &[usize]| {
            let mut s = s.to_vec();
            s[axis.0] = 0;
            s
        };
        let mut shape = off_axis(first.shape());
        for p in parts {
            let fits = p.ndim() == shape.len() && off_axis(p.shape()) == off_axis(&shape);
            if !fits {
                return Err(Error::ShapeMismatch {
                    op: "DeviceSet::gather",
                    lhs: first.shape().to_vec(),
                    rhs: p.shape().to_vec(),
                });
            }
            shape[axis.0] += p.shape()[axis.0];
        }
        // Along the first axis each part is one contiguous run of the result: move `axis`
        // first, join, move it back.
        let mut perm: Vec<usize> = (0..shape.len()).collect();
        perm.remove(axis.0);
        perm.insert(0, axis.0);
        let fronts = parts
            .iter()
            .map(|p| p.transpose(&perm))
            .collect::<Result<Vec<_>>>()?;
        let joined = Array::join_first_axis(&fronts, target)?;
        let mut back: Vec<usize> = (1..shape.len()).collect();
        back.insert(axis.0, 0);
        let out = joined.transpose(&back)?;
        if axis.0 == 0 {
            Ok(out)
        } else {
            out.contiguous()
        }
    }
}

/// The one axis `axis` of `shape` (negative counts from the end), or `AxisOutOfRange`.
fn one_axis(shape: &[usize], axis: Axes, op: &'static str) -> Result<Axis> {
    axis.resolve_single(shape.len(), op).map(Axis)
}
