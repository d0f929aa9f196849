//! Kernels: WGSL sources and their specialisation ([`source`]), the pipeline cache
//! ([`cache`]), binding and dispatch ([`launch`]), raw user kernels ([`raw`]).

pub(crate) mod cache;
pub(crate) mod launch;
pub(crate) mod raw;
pub(crate) mod source;
