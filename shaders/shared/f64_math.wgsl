// f64 math in software, for the elementwise family (included for f64 inputs only; TW is f64
// or vec4<f64>). Vulkan defines no f64 transcendental built-ins and promises no more than
// single precision's accuracy for f64 division and square root, so everything here is built
// from +, -, *, comparisons, floor and select (fma only where fused or unfused both serve,
// but in f64_prod_fma.wgsl), with the exact built-in ldexp to make powers of two. Results
// are within a few ulps of the correctly rounded value (tests/numerics/f64.rs measures them).
//
// Building blocks: double-doubles (a value hi + lo, |lo| <= ulp(hi) / 2) through two_sum64_
// and two_prod64_ (f64_prod.wgsl: Dekker's splitting; f64_prod_fma.wgsl where the device's
// probe found f64 fma fused); exponent and mantissa by split64_ and split_log64_, powers of
// two by pow2_64_ and NaN by nan64_ (f64_split.wgsl: comparisons with powers of two, ldexp,
// a quotient; f64_split_bits.wgsl from the bits where the adapter has 64-bit integers, with
// no conversion and no division); exp by Cody-Waite reduction (ln 2 in two parts) and a
// polynomial fit on |r| <= ln(2) / 2; log and log1p in plain f64 (fdlibm's: one division
// and a polynomial in s = f / (2 + f)); log2, log10 and pow through atanh on the mantissa in
// double-double (pow needs its extra bits; s without a division); sin/cos/tan by an exact
// pi/2 reduction (f64_trig.wgsl: Cody-Waite below 2^20, Payne-Hanek above).
#import f64_prod
#import f64_split

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
// transformations pass every intermediate through opaque64_() (a product by it in
// f64_split.wgsl; f64_split_bits.wgsl or-s the bits with P.aux.x instead, an integer
// operation) to keep the driver from simplifying (a + b) - a to b
// (Mesa does, for operations not marked exact, and naga marks none). The earlier
// f64(min(P.n, 1u)) has two possible values, 0 and 1: a compiler that knows that may turn
// the product into a select and simplify through it; f64 pow stayed 1027 ulps off on the
// H100 with it.
fn one64_() -> TW {
    return TW(f64(P.aux.x) + 1.0);
}

// Every intermediate goes through opaque64_(), not only the sum: the H100's compiler
// reassociates, and a - (s - bb) rewritten as (a - s) + bb, or da + (b - bb) as
// (da + b) - bb, is no longer exact (its f64 logarithms lost their low parts: pow was 1027
// ulps off there, 2 on lavapipe).
fn two_sum64_(a: TW, b: TW) -> Dd64 {
    let s = opaque64_(a + b);
    let bb = opaque64_(s - a);
    let da = opaque64_(a - opaque64_(s - bb));
    let db = opaque64_(b - bb);
    return Dd64(s, da + db);
}

// |a| >= |b| (or a == 0).
fn fast_two_sum64_(a: TW, b: TW) -> Dd64 {
    let s = opaque64_(a + b);
    return Dd64(s, b - opaque64_(s - a));
}

// a - b * q, exactly where q is near a / b (the residual of a division).
fn residual64_(a: TW, b: TW, q: TW) -> TW {
    let p = two_prod64_(b, q);
    return opaque64_(a - p.hi) - p.lo;
}

// Infinity and NaN made at run time (naga rejects constant expressions that overflow).
fn inf64_(x: TW) -> TW {
    return TW(D64_MAX) * select(TW(4.0), TW(2.0), x == x);
}
// NaN: nan64_(x) comes with the exponent split (f64_split_bits.wgsl: from the bits, no f64
// operation; f64_split.wgsl: (x - x) / (x - x)).

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

// x * 2^n for x in [0.5, 2) and integral n, as scale64_: one product by 2^n where that is
// normal (n in [-1022, 1023]: the product is then exact or rounds once into the
// subnormals), scale64_'s two only where some lane needs them. 2^n by pow2_64_: from the
// bits where the adapter has 64-bit integers (no conversion; f64 conversions run at a
// quarter of the fma rate on NVIDIA), one conversion elsewhere (scale64_ makes three).
fn scale_near1_64_(x: TW, n: TW) -> TW {
    var v = x * pow2_64_(clamp(n, TW(-1022.0), TW(1023.0)));
    let far = (n < TW(-1022.0)) | (n > TW(1023.0));
    if (any(far)) {
        v = select(v, scale64_(x, n), far);
    }
    return v;
}

// The integer nearest v (ties to even; any integer within 1/2 serves the reductions below),
// for |v| < 2^51, by adding and removing 1.5 * 2^52: two additions at the full rate instead
// of floor's conversion. The sum goes through opaque64_() so that the two cannot cancel.
fn round_near64_(v: TW) -> TW {
    return opaque64_(v + TW(0x1.8p52)) - TW(0x1.8p52);
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

// e^(hi + lo) - 1 for |hi| <= 0.3467 and |lo| <= 2^-40: hi + (hi^2 p(hi) + lo (1 + hi)),
// p a degree-10 polynomial for (e^h - 1 - h) / h^2 (a Chebyshev fit on [-0.3467, 0.3467]
// with mpmath: error below 2^-58.4 with its coefficients rounded to f64, where the
// degree-11 Taylor polynomial it replaces, one fma longer, had 2^-54.6).
fn em1_red64_(hi: TW, lo: TW) -> TW {
    var p = TW(2.0914707069612355e-09);
    p = fma(p, hi, TW(2.510524515390137e-08));
    p = fma(p, hi, TW(2.7557273594799413e-07));
    p = fma(p, hi, TW(2.755725533255441e-06));
    p = fma(p, hi, TW(2.480158732558584e-05));
    p = fma(p, hi, TW(0.00019841269874873975));
    p = fma(p, hi, TW(0.0013888888888883737));
    p = fma(p, hi, TW(0.00833333333332612));
    p = fma(p, hi, TW(0.04166666666666667));
    p = fma(p, hi, TW(0.1666666666666667));
    p = fma(p, hi, TW(0.5));
    let q = hi * hi * p;
    return hi + (q + fma(lo, hi, lo));
}

// e^(hi + lo) for em1_red64_'s arguments.
fn exp_red64_(hi: TW, lo: TW) -> TW {
    return TW(1.0) + em1_red64_(hi, lo);
}

// e^(h + l) as (m, n) with the value m * 2^n, m in [0.7, 1.42], for a double-double whose hi
// is clamped to [-746, 710] (results past them are 0 or inf after scaling). hi + lo is
// renormalised by fast_two_sum64_: exact where |hi| >= |lo|, which holds for n = 0 (lo is
// l, |l| <= ulp(h) / 2); for n != 0 it can fail only where both are below 2^-22 (|lo| <=
// 2^-44 + 1100 |D64_LN2_LO|), where the sum's error (below 2^-74) is far under an ulp of
// the result (near 1).
fn exp_parts64_(h: TW, l: TW) -> Dd64 {
    return exp_near64_(clamp(h, TW(-760.0), TW(720.0)), l);
}

// exp_parts64_ without its clamp, for |h| <= 800 (pow's lanes that skip its table): n is
// then at most 1155, which scale_near1_64_ takes.
fn exp_near64_(h: TW, l: TW) -> Dd64 {
    let n = round_near64_(h * TW(D64_LOG2E));
    let hi = fma(-n, TW(D64_LN2_HI), h);
    let lo = fma(-n, TW(D64_LN2_LO), l);
    let s = fast_two_sum64_(hi, lo);
    return Dd64(exp_red64_(s.hi, s.lo), n);
}

fn exp64_(x: TW) -> TW {
    let p = exp_parts64_(x, TW(0.0));
    return select(scale_near1_64_(p.hi, p.lo), x, !(x == x));
}

fn exp2_64_(x: TW) -> TW {
    let xc = clamp(x, TW(-1200.0), TW(1100.0));
    let n = floor(xc + TW(0.5));
    let f = xc - n;
    let t = two_prod64_(f, TW(D64_LN2));
    let s = fast_two_sum64_(t.hi, fma(f, TW(D64_LN2_B), t.lo));
    return select(scale_near1_64_(exp_red64_(s.hi, s.lo), n), x, !(x == x));
}

// e^x - 1 = 2^n (1 + s) - 1 with s = e^r - 1 (em1_red64_, without the 1, so exact for
// small x: n = 0 and r = x), as (2^n - 1) + 2^n s, exact in its first part for |n| <= 53
// (past 53 the -1 rounds away, an error below 2^-53.5 of the result, as small as the sum's
// rounding from n = 61 on); past n = 1000, where 2^n would overflow, 2^n (1 + s) scaled
// once (inf past x = 709.78), only where some lane needs it. Below x = -40 it is -1. r is renormalised as in exp_parts64_
// (for n != 0 the result is at least 0.29 in magnitude).
fn expm1_64_(x: TW) -> TW {
    let xc = clamp(x, TW(-40.0), TW(710.0));
    let n = round_near64_(xc * TW(D64_LOG2E));
    let hi = fma(-n, TW(D64_LN2_HI), xc);
    let lo = -n * TW(D64_LN2_LO);
    let r = fast_two_sum64_(hi, lo);
    let s = em1_red64_(r.hi, r.lo);
    let t = pow2_64_(min(n, TW(1000.0)));
    var y = (t - TW(1.0)) + t * s;
    let far = n > TW(1000.0);
    if (any(far)) {
        y = select(y, scale64_(TW(1.0) + s, n), far);
    }
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
    let sp = split_log64_(x);
    let m = sp.hi;
    let e = sp.lo;
    let f = m - TW(1.0);
    // s = f / (2 + f) as sh + sl, with no division and no conversion (an f64 division is a
    // reciprocal and about 10 fma with a slow-path test on NVIDIA; the f32 reciprocal used
    // before cost two conversions, each a quarter of the fma rate there): rd, 1 / den.hi
    // (den.hi in [1 + sqrt(1/2), 1 + sqrt(2)]) by the linear minimax start (relative error
    // 2^-6.06) and three Newton steps (2^-48); q = f rd within 2^-47 of f / den.hi, and
    // the exact residual (f - den.hi q is exact: Sterbenz) over the denominator through
    // rd, below 2^-46 |q| and itself within 2^-48: q plus it within 2^-93 of s. Then
    // renormalised, so that sh is s rounded: the series below evaluates its polynomial on
    // sh alone, and with q's 2^-47 pow was 10.8 ulps off at x = 1.41464, y = 2039.6 (a
    // Python model of this code; 0.2 renormalised). 10 operations in place of a division
    // and an f32 reciprocal.
    let den = fast_two_sum64_(TW(2.0), f);
    var rd = fma(den.hi, TW(-0.23901599922648412), TW(0.9850615000483447));
    rd = fma(rd, fma(-den.hi, rd, TW(1.0)), rd);
    rd = fma(rd, fma(-den.hi, rd, TW(1.0)), rd);
    rd = fma(rd, fma(-den.hi, rd, TW(1.0)), rd);
    let q = f * rd;
    let sq = fast_two_sum64_(q, (residual64_(f, den.hi, q) - q * den.lo) * rd);
    let sh = sq.hi;
    let sl = sq.lo;
    // s^2 and s^3 in double-double.
    let s2 = two_prod64_(sh, sh);
    let s2l = s2.lo + TW(2.0) * sh * sl;
    let s3 = two_prod64_(s2.hi, sh);
    let s3l = s3.lo + s2l * sh + s2.hi * sl;
    let t3 = two_prod64_(s3.hi, TW(2.0 / 3.0));
    let t3l = t3.lo + s3l * TW(2.0 / 3.0) + s3.hi * TW(D64_TWO_THIRDS_B);
    // 2 s^5 p(s^2), p a degree-7 polynomial for 2 (atanh(s) - s - s^3 / 3) / s^5 (a
    // Chebyshev fit on s^2 in [0, 0.02944] with mpmath: error below 2^-55.1 with its
    // coefficients rounded to f64, where the 9th-degree Taylor polynomial 2/5 + 2 s^2/7 +
    // ... it replaces, two fma longer, had 2^-54.5).
    let z = s2.hi;
    var p = TW(0.11723170160799075);
    p = fma(p, z, TW(0.11706237148816372));
    p = fma(p, z, TW(0.13334804663624336));
    p = fma(p, z, TW(0.15384594963074136));
    p = fma(p, z, TW(0.181818183353876));
    p = fma(p, z, TW(0.22222222221655907));
    p = fma(p, z, TW(0.28571428571429364));
    p = fma(p, z, TW(0.4));
    let r = s3.hi * z * p;
    // The full sum: a fast_two_sum64_ here (|2 s| > |2 s^3 / 3|) cost pow a worst error of
    // 2.7 ulps for 1.4 on lavapipe.
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

// e ln 2 + log(m) as a double-double for pow: e * D64_LN2_HI is exact (|e| < 2^11), and
// e * D64_LN2_LO's rounding (below 2^-75) stays far under pow's needs (|y| < 2400 wherever
// e != 0 and the result is finite). The full two_sum64_ and the renormalisation both stay:
// on lavapipe a fast_two_sum64_ in place of the first (|e ln 2| > |log(m)| wherever e != 0)
// took pow from 1.4 to 316 ulps at x near 0.88, and leaving the pair unnormalised from 1.0
// to 1.6 (a probe of 20,000 pairs with |y log x| up to 700).
fn log_ln64_(p: Log64) -> Dd64 {
    let s = two_sum64_(p.e * TW(D64_LN2_HI), p.hi);
    return fast_two_sum64_(s.hi, s.lo + (p.lo + p.e * TW(D64_LN2_LO)));
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

fn log2_64_(x: TW) -> TW {
    return log_base64_(x, Dd64(TW(1.0), TW(0.0)), Dd64(TW(D64_LOG2E), TW(D64_LOG2E_B)));
}
fn log10_64_(x: TW) -> TW {
    return log_base64_(x, Dd64(TW(D64_LOG10_2), TW(D64_LOG10_2_B)), Dd64(TW(D64_LOG10E), TW(D64_LOG10E_B)));
}

// fdlibm's log kernel: k ln 2 + log(1 + f) + c for |f| <= sqrt(2) - 1 and a small
// correction c, in plain f64 (within one ulp): s = f / (2 + f), log(1 + f) = f - f^2/2 +
// s (f^2/2 + R(s^2)) with R fdlibm's minimax polynomial (error below 2^-58.45); ln 2 in two
// parts (k * D64_LN2_HI exact for |k| < 2^21). The quotient is the built-in's: its error is
// scaled by about f^2 / 3 in the result.
fn log_red64_(f: TW, k: TW, c: TW) -> TW {
    let s = f / (TW(2.0) + f);
    let z = s * s;
    let w = z * z;
    let t1 = w * fma(w, fma(w, TW(1.531383769920937332e-01), TW(2.222219843214978396e-01)), TW(3.999999999940941908e-01));
    let t2 = z * fma(w, fma(w, fma(w, TW(1.479819860511658591e-01), TW(1.818357216161805012e-01)), TW(2.857142874366239149e-01)), TW(6.666666666666735130e-01));
    let hfsq = TW(0.5) * f * f;
    return k * TW(D64_LN2_HI) - ((hfsq - (s * (hfsq + (t2 + t1)) + (k * TW(D64_LN2_LO) + c))) - f);
}

// x = 2^k (1 + f) with 1 + f in [sqrt(1/2), sqrt(2)), for positive finite x.
fn log_arg64_(x: TW) -> Dd64 {
    let sp = split_log64_(x);
    return Dd64(sp.hi - TW(1.0), sp.lo);
}

fn log64_(x: TW) -> TW {
    let ok = (x > TW(0.0)) & (x <= TW(D64_MAX));
    let a = log_arg64_(select(TW(1.0), x, ok));
    return log_special64_(x, log_red64_(a.hi, a.lo, TW(0.0)));
}

// log(1 + x) as fdlibm's: for 1 + x in [sqrt(1/2), sqrt(2)) the kernel on f = x itself
// (exact); elsewhere on u = 1 + x rounded, with c = (1 + x - u) / u (|x| > 0.29 there, so
// the quotient's f32 reciprocal is far more than enough; 0 where u overflows f32).
fn log1p64_(x: TW) -> TW {
    let near = (x > TW(-0.2928932188134524)) & (x < TW(0.41421356237309503));
    let u = opaque64_(TW(1.0) + x);
    let ok = (u > TW(0.0)) & (u <= TW(D64_MAX));
    let uu = select(TW(1.0), u, ok & !near);
    let a = log_arg64_(uu);
    // The rounding error of u: x - (u - 1) up to u = 2 (u - 1 exact), 1 - (u - x) above.
    let c = select(x - (u - TW(1.0)), TW(1.0) - (u - x), u > TW(2.0));
    let cu = c * TW(TF(1.0) / TF(uu));
    let v = log_red64_(select(a.hi, x, near), select(a.lo, TW(0.0), near), select(cu, TW(0.0), near));
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
// carried into the exponential; then the special-value table (pow_table64_), only where
// some lane needs it: x not positive and finite, y not finite, or |y log|x|| past 800.
fn pow64_(x: TW, y: TW) -> TW {
    let ax = abs(x);
    let finite = (ax > TW(0.0)) & (ax <= TW(D64_MAX));
    let p = log_parts64_(select(TW(1.0), ax, finite));
    let l = log_ln64_(p);
    // y clamped for Dekker's product (f64_prod.wgsl: its split overflows past 2^995).
    let t = two_prod64_(clamp(y, TW(-0x1p990), TW(0x1p990)), l.hi);
    let tl = fma(y, l.lo, t.lo);
    let e = exp_near64_(t.hi, tl);
    var r = scale_near1_64_(e.hi, e.lo);
    // The table only where x is not positive and finite, y not finite or |t| past 800
    // (where tl, up to an ulp of t.hi, can be huge, and exp_near64_'s range ends): those
    // lanes' values are replaced there, whatever they are. y = 0 and x = 1 need no test,
    // as both give t = 0 (log(1) is exactly 0 here) and so 1.
    let plain = (x > TW(0.0)) & finite & (abs(y) <= TW(D64_MAX)) & (abs(t.hi) <= TW(800.0));
    if (any(!plain)) {
        r = select(pow_table64_(x, y, r, t.hi), r, plain);
    }
    return r;
}

// pow's special values, given m = e^t rounded (t = y log|x|, th its high part).
fn pow_table64_(x: TW, y: TW, m0: TW, th: TW) -> TW {
    let ax = abs(x);
    var m = select(m0, TW(0.0), th < TW(-800.0));
    m = select(m, inf64_(x), th > TW(800.0));
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
