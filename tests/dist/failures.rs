//! Ranks that disagree, a rank whose part fails, and timeouts: errors on every rank,
//! never a hang; the communicator stays usable after a disagreement.

use std::time::{Duration, Instant};

use gpuarray::dist::{Comm, ReduceOp};
use gpuarray::{Complex, Error, MpiErrorKind};

#[track_caller]
fn kind<R: std::fmt::Debug>(r: gpuarray::Result<R>, want: MpiErrorKind) {
    match r {
        Err(Error::Mpi { kind, .. }) if kind == want => {}
        other => panic!("expected {want:?}, got {other:?}"),
    }
}

/// The communicator still works: an allreduce every rank checks.
fn still_works(comm: &Comm) {
    let x = comm.device().full::<i32>([3], 1).unwrap();
    assert_eq!(
        comm.allreduce(&x, ReduceOp::Sum).unwrap().to_vec().unwrap(),
        vec![comm.size() as i32; 3]
    );
}

pub fn mismatches(comm: &Comm) {
    let (me, dev) = (comm.rank(), comm.device());
    // Shapes.
    let x = dev.ones::<f32>([if me == 1 { 5 } else { 4 }]).unwrap();
    kind(comm.allreduce(&x, ReduceOp::Sum), MpiErrorKind::Mismatch);
    still_works(comm);
    // Dtypes.
    if me == 0 {
        kind(
            comm.allreduce(&dev.ones::<f32>([4]).unwrap(), ReduceOp::Sum),
            MpiErrorKind::Mismatch,
        );
    } else {
        kind(
            comm.allreduce(&dev.ones::<i32>([4]).unwrap(), ReduceOp::Sum),
            MpiErrorKind::Mismatch,
        );
    }
    still_works(comm);
    // Operators, roots.
    let op = if me == 0 {
        ReduceOp::Max
    } else {
        ReduceOp::Sum
    };
    kind(
        comm.allreduce(&x.slice(0..4).unwrap(), op),
        MpiErrorKind::Mismatch,
    );
    kind(
        comm.reduce(&x.slice(0..4).unwrap(), ReduceOp::Sum, me),
        MpiErrorKind::Mismatch,
    );
    still_works(comm);
    // Different collectives.
    let y = dev.ones::<f32>([2, 2]).unwrap();
    if me == 0 {
        kind(comm.broadcast(Some(&y), 0), MpiErrorKind::Mismatch);
    } else {
        kind(comm.allgather(&y, 0), MpiErrorKind::Mismatch);
    }
    // Shapes that must agree except along the axis.
    let z = dev.ones::<f32>([2, if me == 0 { 3 } else { 2 }]).unwrap();
    kind(comm.allgather(&z, 0), MpiErrorKind::Mismatch);
    assert_eq!(
        comm.allgather(&z, 1).unwrap().shape()[1],
        3 + 2 * (comm.size() - 1)
    );
    still_works(comm);
}

pub fn local_failures(comm: &Comm) {
    let (me, dev) = (comm.rank(), comm.device());
    let x = dev.ones::<f32>([2, 2]).unwrap();
    // Rank 1 names an axis its array lacks: its own error there, Remote elsewhere.
    let r = comm.gather(&x, if me == 1 { 5 } else { 0 }, 0);
    if me == 1 {
        assert!(
            matches!(r, Err(Error::AxisOutOfRange { axis: 5, ndim: 2 })),
            "{r:?}"
        );
    } else {
        kind(r, MpiErrorKind::Remote);
    }
    still_works(comm);
    // The root of a broadcast without an array.
    let r = comm.broadcast::<f32>(None, 0);
    if me == 0 {
        assert!(
            matches!(
                r,
                Err(Error::InvalidArgument {
                    op: "broadcast",
                    ..
                })
            ),
            "{r:?}"
        );
    } else {
        kind(r, MpiErrorKind::Remote);
    }
    // A refused operator on every rank; a root past the size.
    let c = dev.zeros::<Complex<f32>>([3]).unwrap();
    assert!(matches!(
        comm.allreduce(&c, ReduceOp::Max),
        Err(Error::Unsupported {
            op: "allreduce",
            ..
        })
    ));
    kind(
        comm.reduce(&x, ReduceOp::Sum, comm.size()),
        MpiErrorKind::Argument,
    );
    // 0-d arrays where an axis is needed.
    let s = dev.full::<f32>([], 1.0).unwrap();
    assert!(matches!(
        comm.reduce_scatter(&s, ReduceOp::Sum),
        Err(Error::InvalidArgument { .. })
    ));
    // The input is intact after all of it.
    assert_eq!(x.to_vec().unwrap(), vec![1.0; 4]);
    still_works(comm);
}

/// Rank 0 calls an allreduce nobody else calls; rank 1 waits for a message nobody sends.
/// Both get a Timeout within the timeout (1 s), then Closed; the others are unaffected.
pub fn timeouts(comm: &Comm, spare: &Comm) {
    comm.set_timeout(Duration::from_secs(1));
    let t = Instant::now();
    let x = comm.device().ones::<f32>([4]).unwrap();
    match comm.rank() {
        0 => kind(comm.allreduce(&x, ReduceOp::Sum), MpiErrorKind::Timeout),
        1 => kind(comm.recv::<f32>(0, 77), MpiErrorKind::Timeout),
        _ => {}
    }
    assert!(t.elapsed() < Duration::from_secs(20), "{:?}", t.elapsed());
    if comm.rank() < 2 {
        assert!(comm.is_closed());
        kind(comm.barrier(), MpiErrorKind::Closed);
        kind(comm.send(&x, 0, 1), MpiErrorKind::Closed);
    }
    // The spare communicator over the same ranks still works.
    let y = spare.allreduce(&x, ReduceOp::Max).unwrap();
    assert_eq!(y.to_vec().unwrap(), vec![1.0; 4]);
}

/// A rank whose part fails midway through a pipelined allreduce (through the
/// shared-memory window, then through messages), then an allgather (chunk 3 of 63): its
/// own error there, and that error as `Remote` on every other rank (naming the
/// rank and the cause, well within the timeout, not a `Timeout`); then the communicator
/// is closed on every rank. Each on a fresh communicator over the same ranks, kept (not
/// dropped) to the end: Open MPI gives a freed communicator's context to the next one,
/// which would then meet the abandoned transfer's messages still queued.
pub fn midway(comm: &Comm) {
    let world = mpi::topology::SimpleCommunicator::world();
    let mut keep = Vec::new();
    for k in 0..3 {
        let c = Comm::with_device(&world, comm.device().clone()).unwrap();
        c.set_shared_memory(k != 2);
        c.set_timeout(Duration::from_secs(30));
        c.set_chunk_bytes(64);
        let x = c.device().ones::<f32>([1000]).unwrap(); // 4000 bytes: 63 chunks
        let bad = (k + 1) % c.size();
        if c.rank() == bad {
            c.fail_after_chunks(3);
        }
        let t = Instant::now();
        let r = if k != 1 {
            c.allreduce(&x, ReduceOp::Sum).map(|_| ())
        } else {
            c.allgather(&x, 0).map(|_| ())
        };
        if c.rank() == bad {
            assert!(matches!(r, Err(Error::DeviceLost(_))), "{r:?}");
        } else {
            match r {
                Err(Error::Mpi {
                    kind: MpiErrorKind::Remote,
                    detail,
                    ..
                }) => assert!(
                    detail.contains(&format!("rank {bad} failed midway"))
                        && detail.contains("injected before chunk 3"),
                    "{detail}"
                ),
                other => panic!("expected Remote from rank {bad}, got {other:?}"),
            }
        }
        assert!(t.elapsed() < Duration::from_secs(10), "{:?}", t.elapsed());
        assert!(c.is_closed());
        kind(c.barrier(), MpiErrorKind::Closed);
        // The input is intact.
        assert_eq!(x.to_vec().unwrap(), vec![1.0; 1000]);
        keep.push(c);
    }
}
