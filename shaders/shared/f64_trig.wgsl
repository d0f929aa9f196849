// f64 trigonometry in software (with f64_math.wgsl, whose helpers it uses): sin, cos, tan
// by a four-part Cody-Waite reduction by pi/2 in double-double, exact for |x| < 2^20
// (1048576; NaN past it: no Payne-Hanek reduction yet); atan, atan2, asin, acos by atan(c) + atan(u) with
// c a multiple of 1/8 (atan(c) as double-double constants) and |u| <= 1/16; cbrt by Halley
// steps and a final Newton step in double-double.

// x = n pi/2 + (hi + lo), |hi + lo| <= pi/4 + a little, for |x| < 2^20: pi/2 in 33-bit
// parts (Cody-Waite), so that n * part is exact without fma (lavapipe's f64 fma is not
// fused) and x - n * part1 is exact (Sterbenz); the rest is kept in double-double.
struct Red64 {
    n: TW,
    hi: TW,
    lo: TW,
}

fn rem_pio2_64_(x: TW) -> Red64 {
    let n = floor(x * TW(D64_2_OVER_PI) + TW(0.5));
    let r1 = x - n * TW(1.5707963267341256);
    let s = two_sum64_(r1, -n * TW(6.077100506303966e-11));
    let t = two_sum64_(s.hi, -n * TW(2.0222662487111665e-21));
    let lo = s.lo + t.lo - n * TW(8.4784276603689e-32);
    let r = fast_two_sum64_(t.hi, lo);
    return Red64(n, r.hi, r.lo);
}

// sin(h + l) for |h| <= 0.8: the Taylor polynomial to h^19 (error below 2^-60).
fn sin_k64_(h: TW, l: TW) -> TW {
    let z = h * h;
    var p = TW(-1.0 / 121645100408832000.0);
    p = fma(p, z, TW(1.0 / 355687428096000.0));
    p = fma(p, z, TW(-1.0 / 1307674368000.0));
    p = fma(p, z, TW(1.0 / 6227020800.0));
    p = fma(p, z, TW(-1.0 / 39916800.0));
    p = fma(p, z, TW(1.0 / 362880.0));
    p = fma(p, z, TW(-1.0 / 5040.0));
    p = fma(p, z, TW(1.0 / 120.0));
    p = fma(p, z, TW(-1.0 / 6.0));
    return h + (h * z * p + l * (TW(1.0) - TW(0.5) * z));
}

// cos(h + l) for |h| <= 0.8: 1 - h^2/2 compensated, then the Taylor terms to h^20.
fn cos_k64_(h: TW, l: TW) -> TW {
    let z = h * h;
    var p = TW(1.0 / 2432902008176640000.0);
    p = fma(p, z, TW(-1.0 / 6402373705728000.0));
    p = fma(p, z, TW(1.0 / 20922789888000.0));
    p = fma(p, z, TW(-1.0 / 87178291200.0));
    p = fma(p, z, TW(1.0 / 479001600.0));
    p = fma(p, z, TW(-1.0 / 3628800.0));
    p = fma(p, z, TW(1.0 / 40320.0));
    p = fma(p, z, TW(-1.0 / 720.0));
    p = fma(p, z, TW(1.0 / 24.0));
    let hz = TW(0.5) * z;
    let w = TW(1.0) - hz;
    return w + (((TW(1.0) - w) - hz) + (z * z * p - h * l));
}

// sin (which 0) or cos (which 1) of x; the quadrant n mod 4 picks the kernel and the sign.
fn sincos64_(x: TW, which: TW) -> TW {
    let inside = abs(x) < TW(0x1p20);
    let red = rem_pio2_64_(select(TW(0.0), x, inside));
    let q = red.n + which - TW(4.0) * floor((red.n + which) * TW(0.25));
    let s = sin_k64_(red.hi, red.lo);
    let c = cos_k64_(red.hi, red.lo);
    var v = select(s, c, (q == TW(1.0)) | (q == TW(3.0)));
    v = select(v, -v, q >= TW(2.0));
    return select(v, nan64_(x), !inside);
}

fn sin64_(x: TW) -> TW {
    return select(sincos64_(x, TW(0.0)), x, x == TW(0.0));
}
fn cos64_(x: TW) -> TW {
    return sincos64_(x, TW(1.0));
}

fn tan64_(x: TW) -> TW {
    let inside = abs(x) < TW(0x1p20);
    let red = rem_pio2_64_(select(TW(0.0), x, inside));
    let odd = red.n - TW(2.0) * floor(red.n * TW(0.5)) != TW(0.0);
    let s = sin_k64_(red.hi, red.lo);
    let c = cos_k64_(red.hi, red.lo);
    let v = select(div64_(s, c), -div64_(c, s), odd);
    return select(select(v, nan64_(x), !inside), x, x == TW(0.0));
}

// atan(k / 8) for k = 0..8 as a double-double.
fn atan_table64_(k: TW) -> Dd64 {
    var h = TW(0.0);
    var l = TW(0.0);
    h = select(h, TW(0.12435499454676144), k == TW(1.0));
    l = select(l, TW(-3.1253241424539383e-18), k == TW(1.0));
    h = select(h, TW(0.24497866312686414), k == TW(2.0));
    l = select(l, TW(1.0698755618734451e-17), k == TW(2.0));
    h = select(h, TW(0.35877067027057225), k == TW(3.0));
    l = select(l, TW(-2.4623815582638635e-17), k == TW(3.0));
    h = select(h, TW(0.4636476090008061), k == TW(4.0));
    l = select(l, TW(2.2698777452961687e-17), k == TW(4.0));
    h = select(h, TW(0.5585993153435624), k == TW(5.0));
    l = select(l, TW(-5.4556305485916264e-18), k == TW(5.0));
    h = select(h, TW(0.6435011087932844), k == TW(6.0));
    l = select(l, TW(1.5834785051444286e-17), k == TW(6.0));
    h = select(h, TW(0.7188299996216245), k == TW(7.0));
    l = select(l, TW(-2.1478388444456983e-17), k == TW(7.0));
    h = select(h, TW(0.7853981633974483), k == TW(8.0));
    l = select(l, TW(3.061616997868383e-17), k == TW(8.0));
    return Dd64(h, l);
}

// atan(u) for |u| <= 1/16 + a little: the Taylor series to u^19.
fn atan_k64_(u: TW) -> TW {
    let z = u * u;
    var p = TW(-1.0 / 19.0);
    p = fma(p, z, TW(1.0 / 17.0));
    p = fma(p, z, TW(-1.0 / 15.0));
    p = fma(p, z, TW(1.0 / 13.0));
    p = fma(p, z, TW(-1.0 / 11.0));
    p = fma(p, z, TW(1.0 / 9.0));
    p = fma(p, z, TW(-1.0 / 7.0));
    p = fma(p, z, TW(1.0 / 5.0));
    p = fma(p, z, TW(-1.0 / 3.0));
    return fma(u * z, p, u);
}

// atan(a / b) in [0, pi/2] as a double-double, for finite a, b >= 0 not both 0 (any common
// power-of-two scale): atan(c) + atan((a - c b) / (b + c a)) with the smaller over the larger,
// pi/2 minus that when a > b.
fn atan2_pos64_(a0: TW, b0: TW) -> Dd64 {
    let m = max(a0, b0);
    let sc = select(select(TW(1.0), TW(0x1p128), m < TW(0x1p-900)), TW(0x1p-128), m > TW(0x1p900));
    let swap = a0 > b0;
    let a = select(a0, b0, swap) * sc;
    let b = select(b0, a0, swap) * sc;
    let k = floor(TW(8.0) * (a / b) + TW(0.5));
    let c = k * TW(0.125);
    let cb = two_prod64_(c, b);
    let u = div64_((a - cb.hi) - cb.lo, fma(c, a, b));
    let t = atan_table64_(k);
    let vl = t.lo + atan_k64_(u);
    let s = two_sum64_(TW(D64_PIO2), -t.hi);
    let d = fast_two_sum64_(t.hi, vl);
    let e = fast_two_sum64_(s.hi, s.lo + TW(D64_PIO2_B) - vl);
    return Dd64(select(d.hi, e.hi, swap), select(d.lo, e.lo, swap));
}

// atan2(y, x) as C99 and NumPy, special values included.
fn atan2_64_(y: TW, x: TW) -> TW {
    var ay = abs(y);
    var ax = abs(x);
    let iy = ay > TW(D64_MAX);
    let ix = ax > TW(D64_MAX);
    // Both infinite: the diagonal; one infinite: that axis; both zero: the x axis.
    ay = select(select(ay, TW(1.0), iy), TW(0.0), ix & !iy);
    ax = select(select(ax, TW(1.0), ix), TW(0.0), iy & !ix);
    ax = select(ax, TW(1.0), (ay == TW(0.0)) & (ax == TW(0.0)));
    let w = atan2_pos64_(ay, ax);
    let s = two_sum64_(TW(D64_PI), -w.hi);
    let v = select(w.hi + w.lo, s.hi + (s.lo + TW(D64_PI_B) - w.lo), signbit64_(x));
    let r = select(v, -v, signbit64_(y));
    return select(r, nan64_(x), !(x == x) | !(y == y));
}

fn atan64_(x: TW) -> TW {
    let a = abs(x);
    let w = atan2_pos64_(min(a, TW(D64_MAX)), TW(1.0));
    let v = w.hi + w.lo;
    return select(select(v, -v, x < TW(0.0)), x, (x == TW(0.0)) | !(x == x));
}

// asin and acos through atan2 with sqrt((1 - x)(1 + x)) (1 - x exact from 1/2 on).
fn asin64_(x: TW) -> TW {
    let a = abs(x);
    let d = sqrt64_(max((TW(1.0) - a) * (TW(1.0) + a), TW(0.0)));
    let w = atan2_pos64_(a, d);
    let v = w.hi + w.lo;
    let r = select(select(v, -v, x < TW(0.0)), x, x == TW(0.0));
    return select(r, nan64_(x), !(a <= TW(1.0)));
}

fn acos64_(x: TW) -> TW {
    let a = abs(x);
    let d = sqrt64_(max((TW(1.0) - a) * (TW(1.0) + a), TW(0.0)));
    let w = atan2_pos64_(d, a);
    let s = two_sum64_(TW(D64_PI), -w.hi);
    let v = select(w.hi + w.lo, s.hi + (s.lo + TW(D64_PI_B) - w.lo), x < TW(0.0));
    return select(v, nan64_(x), !(a <= TW(1.0)));
}

// cbrt: |x| = m 2^(3q) with m in [1, 8); Halley steps from a linear guess, a last Newton step
// with the cube's residual in double-double; 2^q scales back exactly.
fn cbrt64_(x: TW) -> TW {
    let a = abs(x);
    let fin = (a > TW(0.0)) & (a <= TW(D64_MAX));
    let sp = split64_(select(TW(1.0), a, fin));
    let q = floor((sp.lo + TW(0.5)) * TW(1.0 / 3.0));
    let rm = sp.lo - TW(3.0) * q;
    let m = sp.hi * select(select(TW(1.0), TW(2.0), rm == TW(1.0)), TW(4.0), rm == TW(2.0));
    var y = TW(1.0) + (m - TW(1.0)) * TW(1.0 / 7.0);
    for (var i = 0; i < 4; i++) {
        let y3 = y * y * y;
        y = y * (y3 + TW(2.0) * m) / (TW(2.0) * y3 + m);
    }
    let y2 = two_prod64_(y, y);
    let y3 = two_prod64_(y2.hi, y);
    let res = (y3.hi - m) + (y3.lo + y2.lo * y);
    y = y - res / (TW(3.0) * y2.hi);
    let v = scale64_(y, q);
    return select(select(v, -v, x < TW(0.0)), x, !fin);
}
