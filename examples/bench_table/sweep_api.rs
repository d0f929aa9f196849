//! `--sweep api`: the rows of issue 18's API sweep, which each part of the API registers as
//! its own sweep (`api_<part>`), run one after another in one command. A row whose name an
//! earlier part already gave (each part times its own copy for its floors) is dropped.

use crate::{Res, Row, SweepFn};
use gpuarray::Device;

/// The parts, in the order they run.
const PARTS: &[SweepFn] = &[
    super::sweep_api_math::rows,
    super::sweep_api_manip::rows,
    super::sweep_api_index::rows,
    super::sweep_api_stats::rows,
    super::sweep_api_dtypes::rows,
    super::sweep_api_random::rows,
];

pub fn rows(dev: &Device, quick: bool) -> Res<Vec<Row>> {
    let mut out: Vec<Row> = Vec::new();
    for part in PARTS {
        for row in part(dev, quick)? {
            if !out.iter().any(|r| r.name == row.name) {
                out.push(row);
            }
        }
    }
    Ok(out)
}
