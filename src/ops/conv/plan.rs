//! Kernel choices of the convolutions: the tile sizes of each kernel, the pipeline constants
//! they compile with (their [`Spec`]s), and the tests that pick a tiled kernel over its
//! direct fallback (filter size, workgroup memory, grid limits, `Tuning::conv_direct`).

use super::{acc, base_spec};
use crate::config::MatmulTiles;
use crate::device::Device;
use crate::dtype::DType;
use crate::kernel::launch::MAX_GROUPS;
use crate::kernel::source::Spec;

/// Largest filter side the tiled 2-D kernel takes (its register column holds 16 taps).
pub(super) const TILE_MAX_K: usize = 16;
/// The tiled 2-D kernel's workgroup (TX x TY invocations) and outputs per invocation (PY).
pub(super) const TILE: (u32, u32, u32) = (32, 8, 8);
/// The 1-D kernel: invocations, vec4 output groups per invocation, taps per chunk.
pub(super) const SIG1D: (u32, u32, u32) = (256, 2, 128);

/// Tiles of the implicit GEMM: (BM, BN, BK, TM, TN).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(super) struct GemmTiles {
    pub bm: u32,
    pub bn: u32,
    pub bk: u32,
    pub tm: u32,
    pub tn: u32,
}

impl GemmTiles {
    /// Invocations per workgroup.
    pub(super) fn wg(self) -> u32 {
        (self.bm / self.tm) * (self.bn / self.tn)
    }

    /// Whether `nn_gemm` runs with these tiles: TM and TN of 4 or 8 dividing BM and BN,
    /// and the A and B tiles shared evenly (whole rows of invocations, 1 to 16 loads each).
    fn valid(self) -> bool {
        let GemmTiles { bm, bn, bk, tm, tn } = self;
        let shape = [4, 8].contains(&tm) && [4, 8].contains(&tn) && bk > 0 && bk <= 64;
        let shape = shape && bm <= 1024 && bn <= 1024;
        if !shape || bm == 0 || bn == 0 || !bm.is_multiple_of(tm) || !bn.is_multiple_of(tn) {
            return false;
        }
        let wg = self.wg();
        let share = |b: u32| {
            wg.is_multiple_of(b) && (b * bk).is_multiple_of(wg) && (1..=16).contains(&(b * bk / wg))
        };
        wg <= 1024 && share(bm) && share(bn)
    }

    /// Workgroups over `layer`'s pixels (every image's), group outputs and groups.
    fn count(self, layer: &LayerShape) -> usize {
        self.pixel_tiles(layer) * self.channel_tiles(layer) * layer.groups
    }

    /// Tiles over the GEMM's pixel dimension: every image's output pixels.
    fn pixel_tiles(self, layer: &LayerShape) -> usize {
        (layer.images * layer.pixels).div_ceil(self.bm as usize)
    }

    /// Whether `nn_gemm` orders the reduction tap-major (`TAPS`): where BK divides the
    /// input channels per group, so that each K tile is one filter tap.
    pub(super) fn taps(self, layer: &LayerShape) -> bool {
        let [kh, kw] = layer.filter;
        (layer.depth / (kh * kw)).is_multiple_of(self.bk as usize)
    }

    /// Tiles over one group's output channels.
    fn channel_tiles(self, layer: &LayerShape) -> usize {
        layer.group_outputs.div_ceil(self.bn as usize)
    }
}

impl From<MatmulTiles> for GemmTiles {
    fn from(t: MatmulTiles) -> GemmTiles {
        GemmTiles {
            bm: t.bm,
            bn: t.bn,
            bk: t.bk,
            tm: t.tm,
            tn: t.tn,
        }
    }
}

/// Tiles for layers with at least 64 output channels per group.
pub(super) const GEMM_WIDE: GemmTiles = GemmTiles {
    bm: 128,
    bn: 64,
    bk: 16,
    tm: 8,
    tn: 4,
};
/// Tiles for layers with fewer output channels per group, and for 33 to 64 where
/// [`GEMM_WIDE`] does not fill the GPU.
pub(super) const GEMM_NARROW: GemmTiles = GemmTiles {
    bm: 128,
    bn: 32,
    bk: 16,
    tm: 8,
    tn: 4,
};

/// The tiled 2-D kernel for a `kh x kw` filter.
pub(super) fn tile_spec(d: DType, kh: u32, kw: u32) -> Spec {
    let (tx, ty, py) = TILE;
    base_spec(d)
        .constant("KH", kh)
        .constant("KW", kw)
        .constant("TX", tx)
        .constant("TY", ty)
        .constant("PY", py)
        .unchecked()
}

/// The blocked 1-D kernel.
pub(super) fn sig1d_spec(d: DType) -> Spec {
    let (wg, r1, tc) = SIG1D;
    base_spec(d)
        .constant("R1", r1)
        .constant("TC", tc)
        .constant("SEG4", r1 * wg + tc / 4)
        .unchecked()
}

/// The implicit GEMM with tiles `t` for a `kh x kw` filter, its reduction tap-major where
/// `taps` (see [`GemmTiles::taps`]).
pub(super) fn gemm_spec(d: DType, t: GemmTiles, kh: u32, kw: u32, taps: bool) -> Spec {
    base_spec(d)
        .constant("TAPS", u32::from(taps))
        .constant("KH", kh)
        .constant("KW", kw)
        .constant("BM", t.bm)
        .constant("BN", t.bn)
        .constant("BK", t.bk)
        .constant("TM", t.tm)
        .constant("TN", t.tn)
        .unchecked()
}

/// Smaller tiles, for layers that give the larger ones too few workgroups to fill the GPU.
pub(super) const GEMM_SMALL: GemmTiles = GemmTiles {
    bm: 64,
    bn: 64,
    bk: 16,
    tm: 4,
    tn: 4,
};
/// [`GEMM_SMALL`] for at most 32 output channels per group.
pub(super) const GEMM_SMALL_NARROW: GemmTiles = GemmTiles {
    bm: 64,
    bn: 32,
    bk: 16,
    tm: 4,
    tn: 4,
};
/// Workgroups below which a layer takes the small tiles (2 per SM of an H100). With the
/// tap-major loads 392 workgroups of 128 x 64 beat 784 of 64 x 64, 196 do not
/// (BENCHMARKS.md, "Measurements behind the code's choices").
const FILL_WORKGROUPS: usize = 264;

/// Workgroup memory of the tiled 2-D kernel for a `kh x kw` filter, in bytes.
fn tile_smem(d: DType, kh: usize, kw: usize) -> usize {
    let (tx, ty, py) = TILE;
    let (tx, ty, py) = (tx as usize, ty as usize, py as usize);
    // Plus the other entry points' arrays at their minimal sizes (a few hundred bytes).
    ((ty * py + kh - 1) * (tx + kw - 1) + kh * kw + 64) * acc(d).size() + 256
}

/// Workgroup memory of the implicit GEMM with tiles `t`, in bytes.
fn gemm_smem(d: DType, t: GemmTiles) -> usize {
    ((t.bm + t.bn) * t.bk) as usize * acc(d).size() + 512
}

/// The workgroup grid of the tiled 2-D kernel for an `oh x ow` output and a `kh x kw`
/// filter, or `None` where the direct kernel runs instead: a filter side over
/// [`TILE_MAX_K`], tiles beyond the device's workgroup memory, a grid over [`MAX_GROUPS`],
/// or `Tuning::conv_direct`.
pub(super) fn sig2d_tile_grid(
    dev: &Device,
    d: DType,
    [oh, ow]: [usize; 2],
    [kh, kw]: [usize; 2],
) -> Option<[u32; 3]> {
    let (tx, ty, py) = TILE;
    let grid = [ow.div_ceil(tx as usize), oh.div_ceil((ty * py) as usize)];
    let smem_ok = tile_smem(d, kh, kw) <= dev.limits().max_compute_workgroup_storage_size as usize;
    let tiled = kh <= TILE_MAX_K
        && kw <= TILE_MAX_K
        && smem_ok
        && grid.iter().all(|&g| g <= MAX_GROUPS as usize)
        && !dev.options().tuning.conv_direct;
    tiled.then_some([grid[0] as u32, grid[1] as u32, 1])
}

/// Whether `layer` gives `nn_gemm`'s 128 x 64 tiles at least [`FILL_WORKGROUPS`]
/// workgroups (else it takes smaller tiles, and a 1x1 layer runs as a matrix product).
pub(super) fn fills_gpu(layer: &LayerShape) -> bool {
    GEMM_WIDE.count(layer) >= FILL_WORKGROUPS
}

/// The sizes of a conv2d layer that decide its kernel.
#[derive(Debug, Clone, Copy)]
pub(super) struct LayerShape {
    /// Images N.
    pub images: usize,
    /// Channel groups.
    pub groups: usize,
    /// Output channels per group.
    pub group_outputs: usize,
    /// Reduction depth (input channels per group x filter taps).
    pub depth: usize,
    /// Output pixels per channel.
    pub pixels: usize,
    /// Filter height and width.
    pub filter: [usize; 2],
}

/// The implicit GEMM's tiles and workgroup grid for `layer` (`Tuning::conv_tiles` where
/// valid; else 128 x 64 or 128 x 32, or smaller tiles where those give fewer than
/// [`FILL_WORKGROUPS`]), or `None` where the direct
/// kernel runs instead: fewer than 16 output channels per group or a reduction shallower
/// than 16 (depthwise and channel-poor layers), a grid over [`MAX_GROUPS`] (the pixel tiles
/// of every image fold into two dimensions), a filter side
/// over 64, tiles beyond the device's limits, or `Tuning::conv_direct`.
pub(super) fn gemm_plan(
    dev: &Device,
    d: DType,
    layer: &LayerShape,
) -> Option<(GemmTiles, [u32; 3])> {
    let og = layer.group_outputs;
    let [kh, kw] = layer.filter;
    let forced = dev.options().tuning.conv_tiles.map(GemmTiles::from);
    let fills = fills_gpu(layer);
    // 128 x 32 for 33 to 64 outputs below the fill (faster than 64 x 64 on 5x5
    // n32c32k64; BENCHMARKS.md).
    let tiles = match forced.filter(|t| t.valid()) {
        Some(t) => t,
        None if !fills && og > 64 => GEMM_SMALL,
        None if !fills && og > 32 => GEMM_NARROW,
        None if GEMM_NARROW.count(layer) < FILL_WORKGROUPS => GEMM_SMALL_NARROW,
        None if og >= 64 => GEMM_WIDE,
        None => GEMM_NARROW,
    };
    let limits = dev.limits();
    let ptiles = tiles.pixel_tiles(layer);
    let chunks = ptiles.div_ceil(MAX_GROUPS as usize).max(1);
    let gemm = og >= 16
        && layer.depth >= 16
        && tiles.channel_tiles(layer) <= MAX_GROUPS as usize
        && chunks * layer.groups <= MAX_GROUPS as usize
        && kh <= 64
        && kw <= 64
        && gemm_smem(d, tiles) <= limits.max_compute_workgroup_storage_size as usize
        && tiles.wg() <= limits.max_compute_invocations_per_workgroup
        && !dev.options().tuning.conv_direct;
    // Channel tiles over x, pixel tiles over y in chunks of at most MAX_GROUPS (nn_gemm
    // skips the tiles past the end), groups times chunks over z.
    let grid = [
        tiles.channel_tiles(layer) as u32,
        ptiles.div_ceil(chunks) as u32,
        (chunks * layer.groups) as u32,
    ];
    gemm.then_some((tiles, grid))
}
