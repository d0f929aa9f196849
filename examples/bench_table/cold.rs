//! `--cold` (see the module docs of `main.rs`): the cold time of each device-side row, kept
//! beside its warm time, and the cold table of `--compare`.

use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::Mutex;
use std::time::{Duration, Instant};

use gpuarray::Device;

use crate::{median, ms, Res, Row};

/// Cold mode (`--cold`): rounds per row, the host pause before each, warm-up calls after it.
pub const COLD_ROUNDS: usize = 3;
const COLD_PAUSE_MS: u64 = 200;
const COLD_WARMUP: usize = 3;

/// Whether `--cold` was given.
pub static COLD: AtomicBool = AtomicBool::new(false);
/// The cold times measured, by the bits of the warm time of the same measurement (the
/// rows carry the warm time: [`cold_of`] finds a row's cold time by it).
static COLD_TIMES: Mutex<Vec<(u64, f64)>> = Mutex::new(Vec::new());

/// Whether `--cold` was given.
pub fn cold() -> bool {
    COLD.load(Ordering::Relaxed)
}

/// The cold time of `op` (see the module's `--cold`): the median over [`COLD_ROUNDS`] of a
/// host pause, [`COLD_WARMUP`] calls each waited for, then `calls` calls timed with one
/// wait, per call.
pub fn cold_time<R>(
    dev: &Device,
    calls: usize,
    mut op: impl FnMut() -> gpuarray::Result<R>,
) -> Res<f64> {
    let mut rounds = Vec::with_capacity(COLD_ROUNDS);
    for _ in 0..COLD_ROUNDS {
        std::thread::sleep(Duration::from_millis(COLD_PAUSE_MS));
        for _ in 0..COLD_WARMUP {
            drop(op()?);
            dev.synchronize()?;
        }
        let t0 = Instant::now();
        for _ in 0..calls {
            drop(op()?);
        }
        dev.synchronize()?;
        rounds.push(ms(t0.elapsed()) / calls as f64);
    }
    Ok(median(rounds))
}

/// Keeps `cold` as the cold time of the row whose warm time is `warm`.
pub fn record_cold(warm: f64, cold: f64) {
    COLD_TIMES
        .lock()
        .unwrap_or_else(|e| e.into_inner())
        .push((warm.to_bits(), cold));
}

/// The cold time measured with the warm time `warm`, if any.
pub fn cold_of(warm: f64) -> Option<f64> {
    let times = COLD_TIMES.lock().unwrap_or_else(|e| e.into_inner());
    times
        .iter()
        .rev()
        .find(|(w, _)| *w == warm.to_bits())
        .map(|(_, c)| *c)
}

/// The cold table of `--compare` (rows with a cold time on both sides): warm and cold
/// ratios, cold over warm time, and the geometric means.
pub fn compare_cold(rows: &[Row], peer: &[(String, f64)], warm_ratios: Vec<f64>) {
    let lookup = |name: &str| {
        peer.iter()
            .find(|(n, _)| n == name)
            .map(|(_, v)| *v)
            .filter(|v| v.is_finite())
    };
    let cold: Vec<(&Row, f64, f64, f64)> = rows
        .iter()
        .filter_map(|r| {
            let c = cold_of(r.ms)?;
            let pc = lookup(&format!("{}:cold", r.name))?;
            let pw = lookup(&r.name)?;
            Some((r, c, pc, pw))
        })
        .collect();
    if cold.is_empty() {
        return;
    }
    println!();
    println!("cold (after a {COLD_PAUSE_MS} ms host pause and {COLD_WARMUP} warm-up calls, median of {COLD_ROUNDS} rounds)");
    println!(
        "{:<28} | {:>10} | {:>10} | {:>9} | {:>10} | {:>6} | {:>6}",
        "case", "warm ms", "cold ms", "cold/warm", "CuPy cold", "warm r", "cold r"
    );
    let mut logs = (0.0, 0.0);
    for (r, c, pc, pw) in &cold {
        let (wr, cr) = (pw / r.ms, pc / c);
        logs.0 += wr.ln();
        logs.1 += cr.ln();
        println!(
            "{:<28} | {:10.4} | {c:10.4} | {:9.2} | {pc:10.4} | {wr:6.2} | {cr:6.2}",
            r.name,
            r.ms,
            c / r.ms
        );
    }
    let k = cold.len() as f64;
    let (gw, gc) = ((logs.0 / k).exp(), (logs.1 / k).exp());
    println!(
        "geometric mean ratio over {} rows: warm {gw:.2}, cold {gc:.2} (cold/warm {:.2}; {} warm rows in all)",
        cold.len(),
        gc / gw,
        warm_ratios.len()
    );
}
