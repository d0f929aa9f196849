// Random transforms in integer arithmetic only, so that every adapter gives the same bits:
// -ln(u) and Box-Muller normals from Philox words (gamma's; the normal draws take the
// ziggurat of shared/ziggurat.wgsl, which uses -ln u from here), and the float built from
// its bits with round to nearest even. Its products come from shared/mulhilo.wgsl (or
// mulhilo64.wgsl: the same products either way). Mirrored step for step on the CPU in tests/common/rng_exact.rs.
//
// Fixed point: Qk is an unsigned u32 with k bits after the point; every product is the high
// word of a 32 x 32 -> 64-bit product (rx_mulhi). The polynomial coefficients are
// least-squares fits on Chebyshev nodes (relative error for the log, absolute for sin and
// cos), rounded to Qk. The steps whose errors later products shrink take 16-bit products
// (rx_mul16, rx_mul_small), the others the high word of a 32 x 32-bit product. Against the
// exact transform of the same uniforms: -ln(u) within 2^-28 relative (2^-28.9 measured),
// r = sqrt(-2 ln u) within 2^-28.5, cos and sin within 2^-28.5 (2^-29.9 and 2^-28.8
// measured), before the final rounding to f32 (tests/random_exact.rs checks the bounds).

#import mulhilo

fn rx_mulhi(a: u32, b: u32) -> u32 { return mulhilo(a, b).x; }

// The high word of a b from their top 16 bits, one 32-bit multiply (within 2^-15 relative):
// for the steps whose error later products shrink below the bounds.
fn rx_mul16(a: u32, b: u32) -> u32 { return (a >> 16u) * (b >> 16u); }

// The high word of x acc for x <= 2^30 and acc < 2^(16 + s), one 32-bit multiply of x's top
// 16 bits (absolute error 2^14) by acc's: for the first Horner steps of sin and cos, whose
// accumulators are small.
fn rx_mul_small(x: u32, acc: u32, s: u32) -> u32 { return ((x >> 14u) * (acc >> s)) >> (18u - s); }

// -ln(u) for u = (a + 1) 2^-32 in (0, 1] (a = 2^32 - 1 is u = 1): (m, e) with m in
// [2^31, 2^32) and -ln(u) = m 2^(e - 32), or m = 0 for u = 1. With u = (1 - t) 2^-lz, t in
// (0, 1/2] exact in Q32: -ln(u) = lz ln 2 + t q(t), q(t) = -ln(1 - t) / t by Horner in
// s = t - 1/4 (|s| <= 1/4, signed: the partial sums stay positive, so acc s is the high word
// of acc times s's bits less acc where s < 0), in Q30. t q is exact to 2^-30 relative, so
// -ln(u) keeps its relative precision down to u = 1 - 2^-32 (lz = 0).
fn rx_neg_log(a: u32) -> vec2<u32> {
    let x = a + 1u;
    let lz = countLeadingZeros(x);
    let t = 0u - (x << lz);
    let s = t - 0x40000000u;
    let neg = 0u - (s >> 31u);
    var q = 2315019525u;
    q = 1906913988u + (rx_mul16(q, s) - (q & neg));
    q = 1187153565u + (rx_mul16(q, s) - (q & neg));
    q = 1005705560u + (rx_mulhi(q, s) - (q & neg));
    q = 891405361u + (rx_mulhi(q, s) - (q & neg));
    q = 783714829u + (rx_mulhi(q, s) - (q & neg));
    q = 709212805u + (rx_mulhi(q, s) - (q & neg));
    q = 671073359u + (rx_mulhi(q, s) - (q & neg));
    q = 680617981u + (rx_mulhi(q, s) - (q & neg));
    q = 784282719u + (rx_mulhi(q, s) - (q & neg));
    q = 1235585093u + (rx_mulhi(q, s) - (q & neg));
    // t q in Q62 (hi, lo); for lz > 0, shifted to Q58 and lz ln 2 (Q58) added.
    let p = mulhilo(t, q);
    // lz times ln 2's low word 0xdf473de7 exactly in 32-bit products: its high word is
    // (lz (w >> 5) + (lz (w & 31) >> 5)) >> 27 (lz < 32; w & 31 = 7).
    let klo = lz * 0xdf473de7u;
    let khi = (lz * 0x06fa39efu + ((lz * 7u) >> 5u)) >> 27u;
    let lo4 = (p.y >> 4u) | (p.x << 28u);
    let lo = lo4 + klo;
    let hi = (p.x >> 4u) + lz * 0x02c5c85fu + khi + select(0u, 1u, lo < klo);
    let wide = lz > 0u;
    let h = select(p.x, hi, wide);
    let l = select(p.y, lo, wide);
    let frac = select(62u, 58u, wide);
    // Normalised: the 64-bit value's top 32 bits from its leading one.
    let sh = select(32u + countLeadingZeros(l), countLeadingZeros(h), h != 0u);
    let m = select(l << (sh - 32u), (h << sh) | ((l >> 1u) >> (31u - sh)), h != 0u);
    let e = 64 - i32(sh) - i32(frac);
    return vec2<u32>(select(m, 0u, x == 0u), bitcast<u32>(e));
}

// The f32 nearest m 2^e (ties to even; m 2^e within f32's normal range), negated when neg;
// +0 for m = 0.
fn rx_f32(m: u32, e: i32, neg: bool) -> f32 {
    let s = countLeadingZeros(m);
    let n = m << (s & 31u);
    let keep = n >> 8u;
    let up = ((n & 0xffu) + (keep & 1u) + 0x7fu) >> 8u;
    let bits = ((u32(158 + e - i32(s)) - 1u) << 23u) + keep + up;
    return bitcast<f32>(select(0u, bits | select(0u, 0x80000000u, neg), m != 0u));
}

// -ln(u) for u = (a + 1) 2^-32, as f32 (0 for u = 1; at most 32 ln 2 = 22.18).
fn exponential_exact(a: u32) -> f32 {
    let l = rx_neg_log(a);
    return rx_f32(l.x, bitcast<i32>(l.y) - 32, false);
}

// (|cos|, |sin|) of the quarter turn g 2^-32 (g <= 2^31, so the angle pi g 2^-33 <= pi/4),
// in Q31, the sine scaled by 2^lz (g << lz has its leading one at bit 31, so that small
// sines keep their relative precision): sin(pi g / 2) = g (S0 - x (S1 - x (...))) and
// cos(pi g / 2) = C0 - x (C1 - ...) with x = g^2 (Q32), the coefficients' magnitudes in Q31.
fn rx_cos_sin(g: u32, lz: u32) -> vec2<u32> {
    let x = rx_mulhi(g, g);
    var sp = 10052930u - rx_mul_small(x, 339721u, 3u);
    sp = 171138516u - rx_mul_small(x, sp, 8u);
    sp = 1387197334u - rx_mulhi(x, sp);
    sp = 3373259426u - rx_mulhi(x, sp);
    var cp = 1973885u - rx_mul_small(x, 53367u, 0u);
    cp = 44803956u - rx_mul_small(x, cp, 5u);
    cp = 544751119u - rx_mulhi(x, cp);
    cp = 2649351758u - rx_mulhi(x, cp);
    cp = 2147483648u - rx_mulhi(x, cp);
    return vec2<u32>(cp, rx_mulhi(g << lz, sp));
}

// Two standard normals from two words by Box-Muller: r = sqrt(-2 ln u) with u = (a + 1)
// 2^-32 in (0, 1], angle 2 pi b 2^-32; (r cos, r sin). sqrt(2L) for 2L = M 2^k, M in [1/2, 1)
// in Q32: sqrt(A) with A = M, or M / 2 when k is odd (then sqrt(2L) = sqrt(A) 2^((k + 1) / 2)).
// y ~ 1 / sqrt(A) in Q30 from a quadratic in M (16-bit products, about 2^-8; times sqrt 2 for
// odd k) and one Newton step y (3 - A y^2) / 2 (about 2^-16); r = A y in Q31 and one step
// r + y (A - r^2) / 2 (y's error and r's multiply: about 2^-31). The angle: quadrant b >> 30 and the quarter
// turn f = b << 2, folded to g = min(f, 1 - f) (cos and sin swapped when folded); the sine
// scaled by 2^lz so that r sin keeps 2^-29 relative precision for small angles too.
fn normal_pair(a: u32, b: u32) -> vec2<f32> {
    let l = rx_neg_log(a);
    let m = l.x;
    let k = bitcast<i32>(l.y) + 1;
    let odd = (k & 1) != 0;
    var y = 2388083616u - rx_mul16(m, 2189186838u - rx_mul16(m, 877755388u));
    y = select(y, rx_mul16(y, 0xb504f334u) << 1u, odd);
    let aa = select(m, m >> 1u, odd);
    y = rx_mulhi(y, 0x30000000u - rx_mulhi(aa, rx_mulhi(y, y))) << 3u;
    let r0 = rx_mulhi(aa, y) << 1u;
    let d = aa - (rx_mulhi(r0, r0) << 2u);
    let r = r0 + rx_mulhi(y, d) - (y & (0u - (d >> 31u)));
    let re = ((k + 1) >> 1u) - 30;
    let quadrant = b >> 30u;
    let f = b << 2u;
    let fold = f > 0x80000000u;
    let g = select(f, 0u - f, fold);
    let lz = countLeadingZeros(g) & 31u;
    let cs = rx_cos_sin(g, lz);
    let swap = fold != ((quadrant & 1u) == 1u);
    let q = select(cs, cs.yx, swap);
    let qe = select(vec2<i32>(re, re - i32(lz)), vec2<i32>(re - i32(lz), re), swap);
    return vec2<f32>(rx_f32(rx_mulhi(r, q.x), qe.x, quadrant == 1u || quadrant == 2u),
                     rx_f32(rx_mulhi(r, q.y), qe.y, quadrant >= 2u));
}

// The f16 nearest an f32 (ties to even; f16 subnormals included, infinity beyond its
// range, f32 subnormals to zero), returned as the f32 of that value, which converts to f16
// exactly. In integers, since WGSL leaves the rounding of an f32-to-f16 conversion open:
// in f16's normal range the rounding is done on the f32's bits (a carry moves into the
// exponent), below it the value is counted in units of 2^-24 (f16's least subnormal).
fn f16_round(v: f32) -> f32 {
    let b = bitcast<u32>(v);
    let a = b & 0x7fffffffu;
    let ex = i32(a >> 23u);
    let rn = (a + 0xfffu + ((a >> 13u) & 1u)) & 0xffffe000u;
    let big = select(rn, 0x7f800000u, rn >= 0x47800000u);
    let mant = (a & 0x7fffffu) | 0x800000u;
    let sh = u32(clamp(126 - ex, 1, 31));
    let keep = mant >> sh;
    let rem = mant & ((1u << sh) - 1u);
    let half = 1u << (sh - 1u);
    let up = select(0u, 1u, rem > half || (rem == half && (keep & 1u) == 1u));
    let small = bitcast<u32>(f32(keep + up) * 5.9604644775390625e-8);
    let mag = select(select(small, big, ex >= 113), 0u, ex == 0);
    return bitcast<f32>(mag | (b & 0x80000000u));
}
