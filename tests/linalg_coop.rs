//! The cooperative-matrix (tensor-core) f16 kernel on any shape and alignment (partial
//! tiles in M, N and K, operands at any offset and leading dimension, every transposition
//! layout, batches) and f16 split-K on it, against an f64 reference. Runs where the
//! adapter has cooperative matrices; lavapipe has none (the tests record a skip; the tiled
//! kernel's f16 products are tested in tests/linalg.rs).

#[macro_use]
mod common;

use common::{assert_close, dev, host, upload, Host, Rng};
use gpuarray::{f16, Array, Slice};

/// Returns from the test (recording a skip) unless f16 products take the
/// cooperative-matrix kernel here.
macro_rules! require_coop {
    () => {
        require_dtype!(f16);
        require!(
            dev()
                .info()
                .features
                .contains(&"EXPERIMENTAL_COOPERATIVE_MATRIX"),
            "no cooperative matrices on {}: f16 products take the tiled kernel",
            dev().info().name
        );
    };
}

/// Random f16 values in [-1, 1) of `shape`, and the values they hold.
fn random(rng: &mut Rng, shape: &[usize]) -> (Array<f16>, Host) {
    let n = shape.iter().product();
    let (a, v) = upload::<f16>(dev(), &rng.vec(n, -1.0, 1.0), shape);
    (a, Host::new(shape, v))
}

/// `x` with one leading batch dimension (of 1 for a matrix).
fn batched(x: &Host) -> Host {
    let n = x.shape.len();
    let batches = x.shape[..n - 2].iter().product::<usize>();
    Host::new(&[batches, x.shape[n - 2], x.shape[n - 1]], x.data.clone())
}

/// Checks `a @ b` against the f64 sums of the reference operands `ha` (`[.., M, K]`) and
/// `hb` (`[.., K, N]`, or `[K, N]` broadcast): every entry of small products, `samples`
/// random ones of large. f32 accumulation and one rounding to f16: the tolerance grows
/// with K only through the f32 sum.
#[track_caller]
fn check(a: &Array<f16>, b: &Array<f16>, ha: &Host, hb: &Host, samples: usize) {
    let c = a.matmul(b).expect("matmul");
    let (ha, hb) = (batched(ha), batched(hb));
    let (m, k, n) = (ha.shape[1], ha.shape[2], hb.shape[2]);
    let batches = ha.shape[0].max(hb.shape[0]);
    assert_eq!(c.len(), batches * m * n, "shape {:?}", c.shape());
    let got = host(&c);
    let entry = |z: usize, i: usize, j: usize| {
        let (za, zb) = (z.min(ha.shape[0] - 1), z.min(hb.shape[0] - 1));
        (0..k)
            .map(|l| ha.data[(za * m + i) * k + l] * hb.data[(zb * k + l) * n + j])
            .sum::<f64>()
    };
    let total = batches * m * n;
    let picks: Vec<usize> = if total <= samples {
        (0..total).collect()
    } else {
        let mut rng = Rng::new(total as u64);
        (0..samples)
            .map(|_| (rng.unit() * total as f64) as usize)
            .collect()
    };
    let want: Vec<f64> = picks
        .iter()
        .map(|&p| entry(p / (m * n), p / n % m, p % n))
        .collect();
    let got: Vec<f64> = picks.iter().map(|&p| got[p]).collect();
    let (atol, rtol) = (1e-3 + 1e-6 * k as f64, 2f64.powi(-10));
    assert_close(&got, &want, atol, rtol);
}

/// Random operands of M x K and K x N (or a batch of them) and their product checked.
#[track_caller]
fn check_shape(rng: &mut Rng, batch: &[usize], (m, k, n): (usize, usize, usize)) {
    let (a, ha) = random(rng, &[batch, &[m, k]].concat());
    let (b, hb) = random(rng, &[batch, &[k, n]].concat());
    check(&a, &b, &ha, &hb, 3000);
}

/// Partial tiles in M, N and K: the odd shapes, shapes for each narrow tile, and
/// every combination of 1, 15, 16, 17 and 31 (products with one row or column take the
/// matrix-vector kernel).
#[test]
fn coop_any_shape() {
    require_coop!();
    let mut rng = Rng::new(161);
    for shape in [
        (1000, 1000, 1000),
        (4099, 257, 3001),
        (17, 65, 33),
        (17, 33, 65),
        (1, 1, 1),
        (300, 1001, 129),
        // The narrow tiles: few columns (128 x 32, 64 x 16) and few rows (32 x 128, 16 x 64).
        (1000, 40, 30),
        (30, 40, 1000),
        (1000, 24, 13),
        (13, 24, 1000),
    ] {
        check_shape(&mut rng, &[], shape);
    }
    let sizes = [1, 15, 16, 17, 31];
    for &m in &sizes {
        for &k in &sizes {
            for &n in &sizes {
                check_shape(&mut rng, &[], (m, k, n));
            }
        }
    }
}

/// `rows x cols` as a slice of a larger matrix at offset `off` (rows and columns), with
/// leading dimension `cols + extra`; stored transposed (a view of `[cols, rows]`) when
/// `trans`.
fn sliced(
    rng: &mut Rng,
    rows: usize,
    cols: usize,
    off: usize,
    extra: usize,
    trans: bool,
) -> (Array<f16>, Host) {
    let (r, c) = if trans { (cols, rows) } else { (rows, cols) };
    let (big, hbig) = random(rng, &[r + off, c + off + extra]);
    let s = big
        .slice([Slice::from(off..off + r), Slice::from(off..off + c)])
        .expect("slice");
    let hs = hbig.slice(&[(off, off + r, 1), (off, off + c, 1)]);
    if trans {
        (s.t(), hs.t())
    } else {
        (s, hs)
    }
}

/// Operands at offsets of 1 to 7 elements with odd and even leading dimensions (slices of
/// larger matrices), in all four transposition layouts.
#[test]
fn coop_offsets_and_layouts() {
    require_coop!();
    let mut rng = Rng::new(162);
    let (m, k, n) = (70, 45, 37);
    for off in 1..=7 {
        for (ta, tb) in [(false, false), (true, false), (false, true), (true, true)] {
            let (a, ha) = sliced(&mut rng, m, k, off, off % 3, ta);
            let (b, hb) = sliced(&mut rng, k, n, off, 8 - off, tb);
            check(&a, &b, &ha, &hb, 3000);
        }
    }
    // Aligned leading dimensions (multiples of 8), offsets that are not.
    for off in [1, 2, 4, 8] {
        let (a, ha) = sliced(&mut rng, 96, 64, off, 64 - off, false);
        let (b, hb) = sliced(&mut rng, 64, 80, off, 80 - off, true);
        check(&a, &b, &ha, &hb, 3000);
    }
}

/// Batches: batch strides that are not multiples of 8, a broadcast B, a batch sliced at an
/// offset, many 16 x 16 matrices.
#[test]
fn coop_batches() {
    require_coop!();
    let mut rng = Rng::new(163);
    check_shape(&mut rng, &[5], (33, 47, 18));
    check_shape(&mut rng, &[2, 3], (17, 19, 23));
    check_shape(&mut rng, &[300], (16, 16, 16));
    let (a, ha) = random(&mut rng, &[4, 48, 40]);
    let (b, hb) = random(&mut rng, &[40, 52]);
    check(&a, &b, &ha, &hb, 3000);
    let (a3, ha3) = random(&mut rng, &[7, 21, 40]);
    let rows = a3
        .slice([Slice::from(1..6), Slice::from(3..21), Slice::from(..)])
        .expect("slice");
    let ha3 = ha3.slice(&[(1, 6, 1), (3, 21, 1), (0, 40, 1)]);
    check(&rows, &b, &ha3, &hb, 3000);
}

/// f16 split-K (K long against M x N): f32 partial products on the cooperative-matrix
/// kernel, summed in a fixed order: correct, a tail of K left after the slices, a
/// transposed operand, and the same bits on a second run.
#[test]
fn coop_split_k() {
    require_coop!();
    let mut rng = Rng::new(164);
    for (m, k, n, tb) in [
        (256, 65536, 256, false),
        (64, 262144, 64, false),
        (48, 70001, 70, true),
    ] {
        let (a, ha) = random(&mut rng, &[m, k]);
        let (b, hb) = if tb {
            let (b, hb) = random(&mut rng, &[n, k]);
            (b.t(), hb.t())
        } else {
            random(&mut rng, &[k, n])
        };
        check(&a, &b, &ha, &hb, 600);
        let once = a.matmul(&b).expect("matmul").to_vec().expect("to_vec");
        let again = a.matmul(&b).expect("matmul").to_vec().expect("to_vec");
        assert!(
            once.iter()
                .zip(&again)
                .all(|(x, y)| x.to_bits() == y.to_bits()),
            "split-K is not deterministic for {m} x {k} x {n}"
        );
    }
}
