//! `nn::conv2d` layers on random data against the f64 CPU reference (`ref_nn`), each kernel
//! forced through the options: the implicit GEMM (tiles, merged images, masked loads), the
//! depthwise and direct kernels, 1x1 layers as products; f16 and f64; views as inputs.

use super::*;
/// (N, C, H, W, O, kh, kw, options, bias).
type NnCase = (
    usize,
    usize,
    usize,
    usize,
    usize,
    usize,
    usize,
    Conv2d,
    bool,
);

const fn opt(
    stride: [usize; 2],
    padding: [usize; 2],
    dilation: [usize; 2],
    groups: usize,
) -> Conv2d {
    Conv2d {
        stride,
        padding,
        dilation,
        groups,
    }
}

fn check_nn<T: Ty + Float>(d: &gpuarray::Device, rng: &mut Rng, case: NnCase) {
    let (n, c, h, w, o, kh, kw, op, with_bias) = case;
    let cg = c / op.groups;
    let (x, xv) = upload::<T>(d, &values(rng, n * c * h * w), &[n, c, h, w]);
    let (wt, wv) = upload::<T>(d, &values(rng, o * cg * kh * kw), &[o, cg, kh, kw]);
    let (b, bv) = upload::<T>(d, &values(rng, o), &[o]);
    let y = conv2d(&x, &wt, with_bias.then_some(&b), op).unwrap();
    let (e, shape) = ref_nn(
        &xv,
        [n, c, h, w],
        &wv,
        [o, cg, kh, kw],
        with_bias.then_some(&bv[..]),
        op,
    );
    assert_eq!(y.shape(), &shape, "{case:?}");
    let (atol, rtol) = tol::<T>(cg * kh * kw + 1);
    let actual = host(&y);
    if std::panic::catch_unwind(|| assert_close(&actual, &e, atol, rtol)).is_err() {
        panic!("{case:?}");
    }
}

fn random_nn<T: Ty + Float>(cases: &[NnCase]) {
    random_nn_on::<T>(dev(), cases);
}

fn random_nn_on<T: Ty + Float>(d: &gpuarray::Device, cases: &[NnCase]) {
    require_dtype!(T);
    let mut rng = Rng::new(3);
    for &case in cases {
        check_nn::<T>(d, &mut rng, case);
    }
}

/// A device whose conv2d layers all run the direct kernels (`Tuning::conv_direct`).
fn direct_dev() -> &'static gpuarray::Device {
    static D: std::sync::OnceLock<gpuarray::Device> = std::sync::OnceLock::new();
    D.get_or_init(|| {
        let mut opts = gpuarray::Options::default();
        opts.tuning.conv_direct = true;
        gpuarray::Device::with_options(opts).unwrap()
    })
}

const D: Conv2d = Conv2d {
    stride: [1, 1],
    padding: [0, 0],
    dilation: [1, 1],
    groups: 1,
};

/// Cases of the implicit-GEMM kernel (>= 16 output channels per group, K >= 16).
const GEMM_CASES: &[NnCase] = &[
    (1, 8, 9, 11, 16, 3, 3, D, false),
    (3, 16, 13, 7, 70, 3, 3, D, true),
    (
        2,
        8,
        12,
        12,
        32,
        3,
        3,
        Conv2d {
            stride: [2, 2],
            padding: [1, 1],
            dilation: [1, 1],
            groups: 1,
        },
        true,
    ),
    (1, 32, 6, 9, 16, 1, 1, D, true),
    (
        3,
        8,
        15,
        10,
        40,
        2,
        5,
        Conv2d {
            stride: [1, 3],
            padding: [2, 0],
            dilation: [2, 1],
            groups: 2,
        },
        true,
    ),
    (
        1,
        4,
        40,
        37,
        24,
        4,
        4,
        Conv2d {
            stride: [3, 2],
            padding: [3, 1],
            dilation: [1, 1],
            groups: 1,
        },
        false,
    ),
    (
        2,
        64,
        10,
        10,
        64,
        3,
        3,
        Conv2d {
            stride: [1, 1],
            padding: [1, 1],
            dilation: [1, 1],
            groups: 1,
        },
        false,
    ),
];

/// Cases of the direct kernel (on a device with `conv_direct`), and of `nn_depthwise` on the
/// default device (fewer than 16 output channels per group): depthwise, few channels, 1x1
/// with few inputs.
const DIRECT_CASES: &[NnCase] = &[
    (1, 1, 1, 1, 1, 1, 1, D, false),
    (
        3,
        6,
        9,
        8,
        6,
        3,
        3,
        Conv2d {
            stride: [1, 1],
            padding: [1, 1],
            dilation: [1, 1],
            groups: 6,
        },
        true,
    ),
    (
        2,
        4,
        11,
        7,
        8,
        3,
        2,
        Conv2d {
            stride: [2, 1],
            padding: [0, 3],
            dilation: [2, 1],
            groups: 4,
        },
        false,
    ),
    (1, 3, 5, 5, 4, 1, 1, D, true),
    (
        3,
        2,
        6,
        9,
        5,
        5,
        4,
        Conv2d {
            stride: [1, 2],
            padding: [2, 2],
            dilation: [1, 1],
            groups: 1,
        },
        true,
    ),
    (1, 3, 4, 4, 2, 4, 4, D, true),
];

#[test]
fn random_conv2d_gemm_f32() {
    random_nn::<f32>(GEMM_CASES);
}

/// `nn_gemm` cases whose GEMM pixel tiles straddle images (every image's output pixels run
/// as one dimension): small and odd outputs (1x1, 3x5, 7x9, 13x11 pixels) in batches of 2 to
/// 9, strides, dilation, uneven padding, two and three groups of 16 to 24 output channels.
const MERGED_CASES: &[NnCase] = &[
    (9, 16, 7, 9, 20, 3, 3, opt([1, 1], [1, 1], [1, 1], 1), true),
    (
        5,
        18,
        13,
        11,
        32,
        3,
        3,
        opt([2, 2], [1, 1], [1, 1], 2),
        false,
    ),
    (7, 16, 3, 3, 17, 3, 3, opt([1, 1], [0, 0], [1, 1], 1), true),
    (3, 24, 9, 13, 48, 5, 3, opt([1, 2], [2, 0], [1, 2], 3), true),
    (
        2,
        34,
        11,
        10,
        33,
        2,
        2,
        opt([3, 2], [1, 1], [2, 1], 1),
        false,
    ),
];

/// The merged images, on the automatic tiles and on each forced tile shape.
#[test]
fn random_conv2d_gemm_merged_images() {
    random_nn::<f32>(MERGED_CASES);
    random_nn::<f16>(&MERGED_CASES[..2]);
    for [bm, bn, bk, tm, tn] in [[128, 64, 16, 8, 4], [64, 32, 16, 4, 4], [32, 16, 8, 4, 4]] {
        let mut opts = gpuarray::Options::default();
        opts.tuning.conv_tiles = Some(gpuarray::config::MatmulTiles { bm, bn, bk, tm, tn });
        let d = gpuarray::Device::with_options(opts).unwrap();
        random_nn_on::<f32>(&d, MERGED_CASES);
    }
}

/// More pixel tiles than one grid dimension holds (66,307 tiles of 16 pixels): `nn_gemm`
/// takes them in two chunks over z. Ignored: 130 MB of arrays (run with `--ignored`).
#[test]
#[ignore]
fn conv2d_gemm_pixel_tiles_past_one_grid_dimension() {
    let mut opts = gpuarray::Options::default();
    opts.tuning.conv_tiles = Some(gpuarray::config::MatmulTiles {
        bm: 16,
        bn: 16,
        bk: 8,
        tm: 4,
        tn: 4,
    });
    let d = gpuarray::Device::with_options(opts).unwrap();
    let case = (
        1,
        16,
        1024,
        1024,
        16,
        1,
        1,
        opt([1, 1], [3, 3], [1, 1], 1),
        true,
    );
    check_nn::<f32>(&d, &mut Rng::new(5), case);
}

/// Non-finite inputs reach only the outputs whose window holds them: `nn_gemm` reads every
/// load at a clamped address and masks it after, so the masked loads (padding, pixels past
/// the last image, depths past K) must never leak an infinity or a NaN; in both load orders
/// (tap-major and channel-major).
#[test]
fn nn_gemm_masked_loads_stay_masked() {
    let mut rng = Rng::new(17);
    let (n, c, h, w, o, k) = (3, 16, 5, 6, 24, 3);
    let mut xv = values(&mut rng, n * c * h * w);
    // The first element of every image and channel: the address masked loads fall back to.
    for i in 0..n * c {
        xv[i * h * w] = [f64::NAN, f64::INFINITY, f64::NEG_INFINITY][i % 3];
    }
    let wv = values(&mut rng, o * c * k * k);
    let f = |v: &[f64]| v.iter().map(|&v| v as f32).collect::<Vec<_>>();
    let opt = opt([2, 2], [1, 1], [1, 1], 1);
    let r = |v: &[f64]| v.iter().map(|&v| v as f32 as f64).collect::<Vec<_>>();
    let (e, shape) = ref_nn(&r(&xv), [n, c, h, w], &r(&wv), [o, c, k, k], None, opt);
    assert!(e.iter().any(|v| !v.is_finite()) && e.iter().any(|v| v.is_finite()));
    let (atol, rtol) = tol::<f32>(c * k * k);
    // Default tiles (depth 16: tap-major loads), then depth 12 (channel-major loads).
    let mut opts = gpuarray::Options::default();
    opts.tuning.conv_tiles = Some(gpuarray::config::MatmulTiles {
        bm: 64,
        bn: 64,
        bk: 12,
        tm: 4,
        tn: 4,
    });
    let forced = gpuarray::Device::with_options(opts).unwrap();
    for d in [dev(), &forced] {
        let xa = d.from_slice(&f(&xv), [n, c, h, w]).unwrap();
        let wa = d.from_slice(&f(&wv), [o, c, k, k]).unwrap();
        let y = conv2d(&xa, &wa, None, opt).unwrap();
        assert_eq!(y.shape(), &shape);
        assert_close(&host(&y), &e, atol, rtol);
    }
}

/// Cases of `nn_depthwise` (fewer than 16 output channels per group): depthwise with
/// several tiles each way (outputs over 32 wide and tall), channel multipliers, narrow
/// groups (8 in, 8 out), more than 8 outputs per group (two channel blocks), many input
/// channels with few outputs, strides, dilations, uneven padding, 7x7 and 1-wide filters,
/// prime sizes, batch 1.
const DEPTHWISE_CASES: &[NnCase] = &[
    (2, 5, 37, 41, 5, 3, 3, opt([1, 1], [1, 1], [1, 1], 5), true),
    (
        1,
        3,
        23,
        19,
        12,
        5,
        5,
        opt([2, 2], [2, 2], [1, 1], 3),
        false,
    ),
    (
        2,
        16,
        13,
        17,
        16,
        3,
        3,
        opt([1, 1], [2, 2], [2, 2], 2),
        true,
    ),
    (1, 6, 11, 7, 18, 3, 1, opt([1, 2], [0, 1], [3, 1], 3), true),
    (3, 4, 9, 9, 4, 7, 7, opt([1, 1], [3, 3], [1, 1], 4), false),
    (1, 2, 8, 70, 20, 2, 3, opt([3, 1], [1, 0], [1, 2], 2), true),
    (2, 24, 5, 3, 12, 1, 1, opt([1, 1], [0, 0], [1, 1], 1), true),
    (1, 7, 2, 67, 7, 1, 5, opt([1, 3], [0, 2], [1, 1], 7), false),
];

/// Cases of the 1x1 layers: as matrix products at stride 1 (groups, bias, prime sizes, a
/// single pixel, batch 1), strided ones (3 rows, 2 columns) on the conv kernels.
const POINTWISE_CASES: &[NnCase] = &[
    (2, 32, 6, 9, 16, 1, 1, D, true),
    (1, 3, 5, 5, 4, 1, 1, D, true),
    (
        3,
        12,
        11,
        13,
        20,
        1,
        1,
        opt([3, 2], [0, 0], [1, 1], 4),
        true,
    ),
    (1, 17, 1, 1, 23, 1, 1, D, false),
    (2, 6, 7, 5, 9, 1, 1, opt([2, 2], [0, 0], [2, 2], 3), false),
];

/// A device whose 1x1 layers run on the conv kernels (`Tuning::conv_pointwise` off).
fn kernels_dev() -> &'static gpuarray::Device {
    static D: std::sync::OnceLock<gpuarray::Device> = std::sync::OnceLock::new();
    D.get_or_init(|| {
        let mut opts = gpuarray::Options::default();
        opts.tuning.conv_pointwise = false;
        gpuarray::Device::with_options(opts).unwrap()
    })
}

/// 1x1 layers at stride 1 without padding large enough (288 workgroups of 128 x 64) to run
/// on `nn_gemm` by default, beside a small one that runs as a matrix product.
#[test]
fn random_conv2d_pointwise_large_on_gemm() {
    random_nn::<f32>(&[
        (2, 16, 96, 96, 128, 1, 1, D, true),
        (
            3,
            24,
            97,
            89,
            65,
            1,
            1,
            opt([1, 1], [0, 0], [1, 1], 1),
            false,
        ),
        (1, 16, 7, 7, 40, 1, 1, D, true),
    ]);
}

#[test]
fn random_conv2d_pointwise() {
    random_nn::<f32>(POINTWISE_CASES);
    random_nn_on::<f32>(kernels_dev(), POINTWISE_CASES);
    random_nn::<f16>(&POINTWISE_CASES[..3]);
    random_nn::<f64>(&POINTWISE_CASES[2..4]);
}

/// `nn_gemm` with each tile shape forced through `Tuning::conv_tiles` (the automatic choice
/// gives these small layers the small tiles), and with tiles it cannot run, which are
/// ignored.
#[test]
fn random_conv2d_gemm_tiles() {
    for ([bm, bn, bk, tm, tn], cases) in [
        ([128, 64, 16, 8, 4], GEMM_CASES),
        ([128, 32, 16, 8, 4], GEMM_CASES),
        ([64, 64, 16, 3, 4], &GEMM_CASES[..2]),
    ] {
        let mut opts = gpuarray::Options::default();
        opts.tuning.conv_tiles = Some(gpuarray::config::MatmulTiles { bm, bn, bk, tm, tn });
        let d = gpuarray::Device::with_options(opts).unwrap();
        random_nn_on::<f32>(&d, cases);
    }
}

/// Tap-major `nn_gemm` (each K tile one filter tap, where BK divides the input channels per
/// group) against the f64 reference, with the tiles' depth forced to 8, 16 and 32: 1 to 4 K
/// tiles per tap, groups of 24 channels (tap-major at depth 8, channel-major at 16 and 32),
/// non-square and dilated filters, uneven padding and strides, images smaller than a tile.
const TAP_CASES: &[NnCase] = &[
    (
        3,
        32,
        11,
        13,
        24,
        3,
        3,
        opt([1, 1], [1, 1], [1, 1], 1),
        true,
    ),
    (2, 48, 9, 7, 40, 5, 5, opt([2, 1], [2, 1], [1, 2], 2), true),
    (
        1,
        16,
        5,
        17,
        33,
        3,
        1,
        opt([1, 1], [0, 2], [2, 1], 1),
        false,
    ),
    (5, 64, 3, 3, 16, 3, 3, opt([1, 1], [1, 1], [1, 1], 1), false),
    (2, 32, 8, 8, 17, 1, 1, opt([2, 2], [1, 0], [1, 1], 1), true),
];

#[test]
fn random_conv2d_gemm_tap_major() {
    for bk in [8, 16, 32] {
        let mut opts = gpuarray::Options::default();
        opts.tuning.conv_tiles = Some(gpuarray::config::MatmulTiles {
            bm: 128,
            bn: 64,
            bk,
            tm: 8,
            tn: 4,
        });
        let d = gpuarray::Device::with_options(opts).unwrap();
        random_nn_on::<f32>(&d, TAP_CASES);
    }
}

#[test]
fn random_conv2d_direct_f32() {
    random_nn_on::<f32>(direct_dev(), DIRECT_CASES);
    random_nn_on::<f32>(direct_dev(), &DEPTHWISE_CASES[..3]);
}

#[test]
fn random_conv2d_depthwise_f32() {
    random_nn::<f32>(DIRECT_CASES);
    random_nn::<f32>(DEPTHWISE_CASES);
}

#[test]
fn random_conv2d_f16() {
    random_nn::<f16>(&GEMM_CASES[..2]);
    random_nn::<f16>(&DIRECT_CASES[1..3]);
    random_nn::<f16>(&DEPTHWISE_CASES[..4]);
}

#[test]
fn random_conv2d_f64() {
    random_nn::<f64>(&GEMM_CASES[..3]);
    random_nn::<f64>(&DIRECT_CASES[..2]);
    random_nn::<f64>(&DEPTHWISE_CASES[2..4]);
}

#[test]
fn conv1d_matches_conv2d_of_height_one() {
    let mut rng = Rng::new(4);
    for (n, c, w, o, k, stride, padding, dilation, groups) in [
        (1, 2, 9, 4, 3, 1, 0, 1, 1),
        (3, 4, 50, 32, 5, 2, 2, 3, 2),
        (2, 3, 7, 3, 7, 1, 3, 1, 3),
    ] {
        let (x, xv) = upload::<f32>(dev(), &values(&mut rng, n * c * w), &[n, c, w]);
        let (wt, wv) = upload::<f32>(
            dev(),
            &values(&mut rng, o * c / groups * k),
            &[o, c / groups, k],
        );
        let y = conv1d(
            &x,
            &wt,
            None,
            Conv1d {
                stride,
                padding,
                dilation,
                groups,
            },
        )
        .unwrap();
        let (e, s) = ref_nn(
            &xv,
            [n, c, 1, w],
            &wv,
            [o, c / groups, 1, k],
            None,
            opt([1, stride], [0, padding], [1, dilation], groups),
        );
        assert_eq!(y.shape(), &[s[0], s[1], s[3]]);
        let (atol, rtol) = tol::<f32>(c * k);
        assert_close(&host(&y), &e, atol, rtol);
    }
}

#[test]
fn strided_views_are_read() {
    // A transposed image and a sliced filter.
    let mut rng = Rng::new(5);
    let (x, xv) = upload::<f32>(dev(), &values(&mut rng, 12 * 9), &[12, 9]);
    let xt = x.t();
    let xtv: Vec<f64> = (0..9 * 12).map(|i| xv[(i % 12) * 9 + i / 12]).collect();
    let (k, kv) = upload::<f32>(dev(), &values(&mut rng, 16), &[4, 4]);
    let ks = k.slice_axis(gpuarray::Axis(0), 1..4).unwrap();
    let r = convolve2d(&xt, &ks, Mode::Same).unwrap();
    let (e, _) = ref2d(
        &xtv,
        (9, 12),
        &kv[4..],
        (3, 4),
        Mode::Same,
        Boundary::Fill(0.0),
        true,
    );
    assert_close(&host(&r), &e, 1e-5, 1e-5);
}

/// conv2d reads a permuted input, an offset weight and an offset bias, on `nn_depthwise`
/// (6 groups of 1) and on `nn_gemm` (32 outputs of 4 inputs).
#[test]
fn conv2d_views_are_read() {
    let mut rng = Rng::new(6);
    for (c, o, groups) in [(6, 6, 6), (4, 32, 1)] {
        let (n, h, w, k, cg) = (2, 9, 11, 3, c / groups);
        // The input stored as [n, h, w, c], seen as [n, c, h, w].
        let (xs, xsv) = upload::<f32>(dev(), &values(&mut rng, n * h * w * c), &[n, h, w, c]);
        let x = xs.transpose(&[0, 3, 1, 2]).unwrap();
        let mut xv = vec![0.0; xsv.len()];
        for (i, v) in xv.iter_mut().enumerate() {
            let (s, r, ci, ni) = (i % w, i / w % h, i / (w * h) % c, i / (w * h * c));
            *v = xsv[((ni * h + r) * w + s) * c + ci];
        }
        let taps = cg * k * k;
        let (wb, wbv) = upload::<f32>(dev(), &values(&mut rng, (o + 1) * taps), &[o + 1, cg, k, k]);
        let wt = wb.slice_axis(gpuarray::Axis(0), 1..o + 1).unwrap();
        let (bb, bbv) = upload::<f32>(dev(), &values(&mut rng, o + 2), &[o + 2]);
        let b = bb.slice_axis(gpuarray::Axis(0), 2..o + 2).unwrap();
        let op = opt([1, 1], [1, 1], [1, 1], groups);
        let y = conv2d(&x, &wt, Some(&b), op).unwrap();
        let (e, shape) = ref_nn(
            &xv,
            [n, c, h, w],
            &wbv[taps..],
            [o, cg, k, k],
            Some(&bbv[2..]),
            op,
        );
        assert_eq!(y.shape(), &shape);
        let (atol, rtol) = tol::<f32>(taps + 1);
        assert_close(&host(&y), &e, atol, rtol);
    }
}

// ---------------------------------------------------------------- errors
