//! Host <-> device transfers of f32 data: upload (`Device::from_slice`), download
//! (`Array::to_vec`) and the latency of a tiny op round trip.
//!
//! `cargo bench --bench transfer` (add `GPUARRAY_BENCH_QUICK=1` for a short run with sizes
//! up to 1 MiB).
//!
//! Unlike the elementwise benches, every iteration here is complete before the next starts:
//! `to_vec` waits by nature, and an upload is followed by `synchronize` (an upload is not done
//! until its staging copy has run on the device, and queuing many of them would hold a
//! staging buffer of the full size for each).

mod common;

use criterion::{criterion_group, criterion_main, BenchmarkId, Criterion, Throughput};

/// Bytes moved by the upload and download cases: 4 KiB to 256 MiB.
const TRANSFER_BYTES: &[usize] = &[4 << 10, 64 << 10, 1 << 20, 16 << 20, 256 << 20];
/// Elements (f32) of the round-trip case.
const ROUNDTRIP_ELEMENTS: usize = 1000;

fn label(bytes: usize) -> String {
    if bytes >= 1 << 20 {
        format!("{}MiB", bytes >> 20)
    } else {
        format!("{}KiB", bytes >> 10)
    }
}

fn upload(c: &mut Criterion) {
    let dev = common::device();
    let mut group = c.benchmark_group("upload_f32");
    for &bytes in TRANSFER_BYTES {
        let n = bytes / 4;
        if !common::keep(&dev, "upload", n) {
            continue;
        }
        let host = common::host_data(n);
        let what = format!("upload {}", label(bytes));
        common::warm_up(&dev, &what, || dev.from_slice(&host, [n]));
        group.throughput(Throughput::Bytes(bytes as u64));
        group.bench_with_input(
            BenchmarkId::from_parameter(label(bytes)),
            &host,
            |b, host| {
                b.iter_custom(|iters| {
                    common::time_blocking(&what, iters, || {
                        let a = dev.from_slice(host, [n])?;
                        dev.synchronize()?;
                        Ok(a)
                    })
                })
            },
        );
    }
    group.finish();
}

fn download(c: &mut Criterion) {
    let dev = common::device();
    let mut group = c.benchmark_group("download_f32");
    for &bytes in TRANSFER_BYTES {
        let n = bytes / 4;
        if !common::keep(&dev, "download", n) {
            continue;
        }
        let a = common::random(&dev, &[n], 1);
        let what = format!("download {}", label(bytes));
        common::warm_up(&dev, &what, || a.to_vec());
        group.throughput(Throughput::Bytes(bytes as u64));
        group.bench_with_input(BenchmarkId::from_parameter(label(bytes)), &a, |b, a| {
            b.iter_custom(|iters| common::time_blocking(&what, iters, || a.to_vec()))
        });
    }
    group.finish();
}

/// `(x + x).to_vec()` on 1,000 elements: one dispatch, one submit, one read back; the
/// latency floor of a step that needs its result on the host.
fn roundtrip(c: &mut Criterion) {
    let dev = common::device();
    let x = common::random(&dev, &[ROUNDTRIP_ELEMENTS], 1);
    let what = "roundtrip_add_1k";
    common::warm_up(&dev, what, || (&x + &x).to_vec());
    c.bench_function(what, |b| {
        b.iter_custom(|iters| common::time_blocking(what, iters, || (&x + &x).to_vec()))
    });
}

criterion_group! {
    name = benches;
    config = common::criterion();
    targets = upload, download, roundtrip
}
criterion_main!(benches);
