// Clock family: work whose only purpose is to keep the GPU busy, so that its driver raises
// the clock (Tuning::clock_burst, clock_keepalive and clock_hold, issue 34).
//
// Bindings: 0 params (shared/params.wgsl: P.n); 4 out, a device-owned scratch buffer.
// - burn: a streaming update of P.n elements, 8 bytes of memory traffic an element, as the
//   64M-element additions that brought the H200's clock up in the issue's measurement.
//   Dispatch: a 1-D grid folded into 2-D, one invocation per element.
//   out[i] = out[i] * 0.5 + 1 (the values stay bounded, near 2, whatever they were).
// - spin: one workgroup that runs a dependent chain of P.n * 256 multiply-adds per
//   invocation and writes its value to out[lid]: time on the GPU with almost no memory
//   traffic and one multiprocessor's power (the chain stays bounded, near 1). Dispatch: one
//   workgroup. The inner loop's fixed 256 keeps each loop under lavapipe's 65,535.

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

@compute @workgroup_size(WG)
fn spin(@builtin(local_invocation_index) l: u32) {
    var x = out[l];
    for (var i = 0u; i < P.n; i++) {
        for (var j = 0u; j < 256u; j++) {
            x = fma(x, 0.9990234375, 0.0009765625);
        }
    }
    out[l] = x;
}
