// The representation of f32 values (TW is f32 or vec4<f32>, M u32 or vec4<u32>, TB bool or vec4<bool>; f16 is computed in f32
// and rounded once): modf's fraction, nextafter, spacing, frexp
// and ldexp, and the f16 forms of nextafter and spacing. Built from the bits, so that
// adapters which flush subnormals in arithmetic (NVIDIA) still step, split and scale them.
#import f32_math

// modf's fractional part: x - trunc(x) with x's sign (exact), ±0 for ±inf, NaN for NaN.
fn modf_frac_32_(x: TW) -> TW {
    return copysign_(select(x - trunc(x), TW(0.0), is_inf_(x)), x);
}

// The next f32 after x toward y, from the bits (f16: nextafter_16_; f64: f64_bits.wgsl):
// y when equal, the smallest subnormal of y's sign from ±0, NaN if either is NaN. The
// sign of x is read from the bits, so a subnormal x steps correctly where the adapter
// flushes it in comparisons.
fn nextafter_32_(x: TW, y: TW) -> TW {
    let b = bitcast<M>(x);
    let c = bitcast<M>(y);
    // Compared as ordered keys of the bits, not as floats: an adapter that flushes
    // subnormals in comparisons would take two of them (or one and ±0) as equal.
    let kx = ord_32_(b);
    let ky = ord_32_(c);
    let away = select(ky > kx, ky < kx, sign_bit_(x));
    let r = bitcast<TW>(select(b - M(1u), b + M(1u), away));
    let from_zero = select(r, copysign_(bitcast<TW>(M(1u)), y), is_zero_(x));
    let same = (b == c) | ((abits_(x) | abits_(y)) == M(0u));
    return select(select(from_zero, y, same), x + y, is_nan_(x) | is_nan_(y));
}

// The bits of an f32 as an unsigned key in the order of the values (NaN aside): the sign
// bit set on positives, every bit flipped on negatives (-0 just below +0).
fn ord_32_(b: M) -> M {
    return select(b | M(F32_SIGN), ~b, (b & M(F32_SIGN)) != M(0u));
}

// An f16 value (held exactly in TW) as its 16 bits (sign at bit 15; NaN as inf), and
// f16 bits back to their value in TW. f16's subnormals are normal f32s, so the product in
// f16_value_ is exact also where an adapter flushes f32 subnormals.
fn f16_bits_(x: TW) -> M {
    let a = abits_(x);
    let e = a >> M(23u);
    let normal = ((e - M(112u)) << M(10u)) | ((a >> M(13u)) & M(0x3ffu));
    let sub = ((a & M(0x7fffffu)) | M(0x800000u)) >> min(M(126u) - min(e, M(126u)), M(31u));
    let mag = select(select(sub, normal, e >= M(113u)), M(0x7c00u), e == M(255u));
    return mag | ((bitcast<M>(x) >> M(16u)) & M(0x8000u));
}

fn f16_value_(h: M) -> TW {
    let e = (h >> M(10u)) & M(0x1fu);
    let m = h & M(0x3ffu);
    let normal = bitcast<TW>(((e + M(112u)) << M(23u)) | (m << M(13u)));
    let mag = select(select(TW(m) * TW(0x1p-24), normal, e != M(0u)), f32_inf_(), e == M(31u));
    return copysign_(mag, bitcast<TW>(h << M(16u)));
}

// nextafter of two f16 values held in TW: one step of the f16 bits, with nextafter_32_'s
// special cases (the smallest f16 subnormal, 2^-24, from ±0).
fn nextafter_16_(x: TW, y: TW) -> TW {
    let h = f16_bits_(x);
    let away = select(y > x, y < x, sign_bit_(x));
    let r = f16_value_(select(h - M(1u), h + M(1u), away));
    let from_zero = select(r, copysign_(TW(0x1p-24), y), is_zero_(x));
    return select(select(from_zero, y, x == y), x + y, is_nan_(x) | is_nan_(y));
}

// spacing of an f16 value held in TW, as spacing_32_ (the difference is exact in f32).
fn spacing_16_(x: TW) -> TW {
    let toward = copysign_(f32_inf_(), x);
    return select(nextafter_16_(x, toward) - x, f32_nan_(), is_inf_(x) | is_nan_(x));
}

// NumPy's spacing: the distance to the next f32 away from zero, negative for negative x
// (-0 included); NaN for infinities and NaN. Built from the bits, 2^(e - 150) for biased
// exponent e (the smallest subnormal for e <= 1), inf from the largest finite: a
// subtraction would flush a subnormal step to zero where the adapter flushes (NVIDIA).
fn spacing_32_(x: TW) -> TW {
    let u = bitcast<M>(x);
    let e = (u >> M(23u)) & M(0xffu);
    // Normal from e = 24: biased exponent e - 23. Below: the subnormal 1 << (e - 1).
    let normal = (e - min(e, M(23u))) << M(23u);
    let sub = M(1u) << min(max(e, M(1u)) - M(1u), M(31u));
    var r = select(sub, normal, e >= M(24u));
    r = select(r, M(0x7f800000u), abits_(x) == M(0x7f7fffffu));
    r = select(r, M(0x7fc00000u), e == M(255u));
    return bitcast<TW>(r | (u & M(F32_SIGN)));
}

// frexp's two parts as floats: x = m 2^e with |m| in [0.5, 1), (x, 0) for ±0, ±inf and
// NaN. Built from the bits: a normal's exponent field replaced by 126 (e = field - 126), a
// subnormal's fraction first shifted so its leading one reaches bit 23 (e = -125 - shift),
// so that adapters flushing subnormal arithmetic (NVIDIA) split them too.
fn frexp_mant_32_(x: TW) -> TW {
    let u = bitcast<M>(x);
    let frac = u & M(0x7fffffu);
    let sub = (u & M(0x7f800000u)) == M(0u);
    let shift = select(M(0u), countLeadingZeros(frac) - M(8u), sub);
    let m = (u & M(F32_SIGN)) | M(0x3f000000u) | ((frac << shift) & M(0x7fffffu));
    return select(bitcast<TW>(m), x, is_zero_(x) | is_inf_(x) | is_nan_(x));
}

fn frexp_exp_32_(x: TW) -> TW {
    let u = bitcast<M>(x);
    let e = (u >> M(23u)) & M(0xffu);
    let sub = e == M(0u);
    let shift = select(M(0u), countLeadingZeros(u & M(0x7fffffu)) - M(8u), sub);
    let ex = select(bitcast<NI>(e) - NI(126), NI(-125) - bitcast<NI>(shift), sub);
    return select(TW(ex), TW(0.0), is_zero_(x) | is_inf_(x) | is_nan_(x));
}

// ldexp: x 2^n, n an integer held in a float (clamped to ±400: past that every finite
// non-zero x overflows or underflows). Built from the bits, so a subnormal input or result
// is exact (correctly rounded, half to even) also where the adapter flushes subnormal
// arithmetic: the significand (a subnormal normalised first) keeps its bits, the exponent
// moves by n, and a result below the normal range shifts the significand right with the
// rounding done on the shifted-out bits. ±0, ±inf and NaN are returned as they are.
fn ldexp_32_(x: TW, nf: TW) -> TW {
    let u = bitcast<M>(x);
    let e = (u >> M(23u)) & M(0xffu);
    let frac = u & M(0x7fffffu);
    let sub = e == M(0u);
    // A subnormal's leading one moves to bit 23 (its exponent is 1 - shift).
    let shift = select(M(0u), countLeadingZeros(frac) - M(8u), sub);
    let sig = (frac | select(M(0x800000u), M(0u), sub)) << shift;
    let ex = select(bitcast<NI>(e), NI(1) - bitcast<NI>(shift), sub);
    let ne = ex + NI(clamp(nf, TW(-400.0), TW(400.0)));
    let s = u & M(F32_SIGN);
    let normal = s | (bitcast<M>(ne) << M(23u)) | (sig & M(0x7fffffu));
    // Below the normal range: sig 2^(ne - 1) in units of the smallest subnormal.
    let sh = bitcast<M>(clamp(NI(1) - ne, NI(1), NI(31)));
    let q = sig >> sh;
    let rest = sig & ((M(1u) << sh) - M(1u));
    let half = M(1u) << (sh - M(1u));
    let up = (rest > half) | ((rest == half) & ((q & M(1u)) != M(0u)));
    let tiny = s | (q + select(M(0u), M(1u), up));
    let bits = select(select(tiny, normal, ne >= NI(1)), s | M(0x7f800000u), ne >= NI(255));
    return select(bitcast<TW>(bits), x, is_zero_(x) | is_inf_(x) | is_nan_(x));
}
