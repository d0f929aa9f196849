//! The tiled walk of the elementwise family (the `*_tiled` entries of
//! shaders/elementwise.wgsl): when operands permuted against the output go through
//! workgroup-memory tiles, and over which axes.

/// The side of the tiled entries' square tiles (`TILE` in shaders/elementwise.wgsl).
const TILE: usize = 32;
/// Outputs below this many elements take the strided walk (one tile's worth).
const MIN_TILED: usize = TILE * TILE;
/// Tiles are used where both of their axes are at least this long (shorter ones would
/// leave most of each tile's invocations idle, and the strided walk reads such narrow
/// operands nearly coalesced anyway).
const MIN_SIDE: usize = 8;

/// The tile axis of a tiled walk over the merged `shape` with the operands' `strides`
/// (see the `*_tiled` entries of shaders/elementwise.wgsl), and its grid of workgroups; or
/// `None` where every operand reads along the output's innermost axis with a stride of at
/// most 1 (the other walks are coalesced), or the grid does not fit. The tile axis is the
/// one along which the first operand that does not has its smallest stride, where that is
/// below its stride along the innermost axis and both axes have at least [`MIN_SIDE`]
/// elements.
pub(super) fn tile_axis(shape: &[usize], strides: &[Vec<isize>]) -> Option<(usize, [u32; 3])> {
    let inner = shape.len().checked_sub(1)?;
    if inner == 0 || shape.iter().product::<usize>() < MIN_TILED {
        return None;
    }
    // By magnitude: a negative stride (a reversed axis) reads as fast as a positive one.
    let st: Vec<usize> = strides
        .iter()
        .map(|s| s.iter().map(|x| x.unsigned_abs()).collect())
        .find(|s: &Vec<usize>| s[inner] > 1)?;
    let t = (0..inner)
        .filter(|&d| st[d] > 0)
        .min_by_key(|&d| st[d])
        .filter(|&d| st[d] < st[inner] && shape[d].min(shape[inner]) >= MIN_SIDE)?;
    let batch: usize = (0..inner).filter(|&d| d != t).map(|d| shape[d]).product();
    let grid = [shape[inner].div_ceil(TILE), shape[t].div_ceil(TILE), batch];
    if grid.iter().any(|&g| g > 65_535) {
        return None;
    }
    Some((t, grid.map(|g| g as u32)))
}

#[cfg(test)]
mod tests {
    use super::tile_axis;

    #[test]
    fn tile_axis_picks_the_permuted_operand() {
        // a.t() + b of 64 x 48: a's strides (1, 64), b's (48, 1); tile axis 0, 2 x 2 tiles.
        assert_eq!(
            tile_axis(&[64, 48], &[vec![1, 64], vec![48, 1]]),
            Some((0, [2, 2, 1]))
        );
        // Contiguous and broadcast operands read along the rows: no tiles.
        assert_eq!(tile_axis(&[64, 48], &[vec![48, 1], vec![0, 1]]), None);
        // A narrow innermost axis, and a small output: no tiles.
        assert_eq!(tile_axis(&[4096, 4], &[vec![1, 4096]]), None);
        assert_eq!(tile_axis(&[20, 20], &[vec![1, 20]]), None);
        // transpose(0, 2, 1) of 5 x 36 x 40: tile axis 1, 5 tiles deep.
        assert_eq!(
            tile_axis(&[5, 40, 36], &[vec![1440, 1, 40]]),
            Some((1, [2, 2, 5]))
        );
    }
}
