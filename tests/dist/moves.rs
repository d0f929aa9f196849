//! Point-to-point and the collectives that move arrays without combining them.

use gpuarray::dist::Comm;
use gpuarray::{Error, MpiErrorKind};

use crate::each_dtype;
use crate::elems::{assert_same, data, transposed, upload, Elem};

/// Rank 0 sends rank 1 a transposed view of every dtype, and a zero-size array; the
/// others send nothing.
pub fn p2p_every_dtype(comm: &Comm) {
    fn one<T: Elem>(comm: &Comm) {
        let (rows, cols) = (5, 7);
        let v = data::<T>(1, 0, rows * cols);
        if comm.rank() == 0 {
            let x = upload(comm, &v, &[rows, cols]);
            comm.send(&x.t(), 1, 3).unwrap();
            comm.send(&x.slice(0..0).unwrap(), 1, 4).unwrap();
        } else if comm.rank() == 1 {
            let y = comm.recv::<T>(0, 3).unwrap();
            assert_eq!(y.shape(), &[cols, rows]);
            assert_same(
                &y.to_vec().unwrap(),
                &transposed(&v, rows, cols),
                "send of a transposed view",
            );
            let z = comm.recv::<T>(0, 4).unwrap();
            assert_eq!(z.shape(), &[0, cols]);
        }
    }
    each_dtype!(comm, one);
}

/// Every rank sends its right neighbour an array in many small chunks (pipelined), with
/// the non-blocking calls, and a blocking send/recv pair in a ring ordered by rank.
pub fn p2p_pipelined_and_nonblocking(comm: &Comm) {
    let (me, p) = (comm.rank(), comm.size());
    let (right, left) = ((me + 1) % p, (me + p - 1) % p);
    let old = comm.chunk_bytes();
    comm.set_chunk_bytes(100); // rounded up to 104: 1009 f64 in 78 chunks, the last short
    let n = 1009;
    let x = upload(comm, &data::<f64>(2, me, n), &[n]);
    let sent = comm.isend(&x, right, 9).unwrap();
    let got = comm.irecv::<f64>(left, 9).unwrap().wait().unwrap();
    sent.wait().unwrap();
    assert_same(
        &got.to_vec().unwrap(),
        &data::<f64>(2, left, n),
        "isend/irecv in chunks",
    );
    // Blocking: even ranks send first, odd ones receive first.
    let y = upload(comm, &data::<i32>(3, me, 2 * n), &[2, n]);
    let strided = y
        .slice([gpuarray::Slice::from(..), gpuarray::Slice::from(..).step(3)])
        .unwrap();
    let want: Vec<i32> = {
        let v = data::<i32>(3, left, 2 * n);
        (0..2)
            .flat_map(|r| (0..n).step_by(3).map(move |c| (r, c)))
            .map(|(r, c)| v[r * n + c])
            .collect()
    };
    let got = if me % 2 == 0 {
        comm.send(&strided, right, 10).unwrap();
        comm.recv::<i32>(left, 10).unwrap()
    } else {
        let g = comm.recv::<i32>(left, 10).unwrap();
        comm.send(&strided, right, 10).unwrap();
        g
    };
    assert_eq!(got.shape(), &[2, n.div_ceil(3)]);
    assert_same(
        &got.to_vec().unwrap(),
        &want,
        "send/recv of a strided view in chunks",
    );
    comm.set_chunk_bytes(old);
}

/// A receive of another dtype than sent is a Mismatch; the bytes are drained, so the
/// sender returns and the next message arrives intact.
pub fn p2p_wrong_dtype_drains(comm: &Comm) {
    let old = comm.chunk_bytes();
    comm.set_chunk_bytes(64);
    let v = data::<f32>(4, 0, 300);
    if comm.rank() == 0 {
        let x = upload(comm, &v, &[300]);
        comm.send(&x, 1, 5).unwrap();
        comm.send(&x, 1, 5).unwrap();
    } else if comm.rank() == 1 {
        match comm.recv::<i32>(0, 5) {
            Err(Error::Mpi {
                kind: MpiErrorKind::Mismatch,
                op: "recv",
                ..
            }) => {}
            other => panic!("{other:?}"),
        }
        assert_same(
            &comm.recv::<f32>(0, 5).unwrap().to_vec().unwrap(),
            &v,
            "after a refused receive",
        );
    }
    // Bad arguments: a typed error, nothing sent.
    let x = upload(comm, &v, &[300]);
    assert!(matches!(
        comm.send(&x, comm.size(), 0),
        Err(Error::Mpi {
            kind: MpiErrorKind::Argument,
            ..
        })
    ));
    assert!(matches!(
        comm.send(&x, 0, 100_000),
        Err(Error::Mpi {
            kind: MpiErrorKind::Argument,
            ..
        })
    ));
    comm.set_chunk_bytes(old);
}

/// Every root, every dtype, a view, in chunks down the tree; a zero-size array.
pub fn broadcast(comm: &Comm) {
    fn one<T: Elem>(comm: &Comm) {
        let old = comm.chunk_bytes();
        comm.set_chunk_bytes(48);
        for root in 0..comm.size() {
            let (rows, cols) = (3, 29);
            let v = data::<T>(5, root, rows * cols);
            let x = upload(comm, &v, &[rows, cols]);
            let view = x.t();
            let y = comm
                .broadcast((comm.rank() == root).then_some(&view), root)
                .unwrap();
            assert_eq!(y.shape(), &[cols, rows]);
            assert_same(
                &y.to_vec().unwrap(),
                &transposed(&v, rows, cols),
                "broadcast",
            );
        }
        let e = comm.device().zeros::<T>([0, 4]).unwrap();
        let y = comm.broadcast((comm.rank() == 0).then_some(&e), 0).unwrap();
        assert_eq!(y.shape(), &[0, 4]);
        comm.set_chunk_bytes(old);
    }
    each_dtype!(comm, one);
}

/// Rank r holds r+1 rows (rank 1 none where there are 3 ranks) along axis 0, or columns
/// along axis 1; gathered on root 1 and on every rank.
pub fn gather_allgather_uneven(comm: &Comm) {
    fn one<T: Elem>(comm: &Comm) {
        let p = comm.size();
        let rows_of = |r: usize| if p == 3 && r == 1 { 0 } else { r + 1 };
        let cols = 3;
        let me = comm.rank();
        // Axis 0.
        let x = upload(
            comm,
            &data::<T>(6, me, rows_of(me) * cols),
            &[rows_of(me), cols],
        );
        let want: Vec<T> = (0..p)
            .flat_map(|r| data::<T>(6, r, rows_of(r) * cols))
            .collect();
        let total: usize = (0..p).map(rows_of).sum();
        let all = comm.allgather(&x, 0).unwrap();
        assert_eq!(all.shape(), &[total, cols]);
        assert_same(&all.to_vec().unwrap(), &want, "allgather axis 0");
        let g = comm.gather(&x, 0, 1).unwrap();
        assert_eq!(g.is_some(), me == 1);
        if let Some(g) = g {
            assert_same(&g.to_vec().unwrap(), &want, "gather axis 0");
        }
        // Axis 1 of a transposed view: rank r holds [cols, rows_of(r)].
        let xt = x.t();
        let all = comm.allgather(&xt, 1).unwrap();
        assert_eq!(all.shape(), &[cols, total]);
        assert_same(
            &all.to_vec().unwrap(),
            &transposed(&want, total, cols),
            "allgather axis 1",
        );
    }
    each_dtype!(comm, one);
}

/// A prime length split over the ranks along axis 1 (uneven parts), from root p-1.
pub fn scatter_uneven(comm: &Comm) {
    fn one<T: Elem>(comm: &Comm) {
        let (p, me) = (comm.size(), comm.rank());
        let root = p - 1;
        for cols in [0, 1, 7] {
            let rows = 2;
            let v = data::<T>(7, 0, rows * cols);
            let x = upload(comm, &v, &[rows, cols]);
            let part = comm.scatter((me == root).then_some(&x), 1, root).unwrap();
            let ext: Vec<usize> = (0..p)
                .map(|q| cols / p + usize::from(q < cols % p))
                .collect();
            let start: usize = ext[..me].iter().sum();
            assert_eq!(part.shape(), &[rows, ext[me]]);
            let want: Vec<T> = (0..rows)
                .flat_map(|r| (start..start + ext[me]).map(move |c| (r, c)))
                .map(|(r, c)| v[r * cols + c])
                .collect();
            assert_same(&part.to_vec().unwrap(), &want, "scatter axis 1");
        }
    }
    each_dtype!(comm, one);
}

/// Rows split over ranks (5 rows: uneven), part j to rank j.
pub fn alltoall(comm: &Comm) {
    fn one<T: Elem>(comm: &Comm) {
        let (p, me) = (comm.size(), comm.rank());
        let (rows, cols) = (5, 2);
        let x = upload(comm, &data::<T>(8, me, rows * cols), &[rows, cols]);
        let y = comm.alltoall(&x, 0).unwrap();
        let ext: Vec<usize> = (0..p)
            .map(|q| rows / p + usize::from(q < rows % p))
            .collect();
        let start: usize = ext[..me].iter().sum();
        assert_eq!(y.shape(), &[ext[me] * p, cols]);
        let want: Vec<T> = (0..p)
            .flat_map(|q| {
                data::<T>(8, q, rows * cols)[start * cols..(start + ext[me]) * cols].to_vec()
            })
            .collect();
        assert_same(&y.to_vec().unwrap(), &want, "alltoall");
    }
    each_dtype!(comm, one);
}

/// The moves again in pipelined chunks of 8 and 24 bytes: every part cut into several
/// chunks and every result into several windows (u8 and f16 parts at byte offsets that
/// are not multiples of 4, complex128 elements split across chunks).
pub fn moves_pipelined(comm: &Comm) {
    let old = comm.chunk_bytes();
    for chunk in [8, 24] {
        comm.set_chunk_bytes(chunk);
        gather_allgather_uneven(comm);
        scatter_uneven(comm);
        alltoall(comm);
    }
    comm.set_chunk_bytes(old);
}
