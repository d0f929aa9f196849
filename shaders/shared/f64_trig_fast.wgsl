// The common path of f64_trig.wgsl's sin, cos and tan (imported by it; its functions use
// f64_trig.wgsl's reductions, kernels and constants): the one-step reduction by pi/2, the
// choice of the lanes that take the slow reductions, the quadrant and the kernels' tails.
// Session 18's form (slow reductions for every remainder below 2^-10, the quadrant by
// rounding and comparisons in f64) measured 1.44 / 1.74 times the copy for 16M sin / tan on
// the H200 where this one's first form took 1.41 / 1.63 (2026-11-29). The kernel
// (sincos_k64_) is in f64_trig_kern.wgsl.
#import f64_trig_kern

// fdlibm's medium reduction, one step: x = n pi/2 + (y0 + y1) for |x| < 2^20, with
// pi/2 = P1 + P1T (P1 of 33 bits, so n * P1 is exact and x - n * P1 exact; P1T the rest
// rounded to 53 bits, within 2^-87.8 |n| of it once multiplied). The error is |n| times
// P1T's (2^-87.8) plus w's rounding (2^-53 |w| <= |n| 2^-86.9): below |n| 2^-86.3 in all,
// relative 2^-57.3 (0.05 ulp) wherever |y0| >= |n| 2^-29; (r - y0) is exact there
// (Sterbenz: |w| < |n| 2^-33.9 <= |y0| / 16). Exact for n = 0. Lanes with
// |y0| < |n| 2^-29 take rem_pio2_64_ (rem_pio2_any64_ decides): on arguments spread over
// [-1e4, 1e4] about one in 10^5, where the bound 2^-10 for every n took one in 800.
fn rem_pio2_fast64_(x: TW) -> Red64 {
    let n = round_near64_(x * TW(D64_2_OVER_PI));
    let r = x - n * TW(1.5707963267341256);
    let w = n * TW(6.077100506506192e-11);
    let y0 = opaque64_(r - w);
    let y1 = opaque64_(r - y0) - w;
    return Red64(n, y0, y1);
}

// x = n pi/2 + (hi + lo) for every finite x: rem_pio2_fast64_, and rem_pio2_slow64_ only
// where some lane needs it (|x| >= 2^20, not finite, or a remainder below |n| 2^-29:
// about one lane in 10^5 on arguments spread over many periods, none on [0.5, 1.5)).
fn rem_pio2_any64_(x: TW) -> Red64 {
    // x itself, not 0 for the lanes outside: their values (finite, inf or NaN) are replaced.
    let inside = abs(x) < TW(0x1p20);
    var red = rem_pio2_fast64_(x);
    let slow = !inside | (abs(red.hi) < abs(red.n) * TW(0x1p-29));
    if (any(slow)) {
        let s = rem_pio2_slow64_(x);
        red = Red64(select(red.n, s.n, slow), select(red.hi, s.hi, slow), select(red.lo, s.lo, slow));
    }
    return red;
}

// sin (which 0) or cos (which 1) of x; the quadrant j = (n + which) mod 4 (mod4_64_: from
// the bits of n + which + 1.5 * 2^52 where the adapter has 64-bit integers, no rounding or
// comparison in f64) picks the kernel (j odd: cos's) and the sign (j = 2, 3: negated).
fn sincos64_(x: TW, which: TW) -> TW {
    let red = rem_pio2_any64_(x);
    let j = mod4_64_(red.n + which);
    var v = sincos_k64_(red.hi, red.lo, (j & M(1u)) != M(0u));
    v = select(v, -v, (j & M(2u)) != M(0u));
    return select(v, nan64_(x), !(abs(x) <= TW(D64_MAX)));
}

fn sin64_(x: TW) -> TW {
    return select(sincos64_(x, TW(0.0)), x, x == TW(0.0));
}
fn cos64_(x: TW) -> TW {
    return sincos64_(x, TW(1.0));
}

// tan = sin / cos in the even quadrants, -cos / sin in the odd ones (the divisor at least
// ~2^-61: no double is nearer an odd multiple of pi/2); n's parity from mod4_64_ (the bits
// where the adapter has 64-bit integers). The quotient by fdiv_seeded64_ (an f32 seed, a
// Newton step and a residual correction where fma is fused; the built-in quotient
// elsewhere); tan_q64_ takes the built-in quotient everywhere (the measuring switch
// `GPUARRAY_F64_TAN_DIV=0`).
fn tan64_(x: TW) -> TW {
    let q = tan_quotient64_(x);
    return tan_end64_(x, fdiv_seeded64_(q.hi, q.lo));
}
fn tan_q64_(x: TW) -> TW {
    let q = tan_quotient64_(x);
    return tan_end64_(x, q.hi / q.lo);
}
// tan's dividend (hi) and divisor (lo).
fn tan_quotient64_(x: TW) -> Dd64 {
    let red = rem_pio2_any64_(x);
    let odd = (mod4_64_(red.n) & M(1u)) != M(0u);
    let s = sin_k64_(red.hi, red.lo);
    let c = cos_k64_(red.hi, red.lo);
    return Dd64(select(s, -c, odd), select(c, s, odd));
}
// tan's value v where x is finite and not 0; NaN for inf and NaN, x for +-0.
fn tan_end64_(x: TW, v: TW) -> TW {
    return select(select(v, nan64_(x), !(abs(x) <= TW(D64_MAX))), x, x == TW(0.0));
}
