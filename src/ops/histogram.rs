//! Histograms and bincount. Host side of shaders/histogram.wgsl.
//!
//! Each workgroup counts its chunk of the input in workgroup memory (one atomic add there per
//! element, none in global memory; up to 8 copies of the bins, each invocation adding to
//! one, where the bins are few) and writes its counts as one row of partial counts; a
//! second dispatch sums the rows per bin. Bins past the 3072 one workgroup holds are
//! counted in further passes of 3072. Counts are integers, so the result is the same
//! whatever the order of the adds.

use crate::array::Array;
use crate::device::{Device, Work};
use crate::dtype::{DType, Element, Real};
use crate::error::{Error, Result};
use crate::kernel::cache::Key;
use crate::kernel::launch::{Binding, Params};
use crate::kernel::source::Spec;

const SRC: &str = include_str!("../../shaders/histogram.wgsl");
const WG: usize = 256;
/// Counters one workgroup holds (its workgroup memory: 12 KiB of u32, beside 4 KiB of
/// edges): the bins of one pass, times their copies.
const BLOCK: usize = 3072;
/// Most copies of the bins in one workgroup.
const COPIES: usize = 8;
/// Workgroups of the counting pass, at most (each then takes a chunk of the input).
const GROUPS: usize = 1024;

/// Parameters of one dispatch; shaders/histogram.wgsl reads them through `n()`, `bins()`,
/// `chunk()`, `bin_base()`, `bin_count()` and `groups()`.
#[derive(Debug, Clone, Copy)]
struct HistParams {
    n: usize,
    bins: usize,
    chunk: usize,
    bin_base: usize,
    bin_count: usize,
    groups: usize,
    copies: usize,
}

impl HistParams {
    fn encode(&self) -> Params {
        let mut p = Params::new(self.n as u32);
        p.aux = [self.bins as u32, self.chunk as u32];
        p.shape[0] = self.bin_base as u32;
        p.shape[1] = self.bin_count as u32;
        p.shape[2] = self.groups as u32;
        p.shape[3] = self.copies as u32;
        p
    }
}

/// How elements find their bin: among the edges, or by their own (integer) value.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Kind {
    Edges,
    /// Edges of equal bins (up to rounding): the bin guessed from the value, then checked.
    Uniform,
    Value,
}

fn spec(d: DType, kind: Kind) -> Spec {
    // In bounds by construction: bins of a pass times their copies within BLOCK (the host's
    // plan), edges read below bins() + 1 (cached below EDGE_CACHE), a bin outside the pass
    // (NONE, a value past the bins) rejected before its count; the walks and the binary
    // search end. Unchecked, like the radix sort's passes.
    let s = Spec::new("histogram", SRC).alias("E", d.wgsl()).unchecked();
    match kind {
        Kind::Edges => s,
        Kind::Uniform => s.function("bin_of", "fn bin_of(x: E) -> u32 { return by_uniform(x); }"),
        Kind::Value => s
            .function("bin_of", "fn bin_of(x: E) -> u32 { return u32(x); }")
            .function("load_edges", "fn load_edges(lid: u32) {}"),
    }
}

/// Every variant, for the shader validation test.
#[cfg(test)]
pub(crate) fn all_specs() -> Vec<Spec> {
    let mut v: Vec<Spec> = [DType::F16, DType::F32, DType::F64, DType::I32, DType::U32]
        .iter()
        .flat_map(|&d| [spec(d, Kind::Edges), spec(d, Kind::Uniform)])
        .collect();
    for d in [DType::I32, DType::U32, DType::I64, DType::U64] {
        v.push(spec(d, Kind::Value));
    }
    v
}

fn key(entry: &'static str, d: DType, kind: Kind, inputs: usize) -> Key {
    Key {
        family: "histogram",
        entry,
        variant: format!("{d:?}|{kind:?}"),
        inputs,
        wg: WG as u32,
        ndim: 0,
        per: 0,
    }
}

/// Counts of the contiguous `x` in `bins` bins (by `kind`; `edges` for [`Kind::Edges`]).
fn count<T: Element>(
    x: &Array<T>,
    bins: usize,
    kind: Kind,
    edges: Option<&Array<T>>,
) -> Result<Array<u32>> {
    let dev = &x.dev;
    let out = dev.zeros::<u32>([bins])?;
    let n = x.len();
    if n == 0 || bins == 0 {
        return Ok(out);
    }
    let groups = n.div_ceil(WG * 4).clamp(1, GROUPS);
    let chunk = n.div_ceil(groups);
    let mut inputs = vec![x.binding()];
    inputs.extend(edges.map(|e| e.binding()));
    let counter = dev.kernel(key("count", T::DTYPE, kind, inputs.len()), || {
        spec(T::DTYPE, kind)
    })?;
    let merger = dev.kernel(key("merge", DType::U32, Kind::Edges, 1), || {
        spec(DType::U32, Kind::Edges)
    })?;
    let block = bins.min(BLOCK);
    // Copies where each workgroup has many elements (a power of two, all in BLOCK).
    let copies = if chunk >= 1024 {
        1 << (BLOCK / block).clamp(1, COPIES).ilog2()
    } else {
        1
    };
    let partial_bytes = (groups * block * 4) as u64;
    let partials = dev.alloc_apart(partial_bytes, &[&x.buf, &out.buf])?;
    let whole = Binding {
        buffer: &partials,
        bytes: partial_bytes,
        window: 0,
    };
    for base in (0..bins).step_by(block) {
        let p = HistParams {
            n,
            bins,
            chunk,
            bin_base: base,
            bin_count: block.min(bins - base),
            groups,
            copies,
        };
        let grid = Work::Items((groups * WG) as u32);
        dev.launch(&counter, &p.encode(), &inputs, whole, grid)?;
        let m = HistParams {
            n: p.bin_count,
            ..p
        };
        let work = Work::Items(p.bin_count as u32);
        dev.launch(&merger, &m.encode(), &[whole], out.binding(), work)?;
    }
    Ok(out)
}

/// NumPy's `linspace(lo, hi, bins + 1)` in f64, rounded to T: the uniform bins' edges.
fn linspace_edges<T: Real>(dev: &Device, lo: f64, hi: f64, bins: usize) -> Result<Array<T>> {
    let step = (hi - lo) / bins as f64;
    let mut e: Vec<T> = (0..=bins)
        .map(|k| T::from_f64(k as f64 * step + lo))
        .collect();
    e[bins] = T::from_f64(hi);
    dev.from_slice(&e, [bins + 1])
}

fn invalid(op: &'static str, reason: &'static str) -> Error {
    Error::InvalidArgument { op, reason }
}

impl<T: Real> Array<T> {
    /// NumPy's `histogram(x, bins, range)`: counts of the elements (flattened) in `bins`
    /// equal bins over `range` (`None`: the elements' minimum and maximum), and the
    /// `bins + 1` edges (NumPy's `linspace(lo, hi, bins + 1)` rounded to `T`; for integer
    /// `T` rounded toward zero, where NumPy would keep float edges). Bins are
    /// half-open `[e_k, e_k+1)` but the last, which is closed; elements outside the range and
    /// NaN are not counted. A range with `lo == hi` becomes `[lo - 0.5, hi + 0.5]`.
    ///
    /// # Errors
    /// [`Error::InvalidArgument`] for `bins == 0`, `lo > hi`, a range that is not finite
    /// (given, or found in the data, which then holds NaN or infinities);
    /// [`Error::Unsupported`] when the adapter lacks `T`.
    ///
    /// ```
    /// # let dev = gpuarray::Device::new()?;
    /// let x = dev.from_slice(&[0.0f32, 0.5, 1.0, 1.5, 2.0, 9.0], [6])?;
    /// let (counts, edges) = x.histogram(2, Some((0.0, 2.0)))?;
    /// assert_eq!(counts.to_vec()?, vec![2, 3]);
    /// assert_eq!(edges.to_vec()?, vec![0.0, 1.0, 2.0]);
    /// assert!(x.histogram(0, None).is_err());
    /// # Ok::<(), gpuarray::Error>(())
    /// ```
    pub fn histogram(
        &self,
        bins: usize,
        range: Option<(f64, f64)>,
    ) -> Result<(Array<u32>, Array<T>)> {
        let op = "histogram";
        self.dev.require_32(op, T::DTYPE)?;
        if bins == 0 {
            return Err(invalid(op, "bins must be at least 1"));
        }
        let (mut lo, mut hi) = match range {
            Some(r) => r,
            None if self.is_empty() => (0.0, 1.0),
            None => (
                self.min()?.to_scalar()?.to_f64(),
                self.max()?.to_scalar()?.to_f64(),
            ),
        };
        if !lo.is_finite() || !hi.is_finite() {
            return Err(invalid(op, "the range must be finite"));
        }
        if lo > hi {
            return Err(invalid(op, "the range's low end exceeds its high end"));
        }
        if lo == hi {
            lo -= 0.5;
            hi += 0.5;
        }
        let edges = linspace_edges::<T>(&self.dev, lo, hi, bins)?;
        let x = self.contiguous()?;
        let counts = count(&x, bins, Kind::Uniform, Some(&edges))?;
        Ok((counts, edges))
    }

    /// NumPy's `histogram(x, bins=edges)`: counts of the elements (flattened) between the
    /// given ascending edges, bins half-open but the last, which is closed; elements outside
    /// and NaN are not counted. Found by binary search among the edges.
    ///
    /// # Errors
    /// [`Error::InvalidArgument`] for fewer than 2 edges, or edges not ascending (or NaN);
    /// [`Error::DeviceMismatch`]; [`Error::Unsupported`] when the adapter lacks `T`.
    ///
    /// ```
    /// # let dev = gpuarray::Device::new()?;
    /// let x = dev.from_slice(&[1i32, 2, 2, 5, 7, 10], [6])?;
    /// let edges = dev.from_slice(&[0i32, 2, 6, 10], [4])?;
    /// assert_eq!(x.histogram_edges(&edges)?.to_vec()?, vec![1, 3, 2]);
    /// # Ok::<(), gpuarray::Error>(())
    /// ```
    pub fn histogram_edges(&self, edges: &Array<T>) -> Result<Array<u32>> {
        let op = "histogram_edges";
        self.dev.expect_same(op, &[&edges.dev])?;
        self.dev.require_32(op, T::DTYPE)?;
        let e = edges.to_vec()?;
        if edges.ndim() != 1 || e.len() < 2 {
            return Err(invalid(op, "the edges must be a 1-D array of at least 2"));
        }
        let ascending = |w: &[T]| {
            w[0].to_f64()
                .partial_cmp(&w[1].to_f64())
                .is_some_and(|o| o.is_le())
        };
        if !e.windows(2).all(ascending) {
            return Err(invalid(op, "the edges must be ascending"));
        }
        let edges = edges.contiguous()?;
        let x = self.contiguous()?;
        count(&x, e.len() - 1, Kind::Edges, Some(&edges))
    }

    /// NumPy's `bincount(x, minlength)`: the number of times each value 0, 1, ... occurs
    /// among the (flattened) non-negative integers of `x` (i32, u32, and i64, u64 where the
    /// adapter has SHADER_INT64); `max(x) + 1` bins, or `minlength` if more.
    ///
    /// # Errors
    /// [`Error::InvalidArgument`] for a float dtype, or a negative element;
    /// [`Error::Unsupported`] when the adapter lacks `T`.
    ///
    /// ```
    /// # let dev = gpuarray::Device::new()?;
    /// let x = dev.from_slice(&[1u32, 3, 1, 0], [4])?;
    /// assert_eq!(x.bincount(0)?.to_vec()?, vec![1, 2, 0, 1]);
    /// assert_eq!(x.bincount(6)?.to_vec()?, vec![1, 2, 0, 1, 0, 0]);
    /// # Ok::<(), gpuarray::Error>(())
    /// ```
    pub fn bincount(&self, minlength: usize) -> Result<Array<u32>> {
        let op = "bincount";
        self.dev.require(op, T::DTYPE)?;
        if T::DTYPE.is_float() {
            return Err(invalid(op, "bincount counts integers"));
        }
        let bins = if self.is_empty() {
            minlength
        } else {
            // Unsigned values are never negative: one reduction (the maximum) suffices.
            let unsigned = matches!(T::DTYPE, DType::U32 | DType::U64);
            if !unsigned && self.min()?.to_scalar()?.to_f64() < 0.0 {
                return Err(invalid(op, "bincount needs non-negative integers"));
            }
            minlength.max(self.max()?.to_scalar()?.to_f64() as usize + 1)
        };
        let x = self.contiguous()?;
        count(&x, bins, Kind::Value, None)
    }
}
