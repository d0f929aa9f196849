//! Matrix products: square f32 and f16 `matmul` (the bench_table's sizes and smaller),
//! a batched product, a transposed operand and a matrix-vector product.
//!
//! `cargo bench --bench linalg` (add `GPUARRAY_BENCH_QUICK=1` for sizes up to 2^18
//! elements per operand). Throughput is in FLOPs (2 M N K per product) as
//! `Throughput::Elements`: criterion's "elem/s" reads as FLOP/s.
//!
//! Ops are asynchronous, so each sample records the op `iters` times and waits once at the
//! end; kernel compilation, the tile trial and input creation happen before the timed loop.

mod common;

use criterion::{criterion_group, criterion_main, BenchmarkId, Criterion, Throughput};
use gpuarray::{f16, Array, Device, Result};

/// (name, batch, M, K, N) of each case.
const MATMUL_SHAPES: &[(&str, usize, usize, usize, usize)] = &[
    ("square", 1, 256, 256, 256),
    ("square", 1, 1024, 1024, 1024),
    ("square", 1, 2048, 2048, 2048),
    ("square", 1, 4096, 4096, 4096),
    ("batched", 64, 128, 128, 128),
    ("matvec", 1, 4096, 4096, 1),
];

fn keep(dev: &Device, what: &str, b: usize, m: usize, k: usize, n: usize) -> bool {
    [b * m * k, b * k * n, b * m * n]
        .iter()
        .all(|&e| common::keep(dev, what, e))
}

fn inputs(dev: &Device, b: usize, m: usize, k: usize, n: usize) -> (Array<f32>, Array<f32>) {
    let shape = |r, c| if b == 1 { vec![r, c] } else { vec![b, r, c] };
    (
        common::random(dev, &shape(m, k), 1),
        common::random(dev, &shape(k, n), 2),
    )
}

/// A case: id, FLOPs, A, B, and whether B is read through `.t()`.
type Case<T> = (String, u64, Array<T>, Array<T>, bool);

fn bench<T: gpuarray::Element>(c: &mut Criterion, dev: &Device, group: &str, cases: &[Case<T>]) {
    let mut g = c.benchmark_group(group);
    for (id, flops, a, b, transposed) in cases {
        let op = || -> Result<Array<T>> {
            if *transposed {
                a.matmul(&b.t())
            } else {
                a.matmul(b)
            }
        };
        let what = format!("{group} {id}");
        common::warm_up(dev, &what, op);
        g.throughput(Throughput::Elements(*flops));
        g.bench_function(BenchmarkId::from_parameter(id), |bch| {
            bch.iter_custom(|iters| common::time_async(dev, &what, iters, op))
        });
    }
    g.finish();
}

fn linalg(c: &mut Criterion) {
    let dev = common::device();
    let mut f32_cases = Vec::new();
    let mut f16_cases = Vec::new();
    for &(name, b, m, k, n) in MATMUL_SHAPES {
        if !keep(&dev, name, b, m, k, n) {
            continue;
        }
        let id = format!("{name}_{b}x{m}x{k}x{n}");
        let flops = 2 * (b * m * k * n) as u64;
        let (x, y) = inputs(&dev, b, m, k, n);
        if dev.supports::<f16>() && name == "square" {
            let xh = x.cast::<f16>().expect("cast");
            let yh = y.cast::<f16>().expect("cast");
            f16_cases.push((id.clone(), flops, xh, yh, false));
        }
        if name == "square" && m == 1024 {
            // The same product with B read through a transposed view.
            let yt = y.t().contiguous().expect("contiguous");
            f32_cases.push((format!("{id}_bT"), flops, x.clone(), yt, true));
        }
        f32_cases.push((id, flops, x, y, false));
    }
    bench(c, &dev, "matmul_f32", &f32_cases);
    bench(c, &dev, "matmul_f16", &f16_cases);
}

criterion_group! {
    name = benches;
    config = common::criterion();
    targets = linalg
}
criterion_main!(benches);
