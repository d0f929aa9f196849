//! Layouts and launches of the elementwise family: which entry point walks the operands
//! (contiguous, with vec4 loads where aligned; strided after merging dimensions, with
//! broadcast strides; rows of four), the override constants that go with it, and the
//! launch loop, which splits the work into pieces binding windows of the buffers when an
//! operand spans more than one storage binding.

use crate::array::Array;
use crate::device::{Device, Work};
use crate::dtype::{DType, Element};
use crate::error::{Error, Result};
use crate::kernel::cache::{Kernel, Key};
use crate::kernel::launch::{Binding, Params, MAX_DIMS};
use crate::shape::{broadcast_strides, collapse, is_contiguous, reach};

use super::tiles::tile_axis;
use super::wgsl::{op_def, spec};

/// Invocations per workgroup of every elementwise entry point.
pub(super) const WG: u32 = 256;

/// How a kernel walks its operands.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Layout {
    /// Every operand contiguous, of the output's shape.
    Contig,
    /// Offsets from the multi-index and strides, one or four elements per invocation.
    Strided,
    /// As strided, four elements of a row per invocation as vec4 values.
    Rows,
    /// Tiles of two axes through workgroup memory, for operands permuted against the
    /// output ([`tile_axis`]).
    Tiled,
}

/// An input of a map: its buffer binding and layout.
pub(crate) struct Operand<'a> {
    pub binding: Binding<'a>,
    pub shape: &'a [usize],
    pub strides: &'a [isize],
    pub offset: usize,
}

impl<T: Element> Array<T> {
    pub(crate) fn operand(&self) -> Operand<'_> {
        Operand {
            binding: self.binding(),
            shape: &self.shape,
            strides: &self.strides,
            offset: self.offset,
        }
    }
}

/// Whether every operand is contiguous and of `shape` (the `*_contig` entries' case).
pub(crate) fn is_plain(inputs: &[Operand<'_>], shape: &[usize]) -> bool {
    inputs
        .iter()
        .all(|x| x.shape == shape && is_contiguous(x.shape, x.strides))
}

/// The strided layout of `inputs` broadcast to `shape` in `params` (n, NDIM dimensions
/// after merging, strides and offsets), with the merged shape and strides.
pub(crate) fn broadcast_layout(
    inputs: &[Operand<'_>],
    shape: &[usize],
    params: Params,
) -> Result<(Params, Vec<usize>, Vec<Vec<isize>>)> {
    let strides: Vec<Vec<isize>> = inputs
        .iter()
        .map(|x| broadcast_strides(x.shape, x.strides, shape))
        .collect::<Result<_>>()?;
    let refs: Vec<&[isize]> = strides.iter().map(|s| s.as_slice()).collect();
    let (cshape, cstrides) = collapse(shape, &refs);
    if cshape.len() > MAX_DIMS {
        return Err(Error::TooManyDims {
            ndim: cshape.len(),
            max: MAX_DIMS,
        });
    }
    let mut p = params.layout(&cshape, &cstrides);
    p.n = shape.iter().product::<usize>() as u32;
    for (k, x) in inputs.iter().enumerate() {
        p.offs[k] = x.offset as u32;
    }
    Ok((p, cshape, cstrides))
}

/// The walk chosen for one dispatch: the layout, whether values are vec4s, the elements one
/// invocation of a strided entry takes (the `PER` override), and the parameters: n and the
/// offsets, and for strided layouts the merged shape and broadcast strides.
struct Plan {
    layout: Layout,
    vec: bool,
    per: u32,
    params: Params,
    /// The tiled walk's grid of workgroups.
    grid: [u32; 3],
}

impl Plan {
    /// The walk of `inputs` broadcast to `shape` (`n` elements, `n > 0`) for an operation
    /// that works on vec4 values where `vec_ok`, tiled where `tile_ok` and the layout asks
    /// for it; `params` holds its scalar arguments. `lanes` is the elements of one vec4
    /// value: 4, or 2 for complex inputs (a pair of complex numbers, contiguous walks only).
    fn new(
        inputs: &[Operand<'_>],
        shape: &[usize],
        n: usize,
        (vec_ok, tile_ok, lanes): (bool, bool, usize),
        params: Params,
    ) -> Result<Plan> {
        if is_plain(inputs, shape) {
            let vec = vec_ok
                && n.is_multiple_of(lanes)
                && inputs.iter().all(|x| x.offset.is_multiple_of(lanes));
            let q = if vec { lanes } else { 1 };
            let mut p = params;
            p.n = (n / q) as u32;
            for (k, x) in inputs.iter().enumerate() {
                p.offs[k] = (x.offset / q) as u32;
            }
            return Ok(Plan {
                layout: Layout::Contig,
                vec,
                per: q as u32,
                params: p,
                grid: [0; 3],
            });
        }
        let (mut p, cshape, cstrides) = broadcast_layout(inputs, shape, params)?;
        if let Some((t, grid)) = tile_axis(&cshape, &cstrides).filter(|_| tile_ok) {
            p.aux[1] = t as u32;
            return Ok(Plan {
                layout: Layout::Tiled,
                vec: false,
                per: 1,
                params: p,
                grid,
            });
        }
        // Where every operand's rows are contiguous or broadcast: four elements of a row per
        // invocation (one index computation for four), with vec4 loads of contiguous rows
        // when they are aligned. Elsewhere (a transposed operand) one per invocation, which
        // keeps neighbouring invocations on neighbouring rows.
        let inner = cshape.len() - 1;
        let rows_ok =
            cshape[inner].is_multiple_of(4) && cstrides.iter().all(|s| (0..=1).contains(&s[inner]));
        let aligned = inputs.iter().zip(&cstrides).all(|(x, s)| {
            s[inner] == 0 || (x.offset.is_multiple_of(4) && s[..inner].iter().all(|d| d % 4 == 0))
        });
        let (layout, vec, per) = match (rows_ok, aligned && vec_ok && lanes == 4) {
            (true, true) => (Layout::Rows, true, 4),
            (true, false) => (Layout::Strided, false, 4),
            (false, _) => (Layout::Strided, false, 1),
        };
        Ok(Plan {
            layout,
            vec,
            per,
            params: p,
            grid: [0; 3],
        })
    }

    /// Whether the entry derives offsets from strides (the `NDIM` and `PER` overrides).
    fn strided(&self) -> bool {
        self.layout != Layout::Contig
    }

    /// The entry point for `arity` operands.
    fn entry(&self, arity: usize) -> &'static str {
        match (arity, self.layout) {
            (1, Layout::Contig) => "unary_contig",
            (1, Layout::Strided) => "unary_strided",
            (1, Layout::Rows) => "unary_rows",
            (2, Layout::Contig) => "binary_contig",
            (2, Layout::Strided) => "binary_strided",
            (2, Layout::Rows) => "binary_rows",
            (_, Layout::Contig) => "ternary_contig",
            (_, Layout::Strided) => "ternary_strided",
            (_, Layout::Rows) => "ternary_rows",
            (1, Layout::Tiled) => "unary_tiled",
            (2, Layout::Tiled) => "binary_tiled",
            (_, Layout::Tiled) => "ternary_tiled",
        }
    }

    /// The pipeline of operation `def` on `arity` inputs of `input`, output `output`.
    fn key(&self, arity: usize, def: &str, input: DType, output: DType) -> Key {
        let strided = self.strided();
        Key {
            family: "elementwise",
            entry: self.entry(arity),
            variant: format!("{def}|{input}|{output}|{}", self.vec),
            inputs: arity,
            wg: WG,
            ndim: if strided { self.params.ndim } else { 0 },
            per: if strided { self.per } else { 0 },
        }
    }
}

/// Runs an elementwise kernel: `inputs` (of dtype `input`) broadcast to the shape of `out`
/// (a fresh contiguous array), writing `out`. `expr` is the operation's expression and
/// whether it works on vec4 values; `params` holds its scalar arguments.
pub(super) fn run<O: Element>(
    dev: &Device,
    input: DType,
    expr: (String, bool),
    inputs: &[Operand<'_>],
    out: Array<O>,
    params: Params,
) -> Result<Array<O>> {
    let n = out.len();
    if n == 0 {
        return Ok(out);
    }
    let bindings: Vec<Binding<'_>> = inputs.iter().map(|x| x.binding).collect();
    // The tiled entries bind whole buffers (no windows).
    let max = dev.limits().max_storage_buffer_binding_size & !3;
    let tile_ok = bindings
        .iter()
        .chain([&out.binding()])
        .all(|b| b.bytes <= max);
    let lanes = if input.is_complex() { 2 } else { 4 };
    let plan = match Plan::new(inputs, &out.shape, n, (expr.1, tile_ok, lanes), params) {
        Err(Error::TooManyDims { .. }) => return run_split(dev, input, expr, inputs, out, params),
        plan => plan?,
    };
    let (function, def) = op_def(inputs.len(), &expr.0);
    let key = plan.key(inputs.len(), &def, input, O::DTYPE);
    let vec = plan.vec;
    let kernel = dev.kernel(key, || spec(input, O::DTYPE, vec, function, def))?;
    if plan.layout == Layout::Tiled {
        let work = Work::Groups(plan.grid);
        dev.launch(&kernel, &plan.params, &bindings, out.binding(), work)?;
        return Ok(out);
    }
    let sizes = [
        input.size(),
        input.size(),
        DType::U32.size(),
        O::DTYPE.size(),
    ];
    let geometry = (plan.strided(), plan.per, sizes);
    launch_windows(
        dev,
        &kernel,
        &plan.params,
        &bindings,
        out.binding(),
        geometry,
    )?;
    Ok(out)
}

/// [`run`] for layouts of more than [`MAX_DIMS`] dimensions after merging: one launch per
/// multi-index of the outer dimensions, each over the inner [`MAX_DIMS`] with the inputs'
/// offsets and the output's moved to its start (arrays of that many dimensions that do not
/// merge are rare; those within [`MAX_DIMS`] never come here).
fn run_split<O: Element>(
    dev: &Device,
    input: DType,
    expr: (String, bool),
    inputs: &[Operand<'_>],
    out: Array<O>,
    params: Params,
) -> Result<Array<O>> {
    let strides: Vec<Vec<isize>> = inputs
        .iter()
        .map(|x| broadcast_strides(x.shape, x.strides, &out.shape))
        .collect::<Result<_>>()?;
    let refs: Vec<&[isize]> = strides.iter().map(|s| s.as_slice()).collect();
    let (cshape, cstrides) = collapse(&out.shape, &refs);
    let k = cshape.len() - MAX_DIMS;
    let inner = &cshape[k..];
    let inner_n: usize = inner.iter().product();
    let (function, def) = op_def(inputs.len(), &expr.0);
    let max = dev.limits().max_storage_buffer_binding_size & !3;
    let bindings: Vec<Binding<'_>> = inputs.iter().map(|x| x.binding).collect();
    if bindings
        .iter()
        .chain([&out.binding()])
        .any(|b| b.bytes > max)
    {
        return Err(Error::BufferTooLarge {
            requested: out.binding().bytes,
            max,
        });
    }
    let mut index = vec![0usize; k];
    for piece in 0..cshape[..k].iter().product::<usize>() {
        let subs: Vec<Operand<'_>> = inputs
            .iter()
            .zip(&cstrides)
            .map(|(x, st)| Operand {
                binding: x.binding,
                shape: inner,
                strides: &st[k..],
                offset: (x.offset as isize
                    + index
                        .iter()
                        .zip(st)
                        .map(|(&i, s)| i as isize * s)
                        .sum::<isize>()) as usize,
            })
            .collect();
        let lanes = if input.is_complex() { 2 } else { 4 };
        let mut plan = Plan::new(&subs, inner, inner_n, (expr.1, false, lanes), params)?;
        let start = piece * inner_n;
        plan.params.offs[3] = match plan.layout {
            Layout::Contig => start / plan.per as usize,
            _ => start,
        } as u32;
        let key = plan.key(inputs.len(), &def, input, O::DTYPE);
        let vec = plan.vec;
        let kernel = dev.kernel(key, || spec(input, O::DTYPE, vec, function, def.clone()))?;
        let work = if plan.strided() {
            plan.params.n / plan.per
        } else {
            plan.params.n
        };
        dev.launch(
            &kernel,
            &plan.params,
            &bindings,
            out.binding(),
            Work::Items(work),
        )?;
        // The next multi-index of the outer dimensions (the last fastest).
        for d in (0..k).rev() {
            index[d] += 1;
            if index[d] < cshape[d] {
                break;
            }
            index[d] = 0;
        }
    }
    Ok(out)
}

/// A kernel's walk for [`launch_windows`]: strided (or contiguous), elements per item, and
/// the element sizes of inputs a, b, c and of the output.
type Geometry = (bool, u32, [usize; 4]);

/// Dispatches an elementwise kernel whose `params` are set for the whole output. When an
/// operand (or the output) spans more bytes than one storage binding takes, the work is split
/// into pieces that each bind windows of the buffers (offsets rebased to the windows): runs
/// of the flat index for contiguous layouts, boxes along the outermost axes for strided ones.
fn launch_windows(
    dev: &Device,
    kernel: &Kernel,
    params: &Params,
    inputs: &[Binding<'_>],
    out: Binding<'_>,
    (strided, per, sizes): Geometry,
) -> Result<()> {
    let max = dev.limits().max_storage_buffer_binding_size & !3;
    if inputs.iter().chain([&out]).all(|b| b.bytes <= max) {
        let work = if strided { params.n / per } else { params.n };
        return dev.launch(kernel, params, inputs, out, Work::Items(work));
    }
    let ndim = params.ndim as usize;
    let shape: Vec<usize> = params.shape[..ndim].iter().map(|&s| s as usize).collect();
    let mut ostride = vec![1usize; ndim];
    for d in (0..ndim.saturating_sub(1)).rev() {
        ostride[d] = ostride[d + 1] * shape[d + 1];
    }
    let windows = Windows {
        params,
        inputs,
        out: &out,
        shape: &shape,
        ostride: &ostride,
        per: per as usize,
        sizes,
        max,
        align: dev.limits().min_storage_buffer_offset_alignment.max(4) as usize,
    };
    let pieces = if strided {
        let offs: Vec<usize> = (0..inputs.len()).map(|k| params.offs[k] as usize).collect();
        let mut pieces = Vec::new();
        windows.split(0, &offs, 0, &mut pieces).map(|()| pieces)
    } else {
        windows.runs()
    };
    let pieces = pieces.ok_or_else(|| Error::BufferTooLarge {
        requested: inputs
            .iter()
            .chain([&out])
            .map(|b| b.bytes)
            .max()
            .unwrap_or(0),
        max,
    })?;
    for (p, bound, o, work) in &pieces {
        dev.launch(kernel, p, bound, *o, Work::Items(*work))?;
    }
    Ok(())
}

/// `b` bound from element `base` to element `end` (elements of `size` bytes).
fn window<'a>(b: &Binding<'a>, base: usize, end: usize, size: usize) -> Binding<'a> {
    Binding {
        buffer: b.buffer,
        bytes: (end * size) as u64,
        window: (base * size) as u64,
    }
}

/// The split of an elementwise dispatch into pieces whose operands each fit one binding
/// window: runs of the flat index ([`Windows::runs`]) or boxes of a strided walk
/// ([`Windows::split`]).
struct Windows<'a, 'b> {
    params: &'a Params,
    inputs: &'a [Binding<'b>],
    out: &'a Binding<'b>,
    /// The merged shape of a strided walk (empty for a contiguous one).
    shape: &'a [usize],
    /// Strides of the (contiguous) output.
    ostride: &'a [usize],
    per: usize,
    sizes: [usize; 4],
    max: u64,
    /// The adapter's storage offset alignment, in bytes (at least 4).
    align: usize,
}

/// One dispatch of a split: its parameters, input windows, output window and work items.
type Piece<'b> = (Params, Vec<Binding<'b>>, Binding<'b>, u32);

impl<'b> Windows<'_, 'b> {
    /// Window starts, in elements of `size` bytes: aligned for the binding, and multiples
    /// of 4 elements so that vec4 variants keep whole vectors.
    fn quantum(&self, size: usize) -> usize {
        self.align.div_ceil(size).max(4)
    }

    /// Contiguous walks: runs of the flat index, where n and the offsets count items of
    /// `per` elements; `None` when a window would not fit.
    fn runs(&self) -> Option<Vec<Piece<'b>>> {
        let per = self.per;
        let n = self.params.n as usize * per;
        let widest = self.sizes.iter().copied().max().unwrap_or(4);
        // Chunks start at multiples of `step` elements, aligned for every element size.
        let step = self.quantum(1);
        let chunk = (self.max as usize / widest).saturating_sub(step) / step * step;
        if chunk == 0 {
            return None;
        }
        let mut pieces = Vec::new();
        let mut c0 = 0;
        while c0 < n {
            let c1 = (c0 + chunk).min(n);
            let mut p = *self.params;
            p.n = ((c1 - c0) / per) as u32;
            let mut bound = Vec::with_capacity(self.inputs.len());
            for (k, b) in self.inputs.iter().enumerate() {
                let lo = self.params.offs[k] as usize * per + c0;
                let q = self.quantum(self.sizes[k]);
                let base = lo / q * q;
                if ((lo + (c1 - c0) - base) * self.sizes[k]) as u64 > self.max {
                    return None;
                }
                p.offs[k] = ((lo - base) / per) as u32;
                bound.push(window(b, base, lo + (c1 - c0), self.sizes[k]));
            }
            let o = window(self.out, c0, c1, self.sizes[3]);
            pieces.push((p, bound, o, p.n));
            c0 = c1;
        }
        Some(pieces)
    }

    /// The piece for indices `j0..j1` of axis `d` (outer axes fixed: their contribution is in
    /// `offs` and `start`), or `None` when a window would not fit.
    fn piece(
        &self,
        d: usize,
        offs: &[usize],
        start: usize,
        j0: usize,
        j1: usize,
    ) -> Option<Piece<'b>> {
        let ndim = self.shape.len();
        let mut p = *self.params;
        let count = (j1 - j0) * self.ostride[d];
        let mut bound = Vec::with_capacity(offs.len());
        for (k, b) in self.inputs.iter().enumerate() {
            // Strides travel as two's complements; negative ones reach below the first.
            let st = |e: usize| p.strides[k][e] as i32 as isize;
            let first = (offs[k] as isize + j0 as isize * st(d)) as usize;
            let mut extents = vec![j1 - j0];
            extents.extend_from_slice(&self.shape[d + 1..]);
            let strides: Vec<isize> = (d..ndim).map(st).collect();
            let (below, above) = reach(&extents, &strides);
            let (lo, hi) = (first - below.unsigned_abs(), first + above as usize);
            let q = self.quantum(self.sizes[k]);
            let base = lo / q * q;
            if ((hi + 1 - base) * self.sizes[k]) as u64 > self.max {
                return None;
            }
            p.offs[k] = (first - base) as u32;
            bound.push(window(b, base, hi + 1, self.sizes[k]));
        }
        // The output window starts at an aligned element at or before the piece's first.
        let o0 = start + j0 * self.ostride[d];
        let q = self.quantum(self.sizes[3]);
        let base = o0 / q * q;
        if ((o0 + count - base) * self.sizes[3]) as u64 > self.max {
            return None;
        }
        p.offs[3] = (o0 - base) as u32;
        for e in 0..d {
            p.shape[e] = 1;
        }
        p.shape[d] = (j1 - j0) as u32;
        p.n = count as u32;
        let o = window(self.out, base, o0 + count, self.sizes[3]);
        Some((p, bound, o, (count / self.per) as u32))
    }

    /// Splits axis `d` (outer axes fixed) into pieces; `None` when some part cannot be bound.
    fn split(
        &self,
        d: usize,
        offs: &[usize],
        start: usize,
        out: &mut Vec<Piece<'b>>,
    ) -> Option<()> {
        let extent = self.shape[d];
        // Pieces of the innermost axis keep whole items of `per` elements.
        let q = if d + 1 == self.shape.len() {
            self.per
        } else {
            1
        };
        let mut j = 0;
        while j < extent {
            let end = |m: usize| (j + m * q).min(extent);
            if let Some(first) = self.piece(d, offs, start, j, end(1)) {
                // The most multiples of q that fit (the spans grow with the count).
                let (mut lo, mut hi) = (1usize, (extent - j).div_ceil(q));
                let mut best = first;
                while lo < hi {
                    let mid = lo + (hi - lo).div_ceil(2);
                    match self.piece(d, offs, start, j, end(mid)) {
                        Some(p) => {
                            best = p;
                            lo = mid;
                        }
                        None => hi = mid - 1,
                    }
                }
                out.push(best);
                j = end(lo);
            } else if d + 1 < self.shape.len() {
                // One index of this axis at a time, split along the next axis.
                for jj in j..end(1) {
                    let offs: Vec<usize> = offs
                        .iter()
                        .enumerate()
                        .map(|(k, &o)| {
                            let st = self.params.strides[k][d] as i32 as isize;
                            (o as isize + jj as isize * st) as usize
                        })
                        .collect();
                    self.split(d + 1, &offs, start + jj * self.ostride[d], out)?;
                }
                j = end(1);
            } else {
                return None;
            }
        }
        Some(())
    }
}
