//! Work that keeps the GPU's clock up while a program works (issue 34): a burst of heavy
//! work before the first launch after an idle spell ([`ClockBurst`]), a background
//! keep-alive thread ([`KeepAlive`]), and a background thread that tops the GPU's busy time
//! up to a duty cycle while the queue is empty ([`ClockHold`]). All are off by default (the
//! options' docs give their cost); where one is on, every launch of an operation notes the
//! time (`Device::launch` calls [`Device::clock_touch`]), and the work itself is the clock
//! kernels of shaders/clock.wgsl over a scratch buffer the device owns.
//!
//! The clock's own launches are not the program's work: they run with a thread-local flag
//! set, so that they neither count as activity nor burst themselves.

use std::cell::Cell;
use std::sync::atomic::{AtomicBool, AtomicU64, AtomicUsize, Ordering};
use std::sync::{Arc, Mutex, Once, Weak};
use std::time::{Duration, Instant};

use crate::config::{ClockBurst, ClockHold, HoldWork, KeepAlive};
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

/// Set once the process exits (by [`quiesce`], run by the C library's `exit`): the clock's
/// threads start no more work.
static EXITING: AtomicBool = AtomicBool::new(false);
/// Clock threads inside a step that holds a device or has work in flight.
static BUSY: AtomicUsize = AtomicUsize::new(0);
/// Registers [`quiesce`] once.
static AT_EXIT: Once = Once::new();

unsafe extern "C" {
    fn atexit(f: extern "C" fn()) -> std::os::raw::c_int;
}

/// Run by `exit` before the handlers registered earlier (the graphics driver's among them):
/// stops the clock threads from starting work and waits (a second at most) for the steps in
/// progress, so that no thread submits, waits or drops a device while the driver tears down.
extern "C" fn quiesce() {
    EXITING.store(true, Ordering::SeqCst);
    let t0 = Instant::now();
    while BUSY.load(Ordering::SeqCst) > 0 && t0.elapsed() < Duration::from_secs(1) {
        std::thread::sleep(Duration::from_micros(200));
    }
}

/// A clock thread's step in progress (see [`BUSY`]).
struct Step;

impl Step {
    /// Enters a step, or `None` once the process exits (the thread should end).
    fn enter() -> Option<Step> {
        BUSY.fetch_add(1, Ordering::SeqCst);
        if EXITING.load(Ordering::SeqCst) {
            BUSY.fetch_sub(1, Ordering::SeqCst);
            return None;
        }
        Some(Step)
    }
}

impl Drop for Step {
    fn drop(&mut self) {
        BUSY.fetch_sub(1, Ordering::SeqCst);
    }
}

/// Registers [`quiesce`] with the C library, once per process.
fn quiesce_at_exit() {
    AT_EXIT.call_once(|| {
        // SAFETY: `atexit` only records the function pointer; `quiesce` is a plain function
        // that touches two atomics and sleeps, which is sound during `exit`.
        if unsafe { atexit(quiesce) } != 0 {
            log::debug!("gpuarray: the clock threads are not quiesced at exit");
        }
    });
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
    /// Starts the hold thread once.
    hold: Once,
    /// Pieces the hold thread ran, for tests and the probe example.
    pieces: AtomicU64,
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
            hold: Once::new(),
            pieces: AtomicU64::new(0),
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

/// Runs `f` with the thread's clock flag set (its launches are the clock's own, or the
/// device's probes as it opens: they neither count as the program's activity nor start the
/// clock's threads, which would hold the device while `Device::probed` stores its results).
pub(crate) fn as_clock<R>(f: impl FnOnce() -> R) -> R {
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
        let off =
            t.clock_burst.is_none() && t.clock_keepalive.is_none() && t.clock_hold.get().is_none();
        if off || IN_CLOCK.with(Cell::get) {
            return Ok(());
        }
        let c = &self.inner.clock;
        if let Some(k) = t.clock_keepalive {
            let weak = Arc::downgrade(&self.inner);
            c.keepalive.call_once(|| spawn_keepalive(weak, k));
        }
        if let Some(h) = t.clock_hold.get() {
            let weak = Arc::downgrade(&self.inner);
            c.hold.call_once(|| spawn_hold(weak, h));
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

    /// Pieces the hold thread ran on this device (see [`ClockHold`]).
    #[cfg(test)]
    pub(crate) fn clock_pieces(&self) -> u64 {
        self.inner.clock.pieces.load(Ordering::Relaxed)
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
        self.clock_dispatch("burn", n, n, Work::Items(n))
    }

    /// Records one dispatch of the clock kernel's `spin`: one workgroup running a chain of
    /// `256 * rounds` multiply-adds per invocation.
    pub(crate) fn clock_spin(&self, rounds: u32) -> Result<()> {
        self.clock_dispatch("spin", rounds.max(1), WG, Work::Groups([1, 1, 1]))
    }

    /// Records the clock kernel's `entry` with `P.n = n` over the first `elements` f32 of
    /// the scratch buffer (made or grown on first use).
    fn clock_dispatch(&self, entry: &'static str, n: u32, elements: u32, work: Work) -> Result<()> {
        let mut scratch = lock(&self.inner.clock.scratch);
        if scratch.as_ref().is_none_or(|(_, have)| *have < elements) {
            *scratch = Some((self.alloc_owned(4 * u64::from(elements))?, elements));
        }
        let (buffer, _) = scratch.as_ref().expect("just made");
        let key = Key {
            family: "clock",
            entry,
            variant: String::new(),
            inputs: 0,
            wg: WG,
            ndim: 0,
            per: 0,
        };
        let kernel = self.kernel(key, spec)?;
        let out = Binding {
            buffer,
            bytes: 4 * u64::from(elements),
            window: 0,
        };
        as_clock(|| self.launch(&kernel, &Params::new(n), &[], out, work))
    }
}

/// The keep-alive thread of the device `weak` (see [`KeepAlive`]); it ends with the device.
fn spawn_keepalive(weak: Weak<Inner>, k: KeepAlive) {
    let period = Duration::from_millis(u64::from(k.period_ms.max(1)));
    let linger_us = u64::from(k.linger_ms) * 1000;
    quiesce_at_exit();
    let run = move || loop {
        std::thread::sleep(period);
        let Some(_step) = Step::enter() else { return };
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

/// Spin rounds (256 multiply-adds each) and stream elements a hold starts with.
const HOLD_START: (u32, u32) = (64, 1 << 20);
/// Most spin rounds and stream elements of one piece.
const HOLD_MAX: (u32, u32) = (1 << 20, 1 << 26);

/// The hold thread of the device `weak` (see [`ClockHold`]); it ends with the device.
fn spawn_hold(weak: Weak<Inner>, h: ClockHold) {
    quiesce_at_exit();
    let piece = Duration::from_micros(u64::from(h.piece_us.max(1)));
    let linger = Duration::from_millis(u64::from(h.linger_ms));
    let gap = (piece * 4).max(Duration::from_millis(2));
    let duty = h.duty_pct.clamp(1, 90);
    let rest = move |t: Duration| t * (100 - duty) / duty;
    let run = move || {
        let (mut size, max) = match h.work {
            HoldWork::Spin => (HOLD_START.0, HOLD_MAX.0),
            HoldWork::Stream => (HOLD_START.1, HOLD_MAX.1),
        };
        // When the queue was first seen empty, since the program's work last ran on it.
        let mut empty_since: Option<Instant> = None;
        loop {
            let Some(step) = Step::enter() else { return };
            let Some(inner) = weak.upgrade() else { return };
            let dev = Device { inner };
            if dev.inner.gpu.is_lost() {
                return;
            }
            let idle = dev.inner.clock.idle_us().map(Duration::from_micros);
            let Some(idle) = idle.filter(|&i| i <= linger) else {
                drop((dev, step));
                empty_since = None;
                std::thread::sleep(Duration::from_millis(5));
                continue;
            };
            if !dev.inner.gpu.queue_empty() {
                // The program's work keeps the GPU busy: nothing to add.
                drop((dev, step));
                empty_since = None;
                std::thread::sleep(gap / 2);
                continue;
            }
            // Quiet since the queue emptied and the program last launched, whichever is
            // later: fill only gaps longer than `gap` (the clock's own pieces do not count).
            let now = Instant::now();
            let quiet = now
                .saturating_duration_since(*empty_since.get_or_insert(now))
                .min(idle);
            if let Some(wait) = gap.checked_sub(quiet).filter(|w| !w.is_zero()) {
                drop((dev, step));
                std::thread::sleep(wait);
                continue;
            }
            let t0 = Instant::now();
            let r = as_clock(|| {
                match h.work {
                    HoldWork::Spin => dev.clock_spin(size)?,
                    HoldWork::Stream => dev.clock_work(size)?,
                }
                let index = dev.flush()?;
                dev.inner.gpu.wait(index)
            });
            let took = t0.elapsed();
            if r.is_ok() {
                dev.inner.clock.pieces.fetch_add(1, Ordering::Relaxed);
            }
            drop((dev, step));
            if let Err(e) = r {
                log::debug!("gpuarray: clock hold stopped: {e}");
                return;
            }
            // Size the next piece toward `piece` (the clock changes what a size takes).
            if took < piece / 2 {
                size = size.saturating_mul(2).min(max);
            } else if took > piece * 2 {
                size = (size / 2).max(1);
            }
            std::thread::sleep(rest(took));
        }
    };
    if let Err(e) = std::thread::Builder::new()
        .name("gpuarray clock hold".into())
        .spawn(run)
    {
        log::debug!("gpuarray: clock hold thread not started: {e}");
    }
}

#[cfg(test)]
mod tests {
    use crate::config::{ClockBurst, ClockHold, HoldSetting, HoldWork, KeepAlive, Options};
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

    /// The hold thread runs pieces while the program works (both kinds of work), stops
    /// after the linger, leaves the program's results alone, and ends with the device.
    #[test]
    fn the_hold_thread_tops_up_while_the_program_works() {
        for work in [HoldWork::Spin, HoldWork::Stream] {
            let dev = with(|o| {
                o.tuning.clock_hold = HoldSetting::On(ClockHold {
                    duty_pct: 50,
                    linger_ms: 300,
                    piece_us: 200,
                    work,
                })
            });
            let x = dev.from_slice(&[1.0f32, -2.0, 3.5], [3]).unwrap();
            assert_eq!(
                x.mul_scalar(2.0).unwrap().to_vec().unwrap(),
                [2.0, -4.0, 7.0]
            );
            let t0 = std::time::Instant::now();
            while dev.clock_pieces() < 3 && t0.elapsed() < Duration::from_millis(280) {
                std::thread::sleep(Duration::from_millis(5));
            }
            assert!(
                dev.clock_pieces() >= 1,
                "{work:?}: no piece within the linger"
            );
            // The program's work between pieces is unaffected.
            let y = x.add_scalar(0.5).unwrap();
            assert_eq!(y.to_vec().unwrap(), [1.5, -1.5, 4.0]);
            std::thread::sleep(Duration::from_millis(700));
            let after = dev.clock_pieces();
            std::thread::sleep(Duration::from_millis(100));
            assert_eq!(
                dev.clock_pieces(),
                after,
                "{work:?}: pieces after the linger"
            );
            let weak = std::sync::Arc::downgrade(&dev.inner);
            drop((x, y, dev));
            std::thread::sleep(Duration::from_millis(30));
            assert!(
                weak.upgrade().is_none(),
                "the hold thread keeps the device alive"
            );
        }
    }

    /// The probes of a device that opens with a hold are not the program's work: the hold
    /// thread does not start during them, so their results reach the device's info.
    #[test]
    fn the_probes_do_not_start_the_hold() {
        for _ in 0..3 {
            let dev = with(|o| {
                o.tuning.clock_hold = HoldSetting::On(ClockHold {
                    duty_pct: 90,
                    linger_ms: 1000,
                    piece_us: 50,
                    work: HoldWork::Spin,
                })
            });
            assert!(dev.info().flushes_subnormals.f32.is_some());
            assert_eq!(dev.clock_pieces(), 0);
            assert_eq!(dev.stats().dispatches, 0);
        }
    }
}
