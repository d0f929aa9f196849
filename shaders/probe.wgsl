// Probe family: facts about the adapter's arithmetic, measured once when a device opens.
//
// Bindings: 0 params (shared/params.wgsl, unused but for the layout); 1 x, the inputs; 4 out.
// Dispatch: one workgroup of one invocation.
// flush: out[0] = x[0] * x[1], with x[0] the smallest subnormal of S and x[1] = 3: the
//        product is 0 where the adapter flushes subnormals (inputs or results) to zero. The
//        values come from a buffer, so the compiler cannot fold the product.
// fma:   out[0] = fma(x[0], x[1], -p) with p = x[0] * x[1] rounded, as two_prod64_ of
//        shaders/shared/f64_prod_fma.wgsl computes it, for x[0] = x[1] = 1 + 2^-30 (f64):
//        2^-60 where fma is fused, 0 where it is a product rounded before the sum.

alias S = f32; // element type probed
alias SC = f32; // carrier of scalar arguments (unused)

override WG: u32 = 1u;

@group(0) @binding(1) var<storage, read> x: array<S>;
@group(0) @binding(4) var<storage, read_write> out: array<S>;

@compute @workgroup_size(WG)
fn flush() {
    out[0] = x[0] * x[1];
}

@compute @workgroup_size(WG)
fn fma_fused() {
    let p = x[0] * x[1];
    out[0] = fma(x[0], x[1], -p);
}
