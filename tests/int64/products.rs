//! matmul, dot, outer and trace of i64 and u64: products wrapping in the type, against an
//! exact reference; shapes past one workgroup tile, batches, vectors, transposed views.

use crate::common::{dev, Rng};
use crate::{down, wide_values, Int64};
use gpuarray::Array;

/// `a @ b` of row-major [m, k] and [k, n], wrapping.
fn reference<T: Int64>(a: &[T], b: &[T], m: usize, k: usize, n: usize) -> Vec<T> {
    let mut c = vec![T::from_bits(0); m * n];
    for i in 0..m {
        for j in 0..n {
            let mut s = T::from_bits(0);
            for l in 0..k {
                s = s.wadd(a[i * k + l].wmul(b[l * n + j]));
            }
            c[i * n + j] = s;
        }
    }
    c
}

/// Small values and wide ones, so that some products and sums wrap.
fn operands<T: Int64>(rng: &mut Rng, n: usize) -> Vec<T> {
    let wide = wide_values::<T>(rng, n);
    (0..n)
        .map(|i| {
            if i % 5 == 0 {
                wide[i]
            } else {
                T::from_bits(rng.next_u64() % 1000)
            }
        })
        .collect()
}

fn matmul<T: Int64>() {
    let mut rng = Rng::new(41);
    for (m, k, n) in [
        (1, 1, 1),
        (2, 3, 4),
        (7, 13, 5),
        (33, 1, 17),
        (70, 33, 65),
        (129, 67, 131),
        (1, 300, 1),
        (5, 0, 3),
        (0, 4, 2),
    ] {
        let (av, bv) = (
            operands::<T>(&mut rng, m * k),
            operands::<T>(&mut rng, k * n),
        );
        let a = dev().from_slice(&av, [m, k]).unwrap();
        let b = dev().from_slice(&bv, [k, n]).unwrap();
        let want = reference(&av, &bv, m, k, n);
        let what = format!("{} {m}x{k}x{n}", T::DTYPE);
        assert_eq!(down(&a.matmul(&b).unwrap()), want, "matmul {what}");
        // Transposed views, read in place: (b^T a^T)^T.
        let ct = b.t().matmul(&a.t()).unwrap();
        assert_eq!(
            down(&ct.t().contiguous().unwrap()),
            want,
            "transposed {what}"
        );
        assert_eq!(down(&a.dot(&b).unwrap()), want, "dot {what}");
    }
    // Batched, with a broadcast batch dimension.
    let (av, bv) = (
        operands::<T>(&mut rng, 3 * 9 * 11),
        operands::<T>(&mut rng, 11 * 6),
    );
    let a: Array<T> = dev().from_slice(&av, [3, 9, 11]).unwrap();
    let b = dev().from_slice(&bv, [11, 6]).unwrap();
    let got = down(&a.matmul(&b).unwrap());
    for z in 0..3 {
        let want = reference(&av[z * 99..(z + 1) * 99], &bv, 9, 11, 6);
        assert_eq!(&got[z * 54..(z + 1) * 54], &want[..], "batch {z}");
    }
    // Matrix-vector and vector-matrix, the inner product, outer product and trace.
    let (mv, vv) = (
        operands::<T>(&mut rng, 40 * 300),
        operands::<T>(&mut rng, 300),
    );
    let mat = dev().from_slice(&mv, [40, 300]).unwrap();
    let vec = dev().from_slice(&vv, [300]).unwrap();
    assert_eq!(
        down(&mat.matmul(&vec).unwrap()),
        reference(&mv, &vv, 40, 300, 1)
    );
    let mt = mat.t();
    let row = dev().from_slice(&vv[..40], [40]).unwrap();
    let mtv = down(&mt.contiguous().unwrap());
    assert_eq!(
        down(&row.matmul(&mat).unwrap()),
        reference(&vv[..40], &mv, 1, 40, 300)
    );
    assert_eq!(
        down(&mt.matmul(&row).unwrap()),
        reference(&mtv, &vv[..40], 300, 40, 1)
    );
    let dot = vec.dot(&vec).unwrap().to_scalar().unwrap();
    assert_eq!(dot, reference(&vv, &vv, 1, 300, 1)[0]);
    let o = down(&vec.slice_axis(0, ..3).unwrap().outer(&row).unwrap());
    assert_eq!(o, reference(&vv[..3], &vv[..40], 3, 1, 40));
    let sq = dev().from_slice(&mv[..49], [7, 7]).unwrap();
    let tr = (0..7).fold(T::from_bits(0), |s, i| s.wadd(mv[i * 8]));
    assert_eq!(sq.trace().unwrap().to_scalar().unwrap(), tr);
}

crate::per_dtype! {
    [i64_: i64, u64_: u64] => {
        matmul => super::matmul::<T>();
    }
}
