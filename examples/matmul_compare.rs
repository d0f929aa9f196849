//! Matrix products three ways: gpuarray's tuned `matmul`, a naive WGSL [`RawKernel`] (one
//! thread per output, reading A and B straight from memory) and ndarray on the CPU
//! (matrixmultiply, threaded), for square f32 matrices of n = 128 to 4096. Prints a table and
//! plots GFLOP/s (`matmul_compare.png`).
//!
//! ```text
//! cargo run --release --example matmul_compare
//! GPUARRAY_EXAMPLES_QUICK=1 cargo run --release --example matmul_compare   # n <= 256
//! ```

mod common;

use common::{out_dir, quick, save_chart, time_events, time_host, Chart, Res, Series};
use gpuarray::{Device, RawKernel};
use ndarray::Array2;

/// C = A B for n x n row-major matrices: invocation (x, y) computes C[y][x].
const NAIVE: &str = r#"
@group(0) @binding(0) var<storage, read> a: array<f32>;
@group(0) @binding(1) var<storage, read> b: array<f32>;
@group(0) @binding(2) var<storage, read_write> c: array<f32>;
@group(0) @binding(3) var<uniform> n: u32;

@compute @workgroup_size(16, 16)
fn naive(@builtin(global_invocation_id) id: vec3<u32>) {
    let row = id.y;
    let col = id.x;
    if (row >= n || col >= n) { return; }
    var acc = 0.0;
    for (var k = 0u; k < n; k++) {
        acc += a[row * n + k] * b[k * n + col];
    }
    c[row * n + col] = acc;
}
"#;

fn max_rel_diff(a: &[f32], b: &[f32]) -> f32 {
    let scale = b.iter().fold(0.0f32, |m, v| m.max(v.abs())).max(1e-30);
    a.iter()
        .zip(b)
        .fold(0.0f32, |m, (x, y)| m.max((x - y).abs()))
        / scale
}

fn main() -> Res<()> {
    let dev = Device::new()?;
    println!("adapter: {} ({})", dev.info().name, dev.info().backend);
    let quick = quick();
    let sizes: Vec<usize> = if quick {
        vec![64, 128, 256]
    } else {
        vec![128, 256, 512, 1024, 2048, 4096]
    };
    let naive = RawKernel::new(&dev, NAIVE, "naive")?;
    let names = ["gpuarray matmul", "naive RawKernel", "ndarray (CPU)"];
    let mut gflops: [Vec<(f64, f64)>; 3] = Default::default();
    println!(
        "{:>6} {:>18} {:>18} {:>18}   (GFLOP/s; largest relative difference from ndarray)",
        "n", names[0], names[1], names[2]
    );
    for &n in &sizes {
        let a = dev.random_uniform::<f32>([n, n], 1)?;
        let b = dev.random_uniform::<f32>([n, n], 2)?;
        let c = dev.zeros::<f32>([n, n])?;
        let flop = 2.0 * (n as f64).powi(3);
        let reps = if quick {
            2
        } else {
            (4e10 / flop).clamp(2.0, 50.0) as usize
        };
        let lib_ms = time_events(&dev, reps, || {
            drop(a.matmul(&b)?);
            Ok(())
        })?;
        let groups = n.div_ceil(16) as u32;
        let naive_ms = time_events(&dev, reps, || {
            naive.launch([groups, groups], &[&a, &b, &c, &(n as u32)])?;
            Ok(())
        })?;

        let ha = Array2::from_shape_vec((n, n), a.to_vec()?)?;
        let hb = Array2::from_shape_vec((n, n), b.to_vec()?)?;
        let mut hc = Array2::<f32>::zeros((n, n));
        let budget = if quick { 0.02 } else { 0.5 };
        let cpu_s = time_host(budget, 20, || {
            hc = ha.dot(&hb);
            Ok(())
        })?;
        let want = hc.as_slice().ok_or("ndarray result not contiguous")?;
        let d_lib = max_rel_diff(&a.matmul(&b)?.to_vec()?, want);
        let d_naive = max_rel_diff(&c.to_vec()?, want);
        if d_lib > 1e-3 || d_naive > 1e-3 {
            return Err(format!("n = {n}: results differ ({d_lib:.1e}, {d_naive:.1e})").into());
        }
        let rates = [
            flop / (lib_ms * 1e-3) / 1e9,
            flop / (naive_ms * 1e-3) / 1e9,
            flop / cpu_s / 1e9,
        ];
        for (k, r) in rates.iter().enumerate() {
            gflops[k].push((n as f64, *r));
        }
        println!(
            "{n:>6} {:>18.1} {:>18.1} {:>18.1}   ({d_lib:.1e}, {d_naive:.1e})",
            rates[0], rates[1], rates[2]
        );
    }
    let mut chart = Chart::new(
        format!("square f32 matmul on {}", dev.info().name),
        "n (matrix side, elements)",
        "throughput (GFLOP/s)",
    )
    .log_log();
    for (name, pts) in names.iter().zip(gflops) {
        chart.series.push(Series::new(*name, pts));
    }
    save_chart(&out_dir()?.join("matmul_compare.png"), &chart)?;
    Ok(())
}
