//! The ziggurat behind the normals (shaders/shared/ziggurat.wgsl): its tables against their
//! f64 definition, and the distribution of large samples from both entry points (moments,
//! tail fractions, and a Kolmogorov-Smirnov statistic against the normal CDF). The bits
//! themselves are checked against the CPU mirror in tests/random_exact.rs.

#[macro_use]
mod common;

use common::rng_exact::ziggurat::{DF, F, J_BITS, K, LAYERS, W};
use common::*;

/// exp(-x^2 / 2).
fn f(x: f64) -> f64 {
    (-0.5 * x * x).exp()
}

/// The tail's mass, the integral of f from r to infinity (Simpson, 2^16 steps on
/// [r, r + 16]; f(r + 16) is below 1e-55).
fn tail_mass(r: f64) -> f64 {
    let n = 1 << 16;
    let h = 16.0 / n as f64;
    let inner: f64 = (1..n)
        .map(|i| f(r + i as f64 * h) * if i % 2 == 1 { 4.0 } else { 2.0 })
        .sum();
    (f(r) + f(r + 16.0) + inner) * h / 3.0
}

/// The edges x_0..=x_(L-1) (L = LAYERS) for a base edge r (x_0 = v / f(r), x_1 = r, then
/// x_(i+1) = sqrt(-2 ln(v / x_i + f(x_i)))), the layers' area v, and the excess over 1 of
/// the top layer's upper edge f(x_L) (stopping early, positive, when a layer passes 1).
fn edges(r: f64) -> (Vec<f64>, f64, f64) {
    let v = r * f(r) + tail_mass(r);
    let mut x = vec![v / f(r), r];
    for i in 1..LAYERS {
        let a = v / x[i] + f(x[i]);
        if i == LAYERS - 1 || a >= 1.0 {
            return (x, v, a - 1.0);
        }
        x.push((-2.0 * a.ln()).sqrt());
    }
    unreachable!()
}

/// A layer's (k, w, F, DF).
type Layer = (u32, f64, f64, f64);

/// The tables in f64 as src/ops/random/ziggurat/ defines them, per layer.
fn tables() -> Vec<Layer> {
    let (mut lo, mut hi) = (3.0f64, 5.0f64);
    for _ in 0..100 {
        let m = 0.5 * (lo + hi);
        let (x, _, excess) = edges(m);
        if x.len() < LAYERS || excess > 0.0 {
            lo = m;
        } else {
            hi = m;
        }
    }
    let (mut x, _, _) = edges(hi);
    x.push(0.0);
    let s = 2f64.powi(J_BITS as i32);
    (0..LAYERS)
        .map(|i| {
            let k = (s * x[i + 1] / x[i]).floor() as u32;
            let (fi, dfi) = if i == 0 {
                (x[1], 1.0 / x[1])
            } else {
                let up = if i == LAYERS - 1 { 1.0 } else { f(x[i + 1]) };
                (f(x[i]), up - f(x[i]))
            };
            (k, x[i] / s, fi, dfi)
        })
        .collect()
}

/// Every k_i is the f64 one (or one off, where 2^21 x_(i+1) / x_i lies within 1e-9 of an
/// integer), every float the f64 value rounded to f32; r is 4.0388498461095 (Marsaglia and Tsang's
/// 3.6541528853610088 is that of 256 layers), and the top layer ends within 1e-12 of f = 1.
#[test]
fn ziggurat_tables_match_their_definition() {
    let t = tables();
    let (x, v, excess) = edges(t[0].2);
    assert!(
        (t[0].2 - 4.038_849_846_109_505).abs() < 1e-12,
        "r {}",
        t[0].2
    );
    assert!(
        excess.abs() < 1e-12 && x.len() == LAYERS,
        "top layer off by {excess}"
    );
    assert!((v - 1.226_324_646_353_084e-3).abs() < 1e-15, "v {v}");
    for (i, &(k, w, fi, dfi)) in t.iter().enumerate() {
        assert!(K[i].abs_diff(k) <= 1, "k[{i}] = {} against {k}", K[i]);
        assert_eq!(W[i], w as f32, "w[{i}]");
        assert_eq!(F[i], fi as f32, "F[{i}]");
        assert_eq!(DF[i], dfi as f32, "DF[{i}]");
    }
    assert_eq!(K[LAYERS - 1], 0);
}

/// Prints the tables as src/ops/random/ziggurat/ holds them (`cargo test --test
/// random_ziggurat print -- --ignored --nocapture`): how its literals were made.
#[test]
#[ignore]
fn print_ziggurat_tables() {
    let t = tables();
    let row = |g: &dyn Fn(&Layer) -> String| t.iter().map(g).collect::<Vec<_>>().join(", ");
    println!("K: {}", row(&|r| r.0.to_string()));
    println!("W: {}", row(&|r| format!("{:e}", r.1 as f32)));
    println!("F: {}", row(&|r| format!("{:e}", r.2 as f32)));
    println!("DF: {}", row(&|r| format!("{:e}", r.3 as f32)));
}

/// Φ(x), the standard normal CDF, from erfc by Abramowitz and Stegun 7.1.26 (absolute error
/// below 1.5e-7, far below the KS bound of 1.4e-3 used here).
fn normal_cdf(x: f64) -> f64 {
    let a = x.abs() / std::f64::consts::SQRT_2;
    let t = 1.0 / (1.0 + 0.327_591_1 * a);
    let poly = t
        * (0.254_829_592
            + t * (-0.284_496_736
                + t * (1.421_413_741 + t * (-1.453_152_027 + t * 1.061_405_429))));
    let erfc = poly * (-a * a).exp();
    if x >= 0.0 {
        1.0 - 0.5 * erfc
    } else {
        0.5 * erfc
    }
}

/// A sample of 2^20 standard normals against N(0, 1), with five standard errors for each
/// estimate: mean (1 / sqrt(n)), variance (sqrt(2 / n)), the fractions beyond |z| = 3 and 4
/// (sqrt(p (1 - p) / n) around p = 2.6998e-3 and 6.334e-5), and the KS statistic
/// sup |F_n - Φ| below 1.95 / sqrt(n) (its 0.1% critical value).
fn check_normal(what: &str, v: &[f64]) {
    let n = v.len() as f64;
    let mean = v.iter().sum::<f64>() / n;
    let var = v.iter().map(|x| (x - mean).powi(2)).sum::<f64>() / n;
    assert!(mean.abs() < 5.0 / n.sqrt(), "{what}: mean {mean}");
    assert!(
        (var - 1.0).abs() < 5.0 * (2.0 / n).sqrt(),
        "{what}: variance {var}"
    );
    for (c, p) in [(3.0, 2.699_796e-3), (4.0, 6.334_248e-5)] {
        let got = v.iter().filter(|x| x.abs() > c).count() as f64 / n;
        let se = (p * (1.0 - p) / n).sqrt();
        assert!(
            (got - p).abs() < 5.0 * se,
            "{what}: P(|z| > {c}) = {got}, expected {p}"
        );
    }
    let mut s = v.to_vec();
    s.sort_by(f64::total_cmp);
    let d = s
        .iter()
        .enumerate()
        .map(|(i, &x)| {
            let c = normal_cdf(x);
            (c - i as f64 / n).abs().max(((i + 1) as f64 / n - c).abs())
        })
        .fold(0.0, f64::max);
    eprintln!("{what}: mean {mean:.2e}, variance {var:.5}, KS {d:.2e}");
    assert!(d < 1.95 / n.sqrt(), "{what}: KS statistic {d}");
}

#[test]
fn ziggurat_normals_are_standard_normal() {
    let dev = dev();
    let n = 1 << 20;
    check_normal(
        "random_normal",
        &host(&dev.random_normal::<f32>([n], 2025).unwrap()),
    );
    let mut g = dev.default_rng(31);
    g.random::<f32>([3]).unwrap();
    check_normal(
        "Generator::standard_normal",
        &host(&g.standard_normal::<f32>([n]).unwrap()),
    );
}

/// Times 16M f32 normals from both entry points, and exponentials (one `-ln u` per element)
/// as a control, each the median of 7 draws with the device synchronized around them
/// (`cargo test --release --test random_ziggurat time -- --ignored --nocapture`; the numbers
/// of docs/benchmarks/api.md's session 11 row).
#[test]
#[ignore]
fn time_16m_normals() {
    let dev = dev();
    let n = 1 << 24;
    let g = dev.default_rng(7);
    let median = |what: &str, f: &mut dyn FnMut(u64) -> gpuarray::Array<f32>| {
        let mut ts: Vec<f64> = (0..7)
            .map(|k| {
                dev.synchronize().unwrap();
                let t = std::time::Instant::now();
                let z = f(k);
                dev.synchronize().unwrap();
                drop(z);
                t.elapsed().as_secs_f64() * 1e3
            })
            .collect();
        ts.sort_by(f64::total_cmp);
        eprintln!("{what} f32 16M: median {:.1} ms (of 7: {ts:.1?})", ts[3]);
    };
    median("standard_normal", &mut |_| {
        g.clone().standard_normal::<f32>([n]).unwrap()
    });
    median("exponential", &mut |_| {
        g.clone().exponential::<f32>([n], 1.0).unwrap()
    });
    median("random_normal", &mut |k| {
        dev.random_normal::<f32>([n], k).unwrap()
    });
}
