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
//   LANES invocations per row striding along k (each step reads LANES consecutive
//   elements), then a tree over the lanes in workgroup memory.
// - `gemv_cols` (X's r contiguous): a workgroup takes COLS = WG / KS rows, one per
//   invocation of each of KS slices striding along k (each step reads COLS consecutive
//   elements of one k), then a tree over the slices.
//
// Parameters (`GemvParams` in src/ops/linalg/params.rs): n = batches; ndim, shape = the
// (collapsed) batch dimensions; st0, st1 = X's and v's batch strides; offs.x, offs.y = their
// offsets (read by batch_offsets); the rest through the accessors below.

alias S = f32;   // element type of X and v
alias SC = f32;  // carrier of scalar arguments (unused here; params.wgsl needs it)
alias ACC = f32; // accumulator and output type: S, or f32 for f16

override WG: u32 = 256u;
override LANES: u32 = 32u; // gemv_dot: invocations per row
override KS: u32 = 4u;     // gemv_cols: slices of k per workgroup

// ---- matrix-vector parameters ----
fn dim_r() -> u32 { return P.st2[0].x; }       // rows of X (length of y)
fn dim_k() -> u32 { return P.st2[0].y; }       // columns of X (length of v)
fn stride_r() -> u32 { return P.st2[0].z; }    // X's stride along r
fn stride_k() -> u32 { return P.st2[0].w; }    // X's stride along k
fn stride_v() -> u32 { return P.st2[1].x; }    // v's stride
fn chunk() -> u32 { return P.st2[1].y; }       // k per slice (the last may be shorter)
fn first_group() -> u32 { return P.aux.x; }    // row group of this dispatch's workgroup x = 0
// ---- end of matrix-vector parameters ----

@group(0) @binding(1) var<storage, read> x: array<S>;
@group(0) @binding(2) var<storage, read> v: array<S>;
@group(0) @binding(4) var<storage, read_write> out: array<ACC>;

var<workgroup> part: array<ACC, WG>;

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

@compute @workgroup_size(WG)
fn gemv_dot(@builtin(workgroup_id) wid: vec3<u32>,
            @builtin(local_invocation_index) t: u32) {
    let rows = WG / LANES;
    let r = (first_group() + wid.x) * rows + t / LANES;
    let lane = t % LANES;
    let z = wid.z;
    let o = batch_offsets(z);
    let kr = k_range(wid.y);
    var acc = ACC(0);
    if (r < dim_r()) {
        let base = o.x + r * stride_r();
        let sv = stride_v();
        for (var k = kr.x + lane; k < kr.y; k += LANES) {
            acc += ACC(x[base + k]) * ACC(v[o.y + k * sv]);
        }
    }
    part[t] = acc;
    tree(t, lane, LANES, 1u);
    // part[row * LANES] now holds the row's sum: lane 0 of each row writes it.
    if (lane == 0u && r < dim_r()) {
        out[(wid.y * P.n + z) * dim_r() + r] = part[t];
    }
}

@compute @workgroup_size(WG)
fn gemv_cols(@builtin(workgroup_id) wid: vec3<u32>,
             @builtin(local_invocation_index) t: u32) {
    let cols = WG / KS;
    let r = (first_group() + wid.x) * cols + t % cols;
    let slice = t / cols;
    let z = wid.z;
    let o = batch_offsets(z);
    let kr = k_range(wid.y);
    var acc = ACC(0);
    if (r < dim_r()) {
        let sk = stride_k();
        let sv = stride_v();
        let base = o.x + r * stride_r();
        for (var k = kr.x + slice; k < kr.y; k += KS) {
            acc += ACC(x[base + k * sk]) * ACC(v[o.y + k * sv]);
        }
    }
    part[t] = acc;
    tree(t, slice, KS, cols);
    if (slice == 0u && r < dim_r()) {
        out[(wid.y * P.n + z) * dim_r() + r] = part[t];
    }
}
