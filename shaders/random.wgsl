// Random family: counter-based generation with Philox4x32-10, the same numbers on every adapter.
//
// Philox4x32-10 itself is in shared/philox.wgsl (also used by generator.wgsl).
//
// Bindings: 0 params (uniform, dynamic offset, see shared/params.wgsl); 1 `ztab`, the
// ziggurat's table, and 2 `zlist`, the deferred elements' lists (rand_normal and
// rand_normal_slow, see shared/ziggurat.wgsl); 4 the output.
// Dispatch: a 1-D grid folded into 2-D; invocation j computes Philox block j (counter
// (j, 0, 0, 0), key = the 64-bit seed()) and writes the elements that the block's four
// words make: 4 per block for f16/f32 uniforms and for normals (element e by the ziggurat
// from word e), 2 for f64 uniforms (53 bits from two words);
// `rand_uniform` reads that count from per_block(). rand_normal defers its slow elements
// to rand_normal_slow, whose workgroup q (1-D grid folded into 2-D, ceil(groups / 16)
// workgroups) finishes those of rand_normal's workgroups 16 q .. 16 q + 15 (zig_cap()
// slots a workgroup, zig_n() elements; see shared/ziggurat.wgsl's zig_second).
// P.n counts elements (the invocations in rand_normal_slow); arg 0 is the low end and arg 1 the width
// (uniform) or the mean and the standard deviation (normal); arg 2 is 1.

#import params
#import philox
#import rng_exact
#import ziggurat

alias S = f32; // element type of the output
alias SC = f32; // carrier of scalar arguments: S, or f32 when S is f16

override WG: u32 = 256u;
const PER: u32 = 4u;

@group(0) @binding(1) var<storage, read> ztab: array<vec2<u32>>;
@group(0) @binding(2) var<storage, read_write> zlist: array<u32>;
@group(0) @binding(4) var<storage, read_write> out: array<S>;

// Parameter accessors, mirroring `RandomParams` in src/ops/random.rs (whose `encode` is the
// only code that fills these slots; keep the two in step). P.n and arg(k) are read directly.
fn per_block() -> u32 { return P.ndim; }   // elements per Philox block: 4, or 2 for f64
fn seed() -> vec2<u32> { return P.aux; }   // the 64-bit key: (low, high) 32 bits
fn zig_cap() -> u32 { return P.offs.x; }   // slots of a workgroup's deferred list (normals)
fn zig_n() -> u32 { return P.offs.y; }     // elements of the draw (normals)

// Uniform in [0, 1) from the block's words k and k + 1 (the host replaces this line per type).
fn unit(w: vec4<u32>, k: u32) -> S { return S(f32(w[k] >> 8u) * 5.9604644775390625e-8); }

// A value computed in the carrier SC, as S (the host replaces this line for f16: rounded to
// nearest even in integers, see shared/rng_exact.wgsl's f16_round).
fn to_s(v: SC) -> S { return S(v); }

// a + b z in SC, with a = arg 0 and b = arg 1. The product is multiplied by P.sc[2], which the
// host sets to 1: no compiler can fuse b z into an FMA with the sum, so both are rounded
// once, as IEEE prescribes and WGSL guarantees for + and *, on every adapter.
fn affine(z: SC) -> S {
    return to_s(P.sc[0] + (P.sc[1] * z) * P.sc[2]);
}

fn block(j: u32) -> vec4<u32> {
    return philox(vec4<u32>(j, 0u, 0u, 0u), seed());
}

// Block t of the private stream of element e of block c = (j, 0).
fn private_block(c: vec2<u32>, t: u32, e: u32) -> vec4<u32> {
    return philox(vec4<u32>(c.x, c.y, t, 1u + e), seed());
}

@compute @workgroup_size(WG)
fn rand_uniform(@builtin(workgroup_id) w: vec3<u32>, @builtin(num_workgroups) nw: vec3<u32>,
           @builtin(local_invocation_index) l: u32) {
    let j = linear_id(w, nw, l, WG);
    let per = per_block();
    if (j * per >= P.n) { return; }
    let words = block(j);
    for (var e = 0u; e < per; e++) {
        let i = j * per + e;
        if (i < P.n) {
            out[i] = affine(SC(unit(words, e * (4u / per))));
        }
    }
}

@compute @workgroup_size(WG)
fn rand_normal(@builtin(workgroup_id) w: vec3<u32>, @builtin(num_workgroups) nw: vec3<u32>,
          @builtin(local_invocation_index) l: u32) {
    let j = linear_id(w, nw, l, WG);
    let cap = zig_cap();
    let base = (w.y * nw.x + w.x) * (cap + 1u);
    zig_group_start(l);
    if (j * PER < P.n) {
        let words = block(j);
        for (var e = 0u; e < PER; e++) {
            let i = j * PER + e;
            if (i < zig_n()) { out[i] = affine(SC(zig_first(words[e], i, base, cap))); }
        }
    }
    zig_group_end(l, base, (j - l) * PER < P.n);
}

// Element i's word, and its value by the ziggurat's slow path written (rand_normal_slow).
fn zig_word(i: u32) -> u32 { return block(i / PER)[i % PER]; }
fn zig_finish(i: u32) {
    let j = i / PER;
    out[i] = affine(SC(zig_slow(block(j)[i % PER], vec2<u32>(j, 0u), i % PER)));
}

@compute @workgroup_size(WG)
fn rand_normal_slow(@builtin(workgroup_id) w: vec3<u32>, @builtin(num_workgroups) nw: vec3<u32>,
               @builtin(local_invocation_index) l: u32) {
    zig_second(w.y * nw.x + w.x, l, zig_cap(), zig_n());
}
