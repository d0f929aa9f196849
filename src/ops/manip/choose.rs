//! NumPy's `choose` and `select` (composed of comparisons and [`Array::where_`], one
//! comparison and one `where` per choice) and `ix_` (views, no copy).

use crate::array::Array;
use crate::dtype::Element;
use crate::error::{Error, Result};
use crate::shape::broadcast_shapes;

impl Array<i32> {
    /// NumPy's `choose` (mode `raise`): element `i` of the result is element `i` of
    /// `choices[self[i]]`, with `self` and every choice broadcast together.
    ///
    /// # Errors
    /// [`Error::InvalidArgument`] for no choices; [`Error::IndexOutOfRange`] for an index
    /// outside `[0, choices.len())` (checked by a reduction of `self` read back, so this
    /// call synchronizes); [`Error::ShapeMismatch`] when the shapes do not broadcast
    /// together; [`Error::DeviceMismatch`] for arrays of another device.
    ///
    /// ```
    /// # let dev = gpuarray::Device::new()?;
    /// let which = dev.from_slice(&[2i32, 0, 1, 0], [4])?;
    /// let a = dev.from_slice(&[1.0f32, 2.0, 3.0, 4.0], [4])?;
    /// let b = dev.from_slice(&[10.0f32], [1])?;
    /// let c = dev.from_slice(&[-1.0f32, -2.0, -3.0, -4.0], [4])?;
    /// assert_eq!(which.choose(&[&a, &b, &c])?.to_vec()?, vec![-1.0, 2.0, 10.0, 4.0]);
    /// assert!(which.choose(&[&a, &b]).is_err());
    /// # Ok::<(), gpuarray::Error>(())
    /// ```
    pub fn choose<T: Element>(&self, choices: &[&Array<T>]) -> Result<Array<T>> {
        let Some((&last, rest)) = choices.split_last() else {
            return Err(Error::InvalidArgument {
                op: "choose",
                reason: "no choices",
            });
        };
        let devs: Vec<_> = choices.iter().map(|c| &c.dev).collect();
        self.dev.expect_same("choose", &devs)?;
        let mut shape = self.shape.clone();
        for c in choices {
            shape = broadcast_shapes("choose", &shape, &c.shape)?;
        }
        if !self.is_empty() {
            let lo = self.min()?.to_scalar()?;
            let hi = self.max()?.to_scalar()?;
            if lo < 0 || hi as usize >= choices.len() {
                return Err(Error::IndexOutOfRange {
                    op: "choose",
                    axis: 0,
                    len: choices.len(),
                });
            }
        }
        let mut out = last.broadcast_to(shape.clone())?;
        if rest.is_empty() {
            return out.copy();
        }
        for (k, c) in rest.iter().enumerate().rev() {
            out = Array::where_(&self.eq_scalar(k as i32)?, c, &out)?;
        }
        Ok(out)
    }
}

impl<T: Element> Array<T> {
    /// NumPy's `select`: where `conditions[0]` holds, `choices[0]`; else where
    /// `conditions[1]` holds, `choices[1]`; ...; else `default`. Every array is broadcast
    /// together.
    ///
    /// # Errors
    /// [`Error::InvalidArgument`] for no conditions, or as many conditions as choices;
    /// [`Error::ShapeMismatch`] when the shapes do not broadcast together;
    /// [`Error::DeviceMismatch`] for arrays of another device.
    ///
    /// ```
    /// use gpuarray::Array;
    /// # let dev = gpuarray::Device::new()?;
    /// let x = dev.from_slice(&[-2i32, 0, 3, 7], [4])?;
    /// let (neg, big) = (x.lt_scalar(0)?, x.gt_scalar(5)?);
    /// let minus = x.neg()?;
    /// let ten = dev.from_slice(&[10i32], [1])?;
    /// let y = Array::select(&[&neg, &big], &[&minus, &ten], -1)?;
    /// assert_eq!(y.to_vec()?, vec![2, -1, -1, 10]);
    /// # Ok::<(), gpuarray::Error>(())
    /// ```
    pub fn select(
        conditions: &[&Array<bool>],
        choices: &[&Array<T>],
        default: T,
    ) -> Result<Array<T>> {
        if conditions.is_empty() || conditions.len() != choices.len() {
            return Err(Error::InvalidArgument {
                op: "select",
                reason: "one choice per condition, and at least one condition",
            });
        }
        let dev = &choices[0].dev;
        let devs: Vec<_> = conditions.iter().map(|c| &c.dev).collect();
        dev.expect_same("select", &devs)?;
        let mut shape = Vec::new();
        for s in conditions
            .iter()
            .map(|c| &c.shape)
            .chain(choices.iter().map(|c| &c.shape))
        {
            shape = broadcast_shapes("select", &shape, s)?;
        }
        let mut out = dev.full(shape, default)?;
        for (c, x) in conditions.iter().zip(choices).rev() {
            out = Array::where_(c, x, &out)?;
        }
        Ok(out)
    }

    /// NumPy's `ix_`: an open mesh of the 1-D `arrays`. Result `k` is a view of `arrays[k]`
    /// with shape 1 along every axis but `k`, so that indexing or arithmetic with the
    /// results broadcasts them to the outer product of the arrays' shapes. (NumPy also
    /// takes boolean masks, as their `nonzero`: pass those through `Array::nonzero`.)
    ///
    /// # Errors
    /// [`Error::InvalidArgument`] when an array is not 1-D.
    ///
    /// ```
    /// use gpuarray::Array;
    /// # let dev = gpuarray::Device::new()?;
    /// let rows = dev.from_slice(&[0.0f32, 10.0], [2])?;
    /// let cols = dev.from_slice(&[1.0f32, 2.0, 3.0], [3])?;
    /// let m = Array::ix_(&[&rows, &cols])?;
    /// assert_eq!((m[0].shape(), m[1].shape()), (&[2, 1][..], &[1, 3][..]));
    /// assert_eq!(m[0].add(&m[1])?.to_vec()?, vec![1.0, 2.0, 3.0, 11.0, 12.0, 13.0]);
    /// # Ok::<(), gpuarray::Error>(())
    /// ```
    pub fn ix_(arrays: &[&Array<T>]) -> Result<Vec<Array<T>>> {
        let n = arrays.len();
        arrays
            .iter()
            .enumerate()
            .map(|(k, a)| {
                if a.ndim() != 1 {
                    return Err(Error::InvalidArgument {
                        op: "ix_",
                        reason: "every array must be 1-D",
                    });
                }
                let mut shape = vec![1; n];
                let mut strides = vec![0; n];
                shape[k] = a.shape[0];
                strides[k] = a.strides[0];
                Ok(a.view(shape, strides, a.offset))
            })
            .collect()
    }
}
