//! Device identity: every entry point that takes arrays or kernels of two devices returns
//! `DeviceMismatch`, leaves the arrays of both devices as they were, and both devices go on
//! computing correctly (issue 14, finding 1: `ElementwiseKernel::call_into` with an output
//! of another device returned `Ok` and wrote into an unrelated array of the kernel's device).
//!
//! One table: each entry point is a named case, run against arrays of device A and device B
//! (in both roles where the entry point has several operands); a failure names the case.

mod common;

use common::*;
use gpuarray::custom::{fuse, ElementwiseKernel, Fused, RawKernel, ReductionKernel};
use gpuarray::nn::{conv1d, conv2d, Conv1d, Conv2d};
use gpuarray::signal::{self, Boundary, Mode};
use gpuarray::{Array, Device, Error, Result};

/// The arrays of one device, with the values they were made with.
struct Arrays {
    /// f32 [4, 4].
    m: Array<f32>,
    /// f32 [4, 4], the second operand.
    n: Array<f32>,
    /// f32 [4].
    v: Array<f32>,
    /// f32 [9]: 3x3 filters, 1-D kernels.
    w: Array<f32>,
    /// u32 [4, 4] of 0 and 1.
    mask: Array<bool>,
    /// f32 [4, 4]: the output of `call_into` and raw kernels.
    out: Array<f32>,
    /// What each array holds, in the order of [`Arrays::all`].
    values: Vec<Vec<f64>>,
}

impl Arrays {
    fn new(dev: &Device, seed: u64) -> Arrays {
        let mut rng = Rng::new(seed);
        let (m, vm) = upload::<f32>(dev, &rng.vec(16, -2.0, 2.0), &[4, 4]);
        let (n, vn) = upload::<f32>(dev, &rng.vec(16, -2.0, 2.0), &[4, 4]);
        let (v, vv) = upload::<f32>(dev, &rng.vec(4, -2.0, 2.0), &[4]);
        let (w, vw) = upload::<f32>(dev, &rng.vec(9, -1.0, 1.0), &[9]);
        let bits: Vec<f64> = (0..16).map(|_| rng.int(0, 1)).collect();
        let (mask, vmask) = upload::<bool>(dev, &bits, &[4, 4]);
        let (out, vout) = upload::<f32>(dev, &rng.vec(16, 50.0, 100.0), &[4, 4]);
        Arrays {
            m,
            n,
            v,
            w,
            mask,
            out,
            values: vec![vm, vn, vv, vw, vmask, vout],
        }
    }

    /// Every array's contents, read back, in the order of `values`.
    fn read(&self) -> Result<Vec<Vec<f64>>> {
        Ok(vec![
            to_f64(&self.m.to_vec()?),
            to_f64(&self.n.to_vec()?),
            to_f64(&self.v.to_vec()?),
            to_f64(&self.w.to_vec()?),
            to_f64(&self.mask.to_vec()?),
            to_f64(&self.out.to_vec()?),
        ])
    }

    /// A 3x3 filter view of `w` for conv2d: [1, 1, 3, 3].
    fn filter(&self) -> Array<f32> {
        self.w.reshape([1, 1, 3, 3]).unwrap()
    }

    /// `m` as an image for conv2d: [1, 1, 4, 4].
    fn image(&self) -> Array<f32> {
        self.m.reshape([1, 1, 4, 4]).unwrap()
    }
}

/// The user kernels of one device.
struct Kernels {
    ew: ElementwiseKernel,
    red: ReductionKernel,
    raw: RawKernel,
    fused: Fused,
}

const RAW: &str = r#"
@group(0) @binding(0) var<storage, read> x: array<f32>;
@group(0) @binding(1) var<storage, read_write> y: array<f32>;
@compute @workgroup_size(16)
fn twice(@builtin(global_invocation_id) id: vec3<u32>) {
    if (id.x < 16u) { y[id.x] = 2.0 * x[id.x]; }
}"#;

impl Kernels {
    fn new(dev: &Device) -> Kernels {
        Kernels {
            ew: ElementwiseKernel::new(dev, "T x, T y", "T z", "z = x * y + T(1);", "fma1")
                .unwrap(),
            red: ReductionKernel::new(dev, "T x", "T y", "x * x", "a + b", "y = a", "0", "ss")
                .unwrap(),
            raw: RawKernel::new(dev, RAW, "twice").unwrap(),
            fused: fuse(dev, |[x, y]| x * 3.0 - y).unwrap(),
        }
    }
}

/// Two devices, their arrays and kernels.
struct Fx {
    da: Device,
    db: Device,
    a: Arrays,
    b: Arrays,
    ka: Kernels,
    kb: Kernels,
}

type Case = (&'static str, fn(&Fx) -> Result<()>);

/// Discards a call's value, keeping its error.
fn done<T>(r: Result<T>) -> Result<()> {
    r.map(drop)
}

/// The entry points, each called with operands of both devices. Where an operand order
/// matters, one case puts the foreign operand first and another last.
const CASES: &[Case] = &[
    // Elementwise binary operations and comparisons.
    ("add", |f| done(f.a.m.add(&f.b.n))),
    ("add (foreign first)", |f| done(f.b.m.add(&f.a.n))),
    ("sub", |f| done(f.a.m.sub(&f.b.n))),
    ("mul", |f| done(f.a.m.mul(&f.b.n))),
    ("div", |f| done(f.a.m.div(&f.b.n))),
    ("rem", |f| done(f.a.m.rem(&f.b.n))),
    ("maximum", |f| done(f.a.m.maximum(&f.b.n))),
    ("minimum", |f| done(f.a.m.minimum(&f.b.n))),
    ("pow", |f| done(f.a.m.pow(&f.b.n))),
    ("add, broadcast", |f| done(f.a.m.add(&f.b.v))),
    ("eq", |f| done(f.a.m.eq(&f.b.n))),
    ("ne", |f| done(f.a.m.ne(&f.b.n))),
    ("lt", |f| done(f.a.m.lt(&f.b.n))),
    ("le", |f| done(f.a.m.le(&f.b.n))),
    ("gt", |f| done(f.a.m.gt(&f.b.n))),
    ("ge", |f| done(f.a.m.ge(&f.b.n))),
    // where_, each operand foreign in turn.
    ("where_ (mask)", |f| {
        done(Array::where_(&f.b.mask, &f.a.m, &f.a.n))
    }),
    ("where_ (x)", |f| {
        done(Array::where_(&f.a.mask, &f.b.m, &f.a.n))
    }),
    ("where_ (y)", |f| {
        done(Array::where_(&f.a.mask, &f.a.m, &f.b.n))
    }),
    // Matrix products.
    ("matmul", |f| done(f.a.m.matmul(&f.b.n))),
    ("matmul (foreign first)", |f| done(f.b.m.matmul(&f.a.n))),
    ("matmul, batched broadcast", |f| {
        done(f.a.m.reshape([1, 4, 4])?.matmul(&f.b.n))
    }),
    ("dot", |f| done(f.a.v.dot(&f.b.v))),
    ("dot, matrix", |f| done(f.a.m.dot(&f.b.n))),
    ("outer", |f| done(f.a.v.outer(&f.b.v))),
    // signal::
    ("signal::convolve", |f| {
        done(signal::convolve(&f.a.w, &f.b.v, Mode::Full))
    }),
    ("signal::convolve (foreign first)", |f| {
        done(signal::convolve(&f.b.w, &f.a.v, Mode::Same))
    }),
    ("signal::correlate", |f| {
        done(signal::correlate(&f.a.w, &f.b.v, Mode::Valid))
    }),
    ("signal::convolve2d", |f| {
        done(signal::convolve2d(
            &f.a.m,
            &f.b.w.reshape([3, 3])?,
            Mode::Same,
        ))
    }),
    ("signal::convolve2d_with", |f| {
        let k = f.b.w.reshape([3, 3])?;
        done(signal::convolve2d_with(
            &f.a.m,
            &k,
            Mode::Full,
            Boundary::Wrap,
        ))
    }),
    ("signal::correlate2d", |f| {
        done(signal::correlate2d(
            &f.b.m,
            &f.a.w.reshape([3, 3])?,
            Mode::Valid,
        ))
    }),
    ("signal::correlate2d_with", |f| {
        let k = f.b.w.reshape([3, 3])?;
        done(signal::correlate2d_with(
            &f.a.m,
            &k,
            Mode::Same,
            Boundary::Symmetric,
        ))
    }),
    // nn::
    ("nn::conv2d (weight)", |f| {
        done(conv2d(&f.a.image(), &f.b.filter(), None, Conv2d::default()))
    }),
    ("nn::conv2d (input)", |f| {
        done(conv2d(&f.b.image(), &f.a.filter(), None, Conv2d::default()))
    }),
    ("nn::conv2d (bias)", |f| {
        let bias = f.b.v.slice(..1)?;
        done(conv2d(
            &f.a.image(),
            &f.a.filter(),
            Some(&bias),
            Conv2d::default(),
        ))
    }),
    ("nn::conv1d", |f| {
        let x = f.a.m.reshape([1, 1, 16])?;
        let w = f.b.w.reshape([1, 1, 9])?;
        done(conv1d(&x, &w, None, Conv1d::default()))
    }),
    ("nn::conv1d (bias)", |f| {
        let x = f.a.m.reshape([1, 1, 16])?;
        let w = f.a.w.reshape([1, 1, 9])?;
        let bias = f.b.v.slice(..1)?;
        done(conv1d(&x, &w, Some(&bias), Conv1d::default()))
    }),
    // ElementwiseKernel.
    ("ElementwiseKernel::call (one argument)", |f| {
        done(f.ka.ew.call::<f32>(&[&f.a.m, &f.b.n]))
    }),
    (
        "ElementwiseKernel::call (kernel of the other device)",
        |f| done(f.kb.ew.call::<f32>(&[&f.a.m, &f.a.n])),
    ),
    ("ElementwiseKernel::call_into (output)", |f| {
        f.ka.ew.call_into(&[&f.a.m, &f.a.n], &f.b.out)
    }),
    (
        "ElementwiseKernel::call_into (output, scalar argument)",
        |f| f.ka.ew.call_into(&[&f.a.m, &2.0f32], &f.b.out),
    ),
    ("ElementwiseKernel::call_into (arguments)", |f| {
        f.ka.ew.call_into(&[&f.b.m, &f.b.n], &f.a.out)
    }),
    (
        "ElementwiseKernel::call_into (kernel of the other device)",
        |f| f.kb.ew.call_into(&[&f.a.m, &f.a.n], &f.a.out),
    ),
    // ReductionKernel.
    ("ReductionKernel::call", |f| {
        done(f.ka.red.call::<f32, f32>(&f.b.m))
    }),
    ("ReductionKernel::call_axis", |f| {
        done(f.ka.red.call_axis::<f32, f32>(&f.b.m, 1, false))
    }),
    ("ReductionKernel::call_axis (several)", |f| {
        done(f.ka.red.call_axis::<f32, f32>(&f.b.m, &[0, 1], true))
    }),
    // RawKernel.
    ("RawKernel::launch (input)", |f| {
        f.ka.raw.launch(1, &[&f.b.m, &f.a.out])
    }),
    ("RawKernel::launch (output)", |f| {
        f.ka.raw.launch(1, &[&f.a.m, &f.b.out])
    }),
    ("RawKernel::launch (kernel of the other device)", |f| {
        f.kb.raw.launch(1, &[&f.a.m, &f.a.out])
    }),
    // fuse.
    ("Fused::call", |f| {
        done(f.ka.fused.call::<f32>(&[&f.a.m, &f.b.n]))
    }),
    ("Fused::call (kernel of the other device)", |f| {
        done(f.kb.fused.call::<f32>(&[&f.a.m, &f.a.n]))
    }),
    // Events.
    ("Event::elapsed_ms", |f| {
        let start = f.da.record_event()?;
        let end = f.db.record_event()?;
        done(start.elapsed_ms(&end))
    }),
];

/// Checks that `dev`'s arrays hold what they were made with, and that the device computes
/// correctly: a built-in op, and each user kernel, against the CPU.
fn check_device(name: &str, arrays: &Arrays, k: &Kernels) -> std::result::Result<(), String> {
    let err = |what: &str, e: Error| format!("{name}: {what}: {e}");
    let read = arrays
        .read()
        .map_err(|e| err("reading the arrays back", e))?;
    for (j, (got, want)) in read.iter().zip(&arrays.values).enumerate() {
        if got != want {
            return Err(format!("{name}: array {j} changed: {got:?}, was {want:?}"));
        }
    }
    let [m, n, v] = [0, 1, 2].map(|j| arrays.values[j].clone());
    let f32s = |x: f64| x as f32;
    // Built-in: m * 2 + v (broadcast), in f32 as the GPU rounds it.
    let y = arrays.m.mul_scalar(2.0).and_then(|y| y.add(&arrays.v));
    let y = y
        .and_then(|y| y.to_vec())
        .map_err(|e| err("m * 2 + v", e))?;
    let want: Vec<f64> = (0..16)
        .map(|i| (f32s(m[i]) * 2.0 + f32s(v[i % 4])) as f64)
        .collect();
    compare(name, "m * 2 + v", &to_f64(&y), &want)?;
    // ElementwiseKernel: x * y + 1.
    let z = k.ew.call::<f32>(&[&arrays.m, &arrays.n]);
    let z = z
        .and_then(|z| z.to_vec())
        .map_err(|e| err("ElementwiseKernel", e))?;
    let want: Vec<f64> = (0..16).map(|i| m[i] * n[i] + 1.0).collect();
    compare(name, "ElementwiseKernel", &to_f64(&z), &want)?;
    // ReductionKernel: the sum of squares along axis 1.
    let s = k.red.call_axis::<f32, f32>(&arrays.m, 1, false);
    let s = s
        .and_then(|s| s.to_vec())
        .map_err(|e| err("ReductionKernel", e))?;
    let want: Vec<f64> = (0..4)
        .map(|r| (0..4).map(|c| m[4 * r + c] * m[4 * r + c]).sum())
        .collect();
    compare(name, "ReductionKernel", &to_f64(&s), &want)?;
    // RawKernel: twice m, into a fresh array.
    let dev = arrays.m.device();
    let out = dev.zeros::<f32>([16]).map_err(|e| err("zeros", e))?;
    k.raw
        .launch(1, &[&arrays.m, &out])
        .map_err(|e| err("RawKernel::launch", e))?;
    let want: Vec<f64> = m.iter().map(|x| 2.0 * x).collect();
    compare(name, "RawKernel", &host(&out), &want)?;
    // Fused: 3 x - y.
    let q = k.fused.call::<f32>(&[&arrays.m, &arrays.n]);
    let q = q.and_then(|q| q.to_vec()).map_err(|e| err("Fused", e))?;
    let want: Vec<f64> = (0..16).map(|i| 3.0 * m[i] - n[i]).collect();
    compare(name, "Fused", &to_f64(&q), &want)
}

/// `assert_close` as a `Result` with f32 tolerances, naming the case.
fn compare(case: &str, what: &str, got: &[f64], want: &[f64]) -> std::result::Result<(), String> {
    std::panic::catch_unwind(|| assert_close(got, want, 1e-6, 1e-6))
        .map_err(|_| format!("{case}: {what} computes wrongly: {got:?}, expected {want:?}"))
}

#[test]
fn every_entry_point_refuses_operands_of_two_devices() {
    let da = dev().clone();
    let db = Device::new().expect("a second device");
    let fx = Fx {
        a: Arrays::new(&da, 1),
        b: Arrays::new(&db, 2),
        ka: Kernels::new(&da),
        kb: Kernels::new(&db),
        da,
        db,
    };
    let mut failures = Vec::new();
    for (name, case) in CASES {
        let r = std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| case(&fx)));
        match r {
            Ok(Err(Error::DeviceMismatch { .. })) => {}
            Ok(other) => failures.push(format!("{name}: expected DeviceMismatch, got {other:?}")),
            Err(_) => failures.push(format!("{name}: panicked")),
        }
        for (dev, arrays, k) in [("device A", &fx.a, &fx.ka), ("device B", &fx.b, &fx.kb)] {
            if let Err(e) = check_device(&format!("{name}, {dev}"), arrays, k) {
                failures.push(e);
            }
        }
    }
    assert!(
        failures.is_empty(),
        "{} failures:\n{}",
        failures.len(),
        failures.join("\n")
    );
}

/// The error names the operation.
#[test]
fn the_error_names_the_entry_point() {
    let db = Device::new().expect("a second device");
    let x = dev().ones::<f32>([3]).unwrap();
    let y = db.ones::<f32>([3]).unwrap();
    let e = x.matmul(&y).unwrap_err();
    assert_eq!(e, Error::DeviceMismatch { op: "matmul" });
    assert!(e.to_string().contains("matmul"), "{e}");
    let k = ElementwiseKernel::new(dev(), "T x", "T y", "y = x;", "copy").unwrap();
    let e = k.call_into(&[&x], &y).unwrap_err();
    assert!(
        e.to_string().contains("ElementwiseKernel::call_into"),
        "{e}"
    );
}
