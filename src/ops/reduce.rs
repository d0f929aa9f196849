//! Reductions over the whole array, one axis or any set of axes. Host side of
//! shaders/reduce.wgsl.
//!
//! Every reduction becomes an M x K problem: M outputs (the kept axes, in order), each
//! reducing K elements (the reduced axes, merged into one strided axis). Where the reduced
//! axes are contiguous the `rows` kernels give each output one or more invocations (a
//! whole workgroup for long rows); where the kept axes are contiguous instead (a sum over
//! an outer axis) the `cols` kernels give each invocation its own column, so that
//! neighbouring invocations read neighbouring addresses. When there are too few outputs to
//! fill the GPU, K is split across workgroups and a second `rows` dispatch reduces the
//! partial results. Layouts whose reduced axes do not merge into one strided axis are
//! copied first, with the reduced axes innermost.
//!
//! The order of every combination is fixed by the shape (and the adapter's kind), so
//! results are bit-identical from run to run; floating-point sums are trees (a short serial
//! walk per invocation, then pairwise in workgroup memory, then across workgroups), so the
//! error grows with log(K), not K.

use crate::array::Array;
use crate::device::Work;
use crate::device::{Device, DeviceKind};
use crate::dtype::{DType, Element, Float};
use crate::error::{Error, Result};
use crate::kernel::cache::Key;
use crate::kernel::launch::{Binding, Params, MAX_DIMS};
use crate::kernel::source::Spec;
use crate::shape::{Axis, Shape};

const SRC: &str = include_str!("../../shaders/reduce.wgsl");
const WG: usize = 256;
/// Elements each invocation should reduce, at least, before a split of K pays.
const MIN_PER_INVOCATION: usize = 8;
/// The longest serial chain of additions in one accumulator: longer reductions are split
/// across workgroups (and the partial results added as a tree), which bounds the rounding
/// error however few outputs or workgroups there are.
const MAX_CHAIN: usize = 64;

/// A reduction.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Op {
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
}

#[cfg(test)]
const OPS: [Op; 12] = [
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
];

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
    fn name(self) -> &'static str {
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
        }
    }

    /// The accumulator type for inputs of `d`: u32 for all / any, f32 for f16, else `d`.
    fn acc(self, d: DType) -> DType {
        match (self, d) {
            (Op::All | Op::Any, _) => DType::U32,
            (_, DType::F16) => DType::F32,
            _ => d,
        }
    }

    /// The identity of the combination, as f64 (infinities saturate to the integer limits).
    fn identity(self) -> f64 {
        match self {
            Op::Prod | Op::All => 1.0,
            Op::Max | Op::ArgMax => f64::NEG_INFINITY,
            Op::Min | Op::ArgMin => f64::INFINITY,
            _ => 0.0,
        }
    }

    /// The result of reducing no elements, where there is one (NumPy's).
    fn empty(self) -> Option<f64> {
        match self {
            Op::Sum | Op::Any | Op::Norm => Some(0.0),
            Op::Prod | Op::All => Some(1.0),
            Op::Mean | Op::Var(_) | Op::Std(_) => Some(f64::NAN),
            Op::Max | Op::Min | Op::ArgMax | Op::ArgMin => None,
        }
    }

    fn is_arg(self) -> bool {
        matches!(self, Op::ArgMax | Op::ArgMin)
    }

    /// Whether the operation exists for inputs of `d`.
    fn supports(self, d: DType) -> bool {
        match self {
            Op::Mean | Op::Var(_) | Op::Std(_) | Op::Norm => d.is_float(),
            _ => true,
        }
    }

    /// The one-line WGSL functions `map` and `map4`: an element's accumulator.
    fn map(self, e: DType) -> (String, String) {
        let (m, m4) = match self {
            // f32 by its bits: drivers that flush subnormals to zero (NVIDIA's) would call
            // 1e-45 zero; NumPy calls it true.
            Op::All | Op::Any if e == DType::F32 => (
                "select(0u, 1u, (bitcast<u32>(x) & 0x7fffffffu) != 0u)",
                "select(vec4<u32>(0u), vec4<u32>(1u), (bitcast<vec4<u32>>(x) & vec4<u32>(0x7fffffffu)) != vec4<u32>(0u))",
            ),
            Op::All | Op::Any => (
                "select(0u, 1u, !(x == E(0)))",
                "select(vec4<u32>(0u), vec4<u32>(1u), !(x == vec4<E>(E(0))))",
            ),
            Op::Norm => ("A(x) * A(x)", "vec4<A>(x) * vec4<A>(x)"),
            Op::Var(_) | Op::Std(_) => (
                "(A(x) - mu) * (A(x) - mu)",
                "(vec4<A>(x) - mu) * (vec4<A>(x) - mu)",
            ),
            _ => ("A(x)", "vec4<A>(x)"),
        };
        (
            format!("fn map(x: E, k: u32, mu: A) -> Acc {{ return Acc({m}, k); }}"),
            format!(
                "fn map4(x: vec4<E>, k: vec4<u32>, mu: vec4<A>) -> Acc4 {{ return Acc4({m4}, k); }}"
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
        match self {
            Op::Prod => format!("return {c}(x.v * y.v, x.i);"),
            Op::Max => extreme("max"),
            Op::Min => extreme("min"),
            Op::ArgMax => arg(">"),
            Op::ArgMin => arg("<"),
            Op::All => format!("return {c}(x.v & y.v, x.i);"),
            Op::Any => format!("return {c}(x.v | y.v, x.i);"),
            _ => format!("return {c}(x.v + y.v, x.i);"),
        }
    }

    /// The body of `finish(r)`: the output of a final result.
    fn finish(self) -> &'static str {
        match self {
            Op::ArgMax | Op::ArgMin => "return U(r.i);",
            Op::Mean | Op::Var(_) => "return U(r.v / A(count()));",
            Op::Std(_) => "return U(sqrt(r.v / A(count())));",
            Op::Norm => "return U(sqrt(r.v));",
            _ => "return U(r.v);",
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
    /// Delta degrees of freedom: `count()` is the element count less this.
    pub ddof: usize,
}

impl Op {
    /// The pieces of `self` for inputs of `input`.
    fn reducer(self, input: DType) -> Reducer {
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
            finish: self.finish().to_string(),
            identity: self.identity(),
            means: matches!(self, Op::Var(_) | Op::Std(_)),
            ordered: self.is_arg(),
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
        Load::Elem4 => format!("vec4<{e}>"),
        Load::Partial => "Acc".to_string(),
    };
    let (map, map4) = r.map.clone();
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
    Spec::new("reduce", SRC)
        .scalar(acc)
        .alias("E", e.wgsl())
        .alias("T", t)
        .alias("A", acc.wgsl())
        .alias("U", out.map_or("Acc", |d| d.wgsl()))
        .function("map", map)
        .function("map4", map4)
        .function("combine", r.combine.0.clone())
        .function("combine4", r.combine.1.clone())
        .function(
            "finish",
            format!(
                "fn finish(r: Acc) -> U {{ {} }}",
                if out.is_some() {
                    r.finish.as_str()
                } else {
                    "return r;"
                }
            ),
        )
        .function(
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
        .function(
            "shuffle",
            if shuffles {
                "fn shuffle(x: Acc, h: u32) -> Acc { return Acc(subgroupShuffleXor(x.v, h), subgroupShuffleXor(x.i, h)); }"
            } else {
                "fn shuffle(x: Acc, h: u32) -> Acc { return x; }"
            },
        )
        .function(
            "shuffle_width",
            format!(
                "fn shuffle_width() -> u32 {{ return {}u; }}",
                if shuffles { SHUFFLE_WIDTH } else { 1 }
            ),
        )
}

/// Tree levels done with subgroup shuffles: pairs, fours and eights of invocations, which
/// every adapter whose subgroups have at least this many invocations can do.
const SHUFFLE_WIDTH: u32 = 8;

/// Whether the rows' trees may start with subgroup shuffles: the adapter has subgroups of at
/// least [`SHUFFLE_WIDTH`] invocations and the accumulator is 32-bit.
/// `Options::subgroups` turns them off (for tests: the results are the same bits).
fn shuffles(dev: &Device, acc: DType) -> bool {
    dev.options().subgroups
        && dev.has_subgroups()
        && dev.info().subgroup_min_size >= SHUFFLE_WIDTH
        && acc.size() == 4
}

/// Every variant, for the shader validation test.
#[cfg(test)]
pub(crate) fn all_specs() -> Vec<Spec> {
    let mut specs = Vec::new();
    for &d in &DType::ALL {
        for op in OPS {
            if !op.supports(d) {
                continue;
            }
            let out = if op.is_arg() || matches!(op, Op::All | Op::Any) {
                DType::U32
            } else {
                d
            };
            for load in [Load::Elem, Load::Elem4, Load::Partial] {
                for shuffles in [false, true] {
                    if shuffles && op.acc(d) == DType::F64 {
                        continue;
                    }
                    specs.push(spec(&op.reducer(d), d, load, Some(out), shuffles));
                    if load != Load::Partial {
                        specs.push(spec(&op.reducer(d), d, load, None, shuffles));
                    }
                }
            }
        }
    }
    specs
}

/// Bytes of one partial result (`struct Acc` in WGSL) of accumulator type `acc`.
fn acc_size(acc: DType) -> usize {
    if acc == DType::F64 {
        16
    } else {
        8
    }
}

/// One M x K problem: the input buffer, what it holds and where the elements are.
struct Problem<'a> {
    src: Binding<'a>,
    /// Dtype of the elements (for partial inputs: of the original elements).
    input: DType,
    load: Load,
    /// Bytes per element of `src` (an `Acc` for partial inputs).
    elem: usize,
    /// Element offset of the first element.
    offset: usize,
    /// Kept axes (extent, stride), outermost first; at least one.
    kept: Vec<(usize, usize)>,
    /// Reduced elements per output and their stride.
    k: usize,
    rs: usize,
}

/// Where a stage writes: the buffer and what it holds.
struct Target<'a> {
    out: Binding<'a>,
    /// The final result's dtype; `None` for partial results.
    dtype: Option<DType>,
    /// Divisor of mean, var and std.
    divisor: u32,
    /// The means of var and std, one per output.
    mean: Option<Binding<'a>>,
}

/// The rows-or-columns plan of one stage.
#[derive(Debug, Clone, Copy)]
struct Plan {
    cols: bool,
    vec4: bool,
    /// rows: invocations per output; cols: outputs (columns, or groups of 4) per workgroup.
    per: usize,
    /// Blocks of outputs.
    blocks: usize,
    splits: usize,
    chunk: usize,
}

impl Plan {
    fn units(&self) -> usize {
        self.blocks * self.splits
    }

    /// With `splits` splits of K (fewer where K is short).
    fn split(mut self, k: usize, splits: usize) -> Plan {
        let quantum = if self.cols { 1 } else { 4 };
        let chunk = k.div_ceil(splits.max(1)).div_ceil(quantum) * quantum;
        self.chunk = chunk.max(quantum);
        self.splits = k.div_ceil(self.chunk).max(1);
        self
    }

    /// The outputs and the reduced elements of unit `u`: (first output, end, first k, end).
    fn unit(&self, u: usize, m: usize, k: usize) -> (usize, usize, usize, usize) {
        let (block, s) = if self.cols {
            (u % self.blocks, u / self.blocks)
        } else {
            (u / self.splits, u % self.splits)
        };
        let outputs = if self.cols {
            self.per * if self.vec4 { 4 } else { 1 }
        } else {
            WG / self.per
        };
        let m0 = block * outputs;
        let k0 = s * self.chunk;
        (m0, (m0 + outputs).min(m), k0, (k0 + self.chunk).min(k))
    }
}

/// Lowest and highest offsets of outputs `lo..hi` (decoded through the kept axes), bounded
/// by the box of multi-indices between them.
fn span(kept: &[(usize, usize)], lo: usize, hi: usize) -> (usize, usize) {
    let decode = |mut i: usize| {
        let mut idx = vec![0; kept.len()];
        for d in (0..kept.len()).rev() {
            idx[d] = i % kept[d].0;
            i /= kept[d].0;
        }
        idx
    };
    let (a, b) = (decode(lo), decode(hi - 1));
    let (mut min, mut max) = (0, 0);
    let mut varied = false;
    for d in 0..kept.len() {
        let st = kept[d].1;
        if varied {
            max += (kept[d].0 - 1) * st;
        } else {
            min += a[d] * st;
            max += b[d] * st;
            varied = a[d] != b[d];
        }
    }
    (min, max)
}

/// Workgroups a reduction should spread over when its outputs alone are too few: about two
/// waves of a large GPU (an H100 holds 8 workgroups of 256 on each of its 132 SMs), fewer on
/// a CPU. `Options::reduce_groups` overrides it (for tuning; results change in the last bits
/// with it, since the tree changes).
fn target_groups(dev: &Device) -> usize {
    dev.options().reduce_groups.map(|g| g as usize).unwrap_or(
        if dev.info().kind == DeviceKind::Cpu {
            32
        } else {
            1024
        },
    )
}

/// Splits of K for `blocks` blocks of outputs whose `k` items are walked by `lanes`
/// invocations each: enough to spread over `target` workgroups while each invocation keeps
/// [`MIN_PER_INVOCATION`] items, and always enough that no chain exceeds [`MAX_CHAIN`].
fn splits_for(target: usize, blocks: usize, k: usize, lanes: usize) -> usize {
    target
        .div_ceil(blocks)
        .min(k.div_ceil(lanes * MIN_PER_INVOCATION))
        .max(k.div_ceil(lanes * MAX_CHAIN))
}

fn plan(dev: &Device, p: &Problem<'_>) -> Plan {
    let m: usize = p.kept.iter().map(|d| d.0).product();
    let target = target_groups(dev);
    let inner = p.kept[p.kept.len() - 1];
    if p.rs != 1 && inner.1 == 1 && m > 1 {
        let vec4 = p.load == Load::Elem
            && inner.0.is_multiple_of(4)
            && p.offset.is_multiple_of(4)
            && p.rs.is_multiple_of(4)
            && p.kept.iter().all(|d| d.1 == 1 || d.1.is_multiple_of(4));
        let mv = if vec4 { m / 4 } else { m };
        let per = mv.next_power_of_two().min(64);
        let blocks = mv.div_ceil(per);
        let lanes = WG / per;
        let splits = splits_for(target, blocks, p.k, lanes);
        Plan {
            cols: true,
            vec4,
            per,
            blocks,
            splits: 1,
            chunk: p.k,
        }
        .split(p.k, splits)
    } else {
        let vec4 = p.load == Load::Elem
            && p.rs == 1
            && p.k.is_multiple_of(4)
            && p.offset.is_multiple_of(4)
            && p.kept.iter().all(|d| d.1.is_multiple_of(4));
        let kv = if vec4 { p.k / 4 } else { p.k };
        let per = kv.div_ceil(4).next_power_of_two().clamp(1, WG);
        let blocks = m.div_ceil(WG / per);
        // Rows shorter than a workgroup's share need no split (and have short chains).
        let splits = if per == WG {
            splits_for(target, blocks, kv, WG)
        } else {
            1
        };
        Plan {
            cols: false,
            vec4,
            per,
            blocks,
            splits: 1,
            chunk: p.k,
        }
        .split(p.k, splits)
    }
}

/// Dispatch windows: (first unit, end unit, first element bound, end of the elements
/// read), each touching at most one binding's worth of the input; `None` when some unit
/// alone does not fit.
fn windows(
    dev: &Device,
    p: &Problem<'_>,
    plan: &Plan,
) -> Option<Vec<(usize, usize, usize, usize)>> {
    let units = plan.units();
    let max = dev.limits().max_storage_buffer_binding_size & !3;
    if p.src.bytes <= max {
        return Some(vec![(0, units, 0, p.src.bytes as usize / p.elem)]);
    }
    let m: usize = p.kept.iter().map(|d| d.0).product();
    let align = (dev.limits().min_storage_buffer_offset_alignment as usize / p.elem).max(4);
    let max_elems = max as usize / p.elem;
    let unit_span = |u: usize| {
        let (m0, m1, k0, k1) = plan.unit(u, m, p.k);
        let (lo, hi) = span(&p.kept, m0, m1);
        (p.offset + lo + k0 * p.rs, p.offset + hi + (k1 - 1) * p.rs)
    };
    let fits = |lo: usize, hi: usize| hi + 1 - lo / align * align <= max_elems;
    let mut out = Vec::new();
    let mut u = 0;
    while u < units {
        let (mut lo, mut hi) = unit_span(u);
        if !fits(lo, hi) {
            return None;
        }
        let mut v = u + 1;
        while v < units {
            let (l, h) = unit_span(v);
            if !fits(lo.min(l), hi.max(h)) {
                break;
            }
            (lo, hi) = (lo.min(l), hi.max(h));
            v += 1;
        }
        out.push((u, v, lo / align * align, hi + 1));
        u = v;
    }
    Some(out)
}

/// Runs problem `p` into `t`: one stage, or two (or more) when K is split.
fn run(dev: &Device, op: &Reducer, p: &Problem<'_>, t: &Target<'_>) -> Result<()> {
    let m: usize = p.kept.iter().map(|d| d.0).product();
    let mut plan = plan(dev, p);
    let wins = loop {
        if let Some(w) = windows(dev, p, &plan) {
            break w;
        }
        let quantum = if plan.cols { 1 } else { 4 };
        if plan.chunk <= quantum {
            return Err(Error::BufferTooLarge {
                requested: p.src.bytes,
                max: dev.limits().max_storage_buffer_binding_size,
            });
        }
        plan = plan.split(p.k, plan.splits * 2);
    };
    let acc = op.acc;
    // With splits, this stage writes partial results [m, splits] into scratch memory.
    let partial = if plan.splits > 1 {
        let bytes = (m * plan.splits * acc_size(acc)) as u64;
        Some(dev.alloc(bytes)?)
    } else {
        None
    };
    let (out, dtype) = match &partial {
        Some(buf) => (
            Binding {
                buffer: buf,
                bytes: (m * plan.splits * acc_size(acc)) as u64,
                window: 0,
            },
            None,
        ),
        None => (t.out, t.dtype),
    };
    let load = if plan.vec4 { Load::Elem4 } else { p.load };
    let entry = match (plan.cols, plan.vec4) {
        (false, false) => "rows",
        (false, true) => "rows4",
        (true, false) => "cols",
        (true, true) => "cols4",
    };
    if p.kept.len() > MAX_DIMS {
        return Err(Error::TooManyDims {
            ndim: p.kept.len(),
            max: MAX_DIMS,
        });
    }
    let shuffles = shuffles(dev, acc);
    let key = Key {
        family: "reduce",
        entry,
        variant: format!("{}|{}|{load:?}|{dtype:?}|{shuffles}", op.key, p.input),
        inputs: if t.mean.is_some() && p.load != Load::Partial {
            2
        } else {
            1
        },
        wg: WG as u32,
        ndim: p.kept.len() as u32,
        per: plan.per as u32,
    };
    let kernel = dev.kernel(key.clone(), || spec(op, p.input, load, dtype, shuffles))?;
    for (u0, u1, base, end) in wins {
        let mut params = Params::new(u1 as u32);
        params.ndim = p.kept.len() as u32;
        for (d, &(extent, stride)) in p.kept.iter().enumerate() {
            params.shape[d] = extent as u32;
            params.strides[0][d] = stride as u32;
        }
        params.aux = [m as u32, p.k as u32];
        params.offs = [(p.offset as u32).wrapping_sub(base as u32), 0, 0, 0];
        params.strides[1][..6].copy_from_slice(&[
            p.rs as u32,
            plan.chunk as u32,
            plan.splits as u32,
            u0 as u32,
            t.divisor,
            plan.blocks as u32,
        ]);
        let params = identity(params, acc, op.identity);
        let src = Binding {
            buffer: p.src.buffer,
            bytes: (end * p.elem) as u64,
            window: (base * p.elem) as u64,
        };
        let mut inputs = vec![src];
        if key.inputs == 2 {
            inputs.push(t.mean.expect("var has means"));
        }
        dev.launch(
            &kernel,
            &params,
            &inputs,
            out,
            Work::Items(((u1 - u0) * WG) as u32),
        )?;
    }
    if let Some(buf) = &partial {
        let next = Problem {
            src: out,
            input: p.input,
            load: Load::Partial,
            elem: acc_size(acc),
            offset: 0,
            kept: vec![(m, plan.splits)],
            k: plan.splits,
            rs: 1,
        };
        let _ = buf;
        run(dev, op, &next, t)?;
    }
    Ok(())
}

/// Sets scalar 0, the identity `v`, in the accumulator type.
fn identity(p: Params, acc: DType, v: f64) -> Params {
    match acc {
        DType::F64 => p.scalars(&[v]),
        DType::I32 => p.scalars(&[v as i32]),
        DType::U32 => p.scalars(&[v as u32]),
        _ => p.scalars(&[v as f32]),
    }
}

/// Merges neighbouring axes that are one run of memory; drops axes of extent 1.
fn merge(axes: &[(usize, usize)]) -> Vec<(usize, usize)> {
    let mut out: Vec<(usize, usize)> = Vec::new();
    for &(e, s) in axes {
        if e == 1 {
            continue;
        }
        match out.last_mut() {
            Some(last) if last.1 == e * s => *last = (last.0 * e, s),
            _ => out.push((e, s)),
        }
    }
    out
}

/// The reduction of `x` over the axes marked in `red` into `out` (`dtype` elements, one per
/// kept multi-index, contiguous), with var's means in `mean`.
fn execute<T: Element>(
    x: &Array<T>,
    op: &Reducer,
    red: &[bool],
    out: Binding<'_>,
    dtype: DType,
    mean: Option<Binding<'_>>,
) -> Result<()> {
    let axes: Vec<(usize, usize)> = x
        .shape
        .iter()
        .copied()
        .zip(x.strides.iter().copied())
        .collect();
    let kept = merge(
        &axes
            .iter()
            .zip(red)
            .filter(|(_, &r)| !r)
            .map(|(a, _)| *a)
            .collect::<Vec<_>>(),
    );
    let mut reduced: Vec<(usize, usize)> = axes
        .iter()
        .zip(red)
        .filter(|(_, &r)| r)
        .map(|(a, _)| *a)
        .collect();
    // The order of summation does not matter to the answer (only to its rounding, and that
    // is still fixed by the layout), so reduce in memory order; arg ops need the logical
    // order of their indices.
    if !op.ordered {
        reduced.sort_by_key(|d| std::cmp::Reverse(d.1));
    }
    let reduced = merge(&reduced);
    if reduced.len() > 1 || kept.len() > MAX_DIMS {
        // Not one strided axis: copy with the kept axes first and the reduced ones last.
        let perm: Vec<usize> = (0..red.len())
            .filter(|&d| !red[d])
            .chain((0..red.len()).filter(|&d| red[d]))
            .collect();
        let c = x.transpose(&perm)?.contiguous()?;
        let nk = red.iter().filter(|&&r| !r).count();
        let red: Vec<bool> = (0..red.len()).map(|d| d >= nk).collect();
        return execute(&c, op, &red, out, dtype, mean);
    }
    let (k, rs) = reduced.first().copied().unwrap_or((1, 0));
    let problem = Problem {
        src: x.binding(),
        input: T::DTYPE,
        load: Load::Elem,
        elem: T::DTYPE.size(),
        offset: x.offset,
        kept: if kept.is_empty() { vec![(1, 0)] } else { kept },
        k,
        rs,
    };
    let count: usize = x
        .shape
        .iter()
        .zip(red)
        .filter(|(_, &r)| r)
        .map(|(e, _)| e)
        .product();
    let divisor = count.saturating_sub(op.ddof);
    let target = Target {
        out,
        dtype: Some(dtype),
        divisor: divisor as u32,
        mean,
    };
    run(&x.dev, op, &problem, &target)
}

/// The reduction `op` of `x` over `axes` (all when `None`), as an array of `O`.
fn reduce<T: Element, O: Element>(
    x: &Array<T>,
    op: Op,
    axes: Option<&[usize]>,
    keepdims: bool,
) -> Result<Array<O>> {
    let name = op.name();
    let dev = &x.dev;
    dev.require(name, T::DTYPE)?;
    if !op.supports(T::DTYPE) {
        return Err(dev.unsupported(name, T::DTYPE));
    }
    let (red, shape, count) = reduced_axes(x, name, axes, keepdims)?;
    let out = Array::<O>::alloc(dev, name, shape)?;
    if out.is_empty() {
        return Ok(out);
    }
    if count == 0 {
        return match op.empty() {
            Some(v) => dev.full(Shape::from(out.shape.clone()), O::from_f64(v)),
            None => Err(Error::InvalidArgument {
                op: name,
                reason: "the reduced axes are empty, and this reduction has no identity",
            }),
        };
    }
    let mean = match op {
        Op::Var(_) | Op::Std(_) => {
            let acc = op.acc(T::DTYPE);
            let bytes = (out.len() * acc.size()) as u64;
            let buf = dev.alloc(bytes)?;
            let binding = Binding {
                buffer: &buf,
                bytes,
                window: 0,
            };
            execute(x, &Op::Mean.reducer(T::DTYPE), &red, binding, acc, None)?;
            Some(buf)
        }
        _ => None,
    };
    let mean = mean.as_ref().map(|buf| Binding {
        buffer: buf,
        bytes: (out.len() * op.acc(T::DTYPE).size()) as u64,
        window: 0,
    });
    execute(
        x,
        &op.reducer(T::DTYPE),
        &red,
        out.binding(),
        O::DTYPE,
        mean,
    )?;
    Ok(out)
}

/// The reduction `r` (a user kernel's, named `name`) of `x` over `axes` (all when `None`),
/// as an array of `O`; over no elements, the finished identity (CuPy's `post_map(identity)`).
pub(crate) fn reduce_with<T: Element, O: Element>(
    x: &Array<T>,
    r: &Reducer,
    name: &'static str,
    axes: Option<&[usize]>,
    keepdims: bool,
) -> Result<Array<O>> {
    let dev = &x.dev;
    dev.require(name, T::DTYPE)?;
    let (red, shape, count) = reduced_axes(x, name, axes, keepdims)?;
    let out = Array::<O>::alloc(dev, name, shape)?;
    if out.is_empty() {
        return Ok(out);
    }
    if count == 0 {
        // The finish of the identity, through the same kernels: each output reduces one
        // stand-in element whose map is the identity (so the result is finish(identity)
        // wherever the identity is one of the combination, as CuPy requires of it).
        let stand_in = dev.zeros::<T>([out.len(), 1])?;
        let identity = Reducer {
            key: format!("{}|empty", r.key),
            map: (
                "fn map(v_: E, k_: u32, mu_: A) -> Acc { return identity(); }".into(),
                "fn map4(v_: vec4<E>, k_: vec4<u32>, mu_: vec4<A>) -> Acc4 { return identity4(); }"
                    .into(),
            ),
            ..r.clone()
        };
        execute(
            &stand_in,
            &identity,
            &[false, true],
            out.binding(),
            O::DTYPE,
            None,
        )?;
        return Ok(out);
    }
    execute(x, r, &red, out.binding(), O::DTYPE, None)?;
    Ok(out)
}

/// The axes of `x` that `axes` reduces (all when `None`), the result's shape and the
/// number of elements each output reduces.
fn reduced_axes<T: Element>(
    x: &Array<T>,
    name: &'static str,
    axes: Option<&[usize]>,
    keepdims: bool,
) -> Result<(Vec<bool>, Vec<usize>, usize)> {
    let nd = x.ndim();
    let mut red = vec![axes.is_none(); nd];
    for &axis in axes.unwrap_or(&[]) {
        if axis >= nd {
            return Err(Error::AxisOutOfRange { axis, ndim: nd });
        }
        if red[axis] {
            return Err(Error::InvalidArgument {
                op: name,
                reason: "an axis is listed twice",
            });
        }
        red[axis] = true;
    }
    let shape: Vec<usize> = (0..nd)
        .filter_map(|d| {
            if red[d] {
                keepdims.then_some(1)
            } else {
                Some(x.shape[d])
            }
        })
        .collect();
    let count: usize = (0..nd).filter(|&d| red[d]).map(|d| x.shape[d]).product();
    Ok((red, shape, count))
}

macro_rules! whole_and_axis {
    ($( $all:ident, $axis:ident, $op:expr, $out:ty, $doc:literal, $ex:literal; )*) => {$(
        #[doc = concat!($doc, ", over the whole array: a 0-d array (read it with [`Array::to_scalar`]).")]
        ///
        /// # Errors
        /// See [`Array::sum_axes`].
        ///
        /// ```
        /// # let dev = gpuarray::Device::new()?;
        /// let x = dev.from_slice(&[1.0f32, 2.0, 3.0, 4.0], [2, 2])?;
        #[doc = concat!("let r = x.", stringify!($all), "()?;")]
        /// assert_eq!(r.shape(), &[] as &[usize]);
        #[doc = concat!("assert!((f64::from(r.to_scalar()?) - ", $ex, ").abs() < 1e-5);")]
        /// # Ok::<(), gpuarray::Error>(())
        /// ```
        pub fn $all(&self) -> Result<Array<$out>> {
            reduce(self, $op, None, false)
        }

        #[doc = concat!($doc, ", along one axis, which the result drops.")]
        ///
        /// # Errors
        /// See [`Array::sum_axes`].
        ///
        /// ```
        /// use gpuarray::Axis;
        /// # let dev = gpuarray::Device::new()?;
        /// let x = dev.from_slice(&[1.0f32, 2.0, 3.0, 4.0, 5.0, 6.0], [2, 3])?;
        #[doc = concat!("let r = x.", stringify!($axis), "(Axis(1))?;")]
        /// assert_eq!(r.shape(), &[2]);
        /// # Ok::<(), gpuarray::Error>(())
        /// ```
        pub fn $axis(&self, axis: Axis) -> Result<Array<$out>> {
            reduce(self, $op, Some(&[axis.0]), false)
        }
    )*};
}

macro_rules! over_axes {
    ($( $axes:ident, $op:expr, $out:ty, $doc:literal; )*) => {$(
        #[doc = concat!($doc, ", over a set of axes; with `keepdims` they stay, with extent 1.")]
        ///
        /// # Errors
        /// See [`Array::sum_axes`].
        ///
        /// ```
        /// # let dev = gpuarray::Device::new()?;
        /// let x = dev.from_slice(&[1.0f32, 2.0, 3.0, 4.0, 5.0, 6.0], [1, 2, 3])?;
        #[doc = concat!("let r = x.", stringify!($axes), "(&[0, 2], true)?;")]
        /// assert_eq!(r.shape(), &[1, 2, 1]);
        /// # Ok::<(), gpuarray::Error>(())
        /// ```
        pub fn $axes(&self, axes: &[usize], keepdims: bool) -> Result<Array<$out>> {
            reduce(self, $op, Some(axes), keepdims)
        }
    )*};
}

impl<T: Element> Array<T> {
    /// The sum over a set of axes; with `keepdims` they stay, with extent 1.
    ///
    /// Integers accumulate in their own type and wrap around on overflow (as CuPy's
    /// `sum(dtype=int32)`); f16 accumulates in f32 and rounds once; f32 and f64 in their
    /// own type, as a tree, so the error grows with the logarithm of the count. The same
    /// input on the same adapter gives the same bits every time.
    ///
    /// # Errors
    /// [`Error::AxisOutOfRange`] for an axis past the last; [`Error::InvalidArgument`] for
    /// an axis listed twice, and for max, min, argmax and argmin over no elements (sum
    /// gives 0, prod 1, all 1, any 0, mean, var and std NaN);
    /// [`Error::Unsupported`] when the adapter lacks `T`.
    ///
    /// ```
    /// # let dev = gpuarray::Device::new()?;
    /// let x = dev.from_slice(&[1i32, 2, 3, 4, 5, 6], [1, 2, 3])?;
    /// let s = x.sum_axes(&[0, 2], false)?;
    /// assert_eq!(s.to_vec()?, vec![6, 15]);
    /// assert!(x.sum_axes(&[3], false).is_err());
    /// # Ok::<(), gpuarray::Error>(())
    /// ```
    pub fn sum_axes(&self, axes: &[usize], keepdims: bool) -> Result<Array<T>> {
        reduce(self, Op::Sum, Some(axes), keepdims)
    }

    /// The sum of every element: a 0-d array (read it with [`Array::to_scalar`]).
    ///
    /// # Errors
    /// See [`Array::sum_axes`].
    ///
    /// ```
    /// # let dev = gpuarray::Device::new()?;
    /// let x = dev.from_slice(&[1.0f32, 2.0, 3.0, 4.0], [2, 2])?;
    /// assert_eq!(x.sum()?.to_scalar()?, 10.0);
    /// # Ok::<(), gpuarray::Error>(())
    /// ```
    pub fn sum(&self) -> Result<Array<T>> {
        reduce(self, Op::Sum, None, false)
    }

    /// The sum along one axis, which the result drops.
    ///
    /// # Errors
    /// See [`Array::sum_axes`].
    ///
    /// ```
    /// use gpuarray::Axis;
    /// # let dev = gpuarray::Device::new()?;
    /// let x = dev.from_slice(&[1.0f32, 2.0, 3.0, 4.0, 5.0, 6.0], [2, 3])?;
    /// assert_eq!(x.sum_axis(Axis(0))?.to_vec()?, vec![5.0, 7.0, 9.0]);
    /// assert_eq!(x.sum_axis(Axis(1))?.to_vec()?, vec![6.0, 15.0]);
    /// # Ok::<(), gpuarray::Error>(())
    /// ```
    pub fn sum_axis(&self, axis: Axis) -> Result<Array<T>> {
        reduce(self, Op::Sum, Some(&[axis.0]), false)
    }

    whole_and_axis! {
        prod, prod_axis, Op::Prod, T, "The product (integers wrap around, as in [`Array::sum_axes`])", "24.0";
        max, max_axis, Op::Max, T, "The largest element (NaN if any is NaN)", "4.0";
        min, min_axis, Op::Min, T, "The smallest element (NaN if any is NaN)", "1.0";
        all, all_axis, Op::All, u32, "Whether every element is non-zero, as 1 or 0 (NaN counts as non-zero)", "1.0";
        any, any_axis, Op::Any, u32, "Whether some element is non-zero, as 1 or 0 (NaN counts as non-zero)", "1.0";
    }

    over_axes! {
        prod_axes, Op::Prod, T, "The product";
        max_axes, Op::Max, T, "The largest element (NaN if any is NaN)";
        min_axes, Op::Min, T, "The smallest element (NaN if any is NaN)";
        all_axes, Op::All, u32, "Whether every element is non-zero, as 1 or 0";
        any_axes, Op::Any, u32, "Whether some element is non-zero, as 1 or 0";
    }

    /// The flat (C-order) index of the largest element: its first occurrence, or of the
    /// first NaN, as NumPy. A 0-d `u32` array.
    ///
    /// # Errors
    /// [`Error::InvalidArgument`] for an empty array.
    ///
    /// ```
    /// # let dev = gpuarray::Device::new()?;
    /// let x = dev.from_slice(&[1.0f32, 7.0, 7.0, 2.0], [2, 2])?;
    /// assert_eq!(x.argmax()?.to_scalar()?, 1);
    /// # Ok::<(), gpuarray::Error>(())
    /// ```
    pub fn argmax(&self) -> Result<Array<u32>> {
        reduce(&self.flat()?, Op::ArgMax, None, false)
    }

    /// The flat (C-order) index of the smallest element: its first occurrence, or of the
    /// first NaN. A 0-d `u32` array.
    ///
    /// # Errors
    /// [`Error::InvalidArgument`] for an empty array.
    ///
    /// ```
    /// # let dev = gpuarray::Device::new()?;
    /// let x = dev.from_slice(&[3i32, 1, 1, 2], [4])?;
    /// assert_eq!(x.argmin()?.to_scalar()?, 1);
    /// # Ok::<(), gpuarray::Error>(())
    /// ```
    pub fn argmin(&self) -> Result<Array<u32>> {
        reduce(&self.flat()?, Op::ArgMin, None, false)
    }

    /// The index along `axis` of the largest element of each lane (the first occurrence,
    /// or the first NaN).
    ///
    /// # Errors
    /// [`Error::AxisOutOfRange`]; [`Error::InvalidArgument`] when the axis is empty.
    ///
    /// ```
    /// use gpuarray::Axis;
    /// # let dev = gpuarray::Device::new()?;
    /// let x = dev.from_slice(&[1.0f32, 9.0, 3.0, 8.0, 5.0, 6.0], [2, 3])?;
    /// assert_eq!(x.argmax_axis(Axis(1))?.to_vec()?, vec![1, 0]);
    /// # Ok::<(), gpuarray::Error>(())
    /// ```
    pub fn argmax_axis(&self, axis: Axis) -> Result<Array<u32>> {
        reduce(self, Op::ArgMax, Some(&[axis.0]), false)
    }

    /// The index along `axis` of the smallest element of each lane (the first occurrence,
    /// or the first NaN).
    ///
    /// # Errors
    /// [`Error::AxisOutOfRange`]; [`Error::InvalidArgument`] when the axis is empty.
    ///
    /// ```
    /// use gpuarray::Axis;
    /// # let dev = gpuarray::Device::new()?;
    /// let x = dev.from_slice(&[1.0f32, 9.0, 3.0, 8.0, 5.0, 6.0], [2, 3])?;
    /// assert_eq!(x.argmin_axis(Axis(0))?.to_vec()?, vec![0, 1, 0]);
    /// # Ok::<(), gpuarray::Error>(())
    /// ```
    pub fn argmin_axis(&self, axis: Axis) -> Result<Array<u32>> {
        reduce(self, Op::ArgMin, Some(&[axis.0]), false)
    }

    /// The array as one axis in C order: a view where the layout allows, else a copy.
    fn flat(&self) -> Result<Array<T>> {
        let merged = merge(
            &self
                .shape
                .iter()
                .copied()
                .zip(self.strides.iter().copied())
                .collect::<Vec<_>>(),
        );
        match merged.as_slice() {
            [] => Ok(self.view(vec![self.len()], vec![1], self.offset)),
            [(n, s)] => Ok(self.view(vec![*n], vec![*s], self.offset)),
            _ => self.reshape([self.len()]),
        }
    }
}

impl<T: Float> Array<T> {
    whole_and_axis! {
        mean, mean_axis, Op::Mean, T, "The arithmetic mean (NaN over no elements)", "2.5";
        norm, norm_axis, Op::Norm, T, "The Euclidean (L2) norm: the square root of the sum of squares", "5.477226";
        var, var_axis, Op::Var(0), T, "The variance, `mean(|x - mean(x)|²)` (ddof 0; two passes, the mean first)", "1.25";
        std, std_axis, Op::Std(0), T, "The standard deviation, the square root of the variance (ddof 0)", "1.118034";
    }

    over_axes! {
        mean_axes, Op::Mean, T, "The arithmetic mean";
        norm_axes, Op::Norm, T, "The Euclidean (L2) norm";
    }

    /// The variance with `ddof` delta degrees of freedom: the sum of squared deviations
    /// divided by `count - ddof` (infinite or NaN when that is not positive, as NumPy).
    ///
    /// # Errors
    /// See [`Array::sum_axes`].
    ///
    /// ```
    /// # let dev = gpuarray::Device::new()?;
    /// let x = dev.from_slice(&[1.0f32, 2.0, 3.0, 4.0], [4])?;
    /// assert!((x.var_ddof(1)?.to_scalar()? - 5.0 / 3.0).abs() < 1e-6);
    /// # Ok::<(), gpuarray::Error>(())
    /// ```
    pub fn var_ddof(&self, ddof: usize) -> Result<Array<T>> {
        reduce(self, Op::Var(ddof), None, false)
    }

    /// The variance over a set of axes, with `ddof` delta degrees of freedom (see
    /// [`Array::var_ddof`]); with `keepdims` the axes stay, with extent 1.
    ///
    /// # Errors
    /// See [`Array::sum_axes`].
    ///
    /// ```
    /// # let dev = gpuarray::Device::new()?;
    /// let x = dev.from_slice(&[1.0f32, 2.0, 3.0, 5.0], [2, 2])?;
    /// assert_eq!(x.var_axes(&[1], 0, true)?.to_vec()?, vec![0.25, 1.0]);
    /// # Ok::<(), gpuarray::Error>(())
    /// ```
    pub fn var_axes(&self, axes: &[usize], ddof: usize, keepdims: bool) -> Result<Array<T>> {
        reduce(self, Op::Var(ddof), Some(axes), keepdims)
    }

    /// The standard deviation with `ddof` delta degrees of freedom.
    ///
    /// # Errors
    /// See [`Array::sum_axes`].
    ///
    /// ```
    /// # let dev = gpuarray::Device::new()?;
    /// let x = dev.from_slice(&[1.0f32, 3.0], [2])?;
    /// assert!((x.std_ddof(1)?.to_scalar()? - 2f32.sqrt()).abs() < 1e-6);
    /// # Ok::<(), gpuarray::Error>(())
    /// ```
    pub fn std_ddof(&self, ddof: usize) -> Result<Array<T>> {
        reduce(self, Op::Std(ddof), None, false)
    }

    /// The standard deviation over a set of axes, with `ddof` delta degrees of freedom;
    /// with `keepdims` the axes stay, with extent 1.
    ///
    /// # Errors
    /// See [`Array::sum_axes`].
    ///
    /// ```
    /// # let dev = gpuarray::Device::new()?;
    /// let x = dev.from_slice(&[1.0f32, 3.0, 2.0, 2.0], [2, 2])?;
    /// assert_eq!(x.std_axes(&[1], 0, false)?.to_vec()?, vec![1.0, 0.0]);
    /// # Ok::<(), gpuarray::Error>(())
    /// ```
    pub fn std_axes(&self, axes: &[usize], ddof: usize, keepdims: bool) -> Result<Array<T>> {
        reduce(self, Op::Std(ddof), Some(axes), keepdims)
    }
}
