// Float helpers for the elementwise family, over T (a float scalar or a vec4 of one).

// log(1 + x), accurate for small x.
fn log1p_(x: T) -> T {
    let u = T(1.0) + x;
    // Past 1e4 the correction factor is 1 to rounding (and inf / inf would give NaN).
    let r = select(log(u) * (x / (u - T(1.0))), log(u), u > T(1e4));
    return select(r, x, u == T(1.0));
}

// exp(x) - 1, accurate for small x.
fn expm1_(x: T) -> T {
    let u = exp(x);
    let r = select((u - T(1.0)) * (x / log(u)), x, u == T(1.0));
    return select(r, T(-1.0), u - T(1.0) == T(-1.0));
}

// NumPy's power: negative bases with integral exponents, 0^0 = 1.
fn pow_(a: T, b: T) -> T {
    let zero = a - a;
    let m = select(pow(abs(a), b), T(1.0) / zero, (a == T(0.0)) & (b < T(0.0)));
    let odd = abs(b % T(2.0)) == T(1.0);
    let integral = floor(b) == b;
    let neg = select(m, -m, odd);
    let r = select(m, select(zero / zero, neg, integral), a < T(0.0));
    return select(r, T(1.0), b == T(0.0));
}

fn tanh_(x: T) -> T {
    return tanh(clamp(x, T(-15.0), T(15.0)));
}

fn sigmoid_(x: T) -> T {
    return T(1.0) / (T(1.0) + exp(-x));
}

// Whether x is NaN. Written as !(x == x): naga emits ordered comparisons, so x != x is
// false for NaN.
fn isnan_(x: T) -> TB {
    return !(x == x);
}

// NaN-propagating maximum and minimum (NumPy's maximum/minimum).
fn max_(a: T, b: T) -> T {
    return select(max(a, b), a + b, isnan_(a) | isnan_(b));
}
fn min_(a: T, b: T) -> T {
    return select(min(a, b), a + b, isnan_(a) | isnan_(b));
}
