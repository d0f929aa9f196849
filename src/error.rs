//! The crate's error type.

use crate::dtype::DType;

/// Errors returned by gpuarray.
///
/// Every public operation that can fail returns [`Result`]. Errors are found on the host
/// before any work reaches the GPU wherever possible, so an error leaves the device usable.
#[derive(Debug, Clone, PartialEq, thiserror::Error)]
#[non_exhaustive]
pub enum Error {
    /// No adapter matched the request (none at all, or none matching `GPUARRAY_ADAPTER` /
    /// `GPUARRAY_BACKEND`).
    #[error("no GPU adapter found{}", if .filter.is_empty() { String::new() } else { format!(" matching {}", .filter) })]
    NoAdapter {
        /// The filter that was applied, empty when none was.
        filter: String,
    },
    /// [`crate::Device::open`] was given an index past the adapters
    /// [`crate::Device::enumerate`] lists.
    #[error("no device at index {index}: {} {} listed", count_of(*.count, "adapter", "adapters"), is_are(*.count))]
    NoSuchDevice {
        /// The index asked for.
        index: usize,
        /// How many adapters there are.
        count: usize,
    },
    /// The adapter refused to create a device.
    #[error("could not create a device on {adapter}: {reason}")]
    RequestDevice {
        /// The adapter's name.
        adapter: String,
        /// wgpu's explanation.
        reason: String,
    },
    /// `GPUARRAY_BACKEND` named no known backend.
    #[error("unknown backend {0:?} (expected vulkan, metal, dx12 or gl)")]
    UnknownBackend(String),
    /// An option (a `GPUARRAY_*` environment variable read by
    /// [`crate::config::Options::from_env`]) has a value gpuarray cannot use.
    #[error("{name}={value:?} is not valid (expected {expected})")]
    InvalidOption {
        /// The variable's name.
        name: &'static str,
        /// The value it had.
        value: String,
        /// What would have been valid.
        expected: &'static str,
    },
    /// The element type is not supported on this adapter (f16 without SHADER_F16, f64 without
    /// SHADER_F64), or the operation is not available for this element type: each family
    /// lists the dtypes it takes and refuses the others here. `op` is the public operation
    /// the caller named (`sort`, `cumsum`, `matmul`), never an internal kernel.
    ///
    /// ```
    /// let dev = gpuarray::Device::new()?;
    /// let b = dev.from_slice(&[true, false], [2])?;
    /// match b.cumsum(0) {
    ///     Err(gpuarray::Error::Unsupported { op, dtype, .. }) => {
    ///         assert_eq!((op, dtype), ("cumsum", gpuarray::DType::Bool));
    ///     }
    ///     other => panic!("{other:?}"),
    /// }
    /// # Ok::<(), gpuarray::Error>(())
    /// ```
    #[error("{op} is not supported for {dtype} on {adapter}")]
    Unsupported {
        /// The operation that was asked for.
        op: &'static str,
        /// The element type.
        dtype: DType,
        /// The adapter's name and backend, e.g. "llvmpipe (LLVM 15.0.6, 256 bits) through GL".
        adapter: String,
    },
    /// Two operands of a binary operation have shapes that cannot be combined.
    #[error("shape mismatch in {op}: {lhs:?} and {rhs:?} do not broadcast together")]
    ShapeMismatch {
        /// The operation.
        op: &'static str,
        /// Shape of the left operand.
        lhs: Vec<usize>,
        /// Shape of the right operand.
        rhs: Vec<usize>,
    },
    /// `broadcast_to` was asked for a shape the array cannot be broadcast to.
    #[error("cannot broadcast shape {from:?} to {to:?}")]
    Broadcast {
        /// The array's shape.
        from: Vec<usize>,
        /// The requested shape.
        to: Vec<usize>,
    },
    /// A reshape or a constructor was given a shape whose element count differs from the data's.
    #[error("shape {shape:?} holds {}, but {actual} {} given", count_of(*.expected, "element", "elements"), was_were(*.actual))]
    SizeMismatch {
        /// The requested shape.
        shape: Vec<usize>,
        /// Elements the shape holds.
        expected: usize,
        /// Elements available.
        actual: usize,
    },
    /// An axis is not in `-ndim..ndim` (negative axes count from the end).
    #[error("axis {axis} is out of range for an array of {}", count_of(*.ndim, "dimension", "dimensions"))]
    AxisOutOfRange {
        /// The axis asked for (negative counts from the end).
        axis: isize,
        /// The array's number of dimensions.
        ndim: usize,
    },
    /// A permutation given to `transpose` is not a permutation of the axes.
    #[error("{perm:?} is not a permutation of the {}", count_of(*.ndim, "axis", "axes"))]
    InvalidPermutation {
        /// The permutation given.
        perm: Vec<usize>,
        /// The array's number of dimensions.
        ndim: usize,
    },
    /// A slice's bounds fall outside its axis, or its step is zero.
    #[error("slice {start}..{end} step {step} is out of range for axis {axis} of length {len}")]
    SliceOutOfRange {
        /// The axis being sliced.
        axis: usize,
        /// Start of the slice (after negative indices were resolved).
        start: isize,
        /// End of the slice (after negative indices were resolved).
        end: isize,
        /// The step.
        step: isize,
        /// Length of the axis.
        len: usize,
    },
    /// An index (of `index_axis`, or in an index array of `take`, `take_along_axis` or a
    /// scatter) lies outside its axis: not in `[-len, len)`.
    #[error("{op}: an index is out of range for axis {axis} of length {len}")]
    IndexOutOfRange {
        /// The operation.
        op: &'static str,
        /// The axis indexed.
        axis: usize,
        /// Length of the axis.
        len: usize,
    },
    /// More slices were given than the array has dimensions.
    #[error("{} given for an array of {}", count_of(*.given, "slice", "slices"), count_of(*.ndim, "dimension", "dimensions"))]
    TooManySlices {
        /// Slices given.
        given: usize,
        /// The array's number of dimensions.
        ndim: usize,
    },
    /// The array has more dimensions than a kernel takes, even after merging contiguous ones
    /// and dropping those of extent 1. Arrays may have any number of dimensions:
    /// elementwise ops (and so copies, casts and reductions, which copy such inputs first)
    /// split the outer dimensions past 8 into several launches, and matrix products copy
    /// operands with more than 8 batch dimensions that do not merge. `ElementwiseKernel`
    /// takes at most 8 dimensions that do not merge: make its operands contiguous first
    /// (`Array::contiguous`), which merges them.
    ///
    /// ```
    /// let dev = gpuarray::Device::new()?;
    /// let perm: Vec<usize> = (0..11).rev().collect();
    /// let x = dev.ones::<f32>([2; 11])?.transpose(&perm)?; // nothing merges
    /// assert_eq!(x.add_scalar(1.0)?.sum()?.to_scalar()?, 4096.0);
    /// # Ok::<(), gpuarray::Error>(())
    /// ```
    #[error("{ndim} dimensions exceed the maximum of {max} that kernels take")]
    TooManyDims {
        /// Dimensions of the array, after merging.
        ndim: usize,
        /// The limit.
        max: usize,
    },
    /// `to_scalar` was called on an array that does not hold exactly one element.
    #[error("to_scalar needs exactly one element, the array has {len}")]
    NotScalar {
        /// Elements in the array.
        len: usize,
    },
    /// An argument is outside the domain of the function (a negative count, a zero step).
    #[error("invalid argument to {op}: {reason}")]
    InvalidArgument {
        /// The function.
        op: &'static str,
        /// What is wrong.
        reason: &'static str,
    },
    /// Two arrays live on different devices.
    #[error("the operands of {op} live on different devices")]
    DeviceMismatch {
        /// The operation.
        op: &'static str,
    },
    /// An allocation would exceed the memory pool's limit or the device's memory.
    /// Freeing arrays (or [`crate::MemoryPool::free_all_blocks`]) may make a retry succeed.
    #[error("out of device memory: {requested} bytes requested, {used} in use, limit {limit}")]
    OutOfMemory {
        /// Bytes requested.
        requested: u64,
        /// Bytes in use by live arrays.
        used: u64,
        /// The pool's limit (`u64::MAX` when the driver itself refused).
        limit: u64,
    },
    /// A buffer larger than the adapter allows in one buffer or one binding: it can never fit.
    #[error("a buffer of {requested} bytes exceeds the adapter's maximum of {max}")]
    BufferTooLarge {
        /// Bytes requested.
        requested: u64,
        /// The adapter's limit.
        max: u64,
    },
    /// A shader failed naga's validation. The text gives the line and column.
    #[error("shader {name} is invalid:\n{message}")]
    InvalidShader {
        /// Name of the kernel.
        name: String,
        /// naga's diagnostic, with line and column.
        message: String,
    },
    /// A user kernel was called with the wrong number of arguments.
    #[error("{kernel} takes {}, {given} {} given", count_of(*.expected, "argument", "arguments"), was_were(*.given))]
    ArgumentCount {
        /// The kernel's name.
        kernel: String,
        /// Arguments it takes.
        expected: usize,
        /// Arguments given.
        given: usize,
    },
    /// An argument of a user kernel has the wrong element type, or is a scalar where an
    /// array is needed (or the reverse).
    #[error("argument `{param}` of {kernel}: expected {expected}, got {actual}")]
    ArgumentType {
        /// The kernel's name.
        kernel: String,
        /// The parameter.
        param: String,
        /// What the parameter takes.
        expected: String,
        /// What was given.
        actual: String,
    },
    /// wgpu reported a validation error. This is a bug in gpuarray: please report it.
    #[error("wgpu validation error: {0}")]
    Validation(String),
    /// Mapping a buffer for reading failed.
    #[error("mapping a buffer for reading failed: {0}")]
    Map(String),
    /// The device did not finish submitted work within the wait limit
    /// ([`crate::Device::set_timeout`], `GPUARRAY_TIMEOUT_S`, default 300 s): a kernel runs
    /// too long, or the device hangs. The work may still complete later, but the device is
    /// no longer used: every later call on it or its arrays returns [`Error::DeviceLost`] at
    /// once (a submit behind unfinished work can block inside the driver). Drop the device
    /// and its arrays and open another ([`crate::Device::new`]); raise the timeout first if
    /// the work is merely long.
    ///
    /// ```
    /// let dev = gpuarray::Device::new()?;
    /// dev.set_timeout(std::time::Duration::from_secs_f64(30.5));
    /// let x = dev.ones::<f32>([4])?;
    /// match x.to_vec() {
    ///     Ok(v) => assert_eq!(v, vec![1.0; 4]),
    ///     Err(gpuarray::Error::Timeout { .. }) => {
    ///         drop(x);
    ///         drop(dev); // and open another: gpuarray::Device::new()
    ///     }
    ///     Err(e) => return Err(e),
    /// }
    /// # Ok::<(), gpuarray::Error>(())
    /// ```
    #[error("the device did not finish its work within {seconds} s (Device::set_timeout, GPUARRAY_TIMEOUT_S); it is no longer used: open another")]
    Timeout {
        /// The limit that was reached, in seconds.
        seconds: f64,
    },
    /// The device was lost (driver reset, removal or destruction); create a new [`crate::Device`].
    #[error("the device was lost: {0}")]
    DeviceLost(String),
    /// A user kernel was given a value for an override constant its module does not
    /// declare ([`crate::custom::RawKernel::with_constants`]).
    #[error("{kernel} has no override constant named `{name}`")]
    UnknownConstant {
        /// The kernel's name (its entry point).
        kernel: String,
        /// The name given.
        name: String,
    },
    /// A linear-algebra function that needs square matrices got a stack whose last two
    /// extents differ.
    #[error("{op} needs square matrices, the input has shape {shape:?}")]
    NotSquare {
        /// The function.
        op: &'static str,
        /// The input's shape.
        shape: Vec<usize>,
    },
    /// A matrix is singular (exactly, in the arithmetic of its dtype) where the function
    /// needs it invertible: `solve`, `inv`, `lu_solve`, `cho_solve`, `solve_triangular`.
    #[error("{op}: matrix {index} of the stack is singular")]
    Singular {
        /// The function.
        op: &'static str,
        /// Position of the first singular matrix in the stack (row-major over the batch
        /// dimensions; 0 for a single matrix).
        index: usize,
    },
    /// `cholesky` met a matrix that is not (numerically) positive definite.
    #[error("{op}: matrix {index} of the stack is not positive definite")]
    NotPositiveDefinite {
        /// The function.
        op: &'static str,
        /// Position of the first such matrix in the stack.
        index: usize,
    },
    /// An iterative method (eigenvalues, singular values) did not converge.
    #[error("{op}: matrix {index} of the stack did not converge in {iterations} iterations")]
    NoConvergence {
        /// The function.
        op: &'static str,
        /// Position of the first matrix that did not converge.
        index: usize,
        /// The iterations (sweeps) spent.
        iterations: usize,
    },
    /// `einsum` was given subscripts it cannot read, or operands that do not fit them: a
    /// character that is not a letter, a misplaced `...` or `->`, an operand count or
    /// number of dimensions other than the subscripts name, an output index repeated or
    /// absent from the inputs, or one index with two extents (neither of them 1).
    #[error("einsum {subscripts:?}: {reason}")]
    Einsum {
        /// The subscripts as given.
        subscripts: String,
        /// What is wrong, with the facts (operand, index, extents).
        reason: String,
    },
    /// Arrays to join do not fit together: `concatenate` (and `hstack`, `vstack`, `dstack`)
    /// needs one number of dimensions and equal extents except along the joining axis;
    /// `stack` needs identical shapes.
    #[error("{op}: array {index} has shape {shape:?}, array 0 has {first:?}; {}",
        match .axis {
            Some(axis) => format!("{op} needs the same number of dimensions and equal extents except along axis {axis}"),
            None => format!("{op} needs arrays of identical shapes"),
        })]
    JoinMismatch {
        /// The operation.
        op: &'static str,
        /// Position of the first array that does not fit, in the arguments.
        index: usize,
        /// Its shape.
        shape: Vec<usize>,
        /// The shape of the first array.
        first: Vec<usize>,
        /// The joining axis (`None` for `stack`, whose shapes must be identical).
        axis: Option<usize>,
    },
    /// An operation of [`gpuarray::dist`](crate) (arrays across processes through MPI, the
    /// `mpi` feature) failed: `kind` says how, `detail` gives the facts (ranks, shapes,
    /// dtypes, the MPI error string). Disagreements between ranks (another operation, shape
    /// or dtype; a rank whose local part failed) are found by a small header exchange before
    /// any data moves and reported on every rank alike; a peer that stops answering is a
    /// [`MpiErrorKind::Timeout`] after the communicator's timeout, never a hang.
    #[error("{op} across ranks: {kind}: {detail}")]
    Mpi {
        /// The public operation (`allreduce`, `send`, `gather`, ...).
        op: &'static str,
        /// What went wrong.
        kind: MpiErrorKind,
        /// The facts, in words.
        detail: String,
    },
}

/// How an operation across ranks failed ([`Error::Mpi`]).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
#[non_exhaustive]
pub enum MpiErrorKind {
    /// A peer did not answer within the communicator's timeout (a rank failed, stopped,
    /// or called other operations). The communicator is then closed: every later call on
    /// it returns [`MpiErrorKind::Closed`]; abort the job or open another communicator.
    Timeout,
    /// The ranks called different operations, or one with different shapes, dtypes, roots
    /// or axes where they must agree. Reported on every rank; nothing moved.
    Mismatch,
    /// Another rank's part failed before any data moved (its own error is returned there);
    /// `detail` names the rank. Reported on every other rank; nothing moved.
    Remote,
    /// The arguments cannot work on this communicator (a root or peer rank past its size).
    Argument,
    /// The MPI library returned an error code.
    Call,
    /// The communicator was closed by an earlier timeout.
    Closed,
}

impl std::fmt::Display for MpiErrorKind {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(match self {
            MpiErrorKind::Timeout => "timeout",
            MpiErrorKind::Mismatch => "ranks disagree",
            MpiErrorKind::Remote => "another rank failed",
            MpiErrorKind::Argument => "bad argument",
            MpiErrorKind::Call => "MPI error",
            MpiErrorKind::Closed => "communicator closed by an earlier timeout",
        })
    }
}

/// `n` and the noun in its number: "1 adapter", "0 adapters", "2 adapters".
fn count_of(n: usize, one: &str, many: &str) -> String {
    format!("{n} {}", if n == 1 { one } else { many })
}

/// The verb "to be" agreeing with a count `n`, present tense.
fn is_are(n: usize) -> &'static str {
    if n == 1 {
        "is"
    } else {
        "are"
    }
}

/// The verb "to be" agreeing with a count `n`, past tense.
fn was_were(n: usize) -> &'static str {
    if n == 1 {
        "was"
    } else {
        "were"
    }
}

/// `Result` with [`Error`] as the error type.
pub type Result<T, E = Error> = std::result::Result<T, E>;

#[cfg(test)]
mod tests {
    use super::Error;

    #[test]
    fn counts_agree_with_their_nouns() {
        let devices = |count| Error::NoSuchDevice { index: 3, count }.to_string();
        assert_eq!(devices(1), "no device at index 3: 1 adapter is listed");
        assert_eq!(devices(0), "no device at index 3: 0 adapters are listed");
        assert_eq!(devices(2), "no device at index 3: 2 adapters are listed");

        let size = |expected, actual| {
            let shape = vec![expected];
            Error::SizeMismatch {
                shape,
                expected,
                actual,
            }
            .to_string()
        };
        assert_eq!(size(1, 2), "shape [1] holds 1 element, but 2 were given");
        assert_eq!(size(2, 1), "shape [2] holds 2 elements, but 1 was given");
        assert_eq!(size(0, 3), "shape [0] holds 0 elements, but 3 were given");

        let axis = |ndim| Error::AxisOutOfRange { axis: 4, ndim }.to_string();
        assert_eq!(
            axis(1),
            "axis 4 is out of range for an array of 1 dimension"
        );
        assert_eq!(
            axis(3),
            "axis 4 is out of range for an array of 3 dimensions"
        );

        let perm = |ndim| {
            let perm = vec![0; ndim];
            Error::InvalidPermutation { perm, ndim }.to_string()
        };
        assert_eq!(perm(1), "[0] is not a permutation of the 1 axis");
        assert_eq!(perm(2), "[0, 0] is not a permutation of the 2 axes");

        let slices = |given, ndim| Error::TooManySlices { given, ndim }.to_string();
        assert_eq!(slices(1, 0), "1 slice given for an array of 0 dimensions");
        assert_eq!(slices(2, 1), "2 slices given for an array of 1 dimension");

        let args = |expected, given| {
            let kernel = "k".to_string();
            Error::ArgumentCount {
                kernel,
                expected,
                given,
            }
            .to_string()
        };
        assert_eq!(args(2, 1), "k takes 2 arguments, 1 was given");
        assert_eq!(args(1, 2), "k takes 1 argument, 2 were given");
        assert_eq!(args(3, 0), "k takes 3 arguments, 0 were given");
    }
}
