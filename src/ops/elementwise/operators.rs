//! The arithmetic operators of arrays: `+ - * / %` between arrays (borrowed or owned, with
//! broadcasting), with a scalar on either side (`&a + 1.0`, `2.0 * &a`), unary `-`, and the
//! compound assignments (`a += &b`, `a *= 2.0`), which write into `a`'s own buffer (see
//! [`Array::add_into`]). Every operator panics where its method returns an error (shapes
//! that do not broadcast, a dtype without the operation, a lost device), as ndarray's do;
//! the named methods return a `Result`.

use std::ops;

use super::{map_unary, Binary, Unary};
use crate::array::Array;
use crate::dtype::{f16, Element, Signed};

fn or_panic<R>(r: crate::Result<R>) -> R {
    r.unwrap_or_else(|e| panic!("{e}"))
}

macro_rules! array_operator {
    ($trait:ident, $method:ident, $call:ident, $scalar:ident, $assign:ident, $assign_method:ident, $into:ident, $into_scalar:ident) => {
        impl<T: Element> ops::$trait<&Array<T>> for &Array<T> {
            type Output = Array<T>;
            /// # Panics
            /// When the shapes do not broadcast together (as ndarray's operators do); use
            /// the named method for a `Result`.
            fn $method(self, rhs: &Array<T>) -> Array<T> {
                or_panic(Array::$call(self, rhs))
            }
        }
        impl<T: Element> ops::$trait<Array<T>> for Array<T> {
            type Output = Array<T>;
            /// # Panics
            /// As for borrowed operands.
            fn $method(self, rhs: Array<T>) -> Array<T> {
                or_panic(Array::$call(&self, &rhs))
            }
        }
        impl<T: Element> ops::$trait<&Array<T>> for Array<T> {
            type Output = Array<T>;
            /// # Panics
            /// As for borrowed operands.
            fn $method(self, rhs: &Array<T>) -> Array<T> {
                or_panic(Array::$call(&self, rhs))
            }
        }
        impl<T: Element> ops::$trait<Array<T>> for &Array<T> {
            type Output = Array<T>;
            /// # Panics
            /// As for borrowed operands.
            fn $method(self, rhs: Array<T>) -> Array<T> {
                or_panic(Array::$call(self, &rhs))
            }
        }
        impl<T: Element> ops::$trait<T> for &Array<T> {
            type Output = Array<T>;
            /// # Panics
            /// Where the operation does not exist for `T` or the device fails.
            fn $method(self, rhs: T) -> Array<T> {
                or_panic(self.$scalar(rhs))
            }
        }
        impl<T: Element> ops::$trait<T> for Array<T> {
            type Output = Array<T>;
            /// # Panics
            /// As for a borrowed array.
            fn $method(self, rhs: T) -> Array<T> {
                or_panic(self.$scalar(rhs))
            }
        }
        impl<T: Element> ops::$assign<&Array<T>> for Array<T> {
            /// Written into `self`'s buffer, so every view sharing it sees the result (as
            /// NumPy's `a += b`).
            ///
            /// # Panics
            /// Where [`Array::add_into`] and its siblings return an error: the broadcast
            /// shape is not `self`'s, `self` is a broadcast view.
            fn $assign_method(&mut self, rhs: &Array<T>) {
                let out = self.clone();
                or_panic(self.$into(rhs, &out));
            }
        }
        impl<T: Element> ops::$assign<Array<T>> for Array<T> {
            /// As with a borrowed right operand.
            ///
            /// # Panics
            /// As with a borrowed right operand.
            fn $assign_method(&mut self, rhs: Array<T>) {
                let out = self.clone();
                or_panic(self.$into(&rhs, &out));
            }
        }
        impl<T: Element> ops::$assign<T> for Array<T> {
            /// Written into `self`'s buffer, as with an array operand.
            ///
            /// # Panics
            /// As with an array operand.
            fn $assign_method(&mut self, rhs: T) {
                let out = self.clone();
                or_panic(self.$into_scalar(rhs, &out));
            }
        }
    };
}

array_operator!(
    Add,
    add,
    add,
    add_scalar,
    AddAssign,
    add_assign,
    add_into,
    add_scalar_into
);
array_operator!(
    Sub,
    sub,
    sub,
    sub_scalar,
    SubAssign,
    sub_assign,
    sub_into,
    sub_scalar_into
);
array_operator!(
    Mul,
    mul,
    mul,
    mul_scalar,
    MulAssign,
    mul_assign,
    mul_into,
    mul_scalar_into
);
array_operator!(
    Div,
    div,
    div,
    div_scalar,
    DivAssign,
    div_assign,
    div_into,
    div_scalar_into
);
array_operator!(
    Rem,
    rem,
    rem,
    rem_scalar,
    RemAssign,
    rem_assign,
    rem_into,
    rem_scalar_into
);

/// `scalar op array` for each concrete element type (Rust's orphan rules forbid
/// `impl<T> Add<&Array<T>> for T`).
macro_rules! scalar_left {
    ($($t:ty),*) => {$(
        scalar_left!(@op $t, Add, add, Binary::Add);
        scalar_left!(@op $t, Sub, sub, Binary::Sub);
        scalar_left!(@op $t, Mul, mul, Binary::Mul);
        scalar_left!(@op $t, Div, div, Binary::Div);
        scalar_left!(@op $t, Rem, rem, Binary::Rem);
    )*};
    (@op $t:ty, $trait:ident, $method:ident, $op:expr) => {
        impl ops::$trait<&Array<$t>> for $t {
            type Output = Array<$t>;
            /// # Panics
            /// Where the operation does not exist for the type or the device fails.
            fn $method(self, rhs: &Array<$t>) -> Array<$t> {
                or_panic(map_unary(rhs, Unary::ScalarLeft($op), &[self]))
            }
        }
        impl ops::$trait<Array<$t>> for $t {
            type Output = Array<$t>;
            /// # Panics
            /// As with a borrowed array.
            fn $method(self, rhs: Array<$t>) -> Array<$t> {
                or_panic(map_unary(&rhs, Unary::ScalarLeft($op), &[self]))
            }
        }
    };
}

scalar_left!(f32, f64, f16, i32, u32, i64, u64);

impl<T: Signed> ops::Neg for &Array<T> {
    type Output = Array<T>;
    /// # Panics
    /// When the device fails; use [`Array::neg`] for a `Result`.
    fn neg(self) -> Array<T> {
        or_panic(Array::neg(self))
    }
}

impl<T: Signed> ops::Neg for Array<T> {
    type Output = Array<T>;
    /// # Panics
    /// When the device fails; use [`Array::neg`] for a `Result`.
    fn neg(self) -> Array<T> {
        or_panic(Array::neg(&self))
    }
}
