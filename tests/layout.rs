//! Layouts against a CPU reference: permuted operands (the tiled walk of the elementwise
//! family: `contiguous()` of every permutation of 2-D, 3-D and 4-D shapes with odd and
//! empty extents, views with offsets and steps, elementwise ops whose operands are permuted
//! against the output, broadcasts beside them) in every dtype, and the one-pass argmax /
//! argmin (first occurrence, the first NaN, runs of the identity's value, the same bits in
//! every run).
//!
//! Copies and additions are exact in every dtype (a sum of two values of the type, rounded
//! once), so the comparisons are exact (tolerance 0).

mod common;

use common::{assert_close, dev, host, upload, Host, Rng, Ty};
#[allow(unused_imports)]
use gpuarray::{f16, Array, Axis, Slice};

/// Every permutation of 0..n.
fn perms(n: usize) -> Vec<Vec<usize>> {
    if n == 0 {
        return vec![vec![]];
    }
    let mut out = Vec::new();
    for p in perms(n - 1) {
        for k in 0..=p.len() {
            let mut q = p.clone();
            q.insert(k, n - 1);
            out.push(q);
        }
    }
    out
}

/// Random values of `T` for `shape` (integers in a range every dtype holds, negatives for
/// the signed ones; floats in [-4, 4) with halves, exact in f16).
fn values<T: Ty>(rng: &mut Rng, n: usize) -> Vec<f64> {
    let lo = if T::SIGNED { -500 } else { 0 };
    (0..n)
        .map(|_| {
            if T::FLOAT {
                (rng.int(-8, 8)) * 0.5
            } else {
                rng.int(lo, 1000)
            }
        })
        .collect()
}

/// A device array of `shape` with random values, and its host model.
fn make<T: Ty>(rng: &mut Rng, shape: &[usize]) -> (Array<T>, Host) {
    let n = shape.iter().product();
    let (a, v) = upload::<T>(dev(), &values::<T>(rng, n), shape);
    (a, Host::new(shape, v))
}

#[track_caller]
fn same<T: Ty>(what: &str, got: &Array<T>, want: &Host) {
    assert_eq!(got.shape(), &want.shape[..], "{what}: shape");
    let g = host(got);
    eprintln!("{what}: {} elements", g.len());
    assert_close(&g, &want.data, 0.0, 0.0);
}

/// The shapes of the permutation tests: odd extents (1, 3, 31, 33, primes), tiles that do
/// and do not fill, and empty axes.
const SHAPES: &[&[usize]] = &[
    &[33, 65],
    &[129, 67],
    &[1, 1031],
    &[0, 40],
    &[3, 31, 33],
    &[37, 2, 29],
    &[5, 0, 7],
    &[3, 5, 7, 33],
    &[2, 33, 3, 17],
];

/// `contiguous()` and `add` of every permutation of every shape: a permuted view copied,
/// added to a contiguous array (and the contiguous array added to it), added to another
/// permutation, and a scalar added to it (the unary walk).
fn permutations<T: Ty>() {
    let mut rng = Rng::new(17);
    for shape in SHAPES {
        let (a, ha) = make::<T>(&mut rng, shape);
        for p in perms(shape.len()) {
            let what = format!("{} {shape:?} perm {p:?}", T::NAME);
            let v = a.transpose(&p).unwrap();
            let hv = ha.transpose(&p);
            same(&format!("{what} contiguous"), &v.contiguous().unwrap(), &hv);
            let (b, hb) = make::<T>(&mut rng, &hv.shape);
            let sum = common::zip_with(&hv, &hb, |x, y| T::wrap(x + y));
            same(&format!("{what} + b"), &v.add(&b).unwrap(), &sum);
            same(&format!("{what} b +"), &b.add(&v).unwrap(), &sum);
            let one = T::from_f64(1.0);
            let plus1 = hv.map(|x| T::wrap(x + 1.0));
            same(&format!("{what} + 1"), &v.add_scalar(one).unwrap(), &plus1);
            // Against the reversed permutation of a second array of the same shape.
            let r: Vec<usize> = p.iter().rev().copied().collect();
            let rshape: Vec<usize> = r.iter().map(|&d| shape[d]).collect();
            if rshape == hv.shape {
                let w = a.transpose(&r).unwrap();
                let both = common::zip_with(&hv, &ha.transpose(&r), |x, y| T::wrap(x + y));
                same(&format!("{what} + perm {r:?}"), &v.add(&w).unwrap(), &both);
            }
        }
    }
}

/// Views with offsets and steps, then transposed: copies, sums with contiguous arrays and
/// with broadcast rows, `where_` with a transposed mask and operands.
fn views<T: Ty>() {
    let mut rng = Rng::new(29);
    let (a, ha) = make::<T>(&mut rng, &[71, 97]);
    // Rows 3.. step 2, columns 5..90 step 3: offset 3 * 97 + 5, strides (194, 3).
    let v = a
        .slice([Slice::from(3..).step(2), Slice::from(5..90).step(3)])
        .unwrap();
    let hv = ha.slice(&[(3, 71, 2), (5, 90, 3)]);
    let (t, ht) = (v.t(), hv.t());
    same(
        &format!("{} stepped view .t()", T::NAME),
        &t.contiguous().unwrap(),
        &ht,
    );
    let (b, hb) = make::<T>(&mut rng, &ht.shape);
    let sum = common::zip_with(&ht, &hb, |x, y| T::wrap(x + y));
    same(
        &format!("{} stepped .t() + b", T::NAME),
        &t.add(&b).unwrap(),
        &sum,
    );
    // A broadcast row beside the transposed operand.
    let (row, hrow) = make::<T>(&mut rng, &[1, ht.shape[1]]);
    let hrow = hrow.broadcast_to(&ht.shape);
    let sum = common::zip_with(&ht, &hrow, |x, y| T::wrap(x + y));
    same(
        &format!("{} stepped .t() + row", T::NAME),
        &t.add(&row).unwrap(),
        &sum,
    );
    // Offset 2-D view of a 3-D array, transposed.
    let (c, hc) = make::<T>(&mut rng, &[4, 45, 39]);
    let s = c
        .slice([Slice::from(2..3)])
        .unwrap()
        .reshape([45, 39])
        .unwrap();
    let hs = Host::new(&[45, 39], hc.data[2 * 45 * 39..3 * 45 * 39].to_vec());
    same(
        &format!("{} offset view .t()", T::NAME),
        &s.t().contiguous().unwrap(),
        &hs.t(),
    );
    // where_ with a transposed mask and transposed operands.
    let (x, hx) = make::<T>(&mut rng, &[53, 41]);
    let (y, hy) = make::<T>(&mut rng, &[41, 53]);
    let mask_h: Vec<f64> = (0..53 * 41).map(|_| f64::from(rng.bool(0.5))).collect();
    let (mask, hm) = upload::<bool>(dev(), &mask_h, &[53, 41]);
    let got = Array::where_(&mask.t(), &x.t(), &y).unwrap();
    let (hm, hxt) = (Host::new(&[53, 41], hm).t(), hx.t());
    let want = Host::new(
        &[41, 53],
        (0..hm.len())
            .map(|i| {
                if hm.data[i] != 0.0 {
                    hxt.data[i]
                } else {
                    hy.data[i]
                }
            })
            .collect(),
    );
    same(&format!("{} where_(m.t(), x.t(), y)", T::NAME), &got, &want);
}

/// The tiled walk's edges: a 4-D permutation swapping the two innermost axes with an
/// output 80 wide (2.5 tiles) and 37 deep, beside a contiguous operand and a broadcast
/// column (stride 0 along the output's rows); `where_` of a contiguous mask, a transposed
/// operand and a broadcast column (three operands, one staged); and special values (NaN,
/// the infinities, -0, integer extremes) copied through the tiles unchanged, signs of
/// zeros included.
fn edges<T: Ty>() {
    let mut rng = Rng::new(41);
    let add = |x: f64, y: f64| T::wrap(x + y);
    let (a, ha) = make::<T>(&mut rng, &[3, 2, 80, 37]);
    let p = [0, 1, 3, 2];
    let (v, hv) = (a.transpose(&p).unwrap(), ha.transpose(&p));
    let (b, hb) = make::<T>(&mut rng, &hv.shape);
    let what = format!("{} perm {p:?} of {:?}", T::NAME, ha.shape);
    same(
        &format!("{what} + b"),
        &v.add(&b).unwrap(),
        &common::zip_with(&hv, &hb, add),
    );
    let (col, hcol) = make::<T>(&mut rng, &[3, 2, 37, 1]);
    let hcol = hcol.broadcast_to(&hv.shape);
    let want = common::zip_with(&hv, &hcol, add);
    same(&format!("{what} + column"), &v.add(&col).unwrap(), &want);

    let (m, hm) = make::<T>(&mut rng, &[97, 65]);
    let (t, ht) = (m.t(), hm.t());
    let (col, hcol) = make::<T>(&mut rng, &[65, 1]);
    let hcol = hcol.broadcast_to(&ht.shape);
    let mask_h: Vec<f64> = (0..ht.len()).map(|_| f64::from(rng.bool(0.5))).collect();
    let (mask, _) = upload::<bool>(dev(), &mask_h, &ht.shape);
    let picked = (0..ht.len())
        .map(|i| {
            if mask_h[i] != 0.0 {
                ht.data[i]
            } else {
                hcol.data[i]
            }
        })
        .collect();
    same(
        &format!("{} where_(mask, a.t(), column)", T::NAME),
        &Array::where_(&mask, &t, &col).unwrap(),
        &Host::new(&ht.shape, picked),
    );

    let specials: Vec<f64> = if T::FLOAT {
        vec![f64::NAN, f64::INFINITY, f64::NEG_INFINITY, -0.0, 0.0, -1.5]
    } else if T::SIGNED {
        vec![
            T::wrap(2_147_483_647.0),
            T::wrap(2_147_483_648.0),
            -1.0,
            0.0,
            7.0,
        ]
    } else {
        vec![T::wrap(4_294_967_295.0), 0.0, 1.0, 2_147_483_648.0, 9.0]
    };
    let vals: Vec<f64> = (0..41 * 43)
        .map(|i| specials[i * 7 % specials.len()])
        .collect();
    let (s, hs) = upload::<T>(dev(), &vals, &[41, 43]);
    let got = host(&s.t().contiguous().unwrap());
    let want = Host::new(&[41, 43], hs).t();
    assert_close(&got, &want.data, 0.0, 0.0);
    let signs = |v: &[f64]| -> Vec<bool> { v.iter().map(|x| x.is_sign_negative()).collect() };
    assert_eq!(
        signs(&got),
        signs(&want.data),
        "{} specials: signs",
        T::NAME
    );
}

macro_rules! per_dtype {
    ($($name:ident: $f:ident => [$($t:ident),*];)*) => {$(
        mod $name {
            use super::*;
            $(
                #[test]
                fn $t() {
                    common::if_supported::<$t>(|| $f::<$t>());
                }
            )*
        }
    )*};
}

per_dtype! {
    permuted: permutations => [f32, f16, f64, i32, u32];
    permuted_views: views => [f32, f16, f64, i32, u32];
    tiled_edges: edges => [f32, f16, f64, i32, u32];
}

/// NumPy's argmax / argmin of `v`: the first NaN, else the first extreme.
fn arg_ref(v: &[f64], max: bool) -> f64 {
    let mut best = 0;
    for (i, &x) in v.iter().enumerate() {
        let b = v[best];
        if b.is_nan() {
            break;
        }
        if x.is_nan() || (max && x > b) || (!max && x < b) {
            best = i;
        }
    }
    best as f64
}

/// Whole-array and axis arg-reductions of `h` (uploaded as `a`) against [`arg_ref`].
#[track_caller]
fn check_args<T: Ty>(what: &str, a: &Array<T>, h: &Host) {
    for max in [true, false] {
        let name = if max { "argmax" } else { "argmin" };
        let got = if max { a.argmax() } else { a.argmin() }.unwrap();
        let want = arg_ref(&h.data, max);
        assert_eq!(host(&got), vec![want], "{what} {name}");
        for k in 0..h.shape.len() {
            let got = if max {
                a.argmax_axis(k, false)
            } else {
                a.argmin_axis(k, false)
            }
            .unwrap();
            // The lanes along axis k, in the order of the result.
            let mut perm: Vec<usize> = (0..h.shape.len()).filter(|&d| d != k).collect();
            perm.push(k);
            let ht = h.transpose(&perm);
            let len = h.shape[k];
            let want: Vec<f64> = ht.data.chunks(len).map(|l| arg_ref(l, max)).collect();
            assert_close(&host(&got), &want, 0.0, 0.0);
        }
    }
}

/// The one-pass arg-reductions on long arrays (split across workgroups): ties everywhere
/// (values from a small set), NaN at chosen places (floats), all elements equal to the
/// extreme of the type (the walk must still name index 0), the same bits in 10 runs.
fn args<T: Ty>() {
    let mut rng = Rng::new(41);
    for shape in [&[300_007][..], &[257, 1031], &[3, 67, 515], &[5, 1]] {
        let n: usize = shape.iter().product();
        let v: Vec<f64> = (0..n).map(|_| rng.int(0, 7)).collect();
        let (a, hv) = upload::<T>(dev(), &v, shape);
        let h = Host::new(shape, hv);
        check_args(&format!("{} ties {shape:?}", T::NAME), &a, &h);
        if T::FLOAT {
            for place in [n - 1, n / 2, 1] {
                let mut w = h.data.clone();
                w[place] = f64::NAN;
                w[place.saturating_sub(1) / 2 + n / 3] = f64::NAN;
                let (a, hw) = upload::<T>(dev(), &w, shape);
                check_args(
                    &format!("{} NaN {shape:?} @{place}", T::NAME),
                    &a,
                    &Host::new(shape, hw),
                );
            }
        }
    }
    // Every element the extreme of the type: -inf / +inf, or the integer limits.
    let (lo, hi) = if T::FLOAT {
        (f64::NEG_INFINITY, f64::INFINITY)
    } else if T::SIGNED {
        (f64::from(i32::MIN), f64::from(i32::MAX))
    } else {
        (0.0, f64::from(u32::MAX))
    };
    for x in [lo, hi] {
        let (a, hv) = upload::<T>(dev(), &vec![x; 70_007], &[7, 10_001]);
        check_args(
            &format!("{} all {x}", T::NAME),
            &a,
            &Host::new(&[7, 10_001], hv),
        );
    }
    // The same answer in 10 runs (ties across every split).
    let (a, _) = upload::<T>(dev(), &vec![3.0; 1 << 20], &[1 << 20]);
    let first = host(&a.argmax().unwrap());
    assert_eq!(first, vec![0.0]);
    for _ in 0..10 {
        assert_eq!(host(&a.argmax().unwrap()), first);
        assert_eq!(host(&a.argmin().unwrap()), first);
    }
}

per_dtype! {
    arg_one_pass: args => [f32, f16, f64, i32, u32];
}

/// The lanes of `h` reduced over `axes`: one Vec of values per output, in C order.
fn lanes(h: &Host, axes: &[usize]) -> Vec<Vec<f64>> {
    let kept: Vec<usize> = (0..h.shape.len()).filter(|d| !axes.contains(d)).collect();
    let perm: Vec<usize> = kept.iter().chain(axes).copied().collect();
    let len: usize = axes.iter().map(|&d| h.shape[d]).product();
    let t = h.transpose(&perm);
    if len == 0 {
        return vec![];
    }
    t.data.chunks(len).map(<[f64]>::to_vec).collect()
}

/// Sum, mean, max, min, var and std over every subset of the axes of a 3-D and a 4-D shape
/// with odd extents (and of a transposed view of the 3-D one), against an f64 reference:
/// the subsets whose axes are not one run of memory go in stages without a copy (sum, mean,
/// max, min) or through a copy (var, std). The sums: within (K + 2) ulps of the type for K
/// elements per output, relative to the sum of absolute values.
fn subsets<T: Ty + gpuarray::Float>() {
    let mut rng = Rng::new(53);
    let (a3, h3) = make::<T>(&mut rng, &[33, 65, 31]);
    let (a4, h4) = make::<T>(&mut rng, &[3, 17, 5, 29]);
    let cases = [
        ("3-D", a3.clone(), h3.clone()),
        ("4-D", a4, h4),
        (
            "3-D transposed",
            a3.transpose(&[2, 0, 1]).unwrap(),
            h3.transpose(&[2, 0, 1]),
        ),
    ];
    for (what, a, h) in cases {
        let nd = h.shape.len();
        for mask in 1..1usize << nd {
            let axes: Vec<usize> = (0..nd).filter(|d| mask >> d & 1 == 1).collect();
            let l = lanes(&h, &axes);
            let k = l.first().map_or(0, Vec::len) as f64;
            let eps = T::EPS * (k + 2.0);
            let absum: Vec<f64> = l.iter().map(|v| v.iter().map(|x| x.abs()).sum()).collect();
            let sums: Vec<f64> = l.iter().map(|v| v.iter().sum()).collect();
            let means: Vec<f64> = sums.iter().map(|s| s / k).collect();
            let vars: Vec<f64> = l
                .iter()
                .zip(&means)
                .map(|(v, m)| v.iter().map(|x| (x - m) * (x - m)).sum::<f64>() / k)
                .collect();
            let label = format!("{} {what} axes {axes:?}", T::NAME);
            let check = |name: &str, got: Array<T>, want: &[f64], scale: &[f64]| {
                let g = host(&got);
                for i in 0..want.len() {
                    let tol = eps * scale[i].max(1.0);
                    assert!(
                        (g[i] - want[i]).abs() <= tol,
                        "{label} {name}[{i}]: {} vs {} (tol {tol})",
                        g[i],
                        want[i]
                    );
                }
            };
            check("sum", a.sum_axis(&axes, false).unwrap(), &sums, &absum);
            let am: Vec<f64> = absum.iter().map(|s| s / k).collect();
            check("mean", a.mean_axis(&axes, false).unwrap(), &means, &am);
            let maxs: Vec<f64> = l
                .iter()
                .map(|v| v.iter().copied().fold(f64::MIN, f64::max))
                .collect();
            let mins: Vec<f64> = l
                .iter()
                .map(|v| v.iter().copied().fold(f64::MAX, f64::min))
                .collect();
            assert_close(&host(&a.max_axis(&axes, false).unwrap()), &maxs, 0.0, 0.0);
            assert_close(&host(&a.min_axis(&axes, false).unwrap()), &mins, 0.0, 0.0);
            // var: 16 (the values' range squared) bounds each squared deviation.
            let vs = vec![16.0; vars.len()];
            check("var", a.var_axis(&axes, 0, false).unwrap(), &vars, &vs);
            let stds: Vec<f64> = vars.iter().map(|v| v.sqrt()).collect();
            check("std", a.std_axis(&axes, 0, false).unwrap(), &stds, &vs);
        }
    }
    // The same bits in 10 runs: a staged sum (axes 0 and 2) long enough to split.
    let (b, _) = make::<T>(&mut rng, &[301, 7, 257]);
    let first = host(&b.sum_axis([0, 2], false).unwrap());
    for _ in 0..10 {
        let again = host(&b.sum_axis([0, 2], false).unwrap());
        assert!(
            first
                .iter()
                .zip(&again)
                .all(|(x, y)| x.to_bits() == y.to_bits()),
            "{}: staged sums differ between runs",
            T::NAME
        );
    }
}

per_dtype! {
    reduce_subsets: subsets => [f32, f16, f64];
}
