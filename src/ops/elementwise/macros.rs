//! The macros that declare the family's simple methods from one row each (name, table
//! entry, doc text and a doc example's values), used by the method files of this folder.
//! Each expands to a method calling `map_unary` / `map_binary`, which the invoking file
//! imports.

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
macro_rules! float_unary {
    ($( $(#[$attr:meta])* $name:ident, $op:ident, $doc:literal, $input:literal, $want:literal; )*) => {$(
        #[doc = $doc]
        ///
        /// # Errors
        /// [`Error::Unsupported`] when the adapter lacks `T`.
        ///
        /// ```
        /// # let dev = gpuarray::Device::new()?;
        #[doc = concat!("let x = dev.from_slice(&[", $input, "], [2])?;")]
        #[doc = concat!("let y = x.", stringify!($name), "()?.to_vec()?;")]
        #[doc = concat!("let want = [", $want, "];")]
        /// for (g, w) in y.iter().zip(want) {
        ///     assert!((g - w).abs() <= 1e-6 * w.abs().max(1.0), "{g} vs {w}");
        /// }
        /// # Ok::<(), gpuarray::Error>(())
        /// ```
        $(#[$attr])*
        pub fn $name(&self) -> Result<Array<T>> {
            map_unary(self, Unary::$op, &[])
        }
    )*};
}
macro_rules! element_binary {
    ($( $(#[$attr:meta])* $name:ident, $op:ident, $out:ty, $doc:literal, $x:literal, $y:literal, $want:literal; )*) => {$(
        #[doc = concat!($doc, ", with NumPy broadcasting.")]
        ///
        /// # Errors
        /// [`Error::ShapeMismatch`] when the shapes do not broadcast together;
        /// [`Error::Unsupported`] where the operation does not exist for `T`.
        ///
        /// ```
        /// # let dev = gpuarray::Device::new()?;
        #[doc = concat!("let x = dev.from_slice(&[", $x, "], [3])?;")]
        #[doc = concat!("let y = dev.from_slice(&[", $y, "], [3])?;")]
        #[doc = concat!("assert_eq!(x.", stringify!($name), "(&y)?.to_vec()?, vec![", $want, "]);")]
        /// # Ok::<(), gpuarray::Error>(())
        /// ```
        $(#[$attr])*
        pub fn $name(&self, other: &Array<T>) -> Result<Array<$out>> {
            map_binary(self, other, Binary::$op)
        }
    )*};
}
macro_rules! element_unary {
    ($( $(#[$attr:meta])* $name:ident, $op:ident, $out:ty, $doc:literal, $x:literal, $want:literal; )*) => {$(
        #[doc = $doc]
        ///
        /// # Errors
        /// [`Error::Unsupported`] where the operation does not exist for `T`.
        ///
        /// ```
        /// # let dev = gpuarray::Device::new()?;
        #[doc = concat!("let x = dev.from_slice(&[", $x, "], [3])?;")]
        #[doc = concat!("assert_eq!(x.", stringify!($name), "()?.to_vec()?, vec![", $want, "]);")]
        /// # Ok::<(), gpuarray::Error>(())
        /// ```
        $(#[$attr])*
        pub fn $name(&self) -> Result<Array<$out>> {
            map_unary(self, Unary::$op, &[])
        }
    )*};
}
