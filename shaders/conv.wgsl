// Convolution family: SciPy's signal convolutions (1-D and 2-D) and PyTorch's conv layers
// (host side: src/ops/conv/).
//
// Bindings: 0 params (shared/params.wgsl); 1 x (the input); 2 w (the filter); 3 bias (nn
// kernels only); 4 out (contiguous).
//
// Every signal kernel computes a correlation with the "correlation taps" Wc (the filter,
// reversed in both dimensions for a convolution when sig_flip() is true):
//   out[i, j] = sum_{a, b} X(i + oy + a, j + ox + b) * Wc[a, b]
// where (oy, ox) is the signed origin of the output in the input (from the mode), and X
// extends the input beyond its edges by the boundary rule (0 fill value, 1 symmetric, 2 wrap).
//
// Entry points and their dispatch geometry:
// - sig2d_direct: one invocation per output element, any filter size (1-D grid of WG).
// - sig2d_tile: workgroup (TX, TY) computes a (TY * PY) x TX output tile; its input tile with
//   the (KH - 1, KW - 1) halo and the KH x KW taps sit in workgroup memory; one invocation
//   computes PY outputs down a column, sliding down the tile's column (conflict-free reads).
// - sig1d: 1-D, zero fill; a workgroup computes 4 * R1 * WG consecutive outputs, one
//   invocation 4 consecutive outputs in each of R1 vec4 groups; taps pass through workgroup
//   memory in chunks of TC (zero padded; the padding is never multiplied), with the input
//   segment they need. A block whose inputs pass the signal's ends while a tap is infinite or
//   NaN sums from global memory over the inputs that exist instead (sig1d_clipped), as SciPy
//   does: 0 * inf would put NaN where SciPy has a number.
// - nn_direct: one invocation per output element of a PyTorch conv2d (any stride, padding,
//   dilation, groups); the fallback for depthwise and channel-poor layers.
// - nn_gemm: implicit GEMM per group: C[p, o] = sum_k A[p, k] * B[k, o] with A the im2col
//   of the input gathered on the fly (p = image * OH * OW + output pixel, every image's
//   pixels in one dimension so that small images fill whole tiles; k = (c, a, b), or with
//   TAPS, where BK divides C / groups, k = (a, b, c) so that a K tile is one tap) and B the
//   weight transposed to [groups, K, Og] in the same order. Workgroups: x = channel tile
//   (fastest, so that the workgroups sharing an A tile run together and find it in L2),
//   pixel tile chunk * nwg.y + y (tiles past the end return at once), z = group * chunks +
//   chunk; BM x BN tile per workgroup, BK deep, TM x TN per invocation.
//
// Parameters: every kernel reads the generic P.n (outputs), P.offs (element offsets of x, w
// and bias) and arg(0u) (the fill value) directly, and everything else through the accessors
// below.

#import params
#import conv_layer

// Parameter accessors. They mirror the Rust structs of src/ops/conv/params.rs, whose
// `encode` is the only code that fills these slots: keep the two in step.
// Both signal layouts (Signal1dParams, Signal2dParams):
fn sig_flip() -> bool { return P.st0[0].y == 1u; }   // reverse the taps (a convolution)
// Signal2dParams (sig2d_direct, sig2d_tile):
fn s2_in_h() -> u32 { return P.shape[0].x; }
fn s2_in_w() -> u32 { return P.shape[0].y; }
fn s2_out_h() -> u32 { return P.shape[0].z; }
fn s2_out_w() -> u32 { return P.shape[0].w; }
fn s2_k_h() -> u32 { return P.shape[1].x; }
fn s2_k_w() -> u32 { return P.shape[1].y; }
fn s2_origin_y() -> i32 { return bitcast<i32>(P.shape[1].z); }
fn s2_origin_x() -> i32 { return bitcast<i32>(P.shape[1].w); }
fn s2_edge() -> u32 { return P.st0[0].x; }           // 0 fill value, 1 symmetric, 2 wrap
// Signal1dParams (sig1d):
fn s1_len_in() -> u32 { return P.shape[0].x; }
fn s1_taps() -> u32 { return P.shape[0].y; }
fn s1_len_out() -> u32 { return P.shape[0].z; }
fn s1_blocks() -> u32 { return P.shape[0].w; }
fn s1_origin() -> i32 { return bitcast<i32>(P.shape[1].z); }
// LayerParams (nn_direct, nn_gemm): the nn_* accessors of shared/conv_layer.wgsl, and
fn nn_batch() -> u32 { return P.shape[0].w; }        // N (read by nn_gemm only)

alias S = f32;   // element type
alias SC = f32;  // carrier of scalar arguments
alias ACC = f32; // accumulator: S, or f32 for f16

// Each kernel's host sets its own constants; the others keep these minimal defaults, so
// that the workgroup arrays of the other entry points stay small.
override WG: u32 = 64u;
// sig2d_tile (also sizes KH and KW of nn_gemm's im2col decomposition)
override KH: u32 = 1u;
override KW: u32 = 1u;
override TX: u32 = 1u;
override TY: u32 = 1u;
override PY: u32 = 1u;   // outputs per invocation down a column (at most MAX_PY)
// sig1d
override R1: u32 = 1u;   // vec4 output groups per invocation (at most 4)
override TC: u32 = 4u;   // taps per chunk (a multiple of 4)
override SEG4: u32 = 1u; // R1 * WG + TC / 4: the vec4s of one input segment
// nn_gemm
override BM: u32 = 4u;   // pixels per tile
override BN: u32 = 4u;   // output channels per tile
override BK: u32 = 4u;
override TM: u32 = 4u;   // pixels per invocation (4 or 8)
override TN: u32 = 4u;   // channels per invocation (4 or 8)
override TAPS: bool = false;  // k = tap * Cg + c (Cg a multiple of BK), else k = c * KH * KW + tap

const MAX_PY: u32 = 8u;
const MAX_KH: u32 = 16u;
const MAX_ACC: u32 = 16u;
const MAX_LOAD: u32 = 16u;

@group(0) @binding(1) var<storage, read> x: array<S>;
@group(0) @binding(2) var<storage, read> w: array<S>;
@group(0) @binding(3) var<storage, read> bias: array<S>;
@group(0) @binding(4) var<storage, read_write> out: array<S>;

var<workgroup> xs: array<ACC, (TY * PY + KH - 1u) * (TX + KW - 1u)>;
var<workgroup> ws: array<ACC, KH * KW>;
var<workgroup> xs4: array<vec4<ACC>, SEG4>;
var<workgroup> ws4: array<vec4<ACC>, TC / 4u>;
var<workgroup> As: array<vec4<ACC>, BK * BM / 4u>;
var<workgroup> Bs: array<vec4<ACC>, BK * BN / 4u>;

// i modulo p in [0, p) for p > 0, with `%` on non-negative operands only: GLSL leaves `%`
// of a negative operand undefined (Mesa's GL wrapped and reflected wrongly: issue 36).
fn bmod(i: i32, p: i32) -> i32 {
    if (i >= 0) { return i % p; }
    return p - 1 - (-1 - i) % p;
}

// Index of coordinate i in an extent of n under the boundary rule, or -1 for the fill value.
fn bmap(i: i32, n: i32, mode: u32) -> i32 {
    if (i >= 0 && i < n) { return i; }
    if (mode == 0u) { return -1; }
    if (mode == 2u) { return bmod(i, n); }
    let p = 2 * n;
    var j = bmod(i, p);
    if (j >= n) { j = p - 1 - j; }
    return j;
}

// The extended input X(r, c).
fn xval(r: i32, c: i32) -> ACC {
    let H = i32(s2_in_h());
    let W = i32(s2_in_w());
    let mode = s2_edge();
    let rr = bmap(r, H, mode);
    let cc = bmap(c, W, mode);
    if (rr < 0 || cc < 0) { return ACC(arg(0u)); }
    return ACC(x[P.offs.x + u32(rr * W + cc)]);
}

// Correlation tap t of `taps` (row-major): the filter read forwards, or backwards when `flip`
// (a convolution).
fn ctap(t: u32, taps: u32, flip: bool) -> ACC {
    return ACC(w[P.offs.y + select(t, taps - 1u - t, flip)]);
}

@compute @workgroup_size(WG)
fn sig2d_direct(@builtin(workgroup_id) wid: vec3<u32>, @builtin(num_workgroups) nwg: vec3<u32>,
                @builtin(local_invocation_index) lid: u32) {
    let o = linear_id(wid, nwg, lid, WG);
    if (o >= P.n) { return; }
    let OW = s2_out_w();
    let kh = s2_k_h();
    let kw = s2_k_w();
    let oy = s2_origin_y();
    let ox = s2_origin_x();
    let flip = sig_flip();
    let i = i32(o / OW) + oy;
    let j = i32(o % OW) + ox;
    let taps = kh * kw;
    var acc = ACC(0);
    for (var a = 0u; a < kh; a++) {
        for (var b = 0u; b < kw; b++) {
            acc += xval(i + i32(a), j + i32(b)) * ctap(a * kw + b, taps, flip);
        }
    }
    out[o] = S(acc);
}

@compute @workgroup_size(TX, TY)
fn sig2d_tile(@builtin(workgroup_id) wid: vec3<u32>, @builtin(local_invocation_id) lid3: vec3<u32>,
              @builtin(local_invocation_index) lid: u32) {
    let OH = s2_out_h();
    let OW = s2_out_w();
    let oy = s2_origin_y();
    let ox = s2_origin_x();
    let flip = sig_flip();
    let TH = TY * PY;
    let SW = TX + KW - 1u;
    let SH = TH + KH - 1u;
    let r0 = wid.y * TH;
    let c0 = wid.x * TX;

    for (var q = lid; q < SH * SW; q += TX * TY) {
        let r = q / SW;
        let c = q % SW;
        xs[q] = xval(i32(r0 + r) + oy, i32(c0 + c) + ox);
    }
    let taps = KH * KW;
    for (var q = lid; q < taps; q += TX * TY) {
        ws[q] = ctap(q, taps, flip);
    }
    workgroupBarrier();

    let tx = lid3.x;
    let ty = lid3.y;
    var acc: array<ACC, MAX_PY>;
    for (var p = 0u; p < MAX_PY; p++) {
        acc[p] = ACC(0);
    }
    var col: array<ACC, MAX_KH>;
    for (var b = 0u; b < KW; b++) {
        for (var a = 0u; a < KH; a++) {
            col[a] = ws[a * KW + b];
        }
        let base = ty * PY * SW + tx + b;
        for (var k = 0u; k < PY + KH - 1u; k++) {
            let v = xs[base + k * SW];
            for (var p = 0u; p < PY; p++) {
                if (k >= p && k - p < KH) {
                    acc[p] += v * col[k - p];
                }
            }
        }
    }
    let c = c0 + tx;
    if (c >= OW) { return; }
    for (var p = 0u; p < PY; p++) {
        let r = r0 + ty * PY + p;
        if (r < OH) {
            out[r * OW + c] = S(acc[p]);
        }
    }
}

var<workgroup> s1_bad_taps: u32;

// Whether v is infinite or NaN, from the bits of v as f32 (an f64 beyond f32's range counts
// too: it only sends a block to the exact path). Float tests (`v != v`, `2v == v`) are what
// a compiler assuming finite values folds to false, as NVIDIA's did: edge blocks then
// multiplied an infinite tap by the input's padding zeros, NaN where SciPy has inf.
fn s1_nonfinite(v: ACC) -> bool {
    return (bitcast<u32>(f32(v)) & 0x7f800000u) == 0x7f800000u;
}

// Whether this block reads past the input's ends, and then whether a tap is infinite or
// NaN, read uniformly by the workgroup: only then do the zeros that pad the input differ
// from skipping it (0 * inf is NaN), and sig1d takes sig1d_clipped.
fn sig1d_needs_clipping(o0: u32, lid: u32) -> bool {
    let lo = i32(o0) + s1_origin();
    let edge = lo < 0 || lo + i32(4u * R1 * WG + s1_taps()) - 1 > i32(s1_len_in());
    if (!edge) { return false; }
    if (lid == 0u) { s1_bad_taps = 0u; }
    workgroupBarrier();
    for (var t = lid; t < s1_taps(); t += WG) {
        if (s1_nonfinite(ctap(t, s1_taps(), false))) {
            s1_bad_taps = 1u;
        }
    }
    return workgroupUniformLoad(&s1_bad_taps) != 0u;
}

// The outputs of sig1d's invocation lid, each summed over the taps whose input lies inside
// the signal only (NumPy's and SciPy's direct sums), straight from global memory.
fn sig1d_clipped(o0: u32, lid: u32) {
    let n_in = i32(s1_len_in());
    let m = i32(s1_taps());
    let flip = sig_flip();
    for (var r = 0u; r < R1; r++) {
        for (var j = 0u; j < 4u; j++) {
            let o = o0 + 4u * (lid + r * WG) + j;
            if (o >= s1_len_out()) { continue; }
            let g0 = i32(o) + s1_origin();
            var acc = ACC(0);
            for (var t = max(0, -g0); t < min(m, n_in - g0); t++) {
                acc += ACC(x[P.offs.x + u32(g0 + t)]) * ctap(u32(t), u32(m), flip);
            }
            out[o] = S(acc);
        }
    }
}

// One invocation's R1 vec4 groups of outputs, over taps t0.. of the chunk in workgroup
// memory: `full` whole groups of 4 taps, then `tail` taps of a last partial group (the
// zeros padding the chunk are never multiplied: 0 * inf would spoil outputs whose window
// holds no infinity).
fn sig1d_chunk(lid: u32, full: u32, tail: u32, acc: ptr<function, array<vec4<ACC>, 4>>) {
    for (var r = 0u; r < R1; r++) {
        let q = lid + r * WG;
        var cur = xs4[q];
        var s = (*acc)[r];
        for (var t = 0u; t < full; t++) {
            let nxt = xs4[q + t + 1u];
            let k = ws4[t];
            s += cur * k.x;
            s += vec4<ACC>(cur.yzw, nxt.x) * k.y;
            s += vec4<ACC>(cur.zw, nxt.xy) * k.z;
            s += vec4<ACC>(cur.w, nxt.xyz) * k.w;
            cur = nxt;
        }
        if (tail > 0u) {
            let nxt = xs4[q + full + 1u];
            let k = ws4[full];
            s += cur * k.x;
            if (tail > 1u) { s += vec4<ACC>(cur.yzw, nxt.x) * k.y; }
            if (tail > 2u) { s += vec4<ACC>(cur.zw, nxt.xy) * k.z; }
        }
        (*acc)[r] = s;
    }
}

@compute @workgroup_size(WG)
fn sig1d(@builtin(workgroup_id) wid: vec3<u32>, @builtin(num_workgroups) nwg: vec3<u32>,
         @builtin(local_invocation_index) lid: u32) {
    let n_in = i32(s1_len_in());
    let m = s1_taps();
    let n_out = s1_len_out();
    let block = wid.y * nwg.x + wid.x;
    if (block >= s1_blocks()) { return; }
    let ox = s1_origin();
    let flip = sig_flip();
    let BLOCK = 4u * R1 * WG;
    let o0 = block * BLOCK;
    let SEG = BLOCK + TC;
    if (sig1d_needs_clipping(o0, lid)) {
        sig1d_clipped(o0, lid);
        return;
    }

    var acc: array<vec4<ACC>, 4>;
    for (var r = 0u; r < R1; r++) {
        acc[r] = vec4<ACC>();
    }
    for (var t0 = 0u; t0 < m; t0 += TC) {
        workgroupBarrier();
        let base = i32(o0) + ox + i32(t0);
        for (var q = lid; q < SEG; q += WG) {
            let g = base + i32(q);
            var v = ACC(0);
            if (g >= 0 && g < n_in) { v = ACC(x[P.offs.x + u32(g)]); }
            xs4[q / 4u][q % 4u] = v;
        }
        for (var q = lid; q < TC; q += WG) {
            let t = t0 + q;
            var v = ACC(0);
            if (t < m) { v = ctap(t, m, flip); }
            ws4[q / 4u][q % 4u] = v;
        }
        workgroupBarrier();
        let left = min(TC, m - t0);
        sig1d_chunk(lid, left / 4u, left % 4u, &acc);
    }
    for (var r = 0u; r < R1; r++) {
        let o = o0 + 4u * (lid + r * WG);
        for (var j = 0u; j < 4u; j++) {
            if (o + j < n_out) {
                out[o + j] = S(acc[r][j]);
            }
        }
    }
}

@compute @workgroup_size(WG)
fn nn_direct(@builtin(workgroup_id) wid: vec3<u32>, @builtin(num_workgroups) nwg: vec3<u32>,
             @builtin(local_invocation_index) lid: u32) {
    let o = linear_id(wid, nwg, lid, WG);
    if (o >= P.n) { return; }
    let C = nn_channels();
    let H = nn_in_h();
    let W = nn_in_w();
    let O = nn_out_channels();
    let OH = nn_out_h();
    let OW = nn_out_w();
    let kh = nn_k_h();
    let kw = nn_k_w();
    let sh = nn_stride_h();
    let sw = nn_stride_w();
    let ph = nn_pad_h();
    let pw = nn_pad_w();
    let dh = nn_dil_h();
    let dw = nn_dil_w();
    let Cg = nn_group_channels();
    let Og = nn_group_outputs();

    let ow = o % OW;
    var t = o / OW;
    let oh = t % OH;
    t = t / OH;
    let oc = t % O;
    let n = t / O;
    let g = oc / Og;
    var acc = nn_bias(oc);
    let iy0 = i32(oh * sh) - ph;
    let ix0 = i32(ow * sw) - pw;
    for (var c = 0u; c < Cg; c++) {
        let xc = P.offs.x + (n * C + g * Cg + c) * H * W;
        let wc = P.offs.y + (oc * Cg + c) * kh * kw;
        // Padded positions multiply a zero, as PyTorch (and nn_gemm) do: an infinite weight
        // there gives NaN. The pad is a select; the load reads the channel's first element.
        for (var a = 0u; a < kh; a++) {
            let iy = iy0 + i32(a * dh);
            let row = iy >= 0 && iy < i32(H);
            for (var b = 0u; b < kw; b++) {
                let ix = ix0 + i32(b * dw);
                let inside = row && ix >= 0 && ix < i32(W);
                let at = select(0u, u32(iy) * W + u32(ix), inside);
                let xv = select(ACC(0), ACC(x[xc + at]), inside);
                acc += xv * ACC(w[wc + a * kw + b]);
            }
        }
    }
    out[o] = S(acc);
}

// Chunk r of invocation t's share of the A tile (BK x BM, pixels fastest): its pixel is fixed
// (t % BM), its depths are t / BM + r * (WG / BM). Every load is issued, at a clamped
// address, and masked after: no branch around a load, so the loads of a chunk overlap.
// With TAPS the whole tile is one filter tap (channels c0 to c0 + BK - 1): one bounds test
// per tile, and the chunks' addresses step by (WG / BM) channels.
fn gemm_load_a(t: u32, k0: u32, xb: u32, iy0: i32, ix0: i32, inside: bool,
               regs: ptr<function, array<ACC, MAX_LOAD>>) {
    let H = nn_in_h();
    let W = nn_in_w();
    let dh = nn_dil_h();
    let dw = nn_dil_w();
    let K = nn_depth();
    let per = BM * BK / WG;
    if (TAPS) {
        let Cg = nn_group_channels();
        let tap = k0 / Cg;
        let iy = iy0 + i32((tap / KW) * dh);
        let ix = ix0 + i32((tap % KW) * dw);
        let ok = inside && k0 < K && iy >= 0 && iy < i32(H) && ix >= 0 && ix < i32(W);
        let at = select(0u, (k0 % Cg + t / BM) * H * W + u32(iy) * W + u32(ix), ok);
        let step = (WG / BM) * H * W;
        for (var r = 0u; r < per; r++) {
            (*regs)[r] = select(ACC(0), ACC(x[xb + at + r * step]), ok);
        }
        return;
    }
    for (var r = 0u; r < per; r++) {
        let k = k0 + t / BM + r * (WG / BM);
        let kc = min(k, K - 1u);
        let c = kc / (KH * KW);
        let rem = kc % (KH * KW);
        let iy = iy0 + i32((rem / KW) * dh);
        let ix = ix0 + i32((rem % KW) * dw);
        let ok = inside && k < K && iy >= 0 && iy < i32(H) && ix >= 0 && ix < i32(W);
        let at = select(0u, c * H * W + u32(iy) * W + u32(ix), ok);
        (*regs)[r] = select(ACC(0), ACC(x[xb + at]), ok);
    }
}

fn gemm_store_a(t: u32, regs: ptr<function, array<ACC, MAX_LOAD>>) {
    let m = t % BM;
    let per = BM * BK / WG;
    for (var r = 0u; r < per; r++) {
        let kk = t / BM + r * (WG / BM);
        As[kk * (BM / 4u) + m / 4u][m % 4u] = (*regs)[r];
    }
}

// B tile (BK x BN, channels fastest) from the transposed weight [groups, K, Og] (K in
// gemm_load_a's order: [groups, KH * KW, Cg, Og] with TAPS); loads
// clamped and masked as gemm_load_a's.
fn gemm_load_b(t: u32, k0: u32, wb: u32, n0: u32, regs: ptr<function, array<ACC, MAX_LOAD>>) {
    let Og = nn_group_outputs();
    let K = nn_depth();
    let n = n0 + t % BN;
    let nc = min(n, Og - 1u);
    let per = BN * BK / WG;
    for (var r = 0u; r < per; r++) {
        let k = k0 + t / BN + r * (WG / BN);
        let v = ACC(w[wb + min(k, K - 1u) * Og + nc]);
        (*regs)[r] = select(ACC(0), v, n < Og && k < K);
    }
}

fn gemm_store_b(t: u32, regs: ptr<function, array<ACC, MAX_LOAD>>) {
    let n = t % BN;
    let per = BN * BK / WG;
    for (var r = 0u; r < per; r++) {
        let kk = t / BN + r * (WG / BN);
        Bs[kk * (BN / 4u) + n / 4u][n % 4u] = (*regs)[r];
    }
}

// One long entry point (about 100 lines) on purpose: the prologue, the double-buffered main
// loop (the next tiles' global loads overlap the current tiles' products) and the epilogue
// share the register tile `acc`; moving a part into a function would pass that array by
// pointer and leave its registers to the compiler's inlining.
@compute @workgroup_size(WG)
fn nn_gemm(@builtin(workgroup_id) wid: vec3<u32>, @builtin(num_workgroups) nwg: vec3<u32>,
           @builtin(local_invocation_index) t: u32) {
    let C = nn_channels();
    let H = nn_in_h();
    let W = nn_in_w();
    let O = nn_out_channels();
    let OW = nn_out_w();
    let sh = nn_stride_h();
    let sw = nn_stride_w();
    let ph = nn_pad_h();
    let pw = nn_pad_w();
    let Cg = nn_group_channels();
    let Og = nn_group_outputs();
    let K = nn_depth();
    let NP = nn_pixels();
    let MP = nn_batch() * NP;   // the GEMM's pixels: every image's, one after another

    let chunks = nwg.z / nn_groups();   // pixel tiles run in chunks of nwg.y
    let g = wid.z / chunks;
    let m0 = ((wid.z % chunks) * nwg.y + wid.y) * BM;
    if (m0 >= MP) { return; }
    let n0 = wid.x * BN;
    let wb = P.offs.y + g * K * Og;

    // This invocation's pixel for the A loads (clamped: its image's base stays in bounds).
    let pm = m0 + t % BM;
    let inside = pm < MP;
    let pc = min(pm, MP - 1u);
    let img = pc / NP;
    let p = pc % NP;
    let xb = P.offs.x + (img * C + g * Cg) * H * W;
    let oh = p / OW;
    let ow = p % OW;
    let iy0 = i32(oh * sh) - ph;
    let ix0 = i32(ow * sw) - pw;

    let MV = TM / 4u;
    let NV = TN / 4u;
    let TXM = BM / TM;   // invocations along pixels
    let ty = t % TXM;    // pixel group
    let tx = t / TXM;    // channel group

    var acc: array<vec4<ACC>, MAX_ACC>;
    for (var i = 0u; i < MAX_ACC; i++) {
        acc[i] = vec4<ACC>();
    }
    var ra: array<ACC, MAX_LOAD>;
    var rb: array<ACC, MAX_LOAD>;
    let tiles = (K + BK - 1u) / BK;
    gemm_load_a(t, 0u, xb, iy0, ix0, inside, &ra);
    gemm_load_b(t, 0u, wb, n0, &rb);
    gemm_store_a(t, &ra);
    gemm_store_b(t, &rb);
    workgroupBarrier();
    for (var kt = 0u; kt < tiles; kt++) {
        let more = kt + 1u < tiles;
        // The next tiles, loaded even after the last (masked to zeros): no branch around
        // the loads.
        gemm_load_a(t, (kt + 1u) * BK, xb, iy0, ix0, inside, &ra);
        gemm_load_b(t, (kt + 1u) * BK, wb, n0, &rb);
        for (var k = 0u; k < BK; k++) {
            var af: array<vec4<ACC>, 2>;
            var bf: array<vec4<ACC>, 2>;
            for (var i = 0u; i < MV; i++) {
                af[i] = As[k * (BM / 4u) + ty + i * (BM / 4u / MV)];
            }
            for (var j = 0u; j < NV; j++) {
                bf[j] = Bs[k * (BN / 4u) + tx + j * (BN / 4u / NV)];
            }
            for (var i = 0u; i < MV; i++) {
                for (var ii = 0u; ii < 4u; ii++) {
                    let a = af[i][ii];
                    for (var j = 0u; j < NV; j++) {
                        acc[(i * 4u + ii) * NV + j] += a * bf[j];
                    }
                }
            }
        }
        workgroupBarrier();
        if (more) {
            gemm_store_a(t, &ra);
            gemm_store_b(t, &rb);
        }
        workgroupBarrier();
    }

    for (var i = 0u; i < MV; i++) {
        for (var ii = 0u; ii < 4u; ii++) {
            let pix = m0 + ty * 4u + i * (BM / MV) + ii;
            if (pix >= MP) { continue; }
            let ob = (pix / NP) * O * NP + pix % NP;
            for (var j = 0u; j < NV; j++) {
                for (var jj = 0u; jj < 4u; jj++) {
                    let oc = n0 + tx * 4u + j * (BN / NV) + jj;
                    if (oc < Og) {
                        let ch = g * Og + oc;
                        out[ob + ch * NP] = S(acc[(i * 4u + ii) * NV + j][jj] + nn_bias(ch));
                    }
                }
            }
        }
    }
}
