//! Normals (the ziggurat of shaders/shared/ziggurat.wgsl) and exponentials from integer
//! arithmetic and single IEEE operations only (shaders/shared/rng_exact.wgsl): the GPU's
//! values equal the CPU's reimplementation (tests/common/rng_exact.rs) bit for bit,
//! for the stateless `random_normal` and the Generator's `normal`, `standard_normal` and
//! `exponential`, in f32, f64 and f16, several seeds and sizes; and the CPU reimplementation
//! is within the stated bounds of the exact (f64) transform of the same uniforms (Box-Muller's
//! `normal_pair`, which gamma still uses). The ziggurat's tables match their f64
//! definition. Poisson and
//! binomial counts equal the CPU's inversion of the same words with the same thresholds,
//! whose probabilities are within 2^-31 of the exact ones.

#[macro_use]
mod common;

use common::philox::philox;
use common::rng_exact::{
    binomial_thresholds, boost, div_exact, exponential, f16_bits, gamma_k, invert, ln_exact,
    neg_log, normal_pair, poisson_thresholds, zig_normal, ZigPath,
};
use common::*;
use gpuarray::{f16, Array, Element};

const SEEDS: [u64; 4] = [0, 42, 0xDEAD_BEEF_1234_5678, u64::MAX];
const SIZES: [usize; 5] = [0, 1, 5, 1001, 4097];

/// Words of block c of the stream of `seed` (counter [c low, c high, 0, 0]).
fn words(seed: u64, c: u64) -> [u32; 4] {
    philox(
        [c as u32, (c >> 32) as u32, 0, 0],
        [seed as u32, (seed >> 32) as u32],
    )
}

/// Standard normal i of a draw whose first block is `first` (the ziggurat from word i % 4 of
/// block i / 4), and the paths it took.
fn zig(seed: u64, first: u64, i: usize) -> (f32, ZigPath) {
    let c = first + (i / 4) as u64;
    zig_normal(words(seed, c)[i % 4], seed, c, (i % 4) as u32)
}

/// Standard normal i of a draw whose first block is `first`.
fn z(seed: u64, first: u64, i: usize) -> f32 {
    zig(seed, first, i).0
}

/// Exponential i (scale 1): word i % 4 of block i / 4.
fn ex(seed: u64, first: u64, i: usize) -> f32 {
    exponential(words(seed, first + (i / 4) as u64)[i % 4])
}

/// An element type and its CPU model of `a + b z`: each operation rounded once, in f32 for
/// f16 (then rounded to f16 in integers, as the GPU does).
trait Exact: Element + gpuarray::Float {
    fn affine(a: f64, b: f64, z: f32) -> Self;
    fn bits(self) -> u64;
}

impl Exact for f32 {
    fn affine(a: f64, b: f64, z: f32) -> f32 {
        a as f32 + b as f32 * z
    }
    fn bits(self) -> u64 {
        self.to_bits() as u64
    }
}

impl Exact for f64 {
    fn affine(a: f64, b: f64, z: f32) -> f64 {
        a + b * z as f64
    }
    fn bits(self) -> u64 {
        self.to_bits()
    }
}

impl Exact for f16 {
    fn affine(a: f64, b: f64, z: f32) -> f16 {
        let v = f16::from_f64(a).to_f32() + f16::from_f64(b).to_f32() * z;
        f16::from_bits(f16_bits(v.to_bits()))
    }
    fn bits(self) -> u64 {
        self.to_bits() as u64
    }
}

#[track_caller]
fn assert_exact<T: Exact>(what: &str, got: &Array<T>, expected: impl Fn(usize) -> T) {
    let got = got.to_vec().unwrap();
    let bad: Vec<usize> = (0..got.len())
        .filter(|&i| got[i].bits() != expected(i).bits())
        .collect();
    if let Some(&i) = bad.first() {
        panic!(
            "{what} ({}): element {i} has bits {:#x}, expected {:#x} ({} of {} differ)",
            T::DTYPE.name(),
            got[i].bits(),
            expected(i).bits(),
            bad.len(),
            got.len()
        );
    }
}

fn stateless<T: Exact>() {
    let dev = dev();
    for seed in SEEDS {
        for n in SIZES {
            let got = dev.random_normal::<T>([n], seed).unwrap();
            assert_exact(&format!("normal seed {seed:#x} n={n}"), &got, |i| {
                T::affine(0.0, 1.0, z(seed, 0, i))
            });
        }
    }
    let (m, s) = (T::from_f64(-3.25), T::from_f64(0.3));
    let got = dev.random_normal_with::<T>([1001], m, s, 9).unwrap();
    assert_exact("normal_with (-3.25, 0.3)", &got, |i| {
        T::affine(m.to_f64(), s.to_f64(), z(9, 0, i))
    });
}

/// Draws in sequence from one Generator: normal, standard_normal, exponential, each
/// starting where the previous one's blocks end.
fn generator<T: Exact>() {
    let dev = dev();
    for seed in SEEDS {
        let mut g = dev.default_rng(seed);
        let mut first = 0u64;
        for n in SIZES {
            let (m, s) = (T::from_f64(1.5), T::from_f64(2.0));
            let got = g.normal::<T>([n], m, s).unwrap();
            assert_exact(&format!("normal seed {seed:#x} n={n}"), &got, |i| {
                T::affine(1.5, 2.0, z(seed, first, i))
            });
            first += n.div_ceil(4) as u64;
            let got = g.standard_normal::<T>([n]).unwrap();
            assert_exact(
                &format!("standard_normal seed {seed:#x} n={n}"),
                &got,
                |i| T::affine(0.0, 1.0, z(seed, first, i)),
            );
            first += n.div_ceil(4) as u64;
            let scale = T::from_f64(0.7);
            let got = g.exponential::<T>([n], scale).unwrap();
            assert_exact(&format!("exponential seed {seed:#x} n={n}"), &got, |i| {
                T::affine(0.0, scale.to_f64(), ex(seed, first, i))
            });
            first += n.div_ceil(4) as u64;
            assert_eq!(g.counter(), first);
        }
    }
}

#[test]
fn stateless_normals_are_bit_exact_f32() {
    stateless::<f32>();
}

#[test]
fn stateless_normals_are_bit_exact_f64() {
    require_dtype!(f64);
    stateless::<f64>();
}

#[test]
fn stateless_normals_are_bit_exact_f16() {
    require_dtype!(f16);
    stateless::<f16>();
}

/// A draw whose deferred elements span several workgroups of the second pass (which packs
/// 16 first-pass groups of 1024 elements into one), the last one partial, matches the CPU
/// bit for bit, stateless and from a Generator past its first block.
#[test]
fn normals_across_packed_second_pass_workgroups_are_bit_exact() {
    let dev = dev();
    let n = 2 * 16 * 1024 + 3 * 1024 + 7;
    let got = dev.random_normal::<f32>([n], 11).unwrap();
    assert_exact("normal n=37895", &got, |i| {
        f32::affine(0.0, 1.0, z(11, 0, i))
    });
    let mut g = dev.default_rng(12);
    g.random::<f32>([5]).unwrap();
    let got = g.standard_normal::<f32>([n]).unwrap();
    assert_exact("standard_normal n=37895", &got, |i| {
        f32::affine(0.0, 1.0, z(12, 2, i))
    });
}

#[test]
fn generator_normals_and_exponentials_are_bit_exact_f32() {
    generator::<f32>();
}

#[test]
fn generator_normals_and_exponentials_are_bit_exact_f64() {
    require_dtype!(f64);
    generator::<f64>();
}

#[test]
fn generator_normals_and_exponentials_are_bit_exact_f16() {
    require_dtype!(f16);
    generator::<f16>();
}

/// A draw large enough to take every path of the ziggurat: the stateless 2^20 normals and a
/// Generator's 2^18 after a first draw of 5 (its counter past 0) equal the CPU's bit for bit;
/// the CPU counts the elements that took the slow path (about 0.43%), the tail and a wedge.
#[test]
fn ziggurat_paths_are_bit_exact() {
    let dev = dev();
    let n = 1 << 20;
    let got = dev.random_normal::<f32>([n], 11).unwrap();
    assert_exact("normal 2^20", &got, |i| z(11, 0, i));
    let paths: Vec<ZigPath> = (0..n).map(|i| zig(11, 0, i).1).collect();
    let count = |f: fn(&ZigPath) -> bool| paths.iter().filter(|p| f(p)).count();
    let (slow, tail, wedge) = (count(|p| p.slow), count(|p| p.tail), count(|p| p.wedge));
    eprintln!("2^20 normals: slow path {slow}, tail {tail}, wedge {wedge}");
    let frac = slow as f64 / n as f64;
    assert!((0.0037..0.0049).contains(&frac), "slow fraction {frac}");
    assert!(tail > 30 && wedge > 3500, "tail {tail}, wedge {wedge}");

    let mut g = dev.default_rng(0xabc);
    g.standard_normal::<f32>([5]).unwrap();
    let got = g.normal::<f32>([1 << 18], -1.0, 3.0).unwrap();
    assert_exact("generator normal 2^18", &got, |i| {
        f32::affine(-1.0, 3.0, z(0xabc, 2, i))
    });
}

/// Words to check the transforms on: the ends and the points where the fixed-point forms
/// change (u near 1, powers of two, the quadrant and octant boundaries) and random ones.
fn sample_words() -> Vec<u32> {
    let mut w = vec![0, 1, 2, 3, u32::MAX, u32::MAX - 1, u32::MAX - 2];
    for k in 0..32 {
        let p = 1u32 << k;
        w.extend([p, p - 1, p.wrapping_add(1), p.wrapping_neg()]);
    }
    for q in 0..8u32 {
        let b = q << 29;
        w.extend([b, b.wrapping_add(1), b.wrapping_sub(1)]);
    }
    let mut rng = Rng::new(2026);
    w.extend((0..200_000).map(|_| rng.next_u64() as u32));
    w
}

/// The integer -ln(u) against f64's for u = (a + 1) 2^-32: within 2^-28 relative (the
/// polynomial's 2^-29.5 and the fixed-point roundings), and the f32 exponential within one
/// ulp of the f64 value rounded to f32... stated as 2^-23 relative.
#[test]
fn neg_log_is_within_its_bound() {
    let mut worst = 0.0f64;
    for a in sample_words() {
        let u = (a as f64 + 1.0) / 4_294_967_296.0;
        let exact = -u.ln();
        match neg_log(a) {
            None => assert_eq!(a, u32::MAX),
            Some((m, e)) => {
                let got = m as f64 * 2f64.powi(e - 32);
                worst = worst.max(((got - exact) / exact).abs());
                let f = exponential(a) as f64;
                assert!(
                    ((f - exact) / exact).abs() <= 2f64.powi(-23),
                    "exponential of word {a:#x}: {f} vs {exact}"
                );
            }
        }
    }
    eprintln!("neg_log: worst relative error 2^{:.2}", worst.log2());
    assert!(worst <= 2f64.powi(-28), "worst relative error {worst:e}");
}

/// (cos, sin) of 2 pi b 2^-32 in f64 to f64's relative precision, near their zeros too: by
/// quadrant, with the angle within it folded to at most an eighth of a turn (exactly).
fn cos_sin_f64(b: u32) -> (f64, f64) {
    let f = b & 0x3fff_ffff;
    let quarter = |k: u32| std::f64::consts::FRAC_PI_2 * (k as f64 / (1u64 << 30) as f64);
    let (c, s) = if f <= 1 << 29 {
        (quarter(f).cos(), quarter(f).sin())
    } else {
        let g = (1 << 30) - f;
        (quarter(g).sin(), quarter(g).cos())
    };
    match b >> 30 {
        0 => (c, s),
        1 => (-s, c),
        2 => (-c, -s),
        _ => (s, -c),
    }
}

/// Box-Muller in integers against f64's on the same uniforms u = (a + 1) 2^-32 and v = b
/// 2^-32: |z - exact| <= 2^-23 |exact| for both of the pair (one f32 rounding, at most 2^-24
/// relative, plus the transforms' errors of about 2^-28), near the zeros of cos and sin too.
#[test]
fn normal_pair_is_within_its_bound() {
    let w = sample_words();
    let mut worst = 0.0f64;
    for (k, &a) in w.iter().enumerate() {
        for b in [w[(k * 7 + 3) % w.len()], w[(k + 1) % w.len()]] {
            let u = (a as f64 + 1.0) / 4_294_967_296.0;
            let r = (-2.0 * u.ln()).sqrt();
            let (c, s) = cos_sin_f64(b);
            let exact = [r * c, r * s];
            let got = normal_pair(a, b);
            for j in 0..2 {
                let err = (got[j] as f64 - exact[j]).abs();
                let bound = 2f64.powi(-23) * exact[j].abs();
                assert!(
                    err <= bound,
                    "words {a:#x} {b:#x} [{j}]: {} vs {}",
                    got[j],
                    exact[j]
                );
                if exact[j] != 0.0 {
                    worst = worst.max(err / exact[j].abs());
                }
            }
        }
    }
    eprintln!("normal_pair: worst relative error 2^{:.2}", worst.log2());
}

/// f16_bits rounds to nearest even as the `half` crate does, on every f32 of a range of
/// bit patterns through f16's subnormals, normals and overflow.
#[test]
fn f16_rounding_matches_half() {
    let mut rng = Rng::new(7);
    let mut bits: Vec<u32> = (0..100_000).map(|_| rng.next_u64() as u32).collect();
    bits.retain(|&b| (b >> 23) & 0xff != 0xff && (b >> 23) & 0xff != 0);
    bits.extend([
        0x3380_0000,
        0x3300_0000,
        0x3300_0001,
        0x477f_f000,
        0x477f_efff,
        0x3f80_1000,
    ]);
    for b in bits {
        let v = f32::from_bits(b);
        assert_eq!(
            f16_bits(b),
            f16::from_f32(v).to_bits(),
            "f32 {v:e} ({b:#x})"
        );
    }
}

/// A Generator's poisson and binomial draws, in sequence, against the CPU's inversion of
/// word i % 4 of block i / 4 with its thresholds (a binary search: the GPU's guide table
/// and scan are checked too), for means and (n, p) through every regime: 0, the tables of
/// one or two values, small, large, p near 0 and 1.
#[test]
fn poisson_and_binomial_are_bit_exact() {
    let dev = dev();
    let lams = [0.0, 1e-9, 0.3, 3.5, 10.0, 37.2, 1.0e5, 1.0e7];
    let binomials = [
        (0u32, 0.5),
        (7, 0.0),
        (7, 1.0),
        (1, 0.5),
        (10, 0.3),
        (40, 0.97),
        (100_000, 1e-6),
        ((1 << 24) - 1, 0.37),
    ];
    for seed in [0u64, 0xDEAD_BEEF_1234_5678] {
        let mut g = dev.default_rng(seed);
        let mut first = 0u64;
        for (k, n) in [1001usize, 0, 1, 7, 4 * 256 + 3]
            .into_iter()
            .cycle()
            .take(16)
            .enumerate()
        {
            let (got, t, what) = if k < lams.len() {
                let lam = lams[k];
                let got = g.poisson([n], lam).unwrap();
                (got, poisson_thresholds(lam), format!("poisson({lam})"))
            } else {
                let (m, p) = binomials[k - lams.len()];
                let got = g.binomial([n], m, p).unwrap();
                (
                    got,
                    binomial_thresholds(m, p),
                    format!("binomial({m}, {p})"),
                )
            };
            let got = got.to_vec().unwrap();
            for (i, &v) in got.iter().enumerate() {
                let w = words(seed, first + (i / 4) as u64)[i % 4];
                assert_eq!(v, invert(&t, w), "{what} seed {seed:#x} n={n}: element {i}");
            }
            first += n.div_ceil(4) as u64;
            assert_eq!(g.counter(), first);
        }
    }
}

/// The thresholds' probabilities (differences over 2^32) against the exact ones, from
/// log-probabilities summed in f64 (the same ratios, a different path through them; the
/// ratios themselves are checked by tests/generator/stats.rs's chi-square tests against
/// log-gamma): within 2^-32 each (two roundings of 2^-33), and the counts the table never gives (where the cumulative
/// sum rounds to 0 or to 2^32) below 2^-32 in all.
#[test]
fn inversion_tables_hold_the_probabilities() {
    // ln P(k) for k = 0, 1, ..., kmax from ln P(k + 1) - ln P(k) = ln r(k), summed, then
    // shifted so that the probabilities sum to 1.
    let check = |what: &str, t: (u32, Vec<u32>), kmax: u32, ln_ratio: &dyn Fn(f64) -> f64| {
        let mut ln_p = vec![0.0f64];
        for k in 0..kmax {
            ln_p.push(ln_p[k as usize] + ln_ratio(k as f64));
        }
        let top = ln_p.iter().cloned().fold(f64::MIN, f64::max);
        let total: f64 = ln_p.iter().map(|l| (l - top).exp()).sum();
        let exact = |k: u32| (ln_p[k as usize] - top).exp() / total;
        let (k0, thr) = &t;
        let edge = |i: usize| -> f64 {
            match i {
                0 => 0.0,
                i if i > thr.len() => 1.0,
                i => thr[i - 1] as f64 / 2f64.powi(32),
            }
        };
        let mut outside = 0.0;
        for k in 0..=kmax {
            if k < *k0 || k > k0 + thr.len() as u32 {
                outside += exact(k);
                continue;
            }
            let i = (k - k0) as usize;
            let got = edge(i + 1) - edge(i);
            assert!(
                (got - exact(k)).abs() <= 2f64.powi(-32) * 1.001,
                "{what}: P({k}) = {got:e} vs {:e}",
                exact(k)
            );
        }
        assert!(outside <= 2f64.powi(-32), "{what}: {outside:e} outside");
    };
    for lam in [0.5f64, 3.5, 10.0, 37.2, 1000.0, 2.0e5] {
        let kmax = (lam + 40.0 * lam.sqrt() + 60.0) as u32;
        check(
            &format!("poisson({lam})"),
            poisson_thresholds(lam),
            kmax,
            &|k| (lam / (k + 1.0)).ln(),
        );
    }
    for (n, p) in [
        (10u32, 0.3f64),
        (40, 0.97),
        (1000, 0.5),
        (100_000, 1e-4),
        (300_000, 0.8),
    ] {
        let ln = |k: f64| ((n as f64 - k) / (k + 1.0)).ln() + (p / (1.0 - p)).ln();
        check(
            &format!("binomial({n}, {p})"),
            binomial_thresholds(n, p),
            n,
            &ln,
        );
    }
}

/// Gamma and beta draws in sequence equal the CPU's Marsaglia-Tsang on the same words (the
/// host's d and c, the integer normal and logs, each f32 operation rounded once, the boost
/// U^(1/k) of k < 1 from the integer exp, beta's division correctly rounded), in f32, f64
/// and f16, for shapes from 10^-3 to 6 10^4 and a scale.
fn gamma_exact<T: Exact>() {
    let dev = dev();
    let seed = 0x1234_5678_9abc_def0;
    let mut g = dev.default_rng(seed);
    let mut first = 0u64;
    let shapes = [
        (1.0, 1001usize),
        (1.5, 7),
        (0.3, 0),
        (7.25, 1027),
        (1000.0, 33),
        (6.0e4, 64),
    ];
    for (k, n) in shapes.into_iter().chain([(0.001, 65), (0.5, 1001)]) {
        let (k, scale) = (T::from_f64(k), T::from_f64(2.5));
        let got = g.gamma::<T>([n], k, scale).unwrap();
        let s = scale.to_f64() as f32;
        assert_exact(&format!("gamma({}) n={n}", k.to_f64()), &got, |i| {
            let x = gamma_k(k.to_f64(), seed, first + (i / 4) as u64, 0, (i % 4) as u32);
            T::affine(0.0, 1.0, x * s)
        });
        first += n.div_ceil(4) as u64;
    }
    for (a, b, n) in [
        (2.0, 5.0, 1001usize),
        (0.5, 0.5, 33),
        (0.05, 3.0, 1027),
        (300.0, 1.0, 5),
    ] {
        let (a, b) = (T::from_f64(a), T::from_f64(b));
        let got = g.beta::<T>([n], a, b).unwrap();
        assert_exact(
            &format!("beta({}, {}) n={n}", a.to_f64(), b.to_f64()),
            &got,
            |i| {
                let (c, e) = (first + (i / 4) as u64, (i % 4) as u32);
                let x = gamma_k(a.to_f64(), seed, c, 0, e);
                let y = gamma_k(b.to_f64(), seed, c, 1 << 31, e);
                T::affine(0.0, 1.0, div_exact(x, x + y))
            },
        );
        first += n.div_ceil(4) as u64;
    }
}

#[test]
fn gamma_is_bit_exact_f32() {
    gamma_exact::<f32>();
}

#[test]
fn gamma_is_bit_exact_f64() {
    require_dtype!(f64);
    gamma_exact::<f64>();
}

#[test]
fn gamma_is_bit_exact_f16() {
    require_dtype!(f16);
    gamma_exact::<f16>();
}

/// ln_exact against f64's ln: within 2^-22 absolute near 1 (where e ln 2 and -ln(M / 2)
/// cancel) and 2^-22 relative elsewhere, over every f32 exponent a gamma try can reach.
#[test]
fn ln_exact_is_within_its_bound() {
    let mut rng = Rng::new(11);
    for _ in 0..200_000 {
        let v = f32::from_bits(0x2000_0000 + (rng.next_u64() as u32 % 0x3f00_0000));
        let exact = (v as f64).ln();
        let err = (ln_exact(v) as f64 - exact).abs();
        assert!(
            err <= 2f64.powi(-22) * exact.abs().max(1.0),
            "ln {v:e}: {} vs {exact}",
            ln_exact(v)
        );
    }
}

/// The integer U^(1/k) against f64's: within 2^-24 (Y + 1) relative, Y = -log2 of the
/// result (the fixed-point Y's error grows with it), and 0 only below 2^-125.
#[test]
fn boost_is_within_its_bound() {
    let mut rng = Rng::new(12);
    for _ in 0..100_000 {
        let w = rng.next_u64() as u32;
        let inv_k = (1.0 + 60.0 * rng.unit() * rng.unit()) as f32;
        let exact = ((w as f64 + 1.0) / 2f64.powi(32)).powf(inv_k as f64);
        let got = boost(w, inv_k) as f64;
        if got == 0.0 {
            assert!(
                exact < 2f64.powi(-125),
                "word {w:#x}, 1/k {inv_k}: 0 vs {exact:e}"
            );
            continue;
        }
        let y = -exact.log2();
        assert!(
            ((got - exact) / exact).abs() <= 2f64.powi(-24) * (y + 1.0),
            "word {w:#x}, 1/k {inv_k}: {got:e} vs {exact:e}"
        );
    }
}
