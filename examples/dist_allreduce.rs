//! `allreduce` bandwidth over MPI ranks (the `mpi` feature): f32 sums of 1 KB to 1 GB
//! (quick mode: 1 KB to 1 MB), each rank on its own device. Prints one row per size: the
//! time per call (rank 0, after a barrier; the slowest rank's time), the algorithm
//! bandwidth (bytes / time) and NCCL's bus bandwidth (algbw * 2 (p - 1) / p), the same
//! columns as `benches/peers/nccl_allreduce.py`, which measures NCCL's allreduce through
//! PyTorch on the same sizes. The data cross the host: device to host, MPI, host to device,
//! in pipelined chunks (`Comm::set_chunk_bytes`, `--chunk`).
//!
//! ```text
//! cargo build --release --features mpi --example dist_allreduce
//! mpirun -np 2 target/release/examples/dist_allreduce
//! GPUARRAY_EXAMPLES_QUICK=1 mpirun -np 2 target/release/examples/dist_allreduce
//! ```
//!
//! Options: `--min BYTES`, `--max BYTES`, `--chunk BYTES`, `--device i,j,...` (as
//! `dist_lstsq`), `--messages` (ranks on one host exchange through MPI messages instead of
//! the shared-memory window, `Comm::set_shared_memory(false)`). `GPUARRAY_DIST_PROFILE=1`
//! prints each call's stage times on rank 0 (stderr).

mod common;

use std::time::Instant;

use common::{quick, Res};
use gpuarray::dist::{self, ReduceOp};
use gpuarray::Device;

fn arg(name: &str) -> Option<String> {
    let args: Vec<String> = std::env::args().collect();
    args.iter()
        .position(|a| a == name)
        .and_then(|i| args.get(i + 1).cloned())
}

fn main() -> Res<()> {
    let comm = match arg("--device") {
        Some(list) => {
            let ids: Vec<usize> = list
                .split(',')
                .map(|s| s.trim().parse())
                .collect::<Result<_, _>>()?;
            dist::init_with_device(|local| Device::open(ids[local % ids.len()]))?
        }
        None => dist::init()?,
    };
    if std::env::args().any(|a| a == "--messages") {
        comm.set_shared_memory(false);
    }
    if let Some(c) = arg("--chunk") {
        comm.set_chunk_bytes(c.parse()?);
    }
    let (p, me) = (comm.size(), comm.rank());
    let dev = comm.device().clone();
    let min: usize = arg("--min").map_or(Ok(1 << 10), |v| v.parse())?;
    let max: usize =
        arg("--max").map_or(Ok(if quick() { 1 << 20 } else { 1 << 30 }), |v| v.parse())?;
    if me == 0 {
        println!(
            "allreduce (sum of f32) over {p} rank(s), chunks of {} KiB, {}, {} on rank 0",
            comm.chunk_bytes() >> 10,
            if p > 1 && comm.shared_memory() && comm.local_size() == p {
                "through a shared-memory window"
            } else {
                "through MPI messages"
            },
            dev.info().name
        );
        println!("| bytes | time (us) | algbw (GB/s) | busbw (GB/s) |");
        println!("|---:|---:|---:|---:|");
    }
    let mut bytes = min.max(4);
    while bytes <= max {
        let n = bytes / 4;
        let x = match dev.full::<f32>([n], 1.0 + me as f32) {
            Ok(x) => x,
            Err(e) => {
                // The same size on every rank: every rank stops alike.
                if me == 0 {
                    println!("stopping at {bytes} bytes: {e}");
                }
                break;
            }
        };
        // Fixed repetitions per size (every rank runs the same number of collectives).
        let reps = ((64 << 20) / bytes).clamp(2, 50);
        let first = comm.allreduce(&x, ReduceOp::Sum)?;
        let want = (p * (p + 1) / 2) as f32;
        let v = first.slice(n - 1..n)?.to_scalar()?;
        assert_eq!(v, want, "the sum is wrong");
        drop(first);
        comm.barrier()?;
        let t0 = Instant::now();
        for _ in 0..reps {
            let y = comm.allreduce(&x, ReduceOp::Sum)?;
            dev.synchronize()?;
            drop(y);
        }
        let mine = t0.elapsed().as_secs_f64() / reps as f64;
        let t = comm
            .allreduce(&dev.from_slice(&[mine], [1])?, ReduceOp::Max)?
            .to_scalar()?;
        if me == 0 {
            let algbw = bytes as f64 / t / 1e9;
            let busbw = algbw * 2.0 * (p as f64 - 1.0) / p as f64;
            println!("| {bytes} | {:.1} | {algbw:.3} | {busbw:.3} |", t * 1e6);
            println!("RESULT dist_allreduce ranks={p} bytes={bytes} us={:.2} algbw={algbw:.4} busbw={busbw:.4}", t * 1e6);
        }
        bytes *= 4;
    }
    Ok(())
}
