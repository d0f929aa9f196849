//! `--sweep linalg_spectral`: eigh, eigvalsh, svd and svdvals at n = 256, 1024 and 4096
//! (eigh and eigvalsh in f32 and f64; svd and svdvals at 4096 in f32 only, as the peer: the
//! polar route), the batched rows (10,000 matrices of 8 x 8 and 32 x 32: eigh, svd and
//! svdvals), and
//! lstsq and pinv at 1024, beside the CuPy peer's same rows
//! (`benches/peers/cupy_sweep_linalg_spectral.py`: cuSOLVER through `cupy.linalg`).
//!
//! Rows are named `<op>_<dtype>_<n>` and `<op>_<dtype>_b<count>x<n>`. Inputs: uniform in
//! [-1, 1) (eigh reads the lower triangle). Each row's note gives its floor first: LAPACK's
//! flop count of the operation over the product rate this GPU reaches (50 TFLOP/s f32, 34
//! f64): eigh 9 n^3 (values only 4/3 n^3), svd 21 n^3 (values only 8/3 n^3), lstsq and pinv
//! as svd plus their products. The large rows are slow: each is timed once after one
//! warm-up (the small ones as the other sweeps), so the sweep ends in minutes.

use gpuarray::linalg::{eigh, eigvalsh, lstsq, pinv, svd, svdvals, Triangle};
use gpuarray::{Array, Device, Float};

use std::time::Instant;

use crate::{gpu_median, median, want, Res, Row};

/// Product rates for the floors, in flops per ms.
const PEAK_F32: f64 = 50e9;
const PEAK_F64: f64 = 34e9;

/// Wall time per call of `op` (each followed by a synchronize): the median of `reps` after
/// one warm-up.
fn timed<R>(dev: &Device, reps: usize, mut op: impl FnMut() -> gpuarray::Result<R>) -> Res<f64> {
    drop(op()?);
    dev.synchronize()?;
    let mut t = Vec::with_capacity(reps);
    for _ in 0..reps {
        let t0 = Instant::now();
        drop(op()?);
        dev.synchronize()?;
        t.push(t0.elapsed().as_secs_f64() * 1e3);
    }
    Ok(median(t))
}

fn push(rows: &mut Vec<Row>, name: String, ms: f64, flops: f64, peak: f64, what: &str) {
    let floor = flops / peak;
    rows.push(Row {
        name,
        ms,
        bytes: None,
        note: format!(
            "floor {floor:.4} ms = {what} flops / product rate ({:.1}x the floor)",
            ms / floor
        ),
    });
}

fn dtype_rows<T: Float>(dev: &Device, quick: bool, rows: &mut Vec<Row>) -> Res<()> {
    let d = if T::DTYPE == gpuarray::DType::F64 {
        "f64"
    } else {
        "f32"
    };
    let peak = if d == "f64" { PEAK_F64 } else { PEAK_F32 };
    let sizes: &[usize] = &[256, 1024, 4096];
    for &n0 in sizes {
        let n = if quick { (n0 / 16).min(64) } else { n0 };
        let nf = n as f64;
        let reps = if n0 >= 1024 { 3 } else { 5 };
        let a: Array<T> = dev.random_uniform_in([n, n], T::from_f64(-1.0), T::from_f64(1.0), 7)?;
        // At 4096 the SVD rows are f32 only (the peer has no f64 rows there).
        let jacobi_row = n0 < 4096;
        // eigh from n = 33 on is the tridiagonal route (inverse iteration, back-transform
        // through matmul): a row at every size.
        let name = format!("eigh_{d}_{n0}");
        if want(&name) {
            let t = timed(dev, reps, || eigh(&a, Triangle::Lower))?;
            push(rows, name, t, 9.0 * nf.powi(3), peak, "9 n^3");
        }
        let name = format!("eigvalsh_{d}_{n0}");
        if want(&name) {
            let t = timed(dev, reps, || eigvalsh(&a, Triangle::Lower))?;
            push(rows, name, t, 4.0 / 3.0 * nf.powi(3), peak, "4/3 n^3");
        }
        // From min(M, N) = 384 the SVD takes the polar route (QDWH, then eigh of H): at
        // 4096 in f32 too (the peer has no f64 row there).
        let svd_row = jacobi_row || d == "f32";
        let name = format!("svd_{d}_{n0}");
        if svd_row && want(&name) {
            let t = timed(dev, reps, || svd(&a, true, true))?;
            push(rows, name, t, 21.0 * nf.powi(3), peak, "21 n^3");
        }
        let name = format!("svdvals_{d}_{n0}");
        if svd_row && want(&name) {
            let t = timed(dev, reps, || svdvals(&a))?;
            push(rows, name, t, 8.0 / 3.0 * nf.powi(3), peak, "8/3 n^3");
        }
        if n0 == 1024 {
            let b: Array<T> =
                dev.random_uniform_in([n, 1], T::from_f64(-1.0), T::from_f64(1.0), 8)?;
            let name = format!("lstsq_{d}_{n0}");
            if want(&name) {
                let t = timed(dev, reps, || lstsq(&a, &b, None).map(|r| r.x))?;
                push(
                    rows,
                    name,
                    t,
                    21.0 * nf.powi(3) + 4.0 * nf * nf,
                    peak,
                    "21 n^3 + 4 n^2",
                );
            }
            let name = format!("pinv_{d}_{n0}");
            if want(&name) {
                let t = timed(dev, reps, || pinv(&a, None))?;
                push(rows, name, t, 23.0 * nf.powi(3), peak, "21 n^3 + 2 n^3");
            }
        }
    }
    // The batched rows: 10,000 matrices of 8 x 8 and 32 x 32.
    let count = if quick { 100 } else { 10_000 };
    for n in [8usize, 32] {
        let nf = n as f64;
        let a: Array<T> =
            dev.random_uniform_in([count, n, n], T::from_f64(-1.0), T::from_f64(1.0), 9)?;
        let c = count as f64;
        // The batched rows as the other sweeps time theirs (quick mode: 3 calls).
        let time = |op: &mut dyn FnMut() -> gpuarray::Result<()>| -> Res<f64> {
            if quick {
                timed(dev, 3, op)
            } else {
                gpu_median(dev, op)
            }
        };
        let name = format!("eigh_{d}_b10000x{n}");
        if want(&name) {
            let t = time(&mut || eigh(&a, Triangle::Lower).map(drop))?;
            push(rows, name, t, c * 9.0 * nf.powi(3), peak, "count x 9 n^3");
        }
        let name = format!("svd_{d}_b10000x{n}");
        if want(&name) {
            let t = time(&mut || svd(&a, true, true).map(drop))?;
            push(rows, name, t, c * 21.0 * nf.powi(3), peak, "count x 21 n^3");
        }
        let name = format!("svdvals_{d}_b10000x{n}");
        if want(&name) {
            let t = time(&mut || svdvals(&a).map(drop))?;
            push(
                rows,
                name,
                t,
                c * 8.0 / 3.0 * nf.powi(3),
                peak,
                "count x 8/3 n^3",
            );
        }
    }
    Ok(())
}

pub fn rows(dev: &Device, quick: bool) -> Res<Vec<Row>> {
    let mut rows = Vec::new();
    dtype_rows::<f32>(dev, quick, &mut rows)?;
    dtype_rows::<f64>(dev, quick, &mut rows)?;
    Ok(rows)
}
