//! Long runs and memory: allocate/compute/drop steps keep the pool's bytes flat after a
//! warm-up and the process's resident memory bounded; the pool's limit is honoured; asking
//! for more than the device can hold is an error and later work still succeeds.
//!
//! `GPUARRAY_SOAK_STEPS` sets the number of steps (default 100,000, about 30 s on lavapipe);
//! the run prints the pool's bytes and the resident memory at the warm-up's peak, their
//! later peaks, and both at each tenth of the run (for the README's long-run figures).

#[macro_use]
mod common;

use common::*;
use gpuarray::{Device, Error};

fn env_usize(name: &str, default: usize) -> usize {
    std::env::var(name)
        .ok()
        .and_then(|v| v.parse().ok())
        .unwrap_or(default)
}

/// Resident set size of this process, in bytes (Linux; 0 elsewhere).
fn resident_bytes() -> u64 {
    std::fs::read_to_string("/proc/self/statm")
        .ok()
        .and_then(|s| {
            s.split_whitespace()
                .nth(1)
                .and_then(|v| v.parse::<u64>().ok())
        })
        .map_or(0, |pages| pages * 4096)
}

/// The tests of this file one at a time, each on a device of its own (so that pool
/// counters see only their own work).
fn serial() -> std::sync::MutexGuard<'static, ()> {
    static SERIAL: std::sync::Mutex<()> = std::sync::Mutex::new(());
    SERIAL.lock().unwrap_or_else(|p| p.into_inner())
}

#[test]
fn soak_allocate_compute_drop() {
    let _s = serial();
    let steps = env_usize("GPUARRAY_SOAK_STEPS", 100_000);
    let warm = (steps / 10).clamp(1, 2_000);
    let dev = Device::new().unwrap();
    let pool = dev.memory_pool();
    let mut rng = Rng::new(7);
    let start = std::time::Instant::now();
    let (mut warm_total, mut warm_rss, mut peak_total, mut peak_rss) = (0, 0, 0, 0);
    let mut checked = 0;
    // (step, pool total bytes, resident MiB) at each tenth of the run: flat in a long run.
    let mut tenths = Vec::new();
    for step in 0..steps {
        // Sizes from a few size classes, an odd element count each time.
        let n = 1 + (rng.next_u64() % 3000) as usize;
        let a = dev.full::<f32>([n], 1.5).unwrap();
        let b = dev.arange::<f32>(0.0, n as f32, 1.0).unwrap();
        let c = a.mul(&b).unwrap().add_scalar(1.0).unwrap();
        let s = c.sum().unwrap();
        if step % 64 == 0 {
            // sum of 1.5 i + 1 for i < n
            let e = 1.5 * (n * (n - 1) / 2) as f64 + n as f64;
            let got = s.to_scalar().unwrap() as f64;
            assert!((got - e).abs() <= 1e-5 * e, "step {step}: {got} vs {e}");
            let m = c.slice(n - 1..).unwrap().to_vec().unwrap()[0];
            assert_eq!(m, 1.5 * (n - 1) as f32 + 1.0, "step {step}");
            checked += 1;
        }
        drop((a, b, c, s));
        let (total, rss) = (pool.total_bytes(), resident_bytes());
        if step < warm {
            warm_total = warm_total.max(total);
            warm_rss = warm_rss.max(rss);
        } else {
            peak_total = peak_total.max(total);
            peak_rss = peak_rss.max(rss);
        }
        if (step + 1) % (steps / 10).max(1) == 0 {
            tenths.push((step + 1, total, rss >> 20));
        }
    }
    dev.synchronize().unwrap();
    eprintln!(
        "soak: {steps} steps ({checked} checked) in {:.1} s; pool total bytes: warm-up peak {warm_total}, later peak {peak_total}; resident: warm-up peak {} MiB, later peak {} MiB",
        start.elapsed().as_secs_f64(),
        warm_rss >> 20,
        peak_rss >> 20
    );
    eprintln!("soak: at each tenth (step, pool total bytes, resident MiB): {tenths:?}");
    // Flat: after the warm-up the pool never holds more than it did during it.
    assert!(
        peak_total <= warm_total,
        "pool grew from {warm_total} to {peak_total} bytes"
    );
    // Bounded: resident memory grows by less than 64 MiB after the warm-up.
    assert!(
        peak_rss <= warm_rss + (64 << 20),
        "resident memory grew from {warm_rss} to {peak_rss} bytes"
    );
    assert_eq!(pool.used_bytes(), 0);
}

/// `set_limit`: allocations and ops past it are OutOfMemory and leave nothing reserved;
/// the same work succeeds once memory is freed or the limit lifted.
#[test]
fn limit_is_honoured_in_a_loop() {
    let _s = serial();
    let dev = Device::new().unwrap();
    let pool = dev.memory_pool();
    pool.set_limit(Some(1 << 20));
    let mut live = Vec::new();
    let mut refused = 0;
    for i in 0..64 {
        match dev.full::<f32>([16 << 10], i as f32) {
            Ok(a) => live.push(a), // 64 KiB each
            Err(Error::OutOfMemory { limit, .. }) => {
                assert_eq!(limit, 1 << 20);
                refused += 1;
            }
            Err(e) => panic!("allocation {i}: {e:?}"),
        }
        assert!(pool.used_bytes() <= 1 << 20, "{:?}", pool);
        assert!(pool.total_bytes() <= 1 << 20, "{:?}", pool);
    }
    assert!(refused > 0 && !live.is_empty());
    // An op whose output does not fit fails the same way.
    let r = live[0].add(&live[0]);
    assert!(matches!(r, Err(Error::OutOfMemory { .. })), "{r:?}");
    let r = live[0]
        .reshape([128, 128])
        .unwrap()
        .matmul(&live[1].reshape([128, 128]).unwrap());
    assert!(matches!(r, Err(Error::OutOfMemory { .. })), "{r:?}");
    // Free half: work succeeds again.
    live.truncate(live.len() / 2);
    let y = live[0].add(&live[1]).unwrap();
    assert_close(&host(&y.slice(..2).unwrap()), &[1.0; 2], 0.0, 0.0);
    pool.set_limit(None);
    drop((live, y));
    assert_eq!(pool.used_bytes(), 0);
}

/// More than the device can hold, as one buffer (past the largest buffer) and as a pool
/// limit of the whole device: errors, then work still succeeds.
#[test]
fn more_than_the_device_has() {
    let _s = serial();
    let dev = Device::new().unwrap();
    let max = dev.limits().max_buffer_size;
    for shape in [
        vec![(max / 4) as usize + 1],
        vec![1 << 30, 1 << 30],
        vec![usize::MAX],
    ] {
        let r = dev.zeros::<f32>(shape.as_slice());
        assert!(
            matches!(
                r,
                Err(Error::OutOfMemory { .. } | Error::BufferTooLarge { .. })
            ),
            "{shape:?}: {r:?}"
        );
        let x = dev.from_slice(&[3.0f32, 4.0], [2]).unwrap();
        assert_close(&host(&x.mul(&x).unwrap()), &[9.0, 16.0], 0.0, 0.0);
    }
    assert_eq!(dev.memory_pool().used_bytes(), 0);
}
