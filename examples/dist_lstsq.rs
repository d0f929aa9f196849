//! Data-parallel least squares by gradient descent over MPI ranks (the `mpi` feature): each
//! rank holds its rows of `X` and `y` on its own device, computes its part of the gradient
//! `X_rᵀ (X_r w - y_r)`, the ranks add them with `allreduce` (in rank order: bitwise the
//! same on every rank), and every rank takes the same step. The weights stay identical on
//! every rank (checked at the end, bitwise). Prints the time per epoch, split into the
//! local gradient and the allreduce, for the speedup over 1 rank at the same total size.
//!
//! ```text
//! cargo build --release --features mpi --example dist_lstsq
//! mpirun -np 1 target/release/examples/dist_lstsq --rows 8000000 --dim 256
//! mpirun -np 2 target/release/examples/dist_lstsq --rows 8000000 --dim 256   # one GPU per rank
//! GPUARRAY_EXAMPLES_QUICK=1 mpirun -np 2 target/release/examples/dist_lstsq   # small sizes
//! ```
//!
//! Options: `--rows N` (total rows, split over the ranks), `--dim D`, `--epochs E` (timed),
//! `--warmup W` (epochs before them, untimed: 10 by default, so that the times are the
//! GPU's steady state rather than its clock coming up after the set-up on the host),
//! `--device i,j,...` (the device of local rank k is the list's entry k modulo its length;
//! by default the host's GPUs in turn, `dist::init`).

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

fn num(name: &str, default: usize) -> Res<usize> {
    Ok(match arg(name) {
        Some(v) => v.parse()?,
        None => default,
    })
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
    let rows = num("--rows", if quick() { 4096 } else { 8_000_000 })?;
    let d = num("--dim", if quick() { 16 } else { 256 })?;
    let epochs = num("--epochs", if quick() { 20 } else { 50 })?;
    let warmup = num("--warmup", if quick() { 2 } else { 10 })?;
    // This rank's rows: NumPy's array_split of the total.
    let mine = rows / p + usize::from(me < rows % p);
    // The rows in blocks of at most 1 GiB each (one array fits a storage binding: 2 GiB on
    // the H200, 128 MiB on lavapipe), as quick mode's 1,024 rows show.
    let block = if quick() {
        1024
    } else {
        ((1usize << 30) / (4 * d)).max(1)
    };
    // The true weights are the same everywhere (seed 1); the rows differ per rank and block.
    let w_true = dev.random_normal::<f32>([d, 1], 1)?;
    let mut xs = Vec::new();
    let mut ys = Vec::new();
    for (b, r0) in (0..mine).step_by(block).enumerate() {
        let n = block.min(mine - r0);
        let seed = (100 + me * 1000 + b) as u64;
        let x = dev.random_normal::<f32>([n, d], seed)?;
        let noise = dev
            .random_normal::<f32>([n, 1], seed + 500)?
            .mul_scalar(0.01)?;
        ys.push(x.matmul(&w_true)?.add(&noise)?);
        xs.push(x);
    }
    let mut w = dev.zeros::<f32>([d, 1])?;
    // Step size 1/L for the mean squared error of standard normal rows (L about 1 + d/rows).
    let lr = 1.0 / (1.0 + (d as f32).sqrt() / (rows as f32).sqrt()).powi(2);
    dev.synchronize()?;
    comm.barrier()?;
    if me == 0 {
        println!(
            "{p} rank(s), {rows} rows x {d} (f32, {} MB per rank) on {}",
            (mine * d * 4) >> 20,
            dev.info().name
        );
    }
    let (mut t_grad, mut t_comm) = (0.0, 0.0);
    let mut t0 = Instant::now();
    let mut loss0 = f32::NAN;
    let mut loss = f32::NAN;
    for e in 0..warmup + epochs {
        if e == warmup {
            dev.synchronize()?;
            comm.barrier()?;
            (t_grad, t_comm) = (0.0, 0.0);
            t0 = Instant::now();
        }
        let t = Instant::now();
        // The gradient X^T (X w - y) and the squared residuals, block by block.
        let mut g = dev.zeros::<f32>([d, 1])?;
        let mut sq = dev.zeros::<f32>([1])?;
        for (x, y) in xs.iter().zip(&ys) {
            let r = x.matmul(&w)?.sub(y)?; // residuals [n, 1]
            g = g.add(&x.t().matmul(&r)?)?; // [d, 1]
            sq = sq.add(&r.mul(&r)?.sum()?.reshape([1])?)?;
        }
        let local = gpuarray::Array::concatenate(&[&g.reshape([d])?, &sq], 0)?;
        dev.synchronize()?;
        t_grad += t.elapsed().as_secs_f64();
        let t = Instant::now();
        let total = comm.allreduce(&local, ReduceOp::Sum)?; // gradient and loss, rank order
        t_comm += t.elapsed().as_secs_f64();
        let g = total.slice(0..d)?.reshape([d, 1])?;
        if e == 0 || e + 1 == warmup + epochs {
            // Read on the host only where it is printed: the epochs never wait for it.
            loss = total.slice(d..d + 1)?.to_scalar()? / rows as f32;
        }
        if e == 0 {
            loss0 = loss;
        }
        w = w.sub(&g.mul_scalar(lr / rows as f32)?)?;
    }
    dev.synchronize()?;
    let total_s = t0.elapsed().as_secs_f64();
    // Identical weights on every rank: the largest and smallest over the ranks agree bitwise.
    let hi = comm.allreduce(&w, ReduceOp::Max)?.to_vec()?;
    let lo = comm.allreduce(&w, ReduceOp::Min)?.to_vec()?;
    let mine_w = w.to_vec()?;
    assert!(
        hi.iter()
            .zip(&lo)
            .zip(&mine_w)
            .all(|((a, b), c)| a.to_bits() == c.to_bits() && b.to_bits() == c.to_bits()),
        "the weights differ between ranks"
    );
    let err = w.sub(&w_true)?;
    let err = (err.mul(&err)?.sum()?.to_scalar()? / d as f32).sqrt();
    if me == 0 {
        let per = total_s / epochs as f64 * 1e3;
        println!(
            "loss {loss0:.4e} -> {loss:.4e} after {} epochs; rms weight error {err:.3e}",
            warmup + epochs
        );
        println!(
            "time per epoch {per:.3} ms: local gradient {:.3} ms, allreduce of {} floats {:.3} ms (rank 0)",
            t_grad / epochs as f64 * 1e3,
            d + 1,
            t_comm / epochs as f64 * 1e3
        );
        println!("RESULT dist_lstsq ranks={p} rows={rows} dim={d} epoch_ms={per:.4}");
        assert!(loss < loss0, "gradient descent did not reduce the loss");
    }
    Ok(())
}
