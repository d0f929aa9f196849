//! The math and logic functions of issue 18 against CPU references: bitwise operations and
//! shifts (NumPy's counts past the width), the class tests and logical operations on
//! special values (NaN, ±inf, -0, subnormals), fmax/fmin, nan_to_num, isclose, allclose,
//! array_equal; views with offsets and strides, zero sizes, bad arguments.

#[macro_use]
mod common;

use common::{dev, Rng};
use gpuarray::{f16, Array};

fn ints(n: usize, seed: u64) -> Vec<i32> {
    let mut rng = Rng::new(seed);
    (0..n)
        .map(|_| (rng.unit() * 4294967296.0) as u32 as i32)
        .collect()
}

/// A bitwise case: its name, the device method and the CPU reference.
type BitCase<'a> = (
    &'static str,
    fn(&Array<i32>, &Array<i32>) -> gpuarray::Result<Array<i32>>,
    &'a dyn Fn(i32, i32) -> i32,
);

#[test]
fn bitwise_and_shifts_match_numpy_on_views() {
    let d = dev();
    let x = ints(2 * 37, 1);
    let mut y = ints(37, 2);
    // Shift counts: small, the width, past it and negative.
    for (k, c) in [0, 1, 31, 32, 33, -1, 100].iter().enumerate() {
        y[k] = *c;
    }
    let xa = d
        .from_slice(&x, [37, 2])
        .unwrap()
        .slice_axis(1, 1..2)
        .unwrap();
    let xs: Vec<i32> = x.iter().skip(1).step_by(2).copied().collect();
    let ya = d.from_slice(&y, [37, 1]).unwrap();
    let shl = |a: i32, c: i32| if (c as u32) < 32 { a << c } else { 0 };
    let shr = |a: i32, c: i32| {
        if (c as u32) < 32 {
            a >> c
        } else if a < 0 {
            -1
        } else {
            0
        }
    };
    let cases: [BitCase; 5] = [
        ("and", |a, b| a.bitwise_and(b), &|a, b| a & b),
        ("or", |a, b| a.bitwise_or(b), &|a, b| a | b),
        ("xor", |a, b| a.bitwise_xor(b), &|a, b| a ^ b),
        ("shl", |a, b| a.left_shift(b), &shl),
        ("shr", |a, b| a.right_shift(b), &shr),
    ];
    for (name, dev_f, cpu) in cases {
        let got = dev_f(&xa, &ya).unwrap().to_vec().unwrap();
        let want: Vec<i32> = xs.iter().zip(&y).map(|(&a, &b)| cpu(a, b)).collect();
        assert_eq!(got, want, "{name}");
    }
    let not = xa.bitwise_not().unwrap().to_vec().unwrap();
    assert_eq!(not, xs.iter().map(|v| !v).collect::<Vec<_>>());
    // u32: logical right shift, counts past the width give 0.
    let u = d.from_slice(&[0x8000_0000u32, 7, 1], [3]).unwrap();
    let c = d.from_slice(&[31u32, 1, 32], [3]).unwrap();
    assert_eq!(u.right_shift(&c).unwrap().to_vec().unwrap(), vec![1, 3, 0]);
    assert_eq!(u.left_shift(&c).unwrap().to_vec().unwrap(), vec![0, 14, 0]);
    // Floats have no bitwise operations.
    let f = d.from_slice(&[1.0f32], [1]).unwrap();
    assert!(matches!(
        f.bitwise_and(&f),
        Err(gpuarray::Error::Unsupported { .. })
    ));
    assert!(f.bitwise_not().is_err());
}

const SPECIALS: [f32; 10] = [
    0.0,
    -0.0,
    1.0,
    -2.5,
    f32::NAN,
    f32::INFINITY,
    f32::NEG_INFINITY,
    1e-45,
    -1e-40,
    f32::MAX,
];

#[test]
fn class_tests_and_logic_on_special_values() {
    let d = dev();
    let x = d.from_slice(&SPECIALS, [10]).unwrap();
    let m = |v: Vec<bool>| v;
    let got = m(x.isnan().unwrap().to_vec().unwrap());
    assert_eq!(got, SPECIALS.map(|v| v.is_nan()).to_vec());
    let got = m(x.isinf().unwrap().to_vec().unwrap());
    assert_eq!(got, SPECIALS.map(|v| v.is_infinite()).to_vec());
    let got = m(x.isfinite().unwrap().to_vec().unwrap());
    assert_eq!(got, SPECIALS.map(|v| v.is_finite()).to_vec());
    // NumPy truth: non-zero, NaN and subnormals included.
    let truth = SPECIALS.map(|v| v != 0.0 || v.is_nan());
    let got = m(x.logical_not().unwrap().to_vec().unwrap());
    assert_eq!(got, truth.map(|t| !t).to_vec());
    let y = x.flip_for_test();
    let ty: Vec<bool> = truth.iter().rev().copied().collect();
    let and = m(x.logical_and(&y).unwrap().to_vec().unwrap());
    let or = m(x.logical_or(&y).unwrap().to_vec().unwrap());
    let xor = m(x.logical_xor(&y).unwrap().to_vec().unwrap());
    for i in 0..10 {
        assert_eq!(and[i], truth[i] && ty[i], "and {i}");
        assert_eq!(or[i], truth[i] || ty[i], "or {i}");
        assert_eq!(xor[i], truth[i] != ty[i], "xor {i}");
    }
    // Integers: never NaN or infinite.
    let i = d.from_slice(&[i32::MIN, 0, i32::MAX], [3]).unwrap();
    assert_eq!(i.isnan().unwrap().to_vec().unwrap(), vec![false; 3]);
    assert_eq!(i.isfinite().unwrap().to_vec().unwrap(), vec![true; 3]);
    assert_eq!(
        i.logical_not().unwrap().to_vec().unwrap(),
        vec![false, true, false]
    );
    // Zero sizes.
    let e = d.zeros::<f32>([0, 3]).unwrap();
    assert_eq!(e.isnan().unwrap().shape(), &[0, 3]);
}

trait FlipForTest {
    fn flip_for_test(&self) -> Self;
}

impl FlipForTest for Array<f32> {
    /// The reversed vector (through the host: flip belongs to another part).
    fn flip_for_test(&self) -> Self {
        let mut v = self.to_vec().unwrap();
        v.reverse();
        dev().from_slice(&v, [v.len()]).unwrap()
    }
}

#[test]
fn fmax_fmin_nan_to_num_copysign() {
    let d = dev();
    let x = d.from_slice(&SPECIALS, [10]).unwrap();
    let y = x.flip_for_test();
    let ys: Vec<f32> = SPECIALS.iter().rev().copied().collect();
    let fmax = x.fmax(&y).unwrap().to_vec().unwrap();
    let fmin = x.fmin(&y).unwrap().to_vec().unwrap();
    for i in 0..10 {
        let (a, b) = (SPECIALS[i], ys[i]);
        let (wmax, wmin) = (a.max(b), a.min(b)); // Rust's max/min ignore NaN, as fmax
        assert!(
            fmax[i] == wmax || (fmax[i].is_nan() && wmax.is_nan()) || (a == b),
            "fmax {a} {b}"
        );
        assert!(
            fmin[i] == wmin || (fmin[i].is_nan() && wmin.is_nan()) || (a == b),
            "fmin {a} {b}"
        );
    }
    let n = x
        .nan_to_num(-7.0, None, Some(-9.0))
        .unwrap()
        .to_vec()
        .unwrap();
    for (i, &v) in SPECIALS.iter().enumerate() {
        let w = if v.is_nan() {
            -7.0
        } else if v == f32::INFINITY {
            f32::MAX
        } else if v == f32::NEG_INFINITY {
            -9.0
        } else {
            v
        };
        assert_eq!(n[i].to_bits(), w.to_bits(), "nan_to_num({v})");
    }
    let c = x.copysign(&y).unwrap().to_vec().unwrap();
    for i in 0..10 {
        let w = SPECIALS[i].abs().copysign(ys[i]);
        assert!(
            c[i].to_bits() == w.to_bits() || (c[i].is_nan() && w.is_nan()),
            "copysign {i}"
        );
    }
    // hypot of huge and tiny values: no overflow, no underflow.
    let h = d.from_slice(&[1.5e38f32, f32::from_bits(3)], [2]).unwrap();
    let k = d.from_slice(&[2e38f32, f32::from_bits(4)], [2]).unwrap();
    let v = h.hypot(&k).unwrap().to_vec().unwrap();
    assert!((v[0] / 2.5e38 - 1.0).abs() < 2.4e-7, "{}", v[0]);
    let flushes = h.add_scalar(0.0).unwrap().to_vec().unwrap()[1] == 0.0;
    assert!(
        v[1] == f32::from_bits(5) || (v[1] == 0.0 && flushes),
        "{}",
        v[1]
    );
}

#[test]
fn isclose_allclose_array_equal() {
    let d = dev();
    let a = [
        1.0f32,
        1.0,
        f32::NAN,
        f32::INFINITY,
        f32::INFINITY,
        0.0,
        1e10,
    ];
    let b = [
        1.00001f32,
        1.1,
        f32::NAN,
        f32::INFINITY,
        f32::NEG_INFINITY,
        1e-9,
        1.00001e10,
    ];
    let x = d.from_slice(&a, [7]).unwrap();
    let y = d.from_slice(&b, [7]).unwrap();
    let close = |a: f32, b: f32, nan: bool| {
        if a.is_finite() && b.is_finite() {
            ((a as f64) - (b as f64)).abs() <= 1e-8 + 1e-5 * (b as f64).abs()
        } else {
            a == b || (nan && a.is_nan() && b.is_nan())
        }
    };
    for nan in [false, true] {
        let got = x.isclose(&y, 1e-5, 1e-8, nan).unwrap().to_vec().unwrap();
        let want: Vec<bool> = a.iter().zip(&b).map(|(&p, &q)| close(p, q, nan)).collect();
        assert_eq!(got, want, "equal_nan {nan}");
    }
    assert!(!x.allclose(&y, 1e-5, 1e-8, true).unwrap());
    assert!(x
        .slice_axis(0, 2..4)
        .unwrap()
        .allclose(&y.slice_axis(0, 2..4).unwrap(), 0.0, 0.0, true)
        .unwrap());
    assert!(x.isclose(&y, f64::NAN, 0.0, false).is_err());
    assert!(x
        .isclose(&d.zeros::<f32>([3]).unwrap(), 1e-5, 1e-8, false)
        .is_err());
    assert!(d
        .zeros::<f32>([0])
        .unwrap()
        .allclose(&d.zeros::<f32>([0]).unwrap(), 0.0, 0.0, false)
        .unwrap());
    let i = d.from_slice(&[1i32, 2, 3], [3]).unwrap();
    assert!(i.array_equal(&i).unwrap());
    assert!(!i
        .array_equal(&d.from_slice(&[1i32, 2, 4], [3]).unwrap())
        .unwrap());
    assert!(!i
        .array_equal(&d.from_slice(&[1i32, 2, 3], [3, 1]).unwrap())
        .unwrap());
    assert!(!x.array_equal(&x).unwrap(), "NaN equals nothing");
}

#[test]
fn square_reciprocal_integers_and_erfc_tail() {
    let d = dev();
    let i = d.from_slice(&[i32::MIN, -1, 0, 1, 2, 46341], [6]).unwrap();
    let sq: Vec<i32> = [i32::MIN, -1, 0, 1, 2, 46341]
        .iter()
        .map(|v: &i32| v.wrapping_mul(*v))
        .collect();
    assert_eq!(i.square().unwrap().to_vec().unwrap(), sq);
    assert_eq!(
        i.reciprocal().unwrap().to_vec().unwrap(),
        vec![0, -1, 0, 1, 0, 0]
    );
    let x = d
        .from_slice(
            &[
                0.0f32,
                -3.0,
                5.0,
                9.0,
                f32::INFINITY,
                f32::NEG_INFINITY,
                f32::NAN,
            ],
            [7],
        )
        .unwrap();
    let e = x.erfc().unwrap().to_vec().unwrap();
    // erfc(5) = 1.537_459_794_428_035e-12, erfc(9) = 4.137_031_746_513_81e-37 (relative, tail).
    assert_eq!(e[0], 1.0);
    assert!((e[1] as f64 - 1.999_977_909_503_001_5).abs() < 2.4e-7);
    assert!((e[2] as f64 / 1.537_459_794_428_035e-12 - 1.0).abs() < 4.8e-7);
    assert!((e[3] as f64 / 4.137_031_746_513_81e-37 - 1.0).abs() < 4.8e-7);
    assert_eq!((e[4], e[5]), (0.0, 2.0));
    assert!(e[6].is_nan());
}

/// The differential check against NumPy (2026-11-28): `bitwise_not` of a true bool gave
/// true (NumPy's `invert` of a bool is its logical not). The bitwise operations of bools
/// are the logical ones.
#[test]
fn bitwise_operations_of_bools_are_logical() {
    let d = dev();
    let x = d.from_slice(&[true, true, false, false], [4]).unwrap();
    let y = d.from_slice(&[true, false, true, false], [4]).unwrap();
    let not = x.bitwise_not().unwrap();
    assert_eq!(not.to_vec().unwrap(), vec![false, false, true, true]);
    assert_eq!(
        not.as_u32().to_vec().unwrap(),
        vec![0, 0, 1, 1],
        "words of 0 and 1"
    );
    let and = x.bitwise_and(&y).unwrap().to_vec().unwrap();
    let or = x.bitwise_or(&y).unwrap().to_vec().unwrap();
    let xor = x.bitwise_xor(&y).unwrap().to_vec().unwrap();
    assert_eq!(and, vec![true, false, false, false]);
    assert_eq!(or, vec![true, true, true, false]);
    assert_eq!(xor, vec![false, true, true, false]);
}

/// The differential check against NumPy (2026-11-28): on the H200, f16 `copysign` and
/// `signbit` ignored the sign of a negative NaN (read through a conversion to f32 and
/// comparisons). They read the sign bit itself, in every float dtype but f64 (whose NaN
/// sign is not read: naga has no f64 bit cast).
#[test]
fn copysign_and_signbit_read_the_sign_bit_of_a_negative_nan() {
    let d = dev();
    let mag = [1.0, -2.0, 3.0, -4.0, f64::NAN];
    let signs32 = [f32::from_bits(0xffc0_0000), f32::NAN, -0.0, 0.0, -1.0];
    let x = d.from_slice(&mag.map(|v| v as f32), [5]).unwrap();
    let s = d.from_slice(&signs32, [5]).unwrap();
    let c = x.copysign(&s).unwrap().to_vec().unwrap();
    let want_neg = [true, false, true, false, true];
    for i in 0..5 {
        assert_eq!(
            c[i].is_sign_negative(),
            want_neg[i],
            "f32 copysign {i}: {}",
            c[i]
        );
        assert_eq!(c[i].abs().to_bits(), (mag[i] as f32).abs().to_bits());
    }
    assert_eq!(s.signbit().unwrap().to_vec().unwrap(), want_neg.to_vec());
    if d.supports::<f16>() {
        let signs16 = [
            f16::from_bits(0xfe00),
            f16::from_bits(0x7e00),
            f16::from_bits(0x8000),
            f16::from_bits(0),
            f16::from_bits(0xbc00),
        ];
        let x = d.from_slice(&mag.map(f16::from_f64), [5]).unwrap();
        let s = d.from_slice(&signs16, [5]).unwrap();
        let c = x.copysign(&s).unwrap().to_vec().unwrap();
        for i in 0..5 {
            assert_eq!(
                c[i].is_sign_negative(),
                want_neg[i],
                "f16 copysign {i}: {}",
                c[i]
            );
            assert_eq!(
                c[i].to_bits() & 0x7fff,
                f16::from_f64(mag[i]).to_bits() & 0x7fff
            );
        }
        assert_eq!(s.signbit().unwrap().to_vec().unwrap(), want_neg.to_vec());
        // A negative NaN as the magnitude: its sign goes, its payload stays.
        let nan = d.from_slice(&[f16::from_bits(0xfe01)], [1]).unwrap();
        let one = d.from_slice(&[f16::ONE], [1]).unwrap();
        let c = nan.copysign(&one).unwrap().to_vec().unwrap();
        assert!(
            c[0].is_nan() && c[0].is_sign_positive(),
            "{:#x}",
            c[0].to_bits()
        );
    }
}

/// `where_` of every dtype, the packed ones included (the differential check found u16, i8
/// and i16 refused), with broadcasting, against a CPU reference.
#[test]
fn where_takes_every_dtype() {
    fn check<T: gpuarray::Element + std::fmt::Debug>(v: impl Fn(i64) -> T) {
        let d = dev();
        if !d.supports::<T>() {
            return;
        }
        let xs: Vec<T> = (0..12).map(|i| v(i * 7 - 40)).collect();
        let ys: Vec<T> = (0..4).map(|i| v(100 - i * 9)).collect();
        let m: Vec<bool> = (0..12).map(|i| i % 3 != 1).collect();
        let x = d.from_slice(&xs, [3, 4]).unwrap();
        let y = d.from_slice(&ys, [4]).unwrap();
        let mask = d.from_slice(&m, [3, 4]).unwrap();
        let got = Array::where_(&mask, &x, &y).unwrap().to_vec().unwrap();
        let want: Vec<T> = (0..12)
            .map(|i| if m[i] { xs[i] } else { ys[i % 4] })
            .collect();
        assert_eq!(got, want, "{}", T::DTYPE);
    }
    check(|v| v as f32);
    check(|v| v as i32);
    check(|v| v as u32);
    check(|v| v > 0);
    check(|v| v);
    check(|v| v as u64);
    check(|v| v as f64);
    check(|v| f16::from_f64(v as f64));
    check(|v| v as u8);
    check(|v| v as i8);
    check(|v| v as u16);
    check(|v| v as i16);
}

/// The shifts of the 64-bit integers (the differential check found them refused), as
/// NumPy's: a count of 64 or more, or a negative one, gives 0 (or -1 for a negative i64
/// shifted right).
#[test]
fn shifts_of_64_bit_integers_match_numpy() {
    require_dtype!(i64);
    let d = dev();
    let xs: Vec<i64> = vec![1, -1, i64::MIN, i64::MAX, 0x1234_5678_9abc_def0, -77, 5, -5];
    let cs: Vec<i64> = vec![0, 1, 31, 32, 33, 63, 64, -1];
    let x = d.from_slice(&xs, [8, 1]).unwrap();
    let c = d.from_slice(&cs, [1, 8]).unwrap();
    let shl = x.left_shift(&c).unwrap().to_vec().unwrap();
    let shr = x.right_shift(&c).unwrap().to_vec().unwrap();
    for (i, &a) in xs.iter().enumerate() {
        for (j, &k) in cs.iter().enumerate() {
            let l = if (k as u64) < 64 { a << k } else { 0 };
            let r = if (k as u64) < 64 {
                a >> k
            } else if a < 0 {
                -1
            } else {
                0
            };
            assert_eq!(shl[i * 8 + j], l, "{a} << {k}");
            assert_eq!(shr[i * 8 + j], r, "{a} >> {k}");
        }
    }
    let xu: Vec<u64> = xs.iter().map(|&v| v as u64).collect();
    let cu: Vec<u64> = cs.iter().map(|&v| v as u64).collect();
    let x = d.from_slice(&xu, [8, 1]).unwrap();
    let c = d.from_slice(&cu, [1, 8]).unwrap();
    let shl = x.left_shift(&c).unwrap().to_vec().unwrap();
    let shr = x.right_shift(&c).unwrap().to_vec().unwrap();
    for (i, &a) in xu.iter().enumerate() {
        for (j, &k) in cu.iter().enumerate() {
            let l = if k < 64 { a << k } else { 0 };
            let r = if k < 64 { a >> k } else { 0 };
            assert_eq!(shl[i * 8 + j], l, "{a} << {k}");
            assert_eq!(shr[i * 8 + j], r, "{a} >> {k}");
        }
    }
}

/// `bitwise_count` of `vals` (on a strided view: every other element of a doubled array)
/// against the CPU's `count_ones` of the magnitude, as NumPy 2 counts.
fn bitwise_count_case<T: gpuarray::Element>(vals: &[T], count: impl Fn(T) -> u32) {
    require_dtype!(T);
    let d = dev();
    let doubled: Vec<T> = vals.iter().flat_map(|&v| [v, v]).collect();
    let x = d.from_slice(&doubled, [vals.len(), 2]).unwrap();
    let view = x.slice_axis(1, 1..2).unwrap();
    let got = view.bitwise_count().unwrap().to_vec().unwrap();
    let want: Vec<u8> = vals.iter().map(|&v| count(v) as u8).collect();
    assert_eq!(got, want, "bitwise_count of {}", T::DTYPE);
}

#[test]
fn bitwise_count_counts_the_magnitude_in_every_integer_dtype() {
    // Sizes 0, 1, a prime, past a vec4 and a workgroup; the extremes of each type.
    for n in [0usize, 1, 7, 257] {
        let w: Vec<i32> = ints(n, 9 + n as u64);
        let w: Vec<i32> = [i32::MIN, i32::MAX, -1, 0]
            .into_iter()
            .chain(w)
            .take(n)
            .collect();
        bitwise_count_case(&w, |v: i32| v.unsigned_abs().count_ones());
        let u: Vec<u32> = w.iter().map(|&v| v as u32).collect();
        bitwise_count_case(&u, |v: u32| v.count_ones());
        let l: Vec<i64> = w.iter().map(|&v| (v as i64) << 31 | 5).collect();
        let l: Vec<i64> = [i64::MIN, i64::MAX].into_iter().chain(l).take(n).collect();
        bitwise_count_case(&l, |v: i64| v.unsigned_abs().count_ones());
        let ul: Vec<u64> = l
            .iter()
            .map(|&v| v as u64)
            .chain([u64::MAX])
            .take(n)
            .collect();
        bitwise_count_case(&ul, |v: u64| v.count_ones());
        let b: Vec<i8> = w.iter().map(|&v| v as i8).collect();
        bitwise_count_case(&b, |v: i8| v.unsigned_abs().count_ones());
        let ub: Vec<u8> = w.iter().map(|&v| v as u8).collect();
        bitwise_count_case(&ub, |v: u8| v.count_ones());
        let h: Vec<i16> = [i16::MIN]
            .into_iter()
            .chain(w.iter().map(|&v| v as i16))
            .take(n)
            .collect();
        bitwise_count_case(&h, |v: i16| v.unsigned_abs().count_ones());
        let uh: Vec<u16> = w.iter().map(|&v| v as u16).collect();
        bitwise_count_case(&uh, |v: u16| v.count_ones());
        let t: Vec<bool> = w.iter().map(|&v| v & 1 == 1).collect();
        bitwise_count_case(&t, |v: bool| u32::from(v));
    }
}

#[test]
fn bitwise_count_refuses_floats() {
    let d = dev();
    let x = d.from_slice(&[1.5f32, -0.0, f32::NAN], [3]).unwrap();
    let err = x.bitwise_count().unwrap_err();
    assert!(
        matches!(err, gpuarray::Error::Unsupported { .. }),
        "{err:?}"
    );
    assert!(err.to_string().contains("bitwise_count"), "{err}");
    // The device is still usable.
    assert_eq!(x.abs().unwrap().to_vec().unwrap()[0], 1.5);
}
