//! The functions of issue 18's name map that were "not yet": shapes and index helpers
//! (`shape`), elementwise math (`math`; the ulp bounds are in tests/numerics/names_math.rs),
//! statistics, sets and tensor products (`stats`), each against a CPU reference; the
//! bit-built float functions beyond f32 (`bits`); and the `audit_*` files, which fill the
//! gaps the audit of issue 18's list found (views, zero sizes, bad arguments). The pages'
//! checks live here too: `cupy_names` (generated: every spelling of docs/CUPY_NAMES.md
//! compiled) and `cuda_to_wgsl` (every WGSL block of docs/CUDA_TO_WGSL.md run).

#[path = "../common/mod.rs"]
#[macro_use]
mod common;

mod audit_edges;
mod audit_math;
mod audit_shape;
mod audit_stats;
mod bits;
mod choose;
mod cuda_to_wgsl;
mod cupy_names;
mod ldexp;
mod like;
mod math;
mod shape;
mod special;
mod stats;

/// Runs `$f::<T>()` for every dtype the device has (f16 and f64 where supported, a
/// recorded skip elsewhere).
macro_rules! all_dtypes {
    ($f:ident) => {
        $f::<f32>();
        $f::<i32>();
        $f::<u32>();
        $crate::common::if_supported::<gpuarray::f16>($f::<gpuarray::f16>);
        $crate::common::if_supported::<f64>($f::<f64>);
    };
}
pub(crate) use all_dtypes;
