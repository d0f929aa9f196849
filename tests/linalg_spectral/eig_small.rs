//! eigh and eigvalsh of stacks of small matrices (n <= 32: src/linalg/spectral/eig_small.rs,
//! a lane per column), through both exchanges: subgroup shuffles (the shared device, where
//! its smallest subgroup holds the matrix's lanes: n <= 8 on lavapipe) and workgroup
//! memory (a device with `Tuning::subgroups` off, and the shared device from n = 9 on
//! lavapipe). Checked as main.rs's `check_eigh` does (eigen-residual and values within
//! 20 max(n, 4) eps, orthogonality within 40 max(n, 4) eps, against f64 Jacobi), on stacks
//! whose matrices share subgroups and workgroups (and fill the last one partly), random in
//! both triangles, with degenerate, graded, zero, identity and diagonal matrices mixed
//! into one stack, and NaN or inf in one matrix of a stack (the others unaffected).

use super::common::{self, dev, host, upload, Rng};
use super::{check_eigh, reference as r, tol};
use gpuarray::linalg::{eigh, eigvalsh, Triangle};
use gpuarray::{Device, Float, Slice};
use std::sync::OnceLock;

/// A device whose small eigh exchanges columns through workgroup memory.
pub fn wg_dev() -> &'static Device {
    static DEV: OnceLock<Device> = OnceLock::new();
    DEV.get_or_init(|| {
        let mut opts = gpuarray::Options::default();
        opts.tuning.subgroups = false;
        Device::with_options(opts).expect("device without subgroups")
    })
}

/// The devices to run n x n matrices on: the shared one, and the one without subgroups
/// where the shared one would shuffle (and where it accepts `T`).
fn devices<T: Float>(n: usize) -> Vec<&'static Device> {
    let mut v = vec![dev()];
    if shuffled(n) && common::supported::<T>(wg_dev()) {
        v.push(wg_dev());
    }
    v
}

/// Whether the shared device's smallest subgroup holds an n x n matrix's lanes (n rounded
/// up to even, then to a power of two), where it can (`Tuning::subgroups` on).
fn shuffled(n: usize) -> bool {
    let lanes = (n + (n & 1)).next_power_of_two() as u32;
    dev().info().subgroup_min_size >= lanes
}

/// Sizes: every lane count (2, 4, 8, 16, 32), odd orders (a padded column), primes.
const SIZES: [usize; 10] = [1, 2, 3, 4, 5, 8, 9, 16, 17, 32];

/// Random stacks of 1 and 37 matrices (37: several matrices per subgroup and workgroup,
/// the last workgroup partly filled), both triangles; eigvalsh's values against eigh's.
pub fn sizes_and_stacks<T: Float>() {
    let mut rng = Rng::new(31);
    for n in SIZES {
        for d in devices::<T>(n) {
            for count in [1, 37] {
                let (a, x) = upload::<T>(d, &rng.vec(count * n * n, -1.0, 1.0), &[count, n, n]);
                for uplo in [Triangle::Lower, Triangle::Upper] {
                    let (w, v) = eigh(&a, uplo).unwrap();
                    assert_eq!(
                        (w.shape(), v.shape()),
                        (&[count, n][..], &[count, n, n][..])
                    );
                    check_eigh::<T>(&x, n, uplo, &w, &v);
                    let (wv, hw) = (host(&eigvalsh(&a, uplo).unwrap()), host(&w));
                    for b in 0..count {
                        let scale = r::fro(&x[b * n * n..(b + 1) * n * n]);
                        let at = b * n..(b + 1) * n;
                        common::assert_close(&wv[at.clone()], &hw[at], tol::<T>(n) * scale, 0.0);
                    }
                }
            }
        }
    }
}

/// One stack mixing matrices that converge at once with ones that take every sweep:
/// zero, identity, diagonal, a 4-fold degenerate spectrum, a spectrum graded from 1 to
/// 1e-12 (f64) or 1e-5 (f32), random matrices scaled by 1e100 and 1e-100 (f64) or 1e15
/// and 1e-15 (f32); each twice.
pub fn mixed_stack<T: Float>() {
    let mut rng = Rng::new(32);
    let (floor, big): (f64, f64) = if T::DTYPE == gpuarray::DType::F64 {
        (1e-12, 1e100)
    } else {
        (1e-5, 1e15)
    };
    for n in [5, 17, 32] {
        for d in devices::<T>(n) {
            let mut data = Vec::new();
            for b in 0..14 {
                let m: Vec<f64> = match b % 7 {
                    0 => vec![0.0; n * n],
                    1 => (0..n * n)
                        .map(|e| f64::from(u8::from(e % (n + 1) == 0)))
                        .collect(),
                    2 => (0..n * n)
                        .map(|e| {
                            if e % (n + 1) == 0 {
                                (e / n) as f64 - 3.0
                            } else {
                                0.0
                            }
                        })
                        .collect(),
                    3 => {
                        let ev: Vec<f64> =
                            (0..n).map(|k| [1.0, 1.0, 1.0, 1.0, -2.0][k % 5]).collect();
                        r::with_eigenvalues(&mut rng, &ev)
                    }
                    4 => {
                        let ev: Vec<f64> = (0..n)
                            .map(|k| floor.powf(k as f64 / (n - 1) as f64))
                            .collect();
                        r::with_eigenvalues(&mut rng, &ev)
                    }
                    5 => rng.vec(n * n, -big, big),
                    _ => rng.vec(n * n, -1.0 / big, 1.0 / big),
                };
                data.extend(m);
            }
            let (a, x) = upload::<T>(d, &data, &[14, n, n]);
            let (w, v) = eigh(&a, Triangle::Lower).unwrap();
            check_eigh::<T>(&x, n, Triangle::Lower, &w, &v);
            // The identity's eigenvalues 1, the diagonal's its entries (sorted already).
            let hw = host(&w);
            common::assert_close(
                &hw[n..2 * n],
                &vec![1.0; n],
                tol::<T>(n) * (n as f64).sqrt(),
                0.0,
            );
            let diag: Vec<f64> = (0..n).map(|k| k as f64 - 3.0).collect();
            common::assert_close(&hw[2 * n..3 * n], &diag, tol::<T>(n) * r::fro(&diag), 0.0);
        }
    }
}

/// NaN or inf in one matrix of a stack: its eigenvalues NaN, the others' still accurate
/// (they share its subgroup and workgroup, which sweep on after it stopped).
pub fn special_values_in_a_stack<T: Float>() {
    let mut rng = Rng::new(33);
    for n in [3, 8, 17] {
        for d in devices::<T>(n) {
            for bad in [f64::NAN, f64::INFINITY] {
                let count = 9;
                let mut data = rng.vec(count * n * n, -1.0, 1.0);
                // Matrix 4, below the diagonal (the lower triangle reads it).
                data[4 * n * n + (n - 1) * n] = bad;
                let (a, x) = upload::<T>(d, &data, &[count, n, n]);
                let (w, v) = eigh(&a, Triangle::Lower).unwrap();
                let hw = host(&w);
                assert!(
                    hw[4 * n..5 * n].iter().all(|e| e.is_nan()),
                    "{:?}",
                    &hw[4 * n..5 * n]
                );
                let vals = host(&eigvalsh(&a, Triangle::Lower).unwrap());
                assert!(vals[4 * n..5 * n].iter().all(|e| e.is_nan()));
                // The others, checked apart.
                for b in (0..count).filter(|&b| b != 4) {
                    let xb = &x[b * n * n..(b + 1) * n * n];
                    let wb = w.slice([Slice::from(b..b + 1)]).unwrap();
                    let vb = v.slice([Slice::from(b..b + 1)]).unwrap();
                    check_eigh::<T>(xb, n, Triangle::Lower, &wb, &vb);
                }
            }
        }
    }
}
