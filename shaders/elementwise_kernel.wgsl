// User elementwise kernels: the bodies of ElementwiseKernel and fused expressions.
//
// Bindings: 0 params (see shared/params.wgsl); 1, 2, 3 the array inputs in0, in1, in2 (the
// array parameters, in order; a kernel binds those it has); 4 the output out0.
// Dispatch: a 1-D grid folded into 2-D, one invocation per output element i.
// `contig` reads input k at offs[k] + i (every operand contiguous, of the output's shape);
// `strided` derives each input's offset from the output's multi-index and the input's
// strides, 0 along broadcast axes. Both write out0[offs.w + i].
// Scalar parameters travel as 32-bit words in P.sc (S = SC = u32), read with scalar_word
// and bitcast; the other fields of P have their generic meaning (shared/params.wgsl).
//
// The host replaces the alias lines with the parameters' types and `fn element(` with the
// generated function around the user's text (src/custom/elementwise_kernel.rs);
// strided_offsets is shared/strided.wgsl's.

#import params
#import strided

alias S = u32;
alias SC = u32;
alias I0 = f32;
alias I1 = f32;
alias I2 = f32;
alias O0 = f32;

override WG: u32 = 256u;
override NDIM: u32 = 1u; // dimensions of the strided entry (P.ndim), fixed per pipeline
override PER: u32 = 1u;  // elements per invocation (always 1; set with NDIM by the cache)

@group(0) @binding(1) var<storage, read> in0: array<I0>;
@group(0) @binding(2) var<storage, read> in1: array<I1>;
@group(0) @binding(3) var<storage, read> in2: array<I2>;
@group(0) @binding(4) var<storage, read_write> out0: array<O0>;

// Accessors of this family's parameters, mirroring `KernelParams` in
// src/custom/elementwise_kernel.rs (whose `encode` is the one place that writes them).
// Scalar argument k (`KernelParams::words[k]`): its 32-bit word, to be bitcast to the
// parameter's type (f16 travels as f32).
fn scalar_word(k: u32) -> u32 { return P.sc[k]; }

// Output element i from the inputs at offsets o (replaced by the host).
fn element(i: u32, o: vec3<u32>) { out0[P.offs.w + i] = O0(in0[o.x]); }

@compute @workgroup_size(WG)
fn contig(@builtin(workgroup_id) w: vec3<u32>, @builtin(num_workgroups) nw: vec3<u32>,
          @builtin(local_invocation_index) l: u32) {
    let i = linear_id(w, nw, l, WG);
    if (i >= P.n) { return; }
    element(i, P.offs.xyz + vec3<u32>(i));
}

@compute @workgroup_size(WG)
fn strided(@builtin(workgroup_id) w: vec3<u32>, @builtin(num_workgroups) nw: vec3<u32>,
           @builtin(local_invocation_index) l: u32) {
    let i = linear_id(w, nw, l, WG);
    if (i >= P.n) { return; }
    element(i, strided_offsets(i));
}
