// Small-matrix solves (gpuarray::linalg's solve and inv for n up to 32), two kernels
// (src/linalg/factor_small.rs picks one; `GPUARRAY_SMALL_SOLVE` selects for measurements):
// LU with partial pivoting (LAPACK getrf's pivots: the first largest magnitude at or below
// the diagonal, NaN never winning) applied to the right-hand sides as it goes (the forward
// substitution folded into the elimination), then the back substitution with U.
//
// `small_solve` (the first kernel): one workgroup per matrix of a stack, the matrix and its
// right-hand sides in workgroup memory from the load to the store; the pivot searched by one
// invocation, four barriers a column.
//
// `small_solve_reg`: R invocations per matrix (R the order's class, 8, 16 or 32; MPW
// matrices a workgroup), invocation `r` holding row r of A (NA vec4s) and of B (KB vec4s)
// in private arrays, indexed only by constants once the host has unrolled the loops marked
// `// unroll` (src/kernel/unroll.rs): registers. Rows never move: each carries its position
// (the row it is after the swaps so far). Per column j: the candidates' magnitudes written
// to workgroup memory by position, a barrier, every invocation picking the pivot position
// q from them (the first largest in position order wins: LAPACK's idamax), the pivot row
// written to workgroup memory by its holder and the positions j and q exchanged, a
// barrier, the rows below updated in registers; two barriers a column (one where the
// pivot search is done by subgroup shuffles, `SG`: where a subgroup holds whole matrices,
// a butterfly of log2(R) shuffle pairs instead of the first barrier). The back
// substitution passes each solved row of X through workgroup memory (two buffers, one
// barrier a row). Columns left of the diagonal are not kept (the solve never reads L
// again): the pivot row is published and applied from the vec4 holding column j on.
//
// Bindings (both): 0 params; 1 `a`, the stack of n x n matrices (contiguous, row-major); 2
// `st`, the status word (st[0]: the first matrix with a zero pivot, i32::MAX for none;
// lowered with atomicMin); 4 `out`, the stack of n x k right-hand sides (contiguous),
// replaced by the solutions.
// Dispatch geometry: a 2-D grid of workgroups, group `wid.z * nwg.y + wid.y`; in
// `small_solve` it is matrix `group` (WG invocations share its elements), in
// `small_solve_reg` matrices `group * MPW + lid / R`.
//
// The host replaces the aliases per dtype (and `Tile`, the workgroup array, per size class;
// the constants R, NA, KB, MPW, LR and SG per class) and, for f64, the one-line function div_ by
// shared/f64_math's correctly rounded division (src/linalg/factor_small.rs).

#import params

alias T = f32;  // element type: f32 or f64
alias S = f32;  // scalar arguments (unused)
alias SC = f32;
alias TW = f32; // T for shared/f64_math (imported for f64 only)
alias TB = bool;
alias TF = f32;
alias M = u32;
alias NI = i32;
alias Tile = array<f32, 2048>; // n * (n + k) elements at most
alias V = vec4<f32>; // vec4<T>

override WG: u32 = 64u;

@group(0) @binding(1) var<storage, read> a: array<T>;
@group(0) @binding(2) var<storage, read_write> st: array<atomic<i32>>;
@group(0) @binding(4) var<storage, read_write> out: array<T>;

var<workgroup> tile: Tile;
var<workgroup> pivot: u32;

// The family's parameters, mirroring `SmallParams` in src/linalg/factor_small.rs.
fn order() -> u32 { return P.shape[0].x; }  // n
fn nrhs() -> u32 { return P.shape[0].y; }   // k
fn count() -> u32 { return P.shape[0].z; }  // matrices

// Replaced for f64.
fn div_(x: T, y: T) -> T { return x / y; }

@compute @workgroup_size(WG)
fn small_solve(
    @builtin(workgroup_id) wid: vec3<u32>,
    @builtin(num_workgroups) nwg: vec3<u32>,
    @builtin(local_invocation_index) lid: u32,
) {
    let bi = wid.z * nwg.y + wid.y;
    if bi >= count() {
        return;
    }
    let n = order();
    let k = nrhs();
    let nn = n * n;
    // A at tile[0, n * n) (row stride n), B at tile[n * n, n * (n + k)) (row stride k).
    for (var t = lid; t < nn; t += WG) {
        tile[t] = a[bi * nn + t];
    }
    for (var t = lid; t < n * k; t += WG) {
        tile[nn + t] = out[bi * n * k + t];
    }
    workgroupBarrier();
    for (var j = 0u; j < n; j++) {
        if lid == 0u {
            // The first largest magnitude at or below the diagonal; NaN never wins.
            var p = j;
            var best = abs(tile[j * n + j]);
            for (var i = j + 1u; i < n; i++) {
                let v = abs(tile[i * n + j]);
                if v > best || (!(best == best) && v == v) {
                    best = v;
                    p = i;
                }
            }
            pivot = p;
            if tile[p * n + j] == T(0.0) {
                atomicMin(&st[0], i32(bi));
            }
        }
        workgroupBarrier();
        let p = pivot;
        if p != j {
            // Rows j and p: columns j.. of A (L's part is not needed) and all of B.
            let wa = n - j;
            for (var t = lid; t < wa + k; t += WG) {
                var x = j * n + j + t;
                var y = p * n + j + t;
                if t >= wa {
                    x = nn + j * k + t - wa;
                    y = nn + p * k + t - wa;
                }
                let v = tile[x];
                tile[x] = tile[y];
                tile[y] = v;
            }
        }
        workgroupBarrier();
        let d = tile[j * n + j];
        if d != T(0.0) {
            let r = div_(T(1.0), d);
            for (var i = j + 1u + lid; i < n; i += WG) {
                tile[i * n + j] *= r;
            }
        }
        workgroupBarrier();
        // The trailing update of A and B by the multipliers.
        let wa = n - j - 1u;
        let wc = wa + k;
        for (var t = lid; t < wa * wc; t += WG) {
            let i = j + 1u + t / wc;
            let c = t % wc;
            let l = tile[i * n + j];
            if c < wa {
                tile[i * n + j + 1u + c] -= l * tile[j * n + j + 1u + c];
            } else {
                let q = c - wa;
                tile[nn + i * k + q] -= l * tile[nn + j * k + q];
            }
        }
        workgroupBarrier();
    }
    // Back substitution with U, all right-hand sides at once.
    for (var s = 0u; s < n; s++) {
        let i = n - 1u - s;
        let d = tile[i * n + i];
        for (var c = lid; c < k; c += WG) {
            tile[nn + i * k + c] = div_(tile[nn + i * k + c], d);
        }
        workgroupBarrier();
        for (var t = lid; t < i * k; t += WG) {
            let p = t / k;
            let c = t % k;
            tile[nn + p * k + c] -= tile[p * n + i] * tile[nn + i * k + c];
        }
        workgroupBarrier();
    }
    for (var t = lid; t < n * k; t += WG) {
        out[bi * n * k + t] = tile[nn + t];
    }
}

// small_solve_reg's shape: replaced per variant by the host.
const R: u32 = 32u;  // invocations (rows) a matrix: the order's class
const NA: u32 = 8u;  // R / 4: vec4s of a row of A
const KB: u32 = 8u;  // vec4s of a row of B (right-hand sides rounded up to fours)
const MPW: u32 = 1u; // matrices a workgroup
const LR: u32 = 5u;  // log2(R)
// 1u: the pivot search by subgroup shuffles, where the host has found that a subgroup holds
// whole matrices (R divides its smallest size): no barrier and no workgroup memory for it.
const SG: u32 = 0u;

// subgroupShuffleXor in the subgroup form (replaced by the host); never called elsewhere.
fn xor_t(x: T, h: u32) -> T { return x; }
fn xor_u(x: u32, h: u32) -> u32 { return x; }

// Pivot candidates by position (R a matrix), the pivot row (A's NA vec4s then B's KB) and
// the back substitution's solved rows (two buffers of KB).
var<workgroup> keys: array<V, MPW * NA>;
var<workgroup> prow: array<V, MPW * (NA + KB)>;
var<workgroup> xrow: array<V, MPW * 2u * KB>;

fn div4(x: V, d: T) -> V {
    return V(div_(x.x, d), div_(x.y, d), div_(x.z, d), div_(x.w, d));
}

@compute @workgroup_size(WG)
fn small_solve_reg(
    @builtin(workgroup_id) wid: vec3<u32>,
    @builtin(num_workgroups) nwg: vec3<u32>,
    @builtin(local_invocation_index) lid: u32,
) {
    let m = lid / R;
    let r = lid % R;
    let bi = (wid.z * nwg.y + wid.y) * MPW + m;
    let n = order();
    let k = nrhs();
    // Invocations past the stack's end or the matrix's order compute on zeros, are never
    // chosen as pivots and store nothing; they reach every barrier.
    let live = bi < count() && r < n;
    var ra: array<V, NA>;
    var rb: array<V, KB>;
    if live {
        let arow = bi * n * n + r * n;
        // unroll
        for (var c = 0u; c < R; c++) {
            if c < n {
                ra[c / 4u][c % 4u] = a[arow + c];
            }
        }
        let brow = bi * n * k + r * k;
        // unroll
        for (var c = 0u; c < 4u * KB; c++) {
            if c < k {
                rb[c / 4u][c % 4u] = out[brow + c];
            }
        }
    }
    var pos = r;
    let kb = m * NA;
    let pb = m * (NA + KB);
    // unroll
    for (var j = 0u; j < R; j++) {
        if j < n {
            // This row's candidate at its position: |x|, -1 for NaN (below every number),
            // -2 for rows above the diagonal and invocations holding no row. NaN is found
            // as !(x == x): naga emits ordered comparisons, so x != x is false for NaN (the
            // H200 run of 2026-11-29 caught it: the butterfly's invocations then disagreed
            // on the winner).
            let x = ra[j / 4u][j % 4u];
            var key = T(-2.0);
            if live && pos >= j {
                key = select(T(-1.0), abs(x), x == x);
            }
            var best = T(-3.0);
            var q = j;
            if SG == 1u {
                // A butterfly over the matrix's R invocations (an aligned block of one
                // subgroup): larger key, then lower position; every invocation ends with
                // the winner.
                best = key;
                q = pos;
                // unroll
                for (var l = 0u; l < LR; l++) {
                    let ov = xor_t(best, 1u << l);
                    let op = xor_u(q, 1u << l);
                    if ov > best || (ov == best && op < q) {
                        best = ov;
                        q = op;
                    }
                }
            } else {
                keys[kb + pos / 4u][pos % 4u] = key;
                workgroupBarrier();
                // The first largest in each vec4 of positions (independent chains of
                // four), then the first largest of those in order: a chain of NA + 4. Not
                // unrolled (no private array here): the unrolled text took the H200's
                // compiler seconds a variant.
                for (var s = 0u; s < NA; s++) {
                    if 4u * s + 3u >= j {
                        let v = keys[kb + s];
                        var gb = T(-3.0);
                        var gq = 0u;
                        for (var e = 0u; e < 4u; e++) {
                            if 4u * s + e >= j && v[e] > gb {
                                gb = v[e];
                                gq = 4u * s + e;
                            }
                        }
                        if gb > best {
                            best = gb;
                            q = gq;
                        }
                    }
                }
            }
            let win = pos == q;
            if win {
                if live && best == T(0.0) {
                    atomicMin(&st[0], i32(bi));
                }
                // unroll
                for (var c = 0u; c < NA; c++) {
                    if 4u * c + 3u >= j {
                        prow[pb + c] = ra[c];
                    }
                }
                // unroll
                for (var c = 0u; c < KB; c++) {
                    prow[pb + NA + c] = rb[c];
                }
            }
            if pos == j {
                pos = q;
            } else if win {
                pos = j;
            }
            workgroupBarrier();
            if pos > j {
                let d = prow[pb + j / 4u][j % 4u];
                var l = ra[j / 4u][j % 4u];
                if d != T(0.0) {
                    l *= div_(T(1.0), d);
                }
                // unroll
                for (var c = 0u; c < NA; c++) {
                    if 4u * c + 3u >= j {
                        ra[c] -= l * prow[pb + c];
                    }
                }
                // unroll
                for (var c = 0u; c < KB; c++) {
                    rb[c] -= l * prow[pb + NA + c];
                }
            }
        }
    }
    // Back substitution with U: the row at position i solved by its holder, then removed
    // from the rows above.
    let xb = m * 2u * KB;
    // unroll
    for (var s = 0u; s < R; s++) {
        let i = R - 1u - s;
        if i < n {
            let buf = xb + (s % 2u) * KB;
            if pos == i {
                let d = ra[i / 4u][i % 4u];
                // unroll
                for (var c = 0u; c < KB; c++) {
                    rb[c] = div4(rb[c], d);
                    xrow[buf + c] = rb[c];
                }
            }
            workgroupBarrier();
            if pos < i {
                let u = ra[i / 4u][i % 4u];
                // unroll
                for (var c = 0u; c < KB; c++) {
                    rb[c] -= u * xrow[buf + c];
                }
            }
        }
    }
    if live {
        let xrow_at = bi * n * k + pos * k;
        // unroll
        for (var c = 0u; c < 4u * KB; c++) {
            if c < k {
                out[xrow_at + c] = rb[c / 4u][c % 4u];
            }
        }
    }
}
