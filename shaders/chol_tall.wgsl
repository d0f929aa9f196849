// Cholesky's panels as tall factorizations (gpuarray::linalg's cholesky,
// src/linalg/chol_panel/chol_tall.rs): the default kernels of the steps of
// shaders/chol_panel.wgsl's header (GPUARRAY_CHOL_PANEL=0 takes that file's chol_panel and
// chol_diags instead), on the same stack, parameters and bindings; its chol_update4 makes
// the trailing updates either way.
//
// `chol_tall`: workgroup (x, matrix) factors the tall panel made of the diagonal block A11
// (rows and columns [k0, k0 + 64)) and its own R rows of A21 (rows k0 + 64 + R x ..; R =
// 16 ru_(), 32 by default) as one unblocked right-looking Cholesky of a (64 + R) x 64 panel: the A21 rows come out as L21
// = A21 L11^-T with no inverse of L11 and no product after (the chain is 64 columns, not
// chol_panel's 64 of the factor and 64 of the inverse). Only its A21 rows are written.
// `chol_tall_diags`: the same function on A11 alone (no A21 rows), every diagonal block
// after the last step, writing L11 and the status word: the arithmetic of every A11 value
// is the step's, so the factor written is the one the step used.
// The columns go four at a time (16 steps a block, not 64): the owners of the four
// columns store them (all rows) in `cv`; after a barrier every invocation factors the
// 4 x 4 diagonal block itself (left-looking, four square roots in a chain); each row of
// the four columns is solved against it (by default once, by one invocation, into `ys`,
// read after a second barrier; else by every invocation that needs it: its 4 rows of
// A11, up to 4 of A21 and its columns' 4 rows of A11), and each invocation takes the
// rank-4 update of its values to the right of the four columns. Blocks of 16 columns
// already done are skipped (the test is uniform), and A11's blocks above the diagonal
// (ra < cb) are never computed.
// Every index is in bounds by construction (`out` read and written within the rows and
// the block's width; `cv` at most 512 + 3 x 128 + 127): the host compiles the family
// without naga's checks (GPUARRAY_CHOL_CHECKED=1 keeps them).
//
// Bindings as shaders/factor.wgsl's: 0 params; 1 `a`, a placeholder (never read); 2 `st`,
// the status word (i32); 4 `out`, the stack worked on in place. The host replaces the
// aliases per dtype and, for f64, the one-line functions div_, sqrt_ and sr_.

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

// The block's width (the host's NB).
const NB: u32 = 64u;

@group(0) @binding(1) var<storage, read> a: array<T>;
@group(0) @binding(2) var<storage, read_write> st: array<atomic<i32>>;
@group(0) @binding(4) var<storage, read_write> out: array<T>;

// The family's parameters, mirroring `FParams` in src/linalg/factor.rs.
fn rows() -> u32 { return P.shape[0].x; }   // rows of each matrix
fn cols() -> u32 { return P.shape[0].y; }   // columns of each matrix (its row stride)
fn k0() -> u32 { return P.shape[0].z; }     // chol_tall: the diagonal block's first row
fn count() -> u32 { return P.st0[0].x; }    // matrices in the stack

// The workgroup's A21 rows over 16 (1, 2 or 4: its rows are ty + 16 ra, ra < ru_()), replaced
// by the host (src/linalg/chol_panel/chol_tall.rs, GPUARRAY_CHOL_TALL_ROWS).
fn ru_() -> u32 { return 4u; }

// Replaced for f64 (see above).
fn div_(x: T, y: T) -> T { return x / y; }
fn sqrt_(x: T) -> T { return sqrt(x); }

// The step's four columns, two sets (alternate steps): column m of set p at p + 128 m,
// A11's rows first, then the A21 rows.
var<workgroup> cv: array<T, 1024>;

// (sqrt(d), 1 / sqrt(d)); replaced for f64 (src/linalg/chol_panel.rs: an f32 seed and two
// Newton steps where d is in f32's range, else sqrt_ and div_).
fn sr_(d: T) -> vec2<T> { let s = sqrt_(d); return vec2<T>(s, div_(T(1.0), s)); }

// Row x (its values in the step's four columns) solved against the step's 4 x 4 factor:
// y_b = (x_b - sum_{c<b} y_c L[b][c]) / L[b][b], with lo = L[1][0], L[2][0], L[2][1],
// L[3][0], L[3][1], L[3][2] and r the reciprocals of L's diagonal.
fn solve4(x: vec4<T>, lo: array<T, 6>, r: vec4<T>) -> vec4<T> {
    let y0 = x.x * r.x;
    let y1 = fma(-y0, lo[0], x.y) * r.y;
    let y2 = fma(-y1, lo[2], fma(-y0, lo[1], x.z)) * r.z;
    let y3 = fma(-y2, lo[5], fma(-y1, lo[4], fma(-y0, lo[3], x.w))) * r.w;
    return vec4<T>(y0, y1, y2, y3);
}

// v - y . z, in the order of every update.
fn upd4(v: T, y: vec4<T>, z: vec4<T>) -> T {
    return fma(-y.w, z.w, fma(-y.z, z.z, fma(-y.y, z.y, fma(-y.x, z.x, v))));
}

// Row `i` (0..128) of the step's four columns in set `p`.
fn cvrow(p: u32, i: u32) -> vec4<T> {
    return vec4<T>(cv[p + i], cv[p + 128u + i], cv[p + 256u + i], cv[p + 384u + i]);
}

// The step's rows of L in its four columns, solved once each (sh_()); one vector a row.
var<workgroup> ys: array<vec4<T>, 128>;

// Whether the step's rows are solved once and shared (GPUARRAY_CHOL_TALL_SHARE; replaced by
// the host where it is 0).
fn sh_() -> bool { return true; }

// Row i of L in the step's four columns (set p of cv; lo, r the step's factor).
fn lrow(p: u32, i: u32, lo: array<T, 6>, r: vec4<T>) -> vec4<T> {
    if sh_() {
        return ys[i];
    }
    return solve4(cvrow(p, i), lo, r);
}

@compute @workgroup_size(WG)
fn chol_tall(
    @builtin(workgroup_id) wid: vec3<u32>,
    @builtin(num_workgroups) nwg: vec3<u32>,
    @builtin(local_invocation_index) lid: u32,
) {
    tall(wid, nwg, lid, false);
}

@compute @workgroup_size(WG)
fn chol_tall_diags(
    @builtin(workgroup_id) wid: vec3<u32>,
    @builtin(num_workgroups) nwg: vec3<u32>,
    @builtin(local_invocation_index) lid: u32,
) {
    tall(wid, nwg, lid, true);
}

// Either entry (`fin`: chol_tall_diags).
fn tall(wid: vec3<u32>, nwg: vec3<u32>, lid: u32, fin: bool) {
    let bi = wid.z * nwg.y + wid.y;
    if bi >= count() {
        return;
    }
    let n = cols();
    var kk = k0();
    if fin {
        kk = wid.x * NB;
    }
    let w = min(NB, n - kk);
    let mb = bi * rows() * n;
    let base = mb + kk * n + kk;
    // The workgroup's A21 rows (none for chol_tall_diags).
    let r0 = kk + NB + wid.x * 16u * ru_();
    var nr = 0u;
    if !fin {
        nr = min(16u * ru_(), n - r0);
    }
    let tx = lid % 16u;
    let ty = lid / 16u;
    // A11 as chol_panel's `v` (the identity past its width; above the diagonal 0), the
    // A21 rows in `u` (rows ty + 16 ra, columns tx + 16 cb; 0 past the matrix).
    var v: array<T, 16>;
    var u: array<T, 16>;
    // unroll
    for (var ra = 0u; ra < 4u; ra++) {
        // unroll
        for (var cb = 0u; cb < 4u; cb++) {
            let i = ty + 16u * ra;
            let c = tx + 16u * cb;
            var x = T(0.0);
            if i < w && c <= i {
                x = out[base + i * n + c];
            } else if i == c {
                x = T(1.0);
            }
            v[ra * 4u + cb] = x;
            var y = T(0.0);
            if ra < ru_() && i < nr {
                y = out[mb + (r0 + i) * n + kk + c];
            }
            u[ra * 4u + cb] = y;
        }
    }
    for (var t = 0u; t < NB / 4u; t++) {
        let j0 = 4u * t;
        let p = (t & 1u) * 512u;
        // unroll
        for (var cb = 0u; cb < 4u; cb++) {
            let m = tx + 16u * cb - j0;
            if m < 4u {
                // unroll
                for (var ra = 0u; ra < 4u; ra++) {
                    cv[p + 128u * m + ty + 16u * ra] = v[ra * 4u + cb];
                    if ra < ru_() {
                        cv[p + 128u * m + 64u + ty + 16u * ra] = u[ra * 4u + cb];
                    }
                }
            }
        }
        workgroupBarrier();
        // The 4 x 4 diagonal block's factor, by every invocation.
        let x0 = cvrow(p, j0);
        let x1 = cvrow(p, j0 + 1u);
        let x2 = cvrow(p, j0 + 2u);
        let x3 = cvrow(p, j0 + 3u);
        var lo: array<T, 6>;
        let e0 = sr_(x0.x);
        lo[0] = x1.x * e0.y;
        let d1 = fma(-lo[0], lo[0], x1.y);
        let e1 = sr_(d1);
        lo[1] = x2.x * e0.y;
        lo[2] = fma(-lo[1], lo[0], x2.y) * e1.y;
        let d2 = fma(-lo[2], lo[2], fma(-lo[1], lo[1], x2.z));
        let e2 = sr_(d2);
        lo[3] = x3.x * e0.y;
        lo[4] = fma(-lo[3], lo[0], x3.y) * e1.y;
        lo[5] = fma(-lo[4], lo[2], fma(-lo[3], lo[1], x3.z)) * e2.y;
        let d3 = fma(-lo[5], lo[5], fma(-lo[4], lo[4], fma(-lo[3], lo[3], x3.w)));
        let e3 = sr_(d3);
        let s = vec4<T>(e0.x, e1.x, e2.x, e3.x);
        let r = vec4<T>(e0.y, e1.y, e2.y, e3.y);
        if fin && lid == 0u && !(x0.x > T(0.0) && d1 > T(0.0) && d2 > T(0.0) && d3 > T(0.0)) {
            atomicMin(&st[0], i32(bi));
        }
        // Shared solves (sh_()): row lid of the step's four columns solved once, by one
        // invocation, for all to read after a second barrier (rows past the workgroup's
        // A21 rows are never read). Else every invocation solves the rows it needs.
        if sh_() {
            if lid < 64u + 16u * ru_() {
                ys[lid] = solve4(cvrow(p, lid), lo, r);
            }
            workgroupBarrier();
        }
        // This invocation's columns' rows of L in the four columns (those right of them).
        var yc: array<vec4<T>, 4>;
        // unroll
        for (var cb = 0u; cb < 4u; cb++) {
            if 16u * cb + 16u > j0 {
                yc[cb] = lrow(p, tx + 16u * cb, lo, r);
            }
        }
        // unroll
        for (var ra = 0u; ra < 4u; ra++) {
            let i = ty + 16u * ra;
            if 16u * ra + 16u > j0 {
                let yr = lrow(p, i, lo, r);
                // unroll
                for (var cb = 0u; cb < 4u; cb++) {
                    if cb <= ra && 16u * cb + 16u > j0 {
                        let c = tx + 16u * cb;
                        let m = c - j0;
                        let e = ra * 4u + cb;
                        if m < 4u {
                            v[e] = select(yr[m], s[m], i == c);
                        } else if c > j0 {
                            v[e] = upd4(v[e], yr, yc[cb]);
                        }
                    }
                }
            }
            if ra < ru_() && nr > 0u {
                let yu = lrow(p, 64u + i, lo, r);
                // unroll
                for (var cb = 0u; cb < 4u; cb++) {
                    if 16u * cb + 16u > j0 {
                        let c = tx + 16u * cb;
                        let m = c - j0;
                        let e = ra * 4u + cb;
                        if m < 4u {
                            u[e] = yu[m];
                        } else if c > j0 {
                            u[e] = upd4(u[e], yu, yc[cb]);
                        }
                    }
                }
            }
        }
    }
    // unroll
    for (var ra = 0u; ra < 4u; ra++) {
        // unroll
        for (var cb = 0u; cb < 4u; cb++) {
            let i = ty + 16u * ra;
            let c = tx + 16u * cb;
            if fin && i < w && c <= i {
                out[base + i * n + c] = v[ra * 4u + cb];
            }
            if ra < ru_() && i < nr {
                out[mb + (r0 + i) * n + kk + c] = u[ra * 4u + cb];
            }
        }
    }
}
