//! Negative slice steps and `flip` as views with negative strides: NumPy's `x[::-1]`,
//! `x[5:1:-2]`, `x[::-3]`, against a CPU reference that walks NumPy's index rule on a host
//! vector; every dtype, 1-D to 4-D, combined with transposes and broadcasting, as operands of
//! the elementwise, reduction, product, sort, scan, index, join and conv families, and as
//! targets of `assign` and `fill` (writes go through to the viewed buffer).

mod common;

use common::{assert_close, dev, host, if_supported, unravel, Rng};
use gpuarray::{f16, Array, Axis, Element, Error, Slice};

/// NumPy's indices of `start:end:step` over an axis of `len` (bounds within the axis).
fn numpy_indices(s: Slice, len: usize) -> Vec<usize> {
    let n = len as isize;
    let fix = |i: isize| if i < 0 { i + n } else { i };
    let back = s.step < 0;
    let mut i = s.start.map(fix).unwrap_or(if back { n - 1 } else { 0 });
    let end = s.end.map(fix).unwrap_or(if back { -1 } else { n });
    if back {
        i = i.min(n - 1);
    }
    let mut out = Vec::new();
    while (s.step > 0 && i < end) || (s.step < 0 && i > end) {
        out.push(i as usize);
        i += s.step;
    }
    out
}

/// A host array: shape and row-major values.
#[derive(Debug, Clone)]
struct H {
    shape: Vec<usize>,
    v: Vec<f64>,
}

impl H {
    fn iota(shape: &[usize], rng: &mut Rng, lo: i64, hi: i64) -> H {
        let n = shape.iter().product();
        H {
            shape: shape.to_vec(),
            v: rng.ints(n, lo, hi),
        }
    }
    fn at(&self, idx: &[usize]) -> f64 {
        let mut o = 0;
        for (d, &i) in idx.iter().enumerate() {
            o = o * self.shape[d] + i;
        }
        self.v[o]
    }
    /// Element `idx` of the result is element `map(idx)` of self.
    fn build(&self, shape: Vec<usize>, map: impl Fn(&[usize]) -> Vec<usize>) -> H {
        let n = shape.iter().product();
        let v = (0..n).map(|i| self.at(&map(&unravel(i, &shape)))).collect();
        H { shape, v }
    }
    /// NumPy's slicing of the leading axes.
    fn slice(&self, s: &[Slice]) -> H {
        let idx: Vec<Vec<usize>> = (0..self.shape.len())
            .map(|d| match s.get(d) {
                Some(&sl) => numpy_indices(sl, self.shape[d]),
                None => (0..self.shape[d]).collect(),
            })
            .collect();
        let shape = idx.iter().map(|v| v.len()).collect();
        self.build(shape, |i| {
            i.iter().enumerate().map(|(d, &k)| idx[d][k]).collect()
        })
    }
    fn transpose(&self, perm: &[usize]) -> H {
        let shape = perm.iter().map(|&p| self.shape[p]).collect();
        self.build(shape, |i| {
            let mut src = vec![0; i.len()];
            for (k, &p) in perm.iter().enumerate() {
                src[p] = i[k];
            }
            src
        })
    }
    fn broadcast_to(&self, shape: &[usize]) -> H {
        let lead = shape.len() - self.shape.len();
        self.build(shape.to_vec(), |i| {
            (0..self.shape.len())
                .map(|d| if self.shape[d] == 1 { 0 } else { i[lead + d] })
                .collect()
        })
    }
    fn up<T: Element>(&self) -> Array<T> {
        let t: Vec<T> = self.v.iter().map(|&x| T::from_f64(x)).collect();
        dev().from_slice(&t, self.shape.clone()).unwrap()
    }
}

fn rev() -> Slice {
    Slice::from(..).step(-1)
}

fn check<T: Element>(a: &Array<T>, h: &H, what: &str) {
    assert_eq!(a.shape(), h.shape.as_slice(), "{what}: shape");
    assert_close(&host(a), &h.v, 0.0, 0.0);
}

/// Every start/end/step combination (None, negative, positive, past the end) on lengths 0,
/// 1, 2, 5 and 10 gives NumPy's elements, and each is a view of the same buffer.
#[test]
fn one_axis_matches_numpy() {
    let x = dev().arange::<i32>(0, 10, 1).unwrap();
    let hx = H {
        shape: vec![10],
        v: (0..10).map(f64::from).collect(),
    };
    for len in [0usize, 1, 2, 5, 10] {
        let a = x.slice(0..len).unwrap();
        let ha = hx.slice(&[Slice::from(0..len)]);
        let n = len as isize;
        let mut bounds: Vec<Option<isize>> = vec![None];
        bounds.extend((-n..=n).map(Some));
        for &start in &bounds {
            for &end in &bounds {
                for step in [-4isize, -3, -2, -1, 1, 2, 3] {
                    let s = Slice::numpy(start, end, Some(step));
                    let v = a.slice(s).unwrap();
                    check(&v, &ha.slice(&[s]), &format!("{len} {s:?}"));
                }
            }
        }
    }
}

/// Bad bounds and a zero step are typed errors; the array stays usable.
#[test]
fn bad_slices_are_errors() {
    let x = dev().arange::<f32>(0.0, 5.0, 1.0).unwrap();
    for s in [
        Slice::new(6, None, -1),
        Slice::new(-6, None, -1),
        Slice::numpy(None, Some(7), Some(-2)),
        Slice::numpy(None, Some(-7), Some(-1)),
    ] {
        let r = x.slice(s);
        assert!(
            matches!(
                r,
                Err(Error::SliceOutOfRange {
                    axis: 0,
                    len: 5,
                    ..
                })
            ),
            "{s:?}: {r:?}"
        );
    }
    let r = x.slice(Slice::from(..).step(0));
    assert!(
        matches!(r, Err(Error::SliceOutOfRange { step: 0, .. })),
        "{r:?}"
    );
    assert_eq!(x.to_vec().unwrap(), vec![0.0, 1.0, 2.0, 3.0, 4.0]);
    // A usize step past isize::MAX saturates: one element, either way.
    let v = x.slice(Slice::from(..).step(usize::MAX)).unwrap();
    assert_eq!(v.to_vec().unwrap(), vec![0.0]);
    let v = x.slice(Slice::from(..).step(isize::MIN)).unwrap();
    assert_eq!(v.to_vec().unwrap(), vec![4.0]);
}

/// Reversed and stepped views of every dtype: to_vec, contiguous, an elementwise op with the
/// view on each side, and writes through `fill` and `assign`.
fn dtype_case<T: Element>(lo: i64, hi: i64) {
    let mut rng = Rng::new(7);
    for n in [0usize, 1, 3, 4, 13, 258] {
        let h = H::iota(&[n], &mut rng, lo, hi);
        let a = h.up::<T>();
        for s in [
            rev(),
            Slice::numpy(None, None, Some(-3)),
            Slice::numpy(Some(-2), Some(0), Some(-2)),
        ] {
            if n < 2 && s.start.is_some() {
                continue;
            }
            let v = a.slice(s).unwrap();
            let hv = h.slice(&[s]);
            check(&v, &hv, T::DTYPE.name());
            check(&v.contiguous().unwrap(), &hv, "contiguous");
            assert!(v.len() <= 1 || !v.is_contiguous());
            // v + v.reversed, and the other way round: both operands negative-strided.
            let w = v.slice(rev()).unwrap();
            let hw = hv.slice(&[rev()]);
            let sum = H {
                shape: hv.shape.clone(),
                v: hv.v.iter().zip(&hw.v).map(|(x, y)| x + y).collect(),
            };
            check(&(&v + &w), &sum, "v + w");
            check(&(&w + &v), &sum, "w + v");
        }
        // Writes through a reversed, stepped view reach only its elements (the packed types
        // take writes into strided views where they take any: else a typed refusal).
        let b = h.up::<T>();
        let s = Slice::numpy(None, None, Some(-2));
        let taken = numpy_indices(s, n);
        let mut want = h.v.clone();
        match b.slice(s).unwrap().fill(T::from_f64(1.0)) {
            Err(Error::Unsupported { .. }) if T::DTYPE.size() < 4 => continue,
            r => r.unwrap(),
        }
        for &i in &taken {
            want[i] = 1.0;
        }
        assert_close(&host(&b), &want, 0.0, 0.0);
        let src = H::iota(&[taken.len()], &mut rng, lo, hi);
        b.slice(s).unwrap().assign(&src.up::<T>()).unwrap();
        for (k, &i) in taken.iter().enumerate() {
            want[i] = src.v[k];
        }
        assert_close(&host(&b), &want, 0.0, 0.0);
    }
}

#[test]
fn every_dtype() {
    dtype_case::<f32>(-100, 100);
    dtype_case::<i32>(-100, 100);
    dtype_case::<u32>(0, 100);
    dtype_case::<u8>(0, 100);
    dtype_case::<i8>(-60, 60);
    dtype_case::<u16>(0, 1000);
    dtype_case::<i16>(-1000, 1000);
    if_supported::<f16>(|| dtype_case::<f16>(-100, 100));
    if_supported::<f64>(|| dtype_case::<f64>(-100, 100));
    if_supported::<i64>(|| dtype_case::<i64>(-100, 100));
    if_supported::<u64>(|| dtype_case::<u64>(0, 100));
}

/// 2-D, 3-D and 4-D arrays with negative steps on each axis in turn and on all of them,
/// transposed, broadcast, and viewed again (negative of negative is positive).
#[test]
fn multi_dimensional_views() {
    let mut rng = Rng::new(11);
    for shape in [vec![7, 5], vec![3, 4, 5], vec![2, 3, 4, 5], vec![40, 33]] {
        let h = H::iota(&shape, &mut rng, -50, 50);
        let a = h.up::<f32>();
        let nd = shape.len();
        for axis in 0..=nd {
            // Axis `nd` stands for every axis at once, with steps -1, -2, -3, ...
            let s: Vec<Slice> = (0..nd)
                .map(|d| match axis {
                    x if x == nd => Slice::from(..).step(-(d as isize) - 1),
                    x if x == d => Slice::new(-1, None, -2),
                    _ => Slice::from(..),
                })
                .collect();
            let v = a.slice(s.clone()).unwrap();
            let hv = h.slice(&s);
            check(&v, &hv, &format!("{shape:?} {s:?}"));
            let perm: Vec<usize> = (0..nd).rev().collect();
            check(
                &v.transpose(&perm).unwrap(),
                &hv.transpose(&perm),
                "transposed",
            );
            check(
                &v.t().contiguous().unwrap(),
                &hv.transpose(&perm),
                "t contiguous",
            );
            // Elementwise with a transposed contiguous operand (the tiled walk where big).
            let other = H::iota(&hv.transpose(&perm).shape, &mut rng, -9, 9);
            let want = H {
                shape: other.shape.clone(),
                v: hv
                    .transpose(&perm)
                    .v
                    .iter()
                    .zip(&other.v)
                    .map(|(x, y)| x * y)
                    .collect(),
            };
            check(&(&v.t() * &other.up::<f32>()), &want, "tiled mul");
            // Views of the view: reversing back gives the stepped original.
            let back: Vec<Slice> = (0..nd).map(|_| rev()).collect();
            let w = v.slice(back.clone()).unwrap();
            check(&w, &hv.slice(&back), "view of view");
            let neg: Vec<isize> = v.strides().iter().map(|s| -s).collect();
            assert_eq!(w.strides(), neg.as_slice());
            // A reversed row broadcast against the whole view.
            let row = v.slice_axis(Axis(0), 0..1).unwrap();
            let hrow = hv.slice(&[Slice::from(0..1)]);
            let sum = H {
                shape: hv.shape.clone(),
                v: hv
                    .v
                    .iter()
                    .zip(&hrow.broadcast_to(&hv.shape).v)
                    .map(|(x, y)| x - y)
                    .collect(),
            };
            check(
                &(&v - &row.broadcast_to(hv.shape.clone()).unwrap()),
                &sum,
                "broadcast",
            );
            check(&v.sub(&row).unwrap(), &sum, "broadcast op");
        }
    }
}

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
                &v.sum_axis(Axis(d)).unwrap(),
                &fold_axis(&h, d, sum),
                "sum_axis",
            );
            check(
                &v.max_axis(Axis(d)).unwrap(),
                &fold_axis(&h, d, max),
                "max_axis",
            );
            let am = v.argmax_axis(Axis(d)).unwrap();
            check(&am, &fold_axis(&h, d, argmax), "argmax_axis");
        }
        let s01 = fold_axis(&fold_axis(&h, 0, sum), 0, sum);
        check(&v.sum_axes(&[0, 1], false).unwrap(), &s01, "sum_axes");
        // The same elements in another order give the same sum bits (sum of x[::-1]).
        let r = v.slice([rev(), rev(), rev()]).unwrap();
        assert_close(&host(&r.sum().unwrap()), &[sum(&h.v)], 0.0, 0.0);
    }
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

/// `flip` and friends are views (writes go through), flip of flip restores the strides,
/// and 2-D `assign`/`fill` into negative-step views change exactly their elements.
#[test]
fn flips_and_writes() {
    let mut rng = Rng::new(9);
    let h = H::iota(&[4, 5, 3], &mut rng, -9, 9);
    let a = h.up::<i32>();
    let f = a.flip(1).unwrap();
    check(&f, &h.slice(&[Slice::from(..), rev()]), "flip 1");
    check(
        &a.flip_all().unwrap(),
        &h.slice(&[rev(), rev(), rev()]),
        "flip_all",
    );
    check(
        &a.flip_axes(&[0, -1, 0]).unwrap(),
        &h.slice(&[rev(), Slice::from(..), rev()]),
        "flip_axes",
    );
    assert_eq!(f.flip(1).unwrap().strides(), a.strides());
    assert_eq!(f.flip(1).unwrap().offset(), a.offset());
    assert!(matches!(a.flip(3), Err(Error::AxisOutOfRange { .. })));
    assert_eq!(
        dev().zeros::<f32>([0, 3]).unwrap().flip(0).unwrap().shape(),
        &[0, 3]
    );
    // Writing through the flipped view changes `a`.
    f.slice_axis(Axis(1), 0..1).unwrap().fill(100).unwrap();
    let mut want = h.clone();
    for i in 0..4 {
        for k in 0..3 {
            want.v[i * 15 + 4 * 3 + k] = 100.0;
        }
    }
    check(&a, &want, "fill through flip");
    // assign into a 2-D view stepping backwards on both axes.
    let m = H::iota(&[6, 7], &mut rng, -9, 9);
    let b = m.up::<f32>();
    let s = [Slice::new(4, None, -2), Slice::new(-1, Some(1), -3)];
    let src = H::iota(&m.slice(&s).shape, &mut rng, 10, 20);
    b.slice(s).unwrap().assign(&src.up::<f32>()).unwrap();
    let (rows, cols) = (numpy_indices(s[0], 6), numpy_indices(s[1], 7));
    let mut want = m.v.clone();
    for (i, &r) in rows.iter().enumerate() {
        for (j, &c) in cols.iter().enumerate() {
            want[r * 7 + c] = src.v[i * cols.len() + j];
        }
    }
    assert_close(&host(&b), &want, 0.0, 0.0);
    // In-place arithmetic into a reversed view reads and writes the same elements.
    let v = b.slice(rev()).unwrap();
    v.add_into(&v.t().t(), &v).unwrap();
    let want: Vec<f64> = want.iter().map(|x| 2.0 * x).collect();
    assert_close(&host(&b), &want, 0.0, 0.0);
}

/// Printing a reversed view shows its elements in its order, as its contiguous copy does.
#[test]
fn printing() {
    let x = dev()
        .arange::<f32>(0.0, 6.0, 1.0)
        .unwrap()
        .reshape([2, 3])
        .unwrap();
    let v = x.slice([rev(), Slice::new(-1, None, -2)]).unwrap();
    assert_eq!(format!("{v}"), "[[5. 3.]\n [2. 0.]]");
    assert_eq!(format!("{v}"), format!("{}", v.contiguous().unwrap()));
    assert!(format!("{v:?}").contains("-3"), "{v:?}");
}

/// An ndarray view with negative strides arrives as a view with the same strides.
#[cfg(feature = "ndarray")]
#[test]
fn from_ndarray_reversed() {
    let a = ndarray::Array::from_shape_fn((4, 5), |(i, j)| (i * 5 + j) as f32);
    let r = a.slice(ndarray::s![..;-1, ..;-1]);
    let x = dev().from_ndarray(&r).unwrap();
    assert_eq!(x.strides(), &[-5, -1]);
    assert_eq!(x.to_vec().unwrap(), r.iter().copied().collect::<Vec<_>>());
    let t = a.t();
    let r = t.slice(ndarray::s![.., ..;-1]);
    let x = dev().from_ndarray(&r).unwrap();
    assert_eq!(x.strides(), &[1, -5]);
    assert_eq!(x.to_vec().unwrap(), r.iter().copied().collect::<Vec<_>>());
    // Steps with gaps are gathered on the host.
    let r = a.slice(ndarray::s![..;-1, 1..;-2]);
    let x = dev().from_ndarray(&r).unwrap();
    assert_eq!(x.to_vec().unwrap(), r.iter().copied().collect::<Vec<_>>());
}

/// A reversed f32 array larger than one binding on lavapipe (128 MiB): a sum (the same bits
/// as the forward array's: the same elements in the same layout once flipped), a strided
/// cast and an elementwise op, split into binding windows. Long: run with `--ignored`.
#[test]
#[ignore]
fn larger_than_one_binding() {
    let n = 40_000_000usize;
    let data: Vec<f32> = (0..n).map(|i| (i % 1000) as f32).collect();
    let x = dev().from_slice(&data, [n]).unwrap();
    let r = x.slice(rev()).unwrap();
    assert_eq!(
        r.sum().unwrap().to_vec().unwrap(),
        x.sum().unwrap().to_vec().unwrap()
    );
    let s = r
        .slice(Slice::from(..).step(7))
        .unwrap()
        .cast::<f64>()
        .unwrap();
    let want: f64 = (0..n).rev().step_by(7).map(|i| data[i] as f64).sum();
    assert_close(&host(&s.sum().unwrap()), &[want], 0.0, 1e-12);
    let y = (&r + &x).slice(Slice::from(..).step(1_000_003)).unwrap();
    let want: Vec<f64> = (0..n)
        .step_by(1_000_003)
        .map(|i| (data[n - 1 - i] + data[i]) as f64)
        .collect();
    assert_close(&host(&y), &want, 0.0, 0.0);
}
