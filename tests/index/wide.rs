//! i64 indices (NumPy's intp), in and out: take / take_mode / take_along_axis / gather /
//! scatter_add with i64 index arrays (negatives, out of range, values beyond 32 bits),
//! against a CPU reference; index outputs chained into the gathers as in NumPy
//! (argsort -> take_along_axis, argmax_axis_keepdims -> take_along_axis).

use super::*;
use gpuarray::IndexMode;

/// NumPy's take of the row-major `v` of `shape` along `ax` at `idx`, by `mode`; None
/// when an index is out of range under Raise.
fn ref_take(
    v: &[f64],
    shape: &[usize],
    ax: usize,
    idx: &[i64],
    mode: IndexMode,
) -> Option<Vec<f64>> {
    let len = shape[ax] as i64;
    let inner: usize = shape[ax + 1..].iter().product();
    let outer: usize = shape[..ax].iter().product();
    let pos: Vec<usize> = idx
        .iter()
        .map(|&i| match mode {
            IndexMode::Raise => (i >= -len && i < len).then(|| i.rem_euclid(len) as usize),
            IndexMode::Wrap => Some(i.rem_euclid(len) as usize),
            IndexMode::Clip => Some(i.clamp(0, len - 1) as usize),
        })
        .collect::<Option<_>>()?;
    let mut out = Vec::new();
    for o in 0..outer {
        for &k in &pos {
            for r in 0..inner {
                out.push(v[(o * len as usize + k) * inner + r]);
            }
        }
    }
    Some(out)
}

#[test]
fn take_i64_indices_match_numpy() {
    require_dtype!(i64);
    let dev = dev();
    let mut rng = Rng::new(64);
    for shape in [vec![7usize], vec![5, 7], vec![3, 1, 13]] {
        let n: usize = shape.iter().product();
        let v = rng.ints(n, -99, 99);
        let base = dev
            .from_slice(
                &v.iter().map(|&x| x as f32).collect::<Vec<_>>(),
                shape.clone(),
            )
            .unwrap();
        for ax in 0..shape.len() {
            let len = shape[ax] as i64;
            let idx: Vec<i64> = (0..11).map(|_| rng.int(-len, len - 1) as i64).collect();
            let ia = dev.from_slice(&idx, [11]).unwrap();
            let what = format!("shape {shape:?} axis {ax} idx {idx:?}");
            let got = host(&base.take(&ia, ax as isize).unwrap());
            exact(
                &got,
                &ref_take(&v, &shape, ax, &idx, IndexMode::Raise).unwrap(),
            );
            // Beyond the axis, and beyond 32 bits: wrap (within ±2^32), clip, raise.
            let far = [
                len,
                -len - 1,
                3 * len + 1,
                -2 * len,
                1 << 40,
                -(1 << 40),
                i64::MAX,
                i64::MIN,
            ];
            let fa = dev.from_slice(&far, [far.len()]).unwrap();
            let clip = host(&base.take_mode(&fa, ax as isize, IndexMode::Clip).unwrap());
            exact(
                &clip,
                &ref_take(&v, &shape, ax, &far, IndexMode::Clip).unwrap(),
            );
            let near = dev.from_slice(&far[..4], [4]).unwrap();
            let wrap = host(&base.take_mode(&near, ax as isize, IndexMode::Wrap).unwrap());
            exact(
                &wrap,
                &ref_take(&v, &shape, ax, &far[..4], IndexMode::Wrap).unwrap(),
            );
            for &bad in &far {
                let b = dev.from_slice(&[0i64, bad], [2]).unwrap();
                let e = base.take(&b, ax as isize);
                assert!(
                    matches!(e, Err(Error::IndexOutOfRange { .. })),
                    "{what} {bad}"
                );
            }
        }
    }
    // A strided view of the indices (every other element, reversed through a transpose).
    let x = dev.arange::<i32>(0, 10, 1).unwrap();
    let idx = dev.from_slice(&[-1i64, 7, 2, -10, 0, 3], [3, 2]).unwrap();
    let got = x.take(&idx.t(), 0).unwrap();
    assert_eq!(got.shape(), &[2, 3]);
    assert_eq!(got.to_vec().unwrap(), vec![9, 2, 0, 7, 0, 3]);
}

#[test]
fn take_along_gather_scatter_take_i64() {
    require_dtype!(i64);
    let dev = dev();
    let x = dev
        .arange::<f32>(0.0, 12.0, 1.0)
        .unwrap()
        .reshape([3, 4])
        .unwrap();
    let along = dev.from_slice(&[-1i64, 0, 3, -4, 2, 2], [3, 2]).unwrap();
    let got = x.take_along_axis(&along, 1).unwrap();
    assert_eq!(got.to_vec().unwrap(), vec![3.0, 0.0, 7.0, 4.0, 10.0, 10.0]);
    let bad = dev.from_slice(&[0i64, 4, 0, 0, 0, 0], [3, 2]).unwrap();
    assert!(matches!(
        x.take_along_axis(&bad, 1),
        Err(Error::IndexOutOfRange { .. })
    ));
    let rows = dev.from_slice(&[2i64, -3], [2]).unwrap();
    let cols = dev.from_slice(&[-1i64, 1], [2]).unwrap();
    let g = x.gather(&[Some(&rows), Some(&cols)]).unwrap();
    assert_eq!(g.to_vec().unwrap(), vec![11.0, 1.0]);
    let far = dev.from_slice(&[1i64 << 33], [1]).unwrap();
    assert!(matches!(
        x.gather(&[Some(&far)]),
        Err(Error::IndexOutOfRange { .. })
    ));
    // scatter_add with duplicate and negative i64 indices; a bad one writes nothing.
    let bins = dev.zeros::<f32>([4]).unwrap();
    let idx = dev.from_slice(&[0i64, -1, 3, 1, -4], [5]).unwrap();
    let w = dev.from_slice(&[1.0f32, 2.0, 4.0, 8.0, 16.0], [5]).unwrap();
    bins.scatter_add(0, &idx, &w).unwrap();
    assert_eq!(bins.to_vec().unwrap(), vec![17.0, 8.0, 0.0, 6.0]);
    let out = dev.from_slice(&[0i64, 4, 0, 0, 0], [5]).unwrap();
    assert!(matches!(
        bins.scatter_add(0, &out, &w),
        Err(Error::IndexOutOfRange { .. })
    ));
    assert_eq!(bins.to_vec().unwrap(), vec![17.0, 8.0, 0.0, 6.0]);
}

#[test]
fn index_outputs_chain_into_gathers() {
    let dev = dev();
    let mut rng = Rng::new(65);
    for shape in [[1usize, 1], [3, 17], [13, 5]] {
        let n = shape[0] * shape[1];
        let v: Vec<f32> = rng
            .vec(n, -50.0, 50.0)
            .iter()
            .map(|&x| x.round() as f32)
            .collect();
        let x = dev.from_slice(&v, shape).unwrap();
        for ax in [0isize, 1, -1] {
            let order = x.argsort_axis(ax).unwrap();
            let sorted = x.take_along_axis(&order, ax).unwrap();
            assert_eq!(
                sorted.to_vec().unwrap(),
                x.sort_axis(ax).unwrap().to_vec().unwrap()
            );
            let at = x.argmax_axis(ax, true).unwrap();
            let peak = x.take_along_axis(&at, ax).unwrap();
            assert_eq!(
                peak.to_vec().unwrap(),
                x.max_axis(ax, false).unwrap().to_vec().unwrap()
            );
            let at = x.argmin_axis(ax, true).unwrap();
            let low = x.take_along_axis(&at, ax).unwrap();
            assert_eq!(
                low.to_vec().unwrap(),
                x.min_axis(ax, false).unwrap().to_vec().unwrap()
            );
        }
        // The flat index of the maximum picks it out of the flattened array.
        let flat = x.reshape([n]).unwrap();
        let at = x.argmax().unwrap().reshape([1]).unwrap();
        let mx = v.iter().cloned().fold(f32::NEG_INFINITY, f32::max);
        assert_eq!(flat.take(&at, 0).unwrap().to_vec().unwrap(), vec![mx]);
        // nonzero's arrays index the array back (NumPy's x[x.nonzero()]).
        let nz = x.gt_scalar(0.0).unwrap().nonzero().unwrap();
        let picked = x.gather(&[Some(&nz[0]), Some(&nz[1])]).unwrap();
        let want: Vec<f32> = v.iter().copied().filter(|&e| e > 0.0).collect();
        assert_eq!(picked.to_vec().unwrap(), want);
    }
}

#[test]
fn nanarg_all_nan_is_minus_one_and_unravel_i64() {
    let dev = dev();
    let x = dev
        .from_slice(&[f32::NAN, f32::NAN, 1.0, f32::NAN], [2, 2])
        .unwrap();
    assert_eq!(
        x.nanargmax_axis(1, false).unwrap().to_vec().unwrap(),
        vec![-1, 0]
    );
    assert_eq!(
        x.nanargmin_axis(0, false).unwrap().to_vec().unwrap(),
        vec![1, -1]
    );
    // Uploading i64 positions needs SHADER_INT64 (GL has none).
    require_dtype!(i64);
    let flat = dev.from_slice(&[0i64, 5, 11], [3]).unwrap();
    let c = flat.unravel_index(&[3, 4]).unwrap();
    assert_eq!(
        (c[0].to_vec().unwrap(), c[1].to_vec().unwrap()),
        (vec![0, 1, 2], vec![0, 1, 3])
    );
    for bad in [-1i64, 12, 1 << 40] {
        let b = dev.from_slice(&[0, bad], [2]).unwrap();
        assert!(
            matches!(b.unravel_index(&[3, 4]), Err(Error::IndexOutOfRange { .. })),
            "{bad}"
        );
    }
}

/// An adapter without SHADER_INT64 (`Tuning::int64` off): index functions still produce
/// i64 arrays (two words a index, no 64-bit arithmetic), which read back and index the
/// gathers; creating an i64 array otherwise is refused.
#[test]
fn indices_without_int64() {
    let mut opts = gpuarray::Options::default();
    opts.tuning.int64 = false;
    let d = gpuarray::Device::with_options(opts).unwrap();
    assert!(!d.supports::<i64>());
    assert!(matches!(
        d.zeros::<i64>([2]),
        Err(Error::Unsupported { .. })
    ));
    let mut rng = Rng::new(66);
    let v: Vec<f32> = rng
        .ints(3 * 17, -20, 20)
        .iter()
        .map(|&x| x as f32)
        .collect();
    let (x, full) = (
        d.from_slice(&v, [3, 17]).unwrap(),
        dev().from_slice(&v, [3, 17]).unwrap(),
    );
    let same = |a: gpuarray::Array<i64>, b: gpuarray::Array<i64>| {
        assert_eq!(a.shape(), b.shape());
        assert_eq!(a.to_vec().unwrap(), b.to_vec().unwrap());
    };
    same(x.argmax().unwrap(), full.argmax().unwrap());
    same(
        x.argmin_axis(1, false).unwrap(),
        full.argmin_axis(1, false).unwrap(),
    );
    same(x.argsort_axis(0).unwrap(), full.argsort_axis(0).unwrap());
    same(
        x.gt_scalar(3.0).unwrap().flatnonzero().unwrap(),
        full.gt_scalar(3.0).unwrap().flatnonzero().unwrap(),
    );
    same(
        x.top_k(4, -1, true).unwrap().1,
        full.top_k(4, -1, true).unwrap().1,
    );
    let order = x.argsort_axis(1).unwrap();
    let sorted = x.take_along_axis(&order, 1).unwrap();
    assert_eq!(
        sorted.to_vec().unwrap(),
        full.sort_axis(1).unwrap().to_vec().unwrap()
    );
    let at = x.argmax_axis(0, true).unwrap();
    let peak = x.take_along_axis(&at, 0).unwrap();
    assert_eq!(
        peak.to_vec().unwrap(),
        full.max_axis(0, false).unwrap().to_vec().unwrap()
    );
    let row = x.index_axis(0, 1).unwrap();
    let first = row.take(&order.index_axis(0, 1).unwrap(), 0).unwrap();
    assert_eq!(
        first.to_vec().unwrap(),
        full.index_axis(0, 1)
            .unwrap()
            .sort()
            .unwrap()
            .to_vec()
            .unwrap()
    );
    let nan = d.from_slice(&[f32::NAN; 3], [3]).unwrap();
    assert_eq!(nan.nanargmax().unwrap().to_scalar().unwrap(), -1);
}
