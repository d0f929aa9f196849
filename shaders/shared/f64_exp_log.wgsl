// f64 logaddexp, logaddexp2 and cbrt (TW is f64 or vec4<f64>), in software from f64 arithmetic (f64_math.wgsl); the same formulas as
// f32_exp_log.wgsl's. cbrt by Halley steps and a final Newton step in double-double.
#import f64_math

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

// cbrt: |x| = m 2^(3q) with m in [1, 8); Halley steps from a linear guess, a last Newton step
// with the cube's residual in double-double; 2^q scales back exactly.
fn cbrt64_(x: TW) -> TW {
    let a = abs(x);
    let fin = (a > TW(0.0)) & (a <= TW(D64_MAX));
    let sp = split64_(select(TW(1.0), a, fin));
    let q = floor((sp.lo + TW(0.5)) * TW(1.0 / 3.0));
    let rm = sp.lo - TW(3.0) * q;
    let m = sp.hi * select(select(TW(1.0), TW(2.0), rm == TW(1.0)), TW(4.0), rm == TW(2.0));
    var y = TW(1.0) + (m - TW(1.0)) * TW(1.0 / 7.0);
    for (var i = 0; i < 4; i++) {
        let y3 = y * y * y;
        y = y * (y3 + TW(2.0) * m) / (TW(2.0) * y3 + m);
    }
    let y2 = two_prod64_(y, y);
    let y3 = two_prod64_(y2.hi, y);
    let res = (y3.hi - m) + (y3.lo + y2.lo * y);
    y = y - res / (TW(3.0) * y2.hi);
    let v = scale64_(y, q);
    return select(select(v, -v, x < TW(0.0)), x, !fin);
}
