//! A Monte Carlo estimate of π split over MPI ranks (the `mpi` feature): each rank draws
//! its own points on its own device (a seed per rank), counts those inside the unit
//! circle, and `allreduce` adds the counts. Prints the estimate, its error and the points
//! per second over all ranks.
//!
//! ```text
//! cargo build --release --features mpi --example dist_montecarlo
//! mpirun -np 2 target/release/examples/dist_montecarlo --points 4294967296
//! GPUARRAY_EXAMPLES_QUICK=1 mpirun -np 2 target/release/examples/dist_montecarlo
//! ```
//!
//! Options: `--points N` (total, split over the ranks), `--device i,j,...` (as
//! `dist_lstsq`).

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
    let (p, me) = (comm.size(), comm.rank());
    let dev = comm.device().clone();
    let points: u64 = match arg("--points") {
        Some(v) => v.parse()?,
        None if quick() => 1 << 20,
        None => 1 << 32,
    };
    let mine = points / p as u64 + u64::from((me as u64) < points % p as u64);
    let batch: u64 = 1 << 24;
    comm.barrier()?;
    let t0 = Instant::now();
    let mut inside = 0u64;
    let mut done = 0u64;
    let mut k = 0u64;
    while done < mine {
        let n = batch.min(mine - done) as usize;
        // Seeds per rank and batch: no two ranks draw the same stream.
        let seed = ((me as u64) << 40) + k;
        let x = dev.random_uniform::<f32>([n], 2 * seed)?;
        let y = dev.random_uniform::<f32>([n], 2 * seed + 1)?;
        let r = x.mul(&x)?.add(&y.mul(&y)?)?;
        inside += r.lt_scalar(1.0)?.cast::<u32>()?.sum()?.to_scalar()? as u64;
        done += n as u64;
        k += 1;
    }
    let counts = dev.from_slice(&[inside as i64, done as i64], [2])?;
    let total = comm.allreduce(&counts, ReduceOp::Sum)?.to_vec()?;
    let secs = t0.elapsed().as_secs_f64();
    if me == 0 {
        let pi = 4.0 * total[0] as f64 / total[1] as f64;
        let sigma = 4.0
            * (std::f64::consts::FRAC_PI_4 * (1.0 - std::f64::consts::FRAC_PI_4) / total[1] as f64)
                .sqrt();
        println!(
            "{p} rank(s), {} points: pi ~ {pi:.8} (error {:.2e}, one sigma {sigma:.1e})",
            total[1],
            pi - std::f64::consts::PI
        );
        println!(
            "{:.3} s, {:.3e} points/s over all ranks",
            secs,
            total[1] as f64 / secs
        );
        println!(
            "RESULT dist_montecarlo ranks={p} points={} seconds={secs:.4}",
            total[1]
        );
        assert_eq!(total[1] as u64, points);
        assert!(
            (pi - std::f64::consts::PI).abs() < 6.0 * sigma + 1e-6,
            "the estimate is off by more than 6 sigma"
        );
    }
    Ok(())
}
