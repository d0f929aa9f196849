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
            "vec2<f32>" | "f64" | "i64" | "u64" => 8,
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

    /// One element read from `a` (of type `Src`) as an accumulator.
    fn conv(self, d: DType, src: Side) -> &'static str {
        match (src, self) {
            (Side::Partial, _) => "fn conv(v: Src) -> A { return v; }",
            (Side::Elem, Op::Count) => "fn conv(v: Src) -> A { return select(1u, 0u, v == E(0)); }",
            _ if self.paired(d) => "fn conv(v: Src) -> A { return A(f32(v), 0.0); }",
            _ => "fn conv(v: Src) -> A { return A(v); }",
        }
    }

    /// One accumulator as what `out` holds (`Dst`).
    fn out_of(self, d: DType, dst: Side) -> &'static str {
        match dst {
            Side::Partial => "fn out_of(v: A) -> Dst { return v; }",
            _ if self.paired(d) => "fn out_of(v: A) -> Dst { return Dst(v.x); }",
            _ => "fn out_of(v: A) -> Dst { return Dst(v); }",
        }
    }
}

/// Whether a side of dtype `d` moves in vec4s when the lines allow it: elements of 4 bytes,
/// and of 8 (vec4s of 32 bytes: without them an invocation of `row_scan` read its 16
/// consecutive 8-byte elements in 16 scalar loads, lanes 128 bytes apart, where the 4-byte
/// types take 4 vector loads; `row_reduce`'s lanes read 32 contiguous bytes in one).
fn vec_side(side: Side, d: DType) -> bool {
    side == Side::Elem
        && matches!(
            d,
            DType::F32
                | DType::I32
                | DType::U32
                | DType::Bool
                | DType::F64
                | DType::I64
                | DType::U64
        )
}

/// The kernel source of `op` over inputs of `d`, reading `src` and writing `dst`; with `vec`
/// (lines of a multiple of 4 elements) the row kernels move element sides of 4- and 8-byte
/// types in vec4s.
pub(crate) fn spec(op: Op, d: DType, src: Side, dst: Side, vec: bool) -> Spec {
    let acc = op.acc(d);
    let src_ty = match src {
        Side::Elem => d.wgsl(),
        Side::Partial => acc,
    };
    let dst_ty = match dst {
        Side::Elem => op.out(d).wgsl(),
        Side::Partial => acc,
    };
    let mut s = Spec::new("scan", SRC)
        .alias("E", d.wgsl())
        .alias("Src", src_ty)
        .alias("A", acc)
        .alias("Dst", dst_ty)
        .alias("S", "f32")
        .function("identity", op.identity(d))
        .function("combine", op.combine(d))
        .function("conv", op.conv(d, src))
        .function("out_of", op.out_of(d, dst));
    if vec && vec_side(src, d) {
        s = s.alias("W", src_ty).function(
            "load4",
            "fn load4(i: u32, last: u32) -> array<A, 4> { let v = a4[min(i, last) / 4u]; \
             return array<A, 4>(conv(v.x), conv(v.y), conv(v.z), conv(v.w)); }",
        );
    }
    if vec && vec_side(dst, op.out(d)) {
        s = s.alias("WO", dst_ty).function(
            "store4",
            "fn store4(i: u32, end: u32, v: array<A, 4>) { if i < end { out4[i / 4u] = \
             vec4<WO>(out_of(v[0]), out_of(v[1]), out_of(v[2]), out_of(v[3])); } }",
        );
    }
    s
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
        .function("conv", op.conv(flags, Side::Elem))
        .function("out_of", op.out_of(flags, Side::Elem))
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
    let dtypes = [
        DType::F16,
        DType::F32,
        DType::F64,
        DType::I32,
        DType::U32,
        DType::I64,
        DType::U64,
    ];
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
                v.push(spec(op, d, src, dst, false));
                v.push(spec(op, d, src, dst, true));
            }
        }
    }
    for d in dtypes {
        v.push(compact_spec(d, None));
        v.push(compact_spec(DType::U32, Some(d)));
    }
    v
}
