//! WGSL specialisation of shaders/reduce.wgsl: the built-in operations ([`Op`]) and what
//! each one's accumulator, identity, map, combination and finish are, the [`Reducer`] that
//! carries those WGSL pieces (shared with user `ReductionKernel`s), the [`spec`] that turns a
//! reducer, an input dtype and a way of loading into one kernel's source, and
//! `all_specs`, every variant, for the shader validation test.

use crate::dtype::DType;
use crate::kernel::source::Spec;

pub(super) use super::shuffle::shuffles;
use super::shuffle::with_shuffles;

const SRC: &str = include_str!("../../../shaders/reduce.wgsl");

/// A reduction.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(super) enum Op {
    Sum,
    Prod,
    Max,
    Min,
    ArgMax,
    ArgMin,
    All,
    Any,
    Mean,
    /// Variance with the divisor `count - ddof`, given the means in `b`.
    Var(usize),
    /// Square root of [`Op::Var`].
    Std(usize),
    /// Euclidean norm: the square root of the sum of squares.
    Norm,
    /// The NaN-ignoring forms (floats; integers use the plain ones): NaN elements load as
    /// the identity. Sum of the non-NaN elements (0 when there are none).
    NanSum,
    /// Largest non-NaN element, NaN when there is none: the identity is NaN, which every
    /// non-NaN value replaces.
    NanMax,
    /// Smallest non-NaN element, as [`Op::NanMax`].
    NanMin,
    /// Index of the largest non-NaN element; `u32::MAX` when there is none.
    NanArgMax,
    /// Index of the smallest non-NaN element; `u32::MAX` when there is none.
    NanArgMin,
    /// Mean of the non-NaN elements: their sum in `v`, their count in `i` (where
    /// `0xffffffff`, the identity's index, counts as 0); NaN when there are none.
    NanMean,
    /// Variance of the non-NaN elements with the divisor `count - ddof` (NaN where that is
    /// not positive), given their means in `b`.
    NanVar(usize),
    /// Square root of [`Op::NanVar`].
    NanStd(usize),
    /// Sum accumulated in the given dtype (f32 for f16), which is the output's.
    SumAs(DType),
    /// Product accumulated in the given dtype, as [`Op::SumAs`].
    ProdAs(DType),
    /// Mean accumulated in the given float dtype (f32 for f16): integer means too.
    MeanAs(DType),
    /// The number of non-zero elements (NaN counts), as u32.
    CountNonzero,
}

/// How a kernel reads its input.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub(crate) enum Load {
    /// Elements, one at a time.
    Elem,
    /// Elements as vec4 values.
    Elem4,
    /// Partial results (`Acc`) of an earlier stage.
    Partial,
}

impl Op {
    pub(super) fn name(self) -> &'static str {
        match self {
            Op::Sum => "sum",
            Op::Prod => "prod",
            Op::Max => "max",
            Op::Min => "min",
            Op::ArgMax => "argmax",
            Op::ArgMin => "argmin",
            Op::All => "all",
            Op::Any => "any",
            Op::Mean => "mean",
            Op::Var(_) => "var",
            Op::Std(_) => "std",
            Op::Norm => "norm",
            Op::NanSum => "nansum",
            Op::NanMax => "nanmax",
            Op::NanMin => "nanmin",
            Op::NanArgMax => "nanargmax",
            Op::NanArgMin => "nanargmin",
            Op::NanMean => "nanmean",
            Op::NanVar(_) => "nanvar",
            Op::NanStd(_) => "nanstd",
            Op::SumAs(_) => "sum_as",
            Op::ProdAs(_) => "prod_as",
            Op::MeanAs(_) => "mean_as",
            Op::CountNonzero => "count_nonzero",
        }
    }

    /// The accumulator type for inputs of `d`: u32 for all / any, f32 for f16, else `d`.
    pub(super) fn acc(self, d: DType) -> DType {
        match (self, d) {
            (Op::All | Op::Any | Op::CountNonzero, _) => DType::U32,
            (Op::SumAs(a) | Op::ProdAs(a) | Op::MeanAs(a), _) => {
                if a == DType::F16 {
                    DType::F32
                } else {
                    a
                }
            }
            (_, DType::Bool) => DType::U32,
            (_, DType::F16) => DType::F32,
            _ => d,
        }
    }

    /// The identity of the combination, as f64 (infinities saturate to the integer limits).
    fn identity(self) -> f64 {
        match self {
            Op::Prod | Op::ProdAs(_) | Op::All => 1.0,
            Op::Max | Op::ArgMax => f64::NEG_INFINITY,
            Op::Min | Op::ArgMin => f64::INFINITY,
            Op::NanMax | Op::NanMin | Op::NanArgMax | Op::NanArgMin => f64::NAN,
            _ => 0.0,
        }
    }

    /// The result of reducing no elements, where there is one (NumPy's).
    pub(super) fn empty(self) -> Option<f64> {
        match self {
            Op::Sum | Op::Any | Op::Norm | Op::NanSum | Op::SumAs(_) | Op::CountNonzero => {
                Some(0.0)
            }
            Op::Prod | Op::All | Op::ProdAs(_) => Some(1.0),
            Op::Mean | Op::Var(_) | Op::Std(_) | Op::NanMean | Op::NanVar(_) | Op::NanStd(_) => {
                Some(f64::NAN)
            }
            Op::MeanAs(_) => Some(f64::NAN),
            Op::Max | Op::Min | Op::ArgMax | Op::ArgMin => None,
            Op::NanMax | Op::NanMin | Op::NanArgMax | Op::NanArgMin => None,
        }
    }

    pub(super) fn is_arg(self) -> bool {
        matches!(
            self,
            Op::ArgMax | Op::ArgMin | Op::NanArgMax | Op::NanArgMin
        )
    }

    /// Whether the operation reads the means of a first pass (binding 2).
    pub(super) fn reads_means(self) -> bool {
        matches!(
            self,
            Op::Var(_) | Op::Std(_) | Op::NanVar(_) | Op::NanStd(_)
        )
    }

    /// The NaN-ignoring forms (and the integer means) count the elements they reduce in
    /// the accumulator's index.
    fn counts(self) -> bool {
        matches!(self, Op::NanMean | Op::NanVar(_) | Op::NanStd(_))
    }

    /// Whether the operation exists for inputs of `d`: the NaN-ignoring ones for floats
    /// only (the public methods use the plain ones for integers).
    pub(super) fn supports(self, d: DType) -> bool {
        if !d.is_real() {
            return false;
        }
        match self {
            // Booleans: no arithmetic (count them through `Array::as_u32`).
            Op::Max | Op::Min | Op::ArgMax | Op::ArgMin | Op::All | Op::Any | Op::CountNonzero
                if d == DType::Bool =>
            {
                true
            }
            _ if d == DType::Bool => false,
            Op::Sum | Op::Prod | Op::Max | Op::Min | Op::ArgMax | Op::ArgMin => true,
            Op::All | Op::Any | Op::CountNonzero => true,
            // Into any dtype from integers; floats into floats.
            Op::SumAs(a) | Op::ProdAs(a) => a.is_float() || d.is_integer(),
            Op::MeanAs(a) => a.is_float(),
            _ => d.is_float(),
        }
    }

    /// The one-line WGSL functions `map` and `map4`: an element's accumulator.
    fn map(self, e: DType) -> (String, String) {
        let (m, m4) = match self {
            // f32 by its bits: drivers that flush subnormals to zero (NVIDIA's) would call
            // 1e-45 zero; NumPy calls it true.
            Op::All | Op::Any | Op::CountNonzero if e == DType::F32 => (
                "select(0u, 1u, (bitcast<u32>(x) & 0x7fffffffu) != 0u)",
                "select(vec4<u32>(0u), vec4<u32>(1u), (bitcast<vec4<u32>>(x) & vec4<u32>(0x7fffffffu)) != vec4<u32>(0u))",
            ),
            Op::All | Op::Any | Op::CountNonzero => (
                "select(0u, 1u, !(x == E(0)))",
                "select(vec4<u32>(0u), vec4<u32>(1u), !(x == vec4<E>(E(0))))",
            ),
            Op::Norm => ("A(x) * A(x)", "vec4<A>(x) * vec4<A>(x)"),
            Op::Var(_) | Op::Std(_) => (
                "(A(x) - mu) * (A(x) - mu)",
                "(vec4<A>(x) - mu) * (vec4<A>(x) - mu)",
            ),
            // NaN loads as the identity: 0 for the sums (and a count of 0).
            Op::NanSum | Op::NanMean => (
                "select(A(x), A(0), !(x == x))",
                "select(vec4<A>(x), vec4<A>(0), !(x == x))",
            ),
            Op::NanVar(_) | Op::NanStd(_) => (
                "select((A(x) - mu) * (A(x) - mu), A(0), !(x == x))",
                "select((vec4<A>(x) - mu) * (vec4<A>(x) - mu), vec4<A>(0), !(x == x))",
            ),
            _ => ("A(x)", "vec4<A>(x)"),
        };
        // The index: the element's position, or for the counting operations whether it
        // counts (1) or is NaN (0).
        let (i, i4) = if self.counts() {
            (
                "select(1u, 0u, !(x == x))",
                "select(vec4<u32>(1u), vec4<u32>(0u), !(x == x))",
            )
        } else {
            ("k", "k")
        };
        (
            format!("fn map(x: E, k: u32, mu: A) -> Acc {{ return Acc({m}, {i}); }}"),
            format!(
                "fn map4(x: vec4<E>, k: vec4<u32>, mu: vec4<A>) -> Acc4 {{ return Acc4({m4}, {i4}); }}"
            ),
        )
    }

    /// The body of `combine(x, y)` returning constructor `c` (Acc or Acc4), for
    /// accumulators of `acc`.
    fn combine(self, acc: DType, c: &str) -> String {
        let float = acc.is_float();
        let nan = |v: &str| format!("!({v} == {v})");
        let extreme = |f: &str| {
            if float {
                format!(
                    "return {c}(select(select({f}(x.v, y.v), y.v, {}), x.v, {}), x.i);",
                    nan("y.v"),
                    nan("x.v")
                )
            } else {
                format!("return {c}({f}(x.v, y.v), x.i);")
            }
        };
        // argmax / argmin: NaN wins (the first NaN, as NumPy), then the extreme value, then
        // the lower index; commutative and associative, so the order of combination does
        // not change the answer.
        let arg = |cmp: &str| {
            format!(
                "let xn = {}; let yn = {}; let first = y.i < x.i; \
                 let take = (xn & yn & first) | (!xn & yn) | (!xn & !yn & ((y.v {cmp} x.v) | ((y.v == x.v) & first))); \
                 return {c}(select(x.v, y.v, take), select(x.i, y.i, take));",
                nan("x.v"),
                nan("y.v")
            )
        };
        // The NaN-ignoring extremes: a NaN operand (the identity, or only NaN so far) gives
        // way to the other.
        let nan_extreme = |f: &str| {
            format!(
                "return {c}(select(select({f}(x.v, y.v), x.v, {}), y.v, {}), x.i);",
                nan("y.v"),
                nan("x.v")
            )
        };
        // The NaN-ignoring arg ops: a NaN never wins over a number; between two NaNs (the
        // identity's index is the largest) the lower index.
        let nan_arg = |cmp: &str| {
            format!(
                "let xn = {}; let yn = {}; let first = y.i < x.i; \
                 let take = (xn & yn & first) | (xn & !yn) | (!xn & !yn & ((y.v {cmp} x.v) | ((y.v == x.v) & first))); \
                 return {c}(select(x.v, y.v, take), select(x.i, y.i, take));",
                nan("x.v"),
                nan("y.v")
            )
        };
        // The counts of the counting operations: the identity's index counts as 0.
        let (zero, none) = if c == "Acc" {
            ("0u", "0xffffffffu")
        } else {
            ("vec4<u32>(0u)", "vec4<u32>(0xffffffffu)")
        };
        match self {
            Op::Prod | Op::ProdAs(_) => format!("return {c}(x.v * y.v, x.i);"),
            Op::NanMax => nan_extreme("max"),
            Op::NanMin => nan_extreme("min"),
            Op::NanArgMax => nan_arg(">"),
            Op::NanArgMin => nan_arg("<"),
            Op::NanMean | Op::NanVar(_) | Op::NanStd(_) => format!(
                "return {c}(x.v + y.v, select(x.i, {zero}, x.i == {none}) + select(y.i, {zero}, y.i == {none}));"
            ),
            Op::Max => extreme("max"),
            Op::Min => extreme("min"),
            Op::ArgMax => arg(">"),
            Op::ArgMin => arg("<"),
            Op::All => format!("return {c}(x.v & y.v, x.i);"),
            Op::Any => format!("return {c}(x.v | y.v, x.i);"),
            _ => format!("return {c}(x.v + y.v, x.i);"),
        }
    }

    /// `after` and `after4` of the arg ops, which fold an element into the result of the
    /// elements before it: the element replaces the result where it is larger (argmax) or
    /// smaller (argmin), or NaN where the result is not; ties keep the earlier index. `None`
    /// for the others, whose walks combine as trees.
    fn after(self, acc: DType) -> Option<(String, String)> {
        let take = match (self, acc.is_float()) {
            // Ordered comparisons (naga's): `!(y <= x)` holds for a NaN y too; a NaN x stays.
            (Op::ArgMax, true) => "!(y.v <= x.v) & (x.v == x.v)",
            (Op::ArgMin, true) => "!(y.v >= x.v) & (x.v == x.v)",
            (Op::ArgMax, false) => "y.v > x.v",
            (Op::ArgMin, false) => "y.v < x.v",
            _ => return None,
        };
        let f = |c: &str| {
            format!(
                "fn after{}(x: {c}, y: {c}) -> {c} {{ let take = {take}; \
                 return {c}(select(x.v, y.v, take), select(x.i, y.i, take)); }}",
                if c == "Acc" { "" } else { "4" }
            )
        };
        Some((f("Acc"), f("Acc4")))
    }

    /// The body of `finish(r)`: the output of a final result.
    fn finish(self) -> String {
        // The count of the counting operations, and NaN by its bits: NaN where no element
        // counts (or no more than ddof) is selected on the count, never computed as 0 / 0,
        // which a compiler may fold to 1 (NVIDIA's did: nanvar of no elements gave 1).
        let n = "let n = select(r.i, 0u, r.i == 0xffffffffu); \
                 let nan = A(bitcast<f32>(0x7fc00000u));";
        // ddof past u32::MAX (the largest count) acts as u32::MAX: no positive divisor.
        let var = |d: usize| {
            let d = d.min(u32::MAX as usize);
            format!("{n} let v = select(r.v / (A(n) - A({d}u)), nan, n <= {d}u);")
        };
        match self {
            Op::NanArgMax | Op::NanArgMin => {
                "return Dst(select(r.i, 0xffffffffu, !(r.v == r.v)));".into()
            }
            Op::NanMean => format!("{n} return Dst(select(r.v / A(n), nan, n == 0u));"),
            Op::NanVar(d) => format!("{} return Dst(v);", var(d)),
            Op::NanStd(d) => format!("{} return Dst(sqrt(v));", var(d)),
            _ => self.plain_finish().into(),
        }
    }

    /// [`Op::finish`] of the operations whose output needs only `r` and `count()`.
    fn plain_finish(self) -> &'static str {
        match self {
            Op::ArgMax | Op::ArgMin => "return Dst(r.i);",
            Op::Mean | Op::MeanAs(_) | Op::Var(_) => "return Dst(r.v / A(count()));",
            Op::Std(_) => "return Dst(sqrt(r.v / A(count())));",
            Op::Norm => "return Dst(sqrt(r.v));",
            _ => "return Dst(r.v);",
        }
    }
}

/// A reduction described by its WGSL pieces, which the built-in operations and user
/// `ReductionKernel`s share: the one-line functions `map` / `map4` (an element's
/// accumulator) and `combine` / `combine4`, the body of `finish` (a final result's output),
/// the identity of `combine` and the accumulator type.
#[derive(Debug, Clone)]
pub(crate) struct Reducer {
    /// Identifies the operation in pipeline keys.
    pub key: String,
    pub acc: DType,
    pub map: (String, String),
    pub combine: (String, String),
    pub finish: String,
    pub identity: f64,
    /// `map` reads the means of var and std (binding 2).
    pub means: bool,
    /// Reduced axes keep their logical order (arg ops: indices count in it).
    pub ordered: bool,
    /// `after` and `after4`, where the walks fold elements in order (the arg ops); `None`:
    /// the walks combine as trees.
    pub after: Option<(String, String)>,
    /// Delta degrees of freedom: `count()` is the element count less this.
    pub ddof: usize,
}

impl Op {
    /// The pieces of `self` for inputs of `input`.
    pub(super) fn reducer(self, input: DType) -> Reducer {
        let acc = self.acc(input);
        Reducer {
            key: format!("{self:?}"),
            acc,
            map: self.map(input),
            combine: (
                format!(
                    "fn combine(x: Acc, y: Acc) -> Acc {{ {} }}",
                    self.combine(acc, "Acc")
                ),
                format!(
                    "fn combine4(x: Acc4, y: Acc4) -> Acc4 {{ {} }}",
                    self.combine(acc, "Acc4")
                ),
            ),
            finish: self.finish(),
            identity: self.identity(),
            means: self.reads_means(),
            ordered: self.is_arg(),
            after: self.after(acc),
            ddof: match self {
                Op::Var(d) | Op::Std(d) => d,
                _ => 0,
            },
        }
    }
}

/// The source of one reduction kernel: `r` on inputs of `input` read as `load`, writing
/// results of `out` (`None`: partial results), with subgroup shuffles in the first levels
/// of the rows' trees when `shuffles`.
pub(crate) fn spec(
    r: &Reducer,
    input: DType,
    load: Load,
    out: Option<DType>,
    shuffles: bool,
) -> Spec {
    let acc = r.acc;
    let e = if load == Load::Partial { acc } else { input };
    let t = match load {
        Load::Elem => e.wgsl().to_string(),
        Load::Elem4 => format!("vec4<{}>", e.wgsl()),
        Load::Partial => "Acc".to_string(),
    };
    // argmin / argmax into i64: each index as its two u32 words (low, high 0), the layout
    // of an i64 on any adapter, written by the final stage itself (no widening pass).
    let wide = out == Some(DType::I64) && r.after.is_some();
    let words;
    let r = if wide {
        words = Reducer {
            finish: "return Dst(r.i, 0u);".into(),
            ..r.clone()
        };
        &words
    } else {
        r
    };
    let dst = match out {
        _ if wide => "vec2<u32>",
        Some(d) => d.wgsl(),
        None => "Acc",
    };
    let s = Spec::new("reduce", SRC)
        .scalar(acc)
        .alias("E", e.wgsl())
        .alias("Src", t)
        .alias("A", acc.wgsl())
        .alias("Dst", dst);
    let s = with_operation(s, r, out.is_some());
    let s = with_loads(s, r, load);
    // rows_last keeps 32-bit accumulators' bits in u32 words; other sizes never run it.
    let s = if acc.size() == 4 {
        s
    } else {
        s.function("to_bits", "fn to_bits(v: A) -> u32 { return 0u; }")
            .function("from_bits", "fn from_bits(u: u32) -> A { return A(0); }")
    };
    with_shuffles(s, acc, shuffles)
}

/// `s` with the operation's functions: map, map4, combine, combine4 and finish (which
/// returns the accumulator itself for partial results, when not `final_out`), and for
/// ordered walks in_order, after and after4.
fn with_operation(s: Spec, r: &Reducer, final_out: bool) -> Spec {
    let (map, map4) = r.map.clone();
    let s = match &r.after {
        Some((after, after4)) => s
            .function("in_order", "fn in_order() -> bool { return true; }")
            .function("after", after.clone())
            .function("after4", after4.clone()),
        None => s,
    };
    s.function("map", map)
        .function("map4", map4)
        .function("combine", r.combine.0.clone())
        .function("combine4", r.combine.1.clone())
        .function(
            "finish",
            format!(
                "fn finish(r: Acc) -> Dst {{ {} }}",
                if final_out {
                    r.finish.as_str()
                } else {
                    "return r;"
                }
            ),
        )
}

/// `s` with the functions that read the inputs: load and load4 (elements, vec4 elements or
/// partial results), and mean_of (var's and std's means, from binding 2).
fn with_loads(s: Spec, r: &Reducer, load: Load) -> Spec {
    let (load1, load4) = match load {
        Load::Elem => (
            "return map(a[o], k, mu);",
            "return map4(vec4<E>(a[4u * o4], a[4u * o4 + 1u], a[4u * o4 + 2u], a[4u * o4 + 3u]), k, mu);",
        ),
        Load::Elem4 => (
            "return map(a[o / 4u][o % 4u], k, mu);",
            "return map4(a[o4], k, mu);",
        ),
        Load::Partial => (
            "return a[o];",
            "let p0 = a[4u * o4]; let p1 = a[4u * o4 + 1u]; let p2 = a[4u * o4 + 2u]; let p3 = a[4u * o4 + 3u]; \
             return Acc4(vec4<A>(p0.v, p1.v, p2.v, p3.v), vec4<u32>(p0.i, p1.i, p2.i, p3.i));",
        ),
    };
    let mean_of = if r.means && load != Load::Partial {
        "return b[P.offs.y + m];"
    } else {
        "return A(0);"
    };
    s.function(
        "load",
        format!("fn load(o: u32, k: u32, mu: A) -> Acc {{ {load1} }}"),
    )
    .function(
        "load4",
        format!("fn load4(o4: u32, k: vec4<u32>, mu: vec4<A>) -> Acc4 {{ {load4} }}"),
    )
    .function(
        "mean_of",
        format!("fn mean_of(m: u32) -> A {{ {mean_of} }}"),
    )
}

/// Bytes of one partial result (`struct Acc` in WGSL) of accumulator type `acc`.
pub(super) fn acc_size(acc: DType) -> usize {
    if acc.size() == 8 {
        16
    } else {
        8
    }
}

#[cfg(test)]
mod tests {
    use super::Op;

    /// NaN of no elements is selected on the count, not computed as 0 / 0 (a compiler may
    /// fold `z / z` to 1 however z is made: NVIDIA's did, for nanvar and nanstd).
    #[test]
    fn nan_of_no_elements_is_selected_on_the_count() {
        for op in [Op::NanMean, Op::NanVar(0), Op::NanVar(3), Op::NanStd(1)] {
            let f = op.finish();
            assert!(f.contains("bitcast<f32>(0x7fc00000u)"), "{op:?}: {f}");
            assert!(!f.contains("z / z"), "{op:?}: {f}");
        }
        assert!(Op::NanVar(3).finish().contains("n <= 3u"));
        assert!(Op::NanMean.finish().contains("n == 0u"));
    }
}
