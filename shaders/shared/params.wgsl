// Parameters of one dispatch: a 256-byte slot of the device's uniform arena, bound at
// binding 0 with a dynamic offset. Mirrored by `kernel::launch::Params` on the host.
// Where the adapter has immediates, the host replaces the binding with `var<immediate>`.
// `S` is the kernel's element type and `SC` the carrier of its scalar arguments: S itself,
// or f32 for f16, which immediates cannot hold (both aliased by the including file).
struct Params {
    n: u32,                          // work items (elements, or vec4s in vectorised kernels)
    ndim: u32,                       // dimensions used by strided kernels (at most 8)
    aux: vec2<u32>,                  // family-specific
    offs: vec4<u32>,                 // element offsets of inputs a, b, c and the output
    shape: array<vec4<u32>, 2>,      // output shape, outermost first
    st0: array<vec4<u32>, 2>,        // strides of a, in elements (0 along broadcast axes)
    st1: array<vec4<u32>, 2>,        // strides of b
    st2: array<vec4<u32>, 2>,        // strides of c
    sc: vec4<SC>,                    // scalar arguments
}

@group(0) @binding(0) var<uniform> P: Params;

// Scalar argument k in the element type.
fn arg(k: u32) -> S {
    return S(P.sc[k]);
}

// Linear id of an invocation in a 1-D grid folded into 2-D (x at most 65,535 workgroups).
fn linear_id(wid: vec3<u32>, nwg: vec3<u32>, lid: u32, wg: u32) -> u32 {
    return (wid.y * nwg.x + wid.x) * wg + lid;
}

// Extent and strides of dimension d, read in place (an array passed by value would be
// copied to private memory, which dynamic indexing keeps out of registers).
fn extent_of(d: u32) -> u32 {
    return P.shape[d / 4u][d % 4u];
}
fn strides_of(d: u32) -> vec3<u32> {
    let q = d / 4u;
    let r = d % 4u;
    return vec3<u32>(P.st0[q][r], P.st1[q][r], P.st2[q][r]);
}

// Offsets of inputs a and b (their `offs` plus the strides) for batch `batch` of a batched
// kernel (matrix products), from its multi-index over the P.ndim batch dimensions.
fn batch_offsets(batch: u32) -> vec2<u32> {
    var rem = batch;
    var o = P.offs.xy;
    for (var d = i32(P.ndim) - 1; d >= 0; d--) {
        let e = extent_of(u32(d));
        o += (rem % e) * strides_of(u32(d)).xy;
        rem = rem / e;
    }
    return o;
}
