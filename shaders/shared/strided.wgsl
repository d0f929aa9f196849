// Strided walks (shaders/elementwise.wgsl, elementwise_kernel.wgsl, fused_reduce.wgsl,
// index.wgsl, scatter.wgsl, which import this file and declare `override NDIM`, the
// dimensions of their strided entries, fixed per pipeline).
//
// Offsets of inputs a, b and c (bindings 1, 2, 3) for output element i, from its
// multi-index over the NDIM dimensions of P.shape and the inputs' strides, which are 0 along
// broadcast axes (the outermost index needs no division).

#import params

fn strided_offsets(i: u32) -> vec3<u32> {
    var rem = i;
    var o = P.offs.xyz;
    for (var k = i32(NDIM) - 1; k >= 1; k--) {
        let d = u32(k);
        let extent = extent_of(d);
        o += (rem % extent) * strides_of(d);
        rem = rem / extent;
    }
    return o + rem * strides_of(0u);
}
