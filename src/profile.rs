//! Events and a benchmark, as CuPy's `cupy.cuda.Event` and `cupyx.profiler.benchmark`.
//!
//! An [`Event`] marks a point in the device's work. Where the adapter has TIMESTAMP_QUERY
//! it is a GPU timestamp written after the work recorded before it (inside the open compute
//! pass where the adapter allows timestamps there, so that events do not split batches);
//! elsewhere, or with `GPUARRAY_EVENTS=host`, it is the host's clock read once the device
//! has finished the work recorded before it. [`Event::timing`] says which.

use std::fmt;
use std::time::Instant;

use crate::device::{Device, Stamp};
use crate::error::{Error, Result};

/// How an [`Event`] measures time.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
#[non_exhaustive]
pub enum Timing {
    /// A GPU timestamp query.
    Gpu,
    /// The host's clock, read after the device finished the work before the event.
    Host,
}

/// A point in a device's work, for timing it: see [`Device::record_event`].
///
/// ```
/// # let dev = gpuarray::Device::new()?;
/// let x = dev.ones::<f32>([1 << 16])?;
/// let start = dev.record_event()?;
/// let y = x.exp()?;
/// let end = dev.record_event()?;
/// end.synchronize()?;
/// let ms = start.elapsed_ms(&end)?;
/// assert!(ms >= 0.0);
/// # Ok::<(), gpuarray::Error>(())
/// ```
pub struct Event {
    dev: Device,
    mark: Mark,
}

enum Mark {
    Gpu(Stamp),
    Host(Instant),
}

impl fmt::Debug for Event {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("Event")
            .field("timing", &self.timing())
            .finish()
    }
}

impl Device {
    /// Records an event after the work recorded so far: a GPU timestamp where the adapter
    /// has TIMESTAMP_QUERY (and `GPUARRAY_EVENTS` is not `host`), else the host's clock once
    /// the device has finished that work (which waits for it).
    ///
    /// # Errors
    /// [`Error::DeviceLost`] and the errors of [`Device::synchronize`].
    ///
    /// ```
    /// # let dev = gpuarray::Device::new()?;
    /// let e = dev.record_event()?;
    /// println!("events here use {:?} timing", e.timing());
    /// # Ok::<(), gpuarray::Error>(())
    /// ```
    pub fn record_event(&self) -> Result<Event> {
        let mark = if self.has_timestamps() {
            Mark::Gpu(self.write_stamp()?)
        } else {
            self.synchronize()?;
            Mark::Host(Instant::now())
        };
        Ok(Event {
            dev: self.clone(),
            mark,
        })
    }
}

impl Event {
    /// Whether the event is a GPU timestamp or the host's clock.
    ///
    /// ```
    /// use gpuarray::profile::Timing;
    /// # let dev = gpuarray::Device::new()?;
    /// let e = dev.record_event()?;
    /// assert!(matches!(e.timing(), Timing::Gpu | Timing::Host));
    /// # Ok::<(), gpuarray::Error>(())
    /// ```
    pub fn timing(&self) -> Timing {
        match self.mark {
            Mark::Gpu(_) => Timing::Gpu,
            Mark::Host(_) => Timing::Host,
        }
    }

    /// Waits until the device has finished the work recorded before the event (and, as
    /// work is in order, everything submitted with it).
    ///
    /// # Errors
    /// As [`Device::synchronize`].
    ///
    /// ```
    /// # let dev = gpuarray::Device::new()?;
    /// let _y = dev.ones::<f32>([1024])?.sqrt()?;
    /// dev.record_event()?.synchronize()?;
    /// # Ok::<(), gpuarray::Error>(())
    /// ```
    pub fn synchronize(&self) -> Result<()> {
        match &self.mark {
            Mark::Gpu(s) => self.dev.read_stamp(s).map(|_| ()),
            Mark::Host(_) => Ok(()),
        }
    }

    /// Milliseconds from this event to `end` (negative if `end` came first); waits for
    /// both.
    ///
    /// # Errors
    /// [`Error::DeviceMismatch`] when the events are of different devices;
    /// [`Error::InvalidArgument`] when they are of different timings; the errors of
    /// [`Event::synchronize`].
    ///
    /// ```
    /// # let dev = gpuarray::Device::new()?;
    /// let a = dev.record_event()?;
    /// let _x = dev.random_uniform::<f32>([1 << 20], 1)?;
    /// let b = dev.record_event()?;
    /// assert!(a.elapsed_ms(&b)? >= 0.0);
    /// # Ok::<(), gpuarray::Error>(())
    /// ```
    pub fn elapsed_ms(&self, end: &Event) -> Result<f64> {
        self.dev.expect_same("Event::elapsed_ms", &[&end.dev])?;
        if self.timing() != end.timing() {
            return Err(Error::InvalidArgument {
                op: "Event::elapsed_ms",
                reason: "the events are of different timings",
            });
        }
        match (&self.mark, &end.mark) {
            (Mark::Gpu(a), Mark::Gpu(b)) => {
                let tb = self.dev.read_stamp(b)?;
                let ta = self.dev.read_stamp(a)?;
                Ok(tb - ta)
            }
            (Mark::Host(a), Mark::Host(b)) => Ok(if b >= a {
                b.duration_since(*a).as_secs_f64() * 1e3
            } else {
                -(a.duration_since(*b).as_secs_f64() * 1e3)
            }),
            _ => unreachable!("same timing"),
        }
    }
}

/// Times of one benchmark, in microseconds: see [`benchmark`]. Its `Display` is one line
/// like `cupyx.profiler.benchmark`'s.
#[derive(Debug, Clone, PartialEq)]
pub struct BenchmarkResult {
    /// The name given.
    pub name: String,
    /// Host wall time of each repeat (the call and the wait for its work), in µs.
    pub cpu_us: Vec<f64>,
    /// Device time of each repeat, between events around the call, in µs.
    pub gpu_us: Vec<f64>,
    /// How the device times were measured.
    pub timing: Timing,
}

/// Mean, standard deviation, minimum and maximum.
fn stats(v: &[f64]) -> (f64, f64, f64, f64) {
    let n = v.len().max(1) as f64;
    let mean = v.iter().sum::<f64>() / n;
    let var = v.iter().map(|x| (x - mean) * (x - mean)).sum::<f64>() / n;
    let min = v.iter().copied().fold(f64::INFINITY, f64::min);
    let max = v.iter().copied().fold(f64::NEG_INFINITY, f64::max);
    (mean, var.sqrt(), min, max)
}

impl BenchmarkResult {
    /// Mean, standard deviation, minimum and maximum of the device times, in µs.
    ///
    /// ```
    /// # let dev = gpuarray::Device::new()?;
    /// let r = gpuarray::profile::benchmark(&dev, "noop", || Ok(()), 3)?;
    /// let (mean, _std, min, max) = r.gpu_stats();
    /// assert!(min <= mean && mean <= max);
    /// # Ok::<(), gpuarray::Error>(())
    /// ```
    pub fn gpu_stats(&self) -> (f64, f64, f64, f64) {
        stats(&self.gpu_us)
    }

    /// Mean, standard deviation, minimum and maximum of the host times, in µs.
    ///
    /// ```
    /// # let dev = gpuarray::Device::new()?;
    /// let r = gpuarray::profile::benchmark(&dev, "noop", || Ok(()), 3)?;
    /// assert!(r.cpu_stats().0 >= 0.0);
    /// # Ok::<(), gpuarray::Error>(())
    /// ```
    pub fn cpu_stats(&self) -> (f64, f64, f64, f64) {
        stats(&self.cpu_us)
    }
}

impl fmt::Display for BenchmarkResult {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let line = |f: &mut fmt::Formatter<'_>, label: &str, s: (f64, f64, f64, f64)| {
            write!(
                f,
                "    {label}: {:>9.3} us   +/- {:>6.3} (min: {:>9.3} / max: {:>9.3}) us",
                s.0, s.1, s.2, s.3
            )
        };
        write!(f, "{:<20}:", self.name)?;
        line(f, "CPU", self.cpu_stats())?;
        let label = match self.timing {
            Timing::Gpu => "GPU-0",
            Timing::Host => "GPU-0 (host timing)",
        };
        line(f, label, self.gpu_stats())
    }
}

/// Times `f` as `cupyx.profiler.benchmark`: 10 warm-up calls, then `n_repeat` calls, each
/// timed on the host (the call and the wait for its work) and on the device (events
/// around the call). Print the result for cupyx's line:
///
/// ```text
/// squared_diff        :    CPU:   120.358 us   +/- 12.034 (min:   105.210 / max:   160.981) us    GPU-0:   101.224 us   +/-  9.118 (min:    90.112 / max:   130.456) us
/// ```
///
/// # Errors
/// The first error of `f`, or of the events.
///
/// ```
/// # let dev = gpuarray::Device::new()?;
/// let x = dev.ones::<f32>([1 << 16])?;
/// let r = gpuarray::profile::benchmark(&dev, "exp", || x.exp().map(|_| ()), 20)?;
/// println!("{r}");
/// assert_eq!(r.gpu_us.len(), 20);
/// # Ok::<(), gpuarray::Error>(())
/// ```
pub fn benchmark(
    dev: &Device,
    name: &str,
    mut f: impl FnMut() -> Result<()>,
    n_repeat: usize,
) -> Result<BenchmarkResult> {
    for _ in 0..10 {
        f()?;
    }
    dev.synchronize()?;
    let mut cpu_us = Vec::with_capacity(n_repeat);
    let mut gpu_us = Vec::with_capacity(n_repeat);
    let mut timing = Timing::Host;
    for _ in 0..n_repeat {
        let t0 = Instant::now();
        let e0 = dev.record_event()?;
        f()?;
        let e1 = dev.record_event()?;
        e1.synchronize()?;
        dev.synchronize()?;
        cpu_us.push(t0.elapsed().as_secs_f64() * 1e6);
        gpu_us.push(e0.elapsed_ms(&e1)? * 1e3);
        timing = e0.timing();
    }
    Ok(BenchmarkResult {
        name: name.to_string(),
        cpu_us,
        gpu_us,
        timing,
    })
}
