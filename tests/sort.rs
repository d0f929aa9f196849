//! sort / argsort against a CPU reference (a stable sort in NumPy's order: -0 == +0, NaNs
//! last): every dtype, axes (negative too), sizes 0, 1, primes, 2^k +- 1, the bitonic
//! (one workgroup a row) and radix (long rows) paths, views, determinism and bad axes.

mod common;

use std::cmp::Ordering;

use common::{dev, host, upload, Rng, Ty};
use gpuarray::config::Options;
use gpuarray::{Array, Device, Error};

/// NumPy's order of values: NaNs equal and last, -0 == +0.
fn numpy_cmp(a: f64, b: f64) -> Ordering {
    match (a.is_nan(), b.is_nan()) {
        (true, true) => Ordering::Equal,
        (true, false) => Ordering::Greater,
        (false, true) => Ordering::Less,
        _ => a.partial_cmp(&b).unwrap(),
    }
}

/// The reference: the stable argsort of every line of `v` (row-major, `shape`) along
/// `axis`, as indices within the line, laid out as `v`.
fn ref_argsort(v: &[f64], shape: &[usize], axis: usize) -> Vec<i64> {
    let len = shape[axis];
    let inner: usize = shape[axis + 1..].iter().product();
    let outer: usize = shape[..axis].iter().product();
    let mut out = vec![0i64; v.len()];
    for o in 0..outer {
        for i in 0..inner {
            let at = |k: usize| o * len * inner + k * inner + i;
            let mut idx: Vec<usize> = (0..len).collect();
            idx.sort_by(|&p, &q| numpy_cmp(v[at(p)], v[at(q)]));
            for (k, &j) in idx.iter().enumerate() {
                out[at(k)] = j as i64;
            }
        }
    }
    out
}

/// Checks `argsort_axis` and `sort_axis` of `x` along `axis` against the reference: the
/// indices exactly, the values bit for bit (so -0 / +0 and NaN placement show).
#[track_caller]
fn check<T: Ty>(x: &Array<T>, axis: isize) {
    let v = host(x);
    let shape = x.shape().to_vec();
    let ax = if axis < 0 {
        axis + shape.len() as isize
    } else {
        axis
    } as usize;
    let want = ref_argsort(&v, &shape, ax);
    let got = x.argsort_axis(axis).expect("argsort").to_vec().unwrap();
    let what = format!("{} shape {shape:?} axis {axis}", T::NAME);
    assert_eq!(got.len(), want.len(), "{what}");
    if let Some(i) = (0..got.len()).find(|&i| got[i] != want[i]) {
        panic!("{what}: argsort differs at {i}: {} != {}", got[i], want[i]);
    }
    let sorted = x.sort_axis(axis).expect("sort");
    assert_eq!(sorted.shape(), &shape[..], "{what}");
    let s = host(&sorted);
    let inner: usize = shape[ax + 1..].iter().product();
    let len = shape[ax];
    for (i, &got) in s.iter().enumerate() {
        let k = (i / inner) % len;
        let src = i - k * inner + want[i] as usize * inner;
        let exp = v[src];
        assert!(
            got.to_bits() == exp.to_bits() || (got.is_nan() && exp.is_nan()),
            "{what}: sort differs at {i}: {got} != {exp}"
        );
    }
}

/// Random values of `T` with many ties and, for floats, NaN, +-inf and both zeros; for
/// integers, their extremes.
fn values<T: Ty>(rng: &mut Rng, n: usize) -> Vec<f64> {
    (0..n)
        .map(|_| {
            let r = rng.unit();
            if T::FLOAT {
                match (r * 16.0) as u32 {
                    0 => f64::NAN,
                    1 => -f64::NAN,
                    2 => f64::INFINITY,
                    3 => f64::NEG_INFINITY,
                    4 => -0.0,
                    5 => 0.0,
                    6 | 7 => rng.int(-4, 4),
                    _ => rng.uniform(-1e3, 1e3),
                }
            } else if T::SIGNED {
                match (r * 8.0) as u32 {
                    0 => i32::MIN as f64,
                    1 => i32::MAX as f64,
                    2 | 3 => rng.int(-3, 3),
                    _ => rng.int(-1 << 30, 1 << 30),
                }
            } else {
                match (r * 8.0) as u32 {
                    0 => u32::MAX as f64,
                    1 => 0.0,
                    2 | 3 => rng.int(0, 5),
                    _ => rng.int(0, u32::MAX as i64),
                }
            }
        })
        .collect()
}

fn random<T: Ty>(seed: u64, shape: &[usize]) -> Array<T> {
    let mut rng = Rng::new(seed);
    let n = shape.iter().product();
    upload::<T>(dev(), &values::<T>(&mut rng, n), shape).0
}

/// 1-D sizes: empty, one, primes, 2^k +- 1 on both sides of the bitonic limit, and a few
/// hundred thousand (the radix path; its 8-bit digits need no more to be exercised).
fn one_d<T: Ty>() {
    let big = if T::FLOAT { 100_003 } else { 20_011 };
    for (k, n) in [
        0usize, 1, 2, 3, 31, 255, 256, 257, 1023, 1025, 2047, 2049, 4097, big,
    ]
    .into_iter()
    .enumerate()
    {
        check(&random::<T>(k as u64, &[n]), 0);
        if n < 300 {
            check(&random::<T>(k as u64 + 100, &[n]), -1);
        }
    }
}

/// Every axis of 2-D and 3-D arrays (negative too), rows short and long, and zero extents.
fn axes<T: Ty>() {
    check(&random::<T>(1, &[37, 129]), 0);
    check(&random::<T>(2, &[37, 129]), 1);
    check(&random::<T>(3, &[4, 1, 17]), -2);
    check(&random::<T>(4, &[4, 3, 17]), -3);
    check(&random::<T>(5, &[4, 3, 17]), 2);
    check(&random::<T>(6, &[3, 5003]), 1); // long rows: radix with row digits
    check(&random::<T>(7, &[2, 3001]), 0);
    check(&random::<T>(8, &[260, 5]), -1);
    for shape in [[0usize, 5], [3, 0], [0, 0]] {
        for axis in [0isize, 1, -1] {
            check(&random::<T>(9, &shape), axis);
        }
    }
}

/// Views: transposes, stepped slices with offsets.
fn views<T: Ty>() {
    use gpuarray::Slice;
    let x = random::<T>(11, &[40, 70]);
    check(&x.t(), 1);
    check(&x.t(), 0);
    let s = x
        .slice([Slice::from(3..37).step(3), Slice::from(5..)])
        .unwrap();
    check(&s, -1);
    check(&s, 0);
    let y = random::<T>(12, &[5001]);
    check(&y.slice([Slice::from(7..).step(2)]).unwrap(), 0);
    check(&y.slice([Slice::from(1..4000)]).unwrap(), 0);
    check(&y.slice([Slice::from(3..300)]).unwrap(), 0);
}

per_dtype! {
    [f32_: f32, f64_: f64, f16_: gpuarray::f16, i32_: i32, u32_: u32] => {
        sizes_1d => one_d::<T>();
        every_axis => axes::<T>();
        strided_views => views::<T>();
    }
}

/// Ties keep their input order (stability), in both paths, with only two distinct values.
#[test]
fn argsort_is_stable() {
    for n in [1000usize, 70_001] {
        let v: Vec<f32> = (0..n).map(|i| ((i * 7919) % 2) as f32 * -0.0).collect();
        let x = dev().from_slice(&v, [n]).unwrap();
        let got = x.argsort().unwrap().to_vec().unwrap();
        let want: Vec<i64> = (0..n as i64).collect();
        assert_eq!(got, want, "-0 and +0 are equal: input order kept (n = {n})");
        let w: Vec<i32> = (0..n).map(|i| (i % 3) as i32).collect();
        let got = dev()
            .from_slice(&w, [n])
            .unwrap()
            .argsort()
            .unwrap()
            .to_vec()
            .unwrap();
        let want: Vec<i64> = (0..3)
            .flat_map(|r| (0..n as i64).filter(move |i| i % 3 == r))
            .collect();
        assert_eq!(got, want, "n = {n}");
    }
}

/// The same bits on ten runs, in both paths.
#[test]
fn deterministic() {
    for shape in [vec![100_003usize], vec![64, 500]] {
        let x = random::<f32>(21, &shape);
        let first = x.argsort().unwrap().to_vec().unwrap();
        let vals: Vec<u32> = x
            .sort()
            .unwrap()
            .to_vec()
            .unwrap()
            .iter()
            .map(|v| v.to_bits())
            .collect();
        for _ in 0..9 {
            assert_eq!(x.argsort().unwrap().to_vec().unwrap(), first);
            let again: Vec<u32> = x
                .sort()
                .unwrap()
                .to_vec()
                .unwrap()
                .iter()
                .map(|v| v.to_bits())
                .collect();
            assert_eq!(again, vals);
        }
    }
}

/// Axes out of range (either sign) and 0-d arrays are `AxisOutOfRange`; the input is intact.
#[test]
fn bad_axes() {
    let x = dev().from_slice(&[3.0f32, 1.0, 2.0, 0.0], [2, 2]).unwrap();
    for axis in [2isize, 5, -3] {
        match x.sort_axis(axis) {
            Err(Error::AxisOutOfRange { axis: a, ndim: 2 }) => assert_eq!(a, axis),
            other => panic!("axis {axis}: {other:?}"),
        }
        assert!(matches!(
            x.argsort_axis(axis),
            Err(Error::AxisOutOfRange { .. })
        ));
    }
    let s = dev().from_slice(&[1.0f32], [] as [usize; 0]).unwrap();
    assert!(matches!(
        s.sort(),
        Err(Error::AxisOutOfRange { axis: -1, ndim: 0 })
    ));
    assert_eq!(x.to_vec().unwrap(), vec![3.0, 1.0, 2.0, 0.0]);
    assert_eq!(
        x.sort().unwrap().to_vec().unwrap(),
        vec![1.0, 3.0, 0.0, 2.0]
    );
}

/// A named pattern of values by position.
type Pattern = (&'static str, fn(usize) -> i64);

/// Radix inputs whose digits leave most of the 256 bins empty, across many tiles (4096
/// elements each): all equal, differing in one byte only, descending, ascending, and
/// integer extremes; sort and argsort of u32 and i32 (whose 1-D sort moves the keys alone)
/// and of f32, against the reference (stability shows in the indices).
#[test]
fn radix_few_digits() {
    let n = 70_001usize;
    let patterns: [Pattern; 5] = [
        ("all equal", |_| 7),
        ("one byte", |i| ((i * 37 % 3) as i64) << 16),
        ("descending", |i| 1_000_000 - i as i64),
        ("ascending", |i| i as i64 * 3),
        ("extremes", |i| {
            if i % 2 == 0 {
                i32::MIN as i64
            } else {
                i32::MAX as i64
            }
        }),
    ];
    for (what, f) in patterns {
        let v: Vec<f64> = (0..n).map(|i| f(i) as f64).collect();
        let u: Vec<f64> = v.iter().map(|x| x.rem_euclid(4_294_967_296.0)).collect();
        check(&upload::<u32>(dev(), &u, &[n]).0, 0);
        check(&upload::<i32>(dev(), &v, &[n]).0, 0);
        let f32s: Vec<f64> = v.iter().map(|&x| x as f32 as f64).collect();
        check(&upload::<f32>(dev(), &f32s, &[n]).0, 0);
        eprintln!("{what}: ok");
    }
}

/// Rows past 256 of radix length: two row-number passes after the key passes.
#[test]
fn radix_many_rows() {
    check(&random::<u32>(31, &[257, 4099]), 1);
}

/// The radix scatter's paths, subgroup ranking with its writes staged through workgroup
/// memory (the default where the adapter has subgroups of 8 to 128 lanes; ballots in one
/// word up to 32 lanes, in four words with `Tuning::radix_wide_ballots`, as 64-lane
/// adapters run it), the same unstaged (`Tuning::radix_stage` 0: each lane writes its
/// keys), chunk ranking (`Tuning::subgroups` off) and the onesweep form
/// (`Tuning::radix_onesweep`): each against the reference (indices
/// exactly: stability) and the same indices and values as each other, for one-word keys
/// with an index plane (f32 argsort), values alone (the 1-D sorts of u32 and f32), two-word
/// keys (f64, where the device has it) and long rows (the row-number passes), on partial
/// tiles and a view with an offset.
#[test]
fn radix_scatter_paths() {
    let mut onesweep = Options::default();
    onesweep.tuning.radix_onesweep = true;
    let mut chunk = Options::default();
    chunk.tuning.subgroups = false;
    let mut unstaged = Options::default();
    unstaged.tuning.radix_stage = 0;
    let mut wide = Options::default();
    wide.tuning.radix_wide_ballots = true;
    let devs = [
        dev(),
        &Device::open_with_options(0, unstaged).expect("a second device"),
        &Device::open_with_options(0, chunk).expect("a third device"),
        &Device::open_with_options(0, wide).expect("a fourth device"),
        &Device::open_with_options(0, onesweep).expect("a fifth device"),
    ];
    let mut rng = Rng::new(57);
    for n in [4097usize, 61_441] {
        let f = values::<f32>(&mut rng, n + 3);
        let u = values::<u32>(&mut rng, n);
        let g = values::<f64>(&mut rng, n);
        let mut seen = Vec::new();
        for d in devs {
            let x = upload::<f32>(d, &f, &[n + 3]).0;
            let view = x.slice(3..n + 3).unwrap();
            check(&view, 0);
            let y = upload::<u32>(d, &u, &[n]).0;
            check(&y, 0);
            if common::supported::<f64>(d) {
                check(&upload::<f64>(d, &g, &[n]).0, 0);
            }
            let sorted = view.sort().unwrap().to_vec().unwrap();
            let bits: Vec<u32> = sorted.iter().map(|v| v.to_bits()).collect();
            seen.push((view.argsort().unwrap().to_vec().unwrap(), bits));
        }
        assert!(
            seen.windows(2).all(|w| w[0] == w[1]),
            "n = {n}: the paths differ"
        );
    }
    let rows = values::<i32>(&mut rng, 3 * 5003);
    for d in &devs[..2] {
        check(&upload::<i32>(d, &rows, &[3, 5003]).0, 1);
    }
}

/// A 1-D f32 sort moves the values alone: every NaN payload (either sign), -0.0 and +0.0
/// keep their bits and input order among equal keys, over many tiles, on both scatters.
#[test]
fn sort_by_value_keeps_bits() {
    let mut unstaged = Options::default();
    unstaged.tuning.radix_stage = 0;
    let other = Device::open_with_options(0, unstaged).expect("a second device");
    let n = 70_001usize;
    let mut rng = Rng::new(91);
    let v: Vec<f32> = (0..n)
        .map(|i| match (rng.unit() * 8.0) as u32 {
            0 => f32::from_bits(0x7fc0_0000 | i as u32),
            1 => f32::from_bits(0xff80_0001 + (i as u32 & 0xffff)),
            2 => -0.0,
            3 => 0.0,
            4 => f32::NEG_INFINITY,
            _ => rng.int(-3, 3) as f32,
        })
        .collect();
    let key = |x: &f32| {
        if x.is_nan() {
            (2, 0.0)
        } else {
            (1, *x + 0.0)
        }
    };
    let mut want = v.clone();
    want.sort_by(|a, b| key(a).partial_cmp(&key(b)).unwrap());
    let want: Vec<u32> = want.iter().map(|x| x.to_bits()).collect();
    for d in [dev(), &other] {
        let x = d.from_slice(&v, [n]).unwrap();
        let got: Vec<u32> = x
            .sort()
            .unwrap()
            .to_vec()
            .unwrap()
            .iter()
            .map(|x| x.to_bits())
            .collect();
        if let Some(i) = (0..n).find(|&i| got[i] != want[i]) {
            panic!("differs at {i}: {:#x} != {:#x}", got[i], want[i]);
        }
    }
}

/// The onesweep radix sort (`Tuning::radix_onesweep`, where the subgroup scatter runs)
/// against the reference and the per-pass path (the default), over many tiles: its
/// look-back as is, and with `Tuning::radix_spin` 0, where every tile counts its nearest
/// predecessor's keys itself (the path taken when a predecessor is slow to publish):
/// 1-D sorts of values alone (u32, f32), argsort records (f32, f16,
/// and f64 with two key words where the device has it) and long rows (row-number passes,
/// whose digits the one histogram pass counts too).
#[test]
fn radix_onesweep_lookback() {
    let mut onesweep = Options::default();
    onesweep.tuning.radix_onesweep = true;
    let mut counted = onesweep.clone();
    counted.tuning.radix_spin = Some(0);
    let devs = [
        dev(),
        &Device::open_with_options(0, onesweep).expect("a second device"),
        &Device::open_with_options(0, counted).expect("a third device"),
    ];
    let mut rng = Rng::new(1201);
    let n = 40_009usize;
    let u = values::<u32>(&mut rng, n);
    let f = values::<f32>(&mut rng, n);
    let h = values::<f32>(&mut rng, 12_011);
    let g = values::<f64>(&mut rng, 20_011);
    let i = values::<i32>(&mut rng, 3 * 6007);
    let mut seen = Vec::new();
    for d in devs {
        let y = upload::<u32>(d, &u, &[n]).0;
        check(&y, 0);
        let x = upload::<f32>(d, &f, &[n]).0;
        check(&x, 0);
        let sorted = x.sort().unwrap().to_vec().unwrap();
        check(&upload::<i32>(d, &i, &[3, 6007]).0, 1);
        if common::supported::<gpuarray::f16>(d) {
            check(&upload::<gpuarray::f16>(d, &h, &[12_011]).0, 0);
        }
        if common::supported::<f64>(d) {
            check(&upload::<f64>(d, &g, &[20_011]).0, 0);
        }
        let bits: Vec<u32> = sorted.iter().map(|v| v.to_bits()).collect();
        seen.push((y.sort().unwrap().to_vec().unwrap(), bits));
    }
    assert!(
        seen.windows(2).all(|w| w[0] == w[1]),
        "the onesweep and per-pass sorts differ"
    );
}
