//! An image filtered in the frequency domain: `fft::rfft2`, the spectrum multiplied by a
//! Gaussian low-pass `exp(-2 pi^2 sigma^2 (fx^2 + fy^2))` (frequencies from `fft::fftfreq`
//! and `fft::rfftfreq`, the complex spectrum scaled through its `real()` and `imag()` parts),
//! and `fft::irfft2` back. That is a periodic convolution with a Gaussian of `sigma` pixels,
//! so the result is checked against `signal::convolve2d_with(.., Boundary::Wrap)` with the
//! sampled kernel (to 1e-3 of the pixel range), and the share of the energy above 0.25
//! cycles per pixel must fall by more than 1000 times.
//!
//! The input is made by the example (shapes, rings, a checkerboard and noise:
//! `fft_filter_input.png`); writes the filtered image (`fft_filter_lowpass.png`), the log
//! magnitude spectra before and after, zero frequency at the centre
//! (`fft_filter_spectrum.png`), and a panel of all four (`fft_filter.png`).
//!
//! ```text
//! cargo run --release --example fft_filter                             # 1024 x 1024
//! GPUARRAY_EXAMPLES_QUICK=1 cargo run --release --example fft_filter   # 128 x 96
//! ```

mod common;

use std::f64::consts::PI;
use std::path::Path;

use common::{out_dir, quick, save_png, Res};
use gpuarray::fft::{fftfreq, fftshift, irfft2, rfft2, rfftfreq, Norm};
use gpuarray::signal::{convolve2d_with, Boundary, Mode};
use gpuarray::{Array, Complex, ComplexOps, Device};
use image::{GrayImage, Luma};

/// An rfft2 spectrum of an f32 image.
type Spectrum = Array<Complex<f32>>;

/// A deterministic `w` x `h` test image in [0, 1]: a gradient, a disc, a square, rings and
/// a checkerboard (sharp edges, so high frequencies), with uniform noise.
fn make_input(w: usize, h: usize) -> Vec<f32> {
    let mut state = 0x2545_f491_u32;
    let mut px = Vec::with_capacity(w * h);
    let cell = (w / 24).max(1);
    for y in 0..h {
        for x in 0..w {
            let (u, v) = (x as f32 / w as f32, y as f32 / h as f32);
            let mut p = 0.15 + 0.25 * u;
            if (u - 0.3).powi(2) + (v - 0.3).powi(2) < 0.04 {
                p = 0.9;
            }
            if (0.58..0.88).contains(&u) && (0.12..0.42).contains(&v) {
                p = 0.05;
            }
            let r = ((u - 0.7).powi(2) + (v - 0.72).powi(2)).sqrt();
            if r < 0.22 {
                p = 0.5 + 0.4 * (r * 90.0).sin();
            }
            if u < 0.4 && v > 0.6 && (x / cell + y / cell).is_multiple_of(2) {
                p = 0.8;
            }
            state ^= state << 13;
            state ^= state >> 17;
            state ^= state << 5;
            let noise = (state as f32 / u32::MAX as f32 - 0.5) * 0.3;
            px.push((p + noise).clamp(0.0, 1.0));
        }
    }
    px
}

/// The sampled Gaussian of `sigma` pixels, radius `ceil(5 sigma)`, normalised to sum 1.
fn gaussian(sigma: f64) -> (usize, Vec<f32>) {
    let r = (5.0 * sigma).ceil() as i64;
    let size = (2 * r + 1) as usize;
    let mut k = Vec::with_capacity(size * size);
    for i in -r..=r {
        for j in -r..=r {
            k.push((-((i * i + j * j) as f64) / (2.0 * sigma * sigma)).exp());
        }
    }
    let total: f64 = k.iter().sum();
    (size, k.iter().map(|v| (v / total) as f32).collect())
}

/// Writes `px` (`w` wide, values in [0, 1]) as an 8-bit grey PNG.
fn to_png(px: &[f32], w: usize, path: &Path) -> Res<GrayImage> {
    let h = px.len() / w;
    let bytes = px
        .iter()
        .map(|v| (v * 255.0).clamp(0.0, 255.0).round() as u8)
        .collect();
    let img = GrayImage::from_raw(w as u32, h as u32, bytes).ok_or("wrong image size")?;
    save_png(&img, path)?;
    println!("wrote {}", path.display());
    Ok(img)
}

/// `log(1 + |X|)` of an rfft2 spectrum, zero frequency moved to the centre row and the
/// full width restored by mirroring (the spectrum of a real image is Hermitian), scaled to
/// [0, 1] by `peak`.
fn log_spectrum(spec: &Array<Complex<f32>>, w: usize, peak: f32) -> Res<Vec<f32>> {
    let mag = fftshift(&spec.abs()?, 0)?.log1p()?.to_vec()?;
    let (h, wc) = (spec.shape()[0], spec.shape()[1]);
    let mut out = vec![0.0f32; h * w];
    for y in 0..h {
        for x in 0..w {
            // Column x of the full, centred spectrum is frequency fx = x - w/2.
            let fx = x as i64 - (w / 2) as i64;
            let (row, col) = if fx >= 0 {
                (y, fx as usize)
            } else {
                // X(-fy, -fx) = conj X(fy, fx): mirror the centred row about the centre.
                ((2 * (h / 2) + h - y) % h, (-fx) as usize)
            };
            out[y * w + x] = if col < wc {
                mag[row * wc + col] / peak
            } else {
                0.0
            };
        }
    }
    Ok(out)
}

fn main() -> Res<()> {
    let dev = Device::new()?;
    println!("adapter: {} ({})", dev.info().name, dev.info().backend);
    let out = out_dir()?;
    let (w, h, sigma) = if quick() {
        (128, 96, 2.0)
    } else {
        (1024, 1024, 4.0)
    };
    let input = make_input(w, h);
    to_png(&input, w, &out.join("fft_filter_input.png"))?;
    let x = dev.from_slice(&input, [h, w])?;

    // The low-pass in frequency, [h, w/2 + 1]: exp(-2 pi^2 sigma^2 (fy^2 + fx^2)).
    let fy = fftfreq::<f32>(&dev, h, 1.0)?;
    let fx = rfftfreq::<f32>(&dev, w, 1.0)?;
    let wc = fx.len();
    let r2 = fy
        .mul(&fy)?
        .reshape([h, 1])?
        .add(&fx.mul(&fx)?.reshape([1, wc])?)?;
    let gain = r2
        .mul_scalar((-2.0 * PI * PI * sigma * sigma) as f32)?
        .exp()?;

    let (ks, k) = gaussian(sigma);
    let k = dev.from_slice(&k, [ks, ks])?;
    let low_pass = || -> gpuarray::Result<(Spectrum, Spectrum, Array<f32>)> {
        let spec = rfft2(&x, None, .., Norm::Backward)?;
        let filtered =
            Array::<Complex<f32>>::complex(&spec.real().mul(&gain)?, &spec.imag().mul(&gain)?)?;
        let y = irfft2(&filtered, Some(&[h, w]), .., Norm::Backward)?;
        Ok((spec, filtered, y))
    };
    let direct = || convolve2d_with(&x, &k, Mode::Same, Boundary::Wrap);
    // Timed after a first call of each, which builds the plans and compiles the shaders.
    drop((low_pass()?, direct()?));
    dev.synchronize()?;
    let e0 = dev.record_event()?;
    let (spec, filtered_spec, y) = low_pass()?;
    let e1 = dev.record_event()?;
    let direct = direct()?;
    let e2 = dev.record_event()?;
    println!(
        "{w} x {h}, sigma {sigma} px: rfft2 -> low-pass -> irfft2 {:.3} ms; direct {ks} x {ks} \
         periodic convolution {:.3} ms",
        e0.elapsed_ms(&e1)?,
        e1.elapsed_ms(&e2)?
    );

    // The frequency-domain filter is the periodic convolution with the Gaussian.
    let diff = y.sub(&direct)?.abs()?.max()?.to_scalar()?;
    println!("largest difference from the direct convolution: {diff:.2e}");
    if diff.is_nan() || diff >= 1e-3 {
        return Err(format!("the filtered image differs from the convolution by {diff}").into());
    }

    // Energy above 0.25 cycles per pixel, before and after.
    let high = r2.to_vec()?;
    let energy = |s: &Array<Complex<f32>>| -> Res<(f64, f64)> {
        let m = s.abs()?.to_vec()?;
        let (mut hi, mut all) = (0.0f64, 0.0f64);
        for (i, v) in m.iter().enumerate() {
            // Columns 1 .. w/2 (less the Nyquist column of even w) stand for two bins each.
            let col = i % wc;
            let twice = col > 0 && !(w % 2 == 0 && col == wc - 1);
            let e = (*v as f64).powi(2) * if twice { 2.0 } else { 1.0 };
            all += e;
            if high[i] > 0.0625 {
                hi += e;
            }
        }
        Ok((hi, all))
    };
    let (hi0, all0) = energy(&spec)?;
    let (hi1, all1) = energy(&rfft2(&y, None, .., Norm::Backward)?)?;
    let (share0, share1) = (hi0 / all0, hi1 / all1);
    println!(
        "share of the energy above 0.25 cycles/px: {share0:.2e} before, {share1:.2e} after \
         ({:.0} times less)",
        share0 / share1.max(1e-300)
    );
    if share1.is_nan() || share1 * 1e3 >= share0 {
        return Err("the low-pass left the high frequencies".into());
    }

    let y_h = y.to_vec()?;
    to_png(&y_h, w, &out.join("fft_filter_lowpass.png"))?;
    let peak = fftshift(&spec.abs()?, 0)?.log1p()?.max()?.to_scalar()?;
    let before = log_spectrum(&spec, w, peak)?;
    let after = log_spectrum(&filtered_spec, w, peak)?;
    let spectra: Vec<f32> = (0..h)
        .flat_map(|r| {
            let row = r * w..(r + 1) * w;
            before[row.clone()]
                .iter()
                .chain(std::iter::repeat_n(&1.0f32, 8))
                .chain(after[row].iter())
                .copied()
                .collect::<Vec<_>>()
        })
        .collect();
    let sw = 2 * w + 8;
    let spec_img = to_png(&spectra, sw, &out.join("fft_filter_spectrum.png"))?;

    // A panel: input | low-pass | spectrum before | spectrum after.
    let gap = 8u32;
    let (w32, h32) = (w as u32, h as u32);
    let mut panel = GrayImage::from_pixel(4 * w32 + 3 * gap, h32, Luma([255]));
    let input_img = image::open(out.join("fft_filter_input.png"))?.to_luma8();
    let low_img = image::open(out.join("fft_filter_lowpass.png"))?.to_luma8();
    image::imageops::replace(&mut panel, &input_img, 0, 0);
    image::imageops::replace(&mut panel, &low_img, (w32 + gap) as i64, 0);
    image::imageops::replace(&mut panel, &spec_img, (2 * (w32 + gap)) as i64, 0);
    let p = out.join("fft_filter.png");
    save_png(&panel, &p)?;
    println!(
        "wrote {} (input | low-pass | log spectrum before | after)",
        p.display()
    );
    Ok(())
}
