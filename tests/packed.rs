//! The packed small integers (u8, i8, u16, i16; four or two per u32 word): transfers,
//! creation, printing, casts with every dtype, elementwise operations, reductions and the
//! refusals of the other families, each against a CPU reference on random data, the types'
//! extremes, awkward sizes (0, 1, 3, 5, primes: partial last words) and offset views.

mod common;

use common::{dev, Rng};
use gpuarray::{Array, DType, Element, Error, Slice};

/// Sizes with every remainder modulo 4, primes among them.
const SIZES: [usize; 8] = [0, 1, 2, 3, 5, 7, 13, 257];

/// The packed element types through one generic body.
trait Small: Element + Copy + std::fmt::Debug + PartialEq {
    const MIN: i64;
    const MAX: i64;
    fn of(v: i64) -> Self;
    fn int(self) -> i64;
}

macro_rules! small {
    ($($t:ty),*) => {$(
        impl Small for $t {
            const MIN: i64 = <$t>::MIN as i64;
            const MAX: i64 = <$t>::MAX as i64;
            fn of(v: i64) -> Self { v as $t }
            fn int(self) -> i64 { self as i64 }
        }
    )*};
}
small!(u8, i8, u16, i16);

/// `n` random values of `T` with both extremes and 0 among them (where there is room).
fn values<T: Small>(rng: &mut Rng, n: usize) -> Vec<T> {
    let mut v: Vec<T> = (0..n).map(|_| T::of(rng.int(T::MIN, T::MAX) as i64)).collect();
    for (k, x) in [T::MIN, T::MAX, 0, 1, -1].iter().enumerate() {
        if k < n / 3 {
            v[k * 3] = T::of(*x);
        }
    }
    v
}

fn round_trip<T: Small>() {
    let d = dev();
    let mut rng = Rng::new(1);
    for n in SIZES {
        let v = values::<T>(&mut rng, n);
        let a = d.from_slice(&v, [n]).unwrap();
        assert_eq!(a.to_vec().unwrap(), v, "{} n={n}", T::DTYPE);
        if n > 2 {
            // An offset view (not on a word boundary) and a strided one.
            let s = a.slice(1..).unwrap();
            assert_eq!(s.to_vec().unwrap(), v[1..].to_vec());
            let r = a.slice(Slice::from(..).step(2)).unwrap();
            let want: Vec<T> = v.iter().step_by(2).copied().collect();
            assert_eq!(r.to_vec().unwrap(), want);
            assert_eq!(s.contiguous().unwrap().to_vec().unwrap(), v[1..].to_vec());
        }
    }
}

#[test]
fn transfers_round_trip_with_views() {
    round_trip::<u8>();
    round_trip::<i8>();
    round_trip::<u16>();
    round_trip::<i16>();
}
