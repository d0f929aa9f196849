enable wgpu_cooperative_matrix;

// Linear algebra family, f16 matrix products on cooperative matrices (tensor cores): the
// `matmul` kernel of linalg.wgsl for adapters with wgpu's EXPERIMENTAL_COOPERATIVE_MATRIX
// (a separate file because its types need the `wgpu_cooperative_matrix` extension, which
// other adapters reject). Same bindings and parameters as linalg.wgsl's `matmul`.
//
// Dispatch: workgroups (x, y, z) = (N / 128 tiles, M / 128 tiles, batches); WG = 256
// invocations in 8 subgroups of 32 (the host uses this kernel only where subgroups have 32
// invocations), arranged 4 (along m) x 2 (along n). A subgroup computes a 32 x 64 block of
// C as 2 x 4 fragments of 16 x 16 with f32 accumulators, loading its f16 fragments of A and
// B straight from the storage buffers (row-major, or column-major for transposed views).
// M, N and K are multiples of 16 (the host's condition): fragments beyond the matrix read
// a clamped, valid fragment and store nothing. Each finished fragment passes through a
// 16 x 16 f32 scratch tile in workgroup memory, from which the subgroup writes it as f16.

alias S = f16;
alias SC = f32;

override WG: u32 = 256u;
override TA: bool = false; // A is M-contiguous (column-major fragments)
override TB: bool = false; // B is K-contiguous

@group(0) @binding(1) var<storage, read> a: array<f16>;
@group(0) @binding(2) var<storage, read> b: array<f16>;
@group(0) @binding(4) var<storage, read_write> out: array<f16>;

var<workgroup> scratch: array<f32, 2048>; // 8 subgroups x 16 x 16

// The A fragment at rows m.., depth k.. of the batch at offset oa.
fn frag_a(oa: u32, m: u32, k: u32) -> coop_mat16x16<f16, A> {
    let sa = P.st2[0].w;
    if (TA) {
        return coopLoad<coop_mat16x16<f16, A>>(&a[oa + k * sa + m], sa);
    }
    return coopLoadT<coop_mat16x16<f16, A>>(&a[oa + m * sa + k], sa);
}

fn frag_b(ob: u32, k: u32, n: u32) -> coop_mat16x16<f16, B> {
    let sb = P.st2[1].x;
    if (TB) {
        return coopLoad<coop_mat16x16<f16, B>>(&b[ob + n * sb + k], sb);
    }
    return coopLoadT<coop_mat16x16<f16, B>>(&b[ob + k * sb + n], sb);
}

// Writes fragment c (rows m.., columns n..) of the output at offset oc, when `inside`.
// Every invocation of the workgroup calls this the same number of times (barriers).
fn emit(c: coop_mat16x16<f32, C>, sg: u32, lane: u32, size: u32, inside: bool, oc: u32,
        m: u32, n: u32) {
    let N = P.st2[0].y;
    coopStoreT(c, &scratch[sg * 256u], 16u);
    workgroupBarrier();
    if (inside) {
        for (var i = lane; i < 256u; i += size) {
            out[oc + (m + i / 16u) * N + n + i % 16u] = f16(scratch[sg * 256u + i]);
        }
    }
    workgroupBarrier();
}

@compute @workgroup_size(WG)
fn matmul_coop(@builtin(workgroup_id) wid: vec3<u32>, @builtin(subgroup_id) sg: u32,
               @builtin(subgroup_invocation_id) lane: u32,
               @builtin(subgroup_size) size: u32) {
    let M = P.st2[0].x;
    let N = P.st2[0].y;
    let K = P.st2[0].z;
    let batch = wid.z + P.st2[1].y;
    let offs = batch_offsets(batch);
    let oa = offs.x;
    let ob = offs.y;
    let m0 = (wid.y + P.aux.x) * 128u + (sg / 2u) * 32u;
    let n0 = (wid.x + P.aux.y) * 128u + (sg % 2u) * 64u;
    // Fragment origins, clamped into the matrix.
    let r0 = min(m0, M - 16u);
    let r1 = min(m0 + 16u, M - 16u);
    let c0 = min(n0, N - 16u);
    let c1 = min(n0 + 16u, N - 16u);
    let c2 = min(n0 + 32u, N - 16u);
    let c3 = min(n0 + 48u, N - 16u);

    var x00 = coop_mat16x16<f32, C>();
    var x01 = coop_mat16x16<f32, C>();
    var x02 = coop_mat16x16<f32, C>();
    var x03 = coop_mat16x16<f32, C>();
    var x10 = coop_mat16x16<f32, C>();
    var x11 = coop_mat16x16<f32, C>();
    var x12 = coop_mat16x16<f32, C>();
    var x13 = coop_mat16x16<f32, C>();
    for (var k = 0u; k < K; k += 16u) {
        let a0 = frag_a(oa, r0, k);
        let a1 = frag_a(oa, r1, k);
        let b0 = frag_b(ob, k, c0);
        let b1 = frag_b(ob, k, c1);
        let b2 = frag_b(ob, k, c2);
        let b3 = frag_b(ob, k, c3);
        x00 = coopMultiplyAdd(a0, b0, x00);
        x01 = coopMultiplyAdd(a0, b1, x01);
        x02 = coopMultiplyAdd(a0, b2, x02);
        x03 = coopMultiplyAdd(a0, b3, x03);
        x10 = coopMultiplyAdd(a1, b0, x10);
        x11 = coopMultiplyAdd(a1, b1, x11);
        x12 = coopMultiplyAdd(a1, b2, x12);
        x13 = coopMultiplyAdd(a1, b3, x13);
    }
    let oc = batch * M * N;
    let in0 = m0 < M;
    let in1 = m0 + 16u < M;
    emit(x00, sg, lane, size, in0 && n0 < N, oc, r0, c0);
    emit(x01, sg, lane, size, in0 && n0 + 16u < N, oc, r0, c1);
    emit(x02, sg, lane, size, in0 && n0 + 32u < N, oc, r0, c2);
    emit(x03, sg, lane, size, in0 && n0 + 48u < N, oc, r0, c3);
    emit(x10, sg, lane, size, in1 && n0 < N, oc, r1, c0);
    emit(x11, sg, lane, size, in1 && n0 + 16u < N, oc, r1, c1);
    emit(x12, sg, lane, size, in1 && n0 + 32u < N, oc, r1, c2);
    emit(x13, sg, lane, size, in1 && n0 + 48u < N, oc, r1, c3);
}
