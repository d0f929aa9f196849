//! The tiled matrix-product kernel of shaders/linalg.wgsl (every element type; f16
//! accumulates in f32) and its `trace` entry point: the kernel's specialisation, the choice
//! of tiles (forced through the device's options, by size, or the configuration that a
//! timed trial on first use found fastest on this device) and the launches.

use std::collections::HashMap;

use crate::array::Array;
use crate::config::MatmulTiles;
use crate::device::{Device, Work};
use crate::dtype::{DType, Element};
use crate::error::Result;
use crate::kernel::cache::Key;
use crate::kernel::launch::Binding;
use crate::kernel::source::Spec;

use super::linalg_big::{self, BigCfg};
use super::linalg_f64::{self, F64Cfg};
use super::params::TraceParams;
use super::product::{dispatch, Product};
use super::SRC;

/// The tiling of the `matmul` kernel: a BM x BN tile of C per workgroup, K in steps of BK,
/// TM x TN outputs per invocation.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub(crate) struct Tiles {
    pub bm: u32,
    pub bn: u32,
    pub bk: u32,
    pub tm: u32,
    pub tn: u32,
}

impl Tiles {
    pub(super) const fn new(bm: u32, bn: u32, bk: u32, tm: u32, tn: u32) -> Tiles {
        Tiles { bm, bn, bk, tm, tn }
    }

    /// Invocations per workgroup.
    fn wg(self) -> u32 {
        (self.bm / self.tm) * (self.bn / self.tn)
    }

    /// Whether the shader's fixed register arrays hold this tiling (MAX_ACC, MAX_LOAD) and
    /// its groups of 4 rows and columns divide the tile evenly.
    pub(super) fn valid(self) -> bool {
        let (mv, nv) = (self.tm / 4, self.tn / 4);
        let wg = self.wg();
        matches!(self.tm, 4 | 8)
            && matches!(self.tn, 4 | 8 | 16)
            && self.tm * nv <= 16
            && self.bk.is_multiple_of(8)
            && self.bm.is_multiple_of(4 * mv)
            && self.bn.is_multiple_of(4 * nv)
            && self.bm.is_multiple_of(self.tm)
            && self.bn.is_multiple_of(self.tn)
            && self.bm * self.bk / 4 <= 8 * wg
            && self.bn * self.bk / 4 <= 8 * wg
    }

    /// Whether the adapter runs it: invocations and workgroup memory for element size `acc`.
    pub(super) fn fits(self, dev: &Device, acc: usize) -> bool {
        let l = dev.limits();
        let smem = (self.bm + self.bn) as usize * self.bk as usize * acc;
        self.valid()
            && self.wg() <= l.max_compute_invocations_per_workgroup
            && smem <= l.max_compute_workgroup_storage_size as usize
    }
}

/// The kernel a product takes: the tiled kernel with its tiles, the large f32 kernel
/// (module `linalg_big`) at its depth, or the f64 kernel (module `linalg_f64`) with its
/// tiling.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub(crate) enum Choice {
    Tiled(Tiles),
    Big(BigCfg),
    F64(F64Cfg),
}

impl From<MatmulTiles> for Tiles {
    fn from(t: MatmulTiles) -> Tiles {
        Tiles::new(t.bm, t.bn, t.bk, t.tm, t.tn)
    }
}

/// Large tiles: 64 outputs per invocation, 256 invocations.
pub(super) const LARGE: Tiles = Tiles::new(128, 128, 16, 8, 8);
/// Medium tiles for problems with too few large tiles to fill the GPU.
pub(super) const MEDIUM: Tiles = Tiles::new(64, 64, 16, 4, 4);
/// Small tiles for small matrices and matrix-vector products.
pub(super) const SMALL: Tiles = Tiles::new(32, 32, 16, 4, 4);
/// Tiles of one 16 x 16 output for batches of tiny matrices (16 invocations).
const TINY: Tiles = Tiles::new(16, 16, 16, 4, 4);
/// How much more padding (computed outputs over M x N) than the least a tiling may cost
/// and still be taken for its larger tiles: split-K's 64 x 64 and 32 x 32 slices ran on
/// 128 x 128 tiles (4 and 16 times the work), 4096 products of 16 x 16 on 32 x 32 ones.
const WASTE: f64 = 1.3;

/// The configurations a trial compares on large problems, by shape class (see
/// [`shape_class`]): square-ish, few columns, few rows.
pub(super) const CANDIDATES: [[Tiles; 5]; 3] = [
    [
        LARGE,
        Tiles::new(128, 128, 32, 8, 8),
        Tiles::new(128, 64, 16, 8, 4),
        Tiles::new(64, 128, 16, 4, 8),
        MEDIUM,
    ],
    [
        Tiles::new(256, 32, 16, 8, 4),
        Tiles::new(128, 32, 16, 4, 4),
        Tiles::new(128, 64, 16, 8, 4),
        MEDIUM,
        Tiles::new(64, 32, 16, 4, 4),
    ],
    [
        Tiles::new(32, 256, 16, 4, 8),
        Tiles::new(32, 128, 16, 4, 4),
        Tiles::new(64, 128, 16, 4, 8),
        MEDIUM,
        Tiles::new(32, 64, 16, 4, 4),
    ],
];

/// Untimed choices by shape class, largest first: the first with enough workgroups.
const FALLBACK: [[Tiles; 2]; 3] = [
    [LARGE, MEDIUM],
    [Tiles::new(128, 32, 16, 4, 4), Tiles::new(64, 32, 16, 4, 4)],
    [Tiles::new(32, 128, 16, 4, 4), Tiles::new(32, 64, 16, 4, 4)],
];

/// The shape class of a product: 1 with few columns (N <= 64 and M at least 8 N), 2 with
/// few rows (the transpose), else 0. Tiles of 64 or 128 columns waste most of their work on
/// N = 7; tall narrow tiles keep the workgroups busy.
fn shape_class(prod: &Product<'_>) -> usize {
    if prod.n <= 64 && prod.m >= 8 * prod.n {
        1
    } else if prod.m <= 64 && prod.n >= 8 * prod.m {
        2
    } else {
        0
    }
}

/// Problems of at least this many multiply-adds (about 645^3) take the trial's
/// configuration. At 2^30 a 1000^3 product (0.93 x 2^30) missed the trial and took the
/// untimed large tiles, 64 workgroups on a GPU of 132 multiprocessors, far slower than
/// 1024^3 (BENCHMARKS.md, "Measurements behind the code's choices").
const TRIAL_MIN_FMAS: f64 = (1u64 << 28) as f64;
/// The same for the few-rows and few-columns shape classes. The trial's result is kept per
/// class, so at 2^28 a 16x4096x4096 product (2^28) set the choice its class then gave
/// 64x4096x4096 and 4096x64x4096, both slower for it (BENCHMARKS.md, "Measurements behind the code's choices").
const TRIAL_MIN_FMAS_NARROW: f64 = (1u64 << 30) as f64;
/// Workgroups below which a problem takes smaller tiles.
const MIN_WORKGROUPS: usize = 64;

/// Trial results of one device, by (element type, class: size class + 3 x shape class,
/// plus 9 where the large f32 kernel was a candidate).
pub(super) type Tuned = HashMap<(DType, u32), Choice>;

/// A configuration forced through the device's options (`GPUARRAY_MATMUL_TILES`, for
/// tuning), where the kernel supports it.
fn forced_tiles(dev: &Device) -> Option<Tiles> {
    dev.options()
        .tuning
        .matmul_tiles
        .map(Tiles::from)
        .filter(|t| t.valid())
}

/// Bytes of one workgroup-tile element: the accumulator type.
pub(super) fn acc_size(d: DType) -> usize {
    match d {
        DType::F16 => 4,
        d => d.size(),
    }
}

/// Whether C takes vec4 stores: N a multiple of 4 and elements of at most 4 bytes.
pub(super) fn vec_out(d: DType, n: usize) -> bool {
    d.size() <= 4 && n.is_multiple_of(4)
}

/// The source of the tiled kernel for element type `d` (f16 accumulates in f32), with
/// vec4 loads of A and/or B (`va`, `vb`) and vec4 stores of C (`vc`).
pub(super) fn spec(d: DType, [va, vb, vc]: [bool; 3], tiles: Tiles, ta: bool, tb: bool) -> Spec {
    let acc = if d == DType::F16 { DType::F32 } else { d };
    let s = d.wgsl();
    let vector = |name: &str, buf: &str| {
        format!(
            "fn fetch_{name}(e: u32, cnt: u32) -> vec4<ACC> {{ if (cnt < 4u) {{ return vec4<ACC>(); }} return vec4<ACC>({buf}[e / 4u]); }}"
        )
    };
    let mut spec = Spec::new("linalg", SRC)
        .scalar(d)
        .alias("ACC", acc.wgsl())
        .alias("VA", if va { format!("vec4<{s}>") } else { s.into() })
        .alias("VB", if vb { format!("vec4<{s}>") } else { s.into() })
        .alias("VC", if vc { format!("vec4<{s}>") } else { s.into() })
        .constant("BM", tiles.bm)
        .constant("BN", tiles.bn)
        .constant("BK", tiles.bk)
        .constant("TM", tiles.tm)
        .constant("TN", tiles.tn)
        .constant("TA", ta as u32)
        .constant("TB", tb as u32)
        .unchecked();
    if va {
        spec = spec.function("fetch_a", vector("a", "a")).function(
            "lane_a",
            "fn lane_a(k: u32) -> ACC { return ACC(a[k / 4u][k % 4u]); }",
        );
    }
    if vb {
        spec = spec.function("fetch_b", vector("b", "b"));
    }
    if vc {
        spec = spec
            .function(
                "put",
                format!("fn put(e: u32, x: ACC) {{ out[e / 4u][e % 4u] = {s}(x); }}"),
            )
            .function(
                "store_c",
                format!("fn store_c(e: u32, v: vec4<ACC>, cnt: u32) {{ if (cnt == 4u) {{ out[e / 4u] = vec4<{s}>(v); }} }}"),
            );
    }
    spec
}

/// Records the product into `out` with the kernel [`choose`] picks.
pub(super) fn record<T: Element>(dev: &Device, prod: &Product<'_>, out: &Array<T>) -> Result<()> {
    let c = choose(dev, prod, out)?;
    run_choice(dev, prod, out, c)
}

/// Records the product into `out` with the kernel and tiles of `c` (an f64 tiling a
/// product of the class cannot take, K too long for its loop, on the 8-byte tiles).
pub(super) fn run_choice<T: Element>(
    dev: &Device,
    prod: &Product<'_>,
    out: &Array<T>,
    c: Choice,
) -> Result<()> {
    match c {
        Choice::Tiled(t) => run_tiled(dev, prod, out, t),
        Choice::Big(c) => linalg_big::run(dev, prod, out, c),
        Choice::F64(c) if linalg_f64::eligible(dev, T::DTYPE, prod, c) => {
            linalg_f64::run(dev, prod, out, c)
        }
        Choice::F64(_) => run_tiled(dev, prod, out, eight_byte(dev)),
    }
}

/// The tiled kernel's tiles for 8-byte elements: medium where the adapter holds them.
pub(super) fn eight_byte(dev: &Device) -> Tiles {
    if MEDIUM.fits(dev, 8) {
        MEDIUM
    } else {
        SMALL
    }
}

/// Records the product into `out` with the tiled kernel and `tiles`.
pub(super) fn run_tiled<T: Element>(
    dev: &Device,
    prod: &Product<'_>,
    out: &Array<T>,
    tiles: Tiles,
) -> Result<()> {
    let (a, b) = (&prod.a, &prod.b);
    let vc = vec_out(T::DTYPE, prod.n);
    let key = Key {
        family: "linalg",
        entry: "matmul",
        variant: format!(
            "{}|{}{}{}|{}{}|{tiles:?}",
            T::DTYPE,
            a.vec as u8,
            b.vec as u8,
            vc as u8,
            a.trans as u8,
            b.trans as u8
        ),
        inputs: 2,
        wg: tiles.wg(),
        ndim: 0,
        per: 0,
    };
    let kernel = dev.kernel(key, || {
        spec(T::DTYPE, [a.vec, b.vec, vc], tiles, a.trans, b.trans)
    })?;
    dispatch(dev, &kernel, prod, out.binding(), (tiles.bm, tiles.bn))
}

/// The kernel for a product: forced, tuned (large problems), or by size.
pub(super) fn choose<T: Element>(
    dev: &Device,
    prod: &Product<'_>,
    out: &Array<T>,
) -> Result<Choice> {
    let (c, how) = pick::<T>(dev, prod, out)?;
    prod.trace(dev, T::DTYPE, || match c {
        Choice::Tiled(t) => format!(
            "tiled {}x{}x{} tile, {}x{} per invocation ({how})",
            t.bm, t.bn, t.bk, t.tm, t.tn
        ),
        Choice::Big(c) => format!(
            "big 128x128x{} tile, 8x8 per invocation, {} warps ({how})",
            c.bk,
            if c.quad { "8x4" } else { "16x2" }
        ),
        Choice::F64(c) => format!(
            "f64 {}x{}x{} tile, {}x{} per invocation{}{} ({how})",
            c.bm,
            c.bn,
            c.bk,
            c.tm,
            c.tn,
            if c.layout.pair { ", paired lanes" } else { "" },
            if c.layout.frag {
                ", fragments ahead"
            } else {
                ""
            }
        ),
    });
    Ok(c)
}

/// [`choose`]'s kernel and how it was chosen.
fn pick<T: Element>(dev: &Device, prod: &Product<'_>, out: &Array<T>) -> Result<(Choice, String)> {
    if let Some(c) = linalg_big::forced(dev, T::DTYPE, prod) {
        return Ok((Choice::Big(c), "forced".into()));
    }
    if let Some(c) = linalg_f64::forced(dev, T::DTYPE, prod) {
        return Ok((Choice::F64(c), "forced".into()));
    }
    pick_tiles::<T>(dev, prod, out)
}

/// [`pick`] where the large kernel is not forced.
fn pick_tiles<T: Element>(
    dev: &Device,
    prod: &Product<'_>,
    out: &Array<T>,
) -> Result<(Choice, String)> {
    let acc = acc_size(T::DTYPE);
    let tiled = |t: Tiles, how: &str| Ok((Choice::Tiled(t), how.to_string()));
    if let Some(t) = forced_tiles(dev).filter(|t| t.fits(dev, acc)) {
        return tiled(t, "forced");
    }
    // f64 goes on to the trial (its own kernel's tilings beside the 8-byte tiles); other
    // 8-byte types, and f64 products too small for the trial, take the 8-byte tiles.
    let eight = T::DTYPE.size() > 4;
    if eight && T::DTYPE != DType::F64 {
        return tiled(eight_byte(dev), "8-byte elements");
    }
    let workgroups =
        |t: Tiles| prod.m.div_ceil(t.bm as usize) * prod.n.div_ceil(t.bn as usize) * prod.batches;
    let pad = |d: usize, t: u32| d.div_ceil(t as usize) * t as usize;
    let waste =
        |t: Tiles| (pad(prod.m, t.bm) * pad(prod.n, t.bn)) as f64 / (prod.m * prod.n) as f64;
    let shape = shape_class(prod);
    // The narrow classes' tiles are chosen for their short side already.
    let lean = |t: Tiles| shape != 0 || waste(t) <= WASTE * waste(TINY);
    let large = workgroups(CANDIDATES[shape][0]);
    let min_fmas = if shape == 0 {
        TRIAL_MIN_FMAS
    } else {
        TRIAL_MIN_FMAS_NARROW
    };
    if prod.fmas() >= min_fmas && large >= MIN_WORKGROUPS && lean(CANDIDATES[shape][0]) {
        // Size classes by large-tile workgroups (a 1024^2 output has 64, a 4096^2 one
        // 1024): the best tiles differ between a partly and a fully occupied GPU. Where
        // the large f32 kernel is a candidate the first class ends at 255: 2048^2 (256)
        // is faster on it than on 1024^2's choice, 64 x 64 tiles (BENCHMARKS.md). So for
        // f64: on the H200 (2026-11-29, docs/benchmarks/session21.md) 2048^3 took 1.185 ms
        // on 1024^2's trial choice (64 x 64 x 16, 8 x 4) and 0.936 on 4096^2's (128 x 128,
        // 8 x 8); 2048^3 "tn" 1.157 against 0.927.
        let depths = linalg_big::eligible(dev, T::DTYPE, prod);
        let first = if depths.is_empty() && T::DTYPE != DType::F64 {
            511
        } else {
            255
        };
        let size = match large {
            l if l <= first => 0,
            ..=2047 => 1,
            _ => 2,
        };
        let class = size + 3 * shape as u32 + if depths.is_empty() { 0 } else { 9 };
        let (c, how) = super::tile_trial::tuned(dev, prod, out, class, &depths)?;
        return Ok((c, format!("{how}, class {class}")));
    }
    if eight {
        return tiled(eight_byte(dev), "8-byte elements");
    }
    for t in FALLBACK[shape] {
        if t.fits(dev, acc) && workgroups(t) >= MIN_WORKGROUPS && lean(t) {
            return tiled(t, &format!("untimed, shape class {shape}"));
        }
    }
    if lean(SMALL) {
        return tiled(SMALL, "small");
    }
    tiled(TINY, "tiny")
}

/// Records the `trace` kernel (the tiled kernel's source, small tiles) summing the
/// diagonals described by `p` from `src` into `out`, one invocation per matrix.
pub(super) fn run_trace<T: Element>(
    dev: &Device,
    src: Binding<'_>,
    out: Binding<'_>,
    p: TraceParams,
) -> Result<()> {
    let tiles = SMALL;
    let key = Key {
        family: "linalg",
        entry: "trace",
        variant: format!("{}|trace", T::DTYPE),
        inputs: 2,
        wg: 64,
        ndim: 0,
        per: 0,
    };
    let kernel = dev.kernel(key, || spec(T::DTYPE, [false; 3], tiles, false, false))?;
    dev.launch(&kernel, &p.encode(), &[src, src], out, Work::Items(p.count))
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Every configuration the trial or the untimed choice can pick is one the kernel's
    /// register arrays hold.
    #[test]
    fn every_candidate_is_valid() {
        let all = CANDIDATES.iter().flatten().chain(FALLBACK.iter().flatten());
        for t in all.chain([&LARGE, &MEDIUM, &SMALL, &TINY]) {
            assert!(t.valid(), "{t:?}");
            assert!(t.wg() <= 256, "{t:?}");
        }
    }
}
