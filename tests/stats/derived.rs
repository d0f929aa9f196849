//! ptp, sum_as / prod_as / mean_as, average, cov and corrcoef against f64 references.

use crate::common::{self, dev, if_supported, upload, Host, Rng, Ty};
use crate::{check, forms, lanes, largest, read, values, view_case, Nan};
use gpuarray::{f16, Array, Error, Float, Slice};

/// ptp against max - min of the reference, for floats (with NaN) and integers, every axis
/// in both signs, a view, and bad arguments.
fn check_ptp<T: Ty>(label: &str, x: &Array<T>, h: &Host) {
    for (axis, signed) in forms(h.shape.len()) {
        let ls = lanes(h, axis);
        let got = match signed {
            None => x.ptp(),
            Some(a) => x.ptp_axis(a, false),
        };
        let what = format!("{label} {} ptp axis {signed:?}", T::NAME);
        if ls.first().is_some_and(|l| l.is_empty()) {
            assert!(
                matches!(got, Err(Error::InvalidArgument { .. })),
                "{what}: {got:?}"
            );
            continue;
        }
        let range = |l: &[f64]| {
            if l.iter().any(|v| v.is_nan()) {
                return f64::NAN;
            }
            let hi = l.iter().copied().fold(f64::NEG_INFINITY, f64::max);
            let lo = l.iter().copied().fold(f64::INFINITY, f64::min);
            T::wrap(hi - lo)
        };
        check(&what, read(got), &ls, range, |l| T::EPS * largest(l));
    }
}

#[test]
fn ptp_every_dtype() {
    let mut rng = Rng::new(0x9797);
    for shape in [&[1usize][..], &[7], &[0, 3], &[5, 13], &[3, 4, 11]] {
        for nan in [Nan::None, Nan::Special] {
            let v = values::<f32>(&mut rng, shape, nan);
            let (x, back) = upload::<f32>(dev(), &v, shape);
            check_ptp(&format!("{shape:?} {nan:?}"), &x, &Host::new(shape, back));
            let v = values::<i32>(&mut rng, shape, nan);
            let (x, back) = upload::<i32>(dev(), &v, shape);
            check_ptp(&format!("{shape:?}"), &x, &Host::new(shape, back));
        }
    }
    // Integer extremes wrap as NumPy's: i32::MAX - i32::MIN is -1.
    let x = dev().from_slice(&[i32::MIN, 0, i32::MAX], [3]).unwrap();
    assert_eq!(x.ptp().unwrap().to_scalar().unwrap(), -1);
    let x = dev().from_slice(&[3u32, u32::MAX, 0], [3]).unwrap();
    assert_eq!(x.ptp().unwrap().to_scalar().unwrap(), u32::MAX);
    // A view (with NaN: its lanes give NaN).
    let (x, h) = view_case::<f32>(&mut rng, Nan::Some);
    check_ptp("view", &x, &h);
    for a in [2isize, -3] {
        assert!(
            matches!(x.ptp_axis(a, false), Err(Error::AxisOutOfRange { .. })),
            "{a}"
        );
    }
}

/// sum_as, prod_as and mean_as from `T` into `O` against the f64 reference of the
/// converted elements, on awkward shapes, every axis in both signs and a view.
fn check_as<T: Ty, O: Ty + Float>(rng: &mut Rng) {
    let name = format!("{} as {}", T::NAME, O::NAME);
    let mut cases: Vec<(Array<T>, Host)> = Vec::new();
    for shape in [&[0usize][..], &[1], &[5, 13], &[4, 3, 37], &[2, 0]] {
        let v = values::<T>(rng, shape, Nan::None);
        let (x, back) = upload::<T>(dev(), &v, shape);
        cases.push((x, Host::new(shape, back)));
    }
    cases.push(view_case::<T>(rng, Nan::None));
    for (x, h) in &cases {
        for (axis, signed) in forms(h.shape.len()) {
            let ls = lanes(h, axis);
            let w = |op: &str| format!("{name} {:?} {op} axis {signed:?}", h.shape);
            let conv = |l: &[f64]| l.iter().map(|&v| O::wrap(v)).collect::<Vec<f64>>();
            let sum = |l: &[f64]| conv(l).iter().sum::<f64>();
            let tol = |l: &[f64]| 4.0 * O::EPS * conv(l).iter().map(|v| v.abs()).sum::<f64>();
            check(
                &w("sum_as"),
                read(x.sum_as::<O>(signed, false)),
                &ls,
                sum,
                tol,
            );
            let mean = |l: &[f64]| sum(l) / l.len() as f64;
            let mtol = |l: &[f64]| tol(l) / l.len().max(1) as f64 + O::EPS * mean(l).abs();
            check(
                &w("mean_as"),
                read(x.mean_as::<O>(signed, false)),
                &ls,
                mean,
                mtol,
            );
        }
    }
    // Products of values near 1 (no overflow in any dtype): 7 and 5 x 13 elements.
    for shape in [&[7usize][..], &[5, 13]] {
        let n: usize = shape.iter().product();
        let v: Vec<f64> = (0..n)
            .map(|_| {
                if T::FLOAT {
                    rng.uniform(0.5, 1.5)
                } else {
                    rng.int(1, 2)
                }
            })
            .collect();
        let (x, back) = upload::<T>(dev(), &v, shape);
        let h = Host::new(shape, back);
        for (axis, signed) in forms(shape.len()) {
            let ls = lanes(&h, axis);
            let prod = |l: &[f64]| l.iter().map(|&v| O::wrap(v)).product::<f64>();
            let tol = |l: &[f64]| 2.0 * O::EPS * l.len() as f64 * prod(l).abs();
            check(
                &format!("{name} prod_as {signed:?}"),
                read(x.prod_as::<O>(signed, false)),
                &ls,
                prod,
                tol,
            );
        }
    }
}

#[test]
fn accumulator_dtypes() {
    let mut rng = Rng::new(0xacc);
    check_as::<i32, f32>(&mut rng);
    check_as::<u32, f32>(&mut rng);
    if_supported::<f64>(|| {
        check_as::<i32, f64>(&mut rng.clone());
        check_as::<f32, f64>(&mut rng.clone());
    });
    if_supported::<f16>(|| check_as::<f16, f32>(&mut rng.clone()));
    // Integer targets: i32 summed into u32 wraps as u32 (two's complement), and the large
    // sum that wraps in i32 does not in f32.
    let x = dev().from_slice(&[-1i32, -2, 5], [3]).unwrap();
    assert_eq!(
        x.sum_as::<u32>(None, false).unwrap().to_scalar().unwrap(),
        2
    );
    let big = dev().from_slice(&[i32::MAX; 4], [4]).unwrap();
    assert_eq!(
        big.sum_as::<f32>(None, false).unwrap().to_scalar().unwrap(),
        4.0 * 2147483648.0
    );
    // Bad arguments: a float into an integer, an axis past the last; the array still works.
    let f = dev().from_slice(&[1.5f32, 2.5], [2]).unwrap();
    assert!(matches!(
        f.sum_as::<i32>(None, false),
        Err(Error::Unsupported { .. })
    ));
    assert!(matches!(
        f.prod_as::<u32>(0, false),
        Err(Error::Unsupported { .. })
    ));
    for a in [1isize, -2] {
        assert!(
            matches!(
                f.mean_as::<f32>(a, false),
                Err(Error::AxisOutOfRange { .. })
            ),
            "{a}"
        );
    }
    assert_eq!(
        f.sum_as::<f32>(-1, false).unwrap().to_scalar().unwrap(),
        4.0
    );
}

/// The covariance matrix of rows `vars` (each a variable's observations), f64.
fn cov_ref(vars: &[Vec<f64>], ddof: usize) -> Vec<f64> {
    let n = vars[0].len();
    let means: Vec<f64> = vars
        .iter()
        .map(|r| r.iter().sum::<f64>() / n as f64)
        .collect();
    let mut c = Vec::new();
    for (a, ma) in vars.iter().zip(&means) {
        for (b, mb) in vars.iter().zip(&means) {
            let s: f64 = a.iter().zip(b).map(|(x, y)| (x - ma) * (y - mb)).sum();
            c.push(s / (n as f64 - ddof as f64));
        }
    }
    c
}

fn check_cov<T: Ty + Float>(rng: &mut Rng) {
    let (v, n) = (4, 37);
    let data = rng.vec(v * n, -3.0, 3.0);
    let (x, back) = upload::<T>(dev(), &data, &[v, n]);
    let rows: Vec<Vec<f64>> = back.chunks(n).map(|r| r.to_vec()).collect();
    let tol = 64.0 * T::EPS * 9.0;
    for ddof in [0, 1, 3] {
        let want = cov_ref(&rows, ddof);
        common::assert_close(&common::host(&x.cov(true, ddof).unwrap()), &want, tol, 0.0);
        // Variables in the columns: the transposed view, and a transposed copy.
        let xt = x.t();
        common::assert_close(
            &common::host(&xt.cov(false, ddof).unwrap()),
            &want,
            tol,
            0.0,
        );
        let xt = xt.contiguous().unwrap();
        common::assert_close(
            &common::host(&xt.cov(false, ddof).unwrap()),
            &want,
            tol,
            0.0,
        );
    }
    let c = cov_ref(&rows, 0);
    let corr: Vec<f64> = (0..v * v)
        .map(|k| (c[k] / (c[(k / v) * (v + 1)] * c[(k % v) * (v + 1)]).sqrt()).clamp(-1.0, 1.0))
        .collect();
    common::assert_close(
        &common::host(&x.corrcoef(true).unwrap()),
        &corr,
        16.0 * T::EPS,
        0.0,
    );
    // One variable (1-D): a 0-d result; ddof past the count gives inf or NaN as NumPy.
    let one = x.slice([Slice::from(1..2)]).unwrap().reshape([n]).unwrap();
    let c1 = one.cov(true, 1).unwrap();
    assert_eq!(c1.shape(), &[] as &[usize]);
    common::assert_close(&common::host(&c1), &[cov_ref(&rows[1..2], 1)[0]], tol, 0.0);
    assert_eq!(common::host(&one.corrcoef(true).unwrap()), vec![1.0]);
    assert!(!common::host(&one.cov(true, n).unwrap())[0].is_finite());
    // A constant variable: corrcoef NaN in its row and column.
    let k = dev()
        .from_slice(
            &[
                T::from_f64(1.0),
                T::from_f64(1.0),
                T::from_f64(2.0),
                T::from_f64(3.0),
            ],
            [2, 2],
        )
        .unwrap();
    let r = common::host(&k.corrcoef(true).unwrap());
    assert!(
        r[0].is_nan() && r[1].is_nan() && r[2].is_nan() && (r[3] - 1.0).abs() <= 4.0 * T::EPS,
        "{r:?}"
    );
    assert!(matches!(
        dev().zeros::<T>([2, 2, 2]).unwrap().cov(true, 0),
        Err(Error::InvalidArgument { .. })
    ));
}

#[test]
fn cov_corrcoef() {
    let mut rng = Rng::new(0xc0);
    check_cov::<f32>(&mut rng);
    if_supported::<f64>(|| check_cov::<f64>(&mut rng.clone()));
}

#[test]
fn average_with_weights() {
    let mut rng = Rng::new(0xa7);
    let shape = [5, 13];
    let (x, xb) = upload::<f32>(dev(), &rng.vec(65, -5.0, 5.0), &shape);
    let (w, wb) = upload::<f32>(dev(), &rng.vec(65, 0.1, 2.0), &shape);
    let (w0, w0b) = upload::<f32>(dev(), &rng.vec(5, 0.1, 2.0), &[5]);
    let (w1, w1b) = upload::<f32>(dev(), &rng.vec(13, 0.1, 2.0), &[13]);
    let tol = 8.0 * f32::EPSILON as f64 * 5.0;
    let wavg = |idx: &mut dyn Iterator<Item = (usize, f64)>| {
        let (mut s, mut t) = (0.0, 0.0);
        for (i, wt) in idx {
            s += xb[i] * wt;
            t += wt;
        }
        s / t
    };
    // Full-shape weights: whole array, each axis in both signs.
    let all = wavg(&mut (0..65).map(|i| (i, wb[i])));
    common::assert_close(
        &common::host(&x.average(Some(&w), None, false).unwrap()),
        &[all],
        tol,
        0.0,
    );
    let rows: Vec<f64> = (0..5)
        .map(|r| wavg(&mut (0..13).map(|c| (r * 13 + c, wb[r * 13 + c]))))
        .collect();
    let cols: Vec<f64> = (0..13)
        .map(|c| wavg(&mut (0..5).map(|r| (r * 13 + c, wb[r * 13 + c]))))
        .collect();
    for a in [1isize, -1] {
        common::assert_close(
            &common::host(&x.average(Some(&w), a, false).unwrap()),
            &rows,
            tol,
            0.0,
        );
    }
    for a in [0isize, -2] {
        common::assert_close(
            &common::host(&x.average(Some(&w), a, false).unwrap()),
            &cols,
            tol,
            0.0,
        );
    }
    // 1-D weights along the axis; on a view (the transpose) too.
    let rows1: Vec<f64> = (0..5)
        .map(|r| wavg(&mut (0..13).map(|c| (r * 13 + c, w1b[c]))))
        .collect();
    let cols0: Vec<f64> = (0..13)
        .map(|c| wavg(&mut (0..5).map(|r| (r * 13 + c, w0b[r]))))
        .collect();
    common::assert_close(
        &common::host(&x.average(Some(&w1), -1, false).unwrap()),
        &rows1,
        tol,
        0.0,
    );
    common::assert_close(
        &common::host(&x.average(Some(&w0), 0, false).unwrap()),
        &cols0,
        tol,
        0.0,
    );
    common::assert_close(
        &common::host(&x.t().average(Some(&w1), 0, false).unwrap()),
        &rows1,
        tol,
        0.0,
    );
    // No weights: the mean.
    let mean = xb.iter().sum::<f64>() / 65.0;
    common::assert_close(
        &common::host(&x.average(None, None, false).unwrap()),
        &[mean],
        tol,
        0.0,
    );
    // Bad arguments: weights of another shape, weights along the wrong axis, no axis with
    // 1-D weights, a zero weight sum, an axis past the last.
    assert!(matches!(
        x.average(Some(&w0), 1, false),
        Err(Error::ShapeMismatch { .. })
    ));
    assert!(matches!(
        x.average(Some(&w1), None, false),
        Err(Error::ShapeMismatch { .. })
    ));
    let z = dev()
        .from_slice(&[1.0f32, -1.0, 0.0, 0.0, 0.0], [5])
        .unwrap();
    assert!(matches!(
        x.average(Some(&z), 0, false),
        Err(Error::InvalidArgument { .. })
    ));
    assert!(matches!(
        x.average(Some(&w), 2, false),
        Err(Error::AxisOutOfRange { .. })
    ));
    // The arrays still work.
    common::assert_close(
        &common::host(&x.average(Some(&w0), 0, false).unwrap()),
        &cols0,
        tol,
        0.0,
    );
}

/// count_nonzero_axis against the reference count of `x != 0` (NaN counts, -0 does not)
/// along every axis in both signs, on data with many zeros, and on a view.
fn check_count<T: Ty>(rng: &mut Rng) {
    let mut cases: Vec<(Array<T>, Host)> = Vec::new();
    for shape in [&[1usize][..], &[7], &[3, 0], &[5, 13], &[4, 3, 37]] {
        let mut v = values::<T>(rng, shape, Nan::Special);
        for x in v.iter_mut() {
            if rng.bool(0.3) {
                *x = if T::FLOAT && rng.bool(0.5) { -0.0 } else { 0.0 };
            }
        }
        let (x, back) = upload::<T>(dev(), &v, shape);
        cases.push((x, Host::new(shape, back)));
    }
    cases.push(view_case::<T>(rng, Nan::Some));
    for (x, h) in &cases {
        for (axis, signed) in forms(h.shape.len()) {
            let (Some(_), Some(a)) = (axis, signed) else {
                let n = h.data.iter().filter(|&&v| v != 0.0).count();
                assert_eq!(x.count_nonzero().unwrap(), n, "{:?}", h.shape);
                continue;
            };
            let what = format!("{} {:?} count_nonzero_axis({a})", T::NAME, h.shape);
            let count = |l: &[f64]| l.iter().filter(|&&v| v != 0.0).count() as f64;
            check(
                &what,
                read(x.count_nonzero_axis(a, false)),
                &lanes(h, axis),
                count,
                |_| 0.0,
            );
        }
        let nd = h.shape.len() as isize;
        for a in [nd, -nd - 1] {
            let r = x.count_nonzero_axis(a, false);
            assert!(matches!(r, Err(Error::AxisOutOfRange { .. })), "{r:?}");
        }
    }
}

#[test]
fn count_nonzero_along_axes() {
    let mut rng = Rng::new(0xc027);
    check_count::<f32>(&mut rng);
    check_count::<i32>(&mut rng);
    check_count::<u32>(&mut rng);
    if_supported::<f16>(|| check_count::<f16>(&mut rng.clone()));
    if_supported::<f64>(|| check_count::<f64>(&mut rng.clone()));
}
