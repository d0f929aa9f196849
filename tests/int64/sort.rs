//! sort, argsort (both paths: one workgroup a row, and the radix passes over two key
//! words), searchsorted, unique and unique_all of i64 and u64.

use crate::common::{dev, Rng};
use crate::{down, small_values, wide_values, Int64, SIZES};
use gpuarray::{Array, Side};

/// The stable argsort of every row of `v` (rows of `len`), as indices within the row.
fn ref_argsort<T: Int64>(v: &[T], len: usize) -> Vec<i64> {
    let mut out = Vec::with_capacity(v.len());
    for row in v.chunks(len.max(1)) {
        let mut idx: Vec<usize> = (0..row.len()).collect();
        idx.sort_by_key(|&i| row[i]);
        out.extend(idx.iter().map(|&i| i as i64));
    }
    out
}

/// sort and argsort of the contiguous `x` (rows of its last extent) against the reference.
#[track_caller]
fn check_rows<T: Int64>(x: &Array<T>, what: &str) {
    let v = down(x);
    let len = *x.shape().last().unwrap_or(&1);
    let want = ref_argsort(&v, len);
    assert_eq!(down(&x.argsort().unwrap()), want, "argsort {what}");
    let sorted: Vec<T> = v
        .chunks(len.max(1))
        .flat_map(|r| {
            let mut r = r.to_vec();
            r.sort();
            r
        })
        .collect();
    assert_eq!(down(&x.sort().unwrap()), sorted, "sort {what}");
}

fn sort_1d<T: Int64>() {
    let mut rng = Rng::new(11);
    for n in SIZES {
        for (kind, v) in [
            ("wide", wide_values::<T>(&mut rng, n)),
            ("small", small_values::<T>(&mut rng, n, 5)),
        ] {
            let x = dev().from_slice(&v, [n]).unwrap();
            check_rows(&x, &format!("{} {kind} n={n}", T::DTYPE));
        }
    }
}

fn sort_rows_and_views<T: Int64>() {
    let mut rng = Rng::new(12);
    // Many short rows (one workgroup each), and rows longer than one workgroup sorts
    // (the radix passes over the key words, then the row number).
    for (r, c) in [(5, 13), (3, 3001), (2, 9000)] {
        let v = wide_values::<T>(&mut rng, r * c);
        let x = dev().from_slice(&v, [r, c]).unwrap();
        check_rows(&x, &format!("{} [{r}, {c}]", T::DTYPE));
        // Along axis 0 (a transposed view sorted as rows, then moved back).
        let t = x.t();
        let tc = t.contiguous().unwrap();
        assert_eq!(
            down(&x.sort_axis(0).unwrap().t().contiguous().unwrap()),
            down(&tc.sort().unwrap()),
            "sort axis 0 [{r}, {c}]"
        );
        assert_eq!(
            down(&t.argsort().unwrap()),
            down(&tc.argsort().unwrap()),
            "argsort of a transposed view [{r}, {c}]"
        );
    }
    // A strided, offset view: every third element from the second.
    let v = wide_values::<T>(&mut rng, 3 * 2003 + 1);
    let x = dev().from_slice(&v, [v.len()]).unwrap();
    let s = x.slice_axis(0, gpuarray::Slice::new(1, None, 3)).unwrap();
    let want: Vec<T> = v[1..].iter().step_by(3).copied().collect();
    let w = dev().from_slice(&want, [want.len()]).unwrap();
    check_rows(&w, "strided (copy)");
    assert_eq!(
        down(&s.sort().unwrap()),
        down(&w.sort().unwrap()),
        "strided view"
    );
    assert_eq!(down(&s.argsort().unwrap()), down(&w.argsort().unwrap()));
    // All axes at once (flattened).
    let m = dev().from_slice(&v[..12], [3, 4]).unwrap();
    let mut all = v[..12].to_vec();
    all.sort();
    assert_eq!(down(&m.sort_axis(..).unwrap()), all);
}

fn search_unique<T: Int64>() {
    let mut rng = Rng::new(13);
    for n in [0usize, 1, 7, 300, 5003] {
        let mut v = wide_values::<T>(&mut rng, n);
        v.extend(small_values::<T>(&mut rng, n, 9));
        let x = dev().from_slice(&v, [v.len()]).unwrap();
        // unique: sorted distinct values.
        let mut want = v.clone();
        want.sort();
        want.dedup();
        assert_eq!(down(&x.unique().unwrap()), want, "unique n={n}");
        let u = x.unique_all().unwrap();
        assert_eq!(down(&u.values), want);
        let first: Vec<i64> = want
            .iter()
            .map(|w| v.iter().position(|e| e == w).unwrap() as i64)
            .collect();
        assert_eq!(down(&u.indices), first, "unique_all indices n={n}");
        let inv: Vec<i64> = v
            .iter()
            .map(|e| want.binary_search(e).unwrap() as i64)
            .collect();
        assert_eq!(down(&u.inverse_indices), inv);
        let counts: Vec<u32> = want
            .iter()
            .map(|w| v.iter().filter(|e| *e == w).count() as u32)
            .collect();
        assert_eq!(down(&u.counts), counts);
        // searchsorted of the values and of new queries, both sides.
        let s = x.sort().unwrap();
        let sv = down(&s);
        let mut q = wide_values::<T>(&mut rng, 50);
        q.extend(v.iter().take(20));
        let qa = dev().from_slice(&q, [q.len()]).unwrap();
        let left: Vec<i64> = q
            .iter()
            .map(|e| sv.partition_point(|x| x < e) as i64)
            .collect();
        let right: Vec<i64> = q
            .iter()
            .map(|e| sv.partition_point(|x| x <= e) as i64)
            .collect();
        assert_eq!(down(&s.searchsorted(&qa, Side::Left).unwrap()), left);
        assert_eq!(down(&s.searchsorted(&qa, Side::Right).unwrap()), right);
    }
}

/// What is built on the sort: top_k (both ends), partition, median, isin and lexsort.
fn compositions<T: Int64>() {
    let mut rng = Rng::new(14);
    for n in [1usize, 31, 1031, 5003] {
        let mut v = wide_values::<T>(&mut rng, n);
        for (i, e) in small_values::<T>(&mut rng, n / 2, 7)
            .into_iter()
            .enumerate()
        {
            v[2 * i] = e;
        }
        let x = dev().from_slice(&v, [n]).unwrap();
        let k = n.min(5);
        for largest in [true, false] {
            let mut idx: Vec<usize> = (0..n).collect();
            if largest {
                idx.sort_by_key(|&i| (std::cmp::Reverse(v[i]), i));
            } else {
                idx.sort_by_key(|&i| (v[i], i));
            }
            let (tv, ti) = x.top_k(k, -1, largest).unwrap();
            let want: Vec<i64> = idx[..k].iter().map(|&i| i as i64).collect();
            assert_eq!(down(&ti), want, "top_k n={n} largest={largest}");
            let wv: Vec<T> = idx[..k].iter().map(|&i| v[i]).collect();
            assert_eq!(down(&tv), wv);
        }
        let mut sorted = v.clone();
        sorted.sort();
        let kth = n / 2;
        let p = down(&x.partition(kth, -1).unwrap());
        assert_eq!(p[kth], sorted[kth], "partition n={n}");
        assert!(p[..kth].iter().all(|e| *e <= p[kth]) && p[kth..].iter().all(|e| *e >= p[kth]));
        let test = dev().from_slice(&sorted[..k], [k]).unwrap();
        let got = down(&x.isin(&test).unwrap());
        let want: Vec<bool> = v.iter().map(|e| sorted[..k].contains(e)).collect();
        assert_eq!(got, want, "isin n={n}");
        // lexsort: the last key first, ties by the first key, then by position.
        let k2 = small_values::<T>(&mut rng, n, 3);
        let b = dev().from_slice(&k2, [n]).unwrap();
        let mut idx: Vec<usize> = (0..n).collect();
        idx.sort_by_key(|&i| (k2[i], v[i]));
        let want: Vec<i64> = idx.iter().map(|&i| i as i64).collect();
        assert_eq!(
            down(&Array::lexsort(&[&x, &b]).unwrap()),
            want,
            "lexsort n={n}"
        );
    }
    // The median of small values (exact in f64).
    if dev().supports::<f64>() {
        let v = small_values::<T>(&mut rng, 1000, 1000);
        let x = dev().from_slice(&v, [1000]).unwrap();
        let mut s: Vec<f64> = v.iter().map(|e| e.bits() as f64).collect();
        s.sort_by(f64::total_cmp);
        let m = x.median::<f64>(None, false).unwrap().to_scalar().unwrap();
        assert_eq!(m, (s[499] + s[500]) / 2.0);
    }
}

crate::per_dtype! {
    [i64_: i64, u64_: u64] => {
        sort_1d => super::sort_1d::<T>();
        sort_rows_and_views => super::sort_rows_and_views::<T>();
        search_unique => super::search_unique::<T>();
        compositions => super::compositions::<T>();
    }
}
