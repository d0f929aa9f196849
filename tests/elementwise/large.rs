//! Large arrays and operators.

use super::*;

// ---------------------------------------------------------------------------------------
// Large arrays and operators
// ---------------------------------------------------------------------------------------

const BIG: usize = 1_000_003;

#[test]
fn large_f32_add_mul_exp() {
    let dev = dev();
    let mut rng = Rng::new(seed("large_f32"));
    let (a, ha) = upload::<f32>(dev, &rng.vec(BIG, -5.0, 5.0), &[BIG]);
    let (b, hb) = upload::<f32>(dev, &rng.vec(BIG, -5.0, 5.0), &[BIG]);
    let e: Vec<f64> = ha.iter().zip(&hb).map(|(x, y)| f32::wrap(x + y)).collect();
    check::<f32>("add 1_000_003", &a.add(&b).unwrap(), &[BIG], &e, f32::ARITH);
    let e: Vec<f64> = ha.iter().zip(&hb).map(|(x, y)| f32::wrap(x * y)).collect();
    check::<f32>("mul 1_000_003", &(&a * &b), &[BIG], &e, f32::ARITH);
    let e: Vec<f64> = ha.iter().map(|x| f32::wrap(x.exp())).collect();
    check::<f32>("exp 1_000_003", &a.exp().unwrap(), &[BIG], &e, f32::TRANS);
    // The vec4 path over a large multiple of 4, at an offset of 4.
    let (a4, b4) = (a.slice(3..).unwrap(), b.slice(3..).unwrap());
    assert_eq!(a4.len() % 4, 0);
    let e: Vec<f64> = ha[3..]
        .iter()
        .zip(&hb[3..])
        .map(|(x, y)| f32::wrap(x + y))
        .collect();
    check::<f32>(
        "add 1_000_000 at offset 3",
        &a4.add(&b4).unwrap(),
        &[BIG - 3],
        &e,
        f32::ARITH,
    );
    let e: Vec<f64> = ha[3..].iter().map(|x| f32::wrap(x * 3.0)).collect();
    let a4 = a.slice(3..BIG - 3).unwrap().slice(1..).unwrap();
    assert_eq!(a4.offset(), 4);
    check::<f32>(
        "mul_scalar at offset 4",
        &a4.mul_scalar(3.0).unwrap(),
        &[BIG - 7],
        &e[1..BIG - 6],
        f32::ARITH,
    );
}

#[test]
fn large_i32_add_and_broadcast() {
    let dev = dev();
    let mut rng = Rng::new(seed("large_i32"));
    let (a, ha) = upload::<i32>(dev, &rng.ints(BIG, -1_000_000, 1_000_000), &[BIG]);
    let (b, hb) = upload::<i32>(dev, &rng.ints(BIG, -1_000_000, 1_000_000), &[BIG]);
    let e: Vec<f64> = ha.iter().zip(&hb).map(|(x, y)| x + y).collect();
    check::<i32>(
        "i32 add 1_000_003",
        &a.add(&b).unwrap(),
        &[BIG],
        &e,
        (0.0, 0.0),
    );
    // 1_000_003 = 1 x 1_000_003; broadcast a column of 3 against the row: 3_000_009 outputs.
    let col = dev.from_slice(&[1i32, -2, 3], [3, 1]).unwrap();
    let m = a.rem(&col).unwrap();
    let e: Vec<f64> = [1.0, -2.0, 3.0]
        .iter()
        .flat_map(|&c| ha.iter().map(move |&x| x % c))
        .collect();
    check::<i32>(
        "i32 rem broadcast [3,1] x [1_000_003]",
        &m,
        &[3, BIG],
        &e,
        (0.0, 0.0),
    );
}

/// `&a + &b`, `-`, `*`, `/`, `%` and unary `-` on references, with broadcasting.
#[test]
fn operators() {
    let dev = dev();
    let mut rng = Rng::new(seed("operators"));
    let (a, ha) = upload::<f32>(dev, &rng.vec(12, 1.0, 10.0), &[3, 4]);
    let (b, hb) = upload::<f32>(dev, &rng.vec(4, 1.0, 10.0), &[4]);
    let (ha, hb) = (Host::new(&[3, 4], ha), Host::new(&[4], hb));
    type Ref = fn(f64, f64) -> f64;
    let cases: [(&str, Array<f32>, Ref); 5] = [
        ("+", &a + &b, |x, y| x + y),
        ("-", &b - &a, |x, y| y - x),
        ("*", &a * &b, |x, y| x * y),
        ("/", &a / &b, |x, y| x / y),
        ("%", &a % &b, |x, y| x % y),
    ];
    for (name, out, f) in cases {
        let e = zip_with(&ha, &hb, |x, y| f32::wrap(f(x, y)));
        check::<f32>(
            &format!("operator {name}"),
            &out,
            &e.shape,
            &e.data,
            f32::ARITH,
        );
    }
    let e = ha.map(|x| -x);
    check::<f32>("unary -", &-&a, &e.shape, &e.data, (0.0, 0.0));
    let i = dev.from_slice(&[7i32, -7, 7, -7], [4]).unwrap();
    let j = dev.from_slice(&[2i32, 2, -2, 0], [4]).unwrap();
    check::<i32>(
        "i32 /",
        &(&i / &j),
        &[4],
        &[3.0, -3.0, -3.0, 0.0],
        (0.0, 0.0),
    );
    check::<i32>(
        "i32 %",
        &(&i % &j),
        &[4],
        &[1.0, -1.0, 1.0, 0.0],
        (0.0, 0.0),
    );
    check::<i32>("i32 -", &-&i, &[4], &[-7.0, 7.0, -7.0, 7.0], (0.0, 0.0));
}

#[test]
#[should_panic(expected = "shape mismatch in add")]
fn operator_panics_on_mismatch() {
    let dev = dev();
    let a = dev.ones::<f32>([3]).unwrap();
    let b = dev.ones::<f32>([4]).unwrap();
    let _ = &a + &b;
}

/// Past 65,535 workgroups of 256 the grid is folded into 2-D. Element values equal to their
/// index (arange) show that every element is written once, at the right place; only slices
/// of the outputs are read (16.8M elements are computed, a few thousand downloaded).
#[test]
fn grid_folding_past_65535_workgroups() {
    let dev = dev();
    let n = 65_535 * 256 + 1000; // 16_777_960, a multiple of 8
    let a = dev.arange::<i32>(0, n as i32, 1).unwrap();
    let ends = |len: usize| [0..len, 65_535 * 256 - len..65_535 * 256 + len, n - len..n];
    for r in ends(500) {
        let e: Vec<f64> = r.clone().map(|i| i as f64).collect();
        check::<i32>(
            &format!("arange {r:?}"),
            &a.slice(r.clone()).unwrap(),
            &[r.len()],
            &e,
            (0.0, 0.0),
        );
    }
    // The strided kernel, one invocation per element: a transposed view, negated.
    let cols = n / 8;
    let b = a.reshape([cols, 8]).unwrap().t().neg().unwrap();
    assert_eq!(b.shape(), &[8, cols]);
    for row in [0, 7] {
        let r = b
            .slice([Slice::from(row..row + 1), Slice::from(cols - 300..)])
            .unwrap();
        let e: Vec<f64> = (cols - 300..cols)
            .map(|c| -((c * 8 + row) as f64))
            .collect();
        check::<i32>(
            &format!("neg of transpose, row {row}"),
            &r,
            &[1, 300],
            &e,
            (0.0, 0.0),
        );
    }
    // The scalar contiguous kernel at an odd offset.
    let c = a.slice(1..).unwrap().add_scalar(-1).unwrap();
    for r in ends(300) {
        let r = r.start..r.end.min(n - 1);
        let e: Vec<f64> = r.clone().map(|i| i as f64).collect();
        check::<i32>(
            &format!("add_scalar {r:?}"),
            &c.slice(r.clone()).unwrap(),
            &[r.len()],
            &e,
            (0.0, 0.0),
        );
    }
}

/// Integer extremes: i32::MIN / -1 wraps to i32::MIN (the remainder is 0), additions wrap,
/// and u32 values above 2^31 compare, divide and convert as unsigned.
#[test]
fn integer_extremes() {
    let dev = dev();
    let (min, max) = (i32::MIN, i32::MAX);
    let a = dev.from_slice(&[min, min, max, -7, 7], [5]).unwrap();
    let b = dev.from_slice(&[-1, 1, -1, 0, min], [5]).unwrap();
    let m = min as f64;
    check::<i32>(
        "i32 div",
        &a.div(&b).unwrap(),
        &[5],
        &[m, m, -(max as f64), 0.0, 0.0],
        (0.0, 0.0),
    );
    check::<i32>(
        "i32 rem",
        &a.rem(&b).unwrap(),
        &[5],
        &[0.0, 0.0, 0.0, 0.0, 7.0],
        (0.0, 0.0),
    );
    check::<i32>(
        "i32 add wraps",
        &a.add_scalar(1).unwrap(),
        &[5],
        &[m + 1.0, m + 1.0, m, -6.0, 8.0],
        (0.0, 0.0),
    );
    check::<i32>(
        "i32 neg wraps",
        &a.neg().unwrap(),
        &[5],
        &[m, m, -(max as f64), 7.0, -7.0],
        (0.0, 0.0),
    );

    let big = [3_000_000_000u32, 2_147_483_648, u32::MAX, 5, 0];
    let u = dev.from_slice(&big, [5]).unwrap();
    let v = dev
        .from_slice(&[5u32, u32::MAX, 2, 3_000_000_000, 1], [5])
        .unwrap();
    let (hu, hv) = (to_f64(&big), to_f64(&[5u32, u32::MAX, 2, 3_000_000_000, 1]));
    let zip = |f: fn(f64, f64) -> f64| -> Vec<f64> {
        hu.iter().zip(&hv).map(|(&x, &y)| f(x, y)).collect()
    };
    check::<bool>(
        "u32 lt",
        &u.lt(&v).unwrap(),
        &[5],
        &zip(|x, y| b2f(x < y)),
        (0.0, 0.0),
    );
    check::<u32>(
        "u32 maximum",
        &u.maximum(&v).unwrap(),
        &[5],
        &zip(f64::max),
        (0.0, 0.0),
    );
    check::<u32>(
        "u32 minimum",
        &u.minimum(&v).unwrap(),
        &[5],
        &zip(f64::min),
        (0.0, 0.0),
    );
    check::<u32>(
        "u32 div",
        &u.div(&v).unwrap(),
        &[5],
        &zip(|x, y| (x / y).trunc()),
        (0.0, 0.0),
    );
    check::<u32>(
        "u32 rem",
        &u.rem(&v).unwrap(),
        &[5],
        &zip(|x, y| x % y),
        (0.0, 0.0),
    );
    check::<u32>(
        "u32 sub wraps",
        &u.sub(&v).unwrap(),
        &[5],
        &zip(|x, y| u32::wrap(x - y)),
        (0.0, 0.0),
    );
    check::<bool>(
        "u32 gt_scalar",
        &u.gt_scalar(2_500_000_000).unwrap(),
        &[5],
        &[1.0, 0.0, 1.0, 0.0, 0.0],
        (0.0, 0.0),
    );
    let clipped: Vec<f64> = hu.iter().map(|x| x.clamp(10.0, 3e9)).collect();
    check::<u32>(
        "u32 clip",
        &u.clip(10, 3_000_000_000).unwrap(),
        &[5],
        &clipped,
        (0.0, 0.0),
    );
    let f: Vec<f64> = big.iter().map(|&x| x as f32 as f64).collect();
    check::<f32>(
        "u32 to f32",
        &u.cast::<f32>().unwrap(),
        &[5],
        &f,
        (0.0, 0.0),
    );
    if dev.supports::<f64>() {
        check::<f64>(
            "u32 to f64",
            &u.cast::<f64>().unwrap(),
            &[5],
            &hu,
            (0.0, 0.0),
        );
        let back = u.cast::<f64>().unwrap().cast::<u32>().unwrap();
        check::<u32>("u32 to f64 and back", &back, &[5], &hu, (0.0, 0.0));
    }
}
