// f64 forms, in software from f64 arithmetic (f64_math.wgsl, f64_trig.wgsl,
// f64_numpy.wgsl), of the functions of the name map's second group: logaddexp, logaddexp2,
// sinc, modf's fraction. The same formulas as f32_more.wgsl.

fn logaddexp64_(x: TW, y: TW) -> TW {
    let v = max(x, y) + log1p64_(exp64_(-abs(x - y)));
    let same = select(v, x + TW(D64_LN2), x == y);
    return select(same, x + y, !(x == x) | !(y == y));
}

fn logaddexp2_64_(x: TW, y: TW) -> TW {
    let v = max(x, y) + div64_(log1p64_(exp2_64_(-abs(x - y))), TW(D64_LN2));
    let same = select(v, x + TW(1.0), x == y);
    return select(same, x + y, !(x == x) | !(y == y));
}

fn sinc64_(x: TW) -> TW {
    let y = TW(3.141592653589793) * select(x, TW(1e-20), x == TW(0.0));
    return div64_(sin64_(y), y);
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
// intermediate goes through one64_() so that the compiler cannot merge the factors.
fn ldexp64_(x: TW, nf: TW) -> TW {
    var n = clamp(nf, TW(-2200.0), TW(2200.0));
    var y = x;
    for (var k = 0; k < 2; k++) {
        let big = n > TW(1023.0);
        let small = n < TW(-1022.0);
        let step = select(select(TW(0.0), TW(-969.0), small), TW(1023.0), big);
        y = y * ldexp(TW(1.0), NI(step)) * one64_();
        n = n - step;
    }
    return y * ldexp(TW(1.0), NI(clamp(n, TW(-1022.0), TW(1023.0))));
}
