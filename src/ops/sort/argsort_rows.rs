//! Argsort of rows, the sort's core: rows that fit a workgroup's memory by the bitonic sort
//! in workgroup memory ([`plan`]), longer rows by the LSD radix sort ([`radix`]).

use super::{plan, radix};
use crate::array::Array;
use crate::dtype::Element;
use crate::error::Result;

/// Indices within each row that sort `rows` rows of `len` elements of the contiguous
/// (from its offset) array `x`, stably, smallest (or with `descending` largest) first:
/// shape `[rows * len]`.
pub(super) fn argsort_rows<T: Element>(
    x: &Array<T>,
    rows: u32,
    len: u32,
    descending: bool,
) -> Result<Array<u32>> {
    let dev = &x.dev;
    let n = rows * len;
    let out = Array::<u32>::alloc(dev, "argsort", vec![n as usize])?;
    if n == 0 {
        return Ok(out);
    }
    if len <= plan::bitonic_max(dev) {
        plan::bitonic(x, rows, len, descending, &out)?;
    } else {
        radix::radix(x, rows, len, descending, &out)?;
    }
    Ok(out)
}
