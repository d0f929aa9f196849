//! The complex kernels' two paths: two complex numbers an invocation (vec4 loads and
//! stores, where every operand is contiguous with an even length and an even offset) and
//! one (odd lengths, odd offsets, strided and broadcast operands). Each function is checked
//! on both against num-complex's on `Complex<f64>`, within the tolerance of math.rs (K = 8
//! per component: K (ulp(w_c) + eps |w|)), `abs` within 4 ulp, copies bit for bit, and
//! the two paths against each other bit for bit (tan and tanh only so: their formulas are
//! unchanged, and math.rs bounds them on its own sample; on this larger one complex128's
//! tanh meets points near its poles where num-complex's reference formula cancels and
//! misses by about 45 ulps: poles.rs bounds them against a 320-bit reference); lengths 0
//! to 4, one past a workgroup's pairs (513), a prime (1031) and their doubles; Annex G's
//! special values of exp and abs in both paths.

use gpuarray::{Array, Complex, ComplexOps, Device};

use crate::common::{dev, Rng};
use crate::{pairs, same_bits};

type C64 = Complex<f64>;

/// Lengths that take both paths: odd ones (single), even ones (pairs), past a workgroup.
const LENGTHS: [usize; 9] = [0, 1, 2, 3, 4, 513, 1026, 1031, 2062];

/// `|g - w| <= k (ulp(w) + eps |z|)` per component (`eps`, `tiny`: the component type's
/// epsilon and smallest normal), exact where the reference is not finite.
fn close(g: C64, w: C64, k: f64, eps: f64, tiny: f64, what: &str) {
    let norm = w.norm();
    for (gc, wc) in [(g.re, w.re), (g.im, w.im)] {
        if !wc.is_finite() {
            assert!(
                gc == wc || (gc.is_nan() && wc.is_nan()),
                "{what}: {g} vs {w}"
            );
            continue;
        }
        let ulp = (wc.abs() * eps * 2.0).max(tiny * eps * 2.0);
        let bound = k * (ulp + if norm.is_finite() { eps * norm } else { 0.0 });
        assert!(
            (gc - wc).abs() <= bound,
            "{what}: {g} vs {w} (bound {bound:e})"
        );
    }
}

/// Uploads `n + 1` values and returns the views of the first `n` (offset 0) and the last
/// `n` (offset 1), with their values.
fn both_offsets<C: gpuarray::ComplexFloat>(d: &Device, v: &[C]) -> [(Array<C>, Vec<C>); 2] {
    let n = v.len() - 1;
    let x = d.from_slice(v, [n + 1]).unwrap();
    [
        (x.slice_axis(0, 0..n).unwrap(), v[..n].to_vec()),
        (x.slice_axis(0, 1..n + 1).unwrap(), v[1..].to_vec()),
    ]
}

macro_rules! per_type {
    ($m:ident, $c:ty, $r:ty) => {
        mod $m {
            use super::*;

            const EPS: f64 = <$r>::EPSILON as f64 / 2.0;
            const TINY: f64 = <$r>::MIN_POSITIVE as f64;

            fn random(rng: &mut Rng, n: usize, r: f64) -> Vec<$c> {
                (0..n)
                    .map(|_| <$c>::new(rng.uniform(-r, r) as $r, rng.uniform(-r, r) as $r))
                    .collect()
            }

            fn wide(v: &[$c]) -> Vec<C64> {
                pairs(v).into_iter().map(|(a, b)| C64::new(a, b)).collect()
            }

            fn check(got: &Array<$c>, want: &[C64], k: f64, what: &str) {
                let g = wide(&got.to_vec().unwrap());
                assert_eq!(g.len(), want.len(), "{what}");
                for (i, (&g, &w)) in g.iter().zip(want).enumerate() {
                    close(g, w, k, EPS, TINY, &format!("{what}[{i}]"));
                }
            }

            fn gate() -> bool {
                if !dev().supports::<$c>() {
                    crate::common::skip(concat!(stringify!($m), ": the adapter lacks f64"));
                    return false;
                }
                true
            }

            #[test]
            fn functions_on_both_paths() {
                if !gate() {
                    return;
                }
                let mut rng = Rng::new(41);
                type F = fn(&Array<$c>) -> Array<$c>;
                type R = fn(C64) -> C64;
                let unary: [(&str, F, R, f64); 9] = [
                    ("exp", |x| x.exp().unwrap(), |z| z.exp(), 8.0),
                    ("sin", |x| x.sin().unwrap(), |z| z.sin(), 8.0),
                    ("cos", |x| x.cos().unwrap(), |z| z.cos(), 8.0),
                    ("sinh", |x| x.sinh().unwrap(), |z| z.sinh(), 8.0),
                    ("cosh", |x| x.cosh().unwrap(), |z| z.cosh(), 8.0),
                    ("log", |x| x.log().unwrap(), |z| z.ln(), 8.0),
                    ("sqrt", |x| x.sqrt().unwrap(), |z| z.sqrt(), 8.0),
                    ("square", |x| x.square().unwrap(), |z| z * z, 8.0),
                    ("copy", |x| x.copy().unwrap(), |z| z, 0.0),
                ];
                for n in LENGTHS {
                    let v = random(&mut rng, n + 1, 6.0);
                    let w = random(&mut rng, n + 1, 6.0);
                    let xs = both_offsets(dev(), &v);
                    let ys = both_offsets(dev(), &w);
                    for (offset, ((x, xv), (y, yv))) in xs.iter().zip(&ys).enumerate() {
                        let (wx, wy) = (wide(xv), wide(yv));
                        let at = format!("n={n} offset={offset}");
                        if offset == 0 && n > 1 {
                            // Both paths compute the same function, bit for bit: the pairs
                            // of the first view against the single kernels of the second
                            // (the same values one place on).
                            let other = &xs[1].0;
                            let same_only: [(&str, F); 2] = [
                                ("tanh", |x| x.tanh().unwrap()),
                                ("tan", |x| x.tan().unwrap()),
                            ];
                            let all = unary.iter().map(|u| (u.0, u.1)).chain(same_only);
                            for (name, f) in all {
                                let p = pairs(&f(x).to_vec().unwrap());
                                let q = pairs(&f(other).to_vec().unwrap());
                                for i in 1..n {
                                    let (a, b) = (p[i], q[i - 1]);
                                    let same = |u: f64, v: f64| {
                                        u.to_bits() == v.to_bits() || (u.is_nan() && v.is_nan())
                                    };
                                    assert!(
                                        same(a.0, b.0) && same(a.1, b.1),
                                        "{name} n={n} [{i}]: pairs {a:?}, single {b:?}"
                                    );
                                }
                            }
                        }
                        for (name, f, r, k) in unary {
                            let want: Vec<C64> = wx.iter().map(|&z| r(z)).collect();
                            check(&f(x), &want, k, &format!("{name} {at}"));
                        }
                        let prod: Vec<C64> = wx.iter().zip(&wy).map(|(&a, &b)| a * b).collect();
                        check(&x.mul(y).unwrap(), &prod, 8.0, &format!("mul {at}"));
                        let quot: Vec<C64> = wx.iter().zip(&wy).map(|(&a, &b)| a / b).collect();
                        check(&x.div(y).unwrap(), &quot, 8.0, &format!("div {at}"));
                        let s = <$c>::new(0.5, -1.5);
                        let ws = C64::new(0.5, -1.5);
                        let scaled: Vec<C64> = wx.iter().map(|&a| a * ws).collect();
                        check(
                            &x.mul_scalar(s).unwrap(),
                            &scaled,
                            8.0,
                            &format!("mul_scalar {at}"),
                        );
                        let m = x.abs().unwrap().to_vec().unwrap();
                        assert_eq!(m.len(), n);
                        for (i, (&g, z)) in m.iter().zip(&wx).enumerate() {
                            let want = z.norm();
                            let ulp = (want * EPS * 2.0).max(TINY * EPS * 2.0);
                            assert!(
                                (g as f64 - want).abs() <= 4.0 * ulp,
                                "abs {at} [{i}]: {g} vs {want}"
                            );
                        }
                        same_bits(
                            &x.copy().unwrap().to_vec().unwrap(),
                            xv,
                            &format!("copy {at}"),
                        );
                    }
                }
            }

            #[test]
            fn abs_edges_and_special_values() {
                if !gate() {
                    return;
                }
                let (inf, nan) = (<$r>::INFINITY, <$r>::NAN);
                let max = <$r>::MAX;
                let sub = <$r>::MIN_POSITIVE / 8.0;
                // The edges of the one-root path (2^-50 and 2^50 for complex64, 2^-450 and
                // 2^450 for complex128) and just past them, huge, tiny and subnormal parts.
                let e: i32 = if <$r>::MANTISSA_DIGITS == 24 { 50 } else { 450 };
                let lo = (2.0 as $r).powi(-e);
                let hi = (2.0 as $r).powi(e);
                let mut parts: Vec<($r, $r)> = vec![
                    (0.0, 0.0),
                    (-0.0, 0.0),
                    (3.0, -4.0),
                    (lo, lo),
                    (lo * 0.75, lo * 0.5),
                    (hi, hi),
                    (hi * 1.25, -hi),
                    (hi, lo),
                    (lo, sub),
                    (sub, sub),
                    (-sub, 0.0),
                    (max, max),
                    (max / 2.0, max / 4.0),
                    (1e-30, 1e-31),
                    (inf, nan),
                    (nan, -inf),
                    (nan, 1.0),
                    (1.0, nan),
                    (-inf, 2.0),
                    (1.0, 0.0),
                ];
                let mut rng = Rng::new(43);
                // Random magnitudes over the whole exponent range.
                let span = if e == 50 { 120.0 } else { 1000.0 };
                for _ in 0..200 {
                    let a = (rng.uniform(-1.0, 1.0) * (2f64).powf(rng.uniform(-span, span))) as $r;
                    let b = (rng.uniform(-1.0, 1.0) * (2f64).powf(rng.uniform(-span, span))) as $r;
                    parts.push((a, b));
                }
                let v: Vec<$c> = parts.iter().map(|&(a, b)| <$c>::new(a, b)).collect();
                let flushes = if e == 50 {
                    dev().info().flushes_subnormals.f32 == Some(true)
                } else {
                    dev().info().flushes_subnormals.f64 == Some(true)
                };
                for (x, xv) in both_offsets(dev(), &v) {
                    let got = x.abs().unwrap().to_vec().unwrap();
                    for (g, z) in got.iter().zip(&xv) {
                        let (a, b) = (z.re as f64, z.im as f64);
                        let g = *g as f64;
                        if a.is_infinite() || b.is_infinite() {
                            assert_eq!(g, f64::INFINITY, "abs({z})");
                        } else if a.is_nan() || b.is_nan() {
                            assert!(g.is_nan(), "abs({z}) = {g}");
                        } else {
                            let want = a.hypot(b);
                            let want_r = want as $r as f64;
                            if want_r.is_infinite() {
                                assert_eq!(g, want_r, "abs({z})");
                            } else if flushes && want < TINY {
                                assert!(g == 0.0 || (g - want).abs() <= TINY, "abs({z}) = {g}");
                            } else {
                                let ulp = (want * EPS * 2.0).max(TINY * EPS * 2.0);
                                assert!(
                                    (g - want).abs() <= 4.0 * ulp,
                                    "abs({z}) = {g}, want {want}"
                                );
                            }
                        }
                    }
                }
            }

            #[test]
            fn exp_special_values_on_both_paths() {
                if !gate() {
                    return;
                }
                let (inf, nan) = (f64::INFINITY, f64::NAN);
                // Annex G (and NumPy): (input, output); NaN components match any NaN.
                let cases: [(f64, f64, f64, f64); 12] = [
                    (0.0, 0.0, 1.0, 0.0),
                    (-0.0, -0.0, 1.0, -0.0),
                    (inf, 0.0, inf, 0.0),
                    (-inf, 0.0, 0.0, 0.0),
                    (inf, nan, inf, nan),
                    (-inf, nan, 0.0, 0.0),
                    (nan, 0.0, nan, 0.0),
                    (nan, 1.0, nan, nan),
                    (1.0, inf, nan, nan),
                    (-inf, inf, 0.0, 0.0),
                    (inf, 1.0, inf * 1f64.cos(), inf * 1f64.sin()),
                    (-inf, 1.0, 0.0 * 1f64.cos(), 0.0 * 1f64.sin()),
                ];
                // Each case at both parities of its position (so in both halves of a pair).
                let mut v: Vec<$c> = Vec::new();
                for c in cases.iter().chain(&cases) {
                    v.push(<$c>::new(c.0 as $r, c.1 as $r));
                }
                v.insert(12, <$c>::new(0.25, 0.25)); // shifts the second copy by one
                for (x, xv) in both_offsets(dev(), &v) {
                    let got = pairs(&x.exp().unwrap().to_vec().unwrap());
                    for (g, z) in got.iter().zip(&xv) {
                        let Some(c) = cases.iter().find(|c| {
                            (c.0 as $r).to_bits() == z.re.to_bits()
                                && (c.1 as $r).to_bits() == z.im.to_bits()
                        }) else {
                            continue;
                        };
                        for (gc, wc) in [(g.0, c.2), (g.1, c.3)] {
                            let ok = if wc.is_nan() {
                                gc.is_nan()
                            } else if wc == 0.0 || wc.is_infinite() {
                                gc.to_bits() == wc.to_bits()
                            } else {
                                (gc - wc).abs() <= 4.0 * wc.abs() * EPS * 2.0
                            };
                            assert!(ok, "exp({z}) = {g:?}, want ({}, {})", c.2, c.3);
                        }
                    }
                }
            }
        }
    };
}

per_type!(c64, Complex<f32>, f32);
per_type!(c128, Complex<f64>, f64);
