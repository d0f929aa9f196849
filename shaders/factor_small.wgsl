// Small-matrix solves (gpuarray::linalg's solve and inv for n up to 32): one workgroup per
// matrix of a stack, the matrix and its right-hand sides in workgroup memory from the load
// to the store: LU with partial pivoting applied to the right-hand sides as it goes (the
// forward substitution folded into the elimination), then the back substitution.
//
// Bindings: 0 params; 1 `a`, the stack of n x n matrices (contiguous, row-major); 2 `st`,
// the status word (st[0]: the first matrix with a zero pivot, i32::MAX for none; lowered
// with atomicMin); 4 `out`, the stack of n x k right-hand sides (contiguous), replaced by
// the solutions.
// Dispatch geometry: a 2-D grid of workgroups, matrix `wid.z * nwg.y + wid.y` each; WG
// invocations share its elements.
//
// The host replaces the aliases per dtype (and `Tile`, the workgroup array, per size class)
// and, for f64, the one-line function div_ by shared/f64_math's correctly rounded division
// (src/linalg/factor_small.rs).

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
                if v > best || (best != best && v == v) {
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
