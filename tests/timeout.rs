//! A wait that times out leaves the device failed, never hung: every later call returns a
//! typed error at once, and a new device works. Every step runs under a watchdog, so a hang
//! fails the test instead of blocking the run.

#[macro_use]
mod common;

use std::sync::mpsc;
use std::time::{Duration, Instant};

use gpuarray::custom::RawKernel;
use gpuarray::{Device, Error};

/// A kernel whose run time grows with its grid: each invocation runs 60,000 rounds
/// (lavapipe cuts an invocation's loops short at 65,535 iterations in all), its result
/// used so that nothing is optimised away.
const SPIN: &str = r#"
@group(0) @binding(0) var<storage, read_write> y: array<f32>;
@group(0) @binding(1) var<uniform> n: u32;
@compute @workgroup_size(64)
fn spin(@builtin(global_invocation_id) id: vec3<u32>) {
    var acc = f32(id.x);
    for (var i = 0u; i < n; i++) {
        for (var j = 0u; j < 1000u; j++) {
            acc = acc * 0.9999999 + 0.5;
        }
    }
    if (acc == 1234.5) {
        y[0] = acc;
    }
}"#;

/// Outer rounds of [`SPIN`].
const ROUNDS: u32 = 60;

/// Runs `f` on a thread of its own; fails if it takes longer than `limit` (a hang).
fn watchdog<R: Send + 'static>(
    what: &str,
    limit: Duration,
    f: impl FnOnce() -> R + Send + 'static,
) -> R {
    let (tx, rx) = mpsc::channel();
    let body = std::thread::spawn(move || {
        let _ = tx.send(f());
    });
    match rx.recv_timeout(limit) {
        Ok(r) => r,
        Err(mpsc::RecvTimeoutError::Disconnected) => match body.join() {
            Err(panic) => std::panic::resume_unwind(panic),
            Ok(()) => unreachable!("the body sends before it ends"),
        },
        Err(mpsc::RecvTimeoutError::Timeout) => {
            panic!("{what} did not return within {limit:?}: a hang")
        }
    }
}

/// Seconds one launch of [`SPIN`] over `groups` x 64 workgroups takes (the device's
/// timeout is generous).
fn spin_seconds(dev: &Device, k: &RawKernel, groups: u32) -> f64 {
    let y = dev.zeros::<f32>([1]).unwrap();
    let t = Instant::now();
    k.launch([groups, 64], &[&y, &ROUNDS]).unwrap();
    dev.synchronize().unwrap();
    t.elapsed().as_secs_f64()
}

#[test]
fn a_timeout_fails_the_device_at_once_and_never_hangs() {
    watchdog("the timeout test", Duration::from_secs(60), || {
        let dev = Device::new().unwrap();
        let k = RawKernel::new(&dev, SPIN, "spin").unwrap();
        // Calibrate: a launch of about 6 s, whatever the machine's speed.
        let mut groups = 1u32;
        let mut secs = spin_seconds(&dev, &k, groups);
        while secs < 0.3 && groups < 1024 {
            groups *= 4;
            secs = spin_seconds(&dev, &k, groups);
        }
        let groups = ((groups as f64) * 6.0 / secs).clamp(1.0, 65_535.0) as u32;
        let keep = dev.from_slice(&[1.0f32, 2.0, 3.0], [3]).unwrap();
        dev.set_timeout(Duration::from_secs(1));
        let y = dev.zeros::<f32>([1]).unwrap();
        k.launch([groups, 64], &[&y, &ROUNDS]).unwrap();
        let t = Instant::now();
        let r = y.to_vec();
        let waited = t.elapsed();
        assert!(
            matches!(r, Err(Error::Timeout { seconds }) if seconds == 1.0),
            "{r:?} after {waited:?} (calibrated {groups} x 64 groups, {secs:.2} s before)"
        );
        assert!(waited < Duration::from_secs(4), "{waited:?}");
        // Every later call returns a typed error at once, without submitting again.
        let t = Instant::now();
        let lost = |r: gpuarray::Result<()>| matches!(r, Err(Error::DeviceLost(_)));
        assert!(lost(dev.synchronize()));
        assert!(lost(keep.to_vec().map(|_| ())));
        assert!(lost(keep.add_scalar(1.0).map(|_| ())));
        assert!(lost(dev.ones::<f32>([4]).map(|_| ())));
        assert!(lost(k.launch(1, &[&y, &ROUNDS])));
        assert!(lost(keep.sum().map(|_| ())));
        let msg = dev.synchronize().unwrap_err().to_string();
        assert!(
            msg.contains("timed out") && msg.contains("open another"),
            "{msg}"
        );
        assert!(t.elapsed() < Duration::from_secs(2), "{:?}", t.elapsed());
        // Dropping the device (which may wait for the kernel) and opening another works.
        let t = Instant::now();
        drop((keep, y, k, dev));
        eprintln!("timeout: dropping the failed device took {:?}", t.elapsed());
        let dev = Device::new().unwrap();
        let x = dev.from_slice(&[1.0f32, 2.0, 3.0], [3]).unwrap();
        assert_eq!(
            x.add_scalar(1.0).unwrap().to_vec().unwrap(),
            vec![2.0, 3.0, 4.0]
        );
    });
}

#[test]
fn set_timeout_reads_back() {
    let dev = common::dev();
    let before = dev.timeout();
    assert_eq!(before, dev.options().timeout);
    // Fractional seconds; a longer limit leaves short work untouched.
    dev.set_timeout(Duration::from_secs_f64(123.5));
    assert_eq!(dev.timeout(), Duration::from_millis(123_500));
    let x = dev.full::<i32>([5], 7).unwrap();
    assert_eq!(x.to_vec().unwrap(), vec![7; 5]);
    dev.set_timeout(before);
    assert_eq!(dev.timeout(), before);
}
