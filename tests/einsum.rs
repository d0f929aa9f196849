//! `einsum` and `multi_dot` against a naive CPU einsum in f64 written here (every index
//! combination visited, products summed): NumPy's forms (products, batched products,
//! traces, diagonals, sums, transposes, outer products, the ellipsis, implicit output,
//! broadcasting of extent-1 axes, several operands), random subscripts, every dtype the
//! products take, transposed and strided views, zero extents, and bad subscripts (typed
//! errors, the device still usable).

#[macro_use]
mod common;

use std::collections::BTreeMap;

use common::{assert_close, dev, host, if_supported, upload, Rng};
use gpuarray::linalg::{einsum, multi_dot};
use gpuarray::{f16, Array, DType, Error, Real, Slice};

/// The naive reference: NumPy's rules read independently of the library (the ellipsis
/// becomes the digits, right-aligned; the implicit output is the digits then the letters
/// appearing once, sorted).
fn reference(subscripts: &str, ops: &[(&[usize], &[f64])]) -> (Vec<usize>, Vec<f64>) {
    let s: String = subscripts.chars().filter(|c| !c.is_whitespace()).collect();
    let (lhs, rhs) = match s.split_once("->") {
        Some((l, r)) => (l.to_string(), Some(r.to_string())),
        None => (s.clone(), None),
    };
    let terms: Vec<&str> = lhs.split(',').collect();
    assert_eq!(terms.len(), ops.len());
    let e = terms
        .iter()
        .zip(ops)
        .map(|(t, (sh, _))| sh.len() + 3 * t.contains("...") as usize - t.len())
        .max()
        .unwrap_or(0);
    let digits = |k: usize| -> String { (e - k..e).map(|d| (b'0' + d as u8) as char).collect() };
    let labels: Vec<Vec<char>> = terms
        .iter()
        .zip(ops)
        .map(|(t, (sh, _))| {
            if t.contains("...") {
                let k = sh.len() + 3 - t.len();
                t.replace("...", &digits(k)).chars().collect()
            } else {
                t.chars().collect()
            }
        })
        .collect();
    let out: Vec<char> = match rhs {
        Some(r) => r.replace("...", &digits(e)).chars().collect(),
        None => {
            let mut count: BTreeMap<char, usize> = BTreeMap::new();
            for c in labels.iter().flatten() {
                *count.entry(*c).or_default() += 1;
            }
            count
                .into_iter()
                .filter(|&(c, n)| c.is_ascii_digit() || n == 1)
                .map(|(c, _)| c)
                .collect()
        }
    };
    let mut ext: BTreeMap<char, usize> = BTreeMap::new();
    for (l, (sh, _)) in labels.iter().zip(ops) {
        for (c, &n) in l.iter().zip(sh.iter()) {
            let g = ext.entry(*c).or_insert(n);
            if *g == 1 {
                *g = n;
            }
        }
    }
    let all: Vec<char> = ext.keys().copied().collect();
    let shape: Vec<usize> = out.iter().map(|c| ext[c]).collect();
    let mut result = vec![0.0; shape.iter().product()];
    let total: usize = all.iter().map(|c| ext[c]).product();
    let mut idx: BTreeMap<char, usize> = BTreeMap::new();
    for flat in 0..total {
        let mut r = flat;
        for c in all.iter().rev() {
            idx.insert(*c, r % ext[c]);
            r /= ext[c];
        }
        let mut p = 1.0;
        for (l, (sh, data)) in labels.iter().zip(ops) {
            let mut off = 0;
            for (c, &n) in l.iter().zip(sh.iter()) {
                off = off * n + if n == 1 { 0 } else { idx[c] };
            }
            p *= data[off];
        }
        let mut o = 0;
        for c in &out {
            o = o * ext[c] + idx[c];
        }
        result[o] += p;
    }
    (shape, result)
}

/// Random values for `T`: floats in [-1, 1), integers in [0, 4].
fn values<T: Real>(rng: &mut Rng, n: usize) -> Vec<f64> {
    if T::DTYPE.is_float() {
        rng.vec(n, -1.0, 1.0)
    } else {
        rng.ints(n, 0, 4)
    }
}

/// `einsum(subscripts)` over random operands of `shapes` against the reference.
#[track_caller]
fn check<T: Real>(rng: &mut Rng, subscripts: &str, shapes: &[&[usize]]) {
    let ops: Vec<(Array<T>, Vec<f64>)> = shapes
        .iter()
        .map(|s| upload::<T>(dev(), &values::<T>(rng, s.iter().product()), s))
        .collect();
    let arrays: Vec<&Array<T>> = ops.iter().map(|o| &o.0).collect();
    check_arrays(
        subscripts,
        &arrays,
        &ops.iter().map(|o| o.1.clone()).collect::<Vec<_>>(),
    );
}

/// `einsum` over given arrays (views too) whose values in C order are `data`.
#[track_caller]
fn check_arrays<T: Real>(subscripts: &str, arrays: &[&Array<T>], data: &[Vec<f64>]) {
    let refs: Vec<(&[usize], &[f64])> = arrays
        .iter()
        .zip(data)
        .map(|(a, d)| (a.shape(), d.as_slice()))
        .collect();
    let (shape, want) = reference(subscripts, &refs);
    let got = einsum(subscripts, arrays).unwrap_or_else(|e| panic!("{subscripts}: {e}"));
    assert_eq!(got.shape(), shape.as_slice(), "{subscripts}");
    // Sums of up to a few hundred products of values below 1 in magnitude.
    let (atol, rtol) = match T::DTYPE {
        DType::F16 => (3e-2, 1e-2),
        DType::F32 => (1e-4, 1e-5),
        DType::F64 => (1e-12, 1e-12),
        _ => (0.0, 0.0),
    };
    assert_close(&host(&got), &want, atol, rtol);
}

/// NumPy's forms, each a case of the reference.
const FORMS: &[(&str, &[&[usize]])] = &[
    ("ij,jk->ik", &[&[7, 5], &[5, 3]]),
    ("ij,jk", &[&[1, 13], &[13, 70]]),
    ("bij,bjk->bik", &[&[3, 4, 5], &[3, 5, 2]]),
    ("ij,j->i", &[&[11, 6], &[6]]),
    ("j,ij", &[&[6], &[5, 6]]),
    ("i,j->ij", &[&[4], &[3]]),
    ("bi,bi->b", &[&[9, 17], &[9, 17]]),
    ("ii->", &[&[5, 5]]),
    ("ii", &[&[1, 1]]),
    ("ii->i", &[&[6, 6]]),
    ("iij->j", &[&[3, 3, 4]]),
    ("ijj->ij", &[&[2, 3, 3]]),
    ("ij->i", &[&[4, 7]]),
    ("ij->", &[&[4, 7]]),
    ("ij->ji", &[&[4, 7]]),
    ("ji", &[&[4, 7]]),
    ("ijk->kij", &[&[2, 3, 4]]),
    ("i->", &[&[129]]),
    ("...ij,...jk", &[&[2, 3, 4, 5], &[5, 2]]),
    ("...ij,...jk->...ik", &[&[3, 1, 2, 4], &[5, 4, 3]]),
    ("i...->...", &[&[3, 2, 4]]),
    ("...i->...", &[&[3, 2, 4]]),
    ("...i->i", &[&[4]]),
    ("...,...", &[&[3, 4], &[4]]),
    ("ij,ij->ij", &[&[3, 1], &[3, 4]]),
    ("ij,kj->ik", &[&[1, 4], &[3, 4]]),
    ("bhqd,bhkd->bhqk", &[&[2, 3, 5, 4], &[2, 3, 6, 4]]),
    ("ij,jk,kl->il", &[&[3, 8], &[8, 2], &[2, 5]]),
    ("i,ij,j->", &[&[4], &[4, 5], &[5]]),
    ("ab,bc,cd,da->", &[&[2, 3], &[3, 4], &[4, 5], &[5, 2]]),
    ("ab,cd->abcd", &[&[2, 3], &[2, 2]]),
    ("i,->i", &[&[4], &[]]),
    ("->", &[&[]]),
    ("ij,ji->", &[&[3, 4], &[4, 3]]),
    ("iji,j->", &[&[3, 2, 3], &[2]]),
    (" ij , jk -> ki ", &[&[3, 2], &[2, 4]]),
    ("ijk,jil->kl", &[&[2, 3, 4], &[3, 2, 5]]),
    ("Aa,aB->AB", &[&[2, 3], &[3, 2]]),
];

#[test]
fn numpys_forms_f32() {
    let mut rng = Rng::new(1);
    for (s, shapes) in FORMS {
        check::<f32>(&mut rng, s, shapes);
    }
}

#[test]
fn numpys_forms_f64() {
    require_dtype!(f64);
    let mut rng = Rng::new(2);
    for (s, shapes) in FORMS {
        check::<f64>(&mut rng, s, shapes);
    }
}

#[test]
fn other_dtypes() {
    let mut rng = Rng::new(3);
    if_supported::<f16>(|| {
        for (s, shapes) in &FORMS[..12] {
            check::<f16>(&mut rng, s, shapes);
        }
    });
    for (s, shapes) in FORMS {
        check::<i32>(&mut rng, s, shapes);
        check::<u32>(&mut rng, s, shapes);
    }
}

#[test]
fn past_one_workgroup() {
    let mut rng = Rng::new(4);
    check::<f32>(&mut rng, "ij,jk->ik", &[&[67, 131], &[131, 71]]);
    check::<f32>(&mut rng, "bij,bkj->bik", &[&[3, 33, 65], &[3, 17, 65]]);
    check::<f32>(&mut rng, "ij->j", &[&[300, 257]]);
    check::<f32>(&mut rng, "ii", &[&[300, 300]]);
}

#[test]
fn views_as_operands() {
    let mut rng = Rng::new(5);
    let (a, ha) = upload::<f32>(dev(), &rng.vec(6 * 8, -1.0, 1.0), &[6, 8]);
    let (b, hb) = upload::<f32>(dev(), &rng.vec(8 * 5, -1.0, 1.0), &[8, 5]);
    let at = a.t();
    let hat: Vec<f64> = (0..8 * 6).map(|k| ha[(k % 6) * 8 + k / 6]).collect();
    check_arrays("ji,jk->ik", &[&at, &b], &[hat.clone(), hb.clone()]);
    check_arrays("ij->ij", &[&at], std::slice::from_ref(&hat));
    check_arrays(
        "ii->i",
        &[&a.slice([Slice::from(..), Slice::from(..6)]).unwrap()],
        &[(0..36).map(|k| ha[(k / 6) * 8 + k % 6]).collect()],
    );
    // Every other row, reversed columns.
    let s = a
        .slice([Slice::from(..).step(2), Slice::from(..).step(-1)])
        .unwrap();
    let hs: Vec<f64> = (0..3 * 8)
        .map(|k| ha[(k / 8) * 2 * 8 + 7 - k % 8])
        .collect();
    check_arrays("ij,jk->ki", &[&s, &b], &[hs.clone(), hb.clone()]);
    check_arrays("ij->j", &[&s], &[hs]);
    // A broadcast view (stride 0).
    let (v, hv) = upload::<f32>(dev(), &rng.vec(5, -1.0, 1.0), &[5]);
    let bv = v.broadcast_to([4, 5]).unwrap();
    let hbv: Vec<f64> = (0..20).map(|k| hv[k % 5]).collect();
    check_arrays("ij,kj->ik", &[&bv, &b], &[hbv, hb]);
    // The result is new: the operands are unchanged and not aliased.
    let r = einsum("ij->ij", &[&a]).unwrap();
    r.fill(0.0).unwrap();
    assert_eq!(host(&a), ha);
}

#[test]
fn zero_extents() {
    let mut rng = Rng::new(6);
    for (s, shapes) in [
        ("ij,jk->ik", &[&[3, 0][..], &[0, 4]][..]),
        ("ij,jk->ik", &[&[0, 3], &[3, 4]]),
        ("ii->i", &[&[0, 0]]),
        ("ii", &[&[0, 0]]),
        ("ij->", &[&[0, 5]]),
        ("bij,bjk->bik", &[&[0, 2, 3], &[0, 3, 2]]),
        ("i,j->ij", &[&[0], &[3]]),
        ("ij,ij->ij", &[&[0, 1], &[1, 3]]),
    ] {
        check::<f32>(&mut rng, s, shapes);
    }
}

/// Random subscripts over up to 4 operands of up to 4 indices among 6 letters (some
/// repeated in a term, some of extent 1 to broadcast), explicit or implicit output.
#[test]
fn random_subscripts() {
    require_dtype!(f64);
    let mut rng = Rng::new(7);
    let letters = ['a', 'b', 'c', 'd', 'e', 'f'];
    for case in 0..120 {
        let ext: Vec<usize> = (0..6).map(|_| rng.int(1, 4) as usize).collect();
        let nops = rng.int(1, 4) as usize;
        let mut terms = Vec::new();
        let mut shapes: Vec<Vec<usize>> = Vec::new();
        for _ in 0..nops {
            let len = rng.int(0, 4) as usize;
            let t: String = (0..len).map(|_| letters[rng.int(0, 5) as usize]).collect();
            let sh: Vec<usize> = t
                .chars()
                .map(|c| {
                    let n = ext[c as usize - 'a' as usize];
                    // An axis of extent 1 broadcasts, unless the index repeats in the term.
                    if rng.bool(0.15) && t.matches(c).count() == 1 {
                        1
                    } else {
                        n
                    }
                })
                .collect();
            terms.push(t);
            shapes.push(sh);
        }
        let used: Vec<char> = letters
            .iter()
            .copied()
            .filter(|c| terms.iter().any(|t| t.contains(*c)))
            .collect();
        let mut subs = terms.join(",");
        if rng.bool(0.6) {
            let mut out: Vec<char> = used.iter().copied().filter(|_| rng.bool(0.5)).collect();
            // Shuffle.
            for k in (1..out.len()).rev() {
                out.swap(k, rng.int(0, k as i64) as usize);
            }
            subs.push_str("->");
            subs.extend(out);
        }
        let refs: Vec<&[usize]> = shapes.iter().map(|s| s.as_slice()).collect();
        if case % 2 == 0 {
            check::<f64>(&mut rng, &subs, &refs);
        } else {
            check::<i32>(&mut rng, &subs, &refs);
        }
    }
}

#[track_caller]
fn bad(subscripts: &str, arrays: &[&Array<f32>]) {
    match einsum(subscripts, arrays) {
        Err(Error::Einsum {
            subscripts: s,
            reason,
        }) => {
            assert_eq!(s, subscripts);
            assert!(!reason.is_empty());
        }
        other => panic!("{subscripts}: expected Error::Einsum, got {other:?}"),
    }
}

#[test]
fn bad_subscripts_are_typed_errors() {
    let a = dev().ones::<f32>([2, 3]).unwrap();
    let b = dev().ones::<f32>([4, 2]).unwrap();
    let sq = dev().ones::<f32>([3, 3]).unwrap();
    bad("ij,jk", &[&a]); // two terms, one operand
    bad("ij", &[&a, &a]);
    bad("ijk", &[&a]); // three indices, two dimensions
    bad("i", &[&a]);
    bad("i1", &[&a]);
    bad("i.j", &[&a]);
    bad("....ij", &[&a]);
    bad("ij->ii", &[&a]);
    bad("ij->k", &[&a]);
    bad("ij->i->j", &[&a]);
    bad("ij-i", &[&a]);
    bad("ij,jk->ik", &[&a, &b]); // j: 3 against 4
    bad("ii", &[&a]); // a diagonal of a 2 x 3 matrix
    bad("...j->j", &[&a]); // NumPy's rule: the output keeps the ellipsis's axes
    match einsum("ij,jk->ik", &[&a, &b]) {
        Err(e) => assert!(
            e.to_string()
                .contains("'j' has extent 3 in operand 0 and 4"),
            "{e}"
        ),
        Ok(_) => unreachable!(),
    }
    assert!(matches!(
        einsum::<f32>("", &[]),
        Err(Error::InvalidArgument { .. })
    ));
    // Refused dtypes.
    let flags = dev().from_slice(&[true, false], [2]).unwrap();
    common::assert_unsupported(einsum("i->", &[&flags]), DType::Bool);
    // The operands and the device are intact.
    assert_eq!(host(&a), vec![1.0; 6]);
    assert_eq!(einsum("ii", &[&sq]).unwrap().to_scalar().unwrap(), 3.0);
}

#[test]
fn gpuarray_einsum_is_the_same_function() {
    let a = dev().from_slice(&[1.0f32, 2.0, 3.0, 4.0], [2, 2]).unwrap();
    assert_eq!(
        gpuarray::einsum("ij->", &[&a])
            .unwrap()
            .to_scalar()
            .unwrap(),
        10.0
    );
}

/// The CPU chain product, in order.
fn chain(mats: &[(Vec<usize>, Vec<f64>)]) -> Vec<f64> {
    let mut acc = mats[0].1.clone();
    let mut rows = mats[0].0[0];
    for (shape, data) in &mats[1..] {
        let (k, n) = (shape[0], shape[1]);
        let mut next = vec![0.0; rows * n];
        for i in 0..rows {
            for j in 0..n {
                next[i * n + j] = (0..k).map(|l| acc[i * k + l] * data[l * n + j]).sum();
            }
        }
        acc = next;
        rows = acc.len() / n.max(1);
        if n == 0 {
            rows = mats[0].0[0];
        }
    }
    acc
}

#[test]
fn multi_dot_against_the_chain() {
    require_dtype!(f64);
    let mut rng = Rng::new(8);
    for dims in [
        vec![3usize, 5, 2],
        vec![30, 35, 15, 5, 10, 20, 25],
        vec![1, 7, 9, 1],
        vec![13, 1, 13, 4, 8],
        vec![4, 0, 3, 2],
    ] {
        let mut arrays = Vec::new();
        let mut hostm = Vec::new();
        for w in dims.windows(2) {
            let (a, h) = upload::<f64>(dev(), &rng.vec(w[0] * w[1], -1.0, 1.0), &[w[0], w[1]]);
            arrays.push(a);
            hostm.push((vec![w[0], w[1]], h));
        }
        let refs: Vec<&Array<f64>> = arrays.iter().collect();
        let got = multi_dot(&refs).unwrap();
        assert_eq!(got.shape(), &[dims[0], *dims.last().unwrap()]);
        assert_close(&host(&got), &chain(&hostm), 1e-12, 1e-12);
    }
    // 1-D ends: a row first, a column last, both (a scalar).
    let (v, hv) = upload::<f32>(dev(), &rng.vec(4, -1.0, 1.0), &[4]);
    let (m, hm) = upload::<f32>(dev(), &rng.vec(12, -1.0, 1.0), &[4, 3]);
    let (w, hw) = upload::<f32>(dev(), &rng.vec(3, -1.0, 1.0), &[3]);
    let rv = multi_dot(&[&v, &m]).unwrap();
    assert_eq!(rv.shape(), &[3]);
    let want = chain(&[(vec![1, 4], hv.clone()), (vec![4, 3], hm.clone())]);
    assert_close(&host(&rv), &want, 1e-5, 1e-5);
    let mw = multi_dot(&[&m, &w]).unwrap();
    assert_eq!(mw.shape(), &[4]);
    let s = multi_dot(&[&v, &m, &w]).unwrap();
    assert_eq!(s.shape(), &[] as &[usize]);
    let want = chain(&[(vec![1, 4], hv), (vec![4, 3], hm), (vec![3, 1], hw)]);
    assert_close(&host(&s), &want, 1e-5, 1e-5);
    // A transposed view in the chain.
    let mt = m.t();
    assert_eq!(multi_dot(&[&mt, &m]).unwrap().shape(), &[3, 3]);
}

#[test]
fn multi_dot_bad_input() {
    let a = dev().ones::<f32>([2, 3]).unwrap();
    let c = dev().ones::<f32>([2, 2, 2]).unwrap();
    let v = dev().ones::<f32>([3]).unwrap();
    assert!(matches!(
        multi_dot(&[&a]),
        Err(Error::InvalidArgument { .. })
    ));
    assert!(matches!(
        multi_dot(&[&a, &a]),
        Err(Error::ShapeMismatch { .. })
    ));
    assert!(matches!(
        multi_dot(&[&a, &c]),
        Err(Error::InvalidArgument { .. })
    ));
    assert!(matches!(
        multi_dot(&[&a, &v, &v]),
        Err(Error::InvalidArgument { .. })
    ));
    let flags = dev().from_slice(&[true, false], [1, 2]).unwrap();
    common::assert_unsupported(multi_dot(&[&flags, &flags.t()]), DType::Bool);
    assert_eq!(host(&multi_dot(&[&a, &a.t()]).unwrap()), vec![3.0; 4]);
}
