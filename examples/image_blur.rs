//! Image filtering with `convolve2d` on the GPU (mirrored at the edges, SciPy's `symm`, so
//! the border is no edge): reads a PNG (the `image` crate), applies a
//! Gaussian blur, then a Sobel edge filter to the blurred image (two 3x3 convolutions and
//! the gradient's magnitude, all on the device), and writes the results as PNGs beside a
//! side-by-side panel (`image_blur.png`).
//!
//! With no argument the input is made by the example (shapes, rings and a little noise,
//! deterministic) and written as `image_blur_input.png` first; give a path to filter your
//! own PNG (converted to grey).
//!
//! ```text
//! cargo run --release --example image_blur [-- photo.png]
//! GPUARRAY_EXAMPLES_QUICK=1 cargo run --release --example image_blur   # 128 x 128
//! ```

mod common;

use std::path::Path;

use common::{out_dir, quick, save_png, Res};
use gpuarray::signal::{convolve2d_with, Boundary, Mode};
use gpuarray::{Array, Device};
use image::{GrayImage, Luma};

/// A deterministic test image in [0, 1]: a gradient, a disc, a square, a ring pattern
/// and a checkerboard, with a little uniform noise.
fn make_input(size: u32) -> GrayImage {
    let s = size as f32;
    let mut state = 0x2545_f491_u32;
    GrayImage::from_fn(size, size, |x, y| {
        let (u, v) = (x as f32 / s, y as f32 / s);
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
        if u < 0.4
            && v > 0.6
            && ((x / (size / 32).max(1)) + (y / (size / 32).max(1))).is_multiple_of(2)
        {
            p = 0.8;
        }
        state ^= state << 13;
        state ^= state >> 17;
        state ^= state << 5;
        let noise = (state as f32 / u32::MAX as f32 - 0.5) * 0.25;
        Luma([((p + noise).clamp(0.0, 1.0) * 255.0).round() as u8])
    })
}

/// A normalised `size` x `size` Gaussian kernel of standard deviation `sigma` pixels.
fn gaussian(sigma: f32) -> (usize, Vec<f32>) {
    let r = (3.0 * sigma).ceil() as i32;
    let size = (2 * r + 1) as usize;
    let mut k = Vec::with_capacity(size * size);
    for i in -r..=r {
        for j in -r..=r {
            k.push((-((i * i + j * j) as f32) / (2.0 * sigma * sigma)).exp());
        }
    }
    let total: f32 = k.iter().sum();
    k.iter_mut().for_each(|v| *v /= total);
    (size, k)
}

fn to_png(a: &Array<f32>, scale: f32, path: &Path) -> Res<GrayImage> {
    let (h, w) = (a.shape()[0] as u32, a.shape()[1] as u32);
    let px: Vec<u8> = a
        .to_vec()?
        .iter()
        .map(|v| (v * scale * 255.0).clamp(0.0, 255.0).round() as u8)
        .collect();
    let img = GrayImage::from_raw(w, h, px).ok_or("wrong image size")?;
    save_png(&img, path)?;
    println!("wrote {}", path.display());
    Ok(img)
}

fn main() -> Res<()> {
    let dev = Device::new()?;
    println!("adapter: {} ({})", dev.info().name, dev.info().backend);
    let out = out_dir()?;
    let quick = quick();
    let input_path = match std::env::args().nth(1) {
        Some(p) => p.into(),
        None => {
            let p = out.join("image_blur_input.png");
            save_png(&make_input(if quick { 128 } else { 1024 }), &p)?;
            println!("wrote {} (generated)", p.display());
            p
        }
    };
    let img = image::open(&input_path)?.to_luma32f();
    let (w, h) = img.dimensions();
    println!("input: {} ({w} x {h})", input_path.display());
    let x = dev.from_slice(img.as_raw(), [h as usize, w as usize])?;

    // Blur: sigma of 1/256 of the width (at least 1 pixel).
    let sigma = (w as f32 / 256.0).max(1.0);
    let (ks, k) = gaussian(sigma);
    let k = dev.from_slice(&k, [ks, ks])?;
    let sobel_x = dev.from_slice(&[1.0f32, 0.0, -1.0, 2.0, 0.0, -2.0, 1.0, 0.0, -1.0], [3, 3])?;
    let sobel_y = sobel_x.t().contiguous()?;

    dev.synchronize()?;
    let t0 = dev.record_event()?;
    let blurred = convolve2d_with(&x, &k, Mode::Same, Boundary::Symmetric)?;
    let t1 = dev.record_event()?;
    let gx = convolve2d_with(&blurred, &sobel_x, Mode::Same, Boundary::Symmetric)?;
    let gy = convolve2d_with(&blurred, &sobel_y, Mode::Same, Boundary::Symmetric)?;
    let mag = gx.mul(&gx)?.add(&gy.mul(&gy)?)?.sqrt()?;
    let t2 = dev.record_event()?;
    let peak = mag.max()?.to_scalar()?.max(1e-6);
    println!(
        "gaussian blur, {ks} x {ks} taps (sigma {sigma:.1} px): {:.3} ms; sobel edges: {:.3} ms",
        t0.elapsed_ms(&t1)?,
        t1.elapsed_ms(&t2)?
    );

    let blur_img = to_png(&blurred, 1.0, &out.join("image_blur_gaussian.png"))?;
    let edge_img = to_png(&mag, 1.0 / peak, &out.join("image_blur_sobel.png"))?;

    // A side-by-side panel: input, blurred, edges, each at most 320 pixels wide.
    let input8 = image::open(&input_path)?.to_luma8();
    let pw = w.min(320);
    let ph = (h as u64 * pw as u64 / w as u64).max(1) as u32;
    let gap = 8;
    let mut panel = GrayImage::from_pixel(3 * pw + 2 * gap, ph, Luma([255]));
    for (i, im) in [&input8, &blur_img, &edge_img].into_iter().enumerate() {
        let small = image::imageops::resize(im, pw, ph, image::imageops::FilterType::Triangle);
        image::imageops::replace(&mut panel, &small, (i as u32 * (pw + gap)) as i64, 0);
    }
    let p = out.join("image_blur.png");
    save_png(&panel, &p)?;
    println!(
        "wrote {} (input | gaussian blur | sobel edges)",
        p.display()
    );
    Ok(())
}
