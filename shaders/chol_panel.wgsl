// Cholesky's panels in one dispatch (gpuarray::linalg's cholesky, src/linalg/chol_panel.rs):
// the step of the blocked right-looking Cholesky of src/linalg/blocked.rs that makes L21,
// and the factors of the diagonal blocks at the end. Matrices are the contiguous row-major
// stack of src/linalg/blocked.rs, matrix `bi` at `bi * rows * cols` (square: rows = cols).
//
// The default panel kernels are shaders/chol_tall.wgsl's; `chol_panel` and `chol_diags`
// are the measuring switch's GPUARRAY_CHOL_PANEL=0.
// `chol_panel`: for the diagonal block at (k0, k0) (64 x 64, rows below it), workgroup
// (x, matrix) makes rows [k0 + 64 + 64 x, + 64) of L21 = A21 L11^-T in place. Every
// workgroup of the step factors the same diagonal block A11 (its lower triangle, as the
// trailing updates so far left it) in registers and inverts its L11 there, then multiplies
// its 64 rows of A21 by L11^-T (held in workgroup memory): the factor and its inverse are
// computed once per workgroup rather than once per step (two dispatches and a product
// fewer a step), and no workgroup writes the diagonal block, which the others read.
// `chol_update4`: the step's trailing update A22 -= L21 L21^T (rows and columns [k0 + 64,
// n)) on and below the diagonal only, in place: workgroup (x, matrix) takes lower tile x
// of 64 x 64 (tile (ti, tj), tj <= ti, x = ti (ti + 1) / 2 + tj), each invocation 4
// adjacent rows and 4 adjacent columns of it (rows 4 ty.., columns 4 tx..) summed over
// L21's 64 columns in slices of KC read into workgroup memory, so that a step of the sum
// reads its 4 + 4 values as two vec4s (the slices stored transposed): 2 reads to 16 fused
// multiply-adds. It reads columns [k0, k0 + 64) and writes columns from k0 + 64: no
// workgroup writes what another reads. (Above the diagonal, A22 is left as it was:
// nothing reads it.) Paired steps (GPUARRAY_CHOL_PAIR, the host's `update`): L21 of depth
// 128 (columns [k0, k0 + 128), A22 from k0 + 128), or a thin update of A22's first tile
// column. A scalar form (4 x 4 values 16 apart, eight reads to 16
// multiply-adds) measured slower in f32 on the H200 and was removed.
// `chol_diags`: workgroup (x, matrix) factors diagonal block x (64 x 64, or what is left
// of the matrix) in place, after the last step: the same arithmetic on the same values as
// each step's, so the factor written is the one the step used. A diagonal that is not
// positive (or NaN: LAPACK's potrf's test) lowers the status word st[0] to the matrix's
// index (atomicMin); the computation goes on, giving NaN.
//
// Layout: 256 invocations as a 16 x 16 grid; invocation (tx, ty) = (lid % 16, lid / 16)
// holds rows ty + 16 ra and columns tx + 16 cb (ra, cb < 4) of the block, 16 values in a
// private array whose indices are constants once the loops marked `// unroll` are
// unrolled (src/kernel/unroll.rs). A block narrower than 64 (the last one) is padded with
// the identity. Factor (right-looking, as shaders/factor.wgsl's chol_diag: the column
// scaled by 1 / sqrt(d), the trailing block updated by the products of the scaled values)
// and inverse (row by row, as factor.wgsl's tri_inv: row q divided by the diagonal, then
// every row below takes its multiple of it) take one barrier a column each: the column
// (and the inverse's row) broadcast through workgroup memory, two sets used by alternate
// columns.
//
// Every index is in bounds by construction (the reads and writes of `out` are guarded by
// the matrix's rows and width; the workgroup arrays' indices are bounded by the 16 x 16
// grid): the host compiles the family without naga's checks (GPUARRAY_CHOL_CHECKED=1
// keeps them).
//
// Bindings as shaders/factor.wgsl's: 0 params; 1 `a`, a placeholder (never read); 2 `st`,
// the status word (i32); 4 `out`, the stack worked on in place.
//
// The host replaces the aliases per dtype and, for f64, the one-line functions div_ and
// sqrt_ by shared/f64_math's correctly rounded ones.

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

// The column being factored (and the inverse's column of L), two sets of NB.
var<workgroup> colv: array<T, 128>;
// The inverse's row, two sets of NB.
var<workgroup> rowv: array<T, 128>;
// L11's diagonal.
var<workgroup> sdiag: array<T, 64>;
// L11^-1, its lower triangle packed (row i at i (i + 1) / 2).
var<workgroup> xinv: array<T, 2080>;
// The update's slices of L21: KC columns of the tile's 64 rows and of its 64 columns' rows.
const KC: u32 = 16u;
const LDK: u32 = 17u;
// chol_update4's slices, transposed: column q of the slice at q * 17 (in vec4s; 16 + 1:
// two invocations of a subgroup at most on one bank as they store), rows 4 g .. 4 g + 3
// in vec4 g.
var<workgroup> ta4: array<vec4<T>, 272>;
var<workgroup> tb4: array<vec4<T>, 272>;

// The family's parameters, mirroring `FParams` in src/linalg/factor.rs.
fn rows() -> u32 { return P.shape[0].x; }   // rows of each matrix
fn cols() -> u32 { return P.shape[0].y; }   // columns of each matrix (its row stride)
fn k0() -> u32 { return P.shape[0].z; }     // chol_panel: the diagonal block's first row
fn count() -> u32 { return P.st0[0].x; }    // matrices in the stack

// Replaced for f64 (see the header).
fn div_(x: T, y: T) -> T { return x / y; }
fn sqrt_(x: T) -> T { return sqrt(x); }

@compute @workgroup_size(WG)
fn chol_panel(
    @builtin(workgroup_id) wid: vec3<u32>,
    @builtin(num_workgroups) nwg: vec3<u32>,
    @builtin(local_invocation_index) lid: u32,
) {
    body(wid, nwg, lid, false);
}

@compute @workgroup_size(WG)
fn chol_diags(
    @builtin(workgroup_id) wid: vec3<u32>,
    @builtin(num_workgroups) nwg: vec3<u32>,
    @builtin(local_invocation_index) lid: u32,
) {
    body(wid, nwg, lid, true);
}

// Either entry (`fin`: chol_diags).
fn body(wid: vec3<u32>, nwg: vec3<u32>, lid: u32, fin: bool) {
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
    let tx = lid % 16u;
    let ty = lid / 16u;
    // The block's lower triangle; the identity past its width; the strict upper triangle
    // is never read (its values after the updates are of no use).
    var v: array<T, 16>;
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
        }
    }
    for (var j = 0u; j < w; j++) {
        let p = (j & 1u) * NB;
        // unroll
        for (var cb = 0u; cb < 4u; cb++) {
            if tx + 16u * cb == j {
                // unroll
                for (var ra = 0u; ra < 4u; ra++) {
                    colv[p + ty + 16u * ra] = v[ra * 4u + cb];
                }
            }
        }
        workgroupBarrier();
        let d = colv[p + j];
        let s = sqrt_(d);
        let r = div_(T(1.0), s);
        if lid == 0u {
            sdiag[j] = s;
            if fin && !(d > T(0.0)) {
                atomicMin(&st[0], i32(bi));
            }
        }
        var li: array<T, 4>;
        var lc: array<T, 4>;
        // unroll
        for (var q = 0u; q < 4u; q++) {
            li[q] = colv[p + ty + 16u * q] * r;
            lc[q] = colv[p + tx + 16u * q] * r;
        }
        // unroll
        for (var ra = 0u; ra < 4u; ra++) {
            // unroll
            for (var cb = 0u; cb < 4u; cb++) {
                let i = ty + 16u * ra;
                let c = tx + 16u * cb;
                if c == j {
                    v[ra * 4u + cb] = select(li[ra], s, i == j);
                } else if c > j {
                    v[ra * 4u + cb] -= li[ra] * lc[cb];
                }
            }
        }
    }
    if fin {
        // unroll
        for (var ra = 0u; ra < 4u; ra++) {
            // unroll
            for (var cb = 0u; cb < 4u; cb++) {
                let i = ty + 16u * ra;
                let c = tx + 16u * cb;
                if i < w && c <= i {
                    out[base + i * n + c] = v[ra * 4u + cb];
                }
            }
        }
        return;
    }
    // L11^-1 (w = NB here): the identity, then row by row.
    workgroupBarrier();
    var x: array<T, 16>;
    // unroll
    for (var ra = 0u; ra < 4u; ra++) {
        // unroll
        for (var cb = 0u; cb < 4u; cb++) {
            x[ra * 4u + cb] = select(T(0.0), T(1.0), ty + 16u * ra == tx + 16u * cb);
        }
    }
    for (var q = 0u; q < w; q++) {
        let p = (q & 1u) * NB;
        let dq = sdiag[q];
        // unroll
        for (var ra = 0u; ra < 4u; ra++) {
            if ty + 16u * ra == q {
                // unroll
                for (var cb = 0u; cb < 4u; cb++) {
                    let y = div_(x[ra * 4u + cb], dq);
                    x[ra * 4u + cb] = y;
                    rowv[p + tx + 16u * cb] = y;
                }
            }
        }
        // unroll
        for (var cb = 0u; cb < 4u; cb++) {
            if tx + 16u * cb == q {
                // unroll
                for (var ra = 0u; ra < 4u; ra++) {
                    colv[p + ty + 16u * ra] = v[ra * 4u + cb];
                }
            }
        }
        workgroupBarrier();
        // unroll
        for (var ra = 0u; ra < 4u; ra++) {
            let i = ty + 16u * ra;
            if i > q {
                let lq = colv[p + i];
                // unroll
                for (var cb = 0u; cb < 4u; cb++) {
                    x[ra * 4u + cb] -= lq * rowv[p + tx + 16u * cb];
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
            if c <= i {
                xinv[i * (i + 1u) / 2u + c] = x[ra * 4u + cb];
            }
        }
    }
    workgroupBarrier();
    // This workgroup's rows of A21 times L11^-T: out[r][c] = sum_q A21[r][q] X[c][q],
    // q <= c.
    let r0 = kk + NB + wid.x * NB;
    let nr = min(NB, n - r0);
    var pk: array<u32, 4>;
    // unroll
    for (var cb = 0u; cb < 4u; cb++) {
        let c = tx + 16u * cb;
        pk[cb] = c * (c + 1u) / 2u;
    }
    var acc: array<T, 16>;
    for (var q = 0u; q < NB; q++) {
        var ar: array<T, 4>;
        // unroll
        for (var ra = 0u; ra < 4u; ra++) {
            let rr = ty + 16u * ra;
            ar[ra] = T(0.0);
            if rr < nr {
                ar[ra] = out[mb + (r0 + rr) * n + kk + q];
            }
        }
        var xb: array<T, 4>;
        // unroll
        for (var cb = 0u; cb < 4u; cb++) {
            xb[cb] = select(T(0.0), xinv[pk[cb] + q], q <= tx + 16u * cb);
        }
        // unroll
        for (var ra = 0u; ra < 4u; ra++) {
            // unroll
            for (var cb = 0u; cb < 4u; cb++) {
                acc[ra * 4u + cb] += ar[ra] * xb[cb];
            }
        }
    }
    // Every invocation's reads of the rows before any write (invocations of one row read
    // each other's columns).
    storageBarrier();
    // unroll
    for (var ra = 0u; ra < 4u; ra++) {
        let rr = ty + 16u * ra;
        if rr < nr {
            // unroll
            for (var cb = 0u; cb < 4u; cb++) {
                out[mb + (r0 + rr) * n + kk + tx + 16u * cb] = acc[ra * 4u + cb];
            }
        }
    }
}

// Tile (ti, tj), tj <= ti, of the lower triangle's tiles numbered row by row: ti from the
// square root of 8 x + 1, corrected for its rounding.
fn lower_tile(x: u32) -> vec2<u32> {
    var ti = u32((sqrt(8.0 * f32(x) + 1.0) - 1.0) * 0.5);
    if (ti + 1u) * (ti + 2u) / 2u <= x {
        ti += 1u;
    }
    if ti * (ti + 1u) / 2u > x {
        ti -= 1u;
    }
    return vec2<u32>(ti, x - ti * (ti + 1u) / 2u);
}

// Whether chol_update4 reads each slice during the previous one's multiply-adds; replaced
// by the host (src/linalg/chol_panel.rs, GPUARRAY_CHOL_PREFETCH).
fn pf_() -> bool { return true; }

// chol_update4's slice values from `at` (the slice's first column of the matrix's row 0):
// rows e.x + rr and e.y + rr (rr = t / KC, t = lid + 256 s) of column t % KC, 0 past row
// e.z.
fn slice(va: ptr<function, array<T, 4>>, vb: ptr<function, array<T, 4>>, lid: u32, at: u32, e: vec3<u32>) {
    // unroll
    for (var s = 0u; s < 4u; s++) {
        let t = lid + 256u * s;
        let rr = t / KC;
        let qq = t % KC;
        (*va)[s] = T(0.0);
        (*vb)[s] = T(0.0);
        if e.x + rr < e.z {
            (*va)[s] = out[at + (e.x + rr) * e.z + qq];
        }
        if e.y + rr < e.z {
            (*vb)[s] = out[at + (e.y + rr) * e.z + qq];
        }
    }
}

@compute @workgroup_size(WG)
fn chol_update4(
    @builtin(workgroup_id) wid: vec3<u32>,
    @builtin(num_workgroups) nwg: vec3<u32>,
    @builtin(local_invocation_index) lid: u32,
) {
    let bi = wid.z * nwg.y + wid.y;
    if bi >= count() {
        return;
    }
    let n = cols();
    let kk = k0();
    // L21's depth: its columns [k0, k0 + dep), A22 from row and column k0 + dep; a thin
    // update (flags 1) takes A22's first tile column only (see the host's `update`).
    let dep = P.shape[0].w;
    var tile = vec2<u32>(wid.x, 0u);
    if P.st0[0].y != 1u {
        tile = lower_tile(wid.x);
    }
    let ti = tile.x;
    let tj = tile.y;
    let ri = kk + dep + ti * NB;
    let rj = kk + dep + tj * NB;
    let mb = bi * rows() * n;
    let tx = lid % 16u;
    let ty = lid / 16u;
    var acc: array<vec4<T>, 4>;
    // The slice's values (rows rr = t / KC, column q0 + t % KC for t = lid + 256 s), read
    // from `out` one slice ahead where pf_() (GPUARRAY_CHOL_PREFETCH): the next slice's
    // loads in flight while this one's multiply-adds run.
    var va: array<T, 4>;
    var vb: array<T, 4>;
    for (var q0 = 0u; q0 < dep; q0 += KC) {
        if q0 == 0u || !pf_() {
            slice(&va, &vb, lid, mb + kk + q0, vec3<u32>(ri, rj, n));
        }
        // unroll
        for (var s = 0u; s < 4u; s++) {
            let t = lid + 256u * s;
            let rr = t / KC;
            let qq = t % KC;
            ta4[qq * LDK + rr / 4u][rr % 4u] = va[s];
            tb4[qq * LDK + rr / 4u][rr % 4u] = vb[s];
        }
        workgroupBarrier();
        if pf_() && q0 + KC < dep {
            slice(&va, &vb, lid, mb + kk + q0 + KC, vec3<u32>(ri, rj, n));
        }
        // unroll
        for (var q = 0u; q < 16u; q++) {
            let ar = ta4[q * LDK + ty];
            let bc = tb4[q * LDK + tx];
            // unroll
            for (var ra = 0u; ra < 4u; ra++) {
                acc[ra] += ar[ra] * bc;
            }
        }
        workgroupBarrier();
    }
    // unroll
    for (var ra = 0u; ra < 4u; ra++) {
        let i = ri + 4u * ty + ra;
        // unroll
        for (var cb = 0u; cb < 4u; cb++) {
            let c = rj + 4u * tx + cb;
            if i < n && c <= i {
                out[mb + i * n + c] -= acc[ra][cb];
            }
        }
    }
}

