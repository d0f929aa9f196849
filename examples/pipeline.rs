//! Overlapping transfers with compute on one device: 64 batches of 16 MB (2048 x 2048 f32)
//! are uploaded, pushed through a chain of matrix products and read back, first one step
//! at a time, then pipelined: batch i+1 is written into staging while batch i computes, and
//! batch i-1 is read back by a helper thread ([`gpuarray::Array::to_vec_async`]). Prints
//! the time of each step alone, their sum, the pipelined total and the share of the
//! transfer time hidden behind compute.
//!
//! WebGPU gives a device one in-order queue (no CUDA streams): the GPU's own copies run in
//! line with the kernels. What overlaps is the host's side of each transfer (writing the
//! next batch into mapped staging memory, waiting for and copying out a finished read)
//! with the GPU's work, which is where most of a transfer's time goes.
//!
//! ```text
//! cargo run --release --example pipeline
//! GPUARRAY_EXAMPLES_QUICK=1 cargo run --release --example pipeline   # 8 batches of 256 KB
//! GPUARRAY_PIPELINE_PRODUCTS=8 cargo run --release --example pipeline # more compute per batch
//! ```

mod common;

use std::collections::VecDeque;
use std::future::Future;
use std::time::Instant;

use common::{quick, Res};
use gpuarray::{Array, Device};

/// The work on one batch: `products` times `x <- tanh(x w)`.
fn compute(x: &Array<f32>, w: &Array<f32>, products: usize) -> gpuarray::Result<Array<f32>> {
    let mut y = x.clone();
    for _ in 0..products {
        y = y.matmul(w)?.tanh()?;
    }
    Ok(y)
}

/// Seconds taken by `f`.
fn secs(f: impl FnOnce() -> Res<()>) -> Res<f64> {
    let t0 = Instant::now();
    f()?;
    Ok(t0.elapsed().as_secs_f64())
}

struct Job {
    dev: Device,
    host: Vec<Vec<f32>>,
    w: Array<f32>,
    n: usize,
    batches: usize,
    products: usize,
}

impl Job {
    fn input(&self, i: usize) -> &[f32] {
        &self.host[i % self.host.len()]
    }

    /// Uploads, compute and downloads, one step at a time: each timed alone.
    fn steps_alone(&self) -> Res<[f64; 3]> {
        let (dev, n) = (&self.dev, self.n);
        let mut xs = Vec::new();
        let up = secs(|| {
            for i in 0..self.batches {
                xs.push(dev.from_slice(self.input(i), [n, n])?);
                dev.synchronize()?;
            }
            Ok(())
        })?;
        let mut ys = Vec::new();
        let comp = secs(|| {
            for x in &xs {
                ys.push(compute(x, &self.w, self.products)?);
            }
            Ok(dev.synchronize()?)
        })?;
        drop(xs);
        let down = secs(|| {
            for y in &ys {
                std::hint::black_box(y.to_vec()?);
            }
            Ok(())
        })?;
        Ok([up, comp, down])
    }

    /// Everything pipelined: at most `depth` reads in flight. Returns the seconds and the
    /// last batch's result.
    fn pipelined(&self, depth: usize) -> Res<(f64, Vec<f32>)> {
        let mut last = Vec::new();
        let t = secs(|| {
            let mut reads: VecDeque<Box<dyn Future<Output = gpuarray::Result<Vec<f32>>> + Unpin>> =
                VecDeque::new();
            for i in 0..self.batches {
                let x = self.dev.from_slice(self.input(i), [self.n, self.n])?;
                let y = compute(&x, &self.w, self.products)?;
                reads.push_back(Box::new(Box::pin(y.to_vec_async())));
                if reads.len() > depth
                    && let Some(r) = reads.pop_front()
                {
                    last = pollster::block_on(r)?;
                }
            }
            for r in reads {
                last = pollster::block_on(r)?;
            }
            Ok(())
        })?;
        Ok((t, last))
    }
}

fn main() -> Res<()> {
    let dev = Device::new()?;
    println!("adapter: {} ({})", dev.info().name, dev.info().backend);
    let (n, batches) = if quick() { (256, 8) } else { (2048, 64) };
    let products = std::env::var("GPUARRAY_PIPELINE_PRODUCTS")
        .ok()
        .and_then(|v| v.parse().ok())
        .unwrap_or(if quick() { 1 } else { 4 });
    let host: Vec<Vec<f32>> = (0..4)
        .map(|k| {
            (0..n * n)
                .map(|i| ((i * 31 + k * 7) % 97) as f32 / 97.0 - 0.5)
                .collect()
        })
        .collect();
    let w: Vec<f32> = (0..n * n)
        .map(|i| ((i * 13) % 89) as f32 / (89.0 * n as f32))
        .collect();
    let job = Job {
        w: dev.from_slice(&w, [n, n])?,
        dev,
        host,
        n,
        batches,
        products,
    };
    let mb = (n * n * 4) as f64 / 1e6;
    println!("{batches} batches of {mb:.1} MB, {products} products of {n} x {n} each");
    job.pipelined(2)?; // warm-up: pipelines compiled, staging pools filled
    let [up, comp, down] = job.steps_alone()?;
    let (total, last) = job.pipelined(2)?;
    let want = job.dev.from_slice(job.input(batches - 1), [n, n])?;
    let want = compute(&want, &job.w, products)?.to_vec()?;
    if last != want {
        return Err("the pipelined result differs from the step-by-step one".into());
    }
    let sum = up + comp + down;
    let hidden = ((sum - total) / (up + down)).clamp(0.0, 1.0);
    let ms = |s: f64| s * 1e3;
    println!(
        "alone: upload {:.1} ms, compute {:.1} ms, download {:.1} ms, sum {:.1} ms",
        ms(up),
        ms(comp),
        ms(down),
        ms(sum)
    );
    println!(
        "pipelined: {:.1} ms ({:.2}x faster); transfer time hidden: {:.0}%",
        ms(total),
        sum / total,
        100.0 * hidden
    );
    Ok(())
}
