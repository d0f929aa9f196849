//! Work that keeps the GPU's clock up while a program works (issue 34): a burst of heavy
//! work before the first launch after an idle spell ([`ClockBurst`]), and a background
//! keep-alive thread ([`KeepAlive`]). Both are off by default (the options' docs give their
//! cost); where they are on, every launch of an operation notes the time (`Device::launch`
//! calls [`Device::clock_touch`]), and the work itself is the clock kernel of
//! shaders/clock.wgsl over a scratch buffer the device owns.
//!
//! The clock's own launches are not the program's work: they run with a thread-local flag
//! set, so that they neither count as activity nor burst themselves.

use std::cell::Cell;
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::{Arc, Mutex, Once, Weak};
use std::time::{Duration, Instant};

use crate::config::{ClockBurst, KeepAlive};
use crate::dtype::DType;
use crate::error::Result;
use crate::gpu::lock;
use crate::kernel::cache::Key;
use crate::kernel::launch::{Binding, Params};
use crate::kernel::source::Spec;
use crate::memory::pool::BufferHandle;

use super::{Device, Inner, Work};

const SRC: &str = include_str!("../../shaders/clock.wgsl");
/// Invocations per workgroup of the clock kernel.
const WG: u32 = 256;
/// Dispatches a burst records between two waits.
const BURST_DISPATCHES: u32 = 4;
/// "No launch yet" in [`ClockState::last`].
const NEVER: u64 = u64::MAX;

thread_local! {
    /// Set while this thread runs the clock's own work.
    static IN_CLOCK: Cell<bool> = const { Cell::new(false) };
}

/// The clock kernel's spec.
pub(crate) fn spec() -> Spec {
    Spec::new("clock", SRC).scalar(DType::F32)
}

/// What a device keeps for the clock knobs.
pub(crate) struct ClockState {
    /// When the device was opened: the origin of `last`.
    start: Instant,
    /// Microseconds after `start` of the program's last launch ([`NEVER`] before the first).
    last: AtomicU64,
    /// The scratch buffer of the clock kernel and its elements, made on first use.
    scratch: Mutex<Option<(BufferHandle, u32)>>,
    /// Starts the keep-alive thread once.
    keepalive: Once,
    /// Bursts run, for tests and the probe example.
    bursts: AtomicU64,
}

impl Default for ClockState {
    fn default() -> ClockState {
        ClockState {
            start: Instant::now(),
            last: AtomicU64::new(NEVER),
            scratch: Mutex::new(None),
            keepalive: Once::new(),
            bursts: AtomicU64::new(0),
        }
    }
}

impl ClockState {
    fn now_us(&self) -> u64 {
        self.start.elapsed().as_micros() as u64
    }

    /// Microseconds since the program's last launch (`None` before the first).
    fn idle_us(&self) -> Option<u64> {
        let last = self.last.load(Ordering::Relaxed);
        (last != NEVER).then(|| self.now_us().saturating_sub(last))
    }
}

/// Runs `f` with the thread's clock flag set (its launches are the clock's own).
fn as_clock<R>(f: impl FnOnce() -> R) -> R {
    let outer = IN_CLOCK.with(|c| c.replace(true));
    let r = f();
    IN_CLOCK.with(|c| c.set(outer));
    r
}

impl Device {
    /// Notes a launch of the program's work, where a clock knob is on: starts the
    /// keep-alive thread on the first, and bursts first where the device was idle longer
    /// than the burst's `idle_ms`. Called by `Device::launch` and `launch_raw` before they
    /// record anything.
    pub(crate) fn clock_touch(&self) -> Result<()> {
        let t = &self.options().tuning;
        if (t.clock_burst.is_none() && t.clock_keepalive.is_none()) || IN_CLOCK.with(Cell::get) {
            return Ok(());
        }
        let c = &self.inner.clock;
        if let Some(k) = t.clock_keepalive {
            let weak = Arc::downgrade(&self.inner);
            c.keepalive.call_once(|| spawn_keepalive(weak, k));
        }
        let idle = c.idle_us();
        c.last.store(c.now_us(), Ordering::Relaxed);
        match (t.clock_burst, idle) {
            (Some(b), Some(idle)) if idle > u64::from(b.idle_ms) * 1000 => {
                let r = as_clock(|| self.burst(b));
                // The burst's time is not idle time.
                c.last.store(c.now_us(), Ordering::Relaxed);
                r
            }
            _ => Ok(()),
        }
    }

    /// Bursts run on this device (see [`ClockBurst`]).
    #[cfg(test)]
    pub(crate) fn clock_bursts(&self) -> u64 {
        self.inner.clock.bursts.load(Ordering::Relaxed)
    }

    /// Runs the clock kernel for `b.burst_ms` of wall time, waiting for it.
    fn burst(&self, b: ClockBurst) -> Result<()> {
        self.inner.clock.bursts.fetch_add(1, Ordering::Relaxed);
        let end = Instant::now() + Duration::from_millis(u64::from(b.burst_ms));
        loop {
            for _ in 0..BURST_DISPATCHES {
                self.clock_work(b.elements)?;
            }
            self.synchronize()?;
            if Instant::now() >= end {
                return Ok(());
            }
        }
    }

    /// Records one dispatch of the clock kernel over (up to) `elements` f32 of the scratch
    /// buffer, made or grown on first use.
    pub(crate) fn clock_work(&self, elements: u32) -> Result<()> {
        let max = (self.limits().max_storage_buffer_binding_size / 4).min(u64::from(u32::MAX));
        let n = u64::from(elements.max(1)).min(max) as u32;
        let mut scratch = lock(&self.inner.clock.scratch);
        if scratch.as_ref().is_none_or(|(_, have)| *have < n) {
            *scratch = Some((self.alloc_owned(4 * u64::from(n))?, n));
        }
        let (buffer, _) = scratch.as_ref().expect("just made");
        let key = Key {
            family: "clock",
            entry: "burn",
            variant: String::new(),
            inputs: 0,
            wg: WG,
            ndim: 0,
            per: 0,
        };
        let kernel = self.kernel(key, spec)?;
        let out = Binding {
            buffer,
            bytes: 4 * u64::from(n),
            window: 0,
        };
        as_clock(|| self.launch(&kernel, &Params::new(n), &[], out, Work::Items(n)))
    }
}

/// The keep-alive thread of the device `weak` (see [`KeepAlive`]); it ends with the device.
fn spawn_keepalive(weak: Weak<Inner>, k: KeepAlive) {
    let period = Duration::from_millis(u64::from(k.period_ms.max(1)));
    let linger_us = u64::from(k.linger_ms) * 1000;
    let run = move || loop {
        std::thread::sleep(period);
        let Some(inner) = weak.upgrade() else { return };
        let dev = Device { inner };
        if dev.inner.gpu.is_lost() {
            return;
        }
        let busy = dev.inner.clock.idle_us().is_some_and(|i| i <= linger_us);
        if busy {
            let r = as_clock(|| {
                dev.clock_work(k.elements)?;
                let index = dev.flush()?;
                dev.inner.gpu.wait(index)
            });
            if let Err(e) = r {
                log::debug!("gpuarray: keep-alive stopped: {e}");
                return;
            }
        }
    };
    if let Err(e) = std::thread::Builder::new()
        .name("gpuarray keep-alive".into())
        .spawn(run)
    {
        log::debug!("gpuarray: keep-alive thread not started: {e}");
    }
}

#[cfg(test)]
mod tests {
    use crate::config::{ClockBurst, KeepAlive, Options};
    use crate::Device;
    use std::time::Duration;

    fn with(f: impl FnOnce(&mut Options)) -> Device {
        let mut o = Options::default();
        f(&mut o);
        Device::with_options(o).expect("a device")
    }

    /// A burst runs before the first launch after an idle spell, and only then; the
    /// program's results are unchanged.
    #[test]
    fn a_burst_follows_an_idle_spell() {
        let dev = with(|o| {
            o.tuning.clock_burst = Some(ClockBurst {
                idle_ms: 200,
                burst_ms: 5,
                elements: 1 << 12,
            })
        });
        let x = dev.from_slice(&[1.0f32, 2.0, 3.0], [3]).unwrap();
        assert_eq!(
            x.add_scalar(1.0).unwrap().to_vec().unwrap(),
            [2.0, 3.0, 4.0]
        );
        let before = dev.clock_bursts();
        // Launches in quick succession: no burst.
        for _ in 0..5 {
            x.add_scalar(1.0).unwrap();
        }
        assert_eq!(dev.clock_bursts(), before);
        std::thread::sleep(Duration::from_millis(300));
        let t0 = std::time::Instant::now();
        assert_eq!(
            x.mul_scalar(2.0).unwrap().to_vec().unwrap(),
            [2.0, 4.0, 6.0]
        );
        assert_eq!(dev.clock_bursts(), before + 1);
        assert!(t0.elapsed() >= Duration::from_millis(5));
        // Off by default: no burst, no scratch buffer.
        let plain = Device::with_options(Options::default()).unwrap();
        plain.ones::<f32>([4]).unwrap().to_vec().unwrap();
        std::thread::sleep(Duration::from_millis(40));
        plain.ones::<f32>([4]).unwrap().to_vec().unwrap();
        assert_eq!(plain.clock_bursts(), 0);
        assert!(crate::gpu::lock(&plain.inner.clock.scratch).is_none());
    }

    /// Smaller batches: the open batch is submitted every `batch_dispatches` dispatches,
    /// without a sync point; the default submits none before one.
    #[test]
    fn batches_of_a_given_size_are_submitted() {
        let x = |dev: &Device| dev.ones::<f32>([16]).unwrap();
        for (batch, submits) in [(None, 0), (Some(1), 6), (Some(2), 3)] {
            let dev = with(|o| o.tuning.batch_dispatches = batch);
            let a = x(&dev);
            dev.synchronize().unwrap();
            let before = dev.stats().submits;
            let mut y = a.add_scalar(1.0).unwrap();
            for _ in 0..5 {
                y = y.add_scalar(1.0).unwrap();
            }
            assert_eq!(dev.stats().submits - before, submits, "{batch:?}");
            assert_eq!(y.to_vec().unwrap(), [7.0; 16]);
        }
    }

    /// The keep-alive thread dispatches while the program works and stops after the
    /// linger; it ends with the device (no leak of the device through the thread).
    #[test]
    fn the_keepalive_thread_works_while_the_program_does() {
        let dev = with(|o| {
            o.tuning.clock_keepalive = Some(KeepAlive {
                period_ms: 2,
                elements: 1 << 10,
                linger_ms: 500,
            })
        });
        let x = dev.ones::<f32>([8]).unwrap();
        let before = dev.stats().dispatches;
        assert_eq!(x.add_scalar(1.0).unwrap().to_vec().unwrap(), [2.0; 8]);
        // Within the linger the thread dispatches (a few, however loaded the machine).
        let t0 = std::time::Instant::now();
        while dev.stats().dispatches < before + 4 && t0.elapsed() < Duration::from_millis(400) {
            std::thread::sleep(Duration::from_millis(5));
        }
        let during = dev.stats().dispatches;
        assert!(during >= before + 4, "{before} -> {during}");
        // Past the linger it stops.
        std::thread::sleep(Duration::from_millis(800));
        let after = dev.stats().dispatches;
        std::thread::sleep(Duration::from_millis(100));
        assert_eq!(
            dev.stats().dispatches,
            after,
            "still dispatching after the linger"
        );
        let weak = std::sync::Arc::downgrade(&dev.inner);
        drop((x, dev));
        std::thread::sleep(Duration::from_millis(20));
        assert!(
            weak.upgrade().is_none(),
            "the thread keeps the device alive"
        );
    }
}
