//! The stateful `Generator`: its integer outputs (integers, choice indices, permutations)
//! and uniforms bit-exact against a CPU Philox4x32-10 over several draws in sequence, its
//! state (draws advance, clones and re-seeds repeat, failed draws advance nothing), zero-size
//! draws, typed errors for bad arguments, sampling of views; and (stats.rs) every
//! distribution's moments and a KS or chi-square test against its CPU CDF, all with fixed
//! seeds so that each test is deterministic and can fail.

#[path = "../common/mod.rs"]
#[macro_use]
mod common;
mod cpu;
mod stats;

use common::*;
use cpu::CpuGen;
use gpuarray::random::Generator;
use gpuarray::{f16, Array, Error};

/// The GPU's integers of a draw, as u32 bits.
/// The CPU generator's u32 indices as the i64 the index functions return.
fn wide(v: &[u32]) -> Vec<i64> {
    v.iter().map(|&i| i64::from(i)).collect()
}

fn bits_i32(a: &Array<i32>) -> Vec<u32> {
    a.to_vec().unwrap().iter().map(|&x| x as u32).collect()
}

#[track_caller]
fn assert_same<T: PartialEq + std::fmt::Debug>(what: &str, got: &[T], expected: &[T]) {
    assert_eq!(got.len(), expected.len(), "{what}: length");
    if let Some(i) = (0..got.len()).find(|&i| got[i] != expected[i]) {
        panic!(
            "{what}: element {i} is {:?}, expected {:?} ({} of {} differ)",
            got[i],
            expected[i],
            (0..got.len()).filter(|&i| got[i] != expected[i]).count(),
            got.len()
        );
    }
}

/// Draws of several kinds in sequence, each checked bit for bit and the counter after it.
/// The u32 range 2^31 + 12345 rejects almost half the first words, so the private-stream
/// redraws are exercised; i32::MIN..i32::MAX and 0..u32::MAX are ranges one short of 2^32.
#[test]
fn draws_in_sequence_are_bit_exact() {
    let dev = dev();
    for seed in [0u64, 42, 0xDEAD_BEEF_1234_5678, u64::MAX] {
        let mut g = dev.default_rng(seed);
        let mut c = CpuGen::new(seed);
        let got = bits_i32(&g.integers::<i32>([1001], -3, 4).unwrap());
        assert_same("i32 [-3, 4)", &got, &c.integers(1001, (-3i32) as u32, 7));
        let r = (1u32 << 31) + 12345;
        let got = g
            .integers::<u32>([7, 13], 5, 5 + r)
            .unwrap()
            .to_vec()
            .unwrap();
        assert_same("u32 2^31 + 12345", &got, &c.integers(91, 5, r));
        let got = bits_i32(&g.integers::<i32>([257], i32::MIN, i32::MAX).unwrap());
        assert_same(
            "i32 full",
            &got,
            &c.integers(257, i32::MIN as u32, u32::MAX),
        );
        let got = g
            .integers::<u32>([3], 0, u32::MAX)
            .unwrap()
            .to_vec()
            .unwrap();
        assert_same("u32 full", &got, &c.integers(3, 0, u32::MAX));
        let got = g.random::<f32>([13]).unwrap().to_vec().unwrap();
        assert_same("f32", &got, &c.random_f32(13));
        if dev.supports::<f64>() {
            let got = g.random::<f64>([5]).unwrap().to_vec().unwrap();
            assert_same("f64", &got, &c.random_f64(5));
        }
        let got = g.choice(1 << 20, 9, true).unwrap().to_vec().unwrap();
        assert_same("choice", &got, &wide(&c.integers(9, 0, 1 << 20)));
        let got = g.permutation(1000).unwrap().to_vec().unwrap();
        assert_same("permutation", &got, &wide(&c.permutation(1000)));
        let got = g.choice(37, 11, false).unwrap().to_vec().unwrap();
        assert_same(
            "choice without replacement",
            &got,
            &wide(&c.permutation(37)[..11]),
        );
        assert_eq!(g.counter(), c.counter, "seed {seed:#x}");
    }
}

/// f16 uniforms are the top 11 bits of each word.
#[test]
fn f16_uniforms_are_bit_exact() {
    require_dtype!(f16);
    let mut g = dev().default_rng(11);
    let mut c = CpuGen::new(11);
    let got = g.random::<f16>([99]).unwrap().to_vec().unwrap();
    let e = c.each(99, 4, |g, b, e| {
        f16::from_f32((g.plain(b)[e] >> 21) as f32 / 2048.0)
    });
    assert_same("f16", &got, &e);
}

/// A fresh generator's uniforms and normals are the stateless functions' of the same seed.
#[test]
fn first_draw_matches_the_stateless_functions() {
    let dev = dev();
    let u = dev
        .default_rng(5)
        .random::<f32>([4099])
        .unwrap()
        .to_vec()
        .unwrap();
    assert_eq!(
        u,
        dev.random_uniform::<f32>([4099], 5)
            .unwrap()
            .to_vec()
            .unwrap()
    );
    let z = dev.default_rng(5).standard_normal::<f32>([4099]).unwrap();
    let e = dev.random_normal::<f32>([4099], 5).unwrap();
    let bits =
        |a: &Array<f32>| -> Vec<u32> { a.to_vec().unwrap().iter().map(|x| x.to_bits()).collect() };
    assert_same("standard_normal", &bits(&z), &bits(&e));
}

#[test]
fn draws_advance_and_clones_repeat() {
    let dev = dev();
    let mut g = dev.default_rng(77);
    let before = g.clone();
    let a = g.normal::<f32>([10], 0.0, 1.0).unwrap().to_vec().unwrap();
    let b = g.normal::<f32>([10], 0.0, 1.0).unwrap().to_vec().unwrap();
    assert!(a.iter().zip(&b).all(|(x, y)| x != y), "{a:?} {b:?}");
    assert_eq!(g.counter(), 6);
    let mut again = before.clone();
    assert_eq!(
        again
            .normal::<f32>([10], 0.0, 1.0)
            .unwrap()
            .to_vec()
            .unwrap(),
        a
    );
    let mut reseeded = dev.default_rng(77);
    reseeded.normal::<f32>([10], 0.0, 1.0).unwrap();
    assert_eq!(
        reseeded
            .normal::<f32>([10], 0.0, 1.0)
            .unwrap()
            .to_vec()
            .unwrap(),
        b
    );
    // A clone taken now repeats the original's next draws of every kind.
    let mut h = g.clone();
    let p = g.poisson([33], 12.5).unwrap().to_vec().unwrap();
    assert_eq!(h.poisson([33], 12.5).unwrap().to_vec().unwrap(), p);
    let x = g.gamma::<f32>([5], 0.3, 1.0).unwrap().to_vec().unwrap();
    assert_eq!(h.gamma::<f32>([5], 0.3, 1.0).unwrap().to_vec().unwrap(), x);
    assert_eq!((g.counter(), h.counter()), (6 + 9 + 2, 6 + 9 + 2));
    // Different seeds differ.
    let s = dev
        .default_rng(78)
        .random::<f32>([8])
        .unwrap()
        .to_vec()
        .unwrap();
    assert_ne!(
        s,
        dev.default_rng(77)
            .random::<f32>([8])
            .unwrap()
            .to_vec()
            .unwrap()
    );
}

/// Every draw of zero elements returns an empty array of the shape and uses no block.
#[test]
fn zero_size_draws() {
    let dev = dev();
    let mut g = dev.default_rng(1);
    for shape in [vec![0], vec![3, 0]] {
        let n = shape.clone();
        assert_eq!(g.random::<f32>(n.clone()).unwrap().shape(), &shape[..]);
        assert_eq!(g.uniform::<f32>(n.clone(), 1.0, 2.0).unwrap().len(), 0);
        assert_eq!(g.normal::<f32>(n.clone(), 0.0, 1.0).unwrap().len(), 0);
        assert_eq!(g.exponential::<f32>(n.clone(), 1.0).unwrap().len(), 0);
        assert_eq!(
            g.integers::<i32>(n.clone(), 0, 3).unwrap().shape(),
            &shape[..]
        );
        assert_eq!(g.bernoulli(n.clone(), 0.5).unwrap().len(), 0);
        assert_eq!(g.poisson(n.clone(), 50.0).unwrap().len(), 0);
        assert_eq!(g.binomial(n.clone(), 5, 0.5).unwrap().len(), 0);
        assert_eq!(g.gamma::<f32>(n.clone(), 2.0, 1.0).unwrap().len(), 0);
        assert_eq!(g.beta::<f32>(n, 2.0, 1.0).unwrap().len(), 0);
    }
    assert_eq!(g.choice(5, 0, false).unwrap().len(), 0);
    assert_eq!(g.choice(0, 0, true).unwrap().len(), 0);
    assert_eq!(g.permutation(0).unwrap().len(), 0);
    let e = dev.zeros::<f32>([0, 4]).unwrap();
    assert_eq!(g.permuted(&e).unwrap().shape(), &[0, 4]);
    let w = dev.from_slice(&[1.0f32, 2.0], [2]).unwrap();
    assert_eq!(g.choice_weighted(&w, 0, true).unwrap().len(), 0);
    assert_eq!(g.choice_weighted(&w, 0, false).unwrap().len(), 0);
    assert_eq!(g.counter(), 0);
}

#[track_caller]
fn invalid<R: std::fmt::Debug>(g: &Generator, r: gpuarray::Result<R>, op: &str) {
    match r {
        Err(Error::InvalidArgument { op: o, .. }) => assert_eq!(o, op),
        other => panic!("{op}: expected InvalidArgument, got {other:?}"),
    }
    assert_eq!(g.counter(), 0, "{op}: a failed draw advanced the counter");
}

#[test]
fn bad_arguments_are_typed_errors_and_advance_nothing() {
    let dev = dev();
    let mut g = dev.default_rng(3);
    let r = g.integers::<i32>([4], 5, 5);
    invalid(&g, r, "integers");
    let r = g.integers::<u32>([4], 9, 2);
    invalid(&g, r, "integers");
    let r = g.uniform::<f32>([4], 1.0, f32::INFINITY);
    invalid(&g, r, "uniform");
    let r = g.uniform::<f32>([4], 2.0, 1.0);
    invalid(&g, r, "uniform");
    let r = g.normal::<f32>([4], 0.0, f32::NAN);
    invalid(&g, r, "normal");
    let r = g.exponential::<f32>([4], -1.0);
    invalid(&g, r, "exponential");
    for p in [-0.1, 1.1, f64::NAN] {
        let r = g.bernoulli([4], p);
        invalid(&g, r, "bernoulli");
        let r = g.binomial([4], 3, p);
        invalid(&g, r, "binomial");
    }
    let r = g.binomial([4], 1 << 24, 0.5);
    invalid(&g, r, "binomial");
    for lam in [-1.0, f64::NAN, 1e8] {
        let r = g.poisson([4], lam);
        invalid(&g, r, "poisson");
    }
    let r = g.gamma::<f32>([4], 0.0, 1.0);
    invalid(&g, r, "gamma");
    let r = g.gamma::<f32>([4], 1.0, -1.0);
    invalid(&g, r, "gamma");
    let r = g.beta::<f32>([4], -1.0, 1.0);
    invalid(&g, r, "beta");
    let r = g.choice(5, 6, false);
    invalid(&g, r, "choice");
    let r = g.choice(0, 1, true);
    invalid(&g, r, "choice");
    let w = |v: &[f32]| dev.from_slice(v, [v.len()]).unwrap();
    for bad in [
        &[1.0, -0.5, 1.0][..],
        &[0.0, 0.0],
        &[1.0, f32::NAN],
        &[f32::INFINITY, 1.0],
        &[],
    ] {
        let r = g.choice_weighted(&w(bad), 1, true);
        invalid(&g, r, "choice_weighted");
    }
    let r = g.choice_weighted(&w(&[1.0, 0.0, 2.0]), 3, false);
    invalid(&g, r, "choice_weighted");
    let r = g.choice_weighted(&dev.ones::<f32>([2, 2]).unwrap(), 1, true);
    invalid(&g, r, "choice_weighted");
    let a = dev.arange::<i32>(0, 4, 1).unwrap();
    let r = g.choice_from_weighted(&a, &w(&[1.0, 1.0, 1.0]), 2, true);
    invalid(&g, r, "choice_from_weighted");
    let r = g.permuted(&dev.from_slice(&[1.0f32], Vec::<usize>::new()).unwrap());
    invalid(&g, r, "permuted");
    // `integers::<f32>` does not compile (`T: Int`): its doc has the compile_fail example.
    assert_eq!(g.counter(), 0);
}

/// `permuted`, `shuffle` and `choice_from` on views with strides and offsets pick the rows
/// the CPU permutation names.
#[test]
fn sampling_rows_of_views() {
    let dev = dev();
    let base: Vec<f32> = (0..7 * 10).map(|i| i as f32).collect();
    let full = dev.from_slice(&base, [7, 10]).unwrap();
    // Rows 1..6 of the transpose of columns 2..9: a view with strides and an offset.
    let v = full
        .slice_axis(1, 2..9)
        .unwrap()
        .t()
        .slice_axis(0, 1..6)
        .unwrap();
    let want = host(&v);
    let (rows, inner) = (v.shape()[0], v.shape()[1]);
    let take = |idx: &[u32]| -> Vec<f64> {
        idx.iter()
            .flat_map(|&r| want[r as usize * inner..(r as usize + 1) * inner].to_vec())
            .collect()
    };
    let mut g = dev.default_rng(21);
    let mut c = CpuGen::new(21);
    assert_eq!(host(&g.permuted(&v).unwrap()), take(&c.permutation(rows)));
    let mut s = v.clone();
    g.shuffle(&mut s).unwrap();
    assert_eq!(s.shape(), v.shape());
    assert_eq!(host(&s), take(&c.permutation(rows)));
    let got = g.choice_from(&v, 12, true).unwrap();
    assert_eq!(got.shape(), &[12, inner]);
    assert_eq!(host(&got), take(&c.integers(12, 0, rows as u32)));
    assert_eq!(host(&v), want, "the source is unchanged");
}

/// Weighted choice: zero weights are never drawn; without replacement the indices are
/// distinct, and asking for every non-zero weight gives each of them once.
#[test]
fn weighted_choice_support() {
    let dev = dev();
    let mut g = dev.default_rng(8);
    let p: Vec<f32> = (0..101)
        .map(|i| {
            if i % 3 == 0 {
                0.0
            } else {
                (i % 7) as f32 + 0.5
            }
        })
        .collect();
    let pa = dev.from_slice(&p, [101]).unwrap();
    let with = g
        .choice_weighted(&pa, 5000, true)
        .unwrap()
        .to_vec()
        .unwrap();
    assert!(with.iter().all(|&i| i < 101 && p[i as usize] > 0.0));
    let nz = p.iter().filter(|&&w| w > 0.0).count();
    let mut all = g.choice_weighted(&pa, nz, false).unwrap().to_vec().unwrap();
    all.sort();
    let expect: Vec<i64> = (0..101).filter(|&i| p[i as usize] > 0.0).collect();
    assert_eq!(all, expect);
    let some = g.choice_weighted(&pa, 20, false).unwrap().to_vec().unwrap();
    let mut d = some.clone();
    d.sort();
    d.dedup();
    assert_eq!(d.len(), 20);
    assert!(some.iter().all(|&i| p[i as usize] > 0.0));
}
