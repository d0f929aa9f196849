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

/// One tiling of the f64 kernel: a BM x BN tile of C per workgroup, K in steps of BK, TM x
/// TN outputs per invocation.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub(crate) struct F64Cfg {
    pub bm: u32,
    pub bn: u32,
    pub bk: u32,
    pub tm: u32,
    pub tn: u32,
}

impl From<MatmulTiles> for F64Cfg {
    fn from(t: MatmulTiles) -> F64Cfg {
        F64Cfg::new(t.bm, t.bn, t.bk, t.tm, t.tn)
    }
}

impl F64Cfg {
    pub(super) const fn new(bm: u32, bn: u32, bk: u32, tm: u32, tn: u32) -> F64Cfg {
        F64Cfg { bm, bn, bk, tm, tn }
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
/// a 1024^2 output has 64 tiles of 128 x 128 for the H200's 132 multiprocessors), 4 x 4 and
/// 8 x 4 on 64 x 64 (256 workgroups at 1024^2; the second with 128 invocations and a K
/// tile of 16). Few columns or rows: tall (wide) tiles of 32 or 16 columns (rows). Each
/// fits 32 KiB of workgroup memory unpadded (lavapipe's), so that the tests run every one.
pub(super) const CANDIDATES: [&[F64Cfg]; 3] = [
    &[
        F64Cfg::new(128, 128, 8, 8, 8),
        F64Cfg::new(128, 64, 8, 8, 4),
        F64Cfg::new(64, 128, 8, 4, 8),
        F64Cfg::new(64, 64, 8, 4, 4),
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

/// The untimed choice on GPUs of their own memory for a partly filled GPU (size class 0).
pub(super) const MEDIUM: F64Cfg = F64Cfg::new(64, 64, 8, 4, 4);

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
         const ROWA: u32 = {}u; const ROWB: u32 = {}u; const TA: bool = {ta}; const TB: bool = {tb};\n",
        cfg.bm,
        cfg.bn,
        cfg.bk,
        cfg.tm,
        cfg.tn,
        cfg.tm / 2,
        cfg.tn / 2,
        cfg.bm / 2 + pad,
        cfg.bn / 2 + pad,
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

/// Every candidate with and without padding, and the first in the four layouts, for the
/// shader validation test.
#[cfg(test)]
pub(super) fn specs() -> Vec<Spec> {
    let mut specs = Vec::new();
    for (i, &cfg) in CANDIDATES.iter().copied().flatten().enumerate() {
        specs.push(spec(cfg, 1, false, false));
        specs.push(spec(cfg, 0, i % 2 == 1, i % 3 == 1));
    }
    for (ta, tb) in [(true, false), (false, true), (true, true)] {
        specs.push(spec(CANDIDATES[0][0], 1, ta, tb));
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
    /// (k step, row pair, column pair).
    #[test]
    fn unroll_leaves_no_register_loop() {
        let cfg = F64Cfg::new(128, 64, 8, 8, 4);
        let text = spec(cfg, 1, false, true).render().unwrap();
        for var in ["r", "kk", "i", "j", "ii"] {
            assert!(!text.contains(&format!("for (var {var} ")), "{var}");
        }
        assert!(text.contains("for (var kt "));
        assert_eq!(
            text.matches("acc[2u * i * NV + j] = fma").count(),
            8 * 4 * 2
        );
    }
}
