//! Facts about the adapter's arithmetic measured when a device opens, with tiny kernels
//! (shaders/probe.wgsl): whether it flushes subnormal values to zero, per float dtype, and
//! whether its f64 fma is fused (rounded once).

use crate::dtype::DType;
use crate::error::Result;
use crate::kernel::cache::Key;
use crate::kernel::launch::{Binding, Params};
use crate::kernel::source::Spec;

use super::{Device, Work};

const SRC: &str = include_str!("../../shaders/probe.wgsl");

fn spec(d: DType) -> Spec {
    Spec::new("probe", SRC).scalar(d)
}

/// Every variant, for the shader validation test.
#[cfg(test)]
pub(crate) fn all_specs() -> Vec<Spec> {
    [DType::F16, DType::F32, DType::F64]
        .iter()
        .map(|&d| spec(d))
        .collect()
}

/// The smallest subnormal of `d` and 3, as the bytes of two elements of `d`.
fn inputs(d: DType) -> Vec<u8> {
    match d {
        DType::F16 => [0x0001u16, 0x4200]
            .iter()
            .flat_map(|v| v.to_le_bytes())
            .collect(),
        DType::F32 => [f32::from_bits(1), 3.0]
            .iter()
            .flat_map(|v| v.to_le_bytes())
            .collect(),
        _ => [f64::from_bits(1), 3.0]
            .iter()
            .flat_map(|v| v.to_le_bytes())
            .collect(),
    }
}

/// Whether the device flushes subnormals of `d` to zero: the smallest subnormal times 3,
/// computed on the device from values in a buffer, is zero.
pub(super) fn flushes(dev: &Device, d: DType) -> Result<bool> {
    let mut got = run(dev, d, "flush", &inputs(d))?;
    // Zero of either sign: every bit but the sign bit (the top bit of the last byte) clear.
    let last = got.len() - 1;
    got[last] &= 0x7f;
    Ok(got.iter().all(|&b| b == 0))
}

/// Whether the device's f64 fma is fused: fma(a, a, -a * a) for a = 1 + 2^-30 (read from a
/// buffer) is the product's rounding error 2^-60, not 0. A deterministic fact of the
/// adapter's arithmetic (no timing): where it holds, the f64 library's exact products take
/// one fma (shaders/shared/f64_prod_fma.wgsl) instead of Dekker's splitting.
pub(super) fn fma_fused(dev: &Device) -> Result<bool> {
    let a = 1.0 + 2f64.powi(-30);
    let data: Vec<u8> = [a, a].iter().flat_map(|v| v.to_le_bytes()).collect();
    let got = run(dev, DType::F64, "fma_fused", &data)?;
    let e = f64::from_le_bytes(got[..8].try_into().expect("8 bytes"));
    Ok(e == 2f64.powi(-60))
}

/// Runs probe entry `entry` for dtype `d` on the two elements `data`; the bytes of the
/// one element it writes.
fn run(dev: &Device, d: DType, entry: &'static str, data: &[u8]) -> Result<Vec<u8>> {
    let key = Key {
        family: "probe",
        entry,
        variant: d.wgsl().to_string(),
        inputs: 1,
        wg: 1,
        ndim: 0,
        per: 0,
    };
    let kernel = dev.kernel(key, || spec(d))?;
    let size = d.size() as u64;
    let x = dev.alloc(data.len() as u64)?;
    let out = dev.alloc(size.max(4))?;
    dev.upload(&x, 0, data)?;
    let input = Binding {
        buffer: &x,
        bytes: 2 * size,
        window: 0,
    };
    let output = Binding {
        buffer: &out,
        bytes: size,
        window: 0,
    };
    dev.launch(
        &kernel,
        &Params::new(1),
        &[input],
        output,
        Work::Groups([1, 1, 1]),
    )?;
    let mut got = vec![0u8; size as usize];
    dev.download(&out, 0, &mut got)?;
    Ok(got)
}
