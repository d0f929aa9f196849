// Exponent and mantissa of an f64 (TW is f64 or vec4<f64>) for f64_math.wgsl, without
// 64-bit integers: a ladder of comparisons. Adapters with SHADER_INT64 read
// f64_split_bits.wgsl instead (`Spec::f64_choices`): the same results from the bits.

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

// x = m * 2^e with m in [sqrt(1/2), sqrt(2)) (m > 1.4142135623730951, the f64 nearest
// sqrt(2), halved), for positive finite x: the logarithms' argument. f64_split_bits.wgsl
// gives the same from the bits.
fn split_log64_(x: TW) -> Dd64 {
    let sp = split64_(x);
    let big = sp.hi > TW(1.4142135623730951);
    return Dd64(select(sp.hi, sp.hi * TW(0.5), big), select(sp.lo, sp.lo + TW(1.0), big));
}

// 2^n for integral n in [-1022, 1023] (f64_split_bits.wgsl: from the bits, no conversion).
fn pow2_64_(n: TW) -> TW {
    return ldexp(TW(1.0), NI(n));
}

// v mod 4 (in [0, 3]) for integral v with |v| < 2^51: v - 4 floor(v / 4), exact, converted
// (f64_split_bits.wgsl reads the low bits of v + 1.5 * 2^52 instead). The trigonometric
// quadrant.
fn mod4_64_(v: TW) -> M {
    return M(v - TW(4.0) * floor(v * TW(0.25)));
}

// v itself, in a form the compiler cannot see through (f64_math.wgsl's error-free
// transformations route every intermediate through it): a product by one64_(), where
// f64_split_bits.wgsl or-s the bits with a parameter instead.
fn opaque64_(v: TW) -> TW {
    return v * one64_();
}

// NaN from x: (x - x) / (x - x). A quotient, not inf - inf: NVIDIA's compiler reassociates
// f64 arithmetic, and with `opaque64_(inf) - inf` (opaque64_ as the product by one64_())
// the f64 functions that return NaN gave 0 or finite values on the H200 (2026-11-29),
// where this form gave NaN there before and on Mesa. Adapters with 64-bit integers read
// f64_split_bits.wgsl's form instead (the bits, no division).
fn nan64_(x: TW) -> TW {
    let z = x - x;
    return z / z;
}
