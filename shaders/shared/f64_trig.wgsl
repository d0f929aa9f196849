// f64 trigonometry in software (with f64_math.wgsl, whose helpers it uses): sin, cos, tan
// by fdlibm's one-step reduction by pi/2 (pi/2 as a 33-bit part and a 53-bit tail) where it
// leaves the remainder at least |n| 2^-29 (or exact), and otherwise, only where some lane
// needs it, a four-part Cody-Waite reduction in double-double for |x| < 2^20 (1048576) and
// Payne-Hanek in exact f64 integer arithmetic above (f64_trig_big.wgsl); fdlibm's minimax
// kernels for sin and cos (degree 13 and 14), the common path in f64_trig_fast.wgsl; atan,
// atan2, asin, acos by atan(c) + atan(u) with c a multiple of 1/8 (atan(c) as double-double
// constants) and |u| <= 1/16; hypot; NumPy's sinc.
#import f64_math
#import f64_trig_fast
#import f64_trig_big

// x = n pi/2 + (hi + lo), |hi + lo| <= pi/4 + a little, for |x| < 2^20: pi/2 in 33-bit
// parts (Cody-Waite), so that n * part is exact without fma (lavapipe's f64 fma is not
// fused) and x - n * part1 is exact (Sterbenz); the rest is kept in double-double.
struct Red64 {
    n: TW,
    hi: TW,
    lo: TW,
}

// The four-part reduction, for the lanes rem_pio2_fast64_ leaves (small remainders).
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
