//! Reductions on f32: whole-array sum and max, and sums along the inner and the outer axis
//! of square-ish matrices, from 2^10 to 2^26 elements.
//!
//! `cargo bench --bench reduce` (add `GPUARRAY_BENCH_QUICK=1` for a short run with sizes
//! up to 2^18). Throughput is the bytes of the input, which each reduction reads once.
//!
//! Each sample records the reduction `iters` times and waits once at the end; kernel
//! compilation and input creation happen before the timed loop.

mod common;

use criterion::{criterion_group, criterion_main, BenchmarkId, Criterion, Throughput};
use gpuarray::{Array, Result};

/// Element counts (f32) of every case.
const SIZES: &[usize] = &[1 << 10, 1 << 14, 1 << 18, 1 << 22, 1 << 26];

/// One case: a name and the reduction of a `[rows, cols]` matrix (whole-array cases see it
/// as a matrix too; the layout does not matter to them).
struct Case {
    name: &'static str,
    op: fn(&Array<f32>) -> Result<Array<f32>>,
}

const CASES: &[Case] = &[
    Case {
        name: "sum_f32",
        op: |a| a.sum(),
    },
    Case {
        name: "max_f32",
        op: |a| a.max(),
    },
    Case {
        name: "sum_axis0_f32",
        op: |a| a.sum_axis(0, false),
    },
    Case {
        name: "sum_axis1_f32",
        op: |a| a.sum_axis(1, false),
    },
    Case {
        name: "var_axis1_f32",
        op: |a| a.var_axis(1, 0, false),
    },
];

/// A square-ish [rows, cols] split of n (a power of two).
fn square(n: usize) -> [usize; 2] {
    let rows = 1usize << (n.trailing_zeros() / 2);
    [rows, n / rows]
}

fn reduce(c: &mut Criterion) {
    let dev = common::device();
    for case in CASES {
        let mut group = c.benchmark_group(case.name);
        for &n in SIZES {
            if !common::keep(&dev, case.name, n) {
                continue;
            }
            let a = common::random(&dev, &square(n), 1);
            let what = format!("{} n={n}", case.name);
            common::warm_up(&dev, &what, || (case.op)(&a));
            group.throughput(Throughput::Bytes(4 * n as u64));
            group.bench_with_input(BenchmarkId::from_parameter(n), &a, |b, a| {
                b.iter_custom(|iters| common::time_async(&dev, &what, iters, || (case.op)(a)))
            });
        }
        group.finish();
    }
}

criterion_group! {
    name = benches;
    config = common::criterion();
    targets = reduce
}
criterion_main!(benches);
