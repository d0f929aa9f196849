//! eigh of stacks of small symmetric matrices (`n <= 32`): the host side of
//! shaders/eig_small.wgsl, one-sided Jacobi with one invocation per column.
//!
//! The spectral family's `small` kernel (shaders/spectral.wgsl, reached through
//! jacobi.rs) runs a matrix in a workgroup of 64 with W and V^T in workgroup memory: each
//! invocation of a pair loops over the pair's rows, 2 n reads and 2 n writes of workgroup
//! memory per rotation and a barrier per round, and fills only n / 2 of its 64
//! invocations; and around it six more dispatches (`init`, `prep_eigh`, `rank`, `values`,
//! `gather_v`, `check`). Here lane k of a matrix's G lanes (n rounded up to even, then to a
//! power of two) holds column k of W and of V in registers (private arrays indexed by
//! constants after unrolling): a round is n shuffles of W, 2 n multiply-adds for the dot
//! products, the rotation, 2 n for W's update, and n shuffles and 2 n multiply-adds for
//! V's, with no barrier (`eig_sg`, where the smallest subgroup holds G lanes: on an H200
//! every n <= 32, a matrix per subgroup of 32 at n = 32, four at n = 8); elsewhere the
//! columns pass through workgroup memory (`eig_wg`, two barriers per exchange). The same
//! kernel forms B = A + sigma I from A, ranks the eigenvalues and writes them and the
//! vectors in order; a second dispatch (`check`) finds the first matrix not converged.
//! svd_small.rs runs the same kernel for svd with W = A (`svd()` in the text: columns of
//! `p` elements on `n` lanes, U = W / S written beside V).
//!
//! Measuring switch `GPUARRAY_EIG_SMALL` (read once through `config::switch`): 0 the
//! spectral family's `small` kernel (as before), 2 `eig_wg` even where subgroups would
//! serve, 3 `eig_sg` shuffling the partner's column of W twice a round rather than holding
//! it (n fewer values a lane: a candidate for f64 at n = 32, where holding takes 223
//! registers on the H200, 8 warps a multiprocessor); anything else (the default) as above.

use super::jacobi::{eps, max_sweeps};
use crate::array::Array;
use crate::device::{Device, Work};
use crate::dtype::{DType, Float};
use crate::error::{Error, Result};
use crate::kernel::cache::Key;
use crate::kernel::launch::Params;
use crate::kernel::source::Spec;

const SRC: &str = include_str!("../../../shaders/eig_small.wgsl");
/// Largest order the kernels take.
pub(crate) const MAX_N: usize = 32;
/// Most workgroups in one grid dimension.
const MAX_GROUPS: usize = 65_535;
/// Invocations of `check` (its `firsts` holds 256).
const CHECK_WG: u32 = 256;

/// How the columns of a matrix pass between its lanes.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Exchange {
    /// Subgroup shuffles (`eig_sg`).
    Subgroup,
    /// Workgroup memory and barriers (`eig_wg`).
    Workgroup,
}

/// How a stack of matrices runs: `n` columns of `p` elements (eigh: `p = n`), `g` lanes a
/// matrix, workgroups of `wg`.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) struct Plan {
    pub n: usize,
    pub p: usize,
    pub g: usize,
    pub wg: usize,
    pub exchange: Exchange,
    /// `eig_sg` holds the partner's column of W from the dot product to the update (else
    /// shuffles it again).
    pub hold: bool,
}

/// The measuring switch `GPUARRAY_EIG_SMALL` (0 old kernel, 2 workgroup exchange), read once.
fn switch() -> Option<usize> {
    static ON: std::sync::OnceLock<Option<usize>> = std::sync::OnceLock::new();
    *ON.get_or_init(|| crate::config::switch("GPUARRAY_EIG_SMALL"))
}

/// Lanes of a matrix of order `n`: n rounded up to even, then to a power of two.
fn lanes(n: usize) -> usize {
    (n + (n & 1)).next_power_of_two()
}

/// The plan for eigh of `n x n` matrices on `dev`, or `None` where the spectral family's
/// `small` kernel runs them instead (`n` past [`MAX_N`], the switch at 0, or too little
/// workgroup memory for `eig_wg`).
pub(crate) fn plan<T: Float>(dev: &Device, n: usize) -> Option<Plan> {
    let choice = switch();
    if choice == Some(0) {
        return None;
    }
    plan_for::<T>(dev, n, n, choice)
}

/// The plan for `n` columns of `p` elements (`1 <= n <= p <= MAX_N`), with the exchange
/// `choice` (2 workgroup memory, 3 `eig_sg` without holding W, else the default), or
/// `None` where the sizes are out of range or `eig_wg` would need too much workgroup
/// memory.
pub(crate) fn plan_for<T: Float>(
    dev: &Device,
    p: usize,
    n: usize,
    choice: Option<usize>,
) -> Option<Plan> {
    if n == 0 || n > p || p > MAX_N {
        return None;
    }
    let g = lanes(n);
    let i = dev.info();
    let (lo, hi) = (i.subgroup_min_size as usize, i.subgroup_max_size as usize);
    let sizes_ok = lo.is_power_of_two() && hi.is_power_of_two() && lo >= g && hi <= 128;
    let sg = dev.options().tuning.subgroups && dev.has_subgroups() && sizes_ok;
    if sg && choice != Some(2) {
        return Some(Plan {
            n,
            p,
            g,
            wg: hi.max(64),
            exchange: Exchange::Subgroup,
            hold: choice != Some(3),
        });
    }
    let wg = 64;
    let bytes = wg * (p + 1) * T::DTYPE.size() + 4;
    (bytes as u64 <= u64::from(dev.limits().max_compute_workgroup_storage_size)).then_some(Plan {
        n,
        p,
        g,
        wg,
        exchange: Exchange::Workgroup,
        hold: true,
    })
}

/// The text of one exchange's kernel: the other's section left out.
fn source(exchange: Exchange) -> String {
    let (keep, drop) = match exchange {
        Exchange::Subgroup => ("sg", "wg"),
        Exchange::Workgroup => ("wg", "sg"),
    };
    let mut out = String::with_capacity(SRC.len());
    let mut skipping = false;
    for line in SRC.lines() {
        let t = line.trim();
        if t == format!("//@{drop}-begin") {
            skipping = true;
        } else if t == format!("//@{drop}-end") {
            skipping = false;
        } else if !skipping && t != format!("//@{keep}-begin") && t != format!("//@{keep}-end") {
            out.push_str(line);
            out.push('\n');
        }
    }
    out
}

/// The kernel's source for dtype `d`, the plan `p`, whether V is kept and whether it runs
/// svd (else eigh).
pub(crate) fn spec(d: DType, p: &Plan, has_v: bool, svd: bool, int64: bool) -> Spec {
    let t = d.wgsl();
    let (n, rows) = (p.n, p.p);
    let spec = Spec::new("eig_small", source(p.exchange));
    // NaN and infinity from the bits where the type's width has an integer type.
    let bits = match d {
        DType::F32 => Some(("u32", "0x7fffffffu", "0x7f800000u", "0x7fc00000u")),
        DType::F64 if int64 => Some((
            "u64",
            "0x7ffffffffffffffflu",
            "0x7ff0000000000000lu",
            "0x7ff8000000000000lu",
        )),
        _ => None,
    };
    let spec = match bits {
        Some((u, mag, inf, nan)) => spec
            .function(
                "is_nan_t",
                format!(
                    "fn is_nan_t(x: T) -> bool {{ return (bitcast<{u}>(x) & {mag}) > {inf}; }}"
                ),
            )
            .function(
                "magnitude",
                format!(
                    "fn magnitude(x: T) -> T {{ return select(bitcast<T>({nan}), abs(x), \
                     (bitcast<{u}>(x) & {mag}) < {inf}); }}"
                ),
            ),
        None => spec,
    };
    spec.alias("T", t)
        .alias("S", t)
        .alias("SC", t)
        .alias("Col", format!("array<{t}, {rows}>"))
        .alias("VCol", format!("array<{t}, {n}>"))
        .alias("Rows", format!("array<{t}, {}>", p.wg * (rows + 1)))
        .function("order", format!("fn order() -> u32 {{ return {n}u; }}"))
        .function(
            "rows_p",
            format!("fn rows_p() -> u32 {{ return {rows}u; }}"),
        )
        .function("svd", format!("fn svd() -> bool {{ return {svd}; }}"))
        .function("lanes", format!("fn lanes() -> u32 {{ return {}u; }}", p.g))
        .function(
            "paired",
            format!("fn paired() -> u32 {{ return {}u; }}", n + (n & 1)),
        )
        .function("has_v", format!("fn has_v() -> bool {{ return {has_v}; }}"))
        .function(
            "hold_w",
            format!("fn hold_w() -> bool {{ return {}; }}", p.hold),
        )
        .unroll("NR", rows as u32)
        .unroll("NQ", n as u32)
}

/// Every variant, for the shader validation test.
#[cfg(test)]
pub(crate) fn all_specs() -> Vec<Spec> {
    let mut v = Vec::new();
    for d in [DType::F32, DType::F64] {
        for n in 1..=MAX_N {
            for exchange in [Exchange::Subgroup, Exchange::Workgroup] {
                let p = Plan {
                    n,
                    p: n,
                    g: lanes(n),
                    wg: 64,
                    exchange,
                    hold: true,
                };
                v.push(spec(d, &p, true, false, true));
                // f64 without 64-bit integers: NaN by comparison.
                if n % 8 == 5 {
                    v.push(spec(d, &p, true, true, false));
                }
                if n % 8 == 3 {
                    v.push(spec(d, &p, false, false, true));
                    v.push(spec(d, &Plan { hold: false, ..p }, true, false, true));
                }
                // svd: square, and n columns of 32 or of n + 5 elements.
                if n % 4 == 1 || n == MAX_N {
                    v.push(spec(d, &p, true, true, true));
                    v.push(spec(d, &p, false, true, true));
                    for rows in [MAX_N, (n + 5).min(MAX_N)] {
                        v.push(spec(d, &Plan { p: rows, ..p }, true, true, true));
                    }
                }
            }
        }
    }
    v
}

/// The results of [`eigh`] (and svd_small.rs's `svd`): the values `[count, n]` and vectors
/// (views of one buffer), and where the status lies.
pub(crate) struct Small<T: Float> {
    /// Eigenvalues (ascending) or singular values (descending).
    pub w: Array<T>,
    /// eigh's eigenvectors `[count, n, n]`; svd's vectors from V.
    pub v: Option<Array<T>>,
    /// svd's vectors from W.
    pub u: Option<Array<T>>,
    pub(crate) buf: Array<T>,
    pub(crate) status_at: usize,
    pub(crate) sweeps: usize,
}

impl<T: Float> Small<T> {
    /// The status (read back: the host waits for the GPU): the first matrix that did not
    /// converge, as [`Error::NoConvergence`].
    pub(crate) fn check(&self, op: &'static str) -> Result<()> {
        let status = self.buf.view(vec![1], vec![1], self.status_at).to_vec()?[0].to_f64();
        if status >= 0.0 {
            return Err(Error::NoConvergence {
                op,
                index: status as usize,
                iterations: self.sweeps,
            });
        }
        Ok(())
    }
}

/// Runs the family's Jacobi kernel on the `count` matrices of `a` into `buf` by the plan `p`
/// (`params` filled by the caller but for the sweeps), then `check`; returns the sweeps.
pub(crate) fn dispatch<T: Float>(
    a: &Array<T>,
    buf: &Array<T>,
    p: &Plan,
    count: usize,
    vectors: bool,
    svd: bool,
    params: &mut Params,
) -> Result<usize> {
    let dev = a.device();
    let int64 = dev.supports_dtype(DType::I64);
    let sweeps = max_sweeps(T::DTYPE);
    params.shape[2] = sweeps as u32;
    let entry = match p.exchange {
        Exchange::Subgroup => "eig_sg",
        Exchange::Workgroup => "eig_wg",
    };
    let mut variant = format!(
        "{}|{}|{}|{vectors}|{:?}|{}",
        T::DTYPE.wgsl(),
        p.n,
        p.g,
        p.exchange,
        p.hold
    );
    if svd {
        variant = format!("svd|{}|{variant}", p.p);
    }
    let key = |entry, wg| Key {
        family: "eig_small",
        entry,
        variant: variant.clone(),
        inputs: 1,
        wg,
        ndim: 0,
        per: 0,
    };
    let kernel = dev.kernel(key(entry, p.wg as u32), || {
        spec(T::DTYPE, p, vectors, svd, int64)
    })?;
    let groups = count.div_ceil(p.wg / p.g);
    let y = groups.min(MAX_GROUPS);
    let z = groups.div_ceil(MAX_GROUPS);
    let grid = Work::Groups([1, y as u32, z as u32]);
    dev.launch(&kernel, params, &[a.binding()], buf.binding(), grid)?;
    let kernel = dev.kernel(key("check", CHECK_WG), || {
        spec(T::DTYPE, p, vectors, svd, int64)
    })?;
    dev.launch(
        &kernel,
        params,
        &[a.binding()],
        buf.binding(),
        Work::Groups([1, 1, 1]),
    )?;
    Ok(sweeps)
}

/// eigh (or, without `vectors`, eigvalsh) of the `count` matrices of the contiguous `a`
/// (`[count, n, n]` in effect, the triangle `upper` names) by the plan `p`: one dispatch
/// for the eigenvalues and vectors, in order, and one for the status.
pub(crate) fn eigh<T: Float>(
    op: &'static str,
    a: &Array<T>,
    p: &Plan,
    count: usize,
    upper: bool,
    vectors: bool,
) -> Result<Small<T>> {
    let dev = a.device().clone();
    let n = p.n;
    let flag_off = count * n + if vectors { count * n * n } else { 0 };
    let len = flag_off + count + 1;
    let buf = Array::<T>::alloc_with(&dev, op, vec![len], |bytes| {
        dev.alloc_apart(bytes, &[&a.buf])
    })?;
    let tol = eps::<T>() * (n as f64).sqrt() * 2.0;
    let mut params = Params::new(count as u32).scalars(&[T::from_f64(tol)]);
    params.aux = [count as u32, if upper { 2 } else { 0 }];
    params.shape[0] = flag_off as u32;
    let sweeps = dispatch(a, &buf, p, count, vectors, false, &mut params)?;
    let w = buf.view(vec![count, n], vec![n as isize, 1], 0);
    let v = vectors.then(|| {
        buf.view(
            vec![count, n, n],
            vec![(n * n) as isize, n as isize, 1],
            count * n,
        )
    });
    Ok(Small {
        w,
        v,
        u: None,
        buf,
        status_at: flag_off + count,
        sweeps,
    })
}
