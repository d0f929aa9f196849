//! `--sweep scan`: running sums and stream compaction beside the CuPy peer's same rows
//! (`benches/peers/cupy_sweep_scan.py`): cumsum of 64M f32, along axis 1 and axis 0 of
//! 8192 x 8192 f32, histogram of 64M f32 into 256 uniform bins, bincount of 64M u32 in
//! 0..1024, nonzero of 64M u32 with half set, masked select of 64M f32 (half selected). The first row is a copy whose bandwidth gives every row's floor (bytes over
//! it, in the row's note):
//! - cumsum of one long line (reduce-then-scan): the input read twice and the result written
//!   once, 12 bytes per f32 element;
//! - cumsum along axis 1 (8192 rows of 8192: one workgroup per row, no second pass): read
//!   once, written once, 8 bytes per element;
//! - cumsum along axis 0 (columns, 16 segments per column): read twice, written once, 12;
//! - histogram and bincount: the input read once, 4 bytes per element (bincount reads it
//!   twice more for its minimum and maximum, as NumPy's does);
//! - nonzero and masked select: the least any algorithm moves: the input (and the mask) read
//!   once and the result written once (nonzero's indices are i64, 8 bytes each) (gpuarray's reads the flags twice more and writes and
//!   reads their running count: 3 to 4 times that).

use gpuarray::Device;

use crate::{gpu_median, want, Res, Row, QUICK_DIV};

/// Elements of the 1-D rows (64M) and the side of the square (8192), before quick mode.
const N: usize = 1 << 26;
const SIDE: usize = 8192;

/// The rows of this sweep that issue 19 lists beside its sorts: `--sweep sort` runs them
/// too ([`issue_rows`]), so that one sweep holds all of the issue's rows.
const SORT_ROWS: [&str; 3] = [
    "cumsum_f32_64M",
    "cumsum_axis1_f32_8192x8192",
    "histogram_f32_64M_256bins",
];

/// Every row of the sweep.
pub fn rows(dev: &Device, quick: bool) -> Res<Vec<Row>> {
    rows_of(dev, quick, &|_| true)
}

/// The copy row and the [`SORT_ROWS`], for `--sweep sort`.
pub fn issue_rows(dev: &Device, quick: bool) -> Res<Vec<Row>> {
    rows_of(dev, quick, &|name| SORT_ROWS.contains(&name))
}

/// The copy row and the rows whose names `keep` accepts.
fn rows_of(dev: &Device, quick: bool, keep: &dyn Fn(&str) -> bool) -> Res<Vec<Row>> {
    let n = if quick { N / QUICK_DIV } else { N };
    let side = if quick { SIDE / 8 } else { SIDE };
    let x = dev.random_uniform::<f32>([n], 21)?;
    let sq = dev.random_uniform::<f32>([side, side], 22)?;
    // Half the flags set, at random positions.
    let half = dev.random_uniform::<f32>([n], 23)?;
    let mask = half.lt(&dev.full([n], 0.5f32)?)?;
    let ints = half.mul_scalar(1024.0)?.cast::<u32>()?;
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
    let (n64, sq64) = (n as u64, (side * side) as u64);
    type Case<'a> = (&'a str, u64, Box<dyn Fn() -> gpuarray::Result<()> + 'a>);
    let cases: Vec<Case<'_>> = vec![
        (
            "cumsum_f32_64M",
            12 * n64,
            Box::new(|| x.cumsum(0).map(drop)),
        ),
        (
            "cumsum_axis1_f32_8192x8192",
            8 * sq64,
            Box::new(|| sq.cumsum(1).map(drop)),
        ),
        (
            "cumsum_axis0_f32_8192x8192",
            12 * sq64,
            Box::new(|| sq.cumsum(0).map(drop)),
        ),
        (
            "histogram_f32_64M_256bins",
            4 * n64,
            Box::new(|| x.histogram(256, Some((0.0, 1.0))).map(drop)),
        ),
        (
            "bincount_u32_64M_1024",
            4 * n64,
            Box::new(|| ints.bincount(0).map(drop)),
        ),
        (
            "nonzero_u32_64M_half",
            4 * n64 + 8 * sel,
            Box::new(|| mask.nonzero().map(drop)),
        ),
        (
            "masked_select_f32_64M_half",
            8 * n64 + 4 * sel,
            Box::new(|| x.extract(&mask).map(drop)),
        ),
    ];
    for (name, bytes, f) in cases {
        if !want(name) || !keep(name) {
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
    Ok(rows)
}
