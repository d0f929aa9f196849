// f32 forms (TW is f32 or vec4<f32>; f16 is computed in f32 and rounded once) of the NumPy
// functions added for issue 18: hypot, asinh, acosh, atanh and erfc. Built from
// f32_math.wgsl's accurate div_, sqrt_, log_, log1p_ and f32_extra.wgsl's exp32_scaled_ and
// erf_32_ (no built-in that Vulkan lets be approximate); decisions about an input are read
// from its bits, as there.

// sqrt(x^2 + y^2) without overflow or underflow: both operands unpacked from their bits
// (subnormals too), the larger's exponent taken out exactly, the sum of squares of numbers
// in [1, 2) and below, and the exponent put back with one rounding. inf if either is
// infinite (NaN or not), else NaN if either is NaN.
fn hypot_32_(x: TW, y: TW) -> TW {
    let bx = abits_(x);
    let by = abits_(y);
    let hi = bitcast<TW>(max(bx, by));
    let lo = bitcast<TW>(min(bx, by));
    let uh = unpack_(hi);
    let ul = unpack_(lo);
    let s = ul.m * exp2i_(max(ul.e - uh.e, TW(-60.0)));
    let r = ldexp_(sqrt_(fma(uh.m, uh.m, s * s)), uh.e);
    let any_nan = is_nan_(x) | is_nan_(y);
    let v = select(select(r, hi, is_zero_(lo)), f32_nan_(), any_nan);
    return select(v, f32_inf_(), is_inf_(x) | is_inf_(y));
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

// erfc, accurate in relative terms into the tail (not 1 - erf there): below 1/4,
// 1 - erf(x) (at most 0.28 cancels; below 0 it is 1 + erf(|x|)); above,
// e^(-x^2) g(x) with x^2 = h + l exact, e^(-h) scaled by 2^64 so that it stays normal down
// to the subnormal results, (1 - l) for e^(-l), g = erfc(x) e^(x^2) from the interpolants
// below, and the scale taken out with one rounding. 0 past 10.1 (below half the least
// subnormal), 2 at -inf, NaN stays NaN.
fn erfc_32_(x: TW) -> TW {
    let near = TW(1.0) - erf_32_(x);
    let a = clamp(x, TW(0.25), TW(10.1));
    let sq = two_prod_(a, a);
    let e = exp32_scaled_(-sq.h, TW(64.0)) * (TW(1.0) - sq.l);
    let tail = ldexp_(e * erfc_g32_(a), TW(-64.0));
    let r = select(select(tail, near, x < TW(0.25)), TW(0.0), x > TW(10.1));
    return select(r, x, is_nan_(x));
}

// g(x) = erfc(x) e^(x^2) for x in [0.25, 10.1], generated from Chebyshev interpolants
// computed in 40-digit arithmetic (mpmath): on each interval a polynomial in
// u = (x - mid) / half of the largest degree any interval needs for a relative error
// below 3e-9; the constant term in two parts.
fn erfc_g32_(x: TW) -> TW {
    var k = TW(0.0);
    k = select(k, TW(1.0), x >= TW(0.75));
    k = select(k, TW(2.0), x >= TW(1.5));
    k = select(k, TW(3.0), x >= TW(3.0));
    k = select(k, TW(4.0), x >= TW(6.0));
    let u = (x - select(select(select(select(TW(0.5), TW(1.125), k == TW(1.0)), TW(2.25), k == TW(2.0)), TW(4.5), k == TW(3.0)), TW(8.05), k == TW(4.0))) * select(select(select(select(TW(4.0), TW(2.6666666666666665), k == TW(1.0)), TW(1.3333333333333333), k == TW(2.0)), TW(0.6666666666666666), k == TW(3.0)), TW(0.48780487804878053), k == TW(4.0));
    var p = select(select(select(select(TW(9.241265530590681e-10), TW(4.840441825137987e-09), k == TW(1.0)), TW(1.3790904063171183e-07), k == TW(2.0)), TW(7.151569434427074e-07), k == TW(3.0)), TW(5.87617812186636e-08), k == TW(4.0));
    p = fma(p, u, select(select(select(select(TW(-9.48813472234633e-09), TW(-3.7995686597014355e-08), k == TW(1.0)), TW(-6.839128445790266e-07), k == TW(2.0)), TW(-2.631353709148243e-06), k == TW(3.0)), TW(-2.4927300046329037e-07), k == TW(4.0)));
    p = fma(p, u, select(select(select(select(TW(9.071007411876053e-08), TW(2.7418477088758664e-07), k == TW(1.0)), TW(2.9245165933389217e-06), k == TW(2.0)), TW(7.5819934863829985e-06), k == TW(3.0)), TW(8.893567269296909e-07), k == TW(4.0)));
    p = fma(p, u, select(select(select(select(TW(-8.473836032862891e-07), TW(-1.985639755730517e-06), k == TW(1.0)), TW(-1.3638174095831346e-05), k == TW(2.0)), TW(-2.6919791707769036e-05), k == TW(3.0)), TW(-3.7177171634539263e-06), k == TW(4.0)));
    p = fma(p, u, select(select(select(select(TW(7.5020634540123865e-06), TW(1.3766456504527014e-05), k == TW(1.0)), TW(6.20380524196662e-05), k == TW(2.0)), TW(9.607468382455409e-05), k == TW(3.0)), TW(1.5602572602801956e-05), k == TW(4.0)));
    p = fma(p, u, select(select(select(select(TW(-6.24709646217525e-05), TW(-9.076074638869613e-05), k == TW(1.0)), TW(-0.00027144455816596746), k == TW(2.0)), TW(-0.00033094201353378594), k == TW(3.0)), TW(-6.439709250116721e-05), k == TW(4.0)));
    p = fma(p, u, select(select(select(select(TW(0.0004850403347518295), TW(0.0005659626331180334), k == TW(1.0)), TW(0.0011450715828686953), k == TW(2.0)), TW(0.0011201505549252033), k == TW(3.0)), TW(0.0002639465965330601), k == TW(4.0)));
    p = fma(p, u, select(select(select(select(TW(-0.003468915121629834), TW(-0.0033113996032625437), k == TW(1.0)), TW(-0.0046414886601269245), k == TW(2.0)), TW(-0.0037279033567756414), k == TW(3.0)), TW(-0.0010747720953077078), k == TW(4.0)));
    p = fma(p, u, select(select(select(select(TW(0.0224591214209795), TW(0.017983445897698402), k == TW(1.0)), TW(0.01799585297703743), k == TW(2.0)), TW(0.012179533019661903), k == TW(3.0)), TW(0.00434607220813632), k == TW(4.0)));
    p = fma(p, u, select(select(select(select(TW(-0.12817220389842987), TW(-0.08927193284034729), k == TW(1.0)), TW(-0.06636487692594528), k == TW(2.0)), TW(-0.03902389481663704), k == TW(3.0)), TW(-0.01744990423321724), k == TW(4.0)));
    return select(select(select(select(TW(0.6156903505325317), TW(0.39569807052612305), k == TW(1.0)), TW(0.23108725249767303), k == TW(2.0)), TW(0.12248480319976807), k == TW(3.0)), TW(0.06955695897340775), k == TW(4.0)) + fma(p, u, select(select(select(select(TW(-6.3396057292663954e-09), TW(9.026872582751366e-09), k == TW(1.0)), TW(6.2327187855260036e-09), k == TW(2.0)), TW(1.0740733857872442e-09), k == TW(3.0)), TW(-1.2866174792236507e-09), k == TW(4.0)));
}
