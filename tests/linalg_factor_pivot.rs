//! The LU register panel's two pivot searches (src/linalg/factor_reg.rs's `Pivot`): the
//! subgroup one, chosen by the measuring switch `GPUARRAY_FACTOR_PIVOT=1` (set by this
//! binary's one test before anything is factored: the switch is read once a process),
//! against the workgroup one (a device with `Tuning::subgroups` off).

#[path = "common/mod.rs"]
mod common;
#[allow(dead_code)]
#[path = "linalg_factor/reference.rs"]
mod reference;

use gpuarray::linalg;
use gpuarray::{DType, Device, Float, Options};

use common::{dev, host, upload, Rng};
use reference::*;

/// The bound of a reconstruction for order n: 8 n eps (as tests/linalg_factor).
fn bound<T: Float>(n: usize) -> f64 {
    let eps = if T::DTYPE == DType::F32 {
        f32::EPSILON as f64
    } else {
        f64::EPSILON
    };
    8.0 * (n.max(1) as f64) * eps
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
        .map(|t| match (t / k).cmp(&(t % k)) {
            std::cmp::Ordering::Greater => f[(t / k) * n + t % k],
            std::cmp::Ordering::Equal => 1.0,
            std::cmp::Ordering::Less => 0.0,
        })
        .collect();
    let u: Vec<f64> = (0..k * n)
        .map(|t| if t % n >= t / n { f[t] } else { 0.0 })
        .collect();
    matmul(&l, &u, m, k, n)
}

/// The LU's pivots and factors (as f64) of `v` ([count, m, n]) on `d`.
fn factors<T: Float>(d: &Device, v: &[f64], shape: &[usize]) -> (Vec<i32>, Vec<f64>) {
    let (a, _) = upload::<T>(d, v, shape);
    let f = linalg::lu_factor(&a).expect("lu_factor");
    (f.piv().to_vec().expect("piv"), host(f.lu()))
}

/// The register panel's subgroup pivot search (the shared device, where the adapter has
/// subgroups; `GPUARRAY_FACTOR_PIVOT=1`) against its workgroup one (`Tuning::subgroups` off): the same pivots and the
/// same factors, bit for bit (the same arithmetic in the same order), and L U = P A; on
/// ties across subgroups and invocations, columns whose candidates are all NaN (the row
/// at the diagonal then the pivot), zero columns, stacks and every register shape.
fn pivot_searches_agree<T: Float>() {
    let mut o = Options::default();
    o.tuning.subgroups = false;
    let plain = Device::open_with_options(0, o).expect("a second device");
    let mut rng = Rng::new(34);
    for (count, m, n) in [
        (1usize, 1usize, 1usize),
        (3, 37, 37),
        (1, 130, 70),
        (1, 521, 40),
        // 3 rows an invocation, 16 columns (f32).
        (1, 1100, 12),
    ] {
        let mut v = rng.vec(count * m * n, -1.0, 1.0);
        for i in 0..count {
            let a = &mut v[i * m * n..][..m * n];
            // Ties of the largest magnitude in column 0, one per group of 8 and 32 rows.
            for r in (3..m).step_by(29) {
                a[r * n] = if r % 2 == 0 { 4.0 } else { -4.0 };
            }
            if n > 5 && m > 5 {
                // Column 3 zero (an exact zero pivot at step 3), column 5 NaN from row 5
                // down in matrix 0 (every candidate NaN).
                for r in 0..m {
                    a[r * n + 3] = 0.0;
                    if i == 0 && r >= 5 {
                        a[r * n + 5] = f64::NAN;
                    }
                }
            }
        }
        let (pa, fa) = factors::<T>(dev(), &v, &[count, m, n]);
        let (pb, fb) = factors::<T>(&plain, &v, &[count, m, n]);
        assert_eq!(pa, pb, "{count}x{m}x{n}: pivots");
        let same = fa
            .iter()
            .zip(&fb)
            .all(|(x, y)| x.to_bits() == y.to_bits() || (x.is_nan() && y.is_nan()));
        assert!(same, "{count}x{m}x{n}: factors differ");
        let k = m.min(n);
        if n > 5 && m > 5 {
            // Step 5: every candidate NaN, the row at the diagonal stays.
            assert_eq!(pa[5], 5, "{m}x{n}: the NaN column's pivot");
        }
        // Matrices without NaN: L U = P A.
        for i in (1..count).chain(if n > 5 && m > 5 { None } else { Some(0) }) {
            let p: Vec<usize> = pa[i * k..][..k].iter().map(|&p| p as usize).collect();
            let ah: Vec<f64> = upload::<T>(dev(), &v[i * m * n..][..m * n], &[m, n]).1;
            let e = rel_diff(
                &lu_product(&fa[i * m * n..][..m * n], m, n),
                &permuted(&ah, &p, m, n),
            );
            assert!(e <= bound::<T>(m.max(n)), "{m}x{n} #{i}: lu {e:e}");
        }
    }
}

#[test]
fn subgroup_and_workgroup_pivot_searches_agree() {
    // SAFETY: this binary's only test, run before anything reads the environment.
    unsafe { std::env::set_var("GPUARRAY_FACTOR_PIVOT", "1") };
    pivot_searches_agree::<f32>();
    if dev().supports::<f64>() {
        pivot_searches_agree::<f64>();
    } else {
        common::skip("f64 is not supported: only f32 compared");
    }
}
