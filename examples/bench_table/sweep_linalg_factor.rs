//! `--sweep linalg_factor`: `gpuarray::linalg` beside CuPy's `cupy.linalg` (cuSOLVER), the
//! peer `benches/peers/cupy_sweep_linalg_factor.py`.
//!
//! Floors, written first: each row's flops over the product rate this GPU reaches (the H200:
//! 50 TFLOP/s f32, 34 TFLOP/s f64 FMA), counted as LAPACK counts them: cholesky n^3/3,
//! solve (LU and two triangular solves of one vector) 2n^3/3 + 2n^2, inv 2n^3, det (LU)
//! 2n^3/3; the batched solves `count * (2n^3/3 + 2n^2)`.
//!
//! | row | f32 floor | f64 floor |
//! |---|---:|---:|
//! | cholesky 256 / 1024 / 4096 | 0.0001 / 0.007 / 0.46 ms | 0.0002 / 0.011 / 0.67 ms |
//! | solve 256 / 1024 / 4096 | 0.0002 / 0.014 / 0.92 ms | 0.0003 / 0.021 / 1.35 ms |
//! | inv 256 / 1024 / 4096 | 0.0007 / 0.043 / 2.75 ms | 0.0010 / 0.063 / 4.04 ms |
//! | det 256 / 1024 / 4096 | as solve, less 2n^2 | |
//! | solve of 10,000 8x8 / 32x32 | 0.0001 / 0.0048 ms | 0.0002 / 0.0071 ms |
//!
//! cuSOLVER's times (issue 32, H200, CuPy 14.2) are 5-20x above these floors: the panels
//! and the host round trips bound it, not the products.
//!
//! Rows are `<op>_<dtype>_<n>` and `solve_batched_<dtype>_<count>x<n>`. Inputs: uniform in
//! [-1, 1) plus `n` on the diagonal (well conditioned; symmetric positive definite for
//! cholesky: `M M^T / n + I`). The device is opened with `Options::linalg_check` off, as
//! CuPy does not check by default: no status word is read back, nothing waits.
//!
//! The row table is generic ([`Case`]: a name, its flops, its peak and a setup that makes
//! the timed closure): the other linalg sweeps' row modules add their cases to [`cases`].

use gpuarray::{linalg, Array, Device, Float, Options};

use std::time::Instant;

use crate::{gpu_median, median, want, Res, Row};

/// Peak rates for the floors (H200 products), in flops per ms.
const PEAK_F32: f64 = 50e9;
const PEAK_F64: f64 = 34e9;
/// Warm-up before a row is timed, ms (the GPU's clock, as sweep_linalg's `timed`).
const WARM_MS: f64 = 300.0;

/// The work of one row, made by its setup: run once per call, inputs held inside.
pub type Timed = Box<dyn FnMut() -> gpuarray::Result<()>>;

/// What makes a row's work on a device: its inputs, then the closure holding them.
pub type Setup = Box<dyn Fn(&Device) -> Res<Timed>>;

/// One row: its name, its flops, the peak for its floor and the setup making its work.
pub struct Case {
    pub name: String,
    pub flops: f64,
    pub peak: f64,
    pub setup: Setup,
}

/// `n x n` random matrices (a stack of `count`) with `n` added on the diagonal.
fn well_conditioned<T: Float>(dev: &Device, count: usize, n: usize) -> gpuarray::Result<Array<T>> {
    let r = dev.random_uniform_in::<T>([count, n, n], T::from_f64(-1.0), T::from_f64(1.0), 7)?;
    let d = dev.eye::<T>(n)?.mul_scalar(T::from_f64(n as f64))?;
    r.add(&d)
}

/// `M M^T / n + I`: symmetric positive definite.
fn spd<T: Float>(dev: &Device, n: usize) -> gpuarray::Result<Array<T>> {
    let m = dev.random_uniform_in::<T>([n, n], T::from_f64(-1.0), T::from_f64(1.0), 8)?;
    let s = m.matmul(&m.t())?.mul_scalar(T::from_f64(1.0 / n as f64))?;
    s.add(&dev.eye::<T>(n)?)
}

fn square_cases<T: Float>(dt: &str, peak: f64, sizes: &[usize], out: &mut Vec<Case>) {
    for &n in sizes {
        let nf = n as f64;
        out.push(Case {
            name: format!("cholesky_{dt}_{n}"),
            flops: nf * nf * nf / 3.0,
            peak,
            setup: Box::new(move |dev| {
                let a = spd::<T>(dev, n)?;
                Ok(Box::new(move || {
                    linalg::cholesky(&a, linalg::Triangle::Lower).map(drop)
                }))
            }),
        });
        out.push(Case {
            name: format!("solve_{dt}_{n}"),
            flops: 2.0 * nf * nf * nf / 3.0 + 2.0 * nf * nf,
            peak,
            setup: Box::new(move |dev| {
                let a = well_conditioned::<T>(dev, 1, n)?.reshape([n, n])?;
                let b = dev.random_uniform_in::<T>([n], T::from_f64(-1.0), T::from_f64(1.0), 9)?;
                Ok(Box::new(move || linalg::solve(&a, &b).map(drop)))
            }),
        });
        out.push(Case {
            name: format!("inv_{dt}_{n}"),
            flops: 2.0 * nf * nf * nf,
            peak,
            setup: Box::new(move |dev| {
                let a = well_conditioned::<T>(dev, 1, n)?.reshape([n, n])?;
                Ok(Box::new(move || linalg::inv(&a).map(drop)))
            }),
        });
        out.push(Case {
            name: format!("det_{dt}_{n}"),
            flops: 2.0 * nf * nf * nf / 3.0,
            peak,
            setup: Box::new(move |dev| {
                let a = well_conditioned::<T>(dev, 1, n)?.reshape([n, n])?;
                Ok(Box::new(move || linalg::det(&a).map(drop)))
            }),
        });
    }
}

fn batched_case<T: Float>(dt: &str, peak: f64, count: usize, n: usize) -> Case {
    let nf = n as f64;
    Case {
        name: format!("solve_batched_{dt}_{count}x{n}"),
        flops: count as f64 * (2.0 * nf * nf * nf / 3.0 + 2.0 * nf * nf),
        peak,
        setup: Box::new(move |dev| {
            let a = well_conditioned::<T>(dev, count, n)?;
            let b =
                dev.random_uniform_in::<T>([count, n, 1], T::from_f64(-1.0), T::from_f64(1.0), 10)?;
            Ok(Box::new(move || linalg::solve(&a, &b).map(drop)))
        }),
    }
}

/// The factorization rows (this module's), in the order of the table.
pub fn cases(quick: bool) -> Vec<Case> {
    let sizes: &[usize] = if quick {
        &[64, 256]
    } else {
        &[256, 1024, 4096]
    };
    let count = if quick { 1000 } else { 10_000 };
    let mut v = Vec::new();
    square_cases::<f32>("f32", PEAK_F32, sizes, &mut v);
    square_cases::<f64>("f64", PEAK_F64, sizes, &mut v);
    v.push(batched_case::<f32>("f32", PEAK_F32, count, 8));
    v.push(batched_case::<f32>("f32", PEAK_F32, count, 32));
    v.push(batched_case::<f64>("f64", PEAK_F64, count, 8));
    v.push(batched_case::<f64>("f64", PEAK_F64, count, 32));
    v
}

/// `gpu_median` for calls under 2 ms, else the median of 7 single calls (as
/// sweep_linalg's `timed`), after a warm-up of [`WARM_MS`].
fn timed(dev: &Device, op: &mut Timed) -> Res<f64> {
    op()?;
    dev.synchronize()?;
    let warm = Instant::now();
    while warm.elapsed().as_secs_f64() * 1e3 < WARM_MS {
        op()?;
        dev.synchronize()?;
    }
    let t0 = Instant::now();
    op()?;
    dev.synchronize()?;
    if t0.elapsed().as_secs_f64() * 1e3 < 2.0 {
        return gpu_median(dev, &mut *op);
    }
    let mut times = Vec::new();
    for _ in 0..7 {
        let t = Instant::now();
        op()?;
        dev.synchronize()?;
        times.push(t.elapsed().as_secs_f64() * 1e3);
    }
    Ok(median(times))
}

/// Times every case (those `GPUARRAY_BENCH_ONLY` selects) on `dev`, its inputs made just
/// before and dropped after.
pub fn time_cases(dev: &Device, cases: Vec<Case>) -> Res<Vec<Row>> {
    let mut rows = Vec::new();
    for c in cases {
        if !want(&c.name) {
            continue;
        }
        let mut op = (c.setup)(dev)?;
        let ms = timed(dev, &mut op)?;
        drop(op);
        let floor = c.flops / c.peak;
        rows.push(Row {
            name: c.name,
            ms,
            bytes: None,
            note: format!(
                "{:.2} TFLOP/s; floor {floor:.4} ms ({:.0}x)",
                c.flops / ms / 1e9,
                ms / floor
            ),
        });
    }
    Ok(rows)
}

pub fn rows(_dev: &Device, quick: bool) -> Res<Vec<Row>> {
    // A device of its own, without the status read-back (CuPy's default).
    let mut opts = Options::from_env()?;
    opts.linalg_check = false;
    let dev = Device::with_options(opts)?;
    time_cases(&dev, cases(quick))
}
