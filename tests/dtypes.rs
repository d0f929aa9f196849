//! The element types of issue 18: `bool` (what comparisons, `all`/`any` and masks are; one
//! u32 word of 0 or 1 per element on the device) against a CPU reference: transfers, views,
//! zero sizes, logical operations and their operators, casts to and from every dtype
//! (NumPy's truth: non-zero and NaN are true, -0 false), reductions, masks as inputs, and
//! the operations refused on bools (arithmetic).

mod common;

use common::{dev, if_supported, Rng};
use gpuarray::{f16, Array, Axis, DType, Element, Error, Slice};

/// Sizes around a vec4 and a workgroup: 0, 1, primes.
const SIZES: [usize; 6] = [0, 1, 3, 7, 257, 1031];

fn bools(rng: &mut Rng, n: usize) -> Vec<bool> {
    (0..n).map(|_| rng.bool(0.5)).collect()
}

#[test]
fn bool_round_trip_views_and_zero_sizes() {
    let dev = dev();
    let mut rng = Rng::new(1);
    for n in SIZES {
        let v = bools(&mut rng, n);
        let a = dev.from_slice(&v, [n]).unwrap();
        assert_eq!(a.dtype(), DType::Bool);
        assert_eq!(a.to_vec().unwrap(), v, "n={n}");
        // A stepped slice with an offset.
        if n > 2 {
            let s = a.slice_axis(Axis(0), Slice::new(1, None, 2)).unwrap();
            let want: Vec<bool> = v.iter().skip(1).step_by(2).copied().collect();
            assert_eq!(s.to_vec().unwrap(), want, "n={n} slice");
        }
    }
    let v = bools(&mut rng, 35);
    let a = dev.from_slice(&v, [5, 7]).unwrap();
    let want: Vec<bool> = (0..35).map(|k| v[(k % 5) * 7 + k / 5]).collect();
    assert_eq!(a.t().to_vec().unwrap(), want);
    assert_eq!(dev.zeros::<bool>([3]).unwrap().to_vec().unwrap(), [false; 3]);
    assert_eq!(dev.ones::<bool>([2]).unwrap().to_vec().unwrap(), [true; 2]);
    assert_eq!(dev.full([0, 4], true).unwrap().to_vec().unwrap(), vec![]);
    assert_eq!(DType::Bool.to_string(), "bool");
    assert!(matches!(
        dev.from_slice(&[true, false], [3]),
        Err(Error::SizeMismatch { .. })
    ));
}

/// and/or/xor/not and their operators against Rust's, broadcasting and strided views.
#[test]
fn bool_logical_ops() {
    let dev = dev();
    let mut rng = Rng::new(2);
    for n in SIZES {
        let (x, y) = (bools(&mut rng, n), bools(&mut rng, n));
        let (a, b) = (
            dev.from_slice(&x, [n]).unwrap(),
            dev.from_slice(&y, [n]).unwrap(),
        );
        let zip = |f: fn(bool, bool) -> bool| -> Vec<bool> {
            x.iter().zip(&y).map(|(&p, &q)| f(p, q)).collect()
        };
        assert_eq!(a.and(&b).unwrap().to_vec().unwrap(), zip(|p, q| p & q));
        assert_eq!(a.or(&b).unwrap().to_vec().unwrap(), zip(|p, q| p | q));
        assert_eq!(a.xor(&b).unwrap().to_vec().unwrap(), zip(|p, q| p ^ q));
        assert_eq!((&a & &b).to_vec().unwrap(), zip(|p, q| p & q));
        assert_eq!((&a | &b).to_vec().unwrap(), zip(|p, q| p | q));
        assert_eq!((&a ^ &b).to_vec().unwrap(), zip(|p, q| p ^ q));
        let not: Vec<bool> = x.iter().map(|&p| !p).collect();
        assert_eq!(a.not().unwrap().to_vec().unwrap(), not);
        assert_eq!((!&a).to_vec().unwrap(), not);
        // Comparisons of bools: false < true, as NumPy.
        assert_eq!(a.lt(&b).unwrap().to_vec().unwrap(), zip(|p, q| p < q));
        assert_eq!(a.eq(&b).unwrap().to_vec().unwrap(), zip(|p, q| p == q));
        assert_eq!(a.maximum(&b).unwrap().to_vec().unwrap(), zip(|p, q| p | q));
    }
    // A column broadcast against a transposed [4, 6] (strided) array.
    let x = bools(&mut rng, 24);
    let c = [true, false, true, true];
    let a = dev.from_slice(&x, [6, 4]).unwrap().t();
    let col = dev.from_slice(&c, [4, 1]).unwrap();
    let want: Vec<bool> = (0..24).map(|k| x[(k % 6) * 4 + k / 6] ^ c[k / 6]).collect();
    assert_eq!(a.xor(&col).unwrap().to_vec().unwrap(), want);
    assert!(matches!(
        a.and(&dev.zeros::<bool>([5]).unwrap()),
        Err(Error::ShapeMismatch { .. })
    ));
}

/// The arithmetic NumPy would silently turn into logic is refused, with Unsupported.
#[test]
fn bool_arithmetic_is_refused() {
    let dev = dev();
    let a = dev.from_slice(&[true, false, true], [3]).unwrap();
    common::assert_unsupported(a.add(&a), DType::Bool);
    common::assert_unsupported(a.mul_scalar(true), DType::Bool);
    common::assert_unsupported(a.sum(), DType::Bool);
    common::assert_unsupported(a.prod(), DType::Bool);
    common::assert_unsupported(a.cumsum(0), DType::Bool);
    // ... and counting goes through the u32 reading of the same words.
    assert_eq!(a.as_u32().to_vec().unwrap(), vec![1, 0, 1]);
    assert_eq!(a.as_u32().sum().unwrap().to_scalar().unwrap(), 2);
    assert_eq!(a.as_u32().cumsum(0).unwrap().to_vec().unwrap(), vec![1, 1, 2]);
    // The array is intact after the refusals.
    assert_eq!(a.to_vec().unwrap(), vec![true, false, true]);
}

/// Each numeric dtype to bool (non-zero and NaN true, ±0 false, subnormals true) and back
/// (0 and 1), on a strided view.
fn casts_with<T: Element>(vals: &[f64]) {
    let dev = dev();
    let (t, exact) = common::cast_in::<T>(vals);
    let n = t.len();
    // Interleaved with padding, read through a stepped view.
    let padded: Vec<T> = t.iter().flat_map(|&v| [v, T::one()]).collect();
    let a = dev.from_slice(&padded, [2 * n]).unwrap();
    let a = a.slice_axis(Axis(0), Slice::new(0, None, 2)).unwrap();
    let want: Vec<bool> = exact.iter().map(|&v| v != 0.0).collect();
    let b = a.cast::<bool>().unwrap();
    assert_eq!(b.to_vec().unwrap(), want, "{:?} -> bool", T::DTYPE);
    let back: Vec<f64> = common::host(&b.cast::<T>().unwrap());
    let want_back: Vec<f64> = want.iter().map(|&p| f64::from(u8::from(p))).collect();
    assert_eq!(back, want_back, "bool -> {:?}", T::DTYPE);
}

#[test]
fn bool_casts_with_every_dtype() {
    let floats = [
        0.0,
        -0.0,
        1.0,
        -2.5,
        f64::NAN,
        f64::INFINITY,
        f64::NEG_INFINITY,
        1e-300,
        0.25,
    ];
    casts_with::<f32>(&[0.0, -0.0, 1.0, -2.5, f64::NAN, f64::INFINITY, 1e-45, 0.25, 1e38]);
    if_supported::<f64>(|| casts_with::<f64>(&floats));
    if_supported::<f16>(|| casts_with::<f16>(&[0.0, -0.0, 6e-8, -1.0, f64::NAN, 65504.0]));
    casts_with::<i32>(&[0.0, 1.0, -1.0, 2147483647.0, -2147483648.0, 7.0]);
    casts_with::<u32>(&[0.0, 1.0, 4294967295.0, 2.0, 0.0]);
    // bool to bool is a copy.
    let dev = dev();
    let a = dev.from_slice(&[true, false], [2]).unwrap();
    assert_eq!(a.cast::<bool>().unwrap().to_vec().unwrap(), [true, false]);
}

/// all/any (whole, one axis, negative axis via the set form), max/min/argmax of bools, on
/// random data against the CPU, including zero-size reductions (all true, any false).
#[test]
fn bool_reductions() {
    let dev = dev();
    let mut rng = Rng::new(3);
    for (rows, cols, p) in [(1, 1, 0.5), (5, 7, 0.5), (13, 257, 0.97), (3, 1031, 0.02)] {
        let v: Vec<bool> = (0..rows * cols).map(|_| rng.bool(p)).collect();
        let a = dev.from_slice(&v, [rows, cols]).unwrap();
        let all = v.iter().all(|&b| b);
        let any = v.iter().any(|&b| b);
        assert_eq!(a.all().unwrap().to_scalar().unwrap(), all);
        assert_eq!(a.any().unwrap().to_scalar().unwrap(), any);
        assert_eq!(a.max().unwrap().to_scalar().unwrap(), any);
        assert_eq!(a.min().unwrap().to_scalar().unwrap(), all);
        let row = |r: usize| &v[r * cols..(r + 1) * cols];
        let all_rows: Vec<bool> = (0..rows).map(|r| row(r).iter().all(|&b| b)).collect();
        let any_cols: Vec<bool> = (0..cols)
            .map(|c| (0..rows).any(|r| v[r * cols + c]))
            .collect();
        assert_eq!(a.all_axis(Axis(1)).unwrap().to_vec().unwrap(), all_rows);
        assert_eq!(a.any_axis(Axis(0)).unwrap().to_vec().unwrap(), any_cols);
        // The transpose: its rows are the columns.
        assert_eq!(a.t().any_axis(Axis(1)).unwrap().to_vec().unwrap(), any_cols);
        let first = v.iter().position(|&b| b).unwrap_or(0) as u32;
        assert_eq!(a.argmax().unwrap().to_scalar().unwrap(), first);
        assert_eq!(
            a.as_u32().sum().unwrap().to_scalar().unwrap(),
            v.iter().filter(|&&b| b).count() as u32
        );
    }
    let e = dev.zeros::<bool>([0, 3]).unwrap();
    assert!(e.all().unwrap().to_scalar().unwrap());
    assert!(!e.any().unwrap().to_scalar().unwrap());
    assert_eq!(e.any_axis(Axis(0)).unwrap().to_vec().unwrap(), [false; 3]);
    assert!(matches!(e.max(), Err(Error::InvalidArgument { .. })));
}

/// Comparisons make masks that `where_`, `masked_select`, `nonzero` take, on views.
#[test]
fn bool_masks_as_inputs() {
    let dev = dev();
    let mut rng = Rng::new(4);
    let xs: Vec<i32> = (0..6 * 9).map(|_| rng.int(-5, 5) as i32).collect();
    let x = dev.from_slice(&xs, [6, 9]).unwrap();
    let xv = x.slice_axis(Axis(1), Slice::new(1, None, 2)).unwrap(); // [6, 4]
    let host_v: Vec<i32> = (0..24).map(|k| xs[(k / 4) * 9 + 1 + 2 * (k % 4)]).collect();
    let m = xv.gt_scalar(0).unwrap();
    let hm: Vec<bool> = host_v.iter().map(|&v| v > 0).collect();
    assert_eq!(m.to_vec().unwrap(), hm);
    let zeros = dev.zeros::<i32>([1]).unwrap();
    let w = Array::where_(&m, &xv, &zeros).unwrap();
    let want: Vec<i32> = host_v.iter().map(|&v| if v > 0 { v } else { 0 }).collect();
    assert_eq!(w.to_vec().unwrap(), want);
    let sel: Vec<i32> = host_v.iter().copied().filter(|&v| v > 0).collect();
    assert_eq!(xv.masked_select(&m).unwrap().to_vec().unwrap(), sel);
    let idx: Vec<u32> = (0..24u32).filter(|&k| hm[k as usize]).collect();
    assert_eq!(m.flatnonzero().unwrap().to_vec().unwrap(), idx);
    assert_eq!(m.count_nonzero().unwrap(), idx.len());
    // A transposed mask with where_.
    let wt = Array::where_(&m.t(), &xv.t(), &zeros).unwrap();
    let want_t: Vec<i32> = (0..24).map(|k| want[(k % 6) * 4 + k / 6]).collect();
    assert_eq!(wt.to_vec().unwrap(), want_t);
    // Bad masks: wrong shape; the arrays stay intact.
    let short = dev.from_slice(&[true, false], [2]).unwrap();
    assert!(matches!(
        xv.masked_select(&short),
        Err(Error::ShapeMismatch { .. })
    ));
    assert!(matches!(
        Array::where_(&short, &xv, &zeros),
        Err(Error::ShapeMismatch { .. })
    ));
    assert_eq!(x.to_vec().unwrap(), xs);
}
