//! Times `linalg::{solve, cholesky, det, inv}` at the linalg_factor sweep's large sizes with
//! GPU events (median of 5 calls after 2 warm-ups; inputs as the sweep's), for measuring
//! the blocked factorizations on a device, and each solve's backward error (in n eps). With `GPUARRAY_FACTOR_PROFILE=1` each call also
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
        check(&name("solve"), n, &a, &b, &linalg::solve(&a, &b)?)?;
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

/// Prints the solution's normwise backward error `||A x - b|| / (||A|| ||x|| + ||b||)`
/// (infinity norms, in f64 on the host) in units of n eps: a check that the timed path
/// (its switches, the device's subgroups) factors right.
fn check<T: Float>(
    name: &str,
    n: usize,
    a: &Array<T>,
    b: &Array<T>,
    x: &Array<T>,
) -> gpuarray::Result<()> {
    let f = |v: Vec<T>| v.into_iter().map(T::to_f64).collect::<Vec<f64>>();
    let (a, b, x) = (f(a.to_vec()?), f(b.to_vec()?), f(x.to_vec()?));
    let inf = |v: &[f64]| v.iter().fold(0.0f64, |m, e| m.max(e.abs()));
    let mut res = 0.0f64;
    let mut norm_a = 0.0f64;
    for (row, bi) in a.chunks(n).zip(&b) {
        let ax: f64 = row.iter().zip(&x).map(|(p, q)| p * q).sum();
        res = res.max((ax - bi).abs());
        norm_a = norm_a.max(row.iter().map(|e| e.abs()).sum());
    }
    let eps = if std::mem::size_of::<T>() == 4 {
        f32::EPSILON as f64
    } else {
        f64::EPSILON
    };
    let e = res / (norm_a * inf(&x) + inf(&b)) / (n as f64 * eps);
    // (f64::max passes NaN over: a solution with any entry not finite is named as such.)
    let bad = x.iter().filter(|v| !v.is_finite()).count();
    if bad > 0 {
        println!("{name}: FAILED, {bad} of {n} entries of x not finite");
    } else {
        println!("{name}: backward error {e:.3e} n eps");
    }
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
