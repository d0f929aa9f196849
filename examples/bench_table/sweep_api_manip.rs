//! `--sweep api_manip`: joining and rearranging copies of issue 18 (concatenate, stack,
//! pad, flip, roll) on f32, beside the CuPy peer's same rows
//! (`benches/peers/cupy_sweep_api_manip.py`). Every row moves each element once (read and
//! write), so its floor is its bytes (read + written) over the bandwidth of the first row,
//! a plain 64M f32 copy timed in the same run.

use gpuarray::{Array, Device, PadMode};

use crate::{gpu_median, want, Res, Row, QUICK_DIV};

/// Elements of the 1-D rows and of the four joined inputs together (64M).
const N: usize = 1 << 26;
/// Side of the padded square (8192) and the width on every side (16).
const SIDE: usize = 8192;
const PAD: usize = 16;

/// Every row of the sweep.
pub fn rows(dev: &Device, quick: bool) -> Res<Vec<Row>> {
    let div = if quick { QUICK_DIV } else { 1 };
    let n = N / div;
    let x = dev.random_uniform::<f32>([n], 21)?;
    dev.synchronize()?;
    let bytes = 8 * n as u64;
    let t_copy = gpu_median(dev, || x.add_scalar(0.0))?;
    let bandwidth = bytes as f64 / t_copy;
    let mut rows = vec![Row {
        name: "manip_copy_f32_64M".into(),
        ms: t_copy,
        bytes: Some(bytes),
        note: "add_scalar(0) as copy; its bandwidth gives the rows' floors".into(),
    }];
    let mut push = |name: &str, bytes: u64, t: f64| {
        let floor = bytes as f64 / bandwidth;
        rows.push(Row {
            name: name.into(),
            ms: t,
            bytes: Some(bytes),
            note: format!(
                "floor {floor:.4} ms = bytes / copy bandwidth ({:.2}x of it)",
                t / floor
            ),
        });
    };
    // Four 4096 x 4096 inputs (16M each), joined along either axis or stacked.
    let side = 4096 / (div as f64).sqrt() as usize;
    let parts: Vec<Array<f32>> = (0..4)
        .map(|k| dev.random_uniform::<f32>([side, side], 30 + k))
        .collect::<gpuarray::Result<_>>()?;
    let refs: Vec<&Array<f32>> = parts.iter().collect();
    let joined = 8 * 4 * (side * side) as u64;
    type Join = fn(&[&Array<f32>]) -> gpuarray::Result<Array<f32>>;
    let joins: [(&str, Join); 3] = [
        ("concatenate_axis0_4x16M_f32", |r| Array::concatenate(r, 0)),
        ("concatenate_axis1_4x16M_f32", |r| Array::concatenate(r, 1)),
        ("stack_4x16M_f32", |r| Array::stack(r, 0)),
    ];
    for (name, f) in joins {
        if want(name) {
            push(name, joined, gpu_median(dev, || f(&refs))?);
        }
    }
    if want("pad_reflect_8192_f32") {
        let s = SIDE / (div as f64).sqrt() as usize;
        let img = dev.random_uniform::<f32>([s, s], 40)?;
        let out = (s + 2 * PAD) * (s + 2 * PAD);
        let bytes = 4 * (s * s + out) as u64;
        let t = gpu_median(dev, || img.pad(&[(PAD, PAD)], PadMode::Reflect))?;
        push("pad_reflect_8192_f32", bytes, t);
    }
    if want("flip_64M_f32") {
        // flip is a view (a negative stride), as CuPy's: the row makes it contiguous, as the
        // peer's row does.
        let t = gpu_median(dev, || x.flip(0).and_then(|f| f.contiguous()))?;
        push("flip_64M_f32", bytes, t);
    }
    if want("roll_64M_f32") {
        push("roll_64M_f32", bytes, gpu_median(dev, || x.roll(12345, 0))?);
    }
    Ok(rows)
}
