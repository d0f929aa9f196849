// Lemire's method over 64-bit words: the Generator's i64 and u64 integers
// (shaders/generator.wgsl's `integers2`, replaced in those variants only, which import
// this file: it needs SHADER_INT64). The draw's low end and range come in P.shape[0] as
// (low end's low word, its high word, range's low word, its high word), a range of 0
// meaning 2^64 (the whole range), filled by `GenParams::encode` (src/ops/random/generator.rs).

fn wide_args() -> vec4<u32> { return P.shape[0]; }
fn u64_of(lo: u32, hi: u32) -> u64 { return u64(lo) | (u64(hi) << 32u); }

// (high, low) 64-bit halves of the 128-bit product a * b, from four 32 x 32-bit products.
fn mul_128(a: u64, b: u64) -> vec2<u64> {
    let m = 0xfffffffflu;
    let a0 = a & m;
    let a1 = a >> 32u;
    let b0 = b & m;
    let b1 = b >> 32u;
    let p00 = a0 * b0;
    let p01 = a0 * b1;
    let p10 = a1 * b0;
    let mid = (p00 >> 32u) + (p01 & m) + (p10 & m);
    let hi = a1 * b1 + (p01 >> 32u) + (p10 >> 32u) + (mid >> 32u);
    return vec2<u64>(hi, (mid << 32u) | (p00 & m));
}

// x in [0, r) as the high half of x * r, unbiased: the low halves below 2^64 mod r are
// rejected and x redrawn from words 0 and 1 of element e's private blocks 0, 1, ... (each
// redraw rejected with probability below r / 2^64 <= 1/2; at most 64).
fn bounded64(x: u64, r: u64, c: vec2<u32>, e: u32) -> u64 {
    if (r == 0lu) { return x; }
    var m = mul_128(x, r);
    if (m.y < r) {
        let t = (0lu - r) % r;
        for (var k = 0u; k < 64u && m.y < t; k++) {
            let w = private_block(c, k, e);
            m = mul_128(u64_of(w.x, w.y), r);
        }
    }
    return m.x;
}

// The two elements of block c (words w): low end + bounded, from words (0, 1) and (2, 3).
fn lemire2(c: vec2<u32>, w: vec4<u32>) -> vec2<u64> {
    let a = wide_args();
    let low = u64_of(a.x, a.y);
    let r = u64_of(a.z, a.w);
    return vec2<u64>(low + bounded64(u64_of(w.x, w.y), r, c, 0u),
                     low + bounded64(u64_of(w.z, w.w), r, c, 1u));
}
