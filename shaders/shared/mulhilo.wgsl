// (hi, lo) of the 64-bit product a * b from 32-bit arithmetic (adapters without
// SHADER_INT64; shared/mulhilo64.wgsl elsewhere). a = a1 2^16 + a0 and b likewise: the
// partial sums t = a0 b1 + (a0 b0 >> 16) and u = a1 b0 + (t & 0xffff) stay below 2^32, so
// no carry is lost.
fn mulhilo(a: u32, b: u32) -> vec2<u32> {
    let a0 = a & 0xffffu;
    let a1 = a >> 16u;
    let b0 = b & 0xffffu;
    let b1 = b >> 16u;
    let t = a0 * b1 + ((a0 * b0) >> 16u);
    let u = a1 * b0 + (t & 0xffffu);
    return vec2<u32>(a1 * b1 + (t >> 16u) + (u >> 16u), a * b);
}
