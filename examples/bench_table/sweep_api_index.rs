//! `--sweep api_index`: the indexing rows of issue 18's `api` sweep beside the CuPy peer's
//! same rows (`benches/peers/cupy_sweep_api_index.py`): take (a random gather of 64M f32 by
//! 64M i32 indices, mode wrap as CuPy's `take`), boolean-mask select of 64M f32 (half
//! true), scatter_add of 16M f32 into 1M bins at random indices (`cupyx.scatter_add`). The
//! first row is a copy whose bandwidth gives every row's floor (bytes over it, in the note):
//! - take: indices read, gathered elements read, result written: 12 bytes per element
//!   (random reads fetch whole sectors, so neither side reaches it);
//! - select: input and mask read, the selected elements written: 8 n + 4 sel (gpuarray
//!   reads the mask twice more and writes and reads its running count);
//! - scatter_add: indices and values read once (8 bytes each), the bins read and written;
//!   mode wrap, unchecked as CuPy's (f32 adds by compare-and-swap: atomics on random bins);
//!   the same of i64 values into i64 bins where the adapter has SHADER_INT64 (issue 34:
//!   12 bytes an element read, 16 a bin; two 32-bit atomics an element, CuPy one 64-bit).

use gpuarray::{Device, IndexMode};

use crate::{gpu_median, want, Res, Row, QUICK_DIV};

/// Elements of the take and select rows (64M), values of scatter_add (16M) and its bins
/// (1M), before quick mode's division.
const N: usize = 1 << 26;
const SCATTER_N: usize = 1 << 24;
const BINS: usize = 1 << 20;

/// Every row of the sweep.
pub fn rows(dev: &Device, quick: bool) -> Res<Vec<Row>> {
    let div = if quick { QUICK_DIV } else { 1 };
    let (n, sn, bins) = (N / div, SCATTER_N / div, BINS / div);
    let x = dev.random_uniform::<f32>([n], 31)?;
    let idx = dev
        .random_uniform::<f32>([n], 32)?
        .mul_scalar(n as f32)?
        .cast::<i32>()?;
    let mask = dev
        .random_uniform::<f32>([n], 33)?
        .lt(&dev.full([n], 0.5f32)?)?;
    let vals = dev.random_uniform::<f32>([sn], 34)?;
    let sidx = dev
        .random_uniform::<f32>([sn], 35)?
        .mul_scalar(bins as f32)?
        .cast::<i32>()?;
    let hist = dev.zeros::<f32>([bins])?;
    // The i64 row's values (whole numbers below 2^20) and bins, where the adapter has i64.
    let wide = dev.supports::<i64>();
    let (vals64, hist64) = if wide {
        let v = vals.mul_scalar((1 << 20) as f32)?.cast::<i64>()?;
        (Some(v), Some(dev.zeros::<i64>([bins])?))
    } else {
        (None, None)
    };
    dev.synchronize()?;
    let mut rows = Vec::new();
    let t_copy = gpu_median(dev, || x.add_scalar(0.0))?;
    let bandwidth = (8 * n) as f64 / t_copy; // bytes per ms
    rows.push(Row {
        name: "copy_f32_64M".into(),
        ms: t_copy,
        bytes: Some(8 * n as u64),
        note: "add_scalar(0) as copy; its bandwidth gives the rows' floors".into(),
    });
    let sel = mask.count_nonzero()? as u64;
    let (n64, sn64, b64) = (n as u64, sn as u64, bins as u64);
    type Case<'a> = (&'a str, u64, Box<dyn Fn() -> gpuarray::Result<()> + 'a>);
    let mut cases: Vec<Case<'_>> = vec![
        (
            "take_f32_64M_random",
            12 * n64,
            Box::new(|| x.take_mode(&idx, 0, IndexMode::Wrap).map(drop)),
        ),
        (
            "select_f32_64M_half",
            8 * n64 + 4 * sel,
            Box::new(|| x.extract(&mask).map(drop)),
        ),
        (
            "scatter_add_f32_16M_1M_bins",
            8 * sn64 + 8 * b64,
            Box::new(|| hist.scatter_add_mode(0, &sidx, &vals, IndexMode::Wrap)),
        ),
    ];
    if let (Some(v), Some(h)) = (&vals64, &hist64) {
        let sidx = &sidx;
        cases.push((
            "scatter_add_i64_16M_1M_bins",
            12 * sn64 + 16 * b64,
            Box::new(move || h.scatter_add_mode(0, sidx, v, IndexMode::Wrap)),
        ));
    }
    for (name, bytes, f) in cases {
        if !want(name) {
            continue;
        }
        let t = gpu_median(dev, &f)?;
        let floor = bytes as f64 / bandwidth;
        rows.push(Row {
            name: name.into(),
            ms: t,
            bytes: Some(bytes),
            note: format!("floor {floor:.4} ms ({:.2}x of it)", t / floor),
        });
    }
    Ok(rows)
}
