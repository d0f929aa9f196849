//! Running reductions: the entry points behind the public methods ([`reduce`]) and user
//! `ReductionKernel`s ([`reduce_with`]), which check the axes and handle empty inputs;
//! `execute`, which turns one reduction into an M x K problem (copying the input first
//! where its layout does not allow one); and `run`, which plans the problem, picks its
//! kernel and launches it through the device, window by window, with a second stage over
//! the partial results when K is split.

use std::borrow::Cow;
use std::sync::Arc;

use crate::array::Array;
use crate::device::{Device, Work};
use crate::dtype::{real_from_f64, DType, Element};
use crate::error::{Error, Result};
use crate::kernel::cache::{Kernel, Key};
use crate::kernel::launch::{Binding, MAX_DIMS};
use crate::shape::Shape;

use super::last;
use super::params::ReduceParams;
use super::plan::{
    fit, layout, merge, reduced_axes, reduced_last, Layout, Plan, Problem, Window, WG,
};
use super::source::{acc_size, shuffles, spec, Load, Op, Reducer};

/// The reduction `op` of `x` over `axes` (all when `None`), as an array of `O`.
pub(super) fn reduce<T: Element, O: Element>(
    x: &Array<T>,
    op: Op,
    axes: Option<&[usize]>,
    keepdims: bool,
) -> Result<Array<O>> {
    if T::DTYPE.is_packed() || O::DTYPE.is_packed() {
        return reduce_packed(x, op, axes, keepdims);
    }
    if T::DTYPE.is_complex() || O::DTYPE.is_complex() {
        return super::complex::reduce_complex(x, op, axes, keepdims);
    }
    let name = op.name();
    let dev = &x.dev;
    dev.require(name, T::DTYPE)?;
    dev.require(name, O::DTYPE)?;
    if !op.supports(T::DTYPE) {
        return Err(dev.unsupported(name, T::DTYPE));
    }
    let (red, shape, count) = reduced_axes(&x.shape, name, axes, keepdims)?;
    let out = Array::<O>::alloc_with(dev, name, shape, |b| dev.alloc_apart(b, &[&x.buf]))?;
    if out.is_empty() {
        return Ok(out);
    }
    if count == 0 {
        return match op.empty() {
            Some(v) => {
                let v = real_from_f64::<O>(v).ok_or_else(|| dev.unsupported(name, O::DTYPE))?;
                dev.full(Shape::from(out.shape.clone()), v)
            }
            None => Err(Error::InvalidArgument {
                op: name,
                reason: "the reduced axes are empty, and this reduction has no identity",
            }),
        };
    }
    // var and std: a first pass writes the means (one per output, in the accumulator
    // type), which the second reads as binding 2.
    let acc = op.acc(T::DTYPE);
    let mean_bytes = (out.len() * acc.size()) as u64;
    let mean_buf = if op.reads_means() {
        Some(dev.alloc_apart(mean_bytes, &[&x.buf, &out.buf])?)
    } else {
        None
    };
    let mean = mean_buf.as_ref().map(|buffer| Binding {
        buffer,
        bytes: mean_bytes,
        window: 0,
    });
    if let Some(binding) = mean {
        let mean = match op {
            Op::NanVar(_) | Op::NanStd(_) => Op::NanMean,
            _ => Op::Mean,
        };
        execute(x, &mean.reducer(T::DTYPE), &red, binding, acc, None)?;
    }
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

/// argmin or argmax (`op`) of `x` as i64 indices that the reduction's final stage writes
/// itself, each as two u32 words (low, high 0: an i64 on every adapter, with or without
/// 64-bit integers in shaders), instead of u32 indices widened by a second dispatch into a
/// second allocation (on a 64M-element argmax, one dependent dispatch of its ~0.1 ms).
/// Packed and complex inputs, and empty arrays (their errors), take [`reduce`] and the
/// widening.
pub(super) fn reduce_index<T: Element>(
    x: &Array<T>,
    op: Op,
    axes: Option<&[usize]>,
    keepdims: bool,
) -> Result<Array<i64>> {
    debug_assert!(matches!(op, Op::ArgMax | Op::ArgMin));
    let old = || crate::ops::index::widen(&reduce::<T, u32>(x, op, axes, keepdims)?, false);
    if T::DTYPE.is_packed() || T::DTYPE.is_complex() || x.is_empty() {
        return old();
    }
    let name = op.name();
    let dev = &x.dev;
    dev.require(name, T::DTYPE)?;
    if !op.supports(T::DTYPE) {
        return Err(dev.unsupported(name, T::DTYPE));
    }
    let (red, shape, _) = reduced_axes(&x.shape, name, axes, keepdims)?;
    let n: usize = shape.iter().product();
    let words =
        Array::<u32>::alloc_with(dev, name, vec![2 * n], |b| dev.alloc_apart(b, &[&x.buf]))?;
    execute(
        x,
        &op.reducer(T::DTYPE),
        &red,
        words.binding(),
        DType::I64,
        None,
    )?;
    Ok(words.pairs_as_i64(shape))
}

/// [`reduce`] of a packed `x` (or into a packed `O`): the elements widened to i32 (one
/// pass, exact; for whole-array sums, maxima and minima four words' lanes combined first),
/// reduced as i32, and a packed result cast back (max and min exactly; a sum in its own
/// type wraps, as i32's low bits do).
fn reduce_packed<T: Element, O: Element>(
    x: &Array<T>,
    op: Op,
    axes: Option<&[usize]>,
    keepdims: bool,
) -> Result<Array<O>> {
    use crate::ops::elementwise::packed::{fold, Fold};
    use crate::ops::elementwise::{map_unary, Unary};
    if !T::DTYPE.is_packed() {
        return Err(x.dev.unsupported(op.name(), O::DTYPE));
    }
    // Whole-array sums, maxima and minima: four words' lanes first (n bytes read for u8,
    // n / 4 bytes of i32 written), then those.
    let first = match op {
        Op::Sum | Op::SumAs(_) => Some(Fold::Sum),
        Op::Max => Some(Fold::Max),
        Op::Min => Some(Fold::Min),
        _ => None,
    };
    let wide = match first {
        Some(how) if axes.is_none() && !keepdims && !x.is_empty() => fold(x, how)?,
        _ => map_unary::<T, i32>(x, Unary::Cast, &[])?,
    };
    if O::DTYPE.is_packed() {
        let r = reduce::<i32, i32>(&wide, op, axes, keepdims)?;
        return map_unary::<i32, O>(&r, Unary::Cast, &[]);
    }
    reduce::<i32, O>(&wide, op, axes, keepdims)
}

/// The `op` of errors about a reduction named `name`: the name where it is static (a
/// built-in operation's), else `"ReductionKernel"` (a user's kernel, named at run time; its
/// name is in the pipeline key instead).
fn error_op(name: Cow<'static, str>) -> &'static str {
    match name {
        Cow::Borrowed(s) => s,
        Cow::Owned(_) => "ReductionKernel",
    }
}

/// The reduction `r` (a user kernel's, named `name`) of `x` over `axes` (all when `None`),
/// as an array of `O`; over no elements, the finished identity (CuPy's `post_map(identity)`).
pub(crate) fn reduce_with<T: Element, O: Element>(
    x: &Array<T>,
    r: &Reducer,
    name: impl Into<Cow<'static, str>>,
    axes: Option<&[usize]>,
    keepdims: bool,
) -> Result<Array<O>> {
    let op = error_op(name.into());
    let dev = &x.dev;
    dev.require(op, T::DTYPE)?;
    let (red, shape, count) = reduced_axes(&x.shape, op, axes, keepdims)?;
    let out = Array::<O>::alloc_with(dev, op, shape, |b| dev.alloc_apart(b, &[&x.buf]))?;
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
    if !x.is_forwards() {
        let x = forwards(x, op, red)?;
        return execute(&x, op, red, out, dtype, mean);
    }
    let axes: Vec<(usize, usize)> = x
        .shape
        .iter()
        .copied()
        .zip(x.strides.iter().map(|&s| s as usize))
        .collect();
    let count: usize = x
        .shape
        .iter()
        .zip(red)
        .filter(|&(_, &r)| r)
        .map(|(e, _)| e)
        .product();
    let target = Target {
        out,
        dtype: Some(dtype),
        divisor: count.saturating_sub(op.ddof) as u32,
        mean,
    };
    let src = Source {
        src: x.binding(),
        input: T::DTYPE,
        load: Load::Elem,
        elem: T::DTYPE.size(),
        offset: x.offset,
    };
    if layout(&axes, red, op.ordered).is_some() || stageable(op, &axes) {
        return staged(&x.dev, op, src, &axes, red, &target);
    }
    // Neither one strided axis nor stages: copy with the kept axes first and the reduced
    // ones last.
    let (perm, red) = reduced_last(red);
    let c = x.transpose(&perm)?.contiguous()?;
    execute(&c, op, &red, target.out, dtype, mean)
}

/// `x` (with a negative stride) as a view with none: where every reversed axis is reduced
/// and the order of the elements does not matter (not an arg-reduction), those axes walked
/// forwards from their lowest element (the same elements, no copy); else a copy.
fn forwards<T: Element>(x: &Array<T>, op: &Reducer, red: &[bool]) -> Result<Array<T>> {
    let reversed = |d: usize| x.strides[d] < 0;
    if op.ordered || (0..x.ndim()).any(|d| reversed(d) && !red[d]) {
        return x.contiguous();
    }
    let mut offset = x.offset as isize;
    let mut strides = x.strides.clone();
    for (d, s) in strides.iter_mut().enumerate().filter(|(_, s)| **s < 0) {
        offset += (x.shape[d].max(1) as isize - 1) * *s;
        *s = -*s;
    }
    Ok(x.view(x.shape.clone(), strides, offset as usize))
}

/// Where a problem's elements are: the buffer, what it holds and the first one's offset.
#[derive(Clone, Copy)]
struct Source<'a> {
    src: Binding<'a>,
    input: DType,
    load: Load,
    elem: usize,
    offset: usize,
}

/// Whether reducing the axes (extent, stride) marked in `red` can go in stages, one
/// reduced axis each ([`staged`]): an operation that reads no means and keeps no index
/// order (the stages change the order in which axes combine), with at most `MAX_DIMS + 1`
/// axes longer than 1, so that every stage's outputs fit the kernels' dimensions.
fn stageable(op: &Reducer, axes: &[(usize, usize)]) -> bool {
    !op.means && !op.ordered && axes.iter().filter(|a| a.0 > 1).count() <= MAX_DIMS + 1
}

/// Reduces the axes marked in `red` of the elements of `src` (axes as (extent, stride))
/// into `t`: one M x K problem where they merge into one strided axis; else a first stage
/// reduces the reduced axis of smallest stride (the innermost in memory, read in place)
/// into partial results laid out contiguously over the other axes, and the rest is reduced
/// from those the same way. Every stage's order is fixed by the shape, so the result is
/// the same bits every run.
fn staged(
    dev: &Device,
    op: &Reducer,
    src: Source<'_>,
    axes: &[(usize, usize)],
    red: &[bool],
    t: &Target<'_>,
) -> Result<()> {
    let problem = |kept: Vec<(usize, usize)>, k: usize, rs: usize| Problem {
        src: src.src,
        input: src.input,
        load: src.load,
        elem: src.elem,
        offset: src.offset,
        kept,
        k,
        rs,
    };
    if let Some(Layout { kept, k, rs }) = layout(axes, red, op.ordered) {
        return run(dev, op, &problem(kept, k, rs), t);
    }
    let Some(d) = (0..axes.len())
        .filter(|&d| red[d] && axes[d].0 > 1)
        .min_by_key(|&d| axes[d].1)
    else {
        return Err(Error::InvalidArgument {
            op: "reduce",
            reason: "internal: no reduced axis to stage",
        });
    };
    let others: Vec<usize> = (0..axes.len())
        .filter(|&e| e != d && axes[e].0 > 1)
        .collect();
    let kept = merge(&others.iter().map(|&e| axes[e]).collect::<Vec<_>>());
    let kept = if kept.is_empty() { vec![(1, 0)] } else { kept };
    let m: usize = others.iter().map(|&e| axes[e].0).product();
    let bytes = (m * acc_size(op.acc)) as u64;
    let mut apart = vec![src.src.buffer, t.out.buffer];
    apart.extend(t.mean.map(|b| b.buffer));
    let buffer = dev.alloc_apart(bytes, &apart)?;
    let partial = Binding {
        buffer: &buffer,
        bytes,
        window: 0,
    };
    let first = Target {
        out: partial,
        dtype: None,
        divisor: 0,
        mean: None,
    };
    run(dev, op, &problem(kept, axes[d].0, axes[d].1), &first)?;
    // The partial results: the other axes, contiguous, outermost first.
    let mut next: Vec<(usize, usize)> = others.iter().map(|&e| (axes[e].0, 0)).collect();
    let mut stride = 1;
    for a in next.iter_mut().rev() {
        a.1 = stride;
        stride *= a.0;
    }
    let next_red: Vec<bool> = others.iter().map(|&e| red[e]).collect();
    let source = Source {
        src: partial,
        input: src.input,
        load: Load::Partial,
        elem: acc_size(op.acc),
        offset: 0,
    };
    staged(dev, op, source, &next, &next_red, t)
}

/// Runs problem `p` into `t`: one stage, or two (or more) when K is split.
fn run(dev: &Device, op: &Reducer, p: &Problem<'_>, t: &Target<'_>) -> Result<()> {
    let (plan, windows) = fit(dev, p)?;
    let acc32 = op.acc.size() == 4;
    if last::fusable(
        dev,
        &plan,
        p.outputs(),
        windows.len(),
        acc32,
        t.mean.is_some(),
    ) {
        return run_last(dev, op, p, t, &plan, &windows[0]);
    }
    // With splits, this stage writes partial results [m, splits] into scratch memory, and
    // a further stage reduces each row of them into `t`.
    let partial_bytes = (p.outputs() * plan.splits * acc_size(op.acc)) as u64;
    let scratch = if plan.splits > 1 {
        let mut inputs = vec![p.src.buffer, t.out.buffer];
        inputs.extend(t.mean.map(|m| m.buffer));
        Some(dev.alloc_apart(partial_bytes, &inputs)?)
    } else {
        None
    };
    let (out, dtype) = match &scratch {
        Some(buffer) => (
            Binding {
                buffer,
                bytes: partial_bytes,
                window: 0,
            },
            None,
        ),
        None => (t.out, t.dtype),
    };
    // var's and std's means are read by the stage over the elements only.
    let means = t.mean.filter(|_| p.load != Load::Partial);
    let kernel = stage_kernel(dev, op, p, &plan, dtype, means.is_some(), false)?;
    for w in &windows {
        let params = stage_params(op, p, t, &plan, w).encode();
        let src = Binding {
            buffer: p.src.buffer,
            bytes: (w.end * p.elem) as u64,
            window: (w.base * p.elem) as u64,
        };
        let inputs: Vec<Binding<'_>> = std::iter::once(src).chain(means).collect();
        let work = Work::Items(((w.end_unit - w.first_unit) * WG) as u32);
        let start = dev
            .options()
            .diagnostics
            .reduce_profile
            .then(|| dev.record_event())
            .transpose()?;
        dev.launch(&kernel, &params, &inputs, out, work)?;
        if let Some(start) = start {
            let end = dev.record_event()?;
            eprintln!(
                "reduce profile: {:?} {:?} groups {} k {} m {}: {:.4} ms",
                p.load,
                plan,
                w.end_unit - w.first_unit,
                p.k,
                p.outputs(),
                start.elapsed_ms(&end)?
            );
        }
    }
    if scratch.is_some() {
        run(dev, op, &partials(p, &plan, out, op.acc), t)?;
    }
    Ok(())
}

/// Runs problem `p` into `t` as one fused stage (`rows_last` / `rows4_last`, see
/// [`last`]) in window `w`, the one dispatch of `plan`.
fn run_last(
    dev: &Device,
    op: &Reducer,
    p: &Problem<'_>,
    t: &Target<'_>,
    plan: &Plan,
    w: &Window,
) -> Result<()> {
    let scratch = last::scratch(dev, p.outputs(), plan.splits)?;
    let kernel = stage_kernel(dev, op, p, plan, t.dtype, false, true)?;
    let params = stage_params(op, p, t, plan, w).encode();
    let src = Binding {
        buffer: p.src.buffer,
        bytes: (w.end * p.elem) as u64,
        window: (w.base * p.elem) as u64,
    };
    let counters = Binding {
        buffer: &scratch,
        bytes: scratch.size(),
        window: 0,
    };
    // Binding 2 (var's means) is unused: the input stands in for it.
    let inputs = [src, src, counters];
    let work = Work::Items(((w.end_unit - w.first_unit) * WG) as u32);
    dev.launch(&kernel, &params, &inputs, t.out, work)
}

/// The kernel of one stage of `p` under `plan` (rows, rows4, cols or cols4), writing
/// results of `dtype` (`None`: partial results), reading var's means as a second input when
/// `means`.
fn stage_kernel(
    dev: &Device,
    op: &Reducer,
    p: &Problem<'_>,
    plan: &Plan,
    dtype: Option<DType>,
    means: bool,
    fused: bool,
) -> Result<Arc<Kernel>> {
    let load = if plan.vec4 { Load::Elem4 } else { p.load };
    let entry = match (plan.cols, plan.vec4, fused) {
        (false, false, false) => "rows",
        (false, true, false) => "rows4",
        (false, false, true) => "rows_last",
        (false, true, true) => "rows4_last",
        (true, false, _) => "cols",
        (true, true, _) => "cols4",
    };
    if p.kept.len() > MAX_DIMS {
        return Err(Error::TooManyDims {
            ndim: p.kept.len(),
            max: MAX_DIMS,
        });
    }
    let shuffles = shuffles(dev, op.acc);
    let key = Key {
        family: "reduce",
        entry,
        variant: format!("{}|{}|{load:?}|{dtype:?}|{shuffles}", op.key, p.input),
        inputs: if fused {
            3
        } else if means {
            2
        } else {
            1
        },
        wg: WG as u32,
        ndim: p.kept.len() as u32,
        per: plan.per as u32,
    };
    dev.kernel(key, || {
        let s = spec(op, p.input, load, dtype, shuffles);
        if fused {
            s.writable_last_input()
        } else {
            s
        }
    })
}

/// The parameters of the dispatch of window `w` of problem `p` under `plan`.
fn stage_params<'a>(
    op: &Reducer,
    p: &'a Problem<'_>,
    t: &Target<'_>,
    plan: &Plan,
    w: &Window,
) -> ReduceParams<'a> {
    ReduceParams {
        kept: &p.kept,
        offset: p.offset,
        window: w.base,
        outputs: p.outputs(),
        k_len: p.k,
        rstride: p.rs,
        chunk: plan.chunk,
        splits: plan.splits,
        first_unit: w.first_unit,
        end_unit: w.end_unit,
        count: t.divisor,
        col_blocks: plan.blocks,
        identity: op.identity,
        acc: op.acc,
    }
}

/// The problem of the next stage: the rows of partial results (accumulators of `acc`) that
/// a split stage of `p` under `plan` wrote to `src`, one row of `plan.splits` per output.
fn partials<'a>(p: &Problem<'_>, plan: &Plan, src: Binding<'a>, acc: DType) -> Problem<'a> {
    Problem {
        src,
        input: p.input,
        load: Load::Partial,
        elem: acc_size(acc),
        offset: 0,
        kept: vec![(p.outputs(), plan.splits)],
        k: plan.splits,
        rs: 1,
    }
}
