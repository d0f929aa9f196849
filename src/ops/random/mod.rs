//! Random arrays from a counter-based generator (Philox4x32-10). Host side of
//! shaders/random.wgsl.
//!
//! Element i of a uniform array of f16 or f32 comes from word i % 4 of Philox block i / 4
//! (counter `[i / 4, 0, 0, 0]`, key = the seed's low and high 32 bits): f32 takes the word's
//! top 24 bits times 2^-24, f16 its top 11 bits times 2^-11. f64 takes 53 bits from words
//! 2(i % 2) and 2(i % 2) + 1 of block i / 2. Normals use Box-Muller on the word pairs (0, 1)
//! and (2, 3) of block i / 4, computed in integer arithmetic only (shaders/shared/
//! rng_exact.wgsl: fixed-point -ln u, square root and sin/cos, the float built from its
//! bits), and `low + width u` or `mean + std z` round the product and the sum once each (a
//! runtime factor of 1 keeps compilers from fusing them into an FMA). So the same seed gives
//! the same bits on every adapter (subnormal results aside, which some adapters flush).

pub(crate) mod distributions;
pub(crate) mod generator;
pub(crate) mod sampling;
pub(crate) mod ziggurat;

use std::sync::Arc;

use crate::array::Array;
use crate::device::{Device, Work};
use crate::dtype::{DType, Element, Float};
use crate::error::Result;
use crate::kernel::cache::{Kernel, Key};
use crate::kernel::launch::Params;
use crate::kernel::source::Spec;
use crate::shape::Shape;

const SRC: &str = include_str!("../../../shaders/random.wgsl");
/// Philox4x32-10, shared by the stateless functions and the [`generator::Generator`].
const PHILOX: &str = include_str!("../../../shaders/shared/philox.wgsl");
/// Its `mulhilo` from 32-bit arithmetic, and as one 64-bit multiply (SHADER_INT64).
const MULHILO: &str = include_str!("../../../shaders/shared/mulhilo.wgsl");
const MULHILO64: &str = include_str!("../../../shaders/shared/mulhilo64.wgsl");
/// The integer transforms (normals, -ln u, f16 rounding), after `mulhilo`.
const RNG_EXACT: &str = include_str!("../../../shaders/shared/rng_exact.wgsl");
/// The ziggurat's normals (after RNG_EXACT; the including file binds `ztab`).
pub(crate) const ZIGGURAT: &str = include_str!("../../../shaders/shared/ziggurat.wgsl");
/// f16's replacement of `to_s` (random.wgsl) and `to_s4` (generator.wgsl): the f32 value
/// rounded to nearest even in integers, as WGSL leaves the conversion's rounding open.
pub(crate) const F16_TO_S: &str = "fn to_s(v: SC) -> S { return S(f16_round(v)); }";
pub(crate) const F16_TO_S4: &str = "fn to_s4(v: vec4<SC>) -> vec4<S> { return vec4<S>(vec4<f32>(f16_round(v.x), f16_round(v.y), f16_round(v.z), f16_round(v.w))); }";

/// Whether the random kernels on `dev` take Philox's products as 64-bit multiplies.
pub(crate) fn wide_mul(dev: &Device) -> bool {
    dev.supports_dtype(DType::U64)
}

/// `s` with Philox, its `mulhilo` (64-bit where `wide`; the same words either way) and the
/// integer transforms of shaders/shared/rng_exact.wgsl.
pub(crate) fn with_philox(s: Spec, wide: bool) -> Spec {
    s.include(if wide { MULHILO64 } else { MULHILO })
        .include(PHILOX)
        .include(RNG_EXACT)
}

/// The kernel cache's variant name: `base`, and `+mul64` for the 64-bit products.
pub(crate) fn variant(base: &str, wide: bool) -> String {
    if wide {
        format!("{base}+mul64")
    } else {
        base.to_string()
    }
}
const WG: u32 = 256;

/// The ziggurat's table (src/ops/random/ziggurat.rs) on `dev`, bound as `ztab` by the normal
/// kernels of shaders/random.wgsl and shaders/generator.wgsl.
pub(crate) fn zig_table(dev: &Device) -> Result<Array<u32>> {
    let words = ziggurat::table_words();
    dev.from_slice(&words, [words.len()])
}

/// Parameters of the random kernels. [`RandomParams::encode`] is the only code that fills
/// their slots; shaders/random.wgsl reads them through the accessors named in each field's
/// doc (declared atop the file, mirroring this struct).
#[derive(Debug, Clone, Copy)]
struct RandomParams<T> {
    /// Elements to write (`P.n`).
    n: u32,
    /// Elements per Philox block (`per_block()`; read by `rand_uniform`): 4, or 2 for f64.
    per: u32,
    /// The generator's key: its low and high 32 bits (`seed()`).
    seed: u64,
    /// The low end of a uniform range, or the mean of a normal (`arg(0u)`).
    a: T,
    /// The width of a uniform range, or the standard deviation of a normal (`arg(1u)`).
    b: T,
}

impl<T: Float> RandomParams<T> {
    fn encode(&self) -> Params {
        // The third scalar, 1, keeps `b z` from fusing with the sum (random.wgsl's `affine`).
        let mut p = Params::new(self.n).scalars(&[self.a, self.b, T::one()]);
        p.ndim = self.per;
        p.aux = [self.seed as u32, (self.seed >> 32) as u32];
        p
    }
}

/// The uniform-from-words conversion for dtype `d`, and elements per Philox block.
fn unit(d: DType) -> (&'static str, u32) {
    match d {
        DType::F64 => (
            "fn unit(w: vec4<u32>, k: u32) -> S { return (f64(w[k] >> 5u) * 67108864.0 + f64(w[k + 1u] >> 6u)) * 1.1102230246251565e-16; }",
            2,
        ),
        DType::F16 => (
            "fn unit(w: vec4<u32>, k: u32) -> S { return S(f32(w[k] >> 21u) * 0.00048828125); }",
            4,
        ),
        _ => (
            "fn unit(w: vec4<u32>, k: u32) -> S { return S(f32(w[k] >> 8u) * 5.9604644775390625e-8); }",
            4,
        ),
    }
}

fn spec(d: DType, wide: bool) -> Spec {
    let mut s = Spec::new("random", SRC)
        .scalar(d)
        .function("unit", unit(d).0);
    if d == DType::F16 {
        s = s.function("to_s", F16_TO_S);
    }
    with_philox(s, wide).include(ZIGGURAT)
}

/// Every variant, for the shader validation test.
#[cfg(test)]
pub(crate) fn all_specs() -> Vec<Spec> {
    [DType::F16, DType::F32, DType::F64]
        .iter()
        .flat_map(|&d| [spec(d, false), spec(d, true)])
        .chain(generator::all_specs())
        .collect()
}

fn kernel<T: Element>(dev: &Device, entry: &'static str) -> Result<Arc<Kernel>> {
    kernel_with::<T>(dev, entry, wide_mul(dev))
}

fn kernel_with<T: Element>(dev: &Device, entry: &'static str, wide: bool) -> Result<Arc<Kernel>> {
    let key = Key {
        family: "random",
        entry,
        variant: variant(T::DTYPE.wgsl(), wide),
        inputs: usize::from(entry == "rand_normal"),
        wg: WG,
        ndim: 0,
        per: 0,
    };
    dev.kernel(key, || spec(T::DTYPE, wide))
}

fn generate<T: Float>(
    dev: &Device,
    op: &'static str,
    entry: &'static str,
    shape: Shape,
    a: T,
    b: T,
    seed: u64,
) -> Result<Array<T>> {
    let out = Array::<T>::alloc(dev, op, shape.0)?;
    let n = out.len() as u32;
    if n == 0 {
        return Ok(out);
    }
    let per = if entry == "rand_uniform" {
        unit(T::DTYPE).1
    } else {
        4
    };
    let p = RandomParams { n, per, seed, a, b };
    let k = kernel::<T>(dev, entry)?;
    let table = if entry == "rand_normal" {
        Some(zig_table(dev)?)
    } else {
        None
    };
    let inputs: Vec<_> = table.iter().map(|t| t.binding()).collect();
    dev.launch(
        &k,
        &p.encode(),
        &inputs,
        out.binding(),
        Work::Items(n.div_ceil(per)),
    )?;
    Ok(out)
}

impl Device {
    /// Uniform random numbers in [0, 1) from `seed`: the same on every adapter.
    ///
    /// # Errors
    /// [`crate::Error::Unsupported`] when the adapter lacks `T`; [`crate::Error::OutOfMemory`].
    ///
    /// ```
    /// # let dev = gpuarray::Device::new()?;
    /// let r = dev.random_uniform::<f32>([1000], 42)?.to_vec()?;
    /// assert!(r.iter().all(|&x| (0.0..1.0).contains(&x)));
    /// assert_eq!(r, dev.random_uniform::<f32>([1000], 42)?.to_vec()?);
    /// # Ok::<(), gpuarray::Error>(())
    /// ```
    pub fn random_uniform<T: Float>(&self, shape: impl Into<Shape>, seed: u64) -> Result<Array<T>> {
        self.random_uniform_in(shape, T::zero(), T::one(), seed)
    }

    /// Uniform random numbers in [low, high) from `seed`.
    ///
    /// # Errors
    /// As [`Device::random_uniform`].
    ///
    /// ```
    /// # let dev = gpuarray::Device::new()?;
    /// let r = dev.random_uniform_in::<f32>([100], -2.0, 2.0, 1)?.to_vec()?;
    /// assert!(r.iter().all(|&x| (-2.0..2.0).contains(&x)));
    /// # Ok::<(), gpuarray::Error>(())
    /// ```
    pub fn random_uniform_in<T: Float>(
        &self,
        shape: impl Into<Shape>,
        low: T,
        high: T,
        seed: u64,
    ) -> Result<Array<T>> {
        let width = T::from_f64(high.to_f64() - low.to_f64());
        generate(
            self,
            "random_uniform",
            "rand_uniform",
            shape.into(),
            low,
            width,
            seed,
        )
    }

    /// Standard normal random numbers (mean 0, standard deviation 1) from `seed`, by
    /// Box-Muller on word pairs (a, b) of Philox blocks: r = sqrt(-2 ln u) with u = (a + 1)
    /// 2^-32, angle 2 pi b 2^-32, r cos then r sin. Computed in integer arithmetic and rounded
    /// once to f32 (within 2^-23 relative of the exact transform; f64 takes that f32 value,
    /// f16 rounds it to nearest even), so every adapter gives the same bits.
    ///
    /// # Errors
    /// As [`Device::random_uniform`].
    ///
    /// ```
    /// # let dev = gpuarray::Device::new()?;
    /// let r = dev.random_normal::<f32>([10000], 3)?.to_vec()?;
    /// let mean = r.iter().sum::<f32>() / r.len() as f32;
    /// assert!(mean.abs() < 0.05);
    /// # Ok::<(), gpuarray::Error>(())
    /// ```
    pub fn random_normal<T: Float>(&self, shape: impl Into<Shape>, seed: u64) -> Result<Array<T>> {
        self.random_normal_with(shape, T::zero(), T::one(), seed)
    }

    /// Normal random numbers with the given mean and standard deviation: `mean + std * z`
    /// with z as in [`Device::random_normal`], the product and the sum each rounded once (in
    /// f32 for f16, then rounded to f16).
    ///
    /// # Errors
    /// As [`Device::random_uniform`].
    ///
    /// ```
    /// # let dev = gpuarray::Device::new()?;
    /// let r = dev.random_normal_with::<f32>([8], 10.0, 0.1, 3)?.to_vec()?;
    /// assert!(r.iter().all(|&x| (9.0..11.0).contains(&x)));
    /// # Ok::<(), gpuarray::Error>(())
    /// ```
    pub fn random_normal_with<T: Float>(
        &self,
        shape: impl Into<Shape>,
        mean: T,
        std: T,
        seed: u64,
    ) -> Result<Array<T>> {
        generate(
            self,
            "random_normal",
            "rand_normal",
            shape.into(),
            mean,
            std,
            seed,
        )
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Philox and the integer normals from 32-bit products (adapters without SHADER_INT64)
    /// give the bits of the 64-bit products: uniforms (each word's top 24 bits) from both
    /// kernels on 4099 blocks of two seeds, and normals (every fixed-point product of
    /// shaders/shared/rng_exact.wgsl goes through `mulhilo`) of a third.
    #[test]
    fn narrow_products_give_the_wide_words() {
        let dev = Device::new().expect("a device");
        if !wide_mul(&dev) {
            // Only the narrow kernel exists there, and tests/random.rs checks it against
            // the CPU's Philox. (lavapipe, CI's adapter, has SHADER_INT64.)
            eprintln!("skipped: the adapter lacks SHADER_INT64");
            return;
        }
        for (seed, entry) in [
            (0u64, "rand_uniform"),
            (0xdead_beef_0123_4567, "rand_uniform"),
            (3, "rand_normal"),
        ] {
            let draw = |wide: bool| {
                let out = Array::<f32>::alloc(&dev, "random_uniform", vec![4 * 4099]).unwrap();
                let p = RandomParams {
                    n: 4 * 4099,
                    per: 4,
                    seed,
                    a: 0.0f32,
                    b: 1.0,
                };
                let k = kernel_with::<f32>(&dev, entry, wide).unwrap();
                let table = zig_table(&dev).unwrap();
                let inputs = if entry == "rand_normal" {
                    vec![table.binding()]
                } else {
                    vec![]
                };
                dev.launch(&k, &p.encode(), &inputs, out.binding(), Work::Items(4099))
                    .unwrap();
                out.to_vec().unwrap()
            };
            let (narrow, wide) = (draw(false), draw(true));
            let bits = |v: &[f32]| v.iter().map(|x| x.to_bits()).collect::<Vec<_>>();
            assert_eq!(bits(&narrow), bits(&wide), "{entry} seed {seed:#x}");
            assert!(narrow.iter().any(|&x| x != narrow[0]));
        }
    }
}
