//! Comparisons, classification and logic in the elementwise family as [`Array`] methods:
//! eq, ne, lt, le, gt, ge, isclose, allclose, array_equal, isnan, isinf, isfinite,
//! nan_to_num, logical and, or, xor and not of any dtype, and where. The operations are rows
//! of `table.rs`; the methods of bool arrays alone (`and`, `or`, `xor`, `not`, operators)
//! are in `logical.rs`.

use crate::array::complex::by_component;
use crate::array::Array;
use crate::dtype::{DType, Element, Float, Real};
#[allow(unused_imports)]
use crate::error::Error;
use crate::error::Result;
use crate::kernel::launch::Params;
use crate::shape::broadcast_shapes;

use super::table::{Binary, Unary};
use super::wgsl::WHERE_DEF;
use super::{map_binary, map_unary, output, run};

/// Parameters carrying float arguments in the kernel's scalar carrier (f32 for f16 and f32,
/// f64 for f64).
fn float_params<T: Element>(values: &[f64]) -> Params {
    if T::DTYPE == DType::F64 {
        Params::new(0).scalars(values)
    } else {
        let v: Vec<f32> = values.iter().map(|&x| x as f32).collect();
        Params::new(0).scalars(&v)
    }
}

/// The comparisons that need an order.
impl<T: Real> Array<T> {
    comparison_methods! {
        lt, lt_scalar, Lt, "<";
        le, le_scalar, Le, "<=";
        gt, gt_scalar, Gt, ">";
        ge, ge_scalar, Ge, ">=";
    }
}

impl<T: Element> Array<T> {
    comparison_methods! {
        eq, eq_scalar, Eq, "==";
        ne, ne_scalar, Ne, "!=";
    }

    element_unary! {
        isnan, IsNan, bool, "Elementwise NaN test as a mask, decided from the bits for f32 and f16 (no comparison a compiler could fold); integers are never NaN.", "1.0f32, f32::NAN, f32::INFINITY", "false, true, false";
        isinf, IsInf, bool, "Elementwise test for ±inf as a mask, from the bits for f32 and f16; integers are never infinite.", "1.0f32, f32::NAN, f32::NEG_INFINITY", "false, false, true";
        isfinite, IsFinite, bool, "Elementwise test for a finite value (not NaN nor ±inf) as a mask, from the bits for f32 and f16 (subnormals are finite on adapters that flush them too); integers are always finite.", "1e-45f32, f32::NAN, f32::INFINITY", "true, false, false";
        logical_not, LogicalNot, bool, "Elementwise NumPy truth negated: true where the element is zero (±0) (NaN and subnormals are true, also on adapters that flush subnormals).", "0.0f32, -0.0, f32::NAN", "true, true, false";
    }

    element_binary! {
        logical_and, LogicalAnd, bool, "Elementwise NumPy truth of both operands (non-zero; NaN is true) as a mask", "1.0f32, 0.0, f32::NAN", "2.0f32, 1.0, 1.0", "true, false, true";
        logical_or, LogicalOr, bool, "Elementwise NumPy truth of either operand as a mask", "0i32, 0, 5", "0i32, 3, 0", "false, true, true";
        logical_xor, LogicalXor, bool, "Elementwise NumPy truth of exactly one operand as a mask", "0i32, 2, 5", "0i32, 3, 0", "false, false, true";
    }

    /// Whether both arrays have the same shape and equal elements (NumPy's
    /// `array_equal`; NaN equals nothing, -0 equals 0): the comparison reduced on the
    /// device, one scalar read back. Arrays of different shapes are unequal (no
    /// broadcasting), not an error.
    ///
    /// # Errors
    /// [`Error::DeviceMismatch`] for arrays of two devices; [`Error::Unsupported`] when the
    /// adapter lacks `T`.
    ///
    /// ```
    /// # let dev = gpuarray::Device::new()?;
    /// let x = dev.from_slice(&[1i32, 2, 3], [3])?;
    /// assert!(x.array_equal(&dev.from_slice(&[1i32, 2, 3], [3])?)?);
    /// assert!(!x.array_equal(&dev.from_slice(&[1i32, 2, 3], [1, 3])?)?);
    /// # Ok::<(), gpuarray::Error>(())
    /// ```
    pub fn array_equal(&self, other: &Array<T>) -> Result<bool> {
        self.dev.expect_same("array_equal", &[&other.dev])?;
        if self.shape != other.shape {
            return Ok(false);
        }
        self.eq(other)?.all()?.to_scalar()
    }

    /// Elements of `x` where `mask` is true, else of `y`, broadcasting all three: NumPy's
    /// `where`, for every dtype (the packed u8, i8, u16 and i16 through i32: three more
    /// dispatches).
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
        if T::DTYPE.is_packed() {
            // u8, i8, u16, i16 through i32, which holds each of their values exactly.
            let wide = Array::where_(mask, &x.cast::<i32>()?, &y.cast::<i32>()?)?;
            return wide.cast::<T>();
        }
        if T::DTYPE.is_complex() {
            // The components, the mask broadcast along their axis.
            let m = mask.expand_dims(-1)?;
            return by_component!(T::DTYPE, R => Ok(Array::where_(
                &m,
                &x.components::<R>(),
                &y.components::<R>(),
            )?
            .as_complex::<T>()));
        }
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

impl<T: Float> Array<T> {
    /// NaN replaced by `nan`, +inf by `posinf` and -inf by `neginf` (NumPy's
    /// `nan_to_num`; `None` takes NumPy's defaults: the largest finite value of `T` and its
    /// negative).
    ///
    /// # Errors
    /// [`Error::Unsupported`] when the adapter lacks `T`.
    ///
    /// ```
    /// # let dev = gpuarray::Device::new()?;
    /// let x = dev.from_slice(&[f32::NAN, f32::INFINITY, f32::NEG_INFINITY, 2.0], [4])?;
    /// let y = x.nan_to_num(0.0, None, Some(-1.0))?.to_vec()?;
    /// assert_eq!(y, vec![0.0, f32::MAX, -1.0, 2.0]);
    /// # Ok::<(), gpuarray::Error>(())
    /// ```
    pub fn nan_to_num(&self, nan: T, posinf: Option<T>, neginf: Option<T>) -> Result<Array<T>> {
        let max = match T::DTYPE {
            DType::F16 => 65504.0,
            DType::F32 => f32::MAX as f64,
            _ => f64::MAX,
        };
        let values = [
            nan.to_f64(),
            posinf.map_or(max, |v| v.to_f64()),
            neginf.map_or(-max, |v| v.to_f64()),
        ];
        let out = output::<T>(
            &self.dev,
            "nan_to_num",
            T::DTYPE,
            self.shape.clone(),
            &[&*self.buf],
        )?;
        let expr = Unary::NanToNum.expr(T::DTYPE).expect("floats");
        run::<T>(
            &self.dev,
            T::DTYPE,
            expr,
            &[self.operand()],
            out,
            float_params::<T>(&values),
        )
    }

    /// Elementwise NumPy `isclose`: `|self - other| <= atol + rtol * |other|` for finite
    /// pairs (computed in f32 for f16), equality for the others (infinities of one sign),
    /// and NaN pairs only with `equal_nan`; a mask, broadcasting. NumPy's
    /// defaults are `rtol = 1e-5`, `atol = 1e-8`. On adapters that flush f32 subnormals
    /// (the H100), differences below 2^-126 count as 0.
    ///
    /// # Errors
    /// [`Error::ShapeMismatch`] when the shapes do not broadcast together;
    /// [`Error::InvalidArgument`] for a negative or NaN tolerance;
    /// [`Error::Unsupported`] when the adapter lacks `T`.
    ///
    /// ```
    /// # let dev = gpuarray::Device::new()?;
    /// let x = dev.from_slice(&[1.0f32, 1.0, f32::NAN, f32::INFINITY], [4])?;
    /// let y = dev.from_slice(&[1.000001f32, 1.1, f32::NAN, f32::INFINITY], [4])?;
    /// assert_eq!(x.isclose(&y, 1e-5, 1e-8, true)?.to_vec()?, vec![true, false, true, true]);
    /// assert!(x.isclose(&y, -1.0, 0.0, false).is_err());
    /// # Ok::<(), gpuarray::Error>(())
    /// ```
    pub fn isclose(
        &self,
        other: &Array<T>,
        rtol: f64,
        atol: f64,
        equal_nan: bool,
    ) -> Result<Array<bool>> {
        if !(rtol >= 0.0 && atol >= 0.0) {
            return Err(Error::InvalidArgument {
                op: "isclose",
                reason: "rtol and atol must be non-negative numbers",
            });
        }
        self.dev.expect_same("isclose", &[&other.dev])?;
        let shape = broadcast_shapes("isclose", &self.shape, &other.shape)?;
        let out = output::<bool>(
            &self.dev,
            "isclose",
            T::DTYPE,
            shape,
            &[&*self.buf, &*other.buf],
        )?;
        let expr = Binary::IsClose.expr(T::DTYPE, "a", "b").expect("floats");
        let flag = if equal_nan { 1.0 } else { 0.0 };
        let params = float_params::<T>(&[rtol, atol, flag]);
        run::<bool>(
            &self.dev,
            T::DTYPE,
            expr,
            &[self.operand(), other.operand()],
            out,
            params,
        )
    }

    /// Whether [`Array::isclose`] holds for every pair (NumPy's `allclose`): the mask
    /// reduced on the device, one scalar read back. True for empty arrays.
    ///
    /// # Errors
    /// As [`Array::isclose`].
    ///
    /// ```
    /// # let dev = gpuarray::Device::new()?;
    /// let x = dev.from_slice(&[1.0f32, 2.0], [2])?;
    /// let y = dev.from_slice(&[1.0f32, 2.00001], [2])?;
    /// assert!(x.allclose(&y, 1e-5, 1e-8, false)?);
    /// assert!(!x.allclose(&y, 0.0, 0.0, false)?);
    /// # Ok::<(), gpuarray::Error>(())
    /// ```
    pub fn allclose(
        &self,
        other: &Array<T>,
        rtol: f64,
        atol: f64,
        equal_nan: bool,
    ) -> Result<bool> {
        self.isclose(other, rtol, atol, equal_nan)?
            .all()?
            .to_scalar()
    }
}
