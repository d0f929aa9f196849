//! Where the GPU starts to win: an elementwise product, a sum, a matrix product and a 1-D
//! convolution on the GPU and with ndarray on the CPU, across sizes. The GPU is timed two
//! ways: on data already on the device (the op and a wait for it), and with transfers (upload
//! the inputs, the op, download the result). Prints the times and, for each op, the size from
//! which the GPU is faster at every larger size; plots the times (`cpu_vs_gpu.png`).
//!
//! All times are host wall-clock (mean of repeats after a warm-up). The CPU runs ndarray:
//! one thread, except the matrix product (matrixmultiply, threaded).
//!
//! ```text
//! cargo run --release --example cpu_vs_gpu
//! GPUARRAY_EXAMPLES_QUICK=1 cargo run --release --example cpu_vs_gpu   # small sizes only
//! ```

mod common;

use common::{out_dir, quick, save_charts, si, time_host, Chart, Res, Series};
use gpuarray::signal::{convolve, Mode};
use gpuarray::Device;
use ndarray::{Array1, Array2};

/// Taps of the convolution.
const TAPS: usize = 63;

/// Seconds per call: [CPU, GPU with data on the device, GPU with transfers].
type Times = [f64; 3];

struct Op {
    name: &'static str,
    size_label: &'static str,
    sizes: Vec<usize>,
    times: Vec<Times>,
}

fn host_data(n: usize, seed: u32) -> Vec<f32> {
    let mut s = seed.wrapping_mul(0x9e37_79b9) | 1;
    (0..n)
        .map(|_| {
            s ^= s << 13;
            s ^= s >> 17;
            s ^= s << 5;
            s as f32 / u32::MAX as f32 - 0.5
        })
        .collect()
}

/// Times one size of `name`.
fn measure(dev: &Device, name: &str, n: usize, budget: f64) -> Res<Times> {
    let reps = 50;
    let t = match name {
        "elementwise x * y" => {
            let (xh, yh) = (host_data(n, 1), host_data(n, 2));
            let (xa, ya) = (Array1::from(xh.clone()), Array1::from(yh.clone()));
            let (xg, yg) = (dev.from_slice(&xh, [n])?, dev.from_slice(&yh, [n])?);
            [
                time_host(budget, reps, || {
                    drop(std::hint::black_box(&xa * &ya));
                    Ok(())
                })?,
                time_host(budget, reps, || {
                    let _z = xg.mul(&yg)?;
                    dev.synchronize()?;
                    Ok(())
                })?,
                time_host(budget, reps, || {
                    let (x, y) = (dev.from_slice(&xh, [n])?, dev.from_slice(&yh, [n])?);
                    drop(x.mul(&y)?.to_vec()?);
                    Ok(())
                })?,
            ]
        }
        "reduction sum(x)" => {
            let xh = host_data(n, 3);
            let xa = Array1::from(xh.clone());
            let xg = dev.from_slice(&xh, [n])?;
            [
                time_host(budget, reps, || {
                    std::hint::black_box(xa.sum());
                    Ok(())
                })?,
                time_host(budget, reps, || {
                    std::hint::black_box(xg.sum()?.to_scalar()?);
                    Ok(())
                })?,
                time_host(budget, reps, || {
                    std::hint::black_box(dev.from_slice(&xh, [n])?.sum()?.to_scalar()?);
                    Ok(())
                })?,
            ]
        }
        "matmul A B" => {
            let (ah, bh) = (host_data(n * n, 4), host_data(n * n, 5));
            let aa = Array2::from_shape_vec((n, n), ah.clone())?;
            let ba = Array2::from_shape_vec((n, n), bh.clone())?;
            let (ag, bg) = (dev.from_slice(&ah, [n, n])?, dev.from_slice(&bh, [n, n])?);
            [
                time_host(budget, reps, || {
                    drop(std::hint::black_box(aa.dot(&ba)));
                    Ok(())
                })?,
                time_host(budget, reps, || {
                    let _c = ag.matmul(&bg)?;
                    dev.synchronize()?;
                    Ok(())
                })?,
                time_host(budget, reps, || {
                    let (a, b) = (dev.from_slice(&ah, [n, n])?, dev.from_slice(&bh, [n, n])?);
                    drop(a.matmul(&b)?.to_vec()?);
                    Ok(())
                })?,
            ]
        }
        _ => {
            let (xh, kh) = (host_data(n, 6), host_data(TAPS, 7));
            let xa = Array1::from(xh.clone());
            // convolve flips the kernel; the CPU does the same with a reversed copy.
            let krev: Array1<f32> = kh.iter().rev().copied().collect();
            let (xg, kg) = (dev.from_slice(&xh, [n])?, dev.from_slice(&kh, [TAPS])?);
            [
                time_host(budget, reps, || {
                    let y: Array1<f32> =
                        xa.windows(TAPS).into_iter().map(|w| w.dot(&krev)).collect();
                    drop(std::hint::black_box(y));
                    Ok(())
                })?,
                time_host(budget, reps, || {
                    let _y = convolve(&xg, &kg, Mode::Valid)?;
                    dev.synchronize()?;
                    Ok(())
                })?,
                time_host(budget, reps, || {
                    let x = dev.from_slice(&xh, [n])?;
                    drop(convolve(&x, &kg, Mode::Valid)?.to_vec()?);
                    Ok(())
                })?,
            ]
        }
    };
    Ok(t)
}

/// The first size from which `k` (1: GPU, 2: GPU with transfers) beats the CPU at every
/// larger size measured.
fn crossover(op: &Op, k: usize) -> String {
    let wins: Vec<bool> = op.times.iter().map(|t| t[k] < t[0]).collect();
    match (0..wins.len()).find(|&i| wins[i..].iter().all(|&w| w)) {
        Some(i) => format!("from {} = {}", op.size_label, si(op.sizes[i] as f64)),
        None => "not in the sizes measured".into(),
    }
}

fn main() -> Res<()> {
    let dev = Device::new()?;
    println!("adapter: {} ({})", dev.info().name, dev.info().backend);
    let quick = quick();
    let budget = if quick { 0.005 } else { 0.2 };
    let pow2 = |lo: u32, hi: u32, step: usize| -> Vec<usize> {
        (lo..=hi).step_by(step).map(|e| 1usize << e).collect()
    };
    let (vec_hi, mat_hi, conv_hi) = if quick { (18, 7, 16) } else { (26, 11, 24) };
    let mut ops = vec![
        Op {
            name: "elementwise x * y",
            size_label: "N",
            sizes: pow2(10, vec_hi, 2),
            times: vec![],
        },
        Op {
            name: "reduction sum(x)",
            size_label: "N",
            sizes: pow2(10, vec_hi, 2),
            times: vec![],
        },
        Op {
            name: "matmul A B",
            size_label: "n",
            sizes: pow2(4, mat_hi, 1),
            times: vec![],
        },
        Op {
            name: "convolve(x, 63 taps)",
            size_label: "N",
            sizes: pow2(10, conv_hi, 2),
            times: vec![],
        },
    ];
    for op in &mut ops {
        println!("\n{} (f32), ms per call:", op.name);
        println!(
            "{:>10} {:>12} {:>12} {:>16}",
            op.size_label, "CPU", "GPU", "GPU+transfers"
        );
        for &n in &op.sizes {
            let t = measure(&dev, op.name, n, budget)?;
            println!(
                "{:>10} {:>12.4} {:>12.4} {:>16.4}",
                si(n as f64),
                t[0] * 1e3,
                t[1] * 1e3,
                t[2] * 1e3
            );
            op.times.push(t);
        }
    }
    println!("\nwhere the GPU wins ({}):", dev.info().name);
    for op in &ops {
        println!(
            "  {:<22} data on the GPU: {:<28} with transfers: {}",
            op.name,
            crossover(op, 1),
            crossover(op, 2)
        );
    }

    let charts: Vec<Chart> = ops
        .iter()
        .map(|op| {
            let unit = if op.size_label == "n" {
                "n (matrix side)"
            } else {
                "N (elements)"
            };
            let mut c = Chart::new(
                format!("{} (f32) on {}", op.name, dev.info().name),
                unit,
                "time per call (ms)",
            )
            .log_log();
            let names = [
                "CPU (ndarray)",
                "GPU, data on device",
                "GPU incl. transfers",
            ];
            for (k, name) in names.iter().enumerate() {
                let pts = op
                    .sizes
                    .iter()
                    .zip(&op.times)
                    .map(|(&n, t)| (n as f64, t[k] * 1e3));
                c.series.push(Series::new(*name, pts.collect()));
            }
            c
        })
        .collect();
    save_charts(&out_dir()?.join("cpu_vs_gpu.png"), &charts, 2, (600, 420))?;
    println!("(GPU: {})", dev.info().name);
    Ok(())
}
