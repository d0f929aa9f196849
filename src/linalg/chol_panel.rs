//! Cholesky's panels in one dispatch: host side of shaders/chol_panel.wgsl, the steps of
//! [`super::blocked::cholesky_in_place`] on it.
//!
//! The blocked Cholesky's step at block k (64 columns) made L21 = A21 L11^-T in four
//! dispatches: shaders/factor.wgsl's `chol_diag` (one workgroup factoring the diagonal
//! block, ~85 us on the H200, 2026-11-29 profile of a 4096 f32 Cholesky), `tri_inv`
//! (~59 us), a product and a copy of it into place (`sub_block`). `chol_panel` does all
//! four in one: each of its workgroups (one per 64 rows of A21) factors the diagonal block
//! and inverts L11 in registers itself, then multiplies its rows by L11^-T; no workgroup
//! writes the diagonal block, which all read, and `chol_diags` writes every diagonal
//! block's factor (and finds the matrices that are not positive definite) in one dispatch
//! after the last step. The trailing update A22 -= L21 L21^T is `chol_update4`, in place on the lower tiles of 64 x 64 only: no product written to be
//! subtracted after (the old `sub_block`, ~2.4 ms of the 4096 f32 call's 14.9 on the
//! H200), half the multiply-adds. A step is then two dispatches, not six.
//!
//! Since session 21 the default panel kernel is `chol_tall` (the measuring switch
//! `GPUARRAY_CHOL_PANEL=0` takes `chol_panel` and `chol_diags` back): each workgroup
//! factors A11 and its own rows of A21 (32 by default) as one unblocked Cholesky, four
//! columns a step, so that its A21 rows come out as L21 with neither L11's inverse nor
//! the product by it: a chain of 16 steps and 64 square roots (f64's reciprocal square
//! root from an f32 seed and two Newton steps) where `chol_panel` had 128 dependent
//! columns (64 of the factor, 64 of the inverse, each with a barrier, and in f64 four
//! `div64_` or `sqrt64_` on it). Measured on the H200 (session 21, 14:20, 64 rows, rows
//! solved by each invocation, profile sums at 4096): `chol_tall` f32 2.99 ms (47 us a
//! dispatch; `chol_panel` in the same binary 4.18), f64 3.99 (63 us; 9.33); cholesky f32
//! 4096 4.94 ms beside CuPy's 4.56 (0.92x), f64 8.08 beside 4.98 (0.62x). `chol_tall_diags`
//! (A11 alone) took ~30 us (f32) and ~43 (f64): most of a dispatch is A11's factor, which
//! every workgroup repeats, as latency (8 warps an SM, 63 workgroups for 132 SMs at 4096).
//! Hence, blind, the defaults since: 32 rows a workgroup ([`chol_tall::rows`]), each
//! step's rows solved once and shared (`GPUARRAY_CHOL_TALL_SHARE`), and the trailing
//! updates in pairs ([`update`], `GPUARRAY_CHOL_PAIR`).
//!
//! The estimate of `chol_panel`, blind (no GPU here): a column of the factor or of the inverse is one
//! barrier, two reads of workgroup memory, a square root and a division (f32), and 16
//! fused multiply-adds per invocation: ~200-300 cycles, ~0.15 us at the H200's clock; 128
//! columns and the 64-deep product (~4 us) make ~25 us a step, against chol_diag's and
//! tri_inv's ~145 us and the product and copy (~25 us) before. The measuring switch
//! `GPUARRAY_CHOL_FUSED` (read once through `config::switch`): 0 takes the four
//! dispatches of before, anything else (the default) this kernel.

use super::factor::{grid, FParams, Launcher};
use crate::array::Array;
use crate::dtype::{DType, Float};
use crate::error::Result;
use crate::kernel::source::Spec;

mod chol_tall;

const SRC: &str = include_str!("../../shaders/chol_panel.wgsl");

/// Invocations of a workgroup: the kernel's 16 x 16 grid, each holding 4 x 4 of the block.
const WG: u32 = 256;

/// The block width the kernel is written for.
pub(crate) const NB: usize = 64;
const _: () = assert!(NB == super::blocked::NB);

/// How the Cholesky steps run (the measuring switch `GPUARRAY_CHOL_FUSED`, read once
/// through `config::switch`).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Steps {
    /// `0`: shaders/factor.wgsl's `chol_diag` and `tri_inv`, a product and its copy for
    /// L21, a product and its subtraction for the trailing update: six dispatches a step.
    Separate,
    /// `1`: L21 by [`panel`], the trailing update by a product and its subtraction.
    Panel,
    /// Any other value (the default): L21 by [`panel`], the trailing update by
    /// [`update`]'s `chol_update4` (4 x 4 adjacent values an invocation, two vec4 reads of
    /// workgroup memory to 16 multiply-adds). A scalar form (4 x 4 values 16 apart, eight
    /// reads to 16 multiply-adds) measured on the H200 (2026-11-29) f32 4096 6.88 ms against
    /// this one's 6.54, 1024 1.35 against 1.29, f64 4096 13.8 against 14.1 (profile sums),
    /// and was removed.
    Update4,
}

/// Which kernel makes L21 and the diagonal blocks' factors (the measuring switch
/// `GPUARRAY_CHOL_PANEL`, read once through `config::switch`): `true` (any value but 0,
/// the default) `chol_tall` and `chol_tall_diags`, `false` (0) `chol_panel` and
/// `chol_diags`.
pub(crate) fn tall() -> bool {
    static S: std::sync::OnceLock<bool> = std::sync::OnceLock::new();
    *S.get_or_init(|| crate::config::switch("GPUARRAY_CHOL_PANEL") != Some(0))
}

/// The steps `GPUARRAY_CHOL_FUSED` selects ([`Steps::Update4`] unless it is 0 or 1).
pub(crate) fn steps() -> Steps {
    static S: std::sync::OnceLock<Steps> = std::sync::OnceLock::new();
    *S.get_or_init(|| match crate::config::switch("GPUARRAY_CHOL_FUSED") {
        Some(0) => Steps::Separate,
        Some(1) => Steps::Panel,
        _ => Steps::Update4,
    })
}

/// `chol_update4` reads each slice of L21 during the previous slice's multiply-adds (the
/// measuring switch `GPUARRAY_CHOL_PREFETCH`, read once: 0 reads it after the previous
/// slice's last barrier, as before; anything else, the default, ahead).
fn prefetch() -> bool {
    static S: std::sync::OnceLock<bool> = std::sync::OnceLock::new();
    *S.get_or_init(|| crate::config::switch("GPUARRAY_CHOL_PREFETCH") != Some(0))
}

/// The family compiled without naga's bounds checks and loop bounding (every index of
/// shaders/chol_panel.wgsl is in bounds by construction: the header says how), unless
/// the measuring switch `GPUARRAY_CHOL_CHECKED` is 1 (read once).
pub(super) fn unchecked() -> bool {
    static S: std::sync::OnceLock<bool> = std::sync::OnceLock::new();
    *S.get_or_init(|| crate::config::switch("GPUARRAY_CHOL_CHECKED") != Some(1))
}

fn spec(d: DType) -> Spec {
    let mut s = Spec::new("chol_panel", SRC)
        .alias("T", d.wgsl())
        .scalar(d)
        .writable_last_input();
    if !prefetch() {
        s = s.function("pf_", "fn pf_() -> bool { return false; }");
    }
    if unchecked() {
        s = s.unchecked();
    }
    if d == DType::F64 {
        s.alias("TW", "f64")
            .import("f64_math")
            .function("div_", "fn div_(x: T, y: T) -> T { return div64_(x, y); }")
            .function("sqrt_", "fn sqrt_(x: T) -> T { return sqrt64_(x); }")
    } else {
        s
    }
}

/// Every variant, for the shader validation test.
#[cfg(test)]
pub(crate) fn all_specs() -> Vec<Spec> {
    vec![
        spec(DType::F32),
        spec(DType::F64),
        chol_tall::spec(DType::F32),
        chol_tall::spec(DType::F64),
    ]
}

/// Rows [k + NB, n) of columns [k, k + NB) of every matrix of `w` ([count, n, n]) become
/// L21 = A21 L11^-T, for the full diagonal block at k (k + NB < n) whose lower triangle
/// holds A11 as the trailing updates left it (unchanged by this dispatch).
pub(crate) fn panel<T: Float>(
    l: &Launcher<T>,
    (count, n): (usize, usize),
    k: usize,
    w: &Array<T>,
    st: &Array<i32>,
) -> Result<()> {
    debug_assert!(k + NB < n);
    let p = FParams {
        rows: n,
        cols: n,
        k0: k,
        wdt: NB,
        count,
        ..FParams::default()
    };
    let x = (n - k - NB).div_ceil(if tall() { chol_tall::rows() } else { NB });
    let kernel = if tall() {
        (
            "chol_tall",
            "chol_tall",
            chol_tall::spec as fn(DType) -> Spec,
        )
    } else {
        ("chol_panel", "chol_panel", spec as fn(DType) -> Spec)
    };
    l.launch_in(kernel, &p, (None, Some(st)), w, grid(x, count), WG)
}

/// Whether steps go in pairs (the measuring switch `GPUARRAY_CHOL_PAIR`, read once: 0
/// takes one full trailing update a step; anything else, the default, pairs them).
fn pair() -> bool {
    static S: std::sync::OnceLock<bool> = std::sync::OnceLock::new();
    *S.get_or_init(|| crate::config::switch("GPUARRAY_CHOL_PAIR") != Some(0))
}

/// The lower tiles of A22 from row and column `from` (n - from rows), as one dispatch's
/// workgroups, where the device dispatches that many along x.
fn lower_tiles<T: Float>(l: &Launcher<T>, n: usize, from: usize) -> Option<usize> {
    let t = (n - from).div_ceil(NB);
    let tiles = t * (t + 1) / 2;
    (tiles <= l.dev.limits().max_compute_workgroups_per_dimension as usize).then_some(tiles)
}

/// The trailing update of the step at block `k` (k + NB < n): A22 -= L21 L21^T on and
/// below the diagonal of every matrix of `w` ([count, n, n]), in place (above it A22
/// keeps its old values: nothing reads them), and `true`; `false`, nothing recorded,
/// where its lower tiles are more workgroups than the device dispatches along x (n past
/// ~23,000).
///
/// Steps go in pairs by default (`GPUARRAY_CHOL_PAIR`): the first step of a pair (block
/// k with k / NB even, k + 2 NB < n) updates only A22's first tile column (the next
/// step's panel: A[k + NB.., k + NB..k + 2 NB], "thin"); the second (k + NB) updates the
/// rest, from row and column k + 2 NB, by both steps' L21 at once (depth 128). The same
/// multiply-adds, but the larger part of A22 is read and written once per two steps, not
/// twice, and its slices' loads and barriers are half as many per multiply-add; the
/// dispatches stay two a step (the thin one is one tile column, t workgroups). Blind
/// (the H200 run of session 21 measured the update at 4.0 ms of f64's 8.1 at 4096).
pub(crate) fn update<T: Float>(
    l: &Launcher<T>,
    (count, n): (usize, usize),
    k: usize,
    w: &Array<T>,
) -> Result<bool> {
    debug_assert!(k + NB < n);
    // Whether blocks b and b + 1 (b even) are a pair: both depth-128 tiles dispatchable.
    let paired = |b: usize| {
        pair()
            && b.is_multiple_of(2 * NB)
            && b + 2 * NB < n
            && lower_tiles(l, n, b + 2 * NB).is_some()
    };
    let (k0, depth, thin, tiles) = if paired(k) {
        (k, NB, 1, (n - k - NB).div_ceil(NB))
    } else if k >= NB && paired(k - NB) {
        let tiles = lower_tiles(l, n, k + NB).expect("paired");
        (k - NB, 2 * NB, 0, tiles)
    } else {
        match lower_tiles(l, n, k + NB) {
            Some(tiles) => (k, NB, 0, tiles),
            None => return Ok(false),
        }
    };
    let p = FParams {
        rows: n,
        cols: n,
        k0,
        wdt: depth,
        count,
        flags: thin,
        ..FParams::default()
    };
    let kernel = ("chol_panel", "chol_update4", spec as fn(DType) -> Spec);
    l.launch_in(kernel, &p, (None, None), w, grid(tiles, count), WG)?;
    Ok(true)
}

/// Every diagonal block of every matrix of `w` ([count, n, n]) factored in place (its
/// lower triangle: L11), the first matrix with a diagonal that is not positive to the
/// status word `st[0]`.
pub(crate) fn diagonals<T: Float>(
    l: &Launcher<T>,
    (count, n): (usize, usize),
    w: &Array<T>,
    st: &Array<i32>,
) -> Result<()> {
    let p = FParams {
        rows: n,
        cols: n,
        count,
        ..FParams::default()
    };
    let kernel = if tall() {
        (
            "chol_tall",
            "chol_tall_diags",
            chol_tall::spec as fn(DType) -> Spec,
        )
    } else {
        ("chol_panel", "chol_diags", spec as fn(DType) -> Spec)
    };
    let x = n.div_ceil(NB);
    l.launch_in(kernel, &p, (None, Some(st)), w, grid(x, count), WG)
}

#[cfg(test)]
mod tests {
    #[test]
    fn every_entry_is_in_the_shader() {
        for e in ["chol_panel", "chol_update4", "chol_diags"] {
            assert!(super::SRC.contains(&format!("fn {e}(")), "{e}");
        }
        for e in ["chol_tall", "chol_tall_diags"] {
            assert!(super::chol_tall::SRC.contains(&format!("fn {e}(")), "{e}");
        }
    }
}
