// Order-preserving u32 key words of each sortable dtype, read as raw words (NumPy's order:
// -0 and +0 equal, every NaN equal and after +inf), so no kernel needs f16 or f64
// arithmetic. Imported by the sort family (shaders/sort.wgsl) and the select family
// (shaders/radix_select.wgsl).

// The key words of one element (x: low word, y: high word or 0).
fn key_u32(x: u32) -> vec2<u32> { return vec2<u32>(x, 0u); }
fn key_i32(x: u32) -> vec2<u32> { return vec2<u32>(x ^ 0x80000000u, 0u); }
// (Selects, not branches: the radix passes take a key per step of straight-line code.)
fn key_f32(x: u32) -> vec2<u32> {
    var k = select(x | 0x80000000u, ~x, (x & 0x80000000u) != 0u);
    k = select(k, 0x80000000u, x == 0x80000000u);
    return vec2<u32>(select(k, 0xffffffffu, (x & 0x7fffffffu) > 0x7f800000u), 0u);
}
fn key_f16(h: u32) -> vec2<u32> {
    var k = select(h | 0x8000u, ~h & 0xffffu, (h & 0x8000u) != 0u);
    k = select(k, 0x8000u, h == 0x8000u);
    return vec2<u32>(select(k, 0xffffu, (h & 0x7fffu) > 0x7c00u), 0u);
}
// The 64-bit integers: the words themselves (the signed high word's sign bit flipped).
fn key_u64(lo: u32, hi: u32) -> vec2<u32> { return vec2<u32>(lo, hi); }
fn key_i64(lo: u32, hi: u32) -> vec2<u32> { return vec2<u32>(lo, hi ^ 0x80000000u); }
fn key_f64(lo: u32, hi: u32) -> vec2<u32> {
    let mag = hi & 0x7fffffffu;
    if (mag > 0x7ff00000u || (mag == 0x7ff00000u && lo != 0u)) {
        return vec2<u32>(0xffffffffu, 0xffffffffu);
    }
    if (hi == 0x80000000u && lo == 0u) { return vec2<u32>(0u, 0x80000000u); }
    if ((hi & 0x80000000u) != 0u) { return vec2<u32>(~lo, ~hi); }
    return vec2<u32>(lo, hi | 0x80000000u);
}
