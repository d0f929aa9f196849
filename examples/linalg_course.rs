//! The linear-algebra exercise of a GPU course (issue 32: "time `cp.linalg.svd` of a
//! 1000 x 1000 matrix against NumPy"): the CPU against the GPU for a matrix product, a
//! trace and a singular value decomposition of square f32 matrices, n = 250 to 2000.
//!
//! The GPU is timed with the library's events (`Device::record_event`), the data already on
//! the device; the CPU with `Instant`: ndarray's matrix product (matrixmultiply, threaded),
//! the diagonal's sum, and nalgebra's SVD (one thread). Every GPU result is checked against
//! the CPU's: the product and trace to a relative 1e-3, the singular values to a relative
//! `1e-5 n` of the largest (both sides in f32, each accurate to about `n eps ||A||`). Prints
//! a table and plots the times against n on log axes, one chart per operation
//! (`linalg_course.png`).
//!
//! ```text
//! cargo run --release --example linalg_course
//! GPUARRAY_EXAMPLES_QUICK=1 cargo run --release --example linalg_course   # n <= 96
//! ```

mod common;

use std::time::Instant;

use common::{out_dir, quick, save_charts, time_events, time_host, Chart, Res, Series};
use gpuarray::linalg::svdvals;
use gpuarray::Device;
use ndarray::Array2;

/// The largest absolute difference of `a` from `b`, over the largest magnitude of `b`.
fn max_rel_diff(a: &[f32], b: &[f32]) -> f64 {
    let scale = b
        .iter()
        .fold(0.0f64, |m, v| m.max(v.abs() as f64))
        .max(1e-30);
    a.iter()
        .zip(b)
        .fold(0.0f64, |m, (x, y)| m.max((*x as f64 - *y as f64).abs()))
        / scale
}

/// Milliseconds per operation: the GPU's and the CPU's, at each n.
#[derive(Default)]
struct Times {
    gpu: Vec<(f64, f64)>,
    cpu: Vec<(f64, f64)>,
}

fn main() -> Res<()> {
    let dev = Device::new()?;
    println!("adapter: {} ({})", dev.info().name, dev.info().backend);
    let quick = quick();
    let sizes: Vec<usize> = if quick {
        vec![17, 48, 96]
    } else {
        vec![250, 500, 1000, 2000]
    };
    let (mut matmul, mut trace, mut svd) = (Times::default(), Times::default(), Times::default());
    println!(
        "{:>6} | {:>11} {:>11} {:>7} | {:>11} {:>11} {:>7} | {:>11} {:>11} {:>7} | svd error",
        "n",
        "matmul GPU",
        "CPU",
        "CPU/GPU",
        "trace GPU",
        "CPU",
        "CPU/GPU",
        "svd GPU",
        "CPU",
        "CPU/GPU"
    );
    for &n in &sizes {
        let a = dev.random_uniform_in::<f32>([n, n], -1.0, 1.0, 2 * n as u64)?;
        let b = dev.random_uniform_in::<f32>([n, n], -1.0, 1.0, 2 * n as u64 + 1)?;
        let ha = Array2::from_shape_vec((n, n), a.to_vec()?)?;
        let hb = Array2::from_shape_vec((n, n), b.to_vec()?)?;
        let flop = 2.0 * (n as f64).powi(3);
        let reps = if quick {
            2
        } else {
            (4e10 / flop).clamp(3.0, 50.0) as usize
        };
        let budget = if quick { 0.01 } else { 0.5 };

        // Matrix product.
        let gpu_mm = time_events(&dev, reps, || {
            drop(a.matmul(&b)?);
            Ok(())
        })?;
        let mut hc = Array2::<f32>::zeros((n, n));
        let cpu_mm = 1e3
            * time_host(budget, 20, || {
                hc = ha.dot(&hb);
                Ok(())
            })?;
        let want = hc.as_slice().ok_or("ndarray's product is not contiguous")?;
        let d_mm = max_rel_diff(&a.matmul(&b)?.to_vec()?, want);
        if d_mm > 1e-3 {
            return Err(format!("n = {n}: matmul differs from ndarray by {d_mm:.1e}").into());
        }

        // Trace (of the product, so that it is not a sum of a few uniform numbers).
        let c = dev.from_slice(want, [n, n])?;
        let gpu_tr = time_events(&dev, reps.max(10), || {
            drop(c.trace()?);
            Ok(())
        })?;
        let mut host_tr = 0.0f32;
        let cpu_tr = 1e3
            * time_host(budget / 10.0, 1000, || {
                host_tr = hc.diag().sum();
                Ok(())
            })?;
        let exact: f64 = hc.diag().iter().map(|v| *v as f64).sum();
        let abs_sum: f64 = hc.diag().iter().map(|v| v.abs() as f64).sum();
        let got = c.trace()?.to_scalar()? as f64;
        if (got - exact).abs() > 1e-5 * abs_sum.max(1e-30) {
            return Err(format!("n = {n}: trace {got} against {exact} (CPU {host_tr})").into());
        }

        // Singular values: the GPU's (one-sided Jacobi) against nalgebra's, both f32. The
        // CPU's run once (seconds at n = 2000), the GPU's with events around `svd_reps`.
        let svd_reps = if quick || n >= 1000 { 1 } else { 2 };
        let gpu_svd = time_events(&dev, svd_reps, || {
            drop(svdvals(&a)?);
            Ok(())
        })?;
        let m = nalgebra::DMatrix::<f32>::from_row_slice(n, n, a.to_vec()?.as_slice());
        let t0 = Instant::now();
        let s_cpu = m.singular_values();
        let cpu_svd = t0.elapsed().as_secs_f64() * 1e3;
        let mut s_cpu: Vec<f32> = s_cpu.iter().copied().collect();
        s_cpu.sort_by(|x, y| y.total_cmp(x));
        let s_gpu = svdvals(&a)?.to_vec()?;
        let d_svd = max_rel_diff(&s_gpu, &s_cpu);
        if s_gpu.len() != n || d_svd > 1e-5 * n as f64 {
            return Err(format!("n = {n}: singular values differ by {d_svd:.1e}").into());
        }

        for (t, g, h) in [
            (&mut matmul, gpu_mm, cpu_mm),
            (&mut trace, gpu_tr, cpu_tr),
            (&mut svd, gpu_svd, cpu_svd),
        ] {
            t.gpu.push((n as f64, g));
            t.cpu.push((n as f64, h));
        }
        println!(
            "{n:>6} | {gpu_mm:>8.3} ms {cpu_mm:>8.3} ms {:>7.2} | {gpu_tr:>8.4} ms {cpu_tr:>8.4} \
             ms {:>7.2} | {gpu_svd:>8.1} ms {cpu_svd:>8.1} ms {:>7.2} | {d_svd:.1e}",
            cpu_mm / gpu_mm,
            cpu_tr / gpu_tr,
            cpu_svd / gpu_svd
        );
    }
    println!("(matmul and trace: relative error below 1e-3 and 1e-5; svd error: the largest");
    println!(" difference of the singular values from nalgebra's, over the largest)");

    let mut charts = Vec::new();
    for (name, t) in [("matmul", matmul), ("trace", trace), ("svd", svd)] {
        let mut chart = Chart::new(
            format!("{name} of n x n f32"),
            "n (matrix side)",
            "time (ms)",
        )
        .log_log();
        chart
            .series
            .push(Series::new(format!("GPU ({})", dev.info().name), t.gpu));
        let cpu = match name {
            "matmul" => "CPU (ndarray)",
            "trace" => "CPU (ndarray diag sum)",
            _ => "CPU (nalgebra)",
        };
        chart.series.push(Series::new(cpu, t.cpu));
        charts.push(chart);
    }
    save_charts(
        &out_dir()?.join("linalg_course.png"),
        &charts,
        3,
        (560, 420),
    )?;
    Ok(())
}
