// Distributions family: Generator draws by inversion or rejection, computed in f32:
// poisson, binomial (S = i32), gamma and beta (S = f16, f32, f64). Host side:
// src/ops/random/distributions.rs; the streams are those of shared/rng_stream.wgsl.
//
// Bindings: 0 params (farg(0), farg(1): the distribution's parameters; int_args().x the
// binomial's n); 4 the output as vec4 of S, rounded up to whole blocks by the host.
// Dispatch: a 1-D grid folded into 2-D; invocation j makes the four elements of block j of
// the draw and stores them with one vec4 store. Element e starts from word e of block j and
// takes what more it needs from its own private stream (block t of it for try t), so its
// value depends on nothing but the key, its counter and the parameters, whatever the other
// elements' loops do. Every loop is bounded (see each function).

alias S = f32; // element type of the output
alias SC = f32; // carrier of scalar arguments (always f32 or f64 here)

override WG: u32 = 256u;

@group(0) @binding(4) var<storage, read_write> out4: array<vec4<S>>;

const LN_SQRT_2PI: f32 = 0.9189385332046727;

// log(k!) for k < 10.
const LOG_FACT: array<f32, 10> = array<f32, 10>(0.0, 0.0, 0.6931471805599453,
    1.791759469228055, 3.1780538303479458, 4.787491742782046, 6.579251212010101,
    8.525161361065415, 10.60460290274525, 12.801827480081469);

// log P(X = k) of a Poisson of mean lam (>= 10 here). For k >= 10 Stirling's series around
// k, written as d - k log1p(d / lam) with d = k - lam so that f32 keeps its digits for large
// lam (the naive -lam + k log(lam) - log(k!) cancels to nothing).
fn poisson_log_pmf(k: f32, lam: f32) -> f32 {
    if (k < 10.0) {
        return -lam + k * log(lam) - LOG_FACT[u32(k)];
    }
    let d = k - lam;
    let ik = 1.0 / k;
    let corr = ik * (1.0 / 12.0 - ik * ik * (1.0 / 360.0 - ik * ik / 1260.0));
    return d - k * log1p_f32(d / lam) - 0.5 * log(k) - LN_SQRT_2PI - corr;
}

// Poisson(lam): inversion by sequential search for lam < 10 from the element's word (stops
// where the remaining mass is below f32's resolution: at most about 60 steps); Hormann's
// PTRS (transformed rejection with squeeze, 1993) for lam >= 10, try t from private block t
// (acceptance above 0.85 per try; the loop stops after 256 tries, never reached in practice).
fn poisson(lam: f32, w: u32, c: vec2<u32>, e: u32) -> i32 {
    if (lam < 10.0) {
        let u = u01(w);
        var p = exp(-lam);
        var s = p;
        var k = 0;
        while (u >= s && p > s * 5.9604644775390625e-8) {
            k += 1;
            p *= lam / f32(k);
            s += p;
        }
        return k;
    }
    let slam = sqrt(lam);
    let b = 0.931 + 2.53 * slam;
    let a = -0.059 + 0.02483 * b;
    let inv_alpha = 1.1239 + 1.1328 / (b - 3.4);
    let vr = 0.9277 - 3.6224 / (b - 2.0);
    var k = 0.0;
    for (var t = 0u; t < 256u; t++) {
        let r = private_block(c, t, e);
        let u = u01(r.x) - 0.5;
        let v = u01_open(r.y);
        let us = 0.5 - abs(u);
        k = floor((2.0 * a / us + b) * u + lam + 0.43);
        if (us >= 0.07 && v <= vr) { break; }
        if (k < 0.0 || (us < 0.013 && v > us)) { continue; }
        if (log(v) + log(inv_alpha) - log(a / (us * us) + b) <= poisson_log_pmf(k, lam)) {
            break;
        }
    }
    return i32(k);
}

// Stirling's correction of log Gamma(y): log Gamma(y) - ((y - 0.5) log y - y + log sqrt(2 pi)).
fn stirling_tail(y: f32) -> f32 {
    let iy = 1.0 / y;
    return iy * (1.0 / 12.0 - iy * iy * (1.0 / 360.0 - iy * iy / 1260.0));
}

// log f(k) - log f(m) of Binomial(n, q), from Stirling's series written so that f32 keeps its
// digits for large n: with d = k - m, -(m + 1/2) log1p(d / (m + 1)) - (n - m + 1/2)
// log1p(-d / (n - m + 1)) + d log1p(r1) plus the four corrections, where 1 + r1 = (n - k + 1) q
// / ((k + 1)(1 - q)), r1's numerator n q + 2 q - 1 - k (the terms of size n cancel on paper,
// not in f32, and log near 1 has an absolute error of 2^-21 in WGSL).
fn binomial_log_ratio(k: f32, m: f32, n: f32, q: f32) -> f32 {
    let d = k - m;
    let r1 = (n * q + 2.0 * q - 1.0 - k) / ((k + 1.0) * (1.0 - q));
    return -(m + 0.5) * log1p_f32(d / (m + 1.0)) - (n - m + 0.5) * log1p_f32(-d / (n - m + 1.0))
        + d * log1p_f32(r1) + stirling_tail(m + 1.0) - stirling_tail(k + 1.0)
        + stirling_tail(n - m + 1.0) - stirling_tail(n - k + 1.0);
}

// Binomial(n, q) for q <= 1/2 and n q >= 10 by Hormann's transformed rejection with squeeze
// (BTRS, 1993): try t from the element's private block t (acceptance above 0.8 per try; the
// loop stops after 256 tries).
fn binomial_btrs(n: f32, q: f32, c: vec2<u32>, e: u32) -> f32 {
    let spq = sqrt(n * q * (1.0 - q));
    let b = 1.15 + 2.53 * spq;
    let a = -0.0873 + 0.0248 * b + 0.01 * q;
    let alpha = (2.83 + 5.1 / b) * spq;
    let vr = 0.92 - 4.2 / b;
    let m = floor((n + 1.0) * q);
    var k = m;
    for (var t = 0u; t < 256u; t++) {
        let r = private_block(c, t, e);
        let u = u01(r.x) - 0.5;
        let us = 0.5 - abs(u);
        let v = u01_open(r.y);
        k = floor((2.0 * a / us + b) * u + n * q + 0.5);
        if (k < 0.0 || k > n) { continue; }
        if (us >= 0.07 && v <= vr) { break; }
        if (log(v * alpha / (a / (us * us) + b)) <= binomial_log_ratio(k, m, n, q)) { break; }
    }
    return k;
}

// Binomial(n, p), with q = min(p, 1 - p) (n - X when p > 1/2): BTRS for n q >= 10; below,
// by counting geometric gaps between successes, about n q + 1 steps (each gap at least 1, so
// at most n + 1), the first from the element's word, the next from its private stream.
fn binomial(n: u32, p: f32, w: u32, c: vec2<u32>, e: u32) -> i32 {
    let flip = p > 0.5;
    let q = select(p, 1.0 - p, flip);
    var x = 0u;
    if (f32(n) * q >= 10.0) {
        x = u32(binomial_btrs(f32(n), q, c, e));
    } else if (q > 0.0) {
        let lq = log1p_f32(-q);
        var pos = 0u;
        var word = w;
        for (var i = 0u; i <= n; i++) {
            if (i > 0u) { word = private_block(c, (i - 1u) / 4u, e)[(i - 1u) % 4u]; }
            let gap = floor(log(u01_open(word)) / lq) + 1.0;
            if (gap > f32(n - pos)) { break; }
            pos += u32(gap);
            x += 1u;
        }
    }
    return i32(select(x, n - x, flip));
}

// Gamma(a, 1) by Marsaglia and Tsang (2000), boosted for a < 1 by U^(1/a). Try t uses block
// s + t of the element's private stream (a normal from words 0 and 1, the uniform from word
// 2; word 3 of the accepted block is the boost's uniform). Acceptance is above 0.95 per try;
// the loop stops after 256 tries.
fn gamma(a: f32, s: u32, c: vec2<u32>, e: u32) -> f32 {
    let boost = a < 1.0;
    let d = select(a, a + 1.0, boost) - 1.0 / 3.0;
    let cc = 1.0 / sqrt(9.0 * d);
    var v = 1.0;
    var r = vec4<u32>(0u);
    for (var t = 0u; t < 256u; t++) {
        r = private_block(c, s + t, e);
        let z = normal_pair(r.x, r.y).x;
        let y = 1.0 + cc * z;
        if (y <= 0.0) { continue; }
        v = y * y * y;
        let u = u01(r.z);
        let z2 = z * z;
        if (u < 1.0 - 0.0331 * z2 * z2 || log(u) < 0.5 * z2 + d * (1.0 - v + log(v))) { break; }
    }
    var g = d * v;
    if (boost) { g *= pow(u01_open(r.w), 1.0 / a); }
    return g;
}

@compute @workgroup_size(WG)
fn gen_poisson(@builtin(workgroup_id) wid: vec3<u32>, @builtin(num_workgroups) nw: vec3<u32>,
               @builtin(local_invocation_index) l: u32) {
    let j = linear_id(wid, nw, l, WG);
    if (j >= P.n) { return; }
    let c = counter(j);
    let w = plain(c);
    let lam = farg(0u);
    out4[j] = vec4<S>(vec4<i32>(poisson(lam, w.x, c, 0u), poisson(lam, w.y, c, 1u),
                                poisson(lam, w.z, c, 2u), poisson(lam, w.w, c, 3u)));
}

@compute @workgroup_size(WG)
fn gen_binomial(@builtin(workgroup_id) wid: vec3<u32>, @builtin(num_workgroups) nw: vec3<u32>,
                @builtin(local_invocation_index) l: u32) {
    let j = linear_id(wid, nw, l, WG);
    if (j >= P.n) { return; }
    let c = counter(j);
    let w = plain(c);
    let n = int_args().x;
    let p = farg(0u);
    out4[j] = vec4<S>(vec4<i32>(binomial(n, p, w.x, c, 0u), binomial(n, p, w.y, c, 1u),
                                binomial(n, p, w.z, c, 2u), binomial(n, p, w.w, c, 3u)));
}

// Gamma(farg(0)) times farg(1) (the scale).
@compute @workgroup_size(WG)
fn gen_gamma(@builtin(workgroup_id) wid: vec3<u32>, @builtin(num_workgroups) nw: vec3<u32>,
             @builtin(local_invocation_index) l: u32) {
    let j = linear_id(wid, nw, l, WG);
    if (j >= P.n) { return; }
    let c = counter(j);
    let a = farg(0u);
    let g = vec4<f32>(gamma(a, 0u, c, 0u), gamma(a, 0u, c, 1u), gamma(a, 0u, c, 2u),
                      gamma(a, 0u, c, 3u));
    out4[j] = vec4<S>(g * farg(1u));
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
        let x = gamma(farg(0u), 0u, c, e);
        let y = gamma(farg(1u), 0x80000000u, c, e);
        r[e] = x / (x + y);
    }
    out4[j] = vec4<S>(r);
}
