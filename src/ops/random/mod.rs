//! Random arrays from a counter-based generator (Philox4x32-10). Host side of
//! shaders/random.wgsl.
//!
//! Element i of a uniform array of f16 or f32 comes from word i % 4 of Philox block i / 4
//! (counter `[i / 4, 0, 0, 0]`, key = the seed's low and high 32 bits): f32 takes the word's
//! top 24 bits times 2^-24, f16 its top 11 bits times 2^-11. f64 takes 53 bits from words
//! 2(i % 2) and 2(i % 2) + 1 of block i / 2. Normal i comes from a ziggurat of 1024 layers
//! (Marsaglia and Tsang; shaders/shared/ziggurat.wgsl, tables in `ziggurat/`) on word i % 4
//! of block i / 4: its layer, sign and a 21-bit uniform j, accepted as j times the layer's
//! width (one f32 product) for 99.57% of the words; the others (wedges and the tail beyond
//! r = 4.039) draw from the element's private stream (counters `[i / 4, 0, t, 1 + i % 4]`)
//! in a second dispatch, with -ln u in integer arithmetic (shaders/shared/rng_exact.wgsl).
//! `low + width u` or `mean + std z` round the product and the sum once each (a runtime
//! factor of 1 keeps compilers from fusing them into an FMA). So the same seed gives the same
//! bits on every adapter (subnormal results aside, which some adapters flush).

pub(crate) mod distributions;
pub(crate) mod generator;
mod integers;
pub(crate) mod sampling;
pub(crate) mod ziggurat;

use std::sync::{Arc, Mutex};

use crate::array::Array;
use crate::device::{Device, Work};
use crate::dtype::{DType, Element, Float};
use crate::error::Result;
use crate::kernel::cache::{Kernel, Key};
use crate::kernel::launch::Params;
use crate::kernel::source::Spec;
use crate::memory::pool::BufferHandle;
use crate::shape::Shape;

/// The stateless functions' kernels, which import Philox4x32-10 (shaders/shared/philox.wgsl,
/// shared with the [`generator::Generator`]), the integer transforms (rng_exact.wgsl) and the
/// ziggurat's normals (ziggurat.wgsl).
const SRC: &str = include_str!("../../../shaders/random.wgsl");
/// f16's replacement of `to_s` (random.wgsl) and `to_s4` (generator.wgsl): the f32 value
/// rounded to nearest even in integers, as WGSL leaves the conversion's rounding open.
pub(crate) const F16_TO_S: &str = "fn to_s(v: SC) -> S { return S(f16_round(v)); }";
pub(crate) const F16_TO_S4: &str = "fn to_s4(v: vec4<SC>) -> vec4<S> { return vec4<S>(vec4<f32>(f16_round(v.x), f16_round(v.y), f16_round(v.z), f16_round(v.w))); }";

/// Whether the random kernels on `dev` take Philox's products as 64-bit multiplies.
pub(crate) fn wide_mul(dev: &Device) -> bool {
    dev.supports_dtype(DType::U64)
}

/// `s` with Philox's products (shaders/shared/mulhilo.wgsl, imported by philox.wgsl and
/// rng_exact.wgsl) as one 64-bit multiply (mulhilo64.wgsl) where `wide`: the same words
/// either way.
pub(crate) fn products(s: Spec, wide: bool) -> Spec {
    if wide {
        s.import_instead("mulhilo", Some("mulhilo64"))
    } else {
        s
    }
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

/// Slots of a workgroup's list of deferred normals (shaders/shared/ziggurat.wgsl): a workgroup
/// makes 1024 normals, of which about 4.4 (0.43%) miss the ziggurat's fast path; past 32
/// (probability about 1e-11 a workgroup) the second pass takes all of that workgroup's elements
/// instead, finishing those that miss.
pub(crate) const ZIG_CAP: u32 = 32;

/// Lists of the first pass that one workgroup of the second pass takes (ZIG_PACK in
/// shaders/shared/ziggurat.wgsl): about 140 deferred elements for its 256 invocations.
const ZIG_PACK: u32 = 32;

/// What the normal kernels bind, as inputs 1 and 2: the ziggurat's table
/// (src/ops/random/ziggurat/) and the lists of deferred elements for `blocks` Philox blocks
/// with `cap` slots a workgroup.
///
/// The kernels index in bounds by construction, so they compile unchecked: the table (2048
/// rows) by a word's low 10 bits, plus 1024 for a wedge's or the tail's row, the lists of
/// workgroup g < ceil(blocks / 256) at g (cap + 1) .. (g + 1)(cap + 1) (slots below cap; an
/// overflowed group scans its own elements), the output by elements of blocks below
/// `blocks` (the lists hold only such elements).
pub(crate) struct ZigInputs {
    pub table: Arc<BufferHandle>,
    pub lists: Array<u32>,
    /// Workgroups of the first pass (lists).
    groups: u32,
}

/// The device's copy of the ziggurat's table, uploaded on first use (a device-owned buffer
/// apart from every slab, so that it never shares a buffer with a kernel's output).
#[derive(Default)]
struct ZigTable {
    buf: Mutex<Option<Arc<BufferHandle>>>,
}

fn zig_table(dev: &Device) -> Result<Arc<BufferHandle>> {
    let state = dev.state::<ZigTable>();
    let mut buf = crate::gpu::lock(&state.buf);
    if let Some(b) = buf.as_ref() {
        return Ok(b.clone());
    }
    let words = ziggurat::table_words();
    let b = Arc::new(dev.alloc_owned(words.len() as u64 * 4)?);
    dev.upload(&b, 0, bytemuck::cast_slice(&words))?;
    *buf = Some(b.clone());
    Ok(b)
}

impl ZigInputs {
    /// The inputs: the device's table, and the lists (no slab shares the table's buffer,
    /// which wgpu would forbid to be bound read-only beside them).
    pub(crate) fn new(dev: &Device, blocks: u32, cap: u32) -> Result<ZigInputs> {
        let groups = blocks.div_ceil(WG);
        let table = zig_table(dev)?;
        let len = (groups * (cap + 1)) as usize;
        let lists = Array::alloc_with(dev, "normal", vec![len], |bytes| {
            dev.alloc_apart(bytes, &[&table])
        })?;
        Ok(ZigInputs {
            table,
            lists,
            groups,
        })
    }

    /// The second pass's invocations (ZIG_PACK lists a workgroup).
    pub(crate) fn second(&self) -> u32 {
        self.groups.div_ceil(ZIG_PACK) * WG
    }

    /// The output array of `shape`, apart from the inputs' buffers: the dispatch would
    /// otherwise copy an input that shares the output's slab, and the lists' writes would
    /// go to the copy.
    pub(crate) fn output<T: Element>(&self, dev: &Device, shape: Vec<usize>) -> Result<Array<T>> {
        Array::alloc_with(dev, "normal", shape, |bytes| {
            dev.alloc_apart(bytes, &[&self.table, &self.lists.buf])
        })
    }

    pub(crate) fn bindings(&self) -> [crate::kernel::launch::Binding<'_>; 2] {
        let table = crate::kernel::launch::Binding {
            buffer: &self.table,
            bytes: self.table.size(),
            window: 0,
        };
        [table, self.lists.binding()]
    }
}

/// A normal kernel's spec: writing its lists (input 2), unchecked (see [`ZigInputs`]).
pub(crate) fn zig_spec(s: Spec) -> Spec {
    s.writable_last_input().unchecked()
}

/// GPU timestamps around the passes of one normal draw, where `Diagnostics::zig_profile` asks.
pub(crate) struct ZigProfile(Option<Vec<crate::profile::Event>>);

impl ZigProfile {
    pub(crate) fn start(dev: &Device) -> Result<ZigProfile> {
        let on = dev.options().diagnostics.zig_profile;
        Ok(ZigProfile(if on {
            Some(vec![dev.record_event()?])
        } else {
            None
        }))
    }

    /// Marks the end of a pass.
    pub(crate) fn mark(&mut self, dev: &Device) -> Result<()> {
        if let Some(m) = &mut self.0 {
            m.push(dev.record_event()?);
        }
        Ok(())
    }

    /// Prints each pass's time for a draw of `n` elements.
    pub(crate) fn report(self, n: usize) -> Result<()> {
        let Some(m) = self.0 else { return Ok(()) };
        m.last().expect("the start").synchronize()?;
        let ms: Vec<String> = m
            .windows(2)
            .map(|w| w[0].elapsed_ms(&w[1]).map(|t| format!("{t:.4}")))
            .collect::<Result<_>>()?;
        eprintln!("zig {n}: {} ms", ms.join(" "));
        Ok(())
    }
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
    /// Slots of a workgroup's deferred list (`zig_cap()`; normals).
    cap: u32,
    /// Elements of the draw (`zig_n()`; normals, whose second pass has `n` invocations).
    total: u32,
}

impl<T: Float> RandomParams<T> {
    fn encode(&self) -> Params {
        // The third scalar, 1, keeps `b z` from fusing with the sum (random.wgsl's `affine`).
        let mut p = Params::new(self.n).scalars(&[self.a, self.b, T::one()]);
        p.ndim = self.per;
        p.aux = [self.seed as u32, (self.seed >> 32) as u32];
        p.offs[0] = self.cap;
        p.offs[1] = self.total;
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
    products(s, wide)
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
    let normal = entry.starts_with("rand_normal");
    let base = variant(T::DTYPE.wgsl(), wide);
    let key = Key {
        family: "random",
        entry,
        variant: base,
        inputs: if normal { 2 } else { 0 },
        wg: WG,
        ndim: 0,
        per: 0,
    };
    dev.kernel(key, || {
        let s = spec(T::DTYPE, wide);
        // The normal kernels write their deferred lists (input 2), and index in bounds by
        // construction (see `ZigInputs`), so they compile without naga's runtime checks.
        if normal {
            zig_spec(s)
        } else {
            s
        }
    })
}

fn uniforms<T: Float>(dev: &Device, shape: Shape, a: T, b: T, seed: u64) -> Result<Array<T>> {
    let out = Array::<T>::alloc(dev, "random_uniform", shape.0)?;
    let n = out.len() as u32;
    if n == 0 {
        return Ok(out);
    }
    let (_, per) = unit(T::DTYPE);
    let p = RandomParams {
        n,
        per,
        seed,
        a,
        b,
        cap: 0,
        total: n,
    };
    let k = kernel::<T>(dev, "rand_uniform")?;
    dev.launch(
        &k,
        &p.encode(),
        &[],
        out.binding(),
        Work::Items(n.div_ceil(per)),
    )?;
    Ok(out)
}

/// `a + b z` for the ziggurat's normals z, `cap` (at least 1) list slots a workgroup: the
/// first pass, then the deferred elements; Philox's products 64-bit where `wide`.
#[allow(clippy::too_many_arguments)] // the draw's parts, named
fn normals<T: Float>(
    dev: &Device,
    shape: Shape,
    a: T,
    b: T,
    seed: u64,
    cap: u32,
    wide: bool,
) -> Result<Array<T>> {
    let n = crate::shape::checked_len(&shape.0, T::DTYPE.size())? as u32;
    if n == 0 {
        return Array::alloc(dev, "random_normal", shape.0);
    }
    let blocks = n.div_ceil(4);
    let zig = ZigInputs::new(dev, blocks, cap)?;
    let out = zig.output::<T>(dev, shape.0)?;
    let mut p = RandomParams {
        n,
        per: 4,
        seed,
        a,
        b,
        cap,
        total: n,
    };
    let mut prof = ZigProfile::start(dev)?;
    let k = kernel_with::<T>(dev, "rand_normal", wide)?;
    dev.launch(
        &k,
        &p.encode(),
        &zig.bindings(),
        out.binding(),
        Work::Items(blocks),
    )?;
    prof.mark(dev)?;
    let items = zig.second();
    p.n = items;
    let k = kernel_with::<T>(dev, "rand_normal_slow", wide)?;
    let w = Work::Items(items);
    dev.launch(&k, &p.encode(), &zig.bindings(), out.binding(), w)?;
    prof.mark(dev)?;
    prof.report(n as usize)?;
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
        uniforms(self, shape.into(), low, width, seed)
    }

    /// Standard normal random numbers (mean 0, standard deviation 1) from `seed`, by a
    /// ziggurat of 1024 layers (Marsaglia and Tsang) on one Philox word per element: 99.57% of
    /// the words give z = j w (a 21-bit uniform j times the layer's width, one f32 product),
    /// the rest take the wedge or tail tests with further words of the element's own stream
    /// (-ln u in integer arithmetic, at most 16 tries). Computed in f32 with operations that
    /// IEEE rounds exactly (f64 takes that f32 value, f16 rounds it to nearest even), so
    /// every adapter gives the same bits.
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
        normals(self, shape.into(), mean, std, seed, ZIG_CAP, wide_mul(self))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Philox and the normals' -ln u from 32-bit products (adapters without SHADER_INT64)
    /// give the bits of the 64-bit products: uniforms (each word's top 24 bits) from both
    /// kernels on 4099 blocks of two seeds, and normals (every fixed-point product of
    /// shaders/shared/rng_exact.wgsl goes through `mulhilo`) of a third, one slot a
    /// workgroup so that the slow path runs for every slow element both ways.
    #[test]
    fn narrow_products_give_the_wide_words() {
        let dev = Device::new().expect("a device");
        if !wide_mul(&dev) {
            // Only the narrow kernel exists there, and tests/random.rs checks it against
            // the CPU's Philox. (lavapipe, CI's adapter, has SHADER_INT64.)
            eprintln!("skipped: the adapter lacks SHADER_INT64");
            return;
        }
        let bits = |v: &[f32]| v.iter().map(|x| x.to_bits()).collect::<Vec<_>>();
        for seed in [0u64, 0xdead_beef_0123_4567] {
            let draw = |wide: bool| {
                let out = Array::<f32>::alloc(&dev, "random_uniform", vec![4 * 4099]).unwrap();
                let p = RandomParams {
                    n: 4 * 4099,
                    per: 4,
                    seed,
                    a: 0.0f32,
                    b: 1.0,
                    cap: 0,
                    total: 4 * 4099,
                };
                let k = kernel_with::<f32>(&dev, "rand_uniform", wide).unwrap();
                dev.launch(&k, &p.encode(), &[], out.binding(), Work::Items(4099))
                    .unwrap();
                out.to_vec().unwrap()
            };
            let (narrow, wide) = (draw(false), draw(true));
            assert_eq!(bits(&narrow), bits(&wide), "uniform seed {seed:#x}");
            assert!(narrow.iter().any(|&x| x != narrow[0]));
        }
        let draw = |wide: bool| {
            let z = normals::<f32>(&dev, vec![4 * 4099].into(), 0.0, 1.0, 3, 1, wide).unwrap();
            bits(&z.to_vec().unwrap())
        };
        assert_eq!(draw(false), draw(true), "normals");
    }

    /// The deferred normals are the same bits whatever the lists' capacity: one slot a
    /// workgroup (nearly every workgroup overflows, and its invocations scan its elements),
    /// two, and the default (the lists hold every slow element), for both entry points.
    #[test]
    fn deferral_gives_the_same_bits_at_every_capacity() {
        let dev = Device::new().expect("a device");
        let bits = |z: Array<f32>| {
            let v = z.to_vec().unwrap();
            v.iter().map(|x| x.to_bits()).collect::<Vec<_>>()
        };
        for n in [5usize, 4 * 4099 + 3, 1 << 18] {
            let wide = wide_mul(&dev);
            let draw =
                |cap| bits(normals(&dev, vec![n].into(), 0.5f32, 2.0, 17, cap, wide).unwrap());
            let one = draw(1);
            assert_eq!(draw(2), one, "cap 2, n {n}");
            assert_eq!(draw(ZIG_CAP), one, "cap {ZIG_CAP}, n {n}");
            // The Generator's kernels, from a counter past 0.
            let stateful = |cap| {
                let mut g = dev.default_rng(17);
                g.random::<f32>([9]).unwrap();
                let p = generator::GenParams {
                    floats: [0.5, 2.0],
                    ..Default::default()
                };
                bits(g.normals(vec![n].into(), p, cap).unwrap())
            };
            let one = stateful(1);
            assert_eq!(stateful(2), one, "generator cap 2, n {n}");
            assert_eq!(stateful(ZIG_CAP), one, "generator cap {ZIG_CAP}, n {n}");
        }
    }
}
