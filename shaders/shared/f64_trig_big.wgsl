// Payne-Hanek for f64_trig.wgsl's reduction by pi/2 past 2^20 (imported by it; taken only
// where some lane needs it): the digits of 2/pi and the exact product in f64 integer
// arithmetic, position by position (a few values live at a time: the slow path shares the
// kernel's registers with the common one). f64_trig_big_old.wgsl holds the previous form
// (all the digits and positions in arrays first), read instead under the measuring switch
// GPUARRAY_F64_TRIG=0 or 1 (`Spec::f64_choices`); both give the same bits.

// Payne-Hanek for 2^20 <= a < inf, in f64 arithmetic on integers below 2^53 (so every
// operation is exact, with or without fma): a = M 2^(E - 52), M = m2 2^48 + m1 2^24 + m0, and
// a 2/pi = sum_j M d(i0 + j) 2^(W0 - 24 j), where the digits before i0 are skipped (their
// terms are multiples of 4) and W0 = E - 52 - 24 (i0 + 1) is in [-22, 1]. Position t (weight
// 2^(W0 - 24 t)) sums m_k d(i0 + t + k) over the limbs k, below 2^50; positions below 0 are
// multiples of 4, those past 8 below 2^-138. Made and carried in base 2^24 from t = 8 down,
// with the digits d(i0 + t .. i0 + t + 2) as a sliding window; positions 2 to 8 go into the
// fraction's tail as they are made (pairs of positions: exact 48-bit values), 0 and 1 give
// the quadrant and the fraction's first 48 bits; the fraction, moved to [-1/2, 1/2), times
// pi/2 in double-double is the remainder.
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
    // d(i0 + t + 2) and d(i0 + t + 1) for the position t being made.
    var d2 = two_over_pi_d24_(i0 + TW(10.0));
    var d1 = two_over_pi_d24_(i0 + TW(9.0));
    var carry = TW(0.0);
    // Position t + 1 (odd t + 1) waiting for t to make a pair; position 1; the tail
    // b2 + (b3 + b4) so far (b4 position 8, b3 positions 6 and 7, b2 4 and 5); b1 (2 and 3).
    var odd = TW(0.0);
    var v1 = TW(0.0);
    var tail = TW(0.0);
    var b1 = TW(0.0);
    for (var t = 8; t >= 1; t--) {
        let d0 = two_over_pi_d24_(i0 + TW(f64(t)));
        let s = (m0 * d0 + m1 * d1 + m2 * d2) + carry;
        carry = floor(s * TW(0x1p-24));
        let v = s - carry * TW(0x1p24);
        d2 = d1;
        d1 = d0;
        if (t == 8) {
            tail = v * ldexp(TW(1.0), NI(w0 - TW(192.0)));
        } else if (t == 1) {
            v1 = v;
        } else if ((t & 1) == 1) {
            odd = v;
        } else {
            let b = (v * TW(0x1p24) + odd) * ldexp(TW(1.0), NI(w0 - TW(f64(24 * t + 24))));
            if (t == 2) {
                b1 = b;
            } else {
                tail = b + tail;
            }
        }
    }
    // Position 0 modulo 2^(2 - W0) (its weight times that is 4), then with position 1.
    let v0 = (m0 * two_over_pi_d24_(i0) + m1 * d1 + m2 * d2) + carry;
    let p = ldexp(TW(1.0), NI(TW(2.0) - w0));
    let v0r = v0 - p * floor(v0 * ldexp(TW(1.0), NI(w0 - TW(2.0))));
    let a48 = (v0r * TW(0x1p24) + v1) * ldexp(TW(1.0), NI(w0 - TW(24.0)));
    let q0 = floor(a48);
    let fh0 = a48 - q0;
    // fh0 < 1/2 leaves the whole fraction below 1/2 (the rest is below fh0's last bit).
    let up = fh0 >= TW(0.5);
    let fh = select(fh0, fh0 - TW(1.0), up);
    let q1 = q0 + select(TW(0.0), TW(1.0), up);
    let s1 = two_sum64_(fh, b1);
    let f = fast_two_sum64_(s1.hi, s1.lo + tail);
    let pr = two_prod64_(f.hi, TW(D64_PIO2));
    let pl = pr.lo + (f.lo * TW(D64_PIO2) + f.hi * TW(D64_PIO2_B));
    let r = fast_two_sum64_(pr.hi, pl);
    return Red64(q1 - TW(4.0) * floor(q1 * TW(0.25)), r.hi, r.lo);
}
