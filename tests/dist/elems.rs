//! The dtypes under test: random values (special ones included), bit patterns to compare
//! (every NaN alike) and the reference arithmetic of the reductions, written out here
//! (rank order, the dtype's own arithmetic) rather than borrowed from the crate.

use gpuarray::dist::{Comm, ReduceOp};
use gpuarray::{f16, Array, Complex, Element};

use crate::common::{self, Rng};

pub trait Elem: Element + Copy + std::fmt::Debug + PartialEq {
    fn make(r: &mut Rng) -> Self;
    /// The bit pattern, every NaN mapped to one value.
    fn key(self) -> u128;
    /// `a op b` in the dtype's arithmetic; `None` where the op is refused.
    fn op(o: ReduceOp, a: Self, b: Self) -> Option<Self>;
}

macro_rules! float {
    ($t:ty, $bits:ty) => {
        impl Elem for $t {
            fn make(r: &mut Rng) -> Self {
                match r.next_u64() % 40 {
                    0 => <$t>::NAN,
                    1 => <$t>::INFINITY,
                    2 => -0.0,
                    _ => r.uniform(-4.0, 4.0) as $t,
                }
            }
            fn key(self) -> u128 {
                if self.is_nan() {
                    u128::MAX
                } else {
                    self.to_bits() as $bits as u128
                }
            }
            fn op(o: ReduceOp, a: Self, b: Self) -> Option<Self> {
                Some(match o {
                    ReduceOp::Sum => a + b,
                    ReduceOp::Prod => a * b,
                    ReduceOp::Min => {
                        if a.is_nan() || b.is_nan() {
                            <$t>::NAN
                        } else if b < a {
                            b
                        } else {
                            a
                        }
                    }
                    ReduceOp::Max => {
                        if a.is_nan() || b.is_nan() {
                            <$t>::NAN
                        } else if b > a {
                            b
                        } else {
                            a
                        }
                    }
                })
            }
        }
    };
}
float!(f32, u32);
float!(f64, u64);

impl Elem for f16 {
    fn make(r: &mut Rng) -> Self {
        f16::from_f32(f32::make(r))
    }
    fn key(self) -> u128 {
        if self.is_nan() {
            u128::MAX
        } else {
            self.to_bits() as u128
        }
    }
    fn op(o: ReduceOp, a: Self, b: Self) -> Option<Self> {
        let (x, y) = (a.to_f64(), b.to_f64());
        // f16 arithmetic: the exact result (exact in f64 for + and *) rounded once.
        Some(match o {
            ReduceOp::Sum => f16::from_f64(x + y),
            ReduceOp::Prod => f16::from_f64(x * y),
            ReduceOp::Min => f16::from_f64(f64::op(o, x, y).unwrap()),
            ReduceOp::Max => f16::from_f64(f64::op(o, x, y).unwrap()),
        })
    }
}

macro_rules! int {
    ($t:ty, $lo:expr, $hi:expr) => {
        impl Elem for $t {
            fn make(r: &mut Rng) -> Self {
                r.int($lo, $hi) as i64 as $t
            }
            fn key(self) -> u128 {
                self as i128 as u128
            }
            fn op(o: ReduceOp, a: Self, b: Self) -> Option<Self> {
                Some(match o {
                    ReduceOp::Sum => a.wrapping_add(b),
                    ReduceOp::Prod => a.wrapping_mul(b),
                    ReduceOp::Min => a.min(b),
                    ReduceOp::Max => a.max(b),
                })
            }
        }
    };
}
int!(i32, -2_000_000_000, 2_000_000_000);
int!(u32, 0, 4_000_000_000);
int!(i64, -(1 << 40), 1 << 40);
int!(u8, 0, 255);
int!(i16, -32768, 32767);

impl Elem for bool {
    fn make(r: &mut Rng) -> Self {
        r.bool(0.5)
    }
    fn key(self) -> u128 {
        self as u128
    }
    fn op(o: ReduceOp, a: Self, b: Self) -> Option<Self> {
        match o {
            ReduceOp::Min => Some(a && b),
            ReduceOp::Max => Some(a || b),
            _ => None,
        }
    }
}

macro_rules! complex {
    ($t:ty) => {
        impl Elem for Complex<$t> {
            fn make(r: &mut Rng) -> Self {
                Complex::new(r.uniform(-2.0, 2.0) as $t, r.uniform(-2.0, 2.0) as $t)
            }
            fn key(self) -> u128 {
                ((self.re.key() as u128) << 64) ^ self.im.key()
            }
            fn op(o: ReduceOp, a: Self, b: Self) -> Option<Self> {
                match o {
                    ReduceOp::Sum => Some(Complex::new(a.re + b.re, a.im + b.im)),
                    ReduceOp::Prod => Some(Complex::new(
                        a.re * b.re - a.im * b.im,
                        a.re * b.im + a.im * b.re,
                    )),
                    _ => None,
                }
            }
        }
    };
}
complex!(f32);
complex!(f64);

/// The data of rank `rank` for test `seed`: `n` values.
pub fn data<T: Elem>(seed: u64, rank: usize, n: usize) -> Vec<T> {
    let mut r = Rng::new(seed * 1000 + rank as u64);
    (0..n).map(|_| T::make(&mut r)).collect()
}

#[track_caller]
pub fn assert_same<T: Elem>(got: &[T], want: &[T], what: &str) {
    assert_eq!(got.len(), want.len(), "{what}: lengths");
    for (i, (g, w)) in got.iter().zip(want).enumerate() {
        assert_eq!(
            g.key(),
            w.key(),
            "{what}: element {i}: got {g:?}, want {w:?}"
        );
    }
}

/// Whether the communicator's device takes `T` (every rank has the same kind of device,
/// so every rank answers alike); rank 0 records the skip.
pub fn takes<T: Elem>(comm: &Comm) -> bool {
    let ok = common::supported::<T>(comm.device());
    if !ok && comm.rank() == 0 {
        common::skip(&format!(
            "{:?} is not supported on {}",
            T::DTYPE,
            comm.device().info().name
        ));
    }
    ok
}

/// A row-major host copy of a transposed (strided) view's data.
pub fn transposed<T: Copy>(v: &[T], rows: usize, cols: usize) -> Vec<T> {
    let mut out = Vec::with_capacity(v.len());
    for c in 0..cols {
        for r in 0..rows {
            out.push(v[r * cols + c]);
        }
    }
    out
}

/// Runs `$body` once per dtype with `T` bound to it, where the device takes it.
#[macro_export]
macro_rules! each_dtype {
    ($comm:expr, $f:ident) => {{
        use gpuarray::{f16, Complex};
        macro_rules! one {
            ($t:ty) => {
                if $crate::elems::takes::<$t>($comm) {
                    $f::<$t>($comm);
                }
            };
        }
        one!(f32);
        one!(f64);
        one!(f16);
        one!(i32);
        one!(u32);
        one!(i64);
        one!(u8);
        one!(i16);
        one!(bool);
        one!(Complex<f32>);
        one!(Complex<f64>);
    }};
}

pub fn upload<T: Elem>(comm: &Comm, v: &[T], shape: &[usize]) -> Array<T> {
    comm.device().from_slice(v, shape.to_vec()).expect("upload")
}
