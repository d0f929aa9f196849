// The f32 forms (TW is f32 or vec4<f32>; f16 is computed in f32 and rounded once) of the
// functions added with the f64 library: log10, sinh, cosh, asin, acos, atan, atan2, cbrt.
// Built on WGSL's f32 built-ins where those are accurate on lavapipe; NVIDIA's approximate
// built-ins make them looser there (see the README's table).

fn log10_32_(x: TW) -> TW {
    return log2(x) * TW(0.3010299956639812);
}

// sinh: the Taylor series to x^11 below 0.5 (no cancellation), (e - 1/e) / 2 above, and
// (e^(x/2))^2 / 2 past 80 (e^x itself would overflow first).
fn sinh_32_(x: TW) -> TW {
    let a = abs(x);
    let z = a * a;
    var p = TW(1.0 / 39916800.0);
    p = fma(p, z, TW(1.0 / 362880.0));
    p = fma(p, z, TW(1.0 / 5040.0));
    p = fma(p, z, TW(1.0 / 120.0));
    p = fma(p, z, TW(1.0 / 6.0));
    let small = fma(a * z, p, a);
    let e = exp(min(a, TW(80.0)));
    let h = exp(a * TW(0.5));
    let v = select(select(TW(0.5) * (e - TW(1.0) / e), TW(0.5) * h * h, a > TW(80.0)), small, a < TW(0.5));
    return select(select(v, -v, x < TW(0.0)), x, (x == TW(0.0)) | !(x == x));
}

fn cosh_32_(x: TW) -> TW {
    let a = abs(x);
    let e = exp(min(a, TW(80.0)));
    let h = exp(a * TW(0.5));
    return select(TW(0.5) * (e + TW(1.0) / e), TW(0.5) * h * h, a > TW(80.0));
}

fn asin_32_(x: TW) -> TW {
    return asin(x);
}
fn acos_32_(x: TW) -> TW {
    return acos(x);
}
fn atan_32_(x: TW) -> TW {
    return atan(x);
}
fn atan2_32_(y: TW, x: TW) -> TW {
    return atan2(y, x);
}

// cbrt: exp2(log2|x| / 3), one Newton step with the residual by fma.
fn cbrt_32_(x: TW) -> TW {
    let a = abs(x);
    var y = exp2(log2(a) * TW(1.0 / 3.0));
    let y2 = y * y;
    y = y - fma(y2, y, -a) / (TW(3.0) * y2);
    let fin = (a > TW(0.0)) & (a <= TW(3.4028234663852886e38));
    return select(x, select(y, -y, x < TW(0.0)), fin);
}
