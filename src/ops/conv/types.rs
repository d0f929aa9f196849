//! The public option types of the convolutions: SciPy's output [`Mode`] and [`Boundary`]
//! rule, and PyTorch's [`Conv2d`] layer options. They live beside the kernels that read them
//! and are re-exported by the public faces, `gpuarray::signal` (`Mode`, `Boundary`) and
//! `gpuarray::nn` (`Conv2d`); the relative links below point at those faces' pages, where
//! the types are documented.

/// The size of the output of a convolution (SciPy's `mode`).
///
/// ```
/// use gpuarray::signal::{convolve, Mode};
/// # let dev = gpuarray::Device::new()?;
/// let x = dev.ones::<f32>([5])?;
/// let k = dev.ones::<f32>([2])?;
/// assert_eq!(convolve(&x, &k, Mode::Full)?.shape(), &[6]);
/// assert_eq!(convolve(&x, &k, Mode::Same)?.shape(), &[5]);
/// assert_eq!(convolve(&x, &k, Mode::Valid)?.shape(), &[4]);
/// # Ok::<(), gpuarray::Error>(())
/// ```
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Default)]
pub enum Mode {
    /// The full discrete convolution: `n + m - 1` outputs per axis.
    #[default]
    Full,
    /// The shape of the first input, centred on the full output.
    Same,
    /// Only the outputs that do not depend on the boundary: `max(n, m) - min(n, m) + 1`.
    Valid,
}

/// How [`convolve2d_with`](fn.convolve2d_with.html) and
/// [`correlate2d_with`](fn.correlate2d_with.html) extend the input beyond its edges
/// (`scipy.signal.convolve2d`'s `boundary` and `fillvalue`). Mode [`Mode::Valid`] never
/// reads beyond the edges, so it ignores the boundary.
///
/// ```
/// use gpuarray::signal::{convolve2d_with, Boundary, Mode};
/// # let dev = gpuarray::Device::new()?;
/// let x = dev.from_slice(&[1.0f32, 2.0, 3.0, 4.0], [2, 2])?;
/// let k = dev.ones::<f32>([1, 3])?;
/// let fill = convolve2d_with(&x, &k, Mode::Same, Boundary::Fill(10.0))?;
/// assert_eq!(fill.to_vec()?, vec![13.0, 13.0, 17.0, 17.0]);
/// let wrap = convolve2d_with(&x, &k, Mode::Same, Boundary::Wrap)?;
/// assert_eq!(wrap.to_vec()?, vec![5.0, 4.0, 11.0, 10.0]);
/// let symm = convolve2d_with(&x, &k, Mode::Same, Boundary::Symmetric)?;
/// assert_eq!(symm.to_vec()?, vec![4.0, 5.0, 10.0, 11.0]);
/// # Ok::<(), gpuarray::Error>(())
/// ```
#[derive(Debug, Clone, Copy, PartialEq)]
pub enum Boundary {
    /// Pad with a constant (SciPy's `boundary="fill"` with `fillvalue`); `Fill(0.0)` is the
    /// default.
    Fill(f64),
    /// Reflect about the edge, the edge element repeated: `.. c b a | a b c .. | .. c b a`
    /// (SciPy's `"symm"`); periodic with period `2n` for filters wider than the input.
    Symmetric,
    /// Periodic: the input repeats (SciPy's `"wrap"`).
    Wrap,
}

/// Zero fill, SciPy's default.
///
/// ```
/// assert_eq!(gpuarray::signal::Boundary::default(), gpuarray::signal::Boundary::Fill(0.0));
/// ```
impl Default for Boundary {
    fn default() -> Boundary {
        Boundary::Fill(0.0)
    }
}

/// Options of [`conv2d`](fn.conv2d.html), per spatial axis `[height, width]`.
///
/// ```
/// let o = gpuarray::nn::Conv2d::default();
/// assert_eq!((o.stride, o.padding, o.dilation, o.groups), ([1, 1], [0, 0], [1, 1], 1));
/// ```
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub struct Conv2d {
    /// Step between output positions (at least 1).
    pub stride: [usize; 2],
    /// Zeros added on both sides of each axis.
    pub padding: [usize; 2],
    /// Spacing between filter taps (at least 1).
    pub dilation: [usize; 2],
    /// Channel groups: input and output channels must both be divisible by it.
    pub groups: usize,
}

impl Default for Conv2d {
    fn default() -> Conv2d {
        Conv2d {
            stride: [1, 1],
            padding: [0, 0],
            dilation: [1, 1],
            groups: 1,
        }
    }
}
