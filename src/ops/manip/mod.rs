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
pub(crate) use kernel::copy_into;
pub use remap::PadMode;
