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
// 2 `tw` twiddles as vec2<T>, computed in f64 on the host: W_L^j (j < L()) at 0, and for a
// four-step pass W_N^(hi * 2^tw_shift()) at tw_coarse() and W_N^lo at tw_fine();
// 4 `dst` the output (complex, or the real parts: alias OUT and write_out).
// Dispatch geometry:
// - `main`: a 1-D grid of workgroups (folded into 2-D) of WG invocations; workgroup g
//   transforms batches g * M() .. g * M() + M() - 1, each in its own L() slots of `sbuf`.
//   Loads and stores map neighbouring invocations to neighbouring elements of one
//   transform where its stride is 1, else to element k of neighbouring transforms (the
//   columns of a four-step pass). Each Stockham pass of radix R (`run_passes`, generated per
//   L by src/fft/kernel.rs) loads every butterfly's R values into registers, waits, and
//   writes them to their sorted places (one buffer, no ping-pong).
// - `gather`, `crop`: one invocation per element (b, k) of the batch's rows of L() (gather)
//   or n_out() (crop) elements.

#import params

alias T = f32;              // component type
alias IN = vec2<f32>;       // what `src` holds
alias OUT = vec2<f32>;      // what `dst` holds
alias S = f32;              // scalar arguments: the scale
alias SC = f32;
alias SBUF = array<vec2<f32>, 1024>; // M() * L() elements

override WG: u32 = 256u;
// Registers per invocation in a pass (butterflies per invocation times the radix).
const VMAX: u32 = 48u;

@group(0) @binding(1) var<storage, read> src: array<IN>;
@group(0) @binding(2) var<storage, read> tw: array<vec2<T>>;
@group(0) @binding(4) var<storage, read_write> dst: array<OUT>;

var<workgroup> sbuf: SBUF;

// Generated per kernel (src/fft/kernel.rs).
fn fft_len() -> u32 { return 64u; }
fn per_group() -> u32 { return 1u; }
fn run_passes(lid: u32) { butterflies(lid, 1u, 4u, 1u); butterflies(lid, 4u, 4u, 1u); butterflies(lid, 16u, 4u, 1u); }
fn read_in(i: u32) -> vec2<T> { return src[i]; }
fn write_out(i: u32, v: vec2<T>) { dst[i] = v; }

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

// Input offset, output offset and twiddle multiplier of batch b.
fn batch_offs(b: u32) -> vec3<u32> {
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

// One Stockham pass of radix R over every transform of the workgroup, C butterflies per
// invocation at most (constants of the generated call, so that the loops unroll and `v`
// stays in registers): butterfly j of
// transform m reads elements j + r * L/R, twiddles them by W_(ns R)^(r (j % ns)), transforms
// them, and writes element (j / ns) * ns * R + j % ns + r * ns.
fn butterflies(lid: u32, ns: u32, R: u32, C: u32) {
    let L = fft_len();
    let q = L / R;
    let total = per_group() * q;
    let stride = L / (ns * R);
    var v: array<vec2<T>, VMAX>;
    for (var b = 0u; b < C; b++) {
        let i = lid + b * WG;
        if (i >= total) {
            break;
        }
        let m = i / q;
        let j = i % q;
        for (var r = 0u; r < R; r++) {
            v[b * R + r] = sbuf[m * L + j + r * q];
        }
    }
    workgroupBarrier();
    for (var b = 0u; b < C; b++) {
        let i = lid + b * WG;
        if (i >= total) {
            break;
        }
        let c = b * R;
        let m = i / q;
        let j = i % q;
        let t = j % ns;
        for (var r = 1u; r < R; r++) {
            v[c + r] = cmul(v[c + r], twiddle(r * t * stride));
        }
        switch R {
            case 2u: { radix2(&v, c); }
            case 4u: { radix4(&v, c); }
            case 8u: { radix8(&v, c); }
            default: { radix_any(&v, c, R); }
        }
        let d = m * L + (j / ns) * ns * R + t;
        for (var r = 0u; r < R; r++) {
            sbuf[d + r * ns] = v[c + r];
        }
    }
    workgroupBarrier();
}


fn radix2(v: ptr<function, array<vec2<T>, VMAX>>, c: u32) {
    let a = (*v)[c];
    let b = (*v)[c + 1u];
    (*v)[c] = a + b;
    (*v)[c + 1u] = a - b;
}

// -i z (forward) or +i z (inverse).
fn rot(z: vec2<T>) -> vec2<T> {
    if (inverse()) {
        return vec2<T>(-z.y, z.x);
    }
    return vec2<T>(z.y, -z.x);
}

fn radix4(v: ptr<function, array<vec2<T>, VMAX>>, c: u32) {
    let a0 = (*v)[c];
    let a1 = (*v)[c + 1u];
    let a2 = (*v)[c + 2u];
    let a3 = (*v)[c + 3u];
    let s02 = a0 + a2;
    let d02 = a0 - a2;
    let s13 = a1 + a3;
    let d13 = rot(a1 - a3);
    (*v)[c] = s02 + s13;
    (*v)[c + 1u] = d02 + d13;
    (*v)[c + 2u] = s02 - s13;
    (*v)[c + 3u] = d02 - d13;
}

fn radix8(v: ptr<function, array<vec2<T>, VMAX>>, c: u32) {
    // Two radix-4 transforms of the even and odd elements, then one radix-2 stage.
    let h = T(0.70710678118654752440084436210484903928);
    var e: array<vec2<T>, 4>;
    var o: array<vec2<T>, 4>;
    for (var r = 0u; r < 4u; r++) {
        e[r] = (*v)[c + 2u * r];
        o[r] = (*v)[c + 2u * r + 1u];
    }
    let es02 = e[0] + e[2];
    let ed02 = e[0] - e[2];
    let es13 = e[1] + e[3];
    let ed13 = rot(e[1] - e[3]);
    let E0 = es02 + es13;
    let E1 = ed02 + ed13;
    let E2 = es02 - es13;
    let E3 = ed02 - ed13;
    let os02 = o[0] + o[2];
    let od02 = o[0] - o[2];
    let os13 = o[1] + o[3];
    let od13 = rot(o[1] - o[3]);
    let O0 = os02 + os13;
    var O1 = od02 + od13;
    var O2 = os02 - os13;
    var O3 = od02 - od13;
    // W_8^1 = (1 - i)/sqrt2, W_8^2 = -i, W_8^3 = (-1 - i)/sqrt2 (conjugates for inverse).
    let r1 = rot(O1);
    O1 = (O1 + r1) * h;
    O2 = rot(O2);
    let r3 = rot(O3);
    O3 = (r3 - O3) * h;
    (*v)[c] = E0 + O0;
    (*v)[c + 4u] = E0 - O0;
    (*v)[c + 1u] = E1 + O1;
    (*v)[c + 5u] = E1 - O1;
    (*v)[c + 2u] = E2 + O2;
    (*v)[c + 6u] = E2 - O2;
    (*v)[c + 3u] = E3 + O3;
    (*v)[c + 7u] = E3 - O3;
}

// A DFT of any radix R (3, 5, 7, 11, 13) by its definition, W_R^m read as W_L^(m L / R).
fn radix_any(v: ptr<function, array<vec2<T>, VMAX>>, c: u32, R: u32) {
    var a: array<vec2<T>, 16>;
    for (var r = 0u; r < R; r++) {
        a[r] = (*v)[c + r];
    }
    let step = fft_len() / R;
    for (var k = 0u; k < R; k++) {
        var s = a[0];
        for (var r = 1u; r < R; r++) {
            s += cmul(a[r], twiddle(((r * k) % R) * step));
        }
        (*v)[c + k] = s;
    }
}

@compute @workgroup_size(WG)
fn main(
    @builtin(local_invocation_index) lid: u32,
    @builtin(workgroup_id) wid: vec3<u32>,
    @builtin(num_workgroups) nwg: vec3<u32>,
) {
    let L = fft_len();
    let M = per_group();
    let b0 = (wid.y * nwg.x + wid.x) * M;
    if (b0 >= batches()) {
        return;
    }
    let total = M * L;
    let row_in = s_in() == 1u;
    for (var e = lid; e < total; e += WG) {
        var m = e / L;
        var k = e % L;
        if (!row_in) {
            m = e % M;
            k = e / M;
        }
        var x = vec2<T>(T(0), T(0));
        if (b0 + m < batches()) {
            x = fetch(batch_offs(b0 + m).x, k);
        }
        sbuf[m * L + k] = x;
    }
    workgroupBarrier();
    run_passes(lid);
    let row_out = s_out() == 1u;
    for (var e = lid; e < total; e += WG) {
        var m = e / L;
        var k = e % L;
        if (!row_out) {
            m = e % M;
            k = e / M;
        }
        if (b0 + m < batches() && k < n_out()) {
            let o = batch_offs(b0 + m);
            var x = sbuf[m * L + k];
            if (tw_n() != 0u) {
                x = cmul(x, step_twiddle(k * o.z));
            }
            write_out(o.y + k * s_out(), x * scale());
        }
    }
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
