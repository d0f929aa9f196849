//! Index arrays as i64 (NumPy's intp): the kernels compute u32 indices (arrays hold at most
//! `u32::MAX` elements) and `widen` stores each as two words, low and high, so producing
//! an `Array<i64>` of indices needs no SHADER_INT64.

use crate::array::Array;
use crate::device::Work;
use crate::dtype::DType;
use crate::error::Result;
use crate::kernel::launch::Params;

use super::take::dense;
use super::{key, spec};

/// The u32 indices `x` as a new contiguous `Array<i64>` of the same shape: one dispatch
/// (4 bytes read, 8 written per index). With `sentinel`, `u32::MAX` (the "no index" of
/// the nan-arg reductions) becomes -1.
pub(crate) fn widen(x: &Array<u32>, sentinel: bool) -> Result<Array<i64>> {
    let x = dense(x)?;
    let dev = &x.dev;
    let n = x.len();
    let words = Array::<u32>::alloc(dev, "index", vec![2 * n])?;
    if n > 0 {
        let u = DType::U32;
        let kernel = dev.kernel(key("widen", (u, u, u), 1, 0), || spec(u, u, u))?;
        let mut p = Params::new(n as u32);
        p.aux[0] = u32::from(sentinel);
        p.offs[0] = x.offset as u32;
        dev.launch(
            &kernel,
            &p,
            &[x.binding()],
            words.binding(),
            Work::Items(n as u32),
        )?;
    }
    Ok(words.pairs_as_i64(x.shape.clone()))
}

/// [`widen`] of each array.
pub(crate) fn widen_all(xs: Vec<Array<u32>>) -> Result<Vec<Array<i64>>> {
    xs.iter().map(|x| widen(x, false)).collect()
}
