//! Determinism, accuracy, larger than one binding.

use super::*;

fn bits(a: &Array<f32>) -> Vec<u32> {
    a.to_vec().unwrap().iter().map(|x| x.to_bits()).collect()
}

/// The same input gives bit-identical results on 10 runs: f32 sums of the whole array,
/// axis 0 and axis 1 (rows, columns), and var.
#[test]
fn deterministic_repeats() {
    let dev = dev();
    let mut rng = Rng::new(seed("determinism"));
    let (a, _) = upload::<f32>(dev, &rng.vec(2053 * 1031, -1.0, 2.0), &[2053, 1031]);
    let (c, _) = upload::<f32>(dev, &rng.vec(300_007 * 3, -1.0, 2.0), &[300_007, 3]);
    type F = fn(&Array<f32>) -> Result<Array<f32>>;
    let runs: [(&str, F); 6] = [
        ("sum", |a| a.sum()),
        ("sum_axis(0)", |a| a.sum_axis(0, false)),
        ("sum_axis(1)", |a| a.sum_axis(1, false)),
        ("var", |a| a.var()),
        ("var_axis(0)", |a| a.var_axis(0, 0, false)),
        ("mean_axis([0, 1], keepdims)", |a| a.mean_axis([0, 1], true)),
    ];
    for (x, shape) in [(&a, "[2053, 1031]"), (&c, "[300007, 3]")] {
        for (what, f) in runs {
            let first = bits(&f(x).unwrap());
            for run in 1..10 {
                assert_eq!(bits(&f(x).unwrap()), first, "{what} of {shape}, run {run}");
            }
        }
    }
}

/// f32 sums accumulate tree-wise: 4M uniform [0, 1) values sum within 1e-6 relative of the
/// f64 sum (a serial f32 chain is off by far more); long rows and long columns within the
/// tree bound k * u * S.
#[test]
fn f32_sum_is_tree_accurate() {
    let dev = dev();
    let mut rng = Rng::new(seed("accuracy"));
    let n = 4_000_037;
    let v: Vec<f32> = (0..n).map(|_| rng.unit() as f32).collect();
    let exact: f64 = v.iter().map(|&x| x as f64).sum();
    let a = dev.from_slice(&v, [n]).unwrap();
    let got = a.sum().unwrap().to_scalar().unwrap() as f64;
    let rel = (got - exact).abs() / exact;
    eprintln!("sum of {n} uniform f32: {got} vs {exact}, relative {rel:e}");
    assert!(
        rel <= 1e-6,
        "sum of {n}: {got} vs {exact}, relative {rel:e}"
    );
    let mean = a.mean().unwrap().to_scalar().unwrap() as f64;
    let rel = (mean - exact / n as f64).abs() / (exact / n as f64);
    assert!(rel <= 1e-6, "mean of {n}: relative {rel:e}");

    let v64: Vec<f64> = v.iter().map(|&x| x as f64).collect();
    for shape in [[4, 1_000_009], [1_000_009, 4]] {
        let m = 4 * 1_000_009;
        let h = Host::new(&shape, v64[..m].to_vec());
        let b = dev.from_slice(&v[..m], shape).unwrap();
        let axis = if shape[0] == 4 { 1 } else { 0 };
        check(
            &format!("uniform {shape:?}"),
            &b,
            &h,
            Op::Sum,
            &Form::One(axis),
        );
    }
}

/// A 40M-element f32 array (160 MB) is larger than one storage binding on lavapipe: there
/// `dev().limits()` reports max_storage_buffer_binding_size 134217728 (128 MiB) and
/// max_buffer_size 2147483647 ("llvmpipe (LLVM 15.0.6, 256 bits)"), and 160_000_000 >
/// 134_217_728 is asserted below. Whole sum (1e-6 relative of f64; 5e-8 seen on lavapipe),
/// max, argmax (the first copy, past the first binding), and sums over axis 0 and axis 1
/// of [40_000, 1000] (tree bound k * u * S).
#[test]
fn larger_than_one_binding() {
    let dev = dev();
    let n = 40_000_000usize;
    let bytes = (n * 4) as u64;
    let limits = dev.limits();
    eprintln!(
        "{}: {bytes} bytes, max_storage_buffer_binding_size {}, max_buffer_size {}",
        dev.info().name,
        limits.max_storage_buffer_binding_size,
        limits.max_buffer_size
    );
    if dev.info().name.contains("llvmpipe") {
        assert!(
            bytes > limits.max_storage_buffer_binding_size,
            "on lavapipe the array must exceed one binding"
        );
    }
    let mut rng = Rng::new(seed("forty million"));
    let mut v: Vec<f32> = (0..n)
        .map(|_| (rng.next_u64() >> 40) as f32 * (1.0 / (1u64 << 24) as f32))
        .collect();
    // The maximum at three places, the first past the first 128 MiB (index 33_554_432).
    for i in [39_999_999, 35_000_123, 36_000_000] {
        v[i] = 2.0;
    }
    let a = dev.from_slice(&v, [n]).unwrap();
    let exact: f64 = v.iter().map(|&x| x as f64).sum();
    let got = a.sum().unwrap().to_scalar().unwrap() as f64;
    let rel = (got - exact).abs() / exact;
    eprintln!("sum of 40M: {got} vs {exact}, relative {rel:e}");
    assert!(
        rel <= 1e-6,
        "sum of 40M: {got} vs {exact}, relative {rel:e}"
    );
    assert_eq!(a.max().unwrap().to_scalar().unwrap(), 2.0);
    assert_eq!(a.argmax().unwrap().to_scalar().unwrap(), 35_000_123);

    let (rows, cols) = (40_000, 1000);
    let m = a.reshape([rows, cols]).unwrap();
    let k = |len: usize| (len as f64).log2() + 4.0;
    let u = f32::U_ACC;
    // Axis 1: one sum per row.
    let got = host(&m.sum_axis(1, false).unwrap());
    let (exp, tol): (Vec<f64>, Vec<f64>) = v
        .chunks(cols)
        .map(|r| {
            let s: f64 = r.iter().map(|&x| x as f64).sum();
            (s, k(cols) * u * s)
        })
        .unzip();
    assert_within("sum_axis(1) of [40000, 1000]", &got, &exp, &tol);
    // Axis 0: one sum per column.
    let got = host(&m.sum_axis(0, false).unwrap());
    let mut exp = vec![0.0f64; cols];
    for r in v.chunks(cols) {
        for (e, &x) in exp.iter_mut().zip(r) {
            *e += x as f64;
        }
    }
    let tol: Vec<f64> = exp.iter().map(|s| k(rows) * u * s).collect();
    assert_within("sum_axis(0) of [40000, 1000]", &got, &exp, &tol);
}

/// argmax / argmin with the axis kept: every axis of a [3, 5, 7] array (and a strided view of
/// it) against the CPU's first occurrence of the extreme, the shape with extent 1 where the
/// axis was; an axis out of range and an empty axis are errors.
#[test]
fn arg_reductions_keepdims() {
    let d = dev();
    let mut rng = Rng::new(0x4b);
    let sh = [3usize, 5, 7];
    // Integers in a small range, so that ties (first occurrence) are common.
    let v = rng.ints(105, 0, 6);
    let t: Vec<f32> = v.iter().map(|&x| x as f32).collect();
    let a = d.from_slice(&t, sh).unwrap();
    let at = |i: [usize; 3]| v[(i[0] * 5 + i[1]) * 7 + i[2]];
    for axis in 0..3 {
        for max in [true, false] {
            let got = if max {
                a.argmax_axis(axis, true).unwrap()
            } else {
                a.argmin_axis(axis, true).unwrap()
            };
            let mut shape = sh.to_vec();
            shape[axis] = 1;
            assert_eq!(got.shape(), &shape[..]);
            let mut want = Vec::new();
            for i in 0..shape[0] {
                for j in 0..shape[1] {
                    for k in 0..shape[2] {
                        let mut best = 0;
                        for p in 1..sh[axis] {
                            let mut q = [i, j, k];
                            let mut b = [i, j, k];
                            q[axis] = p;
                            b[axis] = best;
                            let better = if max { at(q) > at(b) } else { at(q) < at(b) };
                            if better {
                                best = p;
                            }
                        }
                        want.push(best as i64);
                    }
                }
            }
            assert_eq!(got.to_vec().unwrap(), want, "axis {axis} max {max}");
        }
    }
    let view = a.transpose(&[2, 0, 1]).unwrap();
    let got = view.argmax_axis(0, true).unwrap();
    assert_eq!(got.shape(), &[1, 3, 5]);
    let want = a.argmax_axis(2, false).unwrap().to_vec().unwrap();
    assert_eq!(got.to_vec().unwrap(), want);
    assert!(matches!(
        a.argmin_axis(3, true),
        Err(Error::AxisOutOfRange { .. })
    ));
    let empty = d.zeros::<f32>([2, 0]).unwrap();
    assert!(empty.argmax_axis(1, true).is_err());
}
