//! Images of the `image` crate to and from arrays (feature `image`): 8-bit and 16-bit
//! images as `Array<u8>` / `Array<u16>` of shape `[H, W]` (one channel) or `[H, W, C]`,
//! row-major with the channels innermost, as the image stores them (NumPy's and OpenCV's
//! layout).

use image::{DynamicImage, ImageBuffer, Luma, Pixel, Primitive, Rgb, Rgba};

use crate::array::Array;
use crate::device::Device;
use crate::dtype::Element;
use crate::error::{Error, Result};

/// An 8-bit gray image.
pub type GrayImage = ImageBuffer<Luma<u8>, Vec<u8>>;
/// A 16-bit gray image (`Luma16`).
pub type Gray16Image = ImageBuffer<Luma<u16>, Vec<u16>>;

impl<S: Element + Primitive> Array<S> {
    /// An image's pixels as an array: `[H, W]` for one channel, `[H, W, C]` for more
    /// (channels innermost). Any `ImageBuffer` of u8 or u16 subpixels (`GrayImage`,
    /// `RgbImage`, `RgbaImage`, their 16-bit forms).
    ///
    /// # Errors
    /// [`Error::OutOfMemory`] and the device's errors.
    ///
    /// ```
    /// # let dev = gpuarray::Device::new()?;
    /// let img = image::RgbImage::from_fn(3, 2, |x, y| image::Rgb([x as u8, y as u8, 9]));
    /// let a = gpuarray::Array::from_image(&dev, &img)?;
    /// assert_eq!(a.shape(), &[2, 3, 3]);
    /// assert_eq!(a.to_vec()?[..6], [0, 0, 9, 1, 0, 9]);
    /// # Ok::<(), gpuarray::Error>(())
    /// ```
    pub fn from_image<P: Pixel<Subpixel = S>>(
        dev: &Device,
        img: &ImageBuffer<P, Vec<S>>,
    ) -> Result<Array<S>> {
        let (w, h) = (img.width() as usize, img.height() as usize);
        let c = usize::from(P::CHANNEL_COUNT);
        let shape = if c == 1 { vec![h, w] } else { vec![h, w, c] };
        dev.from_slice(img.as_raw(), shape)
    }

    /// The array as an image of pixel type `P` with `channels` channels.
    fn to_image<P: Pixel<Subpixel = S>>(&self, op: &'static str) -> Result<ImageBuffer<P, Vec<S>>> {
        let c = usize::from(P::CHANNEL_COUNT);
        let s = &self.shape;
        let ok = match s.len() {
            2 => c == 1,
            3 => s[2] == c,
            _ => false,
        };
        if !ok {
            let mut want = s.iter().take(2).copied().collect::<Vec<_>>();
            if c > 1 {
                want.push(c);
            }
            return Err(Error::ShapeMismatch {
                op,
                lhs: s.clone(),
                rhs: want,
            });
        }
        let (h, w) = (s[0], s[1]);
        let too_big = |d: usize| u32::try_from(d).is_err();
        if too_big(h) || too_big(w) {
            return Err(Error::InvalidArgument {
                op,
                reason: "an image's sides are at most u32::MAX pixels",
            });
        }
        let data = self.to_vec()?;
        ImageBuffer::from_raw(w as u32, h as u32, data).ok_or(Error::InvalidArgument {
            op,
            reason: "the pixels do not fill the image",
        })
    }
}

impl Array<u8> {
    /// A [`DynamicImage`] as an array: 8-bit images as [`Array::from_image`] (gray `[H,
    /// W]`, gray with alpha `[H, W, 2]`, RGB `[H, W, 3]`, RGBA `[H, W, 4]`); others (16-bit,
    /// float) converted to 8-bit RGBA by the `image` crate first.
    ///
    /// # Errors
    /// As [`Array::from_image`].
    ///
    /// ```
    /// # let dev = gpuarray::Device::new()?;
    /// let img = image::DynamicImage::ImageLuma8(image::GrayImage::new(4, 3));
    /// let a = gpuarray::Array::from_dynamic_image(&dev, &img)?;
    /// assert_eq!(a.shape(), &[3, 4]);
    /// # Ok::<(), gpuarray::Error>(())
    /// ```
    pub fn from_dynamic_image(dev: &Device, img: &DynamicImage) -> Result<Array<u8>> {
        match img {
            DynamicImage::ImageLuma8(i) => Array::from_image(dev, i),
            DynamicImage::ImageLumaA8(i) => Array::from_image(dev, i),
            DynamicImage::ImageRgb8(i) => Array::from_image(dev, i),
            DynamicImage::ImageRgba8(i) => Array::from_image(dev, i),
            other => Array::from_image(dev, &other.to_rgba8()),
        }
    }

    /// A `[H, W]` (or `[H, W, 1]`) array as an 8-bit gray image.
    ///
    /// # Errors
    /// [`Error::ShapeMismatch`] for any other shape.
    ///
    /// ```
    /// # let dev = gpuarray::Device::new()?;
    /// let a = dev.from_slice(&[0u8, 64, 128, 255], [2, 2])?;
    /// let img = a.to_gray_image()?;
    /// assert_eq!(img.get_pixel(1, 1).0, [255]);
    /// assert!(a.reshape([4])?.to_gray_image().is_err());
    /// # Ok::<(), gpuarray::Error>(())
    /// ```
    pub fn to_gray_image(&self) -> Result<GrayImage> {
        self.to_image("to_gray_image")
    }

    /// A `[H, W, 3]` array as an RGB image.
    ///
    /// # Errors
    /// [`Error::ShapeMismatch`] for any other shape.
    ///
    /// ```
    /// # let dev = gpuarray::Device::new()?;
    /// let a = dev.from_slice(&[1u8, 2, 3, 4, 5, 6], [1, 2, 3])?;
    /// assert_eq!(a.to_rgb_image()?.get_pixel(1, 0).0, [4, 5, 6]);
    /// # Ok::<(), gpuarray::Error>(())
    /// ```
    pub fn to_rgb_image(&self) -> Result<ImageBuffer<Rgb<u8>, Vec<u8>>> {
        self.to_image("to_rgb_image")
    }

    /// A `[H, W, 4]` array as an RGBA image.
    ///
    /// # Errors
    /// [`Error::ShapeMismatch`] for any other shape.
    ///
    /// ```
    /// # let dev = gpuarray::Device::new()?;
    /// let a = dev.full::<u8>([2, 3, 4], 7)?;
    /// assert_eq!(a.to_rgba_image()?.dimensions(), (3, 2));
    /// # Ok::<(), gpuarray::Error>(())
    /// ```
    pub fn to_rgba_image(&self) -> Result<ImageBuffer<Rgba<u8>, Vec<u8>>> {
        self.to_image("to_rgba_image")
    }
}

impl Array<u16> {
    /// A `[H, W]` (or `[H, W, 1]`) array as a 16-bit gray image (`Luma16`).
    ///
    /// # Errors
    /// [`Error::ShapeMismatch`] for any other shape.
    ///
    /// ```
    /// # let dev = gpuarray::Device::new()?;
    /// let a = dev.from_slice(&[0u16, 65535], [1, 2])?;
    /// assert_eq!(a.to_gray16_image()?.get_pixel(1, 0).0, [65535]);
    /// # Ok::<(), gpuarray::Error>(())
    /// ```
    pub fn to_gray16_image(&self) -> Result<Gray16Image> {
        self.to_image("to_gray16_image")
    }

    /// A `[H, W, 3]` array as a 16-bit RGB image.
    ///
    /// # Errors
    /// [`Error::ShapeMismatch`] for any other shape.
    ///
    /// ```
    /// # let dev = gpuarray::Device::new()?;
    /// let a = dev.full::<u16>([1, 1, 3], 300)?;
    /// assert_eq!(a.to_rgb16_image()?.get_pixel(0, 0).0, [300; 3]);
    /// # Ok::<(), gpuarray::Error>(())
    /// ```
    pub fn to_rgb16_image(&self) -> Result<ImageBuffer<Rgb<u16>, Vec<u16>>> {
        self.to_image("to_rgb16_image")
    }
}
