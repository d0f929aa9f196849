//! The NaN-ignoring reductions, ptp and count_nonzero over sets of axes (`*_axis(axes,
//! keepdims)`) against f64 CPU references: a strided view with NaN, infinities and -0, every
//! set of axes of a 3-d array with and without keepdims, zero sizes and bad arguments.

use super::common::{dev, host, unravel, upload, Host, Rng};
use super::{nanarg, nanmean, nansum, nanvar, values, Nan};
use gpuarray::{Array, Error, Slice};

/// The elements of `h` grouped by output (C order of the kept axes), reducing `axes`.
fn groups(h: &Host, axes: &[usize]) -> Vec<Vec<f64>> {
    let kept: Vec<usize> = (0..h.shape.len()).filter(|d| !axes.contains(d)).collect();
    let outs: usize = kept.iter().map(|&d| h.shape[d]).product();
    let mut g = vec![Vec::new(); outs];
    for (i, &v) in h.data.iter().enumerate() {
        let idx = unravel(i, &h.shape);
        let o = kept.iter().fold(0, |o, &d| o * h.shape[d] + idx[d]);
        g[o].push(v);
    }
    g
}

/// The result's shape: reduced axes dropped, or kept with extent 1.
fn out_shape(shape: &[usize], axes: &[usize], keepdims: bool) -> Vec<usize> {
    (0..shape.len())
        .filter_map(|d| match (axes.contains(&d), keepdims) {
            (false, _) => Some(shape[d]),
            (true, true) => Some(1),
            (true, false) => None,
        })
        .collect()
}

fn nanmax(g: &[f64]) -> f64 {
    nanarg(g, |x, b| x > b).1
}

fn nanmin(g: &[f64]) -> f64 {
    nanarg(g, |x, b| x < b).1
}

fn ptp(g: &[f64]) -> f64 {
    if g.iter().any(|x| x.is_nan()) {
        return f64::NAN;
    }
    g.iter().cloned().fold(f64::NEG_INFINITY, f64::max)
        - g.iter().cloned().fold(f64::INFINITY, f64::min)
}

type Method = fn(&Array<f32>, &[usize], bool) -> gpuarray::Result<Array<f32>>;
/// A method's name, the method, its f64 reference on one output's elements, its rtol.
type Case = (&'static str, Method, fn(&[f64]) -> f64, f64);

#[test]
fn reductions_over_axes_keep_dims() {
    let mut rng = Rng::new(18);
    let shape = [5, 8, 7];
    let (base, back) = upload::<f32>(
        dev(),
        &values::<f32>(&mut rng, &shape, Nan::Special),
        &shape,
    );
    let x = base
        .slice([Slice::from(0..), Slice::from(1..).step(2), Slice::from(0..)])
        .unwrap();
    let h = Host::new(&shape, back).slice(&[(0, 5, 1), (1, 8, 2), (0, 7, 1)]);
    assert_eq!(x.shape(), h.shape.as_slice());
    let cases: [Case; 7] = [
        ("nansum", |a, x, k| a.nansum_axis(x, k), nansum, 1e-5),
        ("nanmax", |a, x, k| a.nanmax_axis(x, k), nanmax, 0.0),
        ("nanmin", |a, x, k| a.nanmin_axis(x, k), nanmin, 0.0),
        ("nanmean", |a, x, k| a.nanmean_axis(x, k), nanmean, 1e-5),
        (
            "nanvar",
            |a, x, k| a.nanvar_axis(x, 0, k),
            |g| nanvar(g, 0),
            1e-4,
        ),
        (
            "nanstd",
            |a, x, k| a.nanstd_axis(x, 0, k),
            |g| nanvar(g, 0).sqrt(),
            1e-4,
        ),
        ("ptp", |a, x, k| a.ptp_axis(x, k), ptp, 1e-6),
    ];
    let sets: [&[usize]; 7] = [&[0], &[1], &[2], &[0, 2], &[2, 0], &[1, 2], &[0, 1, 2]];
    for axes in sets {
        for keepdims in [false, true] {
            let want_shape = out_shape(x.shape(), axes, keepdims);
            let g = groups(&h, axes);
            for (name, f, reference, rtol) in cases {
                let r = f(&x, axes, keepdims).unwrap();
                assert_eq!(
                    r.shape(),
                    want_shape.as_slice(),
                    "{name} {axes:?} {keepdims}"
                );
                let e: Vec<f64> = g.iter().map(|l| reference(l)).collect();
                eprintln!("case: {name} axes {axes:?} keepdims {keepdims}");
                super::common::assert_close(&host(&r), &e, 1e-5, rtol);
            }
            let c = x.count_nonzero_axis(axes, keepdims).unwrap();
            assert_eq!(c.shape(), want_shape.as_slice());
            let e: Vec<f64> = g
                .iter()
                .map(|l| l.iter().filter(|&&v| v != 0.0).count() as f64)
                .collect();
            assert_eq!(host(&c), e, "count_nonzero {axes:?} {keepdims}");
        }
    }
}

#[test]
fn reductions_over_axes_edges_and_bad_arguments() {
    // Integers: the plain reductions.
    let i = dev().from_slice(&[3i32, -7, 2, 9, 0, 1], [2, 3]).unwrap();
    assert_eq!(
        i.nansum_axis([1], true).unwrap().to_vec().unwrap(),
        vec![-2, 10]
    );
    assert_eq!(i.nanmax_axis([0], true).unwrap().shape(), &[1, 3]);
    assert_eq!(
        i.ptp_axis([0, 1], false).unwrap().to_vec().unwrap(),
        vec![16]
    );
    // Zero sizes: sums and counts give their identity, the extremes fail.
    let e = dev().zeros::<f32>([0, 3]).unwrap();
    let s = e.nansum_axis([0], true).unwrap();
    assert_eq!(
        (s.shape(), s.to_vec().unwrap()),
        (&[1usize, 3][..], vec![0.0; 3])
    );
    assert_eq!(
        e.count_nonzero_axis([0], false).unwrap().to_vec().unwrap(),
        vec![0; 3]
    );
    assert!(e.nanmean_axis([0, 1], true).unwrap().to_vec().unwrap()[0].is_nan());
    assert_eq!(e.nansum_axis([1], true).unwrap().shape(), &[0, 1]);
    assert!(matches!(
        e.nanmax_axis([0], true),
        Err(Error::InvalidArgument { .. })
    ));
    assert!(matches!(
        e.ptp_axis([0], false),
        Err(Error::InvalidArgument { .. })
    ));
    // Bad axes; the input stays usable.
    let x = dev()
        .from_slice(&[1.0f32, f32::NAN, 3.0, 4.0], [2, 2])
        .unwrap();
    assert!(matches!(
        x.nanstd_axis([2], 0, true),
        Err(Error::AxisOutOfRange { .. })
    ));
    assert!(matches!(
        x.count_nonzero_axis([5], false),
        Err(Error::AxisOutOfRange { .. })
    ));
    assert!(matches!(
        x.nanvar_axis([0, 0], 0, true),
        Err(Error::InvalidArgument { .. })
    ));
    assert!(matches!(
        x.ptp_axis([1, 1], true),
        Err(Error::InvalidArgument { .. })
    ));
    assert_eq!(
        x.nansum_axis(gpuarray::Axes::Many(vec![]), true)
            .unwrap()
            .shape(),
        &[2, 2]
    );
    assert_eq!(x.nansum().unwrap().to_scalar().unwrap(), 8.0);
}
