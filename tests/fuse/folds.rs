//! Expressions a driver may fold when it is not told to keep signed zeros, infinities and
//! NaN (naga emits no SignedZeroInfNanPreserve): `x - x`, `x + (-x)`, `x * 0`, `x + 0`,
//! `x * x - x * x`, `(x + y) - (y + x)`, fused and unfused, must give IEEE's results for NaN,
//! ±inf and ±0 inputs (lavapipe folded the fused ones to 0 before). Also the elementwise
//! library inside a fused reduction, whose opaque zero the reduction's parameters had
//! overwritten.

// The point of these cases is expressions with equal operands.
#![allow(clippy::eq_op)]

use crate::common::{dev, host, if_supported};
use gpuarray::custom::{fuse, Var};
use gpuarray::{f16, Array, Float};

const SPECIAL: [f64; 7] = [
    f64::NAN,
    f64::INFINITY,
    f64::NEG_INFINITY,
    -0.0,
    0.0,
    2.5,
    -3.0,
];

fn same(a: f64, b: f64) -> bool {
    a.to_bits() == b.to_bits() || (a.is_nan() && b.is_nan())
}

type Case = (&'static str, fn(Var) -> Var, fn(f64) -> f64);

const CASES: [Case; 8] = [
    ("x - x", |x| x - x, |x| x - x),
    ("x + (-x)", |x| x + (-x), |x| x + (-x)),
    ("x / x", |x| x / x, |x| x / x),
    ("x * 0", |x| x * 0.0, |x| x * 0.0),
    ("x + 0", |x| x + 0.0, |x| x + 0.0),
    ("x * x - x * x", |x| x * x - x * x, |x| x * x - x * x),
    (
        "(x + 1) - (1 + x)",
        |x| (x + 1.0) - (1.0 + x),
        |x| (x + 1.0) - (1.0 + x),
    ),
    ("0 * x + x", |x| 0.0 * x + x, |x| 0.0 * x + x),
];

/// Every case on the special values in dtype `T`, against the same arithmetic in f64
/// (exact here: the values are small integers, zeros, infinities and NaN).
fn fused_cases<T: Float>() {
    let xs: Vec<T> = SPECIAL.iter().map(|&v| T::from_f64(v)).collect();
    let x = dev().from_slice(&xs, [xs.len()]).unwrap();
    let mut bad = Vec::new();
    for (name, f, want) in CASES {
        let got = host(&fuse(dev(), |[x]| f(x)).unwrap().call::<T>(&[&x]).unwrap());
        for (k, &v) in SPECIAL.iter().enumerate() {
            if !same(got[k], want(v)) {
                bad.push(format!(
                    "{:?} {name} at {v}: {} want {}",
                    T::DTYPE,
                    got[k],
                    want(v)
                ));
            }
        }
    }
    assert!(bad.is_empty(), "{bad:#?}");
}

#[test]
fn fused_self_operations_keep_nan_inf_and_signed_zero() {
    fused_cases::<f32>();
    if_supported::<f64>(fused_cases::<f64>);
    if_supported::<f16>(fused_cases::<f16>);
}

#[test]
fn unfused_self_operations_keep_nan_inf_and_signed_zero() {
    let xs: Vec<f32> = SPECIAL.iter().map(|&v| v as f32).collect();
    let x = dev().from_slice(&xs, [xs.len()]).unwrap();
    let checks = [
        ("sub", host(&x.sub(&x).unwrap()), SPECIAL.map(|v| v - v)),
        ("div", host(&x.div(&x).unwrap()), SPECIAL.map(|v| v / v)),
        (
            "mul_scalar 0",
            host(&x.mul_scalar(0.0).unwrap()),
            SPECIAL.map(|v| v * 0.0),
        ),
        (
            "add_scalar 0",
            host(&x.add_scalar(0.0).unwrap()),
            SPECIAL.map(|v| v + 0.0),
        ),
        (
            "add neg",
            host(&x.add(&x.neg().unwrap()).unwrap()),
            SPECIAL.map(|v| v + -v),
        ),
    ];
    for (name, got, want) in checks {
        for (i, &v) in SPECIAL.iter().enumerate() {
            assert!(
                same(got[i], want[i]),
                "{name} at {v}: {} want {}",
                got[i],
                want[i]
            );
        }
    }
}

/// The library's corrected division (f32, through opaque_) and f64's exp and log1p
/// (through one64_) inside a fused reduction: max is order-free, so it must equal the
/// unfused chain's bit for bit; the f64 sum within rounding of the f64 reference.
#[test]
fn library_functions_inside_a_fused_reduction() {
    let xs: Vec<f32> = (1..=37).map(|k| k as f32 * 0.37).collect();
    let x = dev().from_slice(&xs, [37]).unwrap();
    let y = dev().from_slice(&[3.1f32], [1]).unwrap();
    let fused = fuse(dev(), |[x, y]| (x / y).max()).unwrap();
    let got = host(&fused.call::<f32>(&[&x, &y]).unwrap());
    let unfused = host(&x.div(&y).unwrap().max().unwrap());
    assert!(same(got[0], unfused[0]), "{} vs {}", got[0], unfused[0]);
    if_supported::<f64>(|| {
        let xs: Vec<f64> = (1..=37).map(|k| k as f64 * 0.1).collect();
        let x: Array<f64> = dev().from_slice(&xs, [37]).unwrap();
        let f = fuse(dev(), |[x]| x.exp().log1p().sum()).unwrap();
        let got = host(&f.call::<f64>(&[&x]).unwrap())[0];
        let want: f64 = xs.iter().map(|v| v.exp().ln_1p()).sum();
        assert!((got - want).abs() <= 1e-13 * want, "{got} vs {want}");
    });
}

/// A fused reduction with four scalar inputs (their words fill the parameters' scalar
/// slots, one of which the one-kernel reduction uses) takes the two-step path, correctly.
#[test]
fn fused_reduction_with_four_scalars() {
    let x = dev()
        .from_slice(&[1.0f32, 2.0, 3.0, 4.0, 5.0], [5])
        .unwrap();
    let f = fuse(dev(), |[x, a, b, c, e]| (x * a + b * c - e).sum()).unwrap();
    let got = host(
        &f.call::<f32>(&[&x, &2.0f32, &3.0f32, &4.0f32, &1.0f32])
            .unwrap(),
    );
    assert_eq!(got, vec![2.0 * 15.0 + 5.0 * 11.0]);
}
