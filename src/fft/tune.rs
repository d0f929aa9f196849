//! Switches of the in-workgroup kernel for measuring it on a device (read once from the
//! environment; unset: the library's rules): `GPUARRAY_FFT_M` transforms per workgroup,
//! `GPUARRAY_FFT_WG` invocations per workgroup, `GPUARRAY_FFT_PAD` (s: one element
//! of workgroup-memory padding per 2^s; 0: none), `GPUARRAY_FFT_TWSIN` (1) twiddles of the f32
//! passes computed by `sin` / `cos` rather than loaded (less accurate: for timing only),
//! and `GPUARRAY_FFT_PROFILE` (1) each dispatch's GPU time printed to stderr (every
//! dispatch then waits for its timestamps).

use std::sync::OnceLock;

/// The switches; `None` / `false`: the rule.
#[derive(Debug, Default)]
pub(super) struct Knobs {
    pub m: Option<usize>,
    pub wg: Option<usize>,
    pub pad: Option<u32>,
    pub tw_sin: bool,
    pub profile: bool,
}

fn num(name: &str) -> Option<usize> {
    std::env::var(name).ok().and_then(|v| v.trim().parse().ok())
}

/// The process's switches.
pub(super) fn knobs() -> &'static Knobs {
    static K: OnceLock<Knobs> = OnceLock::new();
    K.get_or_init(|| Knobs {
        m: num("GPUARRAY_FFT_M").filter(|&m| m > 0),
        wg: num("GPUARRAY_FFT_WG").filter(|&w| w > 0),
        pad: num("GPUARRAY_FFT_PAD").map(|p| p.min(8) as u32),
        tw_sin: num("GPUARRAY_FFT_TWSIN").is_some_and(|p| p != 0),
        profile: num("GPUARRAY_FFT_PROFILE").is_some_and(|p| p != 0),
    })
}
