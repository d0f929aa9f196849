//! Special values, and casts with saturation and NaN as Rust's `as`.

use super::*;

// ---------------------------------------------------------------------------------------
// Special values
// ---------------------------------------------------------------------------------------

fn special<T: Ty + Float>(
    op: &str,
    gpu: impl Fn(&Array<T>) -> Result<Array<T>>,
    cases: &[(f64, f64)],
) {
    let dev = dev();
    require_dtype!(T);
    let (x, _) = upload::<T>(
        dev,
        &cases.iter().map(|c| c.0).collect::<Vec<_>>(),
        &[cases.len()],
    );
    let expected: Vec<f64> = cases.iter().map(|c| c.1).collect();
    eprintln!("case: {op} {} of {:?}", T::NAME, cases);
    assert_close(&host(&gpu(&x).unwrap()), &expected, T::TRANS.0, T::TRANS.1);
}

/// IEEE special values of the float functions (f32 and f16 where they exist).
fn special_values<T: Ty + Float>() {
    let inf = f64::INFINITY;
    let big = if is_f16::<T>() { 12.0 } else { 100.0 };
    special::<T>(
        "exp",
        Array::exp,
        &[(-inf, 0.0), (inf, inf), (big, inf), (0.0, 1.0)],
    );
    special::<T>(
        "log",
        Array::log,
        &[(0.0, -inf), (-1.0, f64::NAN), (inf, inf), (1.0, 0.0)],
    );
    special::<T>(
        "log2",
        Array::log2,
        &[(0.0, -inf), (-1.0, f64::NAN), (8.0, 3.0)],
    );
    special::<T>(
        "sqrt",
        Array::sqrt,
        &[(-1.0, f64::NAN), (inf, inf), (0.0, 0.0), (4.0, 2.0)],
    );
    special::<T>("rsqrt", Array::rsqrt, &[(0.0, inf), (inf, 0.0), (4.0, 0.5)]);
    special::<T>(
        "tanh",
        Array::tanh,
        &[(-100.0, -1.0), (100.0, 1.0), (0.0, 0.0)],
    );
    special::<T>(
        "sigmoid",
        Array::sigmoid,
        &[(-100.0, 0.0), (100.0, 1.0), (0.0, 0.5)],
    );
    special::<T>(
        "log1p",
        Array::log1p,
        &[(-1.0, -inf), (-2.0, f64::NAN), (0.0, 0.0)],
    );
    special::<T>("expm1", Array::expm1, &[(-100.0, -1.0), (0.0, 0.0)]);
    special::<T>(
        "div",
        |a| a.rdiv_scalar(T::one()),
        &[(0.0, inf), (inf, 0.0), (-inf, 0.0)],
    );
    special::<T>(
        "div",
        |a| a.div_scalar(T::zero()),
        &[(1.0, inf), (-1.0, -inf), (0.0, f64::NAN)],
    );
    special::<T>(
        "pow",
        |a| a.pow_scalar(T::from_f64(-1.0)),
        &[(0.0, inf), (2.0, 0.5), (-2.0, -0.5)],
    );
    special::<T>(
        "pow",
        |a| a.pow_scalar(T::zero()),
        &[(0.0, 1.0), (-3.0, 1.0), (inf, 1.0)],
    );
    special::<T>(
        "pow",
        |a| {
            a.rsub_scalar(T::zero())
                .unwrap()
                .pow_scalar(T::from_f64(3.0))
        },
        &[(2.0, -8.0), (-2.0, 8.0), (0.0, 0.0)],
    );
    special::<T>(
        "pow",
        |a| a.pow_scalar(T::from_f64(0.5)),
        &[(-4.0, f64::NAN), (4.0, 2.0)],
    );
    special::<T>(
        "floor",
        Array::floor,
        &[(-0.5, -1.0), (inf, inf), (-inf, -inf)],
    );
    special::<T>(
        "round",
        Array::round,
        &[
            (0.5, 0.0),
            (1.5, 2.0),
            (2.5, 2.0),
            (-2.5, -2.0),
            (-3.5, -4.0),
        ],
    );
}

#[test]
fn special_values_f32() {
    special_values::<f32>();
}

#[test]
fn special_values_f16() {
    special_values::<f16>();
}

/// expm1 of a large argument is +inf (exp overflows, then (inf - 1) * (x / inf) is NaN).
#[test]
fn expm1_overflow_is_inf() {
    let dev = dev();
    let x = dev.from_slice(&[100.0f32, 89.0, 88.0], [3]).unwrap();
    let expected = [f64::INFINITY, f64::INFINITY, 88f64.exp_m1()];
    assert_close(&host(&x.expm1().unwrap()), &expected, 0.0, 1e-5);
}

/// log1p(inf) is +inf (log(u) * (x / (u - 1)) would be inf * (inf / inf) = NaN).
#[test]
fn log1p_of_inf_is_inf() {
    let dev = dev();
    let x = dev.from_slice(&[f32::INFINITY, 1e30], [2]).unwrap();
    assert_close(
        &host(&x.log1p().unwrap()),
        &[f64::INFINITY, 1e30f64.ln_1p()],
        0.0,
        1e-5,
    );
}
