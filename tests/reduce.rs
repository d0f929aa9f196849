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
mod common;

use common::*;
use gpuarray::{f16, Array, Axis, Device, Element, Error, Float, Result, Slice};

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

    /// Whether the op has an `_axes(&[..], keepdims)` form.
    fn has_sets(self) -> bool {
        !matches!(self, Op::ArgMax | Op::ArgMin)
    }
}

/// How the reduction is asked for.
#[derive(Clone, Debug)]
enum Form {
    /// `sum()`: every axis, a 0-d result.
    Whole,
    /// `sum_axis(Axis(k))`.
    One(usize),
    /// `sum_axes(&axes, keepdims)`.
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
        (Op::Mean, One(k)) => a.mean_axis(Axis(*k)),
        (Op::Mean, Set(v, kd)) => a.mean_axes(v, *kd),
        (Op::Var(0), Whole) => a.var(),
        (Op::Var(d), Whole) => a.var_ddof(d),
        (Op::Var(0), One(k)) => a.var_axis(Axis(*k)),
        (Op::Var(d), One(k)) => a.var_axes(&[*k], d, false),
        (Op::Var(d), Set(v, kd)) => a.var_axes(v, d, *kd),
        (Op::Std(0), Whole) => a.std(),
        (Op::Std(d), Whole) => a.std_ddof(d),
        (Op::Std(0), One(k)) => a.std_axis(Axis(*k)),
        (Op::Std(d), One(k)) => a.std_axes(&[*k], d, false),
        (Op::Std(d), Set(v, kd)) => a.std_axes(v, d, *kd),
        (Op::Norm, Whole) => a.norm(),
        (Op::Norm, One(k)) => a.norm_axis(Axis(*k)),
        (Op::Norm, Set(v, kd)) => a.norm_axes(v, *kd),
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
    fn out<U: Element>(r: Result<Array<U>>) -> Result<(Vec<usize>, Vec<f64>)> {
        let a = r?;
        let v = a.to_vec()?;
        Ok((a.shape().to_vec(), to_f64(&v)))
    }
    use Form::*;
    match (op, form) {
        (Op::Sum, Whole) => out(a.sum()),
        (Op::Sum, One(k)) => out(a.sum_axis(Axis(*k))),
        (Op::Sum, Set(v, kd)) => out(a.sum_axes(v, *kd)),
        (Op::Prod, Whole) => out(a.prod()),
        (Op::Prod, One(k)) => out(a.prod_axis(Axis(*k))),
        (Op::Prod, Set(v, kd)) => out(a.prod_axes(v, *kd)),
        (Op::Max, Whole) => out(a.max()),
        (Op::Max, One(k)) => out(a.max_axis(Axis(*k))),
        (Op::Max, Set(v, kd)) => out(a.max_axes(v, *kd)),
        (Op::Min, Whole) => out(a.min()),
        (Op::Min, One(k)) => out(a.min_axis(Axis(*k))),
        (Op::Min, Set(v, kd)) => out(a.min_axes(v, *kd)),
        (Op::ArgMax, Whole) => out(a.argmax()),
        (Op::ArgMax, One(k)) => out(a.argmax_axis(Axis(*k))),
        (Op::ArgMin, Whole) => out(a.argmin()),
        (Op::ArgMin, One(k)) => out(a.argmin_axis(Axis(*k))),
        (Op::ArgMax | Op::ArgMin, Set(..)) => unreachable!("argmax/argmin take one axis"),
        (Op::All, Whole) => out(a.all()),
        (Op::All, One(k)) => out(a.all_axis(Axis(*k))),
        (Op::All, Set(v, kd)) => out(a.all_axes(v, *kd)),
        (Op::Any, Whole) => out(a.any()),
        (Op::Any, One(k)) => out(a.any_axis(Axis(*k))),
        (Op::Any, Set(v, kd)) => out(a.any_axes(v, *kd)),
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
fn gen<T: Ty>(op: Op, rng: &mut Rng, n: usize) -> Vec<f64> {
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

/// Uploads `gen` data of `shape` for `op`: the array and its host model.
fn make<T: Red>(op: Op, rng: &mut Rng, shape: &[usize]) -> (Array<T>, Host) {
    let n = shape.iter().product();
    let (a, v) = upload::<T>(dev(), &gen::<T>(op, rng, n), shape);
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
        a.slice_axis(Axis(1), 2..7).unwrap(),
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

// ---------------------------------------------------------------------------------------
// Long rows and long columns
// ---------------------------------------------------------------------------------------

/// `ops` over shapes with long rows ([3, 100_003]: the row kernel, several workgroups per
/// row), long columns with few of them ([100_003, 3]: the reduced axis split across
/// workgroups), a large odd matrix ([4099, 515]) and rows and columns whose extents are
/// multiples of 4 ([12, 40_004], [40_004, 12]: the vec4 kernels, where the lanes of an
/// argmax hold interleaved indices): whole, each axis, both axes (keepdims).
fn large<T: Red>(ops: &[Op]) {
    require_dtype!(T);
    let mut rng = Rng::new(seed(&format!("large {}", T::NAME)));
    for &op in ops {
        for shape in [
            [3, 100_003],
            [100_003, 3],
            [4099, 515],
            [12, 40_004],
            [40_004, 12],
        ] {
            let (a, h) = make::<T>(op, &mut rng, &shape);
            let mut forms = vec![Form::Whole, Form::One(0), Form::One(1)];
            if op.has_sets() {
                forms.push(Form::Set(vec![1, 0], true));
            }
            for form in forms {
                check(&format!("{shape:?}"), &a, &h, op, &form);
            }
        }
    }
}

#[test]
fn large_f32_sum_prod_extremes() {
    large::<f32>(&[Op::Sum, Op::Prod, Op::Max, Op::Min, Op::ArgMax, Op::ArgMin]);
}

#[test]
fn large_f32_logical_moments() {
    large::<f32>(&[Op::All, Op::Any, Op::Mean, Op::Var(0), Op::Std(1), Op::Norm]);
}

#[test]
fn large_f16() {
    large::<f16>(&[Op::Sum, Op::Max, Op::ArgMax, Op::Mean, Op::Var(0), Op::Norm]);
}

#[test]
fn large_f64() {
    large::<f64>(&[Op::Sum, Op::Prod, Op::Min, Op::ArgMin, Op::Std(0)]);
}

#[test]
fn large_i32() {
    large::<i32>(&[Op::Sum, Op::Prod, Op::Max, Op::ArgMin, Op::All]);
}

#[test]
fn large_u32() {
    large::<u32>(&[Op::Sum, Op::Min, Op::ArgMax, Op::Any]);
}

/// The view of `base`'s elements (row-major, offset 0) with `shape` and `strides`.
fn strided(base: &Host, shape: &[usize], strides: &[usize]) -> Host {
    let n: usize = shape.iter().product();
    let mut data = Vec::with_capacity(n);
    let mut idx = vec![0; shape.len()];
    let mut o = 0;
    for _ in 0..n {
        data.push(base.data[o]);
        for d in (0..shape.len()).rev() {
            idx[d] += 1;
            o += strides[d];
            if idx[d] < shape[d] {
                break;
            }
            o -= idx[d] * strides[d];
            idx[d] = 0;
        }
    }
    Host::new(shape, data)
}

/// Large strided inputs: a transposed matrix (columns become rows), a stepped slice, both
/// broadcast directions (a reduced or kept axis of stride 0) and a 3-D array over axis sets
/// that merge (1, 2) and that do not (0, 2).
fn large_views<T: Red>(ops: &[Op]) {
    require_dtype!(T);
    let mut rng = Rng::new(seed(&format!("large views {}", T::NAME)));
    for &op in ops {
        // The host models are strided gathers with the strides worked out here (Host's own
        // view methods are too slow for millions of elements).
        let mut cases: Vec<(&str, Array<T>, Host)> = Vec::new();
        let (a, h) = make::<T>(op, &mut rng, &[515, 4099]);
        cases.push((
            "t() of [515, 4099]",
            a.t(),
            strided(&h, &[4099, 515], &[1, 4099]),
        ));
        let (a, h) = make::<T>(op, &mut rng, &[3, 200_006]);
        cases.push((
            "[.., .. step 2] of [3, 200006]",
            a.slice([Slice::from(..), Slice::from(..).step(2)]).unwrap(),
            strided(&h, &[3, 100_003], &[200_006, 2]),
        ));
        let (a, h) = make::<T>(op, &mut rng, &[1, 100_003]);
        cases.push((
            "[1, 100003] broadcast to [3, 100003]",
            a.broadcast_to([3, 100_003]).unwrap(),
            strided(&h, &[3, 100_003], &[0, 1]),
        ));
        let (a, h) = make::<T>(op, &mut rng, &[100_003, 1]);
        cases.push((
            "[100003, 1] broadcast to [100003, 3]",
            a.broadcast_to([100_003, 3]).unwrap(),
            strided(&h, &[100_003, 3], &[1, 0]),
        ));
        for (what, a, h) in &cases {
            let mut forms = vec![Form::Whole, Form::One(0), Form::One(1)];
            if op.has_sets() {
                forms.push(Form::Set(vec![0, 1], true));
            }
            for form in forms {
                check(what, a, h, op, &form);
            }
        }
        let (a, h) = make::<T>(op, &mut rng, &[3, 7, 20_011]);
        let mut forms = vec![Form::Whole, Form::One(0), Form::One(1), Form::One(2)];
        if op.has_sets() {
            forms.extend([
                Form::Set(vec![0, 2], false),
                Form::Set(vec![2, 0], true),
                Form::Set(vec![1, 2], false),
                Form::Set(vec![0, 1], true),
            ]);
        }
        for form in forms {
            check("[3, 7, 20011]", &a, &h, op, &form);
        }
    }
}

#[test]
fn large_views_f32_a() {
    large_views::<f32>(&[Op::Sum, Op::Max, Op::ArgMax, Op::ArgMin]);
}

#[test]
fn large_views_f32_b() {
    large_views::<f32>(&[Op::Mean, Op::Var(0), Op::All]);
}

#[test]
fn large_views_int() {
    large_views::<i32>(&[Op::Sum, Op::Min, Op::ArgMax]);
    large_views::<u32>(&[Op::Max, Op::ArgMin]);
}

/// Five and six dimensions (more than the sweep's four), contiguous and transposed.
fn many_dims<T: Red>(ops: &[Op]) {
    require_dtype!(T);
    let mut rng = Rng::new(seed(&format!("many dims {}", T::NAME)));
    for &op in ops {
        let (a, h) = make::<T>(op, &mut rng, &[2, 3, 1, 4, 3, 5]);
        let (b, hb) = make::<T>(op, &mut rng, &[3, 2, 5, 2, 3]);
        let p = [4, 1, 3, 0, 2];
        let cases = [
            ("[2, 3, 1, 4, 3, 5]", a, h),
            (
                "transpose([4, 1, 3, 0, 2]) of [3, 2, 5, 2, 3]",
                b.transpose(&p).unwrap(),
                hb.transpose(&p),
            ),
        ];
        for (what, a, h) in &cases {
            let nd = h.shape.len();
            let mut forms = vec![Form::Whole];
            forms.extend((0..nd).map(Form::One));
            if op.has_sets() {
                forms.extend([
                    Form::Set(vec![0, 2, 4], false),
                    Form::Set(vec![1, 3], true),
                    Form::Set(vec![nd - 1, 0], false),
                    Form::Set((1..nd).collect(), true),
                    Form::Set(vec![], true),
                ]);
            }
            for form in forms {
                check(what, a, h, op, &form);
            }
        }
    }
}

#[test]
fn many_dims_f32() {
    many_dims::<f32>(&[Op::Sum, Op::Max, Op::ArgMin, Op::Mean, Op::Var(1), Op::Any]);
}

#[test]
fn many_dims_int() {
    many_dims::<i32>(&[Op::Prod, Op::Min, Op::ArgMax, Op::All]);
    many_dims::<u32>(&[Op::Sum, Op::Max]);
}

// ---------------------------------------------------------------------------------------
// NaN, infinities, first occurrence, -0
// ---------------------------------------------------------------------------------------

/// Sets `h`'s element at `idx` (and the device copy is made from `h` afterwards).
fn set(h: &mut Host, idx: &[usize], v: f64) {
    let mut lin = 0;
    for (d, &i) in idx.iter().enumerate() {
        lin = lin * h.shape[d] + i;
    }
    h.data[lin] = v;
}

fn to_device<T: Red>(h: &Host) -> Array<T> {
    let (a, back) = upload::<T>(dev(), &h.data, &h.shape);
    assert!(back
        .iter()
        .zip(&h.data)
        .all(|(x, y)| x == y || (x.is_nan() && y.is_nan())));
    a
}

const NAN_OPS: [Op; 9] = [
    Op::Max,
    Op::Min,
    Op::ArgMax,
    Op::ArgMin,
    Op::Sum,
    Op::Mean,
    Op::All,
    Op::Any,
    Op::Norm,
];

/// max/min propagate NaN, argmax/argmin return the first NaN, sum/mean/norm give NaN, a NaN
/// is true for all/any; rows and columns, short and long (several workgroups), NaN first,
/// last, several, and next to infinities.
fn nan_cases<T: Red>() {
    let dev = dev();
    require_dtype!(T);
    let nan = f64::NAN;
    let inf = f64::INFINITY;
    let mut rng = Rng::new(seed(&format!("nan {}", T::NAME)));
    let grid =
        |rng: &mut Rng, n: usize| -> Vec<f64> { (0..n).map(|_| rng.int(-40, 40) / 8.0).collect() };

    // Small explicit cases.
    for data in [
        vec![1.0, nan, 3.0],
        vec![nan],
        vec![nan, nan, -1.0],
        vec![2.0, 5.0, nan],
        vec![-inf, 1.0, inf, nan, inf],
    ] {
        let h = Host::new(&[data.len()], data);
        let a = to_device::<T>(&h);
        for op in NAN_OPS {
            check(&format!("{:?}", h.data), &a, &h, op, &Form::Whole);
            check(&format!("{:?}", h.data), &a, &h, op, &Form::One(0));
        }
    }
    let one = dev
        .from_slice(&[T::from_f64(1.0), T::from_f64(nan), T::from_f64(3.0)], [3])
        .unwrap();
    assert!(one.max().unwrap().to_scalar().unwrap().to_f64().is_nan());
    assert_eq!(one.argmax().unwrap().to_scalar().unwrap(), 1);
    assert_eq!(one.argmin().unwrap().to_scalar().unwrap(), 1);

    // Rows of 1031: none, first, two (500 and the last), last, infinities without NaN.
    let mut h = Host::new(&[5, 1031], grid(&mut rng, 5 * 1031));
    set(&mut h, &[1, 0], nan);
    set(&mut h, &[2, 500], nan);
    set(&mut h, &[2, 1030], nan);
    set(&mut h, &[3, 1030], nan);
    set(&mut h, &[4, 3], inf);
    set(&mut h, &[4, 900], -inf);
    set(&mut h, &[4, 901], inf);
    let a = to_device::<T>(&h);
    for op in NAN_OPS {
        for form in [Form::Whole, Form::One(0), Form::One(1)] {
            check("[5, 1031] with NaN and inf", &a, &h, op, &form);
            check(
                "t() of [5, 1031] with NaN and inf",
                &a.t(),
                &h.t(),
                op,
                &form,
            );
        }
    }

    // Long rows and long columns, NaN in later workgroups.
    let mut h = Host::new(&[3, 100_003], grid(&mut rng, 300_009));
    set(&mut h, &[1, 99_999], nan);
    set(&mut h, &[2, 70_000], nan);
    set(&mut h, &[2, 3], nan);
    let a = to_device::<T>(&h);
    let mut hc = Host::new(&[100_003, 3], grid(&mut rng, 300_009));
    set(&mut hc, &[77_777, 2], nan);
    set(&mut hc, &[100_002, 0], nan);
    set(&mut hc, &[65_536, 0], inf);
    let c = to_device::<T>(&hc);
    for op in [Op::Max, Op::Min, Op::ArgMax, Op::ArgMin, Op::Sum] {
        for form in [Form::Whole, Form::One(0), Form::One(1)] {
            check("[3, 100003] with NaN", &a, &h, op, &form);
            check("[100003, 3] with NaN", &c, &hc, op, &form);
        }
    }
}

#[test]
fn nan_f32() {
    nan_cases::<f32>();
}

#[test]
fn nan_f16() {
    nan_cases::<f16>();
}

#[test]
fn nan_f64() {
    nan_cases::<f64>();
}

/// all/any: != 0 is true, so NaN is true and -0 is false.
#[test]
fn all_any_nan_and_negative_zero() {
    let dev = dev();
    let cases: [(&[f32], bool, bool); 6] = [
        (&[0.0, f32::NAN], false, true),
        (&[f32::NAN], true, true),
        (&[-0.0], false, false),
        (&[-0.0, 0.0, -0.0], false, false),
        (&[1.0, -0.0], false, true),
        (&[1e-45, -1.0, f32::INFINITY], true, true),
    ];
    for (data, all, any) in cases {
        let a = dev.from_slice(data, [data.len()]).unwrap();
        assert_eq!(a.all().unwrap().to_scalar().unwrap(), all, "all {data:?}");
        assert_eq!(a.any().unwrap().to_scalar().unwrap(), any, "any {data:?}");
        assert_eq!(
            a.all_axis(Axis(0)).unwrap().to_scalar().unwrap(),
            all,
            "all_axis {data:?}"
        );
        assert_eq!(
            a.any_axes(&[0], true).unwrap().to_vec().unwrap(),
            vec![any],
            "any_axes {data:?}"
        );
    }
}

/// argmax/argmin return the first occurrence of the extreme, also when the copies lie in
/// different workgroups (the later copy processed first in a tree), along rows, columns and
/// the whole array; -0 and +0 compare equal.
fn first_occurrence<T: Red>() {
    require_dtype!(T);
    let mut rng = Rng::new(seed(&format!("first {}", T::NAME)));
    let (lo, hi) = if T::SIGNED { (-9, 9) } else { (1, 9) };
    let (top, bottom) = (50.0, if T::SIGNED { -50.0 } else { 0.0 });
    let ints = |rng: &mut Rng, n: usize| rng.ints(n, lo, hi);

    // Rows: the extreme at 99_000, 60_000 and 70_000 (row 0), at 2 and the last (row 1);
    // row 2 constant.
    let mut h = Host::new(&[3, 100_003], ints(&mut rng, 300_009));
    for (r, c) in [(0, 99_000), (0, 60_000), (0, 70_000), (1, 100_002), (1, 2)] {
        set(&mut h, &[r, c], top);
        set(&mut h, &[r, (c + 7) % 100_003], bottom);
        set(&mut h, &[r, (c + 1000) % 100_003], bottom);
    }
    for c in 0..100_003 {
        set(&mut h, &[2, c], 4.0);
    }
    let a = to_device::<T>(&h);
    let rows = host(&a.argmax_axis(Axis(1)).unwrap());
    assert_eq!(rows, vec![60_000.0, 2.0, 0.0], "{} argmax rows", T::NAME);
    for op in [Op::ArgMax, Op::ArgMin, Op::Max, Op::Min] {
        for form in [Form::Whole, Form::One(0), Form::One(1)] {
            check("[3, 100003] with ties", &a, &h, op, &form);
        }
    }
    // The same as columns.
    let ht = h.t();
    let at = to_device::<T>(&ht);
    let cols = host(&at.argmax_axis(Axis(0)).unwrap());
    assert_eq!(cols, vec![60_000.0, 2.0, 0.0], "{} argmax columns", T::NAME);
    let tv = a.t();
    for op in [Op::ArgMax, Op::ArgMin] {
        for form in [Form::Whole, Form::One(0), Form::One(1)] {
            check("[100003, 3] with ties", &at, &ht, op, &form);
            check("t() of [3, 100003] with ties", &tv, &ht, op, &form);
        }
    }
    // The whole array: flat C-order index of the first copy.
    let mut h = Host::new(&[257, 1031], ints(&mut rng, 257 * 1031));
    for i in [200_000, 150_000, 5, 264_965] {
        h.data[i] = top;
        h.data[i + 1] = bottom;
    }
    let a = to_device::<T>(&h);
    assert_eq!(a.argmax().unwrap().to_scalar().unwrap(), 5);
    assert_eq!(a.argmin().unwrap().to_scalar().unwrap(), 6);
    // In the transposed view the first copy (C order of the view) is another one.
    check(
        "t() of [257, 1031] with ties",
        &a.t(),
        &h.t(),
        Op::ArgMax,
        &Form::Whole,
    );
    check(
        "t() of [257, 1031] with ties",
        &a.t(),
        &h.t(),
        Op::ArgMin,
        &Form::Whole,
    );

    if T::FLOAT {
        for (data, amax, amin) in [
            (vec![-0.0, 0.0], 0, 0),
            (vec![0.0, -0.0], 0, 0),
            (vec![-1.0, -0.0, 0.0, -0.0], 1, 0),
        ] {
            let h = Host::new(&[data.len()], data);
            let a = to_device::<T>(&h);
            assert_eq!(
                a.argmax().unwrap().to_scalar().unwrap(),
                amax,
                "{:?}",
                h.data
            );
            assert_eq!(
                a.argmin().unwrap().to_scalar().unwrap(),
                amin,
                "{:?}",
                h.data
            );
        }
    }
}

#[test]
fn first_occurrence_f32() {
    first_occurrence::<f32>();
}

#[test]
fn first_occurrence_f16() {
    first_occurrence::<f16>();
}

#[test]
fn first_occurrence_i32() {
    first_occurrence::<i32>();
}

#[test]
fn first_occurrence_u32() {
    first_occurrence::<u32>();
}

// ---------------------------------------------------------------------------------------
// Integers wrap
// ---------------------------------------------------------------------------------------

/// i32 and u32 sums and products accumulate in their own type and wrap (two's complement).
#[test]
fn integer_sums_and_products_wrap() {
    let dev = dev();
    let i = |v: &[i32]| dev.from_slice(v, [v.len()]).unwrap();
    let u = |v: &[u32]| dev.from_slice(v, [v.len()]).unwrap();
    let si = |a: Array<i32>| a.to_scalar().unwrap();
    let su = |a: Array<u32>| a.to_scalar().unwrap();
    assert_eq!(si(i(&[i32::MAX, 1]).sum().unwrap()), i32::MIN);
    assert_eq!(si(i(&[i32::MIN, -1]).sum().unwrap()), i32::MAX);
    assert_eq!(si(i(&[i32::MAX; 4]).sum().unwrap()), -4);
    assert_eq!(su(u(&[u32::MAX, 2]).sum().unwrap()), 1);
    assert_eq!(
        su(u(&[3_000_000_000, 3_000_000_000]).sum().unwrap()),
        1_705_032_704
    );
    assert_eq!(si(i(&[65_536, 65_536]).prod().unwrap()), 0);
    assert_eq!(si(i(&[65_536, 32_768]).prod().unwrap()), i32::MIN);
    assert_eq!(si(i(&[-3; 21]).prod().unwrap()), (-3i32).wrapping_pow(21));
    assert_eq!(su(u(&[3; 40]).prod().unwrap()), 3u32.wrapping_pow(40));
    assert_eq!(su(u(&[65_537, 65_537]).prod().unwrap()), 131_073);

    // Random large values over every form, against wrapping arithmetic.
    let mut rng = Rng::new(seed("wrap"));
    let cases: [(&[usize], i64, i64); 3] = [
        (&[1031, 257], 1 << 29, (1 << 31) - 1),
        (&[3, 100_003], 1 << 20, 1 << 30),
        (&[100_003, 3], -(1 << 31), (1 << 31) - 1),
    ];
    for (shape, lo, hi) in cases {
        let n: usize = shape.iter().product();
        let vi = rng.ints(n, lo, hi);
        let (a, v) = upload::<i32>(dev, &vi, shape);
        let h = Host::new(shape, v);
        let vu: Vec<f64> = vi.iter().map(|&x| (x as i64 as u32) as f64).collect();
        let (b, v) = upload::<u32>(dev, &vu, shape);
        let hb = Host::new(shape, v);
        for form in [Form::Whole, Form::One(0), Form::One(1)] {
            check(&format!("{shape:?} large"), &a, &h, Op::Sum, &form);
            check(&format!("{shape:?} large"), &b, &hb, Op::Sum, &form);
        }
    }
    // Products of odd factors never reach 0 mod 2^32: every bit counts.
    let vi: Vec<f64> = (0..257 * 31).map(|_| rng.int(-4, 4) * 2.0 + 1.0).collect();
    let (a, v) = upload::<i32>(dev, &vi, &[257, 31]);
    let h = Host::new(&[257, 31], v);
    let vu: Vec<f64> = vi.iter().map(|x| x.abs()).collect();
    let (b, v) = upload::<u32>(dev, &vu, &[257, 31]);
    let hb = Host::new(&[257, 31], v);
    for form in [Form::Whole, Form::One(0), Form::One(1)] {
        check("[257, 31] odd factors", &a, &h, Op::Prod, &form);
        check("[257, 31] odd factors", &b, &hb, Op::Prod, &form);
    }
}

// ---------------------------------------------------------------------------------------
// Empty and one-element inputs, ddof, bad arguments
// ---------------------------------------------------------------------------------------

#[track_caller]
fn invalid<R: std::fmt::Debug>(r: Result<R>, what: &str) {
    match r {
        Err(Error::InvalidArgument { .. }) => {}
        other => panic!("{what}: expected InvalidArgument, got {other:?}"),
    }
}

#[track_caller]
fn out_of_range<R: std::fmt::Debug>(r: Result<R>, axis: usize, ndim: usize, what: &str) {
    match r {
        Err(Error::AxisOutOfRange { axis: a, ndim: n }) => {
            assert_eq!((a, n), (axis, ndim), "{what}")
        }
        other => panic!("{what}: expected AxisOutOfRange, got {other:?}"),
    }
}

/// Sum of nothing is 0, product 1, all 1, any 0, mean/var/std NaN, norm 0; max/min/arg* of
/// an empty reduced set are errors after which the device works; an output with a zero
/// extent is an empty array.
#[test]
fn empty_inputs() {
    let dev = dev();
    let e = dev.zeros::<f32>([0]).unwrap();
    let scalar = |a: Array<f32>| {
        assert_eq!(a.shape(), &[] as &[usize]);
        a.to_scalar().unwrap()
    };
    assert_eq!(scalar(e.sum().unwrap()), 0.0);
    assert_eq!(scalar(e.prod().unwrap()), 1.0);
    assert_eq!(scalar(e.norm().unwrap()), 0.0);
    assert!(scalar(e.mean().unwrap()).is_nan());
    assert!(scalar(e.var().unwrap()).is_nan());
    assert!(scalar(e.std().unwrap()).is_nan());
    assert!(e.all().unwrap().to_scalar().unwrap());
    assert!(!e.any().unwrap().to_scalar().unwrap());
    invalid(e.max(), "max of [0]");
    invalid(e.min(), "min of [0]");
    invalid(e.argmax(), "argmax of [0]");
    invalid(e.argmin(), "argmin of [0]");
    invalid(e.max_axis(Axis(0)), "max_axis(0) of [0]");
    still_works(dev);

    let ei = dev.zeros::<i32>([0, 4]).unwrap();
    assert_eq!(host(&ei.sum_axis(Axis(0)).unwrap()), vec![0.0; 4]);
    assert_eq!(host(&ei.prod_axis(Axis(0)).unwrap()), vec![1.0; 4]);
    assert_eq!(host(&ei.all_axis(Axis(0)).unwrap()), vec![1.0; 4]);
    assert_eq!(host(&ei.any_axis(Axis(0)).unwrap()), vec![0.0; 4]);
    invalid(ei.max_axis(Axis(0)), "max_axis(0) of [0, 4]");
    invalid(ei.argmin_axis(Axis(0)), "argmin_axis(0) of [0, 4]");
    invalid(ei.min_axes(&[0], true), "min_axes([0], keepdims) of [0, 4]");
    still_works(dev);
    // Kept zero-length axis: empty outputs, no error.
    let m = ei.max_axis(Axis(1)).unwrap();
    assert_eq!((m.shape(), m.len()), (&[0usize][..], 0));
    let m = ei.argmax_axis(Axis(1)).unwrap();
    assert_eq!(m.shape(), &[0]);
    let m = ei.sum_axes(&[1], true).unwrap();
    assert_eq!(m.shape(), &[0, 1]);
    assert!(m.to_vec().unwrap().is_empty());
    let m = ei.min_axes(&[1], false).unwrap();
    assert_eq!(m.shape(), &[0]);

    let ef = dev.zeros::<f32>([3, 0]).unwrap();
    let m = ef.mean_axis(Axis(1)).unwrap();
    assert_eq!(m.shape(), &[3]);
    assert!(host(&m).iter().all(|x| x.is_nan()));
    assert_eq!(host(&ef.norm_axis(Axis(1)).unwrap()), vec![0.0; 3]);
    let m = ef.var_axes(&[1], 0, true).unwrap();
    assert_eq!(m.shape(), &[3, 1]);
    assert!(host(&m).iter().all(|x| x.is_nan()));
    assert_eq!(ef.mean_axis(Axis(0)).unwrap().shape(), &[0]);
    invalid(ef.max(), "max of [3, 0]");
    still_works(dev);
}

/// One element: the value itself (sum, max, mean, norm of |x|), index 0, variance 0, and the
/// 0-d array.
#[test]
fn one_element() {
    let dev = dev();
    for shape in [&[][..], &[1], &[1, 1, 1]] {
        let a = dev.full::<f32>(shape, -2.5).unwrap();
        let s = |r: Result<Array<f32>>| r.unwrap().to_scalar().unwrap();
        assert_eq!(s(a.sum()), -2.5);
        assert_eq!(s(a.prod()), -2.5);
        assert_eq!(s(a.max()), -2.5);
        assert_eq!(s(a.min()), -2.5);
        assert_eq!(s(a.mean()), -2.5);
        assert_eq!(s(a.var()), 0.0);
        assert_eq!(s(a.std()), 0.0);
        assert_eq!(s(a.norm()), 2.5);
        assert!(s(a.var_ddof(1)).is_nan());
        assert_eq!(a.argmax().unwrap().to_scalar().unwrap(), 0);
        assert_eq!(a.argmin().unwrap().to_scalar().unwrap(), 0);
        assert!(a.all().unwrap().to_scalar().unwrap());
        assert!(a.any().unwrap().to_scalar().unwrap());
        let same = a.sum_axes(&[], false).unwrap();
        assert_eq!(same.shape(), shape);
        assert_eq!(host(&same), vec![-2.5]);
    }
    let u = dev.from_slice(&[7u32], [1]).unwrap();
    assert_eq!(u.sum().unwrap().to_scalar().unwrap(), 7);
    assert_eq!(u.max_axis(Axis(0)).unwrap().to_scalar().unwrap(), 7);
}

/// `sum_axes(&[], ..)` reduces nothing: the same values and shape.
#[test]
fn empty_axis_set_is_identity() {
    let dev = dev();
    let mut rng = Rng::new(seed("identity"));
    let (a, v) = upload::<f32>(dev, &rng.vec(60, -1.0, 2.0), &[3, 4, 5]);
    for kd in [false, true] {
        for r in [
            a.sum_axes(&[], kd),
            a.prod_axes(&[], kd),
            a.max_axes(&[], kd),
            a.min_axes(&[], kd),
            a.mean_axes(&[], kd),
        ] {
            let r = r.unwrap();
            assert_eq!(r.shape(), &[3, 4, 5]);
            assert_eq!(host(&r), v);
        }
        assert_eq!(host(&a.var_axes(&[], 0, kd).unwrap()), vec![0.0; 60]);
        let n = a.norm_axes(&[], kd).unwrap();
        assert_eq!(host(&n), v.iter().map(|x| x.abs()).collect::<Vec<_>>());
    }
    let (b, v) = upload::<i32>(dev, &rng.ints(12, -5, 5), &[4, 3]);
    let t = b.t();
    let r = t.sum_axes(&[], false).unwrap();
    assert_eq!(r.shape(), &[3, 4]);
    assert_eq!(host(&r), Host::new(&[4, 3], v).t().data);
}

/// var/std divide by max(n - ddof, 0): ddof >= n gives inf (or NaN for zero squares).
fn ddof_cases<T: Red + Float>() {
    let dev = dev();
    require_dtype!(T);
    let a = dev
        .from_slice(&[T::from_f64(1.0), T::from_f64(2.0)], [2])
        .unwrap();
    let s = |r: Result<Array<T>>| r.unwrap().to_scalar().unwrap().to_f64();
    assert_eq!(s(a.var()), 0.25);
    assert_eq!(s(a.var_ddof(0)), 0.25);
    assert_eq!(s(a.var_ddof(1)), 0.5);
    assert_eq!(s(a.var_ddof(2)), f64::INFINITY);
    assert_eq!(s(a.var_ddof(3)), f64::INFINITY);
    assert_eq!(s(a.std()), 0.5);
    assert_eq!(s(a.std_ddof(2)), f64::INFINITY);
    let one = dev.from_slice(&[T::from_f64(3.0)], [1]).unwrap();
    assert!(s(one.var_ddof(1)).is_nan());
    assert!(s(one.std_ddof(1)).is_nan());

    let mut rng = Rng::new(seed(&format!("ddof {}", T::NAME)));
    let (a, h) = make::<T>(Op::Var(0), &mut rng, &[4, 5, 3]);
    for d in [0, 1, 2, 3, 5, 7, 15, 60, 61] {
        for form in [
            Form::Whole,
            Form::One(1),
            Form::Set(vec![0, 2], true),
            Form::Set(vec![2], false),
        ] {
            check("[4, 5, 3]", &a, &h, Op::Var(d), &form);
            check("[4, 5, 3]", &a, &h, Op::Std(d), &form);
        }
    }
    // A constant array has variance 0 (up to rounding of the mean).
    let h = Host::new(&[1031], vec![2.5; 1031]);
    let c = to_device::<T>(&h);
    for op in [Op::Var(0), Op::Std(0), Op::Var(1)] {
        check("[2.5; 1031]", &c, &h, op, &Form::Whole);
    }
}

#[test]
fn ddof_f32() {
    ddof_cases::<f32>();
}

#[test]
fn ddof_f16() {
    ddof_cases::<f16>();
}

#[test]
fn ddof_f64() {
    ddof_cases::<f64>();
}

/// An axis >= ndim is AxisOutOfRange, a repeated axis InvalidArgument, for every op; the
/// device works afterwards.
#[test]
fn bad_axes_are_errors() {
    let dev = dev();
    let a = dev.zeros::<f32>([2, 3, 4]).unwrap();
    out_of_range(a.sum_axis(Axis(3)), 3, 3, "sum_axis");
    out_of_range(a.prod_axis(Axis(3)), 3, 3, "prod_axis");
    out_of_range(a.max_axis(Axis(3)), 3, 3, "max_axis");
    out_of_range(a.min_axis(Axis(7)), 7, 3, "min_axis");
    out_of_range(a.argmax_axis(Axis(3)), 3, 3, "argmax_axis");
    out_of_range(a.argmin_axis(Axis(4)), 4, 3, "argmin_axis");
    out_of_range(a.all_axis(Axis(3)), 3, 3, "all_axis");
    out_of_range(a.any_axis(Axis(3)), 3, 3, "any_axis");
    out_of_range(a.mean_axis(Axis(3)), 3, 3, "mean_axis");
    out_of_range(a.var_axis(Axis(3)), 3, 3, "var_axis");
    out_of_range(a.std_axis(Axis(3)), 3, 3, "std_axis");
    out_of_range(a.norm_axis(Axis(3)), 3, 3, "norm_axis");
    out_of_range(a.sum_axes(&[0, 3], false), 3, 3, "sum_axes");
    out_of_range(a.max_axes(&[5], true), 5, 3, "max_axes");
    out_of_range(a.all_axes(&[1, 9], true), 9, 3, "all_axes");
    out_of_range(a.var_axes(&[3], 1, false), 3, 3, "var_axes");
    out_of_range(a.std_axes(&[0, 1, 2, 3], 0, true), 3, 3, "std_axes");
    out_of_range(a.norm_axes(&[6], false), 6, 3, "norm_axes");
    let z = dev.full::<f32>([], 1.0).unwrap();
    out_of_range(z.sum_axis(Axis(0)), 0, 0, "sum_axis of 0-d");
    out_of_range(z.argmax_axis(Axis(0)), 0, 0, "argmax_axis of 0-d");
    still_works(dev);

    invalid(a.sum_axes(&[1, 1], false), "sum_axes [1, 1]");
    invalid(a.prod_axes(&[0, 2, 0], true), "prod_axes [0, 2, 0]");
    invalid(a.max_axes(&[2, 2], true), "max_axes [2, 2]");
    invalid(a.min_axes(&[0, 0], false), "min_axes [0, 0]");
    invalid(a.any_axes(&[1, 1], false), "any_axes [1, 1]");
    invalid(a.all_axes(&[2, 1, 2], false), "all_axes [2, 1, 2]");
    invalid(a.mean_axes(&[2, 2], false), "mean_axes [2, 2]");
    invalid(a.var_axes(&[0, 0], 1, false), "var_axes [0, 0]");
    invalid(a.std_axes(&[1, 1], 0, true), "std_axes [1, 1]");
    invalid(a.norm_axes(&[0, 1, 0], false), "norm_axes [0, 1, 0]");
    let b = dev.zeros::<i32>([5, 3]).unwrap();
    invalid(b.sum_axes(&[0, 0], false), "i32 sum_axes [0, 0]");
    out_of_range(b.argmin_axis(Axis(2)), 2, 2, "i32 argmin_axis");
    still_works(dev);
}

// ---------------------------------------------------------------------------------------
// Determinism, accuracy, larger than one binding
// ---------------------------------------------------------------------------------------

fn bits(a: &Array<f32>) -> Vec<u32> {
    a.to_vec().unwrap().iter().map(|x| x.to_bits()).collect()
}

/// The same input gives bit-identical results on 10 runs: f32 sums of the whole array,
/// axis 0 and axis 1 (rows, columns), and var.
#[test]
fn deterministic_repeats() {
    let dev = dev();
    let mut rng = Rng::new(seed("determinism"));
    let (a, _) = upload::<f32>(dev, &rng.vec(2053 * 1031, -1.0, 2.0), &[2053, 1031]);
    let (c, _) = upload::<f32>(dev, &rng.vec(300_007 * 3, -1.0, 2.0), &[300_007, 3]);
    type F = fn(&Array<f32>) -> Result<Array<f32>>;
    let runs: [(&str, F); 6] = [
        ("sum", |a| a.sum()),
        ("sum_axis(0)", |a| a.sum_axis(Axis(0))),
        ("sum_axis(1)", |a| a.sum_axis(Axis(1))),
        ("var", |a| a.var()),
        ("var_axis(0)", |a| a.var_axis(Axis(0))),
        ("mean_axes([0, 1], keepdims)", |a| {
            a.mean_axes(&[0, 1], true)
        }),
    ];
    for (x, shape) in [(&a, "[2053, 1031]"), (&c, "[300007, 3]")] {
        for (what, f) in runs {
            let first = bits(&f(x).unwrap());
            for run in 1..10 {
                assert_eq!(bits(&f(x).unwrap()), first, "{what} of {shape}, run {run}");
            }
        }
    }
}

/// f32 sums accumulate tree-wise: 4M uniform [0, 1) values sum within 1e-6 relative of the
/// f64 sum (a serial f32 chain is off by far more); long rows and long columns within the
/// tree bound k * u * S.
#[test]
fn f32_sum_is_tree_accurate() {
    let dev = dev();
    let mut rng = Rng::new(seed("accuracy"));
    let n = 4_000_037;
    let v: Vec<f32> = (0..n).map(|_| rng.unit() as f32).collect();
    let exact: f64 = v.iter().map(|&x| x as f64).sum();
    let a = dev.from_slice(&v, [n]).unwrap();
    let got = a.sum().unwrap().to_scalar().unwrap() as f64;
    let rel = (got - exact).abs() / exact;
    eprintln!("sum of {n} uniform f32: {got} vs {exact}, relative {rel:e}");
    assert!(
        rel <= 1e-6,
        "sum of {n}: {got} vs {exact}, relative {rel:e}"
    );
    let mean = a.mean().unwrap().to_scalar().unwrap() as f64;
    let rel = (mean - exact / n as f64).abs() / (exact / n as f64);
    assert!(rel <= 1e-6, "mean of {n}: relative {rel:e}");

    let v64: Vec<f64> = v.iter().map(|&x| x as f64).collect();
    for shape in [[4, 1_000_009], [1_000_009, 4]] {
        let m = 4 * 1_000_009;
        let h = Host::new(&shape, v64[..m].to_vec());
        let b = dev.from_slice(&v[..m], shape).unwrap();
        let axis = if shape[0] == 4 { 1 } else { 0 };
        check(
            &format!("uniform {shape:?}"),
            &b,
            &h,
            Op::Sum,
            &Form::One(axis),
        );
    }
}

/// A 40M-element f32 array (160 MB) is larger than one storage binding on lavapipe: there
/// `dev().limits()` reports max_storage_buffer_binding_size 134217728 (128 MiB) and
/// max_buffer_size 2147483647 ("llvmpipe (LLVM 15.0.6, 256 bits)"), and 160_000_000 >
/// 134_217_728 is asserted below. Whole sum (1e-6 relative of f64; 5e-8 seen on lavapipe),
/// max, argmax (the first copy, past the first binding), and sums over axis 0 and axis 1
/// of [40_000, 1000] (tree bound k * u * S).
#[test]
fn larger_than_one_binding() {
    let dev = dev();
    let n = 40_000_000usize;
    let bytes = (n * 4) as u64;
    let limits = dev.limits();
    eprintln!(
        "{}: {bytes} bytes, max_storage_buffer_binding_size {}, max_buffer_size {}",
        dev.info().name,
        limits.max_storage_buffer_binding_size,
        limits.max_buffer_size
    );
    if dev.info().name.contains("llvmpipe") {
        assert!(
            bytes > limits.max_storage_buffer_binding_size,
            "on lavapipe the array must exceed one binding"
        );
    }
    let mut rng = Rng::new(seed("forty million"));
    let mut v: Vec<f32> = (0..n)
        .map(|_| (rng.next_u64() >> 40) as f32 * (1.0 / (1u64 << 24) as f32))
        .collect();
    // The maximum at three places, the first past the first 128 MiB (index 33_554_432).
    for i in [39_999_999, 35_000_123, 36_000_000] {
        v[i] = 2.0;
    }
    let a = dev.from_slice(&v, [n]).unwrap();
    let exact: f64 = v.iter().map(|&x| x as f64).sum();
    let got = a.sum().unwrap().to_scalar().unwrap() as f64;
    let rel = (got - exact).abs() / exact;
    eprintln!("sum of 40M: {got} vs {exact}, relative {rel:e}");
    assert!(
        rel <= 1e-6,
        "sum of 40M: {got} vs {exact}, relative {rel:e}"
    );
    assert_eq!(a.max().unwrap().to_scalar().unwrap(), 2.0);
    assert_eq!(a.argmax().unwrap().to_scalar().unwrap(), 35_000_123);

    let (rows, cols) = (40_000, 1000);
    let m = a.reshape([rows, cols]).unwrap();
    let k = |len: usize| (len as f64).log2() + 4.0;
    let u = f32::U_ACC;
    // Axis 1: one sum per row.
    let got = host(&m.sum_axis(Axis(1)).unwrap());
    let (exp, tol): (Vec<f64>, Vec<f64>) = v
        .chunks(cols)
        .map(|r| {
            let s: f64 = r.iter().map(|&x| x as f64).sum();
            (s, k(cols) * u * s)
        })
        .unzip();
    assert_within("sum_axis(1) of [40000, 1000]", &got, &exp, &tol);
    // Axis 0: one sum per column.
    let got = host(&m.sum_axis(Axis(0)).unwrap());
    let mut exp = vec![0.0f64; cols];
    for r in v.chunks(cols) {
        for (e, &x) in exp.iter_mut().zip(r) {
            *e += x as f64;
        }
    }
    let tol: Vec<f64> = exp.iter().map(|s| k(rows) * u * s).collect();
    assert_within("sum_axis(0) of [40000, 1000]", &got, &exp, &tol);
}

/// argmax / argmin with the axis kept: every axis of a [3, 5, 7] array (and a strided view of
/// it) against the CPU's first occurrence of the extreme, the shape with extent 1 where the
/// axis was; an axis out of range and an empty axis are errors.
#[test]
fn arg_reductions_keepdims() {
    let d = dev();
    let mut rng = Rng::new(0x4b);
    let sh = [3usize, 5, 7];
    // Integers in a small range, so that ties (first occurrence) are common.
    let v = rng.ints(105, 0, 6);
    let t: Vec<f32> = v.iter().map(|&x| x as f32).collect();
    let a = d.from_slice(&t, sh).unwrap();
    let at = |i: [usize; 3]| v[(i[0] * 5 + i[1]) * 7 + i[2]];
    for axis in 0..3 {
        for max in [true, false] {
            let got = if max {
                a.argmax_axis_keepdims(Axis(axis)).unwrap()
            } else {
                a.argmin_axis_keepdims(Axis(axis)).unwrap()
            };
            let mut shape = sh.to_vec();
            shape[axis] = 1;
            assert_eq!(got.shape(), &shape[..]);
            let mut want = Vec::new();
            for i in 0..shape[0] {
                for j in 0..shape[1] {
                    for k in 0..shape[2] {
                        let mut best = 0;
                        for p in 1..sh[axis] {
                            let mut q = [i, j, k];
                            let mut b = [i, j, k];
                            q[axis] = p;
                            b[axis] = best;
                            let better = if max { at(q) > at(b) } else { at(q) < at(b) };
                            if better {
                                best = p;
                            }
                        }
                        want.push(best as u32);
                    }
                }
            }
            assert_eq!(got.to_vec().unwrap(), want, "axis {axis} max {max}");
        }
    }
    let view = a.transpose(&[2, 0, 1]).unwrap();
    let got = view.argmax_axis_keepdims(Axis(0)).unwrap();
    assert_eq!(got.shape(), &[1, 3, 5]);
    let want = a.argmax_axis(Axis(2)).unwrap().to_vec().unwrap();
    assert_eq!(got.to_vec().unwrap(), want);
    assert!(matches!(
        a.argmin_axis_keepdims(Axis(3)),
        Err(Error::AxisOutOfRange { .. })
    ));
    let empty = d.zeros::<f32>([2, 0]).unwrap();
    assert!(empty.argmax_axis_keepdims(Axis(1)).is_err());
}
