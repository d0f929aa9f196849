//! The f64 library's forms agree bit for bit. Its exponent split comes from the bits where
//! the adapter has SHADER_INT64 (shaders/shared/f64_split_bits.wgsl) and from a ladder of
//! comparisons elsewhere (f64_split.wgsl): the shared device against one opened without
//! 64-bit integers (`Tuning::int64` off), over every function that splits (log, log1p,
//! log2, log10, pow, cbrt; sin, cos and tan past 2^20 through Payne-Hanek), on values over
//! the whole exponent range, subnormals, powers of two and their neighbours included. Both
//! devices share the adapter, so their exact products (fma or Dekker's) are the same form.

use crate::common::{dev, Rng};
use gpuarray::{Array, Device, Options, Result};

type Unary = fn(&Array<f64>) -> Result<Array<f64>>;

fn values(seed: u64, n: usize) -> Vec<f64> {
    let mut rng = Rng::new(seed);
    let mut v: Vec<f64> = (0..n)
        .map(|_| {
            let x = 2f64.powf(rng.uniform(-1074.0, 1024.0)).min(f64::MAX);
            if rng.bool(0.3) {
                -x
            } else {
                x
            }
        })
        .collect();
    for k in [
        -1074, -1060, -1023, -1022, -1000, -999, -64, -1, 0, 1, 19, 20, 21, 52, 1023,
    ] {
        let p = 2f64.powi(k);
        v.extend([
            p,
            p * (1.0 + f64::EPSILON),
            p * (1.0 - f64::EPSILON / 2.0),
            -p,
        ]);
    }
    v.extend([
        0.0,
        -0.0,
        f64::MAX,
        f64::MIN_POSITIVE,
        1e-310,
        5e-324,
        0.75,
        1.5,
        std::f64::consts::SQRT_2,
    ]);
    v.extend([f64::INFINITY, f64::NEG_INFINITY, f64::NAN]);
    v
}

fn same(name: &str, xs: &[f64], got: &[f64], want: &[f64]) {
    for ((x, g), w) in xs.iter().zip(got).zip(want) {
        assert!(
            g.to_bits() == w.to_bits() || (g.is_nan() && w.is_nan()),
            "{name}({x:e}): {g:e} from the bits, {w:e} from the comparisons"
        );
    }
}

#[test]
fn f64_split_from_bits_agrees_with_comparisons() {
    require_dtype!(f64);
    require!(
        dev().supports::<i64>(),
        "no SHADER_INT64 on {}: the f64 library has one form only",
        dev().info().name
    );
    let mut opts = Options::default();
    opts.tuning.int64 = false;
    let ladder: Device = Device::with_options(opts).unwrap();
    let xs = values(34, 3001);
    let ys = values(35, 3001);
    let a = dev().from_slice(&xs, [xs.len()]).unwrap();
    let b = ladder.from_slice(&xs, [xs.len()]).unwrap();
    let unary: [(&str, Unary); 9] = [
        ("log", |a| a.log()),
        ("log1p", |a| a.log1p()),
        ("log2", |a| a.log2()),
        ("log10", |a| a.log10()),
        ("cbrt", |a| a.cbrt()),
        ("sin", |a| a.sin()),
        ("cos", |a| a.cos()),
        ("tan", |a| a.tan()),
        ("expm1", |a| a.expm1()),
    ];
    for (name, f) in unary {
        let got = f(&a).unwrap().to_vec().unwrap();
        let want = f(&b).unwrap().to_vec().unwrap();
        same(name, &xs, &got, &want);
    }
    // pow: |x| from the sweep, y in [-4, 4] (and the special values).
    let y: Vec<f64> = ys
        .iter()
        .map(|v| (v.abs().log2() / 256.0).clamp(-4.0, 4.0))
        .collect();
    let ya = dev().from_slice(&y, [y.len()]).unwrap();
    let yb = ladder.from_slice(&y, [y.len()]).unwrap();
    let got = a.pow(&ya).unwrap().to_vec().unwrap();
    let want = b.pow(&yb).unwrap().to_vec().unwrap();
    same("pow", &xs, &got, &want);
}

/// Fused f64 functions (the elementwise kernel's library in a generated kernel, vec4 lanes
/// where the length allows) give the unfused functions' bits: the split's vec4 form
/// (f64_lanes4.wgsl) included.
#[test]
fn fused_f64_library_matches_unfused() {
    require_dtype!(f64);
    eprintln!(
        "{}: f64 fma fused: {:?}",
        dev().info().name,
        dev().info().f64_fma_fused
    );
    let mut rng = Rng::new(36);
    for n in [4096usize, 1001] {
        let xs: Vec<f64> = (0..n)
            .map(|_| 2f64.powf(rng.uniform(-30.0, 30.0)))
            .collect();
        let ys: Vec<f64> = (0..n).map(|_| rng.uniform(-3.0, 3.0)).collect();
        let x = dev().from_slice(&xs, [n]).unwrap();
        let y = dev().from_slice(&ys, [n]).unwrap();
        use gpuarray::custom::fuse;
        let unary = [
            ("log", fuse(dev(), |[x]| x.log()).unwrap(), x.log()),
            ("log1p", fuse(dev(), |[x]| x.log1p()).unwrap(), x.log1p()),
            ("cbrt", fuse(dev(), |[x]| x.cbrt()).unwrap(), x.cbrt()),
        ];
        for (name, f, want) in unary {
            let got = f.call::<f64>(&[&x]).unwrap().to_vec().unwrap();
            same(name, &xs, &got, &want.unwrap().to_vec().unwrap());
        }
        let f = fuse(dev(), |[x, y]| x.pow(y)).unwrap();
        let got = f.call::<f64>(&[&x, &y]).unwrap().to_vec().unwrap();
        let want = x.pow(&y).unwrap().to_vec().unwrap();
        same("pow", &xs, &got, &want);
    }
}
