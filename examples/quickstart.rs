//! Quick start: opens the best adapter, moves data to it, does some elementwise math with
//! broadcasting, reads the result back and checks it against the same computation on the CPU.
//!
//! Run with `make demo` or `cargo run --release --example quickstart`.

use gpuarray::{Array, Device, Result};

fn main() -> Result<()> {
    let dev = Device::new()?;
    let info = dev.info();
    println!("adapter: {} ({}, {:?})", info.name, info.backend, info.kind);
    println!("features: {}", info.features.join(", "));
    println!(
        "dtypes: f32 i32 u32{}{}",
        if dev.supports::<gpuarray::f16>() {
            " f16"
        } else {
            ""
        },
        if dev.supports::<f64>() { " f64" } else { "" }
    );

    // A 3x4 matrix and a row of 4 offsets, broadcast over the rows.
    let m: Vec<f32> = (0..12).map(|i| i as f32 * 0.5).collect();
    let row = [1.0f32, -1.0, 2.0, -2.0];
    let x = dev.from_slice(&m, [3, 4])?;
    let r = dev.from_slice(&row, [4])?;

    // y = sqrt(|x + r|) * 2 - 1, and where y > 1 keep y, else 0.
    let y = x.add(&r)?.abs()?.sqrt()?.mul_scalar(2.0)?.sub_scalar(1.0)?;
    let z = Array::where_(&y.gt_scalar(1.0)?, &y, &dev.zeros::<f32>([1])?)?;
    let got = z.to_vec()?;

    let want: Vec<f32> = m
        .iter()
        .enumerate()
        .map(|(i, &v)| {
            let y = (v + row[i % 4]).abs().sqrt() * 2.0 - 1.0;
            if y > 1.0 {
                y
            } else {
                0.0
            }
        })
        .collect();
    println!("x + row, through sqrt, scaled and masked (3x4):");
    for line in got.chunks(4) {
        println!("  {line:8.4?}");
    }
    let worst = got
        .iter()
        .zip(&want)
        .map(|(a, b)| (a - b).abs())
        .fold(0.0f32, f32::max);
    println!("largest difference from the CPU: {worst:.2e}");
    println!("a transposed view: {:?}", x.t().slice(0..2)?.to_vec()?);
    let stats = dev.stats();
    println!(
        "{} dispatches in {} submits; pool holds {} bytes",
        stats.dispatches,
        stats.submits,
        dev.memory_pool().total_bytes()
    );
    if worst > 1e-5 {
        eprintln!("MISMATCH");
        std::process::exit(1);
    }
    println!("ok");
    Ok(())
}
