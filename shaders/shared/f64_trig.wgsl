// f64 trigonometry in software (with f64_math.wgsl, whose helpers it uses): sin, cos, tan
// by fdlibm's one-step reduction by pi/2 (pi/2 as a 33-bit part and a 53-bit tail) where it
// leaves the remainder at least 2^-10 (or exact), and otherwise, only where some lane needs
// it, a four-part Cody-Waite reduction in double-double for |x| < 2^20 (1048576) and
// Payne-Hanek in exact f64 integer arithmetic above; fdlibm's minimax kernels for sin and
// cos (degree 13 and 14); atan, atan2, asin, acos by atan(c) + atan(u) with
// c a multiple of 1/8 (atan(c) as double-double constants) and |u| <= 1/16; hypot; NumPy's
// sinc.
#import f64_math

// x = n pi/2 + (hi + lo), |hi + lo| <= pi/4 + a little, for |x| < 2^20: pi/2 in 33-bit
// parts (Cody-Waite), so that n * part is exact without fma (lavapipe's f64 fma is not
// fused) and x - n * part1 is exact (Sterbenz); the rest is kept in double-double.
struct Red64 {
    n: TW,
    hi: TW,
    lo: TW,
}

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

// The four-part reduction, for the lanes rem_pio2_fast64_ leaves (remainders below 2^-10).
fn rem_pio2_64_(x: TW) -> Red64 {
    let n = floor(x * TW(D64_2_OVER_PI) + TW(0.5));
    let r1 = x - n * TW(1.5707963267341256);
    let s = two_sum64_(r1, -n * TW(6.077100506303966e-11));
    let t = two_sum64_(s.hi, -n * TW(2.0222662487111665e-21));
    let lo = s.lo + t.lo - n * TW(8.4784276603689e-32);
    let r = fast_two_sum64_(t.hi, lo);
    return Red64(n, r.hi, r.lo);
}

// Digit i (24 bits) of 2/pi = sum_i d_i 2^(-24 (i + 1)) as an f64, for an integral i; 0
// outside [0, 51] (digits from tests/numerics/golden/two_over_pi.py).
fn two_over_pi_d24_(i: TW) -> TW {
    var c = TW(0.0);
    c = select(c, TW(10680707.0), i == TW(0.0));
    c = select(c, TW(7228996.0), i == TW(1.0));
    c = select(c, TW(1387004.0), i == TW(2.0));
    c = select(c, TW(2578385.0), i == TW(3.0));
    c = select(c, TW(16069853.0), i == TW(4.0));
    c = select(c, TW(12639074.0), i == TW(5.0));
    c = select(c, TW(9804092.0), i == TW(6.0));
    c = select(c, TW(4427841.0), i == TW(7.0));
    c = select(c, TW(16666979.0), i == TW(8.0));
    c = select(c, TW(11263675.0), i == TW(9.0));
    c = select(c, TW(12935607.0), i == TW(10.0));
    c = select(c, TW(2387514.0), i == TW(11.0));
    c = select(c, TW(4345298.0), i == TW(12.0));
    c = select(c, TW(14681673.0), i == TW(13.0));
    c = select(c, TW(3074569.0), i == TW(14.0));
    c = select(c, TW(13734428.0), i == TW(15.0));
    c = select(c, TW(16653803.0), i == TW(16.0));
    c = select(c, TW(1880361.0), i == TW(17.0));
    c = select(c, TW(10960616.0), i == TW(18.0));
    c = select(c, TW(8533493.0), i == TW(19.0));
    c = select(c, TW(3062596.0), i == TW(20.0));
    c = select(c, TW(8710556.0), i == TW(21.0));
    c = select(c, TW(7349940.0), i == TW(22.0));
    c = select(c, TW(6258241.0), i == TW(23.0));
    c = select(c, TW(3772886.0), i == TW(24.0));
    c = select(c, TW(3769171.0), i == TW(25.0));
    c = select(c, TW(3798172.0), i == TW(26.0));
    c = select(c, TW(8675211.0), i == TW(27.0));
    c = select(c, TW(12450088.0), i == TW(28.0));
    c = select(c, TW(3874808.0), i == TW(29.0));
    c = select(c, TW(9961438.0), i == TW(30.0));
    c = select(c, TW(366607.0), i == TW(31.0));
    c = select(c, TW(15675153.0), i == TW(32.0));
    c = select(c, TW(9132554.0), i == TW(33.0));
    c = select(c, TW(7151469.0), i == TW(34.0));
    c = select(c, TW(3571407.0), i == TW(35.0));
    c = select(c, TW(2607881.0), i == TW(36.0));
    c = select(c, TW(12013382.0), i == TW(37.0));
    c = select(c, TW(4155038.0), i == TW(38.0));
    c = select(c, TW(6285869.0), i == TW(39.0));
    c = select(c, TW(7677882.0), i == TW(40.0));
    c = select(c, TW(13102053.0), i == TW(41.0));
    c = select(c, TW(15825725.0), i == TW(42.0));
    c = select(c, TW(473591.0), i == TW(43.0));
    c = select(c, TW(9065106.0), i == TW(44.0));
    c = select(c, TW(15363067.0), i == TW(45.0));
    c = select(c, TW(6271263.0), i == TW(46.0));
    c = select(c, TW(9264392.0), i == TW(47.0));
    c = select(c, TW(5636912.0), i == TW(48.0));
    c = select(c, TW(4652155.0), i == TW(49.0));
    c = select(c, TW(7056368.0), i == TW(50.0));
    c = select(c, TW(13614112.0), i == TW(51.0));
    return c;
}
// Payne-Hanek for 2^20 <= a < inf, in f64 arithmetic on integers below 2^53 (so every
// operation is exact, with or without fma): a = M 2^(E - 52), M = m2 2^48 + m1 2^24 + m0, and
// a 2/pi = sum_j M d(i0 + j) 2^(W0 - 24 j), where the digits before i0 are skipped (their
// terms are multiples of 4) and W0 = E - 52 - 24 (i0 + 1) is in [-22, 1]. Position t (weight
// 2^(W0 - 24 t)) sums m_k d(i0 + t + k) over the limbs k, below 2^50; positions below 0 are
// multiples of 4, those past 8 below 2^-138. Carried in base 2^24 from t = 8 down, positions
// 0 and 1 give the quadrant and the fraction's first 48 bits, 2 to 8 the rest; the fraction,
// moved to [-1/2, 1/2), times pi/2 in double-double is the remainder.
fn rem_pio2_big64_(a: TW) -> Red64 {
    let sp = split64_(a);
    let mant = sp.hi * TW(0x1p52);
    let e = sp.lo;
    let m2 = floor(mant * TW(0x1p-48));
    let r2 = mant - m2 * TW(0x1p48);
    let m1 = floor(r2 * TW(0x1p-24));
    let m0 = r2 - m1 * TW(0x1p24);
    // (E - 54) / 24 rounded down; the half keeps the product's rounding off an integer.
    let i0 = floor((e - TW(53.5)) * TW(1.0 / 24.0));
    let w0 = e - TW(52.0) - TW(24.0) * (i0 + TW(1.0));
    var d: array<TW, 11>;
    for (var j = 0; j < 11; j++) {
        d[j] = two_over_pi_d24_(i0 + TW(f64(j)));
    }
    var v: array<TW, 9>;
    for (var t = 0; t < 9; t++) {
        v[t] = m0 * d[t] + m1 * d[t + 1] + m2 * d[t + 2];
    }
    var carry = TW(0.0);
    for (var t = 8; t >= 1; t--) {
        let s = v[t] + carry;
        carry = floor(s * TW(0x1p-24));
        v[t] = s - carry * TW(0x1p24);
    }
    // Position 0 modulo 2^(2 - W0) (its weight times that is 4), then with position 1.
    let v0 = v[0] + carry;
    let p = ldexp(TW(1.0), NI(TW(2.0) - w0));
    let v0r = v0 - p * floor(v0 * ldexp(TW(1.0), NI(w0 - TW(2.0))));
    let a48 = (v0r * TW(0x1p24) + v[1]) * ldexp(TW(1.0), NI(w0 - TW(24.0)));
    let q0 = floor(a48);
    let fh0 = a48 - q0;
    let b1 = (v[2] * TW(0x1p24) + v[3]) * ldexp(TW(1.0), NI(w0 - TW(72.0)));
    let b2 = (v[4] * TW(0x1p24) + v[5]) * ldexp(TW(1.0), NI(w0 - TW(120.0)));
    let b3 = (v[6] * TW(0x1p24) + v[7]) * ldexp(TW(1.0), NI(w0 - TW(168.0)));
    let b4 = v[8] * ldexp(TW(1.0), NI(w0 - TW(192.0)));
    // fh0 < 1/2 leaves the whole fraction below 1/2 (the rest is below fh0's last bit).
    let up = fh0 >= TW(0.5);
    let fh = select(fh0, fh0 - TW(1.0), up);
    let q1 = q0 + select(TW(0.0), TW(1.0), up);
    let s1 = two_sum64_(fh, b1);
    let f = fast_two_sum64_(s1.hi, s1.lo + (b2 + (b3 + b4)));
    let pr = two_prod64_(f.hi, TW(D64_PIO2));
    let pl = pr.lo + (f.lo * TW(D64_PIO2) + f.hi * TW(D64_PIO2_B));
    let r = fast_two_sum64_(pr.hi, pl);
    return Red64(q1 - TW(4.0) * floor(q1 * TW(0.25)), r.hi, r.lo);
}

// x = n pi/2 + (hi + lo) for every finite x, exact to 2^-58 of the remainder: the
// four-part Cody-Waite below 2^20, Payne-Hanek above, for -x the negated remainder and
// quadrant; the part of rem_pio2_any64_ that the common lanes skip.
fn rem_pio2_slow64_(x: TW) -> Red64 {
    let inside = abs(x) < TW(0x1p20);
    var red = rem_pio2_64_(select(TW(0.0), x, inside));
    let big = !inside & (abs(x) <= TW(D64_MAX));
    if (any(big)) {
        let b = rem_pio2_big64_(select(TW(0x1p20), abs(x), big));
        let neg = x < TW(0.0);
        let n = select(b.n, TW(4.0) - b.n, neg & (b.n != TW(0.0)));
        red = Red64(select(red.n, n, big), select(red.hi, select(b.hi, -b.hi, neg), big),
            select(red.lo, select(b.lo, -b.lo, neg), big));
    }
    return red;
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

// fdlibm's minimax coefficients (k_sin.c, k_cos.c): sin(h) = h + h^3 (S1 + ... + S6 h^10)
// within 2^-57.8 relatively and cos(h) = 1 - h^2/2 + h^4 (C1 + ... + C6 h^10) within
// 2^-59.3, for |h| <= pi/4 (+ the reductions' slack).
const D64_S1 = -1.66666666666666324348e-01;
const D64_S2 = 8.33333333332248946124e-03;
const D64_S3 = -1.98412698298579493134e-04;
const D64_S4 = 2.75573137070700676789e-06;
const D64_S5 = -2.50507602534068634195e-08;
const D64_S6 = 1.58969099521155010221e-10;
const D64_C1 = 4.16666666666666019037e-02;
const D64_C2 = -1.38888888888741095749e-03;
const D64_C3 = 2.48015872894767294178e-05;
const D64_C4 = -2.75573143513906633035e-07;
const D64_C5 = 2.08757232129817482790e-09;
const D64_C6 = -1.13596475577881948265e-11;

// sin(h + l) for |h| <= pi/4 + a little: fdlibm's polynomial.
fn sin_k64_(h: TW, l: TW) -> TW {
    let z = h * h;
    var p = TW(D64_S6);
    p = fma(p, z, TW(D64_S5));
    p = fma(p, z, TW(D64_S4));
    p = fma(p, z, TW(D64_S3));
    p = fma(p, z, TW(D64_S2));
    p = fma(p, z, TW(D64_S1));
    return h + (h * z * p + l * (TW(1.0) - TW(0.5) * z));
}

// cos(h + l) for |h| <= pi/4 + a little: 1 - h^2/2 compensated, then fdlibm's terms.
fn cos_k64_(h: TW, l: TW) -> TW {
    let z = h * h;
    var p = TW(D64_C6);
    p = fma(p, z, TW(D64_C5));
    p = fma(p, z, TW(D64_C4));
    p = fma(p, z, TW(D64_C3));
    p = fma(p, z, TW(D64_C2));
    p = fma(p, z, TW(D64_C1));
    let hz = TW(0.5) * z;
    let w = TW(1.0) - hz;
    return w + (((TW(1.0) - w) - hz) + (z * z * p - h * l));
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

// sqrt(x^2 + y^2) without overflow or underflow: both scaled by an exact power of two that
// brings the larger near 1 when it is huge or tiny, and scaled back once. inf if either is
// infinite (NaN or not), else NaN if either is NaN.
fn hypot64_(x: TW, y: TW) -> TW {
    let ax = abs(x);
    let ay = abs(y);
    let hi = max(ax, ay);
    let lo = min(ax, ay);
    let up = hi < TW(0x1p-500);
    let down = hi > TW(0x1p500);
    let s = select(select(TW(1.0), TW(0x1p600), up), TW(0x1p-600), down);
    let back = select(select(TW(1.0), TW(0x1p-600), up), TW(0x1p600), down);
    let h = hi * s;
    let l = lo * s;
    let r = sqrt64_(fma(h, h, l * l)) * back;
    let v = select(r, nan64_(x), !(x == x) | !(y == y));
    return select(v, inf64_(x), (ax > TW(D64_MAX)) | (ay > TW(D64_MAX)));
}

fn sinc64_(x: TW) -> TW {
    let y = TW(3.141592653589793) * select(x, TW(1e-20), x == TW(0.0));
    return div64_(sin64_(y), y);
}
