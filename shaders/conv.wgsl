// Convolution family: SciPy's signal convolutions (1-D and 2-D) and PyTorch's conv layers
// (src/ops/conv.rs).
//
// Bindings: 0 params (shared/params.wgsl); 1 x (the input); 2 w (the filter); 3 bias (nn
// kernels only); 4 out (contiguous).
//
// Every signal kernel computes a correlation with the "correlation taps" Wc (the filter,
// reversed in both dimensions for a convolution when FLIP = st0[0].y is 1):
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
//   memory in chunks of TC (zero padded), with the input segment they need.
// - nn_direct: one invocation per output element of a PyTorch conv2d (any stride, padding,
//   dilation, groups); the fallback for depthwise and channel-poor layers.
// - nn_gemm: implicit GEMM per (image, group): C[p, o] = sum_k A[p, k] * B[k, o] with A the
//   im2col of the input gathered on the fly (p = output pixel, k = (c, a, b)) and B the
//   weight transposed to [groups, K, Og]. Workgroups (x, y, z) = (pixel tiles, channel tiles,
//   image * groups + group); BM x BN tile per workgroup, BK deep, TM x TN per invocation.
//
// Parameters (slots of params.wgsl), signal kernels:
//   shape[0] = (H, W, OH, OW), shape[1] = (kh, kw, oy, ox) (oy, ox as i32 bits),
//   st0[0] = (boundary, flip, -, -), offs = (x, w, -, -), sc.x = fill value, n = outputs;
//   sig1d: shape[0] = (n_in, m, n_out, blocks), shape[1].z = ox.
// nn kernels: shape[0] = (C, H, W, N), shape[1] = (O, OH, OW, groups),
//   st0[0] = (kh, kw, sh, sw), st0[1] = (ph, pw, dh, dw), st1[0] = (Cg, Og, K, P),
//   st1[1].x = has bias, offs = (x, w, bias, -), n = outputs.

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

// Index of coordinate i in an extent of n under the boundary rule, or -1 for the fill value.
fn bmap(i: i32, n: i32, mode: u32) -> i32 {
    if (i >= 0 && i < n) { return i; }
    if (mode == 0u) { return -1; }
    if (mode == 2u) { return ((i % n) + n) % n; }
    let p = 2 * n;
    var j = ((i % p) + p) % p;
    if (j >= n) { j = p - 1 - j; }
    return j;
}

// The extended input X(r, c).
fn xval(r: i32, c: i32) -> ACC {
    let H = i32(P.shape[0].x);
    let W = i32(P.shape[0].y);
    let mode = P.st0[0].x;
    let rr = bmap(r, H, mode);
    let cc = bmap(c, W, mode);
    if (rr < 0 || cc < 0) { return ACC(arg(0u)); }
    return ACC(x[P.offs.x + u32(rr * W + cc)]);
}

@compute @workgroup_size(WG)
fn sig2d_direct(@builtin(workgroup_id) wid: vec3<u32>, @builtin(num_workgroups) nwg: vec3<u32>,
                @builtin(local_invocation_index) lid: u32) {
    let o = linear_id(wid, nwg, lid, WG);
    if (o >= P.n) { return; }
    let OW = P.shape[0].w;
    let kh = P.shape[1].x;
    let kw = P.shape[1].y;
    let oy = bitcast<i32>(P.shape[1].z);
    let ox = bitcast<i32>(P.shape[1].w);
    let flip = P.st0[0].y == 1u;
    let i = i32(o / OW) + oy;
    let j = i32(o % OW) + ox;
    let last = kh * kw - 1u;
    var acc = ACC(0);
    for (var a = 0u; a < kh; a++) {
        for (var b = 0u; b < kw; b++) {
            let t = a * kw + b;
            let wi = select(t, last - t, flip);
            acc += xval(i + i32(a), j + i32(b)) * ACC(w[P.offs.y + wi]);
        }
    }
    out[o] = S(acc);
}

@compute @workgroup_size(TX, TY)
fn sig2d_tile(@builtin(workgroup_id) wid: vec3<u32>, @builtin(local_invocation_id) lid3: vec3<u32>,
              @builtin(local_invocation_index) lid: u32) {
    let OH = P.shape[0].z;
    let OW = P.shape[0].w;
    let oy = bitcast<i32>(P.shape[1].z);
    let ox = bitcast<i32>(P.shape[1].w);
    let flip = P.st0[0].y == 1u;
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
        ws[q] = ACC(w[P.offs.y + select(q, taps - 1u - q, flip)]);
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

@compute @workgroup_size(WG)
fn sig1d(@builtin(workgroup_id) wid: vec3<u32>, @builtin(num_workgroups) nwg: vec3<u32>,
         @builtin(local_invocation_index) lid: u32) {
    let n_in = i32(P.shape[0].x);
    let m = P.shape[0].y;
    let n_out = P.shape[0].z;
    let block = wid.y * nwg.x + wid.x;
    if (block >= P.shape[0].w) { return; }
    let ox = bitcast<i32>(P.shape[1].z);
    let flip = P.st0[0].y == 1u;
    let BLOCK = 4u * R1 * WG;
    let o0 = block * BLOCK;
    let SEG = BLOCK + TC;

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
            if (t < m) { v = ACC(w[P.offs.y + select(t, m - 1u - t, flip)]); }
            ws4[q / 4u][q % 4u] = v;
        }
        workgroupBarrier();
        let groups4 = min(TC, m - t0 + 3u) / 4u;
        for (var r = 0u; r < R1; r++) {
            let q = lid + r * WG;
            var cur = xs4[q];
            var s = acc[r];
            for (var t = 0u; t < groups4; t++) {
                let nxt = xs4[q + t + 1u];
                let k = ws4[t];
                s += cur * k.x;
                s += vec4<ACC>(cur.yzw, nxt.x) * k.y;
                s += vec4<ACC>(cur.zw, nxt.xy) * k.z;
                s += vec4<ACC>(cur.w, nxt.xyz) * k.w;
                cur = nxt;
            }
            acc[r] = s;
        }
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
    let C = P.shape[0].x;
    let H = P.shape[0].y;
    let W = P.shape[0].z;
    let O = P.shape[1].x;
    let OH = P.shape[1].y;
    let OW = P.shape[1].z;
    let kh = P.st0[0].x;
    let kw = P.st0[0].y;
    let sh = P.st0[0].z;
    let sw = P.st0[0].w;
    let ph = i32(P.st0[1].x);
    let pw = i32(P.st0[1].y);
    let dh = P.st0[1].z;
    let dw = P.st0[1].w;
    let Cg = P.st1[0].x;
    let Og = P.st1[0].y;

    let ow = o % OW;
    var t = o / OW;
    let oh = t % OH;
    t = t / OH;
    let oc = t % O;
    let n = t / O;
    let g = oc / Og;
    var acc = ACC(0);
    if (P.st1[1].x == 1u) { acc = ACC(bias[P.offs.z + oc]); }
    let iy0 = i32(oh * sh) - ph;
    let ix0 = i32(ow * sw) - pw;
    for (var c = 0u; c < Cg; c++) {
        let xc = P.offs.x + (n * C + g * Cg + c) * H * W;
        let wc = P.offs.y + (oc * Cg + c) * kh * kw;
        for (var a = 0u; a < kh; a++) {
            let iy = iy0 + i32(a * dh);
            if (iy < 0 || iy >= i32(H)) { continue; }
            for (var b = 0u; b < kw; b++) {
                let ix = ix0 + i32(b * dw);
                if (ix < 0 || ix >= i32(W)) { continue; }
                acc += ACC(x[xc + u32(iy) * W + u32(ix)]) * ACC(w[wc + a * kw + b]);
            }
        }
    }
    out[o] = S(acc);
}

// Chunk r of invocation t's share of the A tile (BK x BM, pixels fastest): its pixel is fixed
// (t % BM), its depths are t / BM + r * (WG / BM).
fn gemm_load_a(t: u32, k0: u32, xb: u32, iy0: i32, ix0: i32, inside: bool,
               regs: ptr<function, array<ACC, MAX_LOAD>>) {
    let H = P.shape[0].y;
    let W = P.shape[0].z;
    let dh = P.st0[1].z;
    let dw = P.st0[1].w;
    let K = P.st1[0].z;
    let per = BM * BK / WG;
    for (var r = 0u; r < per; r++) {
        let k = k0 + t / BM + r * (WG / BM);
        var v = ACC(0);
        if (inside && k < K) {
            let c = k / (KH * KW);
            let rem = k % (KH * KW);
            let iy = iy0 + i32((rem / KW) * dh);
            let ix = ix0 + i32((rem % KW) * dw);
            if (iy >= 0 && iy < i32(H) && ix >= 0 && ix < i32(W)) {
                v = ACC(x[xb + c * H * W + u32(iy) * W + u32(ix)]);
            }
        }
        (*regs)[r] = v;
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

// B tile (BK x BN, channels fastest) from the transposed weight [groups, K, Og].
fn gemm_load_b(t: u32, k0: u32, wb: u32, n0: u32, regs: ptr<function, array<ACC, MAX_LOAD>>) {
    let Og = P.st1[0].y;
    let K = P.st1[0].z;
    let n = n0 + t % BN;
    let per = BN * BK / WG;
    for (var r = 0u; r < per; r++) {
        let k = k0 + t / BN + r * (WG / BN);
        var v = ACC(0);
        if (n < Og && k < K) {
            v = ACC(w[wb + k * Og + n]);
        }
        (*regs)[r] = v;
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

@compute @workgroup_size(WG)
fn nn_gemm(@builtin(workgroup_id) wid: vec3<u32>, @builtin(local_invocation_index) t: u32) {
    let C = P.shape[0].x;
    let H = P.shape[0].y;
    let W = P.shape[0].z;
    let O = P.shape[1].x;
    let OW = P.shape[1].z;
    let groups = P.shape[1].w;
    let sh = P.st0[0].z;
    let sw = P.st0[0].w;
    let ph = i32(P.st0[1].x);
    let pw = i32(P.st0[1].y);
    let Cg = P.st1[0].x;
    let Og = P.st1[0].y;
    let K = P.st1[0].z;
    let NP = P.st1[0].w;

    let n = wid.z / groups;
    let g = wid.z % groups;
    let m0 = wid.x * BM;
    let n0 = wid.y * BN;
    let xb = P.offs.x + (n * C + g * Cg) * H * W;
    let wb = P.offs.y + g * K * Og;

    // This invocation's pixel for the A loads.
    let pm = m0 + t % BM;
    let inside = pm < NP;
    let oh = pm / OW;
    let ow = pm % OW;
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
        if (more) {
            gemm_load_a(t, (kt + 1u) * BK, xb, iy0, ix0, inside, &ra);
            gemm_load_b(t, (kt + 1u) * BK, wb, n0, &rb);
        }
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

    let has_bias = P.st1[1].x == 1u;
    for (var j = 0u; j < NV; j++) {
        for (var jj = 0u; jj < 4u; jj++) {
            let oc = n0 + tx * 4u + j * (BN / NV) + jj;
            if (oc >= Og) { continue; }
            let ch = g * Og + oc;
            var bv = ACC(0);
            if (has_bias) { bv = ACC(bias[P.offs.z + ch]); }
            let ob = (n * O + ch) * NP;
            for (var i = 0u; i < MV; i++) {
                for (var ii = 0u; ii < 4u; ii++) {
                    let pix = m0 + ty * 4u + i * (BM / MV) + ii;
                    if (pix < NP) {
                        out[ob + pix] = S(acc[(i * 4u + ii) * NV + j][jj] + bv);
                    }
                }
            }
        }
    }
}
