//! The tiled walk of the elementwise family (the `*_tiled` entries of
//! shaders/elementwise.wgsl): when operands permuted against the output go through
//! workgroup-memory tiles, and over which axes.

use crate::kernel::source::Spec;

use super::plan::WG;

/// The extents of a tiled walk's tiles along the tile axis (`i`) and along the output's
/// innermost axis (`j`): the `TI` and `TJ` overrides of shaders/elementwise.wgsl, each 32
/// or 64.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(super) struct Tile {
    pub i: usize,
    pub j: usize,
}

/// The smallest tile's side; outputs below its square take the strided walk.
const SIDE: usize = 32;
const MIN_TILED: usize = SIDE * SIDE;
/// Tiles are used where both of their axes are at least this long (shorter ones would
/// leave most of each tile's invocations idle, and the strided walk reads such narrow
/// operands nearly coalesced anyway).
const MIN_SIDE: usize = 8;

impl Tile {
    /// The tile for `ni` x `nj` elements along i and j.
    fn choose(ni: usize, _nj: usize) -> Tile {
        if let Some(t) = forced() {
            return t;
        }
        Tile {
            i: if ni >= 64 { 64 } else { 32 },
            j: 32,
        }
    }

    /// `spec` (a variant of shaders/elementwise.wgsl) with this tile's overrides and the
    /// sizes of its workgroup tiles and register arrays.
    pub(super) fn specialise(self, spec: Spec) -> Spec {
        let slots = self.j * (self.i + 1);
        let regs = self.i * self.j / WG as usize;
        spec.alias("TILE_T", format!("array<T, {slots}>"))
            .alias("TILE_M", format!("array<M, {slots}>"))
            .alias("REG_T", format!("array<T, {regs}>"))
            .alias("REG_M", format!("array<M, {regs}>"))
            .constant("TI", self.i as u32)
            .constant("TJ", self.j as u32)
    }
}

/// The tile forced by `GPUARRAY_TILE=IxJ` (I and J 32 or 64), to time the shapes apart.
fn forced() -> Option<Tile> {
    let v = std::env::var("GPUARRAY_TILE").ok()?;
    let (i, j) = v.split_once('x')?;
    let t = Tile {
        i: i.parse().ok()?,
        j: j.parse().ok()?,
    };
    [t.i, t.j].iter().all(|s| [32, 64].contains(s)).then_some(t)
}

/// The tile axis of a tiled walk over the merged `shape` with the operands' `strides`
/// (see the `*_tiled` entries of shaders/elementwise.wgsl), its tile and its grid of
/// workgroups; or `None` where every operand reads along the output's innermost axis with a
/// stride of at most 1 (the other walks are coalesced), or the grid does not fit. The tile
/// axis is the one along which the first operand that does not has its smallest stride,
/// where that is below its stride along the innermost axis and both axes have at least
/// [`MIN_SIDE`] elements.
pub(super) fn tile_axis(
    shape: &[usize],
    strides: &[Vec<usize>],
) -> Option<(usize, Tile, [u32; 3])> {
    let inner = shape.len().checked_sub(1)?;
    if inner == 0 || shape.iter().product::<usize>() < MIN_TILED {
        return None;
    }
    let st = strides.iter().find(|s| s[inner] > 1)?;
    let t = (0..inner)
        .filter(|&d| st[d] > 0)
        .min_by_key(|&d| st[d])
        .filter(|&d| st[d] < st[inner] && shape[d].min(shape[inner]) >= MIN_SIDE)?;
    let tile = Tile::choose(shape[t], shape[inner]);
    let batch: usize = (0..inner).filter(|&d| d != t).map(|d| shape[d]).product();
    let grid = [
        shape[inner].div_ceil(tile.j),
        shape[t].div_ceil(tile.i),
        batch,
    ];
    if grid.iter().any(|&g| g > 65_535) {
        return None;
    }
    Some((t, tile, grid.map(|g| g as u32)))
}

#[cfg(test)]
mod tests {
    use super::{tile_axis, Tile};
    use crate::dtype::DType;
    use crate::kernel::source::validate;

    #[test]
    fn tile_axis_picks_the_permuted_operand() {
        if super::forced().is_some() {
            return;
        }
        // a.t() + b of 64 x 48: a's strides (1, 64), b's (48, 1); tile axis 0, tiles of
        // 64 x 32, 2 x 1 of them.
        assert_eq!(
            tile_axis(&[64, 48], &[vec![1, 64], vec![48, 1]]),
            Some((0, Tile { i: 64, j: 32 }, [2, 1, 1]))
        );
        // Contiguous and broadcast operands read along the rows: no tiles.
        assert_eq!(tile_axis(&[64, 48], &[vec![48, 1], vec![0, 1]]), None);
        // A narrow innermost axis, and a small output: no tiles.
        assert_eq!(tile_axis(&[4096, 4], &[vec![1, 4096]]), None);
        assert_eq!(tile_axis(&[20, 20], &[vec![1, 20]]), None);
        // transpose(0, 2, 1) of 5 x 36 x 40: tile axis 1 (40 long: 32-row tiles), 5 deep.
        assert_eq!(
            tile_axis(&[5, 40, 36], &[vec![1440, 1, 40]]),
            Some((1, Tile { i: 32, j: 32 }, [2, 2, 5]))
        );
    }

    /// Every tile shape of every dtype's tiled entries validates (the shader validation
    /// test covers the file's default, 32 x 32).
    #[test]
    fn every_tile_shape_validates() {
        let caps = naga::valid::Capabilities::SHADER_FLOAT16
            | naga::valid::Capabilities::FLOAT64
            | naga::valid::Capabilities::SHADER_INT64;
        for d in DType::ALL {
            for (i, j) in [(32, 32), (64, 32), (32, 64), (64, 64)] {
                let op = "fn op1(a: T) -> U { return U(a); }".to_string();
                let spec =
                    Tile { i, j }.specialise(super::super::expr::spec(d, d, false, "op1", op));
                let src = spec.render();
                assert!(src.contains(&format!("array<T, {}>", j * (i + 1))));
                if let Err(e) = validate("elementwise", &src, caps) {
                    panic!("{d} {i}x{j}: {e}");
                }
            }
        }
    }
}
