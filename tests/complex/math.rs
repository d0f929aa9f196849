//! Complex arithmetic and functions against num-complex's on `Complex<f64>` (inputs
//! widened exactly), with C99 Annex G's special values (NumPy's).
//!
//! Tolerances, per component c of a result w (eps = 2^-24 for complex64, 2^-53 for
//! complex128): |got_c - w_c| <= K (ulp(w_c) + eps |w|), K = 8 (16 for tan and tanh, 64
//! for pow through e^(w log z), whose error grows with |w log z|). The second term allows the
//! error relative to the whole number where a component cancels (re = ac - bd of a
//! product, cos near a zero), as every formula-based complex library has it. The largest
//! errors seen are printed.

use gpuarray::{Array, Complex, ComplexFloat, ComplexOps, DType, Error, Real};

use crate::common::{dev, Rng};
use crate::{pairs, upload};

type C64 = Complex<f64>;
/// A named result and its reference function.
type Case<C> = (&'static str, Array<C>, fn(C64, C64) -> C64);

fn eps<C: ComplexFloat>() -> f64 {
    if C::DTYPE == DType::Complex64 {
        f64::powi(2.0, -24)
    } else {
        f64::powi(2.0, -53)
    }
}

/// The spacing of the component type at `x`.
fn ulp<C: ComplexFloat>(x: f64) -> f64 {
    let e = eps::<C>();
    let tiny = if C::DTYPE == DType::Complex64 {
        f32::MIN_POSITIVE as f64
    } else {
        f64::MIN_POSITIVE
    };
    (x.abs() * e * 2.0).max(tiny * e * 2.0)
}

fn widen<C: ComplexFloat>(v: &[C]) -> Vec<C64> {
    pairs(v).into_iter().map(|(a, b)| C64::new(a, b)).collect()
}

/// Checks `got` against `want` within K (ulp + eps |w|) per component; returns the largest
/// error in units of that bound's ulp part.
pub(crate) fn check<C: ComplexFloat>(got: &[C], want: &[C64], k: f64, what: &str) -> f64 {
    assert_eq!(got.len(), want.len(), "{what}: length");
    let mut worst = 0.0f64;
    for (i, (g, w)) in widen(got).iter().zip(want).enumerate() {
        for (gc, wc) in [(g.re, w.re), (g.im, w.im)] {
            if !wc.is_finite() {
                // Overflow of the component type is fine where the reference is huge.
                assert!(
                    gc == wc || (gc.is_nan() && wc.is_nan()),
                    "{what}[{i}]: {g} vs {w}"
                );
                continue;
            }
            let err = (gc - wc).abs();
            let bound = k * (ulp::<C>(wc) + eps::<C>() * w.norm());
            assert!(
                err <= bound,
                "{what}[{i}]: {g} vs {w} (err {err:e}, bound {bound:e})"
            );
            worst = worst.max(err / ulp::<C>(wc));
        }
    }
    worst
}

/// Random numbers with components in [-r, r), as `C` and widened.
fn data<C: ComplexFloat>(rng: &mut Rng, n: usize, r: f64) -> (Vec<C>, Vec<C64>) {
    let v: Vec<C> = (0..n)
        .map(|_| {
            C::new(
                crate::re_of::<C>(rng.uniform(-r, r)),
                crate::re_of::<C>(rng.uniform(-r, r)),
            )
        })
        .collect();
    let w = widen(&v);
    (v, w)
}

fn arithmetic<C: ComplexFloat>() {
    let mut rng = Rng::new(11);
    for n in [0usize, 1, 7, 1031] {
        let (a, wa) = data::<C>(&mut rng, n, 100.0);
        let (b, wb) = data::<C>(&mut rng, n, 100.0);
        let x = dev().from_slice(&a, [n]).unwrap();
        let y = dev().from_slice(&b, [n]).unwrap();
        let cases: [Case<C>; 4] = [
            ("add", x.add(&y).unwrap(), |p, q| p + q),
            ("sub", (&x - &y), |p, q| p - q),
            ("mul", x.mul(&y).unwrap(), |p, q| p * q),
            ("div", (&x / &y), |p, q| p / q),
        ];
        for (name, got, f) in cases {
            let want: Vec<C64> = wa.iter().zip(&wb).map(|(&p, &q)| f(p, q)).collect();
            let worst = check(&got.to_vec().unwrap(), &want, 8.0, name);
            eprintln!("{:?} {name} n={n}: worst {worst:.2} ulp", C::DTYPE);
        }
    }
    // Broadcasting a column against a transposed row view, and scalars on both sides.
    let (x, vx) = upload::<C>(&mut rng, &[5, 1]);
    let (y, vy) = upload::<C>(&mut rng, &[3, 4]);
    let yt = y.t().slice_axis(0, 1..2).unwrap(); // [1, 3], strided
    let got = x.mul(&yt).unwrap();
    assert_eq!(got.shape(), &[5, 3]);
    let (wx, wy) = (widen(&vx), widen(&vy));
    let want: Vec<C64> = (0..15).map(|i| wx[i / 3] * wy[(i % 3) * 4 + 1]).collect();
    check(&got.to_vec().unwrap(), &want, 8.0, "broadcast mul");
    let s = C::new(crate::re_of::<C>(0.5), crate::re_of::<C>(-2.0));
    let ws = C64::new(0.5, -2.0);
    let got = x.div_scalar(s).unwrap().to_vec().unwrap();
    check(
        &got,
        &wx.iter().map(|&p| p / ws).collect::<Vec<_>>(),
        8.0,
        "div_scalar",
    );
    let got = x.rsub_scalar(s).unwrap().to_vec().unwrap();
    check(
        &got,
        &wx.iter().map(|&p| ws - p).collect::<Vec<_>>(),
        8.0,
        "rsub_scalar",
    );
    let got = (&x * s).to_vec().unwrap();
    check(
        &got,
        &wx.iter().map(|&p| p * ws).collect::<Vec<_>>(),
        8.0,
        "* scalar",
    );
    let got = x.reciprocal().unwrap().to_vec().unwrap();
    check(
        &got,
        &wx.iter().map(|&p| p.inv()).collect::<Vec<_>>(),
        8.0,
        "reciprocal",
    );
    let got = x.square().unwrap().to_vec().unwrap();
    check(
        &got,
        &wx.iter().map(|&p| p * p).collect::<Vec<_>>(),
        8.0,
        "square",
    );
    // Smith's division keeps huge and tiny divisors finite where |b|^2 would overflow.
    let big = if C::DTYPE == DType::Complex64 {
        1e30
    } else {
        1e300
    };
    let p = dev()
        .from_slice(
            &[C::new(crate::re_of::<C>(big), crate::re_of::<C>(big))],
            [1],
        )
        .unwrap();
    let q = p.div(&p).unwrap().to_vec().unwrap();
    assert_eq!(pairs(&q), vec![(1.0, 0.0)]);
}

fn functions<C: ComplexFloat>() {
    let mut rng = Rng::new(12);
    let n = 521;
    let (a, wa) = data::<C>(&mut rng, n, 5.0);
    let x = dev().from_slice(&a, [n]).unwrap();
    let unary = |name: &str, got: Array<C>, f: fn(C64) -> C64| {
        let want: Vec<C64> = wa.iter().map(|&z| f(z)).collect();
        // tan and tanh compose more roundings (msun's ctanh): K = 16.
        let k = if name.contains("tan") { 16.0 } else { 8.0 };
        let worst = check(&got.to_vec().unwrap(), &want, k, name);
        eprintln!("{:?} {name}: worst {worst:.2} ulp", C::DTYPE);
    };
    macro_rules! each {
        ($($f:ident),*) => {$(
            match C::DTYPE {
                DType::Complex64 => {
                    let y = x.reinterpret_c64().$f().unwrap();
                    unary(stringify!($f), y.reinterpret_back(), |z| z.$f());
                }
                _ => {
                    let y = x.reinterpret_c128().$f().unwrap();
                    unary(stringify!($f), y.reinterpret_back(), |z| z.$f());
                }
            }
        )*};
    }
    each!(exp, sqrt, sin, cos, tan, sinh, cosh, tanh);
    match C::DTYPE {
        DType::Complex64 => {
            let y = x.reinterpret_c64().log().unwrap();
            unary("log", y.reinterpret_back(), |z| z.ln());
        }
        _ => {
            let y = x.reinterpret_c128().log().unwrap();
            unary("log", y.reinterpret_back(), |z| z.ln());
        }
    }
    // pow: integral powers by squaring, others through exp(w log z).
    let (b, wb) = data::<C>(&mut rng, n, 2.0);
    let y = dev().from_slice(&b, [n]).unwrap();
    let got = x.pow(&y).unwrap().to_vec().unwrap();
    let want: Vec<C64> = wa.iter().zip(&wb).map(|(&p, &q)| p.powc(q)).collect();
    let worst = check(&got, &want, 64.0, "pow");
    eprintln!("{:?} pow: worst {worst:.2} ulp", C::DTYPE);
    let three = C::new(crate::re_of::<C>(3.0), crate::re_of::<C>(0.0));
    let got = x.pow_scalar(three).unwrap().to_vec().unwrap();
    let want: Vec<C64> = wa.iter().map(|&p| p * p * p).collect();
    check(&got, &want, 8.0, "pow 3");
    // abs and angle: real results.
    let (m, g) = match C::DTYPE {
        DType::Complex64 => {
            let z = x.reinterpret_c64();
            (
                z.abs()
                    .unwrap()
                    .to_vec()
                    .unwrap()
                    .iter()
                    .map(|&v| v as f64)
                    .collect::<Vec<_>>(),
                z.angle()
                    .unwrap()
                    .to_vec()
                    .unwrap()
                    .iter()
                    .map(|&v| v as f64)
                    .collect::<Vec<_>>(),
            )
        }
        _ => {
            let z = x.reinterpret_c128();
            (
                z.abs().unwrap().to_vec().unwrap(),
                z.angle().unwrap().to_vec().unwrap(),
            )
        }
    };
    for i in 0..n {
        let (wm, wg) = (wa[i].norm(), wa[i].arg());
        assert!(
            (m[i] - wm).abs() <= 4.0 * ulp::<C>(wm),
            "abs {} vs {wm}",
            m[i]
        );
        assert!(
            (g[i] - wg).abs() <= 4.0 * ulp::<C>(wg),
            "angle {} vs {wg}",
            g[i]
        );
    }
    // conj and the parts.
    let c = x
        .t()
        .reinterpret_cf::<C>()
        .conj()
        .unwrap()
        .to_vec()
        .unwrap();
    assert_eq!(
        pairs(&c),
        wa.iter().map(|z| (z.re, -z.im)).collect::<Vec<_>>()
    );
    let re: Vec<f64> = x
        .real()
        .to_vec()
        .unwrap()
        .iter()
        .map(|v| v.to_f64())
        .collect();
    assert_eq!(re, wa.iter().map(|z| z.re).collect::<Vec<_>>());
}

/// Helpers reading a generic complex array as the concrete types whose methods are
/// written per type (exp, log, ...).
trait Concrete {
    fn reinterpret_c64(&self) -> Array<Complex<f32>>;
    fn reinterpret_c128(&self) -> Array<Complex<f64>>;
    fn reinterpret_cf<C: ComplexFloat>(&self) -> Array<C>;
}

trait Back {
    fn reinterpret_back<C: ComplexFloat>(self) -> Array<C>;
}

impl<T: ComplexFloat> Concrete for Array<T> {
    fn reinterpret_c64(&self) -> Array<Complex<f32>> {
        self.cast().unwrap()
    }
    fn reinterpret_c128(&self) -> Array<Complex<f64>> {
        self.cast().unwrap()
    }
    fn reinterpret_cf<C: ComplexFloat>(&self) -> Array<C> {
        self.cast().unwrap()
    }
}

impl<T: ComplexFloat> Back for Array<T> {
    fn reinterpret_back<C: ComplexFloat>(self) -> Array<C> {
        self.cast().unwrap()
    }
}

/// Annex G's special values (and NumPy's), where C99 fixes them; `None` where only NaN
/// is fixed (any sign).
fn special_values<C: ComplexFloat>() {
    let (inf, nan) = (f64::INFINITY, f64::NAN);
    let pi = std::f64::consts::PI;
    type Case = (f64, f64, f64, f64);
    let exp: &[Case] = &[
        (0.0, 0.0, 1.0, 0.0),
        (-0.0, -0.0, 1.0, -0.0),
        (inf, 0.0, inf, 0.0),
        (inf, nan, inf, nan),
        (nan, 0.0, nan, 0.0),
        (nan, 1.0, nan, nan),
        (1.0, inf, nan, nan),
        (-inf, inf, 0.0, 0.0),
        (-inf, 1.0, 0.0 * 1f64.cos(), 0.0 * 1f64.sin()),
    ];
    let log: &[Case] = &[
        (-0.0, 0.0, -inf, pi),
        (0.0, 0.0, -inf, 0.0),
        (0.0, -0.0, -inf, -0.0),
        (-inf, 1.0, inf, pi),
        (inf, 1.0, inf, 0.0),
        (inf, nan, inf, nan),
        (nan, inf, inf, nan),
        (-inf, inf, inf, 0.75 * pi),
        (1.0, 0.0, 0.0, 0.0),
        (nan, 1.0, nan, nan),
        (1.0, nan, nan, nan),
        (nan, nan, nan, nan),
    ];
    let sqrt: &[Case] = &[
        (0.0, 0.0, 0.0, 0.0),
        (-0.0, -0.0, 0.0, -0.0),
        (1.0, inf, inf, inf),
        (nan, -inf, inf, -inf),
        (-inf, 1.0, 0.0, inf),
        (inf, -1.0, inf, -0.0),
        (inf, nan, inf, nan),
        (nan, 1.0, nan, nan),
        (-4.0, 0.0, 0.0, 2.0),
        (-4.0, -0.0, 0.0, -2.0),
    ];
    let tanh: &[Case] = &[
        (0.0, 0.0, 0.0, 0.0),
        (inf, 1.0, 1.0, 0.0 * (2f64).sin()),
        (-inf, -1.0, -1.0, 0.0 * (-2f64).sin()),
        (nan, 0.0, nan, 0.0),
        (
            50.0,
            0.5,
            1.0,
            4.0 * 0.5f64.sin() * 0.5f64.cos() * (-100f64).exp(),
        ),
    ];
    let cosh: &[Case] = &[
        (0.0, 0.0, 1.0, 0.0),
        (inf, 0.0, inf, 0.0),
        (0.0, inf, nan, 0.0),
    ];
    let sinh: &[Case] = &[
        (0.0, 0.0, 0.0, 0.0),
        (inf, 0.0, inf, 0.0),
        (-0.0, 1.0, -0.0, 1f64.sin()),
    ];
    let run = |name: &str, cases: &[Case], f: &dyn Fn(&Array<C>) -> Array<C>| {
        let input: Vec<C> = cases
            .iter()
            .map(|c| C::new(crate::re_of::<C>(c.0), crate::re_of::<C>(c.1)))
            .collect();
        let got = pairs(
            &f(&dev().from_slice(&input, [cases.len()]).unwrap())
                .to_vec()
                .unwrap(),
        );
        // An adapter that flushes the component type's subnormals (the H200's f32) writes
        // a signed zero where the exact result is subnormal.
        let flushes = if C::DTYPE == gpuarray::DType::Complex64 {
            dev().info().flushes_subnormals.f32 == Some(true)
        } else {
            dev().info().flushes_subnormals.f64 == Some(true)
        };
        let smallest = if C::DTYPE == gpuarray::DType::Complex64 {
            f64::from(f32::MIN_POSITIVE)
        } else {
            f64::MIN_POSITIVE
        };
        for (c, g) in cases.iter().zip(got) {
            for (gc, wc) in [(g.0, c.2), (g.1, c.3)] {
                let ok = if wc.is_nan() {
                    gc.is_nan()
                } else if flushes && wc != 0.0 && wc.abs() < smallest {
                    gc == 0.0 && gc.is_sign_negative() == wc.is_sign_negative()
                } else if wc == 0.0 || wc.is_infinite() {
                    gc.to_bits() == wc.to_bits()
                } else {
                    (gc - wc).abs() <= 4.0 * ulp::<C>(wc)
                };
                assert!(
                    ok,
                    "{name}({} + {}i) = {g:?}, want ({}, {})",
                    c.0, c.1, c.2, c.3
                );
            }
        }
    };
    let is_c64 = C::DTYPE == DType::Complex64;
    macro_rules! f {
        ($m:ident) => {
            &|x: &Array<C>| -> Array<C> {
                if is_c64 {
                    x.reinterpret_c64().$m().unwrap().reinterpret_back()
                } else {
                    x.reinterpret_c128().$m().unwrap().reinterpret_back()
                }
            }
        };
    }
    run("exp", exp, f!(exp));
    run("log", log, f!(log));
    run("sqrt", sqrt, f!(sqrt));
    run("tanh", tanh, f!(tanh));
    run("cosh", cosh, f!(cosh));
    run("sinh", sinh, f!(sinh));
    // Division by zero: a complex infinity or NaN, as NumPy.
    let z = |a: f64, b: f64| C::new(crate::re_of::<C>(a), crate::re_of::<C>(b));
    let num = dev().from_slice(&[z(1.0, 1.0), z(0.0, 0.0)], [2]).unwrap();
    let q = pairs(&num.div_scalar(z(0.0, 0.0)).unwrap().to_vec().unwrap());
    assert_eq!(q[0], (inf, inf));
    assert!(q[1].0.is_nan() && q[1].1.is_nan());
    // pow's special cases (NumPy's).
    let base = dev()
        .from_slice(&[z(0.0, 0.0), z(0.0, 0.0), z(2.0, 0.0), z(5.0, 7.0)], [4])
        .unwrap();
    let expo = dev()
        .from_slice(&[z(2.0, 0.0), z(-1.0, 0.0), z(3.0, 0.0), z(0.0, 0.0)], [4])
        .unwrap();
    let p = pairs(&base.pow(&expo).unwrap().to_vec().unwrap());
    assert_eq!((p[0], p[2], p[3]), ((0.0, 0.0), (8.0, 0.0), (1.0, 0.0)));
    assert!(p[1].0.is_nan() && p[1].1.is_nan());
    // Classification and equality: NaN in either component.
    let v = dev()
        .from_slice(&[z(nan, 0.0), z(0.0, inf), z(1.0, 2.0), z(-inf, nan)], [4])
        .unwrap();
    assert_eq!(
        v.isnan().unwrap().to_vec().unwrap(),
        vec![true, false, false, true]
    );
    assert_eq!(
        v.isinf().unwrap().to_vec().unwrap(),
        vec![false, true, false, true]
    );
    assert_eq!(
        v.isfinite().unwrap().to_vec().unwrap(),
        vec![false, false, true, false]
    );
    assert_eq!(
        v.eq(&v).unwrap().to_vec().unwrap(),
        vec![false, true, true, false]
    );
    assert_eq!(
        v.ne(&v).unwrap().to_vec().unwrap(),
        vec![true, false, false, true]
    );
    let w = dev().from_slice(&[z(1.0, 2.0)], [1]).unwrap();
    assert_eq!(
        v.eq(&w).unwrap().to_vec().unwrap(),
        vec![false, false, true, false]
    );
    assert_eq!(
        v.eq_scalar(z(0.0, inf)).unwrap().to_vec().unwrap(),
        vec![false, true, false, false]
    );
    let _ = Real::to_f64(0.0f32);
}

/// Parts, assembly and creation: `complex(re, im)` broadcasts, `real`/`imag` are views.
fn parts<C: ComplexFloat>() {
    let mut rng = Rng::new(13);
    let re = dev()
        .from_slice(&[1.0f64, -2.0, 3.5].map(crate::re_of::<C>), [3, 1])
        .unwrap();
    let im = dev()
        .from_slice(&[0.25f64, -0.0].map(crate::re_of::<C>), [1, 2])
        .unwrap();
    let z: Array<C> = Array::complex(&re, &im).unwrap();
    assert_eq!(z.shape(), &[3, 2]);
    let got = pairs(&z.to_vec().unwrap());
    for (i, g) in got.iter().enumerate() {
        let want: (f64, f64) = ([1.0, -2.0, 3.5][i / 2], [0.25, -0.0][i % 2]);
        assert_eq!(
            (g.0.to_bits(), g.1.to_bits()),
            (want.0.to_bits(), want.1.to_bits())
        );
    }
    let bad = dev()
        .from_slice(&[crate::re_of::<C>(1.0); 4], [4, 1])
        .unwrap();
    assert!(matches!(
        Array::<C>::complex(&re, &bad),
        Err(Error::Broadcast { .. }) | Err(Error::ShapeMismatch { .. })
    ));
    let (x, v) = upload::<C>(&mut rng, &[4, 3]);
    let im = x.t().imag();
    let want: Vec<f64> = (0..12)
        .map(|i| v[(i % 4) * 3 + i / 4].im().to_f64())
        .collect();
    let got: Vec<f64> = im.to_vec().unwrap().iter().map(|a| a.to_f64()).collect();
    assert_eq!(got, want);
    // Writing through the view changes the array.
    x.real().fill(crate::re_of::<C>(0.0)).unwrap();
    assert!(x.to_vec().unwrap().iter().all(|z| z.re().to_f64() == 0.0));
}

fn reductions<C: ComplexFloat>() {
    let mut rng = Rng::new(14);
    for shape in [vec![0usize, 3], vec![1, 1], vec![13, 7], vec![300, 5]] {
        let (x, v) = upload::<C>(&mut rng, &shape);
        let w = widen(&v);
        let (r, c) = (shape[0], shape[1]);
        let xt = x.t(); // [c, r]
        let sum_r: Vec<C64> = (0..c).map(|j| (0..r).map(|i| w[i * c + j]).sum()).collect();
        let tol = |n: usize| 8.0 * (n.max(1) as f64).log2().max(1.0);
        let got = xt.sum_axis(1, false).unwrap().to_vec().unwrap();
        let bound: Vec<C64> = sum_r.clone();
        // Sums: error relative to sum |x| (components in [-10, 10)).
        for (g, want) in widen(&got).iter().zip(&bound) {
            let e = (g - want).norm();
            assert!(
                e <= tol(r) * eps::<C>() * 20.0 * r as f64 + 1e-300,
                "sum {g} vs {want}"
            );
        }
        let mean = xt.cast::<C>().unwrap();
        let _ = mean;
        let total: C64 = w.iter().sum();
        let g = widen(&[x.sum().unwrap().to_scalar().unwrap()])[0];
        assert!((g - total).norm() <= tol(r * c) * eps::<C>() * 20.0 * (r * c) as f64 + 1e-300);
        // prod of a small column: factors of modulus near 1.
        if r > 0 {
            let f: Vec<C> = (0..r * c)
                .map(|_| {
                    let t = rng.uniform(-3.0, 3.0);
                    let m = rng.uniform(0.9, 1.1);
                    C::new(
                        crate::re_of::<C>(m * t.cos()),
                        crate::re_of::<C>(m * t.sin()),
                    )
                })
                .collect();
            let y = dev().from_slice(&f, shape.clone()).unwrap();
            let wf = widen(&f);
            let got = widen(&y.prod_axis(0, true).unwrap().to_vec().unwrap());
            for j in 0..c {
                let want: C64 = (0..r).map(|i| wf[i * c + j]).product();
                let e = (got[j] - want).norm();
                assert!(
                    e <= 8.0 * (r as f64) * eps::<C>() * want.norm().max(1e-30),
                    "prod {} vs {want}",
                    got[j]
                );
            }
        }
    }
    let mean = match C::DTYPE {
        DType::Complex64 => {
            let z = dev()
                .from_slice(&[Complex::new(1.0f32, 2.0), Complex::new(2.0, 0.0)], [2])
                .unwrap();
            let m = z.mean().unwrap().to_scalar().unwrap();
            (m.re as f64, m.im as f64)
        }
        _ => {
            let z = dev()
                .from_slice(&[Complex::new(1.0f64, 2.0), Complex::new(2.0, 0.0)], [2])
                .unwrap();
            let m = z.mean().unwrap().to_scalar().unwrap();
            (m.re, m.im)
        }
    };
    assert_eq!(mean, (1.5, 1.0));
}

fn products<C: ComplexFloat>() {
    let mut rng = Rng::new(15);
    for (m, k, n) in [
        (1usize, 1usize, 1usize),
        (7, 5, 3),
        (33, 65, 17),
        (70, 3, 129),
    ] {
        let (a, va) = upload::<C>(&mut rng, &[m, k]);
        let (b, vb) = upload::<C>(&mut rng, &[n, k]);
        let (wa, wb) = (widen(&va), widen(&vb));
        // a @ b.T, the right operand a transposed view.
        let got = widen(&a.matmul(&b.t()).unwrap().to_vec().unwrap());
        for i in 0..m {
            for j in 0..n {
                let want: C64 = (0..k).map(|q| wa[i * k + q] * wb[j * k + q]).sum();
                let scale: f64 = (0..k)
                    .map(|q| wa[i * k + q].norm() * wb[j * k + q].norm())
                    .sum();
                let e = (got[i * n + j] - want).norm();
                assert!(
                    e <= 4.0 * (k as f64 + 2.0) * eps::<C>() * scale,
                    "matmul {m}x{k}x{n} [{i},{j}]"
                );
            }
        }
    }
    // Batched with broadcasting, 1-D operands, dot, vdot, outer.
    let (a, va) = upload::<C>(&mut rng, &[2, 3, 4]);
    let (v, vv) = upload::<C>(&mut rng, &[4]);
    let got = widen(&a.matmul(&v).unwrap().to_vec().unwrap());
    let (wa, wv) = (widen(&va), widen(&vv));
    for r in 0..6 {
        let want: C64 = (0..4).map(|q| wa[r * 4 + q] * wv[q]).sum();
        assert!((got[r] - want).norm() <= 1e-4 * want.norm().max(1.0));
    }
    let d = widen(&[v.dot(&v).unwrap().to_scalar().unwrap()])[0];
    let want: C64 = wv.iter().map(|z| z * z).sum();
    assert!((d - want).norm() <= 1e-4 * want.norm().max(1.0));
    let d = widen(&[v.vdot(&v).unwrap().to_scalar().unwrap()])[0];
    let want: f64 = wv.iter().map(|z| z.norm_sqr()).sum();
    assert!(
        (d.re - want).abs() <= 1e-5 * want && d.im.abs() <= 1e-5 * want,
        "vdot {d}"
    );
    let o = widen(&v.outer(&v.flip(0).unwrap()).unwrap().to_vec().unwrap());
    for i in 0..4 {
        for j in 0..4 {
            let want = wv[i] * wv[3 - j];
            assert!((o[i * 4 + j] - want).norm() <= 1e-5 * want.norm());
        }
    }
    assert!(matches!(a.matmul(&a), Err(Error::ShapeMismatch { .. })));
}

/// The families generic over `Element` that need an order or real words refuse complex
/// arrays with a typed error, and leave them as they were.
fn refusals<C: ComplexFloat>() {
    let mut rng = Rng::new(16);
    let (x, v) = upload::<C>(&mut rng, &[6]);
    let unsupported = |r: Result<(), Error>, what: &str| match r {
        Err(Error::Unsupported { dtype, .. }) => assert_eq!(dtype, C::DTYPE, "{what}"),
        other => panic!("{what}: expected Unsupported, got {other:?}"),
    };
    // sort, argsort, unique, max, min, argmax, clip, comparisons < > and histograms take
    // `T: Real`: a complex array has no such methods (refused by the type). These are
    // generic over `Element` and refuse at run time:
    unsupported(x.cumsum(0).map(drop), "cumsum");
    unsupported(x.trace().map(drop), "trace");
    unsupported(x.floor_divide(&x).map(drop), "floor_divide");
    unsupported(x.rem(&x).map(drop), "rem");
    unsupported(x.fmax(&x).map(drop), "fmax");
    unsupported(x.logical_not().map(drop), "logical_not");
    let idx = dev().from_slice(&[0i32, 1], [2]).unwrap();
    let src = dev().from_slice(&v[..2], [2]).unwrap();
    unsupported(x.scatter_max(0, &idx, &src).map(drop), "scatter_max");
    crate::same_bits(&x.to_vec().unwrap(), &v, "after the refusals");
}

crate::both! {
    arithmetic => arithmetic;
    functions => functions;
    special_values => special_values;
    parts => parts;
    reductions => reductions;
    products => products;
    refusals => refusals;
}
