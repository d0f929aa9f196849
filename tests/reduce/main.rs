//! Reductions (sum, prod, max, min, argmax, argmin, all, any, mean, var, std, norm) against a
//! CPU reference computed in f64 over arbitrary axes of a host n-d array: every op and every
//! dtype where it exists, every axis and many axis sets (with and without keepdims) of 0-D to
//! 4-D arrays of awkward sizes, transposed, stepped, sliced and broadcast views, one-element
//! and empty inputs, long rows and long columns (row, column and split-column kernels),
//! NaN propagation and first-occurrence argmax, wrapping integer arithmetic, the bad inputs,
//! bit-for-bit determinism, f32 tree-sum accuracy, and an array larger than one binding.
//!
//! Tolerances, per output element, for a reduced set x_1..x_n with S = sum |x_i| and
//! k = log2(n) + 4 (generous for a tree; a long serial chain is likely to exceed it):
//! - sum (floats): |got - ref| <= k * u * S + tiny, u = 2^-24 for f32, 2^-53 for f64; f16
//!   accumulates in f32 (u = 2^-24) and rounds the result to f16 once: + 2^-11 * |ref|.
//! - prod (floats): relative u * (m + 2) (+ 2^-11 for f16), where m counts the factors that
//!   are not +-1: the test data are +-1 but for a few factors in [0.71, 1.41], so only
//!   products of two such partial results round (at most m - 1 of them, in any order).
//!   Products of many factors near 1 are deliberately avoided: their rounding errors do not
//!   cancel (with many partial products hovering around 1, correctly rounded f32 arithmetic
//!   drifts by ~5e-4 relative over 2M factors, in a CPU simulation as on lavapipe), so no
//!   tolerance short of the worst case (n - 1) u would be both sound and useful.
//! - integer sum and prod (wrapping, two's complement), max, min, argmax, argmin, all, any:
//!   exact.
//! - mean: rt * S / n (relative to the mean magnitude); var: rt * |ref| + 4 u sum(x^2) / d
//!   (d = max(n - ddof, 1); the second term only matters for a variance near zero); std:
//!   rt * |ref| plus the variance's absolute term carried through the square root; norm:
//!   rt * |ref|; with rt = 1e-5 for f32, 1e-12 for f64, 2e-3 for f16 (the reference starts
//!   from the inputs rounded to f16).
//! - whole-array f32 sums of uniform [0, 1) values (4M and 40M elements): 1e-6 relative of
//!   the f64 sum, as the issue asks.

#[macro_use]
#[path = "../common/mod.rs"]
mod common;

use common::*;
use gpuarray::{f16, Array, Device, Error, Float, Real, Result, Slice};

mod determinism;
mod edges;
mod fuse;
mod long;
mod special;

// ---------------------------------------------------------------------------------------
// Operations and their forms
// ---------------------------------------------------------------------------------------

#[derive(Clone, Copy, Debug, PartialEq)]
enum Op {
    Sum,
    Prod,
    Max,
    Min,
    ArgMax,
    ArgMin,
    All,
    Any,
    Mean,
    /// ddof
    Var(usize),
    /// ddof
    Std(usize),
    Norm,
}

impl Op {
    /// Operations whose reduction of an empty set is an error.
    fn extreme(self) -> bool {
        matches!(self, Op::Max | Op::Min | Op::ArgMax | Op::ArgMin)
    }

    /// Whether the op takes several axes (`_axis([..], keepdims)`).
    fn has_sets(self) -> bool {
        !matches!(self, Op::ArgMax | Op::ArgMin)
    }
}

/// How the reduction is asked for.
#[derive(Clone, Debug)]
enum Form {
    /// `sum()`: every axis, a 0-d result.
    Whole,
    /// `sum_axis(k, false)`.
    One(usize),
    /// `sum_axis(&axes, keepdims)`.
    Set(Vec<usize>, bool),
}

impl Form {
    fn axes(&self, ndim: usize) -> (Vec<usize>, bool) {
        match self {
            Form::Whole => ((0..ndim).collect(), false),
            Form::One(k) => (vec![*k], false),
            Form::Set(v, kd) => (v.clone(), *kd),
        }
    }
}

/// The whole array, every single axis and, for ops that have them, every subset of the axes
/// (some in decreasing order) with and without keepdims.
fn all_forms(op: Op, ndim: usize) -> Vec<Form> {
    let mut f = vec![Form::Whole];
    f.extend((0..ndim).map(Form::One));
    if op.has_sets() {
        for mask in 0..1usize << ndim {
            let mut axes: Vec<usize> = (0..ndim).filter(|d| mask >> d & 1 == 1).collect();
            if mask % 3 == 0 {
                axes.reverse();
            }
            for kd in [false, true] {
                f.push(Form::Set(axes.clone(), kd));
            }
        }
    }
    f
}

/// What the tests need per dtype beyond `Ty`: the float-only ops and the tolerances.
trait Red: Ty {
    /// Unit roundoff of the accumulator (f16 accumulates in f32); 0 for integers.
    const U_ACC: f64;
    /// Relative rounding of the result to the output type, beyond the accumulator's.
    const U_OUT: f64;
    /// Relative tolerance of mean, var, std and norm.
    const RT: f64;
    /// An absolute floor for results near the bottom of the type's range.
    const TINY: f64;
    /// mean, var, std, norm (floats only).
    fn float_op(a: &Array<Self>, op: Op, form: &Form) -> Result<Array<Self>>;
}

fn float_op<T: Float>(a: &Array<T>, op: Op, form: &Form) -> Result<Array<T>> {
    use Form::*;
    match (op, form) {
        (Op::Mean, Whole) => a.mean(),
        (Op::Mean, One(k)) => a.mean_axis(*k, false),
        (Op::Mean, Set(v, kd)) => a.mean_axis(v, *kd),
        (Op::Var(0), Whole) => a.var(),
        (Op::Var(d), Whole) => a.var_axis(.., d, false),
        (Op::Var(0), One(k)) => a.var_axis(*k, 0, false),
        (Op::Var(d), One(k)) => a.var_axis([*k], d, false),
        (Op::Var(d), Set(v, kd)) => a.var_axis(v, d, *kd),
        (Op::Std(0), Whole) => a.std(),
        (Op::Std(d), Whole) => a.std_axis(.., d, false),
        (Op::Std(0), One(k)) => a.std_axis(*k, 0, false),
        (Op::Std(d), One(k)) => a.std_axis([*k], d, false),
        (Op::Std(d), Set(v, kd)) => a.std_axis(v, d, *kd),
        (Op::Norm, Whole) => a.norm(),
        (Op::Norm, One(k)) => a.norm_axis(*k, false),
        (Op::Norm, Set(v, kd)) => a.norm_axis(v, *kd),
        _ => unreachable!("{op:?} is not a float-only op"),
    }
}

impl Red for f32 {
    const U_ACC: f64 = 5.960_464_477_539_063e-8; // 2^-24
    const U_OUT: f64 = 0.0;
    const RT: f64 = 1e-5;
    const TINY: f64 = 1e-37;
    fn float_op(a: &Array<f32>, op: Op, form: &Form) -> Result<Array<f32>> {
        float_op(a, op, form)
    }
}

impl Red for f64 {
    const U_ACC: f64 = 1.110_223_024_625_156_5e-16; // 2^-53
    const U_OUT: f64 = 0.0;
    const RT: f64 = 1e-12;
    const TINY: f64 = 1e-300;
    fn float_op(a: &Array<f64>, op: Op, form: &Form) -> Result<Array<f64>> {
        float_op(a, op, form)
    }
}

impl Red for f16 {
    const U_ACC: f64 = 5.960_464_477_539_063e-8; // f32 accumulation
    const U_OUT: f64 = 4.882_812_5e-4; // 2^-11
    const RT: f64 = 2e-3;
    const TINY: f64 = 5.960_464_477_539_063e-8; // the smallest f16 subnormal
    fn float_op(a: &Array<f16>, op: Op, form: &Form) -> Result<Array<f16>> {
        float_op(a, op, form)
    }
}

impl Red for i32 {
    const U_ACC: f64 = 0.0;
    const U_OUT: f64 = 0.0;
    const RT: f64 = 0.0;
    const TINY: f64 = 0.0;
    fn float_op(_: &Array<i32>, op: Op, _: &Form) -> Result<Array<i32>> {
        unreachable!("{op:?} does not exist for i32")
    }
}

impl Red for u32 {
    const U_ACC: f64 = 0.0;
    const U_OUT: f64 = 0.0;
    const RT: f64 = 0.0;
    const TINY: f64 = 0.0;
    fn float_op(_: &Array<u32>, op: Op, _: &Form) -> Result<Array<u32>> {
        unreachable!("{op:?} does not exist for u32")
    }
}

/// Runs `op` in `form` on the device; the result's shape and values as f64.
fn gpu<T: Red>(a: &Array<T>, op: Op, form: &Form) -> Result<(Vec<usize>, Vec<f64>)> {
    fn out<U: Real>(r: Result<Array<U>>) -> Result<(Vec<usize>, Vec<f64>)> {
        let a = r?;
        let v = a.to_vec()?;
        Ok((a.shape().to_vec(), to_f64(&v)))
    }
    use Form::*;
    match (op, form) {
        (Op::Sum, Whole) => out(a.sum()),
        (Op::Sum, One(k)) => out(a.sum_axis(*k, false)),
        (Op::Sum, Set(v, kd)) => out(a.sum_axis(v, *kd)),
        (Op::Prod, Whole) => out(a.prod()),
        (Op::Prod, One(k)) => out(a.prod_axis(*k, false)),
        (Op::Prod, Set(v, kd)) => out(a.prod_axis(v, *kd)),
        (Op::Max, Whole) => out(a.max()),
        (Op::Max, One(k)) => out(a.max_axis(*k, false)),
        (Op::Max, Set(v, kd)) => out(a.max_axis(v, *kd)),
        (Op::Min, Whole) => out(a.min()),
        (Op::Min, One(k)) => out(a.min_axis(*k, false)),
        (Op::Min, Set(v, kd)) => out(a.min_axis(v, *kd)),
        (Op::ArgMax, Whole) => out(a.argmax()),
        (Op::ArgMax, One(k)) => out(a.argmax_axis(*k, false)),
        (Op::ArgMin, Whole) => out(a.argmin()),
        (Op::ArgMin, One(k)) => out(a.argmin_axis(*k, false)),
        (Op::ArgMax | Op::ArgMin, Set(..)) => unreachable!("argmax/argmin take one axis"),
        (Op::All, Whole) => out(a.all()),
        (Op::All, One(k)) => out(a.all_axis(*k, false)),
        (Op::All, Set(v, kd)) => out(a.all_axis(v, *kd)),
        (Op::Any, Whole) => out(a.any()),
        (Op::Any, One(k)) => out(a.any_axis(*k, false)),
        (Op::Any, Set(v, kd)) => out(a.any_axis(v, *kd)),
        _ => out(T::float_op(a, op, form)),
    }
}

// ---------------------------------------------------------------------------------------
// The CPU reference
// ---------------------------------------------------------------------------------------

/// The output shape of reducing `axes` of `h` and, per output element (C order), the values
/// it reduces, in C order of the reduced axes (so a position in a group is the flat index
/// that argmax returns).
fn group(h: &Host, axes: &[usize], keepdims: bool) -> (Vec<usize>, Vec<Vec<f64>>) {
    let nd = h.shape.len();
    let red: Vec<bool> = (0..nd).map(|d| axes.contains(&d)).collect();
    let shape: Vec<usize> = (0..nd)
        .filter_map(|d| {
            if red[d] {
                keepdims.then_some(1)
            } else {
                Some(h.shape[d])
            }
        })
        .collect();
    let mut ostride = vec![0usize; nd];
    let mut nout = 1;
    for d in (0..nd).rev() {
        if !red[d] {
            ostride[d] = nout;
            nout *= h.shape[d];
        }
    }
    let mut groups = vec![Vec::new(); nout];
    let mut idx = vec![0usize; nd];
    for &x in &h.data {
        let o: usize = idx.iter().zip(&ostride).map(|(i, s)| i * s).sum();
        groups[o].push(x);
        for d in (0..nd).rev() {
            idx[d] += 1;
            if idx[d] < h.shape[d] {
                break;
            }
            idx[d] = 0;
        }
    }
    (shape, groups)
}

/// An accurate sum (Neumaier); the plain sum when it is not finite.
fn fsum(v: impl Iterator<Item = f64>) -> f64 {
    let (mut s, mut c, mut plain) = (0.0f64, 0.0f64, 0.0f64);
    for x in v {
        plain += x;
        let t = s + x;
        c += if s.abs() >= x.abs() {
            (s - t) + x
        } else {
            (x - t) + s
        };
        s = t;
    }
    if plain.is_finite() {
        s + c
    } else {
        plain
    }
}

/// A 32-bit wrapped integer (kept in [0, 2^32)) as the value of `T`.
fn wrap_int<T: Ty>(a: i64) -> f64 {
    if T::SIGNED {
        a as u32 as i32 as f64
    } else {
        a as u32 as f64
    }
}

/// The first position of the extreme (`better(x, best)` strictly), a NaN counting as the
/// extreme.
fn arg_extreme(g: &[f64], better: impl Fn(f64, f64) -> bool) -> f64 {
    if let Some(i) = g.iter().position(|x| x.is_nan()) {
        return i as f64;
    }
    let mut best = 0;
    for (i, &x) in g.iter().enumerate() {
        if better(x, g[best]) {
            best = i;
        }
    }
    best as f64
}

/// The reference value of `op` over `g` and its tolerance (see the top of the file).
fn reference<T: Red>(op: Op, g: &[f64]) -> (f64, f64) {
    let n = g.len();
    let nf = n as f64;
    let s_abs = fsum(g.iter().map(|x| x.abs()));
    let sumsq = fsum(g.iter().map(|x| x * x));
    let k = nf.max(1.0).log2() + 4.0;
    let has_nan = g.iter().any(|x| x.is_nan());
    let var = |d: usize| -> (f64, f64) {
        if n == 0 {
            return (f64::NAN, 0.0);
        }
        let m = fsum(g.iter().copied()) / nf;
        let ss = fsum(g.iter().map(|x| (x - m) * (x - m)));
        let den = n.saturating_sub(d) as f64;
        let v = ss / den;
        let tol = T::RT * v.abs() + 4.0 * T::U_ACC * sumsq / den.max(1.0) + T::TINY;
        (v, tol)
    };
    match op {
        Op::Sum if !T::FLOAT => (
            wrap_int::<T>(g.iter().fold(0i64, |a, &x| (a + x as i64) as u32 as i64)),
            0.0,
        ),
        Op::Prod if !T::FLOAT => (
            wrap_int::<T>(
                g.iter()
                    .fold(1i64, |a, &x| a.wrapping_mul(x as i64) as u32 as i64),
            ),
            0.0,
        ),
        Op::Sum => {
            let v = fsum(g.iter().copied());
            (v, k * T::U_ACC * s_abs + T::U_OUT * v.abs() + T::TINY)
        }
        Op::Prod => {
            let v: f64 = g.iter().product();
            let m = g.iter().filter(|x| x.abs() != 1.0).count() as f64;
            let r = T::U_ACC * (m + 2.0) + T::U_OUT;
            (v, r * v.abs() + T::TINY)
        }
        Op::Max if has_nan => (f64::NAN, 0.0),
        Op::Min if has_nan => (f64::NAN, 0.0),
        Op::Max => (g.iter().copied().fold(f64::NEG_INFINITY, f64::max), 0.0),
        Op::Min => (g.iter().copied().fold(f64::INFINITY, f64::min), 0.0),
        Op::ArgMax => (arg_extreme(g, |x, b| x > b), 0.0),
        Op::ArgMin => (arg_extreme(g, |x, b| x < b), 0.0),
        Op::All => (g.iter().all(|&x| x != 0.0) as u32 as f64, 0.0),
        Op::Any => (g.iter().any(|&x| x != 0.0) as u32 as f64, 0.0),
        Op::Mean if n == 0 => (f64::NAN, 0.0),
        Op::Mean => (fsum(g.iter().copied()) / nf, T::RT * s_abs / nf + T::TINY),
        Op::Var(d) => var(d),
        Op::Std(d) => {
            let (v, t) = var(d);
            let s = v.sqrt();
            let a = t - T::RT * v.abs(); // the absolute part
            let carried = if s > 0.0 {
                a.sqrt().min(a / (2.0 * s))
            } else {
                a.sqrt()
            };
            (s, T::RT * s + carried)
        }
        Op::Norm => {
            let v = sumsq.sqrt();
            (v, T::RT * v + T::TINY)
        }
    }
}

/// Per-element comparison: NaN must match NaN and infinities must match exactly.
#[track_caller]
fn assert_within(label: &str, got: &[f64], exp: &[f64], tol: &[f64]) {
    assert_eq!(got.len(), exp.len(), "{label}: length");
    let bad: Vec<usize> = (0..got.len())
        .filter(|&i| {
            let (a, e) = (got[i], exp[i]);
            if a.is_nan() || e.is_nan() {
                !(a.is_nan() && e.is_nan())
            } else if a.is_infinite() || e.is_infinite() {
                a != e
            } else {
                (a - e).abs() > tol[i]
            }
        })
        .collect();
    if let Some(&first) = bad.first() {
        let shown: Vec<String> = bad
            .iter()
            .take(8)
            .map(|&i| {
                format!(
                    "  [{i}] got {:e} expected {:e} (diff {:e}, allowed {:e})",
                    got[i],
                    exp[i],
                    (got[i] - exp[i]).abs(),
                    tol[i]
                )
            })
            .collect();
        panic!(
            "{label}: {} of {} elements differ (first at {first}):\n{}",
            bad.len(),
            got.len(),
            shown.join("\n")
        );
    }
}

/// A small op whose result is checked: the device still works (elementwise and a reduction).
#[track_caller]
fn still_works(dev: &Device) {
    let x = dev.from_slice(&[1.5f32, -2.0, 4.0], [3]).unwrap();
    let y = x.mul_scalar(2.0).unwrap().add_scalar(1.0).unwrap();
    assert_close(&host(&y), &[4.0, -3.0, 9.0], 0.0, 0.0);
    assert_eq!(y.sum().unwrap().to_scalar().unwrap(), 10.0);
}

/// Checks `op` in `form` on `a` (whose values, as a host array, are `h`) against the
/// reference: the shape, the values, or the error of an empty reduced set.
#[track_caller]
fn check<T: Red>(what: &str, a: &Array<T>, h: &Host, op: Op, form: &Form) {
    let (axes, keepdims) = form.axes(h.shape.len());
    let (shape, groups) = group(h, &axes, keepdims);
    let label = format!("{} {op:?} {form:?} of {what}", T::NAME);
    let got = gpu(a, op, form);
    if op.extreme() && groups.iter().any(|g| g.is_empty()) {
        match got {
            Err(Error::InvalidArgument { .. }) => {
                still_works(dev());
                return;
            }
            other => panic!("{label}: empty reduced set: expected InvalidArgument, got {other:?}"),
        }
    }
    let (gshape, vals) = got.unwrap_or_else(|e| panic!("{label}: {e}"));
    assert_eq!(gshape, shape, "{label}: shape");
    let (exp, tol): (Vec<f64>, Vec<f64>) = groups.iter().map(|g| reference::<T>(op, g)).unzip();
    assert_within(&label, &vals, &exp, &tol);
}

// ---------------------------------------------------------------------------------------
// Test data
// ---------------------------------------------------------------------------------------

/// A deterministic seed from a name.
fn seed(name: &str) -> u64 {
    name.bytes().fold(0xcbf2_9ce4_8422_2325, |h, b| {
        (h ^ b as u64).wrapping_mul(0x0100_0000_01b3)
    })
}

/// `n` values suited to `op` in `T`:
/// - sums and moments: uniform [-1, 2) (f16: [-1, 1), so that large sums stay finite);
///   integers in [-50, 50] (u32: [0, 100]); never all zeros.
/// - prod: +-1 (u32: 1) but for about 24 factors per array (half of them in small arrays):
///   floats +-2^u with u uniform in [-0.5, 0.5] (the product stays far from f16's range
///   limits), integers +-2 or +-3.
/// - max, min, arg*: values on a coarse grid (many ties, so that first occurrence matters),
///   mixed with uniform ones and a few infinities; integers include values next to i32::MIN
///   and i32::MAX, and u32 values at and above 2^31 (a signed comparison would misorder
///   them) up to u32::MAX (the identity of min).
/// - all, any: zeros (floats: +0 and -0) with probability 0.2 or 0.85 (chosen per array),
///   nonzero values otherwise (floats: some NaN, which counts as true; integers: some with
///   only the sign bit set).
fn values<T: Ty>(op: Op, rng: &mut Rng, n: usize) -> Vec<f64> {
    let mut v: Vec<f64> = match op {
        Op::Prod => {
            let p = (24.0 / n.max(1) as f64).min(0.5);
            (0..n)
                .map(|_| {
                    let sign = if T::SIGNED && rng.bool(0.5) {
                        -1.0
                    } else {
                        1.0
                    };
                    if !rng.bool(p) {
                        sign
                    } else if T::FLOAT {
                        sign * rng.uniform(-0.5, 0.5).exp2()
                    } else {
                        sign * rng.int(2, 3)
                    }
                })
                .collect()
        }
        Op::Max | Op::Min | Op::ArgMax | Op::ArgMin => (0..n)
            .map(|_| {
                let r = rng.unit();
                if T::FLOAT {
                    if r < 0.02 {
                        f64::INFINITY
                    } else if r < 0.04 {
                        f64::NEG_INFINITY
                    } else if r < 0.5 {
                        rng.int(-40, 40) / 8.0
                    } else {
                        rng.uniform(-5.0, 5.0)
                    }
                } else if T::SIGNED {
                    if r < 0.1 {
                        i32::MIN as f64 + rng.int(0, 5)
                    } else if r < 0.2 {
                        i32::MAX as f64 - rng.int(0, 5)
                    } else {
                        rng.int(-20, 20)
                    }
                } else if r < 0.25 {
                    u32::MAX as f64 - rng.int(0, 40)
                } else if r < 0.5 {
                    2f64.powi(31) + rng.int(-20, 20)
                } else {
                    rng.int(0, 40)
                }
            })
            .collect(),
        Op::All | Op::Any => {
            let p0 = if rng.bool(0.5) { 0.2 } else { 0.85 };
            return (0..n)
                .map(|_| {
                    if rng.bool(p0) {
                        if T::FLOAT && rng.bool(0.5) {
                            -0.0
                        } else {
                            0.0
                        }
                    } else if T::FLOAT {
                        if rng.bool(0.05) {
                            f64::NAN
                        } else {
                            rng.uniform(-2.0, 2.0)
                        }
                    } else if rng.bool(0.1) {
                        // The sign bit alone (-0 as a float) is nonzero for integers.
                        if T::SIGNED {
                            i32::MIN as f64
                        } else {
                            2f64.powi(31)
                        }
                    } else if T::SIGNED && rng.bool(0.5) {
                        -rng.int(1, 9)
                    } else {
                        rng.int(1, 9)
                    }
                })
                .collect();
        }
        _ => {
            if T::FLOAT {
                let hi = if T::DTYPE == gpuarray::DType::F16 {
                    1.0
                } else {
                    2.0
                };
                rng.vec(n, -1.0, hi)
            } else if T::SIGNED {
                rng.ints(n, -50, 50)
            } else {
                rng.ints(n, 0, 100)
            }
        }
    };
    if !v.is_empty() && v.iter().all(|&x| T::wrap(x) == 0.0) {
        v[0] = 3.0;
    }
    v
}

/// Uploads `values` data of `shape` for `op`: the array and its host model.
fn make<T: Red>(op: Op, rng: &mut Rng, shape: &[usize]) -> (Array<T>, Host) {
    let n = shape.iter().product();
    let (a, v) = upload::<T>(dev(), &values::<T>(op, rng, n), shape);
    (a, Host::new(shape, v))
}

/// Contiguous shapes of the sweep: 0-d, one element, odd and prime sizes, sizes that are
/// not multiples of 4 or 256, rows and columns whose extents are multiples of 4 (the vec4
/// kernels), 1-D to 4-D, and empty ones.
const SHAPES: [&[usize]; 18] = [
    &[],
    &[1],
    &[7],
    &[257],
    &[1031],
    &[4099],
    &[1, 1, 1],
    &[5, 3],
    &[3, 1, 6],
    &[2, 5, 3, 4],
    &[13, 259],
    &[2, 1030],
    &[3, 1028],
    &[1028, 12],
    &[0],
    &[3, 0],
    &[0, 4],
    &[2, 0, 3],
];

/// Views as inputs: transposed (`t`, `transpose`), stepped slices, `slice_axis`, offsets
/// (odd, and multiples of 4 with row lengths that are too), broadcasts (zero strides) and a
/// transposed stepped slice.
fn views<T: Red>(op: Op, rng: &mut Rng) -> Vec<(String, Array<T>, Host)> {
    let mut out = Vec::new();
    let (a, h) = make::<T>(op, rng, &[5, 3]);
    out.push(("t() of [5, 3]".to_string(), a.t(), h.t()));
    let (a, h) = make::<T>(op, rng, &[2, 5, 3, 4]);
    let p = [2, 0, 3, 1];
    out.push((
        format!("transpose({p:?}) of [2, 5, 3, 4]"),
        a.transpose(&p).unwrap(),
        h.transpose(&p),
    ));
    let (a, h) = make::<T>(op, rng, &[12, 11]);
    out.push((
        "[1..12 step 3, .. step 2] of [12, 11]".to_string(),
        a.slice([Slice::from(1..12).step(3), Slice::from(..).step(2)])
            .unwrap(),
        h.slice(&[(1, 12, 3), (0, 11, 2)]),
    ));
    let (a, h) = make::<T>(op, rng, &[7, 9, 10]);
    out.push((
        "[.. step 2, 2..9, 1.. step 4] of [7, 9, 10]".to_string(),
        a.slice([
            Slice::from(..).step(2),
            Slice::from(2..9),
            Slice::from(1..).step(4),
        ])
        .unwrap(),
        h.slice(&[(0, 7, 2), (2, 9, 1), (1, 10, 4)]),
    ));
    let (a, h) = make::<T>(op, rng, &[6, 8]);
    out.push((
        "slice_axis(1, 2..7) of [6, 8]".to_string(),
        a.slice_axis(1, 2..7).unwrap(),
        h.slice(&[(0, 6, 1), (2, 7, 1)]),
    ));
    let (a, h) = make::<T>(op, rng, &[1040]);
    out.push((
        "[3..] of [1040]".to_string(),
        a.slice(3..).unwrap(),
        h.slice(&[(3, 1040, 1)]),
    ));
    let (a, h) = make::<T>(op, rng, &[1040]);
    out.push((
        "[4..] of [1040]".to_string(),
        a.slice(4..).unwrap(),
        h.slice(&[(4, 1040, 1)]),
    ));
    let (a, h) = make::<T>(op, rng, &[9, 12]);
    out.push((
        "[1.., 4..] of [9, 12]".to_string(),
        a.slice([Slice::from(1..), Slice::from(4..)]).unwrap(),
        h.slice(&[(1, 9, 1), (4, 12, 1)]),
    ));
    let (a, h) = make::<T>(op, rng, &[3, 1]);
    out.push((
        "[3, 1] broadcast to [4, 3, 5]".to_string(),
        a.broadcast_to([4, 3, 5]).unwrap(),
        h.broadcast_to(&[4, 3, 5]),
    ));
    let (a, h) = make::<T>(op, rng, &[6]);
    out.push((
        "[6] broadcast to [5, 6]".to_string(),
        a.broadcast_to([5, 6]).unwrap(),
        h.broadcast_to(&[5, 6]),
    ));
    let (a, h) = make::<T>(op, rng, &[9, 14]);
    out.push((
        "t() of [1..9 step 2, .. step 3] of [9, 14]".to_string(),
        a.slice([Slice::from(1..9).step(2), Slice::from(..).step(3)])
            .unwrap()
            .t(),
        h.slice(&[(1, 9, 2), (0, 14, 3)]).t(),
    ));
    out
}

/// `op` on `T`: every form on every shape of `SHAPES` and every view of `views`.
fn sweep<T: Red>(op: Op) {
    require_dtype!(T);
    let mut rng = Rng::new(seed(&format!("{op:?} {}", T::NAME)));
    for shape in SHAPES {
        let (a, h) = make::<T>(op, &mut rng, shape);
        for form in all_forms(op, shape.len()) {
            check(&format!("{shape:?}"), &a, &h, op, &form);
        }
    }
    for (what, a, h) in views::<T>(op, &mut rng) {
        assert_eq!(a.shape(), &h.shape[..], "{what}: view shape");
        for form in all_forms(op, h.shape.len()) {
            check(&what, &a, &h, op, &form);
        }
    }
}

/// One test per op and dtype: `sum::f32` and so on.
macro_rules! sweeps {
    ($($m:ident: $op:expr => [$($t:ident),*];)*) => {
        $(
            mod $m {
                use super::*;
                $(
                    #[test]
                    fn $t() {
                        sweep::<$t>($op);
                    }
                )*
            }
        )*
    };
}

sweeps! {
    sum: Op::Sum => [f16, f32, f64, i32, u32];
    prod: Op::Prod => [f16, f32, f64, i32, u32];
    max: Op::Max => [f16, f32, f64, i32, u32];
    min: Op::Min => [f16, f32, f64, i32, u32];
    argmax: Op::ArgMax => [f16, f32, f64, i32, u32];
    argmin: Op::ArgMin => [f16, f32, f64, i32, u32];
    all: Op::All => [f16, f32, f64, i32, u32];
    any: Op::Any => [f16, f32, f64, i32, u32];
    mean: Op::Mean => [f16, f32, f64];
    var: Op::Var(0) => [f16, f32, f64];
    var_ddof1: Op::Var(1) => [f16, f32, f64];
    stddev: Op::Std(0) => [f16, f32, f64];
    stddev_ddof2: Op::Std(2) => [f32, f64];
    norm: Op::Norm => [f16, f32, f64];
}
