//! `--sweep linalg`: matrix products of many shapes and layouts, and nn conv2d layers,
//! beside the CuPy peer's same rows (`benches/peers/cupy_sweep_linalg.py`: cuBLAS through
//! `cupy.matmul`, cuDNN through PyTorch with TF32 off).
//!
//! Product rows are named `mm_<dtype>_<M>x<N>x<K>[_b<batches>][_<layout>]`: C (M x N) = A
//! (M x K) @ B (K x N), layout `nn` (both row-major, the default, left out), `tn` (A a
//! transposed view), `nt` (B one), `tt`. Inputs are uniform in [0.5, 1.5). Each row's note
//! gives its TFLOP/s and its floor: the larger of flops over the dtype's peak (cuBLAS's f32
//! 50 TFLOP/s, f16 700 TFLOP/s on the H100, f64 34 TFLOP/s: the FMA rate) and the bytes of A, B and C over the copy
//! bandwidth measured first in the same run.
//!
//! Conv rows `conv_<what>_n<N>c<C>k<K>_<H>sq_<kh>x<kw>[_s<stride>][_d<dilation>][_g<groups>]`
//! are f32 NCHW, padding keeping the size (`(k - 1) d / 2`), floors as the products'.

use gpuarray::nn::{conv2d, Conv2d};
use gpuarray::{f16, Array, Device, Element, Float};

use std::time::Instant;

use crate::{gpu_median, median, want, Res, Row};

/// Peak rates for the floors (H100, cuBLAS), in flops per ms; f64 the FMA rate of the
/// H100 and H200 without tensor cores (about 34 TFLOP/s; cuBLAS reaches 34-60 with them).
const PEAK_F32: f64 = 50e9;
const PEAK_F16: f64 = 700e9;
const PEAK_F64: f64 = 34e9;

/// One product: name stem, M, N, K, batches, A transposed, B transposed.
#[derive(Clone, Copy)]
struct Mm {
    m: usize,
    n: usize,
    k: usize,
    batch: usize,
    ta: bool,
    tb: bool,
}

const fn mm(m: usize, n: usize, k: usize) -> Mm {
    Mm {
        m,
        n,
        k,
        batch: 1,
        ta: false,
        tb: false,
    }
}

const fn bmm(batch: usize, s: usize) -> Mm {
    Mm {
        m: s,
        n: s,
        k: s,
        batch,
        ta: false,
        tb: false,
    }
}

const fn lay(s: usize, ta: bool, tb: bool) -> Mm {
    Mm {
        m: s,
        n: s,
        k: s,
        batch: 1,
        ta,
        tb,
    }
}

/// The f32 products: squares (powers of two and not), each dimension small with the others
/// large, K much larger than M and N, tall and skinny, batches, the four layouts, odd sizes.
const F32_PRODUCTS: &[Mm] = &[
    mm(64, 64, 64),
    mm(256, 256, 256),
    mm(500, 500, 500),
    mm(1000, 1000, 1000),
    mm(1024, 1024, 1024),
    mm(2048, 2048, 2048),
    mm(3000, 3000, 3000),
    mm(4096, 4096, 4096),
    mm(8192, 8192, 8192),
    mm(4099, 3001, 257),
    mm(1, 8192, 8192),
    mm(8192, 1, 8192),
    mm(16384, 1, 1024),
    mm(7, 4096, 4096),
    mm(16, 4096, 4096),
    mm(64, 4096, 4096),
    mm(4096, 7, 4096),
    mm(4096, 16, 4096),
    mm(4096, 64, 4096),
    mm(4096, 4096, 1),
    mm(4096, 4096, 7),
    mm(4096, 4096, 16),
    mm(4096, 4096, 64),
    mm(256, 256, 65536),
    mm(64, 64, 262144),
    mm(1 << 20, 32, 32),
    mm(262144, 64, 64),
    mm(32, 32, 1 << 20),
    bmm(4096, 16),
    bmm(1024, 32),
    bmm(256, 64),
    bmm(64, 128),
    bmm(8, 512),
    lay(2048, true, false),
    lay(2048, false, true),
    lay(2048, true, true),
    lay(8192, false, true),
];

/// The f16 products (f32 accumulation).
const F16_PRODUCTS: &[Mm] = &[
    mm(1024, 1024, 1024),
    mm(4096, 4096, 4096),
    mm(1000, 1000, 1000),
    mm(4099, 3001, 257),
    mm(8192, 1, 8192),
    mm(1, 8192, 8192),
    mm(16384, 1, 1024),
    mm(4096, 16, 4096),
    mm(1 << 20, 32, 32),
    mm(256, 256, 65536),
    bmm(256, 64),
    bmm(4096, 16),
    lay(4096, true, false),
    lay(4096, false, true),
];

/// The f64 products: squares 256 to 4096, odd sizes, tall and skinny, a batch, a
/// transposed layout.
const F64_PRODUCTS: &[Mm] = &[
    mm(256, 256, 256),
    mm(1000, 1000, 1000),
    mm(1024, 1024, 1024),
    mm(2048, 2048, 2048),
    mm(4096, 4096, 4096),
    mm(4099, 3001, 257),
    mm(4096, 64, 4096),
    bmm(8, 512),
    lay(2048, true, false),
];

impl Mm {
    fn name(&self, dt: &str) -> String {
        let mut s = format!("mm_{dt}_{}x{}x{}", self.m, self.n, self.k);
        if self.batch > 1 {
            s += &format!("_b{}", self.batch);
        }
        match (self.ta, self.tb) {
            (false, false) => {}
            (true, false) => s += "_tn",
            (false, true) => s += "_nt",
            (true, true) => s += "_tt",
        }
        s
    }

    /// Quick mode: every dimension above 64 divided by 8 (at least 64), batches by 8.
    fn quick(self) -> Mm {
        let q = |x: usize| if x > 64 { (x / 8).max(64) } else { x };
        Mm {
            m: q(self.m),
            n: q(self.n),
            k: q(self.k),
            batch: self.batch.div_ceil(8),
            ..self
        }
    }

    fn flops(&self) -> f64 {
        2.0 * (self.m * self.n * self.k * self.batch) as f64
    }

    fn bytes(&self, size: usize) -> u64 {
        ((self.m * self.k + self.k * self.n + self.m * self.n) * self.batch * size) as u64
    }
}

/// An operand of `rows x cols` (per batch), stored transposed when `t` (read as a view).
fn operand<T: Float>(
    dev: &Device,
    batch: usize,
    (rows, cols): (usize, usize),
    t: bool,
    seed: u64,
) -> Res<Array<T>> {
    let (lo, hi) = (T::from_f64(0.5), T::from_f64(1.5));
    let (r, c) = if t { (cols, rows) } else { (rows, cols) };
    Ok(if batch == 1 {
        let x = dev.random_uniform_in::<T>([r, c], lo, hi, seed)?;
        if t {
            x.t()
        } else {
            x
        }
    } else {
        let x = dev.random_uniform_in::<T>([batch, r, c], lo, hi, seed)?;
        if t {
            x.transpose(&[0, 2, 1])?
        } else {
            x
        }
    })
}

/// Wall time each row's calls run before it is timed, after the first call.
const WARM_MS: f64 = 250.0;

/// `gpu_median` for calls under 2 ms; slower ones (the slow paths of the first kernel
/// versions) take the median of 7 single calls, so the sweep stays short. The decision is
/// made on the second call: the first compiles kernels and may run the tile trial. Between
/// them the row runs for [`WARM_MS`]: while the host compiles (the cooperative-matrix
/// kernels take seconds) the GPU idles and drops its clock, 1980 MHz down to 345 MHz over
/// about 3 s (nvidia-smi on the H100, 2026-11-23), and a few warm-up calls did not bring it
/// back: the f16 rows after the compiles ran 2-4x slow (4096^3 tn / nt 2.49 / 3.97 ms in the
/// sweep, 0.59 / 0.72 ms alone in the same command).
fn timed<R>(dev: &Device, mut op: impl FnMut() -> gpuarray::Result<R>) -> Res<f64> {
    drop(op()?);
    dev.synchronize()?;
    let warm = Instant::now();
    while warm.elapsed().as_secs_f64() * 1e3 < WARM_MS {
        drop(op()?);
        dev.synchronize()?;
    }
    let t0 = Instant::now();
    drop(op()?);
    dev.synchronize()?;
    if t0.elapsed().as_secs_f64() * 1e3 < 2.0 {
        return gpu_median(dev, op);
    }
    let mut times = Vec::new();
    for _ in 0..7 {
        let t = Instant::now();
        drop(op()?);
        dev.synchronize()?;
        times.push(t.elapsed().as_secs_f64() * 1e3);
    }
    let warm = median(times);
    if crate::cold() {
        // Single calls, as the warm rounds above.
        let t = crate::cold_time(dev, 1, op)?;
        crate::record_cold(warm, t);
    }
    Ok(warm)
}

/// Every row of the sweep.
/// Prints what the memory pool holds (stderr); with `GPUARRAY_BENCH_FREE_POOL` set, also
/// releases its cached buffers (to tell a pool's retention from a kernel's own time).
fn pool_note(dev: &Device, when: &str) {
    let pool = dev.memory_pool();
    eprintln!(
        "memory pool {when}: {:.1} GB held, {:.1} GB in use",
        pool.total_bytes() as f64 / 1e9,
        pool.used_bytes() as f64 / 1e9
    );
    if std::env::var_os("GPUARRAY_BENCH_FREE_POOL").is_some() {
        pool.free_all_blocks();
    }
}

pub fn rows(dev: &Device, quick: bool) -> Res<Vec<Row>> {
    let mut rows = Vec::new();
    let n = if quick { 1 << 20 } else { 1 << 26 };
    let a = dev.random_uniform_in::<f32>([n], 0.5, 1.5, 1)?;
    let t_copy = gpu_median(dev, || a.add_scalar(0.0))?;
    let bandwidth = (8 * n) as f64 / t_copy; // bytes per ms
    rows.push(Row {
        name: "copy_f32_64M".into(),
        ms: t_copy,
        bytes: Some(8 * n as u64),
        note: "add_scalar(0) as copy; its bandwidth gives the floors".into(),
    });
    drop(a);
    product_rows::<f32>(
        dev,
        quick,
        "f32",
        F32_PRODUCTS,
        PEAK_F32,
        bandwidth,
        &mut rows,
    )?;
    pool_note(dev, "after the f32 products");
    if dev.supports::<f16>() {
        product_rows::<f16>(
            dev,
            quick,
            "f16",
            F16_PRODUCTS,
            PEAK_F16,
            bandwidth,
            &mut rows,
        )?;
    }
    if dev.supports::<f64>() {
        product_rows::<f64>(
            dev,
            quick,
            "f64",
            F64_PRODUCTS,
            PEAK_F64,
            bandwidth,
            &mut rows,
        )?;
    }
    conv_rows(dev, quick, bandwidth, &mut rows)?;
    Ok(rows)
}

fn product_rows<T: Float + Element>(
    dev: &Device,
    quick: bool,
    dt: &str,
    list: &[Mm],
    peak: f64,
    bandwidth: f64,
    rows: &mut Vec<Row>,
) -> Res<()> {
    for full in list {
        let name = full.name(dt);
        if !want(&name) {
            continue;
        }
        let p = if quick { full.quick() } else { *full };
        let a = operand::<T>(dev, p.batch, (p.m, p.k), p.ta, 11)?;
        let b = operand::<T>(dev, p.batch, (p.k, p.n), p.tb, 12)?;
        let t = timed(dev, || a.matmul(&b))?;
        let floor = (p.flops() / peak).max(p.bytes(std::mem::size_of::<T>()) as f64 / bandwidth);
        rows.push(Row {
            name,
            ms: t,
            bytes: Some(p.bytes(std::mem::size_of::<T>())),
            note: format!(
                "{:.2} TFLOP/s; floor {floor:.4} ms ({:.2}x of it)",
                p.flops() / t / 1e9,
                t / floor
            ),
        });
    }
    Ok(())
}

/// One conv2d layer: what, N, C, K (output channels), H = W, kernel, stride, dilation,
/// groups.
struct Layer(
    &'static str,
    usize,
    usize,
    usize,
    usize,
    usize,
    usize,
    usize,
    usize,
);

const LAYERS: &[Layer] = &[
    Layer("3x3", 32, 64, 64, 56, 3, 1, 1, 1),
    Layer("3x3", 1, 128, 128, 56, 3, 1, 1, 1),
    Layer("3x3", 64, 64, 64, 56, 3, 1, 1, 1),
    Layer("3x3", 32, 512, 512, 14, 3, 1, 1, 1),
    Layer("1x1", 32, 256, 256, 28, 1, 1, 1, 1),
    Layer("1x1", 1, 512, 2048, 7, 1, 1, 1, 1),
    Layer("1x1s2", 32, 256, 512, 56, 1, 2, 1, 1),
    Layer("depthwise", 32, 256, 256, 56, 3, 1, 1, 256),
    Layer("depthwise", 32, 128, 128, 56, 5, 2, 1, 128),
    Layer("grouped", 32, 256, 256, 28, 3, 1, 1, 32),
    Layer("strided", 32, 128, 256, 56, 3, 2, 1, 1),
    Layer("dilated", 16, 64, 64, 56, 3, 1, 2, 1),
    Layer("stem", 32, 3, 64, 224, 7, 2, 1, 1),
    Layer("5x5", 32, 32, 64, 28, 5, 1, 1, 1),
];

impl Layer {
    fn name(&self) -> String {
        let Layer(what, n, c, k, h, kk, s, d, g) = *self;
        let mut name = format!("conv_{what}_n{n}c{c}k{k}_{h}sq_{kk}x{kk}");
        if s > 1 {
            name += &format!("_s{s}");
        }
        if d > 1 {
            name += &format!("_d{d}");
        }
        if g > 1 {
            name += &format!("_g{g}");
        }
        name
    }
}

fn conv_rows(dev: &Device, quick: bool, bandwidth: f64, rows: &mut Vec<Row>) -> Res<()> {
    for layer in LAYERS {
        let name = layer.name();
        if !want(&name) {
            continue;
        }
        let Layer(_, n0, c, k, h0, kk, s, d, g) = *layer;
        let (n, h) = if quick {
            (n0.div_ceil(8), h0.min(28))
        } else {
            (n0, h0)
        };
        let x = dev.random_uniform_in::<f32>([n, c, h, h], -1.0, 1.0, 21)?;
        let w = dev.random_uniform_in::<f32>([k, c / g, kk, kk], -1.0, 1.0, 22)?;
        let pad = (kk - 1) * d / 2;
        let opts = Conv2d {
            stride: [s, s],
            padding: [pad, pad],
            dilation: [d, d],
            groups: g,
        };
        let t = timed(dev, || conv2d(&x, &w, None, opts))?;
        let oh = (h + 2 * pad - d * (kk - 1) - 1) / s + 1;
        let flops = 2.0 * (n * k * oh * oh * (c / g) * kk * kk) as f64;
        let bytes = 4 * (n * c * h * h + k * (c / g) * kk * kk + n * k * oh * oh) as u64;
        let floor = (flops / PEAK_F32).max(bytes as f64 / bandwidth);
        rows.push(Row {
            name,
            ms: t,
            bytes: Some(bytes),
            note: format!(
                "{:.2} TFLOP/s; floor {floor:.4} ms ({:.2}x of it)",
                flops / t / 1e9,
                t / floor
            ),
        });
    }
    Ok(())
}
