// The Generator's streams, shared by generator.wgsl and distributions.wgsl, over
// shared/philox.wgsl. Mirrors `GenParams` in
// src/ops/random/generator.rs, whose `encode` is the only code that fills these slots: P.n
// the Philox blocks of the draw (one invocation each), P.aux the key, P.offs.xy the 64-bit
// counter of the draw's first block, P.offs.zw two integer arguments, P.ndim a flag, P.sc
// the float arguments (P.sc[2] is always 1: see `affine4` in generator.wgsl).
//
// Block j of a draw is the counter (c, 0, 0) with c = first block + j as 64 bits in words 0
// and 1: its word e is element e of the block's elements. Element e of block c continues,
// when it needs more randomness (rejection loops), in its private stream: block t of it is
// the counter (c, t, 1 + e). Two draws never share a counter c.

#import params
#import philox

fn key() -> vec2<u32> { return P.aux; }
fn int_args() -> vec2<u32> { return P.offs.zw; }
fn flag() -> u32 { return P.ndim; }
fn farg(k: u32) -> f32 { return f32(P.sc[k]); }

// The 64-bit counter of block j of the draw, (low, high).
fn counter(j: u32) -> vec2<u32> {
    let lo = P.offs.x + j;
    return vec2<u32>(lo, P.offs.y + select(0u, 1u, lo < j));
}

// The four words of block c.
fn plain(c: vec2<u32>) -> vec4<u32> {
    return philox(vec4<u32>(c.x, c.y, 0u, 0u), key());
}

// Block t of the private stream of element e of block c.
fn private_block(c: vec2<u32>, t: u32, e: u32) -> vec4<u32> {
    return philox(vec4<u32>(c.x, c.y, t, 1u + e), key());
}

// A word's top 24 bits as a uniform in [0, 1), and in (0, 1].
fn u01(w: u32) -> f32 { return f32(w >> 8u) * 5.9604644775390625e-8; }
fn u01_open(w: u32) -> f32 { return f32((w >> 8u) + 1u) * 5.9604644775390625e-8; }
