//! Elementwise math with NumPy broadcasting. Host side of shaders/elementwise.wgsl.
//!
//! Each operation is a WGSL expression over `a` (and `b`, `c`) specialised per dtype. f16
//! division and math functions are computed in f32 and rounded once, as NumPy does (some
//! drivers' f16 arithmetic is off by several ulps).
//! Contiguous operands of one shape take the `*_contig` entries, vectorised with vec4 loads
//! when every offset and the length are multiples of 4; other layouts take the `*_strided`
//! entries, after adjacent axes that are contiguous in every operand have been merged.
//!
//! This file holds the public [`Array`] methods and operators; `expr` generates the WGSL of
//! each operation and `plan` chooses the layout and launches.

use crate::array::Array;
use crate::dtype::{DType, Element, Float, Signed};
// `Error` only for the methods' doc links to its variants.
#[allow(unused_imports)]
use crate::error::Error;
use crate::error::Result;
use crate::kernel::launch::Params;
use crate::memory::pool::BufferHandle;
use crate::shape::broadcast_shapes;

mod assign;
mod cast;
mod expr;
mod extra;
mod logical;
mod mathlogic;
mod numpy;
mod operators;
pub(crate) mod packed;
mod plan;
mod tiles;

use cast::cast_expr;
#[cfg(test)]
pub(crate) use expr::all_specs;
use expr::WHERE_DEF;
pub(crate) use expr::{library, uses_f64_bits, Binary, Unary};
pub(crate) use numpy::{truth, NpBinary, NpUnary};
#[cfg(test)]
pub(crate) use packed::all_specs as packed_specs;
use plan::run;
pub(crate) use plan::{broadcast_layout, is_plain, Operand};

/// A new output array, after checking that the adapter has the input dtype; a small one
/// apart from the slabs of `inputs` (see `memory::slab`).
fn output<O: Element>(
    dev: &crate::Device,
    name: &'static str,
    input: DType,
    shape: Vec<usize>,
    inputs: &[&BufferHandle],
) -> Result<Array<O>> {
    dev.require(name, input)?;
    Array::<O>::alloc_with(dev, name, shape, |bytes| dev.alloc_apart(bytes, inputs))
}

/// Applies a one-operand map; `scalars` are its arguments `arg(0u)`, `arg(1u)`.
pub(crate) fn map_unary<T: Element, O: Element>(
    x: &Array<T>,
    op: Unary,
    scalars: &[T],
) -> Result<Array<O>> {
    if T::DTYPE.is_packed() || O::DTYPE.is_packed() {
        return packed::map_unary(x, op, scalars);
    }
    let out = output::<O>(&x.dev, op.name(), T::DTYPE, x.shape.clone(), &[&*x.buf])?;
    map_unary_into(x, op, scalars, out)
}

/// Applies a one-operand map into `out`, a fresh contiguous array of `x`'s shape.
pub(crate) fn map_unary_into<T: Element, O: Element>(
    x: &Array<T>,
    op: Unary,
    scalars: &[T],
    out: Array<O>,
) -> Result<Array<O>> {
    if T::DTYPE.is_packed() || O::DTYPE.is_packed() {
        return packed::map_unary_into(x, op, scalars, out);
    }
    let expr = match op {
        Unary::Cast => Some(cast_expr(T::DTYPE, O::DTYPE)),
        _ => op.expr(T::DTYPE),
    }
    .ok_or_else(|| x.dev.unsupported(op.name(), T::DTYPE))?;
    run::<O>(
        &x.dev,
        T::DTYPE,
        expr,
        &[x.operand()],
        out,
        Params::new(0).scalars(scalars),
    )
}

fn map_binary<T: Element, O: Element>(x: &Array<T>, y: &Array<T>, op: Binary) -> Result<Array<O>> {
    if T::DTYPE.is_packed() {
        return packed::map_binary(x, y, op);
    }
    x.dev.expect_same(op.name(), &[&y.dev])?;
    let shape = broadcast_shapes(op.name(), &x.shape, &y.shape)?;
    let expr = op
        .expr(T::DTYPE, "a", "b")
        .ok_or_else(|| x.dev.unsupported(op.name(), T::DTYPE))?;
    let out = output::<O>(&x.dev, op.name(), T::DTYPE, shape, &[&*x.buf, &*y.buf])?;
    run::<O>(
        &x.dev,
        T::DTYPE,
        expr,
        &[x.operand(), y.operand()],
        out,
        Params::new(0),
    )
}

macro_rules! binary_methods {
    ($( $name:ident, $scalar:ident, $op:ident, $doc:literal, $example:literal; )*) => {$(
        #[doc = concat!($doc, ", with NumPy broadcasting.")]
        ///
        /// # Errors
        /// [`Error::ShapeMismatch`] when the shapes do not broadcast together;
        /// [`Error::Unsupported`] where the operation does not exist for `T`.
        ///
        /// ```
        /// # let dev = gpuarray::Device::new()?;
        /// let x = dev.from_slice(&[1.0f32, 2.0, 3.0, 4.0], [2, 2])?;
        /// let y = dev.from_slice(&[2.0f32, 0.5], [2])?;
        #[doc = concat!("let z = x.", stringify!($name), "(&y)?;")]
        #[doc = concat!("let expected = [", $example, "];")]
        /// assert!(z.to_vec()?.iter().zip(expected).all(|(a, b)| (a - b).abs() < 1e-5));
        /// assert!(x.add(&dev.zeros::<f32>([3])?).is_err());
        /// # Ok::<(), gpuarray::Error>(())
        /// ```
        pub fn $name(&self, other: &Array<T>) -> Result<Array<T>> {
            map_binary(self, other, Binary::$op)
        }

        #[doc = concat!($doc, " with a scalar as the second operand.")]
        ///
        /// # Errors
        /// [`Error::Unsupported`] where the operation does not exist for `T`.
        ///
        /// ```
        /// # let dev = gpuarray::Device::new()?;
        /// let x = dev.from_slice(&[1.0f32, 2.0], [2])?;
        #[doc = concat!("let z = x.", stringify!($scalar), "(2.0)?;")]
        /// assert_eq!(z.len(), 2);
        /// # Ok::<(), gpuarray::Error>(())
        /// ```
        pub fn $scalar(&self, value: T) -> Result<Array<T>> {
            map_unary(self, Unary::Scalar(Binary::$op), &[value])
        }
    )*};
}

macro_rules! comparison_methods {
    ($( $name:ident, $scalar:ident, $op:ident, $sym:literal; )*) => {$(
        #[doc = concat!("Elementwise `self ", $sym, " other` as a boolean mask, with broadcasting.")]
        ///
        /// # Errors
        /// [`Error::ShapeMismatch`] when the shapes do not broadcast together.
        ///
        /// ```
        /// # let dev = gpuarray::Device::new()?;
        /// let x = dev.from_slice(&[1.0f32, 2.0, 3.0], [3])?;
        /// let y = dev.from_slice(&[2.0f32], [1])?;
        #[doc = concat!("let m = x.", stringify!($name), "(&y)?;")]
        #[doc = concat!("assert_eq!(m.to_vec()?, [1.0f32, 2.0, 3.0].map(|v| v ", $sym, " 2.0));")]
        /// # Ok::<(), gpuarray::Error>(())
        /// ```
        pub fn $name(&self, other: &Array<T>) -> Result<Array<bool>> {
            map_binary(self, other, Binary::$op)
        }

        #[doc = concat!("Elementwise `self ", $sym, " value` as a boolean mask.")]
        ///
        /// # Errors
        /// [`Error::Unsupported`] when the adapter lacks `T`.
        ///
        /// ```
        /// # let dev = gpuarray::Device::new()?;
        /// let x = dev.from_slice(&[1i32, 2, 3], [3])?;
        #[doc = concat!("let m = x.", stringify!($scalar), "(2)?;")]
        #[doc = concat!("assert_eq!(m.to_vec()?, [1, 2, 3].map(|v| v ", $sym, " 2));")]
        /// # Ok::<(), gpuarray::Error>(())
        /// ```
        pub fn $scalar(&self, value: T) -> Result<Array<bool>> {
            map_unary(self, Unary::Scalar(Binary::$op), &[value])
        }
    )*};
}

macro_rules! unary_methods {
    ($( $name:ident, $op:ident, $doc:literal; )*) => {$(
        #[doc = $doc]
        ///
        /// f64 is computed in software from f64 arithmetic (Vulkan defines no f64
        /// transcendentals), within 4 ulps; f16 in f32, rounded once.
        ///
        /// # Errors
        /// [`Error::Unsupported`] when the adapter lacks `T`.
        ///
        /// ```
        /// # let dev = gpuarray::Device::new()?;
        /// let x = dev.from_slice(&[0.25f32, 0.5, 2.0], [3])?;
        #[doc = concat!("let y = x.", stringify!($name), "()?;")]
        /// assert_eq!(y.shape(), x.shape());
        /// # Ok::<(), gpuarray::Error>(())
        /// ```
        pub fn $name(&self) -> Result<Array<T>> {
            map_unary(self, Unary::$op, &[])
        }
    )*};
}

impl<T: Element> Array<T> {
    binary_methods! {
        add, add_scalar, Add, "Elementwise sum", "3.0, 2.5, 5.0, 4.5";
        sub, sub_scalar, Sub, "Elementwise difference", "-1.0, 1.5, 1.0, 3.5";
        mul, mul_scalar, Mul, "Elementwise product", "2.0, 1.0, 6.0, 2.0";
        div, div_scalar, Div, "Elementwise quotient (integers: truncated toward zero as Rust's `/`, and 0 where the divisor is 0, as NumPy; [`Array::floor_divide`] rounds down as NumPy's `//`). f32 within 2 ulps for every pair of operands, the extremes included (`inf / -3.4e38` is -inf, `-3.4e38 / -3.4e38` is 1; 0.74 measured on lavapipe), computed from a reciprocal corrected with an exact residual rather than the adapter's division (approximate on NVIDIA); f16 computed in f32 and rounded once (0.5 ulp). IEEE's special values: 0 / 0 and inf / inf NaN, x / ±0 ±inf", "0.5, 4.0, 1.5, 8.0";
        rem, rem_scalar, Rem, "Elementwise remainder with the sign of the dividend, as Rust's `%` and C's `fmod` (NumPy's `fmod`), truncating as [`Array::div`] does for integers. Floats: exact for every finite input (the remainder is always representable), a zero result has the dividend's sign (`rem(-1e10, -100)` is -0), `rem(x, ±0)` and `rem(±inf, y)` are NaN and a finite `x` modulo `±inf` is `x`. Integers: 0 where the divisor is 0, and `i32::MIN % -1` is 0. Compare [`Array::remainder`] (NumPy's `%`, the sign of the divisor)", "1.0, 0.0, 1.0, 0.0";
        remainder, remainder_scalar, Mod, "Elementwise remainder with the sign of the divisor: NumPy's `remainder` (`mod`, Python's `%`), paired with [`Array::floor_divide`] so that `floor_divide(x, y) * y + remainder(x, y)` is `x` (exactly for integers, to rounding for floats). Floats as NumPy computes them: the exact `fmod` moved by the divisor where the signs differ (that sum rounds: `remainder(-1e-30, 1)` is 1, `remainder(-1, inf)` is inf), a zero result has the divisor's sign, `remainder(x, ±0)` is NaN. Integers: 0 where the divisor is 0. Compare [`Array::rem`] (Rust's `%`, the sign of the dividend)", "1.0, 0.0, 1.0, 0.0";
        floor_divide, floor_divide_scalar, FloorDiv, "Elementwise quotient rounded toward minus infinity: NumPy's `floor_divide` (Python's `//`). Floats as NumPy: `(x - fmod(x, y)) / y`, less one where the signs of `y` and the `fmod` differ, snapped to the nearest integer; a zero quotient has the sign of `x / y`; `x / ±0` where the divisor is 0 (±inf or NaN). Integers: 0 where the divisor is 0, and `i32::MIN // -1` wraps to `i32::MIN` (as NumPy). Compare [`Array::div`] (integers truncated toward zero, as Rust's `/`)", "0.0, 4.0, 1.0, 8.0";
        maximum, maximum_scalar, Maximum, "Elementwise maximum (NaN if either is NaN)", "2.0, 2.0, 3.0, 4.0";
        minimum, minimum_scalar, Minimum, "Elementwise minimum (NaN if either is NaN)", "1.0, 0.5, 2.0, 0.5";
        pow, pow_scalar, Pow, "Elementwise power, NumPy's (C99's special values): pow(x, ±0) = 1 and pow(1, y) = 1 even for NaN, pow(-1, ±inf) = 1, pow(x, 1) = x, negative bases with integral exponents (odd ones keep the sign, pow(-0, -1) = -inf), negative finite bases with non-integral exponents NaN, NaN otherwise propagating; subnormal operands are told from zero and from integers by their bits, also on adapters that flush subnormals. f32 within 4 ulps (1.28 measured on lavapipe: y log2|x| in double-f32), f16 computed in f32 and rounded once (0.5 ulp). Integer exponents below 0 give 0 except for bases 1 and -1. f64 in software within 4 ulps, with C99's special values.", "1.0, 1.4142135, 9.0, 2.0";
        atan2, atan2_scalar, Atan2, "Elementwise four-quadrant arctangent of `self / other` (`self` is y, `other` x), in [-pi, pi], with C99's special values (floats only)", "0.4636476, 1.3258177, 0.9827937, 1.4464413";
    }

    comparison_methods! {
        eq, eq_scalar, Eq, "==";
        ne, ne_scalar, Ne, "!=";
        lt, lt_scalar, Lt, "<";
        le, le_scalar, Le, "<=";
        gt, gt_scalar, Gt, ">";
        ge, ge_scalar, Ge, ">=";
    }

    /// `value - self`, elementwise.
    ///
    /// ```
    /// # let dev = gpuarray::Device::new()?;
    /// let x = dev.from_slice(&[1i32, 5], [2])?;
    /// assert_eq!(x.rsub_scalar(10)?.to_vec()?, vec![9, 5]);
    /// # Ok::<(), gpuarray::Error>(())
    /// ```
    ///
    /// # Errors
    /// [`Error::Unsupported`] when the adapter lacks `T`.
    pub fn rsub_scalar(&self, value: T) -> Result<Array<T>> {
        map_unary(self, Unary::ScalarLeft(Binary::Sub), &[value])
    }

    /// `value / self`, elementwise.
    ///
    /// ```
    /// # let dev = gpuarray::Device::new()?;
    /// let x = dev.from_slice(&[2.0f32, 4.0], [2])?;
    /// assert_eq!(x.rdiv_scalar(1.0)?.to_vec()?, vec![0.5, 0.25]);
    /// # Ok::<(), gpuarray::Error>(())
    /// ```
    ///
    /// # Errors
    /// [`Error::Unsupported`] when the adapter lacks `T`.
    pub fn rdiv_scalar(&self, value: T) -> Result<Array<T>> {
        map_unary(self, Unary::ScalarLeft(Binary::Div), &[value])
    }

    /// Each element clamped to `[lo, hi]`, as NumPy's `minimum(maximum(x, lo), hi)`: a NaN
    /// element stays NaN, and a NaN bound gives NaN (floats).
    ///
    /// ```
    /// # let dev = gpuarray::Device::new()?;
    /// let x = dev.from_slice(&[-3i32, 0, 9], [3])?;
    /// assert_eq!(x.clip(-1, 5)?.to_vec()?, vec![-1, 0, 5]);
    /// # Ok::<(), gpuarray::Error>(())
    /// ```
    ///
    /// # Errors
    /// [`Error::Unsupported`] when the adapter lacks `T`.
    pub fn clip(&self, lo: T, hi: T) -> Result<Array<T>> {
        map_unary(self, Unary::Clip, &[lo, hi])
    }

    /// Elements of `x` where `mask` is true, else of `y`, broadcasting all three.
    ///
    /// # Errors
    /// [`Error::ShapeMismatch`] when the shapes do not broadcast together.
    ///
    /// ```
    /// use gpuarray::Array;
    /// # let dev = gpuarray::Device::new()?;
    /// let x = dev.from_slice(&[1.0f32, 2.0, 3.0], [3])?;
    /// let y = dev.zeros::<f32>([3])?;
    /// let m = x.gt_scalar(1.5)?;
    /// assert_eq!(Array::where_(&m, &x, &y)?.to_vec()?, vec![0.0, 2.0, 3.0]);
    /// # Ok::<(), gpuarray::Error>(())
    /// ```
    pub fn where_(mask: &Array<bool>, x: &Array<T>, y: &Array<T>) -> Result<Array<T>> {
        x.dev.expect_same("where", &[&y.dev, &mask.dev])?;
        let xy = broadcast_shapes("where", &x.shape, &y.shape)?;
        let shape = broadcast_shapes("where", &xy, &mask.shape)?;
        let inputs = [&*x.buf, &*y.buf, &*mask.buf];
        let out = output::<T>(&x.dev, "where", T::DTYPE, shape, &inputs)?;
        run::<T>(
            &x.dev,
            T::DTYPE,
            (WHERE_DEF.to_string(), true),
            &[x.operand(), y.operand(), mask.operand()],
            out,
            Params::new(0),
        )
    }
}

impl<T: Signed> Array<T> {
    unary_methods! {
        neg, Neg, "Elementwise negation.";
        abs, Abs, "Elementwise absolute value.";
        sign, Sign, "Elementwise sign: -1, 0 or 1 (NaN for NaN).";
    }
}

impl<T: Float> Array<T> {
    unary_methods! {
        exp, Exp, "Elementwise e^x. f32 within 4 ulps of the correctly rounded result (1.14 measured on lavapipe), f16 computed in f32 and rounded once (0.5 ulp of f16), on every adapter (no approximate built-in); e^-inf = 0, NaN stays NaN. f64: in software (f64 arithmetic only), within 4 ulps.";
        exp2, Exp2, "Elementwise 2^x. f32 within 4 ulps (1.19 measured), f16 rounded once from f32 (0.5 ulp); 2^-inf = 0. f64: in software (f64 arithmetic only), within 4 ulps.";
        log, Log, "Elementwise natural logarithm. f32 within 4 ulps (0.75 measured) over the whole range, subnormal inputs included (read from their bits, so adapters that flush subnormals still see them); f16 0.5 ulp. log(±0) = -inf, negative x NaN. f64: in software (f64 arithmetic only), within 4 ulps.";
        log2, Log2, "Elementwise base-2 logarithm. f32 within 4 ulps (0.83 measured, near 1 too), f16 0.5 ulp; log2(±0) = -inf, negative x NaN. f64: in software (f64 arithmetic only), within 4 ulps.";
        log1p, Log1p, "Elementwise ln(1 + x), accurate for small x too: f32 within 4 ulps over the whole range (0.76 measured), f16 0.5 ulp; log1p(-1) = -inf, x < -1 NaN, log1p(-0) = -0. f64: in software (f64 arithmetic only), within 4 ulps.";
        expm1, Expm1, "Elementwise e^x - 1, accurate for small x too: f32 within 4 ulps over the whole range (1.25 measured), f16 0.5 ulp; expm1(-inf) = -1, expm1(-0) = -0. f64: in software (f64 arithmetic only), within 4 ulps.";
        sqrt, Sqrt, "Elementwise square root. f32 within 2 ulps (0.5 measured: a Newton step with an exact residual), f16 0.5 ulp; sqrt(-0) = -0, negative x NaN. f64: in software (f64 arithmetic only), within 4 ulps.";
        rsqrt, Rsqrt, "Elementwise 1 / sqrt(x). f32 within 4 ulps (1.48 measured), f16 0.5 ulp; rsqrt(±0) = ±inf. f64: in software (f64 arithmetic only), within 4 ulps.";
        sin, Sin, "Elementwise sine. f32 within 4 ulps (1.37 measured) for every finite argument, the largest included (exact range reduction: Cody-Waite below 98304, Payne-Hanek in integer arithmetic above); f16 0.5 ulp; sin(±inf) NaN, sin(-0) = -0. f64: in software (f64 arithmetic only), within 4 ulps for every finite argument (exact reduction: Cody-Waite below 2^20, Payne-Hanek above).";
        cos, Cos, "Elementwise cosine. f32 within 4 ulps (1.40 measured) for every finite argument (exact range reduction, as `sin`); f16 0.5 ulp; cos(±inf) NaN. f64: in software (f64 arithmetic only), within 4 ulps for every finite argument (exact reduction: Cody-Waite below 2^20, Payne-Hanek above).";
        tan, Tan, "Elementwise tangent. f32 within 4 ulps (2.46 measured) for every finite argument (exact range reduction, as `sin`); f16 0.5 ulp; tan(±inf) NaN, tan(-0) = -0. f64: in software (f64 arithmetic only), within 4 ulps for every finite argument (exact reduction: Cody-Waite below 2^20, Payne-Hanek above).";
        tanh, Tanh, "Elementwise hyperbolic tangent. f32 within 4 ulps (2.27 measured), small x too; f16 0.5 ulp; tanh(±inf) = ±1, NaN stays NaN, tanh(-0) = -0. f64: in software (f64 arithmetic only), within 4 ulps.";
        sigmoid, Sigmoid, "Elementwise logistic function 1 / (1 + e^-x). f32 within 4 ulps (2.13 measured), subnormal results for x down to -103 kept; f16 0.5 ulp. f64: in software (f64 arithmetic only), within 4 ulps.";
        log10, Log10, "Elementwise base-10 logarithm.";
        sinh, Sinh, "Elementwise hyperbolic sine.";
        cosh, Cosh, "Elementwise hyperbolic cosine.";
        asin, Asin, "Elementwise arcsine, in [-pi/2, pi/2] (NaN outside [-1, 1]).";
        acos, Acos, "Elementwise arccosine, in [0, pi] (NaN outside [-1, 1]).";
        atan, Atan, "Elementwise arctangent, in [-pi/2, pi/2].";
        cbrt, Cbrt, "Elementwise cube root (negative for negative inputs).";
        floor, Floor, "Elementwise floor.";
        ceil, Ceil, "Elementwise ceiling.";
        round, Round, "Elementwise rounding to the nearest integer, halves to even (as NumPy).";
    }

    /// Elementwise error function erf(x) = 2/sqrt(pi) * integral of e^(-t^2) over [0, x],
    /// odd, in [-1, 1]. Within 4 ulps of the correctly rounded result for every float
    /// dtype (f16 computed in f32 and rounded once), from arithmetic only (no built-in
    /// that Vulkan lets be approximate): erf(±0) = ±0, erf(±inf) = ±1, NaN stays NaN.
    ///
    /// # Errors
    /// [`Error::Unsupported`] when the adapter lacks `T`.
    ///
    /// ```
    /// # let dev = gpuarray::Device::new()?;
    /// let x = dev.from_slice(&[0.0f32, 0.5, -1.0, 10.0], [4])?;
    /// let y = x.erf()?.to_vec()?;
    /// let want = [0.0, 0.5204999, -0.8427008, 1.0];
    /// for (g, w) in y.iter().zip(want) {
    ///     assert!((g - w).abs() <= 1e-6, "{g} vs {w}");
    /// }
    /// # Ok::<(), gpuarray::Error>(())
    /// ```
    pub fn erf(&self) -> Result<Array<T>> {
        map_unary(self, Unary::Erf, &[])
    }
}
