// f32 exponentials, logarithms and roots beyond f32_math.wgsl's exp_, log_, pow_ (TW is f32 or vec4<f32>, M u32 or vec4<u32>, TB bool or vec4<bool>; f16 is computed in f32
// and rounded once):
// exp32_ (the building block of sinh, cosh and erfc), log10, cbrt, logaddexp and logaddexp2.
// From f32 arithmetic and f32_math.wgsl's accurate div_ and sqrt_ (the built-in division and
// square root may be approximate: NVIDIA's are); cbrt's first guess alone from the built-in
// exp2/log2 (its Newton step squares their error away).
#import f32_math

// e^x for |x| <= 89 (x/2 for the larger arguments of sinh and cosh): Cody-Waite with
// ln 2 in two parts (n * hi exact), a Taylor polynomial to r^8 on |r| <= ln(2)/2, and the
// exact ldexp. The first step of the reduction is opaque: where fma is not marked exact
// (Mesa's GL, whose GLSL cannot say `precise` through naga), NIR rewrites
// fma(-n, lo, fma(-n, hi, x)) to fma(-n, hi + lo, x), which loses the split of ln 2 and,
// unfused on llvmpipe, gave cosh(72) and erfc(8.5) 62 ulps wrong.
fn exp32_(x: TW) -> TW {
    return exp32_scaled_(x, TW(0.0));
}

// e^x 2^s for an integral s: the scale joins the exponent of the reduction, so e^x / 2
// (s = -1) stays finite up to x = 89.4 where e^x alone overflows.
fn exp32_scaled_(x: TW, s: TW) -> TW {
    let n = floor(fma(x, TW(1.4426950408889634), TW(0.5)));
    let r = fma(-n, TW(1.428606820309417e-06), opaque_(fma(-n, TW(0.693145751953125), x)));
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

// log(e^x + e^y) without overflow: max + log1p(e^-|x - y|); equal arguments (infinities of
// one sign included) give x + ln 2 exactly as NumPy; NaN if either is NaN. Where the max is
// tiny and e^-|x - y| below the normal range, a flushing adapter (the H100) would drop the
// addend: the sum is then formed scaled by 2^64 (exactly undone), the addend e^(64 ln 2 - d)
// (log1p(t) = t there).
fn logaddexp_32_(x: TW, y: TW) -> TW {
    let m = max(x, y);
    let d = abs(x - y);
    let sc = (abs(m) < TW(1e-18)) & (d > TW(80.0));
    let t = exp_(select(-d, TW(44.3614195558365) - d, sc));
    let v = select(m + log1p_(t), fma(m, TW(0x1p64), t) * TW(0x1p-64), sc);
    let same = select(v, x + TW(0.6931471805599453), x == y);
    return select(same, x + y, is_nan_(x) | is_nan_(y));
}

// log2(2^x + 2^y): max + log1p(2^-|x - y|) / ln 2; equal arguments give x + 1. Scaled by
// 2^64 where the max is tiny and 2^-|x - y| below the normal range, as logaddexp.
fn logaddexp2_32_(x: TW, y: TW) -> TW {
    let m = max(x, y);
    let d = abs(x - y);
    let sc = (abs(m) < TW(1e-18)) & (d > TW(100.0));
    let t = exp2_(select(-d, TW(64.0) - d, sc));
    let v = select(
        m + log1p_(t) * TW(1.4426950408889634),
        fma(t, TW(1.4426950408889634), m * TW(0x1p64)) * TW(0x1p-64),
        sc,
    );
    let same = select(v, x + TW(1.0), x == y);
    return select(same, x + y, is_nan_(x) | is_nan_(y));
}
