//! Distribution tests: for every distribution of the Generator, the sample mean and
//! variance within 5 standard errors of the exact ones, and a Kolmogorov-Smirnov test
//! (continuous) or a chi-square test (discrete) against the CPU CDF or pmf at the 1e-4
//! level, on 2^17 elements from a fixed seed (deterministic: a wrong distribution fails
//! every run; a right one passes every run).

use crate::common::*;
use gpuarray::{f16, Array, Element, Float};

const N: usize = 1 << 17;

// ---------------------------------------------------------------------------------------
// Special functions (f64)
// ---------------------------------------------------------------------------------------

/// ln Γ(x) for x > 0: Stirling's series after shifting x above 15.
fn ln_gamma(mut x: f64) -> f64 {
    let mut shift = 0.0;
    while x < 15.0 {
        shift -= x.ln();
        x += 1.0;
    }
    let i = 1.0 / x;
    let i2 = i * i;
    let series = i * (1.0 / 12.0 - i2 * (1.0 / 360.0 - i2 * (1.0 / 1260.0 - i2 / 1680.0)));
    shift + (x - 0.5) * x.ln() - x + 0.5 * (2.0 * std::f64::consts::PI).ln() + series
}

/// Φ(x), the standard normal CDF, from the Taylor series of erf (|x| < 6; 0 or 1 beyond,
/// within 1e-9).
fn normal_cdf(x: f64) -> f64 {
    if x.abs() >= 6.0 {
        return if x > 0.0 { 1.0 } else { 0.0 };
    }
    let z = x / std::f64::consts::SQRT_2;
    if z.abs() > 3.0 {
        // erfc by its continued fraction (Lentz-free, evaluated backwards from 60 terms).
        let a = z.abs();
        let mut f = 0.0;
        for k in (1..=60).rev() {
            f = (k as f64 / 2.0) / (a + f);
        }
        let erfc = (-a * a).exp() / std::f64::consts::PI.sqrt() / (a + f);
        return if x > 0.0 {
            1.0 - 0.5 * erfc
        } else {
            0.5 * erfc
        };
    }
    let (mut term, mut sum) = (z, z);
    for n in 1..200 {
        term *= -z * z / n as f64;
        sum += term / (2 * n + 1) as f64;
    }
    0.5 + sum / std::f64::consts::PI.sqrt()
}

/// The regularized lower incomplete gamma P(a, x): its series below a + 1, else one minus
/// the continued fraction of Q, evaluated backwards.
fn gamma_cdf(a: f64, x: f64) -> f64 {
    if x <= 0.0 {
        return 0.0;
    }
    let lead = a * x.ln() - x - ln_gamma(a);
    if x < a + 1.0 {
        let (mut term, mut sum) = (1.0 / a, 1.0 / a);
        for n in 1..10_000 {
            term *= x / (a + n as f64);
            sum += term;
            if term < sum * 1e-17 {
                break;
            }
        }
        return (lead.exp() * sum).min(1.0);
    }
    // Q = e^lead / (x + 1 - a - 1(1 - a) / (x + 3 - a - 2(2 - a) / (x + 5 - a - ...))).
    let mut f = 0.0;
    for k in (1..=300).rev() {
        let k = k as f64;
        f = k * (k - a) / (x + 2.0 * k + 1.0 - a - f);
    }
    1.0 - lead.exp() / (x + 1.0 - a - f)
}

/// The regularized incomplete beta I_x(a, b) by its continued fraction (evaluated
/// backwards), with the symmetry I_x(a, b) = 1 - I_{1-x}(b, a) where it converges faster.
fn beta_cdf(a: f64, b: f64, x: f64) -> f64 {
    if x <= 0.0 {
        return 0.0;
    }
    if x >= 1.0 {
        return 1.0;
    }
    if x > (a + 1.0) / (a + b + 2.0) {
        return 1.0 - beta_cdf(b, a, 1.0 - x);
    }
    let lead = a * x.ln() + b * (1.0 - x).ln() + ln_gamma(a + b) - ln_gamma(a) - ln_gamma(b);
    let d = |m: usize| -> f64 {
        let m2 = (m / 2) as f64;
        if m.is_multiple_of(2) {
            m2 * (b - m2) * x / ((a + 2.0 * m2 - 1.0) * (a + 2.0 * m2))
        } else {
            -(a + m2) * (a + b + m2) * x / ((a + 2.0 * m2) * (a + 2.0 * m2 + 1.0))
        }
    };
    let mut f = 0.0;
    for m in (1..=400).rev() {
        f = d(m) / (1.0 + f);
    }
    lead.exp() / (a * (1.0 + f))
}

// ---------------------------------------------------------------------------------------
// Tests of a sample
// ---------------------------------------------------------------------------------------

/// Mean and variance within 5 standard errors of `mean` and `var` (the variance's error
/// from the sample's fourth central moment).
#[track_caller]
fn check_moments(what: &str, v: &[f64], mean: f64, var: f64) {
    let n = v.len() as f64;
    let m = v.iter().sum::<f64>() / n;
    let c = |p: i32| v.iter().map(|x| (x - m).powi(p)).sum::<f64>() / n;
    let (m2, m4) = (c(2), c(4));
    let se_mean = (var / n).sqrt();
    let se_var = ((m4 - m2 * m2) / n).sqrt().max(1e-300);
    assert!(
        (m - mean).abs() <= 5.0 * se_mean,
        "{what}: mean {m} vs {mean} (5 se = {})",
        5.0 * se_mean
    );
    assert!(
        (m2 - var).abs() <= 5.0 * se_var,
        "{what}: variance {m2} vs {var} (5 se = {})",
        5.0 * se_var
    );
}

/// Kolmogorov-Smirnov against `cdf`: D below 1.95 / sqrt(n) (about the 1e-3 level) plus
/// `grain`, the step of the sample's values' resolution (f16's 2^-11 for uniforms).
#[track_caller]
fn check_ks(what: &str, v: &[f64], cdf: impl Fn(f64) -> f64, grain: f64) {
    let mut s = v.to_vec();
    s.sort_by(f64::total_cmp);
    let n = s.len() as f64;
    let mut d: f64 = 0.0;
    for (i, &x) in s.iter().enumerate() {
        let f = cdf(x);
        d = d
            .max((f - i as f64 / n).abs())
            .max(((i + 1) as f64 / n - f).abs());
    }
    let limit = 1.95 / n.sqrt() + grain;
    assert!(d < limit, "{what}: KS distance {d} >= {limit}");
}

/// Chi-square against the pmf over consecutive integers grouped into bins of expected count
/// at least 20 (the tails into the end bins: values below `lo` count in the first); the
/// statistic must stay below the Wilson-
/// Hilferty 1e-4 quantile of its degrees of freedom.
#[track_caller]
fn check_chi2(what: &str, v: &[f64], lo: i64, hi: i64, pmf: impl Fn(i64) -> f64) {
    let n = v.len() as f64;
    let mut bins: Vec<(i64, f64)> = Vec::new(); // (first k, expected)
    let mut acc = 0.0;
    let mut start = lo;
    for k in lo..=hi {
        acc += pmf(k) * n;
        if acc >= 20.0 || k == hi {
            bins.push((start, acc));
            acc = 0.0;
            start = k + 1;
        }
    }
    if bins.len() > 1 && bins.last().unwrap().1 < 20.0 {
        let last = bins.pop().unwrap();
        bins.last_mut().unwrap().1 += last.1;
    }
    let total: f64 = bins.iter().map(|b| b.1).sum();
    bins.last_mut().unwrap().1 += n - total; // the mass beyond hi (and rounding)
    let mut counts = vec![0.0; bins.len()];
    for &x in v {
        let k = x as i64;
        assert!(
            x == k as f64 && k >= lo,
            "{what}: {x} is not an integer >= {lo}"
        );
        let b = bins.partition_point(|&(s, _)| s <= k) - 1;
        counts[b] += 1.0;
    }
    let chi2: f64 = bins
        .iter()
        .zip(&counts)
        .map(|(&(_, e), &o)| match (e > 1e-9, o > 0.0) {
            (true, _) => (o - e) * (o - e) / e,
            (false, false) => 0.0,
            (false, true) => f64::INFINITY, // drawn where the pmf is 0
        })
        .sum();
    let df = (bins.len() - 1).max(1) as f64;
    let h = 2.0 / (9.0 * df);
    let limit = df * (1.0 - h + 3.72 * h.sqrt()).powi(3);
    assert!(
        chi2 < limit,
        "{what}: chi-square {chi2} >= {limit} ({df} df)"
    );
}

fn ln_binom(n: f64, k: f64) -> f64 {
    ln_gamma(n + 1.0) - ln_gamma(k + 1.0) - ln_gamma(n - k + 1.0)
}

// ---------------------------------------------------------------------------------------
// The distributions
// ---------------------------------------------------------------------------------------

fn continuous<T: Float + Element>(grain: f64) {
    let dev = dev();
    let mut g = dev.default_rng(2024);
    let name = format!("{:?}", T::DTYPE);
    let f = |a: Array<T>| host(&a);
    let t = |x: f64| T::from_f64(x);
    let v = f(g.uniform(N, t(-2.0), t(3.0)).unwrap());
    assert!(
        v.iter().all(|&x| (-2.0..3.0).contains(&x)),
        "{name} uniform range"
    );
    check_moments(&format!("{name} uniform"), &v, 0.5, 25.0 / 12.0);
    check_ks(
        &format!("{name} uniform"),
        &v,
        |x| ((x + 2.0) / 5.0).clamp(0.0, 1.0),
        grain,
    );
    let v = f(g.normal(N, t(1.5), t(2.0)).unwrap());
    check_moments(&format!("{name} normal"), &v, 1.5, 4.0);
    check_ks(
        &format!("{name} normal"),
        &v,
        |x| normal_cdf((x - 1.5) / 2.0),
        grain,
    );
    let v = f(g.exponential(N, t(2.0)).unwrap());
    check_moments(&format!("{name} exponential"), &v, 2.0, 4.0);
    check_ks(
        &format!("{name} exponential"),
        &v,
        |x| 1.0 - (-x / 2.0).exp(),
        grain,
    );
    for (k, scale) in [(0.3, 1.0), (1.0, 2.0), (2.5, 3.0), (40.0, 0.25)] {
        let what = format!("{name} gamma({k}, {scale})");
        let v = f(g.gamma(N, t(k), t(scale)).unwrap());
        assert!(
            v.iter().all(|&x| x >= 0.0 && x.is_finite()),
            "{what}: range"
        );
        check_moments(&what, &v, k * scale, k * scale * scale);
        check_ks(&what, &v, |x| gamma_cdf(k, x / scale), grain);
    }
    for (a, b) in [(2.0, 5.0), (0.5, 0.5), (1.0, 3.0), (30.0, 20.0)] {
        let what = format!("{name} beta({a}, {b})");
        let v = f(g.beta(N, t(a), t(b)).unwrap());
        assert!(v.iter().all(|&x| (0.0..=1.0).contains(&x)), "{what}: range");
        let var = a * b / ((a + b) * (a + b) * (a + b + 1.0));
        check_moments(&what, &v, a / (a + b), var);
        // (f16's steps of 2^-11 near 1 move the CDF of beta(0.5, 0.5), whose density is
        // unbounded there, by more than the KS limit: the moments are checked only.)
        if !(T::DTYPE == gpuarray::DType::F16 && a < 1.0) {
            check_ks(&what, &v, |x| beta_cdf(a, b, x), grain);
        }
    }
}

#[test]
fn continuous_f32() {
    continuous::<f32>(0.0);
}

/// f16 rounds each value to 11 bits: the KS distance may grow by the CDF's change over one
/// rounding step, at most about 2^-11 times the density's peak (taken as 2e-3 here).
#[test]
fn continuous_f16() {
    require_dtype!(f16);
    continuous::<f16>(2e-3);
}

#[test]
fn continuous_f64() {
    require_dtype!(f64);
    continuous::<f64>(0.0);
}

#[test]
fn discrete() {
    let dev = dev();
    let mut g = dev.default_rng(99);
    let v = |a: Array<i32>| host(&a);
    for lam in [0.0, 0.7, 3.5, 9.99, 10.0, 37.2, 1.0e5, 5.0e6] {
        let what = format!("poisson({lam})");
        let s = v(g.poisson(N, lam).unwrap());
        check_moments(&what, &s, lam, lam);
        let lo = (lam - 12.0 * lam.sqrt() - 20.0).max(0.0) as i64;
        let hi = (lam + 12.0 * lam.sqrt() + 20.0) as i64;
        let pmf = |k: i64| {
            if lam == 0.0 {
                return if k == 0 { 1.0 } else { 0.0 };
            }
            (k as f64 * lam.ln() - lam - ln_gamma(k as f64 + 1.0)).exp()
        };
        check_chi2(&what, &s, lo, hi, pmf);
    }
    // Counting gaps (n q < 10) and BTRS (n q >= 10, up to n near 2^24).
    let cases = [
        (10u32, 0.3),
        (25, 0.65),
        (7, 0.0),
        (7, 1.0),
        (40, 0.5),
        (1000, 0.9),
        (100_000, 0.001),
        (16_000_000, 0.37),
    ];
    for (n, p) in cases {
        let what = format!("binomial({n}, {p})");
        let s = v(g.binomial(N, n, p).unwrap());
        let nf = n as f64;
        let (mean, sd) = (nf * p, (nf * p * (1.0 - p)).sqrt());
        check_moments(&what, &s, mean, sd * sd);
        let lo = (mean - 12.0 * sd - 20.0).max(0.0) as i64;
        let hi = ((mean + 12.0 * sd + 20.0) as i64).min(n as i64);
        let pmf = |k: i64| {
            let k = k as f64;
            if p == 0.0 || p == 1.0 {
                return if k == nf * p { 1.0 } else { 0.0 };
            }
            (ln_binom(nf, k) + k * p.ln() + (nf - k) * (1.0 - p).ln()).exp()
        };
        check_chi2(&what, &s, lo, hi, pmf);
    }
    for p in [0.0, 0.3, 0.5, 1.0] {
        let what = format!("bernoulli({p})");
        let s: Vec<f64> = g
            .bernoulli(N, p)
            .unwrap()
            .to_vec()
            .unwrap()
            .iter()
            .map(|&b| f64::from(u8::from(b)))
            .collect();
        check_moments(&what, &s, p, p * (1.0 - p));
        check_chi2(&what, &s, 0, 1, |k| if k == 1 { p } else { 1.0 - p });
    }
    for (lo, hi) in [(-3i32, 4i32), (0, 1000)] {
        let what = format!("integers[{lo}, {hi})");
        let s = v(g.integers::<i32>(N, lo, hi).unwrap());
        let r = (hi - lo) as f64;
        check_moments(&what, &s, (lo + hi - 1) as f64 / 2.0, (r * r - 1.0) / 12.0);
        check_chi2(
            &what,
            &s.iter().map(|x| x - lo as f64).collect::<Vec<_>>(),
            0,
            (hi - lo - 1) as i64,
            |_| 1.0 / r,
        );
    }
}

/// Weighted choice with replacement draws each index with its weight's share.
#[test]
fn weighted_choice_frequencies() {
    let dev = dev();
    let w: Vec<f32> = (0..50).map(|i| ((i * 7) % 11) as f32).collect();
    let total: f64 = w.iter().map(|&x| x as f64).sum();
    let mut g = dev.default_rng(5);
    let s = host(
        &g.choice_weighted(&dev.from_slice(&w, [50]).unwrap(), N, true)
            .unwrap(),
    );
    check_chi2("choice_weighted", &s, 0, 49, |k| {
        w[k as usize] as f64 / total
    });
}
