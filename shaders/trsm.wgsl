// One step of a blocked triangular solve with few right-hand sides (gpuarray::linalg's
// solves, src/linalg/trsm.rs): for up to SPAN consecutive diagonal blocks covering rows
// [k0, k0 + wdt) of op(A), in the order of the solve (forward, or backward where BACK),
//   y[i, c]     = b[j0 + i, c] - sum_p op(A)[j0 + i, p] x[p, c]   (p: the step's rows
//                                                                   solved before block j)
//   x[j0 + i, c] = sum_p inv_j[i, p] y[p, c]                       (block j's solution)
// then
//   b[r, c]     -= sum_p op(A)[r, p] x[p, c]    for rows [r0, r0 + nrows), p in the step
// in one dispatch where the blocked solve took four a block (a product and a copy each),
// and SPAN times fewer dispatches than one block a step (a 4096 solve of one vector: 16 a
// triangle, not 64). Every workgroup computes the step's solution into workgroup memory
// from `b`, which the dispatch writes only outside the step's rows; workgroup 0 also
// writes it to `x`.
//
// Bindings: 0 params; 1 `a`, the triangular matrices ([count, an, an], read transposed
// where TRANS); 2 `inv`, the inverses of their diagonal blocks ([count, blocks, slot,
// slot], shaders/factor.wgsl's `tri_inv`); 3 `x`, the solution ([count, rows, cols],
// in a buffer of its own); 4 `b`, the right-hand sides ([count, rows, cols]).
// Dispatch: workgroups (g, matrix) with the matrix `wid.z * nwg.y + wid.y`; invocation
// `g * WG + lid` updates element (r0 + t / cols, t % cols).

#import params

alias T = f32; // element type: f32 or f64
alias S = f32;
alias SC = f32;

override WG: u32 = 256u;

const TRANS: u32 = 4u;
const BACK: u32 = 8u;
// Most blocks a step (src/linalg/trsm.rs's SPAN) and elements of a block's right-hand
// sides: 64 rows of 8; the step's solution holds SPAN of them.
const SPAN: u32 = 4u;
const XMAX: u32 = 512u;

@group(0) @binding(1) var<storage, read> a: array<T>;
@group(0) @binding(2) var<storage, read> inv: array<T>;
@group(0) @binding(3) var<storage, read_write> x: array<T>;
@group(0) @binding(4) var<storage, read_write> b: array<T>;

var<workgroup> xs: array<T, SPAN * XMAX>;
var<workgroup> ys: array<T, XMAX>;

fn rows() -> u32 { return P.shape[0].x; }   // rows of each matrix of b (the order)
fn cols() -> u32 { return P.shape[0].y; }   // right-hand sides
fn k0() -> u32 { return P.shape[0].z; }     // the step's first row (a block's first)
fn wdt() -> u32 { return P.shape[0].w; }    // its rows (at most SPAN blocks)
fn slot() -> u32 { return P.shape[1].x; }   // rows of an inverse's slot (and of a block)
fn blk() -> u32 { return P.shape[1].y; }    // the index of the block at k0 among the inverses
fn blocks() -> u32 { return P.shape[1].z; } // inverses per matrix
fn count() -> u32 { return P.st0[0].x; }    // matrices
fn flags() -> u32 { return P.st0[0].y; }
fn r0() -> u32 { return P.st0[0].z; }       // first row updated
fn nrows() -> u32 { return P.st0[0].w; }    // rows updated

// Element (i, p) of op(A) for the matrix at `ab` (order n).
fn op_a(ab: u32, n: u32, i: u32, p: u32) -> T {
    if (flags() & TRANS) != 0u {
        return a[ab + p * n + i];
    }
    return a[ab + i * n + p];
}

@compute @workgroup_size(WG)
fn trsm_step(
    @builtin(workgroup_id) wid: vec3<u32>,
    @builtin(num_workgroups) nwg: vec3<u32>,
    @builtin(local_invocation_index) lid: u32,
) {
    let bi = wid.z * nwg.y + wid.y;
    if bi >= count() {
        return;
    }
    let n = rows();
    let k = cols();
    let lo = k0();
    let hi = lo + wdt();
    let sl = slot();
    let bb = bi * n * k;
    let ab = bi * n * n;
    let back = (flags() & BACK) != 0u;
    let nblk = (wdt() + sl - 1u) / sl;
    for (var s = 0u; s < nblk; s++) {
        var j = s;
        if back {
            j = nblk - 1u - s;
        }
        let js = lo + j * sl;
        let jw = min(sl, hi - js);
        // The rows of the step solved before this block: before it forwards, after it
        // backwards.
        var p0 = lo;
        var p1 = js;
        if back {
            p0 = js + jw;
            p1 = hi;
        }
        for (var t = lid; t < jw * k; t += WG) {
            let i = t / k;
            let c = t % k;
            var v = b[bb + (js + i) * k + c];
            for (var p = p0; p < p1; p++) {
                v -= op_a(ab, n, js + i, p) * xs[(p - lo) * k + c];
            }
            ys[t] = v;
        }
        workgroupBarrier();
        let ib = (bi * blocks() + blk() + j) * sl * sl;
        for (var t = lid; t < jw * k; t += WG) {
            let i = t / k;
            let c = t % k;
            var v = T(0.0);
            for (var p = 0u; p < jw; p++) {
                v += inv[ib + i * sl + p] * ys[p * k + c];
            }
            xs[(js - lo + i) * k + c] = v;
            if wid.x == 0u {
                x[bb + (js + i) * k + c] = v;
            }
        }
        workgroupBarrier();
    }
    let t = wid.x * WG + lid;
    if t >= nrows() * k {
        return;
    }
    let r = r0() + t / k;
    let c = t % k;
    var acc = b[bb + r * k + c];
    for (var p = lo; p < hi; p++) {
        acc -= op_a(ab, n, r, p) * xs[(p - lo) * k + c];
    }
    b[bb + r * k + c] = acc;
}
