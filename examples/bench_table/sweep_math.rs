//! `--sweep math`: the float functions of the elementwise family over 16M elements of each
//! float dtype, beside the CuPy peer's same rows (`benches/peers/cupy_sweeps.py --sweep
//! math`). Each dtype's rows start with its copy (`copy_<dtype>_16M`, `add_scalar(0)`),
//! whose bandwidth gives every row's floor: the bytes it moves over that bandwidth, in the
//! row's note. Most rows are bandwidth-bound on a large GPU; where a row's time is well
//! above its floor, the function's arithmetic (the accurate paths of the numerics issue,
//! or f64 in software) is what costs.
//!
//! Inputs: uniform in [0.5, 1.5) (both operands of the binary rows), and for the `_wide`
//! rows uniform in [-1e4, 1e4), where sin, cos and tan need their longer range reduction
//! and tanh is mostly saturated (CuPy has the same rows).

use gpuarray::{f16, Array, Device, Float};

use crate::{gpu_median, want, Res, Row, QUICK_DIV};

/// Elements of every row (16M), before quick mode's division.
pub const N: usize = 1 << 24;

type Op<T> = fn(&Array<T>, &Array<T>) -> gpuarray::Result<Array<T>>;

/// The functions timed: name, operands read (1 or 2), whether the input is the wide one,
/// and the call.
fn ops<T: Float>() -> Vec<(&'static str, u64, bool, Op<T>)> {
    vec![
        ("div", 2, false, |a, b| a.div(b)),
        ("rem", 2, false, |a, b| a.rem(b)),
        ("pow", 2, false, |a, b| a.pow(b)),
        ("exp", 1, false, |a, _| a.exp()),
        ("log", 1, false, |a, _| a.log()),
        ("log1p", 1, false, |a, _| a.log1p()),
        ("expm1", 1, false, |a, _| a.expm1()),
        ("tanh", 1, false, |a, _| a.tanh()),
        ("sin", 1, false, |a, _| a.sin()),
        ("tan", 1, false, |a, _| a.tan()),
        ("sin_wide", 1, true, |a, _| a.sin()),
        ("tan_wide", 1, true, |a, _| a.tan()),
        ("tanh_wide", 1, true, |a, _| a.tanh()),
        ("cos", 1, false, |a, _| a.cos()),
        ("cos_wide", 1, true, |a, _| a.cos()),
    ]
}

/// Every row of the sweep, for each float dtype the adapter has.
pub fn rows(dev: &Device, quick: bool) -> Res<Vec<Row>> {
    let n = if quick { N / QUICK_DIV } else { N };
    let mut rows = Vec::new();
    dtype_rows::<f32>(dev, n, "f32", &mut rows)?;
    if dev.supports::<f16>() {
        dtype_rows::<f16>(dev, n, "f16", &mut rows)?;
    }
    if dev.supports::<f64>() {
        dtype_rows::<f64>(dev, n, "f64", &mut rows)?;
    }
    Ok(rows)
}

fn dtype_rows<T: Float>(dev: &Device, n: usize, dt: &str, rows: &mut Vec<Row>) -> Res<()> {
    let size = std::mem::size_of::<T>() as u64;
    let (lo, hi) = (T::from_f64(0.5), T::from_f64(1.5));
    let a = dev.random_uniform_in::<T>([n], lo, hi, 11)?;
    let b = dev.random_uniform_in::<T>([n], lo, hi, 12)?;
    let (wlo, whi) = (T::from_f64(-1e4), T::from_f64(1e4));
    let wide = dev.random_uniform_in::<T>([n], wlo, whi, 13)?;
    dev.synchronize()?;
    let copy_bytes = 2 * size * n as u64;
    let t_copy = gpu_median(dev, || a.add_scalar(T::from_f64(0.0)))?;
    let bandwidth = copy_bytes as f64 / t_copy; // bytes per ms
    rows.push(Row {
        name: format!("copy_{dt}_16M"),
        ms: t_copy,
        bytes: Some(copy_bytes),
        note: "add_scalar(0) as copy; its bandwidth gives the rows' floors".into(),
    });
    for (op, operands, is_wide, f) in ops::<T>() {
        let name = format!("{op}_{dt}_16M");
        if !want(&name) {
            continue;
        }
        let x = if is_wide { &wide } else { &a };
        if let Err(e) = f(x, &b) {
            println!("{name}: skipped ({e})");
            continue;
        }
        let t = gpu_median(dev, || f(x, &b))?;
        let bytes = (operands + 1) * size * n as u64;
        let floor = bytes as f64 / bandwidth;
        rows.push(Row {
            name,
            ms: t,
            bytes: Some(bytes),
            note: format!("floor {floor:.4} ms ({:.2}x of it)", t / floor),
        });
    }
    Ok(())
}
