//! WGSL specialisation of shaders/scan.wgsl: what each scan's accumulator, identity,
//! combination, load and store are per dtype and stage, and `all_specs` for the shader
//! validation test.

use crate::dtype::DType;
use crate::kernel::source::Spec;

const SRC: &str = include_str!("../../../shaders/scan.wgsl");

/// A scan.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Op {
    /// Running sums (f32 and f16 in pairs of f32, integers wrapping in their own type).
    Sum,
    /// Running products (f16 in f32).
    Prod,
    /// Running counts of non-zero elements (u32), the flags of stream compaction.
    Count,
}

/// Where a stage reads from or writes to: the elements (the input's or the result's
/// dtype) or partial results (accumulators).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Side {
    Elem,
    Partial,
}

impl Op {
    pub(crate) fn name(self) -> &'static str {
        match self {
            Op::Sum => "cumsum",
            Op::Prod => "cumprod",
            Op::Count => "count_nonzero",
        }
    }

    /// The dtype of the result for inputs of `d`.
    pub(crate) fn out(self, d: DType) -> DType {
        match self {
            Op::Count => DType::U32,
            _ => d,
        }
    }

    /// Whether the accumulator is a pair of f32 (value, rounding error).
    fn paired(self, d: DType) -> bool {
        self == Op::Sum && matches!(d, DType::F32 | DType::F16)
    }

    /// The accumulator's WGSL type for inputs of `d`.
    fn acc(self, d: DType) -> &'static str {
        match (self, d) {
            (Op::Count, _) => "u32",
            _ if self.paired(d) => "vec2<f32>",
            (_, DType::F16) => "f32",
            _ => d.wgsl(),
        }
    }

    /// Bytes of one accumulator (one partial result).
    pub(crate) fn acc_size(self, d: DType) -> usize {
        match self.acc(d) {
            "vec2<f32>" | "f64" => 8,
            _ => 4,
        }
    }

    fn identity(self, d: DType) -> String {
        let v = match (self, d) {
            _ if self.paired(d) => "vec2<f32>(-0.0, 0.0)",
            (Op::Sum, DType::F64) => "A(-0.0)",
            (Op::Sum | Op::Count, _) => "A(0)",
            (Op::Prod, _) => "A(1)",
        };
        format!("fn identity() -> A {{ return {v}; }}")
    }

    fn combine(self, d: DType) -> &'static str {
        match self {
            _ if self.paired(d) => "fn combine(x: A, y: A) -> A { return df_add(x, y); }",
            Op::Prod => "fn combine(x: A, y: A) -> A { return x * y; }",
            _ => "fn combine(x: A, y: A) -> A { return x + y; }",
        }
    }

    fn load(self, d: DType, src: Side) -> &'static str {
        match (src, self) {
            (Side::Partial, _) => "fn load(i: u32) -> A { return a[i]; }",
            (Side::Elem, Op::Count) => {
                "fn load(i: u32) -> A { return select(1u, 0u, a[i] == E(0)); }"
            }
            _ if self.paired(d) => "fn load(i: u32) -> A { return A(f32(a[i]), 0.0); }",
            _ => "fn load(i: u32) -> A { return A(a[i]); }",
        }
    }

    fn store(self, d: DType, dst: Side) -> &'static str {
        match dst {
            Side::Partial => "fn store(i: u32, v: A) { out[i] = v; }",
            _ if self.paired(d) => "fn store(i: u32, v: A) { out[i] = Dst(v.x); }",
            _ => "fn store(i: u32, v: A) { out[i] = Dst(v); }",
        }
    }
}

/// The kernel source of `op` over inputs of `d`, reading `src` and writing `dst`.
pub(crate) fn spec(op: Op, d: DType, src: Side, dst: Side) -> Spec {
    let acc = op.acc(d);
    let src_ty = match src {
        Side::Elem => d.wgsl(),
        Side::Partial => acc,
    };
    let dst_ty = match dst {
        Side::Elem => op.out(d).wgsl(),
        Side::Partial => acc,
    };
    Spec::new("scan", SRC)
        .alias("E", d.wgsl())
        .alias("Src", src_ty)
        .alias("A", acc)
        .alias("Dst", dst_ty)
        .alias("S", "f32")
        .function("identity", op.identity(d))
        .function("combine", op.combine(d))
        .function("load", op.load(d, src))
        .function("store", op.store(d, dst))
}

/// The stream-compaction kernels' source: flags from elements of `flags` (non-zero), and
/// the output written from the flattened indices (u32) or, for masked select, from the
/// values of dtype `value`.
pub(crate) fn compact_spec(flags: DType, value: Option<DType>) -> Spec {
    let v = value.unwrap_or(DType::U32);
    let op = Op::Count;
    Spec::new("scan", SRC)
        .alias("E", flags.wgsl())
        .alias("Src", flags.wgsl())
        .alias("A", "u32")
        .alias("Dst", v.wgsl())
        .alias("V", v.wgsl())
        .alias("S", "f32")
        .function("identity", op.identity(flags))
        .function("combine", op.combine(flags))
        .function("load", op.load(flags, Side::Elem))
        .function("store", op.store(flags, Side::Elem))
        .function(
            "flagged",
            "fn flagged(i: u32) -> bool { return select(true, false, a[i] == E(0)); }",
        )
        .function("pos", "fn pos(i: u32) -> u32 { return b[i] - 1u; }")
        .function(
            "put",
            match value {
                Some(_) => "fn put(j: u32, i: u32) { out[j] = vals[i]; }",
                None => "fn put(j: u32, i: u32) { out[j] = i; }",
            },
        )
}

/// Every variant, for the shader validation test.
#[cfg(test)]
pub(crate) fn all_specs() -> Vec<Spec> {
    let dtypes = [DType::F16, DType::F32, DType::F64, DType::I32, DType::U32];
    let sides = [
        (Side::Elem, Side::Elem),
        (Side::Elem, Side::Partial),
        (Side::Partial, Side::Partial),
        (Side::Partial, Side::Elem),
    ];
    let mut v = Vec::new();
    for op in [Op::Sum, Op::Prod, Op::Count] {
        for d in dtypes {
            for (src, dst) in sides {
                v.push(spec(op, d, src, dst));
            }
        }
    }
    for d in dtypes {
        v.push(compact_spec(d, None));
        v.push(compact_spec(DType::U32, Some(d)));
    }
    v
}
