// Indexing family: writes into existing arrays (assign, fill, masked writes) and gathers by
// index (take, take_along_axis), with the range check of the indices.
//
// Bindings: 0 params; 1 `a` (A: the source of assign, the gathered array of take, the mask
// of masked_fill / masked_assign, the indices of check); 2 `b` (I: the indices of take, the
// mask's running count in masked_assign); 3 `c` (E: the values of masked_assign);
// 4 `out` (E: the written array; the flag word in `check`).
// Dispatch geometry: one invocation per element of the work (n()), a 1-D grid folded into
// 2-D (linear_id):
// - `assign`, `fill`, `masked_fill`, `masked_assign`: element i of the (strided) target,
//   whose offset and the source's or mask's come from strided_offsets (NDIM merged
//   dimensions; slot x the source or mask, slot y the target);
// - `take`: element i of the contiguous result [outer, m, inner]; its index is b[j] (take)
//   or b[i] (take_along_axis, indices laid out as the result);
// - `scatter_last`: element i of the indices (contiguous, as the source): writes source
//   element i to its target (offset y + index * axis_stride(), with strided_offsets' slots
//   as in shaders/scatter.wgsl: x the source, y the target without the axis, z the index)
//   where `a`, the last writer per target word (i + 1, from scatter.wgsl `Last`), is i + 1;
// - `widen`: element i of the contiguous u32 indices `a` (from offs.x): writes out[2i] and
//   out[2i + 1], the low and high words of the i64 index (E = u32); with sentinel(),
//   u32::MAX becomes -1;
// - `check`: element i of the indices; an index outside the axis sets out[0] to 1 (every
//   such invocation stores the same value; no read before the dispatch ends).
//
// The host replaces the alias lines and the one-line `split_index` per index dtype
// (src/ops/index/mod.rs); i64 indices are bound as vec2<u32> (low, high word).

#import params
#import strided
#import index

alias E = f32; // element type of the target
alias A = f32; // element type of binding 1
alias I = i32; // index type
alias S = f32;
alias SC = f32;

override WG: u32 = 256u;
override NDIM: u32 = 1u;
override PER: u32 = 1u;
const NONE: u32 = 0xffffffffu;

@group(0) @binding(1) var<storage, read> a: array<A>;
@group(0) @binding(2) var<storage, read> b: array<I>;
@group(0) @binding(3) var<storage, read> c: array<E>;
@group(0) @binding(4) var<storage, read_write> out: array<E>;

// The family's parameters, mirroring `IndexParams` in src/ops/index/mod.rs.
fn axis_len() -> u32 { return P.aux.x; }         // take, check: extent of the indexed axis
fn inner() -> u32 { return P.aux.y; }            // take: elements after the axis
fn vals_offset() -> u32 { return P.aux.x; }      // masked_assign: values' first element
fn vals_stride() -> u32 { return P.aux.y; }      // masked_assign: values' stride (0: one)
fn axis_stride() -> u32 { return P.aux.y; }     // scatter_last: target's stride on the axis
fn scatter_mode() -> u32 { return P.offs.w; }    // scatter_last: resolve's mode
fn m() -> u32 { return P.shape[0].x; }           // take: indices along the axis
fn mode() -> u32 { return P.shape[0].y; }        // take: 0 checked, 1 wrap, 2 clip
fn along() -> bool { return P.shape[0].z != 0u; } // take: one index per result element
fn sentinel() -> bool { return P.aux.x != 0u; }   // widen: u32::MAX stands for -1

// (value, magnitude) of an index: (v, 0) for v >= 0, (0, -v) for v < 0 (per index dtype).
fn split_index(raw: I) -> vec2<u32> { return select(vec2<u32>(u32(raw), 0u), vec2<u32>(0u, u32(-(raw + 1)) + 1u), raw < 0); }

@compute @workgroup_size(WG)
fn assign(@builtin(workgroup_id) wid: vec3<u32>, @builtin(num_workgroups) nwg: vec3<u32>,
          @builtin(local_invocation_index) lid: u32) {
    let i = linear_id(wid, nwg, lid, WG);
    if i >= P.n {
        return;
    }
    let o = strided_offsets(i);
    out[o.y] = E(a[o.x]);
}

@compute @workgroup_size(WG)
fn fill(@builtin(workgroup_id) wid: vec3<u32>, @builtin(num_workgroups) nwg: vec3<u32>,
        @builtin(local_invocation_index) lid: u32) {
    let i = linear_id(wid, nwg, lid, WG);
    if i >= P.n {
        return;
    }
    out[strided_offsets(i).y] = E(arg(0u));
}

@compute @workgroup_size(WG)
fn masked_fill(@builtin(workgroup_id) wid: vec3<u32>, @builtin(num_workgroups) nwg: vec3<u32>,
               @builtin(local_invocation_index) lid: u32) {
    let i = linear_id(wid, nwg, lid, WG);
    if i >= P.n {
        return;
    }
    let o = strided_offsets(i);
    if u32(a[o.x]) != 0u {
        out[o.y] = E(arg(0u));
    }
}

@compute @workgroup_size(WG)
fn masked_assign(@builtin(workgroup_id) wid: vec3<u32>, @builtin(num_workgroups) nwg: vec3<u32>,
                 @builtin(local_invocation_index) lid: u32) {
    let i = linear_id(wid, nwg, lid, WG);
    if i >= P.n {
        return;
    }
    let o = strided_offsets(i);
    if u32(a[o.x]) != 0u {
        // b holds the inclusive running count of the mask: this element takes value count - 1.
        out[o.y] = c[vals_offset() + (split_index(b[o.x]).x - 1u) * vals_stride()];
    }
}

@compute @workgroup_size(WG)
fn take(@builtin(workgroup_id) wid: vec3<u32>, @builtin(num_workgroups) nwg: vec3<u32>,
        @builtin(local_invocation_index) lid: u32) {
    let i = linear_id(wid, nwg, lid, WG);
    if i >= P.n {
        return;
    }
    let len = axis_len();
    // Divisions only where needed: none for a 1-D take (inner 1, one outer block).
    var r = 0u;
    var t = i;
    if inner() != 1u {
        r = i % inner();
        t = i / inner();
    }
    var j = t;
    var outer = 0u;
    if t >= m() {
        j = t % m();
        outer = t / m();
    }
    let pos = select(j, i, along());
    let k = min(resolve(b[P.offs.y + pos], len, mode()), len - 1u);
    out[i] = E(a[P.offs.x + (outer * len + k) * inner() + r]);
}

@compute @workgroup_size(WG)
fn check(@builtin(workgroup_id) wid: vec3<u32>, @builtin(num_workgroups) nwg: vec3<u32>,
         @builtin(local_invocation_index) lid: u32) {
    let i = linear_id(wid, nwg, lid, WG);
    if i >= P.n {
        return;
    }
    if resolve(b[P.offs.y + i], axis_len(), 0u) == NONE {
        out[0] = E(1);
    }
}

@compute @workgroup_size(WG)
fn scatter_last(@builtin(workgroup_id) wid: vec3<u32>, @builtin(num_workgroups) nwg: vec3<u32>,
                @builtin(local_invocation_index) lid: u32) {
    let i = linear_id(wid, nwg, lid, WG);
    if i >= P.n {
        return;
    }
    let o = strided_offsets(i);
    let k = min(resolve(b[o.z], axis_len(), scatter_mode()), axis_len() - 1u);
    let t = o.y + k * axis_stride();
    if u32(a[t]) == i + 1u {
        out[t] = c[o.x];
    }
}

@compute @workgroup_size(WG)
fn widen(@builtin(workgroup_id) wid: vec3<u32>, @builtin(num_workgroups) nwg: vec3<u32>,
         @builtin(local_invocation_index) lid: u32) {
    let i = linear_id(wid, nwg, lid, WG);
    if i >= P.n {
        return;
    }
    let v = u32(a[P.offs.x + i]);
    out[2u * i] = E(v);
    out[2u * i + 1u] = E(select(0u, NONE, sentinel() && v == NONE));
}
