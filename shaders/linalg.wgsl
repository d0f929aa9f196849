// Linear algebra family: batched matrix products C[z] = A[z] @ B[z], the kernel behind
// matmul, dot, outer and matrix-vector products (src/ops/linalg/), and traces.
//
// Bindings: 0 params (shared/params.wgsl); 1 a (A's buffer); 2 b (B's buffer); 4 out (C,
// contiguous [batches, M, N]).
// Dispatch: workgroups (x, y, z) = (tiles along N, tiles along M, batches); the host splits
// larger grids into several dispatches and passes the first tile of each (first_tile_m(),
// first_tile_n()) and the first batch (first_batch()). One workgroup computes a BM x BN tile
// of C with WG = (BM / TM) * (BN / TN) invocations; one invocation computes TM x TN
// outputs (register blocking), TM and TN multiples of 4, as rows and columns in groups of
// 4 spread across the tile so that neighbouring invocations read neighbouring vec4s of the
// workgroup tiles (no bank conflicts). A and B pass through workgroup memory in BK-deep
// k-major tiles (As[k][m], Bs[k][n]); the next tiles are fetched into registers while the
// current ones are multiplied. Accumulation is in ACC (f32 for f16 operands).
//
// Parameters (`MatmulParams` in src/ops/linalg/params.rs): n = batches; ndim, shape = the
// (collapsed) batch dimensions; st0, st1 = the batch strides of A and B (0 along broadcast
// dimensions); offs.x, offs.y = offsets of A and B (these read by batch_offsets); the rest
// through the accessors below: M, N, K, sa = A's stride along its non-contiguous dimension
// (m, or k when TA), sb = B's (k, or n when TB).
// Layouts: A is K-contiguous (row-major, TA = false) or M-contiguous (a transposed view,
// TA = true); B is N-contiguous (TB = false) or K-contiguous (TB = true). In vectorised
// variants (VA / VB = vec4<S>) the contiguous extent, the other stride and the offsets are
// multiples of 4, so every 4-element chunk is entirely in or out of bounds.

#import params

alias S = f32;   // element type of A, B and C
alias SC = f32;  // carrier of scalar arguments (unused here; params.wgsl needs it)
alias ACC = f32; // accumulator type: S, or f32 for f16
alias VA = f32;  // element type of A's binding: S, or vec4<S> for vec4 loads
alias VB = f32;  // element type of B's binding
alias VC = f32;  // element type of C's binding: S, or vec4<S> for vec4 stores

override WG: u32 = 256u;
override BM: u32 = 64u;  // tile rows (a multiple of 4 * (TM / 4))
override BN: u32 = 64u;  // tile columns
override BK: u32 = 16u;  // tile depth (a multiple of 8)
override TM: u32 = 4u;   // rows per invocation: 4 or 8
override TN: u32 = 4u;   // columns per invocation: 4, 8 or 16; TM * TN <= 64
override TA: bool = false;
override TB: bool = false;

// Register arrays are sized for the largest blocking; loops over them have override bounds,
// which the driver unrolls once the constants are known.
const MAX_ACC: u32 = 16u;   // vec4 accumulators: (TM) * (TN / 4)
const MAX_LOAD: u32 = 8u;   // vec4 chunks of one tile per invocation

// ---- matrix-product parameters ----
// These accessors mirror `MatmulParams` in src/ops/linalg/params.rs, whose `encode` fills
// the slots they read; the kernels read the family's parameters only through them. The
// generated cooperative-matrix kernel (src/ops/linalg/coop_gen.rs) embeds this block.
fn dim_m() -> u32 { return P.st2[0].x; }        // rows of A and C
fn dim_n() -> u32 { return P.st2[0].y; }        // columns of B and C
fn dim_k() -> u32 { return P.st2[0].z; }        // columns of A, rows of B
fn ld_a() -> u32 { return P.st2[0].w; }         // A's stride along its non-contiguous dimension
fn ld_b() -> u32 { return P.st2[1].x; }         // B's stride along its non-contiguous dimension
fn first_batch() -> u32 { return P.st2[1].y; }  // batch of this dispatch's workgroups z = 0
fn first_tile_m() -> u32 { return P.aux.x; }    // M tile of this dispatch's workgroups y = 0
fn first_tile_n() -> u32 { return P.aux.y; }    // N tile of this dispatch's workgroups x = 0
// ---- end of matrix-product parameters ----

@group(0) @binding(1) var<storage, read> a: array<VA>;
@group(0) @binding(2) var<storage, read> b: array<VB>;
@group(0) @binding(4) var<storage, read_write> out: array<VC>;

var<workgroup> As: array<vec4<ACC>, BK * BM / 4u>;
var<workgroup> Bs: array<vec4<ACC>, BK * BN / 4u>;

// Up to 4 consecutive elements from element e (cnt of them in bounds, the rest 0). The four
// loads are unconditional, their indices clamped to the buffer, and the lanes beyond cnt
// selected away afterwards: no loop with a runtime bound and no branch around a load, so
// the driver issues them together (a bounded loop serialised partial tiles and unaligned
// leading dimensions; H100: 4099x3001x257 in f32, 0.398 -> 0.28 ms). The host replaces
// these lines in vectorised variants with one vec4 load behind a uniform branch (cnt is 0
// or 4 there; a clamped load and a select measured about 5% slower on aligned squares).
fn fetch_a(e: u32, cnt: u32) -> vec4<ACC> { let l = arrayLength(&a) - 1u; let v = vec4<ACC>(ACC(a[min(e, l)]), ACC(a[min(e + 1u, l)]), ACC(a[min(e + 2u, l)]), ACC(a[min(e + 3u, l)])); return select(vec4<ACC>(), v, vec4<u32>(0u, 1u, 2u, 3u) < vec4<u32>(cnt)); }
fn fetch_b(e: u32, cnt: u32) -> vec4<ACC> { let l = arrayLength(&b) - 1u; let v = vec4<ACC>(ACC(b[min(e, l)]), ACC(b[min(e + 1u, l)]), ACC(b[min(e + 2u, l)]), ACC(b[min(e + 3u, l)])); return select(vec4<ACC>(), v, vec4<u32>(0u, 1u, 2u, 3u) < vec4<u32>(cnt)); }
// Element k of A (replaced as the fetches are).
fn lane_a(k: u32) -> ACC { return ACC(a[k]); }
// Element e of C := x, and the first cnt lanes of v to C from element e. The host replaces
// both in variants with vec4 stores (N a multiple of 4: cnt is 0 or 4, e a multiple of 4),
// where a row's 4 outputs leave in one store instead of 4 (K small, the output write is the
// product's floor).
fn put(e: u32, x: ACC) { out[e] = S(x); }
fn store_c(e: u32, v: vec4<ACC>, cnt: u32) { for (var j = 0u; j < 4u; j++) { if (j < cnt) { out[e + j] = S(v[j]); } } }

// Elements of a chunk starting at c that lie below the extent `ext`, or 0 when `inside`
// is false (the chunk's row or column is outside the matrix).
fn count(c: u32, ext: u32, inside: bool) -> u32 {
    return select(0u, min(ext - min(c, ext), 4u), inside);
}

// Chunk q of a K-contiguous tile (A row-major, B transposed) of `rows` rows and BK
// columns: (row, first k). Two neighbouring invocations take the two chunks of one row that
// share a 32-byte sector (BK / 4 is even), so that a subgroup's loads use whole sectors; one
// chunk per row per invocation made every sector half-used (H100, 2048^3 f32: 0.68 ms with A
// K-contiguous, 0.56 ms with A transposed). The transposing stores of 16 rows then meet in
// 16 banks (2-way) instead of 32.
fn k_chunk(q: u32, rows: u32) -> vec2<u32> {
    return vec2<u32>((q / 2u) % rows, ((q % 2u) + 2u * (q / (2u * rows))) * 4u);
}

struct Tile {
    m0: u32,
    n0: u32,
    oa: u32,  // element offsets of this batch's A and B
    ob: u32,
}

// The chunks of A's tile at depth k0 that invocation t fetches: chunk q = t + r * WG.
// Chunks run along A's contiguous dimension; neighbouring pairs of invocations take
// neighbouring rows when that dimension is k (`k_chunk`), and neighbouring invocations
// neighbouring chunks of one row when it is m.
fn load_a(t: u32, tile: Tile, k0: u32, regs: ptr<function, array<vec4<ACC>, MAX_LOAD>>) {
    let M = dim_m();
    let K = dim_k();
    let sa = ld_a();
    let chunks = BM * BK / 4u;
    for (var r = 0u; r < MAX_LOAD; r++) {
        let q = t + r * WG;
        if (r * WG >= chunks) { break; }
        var v = vec4<ACC>();
        if (q < chunks) {
            if (TA) {
                let c = (q % (BM / 4u)) * 4u;
                let o = q / (BM / 4u);
                let m = tile.m0 + c;
                let k = k0 + o;
                v = fetch_a(tile.oa + k * sa + m, count(m, M, k < K));
            } else {
                let oc = k_chunk(q, BM);
                let o = oc.x;
                let c = oc.y;
                let m = tile.m0 + o;
                let k = k0 + c;
                v = fetch_a(tile.oa + m * sa + k, count(k, K, m < M));
            }
        }
        (*regs)[r] = v;
    }
}

fn store_a(t: u32, regs: ptr<function, array<vec4<ACC>, MAX_LOAD>>) {
    let chunks = BM * BK / 4u;
    for (var r = 0u; r < MAX_LOAD; r++) {
        let q = t + r * WG;
        if (r * WG >= chunks) { break; }
        if (q < chunks) {
            let v = (*regs)[r];
            if (TA) {
                let c = q % (BM / 4u);
                let o = q / (BM / 4u);
                As[o * (BM / 4u) + c] = v;
            } else {
                let oc = k_chunk(q, BM);
                let o = oc.x;
                let c = oc.y;
                for (var j = 0u; j < 4u; j++) {
                    As[(c + j) * (BM / 4u) + o / 4u][o % 4u] = v[j];
                }
            }
        }
    }
}

fn load_b(t: u32, tile: Tile, k0: u32, regs: ptr<function, array<vec4<ACC>, MAX_LOAD>>) {
    let N = dim_n();
    let K = dim_k();
    let sb = ld_b();
    let chunks = BN * BK / 4u;
    for (var r = 0u; r < MAX_LOAD; r++) {
        let q = t + r * WG;
        if (r * WG >= chunks) { break; }
        var v = vec4<ACC>();
        if (q < chunks) {
            if (TB) {
                let oc = k_chunk(q, BN);
                let o = oc.x;
                let c = oc.y;
                let n = tile.n0 + o;
                let k = k0 + c;
                v = fetch_b(tile.ob + n * sb + k, count(k, K, n < N));
            } else {
                let c = (q % (BN / 4u)) * 4u;
                let o = q / (BN / 4u);
                let n = tile.n0 + c;
                let k = k0 + o;
                v = fetch_b(tile.ob + k * sb + n, count(n, N, k < K));
            }
        }
        (*regs)[r] = v;
    }
}

fn store_b(t: u32, regs: ptr<function, array<vec4<ACC>, MAX_LOAD>>) {
    let chunks = BN * BK / 4u;
    for (var r = 0u; r < MAX_LOAD; r++) {
        let q = t + r * WG;
        if (r * WG >= chunks) { break; }
        if (q < chunks) {
            let v = (*regs)[r];
            if (TB) {
                let oc = k_chunk(q, BN);
                let o = oc.x;
                let c = oc.y;
                for (var j = 0u; j < 4u; j++) {
                    Bs[(c + j) * (BN / 4u) + o / 4u][o % 4u] = v[j];
                }
            } else {
                let c = q % (BN / 4u);
                let o = q / (BN / 4u);
                Bs[o * (BN / 4u) + c] = v;
            }
        }
    }
}

@compute @workgroup_size(WG)
fn matmul(@builtin(workgroup_id) wid: vec3<u32>, @builtin(local_invocation_index) t: u32) {
    let M = dim_m();
    let N = dim_n();
    let K = dim_k();
    let batch = wid.z + first_batch();

    // This batch's offsets of A and B, from its multi-index over the batch dimensions.
    let offs = batch_offsets(batch);
    let oa = offs.x;
    let ob = offs.y;
    let tile = Tile((wid.y + first_tile_m()) * BM, (wid.x + first_tile_n()) * BN, oa, ob);

    let MV = TM / 4u;          // groups of 4 rows per invocation
    let NV = TN / 4u;          // groups of 4 columns
    let TX = BN / TN;          // invocations along n
    let tx = t % TX;
    let ty = t / TX;

    var acc: array<vec4<ACC>, MAX_ACC>;
    for (var i = 0u; i < MAX_ACC; i++) {
        acc[i] = vec4<ACC>();
    }
    var ra: array<vec4<ACC>, MAX_LOAD>;
    var rb: array<vec4<ACC>, MAX_LOAD>;

    let tiles = (K + BK - 1u) / BK;
    load_a(t, tile, 0u, &ra);
    load_b(t, tile, 0u, &rb);
    store_a(t, &ra);
    store_b(t, &rb);
    workgroupBarrier();
    for (var kt = 0u; kt < tiles; kt++) {
        let more = kt + 1u < tiles;
        if (more) {
            load_a(t, tile, (kt + 1u) * BK, &ra);
            load_b(t, tile, (kt + 1u) * BK, &rb);
        }
        for (var k = 0u; k < BK; k++) {
            var af: array<vec4<ACC>, 2>;
            var bf: array<vec4<ACC>, 4>;
            for (var i = 0u; i < MV; i++) {
                af[i] = As[k * (BM / 4u) + ty + i * (BM / 4u / MV)];
            }
            for (var j = 0u; j < NV; j++) {
                bf[j] = Bs[k * (BN / 4u) + tx + j * (BN / 4u / NV)];
            }
            for (var i = 0u; i < MV; i++) {
                for (var ii = 0u; ii < 4u; ii++) {
                    let x = af[i][ii];
                    for (var j = 0u; j < NV; j++) {
                        acc[(i * 4u + ii) * NV + j] += x * bf[j];
                    }
                }
            }
        }
        workgroupBarrier();
        if (more) {
            store_a(t, &ra);
            store_b(t, &rb);
        }
        workgroupBarrier();
    }

    let oc = batch * M * N;
    for (var i = 0u; i < MV; i++) {
        for (var ii = 0u; ii < 4u; ii++) {
            let m = tile.m0 + ty * 4u + i * (BM / MV) + ii;
            if (m >= M) { continue; }
            for (var j = 0u; j < NV; j++) {
                let n = tile.n0 + tx * 4u + j * (BN / NV);
                store_c(oc + m * N + n, acc[(i * 4u + ii) * NV + j], min(N - min(n, N), 4u));
            }
        }
    }
}

// Trace parameters: these accessors mirror `TraceParams` in src/ops/linalg/params.rs
// (P.n = matrices and P.offs.x = the first diagonal element are generic).
fn trace_len() -> u32 { return P.aux.x; }               // elements on each diagonal
fn trace_matrix_stride() -> u32 { return P.st2[0].x; }  // elements from one matrix to the next
fn trace_step() -> u32 { return P.st2[0].y; }           // elements along a diagonal

// The sum of the diagonal of each of n matrices: out[z] = sum_i A[z][i, i], i <
// trace_len(), with A[z] at offs.x + z * trace_matrix_stride() and the diagonal stride
// trace_step(). One invocation per matrix (traces are short next to the matrices' size; a
// matrix's diagonal is read once).
@compute @workgroup_size(WG)
fn trace(@builtin(workgroup_id) w: vec3<u32>, @builtin(num_workgroups) nw: vec3<u32>,
         @builtin(local_invocation_index) l: u32) {
    let z = linear_id(w, nw, l, WG);
    if (z >= P.n) { return; }
    var s = ACC();
    var o = P.offs.x + z * trace_matrix_stride();
    for (var i = 0u; i < trace_len(); i++) {
        s += lane_a(o);
        o += trace_step();
    }
    put(z, s);
}
