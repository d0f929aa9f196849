//! top_k, partition / argpartition, searchsorted, unique and quantile / median against CPU references: dtypes,
//! axes, ties, NaNs, -0 / +0, views, zero sizes and bad arguments.

mod common;

use std::cmp::Ordering;

use common::{dev, host, upload, Rng, Ty};
use gpuarray::{Array, Error, Side};

/// NumPy's order of values: NaNs equal and last, -0 == +0.
fn numpy_cmp(a: f64, b: f64) -> Ordering {
    match (a.is_nan(), b.is_nan()) {
        (true, true) => Ordering::Equal,
        (true, false) => Ordering::Greater,
        (false, true) => Ordering::Less,
        _ => a.partial_cmp(&b).unwrap(),
    }
}

/// Values of `T` with ties and, for floats, NaN, infinities and both zeros.
fn values<T: Ty>(rng: &mut Rng, n: usize) -> Vec<f64> {
    (0..n)
        .map(|_| match (rng.unit() * 10.0) as u32 {
            0 if T::FLOAT => f64::NAN,
            1 if T::FLOAT => f64::NEG_INFINITY,
            2 if T::FLOAT => -0.0,
            3 => 0.0,
            4 | 5 => rng.int(0, 4),
            _ if T::SIGNED => rng.int(-1000, 1000),
            _ => rng.int(0, 2000),
        })
        .collect()
}

fn random<T: Ty>(seed: u64, shape: &[usize]) -> (Array<T>, Vec<f64>) {
    let mut rng = Rng::new(seed);
    upload::<T>(dev(), &values::<T>(&mut rng, shape.iter().product()), shape)
}

/// top_k of the last axis of a [rows, len] array against a stable sort of each row.
#[track_caller]
fn check_top_k<T: Ty>(x: &Array<T>, k: usize, largest: bool) {
    let v = host(x);
    let (rows, len) = (x.shape()[0], x.shape()[1]);
    let (vals, idx) = x.top_k(k, -1, largest).unwrap();
    assert_eq!(vals.shape(), &[rows, k]);
    let (vals, idx) = (host(&vals), idx.to_vec().unwrap());
    for r in 0..rows {
        let row = &v[r * len..(r + 1) * len];
        let mut order: Vec<usize> = (0..len).collect();
        order.sort_by(|&p, &q| {
            let c = numpy_cmp(row[p], row[q]);
            if largest {
                c.reverse()
            } else {
                c
            }
        });
        for j in 0..k {
            let (gi, wi) = (idx[r * k + j] as usize, order[j]);
            assert_eq!(
                gi,
                wi,
                "{} row {r} rank {j} (k {k}, largest {largest})",
                T::NAME
            );
            let (g, w) = (vals[r * k + j], row[wi]);
            assert!(g.to_bits() == w.to_bits() || (g.is_nan() && w.is_nan()));
        }
    }
}

fn top_k_all<T: Ty>() {
    for (s, (rows, len)) in [(1usize, 1usize), (3, 7), (5, 257), (2, 5003)]
        .into_iter()
        .enumerate()
    {
        let (x, _) = random::<T>(s as u64, &[rows, len]);
        let ks = if len > 300 {
            vec![5]
        } else {
            vec![0, 1, len.min(5), len]
        };
        for k in ks {
            check_top_k(&x, k, true);
            check_top_k(&x, k, false);
        }
    }
    // Another axis: top_k along axis 0 is top_k of the transpose's rows.
    let (x, _) = random::<T>(9, &[40, 6]);
    let (v0, i0) = x.top_k(3, 0, true).unwrap();
    let (v1, i1) = x.t().contiguous().unwrap().top_k(3, 1, true).unwrap();
    assert_eq!(v0.shape(), &[3, 6]);
    // The i64 positions transposed on the host (copying i64 on the device needs
    // SHADER_INT64, which GL lacks).
    let (h0, h1) = (i0.to_vec().unwrap(), i1.to_vec().unwrap());
    assert_eq!(i1.shape(), &[6, 3]);
    for r in 0..3 {
        for c in 0..6 {
            assert_eq!(h0[r * 6 + c], h1[c * 3 + r], "[{r}, {c}]");
        }
    }
    let (a, b) = (host(&v0.t().contiguous().unwrap()), host(&v1));
    assert!(a
        .iter()
        .zip(&b)
        .all(|(p, q)| p.to_bits() == q.to_bits() || (p.is_nan() && q.is_nan())));
}

/// Partition: the kth element is the sorted one, nothing larger before it, nothing smaller
/// after it; argpartition's indices gather the same.
fn partition_all<T: Ty>() {
    let (x, v) = random::<T>(21, &[1001]);
    let mut sorted = v.clone();
    sorted.sort_by(|p, q| numpy_cmp(*p, *q));
    for kth in [0usize, 1, 500, 1000] {
        let p = host(&x.partition(kth, 0).unwrap());
        assert!(
            numpy_cmp(p[kth], sorted[kth]) == Ordering::Equal,
            "{} kth {kth}",
            T::NAME
        );
        assert!(p[..kth]
            .iter()
            .all(|&a| numpy_cmp(a, p[kth]) != Ordering::Greater));
        assert!(p[kth..]
            .iter()
            .all(|&a| numpy_cmp(a, p[kth]) != Ordering::Less));
        let i = x.argpartition(kth, -1).unwrap().to_vec().unwrap();
        assert!(numpy_cmp(v[i[kth] as usize], sorted[kth]) == Ordering::Equal);
    }
}

/// searchsorted of random queries (and every value of the array, NaN, +-inf, +-0) in a
/// sorted array with ties, against a binary search on the host; queries strided.
fn search_all<T: Ty>() {
    for (s, n) in [1usize, 2, 17, 1000].into_iter().enumerate() {
        let mut rng = Rng::new(s as u64 + 40);
        let mut a = values::<T>(&mut rng, n);
        let (_, exact) = common::cast_in::<T>(&a);
        a = exact;
        a.sort_by(|p, q| numpy_cmp(*p, *q));
        let sorted = upload::<T>(dev(), &a, &[n]).0;
        let mut q = values::<T>(&mut rng, 2 * 301);
        q.extend_from_slice(&a);
        if q.len() % 2 == 1 {
            q.push(f64::INFINITY);
        }
        let len = q.len();
        let (qa, qv) = upload::<T>(dev(), &q, &[len / 2, 2]);
        let qa = qa.t(); // strided queries, shape [2, len / 2]
        let qv: Vec<f64> = (0..len)
            .map(|i| qv[(i % (len / 2)) * 2 + i / (len / 2)])
            .collect();
        for side in [Side::Left, Side::Right] {
            let got = sorted.searchsorted(&qa, side).unwrap();
            assert_eq!(got.shape(), qa.shape());
            let got = got.to_vec().unwrap();
            for (j, &qq) in qv.iter().enumerate() {
                let want = a.partition_point(|&x| match side {
                    Side::Left => numpy_cmp(x, qq) == Ordering::Less,
                    Side::Right => numpy_cmp(x, qq) != Ordering::Greater,
                });
                assert_eq!(
                    got[j] as usize,
                    want,
                    "{} n {n} query {qq} {side:?}",
                    T::NAME
                );
            }
        }
    }
}

/// Whether two values are the same bits (any NaN matching any NaN).
fn same(p: f64, q: f64) -> bool {
    p.to_bits() == q.to_bits() || (p.is_nan() && q.is_nan())
}

/// unique and unique_all of `x` against a stable sort of its flat values on the host:
/// one value per run of equal values (NaNs one run, -0 and +0 one run, the first
/// occurrence kept), first indices, inverse and counts.
#[track_caller]
fn check_unique<T: Ty>(x: &Array<T>) {
    let v = host(x);
    let mut order: Vec<usize> = (0..v.len()).collect();
    order.sort_by(|&p, &q| numpy_cmp(v[p], v[q]));
    let mut starts = vec![];
    for j in 0..order.len() {
        if j == 0 || numpy_cmp(v[order[j]], v[order[j - 1]]) != Ordering::Equal {
            starts.push(j);
        }
    }
    let m = starts.len();
    let mut inverse = vec![0i64; v.len()];
    for (r, &s) in starts.iter().enumerate() {
        let end = starts.get(r + 1).copied().unwrap_or(v.len());
        order[s..end].iter().for_each(|&i| inverse[i] = r as i64);
    }
    let u = host(&x.unique().unwrap());
    let all = x.unique_all().unwrap();
    let what = format!("{} shape {:?}", T::NAME, x.shape());
    assert_eq!(u.len(), m, "{what}");
    assert_eq!(all.values.shape(), &[m], "{what}");
    let vals = host(&all.values);
    let (idx, cnt) = (all.indices.to_vec().unwrap(), all.counts.to_vec().unwrap());
    for (r, &s) in starts.iter().enumerate() {
        let want = v[order[s]];
        assert!(same(u[r], want) && same(vals[r], want), "{what} value {r}");
        assert_eq!(idx[r] as usize, order[s], "{what} index {r}");
        let end = starts.get(r + 1).copied().unwrap_or(v.len());
        assert_eq!(cnt[r] as usize, end - s, "{what} count {r}");
    }
    assert_eq!(all.inverse_indices.shape(), x.shape(), "{what}");
    assert_eq!(all.inverse_indices.to_vec().unwrap(), inverse, "{what}");
}

fn unique_all_sizes<T: Ty>() {
    for (s, shape) in [vec![0usize], vec![1], vec![7], vec![3, 86], vec![5003]]
        .into_iter()
        .enumerate()
    {
        check_unique(&random::<T>(s as u64 + 60, &shape).0);
    }
    // Runs of 1000 equal values across the tiles of 4096 of the 32-bit path (and its
    // last, partial tile), read through a view with an offset.
    let long: Vec<f64> = (0..12_400)
        .map(|i| ((i * 7919) % 12_400 / 1000) as f64)
        .collect();
    let (x, _) = upload::<T>(dev(), &long, &[12_400]);
    check_unique(&x.slice_axis(0, 3..).unwrap());
    // A transposed view with an offset, and a 0-d array.
    let (x, _) = random::<T>(70, &[9, 14]);
    check_unique(&x.slice_axis(0, 2..).unwrap().t());
    check_unique(&upload::<T>(dev(), &[3.0], &[]).0);
}

/// NumPy's 'linear' quantile of one slice, in f64: NaN if the slice holds one.
fn quantile_ref(slice: &[f64], q: f64) -> f64 {
    if slice.iter().any(|v| v.is_nan()) {
        return f64::NAN;
    }
    let mut s = slice.to_vec();
    s.sort_by(|p, q| p.partial_cmp(q).unwrap());
    let h = (s.len() - 1) as f64 * q;
    let lo = h.floor() as usize;
    let (a, b, t) = (s[lo], s[(lo + 1).min(s.len() - 1)], h - lo as f64);
    match t {
        0.0 => a,
        t if t >= 0.5 => b - (b - a) * (1.0 - t),
        t => a + (b - a) * t,
    }
}

const QS: [f64; 6] = [0.0, 0.1, 0.25, 0.5, 0.77, 1.0];

/// quantile of `x` (as f32 and, where the adapter has it, f64) along `axis` (or all of
/// it) against [`quantile_ref`]; f32 to f32 rounding of values up to 2000.
#[track_caller]
fn check_quantile<T: Ty>(x: &Array<T>, axis: Option<usize>) {
    let shape = x.shape().to_vec();
    let h = common::Host::new(&shape, host(x));
    let (moved, rest): (common::Host, Vec<usize>) = match axis {
        None => (common::Host::new(&[h.len()], h.data.clone()), vec![]),
        Some(a) => {
            let mut perm: Vec<usize> = (0..shape.len()).filter(|&d| d != a).collect();
            perm.push(a);
            let rest = perm[..perm.len() - 1].iter().map(|&d| shape[d]).collect();
            (h.transpose(&perm), rest)
        }
    };
    let len = *moved.shape.last().unwrap();
    let rows = moved.len() / len;
    let mut want = vec![];
    for &q in &QS {
        want.extend((0..rows).map(|r| quantile_ref(&moved.data[r * len..(r + 1) * len], q)));
    }
    let ax = axis.map(|a| a as isize);
    let got = x.quantile::<f32>(&QS, ax, false).unwrap();
    assert_eq!(got.shape()[1..], rest[..], "{} {shape:?} {axis:?}", T::NAME);
    common::assert_close(&host(&got), &want, 1e-3, 1e-6);
    let med = x.median::<f32>(ax, false).unwrap();
    assert_eq!(med.shape(), &rest[..]);
    common::assert_close(&host(&med), &want[3 * rows..4 * rows], 1e-3, 1e-6);
    if dev().supports::<f64>() {
        let p: Vec<f64> = QS.iter().map(|q| q * 100.0).collect();
        let got = host(&x.percentile::<f64>(&p, ax, false).unwrap());
        common::assert_close(&got, &want, 1e-9, 1e-12);
    }
}

fn quantile_all<T: Ty>() {
    for (s, shape) in [vec![1usize], vec![7], vec![3, 86], vec![2, 5003]]
        .into_iter()
        .enumerate()
    {
        let (x, _) = random::<T>(s as u64 + 90, &shape);
        check_quantile(&x, None);
        check_quantile(&x, Some(shape.len() - 1));
        check_quantile(&x, Some(0));
    }
    let (x, _) = random::<T>(99, &[6, 5, 4]);
    check_quantile(&x.t(), Some(1));
    check_quantile(&x.slice_axis(2, 1..).unwrap(), None);
}

per_dtype! {
    [f32_: f32, f64_: f64, f16_: gpuarray::f16, i32_: i32, u32_: u32] => {
        top_k => top_k_all::<T>();
        partition => partition_all::<T>();
        unique => unique_all_sizes::<T>();
        quantile => quantile_all::<T>();
        searchsorted => search_all::<T>();
    }
}

/// k past the axis, kth at or past it, 2-D sorted arrays and axes out of range are typed
/// errors; zero-size inputs give zero-size results; the inputs are intact.
#[test]
fn bad_arguments_and_empty() {
    let x = dev().from_slice(&[3.0f32, 1.0, 2.0, 0.0], [2, 2]).unwrap();
    assert!(matches!(
        x.top_k(3, 1, true),
        Err(Error::InvalidArgument { op: "top_k", .. })
    ));
    assert!(matches!(
        x.top_k(1, 2, true),
        Err(Error::AxisOutOfRange { .. })
    ));
    assert!(matches!(
        x.partition(2, 0),
        Err(Error::InvalidArgument { .. })
    ));
    assert!(matches!(
        x.argpartition(5, -1),
        Err(Error::InvalidArgument { .. })
    ));
    assert!(matches!(
        x.argpartition(0, -3),
        Err(Error::AxisOutOfRange { .. })
    ));
    assert!(matches!(
        x.searchsorted(&x, Side::Left),
        Err(Error::InvalidArgument { .. })
    ));
    assert_eq!(x.to_vec().unwrap(), vec![3.0, 1.0, 2.0, 0.0]);
    let e = dev().zeros::<f32>([0]).unwrap();
    let q = dev().from_slice(&[1.0f32, f32::NAN], [2]).unwrap();
    assert_eq!(
        e.searchsorted(&q, Side::Right).unwrap().to_vec().unwrap(),
        vec![0, 0]
    );
    let a = dev().from_slice(&[1.0f32, 2.0], [2]).unwrap();
    assert_eq!(a.searchsorted(&e, Side::Left).unwrap().shape(), &[0]);
    let z = dev().zeros::<i32>([0, 4]).unwrap();
    let (v, i) = z.top_k(2, 1, false).unwrap();
    assert_eq!((v.shape(), i.shape()), (&[0usize, 2][..], &[0usize, 2][..]));
    assert_eq!(x.top_k(0, 0, true).unwrap().0.shape(), &[0, 2]);
}

/// unique of many elements with many repeats (more than 256 scan blocks, so the scan of
/// the block sums takes several steps; a keys-only radix sort) and the same bits on every
/// run.
#[test]
fn unique_long_and_deterministic() {
    let mut rng = Rng::new(80);
    let v = rng.ints(300_007, -3000, 3000);
    let (x, _) = upload::<i32>(dev(), &v, &[300_007]);
    check_unique(&x);
    let (f, _) = random::<f32>(81, &[20_011]);
    let first = f.unique_all().unwrap();
    for _ in 0..3 {
        let again = f.unique_all().unwrap();
        assert_eq!(
            host(&again.values)
                .iter()
                .map(|p| p.to_bits())
                .collect::<Vec<_>>(),
            host(&first.values)
                .iter()
                .map(|p| p.to_bits())
                .collect::<Vec<_>>()
        );
        assert_eq!(
            again.inverse_indices.to_vec().unwrap(),
            first.inverse_indices.to_vec().unwrap()
        );
    }
}

/// q outside [0, 1] (percentile: [0, 100]) or NaN, an empty axis and a bad axis are typed
/// errors that leave the input intact; no NaN: exact ends; a 1-D u32 sort past the
/// workgroup (keys only) under the median.
#[test]
fn quantile_bad_arguments_and_keys_only() {
    let x = dev().from_slice(&[3.0f32, 1.0, 2.0, 0.0], [2, 2]).unwrap();
    for q in [-0.1, 1.1, f64::NAN] {
        assert!(matches!(
            x.quantile::<f32>(&[0.5, q], None, false),
            Err(Error::InvalidArgument { op: "quantile", .. })
        ));
    }
    assert!(matches!(
        x.percentile::<f32>(&[100.5], 0, false),
        Err(Error::InvalidArgument {
            op: "percentile",
            ..
        })
    ));
    assert!(matches!(
        x.median::<f32>(2, false),
        Err(Error::AxisOutOfRange { .. })
    ));
    let e = dev().zeros::<f32>([3, 0]).unwrap();
    assert!(matches!(
        e.median::<f32>(1, false),
        Err(Error::InvalidArgument { op: "median", .. })
    ));
    assert_eq!(e.median::<f32>(0, false).unwrap().shape(), &[0]);
    assert_eq!(x.quantile::<f32>(&[], 0, false).unwrap().shape(), &[0, 2]);
    assert_eq!(x.to_vec().unwrap(), vec![3.0, 1.0, 2.0, 0.0]);
    if !dev().supports::<gpuarray::f16>() {
        common::assert_unsupported(x.median::<gpuarray::f16>(None, false), gpuarray::DType::F16);
    }
    let mut rng = Rng::new(95);
    let v = rng.ints(10_001, 0, 1 << 30);
    let (u, v) = upload::<u32>(dev(), &v, &[10_001]);
    let got = host(&u.quantile::<f32>(&QS, None, false).unwrap());
    let want: Vec<f64> = QS.iter().map(|&q| quantile_ref(&v, q)).collect();
    common::assert_close(&got, &want, 0.0, 1e-6);
}

/// top_k's selection past one round of tiles (rows of 70K and 100K elements: the
/// candidates of the first round fill several tiles), k up to 256, many ties (decided by
/// the lower index) and NaNs, against a stable sort on the host; the same bits every run.
#[test]
fn top_k_selection_rounds() {
    // The selection is opt-in (`Tuning::top_k_select`): a device with it on.
    let mut opts = gpuarray::Options::default();
    opts.tuning.top_k_select = true;
    let sel = gpuarray::Device::with_options(opts).unwrap();
    let mut rng = Rng::new(85);
    let v = rng.ints(3 * 70_001, 0, 50);
    let (x, _) = upload::<i32>(&sel, &v, &[3, 70_001]);
    check_top_k(&x, 200, true);
    check_top_k(&x, 256, false);
    let mut rng = Rng::new(86);
    let fv = values::<f32>(&mut rng, 100_003);
    let (f, _) = upload::<f32>(&sel, &fv, &[1, 100_003]);
    check_top_k(&f, 100, true);
    check_top_k(&f, 1, false);
    let first = f.top_k(100, -1, true).unwrap().1.to_vec().unwrap();
    for _ in 0..3 {
        assert_eq!(f.top_k(100, -1, true).unwrap().1.to_vec().unwrap(), first);
    }
}

fn bits(x: &Array<f32>) -> Vec<u32> {
    x.to_vec().unwrap().iter().map(|v| v.to_bits()).collect()
}

/// The rows of `v` (`rows` of `len`) whose quantiles `qs` the radix select finds, against
/// [`quantile_ref`] along the last axis and (transposed) the first; the same bits on
/// every run.
#[track_caller]
fn check_selected<T: Ty>(v: &[f64], rows: usize, len: usize, qs: &[f64]) {
    let (x, v) = upload::<T>(dev(), v, &[rows, len]);
    let mut want = vec![];
    for &q in qs {
        want.extend((0..rows).map(|r| quantile_ref(&v[r * len..(r + 1) * len], q)));
    }
    let got = x.quantile::<f32>(qs, 1, false).unwrap();
    common::assert_close(&host(&got), &want, 1e-3, 1e-6);
    let xt = x.t().contiguous().unwrap();
    let again = xt.quantile::<f32>(qs, 0, false).unwrap();
    assert_eq!(bits(&again), bits(&got), "{}", T::NAME);
    let med = x.median::<f32>(-1, false).unwrap();
    let mid: Vec<f64> = (0..rows)
        .map(|r| quantile_ref(&v[r * len..(r + 1) * len], 0.5))
        .collect();
    common::assert_close(&host(&med), &mid, 1e-3, 1e-6);
    assert_eq!(bits(&x.median::<f32>(-1, false).unwrap()), bits(&med));
}

/// The radix select (rows longer than a workgroup's sort, 32-bit dtypes): ties (values in
/// 0..4), all-equal rows, NaN in one row only, -0 / +0 and infinities, integer extremes,
/// ranks 0 and n - 1 (q = 0, 1) and more ranks than one dispatch takes (13 with the
/// rows' maxima), a whole-array median of a prime length.
#[test]
fn quantile_radix_select() {
    let len = 9001;
    let mut rng = Rng::new(501);
    let qs = [0.0, 0.3, 0.5, 0.5001, 0.9, 1.0];
    let mut v = rng.ints(len, 0, 4);
    v.extend(vec![7.0; len]);
    v.extend(rng.ints(len, -1000, 1000));
    let mut f = v.clone();
    f[2 * len + 17] = f64::NAN;
    for (i, s) in [-0.0, 0.0, f64::INFINITY, f64::NEG_INFINITY]
        .iter()
        .enumerate()
    {
        f[100 * i + 5] = *s;
        f[2 * len + 100 * i + 9] = *s;
    }
    check_selected::<f32>(&f, 3, len, &qs);
    check_selected::<i32>(&v, 3, len, &qs);
    let mut e = rng.ints(2 * len, -(1 << 31), (1 << 31) - 1);
    e[3] = -2147483648.0;
    e[len + 4] = 2147483647.0;
    check_selected::<i32>(&e, 2, len, &qs);
    let mut u = rng.ints(2 * len, 0, u32::MAX as i64);
    u[len + 4] = u32::MAX as f64;
    u[5] = 0.0;
    check_selected::<u32>(&u, 2, len, &qs);
    let n = 20_011;
    let w = rng.vec(n, -1.0, 1.0);
    let (x, w) = upload::<f32>(dev(), &w, &[n]);
    let got = x.median::<f32>(None, false).unwrap().to_scalar().unwrap();
    assert_eq!(got as f64, quantile_ref(&w, 0.5));
}

/// The radix select's targets of different prefixes (the median of an even length, whose
/// two middle ranks may differ from the first digit on, beside the row's maximum): rows
/// split between two values far apart, random values, ties; a whole-array median of an
/// even length spanning several tiles of a row.
#[test]
fn median_even_two_targets() {
    let len = 9000;
    let mut rng = Rng::new(701);
    let mut v: Vec<f64> = (0..len)
        .map(|i| if i % 3 == 0 { -1.5 } else { 2.5e6 })
        .collect();
    v.extend((0..len).map(|i| if i % 2 == 0 { -7.0 } else { 5.0 }));
    v.extend(rng.ints(len, -100_000, 100_000));
    v.extend(rng.ints(len, 0, 4));
    check_selected::<f32>(&v, 4, len, &[0.5]);
    check_selected::<i32>(&v, 4, len, &[0.5, 0.75]);
    let n = 200_002;
    let w = rng.vec(n, -1.0, 1.0);
    let (x, w) = upload::<f32>(dev(), &w, &[n]);
    let got = x.median::<f32>(None, false).unwrap().to_scalar().unwrap();
    common::assert_close(&[got as f64], &[quantile_ref(&w, 0.5)], 1e-6, 0.0);
}

/// top_k through the radix select (rows longer than a workgroup's sort, k within one):
/// all-equal rows (the k lowest indices), many ties, NaN and -0 / +0, integer extremes,
/// k = 1 and k = 1000, largest and smallest, a view with an offset, the same bits over 10
/// runs.
#[test]
fn top_k_radix_select() {
    let len = 9001;
    let mut rng = Rng::new(601);
    let mut v = vec![3.0; len];
    v.extend(rng.ints(len, 0, 6));
    v.extend(values::<f32>(&mut rng, len));
    let (f, _) = upload::<f32>(dev(), &v, &[3, len]);
    let (i, _) = upload::<i32>(
        dev(),
        &v.iter()
            .map(|x| if x.is_nan() { 9.0 } else { *x })
            .collect::<Vec<_>>(),
        &[3, len],
    );
    let mut e = rng.ints(2 * len, -(1 << 31), (1 << 31) - 1);
    e[7] = i32::MIN as f64;
    e[len + 8] = i32::MAX as f64;
    let (ie, _) = upload::<i32>(dev(), &e, &[2, len]);
    let u = rng.ints(2 * len, 0, u32::MAX as i64);
    let (uu, _) = upload::<u32>(dev(), &u, &[2, len]);
    for k in [1, 100, 1000] {
        for largest in [true, false] {
            check_top_k(&f, k, largest);
            check_top_k(&i, k, largest);
            check_top_k(&ie, k, largest);
            check_top_k(&uu, k, largest);
        }
    }
    let view = f.slice_axis(0, 1..).unwrap();
    check_top_k(&view, 37, true);
    let first = f.top_k(100, -1, true).unwrap().1.to_vec().unwrap();
    for _ in 0..10 {
        assert_eq!(f.top_k(100, -1, true).unwrap().1.to_vec().unwrap(), first);
    }
}
