//! The ceiling of the large f32 matrix-product kernel's structure through SPIR-V: the
//! kernel of `shaders/linalg_big.wgsl` (128 x 128 output tiles, 8 x 8 outputs per
//! invocation in two groups of 4 rows and 4 columns a half-tile apart, k-major workgroup
//! tiles with a padded row, double-buffered, the k loop unrolled), restated here as a
//! [`RawKernel`] for row-major operands whose sizes are multiples of its tiles, and timed
//! as it is and with parts of its work taken out:
//!
//! - `as_is`: the kernel; its result is checked against `matmul` (and, in quick mode,
//!   against a product on the host);
//! - `no_fma`: the FMAs removed: the workgroup tiles are still read, their values added
//!   into the accumulators (4 adds per step instead of 64 FMAs); global loads and stores
//!   kept;
//! - `no_global`: the global loads removed: the fetch registers hold values computed from
//!   the indices; the workgroup-memory stores and loads and the FMAs kept;
//! - `registers`: FMAs only: no global loads and no workgroup-memory loads (the FMAs'
//!   operands come from the fetch registers); the workgroup-memory stores and barriers kept.
//!
//! Only `as_is` computes the product: the others' results are not products, only their
//! time means something (nothing is eliminated, since every variant still writes its
//! accumulators). Each row gives the time per product and the rate in the product's flops,
//! beside `matmul` on the same operands. Results on the lent GPUs are in
//! `docs/benchmarks/linalg.md`.
//!
//! ```text
//! cargo run --release --example matmul_ceiling           # 4096 x 4096 x 4096
//! GPUARRAY_EXAMPLES_QUICK=1 cargo run --release --example matmul_ceiling   # 256, checked on the host
//! ```

mod common;

use common::{quick, time_events, Res};
use gpuarray::{Array, Device, RawKernel};

/// Rows and columns of the output tile.
const TILE: usize = 128;

/// A variant of the kernel, by its printed name.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Variant {
    AsIs,
    NoFma,
    NoGlobal,
    Registers,
}

const VARIANTS: [(&str, Variant); 4] = [
    ("as_is", Variant::AsIs),
    ("no_fma", Variant::NoFma),
    ("no_global", Variant::NoGlobal),
    ("registers", Variant::Registers),
];

/// Bindings, parameters, workgroup tiles and the helpers of the kernel at depth `bk` with
/// rows of `srow` vec4s in workgroup memory. `load_a4` and `load_b4` are the only global
/// reads, so that `no_global` replaces just them.
fn prelude(bk: u32, srow: u32, v: Variant) -> String {
    let loads = if matches!(v, Variant::NoGlobal | Variant::Registers) {
        "fn load_a4(i: u32) -> vec4<f32> { return vec4<f32>(f32(i & 7u), 1.0, f32((i >> 3u) & 7u), 0.5); }
fn load_b4(i: u32) -> vec4<f32> { return vec4<f32>(0.5, f32(i & 7u), 1.0, f32((i >> 3u) & 7u)); }"
    } else {
        "fn load_a4(i: u32) -> vec4<f32> { return a[i]; }
fn load_b4(i: u32) -> vec4<f32> { return b[i]; }"
    };
    format!(
        r#"// C = A @ B, A (M x K) and B (K x N) row-major, M and N multiples of 128, K of BK.
// Workgroups (N / 128, M / 128); 256 invocations, tx = t % 16 along n, ty = t / 16 along m.
struct P {{ m: u32, n: u32, k: u32 }}
@group(0) @binding(0) var<storage, read> a: array<vec4<f32>>;
@group(0) @binding(1) var<storage, read> b: array<vec4<f32>>;
@group(0) @binding(2) var<storage, read_write> out: array<vec4<f32>>;
@group(0) @binding(3) var<uniform> p: P;

const BK: u32 = {bk}u;
const SROW: u32 = {srow}u;
const TILE: u32 = 128u;
var<workgroup> As: array<vec4<f32>, 2u * BK * SROW>;
var<workgroup> Bs: array<vec4<f32>, 2u * BK * SROW>;

{loads}

// Chunk q of a K-contiguous tile: (row, first k); k 8..15 with q + 256.
fn kc_of(q: u32) -> vec2<u32> {{
    return vec2<u32>((q / 2u) % TILE, ((q % 2u) + 2u * (q / 256u)) * 4u);
}}
fn fetch_a(q: u32, k0: u32, org: u32) -> vec4<f32> {{
    let rc = kc_of(q);
    return load_a4((org + rc.x * p.k + k0 + rc.y) / 4u);
}}
fn fetch_b(q: u32, k0: u32, org: u32) -> vec4<f32> {{
    return load_b4((org + (k0 + q / 32u) * p.n) / 4u + q % 32u);
}}
// A's chunk transposed into its k-major tile; B's chunk as it is.
fn put_a(q: u32, buf: u32, v: vec4<f32>) {{
    let rc = kc_of(q);
    let o = buf + rc.y * SROW + rc.x / 4u;
    let l = rc.x % 4u;
    As[o][l] = v.x;
    As[o + SROW][l] = v.y;
    As[o + 2u * SROW][l] = v.z;
    As[o + 3u * SROW][l] = v.w;
}}
fn put_b(q: u32, buf: u32, v: vec4<f32>) {{
    Bs[buf + (q / 32u) * SROW + q % 32u] = v;
}}
fn put_row(e: u32, lo: vec4<f32>, hi: vec4<f32>) {{
    out[e] = lo;
    out[e + 16u] = hi;
}}
"#
    )
}

/// One step kk of the unrolled k loop: four workgroup-memory reads and 64 FMAs, or their
/// variant's replacement.
fn step(kk: u32, v: Variant) -> String {
    let reads = if v == Variant::Registers {
        "let a0 = ra0; let a1 = ra0.wzyx; let b0 = rb0; let b1 = rb0.wzyx;"
    } else {
        "let a0 = As[o + ty]; let a1 = As[o + 16u + ty]; let b0 = Bs[o + tx]; let b1 = Bs[o + 16u + tx];"
    };
    let fmas = if v == Variant::NoFma {
        "c00 += a0; c10 += a1; c01 += b0; c11 += b1;"
    } else {
        "c00 += a0.x * b0; c01 += a0.x * b1; c10 += a0.y * b0; c11 += a0.y * b1;
            c20 += a0.z * b0; c21 += a0.z * b1; c30 += a0.w * b0; c31 += a0.w * b1;
            c40 += a1.x * b0; c41 += a1.x * b1; c50 += a1.y * b0; c51 += a1.y * b1;
            c60 += a1.z * b0; c61 += a1.z * b1; c70 += a1.w * b0; c71 += a1.w * b1;"
    };
    format!(
        "        {{ const kk = {kk}u;
            let o = cur + kk * SROW;
            {reads}
            {fmas}
        }}
"
    )
}

/// The whole kernel, entry point `matmul_big`.
fn source(bk: u32, srow: u32, v: Variant) -> String {
    // At depth 16 each invocation moves two chunks of each tile (t and t + 256).
    let two = |what: &str| {
        if bk > 8 {
            what.to_string()
        } else {
            String::new()
        }
    };
    let fetch = |k: &str| {
        format!(
            "ra0 = fetch_a(t, {k}, oa); rb0 = fetch_b(t, {k}, ob);{}",
            two(&format!(
                " ra1 = fetch_a(t + 256u, {k}, oa); rb1 = fetch_b(t + 256u, {k}, ob);"
            ))
        )
    };
    let put = |buf: &str| {
        format!(
            "put_a(t, {buf}, ra0); put_b(t, {buf}, rb0);{}",
            two(&format!(
                " put_a(t + 256u, {buf}, ra1); put_b(t + 256u, {buf}, rb1);"
            ))
        )
    };
    let steps: String = (0..bk).map(|kk| step(kk, v)).collect();
    format!(
        r#"{prelude}
@compute @workgroup_size(256)
fn matmul_big(@builtin(workgroup_id) wid: vec3<u32>, @builtin(local_invocation_index) t: u32) {{
    let m0 = wid.y * TILE;
    let n0 = wid.x * TILE;
    let oa = m0 * p.k;
    let ob = n0;
    let tx = t % 16u;
    let ty = t / 16u;
    var c00 = vec4<f32>(); var c01 = vec4<f32>(); var c10 = vec4<f32>(); var c11 = vec4<f32>();
    var c20 = vec4<f32>(); var c21 = vec4<f32>(); var c30 = vec4<f32>(); var c31 = vec4<f32>();
    var c40 = vec4<f32>(); var c41 = vec4<f32>(); var c50 = vec4<f32>(); var c51 = vec4<f32>();
    var c60 = vec4<f32>(); var c61 = vec4<f32>(); var c70 = vec4<f32>(); var c71 = vec4<f32>();
    var ra0 = vec4<f32>(); var rb0 = vec4<f32>(); var ra1 = vec4<f32>(); var rb1 = vec4<f32>();
    {fetch0}
    {put0}
    workgroupBarrier();
    let tiles = p.k / BK;
    for (var kt = 0u; kt < tiles; kt++) {{
        let cur = (kt % 2u) * BK * SROW;
        // The next tile (the last one again on the last step, stored where nothing reads).
        let k1 = min(kt + 1u, tiles - 1u) * BK;
        {fetch1}
{steps}        let nxt = BK * SROW - cur;
        {put1}
        workgroupBarrier();
    }}
    let n4 = p.n / 4u;
    let e = (m0 + 4u * ty) * n4 + n0 / 4u + tx;
    put_row(e, c00, c01);
    put_row(e + n4, c10, c11);
    put_row(e + 2u * n4, c20, c21);
    put_row(e + 3u * n4, c30, c31);
    let f = e + 64u * n4;
    put_row(f, c40, c41);
    put_row(f + n4, c50, c51);
    put_row(f + 2u * n4, c60, c61);
    put_row(f + 3u * n4, c70, c71);
}}
"#,
        prelude = prelude(bk, srow, v),
        fetch0 = fetch("0u"),
        put0 = put("0u"),
        fetch1 = fetch("k1"),
        put1 = put("nxt"),
    )
}

/// The (depth, row length) configurations the adapter holds: depths 16 and 8, rows of 33
/// vec4s (padded against the transposing stores' bank conflicts), else 32.
fn configurations(dev: &Device) -> Vec<(u32, u32)> {
    let l = dev.limits();
    let fits = |bk: u32, row: u32| {
        2 * 2 * (bk * row) as usize * 16 <= l.max_compute_workgroup_storage_size as usize
    };
    if l.max_compute_invocations_per_workgroup < 256 {
        return Vec::new();
    }
    [16, 8]
        .into_iter()
        .filter_map(|bk| [33, 32].into_iter().find(|&r| fits(bk, r)).map(|r| (bk, r)))
        .collect()
}

/// The largest difference between two results, relative to the largest magnitude.
fn worst(x: &[f32], y: &[f32]) -> f32 {
    let scale = y.iter().fold(1.0f32, |m, v| m.max(v.abs()));
    x.iter()
        .zip(y)
        .map(|(p, q)| (p - q).abs() / scale)
        .fold(0.0, f32::max)
}

/// `a @ b` on the host in f64, rounded to f32.
fn host_product(a: &[f32], b: &[f32], s: usize) -> Vec<f32> {
    let mut c = vec![0.0f64; s * s];
    for i in 0..s {
        for k in 0..s {
            let x = f64::from(a[i * s + k]);
            for j in 0..s {
                c[i * s + j] += x * f64::from(b[k * s + j]);
            }
        }
    }
    c.into_iter().map(|v| v as f32).collect()
}

fn main() -> Res<()> {
    let dev = Device::new()?;
    println!("adapter: {} ({})", dev.info().name, dev.info().backend);
    let quick = quick();
    let s = if quick { 2 * TILE } else { 32 * TILE };
    let reps = if quick { 2 } else { 20 };
    let a = dev.random_uniform_in::<f32>([s, s], 0.5, 1.5, 11)?;
    let b = dev.random_uniform_in::<f32>([s, s], 0.5, 1.5, 12)?;
    let c = dev.zeros::<f32>([s, s])?;
    let flops = 2.0 * (s as f64).powi(3);
    let rate = |ms: f64| flops / ms / 1e6;

    let reference = a.matmul(&b)?;
    let ms = time_events(&dev, reps, || {
        let _: Array<f32> = a.matmul(&b)?;
        Ok(())
    })?;
    println!("{s} x {s} x {s} f32, ms per product and GFLOP/s of the product's flops");
    println!("{:<24}{ms:>10.4}{:>10.1}", "matmul", rate(ms));
    let reference = reference.to_vec()?;
    if quick {
        let host = host_product(&a.to_vec()?, &b.to_vec()?, s);
        let e = worst(&reference, &host);
        if e > 1e-5 {
            return Err(format!("matmul differs from the host product by {e}").into());
        }
    }

    let configs = configurations(&dev);
    if configs.is_empty() {
        println!("this adapter holds no configuration of the kernel");
    }
    let grid = [(s / TILE) as u32, (s / TILE) as u32];
    let dims = (s as u32, s as u32, s as u32);
    for (bk, row) in configs {
        for (name, v) in VARIANTS {
            let k = RawKernel::new(&dev, &source(bk, row, v), "matmul_big")?;
            let ms = time_events(&dev, reps, || {
                k.launch(grid, &[&a, &b, &c, &dims.0, &dims.1, &dims.2])?;
                Ok(())
            })?;
            let label = format!("big bk={bk} {name}");
            println!("{label:<24}{ms:>10.4}{:>10.1}", rate(ms));
            if v == Variant::AsIs {
                let e = worst(&c.to_vec()?, &reference);
                if e > 1e-5 {
                    return Err(format!("{label} differs from matmul by {e}").into());
                }
            }
        }
    }
    Ok(())
}
