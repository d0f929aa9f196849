// FFT family, Bluestein's steps fused into the in-workgroup transform of length padded
// (appended to shaders/fft.wgsl, whose `main`, parameters, `fetch` and `write_out` they
// use; its `load_x` / `store_x` call these, and its `inverse()` is the fixed direction of
// the padded transform):
// - `ChirpIn` (a forward transform): element k of the padded row is x_k w_k (conj(x_k) w_k
//   for inverse transforms) for k < chirp_n() = n, else zero, x read through `fetch` at the
//   caller's addressing; each result is multiplied by the transform of the chirp filter
//   before it is written (contiguous rows of padded).
// - `ChirpOut` (an inverse transform of those rows): result k < n_out() is y_k w_k (its
//   conjugate for inverse transforms) times scale(), written at the caller's addressing.
//
// Bindings: as shaders/fft.wgsl's `main`, and 3 `aux`: the chirp w_k = exp(-i pi k^2 / n)
// (k < n) at 0, the transform of the chirp filter (padded elements) at chirp_n().

@group(0) @binding(3) var<storage, read> aux: array<vec2<T>>;

fn chirp_n() -> u32 { return P.st0[1].x; }
fn user_inverse() -> bool { return P.aux.x != 0u; }

fn load_chirp(o: vec4<u32>, k: u32) -> vec2<T> {
    if (o.w == 0u || k >= chirp_n()) {
        return vec2<T>(T(0), T(0));
    }
    var v = fetch(o.x, k);
    if (user_inverse()) {
        v = conj(v);
    }
    return cmul(v, aux[k]);
}

fn store_filter(o: vec4<u32>, k: u32, v: vec2<T>) {
    if (o.w == 0u) {
        return;
    }
    write_out(o.y + k * s_out(), cmul(v, aux[chirp_n() + k]));
}

fn store_chirp(o: vec4<u32>, k: u32, v: vec2<T>) {
    if (o.w == 0u || k >= n_out()) {
        return;
    }
    var y = cmul(v, aux[k]);
    if (user_inverse()) {
        y = conj(y);
    }
    write_out(o.y + k * s_out(), y * scale());
}
