//! SAXPY-style timing: `y = x1 * x2 + b` as a hand-written [`RawKernel`] (one WGSL module
//! per workgroup size, 32 to 1024) and as an [`ElementwiseKernel`], timed with device
//! events for N = 10^4 to 10^8. Prints the table and plots time against N, one line per
//! workgroup size (`saxpy_timing.png`).
//!
//! ```text
//! cargo run --release --example saxpy_timing
//! GPUARRAY_EXAMPLES_QUICK=1 cargo run --release --example saxpy_timing   # N <= 10^6
//! ```

mod common;

use common::{out_dir, quick, save_chart, si, time_events, Chart, Res, Series};
use gpuarray::{Device, ElementwiseKernel, RawKernel};

/// The kernel, for workgroup size `wg`. Grids wider than the adapter's per-dimension limit
/// wrap into rows: element `i = id.x + id.y * (workgroups in x) * WG`.
fn raw_source(wg: u32) -> String {
    format!(
        r#"
struct P {{ n: u32, b: f32 }}
@group(0) @binding(0) var<storage, read> x1: array<f32>;
@group(0) @binding(1) var<storage, read> x2: array<f32>;
@group(0) @binding(2) var<storage, read_write> y: array<f32>;
@group(0) @binding(3) var<uniform> p: P;

@compute @workgroup_size({wg})
fn saxpy(@builtin(global_invocation_id) id: vec3<u32>,
         @builtin(num_workgroups) groups: vec3<u32>) {{
    let i = id.x + id.y * groups.x * {wg}u;
    if (i < p.n) {{
        y[i] = x1[i] * x2[i] + p.b;
    }}
}}
"#
    )
}

/// The grid covering `n` elements with workgroups of `wg`.
fn grid(dev: &Device, n: usize, wg: u32) -> [u32; 2] {
    let groups = n.div_ceil(wg as usize) as u32;
    let max = dev.limits().max_compute_workgroups_per_dimension;
    let gx = groups.min(max);
    [gx, groups.div_ceil(gx)]
}

fn main() -> Res<()> {
    let dev = Device::new()?;
    println!("adapter: {} ({})", dev.info().name, dev.info().backend);
    let quick = quick();
    let sizes: Vec<usize> = if quick {
        vec![10_000, 100_000, 1_000_000]
    } else {
        (4..=8).map(|e| 10usize.pow(e)).collect()
    };
    let max_wg = dev.limits().max_compute_invocations_per_workgroup;
    let wgs: Vec<u32> = [32, 64, 128, 256, 512, 1024]
        .into_iter()
        .filter(|&w| w <= max_wg)
        .collect();
    let b = 0.5f32;

    let raws = wgs
        .iter()
        .map(|&wg| RawKernel::new(&dev, &raw_source(wg), "saxpy"))
        .collect::<gpuarray::Result<Vec<_>>>()?;
    let ew = ElementwiseKernel::new(&dev, "T x1, T x2, T b", "T y", "y = x1 * x2 + b;", "saxpy")?;

    // Columns: one per workgroup size, then the ElementwiseKernel.
    let mut table: Vec<Vec<f64>> = vec![Vec::new(); wgs.len() + 1];
    print!("{:>12}", "N");
    for wg in &wgs {
        print!("{:>12}", format!("raw wg={wg}"));
    }
    println!("{:>14}   (ms per call)", "Elementwise");
    for &n in &sizes {
        let x1 = dev.random_uniform::<f32>([n], 1)?;
        let x2 = dev.random_uniform::<f32>([n], 2)?;
        let y = dev.zeros::<f32>([n])?;
        // About 100 ms of work per measurement on a fast GPU, at least 3 calls.
        let reps = if quick {
            3
        } else {
            (1_000_000_000 / n).clamp(3, 200)
        };
        print!("{:>12}", si(n as f64));
        for (k, (raw, &wg)) in raws.iter().zip(&wgs).enumerate() {
            let g = grid(&dev, n, wg);
            let ms = time_events(&dev, reps, || {
                raw.launch(g, &[&x1, &x2, &y, &(n as u32), &b])?;
                Ok(())
            })?;
            table[k].push(ms);
            print!("{ms:>12.4}");
        }
        // Check the last raw result against the host.
        let (h1, h2, hy) = (x1.to_vec()?, x2.to_vec()?, y.to_vec()?);
        let worst = (0..n)
            .map(|i| (hy[i] - (h1[i] * h2[i] + b)).abs())
            .fold(0.0f32, f32::max);
        if worst > 1e-5 {
            return Err(format!("raw kernel wrong at N = {n}: error {worst}").into());
        }
        let ms = time_events(&dev, reps, || {
            ew.call_into::<f32>(&[&x1, &x2, &b], &y)?;
            Ok(())
        })?;
        table[wgs.len()].push(ms);
        let bw = 12.0 * n as f64 / (ms * 1e-3) / 1e9;
        println!("{ms:>14.4}   ({bw:.0} GB/s)");
    }

    let mut chart = Chart::new(
        format!("y = x1 * x2 + b (f32) on {}", dev.info().name),
        "N (elements)",
        "time per call (ms)",
    )
    .log_log();
    for (k, col) in table.iter().enumerate() {
        let name = match wgs.get(k) {
            Some(wg) => format!("RawKernel, workgroup {wg}"),
            None => "ElementwiseKernel".to_string(),
        };
        let points = sizes.iter().map(|&n| n as f64).zip(col.iter().copied());
        chart.series.push(Series::new(name, points.collect()));
    }
    save_chart(&out_dir()?.join("saxpy_timing.png"), &chart)?;
    Ok(())
}
