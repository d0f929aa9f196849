//! `Array::cast` between every pair of dtypes, bit for bit against Rust's `as` on the CPU
//! (floats to integers truncate, saturate and give 0 for NaN; integers to floats and floats
//! to narrower floats round once to nearest, ties to even, overflowing to infinity). f16,
//! which `as` does not reach, converts through `half` from f64 or f32 values that hold the
//! source exactly, so it too is rounded once. Inputs: special values (zeros, infinities,
//! NaN, the extremes of every type, the rounding boundaries 65504/65520, 2^24 + 1, 2^31,
//! 2^32, subnormals) and random bit patterns (every f16 pattern).

use gpuarray::{f16, Real};

use crate::common::{dev, host, supported, Rng};
use crate::sweep::flushes;

/// The special values every source type is tried on (converted to it first).
const SPECIAL: [f64; 40] = [
    0.0,
    -0.0,
    0.5,
    -0.5,
    0.999_999_9,
    -0.999_999_9,
    1.0,
    -1.0,
    1.5,
    -2.5,
    65503.0,
    65504.0,
    -65504.0,
    65519.0,
    -65519.0,
    65520.0,
    -65520.0,
    65536.0,
    -65537.0,
    16_777_217.0,
    -16_777_217.0,
    2_147_483_520.0,
    2_147_483_647.0,
    2_147_483_648.0,
    -2_147_483_648.0,
    -2_147_483_649.0,
    4_294_967_040.0,
    4_294_967_295.0,
    4_294_967_296.0,
    3.4028234663852886e38,
    3.4028235677973366e38,
    -3.4028235677973366e38,
    1e300,
    -1e300,
    1e-40,
    -1e-40,
    5e-324,
    f64::INFINITY,
    f64::NEG_INFINITY,
    f64::NAN,
];

/// Same value: both NaN, or the same bits (zeros by sign).
fn same(a: f64, b: f64) -> bool {
    (a.is_nan() && b.is_nan()) || a.to_bits() == b.to_bits()
}

/// A source type: its random values and Rust's `as` into each target, as f64.
trait Source: Real {
    fn random(rng: &mut Rng) -> Self;
    fn to_f16(self) -> f16;
    fn to_f32(self) -> f32;
    fn to_f64_as(self) -> f64;
    fn to_i32(self) -> i32;
    fn to_u32(self) -> u32;
}

macro_rules! source {
    ($t:ty, $random:expr, $f16:expr) => {
        impl Source for $t {
            fn random(rng: &mut Rng) -> $t {
                $random(rng)
            }
            fn to_f16(self) -> f16 {
                $f16(self)
            }
            fn to_f32(self) -> f32 {
                self as f32
            }
            fn to_f64_as(self) -> f64 {
                self as f64
            }
            fn to_i32(self) -> i32 {
                self as i32
            }
            fn to_u32(self) -> u32 {
                self as u32
            }
        }
    };
}

source!(
    f32,
    |r: &mut Rng| f32::from_bits(r.next_u64() as u32),
    f16::from_f32
);
source!(
    f64,
    |r: &mut Rng| f64::from_bits(r.next_u64()),
    f16::from_f64
);
// Integers hold exactly in f64, from which half rounds once.
source!(i32, |r: &mut Rng| r.next_u64() as i32, |v| f16::from_f64(
    v as f64
));
source!(u32, |r: &mut Rng| r.next_u64() as u32, |v| f16::from_f64(
    v as f64
));

impl Source for f16 {
    fn random(rng: &mut Rng) -> f16 {
        f16::from_bits(rng.next_u64() as u16)
    }
    fn to_f16(self) -> f16 {
        self
    }
    fn to_f32(self) -> f32 {
        f16::to_f32(self)
    }
    fn to_f64_as(self) -> f64 {
        f16::to_f64(self)
    }
    fn to_i32(self) -> i32 {
        f16::to_f32(self) as i32
    }
    fn to_u32(self) -> u32 {
        f16::to_f32(self) as u32
    }
}

/// The inputs of source `S`: the special values as `S` (as Rust's `as` takes them there),
/// every f16 bit pattern or 20,000 random ones, each also negated for floats.
fn inputs<S: Source>(seed: u64) -> Vec<S> {
    let mut v: Vec<S> = SPECIAL.iter().map(|&x| S::from_f64(x)).collect();
    let mut rng = Rng::new(seed);
    if S::DTYPE == gpuarray::DType::F16 {
        v.extend((0..=u16::MAX).map(|b| S::from_f64(f16::from_bits(b).to_f64())));
    } else {
        v.extend((0..20_000).map(|_| S::random(&mut rng)));
        // Values near the integer limits, where saturation and rounding meet.
        v.extend((0..2_000).map(|_| S::from_f64(rng.uniform(-5e9, 5e9))));
    }
    v
}

/// Whether `x` or the expected result `e` lies below f16's normal range (left out where
/// the device flushes subnormals: a subnormal of f16, f32 or f64 may read as 0 there).
fn tiny(x: f64, e: f64) -> bool {
    [x, e].iter().any(|&v| v != 0.0 && v.abs() < 6.2e-5)
}

fn check_from<S: Source>(seed: u64) {
    require!(supported::<S>(dev()), "{:?} unsupported", S::DTYPE);
    let xs = inputs::<S>(seed);
    let a = dev().from_slice(&xs, [xs.len()]).unwrap();
    // The vec4 path (length a multiple of 4) and the scalar path (a stepped view).
    let n4 = xs.len() / 4 * 4;
    let whole = a.slice_axis(0, 0..n4).unwrap();
    let odd = a.slice_axis(0, 1..xs.len()).unwrap();
    let flush = flushes::<f32>() || (dev().supports::<f16>() && flushes::<f16>());
    let run = |to: &str, got: Vec<f64>, first: usize, expect: &dyn Fn(S) -> f64| {
        for (k, g) in got.iter().enumerate() {
            let x = xs[first + k];
            let e = expect(x);
            if flush && tiny(x.to_f64(), e) {
                continue;
            }
            assert!(
                same(*g, e),
                "{:?} {:e} as {to}: got {g:e}, expected {e:e}",
                S::DTYPE,
                x.to_f64()
            );
        }
    };
    for (view, first) in [(&whole, 0), (&odd, 1)] {
        if dev().supports::<f16>() {
            run("f16", host(&view.cast::<f16>().unwrap()), first, &|x| {
                x.to_f16().to_f64()
            });
        }
        run("f32", host(&view.cast::<f32>().unwrap()), first, &|x| {
            x.to_f32() as f64
        });
        if dev().supports::<f64>() {
            run("f64", host(&view.cast::<f64>().unwrap()), first, &|x| {
                x.to_f64_as()
            });
        }
        run("i32", host(&view.cast::<i32>().unwrap()), first, &|x| {
            x.to_i32() as f64
        });
        run("u32", host(&view.cast::<u32>().unwrap()), first, &|x| {
            x.to_u32() as f64
        });
    }
}

#[test]
fn casts_from_f16_as_rust() {
    check_from::<f16>(1);
}

#[test]
fn casts_from_f32_as_rust() {
    check_from::<f32>(2);
}

#[test]
fn casts_from_f64_as_rust() {
    check_from::<f64>(3);
}

#[test]
fn casts_from_i32_as_rust() {
    check_from::<i32>(4);
}

#[test]
fn casts_from_u32_as_rust() {
    check_from::<u32>(5);
}

/// Finding 8 of issue 15: f16 -inf cast to i32 gave -65504.
#[test]
fn f16_infinities_saturate_to_the_integer_limits() {
    require_dtype!(f16);
    let x = dev()
        .from_slice(
            &[
                f16::NEG_INFINITY,
                f16::INFINITY,
                f16::NAN,
                f16::from_f32(-65504.0),
            ],
            [4],
        )
        .unwrap();
    assert_eq!(
        x.cast::<i32>().unwrap().to_vec().unwrap(),
        vec![i32::MIN, i32::MAX, 0, -65504]
    );
    assert_eq!(
        x.cast::<u32>().unwrap().to_vec().unwrap(),
        vec![0, u32::MAX, 0, 0]
    );
}
