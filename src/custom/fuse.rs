//! [`fuse`]: a closure over symbolic values becomes one elementwise kernel, as `cupy.fuse`.

use std::cell::RefCell;
use std::collections::HashMap;
use std::ops;
use std::sync::{Arc, Mutex};

use crate::array::Array;
use crate::custom::fused_reduce::{self, Fusion, Reduction};
use crate::custom::{ElementwiseKernel, KernelArg};
use crate::device::{lock, Device};
use crate::dtype::{DType, Element};
use crate::error::{Error, Result};
use crate::ops::elementwise::{truth, Binary, Unary};
use crate::shape::Axes;

#[path = "fuse_keep.rs"]
mod keep;
use keep::{keep_defs, structure};
#[path = "fuse_reductions.rs"]
mod reductions;

/// A node of a traced expression.
#[derive(Debug, Clone)]
enum Node {
    Input(usize),
    Const(f64),
    /// An operation of the elementwise family's table, of one value.
    Unary(Unary, Var),
    /// An operation of the elementwise family's table, of two values.
    Binary(Binary, Var, Var),
    /// `where_(cond, x, y)`.
    Where(Var, Var, Var),
    /// A reduction along axes (negative count from the end), and whether it keeps them.
    Reduce(Reduction, Along, Var),
}

/// The axes of a fused reduction and its `keepdims`.
pub(super) type Along = (Axes, bool);

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
/// supports `+ - * / %` (with other values and with `f64` constants on either side), unary
/// `-`, and every elementwise function of [`Array`] below, each computed by the same WGSL
/// as that method (the elementwise family's operation table), so a fused result has the
/// bits of the unfused chain. Comparisons and logical functions give 1 or 0 in the
/// expression's dtype (NumPy's bools promoted); NaN counts as true.
///
/// CuPy's own `softplus`, `log1p(exp(-|x|)) + maximum(x, 0)`, in one kernel:
///
/// ```
/// use gpuarray::custom::fuse;
/// # let dev = gpuarray::Device::new()?;
/// let softplus = fuse(&dev, |[x]| (-x.abs()).exp().log1p() + x.maximum(0.0))?;
/// let x = dev.from_slice(&[-30.0f32, 0.0, 2.0], [3])?;
/// let y = softplus.call::<f32>(&[&x])?.to_vec()?;
/// let want = [9.357623e-14, std::f32::consts::LN_2, 2.126928];
/// assert!(y.iter().zip(want).all(|(g, w)| (g - w).abs() <= 1e-6 * w.abs()));
/// # Ok::<(), gpuarray::Error>(())
/// ```
#[derive(Debug, Clone, Copy)]
pub struct Var(u32);

macro_rules! unary_fns {
    ($($name:ident => $op:expr, $doc:literal;)*) => {$(
        #[doc = concat!($doc, " As [`Array::", stringify!($name), "`] where it exists.")]
        pub fn $name(self) -> Var {
            push(Node::Unary($op, self))
        }
    )*};
}

macro_rules! binary_fns {
    ($($name:ident => $op:expr, $doc:literal;)*) => {$(
        #[doc = concat!($doc, " As [`Array::", stringify!($name), "`] where it exists.")]
        pub fn $name(self, other: impl Into<Var>) -> Var {
            push(Node::Binary($op, self, other.into()))
        }
    )*};
}

impl Var {
    unary_fns! {
        abs => Unary::Abs, "Absolute value (not for u32).";
        sign => Unary::Sign, "-1, 0 or 1 (NaN for NaN; not for u32).";
        exp => Unary::Exp, "e^x.";
        exp2 => Unary::Exp2, "2^x.";
        expm1 => Unary::Expm1, "e^x - 1, accurate near 0.";
        log => Unary::Log, "Natural logarithm.";
        log2 => Unary::Log2, "Base-2 logarithm.";
        log10 => Unary::Log10, "Base-10 logarithm.";
        log1p => Unary::Log1p, "ln(1 + x), accurate near 0.";
        sqrt => Unary::Sqrt, "Square root.";
        rsqrt => Unary::Rsqrt, "1 / sqrt(x).";
        cbrt => Unary::Cbrt, "Cube root.";
        sin => Unary::Sin, "Sine.";
        cos => Unary::Cos, "Cosine.";
        tan => Unary::Tan, "Tangent.";
        asin => Unary::Asin, "Arcsine.";
        acos => Unary::Acos, "Arccosine.";
        atan => Unary::Atan, "Arctangent.";
        sinh => Unary::Sinh, "Hyperbolic sine.";
        cosh => Unary::Cosh, "Hyperbolic cosine.";
        tanh => Unary::Tanh, "Hyperbolic tangent.";
        asinh => Unary::Asinh, "Inverse hyperbolic sine.";
        acosh => Unary::Acosh, "Inverse hyperbolic cosine.";
        atanh => Unary::Atanh, "Inverse hyperbolic tangent.";
        sigmoid => Unary::Sigmoid, "The logistic function 1 / (1 + e^-x).";
        erf => Unary::Erf, "The error function.";
        erfc => Unary::Erfc, "The complementary error function 1 - erf(x).";
        square => Unary::Square, "x * x.";
        reciprocal => Unary::Reciprocal, "1 / x.";
        degrees => Unary::Degrees, "Radians to degrees.";
        radians => Unary::Radians, "Degrees to radians.";
        floor => Unary::Floor, "Floor.";
        ceil => Unary::Ceil, "Ceiling.";
        round => Unary::Round, "Rounding to the nearest integer, halves to even.";
        trunc => Unary::Trunc, "Rounding toward zero.";
        isnan => Unary::IsNan, "1 where NaN, else 0.";
        isinf => Unary::IsInf, "1 where infinite, else 0.";
        isfinite => Unary::IsFinite, "1 where finite, else 0.";
        logical_not => Unary::LogicalNot, "1 where zero, else 0.";
        sinc => Unary::Sinc, "sin(pi x) / (pi x), 1 at 0, as NumPy's `sinc`.";
        signbit => Unary::SignBit, "1 where the sign bit is set, else 0.";
        spacing => Unary::Spacing, "The gap to the next value away from zero (floats; f64 needs 64-bit integers).";
        bitwise_not => Unary::BitwiseNot, "Bitwise not (integers).";
    }

    binary_fns! {
        maximum => Binary::Maximum, "The larger value (NaN if either is NaN).";
        minimum => Binary::Minimum, "The smaller value (NaN if either is NaN).";
        fmax => Binary::Fmax, "The larger value, ignoring a NaN.";
        fmin => Binary::Fmin, "The smaller value, ignoring a NaN.";
        pow => Binary::Pow, "`self` to the power `other`.";
        atan2 => Binary::Atan2, "The four-quadrant arctangent of `self / other`.";
        hypot => Binary::Hypot, "sqrt(x² + y²) without overflow.";
        copysign => Binary::Copysign, "|x| with the sign of `other`.";
        remainder => Binary::Remainder, "Remainder with the sign of the divisor (NumPy's `%`).";
        floor_divide => Binary::FloorDivide, "Quotient rounded toward minus infinity.";
        eq => Binary::Eq, "1 where equal, else 0.";
        ne => Binary::Ne, "1 where not equal (NaN included), else 0.";
        lt => Binary::Lt, "1 where `self < other`, else 0.";
        le => Binary::Le, "1 where `self <= other`, else 0.";
        gt => Binary::Gt, "1 where `self > other`, else 0.";
        ge => Binary::Ge, "1 where `self >= other`, else 0.";
        logical_and => Binary::LogicalAnd, "1 where both are non-zero, else 0.";
        logical_or => Binary::LogicalOr, "1 where either is non-zero, else 0.";
        logical_xor => Binary::LogicalXor, "1 where exactly one is non-zero.";
        logaddexp => Binary::LogAddExp, "log(e^x + e^y) without overflow.";
        logaddexp2 => Binary::LogAddExp2, "log2(2^x + 2^y) without overflow.";
        heaviside => Binary::Heaviside, "0 below 0, 1 above, `other` at 0.";
        gcd => Binary::Gcd, "Greatest common divisor (i32, u32).";
        lcm => Binary::Lcm, "Least common multiple (i32, u32).";
        nextafter => Binary::NextAfter, "The next value toward `other` (floats; f64 needs 64-bit integers).";
        ldexp => Binary::Ldexp, "x 2^n, `other` an integer value (clamped).";
        bitwise_and => Binary::BitwiseAnd, "Bitwise and (integers).";
        bitwise_or => Binary::BitwiseOr, "Bitwise or (integers).";
        bitwise_xor => Binary::BitwiseXor, "Bitwise exclusive or (integers).";
        left_shift => Binary::LeftShift, "Left shift; counts past the width give 0.";
        right_shift => Binary::RightShift, "Right shift (arithmetic for i32).";
    }

    /// `self` clamped to `[lo, hi]`: `minimum(maximum(self, lo), hi)`, as
    /// [`Array::clip`] (a NaN operand or bound gives NaN), with bounds that may be values.
    ///
    /// ```
    /// use gpuarray::custom::fuse;
    /// # let dev = gpuarray::Device::new()?;
    /// let f = fuse(&dev, |[x, hi]| x.clip(0.0, hi))?;
    /// let x = dev.from_slice(&[-1.0f32, 0.5, 3.0], [3])?;
    /// let hi = dev.from_slice(&[1.0f32, 1.0, 2.0], [3])?;
    /// assert_eq!(f.call::<f32>(&[&x, &hi])?.to_vec()?, vec![0.0, 0.5, 2.0]);
    /// # Ok::<(), gpuarray::Error>(())
    /// ```
    pub fn clip(self, lo: impl Into<Var>, hi: impl Into<Var>) -> Var {
        self.maximum(lo).minimum(hi)
    }

    /// `x` where `cond` is non-zero (NaN included), else `y`, as NumPy's three-argument
    /// `where`.
    ///
    /// ```
    /// use gpuarray::custom::{fuse, Var};
    /// # let dev = gpuarray::Device::new()?;
    /// let relu = fuse(&dev, |[x]| Var::where_(x.gt(0.0), x, 0.0))?;
    /// let x = dev.from_slice(&[-1.0f32, 2.0], [2])?;
    /// assert_eq!(relu.call::<f32>(&[&x])?.to_vec()?, vec![0.0, 2.0]);
    /// # Ok::<(), gpuarray::Error>(())
    /// ```
    pub fn where_(cond: Var, x: impl Into<Var>, y: impl Into<Var>) -> Var {
        push(Node::Where(cond, x.into(), y.into()))
    }
}

impl From<f64> for Var {
    fn from(v: f64) -> Var {
        push(Node::Const(v))
    }
}

impl From<f32> for Var {
    fn from(v: f32) -> Var {
        push(Node::Const(v.into()))
    }
}

impl From<i32> for Var {
    fn from(v: i32) -> Var {
        push(Node::Const(v.into()))
    }
}

macro_rules! infix {
    ($($trait:ident, $method:ident, $op:expr;)*) => {$(
        impl<R: Into<Var>> ops::$trait<R> for Var {
            type Output = Var;
            fn $method(self, rhs: R) -> Var {
                push(Node::Binary($op, self, rhs.into()))
            }
        }
        impl ops::$trait<Var> for f64 {
            type Output = Var;
            fn $method(self, rhs: Var) -> Var {
                push(Node::Binary($op, Var::from(self), rhs))
            }
        }
    )*};
}
infix! {
    Add, add, Binary::Add;
    Sub, sub, Binary::Sub;
    Mul, mul, Binary::Mul;
    Div, div, Binary::Div;
    Rem, rem, Binary::Rem;
}

impl ops::Neg for Var {
    type Output = Var;
    fn neg(self) -> Var {
        push(Node::Unary(Unary::Neg, self))
    }
}

/// A fused kernel made by [`fuse`]: one dispatch for the whole expression, including a
/// reduction it ends in (such as [`Var::sum`]: the expression runs in the reduction's load;
/// a long reduction adds one dispatch over partial results), compiled once per dtype.
#[derive(Debug)]
pub struct Fused {
    dev: Device,
    /// The traced expression, up to its root (the reduction's operand where it ends in one).
    nodes: Vec<Node>,
    root: Var,
    reduce: Option<(Reduction, Along)>,
    inputs: usize,
    kernels: Mutex<HashMap<DType, Compiled>>,
}

/// The kernel of a fused expression for one dtype, and its generated helpers and body (which
/// a fused reduction evaluates in its load).
type Compiled = (Arc<ElementwiseKernel>, Arc<(String, String)>);

const INNER_REDUCTION: Error = Error::InvalidArgument {
    op: "fuse",
    reason: "a reduction (sum, prod, max, min, mean) may only be the outermost operation",
};

/// An operation of the table, the key of its helper function in a generated kernel.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
enum TableOp {
    Unary(Unary),
    Binary(Binary),
}

/// The WGSL of a fused expression for dtype `d`: the helper functions (one per operation
/// of the table it uses, on `T` values, masks converted to `T`), the body (one `let` per
/// node reached from the root), and whether every operation works on vec4 values.
struct Generated {
    helpers: String,
    body: String,
    vec4: bool,
}

/// `unsupported` is the error for an operation the table lacks for `d`; `bits64` whether
/// the device has 64-bit integers (an f64 expression then keeps its values through their
/// bits, in scalar kernels).
fn generate(
    nodes: &[Node],
    root: Var,
    (d, bits64): (DType, bool),
    unsupported: &dyn Fn() -> Error,
) -> Result<Generated> {
    let mut used = vec![false; nodes.len()];
    used[root.0 as usize] = true;
    for k in (0..nodes.len()).rev() {
        if used[k] {
            for v in operands(&nodes[k]) {
                used[v.0 as usize] = true;
            }
        }
    }
    let mut g = Generated {
        helpers: String::new(),
        body: String::new(),
        vec4: true,
    };
    let mut names: HashMap<TableOp, String> = HashMap::new();
    let keep = d.is_float();
    if keep {
        let bits = bits64 && d == DType::F64;
        g.vec4 &= !bits;
        g.helpers.push_str(keep_defs(d, bits));
    }
    let same = structure(nodes);
    let ctx = (d, bits64);
    for (k, node) in nodes.iter().enumerate().filter(|(k, _)| used[*k]) {
        let e = match *node {
            Node::Input(j) => format!("v{j}"),
            Node::Const(c) if keep => format!("keep_({})", constant(c)),
            Node::Const(c) => constant(c),
            Node::Unary(op, x) => {
                let f = helper(&mut g, &mut names, TableOp::Unary(op), ctx, unsupported)?;
                format!("{f}(t{})", x.0)
            }
            Node::Binary(op, x, y) => {
                let f = helper(&mut g, &mut names, TableOp::Binary(op), ctx, unsupported)?;
                if keep && same[x.0 as usize] == same[y.0 as usize] {
                    format!("{f}(t{}, keep2_(t{}))", x.0, y.0)
                } else {
                    format!("{f}(t{}, t{})", x.0, y.0)
                }
            }
            Node::Where(c, x, y) => format!(
                "select(t{}, t{}, {})",
                y.0,
                x.0,
                truth(d, &format!("t{}", c.0))
            ),
            Node::Reduce(..) => return Err(INNER_REDUCTION),
        };
        let e = match node {
            Node::Unary(..) | Node::Binary(..) if keep => format!("keep_({e})"),
            _ => e,
        };
        g.body.push_str(&format!("    let t{k}: T = {e};\n"));
    }
    g.body.push_str(&format!("    fused_out = t{};\n", root.0));
    Ok(g)
}

/// The values a node reads.
fn operands(n: &Node) -> Vec<Var> {
    match *n {
        Node::Input(_) | Node::Const(_) => vec![],
        Node::Unary(_, x) | Node::Reduce(_, _, x) => vec![x],
        Node::Binary(_, x, y) => vec![x, y],
        Node::Where(c, x, y) => vec![c, x, y],
    }
}

/// A constant as a `T` (an integer literal where exact, for integer dtypes).
fn constant(c: f64) -> String {
    if c.fract() == 0.0 && c.abs() < 2e9 {
        format!("T({})", c as i64)
    } else {
        format!("T({c:?})")
    }
}

/// The name of the helper function computing `op` for dtype `d`, defined on first use
/// with the table's expression; `unsupported()` where the table lacks it for `d`.
fn helper(
    g: &mut Generated,
    names: &mut HashMap<TableOp, String>,
    op: TableOp,
    (d, bits64): (DType, bool),
    unsupported: &dyn Fn() -> Error,
) -> Result<String> {
    if let Some(f) = names.get(&op) {
        return Ok(f.clone());
    }
    let f = format!("fz{}_", names.len());
    let (def, found) = match op {
        TableOp::Unary(u) => (format!("fn {f}(a: T) -> T"), u.expr(d)),
        TableOp::Binary(b) => (format!("fn {f}(a: T, b: T) -> T"), b.expr(d, "a", "b")),
    };
    let Some((e, vec_ok)) = found else {
        return Err(unsupported());
    };
    // The f64 functions built from the bits need 64-bit integers; their source joins the
    // helpers once.
    if crate::ops::elementwise::uses_f64_bits(&e) {
        if !bits64 {
            return Err(unsupported());
        }
        if !crate::ops::elementwise::uses_f64_bits(&g.helpers) {
            g.helpers.push_str("#import f64_bits\n");
        }
    }
    g.vec4 &= vec_ok;
    // `T(...)` converts a mask (`U`, here u32) and leaves other values as they are.
    g.helpers.push_str(&format!("{def} {{ return T({e}); }}\n"));
    names.insert(op, f.clone());
    Ok(f)
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

/// The WGSL of `f` over `N` inputs named `v0`, `v1`... for dtype `d` (see [`generate`]):
/// the helper functions, and a body of `let` lines ending in `fused_out = ...;`. `op`
/// names the caller in the error for a reduction anywhere.
pub(crate) fn expression<const N: usize>(
    op: &'static str,
    d: DType,
    dev: &Device,
    f: impl Fn([Var; N]) -> Var,
) -> Result<(String, String)> {
    let (nodes, root) = trace(f);
    if nodes.iter().any(|n| matches!(n, Node::Reduce(..))) {
        return Err(Error::InvalidArgument {
            op,
            reason: "a reduction cannot appear here",
        });
    }
    let g = generate(&nodes, root, (d, dev.supports_dtype(DType::U64)), &|| {
        dev.unsupported("fuse", d)
    })?;
    Ok((g.helpers, g.body))
}

/// Traces `f` over `N` symbolic inputs into one elementwise kernel, as `cupy.fuse`. Call
/// the result with arrays (broadcast together) or scalars, all of one dtype; the kernel is
/// compiled on the first call for each dtype.
///
/// # Errors
/// [`Error::InvalidArgument`] when a reduction ([`Var::sum`], ...) is not the outermost
/// operation; [`Error::DeviceLost`] on a lost (or destroyed) device.
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
    let (mut nodes, root) = trace(f);
    let (reduce, root) = match &nodes[root.0 as usize] {
        Node::Reduce(r, along, x) => (Some((*r, along.clone())), *x),
        _ => (None, root),
    };
    nodes.truncate(root.0 as usize + 1);
    if nodes.iter().any(|n| matches!(n, Node::Reduce(..))) {
        return Err(INNER_REDUCTION);
    }
    Ok(Fused {
        dev: dev.clone(),
        nodes,
        root,
        reduce,
        inputs: N,
        kernels: Mutex::new(HashMap::new()),
    })
}

impl Fused {
    /// The kernel for dtype `d`, compiled on first use, and the expression's WGSL.
    fn kernel(&self, d: DType) -> Result<Compiled> {
        if let Some(k) = lock(&self.kernels).get(&d) {
            return Ok(k.clone());
        }
        self.dev.require("fuse", d)?;
        let bits64 = self.dev.supports_dtype(DType::U64);
        let g = generate(&self.nodes, self.root, (d, bits64), &|| {
            self.dev.unsupported("fuse", d)
        })?;
        let params: Vec<String> = (0..self.inputs).map(|k| format!("T v{k}")).collect();
        let k = Arc::new(ElementwiseKernel::with_library(
            &self.dev,
            &params.join(", "),
            "T fused_out",
            &g.body,
            "fused",
            (d, g.helpers.clone(), g.vec4),
        )?);
        let c = (k, Arc::new((g.helpers, g.body)));
        lock(&self.kernels).insert(d, c.clone());
        Ok(c)
    }

    /// Runs the fused kernel on `args` (one per input of the closure), computing in `T`
    /// (the dtype of the array arguments).
    ///
    /// # Errors
    /// As [`ElementwiseKernel::call`]; [`Error::Unsupported`] where an operation of the
    /// expression does not exist for `T` (as the [`Array`] method would refuse it);
    /// [`Error::AxisOutOfRange`] for a reduction over an axis the result lacks;
    /// [`Error::InvalidArgument`] for max or min over no elements.
    ///
    /// ```
    /// use gpuarray::custom::fuse;
    /// # let dev = gpuarray::Device::new()?;
    /// let sum_of_products = fuse(&dev, |[x, y]| (x * y).sum_axis(-1, false))?;
    /// let x = dev.from_slice(&[1.0f32, 2.0, 3.0, 4.0], [2, 2])?;
    /// assert_eq!(sum_of_products.call::<f32>(&[&x, &x])?.to_vec()?, vec![5.0, 25.0]);
    /// # Ok::<(), gpuarray::Error>(())
    /// ```
    pub fn call<T: Element>(&self, args: &[&dyn KernelArg]) -> Result<Array<T>> {
        let (kernel, g) = self.kernel(T::DTYPE)?;
        let Some((r, (axis, keepdims))) = &self.reduce else {
            return kernel.call::<T>(args);
        };
        let fusion = Fusion {
            kernel: &kernel,
            inputs: self.inputs,
            helpers: &g.0,
            body: &g.1,
            reduction: *r,
            axis,
            keepdims: *keepdims,
        };
        if let Some(out) = fused_reduce::reduce::<T>(&self.dev, &fusion, args)? {
            return Ok(out);
        }
        // Dtypes, sizes and empty reductions the one kernel leaves to the elementwise
        // kernel and the built-in reduction (their errors and empty results).
        let y = kernel.call::<T>(args)?;
        let (axis, keepdims) = (axis.clone(), *keepdims);
        match r {
            Reduction::Sum => y.sum_axis(axis, keepdims),
            Reduction::Prod => y.prod_axis(axis, keepdims),
            Reduction::Max | Reduction::Min => {
                let axes = axis.resolve_opt(y.ndim(), "max")?;
                let max = matches!(r, Reduction::Max);
                crate::ops::reduce::extreme_of(&y, max, axes.as_deref(), keepdims)
            }
            Reduction::Mean => {
                let axes = axis.resolve_opt(y.ndim(), "mean")?;
                crate::ops::reduce::mean_of(&y, axes.as_deref(), keepdims)
            }
        }
    }
}

/// The helpers and body of a sample expression over two inputs for dtype `d`, for the
/// shader validation test of fused reductions.
#[cfg(test)]
pub(super) fn sample(d: DType) -> (String, String) {
    let (nodes, root) = trace(|[x, y]: [Var; 2]| x * y + x.maximum(y) - 1.0);
    let g = generate(&nodes, root, (d, true), &|| INNER_REDUCTION).expect("every dtype has these");
    (g.helpers, g.body)
}
