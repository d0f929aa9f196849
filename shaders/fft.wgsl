// FFT family: batched complex discrete Fourier transforms of one length L() that fits
// workgroup memory (mixed-radix Stockham passes there: one read and one write of global
// memory), and the copies of the multi-pass plans (`gather`: a strided, padded or Hermitian
// input into contiguous rows; `crop`: contiguous rows into a strided, cropped or real output).
//
// A transform is addressed by its batch index b (P.n batches) and its element index k:
// the batch's offsets (input, output, four-step twiddle multiplier) come from b's
// multi-index over the P.ndim (at most 4) batch dimensions (extents shape[d], strides
// st0[d], st1[d], st2[d]); element k of the input is at in_offset(b) + k * s_in(), of the output at
// out_offset(b) + k * s_out(). Strides travel as u32 and wrap (negative strides work).
//
// Bindings: 0 params; 1 `src` the input (complex vec2<T>, or real T: alias IN and read_in);
// 2 `tw` twiddles as vec2<T>, computed in f64 on the host: W_L^j (j < L()) at 0, each
// Stockham pass's own (src/fft/passes.rs `table_offsets`) after them, and for a four-step
// pass W_N^(hi * 2^tw_shift()) at tw_coarse() and W_N^lo at tw_fine();
// 4 `dst` the output (complex, or the real parts: alias OUT and write_out).
// Dispatch geometry:
// - `main`: a 1-D grid of workgroups (folded into 2-D) of WG invocations; workgroup g
//   transforms batches g * M() .. g * M() + M() - 1, each in its own row of `sbuf` (rows
//   L() + 1 apart where M() > 1, so that the column mapping spreads over the banks). The
//   Stockham passes of radix R (`run_passes`, generated per L as straight-line code by
//   src/fft/passes.rs: every value in its own variable) hold every butterfly's R values in
//   registers: the first pass reads them from global memory (`load_x`), each later pass
//   from `sbuf` (all read, a barrier, then written to their sorted places: one buffer, no
//   ping-pong), and the last writes its results to global memory (`store_x`). The first
//   and last passes map neighbouring invocations to neighbouring elements of one transform
//   where its stride is 1, else to element k of neighbouring transforms (the columns of a
//   four-step pass): the choice is compiled into the kernel. Each butterfly computes its
//   transform's offsets once (`offs`: one multi-index per R elements, none per element).
// - `gather`, `crop`: one invocation per element (b, k) of the batch's rows of L() (gather)
//   or n_out() (crop) elements.
// - `rpack`: one invocation per pair (b, k), k <= row_len() / 2, of a real transform's
//   outputs k and row_len() - k (src/fft/real.rs).

#import params

alias T = f32;              // component type
alias IN = vec2<f32>;       // what `src` holds
alias OUT = vec2<f32>;      // what `dst` holds
alias S = f32;              // scalar arguments: the scale
alias SC = f32;
alias SBUF = array<vec2<f32>, 1024>; // M() rows of L() elements (one apart where M() > 1)

override WG: u32 = 256u;

@group(0) @binding(1) var<storage, read> src: array<IN>;
@group(0) @binding(2) var<storage, read> tw: array<vec2<T>>;
@group(0) @binding(4) var<storage, read_write> dst: array<OUT>;

var<workgroup> sbuf: SBUF;
var<private> first_batch: u32;      // the batch of this workgroup's first transform

// Generated per kernel (src/fft/kernel.rs).
fn fft_len() -> u32 { return 64u; }
fn per_group() -> u32 { return 1u; }
fn run_passes(lid: u32) { }      // the passes: pass_0(lid); pass_1(lid); ... (first_batch set)
fn read_in(i: u32) -> vec2<T> { return src[i]; }
fn write_out(i: u32, v: vec2<T>) { dst[i] = v; }
fn sb(i: u32) -> u32 { return i; }  // where element i of `sbuf` lies (padded: i + i / 16)
fn sw(x: u32) -> u32 { return x; }  // where element x of a row lies in it (swizzled: src/fft/banks.rs)
fn twl(j: u32) -> vec2<T> { return twiddle(j); }  // W_L^j (the radix-R constants)
fn twp(k: u32, j: u32) -> vec2<T> { return twiddle(k); }  // a pass's twiddle: entry k, W_L^j

// The family's parameters, mirroring `FftParams` in src/fft/kernel.rs.
fn batches() -> u32 { return P.n; }                 // transforms
fn inverse() -> bool { return P.aux.x != 0u; }      // conjugate twiddles
fn herm() -> u32 { return P.aux.y; }                // elements k >= herm() are conj(x[row_len() - k]); 0: none
fn row_len() -> u32 { return P.shape[1].x; }        // the transform's length (gather: its rows; crop: the input's rows)
fn n_in() -> u32 { return P.shape[1].y; }           // input elements present (zeros past them)
fn n_out() -> u32 { return P.shape[1].z; }          // output elements written
fn tw_n() -> u32 { return P.shape[1].w; }           // four-step twiddle modulus N (0: none)
fn s_in() -> u32 { return P.st0[1].w; }
fn s_out() -> u32 { return P.st1[1].w; }
fn tw_coarse() -> u32 { return P.st2[1].w; }
fn tw_fine() -> u32 { return P.st2[1].z; }
fn tw_shift() -> u32 { return P.st2[1].y; }
fn scale() -> T { return T(arg(0u)); }

// Whether the batch has one dimension (its offsets then need no division; b is below its
// extent). Replaced by `false` with GPUARRAY_FFT_OFFS=0 (the loop for every batch).
fn one_dim() -> bool { return P.ndim == 1u; }

// Input offset, output offset and twiddle multiplier of batch b.
fn batch_offs(b: u32) -> vec3<u32> {
    if (one_dim()) {
        return vec3<u32>(P.offs.x, P.offs.w, 0u) + b * strides_of(0u);
    }
    var rem = b;
    var o = vec3<u32>(P.offs.x, P.offs.w, 0u);
    for (var d = i32(P.ndim) - 1; d >= 0; d--) {
        let e = extent_of(u32(d));
        o += (rem % e) * strides_of(u32(d));
        rem = rem / e;
    }
    return o;
}

fn cmul(a: vec2<T>, b: vec2<T>) -> vec2<T> {
    return vec2<T>(a.x * b.x - a.y * b.y, a.x * b.y + a.y * b.x);
}
fn conj(a: vec2<T>) -> vec2<T> {
    return vec2<T>(a.x, -a.y);
}

// Twiddle j of the table (conjugated for inverse transforms).
fn twiddle(j: u32) -> vec2<T> {
    let w = tw[j];
    if (inverse()) {
        return conj(w);
    }
    return w;
}

// Element k of the transform whose input starts at `base`, zero past n_in(), the mirror's
// conjugate past herm().
fn fetch(base: u32, k: u32) -> vec2<T> {
    var kk = k;
    var c = false;
    if (herm() != 0u && k >= herm()) {
        kk = row_len() - k;
        c = true;
    }
    if (kk >= n_in()) {
        return vec2<T>(T(0), T(0));
    }
    let v = read_in(base + kk * s_in());
    if (c) {
        return conj(v);
    }
    return v;
}

// W_N^m of a four-step pass (m < N): coarse times fine.
fn step_twiddle(m: u32) -> vec2<T> {
    let hi = m >> tw_shift();
    let lo = m & ((1u << tw_shift()) - 1u);
    return cmul(twiddle(tw_coarse() + hi), twiddle(tw_fine() + lo));
}

// The constant (c, s) = W^e of a forward transform, conjugated for an inverse one.
fn dirw(c: T, s: T) -> vec2<T> {
    if (inverse()) {
        return vec2<T>(c, -s);
    }
    return vec2<T>(c, s);
}

// -i z (forward) or +i z (inverse).
fn rot(z: vec2<T>) -> vec2<T> {
    if (inverse()) {
        return vec2<T>(-z.y, z.x);
    }
    return vec2<T>(z.y, -z.x);
}

// Offsets of transform m of this workgroup (batch first_batch + m): input, output,
// four-step twiddle multiplier, and 1 where the batch exists (0 past the last).
fn offs(m: u32) -> vec4<u32> {
    let b = first_batch + m;
    if (b >= batches()) {
        return vec4<u32>(0u);
    }
    return vec4<u32>(batch_offs(b), 1u);
}

// What the first pass loads and the last pass stores (one line each: shaders/fft_chirp.wgsl
// replaces them in Bluestein's kernels).
fn load_x(o: vec4<u32>, k: u32) -> vec2<T> { return load_plain(o, k); }
fn store_x(o: vec4<u32>, k: u32, v: vec2<T>) { store_plain(o, k, v); }

// Element k of the transform at offsets `o` (zero past the batch).
fn load_plain(o: vec4<u32>, k: u32) -> vec2<T> {
    if (o.w == 0u) {
        return vec2<T>(T(0), T(0));
    }
    return fetch(o.x, k);
}

// Writes element k of the transform at offsets `o`: times the four-step twiddle and the
// scale, where it exists and k < n_out().
fn store_plain(o: vec4<u32>, k: u32, v: vec2<T>) {
    if (o.w == 0u || k >= n_out()) {
        return;
    }
    var x = v;
    if (tw_n() != 0u) {
        x = cmul(x, step_twiddle(k * o.z));
    }
    write_out(o.y + k * s_out(), x * scale());
}

@compute @workgroup_size(WG)
fn main(
    @builtin(local_invocation_index) lid: u32,
    @builtin(workgroup_id) wid: vec3<u32>,
    @builtin(num_workgroups) nwg: vec3<u32>,
) {
    first_batch = (wid.y * nwg.x + wid.x) * per_group();
    if (first_batch >= batches()) {
        return;
    }
    run_passes(lid);
}

// Rows of row_len() contiguous elements (batch b at b * row_len()), read through `fetch`.
@compute @workgroup_size(WG)
fn gather(
    @builtin(local_invocation_index) lid: u32,
    @builtin(workgroup_id) wid: vec3<u32>,
    @builtin(num_workgroups) nwg: vec3<u32>,
) {
    let i = linear_id(wid, nwg, lid, WG);
    let L = row_len();
    if (i >= batches() * L) {
        return;
    }
    let b = i / L;
    let k = i % L;
    write_out(i, fetch(batch_offs(b).x, k) * scale());
}

// The first n_out() elements of contiguous input rows of row_len() elements, written
// through the output addressing (twiddles unused).
@compute @workgroup_size(WG)
fn crop(
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
    let o = batch_offs(b);
    write_out(o.y + k * s_out(), read_in(b * row_len() + k) * scale());
}

// A real transform of even length n = 2 N from the complex transform Z (input rows of
// row_len() = N elements at the batch's input offsets) of its samples paired as z_j = x_(2j) + i x_(2j+1): invocation
// (b, k), k <= N / 2, forms E = (Z_k + conj Z_(N-k)) / 2 and O = (Z_k - conj Z_(N-k)) / 2i
// (Z_N = Z_0) and writes X_k = E + W_n^k O and X_(N-k) = conj(E - W_n^k O) through the
// output addressing, times scale(); W_n^k by `step_twiddle` (tw_n() = n).
@compute @workgroup_size(WG)
fn rpack(
    @builtin(local_invocation_index) lid: u32,
    @builtin(workgroup_id) wid: vec3<u32>,
    @builtin(num_workgroups) nwg: vec3<u32>,
) {
    let i = linear_id(wid, nwg, lid, WG);
    let nh = row_len();
    let w = nh / 2u + 1u;
    if (i >= batches() * w) {
        return;
    }
    let b = i / w;
    let k = i % w;
    var kn = nh - k;
    if (k == 0u) {
        kn = 0u;
    }
    let o2 = batch_offs(b);
    let a = read_in(o2.x + k);
    let c = conj(read_in(o2.x + kn));
    let e = (a + c) * T(0.5);
    let d = (a - c) * T(0.5);
    let o = vec2<T>(d.y, -d.x);
    let t = cmul(step_twiddle(k), o);
    let base = o2.y;
    write_out(base + k * s_out(), (e + t) * scale());
    write_out(base + (nh - k) * s_out(), conj(e - t) * scale());
}
