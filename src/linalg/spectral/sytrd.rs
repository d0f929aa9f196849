//! The blocked reduction to tridiagonal form (LAPACK's dsytrd with dlatrd's panels), the
//! host side of shaders/sytrd.wgsl: the first step of eigh and eigvalsh (tridiag.rs) from
//! [`MIN_N`] on.
//!
//! The unblocked reduction (tridiag.wgsl's `house` and `rank2`) reads and writes the whole
//! trailing matrix at every column. Here a panel of [`NB`] columns is reduced against the
//! trailing matrix as it stood at the panel's start, `A0`, keeping the panel's reflectors
//! `V` and LAPACK's `W` beside it, so that the current trailing matrix is
//! `A0 - V W^T - W V^T`. Per column two dispatches, over the whole stack:
//!
//! - `panel_col` (a workgroup per 256 rows): finishes the previous column's `w` from the
//!   partial sums the previous `panel_gemv` left, updates row k (`A0[k] - V W[k]^T -
//!   W V[k]^T`) and the partial norms of its part past the diagonal;
//! - `panel_gemv` (a workgroup per 16 rows): the reflector from those norms, `y = A0 v`,
//!   the one pass over the trailing matrix per column (16 rows of 32 lanes, four loads in
//!   flight per lane), and partial sums `V^T v`, `W^T v`, `y^T v` over its rows.
//!
//! After the panel, `A0 -= [V W] [W V]^T` is ONE product of inner dimension `2 NB` through
//! the library's matmul (both operands views of one buffer, no copy) and one subtraction.
//! The product is over the whole trailing block, not its lower triangle: the library's
//! products have no triangular output, a syr2k-shaped split (diagonal blocks plus
//! rectangles) would cost a dispatch per block row, and its flops (`4 n^3 / 3` in all,
//! twice a syr2k's) are a few milliseconds at the product rate at 4096; keeping both
//! triangles also lets `panel_gemv` read whole rows, contiguous, rather than a row to the
//! diagonal and a column after it.
//!
//! Bytes: per column the trailing block read once (`n^3 / 3` elements in all, against `n^3`
//! for the unblocked kernels, which read it twice and write it once, and whose every
//! workgroup also re-reads row k and p, v: `4 n^3 / 3` more, mostly from cache); per panel
//! the product's output written and read and the block read and written
//! (`4 n^3 / (3 NB)`). Where `n - k <= 512` (`FUSED`) a column is one dispatch,
//! `panel_step`, whose every workgroup forms row k, its reflector and `w_{j-1}` itself:
//! there the column's bytes are few and the dispatch is its cost. Dispatches of the whole
//! reduction (tridiag's `prep` included; the unblocked reduction's `2 n - 2` beside them):
//! 33: 35 (64), 256: 286 (510), 1024: 1646 (2046), 4096: 8078 (8190); per panel 3 more
//! where a trailing block remains (`panel_col` finishing `W`, the product,
//! `panel_update`), one `panel_rows` where a column was fused and one `panel_out` at the end.
//!
//! The output is the unblocked reduction's: d, e and tau in aux's fields, the Householder
//! vectors in the work matrix's rows (row k holds v of H_k past the diagonal), so that
//! bisection, stein and the back-transform read the same.

use super::jacobi::eps;
use crate::array::Array;
use crate::device::{Device, Work};
use crate::dtype::{DType, Float};
use crate::error::Result;
use crate::kernel::cache::Key;
use crate::kernel::launch::{Binding, Params};
use crate::kernel::source::Spec;

const SRC: &str = include_str!("../../../shaders/sytrd.wgsl");
/// Invocations of a workgroup (shaders/sytrd.wgsl's reductions assume 256).
const WG: usize = 256;
/// Columns of a panel (shaders/sytrd.wgsl's NB; its VW rows are 3 NB wide).
pub(crate) const NB: usize = 32;
/// Row stride of VW.
const LD: usize = 3 * NB;
/// Rows of a `panel_gemv` workgroup (shaders/sytrd.wgsl's RB).
const RB: usize = 16;
/// Partial-sum slots per `panel_gemv` workgroup (shaders/sytrd.wgsl's QS).
const QS: usize = 64;
/// Columns with `n - k` at most this (shaders/sytrd.wgsl's XS, row k in workgroup memory)
/// run `panel_step`: `panel_col` and `panel_gemv` in one dispatch, each workgroup forming
/// row k, its norm and `w_{j-1}` at all rows itself (about `4 j (n - k)` reads from cache,
/// against its own 16 rows of the product, `16 (n - k)`), one dispatch per column instead
/// of two where dispatches, not bytes, bound the column.
const FUSED: usize = 512;
/// Most workgroups in one grid dimension.
const MAX_GROUPS: usize = 65_535;

/// The smallest n the blocked reduction takes (every n of the tridiagonal route, 33 on):
/// per column it costs the unblocked reduction's two dispatches, each lighter (the trailing
/// matrix read once, not read twice and written once), so it wins from the first panel
/// with a trailing block; below two panels (n <= 33) the two run the same dispatches but
/// for one `panel_out`.
pub(crate) const MIN_N: usize = 33;

/// The kernel's source for dtype `d`.
fn spec(d: DType) -> Spec {
    let t = d.wgsl();
    Spec::new("sytrd", SRC)
        .alias("T", t)
        .alias("S", t)
        .alias("SC", t)
        .writable_last_input()
}

/// Every variant, for the shader validation test.
#[cfg(test)]
pub(crate) fn all_specs() -> Vec<Spec> {
    vec![spec(DType::F32), spec(DType::F64)]
}

/// Elements of `pan` per matrix (shaders/sytrd.wgsl's `pstride`).
fn pstride(n: usize) -> usize {
    n * LD + 6 * n + 2 * n.div_ceil(RB) * QS + 2 * n.div_ceil(WG)
}

/// The parameters of one dispatch, mirrored by shaders/sytrd.wgsl's accessors.
#[derive(Debug, Clone, Copy, Default)]
struct SParams {
    items: usize,
    count: usize,
    finish: bool,
    n: usize,
    k: usize,
    j: usize,
    gprev: usize,
    ga: usize,
    m2: usize,
    start: usize,
}

impl SParams {
    fn encode<T: Float>(&self) -> Params {
        let big = match T::DTYPE {
            DType::F64 => f64::MAX,
            _ => f32::MAX as f64,
        };
        let mut p = Params::new(self.items as u32).scalars(&[
            T::from_f64(big),
            T::from_f64(eps::<T>()),
            T::from_f64(0.0),
            T::from_f64(0.0),
        ]);
        p.aux = [self.count as u32, u32::from(self.finish)];
        p.shape[0] = self.n as u32;
        p.shape[1] = self.k as u32;
        p.shape[2] = self.j as u32;
        p.shape[4] = self.gprev as u32;
        p.shape[5] = self.ga as u32;
        p.shape[6] = self.m2 as u32;
        p.shape[7] = self.start as u32;
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
    entry: &'static str,
    sp: &SParams,
    src: Binding<'_>,
    pan: Binding<'_>,
    out: Binding<'_>,
    work: Work,
) -> Result<()> {
    let key = Key {
        family: "sytrd",
        entry,
        variant: T::DTYPE.wgsl().to_string(),
        inputs: 2,
        wg: WG as u32,
        ndim: 0,
        per: 0,
    };
    let kernel = dev.kernel(key, || spec(T::DTYPE))?;
    dev.launch(&kernel, &sp.encode::<T>(), &[src, pan], out, work)
}

/// Whether the blocked reduction takes `count` matrices of `n x n`: from [`MIN_N`] on,
/// where its scratch (`pstride(n)` elements per matrix) fits one binding.
pub(crate) fn takes<T: Float>(dev: &Device, count: usize, n: usize) -> bool {
    let bytes = (count * pstride(n) * T::DTYPE.size()) as u64;
    n >= MIN_N && bytes <= dev.limits().max_storage_buffer_binding_size
}

/// Reduces the `count` symmetric matrices of `wk` (`[count, n, n]`, both triangles, as
/// tridiag.rs's `prep` leaves them) to tridiagonal form: d, e and tau into `aux`
/// (tridiag.wgsl's fields), the Householder vectors into `wk`'s rows, as the unblocked
/// reduction leaves them. Nothing is read back.
pub(crate) fn reduce<T: Float>(
    dev: &Device,
    op: &'static str,
    aux: &Array<T>,
    wk: &Array<T>,
    count: usize,
    n: usize,
) -> Result<()> {
    debug_assert!(n >= 2);
    let ps = pstride(n);
    let pan = Array::<T>::alloc_with(dev, op, vec![count * ps], |b| dev.alloc_owned(b))?;
    let placeholder = Array::<T>::alloc(dev, op, vec![1])?;
    let base = SParams {
        count,
        n,
        ..SParams::default()
    };
    let mut p0 = 0;
    while p0 < n - 1 {
        let jb = NB.min(n - 1 - p0);
        let mut fused_any = false;
        for j in 0..jb {
            let k = p0 + j;
            let gb = (n - k - 1).div_ceil(RB);
            if n - k <= FUSED {
                let sp = SParams {
                    k,
                    j,
                    gprev: if j > 0 { (n - k).div_ceil(RB) } else { 0 },
                    ..base
                };
                let (src, pb, out) = (placeholder.binding(), pan.binding(), wk.binding());
                launch::<T>(dev, "panel_step", &sp, src, pb, out, per_matrix(gb, count))?;
                fused_any = true;
                continue;
            }
            let ga = (n - k).div_ceil(WG);
            let sp = SParams {
                k,
                j,
                gprev: if j > 0 { (n - k).div_ceil(RB) } else { 0 },
                ga,
                ..base
            };
            let (src, pb, out) = (placeholder.binding(), pan.binding(), wk.binding());
            launch::<T>(dev, "panel_col", &sp, src, pb, out, per_matrix(ga, count))?;
            let (src, pb, out) = (placeholder.binding(), pan.binding(), wk.binding());
            launch::<T>(dev, "panel_gemv", &sp, src, pb, out, per_matrix(gb, count))?;
        }
        if fused_any {
            let sp = SParams {
                items: count * jb * n,
                m2: jb,
                start: p0,
                ..base
            };
            let (src, pb, out) = (placeholder.binding(), pan.binding(), wk.binding());
            let grid = Work::Items((count * jb * n) as u32);
            launch::<T>(dev, "panel_rows", &sp, src, pb, out, grid)?;
        }
        let s = p0 + jb;
        if s < n - 1 {
            // W's last column, then A0 -= [V W] [W V]^T over the trailing block.
            let sp = SParams {
                k: s,
                j: jb,
                gprev: (n - s).div_ceil(RB),
                ga: (n - s).div_ceil(WG),
                finish: true,
                ..base
            };
            let (src, pb, out) = (placeholder.binding(), pan.binding(), wk.binding());
            let grid = per_matrix(sp.ga, count);
            launch::<T>(dev, "panel_col", &sp, src, pb, out, grid)?;
            let m2 = n - s;
            let vw = pan.view(
                vec![count, m2, 2 * NB],
                vec![ps as isize, LD as isize, 1],
                s * LD,
            );
            let wv_t = pan.view(
                vec![count, 2 * NB, m2],
                vec![ps as isize, 1, LD as isize],
                s * LD + NB,
            );
            let c = vw.matmul(&wv_t)?;
            let sp = SParams {
                items: count * m2 * m2,
                m2,
                start: s,
                ..base
            };
            let (src, pb, out) = (c.binding(), pan.binding(), wk.binding());
            let grid = Work::Items((count * m2 * m2) as u32);
            launch::<T>(dev, "panel_update", &sp, src, pb, out, grid)?;
        }
        p0 = s;
    }
    let sp = SParams {
        items: count * n,
        ..base
    };
    let (src, pb, out) = (pan.binding(), placeholder.binding(), aux.binding());
    launch::<T>(
        dev,
        "panel_out",
        &sp,
        src,
        pb,
        out,
        Work::Items((count * n) as u32),
    )
}
