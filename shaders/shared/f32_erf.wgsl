// The f32 error functions (TW is f32 or vec4<f32>, M u32 or vec4<u32>, TB bool or vec4<bool>; f16 is computed in f32
// and rounded once): erf by piecewise polynomials, erfc accurate in
// relative terms into the tail (e^(-x^2) from f32_exp_log.wgsl's exp32_scaled_).
#import f32_exp_log

// erf: piecewise polynomials evaluated with fma, the interval's coefficients picked by
// selects (no table lookups, no division, no exponential): below 1, x P(x^2) (relative
// accuracy near 0); on [1, 2.25) and [2.25, 4] erf itself, the constant in two parts; 1 in
// f32 past 3.92. About 11 fma and 24 selects an element; 0.87 ulps in an f32 emulation.
fn erf_32_(x: TW) -> TW {
    let a = min(abs(x), TW(4.0));
    // Intervals by the edges [1.0, 2.25, 4.0], degree 10 (python3 tests/numerics/golden/erf_fit.py 1,2.25,4 10).
    var k = TW(0.0);
    k = select(k, TW(1.0), a >= TW(1.0));
    k = select(k, TW(2.0), a >= TW(2.25));
    let v = select(a, a * a, k == TW(0.0));
    let u = (v - select(select(TW(0.5), TW(1.625), k == TW(1.0)), TW(3.125), k == TW(2.0))) * select(select(TW(2.0), TW(1.600000023841858), k == TW(1.0)), TW(1.1428571939468384), k == TW(2.0));
    var p = select(select(TW(9.207613838047024e-12), TW(-2.446517100906931e-06), k == TW(1.0)), TW(2.3808834157534875e-06), k == TW(2.0));
    p = fma(p, u, select(select(TW(-2.045699720731875e-10), TW(1.8533777620177716e-05), k == TW(1.0)), TW(3.3825765513029182e-06), k == TW(2.0)));
    p = fma(p, u, select(select(TW(4.11576062120389e-09), TW(-1.419278032699367e-05), k == TW(1.0)), TW(-3.95422539440915e-05), k == TW(2.0)));
    p = fma(p, u, select(select(TW(-7.511464872322904e-08), TW(-0.00022837994038127363), k == TW(1.0)), TW(0.00010897573520196602), k == TW(2.0)));
    p = fma(p, u, select(select(TW(1.2233828101670952e-06), TW(0.0008595202816650271), k == TW(1.0)), TW(-0.00020243384642526507), k == TW(2.0)));
    p = fma(p, u, select(select(TW(-1.7537169696879573e-05), TW(-0.00020447930728551), k == TW(1.0)), TW(0.00029402412474155426), k == TW(2.0)));
    p = fma(p, u, select(select(TW(0.0002175171539420262), TW(-0.007586555555462837), k == TW(1.0)), TW(-0.00032693921821191907), k == TW(2.0)));
    p = fma(p, u, select(select(TW(-0.0022854856215417385), TW(0.0280374176800251), k == TW(1.0)), TW(0.0002683229395188391), k == TW(2.0)));
    p = fma(p, u, select(select(TW(0.019852496683597565), TW(-0.05108102038502693), k == TW(1.0)), TW(-0.00015493524551857263), k == TW(2.0)));
    p = fma(p, u, select(select(TW(-0.1405360847711563), TW(0.0502951554954052), k == TW(1.0)), TW(5.664678610628471e-05), k == TW(2.0)));
    // Tiny arguments are scaled by 2^32 and the result back (exactly): a flushing adapter
    // (the H100) flushes w * p below the normal range, which gave erf(1.2e-38) = 0.
    let tiny = a < TW(5.421010862427522e-20);
    let w = select(TW(1.0), a * select(TW(1.0), TW(4294967296.0), tiny), k == TW(0.0));
    let q = fma(w, select(select(TW(0.9654687643051147), TW(0.9784437417984009), k == TW(1.0)), TW(0.9999901056289673), k == TW(2.0)), w * fma(p, u, select(select(TW(-2.5635246814204038e-08), TW(-8.55841708613525e-09), k == TW(1.0)), TW(-2.3635924328857527e-09), k == TW(2.0)))) * select(TW(1.0), TW(2.3283064365386963e-10), tiny);
    // Zero and sign from the bits: a flushing adapter (the H100) compares a subnormal x
    // equal to 0, and returned it unchanged.
    let r = select(select(q, -q, sign_bit_(x)), x, is_zero_(x));
    return select(r, x, !(x == x));
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
