// The exact product of f64_math.wgsl (TW is f64 or vec4<f64>) by fused multiply-add, read
// instead of f64_prod.wgsl (Dekker's product) on adapters whose f64 fma the device's probe
// (shaders/probe.wgsl, `fma`) found fused: 3 operations instead of about 24.
#import f64_lanes

// a * b as p + e exactly: e = fma(a, b, -p), the product's rounding error, exact where fma
// is fused, for products that neither overflow nor leave an error below the subnormal
// range. p goes through opaque64_() so that the compiler cannot contract it into a later sum
// (where it would stand for the unrounded product) or fold the fma against it.
fn two_prod64_(a: TW, b: TW) -> Dd64 {
    let p = opaque64_(a * b);
    return Dd64(p, fma(a, b, -p));
}

// a / b for |b| in f32's normal range (2^-126 to 2^127) and finite a, within half an ulp and
// ~2^-80 of a's ulp, NaN where b is NaN: f32's quotient as a seed for 1 / b (~2^-22),
// one Newton step (~2^-44), then the quotient corrected by its residual (fused, so exact:
// error ~2^-88 before the last rounding). Five f64 fma and an f32 quotient, where the
// built-in f64 quotient on NVIDIA is a longer sequence with a branch to a slow path.
// f64_prod.wgsl's form (fma not fused) is the built-in quotient.
fn fdiv_seeded64_(a: TW, b: TW) -> TW {
    let r0 = TW(LF32(1.0) / LF32(b));
    let r1 = fma(r0, fma(-b, r0, TW(1.0)), r0);
    let q0 = a * r1;
    return fma(r1, fma(-b, q0, a), q0);
}
