//! The readers of a finished factorization: host side of shaders/factor_read.wgsl
//! (determinants from an LU, the permutation matrix P from its pivots, a triangle as a new
//! matrix). Split from [`super::factor`], whose parameters ([`FParams`]), bindings and
//! launcher these share.

use super::factor::{FParams, Launcher, WG};
use crate::array::Array;
use crate::device::Work;
use crate::dtype::{DType, Float};
use crate::error::Result;
use crate::kernel::source::Spec;

const SRC: &str = include_str!("../../shaders/factor_read.wgsl");

/// The family's entries.
const ENTRIES: [&str; 3] = ["det", "perm_matrix", "extract"];

pub(crate) fn spec(d: DType) -> Spec {
    let s = Spec::new("factor_read", SRC)
        .alias("T", d.wgsl())
        .scalar(d)
        .writable_last_input();
    if d == DType::F64 {
        s.alias("TW", "f64")
            .import("f64_math")
            .function("log_", "fn log_(x: T) -> T { return log64_(x); }")
            .function("neg_inf_", "fn neg_inf_() -> T { return -inf64_(T(1.0)); }")
    } else {
        s
    }
}

/// Every variant, for the shader validation test.
#[cfg(test)]
pub(crate) fn all_specs() -> Vec<Spec> {
    vec![spec(DType::F32), spec(DType::F64)]
}

impl<T: Float> Launcher<T> {
    fn read(
        &self,
        name: &'static str,
        p: &FParams,
        (a, st): (Option<&Array<T>>, Option<&Array<i32>>),
        out: &Array<T>,
        items: usize,
    ) -> Result<()> {
        debug_assert!(ENTRIES.contains(&name));
        let work = Work::Items(items as u32);
        self.launch_in(("factor_read", name, spec), p, (a, st), out, work, WG)
    }

    /// Sign, log of the magnitude and determinant of each LU of `lu` (pivots `st`) to
    /// `out[3 i..3 i + 3]`.
    pub(crate) fn det(
        &self,
        p: &FParams,
        lu: &Array<T>,
        st: &Array<i32>,
        out: &Array<T>,
    ) -> Result<()> {
        self.read("det", p, (Some(lu), Some(st)), out, p.count)
    }

    /// The permutation matrices of the pivots `st` into `out` (zeros before).
    pub(crate) fn perm_matrix(&self, p: &FParams, st: &Array<i32>, out: &Array<T>) -> Result<()> {
        self.read("perm_matrix", p, (None, Some(st)), out, p.count * p.rows)
    }

    /// A triangle of `src` into `out` (`[count, nrows, ncols]`).
    pub(crate) fn extract(&self, p: &FParams, src: &Array<T>, out: &Array<T>) -> Result<()> {
        let n = p.count * p.nrows * p.ncols;
        self.read("extract", p, (Some(src), None), out, n)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_entry_is_in_the_shader() {
        for e in ENTRIES {
            assert!(SRC.contains(&format!("fn {e}(")), "{e}");
        }
    }
}
