// FFT family, Bluestein's steps (appended to shaders/fft.wgsl, whose bindings, parameters,
// `fetch` and `write_out` they use): a transform of any length n as a convolution of
// length padded() (a power of two at least 2n - 1), computed by transforms of that length.
// Used where padded() is past one workgroup; shorter ones run fused into two in-workgroup
// transforms (shaders/fft_chirp.wgsl).
//
// Bindings: 0 params; 1 `src`; 2 `tw` the chirp w_k = exp(-i pi k^2 / n) (k < n), or in
// `pointwise` the transform of the chirp filter; 4 `dst`.
// Dispatch geometry: one invocation per element, a 1-D grid folded into 2-D:
// - `chirp_in`: element (b, k) of batches() rows of padded(): x_k w_k (conj(x_k) w_k for
//   inverse transforms), zero for k >= row_len() = n, x read through `fetch`;
// - `pointwise`: element i of the rows times element i % padded() of the filter;
// - `chirp_out`: element (b, k < n_out()) of the output: y_k w_k (its conjugate for inverse
//   transforms) times scale(), y the rows of padded() in `src`, written through `write_out`
//   at the output's addressing.

fn padded() -> u32 { return P.shape[1].w; }

@compute @workgroup_size(WG)
fn chirp_in(
    @builtin(local_invocation_index) lid: u32,
    @builtin(workgroup_id) wid: vec3<u32>,
    @builtin(num_workgroups) nwg: vec3<u32>,
) {
    let i = linear_id(wid, nwg, lid, WG);
    let pl = padded();
    if (i >= batches() * pl) {
        return;
    }
    let b = i / pl;
    let k = i % pl;
    var v = vec2<T>(T(0), T(0));
    if (k < row_len()) {
        v = fetch(batch_offs(b).x, k);
        if (inverse()) {
            v = conj(v);
        }
        v = cmul(v, tw[k]);
    }
    write_out(i, v);
}

@compute @workgroup_size(WG)
fn pointwise(
    @builtin(local_invocation_index) lid: u32,
    @builtin(workgroup_id) wid: vec3<u32>,
    @builtin(num_workgroups) nwg: vec3<u32>,
) {
    let i = linear_id(wid, nwg, lid, WG);
    if (i >= batches() * padded()) {
        return;
    }
    write_out(i, cmul(read_in(i), tw[i % padded()]));
}

@compute @workgroup_size(WG)
fn chirp_out(
    @builtin(local_invocation_index) lid: u32,
    @builtin(workgroup_id) wid: vec3<u32>,
    @builtin(num_workgroups) nwg: vec3<u32>,
) {
    let i = linear_id(wid, nwg, lid, WG);
    let w = n_out();
    if (i >= batches() * w) {
        return;
    }
    let b = i / w;
    let k = i % w;
    var y = cmul(read_in(b * padded() + k), tw[k]);
    if (inverse()) {
        y = conj(y);
    }
    write_out(batch_offs(b).y + k * s_out(), y * scale());
}
