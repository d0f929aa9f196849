//! The tile trial of the matrix products: which configuration (the tiled kernel's tiles, or
//! the large f32 kernel at a depth) a large product of one (element type, class) takes on
//! this device. The choice comes, in order, from this device's memory; from the file of the
//! adapter and driver beside the pipeline cache (`device::tune_store`), where a trial of an
//! earlier process kept it; from a trial that a cold GPU cannot fool (`device::trial`:
//! steady clock first, candidates interleaved, medians), whose choice is written to that
//! file; or, where `Tuning::trial` allows no trial, from the default table of the adapter's
//! kind ([`default_choice`]).

use std::time::Instant;

use crate::array::Array;
use crate::config::Trial;
use crate::device::{lock, trial, Device, DeviceKind};
use crate::dtype::{DType, Element};
use crate::error::Result;

use super::linalg_big::{self, BigCfg};
use super::linalg_f64::{self, F64Cfg};
use super::product::Product;
use super::tiled::{acc_size, eight_byte, run_choice, Choice, Tiles, CANDIDATES, MEDIUM, SMALL};

/// The configuration for this product's (element type, `class`) and how it was found,
/// running the trial on this product where nothing had chosen yet (see the module).
/// `depths`: where the large f32 kernel is a candidate.
pub(super) fn tuned<T: Element>(
    dev: &Device,
    prod: &Product<'_>,
    out: &Array<T>,
    class: u32,
    depths: &[u32],
) -> Result<(Choice, &'static str)> {
    let state = dev.state::<super::LinalgState>();
    let key = (T::DTYPE, class);
    if let Some(c) = lock(&state.tuned).get(&key) {
        return Ok((*c, "trial's choice"));
    }
    let candidates = candidates(dev, T::DTYPE, class, depths);
    let mode = dev.options().tuning.trial;
    let disk_key = disk_key(T::DTYPE, class);
    let kept = (mode != Trial::Off)
        .then(|| dev.tune_store().get(&disk_key))
        .flatten()
        .and_then(|v| decode(&v))
        .filter(|c| candidates.contains(c));
    let (choice, how) = match (kept, mode) {
        (Some(c), _) => (c, "kept on disk"),
        (None, Trial::Run) => {
            let c = trial_of(dev, prod, out, &candidates)?;
            dev.tune_store().put(&disk_key, &encode(c));
            (c, "trial ran")
        }
        (None, _) => (
            default_choice(dev.info().kind, class, depths, &candidates),
            "default table",
        ),
    };
    lock(&state.tuned).insert(key, choice);
    Ok((choice, how))
}

/// The configurations the trial compares for `class`: the class's tiles that fit the
/// adapter, then the large f32 kernel at the eligible `depths`; for f64 the f64 kernel's
/// tilings of the class that fit the adapter, then the tiled kernel's 8-byte tiles (f64's
/// choice before the f64 kernel, so that the trial never picks slower than it).
fn candidates(dev: &Device, d: DType, class: u32, depths: &[u32]) -> Vec<Choice> {
    let acc = acc_size(d);
    if d == DType::F64 {
        return linalg_f64::candidates(class)
            .into_iter()
            .filter(|c| c.pad(dev).is_some())
            .map(Choice::F64)
            .chain([Choice::Tiled(eight_byte(dev))])
            .collect();
    }
    CANDIDATES[(class % 9) as usize / 3]
        .iter()
        .copied()
        .filter(|t| t.fits(dev, acc))
        .map(Choice::Tiled)
        .chain(linalg_big::candidates(depths).map(Choice::Big))
        .collect()
}

/// Times `candidates` on this product (`device::trial::run`) and returns the winner.
fn trial_of<T: Element>(
    dev: &Device,
    prod: &Product<'_>,
    out: &Array<T>,
    candidates: &[Choice],
) -> Result<Choice> {
    let Some(&first) = candidates.first() else {
        return Ok(Choice::Tiled(SMALL));
    };
    if candidates.len() == 1 {
        return Ok(first);
    }
    // GPU timestamps where the adapter has them: the kernel's own time, without the host's
    // submit and wait, whose noise can outweigh small products' differences.
    let stamps = dev.has_timestamps();
    let outcome = trial::run(candidates.len(), |i| {
        if stamps {
            let start = dev.record_event()?;
            run_choice(dev, prod, out, candidates[i])?;
            let end = dev.record_event()?;
            return start.elapsed_ms(&end);
        }
        let t0 = Instant::now();
        run_choice(dev, prod, out, candidates[i])?;
        dev.synchronize()?;
        Ok(t0.elapsed().as_secs_f64() * 1e3)
    })?;
    let diag = &dev.options().diagnostics;
    if diag.matmul_verbose || diag.linalg_trace {
        eprintln!(
            "gpuarray matmul trial {}: {} settling calls",
            T::DTYPE,
            outcome.settle_calls
        );
        for (c, ms) in candidates.iter().zip(&outcome.medians) {
            eprintln!(
                "gpuarray matmul trial {}: {c:?} median {ms:.3} ms, {:.2} TFLOP/s",
                T::DTYPE,
                2.0 * prod.fmas() / ms / 1e9
            );
        }
    }
    Ok(candidates[outcome.best])
}

/// The untimed choice for `class` on an adapter of `kind`, among `candidates` (where the
/// list is empty: small tiles). A guess, not a measurement: on GPUs of their own (discrete,
/// virtual, unknown) the large f32 kernel at its deepest eligible depth where it is a
/// candidate and the GPU fills (size classes 1 and 2), else the class's first (largest)
/// tiles there, and medium tiles on partly filled GPUs (size class 0); on integrated GPUs
/// and CPUs medium tiles everywhere. f64 likewise: the f64 kernel's first (largest) tiling
/// of the class on filled GPUs of their own, its 64 x 64 tiling on partly filled ones, and
/// the tiled kernel's medium tiles on integrated GPUs and CPUs.
pub(super) fn default_choice(
    kind: DeviceKind,
    class: u32,
    depths: &[u32],
    candidates: &[Choice],
) -> Choice {
    let size = class % 3;
    let own_memory = !matches!(kind, DeviceKind::IntegratedGpu | DeviceKind::Cpu);
    let big = depths
        .first()
        .map(|&bk| Choice::Big(BigCfg { bk, quad: false }));
    let wanted = match (own_memory, size) {
        (true, 1 | 2) => big.into_iter().chain(candidates.first().copied()).collect(),
        (true, _) => vec![Choice::F64(linalg_f64::medium()), Choice::Tiled(MEDIUM)],
        _ => vec![Choice::Tiled(MEDIUM)],
    };
    wanted
        .into_iter()
        .chain(candidates.iter().copied())
        .find(|c| candidates.contains(c))
        .unwrap_or(Choice::Tiled(SMALL))
}

/// The file's key of (element type, class).
fn disk_key(d: DType, class: u32) -> String {
    format!("matmul {d} class {class}")
}

/// A choice as the file keeps it: `tiled BM,BN,BK,TM,TN`, `big BK pair|quad` or
/// `f64 BM,BN,BK,TM,TN`, with ` pair`, ` frag` and ` raw` after it (in that order) for the
/// f64 kernel's layout flags (a value without them: the plain layout).
fn encode(c: Choice) -> String {
    match c {
        Choice::Tiled(t) => format!("tiled {},{},{},{},{}", t.bm, t.bn, t.bk, t.tm, t.tn),
        Choice::F64(t) => format!(
            "f64 {},{},{},{},{}{}{}{}",
            t.bm,
            t.bn,
            t.bk,
            t.tm,
            t.tn,
            if t.layout.pair { " pair" } else { "" },
            if t.layout.frag { " frag" } else { "" },
            if t.layout.raw { " raw" } else { "" }
        ),
        Choice::Big(b) => format!("big {} {}", b.bk, if b.quad { "quad" } else { "pair" }),
    }
}

/// The choice of a file's value, `None` where it does not parse.
fn decode(s: &str) -> Option<Choice> {
    let (kind, rest) = s.split_once(' ')?;
    let five = |rest: &str| -> Option<[u32; 5]> {
        let n: Vec<u32> = rest
            .split(',')
            .map(|x| x.parse().ok())
            .collect::<Option<_>>()?;
        n.try_into().ok()
    };
    match kind {
        "tiled" => {
            let [bm, bn, bk, tm, tn] = five(rest)?;
            let t = Tiles::new(bm, bn, bk, tm, tn);
            t.valid().then_some(Choice::Tiled(t))
        }
        "f64" => {
            let mut words = rest.split(' ');
            let [bm, bn, bk, tm, tn] = five(words.next()?)?;
            let mut layout = linalg_f64::Layout::default();
            for w in words {
                match w {
                    "pair" if !layout.pair && !layout.frag && !layout.raw => layout.pair = true,
                    "frag" if !layout.frag && !layout.raw => layout.frag = true,
                    "raw" if !layout.raw => layout.raw = true,
                    _ => return None,
                }
            }
            let t = F64Cfg::new(bm, bn, bk, tm, tn).laid(layout);
            t.valid().then_some(Choice::F64(t))
        }
        "big" => {
            let (bk, warps) = rest.split_once(' ')?;
            let quad = match warps {
                "quad" => true,
                "pair" => false,
                _ => return None,
            };
            Some(Choice::Big(BigCfg {
                bk: bk.parse().ok()?,
                quad,
            }))
        }
        _ => None,
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::config::{Options, PipelineCacheDir};

    #[test]
    fn choices_round_trip_through_their_text() {
        let all = CANDIDATES.iter().flatten().map(|&t| Choice::Tiled(t));
        let big = linalg_big::candidates(&linalg_big::DEPTHS).map(Choice::Big);
        let layouts = [false, true].map(|pair| {
            [false, true]
                .map(|frag| [false, true].map(|raw| linalg_f64::Layout { pair, frag, raw }))
        });
        let layouts = layouts.as_flattened().as_flattened().to_vec();
        let f64s = linalg_f64::CANDIDATES
            .iter()
            .copied()
            .flatten()
            .flat_map(|&c| layouts.iter().map(move |&l| Choice::F64(c.laid(l))));
        for c in all.chain(big).chain(f64s) {
            assert_eq!(decode(&encode(c)), Some(c), "{}", encode(c));
        }
        for bad in [
            "",
            "tiled",
            "tiled 1,2,3",
            "tiled 128,128,16,8,7",
            "big 16",
            "big x pair",
            "big 16 trio",
            "huge 1",
            "f64 128,128,8,8",
            "f64 128,128,12,8,8",
            "f64 128,128,8,8,8 pear",
            "f64 128,128,8,8,8 frag pair",
            "f64 128,128,8,8,8 pair pair",
            "f64 128,128,8,8,8 raw pair",
            "f64 128,128,8,8,8 raw raw",
        ] {
            assert_eq!(decode(bad), None, "{bad:?}");
        }
    }

    /// The default table picks a candidate of the class, by the adapter's kind.
    #[test]
    fn the_default_table_picks_a_candidate() {
        for class in 0..18u32 {
            let depths: &[u32] = if class >= 9 { &[16, 8] } else { &[] };
            let cands: Vec<Choice> = CANDIDATES[(class % 9) as usize / 3]
                .iter()
                .map(|&t| Choice::Tiled(t))
                .chain(linalg_big::candidates(depths).map(Choice::Big))
                .collect();
            for kind in [
                DeviceKind::DiscreteGpu,
                DeviceKind::Cpu,
                DeviceKind::IntegratedGpu,
            ] {
                let c = default_choice(kind, class, depths, &cands);
                assert!(cands.contains(&c), "{kind:?} class {class}: {c:?}");
            }
            let gpu = default_choice(DeviceKind::DiscreteGpu, class, depths, &cands);
            match (class % 3, class >= 9) {
                (0, _) => assert_eq!(gpu, Choice::Tiled(MEDIUM)),
                (_, true) => assert_eq!(
                    gpu,
                    Choice::Big(BigCfg {
                        bk: 16,
                        quad: false
                    })
                ),
                (_, false) => assert_eq!(gpu, cands[0]),
            }
            assert_eq!(
                default_choice(DeviceKind::Cpu, class, depths, &cands),
                Choice::Tiled(MEDIUM)
            );
        }
        assert_eq!(
            default_choice(DeviceKind::Cpu, 0, &[], &[]),
            Choice::Tiled(SMALL)
        );
        // f64: the f64 kernel on GPUs of their own (its first tiling where the GPU fills,
        // 64 x 64 where it does not), the tiled kernel's medium tiles on CPUs.
        for class in 0..9u32 {
            let cands: Vec<Choice> = linalg_f64::candidates(class)
                .into_iter()
                .chain([linalg_f64::medium()])
                .map(Choice::F64)
                .chain([Choice::Tiled(MEDIUM)])
                .collect();
            let gpu = default_choice(DeviceKind::DiscreteGpu, class, &[], &cands);
            let want = if class % 3 == 0 {
                Choice::F64(linalg_f64::medium())
            } else {
                cands[0]
            };
            assert_eq!(gpu, want, "class {class}");
            assert_eq!(
                default_choice(DeviceKind::Cpu, class, &[], &cands),
                Choice::Tiled(MEDIUM)
            );
        }
    }

    fn tmp(name: &str) -> std::path::PathBuf {
        let d = std::env::temp_dir().join(format!("gpuarray-tiles-{name}-{}", std::process::id()));
        let _ = std::fs::remove_dir_all(&d);
        d
    }

    fn device(dir: &std::path::Path, trial: Trial) -> Device {
        let mut o = Options {
            pipeline_cache: PipelineCacheDir::Dir(dir.to_path_buf()),
            ..Options::default()
        };
        o.tuning.trial = trial;
        Device::with_options(o).expect("a device")
    }

    /// A 1024 x 1024 x 256 f32 product (2^28 multiply-adds: the smallest the trial takes,
    /// size class 0, square-ish, the large kernel a candidate: class 9) with the trial's
    /// choice on disk: a device opened later takes it without a trial, with `Trial::Cached`
    /// too; with `Trial::Off` the default table; and the product is right every way.
    #[test]
    fn a_choice_kept_on_disk_is_taken_without_a_trial() {
        let dir = tmp("kept");
        // A choice no trial makes by default on a CPU (the default table says medium).
        let choice = Choice::Tiled(CANDIDATES[0][1]);
        {
            let dev = device(&dir, Trial::Run);
            dev.tune_store()
                .put(&disk_key(DType::F32, 9), &encode(choice));
        }
        let (m, n, k) = (1024, 1024, 256);
        let a = |dev: &Device| dev.random_uniform_in::<f32>([m, k], -1.0, 1.0, 5).unwrap();
        let b = |dev: &Device| dev.random_uniform_in::<f32>([k, n], -1.0, 1.0, 6).unwrap();
        let mut results = Vec::new();
        for (mode, want) in [
            (Trial::Run, choice),
            (Trial::Cached, choice),
            (Trial::Off, Choice::Tiled(MEDIUM)),
        ] {
            let dev = device(&dir, mode);
            let c = a(&dev).matmul(&b(&dev)).unwrap();
            results.push(c.to_vec().unwrap());
            let state = dev.state::<crate::ops::linalg::LinalgState>();
            let got = lock(&state.tuned).get(&(DType::F32, 9)).copied();
            assert_eq!(got, Some(want), "{mode:?}");
        }
        assert_eq!(results[0], results[1]);
        // Another tiling sums in the same order along K: the same bits.
        assert_eq!(results[0], results[2]);
        // A value the family no longer takes is ignored: the default table (Cached).
        let dev = device(&dir, Trial::Cached);
        dev.tune_store()
            .put(&disk_key(DType::F32, 9), "tiled 8,8,8,4,4");
        let dev = device(&dir, Trial::Cached);
        a(&dev).matmul(&b(&dev)).unwrap();
        let state = dev.state::<crate::ops::linalg::LinalgState>();
        assert_eq!(
            lock(&state.tuned).get(&(DType::F32, 9)).copied(),
            Some(Choice::Tiled(MEDIUM))
        );
        std::fs::remove_dir_all(&dir).unwrap();
    }

    /// An f64 product large enough for the trial (1024 x 256 x 1024, class 0) takes an f64
    /// tiling kept on disk, and agrees with the default table's choice on a CPU (the tiled
    /// kernel's medium tiles) to f64 rounding.
    #[test]
    fn an_f64_choice_kept_on_disk_is_taken() {
        let dir = tmp("kept-f64");
        let choice = Choice::F64(linalg_f64::candidates(0)[1]);
        let probe = device(&dir, Trial::Run);
        if !probe.supports::<f64>() {
            return;
        }
        probe
            .tune_store()
            .put(&disk_key(DType::F64, 0), &encode(choice));
        drop(probe);
        let (m, n, k) = (1024, 1024, 256);
        let mut results = Vec::new();
        for (mode, want) in [(Trial::Cached, choice), (Trial::Off, Choice::Tiled(MEDIUM))] {
            let dev = device(&dir, mode);
            let a = dev.random_uniform_in::<f64>([m, k], -1.0, 1.0, 5).unwrap();
            let b = dev.random_uniform_in::<f64>([k, n], -1.0, 1.0, 6).unwrap();
            results.push(a.matmul(&b).unwrap().to_vec().unwrap());
            let state = dev.state::<crate::ops::linalg::LinalgState>();
            let got = lock(&state.tuned).get(&(DType::F64, 0)).copied();
            assert_eq!(got, Some(want), "{mode:?}");
        }
        let worst = results[0]
            .iter()
            .zip(&results[1])
            .map(|(x, y)| (x - y).abs())
            .fold(0.0, f64::max);
        assert!(worst < 1e-12, "{worst}");
        std::fs::remove_dir_all(&dir).unwrap();
    }

    /// With nothing on disk the trial runs once, writes its choice, and a device opened
    /// later (with `Trial::Cached`: no timing) takes the same choice.
    #[test]
    fn a_trial_writes_its_choice_for_the_next_process() {
        let dir = tmp("trial");
        let a = |dev: &Device| {
            dev.random_uniform_in::<f32>([1024, 256], -1.0, 1.0, 7)
                .unwrap()
        };
        let b = |dev: &Device| {
            dev.random_uniform_in::<f32>([256, 1024], -1.0, 1.0, 8)
                .unwrap()
        };
        let dev = device(&dir, Trial::Run);
        let c = a(&dev).matmul(&b(&dev)).unwrap().to_vec().unwrap();
        let state = dev.state::<crate::ops::linalg::LinalgState>();
        let chosen = lock(&state.tuned)
            .get(&(DType::F32, 9))
            .copied()
            .expect("a choice");
        let kept = dev
            .tune_store()
            .get(&disk_key(DType::F32, 9))
            .expect("written");
        assert_eq!(decode(&kept), Some(chosen));
        let path = dev.tune_store().path().expect("a file").to_path_buf();
        assert!(std::fs::read_to_string(&path).unwrap().contains(&kept));
        let later = device(&dir, Trial::Cached);
        let c2 = a(&later).matmul(&b(&later)).unwrap().to_vec().unwrap();
        let state = later.state::<crate::ops::linalg::LinalgState>();
        assert_eq!(
            lock(&state.tuned).get(&(DType::F32, 9)).copied(),
            Some(chosen)
        );
        assert_eq!(c, c2);
        std::fs::remove_dir_all(&dir).unwrap();
    }
}
