// The exact product of f64_math.wgsl (TW is f64 or vec4<f64>) without fma: Dekker's, for
// adapters whose f64 fma is not fused (lavapipe's, as Vulkan allows). Adapters whose probe
// finds a fused fma read f64_prod_fma.wgsl instead (`Spec::f64_choices`).

// a as hi + lo, each with at most 26 significant bits (Veltkamp's splitting by 2^27 + 1),
// for |a| <= 2^995. The differences go through opaque64_() so that the driver cannot fold
// (c - (c - a)) to a.
//
// The product is made opaque before the subtraction: NVIDIA's compiler contracted
// a * (2^27 + 1) - a into one fma, whose unrounded product leaves hi with too many bits (its
// f64 pow was 1027 ulps off where lavapipe's, without contraction, was 2).
fn split27_64_(a: TW) -> Dd64 {
    let c = opaque64_(a * TW(134217729.0));
    let t = opaque64_(c - a);
    let hi = opaque64_(c - t);
    return Dd64(hi, a - hi);
}

// a * b as p + e exactly (Dekker's product; no fma, which Vulkan lets be unfused, as
// lavapipe's f64 fma is), for |a|, |b| <= 2^995 and products whose error is not below the
// normal range (|a b| >= 2^-969). Each partial product of halves is exact and each sum
// of the chain error-free; opaque64_() keeps the driver from re-associating them.
fn two_prod64_(a: TW, b: TW) -> Dd64 {
    let p = a * b;
    let x = split27_64_(a);
    let y = split27_64_(b);
    let e1 = opaque64_(x.hi * y.hi - p);
    let e2 = opaque64_(e1 + x.hi * y.lo);
    let e3 = opaque64_(e2 + x.lo * y.hi);
    return Dd64(p, e3 + x.lo * y.lo);
}


// a / b: the built-in quotient (correctly rounded on lavapipe and NVIDIA). Adapters with a
// fused fma read f64_prod_fma.wgsl's seeded quotient instead.
fn fdiv_seeded64_(a: TW, b: TW) -> TW {
    return a / b;
}
