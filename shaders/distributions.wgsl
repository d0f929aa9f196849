// Distributions family: Generator draws by table inversion (poisson, binomial: S = i32) or
// rejection (gamma and beta: S = f16, f32, f64, computed in f32), the same bits on every
// adapter (transcendental steps in integers, see each function). Host side:
// src/ops/random/distributions.rs; the streams are those of shared/rng_stream.wgsl.
//
// Bindings: 0 params (int_args() and flag(): the inversion table's k0, threshold count and
// guide bits; farg(0): gamma's scale; farg(2) = 1); 1 `table`: the inversion table, or the
// gamma parameters (4 words a shape, see gamma_at); 4 the output as vec4 of S, rounded up to
// whole blocks by the host.
// Dispatch: a 1-D grid folded into 2-D; invocation j makes the four elements of block j of
// the draw and stores them with one vec4 store. Element e starts from word e of block j and
// takes what more it needs from its own private stream (block t of it for try t), so its
// value depends on nothing but the key, its counter and the parameters, whatever the other
// elements' loops do. Every loop is bounded (see each function).

#import params
#import philox
#import rng_exact
#import rng_stream

alias S = f32; // element type of the output
alias SC = f32; // carrier of scalar arguments (always f32 or f64 here)

override WG: u32 = 256u;

@group(0) @binding(1) var<storage, read> table: array<u32>;
@group(0) @binding(4) var<storage, read_write> out4: array<vec4<S>>;

// f32 values as S (the host replaces this line for f16: rounded to nearest even in integers,
// see shared/rng_exact.wgsl's f16_round; f64 takes them exactly).
fn to_s4(v: vec4<f32>) -> vec4<S> { return vec4<S>(v); }

// Inversion of an integer distribution by a table of its cumulative probabilities in Q32
// (built by the host in f64 and rounded: poisson, binomial), with a guide table (Chen and
// Asau, 1974): table[0 .. 2^g) holds, for each bucket b of words w >> (32 - g), how many
// thresholds lie at or below b 2^(32 - g), with bit 31 set where none lies inside the
// bucket; table[2^g + i] is threshold i (non-decreasing, nthr of them). The value is k0 +
// the number of thresholds at or below w, the word compared in integers: the same on every
// adapter. Only words in a bucket with a threshold inside scan (bounded by nthr): at most
// 1/8 of the buckets while the guide has 2^16 words or fewer (1/2 beyond), so about one
// table read per element.
fn inversion(w: u32) -> i32 {
    let a = int_args(); // (k0, nthr)
    let g = flag();
    let guide = table[(w >> 1u) >> (31u - g)];
    var i = guide & 0x7fffffffu;
    if (guide < 0x80000000u) {
        let base = 1u << g;
        while (i < a.y && table[base + i] <= w) { i += 1u; }
    }
    return i32(a.x + i);
}

// ln v for a normal f32 v > 0, the same on every adapter: v = (M / 2) 2^e with M / 2 in
// [1/2, 1), -ln(M / 2) from rx_neg_log of its 24 bits (M / 2 = (x + 1) 2^-32 exactly), then
// e ln 2 - (-ln(M / 2)) in f32, each step rounded once (the product times one(), farg(2),
// so that no compiler fuses it with the difference).
fn ln_exact(v: f32) -> f32 {
    let b = bitcast<u32>(v);
    let l = rx_neg_log((((b & 0x7fffffu) | 0x800000u) << 8u) - 1u);
    let e = f32(i32(b >> 23u) - 126);
    return (e * 0.6931471805599453) * farg(2u) - rx_f32(l.x, bitcast<i32>(l.y) - 32, false);
}

// Gamma(a, 1) by Marsaglia and Tsang (2000) for a >= 1, from d = a - 1/3 and cc = 1 /
// sqrt(9 d) (both f32): the bits of d v and the accepted block's word 3 (for the boost
// U^(1/a) of a < 1, where the caller passes a + 1's d and cc). Try t uses block s + t
// of the element's private stream: the normal z of words 0 and 1 (integer, shared/
// rng_exact.wgsl), u = ((word 2 >> 8) + 1) 2^-24 with ln u from the same integer -ln; every
// f32 operation rounded once (products times one(), which no compiler fuses into an FMA
// with the sums), so the same bits on every adapter. Acceptance is above 0.95 per try; the
// loop stops after 256 tries.
fn gamma(d: f32, cc: f32, s: u32, c: vec2<u32>, e: u32) -> vec2<u32> {
    let one = farg(2u);
    var v = 1.0;
    var r = vec4<u32>(0u);
    for (var t = 0u; t < 256u; t++) {
        r = private_block(c, s + t, e);
        let z = normal_pair(r.x, r.y).x;
        let y = 1.0 + (cc * z) * one;
        if (y <= 0.0) { continue; }
        v = y * y * y;
        let u = u01_open(r.z);
        let z2 = z * z;
        if (u < 1.0 - ((0.0331 * z2) * z2) * one) { break; }
        let lnu = -exponential_exact(r.z | 0xffu);
        if (lnu < (0.5 * z2) * one + (d * ((1.0 - v) + ln_exact(v))) * one) { break; }
    }
    return vec2<u32>(bitcast<u32>(d * v), r.w);
}

// One table inversion per element, from its word.
@compute @workgroup_size(WG)
fn gen_inversion(@builtin(workgroup_id) wid: vec3<u32>, @builtin(num_workgroups) nw: vec3<u32>,
                 @builtin(local_invocation_index) l: u32) {
    let j = linear_id(wid, nw, l, WG);
    if (j >= P.n) { return; }
    let w = plain(counter(j));
    out4[j] = vec4<S>(vec4<i32>(inversion(w.x), inversion(w.y), inversion(w.z), inversion(w.w)));
}

// U^(1/k) = 2^-(L (1/k) log2 e) for U = (w + 1) 2^-32 and L = -ln U (rx_neg_log), 1/k an
// f32 >= 1: Y = L (1/k) log2 e from two 32-bit products (Y = q 2^sh), n = floor(Y) and f =
// Y - n in Q32, 2^-f by a degree-8 polynomial (least squares, Q31, 2^-28.5 relative), as
// f32 times 2^-n; 0 where that falls below f32's normal range. Within 2^-24 (Y + 1)
// relative of U^(1/k) (tests/random_exact.rs checks it; Y's fixed-point error grows with Y).
fn boost(w: u32, inv_k: f32) -> f32 {
    let l = rx_neg_log(w);
    if (l.x == 0u) { return 1.0; }
    let ib = bitcast<u32>(inv_k);
    let q = rx_mulhi(rx_mulhi(l.x, ((ib & 0x7fffffu) | 0x800000u) << 8u), 3098164009u);
    let sh = bitcast<i32>(l.y) + i32(ib >> 23u) - 157;
    if (sh >= 0) { return 0.0; }
    let r = u32(-sh);
    var n = 0u;
    var f = 0u;
    if (r < 32u) {
        n = q >> r;
        f = q << (32u - r);
    } else if (r < 64u) {
        f = q >> (r - 32u);
    }
    if (n >= 126u) { return 0.0; }
    var p = 2000u;
    p = 31248u - rx_mulhi(f, p);
    p = 329276u - rx_mulhi(f, p);
    p = 2862460u - rx_mulhi(f, p);
    p = 20654457u - rx_mulhi(f, p);
    p = 119194102u - rx_mulhi(f, p);
    p = 515882489u - rx_mulhi(f, p);
    p = 1488522236u - rx_mulhi(f, p);
    p = 2147483648u - rx_mulhi(f, p);
    return rx_f32(p, -i32(n) - 31, false);
}

// Gamma of the shape whose parameters are table[o .. o + 4): d and cc of gamma() as f32 bits,
// 1 / k as f32 bits and 1 where k < 1 (then boosted: d and cc are k + 1's).
fn gamma_at(o: u32, s: u32, c: vec2<u32>, e: u32) -> f32 {
    let x = gamma(bitcast<f32>(table[o]), bitcast<f32>(table[o + 1u]), s, c, e);
    let g = bitcast<f32>(x.x);
    if (table[o + 3u] == 1u) { return g * boost(x.y, bitcast<f32>(table[o + 2u])); }
    return g;
}

// x / s correctly rounded (as IEEE prescribes; WGSL's division may be off by 2.5 ulps) for
// normal f32 0 < x <= s, in integers: 31 bits of the mantissas' quotient by four divisions
// (8, 8, 8 and 7 bits), the remainder's sticky bit in the last, rounded by rx_f32. A zero
// or subnormal x gives 0, s = 0 NaN, a result below f32's normal range 0.
fn div_exact(x: f32, s: f32) -> f32 {
    let bx = bitcast<u32>(x);
    let bs = bitcast<u32>(s);
    if ((bs >> 23u) == 0u) { return bitcast<f32>(0x7fc00000u); }
    if ((bx >> 23u) == 0u) { return 0.0; }
    let ms = (bs & 0x7fffffu) | 0x800000u;
    var r = (bx & 0x7fffffu) | 0x800000u;
    var q = 0u;
    for (var k = 0u; k < 4u; k++) {
        let b = select(8u, 7u, k == 3u);
        r = r << b;
        q = (q << b) | (r / ms);
        r = r % ms;
    }
    q = q | select(0u, 1u, r != 0u);
    let e = i32(bx >> 23u) - i32(bs >> 23u) - 31;
    if (e + 31 - i32(countLeadingZeros(q)) < -126) { return 0.0; }
    return rx_f32(q, e, false);
}

// Gamma of the shape in table[0 .. 4) (see gamma_at) times farg(0) (the scale).
@compute @workgroup_size(WG)
fn gen_gamma(@builtin(workgroup_id) wid: vec3<u32>, @builtin(num_workgroups) nw: vec3<u32>,
             @builtin(local_invocation_index) l: u32) {
    let j = linear_id(wid, nw, l, WG);
    if (j >= P.n) { return; }
    let c = counter(j);
    let g = vec4<f32>(gamma_at(0u, 0u, c, 0u), gamma_at(0u, 0u, c, 1u), gamma_at(0u, 0u, c, 2u),
                      gamma_at(0u, 0u, c, 3u));
    out4[j] = to_s4(g * farg(0u));
}

// Beta(a, b) as X / (X + Y) of two gammas, their parameters in table[0 .. 4) and
// table[4 .. 8): X from private blocks 0, 1, ... and Y from blocks 2^31, 2^31 + 1, ...
@compute @workgroup_size(WG)
fn gen_beta(@builtin(workgroup_id) wid: vec3<u32>, @builtin(num_workgroups) nw: vec3<u32>,
            @builtin(local_invocation_index) l: u32) {
    let j = linear_id(wid, nw, l, WG);
    if (j >= P.n) { return; }
    let c = counter(j);
    var r = vec4<f32>(0.0);
    for (var e = 0u; e < 4u; e++) {
        let x = gamma_at(0u, 0u, c, e);
        let y = gamma_at(4u, 0x80000000u, c, e);
        r[e] = div_exact(x, x + y);
    }
    out4[j] = to_s4(r);
}
