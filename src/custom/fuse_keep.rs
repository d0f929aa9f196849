//! What keeps a fused expression's float values as IEEE computes them: the opaque identity
//! helpers of its kernels and the classes of structurally equal nodes.

use std::collections::HashMap;

use super::{Node, Var};
use crate::dtype::DType;
use crate::ops::elementwise::Binary;

/// `keep_` and `keep2_`, the identity on floats of dtype `d` in a form the compiler cannot
/// see through (two different ones, from the zero `P.aux.x` of every elementwise and fused
/// dispatch). Every computed value and constant of a float expression goes through
/// `keep_`, and the second operand of an operation on two structurally equal values
/// through `keep2_`: naga marks no operation exact (no SignedZeroInfNanPreserve), so a
/// driver may otherwise fold `x - x`, `x + (-x)` or `x * 0` to 0 (lavapipe does, also for
/// NaN and ±inf), `x + 0` to x (-0 for -0), or contract products into sums, and the fused
/// result would lose the bits of the unfused chain.
pub(super) fn keep_defs(d: DType, bits64: bool) -> &'static str {
    match d {
        DType::F64 if bits64 => {
            "fn keep_(v: T) -> T { return bitcast<T>(bitcast<u64>(v) | u64(P.aux.x)); }\n\
             fn keep2_(v: T) -> T { return bitcast<T>(bitcast<u64>(v) | u64(P.aux.x >> 1u)); }\n"
        }
        // Without 64-bit integers, a product with an unknown one: it stops `x - x`, but a
        // compiler may still see `x * (0 * one)` as `x * 0`.
        DType::F64 => {
            "fn keep_(v: T) -> T { return v * (f64(P.aux.x) + 1.0); }\n\
             fn keep2_(v: T) -> T { return v * (f64(P.aux.x >> 1u) + 1.0); }\n"
        }
        DType::F16 => {
            "fn keep_(v: T) -> T { return T(bitcast<TW>(bitcast<M>(TW(v)) | M(P.aux.x))); }\n\
             fn keep2_(v: T) -> T { return T(bitcast<TW>(bitcast<M>(TW(v)) | M(P.aux.x >> 1u))); }\n"
        }
        _ => {
            "fn keep_(v: T) -> T { return bitcast<T>(bitcast<M>(v) | M(P.aux.x)); }\n\
             fn keep2_(v: T) -> T { return bitcast<T>(bitcast<M>(v) | M(P.aux.x >> 1u)); }\n"
        }
    }
}

/// A class per node: equal for nodes computing the same value from the same inputs by the
/// same operations (operands of `+` and `*` in either order), as a compiler's common
/// subexpression elimination would find them.
pub(super) fn structure(nodes: &[Node]) -> Vec<usize> {
    let mut classes: HashMap<String, usize> = HashMap::new();
    let mut out: Vec<usize> = Vec::with_capacity(nodes.len());
    for n in nodes {
        let c = |v: &Var| out[v.0 as usize];
        let key = match n {
            Node::Input(j) => format!("in{j}"),
            Node::Const(v) => format!("c{:x}", v.to_bits()),
            Node::Unary(op, x) => format!("{op:?}({})", c(x)),
            Node::Binary(op @ (Binary::Add | Binary::Mul), x, y) => {
                format!("{op:?}({}, {})", c(x).min(c(y)), c(x).max(c(y)))
            }
            Node::Binary(op, x, y) => format!("{op:?}({}, {})", c(x), c(y)),
            Node::Where(a, x, y) => format!("where({}, {}, {})", c(a), c(x), c(y)),
            Node::Reduce(r, axis, x) => format!("{r:?}{axis:?}({})", c(x)),
        };
        let next = classes.len();
        out.push(*classes.entry(key).or_insert(next));
    }
    out
}
