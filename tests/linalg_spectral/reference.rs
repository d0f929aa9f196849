//! CPU references in f64: a cyclic two-sided Jacobi for symmetric eigenvalues, a one-sided
//! Jacobi for singular values, and the small matrix helpers the checks need. Matrices are
//! row-major `Vec<f64>` with explicit sizes.

/// `a` (m x k) times `b` (k x n).
pub fn matmul(a: &[f64], b: &[f64], m: usize, k: usize, n: usize) -> Vec<f64> {
    let mut c = vec![0.0; m * n];
    for i in 0..m {
        for l in 0..k {
            let x = a[i * k + l];
            for j in 0..n {
                c[i * n + j] += x * b[l * n + j];
            }
        }
    }
    c
}

/// The transpose of `a` (m x n).
pub fn transpose(a: &[f64], m: usize, n: usize) -> Vec<f64> {
    let mut t = vec![0.0; m * n];
    for i in 0..m {
        for j in 0..n {
            t[j * m + i] = a[i * n + j];
        }
    }
    t
}

pub fn fro(a: &[f64]) -> f64 {
    a.iter().map(|x| x * x).sum::<f64>().sqrt()
}

/// ||Q^T Q - I||_F for Q of m rows and n orthonormal columns.
pub fn orthogonality(q: &[f64], m: usize, n: usize) -> f64 {
    let g = matmul(&transpose(q, m, n), q, n, m, n);
    let mut e = 0.0;
    for i in 0..n {
        for j in 0..n {
            let d = g[i * n + j] - if i == j { 1.0 } else { 0.0 };
            e += d * d;
        }
    }
    e.sqrt()
}

/// The eigenvalues of the symmetric `a` (n x n), ascending: cyclic Jacobi to convergence.
pub fn eigvalsh(a: &[f64], n: usize) -> Vec<f64> {
    let mut a = a.to_vec();
    for _ in 0..100 {
        let mut off = 0.0;
        for i in 0..n {
            for j in 0..n {
                if i != j {
                    off += a[i * n + j] * a[i * n + j];
                }
            }
        }
        if off <= 1e-30 * fro(&a).powi(2) || off == 0.0 {
            break;
        }
        for p in 0..n {
            for q in p + 1..n {
                let apq = a[p * n + q];
                if apq == 0.0 {
                    continue;
                }
                let theta = (a[q * n + q] - a[p * n + p]) / (2.0 * apq);
                let t = theta.signum() / (theta.abs() + (theta * theta + 1.0).sqrt());
                let c = 1.0 / (t * t + 1.0).sqrt();
                let s = t * c;
                for k in 0..n {
                    let akp = a[k * n + p];
                    let akq = a[k * n + q];
                    a[k * n + p] = c * akp - s * akq;
                    a[k * n + q] = s * akp + c * akq;
                }
                for k in 0..n {
                    let apk = a[p * n + k];
                    let aqk = a[q * n + k];
                    a[p * n + k] = c * apk - s * aqk;
                    a[q * n + k] = s * apk + c * aqk;
                }
            }
        }
    }
    let mut w: Vec<f64> = (0..n).map(|i| a[i * n + i]).collect();
    w.sort_by(|x, y| x.partial_cmp(y).unwrap());
    w
}

/// The singular values of `a` (m x n), descending: one-sided Jacobi on its columns (or
/// rows, for a wide `a`).
pub fn svdvals(a: &[f64], m: usize, n: usize) -> Vec<f64> {
    let (cols, p, q) = if m >= n {
        (transpose(a, m, n), m, n)
    } else {
        (a.to_vec(), n, m)
    };
    let mut w = cols; // q rows of p
    for _ in 0..100 {
        let mut rotated = false;
        for i in 0..q {
            for j in i + 1..q {
                let (mut al, mut be, mut ga) = (0.0, 0.0, 0.0);
                for r in 0..p {
                    let (x, y) = (w[i * p + r], w[j * p + r]);
                    al += x * x;
                    be += y * y;
                    ga += x * y;
                }
                if ga.abs() <= 1e-15 * (al * be).sqrt() || ga == 0.0 {
                    continue;
                }
                rotated = true;
                let zeta = (be - al) / (2.0 * ga);
                let t = zeta.signum() / (zeta.abs() + (1.0 + zeta * zeta).sqrt());
                let c = 1.0 / (1.0 + t * t).sqrt();
                let s = c * t;
                for r in 0..p {
                    let (x, y) = (w[i * p + r], w[j * p + r]);
                    w[i * p + r] = c * x - s * y;
                    w[j * p + r] = s * x + c * y;
                }
            }
        }
        if !rotated {
            break;
        }
    }
    let mut s: Vec<f64> = (0..q)
        .map(|k| {
            w[k * p..(k + 1) * p]
                .iter()
                .map(|x| x * x)
                .sum::<f64>()
                .sqrt()
        })
        .collect();
    s.sort_by(|x, y| y.partial_cmp(x).unwrap());
    s
}

/// A random orthogonal n x n matrix: Gram-Schmidt (twice) of random columns.
pub fn orthogonal(rng: &mut super::common::Rng, n: usize) -> Vec<f64> {
    let mut q = vec![0.0; n * n]; // columns
    for j in 0..n {
        let mut v = rng.vec(n, -1.0, 1.0);
        for _ in 0..2 {
            for k in 0..j {
                let d: f64 = (0..n).map(|i| q[i * n + k] * v[i]).sum();
                for i in 0..n {
                    v[i] -= d * q[i * n + k];
                }
            }
        }
        let nv = fro(&v);
        for i in 0..n {
            q[i * n + j] = v[i] / nv;
        }
    }
    q
}

/// Q diag(d) Q^T for a random orthogonal Q: a symmetric matrix with eigenvalues d.
pub fn with_eigenvalues(rng: &mut super::common::Rng, d: &[f64]) -> Vec<f64> {
    let n = d.len();
    let q = orthogonal(rng, n);
    let mut qd = q.clone();
    for i in 0..n {
        for j in 0..n {
            qd[i * n + j] *= d[j];
        }
    }
    matmul(&qd, &transpose(&q, n, n), n, n, n)
}

/// U diag(s) V^T (m x n) for random orthogonal U, V: singular values s (min(m, n) of them).
pub fn with_singular_values(
    rng: &mut super::common::Rng,
    m: usize,
    n: usize,
    s: &[f64],
) -> Vec<f64> {
    let u = orthogonal(rng, m);
    let v = orthogonal(rng, n);
    let mut us = vec![0.0; m * n];
    for i in 0..m {
        for (j, &sj) in s.iter().enumerate() {
            us[i * n + j] = u[i * m + j] * sj;
        }
    }
    matmul(&us, &transpose(&v, n, n), m, n, n)
}
