//! `Generator::integers` of i64 and u64 against an exact CPU model (Philox4x32-10 and
//! Lemire's method over 64-bit words, redraws from each element's private stream): every
//! element bit for bit, ranges small, wide, of 2^64 and with frequent redraws.

use crate::common::philox::philox;
use crate::common::{dev, Rng};
use crate::{down, Int64, SIZES};
use gpuarray::Error;

/// Element e (0 or 1) of block `c` of the draws of `seed` in [low, low + r) (r = 0: 2^64).
fn model(seed: u64, c: u64, e: usize, low: u64, r: u64) -> u64 {
    let key = [seed as u32, (seed >> 32) as u32];
    let w = philox([c as u32, (c >> 32) as u32, 0, 0], key);
    let x = w[2 * e] as u64 | (w[2 * e + 1] as u64) << 32;
    if r == 0 {
        return low.wrapping_add(x);
    }
    let mut m = x as u128 * r as u128;
    if (m as u64) < r {
        let t = r.wrapping_neg() % r;
        let mut k = 0;
        while k < 64 && (m as u64) < t {
            let p = philox([c as u32, (c >> 32) as u32, k, 1 + e as u32], key);
            m = (p[0] as u64 | (p[1] as u64) << 32) as u128 * r as u128;
            k += 1;
        }
    }
    low.wrapping_add((m >> 64) as u64)
}

/// A draw of `n` in [low, high) from a fresh generator of `seed`, then a second one of 5,
/// against the model; the counter advanced by whole blocks of two.
#[track_caller]
fn check<T: Int64>(seed: u64, n: usize, low: T, high: T) {
    let mut rng = dev().default_rng(seed);
    let got = down(&rng.integers::<T>([n], low, high).unwrap());
    let r = high.bits().wrapping_sub(low.bits());
    let want: Vec<T> = (0..n)
        .map(|i| T::from_bits(model(seed, (i / 2) as u64, i % 2, low.bits(), r)))
        .collect();
    assert_eq!(got, want, "{} n={n} [{low:?}, {high:?})", T::DTYPE);
    assert!(got.iter().all(|v| *v >= low && *v < high));
    let blocks = n.div_ceil(2) as u64;
    assert_eq!(rng.counter(), blocks);
    let next = down(&rng.integers::<T>([5], low, high).unwrap());
    let want: Vec<T> = (0..5)
        .map(|i| T::from_bits(model(seed, blocks + (i / 2) as u64, i % 2, low.bits(), r)))
        .collect();
    assert_eq!(next, want, "second draw");
}

fn ranges<T: Int64>() {
    for n in SIZES {
        check::<T>(7, n, T::from_bits(3), T::from_bits(10));
    }
    let wide = T::from_bits(1 << 40);
    check::<T>(8, 1031, T::MIN, T::MAX); // 2^64 - 1 values
    check::<T>(9, 257, T::from_bits(0), wide);
    check::<T>(10, 257, T::MAX.wadd(T::from_bits(u64::MAX - 9)), T::MAX); // the top 10
                                                                          // A range just past 2^63: about half the first words are redrawn.
    check::<T>(
        11,
        4099,
        T::MIN,
        T::from_bits(T::MIN.bits().wrapping_add((1 << 63) + 1)),
    );
    // Every value of a small range comes up.
    let d = down(
        &dev()
            .default_rng(12)
            .integers::<T>([2000], T::from_bits(5), T::from_bits(9))
            .unwrap(),
    );
    for v in 5..9u64 {
        let c = d.iter().filter(|x| x.bits() == v).count();
        assert!((400..600).contains(&c), "{v} came up {c} times of 2000");
    }
    // A multi-dimensional shape: the same elements in C order.
    let a = dev()
        .default_rng(13)
        .integers::<T>([3, 7], T::MIN, T::MAX)
        .unwrap();
    let b = dev()
        .default_rng(13)
        .integers::<T>([21], T::MIN, T::MAX)
        .unwrap();
    assert_eq!(a.shape(), &[3, 7]);
    assert_eq!(down(&a), down(&b));
}

fn bad_ranges<T: Int64>() {
    let mut rng = dev().default_rng(14);
    for (lo, hi) in [(T::from_bits(5), T::from_bits(5)), (T::MAX, T::MIN)] {
        assert!(matches!(
            rng.integers::<T>([3], lo, hi),
            Err(Error::InvalidArgument { .. })
        ));
    }
    // A failed draw advances nothing.
    assert_eq!(rng.counter(), 0);
}

/// The i64 range of the full signed span and a negative one, which the generic cases
/// (written over the bits) see as u64 too.
#[test]
fn signed_ranges() {
    crate::require_dtype!(i64);
    check::<i64>(15, 513, -1_000_000_000_000, -999_999_999_000);
    check::<i64>(16, 100, -(1 << 62), 1 << 62);
    let mut r = Rng::new(17);
    let lo = -((r.next_u64() >> 2) as i64);
    check::<i64>(17, 64, lo, lo + 1);
}

crate::per_dtype! {
    [i64_: i64, u64_: u64] => {
        ranges => super::ranges::<T>();
        bad_ranges => super::bad_ranges::<T>();
    }
}
