//! Small arrays share slab buffers: their cost in memory, the pool's exact statistics, and
//! that writing one array never touches its neighbours in a slab (clears, uploads,
//! elementwise ops, user kernels writing in place), on the default device and on one that
//! reads small arrays through a copy kernel. Zero-byte arrays never count against the limit.
//! Every test opens its own device, one at a time, so that the pool's counters and the
//! resident memory see only its own work.

#[macro_use]
mod common;

use std::sync::{Mutex, MutexGuard};

use common::*;
use gpuarray::config::{Options, SmallRead};
use gpuarray::custom::{ElementwiseKernel, RawKernel};
use gpuarray::{Array, Device, Error};

/// Bytes of one slab, and the slot granularity (the pool's documented constants).
const SLAB: u64 = 64 << 10;
const SLOT: u64 = 256;

fn serial() -> MutexGuard<'static, ()> {
    static SERIAL: Mutex<()> = Mutex::new(());
    SERIAL.lock().unwrap_or_else(|p| p.into_inner())
}

/// Returns the heap's free memory to the system (glibc), so that resident memory measures
/// what is live rather than what the allocator kept.
fn trim_heap() {
    #[cfg(all(target_os = "linux", target_env = "gnu"))]
    {
        unsafe extern "C" {
            fn malloc_trim(pad: usize) -> i32;
        }
        // SAFETY: malloc_trim only releases free heap memory.
        unsafe {
            malloc_trim(0);
        }
    }
}

/// Resident set size of this process, in bytes (Linux).
fn resident_bytes() -> u64 {
    let statm = std::fs::read_to_string("/proc/self/statm").expect("/proc/self/statm");
    let pages: u64 = statm.split_whitespace().nth(1).unwrap().parse().unwrap();
    pages * 4096
}

/// 100,000 live one-element arrays: under 64 MiB of resident growth (each once took a
/// buffer of its own, about 4 KiB resident on lavapipe: 408 MiB), values right, and the
/// pool's bytes exact and back to nothing once they are dropped. A first round, made and
/// dropped before the baseline, grows what the driver and wgpu keep for reuse whatever the
/// arrays (about 30 MiB on lavapipe after 100,000 launches), so that the second round
/// measures what live arrays cost; the heap's free memory is returned before measuring.
#[test]
fn a_hundred_thousand_one_element_arrays() {
    let _s = serial();
    let dev = Device::new().unwrap();
    let pool = dev.memory_pool();
    let n = 100_000usize;
    let make = || -> Vec<Array<f32>> {
        let a = (0..n)
            .map(|i| dev.full::<f32>([1], i as f32 - 0.5).unwrap())
            .collect();
        dev.synchronize().unwrap();
        a
    };
    let first = resident_bytes();
    drop(make());
    pool.free_all_blocks();
    trim_heap();
    let before = resident_bytes();
    let arrays = make();
    trim_heap();
    let grown = resident_bytes().saturating_sub(before);
    eprintln!(
        "slabs: {n} one-element arrays: resident +{:.1} MiB (first round +{:.1} MiB), pool used {} B, total {} B",
        grown as f64 / (1 << 20) as f64,
        before.saturating_sub(first) as f64 / (1 << 20) as f64,
        pool.used_bytes(),
        pool.total_bytes()
    );
    assert!(grown < 64 << 20, "resident memory grew by {grown} bytes");
    // Exact statistics: one 256-byte slot each, whole slabs held.
    assert_eq!(pool.used_bytes(), n as u64 * SLOT);
    let slabs = (n as u64).div_ceil(SLAB / SLOT);
    assert_eq!(pool.total_bytes(), slabs * SLAB);
    let mut rng = Rng::new(5);
    for _ in 0..200 {
        let i = rng.next_u64() as usize % n;
        assert_eq!(
            arrays[i].to_vec().unwrap(),
            vec![i as f32 - 0.5],
            "array {i}"
        );
    }
    drop(arrays);
    assert_eq!(pool.used_bytes(), 0);
    assert_eq!(
        pool.n_free_blocks(),
        slabs as usize,
        "every slab is empty and cached"
    );
    pool.free_all_blocks();
    assert_eq!((pool.total_bytes(), pool.n_free_blocks()), (0, 0));
    trim_heap();
    eprintln!(
        "slabs: after dropping them and free_all_blocks: resident +{:.1} MiB over the baseline",
        resident_bytes().saturating_sub(before) as f64 / (1 << 20) as f64
    );
    // The emptied pool serves new arrays.
    let x = dev.from_slice(&[1.0f32, 2.0], [2]).unwrap();
    assert_eq!(x.add_scalar(1.0).unwrap().to_vec().unwrap(), vec![2.0, 3.0]);
}

/// used_bytes counts slots, total_bytes whole slabs; a freed slot is reused; an empty slab
/// is a cached block until free_all_blocks; requests past the sub-allocation size take
/// buffers of their own.
#[test]
fn slab_statistics_are_exact() {
    let _s = serial();
    let dev = Device::new().unwrap();
    let pool = dev.memory_pool();
    // 1 element (a 256-byte slot), 64 (256 bytes exactly), 65 (260: a 512-byte slot),
    // 1024 (4 KiB, the largest slot); 1025 takes a buffer of its own (8 KiB).
    let a = dev.zeros::<f32>([1]).unwrap();
    assert_eq!((pool.used_bytes(), pool.total_bytes()), (256, SLAB));
    let b = dev.zeros::<u32>([64]).unwrap();
    let c = dev.zeros::<i32>([65]).unwrap();
    let d = dev.zeros::<f32>([1024]).unwrap();
    assert_eq!(pool.used_bytes(), 256 + 256 + 512 + 4096);
    assert_eq!(pool.total_bytes(), 3 * SLAB, "one slab per slot size");
    let e = dev.zeros::<f32>([1025]).unwrap();
    assert_eq!(pool.used_bytes(), 256 + 256 + 512 + 4096 + 8192);
    assert_eq!(pool.total_bytes(), 3 * SLAB + 8192);
    // A freed slot is reused by the next request of its size.
    drop(b);
    let b2 = dev.zeros::<f32>([3]).unwrap();
    assert_eq!(pool.total_bytes(), 3 * SLAB + 8192);
    drop((a, b2, c, d, e));
    assert_eq!(pool.used_bytes(), 0);
    assert_eq!(
        pool.n_free_blocks(),
        4,
        "three empty slabs, one cached buffer"
    );
    // An empty slab is re-cut for another slot size rather than a new one made.
    let f = dev.zeros::<f32>([700]).unwrap(); // 2800 bytes: a 3072-byte slot
    assert_eq!(pool.total_bytes(), 3 * SLAB + 8192);
    drop(f);
    pool.free_all_blocks();
    assert_eq!((pool.used_bytes(), pool.total_bytes()), (0, 0));
}

/// Under a limit too small for a slab, a small array takes a buffer of its own the size of
/// its slot; past the limit it is OutOfMemory.
#[test]
fn small_arrays_under_a_tight_limit() {
    let _s = serial();
    let dev = Device::new().unwrap();
    let pool = dev.memory_pool();
    pool.set_limit(Some(1024));
    let x = dev.from_slice(&[7i32], [1]).unwrap();
    assert_eq!((pool.used_bytes(), pool.total_bytes()), (256, 256));
    let y = dev.from_slice(&[1i32, 2, 3], [3]).unwrap();
    let z = x.add(&y).unwrap();
    assert_eq!(z.to_vec().unwrap(), vec![8, 9, 10]);
    assert!(pool.total_bytes() <= 1024);
    let r = dev.zeros::<i32>([200]); // 800 bytes: a 1024-byte slot, past the limit
    assert!(matches!(r, Err(Error::OutOfMemory { .. })), "{r:?}");
    pool.set_limit(None);
    assert_eq!(
        dev.zeros::<i32>([200]).unwrap().to_vec().unwrap(),
        vec![0; 200]
    );
}

/// Zero-byte arrays take nothing from the pool: they work under a limit of 0 bytes.
#[test]
fn zero_byte_arrays_never_count() {
    let _s = serial();
    let dev = Device::new().unwrap();
    let pool = dev.memory_pool();
    pool.set_limit(Some(0));
    let a = dev.zeros::<f32>([0]).unwrap();
    let b = dev.from_slice::<i32>(&[], [3, 0]).unwrap();
    let c = dev.full::<u32>([0, 7], 3).unwrap();
    assert_eq!(
        (a.len(), b.shape(), c.shape()),
        (0, &[3, 0][..], &[0, 7][..])
    );
    assert!(a.add_scalar(1.0).unwrap().to_vec().unwrap().is_empty());
    assert!(b.to_vec().unwrap().is_empty());
    assert!(c.t().to_vec().unwrap().is_empty());
    assert_eq!((pool.used_bytes(), pool.total_bytes()), (0, 0));
    // One element does not fit a limit of 0.
    let r = dev.zeros::<f32>([1]);
    assert!(matches!(r, Err(Error::OutOfMemory { .. })), "{r:?}");
    drop((a, b, c));
    assert_eq!((pool.used_bytes(), pool.total_bytes()), (0, 0));
    pool.set_limit(None);
    assert_eq!(
        dev.ones::<f32>([2]).unwrap().to_vec().unwrap(),
        vec![1.0; 2]
    );
}

/// Neighbours in one slab, each with its own values: (array, expected values).
struct Neighbours {
    arrays: Vec<Array<i32>>,
    expected: Vec<Vec<i32>>,
}

impl Neighbours {
    /// `count` arrays of `len` elements, made one after another (so they share a slab).
    fn new(dev: &Device, count: usize, len: usize) -> Neighbours {
        let expected: Vec<Vec<i32>> = (0..count)
            .map(|k| (0..len).map(|i| (1000 * k + i) as i32 + 1).collect())
            .collect();
        let arrays = expected
            .iter()
            .map(|v| dev.from_slice(v, [len]).unwrap())
            .collect();
        Neighbours { arrays, expected }
    }

    #[track_caller]
    fn check(&self, what: &str) {
        for (k, (a, e)) in self.arrays.iter().zip(&self.expected).enumerate() {
            assert_eq!(&a.to_vec().unwrap(), e, "{what}: array {k}");
        }
    }
}

/// Writing a small array never touches its neighbours in the slab: clears and uploads of
/// new neighbours, elementwise ops reading one neighbour and writing the next,
/// `ElementwiseKernel::call_into` and a `RawKernel` writing in place an array that shares
/// the slab with the arrays they read.
fn neighbours_are_untouched(dev: &Device) {
    let pool = dev.memory_pool();
    for len in [1usize, 3, 64, 65, 255, 1024] {
        let total = pool.total_bytes();
        let mut n = Neighbours::new(dev, 6, len);
        if len <= 64 {
            // All six (and the arrays below) in one slab: no new slab was needed.
            assert!(pool.total_bytes() <= total + SLAB, "len {len}");
        }
        n.check("uploads");
        // Clears of new neighbours.
        let zeros: Vec<Array<i32>> = (0..3).map(|_| dev.zeros::<i32>([len]).unwrap()).collect();
        n.check("clears");
        for z in &zeros {
            assert_eq!(z.to_vec().unwrap(), vec![0; len]);
        }
        // Elementwise ops: outputs next to their inputs.
        let sum = n.arrays[0].add(&n.arrays[1]).unwrap();
        let neg = n.arrays[2].neg().unwrap();
        let e: Vec<i32> = n.expected[0]
            .iter()
            .zip(&n.expected[1])
            .map(|(a, b)| a + b)
            .collect();
        assert_eq!(sum.to_vec().unwrap(), e);
        let e: Vec<i32> = n.expected[2].iter().map(|a| -a).collect();
        assert_eq!(neg.to_vec().unwrap(), e);
        n.check("elementwise");
        // call_into: the output is array 3, the input array 4 (the same slab).
        let k = ElementwiseKernel::new(dev, "T x", "T y", "y = y * 2 + x;", "twice_plus").unwrap();
        k.call_into(&[&n.arrays[4]], &n.arrays[3]).unwrap();
        n.expected[3] = n.expected[3]
            .iter()
            .zip(&n.expected[4])
            .map(|(y, x)| y * 2 + x)
            .collect();
        n.check("ElementwiseKernel::call_into");
        // A raw kernel reading arrays 0 and 1, writing array 5 in place.
        let raw = RawKernel::new(dev, RAW, "mix").unwrap();
        raw.launch(
            len.div_ceil(64) as u32,
            &[&n.arrays[0], &n.arrays[1], &n.arrays[5], &(len as u32)],
        )
        .unwrap();
        n.expected[5] = (0..len)
            .map(|i| n.expected[5][i] + n.expected[0][i] - n.expected[1][i])
            .collect();
        n.check("RawKernel");
        // A reduction's output next to its input.
        let s = n.arrays[2].sum().unwrap();
        assert_eq!(s.to_scalar().unwrap(), n.expected[2].iter().sum::<i32>());
        n.check("sum");
    }
}

const RAW: &str = r#"
@group(0) @binding(0) var<storage, read> a: array<i32>;
@group(0) @binding(1) var<storage, read> b: array<i32>;
@group(0) @binding(2) var<storage, read_write> y: array<i32>;
@group(0) @binding(3) var<uniform> n: u32;
@compute @workgroup_size(64)
fn mix(@builtin(global_invocation_id) id: vec3<u32>) {
    if (id.x < n) { y[id.x] = y[id.x] + a[id.x] - b[id.x]; }
}"#;

#[test]
fn neighbours_in_a_slab_are_untouched() {
    let _s = serial();
    neighbours_are_untouched(&Device::new().unwrap());
}

#[test]
fn neighbours_in_a_slab_are_untouched_reading_by_kernel() {
    let _s = serial();
    let mut opts = Options::default();
    opts.tuning.small_read = SmallRead::Kernel;
    neighbours_are_untouched(&Device::with_options(opts).unwrap());
}
