//! Small-matrix solves: host side of shaders/factor_small.wgsl, the path of
//! [`super::solve`] and [`super::inv`] for matrices up to [`MAX_N`] with up to [`MAX_K`]
//! right-hand sides: one dispatch where the blocked path takes four.
//!
//! Two kernels compute the same LU with partial pivoting (LAPACK getrf's pivots) and the
//! same solutions. `small_solve_reg` (the default) gives each matrix as many invocations as
//! its order's class (8, 16 or 32: one row of A and of B each, in registers) and two
//! barriers a column; `small_solve` (the first kernel, kept for measurements) gives each
//! matrix a workgroup of up to 256 invocations working in workgroup memory, its pivot
//! searched by one invocation over the column (a chain of n dependent reads of workgroup
//! memory) and four barriers a column. The register kernel searches the pivot by subgroup
//! shuffles where a subgroup holds whole matrices (one barrier a column), else in workgroup
//! memory. The measuring switch `GPUARRAY_SMALL_SOLVE` (read once through
//! `config::switch`) selects: 0 the first kernel, 1 the register kernel with its pivot
//! search in workgroup memory, 2 (the default) the register kernel with subgroup shuffles
//! where they fit.
//!
//! Why the register kernel is faster (reasoned, for 10,000 systems of order 32, one
//! right-hand side, f32; the H200 measured the first kernel at 1.095 ms): the first kernel's
//! column costs a serial pivot scan (32 dependent workgroup-memory reads, ~30 cycles each:
//! ~1,000 cycles) and four barriers of 256 invocations, 32 times, and its 256-invocation
//! workgroups (8 KiB of tile each) run at most 8 to an SM, so 10,000 matrices take ~9.5
//! rounds of ~40k cycles. The register kernel's column is two barriers of one 32-invocation
//! workgroup (a single subgroup on NVIDIA), 8 vec4 reads of the candidates and a 32-compare
//! chain, the pivot row's 9 vec4 stores and reads, and 9 vec4 updates in registers: ~300
//! cycles of latency, and workgroups of one subgroup using ~50 registers run up to 32 to an
//! SM, 2.4 rounds. The H200 run of 2026-11-29 (warm, the switch's 0 against its default)
//! put that row at 0.151 ms against 1.075 (f64: 0.425 against 2.78; order 8: 0.024 against
//! 0.083 in f32, 0.046 against 0.109 in f64).

use crate::array::Array;
use crate::device::{DeviceKind, Work};
use crate::dtype::{DType, Float};
use crate::error::Result;
use crate::kernel::cache::Key;
use crate::kernel::launch::{Params, MAX_GROUPS};
use crate::kernel::source::Spec;

const SRC: &str = include_str!("../../shaders/factor_small.wgsl");

/// Largest order and right-hand sides the kernel holds: n * (n + k) elements of workgroup
/// memory (16 KiB in f64 at the largest class).
pub(crate) const MAX_N: usize = 32;
pub(crate) const MAX_K: usize = 32;

/// Size classes (largest n and k) and their workgroup sizes (the first kernel).
const CLASSES: [(usize, u32); 3] = [(8, 64), (16, 128), (32, 256)];

/// The register kernel's invocations a workgroup: one subgroup on NVIDIA (32), holding
/// 32 / R matrices of order class R.
const REG_WG: u32 = 32;

/// The register kernel's order classes (invocations a matrix) and right-hand-side classes
/// (vec4s a row of B).
const REG_N: [usize; 3] = [8, 16, 32];
const REG_KB: [usize; 4] = [1, 2, 4, 8];

/// Which kernel solves: the measuring switch `GPUARRAY_SMALL_SOLVE` (read once): 0 the
/// first kernel (workgroup memory), 1 the register kernel with its pivot search in
/// workgroup memory, anything else or unset (2) the register kernel with the pivot search
/// by subgroup shuffles where [`sg_fits`], else in workgroup memory.
fn mode() -> usize {
    static MODE: std::sync::OnceLock<usize> = std::sync::OnceLock::new();
    *MODE.get_or_init(|| crate::config::switch("GPUARRAY_SMALL_SOLVE").map_or(2, |m| m.min(2)))
}

/// Whether the register kernel's pivot search may use subgroup shuffles for order class
/// `r`: the adapter has subgroups, each of at least `r` invocations (sizes are powers of
/// two, so a subgroup holds whole matrices, aligned), and `Tuning::subgroups` is on.
fn sg_fits(dev: &crate::Device, r: usize) -> bool {
    dev.options().tuning.subgroups
        && dev.has_subgroups()
        && dev.info().subgroup_min_size as usize >= r
}

/// Parameters; shaders/factor_small.wgsl reads them through `order()`, `nrhs()` and
/// `count()`.
struct SmallParams {
    n: usize,
    k: usize,
    count: usize,
}

impl SmallParams {
    fn encode(&self) -> Params {
        let mut p = Params::new(0);
        p.shape[0] = self.n as u32;
        p.shape[1] = self.k as u32;
        p.shape[2] = self.count as u32;
        p
    }
}

fn spec(d: DType, class: usize) -> Spec {
    let tile = format!("array<{}, {}>", d.wgsl(), 2 * class * class);
    let s = Spec::new("factor_small", SRC)
        .alias("T", d.wgsl())
        .alias("V", format!("vec4<{}>", d.wgsl()))
        .scalar(d)
        .alias("Tile", tile)
        .writable_last_input();
    if d == DType::F64 {
        s.alias("TW", "f64")
            .import("f64_math")
            .function("div_", "fn div_(x: T, y: T) -> T { return div64_(x, y); }")
    } else {
        s
    }
}

/// The register kernel for order class `r` (8, 16 or 32) and `kb` vec4s of right-hand
/// sides; its loops unrolled where `unroll` (every private index then a constant:
/// registers), left loops on CPU adapters, whose compilers take far longer over the
/// unrolled text (lavapipe) and have no registers to keep.
fn reg_spec(d: DType, r: usize, kb: usize, sg: bool, unroll: bool) -> Spec {
    let na = r / 4;
    let mpw = REG_WG as usize / r;
    let lr = r.trailing_zeros();
    let src = SRC
        .replace("const R: u32 = 32u;", &format!("const R: u32 = {r}u;"))
        .replace("const NA: u32 = 8u;", &format!("const NA: u32 = {na}u;"))
        .replace("const KB: u32 = 8u;", &format!("const KB: u32 = {kb}u;"))
        .replace("const MPW: u32 = 1u;", &format!("const MPW: u32 = {mpw}u;"))
        .replace("const LR: u32 = 5u;", &format!("const LR: u32 = {lr}u;"))
        .replace(
            "const SG: u32 = 0u;",
            &format!("const SG: u32 = {}u;", u32::from(sg)),
        );
    // The first kernel's tile is not used by this entry point: one element.
    let s = Spec::new("factor_small", src)
        .alias("T", d.wgsl())
        .alias("V", format!("vec4<{}>", d.wgsl()))
        .alias("Tile", format!("array<{}, 1>", d.wgsl()))
        .scalar(d)
        .writable_last_input();
    let s = if sg {
        s.function(
            "xor_t",
            "fn xor_t(x: T, h: u32) -> T { return subgroupShuffleXor(x, h); }",
        )
        .function(
            "xor_u",
            "fn xor_u(x: u32, h: u32) -> u32 { return subgroupShuffleXor(x, h); }",
        )
    } else {
        s
    };
    let s = if unroll {
        s.unroll("R", r as u32)
            .unroll("NA", na as u32)
            .unroll("KB", kb as u32)
            .unroll("LR", lr)
    } else {
        s
    };
    if d == DType::F64 {
        s.alias("TW", "f64")
            .import("f64_math")
            .function("div_", "fn div_(x: T, y: T) -> T { return div64_(x, y); }")
    } else {
        s
    }
}

/// Every variant, for the shader validation test.
#[cfg(test)]
pub(crate) fn all_specs() -> Vec<Spec> {
    let mut v = Vec::new();
    for d in [DType::F32, DType::F64] {
        for (c, _) in CLASSES {
            v.push(spec(d, c));
        }
        // The text differs by class only in its constants and unrolled lengths.
        for r in REG_N {
            for (kb, unroll) in [(1, true), (8, true), (2, false)] {
                for sg in [false, true] {
                    v.push(reg_spec(d, r, kb, sg, unroll));
                }
            }
        }
    }
    v
}

/// Whether the kernel takes `n x n` systems with `k` right-hand sides.
pub(crate) fn fits(n: usize, k: usize) -> bool {
    n <= MAX_N && k <= MAX_K
}

/// Solves the `count` systems `a x = b` (`a` [count, n, n] and `b` [count, n, k],
/// contiguous; `b` becomes `x`), lowering `st[0]` to the first matrix with a zero pivot.
pub(crate) fn solve<T: Float>(
    a: &Array<T>,
    b: &Array<T>,
    st: &Array<i32>,
    (count, n, k): (usize, usize, usize),
) -> Result<()> {
    if mode() > 0 {
        return solve_reg(a, b, st, (count, n, k));
    }
    let m = n.max(k);
    let (class, wg) = CLASSES
        .into_iter()
        .find(|&(c, _)| m <= c)
        .expect("fits() checked the size");
    let dev = &a.dev;
    let key = Key {
        family: "factor_small",
        entry: "small_solve",
        variant: format!("{:?}|{class}", T::DTYPE),
        inputs: 2,
        wg,
        ndim: 0,
        per: 0,
    };
    let kernel = dev.kernel(key, || spec(T::DTYPE, class))?;
    launch_groups(&kernel, SmallParams { n, k, count }, [a, b], st, count)
}

/// [`solve`] by the register kernel: `32 / R` matrices a workgroup of 32 invocations.
fn solve_reg<T: Float>(
    a: &Array<T>,
    b: &Array<T>,
    st: &Array<i32>,
    (count, n, k): (usize, usize, usize),
) -> Result<()> {
    let r = *REG_N
        .iter()
        .find(|&&c| n <= c)
        .expect("fits() checked the order");
    let kb = *REG_KB
        .iter()
        .find(|&&c| k <= 4 * c)
        .expect("fits() checked the right-hand sides");
    let dev = &a.dev;
    let unroll = dev.info().kind != DeviceKind::Cpu;
    let sg = mode() == 2 && sg_fits(dev, r);
    let key = Key {
        family: "factor_small",
        entry: "small_solve_reg",
        variant: format!("{:?}|reg r{r} kb{kb} sg {sg} unroll {unroll}", T::DTYPE),
        inputs: 2,
        wg: REG_WG,
        ndim: 0,
        per: 0,
    };
    let kernel = dev.kernel(key, || reg_spec(T::DTYPE, r, kb, sg, unroll))?;
    let groups = count.div_ceil(REG_WG as usize / r);
    launch_groups(&kernel, SmallParams { n, k, count }, [a, b], st, groups)
}

/// Runs `kernel` over `groups` workgroups (along y, and z past [`MAX_GROUPS`]) on the
/// stack `a` (read), its right-hand sides `b` (written) and the status `st`.
fn launch_groups<T: Float>(
    kernel: &crate::kernel::cache::Kernel,
    p: SmallParams,
    [a, b]: [&Array<T>; 2],
    st: &Array<i32>,
    groups: usize,
) -> Result<()> {
    let y = groups.min(MAX_GROUPS as usize).max(1);
    let z = groups.div_ceil(y);
    let grid = Work::Groups([1, y as u32, z as u32]);
    a.dev.launch(
        kernel,
        &p.encode(),
        &[a.binding(), st.binding()],
        b.binding(),
        grid,
    )
}
