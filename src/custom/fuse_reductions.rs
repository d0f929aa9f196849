//! The reductions of a fused expression ([`Var::sum`] and the others): nodes that
//! `fused_reduce` evaluates in one kernel. A child module of `fuse`.

#[cfg(doc)]
use crate::array::Array;

use super::{push, Node, Reduction, Var};
use crate::shape::Axes;

impl Var {
    fn reduce(self, r: Reduction, axis: Axes, keepdims: bool) -> Var {
        push(Node::Reduce(r, (axis, keepdims), self))
    }

    /// The sum over every element, as `cupy.sum` inside `cupy.fuse`: the expression is
    /// evaluated inside the reduction's load, one kernel in all (a second, over partial
    /// results, where more than 4096 elements per output are split over workgroups). Only
    /// as the outermost operation, as the other reductions.
    ///
    /// The result is that of [`Array::sum`] of the elementwise result, accumulated in the
    /// same type (f32 for f16) in another fixed order: integer sums (wrapping) and the
    /// extremes are the same bits; float sums and means are within K · eps · Σ|v| of the
    /// exact sum of the K values, the same bits on every run. Over no elements a sum is 0,
    /// a product 1, a mean NaN, and [`Var::max`] and [`Var::min`] are an error, as the
    /// methods.
    ///
    /// ```
    /// use gpuarray::custom::fuse;
    /// # let dev = gpuarray::Device::new()?;
    /// let sq_dist = fuse(&dev, |[x, y]| ((x - y) * (x - y)).sum())?;
    /// let x = dev.from_slice(&[1.0f32, 2.0, 3.0], [3])?;
    /// let y = dev.from_slice(&[0.0f32], [1])?;
    /// assert_eq!(sq_dist.call::<f32>(&[&x, &y])?.to_scalar()?, 14.0);
    /// # Ok::<(), gpuarray::Error>(())
    /// ```
    pub fn sum(self) -> Var {
        self.reduce(Reduction::Sum, Axes::All, false)
    }
    /// The sum along `axis` (one, several or all: see [`Axes`]; negative counts from the
    /// end); `keepdims` keeps the reduced axes, with extent 1. As [`Var::sum`].
    ///
    /// ```
    /// use gpuarray::custom::fuse;
    /// # let dev = gpuarray::Device::new()?;
    /// let row_sums = fuse(&dev, |[x]| (x * 2.0).sum_axis(-1, false))?;
    /// let x = dev.from_slice(&[1.0f32, 2.0, 3.0, 4.0, 5.0, 6.0], [2, 3])?;
    /// assert_eq!(row_sums.call::<f32>(&[&x])?.to_vec()?, vec![12.0, 30.0]);
    /// # Ok::<(), gpuarray::Error>(())
    /// ```
    pub fn sum_axis(self, axis: impl Into<Axes>, keepdims: bool) -> Var {
        self.reduce(Reduction::Sum, axis.into(), keepdims)
    }
    /// The product of every element, as [`Array::prod`].
    ///
    /// ```
    /// use gpuarray::custom::fuse;
    /// # let dev = gpuarray::Device::new()?;
    /// let f = fuse(&dev, |[x]| (x + 1.0).prod())?;
    /// let x = dev.from_slice(&[1i32, 2, 3], [3])?;
    /// assert_eq!(f.call::<i32>(&[&x])?.to_scalar()?, 24);
    /// # Ok::<(), gpuarray::Error>(())
    /// ```
    pub fn prod(self) -> Var {
        self.reduce(Reduction::Prod, Axes::All, false)
    }
    /// The product along `axis`, as [`Var::sum_axis`].
    ///
    /// ```
    /// use gpuarray::custom::fuse;
    /// # let dev = gpuarray::Device::new()?;
    /// let f = fuse(&dev, |[x]| x.prod_axis(0, false))?;
    /// let x = dev.from_slice(&[1.0f64, 2.0, 3.0, 4.0], [2, 2])?;
    /// assert_eq!(f.call::<f64>(&[&x])?.to_vec()?, vec![3.0, 8.0]);
    /// # Ok::<(), gpuarray::Error>(())
    /// ```
    pub fn prod_axis(self, axis: impl Into<Axes>, keepdims: bool) -> Var {
        self.reduce(Reduction::Prod, axis.into(), keepdims)
    }
    /// The largest element, as [`Array::max`] (NaN if any is NaN; an error over none).
    ///
    /// ```
    /// use gpuarray::custom::fuse;
    /// # let dev = gpuarray::Device::new()?;
    /// let f = fuse(&dev, |[x, y]| (x - y).abs().max())?;
    /// let x = dev.from_slice(&[1.0f32, 5.0, 2.0], [3])?;
    /// let y = dev.from_slice(&[2.0f32, 1.0, 2.0], [3])?;
    /// assert_eq!(f.call::<f32>(&[&x, &y])?.to_scalar()?, 4.0);
    /// # Ok::<(), gpuarray::Error>(())
    /// ```
    pub fn max(self) -> Var {
        self.reduce(Reduction::Max, Axes::All, false)
    }
    /// The largest element along `axis`, as [`Var::sum_axis`].
    ///
    /// ```
    /// use gpuarray::custom::fuse;
    /// # let dev = gpuarray::Device::new()?;
    /// let f = fuse(&dev, |[x]| x.abs().max_axis(1, false))?;
    /// let x = dev.from_slice(&[1.0f32, -5.0, 2.0, 3.0], [2, 2])?;
    /// assert_eq!(f.call::<f32>(&[&x])?.to_vec()?, vec![5.0, 3.0]);
    /// # Ok::<(), gpuarray::Error>(())
    /// ```
    pub fn max_axis(self, axis: impl Into<Axes>, keepdims: bool) -> Var {
        self.reduce(Reduction::Max, axis.into(), keepdims)
    }
    /// The smallest element, as [`Array::min`].
    ///
    /// ```
    /// use gpuarray::custom::fuse;
    /// # let dev = gpuarray::Device::new()?;
    /// let f = fuse(&dev, |[x, y]| (x - y).min())?;
    /// let x = dev.from_slice(&[4u32, 9, 7], [3])?;
    /// let y = dev.from_slice(&[1u32], [1])?;
    /// assert_eq!(f.call::<u32>(&[&x, &y])?.to_scalar()?, 3);
    /// # Ok::<(), gpuarray::Error>(())
    /// ```
    pub fn min(self) -> Var {
        self.reduce(Reduction::Min, Axes::All, false)
    }
    /// The smallest element along `axis`, as [`Var::sum_axis`].
    ///
    /// ```
    /// use gpuarray::custom::fuse;
    /// # let dev = gpuarray::Device::new()?;
    /// let f = fuse(&dev, |[x]| x.min_axis(-2, false))?;
    /// let x = dev.from_slice(&[4.0f32, 1.0, 2.0, 8.0], [2, 2])?;
    /// assert_eq!(f.call::<f32>(&[&x])?.to_vec()?, vec![2.0, 1.0]);
    /// # Ok::<(), gpuarray::Error>(())
    /// ```
    pub fn min_axis(self, axis: impl Into<Axes>, keepdims: bool) -> Var {
        self.reduce(Reduction::Min, axis.into(), keepdims)
    }
    /// The mean of every element, as [`Array::mean`] (floats only).
    ///
    /// ```
    /// use gpuarray::custom::fuse;
    /// # let dev = gpuarray::Device::new()?;
    /// let f = fuse(&dev, |[x]| (x * x).mean())?;
    /// let x = dev.from_slice(&[1.0f32, 2.0, 3.0, 4.0], [4])?;
    /// assert_eq!(f.call::<f32>(&[&x])?.to_scalar()?, 7.5);
    /// # Ok::<(), gpuarray::Error>(())
    /// ```
    pub fn mean(self) -> Var {
        self.reduce(Reduction::Mean, Axes::All, false)
    }
    /// The mean along `axis`, as [`Var::sum_axis`] (floats only).
    ///
    /// ```
    /// use gpuarray::custom::fuse;
    /// # let dev = gpuarray::Device::new()?;
    /// let f = fuse(&dev, |[x]| x.mean_axis(1, false))?;
    /// let x = dev.from_slice(&[1.0f32, 3.0, 2.0, 6.0], [2, 2])?;
    /// assert_eq!(f.call::<f32>(&[&x])?.to_vec()?, vec![2.0, 4.0]);
    /// # Ok::<(), gpuarray::Error>(())
    /// ```
    pub fn mean_axis(self, axis: impl Into<Axes>, keepdims: bool) -> Var {
        self.reduce(Reduction::Mean, axis.into(), keepdims)
    }
}
