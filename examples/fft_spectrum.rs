//! The spectrum of a noisy signal, the classic first FFT exercise: two sines (50 Hz of
//! amplitude 0.7 and 120 Hz of amplitude 1) plus Gaussian noise of standard deviation 2,
//! sampled at 1 kHz, all made on the device; `fft::rfft`, its magnitude (`abs` of the
//! complex spectrum) scaled to the single-sided amplitude `2 |X_k| / N`, and
//! `fft::rfftfreq` for the frequencies.
//!
//! The two highest peaks must lie at 50 Hz and 120 Hz (to one frequency bin) with about
//! their amplitudes (0.7 and 1, to the noise's 0.2), and the GPU's magnitudes at those bins
//! must match a direct DFT on the CPU in f64 (to a relative 1e-3). Plots the first 200
//! samples, clean and noisy, above the spectrum (`fft_spectrum.png`).
//!
//! ```text
//! cargo run --release --example fft_spectrum                             # N = 10^6 samples
//! GPUARRAY_EXAMPLES_QUICK=1 cargo run --release --example fft_spectrum   # N = 2000
//! ```

mod common;

use std::f64::consts::PI;

use common::{out_dir, quick, save_charts, Chart, Res, Series};
use gpuarray::fft::{rfft, rfftfreq, Norm};
use gpuarray::{ComplexOps, Device};

/// Sample rate (Hz).
const FS: f64 = 1000.0;
/// The sines: (frequency in Hz, amplitude).
const TONES: [(f64, f64); 2] = [(50.0, 0.7), (120.0, 1.0)];
/// The noise's standard deviation.
const NOISE: f32 = 2.0;

/// `|sum_j x_j exp(-2 pi i j k / n)|` in f64: one bin of the DFT, directly.
fn dft_bin(x: &[f32], k: usize) -> f64 {
    let n = x.len() as f64;
    let (mut re, mut im) = (0.0f64, 0.0f64);
    for (j, v) in x.iter().enumerate() {
        // The phase reduced exactly (j k mod n) before the float arithmetic.
        let phase = -2.0 * PI * ((j as u128 * k as u128) % x.len() as u128) as f64 / n;
        re += *v as f64 * phase.cos();
        im += *v as f64 * phase.sin();
    }
    re.hypot(im)
}

/// At most `max` points of `(x, y)`: the largest `y` of each block, so that peaks survive.
fn decimate(x: &[f32], y: &[f32], max: usize) -> Vec<(f64, f64)> {
    let block = x.len().div_ceil(max).max(1);
    x.chunks(block)
        .zip(y.chunks(block))
        .map(|(xs, ys)| {
            let (i, v) = ys
                .iter()
                .enumerate()
                .fold(
                    (0, f32::NEG_INFINITY),
                    |m, (i, v)| if *v > m.1 { (i, *v) } else { m },
                );
            (xs[i] as f64, v as f64)
        })
        .collect()
}

fn main() -> Res<()> {
    let dev = Device::new()?;
    println!("adapter: {} ({})", dev.info().name, dev.info().backend);
    let n: usize = if quick() { 2000 } else { 1_000_000 };
    println!(
        "N = {n} samples at {FS} Hz ({} s), frequency bins of {} Hz",
        n as f64 / FS,
        FS / n as f64
    );

    // The signal, on the device: t = j / fs, x = sum a sin(2 pi f t) + noise.
    let t = dev
        .arange::<f32>(0.0, n as f32, 1.0)?
        .mul_scalar((1.0 / FS) as f32)?;
    let mut clean = dev.zeros::<f32>([n])?;
    for (f, a) in TONES {
        let tone = t
            .mul_scalar((2.0 * PI * f) as f32)?
            .sin()?
            .mul_scalar(a as f32)?;
        clean = clean.add(&tone)?;
    }
    let noise = dev.random_normal::<f32>([n], 7)?.mul_scalar(NOISE)?;
    let x = clean.add(&noise)?;

    // The single-sided amplitude spectrum (timed after a first call, which builds the
    // plan and compiles the shaders).
    drop(rfft(&x, None, 0, Norm::Backward)?.abs()?);
    dev.synchronize()?;
    let e0 = dev.record_event()?;
    let spectrum = rfft(&x, None, 0, Norm::Backward)?;
    let amp = spectrum.abs()?.mul_scalar(2.0 / n as f32)?;
    let e1 = dev.record_event()?;
    let freq = rfftfreq::<f32>(&dev, n, 1.0 / FS)?;
    println!(
        "rfft of {n} samples and its magnitude: {:.3} ms",
        e0.elapsed_ms(&e1)?
    );

    // The two highest peaks, at least 5 Hz apart (skipping the DC bin).
    let amp_h = amp.to_vec()?;
    let freq_h = freq.to_vec()?;
    let mut order: Vec<usize> = (1..amp_h.len()).collect();
    order.sort_by(|a, b| amp_h[*b].total_cmp(&amp_h[*a]));
    let bin = FS / n as f64;
    let first = order[0];
    let second = *order
        .iter()
        .find(|k| (freq_h[**k] - freq_h[first]).abs() as f64 > 5.0)
        .ok_or("no second peak")?;
    let mut peaks = [first, second];
    peaks.sort_by(|a, b| freq_h[*a].total_cmp(&freq_h[*b]));
    let x_h = x.to_vec()?;
    let mut notes = Vec::new();
    for (k, (f, a)) in peaks.into_iter().zip(TONES) {
        let (fk, ak) = (freq_h[k] as f64, amp_h[k] as f64);
        let cpu = 2.0 * dft_bin(&x_h, k) / n as f64;
        println!(
            "peak at {fk:.3} Hz, amplitude {ak:.3} (the CPU's DFT: {cpu:.3}); the tone: {f} Hz, {a}"
        );
        if (fk - f).abs() > bin {
            return Err(format!("peak at {fk} Hz, not {f} Hz").into());
        }
        if (ak - a).abs() > 0.2 {
            return Err(format!("the {f} Hz peak's amplitude is {ak}, not about {a}").into());
        }
        if (ak - cpu).abs() > 1e-3 * cpu {
            return Err(format!("the GPU's |X_k| {ak} differs from the CPU's {cpu}").into());
        }
        notes.push((fk + 8.0, ak, format!("{fk:.1} Hz: {ak:.2}")));
    }
    let floor = amp_h.iter().map(|v| *v as f64).sum::<f64>() / amp_h.len() as f64;
    println!("mean amplitude over all bins (the noise floor): {floor:.3}");

    // Plots: the first 200 samples, then the spectrum.
    let shown = n.min(200);
    let t_h = t.to_vec()?;
    let clean_h = clean.to_vec()?;
    let pts = |v: &[f32]| -> Vec<(f64, f64)> {
        t_h[..shown]
            .iter()
            .zip(&v[..shown])
            .map(|(t, y)| (*t as f64 * 1e3, *y as f64))
            .collect()
    };
    let mut signal = Chart::new(
        format!("signal: 0.7 sin(2 pi 50 t) + sin(2 pi 120 t) + noise (sd {NOISE})"),
        "time (ms)",
        "x",
    );
    signal.markers = false;
    signal.series.push(Series::faint("noisy", pts(&x_h)));
    signal.series.push(Series::new("clean", pts(&clean_h)));
    let mut spec = Chart::new(
        format!(
            "single-sided amplitude spectrum, N = {n}, on {}",
            dev.info().name
        ),
        "frequency (Hz)",
        "2 |X(f)| / N",
    );
    spec.markers = false;
    spec.series.push(Series::new(
        "rfft magnitude",
        decimate(&freq_h, &amp_h, 4000),
    ));
    spec.notes = notes;
    save_charts(
        &out_dir()?.join("fft_spectrum.png"),
        &[signal, spec],
        1,
        (900, 380),
    )?;
    Ok(())
}
