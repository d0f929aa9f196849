//! The keys-only radix sort of 8-byte values (f64, i64, u64 rows longer than a bitonic row,
//! where the subgroup scatter runs) and the argsort of such rows with the same skipped
//! passes: bit for bit against a CPU stable sort in NumPy's order
//! (every NaN equal and last, -0 == +0, equal keys in input order), and against the
//! key-index path (`Tuning::subgroups` off) and the onesweep form of both sorts
//! (`Tuning::radix_onesweep`, its look-back as is and counting), on data that makes the plan skip passes
//! (constant bytes, narrow ranges around large offsets, all equal) and data that keeps all
//! eight (both signs, the extremes), sorted and reversed input, offset views and sizes
//! just past one bitonic row, past one tile and past many.

mod common;

use common::{dev, Rng};
use gpuarray::config::Options;
use gpuarray::{Device, Real};

/// Sizes past the longest bitonic row (4096): one tile and a bit, primes, many tiles.
const SIZES: [usize; 4] = [4097, 8191, 20_011, 70_001];

/// A device whose 8-byte sorts take the key-index records (no subgroup scatter).
fn records_dev() -> Device {
    let mut o = Options::default();
    o.tuning.subgroups = false;
    Device::open_with_options(0, o).expect("a second device")
}

/// The devices the sorts are compared on besides the shared one: the key-index records,
/// and the onesweep form of the keys-only sort (`Tuning::radix_onesweep`), its look-back
/// as is and with `Tuning::radix_spin` 0 (every tile counts its nearest predecessor's
/// keys itself: the path taken when a predecessor is slow to publish).
fn other_devs() -> Vec<(&'static str, Device)> {
    let mut onesweep = Options::default();
    onesweep.tuning.radix_onesweep = true;
    let mut counted = onesweep.clone();
    counted.tuning.radix_spin = Some(0);
    vec![
        ("records", records_dev()),
        (
            "onesweep",
            Device::open_with_options(0, onesweep).expect("a third device"),
        ),
        (
            "onesweep counted",
            Device::open_with_options(0, counted).expect("a fourth device"),
        ),
    ]
}

/// The reference: `v` sorted stably by `key` (an order-preserving u64 of each value).
fn reference<T: Copy>(v: &[T], key: impl Fn(T) -> u64) -> Vec<T> {
    let mut w = v.to_vec();
    w.sort_by_key(|&x| key(x));
    w
}

/// The stable argsort of `v` by `key`.
fn ref_argsort<T: Copy>(v: &[T], key: impl Fn(T) -> u64) -> Vec<i64> {
    let mut idx: Vec<usize> = (0..v.len()).collect();
    idx.sort_by_key(|&i| key(v[i]));
    idx.into_iter().map(|i| i as i64).collect()
}

/// NumPy's order of f64 as a u64 key: every NaN one key after +inf, -0 == +0.
fn f64_key(x: f64) -> u64 {
    if x.is_nan() {
        return u64::MAX;
    }
    let b = (x + 0.0).to_bits();
    if b >> 63 == 1 {
        !b
    } else {
        b | 1 << 63
    }
}

/// Sorts and argsorts `v` on the shared device (and on `others`: the key-index path
/// without skipping, the onesweep form) and compares the bits with `want`, the indices with
/// the stable argsort by `key`.
#[track_caller]
fn check<T: Real + Copy>(
    v: &[T],
    key: impl Fn(T) -> u64,
    bits: impl Fn(T) -> u64,
    others: &[(&'static str, Device)],
    what: &str,
) {
    let n = v.len();
    let want = reference(v, &key);
    let want_idx = ref_argsort(v, &key);
    let all = std::iter::once(("keys-only", dev())).chain(others.iter().map(|(s, d)| (*s, d)));
    for (name, d) in all {
        let x = d.from_slice(v, [n]).unwrap();
        let idx = x.argsort().unwrap().to_vec().unwrap();
        if let Some(i) = (0..n).find(|&i| idx[i] != want_idx[i]) {
            panic!(
                "{what} ({name}, n = {n}) argsort differs at {i}: {} != {}",
                idx[i], want_idx[i]
            );
        }
        let got = x.sort().unwrap().to_vec().unwrap();
        assert_eq!(got.len(), n, "{what} {name}");
        if let Some(i) = (0..n).find(|&i| bits(got[i]) != bits(want[i])) {
            panic!(
                "{what} ({name}, n = {n}) differs at {i}: {:#x} != {:#x}",
                bits(got[i]),
                bits(want[i])
            );
        }
    }
}

/// f64 data of several kinds: specials among normals, integers (constant low bytes),
/// a narrow range far from zero, all equal, sorted, reversed.
fn f64_cases(rng: &mut Rng, n: usize) -> Vec<(&'static str, Vec<f64>)> {
    let special: Vec<f64> = (0..n)
        .map(|i| match (rng.unit() * 12.0) as u32 {
            0 => f64::from_bits(0x7ff8_0000_0000_0000 | i as u64),
            1 => f64::from_bits(0xfff0_0000_0000_0001 + (i as u64 & 0xffff)),
            2 => -0.0,
            3 => 0.0,
            4 => f64::INFINITY,
            5 => f64::NEG_INFINITY,
            6 => f64::from_bits(rng.next_u64() & 0x000f_ffff_ffff_ffff), // subnormal
            7 => f64::MAX,
            8 => f64::MIN,
            _ => rng.uniform(-1e3, 1e3),
        })
        .collect();
    let ints: Vec<f64> = (0..n).map(|_| rng.int(-50, 50)).collect();
    let narrow: Vec<f64> = (0..n).map(|_| 1e6 + rng.uniform(0.0, 1.0)).collect();
    let zeros: Vec<f64> = (0..n)
        .map(|i| if i % 3 == 0 { -0.0 } else { 0.0 })
        .collect();
    let normal: Vec<f64> = (0..n).map(|_| rng.uniform(-1.0, 1.0)).collect();
    let mut sorted = normal.clone();
    sorted.sort_by(|a, b| a.partial_cmp(b).unwrap());
    let reversed: Vec<f64> = sorted.iter().rev().copied().collect();
    vec![
        ("special", special),
        ("integers", ints),
        ("narrow", narrow),
        ("zeros", zeros),
        ("uniform", normal),
        ("sorted", sorted),
        ("reversed", reversed),
    ]
}

#[test]
fn f64_bits_and_order() {
    require_dtype!(f64);
    let others = other_devs();
    let mut rng = Rng::new(64);
    for n in SIZES {
        for (what, v) in f64_cases(&mut rng, n) {
            check(&v, f64_key, f64::to_bits, &others, &format!("f64 {what}"));
        }
    }
}

/// i64 data: the whole range and its extremes, a narrow range around a large offset and
/// across zero (the `key - min` plan), values differing in the top and bottom bytes only
/// (skipped middle bytes), all equal, sorted, reversed.
#[test]
fn i64_ranges() {
    require_dtype!(i64);
    let others = other_devs();
    let mut rng = Rng::new(65);
    for n in SIZES {
        let wide: Vec<i64> = (0..n)
            .map(|i| match i % 11 {
                0 => i64::MIN,
                1 => i64::MAX,
                2 => 0,
                3 => -1,
                _ => rng.next_u64() as i64,
            })
            .collect();
        let offset: Vec<i64> = (0..n)
            .map(|_| (1i64 << 50) + rng.int(0, 70_000) as i64)
            .collect();
        let across: Vec<i64> = (0..n)
            .map(|_| rng.int(-1_000_000, 1_000_000) as i64)
            .collect();
        let ends: Vec<i64> = (0..n)
            .map(|_| ((rng.int(0, 3) as i64) << 56) | rng.int(0, 4) as i64)
            .collect();
        let same = vec![-7i64; n];
        let sorted: Vec<i64> = (0..n as i64).map(|i| i * 1000 - 3).collect();
        let reversed: Vec<i64> = sorted.iter().rev().copied().collect();
        for (what, v) in [
            ("wide", wide),
            ("offset", offset),
            ("across zero", across),
            ("top and bottom bytes", ends),
            ("all equal", same),
            ("sorted", sorted),
            ("reversed", reversed),
        ] {
            let key = |x: i64| (x as u64) ^ 1 << 63;
            check(&v, key, |x| x as u64, &others, &format!("i64 {what}"));
        }
    }
}

#[test]
fn u64_ranges() {
    require_dtype!(u64);
    let others = other_devs();
    let mut rng = Rng::new(66);
    for n in [4097, 20_011] {
        let wide: Vec<u64> = (0..n)
            .map(|i| match i % 7 {
                0 => u64::MAX,
                1 => 0,
                _ => rng.next_u64(),
            })
            .collect();
        let high: Vec<u64> = (0..n).map(|_| rng.next_u64() << 40).collect();
        let small: Vec<u64> = (0..n).map(|_| rng.int(0, 300) as u64).collect();
        for (what, v) in [("wide", wide), ("high bytes", high), ("small", small)] {
            check(&v, |x| x, |x| x, &others, &format!("u64 {what}"));
        }
    }
}

/// Views: an offset contiguous slice (the kernels read from the offset), a strided slice
/// (copied first), along axis 0 of a matrix with one column (one long row), and sort of
/// the flattened array.
#[test]
fn views_and_axes() {
    require_dtype!(f64);
    let mut rng = Rng::new(67);
    let n = 9001;
    let v: Vec<f64> = (0..n).map(|_| rng.int(-1000, 1000) / 8.0).collect();
    let x = dev().from_slice(&v, [n]).unwrap();
    let tail = x.slice_axis(0, 37..).unwrap();
    let want = reference(&v[37..], f64_key);
    assert_eq!(tail.sort().unwrap().to_vec().unwrap(), want, "offset view");
    assert_eq!(
        tail.argsort().unwrap().to_vec().unwrap(),
        ref_argsort(&v[37..], f64_key),
        "argsort of an offset view"
    );
    let step = x.slice_axis(0, gpuarray::Slice::new(1, None, 2)).unwrap();
    let s: Vec<f64> = v[1..].iter().step_by(2).copied().collect();
    assert_eq!(
        step.sort().unwrap().to_vec().unwrap(),
        reference(&s, f64_key),
        "strided view"
    );
    let col = x.reshape([n, 1]).unwrap();
    assert_eq!(
        col.sort_axis(0).unwrap().to_vec().unwrap(),
        reference(&v, f64_key),
        "axis 0 of a column"
    );
    let m = x.slice_axis(0, ..9000).unwrap().reshape([2, 4500]).unwrap();
    assert_eq!(
        m.sort_axis(None).unwrap().to_vec().unwrap(),
        reference(&v[..9000], f64_key),
        "flattened"
    );
}

/// The same bits on every run, and the input left as it was.
#[test]
fn deterministic_and_input_kept() {
    require_dtype!(f64);
    let mut rng = Rng::new(68);
    let n = 30_011;
    let v: Vec<f64> = (0..n).map(|_| rng.int(-3, 3)).collect();
    let x = dev().from_slice(&v, [n]).unwrap();
    let first: Vec<u64> = x
        .sort()
        .unwrap()
        .to_vec()
        .unwrap()
        .iter()
        .map(|f| f.to_bits())
        .collect();
    for _ in 0..3 {
        let again: Vec<u64> = x
            .sort()
            .unwrap()
            .to_vec()
            .unwrap()
            .iter()
            .map(|f| f.to_bits())
            .collect();
        assert_eq!(again, first);
    }
    assert_eq!(x.to_vec().unwrap(), v, "the input is unchanged");
}

/// top_k with a large k sorts the row largest first (the argsort with every key inverted):
/// the skipped passes see the inverted keys. Against the stable reference (ties by lower
/// index), the path without skipping and the onesweep form.
#[test]
fn top_k_largest_first() {
    require_dtype!(i64);
    let others = other_devs();
    let mut rng = Rng::new(69);
    let n = 20_011;
    let k = 5000;
    let v: Vec<i64> = (0..n)
        .map(|_| 5_000_000_000 + rng.int(-900, 900) as i64)
        .collect();
    let mut idx: Vec<usize> = (0..n).collect();
    idx.sort_by_key(|&i| std::cmp::Reverse(v[i]));
    let want: Vec<i64> = idx[..k].iter().map(|&i| i as i64).collect();
    let vals: Vec<i64> = idx[..k].iter().map(|&i| v[i]).collect();
    let all = std::iter::once(("skipping", dev())).chain(others.iter().map(|(s, d)| (*s, d)));
    for (name, d) in all {
        let x = d.from_slice(&v, [n]).unwrap();
        let (tv, ti) = x.top_k(k, 0, true).unwrap();
        assert_eq!(ti.to_vec().unwrap(), want, "top_k indices ({name})");
        assert_eq!(tv.to_vec().unwrap(), vals, "top_k values ({name})");
    }
}

/// Empty, one-element and short rows (the bitonic sort's) and rows just past a bitonic row
/// and past sixteen tiles of the onesweep form, on every device: f64 with NaNs,
/// infinities and zeros of both signs, i64 with its extremes; all equal and reversed.
#[test]
fn sizes_on_every_path() {
    require_dtype!(f64);
    require_dtype!(i64);
    let others = other_devs();
    let mut rng = Rng::new(70);
    for n in [0usize, 1, 2, 17, 4096, 4097, 1025 * 16 + 3] {
        let f: Vec<f64> = (0..n)
            .map(|i| match i % 7 {
                0 => f64::NAN,
                1 => -0.0,
                2 => f64::NEG_INFINITY,
                3 => f64::INFINITY,
                _ => rng.uniform(-5.0, 5.0),
            })
            .collect();
        check(&f, f64_key, f64::to_bits, &others, "f64 specials");
        let i: Vec<i64> = (0..n)
            .map(|k| match k % 5 {
                0 => i64::MIN,
                1 => i64::MAX,
                _ => rng.int(-3, 3) as i64,
            })
            .collect();
        let key = |x: i64| (x as u64) ^ 1 << 63;
        check(&i, key, |x| x as u64, &others, "i64 extremes");
        let same = vec![2.5f64; n];
        check(&same, f64_key, f64::to_bits, &others, "f64 all equal");
        let rev: Vec<i64> = (0..n as i64).rev().map(|k| k - 40).collect();
        check(&rev, key, |x| x as u64, &others, "i64 reversed");
    }
}

/// The measuring switch `GPUARRAY_SORT64_SCATTER` of the keys-only sort (read once a
/// process; 1, the default: `scatter64s` with the plain digits; 2: the same without them;
/// 3: `scatter64` with them; 0: session 19's `scatter64`) gives the same bits in every
/// mode: this process's mode here, then modes 0, 2 and 3 in child processes that run this
/// test alone.
/// Data with the plain digits (normal f64, i64 across zero), without them (-0.0 and NaN
/// among the values; a narrow range, sorted as key - min), and top_k's descending argsort.
#[test]
fn every_scatter_mode() {
    require_dtype!(f64);
    require_dtype!(i64);
    let mut rng = Rng::new(71);
    let n = 20_011;
    let normal: Vec<f64> = (0..n).map(|_| rng.uniform(-3.0, 3.0)).collect();
    let odd: Vec<f64> = (0..n)
        .map(|i| match i % 13 {
            0 => -0.0,
            1 => f64::NAN,
            2 => 0.0,
            _ => rng.uniform(-3.0, 3.0),
        })
        .collect();
    let narrow: Vec<f64> = (0..n).map(|_| 1e6 + rng.uniform(0.0, 1.0)).collect();
    for (what, v) in [("normal", &normal), ("odd", &odd), ("narrow", &narrow)] {
        check(v, f64_key, f64::to_bits, &[], &format!("f64 {what}"));
    }
    let ints: Vec<i64> = (0..n)
        .map(|_| rng.int(-1_000_000, 1_000_000) as i64)
        .collect();
    check(&ints, |x| (x as u64) ^ 1 << 63, |x| x as u64, &[], "i64");
    let k = 3000;
    let mut idx: Vec<usize> = (0..n).collect();
    idx.sort_by_key(|&i| std::cmp::Reverse(f64_key(normal[i])));
    let want: Vec<i64> = idx[..k].iter().map(|&i| i as i64).collect();
    let x = dev().from_slice(&normal, [n]).unwrap();
    let (_, ti) = x.top_k(k, 0, true).unwrap();
    assert_eq!(ti.to_vec().unwrap(), want, "top_k indices");
    if std::env::var_os("GPUARRAY_SORT64_SCATTER").is_some() {
        return;
    }
    for mode in ["0", "2", "3"] {
        let exe = std::env::current_exe().expect("the test binary");
        let run = std::process::Command::new(exe)
            .args(["--exact", "every_scatter_mode", "--test-threads=1"])
            .env("GPUARRAY_SORT64_SCATTER", mode)
            .output()
            .expect("a child process");
        let text = String::from_utf8_lossy(&run.stdout);
        assert!(
            run.status.success() && text.contains("1 passed"),
            "mode {mode}: {text}\n{}",
            String::from_utf8_lossy(&run.stderr)
        );
    }
}
