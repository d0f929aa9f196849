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
//!    makes the vectors orthonormal (CholeskyQR2 through products, or Householder QR where
//!    that cannot be trusted: cholqr.rs), then one more solve and QR (see `ROUNDS`). Each shift is the vector's own eigenvalue w_j, unperturbed: where
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
//!    Z -= V (Tf (V^T Z)) (`vblock`, `larft`), through the library's batched products.
//!
//! The Householder vectors stay in the work matrix's rows (row k holds v of H_k past the
//! diagonal) and tau beside d and e.

use super::cholqr;
use super::jacobi::eps;
use crate::array::Array;
use crate::device::{Device, DeviceKind, Work};
use crate::dtype::{DType, Float};
use crate::error::Result;
use crate::kernel::cache::Key;
use crate::kernel::launch::{Binding, Params};
use crate::kernel::source::Spec;

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

/// Bytes of stein's U factors at most (3 n per vector in flight): the vectors of a stack
/// past it are solved in chunks, a dispatch each.
const STEIN_SCRATCH: usize = 64 << 20;
/// Invocations of a stein workgroup: one vector each, so that n = 4096 spreads over 64
/// workgroups (multiprocessors) rather than 16.
const STEIN_WG: usize = 64;
/// Reflectors per block of the back-transform.
const NB: usize = 64;
/// Inverse-iteration solves per round, the vectors orthonormalised (CholeskyQR2 of Z, cholqr.rs)
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
/// invocation per vector) orthonormalised between rounds (CholeskyQR2, or Householder QR
/// where that cannot be trusted: cholqr.rs), and the
/// back-transform X = Q Z in blocks of compact WY reflectors through matmul.
pub(crate) fn eigh<T: Float>(
    op: &'static str,
    a: &Array<T>,
    count: usize,
    n: usize,
    upper: bool,
) -> Result<(Array<T>, Array<T>)> {
    debug_assert!(n >= 2);
    let total = count * n;
    let per = 3 * n * T::DTYPE.size();
    let chunk = (STEIN_SCRATCH / per).max(STEIN_WG).min(total);
    let base = TParams {
        count,
        upper,
        n,
        ..TParams::default()
    };
    let (aux, wk) = reduce(op, a, base, 3 * n * chunk)?;
    let w = bisect(op, a, &aux, &wk, base)?;
    let dev = a.device().clone();
    let mut z = Array::<T>::alloc_with(&dev, op, vec![count, n, n], |bytes| {
        dev.alloc_apart(bytes, &[&a.buf, &aux.buf, &wk.buf, &w.buf])
    })?;
    // CholeskyQR2 between the rounds, checked once; Householder QR where the check fails.
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
            z = if householder {
                cholqr::householder(&z)?
            } else {
                cholqr::cholesky_qr2(&z)?
            };
        }
        if householder || cholqr::orthonormal_enough(&z, n)? {
            break;
        }
    }
    let v = back_transform(op, &dev, &wk, &aux, z, base)?;
    Ok((w, v))
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
    for blk in (0..reflectors.div_ceil(NB)).rev() {
        let k0 = blk * NB;
        let nb = NB.min(reflectors - k0);
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
        let v = vt.swapaxes(-1, -2)?;
        let g = vt.matmul(&v)?.contiguous()?;
        let tf = Array::<T>::alloc_with(dev, op, vec![count, nb, nb], |bytes| {
            dev.alloc_apart(bytes, &[&g.buf, &aux.buf])
        })?;
        let tp = TParams { k: k0, nb, ..base };
        let (src, ab, out) = (g.binding(), aux.binding(), tf.binding());
        launch::<T>(dev, WG, "larft", &tp, src, ab, out, per_matrix(1, count))?;
        let y = tf.matmul(&vt.matmul(&z)?)?;
        z = z.sub(&v.matmul(&y)?)?;
    }
    z.contiguous()
}

#[cfg(test)]
mod tests {
    use super::*;

    thread_local! {
        /// Steps a `bisect` dispatch takes where not 0 (the dispatches then cover
        /// [`BISECT_STEPS`]): the resumed bracket checked on any adapter.
        pub(super) static FORCE_PER: std::cell::Cell<usize> = const { std::cell::Cell::new(0) };
    }

    #[test]
    fn bisect_plans_fit_lavapipes_loop_budget() {
        assert_eq!(
            bisect_plan::<f64>(DeviceKind::DiscreteGpu, 4096),
            (1, BISECT_STEPS)
        );
        assert_eq!(bisect_plan::<f64>(DeviceKind::Cpu, 2100), (3, 26));
        for n in [33, 100, 1000, 1110, 2100, 4096, 5792] {
            // log2(8 / eps) and the margin of 8.
            let f32_plan = (bisect_plan::<f32>(DeviceKind::Cpu, n), 34);
            let f64_plan = (bisect_plan::<f64>(DeviceKind::Cpu, n), 63);
            for ((d, per), steps) in [f32_plan, f64_plan] {
                // Gershgorin and e^2 (2 n - 1), each step n (its Sturm count's n - 1 and the
                // step itself), under lavapipe's 65,535.
                assert!(2 * n + per * n <= 65_535, "n {n} per {per}");
                assert!(d * per >= steps, "n {n}: {d} x {per}");
            }
        }
    }

    /// Bisection resumed from the bracket a dispatch before left gives the bits of one
    /// dispatch (f32 and f64, a stack of two).
    #[test]
    fn bisect_resumed_gives_the_same_bits() {
        fn check<T: Float>(dev: &Device) {
            let n = 97;
            let m = dev
                .random_uniform_in::<T>([2, n, n], T::from_f64(-1.0), T::from_f64(1.0), 3)
                .unwrap();
            let a = m
                .add(&m.swapaxes(1, 2).unwrap())
                .unwrap()
                .contiguous()
                .unwrap();
            let one = eigvalsh("eigvalsh", &a, 2, n, false)
                .unwrap()
                .to_vec()
                .unwrap();
            FORCE_PER.set(5);
            let split = eigvalsh("eigvalsh", &a, 2, n, false)
                .unwrap()
                .to_vec()
                .unwrap();
            FORCE_PER.set(0);
            let bits = |v: &[T]| v.iter().map(|x| x.to_f64().to_bits()).collect::<Vec<_>>();
            assert_eq!(bits(&one), bits(&split));
            assert!(one.windows(2).take(n - 1).all(|w| w[0] <= w[1]));
        }
        let dev = Device::new().expect("a device");
        check::<f32>(&dev);
        if dev.supports::<f64>() {
            check::<f64>(&dev);
        }
    }
}
