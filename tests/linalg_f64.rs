//! The f64 product kernel (shaders/linalg_f64.wgsl) against an f64 CPU reference, every
//! tiling the tile trial may pick forced through `Tuning::matmul_f64`
//! (`GPUARRAY_MATMUL_F64`): partial tiles (M, N, K past a multiple of the tile, primes), an
//! odd and an even number of K tiles (both workgroup buffers last), the four layouts, a
//! batch with a broadcast operand, views inside NaN-poisoned buffers, special values; and
//! tilings the kernel cannot run fall back to the tiled kernel under the same option.
//! Everything runs in the process's layout of the kernel (`GPUARRAY_F64_PAIR`,
//! `GPUARRAY_F64_FRAG`; default paired lanes): run the binary under each to test each
//! (the library's unit test `every_layout_against_the_reference` runs all four on a few
//! tilings).

#[macro_use]
mod common;

use common::{assert_close, host, upload, Host, Rng};
use gpuarray::{Array, Device, Options, Slice};

/// The tilings of the trial's candidate lists (src/ops/linalg/linalg_f64.rs, CANDIDATES),
/// by shape class: square-ish, few columns, few rows.
const TILINGS: [[u32; 5]; 14] = [
    [128, 128, 8, 8, 8],
    [128, 64, 8, 8, 4],
    [64, 128, 8, 4, 8],
    [64, 64, 8, 4, 4],
    [64, 64, 16, 8, 4],
    [128, 32, 8, 8, 4],
    [128, 32, 8, 4, 4],
    [64, 32, 8, 4, 2],
    [128, 16, 8, 8, 2],
    [32, 128, 8, 4, 8],
    [32, 128, 8, 4, 4],
    [32, 64, 8, 2, 4],
    [16, 128, 8, 2, 8],
    // Square-ish, added in session 21 (last, so that the indices above keep their tilings).
    [64, 64, 16, 4, 4],
];

fn device(t: [u32; 5]) -> Device {
    let mut o = Options::default();
    let [bm, bn, bk, tm, tn] = t;
    o.tuning.matmul_f64 = Some(gpuarray::config::MatmulTiles { bm, bn, bk, tm, tn });
    // Large enough products would take split-K or the matrix-vector kernel otherwise.
    o.tuning.matmul_split_k = false;
    Device::with_options(o).expect("a device")
}

fn reference(a: &Host, b: &Host) -> Vec<f64> {
    let (na, nb) = (a.shape.len(), b.shape.len());
    let (m, k, n) = (a.shape[na - 2], a.shape[na - 1], b.shape[nb - 1]);
    let batches = if na == 3 { a.shape[0] } else { 1 };
    let mut out = vec![0.0; batches * m * n];
    for z in 0..batches {
        for i in 0..m {
            for j in 0..n {
                let mut s = 0.0;
                for l in 0..k {
                    let x = if na == 3 {
                        a.at(&[z, i, l])
                    } else {
                        a.at(&[i, l])
                    };
                    let y = if nb == 3 {
                        b.at(&[z, l, j])
                    } else {
                        b.at(&[l, j])
                    };
                    s += x * y;
                }
                out[z * m * n + i * n + j] = s;
            }
        }
    }
    out
}

/// `rows x cols` (with `batch` leading when not 0) of uniform values in [-1, 1), stored
/// transposed (its last two axes swapped: a view read in place) when `t`.
fn stored(
    d: &Device,
    rng: &mut Rng,
    batch: usize,
    (r, c): (usize, usize),
    t: bool,
) -> (Array<f64>, Host) {
    let mut shape = if t { vec![c, r] } else { vec![r, c] };
    if batch > 0 {
        shape.insert(0, batch);
    }
    let v: Vec<f64> = (0..shape.iter().product::<usize>())
        .map(|_| rng.uniform(-1.0, 1.0))
        .collect();
    let (x, v) = upload::<f64>(d, &v, &shape);
    let h = Host::new(&shape, v);
    if !t {
        return (x, h);
    }
    let n = shape.len();
    let mut perm: Vec<usize> = (0..n).collect();
    perm.swap(n - 2, n - 1);
    (x.transpose(&perm).unwrap(), h.transpose(&perm))
}

#[track_caller]
fn check(a: &Array<f64>, b: &Array<f64>, ha: &Host, hb: &Host, what: &str) {
    let c = a.matmul(b).expect("matmul");
    let k = ha.shape[ha.shape.len() - 1];
    let e = reference(ha, hb);
    // Sums of k products of values below 1 in f64: a few ulps per term at most.
    let atol = f64::EPSILON * (k as f64) * 2.0;
    let got = host(&c);
    assert_eq!(got.len(), e.len(), "{what}");
    assert_close(&got, &e, atol, 4.0 * f64::EPSILON);
}

/// Every tiling on partial tiles and an odd number of K tiles, one transposed layout each
/// (rotating); the first of each shape class on all four layouts and on a batch.
#[test]
fn every_tiling_against_the_reference() {
    require_dtype!(f64);
    let mut rng = Rng::new(640);
    for (i, &t) in TILINGS.iter().enumerate() {
        let d = device(t);
        let [bm, bn, bk, ..] = t.map(|x| x as usize);
        // Partial tiles along M and N, K a prime over an odd number of K tiles, then an
        // even one.
        for (m, n, k) in [(bm + 3, bn + 5, 3 * bk + 2), (2 * bm - 1, bn - 1, 4 * bk)] {
            let (a, ha) = stored(&d, &mut rng, 0, (m, k), false);
            let (b, hb) = stored(&d, &mut rng, 0, (k, n), false);
            check(&a, &b, &ha, &hb, &format!("{t:?} {m}x{n}x{k}"));
        }
        let layouts: &[(bool, bool)] = if matches!(i, 0 | 5 | 9) {
            &[(true, false), (false, true), (true, true)]
        } else {
            &[[(true, false), (false, true), (true, true)][i % 3]]
        };
        for &(ta, tb) in layouts {
            let (m, n, k) = (bm + 1, 2 * bn + 3, 2 * bk + 5);
            let (a, ha) = stored(&d, &mut rng, 0, (m, k), ta);
            let (b, hb) = stored(&d, &mut rng, 0, (k, n), tb);
            check(&a, &b, &ha, &hb, &format!("{t:?} layout {ta} {tb}"));
        }
        if matches!(i, 0 | 5 | 9) {
            // A batch of 3 against one broadcast B.
            let (a, ha) = stored(&d, &mut rng, 3, (bm - 7, 19), false);
            let (b, hb) = stored(&d, &mut rng, 0, (19, bn + 2), true);
            let hb3 = Host::new(
                &[3, hb.shape[0], hb.shape[1]],
                [hb.data.clone(), hb.data.clone(), hb.data.clone()].concat(),
            );
            check(&a, &b, &ha, &hb3, &format!("{t:?} batch"));
        }
    }
}

/// Views that end at their buffer's end inside NaN poison, offsets and leading dimensions
/// odd: the clamped loads must not let the poison reach the result; M, N, K of 1.
#[test]
fn views_in_poison_and_thin_shapes() {
    require_dtype!(f64);
    let mut rng = Rng::new(641);
    for t in [TILINGS[0], TILINGS[3], TILINGS[6], TILINGS[10]] {
        let d = device(t);
        let padded = |rng: &mut Rng, (rows, cols): (usize, usize), (r0, c0): (usize, usize)| {
            let (br, bc) = (rows + r0, cols + c0);
            let mut v = vec![f64::NAN; br * bc];
            for i in 0..rows {
                for j in 0..cols {
                    v[(r0 + i) * bc + c0 + j] = rng.uniform(-1.0, 1.0);
                }
            }
            let (x, v) = upload::<f64>(&d, &v, &[br, bc]);
            let view = x
                .slice([
                    Slice::new(r0 as isize, None, 1),
                    Slice::new(c0 as isize, None, 1),
                ])
                .unwrap();
            (
                view,
                Host::new(&[br, bc], v).slice(&[(r0, br, 1), (c0, bc, 1)]),
            )
        };
        let (a, ha) = padded(&mut rng, (131, 37), (3, 5));
        let (b, hb) = padded(&mut rng, (37, 67), (1, 7));
        check(&a, &b, &ha, &hb, &format!("{t:?} poison"));
        let (at, hat) = padded(&mut rng, (37, 131), (2, 3));
        check(
            &at.t(),
            &b,
            &hat.t(),
            &hb,
            &format!("{t:?} poison, A transposed"),
        );
        for (m, n, k) in [(1, 70, 9), (70, 1, 9), (70, 65, 1), (2, 2, 2)] {
            let (a, ha) = stored(&d, &mut rng, 0, (m, k), false);
            let (b, hb) = stored(&d, &mut rng, 0, (k, n), false);
            check(&a, &b, &ha, &hb, &format!("{t:?} {m}x{n}x{k}"));
        }
    }
}

/// Special values: infinities and NaN propagate as in the reference sum (the clamped loads
/// select 0 past the edges, never a multiply by a NaN outside the matrix).
#[test]
fn special_values() {
    require_dtype!(f64);
    let d = device(TILINGS[1]);
    let (m, k, n) = (130, 20, 70);
    let mut va: Vec<f64> = (0..m * k).map(|i| ((i % 7) as f64 - 3.0) / 4.0).collect();
    let vb: Vec<f64> = (0..k * n).map(|i| ((i % 5) as f64 - 2.0) / 8.0).collect();
    va[5 * k + 3] = f64::INFINITY;
    va[9 * k + 1] = f64::NAN;
    va[11 * k] = 1e300;
    let (a, va) = upload::<f64>(&d, &va, &[m, k]);
    let (b, vb) = upload::<f64>(&d, &vb, &[k, n]);
    let (ha, hb) = (Host::new(&[m, k], va), Host::new(&[k, n], vb));
    let c = host(&a.matmul(&b).unwrap());
    let e = reference(&ha, &hb);
    for (i, (&g, &w)) in c.iter().zip(&e).enumerate() {
        if w.is_nan() {
            assert!(g.is_nan(), "{i}: {g} for NaN");
        } else if w.is_infinite() {
            assert_eq!(g, w, "{i}");
        } else {
            assert!((g - w).abs() <= 1e-12 * w.abs().max(1.0), "{i}: {g} vs {w}");
        }
    }
}

/// Tilings the kernel cannot run (an odd TM, a K step of 12, too many invocations) and
/// other element types fall back to the tiled kernel under the same option.
#[test]
fn unrunnable_tilings_fall_back() {
    require_dtype!(f64);
    let mut rng = Rng::new(642);
    for t in [
        [128, 128, 8, 3, 8],
        [128, 128, 12, 8, 8],
        [256, 256, 8, 4, 4],
    ] {
        let d = device(t);
        let (a, ha) = stored(&d, &mut rng, 0, (70, 33), false);
        let (b, hb) = stored(&d, &mut rng, 0, (33, 90), true);
        check(&a, &b, &ha, &hb, &format!("{t:?}"));
    }
    let d = device(TILINGS[0]);
    let x = d.ones::<f32>([130, 20]).unwrap();
    let y = d.ones::<f32>([20, 70]).unwrap();
    assert_eq!(
        x.matmul(&y).unwrap().to_vec().unwrap(),
        vec![20.0f32; 130 * 70]
    );
}

/// Grids of more tile rows than one band of the workgroup order (8 rows: the last band
/// partial) and several tile columns, on two tilings and a batch: every tile of C is
/// computed once, where it belongs.
#[test]
fn grids_past_one_band() {
    require_dtype!(f64);
    let mut rng = Rng::new(643);
    for (t, batch) in [(TILINGS[3], 0), (TILINGS[12], 2)] {
        let d = device(t);
        let [bm, bn, ..] = t.map(|x| x as usize);
        // 11 (batch: 9) tile rows, 3 tile columns, all partial at the edge.
        let rows = if batch > 0 { 9 } else { 11 };
        let (m, n, k) = (rows * bm - 5, 3 * bn - 7, 13);
        let (a, ha) = stored(&d, &mut rng, batch, (m, k), false);
        let (b, hb) = stored(&d, &mut rng, batch, (k, n), batch > 0);
        check(&a, &b, &ha, &hb, &format!("{t:?} {m}x{n}x{k} b{batch}"));
    }
}
