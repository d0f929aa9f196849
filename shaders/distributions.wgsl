// Distributions family: Generator draws by table inversion (poisson, binomial: S = i32) or
// rejection (gamma and beta: S = f16, f32, f64, computed in f32). Host side:
// src/ops/random/distributions.rs; the streams are those of shared/rng_stream.wgsl.
//
// Bindings: 0 params (farg(0), farg(1): gamma's and beta's parameters; int_args() and
// flag(): the inversion table's k0, threshold count and guide bits); 1 the inversion table
// (gen_inversion only); 4 the output as vec4 of S, rounded up to whole blocks by the host.
// Dispatch: a 1-D grid folded into 2-D; invocation j makes the four elements of block j of
// the draw and stores them with one vec4 store. Element e starts from word e of block j and
// takes what more it needs from its own private stream (block t of it for try t), so its
// value depends on nothing but the key, its counter and the parameters, whatever the other
// elements' loops do. Every loop is bounded (see each function).

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
// sqrt(9 d) (both f32): d v and the accepted block's word 3 as a uniform in (0, 1] (for the
// boost U^(1/a) of a < 1, where the caller passes a + 1's d and cc). Try t uses block s + t
// of the element's private stream: the normal z of words 0 and 1 (integer, shared/
// rng_exact.wgsl), u = ((word 2 >> 8) + 1) 2^-24 with ln u from the same integer -ln; every
// f32 operation rounded once (products times one(), which no compiler fuses into an FMA
// with the sums), so the same bits on every adapter. Acceptance is above 0.95 per try; the
// loop stops after 256 tries.
fn gamma(d: f32, cc: f32, s: u32, c: vec2<u32>, e: u32) -> vec2<f32> {
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
    return vec2<f32>(d * v, u01_open(r.w));
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

// Gamma of shape a times farg(0) (the scale), with d and cc of gamma() as f32 bits in
// int_args() (the host computes them: WGSL's sqrt and division are not correctly rounded),
// and for a < 1 (flag() 1) the boost U^(1/a) with 1 / a = farg(1), by the adapter's pow.
@compute @workgroup_size(WG)
fn gen_gamma(@builtin(workgroup_id) wid: vec3<u32>, @builtin(num_workgroups) nw: vec3<u32>,
             @builtin(local_invocation_index) l: u32) {
    let j = linear_id(wid, nw, l, WG);
    if (j >= P.n) { return; }
    let c = counter(j);
    let dc = bitcast<vec2<f32>>(int_args());
    var g = vec4<f32>(0.0);
    for (var e = 0u; e < 4u; e++) {
        let x = gamma(dc.x, dc.y, 0u, c, e);
        g[e] = select(x.x, x.x * pow(x.y, farg(1u)), flag() == 1u);
    }
    out4[j] = to_s4(g * farg(0u));
}

// Gamma(a, 1) for any a > 0 with d and cc computed here (beta's two shapes).
fn gamma_any(a: f32, s: u32, c: vec2<u32>, e: u32) -> f32 {
    let boost = a < 1.0;
    let d = select(a, a + 1.0, boost) - 1.0 / 3.0;
    let x = gamma(d, 1.0 / sqrt(9.0 * d), s, c, e);
    return select(x.x, x.x * pow(x.y, 1.0 / a), boost);
}

// Beta(farg(0), farg(1)) as X / (X + Y) of two gammas: X from private blocks 0, 1, ... and Y
// from blocks 2^31, 2^31 + 1, ...
@compute @workgroup_size(WG)
fn gen_beta(@builtin(workgroup_id) wid: vec3<u32>, @builtin(num_workgroups) nw: vec3<u32>,
            @builtin(local_invocation_index) l: u32) {
    let j = linear_id(wid, nw, l, WG);
    if (j >= P.n) { return; }
    let c = counter(j);
    var r = vec4<f32>(0.0);
    for (var e = 0u; e < 4u; e++) {
        let x = gamma_any(farg(0u), 0u, c, e);
        let y = gamma_any(farg(1u), 0x80000000u, c, e);
        r[e] = x / (x + y);
    }
    out4[j] = to_s4(r);
}
