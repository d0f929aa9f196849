//! The blocked algorithms on contiguous stacks `[count, rows, cols]` worked on in place:
//! right-looking LU with partial pivoting, right-looking Cholesky and triangular solves,
//! each a loop over blocks of [`NB`] columns whose large work (the trailing update) is the
//! library's matmul, the rest the kernels of [`super::factor`] (and the LU's panels those
//! of [`super::factor_reg`], in registers, where they fit). Nothing here waits for the
//! GPU: every step is recorded and runs in order.

use super::chol_panel::Steps;
use super::factor::{status_array, FParams, Launcher, ASSIGN, LOWER, REVERSE, SELF, TRANS, UNIT};
use super::factor_prof as prof;
use crate::array::Array;
use crate::dtype::Float;
use crate::error::Result;

/// Columns of a panel (and rows of a diagonal block of a solve).
pub(crate) const NB: usize = 64;
// lu_panel holds a sub-panel's U12 block, 16 x (NB - 16), in 768 elements of workgroup
// memory.
const _: () = assert!(NB <= 64);

/// Right-hand sides (columns) from which a blocked solve multiplies by the inverses of the
/// diagonal blocks (one product each) rather than substituting (one invocation per column,
/// each [`NB`] dependent steps).
const INV_FROM: usize = 64;

/// The inverse of diagonal block `blk` of `count` stacks of `blocks` `NB x NB` inverses
/// (`tri_inv`'s output), as a `[count, w, w]` view.
fn inverse_view<T: Float>(
    inv: &Array<T>,
    blocks: usize,
    slot: usize,
    blk: usize,
    w: usize,
) -> Array<T> {
    let count = inv.len() / (blocks * slot * slot);
    inv.view(
        vec![count, w, w],
        vec![(blocks * slot * slot) as isize, slot as isize, 1],
        inv.offset + blk * slot * slot,
    )
}

/// Rows [k, k + w) and columns [c0, c0 + nc) of the stack `b` ([count, rows, cols])
/// become `inv` ([count, w, w]) times themselves.
fn apply_inverse<T: Float>(
    l: &Launcher<T>,
    inv: &Array<T>,
    b: &Array<T>,
    (count, rows, cols): (usize, usize, usize),
    (k, w): (usize, usize),
    (c0, nc): (usize, usize),
) -> Result<()> {
    let xb = block(b, count, (rows, cols), (k, c0), (w, nc), false);
    let t = inv.matmul(&xb)?;
    prof::mark(&inv.dev, "matmul")?;
    let s = FParams {
        rows,
        cols,
        r0: k,
        nrows: w,
        c0,
        ncols: nc,
        count,
        flags: ASSIGN,
        ..FParams::default()
    };
    l.sub_block(&s, &t, b)
}

/// The view of rows [r0, r0 + r) and columns [c0, c0 + c) of every matrix of the
/// contiguous stack `w` ([count, m, n]), as a `[count, r, c]` array; transposed (`[count, c,
/// r]`, the block's transpose) where `t`.
#[allow(clippy::too_many_arguments)] // a block's coordinates, named
fn block<T: Float>(
    w: &Array<T>,
    count: usize,
    (m, n): (usize, usize),
    (r0, c0): (usize, usize),
    (r, c): (usize, usize),
    t: bool,
) -> Array<T> {
    let off = w.offset + r0 * n + c0;
    let ms = (m * n) as isize;
    if t {
        w.view(vec![count, c, r], vec![ms, 1, n as isize], off)
    } else {
        w.view(vec![count, r, c], vec![ms, n as isize, 1], off)
    }
}

/// The LU with partial pivoting of every matrix of `w` ([count, m, n]), in place (L below
/// the diagonal, unit diagonal not stored; U on and above): the pivots and status word
/// ([`status_array`]: `min(m, n)` pivot rows per matrix, then the first matrix with a zero
/// pivot, i32::MAX for none).
fn lu_in_place_body<T: Float>(
    l: &Launcher<T>,
    w: &Array<T>,
    count: usize,
    m: usize,
    n: usize,
) -> Result<Array<i32>> {
    let kmax = m.min(n);
    let st = status_array(&w.dev, count * kmax)?;
    prof::mark(&w.dev, "fill")?;
    let mut k = 0;
    while k < kmax {
        let wdt = NB.min(kmax - k);
        let p = FParams {
            rows: m,
            cols: n,
            k0: k,
            wdt,
            kmax,
            count,
            ..FParams::default()
        };
        // The panel in registers where it fits (its swaps of the other columns included),
        // else by shaders/factor.wgsl's lu_panel and its swaps in the columns left and
        // right of it.
        let in_registers = super::factor_reg::lu_panel(l, &p, &st, w)?;
        if !in_registers {
            l.lu_panel(&p, &st, w)?;
        }
        if n > wdt && !in_registers {
            let q = FParams {
                c0: k,
                ncols: wdt,
                ..p
            };
            l.permute(&q, &st, w)?;
        }
        let right = n - k - wdt;
        if right > 0 {
            // U12 = L11^-1 A12 (the rows are already swapped): by L11's inverse where
            // A12 is wide, else by substitution.
            if right >= INV_FROM {
                let inv = Array::<T>::alloc(&w.dev, "linalg", vec![count * wdt * wdt])?;
                let q = FParams {
                    nrows: wdt,
                    flags: LOWER | UNIT,
                    ..p
                };
                l.tri_inv(&q, w, &inv)?;
                let iv = inverse_view(&inv, 1, wdt, 0, wdt);
                apply_inverse(l, &iv, w, (count, m, n), (k, wdt), (k + wdt, right))?;
            } else {
                let q = FParams {
                    c0: k + wdt,
                    ncols: right,
                    flags: LOWER | UNIT | SELF,
                    ..p
                };
                l.trsm_block(&q, None, w)?;
            }
            let below = m - k - wdt;
            if below > 0 {
                let l21 = block(w, count, (m, n), (k + wdt, k), (below, wdt), false);
                let u12 = block(w, count, (m, n), (k, k + wdt), (wdt, right), false);
                let t = l21.matmul(&u12)?;
                prof::mark(&l21.dev, "matmul")?;
                let s = FParams {
                    r0: k + wdt,
                    nrows: below,
                    c0: k + wdt,
                    ncols: right,
                    ..p
                };
                l.sub_block(&s, &t, w)?;
            }
        }
        k += wdt;
    }
    Ok(st)
}

/// The lower Cholesky factor of every matrix of `w` ([count, n, n]) in its lower triangle,
/// in place (the strict upper triangle holds no use: old values, or partial updates):
/// the status word (one i32: the first matrix found not positive definite, i32::MAX for
/// none). The steps as [`super::chol_panel::steps`] selects: by default L21 and the
/// trailing update by shaders/chol_panel.wgsl (two dispatches a step, the diagonal
/// blocks' factors in one at the end), else by shaders/factor.wgsl's kernels and
/// products.
fn cholesky_in_place_body<T: Float>(
    l: &Launcher<T>,
    w: &Array<T>,
    count: usize,
    n: usize,
) -> Result<Array<i32>> {
    let st = status_array(&w.dev, 0)?;
    prof::mark(&w.dev, "fill")?;
    let steps = super::chol_panel::steps();
    if steps != Steps::Separate {
        // A step: L21 by shaders/chol_panel.wgsl (the diagonal block factored and
        // inverted by each of its workgroups), the trailing update; the diagonal blocks'
        // factors and the status at the end.
        let mut k = 0;
        while k + NB < n {
            super::chol_panel::panel(l, (count, n), k, w, &st)?;
            if steps == Steps::Panel || !super::chol_panel::update(l, (count, n), k, w)? {
                trailing_update(l, w, (count, n), k, NB)?;
            }
            k += NB;
        }
        super::chol_panel::diagonals(l, (count, n), w, &st)?;
        return Ok(st);
    }
    for k in (0..n).step_by(NB) {
        let wdt = NB.min(n - k);
        let p = FParams {
            rows: n,
            cols: n,
            k0: k,
            wdt,
            count,
            ..FParams::default()
        };
        l.chol_diag(&p, &st, w)?;
        let below = n - k - wdt;
        if below > 0 {
            // L21 = A21 L11^-T, by L11's inverse and a product.
            let inv = Array::<T>::alloc(&w.dev, "linalg", vec![count * wdt * wdt])?;
            let q = FParams {
                nrows: wdt,
                flags: LOWER,
                ..p
            };
            l.tri_inv(&q, w, &inv)?;
            let ivt = inverse_view(&inv, 1, wdt, 0, wdt).transpose(&[0, 2, 1])?;
            let a21 = block(w, count, (n, n), (k + wdt, k), (below, wdt), false);
            let t = a21.matmul(&ivt)?;
            prof::mark(&a21.dev, "matmul")?;
            let s = FParams {
                r0: k + wdt,
                nrows: below,
                c0: k,
                ncols: wdt,
                flags: ASSIGN,
                ..p
            };
            l.sub_block(&s, &t, w)?;
            trailing_update(l, w, (count, n), k, wdt)?;
        }
    }
    Ok(st)
}

/// A22 -= L21 L21^T for the Cholesky step at block `k` of width `wdt` (L21: rows
/// [k + wdt, n) of columns [k, k + wdt) of every matrix of `w`, [count, n, n]): the
/// product, then its subtraction in place.
fn trailing_update<T: Float>(
    l: &Launcher<T>,
    w: &Array<T>,
    (count, n): (usize, usize),
    k: usize,
    wdt: usize,
) -> Result<()> {
    let below = n - k - wdt;
    let l21 = block(w, count, (n, n), (k + wdt, k), (below, wdt), false);
    let l21t = block(w, count, (n, n), (k + wdt, k), (below, wdt), true);
    let t = l21.matmul(&l21t)?;
    prof::mark(&l21.dev, "matmul")?;
    let s = FParams {
        rows: n,
        cols: n,
        r0: k + wdt,
        nrows: below,
        c0: k + wdt,
        ncols: below,
        count,
        ..FParams::default()
    };
    l.sub_block(&s, &t, w)
}

/// How a triangular solve reads its matrix.
#[derive(Debug, Clone, Copy)]
pub(crate) struct Tri {
    /// The triangle holding the matrix (of the stored matrix, before `trans`).
    pub lower: bool,
    /// Solve with the transpose.
    pub trans: bool,
    /// Unit diagonal (not read).
    pub unit: bool,
}

/// `b` ([count, n, nrhs], contiguous) becomes op(A)^-1 b, for the triangular matrices of
/// `a` ([count, n, n], contiguous; only the triangle `tri.lower` names is read).
fn trsm_body<T: Float>(
    l: &Launcher<T>,
    a: &Array<T>,
    b: &Array<T>,
    (count, n, nrhs): (usize, usize, usize),
    tri: Tri,
) -> Result<()> {
    // The triangle of op(A): forward substitution for a lower one, backward for an upper.
    let forward = tri.lower != tri.trans;
    let mut flags = 0;
    if forward {
        flags |= LOWER;
    }
    if tri.unit {
        flags |= UNIT;
    }
    if tri.trans {
        flags |= TRANS;
    }
    let starts: Vec<usize> = (0..n).step_by(NB).collect();
    let order: Box<dyn Iterator<Item = &usize>> = if forward {
        Box::new(starts.iter())
    } else {
        Box::new(starts.iter().rev())
    };
    // The diagonal blocks' inverses, all in one dispatch first, for every count of
    // right-hand sides: a block by substitution (`trsm_block`) is one invocation per column
    // walking [`NB`] rows, some 2,000 dependent reads of global memory (the H200 sweep of
    // 2026-11-28: a 4096 solve of one vector took 60 ms more than its LU); by its inverse
    // it is a product over the whole GPU.
    // Slots of NB x NB, or n x n for smaller matrices (stacks of many tiny systems).
    let slot = NB.min(n);
    let blocks = n.div_ceil(slot);
    let inv = Array::<T>::alloc(&a.dev, "linalg", vec![count * blocks * slot * slot])?;
    let q = FParams {
        rows: n,
        cols: n,
        k0: 0,
        wdt: slot,
        nrows: n,
        count,
        flags,
        ..FParams::default()
    };
    l.tri_inv(&q, a, &inv)?;
    if nrhs <= super::trsm::MAX_RHS {
        // Few right-hand sides: one dispatch a block (the block's solution and the update
        // of the rows after it), into a new array copied back at the end.
        let x = super::trsm::solution::<T>(&a.dev, count, n, nrhs)?;
        for &k in order {
            let wdt = NB.min(n - k);
            let (r0, nr) = if forward {
                (k + wdt, n - k - wdt)
            } else {
                (0, k)
            };
            let step = super::trsm::Step {
                n,
                nrhs,
                count,
                k,
                wdt,
                blk: k / NB,
                slot,
                blocks,
                r0,
                nr,
                trans: tri.trans,
            };
            super::trsm::step(&a.dev, &step, a, &inv, b, &x)?;
            prof::mark(&a.dev, "trsm_step")?;
        }
        let s = FParams {
            rows: n,
            cols: nrhs,
            r0: 0,
            nrows: n,
            c0: 0,
            ncols: nrhs,
            count,
            flags: ASSIGN,
            ..FParams::default()
        };
        return l.sub_block(&s, &x, b);
    }
    for &k in order {
        let wdt = NB.min(n - k);
        let p = FParams {
            rows: n,
            cols: nrhs,
            k0: k,
            wdt,
            c0: 0,
            ncols: nrhs,
            an: n,
            count,
            flags,
            ..FParams::default()
        };
        let iv = inverse_view(&inv, blocks, slot, k / NB, wdt);
        apply_inverse(l, &iv, b, (count, n, nrhs), (k, wdt), (0, nrhs))?;
        let (r0, nr) = if forward {
            (k + wdt, n - k - wdt)
        } else {
            (0, k)
        };
        if nr > 0 {
            // op(A)[r0.., k..k + wdt]: of A itself, or of its transpose.
            let ab = if tri.trans {
                block(a, count, (n, n), (k, r0), (wdt, nr), true)
            } else {
                block(a, count, (n, n), (r0, k), (nr, wdt), false)
            };
            let xb = block(b, count, (n, nrhs), (k, 0), (wdt, nrhs), false);
            let t = ab.matmul(&xb)?;
            prof::mark(&ab.dev, "matmul")?;
            let s = FParams {
                r0,
                nrows: nr,
                c0: 0,
                ncols: nrhs,
                flags: 0,
                ..p
            };
            l.sub_block(&s, &t, b)?;
        }
    }
    Ok(())
}

/// `b` ([count, n, nrhs], contiguous) becomes op(A)^-1 b for the LUs `lu` ([count, n, n])
/// with pivots `st`.
fn lu_solve_in_place_body<T: Float>(
    l: &Launcher<T>,
    lu: &Array<T>,
    st: &Array<i32>,
    b: &Array<T>,
    (count, n, nrhs): (usize, usize, usize),
    trans: bool,
) -> Result<()> {
    let perm = |flags: u32| {
        let p = FParams {
            rows: n,
            cols: nrhs,
            k0: 0,
            wdt: n,
            kmax: n,
            count,
            flags,
            ..FParams::default()
        };
        l.permute(&p, st, b)
    };
    let dims = (count, n, nrhs);
    let lower = Tri {
        lower: true,
        trans,
        unit: true,
    };
    let upper = Tri {
        lower: false,
        trans,
        unit: false,
    };
    if trans {
        // A^T = U^T L^T P: U^T, then L^T, then the swaps in reverse.
        trsm(l, lu, b, dims, upper)?;
        trsm(l, lu, b, dims, lower)?;
        perm(REVERSE)
    } else {
        perm(0)?;
        trsm(l, lu, b, dims, lower)?;
        trsm(l, lu, b, dims, upper)
    }
}

/// A new `[count, nrows, ncols]` array of a triangle of `src` ([count, rows, cols];
/// `flags`: LOWER, UNIT, TRANS as shaders/factor.wgsl's `extract`).
pub(crate) fn extract<T: Float>(
    l: &Launcher<T>,
    src: &Array<T>,
    (count, rows, cols): (usize, usize, usize),
    (nrows, ncols): (usize, usize),
    flags: u32,
) -> Result<Array<T>> {
    let out = Array::<T>::alloc(&src.dev, "linalg", vec![count, nrows, ncols])?;
    let p = FParams {
        rows,
        cols,
        nrows,
        ncols,
        count,
        flags,
        ..FParams::default()
    };
    l.extract(&p, src, &out)?;
    Ok(out)
}

/// [`lu_in_place_body`], profiled where `GPUARRAY_FACTOR_PROFILE` asks.
pub(crate) fn lu_in_place<T: Float>(
    l: &Launcher<T>,
    w: &Array<T>,
    count: usize,
    m: usize,
    n: usize,
) -> Result<Array<i32>> {
    let title = || format!("lu {:?} {count}x{m}x{n}", T::DTYPE);
    prof::call(&w.dev, title, || lu_in_place_body(l, w, count, m, n))
}

/// [`cholesky_in_place_body`], profiled where `GPUARRAY_FACTOR_PROFILE` asks.
pub(crate) fn cholesky_in_place<T: Float>(
    l: &Launcher<T>,
    w: &Array<T>,
    count: usize,
    n: usize,
) -> Result<Array<i32>> {
    let title = || format!("cholesky {:?} {count}x{n}", T::DTYPE);
    prof::call(&w.dev, title, || cholesky_in_place_body(l, w, count, n))
}

/// [`trsm_body`], profiled where `GPUARRAY_FACTOR_PROFILE` asks.
pub(crate) fn trsm<T: Float>(
    l: &Launcher<T>,
    a: &Array<T>,
    b: &Array<T>,
    dims: (usize, usize, usize),
    tri: Tri,
) -> Result<()> {
    let title = || format!("trsm {:?} {dims:?} {tri:?}", T::DTYPE);
    prof::call(&a.dev, title, || trsm_body(l, a, b, dims, tri))
}

/// [`lu_solve_in_place_body`], profiled where `GPUARRAY_FACTOR_PROFILE` asks.
pub(crate) fn lu_solve_in_place<T: Float>(
    l: &Launcher<T>,
    lu: &Array<T>,
    st: &Array<i32>,
    b: &Array<T>,
    dims: (usize, usize, usize),
    trans: bool,
) -> Result<()> {
    let title = || format!("lu_solve {:?} {dims:?}", T::DTYPE);
    prof::call(&lu.dev, title, || {
        lu_solve_in_place_body(l, lu, st, b, dims, trans)
    })
}
