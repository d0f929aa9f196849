// Clock family: work whose only purpose is to keep the GPU busy, so that its driver raises
// the clock (Tuning::clock_burst and Tuning::clock_keepalive, issue 34): a streaming update
// of a device-owned scratch buffer, 8 bytes of memory traffic an element, as the 64M-element
// additions that brought the H200's clock up in the issue's measurement.
//
// Bindings: 0 params (shared/params.wgsl: P.n, the elements); 4 out, the scratch buffer.
// Dispatch: a 1-D grid folded into 2-D, one invocation per element.
// burn: out[i] = out[i] * 0.5 + 1 (the values stay bounded, near 2, whatever they were).

#import params

alias S = f32; // element type of the scratch buffer
alias SC = f32; // carrier of scalar arguments (unused)

override WG: u32 = 256u;

@group(0) @binding(4) var<storage, read_write> out: array<S>;

@compute @workgroup_size(WG)
fn burn(@builtin(workgroup_id) w: vec3<u32>, @builtin(num_workgroups) nw: vec3<u32>,
        @builtin(local_invocation_index) l: u32) {
    let i = linear_id(w, nw, l, WG);
    if (i >= P.n) { return; }
    out[i] = out[i] * 0.5 + 1.0;
}
