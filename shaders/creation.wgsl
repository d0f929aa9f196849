// Creation family: arrays filled from parameters alone.
//
// Bindings: 0 params (uniform, dynamic offset, see shared/params.wgsl); 4 the output.
// Dispatch: a 1-D grid folded into 2-D, one invocation per output element.
// fill:   out[i] = arg 0
// arange: out[i] = arg 0 + i * arg 1; the last element is arg 2 when aux.x is 1 (linspace)
// eye:    out[i] = 1 where column - row == k (aux.y, as i32) for rows of aux.x columns, else 0

alias S = f32; // element type of the output
alias SC = f32; // carrier of scalar arguments: S, or f32 when S is f16

override WG: u32 = 256u;

@group(0) @binding(4) var<storage, read_write> out: array<S>;

@compute @workgroup_size(WG)
fn fill(@builtin(workgroup_id) w: vec3<u32>, @builtin(num_workgroups) nw: vec3<u32>,
        @builtin(local_invocation_index) l: u32) {
    let i = linear_id(w, nw, l, WG);
    if (i >= P.n) { return; }
    out[i] = arg(0u);
}

@compute @workgroup_size(WG)
fn arange(@builtin(workgroup_id) w: vec3<u32>, @builtin(num_workgroups) nw: vec3<u32>,
          @builtin(local_invocation_index) l: u32) {
    let i = linear_id(w, nw, l, WG);
    if (i >= P.n) { return; }
    var v = arg(0u) + S(i) * arg(1u);
    if (P.aux.x == 1u && i + 1u == P.n) { v = arg(2u); }
    out[i] = v;
}

@compute @workgroup_size(WG)
fn eye(@builtin(workgroup_id) w: vec3<u32>, @builtin(num_workgroups) nw: vec3<u32>,
       @builtin(local_invocation_index) l: u32) {
    let i = linear_id(w, nw, l, WG);
    if (i >= P.n) { return; }
    let row = i32(i / P.aux.x);
    let col = i32(i % P.aux.x);
    out[i] = select(S(0), S(1), col - row == bitcast<i32>(P.aux.y));
}
