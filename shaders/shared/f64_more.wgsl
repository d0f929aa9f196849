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
