//! Times `linalg::{solve, cholesky, det, inv}` at the linalg_factor sweep's large sizes with
//! GPU events (median of 5 calls after 2 warm-ups; inputs as the sweep's), for measuring
//! the blocked factorizations on a device. With `GPUARRAY_FACTOR_PROFILE=1` each call also
//! prints its dispatches' GPU time by kind (src/linalg/factor_prof.rs); run it once
//! without for the times.
//!
//! ```text
//! cargo run --release --example factor_probe
//! FACTOR_PROBE_ONLY=solve_f32_1024,cholesky_f64_4096 cargo run --release --example factor_probe
//! FACTOR_PROBE_QUICK=1 cargo run --release --example factor_probe   # n / 16 (lavapipe)
//! ```

use gpuarray::{linalg, Array, Device, Float, Options};

fn main() -> gpuarray::Result<()> {
    let mut opts = Options::from_env()?;
    opts.linalg_check = false;
    let dev = Device::with_options(opts)?;
    let quick = std::env::var_os("FACTOR_PROBE_QUICK").is_some();
    let only: Option<Vec<String>> = std::env::var("FACTOR_PROBE_ONLY")
        .ok()
        .map(|v| v.split(',').map(str::to_string).collect());
    let sizes: &[usize] = if quick { &[64, 256] } else { &[1024, 4096] };
    for &n in sizes {
        cases::<f32>(&dev, "f32", n, only.as_deref())?;
        cases::<f64>(&dev, "f64", n, only.as_deref())?;
    }
    Ok(())
}

fn cases<T: Float>(
    dev: &Device,
    dt: &str,
    n: usize,
    only: Option<&[String]>,
) -> gpuarray::Result<()> {
    let want = |name: &str| only.is_none_or(|o| o.iter().any(|x| x == name));
    let a = {
        let r = dev.random_uniform_in::<T>([n, n], T::from_f64(-1.0), T::from_f64(1.0), 7)?;
        r.add(&dev.eye::<T>(n)?.mul_scalar(T::from_f64(n as f64))?)?
    };
    let b = dev.random_uniform_in::<T>([n], T::from_f64(-1.0), T::from_f64(1.0), 9)?;
    let spd = {
        let m = dev.random_uniform_in::<T>([n, n], T::from_f64(-1.0), T::from_f64(1.0), 8)?;
        let s = m.matmul(&m.t())?.mul_scalar(T::from_f64(1.0 / n as f64))?;
        s.add(&dev.eye::<T>(n)?)?
    };
    let name = |op: &str| format!("{op}_{dt}_{n}");
    if want(&name("solve")) {
        report(dev, &name("solve"), || linalg::solve(&a, &b).map(drop))?;
    }
    if want(&name("cholesky")) {
        report(dev, &name("cholesky"), || {
            linalg::cholesky(&spd, linalg::Triangle::Lower).map(drop)
        })?;
    }
    if want(&name("det")) {
        report(dev, &name("det"), || linalg::det(&a).map(drop))?;
    }
    if want(&name("inv")) {
        report(dev, &name("inv"), || linalg::inv(&a).map(drop))?;
    }
    drop::<Array<T>>(spd);
    Ok(())
}

/// Prints the median GPU time of 5 calls of `op` after 2 warm-ups.
fn report(
    dev: &Device,
    name: &str,
    mut op: impl FnMut() -> gpuarray::Result<()>,
) -> gpuarray::Result<()> {
    eprintln!("--- {name}");
    for _ in 0..2 {
        op()?;
    }
    dev.synchronize()?;
    let mut ms = Vec::new();
    for _ in 0..5 {
        let s = dev.record_event()?;
        op()?;
        let e = dev.record_event()?;
        e.synchronize()?;
        ms.push(s.elapsed_ms(&e)?);
    }
    ms.sort_by(f64::total_cmp);
    println!(
        "{name}: {:.3} ms (min {:.3}, max {:.3})",
        ms[2], ms[0], ms[4]
    );
    Ok(())
}
