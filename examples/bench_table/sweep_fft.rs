//! `--sweep fft`: gpuarray::fft beside the CuPy peer's same rows
//! (`benches/peers/cupy_sweep_fft.py`, cuFFT): complex64 1-D transforms of 2^20, 2^22, 2^24 and
//! 2^27 elements, 65,536 batched transforms of 1,024, 2-D 4096 x 4096, 3-D 512^3, complex128
//! 1-D 2^24, rfft of 2^26 f32, the non-powers of two 1000, 3^10, 5^8, the prime 1009 (each
//! batched to about 2^24 elements) and 2^20 + 1 (4 of them), and a 2-D rfft of
//! 4096 x 4096 f32. The first row is a copy whose bandwidth gives every row's floor: one
//! read and one write of the data (complex64: 16 bytes per element; complex128: 32; the
//! real transforms: 4 read and 8 x (n/2 + 1)/n written), the least any algorithm moves.
//! gpuarray's passes over memory (in the notes): one where a transform fits workgroup
//! memory (1024: one pass), two or three four-step passes for 2^20 .. 2^27, one per axis for
//! 2-D and 3-D (transforms along strided axes read in place; columns too long for 8 of
//! them to share a workgroup in two passes, src/fft/columns.rs), Bluestein lengths about
//! five passes over twice the padded length.

use gpuarray::fft::{self, Norm};
use gpuarray::{Complex, Device};

use crate::{gpu_median, want, Res, Row, QUICK_DIV};

type C32 = Complex<f32>;

/// One row: name, complex shape, axes, bytes of the floor, passes note.
struct Case {
    name: &'static str,
    shape: Vec<usize>,
    axes: Vec<isize>,
    bytes_per_elem: u64,
    note: &'static str,
}

fn case(name: &'static str, shape: &[usize], axes: &[isize], note: &'static str) -> Case {
    Case {
        name,
        shape: shape.to_vec(),
        axes: axes.to_vec(),
        bytes_per_elem: 16,
        note,
    }
}

/// Every row of the sweep.
pub fn rows(dev: &Device, quick: bool) -> Res<Vec<Row>> {
    // Quick mode (a smoke test on lavapipe): sizes / 1024, and shorter lengths of the same
    // kinds (3^7, 5^5, 2^14 + 1) in the rows of fixed long lengths.
    let q = |n: usize| {
        if quick {
            (n / (QUICK_DIV * 16)).max(1)
        } else {
            n
        }
    };
    let fixed = |full: usize, short: usize| if quick { short } else { full };
    let n = q(1 << 26);
    let x = dev.random_uniform::<f32>([n], 41)?;
    dev.synchronize()?;
    let mut rows = Vec::new();
    let t_copy = gpu_median(dev, || x.add_scalar(0.0))?;
    let bandwidth = (8 * n) as f64 / t_copy; // bytes per ms
    rows.push(Row {
        name: "copy_f32_64M".into(),
        ms: t_copy,
        bytes: Some(8 * n as u64),
        note: "add_scalar(0) as copy; its bandwidth gives the rows' floors".into(),
    });
    let cases = vec![
        case("fft_c64_1M", &[q(1 << 20)], &[0], "2 passes (four-step)"),
        case(
            "fft_c64_4M",
            &[q(1 << 22)],
            &[0],
            "3 passes (256 x 128 x 128, src/fft/runs.rs)",
        ),
        case(
            "fft_c64_16M",
            &[q(1 << 24)],
            &[0],
            "3 passes (256^3, src/fft/runs.rs)",
        ),
        case("fft_c64_128M", &[q(1 << 27)], &[0], "3 passes (512^3)"),
        case("fft_c64_65536x1024", &[q(65536), 1024], &[1], "1 pass"),
        case(
            "fft2_c64_4096x4096",
            &[q(4096), 4096],
            &[0, 1],
            "3 passes (rows; columns of 4096 as 64 x 64 in two)",
        ),
        case(
            "fftn_c64_512x512x512",
            &[q(512), 512, 512],
            &[0, 1, 2],
            "3 passes (one per axis)",
        ),
        case("fft_c64_16384x1000", &[q(16384), 1000], &[1], "1 pass"),
        case(
            "fft_c64_256x59049",
            &[q(256), fixed(59049, 2187)],
            &[1],
            "2 passes (3^10, four-step)",
        ),
        case(
            "fft_c64_32x390625",
            &[q(32), fixed(390625, 3125)],
            &[1],
            "2-3 passes (5^8, four-step)",
        ),
        case(
            "fft_c64_16384x1009",
            &[q(16384), 1009],
            &[1],
            "Bluestein (2048): 2 fused kernels",
        ),
        case(
            "fft_c64_4x1048577",
            &[4, fixed((1 << 20) + 1, (1 << 14) + 1)],
            &[1],
            "Bluestein (2^22: 3 passes each way)",
        ),
    ];
    for c in cases {
        if !want(c.name) {
            continue;
        }
        let a = dev.zeros::<C32>(c.shape.clone())?;
        let len: usize = c.shape.iter().product();
        let t = gpu_median(dev, || fft::fftn(&a, None, c.axes.clone(), Norm::Backward))?;
        push(
            &mut rows,
            c.name,
            t,
            c.bytes_per_elem * len as u64,
            bandwidth,
            c.note,
        );
    }
    if want("fft_c128_16M") && dev.supports::<Complex<f64>>() {
        let a = dev.zeros::<Complex<f64>>([q(1 << 24)])?;
        let t = gpu_median(dev, || fft::fft(&a, None, 0, Norm::Backward))?;
        push(
            &mut rows,
            "fft_c128_16M",
            t,
            32 * q(1 << 24) as u64,
            bandwidth,
            "3 passes (256^3, groups of 2)",
        );
    }
    if want("rfft_f32_64M") {
        let t = gpu_median(dev, || fft::rfft(&x, None, 0, Norm::Backward))?;
        let bytes = 4 * n as u64 + 8 * (n / 2 + 1) as u64;
        push(
            &mut rows,
            "rfft_f32_64M",
            t,
            bytes,
            bandwidth,
            "half-length complex transform (3 passes) and a pairing pass",
        );
    }
    if want("rfft2_f32_4096x4096") {
        let side = q(4096);
        let r = dev.random_uniform::<f32>([side, 4096], 42)?;
        let t = gpu_median(dev, || fft::rfft2(&r, None, .., Norm::Backward))?;
        let bytes = 4 * (side * 4096) as u64 + 8 * (side * 2049) as u64;
        push(
            &mut rows,
            "rfft2_f32_4096x4096",
            t,
            bytes,
            bandwidth,
            "3 passes (rows; columns of 4096 as 64 x 64 in two)",
        );
    }
    Ok(rows)
}

fn push(rows: &mut Vec<Row>, name: &str, t: f64, bytes: u64, bandwidth: f64, passes: &str) {
    let floor = bytes as f64 / bandwidth;
    rows.push(Row {
        name: name.into(),
        ms: t,
        bytes: Some(bytes),
        note: format!("floor {floor:.4} ms ({:.2}x of it); {passes}", t / floor),
    });
}
