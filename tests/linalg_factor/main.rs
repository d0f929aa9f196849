//! gpuarray::linalg's factorizations and solvers (LU, Cholesky, triangular solves, solve,
//! inv, det, slogdet, matrix_power) against f64 CPU references: backward errors and
//! reconstructions within a small multiple of n * eps, on random, ill-conditioned and
//! special matrices, stacks, views and awkward sizes. Edge cases and bad input in
//! `edges.rs`.

#[macro_use]
#[path = "../common/mod.rs"]
mod common;
mod edges;
mod panel;
mod reference;

use gpuarray::linalg::{self, Trans, Triangle};
use gpuarray::{DType, Float, Slice};

use common::{dev, host, upload, Rng};
use reference::*;

/// Machine epsilon of `T`.
fn eps<T: Float>() -> f64 {
    if T::DTYPE == DType::F32 {
        f32::EPSILON as f64
    } else {
        f64::EPSILON
    }
}

/// The bound of a normwise backward error or reconstruction for order n: `c * n * eps`
/// (c = 8: blocked orders of summation, matmul's accumulations).
fn bound<T: Float>(n: usize) -> f64 {
    8.0 * (n.max(1) as f64) * eps::<T>()
}

/// Sizes past one panel (64) and primes.
const SIZES: &[usize] = &[1, 2, 7, 33, 64, 65, 130];

fn solve_random<T: Float>() {
    let mut rng = Rng::new(1);
    for &n in SIZES {
        // 40 right-hand sides: past the small kernel's 32.
        for k in [1usize, 3, 40] {
            let (a, ah) = upload::<T>(dev(), &rng.vec(n * n, -1.0, 1.0), &[n, n]);
            let (b, bh) = upload::<T>(dev(), &rng.vec(n * k, -1.0, 1.0), &[n, k]);
            let x = host(&linalg::solve(&a, &b).expect("solve"));
            let e = backward_error(&ah, &x, &bh, n, k);
            assert!(
                e <= bound::<T>(n),
                "solve n={n} k={k}: backward error {e:e}"
            );
        }
    }
    // Past four panels, one right-hand side.
    let n = 257;
    let (a, ah) = upload::<T>(dev(), &rng.vec(n * n, -1.0, 1.0), &[n, n]);
    let (b, bh) = upload::<T>(dev(), &rng.vec(n, -1.0, 1.0), &[n]);
    let x = host(&linalg::solve(&a, &b).expect("solve"));
    let e = backward_error(&ah, &x, &bh, n, 1);
    assert!(e <= bound::<T>(n), "solve n={n}: backward error {e:e}");
}

fn solve_vector_and_stack<T: Float>() {
    let mut rng = Rng::new(2);
    let (n, batch) = (5, [3usize, 2]);
    let count = 6;
    let (a, ah) = upload::<T>(dev(), &rng.vec(count * n * n, -1.0, 1.0), &[3, 2, n, n]);
    // One vector for every matrix of the stack.
    let (b, bh) = upload::<T>(dev(), &rng.vec(n, -1.0, 1.0), &[n]);
    let x = linalg::solve(&a, &b).expect("solve");
    assert_eq!(x.shape(), &[batch[0], batch[1], n]);
    let xh = host(&x);
    for i in 0..count {
        let e = backward_error(&ah[i * n * n..][..n * n], &xh[i * n..][..n], &bh, n, 1);
        assert!(e <= bound::<T>(n), "matrix {i}: {e:e}");
    }
    // Matrices broadcast against the stack: b [2, n, 2] with a [3, 2, n, n].
    let (b, bh) = upload::<T>(dev(), &rng.vec(2 * n * 2, -1.0, 1.0), &[2, n, 2]);
    let x = linalg::solve(&a, &b).expect("solve");
    assert_eq!(x.shape(), &[3, 2, n, 2]);
    let xh = host(&x);
    for i in 0..count {
        let bi = &bh[(i % 2) * n * 2..][..n * 2];
        let e = backward_error(
            &ah[i * n * n..][..n * n],
            &xh[i * n * 2..][..n * 2],
            bi,
            n,
            2,
        );
        assert!(e <= bound::<T>(n), "matrix {i}: {e:e}");
    }
}

/// A stack of 10,000 tiny matrices (one workgroup each).
fn solve_many_tiny<T: Float>() {
    let mut rng = Rng::new(3);
    let (count, n) = (10_000, 4);
    let (a, ah) = upload::<T>(dev(), &rng.vec(count * n * n, -1.0, 1.0), &[count, n, n]);
    let (b, bh) = upload::<T>(dev(), &rng.vec(count * n, -1.0, 1.0), &[count, n, 1]);
    let x = host(&linalg::solve(&a, &b).expect("solve"));
    for i in 0..count {
        let e = backward_error(
            &ah[i * n * n..][..n * n],
            &x[i * n..][..n],
            &bh[i * n..][..n],
            n,
            1,
        );
        assert!(e <= bound::<T>(n) * 4.0, "matrix {i}: {e:e}");
    }
}

/// Transposed, strided and offset views as inputs.
fn solve_views<T: Float>() {
    let mut rng = Rng::new(4);
    let n = 9;
    // A transposed view.
    let (a, ah) = upload::<T>(dev(), &rng.vec(n * n, -1.0, 1.0), &[n, n]);
    let at = a.t();
    let ath = transpose(&ah, n, n);
    let (b, bh) = upload::<T>(dev(), &rng.vec(n, -1.0, 1.0), &[n]);
    let x = host(&linalg::solve(&at, &b).expect("solve"));
    assert!(backward_error(&ath, &x, &bh, n, 1) <= bound::<T>(n));
    // A strided, offset view: every other row and column of a 2n x 2n matrix, from (1, 1).
    let big_n = 2 * n + 1;
    let (big, bigh) = upload::<T>(dev(), &rng.vec(big_n * big_n, -1.0, 1.0), &[big_n, big_n]);
    let v = big
        .slice([Slice::from(1..big_n).step(2), Slice::from(1..big_n).step(2)])
        .expect("slice");
    assert_eq!(v.shape(), &[n, n]);
    let vh: Vec<f64> = (0..n * n)
        .map(|t| bigh[(1 + 2 * (t / n)) * big_n + 1 + 2 * (t % n)])
        .collect();
    let x = host(&linalg::solve(&v, &b).expect("solve"));
    assert!(backward_error(&vh, &x, &bh, n, 1) <= bound::<T>(n));
    // b a strided view (a column of a matrix).
    let (bm, bmh) = upload::<T>(dev(), &rng.vec(n * 3, -1.0, 1.0), &[n, 3]);
    let col = bm
        .slice([Slice::from(0..n), Slice::from(1..2)])
        .expect("slice");
    let colh: Vec<f64> = (0..n).map(|i| bmh[i * 3 + 1]).collect();
    let x = host(&linalg::solve(&a, &col).expect("solve"));
    assert!(backward_error(&ah, &x, &colh, n, 1) <= bound::<T>(n));
}

fn inv_random<T: Float>() {
    let mut rng = Rng::new(5);
    for &n in SIZES {
        let (a, ah) = upload::<T>(dev(), &rng.vec(n * n, -1.0, 1.0), &[n, n]);
        let x = host(&linalg::inv(&a).expect("inv"));
        let e = backward_error(&ah, &x, &identity(n), n, n);
        assert!(e <= bound::<T>(n), "inv n={n}: {e:e}");
    }
}

fn lu_reconstructs<T: Float>() {
    let mut rng = Rng::new(6);
    for (m, n) in [
        (1, 1),
        (7, 7),
        (65, 65),
        (130, 130),
        (9, 4),
        (4, 9),
        (70, 66),
        (66, 70),
        // Panels of 256 and 1024 invocations.
        (300, 20),
        (2100, 5),
    ] {
        let (a, ah) = upload::<T>(dev(), &rng.vec(2 * m * n, -1.0, 1.0), &[2, m, n]);
        let (p, l, u) = linalg::lu(&a).expect("lu");
        let k = m.min(n);
        assert_eq!(p.shape(), &[2, m, m]);
        assert_eq!(l.shape(), &[2, m, k]);
        assert_eq!(u.shape(), &[2, k, n]);
        let (ph, lh, uh) = (host(&p), host(&l), host(&u));
        for i in 0..2 {
            let (pi, li, ui) = (
                &ph[i * m * m..][..m * m],
                &lh[i * m * k..][..m * k],
                &uh[i * k * n..][..k * n],
            );
            for r in 0..m {
                for c in 0..k {
                    let v = li[r * k + c];
                    assert!(if c > r {
                        v == 0.0
                    } else if c == r {
                        v == 1.0
                    } else {
                        v.abs() <= 1.0
                    });
                }
            }
            for r in 0..k {
                for c in 0..r.min(n) {
                    assert_eq!(ui[r * n + c], 0.0);
                }
            }
            let plu = matmul(&matmul(pi, li, m, m, k), ui, m, k, n);
            let e = rel_diff(&plu, &ah[i * m * n..][..m * n]);
            assert!(e <= bound::<T>(m.max(n)), "lu {m}x{n}: {e:e}");
        }
    }
}

fn lu_factor_solve<T: Float>() {
    let mut rng = Rng::new(7);
    for &n in &[3usize, 66] {
        let (a, ah) = upload::<T>(dev(), &rng.vec(3 * n * n, -1.0, 1.0), &[3, n, n]);
        let f = linalg::lu_factor(&a).expect("lu_factor");
        assert_eq!(f.lu().shape(), &[3, n, n]);
        assert_eq!(f.piv().shape(), &[3, n]);
        let piv = f.piv().to_vec().expect("piv");
        assert!(piv
            .iter()
            .enumerate()
            .all(|(i, &p)| p as usize >= i % n && (p as usize) < n));
        let (b, bh) = upload::<T>(dev(), &rng.vec(3 * n * 2, -1.0, 1.0), &[3, n, 2]);
        for trans in [Trans::N, Trans::T] {
            let x = host(&linalg::lu_solve(&f, &b, trans).expect("lu_solve"));
            for i in 0..3 {
                let ai = &ah[i * n * n..][..n * n];
                let ai = if trans == Trans::T {
                    transpose(ai, n, n)
                } else {
                    ai.to_vec()
                };
                let e = backward_error(
                    &ai,
                    &x[i * n * 2..][..n * 2],
                    &bh[i * n * 2..][..n * 2],
                    n,
                    2,
                );
                assert!(e <= bound::<T>(n), "lu_solve {trans:?} n={n}: {e:e}");
            }
        }
    }
}

/// Views as inputs of the factorizations: transposed (lu, det) and strided (cholesky), and
/// a stack of 10,000 tiny matrices through the blocked path (lu_factor, det).
fn factor_views_and_stacks<T: Float>() {
    let mut rng = Rng::new(13);
    let n = 70;
    let (a, ah) = upload::<T>(dev(), &rng.vec(2 * n * n, -1.0, 1.0), &[2, n, n]);
    let at = a.transpose(&[0, 2, 1]).expect("transpose");
    let (p, l, u) = linalg::lu(&at).expect("lu");
    let (ph, lh, uh) = (host(&p), host(&l), host(&u));
    let dt = host(&linalg::det(&at).expect("det"));
    for i in 0..2 {
        let ati = transpose(&ah[i * n * n..][..n * n], n, n);
        let sq = n * n;
        let plu = matmul(
            &matmul(&ph[i * sq..][..sq], &lh[i * sq..][..sq], n, n, n),
            &uh[i * sq..][..sq],
            n,
            n,
            n,
        );
        let e = rel_diff(&plu, &ati);
        assert!(e <= bound::<T>(n), "lu of a transposed view: {e:e}");
        let (rs, rl) = slogdet_ref(&ati, n);
        let rd = rs * rl.exp();
        assert!(
            (dt[i] - rd).abs() <= 1e3 * bound::<T>(n) * rd.abs(),
            "det of a transposed view"
        );
    }
    // Cholesky of every other matrix of a stack of 4 (a strided, offset view).
    let s = spd(&mut rng, 4, 9);
    let (st, sh) = upload::<T>(dev(), &s, &[4, 9, 9]);
    let v = st.slice(Slice::from(1..4).step(2)).expect("slice");
    let c = host(&linalg::cholesky(&v, Triangle::Lower).expect("cholesky"));
    for (j, i) in [1usize, 3].into_iter().enumerate() {
        let ci = &c[j * 81..][..81];
        let e = rel_diff(
            &matmul(ci, &transpose(ci, 9, 9), 9, 9, 9),
            &sh[i * 81..][..81],
        );
        assert!(e <= bound::<T>(9), "cholesky of a strided view: {e:e}");
    }
    // 10,000 tiny matrices through the panels (one workgroup each).
    let (count, m) = (10_000, 3);
    let (a, ah) = upload::<T>(dev(), &rng.vec(count * m * m, -1.0, 1.0), &[count, m, m]);
    let d = host(&linalg::det(&a).expect("det"));
    let f = linalg::lu_factor(&a).expect("lu_factor");
    let (b, bh) = upload::<T>(dev(), &rng.vec(count * m, -1.0, 1.0), &[count, m, 1]);
    let x = host(&linalg::lu_solve(&f, &b, Trans::N).expect("lu_solve"));
    for i in 0..count {
        let ai = &ah[i * m * m..][..m * m];
        let (rs, rl) = slogdet_ref(ai, m);
        let rd = rs * rl.exp();
        assert!(
            (d[i] - rd).abs() <= 1e3 * bound::<T>(m) * rd.abs().max(1e-3),
            "det {i}: {} vs {rd}",
            d[i]
        );
        let e = backward_error(ai, &x[i * m..][..m], &bh[i * m..][..m], m, 1);
        assert!(e <= 4.0 * bound::<T>(m), "lu_solve {i}: {e:e}");
    }
}

fn det_matches<T: Float>() {
    let mut rng = Rng::new(8);
    for &n in &[1usize, 2, 7, 33, 65] {
        let (a, ah) = upload::<T>(dev(), &rng.vec(2 * n * n, -1.0, 1.0), &[2, n, n]);
        let d = host(&linalg::det(&a).expect("det"));
        let (s, l) = linalg::slogdet(&a).expect("slogdet");
        let (s, l) = (host(&s), host(&l));
        for i in 0..2 {
            let (rs, rl) = slogdet_ref(&ah[i * n * n..][..n * n], n);
            assert_eq!(s[i], rs, "sign n={n}");
            // log|det| to within the backward error's effect: n * eps * cond, cond modest.
            let tol = 1e3 * bound::<T>(n);
            assert!((l[i] - rl).abs() <= tol, "logdet n={n}: {} vs {rl}", l[i]);
            let rd = rs * rl.exp();
            assert!(
                (d[i] - rd).abs() <= tol * rd.abs().max(f64::MIN_POSITIVE),
                "det n={n}: {} vs {rd}",
                d[i]
            );
        }
    }
}

fn cholesky_reconstructs<T: Float>() {
    let mut rng = Rng::new(9);
    for &n in SIZES {
        let ah = spd(&mut rng, 2, n);
        let (a, ah) = upload::<T>(dev(), &ah, &[2, n, n]);
        let l = host(&linalg::cholesky(&a, Triangle::Lower).expect("cholesky"));
        let u = host(&linalg::cholesky(&a, Triangle::Upper).expect("cholesky"));
        for i in 0..2 {
            let li = &l[i * n * n..][..n * n];
            let ui = &u[i * n * n..][..n * n];
            assert_eq!(transpose(li, n, n), ui, "upper is lower's transpose");
            for r in 0..n {
                for c in r + 1..n {
                    assert_eq!(li[r * n + c], 0.0);
                }
            }
            let llt = matmul(li, &transpose(li, n, n), n, n, n);
            let e = rel_diff(&llt, &ah[i * n * n..][..n * n]);
            assert!(e <= bound::<T>(n), "cholesky n={n}: {e:e}");
        }
    }
}

/// The lower Cholesky factor of the n x n SPD matrix `a`, in f64 (unblocked).
fn cholesky_ref(a: &[f64], n: usize) -> Vec<f64> {
    let mut l = vec![0.0; n * n];
    for j in 0..n {
        let d = a[j * n + j] - (0..j).map(|q| l[j * n + q] * l[j * n + q]).sum::<f64>();
        l[j * n + j] = d.sqrt();
        for i in j + 1..n {
            let s = a[i * n + j] - (0..j).map(|q| l[i * n + q] * l[j * n + q]).sum::<f64>();
            l[i * n + j] = s / l[j * n + j];
        }
    }
    l
}

/// Sizes around the blocks of 64 (one block, its edges, two and more, a partial last
/// block of one column): the factor against an f64 reference (these matrices' condition
/// is at most ~5: the forward error is a small multiple of the backward one), its
/// reconstruction, its zero upper triangle, and the upper factor its transpose; in
/// stacks of two, the second matrix with its own values.
fn cholesky_blocks<T: Float>() {
    let mut rng = Rng::new(31);
    // 449: seven steps, three pairs of trailing updates and a last step alone.
    for n in [63, 64, 65, 127, 128, 129, 257, 449] {
        let count = if n > 200 { 1 } else { 2 };
        let ah = spd(&mut rng, count, n);
        let (a, ah) = upload::<T>(dev(), &ah, &[count, n, n]);
        let l = host(&linalg::cholesky(&a, Triangle::Lower).expect("cholesky"));
        let u = host(&linalg::cholesky(&a, Triangle::Upper).expect("cholesky"));
        for i in 0..count {
            let (li, ui) = (&l[i * n * n..][..n * n], &u[i * n * n..][..n * n]);
            let ai = &ah[i * n * n..][..n * n];
            assert_eq!(transpose(li, n, n), ui, "n={n}: upper is lower's transpose");
            assert!(
                (0..n * n).all(|t| t % n <= t / n || li[t] == 0.0),
                "n={n}: upper zero"
            );
            let e = rel_diff(li, &cholesky_ref(ai, n));
            assert!(e <= 4.0 * bound::<T>(n), "n={n} matrix {i}: factor {e:e}");
            let llt = matmul(li, &transpose(li, n, n), n, n, n);
            let e = rel_diff(&llt, ai);
            assert!(e <= bound::<T>(n), "n={n} matrix {i}: reconstruction {e:e}");
        }
    }
}

/// Ill-conditioned SPD matrices `D S D` (S as `spd`'s, D graded from 1 to 10^(-top / 2):
/// condition ~10^top, 12 in f64, 6 in f32) over three blocks: the reconstruction's
/// error stays within the bound whatever the condition; and a matrix that stops being
/// positive definite at a late pivot (column 120 of 129, in the second block; or the
/// last, column 128, alone in its block) is named in its stack.
fn cholesky_ill_and_late<T: Float>() {
    let mut rng = Rng::new(32);
    let n = 129;
    let top = if T::DTYPE == DType::F64 { 12.0 } else { 6.0 };
    let mut ah = spd(&mut rng, 1, n);
    let dg: Vec<f64> = (0..n)
        .map(|i| 10f64.powf(-top / 2.0 * i as f64 / (n - 1) as f64))
        .collect();
    for (t, v) in ah.iter_mut().enumerate() {
        *v *= dg[t / n] * dg[t % n];
    }
    let (a, ah) = upload::<T>(dev(), &ah, &[n, n]);
    let l = host(&linalg::cholesky(&a, Triangle::Lower).expect("cholesky"));
    assert!(l.iter().all(|v| v.is_finite()));
    let e = rel_diff(&matmul(&l, &transpose(&l, n, n), n, n, n), &ah);
    assert!(e <= bound::<T>(n), "ill-conditioned: {e:e}");
    for (late, index) in [(120, 1), (128, 2)] {
        let mut p = spd(&mut rng, 3, n);
        // A diagonal entry lowered below what the columns before it take from it.
        p[index * n * n + late * n + late] = -1.0;
        let (pa, _) = upload::<T>(dev(), &p, &[3, n, n]);
        match linalg::cholesky(&pa, Triangle::Upper) {
            Err(gpuarray::Error::NotPositiveDefinite {
                op: "cholesky",
                index: i,
            }) => assert_eq!(i, index, "pivot {late}"),
            other => panic!("pivot {late}: got {:?}", other.map(|_| ())),
        }
    }
}

/// Matrices scaled by powers of two far from 1 (f64: past f32's range, where the panel's
/// reciprocal square root leaves its f32 seed for `sqrt64_` and `div64_`; and a graded
/// diagonal scaling that crosses that range's edge inside one block): the factor is the
/// scaled reference's, within the bound of `cholesky_blocks`.
fn cholesky_scaled<T: Float>() {
    let mut rng = Rng::new(33);
    let n = 129;
    let ah = spd(&mut rng, 1, n);
    let lr = cholesky_ref(&ah, n);
    let exps: &[i32] = if T::DTYPE == DType::F64 {
        &[-400, -130, 200, 400]
    } else {
        &[-50, 50]
    };
    for &e in exps {
        // Graded: row and column i scaled by 2^(e i / n) (rounded to an integer power).
        for graded in [false, true] {
            let g: Vec<i32> = (0..n)
                .map(|i| if graded { e * i as i32 / n as i32 } else { e })
                .collect();
            let sa: Vec<f64> = (0..n * n)
                .map(|t| ah[t] * 2f64.powi(g[t / n]) * 2f64.powi(g[t % n]))
                .collect();
            let (a, sa) = upload::<T>(dev(), &sa, &[n, n]);
            let l = host(&linalg::cholesky(&a, Triangle::Lower).expect("cholesky"));
            // The factor scaled back by 2^-g[i] in row i: the unscaled reference's.
            let back: Vec<f64> = (0..n * n).map(|t| l[t] * 2f64.powi(-g[t / n])).collect();
            let err = rel_diff(&back, &lr);
            assert!(
                err <= 4.0 * bound::<T>(n),
                "2^{e} graded={graded}: factor {err:e}"
            );
            assert!(sa.iter().all(|v| v.is_finite()));
        }
    }
}

fn cho_solve_and_triangular<T: Float>() {
    let mut rng = Rng::new(10);
    for &n in &[1usize, 7, 65, 130] {
        let ah = spd(&mut rng, 1, n);
        let (a, ah) = upload::<T>(dev(), &ah, &[n, n]);
        // 70 right-hand sides: the solves by the diagonal blocks' inverses.
        let k = if n >= 65 { 70 } else { 2 };
        let (b, bh) = upload::<T>(dev(), &rng.vec(n * k, -1.0, 1.0), &[n, k]);
        for tri in [Triangle::Lower, Triangle::Upper] {
            let c = linalg::cholesky(&a, tri).expect("cholesky");
            let x = host(&linalg::cho_solve(&c, tri, &b).expect("cho_solve"));
            let e = backward_error(&ah, &x, &bh, n, k);
            assert!(e <= bound::<T>(n), "cho_solve {tri:?} n={n}: {e:e}");
        }
        // Triangular solves with every triangle, transposition and diagonal; the other
        // triangle holds garbage that must not be read.
        let (g, gh) = upload::<T>(dev(), &rng.vec(n * n, -1.0, 1.0), &[n, n]);
        for lower in [true, false] {
            for trans in [Trans::N, Trans::T] {
                for unit in [false, true] {
                    let mut t = vec![0.0; n * n];
                    for r in 0..n {
                        for c in 0..n {
                            let keep = if lower { c <= r } else { c >= r };
                            if keep {
                                t[r * n + c] = if r == c {
                                    if unit {
                                        1.0
                                    } else {
                                        2.0 + gh[r * n + c]
                                    }
                                } else {
                                    gh[r * n + c]
                                };
                            }
                        }
                    }
                    let tri = if lower {
                        Triangle::Lower
                    } else {
                        Triangle::Upper
                    };
                    // The matrix passed: the triangle (diagonal 2 + g where not unit),
                    // garbage (g) outside it and, where unit, on the diagonal.
                    let mut passed = gh.clone();
                    for r in 0..n {
                        let keep_d = if unit {
                            gh[r * n + r]
                        } else {
                            2.0 + gh[r * n + r]
                        };
                        passed[r * n + r] = keep_d;
                    }
                    let (pa, pah) = upload::<T>(dev(), &passed, &[n, n]);
                    let _ = (&g, &pah);
                    let x = host(
                        &linalg::solve_triangular(&pa, &b, tri, trans, unit)
                            .expect("solve_triangular"),
                    );
                    // The reference matrix uses the passed values, rounded to T.
                    let mut tt = vec![0.0; n * n];
                    for r in 0..n {
                        for c in 0..n {
                            let keep = if lower { c <= r } else { c >= r };
                            if keep {
                                tt[r * n + c] = if r == c && unit { 1.0 } else { pah[r * n + c] };
                            }
                        }
                    }
                    let _ = t;
                    let op = if trans == Trans::T {
                        transpose(&tt, n, n)
                    } else {
                        tt
                    };
                    let e = backward_error(&op, &x, &bh, n, k);
                    assert!(
                        e <= bound::<T>(n),
                        "solve_triangular lower={lower} {trans:?} unit={unit} n={n}: {e:e}"
                    );
                }
            }
        }
    }
}

fn matrix_power_matches<T: Float>() {
    let mut rng = Rng::new(11);
    let n = 6;
    let (a, ah) = upload::<T>(dev(), &rng.vec(2 * n * n, -0.5, 0.5), &[2, n, n]);
    for p in [0i64, 1, 2, 3, 7, -1, -3] {
        let r = host(&linalg::matrix_power(&a, p).expect("matrix_power"));
        assert_eq!(r.len(), 2 * n * n);
        for i in 0..2 {
            let ai = &ah[i * n * n..][..n * n];
            let base = if p < 0 { inv_ref(ai, n) } else { ai.to_vec() };
            let mut want = identity(n);
            for _ in 0..p.unsigned_abs() {
                want = matmul(&want, &base, n, n, n);
            }
            let e = rel_diff(&r[i * n * n..][..n * n], &want);
            let tol = if p < 0 { 1e4 } else { 1e2 } * bound::<T>(n);
            assert!(e <= tol, "matrix_power {p}: {e:e}");
        }
    }
}

/// Ill-conditioned matrices: Hilbert (n = 8, cond ~ 1.5e10) and graded (cond 1e12) in f64,
/// milder in f32: the backward error stays small whatever the condition.
fn ill_conditioned<T: Float>() {
    let n = if T::DTYPE == DType::F64 { 8 } else { 5 };
    let hilbert: Vec<f64> = (0..n * n)
        .map(|t| 1.0 / ((t / n + t % n + 1) as f64))
        .collect();
    let mut rng = Rng::new(12);
    let m = 70; // two panels; inv by the diagonal blocks' inverses
    let top = if T::DTYPE == DType::F64 { 12.0 } else { 5.0 };
    let graded = graded(&mut rng, m, top);
    for (ah, n) in [(hilbert, n), (graded, m)] {
        let (a, ah) = upload::<T>(dev(), &ah, &[n, n]);
        let (b, bh) = upload::<T>(dev(), &rng.vec(n, -1.0, 1.0), &[n]);
        let x = host(&linalg::solve(&a, &b).expect("solve"));
        let e = backward_error(&ah, &x, &bh, n, 1);
        assert!(e <= bound::<T>(n), "ill-conditioned n={n}: {e:e}");
        let xi = host(&linalg::inv(&a).expect("inv"));
        // inv's columns each solve with a small backward error.
        for c in 0..n {
            let col: Vec<f64> = (0..n).map(|r| xi[r * n + c]).collect();
            let e: Vec<f64> = (0..n).map(|r| if r == c { 1.0 } else { 0.0 }).collect();
            let be = backward_error(&ah, &col, &e, n, 1);
            assert!(be <= 4.0 * bound::<T>(n), "inv column {c}, n={n}: {be:e}");
        }
    }
}

per_dtype! {
    [f32_: f32, f64_: f64] => {
        solve_random => super::solve_random::<T>();
        solve_vector_and_stack => super::solve_vector_and_stack::<T>();
        solve_many_tiny => super::solve_many_tiny::<T>();
        solve_views => super::solve_views::<T>();
        inv_random => super::inv_random::<T>();
        lu_reconstructs => super::lu_reconstructs::<T>();
        lu_factor_solve => super::lu_factor_solve::<T>();
        det_matches => super::det_matches::<T>();
        factor_views_and_stacks => super::factor_views_and_stacks::<T>();
        cholesky_reconstructs => super::cholesky_reconstructs::<T>();
        cholesky_blocks => super::cholesky_blocks::<T>();
        cholesky_ill_and_late => super::cholesky_ill_and_late::<T>();
        cholesky_scaled => super::cholesky_scaled::<T>();
        cho_solve_and_triangular => super::cho_solve_and_triangular::<T>();
        matrix_power_matches => super::matrix_power_matches::<T>();
        ill_conditioned => super::ill_conditioned::<T>();
        panel_pivots_as_lapack => super::panel::pivots_as_lapack::<T>();
        panel_register_shapes => super::panel::register_shapes::<T>();
        panel_solves_and_singular => super::panel::solves_and_singular::<T>();
    }
}
