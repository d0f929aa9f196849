// Philox4x32-10 (Salmon et al., SC'11; Random123's philox4x32 with 10 rounds), shared by
// random.wgsl and generator.wgsl. Mirrored on the CPU in tests/random.rs. Its products come
// from shared/mulhilo.wgsl, which the host replaces by shared/mulhilo64.wgsl where the
// adapter has SHADER_INT64 (`random::products`); both give the same words.

#import mulhilo

fn philox(counter: vec4<u32>, key: vec2<u32>) -> vec4<u32> {
    var c = counter;
    var k = key;
    for (var r = 0u; r < 10u; r++) {
        let p0 = mulhilo(0xD2511F53u, c.x);
        let p1 = mulhilo(0xCD9E8D57u, c.z);
        c = vec4<u32>(p1.x ^ c.y ^ k.x, p1.y, p0.x ^ c.w ^ k.y, p0.y);
        k = k + vec2<u32>(0x9E3779B9u, 0xBB67AE85u);
    }
    return c;
}
