use gpuarray::{Axis, Device};
fn main() -> gpuarray::Result<()> {
    let dev = Device::new()?;
    let v: Vec<f32> = (0..1000).map(|i| (i % 17) as f32 * 0.5 + 1.0).collect();
    let x = dev.from_slice(&v, [10, 100])?;
    let s: f64 = v.iter().map(|&a| a as f64).sum();
    println!("sum {} vs {}", x.sum()?.to_scalar()?, s);
    println!(
        "max {} argmax {}",
        x.max()?.to_scalar()?,
        x.argmax()?.to_scalar()?
    );
    println!("sum0 {:?}", &x.sum_axis(Axis(0))?.to_vec()?[..5]);
    println!("sum1 {:?}", &x.sum_axis(Axis(1))?.to_vec()?[..5]);
    println!(
        "var {} mean {}",
        x.var()?.to_scalar()?,
        x.mean()?.to_scalar()?
    );
    let big: Vec<f32> = (0..(1u64 << 22))
        .map(|i| ((i * 7919) % 1000) as f32 / 1000.0)
        .collect();
    let y = dev.from_slice(&big, [1 << 22])?;
    let s: f64 = big.iter().map(|&a| a as f64).sum();
    println!("bigsum {} vs {}", y.sum()?.to_scalar()?, s);
    let z = y.reshape([1 << 11, 1 << 11])?;
    let c = z.sum_axis(Axis(0))?.to_vec()?;
    let r: f64 = (0..1 << 11).map(|i| big[i * 2048usize] as f64).sum();
    println!("col0 {} vs {}", c[0], r);
    let n = 40_000_000usize;
    let big: Vec<f32> = (0..n as u64)
        .map(|i| ((i * 7919) % 1000) as f32 / 1000.0)
        .collect();
    let t = std::time::Instant::now();
    let y = dev.from_slice(&big, [40_000, 1000])?;
    println!("limits {:?}", dev.limits());
    let s: f64 = big.iter().map(|&a| a as f64).sum();
    println!(
        "40M sum {} vs {} ({:?})",
        y.sum()?.to_scalar()?,
        s,
        t.elapsed()
    );
    println!(
        "40M max {} argmax {}",
        y.max()?.to_scalar()?,
        y.argmax()?.to_scalar()?
    );
    let c = y.sum_axis(Axis(0))?.to_vec()?;
    let r: f64 = (0..40_000).map(|i| big[i * 1000 + 7] as f64).sum();
    println!("40M col7 {} vs {}", c[7], r);
    let c = y.sum_axis(Axis(1))?.to_vec()?;
    let r: f64 = (0..1000).map(|i| big[39_999 * 1000 + i] as f64).sum();
    println!("40M row last {} vs {} ({:?})", c[39_999], r, t.elapsed());
    Ok(())
}
#[allow(dead_code)]
fn unused() {}
