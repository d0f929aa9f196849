// Creation family: arrays filled from parameters alone.
//
// Bindings: 0 params (uniform, dynamic offset, see shared/params.wgsl); 4 the output.
// Dispatch: a 1-D grid folded into 2-D, one invocation per output element.
// fill:   out[i] = arg 0
// arange: out[i] = arg 0 + i * arg 1 (arange_at), computed in the carrier SC (f32 for f16)
//         and rounded once; the last element is arg 2 when exact_end() (linspace)
// eye:    out[i] = 1 where column - row == eye_diag() for rows of eye_cols() columns, else 0
// tri:    out[i] = 1 where column - row <= eye_diag() for rows of eye_cols() columns, else 0
// geom:   out[i] = sign(arg 2) * 2^(arg 0 + i * arg 1) (geom_at: the accurate exp2 of
//         shared/f32_math.wgsl or f64_math.wgsl; integers have no geom), out[0] = arg 2 and
//         out[n - 1] = arg 3 exactly (logspace and geomspace)

#import params
#import f32_math // f64_math in the f64 variant, nothing in the integer ones

alias S = f32; // element type of the output
alias SC = f32; // carrier of scalar arguments: S, or f32 when S is f16
alias TW = f32; // the carrier, for the shared math of geom (float variants)
alias M = u32; // bits of TW (f32 math)
alias TB = bool; // comparisons of TW
alias TF = f32; // f32 (f64 math reads sign bits through it)
alias NI = i32; // exponents of ldexp

override WG: u32 = 256u;

@group(0) @binding(4) var<storage, read_write> out: array<S>;

// Parameter accessors, mirroring `CreationParams` in src/array/creation.rs (whose `encode` is
// the only code that fills these slots; keep the two in step). P.n and arg(k) are read
// directly.
fn exact_end() -> bool { return P.aux.x == 1u; }            // arange: the last is arg 2
fn eye_cols() -> u32 { return P.aux.x; }                     // eye: columns per row
fn eye_diag() -> i32 { return bitcast<i32>(P.aux.y); }       // eye: the diagonal k

@compute @workgroup_size(WG)
fn fill(@builtin(workgroup_id) w: vec3<u32>, @builtin(num_workgroups) nw: vec3<u32>,
        @builtin(local_invocation_index) l: u32) {
    let i = linear_id(w, nw, l, WG);
    if (i >= P.n) { return; }
    out[i] = arg(0u);
}

// Element i of arange: start + i * step in the carrier (replaced per dtype by the host:
// for f16 and f32 the step travels as two f32 values, hi in arg 1 and lo in arg 3, and
// fma(i, lo, fma(i, hi, start)) is rounded once to S, so f16 values are computed in f32
// and rounded once, without the f32 rounding of the step or of the product).
fn arange_at(i: u32) -> S { return S(P.sc[0u] + SC(i) * P.sc[1u]); }

@compute @workgroup_size(WG)
fn arange(@builtin(workgroup_id) w: vec3<u32>, @builtin(num_workgroups) nw: vec3<u32>,
          @builtin(local_invocation_index) l: u32) {
    let i = linear_id(w, nw, l, WG);
    if (i >= P.n) { return; }
    var v = arange_at(i);
    if (exact_end() && i + 1u == P.n) { v = arg(2u); }
    out[i] = v;
}

@compute @workgroup_size(WG)
fn eye(@builtin(workgroup_id) w: vec3<u32>, @builtin(num_workgroups) nw: vec3<u32>,
       @builtin(local_invocation_index) l: u32) {
    let i = linear_id(w, nw, l, WG);
    if (i >= P.n) { return; }
    let row = i32(i / eye_cols());
    let col = i32(i % eye_cols());
    out[i] = select(S(0), S(1), col - row == eye_diag());
}

@compute @workgroup_size(WG)
fn tri(@builtin(workgroup_id) w: vec3<u32>, @builtin(num_workgroups) nw: vec3<u32>,
       @builtin(local_invocation_index) l: u32) {
    let i = linear_id(w, nw, l, WG);
    if (i >= P.n) { return; }
    let row = i32(i / eye_cols());
    let col = i32(i % eye_cols());
    out[i] = select(S(0), S(1), col - row <= eye_diag());
}

// Element i of geom in the carrier, before the endpoints (replaced per dtype by the host).
fn geom_at(i: u32) -> SC { return SC(0); }

@compute @workgroup_size(WG)
fn geom(@builtin(workgroup_id) w: vec3<u32>, @builtin(num_workgroups) nw: vec3<u32>,
        @builtin(local_invocation_index) l: u32) {
    let i = linear_id(w, nw, l, WG);
    if (i >= P.n) { return; }
    var v = geom_at(i);
    v = select(v, SC(0) - v, P.sc[2u] < SC(0));
    if (i + 1u == P.n) { v = P.sc[3u]; }
    if (i == 0u) { v = P.sc[2u]; }
    out[i] = S(v);
}
