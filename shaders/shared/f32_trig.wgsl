// f32 trigonometry (and f16's, widened to f32), on TW / M / TB as f32_math.wgsl, whose
// helpers (DD, two_sum_, two_prod_, div_, exp2i_, ...) it uses: sin, cos and tan; hypot;
// NumPy's sinc. The inverse functions are in f32_inverse_trig.wgsl.
//
// x = q pi/2 + r with |r| <= pi/4 (a little more), r as a double-f32, reduced exactly:
// Cody-Waite with pi/2 in four pieces below 98304 (every product k * piece exact, one as a
// double-f32), and Payne-Hanek in integer arithmetic above (x's 24-bit significand times a
// window of 2/pi in 12-bit digits, the products exact in u32). Then Taylor polynomials of
// sin and cos on r.
#import f32_math

// Digit i (12 bits) of 2/pi = sum_i digit_i 2^(-12 (i + 1)); 0 outside [0, 17].
fn two_over_pi_digit_(i: M) -> M {
    var c = M(0u);
    c = select(c, M(2607u), i == M(0u));
    c = select(c, M(2435u), i == M(1u));
    c = select(c, M(1764u), i == M(2u));
    c = select(c, M(3652u), i == M(3u));
    c = select(c, M(338u), i == M(4u));
    c = select(c, M(2556u), i == M(5u));
    c = select(c, M(629u), i == M(6u));
    c = select(c, M(2001u), i == M(7u));
    c = select(c, M(3923u), i == M(8u));
    c = select(c, M(1245u), i == M(9u));
    c = select(c, M(3085u), i == M(10u));
    c = select(c, M(2914u), i == M(11u));
    c = select(c, M(2393u), i == M(12u));
    c = select(c, M(2364u), i == M(13u));
    c = select(c, M(1081u), i == M(14u));
    c = select(c, M(65u), i == M(15u));
    c = select(c, M(4069u), i == M(16u));
    c = select(c, M(355u), i == M(17u));
    return c;
}

// The quadrant q (0 to 3) and the remainder r of x = q pi/2 + r, for x >= 0.
struct Reduced { q: TW, r: DD }

// Cody-Waite, for 0 <= a < 98304 (so k < 2^16): pi/2 = P1 + P2 + P3 + P4 with P1 and P2 of
// 8 bits, so k P1 and k P2 are exact and so are a - k P1 and the next difference (Sterbenz,
// then a result of at most 24 bits); k P3 is exact as a double-f32 (two_prod_), k P4 (below
// 2^-31) rounds far below the 2^-55 that the closest approach of an f32 below 98304 to a
// multiple of pi/2 (2^-27.8, at 252.898) needs. Measured exhaustively on the CPU in f32
// arithmetic: sin and cos within 0.81 ulp over [0, 98304).
fn reduce_cw_(a: TW) -> Reduced {
    let k = round(a * TW(0.6366197466850281));
    let t = opaque_(opaque_(a - k * TW(1.5703125)) - k * TW(0.000484466552734375));
    let p = two_prod_(k, TW(-6.397578431460715e-07));
    let s = two_sum_(t, -p.h);
    let l = (s.l - p.l) - k * TW(5.390302953474238e-15);
    return Reduced(k - TW(4.0) * floor(k * TW(0.25)), fast_two_sum_(s.h, l));
}

// Payne-Hanek, for a >= 4096 (exponent E >= 12; reduce_ uses it from 98304 on).
// a = (H 2^12 + L) 2^(E - 23) with H, L of 12 bits; a 2/pi = sum_j D_j 2^(W0 - 12 j),
// D_j = H c(i0 + j) + L c(i0 + j - 1), where the first i0 digits are skipped (their terms
// are multiples of 4) so that W0 = E - 23 - 12 i0 is in [-11, 0]. The D_j are summed
// exactly in base 2^12 with carries; the integer part mod 4 is the quadrant, the fraction
// becomes three f32 of 24 bits or fewer.
fn reduce_ph_(a: TW) -> Reduced {
    let b = bitcast<M>(a);
    let eb = clamp(b >> M(23u), M(139u), M(254u));
    let mant = (b & M(0x7fffffu)) | M(0x800000u);
    let hi = mant >> M(12u);
    let lo = mant & M(0xfffu);
    let i0 = (max(eb, M(150u)) - M(139u)) / M(12u);
    let s = M(12u) * i0 + M(150u) - eb; // -W0, in [0, 11]
    // c[j] = digit i0 + j - 2: each digit looked up once (a lookup is a chain of selects).
    var c: array<M, 10>;
    for (var j = 0u; j < 10u; j++) {
        c[j] = two_over_pi_digit_(i0 + M(j) - M(2u));
    }
    var d: array<M, 8>;
    for (var j = 0u; j < 8u; j++) {
        d[j] = hi * c[j + 2u] + lo * c[j + 1u];
    }
    var carry = M(0u);
    for (var j = 7u; j >= 1u; j--) {
        let v = d[j] + carry;
        d[j] = v & M(0xfffu);
        carry = v >> M(12u);
    }
    let v0 = d[0] + carry;
    // The skipped digit just above D_0 weighs 2^(12 - s): a multiple of 4 unless s = 11.
    let above = hi * c[1] + lo * c[0];
    var q = ((v0 >> s) + (above << (M(12u) - s))) & M(3u);
    let sf = TW(s);
    var fh = TW(((v0 & ((M(1u) << s) - M(1u))) << M(12u)) | d[1]) * exp2i_(TW(-12.0) - sf);
    let fm = TW((d[2] << M(12u)) | d[3]) * exp2i_(TW(-36.0) - sf);
    let fl = TW((d[4] << M(12u)) | d[5]) * exp2i_(TW(-60.0) - sf);
    let up = fh >= TW(0.5);
    fh = select(fh, fh - TW(1.0), up);
    q = (q + select(M(0u), M(1u), up)) & M(3u);
    let f0 = two_sum_(fh, fm);
    let f = fast_two_sum_(f0.h, f0.l + fl);
    // r = f pi/2, pi/2 = 1.5707963705062866 - 4.371138828673793e-08.
    let p = two_prod_(f.h, TW(1.5707963705062866));
    let pl = p.l + (f.l * TW(1.5707963705062866) - f.h * TW(4.371138828673793e-08));
    return Reduced(TW(q), fast_two_sum_(p.h, pl));
}

fn reduce_(x: TW) -> Reduced {
    let a = abs(x);
    let huge = a >= TW(98304.0);
    var red = reduce_cw_(min(a, TW(98304.0)));
    if (any(huge)) {
        let p = reduce_ph_(a);
        red = Reduced(select(red.q, p.q, huge),
            DD(select(red.r.h, p.r.h, huge), select(red.r.l, p.r.l, huge)));
    }
    return red;
}

// sin(h + l) for |h| <= 0.79 (Taylor to degree 11: the remainder is below 0.05 ulp).
fn sin_k_(r: DD) -> TW {
    let h = r.h;
    let z = h * h;
    let s = TW(-1.0 / 6.0) + z * (TW(1.0 / 120.0) + z * (TW(-1.0 / 5040.0)
        + z * (TW(1.0 / 362880.0) + z * TW(-1.0 / 39916800.0))));
    return h + (r.l * (TW(1.0) - TW(0.5) * z) + h * z * s);
}

// cos(h + l) for |h| <= 0.8: w = 1 - h^2/2 with the rounding of w recovered, plus the rest
// (the rounding of h^2 weighs at most a quarter ulp of the result).
fn cos_k_(r: DD) -> TW {
    let h = r.h;
    let z = h * h;
    let c = TW(1.0 / 24.0) + z * (TW(-1.0 / 720.0) + z * (TW(1.0 / 40320.0)
        + z * (TW(-1.0 / 3628800.0) + z * TW(1.0 / 479001600.0))));
    let hz = TW(0.5) * z;
    let w = opaque_(TW(1.0) - hz);
    return w + (((TW(1.0) - w) - hz) + (z * z * c - h * r.l));
}

// sin(x): sin r, cos r, -sin r, -cos r by quadrant; odd.
fn sin_(x: TW) -> TW {
    let red = reduce_(x);
    let odd = (red.q == TW(1.0)) | (red.q == TW(3.0));
    var v = select(sin_k_(red.r), cos_k_(red.r), odd);
    v = select(v, -v, (red.q >= TW(2.0)) != sign_bit_(x));
    return select(select(v, f32_nan_(), is_nan_(x) | is_inf_(x)), x, tiny_(x));
}

// cos(x): cos r, -sin r, -cos r, sin r by quadrant; even.
fn cos_(x: TW) -> TW {
    let red = reduce_(x);
    let odd = (red.q == TW(1.0)) | (red.q == TW(3.0));
    var v = select(cos_k_(red.r), sin_k_(red.r), odd);
    v = select(v, -v, (red.q == TW(1.0)) | (red.q == TW(2.0)));
    return select(v, f32_nan_(), is_nan_(x) | is_inf_(x));
}

// tan(x): sin r / cos r, or -cos r / sin r in odd quadrants; odd. The divisor is a normal
// number far from 0 (r is not 0 in odd quadrants: pi/2 is irrational), so div_normal_ does.
fn tan_(x: TW) -> TW {
    let red = reduce_(x);
    let odd = (red.q == TW(1.0)) | (red.q == TW(3.0));
    let s = sin_k_(red.r);
    let c = cos_k_(red.r);
    var v = div_normal_(select(s, -c, odd), select(c, s, odd));
    v = select(v, -v, sign_bit_(x));
    return select(select(v, f32_nan_(), is_nan_(x) | is_inf_(x)), x, tiny_(x));
}

// sqrt(x^2 + y^2) without overflow or underflow: both operands unpacked from their bits
// (subnormals too), the larger's exponent taken out exactly, the sum of squares of numbers
// in [1, 2) and below, and the exponent put back with one rounding. inf if either is
// infinite (NaN or not), else NaN if either is NaN.
fn hypot_32_(x: TW, y: TW) -> TW {
    let bx = abits_(x);
    let by = abits_(y);
    let hi = bitcast<TW>(max(bx, by));
    let lo = bitcast<TW>(min(bx, by));
    let uh = unpack_(hi);
    let ul = unpack_(lo);
    let s = ul.m * exp2i_(max(ul.e - uh.e, TW(-60.0)));
    let r = ldexp_(sqrt_(fma(uh.m, uh.m, s * s)), uh.e);
    let any_nan = is_nan_(x) | is_nan_(y);
    let v = select(select(r, hi, is_zero_(lo)), f32_nan_(), any_nan);
    return select(v, f32_inf_(), is_inf_(x) | is_inf_(y));
}

// NumPy's sinc, as NumPy computes it: y = pi x rounded, sin(y) / y; 1 where |x| < 1e-5
// (there sin(y) rounds to y, so NumPy's quotient is exactly 1), which also covers 0 and the
// subnormals a flushing adapter (the H100) reads as 0.
fn sinc_32_(x: TW) -> TW {
    let y = TW(3.141592653589793) * x;
    return select(div_(sin_(y), y), TW(1.0), abs(x) < TW(1e-5));
}
