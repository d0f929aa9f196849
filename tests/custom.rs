//! User-defined kernels, fusion, events and the benchmark, with CuPy's documented examples
//! translated to WGSL (docs.cupy.dev, "User-Defined Kernels" and "Kernel Fusion").

#[macro_use]
mod common;

use gpuarray::config::PipelineCacheDir;

use common::*;

use gpuarray::custom::{fuse, ElementwiseKernel, RawKernel, ReductionKernel};
use gpuarray::profile::{benchmark, Timing};
use gpuarray::Error;

/// Serialises the tests of this file: several count the device's dispatches and pipelines,
/// which the tests share.
fn serial() -> std::sync::MutexGuard<'static, ()> {
    static LOCK: std::sync::Mutex<()> = std::sync::Mutex::new(());
    LOCK.lock().unwrap_or_else(|p| p.into_inner())
}

// CuPy:
//   squared_diff = cp.ElementwiseKernel('float32 x, float32 y', 'float32 z',
//                                       'z = (x - y) * (x - y)', 'squared_diff')
//   x = cp.arange(10, dtype=np.float32).reshape(2, 5); y = cp.arange(5, dtype=np.float32)
//   squared_diff(x, y)   # broadcasting
//   squared_diff(x, 5)   # a scalar
fn squared_diff_reference(x: &[f64], y: &[f64], cols: usize) -> Vec<f64> {
    x.iter()
        .enumerate()
        .map(|(k, &a)| {
            let b = if y.len() == 1 { y[0] } else { y[k % cols] };
            (a - b) * (a - b)
        })
        .collect()
}

#[test]
fn squared_diff_concrete_types_broadcast() {
    let _serial = serial();
    let dev = dev();
    let k = ElementwiseKernel::new(
        dev,
        "float32 x, float32 y",
        "float32 z",
        "z = (x - y) * (x - y);",
        "squared_diff",
    )
    .unwrap();
    let xs: Vec<f32> = (0..10).map(|v| v as f32).collect();
    let ys: Vec<f32> = (0..5).map(|v| v as f32).collect();
    let x = dev.from_slice(&xs, [2, 5]).unwrap();
    let y = dev.from_slice(&ys, [5]).unwrap();
    let z = k.call::<f32>(&[&x, &y]).unwrap();
    assert_eq!(z.shape(), &[2, 5]);
    let want = squared_diff_reference(&to_f64(&xs), &to_f64(&ys), 5);
    assert_close(&host(&z), &want, 0.0, 0.0);
    // A scalar argument.
    let z = k.call::<f32>(&[&x, &5.0f32]).unwrap();
    assert_close(
        &host(&z),
        &squared_diff_reference(&to_f64(&xs), &[5.0], 5),
        0.0,
        0.0,
    );
    // Broadcasting in the other position, and a strided (transposed) view.
    let z = k.call::<f32>(&[&y, &x]).unwrap();
    assert_close(&host(&z), &want, 0.0, 0.0);
    let xt = x.t();
    let z = k.call::<f32>(&[&xt, &2.0f32]).unwrap();
    let want_t: Vec<f64> = (0..10)
        .map(|k| {
            let (r, c) = (k / 2, k % 2);
            let v = xs[c * 5 + r] as f64 - 2.0;
            v * v
        })
        .collect();
    assert_close(&host(&z), &want_t, 0.0, 0.0);
    // Into a given output.
    let out = dev.zeros::<f32>([2, 5]).unwrap();
    k.call_into(&[&x, &y], &out).unwrap();
    assert_close(&host(&out), &want, 0.0, 0.0);
}

// CuPy:
//   squared_diff_generic = cp.ElementwiseKernel('T x, T y', 'T z',
//                                               'z = (x - y) * (x - y)', 'squared_diff_generic')
#[test]
fn squared_diff_generic_types() {
    let _serial = serial();
    let dev = dev();
    let k = ElementwiseKernel::new(
        dev,
        "T x, T y",
        "T z",
        "z = (x - y) * (x - y);",
        "squared_diff_generic",
    )
    .unwrap();
    let xs: Vec<f64> = (0..10).map(|v| v as f64).collect();
    let ys: Vec<f64> = (0..5).map(|v| v as f64).collect();
    let want = squared_diff_reference(&xs, &ys, 5);
    let (x, _) = upload::<f32>(dev, &xs, &[2, 5]);
    let (y, _) = upload::<f32>(dev, &ys, &[5]);
    assert_close(&host(&k.call::<f32>(&[&x, &y]).unwrap()), &want, 0.0, 0.0);
    let (x, _) = upload::<i32>(dev, &xs, &[2, 5]);
    let (y, _) = upload::<i32>(dev, &ys, &[5]);
    assert_close(&host(&k.call::<i32>(&[&x, &y]).unwrap()), &want, 0.0, 0.0);
    let (x, _) = upload::<u32>(dev, &[3.0, 9.0], &[2]);
    assert_close(
        &host(&k.call::<u32>(&[&x, &3u32]).unwrap()),
        &[0.0, 36.0],
        0.0,
        0.0,
    );
    if dev.supports::<gpuarray::f16>() {
        let (x, _) = upload::<gpuarray::f16>(dev, &xs, &[2, 5]);
        let (y, _) = upload::<gpuarray::f16>(dev, &ys, &[5]);
        let z = k.call::<gpuarray::f16>(&[&x, &y]).unwrap();
        assert_close(&host(&z), &want, 0.0, 0.0);
    }
    // A type placeholder used in the body, and the element index.
    let k = ElementwiseKernel::new(dev, "T x", "T y", "y = x * T(2) + T(i);", "index").unwrap();
    let (x, _) = upload::<i32>(dev, &[1.0, 1.0, 1.0], &[3]);
    assert_eq!(
        k.call::<i32>(&[&x]).unwrap().to_vec().unwrap(),
        vec![2, 3, 4]
    );
}

#[test]
fn wrong_arity_dtype_and_shape_are_typed_errors() {
    let _serial = serial();
    let dev = dev();
    let k = ElementwiseKernel::new(dev, "T x, T y", "T z", "z = x + y;", "add").unwrap();
    let x = dev.zeros::<f32>([2, 3]).unwrap();
    let y = dev.zeros::<f32>([4]).unwrap();
    let yi = dev.zeros::<i32>([3]).unwrap();
    assert!(matches!(
        k.call::<f32>(&[&x]),
        Err(Error::ArgumentCount {
            expected: 2,
            given: 1,
            ..
        })
    ));
    assert!(matches!(
        k.call::<f32>(&[&x, &yi]),
        Err(Error::ArgumentType { .. })
    ));
    assert!(matches!(
        k.call::<i32>(&[&x, &x]),
        Err(Error::ArgumentType { .. })
    ));
    assert!(matches!(
        k.call::<f32>(&[&x, &y]),
        Err(Error::ShapeMismatch { .. })
    ));
    let out = dev.zeros::<f32>([3]).unwrap();
    assert!(matches!(
        k.call_into(&[&x, &x], &out),
        Err(Error::ShapeMismatch { .. })
    ));
    let c = ElementwiseKernel::new(dev, "f32 x", "f32 z", "z = x;", "concrete").unwrap();
    assert!(matches!(
        c.call::<f32>(&[&yi]),
        Err(Error::ArgumentType { .. })
    ));
    // Raw kernels: a scalar where an array is bound, an array of the wrong dtype.
    let raw = RawKernel::new(dev, MY_ADD, "my_add").unwrap();
    let a = dev.zeros::<f32>([25]).unwrap();
    assert!(matches!(
        raw.launch(5, &[&a, &a]),
        Err(Error::ArgumentCount { expected: 3, .. })
    ));
    assert!(matches!(
        raw.launch(5, &[&a, &1.0f32, &a]),
        Err(Error::ArgumentType { .. })
    ));
    assert!(matches!(
        raw.launch(5, &[&a, &yi, &a]),
        Err(Error::ArgumentType { .. })
    ));
    // One buffer as an input and the output: refused before wgpu sees it.
    assert!(matches!(
        k.call_into(&[&x, &x], &x),
        Err(Error::InvalidArgument { .. })
    ));
    assert!(matches!(
        raw.launch(5, &[&a, &a, &a]),
        Err(Error::InvalidArgument { .. })
    ));
    // The device is still usable.
    assert_eq!(k.call::<f32>(&[&x, &x]).unwrap().len(), 6);
}

#[test]
fn a_typo_reports_the_users_line() {
    let _serial = serial();
    let dev = dev();
    let body = "let d = x - y;\nz = d * d +;\n";
    let e = ElementwiseKernel::new(dev, "T x, T y", "T z", body, "typo").unwrap_err();
    let msg = e.to_string();
    assert!(matches!(e, Error::InvalidShader { .. }));
    assert!(msg.contains("typo:2:"), "{msg}");
    assert!(msg.contains("z = d * d +;"), "{msg}");
    // An unknown name, on line 3.
    let body = "let d = x - y;\nlet e = d;\nz = d * q;\n";
    let msg = ElementwiseKernel::new(dev, "T x, T y", "T z", body, "unknown")
        .unwrap_err()
        .to_string();
    assert!(msg.contains("unknown:3:9"), "{msg}");
    // A type error that shows only for one dtype, found at call time.
    let k = ElementwiseKernel::new(dev, "T x", "T y", "y = sqrt(x);", "root").unwrap();
    let xi = dev.zeros::<i32>([2]).unwrap();
    let msg = k.call::<i32>(&[&xi]).unwrap_err().to_string();
    assert!(msg.contains("root:1:"), "{msg}");
    // ReductionKernel: the expression and its column.
    let msg = ReductionKernel::new(dev, "T x", "T y", "x * x", "a + * b", "y = a", "0", "red")
        .unwrap_err()
        .to_string();
    assert!(
        msg.contains("red:1:") && msg.contains("reduce_expr"),
        "{msg}"
    );
    // RawKernel: the user's own text.
    let src = "@group(0) @binding(0) var<storage, read_write> y: array<f32>;\n\n@compute @workgroup_size(1)\nfn f() {\n    y[0] = 1.0 +;\n}\n";
    let msg = RawKernel::new(dev, src, "f").unwrap_err().to_string();
    assert!(msg.contains(":5:"), "{msg}");
    let msg = RawKernel::new(dev, src.replace(" +;", ";").as_str(), "g")
        .unwrap_err()
        .to_string();
    assert!(msg.contains("no entry point"), "{msg}");
}

// CuPy:
//   l2norm_kernel = cp.ReductionKernel('T x', 'T y', 'x * x', 'a + b', 'y = sqrt(a)', '0', 'l2norm')
//   x = cp.arange(10, dtype=np.float32).reshape(2, 5)
//   l2norm_kernel(x, axis=1)   # [5.477226, 15.9687195]
#[test]
fn l2norm_reduction_over_axis_1() {
    let _serial = serial();
    let dev = dev();
    let k = ReductionKernel::new(
        dev,
        "T x",
        "T y",
        "x * x",
        "a + b",
        "y = sqrt(a)",
        "0",
        "l2norm",
    )
    .unwrap();
    let xs: Vec<f32> = (0..10).map(|v| v as f32).collect();
    let x = dev.from_slice(&xs, [2, 5]).unwrap();
    let y = k.call_axis::<f32, f32>(&x, 1, false).unwrap();
    assert_eq!(y.shape(), &[2]);
    assert_close(&host(&y), &[5.477226, 15.9687195], 1e-6, 1e-6);
    // Matches the built-in norm on larger shapes, on every path (rows, columns, splits).
    let mut rng = Rng::new(7);
    for (shape, axis) in [
        (vec![3, 1000], 1),
        (vec![1000, 3], 0),
        (vec![5, 70_000], 1),
        (vec![64, 65], 0),
    ] {
        let n: usize = shape.iter().product();
        let (x, _) = upload::<f32>(dev, &rng.vec(n, -1.0, 1.0), &shape);
        let mine = k.call_axis::<f32, f32>(&x, axis, false).unwrap();
        let builtin = x.norm_axis(axis, false).unwrap();
        assert_close(&host(&mine), &host(&builtin), 1e-5, 1e-5);
    }
    // The whole array, and compiled once per variant: a second call compiles nothing.
    let (x, _) = upload::<f32>(dev, &rng.vec(4099, -1.0, 1.0), &[4099]);
    let a = k.call::<f32, f32>(&x).unwrap();
    let before = dev.stats().pipelines;
    let b = k.call::<f32, f32>(&x).unwrap();
    assert_eq!(dev.stats().pipelines, before);
    assert_close(&host(&a), &host(&x.norm().unwrap()), 1e-5, 1e-5);
    assert_eq!(host(&a), host(&b));
    // Wrong output dtype.
    assert!(matches!(
        k.call::<f32, i32>(&x),
        Err(Error::ArgumentType { .. })
    ));
}

// CuPy: a reduction over no elements gives post_map(identity):
//   k = cp.ReductionKernel('T x', 'T y', 'x', 'max(a, b)', 'y = a * 2 + 1', '3', 'k')
//   k(cp.zeros((4, 0), 'f'), axis=1)   # [7., 7., 7., 7.]
//   k(cp.zeros((0,), 'f'))             # 7.
#[test]
fn reductions_over_nothing_give_post_map_of_identity() {
    let _serial = serial();
    let dev = dev();
    let k = ReductionKernel::new(
        dev,
        "T x",
        "T y",
        "x",
        "max(a, b)",
        "y = a * 2 + 1",
        "3",
        "k",
    )
    .unwrap();
    let x = dev.zeros::<f32>([4, 0]).unwrap();
    let y = k.call_axis::<f32, f32>(&x, 1, false).unwrap();
    assert_eq!(y.shape(), &[4]);
    assert_eq!(host(&y), vec![7.0; 4]);
    let y = k.call_axis::<f32, f32>(&x, &[1], true).unwrap();
    assert_eq!((y.shape(), host(&y)), (&[4, 1][..], vec![7.0; 4]));
    let e = dev.zeros::<i32>([0]).unwrap();
    assert_eq!(host(&k.call::<i32, i32>(&e).unwrap()), vec![7.0]);
    // 70,000 outputs over an empty middle axis, and no outputs at all.
    let x = dev.zeros::<f32>([700, 0, 100]).unwrap();
    let y = k.call_axis::<f32, f32>(&x, 1, false).unwrap();
    assert_eq!(y.shape(), &[700, 100]);
    assert!(host(&y).iter().all(|&v| v == 7.0));
    let y = k.call_axis::<f32, f32>(&x, 0, false).unwrap();
    assert_eq!(y.shape(), &[0, 100]);
    // Non-empty inputs are unchanged: max(3, x) then the post-map.
    let x = dev.from_slice(&[1.0f32, 5.0, 2.0, -4.0], [2, 2]).unwrap();
    let y = k.call_axis::<f32, f32>(&x, 1, false).unwrap();
    assert_eq!(host(&y), vec![11.0, 7.0]);
}

// CuPy:
//   add_kernel = cp.RawKernel(r'''
//   extern "C" __global__
//   void my_add(const float* x1, const float* x2, float* y) {
//       int tid = blockDim.x * blockIdx.x + threadIdx.x;
//       y[tid] = x1[tid] + x2[tid];
//   }''', 'my_add')
//   x1 = cp.arange(25, dtype=cp.float32).reshape(5, 5); x2 = ...; y = cp.zeros((5, 5))
//   add_kernel((5,), (5,), (x1, x2, y))   # grid, block and arguments
const MY_ADD: &str = r#"
@group(0) @binding(0) var<storage, read> x1: array<f32>;
@group(0) @binding(1) var<storage, read> x2: array<f32>;
@group(0) @binding(2) var<storage, read_write> y: array<f32>;

@compute @workgroup_size(5)
fn my_add(@builtin(global_invocation_id) gid: vec3<u32>) {
    let tid = gid.x;
    y[tid] = x1[tid] + x2[tid];
}
"#;

#[test]
fn my_add_raw_kernel() {
    let _serial = serial();
    let dev = dev();
    let k = RawKernel::new(dev, MY_ADD, "my_add").unwrap();
    assert_eq!(k.workgroup_size(), [5, 1, 1]);
    let xs: Vec<f32> = (0..25).map(|v| v as f32).collect();
    let x1 = dev.from_slice(&xs, [5, 5]).unwrap();
    let x2 = dev.from_slice(&xs, [5, 5]).unwrap();
    let y = dev.zeros::<f32>([5, 5]).unwrap();
    k.launch(5, &[&x1, &x2, &y]).unwrap();
    let want: Vec<f64> = xs.iter().map(|&v| 2.0 * v as f64).collect();
    assert_close(&host(&y), &want, 0.0, 0.0);
    // The same source again compiles nothing.
    let before = dev.stats().pipelines;
    let again = RawKernel::new(dev, MY_ADD, "my_add").unwrap();
    again.launch(5, &[&x1, &x1, &y]).unwrap();
    assert_eq!(dev.stats().pipelines, before);
}

/// WGSL's f16 packing builtins (`pack2x16float`, `unpack2x16float`, `quantizeToF16`) work in
/// f32 kernels wherever the adapter has them (every Vulkan, Metal and DX12 adapter;
/// lavapipe with SHADER_F16), against the `half` crate. Packing and unpacking run in
/// separate kernels: NVIDIA's compiler folds `unpack2x16float(pack2x16float(x))` to `x`.
const PACKING: &str = r#"
@group(0) @binding(0) var<storage, read> x: array<vec2<f32>>;
@group(0) @binding(1) var<storage, read_write> packed: array<u32>;
@group(0) @binding(2) var<storage, read_write> quant: array<vec2<f32>>;

@compute @workgroup_size(64)
fn pack(@builtin(global_invocation_id) gid: vec3<u32>) {
    let i = gid.x;
    if (i >= arrayLength(&packed)) { return; }
    packed[i] = pack2x16float(x[i]);
    quant[i] = quantizeToF16(x[i]);
}
"#;

const UNPACKING: &str = r#"
@group(0) @binding(0) var<storage, read> bits: array<u32>;
@group(0) @binding(1) var<storage, read_write> values: array<vec2<f32>>;

@compute @workgroup_size(64)
fn unpack(@builtin(global_invocation_id) gid: vec3<u32>) {
    let i = gid.x;
    if (i >= arrayLength(&bits)) { return; }
    values[i] = unpack2x16float(bits[i]);
}
"#;

#[test]
fn f16_packing_builtins() {
    let _serial = serial();
    let dev = dev();
    let kernels = RawKernel::new(dev, PACKING, "pack")
        .and_then(|p| Ok((p, RawKernel::new(dev, UNPACKING, "unpack")?)));
    let (pack, unpack) = match kernels {
        Ok(k) => k,
        Err(e) => {
            // Only where the adapter lacks them (GL, or llvmpipe without SHADER_F16).
            let native = ["vulkan", "metal", "dx12"].contains(&dev.info().backend.as_str());
            assert!(!native || !supported::<gpuarray::f16>(dev), "{e}");
            assert!(matches!(e, Error::InvalidShader { .. }), "{e}");
            return;
        }
    };
    let mut rng = Rng::new(77);
    // 131 pairs: normal f16 magnitudes from 5e-4 to 1e4 of either sign, most of which
    // round.
    let xs: Vec<f32> = (0..262)
        .map(|_| {
            let sign = if rng.bool(0.5) { -1.0 } else { 1.0 };
            (sign * rng.uniform(0.5, 1.0) * 10f64.powf(rng.uniform(-3.0, 4.0))) as f32
        })
        .collect();
    let x = dev.from_slice(&xs, [131, 2]).unwrap();
    let packed = dev.zeros::<u32>([131]).unwrap();
    let quant = dev.zeros::<f32>([131, 2]).unwrap();
    pack.launch(3, &[&x, &packed, &quant]).unwrap();
    // WGSL lets the f32 -> f16 conversion round either way: within one f16 step (2^-10
    // relative) of the nearest, and quantizeToF16 gives f16 values.
    let half = |v: f64| gpuarray::f16::from_f64(v).to_f64();
    let nearest: Vec<f64> = xs.iter().map(|&v| half(v as f64)).collect();
    let decoded: Vec<f64> = packed
        .to_vec()
        .unwrap()
        .iter()
        .flat_map(|&p| [p & 0xffff, p >> 16])
        .map(|b| gpuarray::f16::from_bits(b as u16).to_f64())
        .collect();
    assert_close(&decoded, &nearest, 0.0, 1.0 / 1024.0);
    let quant = host(&quant);
    assert_close(&quant, &nearest, 0.0, 1.0 / 1024.0);
    let representable: Vec<f64> = quant.iter().map(|&q| half(q)).collect();
    assert_close(&quant, &representable, 0.0, 0.0);
    // Unpacking random normal f16 bit patterns is exact.
    let mut half_bits =
        || (rng.int(0, 1) as u32) << 15 | (rng.int(1, 30) as u32) << 10 | rng.int(0, 1023) as u32;
    let words: Vec<u32> = (0..131).map(|_| half_bits() | half_bits() << 16).collect();
    let bits = dev.from_slice(&words, [131]).unwrap();
    let values = dev.zeros::<f32>([131, 2]).unwrap();
    unpack.launch(3, &[&bits, &values]).unwrap();
    let want: Vec<f64> = words
        .iter()
        .flat_map(|&p| [p & 0xffff, p >> 16])
        .map(|b| gpuarray::f16::from_bits(b as u16).to_f64())
        .collect();
    assert_close(&host(&values), &want, 0.0, 0.0);
}

// CuPy:
//   loop_kernel = cp.RawKernel(r'''
//   extern "C" __global__
//   void elementwise_copy(const float* x, float* y, unsigned int N) {
//       unsigned int tid = blockDim.x * blockIdx.x + threadIdx.x;
//       unsigned int ntid = gridDim.x * blockDim.x;
//       for (unsigned int i = tid; i < N; i += ntid) { y[i] = x[i]; }
//   }''', 'elementwise_copy')
//   loop_kernel((3,), (4,), (x, y, cp.uint32(N)))   # grid-stride loop over N elements
const ELEMENTWISE_COPY: &str = r#"
@group(0) @binding(0) var<storage, read> x: array<f32>;
@group(0) @binding(1) var<storage, read_write> y: array<f32>;
@group(0) @binding(2) var<uniform> n: u32;

@compute @workgroup_size(4)
fn elementwise_copy(@builtin(global_invocation_id) gid: vec3<u32>,
                    @builtin(num_workgroups) groups: vec3<u32>) {
    let ntid = groups.x * 4u;
    for (var i = gid.x; i < n; i += ntid) {
        y[i] = x[i];
    }
}
"#;

#[test]
fn elementwise_copy_grid_stride_raw_kernel() {
    let _serial = serial();
    let dev = dev();
    let k = RawKernel::new(dev, ELEMENTWISE_COPY, "elementwise_copy").unwrap();
    let n = 1000u32;
    let xs: Vec<f32> = (0..n).map(|v| v as f32 * 0.5).collect();
    let x = dev.from_slice(&xs, [n as usize]).unwrap();
    let y = dev.zeros::<f32>([n as usize]).unwrap();
    k.launch(3, &[&x, &y, &n]).unwrap();
    assert_eq!(y.to_vec().unwrap(), xs);
    // Only the first N elements: the rest stay 0.
    let y = dev.zeros::<f32>([n as usize]).unwrap();
    k.launch(3, &[&x, &y, &500u32]).unwrap();
    let got = y.to_vec().unwrap();
    assert_eq!(&got[..500], &xs[..500]);
    assert!(got[500..].iter().all(|&v| v == 0.0));
    // A scalar of the wrong kind.
    assert!(matches!(
        k.launch(3, &[&x, &y, &1.5f32]),
        Err(Error::ArgumentType { .. })
    ));
}

// CuPy:
//   @cp.fuse()
//   def squared_diff(x, y): return (x - y) * (x - y)
//   @cp.fuse(kernel_name='sum_of_products')
//   def sum_of_products(x, y): return cp.sum(x * y, axis=-1)
#[test]
fn fuse_squared_diff_and_sum_of_products() {
    let _serial = serial();
    let dev = dev();
    let squared_diff = fuse(dev, |[x, y]| (x - y) * (x - y)).unwrap();
    let xs: Vec<f32> = (0..10).map(|v| v as f32).collect();
    let ys: Vec<f32> = (0..5).map(|v| v as f32).collect();
    let x = dev.from_slice(&xs, [2, 5]).unwrap();
    let y = dev.from_slice(&ys, [5]).unwrap();
    let before = dev.stats();
    let z = squared_diff.call::<f32>(&[&x, &y]).unwrap();
    assert_eq!(dev.stats().dispatches - before.dispatches, 1);
    let want = squared_diff_reference(&to_f64(&xs), &to_f64(&ys), 5);
    assert_close(&host(&z), &want, 0.0, 0.0);
    let z = squared_diff.call::<f32>(&[&x, &5.0f32]).unwrap();
    assert_close(
        &host(&z),
        &squared_diff_reference(&to_f64(&xs), &[5.0], 5),
        0.0,
        0.0,
    );
    let (xi, _) = upload::<i32>(dev, &[1.0, 5.0], &[2]);
    assert_eq!(
        squared_diff
            .call::<i32>(&[&xi, &2i32])
            .unwrap()
            .to_vec()
            .unwrap(),
        vec![1, 9]
    );

    let sum_of_products = fuse(dev, |[x, y]| (x * y).sum_axis(-1, false)).unwrap();
    let s = sum_of_products.call::<f32>(&[&x, &y]).unwrap();
    let want: Vec<f64> = (0..2)
        .map(|r| (0..5).map(|c| xs[r * 5 + c] as f64 * ys[c] as f64).sum())
        .collect();
    assert_close(&host(&s), &want, 0.0, 0.0);

    // A chain of 5 ops and math functions: one dispatch.
    let chain = fuse(dev, |[x, a, b, c]| ((x * a + b) * x - c).abs().sqrt()).unwrap();
    let mut rng = Rng::new(3);
    let (xa, xv) = upload::<f32>(dev, &rng.vec(1000, -2.0, 2.0), &[1000]);
    let before = dev.stats();
    let r = chain
        .call::<f32>(&[&xa, &1.5f32, &0.25f32, &2.0f32])
        .unwrap();
    assert_eq!(dev.stats().dispatches - before.dispatches, 1);
    let want: Vec<f64> = xv
        .iter()
        .map(|&x| ((x * 1.5 + 0.25) * x - 2.0).abs().sqrt())
        .collect();
    assert_close(&host(&r), &want, 1e-6, 1e-5);
    // Sizes that are not multiples of 4 and views at odd offsets (the scalar path), a
    // multiple of 4 (the vec4 path), and integers.
    for n in [1usize, 7, 4099, 4100] {
        let (xa, xv) = upload::<f32>(dev, &rng.vec(n + 1, -2.0, 2.0), &[n + 1]);
        for (view, vals) in [
            (xa.slice(1..).unwrap(), &xv[1..]),
            (xa.slice(..n).unwrap(), &xv[..n]),
        ] {
            let r = chain
                .call::<f32>(&[&view, &1.5f32, &0.25f32, &2.0f32])
                .unwrap();
            let want: Vec<f64> = vals
                .iter()
                .map(|&x| ((x * 1.5 + 0.25) * x - 2.0).abs().sqrt())
                .collect();
            // f32 cancellation near the roots, then a square root: an absolute tolerance.
            assert_close(&host(&r), &want, 1e-3, 1e-5);
        }
    }
    let (xi, xv) = upload::<i32>(dev, &rng.ints(4096, -100, 100), &[4096]);
    let f = fuse(dev, |[x, y]| (x * 3.0 - y).abs().maximum(y)).unwrap();
    let r = f.call::<i32>(&[&xi, &7i32]).unwrap();
    let want: Vec<f64> = xv.iter().map(|&x| (x * 3.0 - 7.0).abs().max(7.0)).collect();
    assert_close(&host(&r), &want, 0.0, 0.0);
}

#[test]
fn repeated_calls_compile_once() {
    let _serial = serial();
    let dev = dev();
    let k = ElementwiseKernel::new(dev, "T x, T y", "T z", "z = x * y + T(1);", "once").unwrap();
    let x = dev.ones::<f32>([1000]).unwrap();
    let m = dev.ones::<f32>([10, 100]).unwrap();
    k.call::<f32>(&[&x, &x]).unwrap();
    k.call::<f32>(&[&m, &x.reshape([10, 100]).unwrap().t().t()])
        .unwrap();
    let before = dev.stats().pipelines;
    for _ in 0..5 {
        k.call::<f32>(&[&x, &x]).unwrap();
        k.call::<f32>(&[&m, &m]).unwrap();
    }
    dev.synchronize().unwrap();
    assert_eq!(dev.stats().pipelines, before);
    // A second kernel with the same text shares the pipelines.
    let k2 = ElementwiseKernel::new(dev, "T x, T y", "T z", "z = x * y + T(1);", "once").unwrap();
    k2.call::<f32>(&[&x, &x]).unwrap();
    assert_eq!(dev.stats().pipelines, before);
    // fuse: one pipeline per dtype.
    let f = fuse(dev, |[x]| x * 3.0 + 1.0).unwrap();
    f.call::<f32>(&[&x]).unwrap();
    let before = dev.stats().pipelines;
    for _ in 0..3 {
        f.call::<f32>(&[&x]).unwrap();
    }
    assert_eq!(dev.stats().pipelines, before);
}

#[test]
fn events_agree_with_host_timing() {
    let _serial = serial();
    let dev = dev();
    let n = if dev.info().kind == gpuarray::DeviceKind::Cpu {
        1 << 22
    } else {
        1 << 24
    };
    let x = dev.ones::<f32>([n]).unwrap();
    let work = |iters: usize| {
        let mut y = x.clone();
        for _ in 0..iters {
            y = y.mul_scalar(1.0001).unwrap().sqrt().unwrap();
        }
        y
    };
    // A long workload: at least 300 ms of host time.
    let mut iters = 10;
    loop {
        dev.synchronize().unwrap();
        let t0 = std::time::Instant::now();
        work(iters);
        dev.synchronize().unwrap();
        if t0.elapsed().as_millis() >= 300 || iters >= 1 << 16 {
            break;
        }
        iters *= 2;
    }
    // Host timing of the same stretch as the events.
    let mut best = f64::INFINITY;
    for _ in 0..3 {
        dev.synchronize().unwrap();
        let t0 = std::time::Instant::now();
        let e0 = dev.record_event().unwrap();
        let _y = work(iters);
        let e1 = dev.record_event().unwrap();
        e1.synchronize().unwrap();
        let host_ms = t0.elapsed().as_secs_f64() * 1e3;
        let ev_ms = e0.elapsed_ms(&e1).unwrap();
        println!(
            "{:?} events: {ev_ms:.2} ms, host: {host_ms:.2} ms ({iters} x 2 ops on {n} f32)",
            e0.timing()
        );
        assert!(
            ev_ms > 0.0 && ev_ms <= host_ms * 1.05,
            "{ev_ms} vs {host_ms}"
        );
        best = best.min((ev_ms - host_ms).abs() / host_ms);
    }
    assert!(
        best < 0.2,
        "events and host timing differ by {:.0}%",
        best * 100.0
    );
}

#[test]
fn benchmark_report_prints() {
    let _serial = serial();
    let dev = dev();
    let x = dev.ones::<f32>([1 << 16]).unwrap();
    let k = fuse(dev, |[x, y]| (x - y) * (x - y)).unwrap();
    let r = benchmark(
        dev,
        "squared_diff",
        || k.call::<f32>(&[&x, &x]).map(|_| ()),
        20,
    )
    .unwrap();
    let line = r.to_string();
    println!("{line}");
    assert!(line.starts_with("squared_diff"), "{line}");
    assert!(line.contains("CPU:") && line.contains("GPU-0"), "{line}");
    assert_eq!(r.cpu_us.len(), 20);
    let (mean, _, min, max) = r.gpu_stats();
    assert!(min <= mean && mean <= max && min >= 0.0);
    if dev.info().features.contains(&"TIMESTAMP_QUERY") {
        assert_eq!(r.timing, Timing::Gpu);
    }
}

#[test]
fn host_timing_events() {
    let _serial = serial();
    let mut opts = gpuarray::Options::default();
    opts.host_events = true;
    let host = gpuarray::Device::with_options(opts).unwrap();
    let e0 = host.record_event().unwrap();
    let x = host.ones::<f32>([1 << 20]).unwrap().exp().unwrap();
    let e1 = host.record_event().unwrap();
    assert_eq!(e0.timing(), Timing::Host);
    e1.synchronize().unwrap();
    assert!(e0.elapsed_ms(&e1).unwrap() >= 0.0);
    assert!(e1.elapsed_ms(&e0).unwrap() <= 0.0);
    drop(x);
    // Events of different devices (here of different timings too) do not mix.
    let g = dev().record_event().unwrap();
    assert_eq!(
        e0.elapsed_ms(&g),
        Err(Error::DeviceMismatch {
            op: "Event::elapsed_ms"
        })
    );
}

#[test]
fn pipeline_cache_persists_where_the_adapter_has_one() {
    let _serial = serial();
    require!(
        dev().info().features.contains(&"PIPELINE_CACHE"),
        "no PIPELINE_CACHE on {}: nothing to persist",
        dev().info().name
    );
    let dir = std::env::temp_dir().join(format!("gpuarray-cache-test-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    let run = |cache: PipelineCacheDir| {
        let mut opts = gpuarray::Options::default();
        opts.pipeline_cache = cache;
        let d = gpuarray::Device::with_options(opts).unwrap();
        let k = RawKernel::new(&d, MY_ADD, "my_add").unwrap();
        let x = d.ones::<f32>([25]).unwrap();
        let y = d.zeros::<f32>([25]).unwrap();
        k.launch(5, &[&x, &x, &y]).unwrap();
        assert_eq!(y.to_vec().unwrap(), vec![2.0; 25]);
    };
    run(PipelineCacheDir::Dir(dir.clone()));
    let files: Vec<_> = std::fs::read_dir(&dir)
        .map(|r| r.flatten().collect())
        .unwrap_or_default();
    println!(
        "pipeline cache files: {:?}",
        files.iter().map(|f| f.path()).collect::<Vec<_>>()
    );
    assert_eq!(files.len(), 1, "one cache file in {dir:?}");
    // A second device starts from the file.
    run(PipelineCacheDir::Dir(dir.clone()));
    run(PipelineCacheDir::Off);
    let _ = std::fs::remove_dir_all(&dir);
}

// CuPy passes the block size per call: `kernel((grid,), (block,), args)`. A WGSL kernel says
// `@workgroup_size(BLOCK)` with `override BLOCK: u32 = 64u;`, and a launch sets BLOCK.
const BLOCKED: &str = "override BLOCK: u32 = 64u;
@group(0) @binding(0) var<storage, read_write> y: array<u32>;
@compute @workgroup_size(BLOCK)
fn fill(@builtin(local_invocation_index) l: u32, @builtin(workgroup_id) g: vec3<u32>) {
    y[g.x * BLOCK + l] = BLOCK;
}";

#[test]
fn override_workgroup_sizes_are_resolved_and_set_at_launch() {
    let _serial = serial();
    let dev = dev();
    let k = RawKernel::new(dev, BLOCKED, "fill").unwrap();
    // The override's default: 64 invocations run per workgroup.
    assert_eq!(k.workgroup_size(), [64, 1, 1]);
    let y = dev.zeros::<u32>([128]).unwrap();
    k.launch(2, &[&y]).unwrap();
    assert_eq!(y.to_vec().unwrap(), vec![64u32; 128]);
    // Set at launch: 128 invocations per workgroup, one pipeline per set of constants.
    let big = k.with_constants(&[("BLOCK", 128.0)]).unwrap();
    assert_eq!(big.workgroup_size(), [128, 1, 1]);
    assert_eq!(k.workgroup_size(), [64, 1, 1]);
    let y = dev.zeros::<u32>([256]).unwrap();
    big.launch(2, &[&y]).unwrap();
    assert_eq!(y.to_vec().unwrap(), vec![128u32; 256]);
    let before = dev.stats().pipelines;
    let again = k.with_constants(&[("BLOCK", 128.0)]).unwrap();
    assert_eq!(dev.stats().pipelines, before, "cached per constants");
    assert_eq!(again.workgroup_size(), [128, 1, 1]);
    // An unknown name is a typed error; so is a size past the adapter's limits.
    match k.with_constants(&[("BLOCKS", 128.0)]) {
        Err(Error::UnknownConstant { kernel, name }) => {
            assert_eq!((kernel.as_str(), name.as_str()), ("fill", "BLOCKS"))
        }
        r => panic!("{r:?}"),
    }
    assert!(matches!(
        k.with_constants(&[("BLOCK", 1e6)]),
        Err(Error::InvalidShader { .. })
    ));
}

// CuPy writes bodies without the final `;`:
//   cp.ElementwiseKernel('float32 x, float32 y', 'float32 z', 'z = (x - y) * (x - y)', 'squared_diff')
#[test]
fn bodies_in_cupys_form_need_no_final_semicolon() {
    let _serial = serial();
    let dev = dev();
    let k = ElementwiseKernel::new(dev, "T x, T y", "T z", "z = (x - y) * (x - y)", "sqd").unwrap();
    let x = dev.from_slice(&[1.0f32, 2.0, 4.0], [3]).unwrap();
    let y = dev.from_slice(&[0.0f32, 4.0, 1.0], [3]).unwrap();
    assert_eq!(
        k.call::<f32>(&[&x, &y]).unwrap().to_vec().unwrap(),
        vec![1.0, 4.0, 9.0]
    );
    // A final comment, a final block, trailing blank lines.
    for body in [
        "z = x * y // the product",
        "if (x > y) { z = x; } else { z = y; }",
        "z = x + y\n\n",
    ] {
        let k = ElementwiseKernel::new(dev, "T x, T y", "T z", body, "forms");
        assert!(k.is_ok(), "{body:?}: {k:?}");
    }
    // Text that ends too early is reported at the end of the user's text, in its terms.
    let e =
        ElementwiseKernel::new(dev, "T x, T y", "T z", "z = (x - y) * (x - y", "open").unwrap_err();
    let msg = e.to_string();
    assert!(matches!(e, Error::InvalidShader { .. }));
    assert!(msg.contains("open:1:21:"), "{msg}");
    assert!(!msg.contains("generated around"), "{msg}");
    assert!(!msg.contains("out0"), "{msg}");
    // ReductionKernel's expressions take a final `;` or none.
    let l2 = ReductionKernel::new(
        dev,
        "T x",
        "T y",
        "x * x;",
        "a + b;",
        "y = sqrt(a)",
        "0",
        "l2",
    )
    .unwrap();
    let v = dev.from_slice(&[3.0f32, 4.0], [2]).unwrap();
    assert_eq!(l2.call::<f32, f32>(&v).unwrap().to_scalar().unwrap(), 5.0);
}
