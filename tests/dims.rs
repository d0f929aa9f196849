//! Arrays of many dimensions (9, 16 and 32; NumPy allows 64): views, elementwise ops with
//! broadcasting, casts and reductions over axes, against a CPU reference, where the axes do
//! not merge into the 8 that kernels take (transposed and stepped views), and matrix
//! products with more than 8 batch dimensions.

#[macro_use]
mod common;

use common::*;
use gpuarray::Slice;

/// A shape of `nd` dimensions with `twos` extents of 2 spread over it (the others 1), and
/// one extent of 3 at axis 0 when `three` (for stepped slices).
fn shape_of(nd: usize, twos: usize, three: bool) -> Vec<usize> {
    let mut s = vec![1; nd];
    for k in 0..twos {
        s[(k * nd) / twos] = 2;
    }
    if three {
        s[0] = 3;
    }
    s
}

/// A permutation that keeps no two axes of extent above 1 adjacent in order (so nothing
/// merges): the axes reversed, with a rotation.
fn scrambled(nd: usize) -> Vec<usize> {
    (0..nd).rev().map(|d| (d + nd / 3) % nd).collect()
}

/// Sums `h` over the axes marked in `red` (keeping them as extent 1).
fn host_sum(h: &Host, red: &[bool]) -> Host {
    let shape: Vec<usize> = h
        .shape
        .iter()
        .zip(red)
        .map(|(&n, &r)| if r { 1 } else { n })
        .collect();
    let mut out = vec![0.0; shape.iter().product()];
    for (i, &v) in h.data.iter().enumerate() {
        let idx = unravel(i, &h.shape);
        let o = idx
            .iter()
            .zip(&shape)
            .fold(0, |acc, (&j, &n)| acc * n + if n == 1 { 0 } else { j });
        out[o] += v;
    }
    Host::new(&shape, out)
}

fn many_dims(nd: usize, twos: usize) {
    let dev = dev();
    let mut rng = Rng::new(nd as u64);
    let shape = shape_of(nd, twos, true);
    let n: usize = shape.iter().product();
    let (x, hx) = upload::<f32>(dev, &rng.ints(n, -50, 50), &shape);
    let hx = Host::new(&shape, hx);
    assert_eq!(x.ndim(), nd);
    let what = format!("{nd} dims, shape {shape:?}");

    // Transposed: no axis merges with its neighbour.
    let perm = scrambled(nd);
    let xt = x.transpose(&perm).unwrap();
    let ht = hx.transpose(&perm);
    assert_close(&host(&xt), &ht.data, 0.0, 0.0);
    assert_close(&host(&xt.neg().unwrap()), &ht.map(|v| -v).data, 0.0, 0.0);
    assert_close(&host(&xt.contiguous().unwrap()), &ht.data, 0.0, 0.0);

    // A stepped slice of the transposed view, through a cast and an exp.
    let axis3 = perm.iter().position(|&p| p == 0).unwrap();
    let mut info = vec![Slice::from(..); nd];
    info[axis3] = Slice::from(..).step(2);
    let s = xt.slice(info.as_slice()).unwrap();
    let mut hs_idx = vec![(0usize, 0usize, 1usize); nd];
    for (d, e) in hs_idx.iter_mut().enumerate() {
        *e = (0, ht.shape[d], if d == axis3 { 2 } else { 1 });
    }
    let hs = ht.slice(&hs_idx);
    let c = s.cast::<i32>().unwrap().mul_scalar(3).unwrap();
    assert_close(&host(&c), &hs.map(|v| 3.0 * v).data, 0.0, 0.0);
    let e = s.mul_scalar(0.01).unwrap().exp().unwrap();
    let he = hs.map(|v| f32::wrap((f32::wrap(0.01 * v)).exp()));
    // exp within 3 ulps of f32 (lavapipe is 2 ulps off here).
    assert_close(&host(&e), &he.data, 0.0, 3.6e-7);

    // Broadcasting: y has extent 1 where the transposed x has 2 on every other axis.
    let yshape: Vec<usize> = ht
        .shape
        .iter()
        .enumerate()
        .map(|(d, &v)| if d % 2 == 0 { v } else { 1 })
        .collect();
    let m: usize = yshape.iter().product();
    let (y, hy) = upload::<f32>(dev, &rng.ints(m, -9, 9), &yshape);
    let hy = Host::new(&yshape, hy);
    let z = xt.add(&y).unwrap();
    assert_close(&host(&z), &zip_with(&ht, &hy, |a, b| a + b).data, 0.0, 0.0);
    // The other way round, and a reshape of the result to one dimension and back.
    let z2 = y.sub(&xt).unwrap().reshape([z.len()]).unwrap();
    let z2 = z2.reshape(z.shape().to_vec()).unwrap();
    assert_close(&host(&z2), &zip_with(&hy, &ht, |a, b| a - b).data, 0.0, 0.0);
    // broadcast_to with more leading axes, past 32 in all for the 32-dim case.
    let b = y
        .broadcast_to([&[2usize, 1][..], &yshape].concat())
        .unwrap();
    let hb = hy.broadcast_to(&[&[2usize, 1][..], &yshape].concat());
    assert_close(
        &host(&b.add_scalar(1.0).unwrap()),
        &hb.map(|v| v + 1.0).data,
        0.0,
        0.0,
    );

    // Reductions: all, over every other axis, over one axis; max and argmax.
    let total: f64 = ht.data.iter().sum();
    assert_close(&host(&xt.sum().unwrap()), &[total], 0.0, 0.0);
    let axes: Vec<usize> = (0..nd).filter(|d| d % 2 == 1).collect();
    let red: Vec<bool> = (0..nd).map(|d| d % 2 == 1).collect();
    let got = xt.sum_axis(&axes, true).unwrap();
    assert_close(&host(&got), &host_sum(&ht, &red).data, 0.0, 0.0);
    let last = nd - 1;
    let one: Vec<bool> = (0..nd).map(|d| d == last).collect();
    let got = xt.sum_axis(last, false).unwrap();
    assert_close(&host(&got), &host_sum(&ht, &one).data, 0.0, 0.0);
    let mx = ht.data.iter().copied().fold(f64::NEG_INFINITY, f64::max);
    assert_close(&host(&xt.max().unwrap()), &[mx], 0.0, 0.0);
    let am = xt.argmax().unwrap().to_scalar().unwrap() as usize;
    assert_eq!(ht.data[am], mx, "{what}: argmax");
    assert_eq!(
        ht.data.iter().position(|&v| v == mx),
        Some(am),
        "{what}: first"
    );
}

#[test]
fn nine_dimensions() {
    many_dims(9, 9);
}

#[test]
fn sixteen_dimensions() {
    many_dims(16, 12);
}

#[test]
fn thirty_two_dimensions() {
    many_dims(32, 12);
}

/// Matrix products with more than 8 batch dimensions that do not merge (transposed batch
/// axes, and broadcasting in alternate axes) against the CPU; the operands are intact.
#[test]
fn matmul_with_many_batch_dims() {
    let dev = dev();
    let mut rng = Rng::new(3);
    let batch = [2usize; 9];
    let shape = [&batch[..], &[2, 3]].concat();
    let n: usize = shape.iter().product();
    let (a, ha) = upload::<f32>(dev, &rng.ints(n, -3, 3), &shape);
    let mut perm: Vec<usize> = (0..9).rev().collect();
    perm.extend([9, 10]);
    let at = a.transpose(&perm).unwrap();
    let hat = Host::new(&shape, ha.clone()).transpose(&perm);
    // b broadcasts along every other batch axis.
    let bshape: Vec<usize> = (0..9)
        .map(|d| if d % 2 == 0 { 2 } else { 1 })
        .chain([3, 4])
        .collect();
    let nb: usize = bshape.iter().product();
    let (b, hb) = upload::<f32>(dev, &rng.ints(nb, -3, 3), &bshape);
    let hb = Host::new(&bshape, hb).broadcast_to(&[&batch[..], &[3, 4]].concat());
    let c = at.matmul(&b).unwrap();
    assert_eq!(c.shape(), &[&batch[..], &[2, 4]].concat()[..]);
    let e: Vec<f64> = (0..512)
        .flat_map(|p| {
            let (x, y) = (&hat.data[p * 6..p * 6 + 6], &hb.data[p * 12..p * 12 + 12]);
            (0..8).map(move |o| (0..3).map(|j| x[o / 4 * 3 + j] * y[j * 4 + o % 4]).sum())
        })
        .collect();
    assert_close(&host(&c), &e, 0.0, 0.0);
    assert_close(&host(&a), &ha, 0.0, 0.0);
}
