//! Times `gpuarray::fft` on the shapes of the fft sweep with GPU timestamps (events around
//! 20 calls after 3 warm-ups), beside the wall time of the same calls and a copy of the
//! same bytes: for measuring the kernels on a device, with the switches of
//! src/fft/tune.rs (`GPUARRAY_FFT_M`, `_WG`, `_PAD`, `_TWSIN`, `_PROFILE`, `_RUN`, `_ORDER`)
//! set around it. Shapes: batches of rows (b64 .. b1009), long columns (col1024), single
//! transforms of 2^20, 2^22, 2^24 (complex64 and complex128) and 2^27, a 4096^2 fft2,
//! Bluestein's 4 x 1,048,577 and the rfft of 2^26 reals (rfft64M).
//!
//! ```text
//! cargo run --release --example fft_probe                 # every shape
//! FFT_PROBE_ONLY=b1024,n16M cargo run --release --example fft_probe
//! FFT_PROBE_QUICK=1 cargo run --release --example fft_probe   # sizes / 256 (lavapipe)
//! ```

use std::time::Instant;

use gpuarray::fft::{self, Norm};
use gpuarray::{Complex, Device};

type C32 = Complex<f32>;
type C64 = Complex<f64>;

fn main() -> gpuarray::Result<()> {
    let dev = Device::new()?;
    let quick = std::env::var_os("FFT_PROBE_QUICK").is_some();
    let only: Option<Vec<String>> = std::env::var("FFT_PROBE_ONLY")
        .ok()
        .map(|v| v.split(',').map(str::to_string).collect());
    let q = |n: usize| if quick { (n / 256).max(1) } else { n };
    // name, shape, axes, complex128
    let cases: Vec<(&str, Vec<usize>, Vec<isize>, bool)> = vec![
        ("b64", vec![q(1 << 20), 64], vec![1], false),
        ("b256", vec![q(1 << 18), 256], vec![1], false),
        ("b1024", vec![q(1 << 16), 1024], vec![1], false),
        ("b4096", vec![q(1 << 14), 4096], vec![1], false),
        ("b1000", vec![q(16384), 1000], vec![1], false),
        ("b1009", vec![q(16384), 1009], vec![1], false),
        ("col1024", vec![1024, q(1 << 16)], vec![0], false),
        ("n1M", vec![q(1 << 20)], vec![0], false),
        ("n16M", vec![q(1 << 24)], vec![0], false),
        ("f2_4096", vec![q(4096), 4096], vec![0, 1], false),
        ("n16M_c128", vec![q(1 << 24)], vec![0], true),
        ("n4M", vec![q(1 << 22)], vec![0], false),
        ("n128M", vec![q(1 << 27)], vec![0], false),
        ("blu4x1048577", vec![4, q(1048577)], vec![1], false),
    ];
    let t = dev.random_uniform::<f32>([q(1 << 26)], 1)?;
    let copy = time(&dev, || t.add_scalar(0.0))?;
    println!(
        "copy f32 {}: {:.4} ms GPU ({:.0} GB/s)",
        t.len(),
        copy.0,
        8.0 * t.len() as f64 / copy.0 / 1e6
    );
    for (name, shape, axes, c128) in cases {
        if only.as_ref().is_some_and(|o| !o.iter().any(|x| x == name)) {
            continue;
        }
        let len: usize = shape.iter().product();
        let (g, w) = if c128 {
            let a = dev.zeros::<C64>(shape.clone())?;
            time(&dev, || fft::fftn(&a, None, axes.clone(), Norm::Backward))?
        } else {
            let a = dev.zeros::<C32>(shape.clone())?;
            time(&dev, || fft::fftn(&a, None, axes.clone(), Norm::Backward))?
        };
        let bytes = len as f64 * if c128 { 32.0 } else { 16.0 };
        println!(
            "{name} {shape:?}: {g:.4} ms GPU, {w:.4} ms wall; {:.0} GB/s at one r+w; floor {:.4} ms",
            bytes / g / 1e6,
            bytes / (8.0 * t.len() as f64) * copy.0
        );
    }
    // The real transform of 2^26 f32 (the sweep's rfft_f32_64M): a complex transform of
    // 2^25 and the pairing pass.
    if only
        .as_ref()
        .is_none_or(|o| o.iter().any(|x| x == "rfft64M"))
    {
        let n = q(1 << 26);
        let a = dev.zeros::<f32>([n])?;
        let (g, w) = time(&dev, || fft::rfft(&a, None, 0, Norm::Backward))?;
        let bytes = n as f64 * 4.0 + (n / 2 + 1) as f64 * 8.0;
        println!(
            "rfft64M [{n}]: {g:.4} ms GPU, {w:.4} ms wall; {:.0} GB/s at one r+w; floor {:.4} ms",
            bytes / g / 1e6,
            bytes / (8.0 * t.len() as f64) * copy.0
        );
    }
    Ok(())
}

/// Per-call GPU time (events around 20 calls) and wall time, after 3 warm-ups.
fn time<R>(
    dev: &Device,
    mut op: impl FnMut() -> gpuarray::Result<R>,
) -> gpuarray::Result<(f64, f64)> {
    let profile = std::env::var_os("GPUARRAY_FFT_PROFILE").is_some();
    let reps = if profile { 1 } else { 20 };
    for _ in 0..3 {
        drop(op()?);
    }
    dev.synchronize()?;
    let w0 = Instant::now();
    let e0 = dev.record_event()?;
    for _ in 0..reps {
        drop(op()?);
    }
    let e1 = dev.record_event()?;
    e1.synchronize()?;
    let wall = w0.elapsed().as_secs_f64() * 1e3 / reps as f64;
    Ok((e0.elapsed_ms(&e1)? / reps as f64, wall))
}
