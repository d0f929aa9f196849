//! Reversed views as operands of reductions, products, sort, scan, index, join and conv.

use super::*;

/// The reduction of `h` along `axis` by `f` over the elements in order (first to last).
fn fold_axis(h: &H, axis: usize, f: impl Fn(&[f64]) -> f64) -> H {
    let mut shape = h.shape.clone();
    shape.remove(axis);
    let n = shape.iter().product();
    let v = (0..n)
        .map(|i| {
            let mut idx = unravel(i, &shape);
            idx.insert(axis, 0);
            let line: Vec<f64> = (0..h.shape[axis])
                .map(|k| {
                    idx[axis] = k;
                    h.at(&idx)
                })
                .collect();
            f(&line)
        })
        .collect();
    H { shape, v }
}

fn sum(v: &[f64]) -> f64 {
    v.iter().sum()
}
fn max(v: &[f64]) -> f64 {
    v.iter().copied().fold(f64::NEG_INFINITY, f64::max)
}
/// NumPy's argmax: the first position of the largest value.
fn argmax(v: &[f64]) -> f64 {
    let m = max(v);
    v.iter().position(|&x| x == m).unwrap() as f64
}

/// A 3-D view with negative steps on some axes, and its host model.
fn views3(rng: &mut Rng) -> Vec<(Array<f32>, H)> {
    let h = H::iota(&[5, 6, 7], rng, -20, 20);
    let a = h.up::<f32>();
    let cases = [
        vec![rev()],
        vec![Slice::from(..), rev()],
        vec![
            Slice::from(..),
            Slice::from(..),
            Slice::new(-1, Some(0), -2),
        ],
        vec![Slice::new(3, None, -1), Slice::from(1..).step(2), rev()],
        vec![rev(), rev(), rev()],
        // Axes of extent 1 walked backwards: contiguous layouts with a negative stride
        // (reductions once recursed on them without end, found by tests/fuzz.rs).
        // From offset 0 (x[0::-1]) such a view is contiguous as it is.
        vec![Slice::new(0, None, -1)],
        vec![
            Slice::new(0, None, -1),
            Slice::from(..),
            Slice::new(0, None, -2),
        ],
        vec![Slice::from(..), Slice::new(4, Some(3), -1), rev()],
    ];
    cases
        .into_iter()
        .map(|s| (a.slice(s.clone()).unwrap(), h.slice(&s)))
        .collect()
}

/// Whole and per-axis sum, max, argmax and mean of views reversed along kept and reduced
/// axes alike (ties in argmax: the first in the view's order, as NumPy).
#[test]
fn reductions() {
    let mut rng = Rng::new(3);
    for (v, h) in views3(&mut rng) {
        let all = H {
            shape: vec![h.v.len()],
            v: h.v.clone(),
        };
        assert_close(&host(&v.sum().unwrap()), &[sum(&h.v)], 0.0, 0.0);
        assert_close(&host(&v.max().unwrap()), &[max(&h.v)], 0.0, 0.0);
        assert_close(&host(&v.argmax().unwrap()), &[argmax(&all.v)], 0.0, 0.0);
        let n = h.v.len() as f64;
        assert_close(&host(&v.mean().unwrap()), &[sum(&h.v) / n], 1e-6, 1e-6);
        for d in 0..3 {
            check(
                &v.sum_axis(d, false).unwrap(),
                &fold_axis(&h, d, sum),
                "sum_axis",
            );
            check(
                &v.max_axis(d, false).unwrap(),
                &fold_axis(&h, d, max),
                "max_axis",
            );
            let am = v.argmax_axis(d, false).unwrap();
            check(&am, &fold_axis(&h, d, argmax), "argmax_axis");
        }
        let s01 = fold_axis(&fold_axis(&h, 0, sum), 0, sum);
        check(&v.sum_axis([0, 1], false).unwrap(), &s01, "sum_axis");
        // The same elements in another order give the same sum bits (sum of x[::-1]).
        let r = v.slice([rev(), rev(), rev()]).unwrap();
        assert_close(&host(&r.sum().unwrap()), &[sum(&h.v)], 0.0, 0.0);
    }
}

/// Reductions of empty views walked backwards: the identity or a typed error, as NumPy.
#[test]
fn empty_reversed_reductions() {
    let x = dev()
        .arange::<f32>(0.0, 12.0, 1.0)
        .unwrap()
        .reshape([3, 4])
        .unwrap();
    let e = x.slice([Slice::new(0, Some(2), -1), rev()]).unwrap();
    assert_eq!(e.shape(), &[0, 4]);
    assert_eq!(host(&e.sum().unwrap()), vec![0.0]);
    assert_eq!(host(&e.sum_axis(0, false).unwrap()), vec![0.0; 4]);
    assert!(
        matches!(e.max(), Err(gpuarray::Error::InvalidArgument { .. })),
        "{:?}",
        e.max()
    );
    assert!(e.argmax().is_err());
    let c = e.contiguous().unwrap();
    assert!(c.strides().iter().all(|&s| s >= 0), "{:?}", c.strides());
}

/// A host matrix product.
fn matmul(a: &H, b: &H) -> H {
    let (m, k, n) = (a.shape[0], a.shape[1], b.shape[1]);
    let v = (0..m * n)
        .map(|i| (0..k).map(|l| a.at(&[i / n, l]) * b.at(&[l, i % n])).sum())
        .collect();
    H {
        shape: vec![m, n],
        v,
    }
}

/// Products, sorts, scans, gathers, selections, joins and a convolution take reversed views
/// as operands (reading them in place or copying first) and give NumPy's results.
#[test]
fn other_families() {
    let mut rng = Rng::new(5);
    let ha = H::iota(&[9, 6], &mut rng, -9, 9);
    let hb = H::iota(&[6, 7], &mut rng, -9, 9);
    let (a, b) = (ha.up::<f32>(), hb.up::<f32>());
    let sa = [rev(), Slice::from(..)];
    let sb = [Slice::from(..), Slice::new(-1, None, -1)];
    let (va, vb) = (a.slice(sa).unwrap(), b.slice(sb).unwrap());
    let (hva, hvb) = (ha.slice(&sa), hb.slice(&sb));
    check(&va.matmul(&vb).unwrap(), &matmul(&hva, &hvb), "matmul");
    let vat = va.t().slice(rev()).unwrap();
    let hvat = hva.transpose(&[1, 0]).slice(&[rev()]);
    check(
        &vat.t().matmul(&vb).unwrap(),
        &matmul(&hvat.transpose(&[1, 0]), &hvb),
        "matmul t",
    );

    // sort of a reversed 1-D view and along the last axis of a 2-D one.
    let mut want = ha.v.clone();
    want.reverse();
    let flat = a.reshape([54]).unwrap().slice(rev()).unwrap();
    want.sort_by(f64::total_cmp);
    assert_close(&host(&flat.sort().unwrap()), &want, 0.0, 0.0);
    let sorted = va
        .slice([Slice::from(..), rev()])
        .unwrap()
        .sort_axis(-1)
        .unwrap();
    let hs = fold_rows(&hva.slice(&[Slice::from(..), rev()]), |row| {
        let mut r = row.to_vec();
        r.sort_by(f64::total_cmp);
        r
    });
    check(&sorted, &hs, "sort_axis");

    // cumsum along each axis of a view reversed along both.
    let both = [rev(), Slice::new(-2, None, -1)];
    let (vv, hv) = (a.slice(both).unwrap(), ha.slice(&both));
    let cum = |row: &[f64]| {
        row.iter()
            .scan(0.0, |s, x| {
                *s += x;
                Some(*s)
            })
            .collect()
    };
    check(&vv.cumsum(1).unwrap(), &fold_rows(&hv, cum), "cumsum 1");
    let c0 = vv.t().cumsum(1).unwrap().t();
    check(
        &vv.cumsum(0).unwrap(),
        &H {
            shape: hv.shape.clone(),
            v: host(&c0.contiguous().unwrap()),
        },
        "cumsum 0",
    );
    check(
        &c0,
        &fold_rows(&hv.transpose(&[1, 0]), cum).transpose(&[1, 0]),
        "cumsum 0 ref",
    );

    // take along axis 0 and 1, where, concatenate.
    let idx = dev().from_slice(&[2u32, 0, 8, 8, 5], [5]).unwrap();
    let ht = hv.build(vec![5, hv.shape[1]], |i| vec![[2, 0, 8, 8, 5][i[0]], i[1]]);
    check(&vv.take(&idx, 0).unwrap(), &ht, "take");
    let mask_h: Vec<bool> = (0..hv.v.len()).map(|i| i % 3 == 1).collect();
    let mask = dev().from_slice(&mask_h, hv.shape.clone()).unwrap();
    let other = a.slice([Slice::from(..), Slice::from(..5)]).unwrap();
    let ho = ha.slice(&[Slice::from(..), Slice::from(..5)]);
    let hw = H {
        shape: hv.shape.clone(),
        v: (0..hv.v.len())
            .map(|i| if mask_h[i] { hv.v[i] } else { ho.v[i] })
            .collect(),
    };
    check(&Array::where_(&mask, &vv, &other).unwrap(), &hw, "where");
    let cat = Array::concatenate(&[&vv, &other, &vv.slice(rev()).unwrap()], 0).unwrap();
    let mut hc = hv.v.clone();
    hc.extend(&ho.v);
    hc.extend(hv.slice(&[rev()]).v);
    check(
        &cat,
        &H {
            shape: vec![27, 5],
            v: hc,
        },
        "concatenate",
    );

    // A 1-D convolution of a reversed signal with a reversed kernel.
    let x = dev()
        .from_slice(&[1.0f32, 2.0, 3.0, 4.0, 5.0], [5])
        .unwrap();
    let k = dev().from_slice(&[1.0f32, 0.0, -1.0], [3]).unwrap();
    let y = gpuarray::signal::convolve(
        &x.slice(rev()).unwrap(),
        &k.flip(0).unwrap(),
        gpuarray::signal::Mode::Full,
    )
    .unwrap();
    // [5 4 3 2 1] * [-1 0 1]
    assert_eq!(
        y.to_vec().unwrap(),
        vec![-5.0, -4.0, 2.0, 2.0, 2.0, 2.0, 1.0]
    );
}

/// `f` applied to each row (last axis) of a 2-D host array.
fn fold_rows(h: &H, f: impl Fn(&[f64]) -> Vec<f64>) -> H {
    let c = h.shape[1];
    let v = h.v.chunks(c.max(1)).flat_map(f).collect();
    H {
        shape: h.shape.clone(),
        v,
    }
}
