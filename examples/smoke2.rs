use gpuarray::Device;
fn main() -> gpuarray::Result<()> {
    let dev = Device::new()?;
    let n = 4099 * 515;
    let s = 3.0 / (n as f64).sqrt();
    let mut st: u64 = 12345;
    let v: Vec<f32> = (0..n)
        .map(|_| {
            st ^= st << 13;
            st ^= st >> 7;
            st ^= st << 17;
            let u = (st >> 11) as f64 / (1u64 << 53) as f64;
            ((2.0 * u - 1.0) * s).exp2() as f32
        })
        .collect();
    let x = dev.from_slice(&v, [4099, 515])?;
    let exact: f64 = v.iter().map(|&a| a as f64).product();
    let serial: f32 = v.iter().product();
    // pairwise tree on host
    fn tree(v: &[f32]) -> f32 {
        if v.len() == 1 {
            v[0]
        } else {
            let h = v.len() / 2;
            tree(&v[..h]) * tree(&v[h..])
        }
    }
    let g = x.prod()?.to_scalar()?;
    println!(
        "exact {exact} serial {serial} ({:e}) tree {} ({:e}) gpu {g} ({:e})",
        serial as f64 / exact - 1.0,
        tree(&v),
        tree(&v) as f64 / exact - 1.0,
        g as f64 / exact - 1.0
    );
    let xs = dev.from_slice(&v, [n])?;
    let g = xs.sum()?.to_scalar()?;
    let e: f64 = v.iter().map(|&a| a as f64).sum();
    println!("sum gpu {g} exact {e} {:e}", g as f64 / e - 1.0);
    Ok(())
}
