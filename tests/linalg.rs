//! Matrix products against an f64 CPU reference: matmul (2-D, 1-D, batched with broadcast,
//! transposed and strided views, empty dimensions), dot, outer, trace, per dtype; shape
//! errors are typed.

#[macro_use]
mod common;

use common::{assert_close, dev, host, if_supported, upload, Host, Rng, Ty};
use gpuarray::{f16, Array, Error, Slice};

/// Reference product of `a` ([.., M, K]) and `b` ([.., K, N]) with broadcast batch dims.
fn reference(a: &Host, b: &Host) -> Host {
    let (na, nb) = (a.shape.len(), b.shape.len());
    let (m, k) = (a.shape[na - 2], a.shape[na - 1]);
    let n = b.shape[nb - 1];
    let batch = common::broadcast_shape(&a.shape[..na - 2], &b.shape[..nb - 2]);
    let mut sa = batch.clone();
    sa.extend([m, k]);
    let mut sb = batch.clone();
    sb.extend([k, n]);
    let (a, b) = (a.broadcast_to(&sa), b.broadcast_to(&sb));
    let batches: usize = batch.iter().product();
    let mut out = vec![0.0; batches * m * n];
    for z in 0..batches {
        for i in 0..m {
            for j in 0..n {
                let mut s = 0.0;
                for l in 0..k {
                    s += a.data[z * m * k + i * k + l] * b.data[z * k * n + l * n + j];
                }
                out[z * m * n + i * n + j] = s;
            }
        }
    }
    let mut shape = batch;
    shape.extend([m, n]);
    Host::new(&shape, out)
}

/// Random values of type T: floats in [-1, 1), integers in [-4, 4] (u32: [0, 4]).
fn values<T: Ty>(rng: &mut Rng, n: usize) -> Vec<f64> {
    if T::FLOAT {
        (0..n).map(|_| rng.uniform(-1.0, 1.0)).collect()
    } else if T::SIGNED {
        rng.ints(n, -4, 4)
    } else {
        rng.ints(n, 0, 4)
    }
}

/// Tolerance for sums of k products of values of magnitude <= 1: grows with k.
fn tol<T: Ty>(k: usize) -> (f64, f64) {
    if !T::FLOAT {
        return (0.0, 0.0);
    }
    // f16 rounds its result once (inputs are exact, accumulation in f32).
    let eps = if T::NAME == "f16" {
        2.0 * T::EPS
    } else {
        T::EPS
    };
    // The k term covers a sequential sum whose partial sums grow to sqrt(k) (k = 2048 in f32
    // measured 830 eps off on lavapipe's tiled kernel).
    let atol = eps * (k as f64).sqrt() * 4.0 + T::EPS * k as f64 * 0.5;
    (atol, eps * 4.0)
}

fn random<T: Ty>(rng: &mut Rng, shape: &[usize]) -> (Array<T>, Host) {
    let n = shape.iter().product();
    let (a, v) = upload::<T>(dev(), &values::<T>(rng, n), shape);
    (a, Host::new(shape, v))
}

#[track_caller]
fn check<T: Ty>(a: &Array<T>, b: &Array<T>, ha: &Host, hb: &Host) {
    let c = a.matmul(b).expect("matmul");
    let expected = reference(ha, hb);
    assert_eq!(c.shape(), &expected.shape[..], "shape");
    let k = ha.shape[ha.shape.len() - 1];
    let (atol, rtol) = tol::<T>(k);
    let actual = host(&c);
    let expected: Vec<f64> = expected.data.iter().map(|&x| T::wrap(x)).collect();
    assert_close(&actual, &expected, atol, rtol);
}

#[track_caller]
fn check_shapes<T: Ty>(seed: u64, sa: &[usize], sb: &[usize]) {
    let mut rng = Rng::new(seed);
    let (a, ha) = random::<T>(&mut rng, sa);
    let (b, hb) = random::<T>(&mut rng, sb);
    check(&a, &b, &ha, &hb);
}

/// (M, K, N) cases: square, tall, wide, K = 1, primes, vectors, non-multiples of tiles.
const SHAPES: &[(usize, usize, usize)] = &[
    (1, 1, 1),
    (4, 4, 4),
    (64, 64, 64),
    (96, 80, 112),
    (129, 64, 65),
    (200, 24, 8),
    (8, 24, 200),
    (33, 1, 47),
    (127, 253, 61),
    (1, 300, 1),
    (1, 77, 130),
    (130, 77, 1),
    (3, 5, 7),
];

fn matmul_2d<T: Ty>() {
    require_dtype!(T);
    for (i, &(m, k, n)) in SHAPES.iter().enumerate() {
        check_shapes::<T>(i as u64, &[m, k], &[k, n]);
    }
}

/// Every combination of transposed operands, as views (read in place) of [K, M] / [N, K].
fn matmul_transposed<T: Ty>() {
    require_dtype!(T);
    let mut rng = Rng::new(7);
    for &(m, k, n) in &[(33, 17, 45), (64, 32, 48), (127, 61, 9)] {
        let (a, ha) = random::<T>(&mut rng, &[m, k]);
        let (b, hb) = random::<T>(&mut rng, &[k, n]);
        let (at, hat) = random::<T>(&mut rng, &[k, m]);
        let (bt, hbt) = random::<T>(&mut rng, &[n, k]);
        check(&at.t(), &b, &hat.t(), &hb);
        check(&a, &bt.t(), &ha, &hbt.t());
        check(&at.t(), &bt.t(), &hat.t(), &hbt.t());
    }
}

fn matmul_batched<T: Ty>() {
    require_dtype!(T);
    // Batched, broadcast in every position, and N-D with 2-D.
    check_shapes::<T>(11, &[3, 17, 9], &[3, 9, 21]);
    check_shapes::<T>(12, &[2, 1, 5, 8], &[3, 8, 6]);
    check_shapes::<T>(13, &[1, 4, 12], &[5, 12, 3]);
    check_shapes::<T>(14, &[4, 2, 7, 5], &[5, 9]);
    check_shapes::<T>(15, &[6, 11], &[2, 3, 11, 4]);
}

fn matmul_vectors<T: Ty>() {
    require_dtype!(T);
    let mut rng = Rng::new(21);
    let (m, k, n) = (19, 37, 23);
    let (a, ha) = random::<T>(&mut rng, &[m, k]);
    let (x, hx) = random::<T>(&mut rng, &[k]);
    let (y, hy) = random::<T>(&mut rng, &[k]);
    let (b, hb) = random::<T>(&mut rng, &[k, n]);
    let (atol, rtol) = tol::<T>(k);
    let wrap = |h: Host| -> Vec<f64> { h.data.iter().map(|&v| T::wrap(v)).collect() };
    // matrix @ vector -> [M]
    let r = a.matmul(&x).unwrap();
    assert_eq!(r.shape(), &[m]);
    let e = reference(&ha, &Host::new(&[k, 1], hx.data.clone()));
    assert_close(&host(&r), &wrap(e), atol, rtol);
    // vector @ matrix -> [N]
    let r = x.matmul(&b).unwrap();
    assert_eq!(r.shape(), &[n]);
    let e = reference(&Host::new(&[1, k], hx.data.clone()), &hb);
    assert_close(&host(&r), &wrap(e), atol, rtol);
    // vector @ vector -> 0-d; also dot
    let e = reference(
        &Host::new(&[1, k], hx.data.clone()),
        &Host::new(&[k, 1], hy.data.clone()),
    );
    let r = x.matmul(&y).unwrap();
    assert_eq!(r.shape(), &[] as &[usize]);
    assert_close(&host(&r), &wrap(e.clone()), atol, rtol);
    let r = x.dot(&y).unwrap();
    assert_close(&host(&r), &wrap(e), atol, rtol);
    // strided vector (every other element): read in place
    let (z, hz) = random::<T>(&mut rng, &[2 * k]);
    let zs = z.slice(Slice::new(0, None, 2)).unwrap();
    let hzs: Vec<f64> = hz.data.iter().step_by(2).copied().collect();
    let r = a.matmul(&zs).unwrap();
    let e = reference(&ha, &Host::new(&[k, 1], hzs));
    assert_close(&host(&r), &wrap(e), atol, rtol);
}

fn empty_dims<T: Ty>() {
    require_dtype!(T);
    let d = dev();
    let a = d.ones::<T>([0, 5]).unwrap();
    let b = d.ones::<T>([5, 3]).unwrap();
    let c = a.matmul(&b).unwrap();
    assert_eq!(c.shape(), &[0, 3]);
    // K = 0: zeros
    let a = d.ones::<T>([4, 0]).unwrap();
    let b = d.ones::<T>([0, 3]).unwrap();
    let c = a.matmul(&b).unwrap();
    assert_eq!(c.shape(), &[4, 3]);
    assert!(host(&c).iter().all(|&v| v == 0.0));
    // empty batch
    let a = d.ones::<T>([0, 2, 5]).unwrap();
    let b = d.ones::<T>([5, 3]).unwrap();
    assert_eq!(a.matmul(&b).unwrap().shape(), &[0, 2, 3]);
}

/// Products with one column or one row (the matrix-vector kernels): each operand
/// row-major or a transposed view, batched with broadcast, a k long enough to be split into
/// slices (partial sums added in order), and with the matrix-vector kernel turned off
/// (`Tuning::matmul_gemv`), the tiled kernel on the same shapes.
fn matrix_vector<T: Ty>() {
    require_dtype!(T);
    let mut opts = gpuarray::Options::default();
    opts.tuning.matmul_gemv = false;
    let tiled = gpuarray::Device::with_options(opts).unwrap();
    let mut rng = Rng::new(77);
    // (A's shape, B's shape, A stored transposed, B stored transposed)
    let cases: [(&[usize], &[usize], bool, bool); 12] = [
        // vec4 loads (extents and strides multiples of 4) ...
        (&[40, 128], &[128, 1], false, false),
        (&[1, 128], &[128, 64], false, false),
        (&[40, 128], &[128, 1], true, false),
        (&[2, 20012], &[20012, 1], false, false),
        // ... and element loads
        (&[37, 129], &[129, 1], false, false),
        (&[1, 129], &[129, 53], false, false),
        (&[37, 129], &[129, 1], true, false),
        (&[1, 129], &[129, 53], false, true),
        (&[3, 5, 64], &[64, 1], false, false),
        (&[2, 1, 300], &[2, 300, 7], true, true),
        (&[3, 20011], &[20011, 1], false, false),
        (&[1, 20011], &[20011, 5], false, true),
    ];
    for (sa, sb, ta, tb) in cases {
        let (a, ha) = stored::<T>(&mut rng, sa, ta);
        let (b, hb) = stored::<T>(&mut rng, sb, tb);
        check(&a, &b, &ha, &hb);
        let (ua, ub) = (
            upload::<T>(&tiled, &ha.data, sa).0,
            upload::<T>(&tiled, &hb.data, sb).0,
        );
        check(&ua, &ub, &ha, &hb);
    }
}

/// The 16-byte-word kernels (f32 and f16, `gemv_dot_w` and `gemv_cols_w`): rows not a
/// multiple of a workgroup's (their loads clamped to the last row), k ending part-way
/// through a step of U words, k split into slices (f16 then sums in f32 and casts once),
/// operands at offsets of whole words, a batch with a broadcast vector, and a
/// vector-matrix product whose columns end part-way through a workgroup.
fn matrix_vector_words<T: Ty>() {
    require_dtype!(T);
    let mut rng = Rng::new(81);
    // (A's shape, B's shape, A stored transposed, B stored transposed)
    let cases: [(&[usize], &[usize], bool, bool); 7] = [
        (&[13, 296], &[296, 1], false, false),
        (&[3, 16392], &[16392, 1], false, false),
        (&[1, 1000], &[1000, 136], false, false),
        (&[1, 5000], &[5000, 24], false, false),
        (&[24, 700], &[700, 1], true, false),
        (&[4, 9, 1032], &[1032, 1], false, false),
        (&[2, 1, 40], &[2, 40, 16], false, false),
    ];
    for (sa, sb, ta, tb) in cases {
        let (a, ha) = stored::<T>(&mut rng, sa, ta);
        let (b, hb) = stored::<T>(&mut rng, sb, tb);
        check(&a, &b, &ha, &hb);
    }
    // Offsets of whole words: rows 1.. of A and elements 8.. of v.
    let (big, hbig) = random::<T>(&mut rng, &[21, 264]);
    let a = big.slice([Slice::from(1..), Slice::from(..)]).unwrap();
    let ha = hbig.slice(&[(1, 21, 1), (0, 264, 1)]);
    let (bv, hbv) = random::<T>(&mut rng, &[272, 1]);
    let v = bv.slice([Slice::from(8..), Slice::from(..)]).unwrap();
    let hv = hbv.slice(&[(8, 272, 1), (0, 1, 1)]);
    check(&a, &v, &ha, &hv);
    check(&v.t(), &a.t(), &hv.t(), &ha.t());
    // Vector-matrix with B's columns 8.. of a wider matrix (offset 8, ld 40).
    let (wide, hwide) = random::<T>(&mut rng, &[300, 40]);
    let b = wide.slice([Slice::from(..), Slice::from(8..)]).unwrap();
    let hb = hwide.slice(&[(0, 300, 1), (8, 40, 1)]);
    let (u, hu) = random::<T>(&mut rng, &[1, 300]);
    check(&u, &b, &hu, &hb);
}

#[test]
fn matrix_vector_words_f32() {
    matrix_vector_words::<f32>();
}

#[test]
fn matrix_vector_words_f16() {
    matrix_vector_words::<f16>();
}

/// Products with a long K over few output tiles (split into slices of K whose partial
/// products are summed in order): slices with and without a tail of K, each operand
/// row-major or a transposed view, and the same shapes with the split turned off.
fn split_k<T: Ty>() {
    require_dtype!(T);
    let mut opts = gpuarray::Options::default();
    opts.tuning.matmul_split_k = false;
    let whole = gpuarray::Device::with_options(opts).unwrap();
    let mut rng = Rng::new(79);
    let cases: [(usize, usize, usize, bool, bool); 4] = [
        (64, 64, 2048, false, false),
        (33, 47, 1027, false, false),
        (33, 47, 1027, true, true),
        (20, 130, 4099, true, false),
    ];
    for (m, n, k, ta, tb) in cases {
        let (a, ha) = stored::<T>(&mut rng, &[m, k], ta);
        let (b, hb) = stored::<T>(&mut rng, &[k, n], tb);
        check(&a, &b, &ha, &hb);
        let (ua, ub) = (
            upload::<T>(&whole, &ha.data, &[m, k]).0,
            upload::<T>(&whole, &hb.data, &[k, n]).0,
        );
        check(&ua, &ub, &ha, &hb);
    }
}

/// A random array of `shape`, stored with its last two dimensions swapped and read as a
/// transposed view when `t`.
fn stored<T: Ty>(rng: &mut Rng, shape: &[usize], t: bool) -> (Array<T>, Host) {
    let n = shape.len();
    let mut perm: Vec<usize> = (0..n).collect();
    perm.swap(n - 2, n - 1);
    let swapped: Vec<usize> = perm.iter().map(|&d| shape[d]).collect();
    if !t {
        return random::<T>(rng, shape);
    }
    let (x, hx) = random::<T>(rng, &swapped);
    (x.transpose(&perm).unwrap(), hx.transpose(&perm))
}

/// More rows than one dispatch's workgroups cover (the grid is split): 2^20 + 3 rows of
/// k = 3, and a vector-matrix product of as many columns.
#[test]
fn matrix_vector_many_rows() {
    let mut rng = Rng::new(78);
    let r = (1 << 20) + 3;
    let (a, ha) = random::<f32>(&mut rng, &[r, 3]);
    let (v, hv) = random::<f32>(&mut rng, &[3, 1]);
    check(&a, &v, &ha, &hv);
    let (b, hb) = random::<f32>(&mut rng, &[3, r]);
    check(&v.t(), &b, &hv.t(), &hb);
}

/// The tiled kernel's session-9 paths against the f64 reference: batches of tiny matrices
/// on 16 x 16 tiles (several sizes up to 16, with a broadcast operand), vec4 stores of C
/// (N a multiple of 4, with odd M and K and a transposed operand whose pairs of chunks
/// straddle the end of K), and split-K's small slices on tiles that fit them (32 x 32 and
/// 64 x 64 outputs of a long K, K not a multiple of the slice).
#[test]
fn tiny_batches_vec4_stores_and_small_slices() {
    for (seed, sa, sb) in [
        (91, &[37, 16, 16][..], &[37, 16, 16][..]),
        (92, &[50, 13, 9][..], &[9, 12][..]),
        (93, &[7, 16, 3][..], &[7, 3, 16][..]),
        (94, &[33, 35][..], &[35, 12][..]),
        (95, &[32, 5003][..], &[5003, 32][..]),
        (96, &[64, 4099][..], &[4099, 64][..]),
    ] {
        check_shapes::<f32>(seed, sa, sb);
    }
    check_shapes::<i32>(97, &[37, 16, 16], &[37, 16, 16]);
    let mut rng = Rng::new(98);
    let (a, ha) = random::<f32>(&mut rng, &[19, 21]);
    let (b, hb) = random::<f32>(&mut rng, &[12, 19]);
    check(&a.t(), &b.t(), &ha.t(), &hb.t());
}

macro_rules! testgen {
    ($($m:ident: $t:ty),*) => {$(
        mod $m {
            #[test]
            fn matmul_2d() { super::matmul_2d::<$t>(); }
            #[test]
            fn matmul_transposed() { super::matmul_transposed::<$t>(); }
            #[test]
            fn matmul_batched() { super::matmul_batched::<$t>(); }
            #[test]
            fn matmul_vectors() { super::matmul_vectors::<$t>(); }
            #[test]
            fn empty_dims() { super::empty_dims::<$t>(); }
            #[test]
            fn matrix_vector() { super::matrix_vector::<$t>(); }
            #[test]
            fn split_k() { super::split_k::<$t>(); }
            #[test]
            fn padded_views() { super::padded_views::<$t>(); }
        }
    )*};
}

testgen!(t_f32: f32, t_f16: gpuarray::f16, t_f64: f64, t_i32: i32, t_u32: u32);

/// Problems large enough for the large tiles (and on cooperative-matrix adapters the
/// tensor-core f16 kernel: sizes multiples of 16, with and without transposed operands).
#[test]
fn large_tiles() {
    check_shapes::<f32>(31, &[256, 96], &[96, 272]);
    let mut rng = Rng::new(32);
    let (at, hat) = random::<f32>(&mut rng, &[64, 260]);
    let (b, hb) = random::<f32>(&mut rng, &[64, 132]);
    check(&at.t(), &b, &hat.t(), &hb);
    // Few columns or few rows over many tiles: the narrow tiles (128 x 32, 32 x 128).
    check_shapes::<f32>(33, &[8200, 5], &[5, 7]);
    check_shapes::<f32>(34, &[7, 5], &[5, 8200]);
    check_shapes::<f32>(35, &[2, 4100, 9], &[9, 30]);
}

#[test]
fn f16_multiples_of_16() {
    require_dtype!(f16);
    let mut rng = Rng::new(41);
    let (m, k, n) = (144, 80, 272);
    let (a, ha) = random::<f16>(&mut rng, &[m, k]);
    let (b, hb) = random::<f16>(&mut rng, &[k, n]);
    let (at, hat) = random::<f16>(&mut rng, &[k, m]);
    let (bt, hbt) = random::<f16>(&mut rng, &[n, k]);
    check(&a, &b, &ha, &hb);
    check(&at.t(), &bt.t(), &hat.t(), &hbt.t());
    check_shapes::<f16>(42, &[3, 32, 48], &[48, 64]);
}

/// Checks `samples` entries of `c` (from `a @ b` with a 2-D or broadcast `b`) against an
/// f64 reference of those entries only (the products here are too large for a full one).
#[track_caller]
fn check_sampled(c: &Array<f16>, ha: &Host, hb: &Host, seed: u64, samples: usize) {
    let (na, nb) = (ha.shape.len(), hb.shape.len());
    let (m, k, n) = (ha.shape[na - 2], ha.shape[na - 1], hb.shape[nb - 1]);
    let batches = c.len() / (m * n);
    let actual = host(c);
    let mut rng = Rng::new(seed);
    let (mut got, mut want) = (Vec::new(), Vec::new());
    for _ in 0..samples {
        let z = (rng.unit() * batches as f64) as usize;
        let i = (rng.unit() * m as f64) as usize;
        let j = (rng.unit() * n as f64) as usize;
        let zb = if nb == 2 { 0 } else { z };
        let s: f64 = (0..k)
            .map(|l| ha.data[(z * m + i) * k + l] * hb.data[(zb * k + l) * n + j])
            .sum();
        got.push(actual[(z * m + i) * n + j]);
        want.push(s);
    }
    let (atol, rtol) = tol::<f16>(k);
    assert_close(&got, &want, atol, rtol);
}

/// The cooperative-matrix kernel's large configuration (128 x 256 tiles, K in steps of 32
/// loaded two steps ahead) needs at least 256 tiles: every operand layout, partial tiles
/// in M and N, an odd number of K steps, sliced operands and broadcast batches. Runs
/// where the adapter has cooperative matrices (lavapipe has none; its f16 products take
/// the tiled kernel, tested above).
#[test]
fn f16_tensor_core_large_tiles() {
    let d = dev();
    require_dtype!(f16);
    require!(
        d.info()
            .features
            .contains(&"EXPERIMENTAL_COOPERATIVE_MATRIX"),
        "no cooperative matrices on {}: f16 products take the tiled kernel",
        d.info().name
    );
    let mut rng = Rng::new(43);
    // 33 x 9 tiles, the last ones partial; K = 272 is 8.5 steps of 32.
    let (m, k, n) = (4112, 272, 2064);
    let (a, ha) = random::<f16>(&mut rng, &[m, k]);
    let (b, hb) = random::<f16>(&mut rng, &[k, n]);
    let (at, hat) = random::<f16>(&mut rng, &[k, m]);
    let (bt, hbt) = random::<f16>(&mut rng, &[n, k]);
    let (hat, hbt) = (hat.t(), hbt.t());
    for (seed, x, y, hx, hy) in [
        (1, a.clone(), b.clone(), &ha, &hb),
        (2, at.t(), b.clone(), &hat, &hb),
        (3, a.clone(), bt.t(), &ha, &hbt),
        (4, at.t(), bt.t(), &hat, &hbt),
    ] {
        check_sampled(&x.matmul(&y).expect("matmul"), hx, hy, seed, 4000);
    }
    // Rows 16.. of A (an offset of 16 x K halves) against a broadcast B: 12 batches of
    // 5 x 5 tiles.
    let (a3, ha3) = random::<f16>(&mut rng, &[12, 544, k]);
    let rows = a3
        .slice([Slice::from(..), Slice::from(16..544), Slice::from(..)])
        .unwrap();
    let ha3 = ha3.slice(&[(0, 12, 1), (16, 544, 1), (0, k, 1)]);
    let (b3, hb3) = random::<f16>(&mut rng, &[k, 1040]);
    check_sampled(&rows.matmul(&b3).expect("matmul"), &ha3, &hb3, 5, 4000);
}

/// A `rows x cols` view at the end of a `[rows + r0, cols + c0]` buffer whose other elements
/// are poison (NaN for floats, 10^6 for integers), and its host copy.
fn padded<T: Ty>(rng: &mut Rng, size: (usize, usize), at: (usize, usize)) -> (Array<T>, Host) {
    padded_on(dev(), rng, size, at)
}

/// [`padded`] on device `d`.
fn padded_on<T: Ty>(
    d: &gpuarray::Device,
    rng: &mut Rng,
    (rows, cols): (usize, usize),
    (r0, c0): (usize, usize),
) -> (Array<T>, Host) {
    let (br, bc) = (rows + r0, cols + c0);
    let poison = if T::FLOAT { f64::NAN } else { 1e6 };
    let mut v = vec![poison; br * bc];
    let inner = values::<T>(rng, rows * cols);
    for i in 0..rows {
        v[(r0 + i) * bc + c0..(r0 + i) * bc + c0 + cols]
            .copy_from_slice(&inner[i * cols..(i + 1) * cols]);
    }
    let (a, v) = upload::<T>(d, &v, &[br, bc]);
    let view = a
        .slice([
            Slice::new(r0 as isize, None, 1),
            Slice::new(c0 as isize, None, 1),
        ])
        .unwrap();
    let h = Host::new(&[br, bc], v).slice(&[(r0, br, 1), (c0, bc, 1)]);
    (view, h)
}

/// Operands read in place from views that end at their buffer's end, over partial tiles
/// (M, N, K not multiples of any tile): odd leading dimensions (scalar loads, clamped to the
/// buffer), leading dimensions and offsets multiples of 4 (vec4 loads), and transposed
/// views. The poison around the views must not reach the result.
fn padded_views<T: Ty>() {
    require_dtype!(T);
    let mut rng = Rng::new(61);
    for &((m, k, n), (r0, c0)) in &[
        ((70, 38, 45), (3, 5)),
        ((68, 36, 44), (3, 4)),
        ((37, 9, 130), (1, 2)),
    ] {
        let (a, ha) = padded::<T>(&mut rng, (m, k), (r0, c0));
        let (b, hb) = padded::<T>(&mut rng, (k, n), (r0 + 1, c0));
        check(&a, &b, &ha, &hb);
        let (at, hat) = padded::<T>(&mut rng, (k, m), (r0, c0));
        let (bt, hbt) = padded::<T>(&mut rng, (n, k), (r0, c0 + 2));
        check(&at.t(), &bt.t(), &hat.t(), &hbt.t());
        check(&a, &bt.t(), &ha, &hbt.t());
    }
}

/// A view whose matrix dimensions both have strides other than 1 is copied first.
#[test]
fn strided_views_are_copied() {
    let mut rng = Rng::new(51);
    let (a, ha) = random::<f32>(&mut rng, &[10, 12]);
    let (b, hb) = random::<f32>(&mut rng, &[6, 9]);
    let sa = a
        .slice([Slice::new(0, None, 2), Slice::new(1, None, 2)])
        .unwrap();
    let hsa = ha.slice(&[(0, 10, 2), (1, 12, 2)]);
    let sb = b
        .slice([Slice::new(0, None, 1), Slice::new(0, None, 3)])
        .unwrap();
    let hsb = hb.slice(&[(0, 6, 1), (0, 9, 3)]);
    assert_eq!(sa.shape(), &[5, 6]);
    assert_eq!(sb.shape(), &[6, 3]);
    check(&sa, &sb, &hsa, &hsb);
    // a view with an offset
    let so = a
        .slice([Slice::new(3, None, 1), Slice::new(0, Some(6), 1)])
        .unwrap();
    let hso = ha.slice(&[(3, 10, 1), (0, 6, 1)]);
    check(&so, &sb, &hso, &hsb);
}

#[test]
fn shape_errors_are_typed() {
    let d = dev();
    let a = d.ones::<f32>([3, 4]).unwrap();
    let b = d.ones::<f32>([5, 2]).unwrap();
    assert!(matches!(
        a.matmul(&b),
        Err(Error::ShapeMismatch { op: "matmul", ref lhs, ref rhs }) if lhs == &[3, 4] && rhs == &[5, 2]
    ));
    let x = d.ones::<f32>([2, 3, 4]).unwrap();
    let y = d.ones::<f32>([3, 4, 2]).unwrap();
    assert!(matches!(x.matmul(&y), Err(Error::ShapeMismatch { .. })));
    let v = d.ones::<f32>([5]).unwrap();
    assert!(matches!(a.matmul(&v), Err(Error::ShapeMismatch { .. })));
    assert!(matches!(a.dot(&v), Err(Error::ShapeMismatch { .. })));
    let s = d.ones::<f32>([]).unwrap();
    assert!(matches!(a.matmul(&s), Err(Error::InvalidArgument { .. })));
    assert!(matches!(v.trace(), Err(Error::InvalidArgument { .. })));
    // the device is still usable
    assert_eq!(a.matmul(&a.t()).unwrap().shape(), &[3, 3]);
}

#[test]
fn dot_nd_and_scalar() {
    let mut rng = Rng::new(61);
    let (a, ha) = random::<f32>(&mut rng, &[2, 3, 4]);
    let (b, hb) = random::<f32>(&mut rng, &[5, 4, 6]);
    let c = a.dot(&b).unwrap();
    assert_eq!(c.shape(), &[2, 3, 5, 6]);
    let mut e = Vec::new();
    for i in 0..2 {
        for j in 0..3 {
            for k in 0..5 {
                for m in 0..6 {
                    e.push(
                        (0..4)
                            .map(|l| ha.at(&[i, j, l]) * hb.at(&[k, l, m]))
                            .sum::<f64>(),
                    );
                }
            }
        }
    }
    let (atol, rtol) = tol::<f32>(4);
    assert_close(&host(&c), &e, atol, rtol);
    let s = dev().from_slice(&[2.0f32], []).unwrap();
    let r = s.dot(&a).unwrap();
    assert_close(
        &host(&r),
        &ha.data.iter().map(|x| 2.0 * x).collect::<Vec<_>>(),
        1e-6,
        1e-6,
    );
}

#[test]
fn outer_products() {
    let mut rng = Rng::new(71);
    let (x, hx) = random::<f32>(&mut rng, &[7]);
    let (y, hy) = random::<f32>(&mut rng, &[2, 5]);
    let r = x.outer(&y).unwrap();
    assert_eq!(r.shape(), &[7, 10]);
    let e: Vec<f64> = hx
        .data
        .iter()
        .flat_map(|a| hy.data.iter().map(move |b| a * b))
        .collect();
    assert_close(&host(&r), &e, 1e-6, 1e-6);
    let (xi, hxi) = random::<i32>(&mut rng, &[4]);
    let r = xi.outer(&xi).unwrap();
    let e: Vec<f64> = hxi
        .data
        .iter()
        .flat_map(|a| hxi.data.iter().map(move |b| a * b))
        .collect();
    assert_eq!(host(&r), e);
}

#[test]
fn traces() {
    let mut rng = Rng::new(81);
    let (a, ha) = random::<f32>(&mut rng, &[5, 7]);
    let e: f64 = (0..5).map(|i| ha.at(&[i, i])).sum();
    let t = a.trace().unwrap();
    assert_eq!(t.shape(), &[] as &[usize]);
    assert_close(&host(&t), &[e], 1e-5, 1e-5);
    assert_close(&host(&a.t().trace().unwrap()), &[e], 1e-5, 1e-5);
    // N-D: over the first two axes
    let (b, hb) = random::<i32>(&mut rng, &[4, 3, 2, 5]);
    let t = b.trace().unwrap();
    assert_eq!(t.shape(), &[2, 5]);
    let mut e = Vec::new();
    for p in 0..2 {
        for q in 0..5 {
            e.push((0..3).map(|i| hb.at(&[i, i, p, q])).sum::<f64>());
        }
    }
    assert_eq!(host(&t), e);
    if_supported::<f16>(|| {
        let (h, hh) = random::<f16>(&mut rng, &[64, 64]);
        let e: f64 = (0..64).map(|i| hh.at(&[i, i])).sum();
        assert_close(&host(&h.trace().unwrap()), &[e], 0.02, 2e-3);
    });
}

/// A random f32 array of `shape` on `d`, stored with its last two dimensions swapped and
/// read as a transposed view when `t`.
fn stored_on(d: &gpuarray::Device, rng: &mut Rng, shape: &[usize], t: bool) -> (Array<f32>, Host) {
    let n = shape.len();
    let mut perm: Vec<usize> = (0..n).collect();
    perm.swap(n - 2, n - 1);
    let swapped: Vec<usize> = perm.iter().map(|&i| shape[i]).collect();
    let stored = if t { &swapped } else { shape };
    let (x, v) = upload::<f32>(d, &values::<f32>(rng, stored.iter().product()), stored);
    let h = Host::new(stored, v);
    if t {
        (x.transpose(&perm).unwrap(), h.transpose(&perm))
    } else {
        (x, h)
    }
}

/// The large f32 kernel (shaders/linalg_big.wgsl) at both depths and in both warp
/// layouts against the f64 reference, through `matmul` with the kernel forced
/// (`Tuning::matmul_big`; which shapes it takes is `linalg_big.rs`'s unit test) on the four layouts, a batch with a broadcast operand, an odd
/// number of K tiles (both workgroup buffers in turn), and views inside NaN-poisoned
/// buffers (offsets and leading dimensions multiples of 4, so still vec4 loads). Shapes it
/// does not take (M, N not multiples of 128, K not of the depth, other element types)
/// fall back to the tiled kernel under the same option.
#[test]
fn big_kernel() {
    for (depth, quad) in [(8, false), (16, false), (8, true), (16, true)] {
        let mut opts = gpuarray::Options::default();
        opts.tuning.matmul_big = Some(depth);
        opts.tuning.matmul_big_quad = quad;
        let d = gpuarray::Device::with_options(opts).unwrap();
        let mut rng = Rng::new(100 + u64::from(depth));
        for (m, k, n) in [(128, 16, 128), (256, 48, 384), (128, 1040, 256)] {
            let (a, ha) = stored_on(&d, &mut rng, &[m, k], false);
            let (b, hb) = stored_on(&d, &mut rng, &[k, n], false);
            check(&a, &b, &ha, &hb);
        }
        for (ta, tb) in [(true, false), (false, true), (true, true)] {
            let (a, ha) = stored_on(&d, &mut rng, &[256, 208], ta);
            let (b, hb) = stored_on(&d, &mut rng, &[208, 128], tb);
            check(&a, &b, &ha, &hb);
        }
        let (a, ha) = stored_on(&d, &mut rng, &[3, 128, 32], false);
        let (b, hb) = stored_on(&d, &mut rng, &[32, 128], true);
        check(&a, &b, &ha, &hb);
        let (a, ha) = padded_on::<f32>(&d, &mut rng, (128, 32), (1, 4));
        let (b, hb) = padded_on::<f32>(&d, &mut rng, (32, 128), (2, 8));
        check(&a, &b, &ha, &hb);
        // Not taken: the tiled kernel under the same option.
        for (m, k, n) in [(130, 16, 128), (128, 12, 128), (128, 16, 132)] {
            let (a, ha) = stored_on(&d, &mut rng, &[m, k], false);
            let (b, hb) = stored_on(&d, &mut rng, &[k, n], false);
            check(&a, &b, &ha, &hb);
        }
        let (x, hx) = upload::<i32>(&d, &values::<i32>(&mut rng, 128 * 16), &[128, 16]);
        let hx = Host::new(&[128, 16], hx);
        let (y, hy) = upload::<i32>(&d, &values::<i32>(&mut rng, 16 * 128), &[16, 128]);
        check(&x, &y, &hx, &Host::new(&[16, 128], hy));
    }
    // Turned off, the kernel takes nothing.
    let mut opts = gpuarray::Options::default();
    opts.tuning.matmul_big = Some(0);
    let off = gpuarray::Device::with_options(opts).unwrap();
    let a = off.ones::<f32>([128, 16]).unwrap();
    let b = off.ones::<f32>([16, 128]).unwrap();
    assert_eq!(host(&a.matmul(&b).unwrap()), vec![16.0; 128 * 128]);
}
