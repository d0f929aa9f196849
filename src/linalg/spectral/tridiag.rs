//! eigh and eigvalsh through a tridiagonal reduction: the host side of shaders/tridiag.wgsl.
//!
//! 1. Householder reduction to tridiagonal form, `Q^T A Q = T` (LAPACK's dsytd2), one
//!    dispatch per column over the whole stack (`step`, shaders/tridiag_step.wgsl): each
//!    workgroup applies the previous column's rank-2 update (A -= v w^T + w v^T) to row k
//!    and to its own rows (up to 8), forms the reflector H_k from row k, and p = tau A v
//!    for its rows from the values it holds. The trailing matrix is read and written once
//!    per column: 2 n^3 / 3 elements moved in all. Past n = 4097 (an invocation would hold
//!    more than 16 columns), and under `GPUARRAY_TRIDIAG_FUSED=0` (a measuring switch),
//!    two dispatches per column: `house` (the reflector, formed again by each workgroup
//!    from row k, and p, a workgroup per row) and `rank2` (the update, a workgroup per
//!    row, each forming p^T v itself), which read the trailing matrix twice and write it
//!    once per column.
//! 2. The eigenvalues of T by bisection on Sturm counts, an invocation per eigenvalue
//!    (deterministic, every eigenvalue independent, to a quarter of eps ||T||).
//! 3. eigh only: the eigenvectors of T by inverse iteration (`stein`, LAPACK's dstein
//!    without its Gram-Schmidt): an invocation per vector, each solve an O(n) LU with
//!    partial pivoting of T - w_j I (far under lavapipe's 65,535 loop steps per
//!    invocation for the sizes it runs), from a pseudo-random start (a fixed hash of the
//!    row and the vector: the same vectors every run). Two solves, then a QR of Z
//!    (a CholeskyQR pass through products, or Householder QR where that cannot be trusted:
//!    cholqr.rs, which also says when a second pass runs), then one more solve and QR (see
//!    `ROUNDS`). Each shift is the vector's own eigenvalue w_j, unperturbed: where
//!    eigenvalues are apart, the solves make the vectors orthogonal to within
//!    eps ||T|| / gap and the QR moves each within its residual; inside a cluster of
//!    eigenvalues closer than bisection resolves, the solves from independent random starts
//!    keep the vectors independent (no direction of the cluster is favoured by more than
//!    the cluster's width over eps ||T||), and the QR turns them into an orthonormal basis
//!    of the cluster's invariant subspace, which is a correct answer. dstein instead pushes
//!    a shift up to 10 eps ||T||_1 above the one below it where they are closer; here that
//!    push chained through graded spectra (runs of gaps just under 10 eps ||T||_1: a
//!    graded 40 x 40 in f32 put a shift past the next eigenvalue, two vectors converged to
//!    one eigenvector and the QR left the other column with a residual of 50 eps ||T||, a
//!    graded 200 x 200 9,500 eps ||T||), and it bought nothing without dstein's
//!    Gram-Schmidt. Nothing is sequential across vectors: no cluster serialises a
//!    workgroup.
//! 4. The back-transform X = Q Z in blocks of `NB` reflectors in compact WY form,
//!    Z -= V (Tf (V^T Z)) (`vblock`, `larft_wg`), through the library's batched products.
//!
//! Where the time goes (H200, 2026-11-29, `GPUARRAY_FACTOR_PROFILE=1`, before stein's
//! larger dispatches and `larft_wg`): eigh f32 1024 24.6 ms = reduce 10.2, bisect 2.1,
//! stein 4.6 (2 dispatches), the orthonormalisation 3.1 (two products and two waits; no
//! Newton-Schulz step was needed), back-transform 4.8 (larft 3.4 of it); f32 4096 347 ms =
//! reduce 204, stein 90 (six dispatches: 64 MB of scratch held 1,365 vectors), larft 13.9,
//! the back-transform's products 13.4 and subtractions 3.6, orthonormalisation 14.4; f64
//! 1024 34.5 ms = reduce 12.1, bisect 8.0, stein 5.4, larft 3.4. Session 19's CholeskyQR2
//! (`GPUARRAY_EIGH_ORTH=2`) took 34.6 / 425 / 49.1 ms in all.
//!
//! The Householder vectors stay in the work matrix's rows (row k holds v of H_k past the
//! diagonal) and tau beside d and e.

use super::cholqr::{self, Finish, Orth};
use super::jacobi::eps;
use crate::array::Array;
use crate::device::{Device, DeviceKind, Work};
use crate::dtype::{DType, Float};
use crate::error::Result;
use crate::kernel::cache::Key;
use crate::kernel::launch::{Binding, Params};
use crate::kernel::source::Spec;
use crate::linalg::factor_prof as prof;

const SRC: &str = include_str!("../../../shaders/tridiag.wgsl");
/// The fused reduction step, appended to [`SRC`] for its pipelines.
const STEP_SRC: &str = include_str!("../../../shaders/tridiag_step.wgsl");
/// Invocations of a workgroup (a power of two, shaders/tridiag.wgsl's WGMAX at most).
const WG: usize = 256;
/// Fields of n values per matrix in `aux` before stein's scratch (shaders/tridiag.wgsl's
/// AUX_FIELDS: v, p, e, tau, d, and the fused step's second v and p).
const AUX_FIELDS: usize = 7;
/// Most workgroups in one grid dimension.
const MAX_GROUPS: usize = 65_535;

/// The smallest n eigvalsh takes this route for: below it one-sided Jacobi runs every sweep
/// of a matrix in one workgroup (the `small` kernel, n <= 32), one dispatch for a whole
/// stack, where the reduction would cost 2 (n - 1) dispatches of mostly idle workgroups.
pub(crate) const MIN_N: usize = 33;

/// The kernel's source for dtype `d`.
fn spec(d: DType) -> Spec {
    let t = d.wgsl();
    Spec::new("tridiag", SRC)
        .alias("T", t)
        .alias("S", t)
        .alias("SC", t)
        .writable_last_input()
}

/// Most columns of the trailing matrix one invocation of `step` holds (its JMAX), and most
/// rows a `step` workgroup updates (RMAX).
const STEP_J: usize = 16;
const STEP_RMAX: usize = 8;
/// Workgroups a `step` dispatch aims at (per matrix): rows are grouped up to
/// [`STEP_RMAX`] a workgroup until the grid is about this wide.
const STEP_GROUPS: usize = 256;

/// The fused step's source for dtype `d`, its invocations holding `j` columns each.
fn step_spec(d: DType, j: usize) -> Spec {
    spec(d)
        .include(STEP_SRC)
        .unroll("J", j as u32)
        .unroll("RMAX", STEP_RMAX as u32)
}

/// Every variant, for the shader validation test.
#[cfg(test)]
pub(crate) fn all_specs() -> Vec<Spec> {
    let mut v = vec![spec(DType::F32), spec(DType::F64)];
    for d in [DType::F32, DType::F64] {
        v.extend([1, 2, 4, 8, 16].map(|j| step_spec(d, j)));
    }
    v
}

/// The columns an invocation of `step` holds for order `n`: a power of two with
/// `j * WG >= n - 1`, or `None` past [`STEP_J`] (the reduction then takes `house` and
/// `rank2`). `GPUARRAY_TRIDIAG_FUSED=0` (a measuring switch, read once) always answers
/// `None`.
fn step_columns(n: usize) -> Option<usize> {
    static ON: std::sync::OnceLock<bool> = std::sync::OnceLock::new();
    let on = *ON.get_or_init(|| crate::config::switch("GPUARRAY_TRIDIAG_FUSED") != Some(0));
    let j = (n - 1).div_ceil(WG).next_power_of_two();
    (on && j <= STEP_J).then_some(j)
}

/// The parameters of one dispatch, mirrored by shaders/tridiag.wgsl's accessors.
#[derive(Debug, Clone, Copy, Default)]
struct TParams {
    items: usize,
    count: usize,
    upper: bool,
    n: usize,
    k: usize,
    /// stein: the first vector of the chunk; vblock / larft: reflectors in the block.
    first: usize,
    nb: usize,
}

impl TParams {
    fn encode<T: Float>(&self) -> Params {
        let (safemin, big) = match T::DTYPE {
            DType::F64 => (f64::MIN_POSITIVE, f64::MAX),
            _ => (f32::MIN_POSITIVE as f64, f32::MAX as f64),
        };
        let mut p = Params::new(self.items as u32).scalars(&[
            T::from_f64(eps::<T>()),
            T::from_f64(safemin),
            T::from_f64(big),
            T::from_f64(f64::NAN),
        ]);
        p.aux = [self.count as u32, u32::from(self.upper)];
        p.shape[0] = self.n as u32;
        p.shape[1] = self.k as u32;
        p.shape[2] = self.first as u32;
        p.shape[3] = self.nb as u32;
        p
    }
}

/// A grid of `x` workgroups per matrix of `count`, the matrices along y (and z past 65,535).
fn per_matrix(x: usize, count: usize) -> Work {
    let y = count.min(MAX_GROUPS);
    let z = count.div_ceil(MAX_GROUPS);
    Work::Groups([x as u32, y as u32, z as u32])
}

#[allow(clippy::too_many_arguments)]
fn launch<T: Float>(
    dev: &Device,
    wg: usize,
    entry: &'static str,
    tp: &TParams,
    src: Binding<'_>,
    aux: Binding<'_>,
    out: Binding<'_>,
    work: Work,
) -> Result<()> {
    launch_with::<T>(dev, wg, entry, None, tp, [src, aux, out], work)
}

/// `launch`, of the fused `step` with `j` columns an invocation where `step_j` says.
fn launch_with<T: Float>(
    dev: &Device,
    wg: usize,
    entry: &'static str,
    step_j: Option<usize>,
    tp: &TParams,
    [src, aux, out]: [Binding<'_>; 3],
    work: Work,
) -> Result<()> {
    let mut variant = T::DTYPE.wgsl().to_string();
    if let Some(j) = step_j {
        variant.push_str(&format!("_j{j}"));
    }
    let key = Key {
        family: "tridiag",
        entry,
        variant,
        inputs: 2,
        wg: wg as u32,
        ndim: 0,
        per: 0,
    };
    let kernel = match step_j {
        Some(j) => dev.kernel(key, || step_spec(T::DTYPE, j))?,
        None => dev.kernel(key, || spec(T::DTYPE))?,
    };
    dev.launch(&kernel, &tp.encode::<T>(), &[src, aux], out, work)
}

/// The reduction of the `count` symmetric matrices of the contiguous `a` (n >= 2, read
/// through the triangle `upper` names) to tridiagonal form: `(aux, wk)`, aux's five fields
/// (d, e, tau) followed by `extra` elements of scratch, wk the Householder vectors in its
/// rows.
fn reduce<T: Float>(
    op: &'static str,
    a: &Array<T>,
    base: TParams,
    extra: usize,
) -> Result<(Array<T>, Array<T>)> {
    let (count, n) = (base.count, base.n);
    let dev = a.device().clone();
    let aux = Array::<T>::alloc_with(&dev, op, vec![AUX_FIELDS * count * n + extra], |bytes| {
        dev.alloc_apart(bytes, &[&a.buf])
    })?;
    let wk = Array::<T>::alloc_with(&dev, op, vec![count, n, n], |bytes| {
        dev.alloc_apart(bytes, &[&a.buf, &aux.buf])
    })?;
    let tp = TParams {
        items: count * n * n,
        ..base
    };
    let items = Work::Items((count * n * n) as u32);
    let (src, ab, wb) = (a.binding(), aux.binding(), wk.binding());
    launch::<T>(&dev, WG, "prep", &tp, src, ab, wb, items)?;
    if let Some(j) = step_columns(n) {
        for k in 0..n - 1 {
            let m = n - k - 1;
            let rows = m.div_ceil(STEP_GROUPS).min(STEP_RMAX);
            let tp = TParams {
                k,
                nb: rows,
                ..base
            };
            let bind = [a.binding(), aux.binding(), wk.binding()];
            let grid = per_matrix(m.div_ceil(rows), count);
            launch_with::<T>(&dev, WG, "step", Some(j), &tp, bind, grid)?;
        }
        return Ok((aux, wk));
    }
    for k in 0..n - 1 {
        let m = n - k - 1;
        let tp = TParams { k, ..base };
        let grid = per_matrix(m, count);
        let (src, ab, wb) = (a.binding(), aux.binding(), wk.binding());
        launch::<T>(&dev, WG, "house", &tp, src, ab, wb, grid)?;
        if m > 1 {
            let (src, ab, wb) = (a.binding(), aux.binding(), wk.binding());
            launch::<T>(&dev, WG, "rank2", &tp, src, ab, wb, grid)?;
        }
    }
    Ok((aux, wk))
}

/// Bisection steps one `bisect` invocation takes at most (the kernel's loop bound before
/// it took its bound from the parameters).
const BISECT_STEPS: usize = 256;
/// Loop iterations one invocation may spend on a CPU adapter: lavapipe ends every loop of an
/// invocation together once it has run 65,535 iterations in all (a counter per invocation,
/// not per loop), which cut `bisect` at about 30 of its ~57 f64 steps at n = 2100 (every
/// eigenvalue off by ~8e-9 where eps ||T|| / 4 is ~1e-13).
const CPU_LOOP_BUDGET: usize = 60_000;

/// Dispatches of `bisect` and steps in each for order `n` of `T`: one dispatch of every step
/// on GPUs; on CPU adapters (lavapipe) as many steps a dispatch as fit in
/// [`CPU_LOOP_BUDGET`] (Gershgorin's interval and the largest e^2 cost 2 n - 1 iterations,
/// a step n), the bracket kept between dispatches, and the steps the tolerance can take
/// in all: log2 of the first bracket over the last, at most 8 / eps (Gershgorin's interval
/// is at most 2 ||T|| wide, the tolerance eps ||T|| / 4) and a margin for the widening and
/// rounding.
fn bisect_plan<T: Float>(kind: DeviceKind, n: usize) -> (usize, usize) {
    if kind != DeviceKind::Cpu {
        return (1, BISECT_STEPS);
    }
    let per = (CPU_LOOP_BUDGET.saturating_sub(2 * n) / n).max(1);
    let total = (8.0 / eps::<T>()).log2().ceil() as usize + 8;
    (total.div_ceil(per), per)
}

/// The eigenvalues of the reduced matrices by bisection, `[count, n]`.
fn bisect<T: Float>(
    op: &'static str,
    a: &Array<T>,
    aux: &Array<T>,
    wk: &Array<T>,
    base: TParams,
) -> Result<Array<T>> {
    let (count, n) = (base.count, base.n);
    let dev = a.device().clone();
    let w = Array::<T>::alloc_with(&dev, op, vec![count, n], |bytes| {
        dev.alloc_apart(bytes, &[&a.buf, &aux.buf, &wk.buf])
    })?;
    let (dispatches, per) = bisect_plan::<T>(dev.info().kind, n);
    #[cfg(test)]
    let (dispatches, per) = match tests::FORCE_PER.get() {
        0 => (dispatches, per),
        p => (BISECT_STEPS.div_ceil(p), p),
    };
    for d in 0..dispatches {
        // k: the steps of this dispatch; first: 1 where the bracket is resumed from aux.
        let tp = TParams {
            items: count * n,
            k: per,
            first: usize::from(d > 0),
            ..base
        };
        let grid = Work::Items((count * n) as u32);
        launch::<T>(
            &dev,
            WG,
            "bisect",
            &tp,
            a.binding(),
            aux.binding(),
            w.binding(),
            grid,
        )?;
    }
    Ok(w)
}

/// The eigenvalues (ascending, `[count, n]`) of the `count` symmetric matrices of the
/// contiguous `a` (n >= 2), read through the triangle `upper` names.
pub(crate) fn eigvalsh<T: Float>(
    op: &'static str,
    a: &Array<T>,
    count: usize,
    n: usize,
    upper: bool,
) -> Result<Array<T>> {
    debug_assert!(n >= 2);
    let base = TParams {
        count,
        upper,
        n,
        ..TParams::default()
    };
    let (aux, wk) = reduce(op, a, base, 0)?;
    bisect(op, a, &aux, &wk, base)
}

/// Bytes of stein's U factors at most (3 n per vector in flight; the vectors of a stack
/// past it are solved in chunks, a dispatch each) by default, within the device's largest
/// binding; `GPUARRAY_STEIN_SCRATCH_MB` (a measuring switch read once) sets it, 64 being
/// session 19's bound.
/// Each chunk is a dispatch of invocations that walk n rows three times a solve, latency
/// bound: the H200 (2026-11-29) spent 90 ms of eigh f32 4096 in stein with the old bound
/// (201 MB of factors in three chunks of 1,365 vectors, 22 workgroups each, one after
/// another), where one dispatch of 4,096 takes about a third.
const STEIN_SCRATCH_MAX: usize = 512 << 20;

/// Vectors per stein dispatch: as many as the scratch allows (`fixed` elements of `aux`
/// before it, `per` bytes a vector), at least a workgroup's, at most `total`.
fn stein_chunk(dev: &Device, fixed: usize, per: usize, size: usize, total: usize) -> usize {
    static MB: std::sync::OnceLock<Option<usize>> = std::sync::OnceLock::new();
    let bytes = match *MB.get_or_init(|| crate::config::switch("GPUARRAY_STEIN_SCRATCH_MB")) {
        Some(mb) => mb.clamp(1, 1 << 12) << 20,
        None => {
            let limit =
                usize::try_from(dev.limits().max_storage_buffer_binding_size).unwrap_or(usize::MAX);
            let limit = limit.saturating_sub(fixed * size);
            limit.min(STEIN_SCRATCH_MAX)
        }
    };
    (bytes / per).max(STEIN_WG).min(total)
}

/// Invocations of a stein workgroup: one vector each, so that n = 4096 spreads over 64
/// workgroups (multiprocessors) rather than 16.
const STEIN_WG: usize = 64;
/// Reflectors per block of the back-transform.
const NB: usize = 64;

/// Reflectors per block of the back-transform: [`NB`], or `GPUARRAY_EIGH_NB` (a measuring
/// switch read once, 16 to 256): fewer blocks mean fewer passes over Z (each block reads Z
/// twice and writes it twice: V^T Z, then Z - V Y) and larger products, but a longer
/// `larft` (one workgroup walking nb columns, about nb^2 / 2 dependent steps).
fn block_size() -> usize {
    static SIZE: std::sync::OnceLock<usize> = std::sync::OnceLock::new();
    *SIZE.get_or_init(|| crate::config::switch("GPUARRAY_EIGH_NB").map_or(NB, |v| v.clamp(16, 256)))
}
/// Inverse-iteration solves per round, the vectors orthonormalised (CholeskyQR of Z, cholqr.rs)
/// after each round: two solves from the random start, then one from the orthonormal
/// basis (block inverse iteration: a cluster's vectors, mixed within the cluster by the
/// QR, are drawn back towards their own eigenvalues by the next solve). Measured on a CPU
/// port of `stein` in f32 (residual ||T Z - Z W||_F in units of n eps ||T||_F, worst of
/// graded, clustered, degenerate, Wilkinson and random spectra to n = 300): [2] alone
/// 165 (52 equal eigenvalues of 70: the solves from random starts with one shift
/// collapse towards one direction, and the QR amplifies what is left), [3] 3,600, [1, 1]
/// 0.41, [2, 1] 0.12, [2, 2] 7.5 (a second solve in the last round collapses a
/// degenerate cluster again). The last round keeps one solve.
const ROUNDS: [usize; 2] = [2, 1];

/// The eigenvalues (ascending, `[count, n]`) and eigenvectors (columns, `[count, n, n]`) of
/// the `count` symmetric matrices of the contiguous `a` (n >= 2), read through the
/// triangle `upper` names: the reduction, bisection, inverse iteration on T (`stein`, an
/// invocation per vector) orthonormalised between rounds as [`Orth::selected`] says
/// (CholeskyQR, or Householder QR where that cannot be trusted: cholqr.rs), and the
/// back-transform X = Q Z in blocks of compact WY reflectors through matmul. Profiled under
/// `GPUARRAY_FACTOR_PROFILE=1` (src/linalg/factor_prof.rs: each stage's GPU time, the
/// Cholesky's and triangular solves' dispatches by their own names).
pub(crate) fn eigh<T: Float>(
    op: &'static str,
    a: &Array<T>,
    count: usize,
    n: usize,
    upper: bool,
) -> Result<(Array<T>, Array<T>)> {
    let title = || {
        let (d, orth, nb) = (T::DTYPE, Orth::selected(), block_size());
        format!("eigh {d:?} {count}x{n} {orth:?} nb {nb}")
    };
    prof::call(a.device(), title, || {
        let (w, v, _) = eigh_with(op, a, count, n, upper, Orth::selected(), None)?;
        Ok((w, v))
    })
}

/// [`eigh`] orthonormalising as `orth` says, stein's vectors in dispatches of `chunk` (by
/// default as the scratch allows), and what finished the vectors.
pub(crate) fn eigh_with<T: Float>(
    op: &'static str,
    a: &Array<T>,
    count: usize,
    n: usize,
    upper: bool,
    orth: Orth,
    chunk: Option<usize>,
) -> Result<(Array<T>, Array<T>, Finish)> {
    debug_assert!(n >= 2);
    let total = count * n;
    let size = T::DTYPE.size();
    let per = 3 * n * size;
    let chunk = chunk.map_or_else(
        || stein_chunk(a.device(), AUX_FIELDS * total, per, size, total),
        |c| c.clamp(1, total),
    );
    let base = TParams {
        count,
        upper,
        n,
        ..TParams::default()
    };
    let dev = a.device().clone();
    let (aux, wk) = reduce(op, a, base, 3 * n * chunk)?;
    prof::mark(&dev, "reduce")?;
    let w = bisect(op, a, &aux, &wk, base)?;
    prof::mark(&dev, "bisect")?;
    let mut z = Array::<T>::alloc_with(&dev, op, vec![count, n, n], |bytes| {
        dev.alloc_apart(bytes, &[&a.buf, &aux.buf, &wk.buf, &w.buf])
    })?;
    // CholeskyQR between the rounds, checked; Householder QR where the check fails.
    let mut finish = Finish::Householder;
    for householder in [false, true] {
        for (round, &solves) in ROUNDS.iter().enumerate() {
            let mut first = 0;
            while first < total {
                let items = chunk.min(total - first);
                let tp = TParams {
                    items,
                    k: solves | if round == 0 { 16 } else { 0 },
                    first,
                    ..base
                };
                launch::<T>(
                    &dev,
                    STEIN_WG,
                    "stein",
                    &tp,
                    w.binding(),
                    aux.binding(),
                    z.binding(),
                    Work::Items(items as u32),
                )?;
                first += items;
            }
            prof::mark(&dev, "stein")?;
            let last = round + 1 == ROUNDS.len();
            z = if householder {
                cholqr::householder(&z)?
            } else {
                orth.round(&z, n, last)?
            };
            prof::mark(&dev, "orth")?;
        }
        if householder {
            break;
        }
        if orth == Orth::Polar {
            if let Some((x, f)) = cholqr::finish_polar(&z, n)? {
                (z, finish) = (x, f);
                break;
            }
            continue;
        }
        let e = cholqr::orthonormality(&z, n)?;
        if cholqr::enough(e) {
            finish = Finish::Rounds;
            break;
        }
        if orth == Orth::OnePass && cholqr::mendable::<T>(e, n) {
            // The second pass of CholeskyQR2, checked again.
            z = cholqr::one_pass(&z)?;
            if cholqr::enough(cholqr::orthonormality(&z, n)?) {
                finish = Finish::SecondPass;
                break;
            }
        }
    }
    let v = back_transform(op, &dev, &wk, &aux, z, base)?;
    prof::mark(&dev, "back")?;
    Ok((w, v, finish))
}

/// Whether `larft` of a block of `nb` reflectors runs as `larft_wg` (G and Tf in
/// workgroup memory, nb <= 64): the default; `GPUARRAY_EIGH_LARFT=0` (a measuring switch
/// read once) keeps `larft`, which walks G and Tf in global memory behind a storage barrier
/// a step: the H200 (2026-11-29) took 215 us a block of 64 for it, 3.4 ms of eigh f32
/// 1024 and 13.9 ms of 4096, where `larft_wg`'s 64 steps read workgroup memory.
fn larft_in_workgroup(nb: usize) -> bool {
    static ON: std::sync::OnceLock<bool> = std::sync::OnceLock::new();
    let on = *ON.get_or_init(|| crate::config::switch("GPUARRAY_EIGH_LARFT") != Some(0));
    on && nb <= 64
}

/// X = Q Z = H_0 (H_1 (... H_{n-2} Z)), in blocks of `NB` reflectors from the last:
/// Z -= V (Tf (V^T Z)) (V^T from `vblock`, Tf from `larft`), through batched products.
fn back_transform<T: Float>(
    op: &'static str,
    dev: &Device,
    wk: &Array<T>,
    aux: &Array<T>,
    mut z: Array<T>,
    base: TParams,
) -> Result<Array<T>> {
    let (count, n) = (base.count, base.n);
    let reflectors = n - 1;
    let size = block_size();
    for blk in (0..reflectors.div_ceil(size)).rev() {
        let k0 = blk * size;
        let nb = size.min(reflectors - k0);
        let vt = Array::<T>::alloc_with(dev, op, vec![count, nb, n], |bytes| {
            dev.alloc_apart(bytes, &[&wk.buf, &aux.buf])
        })?;
        let tp = TParams {
            items: count * nb * n,
            k: k0,
            nb,
            ..base
        };
        let grid = Work::Items((count * nb * n) as u32);
        let (src, ab, out) = (wk.binding(), aux.binding(), vt.binding());
        launch::<T>(dev, WG, "vblock", &tp, src, ab, out, grid)?;
        prof::mark(dev, "bt_vblock")?;
        let v = vt.swapaxes(-1, -2)?;
        let g = vt.matmul(&v)?.contiguous()?;
        prof::mark(dev, "bt_gram")?;
        let tf = Array::<T>::alloc_with(dev, op, vec![count, nb, nb], |bytes| {
            dev.alloc_apart(bytes, &[&g.buf, &aux.buf])
        })?;
        let tp = TParams { k: k0, nb, ..base };
        let (src, ab, out) = (g.binding(), aux.binding(), tf.binding());
        let entry = if larft_in_workgroup(nb) {
            "larft_wg"
        } else {
            "larft"
        };
        launch::<T>(dev, WG, entry, &tp, src, ab, out, per_matrix(1, count))?;
        prof::mark(dev, "bt_larft")?;
        let y = tf.matmul(&vt.matmul(&z)?)?;
        let vy = v.matmul(&y)?;
        prof::mark(dev, "bt_matmul")?;
        z = z.sub(&vy)?;
        prof::mark(dev, "bt_sub")?;
    }
    z.contiguous()
}

#[cfg(test)]
#[path = "tridiag_tests.rs"]
mod tests;
