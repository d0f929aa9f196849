//! `rem` (Rust's `%`, C's `fmod`), `remainder` (NumPy's `mod`) and `floor_divide`, bit for
//! bit against CPU references: `rem` against Rust's `%` (exact for every finite input) over
//! the sweep's values paired with a shuffle of themselves, `remainder` and `floor_divide`
//! against NumPy's algorithm run on the CPU in the same precision (f32 for f16 and f32), and
//! all three against NumPy's own results over a cross product of special values
//! (golden/remainder.py made golden/remainder_golden.rs). Integers: against NumPy's rules
//! (0 for a zero divisor, i32::MIN // -1 wrapping) over random values and the extremes.

use gpuarray::{f16, Array, Real, Result};

use crate::common::{dev, Rng};
use crate::sweep::{flushes, Swept};

#[path = "golden/remainder_golden.rs"]
#[rustfmt::skip]
mod golden;

/// Same value: both NaN, or the same bits (zeros by sign).
fn same(a: f64, b: f64) -> bool {
    (a.is_nan() && b.is_nan()) || a.to_bits() == b.to_bits()
}

/// NumPy's npy_divmod in the precision of `$t`: (remainder, floor_divide) from the exact
/// fmod `m`.
macro_rules! numpy_divmod {
    ($name:ident, $t:ty) => {
        fn $name(a: $t, b: $t) -> ($t, $t) {
            let m = a % b;
            if b == 0.0 {
                return (m, a / b);
            }
            let mut div = (a - m) / b;
            let mut md = m;
            if m != 0.0 {
                if (b < 0.0) != (m < 0.0) {
                    md += b;
                    div -= 1.0;
                }
            } else {
                md = (0.0 as $t).copysign(b);
            }
            let fd = if div != 0.0 {
                let f = div.floor();
                if div - f > 0.5 {
                    f + 1.0
                } else {
                    f
                }
            } else {
                (0.0 as $t).copysign(a / b)
            };
            (md, fd)
        }
    };
}
numpy_divmod!(divmod_f32, f32);
numpy_divmod!(divmod_f64, f64);

/// The references of one float type: (fmod, remainder, floor_divide) of `x` and `y`,
/// computed as NumPy computes them (f16 in f32, rounded once).
trait Refs: Swept {
    fn refs(x: Self, y: Self) -> [Self; 3];
}

impl Refs for f32 {
    fn refs(x: f32, y: f32) -> [f32; 3] {
        let (m, f) = divmod_f32(x, y);
        [x % y, m, f]
    }
}

impl Refs for f64 {
    fn refs(x: f64, y: f64) -> [f64; 3] {
        let (m, f) = divmod_f64(x, y);
        [x % y, m, f]
    }
}

impl Refs for f16 {
    fn refs(x: f16, y: f16) -> [f16; 3] {
        let r = f32::refs(x.to_f32(), y.to_f32());
        r.map(f16::from_f32)
    }
}

type Op<T> = fn(&Array<T>, &Array<T>) -> Result<Array<T>>;

const OPS: [&str; 3] = ["rem", "remainder", "floor_divide"];

fn ops<T: Real>() -> [Op<T>; 3] {
    [Array::rem, Array::remainder, Array::floor_divide]
}

/// Whether a pair or its result touches the subnormal range of `T` (left out where the
/// device flushes subnormals: Vulkan allows it, and DeviceInfo says it).
fn subnormal<T: Swept>(v: f64) -> bool {
    v != 0.0 && v.abs() < T::MIN_NORMAL
}

/// Checks all three operations of `xs` and `ys` against `expected` (per pair, per op), on
/// the whole arrays (the vec4 path where the length is a multiple of 4) and on all but the
/// last pair (the scalar path). Returns how many pairs it compared.
#[track_caller]
fn check<T: Swept>(what: &str, xs: &[T], ys: &[T], expected: &dyn Fn(usize) -> [f64; 3]) -> usize {
    let flush = flushes::<T>();
    let mut compared = 0;
    for n in [xs.len(), xs.len().saturating_sub(1)] {
        let a = dev().from_slice(&xs[..n], [n]).unwrap();
        let b = dev().from_slice(&ys[..n], [n]).unwrap();
        for (k, op) in ops::<T>().iter().enumerate() {
            let got = op(&a, &b).unwrap().to_vec().unwrap();
            for i in 0..n {
                let (x, y, g) = (xs[i].to_f64(), ys[i].to_f64(), got[i].to_f64());
                let e = expected(i)[k];
                // The exact fmod is the intermediate of remainder and floor_divide: a subnormal
                // one reads as 0 there too (the H100: remainder(6.6e-36, -1.39e-38) gave -0).
                let fmod = expected(i)[0];
                if flush && [x, y, e, fmod].into_iter().any(subnormal::<T>) {
                    continue;
                }
                compared += 1;
                assert!(
                    same(g, e),
                    "{what} {}({}) of {x:e}, {y:e} (n = {n}): got {g:e}, expected {e:e}",
                    OPS[k],
                    T::NAME
                );
            }
        }
    }
    compared
}

/// The sweep's inputs paired with a shuffle of themselves (every magnitude against every
/// other, so quotients from 2^-300 to 2^300 and the long divisions they need), plus pairs
/// with |x / y| below 1000 (the common case) and integers.
fn pairs<T: Swept>(seed: u64) -> (Vec<T>, Vec<T>) {
    let xs = T::inputs();
    let mut ys = xs.clone();
    let mut rng = Rng::new(seed);
    for i in (1..ys.len()).rev() {
        ys.swap(i, (rng.next_u64() % (i as u64 + 1)) as usize);
    }
    let (mut xs, mut ys) = (xs, ys);
    for _ in 0..20_000 {
        let y = rng.uniform(-10.0, 10.0);
        xs.push(T::from_f64(y * rng.uniform(-1000.0, 1000.0)));
        ys.push(T::from_f64(y));
        xs.push(T::from_f64(rng.int(-5000, 5000)));
        ys.push(T::from_f64(rng.int(-50, 50)));
    }
    (xs, ys)
}

fn sweep<T: Refs>(seed: u64) {
    let (xs, ys) = pairs::<T>(seed);
    let refs: Vec<[f64; 3]> = xs
        .iter()
        .zip(&ys)
        .map(|(&x, &y)| T::refs(x, y).map(|v| v.to_f64()))
        .collect();
    let n = check("sweep", &xs, &ys, &|i| refs[i]);
    assert!(n >= 3 * 100_000, "{n} comparisons");
}

#[test]
fn remainders_f32_exact_over_the_sweep() {
    sweep::<f32>(15);
}

#[test]
fn remainders_f16_exact_over_every_value_against_a_shuffle() {
    require_dtype!(f16);
    sweep::<f16>(16);
}

#[test]
fn remainders_f64_exact_over_the_sweep() {
    require_dtype!(f64);
    sweep::<f64>(64);
}

/// NumPy's own fmod, remainder and floor_divide over the cross product of special values
/// (zeros of both signs, ±1, 1e10, 1e-30, the extremes, subnormals, infinities, NaN).
fn golden<T: Swept>(rows: &[[f64; 5]]) {
    let xs: Vec<T> = rows.iter().map(|r| T::from_f64(r[0])).collect();
    let ys: Vec<T> = rows.iter().map(|r| T::from_f64(r[1])).collect();
    check("golden", &xs, &ys, &|i| {
        [rows[i][2], rows[i][3], rows[i][4]]
    });
}

#[test]
fn remainders_f32_match_numpy_special_values() {
    let rows: Vec<[f64; 5]> = golden::FLOAT32
        .iter()
        .map(|r| r.map(|b| f32::from_bits(b) as f64))
        .collect();
    golden::<f32>(&rows);
}

#[test]
fn remainders_f64_match_numpy_special_values() {
    require_dtype!(f64);
    let rows: Vec<[f64; 5]> = golden::FLOAT64
        .iter()
        .map(|r| r.map(f64::from_bits))
        .collect();
    golden::<f64>(&rows);
}

/// Findings 3 and 13 of issue 15: `rem` gave 0 for 1e10 % 7, inf for -3.4e38 % -100 and
/// +0 for -1e10 % -100.
#[test]
fn rem_is_exact_for_large_quotients_and_keeps_the_sign_of_zero() {
    let x = dev()
        .from_slice(&[1e10f32, -3.4e38, -1e10, 3.4e38], [4])
        .unwrap();
    let y = dev()
        .from_slice(&[7.0f32, -100.0, -100.0, 1e-45], [4])
        .unwrap();
    let got = x.rem(&y).unwrap().to_vec().unwrap();
    assert_eq!(got[0], 4.0);
    assert_eq!(got[1], -3.4e38f32 % -100.0);
    assert_eq!(got[2].to_bits(), (-0.0f32).to_bits(), "{}", got[2]);
    if !flushes::<f32>() {
        assert_eq!(got[3], 0.0);
    }
    if dev().supports::<f64>() {
        let x = dev().from_slice(&[1.7e308f64, -1e300], [2]).unwrap();
        let got = x.rem_scalar(7.0).unwrap().to_vec().unwrap();
        assert_eq!(got, vec![1.7e308 % 7.0, -1e300 % 7.0]);
    }
}

/// The `_scalar` forms give what the two-array forms give.
#[test]
fn scalar_forms_match() {
    let xs = [-7.5f32, -0.0, 3.25, 1e10, -1e-30, f32::INFINITY];
    let a = dev().from_slice(&xs, [xs.len()]).unwrap();
    for s in [2.0f32, -2.0, 0.0, f32::NEG_INFINITY] {
        let b = dev().full([xs.len()], s).unwrap();
        let pairs: [(Array<f32>, Array<f32>); 3] = [
            (a.rem_scalar(s).unwrap(), a.rem(&b).unwrap()),
            (a.remainder_scalar(s).unwrap(), a.remainder(&b).unwrap()),
            (
                a.floor_divide_scalar(s).unwrap(),
                a.floor_divide(&b).unwrap(),
            ),
        ];
        for (k, (p, q)) in pairs.iter().enumerate() {
            let (p, q) = (p.to_vec().unwrap(), q.to_vec().unwrap());
            for i in 0..xs.len() {
                assert!(
                    same(p[i] as f64, q[i] as f64),
                    "{}_scalar({}, {s})",
                    OPS[k],
                    xs[i]
                );
            }
        }
    }
}

/// NumPy's integer remainder and floor_divide (i32 and u32 as i64 arithmetic).
fn int_refs(x: i64, y: i64, min: i64) -> (i64, i64) {
    if y == 0 {
        return (0, 0);
    }
    if x == min && y == -1 {
        return (0, min);
    }
    let (q, r) = (x / y, x % y);
    if r != 0 && ((r < 0) != (y < 0)) {
        (r + y, q - 1)
    } else {
        (r, q)
    }
}

fn int_case<T: Real>(values: &[i64], min: i64, seed: u64, random: impl Fn(&mut Rng) -> i64) {
    let mut rng = Rng::new(seed);
    let (mut xs, mut ys) = (Vec::new(), Vec::new());
    for &x in values {
        for &y in values {
            xs.push(x);
            ys.push(y);
        }
    }
    for _ in 0..10_001 {
        xs.push(random(&mut rng));
        ys.push(if rng.bool(0.5) {
            rng.int(-9, 9) as i64
        } else {
            random(&mut rng)
        });
    }
    let ys: Vec<i64> = ys
        .iter()
        .map(|&y| if min == 0 { y.abs() } else { y })
        .collect();
    let a = dev()
        .from_slice(
            &xs.iter()
                .map(|&v| T::from_f64(v as f64))
                .collect::<Vec<_>>(),
            [xs.len()],
        )
        .unwrap();
    let b = dev()
        .from_slice(
            &ys.iter()
                .map(|&v| T::from_f64(v as f64))
                .collect::<Vec<_>>(),
            [ys.len()],
        )
        .unwrap();
    let m = a.remainder(&b).unwrap().to_vec().unwrap();
    let f = a.floor_divide(&b).unwrap().to_vec().unwrap();
    for i in 0..xs.len() {
        let (em, ef) = int_refs(xs[i], ys[i], min);
        assert_eq!(m[i].to_f64() as i64, em, "remainder({}, {})", xs[i], ys[i]);
        assert_eq!(
            f[i].to_f64() as i64,
            ef,
            "floor_divide({}, {})",
            xs[i],
            ys[i]
        );
    }
}

#[test]
fn integer_remainder_and_floor_divide_as_numpy() {
    let min = i32::MIN as i64;
    let max = i32::MAX as i64;
    let values = [0, 1, -1, 2, -2, 7, -7, 100, -100, max, min, min + 1];
    int_case::<i32>(&values, min, 32, |r| r.next_u64() as i32 as i64);
    let values = [0, 1, 2, 7, 100, u32::MAX as i64, u32::MAX as i64 - 1];
    int_case::<u32>(&values, 0, 33, |r| r.next_u64() as u32 as i64);
    // NumPy's own table.
    let xs: Vec<i32> = golden::INT32.iter().map(|r| r[0]).collect();
    let ys: Vec<i32> = golden::INT32.iter().map(|r| r[1]).collect();
    let a = dev().from_slice(&xs, [xs.len()]).unwrap();
    let b = dev().from_slice(&ys, [ys.len()]).unwrap();
    let m = a.remainder(&b).unwrap().to_vec().unwrap();
    let f = a.floor_divide(&b).unwrap().to_vec().unwrap();
    for (i, r) in golden::INT32.iter().enumerate() {
        assert_eq!([m[i], f[i]], [r[2], r[3]], "{} and {}", r[0], r[1]);
    }
}

/// Shapes that do not broadcast are a typed error, and the device works after it.
#[test]
fn shape_mismatch_is_an_error() {
    let a = dev().zeros::<f32>([3]).unwrap();
    let b = dev().zeros::<f32>([4]).unwrap();
    assert!(matches!(
        a.remainder(&b),
        Err(gpuarray::Error::ShapeMismatch { .. })
    ));
    assert!(matches!(
        a.floor_divide(&b),
        Err(gpuarray::Error::ShapeMismatch { .. })
    ));
    let c = dev().from_slice(&[7.0f32, -7.0, 7.0], [3]).unwrap();
    assert_eq!(
        c.remainder_scalar(-2.0).unwrap().to_vec().unwrap(),
        vec![-1.0, -1.0, -1.0]
    );
}

/// The differential check against NumPy (2026-11-28): f32 `floor_divide(9.223372e18,
/// 2147483520)` gave 4294967296, NumPy 4294967808: NumPy divides `(a - fmod(a, b)) / b`
/// with IEEE's correctly rounded division, where the quotient here was within an ulp only.
/// Pairs whose quotient is an integer past 2^24 (so that it rounds, often near a tie), in
/// f32 and in f16 (computed in f32, as NumPy's half loops do), against NumPy's algorithm.
#[test]
fn floor_divide_rounds_the_quotient_as_numpy() {
    let x = dev().from_slice(&[9.223372e18f32], [1]).unwrap();
    let y = dev().from_slice(&[2147483520.0f32], [1]).unwrap();
    let got = x.floor_divide(&y).unwrap().to_vec().unwrap();
    assert_eq!(got, vec![4294967808.0]);
    let mut rng = Rng::new(31);
    let n = 1 << 14;
    let ys: Vec<f32> = (0..n)
        .map(|_| (rng.int(1, 1 << 12) as f32) * (rng.int(-20, 20) as f32).exp2())
        .collect();
    let xs: Vec<f32> = ys
        .iter()
        .map(|&b| {
            let q = rng.int(1 << 23, 1 << 27) as f32;
            if rng.bool(0.5) {
                b * q
            } else {
                -b * q
            }
        })
        .collect();
    let got = dev()
        .from_slice(&xs, [n])
        .unwrap()
        .floor_divide(&dev().from_slice(&ys, [n]).unwrap())
        .unwrap()
        .to_vec()
        .unwrap();
    let bad: Vec<String> = (0..n)
        .filter(|&i| !same(got[i] as f64, divmod_f32(xs[i], ys[i]).1 as f64))
        .map(|i| {
            let want = divmod_f32(xs[i], ys[i]).1;
            format!("{} // {}: {} (want {want})", xs[i], ys[i], got[i])
        })
        .take(5)
        .collect();
    assert!(bad.is_empty(), "{bad:?}");
    if dev().supports::<f16>() {
        let xh: Vec<f16> = (0..n).map(|i| f16::from_bits(i as u16)).collect();
        let yh: Vec<f16> = (0..n)
            .map(|i| f16::from_bits((i as u16).wrapping_mul(40503) & 0x7bff))
            .collect();
        let got = dev()
            .from_slice(&xh, [n])
            .unwrap()
            .floor_divide(&dev().from_slice(&yh, [n]).unwrap())
            .unwrap()
            .to_vec()
            .unwrap();
        for i in 0..n {
            let want = f16::from_f32(divmod_f32(xh[i].to_f32(), yh[i].to_f32()).1);
            assert!(
                same(got[i].to_f64(), want.to_f64()),
                "{} // {}: {} (want {want})",
                xh[i],
                yh[i],
                got[i]
            );
        }
    }
}
