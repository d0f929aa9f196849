//! Kernels, over the ground floor ([`crate::gpu::Gpu`]): WGSL sources and their
//! specialisation ([`source`]), the `#import` lines naming shared files ([`import`]), the parameter block ([`params`]), the pipeline cache
//! ([`cache`]), binding into a dispatch ([`launch`]), raw user kernels ([`raw`]), the
//! adapter's limits on user kernels ([`limits`]), loops unrolled in the text ([`unroll`]). The device records the dispatches.

pub(crate) mod cache;
pub(crate) mod import;
pub(crate) mod launch;
pub(crate) mod limits;
pub(crate) mod params;
pub(crate) mod raw;
pub(crate) mod source;
pub(crate) mod unroll;
