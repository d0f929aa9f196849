// Large f32 matrix products, C[z] = A[z] @ B[z], on 128 x 128 output tiles (issue 16's
// square products); host side src/ops/linalg/linalg_big.rs, which takes this kernel only where
// M and N are multiples of 128, K of BK, and both operands take vec4 loads (extents,
// leading dimensions and offsets multiples of 4), so that every index is in bounds by
// construction (compiled unchecked). Other products take shaders/linalg.wgsl.
//
// Bindings: 0 params (shared/params.wgsl; the matrix-product accessors of
// shaders/linalg.wgsl, which the host appends); 1 a (A, vec4<f32>); 2 b (B, vec4<f32>);
// 4 out (C, contiguous [batches, M, N], vec4<f32>).
// Dispatch: workgroups (x, y, z) = (N / 128, M / 128, batches), split by the host as the
// tiled kernel's grids are (first_tile_m(), first_tile_n(), first_batch()); 256
// invocations, each computing 8 x 8 outputs: rows 4 ty .. 4 ty + 3 and 64 + 4 ty ..
// 64 + 4 ty + 3, columns 4 tx .. 4 tx + 3 and 64 + 4 tx .. 64 + 4 tx + 3, so that each k
// step reads 4 vec4s of workgroup memory (two of A's column of the tile, two of B's row),
// a quarter-warp's 16-byte reads on distinct banks. A warp's 32 invocations are 16 along
// n and 2 along m (tx = t % 16, ty = t / 16), or with QUAD 8 along n and 4 along m (fewer
// distinct words per warp: 4 of A and 8 of B per read instead of 2 and 16).
// Workgroup memory: A and B tiles k-major (As[k][m], Bs[k][n]; A transposed at the store
// when it is K-contiguous), rows of SROW vec4s (33: 128 values and 4 of padding, so that
// the transposing stores of 16 rows and two k chunks meet in 32 banks; 32 where the
// padding would not fit, the stores then 2-way), two buffers of BK rows each: the next K tile is loaded into registers before the current one's FMAs and stored
// to the other buffer after them, one barrier per K tile.
// The k loop below is unrolled BK times by the host (`// unroll`, src/kernel/unroll.rs:
// naga emits loops as written); the 16 accumulators are separate vec4 locals (an indexed
// private array may go to local memory).

#import params

alias S = f32;
alias SC = f32;

override WG: u32 = 256u;   // invocations: 256 (the host passes it)
override BK: u32 = 8u;      // tile depth: 8 or 16
override TA: bool = false;  // A is M-contiguous (a transposed view)
override TB: bool = false;  // B is K-contiguous (a transposed view)

override QUAD: bool = false; // warps of 8 x 4 invocations (else 16 x 2)
override SROW: u32 = 33u;   // vec4s per k row of a workgroup tile: 33 or 32
const TILE: u32 = 128u;     // rows and columns of the output tile

@group(0) @binding(1) var<storage, read> a: array<vec4<f32>>;
@group(0) @binding(2) var<storage, read> b: array<vec4<f32>>;
@group(0) @binding(4) var<storage, read_write> out: array<vec4<f32>>;

var<workgroup> As: array<vec4<f32>, 2u * BK * SROW>;
var<workgroup> Bs: array<vec4<f32>, 2u * BK * SROW>;

// One vec4 of A and of B by vec4 index.
fn load_a4(i: u32) -> vec4<f32> { return a[i]; }
fn load_b4(i: u32) -> vec4<f32> { return b[i]; }

// Chunk q (of BK * 32) of a tile whose source is contiguous along k: (row, first k).
// Neighbouring pairs of invocations read the two chunks of one row that share a 32-byte
// sector; the 256 invocations cover k 0..7, and k 8..15 with q + 256.
fn kc_of(q: u32) -> vec2<u32> {
    return vec2<u32>((q / 2u) % TILE, ((q % 2u) + 2u * (q / 256u)) * 4u);
}

// Chunk q of A's tile at depth k0 from global memory (origin: A's element offset, plus
// the tile's first row or column).
fn fetch_a(q: u32, k0: u32, org: u32) -> vec4<f32> {
    if (TA) {
        return load_a4((org + (k0 + q / 32u) * ld_a()) / 4u + q % 32u);
    }
    let rc = kc_of(q);
    return load_a4((org + rc.x * ld_a() + k0 + rc.y) / 4u);
}

fn fetch_b(q: u32, k0: u32, org: u32) -> vec4<f32> {
    if (!TB) {
        return load_b4((org + (k0 + q / 32u) * ld_b()) / 4u + q % 32u);
    }
    let rc = kc_of(q);
    return load_b4((org + rc.x * ld_b() + k0 + rc.y) / 4u);
}

// Chunk q into buffer `buf` (a vec4 index) of A's workgroup tile, k-major.
fn put_a(q: u32, buf: u32, v: vec4<f32>) {
    if (TA) {
        As[buf + (q / 32u) * SROW + q % 32u] = v;
        return;
    }
    let rc = kc_of(q);
    let o = buf + rc.y * SROW + rc.x / 4u;
    let l = rc.x % 4u;
    As[o][l] = v.x;
    As[o + SROW][l] = v.y;
    As[o + 2u * SROW][l] = v.z;
    As[o + 3u * SROW][l] = v.w;
}

fn put_b(q: u32, buf: u32, v: vec4<f32>) {
    if (!TB) {
        Bs[buf + (q / 32u) * SROW + q % 32u] = v;
        return;
    }
    let rc = kc_of(q);
    let o = buf + rc.y * SROW + rc.x / 4u;
    let l = rc.x % 4u;
    Bs[o][l] = v.x;
    Bs[o + SROW][l] = v.y;
    Bs[o + 2u * SROW][l] = v.z;
    Bs[o + 3u * SROW][l] = v.w;
}

// Row r of C's tile (its two vec4s of this invocation) from vec4 index e.
fn put_row(e: u32, lo: vec4<f32>, hi: vec4<f32>) {
    out[e] = lo;
    out[e + 16u] = hi;
}

@compute @workgroup_size(WG)
fn matmul_big(@builtin(workgroup_id) wid: vec3<u32>, @builtin(local_invocation_index) t: u32) {
    let M = dim_m();
    let N = dim_n();
    let K = dim_k();
    let batch = wid.z + first_batch();
    let offs = batch_offsets(batch);
    let m0 = (wid.y + first_tile_m()) * TILE;
    let n0 = (wid.x + first_tile_n()) * TILE;
    // Origins of the tiles: A's first row (or column, TA), B's first column (or row, TB).
    let oa = offs.x + m0 * select(ld_a(), 1u, TA);
    let ob = offs.y + n0 * select(1u, ld_b(), TB);
    let w = t / 32u;
    let l = t % 32u;
    let tx = select(t % 16u, l % 8u + 8u * (w % 2u), QUAD);
    let ty = select(t / 16u, l / 8u + 4u * (w / 2u), QUAD);
    let two = BK > 8u;

    var c00 = vec4<f32>(); var c01 = vec4<f32>(); var c10 = vec4<f32>(); var c11 = vec4<f32>();
    var c20 = vec4<f32>(); var c21 = vec4<f32>(); var c30 = vec4<f32>(); var c31 = vec4<f32>();
    var c40 = vec4<f32>(); var c41 = vec4<f32>(); var c50 = vec4<f32>(); var c51 = vec4<f32>();
    var c60 = vec4<f32>(); var c61 = vec4<f32>(); var c70 = vec4<f32>(); var c71 = vec4<f32>();

    // Chunks t and (BK = 16 only; `two` is a constant once BK is known) t + 256 of each
    // operand's tile.
    let q1 = t + 256u;
    var ra0 = fetch_a(t, 0u, oa);
    var rb0 = fetch_b(t, 0u, ob);
    var ra1 = vec4<f32>();
    var rb1 = vec4<f32>();
    if (two) {
        ra1 = fetch_a(q1, 0u, oa);
        rb1 = fetch_b(q1, 0u, ob);
    }
    put_a(t, 0u, ra0);
    put_b(t, 0u, rb0);
    if (two) {
        put_a(q1, 0u, ra1);
        put_b(q1, 0u, rb1);
    }
    workgroupBarrier();

    let tiles = K / BK;
    for (var kt = 0u; kt < tiles; kt++) {
        let cur = (kt % 2u) * BK * SROW;
        // The next tile (the last one again on the last step, stored where nothing reads).
        let k1 = min(kt + 1u, tiles - 1u) * BK;
        ra0 = fetch_a(t, k1, oa);
        rb0 = fetch_b(t, k1, ob);
        if (two) {
            ra1 = fetch_a(q1, k1, oa);
            rb1 = fetch_b(q1, k1, ob);
        }
        // unroll
        for (var kk = 0u; kk < BK; kk++) {
            let o = cur + kk * SROW;
            let a0 = As[o + ty];
            let a1 = As[o + 16u + ty];
            let b0 = Bs[o + tx];
            let b1 = Bs[o + 16u + tx];
            c00 += a0.x * b0; c01 += a0.x * b1; c10 += a0.y * b0; c11 += a0.y * b1;
            c20 += a0.z * b0; c21 += a0.z * b1; c30 += a0.w * b0; c31 += a0.w * b1;
            c40 += a1.x * b0; c41 += a1.x * b1; c50 += a1.y * b0; c51 += a1.y * b1;
            c60 += a1.z * b0; c61 += a1.z * b1; c70 += a1.w * b0; c71 += a1.w * b1;
        }
        let nxt = BK * SROW - cur;
        put_a(t, nxt, ra0);
        put_b(t, nxt, rb0);
        if (two) {
            put_a(q1, nxt, ra1);
            put_b(q1, nxt, rb1);
        }
        workgroupBarrier();
    }

    // Rows 4 ty + i and 64 + 4 ty + i, as vec4 indices of C.
    let n4 = N / 4u;
    let e = (batch * M * N) / 4u + (m0 + 4u * ty) * n4 + n0 / 4u + tx;
    put_row(e, c00, c01);
    put_row(e + n4, c10, c11);
    put_row(e + 2u * n4, c20, c21);
    put_row(e + 3u * n4, c30, c31);
    let f = e + 64u * n4;
    put_row(f, c40, c41);
    put_row(f + n4, c50, c51);
    put_row(f + 2u * n4, c60, c61);
    put_row(f + 3u * n4, c70, c71);
}
