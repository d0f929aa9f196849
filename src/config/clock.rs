//! The knobs of issue 34 in [`Tuning`](super::Tuning): whether and how choices are timed
//! ([`Trial`]), and the mechanisms that may keep a GPU's clock up while a program works
//! ([`ClockBurst`], [`KeepAlive`]); all off by default until they are measured on the H200.

use crate::error::Result;

use super::invalid;

/// How the choices the library makes by timing (the matrix-product tile trial) are made.
///
/// ```
/// use gpuarray::config::{Options, Trial};
/// let mut opts = Options::default();
/// opts.tuning.trial = Trial::Cached; // never time: the disk's choices, else the defaults
/// let dev = gpuarray::Device::with_options(opts)?;
/// let a = dev.ones::<f32>([64, 64])?;
/// assert_eq!(a.matmul(&a)?.to_vec()?[0], 64.0);
/// # Ok::<(), gpuarray::Error>(())
/// ```
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Default)]
#[non_exhaustive]
pub enum Trial {
    /// The choice of this process, else the one kept on disk for this adapter and driver
    /// (beside the pipeline cache: `Options::pipeline_cache`), else a trial on first use,
    /// whose choice is written there (`GPUARRAY_TRIAL=run`).
    #[default]
    Run,
    /// The choices kept on disk, else the default table of the adapter's kind; never a
    /// trial (`GPUARRAY_TRIAL=cached`): no timing in the program, every process alike.
    Cached,
    /// The default table of the adapter's kind only; the disk is neither read nor written
    /// (`GPUARRAY_TRIAL=off`).
    Off,
}

impl Trial {
    /// Parses `run`, `cached` or `off` (any case), as `GPUARRAY_TRIAL` gives it.
    ///
    /// # Errors
    /// [`Error::InvalidOption`](crate::Error::InvalidOption) for any other text.
    ///
    /// ```
    /// use gpuarray::config::Trial;
    /// assert_eq!(Trial::parse("Cached")?, Trial::Cached);
    /// assert!(Trial::parse("sometimes").is_err());
    /// # Ok::<(), gpuarray::Error>(())
    /// ```
    pub fn parse(s: &str) -> Result<Trial> {
        match s.trim().to_lowercase().as_str() {
            "run" | "on" | "1" => Ok(Trial::Run),
            "cached" | "cache" | "only-cache" => Ok(Trial::Cached),
            "off" | "0" => Ok(Trial::Off),
            _ => Err(invalid("GPUARRAY_TRIAL", s, "run, cached or off")),
        }
    }
}

/// A burst of heavy work when an operation finds the device idle: before the first launch
/// after more than `idle_ms` without one, the device runs the clock kernel (a streaming
/// update of `elements` f32 of its own, 8 bytes an element) again and again for `burst_ms`
/// of wall time, waiting for it, then the operation.
///
/// Cost: up to `burst_ms` of host time and of full GPU power after every pause longer than
/// `idle_ms`, and a scratch buffer of `4 * elements` bytes held by the device. The issue's
/// measurement on the H200 (through Vulkan): 100 ms of 64M-element additions after each
/// 300 ms pause kept the clock at 1980 MHz; 20 ms did not.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub struct ClockBurst {
    /// Milliseconds without a launch after which the next launch bursts first.
    pub idle_ms: u32,
    /// Wall milliseconds the burst lasts.
    pub burst_ms: u32,
    /// Elements of the clock kernel's buffer (clamped to the adapter's binding limit).
    pub elements: u32,
}

impl ClockBurst {
    /// Parses `IDLE_MS:BURST_MS[:ELEMENTS]` (elements 16M where not given), as
    /// `GPUARRAY_CLOCK_BURST` gives it.
    ///
    /// # Errors
    /// [`Error::InvalidOption`](crate::Error::InvalidOption) unless two or three whole
    /// numbers, the burst and the elements not zero.
    ///
    /// ```
    /// use gpuarray::config::ClockBurst;
    /// let b = ClockBurst::parse("50:100")?;
    /// assert_eq!((b.idle_ms, b.burst_ms, b.elements), (50, 100, 1 << 24));
    /// assert!(ClockBurst::parse("50").is_err());
    /// # Ok::<(), gpuarray::Error>(())
    /// ```
    pub fn parse(s: &str) -> Result<ClockBurst> {
        let n = numbers(s, 2, "GPUARRAY_CLOCK_BURST", "IDLE_MS:BURST_MS[:ELEMENTS]")?;
        Ok(ClockBurst {
            idle_ms: n[0],
            burst_ms: n[1],
            elements: n.get(2).copied().unwrap_or(DEFAULT_ELEMENTS),
        })
    }
}

/// A background thread that keeps the GPU busy while the program works: every `period_ms`
/// it submits one dispatch of the clock kernel over `elements` f32 (and waits for it, on
/// its own thread), as long as an operation was launched in the last `linger_ms`; after
/// that it only sleeps. The thread ends with the device.
///
/// Cost: while the program works (and `linger_ms` after), `elements * 8` bytes of memory
/// traffic every `period_ms` (16M elements every 2 ms: 64 GB/s, a few percent of an H200's
/// bandwidth), the GPU's power at its raised clock instead of idle, a thread that wakes
/// every `period_ms`, and a scratch buffer of `4 * elements` bytes. The issue's measurement:
/// a tiny dispatch every 2 ms did not hold the H200's clock through Vulkan; larger work is
/// what this knob is for measuring.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub struct KeepAlive {
    /// Milliseconds between dispatches.
    pub period_ms: u32,
    /// Elements of each dispatch (clamped to the adapter's binding limit).
    pub elements: u32,
    /// Milliseconds after the last launch during which the thread keeps dispatching.
    pub linger_ms: u32,
}

impl KeepAlive {
    /// Parses `PERIOD_MS:ELEMENTS:LINGER_MS`, as `GPUARRAY_CLOCK_KEEPALIVE` gives it.
    ///
    /// # Errors
    /// [`Error::InvalidOption`](crate::Error::InvalidOption) unless three whole numbers,
    /// the period and the elements not zero.
    ///
    /// ```
    /// use gpuarray::config::KeepAlive;
    /// let k = KeepAlive::parse("2:16777216:1000")?;
    /// assert_eq!((k.period_ms, k.elements, k.linger_ms), (2, 1 << 24, 1000));
    /// assert!(KeepAlive::parse("0:1:1").is_err());
    /// # Ok::<(), gpuarray::Error>(())
    /// ```
    pub fn parse(s: &str) -> Result<KeepAlive> {
        let what = "PERIOD_MS:ELEMENTS:LINGER_MS";
        let n = numbers(s, 3, "GPUARRAY_CLOCK_KEEPALIVE", what)?;
        if n.len() != 3 || n[0] == 0 {
            return Err(invalid("GPUARRAY_CLOCK_KEEPALIVE", s, what));
        }
        Ok(KeepAlive {
            period_ms: n[0],
            elements: n[1],
            linger_ms: n[2],
        })
    }
}

/// A background thread that tops the GPU's busy time up to `duty_pct` percent of wall time
/// while the program works: whenever the device's queue is empty, the program's last
/// launch is more than a gap (2 ms, or four pieces where longer) and less than `linger_ms`
/// ago, and the queue has stayed empty for the gap, it runs one piece of clock work of about `piece_us` on the GPU (waiting for it on
/// its own thread), then sleeps for the piece's time times `(100 - duty_pct) / duty_pct`.
/// It never queues work behind the program's: while the program's work is in flight it
/// only sleeps, so a program that keeps the GPU busy itself gets no extra work, and a
/// program that launches again within the gap (a loop of small synchronous calls) gets
/// none either. After the linger it only sleeps; the thread ends with the device.
///
/// The piece is [`HoldWork::Spin`] (one workgroup running a chain of multiply-adds: busy
/// time at one multiprocessor's power, no memory traffic) or [`HoldWork::Stream`] (a
/// streaming update of a scratch buffer); its size follows the measured time of the last
/// piece (it is a load, not a choice of the library's: nothing else depends on it).
///
/// Cost: during the program's host pauses (from the gap to `linger_ms`), up to `duty_pct`
/// percent of the GPU's time (with `Spin`, of one multiprocessor) and the power of the
/// raised clock; a program's launch that finds a piece running waits for it (at most about
/// `piece_us`); a thread that wakes every few milliseconds.
///
/// ```
/// use gpuarray::config::{ClockHold, HoldWork};
/// let h = ClockHold::parse("40:1000")?;
/// assert_eq!((h.duty_pct, h.linger_ms, h.piece_us, h.work), (40, 1000, 250, HoldWork::Spin));
/// let s = ClockHold::parse("30:500:200:stream")?;
/// assert_eq!((s.piece_us, s.work), (200, HoldWork::Stream));
/// assert!(ClockHold::parse("95:1000").is_err()); // duty 1 to 90 percent
/// # Ok::<(), gpuarray::Error>(())
/// ```
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub struct ClockHold {
    /// Percent of wall time (1 to 90) the GPU is kept busy while the program works.
    pub duty_pct: u32,
    /// Milliseconds after the last launch during which the thread keeps the GPU busy.
    pub linger_ms: u32,
    /// Microseconds of GPU time one piece aims at.
    pub piece_us: u32,
    /// What a piece runs.
    pub work: HoldWork,
}

/// Whether a device runs a [`ClockHold`] thread: `Auto` (the default) resolves when the
/// device opens, to [`ClockHold::DEFAULT`] on NVIDIA's discrete GPUs, whose driver lowers the
/// clock under Vulkan work with host pauses (issue 34: 2-5x slower after a 300 ms pause on
/// the H200), and to `Off` elsewhere (CPU adapters such as lavapipe, integrated GPUs, other
/// vendors, where it was not measured); `GPUARRAY_CLOCK_HOLD=auto|off|DUTY_PCT:...`.
///
/// ```
/// use gpuarray::config::{ClockHold, HoldSetting};
/// assert_eq!(HoldSetting::parse("off")?, HoldSetting::Off);
/// assert_eq!(HoldSetting::parse("60:1000:1000")?, HoldSetting::On(ClockHold::DEFAULT));
/// // lavapipe is a CPU adapter: auto resolves to off there.
/// let dev = gpuarray::Device::new()?;
/// if dev.info().kind == gpuarray::DeviceKind::Cpu {
///     assert_eq!(dev.options().tuning.clock_hold, HoldSetting::Off);
/// }
/// # Ok::<(), gpuarray::Error>(())
/// ```
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Default)]
pub enum HoldSetting {
    /// Decided by the adapter when the device opens (see the type's docs).
    #[default]
    Auto,
    /// No hold thread.
    Off,
    /// A hold thread with these settings.
    On(ClockHold),
}

impl HoldSetting {
    /// Parses `auto`, `off` (any case) or [`ClockHold::parse`]'s text.
    ///
    /// # Errors
    /// Those of [`ClockHold::parse`].
    ///
    /// ```
    /// use gpuarray::config::HoldSetting;
    /// assert_eq!(HoldSetting::parse("Auto")?, HoldSetting::Auto);
    /// assert!(HoldSetting::parse("sometimes").is_err());
    /// # Ok::<(), gpuarray::Error>(())
    /// ```
    pub fn parse(s: &str) -> Result<HoldSetting> {
        match s.trim().to_ascii_lowercase().as_str() {
            "auto" => Ok(HoldSetting::Auto),
            "off" => Ok(HoldSetting::Off),
            _ => ClockHold::parse(s).map(HoldSetting::On),
        }
    }

    /// The hold in force (`None` for `Off`, and for `Auto` before a device resolves it).
    pub fn get(self) -> Option<ClockHold> {
        match self {
            HoldSetting::On(h) => Some(h),
            _ => None,
        }
    }
}

/// The work of [`ClockHold`]'s pieces.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
#[non_exhaustive]
pub enum HoldWork {
    /// One workgroup running a dependent chain of multiply-adds.
    Spin,
    /// A streaming update of a scratch buffer over all multiprocessors.
    Stream,
}

impl ClockHold {
    /// The hold `Auto` turns on: 60 percent, a linger of one second, pieces of 1 ms of one
    /// spinning workgroup. On the H200 through Vulkan (2026-11-29, `examples/clock_probe`: 300
    /// ms pauses, 3 warm-up calls, 5 timed calls of a transposed add, a 64M `pow` and a 2000^3
    /// product) it kept the last rounds at their warm times (0.27 / 0.55-0.58 / 0.59-0.60 ms),
    /// where without a hold the clock fell to 345 MHz and they took 1.2 / 3.0 / 3.2 ms; at 40
    /// percent (pieces of 250 us) the clock still fell, to 870-1230 MHz (up to 2.4x slower).
    pub const DEFAULT: ClockHold = ClockHold {
        duty_pct: 60,
        linger_ms: 1000,
        piece_us: 1000,
        work: HoldWork::Spin,
    };

    /// Parses `DUTY_PCT:LINGER_MS[:PIECE_US[:spin|stream]]` (piece 250 us and `spin` where
    /// not given), as `GPUARRAY_CLOCK_HOLD` gives it.
    ///
    /// # Errors
    /// [`Error::InvalidOption`](crate::Error::InvalidOption) unless two or three whole
    /// numbers and an optional work name, the duty 1 to 90, the linger and the piece not
    /// zero.
    ///
    /// ```
    /// use gpuarray::config::ClockHold;
    /// assert_eq!(ClockHold::parse("25:2000:1000")?.piece_us, 1000);
    /// assert!(ClockHold::parse("25:2000:1000:walk").is_err());
    /// # Ok::<(), gpuarray::Error>(())
    /// ```
    pub fn parse(s: &str) -> Result<ClockHold> {
        let name = "GPUARRAY_CLOCK_HOLD";
        let what = "DUTY_PCT:LINGER_MS[:PIECE_US[:spin|stream]]";
        let mut parts: Vec<&str> = s.split(':').collect();
        let work = match parts.last().map(|w| w.trim().to_ascii_lowercase()) {
            Some(w) if w == "spin" => Some(HoldWork::Spin),
            Some(w) if w == "stream" => Some(HoldWork::Stream),
            _ => None,
        };
        if work.is_some() {
            parts.pop();
        }
        let n = numbers(&parts.join(":"), 2, name, what)?;
        if !(1..=90).contains(&n[0]) || (work.is_some() && n.len() != 3) {
            return Err(invalid(name, s, what));
        }
        Ok(ClockHold {
            duty_pct: n[0],
            linger_ms: n[1],
            piece_us: n.get(2).copied().unwrap_or(250),
            work: work.unwrap_or(HoldWork::Spin),
        })
    }
}

/// Elements of a burst's dispatches where `GPUARRAY_CLOCK_BURST` does not say.
const DEFAULT_ELEMENTS: u32 = 1 << 24;

/// `min..=3` colon-separated whole numbers of `s`, the second and third not zero.
fn numbers(s: &str, min: usize, name: &'static str, what: &'static str) -> Result<Vec<u32>> {
    let n: Option<Vec<u32>> = s.split(':').map(|x| x.trim().parse().ok()).collect();
    match n {
        Some(n) if (min..=3).contains(&n.len()) && n[1..].iter().all(|&v| v > 0) => Ok(n),
        _ => Err(invalid(name, s, what)),
    }
}
