//! Statistics against f64 CPU references. Here the NaN-ignoring reductions (derived.rs:
//! ptp, the accumulator dtypes, average, cov and corrcoef): every dtype (integers where
//! they are the plain reductions), NaN placements (none, some, all-NaN slices, all NaN,
//! infinities and -0), awkward sizes (0, 1, primes), strided views, every axis in both
//! signs, and bad arguments.

#[path = "../common/mod.rs"]
mod common;
mod derived;
mod keepdims;

use common::{dev, if_supported, upload, Host, Rng, Ty};
use gpuarray::{f16, Array, Error, Float, Slice};

/// How NaN is placed in the test data.
#[derive(Debug, Clone, Copy)]
enum Nan {
    None,
    Some,
    /// Index 0 along the first and the last axis: all-NaN slices for both.
    Slices,
    All,
    /// NaN, infinities and -0 among the values.
    Special,
}

const PLACES: [Nan; 5] = [Nan::None, Nan::Some, Nan::Slices, Nan::All, Nan::Special];

/// Values for an array of `shape` with NaN placed as `nan` (floats only).
fn values<T: Ty>(rng: &mut Rng, shape: &[usize], nan: Nan) -> Vec<f64> {
    let n: usize = shape.iter().product();
    let mut v = if T::FLOAT {
        rng.vec(n.max(1), -10.0, 10.0)[..n].to_vec()
    } else if T::SIGNED {
        rng.ints(n, -1000, 1000)
    } else {
        rng.ints(n, 0, 2000)
    };
    if !T::FLOAT {
        return v;
    }
    let last = *shape.last().unwrap_or(&1);
    let inner: usize = shape.iter().skip(1).product();
    for (i, x) in v.iter_mut().enumerate() {
        let put = match nan {
            Nan::None => false,
            Nan::Some => rng.bool(0.25),
            Nan::Slices => i % last.max(1) == 0 || i < inner || rng.bool(0.1),
            Nan::All => true,
            Nan::Special => {
                match rng.next_u64() % 8 {
                    0 => *x = f64::INFINITY,
                    1 => *x = f64::NEG_INFINITY,
                    2 => *x = -0.0,
                    _ => {}
                }
                rng.bool(0.2)
            }
        };
        if put {
            *x = f64::NAN;
        }
    }
    v
}

/// The lanes of `h` reduced over `axis` (all when `None`), in the C order of the outputs.
fn lanes(h: &Host, axis: Option<usize>) -> Vec<Vec<f64>> {
    let Some(a) = axis else {
        return vec![h.data.clone()];
    };
    let outer: usize = h.shape[..a].iter().product();
    let inner: usize = h.shape[a + 1..].iter().product();
    let k = h.shape[a];
    let mut out = Vec::with_capacity(outer * inner);
    for o in 0..outer {
        for i in 0..inner {
            out.push((0..k).map(|j| h.data[(o * k + j) * inner + i]).collect());
        }
    }
    out
}

fn finite(g: &[f64]) -> Vec<f64> {
    g.iter().copied().filter(|x| !x.is_nan()).collect()
}

fn nansum(g: &[f64]) -> f64 {
    finite(g).iter().sum()
}

fn nanmean(g: &[f64]) -> f64 {
    let f = finite(g);
    f.iter().sum::<f64>() / f.len() as f64
}

fn nanvar(g: &[f64], ddof: usize) -> f64 {
    let f = finite(g);
    let dof = f.len() as f64 - ddof as f64;
    if dof <= 0.0 {
        return f64::NAN;
    }
    let m = nanmean(g);
    f.iter().map(|x| (x - m) * (x - m)).sum::<f64>() / dof
}

/// The first index of the best non-NaN element, -1 when there is none (the i64 "no
/// index"); the extreme value, NaN when there is none.
fn nanarg(g: &[f64], better: impl Fn(f64, f64) -> bool) -> (f64, f64) {
    let mut best: Option<(usize, f64)> = None;
    for (i, &x) in g.iter().enumerate() {
        if !x.is_nan() && best.is_none_or(|(_, b)| better(x, b)) {
            best = Some((i, x));
        }
    }
    best.map_or((-1.0, f64::NAN), |(i, b)| (i as f64, b))
}

fn largest(g: &[f64]) -> f64 {
    g.iter().fold(
        0.0f64,
        |m, x| if x.is_finite() { m.max(x.abs()) } else { m },
    )
}

/// Checks one reduction of every lane: `got` against `want(lane)` within `tol(lane)`.
#[track_caller]
fn check(
    what: &str,
    got: gpuarray::Result<Vec<f64>>,
    ls: &[Vec<f64>],
    want: impl Fn(&[f64]) -> f64,
    tol: impl Fn(&[f64]) -> f64,
) {
    let got = got.unwrap_or_else(|e| panic!("{what}: {e:?}"));
    assert_eq!(got.len(), ls.len(), "{what}: output length");
    for (j, (g, l)) in got.iter().zip(ls).enumerate() {
        let (g, w) = (*g, want(l));
        let ok = if w.is_nan() || g.is_nan() {
            w.is_nan() && g.is_nan()
        } else if w.is_infinite() || g.is_infinite() {
            g == w
        } else {
            (g - w).abs() <= tol(l)
        };
        assert!(
            ok,
            "{what}: lane {j}: got {g:e}, want {w:e} (tol {:e})",
            tol(l)
        );
    }
}

fn read<T: gpuarray::Real>(r: gpuarray::Result<Array<T>>) -> gpuarray::Result<Vec<f64>> {
    Ok(common::to_f64(&r?.to_vec()?))
}

/// The axes to test: None (whole array), then each axis as a positive and a negative index.
fn forms(ndim: usize) -> Vec<(Option<usize>, Option<isize>)> {
    let mut f = vec![(None, None)];
    for a in 0..ndim {
        let signed = if a % 2 == 0 {
            a as isize
        } else {
            a as isize - ndim as isize
        };
        f.push((Some(a), Some(signed)));
    }
    f
}

/// sum, max, min and the arg ops (every dtype).
fn check_common<T: Ty>(label: &str, x: &Array<T>, h: &Host) {
    let eps = T::EPS;
    for (axis, signed) in forms(h.shape.len()) {
        let ls = lanes(h, axis);
        let w = |s: &str| format!("{label} {}{s} axis {signed:?}", T::NAME);
        let (sum, max, min, amax, amin) = match signed {
            None => (
                x.nansum(),
                x.nanmax(),
                x.nanmin(),
                x.nanargmax(),
                x.nanargmin(),
            ),
            Some(a) => (
                x.nansum_axis(a, false),
                x.nanmax_axis(a, false),
                x.nanmin_axis(a, false),
                x.nanargmax_axis(a, false),
                x.nanargmin_axis(a, false),
            ),
        };
        let sum_tol = |l: &[f64]| {
            4.0 * eps
                * l.iter()
                    .filter(|v| v.is_finite())
                    .map(|v| v.abs())
                    .sum::<f64>()
        };
        if T::FLOAT {
            check(&w(" nansum"), read(sum), &ls, nansum, sum_tol);
        } else {
            check(
                &w(" nansum"),
                read(sum),
                &ls,
                |l| T::wrap(nansum(l)),
                |_| 0.0,
            );
        }
        if ls.first().is_some_and(|l| l.is_empty()) {
            for (name, r) in [("nanmax", max.map(|_| ())), ("nanmin", min.map(|_| ()))] {
                assert!(
                    matches!(r, Err(Error::InvalidArgument { .. })),
                    "{} {r:?}",
                    w(name)
                );
            }
            for (name, r) in [("nanargmax", amax), ("nanargmin", amin)] {
                assert!(
                    matches!(r, Err(Error::InvalidArgument { .. })),
                    "{} {r:?}",
                    w(name)
                );
            }
            continue;
        }
        check(
            &w(" nanmax"),
            read(max),
            &ls,
            |l| nanarg(l, |a, b| a > b).1,
            |_| 0.0,
        );
        check(
            &w(" nanmin"),
            read(min),
            &ls,
            |l| nanarg(l, |a, b| a < b).1,
            |_| 0.0,
        );
        check(
            &w(" nanargmax"),
            read(amax),
            &ls,
            |l| nanarg(l, |a, b| a > b).0,
            |_| 0.0,
        );
        check(
            &w(" nanargmin"),
            read(amin),
            &ls,
            |l| nanarg(l, |a, b| a < b).0,
            |_| 0.0,
        );
    }
}

/// mean, var and std with ddof 0 and 1 (floats).
fn check_float<T: Ty + Float>(label: &str, x: &Array<T>, h: &Host) {
    let eps = T::EPS;
    for (axis, signed) in forms(h.shape.len()) {
        let ls = lanes(h, axis);
        let w = |s: &str| format!("{label} {}{s} axis {signed:?}", T::NAME);
        let mean = match signed {
            None => x.nanmean(),
            Some(a) => x.nanmean_axis(a, false),
        };
        check(&w(" nanmean"), read(mean), &ls, nanmean, |l| {
            8.0 * eps * largest(l)
        });
        for ddof in [0, 1] {
            let vt = |l: &[f64]| 32.0 * eps * largest(l).powi(2);
            check(
                &w(&format!(" nanvar({ddof})")),
                read(x.nanvar_axis(signed, ddof, false)),
                &ls,
                |l| nanvar(l, ddof),
                vt,
            );
            check(
                &w(&format!(" nanstd({ddof})")),
                read(x.nanstd_axis(signed, ddof, false)),
                &ls,
                |l| nanvar(l, ddof).sqrt(),
                |l| 16.0 * eps.sqrt() * eps.sqrt() * largest(l) + 32.0 * eps * largest(l),
            );
        }
        if signed.is_none() {
            check(
                &w(" nanvar"),
                read(x.nanvar()),
                &ls,
                |l| nanvar(l, 0),
                |l| 32.0 * eps * largest(l).powi(2),
            );
        } else if let Some(a) = signed {
            check(
                &w(" nanstd_axis"),
                read(x.nanstd_axis(a, 0, false)),
                &ls,
                |l| nanvar(l, 0).sqrt(),
                |l| 32.0 * eps * largest(l),
            );
        }
    }
}

const SHAPES: &[&[usize]] = &[
    &[0],
    &[1],
    &[7],
    &[3, 0],
    &[0, 4],
    &[5, 13],
    &[4, 3, 37],
    &[2, 1031],
];

/// Contiguous arrays of every shape and NaN placement, and a strided transposed view.
fn sweep<T: Ty>(extra: impl Fn(&str, &Array<T>, &Host)) {
    let mut rng = Rng::new(0x57a7 + T::DTYPE as u64);
    for (i, shape) in SHAPES.iter().enumerate() {
        // Two placements per shape; every placement meets several shapes.
        for nan in [PLACES[i % 5], PLACES[(i + 2) % 5]] {
            let v = values::<T>(&mut rng, shape, nan);
            let (x, back) = upload::<T>(dev(), &v, shape);
            let h = Host::new(shape, back);
            let label = format!("{shape:?} {nan:?}");
            check_common(&label, &x, &h);
            extra(&label, &x, &h);
        }
    }
    let (x, h) = view_case::<T>(&mut rng, Nan::Slices);
    check_common("view", &x, &h);
    extra("view", &x, &h);
}

/// A view of a [12, 11] array of values placed as `nan`: rows from 1 (an offset), every
/// other column (the first kept: with [`Nan::Slices`], all NaN), transposed to [6, 11].
fn view_case<T: Ty>(rng: &mut Rng, nan: Nan) -> (Array<T>, Host) {
    let shape = [12, 11];
    let (base, back) = upload::<T>(dev(), &values::<T>(rng, &shape, nan), &shape);
    let x = base
        .slice([Slice::from(1..), Slice::from(0..).step(2)])
        .unwrap()
        .t();
    let h = Host::new(&shape, back).slice(&[(1, 12, 1), (0, 11, 2)]).t();
    assert_eq!(x.shape(), h.shape.as_slice());
    (x, h)
}

fn floats<T: Ty + Float>() {
    sweep::<T>(check_float::<T>);
}

#[test]
fn nan_reductions_f32() {
    floats::<f32>();
}

#[test]
fn nan_reductions_f16_f64() {
    if_supported::<f16>(floats::<f16>);
    if_supported::<f64>(floats::<f64>);
}

#[test]
fn nan_reductions_integers_are_the_plain_ones() {
    sweep::<i32>(|_, _, _| {});
    sweep::<u32>(|label, x, _| {
        let same = |a: Array<u32>, b: Array<u32>| {
            assert_eq!(a.to_vec().unwrap(), b.to_vec().unwrap(), "{label}")
        };
        same(x.nansum().unwrap(), x.sum().unwrap());
        if !x.is_empty() {
            same(x.nanmax().unwrap(), x.max().unwrap());
            let (a, b) = (x.nanargmin().unwrap(), x.argmin().unwrap());
            assert_eq!(a.to_vec().unwrap(), b.to_vec().unwrap(), "{label}");
        }
    });
}

#[test]
fn nan_reductions_bad_arguments() {
    let x = dev()
        .from_slice(&[1.0f32, f32::NAN, 3.0, 4.0, 5.0, 6.0], [2, 3])
        .unwrap();
    for a in [2isize, -3, isize::MIN, isize::MAX] {
        assert!(
            matches!(x.nansum_axis(a, false), Err(Error::AxisOutOfRange { .. })),
            "{a}"
        );
        assert!(
            matches!(
                x.nanargmax_axis(a, false),
                Err(Error::AxisOutOfRange { .. })
            ),
            "{a}"
        );
        assert!(
            matches!(
                x.nanvar_axis(a, 0, false),
                Err(Error::AxisOutOfRange { .. })
            ),
            "{a}"
        );
    }
    let e = dev().zeros::<f32>([0, 3]).unwrap();
    assert!(matches!(e.nanmax(), Err(Error::InvalidArgument { .. })));
    assert!(matches!(
        e.nanargmin_axis(0, false),
        Err(Error::InvalidArgument { .. })
    ));
    assert_eq!(
        e.nansum_axis(0, false).unwrap().to_vec().unwrap(),
        vec![0.0; 3]
    );
    assert!(e.nanmean().unwrap().to_scalar().unwrap().is_nan());
    // 0-d input: the whole-array forms reduce its one element; it has no axis.
    let s = dev().from_slice(&[f32::NAN], []).unwrap();
    assert!(s.nanmax().unwrap().to_scalar().unwrap().is_nan());
    assert_eq!(s.nanargmax().unwrap().to_scalar().unwrap(), -1);
    assert!(matches!(
        s.nansum_axis(0, false),
        Err(Error::AxisOutOfRange { .. })
    ));
    // Large ddof: NaN, as NumPy.
    assert!(x
        .nanvar_axis(None, 5, false)
        .unwrap()
        .to_scalar()
        .unwrap()
        .is_nan());
    assert!(x
        .nanstd_axis(None, usize::MAX, false)
        .unwrap()
        .to_scalar()
        .unwrap()
        .is_nan());
    // The array and the device still work.
    assert_eq!(x.nansum().unwrap().to_scalar().unwrap(), 19.0);
}
