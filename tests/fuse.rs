//! `custom::fuse`: every elementwise function of `Var` against the `Array` method computing
//! it (bit-exact: both come from the elementwise family's operation table) and against a
//! CPU reference; views and broadcast inputs, zero sizes, CuPy's softplus, the reductions
//! of a fused expression, and bad arguments.

#[path = "fuse/bitwise.rs"]
mod bitwise;
mod common;
#[path = "fuse/folds.rs"]
mod folds;
#[path = "fuse/reduce.rs"]
mod reduce;

use common::{assert_close, dev, host, Rng};
use gpuarray::custom::{fuse, Var};
use gpuarray::{Array, DType, Error, Slice};

type UnaryCase = (
    &'static str,
    fn(Var) -> Var,
    fn(&Array<f32>) -> gpuarray::Result<Vec<f64>>,
    Option<fn(f64) -> f64>,
);

fn f(a: gpuarray::Result<Array<f32>>) -> gpuarray::Result<Vec<f64>> {
    Ok(host(&a?))
}
fn m(a: gpuarray::Result<Array<bool>>) -> gpuarray::Result<Vec<f64>> {
    Ok(host(&a?))
}
fn b(v: bool) -> f64 {
    if v {
        1.0
    } else {
        0.0
    }
}

macro_rules! unary {
    ($($name:ident, $wrap:ident, $cpu:expr;)*) => {
        vec![$((
            stringify!($name),
            (|x: Var| x.$name()) as fn(Var) -> Var,
            (|a: &Array<f32>| $wrap(a.$name())) as fn(&Array<f32>) -> gpuarray::Result<Vec<f64>>,
            $cpu,
        )),*]
    };
}

fn unary_cases() -> Vec<UnaryCase> {
    unary! {
        abs, f, Some(f64::abs);
        sign, f, Some(|x: f64| if x == 0.0 || x.is_nan() { x } else { x.signum() });
        exp, f, Some(f64::exp);
        exp2, f, Some(f64::exp2);
        expm1, f, Some(f64::exp_m1);
        log, f, Some(f64::ln);
        log2, f, Some(f64::log2);
        log10, f, Some(f64::log10);
        log1p, f, Some(f64::ln_1p);
        sqrt, f, Some(f64::sqrt);
        rsqrt, f, Some(|x: f64| 1.0 / x.sqrt());
        cbrt, f, Some(f64::cbrt);
        sin, f, Some(f64::sin);
        cos, f, Some(f64::cos);
        tan, f, Some(f64::tan);
        asin, f, Some(f64::asin);
        acos, f, Some(f64::acos);
        atan, f, Some(f64::atan);
        sinh, f, Some(f64::sinh);
        cosh, f, Some(f64::cosh);
        tanh, f, Some(f64::tanh);
        asinh, f, Some(f64::asinh);
        acosh, f, Some(f64::acosh);
        atanh, f, Some(f64::atanh);
        sigmoid, f, Some(|x: f64| 1.0 / (1.0 + (-x).exp()));
        erf, f, None;
        erfc, f, None;
        square, f, Some(|x: f64| x * x);
        reciprocal, f, Some(|x: f64| 1.0 / x);
        degrees, f, Some(f64::to_degrees);
        radians, f, Some(f64::to_radians);
        floor, f, Some(f64::floor);
        ceil, f, Some(f64::ceil);
        round, f, Some(f64::round_ties_even);
        trunc, f, Some(f64::trunc);
        isnan, m, Some(|x: f64| b(x.is_nan()));
        isinf, m, Some(|x: f64| b(x.is_infinite()));
        isfinite, m, Some(|x: f64| b(x.is_finite()));
        logical_not, m, Some(|x: f64| b(x == 0.0));
    }
}

type BinaryCase = (
    &'static str,
    fn(Var, Var) -> Var,
    fn(&Array<f32>, &Array<f32>) -> gpuarray::Result<Vec<f64>>,
    Option<fn(f64, f64) -> f64>,
);

macro_rules! binary {
    ($($name:ident, $wrap:ident, $cpu:expr;)*) => {
        vec![$((
            stringify!($name),
            (|x: Var, y: Var| x.$name(y)) as fn(Var, Var) -> Var,
            (|a: &Array<f32>, c: &Array<f32>| $wrap(a.$name(c)))
                as fn(&Array<f32>, &Array<f32>) -> gpuarray::Result<Vec<f64>>,
            $cpu,
        )),*]
    };
}

fn nan_or(x: f64, y: f64, g: fn(f64, f64) -> f64) -> f64 {
    if x.is_nan() || y.is_nan() {
        f64::NAN
    } else {
        g(x, y)
    }
}

fn binary_cases() -> Vec<BinaryCase> {
    let mut cases: Vec<BinaryCase> = binary! {
        maximum, f, Some(|x, y| nan_or(x, y, f64::max));
        minimum, f, Some(|x, y| nan_or(x, y, f64::min));
        fmax, f, Some(f64::max);
        fmin, f, Some(f64::min);
        pow, f, None;
        atan2, f, Some(f64::atan2);
        hypot, f, Some(f64::hypot);
        copysign, f, Some(f64::copysign);
        remainder, f, None;
        floor_divide, f, None;
        eq, m, Some(|x, y| b(x == y));
        ne, m, Some(|x, y| b(x != y));
        lt, m, Some(|x, y| b(x < y));
        le, m, Some(|x, y| b(x <= y));
        gt, m, Some(|x, y| b(x > y));
        ge, m, Some(|x, y| b(x >= y));
        logical_and, m, Some(|x, y| b(x != 0.0 && y != 0.0));
        logical_or, m, Some(|x, y| b(x != 0.0 || y != 0.0));
        logical_xor, m, Some(|x, y| b((x != 0.0) != (y != 0.0)));
    };
    cases.push((
        "%",
        |x, y| x % y,
        |a, c| f(a.rem(c)),
        Some(|x: f64, y: f64| x % y),
    ));
    cases.push(("+", |x, y| x + y, |a, c| f(a.add(c)), Some(|x, y| x + y)));
    cases.push(("-", |x, y| x - y, |a, c| f(a.sub(c)), Some(|x, y| x - y)));
    cases.push(("*", |x, y| x * y, |a, c| f(a.mul(c)), Some(|x, y| x * y)));
    cases.push(("/", |x, y| x / y, |a, c| f(a.div(c)), Some(|x, y| x / y)));
    cases
}

/// Random values in (-3, 3) with the special values mixed in.
fn data(rng: &mut Rng, n: usize) -> Vec<f32> {
    let special = [
        f32::NAN,
        f32::INFINITY,
        f32::NEG_INFINITY,
        -0.0,
        0.0,
        0.5,
        2.5,
        1.0,
    ];
    (0..n)
        .map(|i| {
            if i % 5 == 0 {
                special[(i / 5) % special.len()]
            } else {
                rng.uniform(-3.0, 3.0) as f32
            }
        })
        .collect()
}

fn same_bits(name: &str, fused: &[f64], method: &[f64]) {
    for (i, (a, e)) in fused.iter().zip(method).enumerate() {
        assert!(
            (*a as f32).to_bits() == (*e as f32).to_bits(),
            "{name}[{i}]: fused {a} vs method {e}"
        );
    }
}

/// Sizes 1, 37 (scalar kernels) and 64 (vec4 kernels).
#[test]
fn every_function_matches_its_method_and_the_cpu() {
    let dev = dev();
    let mut rng = Rng::new(18);
    let unary: Vec<_> = unary_cases()
        .into_iter()
        .map(|(name, var, method, cpu)| (name, fuse(dev, |[v]| var(v)).unwrap(), method, cpu))
        .collect();
    let binary: Vec<_> = binary_cases()
        .into_iter()
        .map(|(name, var, method, cpu)| (name, fuse(dev, |[v, w]| var(v, w)).unwrap(), method, cpu))
        .collect();
    for n in [1usize, 37, 64] {
        let xs = data(&mut rng, n);
        let ys: Vec<f32> = data(&mut rng, n).into_iter().rev().collect();
        let x = dev.from_slice(&xs, [n]).unwrap();
        let y = dev.from_slice(&ys, [n]).unwrap();
        for (name, fz, method, cpu) in &unary {
            let got = host(&fz.call::<f32>(&[&x]).unwrap());
            same_bits(name, &got, &method(&x).unwrap());
            if let Some(cpu) = cpu {
                let want: Vec<f64> = xs.iter().map(|&v| cpu(v as f64) as f32 as f64).collect();
                assert_close(&got, &want, 1e-6, 4e-6);
            }
        }
        for (name, fz, method, cpu) in &binary {
            let got = host(&fz.call::<f32>(&[&x, &y]).unwrap());
            same_bits(name, &got, &method(&x, &y).unwrap());
            if let Some(cpu) = cpu {
                let want: Vec<f64> = xs
                    .iter()
                    .zip(&ys)
                    .map(|(&v, &w)| cpu(v as f64, w as f64) as f32 as f64)
                    .collect();
                eprintln!("case: {name} n={n}");
                assert_close(&got, &want, 1e-6, 4e-6);
            }
        }
    }
}

/// Integer dtypes: the table's integer forms (wrapping, NumPy's floor division), and the
/// float-only functions refused with `Unsupported`.
#[test]
fn integers_and_unsupported_functions() {
    let dev = dev();
    let xs: Vec<i32> = vec![7, -7, 0, i32::MAX, i32::MIN, 3, -1];
    let ys: Vec<i32> = vec![2, 2, 5, 1, -1, 0, -3];
    let x = dev.from_slice(&xs, [7]).unwrap();
    let y = dev.from_slice(&ys, [7]).unwrap();
    let fz = fuse(dev, |[a, b]| a.floor_divide(b) + a.remainder(b) * 100.0).unwrap();
    let got = fz.call::<i32>(&[&x, &y]).unwrap().to_vec().unwrap();
    let want: Vec<i32> = (0..7)
        .map(|i| {
            let q = x.floor_divide(&y).unwrap().to_vec().unwrap()[i];
            let r = x.remainder(&y).unwrap().to_vec().unwrap()[i];
            q.wrapping_add(r.wrapping_mul(100))
        })
        .collect();
    assert_eq!(got, want);
    assert_eq!(&got[..3], &[3 + 100, -4 + 100, 0]);
    let cmp = fuse(dev, |[a, b]| Var::where_(a.gt(b), a, b).square()).unwrap();
    let got = cmp.call::<i32>(&[&x, &y]).unwrap().to_vec().unwrap();
    let want: Vec<i32> = xs
        .iter()
        .zip(&ys)
        .map(|(&a, &b)| a.max(b).wrapping_mul(a.max(b)))
        .collect();
    assert_eq!(got, want);
    let bad = fuse(dev, |[a]| a.log1p()).unwrap();
    let e = bad.call::<i32>(&[&x]).unwrap_err();
    assert!(
        matches!(
            e,
            Error::Unsupported {
                dtype: DType::I32,
                ..
            }
        ),
        "{e:?}"
    );
    // The f32 kernel still works after the refusal.
    let xf = dev.from_slice(&[0.0f32], [1]).unwrap();
    assert_eq!(
        bad.call::<f32>(&[&xf]).unwrap().to_vec().unwrap(),
        vec![0.0]
    );
}

/// CuPy's softplus example, `log1p(exp(-abs(x))) + maximum(x, 0)`, on a strided view
/// against the f64 formula and the unfused chain of methods (bit-exact).
#[test]
fn softplus_on_views_and_broadcasts() {
    let dev = dev();
    let mut rng = Rng::new(7);
    let xs: Vec<f32> = (0..6 * 22)
        .map(|_| rng.uniform(-40.0, 40.0) as f32)
        .collect();
    let base = dev.from_slice(&xs, [6, 22]).unwrap();
    let v = base
        .slice([Slice::new(1, Some(6), 2), Slice::new(3, Some(20), 3)])
        .unwrap();
    let sp = fuse(dev, |[x]| (-x.abs()).exp().log1p() + x.maximum(0.0)).unwrap();
    let got = host(&sp.call::<f32>(&[&v]).unwrap());
    let vv = host(&v);
    let want: Vec<f64> = vv
        .iter()
        .map(|&x| (-x.abs()).exp().ln_1p() + x.max(0.0))
        .collect();
    assert_close(&got, &want, 0.0, 1e-6);
    let chain = v
        .abs()
        .unwrap()
        .neg()
        .unwrap()
        .exp()
        .unwrap()
        .log1p()
        .unwrap()
        .add(&v.maximum_scalar(0.0).unwrap())
        .unwrap();
    same_bits("softplus", &got, &host(&chain));
    // Broadcast: a column against a row, with a scalar argument.
    let col = dev.from_slice(&[1.0f32, -2.0, 3.0], [3, 1]).unwrap();
    let row = dev.from_slice(&[0.5f32, 4.0], [2]).unwrap();
    let k = fuse(dev, |[a, b, s]| a.hypot(b).clip(s, 4.0)).unwrap();
    let got = host(&k.call::<f32>(&[&col, &row, &1.5f32]).unwrap());
    let want: Vec<f64> = [1.0f64, -2.0, 3.0]
        .iter()
        .flat_map(|&a| [0.5f64, 4.0].map(|b| a.hypot(b).clamp(1.5, 4.0)))
        .collect();
    assert_close(&got, &want, 0.0, 1e-6);
    // Zero size.
    let empty = dev.zeros::<f32>([0, 3]).unwrap();
    let r = sp.call::<f32>(&[&empty]).unwrap();
    assert_eq!(r.shape(), &[0, 3]);
}

/// The reductions of a fused expression, whole and along an axis (negative too), against
/// f64 sums of the f32 elementwise values.
#[test]
fn reductions_of_fused_expressions() {
    let dev = dev();
    let mut rng = Rng::new(3);
    let (r, c) = (13, 29);
    let xs: Vec<f32> = (0..r * c).map(|_| rng.uniform(0.5, 1.5) as f32).collect();
    let x = dev.from_slice(&xs, [r, c]).unwrap();
    // The elementwise values in f32 (the square root is correctly rounded, as the device's).
    let e: Vec<f64> = xs.iter().map(|&v| (v * v).sqrt() as f64).collect();
    let e = &e;
    let col = move |j: usize| (0..r).map(move |i| e[i * c + j]);
    type Case = (fn(Var) -> Var, Vec<f64>, f64);
    let cases: Vec<Case> = vec![
        (|v| (v * v).sqrt().sum(), vec![e.iter().sum()], 1e-5),
        (
            |v| (v * v).sqrt().prod_axis(0, false),
            (0..c).map(|j| col(j).product()).collect(),
            1e-5,
        ),
        (
            |v| (v * v).sqrt().max(),
            vec![e.iter().cloned().fold(f64::MIN, f64::max)],
            1e-7,
        ),
        (
            |v| (v * v).sqrt().min_axis(-2, false),
            (0..c).map(|j| col(j).fold(9.0, f64::min)).collect(),
            1e-7,
        ),
        (
            |v| (v * v).sqrt().mean(),
            vec![e.iter().sum::<f64>() / e.len() as f64],
            1e-6,
        ),
        (
            |v| (v * v).sqrt().mean_axis(-1, false),
            (0..r)
                .map(|i| e[i * c..(i + 1) * c].iter().sum::<f64>() / c as f64)
                .collect(),
            1e-6,
        ),
        (
            |v| (v * v).sqrt().sum_axis(1, false),
            (0..r).map(|i| e[i * c..(i + 1) * c].iter().sum()).collect(),
            1e-6,
        ),
    ];
    for (k, (expr, want, rtol)) in cases.into_iter().enumerate() {
        let fz = fuse(dev, |[v]| expr(v)).unwrap();
        let got = host(&fz.call::<f32>(&[&x]).unwrap());
        assert_eq!(got.len(), want.len(), "case {k}");
        assert_close(&got, &want, 0.0, rtol);
    }
    // Integer mean is refused; max over no elements is an error; axis out of range.
    let xi = dev.from_slice(&[1i32, 2], [2]).unwrap();
    let mean = fuse(dev, |[v]| v.mean()).unwrap();
    assert!(matches!(
        mean.call::<i32>(&[&xi]),
        Err(Error::Unsupported { .. })
    ));
    let max = fuse(dev, |[v]| v.max()).unwrap();
    let empty = dev.zeros::<f32>([0]).unwrap();
    assert!(matches!(
        max.call::<f32>(&[&empty]),
        Err(Error::InvalidArgument { .. })
    ));
    let s = fuse(dev, |[v]| v.sum_axis(-3, false)).unwrap();
    assert!(matches!(
        s.call::<f32>(&[&x]),
        Err(Error::AxisOutOfRange { .. })
    ));
    assert_eq!(x.sum_axis(0, false).unwrap().shape(), &[c]);
}

/// Bad arguments: a reduction inside the expression, the wrong number of arguments, dtypes
/// that disagree, a result type that is not the inputs'.
#[test]
fn bad_arguments_give_typed_errors() {
    let dev = dev();
    let e = fuse(dev, |[x]| x.sum() + 1.0).unwrap_err();
    assert!(matches!(e, Error::InvalidArgument { .. }), "{e:?}");
    let e = fuse(dev, |[x]| x.max().log()).unwrap_err();
    assert!(matches!(e, Error::InvalidArgument { .. }), "{e:?}");
    let k = fuse(dev, |[x, y]| x.atan2(y)).unwrap();
    let xf = dev.from_slice(&[1.0f32, 2.0], [2]).unwrap();
    let xi = dev.from_slice(&[1i32, 2], [2]).unwrap();
    assert!(matches!(
        k.call::<f32>(&[&xf]),
        Err(Error::ArgumentCount { .. })
    ));
    assert!(matches!(
        k.call::<f32>(&[&xf, &xi]),
        Err(Error::ArgumentType { .. })
    ));
    let add = fuse(dev, |[x, y]| x + y).unwrap();
    assert!(matches!(
        add.call::<i32>(&[&xf, &xf]),
        Err(Error::ArgumentType { .. })
    ));
    let e = k.call::<i32>(&[&xi, &xi]).unwrap_err();
    assert!(matches!(e, Error::Unsupported { .. }), "{e:?}");
    // The inputs are intact and the kernel still works.
    assert_eq!(xf.to_vec().unwrap(), vec![1.0, 2.0]);
    let got = k.call::<f32>(&[&xf, &xf]).unwrap().to_vec().unwrap();
    assert_eq!(got, xf.atan2(&xf).unwrap().to_vec().unwrap());
}
