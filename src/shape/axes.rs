//! [`Axes`]: the one axis argument of every function that takes axes (NumPy's `axis=`).

use std::ops::RangeFull;

use super::Axis;
use crate::error::{Error, Result};

/// Which axes an operation works along: every axis, one, or several, negative axes
/// counted from the end (-1 is the last), as NumPy's `axis=` argument.
///
/// Every function that takes axes takes `impl Into<Axes>`, so an integer, an array or a
/// vector of integers, an [`Axis`], `..` (all axes: NumPy's `axis=None`) or an
/// `Option<isize>` (`None` is all axes) all work:
///
/// ```
/// use gpuarray::Axes;
/// # let dev = gpuarray::Device::new()?;
/// let x = dev.from_slice(&[1.0f32, 2.0, 3.0, 4.0, 5.0, 6.0], [1, 2, 3])?;
/// assert_eq!(x.sum_axis(-1, false)?.to_vec()?, vec![6.0, 15.0]);
/// assert_eq!(x.sum_axis([0, 2], true)?.shape(), &[1, 2, 1]);
/// assert_eq!(x.sum_axis(.., false)?.to_scalar()?, 21.0);
/// assert_eq!(Axes::from(vec![2usize, 0]).resolve(3, "sum")?, vec![0, 2]);
/// # Ok::<(), gpuarray::Error>(())
/// ```
#[derive(Debug, Clone, PartialEq, Eq, Hash, Default)]
pub enum Axes {
    /// Every axis (NumPy's `axis=None`; for functions along one axis, the flattened array).
    #[default]
    All,
    /// One axis; negative counts from the end.
    One(isize),
    /// Several axes, in any order; negative count from the end.
    Many(Vec<isize>),
}

/// `axis` (negative counts from the end) checked against `ndim`.
pub(crate) fn resolve_axis(axis: isize, ndim: usize) -> Result<usize> {
    let a = if axis < 0 { axis + ndim as isize } else { axis };
    if a < 0 || a >= ndim as isize {
        return Err(Error::AxisOutOfRange { axis, ndim });
    }
    Ok(a as usize)
}

impl Axes {
    /// The axes of an array of `ndim` dimensions, each counted from the front, sorted and
    /// once each (`All` gives `0..ndim`). `op` names the function in errors.
    ///
    /// # Errors
    /// [`Error::AxisOutOfRange`] for an axis not in `-ndim..ndim`;
    /// [`Error::InvalidArgument`] for an axis listed twice (also as `1` and `-2` of 3).
    ///
    /// ```
    /// use gpuarray::Axes;
    /// assert_eq!(Axes::from([-1, 0]).resolve(3, "sum")?, vec![0, 2]);
    /// assert_eq!(Axes::from(..).resolve(2, "sum")?, vec![0, 1]);
    /// assert!(Axes::from(3).resolve(3, "sum").is_err());
    /// assert!(Axes::from([1, -2]).resolve(3, "sum").is_err());
    /// # Ok::<(), gpuarray::Error>(())
    /// ```
    pub fn resolve(&self, ndim: usize, op: &'static str) -> Result<Vec<usize>> {
        match self {
            Axes::All => Ok((0..ndim).collect()),
            Axes::One(a) => Ok(vec![resolve_axis(*a, ndim)?]),
            Axes::Many(list) => {
                let mut out = list
                    .iter()
                    .map(|&a| resolve_axis(a, ndim))
                    .collect::<Result<Vec<_>>>()?;
                out.sort_unstable();
                if out.windows(2).any(|w| w[0] == w[1]) {
                    return Err(Error::InvalidArgument {
                        op,
                        reason: "an axis is listed twice",
                    });
                }
                Ok(out)
            }
        }
    }

    /// The axes in the order given (no sorting: for moveaxis), each counted from the front;
    /// `All` is `0..ndim`.
    ///
    /// # Errors
    /// As [`Axes::resolve`].
    pub(crate) fn resolve_ordered(&self, ndim: usize, op: &'static str) -> Result<Vec<usize>> {
        let out = match self.raw() {
            None => (0..ndim).collect::<Vec<_>>(),
            Some(list) => list
                .iter()
                .map(|&a| resolve_axis(a, ndim))
                .collect::<Result<Vec<_>>>()?,
        };
        let mut sorted = out.clone();
        sorted.sort_unstable();
        if sorted.windows(2).any(|w| w[0] == w[1]) {
            return Err(Error::InvalidArgument {
                op,
                reason: "an axis is listed twice",
            });
        }
        Ok(out)
    }

    /// [`Axes::resolve`], with `None` for `All` (the whole array).
    pub(crate) fn resolve_opt(&self, ndim: usize, op: &'static str) -> Result<Option<Vec<usize>>> {
        match self {
            Axes::All => Ok(None),
            _ => self.resolve(ndim, op).map(Some),
        }
    }

    /// The one axis of a function that works along one axis, counted from the front;
    /// `None` for `All` (NumPy's `axis=None`, which such functions read as "flatten
    /// first"). A list of one axis is that axis.
    ///
    /// # Errors
    /// [`Error::AxisOutOfRange`] for an axis not in `-ndim..ndim`;
    /// [`Error::InvalidArgument`] naming `op` when several axes are given.
    ///
    /// ```
    /// use gpuarray::Axes;
    /// assert_eq!(Axes::from(-1).resolve_one(3, "cumsum")?, Some(2));
    /// assert_eq!(Axes::from(..).resolve_one(3, "cumsum")?, None);
    /// assert!(Axes::from([0, 1]).resolve_one(3, "cumsum").is_err());
    /// # Ok::<(), gpuarray::Error>(())
    /// ```
    pub fn resolve_one(&self, ndim: usize, op: &'static str) -> Result<Option<usize>> {
        match self {
            Axes::All => Ok(None),
            Axes::One(a) => resolve_axis(*a, ndim).map(Some),
            Axes::Many(list) => match list.as_slice() {
                [a] => resolve_axis(*a, ndim).map(Some),
                _ => Err(Error::InvalidArgument {
                    op,
                    reason: "it takes one axis, and several (or none) were given",
                }),
            },
        }
    }

    /// [`Axes::resolve_one`] for functions with no whole-array form (NumPy has no
    /// `axis=None` for them): `All` is an error too.
    pub(crate) fn resolve_single(&self, ndim: usize, op: &'static str) -> Result<usize> {
        self.resolve_one(ndim, op)?.ok_or(Error::InvalidArgument {
            op,
            reason: "it needs one axis, and all axes (`..` or None) were given",
        })
    }

    /// The axes as listed (`None` for `All`), not resolved.
    pub(crate) fn raw(&self) -> Option<Vec<isize>> {
        match self {
            Axes::All => None,
            Axes::One(a) => Some(vec![*a]),
            Axes::Many(list) => Some(list.clone()),
        }
    }
}

/// `shape` with extent-1 axes re-inserted at the reduced positions `axes` (sorted, counted
/// against the input's `ndim`): the result shape of a reduction with `keepdims`.
pub(crate) fn keepdims_shape(reduced: &[usize], axes: &[usize]) -> Vec<usize> {
    let ndim = reduced.len() + axes.len();
    let mut out = Vec::with_capacity(ndim);
    let mut it = reduced.iter();
    for d in 0..ndim {
        if axes.binary_search(&d).is_ok() {
            out.push(1);
        } else {
            out.push(*it.next().expect("reduced shape shorter than the kept axes"));
        }
    }
    out
}

impl From<RangeFull> for Axes {
    fn from(_: RangeFull) -> Self {
        Axes::All
    }
}
impl From<Axis> for Axes {
    fn from(a: Axis) -> Self {
        Axes::One(a.0 as isize)
    }
}
impl From<Option<isize>> for Axes {
    fn from(a: Option<isize>) -> Self {
        a.map_or(Axes::All, Axes::One)
    }
}
impl From<&Axes> for Axes {
    fn from(a: &Axes) -> Self {
        a.clone()
    }
}

macro_rules! axes_from {
    ($($t:ty),*) => {$(
        impl From<$t> for Axes {
            fn from(a: $t) -> Self {
                Axes::One(a as isize)
            }
        }
        impl<const N: usize> From<[$t; N]> for Axes {
            fn from(a: [$t; N]) -> Self {
                Axes::Many(a.iter().map(|&x| x as isize).collect())
            }
        }
        impl<const N: usize> From<&[$t; N]> for Axes {
            fn from(a: &[$t; N]) -> Self {
                Axes::Many(a.iter().map(|&x| x as isize).collect())
            }
        }
        impl From<&[$t]> for Axes {
            fn from(a: &[$t]) -> Self {
                Axes::Many(a.iter().map(|&x| x as isize).collect())
            }
        }
        impl From<Vec<$t>> for Axes {
            fn from(a: Vec<$t>) -> Self {
                Axes::Many(a.iter().map(|&x| x as isize).collect())
            }
        }
        impl From<&Vec<$t>> for Axes {
            fn from(a: &Vec<$t>) -> Self {
                Axes::Many(a.iter().map(|&x| x as isize).collect())
            }
        }
    )*};
}
axes_from!(isize, i32, usize);

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn conversions_and_resolution() {
        assert_eq!(Axes::from(1), Axes::One(1));
        assert_eq!(Axes::from(None), Axes::All);
        assert_eq!(Axes::from(Some(-1)), Axes::One(-1));
        assert_eq!(Axes::from([0usize, 2]), Axes::Many(vec![0, 2]));
        assert_eq!(Axes::from(&[-1isize][..]), Axes::Many(vec![-1]));
        assert_eq!(Axes::from(..).resolve(3, "t").unwrap(), vec![0, 1, 2]);
        assert_eq!(Axes::from([-1, 0]).resolve(3, "t").unwrap(), vec![0, 2]);
        assert!(matches!(
            Axes::from(-4).resolve(3, "t"),
            Err(Error::AxisOutOfRange { axis: -4, ndim: 3 })
        ));
        assert!(matches!(
            Axes::from([2, -1]).resolve(3, "t"),
            Err(Error::InvalidArgument { .. })
        ));
        assert_eq!(Axes::from(Axis(1)).resolve_one(2, "t").unwrap(), Some(1));
        assert!(Axes::from([0, 1]).resolve_one(2, "t").is_err());
        assert!(Axes::All.resolve_single(2, "t").is_err());
        assert_eq!(keepdims_shape(&[4], &[0, 2]), vec![1, 4, 1]);
        assert_eq!(keepdims_shape(&[], &[]), Vec::<usize>::new());
    }
}
