//! Several threads sharing one `Device`: mixed uploads, ops, views, random numbers and reads,
//! each checked against the CPU, within a time bound (a hang fails the test instead of
//! blocking the suite).
//!
//! Long runs by hand: `GPUARRAY_THREADS` sets the threads of `threads_share_a_device` and
//! `eight_threads_mixed_ops` (default 4 and 8), `GPUARRAY_THREADS_SECS` makes each of their
//! threads repeat its checked steps for that many seconds instead of a fixed count, e.g.
//! `GPUARRAY_THREADS=16 GPUARRAY_THREADS_SECS=600 cargo test --release --test threads`.

#[macro_use]
mod common;

use std::sync::mpsc;
use std::sync::{Arc, Barrier};
use std::thread;
use std::time::Duration;

use common::*;
use gpuarray::nn::{conv2d, Conv2d};
use gpuarray::signal::{convolve, Mode};
use gpuarray::{Array, Device, Slice};

const THREADS: usize = 4;
/// The time bound beyond the run's own length (`GPUARRAY_THREADS_SECS`).
const TIMEOUT: Duration = Duration::from_secs(120);

fn env_u64(name: &str) -> Option<u64> {
    let v = std::env::var(name).ok()?;
    Some(
        v.trim()
            .parse()
            .unwrap_or_else(|_| panic!("{name}={v}: not a whole number")),
    )
}

/// Threads of the long-run tests: `GPUARRAY_THREADS`, else `default`.
fn threads_or(default: usize) -> usize {
    env_u64("GPUARRAY_THREADS").map_or(default, |n| n.max(1) as usize)
}

/// How long each thread of the long-run tests repeats its steps (`GPUARRAY_THREADS_SECS`),
/// if set.
fn run_secs() -> Option<Duration> {
    env_u64("GPUARRAY_THREADS_SECS").map(Duration::from_secs)
}

/// Which steps of a worker run: `count` of them, or as many as start before the deadline of
/// `GPUARRAY_THREADS_SECS`.
#[derive(Clone, Copy)]
struct Steps {
    count: usize,
    until: Option<std::time::Instant>,
}

impl Steps {
    fn new(count: usize) -> Steps {
        Steps {
            count,
            until: run_secs().map(|d| std::time::Instant::now() + d),
        }
    }
    /// Whether step `it` runs.
    fn more(&self, it: usize) -> bool {
        match self.until {
            Some(t) => std::time::Instant::now() < t,
            None => it < self.count,
        }
    }
}

/// Counts the checked steps of all threads, for the long runs' report.
static STEPS_DONE: std::sync::atomic::AtomicU64 = std::sync::atomic::AtomicU64::new(0);

/// Runs `f(thread index, device)` on `THREADS` threads with clones of `dev`; fails if one
/// panics or if they do not all finish within `TIMEOUT`.
fn run_threads(dev: &Device, f: impl Fn(usize, Device) + Send + Sync + 'static) {
    run_n_threads(dev, THREADS, f)
}

/// As [`run_threads`], on `threads` threads.
fn run_n_threads(dev: &Device, threads: usize, f: impl Fn(usize, Device) + Send + Sync + 'static) {
    let f = Arc::new(f);
    let (tx, rx) = mpsc::channel();
    let mut handles = Vec::new();
    for t in 0..threads {
        let (f, dev, tx) = (f.clone(), dev.clone(), tx.clone());
        let h = thread::Builder::new()
            .name(format!("worker {t}"))
            .spawn(move || {
                let r = std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| f(t, dev)));
                drop(f);
                let _ = tx.send((t, r.map_err(|e| panic_message(&e))));
            })
            .unwrap();
        handles.push(h);
    }
    drop((tx, f));
    let limit = TIMEOUT + run_secs().unwrap_or_default();
    let deadline = std::time::Instant::now() + limit;
    for _ in 0..threads {
        let left = deadline.saturating_duration_since(std::time::Instant::now());
        match rx.recv_timeout(left) {
            Ok((_, Ok(()))) => {}
            Ok((t, Err(msg))) => panic!("worker {t} failed: {msg}"),
            Err(e) => panic!("workers did not finish within {limit:?} (hang?): {e}"),
        }
    }
    // Every worker has reported: joining is immediate.
    for h in handles {
        h.join().unwrap();
    }
}

fn panic_message(e: &Box<dyn std::any::Any + Send>) -> String {
    e.downcast_ref::<String>()
        .cloned()
        .or_else(|| e.downcast_ref::<&str>().map(|s| s.to_string()))
        .unwrap_or_else(|| "panic".to_string())
}

/// One worker's mixed sequence of operations and reads.
fn worker(t: usize, dev: Device) {
    let mut rng = Rng::new(1000 + t as u64);
    let steps = Steps::new(25);
    for it in (0..).take_while(|&it| steps.more(it)) {
        STEPS_DONE.fetch_add(1, std::sync::atomic::Ordering::Relaxed);
        let rows = 1 + (rng.next_u64() % 40) as usize;
        let cols = 1 + (rng.next_u64() % 70) as usize;
        let n = rows * cols;
        let (a, ha) = upload::<f32>(&dev, &rng.vec(n, -2.0, 2.0), &[rows, cols]);
        let (b, hb) = upload::<f32>(&dev, &rng.vec(cols, -2.0, 2.0), &[cols]);
        let (ha, hb) = (Host::new(&[rows, cols], ha), Host::new(&[cols], hb));
        let what = format!("worker {t} iteration {it} ({rows}x{cols})");

        // Broadcasting, a transcendental and a transpose, read synchronously.
        let y = a.add(&b).unwrap().exp().unwrap().t();
        let e = zip_with(&ha, &hb, |x, y| f32::wrap((x + y).exp())).t();
        eprintln!("case: {what}: exp(a + b).t()");
        assert_close(&host(&y), &e.data, 1e-6, 1e-5);

        // A stepped slice through where_, read asynchronously.
        let s = a
            .slice([Slice::from(..).step(2), Slice::from(1..)])
            .unwrap();
        let hs = ha.slice(&[(0, rows, 2), (1, cols, 1)]);
        let m = s.gt_scalar(0.0).unwrap();
        let w = Array::where_(&m, &s, &s.mul_scalar(-0.5).unwrap()).unwrap();
        let future = w.to_vec_async();
        let e: Vec<f64> = hs
            .data
            .iter()
            .map(|&x| if x > 0.0 { x } else { f32::wrap(-0.5 * x) })
            .collect();

        // Integer work and random numbers while the read is in flight.
        let i = dev
            .arange::<i32>(0, n as i32, 1)
            .unwrap()
            .reshape([rows, cols])
            .unwrap();
        let k = i
            .mul_scalar(3)
            .unwrap()
            .rem_scalar(7)
            .unwrap()
            .cast::<f32>()
            .unwrap();
        let r = dev
            .random_uniform::<f32>([n], (t * 100 + it) as u64)
            .unwrap();
        let z = k.add(&r.reshape([rows, cols]).unwrap()).unwrap();

        let got = pollster::block_on(future).unwrap();
        eprintln!("case: {what}: where_");
        assert_close(&to_f64(&got), &e, 0.0, 0.0);

        let zh = host(&z);
        let rh = host(&r);
        let e: Vec<f64> = (0..n)
            .map(|j| f32::wrap(((3 * j) % 7) as f64 + rh[j]))
            .collect();
        eprintln!("case: {what}: integer chain plus random");
        assert_close(&zh, &e, 0.0, 0.0);
        assert!(rh.iter().all(|x| (0.0..1.0).contains(x)));
        if it % 5 == 0 {
            dev.synchronize().unwrap();
        }
    }
}

#[test]
fn threads_share_a_device() {
    let start = std::time::Instant::now();
    let before = STEPS_DONE.load(std::sync::atomic::Ordering::Relaxed);
    let threads = threads_or(THREADS);
    run_n_threads(dev(), threads, worker);
    eprintln!(
        "threads_share_a_device: {threads} threads, {} checked steps (each 3 reads checked) in {:.1} s",
        STEPS_DONE.load(std::sync::atomic::Ordering::Relaxed) - before,
        start.elapsed().as_secs_f64()
    );
}

/// Threads racing for the first use of kernels (compilation), the pool and reads of one
/// shared array, on a device of their own.
#[test]
fn threads_race_on_first_use() {
    let dev = Device::new().unwrap();
    let shared = dev.arange::<f32>(0.0, 4096.0, 1.0).unwrap();
    let barrier = Arc::new(Barrier::new(THREADS));
    run_threads(&dev, move |t, dev| {
        barrier.wait();
        for it in 0..20 {
            // Every thread compiles the same pipelines at the same time on the first pass.
            let x = shared.slice(it..it + 1000).unwrap();
            let y = x.sqrt().unwrap().mul_scalar(2.0).unwrap().floor().unwrap();
            let e: Vec<f64> = (it..it + 1000)
                .map(|v| (2.0 * (v as f32).sqrt()).floor() as f64)
                .collect();
            assert_close(&host(&y), &e, 0.0, 0.0);
            // Concurrent reads of the same array.
            let v = host(&shared.slice(t * 1000..t * 1000 + 17).unwrap());
            let e: Vec<f64> = (t * 1000..t * 1000 + 17).map(|v| v as f64).collect();
            assert_close(&v, &e, 0.0, 0.0);
            // Pool churn.
            let tmp = dev.full::<u32>([1 + it * 100], t as u32).unwrap();
            assert_close(
                &host(&tmp.slice(it * 100..).unwrap()),
                &[t as f64],
                0.0,
                0.0,
            );
        }
    });
    // Every array is gone once the workers are: the pool holds nothing in use.
    assert_eq!(dev.memory_pool().used_bytes(), 0);
}

/// The pipeline cache compiles each kernel once when several threads ask for it at the same
/// time: eight threads start the same chain of ops behind a barrier on a fresh device, and
/// the device compiles no more pipelines than one thread alone does on another fresh
/// device. (Before the renovation two threads missing the cache at once both compiled.)
#[test]
fn racing_threads_compile_each_pipeline_once() {
    let chain = |dev: &Device| {
        let x = dev.arange::<f32>(0.0, 1000.0, 1.0).unwrap();
        let y = x.sin().unwrap().mul_scalar(3.0).unwrap().exp2().unwrap();
        let s = y.sum_axis(0, false).unwrap();
        s.to_vec().unwrap();
    };
    let alone = Device::new().unwrap();
    let before = alone.stats().pipelines;
    chain(&alone);
    let one = alone.stats().pipelines - before;
    assert!(one >= 4, "the chain compiles several pipelines ({one})");
    let dev = Device::new().unwrap();
    let before = dev.stats().pipelines;
    let barrier = Arc::new(Barrier::new(8));
    run_n_threads(&dev, 8, move |_, dev| {
        barrier.wait();
        chain(&dev);
    });
    assert_eq!(
        dev.stats().pipelines - before,
        one,
        "pipelines compiled by 8 racing threads"
    );
}

/// Eight threads on one device, each a different mix of elementwise ops, reductions, matrix
/// products, convolutions and transfers (uploads, synchronous and asynchronous reads), all
/// checked against the CPU, within the time bound.
#[test]
fn eight_threads_mixed_ops() {
    let start = std::time::Instant::now();
    let threads = threads_or(8);
    let done = Arc::new(std::sync::atomic::AtomicU64::new(0));
    let counter = done.clone();
    run_n_threads(dev(), threads, move |t, dev| {
        let mut rng = Rng::new(8000 + t as u64);
        let steps = Steps::new(6);
        for it in (0..).take_while(|&it| steps.more(it)) {
            counter.fetch_add(1, std::sync::atomic::Ordering::Relaxed);
            let what = format!("thread {t} iteration {it}");
            let (m, k, n) = (
                1 + (rng.next_u64() % 33) as usize,
                1 + (rng.next_u64() % 33) as usize,
                1 + (rng.next_u64() % 33) as usize,
            );
            let (a, ha) = upload::<f32>(&dev, &rng.ints(m * k, -3, 3), &[m, k]);
            let (b, hb) = upload::<f32>(&dev, &rng.ints(k * n, -3, 3), &[k, n]);
            // Small integers: the products and sums are exact.
            let c = a.matmul(&b).unwrap();
            let e: Vec<f64> = (0..m * n)
                .map(|i| (0..k).map(|j| ha[i / n * k + j] * hb[j * n + i % n]).sum())
                .collect();
            let rows = c.sum_axis(1, false).unwrap();
            let er: Vec<f64> = (0..m).map(|i| e[i * n..(i + 1) * n].iter().sum()).collect();
            let am = c.argmax().unwrap();
            let scaled = c.mul_scalar(2.0).unwrap().add_scalar(1.0).unwrap();
            // A 1-D convolution and a 2-D nn convolution.
            let (x, hx) = upload::<f32>(&dev, &rng.ints(50 + t, -2, 2), &[50 + t]);
            let (w, hw) = upload::<f32>(&dev, &rng.ints(5, -2, 2), &[5]);
            let cv = convolve(&x, &w, Mode::Valid).unwrap();
            let ecv: Vec<f64> = (0..46 + t)
                .map(|o| (0..5).map(|j| hx[o + 4 - j] * hw[j]).sum())
                .collect();
            let img = dev.ones::<f32>([1, 2, 6, 6]).unwrap();
            let ker = dev.full::<f32>([3, 2, 3, 3], 0.5).unwrap();
            let y = conv2d(&img, &ker, None, Conv2d::default()).unwrap();
            // Read in mixed order, one asynchronously.
            let fut = scaled.to_vec_async();
            assert_close(&host(&rows), &er, 0.0, 0.0);
            assert_close(&host(&c), &e, 0.0, 0.0);
            let emax = e.iter().copied().fold(f64::NEG_INFINITY, f64::max);
            let first = e.iter().position(|&v| v == emax).unwrap();
            assert_eq!(am.to_scalar().unwrap() as usize, first, "{what}");
            assert_close(&host(&cv), &ecv, 0.0, 0.0);
            assert_close(&host(&y), &[9.0; 3 * 16], 0.0, 0.0);
            let got = pollster::block_on(fut).unwrap();
            let es: Vec<f64> = e.iter().map(|v| 2.0 * v + 1.0).collect();
            assert_close(&to_f64(&got), &es, 0.0, 0.0);
        }
    });
    eprintln!(
        "eight_threads_mixed_ops: {threads} threads, {} checked steps (each 7 results checked) in {:.1} s",
        done.load(std::sync::atomic::Ordering::Relaxed),
        start.elapsed().as_secs_f64()
    );
}
