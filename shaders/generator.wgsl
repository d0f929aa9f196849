// Generator family: draws of a stateful `Generator` (src/ops/random/generator.rs) whose
// elements take one Philox word each, or a block's words in pairs; and the gather that
// `choice`, `permutation` and `shuffle` use to pick rows.
//
// Bindings: 0 params (shared/params.wgsl; the slots are read through shared/rng_stream.wgsl);
// 1 `src` and 2 `idx` (gen_gather only); 1 `ztab`, the ziggurat's table, and 2 `zlist`, the
// deferred elements' lists (gen_normal, gen_normal_slow; see shared/ziggurat.wgsl); 4 the
// output, as `out4` (vec4 of S: one block's four elements), `out2` (vec2 of S:
// gen_uniform2) or `out1` (S: gen_gather, gen_normal_slow). The host allocates draws
// rounded up to whole blocks and returns a view of the first elements.
// Dispatch: a 1-D grid folded into 2-D. gen_uniform, gen_normal (element e: the ziggurat's
// fast path from word e, slow elements deferred), gen_exponential, gen_integers,
// gen_bernoulli: invocation j computes block j of the draw (see shared/rng_stream.wgsl) and
// stores its four elements with one vec4 store; gen_integers64 (i64, u64) its two elements
// with one vec2 store. gen_normal_slow: workgroup q (ceil(groups / 16)
// workgroups of the 1-D grid folded into 2-D) finishes the deferred elements of gen_normal's
// workgroups 16 q .. 16 q + 15 (int_args() = (slots a list, elements of the draw)) by the
// ziggurat's slow path (shared/ziggurat.wgsl's zig_second). gen_uniform2
// (f64): two elements of 53 bits per block, one vec2 store. gen_gather: invocation i writes
// out1[i] = src[s + idx[o + i / inner] * inner + i % inner], with (inner, s) = int_args()
// and o = P.offs.x (the index array's start).

#import params
#import philox
#import rng_exact
#import rng_stream
#import ziggurat

alias S = f32; // element type of the output
alias SC = f32; // carrier of scalar arguments: S, or f32 for f16 and the integers

override WG: u32 = 256u;

@group(0) @binding(1) var<storage, read> src: array<S>;
@group(0) @binding(1) var<storage, read> ztab: array<vec2<u32>>;
@group(0) @binding(2) var<storage, read> idx: array<u32>;
@group(0) @binding(2) var<storage, read_write> zlist: array<u32>;
@group(0) @binding(4) var<storage, read_write> out4: array<vec4<S>>;
@group(0) @binding(4) var<storage, read_write> out2: array<vec2<S>>;
@group(0) @binding(4) var<storage, read_write> out1: array<S>;

// Four uniforms in [0, 1) from a block's words: the top 24 bits (11 for f16) times 2^-24
// (2^-11), as random.wgsl's `unit` (the host replaces this line for f16).
fn unit4(w: vec4<u32>) -> vec4<S> { return vec4<S>(vec4<f32>(w >> vec4<u32>(8u)) * 5.9604644775390625e-8); }

// Two uniforms in [0, 1) of 53 bits from words (0, 1) and (2, 3) (the host replaces this line
// for f64; other types never call it).
fn unit2(w: vec4<u32>) -> vec2<S> { return unit4(w).xy; }

// Values computed in the carrier SC, as S (the host replaces this line for f16: rounded to
// nearest even in integers, see shared/rng_exact.wgsl's f16_round).
fn to_s4(v: vec4<SC>) -> vec4<S> { return vec4<S>(v); }

// a + b z in SC, with a = P.sc[0] and b = P.sc[1]. The product is multiplied by P.sc[2],
// which the host sets to 1: no compiler can fuse b z into an FMA with the sum, so both are
// rounded once, as IEEE prescribes and WGSL guarantees for + and *, on every adapter.
fn affine4(z: vec4<SC>) -> vec4<S> {
    return to_s4(vec4<SC>(P.sc[0]) + (vec4<SC>(P.sc[1]) * z) * vec4<SC>(P.sc[2]));
}

@compute @workgroup_size(WG)
fn gen_uniform(@builtin(workgroup_id) wid: vec3<u32>, @builtin(num_workgroups) nw: vec3<u32>,
               @builtin(local_invocation_index) l: u32) {
    let j = linear_id(wid, nw, l, WG);
    if (j >= P.n) { return; }
    out4[j] = affine4(vec4<SC>(unit4(plain(counter(j)))));
}

@compute @workgroup_size(WG)
fn gen_uniform2(@builtin(workgroup_id) wid: vec3<u32>, @builtin(num_workgroups) nw: vec3<u32>,
                @builtin(local_invocation_index) l: u32) {
    let j = linear_id(wid, nw, l, WG);
    if (j >= P.n) { return; }
    out2[j] = vec2<S>(arg(0u)) + (vec2<S>(arg(1u)) * unit2(plain(counter(j)))) * vec2<S>(arg(2u));
}

@compute @workgroup_size(WG)
fn gen_normal(@builtin(workgroup_id) wid: vec3<u32>, @builtin(num_workgroups) nw: vec3<u32>,
              @builtin(local_invocation_index) l: u32) {
    let j = linear_id(wid, nw, l, WG);
    let cap = int_args().x;
    let base = (wid.y * nw.x + wid.x) * (cap + 1u);
    zig_group_start(l);
    if (j < P.n) {
        let w = plain(counter(j));
        let i = 4u * j;
        let z = vec4<f32>(zig_first(w.x, i, base, cap), zig_first(w.y, i + 1u, base, cap),
                          zig_first(w.z, i + 2u, base, cap), zig_first(w.w, i + 3u, base, cap));
        out4[j] = affine4(vec4<SC>(z));
    }
    zig_group_end(l, base, j - l < P.n);
}

// Element i's word, and its value by the ziggurat's slow path written (gen_normal_slow).
fn zig_word(i: u32) -> u32 { return plain(counter(i / 4u))[i % 4u]; }
fn zig_finish(i: u32) {
    let c = counter(i / 4u);
    out1[i] = affine4(vec4<SC>(SC(zig_slow(plain(c)[i % 4u], c, i % 4u)))).x;
}

@compute @workgroup_size(WG)
fn gen_normal_slow(@builtin(workgroup_id) wid: vec3<u32>, @builtin(num_workgroups) nw: vec3<u32>,
                   @builtin(local_invocation_index) l: u32) {
    zig_second(wid.y * nw.x + wid.x, l, int_args().x, int_args().y);
}

@compute @workgroup_size(WG)
fn gen_exponential(@builtin(workgroup_id) wid: vec3<u32>, @builtin(num_workgroups) nw: vec3<u32>,
                   @builtin(local_invocation_index) l: u32) {
    let j = linear_id(wid, nw, l, WG);
    if (j >= P.n) { return; }
    let w = plain(counter(j));
    let e = vec4<f32>(exponential_exact(w.x), exponential_exact(w.y), exponential_exact(w.z),
                      exponential_exact(w.w));
    out4[j] = to_s4(vec4<SC>(P.sc[0]) * vec4<SC>(e));
}

// Lemire's nearly divisionless method: the high word of x * r is uniform in [0, r) once the
// low words below 2^32 mod r are rejected. Redraws come from the element's private stream
// (word 0 of its blocks 0, 1, ...); each is rejected with probability below 1/2 (r <= 2^31
// ... 2^32 - 1: below r / 2^32), and the loop stops after 64 (probability below 2^-64).
fn bounded(x: u32, r: u32, c: vec2<u32>, e: u32) -> u32 {
    if (r == 0u) { return x; } // the whole 32-bit range
    var m = mulhilo(x, r);
    if (m.y < r) {
        let t = (0u - r) % r;
        for (var k = 0u; k < 64u && m.y < t; k++) {
            m = mulhilo(private_block(c, k, e).x, r);
        }
    }
    return m.x;
}

@compute @workgroup_size(WG)
fn gen_integers(@builtin(workgroup_id) wid: vec3<u32>, @builtin(num_workgroups) nw: vec3<u32>,
                @builtin(local_invocation_index) l: u32) {
    let j = linear_id(wid, nw, l, WG);
    if (j >= P.n) { return; }
    let c = counter(j);
    let w = plain(c);
    let a = int_args(); // (low end as bits, range; 0 = 2^32)
    let v = vec4<u32>(bounded(w.x, a.y, c, 0u), bounded(w.y, a.y, c, 1u),
                      bounded(w.z, a.y, c, 2u), bounded(w.w, a.y, c, 3u));
    out4[j] = vec4<S>(vec4<u32>(a.x) + v);
}

// The two 64-bit elements of block c from its words w (replaced for i64 and u64 by
// shared/lemire64.wgsl's `lemire2`, imported only there; other types never call it).
fn integers2(c: vec2<u32>, w: vec4<u32>) -> vec2<S> { return unit4(w).xy; }

// i64 and u64 integers: invocation j computes block j and stores its two elements (words
// (0, 1) and (2, 3), each a 64-bit x for Lemire's method) with one vec2 store.
@compute @workgroup_size(WG)
fn gen_integers64(@builtin(workgroup_id) wid: vec3<u32>, @builtin(num_workgroups) nw: vec3<u32>,
                  @builtin(local_invocation_index) l: u32) {
    let j = linear_id(wid, nw, l, WG);
    if (j >= P.n) { return; }
    let c = counter(j);
    out2[j] = integers2(c, plain(c));
}

// 1 where the word is below the threshold int_args().x (p 2^32, rounded down), or always
// when flag() is 1 (p = 1).
@compute @workgroup_size(WG)
fn gen_bernoulli(@builtin(workgroup_id) wid: vec3<u32>, @builtin(num_workgroups) nw: vec3<u32>,
                 @builtin(local_invocation_index) l: u32) {
    let j = linear_id(wid, nw, l, WG);
    if (j >= P.n) { return; }
    let w = plain(counter(j));
    let hit = (w < vec4<u32>(int_args().x)) | vec4<bool>(flag() == 1u);
    out4[j] = vec4<S>(select(vec4<u32>(0u), vec4<u32>(1u), hit));
}

@compute @workgroup_size(WG)
fn gen_gather(@builtin(workgroup_id) wid: vec3<u32>, @builtin(num_workgroups) nw: vec3<u32>,
              @builtin(local_invocation_index) l: u32) {
    let i = linear_id(wid, nw, l, WG);
    if (i >= P.n) { return; }
    let a = int_args();
    out1[i] = src[a.y + idx[P.offs.x + i / a.x] * a.x + i % a.x];
}
