//! Real transforms of long even lengths by the half-length complex transform: the real
//! samples read as N = n / 2 complex ones (the input's own buffer, no copy), transformed
//! by the plan of N, then paired into the n / 2 + 1 outputs (shaders/fft.wgsl's `rpack`).
//! Half the arithmetic and half the intermediate memory of a complex transform of length
//! n, and no separate crop pass.

use super::kernel::{Dim, FftParams, Io, Launch, Mode};
use super::plan::{cached, capacity, contiguous, merge, root, temp, Job};
use super::split;
use crate::array::Array;
use crate::dtype::{ComplexFloat, Element};
use crate::error::Result;

/// Whether `rfft` of length `n` along `axis` of the real array `x` runs by the half-length
/// transform: n even and past one workgroup (shorter ones already read and write each
/// element once), the axis contiguous, the offset and the other strides even (so the pairs
/// are complex elements), the axis at least n long (no zero padding).
pub(super) fn applies<I: Element, C: ComplexFloat>(x: &Array<I>, n: usize, axis: usize) -> bool {
    let even = |s: isize| s % 2 == 0;
    !I::DTYPE.is_complex()
        && n.is_multiple_of(2)
        && n > capacity(&x.dev, C::DTYPE)
        && x.strides[axis] == 1
        && x.offset.is_multiple_of(2)
        && x.shape[axis] >= n
        && (0..x.ndim()).all(|d| d == axis || x.shape[d] == 1 || even(x.strides[d]))
}

/// `rfft` (forward, scaled by `scale`) of length `n` along `axis` of `x`.
pub(super) fn rfft_half<I: Element, C: ComplexFloat>(
    op: &'static str,
    x: &Array<I>,
    n: usize,
    axis: usize,
    scale: f64,
) -> Result<Array<C>> {
    let dev = &x.dev;
    let nh = n / 2;
    let node = cached::<C>(dev, nh)?;
    let mut shape = x.shape.clone();
    shape[axis] = nh + 1;
    let out = Array::<C>::alloc_any(dev, op, shape, |b| dev.alloc_apart(b, &[&x.buf]))?;
    if out.is_empty() {
        return Ok(out);
    }
    let batch_dims: Vec<usize> = (0..x.ndim()).filter(|&d| d != axis).collect();
    let batches: usize = batch_dims.iter().map(|&d| x.shape[d]).product();
    let z = temp::<C>(dev, batches * nh)?;
    // The transform of the pairs into contiguous rows of N.
    let dims: Vec<Dim> = batch_dims
        .iter()
        .map(|&d| Dim {
            extent: x.shape[d],
            s_in: x.strides[d] / 2,
            s_out: 0,
            tw: 0,
        })
        .collect();
    let rows = contiguous(&dims, nh);
    let dims: Vec<Dim> = dims
        .into_iter()
        .zip(rows.iter().copied())
        .map(|(d, s)| Dim { s_out: s, ..d })
        .collect();
    let job = Job {
        src: x.binding(),
        dst: z.binding(),
        io: Io {
            real_in: false,
            real_out: false,
        },
        p: FftParams {
            dims: merge(&dims),
            off_in: x.offset / 2,
            s_in: 1,
            s_out: 1,
            n_in: nh,
            n_out: nh,
            scale: 1.0,
            ..FftParams::default()
        },
    };
    split::<C>(&node, dev, job)?;
    // The pairing, through the output's addressing.
    let shift = (usize::BITS - (n - 1).leading_zeros()).div_ceil(2);
    let mut t: Vec<C> = (0..=((n - 1) >> shift))
        .map(|hi| root::<C>(hi << shift, n))
        .collect();
    let fine = t.len();
    t.extend((0..1usize << shift).map(|lo| root::<C>(lo, n)));
    let len = t.len();
    let table = dev.from_slice(&t, [len])?;
    let pdims: Vec<Dim> = batch_dims
        .iter()
        .zip(&rows)
        .map(|(&d, &s)| Dim {
            extent: x.shape[d],
            s_in: s,
            s_out: out.strides[d],
            tw: 0,
        })
        .collect();
    let items = nh / 2 + 1;
    let pack = Launch {
        entry: "rpack",
        d: <C::Real as Element>::DTYPE,
        io: Io {
            real_in: false,
            real_out: false,
        },
        l: 0,
        m: 0,
        col: [false; 2],
        mode: Mode::Plain,
    };
    let p = FftParams {
        dims: merge(&pdims),
        s_out: out.strides[axis],
        row_len: nh,
        tw_n: n,
        tw_coarse: 0,
        tw_fine: fine,
        tw_shift: shift,
        scale,
        ..FftParams::default()
    };
    pack_split(&pack, dev, p, &[z.binding(), table.binding()], &out, items)?;
    Ok(out)
}

/// Runs `rpack` over `p`'s batch dimensions (their input strides: the rows of Z), looping
/// on the host over the outer ones past the launch's limit.
fn pack_split<C: ComplexFloat>(
    pack: &Launch,
    dev: &crate::device::Device,
    p: FftParams,
    inputs: &[crate::kernel::launch::Binding<'_>],
    out: &Array<C>,
    items: usize,
) -> Result<()> {
    if p.dims.len() <= super::kernel::MAX_BATCH_DIMS {
        let work = p.batches() * items;
        return pack.run(dev, &p, inputs, out.binding(), work);
    }
    let first = p.dims[0];
    for i in 0..first.extent as isize {
        let mut q = p.clone();
        q.dims.remove(0);
        q.off_in = (p.off_in as isize + i * first.s_in) as usize;
        q.off_out = (p.off_out as isize + i * first.s_out) as usize;
        pack_split(pack, dev, q, inputs, out, items)?;
    }
    Ok(())
}
