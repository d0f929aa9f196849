// Complex arithmetic and functions of the elementwise family's complex kernels (complex64,
// complex128; host side: src/ops/elementwise/complex.rs). A complex number is a CX, a
// vec2<TW> (real, imaginary) with TW its component type, f32 or f64. The component
// functions r_*() (exp, log, sin, hypot, ...) are the f32 or f64 libraries' functions,
// named per dtype in the kernel's own text by the host (`prelude` in complex.rs), as are
// r_isnan(), r_isinf(), r_big() (where e^x overflows) and r_sqrt_big() (where x + |z|
// may overflow in sqrt); r_sincos() (sin and cos from one reduction) and c_abs() (|z|) are
// in the component type's own file, complex_f32.wgsl or complex_f64.wgsl.
//
// Special values follow C99's Annex G, as NumPy's (npymath's and the C library's) complex
// functions do; the formulas and their thresholds are FreeBSD msun's (csqrt, ctanh) and
// npymath's (division by Smith's method, log near |z| = 1, pow by repeated squaring for
// small integral powers).

alias CX = vec2<TW>;

fn r_nan() -> TW { return nan_(); }
fn r_inf() -> TW { return max_finite_() * TW(2.0); }
fn r_isfinite(x: TW) -> bool { return !r_isnan(x) && !r_isinf(x); }

// Scalar argument k of a complex kernel: two components of the carrier each.
fn c_arg_(k: u32) -> CX { return CX(TW(P.sc[2u * k]), TW(P.sc[2u * k + 1u])); }

fn c_mul(a: CX, b: CX) -> CX {
    return CX(a.x * b.x - a.y * b.y, a.x * b.y + a.y * b.x);
}

// Smith's division, as NumPy's: the larger component of the divisor divides the smaller
// (no overflow of |b|^2); a zero divisor gives the quotients by its modulus (inf or NaN).
fn c_div(a: CX, b: CX) -> CX {
    let abr = abs(b.x);
    let abi = abs(b.y);
    if (abr >= abi) {
        if (abr == TW(0.0) && abi == TW(0.0)) {
            return CX(r_div(a.x, abr), r_div(a.y, abr));
        }
        let rat = r_div(b.y, b.x);
        let scl = r_div(TW(1.0), b.x + b.y * rat);
        return CX((a.x + a.y * rat) * scl, (a.y - a.x * rat) * scl);
    }
    let rat = r_div(b.x, b.y);
    let scl = r_div(TW(1.0), b.y + b.x * rat);
    return CX((a.x * rat + a.y) * scl, (a.y * rat - a.x) * scl);
}


// e^z = e^x (cos y + i sin y): cos y and sin y from one range reduction (r_sincos, the
// component type's file complex_f32.wgsl / complex_f64.wgsl), with Annex G's values where
// a part is infinite or NaN (the rare cases first, so the common one reads straight on).
fn c_exp(z: CX) -> CX {
    let r = z.x;
    let i = z.y;
    if (r_isnan(r)) {
        if (i == TW(0.0)) { return z; }
        return CX(r, r_nan());
    }
    if (!r_isfinite(i)) {
        if (r_isinf(r)) {
            if (r > TW(0.0)) { return CX(r, r_nan()); }
            return CX(TW(0.0), TW(0.0));
        }
        return CX(r_nan(), r_nan());
    }
    // e^x exactly as a real exponential (x = +-inf included: inf + 0i, 0 + 0i).
    if (i == TW(0.0)) { return CX(r_exp(r), i); }
    let sc = r_sincos(i);
    if (r_isinf(r)) {
        let e = select(TW(0.0), r, r > TW(0.0));
        return CX(e * sc.y, e * sc.x);
    }
    if (r > r_big()) {
        // e^r overflows where e^r cos(i) may not: e^(r/2) twice.
        let h = r_exp(r * TW(0.5));
        return CX((h * sc.y) * h, (h * sc.x) * h);
    }
    let e = r_exp(r);
    return CX(e * sc.y, e * sc.x);
}

// log|z| + i arg z; near |z| = 1 as log1p((m - 1)(m + 1) + n^2) / 2 (m, n the larger and
// smaller of |re|, |im|), which keeps the small result's relative accuracy.
fn c_log(z: CX) -> CX {
    // Annex G's NaN cases first: +inf + NaN i where a part is infinite, else NaN + NaN i
    // (not left to the branches below, whose comparisons of a NaN modulus NVIDIA's
    // compiler answered as if ordered: log(NaN + 1i) came out log(sqrt(2)) + NaN i).
    if (r_isnan(z.x) || r_isnan(z.y)) {
        if (r_isinf(z.x) || r_isinf(z.y)) { return CX(r_inf(), r_nan()); }
        return CX(r_nan(), r_nan());
    }
    let ax = abs(z.x);
    let ay = abs(z.y);
    let arg = r_atan2(z.y, z.x);
    let h = r_hypot(ax, ay);
    if (r_isinf(h) && r_isfinite(ax) && r_isfinite(ay)) {
        return CX(r_log(r_hypot(ax * TW(0.5), ay * TW(0.5))) + TW(0.6931471805599453), arg);
    }
    if (h >= TW(0.71) && h <= TW(1.73)) {
        let m = max(ax, ay);
        let n = min(ax, ay);
        return CX(r_log1p((m - TW(1.0)) * (m + TW(1.0)) + n * n) * TW(0.5), arg);
    }
    return CX(r_log(h), arg);
}

// msun's csqrt: exact special values, a scaling by 1/4 near overflow.
fn c_sqrt(z: CX) -> CX {
    let a = z.x;
    let b = z.y;
    if (a == TW(0.0) && b == TW(0.0)) { return CX(TW(0.0), b); }
    if (r_isinf(b)) { return CX(r_inf(), b); }
    if (r_isnan(a)) { return CX(a, r_nan()); }
    // b - b for b: 0, or NaN where b is NaN (not computed: compilers may fold it).
    let bb = select(TW(0.0), r_nan(), r_isnan(b));
    if (r_isinf(a)) {
        if (a < TW(0.0)) { return CX(bb, r_copysign(r_inf(), b)); }
        return CX(a, r_copysign(bb, b));
    }
    var x = a;
    var y = b;
    let scale = abs(x) >= r_sqrt_big() || abs(y) >= r_sqrt_big();
    if (scale) {
        x = x * TW(0.25);
        y = y * TW(0.25);
    }
    var res: CX;
    if (x >= TW(0.0)) {
        let t = r_sqrt((x + r_hypot(x, y)) * TW(0.5));
        res = CX(t, r_div(y, TW(2.0) * t));
    } else {
        let t = r_sqrt((-x + r_hypot(x, y)) * TW(0.5));
        res = CX(r_div(abs(y), TW(2.0) * t), r_copysign(t, y));
    }
    if (scale) { res = res * TW(2.0); }
    return res;
}

// sinh(x + iy) = sinh x cos y + i cosh x sin y, with Annex G's values on the axes and at
// infinity.
fn c_sinh(z: CX) -> CX {
    let x = z.x;
    let y = z.y;
    if (y == TW(0.0)) { return CX(r_sinh(x), y); }
    let sc = r_sincos(y);
    if (x == TW(0.0)) { return CX(select(x * sc.y, x, !r_isfinite(y)), sc.x); }
    if (r_isinf(x) && !r_isfinite(y)) { return CX(x, r_nan()); }
    return CX(r_sinh(x) * sc.y, r_cosh(x) * sc.x);
}

// cosh(x + iy) = cosh x cos y + i sinh x sin y, as c_sinh at the edges.
fn c_cosh(z: CX) -> CX {
    let x = z.x;
    let y = z.y;
    if (y == TW(0.0)) { return CX(r_cosh(x), y * r_copysign(TW(1.0), x)); }
    let sc = r_sincos(y);
    if (x == TW(0.0)) {
        return CX(sc.y, select(x * sc.x, TW(0.0), !r_isfinite(y)));
    }
    if (r_isinf(x) && !r_isfinite(y)) { return CX(abs(x), r_nan()); }
    return CX(r_cosh(x) * sc.y, r_sinh(x) * sc.x);
}

// msun's ctanh: (beta rho s + i t) / (1 + beta s^2) with t = tan y, beta = 1 + t^2,
// s = sinh x, rho = sqrt(1 + s^2); for large |x| the real part is +-1 and the imaginary
// 4 sin y cos y e^(-2|x|).
fn c_tanh(z: CX) -> CX {
    let x = z.x;
    let y = z.y;
    if (r_isnan(x)) { return CX(x, select(r_nan(), y, y == TW(0.0))); }
    if (r_isinf(x)) {
        let im = select(r_copysign(TW(0.0), r_sin(y) * r_cos(y)), r_copysign(TW(0.0), y),
                        !r_isfinite(y));
        return CX(r_copysign(TW(1.0), x), im);
    }
    if (!r_isfinite(y)) { return CX(select(r_nan(), x, x == TW(0.0)), r_nan()); }
    if (abs(x) >= r_tanh_big()) {
        let e = r_exp(TW(-2.0) * abs(x));
        return CX(r_copysign(TW(1.0), x), TW(4.0) * r_sin(y) * r_cos(y) * e);
    }
    let t = r_tan(y);
    let beta = TW(1.0) + t * t;
    let s = r_sinh(x);
    let rho = r_sqrt(TW(1.0) + s * s);
    let denom = TW(1.0) + beta * s * s;
    return CX(r_div(beta * rho * s, denom), r_div(t, denom));
}

// The circular functions through the hyperbolic ones: sin z = -i sinh(iz),
// cos z = cosh(iz), tan z = -i tanh(iz), with iz = -y + ix.
fn c_sin(z: CX) -> CX {
    let w = c_sinh(CX(-z.y, z.x));
    return CX(w.y, -w.x);
}
fn c_cos(z: CX) -> CX { return c_cosh(CX(-z.y, z.x)); }
fn c_tan(z: CX) -> CX {
    let w = c_tanh(CX(-z.y, z.x));
    return CX(w.y, -w.x);
}

// NumPy's power: z^0 = 1; 0^w = 0 for real positive w, else NaN; integral real powers
// below 100 in magnitude by repeated squaring (and a reciprocal for negative ones); else
// e^(w log z).
fn c_pow(a: CX, b: CX) -> CX {
    if (b.x == TW(0.0) && b.y == TW(0.0)) { return CX(TW(1.0), TW(0.0)); }
    if (a.x == TW(0.0) && a.y == TW(0.0)) {
        if (b.x > TW(0.0) && b.y == TW(0.0)) { return CX(TW(0.0), TW(0.0)); }
        return CX(r_nan(), r_nan());
    }
    if (b.y == TW(0.0) && b.x == floor(b.x) && abs(b.x) < TW(100.0)) {
        let n = u32(abs(b.x));
        var acc = CX(TW(1.0), TW(0.0));
        var p = a;
        var mask = 1u;
        loop {
            if ((n & mask) != 0u) { acc = c_mul(acc, p); }
            mask = mask << 1u;
            if (n < mask) { break; }
            p = c_mul(p, p);
        }
        if (b.x < TW(0.0)) { return c_div(CX(TW(1.0), TW(0.0)), acc); }
        return acc;
    }
    return c_exp(c_mul(b, c_log(a)));
}
