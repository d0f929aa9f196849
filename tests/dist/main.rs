//! gpuarray::dist under mpirun. Run plainly (`cargo test --features mpi --test dist`), this
//! binary is the launcher: it runs itself under `mpirun` with 2 and then 3 ranks on this
//! machine's adapter (lavapipe on CI) and fails when either run fails, or when `mpirun` is
//! missing (`make test` installs Open MPI). Launched by mpirun (it sees Open MPI's or
//! PMI's rank variables), it is one rank: every operation of `Comm` and `ShardedArray`
//! against a CPU reference computed from every rank's data (each rank's data comes from a
//! seed of its rank, so every rank knows all of them), every dtype, views, zero-size
//! arrays, uneven parts, ranks that disagree, a rank whose part fails (before any data
//! move and midway through one), and timeouts.

#[path = "../common/mod.rs"]
mod common;
mod elems;
mod failures;
mod launch;
mod moves;
mod reductions;
mod sharded;

use std::time::Duration;

use gpuarray::dist::{self, Comm};

/// One check, run on every rank.
type Check = fn(&Comm);

/// Whether this process was started by mpirun (Open MPI, MPICH/Hydra or Slurm's PMI).
fn under_mpirun() -> bool {
    ["OMPI_COMM_WORLD_SIZE", "PMI_SIZE", "PMIX_RANK"]
        .iter()
        .any(|v| std::env::var_os(v).is_some())
}

fn main() {
    if !under_mpirun() {
        launch::launch_all();
        return;
    }
    let comm = dist::init().expect("MPI and a device");
    comm.set_timeout(Duration::from_secs(60));
    // A second communicator over the same ranks, for after the timeouts close the first.
    let spare = Comm::with_device(
        &mpi::topology::SimpleCommunicator::world(),
        comm.device().clone(),
    )
    .expect("a second communicator");
    spare.set_timeout(Duration::from_secs(60));
    let tests: &[(&str, Check)] = &[
        ("p2p_every_dtype", moves::p2p_every_dtype),
        (
            "p2p_pipelined_and_nonblocking",
            moves::p2p_pipelined_and_nonblocking,
        ),
        ("p2p_wrong_dtype_drains", moves::p2p_wrong_dtype_drains),
        ("broadcast", moves::broadcast),
        ("gather_allgather_uneven", moves::gather_allgather_uneven),
        ("scatter_uneven", moves::scatter_uneven),
        ("alltoall", moves::alltoall),
        ("moves_pipelined", moves::moves_pipelined),
        (
            "allreduce_every_dtype_and_op",
            reductions::allreduce_every_dtype_and_op,
        ),
        (
            "allreduce_pipelined_views",
            reductions::allreduce_pipelined_views,
        ),
        (
            "reduce_and_reduce_scatter",
            reductions::reduce_and_reduce_scatter,
        ),
        (
            "reductions_over_messages",
            reductions::reductions_over_messages,
        ),
        ("reductions_on_one_rank", reductions::reductions_on_one_rank),
        (
            "reductions_without_window_room",
            reductions::reductions_without_window_room,
        ),
        ("sharded", sharded::sharded),
        ("mismatches", failures::mismatches),
        ("local_failures", failures::local_failures),
        ("midway", failures::midway),
    ];
    for (name, t) in tests {
        t(&comm);
        comm.barrier().expect("barrier");
        if comm.rank() == 0 {
            println!("dist ({} ranks): {name} ok", comm.size());
        }
    }
    failures::timeouts(&comm, &spare);
    spare.barrier().expect("barrier after the timeouts");
    if comm.rank() == 0 {
        println!("dist ({} ranks): timeouts ok", comm.size());
    }
}
