// f32 forms (TW is f32 or vec4<f32>; f16 is computed in f32 and rounded once) of the
// functions of the name map's second group: logaddexp, logaddexp2, sinc, modf's fraction.
// From f32_math.wgsl's exp_, exp2_, log1p_, div_ and f32_trig.wgsl's sin_.

// log(e^x + e^y) without overflow: max + log1p(e^-|x - y|); equal arguments (infinities of
// one sign included) give x + ln 2 exactly as NumPy; NaN if either is NaN.
fn logaddexp_32_(x: TW, y: TW) -> TW {
    let v = max(x, y) + log1p_(exp_(-abs(x - y)));
    let same = select(v, x + TW(0.6931471805599453), x == y);
    return select(same, x + y, is_nan_(x) | is_nan_(y));
}

// log2(2^x + 2^y): max + log1p(2^-|x - y|) / ln 2; equal arguments give x + 1.
fn logaddexp2_32_(x: TW, y: TW) -> TW {
    let v = max(x, y) + log1p_(exp2_(-abs(x - y))) * TW(1.4426950408889634);
    let same = select(v, x + TW(1.0), x == y);
    return select(same, x + y, is_nan_(x) | is_nan_(y));
}

// NumPy's sinc, as NumPy computes it: y = pi x rounded (x = 0 taken as 1e-20), sin(y) / y.
fn sinc_32_(x: TW) -> TW {
    let y = TW(3.141592653589793) * select(x, TW(1e-20), is_zero_(x));
    return div_(sin_(y), y);
}

// modf's fractional part: x - trunc(x) with x's sign (exact), ±0 for ±inf, NaN for NaN.
fn modf_frac_32_(x: TW) -> TW {
    return copysign_(select(x - trunc(x), TW(0.0), is_inf_(x)), x);
}
