// (hi, lo) of the 64-bit product a * b as one 64-bit multiply (adapters with SHADER_INT64:
// a single wide multiply on NVIDIA, where shared/mulhilo.wgsl's 16-bit pieces take about 15
// integer operations).
fn mulhilo(a: u32, b: u32) -> vec2<u32> {
    let p = u64(a) * u64(b);
    return vec2<u32>(u32(p >> 32u), u32(p));
}
