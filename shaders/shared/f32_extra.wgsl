// The f32 forms (TW is f32 or vec4<f32>; f16 is computed in f32 and rounded once) of the
// functions added with the f64 library: log10, sinh, cosh, asin, acos, atan, atan2, cbrt,
// erf. From f32 arithmetic, f32_math.wgsl's accurate div_ and sqrt_ (the built-in
// division and square root may be approximate: NVIDIA's are) and exp32_ below; cbrt's first
// guess alone from the built-in exp2/log2 (its Newton step squares their error away).

// e^x for |x| <= 89 (x/2 for the larger arguments of sinh and cosh): Cody-Waite with
// ln 2 in two parts (n * hi exact), a Taylor polynomial to r^8 on |r| <= ln(2)/2, and the
// exact ldexp.
fn exp32_(x: TW) -> TW {
    return exp32_scaled_(x, TW(0.0));
}

// e^x 2^s for an integral s: the scale joins the exponent of the reduction, so e^x / 2
// (s = -1) stays finite up to x = 89.4 where e^x alone overflows.
fn exp32_scaled_(x: TW, s: TW) -> TW {
    let n = floor(fma(x, TW(1.4426950408889634), TW(0.5)));
    let r = fma(-n, TW(1.428606820309417e-06), fma(-n, TW(0.693145751953125), x));
    var p = TW(1.0 / 40320.0);
    p = fma(p, r, TW(1.0 / 5040.0));
    p = fma(p, r, TW(1.0 / 720.0));
    p = fma(p, r, TW(1.0 / 120.0));
    p = fma(p, r, TW(1.0 / 24.0));
    p = fma(p, r, TW(1.0 / 6.0));
    p = fma(p, r, TW(0.5));
    let e = TW(1.0) + fma(r * r, p, r);
    let h = floor(n * TW(0.5));
    return (e * ldexp(TW(1.0), NI(h))) * ldexp(TW(1.0), NI(n - h + s));
}

// log10: x = m 2^e with m in [sqrt(1/2), sqrt(2)), log(m) = 2 atanh((m - 1) / (m + 1)) to
// s^11; zeros, infinities and negative inputs through the built-in log2's special values.
fn log10_32_(x: TW) -> TW {
    // Subnormals scaled up first (frexp of them is not reliable).
    let sub = x < TW(0x1p-100);
    let fr = frexp(select(x, x * TW(0x1p32), sub));
    let low = fr.fract < TW(0.70710678118654752);
    let m = select(fr.fract, fr.fract * TW(2.0), low);
    let e = select(TW(fr.exp), TW(fr.exp) - TW(1.0), low) - select(TW(0.0), TW(32.0), sub);
    let f = m - TW(1.0);
    let s = div_(f, TW(2.0) + f);
    let z = s * s;
    let p = fma(fma(fma(fma(z, TW(2.0 / 11.0), TW(2.0 / 9.0)), z, TW(2.0 / 7.0)), z, TW(2.0 / 5.0)), z, TW(2.0 / 3.0));
    let lm = fma(s * z, p, TW(2.0) * s);
    let v = fma(e, TW(0.30102999566398120), lm * TW(0.43429448190325182));
    let normal = (x > TW(0.0)) & (x <= TW(3.4028234663852886e38));
    return select(log2(x), v, normal);
}

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

// atan(a / b) in [0, pi/2] for finite a, b >= 0 not both 0: r = the smaller over the
// larger (one accurate division), atan(r) = r + r s Q(s) with s = r^2 and Q a polynomial of
// degree 8 (1.04 ulps in an f32 emulation), and pi/2 minus that when a > b; a common
// power-of-two scale keeps the larger in [2^-86, 2^88]. About 10 fma and a division an
// element: div_normal_ where its conditions hold for every lane (the smaller 0, or normal
// and within 2^100 of the larger), div_ (which unpacks both operands) otherwise.
fn atan2_pos32_(a0: TW, b0: TW) -> TW {
    let m = max(a0, b0);
    let sc = select(select(TW(1.0), TW(0x1p64), m < TW(0x1p-80)), TW(0x1p-40), m > TW(0x1p80));
    let swap = a0 > b0;
    // Opaque, so that the compiler cannot move the scaling into the division.
    let a = opaque_(select(a0, b0, swap) * sc);
    let b = opaque_(select(b0, a0, swap) * sc);
    let ab = abits_(a);
    let fast = (ab == M(0u)) | ((ab >= M(0x00800000u)) & (ab + M(0x32000000u) > abits_(b)));
    var r: TW;
    if (all(fast)) {
        r = div_normal_(a, b);
    } else {
        r = div_(a, b);
    }
    let s = r * r;
    // Q of degree 8 (python3 tests/numerics/golden/atan_fit.py 8).
    var p = TW(-0.0023869972210377455);
    p = fma(p, s, TW(0.01350777130573988));
    p = fma(p, s, TW(-0.035871539264917374));
    p = fma(p, s, TW(0.0625016912817955));
    p = fma(p, s, TW(-0.08656880259513855));
    p = fma(p, s, TW(0.11033764481544495));
    p = fma(p, s, TW(-0.1427856832742691));
    p = fma(p, s, TW(0.19999739527702332));
    p = fma(p, s, TW(-0.3333333134651184));
    let v = fma(r * s, p, r);
    return select(v, TW(1.5707963267948966) - v, swap);
}

fn asin_32_(x: TW) -> TW {
    let a = abs(x);
    let d = sqrt_(max((TW(1.0) - a) * (TW(1.0) + a), TW(0.0)));
    let v = atan2_pos32_(a, d);
    // Zero and sign from the bits: a flushing adapter (the H100) compares a subnormal x
    // equal to 0, and returned it unchanged.
    let r = select(select(v, -v, sign_bit_(x)), x, is_zero_(x));
    return select(r, nan_(), !(a <= TW(1.0)));
}

fn acos_32_(x: TW) -> TW {
    let a = abs(x);
    let d = sqrt_(max((TW(1.0) - a) * (TW(1.0) + a), TW(0.0)));
    let w = atan2_pos32_(d, a);
    let v = select(w, TW(3.1415926535897932) - w, x < TW(0.0));
    return select(v, nan_(), !(a <= TW(1.0)));
}

fn atan_32_(x: TW) -> TW {
    let a = abs(x);
    let v = atan2_pos32_(min(a, TW(3.4028234663852886e38)), TW(1.0));
    return select(select(v, -v, x < TW(0.0)), x, (x == TW(0.0)) | !(x == x));
}

// atan2 as C99: the signs of zeros read through their bits.
fn atan2_32_(y: TW, x: TW) -> TW {
    var ay = abs(y);
    var ax = abs(x);
    let big = TW(3.4028234663852886e38);
    let iy = ay > big;
    let ix = ax > big;
    ay = select(select(ay, TW(1.0), iy), TW(0.0), ix & !iy);
    ax = select(select(ax, TW(1.0), ix), TW(0.0), iy & !ix);
    ax = select(ax, TW(1.0), (ay == TW(0.0)) & (ax == TW(0.0)));
    let w = atan2_pos32_(ay, ax);
    let negx = (bitcast<M>(x) & M(0x80000000u)) != M(0u);
    let negy = (bitcast<M>(y) & M(0x80000000u)) != M(0u);
    let v = select(w, TW(3.1415926535897932) - w, negx);
    let r = select(v, -v, negy);
    return select(r, x + y, !(x == x) | !(y == y));
}

// cbrt: exp2(log2|x| / 3) as the guess, one Newton step with the residual by fma, on |x|
// scaled by 2^-96 or 2^96 (and the root back by 2^32 or 2^-32) away from the range's ends.
fn cbrt_32_(x: TW) -> TW {
    let a0 = abs(x);
    let up = a0 < TW(0x1p-64);
    let down = a0 > TW(0x1p64);
    // Subnormals scaled from their bits (an adapter that flushes reads a0 as 0).
    let scaled = a0 * select(select(TW(1.0), TW(0x1p-96), down), TW(0x1p96), up);
    let a = select(scaled, u23_to_f_(abits_(x)) * TW(0x1p-53), tiny_(x));
    var y = exp2(log2(a) * TW(1.0 / 3.0));
    let y2 = y * y;
    y = y - div_(fma(y2, y, -a), TW(3.0) * y2);
    y = y * select(select(TW(1.0), TW(0x1p32), down), TW(0x1p-32), up);
    // Zero, infinite and NaN from the bits, the sign from its bit (flushing adapters).
    let fin = !is_zero_(x) & (abits_(x) < M(0x7f800000u));
    return select(x, select(y, -y, sign_bit_(x)), fin);
}

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
