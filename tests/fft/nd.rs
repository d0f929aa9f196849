//! The 2-D and n-D transforms against 1-D reference transforms along each axis in turn
//! (padding and cropping by `s`, axis subsets, real forms), the sample frequencies against
//! NumPy's formula, and the shifts against a host roll.

use crate::common::{dev, Rng};
use crate::reference::{along, C64};
use crate::{check, down, rand_c, rounded, up};
use gpuarray::fft::{self, FftInput, Norm};
use gpuarray::{Complex, ComplexFloat, Real};

/// The reference n-D transform: 1-D transforms along `axes` with lengths `s`.
fn nd_ref(
    x: &[C64],
    shape: &[usize],
    axes: &[usize],
    s: &[usize],
    inverse: bool,
    norm: Norm,
) -> (Vec<C64>, Vec<usize>) {
    let mut v = x.to_vec();
    let mut sh = shape.to_vec();
    for (&a, &n) in axes.iter().zip(s).rev() {
        let scale = match (norm, inverse) {
            (Norm::Ortho, _) => 1.0 / (n as f64).sqrt(),
            (Norm::Backward, true) | (Norm::Forward, false) => 1.0 / n as f64,
            _ => 1.0,
        };
        let (o, osh) = along(&v, &sh, a, n, inverse, scale);
        v = o;
        sh = osh;
    }
    (v, sh)
}

fn complex_nd<C: ComplexFloat + FftInput<Complex = C>>() {
    let mut rng = Rng::new(30);
    let shape = [3, 4, 5];
    let x = rand_c(&mut rng, 60);
    let a = up::<C>(&x, &shape);
    let xr = rounded::<C>(&x);
    let y = fft::fftn(&a, None, .., Norm::Backward).unwrap();
    let (want, _) = nd_ref(&xr, &shape, &[0, 1, 2], &[3, 4, 5], false, Norm::Backward);
    check::<C>("fftn", &down(&y), &want, 60);
    let y = fft::ifftn(&a, Some(&[4, 6, 3]), [0, 1, 2], Norm::Ortho).unwrap();
    let (want, sh) = nd_ref(&xr, &shape, &[0, 1, 2], &[4, 6, 3], true, Norm::Ortho);
    assert_eq!(y.shape(), &sh[..]);
    check::<C>("ifftn with s", &down(&y), &want, 72);
    let y = fft::fftn(&a, Some(&[17, 2]), [2, 0], Norm::Forward).unwrap();
    let (want, sh) = nd_ref(&xr, &shape, &[2, 0], &[17, 2], false, Norm::Forward);
    assert_eq!(y.shape(), &sh[..]);
    check::<C>("fftn axes [2, 0]", &down(&y), &want, 34);
    let y = fft::fft2(&a, None, .., Norm::Backward).unwrap();
    let (want, _) = nd_ref(&xr, &shape, &[1, 2], &[4, 5], false, Norm::Backward);
    check::<C>("fft2", &down(&y), &want, 20);
    let y = fft::ifft2(&a.t(), Some(&[3, 4]), .., Norm::Backward).unwrap();
    let t: Vec<C64> = (0..60)
        .map(|i| {
            let idx = crate::common::unravel(i, &[5, 4, 3]);
            xr[(idx[2] * 4 + idx[1]) * 5 + idx[0]]
        })
        .collect();
    let (want, _) = nd_ref(&t, &[5, 4, 3], &[1, 2], &[3, 4], true, Norm::Backward);
    check::<C>("ifft2 of a transposed view", &down(&y), &want, 12);
    // With `s` and no axes: the last len(s) axes.
    let y = fft::fftn(&a, Some(&[2, 8]), .., Norm::Backward).unwrap();
    let (want, sh) = nd_ref(&xr, &shape, &[1, 2], &[2, 8], false, Norm::Backward);
    assert_eq!(y.shape(), &sh[..]);
    check::<C>("fftn s only", &down(&y), &want, 16);
}

fn real_nd<C: ComplexFloat + FftInput<Complex = C>>()
where
    C::Real: fft::FftFloat<Complex = C>,
{
    let mut rng = Rng::new(31);
    let shape = [4, 3, 6];
    let v = rng.vec(72, -1.0, 1.0);
    let r: Vec<C::Real> = v.iter().map(|&t| C::Real::from_f64(t)).collect();
    let h: Vec<C64> = r.iter().map(|t| C64::new(t.to_f64(), 0.0)).collect();
    let a = dev().from_slice(&r, shape).unwrap();
    let y = fft::rfftn(&a, None, .., Norm::Backward).unwrap();
    let (full, _) = nd_ref(&h, &shape, &[0, 1, 2], &[4, 3, 6], false, Norm::Backward);
    assert_eq!(y.shape(), &[4, 3, 4]);
    let want: Vec<C64> = (0..48).map(|i| full[(i / 4) * 6 + i % 4]).collect();
    check::<C>("rfftn", &down(&y), &want, 72);
    let back = fft::irfftn(&y, Some(&[4, 3, 6]), .., Norm::Backward).unwrap();
    let got: Vec<C64> = back
        .to_vec()
        .unwrap()
        .iter()
        .map(|t| C64::new(t.to_f64(), 0.0))
        .collect();
    check::<C>("irfftn(rfftn)", &got, &h, 72);
    let y = fft::rfft2(&a, Some(&[3, 5]), .., Norm::Ortho).unwrap();
    assert_eq!(y.shape(), &[4, 3, 3]);
    let back = fft::irfft2(&y, Some(&[3, 5]), .., Norm::Ortho).unwrap();
    assert_eq!(back.shape(), &[4, 3, 5]);
    let got: Vec<C64> = back
        .to_vec()
        .unwrap()
        .iter()
        .map(|t| C64::new(t.to_f64(), 0.0))
        .collect();
    let want: Vec<C64> = (0..60).map(|i| h[(i / 5) * 6 + i % 5]).collect();
    check::<C>("irfft2(rfft2) cropped", &got, &want, 15);
    // irfftn with its default last length 2 (m - 1) and one axis.
    let y = fft::irfftn(
        &fft::rfftn(&a, None, [2], Norm::Backward).unwrap(),
        None,
        [-1],
        Norm::Backward,
    )
    .unwrap();
    assert_eq!(y.shape(), &[4, 3, 6]);
    let got: Vec<C64> = y
        .to_vec()
        .unwrap()
        .iter()
        .map(|t| C64::new(t.to_f64(), 0.0))
        .collect();
    check::<C>("irfftn one axis", &got, &h, 6);
}

crate::per_dtype! {
    [c64: Complex<f32>, c128: Complex<f64>] => {
        complex_transforms => complex_nd::<T>();
        real_transforms => real_nd::<T>();
    }
}

#[test]
fn frequencies() {
    for n in 1..10usize {
        for d in [1.0, 0.25] {
            let f = fft::fftfreq::<f64>(dev(), n, d);
            let want: Vec<f64> = (0..n)
                .map(|i| {
                    let k = if i < (n - 1) / 2 + 1 {
                        i as f64
                    } else {
                        i as f64 - n as f64
                    };
                    k / (n as f64 * d)
                })
                .collect();
            if crate::common::supported::<f64>(dev()) {
                assert_eq!(f.unwrap().to_vec().unwrap(), want);
            }
            let r = fft::rfftfreq::<f32>(dev(), n, d).unwrap().to_vec().unwrap();
            let want: Vec<f32> = (0..=n / 2)
                .map(|i| (i as f64 / (n as f64 * d)) as f32)
                .collect();
            assert_eq!(r, want);
        }
    }
}

#[test]
fn shifts() {
    let shape = [5usize, 4];
    let v: Vec<i32> = (0..20).collect();
    let x = dev().from_slice(&v, shape).unwrap();
    let roll = |by: [isize; 2], axes: [bool; 2]| -> Vec<i32> {
        (0..20)
            .map(|i| {
                let (r, c) = (i / 4, i % 4);
                let sr = if axes[0] {
                    (r as isize - by[0]).rem_euclid(5) as usize
                } else {
                    r
                };
                let sc = if axes[1] {
                    (c as isize - by[1]).rem_euclid(4) as usize
                } else {
                    c
                };
                v[sr * 4 + sc]
            })
            .collect()
    };
    assert_eq!(
        fft::fftshift(&x, ..).unwrap().to_vec().unwrap(),
        roll([2, 2], [true, true])
    );
    assert_eq!(
        fft::ifftshift(&x, ..).unwrap().to_vec().unwrap(),
        roll([-2, -2], [true, true])
    );
    assert_eq!(
        fft::fftshift(&x, 0).unwrap().to_vec().unwrap(),
        roll([2, 0], [true, false])
    );
    assert_eq!(
        fft::ifftshift(&x, [-1]).unwrap().to_vec().unwrap(),
        roll([0, -2], [false, true])
    );
    let s = fft::fftshift(&x.t(), ..).unwrap();
    let back = fft::ifftshift(&s, ..).unwrap();
    assert_eq!(back.to_vec().unwrap(), x.t().to_vec().unwrap());
    // Odd lengths: ifftshift undoes fftshift.
    let f = fft::fftfreq::<f32>(dev(), 7, 1.0).unwrap();
    let s = fft::fftshift(&f, ..).unwrap().to_vec().unwrap();
    assert!(s.windows(2).all(|w| w[0] < w[1]));
    let b = fft::ifftshift(&fft::fftshift(&f, ..).unwrap(), ..).unwrap();
    assert_eq!(b.to_vec().unwrap(), f.to_vec().unwrap());
}
