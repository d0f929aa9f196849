//! The real and Hermitian transforms: rfft, irfft, hfft, ihfft against the complex
//! reference (odd and even n, padding and cropping, other axes, views, multi-pass and
//! Bluestein lengths), and their round trips.

use crate::common::{dev, unravel, Rng};
use crate::reference::{along, dft, C64};
use crate::{check, down, rand_c, rounded, up};
use gpuarray::fft::{self, Norm};
use gpuarray::{Array, Complex, ComplexFloat, Element, Float, Real, Slice};

fn real_up<F: Float>(v: &[f64], shape: &[usize]) -> (Array<F>, Vec<C64>) {
    let r: Vec<F> = v.iter().map(|&t| F::from_f64(t)).collect();
    let host = r.iter().map(|t| C64::new(t.to_f64(), 0.0)).collect();
    (dev().from_slice(&r, shape).unwrap(), host)
}

fn real_down<F: Float>(a: &Array<F>) -> Vec<C64> {
    a.to_vec()
        .unwrap()
        .iter()
        .map(|t| C64::new(t.to_f64(), 0.0))
        .collect()
}

/// The Hermitian extension of the first terms `x` (at most n / 2 + 1 used) to length n.
fn extend(x: &[C64], n: usize) -> Vec<C64> {
    let m = n / 2 + 1;
    let get = |k: usize| {
        if k < x.len().min(m) {
            x[k]
        } else {
            C64::new(0.0, 0.0)
        }
    };
    (0..n)
        .map(|k| if k < m { get(k) } else { get(n - k).conj() })
        .collect()
}

const N: &[usize] = &[1, 2, 3, 4, 5, 8, 17, 64, 100, 1009, 4096, 4099, 5000, 8192];

fn rfft_lengths<F: Float + fft::FftFloat>() {
    let mut rng = Rng::new(20);
    for &n in N {
        let (a, h) = real_up::<F>(&rng.vec(2 * n, -1.0, 1.0), &[2, n]);
        let y = fft::rfft(&a, None, -1, Norm::Backward).unwrap();
        assert_eq!(y.shape(), &[2, n / 2 + 1]);
        let (full, _) = along(&h, &[2, n], 1, n, false, 1.0);
        let want: Vec<C64> = (0..2)
            .flat_map(|b| full[b * n..b * n + n / 2 + 1].to_vec())
            .collect();
        check::<F::Complex>(&format!("rfft {n}"), &down(&y), &want, n);
        // ihfft: conj(rfft) / n.
        let y = fft::ihfft(&a, None, 1, Norm::Backward).unwrap();
        let want: Vec<C64> = want.iter().map(|v| v.conj() / n as f64).collect();
        check::<F::Complex>(&format!("ihfft {n}"), &down(&y), &want, n);
        // Round trip.
        let y = fft::rfft(&a, None, 1, Norm::Ortho).unwrap();
        let back = fft::irfft(&y, Some(n), 1, Norm::Ortho).unwrap();
        check::<F::Complex>(&format!("irfft(rfft) {n}"), &real_down(&back), &h, n);
    }
}

/// Long even rfft, which runs by the half-length complex transform where the samples pair
/// into complex elements (the axis contiguous, the offset and the other strides even), and
/// its fallbacks: five batch dimensions that do not merge (past a launch's four), an odd
/// offset, a cropped axis; lengths past one workgroup (4160 = 2^6 5 13; 4128 = 2^5 3 43, whose
/// half has a Bluestein factor).
fn rfft_long<F: Float + fft::FftFloat>() {
    let mut rng = Rng::new(23);
    let n = 4160;
    let shape = [2, 3, 3, 3, 3, n + 2];
    let len: usize = shape.iter().product();
    let (a, h) = real_up::<F>(&rng.vec(len, -1.0, 1.0), &shape);
    let vshape = [2, 2, 2, 2, 2, n];
    for (start, m) in [(2, n), (1, n), (0, 4128)] {
        let step = || Slice::from(..).step(2);
        let v = a
            .slice([
                Slice::from(..),
                step(),
                step(),
                step(),
                step(),
                Slice::from(start..start + n),
            ])
            .unwrap();
        let host: Vec<C64> = (0..32 * n)
            .map(|i| {
                let ix = unravel(i, &vshape);
                let mut at = 0;
                for d in 0..6 {
                    let k = if d == 5 {
                        start + ix[d]
                    } else if d == 0 {
                        ix[d]
                    } else {
                        2 * ix[d]
                    };
                    at = at * shape[d] + k;
                }
                h[at]
            })
            .collect();
        let y = fft::rfft(&v, Some(m), -1, Norm::Ortho).unwrap();
        assert_eq!(y.shape(), &[2, 2, 2, 2, 2, m / 2 + 1]);
        let (full, _) = along(&host, &vshape, 5, m, false, 1.0 / (m as f64).sqrt());
        let want: Vec<C64> = (0..32)
            .flat_map(|b| full[b * m..b * m + m / 2 + 1].to_vec())
            .collect();
        check::<F::Complex>(&format!("rfft {m} from {start}"), &down(&y), &want, m);
    }
}

fn irfft_lengths<C: ComplexFloat + fft::FftInput<Complex = C>>()
where
    C::Real: Element,
{
    let mut rng = Rng::new(21);
    for &n in N {
        for m in [n / 2 + 1, n / 2 + 3, (n / 4).max(1)] {
            let x = rand_c(&mut rng, m);
            let a = up::<C>(&x, &[m]);
            let xr = rounded::<C>(&x);
            let y = fft::irfft(&a, Some(n), 0, Norm::Backward).unwrap();
            let want: Vec<C64> = dft(&extend(&xr, n), true)
                .iter()
                .map(|v| C64::new(v.re / n as f64, 0.0))
                .collect();
            let got: Vec<C64> = y
                .to_vec()
                .unwrap()
                .iter()
                .map(|t| C64::new(t.to_f64(), 0.0))
                .collect();
            check::<C>(&format!("irfft {m} terms to {n}"), &got, &want, n);
            let y = fft::hfft(&a, Some(n), 0, Norm::Backward).unwrap();
            let want: Vec<C64> = dft(&extend(&xr, n), false)
                .iter()
                .map(|v| C64::new(v.re, 0.0))
                .collect();
            let got: Vec<C64> = y
                .to_vec()
                .unwrap()
                .iter()
                .map(|t| C64::new(t.to_f64(), 0.0))
                .collect();
            check::<C>(&format!("hfft {m} terms to {n}"), &got, &want, n);
        }
    }
}

fn irfft_axes<C: ComplexFloat + fft::FftInput<Complex = C>>()
where
    C::Real: Element,
{
    let mut rng = Rng::new(22);
    // Default n = 2 (m - 1) along axis 0 of a transposed view.
    for (r, c) in [(5, 3), (9, 2), (2049, 2)] {
        let x = rand_c(&mut rng, r * c);
        let a = up::<C>(&x, &[c, r]).t();
        let xr = rounded::<C>(&x);
        let n = 2 * (r - 1);
        let y = fft::irfft(&a, None, 0, Norm::Backward).unwrap();
        assert_eq!(y.shape(), &[n, c]);
        let got: Vec<C64> = y
            .to_vec()
            .unwrap()
            .iter()
            .map(|t| C64::new(t.to_f64(), 0.0))
            .collect();
        for j in 0..c {
            let line: Vec<C64> = (0..r).map(|k| xr[j * r + k]).collect();
            let want: Vec<C64> = dft(&extend(&line, n), true)
                .iter()
                .map(|v| C64::new(v.re / n as f64, 0.0))
                .collect();
            let col: Vec<C64> = (0..n).map(|k| got[k * c + j]).collect();
            check::<C>(&format!("irfft column {j} of {r} x {c}"), &col, &want, n);
        }
    }
}

crate::per_dtype! {
    [f32_: f32, f64_: f64] => {
        rfft_and_ihfft => rfft_lengths::<T>();
        rfft_long_views => rfft_long::<T>();
    }
}

crate::per_dtype! {
    [c64: Complex<f32>, c128: Complex<f64>] => {
        irfft_and_hfft => irfft_lengths::<T>();
        irfft_views => irfft_axes::<T>();
    }
}
