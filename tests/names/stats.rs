//! The statistics, set and product functions of the name map's third group against CPU
//! references: nanprod, nancumsum, logsumexp, isin/in1d, lexsort, inner, vdot,
//! tensordot, kron; every dtype they take, strided views with offsets, zero sizes,
//! negative axes and bad arguments.

use crate::all_dtypes;
use crate::common::{assert_close, dev, host, if_supported, unravel, Host, Rng};
use gpuarray::{Array, Error, Real};

/// Random values in [lo, hi] of `T` as a transposed view with an offset (`base[1.., 1..]`
/// of a larger array, axes reversed), and its host model.
fn view<T: Real>(rng: &mut Rng, shape: &[usize], lo: i64, hi: i64) -> (Array<T>, Host) {
    let bshape: Vec<usize> = shape.iter().rev().map(|&n| n + 1).collect();
    let n: usize = bshape.iter().product();
    let (t, back) = crate::common::cast_in::<T>(&rng.ints(n, lo, hi));
    let base = dev().from_slice(&t, bshape.clone()).unwrap();
    let v = base
        .slice(vec![gpuarray::Slice::from(1..); bshape.len()])
        .unwrap()
        .t();
    let s: Vec<(usize, usize, usize)> = bshape.iter().map(|&b| (1, b, 1)).collect();
    (v, Host::new(&bshape, back).slice(&s).t())
}

/// Sum over `k` of a[.., k] * b[k, ..] on the host for tensordot checks.
fn tensordot_model(a: &Host, b: &Host, sa: &[usize], sb: &[usize]) -> Host {
    let fa: Vec<usize> = (0..a.shape.len()).filter(|d| !sa.contains(d)).collect();
    let fb: Vec<usize> = (0..b.shape.len()).filter(|d| !sb.contains(d)).collect();
    let mut shape: Vec<usize> = fa.iter().map(|&d| a.shape[d]).collect();
    shape.extend(fb.iter().map(|&d| b.shape[d]));
    let ks: Vec<usize> = sa.iter().map(|&d| a.shape[d]).collect();
    let kn: usize = ks.iter().product();
    let n: usize = shape.iter().product();
    let data = (0..n)
        .map(|i| {
            let o = unravel(i, &shape);
            (0..kn)
                .map(|k| {
                    let kk = unravel(k, &ks);
                    let (mut ia, mut ib) = (vec![0; a.shape.len()], vec![0; b.shape.len()]);
                    for (j, &d) in fa.iter().enumerate() {
                        ia[d] = o[j];
                    }
                    for (j, &d) in fb.iter().enumerate() {
                        ib[d] = o[fa.len() + j];
                    }
                    for (j, (&da, &db)) in sa.iter().zip(sb).enumerate() {
                        (ia[da], ib[db]) = (kk[j], kk[j]);
                    }
                    a.at(&ia) * b.at(&ib)
                })
                .sum()
        })
        .collect();
    Host::new(&shape, data)
}

fn products<T: Real>() {
    let mut rng = Rng::new(21);
    let tol = if T::DTYPE == gpuarray::DType::F16 {
        1e-2
    } else {
        1e-6
    };
    let (a, ha) = view::<T>(&mut rng, &[3, 4, 5], 0, 6);
    let (b, hb) = view::<T>(&mut rng, &[5, 2, 4], 0, 6);
    let got = a.tensordot_axes(&b, [-1, 1], [0, 2]).unwrap();
    let want = tensordot_model(&ha, &hb, &[2, 1], &[0, 2]);
    assert_eq!(got.shape(), &want.shape[..]);
    assert_close(&host(&got), &want.data, 0.0, tol);
    let (c, hc) = view::<T>(&mut rng, &[4, 5, 3], 0, 6);
    let got = a.tensordot(&c, 2).unwrap();
    let want = tensordot_model(&ha, &hc, &[1, 2], &[0, 1]);
    assert_close(&host(&got), &want.data, 0.0, tol);
    let outer = a.tensordot(&c, 0).unwrap();
    assert_eq!(outer.shape(), &[3, 4, 5, 4, 5, 3]);
    // inner: the last axes; vdot: flattened.
    let (d, hd) = view::<T>(&mut rng, &[2, 5], 0, 6);
    let got = a.inner(&d).unwrap();
    let want = tensordot_model(&ha, &hd, &[2], &[1]);
    assert_eq!(got.shape(), &[3, 4, 2]);
    assert_close(&host(&got), &want.data, 0.0, tol);
    let (e, he) = view::<T>(&mut rng, &[10], 0, 6);
    let got = d.vdot(&e).unwrap();
    let want: f64 = hd.data.iter().zip(&he.data).map(|(x, y)| x * y).sum();
    assert_eq!(got.shape(), &[] as &[usize]);
    assert_close(&host(&got), &[want], 0.0, tol);
    // kron of a 2-D and a 1-D view.
    let got = d.kron(&e.slice(0..3).unwrap()).unwrap();
    let mut want = vec![];
    for i in 0..2 {
        for j in 0..15 {
            want.push(hd.at(&[i, j / 3]) * he.data[j % 3]);
        }
    }
    assert_eq!(got.shape(), &[2, 15]);
    assert_close(&host(&got), &want, 0.0, 0.0);
    // Zero sizes.
    let z = dev().zeros::<T>([3, 0]).unwrap();
    let zt = dev().zeros::<T>([0, 2]).unwrap();
    let got = z.tensordot(&zt, 1).unwrap();
    assert_close(&host(&got), &[0.0; 6], 0.0, 0.0);
    assert_eq!(z.kron(&d).unwrap().shape(), &[6, 0]);
}

#[test]
fn tensordot_inner_vdot_kron_match_numpy() {
    all_dtypes!(products);
}

fn sets_and_lexsort<T: Real>() {
    let mut rng = Rng::new(22);
    let (x, hx) = view::<T>(&mut rng, &[7, 3], 0, 30);
    let (set, hs) = view::<T>(&mut rng, &[2, 5], 0, 30);
    let got = x.isin(&set).unwrap();
    assert_eq!(got.shape(), &[7, 3]);
    let want: Vec<bool> = hx.data.iter().map(|v| hs.data.contains(v)).collect();
    assert_eq!(got.to_vec().unwrap(), want);
    assert_eq!(x.in1d(&set).unwrap().to_vec().unwrap(), want);
    let empty = dev().zeros::<T>([0]).unwrap();
    assert_eq!(x.isin(&empty).unwrap().to_vec().unwrap(), vec![false; 21]);
    assert_eq!(empty.isin(&set).unwrap().len(), 0);
    // lexsort of three keys with many ties (values 0..3), the last primary.
    let keys: Vec<(Array<T>, Host)> = (0..3).map(|_| view::<T>(&mut rng, &[37], 0, 3)).collect();
    let refs: Vec<&Array<T>> = keys.iter().map(|k| &k.0).collect();
    let got = Array::lexsort(&refs).unwrap().to_vec().unwrap();
    let mut want: Vec<i64> = (0..37).collect();
    want.sort_by(|&i, &j| {
        let key = |p: i64| [2, 1, 0].map(|k| keys[k].1.data[p as usize] as i64);
        key(i).cmp(&key(j))
    });
    assert_eq!(got, want);
    assert_eq!(Array::lexsort(&[&empty]).unwrap().len(), 0);
}

#[test]
fn isin_in1d_and_lexsort_match_numpy() {
    all_dtypes!(sets_and_lexsort);
}

#[test]
fn float_sets_treat_nan_and_negative_zero_as_numpy() {
    let x = dev()
        .from_slice(&[f32::NAN, -0.0, 1.0, f32::INFINITY], [4])
        .unwrap();
    let set = dev()
        .from_slice(&[f32::NAN, 0.0, f32::INFINITY], [3])
        .unwrap();
    assert_eq!(
        x.isin(&set).unwrap().to_vec().unwrap(),
        vec![false, true, false, true]
    );
    let a = dev()
        .from_slice(&[1.0f32, f32::NAN, 1.0, 0.0], [4])
        .unwrap();
    let b = dev()
        .from_slice(&[2.0f32, 2.0, 2.0, f32::NAN], [4])
        .unwrap();
    // Primary b: the 2s in order of a (1, 1, NaN last, ties stable), then NaN.
    assert_eq!(
        Array::lexsort(&[&a, &b]).unwrap().to_vec().unwrap(),
        vec![0, 2, 1, 3]
    );
}

fn nan_parts<T: Real>() {
    let mut rng = Rng::new(23);
    let (x, hx) = view::<T>(&mut rng, &[4, 6], 1, 3);
    let x = if T::DTYPE.is_float() {
        let nan = dev().from_slice(&[T::from_f64(f64::NAN)], [1]).unwrap();
        let m = x.lt_scalar(T::from_f64(2.0)).unwrap();
        Array::where_(&m, &nan, &x).unwrap()
    } else {
        x
    };
    let hx = if T::DTYPE.is_float() {
        hx.map(|v| if v < 2.0 { f64::NAN } else { v })
    } else {
        hx
    };
    let clean = |v: f64, id: f64| if v.is_nan() { id } else { v };
    let tol = if T::DTYPE == gpuarray::DType::F16 {
        1e-3
    } else {
        1e-6
    };
    let all: f64 = hx.data.iter().map(|&v| clean(v, 1.0)).product();
    assert_close(
        &host(&x.nanprod(None, false).unwrap()),
        &[T::from_f64(all).to_f64()],
        0.0,
        tol,
    );
    let rows: Vec<f64> = (0..4)
        .map(|r| (0..6).map(|c| clean(hx.at(&[r, c]), 1.0)).product())
        .collect();
    assert_close(&host(&x.nanprod(-1, false).unwrap()), &rows, 0.0, tol);
    let mut acc = 0.0;
    let flat: Vec<f64> = hx
        .data
        .iter()
        .map(|&v| {
            acc += clean(v, 0.0);
            acc
        })
        .collect();
    assert_close(&host(&x.nancumsum(None).unwrap()), &flat, 0.0, tol);
    let mut cols = vec![0.0; 24];
    for r in 0..4 {
        for c in 0..6 {
            cols[r * 6 + c] =
                clean(hx.at(&[r, c]), 0.0) + if r > 0 { cols[(r - 1) * 6 + c] } else { 0.0 };
        }
    }
    assert_close(&host(&x.nancumsum(0).unwrap()), &cols, 0.0, tol);
    let e = dev().zeros::<T>([0, 3]).unwrap();
    assert_close(&host(&e.nanprod(0, false).unwrap()), &[1.0; 3], 0.0, 0.0);
    assert_eq!(e.nancumsum(None).unwrap().shape(), &[0]);
    assert!(matches!(
        x.nanprod(2, false),
        Err(Error::AxisOutOfRange { .. })
    ));
}

#[test]
fn nanprod_and_nancumsum_match_numpy() {
    all_dtypes!(nan_parts);
}

#[test]
fn logsumexp_matches_a_shifted_f64_reference() {
    let mut rng = Rng::new(24);
    let (x, hx) = view::<f32>(&mut rng, &[5, 3, 4], -80, 80);
    let lse = |vals: &[f64]| {
        let m = vals.iter().cloned().fold(f64::NEG_INFINITY, f64::max);
        m + vals.iter().map(|v| (v - m).exp()).sum::<f64>().ln()
    };
    let got = x.logsumexp([0, -1], false).unwrap();
    let want: Vec<f64> = (0..3)
        .map(|j| {
            let v: Vec<f64> = (0..5)
                .flat_map(|i| (0..4).map(move |k| (i, k)))
                .map(|(i, k)| hx.at(&[i, j, k]))
                .collect();
            lse(&v)
        })
        .collect();
    assert_eq!(got.shape(), &[3]);
    assert_close(&host(&got), &want, 1e-5, 1e-5);
    let kept = x.logsumexp(None, true).unwrap();
    assert_eq!(kept.shape(), &[1, 1, 1]);
    assert_close(&host(&kept), &[lse(&hx.data)], 1e-5, 1e-5);
    let inf = f32::INFINITY;
    let s = dev()
        .from_slice(&[-inf, -inf, 1.0, inf, f32::NAN, 0.0, 1e30, 1e30], [4, 2])
        .unwrap();
    let got = host(&s.logsumexp([1], false).unwrap());
    let big = 1e30f32 as f64 + std::f64::consts::LN_2;
    assert_close(
        &got,
        &[f64::NEG_INFINITY, f64::INFINITY, f64::NAN, big],
        0.0,
        1e-6,
    );
    if_supported::<f64>(|| {
        let d = dev().from_slice(&[700.0f64, 700.0, -1e308], [3]).unwrap();
        let got = d.logsumexp(None, false).unwrap().to_scalar().unwrap();
        assert!((got - (700.0 + std::f64::consts::LN_2)).abs() < 1e-12);
    });
    assert!(matches!(
        x.logsumexp([0, 0], false),
        Err(Error::InvalidArgument { .. })
    ));
    assert!(matches!(
        x.logsumexp([3], false),
        Err(Error::AxisOutOfRange { .. })
    ));
}

#[test]
fn product_and_set_arguments_are_checked() {
    let d = dev();
    let a = d.zeros::<f32>([2, 3]).unwrap();
    let b = d.zeros::<f32>([4, 2]).unwrap();
    let inv = |r: gpuarray::Result<Array<f32>>| matches!(r, Err(Error::InvalidArgument { .. }));
    assert!(inv(a.tensordot_axes(&b, [0], gpuarray::Axes::Many(vec![]))));
    assert!(inv(a.tensordot_axes(&a, [0, 0], [0, 1])));
    assert!(inv(a.tensordot(&b, 3)));
    assert!(matches!(
        a.tensordot_axes(&b, [1], [0]),
        Err(Error::ShapeMismatch { .. })
    ));
    assert!(matches!(
        a.tensordot_axes(&b, [2], [0]),
        Err(Error::AxisOutOfRange { .. })
    ));
    assert!(matches!(a.inner(&b), Err(Error::ShapeMismatch { .. })));
    assert!(matches!(a.vdot(&b), Err(Error::SizeMismatch { .. })));
    let k1 = d.zeros::<f32>([3]).unwrap();
    let k2 = d.zeros::<f32>([4]).unwrap();
    assert!(matches!(
        Array::lexsort(&[&k1, &k2]),
        Err(Error::SizeMismatch { .. })
    ));
    assert!(matches!(
        Array::<f32>::lexsort(&[]),
        Err(Error::InvalidArgument { .. })
    ));
    assert!(matches!(
        Array::lexsort(&[&a]),
        Err(Error::InvalidArgument { .. })
    ));
    let s = d.from_slice(&[3.0f32], []).unwrap();
    assert_eq!(s.inner(&k1).unwrap().to_vec().unwrap(), vec![0.0; 3]);
}
