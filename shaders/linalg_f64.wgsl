// f64 matrix products, C[z] = A[z] @ B[z], on register tiles sized for 8-byte elements;
// host side src/ops/linalg/linalg_f64.rs, which prepends the tiling as `const` lines (BM, BN
// rows and columns of the output tile, BK its depth, TM x TN outputs per invocation, NT
// invocations, MV = TM / 2 and NV = TN / 2, LA and LB elements of A's and B's tile each
// invocation fetches, ROWA and ROWB the vec2s of a k row of the workgroup tiles, BM / 2 or
// BN / 2 plus 1 of padding, TA and TB the operands' layouts, PAIR, FRAG and RAW the layout
// flags below) and unrolls the loops marked
// `// unroll` (src/kernel/unroll.rs), so that every register array is indexed by constants.
// Any shape and layout: loads are clamped to the buffer and selected to 0 outside the
// matrices (RAW: zeroed past K only, below), stores checked; compiled unchecked.
//
// Bindings: 0 params (shared/params.wgsl; the matrix-product accessors of
// shaders/linalg.wgsl, which the host appends); 1 a (A, f64); 2 b (B, f64); 4 out (C,
// contiguous [batches, M, N], f64).
// Dispatch: workgroups (x, y, z) = (tiles along N, tiles along M, batches), split by the host
// as the tiled kernel's grids are (first_tile_m(), first_tile_n(), first_batch()).
// One workgroup: a BM x BN tile of C, NT = (BM / TM) (BN / TN) invocations; invocation
// (tx, ty) holds TM / 2 pairs of rows 2 (i (BM / TM) + ty) + {0, 1} and TN / 2 pairs of
// columns 2 (j (BN / TN) + tx) + {0, 1}: neighbouring invocations read neighbouring
// 16-byte words of the workgroup tiles, one vec2<f64> per pair. Workgroup memory: A's and
// B's tiles k-major (As[k][m], Bs[k][n]), rows padded by 2 elements where the adapter's
// workgroup memory holds it (the transposing stores of a K-contiguous operand then spread
// over the banks), two buffers: the next K tile is fetched into registers before the current
// one's FMAs and stored to the other buffer after them, one barrier per K tile. The
// prefetch holds the raw (clamped) loads; whether each element lies inside the matrix is
// decided, and the outside ones set to 0, only at the store: where the select followed the
// load, the driver placed it right after it (NVIDIA, H200: the bounds' predicates are few
// and were spent at once), so every K tile waited out its global loads before its first
// FMA, with all the workgroup's invocations, held together by the barrier, waiting alike.
// The products accumulate with fma (one rounding per step, as the GPU's DFMA).
//
// Two layout flags (host: src/ops/linalg/linalg_f64.rs, `Layout`). PAIR: the invocations of
// a subgroup laid out so that lanes n and n ^ 1 differ in their column only (they read the
// same word of A) and lanes n and n ^ 2 in their row only (the same word of B): NVIDIA's
// workgroup memory returns 128 bytes a clock, one 32-bit register per lane of a subgroup of
// 32, so a 16-byte load costs 4 clocks, and 2 where every such pair reads one address (its
// return packed). In the plain layout (tx = t % TX) only A's loads pair. FRAG: the next k
// step's fragments loaded before the current one's FMAs (two register slots), so that no
// step waits for its loads where the driver keeps the order. RAW: the prefetched values
// stored as loaded, the elements past K set to 0 after a barrier in the K tile that holds
// the end of K (`zero_tail`): with the selects at the store (RAW off), NVIDIA's compiler
// still placed them (FSEL) right after their loads, before the K tile's first DFMA (SASS,
// H200, 2026-11-29: 7 of 8 loads), so every K tile waited out its global loads.

#import params

alias S = f64;
alias SC = f64;

override WG: u32 = 256u; // the host passes NT

@group(0) @binding(1) var<storage, read> a: array<f64>;
@group(0) @binding(2) var<storage, read> b: array<f64>;
@group(0) @binding(4) var<storage, read_write> out: array<f64>;

var<workgroup> As: array<vec2<f64>, 2u * BK * ROWA>;
var<workgroup> Bs: array<vec2<f64>, 2u * BK * ROWB>;

// Element i of A (B), clamped to the buffer: the raw value of the prefetch.
fn get_a(i: u32) -> f64 {
    return a[min(i, arrayLength(&a) - 1u)];
}
fn get_b(i: u32) -> f64 {
    return b[min(i, arrayLength(&b) - 1u)];
}

// Element e of A's tile at depth k0: its (m, k) in the tile. TA: A is M-contiguous (element
// (m, k) at k lda + m), e runs along m; else along k.
fn at_a(e: u32) -> vec2<u32> {
    if (TA) {
        return vec2<u32>(e % BM, e / BM);
    }
    return vec2<u32>(e / BK, e % BK);
}

// Element e of B's tile: its (n, k). TB: B is K-contiguous (element (k, n) at n ldb + k), e
// runs along k; else along n.
fn at_b(e: u32) -> vec2<u32> {
    if (TB) {
        return vec2<u32>(e / BK, e % BK);
    }
    return vec2<u32>(e % BN, e / BN);
}

// The raw value of element e of A's (B's) tile at depth k0 (clamped to the buffer; outside
// the matrix it is whatever lies there, set to 0 by `inside_a` at the store).
fn fetch_a(e: u32, m0: u32, k0: u32, oa: u32) -> f64 {
    let mk = at_a(e);
    let gm = m0 + mk.x;
    let gk = k0 + mk.y;
    return get_a(select(oa + gm * ld_a() + gk, oa + gk * ld_a() + gm, TA));
}
fn fetch_b(e: u32, n0: u32, k0: u32, ob: u32) -> f64 {
    let nk = at_b(e);
    let gn = n0 + nk.x;
    let gk = k0 + nk.y;
    return get_b(select(ob + gk * ld_b() + gn, ob + gn * ld_b() + gk, TB));
}

// `v`, element e of A's (B's) tile at depth k0, or 0 where it lies outside the matrix.
fn inside_a(e: u32, m0: u32, k0: u32, v: f64) -> f64 {
    let mk = at_a(e);
    return select(0.0lf, v, m0 + mk.x < dim_m() && k0 + mk.y < dim_k());
}
fn inside_b(e: u32, n0: u32, k0: u32, v: f64) -> f64 {
    let nk = at_b(e);
    return select(0.0lf, v, n0 + nk.x < dim_n() && k0 + nk.y < dim_k());
}

// The raw value `v` of element e of A's (B's) tile, or (without RAW) 0 outside the matrix:
// what the prefetch stores.
fn staged_a(e: u32, m0: u32, k0: u32, v: f64) -> f64 {
    if (RAW) {
        return v;
    }
    return inside_a(e, m0, k0, v);
}
fn staged_b(e: u32, n0: u32, k0: u32, v: f64) -> f64 {
    if (RAW) {
        return v;
    }
    return inside_b(e, n0, k0, v);
}

// RAW: the elements this invocation stored to buffer `buf` for the K tile at k0 that lie at
// k >= K, set to 0 (the tile holding the end of K, and the one past it). Rows of A past M
// and columns of B past N keep their raw values: they reach only outputs past M or N,
// which are not stored; past K both operands must be 0 (0 times a raw infinity is NaN).
fn zero_tail(t: u32, buf: u32, k0: u32, K: u32) {
    // unroll
    for (var r = 0u; r < LA; r++) {
        if (k0 + at_a(t + r * NT).y >= K) {
            put_a(t + r * NT, buf, 0.0lf);
        }
    }
    // unroll
    for (var r = 0u; r < LB; r++) {
        if (k0 + at_b(t + r * NT).y >= K) {
            put_b(t + r * NT, buf, 0.0lf);
        }
    }
}

// Element e of A's (B's) tile into buffer `buf` (0 or 1) of the workgroup tile, k-major.
fn put_a(e: u32, buf: u32, v: f64) {
    let mk = at_a(e);
    let i = (buf * BK + mk.y) * (2u * ROWA) + mk.x;
    As[i / 2u][i % 2u] = v;
}
fn put_b(e: u32, buf: u32, v: f64) {
    let nk = at_b(e);
    let i = (buf * BK + nk.y) * (2u * ROWB) + nk.x;
    Bs[i / 2u][i % 2u] = v;
}

@compute @workgroup_size(WG)
fn matmul_f64(@builtin(workgroup_id) wid: vec3<u32>, @builtin(local_invocation_index) t: u32) {
    let M = dim_m();
    let N = dim_n();
    let K = dim_k();
    let batch = wid.z + first_batch();
    let offs = batch_offsets(batch);
    let m0 = (wid.y + first_tile_m()) * BM;
    let n0 = (wid.x + first_tile_n()) * BN;
    let TX = BN / TN;
    let TY = BM / TM;
    var tx = t % TX;
    var ty = t / TX;
    if (PAIR) {
        // Lane bit 0 steps the column, bit 1 the row, the rest as the plain layout over
        // pairs (TX and TY even: the host checks).
        let h = t / 4u;
        let half = TX / 2u;
        tx = (t & 1u) + 2u * (h % half);
        ty = ((t / 2u) & 1u) + 2u * (h / half);
    }

    var acc: array<vec2<f64>, TM * (TN / 2u)>;
    var ra: array<f64, LA>;
    var rb: array<f64, LB>;
    // The fragments of a k step: slot 0, and with FRAG slot 1 for every other step.
    var af: array<vec2<f64>, 2u * MV>;
    var bf: array<vec2<f64>, 2u * NV>;

    // unroll
    for (var r = 0u; r < LA; r++) {
        ra[r] = fetch_a(t + r * NT, m0, 0u, offs.x);
    }
    // unroll
    for (var r = 0u; r < LB; r++) {
        rb[r] = fetch_b(t + r * NT, n0, 0u, offs.y);
    }
    // unroll
    for (var r = 0u; r < LA; r++) {
        put_a(t + r * NT, 0u, staged_a(t + r * NT, m0, 0u, ra[r]));
    }
    // unroll
    for (var r = 0u; r < LB; r++) {
        put_b(t + r * NT, 0u, staged_b(t + r * NT, n0, 0u, rb[r]));
    }
    if (RAW && BK > K) {
        // A barrier between the raw stores and the zeros, so that no compiler merges them
        // into a select of the loaded values.
        workgroupBarrier();
        zero_tail(t, 0u, 0u, K);
    }
    workgroupBarrier();

    let tiles = (K + BK - 1u) / BK;
    for (var kt = 0u; kt < tiles; kt++) {
        let cur = kt % 2u;
        // The next K tile (past the last one: zeros, stored where nothing reads them).
        let k1 = (kt + 1u) * BK;
        // unroll
        for (var r = 0u; r < LA; r++) {
            ra[r] = fetch_a(t + r * NT, m0, k1, offs.x);
        }
        // unroll
        for (var r = 0u; r < LB; r++) {
            rb[r] = fetch_b(t + r * NT, n0, k1, offs.y);
        }
        let ba = cur * BK * ROWA + ty;
        let bb = cur * BK * ROWB + tx;
        // unroll
        for (var kk = 0u; kk < BK; kk++) {
            // This step's slot; its fragments are loaded here, or (FRAG) by the step before.
            let s = select(0u, kk % 2u, FRAG);
            if (!FRAG || kk == 0u) {
                // unroll
                for (var i = 0u; i < MV; i++) {
                    af[s * MV + i] = As[ba + kk * ROWA + i * TY];
                }
                // unroll
                for (var j = 0u; j < NV; j++) {
                    bf[s * NV + j] = Bs[bb + kk * ROWB + j * TX];
                }
            }
            if (FRAG && kk + 1u < BK) {
                let s1 = 1u - s;
                // unroll
                for (var i = 0u; i < MV; i++) {
                    af[s1 * MV + i] = As[ba + (kk + 1u) * ROWA + i * TY];
                }
                // unroll
                for (var j = 0u; j < NV; j++) {
                    bf[s1 * NV + j] = Bs[bb + (kk + 1u) * ROWB + j * TX];
                }
            }
            // unroll
            for (var i = 0u; i < MV; i++) {
                // unroll
                for (var j = 0u; j < NV; j++) {
                    let x = af[s * MV + i];
                    let y = bf[s * NV + j];
                    acc[2u * i * NV + j] = fma(vec2<f64>(x.x), y, acc[2u * i * NV + j]);
                    acc[(2u * i + 1u) * NV + j] = fma(vec2<f64>(x.y), y, acc[(2u * i + 1u) * NV + j]);
                }
            }
        }
        let nxt = 1u - cur;
        // unroll
        for (var r = 0u; r < LA; r++) {
            put_a(t + r * NT, nxt, staged_a(t + r * NT, m0, k1, ra[r]));
        }
        // unroll
        for (var r = 0u; r < LB; r++) {
            put_b(t + r * NT, nxt, staged_b(t + r * NT, n0, k1, rb[r]));
        }
        if (RAW && k1 + BK > K) {
            workgroupBarrier();
            zero_tail(t, nxt, k1, K);
        }
        workgroupBarrier();
    }

    let oc = batch * M * N;
    // unroll
    for (var i = 0u; i < MV; i++) {
        // unroll
        for (var ii = 0u; ii < 2u; ii++) {
            let m = m0 + 2u * (i * TY + ty) + ii;
            // unroll
            for (var j = 0u; j < NV; j++) {
                let n = n0 + 2u * (j * TX + tx);
                let v = acc[(2u * i + ii) * NV + j];
                if (m < M && n < N) {
                    out[oc + m * N + n] = v.x;
                }
                if (m < M && n + 1u < N) {
                    out[oc + m * N + n + 1u] = v.y;
                }
            }
        }
    }
}
