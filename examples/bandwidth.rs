//! Host-device bandwidth by size (as CUDA's `bandwidthTest`): `from_slice` (host to device)
//! and `to_vec` (device to host) of f32 arrays from 64 KiB to 1 GiB, beside the host's own
//! copy rate (one thread, into a buffer already touched) for the same bytes. Every transfer
//! crosses a staging buffer, so the host-to-device and device-to-host rates include one
//! host copy each; these are the rates `gpuarray::dist` moves its chunks at.
//!
//! ```text
//! cargo run --release --example bandwidth [-- --max BYTES]
//! GPUARRAY_EXAMPLES_QUICK=1 cargo run --example bandwidth
//! ```
//!
//! Prints one row per size: the median of several calls (after one warm-up call) of each.
//! `benches/peers/cupy_bandwidth.py` prints the same table for CuPy (`cp.asarray`, `.get()`).

mod common;

use std::time::Instant;

use common::{quick, Res};
use gpuarray::Device;

/// Median seconds of `reps` calls of `f` after one warm-up call.
fn median(reps: usize, mut f: impl FnMut() -> Res<()>) -> Res<f64> {
    f()?;
    let mut t = Vec::with_capacity(reps);
    for _ in 0..reps {
        let s = Instant::now();
        f()?;
        t.push(s.elapsed().as_secs_f64());
    }
    t.sort_by(f64::total_cmp);
    Ok(t[reps / 2])
}

fn main() -> Res<()> {
    let dev = Device::new()?;
    let max: usize = std::env::args()
        .skip_while(|a| a != "--max")
        .nth(1)
        .map_or(Ok(if quick() { 4 << 20 } else { 1 << 30 }), |v| v.parse())?;
    println!("host-device bandwidth, f32 arrays, {}", dev.info().name);
    println!("| bytes | from_slice (GB/s) | to_vec (GB/s) | host copy (GB/s) |");
    println!("|---:|---:|---:|---:|");
    let mut bytes = 64 << 10;
    while bytes <= max {
        let n = bytes / 4;
        let host: Vec<f32> = (0..n).map(|i| i as f32).collect();
        let reps = (((256usize << 20) / bytes).clamp(3, 50)).min(if quick() { 3 } else { 50 });
        let up = median(reps, || {
            dev.from_slice(&host, [n])?;
            Ok(())
        })?;
        let a = dev.from_slice(&host, [n])?;
        let down = median(reps, || {
            let v = a.to_vec()?;
            assert_eq!(v.len(), n);
            Ok(())
        })?;
        let mut dst = vec![0f32; n];
        let copy = median(reps, || {
            dst.copy_from_slice(std::hint::black_box(&host));
            std::hint::black_box(&dst);
            Ok(())
        })?;
        let gbs = |t: f64| bytes as f64 / t / 1e9;
        println!(
            "| {bytes} | {:.2} | {:.2} | {:.2} |",
            gbs(up),
            gbs(down),
            gbs(copy)
        );
        println!(
            "RESULT bandwidth bytes={bytes} up_GBps={:.3} down_GBps={:.3} copy_GBps={:.3}",
            gbs(up),
            gbs(down),
            gbs(copy)
        );
        bytes *= 4;
    }
    Ok(())
}
