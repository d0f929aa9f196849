// complex64's own forms of two component functions of complex_math.wgsl (host side:
// src/ops/elementwise/complex.rs, which imports this file in complex64 kernels): sin and
// cos of one argument from one range reduction (exp, sinh, cosh need both), and |z| by one
// square root without a division where the squares can neither overflow nor underflow.
#import f32_trig

// (sin x, cos x): f32_trig.wgsl's sin_ and cos_ (their kernels, quadrants, signs and special
// values, bit for bit) from one reduce_ instead of two.
fn r_sincos(x: TW) -> vec2<TW> {
    let red = reduce_(x);
    let odd = (red.q == TW(1.0)) | (red.q == TW(3.0));
    let sk = sin_k_(red.r);
    let ck = cos_k_(red.r);
    var s = select(sk, ck, odd);
    s = select(s, -s, (red.q >= TW(2.0)) != sign_bit_(x));
    var c = select(ck, sk, odd);
    c = select(c, -c, (red.q == TW(1.0)) | (red.q == TW(2.0)));
    let bad = is_nan_(x) | is_inf_(x);
    return vec2<TW>(select(select(s, f32_nan_(), bad), x, tiny_(x)), select(c, f32_nan_(), bad));
}

// |z| = sqrt(x^2 + y^2). Where the larger magnitude m lies in [2^-50, 2^50] (read from the
// bits, so NaN and inf fall outside on every compiler): s = x^2 + y^2 by one fma (two
// roundings, s within 2^-23 relatively; a square flushed to 0 weighs below 2^-26 of s), and
// its root as y0 = s / sqrt(s) from the built-in reciprocal root, corrected by one Newton
// step with its residual (exact where fma is fused, within half an ulp of s elsewhere):
// within 1.5 ulp. Elsewhere (huge, tiny, zero, inf, NaN) hypot_32_, which scales exactly.
fn c_abs(z: vec2<TW>) -> TW {
    let bx = abits_(z.x);
    let by = abits_(z.y);
    let bm = max(bx, by);
    if (bm >= M(0x26800000u) && bm <= M(0x58800000u)) {
        let ax = bitcast<TW>(bx);
        let ay = bitcast<TW>(by);
        let s = fma(ax, ax, ay * ay);
        let h = inverseSqrt(s);
        let y0 = s * h;
        return fma(fma(-y0, y0, s), TW(0.5) * h, y0);
    }
    return hypot_32_(z.x, z.y);
}
