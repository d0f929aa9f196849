// f64 hyperbolic functions and their inverses (TW is f64 or vec4<f64>), in software from f64 arithmetic (f64_math.wgsl): sinh, cosh, tanh,
// asinh, acosh, atanh.
#import f64_math
#import f64_parts

fn sinh64_(x: TW) -> TW {
    let a = abs(x);
    let u = expm1_64_(min(a, TW(22.0)));
    let small = TW(0.5) * (u + div64_(u, u + TW(1.0)));
    let e = exp_parts64_(a, TW(0.0));
    let v = select(small, scale64_(e.hi, e.lo - TW(1.0)), a >= TW(22.0));
    return select(select(v, -v, x < TW(0.0)), x, (x == TW(0.0)) | !(x == x));
}

fn cosh64_(x: TW) -> TW {
    let a = abs(x);
    let e = exp_parts64_(a, TW(0.0));
    let big = scale64_(e.hi, e.lo - TW(1.0));
    let ex = scale64_(e.hi, e.lo);
    let v = select(TW(0.5) * (ex + div64_(TW(1.0), ex)), big, a >= TW(22.0));
    // x, not abs(x): NVIDIA's driver gave cosh(NaN) = inf through a NaN test of abs(x).
    return select(v, x, !(x == x));
}

// tanh = u / (u + 2) with u = e^(2|x|) - 1: expm1_64_'s core without its clamp, its far
// path (2|x| <= 44: n <= 64, where 2^n is exact and (2^n - 1) + 2^n s as accurate) and
// its special values (tanh's own below).
fn tanh64_(x: TW) -> TW {
    let a2 = TW(2.0) * min(abs(x), TW(22.0));
    let n = round_near64_(a2 * TW(D64_LOG2E));
    let r = fast_two_sum64_(fma(-n, TW(D64_LN2_HI), a2), -n * TW(D64_LN2_LO));
    let s = em1_red64_(r.hi, r.lo);
    let t = pow2_64_(n);
    let u = (t - TW(1.0)) + t * s;
    // The built-in quotient (correctly rounded on lavapipe and NVIDIA, as fdiv_ relies on).
    let v = u / (u + TW(2.0));
    return select(select(v, -v, x < TW(0.0)), x, (x == TW(0.0)) | !(x == x));
}

// asinh: log(2|x|) past 2^28, else log1p(|x| + x^2 / (1 + sqrt(1 + x^2))); odd; ±0 kept.
fn asinh64_(x: TW) -> TW {
    let a = abs(x);
    let t = a * a;
    let mid = log1p64_(a + div64_(t, TW(1.0) + sqrt64_(TW(1.0) + t)));
    let big = log64_(a) + TW(D64_LN2);
    let v = copysign64_(select(mid, big, a > TW(0x1p28)), x);
    return select(v, x, (a < TW(0x1p-28)) | !(x == x));
}

// acosh for x >= 1: log1p(t + sqrt(t (t + 2))) with t = x - 1, log(2x) past 2^28; NaN
// below 1.
fn acosh64_(x: TW) -> TW {
    let t = x - TW(1.0);
    let mid = log1p64_(t + sqrt64_(t * (t + TW(2.0))));
    let big = log64_(x) + TW(D64_LN2);
    let v = select(mid, big, x > TW(0x1p28));
    return select(v, nan64_(x), !(x >= TW(1.0)));
}

// atanh: log1p(2a + 2a^2 / (1 - a)) / 2 below 1/2, log1p(2a / (1 - a)) / 2 above; odd; ±inf
// at ±1, NaN past them.
fn atanh64_(x: TW) -> TW {
    let a = abs(x);
    let d = TW(1.0) - a;
    let small = TW(2.0) * a + div64_(TW(2.0) * a * a, d);
    let large = div64_(TW(2.0) * a, d);
    let v = copysign64_(TW(0.5) * log1p64_(select(large, small, a < TW(0.5))), x);
    let r = select(v, nan64_(x), a > TW(1.0));
    return select(r, x, (a < TW(0x1p-28)) | !(x == x));
}
