//! Set membership and multi-key sorting composed from the sort family: `isin` / `in1d`
//! (sort the test set, binary search, compare) and `lexsort` (one stable argsort per key,
//! least significant first).

use crate::array::Array;
use crate::dtype::Real;
use crate::error::{Error, Result};
use crate::ops::index::{widen, IndexMode};

use super::Side;

impl<T: Real> Array<T> {
    /// Whether each element occurs in `test` (any shape), as a mask of this array's shape:
    /// NumPy's `isin(x, test)`. NaN is in no set (NaN != NaN), -0.0 equals 0.0. The test
    /// set is sorted, each element searched for (`searchsorted`) and compared with what it
    /// found.
    ///
    /// # Errors
    /// [`Error::DeviceMismatch`]; [`Error::Unsupported`] when the adapter lacks `T`.
    ///
    /// ```
    /// # let dev = gpuarray::Device::new()?;
    /// let x = dev.from_slice(&[1, 5, 2, 7], [2, 2])?;
    /// let set = dev.from_slice(&[7, 1, 3], [3])?;
    /// assert_eq!(x.isin(&set)?.to_vec()?, vec![true, false, false, true]);
    /// # Ok::<(), gpuarray::Error>(())
    /// ```
    pub fn isin(&self, test: &Array<T>) -> Result<Array<bool>> {
        super::accept(self, "isin")?;
        self.dev.expect_same("isin", &[&test.dev])?;
        if test.is_empty() || self.is_empty() {
            return self.dev.zeros::<bool>(self.shape.clone());
        }
        let sorted = test.ravel()?.sort()?;
        let flat = self.ravel()?;
        let at = sorted.searchsorted_u32(&flat, Side::Left)?;
        let found = sorted.take_mode(&at, 0, IndexMode::Clip)?;
        found.eq(&flat)?.reshape(self.shape.clone())
    }

    /// [`Array::isin`] of the flattened array, a 1-D mask: NumPy's `in1d`.
    ///
    /// # Errors
    /// As [`Array::isin`].
    ///
    /// ```
    /// # let dev = gpuarray::Device::new()?;
    /// let x = dev.from_slice(&[1.0f32, 2.0, 3.0, 4.0], [2, 2])?;
    /// let set = dev.from_slice(&[4.0f32, 2.0], [2])?;
    /// assert_eq!(x.in1d(&set)?.to_vec()?, vec![false, true, false, true]);
    /// # Ok::<(), gpuarray::Error>(())
    /// ```
    pub fn in1d(&self, test: &Array<T>) -> Result<Array<bool>> {
        super::accept(self, "in1d")?;
        self.ravel()?.isin(test)
    }

    /// The indices that sort by several 1-D keys of one length, the LAST key primary:
    /// NumPy's `lexsort(keys)`. Stable (ties keep their order); NaN sorts last in each key,
    /// as the sort's order. One stable argsort per key, from the first (least significant)
    /// to the last, each of the key gathered in the order so far.
    ///
    /// # Errors
    /// [`Error::InvalidArgument`] for no keys or keys that are not 1-D;
    /// [`Error::SizeMismatch`] for keys of different lengths; [`Error::DeviceMismatch`].
    ///
    /// ```
    /// use gpuarray::Array;
    /// # let dev = gpuarray::Device::new()?;
    /// let first = dev.from_slice(&[1, 5, 1, 4], [4])?; // the secondary key
    /// let last = dev.from_slice(&[9, 4, 0, 4], [4])?; // the primary key
    /// assert_eq!(Array::lexsort(&[&first, &last])?.to_vec()?, vec![2, 3, 1, 0]);
    /// # Ok::<(), gpuarray::Error>(())
    /// ```
    pub fn lexsort(keys: &[&Array<T>]) -> Result<Array<i64>> {
        let op = "lexsort";
        let first = keys.first().ok_or(Error::InvalidArgument {
            op,
            reason: "needs at least one key",
        })?;
        let devs: Vec<&crate::Device> = keys.iter().map(|k| &k.dev).collect();
        first.dev.expect_same(op, &devs)?;
        super::accept(first, op)?;
        for k in keys {
            if k.ndim() != 1 {
                return Err(Error::InvalidArgument {
                    op,
                    reason: "the keys must be 1-D",
                });
            }
            if k.len() != first.len() {
                return Err(Error::SizeMismatch {
                    shape: k.shape.clone(),
                    expected: first.len(),
                    actual: k.len(),
                });
            }
        }
        let mut order = first.argsort_u32(-1)?;
        for k in &keys[1..] {
            let step = k.take(&order, 0)?.argsort_u32(-1)?;
            order = order.take(&step, 0)?;
        }
        widen(&order, false)
    }
}
