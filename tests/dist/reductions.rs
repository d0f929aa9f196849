//! allreduce, reduce and reduce_scatter: bitwise against the rank-order fold.

use gpuarray::dist::{Comm, ReduceOp};
use gpuarray::Error;

use crate::each_dtype;
use crate::elems::{assert_same, data, transposed, upload, Elem};

const OPS: [ReduceOp; 4] = [ReduceOp::Sum, ReduceOp::Prod, ReduceOp::Min, ReduceOp::Max];

/// The rank-order fold of every rank's data (`None` where the op is refused).
fn fold<T: Elem>(
    seed: u64,
    p: usize,
    n: usize,
    op: ReduceOp,
    map: impl Fn(Vec<T>) -> Vec<T>,
) -> Option<Vec<T>> {
    let mut acc = map(data::<T>(seed, 0, n));
    for r in 1..p {
        let b = map(data::<T>(seed, r, n));
        for (a, b) in acc.iter_mut().zip(b) {
            *a = T::op(op, *a, b)?;
        }
    }
    Some(acc)
}

pub fn allreduce_every_dtype_and_op(comm: &Comm) {
    fn one<T: Elem>(comm: &Comm) {
        for (k, op) in OPS.into_iter().enumerate() {
            for n in [0, 1, 37] {
                let seed = 20 + k as u64;
                let x = upload(comm, &data::<T>(seed, comm.rank(), n), &[n]);
                // Whether the operator takes the dtype at all (asked of one value: the
                // refusal holds for empty arrays too).
                let probe = data::<T>(0, 0, 1)[0];
                let takes = T::op(op, probe, probe).is_some();
                match fold::<T>(seed, comm.size(), n, op, |v| v).filter(|_| takes) {
                    Some(want) => {
                        let got = comm.allreduce(&x, op).unwrap();
                        assert_eq!(got.shape(), &[n]);
                        assert_same(
                            &got.to_vec().unwrap(),
                            &want,
                            &format!("allreduce {op:?} {:?}", T::DTYPE),
                        );
                    }
                    None => match comm.allreduce(&x, op) {
                        Err(Error::Unsupported {
                            op: "allreduce",
                            dtype,
                            ..
                        }) => assert_eq!(dtype, T::DTYPE),
                        other => panic!("{op:?} of {:?}: {other:?}", T::DTYPE),
                    },
                }
            }
        }
    }
    each_dtype!(comm, one);
}

/// A transposed view of an awkward shape, in chunks smaller than a segment per rank and
/// with a last short chunk: the pipeline, and segments of uneven length.
pub fn allreduce_pipelined_views(comm: &Comm) {
    fn one<T: Elem>(comm: &Comm) {
        let old = comm.chunk_bytes();
        let (rows, cols) = (13, 31);
        for chunk in [8, 56, 1 << 20] {
            comm.set_chunk_bytes(chunk);
            let x = upload(
                comm,
                &data::<T>(30, comm.rank(), rows * cols),
                &[rows, cols],
            );
            let probe = data::<T>(0, 0, 1)[0];
            let op = if T::op(ReduceOp::Sum, probe, probe).is_some() {
                ReduceOp::Sum
            } else {
                ReduceOp::Max
            };
            let want = fold::<T>(30, comm.size(), rows * cols, op, |v| {
                transposed(&v, rows, cols)
            })
            .unwrap();
            let got = comm.allreduce(&x.t(), op).unwrap();
            assert_eq!(got.shape(), &[cols, rows]);
            assert_same(
                &got.to_vec().unwrap(),
                &want,
                &format!("allreduce of a view in chunks of {chunk}"),
            );
        }
        comm.set_chunk_bytes(old);
    }
    each_dtype!(comm, one);
}

pub fn reduce_and_reduce_scatter(comm: &Comm) {
    fn one<T: Elem>(comm: &Comm) {
        let (p, me) = (comm.size(), comm.rank());
        let op = if T::DTYPE == gpuarray::DType::Bool {
            ReduceOp::Min
        } else {
            ReduceOp::Prod
        };
        let (rows, cols) = (7, 3);
        let x = upload(comm, &data::<T>(40, me, rows * cols), &[rows, cols]);
        let want = fold::<T>(40, p, rows * cols, op, |v| v).unwrap();
        for root in 0..p {
            let got = comm.reduce(&x, op, root).unwrap();
            assert_eq!(got.is_some(), me == root);
            if let Some(g) = got {
                assert_same(&g.to_vec().unwrap(), &want, "reduce");
            }
        }
        let part = comm.reduce_scatter(&x, op).unwrap();
        let ext: Vec<usize> = (0..p)
            .map(|q| rows / p + usize::from(q < rows % p))
            .collect();
        let start: usize = ext[..me].iter().sum();
        assert_eq!(part.shape(), &[ext[me], cols]);
        assert_same(
            &part.to_vec().unwrap(),
            &want[start * cols..(start + ext[me]) * cols],
            "reduce_scatter",
        );
    }
    each_dtype!(comm, one);
}

/// The reductions again through messages instead of the shared-memory window (the ranks
/// here share one host, so the tests above take the window): the same bits; and ranks
/// that disagree about the window are a `Mismatch` on every rank.
pub fn reductions_over_messages(comm: &Comm) {
    assert!(comm.shared_memory());
    comm.set_shared_memory(false);
    allreduce_every_dtype_and_op(comm);
    allreduce_pipelined_views(comm);
    reduce_and_reduce_scatter(comm);
    comm.set_shared_memory(comm.rank() != 0);
    let x = comm.device().ones::<f32>([4]).unwrap();
    match comm.allreduce(&x, ReduceOp::Sum) {
        Err(Error::Mpi {
            kind: gpuarray::MpiErrorKind::Mismatch,
            ..
        }) => {}
        other => panic!("expected Mismatch, got {other:?}"),
    }
    comm.set_shared_memory(true);
    let y = comm.allreduce(&x, ReduceOp::Sum).unwrap();
    assert_eq!(y.to_vec().unwrap(), vec![comm.size() as f32; 4]);
}

/// The reductions of a communicator of one rank (`MPI_COMM_SELF` on every rank): the
/// array itself, copied on the device, bitwise (NaN payloads, -0, integer extremes among
/// the data), views included.
pub fn reductions_on_one_rank(comm: &Comm) {
    let one = Comm::with_device(
        &mpi::topology::SimpleCommunicator::self_comm(),
        comm.device().clone(),
    )
    .expect("a communicator of one rank");
    assert_eq!((one.size(), one.rank()), (1, 0));
    allreduce_every_dtype_and_op(&one);
    allreduce_pipelined_views(&one);
    reduce_and_reduce_scatter(&one);
}

/// A rank without room for the shared-memory window (a container's small /dev/shm,
/// pretended on the last rank): every rank takes the messages instead, the same bits.
pub fn reductions_without_window_room(comm: &Comm) {
    let last = comm.rank() + 1 == comm.size();
    let old = comm.chunk_bytes();
    // A chunk size no window was made for yet: the next reduction makes one (or not).
    comm.set_chunk_bytes(1 << 16);
    comm.pretend_shm_room(last.then_some(0));
    allreduce_every_dtype_and_op(comm);
    assert_eq!(
        comm.shm_slot_bytes(),
        0,
        "a window made without room on every rank"
    );
    allreduce_pipelined_views(comm);
    reduce_and_reduce_scatter(comm);
    comm.pretend_shm_room(None);
    comm.set_chunk_bytes(old);
    let x = comm.device().ones::<f32>([3]).unwrap();
    let y = comm.allreduce(&x, ReduceOp::Sum).unwrap();
    assert_eq!(y.to_vec().unwrap(), vec![comm.size() as f32; 3]);
    assert_eq!(
        comm.shm_slot_bytes(),
        comm.chunk_bytes(),
        "the window again with room"
    );
}
