//! The 64-bit integers (i64, u64) through the families that take them where the adapter has
//! SHADER_INT64: sort, argsort, searchsorted, unique (`sort`), cumsum, cumprod (`scan`),
//! bincount, scatter_add, `Generator::integers`, matmul and dot (`products`), and the user
//! kernels with 64-bit arrays and scalars, f64 scalars included (`custom`). Every result is
//! compared exactly with a CPU reference in the same type (wrapping where the GPU wraps),
//! on random data over the whole range, the extremes, sizes 0, 1, primes and past one
//! workgroup, and strided and transposed views. Each test passes through
//! `require_dtype!`, which records a skip on adapters without SHADER_INT64; `gate` checks
//! that such an adapter refuses them with typed errors.

#[path = "../common/mod.rs"]
mod common;

mod custom;
mod gate;
mod integers;
mod products;
mod scan;
mod scatter;
mod sort;

use common::Rng;
use gpuarray::{Array, Element};

/// A 64-bit integer type of the tests: exact, wrapping arithmetic (its extremes: `Int`'s
/// `MIN` and `MAX`).
pub trait Int64:
    gpuarray::Int + gpuarray::custom::KernelArg + Ord + Copy + std::fmt::Debug + std::hash::Hash
{
    fn from_bits(b: u64) -> Self;
    fn bits(self) -> u64;
    fn wadd(self, o: Self) -> Self;
    fn wmul(self, o: Self) -> Self;
}

impl Int64 for i64 {
    fn from_bits(b: u64) -> i64 {
        b as i64
    }
    fn bits(self) -> u64 {
        self as u64
    }
    fn wadd(self, o: i64) -> i64 {
        self.wrapping_add(o)
    }
    fn wmul(self, o: i64) -> i64 {
        self.wrapping_mul(o)
    }
}

impl Int64 for u64 {
    fn from_bits(b: u64) -> u64 {
        b
    }
    fn bits(self) -> u64 {
        self
    }
    fn wadd(self, o: u64) -> u64 {
        self.wrapping_add(o)
    }
    fn wmul(self, o: u64) -> u64 {
        self.wrapping_mul(o)
    }
}

/// `n` values over the whole range with the extremes, 0, ±1 and values around 2^32 mixed
/// in (the word boundary of the two-word keys and carries).
pub fn wide_values<T: Int64>(rng: &mut Rng, n: usize) -> Vec<T> {
    let special = [
        T::MIN.bits(),
        T::MAX.bits(),
        0,
        1,
        u64::MAX,
        0xffff_ffff,
        1 << 32,
        (1 << 32) + 1,
        0x8000_0000,
        0xffff_ffff_0000_0000,
    ];
    (0..n)
        .map(|i| {
            let b = match rng.next_u64() % 4 {
                0 => special[i % special.len()],
                1 => rng.next_u64() % 16,
                _ => rng.next_u64(),
            };
            T::from_bits(b)
        })
        .collect()
}

/// `n` values in [0, hi) (small: many repeats).
pub fn small_values<T: Int64>(rng: &mut Rng, n: usize, hi: u64) -> Vec<T> {
    (0..n).map(|_| T::from_bits(rng.next_u64() % hi)).collect()
}

/// The sizes of the 1-D cases: 0, 1, primes, and past one workgroup (and past the longest
/// row one workgroup sorts).
pub const SIZES: [usize; 9] = [0, 1, 2, 7, 31, 257, 1031, 4099, 20011];

/// Downloads `a`.
#[track_caller]
pub fn down<T: Element>(a: &Array<T>) -> Vec<T> {
    a.to_vec().expect("to_vec")
}
