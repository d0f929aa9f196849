//! The CPU reference: discrete Fourier transforms in f64. Lengths up to 4096 by the
//! definition, with twiddles exp(-2 pi i (jk mod n) / n) and compensated (two-sum) sums;
//! powers of two by iterative radix 2; other lengths by Bluestein over radix 2, all in f64
//! with f64 twiddles: relative errors near 1e-15, far below the f32 tolerances and within a
//! small multiple of the complex128 ones (which allow for both sides' rounding).

use gpuarray::Complex;
use std::f64::consts::PI;

pub type C64 = Complex<f64>;

/// exp(-2 pi i j / n) (exp(+...) for inverse), from the reduced fraction.
pub fn root(j: usize, n: usize, inverse: bool) -> C64 {
    let j = j % n;
    let a = -2.0 * PI * j as f64 / n as f64;
    let (s, c) = a.sin_cos();
    C64::new(c, if inverse { -s } else { s })
}

fn two_sum(a: f64, b: f64) -> (f64, f64) {
    let s = a + b;
    let bb = s - a;
    (s, (a - (s - bb)) + (b - bb))
}

/// The unscaled transform of `x` (forward: exp(-...); inverse: exp(+...)).
pub fn dft(x: &[C64], inverse: bool) -> Vec<C64> {
    let n = x.len();
    if n.is_power_of_two() {
        radix2(x, inverse)
    } else if n <= 4096 {
        direct(x, inverse)
    } else {
        bluestein(x, inverse)
    }
}

fn direct(x: &[C64], inverse: bool) -> Vec<C64> {
    let n = x.len();
    let w: Vec<C64> = (0..n).map(|j| root(j, n, inverse)).collect();
    (0..n)
        .map(|k| {
            let (mut re, mut ce, mut im, mut ci) = (0.0, 0.0, 0.0, 0.0);
            for (j, v) in x.iter().enumerate() {
                let t = v * w[(j * k) % n];
                let (s, e) = two_sum(re, t.re);
                re = s;
                ce += e;
                let (s, e) = two_sum(im, t.im);
                im = s;
                ci += e;
            }
            C64::new(re + ce, im + ci)
        })
        .collect()
}

fn radix2(x: &[C64], inverse: bool) -> Vec<C64> {
    let n = x.len();
    let bits = n.trailing_zeros();
    let mut a: Vec<C64> = (0..n)
        .map(|i| {
            x[if bits == 0 {
                0
            } else {
                i.reverse_bits() >> (usize::BITS - bits)
            }]
        })
        .collect();
    let mut len = 2;
    while len <= n {
        let step = n / len;
        for start in (0..n).step_by(len) {
            for k in 0..len / 2 {
                let w = root(k * step, n, inverse);
                let u = a[start + k];
                let v = a[start + k + len / 2] * w;
                a[start + k] = u + v;
                a[start + k + len / 2] = u - v;
            }
        }
        len *= 2;
    }
    a
}

fn bluestein(x: &[C64], inverse: bool) -> Vec<C64> {
    let n = x.len();
    let m = (2 * n - 1).next_power_of_two();
    let chirp = |k: usize| {
        let r = ((k as u128 * k as u128) % (2 * n as u128)) as f64;
        let a = -PI * r / n as f64;
        let (s, c) = a.sin_cos();
        C64::new(c, if inverse { -s } else { s })
    };
    let mut a = vec![C64::new(0.0, 0.0); m];
    let mut b = vec![C64::new(0.0, 0.0); m];
    for k in 0..n {
        a[k] = x[k] * chirp(k);
        b[k] = chirp(k).conj();
        if k > 0 {
            b[m - k] = chirp(k).conj();
        }
    }
    let fa = radix2(&a, false);
    let fb = radix2(&b, false);
    let prod: Vec<C64> = fa.iter().zip(&fb).map(|(p, q)| p * q).collect();
    let conv = radix2(&prod, true);
    (0..n).map(|k| conv[k] * chirp(k) / m as f64).collect()
}

/// ||got - want|| / ||want|| (0 against 0 counts as 0).
pub fn rel_l2(got: &[C64], want: &[C64]) -> f64 {
    assert_eq!(got.len(), want.len(), "lengths differ");
    let num: f64 = got.iter().zip(want).map(|(a, b)| (a - b).norm_sqr()).sum();
    let den: f64 = want.iter().map(|b| b.norm_sqr()).sum();
    if den == 0.0 {
        num.sqrt()
    } else {
        (num / den).sqrt()
    }
}

/// Along axis `axis` of a row-major array of `shape`: the transform of every line,
/// each cropped or padded to `n`, scaled by `scale`.
pub fn along(
    x: &[C64],
    shape: &[usize],
    axis: usize,
    n: usize,
    inverse: bool,
    scale: f64,
) -> (Vec<C64>, Vec<usize>) {
    let outer: usize = shape[..axis].iter().product();
    let inner: usize = shape[axis + 1..].iter().product();
    let len = shape[axis];
    let mut oshape = shape.to_vec();
    oshape[axis] = n;
    let mut out = vec![C64::new(0.0, 0.0); outer * n * inner];
    for o in 0..outer {
        for i in 0..inner {
            let line: Vec<C64> = (0..n)
                .map(|k| {
                    if k < len {
                        x[(o * len + k) * inner + i]
                    } else {
                        C64::new(0.0, 0.0)
                    }
                })
                .collect();
            let y = dft(&line, inverse);
            for k in 0..n {
                out[(o * n + k) * inner + i] = y[k] * scale;
            }
        }
    }
    (out, oshape)
}
