//! The three ways of making eigh's vectors orthonormal ([`Orth`], cholqr.rs), each run on the
//! device whatever `GPUARRAY_EIGH_ORTH` selects: eigen-residual ||A V - V diag(w)||_F
//! within 20 n eps ||A||_F and orthogonality ||V^T V - I||_F within 40 n eps (the bounds of
//! tests/linalg_spectral), computed on the host in f64; and which way finished the vectors
//! (one pass a round, or Newton-Schulz steps alone, for separated eigenvalues; the
//! second pass, a pass before the steps, or Householder QR for clusters).

use super::super::cholqr::{self, Finish, Orth};
use super::eigh_with;
use crate::{Array, Device, Float};

/// A reproducible value in [-1, 1) (xorshift).
fn rng(state: &mut u64) -> f64 {
    *state ^= *state << 13;
    *state ^= *state >> 7;
    *state ^= *state << 17;
    (*state >> 11) as f64 / (1u64 << 52) as f64 - 1.0
}

fn eps<T: Float>() -> f64 {
    super::super::jacobi::eps::<T>()
}

/// A random orthogonal n x n matrix (Gram-Schmidt twice of random columns), row-major.
fn orthogonal(state: &mut u64, n: usize) -> Vec<f64> {
    let mut q: Vec<Vec<f64>> = Vec::new();
    for _ in 0..n {
        let mut v: Vec<f64> = (0..n).map(|_| rng(state)).collect();
        for _ in 0..2 {
            for u in &q {
                let d: f64 = u.iter().zip(&v).map(|(a, b)| a * b).sum();
                v.iter_mut().zip(u).for_each(|(x, y)| *x -= d * y);
            }
        }
        let s = v.iter().map(|x| x * x).sum::<f64>().sqrt();
        q.push(v.iter().map(|x| x / s).collect());
    }
    // Columns q[j]: element (i, j) = q[j][i].
    (0..n * n).map(|e| q[e % n][e / n]).collect()
}

/// Q diag(ev) Q^T for a random orthogonal Q.
fn with_eigenvalues(state: &mut u64, ev: &[f64]) -> Vec<f64> {
    let n = ev.len();
    let q = orthogonal(state, n);
    let mut a = vec![0.0; n * n];
    for i in 0..n {
        for j in 0..n {
            a[i * n + j] = (0..n).map(|k| q[i * n + k] * ev[k] * q[j * n + k]).sum();
        }
    }
    a
}

/// Runs eigh_with on the n x n `a` (lower triangle, as T) and checks its result.
fn check<T: Float>(dev: &Device, a: &[f64], n: usize, orth: Orth) -> Finish {
    let vals: Vec<T> = a.iter().map(|&x| T::from_f64(x)).collect();
    let x: Vec<f64> = vals.iter().map(|v| v.to_f64()).collect();
    let g = dev.from_slice(&vals, [n, n]).unwrap();
    let (w, v, finish) = eigh_with("eigh", &g, 1, n, false, orth, None).unwrap();
    let w: Vec<f64> = w.to_vec().unwrap().iter().map(|v| v.to_f64()).collect();
    let v: Vec<f64> = v.to_vec().unwrap().iter().map(|v| v.to_f64()).collect();
    // The symmetric matrix of the lower triangle.
    let s = |i: usize, j: usize| x[i.max(j) * n + i.min(j)];
    let anorm = (0..n * n)
        .map(|e| s(e / n, e % n).powi(2))
        .sum::<f64>()
        .sqrt();
    let (mut res, mut orth2) = (0.0, 0.0);
    for i in 0..n {
        for j in 0..n {
            let av: f64 = (0..n).map(|k| s(i, k) * v[k * n + j]).sum();
            res += (av - v[i * n + j] * w[j]).powi(2);
            let vv: f64 = (0..n).map(|k| v[k * n + i] * v[k * n + j]).sum();
            orth2 += (vv - if i == j { 1.0 } else { 0.0 }).powi(2);
        }
    }
    let ne = n as f64 * eps::<T>();
    let (res, orth2) = (
        res.sqrt() / (anorm.max(f64::MIN_POSITIVE) * ne),
        orth2.sqrt() / ne,
    );
    assert!(
        w.windows(2).all(|p| p[0] <= p[1]),
        "{orth:?} n {n}: not ascending"
    );
    assert!(
        res <= 20.0,
        "{orth:?} n {n} {finish:?}: residual {res} n eps ||A||"
    );
    assert!(
        orth2 <= 40.0,
        "{orth:?} n {n} {finish:?}: orthogonality {orth2} n eps"
    );
    eprintln!(
        "{:?} {orth:?} n {n}: {finish:?}, residual {res:.2}, orthogonality {orth2:.2}",
        T::DTYPE
    );
    finish
}

fn both_ways<T: Float>() {
    let dev = Device::new().expect("a device");
    if !dev.supports::<T>() {
        return;
    }
    let mut st = 0x9e37_79b9_7f4a_7c15u64;
    for orth in [Orth::Qr2, Orth::OnePass, Orth::Polar] {
        // Random (separated eigenvalues): the rounds' passes alone suffice, or Newton-Schulz
        // steps alone.
        for n in [33, 97, 130] {
            let a: Vec<f64> = (0..n * n).map(|_| rng(&mut st)).collect();
            let f = check::<T>(&dev, &a, n, orth);
            match orth {
                Orth::Polar => assert!(
                    matches!(
                        f,
                        Finish::Polished {
                            passes: 0,
                            steps: 0..=3
                        }
                    ),
                    "{n}: {f:?}"
                ),
                _ => assert_eq!(f, Finish::Rounds, "{orth:?} {n}"),
            }
        }
        // Clusters: multiplicity 30 of 60 and a graded spectrum; whichever way finishes.
        let ev: Vec<f64> = (0..60)
            .map(|k| if k < 30 { 1.0 } else { (k as f64 - 45.0) / 5.0 })
            .collect();
        check::<T>(&dev, &with_eigenvalues(&mut st, &ev), 60, orth);
        let ev: Vec<f64> = (0..50).map(|k| 10f64.powf(-(k as f64) / 5.0)).collect();
        check::<T>(&dev, &with_eigenvalues(&mut st, &ev), 50, orth);
    }
}

#[test]
fn both_ways_f32() {
    both_ways::<f32>();
}

#[test]
fn both_ways_f64() {
    both_ways::<f64>();
}

/// The second pass mends what one pass leaves: Z = Q1 diag(s) Q2^T with random orthogonal
/// Q1, Q2 and s over [1/300, 1] (cond 300; not a scaling of orthogonal columns, which
/// CholeskyQR undoes exactly) leaves one pass about eps cond^2 from orthonormal in f32,
/// past the check's bound, and a second pass within it.
#[test]
fn second_pass_mends() {
    let dev = Device::new().expect("a device");
    let n = 64;
    let mut st = 7u64;
    let (q1, q2) = (orthogonal(&mut st, n), orthogonal(&mut st, n));
    let s: Vec<f64> = (0..n)
        .map(|k| 300f64.powf(-(k as f64) / (n - 1) as f64))
        .collect();
    let mut m = vec![0.0f32; n * n];
    for i in 0..n {
        for j in 0..n {
            let x: f64 = (0..n).map(|k| q1[i * n + k] * s[k] * q2[j * n + k]).sum();
            m[i * n + j] = x as f32;
        }
    }
    let z = dev.from_slice(&m, [1, n, n]).unwrap();
    let once = cholqr::one_pass(&z).unwrap();
    let e1 = cholqr::orthonormality(&once, n).unwrap();
    assert!(
        !cholqr::enough(e1) && cholqr::mendable::<f32>(e1, n),
        "one pass: {e1}"
    );
    let twice: Array<f32> = cholqr::one_pass(&once).unwrap();
    let e2 = cholqr::orthonormality(&twice, n).unwrap();
    assert!(cholqr::enough(e2), "two passes: {e2}");
    eprintln!("second_pass_mends: one pass {e1:.1} n eps, two {e2:.2}");
}

/// stein's vectors in several dispatches (chunks of 64 and 50 vectors, across the
/// matrices of a stack of 3 x 40 x 40) give what one dispatch gives.
#[test]
fn stein_in_chunks() {
    let dev = Device::new().expect("a device");
    let (count, n) = (3, 40);
    let mut st = 11u64;
    let x: Vec<f32> = (0..count * n * n).map(|_| rng(&mut st) as f32).collect();
    let a = dev.from_slice(&x, [count, n, n]).unwrap();
    let one = eigh_with("eigh", &a, count, n, false, Orth::Polar, Some(count * n)).unwrap();
    for chunk in [64, 50] {
        let r = eigh_with("eigh", &a, count, n, false, Orth::Polar, Some(chunk)).unwrap();
        assert_eq!(r.0.to_vec().unwrap(), one.0.to_vec().unwrap(), "{chunk}");
        assert_eq!(r.1.to_vec().unwrap(), one.1.to_vec().unwrap(), "{chunk}");
    }
    // The default (one dispatch here) is the same.
    let d = eigh_with("eigh", &a, count, n, false, Orth::Polar, None).unwrap();
    assert_eq!(d.1.to_vec().unwrap(), one.1.to_vec().unwrap());
}

/// The default scratch takes a whole 4096 x 4096 f32 eigh in one dispatch where the binding
/// allows (201 MB of factors), and stays within the binding.
#[test]
fn stein_chunk_sizes() {
    let dev = Device::new().expect("a device");
    let limit = dev.limits().max_storage_buffer_binding_size as usize;
    for (n, size) in [(4096, 4), (4096, 8), (1024, 4), (100, 8)] {
        let per = 3 * n * size;
        let fixed = super::AUX_FIELDS * n;
        let c = super::stein_chunk(&dev, fixed, per, size, n);
        assert!(c >= super::STEIN_WG.min(n) && c <= n, "{n} {size}: {c}");
        assert!(c == n || fixed * size + c * per <= limit, "{n} {size}: {c}");
        if fixed * size + n * per <= limit.min(super::STEIN_SCRATCH_MAX) {
            assert_eq!(c, n, "{n} {size}");
        }
    }
}

/// `larft_wg` (workgroup memory) gives `larft`'s Tf (global memory), each in the dtype's
/// rounding: random symmetric G, tau in [1, 2] and one tau of 0 (H = I), blocks of 64 and
/// 37 reflectors from k0 = 3, two matrices.
fn larft_kernels_agree<T: Float>() {
    let dev = Device::new().expect("a device");
    if !dev.supports::<T>() {
        return;
    }
    let (count, n, k0) = (2, 70, 3);
    let mut st = 5u64;
    for q in [64, 37] {
        let mut g = vec![0.0f64; count * q * q];
        for b in 0..count {
            for i in 0..q {
                for j in 0..=i {
                    let x = rng(&mut st);
                    g[b * q * q + i * q + j] = x;
                    g[b * q * q + j * q + i] = x;
                }
            }
        }
        let mut aux = vec![0.0f64; super::AUX_FIELDS * count * n];
        for b in 0..count {
            for i in 0..q {
                let tau = if i == 5 {
                    0.0
                } else {
                    1.5 + rng(&mut st) / 2.0
                };
                aux[(3 * count + b) * n + k0 + i] = tau;
            }
        }
        let up = |x: &[f64]| {
            let v: Vec<T> = x.iter().map(|&x| T::from_f64(x)).collect();
            dev.from_slice(&v, [v.len()]).unwrap()
        };
        let (ga, auxa) = (up(&g), up(&aux));
        let tp = super::TParams {
            count,
            n,
            k: k0,
            nb: q,
            ..super::TParams::default()
        };
        let mut out = Vec::new();
        for entry in ["larft", "larft_wg"] {
            let tf = Array::<T>::alloc(&dev, "linalg", vec![count * q * q]).unwrap();
            let grid = super::per_matrix(1, count);
            let (gb, ab, tb) = (ga.binding(), auxa.binding(), tf.binding());
            super::launch::<T>(&dev, super::WG, entry, &tp, gb, ab, tb, grid).unwrap();
            out.push(tf.to_vec().unwrap());
        }
        let scale = out[0].iter().fold(0.0f64, |m, x| m.max(x.to_f64().abs()));
        // The diagonal holds tau (at least 1 but one).
        assert!(scale >= 1.0, "q {q}: Tf all but zero");
        let below: f64 = (0..q * q)
            .filter(|e| e / q > e % q)
            .map(|e| out[1][e].to_f64().abs())
            .sum();
        assert_eq!(below, 0.0, "q {q}: Tf not upper triangular");
        for (e, (x, y)) in out[0].iter().zip(&out[1]).enumerate() {
            let (x, y) = (x.to_f64(), y.to_f64());
            assert!(
                (x - y).abs() <= 64.0 * eps::<T>() * scale,
                "q {q} element {e}: {x} against {y}"
            );
        }
    }
}

#[test]
fn larft_kernels_agree_f32() {
    larft_kernels_agree::<f32>();
}

#[test]
fn larft_kernels_agree_f64() {
    larft_kernels_agree::<f64>();
}

thread_local! {
    /// Steps a `bisect` dispatch takes where not 0 (the dispatches then cover
    /// [`BISECT_STEPS`]): the resumed bracket checked on any adapter.
    pub(super) static FORCE_PER: std::cell::Cell<usize> = const { std::cell::Cell::new(0) };
}

/// Bisection split over dispatches (lavapipe's loop budget).
mod bisect_split {
    use super::super::*;
    use super::FORCE_PER;
    #[test]
    fn bisect_plans_fit_lavapipes_loop_budget() {
        assert_eq!(
            bisect_plan::<f64>(DeviceKind::DiscreteGpu, 4096),
            (1, BISECT_STEPS)
        );
        assert_eq!(bisect_plan::<f64>(DeviceKind::Cpu, 2100), (3, 26));
        for n in [33, 100, 1000, 1110, 2100, 4096, 5792] {
            // log2(8 / eps) and the margin of 8.
            let f32_plan = (bisect_plan::<f32>(DeviceKind::Cpu, n), 34);
            let f64_plan = (bisect_plan::<f64>(DeviceKind::Cpu, n), 63);
            for ((d, per), steps) in [f32_plan, f64_plan] {
                // Gershgorin and e^2 (2 n - 1), each step n (its Sturm count's n - 1 and the
                // step itself), under lavapipe's 65,535.
                assert!(2 * n + per * n <= 65_535, "n {n} per {per}");
                assert!(d * per >= steps, "n {n}: {d} x {per}");
            }
        }
    }

    /// Bisection resumed from the bracket a dispatch before left gives the bits of one
    /// dispatch (f32 and f64, a stack of two).
    #[test]
    fn bisect_resumed_gives_the_same_bits() {
        fn check<T: Float>(dev: &Device) {
            let n = 97;
            let m = dev
                .random_uniform_in::<T>([2, n, n], T::from_f64(-1.0), T::from_f64(1.0), 3)
                .unwrap();
            let a = m
                .add(&m.swapaxes(1, 2).unwrap())
                .unwrap()
                .contiguous()
                .unwrap();
            let one = eigvalsh("eigvalsh", &a, 2, n, false)
                .unwrap()
                .to_vec()
                .unwrap();
            FORCE_PER.set(5);
            let split = eigvalsh("eigvalsh", &a, 2, n, false)
                .unwrap()
                .to_vec()
                .unwrap();
            FORCE_PER.set(0);
            let bits = |v: &[T]| v.iter().map(|x| x.to_f64().to_bits()).collect::<Vec<_>>();
            assert_eq!(bits(&one), bits(&split));
            assert!(one.windows(2).take(n - 1).all(|w| w[0] <= w[1]));
        }
        let dev = Device::new().expect("a device");
        check::<f32>(&dev);
        if dev.supports::<f64>() {
            check::<f64>(&dev);
        }
    }
}
