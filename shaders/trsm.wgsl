// One step of a blocked triangular solve with few right-hand sides (gpuarray::linalg's
// solves, src/linalg/trsm.rs): for the diagonal block [k0, k0 + wdt) of op(A),
//   x[k0 + i, c] = sum_p inv[i, p] b[k0 + p, c]          (the block's solution)
//   b[r, c]     -= sum_p op(A)[r, k0 + p] x[k0 + p, c]    for rows [r0, r0 + nrows)
// in one dispatch where the blocked solve took four (a product and a copy each). Every
// workgroup computes the block's solution into workgroup memory from `b`, which the
// dispatch writes only outside the block; workgroup 0 also writes it to `x`.
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
// Most elements of a block's solution: 64 rows of 8 right-hand sides.
const XMAX: u32 = 512u;

@group(0) @binding(1) var<storage, read> a: array<T>;
@group(0) @binding(2) var<storage, read> inv: array<T>;
@group(0) @binding(3) var<storage, read_write> x: array<T>;
@group(0) @binding(4) var<storage, read_write> b: array<T>;

var<workgroup> xs: array<T, XMAX>;

fn rows() -> u32 { return P.shape[0].x; }   // rows of each matrix of b (the order)
fn cols() -> u32 { return P.shape[0].y; }   // right-hand sides
fn k0() -> u32 { return P.shape[0].z; }     // the diagonal block's first row
fn wdt() -> u32 { return P.shape[0].w; }    // its rows
fn slot() -> u32 { return P.shape[1].x; }   // rows of an inverse's slot
fn blk() -> u32 { return P.shape[1].y; }    // the block's index among the inverses
fn blocks() -> u32 { return P.shape[1].z; } // inverses per matrix
fn count() -> u32 { return P.st0[0].x; }    // matrices
fn flags() -> u32 { return P.st0[0].y; }
fn r0() -> u32 { return P.st0[0].z; }       // first row updated
fn nrows() -> u32 { return P.st0[0].w; }    // rows updated

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
    let w = wdt();
    let kk = k0();
    let bb = bi * n * k;
    let ib = (bi * blocks() + blk()) * slot() * slot();
    for (var t = lid; t < w * k; t += WG) {
        let i = t / k;
        let c = t % k;
        var s = T(0.0);
        for (var p = 0u; p < w; p++) {
            s += inv[ib + i * slot() + p] * b[bb + (kk + p) * k + c];
        }
        xs[t] = s;
        if wid.x == 0u {
            x[bb + (kk + i) * k + c] = s;
        }
    }
    workgroupBarrier();
    let t = wid.x * WG + lid;
    if t >= nrows() * k {
        return;
    }
    let r = r0() + t / k;
    let c = t % k;
    let ab = bi * n * n;
    var acc = b[bb + r * k + c];
    for (var p = 0u; p < w; p++) {
        var e: T;
        if (flags() & TRANS) != 0u {
            e = a[ab + (kk + p) * n + r];
        } else {
            e = a[ab + r * n + kk + p];
        }
        acc -= e * xs[p * k + c];
    }
    b[bb + r * k + c] = acc;
}
