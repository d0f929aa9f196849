//! Issue 18's audit, the statistics whose tests lacked views or zero sizes: nanvar, nanstd
//! (whole array and one axis), nanprod and average on a strided, offset, transposed view
//! against f64 CPU references, over zero sizes, and with bad axes or weights (typed
//! errors, the operands intact). f32 and f64.

use crate::common::{assert_close, dev, host, if_supported, Rng};
use gpuarray::{Array, Error, Float, Slice};

/// A [7, 5] view: rows from 1 of an [8, 15] array, every third column, transposed to
/// [5, 7]; NaN at every fourth element. Returns the view and its values by row.
fn view<T: Float>(seed: u64) -> (Array<T>, Vec<f64>, Array<T>) {
    let mut rng = Rng::new(seed);
    let mut all = rng.vec(8 * 15, 0.5, 1.5);
    for (k, v) in all.iter_mut().enumerate() {
        if k % 4 == 1 {
            *v = f64::NAN;
        }
    }
    let t: Vec<T> = all.iter().map(|&v| T::from_f64(v)).collect();
    let base = dev().from_slice(&t, [8, 15]).unwrap();
    let v = base
        .slice([Slice::from(1..), Slice::from(..).step(3)])
        .unwrap()
        .t();
    let held = host(&base);
    // v[i][j] = base[1 + j][3 i].
    let vals = (0..35)
        .map(|k| held[(1 + k % 7) * 15 + 3 * (k / 7)])
        .collect();
    (v, vals, base)
}

fn finite(g: &[f64]) -> Vec<f64> {
    g.iter().copied().filter(|v| !v.is_nan()).collect()
}

fn nanvar(g: &[f64]) -> f64 {
    let f = finite(g);
    let m = f.iter().sum::<f64>() / f.len() as f64;
    f.iter().map(|x| (x - m) * (x - m)).sum::<f64>() / f.len() as f64
}

fn nanprod(g: &[f64]) -> f64 {
    finite(g).iter().product()
}

/// Rows (axis 1) or columns (axis 0) of a [5, 7] row-major list.
fn lanes(vals: &[f64], axis: usize) -> Vec<Vec<f64>> {
    if axis == 1 {
        vals.chunks(7).map(|r| r.to_vec()).collect()
    } else {
        (0..7)
            .map(|c| (0..5).map(|r| vals[r * 7 + c]).collect())
            .collect()
    }
}

type Whole<T> = fn(&Array<T>) -> gpuarray::Result<Array<T>>;
type Along<T> = fn(&Array<T>, isize) -> gpuarray::Result<Array<T>>;
/// A name, the whole-array and one-axis forms, and the CPU reference of a lane.
type Case<T> = (&'static str, Whole<T>, Along<T>, fn(&[f64]) -> f64);

fn stats_on_view<T: Float>() {
    let (x, vals, base) = view::<T>(211);
    let before = host(&base);
    let tol = if T::DTYPE == gpuarray::DType::F64 {
        1e-12
    } else {
        2e-5
    };
    let cases: [Case<T>; 3] = [
        (
            "nanvar",
            |a| a.nanvar(),
            |a, k| a.nanvar_axis(k, 0, false),
            nanvar,
        ),
        (
            "nanstd",
            |a| a.nanstd(),
            |a, k| a.nanstd_axis(k, 0, false),
            |g| nanvar(g).sqrt(),
        ),
        (
            "nanprod",
            |a| a.nanprod(None, false),
            |a, k| a.nanprod(k, false),
            nanprod,
        ),
    ];
    for (name, whole, along, cpu) in cases {
        let w = whole(&x).unwrap();
        assert_eq!(w.ndim(), 0, "{name}");
        assert_close(&host(&w), &[cpu(&vals)], 0.0, tol);
        for (axis, signed) in [(0, -2), (1, -1)] {
            let want: Vec<f64> = lanes(&vals, axis).iter().map(|l| cpu(l)).collect();
            assert_close(&host(&along(&x, signed).unwrap()), &want, 0.0, tol);
        }
        assert!(
            matches!(along(&x, 2), Err(Error::AxisOutOfRange { .. })),
            "{name}"
        );
        // Zero sizes: the empty lanes give NaN (1 for the product), no lanes nothing.
        let z = dev().zeros::<T>([4, 0]).unwrap();
        let empty = if name == "nanprod" { 1.0 } else { f64::NAN };
        let r = host(&along(&z, 1).unwrap());
        assert!(
            r.len() == 4
                && r.iter()
                    .all(|v| v.to_bits() == empty.to_bits() || (v.is_nan() && empty.is_nan())),
            "{name} {r:?}"
        );
        assert_eq!(along(&z, 0).unwrap().shape(), &[0], "{name}");
        let r = host(&whole(&z).unwrap());
        assert!(
            r[0] == empty || (r[0].is_nan() && empty.is_nan()),
            "{name} {r:?}"
        );
    }
    let after: Vec<u64> = host(&base).iter().map(|v| v.to_bits()).collect();
    let before: Vec<u64> = before.iter().map(|v| v.to_bits()).collect();
    assert_eq!(after, before, "a reduction wrote its input");
}

#[test]
fn nan_statistics_on_views_and_zero_sizes() {
    stats_on_view::<f32>();
    if_supported::<f64>(stats_on_view::<f64>);
}

#[test]
fn average_on_views_zero_sizes_and_bad_weights() {
    let (x, vals, _base) = view::<f32>(212);
    // NaN-free values for the average: x where finite, else 0 (through nan_to_num).
    let x = x.nan_to_num(0.0, None, None).unwrap();
    let vals: Vec<f64> = vals
        .iter()
        .map(|v| if v.is_nan() { 0.0 } else { *v })
        .collect();
    let mut rng = Rng::new(213);
    let wv = rng.vec(7, 0.1, 2.0);
    let w: Vec<f32> = wv.iter().map(|&v| v as f32).collect();
    // Weights along axis 1 as a strided view too.
    let wide: Vec<f32> = w.iter().flat_map(|&v| [v, -5.0]).collect();
    let wa = dev()
        .from_slice(&wide, [14])
        .unwrap()
        .slice(Slice::from(..).step(2))
        .unwrap();
    let got = host(&x.average(Some(&wa), -1, false).unwrap());
    let want: Vec<f64> = lanes(&vals, 1)
        .iter()
        .map(|l| {
            let s: f64 = l.iter().zip(&w).map(|(v, &w)| v * w as f64).sum();
            s / w.iter().map(|&v| v as f64).sum::<f64>()
        })
        .collect();
    assert_close(&got, &want, 1e-6, 1e-5);
    // Zero sizes: an average over no elements has no weight (NumPy: ZeroDivisionError).
    let z = dev().zeros::<f32>([3, 0]).unwrap();
    let wz = dev().zeros::<f32>([0]).unwrap();
    assert!(matches!(
        z.average(Some(&wz), 1, false),
        Err(Error::InvalidArgument { .. })
    ));
    assert_eq!(z.average(None, 0, false).unwrap().shape(), &[0]);
    // Bad weights: another shape, a zero sum, a bad axis; the operands intact.
    let short = dev().from_slice(&[1.0f32, 2.0], [2]).unwrap();
    assert!(matches!(
        x.average(Some(&short), 1, false),
        Err(Error::ShapeMismatch { .. })
    ));
    let zero_sum = dev()
        .from_slice(&[1.0f32, -1.0, 0.0, 0.0, 0.0, 0.0, 0.0], [7])
        .unwrap();
    assert!(matches!(
        x.average(Some(&zero_sum), 1, false),
        Err(Error::InvalidArgument { .. })
    ));
    assert!(matches!(
        x.average(None, 3, false),
        Err(Error::AxisOutOfRange { .. })
    ));
    assert_close(&host(&x), &vals, 0.0, 0.0);
    assert_eq!(wa.to_vec().unwrap(), w);
}
