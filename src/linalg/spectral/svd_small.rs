//! svd and svdvals of stacks of small matrices (`max(M, N) <= 32`): the eig_small family's
//! kernel (shaders/eig_small.wgsl, one-sided Jacobi with an invocation per column, W and V
//! in registers) with W = A rather than A + sigma I, and the host side of
//! shaders/svd_small.wgsl (`complete`).
//!
//! The spectral family's `small` kernel (jacobi.rs), which ran these before, holds W and
//! V^T of a matrix in workgroup memory, a workgroup of 64 per matrix filled `q / 2` deep,
//! a barrier per round and 2 p reads and writes of workgroup memory per rotation, and
//! around it `init`, `prep_svd`, `rank`, `check`, `values`, `gather_w`, `complete` and
//! `gather_v`: eight dispatches and three passes over the stack besides the sweeps. Here a
//! matrix of `M x N` runs on `q = min(M, N)` lanes, each holding a column of `p = max(M,
//! N)` elements (A's columns where `M >= N`, else its rows: the SVD of A^T, U and V
//! swapped), and one dispatch writes the values in order, V (as Vh's rows, or U's
//! columns) and W / S (U's columns, or Vh's rows); `check` finds the first matrix not
//! converged; `complete` (an invocation per matrix, which returns after reading the last
//! column's first nonzero element where nothing is missing) fills the columns of tiny singular values and, for full matrices,
//! the `p - q` more. Without `compute_uv` neither V nor U is formed or written.
//!
//! Measuring switch `GPUARRAY_SVD_SMALL` (read once through `config::switch`): 0 the
//! spectral family's `small` kernel (as before), 2 `eig_wg` even where subgroups would
//! serve, 3 `eig_sg` shuffling the partner's column of W twice a round (eig_small.rs's
//! `GPUARRAY_EIG_SMALL` values); anything else (the default) the subgroup exchange where
//! the smallest subgroup holds the matrix's lanes, else workgroup memory.

use super::eig_small::{self, Plan, Small};
use super::jacobi::{eps, tiny};
use crate::array::Array;
use crate::device::{Device, Work};
use crate::dtype::{DType, Float};
use crate::error::Result;
use crate::kernel::cache::Key;
use crate::kernel::launch::Params;
use crate::kernel::source::Spec;

const SRC: &str = include_str!("../../../shaders/svd_small.wgsl");
/// Invocations of a `complete` workgroup.
const WG: u32 = 64;

/// The measuring switch `GPUARRAY_SVD_SMALL` (0 old kernel, 2 workgroup exchange, 3 no
/// held W), read once.
fn switch() -> Option<usize> {
    static ON: std::sync::OnceLock<Option<usize>> = std::sync::OnceLock::new();
    *ON.get_or_init(|| crate::config::switch("GPUARRAY_SVD_SMALL"))
}

/// The plan for `m x n` matrices (`q = min(m, n)` columns of `p = max(m, n)`), or `None`
/// where the spectral family's `small` kernel (or its rounds) runs them instead: `p` past
/// 32, an empty matrix, the switch at 0, or too little workgroup memory for `eig_wg`.
pub(crate) fn plan<T: Float>(dev: &Device, m: usize, n: usize) -> Option<Plan> {
    let choice = switch();
    if choice == Some(0) {
        return None;
    }
    eig_small::plan_for::<T>(dev, m.max(n), m.min(n), choice)
}

/// The magnitudes between which a matrix is not scaled: `[sqrt(tiny) / eps, sqrt(max) /
/// 128]` (f32 about 9e-13 and 1.4e17): above, `|W_k|^2` (at most `p q max|a|^2`, p q <=
/// 1024) could overflow; below, the squares of entries `eps max|a|` would leave the normal
/// range.
fn scale_range<T: Float>() -> (f64, f64) {
    let (min, max) = match T::DTYPE {
        DType::F64 => (f64::MIN_POSITIVE, f64::MAX),
        _ => (f32::MIN_POSITIVE as f64, f32::MAX as f64),
    };
    (min.sqrt() / eps::<T>(), max.sqrt() / 128.0)
}

/// The source of `complete` for dtype `d` and columns of `p` elements.
fn spec(d: DType, p: usize) -> Spec {
    let t = d.wgsl();
    Spec::new("svd_small", SRC)
        .alias("T", t)
        .alias("S", t)
        .alias("SC", t)
        .alias("Col", format!("array<{t}, {p}>"))
        .function("rows_p", format!("fn rows_p() -> u32 {{ return {p}u; }}"))
        .unroll("NR", p as u32)
}

/// Every variant, for the shader validation test.
#[cfg(test)]
pub(crate) fn all_specs() -> Vec<Spec> {
    let sizes = 1..=eig_small::MAX_N;
    [DType::F32, DType::F64]
        .into_iter()
        .flat_map(|d| sizes.clone().map(move |p| spec(d, p)))
        .collect()
}

/// The SVD (`uv`) or the singular values of the `count` matrices of the contiguous `a`
/// (`[count, m, n]` in effect) by the plan `p` (from [`plan`]). The result's `w` holds the
/// values `[count, q]` (descending); with `uv`, `v` holds V: Vh `[count, n, n]` where
/// `m >= n`, else U `[count, m, m]`; and `u` holds W / S completed: U `[count, m, c]`
/// where `m >= n`, else Vh `[count, c, n]`, `c` = `max(m, n)` with `full`, else `q`.
#[allow(clippy::too_many_arguments)]
pub(crate) fn svd<T: Float>(
    op: &'static str,
    a: &Array<T>,
    p: &Plan,
    count: usize,
    m: usize,
    n: usize,
    full: bool,
    uv: bool,
) -> Result<Small<T>> {
    let dev = a.device().clone();
    let (rows, q) = (p.p, p.n);
    let tall = m >= n;
    let c = if full { rows } else { q };
    let v_off = count * q;
    let u_off = v_off + if uv { count * q * q } else { 0 };
    let flag_off = u_off + if uv { count * rows * c } else { 0 };
    let len = flag_off + count + 1;
    let buf = Array::<T>::alloc_with(&dev, op, vec![len], |bytes| {
        dev.alloc_apart(bytes, &[&a.buf])
    })?;
    let tol = eps::<T>() * (rows as f64).sqrt() * 2.0;
    let (small, huge) = scale_range::<T>();
    let scalars = [tol, tiny::<T>(), huge, small].map(T::from_f64);
    let mut params = Params::new(count as u32).scalars(&scalars);
    params.aux = [count as u32, u32::from(tall)];
    params.shape[0] = flag_off as u32;
    params.shape[1] = c as u32;
    params.shape[3] = u_off as u32;
    let sweeps = eig_small::dispatch(a, &buf, p, count, uv, true, &mut params)?;
    if uv {
        complete(&dev, &buf, count, rows, q, c, tall, u_off)?;
    }
    let w = buf.view(vec![count, q], vec![q as isize, 1], 0);
    let (v, u) = if uv {
        let v = buf.view(
            vec![count, q, q],
            vec![(q * q) as isize, q as isize, 1],
            v_off,
        );
        let (ur, uc) = if tall { (rows, c) } else { (c, rows) };
        let u = buf.view(
            vec![count, ur, uc],
            vec![(rows * c) as isize, uc as isize, 1],
            u_off,
        );
        (Some(v), Some(u))
    } else {
        (None, None)
    };
    Ok(Small {
        w,
        v,
        u,
        buf,
        status_at: flag_off + count,
        sweeps,
    })
}

/// Launches `complete` over the `count` matrices of `buf` (values at 0, U' at `u_off`).
#[allow(clippy::too_many_arguments)]
fn complete<T: Float>(
    dev: &Device,
    buf: &Array<T>,
    count: usize,
    rows: usize,
    q: usize,
    c: usize,
    tall: bool,
    u_off: usize,
) -> Result<()> {
    let mut params = Params::new(count as u32);
    params.aux = [count as u32, u32::from(tall)];
    params.shape[..4].copy_from_slice(&[0, q as u32, c as u32, u_off as u32]);
    let key = Key {
        family: "svd_small",
        entry: "complete",
        variant: format!("{}|{rows}", T::DTYPE.wgsl()),
        inputs: 0,
        wg: WG,
        ndim: 0,
        per: 0,
    };
    let kernel = dev.kernel(key, || spec(T::DTYPE, rows))?;
    dev.launch(
        &kernel,
        &params,
        &[],
        buf.binding(),
        Work::Items(count as u32),
    )
}
