//! `--sweep sort`: the sort family (issue 19's rows) beside the CuPy peer's same rows
//! (`benches/peers/cupy_sweep_sort.py`). The first row copies 64M u32 (`add_scalar(0)`);
//! its bandwidth gives every row's floor, in the row's note:
//! - a radix sort of 32-bit keys: 4 passes (8 bits each), each reading and writing the keys
//!   (and the values, for argsort): floor `passes * 2 * (key bytes [+ 4 index bytes]) * n /
//!   bandwidth`: the keys-only bound (`4 * 2 * 4 * n`) for the sorts, the key-index one for
//!   argsort, plus the i64 result's high words (`4 * n`). gpuarray's 1-D u32, i32 and f32 sorts move the values alone (each digit taken
//!   of the value's key, so -0.0 and +0.0 keep their bits and input order);
//! - a row sort in workgroup memory: one read and one write of the values, `2 * 4 * n`;
//! - top_k (k = 100 of 64M f32): one read of the input, `4 * n` (a selection's bound;
//!   gpuarray's top_k is a radix select: four counting passes over the input, then one
//!   compaction and a sort of the k found);
//! - unique of 16M i32 in 0..65536: the keys-only radix sort's bound, `4 * 2 * 4 * n` (the
//!   flag, scan and compaction passes after it are left out of the floor);
//! - median of 64M f32: one read of the input, `4 * n` (a selection's bound; gpuarray's
//!   median is a radix select of its middle ranks: four counting passes over the input);
//! - sort, argsort and cumsum of 16M normal f64 (issue 34): the keys-only bound of 8
//!   passes (`8 * 2 * 8 * n`), the key-index one (`8 * 2 * 12 * n + 4 * n`), one read and
//!   one write (`2 * 8 * n`);
//! - last, the rows of `--sweep scan` that the issue lists with these (cumsum of 64M f32 and
//!   along axis 1 of 8192 x 8192, histogram of 64M f32 into 256 bins), after that sweep's
//!   f32 copy row, with its floors (`sweep_scan::issue_rows`).

use gpuarray::Device;

use crate::{gpu_median, want, Res, Row, QUICK_DIV};

/// Elements of the large rows (64M) and of the f32 rows (16M), before quick mode's division.
const BIG: usize = 1 << 26;
const MID: usize = 1 << 24;

/// A row from a time and the bytes of its floor.
fn row(name: &str, ms: f64, floor_bytes: u64, bandwidth: f64, formula: &str) -> Row {
    let floor = floor_bytes as f64 / bandwidth;
    Row {
        name: name.to_string(),
        ms,
        bytes: Some(floor_bytes),
        note: format!(
            "floor {floor:.4} ms = {formula} / copy bandwidth ({:.2}x of it)",
            ms / floor
        ),
    }
}

/// Every row of the sweep.
pub fn rows(dev: &Device, quick: bool) -> Res<Vec<Row>> {
    // Quick mode divides by more than the other sweeps: each row repeats a sort 505 times.
    let div = if quick { QUICK_DIV * 16 } else { 1 };
    let (big, mid) = (BIG / div, MID / div);
    let (nrows, ncols) = (8192 / div, 1024);
    let mut rows = Vec::new();
    let keys = dev
        .random_uniform::<f32>([big], 31)?
        .mul_scalar(4.0e9)?
        .cast::<u32>()?;
    let f = dev.random_normal::<f32>([mid], 32)?;
    let big_f = dev.random_normal::<f32>([big], 34)?;
    let m = dev.random_normal::<f32>([nrows, ncols], 33)?;
    let few = dev
        .random_uniform::<f32>([mid], 35)?
        .mul_scalar(65536.0)?
        .cast::<i32>()?;
    dev.synchronize()?;
    let copy_bytes = 2 * 4 * big as u64;
    let t_copy = gpu_median(dev, || keys.add_scalar(0))?;
    let bw = copy_bytes as f64 / t_copy;
    rows.push(Row {
        name: "copy_u32_64M".into(),
        ms: t_copy,
        bytes: Some(copy_bytes),
        note: "add_scalar(0) as copy; its bandwidth gives the rows' floors".into(),
    });
    let (b, md) = (big as u64, mid as u64);
    if want("sort_u32_64M") {
        let t = gpu_median(dev, || keys.sort())?;
        rows.push(row(
            "sort_u32_64M",
            t,
            4 * 2 * 4 * b,
            bw,
            "4 passes * 2 * 4 B * n",
        ));
    }
    if want("sort_f32_16M") {
        let t = gpu_median(dev, || f.sort())?;
        rows.push(row(
            "sort_f32_16M",
            t,
            4 * 2 * 4 * md,
            bw,
            "4 passes * 2 * 4 B * n",
        ));
    }
    if want("argsort_f32_16M") {
        let t = gpu_median(dev, || f.argsort())?;
        rows.push(row(
            "argsort_f32_16M",
            t,
            4 * 2 * 8 * md + 4 * md,
            bw,
            "4 passes * 2 * (4 + 4) B * n + 4 B * n (the i64 result's high words)",
        ));
    }
    if want("sort_rows_f32_8192x1024") {
        let t = gpu_median(dev, || m.sort_axis(1))?;
        let n = (nrows * ncols) as u64;
        rows.push(row(
            "sort_rows_f32_8192x1024",
            t,
            2 * 4 * n,
            bw,
            "2 * 4 B * n",
        ));
    }
    if want("top_k_100_f32_64M") {
        let t = gpu_median(dev, || big_f.top_k(100, 0, true))?;
        rows.push(row("top_k_100_f32_64M", t, 4 * b, bw, "4 B * n (one read)"));
    }
    if want("unique_i32_16M") {
        let t = gpu_median(dev, || few.unique())?;
        rows.push(row(
            "unique_i32_16M",
            t,
            4 * 2 * 4 * md,
            bw,
            "4 passes * 2 * 4 B * n",
        ));
    }
    if want("median_f32_64M") {
        let t = gpu_median(dev, || big_f.median::<f32>(None, false))?;
        rows.push(row("median_f32_64M", t, 4 * b, bw, "4 B * n (one read)"));
    }
    // Issue 34's f64 rows: 16M normal f64 (both signs, spread exponents: the keys-only
    // sort skips no pass). Floors: sort 8 passes * 2 * 8 B * n (keys only), argsort
    // 8 passes * 2 * (8 + 4) B * n + 4 B * n (key-index records and the i64 result's
    // high words, as the i64 row of api_dtypes), cumsum 2 * 8 B * n (one read, one write).
    if want("sort_f64_16M") || want("argsort_f64_16M") || want("cumsum_f64_16M") {
        let g = dev.random_normal::<f64>([mid], 36)?;
        dev.synchronize()?;
        if want("sort_f64_16M") {
            let t = gpu_median(dev, || g.sort())?;
            let f = "8 passes * 2 * 8 B * n";
            rows.push(row("sort_f64_16M", t, 8 * 2 * 8 * md, bw, f));
        }
        if want("argsort_f64_16M") {
            let t = gpu_median(dev, || g.argsort())?;
            let f = "8 passes * 2 * (8 + 4) B * n + 4 B * n";
            rows.push(row("argsort_f64_16M", t, 8 * 2 * 12 * md + 4 * md, bw, f));
        }
        if want("cumsum_f64_16M") {
            let t = gpu_median(dev, || g.cumsum(0))?;
            rows.push(row("cumsum_f64_16M", t, 2 * 8 * md, bw, "2 * 8 B * n"));
        }
    }
    rows.extend(crate::sweep_scan::issue_rows(dev, quick)?);
    Ok(rows)
}
