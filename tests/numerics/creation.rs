//! f16 `arange` and `linspace` computed in f32 and rounded once, against the values computed
//! in f64 and rounded once to f16. The f32 computation (start + i * step, with the step as
//! two f32 values) errs by at most a few f32 roundings of the operands' magnitudes,
//! 2^-23 (|start| + |i * step|): an element whose f64 value lies that close to a midpoint
//! between two f16 values may take either neighbour (counted and printed); every other
//! element must be the f64 value rounded once.

use gpuarray::f16;

use crate::common::{dev, Rng};

/// Whether `v` lies within `err` of a midpoint between two f16 values.
fn near_tie(v: f64, err: f64) -> bool {
    let r = f16::from_f64(v);
    let bits = r.to_bits() & 0x7fff;
    let sign = if v < 0.0 { -1.0 } else { 1.0 };
    [bits.saturating_sub(1), bits + 1].iter().any(|&b| {
        let mid = (r.to_f64() + sign * f16::from_bits(b).to_f64()) / 2.0;
        (v - mid).abs() <= err
    })
}

/// Asserts `got` equals each `exact` value rounded once to f16, but within `err(i)` of a tie;
/// returns the number of elements that took the other neighbour there.
#[track_caller]
fn check(what: &str, got: &[f16], exact: &[f64], err: &dyn Fn(usize) -> f64) -> usize {
    assert_eq!(got.len(), exact.len(), "{what}: length");
    let mut ties = 0;
    for (i, (&g, &e)) in got.iter().zip(exact).enumerate() {
        let want = f16::from_f64(e);
        if g.to_bits() == want.to_bits() {
            continue;
        }
        assert!(
            near_tie(e, err(i)),
            "{what}[{i}]: got {g}, expected {want} ({e})"
        );
        ties += 1;
    }
    ties
}

/// Finding 9 of issue 15: `linspace(64.8125, -70.5, 7)[3]` was -2.8125 (NumPy -2.84375).
#[test]
fn f16_linspace_finding_9() {
    require_dtype!(f16);
    let a = dev()
        .linspace(f16::from_f32(64.8125), f16::from_f32(-70.5), 7)
        .unwrap();
    assert_eq!(a.to_vec().unwrap()[3].to_f32(), -2.84375);
}

#[test]
fn f16_linspace_and_arange_round_once() {
    require_dtype!(f16);
    let mut rng = Rng::new(9);
    let mut ties = 0;
    let mut total = 0;
    for case in 0..300 {
        let a = f16::from_f64(rng.uniform(-1000.0, 1000.0));
        let b = f16::from_f64(rng.uniform(-1000.0, 1000.0));
        let num = [0, 1, 2, 3, 7, 100, 1001][case % 7];
        let got = dev().linspace(a, b, num).unwrap().to_vec().unwrap();
        let step = if num > 1 {
            (b.to_f64() - a.to_f64()) / (num - 1) as f64
        } else {
            0.0
        };
        let mut exact: Vec<f64> = (0..num).map(|i| a.to_f64() + i as f64 * step).collect();
        if num > 1 {
            exact[num - 1] = b.to_f64();
        }
        let err = |i: usize| 2f64.powi(-23) * (a.to_f64().abs() + (i as f64 * step).abs());
        ties += check(&format!("linspace({a}, {b}, {num})"), &got, &exact, &err);
        total += num;

        let step = f16::from_f64(rng.uniform(0.01, 30.0) * if rng.bool(0.5) { 1.0 } else { -1.0 });
        let got = dev().arange(a, b, step).unwrap().to_vec().unwrap();
        let n = ((b.to_f64() - a.to_f64()) / step.to_f64()).ceil().max(0.0) as usize;
        let exact: Vec<f64> = (0..n)
            .map(|i| a.to_f64() + i as f64 * step.to_f64())
            .collect();
        let err = |i: usize| 2f64.powi(-23) * (a.to_f64().abs() + (i as f64 * step.to_f64()).abs());
        ties += check(&format!("arange({a}, {b}, {step})"), &got, &exact, &err);
        total += n;
    }
    eprintln!("f16 arange/linspace: {total} elements, {ties} near a tie took the other neighbour");
    assert!(total > 10_000);
}
