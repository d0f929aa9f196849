//! `--sweep complex`: complex arrays beside the CuPy peer's same rows
//! (`benches/peers/cupy_sweep_complex.py`): copy, multiply, exp and abs of 64M complex64,
//! multiply, exp and abs of 32M complex128, a complex64 matrix product at 4096. Floors
//! first:
//! - the elementwise rows move their bytes once (multiply: two 8-byte inputs and an 8-byte
//!   output, 24 bytes per complex64 element, 48 per complex128; exp 16 and 32; abs 12 and
//!   24): floor =
//!   bytes over the copy bandwidth the first row measures (3.7 TB/s on the H200 through
//!   Vulkan);
//! - the product: 8 M N K flops (a complex multiply-add is 4 real multiplies and 4 adds),
//!   5.5e11 at 4096, floor 11 ms at 50 TFLOP/s (the rate the real f32 kernels reach);
//!   computed as one real product of the planar [Ar; Ai] and [Br, Bi] (src/ops/linalg/
//!   complex.rs), whose extra passes move 6 M N bytes more.

use gpuarray::{Complex, ComplexOps, Device};

use crate::{gpu_median, want, Res, Row, QUICK_DIV};

const N: usize = 1 << 26;
const SIDE: usize = 4096;
/// The rate the product's floor assumes (flops per ms).
const FLOPS_PER_MS: f64 = 50e12 / 1e3;

/// Every row of the sweep.
pub fn rows(dev: &Device, quick: bool) -> Res<Vec<Row>> {
    let n = if quick { N / QUICK_DIV } else { N };
    let side = if quick { SIDE / 8 } else { SIDE };
    let pair = |seed: u64, n: usize| -> gpuarray::Result<gpuarray::Array<Complex<f32>>> {
        let re = dev.random_uniform::<f32>([n], seed)?;
        let im = dev.random_uniform::<f32>([n], seed + 1)?;
        gpuarray::Array::complex(&re, &im)
    };
    let x = pair(31, n)?;
    let y = pair(33, n)?;
    let a = pair(35, side * side)?.reshape([side, side])?;
    let b = pair(37, side * side)?.reshape([side, side])?;
    let mut rows = Vec::new();
    dev.synchronize()?;
    let t_copy = gpu_median(dev, || x.copy())?;
    let bandwidth = (16 * n) as f64 / t_copy; // bytes per ms
    rows.push(Row {
        name: "copy_c64_64M".into(),
        ms: t_copy,
        bytes: Some(16 * n as u64),
        note: "copy; its bandwidth gives the rows' floors".into(),
    });
    let n64 = n as u64;
    let cases: Vec<Case<'_>> = vec![
        ("mul_c64_64M", 24 * n64, Box::new(|| x.mul(&y).map(drop))),
        ("exp_c64_64M", 16 * n64, Box::new(|| x.exp().map(drop))),
        ("abs_c64_64M", 12 * n64, Box::new(|| x.abs().map(drop))),
    ];
    time_cases(dev, cases, bandwidth, &mut rows)?;
    let c128_rows = ["mul_c128_32M", "exp_c128_32M", "abs_c128_32M"];
    if c128_rows.iter().any(|r| want(r)) && dev.supports::<Complex<f64>>() {
        let h = n / 2;
        let u = x.slice_axis(0, 0..h)?.cast::<Complex<f64>>()?;
        let v = y.slice_axis(0, 0..h)?.cast::<Complex<f64>>()?;
        let h64 = h as u64;
        let cases: Vec<Case<'_>> = vec![
            ("mul_c128_32M", 48 * h64, Box::new(|| u.mul(&v).map(drop))),
            ("exp_c128_32M", 32 * h64, Box::new(|| u.exp().map(drop))),
            ("abs_c128_32M", 24 * h64, Box::new(|| u.abs().map(drop))),
        ];
        time_cases(dev, cases, bandwidth, &mut rows)?;
    }
    if want("matmul_c64_4096") {
        let flops = 8.0 * (side as f64).powi(3);
        let t = gpu_median(dev, || a.matmul(&b).map(drop))?;
        let floor = flops / FLOPS_PER_MS;
        rows.push(Row {
            name: "matmul_c64_4096".into(),
            ms: t,
            bytes: None,
            note: format!(
                "{:.1} TFLOP/s; floor {floor:.3} ms at 50 TFLOP/s ({:.2}x of it)",
                flops / t / 1e9,
                t / floor
            ),
        });
    }
    Ok(rows)
}

/// A row of the sweep: its name, the bytes it moves, one call of its work.
type Case<'a> = (&'a str, u64, Box<dyn Fn() -> gpuarray::Result<()> + 'a>);

/// Times each wanted case of `cases`, its floor the bytes over the copy's `bandwidth`.
fn time_cases(dev: &Device, cases: Vec<Case<'_>>, bandwidth: f64, rows: &mut Vec<Row>) -> Res<()> {
    for (name, bytes, f) in cases {
        if !want(name) {
            continue;
        }
        let t = gpu_median(dev, f)?;
        let floor = bytes as f64 / bandwidth;
        rows.push(Row {
            name: name.into(),
            ms: t,
            bytes: Some(bytes),
            note: format!("floor {floor:.4} ms ({:.2}x of it)", t / floor),
        });
    }
    Ok(())
}
