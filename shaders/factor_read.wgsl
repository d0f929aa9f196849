// The factorization family's readers (gpuarray::linalg, src/linalg/factor_read.rs): the
// kernels that turn a finished factorization of src/linalg/blocked.rs into what the caller
// asked for (determinants, the permutation matrix P, the triangles L and U), on stacks of
// contiguous row-major matrices, matrix `bi` of a stack at `bi * rows * cols`. Split from
// shaders/factor.wgsl, whose parameter block and bindings these share (FParams in
// src/linalg/factor.rs).
//
// Bindings: 0 params; 1 `a`, a read-only matrix stack (an LU to read, a triangle's
// source); 2 `st`, pivots and status (i32: pivot rows, 0-based, `kmax` per matrix, then
// the status word); 4 `out`, the array written. Entries that do not use `a` or `st` are
// bound with a placeholder there. One invocation per element (matrix for `det`, row for
// `perm_matrix`) of a 1-D grid folded into 2-D.
//
// The host replaces the aliases per dtype and, for f64, the one-line functions log_ and
// neg_inf_ by shared/f64_math's.

#import params

alias T = f32;  // element type: f32 or f64
alias S = f32;  // scalar arguments (unused)
alias SC = f32;
alias TW = f32; // T for shared/f64_math (imported for f64 only)
alias TB = bool;
alias TF = f32; // f32 for shared/f64_math's sign-bit reads
alias M = u32;  // bits of TF
alias NI = i32; // exponents of ldexp

override WG: u32 = 256u;

const LOWER: u32 = 1u;    // extract: the lower triangle
const UNIT: u32 = 2u;     // extract: unit diagonal (not read)
const TRANS: u32 = 4u;    // extract: read the source transposed

@group(0) @binding(1) var<storage, read> a: array<T>;
@group(0) @binding(2) var<storage, read_write> st: array<atomic<i32>>;
@group(0) @binding(4) var<storage, read_write> out: array<T>;

// The parameters, mirroring `FParams` in src/linalg/factor.rs (as shaders/factor.wgsl).
fn rows() -> u32 { return P.shape[0].x; }   // rows of each matrix
fn cols() -> u32 { return P.shape[0].y; }   // columns of each matrix of `a` (extract)
fn ncols() -> u32 { return P.shape[1].y; }  // columns of extract's out
fn an() -> u32 { return P.shape[1].z; }     // rows and columns of det's LUs
fn kmax() -> u32 { return P.shape[1].w; }   // pivots per matrix
fn count() -> u32 { return P.st0[0].x; }    // matrices in the stack
fn flags() -> u32 { return P.st0[0].y; }    // LOWER | UNIT | TRANS
fn nrows() -> u32 { return P.st0[0].w; }    // rows of extract's out
fn has(f: u32) -> bool { return (flags() & f) != 0u; }

// Replaced for f64 (see the header).
fn log_(x: T) -> T { return log(x); }
fn neg_inf_() -> T { return bitcast<f32>(0xff800000u); }

// Sign, log of the magnitude and the determinant of each LU of `a` (an x an, pivots in st),
// to out[3 bi], out[3 bi + 1], out[3 bi + 2]. One invocation per matrix.
@compute @workgroup_size(WG)
fn det(
    @builtin(workgroup_id) wid: vec3<u32>,
    @builtin(num_workgroups) nwg: vec3<u32>,
    @builtin(local_invocation_index) lid: u32,
) {
    let bi = linear_id(wid, nwg, lid, WG);
    if bi >= count() {
        return;
    }
    let n = an();
    let base = bi * n * n;
    var sign = T(1.0);
    var logabs = T(0.0);
    var prod = T(1.0);
    var zero = false;
    for (var i = 0u; i < n; i++) {
        let d = a[base + i * n + i];
        if u32(atomicLoad(&st[bi * n + i])) != i {
            sign = -sign;
            prod = -prod;
        }
        prod *= d;
        if d < T(0.0) {
            sign = -sign;
        } else if d != d {
            sign = d;
        }
        if d == T(0.0) {
            zero = true;
        } else {
            logabs += log_(abs(d));
        }
    }
    if zero && sign == sign {
        sign = T(0.0);
        logabs = neg_inf_();
    }
    out[3u * bi] = sign;
    out[3u * bi + 1u] = logabs;
    out[3u * bi + 2u] = prod;
}

// The permutation matrix P of an LU (A = P L U) from its pivots: one invocation per row i
// of each rows x rows matrix of `out` (zeros before), writing its one 1.
@compute @workgroup_size(WG)
fn perm_matrix(
    @builtin(workgroup_id) wid: vec3<u32>,
    @builtin(num_workgroups) nwg: vec3<u32>,
    @builtin(local_invocation_index) lid: u32,
) {
    let t = linear_id(wid, nwg, lid, WG);
    let m = rows();
    if t >= m * count() {
        return;
    }
    let bi = t / m;
    let i = t % m;
    // Where row i of A went under the swaps.
    var p = i;
    for (var k = 0u; k < kmax(); k++) {
        let q = u32(atomicLoad(&st[bi * kmax() + k]));
        if p == k {
            p = q;
        } else if p == q {
            p = k;
        }
    }
    out[bi * m * m + i * m + p] = T(1.0);
}

// A triangle of `a` (matrices of rows x cols; read transposed where TRANS): the lower
// (LOWER; ones on the diagonal where UNIT) or the upper triangle of each nrows x ncols
// matrix of `out`, zeros elsewhere. One invocation per element of `out`.
@compute @workgroup_size(WG)
fn extract(
    @builtin(workgroup_id) wid: vec3<u32>,
    @builtin(num_workgroups) nwg: vec3<u32>,
    @builtin(local_invocation_index) lid: u32,
) {
    let t = linear_id(wid, nwg, lid, WG);
    let per = nrows() * ncols();
    if t >= per * count() {
        return;
    }
    let bi = t / per;
    let i = (t % per) / ncols();
    let j = t % ncols();
    var src = bi * rows() * cols() + i * cols() + j;
    if has(TRANS) {
        src = bi * rows() * cols() + j * cols() + i;
    }
    var v = T(0.0);
    if has(LOWER) {
        if j < i {
            v = a[src];
        } else if j == i {
            v = select(a[src], T(1.0), has(UNIT));
        }
    } else if j >= i {
        v = a[src];
    }
    out[t] = v;
}
