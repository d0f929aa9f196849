//! One job divided across every GPU of the machine ([`DeviceSet::all`]), timed on one device
//! and on all of them: a bandwidth-bound job (a chain of elementwise ops over a large
//! array, split along its rows) and a compute-bound one (a batch of f32 matrix products,
//! split along the batch). Prints throughput on one device, on all, and the ratio; the
//! results of the split run are checked against the single-device run.
//!
//! Each device computes its part from a thread of its own (`DeviceSet::run`); the parts
//! are uploaded before the clock starts and stay on their devices, as a data-parallel job
//! keeps them.
//!
//! ```text
//! cargo run --release --example multi_gpu
//! GPUARRAY_EXAMPLES_QUICK=1 cargo run --release --example multi_gpu   # small sizes
//! GPUARRAY_MULTI_DEVICES=2 cargo run --release --example multi_gpu    # 2 devices of the best adapter
//! ```

mod common;

use std::time::Instant;

use common::{quick, si, Res};
use gpuarray::multi::DeviceSet;
use gpuarray::{Array, Device};

/// Elementwise chain repeated `reps` times: each step reads and writes the array twice
/// (`x * 0.999 + 0.001`, then `tanh`), 16 bytes per element per step in f32.
fn chain(x: &Array<f32>, reps: usize) -> gpuarray::Result<Array<f32>> {
    let mut y = x.clone();
    for _ in 0..reps {
        y = y.mul_scalar(0.999)?.add_scalar(0.001)?.tanh()?;
    }
    Ok(y)
}

/// Matrix products of the batch, `reps` times over.
fn products(a: &Array<f32>, b: &Array<f32>, reps: usize) -> gpuarray::Result<Array<f32>> {
    let mut c = a.matmul(b)?;
    for _ in 1..reps {
        c = a.matmul(b)?;
    }
    Ok(c)
}

/// Seconds for `job` on every device of `set` at once (after a warm-up run), and its
/// outputs gathered on the first device.
fn timed(
    set: &DeviceSet,
    parts: &[Vec<Array<f32>>],
    job: impl Fn(&[Array<f32>]) -> gpuarray::Result<Array<f32>> + Sync,
) -> Res<(f64, Array<f32>)> {
    let run = || {
        set.run(|i, dev| {
            let out = job(&parts[i])?;
            dev.synchronize()?;
            Ok(out)
        })
    };
    run()?;
    let t0 = Instant::now();
    let outs = run()?;
    let secs = t0.elapsed().as_secs_f64();
    Ok((secs, set.gather(&outs, 0, &set.devices()[0])?))
}

/// The largest difference between two results, relative to the largest magnitude.
fn max_rel_diff(a: &Array<f32>, b: &Array<f32>) -> Res<f64> {
    let (a, b) = (a.to_vec()?, b.to_vec()?);
    let scale = a.iter().fold(1e-30f64, |m, &x| m.max((x as f64).abs()));
    let diff = a
        .iter()
        .zip(&b)
        .fold(0f64, |m, (&x, &y)| m.max((x as f64 - y as f64).abs()));
    Ok(diff / scale)
}

/// The job on one device and on all: throughput in `unit`s per second and the ratio.
fn compare(
    name: &str,
    work: f64,
    unit: &str,
    one: (f64, Array<f32>),
    all: (f64, Array<f32>),
    devices: usize,
) -> Res<()> {
    let diff = max_rel_diff(&one.1, &all.1)?;
    println!(
        "{name:<28} 1 device {:>9}{unit}/s   {devices} devices {:>9}{unit}/s   ratio {:.2}x   \
         (max rel diff {diff:.1e})",
        si(work / one.0),
        si(work / all.0),
        one.0 / all.0,
    );
    if diff > 1e-5 {
        return Err(format!("{name}: the split run differs from one device by {diff}").into());
    }
    Ok(())
}

/// A copy from the first device to the second: `to_device` (chunks pipelined through the
/// host) against a plain read back and upload.
fn copy_between(set: &DeviceSet, data: &[f32], shape: [usize; 2]) -> Res<()> {
    let (a, b) = (&set.devices()[0], &set.devices()[1]);
    let x = a.from_slice(data, shape)?;
    let gbs = |t: f64| (data.len() * 4) as f64 / t / 1e9;
    x.to_device(b)?; // warm-up
    let t0 = Instant::now();
    let y = x.to_device(b)?;
    b.synchronize()?;
    let piped = t0.elapsed().as_secs_f64();
    let t0 = Instant::now();
    let z = b.from_slice(&x.to_vec()?, shape)?;
    b.synchronize()?;
    let plain = t0.elapsed().as_secs_f64();
    if y.to_vec()? != z.to_vec()? {
        return Err("to_device and a read back and upload differ".into());
    }
    println!(
        "copy between devices ({} MB): to_device {:.2} GB/s, to_vec + from_slice {:.2} GB/s",
        data.len() * 4 / 1_000_000,
        gbs(piped),
        gbs(plain)
    );
    Ok(())
}

fn main() -> Res<()> {
    // GPUARRAY_MULTI_DEVICES=N: N devices of the best adapter (to try the split on one GPU).
    let all = match std::env::var("GPUARRAY_MULTI_DEVICES")
        .ok()
        .and_then(|v| v.parse().ok())
    {
        Some(k) => DeviceSet::new((0..k).map(|_| Device::new()).collect::<Result<_, _>>()?)?,
        None => DeviceSet::all()?,
    };
    let one = DeviceSet::new(vec![all.devices()[0].clone()])?;
    for d in all.devices() {
        let i = d.info();
        println!(
            "device {}: {} ({}, {:?})",
            i.index.unwrap_or(0),
            i.name,
            i.backend,
            i.kind
        );
    }
    let q = quick();

    // Bandwidth-bound: rows x cols f32 (1 GiB on GPUs), a chain of 3 ops x reps.
    let (rows, cols, reps) = if q { (64, 4096, 2) } else { (16384, 16384, 10) };
    let data: Vec<f32> = (0..rows * cols).map(|i| (i % 1000) as f32 * 1e-3).collect();
    let split = |set: &DeviceSet| -> Res<Vec<Vec<Array<f32>>>> {
        let parts = set.split_host(&data, [rows, cols], 0)?;
        Ok(parts.into_iter().map(|p| vec![p]).collect())
    };
    if all.len() > 1 {
        copy_between(&all, &data, [rows, cols])?;
    }
    let (p1, pn) = (split(&one)?, split(&all)?);
    let bytes = (rows * cols * 4 * 2 * 3 * reps) as f64; // 3 ops, each a read and a write
    let t1 = timed(&one, &p1, |p| chain(&p[0], reps))?;
    let tn = timed(&all, &pn, |p| chain(&p[0], reps))?;
    compare("elementwise chain", bytes, "B", t1, tn, all.len())?;
    drop((p1, pn));

    // Compute-bound: a batch of n x n products.
    let (batch, n, reps) = if q { (4, 64, 1) } else { (32, 2048, 4) };
    let a: Vec<f32> = (0..batch * n * n)
        .map(|i| ((i * 7) % 13) as f32 / 13.0 - 0.5)
        .collect();
    let b: Vec<f32> = (0..batch * n * n)
        .map(|i| ((i * 5) % 11) as f32 / 11.0 - 0.5)
        .collect();
    let split = |set: &DeviceSet| -> Res<Vec<Vec<Array<f32>>>> {
        let pa = set.split_host(&a, [batch, n, n], 0)?;
        let pb = set.split_host(&b, [batch, n, n], 0)?;
        Ok(pa.into_iter().zip(pb).map(|(x, y)| vec![x, y]).collect())
    };
    let (p1, pn) = (split(&one)?, split(&all)?);
    let flops = (2 * batch * n * n * n * reps) as f64;
    let t1 = timed(&one, &p1, |p| products(&p[0], &p[1], reps))?;
    let tn = timed(&all, &pn, |p| products(&p[0], &p[1], reps))?;
    compare("batched matmul f32", flops, "FLOP", t1, tn, all.len())?;
    if all.len() == 1 {
        println!("(one device in this machine: the ratio is 1 by construction)");
    }
    Ok(())
}
