//! The large f32 product kernel of shaders/linalg_big.wgsl: 128 x 128 output tiles, 8 x 8
//! outputs per invocation in two groups of 4 rows and 4 columns a half-tile apart,
//! workgroup tiles k-major with a padded row, double-buffered, the k loop unrolled in the text
//! (`Spec::unroll`: naga emits loops as written). It takes only products whose every index is in bounds
//! by construction ([`eligible`]: M and N multiples of 128, K of the depth, vec4 loads of
//! both operands); the others take the tiled kernel. Whether an eligible product takes it
//! is the tile trial's choice (module `tiled`), or forced through
//! `Tuning::matmul_big` (`GPUARRAY_MATMUL_BIG`).

use crate::array::Array;
use crate::device::Device;
use crate::dtype::{DType, Element};
use crate::error::Result;
use crate::kernel::cache::Key;
use crate::kernel::source::Spec;

use super::params::accessors;
use super::product::{dispatch, Product};

/// The text of shaders/linalg_big.wgsl.
const BIG_SRC: &str = include_str!("../../../shaders/linalg_big.wgsl");

/// Rows and columns of the output tile.
const TILE: usize = 128;
/// Invocations per workgroup.
const WG: u32 = 256;
/// The depths the kernel takes (its loads cover BK x 128 values in one or two vec4 chunks
/// per invocation).
pub(super) const DEPTHS: [u32; 2] = [16, 8];

/// One configuration of the kernel: the depth BK, and warps of 8 x 4 invocations
/// (`quad`) or 16 x 2.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub(crate) struct BigCfg {
    pub bk: u32,
    pub quad: bool,
}

/// The configurations the tile trial times at the eligible `depths`.
pub(super) fn candidates(depths: &[u32]) -> impl Iterator<Item = BigCfg> + '_ {
    depths
        .iter()
        .flat_map(|&bk| [false, true].map(|quad| BigCfg { bk, quad }))
}

/// Vec4s per k row of the workgroup tiles the adapter holds at depth `bk`: 33 (padded
/// against the transposing stores' bank conflicts), else 32; `None` where neither fits.
fn row_len(dev: &Device, bk: u32) -> Option<u32> {
    let l = dev.limits();
    // Two buffers of A's and B's tiles, bk rows of 16-byte words each.
    let bytes = |row: u32| 2 * 2 * bk as usize * row as usize * 16;
    if WG > l.max_compute_invocations_per_workgroup {
        return None;
    }
    [33, 32]
        .into_iter()
        .find(|&r| bytes(r) <= l.max_compute_workgroup_storage_size as usize)
}

/// The depths at which this product may take the kernel, deepest first (none for element
/// types other than f32, sizes not multiples of the tile, operands without vec4 loads, or
/// with the kernel turned off).
pub(super) fn eligible(dev: &Device, dtype: DType, prod: &Product<'_>) -> Vec<u32> {
    let shaped = dtype == DType::F32
        && dev.options().tuning.matmul_big != Some(0)
        && prod.m.is_multiple_of(TILE)
        && prod.n.is_multiple_of(TILE)
        && prod.a.vec
        && prod.b.vec;
    DEPTHS
        .into_iter()
        .filter(|&bk| shaped && prod.k.is_multiple_of(bk as usize) && row_len(dev, bk).is_some())
        .collect()
}

/// The configuration forced through `Tuning::matmul_big` for this product: the depth
/// asked for (8 or 16) where eligible, or with any other value the deepest eligible one;
/// the warp layout of `Tuning::matmul_big_quad`.
pub(super) fn forced(dev: &Device, dtype: DType, prod: &Product<'_>) -> Option<BigCfg> {
    let want = dev.options().tuning.matmul_big.filter(|&v| v != 0)?;
    let depths = eligible(dev, dtype, prod);
    let bk = if DEPTHS.contains(&want) {
        depths.contains(&want).then_some(want)
    } else {
        depths.first().copied()
    }?;
    let quad = dev.options().tuning.matmul_big_quad;
    Some(BigCfg { bk, quad })
}

/// The kernel's spec for configuration `cfg`, `row` vec4s per k row of the workgroup
/// tiles and operand layouts `ta`, `tb` (transposed views).
pub(super) fn spec((cfg, row): (BigCfg, u32), ta: bool, tb: bool) -> Spec {
    Spec::new("linalg_big", format!("{BIG_SRC}\n{}", accessors()))
        .unroll("BK", cfg.bk)
        .constant("BK", cfg.bk)
        .constant("QUAD", cfg.quad as u32)
        .constant("SROW", row)
        .constant("TA", ta as u32)
        .constant("TB", tb as u32)
        .unchecked()
}

/// Records the product into `out` (f32) on the kernel in configuration `cfg` (at one of
/// [`eligible`]'s depths).
pub(super) fn run<T: Element>(
    dev: &Device,
    prod: &Product<'_>,
    out: &Array<T>,
    cfg: BigCfg,
) -> Result<()> {
    let bk = cfg.bk;
    debug_assert!(eligible(dev, T::DTYPE, prod).contains(&bk));
    let row = row_len(dev, bk).expect("eligible at this depth");
    let (ta, tb) = (prod.a.trans, prod.b.trans);
    let key = Key {
        family: "linalg_big",
        entry: "matmul_big",
        variant: format!(
            "{}|{}{}|{bk}/{row}/{}",
            T::DTYPE,
            ta as u8,
            tb as u8,
            cfg.quad as u8
        ),
        inputs: 2,
        wg: WG,
        ndim: 0,
        per: 0,
    };
    let kernel = dev.kernel(key, || spec((cfg, row), ta, tb))?;
    dispatch(
        dev,
        &kernel,
        prod,
        out.binding(),
        (TILE as u32, TILE as u32),
    )
}

/// Every depth and layout, for the shader validation test.
#[cfg(test)]
pub(super) fn specs() -> Vec<Spec> {
    let mut specs = Vec::new();
    for cfg in candidates(&DEPTHS) {
        for (ta, tb) in [(false, false), (true, false), (false, true), (true, true)] {
            specs.push(spec((cfg, 33), ta, tb));
        }
    }
    let cfg = BigCfg {
        bk: 16,
        quad: false,
    };
    specs.push(spec((cfg, 32), true, false));
    specs
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::config::Options;
    use crate::ops::linalg::product::operand;

    /// Which products `Tuning::matmul_big` sends to the kernel: f32 with M and N multiples
    /// of 128 and K of the depth asked for (or of 8, asked for any other depth), in the warp
    /// layout asked for; nothing with the kernel turned off.
    #[test]
    fn forced_takes_the_eligible_products() {
        let taken = |big: u32, quad: bool, (m, k, n): (usize, usize, usize)| {
            let mut opts = Options::default();
            opts.tuning.matmul_big = Some(big);
            opts.tuning.matmul_big_quad = quad;
            let dev = Device::with_options(opts).expect("a device");
            let a = dev.ones::<f32>([m, k]).expect("a");
            let b = dev.ones::<f32>([k, n]).expect("b");
            let prod = Product {
                a: operand(&a, &[]),
                b: operand(&b, &[]),
                m,
                n,
                k,
                batch_shape: Vec::new(),
                batches: 1,
            };
            forced(&dev, DType::F32, &prod)
        };
        for (depth, quad) in [(8, false), (16, false), (8, true), (16, true)] {
            for mkn in [(128, 16, 128), (256, 48, 384), (128, 1040, 256)] {
                let want = Some(BigCfg { bk: depth, quad });
                assert_eq!(taken(depth, quad, mkn), want, "{mkn:?}");
            }
            for mkn in [(130, 16, 128), (128, 12, 128), (128, 16, 132)] {
                assert_eq!(taken(depth, quad, mkn), None, "{mkn:?}");
            }
        }
        let deepest = Some(BigCfg {
            bk: 16,
            quad: false,
        });
        assert_eq!(taken(1, false, (128, 32, 128)), deepest);
        assert_eq!(taken(0, false, (128, 16, 128)), None);
    }

    /// The rendered text has one block per k step with the step's constant, and no loop.
    #[test]
    fn unroll_repeats_the_step() {
        let cfg = BigCfg {
            bk: 16,
            quad: false,
        };
        let text = spec((cfg, 33), false, false).render().unwrap();
        assert!(!text.contains("for (var kk"));
        assert!(text.contains("{ const kk = 0u;"));
        assert!(text.contains("{ const kk = 15u;"));
        assert!(!text.contains("const kk = 16u;"));
        assert_eq!(text.matches("c71 += a1.w * b1;").count(), 16);
    }
}
