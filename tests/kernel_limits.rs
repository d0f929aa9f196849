//! User kernels past the adapter's limits are refused before wgpu compiles them, with
//! `InvalidShader` naming the limit and both numbers (issue 14, finding 2: 256 KiB and
//! 16 MiB of workgroup memory were accepted against lavapipe's 32 KiB; 1 GiB hung or was
//! killed for memory). The device computes correctly after each refusal.

#[macro_use]
mod common;

use std::time::{Duration, Instant};

use common::*;
use gpuarray::custom::{ElementwiseKernel, RawKernel, ReductionKernel};
use gpuarray::Error;

/// Asserts `r` is `InvalidShader` whose message holds every one of `parts`, returned
/// within a second, and that the device still computes.
#[track_caller]
fn refused<T: std::fmt::Debug>(r: Result<T, Error>, took: Duration, parts: &[&str]) {
    match r {
        Err(Error::InvalidShader { message, .. }) => {
            for p in parts {
                assert!(message.contains(p), "`{p}` missing from: {message}");
            }
        }
        other => panic!("expected InvalidShader, got {other:?}"),
    }
    assert!(took < Duration::from_secs(1), "refused after {took:?}");
    let x = dev().from_slice(&[1.0f32, 2.0, 3.0], [3]).unwrap();
    assert_close(
        &host(&x.mul_scalar(2.0).unwrap()),
        &[2.0, 4.0, 6.0],
        0.0,
        0.0,
    );
}

/// Times `f`.
fn timed<R>(f: impl FnOnce() -> R) -> (R, Duration) {
    let t = Instant::now();
    let r = f();
    (r, t.elapsed())
}

/// A raw kernel with workgroup variables of `words` u32 each, all used; it copies `x`
/// through the first of them (so that it computes something checkable).
fn shared_kernel(words: &[u64]) -> String {
    let mut s = String::from(
        "@group(0) @binding(0) var<storage, read> x: array<u32>;\n\
         @group(0) @binding(1) var<storage, read_write> y: array<u32>;\n",
    );
    for (k, w) in words.iter().enumerate() {
        s += &format!("var<workgroup> w{k}: array<u32, {w}>;\n");
    }
    s += "@compute @workgroup_size(64)\nfn f(@builtin(local_invocation_index) i: u32) {\n";
    for k in 0..words.len() {
        s += &format!("    w{k}[i] = x[i] + {k}u;\n");
    }
    s += "    workgroupBarrier();\n    var t = 0u;\n";
    for k in 0..words.len() {
        s += &format!("    t += w{k}[63u - i];\n");
    }
    s + "    y[i] = t;\n}\n"
}

/// 256 KiB, 16 MiB and 1 GiB of workgroup memory: refused at once, naming the limit.
#[test]
fn workgroup_memory_past_the_limit_is_refused_at_once() {
    let limit = dev().limits().max_compute_workgroup_storage_size as u64;
    for bytes in [256u64 << 10, 16 << 20, 1 << 30] {
        let src = shared_kernel(&[bytes / 4]);
        let (r, took) = timed(|| RawKernel::new(dev(), &src, "f"));
        refused(
            r,
            took,
            &[
                "max_compute_workgroup_storage_size",
                &bytes.to_string(),
                &limit.to_string(),
            ],
        );
    }
}

/// Workgroup memory is summed over the variables: the limit split over two fits and
/// computes; 16 bytes more, in either, does not.
#[test]
fn workgroup_memory_is_summed_over_the_variables() {
    let limit = dev().limits().max_compute_workgroup_storage_size as u64;
    let (a, b) = (limit / 16, limit / 16 * 3); // words: a quarter and three quarters
    let k = RawKernel::new(dev(), &shared_kernel(&[a, b]), "f").unwrap();
    let mut rng = Rng::new(14);
    let (x, xs) = upload::<u32>(dev(), &rng.ints(64, 0, 1 << 20), &[64]);
    let y = dev().zeros::<u32>([64]).unwrap();
    k.launch(1, &[&x, &y]).unwrap();
    let want: Vec<f64> = (0..64).map(|i| 2.0 * xs[63 - i] + 1.0).collect();
    assert_close(&host(&y), &want, 0.0, 0.0);
    for words in [[a + 4, b], [a, b + 4]] {
        let (r, took) = timed(|| RawKernel::new(dev(), &shared_kernel(&words), "f"));
        let total = (limit + 16).to_string();
        refused(r, took, &["max_compute_workgroup_storage_size", &total]);
    }
}

/// The workgroup size, along an axis and in all.
#[test]
fn workgroup_size_past_the_limits_is_refused() {
    let k = |size: &str| format!("@compute @workgroup_size({size}) fn f() {{}}");
    // 16384, the most naga takes, is past every adapter's limit along an axis.
    let (r, took) = timed(|| RawKernel::new(dev(), &k("16384"), "f"));
    refused(r, took, &["max_compute_workgroup_size_x", "16384"]);
    let (r, took) = timed(|| RawKernel::new(dev(), &k("1, 1, 16384"), "f"));
    refused(r, took, &["max_compute_workgroup_size_z", "16384"]);
    let n = dev().limits().max_compute_invocations_per_workgroup;
    let (r, took) = timed(|| RawKernel::new(dev(), &k(&format!("{n}, 2")), "f"));
    let (total, max) = ((2 * n).to_string(), n.to_string());
    refused(
        r,
        took,
        &["max_compute_invocations_per_workgroup", &total, &max],
    );
    // At the limit it compiles.
    RawKernel::new(dev(), &k(&n.to_string()), "f").unwrap();
}

/// Storage buffers per stage and binding numbers.
#[test]
fn bindings_past_the_limits_are_refused() {
    let max = dev().limits().max_storage_buffers_per_shader_stage;
    let buffers = |n: u32| {
        let mut s = String::new();
        for k in 0..n {
            s += &format!("@group(0) @binding({k}) var<storage, read_write> b{k}: array<u32>;\n");
        }
        s += "@compute @workgroup_size(1) fn f() {\n";
        for k in 0..n {
            s += &format!("    b{k}[0] = {k}u;\n");
        }
        s + "}\n"
    };
    let k = RawKernel::new(dev(), &buffers(max), "f").unwrap();
    let arrays: Vec<_> = (0..max).map(|_| dev().zeros::<u32>([1]).unwrap()).collect();
    let args: Vec<&dyn gpuarray::custom::KernelArg> = arrays.iter().map(|a| a as _).collect();
    k.launch(1, &args).unwrap();
    for (j, a) in arrays.iter().enumerate() {
        assert_eq!(a.to_vec().unwrap(), vec![j as u32]);
    }
    let (r, took) = timed(|| RawKernel::new(dev(), &buffers(max + 1), "f"));
    let (n, m) = ((max + 1).to_string(), max.to_string());
    refused(r, took, &["max_storage_buffers_per_shader_stage", &n, &m]);
    let far = "@group(0) @binding(65535) var<storage, read_write> y: array<u32>;\n\
               @compute @workgroup_size(1) fn f() { y[0] = 1u; }";
    let (r, took) = timed(|| RawKernel::new(dev(), far, "f"));
    refused(r, took, &["max_bindings_per_bind_group", "@binding(65535)"]);
}

/// Immediates: past the adapter's size refused as a limit (past 256 bytes before naga
/// validates them: its validator overflows there); within it, refused because raw kernels
/// take scalars through a uniform.
#[test]
fn immediates_are_checked() {
    require!(
        dev().info().features.contains(&"IMMEDIATES"),
        "no IMMEDIATES on {}: naga refuses immediates before any limit",
        dev().info().name
    );
    let imm = |words: u32| {
        format!(
            "var<immediate> p: array<u32, {words}>;\n\
             @group(0) @binding(0) var<storage, read_write> y: array<u32>;\n\
             @compute @workgroup_size(1) fn f() {{ y[0] = p[0]; }}"
        )
    };
    let (r, took) = timed(|| RawKernel::new(dev(), &imm(1 << 16), "f"));
    refused(r, took, &["immediate `p`", "262144"]);
    let (r, took) = timed(|| RawKernel::new(dev(), &imm(1), "f"));
    refused(r, took, &["not immediates"]);
}

/// Text of the other user kernels that closes its function can declare globals: they are
/// checked too, at construction.
#[test]
fn generated_kernels_are_checked_too() {
    let limit = dev()
        .limits()
        .max_compute_workgroup_storage_size
        .to_string();
    let body = "y = x;\n}\nvar<workgroup> big: array<f32, 4194304>;\n\
                fn spare(i: u32, y: f32) {\n    big[0] = 1.0;";
    let (r, took) = timed(|| ElementwiseKernel::new(dev(), "T x", "T y", body, "sneaky"));
    refused(
        r,
        took,
        &["max_compute_workgroup_storage_size", "16777216", &limit],
    );
    let map = "x), k_); }\nvar<workgroup> big: array<f32, 4194304>;\n\
               fn spare(x: f32, k_: u32) -> Acc { big[0] = 1.0; return Acc(A(x";
    let (r, took) =
        timed(|| ReductionKernel::new(dev(), "T x", "T y", map, "a + b", "y = a", "0", "sneaky"));
    refused(
        r,
        took,
        &["max_compute_workgroup_storage_size", "16777216", &limit],
    );
}
