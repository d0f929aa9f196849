// The f32 inverse trigonometric functions (TW is f32 or vec4<f32>, M u32 or vec4<u32>, TB
// bool or vec4<bool>; f16 is computed in f32 and rounded once): asin, acos, atan and atan2,
// from f32 arithmetic and f32_math.wgsl's accurate div_ and sqrt_ (the built-in division and
// square root may be approximate: NVIDIA's are). Unlike f32_math.wgsl and f32_trig.wgsl,
// some signs are taken from comparisons with zero, which a subnormal argument on an adapter
// that flushes reads as ±0.
#import f32_math

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
