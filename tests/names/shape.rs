//! The shape and index helpers of issue 18's name map (column_stack, h/v/dsplit,
//! atleast_nd, append, insert, delete, rot90, trim_zeros, resize, array_equiv, trace_axes,
//! put_along_axis, fill_diagonal, diag_indices, indices, unravel_index,
//! ravel_multi_index) against host models: every dtype, strided views with offsets, zero
//! sizes, negative axes and bad arguments. Copies must be exact (NaN, -0, infinities kept).

use crate::all_dtypes;
use crate::common::{assert_close, dev, host, unravel, Host, Rng};
use gpuarray::{Array, Error, IndexMode, Real};

/// Random values of `T` as a strided view with an offset (`base[1.., 1.., ...]` of a
/// larger array, axes reversed); with NaN, infinities and -0 among floats.
fn view<T: Real>(rng: &mut Rng, shape: &[usize]) -> (Array<T>, Host) {
    let bshape: Vec<usize> = shape.iter().rev().map(|&n| n + 1).collect();
    let n: usize = bshape.iter().product();
    let mut vals = rng.ints(n, 0, 40);
    if T::DTYPE.is_float() {
        for (k, v) in vals.iter_mut().enumerate().step_by(7) {
            *v = [f64::NAN, f64::INFINITY, -0.0, f64::NEG_INFINITY][k % 4];
        }
    }
    let (t, back) = crate::common::cast_in::<T>(&vals);
    let base = dev().from_slice(&t, bshape.clone()).unwrap();
    let info: Vec<gpuarray::Slice> = vec![gpuarray::Slice::from(1..); bshape.len()];
    let v = base.slice(info).unwrap().t();
    let s: Vec<(usize, usize, usize)> = bshape.iter().map(|&b| (1, b, 1)).collect();
    let h = Host::new(&bshape, back).slice(&s).t();
    assert_eq!(v.shape(), shape);
    (v, h)
}

#[track_caller]
fn check<T: Real>(got: &Array<T>, want: &Host) {
    assert_eq!(got.shape(), &want.shape[..]);
    assert_close(&host(got), &want.data, 0.0, 0.0);
}

/// Host model of an output of `shape` whose element at `idx` is `src` at `map(idx)`.
fn model(src: &Host, shape: &[usize], map: impl Fn(&[usize]) -> Vec<usize>) -> Host {
    let n: usize = shape.iter().product();
    let data = (0..n).map(|i| src.at(&map(&unravel(i, shape)))).collect();
    Host::new(shape, data)
}

fn joins_and_splits<T: Real>() {
    let mut rng = Rng::new(1);
    let (a, ha) = view::<T>(&mut rng, &[5]);
    let (m, hm) = view::<T>(&mut rng, &[5, 2]);
    let cs = Array::column_stack(&[&a, &m, &a]).unwrap();
    let want = model(&hm, &[5, 4], |i| vec![i[0], i[1].saturating_sub(1).min(1)]);
    let mut want = want;
    for r in 0..5 {
        want.data[r * 4] = ha.data[r];
        want.data[r * 4 + 3] = ha.data[r];
    }
    check(&cs, &want);
    let (x, hx) = view::<T>(&mut rng, &[4, 6, 2]);
    for (parts, axis, n) in [
        (x.hsplit(3).unwrap(), 1, 3),
        (x.vsplit(2).unwrap(), 0, 2),
        (x.dsplit(2).unwrap(), 2, 2),
    ] {
        assert_eq!(parts.len(), n);
        for (k, p) in parts.iter().enumerate() {
            let w = x.shape()[axis] / n;
            let mut shape = x.shape().to_vec();
            shape[axis] = w;
            check(
                p,
                &model(&hx, &shape, |i| {
                    let mut s = i.to_vec();
                    s[axis] += k * w;
                    s
                }),
            );
        }
    }
    check(&a.hsplit(5).unwrap()[2], &Host::new(&[1], vec![ha.data[2]]));
    let s = dev().from_slice(&[T::one()], []).unwrap();
    for (v, want) in [
        (s.atleast_1d(), vec![1]),
        (s.atleast_2d(), vec![1, 1]),
        (s.atleast_3d(), vec![1, 1, 1]),
        (a.atleast_1d(), vec![5]),
        (a.atleast_2d(), vec![1, 5]),
        (a.atleast_3d(), vec![1, 5, 1]),
        (m.atleast_2d(), vec![5, 2]),
        (m.atleast_3d(), vec![5, 2, 1]),
        (x.atleast_3d(), vec![4, 6, 2]),
    ] {
        assert_eq!(v.unwrap().shape(), &want[..]);
    }
    check(&m.atleast_3d().unwrap().reshape([5, 2]).unwrap(), &hm);
}

#[test]
fn column_stack_splits_and_atleast_match_numpy() {
    all_dtypes!(joins_and_splits);
}

/// NumPy's insert with a list of indices, on the host (1-D along `axis` of a 2-D model).
fn insert_model(x: &Host, idx: &[isize], v: &Host, axis: usize) -> Host {
    let len = x.shape[axis];
    let mut pos: Vec<usize> = idx
        .iter()
        .map(|&i| {
            if i < 0 {
                (i + len as isize) as usize
            } else {
                i as usize
            }
        })
        .collect();
    let mut order: Vec<usize> = (0..idx.len()).collect();
    order.sort_by_key(|&k| pos[k]);
    for (r, &k) in order.iter().enumerate() {
        pos[k] += r;
    }
    let mut shape = x.shape.clone();
    shape[axis] += idx.len();
    let mut src: Vec<Option<usize>> = vec![None; shape[axis]];
    for (k, &p) in pos.iter().enumerate() {
        src[p] = Some(k);
    }
    let mut old = 0..;
    let from: Vec<(bool, usize)> = src
        .iter()
        .map(|s| s.map_or_else(|| (false, old.next().unwrap()), |k| (true, k)))
        .collect();
    let n: usize = shape.iter().product();
    let data = (0..n)
        .map(|i| {
            let mut c = unravel(i, &shape);
            let (new, k) = from[c[axis]];
            c[axis] = k;
            if new {
                v.at(&c)
            } else {
                x.at(&c)
            }
        })
        .collect();
    Host::new(&shape, data)
}

fn append_insert_delete<T: Real>() {
    let mut rng = Rng::new(2);
    let (x, hx) = view::<T>(&mut rng, &[3, 5]);
    let (v, hv) = view::<T>(&mut rng, &[3, 2]);
    let app = x.append(&v, -1).unwrap();
    let want = Host::new(&[3, 7], vec![0.0; 21]).clone_with(|i, _| {
        if i[1] >= 5 {
            hv.at(&[i[0], i[1] - 5])
        } else {
            hx.at(i)
        }
    });
    check(&app, &want);
    let flat = x.append(&v, None).unwrap();
    let mut want = hx.data.clone();
    want.extend(&hv.data);
    check(&flat, &Host::new(&[21], want));
    let idx = [0isize, 5, -2, 2, 2];
    let (vals, hvals) = view::<T>(&mut rng, &[1, 5]);
    let hb = hvals.broadcast_to(&[3, 5]);
    check(
        &x.insert(&idx, &vals, 1).unwrap(),
        &insert_model(&hx, &idx, &hb, 1),
    );
    let (rows, hrows) = view::<T>(&mut rng, &[2, 5]);
    let idx0 = [3isize, -3];
    check(
        &x.insert(&idx0, &rows, -2).unwrap(),
        &insert_model(&hx, &idx0, &hrows, 0),
    );
    let hflat = Host::new(&[15], hx.data.clone());
    let (one, hone) = view::<T>(&mut rng, &[1]);
    let got = x.insert(&[15, 0, 7], &one, None).unwrap();
    check(
        &got,
        &insert_model(&hflat, &[15, 0, 7], &hone.broadcast_to(&[3]), 0),
    );
    let empty = dev().zeros::<T>([0]).unwrap();
    check(
        &empty.insert(&[0, 0], &one, None).unwrap(),
        &hone.broadcast_to(&[2]),
    );
    check(&x.insert(&[], &one, 0).unwrap(), &hx);
    let del = x.delete(&[0, -1, 0, 3], 1).unwrap();
    check(&del, &model(&hx, &[3, 2], |i| vec![i[0], [1, 2][i[1]]]));
    let del = x.delete(&[14, 1], None).unwrap();
    let keep: Vec<f64> = (0..15)
        .filter(|&i| i != 14 && i != 1)
        .map(|i| hx.data[i])
        .collect();
    check(&del, &Host::new(&[13], keep));
    assert_eq!(x.delete(&[0, 1, 2], 0).unwrap().shape(), &[0, 5]);
}

trait CloneWith {
    fn clone_with(&self, f: impl Fn(&[usize], f64) -> f64) -> Host;
}

impl CloneWith for Host {
    fn clone_with(&self, f: impl Fn(&[usize], f64) -> f64) -> Host {
        let data = (0..self.len())
            .map(|i| f(&unravel(i, &self.shape), self.data[i]))
            .collect();
        Host::new(&self.shape, data)
    }
}

#[test]
fn append_insert_delete_match_numpy() {
    all_dtypes!(append_insert_delete);
}

/// One quarter turn of the host model in the plane (a, b), from a toward b.
fn turn(h: &Host, a: usize, b: usize) -> Host {
    let mut shape = h.shape.clone();
    shape.swap(a, b);
    let nb = h.shape[b];
    model(h, &shape, |i| {
        let mut s = i.to_vec();
        s[a] = i[b];
        s[b] = nb - 1 - i[a];
        s
    })
}

fn rot90_trim_resize<T: Real>() {
    let mut rng = Rng::new(3);
    let (x, hx) = view::<T>(&mut rng, &[3, 4, 2]);
    for (axes, (a, b)) in [([0, 1], (0, 1)), ([-1, 0], (2, 0)), ([1, 2], (1, 2))] {
        for k in -5isize..=5 {
            let mut want = hx.clone();
            for _ in 0..k.rem_euclid(4) {
                want = turn(&want, a, b);
            }
            check(&x.rot90(k, axes).unwrap(), &want);
        }
    }
    let z = T::zero();
    let mut data = vec![z, z, T::from_f64(3.0), z, T::from_f64(2.0), z, z];
    if T::DTYPE.is_float() {
        data[0] = T::from_f64(-0.0);
        data[4] = T::from_f64(f64::NAN);
    }
    let base = dev().from_slice(&data, [7]).unwrap();
    let hd = crate::common::to_f64(&data);
    for (f, b, lo, hi) in [
        (true, true, 2, 5),
        (true, false, 2, 7),
        (false, true, 0, 5),
        (false, false, 0, 7),
    ] {
        let got = base.trim_zeros(f, b).unwrap();
        check(&got, &Host::new(&[hi - lo], hd[lo..hi].to_vec()));
    }
    let zeros = dev().zeros::<T>([4]).unwrap();
    assert_eq!(zeros.trim_zeros(true, false).unwrap().len(), 0);
    assert_eq!(zeros.trim_zeros(false, false).unwrap().len(), 4);
    let (v, hv) = view::<T>(&mut rng, &[6]);
    let strided = v.slice(gpuarray::Slice::from(..).step(2)).unwrap();
    let hs: Vec<f64> = hv.data.iter().step_by(2).copied().collect();
    let nz: Vec<usize> = (0..3).filter(|&i| hs[i] != 0.0).collect();
    let got = strided.trim_zeros(true, true).unwrap();
    let want = nz
        .first()
        .map_or(vec![], |&a| hs[a..=*nz.last().unwrap()].to_vec());
    check(&got, &Host::new(&[want.len()], want));
    for shape in [vec![0], vec![1], vec![2, 7], vec![5, 3], vec![2, 2]] {
        let total: usize = shape.iter().product();
        let want: Vec<f64> = (0..total).map(|i| hx.data[i % hx.len()]).collect();
        check(&x.resize(shape.clone()).unwrap(), &Host::new(&shape, want));
    }
    let e = dev().zeros::<T>([0, 3]).unwrap().resize([2, 2]).unwrap();
    check(&e, &Host::new(&[2, 2], vec![0.0; 4]));
}

#[test]
fn rot90_trim_zeros_and_resize_match_numpy() {
    all_dtypes!(rot90_trim_resize);
}

fn equiv_trace_fill<T: Real>() {
    let mut rng = Rng::new(4);
    let (x, hx) = view::<T>(&mut rng, &[3, 4]);
    let dense = x.copy().unwrap();
    let nan = hx.data.iter().any(|v| v.is_nan());
    assert_eq!(x.array_equiv(&dense).unwrap(), !nan);
    let row = x.slice(1..2).unwrap();
    let rows = Array::concatenate(&[&row, &row, &row], 0).unwrap();
    let row_nan = hx.data[4..8].iter().any(|v| v.is_nan());
    assert_eq!(row.array_equiv(&rows).unwrap(), !row_nan);
    assert!(!x.array_equiv(&dev().zeros::<T>([4, 3]).unwrap()).unwrap());
    assert!(!x.array_equiv(&x.slice_axis(1, 0..2).unwrap()).unwrap());
    let e = dev().zeros::<T>([0, 4]).unwrap();
    assert!(e.array_equiv(&dev().zeros::<T>([4]).unwrap()).unwrap());

    let (c, hc) = view::<T>(&mut rng, &[3, 4, 2]);
    for (a1, a2, keep) in [(0isize, 1isize, 2usize), (-1, 0, 1), (1, 2, 0)] {
        for off in -4isize..=4 {
            let (p, q) = (a1.rem_euclid(3) as usize, a2.rem_euclid(3) as usize);
            let got = c.trace_axes(off, a1, a2).unwrap();
            let want: Vec<f64> = (0..hc.shape[keep])
                .map(|r| {
                    let mut s = 0.0;
                    for i in 0..hc.shape[p] as isize {
                        let j = i + off;
                        if j >= 0 && (j as usize) < hc.shape[q] {
                            let mut at = vec![0; 3];
                            (at[p], at[q], at[keep]) = (i as usize, j as usize, r);
                            s += hc.at(&at);
                        }
                    }
                    s
                })
                .collect();
            let tol = if T::DTYPE == gpuarray::DType::F16 {
                1e-2
            } else {
                1e-6
            };
            assert_eq!(got.shape(), &[hc.shape[keep]]);
            assert_close(&host(&got), &want, 0.0, tol);
        }
    }

    let seven = T::from_f64(7.0);
    for (shape, wrap) in [
        ([2, 5], false),
        ([7, 2], false),
        ([7, 2], true),
        ([4, 4], true),
    ] {
        let (t, ht) = view::<T>(&mut rng, &shape);
        t.fill_diagonal(seven, wrap).unwrap();
        let cols = shape[1];
        let want = ht.clone_with(|i, d| {
            let flat = i[0] * cols + i[1];
            let on = if wrap {
                flat % (cols + 1) == 0
            } else {
                i[0] == i[1]
            };
            if on {
                7.0
            } else {
                d
            }
        });
        check(&t, &want);
    }
    let cube = dev().zeros::<T>([3, 3, 3]).unwrap();
    cube.fill_diagonal(seven, false).unwrap();
    let want: Vec<f64> = (0..27)
        .map(|i| if i % 13 == 0 { 7.0 } else { 0.0 })
        .collect();
    check(&cube, &Host::new(&[3, 3, 3], want));
}

#[test]
fn array_equiv_trace_axes_and_fill_diagonal_match_numpy() {
    all_dtypes!(equiv_trace_fill);
}

fn put_along<T: Real>() {
    let mut rng = Rng::new(5);
    let x = dev().zeros::<T>([4, 5]).unwrap();
    let (vals, hv) = view::<T>(&mut rng, &[3, 5]);
    let raw: Vec<i32> = (0..15).map(|_| (rng.int(0, 1000) as i32 % 8) - 4).collect();
    let idx = dev().from_slice(&raw, [3, 5]).unwrap();
    x.put_along_axis(&idx, &vals, -2).unwrap();
    let mut want = vec![0.0; 20];
    for (p, &i) in raw.iter().enumerate() {
        let r = i.rem_euclid(4) as usize;
        want[r * 5 + p % 5] = hv.data[p];
    }
    check(&x, &Host::new(&[4, 5], want.clone()));
    // Indices broadcast along the other axis; one value for all.
    let col = dev().from_slice(&[4u32, 0], [1, 2]).unwrap();
    x.put_along_axis(&col, &dev().from_slice(&[T::one()], [1]).unwrap(), 1)
        .unwrap();
    for r in 0..4 {
        (want[r * 5], want[r * 5 + 4]) = (1.0, 1.0);
    }
    check(&x, &Host::new(&[4, 5], want.clone()));
    let bad = dev().from_slice(&[5i32], [1, 1]).unwrap();
    assert!(matches!(
        x.put_along_axis(&bad, &dev().from_slice(&[T::one()], [1]).unwrap(), 1),
        Err(Error::IndexOutOfRange { .. })
    ));
    assert!(matches!(
        x.put_along_axis(&bad, &vals, 1),
        Err(Error::Broadcast { .. })
    ));
    check(&x, &Host::new(&[4, 5], want));
}

#[test]
fn put_along_axis_matches_numpy() {
    all_dtypes!(put_along);
}

#[test]
fn indices_and_flat_index_conversions_match_numpy() {
    let d = dev();
    let g = d.indices::<i32>(&[2, 0, 3]).unwrap();
    assert_eq!(g.shape(), &[3, 2, 0, 3]);
    let g = d.indices::<f32>(&[3, 1, 2]).unwrap();
    let want: Vec<f64> = (0..18)
        .map(|i| {
            let c = unravel(i, &[3, 3, 1, 2]);
            c[1 + c[0]] as f64
        })
        .collect();
    check(&g, &Host::new(&[3, 3, 1, 2], want));
    assert_eq!(d.indices::<u32>(&[]).unwrap().shape(), &[0]);
    let di = d.diag_indices(4, 3).unwrap();
    assert_eq!(di.len(), 3);
    assert!(di.iter().all(|a| a.to_vec().unwrap() == vec![0, 1, 2, 3]));
    assert_eq!(d.diag_indices(0, 2).unwrap()[1].len(), 0);

    let mut rng = Rng::new(6);
    let dims = [5usize, 1, 7, 3];
    let flat: Vec<u32> = (0..23).map(|_| rng.int(0, 1000) as u32 % 105).collect();
    let base = d.from_slice(&flat, [23]).unwrap();
    let coords = base
        .slice(gpuarray::Slice::from(1..).step(2))
        .unwrap()
        .unravel_index(&dims)
        .unwrap();
    for (k, c) in coords.iter().enumerate() {
        let want: Vec<i64> = flat
            .iter()
            .skip(1)
            .step_by(2)
            .map(|&f| unravel(f as usize, &dims)[k] as i64)
            .collect();
        assert_eq!(c.to_vec().unwrap(), want);
    }
    // Casting the i64 coordinates needs SHADER_INT64 (GL has none).
    require_dtype!(i64);
    let ci: Vec<Array<i32>> = coords.iter().map(|c| c.cast::<i32>().unwrap()).collect();
    let refs: Vec<&Array<i32>> = ci.iter().collect();
    let back = Array::ravel_multi_index(&refs, &dims, IndexMode::Raise).unwrap();
    let want: Vec<u32> = flat.iter().skip(1).step_by(2).copied().collect();
    assert_eq!(back.to_vec().unwrap(), want);
    assert!(matches!(
        base.unravel_index(&[10, 10]),
        Err(Error::IndexOutOfRange { .. })
    ));
    assert_eq!(
        d.zeros::<u32>([0])
            .unwrap()
            .unravel_index(&[0, 3])
            .unwrap()
            .len(),
        2
    );

    let r = d.from_slice(&[-1i32, 0, 4, 9, -7], [5, 1]).unwrap();
    let c = d.from_slice(&[2i32, -3, 6], [1, 3]).unwrap();
    let wrap = Array::ravel_multi_index(&[&r, &c], &[4, 5], IndexMode::Wrap).unwrap();
    let clip = Array::ravel_multi_index(&[&r, &c], &[4, 5], IndexMode::Clip).unwrap();
    assert_eq!(wrap.shape(), &[5, 3]);
    let (rv, cv) = ([-1i64, 0, 4, 9, -7], [2i64, -3, 6]);
    for (i, j) in (0..5).flat_map(|i| (0..3).map(move |j| (i, j))) {
        let w = rv[i].rem_euclid(4) * 5 + cv[j].rem_euclid(5);
        let k = rv[i].clamp(0, 3) * 5 + cv[j].clamp(0, 4);
        assert_eq!(wrap.to_vec().unwrap()[i * 3 + j] as i64, w);
        assert_eq!(clip.to_vec().unwrap()[i * 3 + j] as i64, k);
    }
    for bad in [
        Array::ravel_multi_index(&[&r, &c], &[4, 5], IndexMode::Raise),
        Array::ravel_multi_index(&[&r], &[4, 5], IndexMode::Raise),
        Array::ravel_multi_index(&[], &[], IndexMode::Raise),
        Array::ravel_multi_index(&[&r, &c], &[1 << 20, 1 << 20], IndexMode::Wrap),
    ] {
        assert!(matches!(
            bad,
            Err(Error::IndexOutOfRange { .. } | Error::InvalidArgument { .. })
        ));
    }
}

#[test]
fn bad_arguments_are_typed_errors_and_leave_the_array_intact() {
    let d = dev();
    let x = d
        .arange::<f32>(0.0, 6.0, 1.0)
        .unwrap()
        .reshape([2, 3])
        .unwrap();
    let v1 = d.arange::<f32>(0.0, 6.0, 1.0).unwrap();
    let inv = |r: gpuarray::Result<_>| matches!(r, Err(Error::InvalidArgument { .. }));
    assert!(inv(v1.vsplit(2).map(|_| ())));
    assert!(inv(x.dsplit(1).map(|_| ())));
    assert!(inv(x.hsplit(2).map(|_| ())));
    assert!(inv(d.zeros::<f32>([]).unwrap().hsplit(1).map(|_| ())));
    assert!(inv(v1.rot90(1, [0, 0]).map(|_| ())));
    assert!(inv(x.rot90(1, [1, -1]).map(|_| ())));
    assert!(matches!(
        x.rot90(1, [0, 2]),
        Err(Error::AxisOutOfRange { .. })
    ));
    assert!(inv(x.trim_zeros(true, true).map(|_| ())));
    let one = d.from_slice(&[9.0f32], [1]).unwrap();
    assert!(matches!(
        x.insert(&[4], &one, 1),
        Err(Error::IndexOutOfRange { .. })
    ));
    assert!(matches!(
        x.insert(&[-4], &one, 1),
        Err(Error::IndexOutOfRange { .. })
    ));
    let two = d.from_slice(&[1.0f32, 2.0], [2]).unwrap();
    assert!(matches!(
        x.insert(&[0], &two, 1),
        Err(Error::Broadcast { .. })
    ));
    assert!(matches!(
        x.delete(&[3], -1),
        Err(Error::IndexOutOfRange { .. })
    ));
    assert!(matches!(
        x.delete(&[0], 2),
        Err(Error::AxisOutOfRange { .. })
    ));
    assert!(matches!(x.append(&two, 0), Err(Error::JoinMismatch { .. })));
    assert!(inv(v1.fill_diagonal(1.0, false)));
    assert!(inv(d
        .zeros::<f32>([2, 2, 3])
        .unwrap()
        .fill_diagonal(1.0, false)));
    assert!(inv(x.put_along_axis(
        &d.zeros::<i32>([2]).unwrap(),
        &one,
        0
    )));
    assert!(inv(x.trace_axes(0, 1, -1).map(|_| ())));
    assert_eq!(x.to_vec().unwrap(), vec![0.0, 1.0, 2.0, 3.0, 4.0, 5.0]);
}
