// Fused reductions: a fused expression (src/custom/fuse.rs) evaluated inside the load of a
// sum, product, maximum, minimum or mean, so that the expression and the reduction are one
// kernel (host side: src/custom/fused_reduce.rs).
//
// Bindings: 0 params (see shared/params.wgsl); 1, 2, 3 the array inputs in0, in1, in2 (the
// array arguments, in order; a kernel binds those it has); 4 out0, the results: `Dst`, the
// output's dtype, or the accumulator `A` for the partial results of a split reduction.
// Problem: P.n work units over M outputs, each reducing K = k_len() elements; element k of
// output m is element i = m * K + k of the inputs broadcast to the shape whose reduced axes
// were moved last. `offsets(i)` gives the inputs' offsets of element i: `offs + i` for
// contiguous operands, else from i's multi-index (shared/strided.wgsl; NDIM dimensions).
// Dispatch:
// - `group`: one workgroup per unit g = (output m, split s), g = m * splits + s, splits =
//   ceil(K / chunk()); its WG invocations fold elements s * chunk() + l, + WG, ... below
//   min(K, (s + 1) * chunk()) in that order, then combine the WG values as a binary tree in
//   workgroup memory; invocation 0 writes finish(...) to out0[g]. A 2-D grid of workgroups,
//   g = wid.y * nwg.x + wid.x.
// - `thread`: one invocation per output m (a 1-D grid folded into 2-D), folding its K
//   elements in order; writes out0[m].
// The order of combination is fixed by the shape and the plan: the same bits every run.
//
// The host replaces the alias lines and the one-line functions `offsets`, `value` (the
// expression, with its library and helpers before it), `identity`, `combine` and `finish`.

#import params
#import strided

alias S = u32;
alias SC = u32;
alias I0 = f32;
alias I1 = f32;
alias I2 = f32;
alias A = f32;
alias Dst = f32;

override WG: u32 = 256u;
override NDIM: u32 = 1u; // dimensions of `offsets` in strided variants, fixed per pipeline
override PER: u32 = 1u;  // elements per invocation (always 1; set with NDIM by the cache)

@group(0) @binding(1) var<storage, read> in0: array<I0>;
@group(0) @binding(2) var<storage, read> in1: array<I1>;
@group(0) @binding(3) var<storage, read> in2: array<I2>;
@group(0) @binding(4) var<storage, read_write> out0: array<Dst>;

var<workgroup> tree: array<A, WG>;

// Accessors of this family's parameters, mirroring `ReduceParams` in
// src/custom/fused_reduce.rs (whose `encode` is the one place that writes them).
// Scalar argument k: its 32-bit word, to be bitcast to the parameter's type.
fn scalar_word(k: u32) -> u32 { return P.sc[k]; }
// K, the elements reduced into each output (in the scalar word no input uses: P.aux.x
// is the elementwise library's opaque zero).
fn k_len() -> u32 { return P.sc[3]; }
// Elements of one output that one workgroup of `group` folds.
fn chunk() -> u32 { return P.aux.y; }
// The count a mean divides by (the elements of the whole reduction).
fn divisor() -> u32 { return P.offs.w; }

// The inputs' offsets of element i (replaced by the host).
fn offsets(i: u32) -> vec3<u32> { return P.offs.xyz + vec3<u32>(i); }
// Element i's value as an accumulator, from the inputs at offsets o (replaced by the host).
fn value(i: u32, o: vec3<u32>) -> A { return A(in0[o.x]); }
// The identity of `combine` (replaced by the host).
fn identity() -> A { return A(0); }
// Two values combined (replaced by the host).
fn combine(a: A, b: A) -> A { return a + b; }
// The output of a reduced value (replaced by the host).
fn finish(r: A) -> Dst { return Dst(r); }

@compute @workgroup_size(WG)
fn group(@builtin(workgroup_id) w: vec3<u32>, @builtin(num_workgroups) nw: vec3<u32>,
         @builtin(local_invocation_index) l: u32) {
    let g = w.y * nw.x + w.x;
    let K = k_len();
    let splits = (K + chunk() - 1u) / chunk();
    let m = g / splits;
    let s = g % splits;
    let end = min(K, (s + 1u) * chunk());
    var acc = identity();
    if (g < P.n) {
        for (var k = s * chunk() + l; k < end; k += WG) {
            let i = m * K + k;
            acc = combine(acc, value(i, offsets(i)));
        }
    }
    tree[l] = acc;
    workgroupBarrier();
    for (var h = WG / 2u; h > 0u; h = h / 2u) {
        if (l < h) {
            tree[l] = combine(tree[l], tree[l + h]);
        }
        workgroupBarrier();
    }
    if (l == 0u && g < P.n) {
        out0[g] = finish(tree[0]);
    }
}

@compute @workgroup_size(WG)
fn thread(@builtin(workgroup_id) w: vec3<u32>, @builtin(num_workgroups) nw: vec3<u32>,
          @builtin(local_invocation_index) l: u32) {
    let m = linear_id(w, nw, l, WG);
    if (m >= P.n) { return; }
    let K = k_len();
    var acc = identity();
    for (var k = 0u; k < K; k++) {
        let i = m * K + k;
        acc = combine(acc, value(i, offsets(i)));
    }
    out0[m] = finish(acc);
}
