//! The Generator on the CPU: its counter, its blocks and private streams, and the integer
//! draws (Lemire's method with redraws from the private stream), as src/ops/random/
//! generator.rs documents them.

use crate::common::philox::{mulhilo, philox};

/// The state of a `Generator`: the key and the blocks used.
#[derive(Debug, Clone)]
pub struct CpuGen {
    pub key: u64,
    pub counter: u64,
}

impl CpuGen {
    pub fn new(seed: u64) -> CpuGen {
        CpuGen {
            key: seed,
            counter: 0,
        }
    }

    fn key2(&self) -> [u32; 2] {
        [self.key as u32, (self.key >> 32) as u32]
    }

    /// Block c: counter [c low, c high, 0, 0].
    pub fn plain(&self, c: u64) -> [u32; 4] {
        philox([c as u32, (c >> 32) as u32, 0, 0], self.key2())
    }

    /// Block t of the private stream of element e of block c: [c low, c high, t, 1 + e].
    pub fn private(&self, c: u64, t: u32, e: u32) -> [u32; 4] {
        philox([c as u32, (c >> 32) as u32, t, 1 + e], self.key2())
    }

    /// Calls `f(block counter, element in block)` for n elements, `per` a block, and
    /// advances the counter past the blocks.
    pub fn each<R>(
        &mut self,
        n: usize,
        per: usize,
        mut f: impl FnMut(&Self, u64, usize) -> R,
    ) -> Vec<R> {
        let out = (0..n)
            .map(|i| f(self, self.counter + (i / per) as u64, i % per))
            .collect();
        self.counter += n.div_ceil(per) as u64;
        out
    }

    /// Lemire's method on word x for range r (0 = 2^32), redraws from word 0 of the
    /// element's private blocks 0, 1, ... (at most 64).
    pub fn bounded(&self, x: u32, r: u32, c: u64, e: usize) -> u32 {
        if r == 0 {
            return x;
        }
        let (mut hi, mut lo) = mulhilo(x, r);
        if lo < r {
            let t = r.wrapping_neg() % r;
            let mut k = 0;
            while lo < t && k < 64 {
                (hi, lo) = mulhilo(self.private(c, k, e as u32)[0], r);
                k += 1;
            }
        }
        hi
    }

    /// `integers(n, low, low + r)` as bits: low + bounded(word).
    pub fn integers(&mut self, n: usize, low: u32, r: u32) -> Vec<u32> {
        self.each(n, 4, |g, c, e| {
            low.wrapping_add(g.bounded(g.plain(c)[e], r, c, e))
        })
    }

    /// f32 uniforms: the word's top 24 bits times 2^-24.
    pub fn random_f32(&mut self, n: usize) -> Vec<f32> {
        self.each(n, 4, |g, c, e| {
            (g.plain(c)[e] >> 8) as f32 / (1u32 << 24) as f32
        })
    }

    /// f64 uniforms: 27 + 26 bits of words 2e and 2e + 1, 2 a block.
    pub fn random_f64(&mut self, n: usize) -> Vec<f64> {
        self.each(n, 2, |g, c, e| {
            let w = g.plain(c);
            ((w[2 * e] >> 5) as f64 * 67_108_864.0 + (w[2 * e + 1] >> 6) as f64)
                / (1u64 << 53) as f64
        })
    }

    /// `permutation(n)`: the stable argsort of n words.
    pub fn permutation(&mut self, n: usize) -> Vec<u32> {
        let w = self.integers(n, 0, 0);
        let mut idx: Vec<u32> = (0..n as u32).collect();
        idx.sort_by_key(|&i| (w[i as usize], i));
        idx
    }
}
