//! eigvalsh through a tridiagonal reduction: the host side of shaders/tridiag.wgsl.
//!
//! 1. Householder reduction to tridiagonal form, `Q^T A Q = T` (LAPACK's dsytd2), two
//!    dispatches per column over the whole stack: `house` (the reflector, formed again by
//!    each workgroup from row k, and p = tau A v, a workgroup per row) and `rank2`
//!    (A -= v w^T + w v^T, a workgroup per row, each forming p^T v itself). Each step reads
//!    the trailing matrix twice and writes it once: 2 n^3 / 3 elements moved in all.
//! 2. The eigenvalues of T by bisection on Sturm counts, an invocation per eigenvalue
//!    (deterministic, every eigenvalue independent, to a quarter of eps ||T||).
//!
//! The Householder vectors stay in the work matrix's rows (row k holds v of H_k past the
//! diagonal) and tau beside d and e, ready for a back-transform of eigenvectors; eigh
//! stays on one-sided Jacobi (jacobi.rs) until the eigenvectors of T are accurate on
//! degenerate spectra.

use super::jacobi::eps;
use crate::array::Array;
use crate::device::{Device, Work};
use crate::dtype::{DType, Float};
use crate::error::Result;
use crate::kernel::cache::Key;
use crate::kernel::launch::{Binding, Params};
use crate::kernel::source::Spec;

const SRC: &str = include_str!("../../../shaders/tridiag.wgsl");
/// Invocations of a workgroup (a power of two, shaders/tridiag.wgsl's WGMAX at most).
const WG: usize = 256;
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

/// Every variant, for the shader validation test.
#[cfg(test)]
pub(crate) fn all_specs() -> Vec<Spec> {
    vec![spec(DType::F32), spec(DType::F64)]
}

/// The parameters of one dispatch, mirrored by shaders/tridiag.wgsl's accessors.
#[derive(Debug, Clone, Copy, Default)]
struct TParams {
    items: usize,
    count: usize,
    upper: bool,
    n: usize,
    k: usize,
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
        p
    }
}

/// A grid of `x` workgroups per matrix of `count`, the matrices along y (and z past 65,535).
fn per_matrix(x: usize, count: usize) -> Work {
    let y = count.min(MAX_GROUPS);
    let z = count.div_ceil(MAX_GROUPS);
    Work::Groups([x as u32, y as u32, z as u32])
}

fn launch<T: Float>(
    dev: &Device,
    entry: &'static str,
    tp: &TParams,
    src: Binding<'_>,
    aux: Binding<'_>,
    out: Binding<'_>,
    work: Work,
) -> Result<()> {
    let key = Key {
        family: "tridiag",
        entry,
        variant: T::DTYPE.wgsl().to_string(),
        inputs: 2,
        wg: WG as u32,
        ndim: 0,
        per: 0,
    };
    let kernel = dev.kernel(key, || spec(T::DTYPE))?;
    dev.launch(&kernel, &tp.encode::<T>(), &[src, aux], out, work)
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
    let dev = a.device().clone();
    let aux = Array::<T>::alloc_with(&dev, op, vec![5 * count * n], |bytes| {
        dev.alloc_apart(bytes, &[&a.buf])
    })?;
    let wk = Array::<T>::alloc_with(&dev, op, vec![count, n, n], |bytes| {
        dev.alloc_apart(bytes, &[&a.buf, &aux.buf])
    })?;
    let base = TParams {
        count,
        upper,
        n,
        ..TParams::default()
    };
    let tp = TParams {
        items: count * n * n,
        ..base
    };
    let items = Work::Items((count * n * n) as u32);
    launch::<T>(
        &dev,
        "prep",
        &tp,
        a.binding(),
        aux.binding(),
        wk.binding(),
        items,
    )?;
    for k in 0..n - 1 {
        let m = n - k - 1;
        let tp = TParams { k, ..base };
        let grid = per_matrix(m, count);
        launch::<T>(
            &dev,
            "house",
            &tp,
            a.binding(),
            aux.binding(),
            wk.binding(),
            grid,
        )?;
        if m > 1 {
            let grid = per_matrix(m, count);
            launch::<T>(
                &dev,
                "rank2",
                &tp,
                a.binding(),
                aux.binding(),
                wk.binding(),
                grid,
            )?;
        }
    }
    let w = Array::<T>::alloc_with(&dev, op, vec![count, n], |bytes| {
        dev.alloc_apart(bytes, &[&a.buf, &aux.buf, &wk.buf])
    })?;
    let tp = TParams {
        items: count * n,
        ..base
    };
    let grid = Work::Items((count * n) as u32);
    launch::<T>(
        &dev,
        "bisect",
        &tp,
        a.binding(),
        aux.binding(),
        w.binding(),
        grid,
    )?;
    Ok(w)
}
