//! The memory pool (bytes in use and held, reuse, free_all_blocks, limits) and the batching
//! of work into submits. Every test opens its own `Device`, so that the counters see only
//! its own work while other tests run in parallel threads.

#[macro_use]
mod common;

use common::*;
use gpuarray::device::BATCH_DISPATCHES;
use gpuarray::{Device, Error};
use std::ops::Deref;
use std::sync::{Mutex, MutexGuard};

/// A device of the test's own, so that its counters see only its own work. At most one
/// exists at a time: NVIDIA's Linux Vulkan driver was seen to hang with about ten devices in
/// use at once in one process (see `Device`'s docs).
struct Fresh {
    dev: Device,
    _serial: MutexGuard<'static, ()>,
}

impl Deref for Fresh {
    type Target = Device;
    fn deref(&self) -> &Device {
        &self.dev
    }
}

fn fresh() -> Fresh {
    static SERIAL: Mutex<()> = Mutex::new(());
    let serial = SERIAL.lock().unwrap_or_else(|p| p.into_inner());
    Fresh {
        dev: Device::new().expect("device"),
        _serial: serial,
    }
}

/// The pool rounds a request up to a size class: never below the request, at most double it
/// (256 bytes at least).
#[track_caller]
fn assert_class(delta: u64, bytes: u64) {
    assert!(
        delta >= bytes && delta <= (2 * bytes).max(256),
        "{bytes} bytes took {delta} bytes of the pool"
    );
}

#[test]
fn used_and_total_bytes_follow_arrays() {
    let dev = fresh();
    let pool = dev.memory_pool();
    assert_eq!(
        (pool.used_bytes(), pool.total_bytes(), pool.n_free_blocks()),
        (0, 0, 0)
    );
    assert_eq!(pool.limit(), None);

    // Past the slab sub-allocation size: a buffer of its own.
    let a = dev.zeros::<f32>([2000]).unwrap();
    let used_a = pool.used_bytes();
    assert_class(used_a, 8000);
    assert_eq!(pool.total_bytes(), used_a);

    let b = dev.zeros::<i32>([6, 100_000]).unwrap();
    let used_ab = pool.used_bytes();
    assert_class(used_ab - used_a, 2_400_000);

    // Views and clones share the buffer: no new bytes, and the buffer lives while they do.
    let views = (
        a.clone(),
        a.t(),
        a.slice(1..).unwrap(),
        a.reshape([20, 100]).unwrap(),
    );
    assert_eq!(pool.used_bytes(), used_ab);
    drop(a);
    assert_eq!(pool.used_bytes(), used_ab);
    drop(views);
    assert_eq!(pool.used_bytes(), used_ab - used_a);
    // The dropped buffer is cached for reuse.
    assert_eq!(pool.total_bytes(), used_ab);
    assert_eq!(pool.n_free_blocks(), 1);

    drop(b);
    assert_eq!(pool.used_bytes(), 0);
    assert_eq!(pool.total_bytes(), used_ab);
    assert_eq!(pool.n_free_blocks(), 2);

    pool.free_all_blocks();
    assert_eq!(
        (pool.used_bytes(), pool.total_bytes(), pool.n_free_blocks()),
        (0, 0, 0)
    );
    still_works(&dev);
}

#[test]
fn buffers_are_reused() {
    let dev = fresh();
    let pool = dev.memory_pool();
    let mut rng = Rng::new(1);
    let mut total = None;
    for round in 0..20 {
        let (a, ha) = upload::<f32>(&dev, &rng.vec(10_000, -1.0, 1.0), &[10_000]);
        let b = a.mul_scalar(2.0).unwrap();
        let e: Vec<f64> = ha.iter().map(|x| f32::wrap(2.0 * x)).collect();
        assert_close(&host(&b), &e, 0.0, 0.0);
        drop((a, b));
        assert_eq!(pool.used_bytes(), 0);
        match total {
            None => total = Some(pool.total_bytes()),
            Some(t) => assert_eq!(pool.total_bytes(), t, "round {round}: the pool grew"),
        }
    }
    // Sizes of one class share buffers too.
    let t = pool.total_bytes();
    for n in [9_000usize, 9_500, 10_000] {
        drop(dev.zeros::<f32>([n]).unwrap());
    }
    assert_eq!(pool.total_bytes(), t);
}

/// Reusing a dropped array's buffer while work that reads it is still pending must not
/// change that work's result (queue order).
#[test]
fn reuse_while_work_is_pending() {
    let dev = fresh();
    let mut rng = Rng::new(2);
    let n = 4096;
    let (a, ha) = upload::<f32>(&dev, &rng.vec(n, -1.0, 1.0), &[n]);
    let (b, hb) = upload::<f32>(&dev, &rng.vec(n, -1.0, 1.0), &[n]);
    let c = a.add(&b).unwrap();
    let submits = dev.stats().submits;
    drop((a, b));
    // These take the buffers a and b had, and overwrite them, before anything is submitted.
    let d = dev.full::<f32>([n], 99.0).unwrap();
    let (e, he) = upload::<f32>(&dev, &rng.vec(n, -1.0, 1.0), &[n]);
    assert_eq!(dev.stats().submits, submits, "nothing was submitted yet");
    let expected: Vec<f64> = ha.iter().zip(&hb).map(|(x, y)| f32::wrap(x + y)).collect();
    assert_close(&host(&c), &expected, 0.0, 0.0);
    assert_close(&host(&d), &vec![99.0; n], 0.0, 0.0);
    assert_close(&host(&e), &he, 0.0, 0.0);
}

#[test]
fn free_all_blocks_drops_cached_bytes() {
    let dev = fresh();
    let pool = dev.memory_pool();
    let keep = dev.ones::<f32>([5000]).unwrap();
    let used = pool.used_bytes();
    for n in [100usize, 10_000, 100_000, 1_000_000] {
        drop(dev.ones::<f32>([n]).unwrap());
    }
    assert!(pool.total_bytes() >= used + 4_000_000);
    assert_eq!(pool.n_free_blocks(), 4);
    pool.free_all_blocks();
    assert_eq!(pool.used_bytes(), used);
    assert_eq!(pool.total_bytes(), used);
    assert_eq!(pool.n_free_blocks(), 0);
    // The live array is untouched, and new allocations work.
    assert_close(&host(&keep.slice(4990..).unwrap()), &[1.0; 10], 0.0, 0.0);
    still_works(&dev);
}

#[test]
fn limit_makes_larger_allocations_fail() {
    let dev = fresh();
    let pool = dev.memory_pool();
    let small = dev.full::<f32>([1000], 3.0).unwrap();
    pool.set_limit(Some(2 << 20));
    assert_eq!(pool.limit(), Some(2 << 20));
    // Past the limit: OutOfMemory, with the request and the limit.
    let r = dev.zeros::<f32>([1 << 20]);
    match r {
        Err(Error::OutOfMemory {
            requested,
            used,
            limit,
        }) => {
            assert_eq!((requested, limit), (4 << 20, 2 << 20));
            assert_eq!(used, pool.used_bytes());
        }
        other => panic!("expected OutOfMemory, got {other:?}"),
    }
    // Ops whose output does not fit fail the same way; nothing is left reserved.
    let used = pool.used_bytes();
    let r = small.broadcast_to([1000, 1000]).unwrap().add_scalar(1.0);
    assert!(matches!(r, Err(Error::OutOfMemory { .. })), "{r:?}");
    assert_eq!(pool.used_bytes(), used);
    // Below the limit everything works.
    let fits = dev.full::<f32>([256 << 10], 1.0).unwrap(); // 1 MiB
    assert_close(&host(&fits.slice(..3).unwrap()), &[1.0; 3], 0.0, 0.0);
    assert_close(
        &host(&small.add_scalar(1.0).unwrap().slice(..2).unwrap()),
        &[4.0; 2],
        0.0,
        0.0,
    );
    // Lifting the limit lets the larger allocation succeed.
    pool.set_limit(None);
    assert_eq!(pool.limit(), None);
    let big = dev.full::<f32>([1 << 20], 2.0).unwrap();
    assert_close(
        &host(&big.slice((1 << 20) - 2..).unwrap()),
        &[2.0; 2],
        0.0,
        0.0,
    );
}

/// At the limit, cached buffers are released to make room before an allocation fails.
#[test]
fn limit_releases_cached_buffers() {
    let dev = fresh();
    let pool = dev.memory_pool();
    pool.set_limit(Some(8 << 20));
    drop(dev.zeros::<f32>([1 << 20]).unwrap()); // 4 MiB, now cached
    assert_eq!(pool.n_free_blocks(), 1);
    assert_eq!(pool.used_bytes(), 0);
    // 6 MiB of another class: fits only once the cached 4 MiB go.
    let b = dev.full::<f32>([6 << 18], 5.0).unwrap();
    assert!(pool.total_bytes() <= 8 << 20, "{:?}", pool);
    assert_close(&host(&b.slice(..2).unwrap()), &[5.0; 2], 0.0, 0.0);
    // With 6 MiB in use another 4 MiB does not fit.
    assert!(matches!(
        dev.zeros::<f32>([1 << 20]),
        Err(Error::OutOfMemory { .. })
    ));
    drop(b);
    assert!(dev.zeros::<f32>([1 << 20]).is_ok());
    pool.set_limit(None);
}

/// Requests larger than the adapter's largest buffer are BufferTooLarge (nothing allocated).
#[test]
fn buffer_too_large() {
    let dev = fresh();
    let max = dev.limits().max_buffer_size;
    let n = (max / 4 + 1) as usize;
    match dev.zeros::<f32>([n]) {
        Err(Error::BufferTooLarge { requested, max: m }) => {
            assert_eq!(m, max);
            assert!(requested > max);
        }
        Err(Error::OutOfMemory { .. }) => {}
        other => panic!("expected BufferTooLarge, got {other:?}"),
    }
    // More elements than u32 indexes.
    let r = dev.zeros::<u32>([1 << 16, 1 << 16, 2]);
    assert!(matches!(r, Err(Error::BufferTooLarge { .. })), "{r:?}");
    assert_eq!(dev.memory_pool().used_bytes(), 0);
    still_works(&dev);
}

#[track_caller]
fn still_works(dev: &Device) {
    let x = dev.from_slice(&[1.5f32, -2.0, 4.0], [3]).unwrap();
    let y = x.mul_scalar(2.0).unwrap().add_scalar(1.0).unwrap();
    assert_close(&host(&y), &[4.0, -3.0, 9.0], 0.0, 0.0);
}

// ---------------------------------------------------------------------------------------
// Batching
// ---------------------------------------------------------------------------------------

/// A chain of 10 elementwise ops on small arrays, then to_vec: one submit, 10 dispatches.
#[test]
fn chain_of_ops_is_one_submit() {
    let dev = fresh();
    let before = dev.stats();
    let mut rng = Rng::new(3);
    let (x, hx) = upload::<f32>(&dev, &rng.vec(100, 0.5, 2.0), &[100]);
    let (y, hy) = upload::<f32>(&dev, &rng.vec(100, 0.5, 2.0), &[100]);
    assert_eq!(
        dev.stats().submits,
        before.submits,
        "uploads are batched too"
    );
    let mid = dev.stats();
    let z = x
        .add(&y) // 1
        .unwrap()
        .mul(&x) // 2
        .unwrap()
        .sub_scalar(0.25) // 3
        .unwrap()
        .abs() // 4
        .unwrap()
        .sqrt() // 5
        .unwrap()
        .maximum(&y) // 6
        .unwrap()
        .div(&x) // 7
        .unwrap()
        .exp() // 8
        .unwrap()
        .log() // 9
        .unwrap()
        .neg() // 10
        .unwrap();
    let after_ops = dev.stats();
    assert_eq!(
        after_ops.submits, before.submits,
        "ops record without submitting"
    );
    assert_eq!(after_ops.dispatches - mid.dispatches, 10);
    let got = host(&z);
    let after = dev.stats();
    assert_eq!(
        after.submits - before.submits,
        1,
        "one submit for the whole chain"
    );
    let expected: Vec<f64> = hx
        .iter()
        .zip(&hy)
        .map(|(&x, &y)| -((((x + y) * x - 0.25).abs().sqrt().max(y) / x).exp().ln()))
        .collect();
    assert_close(&got, &expected, 1e-6, 1e-5);
    // Reading again submits nothing new but a map; synchronizing with nothing pending too.
    dev.synchronize().unwrap();
    let s = dev.stats().submits;
    dev.synchronize().unwrap();
    assert_eq!(dev.stats().submits, s);
    // The same ops again compile no new pipeline.
    let p = dev.stats().pipelines;
    let _ = x.add(&y).unwrap().mul(&x).unwrap().to_vec().unwrap();
    assert_eq!(dev.stats().pipelines, p);
}

/// More dispatches than one batch holds: the batch is submitted on the way, and the result
/// is still right.
#[test]
fn long_chain_spans_batches() {
    let dev = fresh();
    let x = dev
        .from_slice(&[0.0f32, 1.0, -2.0, 100.0, 7.0], [5])
        .unwrap();
    let before = dev.stats();
    let steps = BATCH_DISPATCHES as usize + 100;
    let mut y = x.clone();
    for _ in 0..steps {
        y = y.add_scalar(1.0).unwrap();
    }
    let mid = dev.stats();
    assert_eq!(mid.dispatches - before.dispatches, steps as u64);
    assert_eq!(mid.submits - before.submits, 1, "a full batch is submitted");
    let e: Vec<f64> = [0.0, 1.0, -2.0, 100.0, 7.0]
        .iter()
        .map(|v| v + steps as f64)
        .collect();
    assert_close(&host(&y), &e, 0.0, 0.0);
    assert_eq!(dev.stats().submits - before.submits, 2);
}

/// synchronize submits pending work once; a read after it needs no further compute submit.
#[test]
fn synchronize_submits_pending_work() {
    let dev = fresh();
    let x = dev.ones::<i32>([1000]).unwrap().mul_scalar(3).unwrap();
    let s = dev.stats().submits;
    dev.synchronize().unwrap();
    assert_eq!(dev.stats().submits, s + 1);
    assert_close(&host(&x.slice(..4).unwrap()), &[3.0; 4], 0.0, 0.0);
}

/// An upload past one staging piece (64 MiB) goes in pieces with a few in flight: every
/// element arrives, the last piece short and not a whole word of pieces; and the array
/// written over again (the pieces' staging buffers reused) reads back the new values.
#[test]
fn upload_in_pieces_round_trips() {
    let dev = dev();
    let n = (16 << 20) + 3; // 64 MiB + 12 bytes of i32: two pieces
    let data: Vec<i32> = (0..n as i32)
        .map(|i| i.wrapping_mul(0x9e37_79b9u32 as i32))
        .collect();
    let x = dev.from_slice(&data, [n]).unwrap();
    assert!(x.to_vec().unwrap() == data, "first upload");
    let again: Vec<i32> = data.iter().map(|v| !v).collect();
    let y = dev.from_slice(&again, [n]).unwrap();
    let back = y.to_vec().unwrap();
    let bad = back.iter().zip(&again).position(|(a, b)| a != b);
    assert_eq!(bad, None, "second upload differs at that element");
    assert!(x.to_vec().unwrap() == data, "the first array unchanged");
}
