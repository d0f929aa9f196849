//! One-sided (Hestenes) Jacobi on the GPU: the host side of shaders/spectral.wgsl, the
//! engine of `eigh` and `svd`.
//!
//! A stack of matrices becomes W (`q` rows of `p` elements each, the columns to make
//! orthogonal) and V^T (identity); sweeps of rounds of disjoint pair rotations run until no
//! pair needs one, at most [`max_sweeps`] sweeps, each round's kernels returning at once for
//! the matrices already converged (rounds of pairs of rows, or, where the rows split into
//! blocks, rounds of pairs of blocks, each workgroup sweeping its pair's rows: far fewer
//! dispatches). Small matrices (`q <= 32`, W and V^T within 2048
//! elements) run every sweep in one dispatch, a workgroup per matrix, in workgroup memory.
//! Then the row norms S, their order, and one status value read back by the host: the first
//! matrix that did not converge.

use crate::array::Array;
use crate::device::{Device, Work};
use crate::dtype::{DType, Float};
use crate::error::{Error, Result};
use crate::kernel::cache::Key;
use crate::kernel::launch::{Binding, Params};
use crate::kernel::source::Spec;

const SRC: &str = include_str!("../../../shaders/spectral.wgsl");
const WG: usize = 64;
/// Invocations of a `block_round` workgroup: WG / blk per pair of rows.
const BLOCK_WG: usize = 256;
/// Elements of W and V^T the `small` kernel holds (shaders/spectral.wgsl's SMALL).
const SMALL: usize = 2048;
/// Most workgroups in one grid dimension.
const MAX_GROUPS: usize = 65_535;

/// Sweeps before a matrix is declared not converged: one-sided Jacobi converges
/// quadratically once near, typically in 6 to 12 sweeps, graded matrices (condition 1e12) in more than 20.
/// (The rounds of sweeps after convergence still cost a dispatch each, which returns at
/// once: the cap is kept near what ill-conditioned matrices need.)
pub(crate) fn max_sweeps(d: DType) -> usize {
    match d {
        DType::F64 => 30,
        _ => 20,
    }
}

/// The rows of a block of `block_round` for `q` rows, where blocks serve: an even number
/// (at least 4) of blocks of 4 rows (8 from 2048 rows on, for fewer dispatches where the
/// pairs of blocks are enough to fill the GPU). `None`: pairs of rows, `rotate_pairs`.
fn block_size(q: usize) -> Option<usize> {
    let blk = if q >= 2048 { 8 } else { 4 };
    (q >= 64 && q.is_multiple_of(2 * blk)).then_some(blk)
}

/// The kernel's source for dtype `d`.
fn spec(d: DType) -> Spec {
    let t = d.wgsl();
    Spec::new("spectral", SRC)
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

/// What the prepared matrix is.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Prep {
    /// SVD of the input (`trans`: W = A^T, the input's columns; else W = A, its rows).
    Svd { trans: bool },
    /// eigh of the input's triangle (`upper`), shifted by its Frobenius norm.
    Eigh { upper: bool },
}

/// The parameters of one dispatch; shaders/spectral.wgsl reads them through its accessors.
#[derive(Debug, Clone, Copy, Default)]
struct JParams {
    n: usize,
    count: usize,
    flags: u32,
    p: usize,
    q: usize,
    round: usize,
    s_off: usize,
    ctl_off: usize,
    perm_off: usize,
    out_rows: usize,
    out_cols: usize,
    sweeps: usize,
    blk: usize,
    tol: f64,
    tiny: f64,
}

const HAS_V: u32 = 1;
const TRANS: u32 = 2;
const ASCENDING: u32 = 4;

impl JParams {
    fn encode<T: Float>(&self) -> Params {
        let mut p =
            Params::new(self.n as u32).scalars(&[T::from_f64(self.tol), T::from_f64(self.tiny)]);
        p.aux = [self.count as u32, self.flags];
        p.shape = [
            self.p as u32,
            self.q as u32,
            self.round as u32,
            self.s_off as u32,
            self.ctl_off as u32,
            self.perm_off as u32,
            self.out_rows as u32,
            self.out_cols as u32,
        ];
        p.offs[0] = self.sweeps as u32;
        p.offs[1] = self.blk as u32;
        p
    }
}

/// The converged state of a stack: W, S and the order in `work`, V^T in `vt` (when asked).
pub(crate) struct Jacobi<T: Float> {
    dev: Device,
    work: Array<T>,
    vt: Array<T>,
    base: JParams,
    /// Sweeps run at most.
    pub sweeps: usize,
}

/// A grid of `x` workgroups per matrix of `count`, the matrices along y (and z past 65,535).
fn per_matrix(x: usize, count: usize) -> Work {
    let y = count.min(MAX_GROUPS);
    let z = count.div_ceil(MAX_GROUPS);
    Work::Groups([x as u32, y as u32, z as u32])
}

/// Machine epsilon of `T`.
pub(crate) fn eps<T: Float>() -> f64 {
    match T::DTYPE {
        DType::F64 => f64::EPSILON,
        _ => f32::EPSILON as f64,
    }
}

/// The smallest singular value whose row is normalised (below it, `complete` replaces the
/// row): the square root of the smallest normal number, where `alpha` would underflow.
pub(crate) fn tiny<T: Float>() -> f64 {
    match T::DTYPE {
        DType::F64 => f64::MIN_POSITIVE.sqrt(),
        _ => (f32::MIN_POSITIVE as f64).sqrt(),
    }
}

impl<T: Float> Jacobi<T> {
    fn launch(
        &self,
        entry: &'static str,
        jp: &JParams,
        src: Binding<'_>,
        out: Binding<'_>,
        work: Work,
    ) -> Result<()> {
        let key = Key {
            family: "spectral",
            entry,
            variant: T::DTYPE.wgsl().to_string(),
            inputs: 2,
            wg: if entry == "block_round" { BLOCK_WG } else { WG } as u32,
            ndim: 0,
            per: 0,
        };
        let kernel = self.dev.kernel(key, || spec(T::DTYPE))?;
        self.dev.launch(
            &kernel,
            &jp.encode::<T>(),
            &[src, self.vt.binding()],
            out,
            work,
        )
    }

    /// Runs Jacobi on the `count` matrices of `a` (contiguous, `[count, m, n]` in effect):
    /// W is `q` rows of `p`. `want_v` keeps V^T.
    pub(crate) fn run(
        op: &'static str,
        a: &Array<T>,
        count: usize,
        p: usize,
        q: usize,
        prep: Prep,
        want_v: bool,
    ) -> Result<Jacobi<T>> {
        let dev = a.device().clone();
        let nw = count * q * p;
        let s_off = nw;
        let perm_off = s_off + count * q;
        let ctl_off = perm_off + count * q;
        let len = ctl_off + 3 * count + 1;
        let work = Array::<T>::alloc_with(&dev, op, vec![len], |bytes| {
            dev.alloc_apart(bytes, &[&a.buf])
        })?;
        let vt_len = if want_v { (count * q * q).max(1) } else { 1 };
        let vt = Array::<T>::alloc_with(&dev, op, vec![vt_len], |bytes| {
            dev.alloc_apart(bytes, &[&a.buf, &work.buf])
        })?;
        let mut flags = if want_v { HAS_V } else { 0 };
        let (prep_entry, prep_work) = match prep {
            Prep::Svd { trans } => {
                if trans {
                    flags |= TRANS;
                }
                ("prep_svd", Work::Items(nw as u32))
            }
            Prep::Eigh { upper } => {
                if upper {
                    flags |= TRANS;
                }
                flags |= ASCENDING;
                ("prep_eigh", per_matrix(1, count))
            }
        };
        let base = JParams {
            count,
            flags,
            p,
            q,
            s_off,
            ctl_off,
            perm_off,
            tol: eps::<T>() * (p.max(1) as f64).sqrt() * 2.0,
            tiny: tiny::<T>(),
            ..JParams::default()
        };
        let sweeps = max_sweeps(T::DTYPE);
        let j = Jacobi {
            dev,
            work,
            vt,
            base,
            sweeps,
        };
        let w = j.work.binding();
        let init_n = if want_v { count * q * q } else { 0 }.max(2 * count);
        let jp = JParams { n: init_n, ..base };
        j.launch("init", &jp, a.binding(), w, Work::Items(init_n as u32))?;
        let jp = JParams { n: nw, ..base };
        j.launch(prep_entry, &jp, a.binding(), w, prep_work)?;
        let small = q <= 32 && q * (p + q) <= SMALL;
        if small {
            let jp = JParams { sweeps, ..base };
            j.launch("small", &jp, a.binding(), w, per_matrix(1, count))?;
        } else if let Some(blk) = block_size(q) {
            let nb = q / blk;
            for _ in 0..sweeps {
                for r in 0..nb - 1 {
                    let jp = JParams {
                        round: r,
                        blk,
                        ..base
                    };
                    j.launch(
                        "block_round",
                        &jp,
                        a.binding(),
                        w,
                        per_matrix(nb / 2, count),
                    )?;
                }
                let jp = JParams { n: count, ..base };
                j.launch("sweep_end", &jp, a.binding(), w, Work::Items(count as u32))?;
            }
        } else {
            let q2 = q + (q & 1);
            for _ in 0..sweeps {
                for r in 0..q2 - 1 {
                    let jp = JParams { round: r, ..base };
                    j.launch(
                        "rotate_pairs",
                        &jp,
                        a.binding(),
                        w,
                        per_matrix(q2 / 2, count),
                    )?;
                }
                let jp = JParams { n: count, ..base };
                j.launch("sweep_end", &jp, a.binding(), w, Work::Items(count as u32))?;
            }
        }
        if !small {
            j.launch("norms", &base, a.binding(), w, per_matrix(q, count))?;
        }
        let jp = JParams {
            n: count * q,
            ..base
        };
        j.launch("rank", &jp, a.binding(), w, Work::Items((count * q) as u32))?;
        j.launch("check", &base, a.binding(), w, Work::Groups([1, 1, 1]))?;
        Ok(j)
    }

    /// The status (read back: the host waits for the GPU): the first matrix that did not
    /// converge, as [`Error::NoConvergence`].
    pub(crate) fn check(&self, op: &'static str) -> Result<()> {
        let at = self.base.ctl_off + 3 * self.base.count;
        let status = self.work.view(vec![1], vec![1], at).to_vec()?[0].to_f64();
        if status >= 0.0 {
            return Err(Error::NoConvergence {
                op,
                index: status as usize,
                iterations: self.sweeps,
            });
        }
        Ok(())
    }

    /// A new array of `shape` written by `entry` reading the work buffer.
    fn gather(
        &self,
        op: &'static str,
        entry: &'static str,
        shape: Vec<usize>,
        jp: JParams,
    ) -> Result<Array<T>> {
        let dev = &self.dev;
        let out = Array::<T>::alloc_with(dev, op, shape, |bytes| {
            dev.alloc_apart(bytes, &[&self.work.buf, &self.vt.buf])
        })?;
        let n = out.len();
        let jp = JParams { n, ..jp };
        self.launch(
            entry,
            &jp,
            self.work.binding(),
            out.binding(),
            Work::Items(n as u32),
        )?;
        Ok(out)
    }

    /// The values per matrix, `[count, q]`: S descending (svd) or S - sigma ascending (eigh).
    pub(crate) fn values(&self, op: &'static str) -> Result<Array<T>> {
        let b = self.base;
        self.gather(op, "values", vec![b.count, b.q], b)
    }

    /// `[count, rows, p]`: row i the normalised row perm[i] of W (U^T's rows), rows past q
    /// and rows of a too small S completed to an orthonormal set.
    pub(crate) fn u_rows(&self, op: &'static str, rows: usize) -> Result<Array<T>> {
        let b = self.base;
        let jp = JParams {
            out_rows: rows,
            out_cols: b.p,
            ..b
        };
        let out = self.gather(op, "gather_w", vec![b.count, rows, b.p], jp)?;
        let jp = JParams { n: out.len(), ..jp };
        self.launch(
            "complete",
            &jp,
            self.work.binding(),
            out.binding(),
            per_matrix(1, b.count),
        )?;
        Ok(out)
    }

    /// `[count, q, q]`: V^T's rows in the order (`trans`: its transpose, V's columns).
    pub(crate) fn v(&self, op: &'static str, trans: bool) -> Result<Array<T>> {
        let b = self.base;
        let jp = JParams {
            out_rows: b.q,
            out_cols: b.q,
            flags: if trans {
                b.flags | TRANS
            } else {
                b.flags & !TRANS
            },
            ..b
        };
        self.gather(op, "gather_v", vec![b.count, b.q, b.q], jp)
    }
}
