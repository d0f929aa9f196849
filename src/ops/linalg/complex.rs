//! Complex matrix products through the real product kernels: A = Ar + i Ai and B = Br + i Bi
//! made planar once ([Ar; Ai], 2M x K, and [Br, Bi], K x 2N: one copy each), their one
//! real product [[Ar Br, Ar Bi], [Ai Br, Ai Bi]] (2M x 2N, the four real products of the
//! classic method in a single launch of the tiled kernels, which run best on large
//! matrices), then Re = Ar Br - Ai Bi and Im = Ar Bi + Ai Br interleaved. The same
//! 8 M N K flops as a complex multiply-add kernel, at the real kernels' rate; the 3M
//! method would save a quarter of the flops but loses accuracy in the imaginary part
//! (its error scales with |Ar + Ai| |Br + Bi|), so it is not used.

use super::matmul_nd;
use crate::array::complex::by_component;
use crate::array::Array;
use crate::dtype::Element;
#[allow(unused_imports)]
use crate::error::Error;
use crate::error::Result;

/// The complex product of `a` ([.., M, K]) and `b` ([.., K, N]), batches broadcast; `lhs`
/// and `rhs` the operands' shapes for errors.
pub(super) fn matmul_complex<T: Element>(
    a: &Array<T>,
    b: &Array<T>,
    lhs: &[usize],
    rhs: &[usize],
) -> Result<Array<T>> {
    let (na, nb) = (a.ndim(), b.ndim());
    let (m, k) = (a.shape[na - 2], a.shape[na - 1]);
    let (k2, n) = (b.shape[nb - 2], b.shape[nb - 1]);
    let mismatch = || Error::ShapeMismatch {
        op: "matmul",
        lhs: lhs.to_vec(),
        rhs: rhs.to_vec(),
    };
    if k != k2 {
        return Err(mismatch());
    }
    let batch = crate::shape::broadcast_shapes("matmul", &a.shape[..na - 2], &b.shape[..nb - 2])
        .map_err(|_| mismatch())?;
    let mut shape = batch.clone();
    shape.extend([m, n]);
    if m * n * batch.iter().product::<usize>() == 0 || k == 0 {
        return a.dev.zeros::<T>(shape);
    }
    by_component!(T::DTYPE, R => {
        // [.., M, K, 2] -> [.., 2, M, K] -> [.., 2M, K].
        let ac = a.components::<R>();
        let mut perm: Vec<usize> = (0..na - 2).collect();
        perm.extend([na, na - 2, na - 1]);
        let mut s = a.shape[..na - 2].to_vec();
        s.extend([2 * m, k]);
        let ap = ac.transpose(&perm)?.reshape(s)?;
        // [.., K, N, 2] -> [.., K, 2, N] -> [.., K, 2N].
        let bc = b.components::<R>();
        let mut perm: Vec<usize> = (0..nb - 2).collect();
        perm.extend([nb - 2, nb, nb - 1]);
        let mut s = b.shape[..nb - 2].to_vec();
        s.extend([k, 2 * n]);
        let bp = bc.transpose(&perm)?.reshape(s)?;
        let c = matmul_nd(&ap, &bp, lhs, rhs)?;
        let block = |r: usize, q: usize| -> Result<Array<R>> {
            c.slice_axis(-2, r * m..(r + 1) * m)?
                .slice_axis(-1, q * n..(q + 1) * n)
        };
        let re = block(0, 0)?.sub(&block(1, 1)?)?;
        let im = block(0, 1)?.add(&block(1, 0)?)?;
        let out = Array::<T>::alloc_any(&a.dev, "matmul", shape, |bytes| a.dev.alloc(bytes))?;
        out.component_view::<R>(0).assign(&re)?;
        out.component_view::<R>(1).assign(&im)?;
        Ok(out)
    })
}
