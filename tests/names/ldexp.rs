//! `ldexp` against an exact CPU reference: the value `x 2^n` formed in integers and rounded
//! half to even to the dtype's precision and exponent range (subnormals, overflow to inf),
//! compared bit for bit over every exponent of a range, with special values, views,
//! broadcasting, zero sizes, the scalar form, the fused form and the errors.

use crate::common::*;
use gpuarray::custom::fuse;
use gpuarray::{f16, Array, Error, Float, Slice};

/// Precision (significand bits), minimum and maximum exponent of a float format.
struct Format {
    p: u32,
    emin: i32,
    emax: i32,
}

const F64: Format = Format {
    p: 53,
    emin: -1022,
    emax: 1023,
};
const F32: Format = Format {
    p: 24,
    emin: -126,
    emax: 127,
};
const F16: Format = Format {
    p: 11,
    emin: -14,
    emax: 15,
};

/// 2^q as an f64 (q from -1074 to 1023), from the bits.
fn pow2(q: i32) -> f64 {
    if q >= -1022 {
        f64::from_bits(((q + 1023) as u64) << 52)
    } else {
        f64::from_bits(1u64 << (q + 1074))
    }
}

/// `x 2^n` rounded to `f` (half to even), as an f64 (exact: every value of `f` is one).
fn ldexp_ref(x: f64, n: i64, f: &Format) -> f64 {
    if x == 0.0 || !x.is_finite() {
        return x;
    }
    let b = x.to_bits();
    let (e, frac) = (((b >> 52) & 0x7ff) as i64, b & ((1u64 << 52) - 1));
    // x = sig 2^exp exactly.
    let (sig, exp) = if e == 0 {
        (frac, -1074)
    } else {
        (frac | 1 << 52, e - 1075)
    };
    let exp = exp + n;
    let top = exp + 63 - sig.leading_zeros() as i64;
    let inf = f64::INFINITY.copysign(x);
    if top > f.emax as i64 {
        return inf;
    }
    let q = top.max(f.emin as i64) - (f.p as i64 - 1);
    let s = q - exp;
    let m = if s <= 0 {
        sig << -s
    } else if s >= 64 {
        0
    } else {
        let (m, rest, half) = (sig >> s, sig & ((1u64 << s) - 1), 1u64 << (s - 1));
        m + u64::from(rest > half || (rest == half && m & 1 == 1))
    };
    if m == 0 {
        return 0.0f64.copysign(x);
    }
    if m == 1 << f.p && q + f.p as i64 > f.emax as i64 {
        return inf;
    }
    (m as f64 * pow2(q as i32)).copysign(x)
}

fn same(a: f64, b: f64) -> bool {
    a.to_bits() == b.to_bits() || (a.is_nan() && b.is_nan())
}

/// ldexp of every value of `xs` (a column) by every exponent of `ns` (a row, broadcast),
/// compared bit for bit with the reference in format `f`.
fn check<T: Float>(xs: &[f64], ns: &[i32], f: &Format) {
    let (xt, xv) = cast_in::<T>(xs);
    let x = dev().from_slice(&xt, [xs.len(), 1]).unwrap();
    let n = dev().from_slice(ns, [1, ns.len()]).unwrap();
    let got = host(&x.ldexp(&n).unwrap());
    assert_eq!(got.len(), xs.len() * ns.len());
    for (i, &v) in xv.iter().enumerate() {
        for (j, &k) in ns.iter().enumerate() {
            let want = ldexp_ref(v, k as i64, f);
            let g = got[i * ns.len() + j];
            assert!(
                same(g, want),
                "{:?} ldexp({v:e}, {k}) = {g:e}, want {want:e}",
                T::DTYPE
            );
        }
    }
}

/// Random finite values with exponents spread over the format (subnormals included), and
/// the special ones.
fn values(rng: &mut Rng, count: usize, f: &Format) -> Vec<f64> {
    let mut xs: Vec<f64> = (0..count)
        .map(|_| {
            let e = rng.int(f.emin as i64 - f.p as i64, f.emax as i64 + 1) as i32;
            let m = rng.uniform(1.0, 2.0);
            let sign = if rng.bool(0.5) { -1.0 } else { 1.0 };
            sign * m * pow2(e)
        })
        .collect();
    let tiny = pow2(f.emin - f.p as i32 + 1);
    xs.extend([
        0.0,
        -0.0,
        1.0,
        -1.0,
        0.75,
        tiny,
        -tiny,
        3.0 * tiny,
        f64::INFINITY,
    ]);
    xs.extend([
        f64::NEG_INFINITY,
        f64::NAN,
        pow2(f.emin),
        (2.0 - pow2(1 - f.p as i32)) * pow2(f.emax),
    ]);
    xs
}

/// The exponents lo..=hi and the extremes.
fn exponents(lo: i32, hi: i32) -> Vec<i32> {
    let mut ns: Vec<i32> = (lo..=hi).collect();
    ns.extend([
        i32::MIN,
        i32::MAX,
        -100_000,
        100_000,
        -2200,
        2200,
        -1100,
        1100,
    ]);
    ns
}

#[test]
fn ldexp_f32_rounds_correctly_over_every_exponent() {
    let mut rng = Rng::new(181);
    check::<f32>(&values(&mut rng, 60, &F32), &exponents(-160, 160), &F32);
    // Ties into the subnormals: odd significands shifted out by one bit more than fits.
    let ties: Vec<f64> = [3.0, 5.0, 7.0, 0x00ff_ffff as f64, 0x0080_0001 as f64]
        .iter()
        .map(|m| m * pow2(-126))
        .collect();
    check::<f32>(&ties, &exponents(-30, 3), &F32);
}

#[test]
fn ldexp_f64_rounds_correctly_over_every_exponent() {
    if_supported::<f64>(|| {
        let mut rng = Rng::new(182);
        check::<f64>(&values(&mut rng, 40, &F64), &exponents(-300, 300), &F64);
        let ties: Vec<f64> = [3.0, 5.0, 7.0, (1u64 << 53) as f64 - 1.0, 1e-300, 1e300]
            .iter()
            .map(|m| m * pow2(-1000))
            .collect();
        check::<f64>(&ties, &exponents(-80, 3), &F64);
    });
}

#[test]
fn ldexp_f16_rounds_correctly_over_every_exponent() {
    if_supported::<f16>(|| {
        let mut rng = Rng::new(183);
        check::<f16>(&values(&mut rng, 30, &F16), &exponents(-45, 45), &F16);
    });
}

#[test]
fn ldexp_views_scalar_and_zero_sizes() {
    // x: every other element of a buffer, at an offset; n: a transposed view, broadcast.
    let xs: Vec<f32> = (0..13).map(|k| (k as f32 - 6.0) * 0.37).collect();
    let base = dev().from_slice(&xs, [13]).unwrap();
    let x = base
        .slice(Slice::from(1..).step(2))
        .unwrap()
        .reshape([2, 3])
        .unwrap();
    let hx = host(&x);
    let nb = dev()
        .from_slice(&[-3i32, 9, 130, -140, 0, 1], [3, 2])
        .unwrap();
    let n = nb.t();
    let hn: Vec<i32> = n.to_vec().unwrap();
    let got = host(&x.ldexp(&n).unwrap());
    for k in 0..6 {
        assert!(
            same(got[k], ldexp_ref(hx[k], hn[k] as i64, &F32)),
            "element {k}"
        );
    }
    let s = host(&x.ldexp_scalar(-149).unwrap());
    for k in 0..6 {
        assert!(same(s[k], ldexp_ref(hx[k], -149, &F32)));
    }
    let empty = dev().from_slice::<f32>(&[], [0, 3]).unwrap();
    let r = empty
        .ldexp(&dev().from_slice(&[1i32, 2, 3], [3]).unwrap())
        .unwrap();
    assert_eq!(
        (r.shape().to_vec(), r.to_vec().unwrap()),
        (vec![0, 3], vec![])
    );
}

#[test]
fn ldexp_bad_shapes_leave_arrays_intact() {
    let x = dev().from_slice(&[1.0f32, 2.0, 3.0], [3]).unwrap();
    let n = dev().from_slice(&[1i32, 2], [2]).unwrap();
    let e = x.ldexp(&n).unwrap_err();
    assert!(matches!(e, Error::ShapeMismatch { .. }), "{e:?}");
    assert_eq!(x.to_vec().unwrap(), vec![1.0, 2.0, 3.0]);
    assert_eq!(n.to_vec().unwrap(), vec![1, 2]);
    // The device still works.
    assert_eq!(
        x.ldexp_scalar(1).unwrap().to_vec().unwrap(),
        vec![2.0, 4.0, 6.0]
    );
}

fn fused_matches<T: Float>(f: &Format) {
    let fz = fuse(dev(), |[x, n]| x.ldexp(n)).unwrap();
    let xs = [1.5, -3.0, 0.0, -0.0, 7.0, f64::INFINITY, f64::NAN, 0.3];
    let ns = [3.0, -2.0, 5.0, 1.0, -20.0, 4.0, 0.0, 10.0];
    let (xt, xv) = cast_in::<T>(&xs);
    let (nt, _) = cast_in::<T>(&ns);
    let x = dev().from_slice(&xt, [8]).unwrap();
    let n = dev().from_slice(&nt, [8]).unwrap();
    let got = host(&fz.call::<T>(&[&x, &n]).unwrap());
    let direct: Array<T> = x.ldexp(&n.cast::<i32>().unwrap()).unwrap();
    let direct = host(&direct);
    for k in 0..8 {
        let want = ldexp_ref(xv[k], ns[k] as i64, f);
        assert!(same(direct[k], want), "{:?} {k}", T::DTYPE);
        assert!(
            same(got[k], want),
            "{:?} fused {k}: {} vs {want}",
            T::DTYPE,
            got[k]
        );
    }
}

#[test]
fn ldexp_in_fuse_matches_the_method() {
    fused_matches::<f32>(&F32);
    if_supported::<f64>(|| fused_matches::<f64>(&F64));
    if_supported::<f16>(|| fused_matches::<f16>(&F16));
}
