//! Convolutions on f32: the 2-D tiled kernel (7x7 and 3x3 filters, mode same), the blocked
//! 1-D kernel (127 taps) and conv2d (implicit GEMM, and the direct kernel on a depthwise
//! layer).
//!
//! `cargo bench --bench conv` (add `GPUARRAY_BENCH_QUICK=1` for a short run with small
//! sizes only). Throughput is in multiply-adds (elements = output points x taps).
//!
//! Each sample records the convolution `iters` times and waits once at the end; kernel
//! compilation and input creation happen before the timed loop.

mod common;

use criterion::{criterion_group, criterion_main, BenchmarkId, Criterion, Throughput};
use gpuarray::nn::{conv2d, Conv2d};
use gpuarray::signal::{convolve, convolve2d, Mode};

/// Image sides of the 2-D cases.
const IMAGE_SIDES: &[usize] = &[256, 1024, 4096];
/// Signal lengths of the 1-D case.
const SIGNAL_LENGTHS: &[usize] = &[1 << 16, 1 << 20, 1 << 24];
/// conv2d layers: (name, N, C, H = W, O, k, groups).
const LAYERS: &[(&str, usize, usize, usize, usize, usize, usize)] = &[
    ("n1c64k64_56sq_3x3", 1, 64, 56, 64, 3, 1),
    ("n32c64k64_56sq_3x3", 32, 64, 56, 64, 3, 1),
    ("n8c128k128_28sq_3x3_depthwise", 8, 128, 28, 128, 3, 128),
];

fn conv(c: &mut Criterion) {
    let dev = common::device();
    for k in [3usize, 7] {
        let mut group = c.benchmark_group(format!("convolve2d_{k}x{k}_same"));
        for &side in IMAGE_SIDES {
            if !common::keep(&dev, "convolve2d", side * side) {
                continue;
            }
            let img = common::random(&dev, &[side, side], 1);
            let f = common::random(&dev, &[k, k], 2);
            let what = format!("convolve2d {side}^2 {k}x{k}");
            common::warm_up(&dev, &what, || convolve2d(&img, &f, Mode::Same));
            group.throughput(Throughput::Elements((side * side * k * k) as u64));
            group.bench_function(BenchmarkId::from_parameter(side), |b| {
                b.iter_custom(|iters| {
                    common::time_async(&dev, &what, iters, || convolve2d(&img, &f, Mode::Same))
                })
            });
        }
        group.finish();
    }
    let mut group = c.benchmark_group("convolve_127taps_same");
    for &n in SIGNAL_LENGTHS {
        if !common::keep(&dev, "convolve", n) {
            continue;
        }
        let sig = common::random(&dev, &[n], 3);
        let taps = common::random(&dev, &[127], 4);
        let what = format!("convolve {n} x 127");
        common::warm_up(&dev, &what, || convolve(&sig, &taps, Mode::Same));
        group.throughput(Throughput::Elements((n * 127) as u64));
        group.bench_function(BenchmarkId::from_parameter(n), |b| {
            b.iter_custom(|iters| {
                common::time_async(&dev, &what, iters, || convolve(&sig, &taps, Mode::Same))
            })
        });
    }
    group.finish();
    let mut group = c.benchmark_group("conv2d");
    for &(name, n, ch, side, o, k, groups) in LAYERS {
        if !common::keep(&dev, name, n * ch * side * side) {
            continue;
        }
        let x = common::random(&dev, &[n, ch, side, side], 5);
        let w = common::random(&dev, &[o, ch / groups, k, k], 6);
        let opt = Conv2d {
            padding: [k / 2, k / 2],
            groups,
            ..Default::default()
        };
        let what = format!("conv2d {name}");
        common::warm_up(&dev, &what, || conv2d(&x, &w, None, opt));
        group.throughput(Throughput::Elements(
            (n * o * side * side * (ch / groups) * k * k) as u64,
        ));
        group.bench_function(BenchmarkId::from_parameter(name), |b| {
            b.iter_custom(|iters| {
                common::time_async(&dev, &what, iters, || conv2d(&x, &w, None, opt))
            })
        });
    }
    group.finish();
}

criterion_group! {
    name = benches;
    config = common::criterion();
    targets = conv
}
criterion_main!(benches);
