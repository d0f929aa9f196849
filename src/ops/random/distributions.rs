//! [`Generator`] draws by inversion or rejection: poisson, binomial, gamma and beta. Host side
//! of shaders/distributions.wgsl.
//!
//! Poisson and binomial invert a table of the distribution's cumulative probabilities in Q32
//! (each element one Philox word, compared in integers with the thresholds), the table built
//! here in f64 by the ratio recurrences p(k + 1) / p(k) from the mode outwards: only
//! +, *, / (no log or exp, whose last bits differ between libraries). Gamma and beta are
//! Marsaglia and Tsang's rejection loop in f32 with every transcendental step in integers
//! (the normal, -ln u, ln v, U^(1/k)) and every other step one IEEE-rounded operation, its
//! parameters (d, 1 / sqrt(9 d), 1 / k) computed here; each element starts from its own
//! word of its block and takes what more it needs from its private stream. So all four give
//! the same bits on every adapter (subnormal results aside).

use crate::array::Array;
use crate::dtype::Float;
use crate::error::Result;
use crate::shape::Shape;

use super::generator::{check, Family, GenParams, Generator};
#[cfg(doc)]
use crate::Device;

/// The largest Poisson mean taken (its table holds about 16 sqrt(lam) thresholds).
const MAX_LAM: f64 = 1.0e7;

/// Gamma's shape and scale are taken in f32.
const MAX_F32: f64 = f32::MAX as f64;

/// Probabilities below this, relative to the mode's, end the table (the mass beyond it is
/// below 2^-40 for every mean and n taken).
const TAIL: f64 = 1.0 / (1u64 << 48) as f64;

/// The inversion table of shaders/distributions.wgsl's `inversion`: the guide table then the
/// thresholds, the value of a word below the first threshold (`k0`) and the guide's bits.
#[derive(Debug, Clone, PartialEq)]
pub(crate) struct InversionTable {
    pub k0: u32,
    pub guide_bits: u32,
    pub thresholds: usize,
    pub words: Vec<u32>,
}

/// The table of the distribution on `0..=kmax` with mode `mode`, from the ratios `up(k)` =
/// p(k + 1) / p(k) and `down(k)` = p(k - 1) / p(k): the probabilities from the mode's (1)
/// outwards until they fall below [`TAIL`], normalised by their sum, cumulated and rounded
/// to Q32; thresholds at 0 (values never drawn) move k0, those at 2^32 are dropped.
pub(crate) fn inversion_table(
    mode: u32,
    kmax: u32,
    up: impl Fn(f64) -> f64,
    down: impl Fn(f64) -> f64,
) -> InversionTable {
    let mut below = Vec::new();
    let (mut p, mut k) = (1.0f64, mode);
    while k > 0 {
        p *= down(k as f64);
        if p < TAIL {
            break;
        }
        below.push(p);
        k -= 1;
    }
    let mut pmf: Vec<f64> = below.into_iter().rev().collect();
    let mut k0 = mode - pmf.len() as u32;
    pmf.push(1.0);
    let (mut p, mut k) = (1.0f64, mode);
    while k < kmax {
        p *= up(k as f64);
        if p < TAIL {
            break;
        }
        pmf.push(p);
        k += 1;
    }
    let total: f64 = pmf.iter().sum();
    let scale = 4_294_967_296.0 / total;
    let mut cum = 0.0;
    let mut thr = Vec::with_capacity(pmf.len());
    for &p in &pmf[..pmf.len() - 1] {
        cum += p;
        let t = (cum * scale).round();
        if t >= 4_294_967_296.0 {
            break;
        }
        if t <= 0.0 {
            k0 += 1;
        } else {
            thr.push(t as u32);
        }
    }
    // Eight buckets a threshold while the guide stays within 2^16 words, else two.
    let per = if 8 * thr.len() <= 1 << 16 { 8 } else { 2 };
    let guide_bits = (per * thr.len()).next_power_of_two().trailing_zeros();
    let mut words = Vec::with_capacity((1 << guide_bits) + thr.len());
    let mut i = 0;
    for b in 0..1u64 << guide_bits {
        let (lo, hi) = (b << (32 - guide_bits), (b + 1) << (32 - guide_bits));
        while i < thr.len() && thr[i] as u64 <= lo {
            i += 1;
        }
        // Bit 31: no threshold inside the bucket, so every word in it gives k0 + i.
        let pure = i == thr.len() || thr[i] as u64 >= hi;
        words.push(i as u32 | (pure as u32) << 31);
    }
    let thresholds = thr.len();
    words.extend(thr);
    InversionTable {
        k0,
        guide_bits,
        thresholds,
        words,
    }
}

/// Poisson(lam)'s table: mode floor(lam), p(k + 1) / p(k) = lam / (k + 1).
pub(crate) fn poisson_table(lam: f64) -> InversionTable {
    inversion_table(
        lam.floor() as u32,
        u32::MAX,
        |k| lam / (k + 1.0),
        |k| k / lam,
    )
}

/// Binomial(n, p)'s table: mode floor((n + 1) p) (at most n), p(k + 1) / p(k) = (n - k) p /
/// ((k + 1)(1 - p)); p = 0 and p = 1 give one value.
pub(crate) fn binomial_table(n: u32, p: f64) -> InversionTable {
    if p == 0.0 || p == 1.0 || n == 0 {
        let k = if p == 1.0 { n } else { 0 };
        return inversion_table(k, k, |_| 0.0, |_| 0.0);
    }
    let mode = (((n as f64 + 1.0) * p).floor() as u32).min(n);
    let odds = p / (1.0 - p);
    let n = n as f64;
    inversion_table(
        mode,
        n as u32,
        |k| (n - k) / (k + 1.0) * odds,
        |k| k / (n - k + 1.0) / odds,
    )
}

/// The gamma parameters of shaders/distributions.wgsl's `gamma_at` for shape k: Marsaglia and
/// Tsang's d = k - 1/3 (k + 1 - 1/3 for k < 1) and 1 / sqrt(9 d) computed in f64 and rounded
/// to f32 here (WGSL's sqrt and division are not correctly rounded), 1 / k, and the boost
/// flag; the f32 values as bits.
fn gamma_words(k: f64) -> [u32; 4] {
    let boost = k < 1.0;
    let d = (if boost { k + 1.0 } else { k } - 1.0 / 3.0) as f32;
    let c = (1.0 / (9.0 * d as f64).sqrt()) as f32;
    [
        d.to_bits(),
        c.to_bits(),
        ((1.0 / k) as f32).to_bits(),
        boost as u32,
    ]
}

impl Generator {
    /// Draws `shape` elements with kernel `entry` of shaders/distributions.wgsl, `words`
    /// bound as its `table`.
    fn draw_params<O: crate::dtype::Element>(
        &mut self,
        entry: &'static str,
        shape: Shape,
        p: GenParams,
        words: &[u32],
    ) -> Result<Array<O>> {
        let table = self.dev.from_slice(words, [words.len()])?;
        self.draw_with(
            Family::Distributions,
            entry,
            shape,
            4,
            p,
            &[table.binding()],
        )
    }

    /// Draws `shape` elements of the table's distribution, one Philox word each.
    fn invert(&mut self, shape: Shape, t: &InversionTable) -> Result<Array<i32>> {
        let p = GenParams {
            ints: [t.k0, t.thresholds as u32],
            flag: t.guide_bits,
            ..Default::default()
        };
        self.draw_params("gen_inversion", shape, p, &t.words)
    }

    /// Poisson counts of mean `lam` (NumPy's `poisson`; `i32` where NumPy gives int64), by
    /// inversion: element i is the count whose cumulative probability interval holds its
    /// Philox word w / 2^32 (word i % 4 of the draw's block i / 4). The table of cumulative
    /// probabilities is computed on the host in f64 (p(k + 1) = p(k) lam / (k + 1) from the
    /// mode outwards, to where the tail mass is below 2^-40) and rounded to multiples of
    /// 2^-32, so each count's probability is within 2^-32 of the exact one; the word is
    /// compared in integers, and the table uses no log or exp: the same bits on every
    /// adapter. One word per element, about two table reads (a guide table indexes the
    /// thresholds); the table holds about 16 sqrt(lam) + 20 thresholds.
    ///
    /// # Errors
    /// [`crate::Error::InvalidArgument`] unless 0 <= lam <= 1e7; [`crate::Error::OutOfMemory`].
    ///
    /// ```
    /// # let dev = gpuarray::Device::new()?;
    /// let mut rng = dev.default_rng(4);
    /// let k = rng.poisson([1000], 3.5)?.to_vec()?;
    /// assert!(k.iter().all(|&x| x >= 0));
    /// assert!(rng.poisson([1], -1.0).is_err());
    /// # Ok::<(), gpuarray::Error>(())
    /// ```
    pub fn poisson(&mut self, shape: impl Into<Shape>, lam: f64) -> Result<Array<i32>> {
        check(
            (0.0..=MAX_LAM).contains(&lam),
            "poisson",
            "needs 0 <= lam <= 1e7",
        )?;
        self.invert(shape.into(), &poisson_table(lam))
    }

    /// Binomial counts of `n` trials of probability `p` (`i32`), by inversion of a table of
    /// cumulative probabilities as [`Generator::poisson`] (p(k + 1) = p(k) (n - k) p / ((k +
    /// 1)(1 - p)) from the mode floor((n + 1) p) outwards): one Philox word per element, each
    /// count's probability within 2^-32 of the exact one, the same bits on every adapter.
    /// n stays below 2^24 (the table holds about 16 sqrt(n p (1 - p)) + 20 thresholds).
    ///
    /// # Errors
    /// [`crate::Error::InvalidArgument`] unless 0 <= p <= 1 and n < 2^24;
    /// [`crate::Error::OutOfMemory`].
    ///
    /// ```
    /// # let dev = gpuarray::Device::new()?;
    /// let mut rng = dev.default_rng(4);
    /// let k = rng.binomial([1000], 10, 0.3)?.to_vec()?;
    /// assert!(k.iter().all(|&x| (0..=10).contains(&x)));
    /// assert!(rng.binomial([1], 10, 1.5).is_err());
    /// # Ok::<(), gpuarray::Error>(())
    /// ```
    pub fn binomial(&mut self, shape: impl Into<Shape>, n: u32, p: f64) -> Result<Array<i32>> {
        check((0.0..=1.0).contains(&p), "binomial", "needs 0 <= p <= 1")?;
        check(n < 1 << 24, "binomial", "needs n < 2^24")?;
        self.invert(shape.into(), &binomial_table(n, p))
    }

    /// Gamma numbers of shape `k` and scale `scale` (mean k scale), by Marsaglia and Tsang's
    /// method (2000) in f32, each try from the element's next private block (the loop stops
    /// after 256 tries, each accepted with probability above 0.95), boosted for k < 1 by
    /// U^(1/k). The same bits on every adapter: d = k - 1/3 and 1 / sqrt(9 d) are computed
    /// on the host, the normal and the log of the uniform are the integer ones of
    /// [`Device::random_normal`] and [`Generator::exponential`], ln v is built from the same
    /// integer -ln, U^(1/k) from it and an integer 2^-x, and every other step is one
    /// IEEE-rounded f32 operation (f16 rounds the result in integers). Results below f32's
    /// normal range (k far below 1) are 0, or whatever an adapter that flushes subnormals
    /// makes of a product that lands there.
    ///
    /// # Errors
    /// [`crate::Error::InvalidArgument`] unless 0 < k <= f32::MAX and 0 <= scale <= f32::MAX
    /// (NaN fails); else as [`Generator::random`].
    ///
    /// ```
    /// # let dev = gpuarray::Device::new()?;
    /// let mut rng = dev.default_rng(4);
    /// let g = rng.gamma::<f32>([1000], 2.0, 3.0)?.to_vec()?;
    /// assert!(g.iter().all(|&x| x > 0.0));
    /// assert!(rng.gamma::<f32>([1], 0.0, 1.0).is_err());
    /// # Ok::<(), gpuarray::Error>(())
    /// ```
    pub fn gamma<T: Float>(&mut self, shape: impl Into<Shape>, k: T, scale: T) -> Result<Array<T>> {
        let (k, s) = (k.to_f64(), scale.to_f64());
        check(
            k > 0.0 && k <= MAX_F32 && (0.0..=MAX_F32).contains(&s),
            "gamma",
            "needs 0 < shape <= f32::MAX and 0 <= scale <= f32::MAX",
        )?;
        let p = GenParams {
            floats: [s as f32 as f64, 0.0],
            ..Default::default()
        };
        self.draw_params("gen_gamma", shape.into(), p, &gamma_words(k))
    }

    /// Beta numbers of parameters `a` and `b`: X / (X + Y) of two gammas of shapes a and b
    /// as [`Generator::gamma`] (Y from the second half of the element's private stream), the
    /// division correctly rounded in integers (WGSL's may be off by 2.5 ulps): the same bits
    /// on every adapter. For a and b both far below 1 both gammas can underflow to 0, giving
    /// NaN (NumPy uses Jöhnk's algorithm there; not yet here).
    ///
    /// # Errors
    /// [`crate::Error::InvalidArgument`] unless 0 < a, b <= f32::MAX (NaN fails); else as
    /// [`Generator::random`].
    ///
    /// ```
    /// # let dev = gpuarray::Device::new()?;
    /// let mut rng = dev.default_rng(4);
    /// let x = rng.beta::<f32>([1000], 2.0, 5.0)?.to_vec()?;
    /// assert!(x.iter().all(|&v| (0.0..=1.0).contains(&v)));
    /// assert!(rng.beta::<f32>([1], 1.0, -1.0).is_err());
    /// # Ok::<(), gpuarray::Error>(())
    /// ```
    pub fn beta<T: Float>(&mut self, shape: impl Into<Shape>, a: T, b: T) -> Result<Array<T>> {
        let (a, b) = (a.to_f64(), b.to_f64());
        check(
            a > 0.0 && b > 0.0 && a <= MAX_F32 && b <= MAX_F32,
            "beta",
            "needs 0 < a, b <= f32::MAX",
        )?;
        let words = [gamma_words(a), gamma_words(b)].concat();
        self.draw_params("gen_beta", shape.into(), GenParams::default(), &words)
    }
}
