//! Every variant of shaders/reduce.wgsl that the built-in operations make, for the shader
//! validation test (src/shader_validation.rs).

use crate::dtype::DType;
use crate::kernel::source::Spec;

use super::shuffle::shufflable;
use super::source::{spec, Load, Op};

/// Every operation, with a choice of accumulator dtypes for the `*As` ones.
const OPS: [Op; 29] = [
    Op::Sum,
    Op::Prod,
    Op::Max,
    Op::Min,
    Op::ArgMax,
    Op::ArgMin,
    Op::All,
    Op::Any,
    Op::Mean,
    Op::Var(0),
    Op::Std(0),
    Op::Norm,
    Op::NanSum,
    Op::NanMax,
    Op::NanMin,
    Op::NanArgMax,
    Op::NanArgMin,
    Op::NanMean,
    Op::NanVar(0),
    Op::NanStd(0),
    Op::SumAs(DType::F32),
    Op::SumAs(DType::F64),
    Op::SumAs(DType::I32),
    Op::ProdAs(DType::F64),
    Op::ProdAs(DType::U32),
    Op::MeanAs(DType::F16),
    Op::MeanAs(DType::F32),
    Op::MeanAs(DType::F64),
    Op::CountNonzero,
];

/// Every variant, for the shader validation test.
pub(crate) fn all_specs() -> Vec<Spec> {
    let mut specs = Vec::new();
    for &d in &DType::ALL {
        for op in OPS {
            if !op.supports(d) {
                continue;
            }
            let out = match op {
                Op::SumAs(a) | Op::ProdAs(a) | Op::MeanAs(a) => a,
                Op::All | Op::Any => DType::Bool,
                _ if op.is_arg() || op == Op::CountNonzero => DType::U32,
                _ => d,
            };
            for load in [Load::Elem, Load::Elem4, Load::Partial] {
                for shuffles in [false, true] {
                    if shuffles && !shufflable(op.acc(d)) {
                        continue;
                    }
                    specs.push(spec(&op.reducer(d), d, load, Some(out), shuffles));
                    // argmin / argmax writing i64 words (`dispatch::reduce_index`).
                    if matches!(op, Op::ArgMax | Op::ArgMin) {
                        specs.push(spec(&op.reducer(d), d, load, Some(DType::I64), shuffles));
                    }
                    if load != Load::Partial {
                        specs.push(spec(&op.reducer(d), d, load, None, shuffles));
                    }
                }
            }
        }
    }
    specs
}
