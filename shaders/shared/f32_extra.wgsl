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

// atan(a / b) in [0, pi/2] for finite a, b >= 0 not both 0: atan(k/8) + atan(u) with
// u = (a - c b) / (b + c a), |u| <= 1/16 (Taylor to u^9), the smaller over the larger and
// pi/2 minus that when a > b; a common power-of-two scale keeps the products finite.
fn atan2_pos32_(a0: TW, b0: TW) -> TW {
    let m = max(a0, b0);
    let sc = select(select(TW(1.0), TW(0x1p40), m < TW(0x1p-80)), TW(0x1p-40), m > TW(0x1p80));
    let swap = a0 > b0;
    // Opaque, so that the compiler cannot move the scaling past fma(-c, b, a): the H100 gave
    // atan2(-1.25e-38, 4.1e-38) = -0.245 (-0.296), as if a - c b had been formed unscaled
    // and flushed.
    let a = opaque_(select(a0, b0, swap) * sc);
    let b = opaque_(select(b0, a0, swap) * sc);
    // The built-in quotient only picks the table's entry (a, b <= 2^88: never undefined).
    let k = floor(TW(8.0) * (a / b) + TW(0.5));
    let c = k * TW(0.125);
    let u = div_(fma(-c, b, a), fma(c, a, b));
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

// erf as erf64_ (f64_math.wgsl) in f32: centers c = k/4 for k = 0..16 (erf is 1 in f32
// past 3.92), erf(c) as a pair of f32, the integral's series to j = 12.
struct Erf32 {
    h: TW,
    l: TW,
    w: TW,
}

fn erf_pick32_(t: Erf32, on: TB, h: TW, l: TW, w: TW) -> Erf32 {
    return Erf32(select(t.h, h, on), select(t.l, l, on), select(t.w, w, on));
}

fn erf_table32_(k: TW) -> Erf32 {
    var t = Erf32(TW(0.0), TW(0.0), TW(1.128379225730896));
    t = erf_pick32_(t, k == TW(1.0), TW(0.27632638812065125), TW(2.0475856565838058e-09), TW(1.0600141286849976));
    t = erf_pick32_(t, k == TW(2.0), TW(0.5204998850822449), TW(-7.269198132320298e-09), TW(0.8787825703620911));
    t = erf_pick32_(t, k == TW(3.0), TW(0.7111556529998779), TW(-1.9346362734040667e-08), TW(0.6429310441017151));
    t = erf_pick32_(t, k == TW(4.0), TW(0.8427007794380188), TW(1.35116957622472e-08), TW(0.41510748863220215));
    t = erf_pick32_(t, k == TW(5.0), TW(0.9229001402854919), TW(-1.202903376906761e-08), TW(0.23652112483978271));
    t = erf_pick32_(t, k == TW(6.0), TW(0.9661051630973816), TW(-1.6622070830862867e-08), TW(0.11893028765916824));
    t = erf_pick32_(t, k == TW(7.0), TW(0.9866716861724854), TW(-1.4953302596154572e-08), TW(0.05277499556541443));
    t = erf_pick32_(t, k == TW(8.0), TW(0.9953222870826721), TW(-2.206371974011745e-08), TW(0.02066698484122753));
    t = erf_pick32_(t, k == TW(9.0), TW(0.9985373020172119), TW(-1.8603893536806027e-08), TW(0.00714231887832284));
    t = erf_pick32_(t, k == TW(10.0), TW(0.9995930194854736), TW(2.84970820274566e-08), TW(0.002178284339606762));
    t = erf_pick32_(t, k == TW(11.0), TW(0.9998993873596191), TW(-9.281738932997996e-09), TW(0.0005862772231921554));
    t = erf_pick32_(t, k == TW(12.0), TW(0.9999778866767883), TW(2.282621380800265e-08), TW(0.00013925305393058807));
    t = erf_pick32_(t, k == TW(13.0), TW(0.9999957084655762), TW(-1.1245039566176729e-08), TW(2.9189024644438177e-05));
    t = erf_pick32_(t, k == TW(14.0), TW(0.9999992847442627), TW(-2.784263486432792e-08), TW(5.399426754593151e-06));
    t = erf_pick32_(t, k == TW(15.0), TW(0.9999998807907104), TW(5.482033049730717e-09), TW(8.814321859063057e-07));
    t = erf_pick32_(t, k == TW(16.0), TW(1.0), TW(-1.5417258580896487e-08), TW(1.2698234286290244e-07));
    return t;
}

fn erf_32_(x: TW) -> TW {
    let a = min(abs(x), TW(4.0));
    // Below 3/8 the series at 0 (no cancellation between erf(1/4) and the integral).
    let k = select(floor(a * TW(4.0) + TW(0.5)), TW(0.0), a < TW(0.375));
    let c = k * TW(0.25);
    let h = a - c;
    let t = erf_table32_(k);
    let m2c = TW(-2.0) * c;
    var bp = TW(0.0);
    var bc = TW(1.0);
    var hp = h;
    var s = TW(0.0);
    for (var j = 1; j <= 12; j++) {
        let bn = (m2c * bc - TW(2.0) * bp) * TW(1.0 / f32(j));
        bp = bc;
        bc = bn;
        hp = hp * h;
        s = fma(bn * hp, TW(1.0 / f32(j + 1)), s);
    }
    s = h + s;
    let wl = select(TW(0.0), TW(-5.863538342219759e-08), k == TW(0.0));
    let v = t.h + (t.l + fma(t.w, s, wl * s));
    // Zero and sign from the bits: a flushing adapter (the H100) compares a subnormal x
    // equal to 0, and returned it unchanged.
    let r = select(select(v, -v, sign_bit_(x)), x, is_zero_(x));
    return select(r, x, !(x == x));
}
