//! Plans: how a transform of length n runs (one in-workgroup pass; four-step passes for
//! lengths past workgroup memory; Bluestein's convolution for lengths with a prime factor
//! above 13), with their twiddle tables computed in f64 and uploaded once; and the
//! execution of a plan over a batch addressed through strides.

use std::any::Any;
use std::collections::HashMap;
use std::f64::consts::PI;
use std::marker::PhantomData;
use std::sync::{Arc, Mutex};

use super::bluestein::Bluestein;
use super::kernel::{radices, Dim, FftParams, Io, Launch, Mode, MAX_BATCH_DIMS, PER_INVOCATION};
use crate::array::Array;
use crate::device::Device;
use crate::dtype::{ComplexFloat, DType, Element, Real};
use crate::error::Result;
use crate::gpu::lock;
use crate::kernel::launch::Binding;
use crate::memory::pool::BufferHandle;

/// The four-step twiddles W_N^m of a column pass: m = hi * 2^shift + lo, the coarse table
/// (W_N^(hi 2^shift)) at `coarse` and the fine one (W_N^lo) at `fine` in the pass's table.
#[derive(Debug, Clone, Copy)]
struct Step {
    n: usize,
    coarse: usize,
    fine: usize,
    shift: u32,
}

/// A table of a plan on the device: its buffer without the device. Plans live in the
/// device's state (`PlanCache`): an `Array` there would hold the device, which would then
/// never drop (its pipeline cache never saved, its memory never released).
pub(super) struct Table<C: ComplexFloat> {
    buf: Arc<BufferHandle>,
    len: usize,
    _c: PhantomData<C>,
}

impl<C: ComplexFloat> Table<C> {
    /// The buffer of `a` (contiguous from its start).
    pub fn new(a: &Array<C>) -> Table<C> {
        debug_assert!(a.offset == 0);
        Table {
            buf: a.buf.clone(),
            len: a.len(),
            _c: PhantomData,
        }
    }

    pub fn binding(&self) -> Binding<'_> {
        Binding {
            buffer: &self.buf,
            bytes: (self.len * C::DTYPE.size()) as u64,
            window: 0,
        }
    }
}

/// One in-workgroup pass of length `l`, `m` transforms per workgroup.
pub(super) struct Direct<C: ComplexFloat> {
    pub l: usize,
    /// Transforms per workgroup where the first and last passes read and write rows.
    pub m: usize,
    /// Transforms per workgroup where they read or write strided columns (neighbouring
    /// invocations on neighbouring transforms: runs of `m_col` elements in memory).
    pub m_col: usize,
    pub tw: Table<C>,
    step: Option<Step>,
}

impl<C: ComplexFloat> Direct<C> {
    /// Whether the pass multiplies its outputs by four-step twiddles.
    pub fn has_step(&self) -> bool {
        self.step.is_some()
    }

    /// Transforms per workgroup: `m_col` where the rows are strided (`col`), else `m`.
    pub fn m_for(&self, col: bool) -> usize {
        if col {
            self.m_col
        } else {
            self.m
        }
    }
}

/// How a transform of one length runs.
pub(super) enum Node<C: ComplexFloat> {
    /// One pass in workgroup memory.
    Direct(Direct<C>),
    /// n = n1 * n2: transforms of length n1 down the columns (with twiddles), then of
    /// length n2 along the rows, written transposed.
    FourStep {
        n: usize,
        n1: usize,
        n2: usize,
        a: Direct<C>,
        b: Box<Node<C>>,
    },
    /// Bluestein: the chirp convolution of length `padded` (src/fft/bluestein.rs).
    Bluestein(Bluestein<C>),
}

pub(super) fn cplx<C: ComplexFloat>(angle: f64) -> C {
    let (s, c) = angle.sin_cos();
    C::new(C::Real::from_f64(c), C::Real::from_f64(s))
}

/// W_n^j = exp(-2 pi i j / n) for j mod n, computed in f64 from the reduced fraction.
pub(super) fn root<C: ComplexFloat>(j: usize, n: usize) -> C {
    let j = j % n;
    // Reduce to |angle| <= pi for accuracy.
    let a = if 2 * j <= n {
        -2.0 * PI * j as f64 / n as f64
    } else {
        2.0 * PI * (n - j) as f64 / n as f64
    };
    cplx(a)
}

/// Elements of the rows one workgroup transforms (where they are short).
const ROW_ELEMS: usize = 1024;
/// Transforms one workgroup takes where they are columns (where they fit).
const COL_TRANSFORMS: usize = 16;
/// Longest column of a four-step plan (longer ones split again). On the H200 (2026-11-29)
/// 1,024 against 256: 2^20 0.036 against 0.044 ms, the other shapes alike.
const COL_LEN: usize = 1024;

/// Elements of `C` one workgroup holds.
pub(super) fn capacity(dev: &Device, d: DType) -> usize {
    let bytes = dev.limits().max_compute_workgroup_storage_size as usize;
    (bytes / d.size()).min(8192)
}

pub(super) fn direct<C: ComplexFloat>(
    dev: &Device,
    l: usize,
    cap: usize,
    step: Option<usize>,
) -> Result<Direct<C>> {
    // Transforms per workgroup: rows of ELEMS elements in all (1,024) where they share
    // one, columns COLM (16: runs of 128 bytes of complex64) where the length allows; the
    // rows padded by one where several; at most [`PER_INVOCATION`] elements per
    // invocation of the device's largest workgroup.
    let k = super::tune::knobs();
    let max_inv = dev.limits().max_compute_invocations_per_workgroup as usize;
    let most = (cap / (l + 1)).min(PER_INVOCATION * max_inv.clamp(64, 1024) / l);
    let fit = |want: usize| if want > 1 { want.min(most).max(1) } else { 1 };
    let (m, m_col) = match k.m {
        Some(f) => (fit(f), fit(f)),
        None => {
            let m = fit(k.elems.unwrap_or(ROW_ELEMS) / l);
            (m, fit(k.colm.unwrap_or(COL_TRANSFORMS)).max(m))
        }
    };
    let mut t: Vec<C> = (0..l).map(|j| root(j, l)).collect();
    // Each pass's own twiddles (src/fft/passes.rs `table_offsets`).
    let mut ns = 1;
    for r in radices(l).unwrap_or_default() {
        if ns > 1 {
            let stride = l / (ns * r);
            for i in 1..r {
                t.extend((0..ns).map(|k| root::<C>(i * k * stride, l)));
            }
        }
        ns *= r;
    }
    let step = step.map(|n| {
        let shift = (usize::BITS - (n - 1).leading_zeros()).div_ceil(2);
        let coarse = t.len();
        t.extend((0..=((n - 1) >> shift)).map(|hi| root::<C>(hi << shift, n)));
        let fine = t.len();
        t.extend((0..1usize << shift).map(|lo| root::<C>(lo, n)));
        Step {
            n,
            coarse,
            fine,
            shift,
        }
    });
    let len = t.len();
    Ok(Direct {
        l,
        m,
        m_col,
        tw: Table::new(&dev.from_slice(&t, [len])?),
        step,
    })
}

/// The plan of a transform of length `n >= 1` of `C`.
pub(super) fn plan<C: ComplexFloat>(dev: &Device, n: usize) -> Result<Node<C>> {
    plan_in(dev, n, true)
}

/// `plan`; `top`: not the rows of a four-step split (those split again past
/// `GPUARRAY_FFT_ROWCAP`, so that their transposed writes cover longer runs).
fn plan_in<C: ComplexFloat>(dev: &Device, n: usize, top: bool) -> Result<Node<C>> {
    let cap = capacity(dev, C::DTYPE);
    if radices(n).is_none() {
        return Ok(Node::Bluestein(Bluestein::new(dev, n)?));
    }
    if let Some(f) = top
        .then(|| super::runs::factors(dev, n, C::DTYPE, cap))
        .flatten()
    {
        return chain(dev, n, &f, cap);
    }
    let row_cap = super::tune::knobs().rowcap.unwrap_or(cap).min(cap);
    if n <= cap && (top || n <= row_cap) {
        return Ok(Node::Direct(direct(dev, n, cap, None)?));
    }
    // Columns of at most COL_LEN (1,024) and cap / 4 (so that COL_TRANSFORMS of them share a
    // workgroup and the column reads and the transposed writes cover runs of 128 bytes):
    // rows of at most cap / 4 where a split allows, else rows that fit, else (three or
    // more passes) the longest such columns and the rows split again.
    let col_cap = cap / 4;
    let longest = super::tune::knobs().colcap.unwrap_or(COL_LEN).min(col_cap);
    let divisors: Vec<usize> = (2..=longest).filter(|&d| n.is_multiple_of(d)).collect();
    let n1 = divisors
        .iter()
        .copied()
        .find(|&d| n / d <= col_cap.min(row_cap))
        .or_else(|| divisors.iter().copied().find(|&d| n / d <= row_cap))
        .or_else(|| divisors.last().copied())
        .unwrap_or(n);
    let n2 = n / n1;
    Ok(Node::FourStep {
        n,
        n1,
        n2,
        a: direct(dev, n1, cap, Some(n))?,
        b: Box::new(plan_in(dev, n2, false)?),
    })
}

/// The four-step passes of `n` = the product of `f` (src/fft/runs.rs): columns of f[0],
/// then the rows of the rest split the same way; each pass's column groups at most
/// [`super::runs::group`] transforms (runs of 32 bytes unless `GPUARRAY_FFT_RUNM`), a
/// power of two.
fn chain<C: ComplexFloat>(dev: &Device, n: usize, f: &[usize], cap: usize) -> Result<Node<C>> {
    let aligned = |mut d: Direct<C>| {
        d.m_col = 1 << d.m_col.min(super::runs::group(C::DTYPE)).max(1).ilog2();
        d
    };
    match f {
        [] | [_] => Ok(Node::Direct(aligned(direct(dev, n, cap, None)?))),
        [n1, rest @ ..] => Ok(Node::FourStep {
            n,
            n1: *n1,
            n2: n / n1,
            a: aligned(direct(dev, *n1, cap, Some(n))?),
            b: Box::new(chain(dev, n / n1, rest, cap)?),
        }),
    }
}

/// A transform over a batch: where it reads and writes, and how.
#[derive(Clone)]
pub(super) struct Job<'a> {
    pub src: Binding<'a>,
    pub dst: Binding<'a>,
    pub io: Io,
    /// Batch dimensions, offsets, strides, lengths, direction and scale (`row_len` and the
    /// twiddle fields are the plan's).
    pub p: FftParams,
}

impl<'a> Job<'a> {
    /// `batches` contiguous rows of `n` complex elements into contiguous rows.
    pub(super) fn rows(
        src: Binding<'a>,
        dst: Binding<'a>,
        batches: usize,
        n: usize,
        inverse: bool,
        scale: f64,
    ) -> Job<'a> {
        Job {
            src,
            dst,
            io: Io {
                real_in: false,
                real_out: false,
            },
            p: FftParams {
                dims: vec![Dim {
                    extent: batches,
                    s_in: n as isize,
                    s_out: n as isize,
                    tw: 0,
                }],
                s_in: 1,
                s_out: 1,
                inverse,
                n_in: n,
                n_out: n,
                scale,
                ..FftParams::default()
            },
        }
    }
}

/// Contiguous strides (elements) of batch dimensions `dims` over rows of `row`.
pub(super) fn contiguous(dims: &[Dim], row: usize) -> Vec<isize> {
    let mut s = vec![0isize; dims.len()];
    let mut acc = row as isize;
    for (k, d) in dims.iter().enumerate().rev() {
        s[k] = acc;
        acc *= d.extent as isize;
    }
    s
}

/// Drops extent-1 dimensions and merges neighbours that step through memory as one.
pub(super) fn merge(dims: &[Dim]) -> Vec<Dim> {
    let mut out: Vec<Dim> = Vec::new();
    for d in dims.iter().filter(|d| d.extent != 1) {
        if let Some(last) = out.last_mut() {
            let e = d.extent as isize;
            if last.s_in == d.s_in * e && last.s_out == d.s_out * e && last.tw == d.tw * d.extent {
                last.extent *= d.extent;
                last.s_in = d.s_in;
                last.s_out = d.s_out;
                last.tw = d.tw;
                continue;
            }
        }
        out.push(*d);
    }
    out
}

pub(super) fn temp<C: ComplexFloat>(dev: &Device, len: usize) -> Result<Array<C>> {
    Array::<C>::alloc_any(dev, "fft", vec![len.max(1)], |b| dev.alloc(b))
}

fn component<C: ComplexFloat>() -> DType {
    <C::Real as Element>::DTYPE
}

/// Runs `node` over `job` (its batch of at most [`MAX_BATCH_DIMS`] dimensions).
pub(super) fn exec<C: ComplexFloat>(node: &Node<C>, dev: &Device, job: &Job<'_>) -> Result<()> {
    let d = component::<C>();
    let batches = job.p.batches();
    if batches == 0 {
        return Ok(());
    }
    match node {
        Node::Direct(dr) => {
            if super::columns::try_columns(dr, dev, job)? {
                return Ok(());
            }
            run_direct(dr, dev, job, d)
        }
        Node::FourStep { n, n1, n2, a, b } => {
            let (n, n1, n2) = (*n, *n1, *n2);
            let plain_in = job.p.n_in == n && job.p.herm == 0 && job.p.dims.len() < MAX_BATCH_DIMS;
            if !plain_in {
                // Gather into contiguous complex rows first.
                let t = temp::<C>(dev, batches * n)?;
                let mut p = job.p.clone();
                p.row_len = n;
                p.scale = 1.0;
                let gather = Launch {
                    entry: "gather",
                    d,
                    io: Io {
                        real_in: job.io.real_in,
                        real_out: false,
                    },
                    l: 0,
                    m: 0,
                    col: [false; 2],
                    mode: Mode::Plain,
                };
                gather.run(dev, &p, &[job.src], t.binding(), batches * n)?;
                let rows = contiguous(&job.p.dims, n);
                let mut inner = job.clone();
                inner.src = t.binding();
                inner.io.real_in = false;
                for (dim, s) in inner.p.dims.iter_mut().zip(rows) {
                    dim.s_in = s;
                }
                inner.p.dims = merge(&inner.p.dims);
                inner.p.off_in = 0;
                inner.p.s_in = 1;
                inner.p.n_in = n;
                inner.p.herm = 0;
                return exec(node, dev, &inner);
            }
            if job.p.n_out != n {
                // Transform into contiguous rows, then crop.
                let t = temp::<C>(dev, batches * n)?;
                let mut inner = job.clone();
                inner.dst = t.binding();
                inner.io.real_out = false;
                let rows = contiguous(&job.p.dims, n);
                for (dim, s) in inner.p.dims.iter_mut().zip(rows) {
                    dim.s_out = s;
                }
                inner.p.off_out = 0;
                inner.p.s_out = 1;
                inner.p.n_out = n;
                inner.p.scale = 1.0;
                exec(node, dev, &inner)?;
                let mut p = job.p.clone();
                p.row_len = n;
                p.herm = 0;
                let crop = Launch {
                    entry: "crop",
                    d,
                    io: Io {
                        real_in: false,
                        real_out: job.io.real_out,
                    },
                    l: 0,
                    m: 0,
                    col: [false; 2],
                    mode: Mode::Plain,
                };
                return crop.run(dev, &p, &[t.binding()], job.dst, batches * job.p.n_out);
            }
            // Pass A: columns j2 of length n1 (stride n2), twiddled, into t[b][k1][j2].
            let t = temp::<C>(dev, batches * n)?;
            let rows = contiguous(&job.p.dims, n);
            let mut pa = job.p.clone();
            for (dim, s) in pa.dims.iter_mut().zip(&rows) {
                dim.s_out = *s;
            }
            pa.dims.push(Dim {
                extent: n2,
                s_in: job.p.s_in,
                s_out: 1,
                tw: 1,
            });
            pa.dims = merge(&pa.dims);
            pa.s_in = job.p.s_in * n2 as isize;
            pa.s_out = n2 as isize;
            pa.off_out = 0;
            pa.n_in = n1;
            pa.n_out = n1;
            pa.scale = 1.0;
            let ja = Job {
                src: job.src,
                dst: t.binding(),
                io: Io {
                    real_in: job.io.real_in,
                    real_out: false,
                },
                p: pa,
            };
            run_direct(a, dev, &ja, d)?;
            // Pass B: rows (b, k1) of length n2, element k2 to k1 + n1 k2.
            let mut pb = job.p.clone();
            for (dim, s) in pb.dims.iter_mut().zip(&rows) {
                dim.s_in = *s;
            }
            pb.dims.push(Dim {
                extent: n1,
                s_in: n2 as isize,
                s_out: job.p.s_out,
                tw: 0,
            });
            super::runs::order_out(&mut pb.dims);
            pb.dims = merge(&pb.dims);
            pb.off_in = 0;
            pb.s_in = 1;
            pb.s_out = job.p.s_out * n1 as isize;
            pb.n_in = n2;
            pb.n_out = n2;
            let jb = Job {
                src: t.binding(),
                dst: job.dst,
                io: Io {
                    real_in: false,
                    real_out: job.io.real_out,
                },
                p: pb,
            };
            exec(b, dev, &jb)
        }
        Node::Bluestein(bl) => super::bluestein::exec_bluestein(bl, dev, job, d),
    }
}

pub(super) fn run_direct<C: ComplexFloat>(
    dr: &Direct<C>,
    dev: &Device,
    job: &Job<'_>,
    d: DType,
) -> Result<()> {
    let mut p = job.p.clone();
    p.row_len = dr.l;
    if let Some(s) = dr.step {
        p.tw_n = s.n;
        p.tw_coarse = s.coarse;
        p.tw_fine = s.fine;
        p.tw_shift = s.shift;
    } else {
        p.tw_n = 0;
    }
    let m = dr.m_for(job.p.s_in != 1 || job.p.s_out != 1);
    let launch = Launch {
        entry: "main",
        d,
        io: job.io,
        l: dr.l,
        m,
        col: [job.p.s_in != 1 && m > 1, job.p.s_out != 1 && m > 1],
        mode: Mode::Plain,
    };
    launch.run(dev, &p, &[job.src, dr.tw.binding()], job.dst, 0)
}

/// Plans kept per device, by (length, dtype).
#[derive(Default)]
pub(super) struct PlanCache {
    map: Mutex<HashMap<(usize, DType), Arc<dyn Any + Send + Sync>>>,
}

/// Plans kept before the cache starts over.
const CACHED_PLANS: usize = 64;

/// The device's plan for length `n` of `C`, made on first use.
pub(super) fn cached<C: ComplexFloat>(dev: &Device, n: usize) -> Result<Arc<Node<C>>> {
    let cache = dev.state::<PlanCache>();
    let key = (n, C::DTYPE);
    let found = lock(&cache.map).get(&key).cloned();
    if let Some(Ok(p)) = found.map(|p| p.downcast::<Node<C>>()) {
        return Ok(p);
    }
    let p = Arc::new(plan::<C>(dev, n)?);
    let mut map = lock(&cache.map);
    if map.len() >= CACHED_PLANS {
        map.clear();
    }
    map.insert(key, p.clone());
    Ok(p)
}

/// `a * b` elementwise, for contiguous complex arrays of one length.
pub(super) fn multiply<C: ComplexFloat>(a: &Array<C>, b: &Array<C>) -> Result<Array<C>> {
    let dev = &a.dev;
    let len = a.len();
    let out = Array::<C>::alloc_any(dev, "fftconvolve", a.shape.clone(), |x| {
        dev.alloc_apart(x, &[&a.buf, &b.buf])
    })?;
    if len == 0 {
        return Ok(out);
    }
    let p = FftParams {
        dims: vec![Dim {
            extent: 1,
            s_in: 0,
            s_out: 0,
            tw: 0,
        }],
        tw_n: len,
        scale: 1.0,
        ..FftParams::default()
    };
    let launch = Launch {
        entry: "pointwise",
        d: component::<C>(),
        io: Io {
            real_in: false,
            real_out: false,
        },
        l: 0,
        m: 0,
        col: [false; 2],
        mode: Mode::Plain,
    };
    launch.run(dev, &p, &[a.binding(), b.binding()], out.binding(), len)?;
    Ok(out)
}
