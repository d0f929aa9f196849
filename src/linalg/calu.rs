//! Tournament pivoting (CALU's TSLU) for the blocked LU's panels: host side of
//! shaders/calu.wgsl, chosen by the measuring switch `GPUARRAY_FACTOR_CALU` (default off).
//!
//! The register panel of [`super::factor_reg`] factors a panel in one workgroup, a serial
//! chain of barriers and workgroup-memory reductions a column on one multiprocessor: on
//! the H200 (2026-11-29, `GPUARRAY_FACTOR_PROFILE`) 51.6 of a 4096 f32 LU's 65.6 ms,
//! ~12.6 us a column. Here a panel of `wdt` (at most [`super::blocked::NB`]) columns and
//! `rows - k0` rows takes:
//! - levels of `tslu`, each over many workgroups: workgroup b factors its `B` candidate rows
//!   (the panel's rows in blocks of `B` at the first level, then the picks of `B / wdt`
//!   workgroups of the level before) with partial pivoting and passes on the `wdt` rows it
//!   picked; the last level (one workgroup) picks the panel's pivots, writes them as
//!   LAPACK's swaps, and writes the picked rows' LU (L11 and U11) and the displaced rows'
//!   panel columns. Levels: 1 + ceil(log_{B / wdt}(rows / B)): 3 at 4096 rows with B = 256;
//! - `tslu_swap`: the other columns' rows swapped (one dispatch);
//! - `tslu_apply`: L21 = A21 U11^-1 (one invocation a row, over the whole GPU).
//!
//! So a panel is some 5 dispatches, whose serial chains are `wdt` columns of a `B`-row
//! block per level, against the register panel's 3 dispatches a sub-panel of 8-32
//! columns, each a chain of `rows`-row columns. Where the panel has at most `B` rows it is
//! one level: partial pivoting itself (ties to the lowest row of the matrix before the
//! panel's swaps; LAPACK's to the lowest position, which may differ after a swap). Taller
//! panels get pivots that are not partial pivoting's (|l| may exceed 1; CALU's growth is
//! bounded and stable in practice: Grigori, Demmel, Xiang 2011): P A = L U still holds,
//! to the backward error tests/linalg_factor_calu.rs bounds.
//!
//! Measured on the H200 (2026-11-29, `examples/factor_probe` with `GPUARRAY_FACTOR_PROFILE`,
//! the first form: each column picked from the row by a chain of 64 compares and selects,
//! the pivot search's workgroup-memory loops not unrolled): correct (solve backward error
//! 4.4e-3 n eps f32, 3.8e-3 f64 at 4096) but slower than the register panel: LU f32 4096
//! 73.2 ms (tslu 52.2 ms in 172 dispatches, ~4.7 us a column of a 256-row block; tslu_apply
//! 10.7 ms, 170 us a panel; tslu_swap 1.6) against 66.0 (lu_reg 51.7, swap_rows 3.1,
//! rank_update 2.5); f64 86.0 against 69.5; 1024 f32 12.6 against 10.4; blocks of 512: f32
//! 4096 66.0 (tslu 44.8 ms in 120 dispatches). Its SASS: no spills (no LDL/STL), the
//! column step a serial chain: the 64-deep select chain (FSEL after FSEL), then two loops
//! of dependent workgroup-memory loads (8 and 32 steps) and three barriers. This form
//! picks the column by a tree of selects on j's bits (depth 6) and unrolls both loops of
//! the search (their loads issued together): the same bits, unmeasured.
//!
//! A column whose candidates are all zero picks a zero pivot (the status word reports the
//! matrix singular, as LAPACK's zero pivot); a NaN candidate loses to every number and
//! wins over none (a column of NaN picks its lowest row).

use super::factor::{grid, FParams, Launcher};
use crate::array::Array;
use crate::device::DeviceKind;
use crate::dtype::{DType, Float};
use crate::error::Result;
use crate::kernel::cache::Key;
use crate::kernel::source::Spec;

const SRC: &str = include_str!("../../shaders/calu.wgsl");

/// Widest panel of the kernels (their `W`).
const W: usize = 64;
const _: () = assert!(super::blocked::NB <= W);

/// Invocations of `tslu_swap` (at least 2 W: one per destination of the swaps).
const SWAP_WG: u32 = 128;
const _: () = assert!(SWAP_WG as usize >= 2 * W);

/// Invocations of `tslu_apply` (a row each): small, to spread the rows over many
/// multiprocessors.
const APPLY_WG: u32 = 64;

/// Flags of shaders/calu.wgsl's `tslu`.
const FIRST: u32 = 1;
const LAST: u32 = 2;

/// Rows of a `tslu` block for the measuring switch's value `v` (`GPUARRAY_FACTOR_CALU`):
/// 0 off; 1 the default block of 256; else 128, 256 or 512 (the nearest power of two
/// within those).
fn block_for(v: usize) -> Option<u32> {
    match v {
        0 => None,
        1 => Some(256),
        v => Some(v.next_power_of_two().clamp(128, 512) as u32),
    }
}

/// The switch `GPUARRAY_FACTOR_CALU` (read once through `config::switch`): `None` (off,
/// the default: the register panel) or the rows of a `tslu` block.
fn choice() -> Option<u32> {
    static C: std::sync::OnceLock<Option<u32>> = std::sync::OnceLock::new();
    *C.get_or_init(|| crate::config::switch("GPUARRAY_FACTOR_CALU").and_then(block_for))
}

/// The rows of a `tslu` block for `T` on `l`'s device: the switch's, at most the
/// adapter's invocations a workgroup, and at most 256 for f64 (a row of 64 values is 128
/// registers an invocation; 65,536 a multiprocessor on NVIDIA).
fn block<T: Float>(l: &Launcher<T>, want: u32) -> u32 {
    let most = l.dev.limits().max_compute_invocations_per_workgroup;
    let mut b = want.min(if T::DTYPE == DType::F64 { 256 } else { 512 });
    while b > 64 && b > most {
        b /= 2;
    }
    b
}

fn spec(d: DType, unroll: bool) -> Spec {
    let sp = Spec::new("calu", SRC)
        .alias("T", d.wgsl())
        .scalar(d)
        .writable_last_input();
    let sp = if unroll { sp.unroll("W", W as u32) } else { sp };
    if d != DType::F64 {
        return sp;
    }
    sp.alias("TW", "f64")
        .import("f64_math")
        .function("div_", "fn div_(x: T, y: T) -> T { return div64_(x, y); }")
}

/// Every variant, for the shader validation test.
#[cfg(test)]
pub(crate) fn all_specs() -> Vec<Spec> {
    let mut v = Vec::new();
    for d in [DType::F32, DType::F64] {
        for unroll in [true, false] {
            v.push(spec(d, unroll));
        }
    }
    v
}

/// A new i32 array of `len` elements in a pooled buffer of its own (past the slabs'
/// largest slot, as `factor::status_array`), so that two of them are never one buffer
/// bound read-only and writable in one dispatch.
fn scratch<T: Float>(l: &Launcher<T>, len: usize) -> Result<Array<i32>> {
    let past = ((4 << 10) + 256) / 4;
    let a = Array::<i32>::alloc(&l.dev, "linalg", vec![len.max(past)])?;
    Ok(a.view(vec![len.max(1)], vec![1], 0))
}

/// Records entry `entry` over `groups` workgroups of `wg` per matrix, binding `cin` (or
/// the placeholder), `st` and `out`.
#[allow(clippy::too_many_arguments)] // a dispatch's parts, named
fn launch<T: Float>(
    l: &Launcher<T>,
    entry: &'static str,
    wg: u32,
    p: &FParams,
    cin: Option<&Array<i32>>,
    st: &Array<i32>,
    out: &Array<T>,
    groups: usize,
) -> Result<()> {
    // Unrolled on GPUs; on CPU adapters too with GPUARRAY_FACTOR_UNROLL_CPU=1 (to check the
    // GPUs' text on lavapipe).
    let unroll = l.dev.info().kind != DeviceKind::Cpu || super::factor_reg::unroll_on_cpu();
    let key = Key {
        family: "calu",
        entry,
        variant: format!("{:?} unroll {unroll}", T::DTYPE),
        inputs: 2,
        wg,
        ndim: 0,
        per: 0,
    };
    let k = l.dev.kernel(key, || spec(T::DTYPE, unroll))?;
    let a = match cin {
        Some(c) => c.binding(),
        None => l.dummy.binding(),
    };
    l.dev.launch(
        &k,
        &p.encode(),
        &[a, st.binding()],
        out.binding(),
        grid(groups, p.count),
    )?;
    super::factor_prof::mark(&l.dev, entry)
}

/// Factors the LU panel `p` (columns [k0, k0 + wdt) of the [count, rows, cols] stack
/// `out`, rows from k0 down) by tournament pivoting, its pivots to `st`, swaps the rows of
/// every other column, and returns `true`; `false` (nothing recorded) where the switch
/// `GPUARRAY_FACTOR_CALU` leaves it off.
pub(crate) fn lu_panel<T: Float>(
    l: &Launcher<T>,
    p: &FParams,
    st: &Array<i32>,
    out: &Array<T>,
) -> Result<bool> {
    let Some(want) = choice() else {
        return Ok(false);
    };
    let b = block(l, want);
    let (rows, w) = (p.rows - p.k0, p.wdt);
    debug_assert!((1..=W).contains(&w) && w <= rows);
    // Candidates a matrix passes from one level to the next: at most the first level's
    // picks.
    let cap = rows.div_ceil(b as usize) * w;
    let (mut cin, mut cout) = if rows > b as usize {
        (scratch(l, p.count * cap)?, Some(scratch(l, p.count * cap)?))
    } else {
        (scratch(l, 1)?, None)
    };
    let mut ents = rows;
    let mut first = true;
    loop {
        let groups = ents.div_ceil(b as usize);
        let last = groups == 1;
        let q = FParams {
            flags: (if first { FIRST } else { 0 }) | (if last { LAST } else { 0 }),
            nrows: ents,
            an: cap,
            c0: cap,
            ..*p
        };
        let to = if last {
            st
        } else {
            cout.as_ref().expect("a level's picks")
        };
        let from = (!first).then_some(&cin);
        launch(l, "tslu", b, &q, from, to, out, groups)?;
        if last {
            break;
        }
        ents = groups * w;
        first = false;
        let next = cout.take().expect("a level's picks");
        cout = Some(std::mem::replace(&mut cin, next));
    }
    if p.cols > w {
        let x = p.cols.div_ceil(SWAP_WG as usize);
        launch(l, "tslu_swap", SWAP_WG, p, None, st, out, x)?;
    }
    if rows > w {
        let x = (rows - w).div_ceil(APPLY_WG as usize);
        launch(l, "tslu_apply", APPLY_WG, p, None, st, out, x)?;
    }
    Ok(true)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_entry_is_in_the_shader() {
        for e in ["tslu", "tslu_swap", "tslu_apply"] {
            assert!(SRC.contains(&format!("fn {e}(")), "{e}");
        }
    }

    #[test]
    fn the_switch_picks_a_block() {
        assert_eq!(block_for(0), None);
        assert_eq!(block_for(1), Some(256));
        assert_eq!(block_for(100), Some(128));
        assert_eq!(block_for(256), Some(256));
        assert_eq!(block_for(300), Some(512));
        assert_eq!(block_for(5000), Some(512));
    }
}
