//! svd and svdvals of stacks of small matrices (max(M, N) <= 32: src/linalg/spectral/
//! svd_small.rs, eig_small's kernel with W = A, a lane per column of the longer side),
//! through both exchanges: subgroup shuffles (the shared device, where its smallest
//! subgroup holds min(M, N)'s lanes: min(M, N) <= 8 on lavapipe) and workgroup memory (a
//! device with `Tuning::subgroups` off, and the shared device past that). Checked as
//! main.rs's `check_svd` does (reconstruction ||A - U S Vh|| / ||A|| and the values within
//! 20 max(M, N, 4) eps, orthogonality of U and Vh within 40 max(M, N, 4) eps, descending,
//! against f64 Jacobi), full and reduced, with and without vectors, on: every square size
//! with a prime or a power of two to 32, tall and wide shapes, stacks whose matrices share
//! subgroups and workgroups; rank-deficient, zero, identity and graded matrices mixed into
//! one stack (the zero and deficient ones' U completed); matrices scaled by 2^100 and
//! 2^-100 (f32) or 2^600 and 2^-600 (f64), where |A_k|^2 would overflow or underflow
//! unscaled; NaN or inf in one matrix of a stack (its values and vectors NaN, the others'
//! unaffected); transposed and strided views.

use super::common::{self, dev, host, upload, Rng};
use super::eig_small::wg_dev;
use super::{check_svd, check_svd_scaled, check_values, reference as r, tol};
use gpuarray::linalg::{svd, svdvals};
use gpuarray::{Array, Device, Float, Slice};

/// The devices to run m x n matrices on: the shared one, and the one without subgroups
/// where the shared one would shuffle (and where it accepts `T`).
fn devices<T: Float>(m: usize, n: usize) -> Vec<&'static Device> {
    let q = m.min(n);
    let lanes = (q + (q & 1)).next_power_of_two() as u32;
    let mut v = vec![dev()];
    if dev().info().subgroup_min_size >= lanes && common::supported::<T>(wg_dev()) {
        v.push(wg_dev());
    }
    v
}

/// svd (full and reduced), svdvals and svd without vectors of the stack `a` (`count`
/// matrices m x n, `x` its values), all checked.
fn check_all<T: Float>(a: &Array<T>, x: &[f64], m: usize, n: usize) {
    for full in [false, true] {
        let out = svd(a, full, true).unwrap();
        check_svd::<T>(x, m, n, full, &out);
    }
    let s = host(&svdvals(a).unwrap());
    let k = m.min(n);
    for b in 0..s.len() / k.max(1) {
        check_values::<T>(
            &x[b * m * n..(b + 1) * m * n],
            m,
            n,
            &s[b * k..(b + 1) * k],
            b,
        );
    }
    let no_uv = svd(a, false, false).unwrap();
    assert!(no_uv.u.is_none() && no_uv.vh.is_none());
    let scale = r::fro(x);
    common::assert_close(&host(&no_uv.s), &s, tol::<T>(m.max(n)) * scale, 0.0);
}

/// Square sizes 1 to 32 (primes, powers of two, their neighbours), tall and wide shapes
/// (a column, a row, 32 x 8 and 8 x 32, odd ones), in stacks of 1 and 6 (a partly filled
/// workgroup) and 37 matrices (several a subgroup and workgroup).
pub fn shapes_and_stacks<T: Float>() {
    let mut rng = Rng::new(41);
    let square = [1, 2, 3, 4, 5, 7, 8, 9, 11, 13, 16, 17, 23, 29, 31, 32];
    let rect = [
        (2, 1),
        (1, 2),
        (32, 1),
        (1, 32),
        (5, 3),
        (3, 5),
        (17, 5),
        (5, 17),
        (32, 8),
        (8, 32),
        (31, 30),
        (13, 29),
    ];
    let shapes = square.iter().map(|&n| (n, n)).chain(rect);
    for (m, n) in shapes {
        let big = matches!((m, n), (3, 3) | (8, 8) | (17, 5) | (32, 32) | (13, 29));
        let counts: &[usize] = if big { &[1, 37] } else { &[6] };
        for d in devices::<T>(m, n) {
            for &count in counts {
                let (a, x) = upload::<T>(d, &rng.vec(count * m * n, -1.0, 1.0), &[count, m, n]);
                check_all::<T>(&a, &x, m, n);
                assert_eq!(svdvals(&a).unwrap().shape(), &[count, m.min(n)]);
            }
        }
    }
}

/// One stack per shape mixing zero, identity-like, rank 1 and rank 3, and graded matrices
/// (singular values from 1 to 1e-12 in f64, 1e-5 in f32), each twice; a stack of 2 x 3
/// matrices of each shape.
pub fn special_matrices<T: Float>() {
    let mut rng = Rng::new(42);
    let floor: f64 = if T::DTYPE == gpuarray::DType::F64 {
        1e-12
    } else {
        1e-5
    };
    for (m, n) in [
        (6, 6),
        (9, 4),
        (4, 9),
        (19, 19),
        (32, 20),
        (20, 32),
        (32, 32),
    ] {
        let k = m.min(n);
        for d in devices::<T>(m, n) {
            let mut data = Vec::new();
            for b in 0..10 {
                let mat: Vec<f64> = match b % 5 {
                    0 => vec![0.0; m * n],
                    1 => (0..m * n)
                        .map(|e| f64::from(u8::from(e / n == e % n)))
                        .collect(),
                    2 | 3 => {
                        let rank = if b % 5 == 2 { 1 } else { 3.min(k) };
                        let u = rng.vec(m * rank, -1.0, 1.0);
                        let v = rng.vec(rank * n, -1.0, 1.0);
                        r::matmul(&u, &v, m, rank, n)
                    }
                    _ => {
                        let s: Vec<f64> = (0..k)
                            .map(|j| floor.powf(j as f64 / (k.max(2) - 1) as f64))
                            .collect();
                        r::with_singular_values(&mut rng, m, n, &s)
                    }
                };
                data.extend(mat);
            }
            let (a, x) = upload::<T>(d, &data, &[10, m, n]);
            check_all::<T>(&a, &x, m, n);
            // The identity-like matrix's values are all 1; the zero matrix's all 0.
            let s = host(&svdvals(&a).unwrap());
            assert_eq!(&s[..k], &vec![0.0; k][..]);
            common::assert_close(&s[k..2 * k], &vec![1.0; k], tol::<T>(m.max(n)), 0.0);
        }
        let (a, x) = upload::<T>(dev(), &rng.vec(6 * m * n, -1.0, 1.0), &[2, 3, m, n]);
        let out = svd(&a, false, true).unwrap();
        assert_eq!(out.s.shape(), &[2, 3, k]);
        assert_eq!(out.u.as_ref().unwrap().shape(), &[2, 3, m, k]);
        check_svd::<T>(&x, m, n, false, &out);
    }
}

/// Random matrices times 2^100 and 2^-100 (f32) or 2^600 and 2^-600 (f64), where the
/// squared column norms would overflow or lose every small entry unscaled, in one stack
/// with unscaled ones: the values (divided back) against the unscaled reference, the
/// vectors as any matrix's, all finite.
pub fn scaled<T: Float>() {
    let mut rng = Rng::new(43);
    let e: i32 = if T::DTYPE == gpuarray::DType::F64 {
        600
    } else {
        100
    };
    for (m, n) in [(4, 4), (7, 3), (3, 7), (32, 32), (32, 9)] {
        for f in [2f64.powi(e), 2f64.powi(-e)] {
            for d in devices::<T>(m, n) {
                let count = 5;
                let x = rng.vec(count * m * n, -1.0, 1.0);
                // Matrix 2 stays unscaled (its neighbours scaled, in one subgroup).
                let scaled: Vec<f64> = x
                    .iter()
                    .enumerate()
                    .map(|(i, v)| if i / (m * n) == 2 { *v } else { v * f })
                    .collect();
                let (a, back) = upload::<T>(d, &scaled, &[count, m, n]);
                let x: Vec<f64> = back
                    .iter()
                    .enumerate()
                    .map(|(i, v)| if i / (m * n) == 2 { *v } else { v / f })
                    .collect();
                for full in [false, true] {
                    let out = svd(&a, full, true).unwrap();
                    for b in 0..count {
                        let sl = |t: &Array<T>| t.slice([Slice::from(b..b + 1)]).unwrap();
                        let one = gpuarray::linalg::Svd {
                            u: out.u.as_ref().map(sl),
                            s: sl(&out.s),
                            vh: out.vh.as_ref().map(sl),
                        };
                        let xb = &x[b * m * n..(b + 1) * m * n];
                        let scale = if b == 2 { 1.0 } else { f };
                        check_svd_scaled::<T>(xb, m, n, full, &one, scale);
                    }
                }
                let s = host(&svdvals(&a).unwrap());
                assert!(s.iter().all(|v| v.is_finite()), "{s:?}");
            }
        }
    }
}

/// NaN or inf in one matrix of a stack: its values and vectors NaN (svd and svdvals), the
/// others' checked apart (they share its subgroup and workgroup).
pub fn special_values_in_a_stack<T: Float>() {
    let mut rng = Rng::new(44);
    for (m, n) in [(3, 3), (8, 5), (5, 17), (17, 17)] {
        let k = m.min(n);
        for d in devices::<T>(m, n) {
            for bad in [f64::NAN, f64::INFINITY, f64::NEG_INFINITY] {
                let count = 9;
                let mut data = rng.vec(count * m * n, -1.0, 1.0);
                data[4 * m * n + (m - 1) * n + n / 2] = bad;
                let (a, x) = upload::<T>(d, &data, &[count, m, n]);
                let vals = host(&svdvals(&a).unwrap());
                assert!(vals[4 * k..5 * k].iter().all(|v| v.is_nan()), "{vals:?}");
                for full in [false, true] {
                    let out = svd(&a, full, true).unwrap();
                    let s = host(&out.s);
                    assert!(s[4 * k..5 * k].iter().all(|v| v.is_nan()));
                    for t in [out.u.as_ref().unwrap(), out.vh.as_ref().unwrap()] {
                        let per = t.len() / count;
                        let h = host(t);
                        assert!(h[4 * per..5 * per].iter().all(|v| v.is_nan()));
                    }
                    for b in (0..count).filter(|&b| b != 4) {
                        let sl = |t: &Array<T>| t.slice([Slice::from(b..b + 1)]).unwrap();
                        let one = gpuarray::linalg::Svd {
                            u: out.u.as_ref().map(sl),
                            s: sl(&out.s),
                            vh: out.vh.as_ref().map(sl),
                        };
                        check_svd::<T>(&x[b * m * n..(b + 1) * m * n], m, n, full, &one);
                    }
                }
            }
        }
    }
}

/// Transposed (a tall matrix's transpose is wide) and strided inputs.
pub fn views<T: Float>() {
    let mut rng = Rng::new(45);
    let d = dev();
    for (m, n) in [(12, 7), (32, 5), (9, 9)] {
        let (a, x) = upload::<T>(d, &rng.vec(3 * m * n, -1.0, 1.0), &[3, m, n]);
        let t = a.swapaxes(-1, -2).unwrap();
        let mut xt = Vec::new();
        for b in 0..3 {
            xt.extend(r::transpose(&x[b * m * n..(b + 1) * m * n], m, n));
        }
        check_all::<T>(&t, &xt, n, m);
    }
    // Every other row and every third column from 1 of 4 x 30 x 31: 4 x 15 x 10.
    let (big, xb) = upload::<T>(d, &rng.vec(4 * 30 * 31, -1.0, 1.0), &[4, 30, 31]);
    let s = big
        .slice([
            Slice::from(..),
            Slice::from(..).step(2),
            Slice::from(1..).step(3),
        ])
        .unwrap();
    let hs = common::Host::new(&[4, 30, 31], xb).slice(&[(0, 4, 1), (0, 30, 2), (1, 31, 3)]);
    check_all::<T>(&s, &hs.data, 15, 10);
}
