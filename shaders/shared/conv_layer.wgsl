// PyTorch conv2d layers: accessors of LayerParams (src/ops/conv/params.rs, whose `encode`
// is the only code that fills these slots: keep the two in step), and the bias. Imported by
// shaders/conv.wgsl (nn_direct, nn_gemm) and shaders/depthwise.wgsl (nn_depthwise),
// which declare the binding `bias` and the types S and ACC.

#import params

fn nn_channels() -> u32 { return P.shape[0].x; }       // C
fn nn_in_h() -> u32 { return P.shape[0].y; }           // H
fn nn_in_w() -> u32 { return P.shape[0].z; }           // W
fn nn_out_channels() -> u32 { return P.shape[1].x; }   // O
fn nn_out_h() -> u32 { return P.shape[1].y; }          // OH
fn nn_out_w() -> u32 { return P.shape[1].z; }          // OW
fn nn_groups() -> u32 { return P.shape[1].w; }
fn nn_k_h() -> u32 { return P.st0[0].x; }
fn nn_k_w() -> u32 { return P.st0[0].y; }
fn nn_stride_h() -> u32 { return P.st0[0].z; }
fn nn_stride_w() -> u32 { return P.st0[0].w; }
fn nn_pad_h() -> i32 { return i32(P.st0[1].x); }
fn nn_pad_w() -> i32 { return i32(P.st0[1].y); }
fn nn_dil_h() -> u32 { return P.st0[1].z; }
fn nn_dil_w() -> u32 { return P.st0[1].w; }
fn nn_group_channels() -> u32 { return P.st1[0].x; }  // Cg = C / groups
fn nn_group_outputs() -> u32 { return P.st1[0].y; }   // Og = O / groups
fn nn_depth() -> u32 { return P.st1[0].z; }           // K = Cg * kh * kw
fn nn_pixels() -> u32 { return P.st1[0].w; }          // OH * OW
fn nn_has_bias() -> bool { return P.st1[1].x == 1u; }

// Bias of output channel ch, or 0 for a layer without one.
fn nn_bias(ch: u32) -> ACC {
    if (nn_has_bias()) { return ACC(bias[P.offs.z + ch]); }
    return ACC(0);
}
