//! [`Generator`] draws by inversion or rejection: poisson, binomial, gamma and beta. Host side
//! of shaders/distributions.wgsl. Each element starts from its own word of its block and takes
//! what more it needs from its private stream, so rejection loops of different lengths leave
//! the result independent of the other elements. Computed with the adapter's f32 log, exp,
//! sqrt and division (the normals of gamma are the integer ones of rng_exact.wgsl): the same
//! distribution on every adapter, not the same bits (an acceptance test can fall either way
//! where an adapter's log differs in the last place).

use crate::array::Array;
use crate::dtype::Float;
use crate::error::Result;
use crate::shape::Shape;

use super::generator::{check, Family, GenParams, Generator};

/// The largest Poisson mean taken: f32 holds the integers near it exactly.
const MAX_LAM: f64 = 1.0e7;

impl Generator {
    /// Poisson counts of mean `lam` (NumPy's `poisson`; `i32` where NumPy gives int64): by
    /// inversion (sequential search from the element's word) for lam < 10, and for lam >= 10
    /// by Hörmann's transformed rejection with squeeze (PTRS, as NumPy), each try from the
    /// element's next private block; the loop stops after 256 tries (each accepted with
    /// probability above 0.85). Computed in f32: the inversion drops the mass beyond
    /// f32's resolution of the cumulative sum (below 1e-7 in all). The same distribution,
    /// not the same bits across adapters (it uses the adapter's f32 exp and log).
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
        let p = GenParams {
            floats: [lam, 0.0],
            ..Default::default()
        };
        self.draw(Family::Distributions, "gen_poisson", shape.into(), 4, p)
    }

    /// Binomial counts of `n` trials of probability `p` (`i32`). With q = min(p, 1 - p) (and
    /// n minus the count when p > 1/2): for n q >= 10 Hörmann's transformed rejection with
    /// squeeze (BTRS, 1993), each try from the element's next private block (the loop stops
    /// after 256 tries, each accepted with probability above 0.8), its acceptance test from
    /// Stirling's series written to keep f32's digits; below, the successes are counted by
    /// geometric gaps between them (about n q + 1 steps, the first from the element's word).
    /// In f32, hence n below 2^24. The same distribution, not the same bits across adapters
    /// (it uses the adapter's f32 log).
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
        let params = GenParams {
            ints: [n, 0],
            floats: [p, 0.0],
            ..Default::default()
        };
        self.draw(
            Family::Distributions,
            "gen_binomial",
            shape.into(),
            4,
            params,
        )
    }

    /// Gamma numbers of shape `k` and scale `scale` (mean k scale), by Marsaglia and Tsang's
    /// method (2000) with a boost U^(1/k) for k < 1, in f32; each try from the element's
    /// next private block; the loop stops after 256 tries (each accepted with probability
    /// above 0.95). The same distribution, not the same bits across adapters (the acceptance
    /// test and the boost use the adapter's f32 log and pow).
    ///
    /// # Errors
    /// [`crate::Error::InvalidArgument`] unless k > 0 and scale >= 0, both finite; else as
    /// [`Generator::random`].
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
            k > 0.0 && k.is_finite() && s >= 0.0 && s.is_finite(),
            "gamma",
            "needs a finite shape > 0 and a finite scale >= 0",
        )?;
        let p = GenParams {
            floats: [k, s],
            ..Default::default()
        };
        self.draw(Family::Distributions, "gen_gamma", shape.into(), 4, p)
    }

    /// Beta numbers of parameters `a` and `b`: X / (X + Y) of two gammas of shapes a and b
    /// (Y from the second half of the element's private stream), in f32. For a and b both
    /// far below 1 both gammas can underflow to 0, giving NaN (NumPy uses Jöhnk's algorithm
    /// there; not yet here). The same distribution, not the same bits across adapters, as
    /// [`Generator::gamma`].
    ///
    /// # Errors
    /// [`crate::Error::InvalidArgument`] unless a > 0 and b > 0, both finite; else as
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
            a > 0.0 && b > 0.0 && a.is_finite() && b.is_finite(),
            "beta",
            "needs finite a > 0 and b > 0",
        )?;
        let p = GenParams {
            floats: [a, b],
            ..Default::default()
        };
        self.draw(Family::Distributions, "gen_beta", shape.into(), 4, p)
    }
}
