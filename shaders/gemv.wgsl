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
//
// Parameters (`GemvParams` in src/ops/linalg/params.rs): n = batches; ndim, shape = the
// (collapsed) batch dimensions; st0, st1 = X's and v's batch strides; offs.x, offs.y = their
// offsets (read by batch_offsets); the rest through the accessors below.

alias S = f32;   // element type of X and v
alias SC = f32;  // carrier of scalar arguments (unused here; params.wgsl needs it)
alias ACC = f32; // accumulator and output type: S, or f32 for f16
alias VX = f32;  // element type of X's binding: S, or vec4<S> for vec4 loads

override WG: u32 = 256u;
override LANES: u32 = 32u; // gemv_dot: invocations per row
override KS: u32 = 4u;     // gemv_cols: slices of k per workgroup

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
