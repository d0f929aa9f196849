//! The bit-built float functions beyond f32: `frexp` for f64, `nextafter` and `spacing` for
//! f16 and f64, compared bit for bit with references that do not step bits: f64 against
//! Rust's `next_up`/`next_down` and exact halving and doubling (the CPU keeps subnormals),
//! f16 exhaustively against neighbours in the sorted list of every f16 value. Inputs are
//! strided views with an offset; zero sizes, broadcasting, the fused forms and the errors
//! (arrays intact) too.

use crate::common::*;
use gpuarray::custom::fuse;
use gpuarray::{f16, Array, Element, Error, Slice};

/// `vals` as a view: every second element of a buffer, from offset 1.
fn view<T: Element>(vals: &[T], fill: T) -> Array<T> {
    let mut wide = vec![fill; 2 * vals.len() + 1];
    for (k, &v) in vals.iter().enumerate() {
        wide[1 + 2 * k] = v;
    }
    let base = dev().from_slice(&wide, [wide.len()]).unwrap();
    base.slice(Slice::from(1..).step(2)).unwrap()
}

/// Same bits, or both NaN.
fn same64(a: f64, b: f64) -> bool {
    a.to_bits() == b.to_bits() || (a.is_nan() && b.is_nan())
}

/// f64 test values: random bit patterns (every class), subnormals with their leading one
/// at every position, both signs, and the special values.
fn f64_values(seed: u64) -> Vec<f64> {
    let mut rng = Rng::new(seed);
    let mut xs: Vec<f64> = (0..300).map(|_| f64::from_bits(rng.next_u64())).collect();
    // Random subnormals and small normals (random bits below an exponent field of 0 or 1).
    xs.extend((0..60).map(|_| f64::from_bits(rng.next_u64() & 0x801f_ffff_ffff_ffff)));
    for k in 0..52 {
        let s = f64::from_bits(1u64 << k);
        xs.extend([s, -s]);
    }
    xs.extend([
        0.0,
        -0.0,
        1.0,
        -0.75,
        8.0,
        f64::MIN_POSITIVE,
        -f64::MIN_POSITIVE,
        f64::from_bits(0x000f_ffff_ffff_ffff),
        f64::MAX,
        f64::MIN,
        f64::INFINITY,
        f64::NEG_INFINITY,
        f64::NAN,
        -f64::NAN,
    ]);
    xs
}

/// NumPy's frexp by exact halving and doubling (no bit access).
fn frexp_ref(x: f64) -> (f64, i32) {
    if x == 0.0 || !x.is_finite() {
        return (x, 0);
    }
    let (mut m, mut e) = (x, 0);
    while m.abs() >= 1.0 {
        (m, e) = (m / 2.0, e + 1);
    }
    while m.abs() < 0.5 {
        (m, e) = (m * 2.0, e - 1);
    }
    (m, e)
}

#[test]
fn frexp_f64_exact_for_every_class() {
    require_dtype!(f64);
    let xs = f64_values(61);
    let (m, e) = view(&xs, 9.0).frexp().unwrap();
    let (m, e) = (m.to_vec().unwrap(), e.to_vec().unwrap());
    for (k, &x) in xs.iter().enumerate() {
        let (wm, we) = frexp_ref(x);
        assert!(
            same64(m[k], wm),
            "frexp({x:e}) mantissa {:e} (want {wm:e})",
            m[k]
        );
        assert_eq!(e[k], we, "frexp({x:e}) exponent");
    }
    // ldexp undoes it exactly (subnormals included).
    let back = dev()
        .from_slice(&m, [m.len()])
        .unwrap()
        .ldexp(&dev().from_slice(&e, [e.len()]).unwrap())
        .unwrap()
        .to_vec()
        .unwrap();
    for (k, &x) in xs.iter().enumerate() {
        assert!(same64(back[k], x), "ldexp(frexp({x:e})) = {:e}", back[k]);
    }
    let (m0, e0) = dev().zeros::<f64>([0, 3]).unwrap().frexp().unwrap();
    assert_eq!((m0.shape(), e0.shape()), (&[0, 3][..], &[0, 3][..]));
}

/// NumPy's nextafter through Rust's next_up/next_down.
fn next64(x: f64, y: f64) -> f64 {
    if x.is_nan() || y.is_nan() {
        f64::NAN
    } else if x == y {
        y
    } else if y > x {
        x.next_up()
    } else {
        x.next_down()
    }
}

#[test]
fn nextafter_and_spacing_f64_step_one_bit() {
    require_dtype!(f64);
    let xs = f64_values(62);
    let mut rng = Rng::new(63);
    let n = xs.len();
    // Targets: random values, ±inf, ±0, x itself, NaN.
    let pick = |k: usize, r: u64| match r % 7 {
        0 => f64::INFINITY,
        1 => f64::NEG_INFINITY,
        2 => 0.0,
        3 => -0.0,
        4 => xs[k],
        5 if k.is_multiple_of(5) => f64::NAN,
        _ => xs[(r as usize >> 3) % n],
    };
    let ys: Vec<f64> = (0..n).map(|k| pick(k, rng.next_u64())).collect();
    let got = view(&xs, 9.0).nextafter(&view(&ys, 9.0)).unwrap();
    for (k, g) in got.to_vec().unwrap().into_iter().enumerate() {
        let want = next64(xs[k], ys[k]);
        assert!(
            same64(g, want),
            "nextafter({:e}, {:e}) = {g:e}",
            xs[k],
            ys[k]
        );
    }
    // Broadcasting one target over all, and the cases of NumPy's documentation.
    let x = dev()
        .from_slice(&[0.0f64, -0.0, 1.0, f64::MAX], [2, 2])
        .unwrap();
    let inf = dev().from_slice(&[f64::INFINITY], [1]).unwrap();
    let up = x.nextafter(&inf).unwrap().to_vec().unwrap();
    let min_sub = f64::from_bits(1);
    assert_eq!(
        up,
        vec![min_sub, min_sub, 1.0 + f64::EPSILON, f64::INFINITY]
    );
    let got = view(&xs, 9.0).spacing().unwrap().to_vec().unwrap();
    for (k, &x) in xs.iter().enumerate() {
        let want = if !x.is_finite() {
            f64::NAN
        } else if x.is_sign_negative() {
            x.next_down() - x
        } else {
            x.next_up() - x
        };
        assert!(same64(got[k], want), "spacing({x:e}) = {:e}", got[k]);
    }
    let z = dev().zeros::<f64>([2, 0]).unwrap();
    assert_eq!(z.spacing().unwrap().shape(), &[2, 0]);
    assert_eq!(z.nextafter(&z).unwrap().shape(), &[2, 0]);
}

/// Every non-NaN f16 value in increasing order, one zero.
fn sorted_f16() -> Vec<f64> {
    let mut v: Vec<f64> = (0..=u16::MAX)
        .map(|b| f16::from_bits(b).to_f64())
        .filter(|v| !v.is_nan() && v.to_bits() != (-0.0f64).to_bits())
        .collect();
    v.sort_by(|a, b| a.partial_cmp(b).unwrap());
    v
}

/// NumPy's nextafter on f16 as the neighbour in the sorted values (a zero result keeps x's
/// sign, as a step of the bits does).
fn next16(sorted: &[f64], x: f64, y: f64) -> f64 {
    if x.is_nan() || y.is_nan() {
        return f64::NAN;
    }
    if x == y {
        return y;
    }
    let i = sorted.partition_point(|&v| v < x);
    let r = if y > x {
        sorted[if sorted[i] == x { i + 1 } else { i }]
    } else {
        sorted[i - 1]
    };
    if r == 0.0 {
        0.0f64.copysign(x)
    } else {
        r
    }
}

#[test]
fn nextafter_and_spacing_f16_every_value() {
    require_dtype!(f16);
    let sorted = sorted_f16();
    let xs: Vec<f16> = (0..=u16::MAX).map(f16::from_bits).collect();
    let mut rng = Rng::new(64);
    let n = xs.len();
    let x = view(&xs, f16::from_f64(9.0));
    for target in 0..3 {
        let ys: Vec<f16> = (0..n)
            .map(|k| match target {
                0 => f16::INFINITY,
                1 => f16::NEG_INFINITY,
                _ if k.is_multiple_of(3) => xs[k],
                _ => f16::from_bits(rng.next_u64() as u16),
            })
            .collect();
        let got = x
            .nextafter(&view(&ys, f16::ZERO))
            .unwrap()
            .to_vec()
            .unwrap();
        for k in 0..n {
            let (xv, yv) = (xs[k].to_f64(), ys[k].to_f64());
            let want = next16(&sorted, xv, yv);
            assert!(
                same64(got[k].to_f64(), want),
                "nextafter({xv:e}, {yv:e}) = {:e} (want {want:e})",
                got[k].to_f64()
            );
        }
    }
    let got = x.spacing().unwrap().to_vec().unwrap();
    for (k, xk) in xs.iter().enumerate() {
        let xv = xk.to_f64();
        let want = if !xv.is_finite() {
            f64::NAN
        } else {
            let inf = f64::INFINITY.copysign(xv);
            next16(&sorted, xv, inf) - xv
        };
        assert!(
            same64(got[k].to_f64(), want),
            "spacing({xv:e}) = {:e} (want {want:e})",
            got[k].to_f64()
        );
    }
}

#[test]
fn bit_functions_fused_and_refused() {
    if_supported::<f64>(|| {
        let f = fuse(dev(), |[a, b]| a.nextafter(b).spacing()).unwrap();
        let tiny = dev().from_slice(&[0.0f64, 1.0, -1.0], [3]).unwrap();
        let to = dev().from_slice(&[1.0f64, 2.0, -2.0], [3]).unwrap();
        let got = f.call::<f64>(&[&tiny, &to]).unwrap().to_vec().unwrap();
        let want = [f64::from_bits(1), f64::EPSILON, -f64::EPSILON];
        assert!(got.iter().zip(want).all(|(g, w)| same64(*g, w)), "{got:?}");
        // A fused reduction takes the helpers too.
        let s = fuse(dev(), |[a]| a.spacing().sum()).unwrap();
        let v = s.call::<f64>(&[&to]).unwrap().to_vec().unwrap();
        // spacing(1) + spacing(2) + spacing(-2) = eps + 2 eps - 2 eps.
        assert_eq!(v, vec![f64::EPSILON]);
        // And from an index expression (from_fn shares fuse's generator).
        let n = dev()
            .from_fn::<f64, 1>([3], |[i]| i.nextafter(10.0f64))
            .unwrap();
        let want = vec![f64::from_bits(1), 1.0f64.next_up(), 2.0f64.next_up()];
        assert_eq!(n.to_vec().unwrap(), want);
    });
    if_supported::<f16>(|| {
        let f = fuse(dev(), |[a, b]| a.nextafter(b)).unwrap();
        let x = dev().from_slice(&[f16::ZERO, f16::ONE], [2]).unwrap();
        let y = dev()
            .from_slice(&[f16::NEG_ONE, f16::INFINITY], [2])
            .unwrap();
        let got = f.call::<f16>(&[&x, &y]).unwrap().to_vec().unwrap();
        assert_eq!(got, vec![-f16::from_bits(1), f16::from_bits(0x3c01)]);
    });
    // Bad arguments: typed errors, the operands intact.
    let a = dev().from_slice(&[1.0f32, 2.0, 3.0], [3]).unwrap();
    let b = dev().from_slice(&[1.0f32, 2.0], [2]).unwrap();
    assert!(matches!(a.nextafter(&b), Err(Error::ShapeMismatch { .. })));
    assert_eq!(a.to_vec().unwrap(), vec![1.0, 2.0, 3.0]);
    assert_eq!(b.to_vec().unwrap(), vec![1.0, 2.0]);
    let i = dev().from_slice(&[1u32], [1]).unwrap();
    assert_unsupported(i.spacing(), gpuarray::DType::U32);
    assert_unsupported(i.nextafter(&i), gpuarray::DType::U32);
    assert_eq!(i.to_vec().unwrap(), vec![1]);
}
