// Standard normals by a ziggurat of 1024 layers (Marsaglia and Tsang, 2000), the same bits on
// every adapter: integer operations, f32 products and sums each rounded once (products that
// feed a sum multiplied by the runtime one f32(P.sc[2]) so that no compiler fuses them into
// an FMA), integers below 2^24 converted to f32, and -ln u from shared/rng_exact.wgsl. Used by
// generator.wgsl and random.wgsl, which bind `ztab` and `zlist` and provide
// private_block(c, t, e) (block t of the private stream of element e of block c). Mirrored
// step for step on the CPU in tests/common/rng_exact.rs.
//
// `ztab[i]` is layer i's (k_i, w_i) and `ztab[1024 + i]` its (F_i, DF_i), the floats as bits
// (src/ops/random/ziggurat.rs; the fast path reads 8 bytes): for layers 1..=1023
// (F_i, DF_i) = (f(x_i), f(x_(i+1)) - f(x_i)) with f(x) = exp(-x^2 / 2); for the base layer
// 0, (r, 1 / r).
//
// The fast path: an element's word w gives the layer i = w & 1023, the sign (bit 10) and
// j = w >> 11 (21 bits); j < k_i (99.57% of words) accepts z = j w_i, one f32 product. Else
// the slow path, from the element's private stream, block t for try t:
// - layer 0 (the tail beyond r): x = E1 / r (E1 = -ln u of word 0, times the f32 1 / r),
//   y = E2 (word 1); accept r + x when 2 y > x^2, else try again in the tail (same sign);
// - layers 1..=1023 (the wedge): z = j w_i, y = F_i + u DF_i (u from word 0's top 24 bits);
//   accept z when -ln(y) > z^2 / 2, with y (an f32 in (0, 1]) taken as u = q 2^-32,
//   q = floor(y 2^32) (exact for y >= 2^-9; y >= f(r) > 2^-10); else word 2 is a new
//   candidate, accepted at once when its j < k_i, or taken through the next try.
// After ZIG_TRIES tries the last candidate is returned: a try continues with probability
// below 0.053 (the tail's rejection rate at r = 4.04, 0.0525; a wedge try continues only when
// its new candidate misses the fast path too, below 0.005), so 16 tries all fail below 2^-67.

#import params
#import rng_exact

const ZIG_TRIES: u32 = 16u;
// Layers (a power of two), the sign's bit above the layer's, and where j starts (21 bits).
const ZIG_LAYERS: u32 = 1024u;
const ZIG_SIGN: u32 = 1024u;
const ZIG_J: u32 = 11u;

// z with the sign of word w's bit 10.
fn zig_signed(z: f32, w: u32) -> f32 { return select(z, -z, (w & ZIG_SIGN) != 0u); }

// The argument a of rx_neg_log for u = floor(y 2^32) 2^-32 (y in [2^-10, 1]; y >= 1 is u = 1).
fn zig_q32(y: f32) -> u32 {
    let b = bitcast<u32>(y);
    let m = (b & 0x7fffffu) | 0x800000u;
    let sh = i32(b >> 23u) - 118; // y 2^32 = m 2^sh
    let q = select(m >> u32(min(-sh, 31)), m << u32(max(sh, 0)), sh >= 0);
    return select(q - 1u, 0xffffffffu, y >= 1.0);
}

// The slow path of word w0 (its j >= k_i), element e of block c.
fn zig_slow(w0: u32, c: vec2<u32>, e: u32) -> f32 {
    let one = f32(P.sc[2]);
    var w = w0;
    var z = 0.0;
    for (var t = 0u; t < ZIG_TRIES; t++) {
        let b = private_block(c, t, e);
        let row = ztab[w & (ZIG_LAYERS - 1u)];
        let fdf = ztab[ZIG_LAYERS + (w & (ZIG_LAYERS - 1u))];
        if ((w & (ZIG_LAYERS - 1u)) == 0u) {
            let x = (exponential_exact(b.x) * bitcast<f32>(fdf.y)) * one;
            z = bitcast<f32>(fdf.x) + x;
            let y = exponential_exact(b.y);
            if (y + y > x * x) { break; }
        } else {
            z = f32(w >> ZIG_J) * bitcast<f32>(row.y);
            let u = f32(b.x >> 8u) * 5.9604644775390625e-8;
            let y = bitcast<f32>(fdf.x) + (u * bitcast<f32>(fdf.y)) * one;
            if (exponential_exact(zig_q32(y)) > (z * z) * 0.5) { break; }
            w = b.z;
            let next = ztab[w & (ZIG_LAYERS - 1u)];
            z = f32(w >> ZIG_J) * bitcast<f32>(next.y);
            if ((w >> ZIG_J) < next.x) { break; }
        }
    }
    return zig_signed(z, w);
}

// Deferral of the slow path, so that a warp does not wait on the ~0.43% of its lanes that
// miss the fast path: the first pass (zig_first) writes the fast values and appends each
// slow element's index to its workgroup's list, zlist[g (cap + 1) + 1 + s] for slot s < cap
// (cap from the host: 32 for 256 invocations of 4 elements), the count at zlist[g (cap + 1)],
// counted by a workgroup atomic (no global atomic, no subgroup operation; zeroed by a store
// and a barrier: pipelines are created without zero-initialised workgroup memory,
// kernel/cache.rs). The second pass (zig_second) packs ZIG_PACK groups' lists into one
// workgroup: its invocations take the lists' filled slots one each, in order (about 140 for
// 256 invocations), and finish their elements; a group whose count passed cap (about 1e-11
// of the groups at cap 32: 4.4 slow elements expected) instead contributes its elements, each finished where it misses the
// fast path. The first pass holds no slow path at all (adapters that run masked-off code,
// as lavapipe does, pay nothing for it). Every value depends on its element's own words, so
// the bits are the same whichever path computes them.
var<workgroup> zig_count: atomic<u32>;

// Lists a workgroup of the second pass takes.
const ZIG_PACK: u32 = 32u;
// Work of each of the workgroup's ZIG_PACK groups in the second pass: its count, or its
// elements where the count passed cap.
var<workgroup> zig_work: array<u32, ZIG_PACK>;

// Zeroes the workgroup's count (before zig_first; uniform control flow).
fn zig_group_start(l: u32) {
    if (l == 0u) { atomicStore(&zig_count, 0u); }
    workgroupBarrier();
}

// Stores the workgroup's count at zlist[base] where `live` (the group has elements; after
// every zig_first, uniform control flow).
fn zig_group_end(l: u32, base: u32, live: bool) {
    workgroupBarrier();
    if (l == 0u && live) { zlist[base] = atomicLoad(&zig_count); }
}

// Whether word w misses the fast path.
fn zig_misses(w: u32) -> bool { return (w >> ZIG_J) >= ztab[w & (ZIG_LAYERS - 1u)].x; }

// Element i (word w) in the first pass: the fast path's value, or 0 with i appended to the
// list at zlist[base + 1 + slot] (slot < cap) for the second pass.
fn zig_first(w: u32, i: u32, base: u32, cap: u32) -> f32 {
    let row = ztab[w & (ZIG_LAYERS - 1u)];
    let j = w >> ZIG_J;
    if (j < row.x) { return zig_signed(f32(j) * bitcast<f32>(row.y), w); }
    let s = atomicAdd(&zig_count, 1u);
    if (s < cap) { zlist[base + 1u + s] = i; }
    return 0.0;
}

// Workgroup q, invocation l of the second pass (cap slots a group, n elements, so
// ceil(n / (4 WG)) groups): finishes, by the kernel file's zig_finish(i), the elements of
// groups ZIG_PACK q .. ZIG_PACK q + ZIG_PACK - 1. The groups' work (a count, or where the
// list overflowed the group's elements) is laid end to end; item k of it is taken by
// invocation k % WG: the element in a list's slot, or element i of an overflowed group,
// finished where it misses the fast path (zig_word(i): element i's word). Uniform control
// flow (a barrier).
fn zig_second(q: u32, l: u32, cap: u32, n: u32) {
    let groups = (n - 1u) / (4u * WG) + 1u;
    if (l < ZIG_PACK) {
        let g = q * ZIG_PACK + l;
        var work = 0u;
        if (g < groups) {
            let count = zlist[g * (cap + 1u)];
            work = select(min(4u * WG * (g + 1u), n) - 4u * WG * g, count, count <= cap);
        }
        zig_work[l] = work;
    }
    workgroupBarrier();
    var total = 0u;
    for (var h = 0u; h < ZIG_PACK; h++) { total += zig_work[h]; }
    for (var k = l; k < total; k += WG) {
        var h = 0u;
        var s = k;
        while (s >= zig_work[h]) {
            s -= zig_work[h];
            h++;
        }
        let g = q * ZIG_PACK + h;
        if (zig_work[h] <= cap) {
            zig_finish(zlist[g * (cap + 1u) + 1u + s]);
        } else if (zig_misses(zig_word(4u * WG * g + s))) {
            zig_finish(4u * WG * g + s);
        }
    }
}
