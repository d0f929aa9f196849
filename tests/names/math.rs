//! The elementwise functions of the name map's second group against CPU references:
//! heaviside, signbit, gcd, lcm, divmod, modf (exact), logaddexp/logaddexp2/sinc special
//! values (their ulp bounds are in tests/numerics/names_math.rs), on strided views with
//! offsets, with broadcasting, zero sizes, in `fuse`, and the dtypes they refuse.

use crate::common::{assert_close, assert_unsupported, dev, host, if_supported, Rng};
use gpuarray::{custom::fuse, f16, Array, DType, Error, Float, Real};

/// `vals` as a strided view with an offset: every other element of a larger array,
/// starting at 1.
fn strided<T: Real>(vals: &[f64]) -> Array<T> {
    let mut wide = vec![T::from_f64(9.0); 2 * vals.len() + 1];
    for (k, &v) in vals.iter().enumerate() {
        wide[1 + 2 * k] = T::from_f64(v);
    }
    let base = dev().from_slice(&wide, [wide.len()]).unwrap();
    base.slice(gpuarray::Slice::from(1..).step(2)).unwrap()
}

const FLOATS: [f64; 12] = [
    -2.5,
    -1.0,
    -0.0,
    0.0,
    0.5,
    3.0,
    7.25,
    -7.75,
    f64::INFINITY,
    f64::NEG_INFINITY,
    f64::NAN,
    1e-3,
];

fn float_parts<T: Float>() {
    let x = strided::<T>(&FLOATS);
    let hx = host(&x);
    // heaviside against a broadcast h0 row: (2, n) output.
    let h0 = dev()
        .from_slice(&[T::from_f64(0.5), T::from_f64(-1.0)], [2, 1])
        .unwrap();
    let got = x.heaviside(&h0).unwrap();
    assert_eq!(got.shape(), &[2, FLOATS.len()]);
    let want: Vec<f64> = [0.5, -1.0]
        .iter()
        .flat_map(|&h| {
            hx.iter().map(move |&v| match v {
                v if v.is_nan() => f64::NAN,
                0.0 => h,
                v if v > 0.0 => 1.0,
                _ => 0.0,
            })
        })
        .collect();
    assert_close(&host(&got), &want, 0.0, 0.0);
    // modf: exact parts with x's sign; the signs of zeros checked through signbit too.
    let (frac, int) = x.modf().unwrap();
    let (hf, hi) = (host(&frac), host(&int));
    for (k, &v) in hx.iter().enumerate() {
        let (wf, wi) = if v.is_infinite() {
            (0.0f64.copysign(v), v)
        } else {
            ((v - v.trunc()).copysign(v), v.trunc())
        };
        assert_close(&[hf[k], hi[k]], &[wf, wi], 0.0, 0.0);
        if !v.is_nan() {
            assert_eq!(hf[k].is_sign_negative(), v.is_sign_negative(), "modf({v})");
        }
    }
    let sb = x.signbit().unwrap().to_vec().unwrap();
    for (k, &v) in hx.iter().enumerate().filter(|(_, v)| !v.is_nan()) {
        assert_eq!(sb[k], v.is_sign_negative(), "signbit({v})");
    }
    // divmod: q * y + r == x for the finite pairs, r with y's sign.
    let y = strided::<T>(&[
        2.0, -3.0, 1.5, 4.0, -0.5, 2.0, 3.0, 3.0, 2.0, 2.0, 2.0, 0.25,
    ]);
    let (q, r) = x.divmod(&y).unwrap();
    let (hq, hr, hy) = (host(&q), host(&r), host(&y));
    for k in 0..hx.len() {
        if hx[k].is_finite() {
            assert_eq!(
                hq[k],
                (hx[k] / hy[k]).floor(),
                "floor_divide({}, {})",
                hx[k],
                hy[k]
            );
            assert_close(&[hq[k] * hy[k] + hr[k]], &[hx[k]], 1e-3, 0.0);
            assert!(hr[k] == 0.0 || hr[k].signum() == hy[k].signum());
        }
    }
}

/// logaddexp / logaddexp2 / sinc special values (NumPy's) and zero sizes.
fn float_specials<T: Float>() {
    let inf = f64::INFINITY;
    let a = dev()
        .from_slice(
            &[
                T::from_f64(-inf),
                T::from_f64(inf),
                T::from_f64(f64::NAN),
                T::from_f64(2.0),
            ],
            [4],
        )
        .unwrap();
    let b = dev()
        .from_slice(
            &[
                T::from_f64(-inf),
                T::from_f64(-inf),
                T::from_f64(0.0),
                T::from_f64(2.0),
            ],
            [4],
        )
        .unwrap();
    let ln2 = T::from_f64(2.0 + std::f64::consts::LN_2).to_f64();
    assert_close(
        &host(&a.logaddexp(&b).unwrap()),
        &[-inf, inf, f64::NAN, ln2],
        0.0,
        0.0,
    );
    assert_close(
        &host(&a.logaddexp2(&b).unwrap()),
        &[-inf, inf, f64::NAN, 3.0],
        0.0,
        0.0,
    );
    let s = strided::<T>(&[0.0, -0.0, 1.0, -2.0, 0.5, inf, f64::NAN])
        .sinc()
        .unwrap();
    let eps = 2f64.powi(-10);
    let want = [
        1.0,
        1.0,
        0.0,
        0.0,
        2.0 / std::f64::consts::PI,
        f64::NAN,
        f64::NAN,
    ];
    assert_close(&host(&s), &want, eps, eps);
    // Zero sizes.
    let e = dev().zeros::<T>([0, 3]).unwrap();
    assert_eq!(e.logaddexp(&e).unwrap().shape(), &[0, 3]);
    assert_eq!(e.modf().unwrap().0.shape(), &[0, 3]);
    assert_eq!(e.signbit().unwrap().shape(), &[0, 3]);
}

#[test]
fn float_functions_match_numpy_on_views() {
    float_parts::<f32>();
    float_specials::<f32>();
    if_supported::<f16>(|| {
        float_parts::<f16>();
        float_specials::<f16>();
    });
    if_supported::<f64>(|| {
        float_parts::<f64>();
        float_specials::<f64>();
    });
}

fn gcd_ref(a: i64, b: i64) -> i64 {
    let (mut a, mut b) = (a.unsigned_abs(), b.unsigned_abs());
    while b != 0 {
        (a, b) = (b, a % b);
    }
    a as i64
}

fn int_parts<T: Real>(lo: i64, hi: i64, extremes: &[f64]) {
    let mut rng = Rng::new(9);
    let mut xs = rng.ints(61, lo, hi);
    let mut ys = rng.ints(61, lo, hi);
    xs.extend(extremes);
    ys.extend(extremes.iter().rev());
    xs.extend([0.0, 0.0, 12.0]);
    ys.extend([0.0, 5.0, 0.0]);
    let (x, y) = (strided::<T>(&xs), strided::<T>(&ys));
    let wrap = |v: i64| T::from_f64(v as f64).to_f64() as i64;
    let g = host(&x.gcd(&y).unwrap());
    let l = host(&x.lcm(&y).unwrap());
    let bits = if T::DTYPE == DType::I32 { 32 } else { 0 };
    for k in 0..xs.len() {
        let (a, b) = (xs[k] as i64, ys[k] as i64);
        let gg = gcd_ref(a, b);
        // The magnitude 2^31 of i32::MIN reads back as i32::MIN, as in NumPy.
        let want_g = if bits == 32 && gg == 1 << 31 {
            i32::MIN as i64
        } else {
            wrap(gg)
        };
        assert_eq!(g[k] as i64, want_g, "gcd({a}, {b})");
        let ll = if gg == 0 {
            0
        } else {
            (a.unsigned_abs() / gg as u64).wrapping_mul(b.unsigned_abs()) as u32
        };
        let want_l = if bits == 32 {
            ll as i32 as i64
        } else {
            ll as i64
        };
        assert_eq!(l[k] as i64, want_l, "lcm({a}, {b})");
    }
    // divmod of integers: floor semantics.
    let (q, r) = x
        .divmod(
            &y.maximum(&dev().from_slice(&[T::one()], [1]).unwrap())
                .unwrap(),
        )
        .unwrap();
    let (hq, hr) = (host(&q), host(&r));
    for k in 0..xs.len() {
        let (a, b) = (xs[k], ys[k].max(1.0));
        assert_eq!(
            (hq[k], hr[k]),
            ((a / b).floor(), a - (a / b).floor() * b),
            "divmod({a}, {b})"
        );
    }
    let sb = x.signbit().unwrap().to_vec().unwrap();
    assert!(sb.iter().zip(&xs).all(|(&s, &v)| s == (v < 0.0)));
}

#[test]
fn gcd_lcm_divmod_signbit_match_numpy_for_integers() {
    int_parts::<i32>(
        -1000,
        1000,
        &[i32::MIN as f64, i32::MAX as f64, -1.0, (1i64 << 30) as f64],
    );
    int_parts::<u32>(
        0,
        100_000,
        &[u32::MAX as f64, (1u64 << 31) as f64, 1.0, 65536.0],
    );
}

#[test]
fn new_functions_fuse_into_one_kernel() {
    let f = fuse(dev(), |[x, y]| x.logaddexp(y).heaviside(0.5)).unwrap();
    let x = dev().from_slice(&[-3.0f32, 0.0, 2.0], [3]).unwrap();
    let y = dev().from_slice(&[-3.0f32, -1e30, -5.0], [3]).unwrap();
    // logaddexp(0, -1e30) = 0 exactly: heaviside gives h0 there.
    assert_eq!(
        f.call::<f32>(&[&x, &y]).unwrap().to_vec().unwrap(),
        vec![0.0, 0.5, 1.0]
    );
    let g = fuse(dev(), |[a, b]| a.gcd(b) + a.lcm(b)).unwrap();
    let a = dev().from_slice(&[4i32, -6, 0], [3]).unwrap();
    let b = dev().from_slice(&[6i32, 9, 3], [3]).unwrap();
    assert_eq!(
        g.call::<i32>(&[&a, &b]).unwrap().to_vec().unwrap(),
        vec![14, 21, 3]
    );
    let s = fuse(dev(), |[a]| a.sinc() + a.signbit()).unwrap();
    let a = dev().from_slice(&[0.0f32, -0.0], [2]).unwrap();
    assert_eq!(
        s.call::<f32>(&[&a]).unwrap().to_vec().unwrap(),
        vec![1.0, 2.0]
    );
}

#[test]
fn dtypes_without_meaning_are_refused() {
    let f = dev().from_slice(&[1.0f32, 2.0], [2]).unwrap();
    assert_unsupported(f.gcd(&f), DType::F32);
    assert_unsupported(f.lcm(&f), DType::F32);
    let b = f.gt(&f).unwrap();
    assert_unsupported(b.gcd(&b), DType::Bool);
    if_supported::<f64>(|| {
        let d = dev().from_slice(&[1.0f64], [1]).unwrap();
        assert_unsupported(d.gcd(&d), DType::F64);
    });
    let x = dev().from_slice(&[1.0f32, 2.0, 3.0], [3]).unwrap();
    assert!(matches!(x.logaddexp(&f), Err(Error::ShapeMismatch { .. })));
    assert!(matches!(x.heaviside(&f), Err(Error::ShapeMismatch { .. })));
    assert!(matches!(x.divmod(&f), Err(Error::ShapeMismatch { .. })));
    assert_eq!(x.to_vec().unwrap(), vec![1.0, 2.0, 3.0]);
}

/// NumPy's nextafter on f32, from the bits.
fn next_f32(x: f32, y: f32) -> f32 {
    if x.is_nan() || y.is_nan() {
        return f32::NAN;
    }
    if x == y {
        return y;
    }
    if x == 0.0 {
        return f32::from_bits(1).copysign(y);
    }
    let away = (y > x) == (x > 0.0);
    f32::from_bits(if away {
        x.to_bits() + 1
    } else {
        x.to_bits() - 1
    })
}

#[test]
fn nextafter_and_spacing_step_one_f32_bit() {
    let mut rng = Rng::new(31);
    let mut xs: Vec<f32> = (0..200)
        .map(|_| f32::from_bits(rng.next_u64() as u32))
        .filter(|v| !v.is_nan())
        .collect();
    let specials = [
        0.0,
        -0.0,
        1.0,
        -1.0,
        f32::from_bits(1),
        -f32::from_bits(1),
        f32::MIN_POSITIVE,
        f32::MAX,
        f32::INFINITY,
        f32::NEG_INFINITY,
        f32::NAN,
    ];
    xs.extend(specials);
    let mut ys: Vec<f32> = xs.iter().rev().copied().collect();
    ys[5] = xs[5];
    let wide = |v: &[f32]| strided::<f32>(&v.iter().map(|&f| f as f64).collect::<Vec<_>>());
    let got = wide(&xs).nextafter(&wide(&ys)).unwrap().to_vec().unwrap();
    for k in 0..xs.len() {
        let want = next_f32(xs[k], ys[k]);
        assert!(
            got[k].to_bits() == want.to_bits() || (got[k].is_nan() && want.is_nan()),
            "nextafter({}, {}) = {} (want {want})",
            xs[k],
            ys[k],
            got[k]
        );
    }
    let got = wide(&xs).spacing().unwrap().to_vec().unwrap();
    for (k, &x) in xs.iter().enumerate() {
        let want = if x.is_infinite() {
            f32::NAN
        } else {
            next_f32(x, f32::INFINITY.copysign(x)) - x
        };
        assert!(
            got[k].to_bits() == want.to_bits() || (got[k].is_nan() && want.is_nan()),
            "spacing({x}) = {} (want {want})",
            got[k]
        );
    }
    let i = dev().from_slice(&[1i32], [1]).unwrap();
    assert_unsupported(i.nextafter(&i), DType::I32);
    assert_unsupported(i.spacing(), DType::I32);
    let f = fuse(dev(), |[a, b]| a.nextafter(b).spacing()).unwrap();
    let one = dev().from_slice(&[1.0f32], [1]).unwrap();
    let two = dev().from_slice(&[2.0f32], [1]).unwrap();
    assert_eq!(
        f.call::<f32>(&[&one, &two]).unwrap().to_vec().unwrap(),
        vec![f32::EPSILON]
    );
}

/// NumPy's frexp in f64 arithmetic: (m, e) with |m| in [0.5, 1), (x, 0) for 0, inf, NaN.
fn frexp_ref(x: f64) -> (f64, i32) {
    if x == 0.0 || !x.is_finite() {
        return (x, 0);
    }
    let mut e = x.abs().log2().floor() as i32 + 1;
    let mut m = x / 2f64.powi(e);
    // log2 can be one off at the edges of a binade.
    if m.abs() >= 1.0 {
        (m, e) = (m / 2.0, e + 1);
    } else if m.abs() < 0.5 {
        (m, e) = (m * 2.0, e - 1);
    }
    (m, e)
}

fn frexp_check<T: Float>(xs: &[f64]) {
    let x = strided::<T>(xs);
    let hx = host(&x);
    let (m, e) = x.frexp().unwrap();
    let (hm, he) = (host(&m), e.to_vec().unwrap());
    for (k, &v) in hx.iter().enumerate() {
        let (wm, we) = frexp_ref(v);
        assert_close(&[hm[k]], &[wm], 0.0, 0.0);
        assert_eq!(he[k], we, "frexp({v})");
        if v == 0.0 {
            assert_eq!(hm[k].is_sign_negative(), v.is_sign_negative());
        }
    }
}

#[test]
fn frexp_splits_exactly() {
    let mut rng = Rng::new(41);
    let mut xs: Vec<f64> = (0..300)
        .map(|_| f32::from_bits(rng.next_u64() as u32) as f64)
        .collect();
    xs.extend([
        0.0,
        -0.0,
        1.0,
        -0.75,
        8.0,
        1e-45,
        -3e-39,
        3.4e38,
        f64::INFINITY,
        f64::NAN,
    ]);
    frexp_check::<f32>(&xs);
    if_supported::<f16>(|| frexp_check::<f16>(&[0.0, -0.0, 1.0, 6e-8, -1e-5, 65504.0, 0.3]));
    // f64: tests/names/bits.rs.
}
