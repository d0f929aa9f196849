//! histogram (uniform bins over a range or the data's own, given edges) and bincount
//! against a CPU reference, exactly (counts are integers): every dtype, sizes 0, 1, primes
//! and inputs spanning many workgroups, bin counts past one workgroup's 4096 (several
//! passes), values on the edges (the last bin closed, as NumPy), outside the range, NaN and
//! infinities (not counted), strided views as input, the bad arguments, and the same
//! counts on every run.

#[macro_use]
mod common;

use common::*;
use gpuarray::{f16, Array, Error};

/// The bin of x among ascending `edges` (NumPy's rule: half-open bins, the last closed).
fn bin_of(x: f64, edges: &[f64]) -> Option<usize> {
    let nb = edges.len() - 1;
    if !(x >= edges[0] && x <= edges[nb]) {
        return None;
    }
    if x == edges[nb] {
        return Some(nb - 1);
    }
    Some(edges.partition_point(|&e| e <= x) - 1)
}

fn reference(xs: &[f64], edges: &[f64]) -> Vec<u32> {
    let mut c = vec![0u32; edges.len() - 1];
    for &x in xs {
        if let Some(b) = bin_of(x, edges) {
            c[b] += 1;
        }
    }
    c
}

/// Values in [-1.2, 1.2] with the range's ends, edges, NaN and infinities mixed in.
fn values<T: Ty>(n: usize, seed: u64) -> Vec<f64> {
    let mut r = Rng::new(seed);
    (0..n)
        .map(|i| match (i % 17, T::FLOAT) {
            (0, true) => f64::NAN,
            (1, true) => f64::INFINITY,
            (2, _) => -1.0,
            (3, _) => 1.0,
            (4, _) => 0.0,
            (_, true) => r.uniform(-1.2, 1.2),
            (_, false) => r.int(-300, 300),
        })
        .collect()
}

fn uniform_bins<T: Ty>() {
    let dev = dev();
    for (s, &n) in [0usize, 1, 13, 4099, 300_007].iter().enumerate() {
        let (x, xs) = upload::<T>(dev, &values::<T>(n, s as u64), &[n]);
        for bins in [1usize, 7, 256, 5000] {
            let range = match (T::FLOAT, T::SIGNED) {
                (true, _) => (-1.0, 1.0),
                (false, true) => (-250.0, 250.0),
                (false, false) => (0.0, 250.0),
            };
            let (counts, edges) = x.histogram(bins, Some(range)).unwrap();
            let e = host(&edges);
            let step = (range.1 - range.0) / bins as f64;
            let mut want_e: Vec<f64> = (0..=bins)
                .map(|k| T::wrap(k as f64 * step + range.0))
                .collect();
            want_e[bins] = range.1;
            assert_eq!(e, want_e, "{} n {n} bins {bins}: edges", T::NAME);
            let got = counts.to_vec().unwrap();
            assert_eq!(got, reference(&xs, &e), "{} n {n} bins {bins}", T::NAME);
        }
    }
}

fn data_range_and_edges<T: Ty>() {
    let dev = dev();
    let mut r = Rng::new(3);
    let vals: Vec<f64> = if T::FLOAT {
        r.vec(1031, -5.0, 5.0)
    } else {
        r.ints(1031, -5, 5)
    };
    let (x, xs) = upload::<T>(dev, &vals, &[1031]);
    let (counts, edges) = x.histogram(10, None).unwrap();
    let e = host(&edges);
    let lo = xs.iter().cloned().fold(f64::INFINITY, f64::min);
    let hi = xs.iter().cloned().fold(f64::NEG_INFINITY, f64::max);
    assert_eq!((e[0], e[10]), (lo, hi));
    let c = counts.to_vec().unwrap();
    assert_eq!(c, reference(&xs, &e));
    assert_eq!(c.iter().sum::<u32>(), 1031, "every element in some bin");
    // Given, uneven edges.
    let (edges, es) = upload::<T>(dev, &[-4.0, -1.0, 0.0, 0.5, 3.0], &[5]);
    assert_eq!(
        x.histogram_edges(&edges).unwrap().to_vec().unwrap(),
        reference(&xs, &es)
    );
    // A strided view as input.
    let v = x.slice(vec![gpuarray::Slice::new(3, None, 7)]).unwrap();
    let vs: Vec<f64> = xs.iter().skip(3).step_by(7).cloned().collect();
    assert_eq!(
        v.histogram_edges(&edges).unwrap().to_vec().unwrap(),
        reference(&vs, &es)
    );
}

per_dtype! {
    [f32_: f32, f16_: f16, f64_: f64, i32_: i32, u32_: u32] => {
        uniform_bins_match_numpy => uniform_bins::<T>();
        data_range_and_given_edges => data_range_and_edges::<T>();
    }
}

fn bincount_of<T: Ty>(vals: &[f64], minlength: usize) {
    let (x, xs) = upload::<T>(dev(), vals, &[vals.len()]);
    let top = xs.iter().map(|&v| v as usize + 1).max().unwrap_or(0);
    let mut want = vec![0u32; top.max(minlength)];
    for &v in &xs {
        want[v as usize] += 1;
    }
    assert_eq!(
        x.bincount(minlength).unwrap().to_vec().unwrap(),
        want,
        "{} n {}",
        T::NAME,
        vals.len()
    );
}

#[test]
fn bincount_matches_numpy() {
    let mut r = Rng::new(8);
    for n in [0usize, 1, 17, 65537, 300_007] {
        let v = r.ints(n, 0, 1023);
        bincount_of::<u32>(&v, 0);
        bincount_of::<i32>(&v, 2000);
    }
    // Many bins: several passes of 3072.
    bincount_of::<u32>(&r.ints(100_003, 0, 9000), 0);
    bincount_of::<u32>(&[], 5);
}

/// Inputs long enough that every workgroup's chunk holds whole batches of 8 elements an
/// invocation (over a million elements) besides a remainder: uniform bins of f32 and i32
/// (NaN, inf and values outside the range included) and bincount of u32, against the host.
#[test]
fn long_inputs_batched_loads() {
    let n = 3_000_017;
    let (x, xs) = upload::<f32>(dev(), &values::<f32>(n, 31), &[n]);
    let (counts, edges) = x.histogram(256, Some((-1.0, 1.0))).unwrap();
    let want = reference(&xs, &host(&edges));
    assert_eq!(counts.to_vec().unwrap(), want);
    let (x, xs) = upload::<i32>(dev(), &values::<i32>(n, 32), &[n]);
    let (counts, edges) = x.histogram(100, Some((-250.0, 250.0))).unwrap();
    assert_eq!(counts.to_vec().unwrap(), reference(&xs, &host(&edges)));
    bincount_of::<u32>(&Rng::new(33).ints(n, 0, 700), 0);
}

#[test]
fn same_counts_every_run() {
    let x = dev().random_uniform::<f32>([200_003], 4).unwrap();
    let first = x
        .histogram(256, Some((0.0, 1.0)))
        .unwrap()
        .0
        .to_vec()
        .unwrap();
    for _ in 0..9 {
        assert_eq!(
            x.histogram(256, Some((0.0, 1.0)))
                .unwrap()
                .0
                .to_vec()
                .unwrap(),
            first
        );
    }
}

#[test]
fn bad_arguments_leave_the_device_working() {
    let dev = dev();
    let x = dev.from_slice(&[1.0f32, 2.0, f32::NAN], [3]).unwrap();
    let bad = |r: gpuarray::Result<(Array<u32>, Array<f32>)>| {
        assert!(
            matches!(
                r,
                Err(Error::InvalidArgument {
                    op: "histogram",
                    ..
                })
            ),
            "{r:?}"
        );
    };
    bad(x.histogram(0, Some((0.0, 1.0))));
    bad(x.histogram(4, Some((2.0, 1.0))));
    bad(x.histogram(4, Some((f64::NAN, 1.0))));
    bad(x.histogram(4, Some((0.0, f64::INFINITY))));
    bad(x.histogram(4, None)); // the data hold NaN: no finite range
    let e = dev.from_slice(&[0.0f32, 2.0, 1.0], [3]).unwrap();
    assert!(matches!(
        x.histogram_edges(&e),
        Err(Error::InvalidArgument { .. })
    ));
    let e1 = dev.from_slice(&[0.0f32], [1]).unwrap();
    assert!(matches!(
        x.histogram_edges(&e1),
        Err(Error::InvalidArgument { .. })
    ));
    let neg = dev.from_slice(&[1i32, -1], [2]).unwrap();
    assert!(matches!(
        neg.bincount(0),
        Err(Error::InvalidArgument { op: "bincount", .. })
    ));
    assert!(matches!(
        x.bincount(0),
        Err(Error::InvalidArgument { op: "bincount", .. })
    ));
    // lo == hi widens to [lo - 0.5, hi + 0.5], as NumPy.
    let one = dev.from_slice(&[3.0f32, 3.0], [2]).unwrap();
    let (c, e) = one.histogram(2, None).unwrap();
    assert_eq!(e.to_vec().unwrap(), vec![2.5, 3.0, 3.5]);
    assert_eq!(c.to_vec().unwrap(), vec![0, 2]);
    assert_eq!(x.to_vec().unwrap()[..2], [1.0, 2.0]);
}
