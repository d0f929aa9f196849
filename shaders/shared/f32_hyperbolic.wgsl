// f32 hyperbolic functions and their inverses (TW is f32 or vec4<f32>, M u32 or vec4<u32>, TB bool or vec4<bool>; f16 is computed in f32
// and rounded once): sinh, cosh, asinh, acosh, atanh
// (tanh_ is in f32_math.wgsl, beside expm1_). Decisions about an input are read from its bits.
#import f32_exp_log

// sinh: the Taylor series to x^11 below 0.5 (no cancellation), (e - 1/e) / 2 above, and
// (e^(x/2))^2 / 2 past 88 (e^x itself would overflow first).
fn sinh_32_(x: TW) -> TW {
    let a = abs(x);
    let z = a * a;
    var p = TW(1.0 / 39916800.0);
    p = fma(p, z, TW(1.0 / 362880.0));
    p = fma(p, z, TW(1.0 / 5040.0));
    p = fma(p, z, TW(1.0 / 120.0));
    p = fma(p, z, TW(1.0 / 6.0));
    let small = fma(a * z, p, a);
    let e = exp32_(min(a, TW(88.0)));
    // e^|x| / 2 past 88 from one exponential with the halving in its exponent: (0.5 h) h
    // with h = e^(|x|/2) gave inf on the H100 past 88.7 (its compiler reassociates).
    let big = exp32_scaled_(min(a, TW(200.0)), TW(-1.0));
    let v = select(select(TW(0.5) * (e - div_(TW(1.0), e)), big, a > TW(88.0)), small, a < TW(0.5));
    return select(select(v, -v, x < TW(0.0)), x, (x == TW(0.0)) | !(x == x));
}

fn cosh_32_(x: TW) -> TW {
    let a = abs(x);
    let e = exp32_(min(a, TW(88.0)));
    let big = exp32_scaled_(min(a, TW(200.0)), TW(-1.0));
    return select(select(TW(0.5) * (e + div_(TW(1.0), e)), big, a > TW(88.0)), x, !(x == x));
}

// asinh: log(2|x|) past 2^12 (the next term, 1/(4x^2), is below 2^-26 of it), else
// log1p(|x| + x^2 / (1 + sqrt(1 + x^2))) (no cancellation); odd; ±0 and subnormals kept.
fn asinh_32_(x: TW) -> TW {
    let a = bitcast<TW>(abits_(x));
    let t = a * a;
    let mid = log1p_(a + div_(t, TW(1.0) + sqrt_(TW(1.0) + t)));
    let big = log_(a) + TW(F32_LN2);
    let v = copysign_(select(mid, big, a > TW(4096.0)), x);
    return select(v, x, tiny_(x) | is_nan_(x));
}

// acosh for x >= 1: log1p(t + sqrt(t (t + 2))) with t = x - 1 (exact below 2), log(2x) past
// 2^12; NaN below 1.
fn acosh_32_(x: TW) -> TW {
    let t = x - TW(1.0);
    let mid = log1p_(t + sqrt_(t * (t + TW(2.0))));
    let big = log_(x) + TW(F32_LN2);
    let v = select(mid, big, x > TW(4096.0));
    return select(v, f32_nan_(), !(x >= TW(1.0)));
}

// atanh: log1p(2a + 2a^2 / (1 - a)) / 2 below 1/2, log1p(2a / (1 - a)) / 2 above (1 - a
// exact there), odd; ±inf at ±1, NaN past them; ±0 and subnormals kept.
fn atanh_32_(x: TW) -> TW {
    let a = bitcast<TW>(abits_(x));
    let d = TW(1.0) - a;
    let small = TW(2.0) * a + div_(TW(2.0) * a * a, d);
    let large = div_(TW(2.0) * a, d);
    let v = copysign_(TW(0.5) * log1p_(select(large, small, a < TW(0.5))), x);
    let r = select(v, f32_nan_(), a > TW(1.0));
    return select(r, x, tiny_(x) | is_nan_(x));
}
