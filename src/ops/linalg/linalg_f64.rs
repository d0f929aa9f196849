//! The f64 product kernel of shaders/linalg_f64.wgsl: register tiles sized for 8-byte
//! elements (TM x TN outputs per invocation as `vec2<f64>` pairs, workgroup tiles of `vec2<f64>`
//! words, padded rows where they fit), double-buffered workgroup tiles, every loop over a
//! register array unrolled in the text (`Spec::unroll`), fused multiply-adds. It takes every
//! shape and layout the tiled kernel takes (loads clamped and selected, stores checked).
//! Large f64 products take it where the tile trial finds one of its tilings ([`candidates`])
//! faster than the tiled kernel's 64 x 64 tiles (module `tile_trial`); `Tuning::matmul_f64`
//! (`GPUARRAY_MATMUL_F64`) forces a tiling.
//!
//! Why its own kernel: the tiled kernel (shaders/linalg.wgsl) keeps `vec4<ACC>` words in
//! workgroup memory and indexes its accumulators through loops the driver may keep (32-byte
//! words for f64, two 16-byte loads each), and f64 took its 64 x 64 tiles, 16 outputs per
//! invocation: 8.7-9.7 TFLOP/s on the H200, against an f64 FMA rate of about 34. An
//! invocation of 8 x 8 f64 outputs reads 16 values (8 vec2 words) of workgroup memory per
//! 64 fused multiply-adds: with 16 invocations of a subgroup of 32 reading distinct words of
//! B and 2 of A, about 12 wavefronts of workgroup memory per 2,048 multiply-adds, which the
//! FMA pipe (64 per clock per multiprocessor) takes 32 clocks for.
//!
//! What the H200 showed (session 18, Vulkan, forced tilings at 1024 / 2048 / 4096 cubed, ms;
//! SASS from the pipeline cache through tools/pipeline_sass.py): 128 x 128 with 8 x 8 per
//! invocation 0.26 / 1.10-1.13 / 8.4-8.8 (about 16 TFLOP/s, 0.87 ms on 2048 with A
//! transposed); its K loop is one unrolled K tile of 512 DFMA, 64 LDS.128, 8 LDG.64, 8
//! STS.64 and about 160 other instructions, 252 registers, no local memory (one workgroup
//! of 8 warps per multiprocessor). No change of arrangement moved it: subgroups laid out as
//! 8 x 4 invocations (4 words of A and 8 of B per fragment load), scalar accumulators, a
//! band order of the workgroups for the L2 cache, a padding of 2 words: all within 2%. 8 x
//! 8 per invocation on fewer invocations (128 x 64 and 64 x 128 with 128, 64 x 64 with 64)
//! ran at 10 TFLOP/s, 64 x 64 with 4 x 4 at 14.7, a K tile of 16 at 7. What the SASS did
//! show: the selects that zero the prefetched elements outside the matrix came right after
//! their loads, before the first FMA of the tile, so every K tile waited for its global
//! loads with the whole workgroup (held together by the barrier); the prefetch now keeps the
//! raw loads and the select is made at the store (shaders/linalg_f64.wgsl).
//!
//! The limit those arrangements left alone (session 21, by counting; [`Layout`]): NVIDIA's
//! workgroup memory returns 128 bytes a clock, one 32-bit register to each lane of a
//! subgroup of 32, whatever the addresses (a broadcast saves bank conflicts, not return
//! clocks), so a 16-byte load costs 4 clocks, or 2 where lanes n and n ^ 1 (or n and n ^ 2)
//! read one address throughout, the returns then packed. An invocation of 8 x 8 reads 16
//! f64 (32 registers) per k step for 64 DFMA: a subgroup's step is 32 return clocks
//! unpacked against 128 clocks of its quarter's DFMA pipe (16 lanes), and with the four
//! quarters busy the multiprocessor needs 128 return clocks per 128: the FMA rate exactly,
//! with no slack. In the plain layout (column t % 16) A's loads pack (all 16 lanes of a row
//! read one word) and B's do not: 24 clocks a step, 75% of the FMA time; the measured 16
//! TFLOP/s is 47% of the FMA rate. The paired layout gives lanes n and n ^ 1 one row and
//! lanes n and n ^ 2 one column, so B's loads pack as well: 16 clocks a step, 50%. 64 x 64
//! with 4 x 4 per invocation: 12 clocks per 32 of DFMA a step, 150%, paired 8, 100%. The
//! switches `GPUARRAY_F64_PAIR=0` (the plain layout) and `GPUARRAY_F64_FRAG=1` (fragments a
//! step ahead) select the other layouts for measurement.
//!
//! Measured (H200, Vulkan, 2026-11-29, one binary, each tiling forced, ms at 1024 / 2048 /
//! 4096 cubed): 64 x 64 with 4 x 4 plain 0.179 / 1.188 / 9.25, paired **0.150 / 1.046 /
//! 8.47** (12.0 -> 14.3 TFLOP/s at 1024): where the returns were the limit, pairing moved
//! it. 128 x 128 with 8 x 8 plain 0.256 / 1.121 / 8.73, paired 0.255 / 1.123 / 8.69,
//! paired with fragments ahead 0.258 / 1.124 / 8.74: no change. Its SASS (252 registers,
//! no local memory; 248 with fragments ahead) already interleaves the next step's LDS.128
//! with the DFMA, so its limit at about 16 TFLOP/s is not the returns (50% of the FMA time
//! paired) but the latency one workgroup of 8 subgroups per multiprocessor leaves exposed.
//! The trial (paired) chose 64 x 64 4 x 4 for the 1024 and 4096 classes: 1024^3 0.156 ms
//! beside cuBLAS's 0.072 (0.46x), 2048^3 1.045 (0.31x), 4096^3 8.18 (0.27x). 64 x 64 with a
//! K tile of 16 (half the barriers) joined the candidates after that run, unmeasured.
//!
//! What that run's SASS of the 8 x 8 K loop showed instead: 7 of its 8 prefetch loads
//! (LDG.64) were followed, before the tile's first LDS.128 and DFMA, by the FSEL pairs of
//! their bounds selects (into other registers: the loads' own went to the next step's
//! fragments), although the shader makes the select at the store; so each K tile still
//! waited out its global loads with the whole workgroup, the one workgroup a multiprocessor
//! holds at 252 registers. [`Layout::raw`] (`GPUARRAY_F64_RAW`, on by default, unmeasured)
//! removes the selects: the loads are stored as loaded (rows past M and columns past N reach
//! only outputs that are not stored) and the tile that holds the end of K is zeroed past K
//! after a barrier.

use crate::array::Array;
use crate::config::MatmulTiles;
use crate::device::Device;
use crate::dtype::{DType, Element};
use crate::error::Result;
use crate::kernel::cache::Key;
use crate::kernel::source::Spec;

use super::params::accessors;
use super::product::{dispatch, Product};

/// The text of shaders/linalg_f64.wgsl.
const F64_SRC: &str = include_str!("../../../shaders/linalg_f64.wgsl");

/// Tiles along K a dispatch may loop over: lavapipe cuts loops at 65,535 iterations.
const MAX_K_TILES: usize = 65_535;

/// How the f64 kernel lays out its invocations and fragments (the shader's PAIR and FRAG;
/// shaders/linalg_f64.wgsl's header says why).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Default)]
pub(crate) struct Layout {
    /// Lanes n and n ^ 1 of a subgroup read one word of A, lanes n and n ^ 2 one word of B,
    /// so that NVIDIA's workgroup memory packs the returns of every fragment load (2 clocks
    /// a 16-byte load, not 4). Off: invocation t at column t % TX, row t / TX (session 20's
    /// kernel), where only A's loads pair.
    pub pair: bool,
    /// The next k step's fragments loaded before the current step's FMAs (two register
    /// slots). Measured neutral on the H200 (NVIDIA's compiler already schedules the loads a
    /// step ahead): off by default, kept as a measuring switch.
    pub frag: bool,
    /// The prefetched values stored as loaded (no select on them), the elements past K set
    /// to 0 after a barrier in the K tile that holds the end of K: the selects, even at the
    /// store, were placed by NVIDIA's compiler right after their loads, so that every K
    /// tile waited for its global loads before its first DFMA (the H200's SASS).
    pub raw: bool,
}

/// The layout of the f64 kernel in this process: `GPUARRAY_F64_PAIR` (0 off; default on),
/// `GPUARRAY_F64_FRAG` (1 on; default off) and `GPUARRAY_F64_RAW` (0 off; default on),
/// read once: the measuring switches of session 21's changes (issue 34; the module doc has
/// the count and the H200's times: paired 64 x 64 tiles 9-19% faster, 8 x 8 tiles
/// unchanged; RAW unmeasured, from the SASS).
pub(crate) fn layout() -> Layout {
    #[cfg(test)]
    if let Some(l) = TEST_LAYOUT.get() {
        return l;
    }
    static L: std::sync::OnceLock<Layout> = std::sync::OnceLock::new();
    *L.get_or_init(|| Layout {
        pair: crate::config::switch("GPUARRAY_F64_PAIR") != Some(0),
        frag: crate::config::switch("GPUARRAY_F64_FRAG").is_some_and(|v| v != 0),
        raw: crate::config::switch("GPUARRAY_F64_RAW") != Some(0),
    })
}

#[cfg(test)]
thread_local! {
    /// The layout [`layout`] returns on this thread in unit tests, where set.
    pub(super) static TEST_LAYOUT: std::cell::Cell<Option<Layout>> = const { std::cell::Cell::new(None) };
}

/// One tiling of the f64 kernel: a BM x BN tile of C per workgroup, K in steps of BK, TM x
/// TN outputs per invocation, and its [`Layout`].
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub(crate) struct F64Cfg {
    pub bm: u32,
    pub bn: u32,
    pub bk: u32,
    pub tm: u32,
    pub tn: u32,
    pub layout: Layout,
}

impl From<MatmulTiles> for F64Cfg {
    /// The tiling in this process's [`layout`].
    fn from(t: MatmulTiles) -> F64Cfg {
        F64Cfg::new(t.bm, t.bn, t.bk, t.tm, t.tn).laid(layout())
    }
}

impl F64Cfg {
    /// The tiling in the plain layout (neither flag).
    pub(super) const fn new(bm: u32, bn: u32, bk: u32, tm: u32, tn: u32) -> F64Cfg {
        F64Cfg {
            bm,
            bn,
            bk,
            tm,
            tn,
            layout: Layout {
                pair: false,
                frag: false,
                raw: false,
            },
        }
    }

    /// The same tiling in `layout`.
    pub(super) const fn laid(self, layout: Layout) -> F64Cfg {
        F64Cfg { layout, ..self }
    }

    /// Invocations per workgroup.
    pub(super) fn nt(self) -> u32 {
        (self.bm / self.tm) * (self.bn / self.tn)
    }

    /// Whether the kernel runs this tiling: TM, TN of 2, 4 or 8 dividing the tile, BK of
    /// 4, 8 or 16, 32 to 256 invocations that share each K tile's loads evenly.
    pub(super) fn valid(self) -> bool {
        let ok = matches!(self.tm, 2 | 4 | 8)
            && matches!(self.tn, 2 | 4 | 8)
            && matches!(self.bk, 4 | 8 | 16)
            && (1..=256).contains(&self.bm)
            && (1..=256).contains(&self.bn)
            && self.bm.is_multiple_of(self.tm)
            && self.bn.is_multiple_of(self.tn);
        ok && {
            let nt = self.nt();
            (32..=256).contains(&nt)
                && (self.bm * self.bk).is_multiple_of(nt)
                && (self.bn * self.bk).is_multiple_of(nt)
                && (!self.layout.pair
                    || ((self.bn / self.tn).is_multiple_of(2)
                        && (self.bm / self.tm).is_multiple_of(2)))
        }
    }

    /// Bytes of workgroup memory with `pad` vec2 words of padding per k row.
    fn smem(self, pad: u32) -> usize {
        2 * self.bk as usize * ((self.bm / 2 + pad) + (self.bn / 2 + pad)) as usize * 16
    }

    /// The padding (vec2 words per k row: 1, else 0) the adapter holds, `None` where the
    /// tiling is invalid or does not fit its invocations or workgroup memory.
    pub(super) fn pad(self, dev: &Device) -> Option<u32> {
        let l = dev.limits();
        if !self.valid() || self.nt() > l.max_compute_invocations_per_workgroup {
            return None;
        }
        [1, 0]
            .into_iter()
            .find(|&p| self.smem(p) <= l.max_compute_workgroup_storage_size as usize)
    }
}

/// The tilings the trial times by shape class (module `tiled`: 0 square-ish, 1 few
/// columns, 2 few rows). Square-ish: 8 x 8 outputs per invocation on 128 x 128 tiles for
/// GPUs the product fills, 8 x 4 and 4 x 8 on 128 x 64 and 64 x 128 (twice the workgroups:
/// a 1024^2 output has 64 tiles of 128 x 128 for the H200's 132 multiprocessors), 4 x 4
/// (K tiles of 8 and of 16: half the barriers) and 8 x 4 on 64 x 64 (256 workgroups at
/// 1024^2; the last with 128 invocations and a K tile of 16). Few columns or rows: tall
/// (wide) tiles of 32 or 16 columns (rows). Each fits 32 KiB of workgroup memory unpadded
/// (lavapipe's), so that the tests run every one.
pub(super) const CANDIDATES: [&[F64Cfg]; 3] = [
    &[
        F64Cfg::new(128, 128, 8, 8, 8),
        F64Cfg::new(128, 64, 8, 8, 4),
        F64Cfg::new(64, 128, 8, 4, 8),
        F64Cfg::new(64, 64, 8, 4, 4),
        F64Cfg::new(64, 64, 16, 4, 4),
        F64Cfg::new(64, 64, 16, 8, 4),
    ],
    &[
        F64Cfg::new(128, 32, 8, 8, 4),
        F64Cfg::new(128, 32, 8, 4, 4),
        F64Cfg::new(64, 32, 8, 4, 2),
        F64Cfg::new(128, 16, 8, 8, 2),
    ],
    &[
        F64Cfg::new(32, 128, 8, 4, 8),
        F64Cfg::new(32, 128, 8, 4, 4),
        F64Cfg::new(32, 64, 8, 2, 4),
        F64Cfg::new(16, 128, 8, 2, 8),
    ],
];

/// The untimed choice on GPUs of their own memory for a partly filled GPU (size class 0),
/// in the plain layout ([`medium`] lays it out).
pub(super) const MEDIUM: F64Cfg = F64Cfg::new(64, 64, 8, 4, 4);

/// The tilings the trial times for shape class `class` (0-8; [`CANDIDATES`] by `class / 3`),
/// in this process's [`layout`].
pub(super) fn candidates(class: u32) -> Vec<F64Cfg> {
    let l = layout();
    CANDIDATES[(class % 9) as usize / 3]
        .iter()
        .map(|c| c.laid(l))
        .collect()
}

/// [`MEDIUM`] in this process's [`layout`].
pub(super) fn medium() -> F64Cfg {
    MEDIUM.laid(layout())
}

/// Whether this product may run on `cfg` on this device: f64, the tiling fits the adapter,
/// and its K tiles are within one loop's reach.
pub(super) fn eligible(dev: &Device, dtype: DType, prod: &Product<'_>, cfg: F64Cfg) -> bool {
    dtype == DType::F64 && cfg.pad(dev).is_some() && prod.k.div_ceil(cfg.bk as usize) <= MAX_K_TILES
}

/// The tiling forced through `Tuning::matmul_f64` for this product, where eligible.
pub(super) fn forced(dev: &Device, dtype: DType, prod: &Product<'_>) -> Option<F64Cfg> {
    let cfg = F64Cfg::from(dev.options().tuning.matmul_f64?);
    eligible(dev, dtype, prod, cfg).then_some(cfg)
}

/// The kernel's spec for tiling `cfg` with `pad` vec2 words of padding per k row and
/// operand layouts `ta`, `tb` (transposed views): the tiling as `const` lines before the
/// file's text, the matrix-product accessors after it.
pub(super) fn spec(cfg: F64Cfg, pad: u32, ta: bool, tb: bool) -> Spec {
    let nt = cfg.nt();
    let (la, lb) = (cfg.bm * cfg.bk / nt, cfg.bn * cfg.bk / nt);
    let consts = format!(
        "const BM: u32 = {}u; const BN: u32 = {}u; const BK: u32 = {}u;\n\
         const TM: u32 = {}u; const TN: u32 = {}u; const MV: u32 = {}u; const NV: u32 = {}u;\n\
         const NT: u32 = {nt}u; const LA: u32 = {la}u; const LB: u32 = {lb}u;\n\
         const ROWA: u32 = {}u; const ROWB: u32 = {}u; const TA: bool = {ta}; const TB: bool = {tb};\n\
         const PAIR: bool = {}; const FRAG: bool = {}; const RAW: bool = {};\n",
        cfg.bm,
        cfg.bn,
        cfg.bk,
        cfg.tm,
        cfg.tn,
        cfg.tm / 2,
        cfg.tn / 2,
        cfg.bm / 2 + pad,
        cfg.bn / 2 + pad,
        cfg.layout.pair,
        cfg.layout.frag,
        cfg.layout.raw,
    );
    Spec::new("linalg_f64", format!("{consts}{F64_SRC}\n{}", accessors()))
        .scalar(DType::F64)
        .unroll("LA", la)
        .unroll("LB", lb)
        .unroll("BK", cfg.bk)
        .unroll("MV", cfg.tm / 2)
        .unroll("NV", cfg.tn / 2)
        .unchecked()
}

/// Records the product into `out` (f64) on the kernel with tiling `cfg` (where
/// [`eligible`]).
pub(super) fn run<T: Element>(
    dev: &Device,
    prod: &Product<'_>,
    out: &Array<T>,
    cfg: F64Cfg,
) -> Result<()> {
    debug_assert!(eligible(dev, T::DTYPE, prod, cfg));
    let pad = cfg.pad(dev).expect("eligible: the tiling fits");
    let (ta, tb) = (prod.a.trans, prod.b.trans);
    let key = Key {
        family: "linalg_f64",
        entry: "matmul_f64",
        variant: format!("{cfg:?}|{pad}|{}{}", ta as u8, tb as u8),
        inputs: 2,
        wg: cfg.nt(),
        ndim: 0,
        per: 0,
    };
    let kernel = dev.kernel(key, || spec(cfg, pad, ta, tb))?;
    dispatch(dev, &kernel, prod, out.binding(), (cfg.bm, cfg.bn))
}

/// The layouts the tests run: neither flag, PAIR, FRAG, both, RAW, PAIR and RAW (the
/// default).
#[cfg(test)]
pub(super) const LAYOUTS: [Layout; 6] = {
    const fn l(pair: bool, frag: bool, raw: bool) -> Layout {
        Layout { pair, frag, raw }
    }
    [
        l(false, false, false),
        l(true, false, false),
        l(false, true, false),
        l(true, true, false),
        l(false, false, true),
        l(true, false, true),
    ]
};

/// Every candidate with and without padding in the plain layout and in a rotating other
/// one, and the first in the four operand layouts (paired, fragments ahead), for the shader
/// validation test.
#[cfg(test)]
pub(super) fn specs() -> Vec<Spec> {
    let mut specs = Vec::new();
    for (i, &cfg) in CANDIDATES.iter().copied().flatten().enumerate() {
        specs.push(spec(cfg, 1, false, false));
        specs.push(spec(cfg, 0, i % 2 == 1, i % 3 == 1));
        specs.push(spec(
            cfg.laid(LAYOUTS[1 + i % 5]),
            1,
            i % 3 == 2,
            i % 2 == 0,
        ));
    }
    for (ta, tb) in [(true, false), (false, true), (true, true)] {
        specs.push(spec(CANDIDATES[0][0].laid(LAYOUTS[3]), 1, ta, tb));
        specs.push(spec(CANDIDATES[0][0].laid(LAYOUTS[5]), 0, ta, tb));
    }
    specs
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Every candidate is a tiling the kernel runs, and within 48 KiB of workgroup memory
    /// padded (NVIDIA's limit); the invalid ones are refused.
    #[test]
    fn candidates_are_valid() {
        for cfg in CANDIDATES.iter().copied().flatten().chain([&MEDIUM]) {
            assert!(cfg.valid(), "{cfg:?}");
            assert!(cfg.smem(1) <= 48 * 1024, "{cfg:?}");
        }
        for bad in [
            F64Cfg::new(128, 128, 8, 6, 8),
            F64Cfg::new(128, 128, 12, 8, 8),
            F64Cfg::new(256, 256, 8, 4, 4),
            F64Cfg::new(16, 16, 8, 8, 8),
            F64Cfg::new(96, 64, 8, 8, 8),
        ] {
            assert!(!bad.valid(), "{bad:?}");
        }
    }

    /// Every candidate runs on the test adapter (lavapipe: 32 KiB of workgroup memory), so
    /// that tests/linalg_f64.rs, forcing each, runs each on the f64 kernel.
    #[test]
    fn every_candidate_runs_here() {
        let dev = Device::new().expect("a device");
        for cfg in CANDIDATES.iter().copied().flatten() {
            assert!(cfg.pad(&dev).is_some(), "{cfg:?}");
        }
    }

    /// The rendered text has no loop over a register array left, and one FMA pair per
    /// (k step, row pair, column pair), in every layout.
    #[test]
    fn unroll_leaves_no_register_loop() {
        for l in LAYOUTS {
            let cfg = F64Cfg::new(128, 64, 8, 8, 4).laid(l);
            let text = spec(cfg, 1, false, true).render().unwrap();
            for var in ["r", "kk", "i", "j", "ii"] {
                assert!(!text.contains(&format!("for (var {var} ")), "{var} {l:?}");
            }
            assert!(text.contains("for (var kt "));
            assert_eq!(
                text.matches("acc[2u * i * NV + j] = fma").count(),
                8 * 4 * 2,
                "{l:?}"
            );
        }
    }

    /// The paired layout is a permutation of the invocations onto the (column, row) grid in
    /// which lanes n and n ^ 1 share their row and lanes n and n ^ 2 their column, and
    /// where a row has at most 16 invocations, a subgroup of 32 covers the same columns and
    /// rows as in the plain layout (so the same words of workgroup memory and of C): the
    /// shader's formula, on every candidate.
    #[test]
    fn paired_lanes_share_their_words() {
        for cfg in CANDIDATES.iter().copied().flatten() {
            assert!(cfg.laid(LAYOUTS[1]).valid(), "{cfg:?}");
            let (tx_n, nt) = (cfg.bn / cfg.tn, cfg.nt());
            let plain = |t: u32| (t % tx_n, t / tx_n);
            let paired = |t: u32| {
                let (h, half) = (t / 4, tx_n / 2);
                ((t & 1) + 2 * (h % half), ((t / 2) & 1) + 2 * (h / half))
            };
            let mut seen = std::collections::HashSet::new();
            for t in 0..nt {
                let (x, y) = paired(t);
                assert!(
                    x < tx_n && y < nt / tx_n && seen.insert((x, y)),
                    "{cfg:?} {t}"
                );
                assert_eq!(paired(t ^ 1).1, y, "{cfg:?} {t}: the row of n ^ 1");
                assert_eq!(paired(t ^ 2).0, x, "{cfg:?} {t}: the column of n ^ 2");
            }
            if tx_n <= 16 {
                let sg = 32;
                for w in (0..nt).step_by(sg as usize) {
                    let set = |f: &dyn Fn(u32) -> (u32, u32)| {
                        let mut v: Vec<_> = (w..w + sg).map(f).collect();
                        v.sort_unstable();
                        v
                    };
                    assert_eq!(set(&plain), set(&paired), "{cfg:?} subgroup at {w}");
                }
            }
        }
        assert!(!F64Cfg::new(64, 48, 8, 4, 8).laid(LAYOUTS[1]).valid());
    }

    /// Every layout computes the product: a forced tiling per shape class on partial tiles,
    /// K over an odd number of K tiles and a transposed operand, against an f64 reference
    /// (the layout set for this test's thread; tests/linalg_f64.rs runs every tiling in the
    /// process's layout).
    #[test]
    fn every_layout_against_the_reference() {
        let probe = Device::new().expect("a device");
        if !probe.supports::<f64>() {
            return;
        }
        for l in LAYOUTS {
            TEST_LAYOUT.set(Some(l));
            for (i, cfg) in [
                CANDIDATES[0][0],
                CANDIDATES[0][3],
                CANDIDATES[1][0],
                CANDIDATES[2][3],
            ]
            .into_iter()
            .enumerate()
            {
                let mut o = crate::config::Options::default();
                o.tuning.matmul_f64 = Some(MatmulTiles {
                    bm: cfg.bm,
                    bn: cfg.bn,
                    bk: cfg.bk,
                    tm: cfg.tm,
                    tn: cfg.tn,
                });
                o.tuning.matmul_split_k = false;
                let dev = Device::with_options(o).expect("a device");
                let (m, n, k) = (
                    cfg.bm as usize + 3,
                    cfg.bn as usize + 5,
                    3 * cfg.bk as usize + 1,
                );
                let a = dev
                    .random_uniform_in::<f64>([m, k], -1.0, 1.0, 11 + i as u64)
                    .unwrap();
                let bt = dev
                    .random_uniform_in::<f64>([n, k], -1.0, 1.0, 21 + i as u64)
                    .unwrap();
                let b = bt.t();
                let c = a.matmul(&b).unwrap().to_vec().unwrap();
                let (ha, hb) = (a.to_vec().unwrap(), bt.to_vec().unwrap());
                let mut worst = 0.0f64;
                for r in 0..m {
                    for j in 0..n {
                        let e: f64 = (0..k).map(|x| ha[r * k + x] * hb[j * k + x]).sum();
                        worst = worst.max((c[r * n + j] - e).abs());
                    }
                }
                // Sums of k products of values below 1: a few ulps per term at most.
                assert!(
                    worst <= 2.0 * k as f64 * f64::EPSILON,
                    "{l:?} {cfg:?}: {worst:e}"
                );
            }
        }
        TEST_LAYOUT.set(None);
    }
}
