//! The packed small integers (u8, i8, u16, i16; four or two per u32 word): transfers,
//! creation, printing, casts with every dtype, elementwise operations, reductions and the
//! refusals of the other families, each against a CPU reference on random data, the types'
//! extremes, awkward sizes (0, 1, 3, 5, primes: partial last words) and offset views.

mod common;

use common::{dev, Rng};
use gpuarray::{f16, Array, DType, Element, Real, Slice};

/// Sizes with every remainder modulo 4, primes among them.
const SIZES: [usize; 8] = [0, 1, 2, 3, 5, 7, 13, 257];

/// The packed element types through one generic body.
trait Small: Real + Copy + std::fmt::Debug + PartialEq {
    const MIN: i64;
    const MAX: i64;
    fn of(v: i64) -> Self;
    fn int(self) -> i64;
}

macro_rules! small {
    ($($t:ty),*) => {$(
        impl Small for $t {
            const MIN: i64 = <$t>::MIN as i64;
            const MAX: i64 = <$t>::MAX as i64;
            fn of(v: i64) -> Self { v as $t }
            fn int(self) -> i64 { self as i64 }
        }
    )*};
}
small!(u8, i8, u16, i16);

/// `n` random values of `T` with both extremes and 0 among them (where there is room).
fn values<T: Small>(rng: &mut Rng, n: usize) -> Vec<T> {
    let mut v: Vec<T> = (0..n)
        .map(|_| T::of(rng.int(T::MIN, T::MAX) as i64))
        .collect();
    for (k, x) in [T::MIN, T::MAX, 0, 1, -1].iter().enumerate() {
        if k < n / 3 {
            v[k * 3] = T::of(*x);
        }
    }
    v
}

fn round_trip<T: Small>() {
    let d = dev();
    let mut rng = Rng::new(1);
    for n in SIZES {
        let v = values::<T>(&mut rng, n);
        let a = d.from_slice(&v, [n]).unwrap();
        assert_eq!(a.to_vec().unwrap(), v, "{} n={n}", T::DTYPE);
        if n > 2 {
            // An offset view (not on a word boundary) and a strided one.
            let s = a.slice(1..).unwrap();
            assert_eq!(s.to_vec().unwrap(), v[1..].to_vec());
            let r = a.slice(Slice::from(..).step(2)).unwrap();
            let want: Vec<T> = v.iter().step_by(2).copied().collect();
            assert_eq!(r.to_vec().unwrap(), want);
            assert_eq!(s.contiguous().unwrap().to_vec().unwrap(), v[1..].to_vec());
        }
    }
}

#[test]
fn transfers_round_trip_with_views() {
    round_trip::<u8>();
    round_trip::<i8>();
    round_trip::<u16>();
    round_trip::<i16>();
}

/// Elementwise operations on random operands (one of them an offset view, the other
/// broadcast along rows) against NumPy's wrapping arithmetic of the narrow type.
fn arithmetic<T: Small>() {
    let d = dev();
    let mut rng = Rng::new(2);
    let wrap = |v: i64| T::of(v).int();
    for n in [1usize, 3, 5, 13, 31] {
        let xv = values::<T>(&mut rng, n + 1);
        let yv = values::<T>(&mut rng, n);
        let x = d.from_slice(&xv, [n + 1]).unwrap().slice(1..).unwrap();
        let y = d.from_slice(&yv, [n]).unwrap();
        let (xs, ys): (Vec<i64>, Vec<i64>) = (
            xv[1..].iter().map(|v| v.int()).collect(),
            yv.iter().map(|v| v.int()).collect(),
        );
        let check = |got: Array<T>, f: &dyn Fn(i64, i64) -> i64, what: &str| {
            let want: Vec<T> = xs.iter().zip(&ys).map(|(&a, &b)| T::of(f(a, b))).collect();
            assert_eq!(got.to_vec().unwrap(), want, "{} {what} n={n}", T::DTYPE);
        };
        check(x.add(&y).unwrap(), &|a, b| a + b, "add");
        check(x.sub(&y).unwrap(), &|a, b| a - b, "sub");
        check(x.mul(&y).unwrap(), &|a, b| a * b, "mul");
        // Integer division truncated toward zero, 0 for a zero divisor; -128 / -1 wraps.
        check(
            x.div(&y).unwrap(),
            &|a, b| if b == 0 { 0 } else { wrap(a / b) },
            "div",
        );
        check(
            x.rem(&y).unwrap(),
            &|a, b| if b == 0 { 0 } else { a % b },
            "rem",
        );
        check(x.maximum(&y).unwrap(), &|a, b| a.max(b), "maximum");
        check(x.minimum(&y).unwrap(), &|a, b| a.min(b), "minimum");
        check(x.bitwise_and(&y).unwrap(), &|a, b| a & b, "and");
        check(x.bitwise_or(&y).unwrap(), &|a, b| a | b, "or");
        check(x.bitwise_xor(&y).unwrap(), &|a, b| a ^ b, "xor");
        let lt: Vec<bool> = xs.iter().zip(&ys).map(|(a, b)| a < b).collect();
        assert_eq!(x.lt(&y).unwrap().to_vec().unwrap(), lt);
        let eq: Vec<bool> = xs.iter().zip(&ys).map(|(a, b)| a == b).collect();
        assert_eq!(x.eq(&y).unwrap().to_vec().unwrap(), eq);
        // The same operands contiguous from a word (the word-load entries).
        let xa = d.from_slice(&xv[1..], [n]).unwrap();
        check(xa.sub(&y).unwrap(), &|a, b| a - b, "sub (contiguous)");
        check(xa.mul(&y).unwrap(), &|a, b| a * b, "mul (contiguous)");
        assert_eq!(xa.lt(&y).unwrap().to_vec().unwrap(), lt, "lt (contiguous)");
        // Scalars on the right and shifts (counts past the width shift everything out).
        let three = T::of(3);
        let want: Vec<T> = xs.iter().map(|&a| T::of(a + 3)).collect();
        assert_eq!(x.add_scalar(three).unwrap().to_vec().unwrap(), want);
        let bits = 8 * std::mem::size_of::<T>() as i64;
        for k in [1i64, 3, bits - 1, bits, bits + 1] {
            let c = d.full::<T>([n], T::of(k)).unwrap();
            let want: Vec<T> = xs
                .iter()
                .map(|&a| T::of(if k >= 32 { 0 } else { a << k }))
                .collect();
            assert_eq!(x.left_shift(&c).unwrap().to_vec().unwrap(), want, "<< {k}");
            let want: Vec<T> = xs.iter().map(|&a| T::of(a >> k.min(63))).collect();
            assert_eq!(x.right_shift(&c).unwrap().to_vec().unwrap(), want, ">> {k}");
        }
    }
}

#[test]
fn elementwise_wraps_as_numpy() {
    arithmetic::<u8>();
    arithmetic::<i8>();
    arithmetic::<u16>();
    arithmetic::<i16>();
    // Signed negation and abs wrap at the minimum (NumPy: abs(int8(-128)) is -128).
    let d = dev();
    let x = d.from_slice(&[-128i8, -1, 0, 127, 5], [5]).unwrap();
    assert_eq!(x.abs().unwrap().to_vec().unwrap(), vec![-128, 1, 0, 127, 5]);
    assert_eq!(
        x.neg().unwrap().to_vec().unwrap(),
        vec![-128, 1, 0, -127, -5]
    );
    let y = d.from_slice(&[-32768i16, 300], [2]).unwrap();
    assert_eq!(y.sign().unwrap().to_vec().unwrap(), vec![-1, 1]);
    // A transposed (strided) input.
    let m = d
        .from_slice(&(0..12u8).collect::<Vec<_>>(), [3, 4])
        .unwrap();
    let want: Vec<u8> = (0..4)
        .flat_map(|c| (0..3).map(move |r| (r * 4 + c) as u8 * 2))
        .collect();
    assert_eq!(m.t().add(&m.t()).unwrap().to_vec().unwrap(), want);
}

/// Casts from `T` to `O` and back, against Rust's `as`.
fn casts_with<T: Small, O: Element>(to: impl Fn(i64) -> O, from: impl Fn(O) -> T, src: &[O]) {
    let d = dev();
    let mut rng = Rng::new(3);
    for n in [0usize, 1, 5, 13] {
        let v = values::<T>(&mut rng, n);
        let a = d.from_slice(&v, [n]).unwrap();
        let want: Vec<O> = v.iter().map(|x| to(x.int())).collect();
        let got = a.cast::<O>().unwrap().to_vec().unwrap();
        assert_eq!(
            format!("{got:?}"),
            format!("{want:?}"),
            "{} -> {}",
            T::DTYPE,
            O::DTYPE
        );
    }
    let b = d.from_slice(src, [src.len()]).unwrap();
    let want: Vec<T> = src.iter().map(|&x| from(x)).collect();
    assert_eq!(
        b.cast::<T>().unwrap().to_vec().unwrap(),
        want,
        "{} -> {}",
        O::DTYPE,
        T::DTYPE
    );
}

macro_rules! casts {
    ($t:ty) => {{
        let f32s = [
            0.0f32,
            -0.0,
            1.9,
            -1.9,
            127.5,
            128.0,
            255.9,
            256.0,
            -129.0,
            65535.5,
            1e9,
            -1e9,
            f32::INFINITY,
            f32::NEG_INFINITY,
            f32::NAN,
            40000.7,
            -40000.7,
        ];
        casts_with::<$t, f32>(|v| v as $t as f32, |x| x as $t, &f32s);
        let f64s: Vec<f64> = f32s.iter().map(|&x| f64::from(x)).collect();
        if common::supported::<f64>(dev()) {
            casts_with::<$t, f64>(|v| v as $t as f64, |x| x as $t, &f64s);
        }
        if common::supported::<f16>(dev()) {
            let h: Vec<f16> = f32s.iter().map(|&x| f16::from_f32(x)).collect();
            casts_with::<$t, f16>(
                |v| f16::from_f64(v as $t as f64),
                |x| f32::from(x) as $t,
                &h,
            );
        }
        casts_with::<$t, i32>(
            |v| v as $t as i32,
            |x| x as $t,
            &[0, -1, 255, 256, -129, 65537, i32::MIN, i32::MAX],
        );
        casts_with::<$t, u32>(
            |v| v as $t as u32,
            |x| x as $t,
            &[0, 1, 255, 256, 65535, 65536, u32::MAX],
        );
        casts_with::<$t, bool>(|v| v != 0, |x| x as $t, &[true, false, true]);
        if common::supported::<i64>(dev()) {
            casts_with::<$t, i64>(
                |v| v as $t as i64,
                |x| x as $t,
                &[0, -1, 300, i64::MIN, i64::MAX, 1 << 40],
            );
            casts_with::<$t, u64>(
                |v| v as $t as u64,
                |x| x as $t,
                &[0, 300, u64::MAX, 1 << 40],
            );
        }
        casts_with::<$t, u8>(|v| v as $t as u8, |x| x as $t, &[0, 1, 127, 128, 255]);
        casts_with::<$t, i8>(|v| v as $t as i8, |x| x as $t, &[0, -1, 127, -128]);
        casts_with::<$t, u16>(
            |v| v as $t as u16,
            |x| x as $t,
            &[0, 255, 256, 65535, 32768],
        );
        casts_with::<$t, i16>(
            |v| v as $t as i16,
            |x| x as $t,
            &[0, -1, -32768, 32767, 300],
        );
    }};
}

#[test]
fn casts_with_every_dtype_as_rust() {
    casts!(u8);
    casts!(i8);
    casts!(u16);
    casts!(i16);
}

fn reductions<T: Small>() {
    let d = dev();
    let mut rng = Rng::new(4);
    for n in [1usize, 3, 5, 13, 1031] {
        let v = values::<T>(&mut rng, n + 3);
        // A view with an offset that is not on a word boundary.
        let a = d.from_slice(&v, [n + 3]).unwrap().slice(3..).unwrap();
        let xs: Vec<i64> = v[3..].iter().map(|x| x.int()).collect();
        let sum: i64 = xs.iter().sum();
        assert_eq!(
            a.sum_as::<i32>(None, false).unwrap().to_scalar().unwrap() as i64,
            sum
        );
        assert_eq!(
            a.sum().unwrap().to_scalar().unwrap(),
            T::of(sum),
            "wrapped sum"
        );
        let max = *xs.iter().max().unwrap();
        let min = *xs.iter().min().unwrap();
        assert_eq!(a.max().unwrap().to_scalar().unwrap(), T::of(max));
        assert_eq!(a.min().unwrap().to_scalar().unwrap(), T::of(min));
        let am = xs.iter().position(|&x| x == max).unwrap() as i64;
        assert_eq!(a.argmax().unwrap().to_scalar().unwrap(), am);
        let am = xs.iter().position(|&x| x == min).unwrap() as i64;
        assert_eq!(a.argmin().unwrap().to_scalar().unwrap(), am);
        let nz = xs.iter().filter(|&&x| x != 0).count();
        assert_eq!(a.count_nonzero().unwrap(), nz);
        assert_eq!(a.all().unwrap().to_scalar().unwrap(), nz == n);
        assert_eq!(a.any().unwrap().to_scalar().unwrap(), nz > 0);
        // The same elements contiguous from a word (the word-load first stage).
        let b = d.from_slice(&v[3..], [n]).unwrap();
        assert_eq!(
            b.sum_as::<i32>(None, false).unwrap().to_scalar().unwrap() as i64,
            sum
        );
        assert_eq!(b.max().unwrap().to_scalar().unwrap(), T::of(max));
        assert_eq!(b.min().unwrap().to_scalar().unwrap(), T::of(min));
        let mean = a.mean_as::<f32>(None, false).unwrap().to_scalar().unwrap() as f64;
        let want = sum as f64 / n as f64;
        assert!(
            (mean - want).abs() <= 1e-5 * want.abs().max(1.0),
            "{mean} vs {want}"
        );
    }
    // Along an axis of a 2-D array.
    let v = values::<T>(&mut rng, 15);
    let a = d.from_slice(&v, [3, 5]).unwrap();
    let want: Vec<i32> = (0..3)
        .map(|r| v[r * 5..r * 5 + 5].iter().map(|x| x.int() as i32).sum())
        .collect();
    assert_eq!(a.sum_as::<i32>(1, false).unwrap().to_vec().unwrap(), want);
    // Whole-array reductions of a transposed view (the first stage walks any layout).
    let total: i64 = v.iter().map(|x| x.int()).sum();
    assert_eq!(
        a.t()
            .sum_as::<i32>(None, false)
            .unwrap()
            .to_scalar()
            .unwrap() as i64,
        total
    );
    let max = v.iter().map(|x| x.int()).max().unwrap();
    assert_eq!(a.t().max().unwrap().to_scalar().unwrap(), T::of(max));
    if common::supported::<i64>(d) {
        assert_eq!(
            a.t()
                .sum_as::<i64>(None, false)
                .unwrap()
                .to_scalar()
                .unwrap(),
            total
        );
    }
}

#[test]
fn reductions_against_cpu() {
    reductions::<u8>();
    reductions::<i8>();
    reductions::<u16>();
    reductions::<i16>();
    // 255 * 4096 past u8 and i16, exact in the i32 accumulator.
    let a = dev().full::<u8>([4096], 255).unwrap();
    assert_eq!(
        a.sum_as::<u32>(None, false).unwrap().to_scalar().unwrap(),
        255 * 4096
    );
    assert!(dev().zeros::<u8>([0]).unwrap().max().is_err());
}

#[test]
fn creation_and_printing() {
    let d = dev();
    for n in SIZES {
        assert_eq!(d.zeros::<i8>([n]).unwrap().to_vec().unwrap(), vec![0; n]);
        assert_eq!(
            d.full::<u16>([n], 65535).unwrap().to_vec().unwrap(),
            vec![65535; n]
        );
        assert_eq!(
            d.full::<i16>([n], -32768).unwrap().to_vec().unwrap(),
            vec![-32768; n]
        );
        assert_eq!(d.ones::<u8>([n]).unwrap().to_vec().unwrap(), vec![1; n]);
    }
    let r: Vec<i8> = (-128..127).step_by(3).collect();
    assert_eq!(d.arange::<i8>(-128, 127, 3).unwrap().to_vec().unwrap(), r);
    assert_eq!(d.arange::<u8>(250, 5, 255).unwrap().len(), 0);
    assert_eq!(
        d.eye::<u8>(3).unwrap().to_vec().unwrap(),
        vec![1, 0, 0, 0, 1, 0, 0, 0, 1]
    );
    let a = d.from_slice(&[0u8, 255, 7, 128], [2, 2]).unwrap();
    assert_eq!(format!("{a}"), "[[  0 255]\n [  7 128]]");
    let b = d.from_slice(&[-128i8, 127, 0], [3]).unwrap();
    assert_eq!(format!("{b}"), "[-128  127    0]");
    assert!(format!("{b:?}").contains("I8"), "{b:?}");
    // Bytes in and out are the little-endian lanes.
    let w = d.from_slice(&[0x0102u16, 0xa0b0], [2]).unwrap();
    assert_eq!(w.to_vec().unwrap(), vec![0x0102, 0xa0b0]);
}

/// Every family but the packed one refuses the packed types (`Device::require`).
#[test]
fn other_families_refuse_packed_types() {
    let d = dev();
    let x = d.from_slice(&[3u8, 1, 2, 9], [4]).unwrap();
    let m = d.from_slice(&[1u8, 2, 3, 4], [2, 2]).unwrap();
    let refused = |r: gpuarray::Result<()>, what: &str| match r {
        Err(gpuarray::Error::Unsupported {
            dtype: DType::U8, ..
        }) => {}
        other => panic!("{what}: {other:?}"),
    };
    refused(x.sort().map(drop), "sort");
    refused(x.cumsum(0).map(drop), "cumsum");
    refused(m.matmul(&m).map(drop), "matmul");
    refused(x.bincount(0).map(drop), "bincount");
    let idx = d.from_slice(&[0u32, 2], [2]).unwrap();
    refused(x.take(&idx, 0).map(drop), "take");
    // flip is a view (a negative stride), so it serves packed types as any view does.
    let f = x.flip(0).unwrap();
    assert_eq!(f.to_vec().unwrap(), vec![9, 2, 1, 3]);
    assert_eq!(f.contiguous().unwrap().to_vec().unwrap(), vec![9, 2, 1, 3]);
    refused(f.sort().map(drop), "sort of a flip");
    let mut rng = d.default_rng(1);
    refused(rng.integers::<u8>([4], 0, 9).map(drop), "integers");
    refused(rng.choice_from(&x, 2, true).map(drop), "choice_from");
    let k = gpuarray::custom::ElementwiseKernel::new(d, "T x", "T y", "y = x;", "copy").unwrap();
    refused(k.call::<u8>(&[&x]).map(drop), "user kernel");
    // Writes into a packed view are refused too (no word has two writers).
    refused(x.slice(1..).unwrap().fill(5), "fill");
    refused(x.add_into(&x, &x.clone()), "add_into");
}

/// Small generated images through arrays and back, and the shape checks (feature `image`).
#[cfg(feature = "image")]
#[test]
fn images_round_trip() {
    use image::{DynamicImage, ImageBuffer, Luma, Rgb, RgbImage, Rgba, RgbaImage};
    let d = dev();
    let mut rng = Rng::new(5);
    for (w, h) in [(1u32, 1u32), (3, 5), (7, 2)] {
        let px = |_: u32, _: u32| rng.next_u64() as u32;
        let mut px = px;
        let rgb = RgbImage::from_fn(w, h, |x, y| {
            let v = px(x, y);
            Rgb([v as u8, (v >> 8) as u8, (v >> 16) as u8])
        });
        let a = Array::from_image(d, &rgb).unwrap();
        assert_eq!(a.shape(), &[h as usize, w as usize, 3]);
        assert_eq!(a.to_vec().unwrap(), rgb.as_raw().clone());
        assert_eq!(a.to_rgb_image().unwrap(), rgb);
        // Channel 1 of every pixel (a strided view), as a gray image.
        let g = a
            .slice([Slice::from(..), Slice::from(..), Slice::from(1..2)])
            .unwrap();
        let g = g.to_gray_image().unwrap();
        for (x, y, p) in g.enumerate_pixels() {
            assert_eq!(p.0[0], rgb.get_pixel(x, y).0[1]);
        }
        let e = a.to_gray_image().unwrap_err();
        assert!(matches!(e, gpuarray::Error::ShapeMismatch { .. }), "{e:?}");
        let rgba = RgbaImage::from_fn(w, h, |x, y| Rgba([x as u8, y as u8, 255, 128]));
        let b = Array::from_dynamic_image(d, &DynamicImage::ImageRgba8(rgba.clone())).unwrap();
        assert_eq!(b.to_rgba_image().unwrap(), rgba);
        assert!(b.to_rgb_image().is_err());
        let g16 = ImageBuffer::<Luma<u16>, Vec<u16>>::from_fn(w, h, |x, y| {
            Luma([(x * 40000 + y) as u16])
        });
        let c = Array::from_image(d, &g16).unwrap();
        assert_eq!(c.shape(), &[h as usize, w as usize]);
        assert_eq!(c.to_gray16_image().unwrap(), g16);
        // Arithmetic on pixels: an 8-bit image inverted.
        let inv = a.rsub_scalar(255).unwrap().to_rgb_image().unwrap();
        assert_eq!(
            inv.get_pixel(0, 0).0,
            rgb.get_pixel(0, 0).0.map(|v| 255 - v)
        );
    }
    assert!(d.zeros::<u8>([2, 2, 5]).unwrap().to_rgba_image().is_err());
    assert!(d.zeros::<u8>([4]).unwrap().to_gray_image().is_err());
}
