//! One table of gpuarray timings, one row per case, named as the rows of the CuPy peer script
//! (`shared/peers/cupy_peer.py`) so that the two line up.
//!
//! ```text
//! cargo run --release --example bench_table
//! cargo run --release --example bench_table -- --json gpuarray.json
//! python3 cupy_peer.py --json cupy.json
//! cargo run --release --example bench_table -- --json gpuarray.json --compare cupy.json
//! ./bench_table --peer cupy_peer.py        # on the GPU machine: runs the peer, then compares
//! GPUARRAY_BENCH_QUICK=1 cargo run --release --example bench_table   # sizes / 64, smoke test
//! ```
//!
//! Methodology, matched to the peer's:
//! - Device-side cases (copy, add): 5 warm-ups, then 50 repeats of
//!   `t0 = now; 10 x op; synchronize; t = (now - t0) / 10`, and the median. The peer times
//!   each call with GPU events; gpuarray has none yet, so each repeat here also includes one
//!   queue submit and one host wait, shared by 10 calls: a slight handicap for gpuarray.
//! - upload / download: wall time of `from_slice` + `synchronize` / of `to_vec` on 64M f32
//!   (256 MiB), mean of 5 after one warm-up (the peer: mean of 5; its upload has one
//!   warm-up, its download none, but gpuarray's first download also creates a staging buffer).
//! - matmul_{f32,f16}_{1024,4096}: `a.matmul(&b)` of square random matrices, timed as the
//!   device-side cases; the note gives TFLOP/s (2 n^3 flops). The first call of a large f32
//!   product runs the tile trial (inside the warm-ups).
//! - convolve2d / ndimage_convolve / convolve_16M / nn_conv2d: see `measure_conv`.
//! - fused_5op_f32_64M / unfused_5op_f32_64M: `((x * 1.5 + 0.25) * x - 2).abs()` over 64M
//!   f32 as one `fuse`d kernel and as 5 built-in ops, timed as the device-side cases; the
//!   fused row's note gives its speed-up over the unfused row and its bandwidth as a share
//!   of a copy's (the fusion issue's targets: >= 3x and >= 0.8x).
//! - roundtrip_add_1k: wall time of `(x + x).to_vec()` on 1,000 f32, mean of 500 after 20
//!   warm-ups.
//!
//! `GPUARRAY_BENCH_ONLY=matmul,add` runs only the cases whose names start with one of the
//! prefixes.
//!
//! `--cold` also times every device-side row cold, as a program that prepares its data on
//! the host meets the GPU (issue 34): after the warm measurement (unchanged),
//! `cold::COLD_ROUNDS` (3) rounds of a host pause of 200 ms, 3 warm-up
//! calls (each waited for) and one timed repeat as the warm ones ([`GPU_BATCH`] calls, one
//! submit and wait; single calls for the linalg sweep's slow rows), and the median of the
//! rounds. The cold time is printed beside the warm one and written to the JSON as
//! `"<case>:cold"`; the peer (`--peer`, which gets `--cold` too) writes the same keys, and
//! `--compare` then prints the cold ratios and their geometric mean beside the warm one.
//! Rows timed on the wall clock (transfers, the round trip) have no cold time.
//!
//! In quick mode (env `GPUARRAY_BENCH_QUICK` set) the 64M sizes are divided by 64 (matrix
//! sizes by 4); the rows
//! keep their names, so do not compare those numbers with the peer's.

use std::error::Error;
use std::hint::black_box;
use std::time::{Duration, Instant};

use gpuarray::{Array, Device};

/// The benches' shared set-up (which allows its own dead code); this table uses its host data.
#[path = "../../benches/common/mod.rs"]
mod common;
use common::host_data;

pub use cold::{cold, cold_time, record_cold};
use cold::{cold_of, compare_cold, COLD};

mod cold;
mod sweep_api;
/// The sweeps (`--sweep NAME`): tables of many shapes or functions beside the peer's.
mod sweep_api_dtypes;
mod sweep_api_index;
mod sweep_api_manip;
mod sweep_api_math;
mod sweep_api_random;
mod sweep_api_stats;
mod sweep_fft;
mod sweep_complex;
mod sweep_layout;
mod sweep_linalg;
mod sweep_linalg_factor;
mod sweep_linalg_qr_einsum;
mod sweep_linalg_spectral;
mod sweep_math;
mod sweep_scan;
mod sweep_sort;

type Res<T> = std::result::Result<T, Box<dyn Error>>;

/// Elements of the large cases (64M f32, 256 MiB), before quick mode's division.
const FULL_N: usize = 1 << 26;
/// Divisor of the large sizes in quick mode.
const QUICK_DIV: usize = 64;
/// Device-side cases: warm-ups and timed repeats (the peer: n_warmup=5, n_repeat=50).
const GPU_WARMUP: usize = 5;
const GPU_REPEATS: usize = 50;
/// Calls per timed repeat, sharing one submit and wait.
const GPU_BATCH: usize = 10;
/// Transfers: warm-ups and timed repeats (the peer: 5 repeats).
const TRANSFER_WARMUP: usize = 1;
const TRANSFER_REPEATS: usize = 5;
/// The round trip: elements, warm-ups and timed repeats (as the peer).
const ROUNDTRIP_N: usize = 1000;
const ROUNDTRIP_WARMUP: usize = 20;
const ROUNDTRIP_REPEATS: usize = 500;

/// The foundation issue's speed targets, as minimum ratios (CuPy time / gpuarray time).
const TARGETS: &[(&str, f64)] = &[
    ("add_f32_64M", 1.0),
    ("download_256MB", 0.8),
    ("roundtrip_add_1k", 0.5),
    // The reductions issue.
    ("sum_f32_64M", 1.0),
    ("max_f32_64M", 1.0),
    ("sum_axis0_8192x8192", 1.5),
    ("sum_axis1_8192x8192", 0.9),
    // The matmul issue's targets.
    ("matmul_f32_4096", 0.6),
    ("matmul_f32_1024", 0.5),
    ("matmul_f16_4096", 0.3),
    // The convolution issue's targets (convolve2d must also match ndimage's time: 1.0 there).
    ("convolve2d_4096sq_7x7_same", 1.5),
    ("ndimage_convolve_4096sq_7x7", 1.0),
    ("convolve_16M_127taps_same", 1.0),
    ("nn_conv2d_n32c64k64_56sq_3x3", 0.5),
];

/// Matrix sizes of the matmul rows (the peer's), before quick mode's division by 4.
const MATMUL_SIZES: [usize; 2] = [1024, 4096];

/// One result row.
struct Row {
    name: String,
    ms: f64,
    /// Bytes the case moves, for GB/s.
    bytes: Option<u64>,
    note: String,
}

struct Args {
    cold: bool,
    json: Option<String>,
    compare: Option<String>,
    peer: Option<String>,
    sweep: Option<String>,
}

/// A sweep's rows: the device, and whether quick mode divides its sizes.
type SweepFn = fn(&Device, bool) -> Res<Vec<Row>>;

/// The sweeps `--sweep` knows, each in its own module (`sweep_<name>.rs`), with a peer
/// module of the same name beside `benches/peers/cupy_sweeps.py`.
const SWEEPS: &[(&str, SweepFn)] = &[
    ("math", sweep_math::rows),
    ("api_math", sweep_api_math::rows),
    ("api_index", sweep_api_index::rows),
    ("linalg", sweep_linalg::rows),
    ("linalg_factor", sweep_linalg_factor::rows),
    ("linalg_qr_einsum", sweep_linalg_qr_einsum::rows),
    ("layout", sweep_layout::rows),
    ("sort", sweep_sort::rows),
    ("scan", sweep_scan::rows),
    ("api_dtypes", sweep_api_dtypes::rows),
    ("api_manip", sweep_api_manip::rows),
    ("api_random", sweep_api_random::rows),
    ("api", sweep_api::rows),
    ("api_stats", sweep_api_stats::rows),
    ("linalg_spectral", sweep_linalg_spectral::rows),
    ("fft", sweep_fft::rows),
    ("complex", sweep_complex::rows),
];

fn usage() -> String {
    "usage: bench_table [--json OUT.json] [--compare CUPY.json | --peer cupy_peer.py]\n  \
     --json FILE      also write {case: gpuarray_ms} to FILE\n  \
     --compare FILE   read the CuPy peer's JSON (cupy_peer.py --json FILE) and print both side by side\n  \
     --peer SCRIPT    run `python3 SCRIPT --json TMP` first (the CuPy peer, same GPU) and compare\n  \
     --sweep NAME     run the sweep NAME (see SWEEPS) instead of the published table; the peer gets --sweep NAME\n  \
     --cold           also time each device-side row after a 200 ms host pause and 3 warm-up calls (keys \"case:cold\")\n  \
     env GPUARRAY_BENCH_QUICK=1   sizes / 64 (smoke test)"
        .to_string()
}

fn parse_args() -> Res<Args> {
    let mut args = Args {
        cold: false,
        json: None,
        compare: None,
        peer: None,
        sweep: None,
    };
    let mut it = std::env::args().skip(1);
    while let Some(a) = it.next() {
        let mut value = |flag: &str| {
            it.next()
                .ok_or_else(|| format!("{flag} needs a file name\n{}", usage()))
        };
        match a.as_str() {
            "--json" => args.json = Some(value("--json")?),
            "--cold" => args.cold = true,
            "--compare" => args.compare = Some(value("--compare")?),
            "--peer" => args.peer = Some(value("--peer")?),
            "--sweep" => {
                let name = value("--sweep")?;
                if !SWEEPS.iter().any(|(s, _)| *s == name) {
                    let known: Vec<&str> = SWEEPS.iter().map(|(s, _)| *s).collect();
                    return Err(format!("unknown sweep {name:?}; known: {known:?}").into());
                }
                args.sweep = Some(name);
            }
            "-h" | "--help" => {
                println!("{}", usage());
                std::process::exit(0);
            }
            // `cargo bench` passes --bench to every target; tolerate it.
            "--bench" => {}
            other => return Err(format!("unknown argument {other:?}\n{}", usage()).into()),
        }
    }
    Ok(args)
}

/// Whether the case runs: `GPUARRAY_BENCH_ONLY` (a comma-separated list of name
/// prefixes) unset, or one of its prefixes starts the name.
fn want(name: &str) -> bool {
    match std::env::var("GPUARRAY_BENCH_ONLY") {
        Ok(only) if !only.is_empty() => only.split(',').any(|p| name.starts_with(p.trim())),
        _ => true,
    }
}

fn quick() -> bool {
    std::env::var_os("GPUARRAY_BENCH_QUICK").is_some_and(|v| !v.is_empty() && v != "0")
}

fn ms(d: Duration) -> f64 {
    d.as_secs_f64() * 1e3
}

fn median(mut t: Vec<f64>) -> f64 {
    t.sort_by(f64::total_cmp);
    let n = t.len();
    if n % 2 == 1 {
        t[n / 2]
    } else {
        (t[n / 2 - 1] + t[n / 2]) / 2.0
    }
}

/// Median over [`GPU_REPEATS`] of the time per call of [`GPU_BATCH`] calls of `op` followed
/// by one `synchronize`, after [`GPU_WARMUP`] warm-ups. Each repeat includes one submit and
/// one host wait (no GPU events yet).
fn gpu_median<R>(dev: &Device, mut op: impl FnMut() -> gpuarray::Result<R>) -> Res<f64> {
    for _ in 0..GPU_WARMUP {
        let r = op()?;
        dev.synchronize()?;
        drop(r);
    }
    let mut times = Vec::with_capacity(GPU_REPEATS);
    for _ in 0..GPU_REPEATS {
        let t0 = Instant::now();
        for _ in 0..GPU_BATCH {
            drop(op()?);
        }
        dev.synchronize()?;
        times.push(ms(t0.elapsed()) / GPU_BATCH as f64);
    }
    let warm = median(times);
    if cold() {
        let t = cold_time(dev, GPU_BATCH, op)?;
        record_cold(warm, t);
    }
    Ok(warm)
}

/// Mean wall time of `op` (which completes its work itself) over `repeats`, after `warmup`.
fn wall_mean<R>(
    warmup: usize,
    repeats: usize,
    mut op: impl FnMut() -> gpuarray::Result<R>,
) -> Res<f64> {
    for _ in 0..warmup {
        black_box(op()?);
    }
    let t0 = Instant::now();
    for _ in 0..repeats {
        black_box(op()?);
    }
    Ok(ms(t0.elapsed()) / repeats as f64)
}

fn random(dev: &Device, n: usize, seed: u64) -> gpuarray::Result<Array<f32>> {
    dev.random_uniform_in::<f32>([n], 0.5, 1.5, seed)
}

fn measure(dev: &Device, n: usize) -> Res<Vec<Row>> {
    let mut rows = Vec::new();
    let big = n as u64;
    let gpu_note = format!("median of {GPU_REPEATS}, one submit+wait per 10 calls");
    let wall_note = format!("wall, mean of {TRANSFER_REPEATS}");
    if want("copy_f32_64M") || want("add_f32_64M") {
        let a = random(dev, n, 1)?;
        let b = random(dev, n, 2)?;
        dev.synchronize()?;
        // No public pure copy of a contiguous array (`contiguous` of an offset-0 array is a
        // clone): add_scalar(0) reads and writes the same bytes as a copy.
        let t = gpu_median(dev, || a.add_scalar(0.0))?;
        rows.push(Row {
            name: "copy_f32_64M".into(),
            ms: t,
            bytes: Some(8 * big),
            note: format!("add_scalar(0) as copy; {gpu_note}"),
        });
        let t = gpu_median(dev, || a.add(&b))?;
        rows.push(Row {
            name: "add_f32_64M".into(),
            ms: t,
            bytes: Some(12 * big),
            note: gpu_note.clone(),
        });
    }
    if want("fused_5op_f32_64M") || want("unfused_5op_f32_64M") {
        // The issue's fusion target: the same 5 elementwise ops, ((x * 1.5 + 0.25) * x - 2).abs(),
        // as one fused kernel (reads x, writes the result: 8 bytes per element) and as 5
        // built-in ops (44 bytes per element); fused >= 3x faster and >= 0.8x of the copy's
        // bandwidth.
        let x = random(dev, n, 3)?;
        let copy = random(dev, n, 4)?;
        dev.synchronize()?;
        let fused = gpuarray::fuse(dev, |[x]| ((x * 1.5 + 0.25) * x - 2.0).abs())?;
        let t_copy = gpu_median(dev, || copy.add_scalar(0.0))?;
        let t_unfused = gpu_median(dev, || {
            x.mul_scalar(1.5)?
                .add_scalar(0.25)?
                .mul(&x)?
                .sub_scalar(2.0)?
                .abs()
        })?;
        let t_fused = gpu_median(dev, || fused.call::<f32>(&[&x]))?;
        rows.push(Row {
            name: "unfused_5op_f32_64M".into(),
            ms: t_unfused,
            bytes: Some(44 * big),
            note: format!("5 built-in ops, 5 dispatches; {gpu_note}"),
        });
        rows.push(Row {
            name: "fused_5op_f32_64M".into(),
            ms: t_fused,
            bytes: Some(8 * big),
            note: format!(
                "fuse(), 1 dispatch: {:.2}x faster than unfused (target >= 3), {:.2}x of copy bandwidth (copy {t_copy:.3} ms; target >= 0.8); {gpu_note}",
                t_unfused / t_fused,
                t_copy / t_fused
            ),
        });
    }
    if want("upload_256MB") || want("download_256MB") {
        let host = host_data(n);
        let t = wall_mean(TRANSFER_WARMUP, TRANSFER_REPEATS, || {
            let d = dev.from_slice(&host, [n])?;
            dev.synchronize()?;
            Ok(d)
        })?;
        rows.push(Row {
            name: "upload_256MB".into(),
            ms: t,
            bytes: Some(4 * big),
            note: format!("from_slice + synchronize, {wall_note}"),
        });
        let d = dev.from_slice(&host, [n])?;
        drop(host);
        let t = wall_mean(TRANSFER_WARMUP, TRANSFER_REPEATS, || d.to_vec())?;
        rows.push(Row {
            name: "download_256MB".into(),
            ms: t,
            bytes: Some(4 * big),
            note: format!("to_vec, {wall_note}"),
        });
    }
    let reductions = [
        "sum_f32_64M",
        "max_f32_64M",
        "sum_axis0_8192x8192",
        "sum_axis1_8192x8192",
    ];
    if reductions.iter().any(|r| want(r)) {
        let a = random(dev, n, 3)?;
        dev.synchronize()?;
        rows.push(Row {
            name: "sum_f32_64M".into(),
            ms: gpu_median(dev, || a.sum())?,
            bytes: Some(4 * big),
            note: gpu_note.clone(),
        });
        rows.push(Row {
            name: "max_f32_64M".into(),
            ms: gpu_median(dev, || a.max())?,
            bytes: Some(4 * big),
            note: gpu_note.clone(),
        });
        // 8192 x 8192 (quick mode: 8192 x 128).
        let m = a.reshape([8192, n / 8192])?;
        dev.synchronize()?;
        rows.push(Row {
            name: "sum_axis0_8192x8192".into(),
            ms: gpu_median(dev, || m.sum_axis(0, false))?,
            bytes: Some(4 * big),
            note: gpu_note.clone(),
        });
        rows.push(Row {
            name: "sum_axis1_8192x8192".into(),
            ms: gpu_median(dev, || m.sum_axis(1, false))?,
            bytes: Some(4 * big),
            note: gpu_note.clone(),
        });
    }
    if want("roundtrip_add_1k") {
        let x = dev.arange::<f32>(0.0, ROUNDTRIP_N as f32, 1.0)?;
        let t = wall_mean(ROUNDTRIP_WARMUP, ROUNDTRIP_REPEATS, || (&x + &x).to_vec())?;
        rows.push(Row {
            name: "roundtrip_add_1k".into(),
            ms: t,
            bytes: None,
            note: format!("(x + x).to_vec(), wall, mean of {ROUNDTRIP_REPEATS}"),
        });
    }
    rows.extend(measure_matmul(dev)?);
    rows.extend(measure_conv(dev)?);
    Ok(rows)
}

/// The convolution rows, inputs random in [0.5, 1.5) as the peer's:
/// - `convolve2d_4096sq_7x7_same`: `signal::convolve2d(img, k7, Mode::Same)` (the peer:
///   cupyx.scipy.signal.convolve2d);
/// - `ndimage_convolve_4096sq_7x7`: the same call: for an odd filter ndimage.convolve with
///   mode constant (zero) and origin 0 has exactly convolve2d's same-mode alignment;
/// - `convolve_16M_127taps_same`: `signal::convolve(sig, taps, Mode::Same)`;
/// - `nn_conv2d_n32c64k64_56sq_3x3`: `nn::conv2d` f32, padding 1 (the peer: cuDNN, no TF32).
///
/// Quick mode: images 1024 x 1024, 1M samples, batch 2.
fn measure_conv(dev: &Device) -> Res<Vec<Row>> {
    use gpuarray::nn::{conv2d, Conv2d};
    use gpuarray::signal::{convolve, convolve2d, Mode};
    let mut rows = Vec::new();
    let q = quick();
    let gflop_note = |flop: f64, ms: f64, what: &str| {
        format!(
            "{:.2} TFLOP/s; {what}; median of {GPU_REPEATS}, one submit+wait per 10 calls",
            flop / ms / 1e9
        )
    };
    let side = if q { 1024 } else { 4096 };
    let names = ["convolve2d_4096sq_7x7_same", "ndimage_convolve_4096sq_7x7"];
    if names.iter().any(|n| want(n)) {
        let img = dev.random_uniform_in::<f32>([side, side], 0.5, 1.5, 21)?;
        let k7 = dev.random_uniform_in::<f32>([7, 7], 0.5, 1.5, 22)?;
        let flop = 2.0 * (side * side * 49) as f64;
        for name in names.into_iter().filter(|n| want(n)) {
            let t = gpu_median(dev, || convolve2d(&img, &k7, Mode::Same))?;
            rows.push(Row {
                name: name.into(),
                ms: t,
                bytes: Some(8 * (side * side) as u64),
                note: gflop_note(flop, t, "tiled kernel"),
            });
        }
    }
    if want("convolve_16M_127taps_same") {
        let n = if q { 1 << 20 } else { 1 << 24 };
        let sig = dev.random_uniform_in::<f32>([n], 0.5, 1.5, 23)?;
        let taps = dev.random_uniform_in::<f32>([127], 0.5, 1.5, 24)?;
        let t = gpu_median(dev, || convolve(&sig, &taps, Mode::Same))?;
        rows.push(Row {
            name: "convolve_16M_127taps_same".into(),
            ms: t,
            bytes: Some(8 * n as u64),
            note: gflop_note(2.0 * (n * 127) as f64, t, "blocked 1-D kernel"),
        });
    }
    if want("nn_conv2d_n32c64k64_56sq_3x3") {
        let batch = if q { 2 } else { 32 };
        let x = dev.random_uniform_in::<f32>([batch, 64, 56, 56], -1.0, 1.0, 25)?;
        let w = dev.random_uniform_in::<f32>([64, 64, 3, 3], -1.0, 1.0, 26)?;
        let opt = Conv2d {
            padding: [1, 1],
            ..Default::default()
        };
        let t = gpu_median(dev, || conv2d(&x, &w, None, opt))?;
        let flop = 2.0 * (batch * 64 * 64 * 56 * 56 * 9) as f64;
        rows.push(Row {
            name: "nn_conv2d_n32c64k64_56sq_3x3".into(),
            ms: t,
            bytes: None,
            note: gflop_note(flop, t, "implicit GEMM, f32"),
        });
    }
    Ok(rows)
}

/// `matmul_{f32,f16}_{1024,4096}`: square products of random matrices in [0.5, 1.5),
/// timed as the device-side cases (the first call also runs the tile trial).
fn measure_matmul(dev: &Device) -> Res<Vec<Row>> {
    const NAMES: [[&str; 2]; 2] = [
        ["matmul_f32_1024", "matmul_f32_4096"],
        ["matmul_f16_1024", "matmul_f16_4096"],
    ];
    let mut rows = Vec::new();
    for (i, &size) in MATMUL_SIZES.iter().enumerate() {
        let n = if quick() { size / 4 } else { size };
        let flop = 2.0 * (n as f64).powi(3);
        let note = |ms: f64, what: &str| {
            format!(
                "{:.2} TFLOP/s; {what}; median of {GPU_REPEATS}, one submit+wait per 10 calls",
                flop / ms / 1e9
            )
        };
        let a = dev.random_uniform_in::<f32>([n, n], 0.5, 1.5, 11)?;
        let b = dev.random_uniform_in::<f32>([n, n], 0.5, 1.5, 12)?;
        if want(NAMES[0][i]) {
            let t = gpu_median(dev, || a.matmul(&b))?;
            rows.push(Row {
                name: NAMES[0][i].into(),
                ms: t,
                bytes: None,
                note: note(t, "f32"),
            });
        }
        if want(NAMES[1][i]) && dev.supports::<gpuarray::f16>() {
            let (ah, bh) = (a.cast::<gpuarray::f16>()?, b.cast::<gpuarray::f16>()?);
            let t = gpu_median(dev, || ah.matmul(&bh))?;
            rows.push(Row {
                name: NAMES[1][i].into(),
                ms: t,
                bytes: None,
                note: note(t, "f16 in, f32 accumulation"),
            });
        }
    }
    Ok(rows)
}

fn gbps(bytes: Option<u64>, ms: f64) -> String {
    match bytes {
        Some(b) if ms > 0.0 => format!("{:9.1}", b as f64 / ms / 1e6),
        _ => format!("{:>9}", "-"),
    }
}

/// `{"case": ms, ...}`, written by hand (no serde); in cold mode `"case:cold": ms` after
/// each row that has a cold time.
fn to_json(rows: &[Row]) -> String {
    let num = |ms: f64| {
        if ms.is_finite() {
            format!("{ms:.6}")
        } else {
            "null".to_string()
        }
    };
    let body: Vec<String> = rows
        .iter()
        .flat_map(|r| {
            let warm = format!(" \"{}\": {}", r.name, num(r.ms));
            let cold = cold_of(r.ms).map(|c| format!(" \"{}:cold\": {}", r.name, num(c)));
            std::iter::once(warm).chain(cold)
        })
        .collect();
    format!("{{\n{}\n}}\n", body.join(",\n"))
}

/// Parses the peer's flat JSON object `{"name": number, ...}` (as Python's json.dump writes
/// it; NaN, Infinity and null values are kept as NaN / infinity).
fn parse_peer(text: &str) -> Res<Vec<(String, f64)>> {
    let bad = |what: &str| -> Box<dyn Error> { format!("peer JSON: {what}").into() };
    let mut chars = text.trim().chars().peekable();
    let skip_ws = |c: &mut std::iter::Peekable<std::str::Chars<'_>>| {
        while c.next_if(|ch| ch.is_whitespace()).is_some() {}
    };
    if chars.next() != Some('{') {
        return Err(bad("expected '{'"));
    }
    let mut out = Vec::new();
    loop {
        skip_ws(&mut chars);
        match chars.next() {
            Some('}') => break,
            Some('"') => {}
            _ => return Err(bad("expected a quoted name or '}'")),
        }
        let mut name = String::new();
        loop {
            match chars.next() {
                Some('"') => break,
                Some('\\') => name.push(chars.next().ok_or_else(|| bad("unterminated name"))?),
                Some(c) => name.push(c),
                None => return Err(bad("unterminated name")),
            }
        }
        skip_ws(&mut chars);
        if chars.next() != Some(':') {
            return Err(bad(&format!("expected ':' after \"{name}\"")));
        }
        let mut value = String::new();
        while let Some(c) = chars.next_if(|&c| c != ',' && c != '}') {
            value.push(c);
        }
        let value = value.trim();
        let v = match value {
            "null" | "NaN" => f64::NAN,
            "Infinity" => f64::INFINITY,
            "-Infinity" => f64::NEG_INFINITY,
            _ => value
                .parse::<f64>()
                .map_err(|_| bad(&format!("\"{name}\": not a number: {value:?}")))?,
        };
        out.push((name, v));
        match chars.next() {
            Some(',') => continue,
            Some('}') => break,
            _ => return Err(bad("expected ',' or '}'")),
        }
    }
    Ok(out)
}

/// Reads and parses the peer's JSON file.
fn read_peer(path: &str) -> Res<Vec<(String, f64)>> {
    let text = std::fs::read_to_string(path).map_err(|e| format!("reading {path}: {e}"))?;
    parse_peer(&text).map_err(|e| format!("{path}: {e}").into())
}

fn compare(rows: &[Row], peer: &[(String, f64)]) {
    let lookup = |name: &str| peer.iter().find(|(n, _)| n == name).map(|(_, v)| *v);
    println!();
    println!("gpuarray vs CuPy (ratio = CuPy ms / gpuarray ms; > 1: gpuarray faster)");
    println!(
        "{:<28} | {:>12} | {:>12} | {:>7} | target",
        "case", "gpuarray ms", "CuPy ms", "ratio"
    );
    println!(
        "{:-<28}-+-{:->12}-+-{:->12}-+-{:->7}-+-------",
        "", "", "", ""
    );
    let mut ratios: Vec<(f64, &str)> = Vec::new();
    for r in rows {
        let target = TARGETS
            .iter()
            .find(|(n, _)| *n == r.name.as_str())
            .map(|(_, t)| *t);
        let (peer_ms, ratio, verdict) = match lookup(&r.name) {
            Some(p) if p.is_finite() => {
                let ratio = p / r.ms;
                ratios.push((ratio, &r.name));
                let verdict = match target {
                    Some(t) if ratio >= t => format!(">= {t}: met"),
                    Some(t) => format!(">= {t}: NOT met"),
                    None => String::new(),
                };
                (format!("{p:12.4}"), format!("{ratio:7.2}"), verdict)
            }
            _ => (format!("{:>12}", "-"), format!("{:>7}", "-"), String::new()),
        };
        println!(
            "{:<28} | {:12.4} | {peer_ms} | {ratio} | {verdict}",
            r.name, r.ms
        );
    }
    if let Some(worst) = ratios.iter().min_by(|a, b| a.0.total_cmp(&b.0)) {
        let geomean = (ratios.iter().map(|r| r.0.ln()).sum::<f64>() / ratios.len() as f64).exp();
        println!(
            "geometric mean ratio {geomean:.2} over {} rows; worst row {} at {:.2}",
            ratios.len(),
            worst.1,
            worst.0
        );
    }
    let extra: Vec<&str> = peer
        .iter()
        .map(|(n, _)| n.as_str())
        .filter(|n| !n.ends_with(":cold") && !rows.iter().any(|r| r.name == *n))
        .collect();
    if !extra.is_empty() {
        println!("peer cases with no gpuarray row: {}", extra.join(", "));
    }
    if quick() {
        println!("(quick mode: gpuarray sizes are / {QUICK_DIV}; these ratios mean nothing)");
    }
    compare_cold(rows, peer, ratios.iter().map(|r| r.0).collect());
}

/// Runs the CuPy peer script, which prints its own table, and reads the JSON it writes.
fn run_peer(script: &str, sweep: Option<&str>) -> Res<Vec<(String, f64)>> {
    let json = std::env::temp_dir().join(format!("cupy_peer_{}.json", std::process::id()));
    println!(
        "running the peer: python3 {script} --json {}",
        json.display()
    );
    let mut cmd = std::process::Command::new("python3");
    cmd.arg(script).arg("--json").arg(&json);
    if cold() {
        cmd.arg("--cold");
    }
    if let Some(name) = sweep {
        cmd.arg("--sweep").arg(name);
    }
    let status = cmd
        .status()
        .map_err(|e| format!("starting python3 {script}: {e}"))?;
    if !status.success() {
        return Err(format!("python3 {script} failed: {status}").into());
    }
    let path = json.to_string_lossy().into_owned();
    let peer = read_peer(&path)?;
    let _ = std::fs::remove_file(&json);
    Ok(peer)
}

fn run() -> Res<()> {
    let args = parse_args()?;
    COLD.store(args.cold, std::sync::atomic::Ordering::Relaxed);
    // Run or read the peer first, so that a failure shows before the measurements (and the
    // two programs never share the GPU).
    let peer = match (&args.peer, &args.compare) {
        (Some(script), _) => Some(run_peer(script, args.sweep.as_deref())?),
        (None, Some(path)) => Some(read_peer(path)?),
        (None, None) => None,
    };
    let dev = Device::new()?;
    let info = dev.info();
    let n = if quick() { FULL_N / QUICK_DIV } else { FULL_N };
    println!(
        "gpuarray bench_table on {} ({}, {:?})",
        info.name, info.backend, info.kind
    );
    if quick() {
        println!(
            "QUICK MODE (GPUARRAY_BENCH_QUICK): large cases use {n} elements, not {FULL_N}; \
             names unchanged, not comparable with the peer"
        );
    }
    let rows = match args.sweep.as_deref() {
        Some(name) => match SWEEPS.iter().find(|(s, _)| *s == name) {
            Some((_, sweep)) => sweep(&dev, quick())?,
            None => return Err(format!("unknown sweep {name:?}").into()),
        },
        None => measure(&dev, n)?,
    };
    println!();
    if cold() {
        println!(
            "{:<36} {:>10}     {:>10}     {:>9}  note",
            "case", "ms", "cold ms", "GB/s"
        );
    } else {
        println!("{:<36} {:>10}     {:>9}  note", "case", "ms", "GB/s");
    }
    for r in &rows {
        let cold_col = match (cold(), cold_of(r.ms)) {
            (false, _) => String::new(),
            (true, Some(c)) => format!("{c:10.4} ms  "),
            (true, None) => format!("{:>10}     ", "-"),
        };
        println!(
            "{:<36} {:10.4} ms  {cold_col}{}  {}",
            r.name,
            r.ms,
            gbps(r.bytes, r.ms),
            r.note
        );
    }
    if let Some(path) = &args.json {
        std::fs::write(path, to_json(&rows)).map_err(|e| format!("writing {path}: {e}"))?;
        println!("wrote {path}");
    }
    if let Some(peer) = &peer {
        compare(&rows, peer);
    }
    Ok(())
}

fn main() {
    if let Err(e) = run() {
        eprintln!("bench_table: {e}");
        std::process::exit(1);
    }
}
