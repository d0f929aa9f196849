//! docs/CUDA_TO_WGSL.md: every ```wgsl block on the page compiles as a `RawKernel` on the
//! test adapter, and each course kernel computes what its CUDA original does (against a
//! CPU reference, on integer-valued data so that the results are exact), with the block
//! sizes the page sets through `with_constants`. Also the page's claim that naga does not
//! check that barriers sit in uniform control flow.

use crate::common::{dev, supported};
use gpuarray::{f16, Array, Device, RawKernel};

/// The ```wgsl blocks of the page, in order.
fn blocks() -> Vec<String> {
    let page =
        std::fs::read_to_string(concat!(env!("CARGO_MANIFEST_DIR"), "/docs/CUDA_TO_WGSL.md"))
            .unwrap();
    let mut out = Vec::new();
    let mut cur: Option<String> = None;
    for line in page.lines() {
        match (&mut cur, line.trim_end()) {
            (None, "```wgsl") => cur = Some(String::new()),
            (Some(b), "```") => {
                out.push(std::mem::take(b));
                cur = None;
            }
            (Some(b), l) => {
                b.push_str(l);
                b.push('\n');
            }
            _ => {}
        }
    }
    assert!(cur.is_none(), "an unclosed ```wgsl block");
    out
}

/// The compute entry point of a block: the first `fn` after `@compute`.
fn entry(src: &str) -> &str {
    let at = src.find("@compute").expect("a @compute entry point");
    let rest = &src[at..];
    let f = rest.find("fn ").unwrap() + 3;
    let end = rest[f..].find('(').unwrap();
    &rest[f..f + end]
}

/// The page's kernel `name`, compiled.
fn kernel(dev: &Device, name: &str) -> RawKernel {
    let src = blocks().into_iter().find(|b| entry(b) == name).unwrap();
    RawKernel::new(dev, &src, name).unwrap()
}

fn ints(n: usize, m: u32) -> Vec<f32> {
    (0..n as u32)
        .map(|i| (i * 7 + 3) % m)
        .map(|v| v as f32)
        .collect()
}

#[test]
fn every_wgsl_block_on_the_page_compiles() {
    let dev = dev();
    let blocks = blocks();
    assert!(blocks.len() >= 6, "{} blocks", blocks.len());
    for b in &blocks {
        let name = entry(b);
        if b.contains("enable f16;") && !supported::<f16>(dev) {
            crate::common::skip("the f16 block: the adapter lacks SHADER_F16");
            continue;
        }
        if let Err(e) = RawKernel::new(dev, b, name) {
            panic!("{name}: {e}\n{b}");
        }
    }
}

#[test]
fn vector_addition() {
    let dev = dev();
    let k = kernel(dev, "my_add");
    let n = 1000;
    let (a, b) = (ints(n, 100), ints(n, 31));
    let x1 = dev.from_slice(&a, [n]).unwrap();
    let x2 = dev.from_slice(&b, [n]).unwrap();
    let y = dev.zeros::<f32>([n]).unwrap();
    k.launch(n.div_ceil(256) as u32, &[&x1, &x2, &y, &(n as u32)])
        .unwrap();
    let want: Vec<f32> = a.iter().zip(&b).map(|(p, q)| p + q).collect();
    assert_eq!(y.to_vec().unwrap(), want);
}

#[test]
fn saxpy_with_a_struct_and_a_block_set_at_launch() {
    let dev = dev();
    let k = kernel(dev, "saxpy");
    assert_eq!(k.workgroup_size(), [256, 1, 1]);
    let n = 1000;
    let (a, b) = (ints(n, 50), ints(n, 9));
    let x1 = dev.from_slice(&a, [n]).unwrap();
    let x2 = dev.from_slice(&b, [n]).unwrap();
    let want: Vec<f32> = a.iter().zip(&b).map(|(p, q)| p * q + 2.0).collect();
    for (kk, block) in [
        (k.with_constants(&[]).unwrap(), 256),
        (k.with_constants(&[("BLOCK", 64.0)]).unwrap(), 64),
    ] {
        assert_eq!(kk.workgroup_size(), [block, 1, 1]);
        let y = dev.zeros::<f32>([n]).unwrap();
        // Two rows of workgroups, as a grid past 65535 would need.
        let gx = (n as u32).div_ceil(block).div_ceil(2);
        kk.launch([gx, 2, 1], &[&x1, &x2, &y, &(n as u32), &2.0f32])
            .unwrap();
        assert_eq!(y.to_vec().unwrap(), want, "BLOCK {block}");
    }
}

#[test]
fn naive_matrix_product() {
    let dev = dev();
    let k = kernel(dev, "naive");
    let n = 33;
    let (a, b) = (ints(n * n, 5), ints(n * n, 3));
    let mut want = vec![0.0f32; n * n];
    for r in 0..n {
        for c in 0..n {
            want[r * n + c] = (0..n).map(|j| a[r * n + j] * b[j * n + c]).sum();
        }
    }
    let (da, db) = (
        dev.from_slice(&a, [n, n]).unwrap(),
        dev.from_slice(&b, [n, n]).unwrap(),
    );
    let dc = dev.zeros::<f32>([n, n]).unwrap();
    let g = (n as u32).div_ceil(16);
    k.launch([g, g, 1], &[&da, &db, &dc, &(n as u32)]).unwrap();
    assert_eq!(dc.to_vec().unwrap(), want);
}

#[test]
fn block_sum_with_shared_memory() {
    let dev = dev();
    let k = kernel(dev, "block_sum");
    let n = 1000;
    let a = ints(n, 10);
    let x = dev.from_slice(&a, [n]).unwrap();
    for block in [256usize, 128, 32] {
        let kk = k.with_constants(&[("BLOCK", block as f64)]).unwrap();
        let groups = n.div_ceil(block);
        let partial: Array<f32> = dev.zeros([groups]).unwrap();
        kk.launch(groups as u32, &[&x, &partial, &(n as u32)])
            .unwrap();
        let want: Vec<f32> = a.chunks(block).map(|c| c.iter().sum()).collect();
        assert_eq!(partial.to_vec().unwrap(), want, "BLOCK {block}");
    }
}

#[test]
fn histogram_with_atomics() {
    let dev = dev();
    let k = kernel(dev, "histogram");
    let n = 1000;
    let v: Vec<u32> = (0..n as u32).map(|i| i * i + 3 * i).collect();
    let x = dev.from_slice(&v, [n]).unwrap();
    let bins = dev.zeros::<u32>([7]).unwrap();
    k.launch((n as u32).div_ceil(64), &[&x, &bins, &(n as u32), &7u32])
        .unwrap();
    let mut want = vec![0u32; 7];
    for x in &v {
        want[(x % 7) as usize] += 1;
    }
    assert_eq!(bins.to_vec().unwrap(), want);
}

#[test]
fn half_precision() {
    let dev = dev();
    if !supported::<f16>(dev) {
        crate::common::skip("half_precision: the adapter lacks SHADER_F16");
        return;
    }
    let k = kernel(dev, "scale_half");
    let n = 100;
    let v: Vec<f16> = (0..n).map(|i| f16::from_f32(i as f32 - 50.0)).collect();
    let x = dev.from_slice(&v, [n]).unwrap();
    let y = dev.zeros::<f16>([n]).unwrap();
    k.launch(2, &[&x, &y, &0.5f32, &(n as u32)]).unwrap();
    let want: Vec<f16> = (0..n)
        .map(|i| f16::from_f32((i as f32 - 50.0) * 0.5))
        .collect();
    assert_eq!(y.to_vec().unwrap(), want);
}

/// The page says that naga (wgpu 30) does not check that barriers sit in uniform control
/// flow, so that the rule is the author's to keep: if this starts failing, naga checks it
/// and the page should say so.
#[test]
fn a_barrier_in_non_uniform_control_flow_is_not_checked() {
    let dev = dev();
    let src = "@group(0) @binding(0) var<storage, read_write> y: array<f32>;
@group(0) @binding(1) var<uniform> n: u32;
@compute @workgroup_size(64)
fn early(@builtin(global_invocation_id) id: vec3<u32>) {
    if (id.x >= n) { return; }
    workgroupBarrier();
    y[id.x] = 1.0;
}";
    assert!(RawKernel::new(dev, src, "early").is_ok());
    let under_if = src.replace(
        "if (id.x >= n) { return; }\n    workgroupBarrier();",
        "if (id.x < n) { workgroupBarrier(); }",
    );
    assert!(RawKernel::new(dev, &under_if, "early").is_ok());
}
