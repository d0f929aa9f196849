//! `--sweep api_random`: draws of 64M elements from a stateful `Generator` (issue 18's
//! random rows), beside the CuPy peer's `cp.random.default_rng(seed)` draws of the same size
//! (`benches/peers/cupy_sweeps.py --sweep api_random`). A draw only writes its output, so
//! each row's floor is its bytes written over the bandwidth of the copy measured first in the
//! same run (`copy_f32_64M`, which reads and writes): written in each row's note. Every draw
//! computes one Philox4x32-10 block per four elements and stores them with one vec4 store.

use gpuarray::Device;

use crate::{gpu_median, want, Res, Row, QUICK_DIV};

/// Elements of every row (64M), before quick mode's division.
pub const N: usize = 1 << 26;

/// Every row of the sweep.
pub fn rows(dev: &Device, quick: bool) -> Res<Vec<Row>> {
    let n = if quick { N / QUICK_DIV } else { N };
    let mut rows = Vec::new();
    let a = dev.random_uniform::<f32>([n], 1)?;
    dev.synchronize()?;
    let copy_bytes = 8 * n as u64;
    let t_copy = gpu_median(dev, || a.add_scalar(0.0))?;
    let bandwidth = copy_bytes as f64 / t_copy; // bytes per ms
    rows.push(Row {
        name: "copy_f32_64M".into(),
        ms: t_copy,
        bytes: Some(copy_bytes),
        note: "add_scalar(0) as copy; its bandwidth gives the rows' floors".into(),
    });
    drop(a);
    let mut rng = dev.default_rng(7);
    let bytes = 4 * n as u64; // every row writes n 4-byte elements
    let floor = bytes as f64 / bandwidth;
    let row = |name: &str, t: f64| Row {
        name: name.into(),
        ms: t,
        bytes: Some(bytes),
        note: format!(
            "floor {floor:.4} ms = 4n B written / copy bandwidth ({:.2}x of it)",
            t / floor
        ),
    };
    if want("integers_i32_64M") {
        let t = gpu_median(dev, || rng.integers::<i32>([n], 0, 1000))?;
        rows.push(row("integers_i32_64M", t));
    }
    if want("standard_normal_f32_64M") {
        let t = gpu_median(dev, || rng.standard_normal::<f32>([n]))?;
        rows.push(row("standard_normal_f32_64M", t));
    }
    if want("poisson10_i32_64M") {
        let t = gpu_median(dev, || rng.poisson([n], 10.0))?;
        rows.push(row("poisson10_i32_64M", t));
    }
    Ok(rows)
}
