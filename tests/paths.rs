//! The code paths that only other options reach, in this one binary: parameters through the
//! uniform arena instead of immediates, small reads through a copy kernel (as on discrete
//! GPUs), reduction trees without subgroup shuffles, and all three at once. Each runs a
//! battery of elementwise ops, casts, views, transfers and reductions over every dtype and
//! awkward sizes on a device opened with those options, and checks the results against the
//! default device bit for bit (the paths promise the same bits) and against an f64 CPU
//! reference.
//!
//! Before the renovation `make test` re-ran five whole suites under environment variables
//! for this; the battery covers what those paths change (parameter delivery, small reads,
//! the reduction tree) at a fraction of the time.

#[macro_use]
mod common;

use common::{assert_close, dev, host, Rng, Ty};
use gpuarray::config::{Options, ParamsPath, SmallRead};
use gpuarray::{Array, Device, Element, Result, Slice};

/// The option sets under test, each with a name for messages.
fn variants() -> Vec<(&'static str, Options)> {
    let with = |f: &dyn Fn(&mut Options)| {
        let mut o = Options::default();
        f(&mut o);
        o
    };
    vec![
        (
            "uniform params",
            with(&|o| o.tuning.params = ParamsPath::Uniform),
        ),
        (
            "small reads by kernel",
            with(&|o| o.tuning.small_read = SmallRead::Kernel),
        ),
        ("no subgroups", with(&|o| o.tuning.subgroups = false)),
        (
            "all three",
            with(&|o| {
                o.tuning.params = ParamsPath::Uniform;
                o.tuning.small_read = SmallRead::Kernel;
                o.tuning.subgroups = false;
            }),
        ),
    ]
}

/// Sizes that are not multiples of a workgroup or a vec4, 0 and 1, and one past the small-
/// read limit (256 KiB) for 4-byte types.
const SIZES: [usize; 6] = [0, 1, 7, 257, 4099, 65_537 + 3];

/// Results computed by one device, as bit patterns (so NaN and -0 compare exactly).
type Bits = Vec<Vec<u64>>;

fn bits<T: Element>(a: &Array<T>) -> Vec<u64> {
    let v = a.to_vec().expect("to_vec");
    let repr = T::to_repr(&v);
    let bytes: &[u8] = bytemuck::cast_slice(&repr);
    bytes
        .chunks(T::DTYPE.size())
        .map(|c| c.iter().rev().fold(0u64, |acc, &b| (acc << 8) | b as u64))
        .collect()
}

/// Test data of `T` from `rng`: floats in [-4, 4) with a NaN, an inf and a -0 mixed in,
/// integers across their range's middle.
fn data<T: Ty>(rng: &mut Rng, n: usize) -> Vec<f64> {
    let mut v: Vec<f64> = if T::FLOAT {
        rng.vec(n.max(1), -4.0, 4.0)[..n].to_vec()
    } else if T::SIGNED {
        rng.ints(n, -1000, 1000)
    } else {
        rng.ints(n, 0, 2000)
    };
    if T::FLOAT && n >= 7 {
        v[1] = f64::NAN;
        v[3] = f64::INFINITY;
        v[5] = -0.0;
    }
    // The values the arrays will hold (f16 and f32 round them).
    v.into_iter().map(T::wrap).collect()
}

fn upload<T: Ty>(d: &Device, v: &[f64], shape: &[usize]) -> Array<T> {
    let t: Vec<T> = v.iter().map(|&x| T::from_f64(x)).collect();
    d.from_slice(&t, shape).expect("from_slice")
}

/// The battery of elementwise work on `d`: its results, in order, as bits. Also checks a
/// CPU reference for each result.
fn elementwise<T: Ty>(d: &Device) -> Result<Bits> {
    let mut rng = Rng::new(0x9a7b5 ^ T::NAME.len() as u64);
    let mut out = Bits::new();
    let tol = T::ARITH;
    for n in SIZES {
        let (va, vb) = (data::<T>(&mut rng, n), data::<T>(&mut rng, n));
        let (a, b) = (upload::<T>(d, &va, &[n]), upload::<T>(d, &vb, &[n]));
        let sum = a.add(&b)?;
        let want: Vec<f64> = va.iter().zip(&vb).map(|(x, y)| T::wrap(x + y)).collect();
        assert_close(&host(&sum), &want, tol.0, tol.1);
        out.push(bits(&sum));
        let m = a.maximum(&b)?.mul_scalar(T::from_f64(3.0))?;
        out.push(bits(&m));
        out.push(bits(&a.cast::<f32>()?));
        // A strided view (every third element, from the second) read back small or large.
        if n > 3 {
            let v = a.slice([Slice::from(1..).step(3)])?;
            let want: Vec<f64> = va.iter().skip(1).step_by(3).copied().collect();
            assert_close(&host(&v), &want, 0.0, 0.0);
            out.push(bits(&v));
        }
    }
    // Broadcasting and a transposed operand in 3-D.
    let (s, t) = ([5usize, 7, 9], [9usize, 7, 5]);
    let va = data::<T>(&mut rng, 5 * 7 * 9);
    let vr = data::<T>(&mut rng, 9);
    let a = upload::<T>(d, &va, &s);
    let at = upload::<T>(d, &va, &t).transpose(&[2, 1, 0])?;
    let row = upload::<T>(d, &vr, &[9]);
    let y = a.sub(&row)?.add(&at)?;
    let want: Vec<f64> = (0..5 * 7 * 9)
        .map(|i| {
            let (i0, i1, i2) = (i / 63, i / 9 % 7, i % 9);
            T::wrap(T::wrap(va[i] - vr[i2]) + va[i2 * 35 + i1 * 5 + i0])
        })
        .collect();
    assert_close(&host(&y), &want, tol.0, tol.1);
    out.push(bits(&y));
    let mask = a.gt(&at)?;
    out.push(bits(&Array::where_(&mask, &a, &at)?));
    Ok(out)
}

/// The battery of reductions on `d`: every op over the whole array and each axis subset of
/// a 3-D shape with odd extents, and a long 1-D input (split over workgroups).
fn reductions<T: Ty>(d: &Device) -> Result<Bits> {
    let mut rng = Rng::new(0x4ed ^ T::NAME.len() as u64);
    let mut out = Bits::new();
    let shape = [13usize, 1, 37];
    let v: Vec<f64> = if T::FLOAT {
        rng.vec(13 * 37, -1.0, 1.0)
            .into_iter()
            .map(T::wrap)
            .collect()
    } else {
        rng.ints(13 * 37, 0, 9)
    };
    let a = upload::<T>(d, &v, &shape);
    let long = upload::<T>(d, &rng.ints(1 << 18, 0, 3), &[1 << 18]);
    for x in [&a, &a.transpose(&[2, 0, 1])?, &long] {
        out.push(bits(&x.sum()?));
        out.push(bits(&x.max()?));
        out.push(bits(&x.min()?));
        out.push(bits(&x.argmax()?));
        for axis in 0..x.ndim() {
            out.push(bits(&x.sum_axis(axis, false)?));
            out.push(bits(&x.argmin_axis(axis, false)?));
        }
    }
    for axes in [vec![0, 2], vec![1], vec![0, 1, 2]] {
        out.push(bits(&a.sum_axis(&axes, true)?));
        out.push(bits(&a.prod_axis(&axes, false)?));
    }
    // The CPU reference of the sum over axis 2.
    let s = a.sum_axis(2, false)?;
    let want: Vec<f64> = (0..13)
        .map(|i| v[i * 37..(i + 1) * 37].iter().sum::<f64>())
        .collect();
    let atol = if T::FLOAT { 37.0 * T::EPS } else { 0.0 };
    assert_close(&host(&s), &want, atol, 0.0);
    Ok(out)
}

/// Float-only reductions (mean, var, std, norm).
fn moments<T: Ty + gpuarray::Float>(d: &Device) -> Result<Bits> {
    let mut rng = Rng::new(0x3e4);
    let v: Vec<f64> = rng
        .vec(11 * 29, -2.0, 2.0)
        .into_iter()
        .map(T::wrap)
        .collect();
    let a = upload::<T>(d, &v, &[11, 29]);
    Ok(vec![
        bits(&a.mean()?),
        bits(&a.var_axis([1], 1, false)?),
        bits(&a.std_axis([0], 0, true)?),
        bits(&a.norm()?),
    ])
}

/// Runs `battery` on the default device and on one device per option set; the results must
/// be the same bits.
fn same_bits<T: Ty>(what: &str, battery: impl Fn(&Device) -> Result<Bits>) {
    require_dtype!(T);
    let want = battery(dev()).unwrap_or_else(|e| panic!("{what} on the default device: {e}"));
    for (name, opts) in variants() {
        let d = Device::with_options(opts).expect("a device with other options");
        let got = battery(&d).unwrap_or_else(|e| panic!("{what} with {name}: {e}"));
        assert_eq!(got.len(), want.len(), "{what} with {name}");
        for (k, (g, w)) in got.iter().zip(&want).enumerate() {
            assert_eq!(
                g, w,
                "{what} with {name}: result {k} differs from the default path"
            );
        }
    }
}

macro_rules! battery {
    ($($m:ident: $t:ident),*) => {$(
        mod $m {
            use super::*;
            #[test]
            fn elementwise_on_every_path() {
                same_bits::<$t>(concat!("elementwise ", stringify!($t)), elementwise::<$t>);
            }
            #[test]
            fn reductions_on_every_path() {
                same_bits::<$t>(concat!("reductions ", stringify!($t)), reductions::<$t>);
            }
        }
    )*};
}

use gpuarray::f16;
battery!(of_f32: f32, of_i32: i32, of_u32: u32, of_f16: f16, of_f64: f64);

#[test]
fn moments_on_every_path() {
    same_bits::<f32>("moments f32", moments::<f32>);
    same_bits::<f64>("moments f64", moments::<f64>);
}

/// The small-read path really is taken where asked for: results stay right for every size
/// around the limit, on arrays that are views.
#[test]
fn small_reads_by_kernel_around_the_limit() {
    let mut opts = Options::default();
    opts.tuning.small_read = SmallRead::Kernel;
    let d = Device::with_options(opts).expect("device");
    for n in [1usize, 64 << 10, (64 << 10) + 1] {
        let v: Vec<u32> = (0..2 * n as u32).collect();
        let x = d.from_slice(&v, [2 * n]).unwrap();
        let odd = x.slice([Slice::from(1..).step(2)]).unwrap();
        let want: Vec<u32> = v.iter().skip(1).step_by(2).copied().collect();
        assert_eq!(odd.to_vec().unwrap(), want, "n = {n}");
    }
}

/// Complex arrays on the small-read path (the path of discrete GPUs with host-visible
/// memory, where the H200 read them through the real copy kernel and refused them): whole
/// arrays and strided views, both dtypes.
#[test]
fn small_reads_of_complex_arrays() {
    let mut opts = Options::default();
    opts.tuning.small_read = SmallRead::Kernel;
    let d = Device::with_options(opts).expect("device");
    let v: Vec<gpuarray::Complex<f32>> = (0..10)
        .map(|i| gpuarray::Complex::new(i as f32, -0.5 * i as f32))
        .collect();
    let x = d.from_slice(&v, [10]).unwrap();
    assert_eq!(x.to_vec().unwrap(), v);
    let odd = x.slice([Slice::from(1..).step(2)]).unwrap();
    let want: Vec<_> = v.iter().skip(1).step_by(2).copied().collect();
    assert_eq!(odd.to_vec().unwrap(), want);
    if d.supports::<gpuarray::Complex<f64>>() {
        let w: Vec<gpuarray::Complex<f64>> = v
            .iter()
            .map(|z| gpuarray::Complex::new(f64::from(z.re), f64::from(z.im)))
            .collect();
        let y = d.from_slice(&w, [2, 5]).unwrap();
        let t = y.t().to_vec().unwrap();
        assert_eq!(t[1], w[5]);
        assert_eq!(t[2], w[1]);
    }
}

/// The 64-bit integer sums, whose rows' trees start with subgroup shuffles of the two 32-bit
/// halves where the adapter has subgroups: values over the whole 64-bit range (so that the
/// carries between the halves matter), whole arrays and rows of a matrix, against the CPU's
/// wrapping sums (NumPy's) on the default device and on each option set (no subgroups
/// among them).
#[test]
fn int64_sums_on_every_path() {
    require_dtype!(i64);
    let mut rng = Rng::new(0x64);
    let mut devices = vec![("default", dev().clone())];
    for (name, opts) in variants() {
        devices.push((name, Device::with_options(opts).expect("a device")));
    }
    for n in [1usize, 7, 257, 4099, 65_539] {
        let v: Vec<u64> = (0..n).map(|_| rng.next_u64()).collect();
        let rows = n.min(3);
        let cols = n / rows;
        let wrap = |s: &[u64]| s.iter().fold(0u64, |a, &x| a.wrapping_add(x));
        let row_sums: Vec<u64> = v[..rows * cols].chunks(cols).map(wrap).collect();
        for (name, d) in &devices {
            let u = d.from_slice(&v, [n]).unwrap();
            let i = d
                .from_slice(&v.iter().map(|&x| x as i64).collect::<Vec<_>>(), [n])
                .unwrap();
            let what = format!("n = {n} with {name}");
            assert_eq!(u.sum().unwrap().to_vec().unwrap(), [wrap(&v)], "u64 {what}");
            assert_eq!(
                i.sum().unwrap().to_vec().unwrap(),
                [wrap(&v) as i64],
                "i64 {what}"
            );
            let m = d.from_slice(&v[..rows * cols], [rows, cols]).unwrap();
            let got = m.sum_axis(1, false).unwrap().to_vec().unwrap();
            assert_eq!(got, row_sums, "u64 rows {what}");
        }
    }
}
