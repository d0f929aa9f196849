//! Manipulation: diagonals and triangles (`diag`), joining and splitting (`join`), copies that rearrange elements (`remap`:
//! flip, roll, pad, tile, repeat) and views that only relabel axes (`views`). Host side of
//! shaders/manip.wgsl (`kernel`).
//!
//! Copies read strided inputs directly and write the output once, coalesced, in one
//! dispatch per input (`concatenate`, `stack`) or one in all (the others).

mod choose;
mod diag;
mod index_routines;
mod join;
mod kernel;
mod remap;
mod shape_routines;
mod views;

pub use diag::Indexing;
pub(crate) use join::join;
#[cfg(test)]
pub(crate) use kernel::all_specs;
pub use remap::PadMode;

use crate::error::{Error, Result};

/// `axis` counted from the end when negative (-1 the last), checked against `ndim`.
pub(crate) fn norm_axis(axis: isize, ndim: usize) -> Result<usize> {
    let a = if axis < 0 { axis + ndim as isize } else { axis };
    if a < 0 || a as usize >= ndim {
        return Err(Error::AxisOutOfRange {
            axis: axis.unsigned_abs(),
            ndim,
        });
    }
    Ok(a as usize)
}
