//! Fused reductions: a [`fuse`](crate::custom::fuse) expression that ends in a sum,
//! product, maximum, minimum or mean, evaluated inside the reduction's load, so that the
//! expression and the reduction are one kernel (two where a long reduction is split, the
//! second over the partial results). Host side of shaders/fused_reduce.wgsl.

use crate::array::Array;
use crate::custom::{args_of, Arg, ElementwiseKernel, KernelArg};
use crate::device::{Device, Work};
use crate::dtype::{accepts, DType, Element};
use crate::error::{Error, Result};
use crate::kernel::cache::Key;
use crate::kernel::launch::{Binding, Params, MAX_DIMS};
use crate::kernel::source::Spec;
use crate::ops::elementwise::Operand;
use crate::shape::{broadcast_shapes, broadcast_strides, collapse, Axes};

/// The reductions a fused expression may end in (`custom::fuse` traces them).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(super) enum Reduction {
    Sum,
    Prod,
    Max,
    Min,
    Mean,
}

const SRC: &str = include_str!("../../shaders/fused_reduce.wgsl");
const WG: usize = 256;
/// Outputs of at most this many elements are reduced one invocation each (`thread`).
const THREAD_K: usize = 64;
/// Elements one workgroup of `group` folds at least, before a reduction is split further.
const MIN_CHUNK: usize = 4096;
/// Work units a split reduction aims at (enough workgroups to fill a large GPU).
const TARGET_UNITS: usize = 1024;
/// Most workgroups in one dimension of a grid.
const MAX_GROUPS: usize = 65_535;

/// The dtypes a fused reduction runs in one kernel; the others take the elementwise kernel
/// and the built-in reduction (which refuse them, or handle booleans).
pub(super) fn fusable(d: DType) -> bool {
    matches!(
        d,
        DType::F32 | DType::F16 | DType::F64 | DType::I32 | DType::U32
    )
}

/// The accumulator of inputs of `d`: f32 for f16, else `d` (as the built-in reductions).
fn acc_of(d: DType) -> DType {
    if d == DType::F16 {
        DType::F32
    } else {
        d
    }
}

/// What a fused reduction computes: the expression (helper functions and the body of `let`
/// lines that assigns `fused_out`, see `fuse::generate`) of the kernel `kernel` (whose
/// parameters check the arguments), over `inputs` arguments, then the reduction.
pub(super) struct Fusion<'k> {
    pub kernel: &'k ElementwiseKernel,
    pub inputs: usize,
    pub helpers: &'k str,
    pub body: &'k str,
    pub reduction: Reduction,
    pub axis: &'k Axes,
    pub keepdims: bool,
}

/// The parameters of one dispatch; [`ReduceParams::encode`] is the one place that writes
/// them, read by the accessors of shaders/fused_reduce.wgsl.
struct ReduceParams {
    /// Work units: `group`'s workgroups or `thread`'s invocations.
    units: usize,
    k: usize,
    chunk: usize,
    divisor: usize,
    /// The layout (strides, offsets, scalar words) of the inputs.
    layout: Params,
}

impl ReduceParams {
    fn encode(&self) -> Params {
        let mut p = self.layout;
        p.n = self.units as u32;
        // P.aux.x stays 0: the elementwise library's opaque_ and one64_ read it as a zero
        // the compiler cannot see (a non-zero one corrupts their results: f64 `exp` gave
        // NaN in a fused sum). K goes in the scalar word no input uses (at most 3 inputs).
        p.aux = [0, self.chunk as u32];
        p.sc[12..16].copy_from_slice(&(self.k as u32).to_le_bytes());
        p.offs[3] = self.divisor as u32;
        p
    }
}

/// One stage: its entry, units, chunk and splits for `m` outputs of `k` elements.
struct Stage {
    entry: &'static str,
    units: usize,
    chunk: usize,
    splits: usize,
}

fn stage(m: usize, k: usize) -> Stage {
    if k <= THREAD_K {
        return Stage {
            entry: "thread",
            units: m,
            chunk: k.max(1),
            splits: 1,
        };
    }
    let want = TARGET_UNITS.div_ceil(m).min(k.div_ceil(MIN_CHUNK)).max(1);
    let chunk = k.div_ceil(want);
    let splits = k.div_ceil(chunk);
    Stage {
        entry: "group",
        units: m * splits,
        chunk,
        splits,
    }
}

/// The grid of `s`: workgroups of `group` in two dimensions, invocations of `thread`.
fn work(s: &Stage) -> Result<Work> {
    if s.entry == "thread" {
        return Ok(Work::Items(s.units as u32));
    }
    let y = s.units.div_ceil(MAX_GROUPS);
    if y > MAX_GROUPS {
        return Err(Error::InvalidArgument {
            op: "Fused::call",
            reason: "too many outputs for one reduction dispatch",
        });
    }
    Ok(Work::Groups([s.units.div_ceil(y) as u32, y as u32, 1]))
}

/// The WGSL functions of `r` on accumulators of `acc`: identity, combine, and the finish of
/// a final result (a mean divides by `divisor()`).
fn functions(r: Reduction, acc: DType) -> (String, String, String) {
    let float = acc.is_float();
    let inf = |sign: &str| match acc {
        DType::F64 => format!("A({sign}f64(bitcast<f32>(0x7f800000u)))"),
        _ => format!("A({sign}bitcast<f32>(0x7f800000u))"),
    };
    let identity = match (r, acc) {
        (Reduction::Prod, _) => "A(1)".to_string(),
        (Reduction::Max, DType::I32) => "A(-2147483647 - 1)".into(),
        (Reduction::Max, DType::U32) => "A(0u)".into(),
        (Reduction::Min, DType::I32) => "A(2147483647)".into(),
        (Reduction::Min, DType::U32) => "A(0xffffffffu)".into(),
        (Reduction::Max, _) => inf("-"),
        (Reduction::Min, _) => inf(""),
        _ => "A(0)".into(),
    };
    // The extremes propagate NaN: a NaN operand wins (WGSL's max and min need not).
    let extreme = |f: &str| {
        if float {
            format!("select(select({f}(a, b), b, !(b == b)), a, !(a == a))")
        } else {
            format!("{f}(a, b)")
        }
    };
    let combine = match r {
        Reduction::Prod => "a * b".to_string(),
        Reduction::Max => extreme("max"),
        Reduction::Min => extreme("min"),
        Reduction::Sum | Reduction::Mean => "a + b".into(),
    };
    let finish = match r {
        Reduction::Mean => "Dst(r / A(divisor()))",
        _ => "Dst(r)",
    };
    (
        format!("fn identity() -> A {{ return {identity}; }}"),
        format!("fn combine(a: A, b: A) -> A {{ return {combine}; }}"),
        format!("fn finish(r: A) -> Dst {{ return {finish}; }}"),
    )
}

/// `finish` of a split stage: the accumulators as they are.
const PARTIAL_FINISH: &str = "fn finish(r: A) -> Dst { return r; }";
/// `value` of the stage over partial results: the accumulators as they are.
const PARTIAL_VALUE: &str = "fn value(i: u32, o: vec3<u32>) -> A { return in0[o.x]; }";

/// `offsets`: from the multi-index where `strided`, else `offs + i`.
fn offsets_fn(strided: bool) -> &'static str {
    if strided {
        "fn offsets(i: u32) -> vec3<u32> { return strided_offsets(i); }"
    } else {
        "fn offsets(i: u32) -> vec3<u32> { return P.offs.xyz + vec3<u32>(i); }"
    }
}

/// The inputs of one stage: the dtypes and bindings of the arrays, their layout in
/// `Params` (offsets and, where `ndim > 0`, the merged shape and strides) and the scalar
/// words.
struct Inputs<'a> {
    dtypes: Vec<DType>,
    /// `value` calls the elementwise math library of this dtype (stage 1 of a fused
    /// expression; not the stage over partial results).
    library: Option<DType>,
    bindings: Vec<Binding<'a>>,
    layout: Params,
    ndim: usize,
}

/// Runs the reduction of `m` outputs of `k` elements into `out` (of `out_dtype`): one
/// stage, or a split one into partial accumulators and a stage over those. `value` is the
/// function of the `fn value(` line.
fn run_stage(
    dev: &Device,
    (r, d): (Reduction, DType),
    value: &str,
    inputs: &Inputs<'_>,
    (m, k, divisor): (usize, usize, usize),
    (out, out_dtype): (Binding<'_>, DType),
) -> Result<()> {
    let acc = acc_of(d);
    let s = stage(m, k);
    let (identity, combine, finish) = functions(r, acc);
    // A split stage writes the accumulators as they are.
    let (dst, finish) = if s.splits == 1 {
        (out_dtype, finish)
    } else {
        (acc, PARTIAL_FINISH.to_string())
    };
    let offsets = offsets_fn(inputs.ndim > 0);
    let key = Key {
        family: "fused_reduce",
        entry: s.entry,
        variant: format!(
            "{d}|{dst}|{:?}|{offsets}|{identity}|{combine}|{finish}|{value}",
            inputs.dtypes
        ),
        inputs: inputs.bindings.len(),
        wg: WG as u32,
        ndim: inputs.ndim as u32,
        per: u32::from(inputs.ndim > 0),
    };
    let kernel = dev.kernel(key, || {
        spec(d, inputs, dst, value)
            .function("offsets", offsets)
            .function("identity", identity)
            .function("combine", combine)
            .function("finish", finish)
    })?;
    let params = ReduceParams {
        units: s.units,
        k,
        chunk: s.chunk,
        divisor,
        layout: inputs.layout,
    };
    let work = work(&s)?;
    if s.splits == 1 {
        return dev.launch(&kernel, &params.encode(), &inputs.bindings, out, work);
    }
    // Split: partial accumulators [m, splits], then their reduction (a contiguous input).
    let bytes = (s.units * acc.size()) as u64;
    let mut apart: Vec<_> = inputs.bindings.iter().map(|b| b.buffer).collect();
    apart.push(out.buffer);
    let buf = dev.alloc_apart(bytes, &apart)?;
    let partial = Binding {
        buffer: &buf,
        bytes,
        window: 0,
    };
    dev.launch(&kernel, &params.encode(), &inputs.bindings, partial, work)?;
    let next = Inputs {
        dtypes: vec![acc],
        library: None,
        bindings: vec![partial],
        layout: Params::new(0),
        ndim: 0,
    };
    run_stage(
        dev,
        (r, d),
        PARTIAL_VALUE,
        &next,
        (m, s.splits, divisor),
        (out, out_dtype),
    )
}

/// The source of a variant for values of `d`: the array inputs of `inputs`, results of
/// `dst`, and `value` for the `fn value(` line.
fn spec(d: DType, inputs: &Inputs<'_>, dst: DType, value: &str) -> Spec {
    let mut spec = Spec::new("fused_reduce", SRC)
        .alias("S", d.wgsl())
        .alias("A", acc_of(d).wgsl())
        .alias("Dst", dst.wgsl());
    for (k, name) in ["I0", "I1", "I2"].into_iter().enumerate() {
        spec = spec.alias(name, inputs.dtypes.get(k).map_or("f32", |d| d.wgsl()));
    }
    let spec = spec.function("value", value.to_string());
    match inputs.library {
        Some(l) => crate::ops::elementwise::library(l, false)
            .1
            .iter()
            .fold(spec, |s, name| s.import(name)),
        None => spec,
    }
}

/// The reduction `f.reduction` over `f.axis` of the fused expression on `args`, in one
/// kernel (two for long reductions); `None` where it must take the elementwise kernel and
/// the built-in reduction instead (a dtype [`fusable`] refuses, a reduction over no
/// elements, more than `u32::MAX` elements, four scalar inputs).
pub(super) fn reduce<T: Element>(
    dev: &Device,
    f: &Fusion<'_>,
    args: &[&dyn KernelArg],
) -> Result<Option<Array<T>>> {
    let k = f.kernel;
    let args = args_of(dev, "Fused::call", k.name(), args, None, f.inputs)?;
    let types = k.bind_types::<T>(&args, None)?;
    k.output_dtype::<T>(&types)?;
    let (operands, words) = k.split_args(&args, &types)?;
    let mut shape: Vec<usize> = Vec::new();
    for x in &operands {
        shape = broadcast_shapes("Fused::call", &shape, x.shape)?;
    }
    let red = reduced(&shape, f.axis)?;
    let out_shape: Vec<usize> = (0..shape.len())
        .filter(|&d| f.keepdims || !red[d])
        .map(|d| if red[d] { 1 } else { shape[d] })
        .collect();
    let m: usize = out_shape.iter().product();
    let count: usize = (0..shape.len())
        .filter(|&d| red[d])
        .map(|d| shape[d])
        .product();
    let d = T::DTYPE;
    // Four scalar words would take P.sc[3], where `encode` puts K.
    if !fusable(d)
        || words.len() > 3
        || (f.reduction == Reduction::Mean && !accepts::floats(d))
        || (count == 0 && m > 0)
        || m.saturating_mul(count) > u32::MAX as usize
    {
        return Ok(None);
    }
    let apart: Vec<_> = operands.iter().map(|x| x.binding.buffer).collect();
    let out = Array::<T>::alloc_with(dev, "Fused::call", out_shape, |b| {
        dev.alloc_apart(b, &apart)
    })?;
    if m == 0 {
        return Ok(Some(out));
    }
    let arrays: Vec<bool> = args
        .iter()
        .map(|a| matches!(a, Arg::Array { .. }))
        .collect();
    let value = value_fn(d, f.helpers, &k.input_lets(&types, &arrays, false), f.body);
    let mut inputs = layout(&operands, &shape, &red, d)?;
    for (j, w) in words.iter().enumerate() {
        inputs.layout.sc[4 * j..4 * j + 4].copy_from_slice(&w.to_le_bytes());
    }
    run_stage(
        dev,
        (f.reduction, d),
        &value,
        &inputs,
        (m, count, count),
        (out.binding(), d),
    )?;
    Ok(Some(out))
}

/// The function of the `fn value(` line for a fused expression of dtype `d`: the alias `T`,
/// the elementwise library, the expression's `helpers`, then `value` naming the inputs
/// (`lets`) and running the expression's `body`.
fn value_fn(d: DType, helpers: &str, lets: &str, body: &str) -> String {
    format!(
        "{}{}{helpers}fn value(i: u32, o: vec3<u32>) -> A {{\n{lets}    var fused_out: T;\n{body}    return A(fused_out);\n}}",
        crate::custom::Types(vec![("T".into(), d)]).aliases(),
        crate::ops::elementwise::library(d, false).0,
    )
}

/// Variants of shaders/fused_reduce.wgsl for the shader validation test: a sample
/// expression of an array and a scalar (f64: two arrays), each reduction, and for sums
/// strided loads, partial results, and the stage over partial results.
/// `sample` gives the helpers and body of a sample fused expression per dtype
/// (`custom::fuse::sample`), passed in so that this file does not import the tracer.
#[cfg(test)]
pub(crate) fn all_specs(sample: impl Fn(DType) -> (String, String)) -> Vec<Spec> {
    let dtypes = [DType::F32, DType::F16, DType::F64, DType::I32, DType::U32];
    let reductions = [
        Reduction::Sum,
        Reduction::Prod,
        Reduction::Max,
        Reduction::Min,
        Reduction::Mean,
    ];
    let mut out = Vec::new();
    for d in dtypes {
        let (helpers, body) = sample(d);
        let second = if d == DType::F64 {
            "    let v1 = in1[o[1]];\n".to_string()
        } else {
            format!("    let v1: T = T({});\n", crate::custom::scalar_read(d, 0))
        };
        let lets = format!("    let v0 = in0[o[0]];\n{second}");
        let value = value_fn(d, &helpers, &lets, &body);
        let acc = acc_of(d);
        for r in reductions
            .into_iter()
            .filter(|&r| d.is_float() || r != Reduction::Mean)
        {
            let (identity, combine, finish) = functions(r, acc);
            // Each reduction's final stage; strided loads, a split stage and the stage over
            // partial results once per dtype (they share the reduction's functions).
            let mut stages = vec![(Some(d), value.as_str(), finish.as_str(), vec![d; 2], false)];
            if r == Reduction::Sum {
                stages.extend([
                    (Some(d), value.as_str(), finish.as_str(), vec![d; 2], true),
                    (Some(d), value.as_str(), PARTIAL_FINISH, vec![d; 2], false),
                    (None, PARTIAL_VALUE, finish.as_str(), vec![acc], false),
                ]);
            }
            for (library, value, finish, dtypes, strided) in stages {
                let dst = if finish == PARTIAL_FINISH { acc } else { d };
                let inputs = Inputs {
                    dtypes,
                    library,
                    bindings: Vec::new(),
                    layout: Params::new(0),
                    ndim: 0,
                };
                let offsets = offsets_fn(strided);
                out.push(
                    spec(d, &inputs, dst, value)
                        .function("offsets", offsets)
                        .function("identity", identity.clone())
                        .function("combine", combine.clone())
                        .function("finish", finish.to_string()),
                );
            }
        }
    }
    out
}

/// The axes of `shape` that `axis` reduces (negative count from the end).
fn reduced(shape: &[usize], axis: &Axes) -> Result<Vec<bool>> {
    let axes = axis.resolve(shape.len(), "Fused::call")?;
    Ok((0..shape.len()).map(|d| axes.contains(&d)).collect())
}

/// The inputs' layout (all of dtype `d`) with the reduced axes moved last: contiguous (`ndim` 0) where every
/// operand's elements lie in that order from its offset, else merged strided dimensions.
fn layout<'a>(
    operands: &[Operand<'a>],
    shape: &[usize],
    red: &[bool],
    d: DType,
) -> Result<Inputs<'a>> {
    let perm: Vec<usize> = (0..shape.len())
        .filter(|&d| !red[d])
        .chain((0..shape.len()).filter(|&d| red[d]))
        .collect();
    let pshape: Vec<usize> = perm.iter().map(|&d| shape[d]).collect();
    let strides: Vec<Vec<isize>> = operands
        .iter()
        .map(|x| {
            let s = broadcast_strides(x.shape, x.strides, shape)?;
            Ok(perm.iter().map(|&d| s[d]).collect())
        })
        .collect::<Result<_>>()?;
    let refs: Vec<&[isize]> = strides.iter().map(|s| s.as_slice()).collect();
    let (cshape, cstrides) = collapse(&pshape, &refs);
    if cshape.len() > MAX_DIMS {
        return Err(Error::TooManyDims {
            ndim: cshape.len(),
            max: MAX_DIMS,
        });
    }
    let contiguous = cshape.len() <= 1 && cstrides.iter().all(|s| s.iter().all(|&v| v == 1));
    let mut p = if contiguous {
        Params::new(0)
    } else {
        Params::new(0).layout(&cshape, &cstrides)
    };
    for (j, x) in operands.iter().enumerate() {
        p.offs[j] = x.offset as u32;
    }
    Ok(Inputs {
        dtypes: vec![d; operands.len()],
        library: Some(d),
        bindings: operands.iter().map(|x| x.binding).collect(),
        layout: p,
        ndim: if contiguous { 0 } else { cshape.len() },
    })
}
