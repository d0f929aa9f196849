//! The small-matrix path of gpuarray::linalg's `solve` and `inv` (orders up to 32 with up to
//! 32 right-hand sides, one dispatch: src/linalg/factor_small.rs) against f64 CPU
//! references: every order and right-hand-side class of the register kernel, stacks whose
//! length is not a multiple of the matrices a workgroup holds, pivoting (exact answers for
//! scaled permutations), ties, singular matrices named in a stack, NaN and inf, views, and a
//! stack of thousands. The last test runs this binary again with the measuring switch
//! `GPUARRAY_SMALL_SOLVE` at 0 and 1, so that every form of the kernels passes the same
//! tests.

#[macro_use]
#[path = "common/mod.rs"]
mod common;
#[path = "linalg_factor/reference.rs"]
#[allow(dead_code)]
mod reference;

use gpuarray::linalg;
use gpuarray::{DType, Error, Float};

use common::{dev, host, upload, Rng};
use reference::{backward_error, identity};

/// Machine epsilon of `T`.
fn eps<T: Float>() -> f64 {
    if T::DTYPE == DType::F32 {
        f32::EPSILON as f64
    } else {
        f64::EPSILON
    }
}

/// The bound of a normwise backward error for order n: `8 n eps` (LU with partial
/// pivoting's error on matrices without large element growth).
fn bound<T: Float>(n: usize) -> f64 {
    8.0 * (n.max(1) as f64) * eps::<T>()
}

/// Checks each system of a stack: `a` [count, n, n], `b` and `x` [count, n, k].
fn check_stack(what: &str, a: &[f64], b: &[f64], x: &[f64], (n, k): (usize, usize), bnd: f64) {
    let count = a.len() / (n * n).max(1);
    for i in 0..count {
        let e = backward_error(
            &a[i * n * n..][..n * n],
            &x[i * n * k..][..n * k],
            &b[i * n * k..][..n * k],
            n,
            k,
        );
        assert!(
            e <= bnd,
            "{what} n={n} k={k} matrix {i}: backward error {e:e}"
        );
    }
}

/// Every order class (8, 16, 32: orders at, below and past each edge) and right-hand-side
/// class (vec4s of 1, 2, 4, 8), in stacks of 37 (not a multiple of 4 or 2 matrices a
/// workgroup).
fn orders_and_rhs<T: Float>() {
    let mut rng = Rng::new(31);
    let count = 37;
    for n in [1usize, 2, 3, 4, 5, 7, 8, 9, 13, 16, 17, 23, 31, 32] {
        for k in [1usize, 3, 4, 5, 8, 13, 32] {
            let (a, ah) = upload::<T>(dev(), &rng.vec(count * n * n, -1.0, 1.0), &[count, n, n]);
            let (b, bh) = upload::<T>(dev(), &rng.vec(count * n * k, -1.0, 1.0), &[count, n, k]);
            let x = linalg::solve(&a, &b).expect("solve");
            assert_eq!(x.shape(), &[count, n, k]);
            check_stack("solve", &ah, &bh, &host(&x), (n, k), bound::<T>(n));
        }
    }
    // One matrix, one vector.
    for n in [1usize, 6, 32] {
        let (a, ah) = upload::<T>(dev(), &rng.vec(n * n, -1.0, 1.0), &[n, n]);
        let (b, bh) = upload::<T>(dev(), &rng.vec(n, -1.0, 1.0), &[n]);
        let x = host(&linalg::solve(&a, &b).expect("solve"));
        check_stack("vector", &ah, &bh, &x, (n, 1), bound::<T>(n));
    }
}

/// Scaled permutations (every pivot found by a swap, powers of two): the answer is exact
/// in any dtype. Also a tiny diagonal under large entries, which needs the pivoting.
fn pivoting<T: Float>() {
    let mut rng = Rng::new(32);
    for n in [2usize, 5, 8, 11, 16, 29, 32] {
        let count = 9;
        let mut a = vec![0.0; count * n * n];
        let mut b = vec![0.0; count * n];
        let mut want = vec![0.0; count * n];
        for m in 0..count {
            // A random permutation (Fisher-Yates) and scales 2^-3 .. 2^3.
            let mut p: Vec<usize> = (0..n).collect();
            for i in (1..n).rev() {
                let j = (rng.next_u64() % (i as u64 + 1)) as usize;
                p.swap(i, j);
            }
            for i in 0..n {
                let s = 2f64.powi((rng.next_u64() % 7) as i32 - 3);
                let s = if rng.next_u64().is_multiple_of(2) {
                    s
                } else {
                    -s
                };
                // Row i has its one entry s in column p[i]: x[p[i]] = b[i] / s.
                a[m * n * n + i * n + p[i]] = s;
                let bi = ((rng.next_u64() % 64) as f64 - 32.0) / 4.0;
                b[m * n + i] = bi;
                want[m * n + p[i]] = bi / s;
            }
        }
        let (ag, _) = upload::<T>(dev(), &a, &[count, n, n]);
        let (bg, _) = upload::<T>(dev(), &b, &[count, n, 1]);
        let x = host(&linalg::solve(&ag, &bg).expect("solve"));
        assert_eq!(x, want, "scaled permutations n={n}");
        // Large entries below a tiny diagonal: without row swaps the error would be huge.
        let mut v = rng.vec(count * n * n, -1.0, 1.0);
        for m in 0..count {
            for i in 0..n {
                v[m * n * n + i * n + i] = 1e-30;
            }
        }
        let (ag, ah) = upload::<T>(dev(), &v, &[count, n, n]);
        let (bg, bh) = upload::<T>(dev(), &rng.vec(count * n * 2, -1.0, 1.0), &[count, n, 2]);
        let x = host(&linalg::solve(&ag, &bg).expect("solve"));
        check_stack("tiny diagonal", &ah, &bh, &x, (n, 2), bound::<T>(n));
    }
}

/// Entries of one magnitude (random signs): every pivot search meets ties, which the
/// first candidate wins (LAPACK's idamax); the solutions stay backward stable.
fn ties<T: Float>() {
    let mut rng = Rng::new(33);
    for n in [3usize, 8, 15, 32] {
        let count = 11;
        let v: Vec<f64> = (0..count * n * n)
            .map(|_| {
                if rng.next_u64().is_multiple_of(2) {
                    1.0
                } else {
                    -1.0
                }
            })
            .collect();
        let (a, ah) = upload::<T>(dev(), &v, &[count, n, n]);
        let (b, bh) = upload::<T>(dev(), &rng.vec(count * n * 3, -1.0, 1.0), &[count, n, 3]);
        match linalg::solve(&a, &b) {
            Ok(x) => check_stack("ties", &ah, &bh, &host(&x), (n, 3), bound::<T>(n) * 4.0),
            // A random sign matrix may be singular (exact zero pivots in small orders).
            Err(Error::Singular { .. }) => assert!(n <= 8, "n={n}: singular"),
            Err(e) => panic!("{e:?}"),
        }
    }
}

/// Singular matrices in stacks spanning many workgroups: a zero column, a zero row and a
/// rank-deficient integer matrix (an exact zero pivot after one elimination step); the
/// error names the first.
fn singular_named<T: Float>() {
    let mut rng = Rng::new(34);
    let count = 41;
    for n in [2usize, 3, 8, 9, 17, 32] {
        for (first, second) in [(6usize, 30usize), (40, 40), (0, 39)] {
            let mut v = rng.vec(count * n * n, -1.0, 1.0);
            for r in 0..n {
                v[first * n * n + r * n + n / 2] = 0.0;
                v[second * n * n + (n - 1) * n + r] = 0.0;
            }
            let (a, _) = upload::<T>(dev(), &v, &[count, n, n]);
            let (b, _) = upload::<T>(dev(), &rng.vec(count * n, -1.0, 1.0), &[count, n, 1]);
            match linalg::solve(&a, &b) {
                Err(Error::Singular { index, op }) => {
                    assert_eq!((index, op), (first, "solve"), "n={n}")
                }
                other => panic!("n={n}: expected Singular, got {:?}", other.map(|_| ())),
            }
            match linalg::inv(&a) {
                Err(Error::Singular { index, op }) => {
                    assert_eq!((index, op), (first, "inv"), "n={n}")
                }
                other => panic!("n={n}: expected Singular, got {:?}", other.map(|_| ())),
            }
        }
        // [[1, 2], [2, 4]] in the corner of an identity: the second pivot is exactly 0.
        let mut v = identity(n);
        if n >= 2 {
            v[0] = 1.0;
            v[1] = 2.0;
            v[n] = 2.0;
            v[n + 1] = 4.0;
        } else {
            v[0] = 0.0;
        }
        let (a, _) = upload::<T>(dev(), &v, &[n, n]);
        let (b, _) = upload::<T>(dev(), &rng.vec(n, -1.0, 1.0), &[n]);
        assert!(
            matches!(linalg::solve(&a, &b), Err(Error::Singular { index: 0, .. })),
            "n={n}: rank-deficient"
        );
    }
    // The device is still usable, and a good stack solves.
    let n = 4;
    let (a, ah) = upload::<T>(dev(), &rng.vec(3 * n * n, -1.0, 1.0), &[3, n, n]);
    let (b, bh) = upload::<T>(dev(), &rng.vec(3 * n, -1.0, 1.0), &[3, n, 1]);
    let x = host(&linalg::solve(&a, &b).expect("solve"));
    check_stack("after", &ah, &bh, &x, (n, 1), bound::<T>(n));
}

/// NaN or inf in one matrix of a stack: no hang, that matrix's solution not finite where
/// a NaN entered it (an inf may be divided away), the others' as good as ever.
fn special_values<T: Float>() {
    let mut rng = Rng::new(35);
    let count = 9;
    // Orders in each class (on lavapipe, whose subgroups have 8 invocations, order 7 takes
    // the subgroup pivot search, 12 and 32 the workgroup-memory one).
    for n in [7usize, 12, 32] {
        special_values_n::<T>(&mut rng, count, n);
    }
}

fn special_values_n<T: Float>(rng: &mut Rng, count: usize, n: usize) {
    for bad in [f64::NAN, f64::INFINITY, f64::NEG_INFINITY] {
        for at in [0usize, 5 * n + 5, n * n - 1] {
            let mut v = rng.vec(count * n * n, -1.0, 1.0);
            v[4 * n * n + at] = bad;
            let (a, ah) = upload::<T>(dev(), &v, &[count, n, n]);
            let (b, bh) = upload::<T>(dev(), &rng.vec(count * n, -1.0, 1.0), &[count, n, 1]);
            let x = match linalg::solve(&a, &b) {
                Ok(x) => host(&x),
                Err(Error::Singular { index: 4, .. }) => continue,
                Err(e) => panic!("n={n}: {bad} at {at}: {e:?}"),
            };
            if bad.is_nan() {
                assert!(
                    x[4 * n..5 * n].iter().any(|v| v.is_nan()),
                    "n={n}: {bad} at {at}"
                );
            }
            for i in (0..count).filter(|&i| i != 4) {
                let e = backward_error(
                    &ah[i * n * n..][..n * n],
                    &x[i * n..][..n],
                    &bh[i * n..][..n],
                    n,
                    1,
                );
                assert!(
                    e <= bound::<T>(n),
                    "n={n}: {bad} at {at}, matrix {i}: {e:e}"
                );
            }
        }
    }
}

/// inv in every order class: `A X = I` backward stable.
fn inv_classes<T: Float>() {
    let mut rng = Rng::new(36);
    for n in [1usize, 4, 8, 9, 16, 20, 32] {
        let count = 5;
        let (a, ah) = upload::<T>(dev(), &rng.vec(count * n * n, -1.0, 1.0), &[count, n, n]);
        let x = host(&linalg::inv(&a).expect("inv"));
        let eye: Vec<f64> = (0..count).flat_map(|_| identity(n)).collect();
        check_stack("inv", &ah, &eye, &x, (n, n), bound::<T>(n));
    }
}

/// Transposed and strided stacks (copied to the contiguous work layout first).
fn views<T: Float>() {
    let mut rng = Rng::new(37);
    let (count, n) = (6, 19);
    let (a, ah) = upload::<T>(dev(), &rng.vec(count * n * n, -1.0, 1.0), &[count, n, n]);
    let at = a.swapaxes(-1, -2).expect("swapaxes");
    let ath: Vec<f64> = (0..count * n * n)
        .map(|t| {
            let (m, i, j) = (t / (n * n), t / n % n, t % n);
            ah[m * n * n + j * n + i]
        })
        .collect();
    let (b, bh) = upload::<T>(dev(), &rng.vec(count * n * 2, -1.0, 1.0), &[count, n, 2]);
    let x = host(&linalg::solve(&at, &b).expect("solve"));
    check_stack("transposed", &ath, &bh, &x, (n, 2), bound::<T>(n));
    // Every other matrix of the stack, and b's columns reversed by a negative stride.
    let every = a
        .slice([gpuarray::Slice::from(0..count).step(2)])
        .expect("slice");
    let eh: Vec<f64> = (0..count)
        .step_by(2)
        .flat_map(|m| ah[m * n * n..][..n * n].to_vec())
        .collect();
    let bv = b
        .slice([gpuarray::Slice::from(0..count).step(2)])
        .expect("slice")
        .flip(-1)
        .expect("flip");
    let bvh: Vec<f64> = (0..count)
        .step_by(2)
        .flat_map(|m| (0..n * 2).map(move |t| (m, t)))
        .map(|(m, t)| bh[m * n * 2 + (t / 2) * 2 + (1 - t % 2)])
        .collect();
    let x = host(&linalg::solve(&every, &bv).expect("solve"));
    check_stack("strided", &eh, &bvh, &x, (n, 2), bound::<T>(n));
}

/// The sweep's shape: thousands of systems of order 32 with one right-hand side, and of
/// order 8.
fn many<T: Float>() {
    let mut rng = Rng::new(38);
    for (count, n) in [(3000usize, 32usize), (5001, 8)] {
        let mut v = rng.vec(count * n * n, -1.0, 1.0);
        for m in 0..count {
            for i in 0..n {
                v[m * n * n + i * n + i] += n as f64;
            }
        }
        let (a, ah) = upload::<T>(dev(), &v, &[count, n, n]);
        let (b, bh) = upload::<T>(dev(), &rng.vec(count * n, -1.0, 1.0), &[count, n, 1]);
        let x = host(&linalg::solve(&a, &b).expect("solve"));
        check_stack("many", &ah, &bh, &x, (n, 1), bound::<T>(n));
    }
}

per_dtype! {
    [f32_: f32, f64_: f64] => {
        orders => orders_and_rhs::<T>();
        pivots => pivoting::<T>();
        equal_magnitudes => ties::<T>();
        singular => singular_named::<T>();
        nan_inf => special_values::<T>();
        inverse => inv_classes::<T>();
        strided => views::<T>();
        thousands => many::<T>();
    }
}

/// This binary's other tests again, in child processes whose measuring switch selects the
/// first kernel (`GPUARRAY_SMALL_SOLVE=0`) and the register kernel with its pivot search in
/// workgroup memory (`=1`; the default searches by subgroup shuffles where a subgroup holds
/// whole matrices: on lavapipe, of 8 invocations, order 8 and below): every form stays
/// correct.
#[test]
fn other_kernels_pass_too() {
    if std::env::var_os("GPUARRAY_SMALL_SOLVE").is_some() {
        // Already a child (or the caller chose a kernel): nothing more to run.
        return;
    }
    let exe = std::env::current_exe().expect("the test binary");
    // The workgroup-memory search differs from the default only in the pivot search: the
    // tests of pivots, orders and singular matrices suffice for it (CI's time).
    let lighter: &[&str] = &["thousands", "strided", "nan_inf", "inverse", "equal"];
    for (mode, skip) in [("0", &[][..]), ("1", lighter)] {
        let mut args = vec!["--skip", "other_kernels_pass_too"];
        for s in skip {
            args.extend(["--skip", s]);
        }
        let out = std::process::Command::new(&exe)
            .args(&args)
            .env("GPUARRAY_SMALL_SOLVE", mode)
            .output()
            .expect("run the test binary again");
        let text = String::from_utf8_lossy(&out.stdout);
        assert!(
            out.status.success() && text.contains("test result: ok"),
            "GPUARRAY_SMALL_SOLVE={mode}:\n{text}\n{}",
            String::from_utf8_lossy(&out.stderr)
        );
    }
}
