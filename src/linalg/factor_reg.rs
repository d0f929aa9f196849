//! LU panels in registers: host side of shaders/factor_reg.wgsl, and the panel step of
//! [`super::blocked::lu_in_place`] built on it.
//!
//! The blocked LU's panel (up to [`super::blocked::NB`] columns, every row from the
//! diagonal down) is factored in sub-panels of `w` columns. One workgroup per matrix reads
//! a sub-panel once into its invocations' private arrays (`r` rows of `w` columns each),
//! factors it column by column with three barriers a column (one with the subgroup pivot
//! search of [`Pivot`], `GPUARRAY_FACTOR_PIVOT=1`) and no global memory traffic,
//! writes it once, and solves the sub-panel's U12 rows of the block's remaining columns
//! (in registers, L11 in workgroup memory); `swap_rows` swaps the other columns' rows
//! (each column's affected rows read at once, not swap by swap, from a map of the swaps
//! the workgroup builds once), and `rank_update`
//! updates the block's remaining columns below the sub-panel. Three dispatches a
//! sub-panel. Where even `r = 4` rows per invocation of 1024 invocations do not
//! hold the panel (more than 4096 rows), the panel takes shaders/factor.wgsl's `lu_panel`.
//!
//! The shape of a sub-panel (invocations, rows each, width) is a choice of registers: an
//! invocation holds `r * w` values, and a workgroup of `wg` invocations may use at most
//! 65,536 / `wg` 32-bit registers each on NVIDIA's GPUs (the common register file of one
//! multiprocessor). The widest `w` (a power of two from 4 to 32) whose values take at most
//! three quarters of that, and at most 64 values, is taken; the narrowest workgroup among
//! equals (cheaper barriers and pivot searches).

use super::factor::{grid, FParams, Launcher};
use crate::array::Array;
use crate::device::{DeviceKind, Work};
use crate::dtype::{DType, Float};
use crate::error::Result;
use crate::kernel::cache::Key;
use crate::kernel::source::Spec;

const SRC: &str = include_str!("../../shaders/factor_reg.wgsl");

/// Most rows one invocation holds: 8, measured against 4 on the H200 (2026-11-29,
/// `examples/factor_probe`): the same at 1024 (solve f32 10.53 / 10.54 ms), faster at 4096
/// (solve f32 63.8 against 65.9 ms, f64 65.2 against 74.5, inv f64 83.5 against 92.8).
const MAX_R: usize = 8;

/// Invocations of a `swap_rows` workgroup: at least the 2 * 32 destinations of the widest
/// sub-panel's swaps (each found by one invocation).
const SWAP_WG: u32 = 128;
const _: () = assert!(SWAP_WG >= 64);

/// The shape of the register panel: invocations, rows each, columns.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) struct Shape {
    pub wg: u32,
    pub r: u32,
    pub w: usize,
}

/// Rows one invocation may hold at most for [`lu_panel`]: [`MAX_R`], or the measuring
/// switch `GPUARRAY_FACTOR_MAX_R` (1 to 8; read once through `config::switch`). With 8,
/// panels of 3073 to 4096 rows take 512 invocations of 7-8 rows (not 1024 of 4, the same
/// width), and panels of 4097 to 8192 rows (f32; 6144 f64) stay in registers. The H200
/// profile of 2026-11-29 (`GPUARRAY_FACTOR_PROFILE`) put a 1024-invocation sub-panel at
/// ~23 us a column and a 512-invocation one at ~8.
fn max_r() -> usize {
    static R: std::sync::OnceLock<usize> = std::sync::OnceLock::new();
    *R.get_or_init(|| {
        crate::config::switch("GPUARRAY_FACTOR_MAX_R").map_or(MAX_R, |r| r.clamp(1, 8))
    })
}

/// The shape for panels of `rows` rows of `d` on an adapter of at most `most` invocations
/// per workgroup with the default [`MAX_R`]; `None` where no shape holds the panel.
#[cfg(test)]
pub(crate) fn shape(d: DType, rows: usize, most: u32) -> Option<Shape> {
    shape_within(d, rows, most, MAX_R)
}

/// The shape for panels of `rows` rows of `d` on an adapter of at most `most` invocations
/// per workgroup and at most `max_r` rows an invocation; `None` where no shape holds the
/// panel.
pub(crate) fn shape_within(d: DType, rows: usize, most: u32, max_r: usize) -> Option<Shape> {
    let words = d.size() / 4;
    let mut best: Option<Shape> = None;
    let mut wg = 64u32;
    while wg <= most.min(1024) {
        let r = rows.div_ceil(wg as usize).max(1);
        if r <= max_r {
            let regs = (65536 / wg as usize) * 3 / 4;
            let values = (regs / words).min(64);
            let mut w = 32;
            while w >= 4 && r * w > values {
                w /= 2;
            }
            if w >= 4 && best.is_none_or(|b| w > b.w) {
                best = Some(Shape { wg, r: r as u32, w });
            }
        }
        wg *= 2;
    }
    best
}

/// How `lu_reg` searches a column's pivot (the measuring switch `GPUARRAY_FACTOR_PIVOT`,
/// read once through `config::switch`: 1 for [`Pivot::Subgroup`] where the adapter can,
/// else the default [`Pivot::Workgroup`]).
///
/// On the H200 (2026-11-29, `GPUARRAY_FACTOR_PROFILE`) `lu_reg` took 51.6 of a 4096 f32
/// LU's 65.6 ms, ~12.6 us (~25,000 cycles) a column, and ~8.1 us a column at 1024 (8.34
/// ms for 1024 columns), whatever the workgroup (64 to 1024 invocations) and rows an
/// invocation (1 to 8): a serial chain a column, not arithmetic. The workgroup search
/// spends three barriers a column and two serial chains of workgroup memory reads (WG /
/// 32 candidates on 32 invocations, then 32 on every invocation); the subgroup search one
/// barrier and a chain of WG / 32 (NVIDIA) reads. Measured once on the H200 (its first
/// form, branches in the candidate search and the update): `lu_reg` 8.34 -> 5.63 ms at
/// 1024 f32 (~5.5 us a column; the solve's backward error the same), 51.6 -> 44.1 ms at
/// 4096 f32 (~10.8 us a column), but that 4096 solve came out NaN, where lavapipe's
/// subgroups of 8 give the workgroup search's bits. The likely cause, a subgroup
/// reduction reached by a warp not reconverged after the rows' branches (subgroup
/// operations cover the active lanes only), is removed in this form (selects, no branch
/// before the reductions), not measured: hence the default. On lavapipe both searches give
/// the same bits, the loops unrolled as on GPUs too (`GPUARRAY_FACTOR_UNROLL_CPU=1`, up
/// to 3 rows of 16 columns an invocation): the text itself is not the fault.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Pivot {
    /// Candidates through two levels of workgroup memory, then the pivot row broadcast by
    /// its owner: three barriers a column.
    Workgroup,
    /// Each subgroup's winner by subgroup reductions (its row written by its owner to the
    /// subgroup's slot), then every invocation picks the workgroup's winner from the
    /// slots: one barrier a column (two sets of slots, alternate columns). The triangular
    /// solve of the U12 rows unrolled on GPUs (no dynamically indexed private array).
    Subgroup,
}

/// [`Pivot::Subgroup`] where `GPUARRAY_FACTOR_PIVOT` is 1, else [`Pivot::Workgroup`].
fn pivot_choice() -> Pivot {
    static P: std::sync::OnceLock<Pivot> = std::sync::OnceLock::new();
    *P.get_or_init(|| match crate::config::switch("GPUARRAY_FACTOR_PIVOT") {
        Some(1) => Pivot::Subgroup,
        _ => Pivot::Workgroup,
    })
}

/// Whether `lu_reg`'s column loop is unrolled too on GPUs (each column's copy then picks
/// its column by constant indices: no compares and selects over the W columns held, and
/// the update only of the columns right of it): the measuring switch
/// `GPUARRAY_FACTOR_UNROLL_COLS` (read once through `config::switch`; default off: the
/// text grows W-fold, and NVIDIA's compile time with it, unmeasured).
fn unroll_cols() -> bool {
    static U: std::sync::OnceLock<bool> = std::sync::OnceLock::new();
    *U.get_or_init(|| crate::config::switch("GPUARRAY_FACTOR_UNROLL_COLS").is_some_and(|v| v != 0))
}

/// Whether the loops are unrolled on CPU adapters too (the switch
/// `GPUARRAY_FACTOR_UNROLL_CPU=1`, read once): for checking the GPUs' text on lavapipe,
/// whose compiler takes minutes over it for the wider shapes.
fn unroll_on_cpu() -> bool {
    static U: std::sync::OnceLock<bool> = std::sync::OnceLock::new();
    *U.get_or_init(|| crate::config::switch("GPUARRAY_FACTOR_UNROLL_CPU") == Some(1))
}

/// Whether the workgroup pivot search's two loops over workgroup memory (`WG / 32 - 1`
/// and 31 dependent steps a column) are unrolled on GPUs, their loads then issued
/// together: the default; the measuring switch `GPUARRAY_FACTOR_UNROLL_RED=0` (read once
/// through `config::switch`) keeps the loops. The same candidates in the same order: the
/// same bits. On the H200 (2026-11-29) the SASS of `lu_reg` showed no spills, and that of
/// a tournament-pivoting panel kernel tried the same session (branch `lupanel`, removed
/// after measuring no faster), the same search, these loops as loops of dependent loads on
/// the column step's serial path. Unrolled against loops, same binary (bench_table, H200,
/// 12:10 UTC): solve f32 4096 57.4 / 65.7 ms, f64 4096 58.8 / 67.5, f32 1024 10.1 / 11.7,
/// inv f32 4096 65.3 / 74.8, det f32 4096 55.3 / 64.2; `lu_reg` 42.9 / 51.6 ms (f32 4096,
/// profile).
fn unroll_red() -> bool {
    static U: std::sync::OnceLock<bool> = std::sync::OnceLock::new();
    *U.get_or_init(|| crate::config::switch("GPUARRAY_FACTOR_UNROLL_RED") != Some(0))
}

/// The workgroup pivot search's loops in shaders/factor_reg.wgsl and their unrolled forms
/// ([`unroll_red`]).
const RED1: &str = "            for (var t = lid + 32u; t < WG; t += 32u) {
                if beats(red_v[t], red_p[t], bv, bp) {
                    bv = red_v[t];
                    bp = red_p[t];
                }
            }";
const RED1_UNROLLED: &str = "            // unroll
            for (var q = 0u; q < 31u; q++) {
                let t = lid + 32u * (q + 1u);
                if t < WG {
                    if beats(red_v[t], red_p[t], bv, bp) {
                        bv = red_v[t];
                        bp = red_p[t];
                    }
                }
            }";
// Entry 0 against itself never beats: starting at 0 changes nothing.
const RED2: &str = "        for (var t = 1u; t < 32u; t++) {\n            if beats(red2_v[t]";
const RED2_UNROLLED: &str =
    "        // unroll\n        for (var t = 0u; t < 32u; t++) {\n            if beats(red2_v[t]";

/// The column loop's head and end in shaders/factor_reg.wgsl, and their unrolled forms.
const COLS_HEAD: &str = "    for (var j = 0u; j < w; j++) { // columns";
const COLS_END: &str = "    } // columns end";
const COLS_HEAD_UNROLLED: &str =
    "    // unroll\n    for (var j = 0u; j < W; j++) {\n    if j < w {";
const COLS_END_UNROLLED: &str = "    }\n    }";

/// Subgroups of a `wg`-invocation workgroup at most, for subgroups of at least `sg_min`
/// invocations (4 where the adapter reports less).
fn subgroups(wg: u32, sg_min: u32) -> u32 {
    wg.div_ceil(sg_min.max(4))
}

/// Bytes of workgroup memory `lu_reg` takes for shape `s` of `d` with the subgroup search
/// (at most `ns` subgroups).
fn sg_bytes(d: DType, s: Shape, ns: u32) -> usize {
    let (w, ns) = (s.w, ns as usize);
    (2 * (ns + 1) * w + w * w) * d.size() + 3 * 2 * ns * 4 + w * 4
}

/// The text of shaders/factor_reg.wgsl for one pivot search: the lines between `//> sg`
/// (or `//> wg`) and `//<` kept for [`Pivot::Subgroup`] (or [`Pivot::Workgroup`]), the
/// other's dropped, the marker lines themselves dropped.
fn pivot_text(src: &str, pivot: Pivot) -> String {
    let keep = match pivot {
        Pivot::Subgroup => "//> sg",
        Pivot::Workgroup => "//> wg",
    };
    let mut out = String::with_capacity(src.len());
    let mut inside: Option<bool> = None;
    for line in src.lines() {
        let t = line.trim();
        if t.starts_with("//> ") {
            inside = Some(t == keep);
        } else if t == "//<" {
            inside = None;
        } else if inside != Some(false) {
            out.push_str(line);
            out.push('\n');
        }
    }
    out
}

/// The kernels' text for panels of shape `s`; the loops over the rows and columns an
/// invocation holds unrolled where `unroll` (every index into its private arrays then a
/// constant: registers), left loops on CPU adapters, whose compilers take minutes over the
/// unrolled text (lavapipe) and have no registers to keep; the column loop too where
/// `cols` (and `unroll`); the workgroup pivot search's loops too where `red` (and `unroll`,
/// [`unroll_red`]). `ns`: with the subgroup pivot search, the most subgroups of a
/// workgroup; `None`: the workgroup search.
fn spec(d: DType, s: Shape, unroll: bool, cols: bool, red: bool, ns: Option<u32>) -> Spec {
    let pivot = if ns.is_some() {
        Pivot::Subgroup
    } else {
        Pivot::Workgroup
    };
    let mut text = pivot_text(SRC, pivot);
    if unroll && red && ns.is_none() {
        debug_assert!(text.contains(RED1) && text.contains(RED2));
        text = text
            .replace(RED1, RED1_UNROLLED)
            .replace(RED2, RED2_UNROLLED);
    }
    if unroll && cols {
        debug_assert!(text.contains(COLS_HEAD) && text.contains(COLS_END));
        text = text
            .replace(COLS_HEAD, COLS_HEAD_UNROLLED)
            .replace(COLS_END, COLS_END_UNROLLED);
    }
    let src = text
        .replace(
            "const NS: u32 = 32u;",
            &format!("const NS: u32 = {}u;", ns.unwrap_or(32)),
        )
        .replace("const R: u32 = 4u;", &format!("const R: u32 = {}u;", s.r))
        .replace("const W: u32 = 16u;", &format!("const W: u32 = {}u;", s.w))
        .replace(
            "alias Vals = array<T, 64>;",
            &format!("alias Vals = array<T, {}>;", s.r as usize * s.w),
        );
    let sp = Spec::new("factor_reg", src)
        .alias("T", d.wgsl())
        .scalar(d)
        .writable_last_input();
    let sp = if unroll {
        sp.unroll("R", s.r).unroll("W", s.w as u32)
    } else {
        sp
    };
    if d != DType::F64 {
        return sp;
    }
    let sp = sp
        .alias("TW", "f64")
        .import("f64_math")
        .function("div_", "fn div_(x: T, y: T) -> T { return div64_(x, y); }");
    if ns.is_none() {
        return sp;
    }
    sp.function(
        "key_hi",
        "fn key_hi(v: T) -> u32 { return u32(bitcast<u64>(v) >> 32u) + 1u; }",
    )
    .function(
        "key_lo",
        "fn key_lo(v: T) -> u32 { return u32(bitcast<u64>(v) & 0xfffffffflu); }",
    )
}

/// Every variant of one shape per row class, for the shader validation test.
#[cfg(test)]
pub(crate) fn all_specs() -> Vec<Spec> {
    let mut v = Vec::new();
    for d in [DType::F32, DType::F64] {
        for rows in [64, 300, 1000, 2000, 4096] {
            for unroll in [true, false] {
                let s = shape(d, rows, 1024).expect("a shape");
                v.push(spec(d, s, unroll, false, false, None));
                // The unrolled pivot search (GPUARRAY_FACTOR_UNROLL_RED, on by default).
                v.push(spec(d, s, unroll, false, true, None));
                // GPUARRAY_FACTOR_PIVOT=1: subgroups of 32 unrolled (NVIDIA), of 8 not
                // (lavapipe).
                let sg = if unroll { 32 } else { 8 };
                v.push(spec(d, s, unroll, false, false, Some(subgroups(s.wg, sg))));
            }
        }
        // GPUARRAY_FACTOR_MAX_R=8's shapes past 4 rows an invocation.
        for rows in [4096, 6000] {
            let s = shape_within(d, rows, 1024, 8).expect("a shape");
            v.push(spec(d, s, true, false, false, None));
            v.push(spec(d, s, true, false, true, None));
            v.push(spec(d, s, true, false, false, Some(subgroups(s.wg, 32))));
            if rows == 4096 {
                // GPUARRAY_FACTOR_UNROLL_COLS=1 (8 columns: the text 8-fold).
                v.push(spec(d, s, true, true, false, None));
                v.push(spec(d, s, true, true, false, Some(subgroups(s.wg, 32))));
            }
        }
    }
    v
}

/// The most subgroups of `lu_reg`'s workgroup for shape `s` where it takes the subgroup
/// pivot search on `l`'s device: chosen ([`pivot_choice`]), the device has subgroups (and
/// `Tuning::subgroups` leaves them on), 64-bit integers for f64's keys, and the slots fit
/// its workgroup memory; else `None` (the workgroup search).
fn sg_slots<T: Float>(l: &Launcher<T>, s: Shape) -> Option<u32> {
    let dev = &l.dev;
    let able = pivot_choice() == Pivot::Subgroup
        && dev.options().tuning.subgroups
        && dev.has_subgroups()
        && (T::DTYPE != DType::F64 || dev.supports_dtype(DType::I64));
    let ns = subgroups(s.wg, dev.info().subgroup_min_size);
    let room = dev.limits().max_compute_workgroup_storage_size as usize;
    (able && sg_bytes(T::DTYPE, s, ns) <= room).then_some(ns)
}

#[allow(clippy::too_many_arguments)] // a dispatch's parts, named
fn launch<T: Float>(
    l: &Launcher<T>,
    entry: &'static str,
    s: Shape,
    ns: Option<u32>,
    p: &FParams,
    st: &Array<i32>,
    out: &Array<T>,
    work: Work,
) -> Result<()> {
    let unroll = l.dev.info().kind != DeviceKind::Cpu || unroll_on_cpu();
    let cols = unroll && unroll_cols() && entry == "lu_reg";
    let red = unroll && unroll_red() && ns.is_none();
    let mut variant = format!("{:?} r{} w{} unroll {unroll}", T::DTYPE, s.r, s.w);
    if let Some(ns) = ns {
        variant += &format!(" sg{ns}");
    }
    if cols {
        variant += " cols";
    }
    if red {
        variant += " red";
    }
    let key = Key {
        family: "factor_reg",
        entry,
        variant,
        inputs: 2,
        wg: s.wg,
        ndim: 0,
        per: 0,
    };
    let k = l
        .dev
        .kernel(key, || spec(T::DTYPE, s, unroll, cols, red, ns))?;
    l.dev.launch(
        &k,
        &p.encode(),
        &[l.dummy.binding(), st.binding()],
        out.binding(),
        work,
    )?;
    super::factor_prof::mark(&l.dev, entry)
}

/// Factors the LU panel `p` (columns [k0, k0 + wdt) of the [count, rows, cols] stack `out`,
/// rows from k0 down) with its pivots to `st`, swaps the rows of every other column, and
/// returns `true`; `false` (nothing recorded) where no register shape holds the panel.
pub(crate) fn lu_panel<T: Float>(
    l: &Launcher<T>,
    p: &FParams,
    st: &Array<i32>,
    out: &Array<T>,
) -> Result<bool> {
    let most = l.dev.limits().max_compute_invocations_per_workgroup;
    let max_r = max_r();
    if shape_within(T::DTYPE, p.rows - p.k0, most, max_r).is_none() {
        return Ok(false);
    }
    let end = p.k0 + p.wdt;
    let mut k = p.k0;
    while k < end {
        let s = shape_within(T::DTYPE, p.rows - k, most, max_r).expect("fewer rows than the first");
        let w = s.w.min(end - k);
        let right = end - k - w;
        debug_assert!(right < s.wg as usize);
        // The sub-panel, and the U12 rows of the block's columns right of it.
        let q = FParams {
            k0: k,
            wdt: w,
            c0: k + w,
            ncols: right,
            ..*p
        };
        launch(
            l,
            "lu_reg",
            s,
            sg_slots(l, s),
            &q,
            st,
            out,
            grid(1, p.count),
        )?;
        if p.cols > w {
            // Workgroups of SWAP_WG (not the panel's up to 1024): a column an invocation,
            // spread over more of the GPU's multiprocessors.
            let sw = Shape { wg: SWAP_WG, ..s };
            let x = p.cols.div_ceil(SWAP_WG as usize);
            launch(l, "swap_rows", sw, None, &q, st, out, grid(x, p.count))?;
        }
        let below = p.rows - k - w;
        if right > 0 && below > 0 {
            let r = FParams { r0: k + w, ..q };
            let items = p.count * below * right;
            launch(
                l,
                "rank_update",
                s,
                None,
                &r,
                st,
                out,
                Work::Items(items as u32),
            )?;
        }
        k += w;
    }
    Ok(true)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_entry_is_in_the_shader() {
        for e in ["lu_reg", "swap_rows", "rank_update"] {
            assert!(SRC.contains(&format!("fn {e}(")), "{e}");
        }
    }

    #[test]
    fn shapes_hold_their_panels_within_the_register_budget() {
        for d in [DType::F32, DType::F64] {
            for rows in [1, 63, 64, 65, 256, 1000, 1024, 2049, 4096] {
                let s = shape(d, rows, 1024).expect("a shape");
                assert!(s.wg as usize * s.r as usize >= rows, "{d:?} {rows}");
                assert!(s.r as usize * s.w <= 64);
                assert!(s.r as usize * s.w * d.size() / 4 <= 65536 / s.wg as usize);
            }
            assert_eq!(shape(d, 8193, 1024), None);
            assert!(shape(d, 300, 256).is_some_and(|s| s.wg <= 256));
        }
        for d in [DType::F32, DType::F64] {
            for rows in [3000, 3073, 4096, 4097, 6000] {
                let s = shape_within(d, rows, 1024, 8).expect("a shape");
                assert!(
                    s.wg as usize * s.r as usize >= rows && s.r <= 8,
                    "{d:?} {rows}"
                );
                assert!(s.r as usize * s.w <= 64);
                assert!(s.r as usize * s.w * d.size() / 4 <= 65536 / s.wg as usize);
            }
            assert_eq!(shape_within(d, 8193, 1024, 8), None);
        }
        assert!(shape_within(DType::F32, 8192, 1024, 8).is_some());
        assert_eq!(
            shape_within(DType::F32, 4096, 1024, 8),
            Some(Shape {
                wg: 512,
                r: 8,
                w: 8
            })
        );
        assert_eq!(
            shape(DType::F32, 256, 1024),
            Some(Shape {
                wg: 128,
                r: 2,
                w: 32
            })
        );
    }
}
