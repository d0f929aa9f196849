//! `--sweep api_stats`: the statistics row of issue 18's `api` sweep, `nansum` over 64M f32
//! with 1% NaN, beside the CuPy peer's same row (`benches/peers/cupy_sweep_api_stats.py`,
//! `cp.nansum`). The first row is a copy (`add_scalar(0)`), whose bandwidth gives the
//! floor: the row reads 4n bytes (its output is one element), over that bandwidth.
//!
//! Inputs: uniform in [-2, 2), NaN where a second uniform draw is below 0.01.

use gpuarray::{Array, Device};

use crate::{gpu_median, want, Res, Row, QUICK_DIV};

/// Elements of every row (64M), before quick mode's division.
pub const N: usize = 1 << 26;

pub fn rows(dev: &Device, quick: bool) -> Res<Vec<Row>> {
    let n = if quick { N / QUICK_DIV } else { N };
    let x = dev.random_uniform_in::<f32>([n], -2.0, 2.0, 31)?;
    let u = dev.random_uniform_in::<f32>([n], 0.0, 1.0, 32)?;
    let nan = dev.full([n], f32::NAN)?;
    let a = Array::where_(&u.lt_scalar(0.01)?, &nan, &x)?;
    drop((x, u, nan));
    dev.synchronize()?;
    let copy_bytes = 8 * n as u64;
    let t_copy = gpu_median(dev, || a.add_scalar(0.0))?;
    let bandwidth = copy_bytes as f64 / t_copy;
    let mut rows = vec![Row {
        name: "stats_copy_f32_64M".into(),
        ms: t_copy,
        bytes: Some(copy_bytes),
        note: "add_scalar(0) as copy; its bandwidth gives the rows' floors".into(),
    }];
    let name = "nansum_f32_64M";
    if want(name) {
        let t = gpu_median(dev, || a.nansum())?;
        let bytes = 4 * n as u64;
        let floor = bytes as f64 / bandwidth;
        rows.push(Row {
            name: name.into(),
            ms: t,
            bytes: Some(bytes),
            note: format!(
                "floor {floor:.4} ms = 4 B x n / copy bandwidth ({:.2}x)",
                t / floor
            ),
        });
    }
    Ok(rows)
}
