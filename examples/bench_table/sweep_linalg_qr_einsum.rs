//! `--sweep linalg_qr_einsum`: `linalg::qr` (reduced, Q formed) at n = 256, 1024, 4096 in
//! f32 and f64, and six einsum contractions a user writes, each beside the direct call it
//! maps to (`_direct` rows), beside the CuPy peer's same rows
//! (`benches/peers/cupy_sweep_linalg_qr_einsum.py`: cuSOLVER's geqrf + orgqr through
//! `cupy.linalg.qr`, `cupy.einsum` and cuBLAS / CuPy's reductions for the direct calls).
//!
//! Each row's floor is written first, in its note: for QR the flops of geqrf + orgqr
//! (`8/3 n^3` for a square matrix) over the rate of an n x n x n product of the same dtype
//! measured first in the same run (`mm_<dtype>_<n>` rows); for the einsum rows the product's
//! flops over that rate, or the bytes over the copy bandwidth (`copy_f32_64M`), the larger.
//! Quick mode divides the sizes by 8.
//!
//! The einsum rows: `einsum_mm` `"ij,jk->ik"` (direct: `matmul`), `einsum_bmm`
//! `"bij,bjk->bik"` (`matmul`), `einsum_rowdot` `"bi,bi->b"` (`mul` then `sum_axis(1)`),
//! `einsum_trace` `"ii->"` (`trace`), `einsum_matvec` `"ij,j->i"` (`matmul` by a vector),
//! `einsum_attn` `"bhqd,bhkd->bhqk"` (`matmul` by the keys' transposed view).

use std::time::Instant;

use gpuarray::linalg::{einsum, qr, QrMode};
use gpuarray::{Array, Device, Float};

use crate::{gpu_median, median, want, Res, Row};

/// `gpu_median` for calls under 2 ms, else the median of 5 single calls (after one).
fn timed<R>(dev: &Device, mut op: impl FnMut() -> gpuarray::Result<R>) -> Res<f64> {
    drop(op()?);
    dev.synchronize()?;
    let t0 = Instant::now();
    drop(op()?);
    dev.synchronize()?;
    if t0.elapsed().as_secs_f64() * 1e3 < 2.0 {
        return gpu_median(dev, op);
    }
    let mut times = Vec::new();
    for _ in 0..5 {
        let t = Instant::now();
        drop(op()?);
        dev.synchronize()?;
        times.push(t.elapsed().as_secs_f64() * 1e3);
    }
    Ok(median(times))
}

fn uniform<T: Float>(dev: &Device, shape: &[usize], seed: u64) -> Res<Array<T>> {
    Ok(dev.random_uniform_in::<T>(shape, T::from_f64(-1.0), T::from_f64(1.0), seed)?)
}

/// The rate of an n^3 product of `T` (flops per ms), as its row (measured once a run).
fn product_rate<T: Float>(dev: &Device, dt: &str, n: usize, rows: &mut Vec<Row>) -> Res<f64> {
    let flops = 2.0 * (n as f64).powi(3);
    let name = format!("mm_{dt}_{n}");
    if let Some(r) = rows.iter().find(|r| r.name == name) {
        return Ok(flops / r.ms);
    }
    let a = uniform::<T>(dev, &[n, n], 1)?;
    let b = uniform::<T>(dev, &[n, n], 2)?;
    let t = timed(dev, || a.matmul(&b))?;
    rows.push(Row {
        name,
        ms: t,
        bytes: None,
        note: format!("{:.2} TFLOP/s: the rate of the floors", flops / t / 1e9),
    });
    Ok(flops / t)
}

fn qr_rows<T: Float>(dev: &Device, dt: &str, quick: bool, rows: &mut Vec<Row>) -> Res<()> {
    for full in [256usize, 1024, 4096] {
        let name = format!("qr_{dt}_{full}");
        if !want(&name) {
            continue;
        }
        let n = if quick { full / 8 } else { full };
        let rate = product_rate::<T>(dev, dt, n, rows)?;
        let floor = 8.0 / 3.0 * (n as f64).powi(3) / rate;
        let a = uniform::<T>(dev, &[n, n], 3)?;
        let t = timed(dev, || qr(&a, QrMode::Reduced))?;
        rows.push(Row {
            name,
            ms: t,
            bytes: None,
            note: format!(
                "floor {floor:.3} ms (8/3 n^3 at the product's rate; {:.1}x of it)",
                t / floor
            ),
        });
    }
    Ok(())
}

/// Pushes an einsum row and its direct row, with their floor.
#[allow(clippy::too_many_arguments)]
fn pair<A, B>(
    dev: &Device,
    rows: &mut Vec<Row>,
    name: &str,
    floor: f64,
    bytes: u64,
    mut via_einsum: impl FnMut() -> gpuarray::Result<A>,
    mut direct: impl FnMut() -> gpuarray::Result<B>,
) -> Res<()> {
    if !want(name) {
        return Ok(());
    }
    let td = timed(dev, &mut direct)?;
    let te = timed(dev, &mut via_einsum)?;
    rows.push(Row {
        name: format!("{name}_direct"),
        ms: td,
        bytes: Some(bytes),
        note: format!("floor {floor:.4} ms; the call the einsum row maps to"),
    });
    rows.push(Row {
        name: name.into(),
        ms: te,
        bytes: Some(bytes),
        note: format!("floor {floor:.4} ms; {:.2}x the direct call", te / td),
    });
    Ok(())
}

pub fn rows(dev: &Device, quick: bool) -> Res<Vec<Row>> {
    let mut rows = Vec::new();
    let q = |x: usize| if quick { (x / 8).max(8) } else { x };
    // The copy bandwidth and the f32 product rate of the einsum floors.
    let n = if quick { 1 << 20 } else { 1 << 26 };
    let x = dev.random_uniform_in::<f32>([n], 0.5, 1.5, 1)?;
    let t_copy = gpu_median(dev, || x.add_scalar(0.0))?;
    let bw = (8 * n) as f64 / t_copy;
    rows.push(Row {
        name: "copy_f32_64M".into(),
        ms: t_copy,
        bytes: Some(8 * n as u64),
        note: "add_scalar(0) as copy; its bandwidth gives the floors".into(),
    });
    drop(x);
    let rate = product_rate::<f32>(dev, "f32", q(4096), &mut rows)?;
    let floor = |flops: f64, bytes: usize| (flops / rate).max(bytes as f64 / bw);

    // "ij,jk->ik": a matrix product.
    let s = q(4096);
    let (a, b) = (
        uniform::<f32>(dev, &[s, s], 4)?,
        uniform::<f32>(dev, &[s, s], 5)?,
    );
    let fl = 2.0 * (s as f64).powi(3);
    pair(
        dev,
        &mut rows,
        "einsum_mm_f32_4096",
        floor(fl, 12 * s * s),
        (12 * s * s) as u64,
        || einsum("ij,jk->ik", &[&a, &b]),
        || a.matmul(&b),
    )?;
    drop((a, b));

    // "bij,bjk->bik": a batched product, 256 of 256.
    let (bt, m) = (q(256), q(256));
    let a = uniform::<f32>(dev, &[bt, m, m], 6)?;
    let b = uniform::<f32>(dev, &[bt, m, m], 7)?;
    let fl = 2.0 * (bt * m * m * m) as f64;
    let by = 12 * bt * m * m;
    pair(
        dev,
        &mut rows,
        "einsum_bmm_f32_256x256",
        floor(fl, by),
        by as u64,
        || einsum("bij,bjk->bik", &[&a, &b]),
        || a.matmul(&b),
    )?;
    drop((a, b));

    // "bi,bi->b": dots of rows, 65536 rows of 1024.
    let (r, c) = (q(65536), q(1024));
    let a = uniform::<f32>(dev, &[r, c], 8)?;
    let b = uniform::<f32>(dev, &[r, c], 9)?;
    let by = 8 * r * c + 4 * r;
    pair(
        dev,
        &mut rows,
        "einsum_rowdot_f32_65536x1024",
        floor(2.0 * (r * c) as f64, by),
        by as u64,
        || einsum("bi,bi->b", &[&a, &b]),
        || a.mul(&b)?.sum_axis(1, false),
    )?;
    drop((a, b));

    // "ii->": a trace, 8192 x 8192.
    let s = q(8192);
    let a = uniform::<f32>(dev, &[s, s], 10)?;
    // One element per row: a 32-byte sector read per diagonal element.
    let by = 32 * s;
    pair(
        dev,
        &mut rows,
        "einsum_trace_f32_8192",
        floor(s as f64, by),
        by as u64,
        || einsum("ii->", &[&a]),
        || a.trace(),
    )?;

    // "ij,j->i": a matrix-vector product, 8192 x 8192.
    let v = uniform::<f32>(dev, &[s], 11)?;
    let by = 4 * (s * s + 2 * s);
    pair(
        dev,
        &mut rows,
        "einsum_matvec_f32_8192",
        floor(2.0 * (s * s) as f64, by),
        by as u64,
        || einsum("ij,j->i", &[&a, &v]),
        || a.matmul(&v),
    )?;
    drop((a, v));

    // "bhqd,bhkd->bhqk": attention scores, 8 x 16 heads, 1024 queries and keys of 64.
    let (bb, h, l, d) = (q(8).max(1), 16, q(1024), 64);
    let qs = uniform::<f32>(dev, &[bb, h, l, d], 12)?;
    let ks = uniform::<f32>(dev, &[bb, h, l, d], 13)?;
    let fl = 2.0 * (bb * h * l * l * d) as f64;
    let by = 4 * bb * h * (2 * l * d + l * l);
    pair(
        dev,
        &mut rows,
        "einsum_attn_f32_8x16x1024x64",
        floor(fl, by),
        by as u64,
        || einsum("bhqd,bhkd->bhqk", &[&qs, &ks]),
        || qs.matmul(&ks.swapaxes(-1, -2)?),
    )?;
    drop((qs, ks));

    qr_rows::<f32>(dev, "f32", quick, &mut rows)?;
    if dev.supports::<f64>() {
        qr_rows::<f64>(dev, "f64", quick, &mut rows)?;
    }
    Ok(rows)
}
