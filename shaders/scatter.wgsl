// Scatter family: combining elements of a source into a target at positions given by an
// index array along one axis (scatter_add, scatter_max, scatter_min), with atomics; and the
// first pass of `scatter` (last writer wins): the largest source position per target
// element, whose writes shaders/index.wgsl `scatter_last` then makes.
//
// Bindings: 0 params; 1 `a` (E: the source, of the indices' shape); 2 `b` (I: the indices);
// 4 `out` (the target, as atomic words of AT: u32 or i32, f32 through its bits).
// Dispatch geometry: one invocation per element i of the indices (n()), a 1-D grid folded
// into 2-D (linear_id). strided_offsets(i) gives the source's offset (slot x), the target's
// offset with the indexed axis left out (slot y: its stride there is 0) and the index's
// (slot z); the target element is y + resolve(index) * axis_stride(), combined with the
// source element by `combine`: one atomic (integers; f32 adds where the adapter has
// SHADER_FLOAT32_ATOMIC, AT = f32) or a compare-and-swap loop on the bits (f32). The
// order of the combinations is not fixed: integer results do not depend on
// it; f32 sums may differ in the last bits between runs, max and min do not.
//
// The host replaces the alias lines, the one-line `split_index` per index dtype and the
// one-line `combine` per operation and dtype (src/ops/index/scatter.rs), and imports
// shaders/shared/scatter_cas.wgsl (`cas_f32`) only into the f32 variants that need it. Indices were
// checked before the dispatch (shaders/index.wgsl `check`), or wrap or clip (mode()).

#import params
#import strided
#import index
#import scatter_cas

alias E = f32; // element type of source and target
alias I = i32; // index type
alias AT = u32; // the target's atomic word
alias S = f32;
alias SC = f32;

override WG: u32 = 256u;
override NDIM: u32 = 1u;
override PER: u32 = 1u;
const NONE: u32 = 0xffffffffu;

@group(0) @binding(1) var<storage, read> a: array<E>;
@group(0) @binding(2) var<storage, read> b: array<I>;
@group(0) @binding(4) var<storage, read_write> out: array<atomic<AT>>;

// The family's parameters, mirroring `ScatterParams` in src/ops/index/scatter.rs.
fn axis_len() -> u32 { return P.aux.x; }         // extent of the target's indexed axis
fn axis_stride() -> u32 { return P.aux.y; }      // the target's stride along it
fn mode() -> u32 { return P.offs.w; }            // resolve's mode (0 after the check)

// (value, magnitude) of an index: (v, 0) for v >= 0, (0, -v) for v < 0 (per index dtype).
fn split_index(raw: I) -> vec2<u32> { return select(vec2<u32>(u32(raw), 0u), vec2<u32>(0u, u32(-(raw + 1)) + 1u), raw < 0); }

// Combines v, element i of the source, into target word k (replaced per operation and
// dtype; `Last` keeps the largest i + 1 in a u32 word per target element).
fn combine(k: u32, v: E, i: u32) { atomicAdd(&out[k], bitcast<AT>(v)); }

@compute @workgroup_size(WG)
fn scatter(@builtin(workgroup_id) wid: vec3<u32>, @builtin(num_workgroups) nwg: vec3<u32>,
           @builtin(local_invocation_index) lid: u32) {
    let i = linear_id(wid, nwg, lid, WG);
    if i >= P.n {
        return;
    }
    let o = strided_offsets(i);
    let k = min(resolve(b[o.z], axis_len(), mode()), axis_len() - 1u);
    combine(o.y + k * axis_stride(), a[o.x], i);
}
