//! Flips as views, writes through reversed views, printing, ndarray interop, and a view
//! larger than one binding.

use super::*;

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
        &a.flip(..).unwrap(),
        &h.slice(&[rev(), rev(), rev()]),
        "flip(..)",
    );
    check(
        &a.flip([0, -1]).unwrap(),
        &h.slice(&[rev(), Slice::from(..), rev()]),
        "flip([0, -1])",
    );
    // An axis named twice is an error, as NumPy's normalize_axis_tuple.
    assert!(matches!(
        a.flip([0, -1, 0]),
        Err(Error::InvalidArgument { op: "flip", .. })
    ));
    assert_eq!(f.flip(1).unwrap().strides(), a.strides());
    assert_eq!(f.flip(1).unwrap().offset(), a.offset());
    assert!(matches!(a.flip(3), Err(Error::AxisOutOfRange { .. })));
    assert_eq!(
        dev().zeros::<f32>([0, 3]).unwrap().flip(0).unwrap().shape(),
        &[0, 3]
    );
    // Writing through the flipped view changes `a`.
    f.slice_axis(1, 0..1).unwrap().fill(100).unwrap();
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
