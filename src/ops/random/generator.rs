//! [`Generator`]: a stateful random generator (NumPy's `default_rng`) over Philox4x32-10, and
//! its draws that take one Philox word per element. Host side of shaders/generator.wgsl; the
//! rejection-based distributions are in `distributions.rs`, `choice`, `permutation` and
//! `shuffle` in `sampling.rs`.
//!
//! The generator holds a 64-bit key (the seed) and a 64-bit counter of the Philox blocks it
//! has used. A draw of n elements takes the next ceil(n / per) blocks (per = 4 elements a
//! block, 2 for f64 uniforms) and advances the counter past them, so two draws never share a
//! block, and the numbers depend on the seed and the order of the draws only: the same on
//! every adapter. Block c is Philox4x32-10 of the counter `[c low, c high, 0, 0]` under the
//! key `[seed low, seed high]`; element e of a block is made from its word e (two words for
//! f64 uniforms). Elements that need more randomness (rejection loops) read
//! their private stream, counters `[c low, c high, t, 1 + e]` for t = 0, 1, ..., which no
//! other element and no other draw uses. A fresh generator's first uniform draw equals
//! [`Device::random_uniform`] with the same seed, its first normal draw
//! [`Device::random_normal`].
//!
//! The words are integers, and the transforms are integer arithmetic (normals: a ziggurat,
//! shaders/shared/ziggurat.wgsl, whose rare slow path a second dispatch finishes;
//! exponentials: shaders/shared/rng_exact.wgsl; poisson and binomial by table inversion,
//! gamma's and beta's logs, powers and division: `distributions.rs`) or single IEEE
//! operations, so every draw gives the same bits on every adapter (the weighted `choice`
//! aside: `sampling.rs`).

use std::sync::Arc;

use crate::array::Array;
use crate::device::{Device, Work};
use crate::dtype::{DType, Element, Float, Real};
use crate::error::{Error, Result};
use crate::kernel::cache::{Kernel, Key};
use crate::kernel::launch::{Binding, Params};
use crate::kernel::source::Spec;
use crate::shape::{contiguous_strides, Shape};

use super::{products, variant, wide_mul};

const GENERATOR: &str = include_str!("../../../shaders/generator.wgsl");
const DISTRIBUTIONS: &str = include_str!("../../../shaders/distributions.wgsl");
const WG: u32 = 256;

/// What [`Generator::bernoulli`] returns: a mask, as the comparisons make it.
pub use crate::ops::index::Mask;

/// The kernel families of the generator.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Family {
    /// shaders/generator.wgsl.
    Generator,
    /// shaders/distributions.wgsl.
    Distributions,
}

impl Family {
    fn name(self) -> &'static str {
        match self {
            Family::Generator => "generator",
            Family::Distributions => "distributions",
        }
    }
}

/// Parameters of the generator's kernels. [`GenParams::encode`] is the only code that fills
/// their slots; shaders/shared/rng_stream.wgsl reads them through the accessors named in each
/// field's doc.
#[derive(Debug, Clone, Copy, Default)]
pub(crate) struct GenParams {
    /// Work items: Philox blocks, or elements for the gather (`P.n`).
    pub items: u32,
    /// The key (`key()`).
    pub key: u64,
    /// The counter of the draw's first block (`counter(0u)`); for the gather, the index
    /// array's start (`P.offs.x`).
    pub counter: u64,
    /// Two integer arguments (`int_args()`).
    pub ints: [u32; 2],
    /// A flag (`flag()`).
    pub flag: u32,
    /// Float arguments (`arg(k)` in the element type, `farg(k)` in f32).
    pub floats: [f64; 2],
    /// The 64-bit integers' low end and range as words, low word first (`wide_args()` of
    /// shaders/shared/lemire64.wgsl, `P.shape[0]`).
    pub wide: [u32; 4],
}

impl GenParams {
    /// The parameter block, with the float arguments in the carrier type `C`.
    fn encode<C: Real>(&self) -> Params {
        // The third scalar, 1, keeps products from fusing with sums (generator.wgsl's
        // `affine4`).
        let [a, b] = self.floats.map(C::from_f64);
        let mut p = Params::new(self.items).scalars(&[a, b, C::one()]);
        p.ndim = self.flag;
        p.aux = [self.key as u32, (self.key >> 32) as u32];
        p.offs = [
            self.counter as u32,
            (self.counter >> 32) as u32,
            self.ints[0],
            self.ints[1],
        ];
        p.shape[..4].copy_from_slice(&self.wide);
        p
    }
}

/// The one-line replacements of `unit4` and `unit2` for dtype `d`.
fn units(d: DType) -> (&'static str, Option<&'static str>) {
    match d {
        DType::F16 => (
            "fn unit4(w: vec4<u32>) -> vec4<S> { return vec4<S>(vec4<f32>(w >> vec4<u32>(21u)) * 0.00048828125); }",
            None,
        ),
        DType::F64 => (
            "fn unit4(w: vec4<u32>) -> vec4<S> { return vec4<S>(vec4<f32>(w >> vec4<u32>(8u)) * 5.9604644775390625e-8); }",
            Some("fn unit2(w: vec4<u32>) -> vec2<S> { return (vec2<S>(f64(w.x >> 5u), f64(w.z >> 5u)) * 67108864.0 + vec2<S>(f64(w.y >> 6u), f64(w.w >> 6u))) * 1.1102230246251565e-16; }"),
        ),
        _ => (
            "fn unit4(w: vec4<u32>) -> vec4<S> { return vec4<S>(vec4<f32>(w >> vec4<u32>(8u)) * 5.9604644775390625e-8); }",
            None,
        ),
    }
}

fn spec(family: Family, d: DType, wide: bool) -> Spec {
    let carrier = if d.is_float() && d != DType::F16 {
        d
    } else {
        DType::F32
    };
    let (src, name) = match family {
        Family::Generator => (GENERATOR, "generator"),
        Family::Distributions => (DISTRIBUTIONS, "distributions"),
    };
    let s = Spec::new(name, src)
        .alias("S", d.wgsl())
        .alias("SC", carrier.wgsl());
    let mut s = products(s, wide);
    if family == Family::Generator {
        let (u4, u2) = units(d);
        s = s.function("unit4", u4);
        if let Some(u2) = u2 {
            s = s.function("unit2", u2);
        }
    }
    if d == DType::F16 {
        s = s.function("to_s4", super::F16_TO_S4);
    }
    if d.is_int64() && family == Family::Generator {
        s = s.import("lemire64").function(
            "integers2",
            "fn integers2(c: vec2<u32>, w: vec4<u32>) -> vec2<S> { return vec2<S>(lemire2(c, w)); }",
        );
    }
    s
}

/// Every variant, for the shader validation test.
#[cfg(test)]
pub(crate) fn all_specs() -> Vec<Spec> {
    let all = [
        DType::F16,
        DType::F32,
        DType::F64,
        DType::I32,
        DType::U32,
        DType::I64,
        DType::U64,
    ];
    let dist = [DType::F16, DType::F32, DType::F64, DType::I32];
    all.iter()
        .flat_map(|&d| [false, true].map(|w| spec(Family::Generator, d, w)))
        .chain(
            dist.iter()
                .flat_map(|&d| [false, true].map(|w| spec(Family::Distributions, d, w))),
        )
        .collect()
}

fn kernel(
    dev: &Device,
    family: Family,
    entry: &'static str,
    d: DType,
    inputs: usize,
) -> Result<Arc<Kernel>> {
    let normal = entry.starts_with("gen_normal");
    let base = variant(d.wgsl(), wide_mul(dev));
    let key = Key {
        family: family.name(),
        entry,
        variant: base,
        inputs,
        wg: WG,
        ndim: 0,
        per: 0,
    };
    dev.kernel(key, || {
        let s = spec(family, d, wide_mul(dev));
        // The ziggurat's normals write their deferred lists (input 2) and index in bounds
        // by construction (see `ZigInputs`): compiled without naga's runtime checks.
        if normal {
            super::zig_spec(s)
        } else {
            s
        }
    })
}

/// Records one dispatch of a generator kernel over `p.items` items.
pub(crate) fn launch<O: Element>(
    dev: &Device,
    family: Family,
    entry: &'static str,
    p: &GenParams,
    inputs: &[Binding<'_>],
    out: Binding<'_>,
) -> Result<()> {
    let k = kernel(dev, family, entry, O::DTYPE, inputs.len())?;
    // The float arguments in f64 for f64 outputs, else in f32 (f16's carrier, and the
    // integer outputs').
    let params = if O::DTYPE == DType::F64 {
        p.encode::<f64>()
    } else {
        p.encode::<f32>()
    };
    dev.launch(&k, &params, inputs, out, Work::Items(p.items))
}

/// A stateful random generator: NumPy's `numpy.random.default_rng(seed)` (see the module
/// docs of `gpuarray::random` for the streams). Every draw advances its counter past the
/// Philox blocks it used; a draw that fails (bad arguments, out of memory) advances nothing.
/// `clone` copies the state: the clone repeats the original's future draws.
///
/// Every draw but the weighted `choice` (`choice_weighted`, `choice_from_weighted`: an f32
/// scan and division of the weights) gives the same bits on every adapter for the same seed
/// and the same sequence of draws (subnormal results aside, which some adapters flush to
/// zero): the Philox words
/// are integers, and their transforms are integer arithmetic (the ziggurat normals' -ln u,
/// exponential's -ln u, gamma's ln v and U^(1/k), beta's division: fixed-point
/// or integer, the float built from its bits), table lookups compared in integers (poisson
/// and binomial invert a table of cumulative probabilities computed on the host with +, *
/// and / only), or single IEEE-rounded operations.
///
/// ```
/// # let dev = gpuarray::Device::new()?;
/// let mut rng = dev.default_rng(42);
/// let a = rng.random::<f32>([4])?.to_vec()?;
/// let b = rng.random::<f32>([4])?.to_vec()?;
/// assert_ne!(a, b); // each draw takes new blocks
/// assert_eq!(a, dev.default_rng(42).random::<f32>([4])?.to_vec()?);
/// # Ok::<(), gpuarray::Error>(())
/// ```
#[derive(Clone)]
pub struct Generator {
    pub(crate) dev: Device,
    pub(crate) key: u64,
    pub(crate) counter: u64,
}

impl std::fmt::Debug for Generator {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Generator")
            .field("seed", &self.key)
            .field("counter", &self.counter)
            .finish()
    }
}

impl Device {
    /// A [`Generator`] seeded with `seed` (NumPy's `default_rng(seed)`), its counter at 0.
    ///
    /// ```
    /// # let dev = gpuarray::Device::new()?;
    /// let mut rng = dev.default_rng(7);
    /// assert_eq!(rng.seed(), 7);
    /// let x = rng.normal::<f32>([3], 0.0, 1.0)?;
    /// assert_eq!(rng.counter(), 1); // one Philox block used
    /// # Ok::<(), gpuarray::Error>(())
    /// ```
    pub fn default_rng(&self, seed: u64) -> Generator {
        Generator {
            dev: self.clone(),
            key: seed,
            counter: 0,
        }
    }
}

/// `InvalidArgument` for `op` unless `ok`.
pub(crate) fn check(ok: bool, op: &'static str, reason: &'static str) -> Result<()> {
    if ok {
        Ok(())
    } else {
        Err(Error::InvalidArgument { op, reason })
    }
}

impl Generator {
    /// The seed (the Philox key).
    ///
    /// ```
    /// # let dev = gpuarray::Device::new()?;
    /// assert_eq!(dev.default_rng(3).seed(), 3);
    /// # Ok::<(), gpuarray::Error>(())
    /// ```
    pub fn seed(&self) -> u64 {
        self.key
    }

    /// Philox blocks used so far: the counter of the next draw's first block.
    ///
    /// ```
    /// # let dev = gpuarray::Device::new()?;
    /// let mut rng = dev.default_rng(3);
    /// rng.integers::<i32>([9], 0, 10)?;
    /// assert_eq!(rng.counter(), 3); // 9 elements, 4 a block
    /// # Ok::<(), gpuarray::Error>(())
    /// ```
    pub fn counter(&self) -> u64 {
        self.counter
    }

    /// The device the generator draws on.
    ///
    /// ```
    /// # let dev = gpuarray::Device::new()?;
    /// let rng = dev.default_rng(3);
    /// assert_eq!(rng.device().info().name, dev.info().name);
    /// # Ok::<(), gpuarray::Error>(())
    /// ```
    pub fn device(&self) -> &Device {
        &self.dev
    }

    /// Draws `shape` elements of `O`, `per` a block, with kernel `entry`: allocates whole
    /// blocks, launches, advances the counter, and returns a view of the first elements.
    pub(crate) fn draw<O: Element>(
        &mut self,
        family: Family,
        entry: &'static str,
        shape: Shape,
        per: usize,
        p: GenParams,
    ) -> Result<Array<O>> {
        self.draw_with(family, entry, shape, per, p, &[])
    }

    /// [`Generator::draw`] with input arrays bound from binding 1 on.
    pub(crate) fn draw_with<O: Element>(
        &mut self,
        family: Family,
        entry: &'static str,
        shape: Shape,
        per: usize,
        mut p: GenParams,
        inputs: &[Binding<'_>],
    ) -> Result<Array<O>> {
        let shape = shape.0;
        let n: usize = crate::shape::checked_len(&shape, O::DTYPE.size())?;
        let blocks = n.div_ceil(per);
        let out = Array::<O>::alloc(&self.dev, entry, vec![blocks * per])?;
        if n == 0 {
            return Ok(out.view(shape.clone(), contiguous_strides(&shape), 0));
        }
        p.items = blocks as u32;
        p.key = self.key;
        p.counter = self.counter;
        launch::<O>(&self.dev, family, entry, &p, inputs, out.binding())?;
        self.counter = self.counter.wrapping_add(blocks as u64);
        let strides = contiguous_strides(&shape);
        Ok(out.view(shape, strides, 0))
    }

    /// The ziggurat's normals with the parameters `p`, `cap` (at least 1) list slots a
    /// workgroup: gen_normal, then gen_normal_slow over the deferred elements.
    pub(crate) fn normals<O: Element>(
        &mut self,
        shape: Shape,
        mut p: GenParams,
        cap: u32,
    ) -> Result<Array<O>> {
        let shape = shape.0;
        let n: usize = crate::shape::checked_len(&shape, O::DTYPE.size())?;
        let blocks = n.div_ceil(4);
        let strides = contiguous_strides(&shape);
        if n == 0 {
            let out = Array::<O>::alloc(&self.dev, "normal", vec![0])?;
            return Ok(out.view(shape, strides, 0));
        }
        let zig = super::ZigInputs::new(&self.dev, blocks as u32, cap)?;
        let out = zig.output::<O>(&self.dev, vec![blocks * 4])?;
        p.items = blocks as u32;
        p.key = self.key;
        p.counter = self.counter;
        p.ints = [cap, (blocks * 4) as u32];
        let (family, inputs) = (Family::Generator, zig.bindings());
        let mut prof = super::ZigProfile::start(&self.dev)?;
        launch::<O>(&self.dev, family, "gen_normal", &p, &inputs, out.binding())?;
        prof.mark(&self.dev)?;
        p.items = zig.second();
        let slow = "gen_normal_slow";
        launch::<O>(&self.dev, family, slow, &p, &inputs, out.binding())?;
        prof.mark(&self.dev)?;
        prof.report(n)?;
        self.counter = self.counter.wrapping_add(blocks as u64);
        Ok(out.view(shape, strides, 0))
    }

    /// Uniform numbers in [0, 1): f32 from a word's top 24 bits times 2^-24, f16 from its top
    /// 11 bits times 2^-11, f64 from 53 bits of two words (27 of the first, 26 of the
    /// second), as [`Device::random_uniform`] (a fresh generator's first draw equals it).
    ///
    /// # Errors
    /// [`Error::Unsupported`] when the adapter lacks `T`; [`Error::OutOfMemory`].
    ///
    /// ```
    /// # let dev = gpuarray::Device::new()?;
    /// let r = dev.default_rng(1).random::<f32>([100])?.to_vec()?;
    /// assert!(r.iter().all(|&x| (0.0..1.0).contains(&x)));
    /// assert_eq!(r, dev.random_uniform::<f32>([100], 1)?.to_vec()?);
    /// # Ok::<(), gpuarray::Error>(())
    /// ```
    pub fn random<T: Float>(&mut self, shape: impl Into<Shape>) -> Result<Array<T>> {
        self.uniform(shape, T::zero(), T::one())
    }

    /// Uniform numbers in [low, high): `low + (high - low) * u` with u as in
    /// [`Generator::random`], the product and the sum each rounded once in `T` (in f32 for
    /// f16, then rounded to f16 to nearest even).
    ///
    /// # Errors
    /// [`Error::InvalidArgument`] unless low < high, both finite; else as
    /// [`Generator::random`].
    ///
    /// ```
    /// # let dev = gpuarray::Device::new()?;
    /// let mut rng = dev.default_rng(1);
    /// let r = rng.uniform::<f32>([100], -2.0, 2.0)?.to_vec()?;
    /// assert!(r.iter().all(|&x| (-2.0..2.0).contains(&x)));
    /// assert!(rng.uniform::<f32>([1], 1.0, 1.0).is_err());
    /// # Ok::<(), gpuarray::Error>(())
    /// ```
    pub fn uniform<T: Float>(
        &mut self,
        shape: impl Into<Shape>,
        low: T,
        high: T,
    ) -> Result<Array<T>> {
        let (l, h) = (low.to_f64(), high.to_f64());
        check(
            l < h && l.is_finite() && h.is_finite(),
            "uniform",
            "needs finite low < high",
        )?;
        let p = GenParams {
            floats: [l, h - l],
            ..Default::default()
        };
        if T::DTYPE == DType::F64 {
            self.draw(Family::Generator, "gen_uniform2", shape.into(), 2, p)
        } else {
            self.draw(Family::Generator, "gen_uniform", shape.into(), 4, p)
        }
    }

    /// Normal numbers of mean `mean` and standard deviation `std`: a ziggurat of 1024 layers
    /// (Marsaglia and Tsang) on word e of each block for element e, as
    /// [`Device::random_normal`] (99.57% of the words give z with one f32 product; the rest
    /// take the wedge or tail tests with words of the element's private stream, at most 16
    /// tries; the same bits on every adapter), then `mean + std * z` with the product and
    /// the sum each rounded once in `T` (f32 for f16). NumPy uses a ziggurat too (its own
    /// tables and bits): the numbers differ, the distribution is the same.
    ///
    /// # Errors
    /// [`Error::InvalidArgument`] unless mean and std are finite and std >= 0; else as
    /// [`Generator::random`].
    ///
    /// ```
    /// # let dev = gpuarray::Device::new()?;
    /// let mut rng = dev.default_rng(2);
    /// let r = rng.normal::<f32>([10000], 5.0, 0.5)?.mean()?.to_scalar()?;
    /// assert!((r - 5.0).abs() < 0.05);
    /// assert!(rng.normal::<f32>([1], 0.0, -1.0).is_err());
    /// # Ok::<(), gpuarray::Error>(())
    /// ```
    pub fn normal<T: Float>(
        &mut self,
        shape: impl Into<Shape>,
        mean: T,
        std: T,
    ) -> Result<Array<T>> {
        let (m, s) = (mean.to_f64(), std.to_f64());
        check(
            m.is_finite() && s.is_finite() && s >= 0.0,
            "normal",
            "needs a finite mean and a finite std >= 0",
        )?;
        let p = GenParams {
            floats: [m, s],
            ..Default::default()
        };
        self.normals(shape.into(), p, super::ZIG_CAP)
    }

    /// Standard normal numbers: [`Generator::normal`] with mean 0 and std 1.
    ///
    /// # Errors
    /// As [`Generator::random`].
    ///
    /// ```
    /// # let dev = gpuarray::Device::new()?;
    /// let z = dev.default_rng(2).standard_normal::<f32>([2, 3])?;
    /// assert_eq!(z.shape(), &[2, 3]);
    /// # Ok::<(), gpuarray::Error>(())
    /// ```
    pub fn standard_normal<T: Float>(&mut self, shape: impl Into<Shape>) -> Result<Array<T>> {
        self.normal(shape, T::zero(), T::one())
    }

    /// Exponential numbers of mean `scale`: `scale * (-ln u)` with u = (word + 1) 2^-32 in
    /// (0, 1], -ln u in fixed point and rounded once to f32 (within 2^-23 relative, at most
    /// 22.18; the same bits on every adapter), then one product in `T` (f32 for f16).
    ///
    /// # Errors
    /// [`Error::InvalidArgument`] unless scale is finite and >= 0; else as
    /// [`Generator::random`].
    ///
    /// ```
    /// # let dev = gpuarray::Device::new()?;
    /// let e = dev.default_rng(2).exponential::<f32>([1000], 2.0)?.to_vec()?;
    /// assert!(e.iter().all(|&x| x >= 0.0));
    /// # Ok::<(), gpuarray::Error>(())
    /// ```
    pub fn exponential<T: Float>(&mut self, shape: impl Into<Shape>, scale: T) -> Result<Array<T>> {
        let s = scale.to_f64();
        check(
            s.is_finite() && s >= 0.0,
            "exponential",
            "needs a finite scale >= 0",
        )?;
        let p = GenParams {
            floats: [s, 0.0],
            ..Default::default()
        };
        self.draw(Family::Generator, "gen_exponential", shape.into(), 4, p)
    }

    /// A mask of independent Bernoulli trials: 1 with probability `p`, as a word compared
    /// with floor(p 2^32) (p = 1 always 1).
    ///
    /// # Errors
    /// [`Error::InvalidArgument`] unless 0 <= p <= 1; else as [`Generator::random`].
    ///
    /// ```
    /// # let dev = gpuarray::Device::new()?;
    /// let mut rng = dev.default_rng(5);
    /// let m = rng.bernoulli([1000], 0.25)?.to_vec()?;
    /// assert!(m.iter().filter(|&&b| b).count() > 150);
    /// assert!(rng.bernoulli([1], 1.5).is_err());
    /// # Ok::<(), gpuarray::Error>(())
    /// ```
    pub fn bernoulli(&mut self, shape: impl Into<Shape>, p: f64) -> Result<Mask> {
        check((0.0..=1.0).contains(&p), "bernoulli", "needs 0 <= p <= 1")?;
        let threshold = (p * 4_294_967_296.0).floor();
        let params = GenParams {
            ints: [threshold.min(u32::MAX as f64) as u32, 0],
            flag: u32::from(p == 1.0),
            ..Default::default()
        };
        self.draw(Family::Generator, "gen_bernoulli", shape.into(), 4, params)
    }
}
