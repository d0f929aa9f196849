//! FIR low-pass filtering with `signal::convolve` on the GPU: a noisy 1-D signal (two slow
//! sines, a 120 Hz hum and white noise, sampled at 1 kHz) through a 201-tap windowed-sinc
//! low-pass filter (20 Hz cut-off, Hamming window). Prints the error against the clean
//! signal before and after, and plots both (`signal_filter.png`).
//!
//! ```text
//! cargo run --release --example signal_filter
//! GPUARRAY_EXAMPLES_QUICK=1 cargo run --release --example signal_filter   # 8,192 samples
//! ```

mod common;

use std::f64::consts::PI;

use common::{out_dir, quick, save_charts, si, Chart, Res, Series};
use gpuarray::signal::{convolve, Mode};
use gpuarray::Device;

/// Sampling rate (Hz).
const FS: f64 = 1000.0;
/// Filter taps (odd, so the filter is centred) and cut-off (Hz).
const TAPS: usize = 201;
const CUTOFF: f64 = 20.0;

/// The wanted signal at time `t` (s).
fn clean(t: f64) -> f64 {
    (2.0 * PI * 3.0 * t).sin() + 0.5 * (2.0 * PI * 7.0 * t + 0.5).sin()
}

/// Windowed-sinc low-pass taps (Hamming window), summing to 1.
fn lowpass() -> Vec<f32> {
    let fc = CUTOFF / FS;
    let m = (TAPS - 1) as f64;
    let h: Vec<f64> = (0..TAPS)
        .map(|i| {
            let k = i as f64 - m / 2.0;
            let sinc = if k == 0.0 {
                2.0 * fc
            } else {
                (2.0 * PI * fc * k).sin() / (PI * k)
            };
            sinc * (0.54 - 0.46 * (2.0 * PI * i as f64 / m).cos())
        })
        .collect();
    let total: f64 = h.iter().sum();
    h.iter().map(|v| (v / total) as f32).collect()
}

/// Standard normal samples (xorshift and Box-Muller), deterministic.
fn normals(n: usize, mut state: u64) -> Vec<f64> {
    let mut uniform = move || {
        state ^= state << 13;
        state ^= state >> 7;
        state ^= state << 17;
        (state >> 11) as f64 / (1u64 << 53) as f64
    };
    (0..n)
        .map(|_| {
            let (u1, u2) = (uniform().max(1e-300), uniform());
            (-2.0 * u1.ln()).sqrt() * (2.0 * PI * u2).cos()
        })
        .collect()
}

fn rms(a: &[f32], b: &[f64]) -> f64 {
    let s: f64 = a.iter().zip(b).map(|(x, y)| (*x as f64 - y).powi(2)).sum();
    (s / a.len() as f64).sqrt()
}

fn main() -> Res<()> {
    let dev = Device::new()?;
    println!("adapter: {} ({})", dev.info().name, dev.info().backend);
    let n: usize = if quick() { 8192 } else { 1 << 24 };
    let noise = normals(n, 0x9e37_79b9_7f4a_7c15);
    let truth: Vec<f64> = (0..n).map(|i| clean(i as f64 / FS)).collect();
    let noisy: Vec<f32> = (0..n)
        .map(|i| {
            let t = i as f64 / FS;
            (truth[i] + 0.3 * (2.0 * PI * 120.0 * t).sin() + 0.4 * noise[i]) as f32
        })
        .collect();

    let x = dev.from_slice(&noisy, [n])?;
    let h = dev.from_slice(&lowpass(), [TAPS])?;
    let _ = convolve(&x, &h, Mode::Same)?; // warm-up: compiles the kernel
    dev.synchronize()?;
    let t0 = dev.record_event()?;
    let y = convolve(&x, &h, Mode::Same)?;
    let t1 = dev.record_event()?;
    let filtered = y.to_vec()?;
    let ms = t0.elapsed_ms(&t1)?;
    println!(
        "{} samples through {TAPS} taps: {ms:.3} ms ({:.1} GMAC/s)",
        si(n as f64),
        (n * TAPS) as f64 / (ms * 1e-3) / 1e9
    );

    // Away from the ends, where the filter runs off the data.
    let inner = TAPS..n - TAPS;
    let before = rms(&noisy[inner.clone()], &truth[inner.clone()]);
    let after = rms(&filtered[inner.clone()], &truth[inner]);
    println!(
        "RMS error against the clean signal: {before:.4} before, {after:.4} after ({:.1} dB better)",
        20.0 * (before / after).log10()
    );
    if after >= before / 3.0 {
        return Err("the filter did not remove most of the noise".into());
    }

    // Plot the first second (or all of a short signal).
    let shown = n.min(FS as usize);
    let pts = |v: &dyn Fn(usize) -> f64| (0..shown).map(|i| (i as f64 / FS, v(i))).collect();
    let mut top = Chart::new(
        format!("before: clean signal + 120 Hz hum + white noise (fs = {FS} Hz)"),
        "time (s)",
        "amplitude (arbitrary units)",
    );
    top.markers = false;
    top.series
        .push(Series::faint("noisy input", pts(&|i| noisy[i] as f64)));
    top.series
        .push(Series::new("clean signal", pts(&|i| truth[i])));
    let mut bottom = Chart::new(
        format!("after: {TAPS}-tap FIR low-pass, {CUTOFF} Hz cut-off, convolve on the GPU"),
        "time (s)",
        "amplitude (arbitrary units)",
    );
    bottom.markers = false;
    bottom
        .series
        .push(Series::new("clean signal", pts(&|i| truth[i])));
    bottom
        .series
        .push(Series::new("filtered", pts(&|i| filtered[i] as f64)));
    save_charts(
        &out_dir()?.join("signal_filter.png"),
        &[top, bottom],
        1,
        (900, 340),
    )?;
    Ok(())
}
