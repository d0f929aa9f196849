//! Generators and CPU references per operation.

use super::*;

// ---------------------------------------------------------------------------------------
// Generators and references per operation
// ---------------------------------------------------------------------------------------

pub(crate) fn is_f16<T: Ty>() -> bool {
    T::DTYPE == DType::F16
}

/// Floats uniform in `float`, integers in `int` (clamped at 0 for u32).
pub(crate) fn vals<T: Ty>(float: (f64, f64), int: (f64, f64)) -> Gen {
    if T::FLOAT {
        range::<T>(float.0, float.1)
    } else {
        range::<T>(int.0, int.1)
    }
}

/// Divisors: floats away from zero; integers small, with zeros.
pub(crate) fn divisors<T: Ty>() -> Gen {
    if T::FLOAT {
        signed_away_from_zero(0.1, 10.0)
    } else {
        sprinkle(range::<T>(-20.0, 20.0), 0.1, 0.0)
    }
}

/// Rust's `/` on integers (truncating), 0 for a zero divisor; IEEE division for floats.
pub(crate) fn div_ref<T: Ty>(x: f64, y: f64) -> f64 {
    if T::FLOAT {
        x / y
    } else if y == 0.0 {
        0.0
    } else {
        (x / y).trunc()
    }
}

/// Rust's `%` (sign of the dividend), 0 for a zero integer divisor.
pub(crate) fn rem_ref<T: Ty>(x: f64, y: f64) -> f64 {
    if !T::FLOAT && y == 0.0 {
        0.0
    } else {
        x % y
    }
}

/// NumPy's power: C's `pow` for floats; for integers exponentiation by squaring that wraps,
/// and negative exponents give 0 except for bases 1 and -1.
pub(crate) fn pow_ref<T: Ty>(x: f64, y: f64) -> f64 {
    if T::FLOAT {
        return x.powf(y);
    }
    let (a, b) = (x as i64, y as i64);
    let r = if b < 0 {
        match a {
            1 => 1,
            -1 if b % 2 != 0 => -1,
            -1 => 1,
            _ => 0,
        }
    } else {
        a.wrapping_pow(b as u32)
    };
    if T::SIGNED {
        r as i32 as f64
    } else {
        r as u32 as f64
    }
}

pub(crate) fn nan_max(x: f64, y: f64) -> f64 {
    if x.is_nan() || y.is_nan() {
        f64::NAN
    } else {
        x.max(y)
    }
}

pub(crate) fn nan_min(x: f64, y: f64) -> f64 {
    if x.is_nan() || y.is_nan() {
        f64::NAN
    } else {
        x.min(y)
    }
}

/// Exponents for pow: half integral, half fractional.
pub(crate) fn exponents<T: Ty>() -> Gen {
    if T::FLOAT {
        Rc::new(|rng, n| {
            (0..n)
                .map(|_| {
                    if rng.bool(0.5) {
                        rng.int(-3, 3)
                    } else {
                        rng.uniform(-3.0, 3.0)
                    }
                })
                .collect()
        })
    } else {
        range::<T>(-3.0, 12.0)
    }
}

pub(crate) fn bases<T: Ty>() -> Gen {
    if T::FLOAT {
        sprinkle(range::<T>(-3.0, 3.0), 0.05, 0.0)
    } else {
        range::<T>(-9.0, 9.0)
    }
}

/// Operands for comparisons: small values with many ties (and NaNs for floats).
pub(crate) fn cmp_vals<T: Ty>() -> Gen {
    with_nan::<T>(
        sprinkle(vals::<T>((-5.0, 5.0), (-5.0, 5.0)), 0.2, 1.0),
        0.05,
    )
}

/// The float-rem tolerance: about 2 ulp of |x| < 10, which WGSL's x - y * trunc(x / y) may
/// lose to rounding on drivers that do not compute an exact fmod (lavapipe's is exact), but
/// not the |y| it is off by where x / y rounds to an integer.
pub(crate) fn rem_tol<T: Ty>() -> (f64, f64) {
    (20.0 * T::EPS * if T::FLOAT { 1.0 } else { 0.0 }, T::ARITH.1)
}

pub(crate) fn one<T: Ty>(float: f64, int: f64) -> f64 {
    if T::FLOAT {
        float
    } else {
        int
    }
}

/// A second scalar: negative for signed types.
pub(crate) fn second<T: Ty>() -> f64 {
    if T::FLOAT {
        -3.25
    } else if T::SIGNED {
        -4000.0
    } else {
        4000.0
    }
}
