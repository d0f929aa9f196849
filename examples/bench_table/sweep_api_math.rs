//! `--sweep api_math`: the math and logic rows of issue 18's `api` sweep over 64M f32, beside
//! the CuPy peer's same rows (`benches/peers/cupy_sweep_api_math.py`). The first row is a
//! copy (`add_scalar(0)`), whose bandwidth gives every row's floor: the bytes the row moves
//! (inputs read, output written) over that bandwidth, in its note.
//!
//! Inputs: uniform in [-2, 2); `isclose` compares `a` with `a` plus noise of 1e-5 (about
//! half the pairs close). `nansum` is in the `api_stats` part.

use gpuarray::{Array, Device};

use crate::{gpu_median, want, Res, Row, QUICK_DIV};

/// Elements of every row (64M), before quick mode's division.
pub const N: usize = 1 << 26;

type Op = fn(&Array<f32>, &Array<f32>) -> gpuarray::Result<()>;

/// The rows: name, bytes per element moved, and the call.
fn ops() -> Vec<(&'static str, u64, Op)> {
    vec![
        ("isclose_f32_64M", 12, |a, b| {
            a.isclose(b, 1e-5, 1e-8, false).map(drop)
        }),
        ("arctan2_f32_64M", 12, |a, b| a.atan2(b).map(drop)),
        ("erf_f32_64M", 8, |a, _| a.erf().map(drop)),
    ]
}

pub fn rows(dev: &Device, quick: bool) -> Res<Vec<Row>> {
    let n = if quick { N / QUICK_DIV } else { N };
    let a = dev.random_uniform_in::<f32>([n], -2.0, 2.0, 21)?;
    let noise = dev.random_uniform_in::<f32>([n], -1e-5, 1e-5, 22)?;
    let b = a.add(&noise)?;
    drop(noise);
    dev.synchronize()?;
    let copy_bytes = 8 * n as u64;
    let t_copy = gpu_median(dev, || a.add_scalar(0.0))?;
    let bandwidth = copy_bytes as f64 / t_copy;
    let mut rows = vec![Row {
        name: "copy_f32_64M".into(),
        ms: t_copy,
        bytes: Some(copy_bytes),
        note: "add_scalar(0) as copy; its bandwidth gives the rows' floors".into(),
    }];
    for (name, per, f) in ops() {
        if !want(name) {
            continue;
        }
        let t = gpu_median(dev, || f(&a, &b))?;
        let bytes = per * n as u64;
        let floor = bytes as f64 / bandwidth;
        rows.push(Row {
            name: name.into(),
            ms: t,
            bytes: Some(bytes),
            note: format!(
                "floor {floor:.4} ms = {per} B x n / copy bandwidth ({:.2}x)",
                t / floor
            ),
        });
    }
    Ok(rows)
}
