//! Elementwise ops on f32: binary, scalar, transcendental, broadcast and strided layouts.
//!
//! `cargo bench --bench elementwise` (add `GPUARRAY_BENCH_QUICK=1` for a short run with
//! sizes up to 2^18). Throughput is the bytes each op must move: inputs read once plus the
//! output written.
//!
//! Ops are asynchronous, so each sample records the op `iters` times and waits once at the
//! end; kernel compilation and input creation happen before the timed loop.

mod common;

use criterion::{criterion_group, criterion_main, BenchmarkId, Criterion, Throughput};
use gpuarray::{Array, Device, Result};

/// Element counts (f32) of every elementwise case.
const ELEMENTWISE_SIZES: &[usize] = &[1 << 10, 1 << 14, 1 << 18, 1 << 22, 1 << 26];
/// Columns of the 2-D operand in the broadcast case: `[N / BROADCAST_COLS, BROADCAST_COLS]`
/// plus a row of `[BROADCAST_COLS]`.
const BROADCAST_COLS: usize = 1024;

/// One family member: a name, the bytes it moves for `n` elements, the operands it needs
/// and the op itself.
struct Case {
    name: &'static str,
    bytes: fn(usize) -> u64,
    inputs: fn(&Device, usize) -> Vec<Array<f32>>,
    op: fn(&[Array<f32>]) -> Result<Array<f32>>,
}

fn flat(dev: &Device, n: usize, count: u64) -> Vec<Array<f32>> {
    (0..count)
        .map(|s| common::random(dev, &[n], s + 1))
        .collect()
}

/// A square-ish [rows, cols] split of n (a power of two).
fn square(n: usize) -> [usize; 2] {
    let rows = 1usize << (n.trailing_zeros() / 2);
    [rows, n / rows]
}

const CASES: &[Case] = &[
    Case {
        name: "add_f32",
        bytes: |n| 12 * n as u64,
        inputs: |dev, n| flat(dev, n, 2),
        op: |a| a[0].add(&a[1]),
    },
    Case {
        name: "mul_scalar_f32",
        bytes: |n| 8 * n as u64,
        inputs: |dev, n| flat(dev, n, 1),
        op: |a| a[0].mul_scalar(1.0001),
    },
    Case {
        name: "exp_f32",
        bytes: |n| 8 * n as u64,
        inputs: |dev, n| flat(dev, n, 1),
        op: |a| a[0].exp(),
    },
    // [N/1024, 1024] + [1024]: the row is read once per output row but stays in cache.
    Case {
        name: "add_broadcast_row_f32",
        bytes: |n| 8 * n as u64 + 4 * BROADCAST_COLS as u64,
        inputs: |dev, n| {
            vec![
                common::random(dev, &[n / BROADCAST_COLS, BROADCAST_COLS], 1),
                common::random(dev, &[BROADCAST_COLS], 2),
            ]
        },
        op: |a| a[0].add(&a[1]),
    },
    // x + y.T on square-ish matrices: one operand read column-wise (the strided kernel).
    Case {
        name: "add_transposed_f32",
        bytes: |n| 12 * n as u64,
        inputs: |dev, n| {
            let [r, c] = square(n);
            vec![
                common::random(dev, &[r, c], 1),
                common::random(dev, &[c, r], 2),
            ]
        },
        op: |a| a[0].add(&a[1].t()),
    },
];

fn elementwise(c: &mut Criterion) {
    let dev = common::device();
    for case in CASES {
        let mut group = c.benchmark_group(case.name);
        for &n in ELEMENTWISE_SIZES {
            if !common::keep(&dev, case.name, n) {
                continue;
            }
            let inputs = (case.inputs)(&dev, n);
            let what = format!("{} n={n}", case.name);
            common::warm_up(&dev, &what, || (case.op)(&inputs));
            group.throughput(Throughput::Bytes((case.bytes)(n)));
            group.bench_with_input(BenchmarkId::from_parameter(n), &inputs, |b, inputs| {
                b.iter_custom(|iters| common::time_async(&dev, &what, iters, || (case.op)(inputs)))
            });
        }
        group.finish();
    }
}

criterion_group! {
    name = benches;
    config = common::criterion();
    targets = elementwise
}
criterion_main!(benches);
