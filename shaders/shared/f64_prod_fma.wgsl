// The exact product of f64_math.wgsl (TW is f64 or vec4<f64>) by fused multiply-add, read
// instead of f64_prod.wgsl (Dekker's product) on adapters whose f64 fma the device's probe
// (shaders/probe.wgsl, `fma`) found fused: 3 operations instead of about 24.

// a * b as p + e exactly: e = fma(a, b, -p), the product's rounding error, exact where fma
// is fused, for products that neither overflow nor leave an error below the subnormal
// range. p goes through opaque64_() so that the compiler cannot contract it into a later sum
// (where it would stand for the unrounded product) or fold the fma against it.
fn two_prod64_(a: TW, b: TW) -> Dd64 {
    let p = opaque64_(a * b);
    return Dd64(p, fma(a, b, -p));
}
