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
    let e = TW(u >> LU32(52u)) - select(TW(1023.0), TW(1087.0), sub);
    return Dd64(m, e);
}

// v itself, in a form the compiler cannot see through (f64_math.wgsl's error-free
// transformations route every intermediate through it): the bits or-ed with P.aux.x, 0 in
// every dispatch. An integer operation, off the f64 pipeline (NVIDIA's f64 rate is a
// fraction of its integer rate), where f64_split.wgsl multiplies by one64_().
fn opaque64_(v: TW) -> TW {
    return bitcast<TW>(bitcast<LU64>(v) | LU64(u64(P.aux.x)));
}
