//! Runs each example of `examples/` in quick mode (env `GPUARRAY_EXAMPLES_QUICK=1`, small
//! sizes) on the default adapter, writing into a folder of the test's own, and checks that
//! the PNGs it promises exist and decode.
//!
//! The example executables are plain binaries of the test profile, which `make test` builds
//! first (`cargo build --profile test --examples`); `cargo test --all-targets` builds the
//! examples only as test harnesses. Where they are missing, each test says so and passes,
//! unless `GPUARRAY_EXAMPLES_REQUIRE=1` (set by `make test`); where an example's source is
//! newer than its executable, the test fails rather than run stale code.

mod common;

use std::path::PathBuf;
use std::process::Command;

/// `target/<profile>/examples/<name>`, next to this test's `target/<profile>/deps/`.
fn example_exe(name: &str) -> PathBuf {
    let exe = std::env::current_exe().expect("the test's own path");
    let profile_dir = exe
        .parent()
        .and_then(|deps| deps.parent())
        .expect("target/<profile>/deps/<test>");
    profile_dir
        .join("examples")
        .join(format!("{name}{}", std::env::consts::EXE_SUFFIX))
}

/// Runs example `name` in quick mode and checks that each of `pngs` decodes to a non-empty
/// image.
fn run_example(name: &str, pngs: &[&str]) {
    let exe = example_exe(name);
    let build = "cargo build --profile test --examples";
    let Ok(built) = std::fs::metadata(&exe).and_then(|m| m.modified()) else {
        let required = std::env::var("GPUARRAY_EXAMPLES_REQUIRE").is_ok_and(|v| v == "1");
        assert!(
            !required,
            "{} is missing: run `{build}` first",
            exe.display()
        );
        common::skip(&format!("{} is missing (run `{build}`)", exe.display()));
        return;
    };
    let root = std::path::Path::new(env!("CARGO_MANIFEST_DIR"));
    let main = root.join("examples").join(format!("{name}.rs"));
    let mut sources = vec![main.clone()];
    if std::fs::read_to_string(&main).is_ok_and(|s| s.contains("mod common;")) {
        sources.push(root.join("examples/common/mod.rs"));
    }
    for src in sources {
        let changed = std::fs::metadata(&src).and_then(|m| m.modified());
        assert!(
            changed.is_ok_and(|c| c <= built),
            "{} is older than {}: run `{build}` first",
            exe.display(),
            src.display()
        );
    }
    let out = PathBuf::from(env!("CARGO_TARGET_TMPDIR"))
        .join("examples-out")
        .join(name);
    let _ = std::fs::remove_dir_all(&out);
    std::fs::create_dir_all(&out).expect("output folder");
    let result = Command::new(&exe)
        .env("GPUARRAY_EXAMPLES_QUICK", "1")
        .env("GPUARRAY_EXAMPLES_OUT", &out)
        .output()
        .expect("the example starts");
    let stdout = String::from_utf8_lossy(&result.stdout);
    assert!(
        result.status.success(),
        "{name} failed ({}):\n{stdout}\n{}",
        result.status,
        String::from_utf8_lossy(&result.stderr)
    );
    for png in pngs {
        let path = out.join(png);
        let img = image::open(&path).unwrap_or_else(|e| {
            panic!("{name}: {} does not decode: {e}\n{stdout}", path.display())
        });
        assert!(
            img.width() > 0 && img.height() > 0,
            "{name}: {png} is empty"
        );
    }
}

#[test]
fn saxpy_timing() {
    run_example("saxpy_timing", &["saxpy_timing.png"]);
}

#[test]
fn matmul_ceiling() {
    run_example("matmul_ceiling", &[]);
}

#[test]
fn matmul_compare() {
    run_example("matmul_compare", &["matmul_compare.png"]);
}

#[test]
fn image_blur() {
    run_example(
        "image_blur",
        &[
            "image_blur_input.png",
            "image_blur_gaussian.png",
            "image_blur_sobel.png",
            "image_blur.png",
        ],
    );
}

#[test]
fn signal_filter() {
    run_example("signal_filter", &["signal_filter.png"]);
}

#[test]
fn cpu_vs_gpu() {
    run_example("cpu_vs_gpu", &["cpu_vs_gpu.png"]);
}

#[test]
fn clock_probe() {
    run_example("clock_probe", &[]);
}

#[test]
fn bandwidth() {
    run_example("bandwidth", &[]);
}

#[test]
fn device_info() {
    run_example("device_info", &[]);
}

#[test]
fn memory_pool() {
    run_example("memory_pool", &["memory_pool.png"]);
}

#[test]
fn multi_gpu() {
    run_example("multi_gpu", &[]);
}

#[test]
fn pipeline() {
    run_example("pipeline", &[]);
}

#[test]
fn linalg_course() {
    run_example("linalg_course", &["linalg_course.png"]);
}

#[test]
fn fft_spectrum() {
    run_example("fft_spectrum", &["fft_spectrum.png"]);
}

#[test]
fn fft_filter() {
    run_example(
        "fft_filter",
        &[
            "fft_filter_input.png",
            "fft_filter_lowpass.png",
            "fft_filter_spectrum.png",
            "fft_filter.png",
        ],
    );
}
