//! The element types of issue 18: `bool` (what comparisons, `all`/`any` and masks are; one
//! u32 word of 0 or 1 per element on the device) against a CPU reference: transfers, views,
//! zero sizes, logical operations and their operators, casts to and from every dtype
//! (NumPy's truth: non-zero and NaN are true, -0 false), reductions, masks as inputs, and
//! the operations refused on bools (arithmetic).

mod common;

use common::{dev, if_supported, Rng};
use gpuarray::{f16, Array, DType, Error, Real, Slice};

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
            let s = a.slice_axis(0, Slice::new(1, None, 2)).unwrap();
            let want: Vec<bool> = v.iter().skip(1).step_by(2).copied().collect();
            assert_eq!(s.to_vec().unwrap(), want, "n={n} slice");
        }
    }
    let v = bools(&mut rng, 35);
    let a = dev.from_slice(&v, [5, 7]).unwrap();
    let want: Vec<bool> = (0..35).map(|k| v[(k % 5) * 7 + k / 5]).collect();
    assert_eq!(a.t().to_vec().unwrap(), want);
    assert_eq!(
        dev.zeros::<bool>([3]).unwrap().to_vec().unwrap(),
        [false; 3]
    );
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
        assert_eq!(a.lt(&b).unwrap().to_vec().unwrap(), zip(|p, q| !p & q));
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
    assert_eq!(
        a.as_u32().cumsum(0).unwrap().to_vec().unwrap(),
        vec![1, 1, 2]
    );
    // The array is intact after the refusals.
    assert_eq!(a.to_vec().unwrap(), vec![true, false, true]);
}

/// Each numeric dtype to bool (non-zero and NaN true, ±0 false, subnormals true) and back
/// (0 and 1), on a strided view.
fn casts_with<T: Real>(vals: &[f64]) {
    let dev = dev();
    let (t, exact) = common::cast_in::<T>(vals);
    let n = t.len();
    // Interleaved with padding, read through a stepped view.
    let padded: Vec<T> = t.iter().flat_map(|&v| [v, T::one()]).collect();
    let a = dev.from_slice(&padded, [2 * n]).unwrap();
    let a = a.slice_axis(0, Slice::new(0, None, 2)).unwrap();
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
    casts_with::<f32>(&[
        0.0,
        -0.0,
        1.0,
        -2.5,
        f64::NAN,
        f64::INFINITY,
        1e-45,
        0.25,
        1e38,
    ]);
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
        assert_eq!(a.all_axis(1, false).unwrap().to_vec().unwrap(), all_rows);
        assert_eq!(a.any_axis(0, false).unwrap().to_vec().unwrap(), any_cols);
        // The transpose: its rows are the columns.
        assert_eq!(
            a.t().any_axis(1, false).unwrap().to_vec().unwrap(),
            any_cols
        );
        let first = v.iter().position(|&b| b).unwrap_or(0) as i64;
        assert_eq!(a.argmax().unwrap().to_scalar().unwrap(), first);
        assert_eq!(
            a.as_u32().sum().unwrap().to_scalar().unwrap(),
            v.iter().filter(|&&b| b).count() as u32
        );
    }
    let e = dev.zeros::<bool>([0, 3]).unwrap();
    assert!(e.all().unwrap().to_scalar().unwrap());
    assert!(!e.any().unwrap().to_scalar().unwrap());
    assert_eq!(e.any_axis(0, false).unwrap().to_vec().unwrap(), [false; 3]);
    assert!(matches!(e.max(), Err(Error::InvalidArgument { .. })));
}

/// Comparisons make masks that `where_`, `extract`, `nonzero` take, on views.
#[test]
fn bool_masks_as_inputs() {
    let dev = dev();
    let mut rng = Rng::new(4);
    let xs: Vec<i32> = (0..6 * 9).map(|_| rng.int(-5, 5) as i32).collect();
    let x = dev.from_slice(&xs, [6, 9]).unwrap();
    let xv = x.slice_axis(1, Slice::new(1, None, 2)).unwrap(); // [6, 4]
    let host_v: Vec<i32> = (0..24).map(|k| xs[(k / 4) * 9 + 1 + 2 * (k % 4)]).collect();
    let m = xv.gt_scalar(0).unwrap();
    let hm: Vec<bool> = host_v.iter().map(|&v| v > 0).collect();
    assert_eq!(m.to_vec().unwrap(), hm);
    let zeros = dev.zeros::<i32>([1]).unwrap();
    let w = Array::where_(&m, &xv, &zeros).unwrap();
    let want: Vec<i32> = host_v.iter().map(|&v| if v > 0 { v } else { 0 }).collect();
    assert_eq!(w.to_vec().unwrap(), want);
    let sel: Vec<i32> = host_v.iter().copied().filter(|&v| v > 0).collect();
    assert_eq!(xv.extract(&m).unwrap().to_vec().unwrap(), sel);
    let idx: Vec<i64> = (0..24i64).filter(|&k| hm[k as usize]).collect();
    assert_eq!(m.flatnonzero().unwrap().to_vec().unwrap(), idx);
    assert_eq!(m.count_nonzero().unwrap(), idx.len());
    // A transposed mask with where_.
    let wt = Array::where_(&m.t(), &xv.t(), &zeros).unwrap();
    let want_t: Vec<i32> = (0..24).map(|k| want[(k % 6) * 4 + k / 6]).collect();
    assert_eq!(wt.to_vec().unwrap(), want_t);
    // Bad masks: wrong shape; the arrays stay intact.
    let short = dev.from_slice(&[true, false], [2]).unwrap();
    assert!(matches!(
        xv.extract(&short),
        Err(Error::ShapeMismatch { .. })
    ));
    assert!(matches!(
        Array::where_(&short, &xv, &zeros),
        Err(Error::ShapeMismatch { .. })
    ));
    assert_eq!(x.to_vec().unwrap(), xs);
}

// ---------------------------------------------------------------------------------------
// i64 / u64 (SHADER_INT64: lavapipe and the H100 have it)
// ---------------------------------------------------------------------------------------

/// Random 64-bit values with the extremes and their neighbours mixed in.
fn wide(rng: &mut Rng, n: usize) -> Vec<u64> {
    let special = [
        0,
        1,
        u64::MAX,
        u64::MAX - 1,
        1 << 63,
        (1 << 63) - 1,
        (1 << 63) + 1,
        1 << 53,
        (1 << 53) + 1,
        (1 << 24) + 1,
        0xffff_ffff,
        1 << 32,
    ];
    (0..n)
        .map(|k| match rng.next_u64() % 4 {
            0 => special[k % special.len()],
            1 => rng.next_u64() % 1000,
            2 => (rng.next_u64() % 2000).wrapping_sub(1000),
            _ => rng.next_u64(),
        })
        .collect()
}

/// Wrapping arithmetic, NumPy's integer division rules (0 for a zero divisor, MIN / -1
/// wrapping to MIN), comparisons, on contiguous arrays, a broadcast row and strided views.
fn int64_binary<T: Real + std::fmt::Debug>(conv: fn(u64) -> T, ops: &[(&str, Op2<T>)]) {
    let dev = dev();
    let mut rng = Rng::new(7);
    for n in [0, 1, 7, 1031] {
        let x: Vec<T> = wide(&mut rng, n).into_iter().map(conv).collect();
        let mut y: Vec<T> = wide(&mut rng, n).into_iter().map(conv).collect();
        if n > 2 {
            y[1] = conv(0);
            y[2] = conv(u64::MAX); // -1 for i64
        }
        let (a, b) = (
            dev.from_slice(&x, [n]).unwrap(),
            dev.from_slice(&y, [n]).unwrap(),
        );
        for (name, (gpu, cpu)) in ops {
            let got = gpu(&a, &b).unwrap().to_vec().unwrap();
            let want: Vec<T> = x.iter().zip(&y).map(|(&p, &q)| cpu(p, q)).collect();
            assert_eq!(got, want, "{:?} {name} n={n}", T::DTYPE);
        }
        let lt: Vec<bool> = x.iter().zip(&y).map(|(p, q)| p < q).collect();
        assert_eq!(a.lt(&b).unwrap().to_vec().unwrap(), lt);
    }
    // A [5, 6] array's stepped columns against a broadcast row.
    let x: Vec<T> = wide(&mut rng, 30).into_iter().map(conv).collect();
    let r: Vec<T> = wide(&mut rng, 3).into_iter().map(conv).collect();
    let a = dev.from_slice(&x, [5, 6]).unwrap();
    let v = a.slice_axis(1, Slice::new(1, None, 2)).unwrap();
    let row = dev.from_slice(&r, [3]).unwrap();
    for (name, (gpu, cpu)) in ops {
        let got = gpu(&v, &row).unwrap().to_vec().unwrap();
        let want: Vec<T> = (0..15)
            .map(|k| cpu(x[(k / 3) * 6 + 1 + 2 * (k % 3)], r[k % 3]))
            .collect();
        assert_eq!(got, want, "{:?} {name} view", T::DTYPE);
    }
}

type Op2<T> = (
    fn(&Array<T>, &Array<T>) -> gpuarray::Result<Array<T>>,
    fn(T, T) -> T,
);

#[test]
fn i64_elementwise() {
    require_dtype!(i64);
    let div = |p: i64, q: i64| if q == 0 { 0 } else { p.wrapping_div(q) };
    let rem = |p: i64, q: i64| if q == 0 { 0 } else { p.wrapping_rem(q) };
    let floor = |p: i64, q: i64| {
        if q == 0 {
            return 0;
        }
        let d = p.wrapping_div(q);
        if p.wrapping_rem(q) != 0 && ((p < 0) != (q < 0)) {
            d - 1
        } else {
            d
        }
    };
    let ops: [(&str, Op2<i64>); 8] = [
        ("add", (Array::add, i64::wrapping_add)),
        ("sub", (Array::sub, i64::wrapping_sub)),
        ("mul", (Array::mul, i64::wrapping_mul)),
        ("div", (Array::div, div)),
        ("rem", (Array::rem, rem)),
        ("floor_divide", (Array::floor_divide, floor)),
        ("maximum", (Array::maximum, i64::max)),
        ("minimum", (Array::minimum, i64::min)),
    ];
    int64_binary::<i64>(|v| v as i64, &ops);
    let dev = dev();
    let v = [i64::MIN, -5, 0, 7, i64::MAX];
    let a = dev.from_slice(&v, [5]).unwrap();
    assert_eq!(a.neg().unwrap().to_vec().unwrap(), v.map(i64::wrapping_neg));
    assert_eq!(a.abs().unwrap().to_vec().unwrap(), v.map(i64::wrapping_abs));
    assert_eq!(a.sign().unwrap().to_vec().unwrap(), v.map(i64::signum));
    assert_eq!(
        a.add_scalar(i64::MAX).unwrap().to_vec().unwrap(),
        v.map(|p| p.wrapping_add(i64::MAX))
    );
    assert_eq!(
        a.pow_scalar(3).unwrap().to_vec().unwrap(),
        v.map(|p| p.wrapping_pow(3))
    );
    assert_eq!(
        a.clip(-6, 1 << 40).unwrap().to_vec().unwrap(),
        v.map(|p| p.clamp(-6, 1 << 40))
    );
}

#[test]
fn u64_elementwise() {
    require_dtype!(u64);
    let div = |p: u64, q: u64| p.checked_div(q).unwrap_or(0);
    let rem = |p: u64, q: u64| p.checked_rem(q).unwrap_or(0);
    let ops: [(&str, Op2<u64>); 7] = [
        ("add", (Array::add, u64::wrapping_add)),
        ("sub", (Array::sub, u64::wrapping_sub)),
        ("mul", (Array::mul, u64::wrapping_mul)),
        ("div", (Array::div, div)),
        ("rem", (Array::rem, rem)),
        ("maximum", (Array::maximum, u64::max)),
        ("minimum", (Array::minimum, u64::min)),
    ];
    int64_binary::<u64>(|v| v, &ops);
}

/// Casts between the 64-bit integers and every dtype, against Rust's `as` (f16 through
/// f64, exact below 65520, past it infinity; floats saturating, NaN to 0).
#[test]
fn int64_casts_with_every_dtype() {
    require_dtype!(i64);
    let dev = dev();
    let mut rng = Rng::new(8);
    let mut u = wide(&mut rng, 600);
    u.extend([
        (1 << 53) + 1,
        (1 << 54) + 2,
        0x0100_0001_0000_0000, // 2^56 + 2^32: a tie above f32's 24 bits
        0x0100_0003_0000_0000,
        0x0100_0000_8000_0001,
        65519,
        65520,
        u64::MAX - 65519,
    ]);
    let i: Vec<i64> = u.iter().map(|&v| v as i64).collect();
    let (ua, ia) = (
        dev.from_slice(&u, [u.len()]).unwrap(),
        dev.from_slice(&i, [i.len()]).unwrap(),
    );
    macro_rules! from64 {
        ($arr:expr, $host:expr, $($t:ty),*) => {$(
            let got = $arr.cast::<$t>().unwrap().to_vec().unwrap();
            let want: Vec<$t> = $host.iter().map(|&v| v as $t).collect();
            assert_eq!(got, want, "{:?} -> {}", $arr.dtype(), stringify!($t));
        )*};
    }
    from64!(ua, u, i32, u32, i64, u64, f32);
    from64!(ia, i, i32, u32, i64, u64, f32);
    if_supported::<f64>(|| {
        from64!(ua, u, f64);
        from64!(ia, i, f64);
    });
    if_supported::<f16>(|| {
        let got = ia.cast::<f16>().unwrap().to_vec().unwrap();
        let want: Vec<f16> = i.iter().map(|&v| f16::from_f64(v as f64)).collect();
        assert_eq!(got, want, "i64 -> f16");
        let got = ua.cast::<f16>().unwrap().to_vec().unwrap();
        let want: Vec<f16> = u.iter().map(|&v| f16::from_f64(v as f64)).collect();
        assert_eq!(got, want, "u64 -> f16");
    });
    let b: Vec<bool> = u.iter().map(|&v| v != 0).collect();
    assert_eq!(ua.cast::<bool>().unwrap().to_vec().unwrap(), b);
    assert_eq!(ia.cast::<bool>().unwrap().to_vec().unwrap(), b);
    // Into the 64-bit integers from every dtype.
    let small: Vec<i32> = vec![i32::MIN, -1, 0, 1, i32::MAX, -7];
    let sa = dev.from_slice(&small, [6]).unwrap();
    let want: Vec<u64> = small.iter().map(|&v| v as u64).collect();
    assert_eq!(
        sa.cast::<u64>().unwrap().to_vec().unwrap(),
        want,
        "i32 -> u64"
    );
    let want: Vec<i64> = small.iter().map(|&v| v as i64).collect();
    assert_eq!(
        sa.cast::<i64>().unwrap().to_vec().unwrap(),
        want,
        "i32 -> i64"
    );
    let us: Vec<u32> = vec![0, 1, u32::MAX, 1 << 31];
    let usa = dev.from_slice(&us, [4]).unwrap();
    let want: Vec<i64> = us.iter().map(|&v| v as i64).collect();
    assert_eq!(
        usa.cast::<i64>().unwrap().to_vec().unwrap(),
        want,
        "u32 -> i64"
    );
    let want: Vec<u64> = us.iter().map(|&v| v as u64).collect();
    assert_eq!(
        usa.cast::<u64>().unwrap().to_vec().unwrap(),
        want,
        "u32 -> u64"
    );
    let fl: Vec<f32> = vec![
        0.0,
        -0.0,
        1.5,
        -1.5,
        f32::NAN,
        f32::INFINITY,
        f32::NEG_INFINITY,
        9.223372e18,
        -9.223373e18,
        1.8446743e19,
        1.8446745e19,
        -3e9,
        3e9,
    ];
    let fa = dev.from_slice(&fl, [fl.len()]).unwrap();
    let want: Vec<i64> = fl.iter().map(|&v| v as i64).collect();
    assert_eq!(
        fa.cast::<i64>().unwrap().to_vec().unwrap(),
        want,
        "f32 -> i64"
    );
    let want: Vec<u64> = fl.iter().map(|&v| v as u64).collect();
    assert_eq!(
        fa.cast::<u64>().unwrap().to_vec().unwrap(),
        want,
        "f32 -> u64"
    );
    if_supported::<f64>(|| {
        let d: Vec<f64> = vec![
            9223372036854774784.0,
            9223372036854775808.0,
            -9223372036854775808.0,
            -9223372036854777856.0,
            18446744073709549568.0,
            18446744073709551616.0,
            f64::NAN,
            -1.0,
            2.5,
            -2.5,
        ];
        let da = dev.from_slice(&d, [d.len()]).unwrap();
        let want: Vec<i64> = d.iter().map(|&v| v as i64).collect();
        assert_eq!(
            da.cast::<i64>().unwrap().to_vec().unwrap(),
            want,
            "f64 -> i64"
        );
        let want: Vec<u64> = d.iter().map(|&v| v as u64).collect();
        assert_eq!(
            da.cast::<u64>().unwrap().to_vec().unwrap(),
            want,
            "f64 -> u64"
        );
    });
    if_supported::<f16>(|| {
        let h: Vec<f16> = [-65504.0, -1.5, 0.0, 2.5, 65504.0, f64::INFINITY, f64::NAN]
            .map(f16::from_f64)
            .to_vec();
        let ha = dev.from_slice(&h, [h.len()]).unwrap();
        let want: Vec<i64> = h.iter().map(|v| v.to_f64() as i64).collect();
        assert_eq!(
            ha.cast::<i64>().unwrap().to_vec().unwrap(),
            want,
            "f16 -> i64"
        );
        let want: Vec<u64> = h.iter().map(|v| v.to_f64() as u64).collect();
        assert_eq!(
            ha.cast::<u64>().unwrap().to_vec().unwrap(),
            want,
            "f16 -> u64"
        );
    });
    let bl = dev.from_slice(&[true, false], [2]).unwrap();
    assert_eq!(bl.cast::<i64>().unwrap().to_vec().unwrap(), vec![1, 0]);
}

/// Reductions wrap as Rust's wrapping ops; max/min/argmax exact past 2^53.
#[test]
fn int64_reductions_and_creation() {
    require_dtype!(i64);
    let dev = dev();
    let mut rng = Rng::new(9);
    for (rows, cols) in [(1, 1), (3, 7), (5, 1031), (2, 4099)] {
        let u = wide(&mut rng, rows * cols);
        let i: Vec<i64> = u.iter().map(|&v| v as i64).collect();
        let (ua, ia) = (
            dev.from_slice(&u, [rows, cols]).unwrap(),
            dev.from_slice(&i, [rows, cols]).unwrap(),
        );
        let sum_u = u.iter().fold(0u64, |s, &v| s.wrapping_add(v));
        assert_eq!(ua.sum().unwrap().to_scalar().unwrap(), sum_u);
        let sum_i = i.iter().fold(0i64, |s, &v| s.wrapping_add(v));
        assert_eq!(ia.sum().unwrap().to_scalar().unwrap(), sum_i);
        let prod = i.iter().fold(1i64, |s, &v| s.wrapping_mul(v | 1));
        let odd = ia.add_scalar(0).unwrap().to_vec().unwrap();
        let odd: Vec<i64> = odd.iter().map(|&v| v | 1).collect();
        let oa = dev.from_slice(&odd, [rows, cols]).unwrap();
        assert_eq!(oa.prod().unwrap().to_scalar().unwrap(), prod);
        assert_eq!(
            ua.max().unwrap().to_scalar().unwrap(),
            *u.iter().max().unwrap()
        );
        assert_eq!(
            ia.min().unwrap().to_scalar().unwrap(),
            *i.iter().min().unwrap()
        );
        let mx = *i.iter().max().unwrap();
        let first = i.iter().position(|&v| v == mx).unwrap() as i64;
        assert_eq!(ia.argmax().unwrap().to_scalar().unwrap(), first);
        // Along the rows, through the transpose (a strided layout).
        let col_max: Vec<u64> = (0..cols)
            .map(|c| (0..rows).map(|r| u[r * cols + c]).max().unwrap())
            .collect();
        assert_eq!(
            ua.t().max_axis(1, false).unwrap().to_vec().unwrap(),
            col_max
        );
        let row_sum: Vec<i64> = (0..rows)
            .map(|r| {
                i[r * cols..(r + 1) * cols]
                    .iter()
                    .fold(0i64, |s, &v| s.wrapping_add(v))
            })
            .collect();
        assert_eq!(ia.sum_axis(1, false).unwrap().to_vec().unwrap(), row_sum);
    }
    let e = dev.zeros::<u64>([0]).unwrap();
    assert_eq!(e.sum().unwrap().to_scalar().unwrap(), 0);
    assert_eq!(
        dev.full([3], i64::MIN).unwrap().to_vec().unwrap(),
        vec![i64::MIN; 3]
    );
    assert_eq!(
        dev.full([2], u64::MAX).unwrap().to_vec().unwrap(),
        vec![u64::MAX; 2]
    );
    let big = 1i64 << 40;
    assert_eq!(
        dev.arange::<i64>(big, big + 10, 3)
            .unwrap()
            .to_vec()
            .unwrap(),
        vec![big, big + 3, big + 6, big + 9]
    );
    assert_eq!(dev.ones::<u64>([2]).unwrap().to_vec().unwrap(), vec![1, 1]);
}

/// The families that still take 32-bit words alone refuse the 64-bit integers, leaving the
/// array intact (sort, scans, products and the others that take them: tests/int64); a bool
/// range is refused too.
#[test]
fn int64_refusals() {
    require_dtype!(i64);
    let dev = dev();
    let a = dev.from_slice(&[3i64, -1, 2], [3]).unwrap();
    common::assert_unsupported(a.histogram(2, None), DType::I64);
    common::assert_unsupported(a.histogram_edges(&a), DType::I64);
    let idx = dev.from_slice(&[0i64, 2, 2], [3]).unwrap();
    common::assert_unsupported(a.scatter_max(0, &idx, &a), DType::I64);
    assert_eq!(a.to_vec().unwrap(), vec![3, -1, 2]);
    common::assert_unsupported(dev.arange(false, true, true), DType::Bool);
}

/// Refusals name the public operation the user called, never a kernel (issue 31: `sort()`
/// of i64 said "bitonic is not supported for i64"; i64 sorts since issue 34, the packed u8
/// does not).
#[test]
fn refusals_name_the_public_operation() {
    let dev = dev();
    let a = dev.from_slice(&[3u8, 1, 2], [3]).unwrap();
    let op_of = |r: gpuarray::Result<()>| match r {
        Err(Error::Unsupported { op, dtype, .. }) => {
            assert_eq!(dtype, DType::U8);
            op
        }
        other => panic!("expected Unsupported, got {other:?}"),
    };
    assert_eq!(op_of(a.sort().map(drop)), "sort");
    assert_eq!(op_of(a.sort_axis(0).map(drop)), "sort");
    assert_eq!(op_of(a.argsort().map(drop)), "argsort");
    assert_eq!(op_of(a.top_k(1, -1, true).map(drop)), "top_k");
    assert_eq!(op_of(a.partition(1, -1).map(drop)), "partition");
    assert_eq!(
        op_of(a.searchsorted(&a, gpuarray::Side::Left).map(drop)),
        "searchsorted"
    );
    assert_eq!(op_of(a.unique().map(drop)), "unique");
    assert_eq!(op_of(a.isin(&a).map(drop)), "isin");
    assert_eq!(op_of(Array::lexsort(&[&a]).map(drop)), "lexsort");
    assert_eq!(op_of(a.median::<f32>(None, false).map(drop)), "median");
    let e = a.sort().unwrap_err().to_string();
    assert!(e.starts_with("sort is not supported for u8"), "{e}");
}

/// Messages put "an" before a dtype read with a vowel sound: "an i32 array", "a u32
/// array" (issue 31: "a i32 array").
#[test]
fn messages_use_the_dtype_article() {
    use gpuarray::ElementwiseKernel;
    let dev = dev();
    let k = ElementwiseKernel::new(dev, "T x, T y", "T z", "z = x + y;", "add2").unwrap();
    let i = dev.from_slice(&[1i32, 2], [2]).unwrap();
    let u = dev.from_slice(&[1u32, 2], [2]).unwrap();
    let f = dev.from_slice(&[1.0f32, 2.0], [2]).unwrap();
    let e = k.call::<u32>(&[&u, &i]).unwrap_err().to_string();
    assert!(e.contains("got an i32 array"), "{e}");
    let e = k.call::<i32>(&[&i, &u]).unwrap_err().to_string();
    assert!(e.contains("got a u32 array"), "{e}");
    let e = k.call::<i32>(&[&i, &f]).unwrap_err().to_string();
    assert!(e.contains("got an f32 array"), "{e}");
    let b = dev.from_slice(&[true, false], [2]).unwrap();
    let e = k.call::<i32>(&[&i, &b]).unwrap_err().to_string();
    assert!(e.contains("got a bool array"), "{e}");
}

// ---------------------------------------------------------------------------------------
// Operators: scalars on either side, owned operands, compound assignment, `*_into`
// ---------------------------------------------------------------------------------------

#[test]
fn operators_scalars_and_owned_operands() {
    let dev = dev();
    let xs = [1.0f32, -2.0, 4.0, 0.5, 3.0];
    let x = dev.from_slice(&xs, [5]).unwrap();
    let map = |f: fn(f32) -> f32| xs.map(f).to_vec();
    assert_eq!((&x + 1.0).to_vec().unwrap(), map(|v| v + 1.0));
    assert_eq!((2.0 * &x).to_vec().unwrap(), map(|v| 2.0 * v));
    assert_eq!((10.0 - &x).to_vec().unwrap(), map(|v| 10.0 - v));
    assert_eq!((1.0 / &x).to_vec().unwrap(), map(|v| 1.0 / v));
    assert_eq!((7.0 % &x).to_vec().unwrap(), map(|v| 7.0 % v));
    assert_eq!((&x - 0.5).to_vec().unwrap(), map(|v| v - 0.5));
    // Owned operands in every position, and unary minus of an owned array.
    let y = dev.from_slice(&[1.0f32, 1.0, 2.0, 2.0, 4.0], [5]).unwrap();
    let want: Vec<f32> = xs
        .iter()
        .zip([1.0, 1.0, 2.0, 2.0, 4.0])
        .map(|(a, b)| a * b)
        .collect();
    assert_eq!((x.clone() * y.clone()).to_vec().unwrap(), want);
    assert_eq!((x.clone() * &y).to_vec().unwrap(), want);
    assert_eq!((&x * y.clone()).to_vec().unwrap(), want);
    assert_eq!((-(x.clone() * 2.0)).to_vec().unwrap(), map(|v| -2.0 * v));
    // Integers: scalars on the left wrap as Rust's wrapping ops; i64 past 2^32.
    let i = dev.from_slice(&[1i32, i32::MAX, -3], [3]).unwrap();
    assert_eq!(
        (3 * &i).to_vec().unwrap(),
        vec![3, i32::MAX.wrapping_mul(3), -9]
    );
    assert_eq!((100 / &i).to_vec().unwrap(), vec![100, 0, -33]);
    if_supported::<i64>(|| {
        let l = dev.from_slice(&[1i64 << 40, -5, i64::MAX], [3]).unwrap();
        assert_eq!(
            (1i64 + &l).to_vec().unwrap(),
            vec![(1 << 40) + 1, -4, i64::MIN]
        );
        assert_eq!(
            (&l - 1).to_vec().unwrap(),
            vec![(1 << 40) - 1, -6, i64::MAX - 1]
        );
    });
    let u = dev.from_slice(&[5u32, 0], [2]).unwrap();
    assert_eq!((1u32 - &u).to_vec().unwrap(), vec![1u32.wrapping_sub(5), 1]);
    let h = dev.from_slice(&[f16::from_f32(1.5)], [1]);
    if let Ok(h) = h {
        assert_eq!(
            (f16::from_f32(2.0) * &h).to_vec().unwrap(),
            vec![f16::from_f32(3.0)]
        );
    }
}

#[test]
#[should_panic(expected = "add")]
fn operators_panic_on_shapes_that_do_not_broadcast() {
    let dev = dev();
    let a = dev.zeros::<f32>([3]).unwrap();
    let b = dev.zeros::<f32>([4]).unwrap();
    let _ = a + b;
}

/// `a += &b` writes a's own buffer: every clone (a view of the same buffer) sees it, a
/// broadcast right operand works, and an operand sharing a's buffer (itself, its transpose)
/// is read as it was before the write, as NumPy.
#[test]
fn compound_assignment_in_place() {
    let dev = dev();
    let mut rng = Rng::new(10);
    for n in [1, 7, 1031] {
        let xs: Vec<f32> = (0..n).map(|_| rng.uniform(-10.0, 10.0) as f32).collect();
        let mut a = dev.from_slice(&xs, [n]).unwrap();
        let alias = a.clone();
        let view = a.reshape([n, 1]).unwrap();
        a += &dev.full([1], 2.0f32).unwrap();
        a *= 3.0;
        a -= a.clone();
        let want = vec![0.0f32; n];
        assert_eq!(a.to_vec().unwrap(), want);
        assert_eq!(alias.to_vec().unwrap(), want, "the clone shares the buffer");
        assert_eq!(view.to_vec().unwrap(), want, "the reshape view too");
        let mut b = dev.from_slice(&xs, [n]).unwrap();
        let b_alias = b.clone();
        b /= 2.0;
        b %= 3.0;
        let want: Vec<f32> = xs.iter().map(|v| (v / 2.0) % 3.0).collect();
        assert_eq!(b.to_vec().unwrap(), want);
        // Same-shape operands of another buffer (the one-dispatch in-place path), and a
        // right operand that is an offset view.
        let ys: Vec<f32> = (0..n + 1).map(|_| rng.uniform(-3.0, 3.0) as f32).collect();
        let y = dev.from_slice(&ys, [n + 1]).unwrap();
        b -= &y.slice_axis(0, Slice::new(0, Some(n as isize), 1)).unwrap();
        b *= &y.slice_axis(0, Slice::new(1, None, 1)).unwrap();
        let want: Vec<f32> = (0..n).map(|k| (want[k] - ys[k]) * ys[k + 1]).collect();
        assert_eq!(b.to_vec().unwrap(), want);
        assert_eq!(
            b_alias.to_vec().unwrap(),
            want,
            "the clone sees the in-place writes"
        );
    }
    // a += a.t(): the transpose is read before anything is written.
    let v: Vec<i32> = (0..16).collect();
    let mut m = dev.from_slice(&v, [4, 4]).unwrap();
    let t = m.t();
    m += &t;
    let want: Vec<i32> = (0..16).map(|k| v[k] + v[(k % 4) * 4 + k / 4]).collect();
    assert_eq!(m.to_vec().unwrap(), want);
    // A row broadcast into a matrix in place; i64 wrapping.
    if_supported::<i64>(|| {
        let mut l = dev.from_slice(&[i64::MAX, 1, 2, 3], [2, 2]).unwrap();
        l += &dev.from_slice(&[1i64, 10], [2]).unwrap();
        assert_eq!(l.to_vec().unwrap(), vec![i64::MIN, 11, 3, 13]);
        l *= &dev.from_slice(&[2i64, 3, 4, 5], [2, 2]).unwrap();
        assert_eq!(l.to_vec().unwrap(), vec![0, 33, 12, 65]);
        l -= 1;
        assert_eq!(l.to_vec().unwrap(), vec![-1, 32, 11, 64]);
    });
}

/// `*_into` writes an existing array; bad outputs give typed errors and leave it intact.
#[test]
fn into_forms_and_bad_outputs() {
    let dev = dev();
    let x = dev
        .from_slice(&[1.0f32, 2.0, 3.0, 4.0, 5.0, 6.0], [2, 3])
        .unwrap();
    let row = dev.from_slice(&[10.0f32, 20.0, 30.0], [3]).unwrap();
    let out = dev.full([2, 3], -1.0f32).unwrap();
    x.add_into(&row, &out).unwrap();
    assert_eq!(
        out.to_vec().unwrap(),
        vec![11.0, 22.0, 33.0, 14.0, 25.0, 36.0]
    );
    x.mul_scalar_into(2.0, &out).unwrap();
    assert_eq!(out.to_vec().unwrap(), vec![2.0, 4.0, 6.0, 8.0, 10.0, 12.0]);
    // The transposed input (strided) into a contiguous output.
    let out_t = dev.zeros::<f32>([3, 2]).unwrap();
    x.t()
        .sub_into(&dev.ones::<f32>([1]).unwrap(), &out_t)
        .unwrap();
    assert_eq!(out_t.to_vec().unwrap(), vec![0.0, 3.0, 1.0, 4.0, 2.0, 5.0]);
    let before = out.to_vec().unwrap();
    assert!(matches!(
        x.add_into(&row, &dev.zeros::<f32>([3, 2]).unwrap()),
        Err(Error::ShapeMismatch { .. })
    ));
    assert!(matches!(
        x.add_into(&dev.zeros::<f32>([2]).unwrap(), &out),
        Err(Error::ShapeMismatch { .. })
    ));
    let bcast = dev.zeros::<f32>([3]).unwrap().broadcast_to([2, 3]).unwrap();
    assert!(matches!(
        x.add_into(&row, &bcast),
        Err(Error::InvalidArgument { .. })
    ));
    let b = dev.from_slice(&[true, false], [2]).unwrap();
    common::assert_unsupported(b.add_into(&b, &b), DType::Bool);
    assert_eq!(
        out.to_vec().unwrap(),
        before,
        "out untouched by the refusals"
    );
    assert_eq!(b.to_vec().unwrap(), vec![true, false]);
}

/// `*_into` and compound assignment through strided and offset views: the view's elements
/// change, the rest of the buffer does not (NumPy's `v = a[:, 1::2]; v += b`), for several
/// dtypes, and an operand overlapping the destination is read before the write.
#[test]
fn into_strided_and_offset_views() {
    let dev = dev();
    let mut rng = Rng::new(11);
    for (rows, cols) in [(1, 3), (5, 7), (33, 65)] {
        let base: Vec<f32> = (0..rows * cols)
            .map(|_| rng.uniform(-5.0, 5.0) as f32)
            .collect();
        let a = dev.from_slice(&base, [rows, cols]).unwrap();
        let mut v = a.slice_axis(1, Slice::new(1, None, 2)).unwrap();
        let w = v.shape()[1];
        let r: Vec<f32> = (0..w).map(|k| k as f32 + 0.5).collect();
        v += &dev.from_slice(&r, [w]).unwrap();
        v *= 2.0;
        let mut want = base.clone();
        for i in 0..rows {
            for (k, rk) in r.iter().enumerate() {
                let at = i * cols + 1 + 2 * k;
                want[at] = (base[at] + rk) * 2.0;
            }
        }
        assert_eq!(a.to_vec().unwrap(), want, "{rows}x{cols}");
        // The transposed view written from its own transpose's values (overlap).
        let sq: Vec<i32> = (0..rows * rows).map(|k| k as i32).collect();
        let m = dev.from_slice(&sq, [rows, rows]).unwrap();
        let mt = m.t();
        mt.sub_into(&m, &mt).unwrap();
        let want: Vec<i32> = (0..rows * rows)
            .map(|k| {
                let (i, j) = (k / rows, k % rows);
                // m.t()[j][i] = m[i][j] becomes m[i][j] - m[j][i].
                sq[i * rows + j] - sq[j * rows + i]
            })
            .collect();
        assert_eq!(m.to_vec().unwrap(), want, "{rows}x{rows} transpose");
    }
    // An offset (contiguous) view: the second row only.
    let a = dev.from_slice(&[1u32, 2, 3, 4, 5, 6], [2, 3]).unwrap();
    let row1 = a.slice_axis(0, Slice::new(1, None, 1)).unwrap();
    row1.add_scalar_into(10, &row1).unwrap();
    assert_eq!(a.to_vec().unwrap(), vec![1, 2, 3, 14, 15, 16]);
    if_supported::<i64>(|| {
        let l = dev.from_slice(&[i64::MIN, 0, i64::MAX, 0], [4]).unwrap();
        let even = l.slice_axis(0, Slice::new(0, None, 2)).unwrap();
        even.sub_scalar_into(1, &even).unwrap();
        assert_eq!(l.to_vec().unwrap(), vec![i64::MAX, 0, i64::MAX - 1, 0]);
    });
    // Zero-size views take nothing.
    let e = dev.zeros::<f32>([0, 3]).unwrap();
    e.add_scalar_into(1.0, &e).unwrap();
}

/// The 64-bit integers are gated on SHADER_INT64, as f64 on SHADER_F64: `supports` agrees
/// with the feature list, and where it is missing creation gives `Unsupported`.
#[test]
fn int64_gate_follows_the_feature() {
    let dev = dev();
    let has = dev.info().features.contains(&"SHADER_INT64");
    assert_eq!(dev.supports::<i64>(), has);
    assert_eq!(dev.supports::<u64>(), has);
    assert!(dev.supports::<bool>());
    if !has {
        common::assert_unsupported(dev.zeros::<i64>([2]), DType::I64);
    }
}

/// A user kernel takes and makes bool arrays as their u32 words (0 or 1), and refuses the
/// 64-bit integers.
#[test]
fn user_kernels_with_bool_and_int64() {
    use gpuarray::ElementwiseKernel;
    let dev = dev();
    let k = ElementwiseKernel::new(
        dev,
        "bool m, float32 x",
        "bool pos",
        "pos = select(0u, 1u, m != 0u && x > 0.0);",
        "masked_positive",
    )
    .unwrap();
    let m = dev.from_slice(&[true, true, false, true], [4]).unwrap();
    let x = dev.from_slice(&[1.0f32, -1.0, 2.0, 0.5], [4]).unwrap();
    let got = k.call::<bool>(&[&m, &x]).unwrap();
    assert_eq!(got.to_vec().unwrap(), vec![true, false, false, true]);
    if_supported::<i64>(|| {
        let t = ElementwiseKernel::new(dev, "T x", "T y", "y = x;", "copy_any").unwrap();
        let l = dev.from_slice(&[1i64, i64::MIN], [2]).unwrap();
        assert_eq!(
            t.call::<i64>(&[&l]).unwrap().to_vec().unwrap(),
            vec![1, i64::MIN]
        );
    });
}

/// What the adapter cannot do is a typed `Unsupported` naming the adapter and its backend
/// (Mesa's llvmpipe is one name under Vulkan and GL: issue 36), with the arrays and the
/// device intact: a bool range everywhere, and on adapters without f16, f64 or the 64-bit
/// integers (GL) their creation, uploads and casts into them.
#[test]
fn refusals_name_the_adapter_and_backend() {
    let dev = dev();
    let info = dev.info();
    let backend = match info.backend.as_str() {
        "gl" => "GL",
        "vulkan" => "Vulkan",
        "metal" => "Metal",
        "dx12" => "DX12",
        other => other,
    };
    let label = format!("{} through {backend}", info.name);
    let named = |r: gpuarray::Result<()>, d: DType| match r {
        Err(e @ Error::Unsupported { .. }) => {
            let Error::Unsupported { dtype, adapter, .. } = &e else {
                unreachable!()
            };
            assert_eq!((*dtype, adapter.as_str()), (d, label.as_str()));
            assert!(e.to_string().ends_with(&format!("on {label}")), "{e}");
        }
        other => panic!("expected Unsupported for {d:?}, got {other:?}"),
    };
    named(dev.arange(false, true, true).map(drop), DType::Bool);
    let x = dev.from_slice(&[1.5f32, -2.0, 3.0], [3]).unwrap();
    let mut refused = 0;
    if !dev.supports::<f16>() {
        named(dev.zeros::<f16>([2]).map(drop), DType::F16);
        named(dev.from_slice(&[f16::ONE], [1]).map(drop), DType::F16);
        named(x.cast::<f16>().map(drop), DType::F16);
        refused += 1;
    }
    if !dev.supports::<f64>() {
        named(dev.zeros::<f64>([2]).map(drop), DType::F64);
        named(dev.from_slice(&[1.0f64], [1]).map(drop), DType::F64);
        named(x.cast::<f64>().map(drop), DType::F64);
        refused += 1;
    }
    if !dev.supports::<i64>() {
        named(dev.zeros::<i64>([2]).map(drop), DType::I64);
        named(dev.from_slice(&[1i64], [1]).map(drop), DType::I64);
        named(x.cast::<i64>().map(drop), DType::I64);
        named(dev.ones::<u64>([2]).map(drop), DType::U64);
        refused += 1;
    }
    // Mesa's GL has none of the three (compute shaders without SHADER_F16, SHADER_F64 or
    // SHADER_INT64 in wgpu 30).
    if info.backend == "gl" {
        assert_eq!(refused, 3, "{label}: {:?}", info.features);
    }
    // The device and the array are intact.
    assert_eq!(
        x.add_scalar(1.0).unwrap().to_vec().unwrap(),
        vec![2.5, -1.0, 4.0]
    );
}
