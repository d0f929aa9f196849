//! The LU's panels in registers (src/linalg/factor_reg.rs): pivots as LAPACK chooses them
//! (ties to the lowest row, exact ties kept exact), every register shape (panels of up to
//! 64, 128, 256, 512 and 1024 invocations; widths not dividing the block), the fallback
//! past 4096 rows, and singular matrices whose zero pivots fall inside a sub-panel.

use gpuarray::linalg;
use gpuarray::{Float, Slice};

use super::bound;
use super::common::{dev, host, upload, Rng};
use super::reference::*;

/// A random n x n matrix whose column 0 is all +-1 (a tie of every row: LAPACK keeps row
/// 0) and whose rows `dups[t].1` are the negatives of rows `dups[t].0` (ties that stay
/// exact through every update until one of the two is the pivot, the other then zero).
fn tied(rng: &mut Rng, n: usize, dups: &[(usize, usize)]) -> Vec<f64> {
    let mut a = rng.vec(n * n, -1.0, 1.0);
    for r in 0..n {
        a[r * n] = if rng.bool(0.5) { 1.0 } else { -1.0 };
    }
    for &(src, dst) in dups {
        for c in 0..n {
            a[dst * n + c] = -a[src * n + c];
        }
    }
    a
}

/// Pivots equal to the f64 reference's (the first of equal magnitudes), the LU within the
/// bound, on matrices with exact ties (singular: the duplicated rows).
pub fn pivots_as_lapack<T: Float>() {
    let mut rng = Rng::new(31);
    for (n, dups) in [
        (9usize, vec![(2usize, 6usize)]),
        (70, vec![(3, 40), (10, 11), (50, 20)]),
        (133, vec![(0, 100), (64, 65), (130, 7)]),
    ] {
        let ah = tied(&mut rng, n, &dups);
        let (a, ah) = upload::<T>(dev(), &ah, &[n, n]);
        let f = linalg::lu_factor(&a).expect("lu_factor");
        let piv: Vec<usize> = f
            .piv()
            .to_vec()
            .expect("piv")
            .iter()
            .map(|&p| p as usize)
            .collect();
        let (_, want, _) = lu_ref(&ah, n);
        assert_eq!(piv[0], 0, "n={n}: the tie of column 0");
        // The last steps choose among the collapsed rows: exact zeros in the reference,
        // zeros or roundings (x * (1 / x) need not be 1) on the GPU.
        let k = n - dups.len();
        assert_eq!(piv[..k], want[..k], "n={n}: pivots");
        // L U = P A (backward stable whatever the rank).
        let f = host(f.lu());
        let e = rel_diff(&lu_product(&f, n, n), &permuted(&ah, &piv, n, n));
        assert!(e <= bound::<T>(n), "n={n}: lu {e:e}");
    }
}

/// A's m rows swapped as the pivots say, in order.
fn permuted(a: &[f64], piv: &[usize], m: usize, n: usize) -> Vec<f64> {
    let mut pa = a[..m * n].to_vec();
    for (j, &p) in piv.iter().enumerate() {
        for c in 0..n {
            pa.swap(j * n + c, p * n + c);
        }
    }
    pa
}

/// L U from the combined m x n factors `f` (L unit lower, m x k; U upper, k x n).
fn lu_product(f: &[f64], m: usize, n: usize) -> Vec<f64> {
    let k = m.min(n);
    let l: Vec<f64> = (0..m * k)
        .map(|t| {
            let (r, c) = (t / k, t % k);
            match r.cmp(&c) {
                std::cmp::Ordering::Greater => f[r * n + c],
                std::cmp::Ordering::Equal => 1.0,
                std::cmp::Ordering::Less => 0.0,
            }
        })
        .collect();
    assert!(l.iter().all(|v| v.abs() <= 1.0), "{m}x{n}: |L| <= 1");
    let u: Vec<f64> = (0..k * n)
        .map(|t| if t % n >= t / n { f[t] } else { 0.0 })
        .collect();
    matmul(&l, &u, m, k, n)
}

/// L U = P A for tall and wide stacks whose panels take every register shape: rows
/// (64, 128, 256, 512, 1024 invocations of 1 to 4 rows), widths ending mid sub-panel, and
/// 4100 rows (past the registers: shaders/factor.wgsl's panel).
pub fn register_shapes<T: Float>() {
    let mut rng = Rng::new(32);
    for (count, m, n) in [
        (3usize, 5usize, 5usize),
        (2, 61, 61),
        (1, 200, 77),
        (1, 517, 45),
        (1, 1100, 37),
        (1, 3000, 9),
        (1, 4096, 6),
        (1, 4100, 3),
        (2, 40, 300),
        // swap_rows over 3 workgroups of columns, 3 rows an invocation.
        (2, 700, 261),
    ] {
        // Column 0 in (-1, 1) but rows m / 2 and m - 1 at +-2: a tie across invocations
        // (and groups of 32), the first of the two the pivot.
        let mut v = rng.vec(count * m * n, -1.0, 1.0);
        let (r1, r2) = (m / 2, m - 1);
        for i in 0..count {
            v[i * m * n + r1 * n] = 2.0;
            v[i * m * n + r2 * n] = -2.0;
        }
        let (a, ah) = upload::<T>(dev(), &v, &[count, m, n]);
        let f = linalg::lu_factor(&a).expect("lu_factor");
        let piv = f.piv().to_vec().expect("piv");
        let luh = host(f.lu());
        let k = m.min(n);
        for i in 0..count {
            assert_eq!(piv[i * k] as usize, r1, "{m}x{n}: the tie");
            let p: Vec<usize> = piv[i * k..][..k].iter().map(|&p| p as usize).collect();
            let pa = permuted(&ah[i * m * n..], &p, m, n);
            let e = rel_diff(&lu_product(&luh[i * m * n..][..m * n], m, n), &pa);
            assert!(e <= bound::<T>(m.max(n)), "lu {m}x{n} #{i}: {e:e}");
        }
    }
}

/// Solves through every path at sizes not a multiple of the block, a strided (transposed,
/// offset) matrix and rank-deficient stacks: the backward error within the bound, and a
/// zero pivot mid sub-panel named as the singular matrix.
pub fn solves_and_singular<T: Float>() {
    let mut rng = Rng::new(33);
    let n = 150;
    // A transposed view of a wider matrix's columns [3, 3 + n).
    let (big, bh) = upload::<T>(dev(), &rng.vec(n * (n + 5), -1.0, 1.0), &[n, n + 5]);
    let at = big
        .slice([Slice::from(0..n), Slice::from(3..3 + n)])
        .expect("slice")
        .t();
    let ah: Vec<f64> = (0..n * n)
        .map(|t| bh[(t % n) * (n + 5) + 3 + t / n])
        .collect();
    for k in [1usize, 5, 70] {
        let (b, bhv) = upload::<T>(dev(), &rng.vec(n * k, -1.0, 1.0), &[n, k]);
        let x = host(&linalg::solve(&at, &b).expect("solve"));
        let e = backward_error(&ah, &x, &bhv, n, k);
        assert!(e <= bound::<T>(n), "solve k={k}: {e:e}");
    }
    let xi = host(&linalg::inv(&at).expect("inv"));
    let e = backward_error(&ah, &xi, &identity(n), n, n);
    assert!(e <= 4.0 * bound::<T>(n), "inv: {e:e}");
    // Matrix 1 with a zero column 40 (an exact zero pivot at step 40, inside the second
    // sub-panel of its block), matrix 2 zero from column 90 on.
    let m = 100;
    let mut v = rng.vec(3 * m * m, -1.0, 1.0);
    for r in 0..m {
        v[m * m + r * m + 40] = 0.0;
        for c in 90..m {
            v[2 * m * m + r * m + c] = 0.0;
        }
    }
    let (a, _) = upload::<T>(dev(), &v, &[3, m, m]);
    let (b, _) = upload::<T>(dev(), &rng.vec(m, -1.0, 1.0), &[m]);
    match linalg::solve(&a, &b) {
        Err(gpuarray::Error::Singular { index: 1, .. }) => {}
        other => panic!("expected Singular at 1, got {:?}", other.map(|_| ())),
    }
    // (det itself overflows f32 at this order.)
    let (sign, _) = linalg::slogdet(&a).expect("slogdet");
    let sign = host(&sign);
    assert!(sign[0] != 0.0);
    assert_eq!((sign[1], sign[2]), (0.0, 0.0));
    let f = linalg::lu_factor(&a).expect("lu_factor");
    let u = host(f.lu());
    assert_eq!(u[m * m + 40 * m + 40], 0.0);
}
