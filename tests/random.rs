//! Random numbers: a CPU Philox4x32-10 (Random123) and the documented mappings from its words
//! to uniforms (bit-exact), statistics of large samples, and seeds. The normals' bits are
//! checked against the CPU mirror of their ziggurat in tests/random_exact.rs, their
//! distribution in tests/random_ziggurat.rs.

#[macro_use]
mod common;

use common::*;
use gpuarray::{f16, Array, Float};

// ---------------------------------------------------------------------------------------
// Philox4x32-10 on the CPU
// ---------------------------------------------------------------------------------------

use common::philox::{block, philox};

/// Random123's known-answer vectors (kat_vectors, philox4x32 10).
#[test]
fn cpu_philox_matches_random123() {
    let kat: [([u32; 4], [u32; 2], [u32; 4]); 3] = [
        (
            [0; 4],
            [0; 2],
            [0x6627e8d5, 0xe169c58d, 0xbc57ac4c, 0x9b00dbd8],
        ),
        (
            [u32::MAX; 4],
            [u32::MAX; 2],
            [0x408f276d, 0x41c83b0e, 0xa20bc7c6, 0x6d5451fd],
        ),
        (
            [0x243f6a88, 0x85a308d3, 0x13198a2e, 0x03707344],
            [0xa4093822, 0x299f31d0],
            [0xd16cfe09, 0x94fdcceb, 0x5001e420, 0x24126ea1],
        ),
    ];
    for (ctr, key, out) in kat {
        assert_eq!(philox(ctr, key), out);
    }
}

// ---------------------------------------------------------------------------------------
// The documented mappings
// ---------------------------------------------------------------------------------------

/// f32: word i % 4 of block i / 4, its top 24 bits times 2^-24.
fn uniform_f32(seed: u64, i: usize) -> f32 {
    let w = block(seed, (i / 4) as u64)[i % 4];
    (w >> 8) as f32 * (1.0 / (1u32 << 24) as f32)
}

/// f16: word i % 4 of block i / 4, its top 11 bits times 2^-11.
fn uniform_f16(seed: u64, i: usize) -> f16 {
    let w = block(seed, (i / 4) as u64)[i % 4];
    f16::from_f32((w >> 21) as f32 / 2048.0)
}

/// f64: 53 bits from words 2(i % 2) and 2(i % 2) + 1 of block i / 2 (27 + 26 bits).
fn uniform_f64(seed: u64, i: usize) -> f64 {
    let w = block(seed, (i / 2) as u64);
    let k = 2 * (i % 2);
    ((w[k] >> 5) as f64 * 67_108_864.0 + (w[k + 1] >> 6) as f64) * (1.0 / (1u64 << 53) as f64)
}

const SEEDS: [u64; 5] = [0, 1, 42, 0xDEAD_BEEF_1234_5678, u64::MAX];
const SIZES: [usize; 4] = [1, 7, 1001, 4096 + 3];

/// Exact equality of the bit patterns, reporting the first difference.
#[track_caller]
fn assert_bits(what: &str, got: &[u64], expected: &[u64]) {
    assert_eq!(got.len(), expected.len(), "{what}: length");
    if let Some(i) = (0..got.len()).find(|&i| got[i] != expected[i]) {
        panic!(
            "{what}: element {i} differs: bits {:#x}, expected {:#x} ({} of {} differ)",
            got[i],
            expected[i],
            (0..got.len()).filter(|&i| got[i] != expected[i]).count(),
            got.len()
        );
    }
}

#[test]
fn uniform_f32_is_bit_exact() {
    let dev = dev();
    for seed in SEEDS {
        for n in SIZES {
            let got = dev
                .random_uniform::<f32>([n], seed)
                .unwrap()
                .to_vec()
                .unwrap();
            let bits: Vec<u64> = got.iter().map(|x| x.to_bits() as u64).collect();
            let e: Vec<u64> = (0..n)
                .map(|i| uniform_f32(seed, i).to_bits() as u64)
                .collect();
            assert_bits(&format!("f32 seed {seed:#x} n={n}"), &bits, &e);
        }
    }
}

#[test]
fn uniform_f16_is_bit_exact() {
    let dev = dev();
    require_dtype!(f16);
    for seed in SEEDS {
        for n in SIZES {
            let got = dev
                .random_uniform::<f16>([n], seed)
                .unwrap()
                .to_vec()
                .unwrap();
            let bits: Vec<u64> = got.iter().map(|x| x.to_bits() as u64).collect();
            let e: Vec<u64> = (0..n)
                .map(|i| uniform_f16(seed, i).to_bits() as u64)
                .collect();
            assert_bits(&format!("f16 seed {seed:#x} n={n}"), &bits, &e);
        }
    }
}

#[test]
fn uniform_f64_is_bit_exact() {
    let dev = dev();
    require_dtype!(f64);
    for seed in SEEDS {
        for n in SIZES {
            let got = dev
                .random_uniform::<f64>([n], seed)
                .unwrap()
                .to_vec()
                .unwrap();
            let bits: Vec<u64> = got.iter().map(|x| x.to_bits()).collect();
            let e: Vec<u64> = (0..n).map(|i| uniform_f64(seed, i).to_bits()).collect();
            assert_bits(&format!("f64 seed {seed:#x} n={n}"), &bits, &e);
        }
    }
}

/// Element i depends on i alone: any shape gives the flat stream in row-major order, and a
/// longer array starts with a shorter one.
#[test]
fn uniform_depends_on_the_index_only() {
    let dev = dev();
    let flat = host(&dev.random_uniform::<f32>([24], 9).unwrap());
    for shape in [&[2, 3, 4][..], &[24, 1], &[1, 24]] {
        let a = dev.random_uniform::<f32>(shape, 9).unwrap();
        assert_eq!(a.shape(), shape);
        assert_close(&host(&a), &flat, 0.0, 0.0);
    }
    let long = host(&dev.random_uniform::<f32>([1000], 9).unwrap());
    assert_close(&long[..24], &flat, 0.0, 0.0);
    let scalar = dev
        .random_uniform::<f32>((), 9)
        .unwrap()
        .to_scalar()
        .unwrap();
    assert_close(&[scalar as f64], &flat[..1], 0.0, 0.0);
    assert!(dev
        .random_uniform::<f32>([0], 9)
        .unwrap()
        .to_vec()
        .unwrap()
        .is_empty());
}

/// low + (high - low) * u, computed in T (one rounding, or none with a fused multiply-add).
fn uniform_in<T: Ty + Float>(low: f64, high: f64, unit: impl Fn(usize) -> f64) {
    let dev = dev();
    require_dtype!(T);
    let (lo, hi) = (T::from_f64(low), T::from_f64(high));
    let width = T::wrap(hi.to_f64() - lo.to_f64());
    let n = 1001;
    let got = host(&dev.random_uniform_in::<T>([n], lo, hi, 5).unwrap());
    let e: Vec<f64> = (0..n).map(|i| lo.to_f64() + width * unit(i)).collect();
    let scale = low.abs().max(high.abs());
    assert_close(&got, &e, 2.0 * scale * T::EPS, 0.0);
    assert!(
        got.iter().all(|&x| x >= lo.to_f64() && x <= hi.to_f64()),
        "{} outside [{low}, {high}]",
        T::NAME
    );
}

#[test]
fn uniform_in_a_range() {
    uniform_in::<f32>(-2.0, 3.0, |i| uniform_f32(5, i) as f64);
    uniform_in::<f32>(100.0, 100.5, |i| uniform_f32(5, i) as f64);
    uniform_in::<f16>(-4.0, 4.0, |i| uniform_f16(5, i).to_f64());
    uniform_in::<f64>(-1e3, 1e3, |i| uniform_f64(5, i));
}

// ---------------------------------------------------------------------------------------
// Statistics and seeds
// ---------------------------------------------------------------------------------------

fn moments(v: &[f64]) -> (f64, f64, f64, f64) {
    let n = v.len() as f64;
    let mean = v.iter().sum::<f64>() / n;
    let m = |p: i32| v.iter().map(|x| (x - mean).powi(p)).sum::<f64>() / n;
    let var = m(2);
    (mean, var.sqrt(), m(3) / var.powf(1.5), m(4) / (var * var))
}

#[test]
fn normal_statistics() {
    let dev = dev();
    let n = 1 << 20;
    let v = host(&dev.random_normal::<f32>([n], 2024).unwrap());
    let (mean, std, skew, kurt) = moments(&v);
    // Five standard errors: mean 1/sqrt(n), std 1/sqrt(2n), skewness sqrt(6/n), kurtosis
    // sqrt(24/n).
    let se = |k: f64| 5.0 * (k / n as f64).sqrt();
    assert!(mean.abs() < se(1.0), "mean {mean}");
    assert!((std - 1.0).abs() < se(0.5), "std {std}");
    assert!(skew.abs() < se(6.0), "skewness {skew}");
    assert!((kurt - 3.0).abs() < se(24.0), "kurtosis {kurt}");
    let within1 = v.iter().filter(|x| x.abs() < 1.0).count() as f64 / n as f64;
    assert!(
        (within1 - 0.682_689_5).abs() < 5.0 * (0.68 * 0.32 / n as f64).sqrt(),
        "P(|z| < 1) = {within1}"
    );
    assert!(v.iter().all(|x| x.is_finite() && x.abs() < 6.0));

    let v = host(&dev.random_normal_with::<f32>([n], -3.0, 2.0, 77).unwrap());
    let (mean, std, _, _) = moments(&v);
    assert!((mean + 3.0).abs() < 2.0 * se(1.0), "mean {mean}");
    assert!((std - 2.0).abs() < 2.0 * se(0.5), "std {std}");
}

#[test]
fn uniform_statistics() {
    let dev = dev();
    let n = 1 << 20;
    let v = host(&dev.random_uniform::<f32>([n], 99).unwrap());
    assert!(v.iter().all(|&x| (0.0..1.0).contains(&x)));
    let (mean, std, _, _) = moments(&v);
    assert!(
        (mean - 0.5).abs() < 5.0 * (1.0 / 12.0 / n as f64).sqrt(),
        "mean {mean}"
    );
    assert!((std - (1.0f64 / 12.0).sqrt()).abs() < 1e-3, "std {std}");
    // Ten equal bins.
    let mut bins = [0usize; 10];
    for x in &v {
        bins[(x * 10.0) as usize] += 1;
    }
    let expect = n as f64 / 10.0;
    for (k, &b) in bins.iter().enumerate() {
        assert!(
            (b as f64 - expect).abs() < 5.0 * (expect * 0.9).sqrt(),
            "bin {k}: {b}"
        );
    }
}

#[test]
fn seeds() {
    let dev = dev();
    let n = 4096;
    let draw = |seed: u64| {
        dev.random_uniform::<f32>([n], seed)
            .unwrap()
            .to_vec()
            .unwrap()
    };
    let same = |a: &[f32], b: &[f32]| a.iter().zip(b).filter(|(x, y)| x == y).count();
    let base = draw(1);
    assert_eq!(
        same(&base, &draw(1)),
        n,
        "the same seed gives the same array"
    );
    // Seeds that differ in one bit, low or high, give different arrays.
    for seed in [0, 2, 3, 1 << 32 | 1, 1 << 63 | 1, u64::MAX] {
        let other = draw(seed);
        assert!(same(&base, &other) < 10, "seed {seed:#x} repeats seed 1");
    }
    // Normals too, and f64.
    let a = dev.random_normal::<f32>([n], 5).unwrap().to_vec().unwrap();
    let b = dev.random_normal::<f32>([n], 6).unwrap().to_vec().unwrap();
    assert!(same(&a, &b) < 10);
    if dev.supports::<f64>() {
        let a = dev.random_uniform::<f64>([n], 5).unwrap().to_vec().unwrap();
        let b = dev
            .random_uniform::<f64>([n], 1 << 32 | 5)
            .unwrap()
            .to_vec()
            .unwrap();
        assert!(a.iter().zip(&b).filter(|(x, y)| x == y).count() < 10);
    }
}

/// Random arrays are ordinary arrays: views and ops on them work.
#[test]
fn random_arrays_in_ops() {
    let dev = dev();
    let a = dev.random_uniform::<f32>([6, 5], 8).unwrap();
    let ha: Vec<f64> = (0..30).map(|i| uniform_f32(8, i) as f64).collect();
    let t: Array<f32> = a.t().mul_scalar(2.0).unwrap();
    let e = Host::new(&[6, 5], ha).t().map(|x| 2.0 * x);
    assert_close(&host(&t), &e.data, 0.0, 0.0);
}
