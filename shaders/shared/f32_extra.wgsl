// The f32 forms (TW is f32 or vec4<f32>; f16 is computed in f32 and rounded once) of the
// functions added with the f64 library: log10, sinh, cosh, asin, acos, atan, atan2, cbrt.
// asin, acos, atan and atan2 in f32 arithmetic (atan(k/8) + a short series); log10, sinh,
// cosh and cbrt on WGSL's exp/log2 built-ins, which Vulkan lets be approximate (NVIDIA's
// are): on such adapters those four are looser than on lavapipe.

// e^x for |x| <= 89 (x/2 for the larger arguments of sinh and cosh): Cody-Waite with
// ln 2 in two parts (n * hi exact), a Taylor polynomial to r^8 on |r| <= ln(2)/2, and the
// exact ldexp.
fn exp32_(x: TW) -> TW {
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
    return (e * ldexp(TW(1.0), NI(h))) * ldexp(TW(1.0), NI(n - h));
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
    let s = f / (TW(2.0) + f);
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
    let h = exp32_(min(a, TW(200.0)) * TW(0.5));
    // (0.5 h) h: h h overflows for |x| past 88.72 although the result does not.
    let v = select(select(TW(0.5) * (e - TW(1.0) / e), (TW(0.5) * h) * h, a > TW(88.0)), small, a < TW(0.5));
    return select(select(v, -v, x < TW(0.0)), x, (x == TW(0.0)) | !(x == x));
}

fn cosh_32_(x: TW) -> TW {
    let a = abs(x);
    let e = exp32_(min(a, TW(88.0)));
    let h = exp32_(min(a, TW(200.0)) * TW(0.5));
    return select(select(TW(0.5) * (e + TW(1.0) / e), (TW(0.5) * h) * h, a > TW(88.0)), x, !(x == x));
}

// atan(a / b) in [0, pi/2] for finite a, b >= 0 not both 0: atan(k/8) + atan(u) with
// u = (a - c b) / (b + c a), |u| <= 1/16 (Taylor to u^9), the smaller over the larger and
// pi/2 minus that when a > b; a common power-of-two scale keeps the products finite.
fn atan2_pos32_(a0: TW, b0: TW) -> TW {
    let m = max(a0, b0);
    let sc = select(select(TW(1.0), TW(0x1p40), m < TW(0x1p-80)), TW(0x1p-40), m > TW(0x1p80));
    let swap = a0 > b0;
    let a = select(a0, b0, swap) * sc;
    let b = select(b0, a0, swap) * sc;
    let k = floor(TW(8.0) * (a / b) + TW(0.5));
    let c = k * TW(0.125);
    let u = fma(-c, b, a) / fma(c, a, b);
    let z = u * u;
    let p = fma(fma(fma(TW(1.0 / 9.0), z, TW(-1.0 / 7.0)), z, TW(1.0 / 5.0)), z, TW(-1.0 / 3.0));
    var t = TW(0.0);
    t = select(t, TW(0.12435499454676144), k == TW(1.0));
    t = select(t, TW(0.24497866312686414), k == TW(2.0));
    t = select(t, TW(0.35877067027057225), k == TW(3.0));
    t = select(t, TW(0.4636476090008061), k == TW(4.0));
    t = select(t, TW(0.5585993153435624), k == TW(5.0));
    t = select(t, TW(0.6435011087932844), k == TW(6.0));
    t = select(t, TW(0.7188299996216245), k == TW(7.0));
    t = select(t, TW(0.7853981633974483), k == TW(8.0));
    let v = t + fma(u * z, p, u);
    return select(v, TW(1.5707963267948966) - v, swap);
}

fn asin_32_(x: TW) -> TW {
    let a = abs(x);
    let d = sqrt(max((TW(1.0) - a) * (TW(1.0) + a), TW(0.0)));
    let v = atan2_pos32_(a, d);
    let r = select(select(v, -v, x < TW(0.0)), x, x == TW(0.0));
    return select(r, (x - x) / (x - x), !(a <= TW(1.0)));
}

fn acos_32_(x: TW) -> TW {
    let a = abs(x);
    let d = sqrt(max((TW(1.0) - a) * (TW(1.0) + a), TW(0.0)));
    let w = atan2_pos32_(d, a);
    let v = select(w, TW(3.1415926535897932) - w, x < TW(0.0));
    return select(v, (x - x) / (x - x), !(a <= TW(1.0)));
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
    y = y - fma(y2, y, -a) / (TW(3.0) * y2);
    y = y * select(select(TW(1.0), TW(0x1p32), down), TW(0x1p-32), up);
    // Zero, infinite and NaN from the bits, the sign from its bit (flushing adapters).
    let fin = !is_zero_(x) & (abits_(x) < M(0x7f800000u));
    return select(x, select(y, -y, sign_bit_(x)), fin);
}
