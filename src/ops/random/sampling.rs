//! [`Generator`] sampling: `choice` (with and without replacement, with weights),
//! `permutation` and `shuffle`, built from the generator's draws and the sort and scan
//! modules; rows are picked by the `gen_gather` kernel of shaders/generator.wgsl.

use crate::array::Array;
use crate::dtype::{Element, Float};
use crate::error::Result;
use crate::ops::index::widen;
use crate::ops::sort::Side;
use crate::shape::Shape;

use super::generator::{check, launch, Family, GenParams, Generator};

/// Rows `idx` of `a` along axis 0 (a private gather until the indexing module's `take`).
fn gather_rows<T: Element>(a: &Array<T>, idx: &Array<u32>) -> Result<Array<T>> {
    let a = a.contiguous()?;
    let idx = idx.contiguous()?;
    let inner: usize = a.shape()[1..].iter().product();
    let mut shape = vec![idx.len()];
    shape.extend_from_slice(&a.shape()[1..]);
    let out = Array::<T>::alloc(a.device(), "gather_rows", shape)?;
    if out.is_empty() {
        return Ok(out);
    }
    let p = GenParams {
        items: out.len() as u32,
        counter: idx.offset as u64, // the gather's index array start
        ints: [inner as u32, a.offset as u32],
        ..Default::default()
    };
    launch::<T>(
        a.device(),
        Family::Generator,
        "gen_gather",
        &p,
        &[a.binding(), idx.binding()],
        out.binding(),
    )?;
    Ok(out)
}

impl Generator {
    /// The 32-bit words of the next blocks, `n` of them.
    fn words(&mut self, n: usize) -> Result<Array<u32>> {
        let p = GenParams {
            ints: [0, 0], // low 0, the whole 32-bit range
            ..Default::default()
        };
        self.draw(Family::Generator, "gen_integers", Shape(vec![n]), 4, p)
    }

    /// A random permutation of 0..n (`u32`): the stable argsort of n random words (so two
    /// equal words, probability about n² / 2^33, keep their index order).
    ///
    /// # Errors
    /// [`crate::Error::InvalidArgument`] when n exceeds u32's range; [`crate::Error::OutOfMemory`].
    ///
    /// ```
    /// # let dev = gpuarray::Device::new()?;
    /// let mut p = dev.default_rng(9).permutation(10)?.to_vec()?;
    /// p.sort();
    /// assert_eq!(p, (0..10).collect::<Vec<i64>>());
    /// # Ok::<(), gpuarray::Error>(())
    /// ```
    pub fn permutation(&mut self, n: usize) -> Result<Array<i64>> {
        widen(&self.permutation_u32(n)?, false)
    }

    /// [`Generator::permutation`] as u32 indices (for the row gathers).
    fn permutation_u32(&mut self, n: usize) -> Result<Array<u32>> {
        check(n <= u32::MAX as usize, "permutation", "needs n < 2^32")?;
        self.words(n)?.argsort_u32(-1)
    }

    /// A copy of `a` with its rows (axis 0) in the order of [`Generator::permutation`]
    /// (NumPy's `permutation(x)` for an array).
    ///
    /// # Errors
    /// [`crate::Error::InvalidArgument`] for a 0-d array; as [`Generator::permutation`].
    ///
    /// ```
    /// # let dev = gpuarray::Device::new()?;
    /// let a = dev.arange::<f32>(0.0, 6.0, 1.0)?.reshape([3, 2])?;
    /// let p = dev.default_rng(9).permuted(&a)?;
    /// assert_eq!(p.shape(), &[3, 2]);
    /// assert_eq!(p.sum()?.to_scalar()?, 15.0);
    /// # Ok::<(), gpuarray::Error>(())
    /// ```
    pub fn permuted<T: Element>(&mut self, a: &Array<T>) -> Result<Array<T>> {
        check(
            a.ndim() > 0,
            "permuted",
            "needs an array of 1 or more dimensions",
        )?;
        let idx = self.permutation_u32(a.shape()[0])?;
        gather_rows(a, &idx)
    }

    /// Shuffles the rows (axis 0) of `a`: `*a` becomes [`Generator::permuted`] of it, a new
    /// array (other views of the old buffer keep the old order).
    ///
    /// # Errors
    /// As [`Generator::permuted`]; `a` is left as it was.
    ///
    /// ```
    /// # let dev = gpuarray::Device::new()?;
    /// let mut a = dev.arange::<i32>(0, 5, 1)?;
    /// dev.default_rng(9).shuffle(&mut a)?;
    /// let mut v = a.to_vec()?;
    /// v.sort();
    /// assert_eq!(v, vec![0, 1, 2, 3, 4]);
    /// # Ok::<(), gpuarray::Error>(())
    /// ```
    pub fn shuffle<T: Element>(&mut self, a: &mut Array<T>) -> Result<()> {
        *a = self.permuted(a)?;
        Ok(())
    }

    /// `size` indices drawn from 0..n (`i64`, NumPy's `choice(n, size, replace)`): with
    /// replacement, [`Generator::integers`] in [0, n); without, the first `size` of
    /// [`Generator::permutation`] of n (which sorts n words whatever `size` is).
    ///
    /// # Errors
    /// [`crate::Error::InvalidArgument`] when n is 0 (and size is not), n exceeds 2^32, or, without
    /// replacement, size exceeds n; [`crate::Error::OutOfMemory`].
    ///
    /// ```
    /// # let dev = gpuarray::Device::new()?;
    /// let mut rng = dev.default_rng(9);
    /// let c = rng.choice(5, 3, false)?.to_vec()?;
    /// assert!(c[0] != c[1] && c[1] != c[2] && c[0] != c[2] && c.iter().all(|&i| i < 5));
    /// assert!(rng.choice(5, 6, false).is_err());
    /// # Ok::<(), gpuarray::Error>(())
    /// ```
    pub fn choice(&mut self, n: usize, size: usize, replace: bool) -> Result<Array<i64>> {
        widen(&self.choice_u32(n, size, replace)?, false)
    }

    /// [`Generator::choice`] as u32 indices (for the row gathers).
    fn choice_u32(&mut self, n: usize, size: usize, replace: bool) -> Result<Array<u32>> {
        check(n > 0 || size == 0, "choice", "needs n > 0 to draw from")?;
        check(n <= 1 << 32, "choice", "needs n <= 2^32")?;
        check(
            replace || size <= n,
            "choice",
            "needs size <= n without replacement",
        )?;
        if replace || size == 0 {
            let p = GenParams {
                ints: [0, n as u32], // 2^32 wraps to 0: the whole range
                ..Default::default()
            };
            return self.draw(Family::Generator, "gen_integers", Shape(vec![size]), 4, p);
        }
        self.permutation_u32(n)?
            .slice_axis(0, 0..size)?
            .contiguous()
    }

    /// `size` rows of `a` (axis 0) drawn as [`Generator::choice`] draws indices.
    ///
    /// # Errors
    /// As [`Generator::choice`]; [`crate::Error::InvalidArgument`] for a 0-d array.
    ///
    /// ```
    /// # let dev = gpuarray::Device::new()?;
    /// let a = dev.from_slice(&[10i32, 20, 30], [3])?;
    /// let c = dev.default_rng(9).choice_from(&a, 5, true)?.to_vec()?;
    /// assert!(c.iter().all(|x| [10, 20, 30].contains(x)));
    /// # Ok::<(), gpuarray::Error>(())
    /// ```
    pub fn choice_from<T: Element>(
        &mut self,
        a: &Array<T>,
        size: usize,
        replace: bool,
    ) -> Result<Array<T>> {
        check(
            a.ndim() > 0,
            "choice_from",
            "needs an array of 1 or more dimensions",
        )?;
        let idx = self.choice_u32(a.shape()[0], size, replace)?;
        gather_rows(a, &idx)
    }

    /// `size` indices into the 1-D weights `p` (any non-negative scale; NumPy's
    /// `choice(len(p), size, replace, p=p / p.sum())`). With replacement: the cumulative sum
    /// of `p` searched (right side) for uniforms times its last element. Without: the `size`
    /// smallest keys E_i / p_i, E_i exponential (Efraimidis and Spirakis), in order; zero
    /// weights are never drawn. The weights are checked on the host (a read of their
    /// minimum, sum and non-zero count).
    ///
    /// # Errors
    /// [`crate::Error::InvalidArgument`] unless `p` is 1-D and non-empty with finite weights >= 0
    /// and a positive sum, and, without replacement, `size` at most its non-zero count;
    /// else as [`Generator::random`].
    ///
    /// ```
    /// # let dev = gpuarray::Device::new()?;
    /// let mut rng = dev.default_rng(9);
    /// let p = dev.from_slice(&[0.0f32, 1.0, 3.0], [3])?;
    /// let c = rng.choice_weighted(&p, 100, true)?.to_vec()?;
    /// assert!(c.iter().all(|&i| i == 1 || i == 2));
    /// assert!(rng.choice_weighted(&p, 3, false).is_err()); // only two non-zero weights
    /// # Ok::<(), gpuarray::Error>(())
    /// ```
    pub fn choice_weighted<T: Float>(
        &mut self,
        p: &Array<T>,
        size: usize,
        replace: bool,
    ) -> Result<Array<i64>> {
        widen(&self.choice_weighted_u32(p, size, replace)?, false)
    }

    /// [`Generator::choice_weighted`] as u32 indices (for the row gathers).
    fn choice_weighted_u32<T: Float>(
        &mut self,
        p: &Array<T>,
        size: usize,
        replace: bool,
    ) -> Result<Array<u32>> {
        const OP: &str = "choice_weighted";
        check(
            p.ndim() == 1 && !p.is_empty(),
            OP,
            "needs non-empty 1-D weights",
        )?;
        check(
            p.len() <= u32::MAX as usize,
            OP,
            "needs fewer than 2^32 weights",
        )?;
        let (min, sum) = (
            p.min()?.to_scalar()?.to_f64(),
            p.sum()?.to_scalar()?.to_f64(),
        );
        check(
            min >= 0.0 && sum.is_finite() && sum > 0.0,
            OP,
            "needs finite weights >= 0 with a positive sum",
        )?;
        if size == 0 {
            return p.device().zeros::<u32>([0]);
        }
        if !replace {
            check(
                size <= p.count_nonzero()?,
                OP,
                "needs size <= the non-zero weights without replacement",
            )?;
            let keys = self.exponential::<T>([p.len()], T::one())?.div(p)?;
            return Ok(keys.top_k_u32(size, 0, false)?.1);
        }
        let cdf = p.cumsum(0)?;
        let total = cdf.slice_axis(0, p.len() - 1..p.len())?.to_scalar()?;
        let q = self.random::<T>([size])?.mul_scalar(total)?;
        cdf.searchsorted_u32(&q, Side::Right)?
            .minimum_scalar(p.len() as u32 - 1)
    }

    /// `size` rows of `a` (axis 0) drawn with the weights `p`, one a row, as
    /// [`Generator::choice_weighted`] draws indices (NumPy's `choice(a, size, replace, p)`).
    ///
    /// # Errors
    /// [`crate::Error::InvalidArgument`] for a 0-d `a` or unless `p` has one weight per row of `a`;
    /// as [`Generator::choice_weighted`].
    ///
    /// ```
    /// # let dev = gpuarray::Device::new()?;
    /// let a = dev.from_slice(&[10i32, 20, 30], [3])?;
    /// let p = dev.from_slice(&[1.0f32, 0.0, 1.0], [3])?;
    /// let mut rng = dev.default_rng(9);
    /// let c = rng.choice_from_weighted(&a, &p, 8, true)?.to_vec()?;
    /// assert!(c.iter().all(|&x| x == 10 || x == 30));
    /// assert!(rng.choice_from_weighted(&a, &p.slice_axis(0, 0..2)?, 1, true).is_err());
    /// # Ok::<(), gpuarray::Error>(())
    /// ```
    pub fn choice_from_weighted<T: Element, W: Float>(
        &mut self,
        a: &Array<T>,
        p: &Array<W>,
        size: usize,
        replace: bool,
    ) -> Result<Array<T>> {
        const OP: &str = "choice_from_weighted";
        check(a.ndim() > 0, OP, "needs an array of 1 or more dimensions")?;
        check(p.len() == a.shape()[0], OP, "needs one weight per row")?;
        let idx = self.choice_weighted_u32(p, size, replace)?;
        gather_rows(a, &idx)
    }
}
