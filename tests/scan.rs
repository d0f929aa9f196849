//! Scans (cumsum, cumprod) and differences (diff) against a CPU reference: every dtype, every
//! axis (negative too) of 1-D to 3-D arrays whose extents are 0, 1, primes and 2^k +- 1,
//! long rows (several segments: reduce, scan of the segment totals, scan again; lengths of a
//! multiple of 4, which the row kernels move in vec4s, and others) and long
//! columns (several levels of segment totals, scanned by the same code recursively),
//! strided and offset views as input, NaN / inf / -0 as NumPy, wrapping integers, bit-for-bit
//! determinism over 10 runs, the bad arguments, and the f32 running-sum accuracy the issue
//! asks for. Arrays larger than one binding are not supported by scans (BufferTooLarge).
//!
//! Tolerances, per output element k of a line x_0..x_k, with S_k = sum |x_i| (i <= k):
//! - sum, f32: |got - ref| <= 2^-23 |ref| + 2^-40 S_k: one rounding of the running sum
//!   (kept as a pair of f32 whose error is about 2^-44 S_k), with margin;
//! - sum, f16 (accumulated as f32 pairs, rounded to f16 once): 2^-10 |ref| + 2^-24 + 2^-40 S_k;
//! - sum, f64 (a tree inside a tile, a chain of carries between tiles and segments):
//!   (k + 1) 2^-53 S_k, the bound of any summation order;
//! - prod, floats (factors in +-[0.95, 1.05]): relative (k + 2) u, u = 2^-24, 2^-53, and
//!   2^-11 more for f16's final rounding;
//! - integers: exact, wrapping in the type (two's complement), computed in i64.
//! - 4M uniform [0, 1) f32 values: every running sum within 1e-6 relative of the f64 one
//!   (the bound; the 64M case is `#[ignore]`d).

#[macro_use]
mod common;

use common::*;
use gpuarray::{f16, Array, Error, Slice};

#[derive(Clone, Copy, Debug, PartialEq)]
enum Op {
    Sum,
    Prod,
}

/// The CPU reference: the inclusive scan of `op` along `axis` of the host array `x` of
/// `shape` (values already in T), each element with its bound.
fn reference<T: Ty>(op: Op, x: &[f64], shape: &[usize], axis: usize) -> Vec<(f64, f64)> {
    let outer: usize = shape[..axis].iter().product();
    let len = shape[axis];
    let inner: usize = shape[axis + 1..].iter().product();
    let mut out = vec![(0.0, 0.0); x.len()];
    let u = match T::NAME {
        "f32" | "f16" => 2f64.powi(-24),
        _ => 2f64.powi(-53),
    };
    for o in 0..outer {
        for i in 0..inner {
            let mut acc = if op == Op::Sum { 0.0 } else { 1.0 };
            let mut iacc: i64 = if op == Op::Sum { 0 } else { 1 };
            let mut abs = 0.0;
            for r in 0..len {
                let at = (o * len + r) * inner + i;
                let v = x[at];
                abs += v.abs();
                if !T::FLOAT {
                    iacc = match op {
                        Op::Sum => iacc.wrapping_add(v as i64),
                        Op::Prod => iacc.wrapping_mul(v as i64),
                    };
                    iacc = T::wrap(iacc as f64) as i64;
                    out[at] = (iacc as f64, 0.0);
                    continue;
                }
                let k = r as f64;
                let (value, bound) = match (op, T::NAME) {
                    (Op::Sum, "f32") => {
                        acc += v;
                        (acc, 2f64.powi(-23) * acc.abs() + 2f64.powi(-40) * abs)
                    }
                    (Op::Sum, "f16") => {
                        acc += v;
                        let b = 2f64.powi(-10) * acc.abs() + 2f64.powi(-24) + 2f64.powi(-40) * abs;
                        (acc, b)
                    }
                    (Op::Sum, _) => {
                        acc += v;
                        (acc, (k + 1.0) * u * abs)
                    }
                    (Op::Prod, name) => {
                        acc *= v;
                        let extra = if name == "f16" { 2f64.powi(-11) } else { 0.0 };
                        let tiny = if name == "f16" {
                            2f64.powi(-14)
                        } else {
                            2f64.powi(-116)
                        };
                        if T::wrap(acc * 1.01).is_infinite() || acc.abs() < tiny {
                            // Near overflow, or where subnormals lose relative precision:
                            // any value is accepted (the rounding decides), inf included.
                            (T::wrap(acc), f64::INFINITY)
                        } else {
                            (acc, ((k + 2.0) * u + extra) * acc.abs())
                        }
                    }
                };
                out[at] = (value, bound);
            }
        }
    }
    out
}

/// Test data for `op` in T: sums take uniform values (integers: the whole range, to wrap),
/// products factors in +-[0.95, 1.05] (whose running products stay
/// within f32's range over these lengths, so that the order of the products does not decide
/// an overflow) (integers: -3..=3).
fn data<T: Ty>(op: Op, n: usize, seed: u64) -> Vec<f64> {
    let mut r = Rng::new(seed);
    (0..n)
        .map(|_| match (op, T::FLOAT, T::SIGNED) {
            (Op::Sum, true, _) => r.uniform(-1.0, 1.0),
            (Op::Sum, false, true) => r.int(i32::MIN as i64, i32::MAX as i64),
            (Op::Sum, false, false) => r.int(0, u32::MAX as i64),
            (Op::Prod, true, _) => {
                let m = r.uniform(0.95, 1.05);
                if r.bool(0.5) {
                    -m
                } else {
                    m
                }
            }
            (Op::Prod, false, true) => r.int(-3, 3),
            (Op::Prod, false, false) => r.int(0, 3),
        })
        .collect()
}

#[track_caller]
fn check(got: &[f64], want: &[(f64, f64)], what: &str) {
    assert_eq!(got.len(), want.len(), "{what}: length");
    for (k, (&g, &(w, b))) in got.iter().zip(want).enumerate() {
        let ok = if w.is_nan() || g.is_nan() {
            w.is_nan() && g.is_nan()
        } else {
            (g - w).abs() <= b || g == w
        };
        assert!(ok, "{what}: [{k}] got {g:e}, want {w:e} (bound {b:e})");
    }
}

fn run<T: Ty>(x: &Array<T>, op: Op, axis: isize) -> gpuarray::Result<Array<T>> {
    match op {
        Op::Sum => x.cumsum(axis),
        Op::Prod => x.cumprod(axis),
    }
}

const SHAPES: &[&[usize]] = &[
    &[0],
    &[1],
    &[7],
    &[63],
    &[65],
    &[1023],
    &[1025],
    &[4099],
    &[65537],
    &[65540],
    &[3, 5, 7],
    &[2, 300, 3],
    &[130, 257],
    &[0, 5],
    &[5, 0],
    &[1, 1, 1],
    &[9000, 2],
    &[2, 40964],
];

fn every_shape_and_axis<T: Ty>(op: Op) {
    let dev = dev();
    for (s, shape) in SHAPES.iter().enumerate() {
        let n: usize = shape.iter().product();
        let (x, xs) = upload::<T>(dev, &data::<T>(op, n, s as u64), shape);
        for axis in 0..shape.len() {
            let want = reference::<T>(op, &xs, shape, axis);
            let neg = axis as isize - shape.len() as isize;
            for a in [axis as isize, neg] {
                let y = run(&x, op, a).unwrap();
                assert_eq!(y.shape(), *shape);
                let what = format!("{op:?} {} {shape:?} axis {a}", T::NAME);
                check(&host(&y), &want, &what);
            }
        }
    }
}

per_dtype! {
    [f32_: f32, f16_: f16, f64_: f64, i32_: i32, u32_: u32] => {
        cumsum_every_shape_and_axis => every_shape_and_axis::<T>(Op::Sum);
        cumprod_every_shape_and_axis => every_shape_and_axis::<T>(Op::Prod);
        views_as_input => views::<T>();
        diff_every_order_and_axis => diffs::<T>();
    }
}

/// Transposed, stepped and offset views: the scan of the view equals the scan of its
/// contiguous copy's host values.
fn views<T: Ty>() {
    let dev = dev();
    let shape = [37, 131];
    let (x, xs) = upload::<T>(dev, &data::<T>(Op::Sum, 37 * 131, 9), &shape);
    let host_x = Host::new(&shape, xs);
    let cases: Vec<(Array<T>, Host)> = vec![
        (x.t(), host_x.t()),
        (
            x.slice(vec![
                Slice::new(1, Some(37), 3),
                Slice::new(2, Some(131), 2),
            ])
            .unwrap(),
            host_x.slice(&[(1, 37, 3), (2, 131, 2)]),
        ),
        (
            x.slice(vec![Slice::new(5, Some(6), 1), Slice::new(7, None, 1)])
                .unwrap(),
            host_x.slice(&[(5, 6, 1), (7, 131, 1)]),
        ),
    ];
    for (v, h) in cases {
        let hv: Vec<f64> = (0..h.len()).map(|i| h.at(&unravel(i, &h.shape))).collect();
        for axis in 0..2 {
            let want = reference::<T>(Op::Sum, &hv, &h.shape, axis);
            let what = format!("{} view {:?} axis {axis}", T::NAME, h.shape);
            check(&host(&v.cumsum(axis as isize).unwrap()), &want, &what);
        }
    }
}

/// diff against x[1:] - x[:-1] on the host, n = 0..=3 and n past the extent.
fn diffs<T: Ty>() {
    let dev = dev();
    for shape in [&[1usize][..], &[2], &[13], &[4, 6], &[3, 1, 5]] {
        let n: usize = shape.iter().product();
        let mut r = Rng::new(n as u64);
        let vals: Vec<f64> = if T::FLOAT {
            r.vec(n, -4.0, 4.0)
        } else {
            r.ints(n, 0, 1000)
        };
        let (x, xs) = upload::<T>(dev, &vals, shape);
        for axis in 0..shape.len() {
            for order in 0..=shape[axis] + 1 {
                let mut h = Host::new(shape, xs.clone());
                for _ in 0..order {
                    let mut hs = h.shape.clone();
                    if hs[axis] == 0 {
                        break;
                    }
                    hs[axis] -= 1;
                    let hi: Vec<(usize, usize, usize)> = h
                        .shape
                        .iter()
                        .enumerate()
                        .map(|(d, &e)| if d == axis { (1, e, 1) } else { (0, e, 1) })
                        .collect();
                    let lo: Vec<(usize, usize, usize)> = h
                        .shape
                        .iter()
                        .enumerate()
                        .map(|(d, &e)| if d == axis { (0, e - 1, 1) } else { (0, e, 1) })
                        .collect();
                    h = zip_with(&h.slice(&hi), &h.slice(&lo), |a, b| T::wrap(a - b));
                    assert_eq!(h.shape, hs);
                }
                let d = x.diff(order as isize, axis as isize).unwrap();
                let mut want_shape = shape.to_vec();
                want_shape[axis] = want_shape[axis].saturating_sub(order);
                assert_eq!(
                    d.shape(),
                    &want_shape[..],
                    "{} {shape:?} n {order}",
                    T::NAME
                );
                let want: Vec<f64> = (0..h.len()).map(|i| h.at(&unravel(i, &h.shape))).collect();
                let tol = if T::FLOAT { T::EPS * 64.0 } else { 0.0 };
                assert_close(&host(&d), &want, tol, 0.0);
            }
        }
    }
}

#[test]
fn diff_of_unsigned_wraps() {
    let x = dev().from_slice(&[2u32, 1, 5], [3]).unwrap();
    assert_eq!(x.diff(1, 0).unwrap().to_vec().unwrap(), vec![u32::MAX, 4]);
    assert_eq!(x.diff(2, 0).unwrap().to_vec().unwrap(), vec![5]);
}

#[test]
fn special_values_as_numpy() {
    let dev = dev();
    let nan = f32::NAN;
    let inf = f32::INFINITY;
    let cases: Vec<(Vec<f32>, Vec<f32>)> = vec![
        (vec![1.0, nan, 2.0], vec![1.0, nan, nan]),
        (vec![inf, 1.0, -inf, 1.0], vec![inf, inf, nan, nan]),
        (vec![-inf, -1.0, 2.0], vec![-inf, -inf, -inf]),
        (vec![3e38, 3e38, -3e38], vec![3e38, inf, inf]),
    ];
    for (x, want) in cases {
        let got = dev.from_slice(&x, [x.len()]).unwrap().cumsum(0).unwrap();
        let got = got.to_vec().unwrap();
        for (g, w) in got.iter().zip(&want) {
            assert!(g == w || (g.is_nan() && w.is_nan()), "{x:?}: {got:?}");
        }
    }
    // -0.0 stays -0.0 (the sums' identity is -0), and +0 + -0 = +0.
    let z = dev.from_slice(&[-0.0f32, -0.0, 0.0, -0.0], [4]).unwrap();
    let bits: Vec<u32> = z
        .cumsum(0)
        .unwrap()
        .to_vec()
        .unwrap()
        .iter()
        .map(|v| v.to_bits())
        .collect();
    assert_eq!(bits, vec![0x8000_0000, 0x8000_0000, 0, 0]);
    let p = dev.from_slice(&[2.0f32, nan, 0.0, inf], [4]).unwrap();
    let got = p.cumprod(0).unwrap().to_vec().unwrap();
    assert_eq!(got[0], 2.0);
    assert!(got[1..].iter().all(|v| v.is_nan()), "{got:?}");
    let q = dev.from_slice(&[-1.0f32, 0.0, inf], [3]).unwrap();
    let got = q.cumprod(0).unwrap().to_vec().unwrap();
    assert_eq!(got[0], -1.0);
    assert_eq!(got[1].to_bits(), (-0.0f32).to_bits());
    assert!(got[2].is_nan(), "{got:?}");
}

#[test]
fn integers_wrap_around() {
    let dev = dev();
    let x = dev.from_slice(&[i32::MAX, 1, i32::MIN, -1], [4]).unwrap();
    assert_eq!(
        x.cumsum(0).unwrap().to_vec().unwrap(),
        vec![i32::MAX, i32::MIN, 0, -1]
    );
    let y = dev.from_slice(&[u32::MAX, 2, 3], [3]).unwrap();
    assert_eq!(y.cumsum(0).unwrap().to_vec().unwrap(), vec![u32::MAX, 1, 4]);
    let z = dev.from_slice(&[65536i32, 65536, 3], [3]).unwrap();
    assert_eq!(z.cumprod(0).unwrap().to_vec().unwrap(), vec![65536, 0, 0]);
}

#[test]
fn same_bits_every_run() {
    let dev = dev();
    let vals = Rng::new(77).vec(300_007, -1.0, 1.0);
    let (x, _) = upload::<f32>(dev, &vals, &[300_007]);
    let (m, _) = upload::<f32>(dev, &vals[..300_000], &[600, 500]);
    let bits = || -> Vec<Vec<u32>> {
        [x.cumsum(0), m.cumsum(0), m.cumsum(1)]
            .into_iter()
            .map(|r| {
                r.unwrap()
                    .to_vec()
                    .unwrap()
                    .iter()
                    .map(|v| v.to_bits())
                    .collect()
            })
            .collect()
    };
    let first = bits();
    for _ in 0..9 {
        assert!(bits() == first, "a run gave other bits");
    }
}

#[test]
fn bad_arguments_leave_the_device_working() {
    let dev = dev();
    let x = dev.from_slice(&[1.0f32, 2.0, 3.0, 4.0], [2, 2]).unwrap();
    for axis in [2isize, -3, 100] {
        assert!(matches!(
            x.cumsum(axis),
            Err(Error::AxisOutOfRange { ndim: 2, .. })
        ));
        assert!(matches!(x.cumprod(axis), Err(Error::AxisOutOfRange { .. })));
        assert!(matches!(x.diff(1, axis), Err(Error::AxisOutOfRange { .. })));
    }
    assert!(matches!(
        x.diff(-1, 0),
        Err(Error::InvalidArgument { op: "diff", .. })
    ));
    let s = dev.from_slice(&[5.0f32], []).unwrap();
    assert!(matches!(
        s.cumsum(0),
        Err(Error::AxisOutOfRange { axis: 0, ndim: 0 })
    ));
    assert!(matches!(s.diff(1, 0), Err(Error::AxisOutOfRange { .. })));
    assert_eq!(x.to_vec().unwrap(), vec![1.0, 2.0, 3.0, 4.0]);
    assert_eq!(
        x.cumsum(0).unwrap().to_vec().unwrap(),
        vec![1.0, 2.0, 4.0, 6.0]
    );
}

/// Every running sum of `n` uniform [0, 1) f32 values within 1e-6 relative of the f64 one.
fn long_f32_sum(n: usize) {
    let dev = dev();
    let x = dev.random_uniform::<f32>([n], 5).unwrap();
    let xs = x.to_vec().unwrap();
    let got = x.cumsum(0).unwrap().to_vec().unwrap();
    let mut acc = 0.0f64;
    let mut worst = 0.0f64;
    for (k, (&v, &g)) in xs.iter().zip(&got).enumerate() {
        acc += v as f64;
        if acc > 0.0 {
            let rel = (g as f64 - acc).abs() / acc;
            worst = worst.max(rel);
            assert!(rel <= 1e-6, "[{k}] got {g}, f64 {acc}, relative {rel:e}");
        }
    }
    eprintln!("{n} uniform f32: worst relative error {worst:e}");
}

#[test]
fn f32_running_sum_of_4m_within_1e_6() {
    long_f32_sum(4 << 20);
}

#[test]
#[ignore = "64M elements: run by hand (release)"]
fn f32_running_sum_of_64m_within_1e_6() {
    long_f32_sum(64 << 20);
}

// ---------------------------------------------------------------------------------------
// Stream compaction: count_nonzero, flatnonzero, argwhere, nonzero, extract
// ---------------------------------------------------------------------------------------

/// Sparse data with zeros (and, for floats, -0 and NaN) in T.
fn sparse<T: Ty>(n: usize, seed: u64) -> Vec<f64> {
    let mut r = Rng::new(seed);
    (0..n)
        .map(|_| match r.int(0, 9) as i64 {
            0..=5 => 0.0,
            6 if T::FLOAT => -0.0,
            7 if T::FLOAT => f64::NAN,
            _ => r.int(1, 100),
        })
        .collect()
}

fn compaction<T: Ty>() {
    let dev = dev();
    for (s, shape) in [
        &[0usize][..],
        &[1],
        &[13],
        &[1031],
        &[65537],
        &[65540],
        &[3, 0],
        &[4, 5, 7],
        &[9000, 3],
    ]
    .iter()
    .enumerate()
    {
        let n: usize = shape.iter().product();
        let (x, xs) = upload::<T>(dev, &sparse::<T>(n, s as u64 + 100), shape);
        let want: Vec<usize> = (0..n).filter(|&i| xs[i] != 0.0).collect();
        let what = format!("{} {shape:?}", T::NAME);
        assert_eq!(x.count_nonzero().unwrap(), want.len(), "{what}");
        let flat = x.flatnonzero().unwrap().to_vec().unwrap();
        let want32: Vec<i64> = want.iter().map(|&i| i as i64).collect();
        assert_eq!(flat, want32, "{what}");
        let w = x.argwhere().unwrap();
        assert_eq!(w.shape(), &[want.len(), shape.len()], "{what}");
        let rows: Vec<i64> = want
            .iter()
            .flat_map(|&i| unravel(i, shape).into_iter().map(|k| k as i64))
            .collect();
        assert_eq!(w.to_vec().unwrap(), rows, "{what}");
        let per_axis = x.nonzero().unwrap();
        assert_eq!(per_axis.len(), shape.len());
        for (d, a) in per_axis.iter().enumerate() {
            let col: Vec<i64> = want.iter().map(|&i| unravel(i, shape)[d] as i64).collect();
            assert_eq!(a.to_vec().unwrap(), col, "{what} axis {d}");
        }
        // The mask select of the values 0..n at the non-zero positions gives their indices.
        let mask: Vec<bool> = xs.iter().map(|&v| v != 0.0).collect();
        let m = dev.from_slice(&mask, *shape).unwrap();
        let vals: Vec<f64> = (0..n).map(|i| (i % 2000) as f64).collect();
        let (v, vs) = upload::<T>(dev, &vals, shape);
        let got = host(&v.extract(&m).unwrap());
        let want_vals: Vec<f64> = want.iter().map(|&i| vs[i]).collect();
        assert_eq!(got, want_vals, "{what} extract");
    }
}

macro_rules! compaction_per_dtype {
    ($($name:ident: $t:ty;)*) => {$(
        #[test]
        fn $name() {
            require_dtype!($t);
            compaction::<$t>();
        }
    )*};
}

compaction_per_dtype! {
    compaction_f32: f32;
    compaction_f16: f16;
    compaction_f64: f64;
    compaction_i32: i32;
    compaction_u32: u32;
}

#[test]
fn compaction_of_views_and_bad_masks() {
    let dev = dev();
    let x = dev
        .from_slice(&[0i32, 1, 2, 0, 0, 5, 6, 0, 8, 0, 0, 11], [3, 4])
        .unwrap();
    // The transpose's C order is the original's column order.
    assert_eq!(
        x.t().flatnonzero().unwrap().to_vec().unwrap(),
        vec![2, 3, 4, 6, 7, 11]
    );
    let s = x.slice_axis(1, Slice::new(1, None, 2)).unwrap();
    assert_eq!(s.flatnonzero().unwrap().to_vec().unwrap(), vec![0, 2, 5]);
    let m = dev.from_slice(&[true, false, true], [3]).unwrap();
    assert!(matches!(x.extract(&m), Err(Error::ShapeMismatch { .. })));
    let z = dev.from_slice(&[3i32], []).unwrap();
    assert!(matches!(
        z.nonzero(),
        Err(Error::InvalidArgument { op: "nonzero", .. })
    ));
    assert_eq!(z.argwhere().unwrap().shape(), &[1, 0]);
    let mask = x.t().gt(&dev.zeros::<i32>([4, 3]).unwrap()).unwrap();
    assert_eq!(
        x.t().extract(&mask).unwrap().to_vec().unwrap(),
        vec![8, 1, 5, 2, 6, 11]
    );
    assert_eq!(x.count_nonzero().unwrap(), 6);
}
