//! gpuarray::fft against an f64 CPU reference (tests/fft/reference.rs): relative L2 error
//! within `tol(n) = 8 (log2 n + 2) u` (u the unit roundoff: 2^-24 for complex64, 2^-53 for
//! complex128; Bluestein lengths twice that), over lengths 1, 2, 3, powers of two up to 2^20,
//! products of small primes, primes from 17 to 10,007, batches, every axis of 2-D and 3-D
//! arrays, transposed, stepped, reversed and offset views, `n` padding and cropping, the
//! three norms, round trips, the real and Hermitian transforms (odd and even n), the n-D
//! transforms, the frequencies and shifts, and the bad inputs (typed errors, the device
//! still usable).

#[path = "../common/mod.rs"]
#[macro_use]
mod common;
mod conv;
mod nd;
mod real;
mod reference;

use common::{dev, Rng};
use gpuarray::fft::{self, FftInput, Norm, Plan};
use gpuarray::{Array, Complex, ComplexFloat, Error, Real, Slice};
use reference::{along, dft, rel_l2, C64};

/// The unit roundoff of `C`'s components.
pub fn unit<C: ComplexFloat>() -> f64 {
    if std::mem::size_of::<C>() == 8 {
        2f64.powi(-24)
    } else {
        2f64.powi(-53)
    }
}

/// Whether length `n` runs by Bluestein (a prime factor above 13).
pub fn bluestein(mut n: usize) -> bool {
    for p in [2, 3, 5, 7, 11, 13] {
        while n.is_multiple_of(p) {
            n /= p;
        }
    }
    n != 1
}

pub fn tol<C: ComplexFloat>(n: usize) -> f64 {
    let b = if bluestein(n) { 2.0 } else { 1.0 };
    8.0 * b * ((n.max(2) as f64).log2() + 2.0) * unit::<C>()
}

pub fn rand_c(rng: &mut Rng, n: usize) -> Vec<C64> {
    (0..n)
        .map(|_| C64::new(rng.uniform(-1.0, 1.0), rng.uniform(-1.0, 1.0)))
        .collect()
}

pub fn up<C: ComplexFloat>(x: &[C64], shape: &[usize]) -> Array<C> {
    let v: Vec<C> = x
        .iter()
        .map(|z| C::new(C::Real::from_f64(z.re), C::Real::from_f64(z.im)))
        .collect();
    dev().from_slice(&v, shape).unwrap()
}

/// The host values of `x` exactly as uploaded (rounded to C).
pub fn rounded<C: ComplexFloat>(x: &[C64]) -> Vec<C64> {
    x.iter()
        .map(|z| {
            C64::new(
                C::Real::from_f64(z.re).to_f64(),
                C::Real::from_f64(z.im).to_f64(),
            )
        })
        .collect()
}

pub fn down<C: ComplexFloat>(a: &Array<C>) -> Vec<C64> {
    a.to_vec()
        .unwrap()
        .into_iter()
        .map(|z| C64::new(z.re().to_f64(), z.im().to_f64()))
        .collect()
}

#[track_caller]
pub fn check<C: ComplexFloat>(what: &str, got: &[C64], want: &[C64], n: usize) {
    let e = rel_l2(got, want);
    let t = tol::<C>(n);
    assert!(
        e <= t,
        "{what}: relative L2 error {e:.3e} above {t:.3e} (n = {n}, {:?})",
        C::DTYPE
    );
}

const LENGTHS: &[usize] = &[
    1,
    2,
    3,
    4,
    5,
    6,
    7,
    8,
    9,
    11,
    12,
    13,
    16,
    17,
    25,
    31,
    60,
    64,
    97,
    100,
    128,
    243,
    256,
    343,
    360,
    625,
    1000,
    1009,
    1024,
    2048,
    2310,
    3125,
    4096,
    4097,
    6561,
    8192,
    10007,
    30030,
    59049,
    65536,
    1 << 20,
];

fn lengths<C: ComplexFloat + FftInput<Complex = C>>() {
    let mut rng = Rng::new(1);
    // complex128 (the same plans but for the workgroup capacity): the long ones once less.
    let wide = unit::<C>() < 1e-10;
    for &n in LENGTHS
        .iter()
        .filter(|&&n| !wide || n <= 10007 || n == 65536)
    {
        let x = rand_c(&mut rng, n);
        let a = up::<C>(&x, &[n]);
        let xr = rounded::<C>(&x);
        let y = fft::fft(&a, None, 0, Norm::Backward).unwrap();
        check::<C>("fft", &down(&y), &dft(&xr, false), n);
        let z = fft::ifft(&a, None, -1, Norm::Backward).unwrap();
        let want: Vec<C64> = dft(&xr, true).iter().map(|v| v / n as f64).collect();
        check::<C>("ifft", &down(&z), &want, n);
    }
}

fn batches<C: ComplexFloat + FftInput<Complex = C>>() {
    let mut rng = Rng::new(2);
    for (b, n) in [
        (7, 8),
        (5, 17),
        (3, 1000),
        (300, 12),
        (3, 5000),
        (2, 4099),
        (1000, 1),
    ] {
        let x = rand_c(&mut rng, b * n);
        let a = up::<C>(&x, &[b, n]);
        let xr = rounded::<C>(&x);
        let y = fft::fft(&a, None, 1, Norm::Backward).unwrap();
        let (want, shape) = along(&xr, &[b, n], 1, n, false, 1.0);
        assert_eq!(y.shape(), &shape[..]);
        check::<C>(&format!("batch {b} x {n}"), &down(&y), &want, n);
    }
}

fn every_axis<C: ComplexFloat + FftInput<Complex = C>>() {
    let mut rng = Rng::new(3);
    let shapes: &[&[usize]] = &[
        &[5, 12],
        &[3, 4, 5],
        &[17, 3],
        &[8192, 2],
        &[2, 3, 37],
        &[1, 4, 1],
    ];
    for shape in shapes {
        let len: usize = shape.iter().product();
        let x = rand_c(&mut rng, len);
        let a = up::<C>(&x, shape);
        let xr = rounded::<C>(&x);
        for axis in 0..shape.len() {
            for inverse in [false, true] {
                let n = shape[axis];
                let y = if inverse {
                    fft::ifft(&a, None, axis, Norm::Ortho).unwrap()
                } else {
                    fft::fft(&a, None, axis as isize - shape.len() as isize, Norm::Ortho).unwrap()
                };
                let (want, _) = along(&xr, shape, axis, n, inverse, 1.0 / (n as f64).sqrt());
                check::<C>(
                    &format!("{shape:?} axis {axis} inverse {inverse}"),
                    &down(&y),
                    &want,
                    n,
                );
            }
        }
    }
}

/// Row-major copy of a view of a host array (the same as `Array::to_vec` of the view).
fn host_view(
    x: &[C64],
    shape: &[usize],
    view: &dyn Fn(&[usize]) -> usize,
    vshape: &[usize],
) -> Vec<C64> {
    let _ = shape;
    let len: usize = vshape.iter().product();
    (0..len)
        .map(|i| x[view(&common::unravel(i, vshape))])
        .collect()
}

fn views<C: ComplexFloat + FftInput<Complex = C>>() {
    let mut rng = Rng::new(4);
    let (r, c) = (6, 40);
    let x = rand_c(&mut rng, r * c);
    let a = up::<C>(&x, &[r, c]);
    let xr = rounded::<C>(&x);
    // Transposed: [40, 6], transforms along both axes.
    let t = a.t();
    let th = host_view(&xr, &[r, c], &|i| i[1] * c + i[0], &[c, r]);
    for axis in 0..2 {
        let n = [c, r][axis];
        let y = fft::fft(&t, None, axis, Norm::Backward).unwrap();
        let (want, _) = along(&th, &[c, r], axis, n, false, 1.0);
        check::<C>(&format!("transposed axis {axis}"), &down(&y), &want, n);
    }
    // Stepped and offset: rows 1.., every third column from 2.
    let s = a
        .slice([Slice::from(1..), Slice::from(2..).step(3)])
        .unwrap();
    let sshape = [r - 1, (c - 2).div_ceil(3)];
    let sh = host_view(&xr, &[r, c], &|i| (i[0] + 1) * c + 2 + 3 * i[1], &sshape);
    for axis in 0..2 {
        let n = sshape[axis];
        let y = fft::fft(&s, None, axis, Norm::Backward).unwrap();
        let (want, _) = along(&sh, &sshape, axis, n, false, 1.0);
        check::<C>(&format!("stepped axis {axis}"), &down(&y), &want, n);
    }
    // Reversed (negative strides).
    let f = a.flip(1).unwrap();
    let fh = host_view(&xr, &[r, c], &|i| i[0] * c + c - 1 - i[1], &[r, c]);
    let y = fft::fft(&f, None, 1, Norm::Backward).unwrap();
    let (want, _) = along(&fh, &[r, c], 1, c, false, 1.0);
    check::<C>("reversed", &down(&y), &want, c);
    let y = fft::fft(&f, None, 0, Norm::Backward).unwrap();
    let (want, _) = along(&fh, &[r, c], 0, r, false, 1.0);
    check::<C>("reversed axis 0", &down(&y), &want, r);
    // A long transform of a strided view (multi-pass and Bluestein lengths).
    for n in [8192, 4099] {
        let x = rand_c(&mut rng, 2 * n);
        let a = up::<C>(&x, &[n, 2]);
        let xr = rounded::<C>(&x);
        let col = a.slice([Slice::from(..), Slice::from(1..2)]).unwrap();
        let line: Vec<C64> = (0..n).map(|k| xr[2 * k + 1]).collect();
        let y = fft::fft(&col, None, 0, Norm::Backward).unwrap();
        check::<C>(&format!("column {n}"), &down(&y), &dft(&line, false), n);
    }
}

fn padding<C: ComplexFloat + FftInput<Complex = C>>() {
    let mut rng = Rng::new(5);
    for (len, n) in [
        (10, 17),
        (17, 10),
        (3000, 5000),
        (5000, 3000),
        (100, 4099),
        (4, 1),
        (1, 8),
        (6000, 8192),
    ] {
        let x = rand_c(&mut rng, 2 * len);
        let a = up::<C>(&x, &[2, len]);
        let xr = rounded::<C>(&x);
        let y = fft::fft(&a, Some(n), 1, Norm::Backward).unwrap();
        let (want, shape) = along(&xr, &[2, len], 1, n, false, 1.0);
        assert_eq!(y.shape(), &shape[..]);
        check::<C>(&format!("{len} to {n}"), &down(&y), &want, n);
        let y = fft::ifft(&a.t(), Some(n), 0, Norm::Forward).unwrap();
        let th = host_view(&xr, &[2, len], &|i| i[1] * len + i[0], &[len, 2]);
        let (want, _) = along(&th, &[len, 2], 0, n, true, 1.0);
        check::<C>(&format!("{len} to {n}, columns"), &down(&y), &want, n);
    }
}

fn norms_and_round_trips<C: ComplexFloat + FftInput<Complex = C>>() {
    let mut rng = Rng::new(6);
    for n in [1, 5, 16, 17, 4096, 6000, 1009] {
        let x = rand_c(&mut rng, n);
        let a = up::<C>(&x, &[n]);
        let xr = rounded::<C>(&x);
        let fwd = dft(&xr, false);
        for (norm, s) in [
            (Norm::Backward, 1.0),
            (Norm::Ortho, 1.0 / (n as f64).sqrt()),
            (Norm::Forward, 1.0 / n as f64),
        ] {
            let y = fft::fft(&a, None, 0, norm).unwrap();
            let want: Vec<C64> = fwd.iter().map(|v| v * s).collect();
            check::<C>(&format!("{norm:?}"), &down(&y), &want, n);
            let back = fft::ifft(&y, None, 0, norm).unwrap();
            check::<C>(&format!("round trip {norm:?}"), &down(&back), &xr, n);
        }
    }
}

fn plans<C: ComplexFloat + FftInput<Complex = C>>() {
    let mut rng = Rng::new(7);
    for n in [12, 4099, 8192] {
        let plan = Plan::<C>::new(dev(), n).unwrap();
        assert_eq!(plan.n(), n);
        for round in 0..2 {
            let x = rand_c(&mut rng, 3 * n);
            let a = up::<C>(&x, &[3, n]);
            let xr = rounded::<C>(&x);
            let y = plan.forward(&a, 1, Norm::Backward).unwrap();
            let (want, _) = along(&xr, &[3, n], 1, n, false, 1.0);
            check::<C>(&format!("plan {n} round {round}"), &down(&y), &want, n);
            let back = plan.inverse(&y, 1, Norm::Backward).unwrap();
            check::<C>(&format!("plan {n} inverse"), &down(&back), &xr, n);
        }
    }
}

/// Many transforms along a strided axis (the kernels then put neighbouring transforms on
/// neighbouring invocations, several per workgroup, the last group partial), the axis
/// lengths short, four-step (columns of the plan split) and Bluestein's, forward and
/// inverse.
fn column_groups<C: ComplexFloat + FftInput<Complex = C>>() {
    let mut rng = Rng::new(11);
    let cases: &[(&[usize], usize)] = &[
        (&[256, 37], 0),
        (&[64, 3, 50], 0),
        (&[64, 3, 50], 1),
        (&[1000, 45], 0),
        (&[16, 1031], 0),
        (&[8192, 5], 0),
        (&[97, 21], 0),
    ];
    for &(shape, axis) in cases {
        let len: usize = shape.iter().product();
        let x = rand_c(&mut rng, len);
        let a = up::<C>(&x, shape);
        let xr = rounded::<C>(&x);
        let n = shape[axis];
        for inverse in [false, true] {
            let y = if inverse {
                fft::ifft(&a, None, axis, Norm::Backward).unwrap()
            } else {
                fft::fft(&a, None, axis, Norm::Backward).unwrap()
            };
            let scale = if inverse { 1.0 / n as f64 } else { 1.0 };
            let (want, _) = along(&xr, shape, axis, n, inverse, scale);
            check::<C>(
                &format!("{shape:?} axis {axis} inverse {inverse}"),
                &down(&y),
                &want,
                n,
            );
        }
    }
}

/// Transforms down columns too long for several to share a workgroup (src/fft/columns.rs:
/// two passes that keep the unit-stride batch dimension innermost): lengths around the
/// rule's threshold (512 and 1,024 on lavapipe's 32 KiB of workgroup memory), square,
/// oblong and prime-times-composite splits, merged batch dimensions, forward and inverse;
/// and views that do not split (a strided innermost dimension, a cropped or padded axis).
fn long_columns<C: ComplexFloat + FftInput<Complex = C>>() {
    let mut rng = Rng::new(12);
    let cases: &[(&[usize], usize, Option<usize>)] = &[
        (&[1024, 37], 0, None),
        (&[512, 40], 0, None),
        (&[2048, 3, 5], 0, None),
        (&[4096, 9], 0, None),
        (&[1200, 7], 0, None),
        (&[3, 2046, 17], 1, None),
        (&[1024, 33], 0, Some(1000)),
        (&[1000, 20], 0, Some(1024)),
    ];
    for &(shape, axis, n_opt) in cases {
        let len: usize = shape.iter().product();
        let x = rand_c(&mut rng, len);
        let a = up::<C>(&x, shape);
        let xr = rounded::<C>(&x);
        let n = n_opt.unwrap_or(shape[axis]);
        for inverse in [false, true] {
            let y = if inverse {
                fft::ifft(&a, n_opt, axis, Norm::Backward).unwrap()
            } else {
                fft::fft(&a, n_opt, axis, Norm::Backward).unwrap()
            };
            let scale = if inverse { 1.0 / n as f64 } else { 1.0 };
            let (want, oshape) = along(&xr, shape, axis, n, inverse, scale);
            assert_eq!(y.shape(), &oshape[..]);
            check::<C>(
                &format!("{shape:?} axis {axis} n {n_opt:?} inverse {inverse}"),
                &down(&y),
                &want,
                n,
            );
        }
    }
    // A stepped innermost dimension (no unit stride to keep inside) and a transposed one.
    let x = rand_c(&mut rng, 1024 * 12);
    let a = up::<C>(&x, &[1024, 12]);
    let xr = rounded::<C>(&x);
    let v = a
        .slice([Slice::from(..), Slice::from(1..).step(3)])
        .unwrap();
    let vr: Vec<C64> = (0..1024)
        .flat_map(|i| (0..4).map(move |j| (i, 1 + 3 * j)))
        .map(|(i, j)| xr[i * 12 + j])
        .collect();
    let y = fft::fft(&v, None, 0, Norm::Backward).unwrap();
    let (want, _) = along(&vr, &[1024, 4], 0, 1024, false, 1.0);
    check::<C>("stepped columns", &down(&y), &want, 1024);
    let t = a.t();
    let y = fft::fft(&t, None, 1, Norm::Backward).unwrap();
    let tr: Vec<C64> = (0..12)
        .flat_map(|j| (0..1024).map(move |i| (i, j)))
        .map(|(i, j)| xr[i * 12 + j])
        .collect();
    let (want, _) = along(&tr, &[12, 1024], 1, 1024, false, 1.0);
    check::<C>("transposed rows", &down(&y), &want, 1024);
}

crate::per_dtype! {
    [c64: Complex<f32>, c128: Complex<f64>] => {
        columns => column_groups::<T>();
        split_columns => long_columns::<T>();
        every_length => lengths::<T>();
        batched => batches::<T>();
        axes => every_axis::<T>();
        strided_views => views::<T>();
        pad_and_crop => padding::<T>();
        norms => norms_and_round_trips::<T>();
        kept_plans => plans::<T>();
    }
}

#[test]
fn real_input_is_promoted() {
    let mut rng = Rng::new(8);
    for n in [1, 6, 17, 5000] {
        let v = rng.vec(n, -1.0, 1.0);
        let x32: Vec<f32> = v.iter().map(|&t| t as f32).collect();
        let a = dev().from_slice(&x32, [n]).unwrap();
        let y: Array<Complex<f32>> = fft::fft(&a, None, 0, Norm::Backward).unwrap();
        let xr: Vec<C64> = x32.iter().map(|&t| C64::new(t as f64, 0.0)).collect();
        check::<Complex<f32>>("f32 input", &down(&y), &dft(&xr, false), n);
        if common::supported::<f64>(dev()) {
            let a = dev().from_slice(&v, [n]).unwrap();
            let y: Array<Complex<f64>> = fft::ifft(&a, None, 0, Norm::Forward).unwrap();
            let xr: Vec<C64> = v.iter().map(|&t| C64::new(t, 0.0)).collect();
            check::<Complex<f64>>("f64 input", &down(&y), &dft(&xr, true), n);
        }
    }
}

#[test]
fn empty_batches_give_empty_arrays() {
    let a = dev().zeros::<Complex<f32>>([0, 8]).unwrap();
    let y = fft::fft(&a, None, 1, Norm::Backward).unwrap();
    assert_eq!(y.shape(), &[0, 8]);
    let y = fft::fft(&a, Some(5), -1, Norm::Backward).unwrap();
    assert_eq!(y.shape(), &[0, 5]);
    // A zero-length axis padded to n: zeros.
    let y = fft::fft(&a, Some(3), 0, Norm::Backward).unwrap();
    assert_eq!(y.shape(), &[3, 8]);
    assert!(y.to_vec().unwrap().iter().all(|z| z.norm() == 0.0));
}

#[test]
fn bad_inputs_are_typed_errors() {
    let x = dev()
        .from_slice(&[Complex::new(1.0f32, 0.0); 6], [2, 3])
        .unwrap();
    let invalid = |r: gpuarray::Result<Array<Complex<f32>>>| {
        assert!(matches!(r, Err(Error::InvalidArgument { .. })), "{r:?}")
    };
    invalid(fft::fft(&x, Some(0), 1, Norm::Backward));
    invalid(fft::ifft(
        &dev().zeros::<Complex<f32>>([2, 0]).unwrap(),
        None,
        1,
        Norm::Backward,
    ));
    invalid(fft::fft(&x, None, .., Norm::Backward));
    invalid(fft::fft(&x, None, [0, 1], Norm::Backward));
    assert!(matches!(
        fft::fft(&x, None, 2, Norm::Backward),
        Err(Error::AxisOutOfRange { axis: 2, ndim: 2 })
    ));
    assert!(matches!(
        fft::fft(&x, None, -3, Norm::Backward),
        Err(Error::AxisOutOfRange { .. })
    ));
    let scalar = dev().from_slice(&[Complex::new(1.0f32, 0.0)], []).unwrap();
    assert!(matches!(
        fft::fft(&scalar, None, 0, Norm::Backward),
        Err(Error::AxisOutOfRange { .. })
    ));
    // irfft of one term: the default length 0.
    let one = dev().from_slice(&[Complex::new(1.0f32, 0.0)], [1]).unwrap();
    assert!(matches!(
        fft::irfft(&one, None, 0, Norm::Backward),
        Err(Error::InvalidArgument { .. })
    ));
    assert!(matches!(
        fft::hfft(&one, Some(0), 0, Norm::Backward),
        Err(Error::InvalidArgument { .. })
    ));
    invalid(fft::fftn(&x, Some(&[2, 3]), [0], Norm::Backward));
    invalid(fft::fftn(&x, Some(&[2, 3, 4]), .., Norm::Backward));
    invalid(fft::fftn(&x, None, Vec::<isize>::new(), Norm::Backward));
    assert!(matches!(
        fft::fft2(
            &dev().zeros::<Complex<f32>>([4]).unwrap(),
            None,
            ..,
            Norm::Backward
        ),
        Err(Error::AxisOutOfRange { .. })
    ));
    assert!(matches!(
        Plan::<Complex<f32>>::new(dev(), 0),
        Err(Error::InvalidArgument { .. })
    ));
    assert!(matches!(
        fft::fftfreq::<f32>(dev(), 0, 1.0),
        Err(Error::InvalidArgument { .. })
    ));
    assert!(matches!(
        fft::rfftfreq::<f32>(dev(), 4, 0.0),
        Err(Error::InvalidArgument { .. })
    ));
    assert!(matches!(
        fft::fftshift(&x, 3),
        Err(Error::AxisOutOfRange { .. })
    ));
    if !common::supported::<Complex<f64>>(dev()) {
        let r = Plan::<Complex<f64>>::new(dev(), 4);
        assert!(matches!(r, Err(Error::Unsupported { .. })));
    }
    // The device and the input are intact.
    let y = fft::fft(&x, None, 1, Norm::Backward)
        .unwrap()
        .to_vec()
        .unwrap();
    assert!((y[0].re - 3.0).abs() < 1e-6 && y[1].norm() < 1e-6);
    assert_eq!(x.to_vec().unwrap(), vec![Complex::new(1.0f32, 0.0); 6]);
}

/// A length past (workgroup capacity)^2 / 4: three four-step passes (the columns split,
/// then the rows split again), complex128 2^21 (or complex64 2^23 without f64), forward and
/// inverse with n cropping the input (the gather first).
#[test]
fn three_passes() {
    let mut rng = Rng::new(9);
    fn one<C: ComplexFloat + FftInput<Complex = C>>(rng: &mut Rng, n: usize) {
        let x = rand_c(rng, n);
        let a = up::<C>(&x, &[n]);
        let xr = rounded::<C>(&x);
        let y = fft::fft(&a, None, 0, Norm::Backward).unwrap();
        check::<C>("three passes", &down(&y), &dft(&xr, false), n);
        let y = fft::ifft(&a, Some(n / 2), 0, Norm::Forward).unwrap();
        check::<C>(
            "three passes, cropped",
            &down(&y),
            &dft(&xr[..n / 2], true),
            n / 2,
        );
    }
    if common::supported::<Complex<f64>>(dev()) {
        one::<Complex<f64>>(&mut rng, 1 << 21);
    } else {
        one::<Complex<f32>>(&mut rng, 1 << 23);
    }
}

/// Transforms of 32 MiB and more, which src/fft/runs.rs splits into passes whose strided
/// accesses move runs of 64 or 128 bytes (complex64 2^22 as 256 x 128 x 128 on lavapipe's
/// 32 KiB, the last pass's batch order turned), forward and inverse; two of them as a
/// batch read through a reversed view (the gather first); a real transform of 2^23 (its
/// half-length complex transform split so); within `tol(n)` of the f64 reference.
#[test]
fn run_splits() {
    let mut rng = Rng::new(31);
    let n = 1 << 22;
    let x = rand_c(&mut rng, 2 * n);
    let a = up::<Complex<f32>>(&x, &[2, n]);
    let xr = rounded::<Complex<f32>>(&x);
    let first = a.slice([Slice::from(0..1), Slice::from(..)]).unwrap();
    let y = fft::fft(&first, None, 1, Norm::Backward).unwrap();
    check::<Complex<f32>>("run split", &down(&y), &dft(&xr[..n], false), n);
    let y = fft::ifft(&first, None, 1, Norm::Ortho).unwrap();
    let s = 1.0 / (n as f64).sqrt();
    let want: Vec<C64> = dft(&xr[..n], true).iter().map(|v| v * s).collect();
    check::<Complex<f32>>("run split, inverse", &down(&y), &want, n);
    // Both rows, the second axis reversed.
    let rev = a
        .slice([Slice::from(..), Slice::from(..).step(-1)])
        .unwrap();
    let host: Vec<C64> = (0..2)
        .flat_map(|b| (0..n).rev().map(move |k| b * n + k))
        .map(|i| xr[i])
        .collect();
    let y = fft::fft(&rev, None, -1, Norm::Backward).unwrap();
    let (want, _) = along(&host, &[2, n], 1, n, false, 1.0);
    check::<Complex<f32>>("run split, reversed batch", &down(&y), &want, n);
    // rfft of 2^23 reals: the complex transform of 2^22 pairs, then the pairing pass.
    let m = 1 << 23;
    let re: Vec<f64> = (0..m).map(|_| rng.uniform(-1.0, 1.0)).collect();
    let ra = dev()
        .from_slice(&re.iter().map(|&v| v as f32).collect::<Vec<_>>(), [m])
        .unwrap();
    let rr: Vec<C64> = re.iter().map(|&v| C64::new(v as f32 as f64, 0.0)).collect();
    let y = fft::rfft(&ra, None, 0, Norm::Backward).unwrap();
    let want = dft(&rr, false);
    check::<Complex<f32>>("run split, rfft", &down(&y), &want[..m / 2 + 1], m);
}
