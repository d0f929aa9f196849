// PyTorch conv2d layers with few channels per group: depthwise (groups == C), channel
// multipliers (O = m * C) and grouped layers whose groups are narrow (host side:
// src/ops/conv/depthwise.rs; the layer's parameters through shared/conv_layer.wgsl).
//
// Bindings: 0 params (shared/params.wgsl); 1 x (the input, [N, C, H, W] contiguous from
// P.offs.x); 2 w (the weight, [O, C / groups, KH, KW] contiguous from P.offs.y); 3 bias
// (read when nn_has_bias()); 4 out ([N, O, OH, OW], contiguous).
//
// nn_depthwise: workgroup (TX, TY), TX in 8, 16, 32 and TY = 8. Workgroup (x, y) computes an output tile
// of (TY * PY) rows x TX columns of OB output channels of one group of one image:
//   x = tile row * (tiles per output row) + tile column,
//   y = (image * groups + group) * ceil(Og / OB) + channel block.
// One invocation computes PY outputs down one column, for each of the OB channels (PY * OB
// accumulators). For each input channel of the group in turn, the workgroup copies the
// input tile the output tile reads (IT_H x IT_W: the strided rows and columns and the
// dilated halo, zeros where it passes the padded edges, which are multiplied as PyTorch
// does) and the OB x KH x KW taps of that channel into workgroup memory, then every
// invocation sums its outputs from there: the input is read once per channel block, not
// once per tap.

#import params
#import conv_layer

alias S = f32;   // element type
alias SC = f32;  // carrier of scalar arguments
alias ACC = f32; // accumulator: S, or f32 for f16

override WG: u32 = 256u; // TX * TY (set by the launch)
override TX: u32 = 32u;  // output columns per tile (8, 16 or 32)
override TY: u32 = 8u;   // invocation rows
override PY: u32 = 1u;   // outputs per invocation down its column (at most MAX_PY)
override OB: u32 = 1u;   // output channels per workgroup (at most MAX_OB)
override KH: u32 = 1u;   // filter height
override KW: u32 = 1u;   // filter width
override IT_H: u32 = 1u; // input tile rows: (TY * PY - 1) * stride + (KH - 1) * dilation + 1
override IT_W: u32 = 1u; // input tile columns: (TX - 1) * stride + (KW - 1) * dilation + 1
override NL: u32 = 1u;   // input tile loads per invocation: ceil(IT_H * IT_W / WG)

const MAX_PY: u32 = 4u;
const MAX_OB: u32 = 8u;
const MAX_NL: u32 = 16u;

@group(0) @binding(1) var<storage, read> x: array<S>;
@group(0) @binding(2) var<storage, read> w: array<S>;
@group(0) @binding(3) var<storage, read> bias: array<S>;
@group(0) @binding(4) var<storage, read_write> out: array<S>;

var<workgroup> xt: array<ACC, IT_H * IT_W>;
var<workgroup> wt: array<ACC, OB * KH * KW>;

// Copies input channel `xc` (its element offset) around tile origin (iy0, ix0) into xt, and
// the taps of input channel c for output channels oc0 .. oc0 + OB of group g into wt.
fn dw_stage(t: u32, xc: u32, iy0: i32, ix0: i32, g: u32, oc0: u32, c: u32) {
    let H = i32(nn_in_h());
    let W = nn_in_w();
    // All NL loads first, then the stores: the loads' latencies overlap.
    var v: array<ACC, MAX_NL>;
    for (var r = 0u; r < NL; r++) {
        let i = t + r * WG;
        let iy = iy0 + i32(i / IT_W);
        let ix = ix0 + i32(i % IT_W);
        let inside = i < IT_H * IT_W && iy >= 0 && iy < H && ix >= 0 && ix < i32(W);
        let at = select(0u, u32(iy) * W + u32(ix), inside);
        v[r] = select(ACC(0), ACC(x[xc + at]), inside);
    }
    for (var r = 0u; r < NL; r++) {
        let i = t + r * WG;
        if (i < IT_H * IT_W) {
            xt[i] = v[r];
        }
    }
    let Og = nn_group_outputs();
    let Cg = nn_group_channels();
    for (var i = t; i < OB * KH * KW; i += WG) {
        let oc = oc0 + i / (KH * KW);
        var v = ACC(0);
        if (oc < Og) {
            v = ACC(w[P.offs.y + ((g * Og + oc) * Cg + c) * KH * KW + i % (KH * KW)]);
        }
        wt[i] = v;
    }
}

@compute @workgroup_size(TX, TY)
fn nn_depthwise(@builtin(workgroup_id) wid: vec3<u32>,
                @builtin(local_invocation_index) t: u32) {
    let C = nn_channels();
    let H = nn_in_h();
    let W = nn_in_w();
    let O = nn_out_channels();
    let OH = nn_out_h();
    let OW = nn_out_w();
    let groups = nn_groups();
    let sh = nn_stride_h();
    let sw = nn_stride_w();
    let dh = nn_dil_h();
    let dw = nn_dil_w();
    let Cg = nn_group_channels();
    let Og = nn_group_outputs();

    let lx = t % TX;
    let ly = t / TX;
    let tiles_w = (OW + TX - 1u) / TX;
    let ox0 = (wid.x % tiles_w) * TX;
    let oy0 = (wid.x / tiles_w) * TY * PY;
    let blocks = (Og + OB - 1u) / OB;
    let oc0 = (wid.y % blocks) * OB;
    let ng = wid.y / blocks;
    let n = ng / groups;
    let g = ng % groups;
    let iy0 = i32(oy0 * sh) - nn_pad_h();
    let ix0 = i32(ox0 * sw) - nn_pad_w();

    var acc: array<ACC, MAX_PY * MAX_OB>;
    for (var i = 0u; i < MAX_PY * MAX_OB; i++) {
        acc[i] = ACC(0);
    }
    let col = lx * sw;
    for (var c = 0u; c < Cg; c++) {
        workgroupBarrier();
        dw_stage(t, P.offs.x + (n * C + g * Cg + c) * H * W, iy0, ix0, g, oc0, c);
        workgroupBarrier();
        for (var a = 0u; a < KH; a++) {
            for (var b = 0u; b < KW; b++) {
                var xv: array<ACC, MAX_PY>;
                for (var p = 0u; p < PY; p++) {
                    xv[p] = xt[((ly * PY + p) * sh + a * dh) * IT_W + col + b * dw];
                }
                for (var j = 0u; j < OB; j++) {
                    let wv = wt[(j * KH + a) * KW + b];
                    for (var p = 0u; p < PY; p++) {
                        acc[p * MAX_OB + j] += xv[p] * wv;
                    }
                }
            }
        }
    }

    let ox = ox0 + lx;
    if (ox >= OW) { return; }
    for (var j = 0u; j < OB; j++) {
        let oc = oc0 + j;
        if (oc >= Og) { break; }
        let ch = g * Og + oc;
        let bv = nn_bias(ch);
        for (var p = 0u; p < PY; p++) {
            let oy = oy0 + ly * PY + p;
            if (oy < OH) {
                out[((n * O + ch) * OH + oy) * OW + ox] = S(acc[p * MAX_OB + j] + bv);
            }
        }
    }
}
