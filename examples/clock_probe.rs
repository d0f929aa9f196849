//! The pattern of issue 34 that leaves the GPU's clock low, timed under the clock knobs of
//! the environment, for measuring them beside the clock itself:
//!
//! ```text
//! nvidia-smi --query-gpu=timestamp,clocks.sm --format=csv -lms 100 > clocks.csv &
//! GPUARRAY_CLOCK_BURST=200:100 cargo run --release --example clock_probe
//! GPUARRAY_CLOCK_KEEPALIVE=2:16777216:1000 cargo run --release --example clock_probe
//! GPUARRAY_CLOCK_HOLD=40:1000 cargo run --release --example clock_probe
//! GPUARRAY_BATCH_DISPATCHES=1 GPUARRAY_SPIN_US=1000000 cargo run --release --example clock_probe
//! GPUARRAY_EXAMPLES_QUICK=1 cargo run --example clock_probe     # small sizes (CI)
//! ```
//!
//! Each round runs every workload as a program that prepares its data on the host would:
//! a host pause (300 ms; `CLOCK_PROBE_PAUSE_MS`), 3 warm-up calls (each waited for), then
//! 5 timed calls, each waited for; over `CLOCK_PROBE_ROUNDS` rounds (default 5). The
//! workloads: a transposed addition of 64M f32 (`a.t() + b`, 8192 x 8192), f32 `pow` of 64M
//! elements, and a 2000^3 f32 product. Each timed call prints its time and the seconds since
//! the start (to line up with the clock samples); each round prints the median per workload,
//! and the end compares the cold medians with the warm time of each workload (calls back to
//! back for about a second, after the rounds) and prints the knobs in force.
//!
//! The knobs (`Options::tuning`, read from the environment by `Device::new`):
//! `GPUARRAY_CLOCK_BURST=IDLE_MS:BURST_MS[:ELEMENTS]`,
//! `GPUARRAY_CLOCK_KEEPALIVE=PERIOD_MS:ELEMENTS:LINGER_MS`,
//! `GPUARRAY_CLOCK_HOLD=DUTY_PCT:LINGER_MS[:PIECE_US[:spin|stream]]`, `GPUARRAY_BATCH_DISPATCHES=N`,
//! and the wait's spin (`GPUARRAY_SPIN_US`: a large value polls instead of blocking).

mod common;

use std::time::{Duration, Instant};

use common::{quick, Res};
use gpuarray::{Array, Device};

/// Warm-up calls after each pause, and timed calls after them.
const WARMUP: usize = 3;
const TIMED: usize = 5;

/// A number from the environment, else `default`.
fn env_num(name: &str, default: u64) -> Res<u64> {
    match std::env::var(name) {
        Ok(v) if !v.is_empty() => Ok(v
            .trim()
            .parse()
            .map_err(|_| format!("{name}={v:?}: not a number"))?),
        _ => Ok(default),
    }
}

/// One workload: a name and a call that records its work (waited for by the caller).
struct Workload<'a> {
    name: String,
    call: Box<dyn Fn() -> gpuarray::Result<Array<f32>> + 'a>,
}

fn median(mut t: Vec<f64>) -> f64 {
    t.sort_by(f64::total_cmp);
    let n = t.len();
    if n % 2 == 1 {
        t[n / 2]
    } else {
        (t[n / 2 - 1] + t[n / 2]) / 2.0
    }
}

/// Milliseconds of one call of `w`, waited for.
fn once(dev: &Device, w: &Workload<'_>) -> Res<f64> {
    let t0 = Instant::now();
    drop((w.call)()?);
    dev.synchronize()?;
    Ok(t0.elapsed().as_secs_f64() * 1e3)
}

fn main() -> Res<()> {
    let q = quick();
    let pause = Duration::from_millis(env_num("CLOCK_PROBE_PAUSE_MS", 300)?);
    let rounds = env_num("CLOCK_PROBE_ROUNDS", if q { 2 } else { 5 })? as usize;
    let dev = Device::new()?;
    let t = &dev.options().tuning;
    println!(
        "clock_probe on {} ({}); burst {:?}, keep-alive {:?}, hold {:?}, batch {:?} dispatches, spin {:?}; pause {pause:?}, {rounds} rounds",
        dev.info().name,
        dev.info().backend,
        t.clock_burst,
        t.clock_keepalive,
        t.clock_hold,
        t.batch_dispatches,
        dev.options().spin
    );
    let side = if q { 1024 } else { 8192 };
    let n = side * side;
    let k = if q { 256 } else { 2000 };
    let a = dev.random_uniform_in::<f32>([side, side], 0.5, 1.5, 1)?;
    let b = dev.random_uniform_in::<f32>([side, side], 0.5, 1.5, 2)?;
    let x = dev.random_uniform_in::<f32>([n], 0.5, 1.5, 3)?;
    let y = dev.random_uniform_in::<f32>([n], 0.5, 1.5, 4)?;
    let p = dev.random_uniform_in::<f32>([k, k], -1.0, 1.0, 5)?;
    let r = dev.random_uniform_in::<f32>([k, k], -1.0, 1.0, 6)?;
    let work = [
        Workload {
            name: format!("add_transposed_{side}sq_f32"),
            call: Box::new(|| a.t().add(&b)),
        },
        Workload {
            name: format!("pow_f32_{n}"),
            call: Box::new(|| x.pow(&y)),
        },
        Workload {
            name: format!("matmul_f32_{k}"),
            call: Box::new(|| p.matmul(&r)),
        },
    ];
    // Compile every kernel (and run the tile trial, or take its choice from disk) first.
    for w in &work {
        once(&dev, w)?;
    }
    let start = Instant::now();
    let mut cold: Vec<Vec<f64>> = vec![Vec::new(); work.len()];
    for round in 0..rounds {
        for (i, w) in work.iter().enumerate() {
            std::thread::sleep(pause);
            for _ in 0..WARMUP {
                once(&dev, w)?;
            }
            let mut times = Vec::with_capacity(TIMED);
            for _ in 0..TIMED {
                let ms = once(&dev, w)?;
                println!(
                    "round {round} {:<28} t={:8.3} s {ms:9.3} ms",
                    w.name,
                    start.elapsed().as_secs_f64()
                );
                times.push(ms);
            }
            let m = median(times);
            println!("round {round} {:<28} median {m:9.3} ms", w.name);
            cold[i].push(m);
        }
    }
    println!();
    println!(
        "{:<28} {:>10} {:>10} {:>9}",
        "workload", "cold ms", "warm ms", "cold/warm"
    );
    for (w, c) in work.iter().zip(cold) {
        // Warm: back to back for about a second (at least 10 calls), the median of the last
        // half.
        let t0 = Instant::now();
        let mut times = Vec::new();
        while times.len() < 10 || t0.elapsed() < Duration::from_millis(if q { 100 } else { 1000 }) {
            times.push(once(&dev, w)?);
        }
        let warm = median(times.split_off(times.len() / 2));
        let c = median(c);
        println!("{:<28} {c:10.3} {warm:10.3} {:9.2}", w.name, c / warm);
    }
    Ok(())
}
