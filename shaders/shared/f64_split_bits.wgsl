// Exponent and mantissa of an f64 (TW is f64 or vec4<f64>) for f64_math.wgsl from its bits,
// read instead of f64_split.wgsl (a ladder of 10 comparisons) on adapters with 64-bit
// integers (`Spec::f64_choices`). The bit types come from f64_lanes.wgsl (scalar) or
// f64_lanes4.wgsl (vec4 kernels read it instead).
#import f64_lanes

// x = m * 2^e with m in [1, 2), for positive finite x (subnormals first scaled by 2^64, so
// that the field holds the exponent also where an adapter would flush them): the fraction
// under the exponent field of 1, and the field less its bias.
fn split64_(x: TW) -> Dd64 {
    let sub = x < TW(0x1p-1000);
    let u = bitcast<LU64>(select(x, x * TW(0x1p64), sub));
    let m = bitcast<TW>((u & LU64(0x000ffffffffffffflu)) | LU64(0x3ff0000000000000lu));
    return Dd64(m, exponent64_(u >> LU32(52u), sub));
}

// The biased exponent field f (below 2^12) less its bias (1023, or 1087 for subnormals
// scaled by 2^64) as an f64, without a conversion (a quarter of the fma rate on NVIDIA):
// the bits of 2^52 + f, less 2^52 + bias, exact.
fn exponent64_(f: LU64, sub: TB) -> TW {
    let v = bitcast<TW>(f | LU64(0x4330000000000000lu));
    return v - select(TW(4503599627371519.0), TW(4503599627371583.0), sub);
}

// x = m * 2^e with m in [sqrt(1/2), sqrt(2)) (m > 1.4142135623730951, the f64 nearest
// sqrt(2), halved), for positive finite x, as f64_split.wgsl's split_log64_: the constant
// added to the bits carries into the exponent field exactly where the fraction field is
// above 0x6a09e667f3bcd (sqrt(2)'s), which then comes off the bits.
fn split_log64_(x: TW) -> Dd64 {
    let sub = x < TW(0x1p-1000);
    let u = bitcast<LU64>(select(x, x * TW(0x1p64), sub));
    let f = (u + LU64(0x00095f619980c432lu)) >> LU32(52u);
    let m = bitcast<TW>(u - ((f - LU64(1023lu)) << LU32(52u)));
    return Dd64(m, exponent64_(f, sub));
}

// 2^n for integral n in [-1022, 1023], from the bits of n + 1.5 * 2^52, whose fraction
// field holds 2^51 + n: its low 12 bits plus 1023 are the exponent field of 2^n. One f64
// addition and two integer operations, where f64_split.wgsl's ldexp converts n to an
// integer (a quarter of the fma rate on NVIDIA).
fn pow2_64_(n: TW) -> TW {
    let s = bitcast<LU64>(n + TW(0x1.8p52));
    return bitcast<TW>((s + LU64(1023lu)) << LU32(52u));
}

// v mod 4 (in [0, 3]) for integral v with |v| < 2^51, from the low bits of v + 1.5 * 2^52
// (its fraction field holds 2^51 + v): one f64 addition and an integer and, where
// f64_split.wgsl's form multiplies, rounds down and converts. The trigonometric quadrant.
fn mod4_64_(v: TW) -> M {
    return M(bitcast<LU64>(v + TW(0x1.8p52))) & M(3u);
}

// v itself, in a form the compiler cannot see through (f64_math.wgsl's error-free
// transformations route every intermediate through it): the bits or-ed with P.aux.x, 0 in
// every dispatch. An integer operation, off the f64 pipeline (NVIDIA's f64 rate is a
// fraction of its integer rate), where f64_split.wgsl multiplies by one64_().
fn opaque64_(v: TW) -> TW {
    return bitcast<TW>(bitcast<LU64>(v) | LU64(u64(P.aux.x)));
}

// NaN, for the special values of f64_math.wgsl's functions: the quiet NaN's bits or-ed with
// P.aux.x (0), an integer operation and no f64 one. f64_split.wgsl's form, (x - x) / (x - x),
// is an f64 division that every lane executes (selected away where the result is not NaN):
// on NVIDIA a reciprocal and about 10 f64 fma, and 0 / 0 leaves the division's fast path.
// Nothing here is f64 arithmetic, so no reassociation can turn it into a finite value (as
// `inf - inf` became 0 on the H200).
fn nan64_(x: TW) -> TW {
    return bitcast<TW>(LU64(0x7ff8000000000000lu) | LU64(u64(P.aux.x)));
}
