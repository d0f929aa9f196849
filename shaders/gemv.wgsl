// Matrix-vector family: y[z][r] = sum over k of X[z](r, k) v[z][k], the kernel behind the
// matrix products with N = 1 (X = A, v = B's column) or M = 1 (X = B transposed, v = A's
// row); host side in src/ops/linalg/gemv.rs. Bandwidth-bound: X is read once, coalesced.
//
// Bindings: 0 params (shared/params.wgsl); 1 x (X's buffer); 2 v (v's buffer); 4 out
// (ACC, contiguous [SPLIT][batches][R]: partial sums over SPLIT slices of k when SPLIT > 1,
// which the host adds in order (deterministic), else y itself).
// Dispatch: workgroups (x, y, z) = (row groups, k slices, batches); the host splits more
// than 65,535 row groups into several dispatches and passes the first (first_group()).
// - `gemv_dot` (X's k contiguous): a workgroup of WG invocations takes WG / LANES rows,
//   LANES invocations per row striding along k, 4 consecutive elements each per step
//   (LANES vec4s in a row), then a tree over the lanes in workgroup memory.
// - `gemv_cols` (X's r contiguous): a workgroup takes 4 WG / KS rows, 4 per invocation of
//   each of KS slices striding along k (each step reads 4 WG / KS consecutive elements of
//   one k), then a tree over the slices.
// - `gemv_dot_w`, `gemv_cols_w` (f32 and f16, the "wide" variant): the same two shapes
//   reading X (and, in `gemv_dot_w`, v) through 16-byte words (`xw`, `vw`: E = 4 f32 or 8
//   f16 elements each), U words per invocation per step, all issued before the products;
//   past the end each index is clamped to the last word and the word zeroed, so no load
//   depends on a branch. They accumulate in f32 and write OW (f16 directly when k is not
//   split). `gemv_dot_w`: WG / LANES rows per workgroup as `gemv_dot`, a step covering
//   U LANES words of a row; `gemv_cols_w`: E WG / KS rows per workgroup, E per invocation,
//   KS slices (the host sets KS = 16 for it), a step covering U KS values of k. The wide
//   entries use bindings 1, 2 and 4 through the views xw, vw, outw (never with x, v, out).
//
// Parameters (`GemvParams` in src/ops/linalg/params.rs): n = batches; ndim, shape = the
// (collapsed) batch dimensions; st0, st1 = X's and v's batch strides; offs.x, offs.y = their
// offsets (read by batch_offsets); the rest through the accessors below.

#import params

alias S = f32;   // element type of X and v
alias SC = f32;  // carrier of scalar arguments (unused here; params.wgsl needs it)
alias ACC = f32; // accumulator and output type: S, or f32 for f16
alias VX = f32;  // element type of X's binding: S, or vec4<S> for vec4 loads
alias OW = f32;  // output type of the wide entries: f32, or f16 written directly

override WG: u32 = 256u;
override LANES: u32 = 32u; // gemv_dot: invocations per row
override KS: u32 = 4u;     // gemv_cols: slices of k per workgroup
override E: u32 = 4u;      // wide entries: elements per 16-byte word (4 f32, 8 f16)
const U: u32 = 4u;         // wide entries: words loaded per invocation per step

// ---- matrix-vector parameters ----
fn dim_r() -> u32 { return P.st2[0].x; }       // rows of X (length of y)
fn dim_k() -> u32 { return P.st2[0].y; }       // columns of X (length of v)
fn stride_r() -> u32 { return P.st2[0].z; }    // X's stride along r
fn stride_k() -> u32 { return P.st2[0].w; }    // X's stride along k
fn stride_v() -> u32 { return P.st2[1].x; }    // v's stride
fn chunk() -> u32 { return P.st2[1].y; }       // k per slice, a multiple of 4 (the last may be shorter)
fn first_group() -> u32 { return P.aux.x; }    // row group of this dispatch's workgroup x = 0
// ---- end of matrix-vector parameters ----

@group(0) @binding(1) var<storage, read> x: array<VX>;
@group(0) @binding(2) var<storage, read> v: array<S>;
@group(0) @binding(4) var<storage, read_write> out: array<ACC>;

var<workgroup> part: array<vec4<ACC>, WG>;

// The wide entries' view of the same bindings (each entry point uses one view).
@group(0) @binding(1) var<storage, read> xw: array<vec4<u32>>;
@group(0) @binding(2) var<storage, read> vw: array<vec4<u32>>;
@group(0) @binding(4) var<storage, read_write> outw: array<OW>;
var<workgroup> pw: array<vec4<f32>, WG>;  // wide partial sums: elements 0-3 of a word
var<workgroup> pw2: array<vec4<f32>, WG>; // and 4-7 (f16 only)

// Elements 0-3 and 4-7 of a 16-byte word (4-7 are 0 for f32); the host replaces these
// lines for f16 (unpack2x16float: the wide f16 entries need SHADER_FLOAT16_IN_FLOAT32).
fn lo(q: vec4<u32>) -> vec4<f32> { return bitcast<vec4<f32>>(q); }
fn hi(q: vec4<u32>) -> vec4<f32> { return vec4<f32>(); }

// Up to 4 consecutive elements of X from element e (cnt of them, the rest 0). The host
// replaces this line in vectorised variants (X's contiguous extent, the other stride, the
// offsets and the chunk multiples of 4, so cnt is 0 or 4) with one vec4 load.
fn fetch_x(e: u32, cnt: u32) -> vec4<ACC> { var r = vec4<ACC>(); for (var j = 0u; j < min(cnt, 4u); j++) { r[j] = ACC(x[e + j]); } return r; }

// Up to 4 elements of v from index k (cnt of them, the rest 0).
fn fetch_v(o: u32, k: u32, cnt: u32) -> vec4<ACC> {
    var r = vec4<ACC>();
    for (var j = 0u; j < min(cnt, 4u); j++) {
        r[j] = ACC(v[o + (k + j) * stride_v()]);
    }
    return r;
}

// Sums part over the `ways` invocations t + j * stride (j < ways, a power of two) into
// part[t] of the one whose index `idx` (its j) is 0; every invocation of the workgroup
// calls it. Always the same order: the same bits every run.
fn tree(t: u32, idx: u32, ways: u32, stride: u32) {
    workgroupBarrier();
    for (var h = ways / 2u; h > 0u; h = h / 2u) {
        if (idx < h) {
            part[t] = part[t] + part[t + h * stride];
        }
        workgroupBarrier();
    }
}

// `tree` on the wide partial sums.
fn tree_w(t: u32, idx: u32, ways: u32, stride: u32) {
    workgroupBarrier();
    for (var h = ways / 2u; h > 0u; h = h / 2u) {
        if (idx < h) {
            pw[t] = pw[t] + pw[t + h * stride];
            pw2[t] = pw2[t] + pw2[t + h * stride];
        }
        workgroupBarrier();
    }
}

// The k range of slice s.
fn k_range(s: u32) -> vec2<u32> {
    let k0 = min(s * chunk(), dim_k());
    return vec2<u32>(k0, min(k0 + chunk(), dim_k()));
}

// X's k contiguous: LANES invocations per row, each taking 4 consecutive k per step.
@compute @workgroup_size(WG)
fn gemv_dot(@builtin(workgroup_id) wid: vec3<u32>,
            @builtin(local_invocation_index) t: u32) {
    let rows = WG / LANES;
    let r = (first_group() + wid.x) * rows + t / LANES;
    let lane = t % LANES;
    let z = wid.z;
    let o = batch_offsets(z);
    let kr = k_range(wid.y);
    var acc = vec4<ACC>();
    if (r < dim_r()) {
        let base = o.x + r * stride_r();
        for (var k = kr.x + 4u * lane; k < kr.y; k += 4u * LANES) {
            let cnt = min(kr.y - k, 4u);
            acc += fetch_x(base + k, cnt) * fetch_v(o.y, k, cnt);
        }
    }
    part[t] = acc;
    tree(t, lane, LANES, 1u);
    // part[row * LANES] now holds the row's four partial sums: lane 0 of each row adds them.
    if (lane == 0u && r < dim_r()) {
        let s = part[t];
        out[(wid.y * P.n + z) * dim_r() + r] = (s.x + s.y) + (s.z + s.w);
    }
}

// X's r contiguous: WG / KS invocations take 4 consecutive rows each, KS slices of k.
@compute @workgroup_size(WG)
fn gemv_cols(@builtin(workgroup_id) wid: vec3<u32>,
             @builtin(local_invocation_index) t: u32) {
    let cols = WG / KS;
    let r = ((first_group() + wid.x) * cols + t % cols) * 4u;
    let slice = t / cols;
    let z = wid.z;
    let o = batch_offsets(z);
    let kr = k_range(wid.y);
    let cnt = min(dim_r() - min(r, dim_r()), 4u);
    var acc = vec4<ACC>();
    if (cnt > 0u) {
        let sk = stride_k();
        let base = o.x + r;
        for (var k = kr.x + slice; k < kr.y; k += KS) {
            acc += fetch_x(base + k * sk, cnt) * ACC(v[o.y + k * stride_v()]);
        }
    }
    part[t] = acc;
    tree(t, slice, KS, cols);
    if (slice == 0u) {
        let s = part[t];
        let row = (wid.y * P.n + z) * dim_r() + r;
        for (var j = 0u; j < cnt; j++) {
            out[row + j] = s[j];
        }
    }
}

// Wide `gemv_dot`: lane `lane` of a row takes words lane, lane + LANES, ... of the row's
// slice, U of them per step; rows past the end read the last row and write nothing.
@compute @workgroup_size(WG)
fn gemv_dot_w(@builtin(workgroup_id) wid: vec3<u32>,
              @builtin(local_invocation_index) t: u32) {
    let r = (first_group() + wid.x) * (WG / LANES) + t / LANES;
    let lane = t % LANES;
    let z = wid.z;
    let o = batch_offsets(z);
    let kr = k_range(wid.y) / E;
    let bx = (o.x + min(r, dim_r() - 1u) * stride_r()) / E;
    let bv = o.y / E;
    var a0 = vec4<f32>();
    var a1 = vec4<f32>();
    for (var c = kr.x + lane; c < kr.y; c += U * LANES) {
        var q: array<vec4<u32>, U>;
        var w: array<vec4<u32>, U>;
        for (var j = 0u; j < U; j++) {
            let cj = min(c + j * LANES, kr.y - 1u);
            q[j] = xw[bx + cj];
            w[j] = vw[bv + cj];
        }
        for (var j = 0u; j < U; j++) {
            let live = c + j * LANES < kr.y;
            let qj = select(vec4<u32>(), q[j], live);
            let wj = select(vec4<u32>(), w[j], live);
            a0 += lo(qj) * lo(wj);
            a1 += hi(qj) * hi(wj);
        }
    }
    pw[t] = a0 + a1;
    pw2[t] = vec4<f32>();
    tree_w(t, lane, LANES, 1u);
    if (lane == 0u && r < dim_r()) {
        let s = pw[t];
        outw[(wid.y * P.n + z) * dim_r() + r] = OW((s.x + s.y) + (s.z + s.w));
    }
}

// Wide `gemv_cols`: WG / KS invocations take one word (E consecutive rows) each, KS slices
// of k, U values of k per step; words past the end read the last word and write nothing.
@compute @workgroup_size(WG)
fn gemv_cols_w(@builtin(workgroup_id) wid: vec3<u32>,
               @builtin(local_invocation_index) t: u32) {
    let cols = WG / KS;
    let r = ((first_group() + wid.x) * cols + t % cols) * E;
    let slice = t / cols;
    let z = wid.z;
    let o = batch_offsets(z);
    let kr = k_range(wid.y);
    let bx = (o.x + min(r, dim_r() - E)) / E;
    let sk = stride_k() / E;
    var a0 = vec4<f32>();
    var a1 = vec4<f32>();
    for (var k = kr.x + slice; k < kr.y; k += U * KS) {
        var q: array<vec4<u32>, U>;
        var w: array<S, U>;
        for (var j = 0u; j < U; j++) {
            let kj = min(k + j * KS, kr.y - 1u);
            q[j] = xw[bx + kj * sk];
            w[j] = v[o.y + kj * stride_v()];
        }
        for (var j = 0u; j < U; j++) {
            let live = k + j * KS < kr.y;
            let qj = select(vec4<u32>(), q[j], live);
            let wj = select(0.0, f32(w[j]), live);
            a0 += lo(qj) * wj;
            a1 += hi(qj) * wj;
        }
    }
    pw[t] = a0;
    pw2[t] = a1;
    tree_w(t, slice, KS, cols);
    if (slice == 0u && r < dim_r()) {
        let row = (wid.y * P.n + z) * dim_r() + r;
        for (var j = 0u; j < 4u; j++) {
            outw[row + j] = OW(pw[t][j]);
        }
        for (var j = 4u; j < E; j++) {
            outw[row + j] = OW(pw2[t][j - 4u]);
        }
    }
}
