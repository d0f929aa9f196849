// Conversions of the 64-bit integers to f32, rounded once to nearest even (WGSL lets an
// integer convert to either neighbouring float). Included in i64 and u64 variants only.

// A u32 to f32: two exact 16-bit halves, summed once.
fn u32_to_f32_(t: u32) -> f32 {
    return f32(t - (t & 65535u)) + f32(t & 65535u);
}

// A u64 to f32: its top 32 bits with a sticky bit for the rest (which rounds as the whole
// value does, the rounding position being 8 bits above the sticky one), rounded once, then
// scaled by an exact power of two.
fn u64_to_f32_(m: u64) -> f32 {
    let hi = u32(m >> 32u);
    if (hi == 0u) {
        return u32_to_f32_(u32(m));
    }
    let s = 32u - countLeadingZeros(hi);
    let rest = m & ((1lu << s) - 1lu);
    let t = u32(m >> s) | select(0u, 1u, rest != 0lu);
    return u32_to_f32_(t) * bitcast<f32>((127u + s) << 23u);
}

// An i64 to f32: the magnitude's conversion with the sign (|i64::MIN| is 2^63 as a u64).
fn i64_to_f32_(a: i64) -> f32 {
    let m = select(u64(a), 0lu - u64(a), a < 0li);
    let r = u64_to_f32_(m);
    return select(r, -r, a < 0li);
}
