//! `ReductionKernel`'s type placeholder in every expression, as CuPy allows (issue 14,
//! finding 7: `"y = a + T(5)"` and `"x * T(2)"` were InvalidShader, the template's own
//! alias `T` shadowing the user's). Each dtype against an f64 CPU reference, on random data,
//! sizes 0, 1 and primes, axes and a transposed view.

#[macro_use]
mod common;

use common::*;
use gpuarray::custom::ReductionKernel;
use gpuarray::{Array, Error};

/// Random values for `T`: integers in [-100, 100], floats in [-2, 2].
fn values<T: Ty>(rng: &mut Rng, n: usize) -> Vec<f64> {
    if T::FLOAT {
        rng.vec(n, -2.0, 2.0)
    } else {
        rng.ints(n, -100, 100)
    }
}

/// `v` rounded to the accumulator of `T` (f32 for f16 and f32, else `T` itself).
fn acc<T: Ty>(v: f64) -> f64 {
    if T::FLOAT && T::EPS > f32::EPSILON as f64 / 2.0 {
        v as f32 as f64
    } else {
        T::wrap(v)
    }
}

/// Tolerance of a tree sum of `terms` (in the accumulator, f32 for f16), rounded to `T`.
fn sum_tol<T: Ty>(terms: &[f64]) -> (f64, f64) {
    if !T::FLOAT {
        return (0.0, 0.0);
    }
    let acc_eps = T::EPS.min(f32::EPSILON as f64);
    let bound: f64 = terms.iter().map(|t| t.abs()).sum();
    (16.0 * acc_eps * bound + 1e-12, T::EPS)
}

/// `y = 5 + sum(2 x)`, the placeholder in the map, the post-map and the identity; and
/// `y = max(|x| + 1) - 1` with it in the combination.
fn placeholder_in_every_expression<T: Ty>() {
    let dev = dev();
    let twice = ReductionKernel::new(
        dev,
        "T x",
        "T y",
        "x * T(2)",
        "a + b",
        "y = a + T(5)",
        "T(0)",
        "twice_plus_5",
    )
    .unwrap();
    let maxabs = ReductionKernel::new(
        dev,
        "T x",
        "T y",
        "abs(x) + T(1)",
        "max(a, b) * T(1)",
        "y = a - T(1)",
        "T(0)",
        "maxabs",
    )
    .unwrap();
    let mut rng = Rng::new(7);
    for n in [0usize, 1, 7, 1009] {
        let (x, xs) = upload::<T>(dev, &values::<T>(&mut rng, n), &[n]);
        let terms: Vec<f64> = xs.iter().map(|v| 2.0 * v).collect();
        let want = 5.0 + terms.iter().sum::<f64>();
        let (atol, rtol) = sum_tol::<T>(&terms);
        let got = twice
            .call::<T, T>(&x)
            .unwrap()
            .to_scalar()
            .unwrap()
            .to_f64();
        assert_close(&[got], &[T::wrap(want)], atol, rtol);
        // Over nothing: post_map(identity) = 0 - 1; else the largest |x|, through the
        // accumulator's roundings.
        let top = xs
            .iter()
            .map(|v| acc::<T>(v.abs() + 1.0))
            .fold(0.0, f64::max);
        let want = T::wrap(acc::<T>(top - 1.0));
        let got = maxabs
            .call::<T, T>(&x)
            .unwrap()
            .to_scalar()
            .unwrap()
            .to_f64();
        assert_close(&[got], &[want], 0.0, 0.0);
    }
    // Along each axis of a [7, 13] array and of its transposed view.
    let (m, ms) = upload::<T>(dev, &values::<T>(&mut rng, 91), &[7, 13]);
    for (a, rows, cols, at) in [(m.clone(), 7, 13, false), (m.t(), 13, 7, true)] {
        let a: Array<T> = a;
        let elem = |r: usize, c: usize| if at { ms[c * 13 + r] } else { ms[r * 13 + c] };
        for axis in [0, 1] {
            let (outs, len) = if axis == 0 {
                (cols, rows)
            } else {
                (rows, cols)
            };
            let got = host(&twice.call_axis::<T, T>(&a, axis, false).unwrap());
            let mut want = Vec::new();
            let mut terms = Vec::new();
            for o in 0..outs {
                let t: Vec<f64> = (0..len)
                    .map(|k| 2.0 * if axis == 0 { elem(k, o) } else { elem(o, k) })
                    .collect();
                want.push(T::wrap(5.0 + t.iter().sum::<f64>()));
                terms.extend(t);
            }
            let (atol, rtol) = sum_tol::<T>(&terms);
            assert_close(&got, &want, atol, rtol);
        }
    }
}

#[test]
fn placeholder_f32() {
    placeholder_in_every_expression::<f32>();
}

#[test]
fn placeholder_i32() {
    placeholder_in_every_expression::<i32>();
}

#[test]
fn placeholder_u32_products() {
    // Another placeholder name, a product with identity V(1).
    let k = ReductionKernel::new(
        dev(),
        "V x",
        "V y",
        "x % V(3) + V(1)",
        "a * b",
        "y = a",
        "V(1)",
        "prod",
    )
    .unwrap();
    let mut rng = Rng::new(11);
    for n in [0usize, 1, 13] {
        let (x, xs) = upload::<u32>(dev(), &rng.ints(n, 0, 1000), &[n]);
        let want: f64 = xs.iter().map(|v| v % 3.0 + 1.0).product();
        let got = k.call::<u32, u32>(&x).unwrap().to_scalar().unwrap();
        assert_eq!(got as f64, want, "n = {n}");
    }
}

#[test]
fn placeholder_f16() {
    if_supported::<gpuarray::f16>(placeholder_in_every_expression::<gpuarray::f16>);
}

#[test]
fn placeholder_f64() {
    if_supported::<f64>(placeholder_in_every_expression::<f64>);
}

/// Names of the template stay reserved, with a clear error; an identity that is not a
/// number (or a conversion of one to a known type) is refused.
#[test]
fn template_names_and_bad_identities_are_refused() {
    for (params, identity) in [("E x", "0"), ("T x", "W(0)"), ("T x", "T(zero)")] {
        let r = ReductionKernel::new(dev(), params, "T y", "x", "a + b", "y = a", identity, "k");
        assert!(
            matches!(r, Err(Error::InvalidShader { .. })),
            "{params}, {identity}: {r:?}"
        );
    }
    // A placeholder only the output has names the output's type.
    let k = ReductionKernel::new(
        dev(),
        "i32 x",
        "U y",
        "x",
        "a + b",
        "y = a + U(1)",
        "U(0)",
        "k",
    )
    .unwrap();
    let x = dev().from_slice(&[1i32, 2, 3], [3]).unwrap();
    assert_eq!(k.call::<i32, i32>(&x).unwrap().to_scalar().unwrap(), 7);
}
