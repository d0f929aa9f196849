//! User kernels over i64 and u64 arrays with 64-bit scalars (f64 included), exact at the
//! extremes: ElementwiseKernel (contiguous, vec4 and strided variants), ReductionKernel,
//! RawKernel (64-bit storage and uniform members).

use crate::common::{dev, Rng};
use crate::{down, wide_values, Int64, SIZES};
use gpuarray::custom::{ElementwiseKernel, RawKernel, ReductionKernel};
use gpuarray::Error;

fn elementwise<T: Int64>() {
    let mut rng = Rng::new(51);
    let k =
        ElementwiseKernel::new(dev(), "T x, T y, T a", "T z", "z = x * a + y;", "axpy64").unwrap();
    // 1024: a multiple of 4, the vec4 variant.
    for n in SIZES.into_iter().chain([1024]) {
        let (xv, yv) = (wide_values::<T>(&mut rng, n), wide_values::<T>(&mut rng, n));
        let x = dev().from_slice(&xv, [n]).unwrap();
        let y = dev().from_slice(&yv, [n]).unwrap();
        for a in [
            T::MAX,
            T::MIN,
            T::from_bits(0x1_0000_0003),
            T::from_bits(u64::MAX),
        ] {
            let want: Vec<T> = (0..n).map(|i| xv[i].wmul(a).wadd(yv[i])).collect();
            let got = down(&k.call::<T>(&[&x, &y, &a]).unwrap());
            assert_eq!(got, want, "{} n={n} a={a:?}", T::DTYPE);
        }
    }
    // A broadcast, strided call: x [4, 1] against a reversed y [5].
    let (xv, yv) = (
        wide_values::<T>(&mut rng, 4),
        wide_values::<T>(&mut rng, 10),
    );
    let x = dev().from_slice(&xv, [4, 1]).unwrap();
    let y = dev().from_slice(&yv, [10]).unwrap();
    let ys = y.slice_axis(0, gpuarray::Slice::new(-1, None, -2)).unwrap();
    let a = T::from_bits(3);
    let got = down(&k.call::<T>(&[&x, &ys, &a]).unwrap());
    let want: Vec<T> = (0..20)
        .map(|i| xv[i / 5].wmul(a).wadd(yv[9 - 2 * (i % 5)]))
        .collect();
    assert_eq!(got, want, "broadcast and strided");
}

fn reduction<T: Int64>() {
    let mut rng = Rng::new(52);
    let sum =
        ReductionKernel::new(dev(), "T x", "T y", "x", "a + b", "y = a", "T(0)", "sum64").unwrap();
    let max = ReductionKernel::new(
        dev(),
        "T x",
        "T y",
        "x",
        "max(a, b)",
        "y = a",
        "T(0)",
        "max64",
    )
    .unwrap();
    for n in [1usize, 31, 1031, 20011] {
        let v = wide_values::<T>(&mut rng, n);
        let x = dev().from_slice(&v, [n]).unwrap();
        let s = v.iter().fold(T::from_bits(0), |s, e| s.wadd(*e));
        assert_eq!(
            sum.call::<T, T>(&x).unwrap().to_scalar().unwrap(),
            s,
            "sum n={n}"
        );
        let m = v.iter().copied().fold(T::from_bits(0), std::cmp::max);
        assert_eq!(
            max.call::<T, T>(&x).unwrap().to_scalar().unwrap(),
            m,
            "max n={n}"
        );
    }
    // Along an axis of a transposed view.
    let v = wide_values::<T>(&mut rng, 6 * 7);
    let x = dev().from_slice(&v, [6, 7]).unwrap();
    let got = down(&sum.call_axis::<T, T>(&x.t(), 1, false).unwrap());
    let want: Vec<T> = (0..7)
        .map(|c| (0..6).fold(T::from_bits(0), |s, r| s.wadd(v[r * 7 + c])))
        .collect();
    assert_eq!(got, want);
}

fn raw<T: Int64>() {
    crate::require_dtype!(f64);
    let t = T::DTYPE.to_string();
    let src = format!(
        r#"
struct Args {{ n: u32, a: {t}, scale: f64 }}
@group(0) @binding(0) var<storage, read> x: array<{t}>;
@group(0) @binding(1) var<storage, read_write> y: array<{t}>;
@group(0) @binding(2) var<storage, read_write> z: array<f64>;
@group(0) @binding(3) var<uniform> args: Args;
@compute @workgroup_size(64)
fn raw64(@builtin(global_invocation_id) id: vec3<u32>) {{
    let i = id.x;
    if (i < args.n) {{
        y[i] = x[i] + args.a;
        z[i] = args.scale * f64(i);
    }}
}}"#
    );
    let k = RawKernel::new(dev(), &src, "raw64").unwrap();
    let mut rng = Rng::new(53);
    let n = 1000usize;
    let xv = wide_values::<T>(&mut rng, n);
    let x = dev().from_slice(&xv, [n]).unwrap();
    let y = dev().zeros::<T>([n]).unwrap();
    let z = dev().zeros::<f64>([n]).unwrap();
    let a = T::from_bits(0x8000_0000_0000_0001);
    let scale = 0.1f64 + f64::EPSILON; // not an f32
    k.launch(
        n.div_ceil(64) as u32,
        &[&x, &y, &z, &(n as u32), &a, &scale],
    )
    .unwrap();
    let want: Vec<T> = xv.iter().map(|e| e.wadd(a)).collect();
    assert_eq!(down(&y), want);
    let zw: Vec<f64> = (0..n).map(|i| scale * i as f64).collect();
    assert_eq!(down(&z), zw);
}

/// f64 scalars keep every bit (they no longer travel as 32-bit words), also in the vec4
/// variant; i64 scalars bind a placeholder an array did not; four scalar words at most.
#[test]
fn wide_scalars() {
    crate::require_dtype!(f64);
    crate::require_dtype!(i64);
    let k = ElementwiseKernel::new(dev(), "T x, T s", "T y", "y = x + s;", "add_s").unwrap();
    let v: Vec<f64> = (0..1024).map(|i| i as f64 * 1e-3).collect();
    let x = dev().from_slice(&v, [1024]).unwrap();
    let s = 1.0f64 / 3.0;
    let want: Vec<f64> = v.iter().map(|e| e + s).collect();
    assert_eq!(down(&k.call::<f64>(&[&x, &s]).unwrap()), want);
    // An f32 scalar bound to f64 by the array converts exactly.
    let want: Vec<f64> = v.iter().map(|e| e + 0.1f32 as f64).collect();
    assert_eq!(down(&k.call::<f64>(&[&x, &0.1f32]).unwrap()), want);
    // Scalars alone: the output's type is the scalars'.
    let c = ElementwiseKernel::new(dev(), "T a, T b", "T y", "y = a - b;", "sub_s").unwrap();
    let out = dev().zeros::<i64>([3]).unwrap();
    c.call_into::<i64>(&[&i64::MIN, &1i64], &out).unwrap();
    assert_eq!(down(&out), vec![i64::MAX; 3]);
    // Mixed: an i64 scalar beside i32 arrays, an f64 one beside f32.
    let m = ElementwiseKernel::new(
        dev(),
        "i32 x, i64 big, f64 w",
        "f64 y",
        "y = f64(i64(x) + big) * w;",
        "mixed",
    )
    .unwrap();
    let xi = dev().from_slice(&[1i32, -2, 3], [3]).unwrap();
    let big = 1i64 << 52; // big + x exact in f64
    let got = down(&m.call::<f64>(&[&xi, &big, &0.5f64]).unwrap());
    assert_eq!(
        got,
        vec![
            (big + 1) as f64 * 0.5,
            (big - 2) as f64 * 0.5,
            (big + 3) as f64 * 0.5
        ]
    );
    // Three 64-bit scalars take six words: refused with a typed error.
    let three =
        ElementwiseKernel::new(dev(), "T a, T b, T c", "T y", "y = a + b + c;", "three").unwrap();
    let out = dev().zeros::<i64>([2]).unwrap();
    assert!(matches!(
        three.call_into::<i64>(&[&1i64, &2i64, &3i64], &out),
        Err(Error::InvalidArgument { .. })
    ));
    assert_eq!(down(&out), vec![0, 0]);
}

crate::per_dtype! {
    [i64_: i64, u64_: u64] => {
        elementwise => super::elementwise::<T>();
        reduction => super::reduction::<T>();
        raw => super::raw::<T>();
    }
}
