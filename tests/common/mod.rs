//! Helpers shared by the integration tests: one device per test binary, a deterministic
//! RNG, a tolerance-based comparison, a per-dtype description of the element types and a
//! small host-side n-d array used as the CPU model of views and broadcasting.

#![allow(dead_code)]

pub mod philox;
pub mod rng_exact;

use std::sync::OnceLock;

use gpuarray::{f16, Array, DType, Device, Element, Error, Real};

/// The device shared by every test of one test binary.
pub fn dev() -> &'static Device {
    static DEV: OnceLock<Device> = OnceLock::new();
    DEV.get_or_init(|| Device::new().expect("no adapter: the tests need one (lavapipe in CI)"))
}

/// SplitMix64: small, deterministic, good enough for test data.
#[derive(Debug, Clone)]
pub struct Rng(u64);

impl Rng {
    pub fn new(seed: u64) -> Rng {
        Rng(seed ^ 0x5851_F42D_4C95_7F2D)
    }

    pub fn next_u64(&mut self) -> u64 {
        self.0 = self.0.wrapping_add(0x9E37_79B9_7F4A_7C15);
        let mut z = self.0;
        z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
        z ^ (z >> 31)
    }

    /// Uniform in [0, 1).
    pub fn unit(&mut self) -> f64 {
        (self.next_u64() >> 11) as f64 * (1.0 / (1u64 << 53) as f64)
    }

    /// Uniform in [lo, hi).
    pub fn uniform(&mut self, lo: f64, hi: f64) -> f64 {
        lo + (hi - lo) * self.unit()
    }

    /// An integer in [lo, hi] (inclusive), as f64.
    pub fn int(&mut self, lo: i64, hi: i64) -> f64 {
        let span = (hi - lo + 1) as u64;
        (lo + (self.next_u64() % span) as i64) as f64
    }

    pub fn bool(&mut self, p: f64) -> bool {
        self.unit() < p
    }

    /// `n` values uniform in [lo, hi); never all zeros (n > 0).
    pub fn vec(&mut self, n: usize, lo: f64, hi: f64) -> Vec<f64> {
        let v: Vec<f64> = (0..n).map(|_| self.uniform(lo, hi)).collect();
        assert!(n == 0 || v.iter().any(|&x| x != 0.0));
        v
    }

    /// `n` integers in [lo, hi], as f64.
    pub fn ints(&mut self, n: usize, lo: i64, hi: i64) -> Vec<f64> {
        (0..n).map(|_| self.int(lo, hi)).collect()
    }
}

/// Compares element by element: `|a - e| <= atol + rtol * |e|`. NaN equals NaN, infinities
/// must match in sign. On failure reports the first mismatches with both values and the
/// tolerance.
#[track_caller]
pub fn assert_close(actual: &[f64], expected: &[f64], atol: f64, rtol: f64) {
    assert_eq!(
        actual.len(),
        expected.len(),
        "length: actual {} vs expected {}",
        actual.len(),
        expected.len()
    );
    let mut bad = Vec::new();
    for (i, (&a, &e)) in actual.iter().zip(expected).enumerate() {
        let ok = if a.is_nan() || e.is_nan() {
            a.is_nan() && e.is_nan()
        } else if a.is_infinite() || e.is_infinite() {
            a == e
        } else {
            (a - e).abs() <= atol + rtol * e.abs()
        };
        if !ok {
            bad.push(i);
        }
    }
    if let Some(&first) = bad.first() {
        let shown: Vec<String> = bad
            .iter()
            .take(8)
            .map(|&i| {
                let (a, e) = (actual[i], expected[i]);
                format!(
                    "  [{i}] actual {a:e} expected {e:e} (diff {:e}, allowed {:e})",
                    (a - e).abs(),
                    atol + rtol * e.abs()
                )
            })
            .collect();
        panic!(
            "{} of {} elements differ (first at index {first}; atol {atol:e}, rtol {rtol:e}):\n{}",
            bad.len(),
            actual.len(),
            shown.join("\n")
        );
    }
}

/// Converts any element slice to f64.
pub fn to_f64<T: Real>(v: &[T]) -> Vec<f64> {
    v.iter().map(|x| x.to_f64()).collect()
}

/// Downloads an array as f64.
#[track_caller]
pub fn host<T: Real>(a: &Array<T>) -> Vec<f64> {
    to_f64(&a.to_vec().expect("to_vec"))
}

/// What the tests need to know about an element type beyond `Element`.
pub trait Ty: Real {
    /// Short name for messages.
    const NAME: &'static str;
    const FLOAT: bool;
    const SIGNED: bool;
    /// The value `x` (already an integer for integer types) takes in the type: rounding for
    /// floats, wrapping for integers (two's complement, as GPU arithmetic wraps).
    fn wrap(x: f64) -> f64;
    /// Tolerance (atol, rtol) for correctly rounded arithmetic results.
    const ARITH: (f64, f64);
    /// Tolerance (atol, rtol) for transcendental functions.
    const TRANS: (f64, f64);
    /// Machine epsilon (1 for integers).
    const EPS: f64;
}

impl Ty for f32 {
    const NAME: &'static str = "f32";
    const FLOAT: bool = true;
    const SIGNED: bool = true;
    fn wrap(x: f64) -> f64 {
        x as f32 as f64
    }
    const ARITH: (f64, f64) = (0.0, 1e-6);
    const TRANS: (f64, f64) = (1e-6, 1e-5);
    const EPS: f64 = f32::EPSILON as f64;
}

impl Ty for f64 {
    const NAME: &'static str = "f64";
    const FLOAT: bool = true;
    const SIGNED: bool = true;
    fn wrap(x: f64) -> f64 {
        x
    }
    const ARITH: (f64, f64) = (0.0, 1e-12);
    const TRANS: (f64, f64) = (1e-12, 1e-12);
    const EPS: f64 = f64::EPSILON;
}

impl Ty for f16 {
    const NAME: &'static str = "f16";
    const FLOAT: bool = true;
    const SIGNED: bool = true;
    fn wrap(x: f64) -> f64 {
        f16::from_f64(x).to_f64()
    }
    const ARITH: (f64, f64) = (0.0, 1e-3);
    /// lavapipe evaluates f16 exp2/log2 (and so exp, pow) in half precision: relative errors
    /// up to 3.6e-3 (~4 ulp) are seen; Vulkan allows 3 + 2|x| ulp for exp. 5e-3 is ~5 ulp.
    const TRANS: (f64, f64) = (1e-3, 5e-3);
    const EPS: f64 = 9.765625e-4;
}

impl Ty for i32 {
    const NAME: &'static str = "i32";
    const FLOAT: bool = false;
    const SIGNED: bool = true;
    fn wrap(x: f64) -> f64 {
        (x as i64 as i32) as f64
    }
    const ARITH: (f64, f64) = (0.0, 0.0);
    const TRANS: (f64, f64) = (0.0, 0.0);
    const EPS: f64 = 1.0;
}

impl Ty for u32 {
    const NAME: &'static str = "u32";
    const FLOAT: bool = false;
    const SIGNED: bool = false;
    fn wrap(x: f64) -> f64 {
        (x as i64 as u32) as f64
    }
    const ARITH: (f64, f64) = (0.0, 0.0);
    const TRANS: (f64, f64) = (0.0, 0.0);
    const EPS: f64 = 1.0;
}

impl Ty for bool {
    const NAME: &'static str = "bool";
    const FLOAT: bool = false;
    const SIGNED: bool = false;
    fn wrap(x: f64) -> f64 {
        f64::from(u8::from(x != 0.0))
    }
    const ARITH: (f64, f64) = (0.0, 0.0);
    const TRANS: (f64, f64) = (0.0, 0.0);
    const EPS: f64 = 1.0;
}

/// Host values converted to `T`, and the exact f64 values they became (the reference must
/// start from these).
pub fn cast_in<T: Real>(v: &[f64]) -> (Vec<T>, Vec<f64>) {
    let t: Vec<T> = v.iter().map(|&x| T::from_f64(x)).collect();
    let back = to_f64(&t);
    (t, back)
}

/// Uploads `values` (converted to `T`) as an array of `shape`; returns it and the values it
/// holds, as f64.
#[track_caller]
pub fn upload<T: Real>(dev: &Device, values: &[f64], shape: &[usize]) -> (Array<T>, Vec<f64>) {
    let (t, back) = cast_in::<T>(values);
    let a = dev.from_slice(&t, shape).expect("from_slice");
    (a, back)
}

/// Whether the device supports `T`. When it does not, checks that creating an array of `T`
/// fails with `Unsupported` (so a test of `T` can return early and still test something).
#[track_caller]
pub fn supported<T: Element>(dev: &Device) -> bool {
    if dev.supports::<T>() {
        return true;
    }
    match dev.zeros::<T>([4]) {
        Err(Error::Unsupported { dtype, .. }) => assert_eq!(dtype, T::DTYPE),
        other => panic!("{:?} unsupported, but zeros gave {other:?}", T::DTYPE),
    }
    false
}

/// Records that the calling test skips the rest of its work, and why: a line on stderr and
/// one in `target/tmp/skipped.txt`, which `make test` counts and prints at the end of the
/// run. Called through [`require!`] and [`require_dtype!`], never directly with a bare
/// `return` after it elsewhere.
pub fn skip(why: &str) {
    use std::io::Write;
    let test = std::thread::current()
        .name()
        .unwrap_or("(unnamed thread)")
        .to_string();
    let line = format!("{}::{test}: {why}\n", env!("CARGO_CRATE_NAME"));
    eprint!("SKIPPED {line}");
    let dir = std::path::Path::new(env!("CARGO_TARGET_TMPDIR"));
    let _ = std::fs::create_dir_all(dir);
    // One write of one line with O_APPEND: lines of concurrent tests do not interleave.
    if let Ok(mut f) = std::fs::OpenOptions::new()
        .create(true)
        .append(true)
        .open(dir.join("skipped.txt"))
    {
        let _ = f.write_all(line.as_bytes());
    }
}

/// Runs `part` of a test where the shared device supports `T`; elsewhere records that this
/// part skipped (see [`skip`]), so a test that covers several dtypes says what it left out.
pub fn if_supported<T: Element>(part: impl FnOnce()) {
    if supported::<T>(dev()) {
        part();
    } else {
        skip(&format!(
            "the {:?} part: not supported on {}",
            T::DTYPE,
            dev().info().name
        ));
    }
}

/// The one gate for tests that need something the adapter may lack: unless `cond` holds,
/// records the skip (test name and reason, see [`skip`]) and returns from the test.
/// On lavapipe, which CI uses, only the cooperative-matrix (tensor-core) tests skip.
#[macro_export]
macro_rules! require {
    ($cond:expr, $($why:tt)+) => {
        if !$cond {
            $crate::common::skip(&format!($($why)+));
            return;
        }
    };
}

/// [`require!`] that the shared device supports arrays of `$t` (checking that it refuses
/// them with `Unsupported` where it does not).
#[macro_export]
macro_rules! require_dtype {
    ($t:ty) => {
        $crate::require!(
            $crate::common::supported::<$t>($crate::common::dev()),
            "{:?} is not supported on {}",
            <$t as gpuarray::Element>::DTYPE,
            $crate::common::dev().info().name
        )
    };
}

/// One module per dtype, each with one `#[test]` per case, gated by [`require_dtype!`] (a
/// missing dtype is a recorded skip, not a pass). In each case `T` is the module's dtype:
///
/// ```ignore
/// per_dtype! {
///     [f32_: f32, f64_: f64, i32_: i32] => {
///         sizes_1d => one_d::<T>();
///         cumsum => every_axis::<T>(Op::Sum);
///     }
/// }
/// ```
#[macro_export]
macro_rules! per_dtype {
    ([$($m:ident: $t:ty),+ $(,)?] => $cases:tt) => {
        $( $crate::per_dtype!(@one $m, $t, $cases); )+
    };
    (@one $m:ident, $t:ty, { $($case:ident => $body:expr;)* }) => {
        mod $m {
            #[allow(unused_imports)]
            use super::*;
            $(
                #[test]
                fn $case() {
                    $crate::require_dtype!($t);
                    #[allow(dead_code)]
                    type T = $t;
                    $body;
                }
            )*
        }
    };
}

/// Asserts that `r` is `Err(Unsupported)` for dtype `d`.
#[track_caller]
pub fn assert_unsupported<R: std::fmt::Debug>(r: gpuarray::Result<R>, d: DType) {
    match r {
        Err(Error::Unsupported { dtype, .. }) => assert_eq!(dtype, d),
        other => panic!("expected Unsupported for {d:?}, got {other:?}"),
    }
}

/// A host n-d array of f64, row-major: the CPU model of device arrays and their views.
#[derive(Debug, Clone, PartialEq)]
pub struct Host {
    pub shape: Vec<usize>,
    pub data: Vec<f64>,
}

fn row_major_strides(shape: &[usize]) -> Vec<usize> {
    let mut s = vec![1; shape.len()];
    for i in (0..shape.len().saturating_sub(1)).rev() {
        s[i] = s[i + 1] * shape[i + 1];
    }
    s
}

/// The multi-index of linear position `i` in `shape`.
pub fn unravel(mut i: usize, shape: &[usize]) -> Vec<usize> {
    let mut idx = vec![0; shape.len()];
    for d in (0..shape.len()).rev() {
        idx[d] = i % shape[d];
        i /= shape[d];
    }
    idx
}

impl Host {
    pub fn new(shape: &[usize], data: Vec<f64>) -> Host {
        assert_eq!(shape.iter().product::<usize>(), data.len());
        Host {
            shape: shape.to_vec(),
            data,
        }
    }

    pub fn len(&self) -> usize {
        self.data.len()
    }

    pub fn is_empty(&self) -> bool {
        self.data.is_empty()
    }

    pub fn at(&self, idx: &[usize]) -> f64 {
        let s = row_major_strides(&self.shape);
        self.data[idx.iter().zip(&s).map(|(i, s)| i * s).sum::<usize>()]
    }

    fn build(shape: Vec<usize>, f: impl Fn(&[usize]) -> f64) -> Host {
        let n: usize = shape.iter().product();
        let data = (0..n).map(|i| f(&unravel(i, &shape))).collect();
        Host { shape, data }
    }

    /// Axis k of the result is axis perm[k] of self.
    pub fn transpose(&self, perm: &[usize]) -> Host {
        let shape = perm.iter().map(|&p| self.shape[p]).collect();
        Host::build(shape, |idx| {
            let mut src = vec![0; idx.len()];
            for (k, &p) in perm.iter().enumerate() {
                src[p] = idx[k];
            }
            self.at(&src)
        })
    }

    pub fn t(&self) -> Host {
        let perm: Vec<usize> = (0..self.shape.len()).rev().collect();
        self.transpose(&perm)
    }

    /// (start, end, step) per leading axis, non-negative bounds.
    pub fn slice(&self, s: &[(usize, usize, usize)]) -> Host {
        let mut shape = self.shape.clone();
        for (d, &(a, b, st)) in s.iter().enumerate() {
            shape[d] = if b > a { (b - a).div_ceil(st) } else { 0 };
        }
        Host::build(shape, |idx| {
            let src: Vec<usize> = idx
                .iter()
                .enumerate()
                .map(|(d, &i)| match s.get(d) {
                    Some(&(a, _, st)) => a + i * st,
                    None => i,
                })
                .collect();
            self.at(&src)
        })
    }

    pub fn broadcast_to(&self, shape: &[usize]) -> Host {
        let lead = shape.len() - self.shape.len();
        Host::build(shape.to_vec(), |idx| {
            let src: Vec<usize> = self
                .shape
                .iter()
                .enumerate()
                .map(|(d, &n)| if n == 1 { 0 } else { idx[lead + d] })
                .collect();
            self.at(&src)
        })
    }

    pub fn map(&self, f: impl Fn(f64) -> f64) -> Host {
        Host {
            shape: self.shape.clone(),
            data: self.data.iter().map(|&x| f(x)).collect(),
        }
    }
}

/// NumPy's broadcast shape of two shapes (panics when incompatible).
pub fn broadcast_shape(a: &[usize], b: &[usize]) -> Vec<usize> {
    let n = a.len().max(b.len());
    (0..n)
        .map(|i| {
            let da = if i + a.len() >= n {
                a[i + a.len() - n]
            } else {
                1
            };
            let db = if i + b.len() >= n {
                b[i + b.len() - n]
            } else {
                1
            };
            match (da, db) {
                (x, y) if x == y => x,
                (1, y) => y,
                (x, 1) => x,
                _ => panic!("{a:?} and {b:?} do not broadcast"),
            }
        })
        .collect()
}

/// `f(a, b)` elementwise with broadcasting.
pub fn zip_with(a: &Host, b: &Host, f: impl Fn(f64, f64) -> f64) -> Host {
    let shape = broadcast_shape(&a.shape, &b.shape);
    let (a, b) = (a.broadcast_to(&shape), b.broadcast_to(&shape));
    Host {
        shape,
        data: a.data.iter().zip(&b.data).map(|(&x, &y)| f(x, y)).collect(),
    }
}
