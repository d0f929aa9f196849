//! Numerics: every float function of every float dtype swept over at least 100,000 inputs
//! (f16: all 65,536 bit patterns) against a reference computed in higher precision on the
//! CPU, asserting a bound in ulps, plus exact special-value tables.
//!
//! The sweep, the ulp distance and the report are in `sweep.rs`. Set
//! `GPUARRAY_NUMERICS_REPORT=<file>` to append each function's measured maximum error to a
//! markdown table (the README's table of ulp errors comes from it, on lavapipe and the
//! H100).

#[path = "../common/mod.rs"]
#[macro_use]
mod common;

mod casts;
mod creation;
mod erf;
mod f32;
mod f64;
mod f64_forms;
mod flush;
mod names_math;
mod numpy_math;
mod remainder;
mod special;
mod sweep;

use sweep::{run, Check};

/// The harness on a function every adapter computes exactly: f32's square root (Vulkan
/// allows 3 ulps; the bound is 2, the for `sqrt`). Negative inputs give NaN.
#[test]
fn sqrt_f32_within_2_ulps() {
    run::<f32>(Check {
        name: "sqrt",
        bound: 2.0,
        skip: &|_| false,
        device: &|a| a.sqrt(),
        reference: &|x| x.sqrt().into(),
    });
}
