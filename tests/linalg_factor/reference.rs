//! f64 CPU references: products, norms, backward errors, LU with partial pivoting, and the
//! test matrices (symmetric positive definite, graded).

use super::common::Rng;

/// `a` (m x k) times `b` (k x n), row-major.
pub fn matmul(a: &[f64], b: &[f64], m: usize, k: usize, n: usize) -> Vec<f64> {
    let mut c = vec![0.0; m * n];
    for i in 0..m {
        for p in 0..k {
            let x = a[i * k + p];
            if x != 0.0 {
                for j in 0..n {
                    c[i * n + j] += x * b[p * n + j];
                }
            }
        }
    }
    c
}

pub fn transpose(a: &[f64], m: usize, n: usize) -> Vec<f64> {
    (0..m * n).map(|t| a[(t % m) * n + t / m]).collect()
}

pub fn identity(n: usize) -> Vec<f64> {
    (0..n * n)
        .map(|t| if t / n == t % n { 1.0 } else { 0.0 })
        .collect()
}

pub fn fro(a: &[f64]) -> f64 {
    a.iter().map(|x| x * x).sum::<f64>().sqrt()
}

/// `||a - b||_F / ||b||_F` (0 for two empty or zero matrices).
pub fn rel_diff(a: &[f64], b: &[f64]) -> f64 {
    assert_eq!(a.len(), b.len());
    let d: Vec<f64> = a.iter().zip(b).map(|(x, y)| x - y).collect();
    let nb = fro(b);
    if nb == 0.0 {
        fro(&d)
    } else {
        fro(&d) / nb
    }
}

/// The normwise backward error `||A X - B|| / (||A|| ||X|| + ||B||)` (Frobenius) of the
/// solution `x` (n x k) of `A X = B`; NaN when x holds a non-finite value.
pub fn backward_error(a: &[f64], x: &[f64], b: &[f64], n: usize, k: usize) -> f64 {
    if x.iter().any(|v| !v.is_finite()) {
        return f64::NAN;
    }
    let ax = matmul(a, x, n, n, k);
    let r: Vec<f64> = ax.iter().zip(b).map(|(p, q)| p - q).collect();
    let den = fro(a) * fro(x) + fro(b);
    if den == 0.0 {
        0.0
    } else {
        fro(&r) / den
    }
}

/// LU with partial pivoting in f64 (the first of equal magnitudes): (lu, pivots, sign).
pub fn lu_ref(a: &[f64], n: usize) -> (Vec<f64>, Vec<usize>, f64) {
    let mut lu = a.to_vec();
    let mut piv = vec![0; n];
    let mut sign = 1.0;
    for j in 0..n {
        let mut p = j;
        for i in j + 1..n {
            if lu[i * n + j].abs() > lu[p * n + j].abs() {
                p = i;
            }
        }
        piv[j] = p;
        if p != j {
            sign = -sign;
            for c in 0..n {
                lu.swap(j * n + c, p * n + c);
            }
        }
        let d = lu[j * n + j];
        if d != 0.0 {
            for i in j + 1..n {
                lu[i * n + j] /= d;
                let l = lu[i * n + j];
                for c in j + 1..n {
                    lu[i * n + c] -= l * lu[j * n + c];
                }
            }
        }
    }
    (lu, piv, sign)
}

/// NumPy's slogdet in f64.
pub fn slogdet_ref(a: &[f64], n: usize) -> (f64, f64) {
    let (lu, _, mut sign) = lu_ref(a, n);
    let mut l = 0.0;
    for i in 0..n {
        let d = lu[i * n + i];
        if d == 0.0 {
            return (0.0, f64::NEG_INFINITY);
        }
        if d < 0.0 {
            sign = -sign;
        }
        l += d.abs().ln();
    }
    (sign, l)
}

/// The inverse in f64 (by LU).
pub fn inv_ref(a: &[f64], n: usize) -> Vec<f64> {
    let (lu, piv, _) = lu_ref(a, n);
    let mut x = identity(n);
    for (j, &p) in piv.iter().enumerate() {
        for c in 0..n {
            x.swap(j * n + c, p * n + c);
        }
    }
    for c in 0..n {
        for i in 0..n {
            let mut s = x[i * n + c];
            for p in 0..i {
                s -= lu[i * n + p] * x[p * n + c];
            }
            x[i * n + c] = s;
        }
        for i in (0..n).rev() {
            let mut s = x[i * n + c];
            for p in i + 1..n {
                s -= lu[i * n + p] * x[p * n + c];
            }
            x[i * n + c] = s / lu[i * n + i];
        }
    }
    x
}

/// `count` symmetric positive definite n x n matrices: `M M^T / n + I`.
pub fn spd(rng: &mut Rng, count: usize, n: usize) -> Vec<f64> {
    let mut out = Vec::with_capacity(count * n * n);
    for _ in 0..count {
        let m = rng.vec(n * n, -1.0, 1.0);
        let mut s = matmul(&m, &transpose(&m, n, n), n, n, n);
        for (t, v) in s.iter_mut().enumerate() {
            *v /= n as f64;
            if t / n == t % n {
                *v += 1.0;
            }
        }
        out.extend(s);
    }
    out
}

/// A graded n x n matrix of condition about 10^top: rows scaled from 1 to 10^-top,
/// times a random well-conditioned matrix (diagonally dominant).
pub fn graded(rng: &mut Rng, n: usize, top: f64) -> Vec<f64> {
    let mut a = rng.vec(n * n, -1.0, 1.0);
    for i in 0..n {
        a[i * n + i] += n as f64;
        let s = 10f64.powf(-top * i as f64 / (n - 1) as f64);
        for j in 0..n {
            a[i * n + j] *= s;
        }
    }
    a
}
