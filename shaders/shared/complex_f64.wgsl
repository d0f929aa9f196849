// complex128's own forms of two component functions of complex_math.wgsl (host side:
// src/ops/elementwise/complex.rs, which imports this file in complex128 kernels): sin and
// cos of one argument from one range reduction (exp, sinh, cosh need both), and |z| by one
// square root where the squares can neither overflow nor underflow.
#import f64_trig

// (sin x, cos x): f64_trig.wgsl's sin64_ and cos64_ (their kernels, quadrants, signs and
// special values) from one rem_pio2_any64_ instead of two.
fn r_sincos(x: TW) -> vec2<TW> {
    let red = rem_pio2_any64_(x);
    let q = red.n - TW(4.0) * floor(red.n * TW(0.25));
    let odd = (q == TW(1.0)) | (q == TW(3.0));
    let sk = sin_k64_(red.hi, red.lo);
    let ck = cos_k64_(red.hi, red.lo);
    var s = select(sk, ck, odd);
    s = select(s, -s, q >= TW(2.0));
    var c = select(ck, sk, odd);
    c = select(c, -c, (q == TW(1.0)) | (q == TW(2.0)));
    let bad = !(abs(x) <= TW(D64_MAX));
    return vec2<TW>(select(select(s, nan64_(x), bad), x, x == TW(0.0)), select(c, nan64_(x), bad));
}

// |z| = sqrt(x^2 + y^2): where the larger magnitude lies in [2^-450, 2^450] and neither part
// is infinite, the library's root of x^2 + y^2 (two roundings: within 1 ulp); elsewhere
// hypot64_, which scales. A NaN that a compiler let into the first path gives NaN there too.
fn c_abs(z: vec2<TW>) -> TW {
    let ax = abs(z.x);
    let ay = abs(z.y);
    let m = max(ax, ay);
    let inf = r_isinf(ax) | r_isinf(ay);
    if (!inf && m >= TW(0x1p-450) && m <= TW(0x1p450)) {
        return sqrt64_(fma(ax, ax, ay * ay));
    }
    return hypot64_(z.x, z.y);
}
