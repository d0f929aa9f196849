//! signal::fftconvolve against a direct n-D convolution in f64 (SciPy's modes, inputs of
//! either size order), within `8 (log2 n + 2) u` of the largest output, and its bad inputs.

use crate::common::{dev, unravel, Rng};
use crate::unit;
use gpuarray::signal::{fftconvolve, Mode};
use gpuarray::{Error, Float};

/// The full convolution of row-major `a` (shape `sa`) and `b` (shape `sb`).
fn full(a: &[f64], sa: &[usize], b: &[f64], sb: &[usize]) -> (Vec<f64>, Vec<usize>) {
    let so: Vec<usize> = sa.iter().zip(sb).map(|(x, y)| x + y - 1).collect();
    let len: usize = so.iter().product();
    let mut out = vec![0.0; len];
    for (i, &av) in a.iter().enumerate() {
        let ia = unravel(i, sa);
        for (j, &bv) in b.iter().enumerate() {
            let jb = unravel(j, sb);
            let mut o = 0;
            for d in 0..so.len() {
                o = o * so[d] + ia[d] + jb[d];
            }
            out[o] += av * bv;
        }
    }
    (out, so)
}

/// The centred part of `shape` `keep` of row-major `x`.
fn centred(x: &[f64], shape: &[usize], keep: &[usize]) -> Vec<f64> {
    let len: usize = keep.iter().product();
    (0..len)
        .map(|i| {
            let k = unravel(i, keep);
            let mut o = 0;
            for d in 0..shape.len() {
                o = o * shape[d] + k[d] + (shape[d] - keep[d]) / 2;
            }
            x[o]
        })
        .collect()
}

fn cases<T: Float + gpuarray::fft::FftFloat>()
where
    T::Complex: gpuarray::ComplexFloat<Real = T>,
{
    let mut rng = Rng::new(40);
    let shapes: &[(&[usize], &[usize])] = &[
        (&[5], &[3]),
        (&[100], &[17]),
        (&[17], &[100]),
        (&[1], &[1]),
        (&[6], &[6]),
        (&[6, 7], &[3, 4]),
        (&[2, 3], &[5, 5]),
        (&[4, 3, 5], &[2, 3, 2]),
    ];
    for &(sa, sb) in shapes {
        let na: usize = sa.iter().product();
        let nb: usize = sb.iter().product();
        let av: Vec<T> = rng
            .vec(na, -1.0, 1.0)
            .iter()
            .map(|&v| T::from_f64(v))
            .collect();
        let bv: Vec<T> = rng
            .vec(nb, -1.0, 1.0)
            .iter()
            .map(|&v| T::from_f64(v))
            .collect();
        let ah: Vec<f64> = av.iter().map(|v| v.to_f64()).collect();
        let bh: Vec<f64> = bv.iter().map(|v| v.to_f64()).collect();
        let a = dev().from_slice(&av, sa).unwrap();
        let b = dev().from_slice(&bv, sb).unwrap();
        let (f, fs) = full(&ah, sa, &bh, sb);
        let big = f.iter().fold(0.0f64, |m, v| m.max(v.abs()));
        let n: usize = fs.iter().product();
        let u = unit::<T::Complex>();
        let tol = 8.0 * ((n.max(2) as f64).log2() + 2.0) * u * big.max(1.0);
        let ge = sa.iter().zip(sb).all(|(x, y)| x >= y) || sa.iter().zip(sb).all(|(x, y)| y >= x);
        for mode in [Mode::Full, Mode::Same, Mode::Valid] {
            let keep: Vec<usize> = match mode {
                Mode::Full => fs.clone(),
                Mode::Same => sa.to_vec(),
                Mode::Valid => sa
                    .iter()
                    .zip(sb)
                    .map(|(x, y)| x.max(y) - x.min(y) + 1)
                    .collect(),
            };
            let r = fftconvolve(&a, &b, mode);
            if mode == Mode::Valid && !ge {
                assert!(
                    matches!(r, Err(Error::InvalidArgument { .. })),
                    "{sa:?} {sb:?}"
                );
                continue;
            }
            let r = r.unwrap();
            assert_eq!(r.shape(), &keep[..], "{sa:?} {sb:?} {mode:?}");
            let want = centred(&f, &fs, &keep);
            let got: Vec<f64> = r.to_vec().unwrap().iter().map(|v| v.to_f64()).collect();
            for (k, (g, w)) in got.iter().zip(&want).enumerate() {
                assert!(
                    (g - w).abs() <= tol,
                    "{sa:?} {sb:?} {mode:?} [{k}]: {g} against {w} (tol {tol:e})"
                );
            }
        }
    }
}

crate::per_dtype! {
    [f32_: f32, f64_: f64] => {
        fftconvolve_modes => cases::<T>();
    }
}

#[test]
fn fftconvolve_bad_inputs() {
    let a = dev().from_slice(&[1.0f32, 2.0, 3.0], [3]).unwrap();
    let b = dev().from_slice(&[1.0f32, 2.0], [1, 2]).unwrap();
    let e = dev().zeros::<f32>([0]).unwrap();
    assert!(matches!(
        fftconvolve(&a, &b, Mode::Full),
        Err(Error::InvalidArgument { .. })
    ));
    assert!(matches!(
        fftconvolve(&a, &e, Mode::Full),
        Err(Error::InvalidArgument { .. })
    ));
    assert_eq!(a.to_vec().unwrap(), vec![1.0, 2.0, 3.0]);
}
