// Payne-Hanek for f64_trig.wgsl's reduction by pi/2 past 2^20 (imported by it; taken only
// where some lane needs it): the exact product by the digits of 2/pi in f64 integer
// arithmetic. The digits and positions are arrays indexed in loops: the H200's compiler
// keeps them in local memory (zeroed and used only on this path), so the path costs the
// kernel few registers. A form that made the positions one by one with a sliding window of
// digits (no arrays) was fully unrolled there into 193 registers and made vec4 sin, cos and
// tan 1.55x slower (2026-11-29, helper math64b); arrays stay.

// Payne-Hanek for 2^20 <= a < inf, in f64 arithmetic on integers below 2^53 (so every
// operation is exact, with or without fma): a = M 2^(E - 52), M = m2 2^48 + m1 2^24 + m0, and
// a 2/pi = sum_j M d(i0 + j) 2^(W0 - 24 j), where the digits before i0 are skipped (their
// terms are multiples of 4) and W0 = E - 52 - 24 (i0 + 1) is in [-22, 1]. Position t (weight
// 2^(W0 - 24 t)) sums m_k d(i0 + t + k) over the limbs k, below 2^50; positions below 0 are
// multiples of 4, those past 8 below 2^-138. Carried in base 2^24 from t = 8 down, positions
// 0 and 1 give the quadrant and the fraction's first 48 bits, 2 to 8 the rest; the fraction,
// moved to [-1/2, 1/2), times pi/2 in double-double is the remainder.
fn rem_pio2_big64_(a: TW) -> Red64 {
    let sp = split64_(a);
    let mant = sp.hi * TW(0x1p52);
    let e = sp.lo;
    let m2 = floor(mant * TW(0x1p-48));
    let r2 = mant - m2 * TW(0x1p48);
    let m1 = floor(r2 * TW(0x1p-24));
    let m0 = r2 - m1 * TW(0x1p24);
    // (E - 54) / 24 rounded down; the half keeps the product's rounding off an integer.
    let i0 = floor((e - TW(53.5)) * TW(1.0 / 24.0));
    let w0 = e - TW(52.0) - TW(24.0) * (i0 + TW(1.0));
    var d: array<TW, 11>;
    for (var j = 0; j < 11; j++) {
        d[j] = two_over_pi_d24_(i0 + TW(f64(j)));
    }
    var v: array<TW, 9>;
    for (var t = 0; t < 9; t++) {
        v[t] = m0 * d[t] + m1 * d[t + 1] + m2 * d[t + 2];
    }
    var carry = TW(0.0);
    for (var t = 8; t >= 1; t--) {
        let s = v[t] + carry;
        carry = floor(s * TW(0x1p-24));
        v[t] = s - carry * TW(0x1p24);
    }
    // Position 0 modulo 2^(2 - W0) (its weight times that is 4), then with position 1.
    let v0 = v[0] + carry;
    let p = ldexp(TW(1.0), NI(TW(2.0) - w0));
    let v0r = v0 - p * floor(v0 * ldexp(TW(1.0), NI(w0 - TW(2.0))));
    let a48 = (v0r * TW(0x1p24) + v[1]) * ldexp(TW(1.0), NI(w0 - TW(24.0)));
    let q0 = floor(a48);
    let fh0 = a48 - q0;
    let b1 = (v[2] * TW(0x1p24) + v[3]) * ldexp(TW(1.0), NI(w0 - TW(72.0)));
    let b2 = (v[4] * TW(0x1p24) + v[5]) * ldexp(TW(1.0), NI(w0 - TW(120.0)));
    let b3 = (v[6] * TW(0x1p24) + v[7]) * ldexp(TW(1.0), NI(w0 - TW(168.0)));
    let b4 = v[8] * ldexp(TW(1.0), NI(w0 - TW(192.0)));
    // fh0 < 1/2 leaves the whole fraction below 1/2 (the rest is below fh0's last bit).
    let up = fh0 >= TW(0.5);
    let fh = select(fh0, fh0 - TW(1.0), up);
    let q1 = q0 + select(TW(0.0), TW(1.0), up);
    let s1 = two_sum64_(fh, b1);
    let f = fast_two_sum64_(s1.hi, s1.lo + (b2 + (b3 + b4)));
    let pr = two_prod64_(f.hi, TW(D64_PIO2));
    let pl = pr.lo + (f.lo * TW(D64_PIO2) + f.hi * TW(D64_PIO2_B));
    let r = fast_two_sum64_(pr.hi, pl);
    return Red64(q1 - TW(4.0) * floor(q1 * TW(0.25)), r.hi, r.lo);
}
