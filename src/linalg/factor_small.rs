//! Small-matrix solves: host side of shaders/factor_small.wgsl, one workgroup per matrix of
//! a stack, everything in workgroup memory (the path of [`super::solve`] and
//! [`super::inv`] for matrices up to [`MAX_N`] with up to [`MAX_K`] right-hand sides: one
//! dispatch where the blocked path takes four).

use crate::array::Array;
use crate::device::Work;
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

/// Size classes (largest n and k) and their workgroup sizes.
const CLASSES: [(usize, u32); 3] = [(8, 64), (16, 128), (32, 256)];

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

/// Every variant, for the shader validation test.
#[cfg(test)]
pub(crate) fn all_specs() -> Vec<Spec> {
    let mut v = Vec::new();
    for d in [DType::F32, DType::F64] {
        for (c, _) in CLASSES {
            v.push(spec(d, c));
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
    let p = SmallParams { n, k, count };
    let y = count.min(MAX_GROUPS as usize).max(1);
    let z = count.div_ceil(y);
    let grid = Work::Groups([1, y as u32, z as u32]);
    dev.launch(
        &kernel,
        &p.encode(),
        &[a.binding(), st.binding()],
        b.binding(),
        grid,
    )
}
