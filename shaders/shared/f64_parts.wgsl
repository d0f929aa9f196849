// The representation of f64 values (TW is f64 or vec4<f64>), in software from f64 arithmetic (f64_math.wgsl), without 64-bit integers (those
// built from the bits are in f64_bits.wgsl): copysign, modf's fraction and ldexp.
#import f64_math

// |mag| with the sign bit of s (that of a NaN s is not read).
fn copysign64_(mag: TW, s: TW) -> TW {
    return select(abs(mag), -abs(mag), signbit64_(s));
}

fn modf_frac64_(x: TW) -> TW {
    let inf = !(abs(x) <= TW(D64_MAX)) & (x == x);
    return copysign64_(select(x - trunc(x), TW(0.0), inf), x);
}

// ldexp: x 2^n, n an integer held in a float (clamped to ±2200: past that every finite
// non-zero x overflows or underflows), by products with exact powers of two where only the
// last can round (as musl's scalbn): a large n is applied 2^1023 at a time; a very negative
// one first by 2^-969 steps, after which either the value is still normal (exact) or the
// remaining factor is below 2^-53 and the result rounds to ±0 either way. Every
// intermediate goes through opaque64_() so that the compiler cannot merge the factors.
fn ldexp64_(x: TW, nf: TW) -> TW {
    var n = clamp(nf, TW(-2200.0), TW(2200.0));
    var y = x;
    for (var k = 0; k < 2; k++) {
        let big = n > TW(1023.0);
        let small = n < TW(-1022.0);
        let step = select(select(TW(0.0), TW(-969.0), small), TW(1023.0), big);
        y = opaque64_(y * ldexp(TW(1.0), NI(step)));
        n = n - step;
    }
    return y * ldexp(TW(1.0), NI(clamp(n, TW(-1022.0), TW(1023.0))));
}
