// The previous forms of f64_trig_fast.wgsl (session 18), read instead of it under the
// measuring switch GPUARRAY_F64_TRIG=0 (`Spec::f64_choices`), so that both can be timed in
// one binary: the slow reductions for remainders below 2^-10 whatever n, the quadrant by
// round_near64_ and comparisons in f64, both kernels' tails evaluated and one selected.
// Same results within the numerics bounds; not the default.

// fdlibm's medium reduction, one step: x = n pi/2 + (y0 + y1) for |x| < 2^20, with
// pi/2 = P1 + P1T (P1 of 33 bits, so n * P1 is exact and x - n * P1 exact; P1T the rest
// rounded to 53 bits, within 2^-87.8 of it). The error is n times P1T's (below 2^-68.5 for
// |n| < 2^19.4) plus w's rounding (below 2^-68): 2^-67.2 in all, relative 2^-57.2 (0.06
// ulp) wherever |y0| >= 2^-10; (r - y0) is exact there (Sterbenz: |w| < 2^-14). Exact for
// n = 0. Lanes with n != 0 and |y0| < 2^-10 take rem_pio2_64_ (rem_pio2_any64_ decides).
fn rem_pio2_fast64_(x: TW) -> Red64 {
    let n = round_near64_(x * TW(D64_2_OVER_PI));
    let r = x - n * TW(1.5707963267341256);
    let w = n * TW(6.077100506506192e-11);
    let y0 = opaque64_(r - w);
    let y1 = opaque64_(r - y0) - w;
    return Red64(n, y0, y1);
}

// x = n pi/2 + (hi + lo) for every finite x: rem_pio2_fast64_, and rem_pio2_slow64_ only
// where some lane needs it (|x| >= 2^20, not finite, or a remainder below 2^-10 with n != 0:
// about 0.13% of the lanes on arguments spread over many periods).
fn rem_pio2_any64_(x: TW) -> Red64 {
    // x itself, not 0 for the lanes outside: their values (finite, inf or NaN) are replaced.
    let inside = abs(x) < TW(0x1p20);
    var red = rem_pio2_fast64_(x);
    let slow = !inside | ((abs(red.hi) < TW(0x1p-10)) & (red.n != TW(0.0)));
    if (any(slow)) {
        let s = rem_pio2_slow64_(x);
        red = Red64(select(red.n, s.n, slow), select(red.hi, s.hi, slow), select(red.lo, s.lo, slow));
    }
    return red;
}

// sin(h + l) (c false, as sin_k64_) or cos(h + l) (c true, as cos_k64_) for |h| <= pi/4 +
// a little, per lane: one polynomial whose coefficients are selected, instead of both.
fn sincos_k64_(h: TW, l: TW, c: TB) -> TW {
    let z = h * h;
    var p = select(TW(D64_S6), TW(D64_C6), c);
    p = fma(p, z, select(TW(D64_S5), TW(D64_C5), c));
    p = fma(p, z, select(TW(D64_S4), TW(D64_C4), c));
    p = fma(p, z, select(TW(D64_S3), TW(D64_C3), c));
    p = fma(p, z, select(TW(D64_S2), TW(D64_C2), c));
    p = fma(p, z, select(TW(D64_S1), TW(D64_C1), c));
    let hz = TW(0.5) * z;
    let w = TW(1.0) - hz;
    let sv = h + (h * z * p + l * (TW(1.0) - hz));
    let cv = w + (((TW(1.0) - w) - hz) + (z * z * p - h * l));
    return select(sv, cv, c);
}

// sin (which 0) or cos (which 1) of x; the quadrant j = (n + which) mod 4 picks the kernel
// and the sign. q = (n + which) - 4 round((n + which) / 4), by round_near64_'s additions
// instead of floor (a conversion-rate operation on NVIDIA): 0 for j = 0, 1 for 1, -1 for
// 3 and 2 or -2 (the tie, either way) for 2. (The integer nearest (n + which) / 4 - 3/8
// would give j itself, but Mesa folds the constant -3/8 into round_near64_'s 1.5 * 2^52,
// where it rounds away.)
fn sincos64_(x: TW, which: TW) -> TW {
    let red = rem_pio2_any64_(x);
    let nw = red.n + which;
    let q = fma(TW(-4.0), round_near64_(nw * TW(0.25)), nw);
    var v = sincos_k64_(red.hi, red.lo, abs(q) == TW(1.0));
    v = select(v, -v, (q < TW(-0.5)) | (q > TW(1.5)));
    return select(v, nan64_(x), !(abs(x) <= TW(D64_MAX)));
}

fn sin64_(x: TW) -> TW {
    return select(sincos64_(x, TW(0.0)), x, x == TW(0.0));
}
fn cos64_(x: TW) -> TW {
    return sincos64_(x, TW(1.0));
}

// tan = sin / cos in the even quadrants, -cos / sin in the odd ones: one built-in quotient
// (correctly rounded on lavapipe and NVIDIA, as fdiv_ relies on) of the two kernels.
// n odd where n - 2 round(n / 2) is not 0 (1 or -1 by the tie's rounding), by
// round_near64_ as in sincos64_.
fn tan64_(x: TW) -> TW {
    let red = rem_pio2_any64_(x);
    let odd = fma(TW(-2.0), round_near64_(red.n * TW(0.5)), red.n) != TW(0.0);
    let s = sin_k64_(red.hi, red.lo);
    let c = cos_k64_(red.hi, red.lo);
    let v = select(s, -c, odd) / select(c, s, odd);
    return select(select(v, nan64_(x), !(abs(x) <= TW(D64_MAX))), x, x == TW(0.0));
}
