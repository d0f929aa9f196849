//! [`Device::from_fn`]: an array whose every element is an expression of its own indices,
//! as NumPy's `fromfunction`, compiled into one elementwise kernel through [`fuse`]'s
//! tracing of [`Var`].
//!
//! [`fuse`]: crate::custom::fuse

use crate::array::Array;
use crate::custom::{ElementwiseKernel, KernelArg, Var};
use crate::device::Device;
use crate::dtype::Element;
use crate::error::{Error, Result};

use super::fuse::expression;

/// Most axes of [`Device::from_fn`]: the extents of all but the first travel as the
/// kernel's scalar arguments, of which there are four.
const MAX_AXES: usize = 5;

impl Device {
    /// An array of `shape` whose element at `[i0, i1, ...]` is `f([i0, i1, ...])`, each
    /// index given as a value of `T`, as NumPy's `fromfunction` (which passes index arrays
    /// where this traces one expression): one elementwise kernel, compiled once per
    /// expression and dtype, no input read. `f` is traced once, with symbolic values
    /// ([`Var`], as in [`crate::custom::fuse`]); Rust control flow inside it runs at
    /// tracing time, not per element.
    ///
    /// # Errors
    /// [`Error::TooManyDims`] past 5 axes; [`Error::InvalidArgument`] when `f` uses
    /// [`Var::sum`]; [`Error::BufferTooLarge`]; [`Error::Unsupported`] when the adapter
    /// lacks `T`.
    ///
    /// ```
    /// # let dev = gpuarray::Device::new()?;
    /// let x = dev.from_fn::<f32, 2>([2, 3], |[i, j]| i * 10.0 + j)?;
    /// assert_eq!(x.to_vec()?, vec![0.0, 1.0, 2.0, 10.0, 11.0, 12.0]);
    /// let h = dev.from_fn::<i32, 2>([3, 3], |[i, j]| (i - j).abs())?;
    /// assert_eq!(h.to_vec()?, vec![0, 1, 2, 1, 0, 1, 2, 1, 0]);
    /// # Ok::<(), gpuarray::Error>(())
    /// ```
    pub fn from_fn<T: Element, const N: usize>(
        &self,
        shape: [usize; N],
        f: impl Fn([Var; N]) -> Var,
    ) -> Result<Array<T>> {
        if N > MAX_AXES {
            return Err(Error::TooManyDims {
                ndim: N,
                max: MAX_AXES,
            });
        }
        let (helpers, expr) = expression("from_fn", T::DTYPE, self, f)?;
        // The element index i unravelled into v0..v{N-1}, innermost first; the extents of
        // axes 1.. are the scalars e1.. (axis 0 takes what is left).
        let mut body = String::from("var r = i;\n");
        for d in (1..N).rev() {
            body += &format!("let v{d} = T(r % e{d});\nr = r / e{d};\n");
        }
        if N > 0 {
            body += "let v0 = T(r);\n";
        }
        body += &expr;
        let params: Vec<String> = std::iter::once("T from_fn_shape".to_string())
            .chain((1..N).map(|d| format!("u32 e{d}")))
            .collect();
        // Scalar kernels only: the body reads the element index `i`.
        let k = ElementwiseKernel::with_library(
            self,
            &params.join(", "),
            "T fused_out",
            &body,
            "from_fn",
            (T::DTYPE, helpers, false),
        )?;
        // The shape reaches the kernel as a broadcast view of one element (every element
        // reads the same word), so the output takes it.
        let shaped = self.zeros::<T>([1])?.reshape([1; N])?.broadcast_to(shape)?;
        let extents: Vec<u32> = shape[1.min(N)..].iter().map(|&e| e as u32).collect();
        let mut args: Vec<&dyn KernelArg> = vec![&shaped];
        args.extend(extents.iter().map(|e| e as &dyn KernelArg));
        k.call::<T>(&args)
    }
}
