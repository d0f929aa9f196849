//! conv2d layers with few output channels per group (depthwise, channel multipliers, narrow
//! groups): `nn_depthwise` of shaders/depthwise.wgsl, which stages each input channel's
//! tile (halo, strides and dilation included) and its taps in workgroup memory once per
//! workgroup, where `nn_direct` reads the input once per tap and output.

use super::params::{offsets, Layer};
use super::{acc, dense, key};
use crate::array::Array;
use crate::device::{Device, Work};
use crate::dtype::{DType, Float};
use crate::error::Result;
use crate::kernel::launch::MAX_GROUPS;
use crate::kernel::source::Spec;

const SRC: &str = include_str!("../../../shaders/depthwise.wgsl");

/// Invocation rows of a workgroup.
const TY: u32 = 8;
/// Most outputs per invocation down a column (the shader's MAX_PY).
const MAX_PY: u32 = 4;
/// Most output channels per workgroup (the shader's MAX_OB).
const MAX_OB: usize = 8;
/// Most input tile loads per invocation (the shader's MAX_NL).
const MAX_NL: usize = 16;
/// Largest filter side the kernel takes (its taps are unrolled).
const MAX_K: usize = 16;

/// Tiles of `nn_depthwise`: output columns per workgroup (`tx`), outputs per invocation
/// down a column (`py`), output channels per workgroup (`ob`), the filter and the input tile
/// (rows, columns) in workgroup memory.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(super) struct DwTiles {
    pub tx: u32,
    pub py: u32,
    pub ob: u32,
    pub filter: [u32; 2],
    pub it: [u32; 2],
}

impl DwTiles {
    /// The tiles for an output of `oh` rows and `ow` columns, `ob` channels per workgroup,
    /// filter `filter`, strides `s` and dilations `d`, before the memory check.
    fn new(
        oh: usize,
        ow: usize,
        ob: u32,
        filter: [usize; 2],
        s: [usize; 2],
        d: [usize; 2],
    ) -> Self {
        let tx = match ow {
            0..=8 => 8,
            9..=16 => 16,
            _ => 32,
        };
        // The most rows per invocation that pads the output rows by at most 15% more than
        // one row per invocation does.
        let rows = |py: usize| oh.div_ceil(TY as usize * py) * TY as usize * py;
        let py = [4, 2, 1]
            .into_iter()
            .find(|&py| rows(py) * 20 <= rows(1) * 23)
            .unwrap_or(1);
        Self::sized(tx, py as u32, ob, filter, s, d)
    }

    fn sized(tx: u32, py: u32, ob: u32, f: [usize; 2], s: [usize; 2], d: [usize; 2]) -> Self {
        let span = |out: u32, i: usize| (out as usize - 1) * s[i] + (f[i] - 1) * d[i] + 1;
        DwTiles {
            tx,
            py,
            ob,
            filter: f.map(|v| v as u32),
            it: [span(TY * py, 0) as u32, span(tx, 1) as u32],
        }
    }

    /// Input tile loads per invocation.
    fn loads(&self) -> usize {
        (self.it[0] as usize * self.it[1] as usize).div_ceil((self.tx * TY) as usize)
    }

    /// Workgroup memory, in bytes, for element type `d`.
    fn smem(&self, d: DType) -> usize {
        let [kh, kw] = self.filter.map(|v| v as usize);
        let words = self.it[0] as usize * self.it[1] as usize + self.ob as usize * kh * kw;
        words * acc(d).size()
    }
}

/// The compiled kernel's specialisation.
pub(super) fn depthwise_spec(d: DType, t: DwTiles) -> Spec {
    Spec::new("depthwise", SRC)
        .scalar(d)
        .alias("ACC", acc(d).wgsl())
        .constant("TX", t.tx)
        .constant("TY", TY)
        .constant("PY", t.py)
        .constant("OB", t.ob)
        .constant("KH", t.filter[0])
        .constant("KW", t.filter[1])
        .constant("IT_H", t.it[0])
        .constant("IT_W", t.it[1])
        .constant("NL", t.loads() as u32)
        .unchecked()
}

/// The tiles and workgroup grid of `nn_depthwise` for `layer`, or `None` where the direct
/// kernel runs instead: a filter side over [`MAX_K`], tiles beyond the device's workgroup
/// memory or over [`MAX_NL`] loads per invocation even at one output per invocation, a grid
/// over [`MAX_GROUPS`], or
/// `Tuning::conv_direct`.
pub(super) fn depthwise_plan(dev: &Device, d: DType, layer: &Layer) -> Option<(DwTiles, [u32; 2])> {
    if dev.options().tuning.conv_direct || layer.kh > MAX_K || layer.kw > MAX_K {
        return None;
    }
    let g = layer.opts;
    let ob = layer.og().min(MAX_OB) as u32;
    let filter = [layer.kh, layer.kw];
    let mut t = DwTiles::new(layer.oh, layer.ow, ob, filter, g.stride, g.dilation);
    let limit = dev.limits().max_compute_workgroup_storage_size as usize;
    while t.smem(d) > limit || t.loads() > MAX_NL {
        t = match (t.py, t.tx) {
            (1, 8) => return None,
            (1, tx) => DwTiles::sized(tx / 2, 1, ob, filter, g.stride, g.dilation),
            (py, tx) => DwTiles::sized(tx, py / 2, ob, filter, g.stride, g.dilation),
        };
    }
    debug_assert!(t.py <= MAX_PY);
    let tiles = layer.ow.div_ceil(t.tx as usize) * layer.oh.div_ceil((TY * t.py) as usize);
    let planes = layer.n * g.groups * layer.og().div_ceil(ob as usize);
    let fits = tiles <= MAX_GROUPS as usize && planes <= MAX_GROUPS as usize;
    fits.then_some((t, [tiles as u32, planes as u32]))
}

/// Runs `nn_depthwise` with tiles `t` over `grid` (from [`depthwise_plan`]).
pub(super) fn run_depthwise<T: Float>(
    layer: &Layer,
    input: &Array<T>,
    weight: &Array<T>,
    bias: Option<&Array<T>>,
    out: &Array<T>,
    (t, grid): (DwTiles, [u32; 2]),
) -> Result<()> {
    let dev = &input.dev;
    let weight = dense(weight)?;
    let (offs, has_bias) = offsets(input, &weight, bias);
    let p = layer.params(offs, has_bias).encode();
    let k = key("nn_depthwise", format!("{}|{t:?}", T::DTYPE), 3, t.tx * TY);
    let kernel = dev.kernel(k, || depthwise_spec(T::DTYPE, t))?;
    let bias = bias.map_or(input.binding(), |b| b.binding());
    let inputs = [input.binding(), weight.binding(), bias];
    dev.launch(
        &kernel,
        &p,
        &inputs,
        out.binding(),
        Work::Groups([grid[0], grid[1], 1]),
    )
}

/// Every variant's shape, for the shader validation test.
#[cfg(test)]
pub(super) fn all_specs(d: DType) -> Vec<Spec> {
    let one = [1, 1];
    vec![
        depthwise_spec(d, DwTiles::new(56, 56, 1, [3, 3], one, one)),
        depthwise_spec(d, DwTiles::new(28, 28, 8, [5, 5], [2, 2], one)),
        depthwise_spec(d, DwTiles::new(7, 13, 3, [3, 2], one, [2, 1])),
    ]
}
