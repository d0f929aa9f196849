//! ShardedArray: sum, mean, max, argmax, norm, a product with a replicated matrix, map,
//! gather; parts of uneven length, one empty where there are 3 ranks.

use gpuarray::dist::{Comm, ShardedArray};

use crate::common::{assert_close, Rng};

pub fn sharded(comm: &Comm) {
    let (p, me) = (comm.size(), comm.rank());
    let dev = comm.device();
    let (n, k) = (11, 3);
    let mut r = Rng::new(77);
    let v: Vec<f64> = r.vec(n * k, -3.0, 3.0);
    let x = dev.from_slice(&v, [n, k]).unwrap();
    let s = comm.shard((me == 0).then_some(&x), 0).unwrap();
    assert_eq!(s.shape(), vec![n, k]);
    let parts: Vec<usize> = (0..p).map(|q| n / p + usize::from(q < n % p)).collect();
    assert_eq!(s.parts(), &parts[..]);
    assert_eq!(s.start(), parts[..me].iter().sum::<usize>());
    assert_eq!(s.local().shape(), &[parts[me], k]);

    let sum: f64 = v.iter().sum();
    assert_close(
        &[s.sum().unwrap().to_scalar().unwrap()],
        &[sum],
        1e-12,
        1e-12,
    );
    assert_close(
        &[s.mean().unwrap().to_scalar().unwrap()],
        &[sum / (n * k) as f64],
        1e-12,
        1e-12,
    );
    let norm = v.iter().map(|a| a * a).sum::<f64>().sqrt();
    assert_close(
        &[s.norm().unwrap().to_scalar().unwrap()],
        &[norm],
        1e-12,
        1e-12,
    );
    let (arg, max) = v.iter().enumerate().fold(
        (0, f64::MIN),
        |(i, m), (j, &a)| if a > m { (j, a) } else { (i, m) },
    );
    assert_eq!(s.max().unwrap().to_scalar().unwrap(), max);
    assert_eq!(s.argmax().unwrap(), arg);

    // Row-sharded times replicated: [n, k] @ [k, 2].
    let b: Vec<f64> = r.vec(k * 2, -1.0, 1.0);
    let bd = dev.from_slice(&b, [k, 2]).unwrap();
    let c = s.matmul(&bd).unwrap();
    assert_eq!(c.shape(), vec![n, 2]);
    let want: Vec<f64> = (0..n)
        .flat_map(|i| (0..2).map(move |j| (i, j)))
        .map(|(i, j)| (0..k).map(|t| v[i * k + t] * b[t * 2 + j]).sum())
        .collect();
    assert_close(
        &c.allgather().unwrap().to_vec().unwrap(),
        &want,
        1e-12,
        1e-12,
    );
    match c.gather(p - 1).unwrap() {
        Some(g) => assert_close(&g.to_vec().unwrap(), &want, 1e-12, 1e-12),
        None => assert_ne!(me, p - 1),
    }
    // Local elementwise work keeps the sharding.
    let doubled = s.map(|a| a.mul_scalar(2.0)).unwrap();
    let got = doubled.allgather().unwrap().to_vec().unwrap();
    assert_eq!(got, v.iter().map(|a| a * 2.0).collect::<Vec<_>>());

    // Integers with ties (the first occurrence wins), parts from each rank, rank 1 empty
    // where there are 3; the largest value in the last rank's part and an earlier one.
    let rows_of = |q: usize| if p == 3 && q == 1 { 0 } else { 2 + q };
    let all: Vec<i32> = (0..p)
        .flat_map(|q| (0..rows_of(q) * 2).map(move |i| ((i * 7 + q * 3) % 5) as i32))
        .collect();
    let start: usize = (0..me).map(|q| rows_of(q) * 2).sum();
    let mine = dev
        .from_slice(&all[start..start + rows_of(me) * 2], [rows_of(me), 2])
        .unwrap();
    let s = ShardedArray::from_local(comm, mine).unwrap();
    let max = *all.iter().max().unwrap();
    assert_eq!(s.max().unwrap().to_scalar().unwrap(), max);
    assert_eq!(
        s.argmax().unwrap(),
        all.iter().position(|&a| a == max).unwrap()
    );
    assert_eq!(
        s.sum().unwrap().to_scalar().unwrap(),
        all.iter().sum::<i32>()
    );
    // f32: the sum combined over the ranks within f32 rounding.
    let s32 = s.map(|a| a.cast::<f32>()).unwrap();
    assert_close(
        &[s32.sum().unwrap().to_scalar().unwrap() as f64],
        &[all.iter().sum::<i32>() as f64],
        0.0,
        1e-6,
    );

    // A whole array that is empty: max is an error, alike on every rank.
    let e = dev.zeros::<f32>([0, 2]).unwrap();
    let s = ShardedArray::from_local(comm, e).unwrap();
    assert!(s.max().is_err());
    assert_eq!(s.sum().unwrap().to_scalar().unwrap(), 0.0);
}
