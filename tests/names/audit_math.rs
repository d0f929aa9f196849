//! Issue 18's audit, the elementwise math and logic functions whose tests used only
//! contiguous inputs: each on a strided view with an offset and on a transposed view,
//! bit for bit against the same function on a contiguous copy and within a stated
//! tolerance of a CPU reference; zero sizes; and the bad arguments (typed errors, the
//! operands intact). Every float dtype the device has.

use crate::common::{dev, if_supported, Rng};
use gpuarray::{f16, Array, Error, Float, Real, Result, Slice};
use std::f64::consts::FRAC_2_SQRT_PI;

type Unary<T> = fn(&Array<T>) -> Result<Array<T>>;
type Mask<T> = fn(&Array<T>) -> Result<Array<bool>>;
type Binary<T> = fn(&Array<T>, &Array<T>) -> Result<Array<T>>;
/// A name, the function, its CPU reference and the input range.
type UnaryCase<T> = (&'static str, Unary<T>, fn(f64) -> f64, (f64, f64));
type MaskCase<T> = (&'static str, Mask<T>, fn(f64) -> bool);
type BinaryCase<T> = (&'static str, Binary<T>, fn(f64, f64) -> f64);
type Logic = fn(&Array<f32>, &Array<f32>) -> Result<Array<bool>>;
type LogicCase = (&'static str, Logic, fn(bool, bool) -> bool);

/// `vals` as a view: every second element of a buffer, from offset 1.
fn offset_view<T: Real>(vals: &[T]) -> Array<T> {
    let mut wide = vec![T::from_f64(7.0); 2 * vals.len() + 1];
    for (k, &v) in vals.iter().enumerate() {
        wide[1 + 2 * k] = v;
    }
    let base = dev().from_slice(&wide, [wide.len()]).unwrap();
    base.slice(Slice::from(1..).step(2)).unwrap()
}

/// The two views of `vals` (37 of them), neither contiguous: strided with an offset
/// ([37], stride 2, offset 1), and column 1 of a [37, 2] array transposed to [1, 37].
fn views<T: Real>(vals: &[T]) -> Vec<Array<T>> {
    assert_eq!(vals.len(), 37);
    let flat = offset_view(vals);
    let mut two = vec![T::from_f64(7.0); 74];
    for (k, &v) in vals.iter().enumerate() {
        two[2 * k + 1] = v;
    }
    let col = dev()
        .from_slice(&two, [37, 2])
        .unwrap()
        .slice([Slice::from(..), Slice::from(1..2)])
        .unwrap();
    vec![flat, col.t()]
}

/// The relative tolerance of a float function's result in `T` against an f64 reference.
fn rtol<T: Real>() -> f64 {
    match T::DTYPE {
        gpuarray::DType::F16 => 2e-3,
        gpuarray::DType::F64 => 1e-13,
        _ => 2e-6,
    }
}

/// erf by its Maclaurin series to x^7 (exact in f64 for |x| <= 1e-4).
fn erf_series(x: f64) -> f64 {
    let x2 = x * x;
    FRAC_2_SQRT_PI * x * (1.0 - x2 / 3.0 + x2 * x2 / 10.0 - x2 * x2 * x2 / 42.0)
}

fn unary_cases<T: Float>() -> Vec<UnaryCase<T>> {
    vec![
        ("sinh", |x| x.sinh(), f64::sinh, (-3.0, 3.0)),
        ("cosh", |x| x.cosh(), f64::cosh, (-3.0, 3.0)),
        ("asin", |x| x.asin(), f64::asin, (-0.9, 0.9)),
        ("acos", |x| x.acos(), f64::acos, (-0.9, 0.9)),
        ("atan", |x| x.atan(), f64::atan, (-5.0, 5.0)),
        ("asinh", |x| x.asinh(), f64::asinh, (-5.0, 5.0)),
        ("acosh", |x| x.acosh(), f64::acosh, (1.1, 5.0)),
        ("atanh", |x| x.atanh(), f64::atanh, (-0.9, 0.9)),
        ("log10", |x| x.log10(), f64::log10, (0.1, 100.0)),
        ("cbrt", |x| x.cbrt(), f64::cbrt, (-8.0, 8.0)),
        ("expm1", |x| x.expm1(), f64::exp_m1, (-2.0, 2.0)),
        ("reciprocal", |x| x.reciprocal(), f64::recip, (0.5, 4.0)),
        ("degrees", |x| x.degrees(), f64::to_degrees, (-4.0, 4.0)),
        ("radians", |x| x.radians(), f64::to_radians, (-200.0, 200.0)),
        ("trunc", |x| x.trunc(), f64::trunc, (-9.0, 9.0)),
        ("square", |x| x.square(), |v| v * v, (-3.0, 3.0)),
        // erf and erfc: their references over the whole range are in tests/numerics/erf.rs;
        // here tiny inputs, where the Maclaurin series to x^7 is exact to f64.
        ("erf", |x| x.erf(), erf_series, (-1e-4, 1e-4)),
        ("erfc", |x| x.erfc(), |v| 1.0 - erf_series(v), (-1e-4, 1e-4)),
        (
            "nan_to_num",
            |x| x.nan_to_num(T::from_f64(0.0), None, None),
            |v| v,
            (-3.0, 3.0),
        ),
    ]
}

/// Each unary function on both views, against the contiguous copy (same bits) and the
/// CPU reference.
fn unary_on_views<T: Float>() {
    let mut rng = Rng::new(181);
    for (name, f, cpu, (lo, hi)) in unary_cases::<T>() {
        let vals: Vec<T> = rng.vec(37, lo, hi).into_iter().map(T::from_f64).collect();
        for v in views(&vals) {
            let got = f(&v).unwrap();
            assert_eq!(got.shape(), v.shape(), "{name}");
            let got = got.to_vec().unwrap();
            let want_bits = f(&v.copy().unwrap()).unwrap().to_vec().unwrap();
            for (k, (g, w)) in got.iter().zip(&want_bits).enumerate() {
                assert!(
                    g.to_f64().to_bits() == w.to_f64().to_bits(),
                    "{name} {:?} [{k}]: view {g:?}, contiguous {w:?}",
                    T::DTYPE
                );
            }
            for (k, g) in got.iter().enumerate() {
                let x = vals[k].to_f64();
                let want = cpu(x);
                let g = g.to_f64();
                let tol = rtol::<T>() * want.abs().max(1e-3) * 4.0;
                assert!(
                    (g - want).abs() <= tol,
                    "{name}({x}) {:?} = {g}, want {want}",
                    T::DTYPE
                );
            }
        }
        for shape in [&[0][..], &[4, 0]] {
            let z = dev().zeros::<T>(shape).unwrap();
            let r = f(&z).unwrap();
            assert_eq!((r.shape(), r.len()), (shape, 0), "{name}");
        }
    }
}

#[test]
fn unary_math_on_views_and_zero_sizes() {
    unary_on_views::<f32>();
    if_supported::<f16>(unary_on_views::<f16>);
    if_supported::<f64>(unary_on_views::<f64>);
}

fn mask_cases<T: Float>() -> Vec<MaskCase<T>> {
    vec![
        ("isnan", |x| x.isnan(), f64::is_nan),
        ("isinf", |x| x.isinf(), f64::is_infinite),
        ("isfinite", |x| x.isfinite(), f64::is_finite),
        ("logical_not", |x| x.logical_not(), |v| v == 0.0),
        ("signbit", |x| x.signbit(), f64::is_sign_negative),
    ]
}

/// The masks on both views over special values, against Rust's predicates.
fn masks_on_views<T: Float>() {
    let specials = [
        0.0,
        -0.0,
        1.0,
        -2.5,
        f64::INFINITY,
        f64::NEG_INFINITY,
        f64::NAN,
    ];
    let vals: Vec<T> = (0..37)
        .map(|k| T::from_f64(specials[k % specials.len()]))
        .collect();
    for (name, f, cpu) in mask_cases::<T>() {
        for v in views(&vals) {
            let got = f(&v).unwrap().to_vec().unwrap();
            let want: Vec<bool> = vals.iter().map(|x| cpu(x.to_f64())).collect();
            assert_eq!(got, want, "{name} {:?}", T::DTYPE);
        }
        let z = dev().zeros::<T>([0, 3]).unwrap();
        assert_eq!(f(&z).unwrap().shape(), &[0, 3], "{name}");
    }
}

#[test]
fn masks_on_views_and_zero_sizes() {
    masks_on_views::<f32>();
    if_supported::<f16>(masks_on_views::<f16>);
    if_supported::<f64>(masks_on_views::<f64>);
}

fn binary_cases<T: Float>() -> Vec<BinaryCase<T>> {
    vec![
        ("atan2", |x, y| x.atan2(y), f64::atan2),
        ("hypot", |x, y| x.hypot(y), f64::hypot),
        ("copysign", |x, y| x.copysign(y), f64::copysign),
        ("fmax", |x, y| x.fmax(y), f64::max),
        ("fmin", |x, y| x.fmin(y), f64::min),
        (
            "logaddexp",
            |x, y| x.logaddexp(y),
            |a, b| a.max(b) + (-(a - b).abs()).exp().ln_1p(),
        ),
        (
            "heaviside",
            |x, y| x.heaviside(y),
            |a, b| {
                if a == 0.0 {
                    b
                } else if a > 0.0 {
                    1.0
                } else {
                    0.0
                }
            },
        ),
    ]
}

/// Each binary function with a view on either side and broadcasting ([37] against
/// [1, 37]), against the contiguous copies and the CPU reference; the shape errors.
fn binary_on_views<T: Float>() {
    let mut rng = Rng::new(182);
    for (name, f, cpu) in binary_cases::<T>() {
        let xs: Vec<T> = rng
            .vec(37, -3.0, 3.0)
            .into_iter()
            .map(T::from_f64)
            .collect();
        let mut ys: Vec<T> = rng
            .vec(37, -3.0, 3.0)
            .into_iter()
            .map(T::from_f64)
            .collect();
        ys[3] = T::from_f64(f64::NAN);
        let (vx, vy) = (views(&xs), views(&ys));
        for (a, b) in [(&vx[0], &vy[1]), (&vx[1], &vy[0])] {
            let got = f(a, b).unwrap();
            assert_eq!(got.shape(), &[1, 37], "{name}");
            let got = got.to_vec().unwrap();
            let same = f(&a.copy().unwrap(), &b.copy().unwrap())
                .unwrap()
                .to_vec()
                .unwrap();
            for k in 0..37 {
                let (g, s) = (got[k].to_f64(), same[k].to_f64());
                assert!(g.to_bits() == s.to_bits(), "{name}[{k}]: {g} vs {s}");
                let want = cpu(xs[k].to_f64(), ys[k].to_f64());
                let tol = rtol::<T>() * want.abs().max(1e-3) * 4.0;
                assert!(
                    (g - want).abs() <= tol || (g.is_nan() && want.is_nan()),
                    "{name}({:?}, {:?}) {:?} = {g}, want {want}",
                    xs[k],
                    ys[k],
                    T::DTYPE
                );
            }
        }
        let z = dev().zeros::<T>([0]).unwrap();
        assert_eq!(
            f(&z, &vx[0].slice(Slice::from(..1)).unwrap())
                .unwrap()
                .len(),
            0
        );
        let short = offset_view(&xs[..5]);
        assert!(
            matches!(f(&vx[0], &short), Err(Error::ShapeMismatch { .. })),
            "{name}"
        );
        assert_eq!(vx[0].to_vec().unwrap(), xs, "{name} changed its operand");
        assert_eq!(short.to_vec().unwrap(), xs[..5].to_vec());
    }
}

#[test]
fn binary_math_on_views_and_bad_shapes() {
    binary_on_views::<f32>();
    if_supported::<f16>(binary_on_views::<f16>);
    if_supported::<f64>(binary_on_views::<f64>);
}

/// The logical functions, isclose, allclose and array_equal on views, against the CPU,
/// and their errors.
#[test]
fn logic_on_views_and_bad_arguments() {
    let specials = [0.0f32, -0.0, 1.0, 2.5, f32::NAN, 1e-45, -3.0];
    let xs: Vec<f32> = (0..37).map(|k| specials[k % 7]).collect();
    let ys: Vec<f32> = (0..37).map(|k| specials[(k * 3 + 1) % 7]).collect();
    let (vx, vy) = (views(&xs), views(&ys));
    let (a, b) = (&vx[1], &vy[0]);
    let logic: [LogicCase; 3] = [
        ("logical_and", |x, y| x.logical_and(y), |p, q| p & q),
        ("logical_or", |x, y| x.logical_or(y), |p, q| p | q),
        ("logical_xor", |x, y| x.logical_xor(y), |p, q| p ^ q),
    ];
    for (name, f, cpu) in logic {
        let got = f(a, b).unwrap().to_vec().unwrap();
        let want: Vec<bool> = (0..37).map(|k| cpu(xs[k] != 0.0, ys[k] != 0.0)).collect();
        assert_eq!(got, want, "{name}");
        assert!(matches!(
            f(a, &vx[0].slice(Slice::from(..3)).unwrap()),
            Err(Error::ShapeMismatch { .. })
        ));
    }
    let close = a.isclose(b, 1e-5, 1e-8, true).unwrap().to_vec().unwrap();
    let want: Vec<bool> = (0..37)
        .map(|k| {
            let (x, y) = (xs[k] as f64, ys[k] as f64);
            (x.is_nan() && y.is_nan()) || (x - y).abs() <= 1e-8 + 1e-5 * y.abs()
        })
        .collect();
    assert_eq!(close, want);
    // A view equals its contiguous copy; the transposed one too, and not the other data.
    let has_nan = xs.iter().any(|v| v.is_nan());
    assert_eq!(a.array_equal(&a.copy().unwrap()).unwrap(), !has_nan);
    let finite: Vec<f32> = xs
        .iter()
        .map(|v| if v.is_nan() { 4.0 } else { *v })
        .collect();
    let fv = views(&finite);
    assert!(fv[1].array_equal(&fv[1].copy().unwrap()).unwrap());
    assert!(fv[0]
        .allclose(&fv[1].reshape([37]).unwrap(), 0.0, 0.0, false)
        .unwrap());
    assert!(!fv[0].allclose(&vy[0], 1e-5, 1e-8, false).unwrap());
    assert!(matches!(
        a.isclose(b, -1.0, 0.0, false),
        Err(Error::InvalidArgument { .. })
    ));
    assert!(matches!(
        fv[0].allclose(&fv[0], 0.0, f64::NAN, false),
        Err(Error::InvalidArgument { .. })
    ));
    let kept = a.to_vec().unwrap();
    assert!(kept
        .iter()
        .zip(&xs)
        .all(|(k, x)| k.to_bits() == x.to_bits()));
}
