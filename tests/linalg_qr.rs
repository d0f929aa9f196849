//! `linalg::qr` and `qr_raw` checked in f64 on the CPU: the reconstruction `||Q R - A|| /
//! ||A||`, the orthogonality `||Q^T Q - I||` (Frobenius norms), R upper triangular, each
//! within a small multiple of `max(M, N)` times the dtype's epsilon; random, ill-conditioned
//! (Hilbert, graded), rank-deficient, zero and identity matrices, 1 x 1 and 0 x 0, wide
//! and tall, past one panel (32 columns), a stack of 10,000 tiny matrices, views, every
//! mode; bad input (typed errors).

#[macro_use]
mod common;

use common::{dev, host, upload, Rng};
use gpuarray::linalg::{qr, qr_raw, QrMode};
use gpuarray::{f16, Array, DType, Error, Float, Real, Slice};

/// Row-major product of `a` (m x k) and `b` (k x n).
fn mul(a: &[f64], b: &[f64], m: usize, k: usize, n: usize) -> Vec<f64> {
    let mut c = vec![0.0; m * n];
    for i in 0..m {
        for l in 0..k {
            let x = a[i * k + l];
            for j in 0..n {
                c[i * n + j] += x * b[l * n + j];
            }
        }
    }
    c
}

fn fro(v: &[f64]) -> f64 {
    v.iter().map(|x| x * x).sum::<f64>().sqrt()
}

fn eps<T: Real>() -> f64 {
    if T::DTYPE == DType::F32 {
        f32::EPSILON as f64
    } else {
        f64::EPSILON
    }
}

/// Checks Q (m x qc) and R (qc x n) of one matrix `a` (m x n).
#[track_caller]
#[allow(clippy::too_many_arguments)]
fn check_one(a: &[f64], q: &[f64], r: &[f64], m: usize, n: usize, qc: usize, tol: f64, what: &str) {
    let qr = mul(q, r, m, qc, n);
    let diff: Vec<f64> = qr.iter().zip(a).map(|(x, y)| x - y).collect();
    let na = fro(a);
    let rel = if na == 0.0 {
        fro(&diff)
    } else {
        fro(&diff) / na
    };
    assert!(rel <= tol, "{what}: ||QR - A|| / ||A|| = {rel:e} > {tol:e}");
    let mut qtq = vec![0.0; qc * qc];
    for i in 0..qc {
        for j in 0..qc {
            qtq[i * qc + j] = (0..m).map(|l| q[l * qc + i] * q[l * qc + j]).sum::<f64>()
                - if i == j { 1.0 } else { 0.0 };
        }
    }
    let orth = fro(&qtq);
    assert!(orth <= tol, "{what}: ||Q^T Q - I|| = {orth:e} > {tol:e}");
    for i in 0..qc {
        for j in 0..i.min(n) {
            assert_eq!(r[i * n + j], 0.0, "{what}: R[{i}, {j}] below the diagonal");
        }
    }
}

/// Factors `a` (values `h`, shape `[.., m, n]`) in every mode and checks each matrix.
#[track_caller]
fn check<T: Float + Real>(a: &Array<T>, h: &[f64], what: &str) {
    let s = a.shape();
    let (m, n) = (s[s.len() - 2], s[s.len() - 1]);
    let k = m.min(n);
    let count: usize = s[..s.len() - 2].iter().product();
    let tol = 8.0 * (m.max(n).max(1) as f64) * eps::<T>();
    for (mode, qc) in [(QrMode::Reduced, k), (QrMode::Complete, m)] {
        let f = qr(a, mode).unwrap_or_else(|e| panic!("{what}: {e}"));
        let q = f.q.expect("Q");
        let mut want_q = s[..s.len() - 2].to_vec();
        want_q.extend([m, qc]);
        let mut want_r = s[..s.len() - 2].to_vec();
        want_r.extend([qc, n]);
        assert_eq!(q.shape(), want_q.as_slice(), "{what}");
        assert_eq!(f.r.shape(), want_r.as_slice(), "{what}");
        let (hq, hr) = (host(&q), host(&f.r));
        for z in 0..count {
            check_one(
                &h[z * m * n..(z + 1) * m * n],
                &hq[z * m * qc..(z + 1) * m * qc],
                &hr[z * qc * n..(z + 1) * qc * n],
                m,
                n,
                qc,
                tol,
                &format!("{what} {mode:?} matrix {z}"),
            );
        }
        if mode == QrMode::Reduced {
            // Mode r: the same R, no Q.
            let r_only = qr(a, QrMode::R).unwrap();
            assert!(r_only.q.is_none());
            assert_eq!(host(&r_only.r), hr, "{what}: mode R");
        }
    }
}

fn random<T: Float + Real>(rng: &mut Rng, shape: &[usize]) -> (Array<T>, Vec<f64>) {
    upload::<T>(dev(), &rng.vec(shape.iter().product(), -1.0, 1.0), shape)
}

fn sizes<T: Float + Real>(seed: u64) {
    let mut rng = Rng::new(seed);
    for shape in [
        &[1usize, 1][..],
        &[5, 3],
        &[3, 5],
        &[7, 7],
        &[31, 32],
        &[33, 33],
        &[70, 37],
        &[37, 70],
        &[97, 65],
        &[3, 4, 6],
        &[2, 3, 40, 35],
        &[600, 40], // panels of 512 rows and more: 1024 invocations where the adapter allows
    ] {
        let (a, h) = random::<T>(&mut rng, shape);
        check(&a, &h, &format!("{:?} {shape:?}", T::DTYPE));
    }
}

#[test]
fn random_f32() {
    sizes::<f32>(1);
}

#[test]
fn random_f64() {
    common::if_supported::<f64>(|| sizes::<f64>(2));
}

#[test]
fn special_matrices() {
    let mut rng = Rng::new(3);
    let n = 40;
    // Zero: R = 0, Q orthogonal (the identity: every tau 0).
    let (z, hz) = upload::<f32>(dev(), &vec![0.0; n * n], &[n, n]);
    check(&z, &hz, "zero");
    let f = qr(&z, QrMode::Reduced).unwrap();
    assert_eq!(host(&f.q.unwrap()), host(&dev().eye::<f32>(n).unwrap()));
    // Identity.
    let i = dev().eye::<f32>(n).unwrap();
    check(&i, &host(&i), "identity");
    // Rank-deficient: the columns repeat three independent ones.
    let base = rng.vec(n * 3, -1.0, 1.0);
    let hd: Vec<f64> = (0..n * n)
        .map(|e| base[(e / n) * 3 + (e % n) % 3])
        .collect();
    let (d, hd) = upload::<f32>(dev(), &hd, &[n, n]);
    check(&d, &hd, "rank 3");
    // A zero column in the middle, a diagonal matrix.
    let hc: Vec<f64> = (0..n * n)
        .map(|e| {
            if e % n == 5 {
                0.0
            } else {
                rng.uniform(-1.0, 1.0)
            }
        })
        .collect();
    let (c, hc) = upload::<f32>(dev(), &hc, &[n, n]);
    check(&c, &hc, "zero column");
    let hg: Vec<f64> = (0..n * n)
        .map(|e| {
            if e / n == e % n {
                -(e as f64) - 1.0
            } else {
                0.0
            }
        })
        .collect();
    let (g, hg) = upload::<f32>(dev(), &hg, &[n, n]);
    check(&g, &hg, "diagonal");
    // Tiny and huge scales: the norms are scaled (no square underflows or overflows in f32).
    for scale in [1e-30, 1e25] {
        let hs: Vec<f64> = rng
            .vec(n * 20, -1.0, 1.0)
            .iter()
            .map(|x| x * scale)
            .collect();
        let (s, hs) = upload::<f32>(dev(), &hs, &[n, 20]);
        check(&s, &hs, &format!("scaled by {scale:e}"));
    }
    // 0 x 0, 0 x 3, 3 x 0, and an empty stack.
    for shape in [&[0usize, 0][..], &[0, 3], &[3, 0], &[0, 4, 4]] {
        let e = dev().zeros::<f32>(shape).unwrap();
        let f = qr(&e, QrMode::Complete).unwrap();
        let (m, nn) = (shape[shape.len() - 2], shape[shape.len() - 1]);
        assert_eq!(f.r.shape()[shape.len() - 2..], [m, nn]);
        let q = f.q.unwrap();
        assert_eq!(q.shape()[shape.len() - 2..], [m, m]);
        if shape.len() == 2 {
            assert_eq!(host(&q), host(&dev().eye::<f32>(m).unwrap()));
        }
    }
}

#[test]
fn ill_conditioned_f64() {
    require_dtype!(f64);
    // Hilbert 12 (condition about 1e16) and a graded matrix (rows scaled 1 .. 1e-12):
    // Householder QR is backward stable whatever the condition.
    let n = 12;
    let hil: Vec<f64> = (0..n * n)
        .map(|e| 1.0 / ((e / n + e % n + 1) as f64))
        .collect();
    let (a, h) = upload::<f64>(dev(), &hil, &[n, n]);
    check(&a, &h, "hilbert");
    let mut rng = Rng::new(4);
    let n = 50;
    let gr: Vec<f64> = (0..n * n)
        .map(|e| rng.uniform(-1.0, 1.0) * 10f64.powf(-12.0 * (e / n) as f64 / n as f64))
        .collect();
    let (a, h) = upload::<f64>(dev(), &gr, &[n, n]);
    check(&a, &h, "graded");
}

#[test]
fn a_stack_of_10000_tiny_matrices() {
    let mut rng = Rng::new(5);
    let (a, h) = random::<f32>(&mut rng, &[100, 100, 4, 3]);
    check(&a, &h, "10,000 of 4 x 3");
}

#[test]
fn views() {
    let mut rng = Rng::new(6);
    let (a, h) = random::<f32>(&mut rng, &[30, 45]);
    // Transposed: 45 x 30.
    let ht: Vec<f64> = (0..45 * 30).map(|e| h[(e % 30) * 45 + e / 30]).collect();
    check(&a.t(), &ht, "transposed");
    // Every other row, reversed columns: 15 x 45.
    let s = a
        .slice([Slice::from(..).step(2), Slice::from(..).step(-1)])
        .unwrap();
    let hs: Vec<f64> = (0..15 * 45)
        .map(|e| h[(e / 45) * 2 * 45 + 44 - e % 45])
        .collect();
    check(&s, &hs, "strided");
    // The input is unchanged.
    assert_eq!(host(&a), h);
}

#[test]
fn raw_mode_rebuilds_q() {
    let mut rng = Rng::new(7);
    for (m, n) in [(40usize, 35usize), (6, 9)] {
        let (a, h) = random::<f32>(&mut rng, &[m, n]);
        let (hh, tau) = qr_raw(&a).unwrap();
        assert_eq!((hh.shape(), tau.shape()), (&[n, m][..], &[m.min(n)][..]));
        let (hh, tau) = (host(&hh), host(&tau));
        // The factored matrix, row-major m x n, is h's transpose.
        let f: Vec<f64> = (0..m * n).map(|e| hh[(e % n) * m + e / n]).collect();
        // Q = H_0 H_1 ... applied to the identity, on the CPU.
        let mut q: Vec<f64> = (0..m * m)
            .map(|e| if e / m == e % m { 1.0 } else { 0.0 })
            .collect();
        for j in (0..m.min(n)).rev() {
            let v: Vec<f64> = (0..m)
                .map(|i| match i.cmp(&j) {
                    std::cmp::Ordering::Less => 0.0,
                    std::cmp::Ordering::Equal => 1.0,
                    std::cmp::Ordering::Greater => f[i * n + j],
                })
                .collect();
            for c in 0..m {
                let d: f64 = (0..m).map(|i| v[i] * q[i * m + c]).sum();
                for i in 0..m {
                    q[i * m + c] -= tau[j] * v[i] * d;
                }
            }
        }
        let r: Vec<f64> = (0..m * n)
            .map(|e| if e % n >= e / n { f[e] } else { 0.0 })
            .collect();
        check_one(&h, &q, &r, m, n, m, 8.0 * 40.0 * eps::<f32>(), "raw");
    }
}

#[test]
fn non_finite_values_propagate() {
    let mut v = vec![1.0f32; 16];
    v[5] = f32::NAN;
    let a = dev().from_slice(&v, [4, 4]).unwrap();
    let f = qr(&a, QrMode::Reduced).unwrap();
    assert!(f.r.to_vec().unwrap().iter().any(|x| x.is_nan()));
}

#[test]
fn bad_input() {
    let v = dev().ones::<f32>([5]).unwrap();
    assert!(matches!(
        qr(&v, QrMode::Reduced),
        Err(Error::InvalidArgument { .. })
    ));
    assert!(matches!(qr_raw(&v), Err(Error::InvalidArgument { .. })));
    common::if_supported::<f16>(|| {
        let h = dev().ones::<f16>([3, 3]).unwrap();
        common::assert_unsupported(qr(&h, QrMode::Reduced), DType::F16);
    });
    // The device still works.
    let i = dev().eye::<f32>(3).unwrap();
    check(&i, &host(&i), "after errors");
}
