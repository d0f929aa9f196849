//! [`fuse`]: a closure over symbolic values becomes one elementwise kernel, as `cupy.fuse`.

use std::cell::RefCell;
use std::ops;

use crate::array::Array;
use crate::custom::{ElementwiseKernel, KernelArg};
use crate::device::Device;
use crate::dtype::Element;
use crate::error::{Error, Result};
use crate::shape::Axis;

/// A node of a traced expression.
#[derive(Debug, Clone, Copy)]
enum Node {
    Input(usize),
    Const(f64),
    /// A function of one value: `name(x)`, or `-x` for "-".
    Unary(&'static str, Var),
    /// An infix operator: `(x op y)`.
    Infix(&'static str, Var, Var),
    /// A function of two values: `name(x, y)`.
    Call2(&'static str, Var, Var),
    /// The sum of the value over every element (`None`) or one axis (may be negative).
    Sum(Option<isize>, Var),
}

thread_local! {
    /// The nodes of the expression being traced on this thread.
    static NODES: RefCell<Vec<Node>> = const { RefCell::new(Vec::new()) };
}

fn push(n: Node) -> Var {
    NODES.with(|t| {
        let mut t = t.borrow_mut();
        t.push(n);
        Var(t.len() as u32 - 1)
    })
}

/// A symbolic value inside a [`fuse`] closure: an input, a constant or an expression. It
/// supports `+ - * / %` (with other values and with `f64` constants), unary `-`, and the
/// math functions below; each becomes WGSL in the fused kernel.
///
/// ```
/// use gpuarray::custom::fuse;
/// # let dev = gpuarray::Device::new()?;
/// let f = fuse(&dev, |[x]| (x * 2.0 + 1.0).sqrt().max(x))?;
/// let x = dev.from_slice(&[4.0f32, 12.0], [2])?;
/// assert_eq!(f.call::<f32>(&[&x])?.to_vec()?, vec![4.0, 12.0]);
/// # Ok::<(), gpuarray::Error>(())
/// ```
#[derive(Debug, Clone, Copy)]
pub struct Var(u32);

macro_rules! unary_fns {
    ($($name:ident => $wgsl:literal, $doc:literal;)*) => {$(
        #[doc = $doc]
        pub fn $name(self) -> Var {
            push(Node::Unary($wgsl, self))
        }
    )*};
}

impl Var {
    unary_fns! {
        abs => "abs", "Absolute value.";
        exp => "exp", "e^x.";
        exp2 => "exp2", "2^x.";
        log => "log", "Natural logarithm.";
        log2 => "log2", "Base-2 logarithm.";
        sqrt => "sqrt", "Square root.";
        rsqrt => "inverseSqrt", "1 / sqrt(x).";
        sin => "sin", "Sine.";
        cos => "cos", "Cosine.";
        tan => "tan", "Tangent.";
        tanh => "tanh", "Hyperbolic tangent.";
        floor => "floor", "Floor.";
        ceil => "ceil", "Ceiling.";
        round => "round", "Rounding to the nearest integer, halves to even.";
        sigmoid => "sigmoid", "The logistic function 1 / (1 + e^-x).";
    }

    /// The larger of two values (WGSL `max`).
    pub fn max(self, other: impl Into<Var>) -> Var {
        push(Node::Call2("max", self, other.into()))
    }
    /// The smaller of two values (WGSL `min`).
    pub fn min(self, other: impl Into<Var>) -> Var {
        push(Node::Call2("min", self, other.into()))
    }
    /// `self` to the power `other` (WGSL `pow`, floats).
    pub fn pow(self, other: impl Into<Var>) -> Var {
        push(Node::Call2("pow", self, other.into()))
    }
    /// The sum over every element: the fused kernel's result is then reduced (a second
    /// dispatch, the built-in sum), as `cupy.sum` inside `cupy.fuse`. Only as the outermost
    /// operation.
    pub fn sum(self) -> Var {
        push(Node::Sum(None, self))
    }
    /// The sum along `axis` (negative counts from the end), as [`Var::sum`].
    pub fn sum_axis(self, axis: isize) -> Var {
        push(Node::Sum(Some(axis), self))
    }
}

impl From<f64> for Var {
    fn from(v: f64) -> Var {
        push(Node::Const(v))
    }
}

macro_rules! infix {
    ($($trait:ident, $method:ident, $op:literal;)*) => {$(
        impl ops::$trait<Var> for Var {
            type Output = Var;
            fn $method(self, rhs: Var) -> Var {
                push(Node::Infix($op, self, rhs))
            }
        }
        impl ops::$trait<f64> for Var {
            type Output = Var;
            fn $method(self, rhs: f64) -> Var {
                push(Node::Infix($op, self, Var::from(rhs)))
            }
        }
        impl ops::$trait<Var> for f64 {
            type Output = Var;
            fn $method(self, rhs: Var) -> Var {
                push(Node::Infix($op, Var::from(self), rhs))
            }
        }
    )*};
}
infix! {
    Add, add, "+";
    Sub, sub, "-";
    Mul, mul, "*";
    Div, div, "/";
    Rem, rem, "%";
}

impl ops::Neg for Var {
    type Output = Var;
    fn neg(self) -> Var {
        push(Node::Unary("-", self))
    }
}

/// A fused kernel made by [`fuse`]: one elementwise dispatch for the whole expression
/// (plus one reduction where it ends in [`Var::sum`]).
#[derive(Debug)]
pub struct Fused {
    kernel: ElementwiseKernel,
    sum: Option<Option<isize>>,
}

/// The WGSL of node `v`, its inputs named `v0`, `v1`...
fn wgsl(nodes: &[Node], v: Var) -> Result<String> {
    Ok(match nodes[v.0 as usize] {
        Node::Input(k) => format!("v{k}"),
        Node::Const(c) if c.fract() == 0.0 && c.abs() < 2e9 => format!("T({})", c as i64),
        Node::Const(c) => format!("T({c:?})"),
        Node::Unary("-", x) => format!("(-{})", wgsl(nodes, x)?),
        Node::Unary("sigmoid", x) => {
            format!("(T(1) / (T(1) + exp(-{})))", wgsl(nodes, x)?)
        }
        Node::Unary(f, x) => format!("{f}({})", wgsl(nodes, x)?),
        Node::Infix(op, x, y) => format!("({} {op} {})", wgsl(nodes, x)?, wgsl(nodes, y)?),
        Node::Call2(f, x, y) => format!("{f}({}, {})", wgsl(nodes, x)?, wgsl(nodes, y)?),
        Node::Sum(..) => {
            return Err(Error::InvalidArgument {
                op: "fuse",
                reason: "sum() may only be the outermost operation",
            })
        }
    })
}

/// Traces `f` over `N` symbolic inputs (`Node::Input(k)` for input k): its nodes and root.
fn trace<const N: usize>(f: impl Fn([Var; N]) -> Var) -> (Vec<Node>, Var) {
    NODES.with(|t| {
        t.borrow_mut().clear();
        let inputs: [Var; N] = std::array::from_fn(|k| push(Node::Input(k)));
        let root = f(inputs);
        (std::mem::take(&mut *t.borrow_mut()), root)
    })
}

/// The WGSL expression of `f` over `N` inputs named `v0`, `v1`... (a value of type `T`);
/// `op` names the caller in the error for a [`Var::sum`] anywhere.
pub(crate) fn expression<const N: usize>(
    op: &'static str,
    f: impl Fn([Var; N]) -> Var,
) -> Result<String> {
    let (nodes, root) = trace(f);
    if let Node::Sum(..) = nodes[root.0 as usize] {
        return Err(Error::InvalidArgument {
            op,
            reason: "sum() cannot appear here",
        });
    }
    wgsl(&nodes, root)
}

/// Traces `f` over `N` symbolic inputs and compiles it into one elementwise kernel, as
/// `cupy.fuse`. Call the result with arrays (broadcast together) or scalars, all of one
/// dtype; the kernel is compiled once per dtype.
///
/// # Errors
/// [`Error::InvalidArgument`] when [`Var::sum`] is not the outermost operation;
/// [`Error::DeviceLost`] on a lost (or destroyed) device.
///
/// ```
/// use gpuarray::custom::fuse;
/// # let dev = gpuarray::Device::new()?;
/// let squared_diff = fuse(&dev, |[x, y]| (x - y) * (x - y))?;
/// let x = dev.from_slice(&[1.0f32, 2.0, 3.0], [3])?;
/// let y = dev.from_slice(&[1.0f32], [1])?;
/// assert_eq!(squared_diff.call::<f32>(&[&x, &y])?.to_vec()?, vec![0.0, 1.0, 4.0]);
/// # Ok::<(), gpuarray::Error>(())
/// ```
pub fn fuse<const N: usize>(dev: &Device, f: impl Fn([Var; N]) -> Var) -> Result<Fused> {
    dev.expect_alive()?;
    let (nodes, root) = trace(f);
    let (sum, root) = match nodes[root.0 as usize] {
        Node::Sum(axis, x) => (Some(axis), x),
        _ => (None, root),
    };
    let expr = wgsl(&nodes, root)?;
    let params: Vec<String> = (0..N).map(|k| format!("T v{k}")).collect();
    let kernel = ElementwiseKernel::new(
        dev,
        &params.join(", "),
        "T fused_out",
        &format!("fused_out = {expr};"),
        "fused",
    )?
    .vectorized();
    Ok(Fused { kernel, sum })
}

impl Fused {
    /// Runs the fused kernel on `args` (one per input of the closure).
    ///
    /// # Errors
    /// As [`ElementwiseKernel::call`]; [`Error::AxisOutOfRange`] for a sum over an axis the
    /// result lacks.
    ///
    /// ```
    /// use gpuarray::custom::fuse;
    /// # let dev = gpuarray::Device::new()?;
    /// let sum_of_products = fuse(&dev, |[x, y]| (x * y).sum_axis(-1))?;
    /// let x = dev.from_slice(&[1.0f32, 2.0, 3.0, 4.0], [2, 2])?;
    /// assert_eq!(sum_of_products.call::<f32>(&[&x, &x])?.to_vec()?, vec![5.0, 25.0]);
    /// # Ok::<(), gpuarray::Error>(())
    /// ```
    pub fn call<T: Element>(&self, args: &[&dyn KernelArg]) -> Result<Array<T>> {
        let y = self.kernel.call::<T>(args)?;
        match self.sum {
            None => Ok(y),
            Some(None) => y.sum(),
            Some(Some(axis)) => {
                let nd = y.ndim() as isize;
                let a = if axis < 0 { axis + nd } else { axis };
                if a < 0 || a >= nd {
                    return Err(Error::AxisOutOfRange {
                        axis: axis.unsigned_abs(),
                        ndim: y.ndim(),
                    });
                }
                y.sum_axis(Axis(a as usize))
            }
        }
    }
}
