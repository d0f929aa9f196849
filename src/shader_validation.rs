//! Every shader family, every dtype and operation variant, parsed and validated by naga
//! without a GPU. It sits at the top of the crate, apart from `kernel/source.rs`, because it
//! gathers the variants of every family: the kernel layer knows none of them.

use crate::kernel::import::shared;
use crate::kernel::source::{validate, Spec, PARAMS_UNIFORM};

/// Every shader family, every dtype and operation variant, parsed and validated by naga
/// without a GPU.
#[test]
fn every_variant_validates() {
    let caps = naga::valid::Capabilities::SHADER_FLOAT16
        | naga::valid::Capabilities::FLOAT64
        | naga::valid::Capabilities::SHADER_INT64
        | naga::valid::Capabilities::SUBGROUP
        | naga::valid::Capabilities::IMMEDIATES
        | naga::valid::Capabilities::COOPERATIVE_MATRIX
        | naga::valid::Capabilities::SHADER_FLOAT32_ATOMIC
        | naga::valid::Capabilities::SHADER_FLOAT16_IN_FLOAT32;
    let specs: Vec<Spec> = crate::ops::elementwise::all_specs()
        .into_iter()
        .chain(crate::ops::elementwise::packed_specs())
        .chain(crate::array::creation::all_specs())
        .chain(crate::ops::random::all_specs())
        .chain(crate::ops::reduce::all_specs())
        .chain(crate::ops::scan::all_specs())
        .chain(crate::ops::histogram::all_specs())
        .chain(crate::ops::index::all_specs())
        .chain(crate::ops::linalg::all_specs())
        .chain(crate::linalg::factor::all_specs())
        .chain(crate::linalg::factor_reg::all_specs())
        .chain(crate::linalg::chol_panel::all_specs())
        .chain(crate::linalg::trsm::all_specs())
        .chain(crate::linalg::factor_small::all_specs())
        .chain(crate::ops::conv::all_specs())
        .chain(crate::ops::sort::all_specs())
        .chain(crate::ops::sort::radix_select_specs())
        .chain(crate::ops::sort::radix_sg_specs())
        .chain(crate::ops::manip::all_specs())
        .chain(crate::custom::all_specs())
        .chain(crate::device::probe_specs())
        .chain([crate::device::clock_spec()])
        .chain(crate::linalg::qr_kernel::all_specs())
        .chain(crate::linalg::spectral_specs())
        .chain(crate::linalg::tridiag_specs())
        .chain(crate::linalg::eig_small_specs())
        .chain(crate::linalg::svd_small_specs())
        .chain(crate::fft::all_specs())
        .collect();
    assert!(specs.len() > 300, "only {} variants", specs.len());
    assert!(shared("params").is_some_and(|p| p.contains(PARAMS_UNIFORM)));
    let mut failures = Vec::new();
    for spec in &specs {
        // The adapter's forms of the f64 library (bits, fused fma) too, where it is imported.
        let f64_forms = spec
            .render()
            .is_ok_and(|src| src.contains("fn split64_("))
            .then(|| spec.clone().f64_choices(true, true));
        for (immediates, spec) in [(false, spec), (true, spec)]
            .into_iter()
            .chain(f64_forms.as_ref().map(|s| (false, s)))
        {
            let spec = Spec {
                immediates,
                ..spec.clone()
            };
            if let Err(e) = spec
                .render()
                .and_then(|src| validate(spec.family, &src, caps))
            {
                failures.push(format!("{:?} {:?}\n{e}", spec.aliases, spec.functions));
            }
        }
    }
    assert!(
        failures.is_empty(),
        "{} invalid:\n{}",
        failures.len(),
        failures.join("\n")
    );
}
