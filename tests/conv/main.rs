//! Convolutions: `signal::{convolve, correlate, convolve2d, correlate2d}` against SciPy's
//! golden values and a CPU f64 reference (every mode and boundary; odd, even, 1x1 and
//! larger-than-input filters; both 2-D kernels), `nn::{conv1d, conv2d}` against golden
//! values and a CPU reference (stride, padding, dilation, groups, depthwise, bias, batch 1
//! and 3; every conv2d kernel: tests/conv/layers.rs), per dtype; invalid shapes and options are typed errors.
//!
//! The golden values and the Python script that made them are in tests/conv_golden/mod.rs
//! (SciPy for the signal functions; for nn, PyTorch was not installable, so an independent
//! reference built on `scipy.signal.correlate2d`, described there).

#[path = "../common/mod.rs"]
#[macro_use]
mod common;
#[path = "../conv_golden/mod.rs"]
#[rustfmt::skip]
mod golden;
mod layers;

use common::{assert_close, dev, host, upload, Rng, Ty};
use gpuarray::nn::{conv1d, conv2d, Conv1d, Conv2d};
use gpuarray::signal::{
    convolve, convolve2d, convolve2d_with, correlate, correlate2d, correlate2d_with, Boundary, Mode,
};
use gpuarray::{f16, Array, Error, Float};

const MODES: [Mode; 3] = [Mode::Full, Mode::Same, Mode::Valid];

fn up<T: Ty + Float>(v: &[f64], shape: &[usize]) -> Array<T> {
    upload::<T>(dev(), v, shape).0
}

// ---------------------------------------------------------------- CPU reference

/// Start of mode `mode` in the full output along one axis and its length.
fn cut(mode: Mode, n: usize, m: usize, same: usize) -> (usize, usize) {
    match mode {
        Mode::Full => (0, n + m - 1),
        Mode::Same => (same, n),
        Mode::Valid => (n.min(m) - 1, n.max(m) - n.min(m) + 1),
    }
}

/// scipy.signal.convolve / correlate of 1-D real arrays, from the definitions.
fn ref1d(x: &[f64], k: &[f64], mode: Mode, conv: bool) -> Vec<f64> {
    let (n, m) = (x.len(), k.len());
    let full: Vec<f64> = (0..n + m - 1)
        .map(|i| {
            (0..n)
                .filter_map(|j| {
                    // conv: x[j] k[i - j]; corr: x[j] k[j - i + m - 1]
                    let t = if conv {
                        i as i64 - j as i64
                    } else {
                        j as i64 - i as i64 + m as i64 - 1
                    };
                    (0..m as i64).contains(&t).then(|| x[j] * k[t as usize])
                })
                .sum()
        })
        .collect();
    let (s, len) = cut(mode, n, m, (m - 1) / 2);
    full[s..s + len].to_vec()
}

/// The input extended by the boundary rule to index (r, c) (any integers).
fn ext(x: &[f64], h: usize, w: usize, r: i64, c: i64, b: Boundary) -> f64 {
    let map = |i: i64, n: usize| -> Option<usize> {
        let n = n as i64;
        if (0..n).contains(&i) {
            return Some(i as usize);
        }
        match b {
            Boundary::Fill(_) => None,
            Boundary::Wrap => Some(i.rem_euclid(n) as usize),
            Boundary::Symmetric => {
                let j = i.rem_euclid(2 * n);
                Some(if j < n { j } else { 2 * n - 1 - j } as usize)
            }
        }
    };
    match (map(r, h), map(c, w)) {
        (Some(r), Some(c)) => x[r * w + c],
        _ => match b {
            Boundary::Fill(v) => v,
            _ => unreachable!(),
        },
    }
}

/// scipy.signal.convolve2d / correlate2d: the full output over the extended input, cut.
fn ref2d(
    x: &[f64],
    (h, w): (usize, usize),
    k: &[f64],
    (kh, kw): (usize, usize),
    mode: Mode,
    b: Boundary,
    conv: bool,
) -> (Vec<f64>, [usize; 2]) {
    // Valid never reads the boundary (SciPy swaps a larger filter in: zero there).
    let b = if mode == Mode::Valid {
        Boundary::Fill(0.0)
    } else {
        b
    };
    let same = |k: usize| if conv { (k - 1) / 2 } else { k / 2 };
    let (sy, oh) = cut(mode, h, kh, same(kh));
    let (sx, ow) = cut(mode, w, kw, same(kw));
    let mut out = vec![0.0; oh * ow];
    for i in 0..oh {
        for j in 0..ow {
            // full index (fi, fj); conv: sum x[fi - a, fj - b'] k[a, b'];
            // corr: sum x[fi - (kh - 1) + a, ...] k[a, b'].
            let (fi, fj) = ((i + sy) as i64, (j + sx) as i64);
            let mut s = 0.0;
            for a in 0..kh {
                for bb in 0..kw {
                    let (r, c) = if conv {
                        (fi - a as i64, fj - bb as i64)
                    } else {
                        (fi - (kh - 1 - a) as i64, fj - (kw - 1 - bb) as i64)
                    };
                    s += ext(x, h, w, r, c, b) * k[a * kw + bb];
                }
            }
            out[i * ow + j] = s;
        }
    }
    (out, [oh, ow])
}

/// PyTorch's conv2d, from its definition.
#[allow(clippy::too_many_arguments)]
fn ref_nn(
    x: &[f64],
    [n, c, h, w]: [usize; 4],
    wt: &[f64],
    [o, cg, kh, kw]: [usize; 4],
    bias: Option<&[f64]>,
    opt: Conv2d,
) -> (Vec<f64>, [usize; 4]) {
    let oh = (h + 2 * opt.padding[0] - opt.dilation[0] * (kh - 1) - 1) / opt.stride[0] + 1;
    let ow = (w + 2 * opt.padding[1] - opt.dilation[1] * (kw - 1) - 1) / opt.stride[1] + 1;
    let og = o / opt.groups;
    let mut out = vec![0.0; n * o * oh * ow];
    for b in 0..n {
        for oc in 0..o {
            let g = oc / og;
            for y in 0..oh {
                for xx in 0..ow {
                    let mut s = bias.map_or(0.0, |bv| bv[oc]);
                    for ci in 0..cg {
                        for a in 0..kh {
                            for bb in 0..kw {
                                let iy = (y * opt.stride[0] + a * opt.dilation[0]) as i64
                                    - opt.padding[0] as i64;
                                let ix = (xx * opt.stride[1] + bb * opt.dilation[1]) as i64
                                    - opt.padding[1] as i64;
                                if iy < 0 || ix < 0 || iy >= h as i64 || ix >= w as i64 {
                                    continue;
                                }
                                let xi =
                                    ((b * c + g * cg + ci) * h + iy as usize) * w + ix as usize;
                                s += x[xi] * wt[((oc * cg + ci) * kh + a) * kw + bb];
                            }
                        }
                    }
                    out[((b * o + oc) * oh + y) * ow + xx] = s;
                }
            }
        }
    }
    (out, [n, o, oh, ow])
}

/// Tolerance for sums of `k` products of values of magnitude <= 2: the rounding of the
/// inputs plus the sum's own rounding, `4 k` units of epsilon (each product up to 4; random
/// data stays well inside that whichever order a kernel sums in: `T::EPS * k` was too tight
/// for nn_gemm's tap-major order, 1.4e-4 against 1.36e-4 at k = 577).
fn tol<T: Ty + Float>(k: usize) -> (f64, f64) {
    let eps = if T::NAME == "f16" {
        2.0 * T::EPS
    } else {
        T::EPS
    };
    (
        eps * 4.0 * (4.0 * k as f64).sqrt() + 4.0 * T::EPS * k as f64,
        eps * 4.0,
    )
}

fn values(rng: &mut Rng, n: usize) -> Vec<f64> {
    rng.vec(n, -2.0, 2.0)
}

// ---------------------------------------------------------------- golden values (SciPy)

#[track_caller]
fn golden_close(a: &Array<f32>, shape: &[usize], expected: &[f64]) {
    assert_eq!(a.shape(), shape);
    assert_close(&host(a), expected, 1e-5, 1e-5);
}

/// A 1-D filter and SciPy's outputs: [convolve, correlate] x [full, same, valid].
type Golden1d = (&'static [f64], [[&'static [f64]; 3]; 2]);

#[test]
fn golden_signal_1d() {
    let x = up::<f32>(golden::X1, &[7]);
    let cases: [Golden1d; 3] = [
        (
            golden::K4,
            [
                [
                    golden::CONV1_K4_FULL,
                    golden::CONV1_K4_SAME,
                    golden::CONV1_K4_VALID,
                ],
                [
                    golden::CORR1_K4_FULL,
                    golden::CORR1_K4_SAME,
                    golden::CORR1_K4_VALID,
                ],
            ],
        ),
        (
            golden::K3,
            [
                [
                    golden::CONV1_K3_FULL,
                    golden::CONV1_K3_SAME,
                    golden::CONV1_K3_VALID,
                ],
                [
                    golden::CORR1_K3_FULL,
                    golden::CORR1_K3_SAME,
                    golden::CORR1_K3_VALID,
                ],
            ],
        ),
        (
            golden::K9,
            [
                [
                    golden::CONV1_K9_FULL,
                    golden::CONV1_K9_SAME,
                    golden::CONV1_K9_VALID,
                ],
                [
                    golden::CORR1_K9_FULL,
                    golden::CORR1_K9_SAME,
                    golden::CORR1_K9_VALID,
                ],
            ],
        ),
    ];
    for (k, expected) in cases {
        let kd = up::<f32>(k, &[k.len()]);
        for (mi, mode) in MODES.into_iter().enumerate() {
            let c = convolve(&x, &kd, mode).unwrap();
            golden_close(&c, &[expected[0][mi].len()], expected[0][mi]);
            let r = correlate(&x, &kd, mode).unwrap();
            golden_close(&r, &[expected[1][mi].len()], expected[1][mi]);
        }
    }
}

macro_rules! golden2d {
    ($name:ident, $k:ident, $kshape:expr, [$($f:ident, $m:expr, $b:expr, $out:ident, $shape:ident);* $(;)?]) => {
        #[test]
        fn $name() {
            let img = up::<f32>(golden::IMG, &[5, 6]);
            let k = up::<f32>(golden::$k, &$kshape);
            $(
                let r = $f(&img, &k, $m, $b).unwrap();
                golden_close(&r, golden::$shape, golden::$out);
            )*
        }
    };
}

golden2d!(golden_convolve2d_even_filter, KE, [3, 4], [
    convolve2d_with, Mode::Full, Boundary::Fill(0.5), CONV2_KE_FULL_FILL, CONV2_KE_FULL_FILL_SHAPE;
    convolve2d_with, Mode::Full, Boundary::Symmetric, CONV2_KE_FULL_SYMM, CONV2_KE_FULL_SYMM_SHAPE;
    convolve2d_with, Mode::Full, Boundary::Wrap, CONV2_KE_FULL_WRAP, CONV2_KE_FULL_WRAP_SHAPE;
    convolve2d_with, Mode::Same, Boundary::Fill(0.5), CONV2_KE_SAME_FILL, CONV2_KE_SAME_FILL_SHAPE;
    convolve2d_with, Mode::Same, Boundary::Symmetric, CONV2_KE_SAME_SYMM, CONV2_KE_SAME_SYMM_SHAPE;
    convolve2d_with, Mode::Same, Boundary::Wrap, CONV2_KE_SAME_WRAP, CONV2_KE_SAME_WRAP_SHAPE;
    convolve2d_with, Mode::Valid, Boundary::Fill(0.5), CONV2_KE_VALID_FILL, CONV2_KE_VALID_FILL_SHAPE;
    convolve2d_with, Mode::Valid, Boundary::Wrap, CONV2_KE_VALID_WRAP, CONV2_KE_VALID_WRAP_SHAPE;
]);

golden2d!(golden_correlate2d_even_filter, KE, [3, 4], [
    correlate2d_with, Mode::Full, Boundary::Fill(0.5), CORR2_KE_FULL_FILL, CORR2_KE_FULL_FILL_SHAPE;
    correlate2d_with, Mode::Full, Boundary::Symmetric, CORR2_KE_FULL_SYMM, CORR2_KE_FULL_SYMM_SHAPE;
    correlate2d_with, Mode::Full, Boundary::Wrap, CORR2_KE_FULL_WRAP, CORR2_KE_FULL_WRAP_SHAPE;
    correlate2d_with, Mode::Same, Boundary::Fill(0.5), CORR2_KE_SAME_FILL, CORR2_KE_SAME_FILL_SHAPE;
    correlate2d_with, Mode::Same, Boundary::Symmetric, CORR2_KE_SAME_SYMM, CORR2_KE_SAME_SYMM_SHAPE;
    correlate2d_with, Mode::Same, Boundary::Wrap, CORR2_KE_SAME_WRAP, CORR2_KE_SAME_WRAP_SHAPE;
    correlate2d_with, Mode::Valid, Boundary::Symmetric, CORR2_KE_VALID_SYMM, CORR2_KE_VALID_SYMM_SHAPE;
]);

golden2d!(golden_2d_filter_larger_than_input, KB, [6, 7], [
    convolve2d_with, Mode::Full, Boundary::Fill(0.5), CONV2_KB_FULL_FILL, CONV2_KB_FULL_FILL_SHAPE;
    convolve2d_with, Mode::Same, Boundary::Symmetric, CONV2_KB_SAME_SYMM, CONV2_KB_SAME_SYMM_SHAPE;
    convolve2d_with, Mode::Same, Boundary::Wrap, CONV2_KB_SAME_WRAP, CONV2_KB_SAME_WRAP_SHAPE;
    correlate2d_with, Mode::Full, Boundary::Symmetric, CORR2_KB_FULL_SYMM, CORR2_KB_FULL_SYMM_SHAPE;
    correlate2d_with, Mode::Same, Boundary::Fill(0.5), CORR2_KB_SAME_FILL, CORR2_KB_SAME_FILL_SHAPE;
    correlate2d_with, Mode::Full, Boundary::Wrap, CORR2_KB_FULL_WRAP, CORR2_KB_FULL_WRAP_SHAPE;
]);

#[test]
fn golden_2d_valid_swaps_a_larger_filter() {
    let img = up::<f32>(golden::IMG, &[5, 6]);
    let k = up::<f32>(golden::KV, &[6, 8]);
    let c = convolve2d(&img, &k, Mode::Valid).unwrap();
    golden_close(&c, golden::CONV2_KV_VALID_SHAPE, golden::CONV2_KV_VALID);
    let r = correlate2d(&img, &k, Mode::Valid).unwrap();
    golden_close(&r, golden::CORR2_KV_VALID_SHAPE, golden::CORR2_KV_VALID);
}

#[test]
fn golden_nn() {
    let x = up::<f32>(golden::NN_X, &[2, 4, 5, 6]);
    let w = up::<f32>(golden::NN_W, &[6, 2, 3, 2]);
    let b = up::<f32>(golden::NN_B, &[6]);
    let opt = Conv2d {
        stride: [2, 1],
        padding: [1, 2],
        dilation: [1, 2],
        groups: 2,
    };
    let y = conv2d(&x, &w, Some(&b), opt).unwrap();
    golden_close(&y, golden::NN_OUT_SHAPE, golden::NN_OUT);
    let wd = up::<f32>(golden::DW_W, &[4, 1, 3, 3]);
    let dw = Conv2d {
        padding: [1, 1],
        groups: 4,
        ..Default::default()
    };
    let y = conv2d(&x, &wd, None, dw).unwrap();
    golden_close(&y, golden::DW_OUT_SHAPE, golden::DW_OUT);
    let x1 = up::<f32>(golden::C1_X, &[1, 2, 9]);
    let w1 = up::<f32>(golden::C1_W, &[4, 2, 3]);
    let b1 = up::<f32>(golden::C1_B, &[4]);
    let opt = Conv1d {
        stride: 2,
        padding: 1,
        dilation: 2,
        groups: 1,
    };
    let y = conv1d(&x1, &w1, Some(&b1), opt).unwrap();
    golden_close(&y, golden::C1_OUT_SHAPE, golden::C1_OUT);
}

// ---------------------------------------------------------------- random cases vs the CPU

fn check_1d<T: Ty + Float>(rng: &mut Rng, n: usize, m: usize) {
    let (x, xv) = upload::<T>(dev(), &values(rng, n), &[n]);
    let (k, kv) = upload::<T>(dev(), &values(rng, m), &[m]);
    for mode in MODES {
        for conv in [true, false] {
            let r = if conv {
                convolve(&x, &k, mode)
            } else {
                correlate(&x, &k, mode)
            }
            .unwrap();
            let e = ref1d(&xv, &kv, mode, conv);
            assert_eq!(r.shape(), &[e.len()], "n {n} m {m} {mode:?} conv {conv}");
            let (atol, rtol) = tol::<T>(m.min(n));
            assert_close(&host(&r), &e, atol, rtol);
        }
    }
}

fn random_1d<T: Ty + Float>() {
    require_dtype!(T);
    let mut rng = Rng::new(1);
    for (n, m) in [
        (1, 1),
        (1, 4),
        (2, 7),
        (5, 3),
        (37, 4),
        (300, 127),
        (100, 130),
        (5000, 2),
        (4099, 300),
        (3000, 1),
    ] {
        check_1d::<T>(&mut rng, n, m);
    }
}

#[test]
fn random_1d_f32() {
    random_1d::<f32>();
}
#[test]
fn random_1d_f16() {
    random_1d::<f16>();
}
#[test]
fn random_1d_f64() {
    random_1d::<f64>();
}

const BOUNDARIES: [Boundary; 3] = [Boundary::Fill(-0.75), Boundary::Symmetric, Boundary::Wrap];

fn check_2d<T: Ty + Float>(rng: &mut Rng, (h, w): (usize, usize), (kh, kw): (usize, usize)) {
    let (x, xv) = upload::<T>(dev(), &values(rng, h * w), &[h, w]);
    let (k, kv) = upload::<T>(dev(), &values(rng, kh * kw), &[kh, kw]);
    let (atol, rtol) = tol::<T>(kh * kw);
    for mode in MODES {
        let valid_ok = (h >= kh && w >= kw) || (h <= kh && w <= kw);
        for b in BOUNDARIES {
            for conv in [true, false] {
                let r = if conv {
                    convolve2d_with(&x, &k, mode, b)
                } else {
                    correlate2d_with(&x, &k, mode, b)
                };
                if mode == Mode::Valid && !valid_ok {
                    assert!(matches!(r, Err(Error::ShapeMismatch { .. })), "{r:?}");
                    continue;
                }
                let r = r.unwrap();
                let (e, shape) = ref2d(&xv, (h, w), &kv, (kh, kw), mode, b, conv);
                assert_eq!(
                    r.shape(),
                    &shape,
                    "{h}x{w} * {kh}x{kw} {mode:?} {b:?} {conv}"
                );
                let what = format!("{h}x{w} * {kh}x{kw} {mode:?} {b:?} conv {conv}");
                let actual = host(&r);
                if std::panic::catch_unwind(|| assert_close(&actual, &e, atol, rtol)).is_err() {
                    panic!("{what}");
                }
            }
        }
    }
}

fn random_2d<T: Ty + Float>(images: &[(usize, usize)], filters: &[(usize, usize)]) {
    require_dtype!(T);
    let mut rng = Rng::new(2);
    for &img in images {
        for &f in filters {
            check_2d::<T>(&mut rng, img, f);
        }
    }
}

#[test]
fn random_2d_f32_tiled() {
    random_2d::<f32>(
        &[(1, 1), (7, 5), (33, 70), (70, 33)],
        &[(1, 1), (2, 2), (3, 4), (7, 7), (5, 1), (16, 16)],
    );
}

#[test]
fn random_2d_f32_direct() {
    // Filters beyond 16 per side take the direct kernel.
    random_2d::<f32>(&[(3, 4), (20, 40)], &[(17, 3), (9, 20)]);
}

#[test]
fn random_2d_f16() {
    random_2d::<f16>(&[(9, 70)], &[(3, 3), (4, 2)]);
}

#[test]
fn random_2d_f64() {
    random_2d::<f64>(&[(9, 70)], &[(3, 3), (4, 2), (10, 17)]);
}

#[test]
fn invalid_inputs_are_typed_errors() {
    let d = dev();
    let x1 = d.ones::<f32>([5]).unwrap();
    let x2 = d.ones::<f32>([4, 4]).unwrap();
    let e1 = d.ones::<f32>([0]).unwrap();
    let inv = |r: gpuarray::Result<Array<f32>>| {
        assert!(matches!(r, Err(Error::InvalidArgument { .. })), "{r:?}")
    };
    let mis = |r: gpuarray::Result<Array<f32>>| {
        assert!(matches!(r, Err(Error::ShapeMismatch { .. })), "{r:?}")
    };
    inv(convolve(&x2, &x1, Mode::Full));
    inv(correlate(&x1, &e1, Mode::Same));
    inv(convolve2d(&x1, &x2, Mode::Full));
    inv(correlate2d(
        &x2,
        &d.ones::<f32>([0, 3]).unwrap(),
        Mode::Full,
    ));
    // valid: neither at least as large as the other in both axes
    mis(convolve2d(
        &x2,
        &d.ones::<f32>([5, 2]).unwrap(),
        Mode::Valid,
    ));
    mis(correlate2d(
        &x2,
        &d.ones::<f32>([2, 5]).unwrap(),
        Mode::Valid,
    ));

    let x = d.ones::<f32>([2, 4, 8, 8]).unwrap();
    let w = d.ones::<f32>([6, 2, 3, 3]).unwrap();
    let g2 = Conv2d {
        groups: 2,
        ..Default::default()
    };
    assert!(conv2d(&x, &w, None, g2).is_ok());
    mis(conv2d(&x, &w, None, Conv2d::default())); // 4 channels, weight takes 2
    inv(conv2d(&x, &w, None, Conv2d { groups: 0, ..g2 }));
    mis(conv2d(&x, &w, None, Conv2d { groups: 4, ..g2 })); // 4 groups of 1 channel, weight takes 2
    let w3 = d.ones::<f32>([3, 1, 3, 3]).unwrap();
    inv(conv2d(&x, &w3, None, Conv2d { groups: 4, ..g2 })); // 3 out channels % 4 groups
    inv(conv2d(
        &x,
        &w,
        None,
        Conv2d {
            stride: [0, 1],
            ..g2
        },
    ));
    inv(conv2d(
        &x,
        &w,
        None,
        Conv2d {
            dilation: [1, 0],
            ..g2
        },
    ));
    inv(conv2d(
        &x,
        &w,
        None,
        Conv2d {
            dilation: [4, 1],
            ..g2
        },
    )); // 9 > 8
    inv(conv2d(&x2, &w, None, g2));
    mis(conv2d(&x, &w, Some(&d.ones::<f32>([5]).unwrap()), g2));
    inv(conv1d(&x, &w, None, Conv1d::default()));
    let x3 = d.ones::<f32>([1, 2, 3]).unwrap();
    inv(conv1d(
        &x3,
        &d.ones::<f32>([1, 2, 4]).unwrap(),
        None,
        Conv1d::default(),
    ));
    mis(conv1d(
        &x3,
        &d.ones::<f32>([1, 3, 2]).unwrap(),
        None,
        Conv1d::default(),
    ));
    // padding makes room
    let y = conv1d(
        &x3,
        &d.ones::<f32>([1, 2, 4]).unwrap(),
        None,
        Conv1d {
            padding: 1,
            ..Default::default()
        },
    )
    .unwrap();
    assert_eq!(y.to_vec().unwrap(), vec![6.0, 6.0]);
}

#[test]
fn empty_batch_gives_empty_output() {
    let d = dev();
    let x = d.ones::<f32>([0, 2, 5, 5]).unwrap();
    let w = d.ones::<f32>([3, 2, 3, 3]).unwrap();
    let y = conv2d(&x, &w, None, Conv2d::default()).unwrap();
    assert_eq!(y.shape(), &[0, 3, 3, 3]);
}

// ---------------------------------------------------------------- non-finite values

/// 1-D convolutions and correlations (every mode) of `x` and `k` against the definition's
/// sums, which hold only the products of taps and inputs that exist: an infinity or NaN
/// reaches only the outputs whose window holds it.
fn check_1d_values<T: Ty + Float>(x: &[f64], k: &[f64]) {
    let (xa, xv) = upload::<T>(dev(), x, &[x.len()]);
    let (ka, kv) = upload::<T>(dev(), k, &[k.len()]);
    for mode in MODES {
        for conv in [true, false] {
            let r = if conv {
                convolve(&xa, &ka, mode)
            } else {
                correlate(&xa, &ka, mode)
            }
            .unwrap();
            eprintln!("case: n {} m {} {mode:?} conv {conv}", x.len(), k.len());
            let (atol, rtol) = tol::<T>(k.len().min(x.len()));
            assert_close(&host(&r), &ref1d(&xv, &kv, mode, conv), atol, rtol);
        }
    }
}

/// Finding 6 of issue 15: `convolve(ones(20) with x[10] = inf, [1.0], Full)` gave NaN at 7,
/// 8 and 9 (the taps padding the filter to a multiple of 4 multiplied the infinity). Also
/// infinite taps, which meet the zeros padding the input at its ends, and filters longer
/// than one chunk of taps (128) and signals longer than one block (2048 outputs).
fn nonfinite_1d<T: Ty + Float>() {
    require_dtype!(T);
    let mut x = vec![1.0; 20];
    x[10] = f64::INFINITY;
    check_1d_values::<T>(&x, &[1.0]);
    let r = convolve(&up::<T>(&x, &[20]), &up::<T>(&[1.0], &[1]), Mode::Full).unwrap();
    let mut want = vec![1.0; 20];
    want[10] = f64::INFINITY;
    assert_close(&host(&r), &want, 0.0, 0.0);

    let mut rng = Rng::new(6);
    for (n, m) in [
        (20, 2),
        (20, 3),
        (21, 5),
        (37, 6),
        (300, 129),
        (5000, 3),
        (4099, 300),
        (7, 40),
    ] {
        let mut x = values(&mut rng, n);
        x[n / 2] = f64::INFINITY;
        x[n - 1] = f64::NAN;
        x[0] = f64::NEG_INFINITY;
        check_1d_values::<T>(&x, &values(&mut rng, m));
        // An infinite tap and a NaN tap, the signal finite.
        let mut k = values(&mut rng, m);
        k[m - 1] = f64::INFINITY;
        k[0] = if m > 1 { f64::NAN } else { k[0] };
        check_1d_values::<T>(&values(&mut rng, n), &k);
    }
}

#[test]
fn nonfinite_1d_f32() {
    nonfinite_1d::<f32>();
}

#[test]
fn nonfinite_1d_f16() {
    nonfinite_1d::<f16>();
}

#[test]
fn nonfinite_1d_f64() {
    nonfinite_1d::<f64>();
}

/// Finding 11 of issue 15: PyTorch multiplies the zeros of the padding, so an infinite
/// weight over a padded position gives NaN: `conv1d([1, 2, 3], w = [1, inf], padding = 1)`
/// is [inf, inf, inf, NaN]. Checked on the default device and on one with the direct
/// kernels, for a one-channel layer and a channel-rich one (the implicit GEMM), against the
/// definition run on the input padded with zeros.
#[test]
fn nn_padding_zeros_are_multiplied_as_pytorch() {
    let mut opts = gpuarray::Options::default();
    opts.tuning.conv_direct = true;
    let direct = gpuarray::Device::with_options(opts).unwrap();
    for d in [dev(), &direct] {
        let x = d.from_slice(&[1.0f32, 2.0, 3.0], [1, 1, 3]).unwrap();
        let w = d.from_slice(&[1.0f32, f32::INFINITY], [1, 1, 2]).unwrap();
        let o = Conv1d {
            padding: 1,
            ..Default::default()
        };
        let y = conv1d(&x, &w, None, o).unwrap().to_vec().unwrap();
        assert_eq!(&y[..3], &[f32::INFINITY; 3]);
        assert!(y[3].is_nan(), "{y:?}");

        let mut rng = Rng::new(11);
        let (n, c, h, wd, oc, k, p) = (2, 8, 9, 7, 16, 3, 2);
        let xv = values(&mut rng, n * c * h * wd);
        let mut wv = values(&mut rng, oc * c * k * k);
        wv[5] = f64::INFINITY;
        wv[oc * c * k * k - 1] = f64::NEG_INFINITY;
        let xa = d.from_slice(
            &xv.iter().map(|&v| v as f32).collect::<Vec<_>>(),
            [n, c, h, wd],
        );
        let wa = d.from_slice(
            &wv.iter().map(|&v| v as f32).collect::<Vec<_>>(),
            [oc, c, k, k],
        );
        let opt = Conv2d {
            padding: [p, p],
            ..Default::default()
        };
        let y = conv2d(&xa.unwrap(), &wa.unwrap(), None, opt).unwrap();
        // The input padded with zeros, convolved without padding.
        let (hp, wp) = (h + 2 * p, wd + 2 * p);
        let mut padded = vec![0.0; n * c * hp * wp];
        for i in 0..n * c {
            for r in 0..h {
                for s in 0..wd {
                    let v = xv[(i * h + r) * wd + s] as f32 as f64;
                    padded[(i * hp + r + p) * wp + s + p] = v;
                }
            }
        }
        let wr: Vec<f64> = wv.iter().map(|&v| v as f32 as f64).collect();
        let (e, shape) = ref_nn(
            &padded,
            [n, c, hp, wp],
            &wr,
            [oc, c, k, k],
            None,
            Conv2d::default(),
        );
        assert_eq!(y.shape(), &shape);
        assert!(e.iter().any(|v| v.is_nan()) && e.iter().any(|v| v.is_finite()));
        let (atol, rtol) = tol::<f32>(c * k * k);
        assert_close(&host(&y), &e, atol, rtol);
    }
}
