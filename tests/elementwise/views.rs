//! Broadcasting, views and offsets.

use super::*;

// ---------------------------------------------------------------------------------------
// Broadcasting, views and offsets
// ---------------------------------------------------------------------------------------

/// The row-vectorised layout (broadcast or strided operands whose rows are contiguous or
/// broadcast, rows a multiple of 4 long) and its fallbacks (a row offset that is not a
/// multiple of 4, a transposed operand), for every dtype, in unary, binary and where.
fn rows_case<T: Ty>() {
    let dev = dev();
    require_dtype!(T);
    let mut rng = Rng::new(seed("rows"));
    let (m, hm) = upload::<T>(dev, &rng.vec(6 * 12, -8.0, 8.0), &[6, 12]);
    let hm = Host::new(&[6, 12], hm);
    let (row, hrow) = upload::<T>(dev, &rng.vec(8, -8.0, 8.0), &[8]);
    let hrow = Host::new(&[8], hrow);
    let (col, hcol) = upload::<T>(dev, &rng.vec(6, -8.0, 8.0), &[6, 1]);
    let hcol = Host::new(&[6, 1], hcol);
    let add = |x: f64, y: f64| T::wrap(x + y);
    // Column slices of the matrix: rows contiguous, aligned (start 0, 4) or not (start 2).
    for start in [0usize, 2, 4] {
        let v = m
            .slice([Slice::from(..), Slice::from(start..start + 8)])
            .unwrap();
        let hv = hm.slice(&[(0, 6, 1), (start, start + 8, 1)]);
        check::<T>(
            &format!("copy of rows from {start}"),
            &v.contiguous().unwrap(),
            &hv.shape,
            &hv.data,
            (0.0, 0.0),
        );
        let e = zip_with(&hv, &hrow, add);
        check::<T>(
            &format!("rows from {start} + row"),
            &v.add(&row).unwrap(),
            &e.shape,
            &e.data,
            T::ARITH,
        );
        let e = zip_with(&hcol, &hv, add);
        check::<T>(
            &format!("col + rows from {start}"),
            &col.add(&v).unwrap(),
            &e.shape,
            &e.data,
            T::ARITH,
        );
    }
    // Row and column broadcast against each other: every operand broadcast.
    let e = zip_with(&hcol, &hrow, add);
    check::<T>(
        "col + row",
        &col.add(&row).unwrap(),
        &e.shape,
        &e.data,
        T::ARITH,
    );
    // where with a broadcast mask.
    let mask = row.gt(&col).unwrap();
    let e = zip_with(&hcol, &hrow, |c, r| if r > c { r } else { c });
    let got = Array::where_(&mask, &row.broadcast_to([6, 8]).unwrap(), &col).unwrap();
    check::<T>("where", &got, &e.shape, &e.data, (0.0, 0.0));
    // A transposed operand: not rows, one element per invocation.
    let (sq, hsq) = upload::<T>(dev, &rng.vec(64, -8.0, 8.0), &[8, 8]);
    let hsq = Host::new(&[8, 8], hsq);
    let e = zip_with(&hsq.t(), &hrow, add);
    check::<T>(
        "transposed + row",
        &sq.t().add(&row).unwrap(),
        &e.shape,
        &e.data,
        T::ARITH,
    );
}

#[test]
fn rows_f16() {
    rows_case::<f16>();
}
#[test]
fn rows_f32() {
    rows_case::<f32>();
}
#[test]
fn rows_f64() {
    rows_case::<f64>();
}
#[test]
fn rows_i32() {
    rows_case::<i32>();
}
#[test]
fn rows_u32() {
    rows_case::<u32>();
}

/// Every broadcasting position: left, right, both, leading axes, size-1 and 0-d operands,
/// empty results.
#[test]
fn broadcasting() {
    let dev = dev();
    let mut rng = Rng::new(seed("broadcasting"));
    let shapes: &[(&[usize], &[usize])] = &[
        (&[3, 1], &[1, 4]),
        (&[1, 4], &[3, 1]),
        (&[4], &[3, 4]),
        (&[3, 4], &[4]),
        (&[2, 1, 5], &[3, 1]),
        (&[3, 1], &[2, 1, 5]),
        (&[1], &[3, 4]),
        (&[3, 4], &[1]),
        (&[], &[3, 4]),
        (&[3, 4], &[]),
        (&[], &[]),
        (&[1], &[]),
        (&[], &[1, 1]),
        (&[5, 1, 1], &[1, 1, 6]),
        (&[2, 3, 4, 5], &[3, 1, 5]),
        (&[7, 1, 3, 1, 2], &[1, 5, 1, 4, 1]),
        (&[0, 3], &[1, 3]),
        (&[0], &[]),
        (&[3, 0], &[3, 1]),
        (&[1, 1030], &[3, 1]),
    ];
    for &(sa, sb) in shapes {
        let (na, nb) = (sa.iter().product(), sb.iter().product());
        let (a, ha) = upload::<f32>(dev, &rng.vec(na, -10.0, 10.0), sa);
        let (b, hb) = upload::<f32>(dev, &rng.vec(nb, -10.0, 10.0), sb);
        let (ha, hb) = (Host::new(sa, ha), Host::new(sb, hb));
        let sub = zip_with(&ha, &hb, |x, y| f32::wrap(x - y));
        check::<f32>(
            &format!("sub {sa:?} {sb:?}"),
            &a.sub(&b).unwrap(),
            &sub.shape,
            &sub.data,
            f32::ARITH,
        );
        let lt = zip_with(&ha, &hb, |x, y| b2f(x < y));
        check::<bool>(
            &format!("lt {sa:?} {sb:?}"),
            &a.lt(&b).unwrap(),
            &lt.shape,
            &lt.data,
            (0.0, 0.0),
        );
        let (ai, hai) = upload::<i32>(dev, &rng.ints(na, -100, 100), sa);
        let (bi, hbi) = upload::<i32>(dev, &rng.ints(nb, -100, 100), sb);
        let e = zip_with(&Host::new(sa, hai), &Host::new(sb, hbi), |x, y| x - y);
        check::<i32>(
            &format!("i32 sub {sa:?} {sb:?}"),
            &(&ai - &bi),
            &e.shape,
            &e.data,
            (0.0, 0.0),
        );
    }
}

/// Shapes that do not broadcast give ShapeMismatch, and the device keeps working.
#[test]
fn broadcasting_mismatch() {
    let dev = dev();
    let a = dev.ones::<f32>([3, 4]).unwrap();
    for s in [&[4, 3][..], &[3], &[2, 4], &[3, 4, 1]] {
        let b = dev.ones::<f32>(s).unwrap();
        match a.add(&b) {
            Err(Error::ShapeMismatch { op, lhs, rhs }) => {
                assert_eq!(
                    (op, lhs.as_slice(), rhs.as_slice()),
                    ("add", &[3, 4][..], s)
                );
            }
            other => panic!("{s:?}: {other:?}"),
        }
        assert!(matches!(
            b.lt(&a),
            Err(Error::ShapeMismatch { op: "lt", .. })
        ));
    }
    assert!(matches!(
        Array::where_(&dev.full([2], true).unwrap(), &a, &a),
        Err(Error::ShapeMismatch { op: "where", .. })
    ));
    assert_close(&host(&a.add_scalar(1.0).unwrap()), &[2.0; 12], 0.0, 0.0);
}

/// Views as inputs: transposes, permutations, stepped slices, slice_axis, broadcast_to, and
/// chains of them; unary, binary, cast and where.
#[test]
fn views() {
    let dev = dev();
    let mut rng = Rng::new(seed("views"));
    let (a, ha) = upload::<f32>(dev, &rng.vec(48, -5.0, 5.0), &[6, 8]);
    let (b, hb) = upload::<f32>(dev, &rng.vec(48, -5.0, 5.0), &[8, 6]);
    let (ha, hb) = (Host::new(&[6, 8], ha), Host::new(&[8, 6], hb));
    let tol = f32::ARITH;
    let add = |x: &Host, y: &Host| zip_with(x, y, |p, q| f32::wrap(p + q));

    let e = add(&ha.t(), &hb);
    check::<f32>(
        "t + contiguous",
        &a.t().add(&b).unwrap(),
        &e.shape,
        &e.data,
        tol,
    );
    let e = add(&hb, &ha.t());
    check::<f32>(
        "contiguous + t",
        &b.add(&a.t()).unwrap(),
        &e.shape,
        &e.data,
        tol,
    );
    let e = add(&ha.t(), &hb.t().t());
    check::<f32>("t + t.t", &(&a.t() + &b.t().t()), &e.shape, &e.data, tol);

    let (c, hc) = upload::<f32>(dev, &rng.vec(24, -5.0, 5.0), &[2, 3, 4]);
    let hc = Host::new(&[2, 3, 4], hc);
    for perm in [[2, 0, 1], [1, 2, 0], [0, 2, 1], [2, 1, 0]] {
        let v = c.transpose(&perm).unwrap();
        let hv = hc.transpose(&perm);
        let e = hv.map(|x| f32::wrap(x.exp()));
        check::<f32>(
            &format!("exp of transpose {perm:?}"),
            &v.exp().unwrap(),
            &e.shape,
            &e.data,
            f32::TRANS,
        );
        let e = add(&hv, &hv);
        let sum = v.add(&v.t().contiguous().unwrap().t()).unwrap();
        check::<f32>(
            &format!("transpose {perm:?} + copy"),
            &sum,
            &e.shape,
            &e.data,
            tol,
        );
        let e = hv.map(|x| i32::wrap(x.trunc()));
        check::<i32>(
            &format!("cast of transpose {perm:?}"),
            &v.cast::<i32>().unwrap(),
            &e.shape,
            &e.data,
            (0.0, 0.0),
        );
    }

    // Stepped slices on both sides, with offsets.
    let va = a
        .slice([Slice::from(1..).step(2), Slice::from(1..8).step(3)])
        .unwrap();
    let vb = b
        .slice([Slice::from(..6).step(2), Slice::new(-5, None, 2)])
        .unwrap();
    let (hva, hvb) = (
        ha.slice(&[(1, 6, 2), (1, 8, 3)]),
        hb.slice(&[(0, 6, 2), (1, 6, 2)]),
    );
    let e = zip_with(&hva, &hvb, |p, q| f32::wrap(p * q));
    check::<f32>(
        "stepped * stepped",
        &va.mul(&vb).unwrap(),
        &e.shape,
        &e.data,
        tol,
    );
    let e = hva.map(|x| -x);
    check::<f32>("neg of stepped", &(-&va), &e.shape, &e.data, tol);

    // slice_axis: non-contiguous with an offset.
    let v = a.slice_axis(1, 3..7).unwrap();
    let hv = ha.slice(&[(0, 6, 1), (3, 7, 1)]);
    let e = add(&hv, &hv);
    check::<f32>(
        "slice_axis + itself",
        &v.add(&v).unwrap(),
        &e.shape,
        &e.data,
        tol,
    );

    // broadcast_to views: a row, a column, a 0-d array.
    let (r, hr) = upload::<f32>(dev, &rng.vec(8, -5.0, 5.0), &[8]);
    let hr = Host::new(&[8], hr);
    let e = add(&hr.broadcast_to(&[6, 8]), &ha);
    let rv = r.broadcast_to([6, 8]).unwrap();
    check::<f32>(
        "row broadcast_to + a",
        &rv.add(&a).unwrap(),
        &e.shape,
        &e.data,
        tol,
    );
    let (col, hcol) = upload::<f32>(dev, &rng.vec(6, -5.0, 5.0), &[6, 1]);
    let hcol = Host::new(&[6, 1], hcol);
    let e = add(&hcol.broadcast_to(&[6, 8]), &hb.t());
    let cv = col.broadcast_to([6, 8]).unwrap();
    check::<f32>(
        "column broadcast_to + t",
        &cv.add(&b.t()).unwrap(),
        &e.shape,
        &e.data,
        tol,
    );
    let (z, hz) = upload::<f32>(dev, &[2.5], &[]);
    let e = Host::new(&[], hz).broadcast_to(&[2, 3]).map(|x| x.sqrt());
    check::<f32>(
        "sqrt of 0-d broadcast",
        &z.broadcast_to([2, 3]).unwrap().sqrt().unwrap(),
        &e.shape,
        &e.data,
        f32::TRANS,
    );

    // A chain: slice, transpose, broadcast, then reshape (which copies).
    let v = a
        .slice([Slice::from(2..5), Slice::from(..).step(4)])
        .unwrap()
        .t();
    let hv = ha.slice(&[(2, 5, 1), (0, 8, 4)]).t();
    assert_eq!(v.shape(), &[2, 3]);
    let w = v.broadcast_to([4, 2, 3]).unwrap().reshape([8, 3]).unwrap();
    let hw = Host::new(&[8, 3], hv.broadcast_to(&[4, 2, 3]).data);
    let e = zip_with(&hw, &hr.slice(&[(0, 3, 1)]), |p, q| f32::wrap(p - q));
    let rs = r.slice(..3).unwrap();
    check::<f32>(
        "chain of views",
        &w.sub(&rs).unwrap(),
        &e.shape,
        &e.data,
        tol,
    );
}

/// The strided kernels take up to 8 dimensions after merging; 9 unmergeable ones are split
/// into several launches.
#[test]
fn many_dimensions() {
    let dev = dev();
    let mut rng = Rng::new(seed("many_dimensions"));
    let shape8 = [2usize, 3, 2, 2, 3, 2, 2, 2];
    let n: usize = shape8.iter().product();
    let (a, ha) = upload::<f32>(dev, &rng.vec(n, -5.0, 5.0), &shape8);
    let (b, hb) = upload::<f32>(dev, &rng.vec(n, -5.0, 5.0), &shape8);
    let perm: Vec<usize> = (0..8).rev().collect();
    let (ha, hb) = (Host::new(&shape8, ha), Host::new(&shape8, hb));
    let e = zip_with(&ha.transpose(&perm), &hb.t(), |x, y| f32::wrap(x + y));
    let c = a.transpose(&perm).unwrap().add(&b.t()).unwrap();
    check::<f32>(
        "8-d transposed + transposed",
        &c,
        &e.shape,
        &e.data,
        f32::ARITH,
    );
    // The same against a contiguous operand: every axis stays separate.
    let bc = b.t().contiguous().unwrap();
    let e = zip_with(&ha.t(), &hb.t(), |x, y| f32::wrap(x + y));
    check::<f32>(
        "8-d t + contiguous",
        &a.t().add(&bc).unwrap(),
        &e.shape,
        &e.data,
        f32::ARITH,
    );

    // Nine axes that do not merge (once TooManyDims): split into launches over the outer
    // axis (tests/dims.rs goes to 32).
    let shape9 = [2usize; 9];
    let (y, hy) = upload::<f32>(dev, &rng.vec(512, -5.0, 5.0), &shape9);
    let hy = Host::new(&shape9, hy);
    let perm9: Vec<usize> = (0..9).rev().collect();
    let e = zip_with(&hy.transpose(&perm9), &hy, |x, y| f32::wrap(x + y));
    let got = y.transpose(&perm9).unwrap().add(&y).unwrap();
    check::<f32>("9-d t + contiguous", &got, &e.shape, &e.data, f32::ARITH);
    // Nine axes that merge.
    let x = dev.ones::<f32>(shape9).unwrap();
    assert_close(&host(&x.add(&x).unwrap()), &[2.0; 512], 0.0, 0.0);
}

/// Contiguous slices at every offset 0..=4 as inputs (the vec4 path needs every offset and
/// the length to be multiples of 4; the others take the scalar path), with and without
/// broadcasting, and reads of slices at odd offsets (2-byte elements for f16).
fn offsets<T: Ty>() {
    let dev = dev();
    require_dtype!(T);
    let mut rng = Rng::new(seed("offsets") ^ seed(T::NAME));
    let g = vals::<T>((-10.0, 10.0), (-1000.0, 1000.0));
    let (base_a, ha) = upload::<T>(dev, &g(&mut rng, 1100), &[1100]);
    let (base_b, hb) = upload::<T>(dev, &g(&mut rng, 1100), &[1100]);
    for n in [1, 3, 4, 7, 8, 64, 1028, 1030] {
        for oa in 0..=4 {
            for ob in [0, 1, 2, 3, 4, 8] {
                let a = base_a.slice(oa..oa + n).unwrap();
                let b = base_b.slice(ob..ob + n).unwrap();
                let e: Vec<f64> = (0..n).map(|i| T::wrap(ha[oa + i] + hb[ob + i])).collect();
                check::<T>(
                    &format!("{} n={n} offsets {oa},{ob}", T::NAME),
                    &a.add(&b).unwrap(),
                    &[n],
                    &e,
                    T::ARITH,
                );
            }
            let a = base_a.slice(oa..oa + n).unwrap();
            // Reading the slice directly, and after an op that keeps the offset's alignment.
            check::<T>(
                &format!("{} read n={n} offset {oa}", T::NAME),
                &a,
                &[n],
                &ha[oa..oa + n],
                (0.0, 0.0),
            );
            let e: Vec<f64> = ha[oa..oa + n].iter().map(|&x| T::wrap(x * 2.0)).collect();
            check::<T>(
                &format!("{} mul_scalar n={n} offset {oa}", T::NAME),
                &a.mul_scalar(T::from_f64(2.0)).unwrap(),
                &[n],
                &e,
                T::ARITH,
            );
        }
    }
    // An offset operand broadcast against a matrix, and the output of an op used as an
    // offset input.
    let row = base_a.slice(5..13).unwrap();
    let m = base_b.slice(3..27).unwrap().reshape([3, 8]).unwrap();
    assert_eq!(m.offset(), 3);
    let e: Vec<f64> = (0..24)
        .map(|i| T::wrap(hb[3 + i] - ha[5 + i % 8]))
        .collect();
    check::<T>(
        "offset matrix - offset row",
        &m.sub(&row).unwrap(),
        &[3, 8],
        &e,
        T::ARITH,
    );
    let c = base_a.add(&base_b).unwrap();
    let hc: Vec<f64> = ha.iter().zip(&hb).map(|(x, y)| T::wrap(x + y)).collect();
    for off in [1, 2, 3, 4, 5] {
        let v = c.slice(off..off + 257).unwrap();
        check::<T>(
            &format!("read of an op's output at offset {off}"),
            &v,
            &[257],
            &hc[off..off + 257],
            (0.0, 0.0),
        );
    }
}

#[test]
fn offsets_f16() {
    offsets::<f16>();
}

#[test]
fn offsets_f32() {
    offsets::<f32>();
}

#[test]
fn offsets_f64() {
    offsets::<f64>();
}

#[test]
fn offsets_i32() {
    offsets::<i32>();
}

#[test]
fn offsets_u32() {
    offsets::<u32>();
}
