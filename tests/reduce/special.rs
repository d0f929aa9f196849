//! NaN, infinities, first occurrence, -0, and wrapping integers.

use super::*;

/// Sets `h`'s element at `idx` (and the device copy is made from `h` afterwards).
fn set(h: &mut Host, idx: &[usize], v: f64) {
    let mut lin = 0;
    for (d, &i) in idx.iter().enumerate() {
        lin = lin * h.shape[d] + i;
    }
    h.data[lin] = v;
}

pub(crate) fn to_device<T: Red>(h: &Host) -> Array<T> {
    let (a, back) = upload::<T>(dev(), &h.data, &h.shape);
    assert!(back
        .iter()
        .zip(&h.data)
        .all(|(x, y)| x == y || (x.is_nan() && y.is_nan())));
    a
}

const NAN_OPS: [Op; 9] = [
    Op::Max,
    Op::Min,
    Op::ArgMax,
    Op::ArgMin,
    Op::Sum,
    Op::Mean,
    Op::All,
    Op::Any,
    Op::Norm,
];

/// max/min propagate NaN, argmax/argmin return the first NaN, sum/mean/norm give NaN, a NaN
/// is true for all/any; rows and columns, short and long (several workgroups), NaN first,
/// last, several, and next to infinities.
fn nan_cases<T: Red>() {
    let dev = dev();
    require_dtype!(T);
    let nan = f64::NAN;
    let inf = f64::INFINITY;
    let mut rng = Rng::new(seed(&format!("nan {}", T::NAME)));
    let grid =
        |rng: &mut Rng, n: usize| -> Vec<f64> { (0..n).map(|_| rng.int(-40, 40) / 8.0).collect() };

    // Small explicit cases.
    for data in [
        vec![1.0, nan, 3.0],
        vec![nan],
        vec![nan, nan, -1.0],
        vec![2.0, 5.0, nan],
        vec![-inf, 1.0, inf, nan, inf],
    ] {
        let h = Host::new(&[data.len()], data);
        let a = to_device::<T>(&h);
        for op in NAN_OPS {
            check(&format!("{:?}", h.data), &a, &h, op, &Form::Whole);
            check(&format!("{:?}", h.data), &a, &h, op, &Form::One(0));
        }
    }
    let one = dev
        .from_slice(&[T::from_f64(1.0), T::from_f64(nan), T::from_f64(3.0)], [3])
        .unwrap();
    assert!(one.max().unwrap().to_scalar().unwrap().to_f64().is_nan());
    assert_eq!(one.argmax().unwrap().to_scalar().unwrap(), 1);
    assert_eq!(one.argmin().unwrap().to_scalar().unwrap(), 1);

    // Rows of 1031: none, first, two (500 and the last), last, infinities without NaN.
    let mut h = Host::new(&[5, 1031], grid(&mut rng, 5 * 1031));
    set(&mut h, &[1, 0], nan);
    set(&mut h, &[2, 500], nan);
    set(&mut h, &[2, 1030], nan);
    set(&mut h, &[3, 1030], nan);
    set(&mut h, &[4, 3], inf);
    set(&mut h, &[4, 900], -inf);
    set(&mut h, &[4, 901], inf);
    let a = to_device::<T>(&h);
    for op in NAN_OPS {
        for form in [Form::Whole, Form::One(0), Form::One(1)] {
            check("[5, 1031] with NaN and inf", &a, &h, op, &form);
            check(
                "t() of [5, 1031] with NaN and inf",
                &a.t(),
                &h.t(),
                op,
                &form,
            );
        }
    }

    // Long rows and long columns, NaN in later workgroups.
    let mut h = Host::new(&[3, 100_003], grid(&mut rng, 300_009));
    set(&mut h, &[1, 99_999], nan);
    set(&mut h, &[2, 70_000], nan);
    set(&mut h, &[2, 3], nan);
    let a = to_device::<T>(&h);
    let mut hc = Host::new(&[100_003, 3], grid(&mut rng, 300_009));
    set(&mut hc, &[77_777, 2], nan);
    set(&mut hc, &[100_002, 0], nan);
    set(&mut hc, &[65_536, 0], inf);
    let c = to_device::<T>(&hc);
    for op in [Op::Max, Op::Min, Op::ArgMax, Op::ArgMin, Op::Sum] {
        for form in [Form::Whole, Form::One(0), Form::One(1)] {
            check("[3, 100003] with NaN", &a, &h, op, &form);
            check("[100003, 3] with NaN", &c, &hc, op, &form);
        }
    }
}

#[test]
fn nan_f32() {
    nan_cases::<f32>();
}

#[test]
fn nan_f16() {
    nan_cases::<f16>();
}

#[test]
fn nan_f64() {
    nan_cases::<f64>();
}

/// all/any: != 0 is true, so NaN is true and -0 is false.
#[test]
fn all_any_nan_and_negative_zero() {
    let dev = dev();
    let cases: [(&[f32], bool, bool); 6] = [
        (&[0.0, f32::NAN], false, true),
        (&[f32::NAN], true, true),
        (&[-0.0], false, false),
        (&[-0.0, 0.0, -0.0], false, false),
        (&[1.0, -0.0], false, true),
        (&[1e-45, -1.0, f32::INFINITY], true, true),
    ];
    for (data, all, any) in cases {
        let a = dev.from_slice(data, [data.len()]).unwrap();
        assert_eq!(a.all().unwrap().to_scalar().unwrap(), all, "all {data:?}");
        assert_eq!(a.any().unwrap().to_scalar().unwrap(), any, "any {data:?}");
        assert_eq!(
            a.all_axis(0, false).unwrap().to_scalar().unwrap(),
            all,
            "all_axis {data:?}"
        );
        assert_eq!(
            a.any_axis([0], true).unwrap().to_vec().unwrap(),
            vec![any],
            "any_axis {data:?}"
        );
    }
}

/// argmax/argmin return the first occurrence of the extreme, also when the copies lie in
/// different workgroups (the later copy processed first in a tree), along rows, columns and
/// the whole array; -0 and +0 compare equal.
fn first_occurrence<T: Red>() {
    require_dtype!(T);
    let mut rng = Rng::new(seed(&format!("first {}", T::NAME)));
    let (lo, hi) = if T::SIGNED { (-9, 9) } else { (1, 9) };
    let (top, bottom) = (50.0, if T::SIGNED { -50.0 } else { 0.0 });
    let ints = |rng: &mut Rng, n: usize| rng.ints(n, lo, hi);

    // Rows: the extreme at 99_000, 60_000 and 70_000 (row 0), at 2 and the last (row 1);
    // row 2 constant.
    let mut h = Host::new(&[3, 100_003], ints(&mut rng, 300_009));
    for (r, c) in [(0, 99_000), (0, 60_000), (0, 70_000), (1, 100_002), (1, 2)] {
        set(&mut h, &[r, c], top);
        set(&mut h, &[r, (c + 7) % 100_003], bottom);
        set(&mut h, &[r, (c + 1000) % 100_003], bottom);
    }
    for c in 0..100_003 {
        set(&mut h, &[2, c], 4.0);
    }
    let a = to_device::<T>(&h);
    let rows = host(&a.argmax_axis(1, false).unwrap());
    assert_eq!(rows, vec![60_000.0, 2.0, 0.0], "{} argmax rows", T::NAME);
    for op in [Op::ArgMax, Op::ArgMin, Op::Max, Op::Min] {
        for form in [Form::Whole, Form::One(0), Form::One(1)] {
            check("[3, 100003] with ties", &a, &h, op, &form);
        }
    }
    // The same as columns.
    let ht = h.t();
    let at = to_device::<T>(&ht);
    let cols = host(&at.argmax_axis(0, false).unwrap());
    assert_eq!(cols, vec![60_000.0, 2.0, 0.0], "{} argmax columns", T::NAME);
    let tv = a.t();
    for op in [Op::ArgMax, Op::ArgMin] {
        for form in [Form::Whole, Form::One(0), Form::One(1)] {
            check("[100003, 3] with ties", &at, &ht, op, &form);
            check("t() of [3, 100003] with ties", &tv, &ht, op, &form);
        }
    }
    // The whole array: flat C-order index of the first copy.
    let mut h = Host::new(&[257, 1031], ints(&mut rng, 257 * 1031));
    for i in [200_000, 150_000, 5, 264_965] {
        h.data[i] = top;
        h.data[i + 1] = bottom;
    }
    let a = to_device::<T>(&h);
    assert_eq!(a.argmax().unwrap().to_scalar().unwrap(), 5);
    assert_eq!(a.argmin().unwrap().to_scalar().unwrap(), 6);
    // In the transposed view the first copy (C order of the view) is another one.
    check(
        "t() of [257, 1031] with ties",
        &a.t(),
        &h.t(),
        Op::ArgMax,
        &Form::Whole,
    );
    check(
        "t() of [257, 1031] with ties",
        &a.t(),
        &h.t(),
        Op::ArgMin,
        &Form::Whole,
    );

    if T::FLOAT {
        for (data, amax, amin) in [
            (vec![-0.0, 0.0], 0, 0),
            (vec![0.0, -0.0], 0, 0),
            (vec![-1.0, -0.0, 0.0, -0.0], 1, 0),
        ] {
            let h = Host::new(&[data.len()], data);
            let a = to_device::<T>(&h);
            assert_eq!(
                a.argmax().unwrap().to_scalar().unwrap(),
                amax,
                "{:?}",
                h.data
            );
            assert_eq!(
                a.argmin().unwrap().to_scalar().unwrap(),
                amin,
                "{:?}",
                h.data
            );
        }
    }
}

#[test]
fn first_occurrence_f32() {
    first_occurrence::<f32>();
}

#[test]
fn first_occurrence_f16() {
    first_occurrence::<f16>();
}

#[test]
fn first_occurrence_i32() {
    first_occurrence::<i32>();
}

#[test]
fn first_occurrence_u32() {
    first_occurrence::<u32>();
}

// ---------------------------------------------------------------------------------------
// Integers wrap
// ---------------------------------------------------------------------------------------

/// i32 and u32 sums and products accumulate in their own type and wrap (two's complement).
#[test]
fn integer_sums_and_products_wrap() {
    let dev = dev();
    let i = |v: &[i32]| dev.from_slice(v, [v.len()]).unwrap();
    let u = |v: &[u32]| dev.from_slice(v, [v.len()]).unwrap();
    let si = |a: Array<i32>| a.to_scalar().unwrap();
    let su = |a: Array<u32>| a.to_scalar().unwrap();
    assert_eq!(si(i(&[i32::MAX, 1]).sum().unwrap()), i32::MIN);
    assert_eq!(si(i(&[i32::MIN, -1]).sum().unwrap()), i32::MAX);
    assert_eq!(si(i(&[i32::MAX; 4]).sum().unwrap()), -4);
    assert_eq!(su(u(&[u32::MAX, 2]).sum().unwrap()), 1);
    assert_eq!(
        su(u(&[3_000_000_000, 3_000_000_000]).sum().unwrap()),
        1_705_032_704
    );
    assert_eq!(si(i(&[65_536, 65_536]).prod().unwrap()), 0);
    assert_eq!(si(i(&[65_536, 32_768]).prod().unwrap()), i32::MIN);
    assert_eq!(si(i(&[-3; 21]).prod().unwrap()), (-3i32).wrapping_pow(21));
    assert_eq!(su(u(&[3; 40]).prod().unwrap()), 3u32.wrapping_pow(40));
    assert_eq!(su(u(&[65_537, 65_537]).prod().unwrap()), 131_073);

    // Random large values over every form, against wrapping arithmetic.
    let mut rng = Rng::new(seed("wrap"));
    let cases: [(&[usize], i64, i64); 3] = [
        (&[1031, 257], 1 << 29, (1 << 31) - 1),
        (&[3, 100_003], 1 << 20, 1 << 30),
        (&[100_003, 3], -(1 << 31), (1 << 31) - 1),
    ];
    for (shape, lo, hi) in cases {
        let n: usize = shape.iter().product();
        let vi = rng.ints(n, lo, hi);
        let (a, v) = upload::<i32>(dev, &vi, shape);
        let h = Host::new(shape, v);
        let vu: Vec<f64> = vi.iter().map(|&x| (x as i64 as u32) as f64).collect();
        let (b, v) = upload::<u32>(dev, &vu, shape);
        let hb = Host::new(shape, v);
        for form in [Form::Whole, Form::One(0), Form::One(1)] {
            check(&format!("{shape:?} large"), &a, &h, Op::Sum, &form);
            check(&format!("{shape:?} large"), &b, &hb, Op::Sum, &form);
        }
    }
    // Products of odd factors never reach 0 mod 2^32: every bit counts.
    let vi: Vec<f64> = (0..257 * 31).map(|_| rng.int(-4, 4) * 2.0 + 1.0).collect();
    let (a, v) = upload::<i32>(dev, &vi, &[257, 31]);
    let h = Host::new(&[257, 31], v);
    let vu: Vec<f64> = vi.iter().map(|x| x.abs()).collect();
    let (b, v) = upload::<u32>(dev, &vu, &[257, 31]);
    let hb = Host::new(&[257, 31], v);
    for form in [Form::Whole, Form::One(0), Form::One(1)] {
        check("[257, 31] odd factors", &a, &h, Op::Prod, &form);
        check("[257, 31] odd factors", &b, &hb, Op::Prod, &form);
    }
}

/// nanmean, nanvar and nanstd of no elements, or of NaN only, are NaN (NumPy's, with a
/// RuntimeWarning): empty arrays, all-NaN arrays short and long (several workgroups, so
/// partial results combine), and each reduced alone. The H200 gave 1 for nanvar and nanstd
/// of these (a 0 / 0 folded to 1); the kernel now selects NaN on the count.
fn nan_of_nothing<T: Red + Float>() {
    let dev = dev();
    require_dtype!(T);
    let nan = T::from_f64(f64::NAN);
    for n in [0usize, 1, 5, 1031, 70_001] {
        let x = dev.from_slice(&vec![nan; n], [n]).unwrap();
        let what = format!("{} of {n} NaN", T::NAME);
        for (name, r) in [
            ("nanmean", x.nanmean()),
            ("nanvar", x.nanvar()),
            ("nanstd", x.nanstd()),
        ] {
            let v = r.unwrap().to_scalar().unwrap().to_f64();
            assert!(v.is_nan(), "{name} {what}: {v}");
        }
    }
    // A 2-D all-NaN array, whole.
    let x = dev.from_slice(&[nan; 6 * 7], [6, 7]).unwrap();
    for r in [x.nanvar(), x.nanstd()] {
        let v = r.unwrap().to_scalar().unwrap().to_f64();
        assert!(v.is_nan(), "{} [6, 7] of NaN: {v}", T::NAME);
    }
}

#[test]
fn nan_of_nothing_f32() {
    nan_of_nothing::<f32>();
}

#[test]
fn nan_of_nothing_f16() {
    nan_of_nothing::<f16>();
}

#[test]
fn nan_of_nothing_f64() {
    nan_of_nothing::<f64>();
}
