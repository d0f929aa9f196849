// f64 math in software, for the elementwise family (included for f64 inputs only; TW is f64
// or vec4<f64>). Vulkan defines no f64 transcendental built-ins and promises no more than
// single precision's accuracy for f64 division and square root, so everything here is built
// from +, -, *, comparisons, floor and select (fma only where fused or unfused both serve:
// lavapipe's is unfused, as Vulkan allows; exact products by Dekker's splitting instead),
// with the exact built-in ldexp to make powers of two. Results are within a few ulps of the
// correctly rounded value (tests/numerics/f64.rs measures them).
//
// Building blocks: double-doubles (a value hi + lo, |lo| <= ulp(hi) / 2) through two_sum64_
// and two_prod64_; exponent and mantissa by comparisons with powers of two (naga has no f64
// bitcast, and its f64 frexp needs 64-bit integers); exp by Cody-Waite reduction (ln 2 in
// two parts) and a Taylor polynomial on |r| <= ln(2) / 2; log through atanh on the mantissa
// in double-double (pow needs its extra bits); sin/cos/tan by an exact pi/2 reduction
// (f64_trig.wgsl: Cody-Waite below 2^20, Payne-Hanek above).

const D64_MAX = 1.7976931348623157e308;
const D64_LN2_HI = 0.6931471803691238; // 32 significant bits: n * D64_LN2_HI is exact
const D64_LN2_LO = 1.9082149292705877e-10;
const D64_LN2 = 0.6931471805599453;
const D64_LN2_B = 2.3190468138462996e-17;
const D64_LOG2E = 1.4426950408889634;
const D64_LOG2E_B = 2.0355273740931033e-17;
const D64_LOG10_2 = 0.3010299956639812;
const D64_LOG10_2_B = -2.8037281277851704e-18;
const D64_LOG10E = 0.4342944819032518;
const D64_LOG10E_B = 1.098319650216765e-17;
const D64_TWO_THIRDS_B = 3.700743415417188e-17;
const D64_PIO2 = 1.5707963267948966;
const D64_PIO2_B = 6.123233995736766e-17;
const D64_PIO2_C = -1.4973849048591698e-33;
const D64_PIO2_D = 5.562271104316826e-50;
const D64_PI = 3.141592653589793;
const D64_PI_B = 1.2246467991473532e-16;
const D64_2_OVER_PI = 0.6366197723675814;

// A double-double hi + lo; also (mantissa, exponent) pairs.
struct Dd64 {
    hi: TW,
    lo: TW,
}

// 1, which the compiler cannot prove: 1 + P.aux.x, 0 in every elementwise dispatch (as
// f32_math.wgsl's opaque_ reads it) but any of 2^32 values to the compiler. The error-free
// transformations multiply by it to keep the driver from simplifying (a + b) - a to b
// (Mesa does, for operations not marked exact, and naga marks none). The earlier
// f64(min(P.n, 1u)) has two possible values, 0 and 1: a compiler that knows that may turn
// the product into a select and simplify through it; f64 pow stayed 1027 ulps off on the
// H100 with it.
fn one64_() -> TW {
    return TW(f64(P.aux.x) + 1.0);
}

// Every intermediate goes through one64_(), not only the sum: the H100's compiler
// reassociates, and a - (s - bb) rewritten as (a - s) + bb, or da + (b - bb) as
// (da + b) - bb, is no longer exact (its f64 logarithms lost their low parts: pow was 1027
// ulps off there, 2 on lavapipe).
fn two_sum64_(a: TW, b: TW) -> Dd64 {
    let s = (a + b) * one64_();
    let bb = (s - a) * one64_();
    let da = (a - (s - bb) * one64_()) * one64_();
    let db = (b - bb) * one64_();
    return Dd64(s, da + db);
}

// |a| >= |b| (or a == 0).
fn fast_two_sum64_(a: TW, b: TW) -> Dd64 {
    let s = (a + b) * one64_();
    return Dd64(s, b - (s - a) * one64_());
}

// a as hi + lo, each with at most 26 significant bits (Veltkamp's splitting by 2^27 + 1),
// for |a| <= 2^995. The differences go through one64_() so that the driver cannot fold
// (c - (c - a)) to a.
//
// The product is made opaque before the subtraction: NVIDIA's compiler contracted
// a * (2^27 + 1) - a into one fma, whose unrounded product leaves hi with too many bits (its
// f64 pow was 1027 ulps off where lavapipe's, without contraction, was 2).
fn split27_64_(a: TW) -> Dd64 {
    let c = (a * TW(134217729.0)) * one64_();
    let t = (c - a) * one64_();
    let hi = (c - t) * one64_();
    return Dd64(hi, a - hi);
}

// a * b as p + e exactly (Dekker's product; no fma, which Vulkan lets be unfused, as
// lavapipe's f64 fma is), for |a|, |b| <= 2^995 and products whose error is not below the
// normal range (|a b| >= 2^-969). Each partial product of halves is exact and each sum
// of the chain error-free; one64_() keeps the driver from re-associating them.
fn two_prod64_(a: TW, b: TW) -> Dd64 {
    let p = a * b;
    let x = split27_64_(a);
    let y = split27_64_(b);
    let e1 = (x.hi * y.hi - p) * one64_();
    let e2 = (e1 + x.hi * y.lo) * one64_();
    let e3 = (e2 + x.lo * y.hi) * one64_();
    return Dd64(p, e3 + x.lo * y.lo);
}

// a - b * q, exactly where q is near a / b (the residual of a division).
fn residual64_(a: TW, b: TW, q: TW) -> TW {
    let p = two_prod64_(b, q);
    return (a - p.hi) * one64_() - p.lo;
}

// Infinity and NaN made at run time (naga rejects constant expressions that overflow).
fn inf64_(x: TW) -> TW {
    return TW(D64_MAX) * select(TW(4.0), TW(2.0), x == x);
}
fn nan64_(x: TW) -> TW {
    let z = x - x;
    return z / z;
}

// Whether x's sign bit is set (-0 included; NaN's sign is not read): for zeros, the
// conversion to f32 keeps the sign.
fn signbit64_(x: TW) -> TB {
    let z = TF(select(TW(1.0), x, x == TW(0.0)));
    return (x < TW(0.0)) | ((bitcast<M>(z) & M(0x80000000u)) != M(0u));
}

// x * 2^n for integral n, rounded once (subnormal results included): two normal powers of
// two, the first product exact for x in [0.5, 2).
fn scale64_(x: TW, n: TW) -> TW {
    let nc = clamp(n, TW(-2000.0), TW(2000.0));
    let n1 = floor(nc * TW(0.5));
    return (x * ldexp(TW(1.0), NI(n1))) * ldexp(TW(1.0), NI(nc - n1));
}

// x = m * 2^e with m in [1, 2), for positive finite x (subnormals too): binary search on the
// exponent by comparisons, each step an exact scaling.
fn split64_(x: TW) -> Dd64 {
    let sub = x < TW(0x1p-1000);
    var m = select(x, x * TW(0x1p64), sub);
    var e = select(TW(0.0), TW(-64.0), sub);
    for (var i = 9; i >= 0; i--) {
        let k = f64(1 << u32(i));
        let up = m >= TW(ldexp(1.0lf, 1 << u32(i)));
        m = select(m, m * TW(ldexp(1.0lf, -(1 << u32(i)))), up);
        e = select(e, e + TW(k), up);
        let down = m < TW(ldexp(1.0lf, 1 - (1 << u32(i))));
        m = select(m, m * TW(ldexp(1.0lf, 1 << u32(i))), down);
        e = select(e, e - TW(k), down);
    }
    return Dd64(m, e);
}

// a / b within about half an ulp: the built-in quotient refined by two steps on the exact
// residual. Where the residual could underflow or overflow (|a| < 2^-968, |a|, |b| or the
// quotient outside [2^-990, 2^990]), the built-in.
fn div64_(a: TW, b: TW) -> TW {
    let q0 = a / b;
    let r = TW(1.0) / b;
    let q1 = fma(residual64_(a, b, q0), r, q0);
    let q2 = fma(residual64_(a, b, q1), r, q1);
    let ab = abs(b);
    let aa = abs(a);
    let ok = (aa >= TW(0x1p-968)) & (aa <= TW(0x1p990)) & (ab >= TW(0x1p-990))
        & (ab <= TW(0x1p990)) & (abs(q0) >= TW(0x1p-990)) & (abs(q0) <= TW(0x1p990));
    return select(q0, q2, ok);
}

// sqrt(x) within about half an ulp: the built-in refined by two Newton steps on the exact
// residual, tiny and huge x scaled by 2^128 or 2^-128 first. 0, inf, NaN and negative x as
// IEEE (NaN for x < 0).
fn sqrt64_(x: TW) -> TW {
    let tiny = x < TW(0x1p-960);
    let huge = x > TW(0x1p960);
    let xs = x * select(select(TW(1.0), TW(0x1p-128), huge), TW(0x1p128), tiny);
    let s0 = sqrt(xs);
    let h = TW(0.5) / s0;
    let s1 = fma(residual64_(xs, s0, s0), h, s0);
    let s2 = fma(residual64_(xs, s1, s1), h, s1);
    let s = s2 * select(select(TW(1.0), TW(0x1p64), huge), TW(0x1p-64), tiny);
    let special = !(x > TW(0.0)) | (x > TW(D64_MAX));
    let sp = select(select(x, nan64_(x), x < TW(0.0)), x, x == TW(0.0));
    return select(s, sp, special);
}

fn rsqrt64_(x: TW) -> TW {
    let s = sqrt64_(x);
    let r = div64_(TW(1.0), s);
    // 1/0 = inf (of the zero's sign), 1/inf = 0; NaN stays NaN.
    return select(select(r, TW(0.0), x > TW(D64_MAX)), select(inf64_(x), -inf64_(x), signbit64_(x)), x == TW(0.0));
}

// e^(hi + lo) for |hi| <= 0.36 and |lo| <= 2^-40: 1 + hi + (hi^2 (1/2 + hi/6 + ... hi^11/13!)
// + lo (1 + hi)), the Taylor polynomial's error below 2^-57.
fn exp_red64_(hi: TW, lo: TW) -> TW {
    var p = TW(1.0 / 6227020800.0);
    p = fma(p, hi, TW(1.0 / 479001600.0));
    p = fma(p, hi, TW(1.0 / 39916800.0));
    p = fma(p, hi, TW(1.0 / 3628800.0));
    p = fma(p, hi, TW(1.0 / 362880.0));
    p = fma(p, hi, TW(1.0 / 40320.0));
    p = fma(p, hi, TW(1.0 / 5040.0));
    p = fma(p, hi, TW(1.0 / 720.0));
    p = fma(p, hi, TW(1.0 / 120.0));
    p = fma(p, hi, TW(1.0 / 24.0));
    p = fma(p, hi, TW(1.0 / 6.0));
    p = fma(p, hi, TW(0.5));
    let q = hi * hi * p;
    return TW(1.0) + (hi + (q + fma(lo, hi, lo)));
}

// e^(h + l) as (m, n) with the value m * 2^n, m in [0.7, 1.42], for a double-double whose hi
// is clamped to [-746, 710] (results past them are 0 or inf after scaling).
fn exp_parts64_(h: TW, l: TW) -> Dd64 {
    let hc = clamp(h, TW(-760.0), TW(720.0));
    let n = floor(fma(hc, TW(D64_LOG2E), TW(0.5)));
    let hi = fma(-n, TW(D64_LN2_HI), hc);
    let lo = fma(-n, TW(D64_LN2_LO), l);
    let s = two_sum64_(hi, lo);
    return Dd64(exp_red64_(s.hi, s.lo), n);
}

fn exp64_(x: TW) -> TW {
    let p = exp_parts64_(x, TW(0.0));
    return select(scale64_(p.hi, p.lo), x, !(x == x));
}

fn exp2_64_(x: TW) -> TW {
    let xc = clamp(x, TW(-1200.0), TW(1100.0));
    let n = floor(xc + TW(0.5));
    let f = xc - n;
    let t = two_prod64_(f, TW(D64_LN2));
    let s = fast_two_sum64_(t.hi, fma(f, TW(D64_LN2_B), t.lo));
    return select(scale64_(exp_red64_(s.hi, s.lo), n), x, !(x == x));
}

// e^x - 1: near 0 the polynomial directly; else 2^n (1 + s) - 1 as (2^n - 1) + 2^n s, exact
// in its first part for |n| <= 53; past x = 40 e^x itself, below -40 it is -1.
fn expm1_64_(x: TW) -> TW {
    let xc = clamp(x, TW(-40.0), TW(40.0));
    let n = floor(fma(xc, TW(D64_LOG2E), TW(0.5)));
    let hi = fma(-n, TW(D64_LN2_HI), xc);
    let lo = -n * TW(D64_LN2_LO);
    let r = two_sum64_(hi, lo);
    let s = exp_red64_(r.hi, r.lo) - TW(1.0);
    let t = scale64_(TW(1.0), n);
    var y = (t - TW(1.0)) + t * s;
    // |x| < ln2/2: n = 0 and s = e^x - 1 rounded once from 1 + s; recompute it without the 1.
    var p = TW(1.0 / 6227020800.0);
    p = fma(p, xc, TW(1.0 / 479001600.0));
    p = fma(p, xc, TW(1.0 / 39916800.0));
    p = fma(p, xc, TW(1.0 / 3628800.0));
    p = fma(p, xc, TW(1.0 / 362880.0));
    p = fma(p, xc, TW(1.0 / 40320.0));
    p = fma(p, xc, TW(1.0 / 5040.0));
    p = fma(p, xc, TW(1.0 / 720.0));
    p = fma(p, xc, TW(1.0 / 120.0));
    p = fma(p, xc, TW(1.0 / 24.0));
    p = fma(p, xc, TW(1.0 / 6.0));
    p = fma(p, xc, TW(0.5));
    y = select(y, fma(xc * xc, p, xc), n == TW(0.0));
    y = select(y, exp64_(x), x > TW(40.0));
    return select(y, x, (x == TW(0.0)) | !(x == x));
}

// log(x) for positive finite x as e and the double-double log(m), x = m * 2^e with m in
// [sqrt(1/2), sqrt(2)): log(m) = 2 atanh(s), s = (m - 1) / (m + 1), the first two terms of
// the series in double-double.
struct Log64 {
    e: TW,
    hi: TW,
    lo: TW,
}

fn log_parts64_(x: TW) -> Log64 {
    let sp = split64_(x);
    let big = sp.hi > TW(1.4142135623730951);
    let m = select(sp.hi, sp.hi * TW(0.5), big);
    let e = select(sp.lo, sp.lo + TW(1.0), big);
    let f = m - TW(1.0);
    let den = fast_two_sum64_(TW(2.0), f);
    let sh = div64_(f, den.hi);
    let sl = (residual64_(f, den.hi, sh) - sh * den.lo) / den.hi;
    // s^2 and s^3 in double-double.
    let s2 = two_prod64_(sh, sh);
    let s2l = s2.lo + TW(2.0) * sh * sl;
    let s3 = two_prod64_(s2.hi, sh);
    let s3l = s3.lo + s2l * sh + s2.hi * sl;
    let t3 = two_prod64_(s3.hi, TW(2.0 / 3.0));
    let t3l = t3.lo + s3l * TW(2.0 / 3.0) + s3.hi * TW(D64_TWO_THIRDS_B);
    // 2 s^5 (1/5 + s^2/7 + ... + s^18/23).
    let z = s2.hi;
    var p = TW(2.0 / 23.0);
    p = fma(p, z, TW(2.0 / 21.0));
    p = fma(p, z, TW(2.0 / 19.0));
    p = fma(p, z, TW(2.0 / 17.0));
    p = fma(p, z, TW(2.0 / 15.0));
    p = fma(p, z, TW(2.0 / 13.0));
    p = fma(p, z, TW(2.0 / 11.0));
    p = fma(p, z, TW(2.0 / 9.0));
    p = fma(p, z, TW(2.0 / 7.0));
    p = fma(p, z, TW(2.0 / 5.0));
    let r = s3.hi * z * p;
    let a = two_sum64_(TW(2.0) * sh, t3.hi);
    return Log64(e, a.hi, a.lo + (TW(2.0) * sl + t3l + r));
}

// e * c1 + log(m) * c2 for double-double constants c1, c2, as a double-double.
fn log_combine64_(p: Log64, c1: Dd64, c2: Dd64) -> Dd64 {
    let a = two_prod64_(p.e, c1.hi);
    let b = two_prod64_(p.hi, c2.hi);
    let s = two_sum64_(a.hi, b.hi);
    let l = s.lo + a.lo + b.lo + p.e * c1.lo + p.hi * c2.lo + p.lo * c2.hi;
    return fast_two_sum64_(s.hi, l);
}

// The special values of the logarithms: NaN below 0 and for NaN, -inf at +-0, inf at inf.
fn log_special64_(x: TW, v: TW) -> TW {
    let i = inf64_(x);
    var r = select(v, i, x > TW(D64_MAX));
    r = select(r, -i, x == TW(0.0));
    return select(r, nan64_(x), (x < TW(0.0)) | !(x == x));
}

fn log_base64_(x: TW, c1: Dd64, c2: Dd64) -> TW {
    let ok = (x > TW(0.0)) & (x <= TW(D64_MAX));
    let p = log_parts64_(select(TW(1.0), x, ok));
    let d = log_combine64_(p, c1, c2);
    return log_special64_(x, d.hi + d.lo);
}

fn log64_(x: TW) -> TW {
    return log_base64_(x, Dd64(TW(D64_LN2), TW(D64_LN2_B)), Dd64(TW(1.0), TW(0.0)));
}
fn log2_64_(x: TW) -> TW {
    return log_base64_(x, Dd64(TW(1.0), TW(0.0)), Dd64(TW(D64_LOG2E), TW(D64_LOG2E_B)));
}
fn log10_64_(x: TW) -> TW {
    return log_base64_(x, Dd64(TW(D64_LOG10_2), TW(D64_LOG10_2_B)), Dd64(TW(D64_LOG10E), TW(D64_LOG10E_B)));
}

// log(1 + x) = log(u) + (error of u = 1 + x) / u.
fn log1p64_(x: TW) -> TW {
    let u = two_sum64_(TW(1.0), x);
    let ok = (u.hi > TW(0.0)) & (u.hi <= TW(D64_MAX));
    let uu = select(TW(1.0), u.hi, ok);
    let p = log_parts64_(uu);
    let d = log_combine64_(p, Dd64(TW(D64_LN2), TW(D64_LN2_B)), Dd64(TW(1.0), TW(0.0)));
    let v = d.hi + (d.lo + select(TW(0.0), u.lo / uu, ok));
    let i = inf64_(x);
    var r = select(v, i, x > TW(D64_MAX));
    r = select(r, -i, x == TW(-1.0));
    r = select(r, nan64_(x), (x < TW(-1.0)) | !(x == x));
    return select(r, x, x == TW(0.0));
}

// Whether y is an odd integer.
fn odd64_(y: TW) -> TB {
    let h = y * TW(0.5);
    return (floor(y) == y) & (floor(h) != h) & (abs(y) < TW(0x1p53));
}

// x^y as C99 and NumPy: exp(y * log|x|) with log in double-double, the product's error
// carried into the exponential; then the special-value table.
fn pow64_(x: TW, y: TW) -> TW {
    let ax = abs(x);
    let finite = (ax > TW(0.0)) & (ax <= TW(D64_MAX));
    let p = log_parts64_(select(TW(1.0), ax, finite));
    let l = log_combine64_(p, Dd64(TW(D64_LN2), TW(D64_LN2_B)), Dd64(TW(1.0), TW(0.0)));
    let t = two_prod64_(clamp(y, TW(-0x1p990), TW(0x1p990)), l.hi);
    let tl = fma(y, l.lo, t.lo);
    let e = exp_parts64_(t.hi, tl);
    var m = scale64_(e.hi, e.lo);
    m = select(m, TW(0.0), t.hi < TW(-800.0));
    m = select(m, inf64_(x), t.hi > TW(800.0));
    let odd = odd64_(y);
    let integral = floor(y) == y;
    let i = inf64_(x);
    // Zero and infinite bases: 0^y is 0 for y > 0, inf for y < 0; inf^y the reverse.
    let zero_base = ax == TW(0.0);
    let mz = select(select(TW(0.0), i, y < TW(0.0)), select(i, TW(0.0), y < TW(0.0)), ax > TW(D64_MAX));
    m = select(m, mz, zero_base | (ax > TW(D64_MAX)));
    // Infinite exponents: |x| < 1 gives 0 for +inf and inf for -inf, |x| > 1 the reverse.
    let big = ax > TW(1.0);
    let mi = select(select(i, TW(0.0), big), select(TW(0.0), i, big), y > TW(0.0));
    m = select(m, mi, (abs(y) > TW(D64_MAX)) & (ax != TW(1.0)));
    // Negative bases (-0 and -inf too): odd integers flip the sign; finite bases with finite
    // non-integral exponents give NaN.
    var r = select(m, -m, signbit64_(x) & odd);
    r = select(r, nan64_(x), (x < TW(0.0)) & (ax <= TW(D64_MAX)) & !integral & (abs(y) <= TW(D64_MAX)));
    r = select(r, nan64_(x), !(x == x) | !(y == y));
    return select(r, TW(1.0), (y == TW(0.0)) | (x == TW(1.0)) | ((x == TW(-1.0)) & (abs(y) > TW(D64_MAX))));
}

fn sigmoid64_(x: TW) -> TW {
    let e = exp64_(-abs(x));
    let v = div64_(select(TW(1.0), e, x < TW(0.0)), TW(1.0) + e);
    return select(v, x, !(x == x));
}
