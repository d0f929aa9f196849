//! Set-up shared by the criterion benches (as wgpu's `benches/root.rs`): the device, the
//! criterion configuration, quick mode, input data and the timing loops.
//!
//! Quick mode: set `GPUARRAY_BENCH_QUICK=1` to keep only sizes up to
//! [`QUICK_MAX_ELEMENTS`] f32 elements and measure briefly, for a smoke run on a software
//! adapter (lavapipe) in well under a minute.

// Each bench binary compiles this module and uses a part of it.
#![allow(dead_code)]

use std::hint::black_box;
use std::sync::OnceLock;
use std::time::{Duration, Instant};

use criterion::Criterion;
use gpuarray::{Array, Device, Result};

/// The environment variable that selects quick mode.
pub const QUICK_ENV: &str = "GPUARRAY_BENCH_QUICK";
/// Largest size, in f32 elements, measured in quick mode.
pub const QUICK_MAX_ELEMENTS: usize = 1 << 18;

/// Whether quick mode is on: the variable is set to anything but "" or "0", or the bench
/// runs as a test (`cargo test --all-targets` runs each case once, without `--bench`; the
/// large sizes would only slow CI down).
pub fn quick() -> bool {
    std::env::var_os(QUICK_ENV).is_some_and(|v| !v.is_empty() && v != "0")
        || !std::env::args().any(|a| a == "--bench")
}

/// The criterion configuration of every group (criterion's command-line flags still apply).
pub fn criterion() -> Criterion {
    let c = Criterion::default();
    if quick() {
        c.sample_size(10)
            .warm_up_time(Duration::from_millis(100))
            .measurement_time(Duration::from_millis(300))
    } else {
        c.sample_size(30)
            .warm_up_time(Duration::from_secs(1))
            .measurement_time(Duration::from_secs(3))
    }
}

/// The device every bench uses, opened once per bench binary (`GPUARRAY_ADAPTER` and
/// `GPUARRAY_BACKEND` choose it as for [`Device::new`]).
pub fn device() -> Device {
    static DEV: OnceLock<Device> = OnceLock::new();
    DEV.get_or_init(|| {
        let dev = Device::new().unwrap_or_else(|e| panic!("gpuarray bench: no device: {e}"));
        let i = dev.info();
        eprintln!(
            "gpuarray bench: {} ({}, {:?}){}",
            i.name,
            i.backend,
            i.kind,
            if quick() { ", quick mode" } else { "" }
        );
        dev
    })
    .clone()
}

/// Whether a case of `elements` f32 elements is measured: not in quick mode above
/// [`QUICK_MAX_ELEMENTS`], and never beyond the adapter's buffer limits (reported on stderr).
pub fn keep(dev: &Device, what: &str, elements: usize) -> bool {
    if quick() && elements > QUICK_MAX_ELEMENTS {
        return false;
    }
    let bytes = (elements * 4) as u64;
    let l = dev.limits();
    if bytes > l.max_storage_buffer_binding_size || bytes > l.max_buffer_size {
        eprintln!(
            "gpuarray bench: {what}: {elements} elements exceed this adapter's limits, skipped"
        );
        return false;
    }
    true
}

/// A random device array of f32 in [0.5, 1.5) (never zero).
pub fn random(dev: &Device, shape: &[usize], seed: u64) -> Array<f32> {
    dev.random_uniform_in::<f32>(shape, 0.5, 1.5, seed)
        .unwrap_or_else(|e| panic!("gpuarray bench: random input {shape:?}: {e}"))
}

/// Host data of `n` f32 in [0.5, 1.5) (never zero), from a fixed-seed xorshift.
pub fn host_data(n: usize) -> Vec<f32> {
    let mut s: u64 = 0x9E37_79B9_7F4A_7C15;
    (0..n)
        .map(|_| {
            s ^= s << 13;
            s ^= s >> 7;
            s ^= s << 17;
            0.5 + (s >> 40) as f32 / (1u64 << 24) as f32
        })
        .collect()
}

fn ok<R>(what: &str, r: Result<R>) -> R {
    r.unwrap_or_else(|e| panic!("gpuarray bench: {what}: {e}"))
}

/// Runs `op` once and waits for it: compiles its kernels and fills the buffer pool, so that
/// neither is timed.
pub fn warm_up<R>(dev: &Device, what: &str, mut op: impl FnMut() -> Result<R>) {
    let r = ok(what, op());
    ok(what, dev.synchronize());
    drop(r);
}

/// For `iter_custom`: runs the asynchronous `op` `iters` times, dropping each result at once
/// (its buffer goes back to the pool; queue order keeps the reuse safe), then waits once for
/// all of it. The time is the recording, submission and execution of the `iters` ops plus
/// one final submit and wait.
pub fn time_async<R>(
    dev: &Device,
    what: &str,
    iters: u64,
    mut op: impl FnMut() -> Result<R>,
) -> Duration {
    let t0 = Instant::now();
    for _ in 0..iters {
        black_box(ok(what, op()));
    }
    ok(what, dev.synchronize());
    t0.elapsed()
}

/// For `iter_custom`: runs `op` `iters` times, each complete before the next starts (a
/// download, or an upload followed by `synchronize`); the wall time of all of them.
pub fn time_blocking<R>(what: &str, iters: u64, mut op: impl FnMut() -> Result<R>) -> Duration {
    let t0 = Instant::now();
    for _ in 0..iters {
        black_box(ok(what, op()));
    }
    t0.elapsed()
}
