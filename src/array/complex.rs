//! Complex arrays seen as arrays of their components: a complex64 (complex128) array of
//! shape `S`, strides `st` and offset `o` holds the same bytes as an f32 (f64) array of shape
//! `S + [2]`, strides `2 st + [1]` and offset `2 o` (NumPy's `x.view(np.float32)` with the
//! extra axis). Every family that only moves elements runs a complex array as that real
//! view, its last axis carried along untouched: the real kernels move the interleaved pairs
//! whole, bit for bit, on every adapter that stores the component type.

use std::marker::PhantomData;

use super::Array;
use crate::dtype::Element;

/// Runs `$body` with the type alias `$r` bound to the component type of the complex dtype
/// `$d` (f32 for complex64, f64 for complex128). Only for complex dtypes.
macro_rules! by_component {
    ($d:expr, $r:ident => $body:expr) => {
        match $d {
            $crate::dtype::DType::Complex64 => {
                type $r = f32;
                $body
            }
            $crate::dtype::DType::Complex128 => {
                type $r = f64;
                $body
            }
            d => unreachable!("by_component on the real dtype {d}"),
        }
    };
}
pub(crate) use by_component;

impl<T: Element> Array<T> {
    /// The complex array as its real components: shape `S + [2]` (real part at 0, imaginary
    /// at 1), sharing the buffer. `R` must be `T`'s component type.
    pub(crate) fn components<R: Element>(&self) -> Array<R> {
        assert_eq!(
            T::DTYPE.component(),
            Some(R::DTYPE),
            "components of {}",
            T::DTYPE
        );
        let mut shape = self.shape.clone();
        shape.push(2);
        let mut strides: Vec<isize> = self.strides.iter().map(|&s| 2 * s).collect();
        strides.push(1);
        Array {
            dev: self.dev.clone(),
            buf: self.buf.clone(),
            shape,
            strides,
            offset: 2 * self.offset,
            _t: PhantomData,
        }
    }

    /// One component of the complex array (0 the real parts, 1 the imaginary parts) as a
    /// strided real view of the same buffer, of the same shape.
    pub(crate) fn component_view<R: Element>(&self, k: usize) -> Array<R> {
        assert_eq!(
            T::DTYPE.component(),
            Some(R::DTYPE),
            "components of {}",
            T::DTYPE
        );
        Array {
            dev: self.dev.clone(),
            buf: self.buf.clone(),
            shape: self.shape.clone(),
            strides: self.strides.iter().map(|&s| 2 * s).collect(),
            offset: 2 * self.offset + k,
            _t: PhantomData,
        }
    }

    /// The inverse of [`Array::components`]: a real array whose last axis holds 2 elements
    /// 1 apart, every other stride and the offset even, read as the complex array `C` of
    /// the other axes.
    pub(crate) fn as_complex<C: Element>(&self) -> Array<C> {
        assert_eq!(
            C::DTYPE.component(),
            Some(T::DTYPE),
            "{} of {}",
            C::DTYPE,
            T::DTYPE
        );
        let nd = self.shape.len();
        assert!(
            nd >= 1
                && self.shape[nd - 1] == 2
                && self.strides[nd - 1] == 1
                && self.offset.is_multiple_of(2)
                && self.strides[..nd - 1].iter().all(|s| s % 2 == 0),
            "not a complex layout: {:?} {:?} +{}",
            self.shape,
            self.strides,
            self.offset
        );
        Array {
            dev: self.dev.clone(),
            buf: self.buf.clone(),
            shape: self.shape[..nd - 1].to_vec(),
            strides: self.strides[..nd - 1].iter().map(|&s| s / 2).collect(),
            offset: self.offset / 2,
            _t: PhantomData,
        }
    }

    /// A contiguous real array of `len` elements read as `C` (`len / 2` complex numbers)
    /// of `shape`, C-ordered from offset `self.offset / 2`.
    pub(crate) fn flat_as<C: Element>(&self, shape: Vec<usize>) -> Array<C> {
        assert_eq!(C::DTYPE.size(), 2 * T::DTYPE.size());
        assert!(self.offset.is_multiple_of(2));
        Array {
            dev: self.dev.clone(),
            buf: self.buf.clone(),
            strides: crate::shape::contiguous_strides(&shape),
            shape,
            offset: self.offset / 2,
            _t: PhantomData,
        }
    }
}

/// The two components (real, imaginary) of the complex value `v`, as `R`, its component
/// type.
pub(crate) fn parts<T: Element, R: Element>(v: T) -> (R, R) {
    assert_eq!(
        T::DTYPE.component(),
        Some(R::DTYPE),
        "parts of {}",
        T::DTYPE
    );
    let bytes = bytemuck::cast_slice::<T::Repr, u8>(&T::to_repr(&[v])).to_vec();
    let r = R::from_repr(bytemuck::pod_collect_to_vec::<u8, R::Repr>(&bytes));
    (r[0], r[1])
}
