//! Fuzzing through the public API: random shapes, axes, slices, reshape targets, dtypes and
//! op arguments, many of them invalid (axes out of range, shapes that do not broadcast,
//! sizes past any buffer, zero sizes, bad slices, bad ddof, bad convolution options). Every
//! call must return `Ok` or a typed `Error` (never panic, never `Error::Validation` or
//! `DeviceLost`), and the device must stay usable: a small computation is checked after
//! every error.
//!
//! `GPUARRAY_FUZZ_CASES` sets the number of cases (default 5,000; each case makes several
//! calls), `GPUARRAY_FUZZ_SEED` the first seed; a failure names the seed that repeats it.
//!
//! User kernels get random bytes and mutated WGSL as source (`user_kernel_case`). The math
//! of the numerics issue gets special values in every float dtype (`math_case`), arrays get
//! up to 12 dimensions (`many_dims_case`), and operands of a second device must give
//! `DeviceMismatch` and leave both devices' arrays intact (`two_devices_case`).

#[macro_use]
mod common;

use std::panic::{catch_unwind, AssertUnwindSafe};
use std::sync::OnceLock;

use common::*;
use gpuarray::nn::{conv1d, conv2d, Conv1d, Conv2d};
use gpuarray::signal::{convolve, convolve2d_with, correlate, Boundary, Mode};
use gpuarray::{f16, Array, Device, Error, Float, Slice};

fn env_usize(name: &str, default: usize) -> usize {
    std::env::var(name)
        .ok()
        .and_then(|v| v.parse().ok())
        .unwrap_or(default)
}

/// Counts of calls and their outcomes.
#[derive(Default, Debug)]
struct Tally {
    calls: usize,
    ok: usize,
    errors: usize,
}

/// Runs one API call: a panic, a validation error or a lost device fails the case (with the
/// call's text); an error is followed by a check that the device still computes.
fn call<R>(t: &mut Tally, what: &str, f: impl FnOnce() -> gpuarray::Result<R>) -> Option<R> {
    t.calls += 1;
    let r = catch_unwind(AssertUnwindSafe(f)).unwrap_or_else(|p| {
        let msg = p
            .downcast_ref::<String>()
            .cloned()
            .or_else(|| p.downcast_ref::<&str>().map(|s| s.to_string()))
            .unwrap_or_default();
        panic!("{what} panicked: {msg}")
    });
    match r {
        Ok(v) => {
            t.ok += 1;
            Some(v)
        }
        Err(e @ (Error::Validation(_) | Error::DeviceLost(_) | Error::Map(_))) => {
            panic!("{what} gave {e:?}")
        }
        Err(_) => {
            t.errors += 1;
            still_works(what);
            None
        }
    }
}

#[track_caller]
fn still_works(what: &str) {
    let x = dev().from_slice(&[1.0f32, -2.0, 3.5], [3]).unwrap();
    let v = x.mul_scalar(2.0).unwrap().to_vec().unwrap();
    assert_eq!(v, vec![2.0, -4.0, 7.0], "device unusable after {what}");
}

/// A random size: mostly small, sometimes 0, sometimes enormous.
fn size(rng: &mut Rng) -> usize {
    match rng.next_u64() % 20 {
        0 => 0,
        1 => [1 << 31, 1 << 33, usize::MAX / 2, usize::MAX, 1 << 62][(rng.next_u64() % 5) as usize],
        2..=4 => 1,
        _ => (rng.next_u64() % 9) as usize,
    }
}

fn shape(rng: &mut Rng) -> Vec<usize> {
    let nd = (rng.next_u64() % 6) as usize;
    (0..nd).map(|_| size(rng)).collect()
}

/// A small valid shape (so that arrays exist to call things on).
fn small_shape(rng: &mut Rng) -> Vec<usize> {
    let nd = (rng.next_u64() % 5) as usize;
    (0..nd).map(|_| (rng.next_u64() % 6) as usize).collect()
}

fn index(rng: &mut Rng) -> isize {
    match rng.next_u64() % 8 {
        0 => isize::MIN,
        1 => isize::MAX,
        2 => -((rng.next_u64() % 8) as isize),
        _ => (rng.next_u64() % 8) as isize,
    }
}

fn axis(rng: &mut Rng, ndim: usize) -> usize {
    match rng.next_u64() % 6 {
        0 => usize::MAX,
        1 => ndim + (rng.next_u64() % 3) as usize,
        _ => (rng.next_u64() % (ndim as u64 + 1)) as usize,
    }
}

fn slice(rng: &mut Rng) -> Slice {
    let end = if rng.bool(0.3) {
        None
    } else {
        Some(index(rng))
    };
    let step = match rng.next_u64() % 8 {
        0 => 0,
        1 => isize::MAX,
        2 => isize::MIN,
        3 | 4 => -1 - (rng.next_u64() % 3) as isize,
        _ => 1 + (rng.next_u64() % 3) as isize,
    };
    Slice::new(index(rng), end, step)
}

/// A random array of `T` (a small valid one, or a view of one), or None when creation fails.
fn array<T: Ty>(rng: &mut Rng, t: &mut Tally) -> Option<Array<T>> {
    let dev = dev();
    let s = small_shape(rng);
    let n: usize = s.iter().product();
    let v = rng.ints(n, -5, 5);
    let a = call(t, "from_slice", || {
        dev.from_slice(&cast_in::<T>(&v).0, s.as_slice())
    })?;
    Some(match rng.next_u64() % 4 {
        0 if a.ndim() >= 2 => a.t(),
        1 => {
            // steps of 1 or 2, either way (negative steps are views walking backwards)
            let sl: Vec<Slice> = (0..a.ndim())
                .map(|_| {
                    let step = 1 + (rng.next_u64() % 2) as isize;
                    Slice::from(..).step(if rng.bool(0.5) { -step } else { step })
                })
                .collect();
            a.slice(sl.as_slice()).ok()?
        }
        _ => a,
    })
}

fn creation_case(rng: &mut Rng, t: &mut Tally) {
    let dev = dev();
    let s = shape(rng);
    let w = format!("creation {s:?}");
    match rng.next_u64() % 9 {
        0 => drop(call(t, &w, || dev.zeros::<f32>(s.as_slice()))),
        1 => drop(call(t, &w, || dev.ones::<i32>(s.as_slice()))),
        2 => drop(call(t, &w, || dev.full::<u32>(s.as_slice(), 7))),
        3 => {
            let f = [0.0, 1.0, -1.0, 0.5, f32::NAN, f32::INFINITY, 1e30, -1e-30];
            let pick = |rng: &mut Rng| f[(rng.next_u64() % f.len() as u64) as usize];
            let (a, b, c) = (pick(rng), pick(rng), pick(rng));
            drop(call(t, &format!("arange({a}, {b}, {c})"), || {
                dev.arange::<f32>(a, b, c)
            }));
            let (a, b, c) = (index(rng) as i32, index(rng) as i32, index(rng) as i32);
            drop(call(t, &format!("arange({a}, {b}, {c})"), || {
                dev.arange::<i32>(a, b, c)
            }));
        }
        4 => {
            let n = size(rng);
            drop(call(t, &format!("linspace {n}"), || {
                dev.linspace::<f32>(0.0, 1.0, n)
            }));
        }
        5 => {
            let (n, m, k) = (size(rng), size(rng), index(rng));
            drop(call(t, &format!("eye_rect({n}, {m}, {k})"), || {
                dev.eye_rect::<f32>(n, m, k)
            }));
        }
        6 => drop(call(t, &w, || {
            dev.random_uniform::<f32>(s.as_slice(), rng.next_u64())
        })),
        7 => drop(call(t, &w, || dev.random_normal::<f32>(s.as_slice(), 1))),
        _ => {
            // Data whose length differs from the shape's.
            let n = (rng.next_u64() % 10) as usize;
            let v = vec![1.0f32; n];
            drop(call(t, &format!("from_slice {n} values as {s:?}"), || {
                dev.from_slice(&v, s.as_slice())
            }));
        }
    }
}

fn view_case<T: Ty>(rng: &mut Rng, t: &mut Tally) {
    let Some(a) = array::<T>(rng, t) else { return };
    let w = format!("view of {:?}", a.shape());
    let nd = a.ndim();
    match rng.next_u64() % 8 {
        0 => {
            let s = shape(rng);
            if let Some(r) = call(t, &format!("{w} reshape {s:?}"), || a.reshape(s.as_slice())) {
                assert_eq!(r.len(), a.len());
            }
        }
        1 => {
            let perm: Vec<usize> = (0..nd + (rng.next_u64() % 2) as usize)
                .map(|_| axis(rng, nd))
                .collect();
            drop(call(t, &format!("{w} transpose {perm:?}"), || {
                a.transpose(&perm)
            }));
        }
        2 => {
            let s = shape(rng);
            drop(call(t, &format!("{w} broadcast_to {s:?}"), || {
                a.broadcast_to(s.as_slice())
            }));
        }
        3 => {
            let sl: Vec<Slice> = (0..(rng.next_u64() % (nd as u64 + 2)) as usize)
                .map(|_| slice(rng))
                .collect();
            if let Some(v) = call(t, &format!("{w} slice {sl:?}"), || a.slice(sl.as_slice())) {
                drop(call(t, &format!("{w} slice {sl:?} to_vec"), || v.to_vec()));
            }
        }
        4 => {
            let (ax, s) = (axis(rng, nd), slice(rng));
            drop(call(t, &format!("{w} slice_axis {ax} {s:?}"), || {
                a.slice_axis(ax, s)
            }));
        }
        5 => drop(call(t, &format!("{w} to_scalar"), || a.to_scalar())),
        6 => drop(call(t, &format!("{w} cast"), || {
            a.cast::<f32>()?.cast::<u32>()?.cast::<i32>()
        })),
        _ => drop(call(t, &format!("{w} contiguous"), || a.contiguous())),
    }
}

fn elementwise_case(rng: &mut Rng, t: &mut Tally) {
    let (Some(a), Some(b)) = (array::<f32>(rng, t), array::<f32>(rng, t)) else {
        return;
    };
    let w = format!("{:?} with {:?}", a.shape(), b.shape());
    match rng.next_u64() % 8 {
        0 => drop(call(t, &format!("add {w}"), || a.add(&b))),
        1 => drop(call(t, &format!("pow {w}"), || a.pow(&b))),
        2 => drop(call(t, &format!("div {w}"), || a.div(&b))),
        3 => drop(call(t, &format!("rem {w}"), || a.rem(&b))),
        4 => drop(call(t, &format!("gt {w}"), || a.gt(&b))),
        5 => {
            let m = a.gt_scalar(0.0).ok();
            if let Some(m) = m {
                drop(call(t, &format!("where {w}"), || Array::where_(&m, &a, &b)));
            }
        }
        6 => drop(call(t, &format!("log/sqrt {w}"), || {
            a.log()?.sqrt()?.tanh()?.clip(f32::NAN, -1.0)
        })),
        _ => {
            let ai = a.cast::<i32>().ok();
            let bi = b.cast::<i32>().ok();
            if let (Some(ai), Some(bi)) = (ai, bi) {
                drop(call(t, &format!("i32 div/rem/pow {w}"), || {
                    ai.div(&bi)?.rem(&bi)?.pow(&bi)
                }));
                drop(call(t, &format!("i32 min scalar {w}"), || {
                    ai.div_scalar(0)?.rem_scalar(i32::MIN)
                }));
            }
        }
    }
}

/// Values of every kind a float function meets: special values, extremes, subnormals,
/// integers and halves, and random magnitudes of both signs.
fn special_values(rng: &mut Rng, n: usize) -> Vec<f64> {
    const SPECIAL: [f64; 14] = [
        0.0,
        -0.0,
        1.0,
        -1.0,
        0.5,
        f64::INFINITY,
        f64::NEG_INFINITY,
        f64::NAN,
        1e-45,
        -1e-45,
        3.4e38,
        -3.4e38,
        1e300,
        2147483520.0,
    ];
    (0..n)
        .map(|_| match rng.next_u64() % 4 {
            0 => SPECIAL[(rng.next_u64() % SPECIAL.len() as u64) as usize],
            1 => rng.int(-100, 100) * 0.5,
            _ => rng.uniform(-1.0, 1.0) * 10f64.powf(rng.uniform(-40.0, 40.0)),
        })
        .collect()
}

/// The float functions of one dtype on special values: each result must have the input's
/// length (values are checked by tests/numerics).
fn math_of<T: Float + Ty>(rng: &mut Rng, t: &mut Tally) {
    if !supported::<T>(dev()) {
        return;
    }
    let n = size(rng).min(300);
    let v = special_values(rng, n);
    let w = special_values(rng, n);
    let Some(a) = call(t, "from_slice", || {
        dev().from_slice(&cast_in::<T>(&v).0, [n])
    }) else {
        return;
    };
    let Some(b) = call(t, "from_slice", || {
        dev().from_slice(&cast_in::<T>(&w).0, [n])
    }) else {
        return;
    };
    type Un<T> = fn(&Array<T>) -> gpuarray::Result<Array<T>>;
    type Bin<T> = fn(&Array<T>, &Array<T>) -> gpuarray::Result<Array<T>>;
    let unary: [(&str, Un<T>); 21] = [
        ("exp", |a| a.exp()),
        ("exp2", |a| a.exp2()),
        ("expm1", |a| a.expm1()),
        ("log", |a| a.log()),
        ("log2", |a| a.log2()),
        ("log10", |a| a.log10()),
        ("log1p", |a| a.log1p()),
        ("sqrt", |a| a.sqrt()),
        ("rsqrt", |a| a.rsqrt()),
        ("sin", |a| a.sin()),
        ("cos", |a| a.cos()),
        ("tan", |a| a.tan()),
        ("sinh", |a| a.sinh()),
        ("cosh", |a| a.cosh()),
        ("tanh", |a| a.tanh()),
        ("asin", |a| a.asin()),
        ("acos", |a| a.acos()),
        ("atan", |a| a.atan()),
        ("cbrt", |a| a.cbrt()),
        ("sigmoid", |a| a.sigmoid()),
        ("round", |a| a.round()),
    ];
    let binary: [(&str, Bin<T>); 6] = [
        ("div", |a, b| a.div(b)),
        ("rem", |a, b| a.rem(b)),
        ("pow", |a, b| a.pow(b)),
        ("remainder", |a, b| a.remainder(b)),
        ("floor_divide", |a, b| a.floor_divide(b)),
        ("atan2", |a, b| a.atan2(b)),
    ];
    let name = T::DTYPE;
    if rng.bool(0.5) {
        let (op, f) = unary[(rng.next_u64() % unary.len() as u64) as usize];
        let r = call(t, &format!("{op} {name:?} of {n}"), || f(&a)?.to_vec());
        assert!(r.is_none_or(|r| r.len() == n), "{op}: length");
    } else {
        let (op, f) = binary[(rng.next_u64() % binary.len() as u64) as usize];
        let r = call(t, &format!("{op} {name:?} of {n}"), || f(&a, &b)?.to_vec());
        assert!(r.is_none_or(|r| r.len() == n), "{op}: length");
    }
    // Casts to every other dtype, as Rust's `as`.
    let r = call(t, &format!("casts of {name:?}"), || {
        Ok((
            a.cast::<i32>()?.to_vec()?,
            a.cast::<u32>()?.to_vec()?,
            a.cast::<f32>()?.to_vec()?,
        ))
    });
    if let Some((i, u, f)) = r {
        let host: Vec<T> = cast_in::<T>(&v).0;
        for k in 0..n {
            let x = host[k].to_f64();
            assert_eq!(i[k], x as i32, "{name:?} {x:e} as i32");
            assert_eq!(u[k], x as u32, "{name:?} {x:e} as u32");
            assert!(
                f[k].to_bits() == (x as f32).to_bits() || (x.is_nan() && f[k].is_nan()),
                "{name:?} {x:e} as f32"
            );
        }
    }
}

fn math_case(rng: &mut Rng, t: &mut Tally) {
    match rng.next_u64() % 3 {
        0 => math_of::<f32>(rng, t),
        1 => math_of::<f16>(rng, t),
        _ => math_of::<f64>(rng, t),
    }
}

/// Arrays of 9 to 12 dimensions (extents 1 to 3), transposed and stepped, through
/// elementwise ops, reductions and reshapes, checked against the host.
fn many_dims_case(rng: &mut Rng, t: &mut Tally) {
    let nd = 9 + (rng.next_u64() % 4) as usize;
    let shape: Vec<usize> = (0..nd).map(|_| 1 + (rng.next_u64() % 3) as usize).collect();
    let n: usize = shape.iter().product();
    let v = rng.ints(n, -9, 9);
    let Some(a) = call(t, "from_slice", || {
        dev().from_slice(&cast_in::<f32>(&v).0, shape.as_slice())
    }) else {
        return;
    };
    let mut perm: Vec<usize> = (0..nd).collect();
    for i in (1..nd).rev() {
        perm.swap(i, (rng.next_u64() % (i as u64 + 1)) as usize);
    }
    let host = Host::new(&shape, v.clone()).transpose(&perm);
    let w = format!("{nd}-d {shape:?} permuted {perm:?}");
    let r = call(t, &w, || {
        let p = a.transpose(&perm)?;
        Ok((p.add_scalar(1.0)?.to_vec()?, p.sum()?.to_vec()?))
    });
    if let Some((added, sum)) = r {
        let want: Vec<f32> = host.data.iter().map(|x| (x + 1.0) as f32).collect();
        assert_eq!(added, want, "{w}: add_scalar");
        assert_eq!(sum[0] as f64, v.iter().sum::<f64>(), "{w}: sum");
    }
    let axis = (rng.next_u64() % (nd as u64 + 1)) as usize;
    drop(call(t, &format!("{w} sum_axis {axis}"), || {
        a.sum_axis(axis, false)
    }));
}

/// A second device, opened once.
fn other() -> &'static Device {
    static OTHER: OnceLock<Device> = OnceLock::new();
    OTHER.get_or_init(|| Device::new().expect("a second device"))
}

/// Operands of two devices: every op refuses with `DeviceMismatch`, and both devices' arrays
/// read back unchanged.
fn two_devices_case(rng: &mut Rng, t: &mut Tally) {
    let n = 1 + (rng.next_u64() % 8) as usize;
    let v: Vec<f32> = (0..n).map(|i| i as f32 + 0.5).collect();
    let (Ok(a), Ok(b)) = (dev().from_slice(&v, [n]), other().from_slice(&v, [n])) else {
        panic!("from_slice on two devices");
    };
    let (x, y) = if rng.bool(0.5) { (&a, &b) } else { (&b, &a) };
    let r = match rng.next_u64() % 5 {
        0 => x.add(y).map(drop),
        1 => x.atan2(y).map(drop),
        2 => x.remainder(y).map(drop),
        3 => x
            .reshape([1, n])
            .and_then(|m| m.matmul(&y.reshape([n, 1])?))
            .map(drop),
        _ => x
            .gt_scalar(1.0)
            .and_then(|m| Array::where_(&m, x, y))
            .map(drop),
    };
    t.calls += 1;
    t.errors += 1;
    assert!(
        matches!(r, Err(Error::DeviceMismatch { .. })),
        "two devices: {r:?}"
    );
    assert_eq!(
        a.to_vec().unwrap(),
        v,
        "first device's array after a mismatch"
    );
    assert_eq!(
        b.to_vec().unwrap(),
        v,
        "second device's array after a mismatch"
    );
    still_works("two devices");
}

fn reduce_case(rng: &mut Rng, t: &mut Tally) {
    let Some(a) = array::<f32>(rng, t) else {
        return;
    };
    let nd = a.ndim();
    let axes: Vec<usize> = (0..(rng.next_u64() % 4) as usize)
        .map(|_| axis(rng, nd))
        .collect();
    let keep = rng.bool(0.5);
    let ddof = match rng.next_u64() % 4 {
        0 => usize::MAX,
        1 => a.len() + 1,
        _ => (rng.next_u64() % 3) as usize,
    };
    let ax = axis(rng, nd);
    let w = format!("{:?} axes {axes:?} axis {ax} ddof {ddof}", a.shape());
    match rng.next_u64() % 10 {
        0 => drop(call(t, &format!("sum_axis {w}"), || {
            a.sum_axis(&axes, keep)
        })),
        1 => drop(call(t, &format!("max_axis {w}"), || {
            a.max_axis(&axes, keep)
        })),
        2 => drop(call(t, &format!("argmax_axis {w}"), || {
            a.argmax_axis(ax, false)
        })),
        3 => drop(call(t, &format!("argmin {w}"), || a.argmin()?.to_vec())),
        4 => drop(call(t, &format!("var_axis {w}"), || {
            a.var_axis(&axes, ddof, keep)
        })),
        5 => drop(call(t, &format!("std_axis(..) {w}"), || {
            a.std_axis(.., ddof, false)?.to_vec()
        })),
        6 => drop(call(t, &format!("mean_axis {w}"), || {
            a.mean_axis(ax, false)
        })),
        7 => drop(call(t, &format!("norm {w}"), || a.norm()?.to_scalar())),
        8 => drop(call(t, &format!("min {w}"), || a.min()?.to_scalar())),
        _ => {
            let ai = a.cast::<i32>().ok();
            if let Some(ai) = ai {
                drop(call(t, &format!("i32 sum/prod {w}"), || {
                    ai.sum_axis(&axes, keep)?.to_vec()
                }));
            }
        }
    }
}

fn linalg_case(rng: &mut Rng, t: &mut Tally) {
    let (Some(a), Some(b)) = (array::<f32>(rng, t), array::<f32>(rng, t)) else {
        return;
    };
    let w = format!("{:?} @ {:?}", a.shape(), b.shape());
    match rng.next_u64() % 4 {
        0 => drop(call(t, &format!("matmul {w}"), || a.matmul(&b)?.to_vec())),
        1 => drop(call(t, &format!("dot {w}"), || a.dot(&b))),
        2 => drop(call(t, &format!("outer {w}"), || a.outer(&b))),
        _ => drop(call(t, &format!("trace {w}"), || a.trace())),
    }
}

fn conv_case(rng: &mut Rng, t: &mut Tally) {
    let (Some(a), Some(b)) = (array::<f32>(rng, t), array::<f32>(rng, t)) else {
        return;
    };
    let w = format!("{:?} * {:?}", a.shape(), b.shape());
    let mode = [Mode::Full, Mode::Same, Mode::Valid][(rng.next_u64() % 3) as usize];
    let bnd = [
        Boundary::Fill(f64::NAN),
        Boundary::Symmetric,
        Boundary::Wrap,
        Boundary::Fill(1e300),
    ][(rng.next_u64() % 4) as usize];
    let bad = |rng: &mut Rng| match rng.next_u64() % 6 {
        0 => 0,
        1 => usize::MAX,
        2 => 1 << 40,
        _ => 1 + (rng.next_u64() % 3) as usize,
    };
    match rng.next_u64() % 4 {
        0 => drop(call(t, &format!("convolve {w} {mode:?}"), || {
            convolve(&a, &b, mode)
        })),
        1 => drop(call(t, &format!("correlate {w} {mode:?}"), || {
            correlate(&a, &b, mode)
        })),
        2 => drop(call(t, &format!("convolve2d {w} {mode:?} {bnd:?}"), || {
            convolve2d_with(&a, &b, mode, bnd)
        })),
        _ => {
            let o = Conv2d {
                stride: [bad(rng), bad(rng)],
                padding: [bad(rng).saturating_sub(1), (rng.next_u64() % 3) as usize],
                dilation: [bad(rng), 1],
                groups: bad(rng),
            };
            let bias = dev().ones::<f32>([(rng.next_u64() % 4) as usize]).ok();
            drop(call(t, &format!("conv2d {w} {o:?}"), || {
                conv2d(&a, &b, bias.as_ref(), o)?.to_vec()
            }));
            let o1 = Conv1d {
                stride: bad(rng),
                padding: (rng.next_u64() % 3) as usize,
                dilation: bad(rng),
                groups: bad(rng),
            };
            drop(call(t, &format!("conv1d {w} {o1:?}"), || {
                conv1d(&a, &b, None, o1)
            }));
        }
    }
}

/// A valid raw kernel, the base of the mutated ones.
const RAW_BASE: &str = "@group(0) @binding(0) var<storage, read> x: array<f32>;
@group(0) @binding(1) var<storage, read_write> y: array<f32>;
@group(0) @binding(2) var<uniform> n: u32;
@compute @workgroup_size(64)
fn twice(@builtin(global_invocation_id) id: vec3<u32>) {
    if (id.x < n) { y[id.x] = 2.0 * x[id.x]; }
}";

/// `base` mutated: random bytes, a range deleted, random bytes inserted, a line doubled,
/// or characters swapped.
fn mutate(rng: &mut Rng, base: &str) -> String {
    let b = base.as_bytes();
    let at = |rng: &mut Rng| (rng.next_u64() % (b.len() as u64 + 1)) as usize;
    let noise = |rng: &mut Rng, n: usize| -> Vec<u8> {
        (0..n)
            .map(|_| {
                if rng.bool(0.7) {
                    const ALPHABET: &[u8] = b"(){}[];:,.<>=+-*/@ xyzfnletvaru32f32 0123456789\n";
                    ALPHABET[(rng.next_u64() % ALPHABET.len() as u64) as usize]
                } else {
                    rng.next_u64() as u8
                }
            })
            .collect()
    };
    let out: Vec<u8> = match rng.next_u64() % 5 {
        0 => {
            let n = (rng.next_u64() % 200) as usize;
            noise(rng, n)
        }
        1 => {
            let (i, j) = (at(rng), at(rng));
            let (i, j) = (i.min(j), i.max(j));
            [&b[..i], &b[j..]].concat()
        }
        2 => {
            let i = at(rng);
            let n = 1 + (rng.next_u64() % 8) as usize;
            [&b[..i], &noise(rng, n)[..], &b[i..]].concat()
        }
        3 => {
            let lines: Vec<&str> = base.lines().collect();
            let k = (rng.next_u64() % lines.len() as u64) as usize;
            let mut v = lines.clone();
            v.insert(k, lines[k]);
            v.join("\n").into_bytes()
        }
        _ => {
            let mut v = b.to_vec();
            for _ in 0..3 {
                let (i, j) = (at(rng).min(v.len() - 1), at(rng).min(v.len() - 1));
                v.swap(i, j);
            }
            v
        }
    };
    String::from_utf8_lossy(&out).into_owned()
}

/// User kernels: mutated WGSL and random bytes as a RawKernel's source, and mutated bodies
/// and parameter lists of an ElementwiseKernel. Construction must give `Ok` or a typed
/// error; an ElementwiseKernel that compiles is also called (its body has no loop, so it
/// ends), and a RawKernel only when its source is the unmutated one, since a mutated one
/// could loop forever.
fn user_kernel_case(rng: &mut Rng, t: &mut Tally) {
    use gpuarray::custom::{ElementwiseKernel, RawKernel};
    let dev = dev();
    if rng.bool(0.5) {
        let src = if rng.bool(0.1) {
            RAW_BASE.to_string()
        } else {
            mutate(rng, RAW_BASE)
        };
        let k = call(t, "RawKernel::new", || RawKernel::new(dev, &src, "twice"));
        if let (Some(k), true) = (k, src == RAW_BASE) {
            let x = dev.from_slice(&[1.0f32, 2.0, 3.0], [3]).unwrap();
            let y = dev.zeros::<f32>([3]).unwrap();
            call(t, "RawKernel::launch", || k.launch(1, &[&x, &y, &3u32]));
            assert_eq!(y.to_vec().unwrap(), vec![2.0, 4.0, 6.0]);
        }
    } else {
        let body = mutate(rng, "z = (x - y) * (x - y) + T(1);");
        let ins = if rng.bool(0.8) {
            "T x, T y".to_string()
        } else {
            mutate(rng, "T x, T y")
        };
        let k = call(t, "ElementwiseKernel::new", || {
            ElementwiseKernel::new(dev, &ins, "T z", &body, "fuzzed")
        });
        let looping = ["loop", "while", "for"].iter().any(|w| body.contains(w));
        if let (Some(k), false) = (k, looping) {
            let x = dev.from_slice(&[1.0f32, 2.0], [2]).unwrap();
            let y = dev.from_slice(&[0.5f32], [1]).unwrap();
            call(t, "ElementwiseKernel::call", || k.call::<f32>(&[&x, &y]));
        }
    }
}

fn one_case(seed: u64, t: &mut Tally) {
    let mut rng = Rng::new(seed);
    for _ in 0..3 {
        match rng.next_u64() % 15 {
            12 => math_case(&mut rng, t),
            13 => many_dims_case(&mut rng, t),
            14 => two_devices_case(&mut rng, t),
            0 | 1 => creation_case(&mut rng, t),
            2 => view_case::<f32>(&mut rng, t),
            3 => view_case::<i32>(&mut rng, t),
            4 => view_case::<u32>(&mut rng, t),
            5 | 6 => elementwise_case(&mut rng, t),
            7 | 8 => reduce_case(&mut rng, t),
            9 => linalg_case(&mut rng, t),
            10 => conv_case(&mut rng, t),
            _ => user_kernel_case(&mut rng, t),
        }
    }
}

#[test]
fn random_calls_return_ok_or_a_typed_error() {
    let cases = env_usize("GPUARRAY_FUZZ_CASES", 5000);
    let seed = env_usize("GPUARRAY_FUZZ_SEED", 1) as u64;
    let start = std::time::Instant::now();
    let mut t = Tally::default();
    for k in 0..cases as u64 {
        let s = seed + k;
        if let Err(p) = catch_unwind(AssertUnwindSafe(|| one_case(s, &mut t))) {
            let msg = p
                .downcast_ref::<String>()
                .cloned()
                .or_else(|| p.downcast_ref::<&str>().map(|s| s.to_string()))
                .unwrap_or_default();
            panic!("case seed {s} (GPUARRAY_FUZZ_SEED={s} GPUARRAY_FUZZ_CASES=1): {msg}");
        }
    }
    eprintln!(
        "fuzz: {cases} cases from seed {seed}: {} calls, {} ok, {} typed errors, in {:.1} s",
        t.calls,
        t.ok,
        t.errors,
        start.elapsed().as_secs_f64()
    );
    assert!(t.errors > 0 && t.ok > 0);
    let _ = Device::new; // the shared device is the one under test
}

/// Inputs the fuzzer found panicking, kept as plain regression tests.
#[test]
fn regressions() {
    // A raw kernel whose workgroup is larger than the adapter allows: a typed InvalidShader
    // from `new`, not a wgpu validation error (found by the fuzzer, seed 41870).
    let big = RAW_BASE.replace("@workgroup_size(64)", "@workgroup_size(6684)");
    let e = gpuarray::custom::RawKernel::new(dev(), &big, "twice").unwrap_err();
    assert!(matches!(e, Error::InvalidShader { .. }), "{e:?}");
    still_works("oversized workgroup");

    let dev = dev();
    // contiguous_strides overflowed on an empty shape with huge other extents.
    let r = dev.zeros::<f32>([8, 2, 0, 2, 1 << 62]);
    assert!(r.is_ok_and(|a| a.is_empty()));
    // conv2d multiplied channels by groups (and took 64-bit geometry into 32-bit
    // parameters) unchecked.
    let x = dev.zeros::<f32>([5, 0, 1]).unwrap();
    let w = dev.zeros::<f32>([2, 5, 2]).unwrap();
    let o = Conv1d {
        stride: 2,
        padding: 2,
        dilation: usize::MAX,
        groups: usize::MAX,
    };
    assert!(matches!(
        conv1d(&x, &w, None, o),
        Err(Error::InvalidArgument { .. })
    ));
    let x = dev.ones::<f32>([1, 1, 4, 4]).unwrap();
    let w = dev.ones::<f32>([1, 1, 1, 1]).unwrap();
    let o = Conv2d {
        stride: [1 << 41, 1],
        padding: [1 << 40, 0],
        ..Default::default()
    };
    assert!(matches!(
        conv2d(&x, &w, None, o),
        Err(Error::InvalidArgument { .. })
    ));
}
