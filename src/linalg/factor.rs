//! The kernels of the factorization family: host side of shaders/factor.wgsl (specs, keys,
//! parameters, launches). The algorithms that chain them are in [`super::blocked`].

use crate::array::Array;
use crate::device::{Device, Work};
use crate::dtype::{DType, Float};
use crate::error::Result;
use crate::kernel::cache::Key;
use crate::kernel::launch::{Binding, Params, MAX_GROUPS};
use crate::kernel::source::Spec;

const SRC: &str = include_str!("../../shaders/factor.wgsl");
/// Invocations per workgroup (a power of two: the pivot search reduces in halves).
pub(crate) const WG: u32 = 256;

/// Flags of shaders/factor.wgsl.
pub(crate) const LOWER: u32 = 1;
pub(crate) const UNIT: u32 = 2;
pub(crate) const TRANS: u32 = 4;
pub(crate) const SELF: u32 = 8;
pub(crate) const REVERSE: u32 = 16;
pub(crate) const ASSIGN: u32 = 32;

/// Parameters of one dispatch; shaders/factor.wgsl reads them through the accessors named
/// after the fields.
#[derive(Debug, Clone, Copy, Default)]
pub(crate) struct FParams {
    pub rows: usize,
    pub cols: usize,
    pub k0: usize,
    pub wdt: usize,
    pub c0: usize,
    pub ncols: usize,
    pub an: usize,
    pub kmax: usize,
    pub count: usize,
    pub flags: u32,
    pub r0: usize,
    pub nrows: usize,
}

impl FParams {
    pub(crate) fn encode(&self) -> Params {
        let mut p = Params::new(0);
        p.shape = [
            self.rows, self.cols, self.k0, self.wdt, self.c0, self.ncols, self.an, self.kmax,
        ]
        .map(|v| v as u32);
        p.strides[0][0] = self.count as u32;
        p.strides[0][1] = self.flags;
        p.strides[0][2] = self.r0 as u32;
        p.strides[0][3] = self.nrows as u32;
        p
    }
}

/// The kernel's entries.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Entry {
    LuPanel,
    TrsmBlock,
    SubBlock,
    CholDiag,
    Permute,
    TriInv,
}

impl Entry {
    #[cfg(test)]
    const ALL: [Entry; 6] = [
        Entry::LuPanel,
        Entry::TrsmBlock,
        Entry::SubBlock,
        Entry::CholDiag,
        Entry::Permute,
        Entry::TriInv,
    ];
    fn name(self) -> &'static str {
        match self {
            Entry::LuPanel => "lu_panel",
            Entry::TrsmBlock => "trsm_block",
            Entry::SubBlock => "sub_block",
            Entry::CholDiag => "chol_diag",
            Entry::Permute => "permute",
            Entry::TriInv => "tri_inv",
        }
    }
}

pub(crate) fn spec(d: DType) -> Spec {
    let s = Spec::new("factor", SRC)
        .alias("T", d.wgsl())
        .scalar(d)
        .writable_last_input();
    if d == DType::F64 {
        s.alias("TW", "f64")
            .import("f64_math")
            .function("div_", "fn div_(x: T, y: T) -> T { return div64_(x, y); }")
            .function("sqrt_", "fn sqrt_(x: T) -> T { return sqrt64_(x); }")
    } else {
        s
    }
}

/// Every variant, for the shader validation test (with shaders/factor_read.wgsl's).
#[cfg(test)]
pub(crate) fn all_specs() -> Vec<Spec> {
    let mut v = vec![spec(DType::F32), spec(DType::F64)];
    v.extend(super::factor_read::all_specs());
    v
}

/// The grid of `x` workgroups per matrix for `count` matrices (folded into y and z).
pub(super) fn grid(x: usize, count: usize) -> Work {
    let y = count.min(MAX_GROUPS as usize).max(1);
    let z = count.div_ceil(y);
    Work::Groups([x as u32, y as u32, z as u32])
}

/// The pivots and status word of one call: `count * kmax` pivots (i32), then the status
/// word (i32::MAX: every matrix factored; else the first matrix found singular or not
/// positive definite). Past the slabs' largest slot, so in a pooled buffer of its own,
/// never a slab shared with an array a kernel reads beside it (wgpu forbids one buffer
/// bound read-only and writable in one dispatch).
pub(crate) fn status_array(dev: &Device, pivots: usize) -> Result<Array<i32>> {
    let len = (pivots + 1).max(PAST_SLABS / 4);
    let st = Array::<i32>::alloc(dev, "linalg", vec![len])?;
    let st = st.view(vec![pivots + 1], vec![1], 0);
    st.fill(i32::MAX)?;
    Ok(st)
}

/// Bytes past the slabs' largest slot (`memory::slab::SLAB_MAX`, 4 KiB).
const PAST_SLABS: usize = (4 << 10) + 256;

/// Launches of the family on one device for element type `T`, with the placeholder bound
/// where an entry reads no `a`.
pub(crate) struct Launcher<T: Float> {
    pub(super) dev: Device,
    pub(super) dummy: Array<T>,
}

impl<T: Float> Launcher<T> {
    pub(crate) fn new(dev: &Device) -> Result<Launcher<T>> {
        // Never read: uninitialised, in a buffer of its own (past the slabs), so that it
        // shares no buffer with the arrays written beside it.
        let len = PAST_SLABS / T::DTYPE.size();
        Ok(Launcher {
            dev: dev.clone(),
            dummy: Array::<T>::alloc(dev, "linalg", vec![len])?,
        })
    }

    /// Dispatches `entry` over `work`, reading `a` (or the placeholder), `st` (the pivots
    /// and status, or `out` itself where the entry uses none) and writing `out`.
    /// Invocations of the LU panel's workgroup for panels of `rows` rows: a power of two,
    /// more for taller panels (the panel is the critical path), within the adapter's limit.
    fn panel_wg(&self, rows: usize) -> u32 {
        let most = self
            .dev
            .limits()
            .max_compute_invocations_per_workgroup
            .min(1024);
        let want = if rows >= 2048 {
            1024
        } else if rows >= 256 {
            256
        } else {
            64
        };
        let mut wg = 64;
        while wg * 2 <= want.min(most) {
            wg *= 2;
        }
        wg
    }

    fn launch(
        &self,
        entry: Entry,
        p: &FParams,
        a: Option<&Array<T>>,
        st: Option<&Array<i32>>,
        out: &Array<T>,
        work: Work,
    ) -> Result<()> {
        self.launch_wg(entry, p, a, st, out, work, WG)
    }

    #[allow(clippy::too_many_arguments)] // a dispatch's parts, named
    fn launch_wg(
        &self,
        entry: Entry,
        p: &FParams,
        a: Option<&Array<T>>,
        st: Option<&Array<i32>>,
        out: &Array<T>,
        work: Work,
        wg: u32,
    ) -> Result<()> {
        let kernel = ("factor", entry.name(), spec as fn(DType) -> Spec);
        self.launch_in(kernel, p, (a, st), out, work, wg)
    }

    /// Dispatches entry `name` of the family `family` (whose spec for a dtype `spec`
    /// makes; shaders/factor.wgsl's parameters and bindings) over `work` in workgroups of
    /// `wg`, reading `a` (or the placeholder) and `st` (or `out` itself), writing `out`.
    pub(super) fn launch_in(
        &self,
        (family, name, spec): (&'static str, &'static str, fn(DType) -> Spec),
        p: &FParams,
        (a, st): (Option<&Array<T>>, Option<&Array<i32>>),
        out: &Array<T>,
        work: Work,
        wg: u32,
    ) -> Result<()> {
        let key = Key {
            family,
            entry: name,
            variant: format!("{:?}", T::DTYPE),
            inputs: 2,
            wg,
            ndim: 0,
            per: 0,
        };
        let k = self.dev.kernel(key, || spec(T::DTYPE))?;
        let a = a.unwrap_or(&self.dummy).binding();
        let s: Binding<'_> = match st {
            Some(s) => s.binding(),
            None => out.binding(),
        };
        self.dev
            .launch(&k, &p.encode(), &[a, s], out.binding(), work)?;
        super::factor_prof::mark(&self.dev, name)
    }

    /// Factors panel [k0, k0 + w) of the LU of `out` ([count, rows, cols]).
    pub(crate) fn lu_panel(&self, p: &FParams, st: &Array<i32>, out: &Array<T>) -> Result<()> {
        let wg = self.panel_wg(p.rows - p.k0);
        self.launch_wg(Entry::LuPanel, p, None, Some(st), out, grid(1, p.count), wg)
    }

    /// Solves the diagonal block at k0 (of `a`, or of `out` with SELF) into columns
    /// [c0, c0 + ncols) of `out`.
    pub(crate) fn trsm_block(
        &self,
        p: &FParams,
        a: Option<&Array<T>>,
        out: &Array<T>,
    ) -> Result<()> {
        let x = p.ncols.div_ceil(WG as usize);
        self.launch(Entry::TrsmBlock, p, a, None, out, grid(x, p.count))
    }

    /// `out[r0.., c0..] -= t` for the contiguous `[count, nrows, ncols]` product `t`.
    pub(crate) fn sub_block(&self, p: &FParams, t: &Array<T>, out: &Array<T>) -> Result<()> {
        let n = p.count * p.nrows * p.ncols;
        self.launch(
            Entry::SubBlock,
            p,
            Some(t),
            None,
            out,
            Work::Items(n as u32),
        )
    }

    pub(crate) fn chol_diag(&self, p: &FParams, st: &Array<i32>, out: &Array<T>) -> Result<()> {
        self.launch(Entry::CholDiag, p, None, Some(st), out, grid(1, p.count))
    }

    pub(crate) fn permute(&self, p: &FParams, st: &Array<i32>, out: &Array<T>) -> Result<()> {
        let x = p.cols.div_ceil(WG as usize);
        self.launch(Entry::Permute, p, None, Some(st), out, grid(x, p.count))
    }

    /// The inverses of the `ceil(nrows / wdt)` diagonal blocks from `k0` of op(A) for the
    /// matrices of `a` into `out` (`[count, blocks, wdt, wdt]`).
    pub(crate) fn tri_inv(&self, p: &FParams, a: &Array<T>, out: &Array<T>) -> Result<()> {
        debug_assert!(p.wdt as u32 <= WG);
        let blocks = p.nrows.div_ceil(p.wdt);
        self.launch(Entry::TriInv, p, Some(a), None, out, grid(blocks, p.count))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_entry_has_a_name_in_the_shader() {
        for e in Entry::ALL {
            assert!(SRC.contains(&format!("fn {}(", e.name())), "{e:?}");
        }
    }
}
