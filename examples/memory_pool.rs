//! CuPy's memory-pool walkthrough: the bytes the pool holds for live arrays (`used_bytes`)
//! and in all (`total_bytes`, live plus cached for reuse) as arrays come and go; a dropped
//! array's buffer is kept and reused; `free_all_blocks` gives the cache back to the driver;
//! `set_limit` caps the pool, and an allocation past the cap is an `OutOfMemory` error that
//! leaves the device usable. Plots the two counts step by step (`memory_pool.png`).
//!
//! ```text
//! cargo run --release --example memory_pool
//! GPUARRAY_EXAMPLES_QUICK=1 cargo run --release --example memory_pool   # 1 MiB units
//! ```

mod common;

use common::{out_dir, quick, save_chart, Chart, Res, Series};
use gpuarray::{Device, Error};

const MIB: f64 = 1024.0 * 1024.0;

fn main() -> Res<()> {
    let dev = Device::new()?;
    println!("adapter: {} ({})", dev.info().name, dev.info().backend);
    let pool = dev.memory_pool();
    // Arrays of `unit` f32 elements: 64 MiB each (1 MiB in quick mode).
    let unit: usize = if quick() { 1 << 18 } else { 1 << 24 };
    let unit_bytes = (unit * 4) as u64;

    // (what happened, its short label for the plot, used, total)
    let mut steps: Vec<(String, &str, u64, u64)> = Vec::new();
    let mut log = |what: &str, short: &'static str| {
        let (used, total) = (pool.used_bytes(), pool.total_bytes());
        println!(
            "{:>2}  {what:<52} used {:>9.1} MiB   total {:>9.1} MiB   free blocks {}",
            steps.len(),
            used as f64 / MIB,
            total as f64 / MIB,
            pool.n_free_blocks()
        );
        steps.push((what.to_string(), short, used, total));
    };

    log("start", "start");
    let a = dev.zeros::<f32>([unit])?;
    log("a = zeros(unit)", "a");
    let b = dev.ones::<f32>([2 * unit])?;
    log("b = ones(2 unit)", "b");
    let c = a.add_scalar(1.0)?;
    log("c = a + 1", "c");
    drop(a);
    log("drop a: its buffer stays in the pool", "drop a");
    let d = dev.zeros::<f32>([unit])?;
    log("d = zeros(unit): reuses a's buffer", "d reuses");
    drop((b, c, d));
    log("drop b, c, d", "drop b,c,d");
    pool.free_all_blocks();
    log("free_all_blocks()", "free_all");

    let limit = 3 * unit_bytes;
    pool.set_limit(Some(limit));
    println!("    set_limit({:.1} MiB)", limit as f64 / MIB);
    let x = dev.zeros::<f32>([2 * unit])?;
    log("x = zeros(2 unit), within the limit", "x");
    match dev.zeros::<f32>([2 * unit]) {
        Err(e @ Error::OutOfMemory { .. }) => println!("    y = zeros(2 unit) -> error: {e}"),
        Err(e) => return Err(format!("expected OutOfMemory, got {e}").into()),
        Ok(_) => return Err("an allocation past the limit succeeded".into()),
    }
    log("y = zeros(2 unit) refused: past the limit", "y refused");
    drop(x);
    pool.set_limit(None);
    let y = dev.zeros::<f32>([2 * unit])?;
    log("drop x, set_limit(None), y = zeros(2 unit)", "no limit: y");
    // The device is still usable after the refusal.
    assert_eq!(y.sum()?.to_scalar()?, 0.0);
    drop(y);
    pool.free_all_blocks();
    log("drop y, free_all_blocks()", "free_all");

    let mut chart = Chart::new(
        format!(
            "memory pool, arrays of {:.0} MiB units, on {}",
            unit_bytes as f64 / MIB,
            dev.info().name
        ),
        "step (see the printed table)",
        "device memory held by the pool (MiB)",
    );
    let series = |f: fn(&(String, &str, u64, u64)) -> u64| {
        steps
            .iter()
            .enumerate()
            .map(|(i, s)| (i as f64, f(s) as f64 / MIB))
            .collect::<Vec<_>>()
    };
    chart
        .series
        .push(Series::new("used_bytes (live arrays)", series(|s| s.2)));
    chart
        .series
        .push(Series::new("total_bytes (live + cached)", series(|s| s.3)));
    chart.series.push(Series::new(
        format!("set_limit cap ({:.0} MiB)", limit as f64 / MIB),
        vec![(7.5, limit as f64 / MIB), (9.5, limit as f64 / MIB)],
    ));
    for (i, s) in steps.iter().enumerate() {
        let y = s.3 as f64 / MIB + 0.08 * (4 * unit_bytes) as f64 / MIB;
        chart.notes.push((i as f64 - 0.2, y, s.1.to_string()));
    }
    save_chart(&out_dir()?.join("memory_pool.png"), &chart)?;
    Ok(())
}
