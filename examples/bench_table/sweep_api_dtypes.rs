//! `--sweep api_dtypes`: the 64-bit integers and the `*_into` form over 64M elements,
//! beside the CuPy peer's same rows (`benches/peers/cupy_sweeps.py --sweep api_dtypes`).
//! The first row, an f32 copy (`add_scalar(0)`), gives the bandwidth behind every row's
//! floor: the bytes the row moves over that bandwidth, in its note.
//!
//! Rows: `add_scalar_into` writing an existing f32 array (4 + 4 bytes an element), `a += &b`
//! in place (3 x 4), u8 add (3 x 1: packed four to a word), u8 to f32 cast (1 + 4), u8 sum
//! into u32 (1), i64 add (3 x 8), i64 sum (8), i64 to f32 cast (8 + 4, rounded once
//! through a sticky bit); then issue 34's i64 families: sort of 16M (8 passes of 8 + 8
//! bytes: the keys-only bound, which CuPy's CUB sort meets), argsort of 16M (8 passes of
//! (8 + 4) x 2, and the result's high words), cumsum of 64M (8 + 8), integers of 64M in
//! [-2^40, 2^40) (8 written), scatter_add of 16M into 65536 bins (8 + 8 read).
//! Bool masks are left out on purpose: gpuarray stores a bool in a u32 word (CuPy in a
//! byte), so a comparison moves 8 bytes an element against CuPy's 5.

use gpuarray::Device;

use crate::{gpu_median, want, Res, Row, QUICK_DIV};

/// Elements of every row (64M), before quick mode's division.
pub const N: usize = 1 << 26;

pub fn rows(dev: &Device, quick: bool) -> Res<Vec<Row>> {
    let n = if quick { N / QUICK_DIV } else { N };
    let mut rows = Vec::new();
    let x = dev.random_uniform_in::<f32>([n], -1e6, 1e6, 21)?;
    let out = dev.zeros::<f32>([n])?;
    dev.synchronize()?;
    let copy_bytes = 8 * n as u64;
    let t_copy = gpu_median(dev, || x.add_scalar(0.0))?;
    let bandwidth = copy_bytes as f64 / t_copy;
    rows.push(Row {
        name: "copy_f32_64M".into(),
        ms: t_copy,
        bytes: Some(copy_bytes),
        note: "add_scalar(0) as copy; its bandwidth gives the rows' floors".into(),
    });
    let mut timed = |name: &str, bytes: u64, t: f64| {
        let floor = bytes as f64 / bandwidth;
        rows.push(Row {
            name: name.to_string(),
            ms: t,
            bytes: Some(bytes),
            note: format!(
                "floor {floor:.4} ms = {bytes} B / copy bandwidth ({:.2}x of it)",
                t / floor
            ),
        });
    };
    if want("add_scalar_into_f32_64M") {
        let t = gpu_median(dev, || x.add_scalar_into(1.0, &out))?;
        timed("add_scalar_into_f32_64M", 8 * n as u64, t);
    }
    if want("add_assign_f32_64M") {
        let mut acc = dev.zeros::<f32>([n])?;
        let t = gpu_median(dev, || {
            acc += &x;
            Ok(())
        })?;
        timed("add_assign_f32_64M", 12 * n as u64, t);
    }
    // The packed u8 (four per word): inputs |x| / 4000 in [0, 250], truncated.
    let u = x.abs()?.mul_scalar(2.5e-4)?.cast::<u8>()?;
    let v = x.mul_scalar(-1.0)?.abs()?.mul_scalar(1e-4)?.cast::<u8>()?;
    dev.synchronize()?;
    if want("add_u8_64M") {
        let t = gpu_median(dev, || u.add(&v))?;
        timed("add_u8_64M", 3 * n as u64, t);
    }
    if want("cast_u8_f32_64M") {
        let t = gpu_median(dev, || u.cast::<f32>())?;
        timed("cast_u8_f32_64M", 5 * n as u64, t);
    }
    if want("sum_u8_64M") {
        // Summed in u32 (NumPy's uint8 sum is uint64; 64M x 255 fits u32).
        let t = gpu_median(dev, || u.sum_as::<u32>(None, false))?;
        timed("sum_u8_64M", n as u64, t);
    }
    drop((u, v));
    if !dev.supports::<i64>() {
        println!("i64 rows: skipped (no SHADER_INT64)");
        return Ok(rows);
    }
    let a = x.cast::<i64>()?;
    let b = x.mul_scalar(3.0)?.cast::<i64>()?;
    dev.synchronize()?;
    if want("add_i64_64M") {
        let t = gpu_median(dev, || a.add(&b))?;
        timed("add_i64_64M", 24 * n as u64, t);
    }
    if want("sum_i64_64M") {
        let t = gpu_median(dev, || a.sum())?;
        timed("sum_i64_64M", 8 * n as u64, t);
    }
    if want("cast_i64_f32_64M") {
        let t = gpu_median(dev, || a.cast::<f32>())?;
        timed("cast_i64_f32_64M", 12 * n as u64, t);
    }
    // The families that took i64 in issue 34: sort (two key words, 8 passes), scan,
    // Generator::integers, scatter_add (two 32-bit atomics an element), on 16M or 64M.
    // Quick mode: 16K for these (each row runs 505 times; a sort of 256K takes about a
    // second on lavapipe).
    let q = if quick { n / 64 } else { n / 4 };
    let s = a.slice_axis(0, ..q)?.contiguous()?;
    let idx = x
        .slice_axis(0, ..q)?
        .abs()?
        .mul_scalar(65536.0 / 1e6)?
        .cast::<i64>()?
        .clip(0, 65535)?;
    let bins = dev.zeros::<i64>([65536])?;
    dev.synchronize()?;
    let qb = q as u64;
    if want("sort_i64_16M") {
        let t = gpu_median(dev, || s.sort())?;
        timed("sort_i64_16M", 8 * 2 * 8 * qb, t);
    }
    if want("argsort_i64_16M") {
        let t = gpu_median(dev, || s.argsort())?;
        timed("argsort_i64_16M", 8 * 2 * 12 * qb + 4 * qb, t);
    }
    if want("cumsum_i64_64M") {
        let t = gpu_median(dev, || a.cumsum(0))?;
        timed("cumsum_i64_64M", 16 * n as u64, t);
    }
    if want("integers_i64_64M") {
        let mut rng = dev.default_rng(5);
        let t = gpu_median(dev, || rng.integers::<i64>([n], -(1 << 40), 1 << 40))?;
        timed("integers_i64_64M", 8 * n as u64, t);
    }
    if want("scatter_add_i64_16M") {
        let t = gpu_median(dev, || bins.scatter_add(0, &idx, &s))?;
        timed("scatter_add_i64_16M", 16 * qb, t);
    }
    Ok(rows)
}
