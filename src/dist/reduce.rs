//! Reductions across ranks: `reduce`, `allreduce`, `reduce_scatter`. Each element is
//! combined by one rank (the owner of its segment), on the host, in rank order and the
//! dtype's own arithmetic, then sent where it is wanted.

use bytemuck::Pod;
use num_complex::Complex;

use crate::array::Array;
use crate::dtype::{f16, DType, Element};
use crate::error::Result;

use super::agree::same_shapes;
use super::stage::{download_chunks, from_bytes, host_bytes, Uploader};
use super::wire::{exchange, Link};
use super::{split_extents, Comm};

/// Tags of the two phases on the collectives' communicator.
const TAG_SCATTER: i32 = 2;
const TAG_GATHER: i32 = 3;

/// How [`Comm::reduce`], [`Comm::allreduce`] and [`Comm::reduce_scatter`] combine the
/// ranks' elements: elementwise, in rank order, `((x0 op x1) op x2) ...`, in the dtype's
/// arithmetic (integers wrap around as NumPy's; f16 rounds each step to f16).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum ReduceOp {
    /// The sum (numbers; not bool).
    Sum,
    /// The product (numbers; not bool).
    Prod,
    /// The smallest (NaN if either is NaN, as NumPy's `minimum`; bool: and; not complex).
    Min,
    /// The largest (NaN if either is NaN, as NumPy's `maximum`; bool: or; not complex).
    Max,
}

impl ReduceOp {
    fn code(self) -> u64 {
        self as u64
    }

    /// Whether the operator is defined for `d`.
    pub(crate) fn takes(self, d: DType) -> bool {
        match d {
            DType::Bool => matches!(self, ReduceOp::Min | ReduceOp::Max),
            DType::Complex64 | DType::Complex128 => matches!(self, ReduceOp::Sum | ReduceOp::Prod),
            _ => true,
        }
    }
}

/// The parts combined in order into a copy of the first. Parts aligned for `T` (host
/// buffers from the allocator, at element offsets) are read in place; others are copied.
fn fold_typed<T: Pod>(parts: &[&[u8]], f: impl Fn(T, T) -> T) -> Vec<u8> {
    let mut out = parts[0].to_vec();
    let aligned = bytemuck::try_cast_slice_mut::<u8, T>(&mut out).is_ok();
    let mut copy: Vec<T> = Vec::new();
    let acc: &mut [T] = if aligned {
        bytemuck::cast_slice_mut(&mut out)
    } else {
        copy = bytemuck::pod_collect_to_vec(parts[0]);
        &mut copy
    };
    for p in &parts[1..] {
        let owned: Vec<T>;
        let b: &[T] = match bytemuck::try_cast_slice(p) {
            Ok(b) => b,
            Err(_) => {
                owned = bytemuck::pod_collect_to_vec(p);
                &owned
            }
        };
        for (a, b) in acc.iter_mut().zip(b) {
            *a = f(*a, *b);
        }
    }
    if aligned {
        out
    } else {
        bytemuck::cast_slice(&copy).to_vec()
    }
}

macro_rules! fold_float {
    ($t:ty, $parts:expr, $op:expr) => {
        match $op {
            ReduceOp::Sum => fold_typed::<$t>($parts, |a, b| a + b),
            ReduceOp::Prod => fold_typed::<$t>($parts, |a, b| a * b),
            ReduceOp::Min => {
                fold_typed::<$t>($parts, |a, b| if a.is_nan() || b >= a { a } else { b })
            }
            ReduceOp::Max => {
                fold_typed::<$t>($parts, |a, b| if a.is_nan() || b <= a { a } else { b })
            }
        }
    };
}

macro_rules! fold_int {
    ($t:ty, $parts:expr, $op:expr) => {
        match $op {
            ReduceOp::Sum => fold_typed::<$t>($parts, |a, b| a.wrapping_add(b)),
            ReduceOp::Prod => fold_typed::<$t>($parts, |a, b| a.wrapping_mul(b)),
            ReduceOp::Min => fold_typed::<$t>($parts, |a, b| a.min(b)),
            ReduceOp::Max => fold_typed::<$t>($parts, |a, b| a.max(b)),
        }
    };
}

macro_rules! fold_complex {
    ($t:ty, $parts:expr, $op:expr) => {
        match $op {
            ReduceOp::Prod => fold_typed::<Complex<$t>>($parts, |a, b| a * b),
            _ => fold_typed::<Complex<$t>>($parts, |a, b| a + b),
        }
    };
}

/// The parts (the bytes of equal numbers of `d` elements) combined in order. `op` takes
/// `d` ([`ReduceOp::takes`]).
pub(crate) fn fold(d: DType, op: ReduceOp, parts: &[&[u8]]) -> Vec<u8> {
    match d {
        DType::F16 => {
            let f = |g: fn(f32, f32) -> f32| {
                move |a: u16, b: u16| -> u16 {
                    let (x, y) = (f16::from_bits(a), f16::from_bits(b));
                    f16::from_f32(g(x.to_f32(), y.to_f32())).to_bits()
                }
            };
            match op {
                ReduceOp::Sum => fold_typed::<u16>(parts, f(|a, b| a + b)),
                ReduceOp::Prod => fold_typed::<u16>(parts, f(|a, b| a * b)),
                ReduceOp::Min => fold_typed::<u16>(parts, |a, b| {
                    let (x, y) = (f16::from_bits(a), f16::from_bits(b));
                    if x.is_nan() || y >= x {
                        a
                    } else {
                        b
                    }
                }),
                ReduceOp::Max => fold_typed::<u16>(parts, |a, b| {
                    let (x, y) = (f16::from_bits(a), f16::from_bits(b));
                    if x.is_nan() || y <= x {
                        a
                    } else {
                        b
                    }
                }),
            }
        }
        DType::F32 => fold_float!(f32, parts, op),
        DType::F64 => fold_float!(f64, parts, op),
        DType::I32 => fold_int!(i32, parts, op),
        DType::U32 | DType::Bool => fold_int!(u32, parts, op),
        DType::I64 => fold_int!(i64, parts, op),
        DType::U64 => fold_int!(u64, parts, op),
        DType::U8 => fold_int!(u8, parts, op),
        DType::I8 => fold_int!(i8, parts, op),
        DType::U16 => fold_int!(u16, parts, op),
        DType::I16 => fold_int!(i16, parts, op),
        DType::Complex64 => fold_complex!(f32, parts, op),
        DType::Complex128 => fold_complex!(f64, parts, op),
        #[allow(unreachable_patterns)]
        _ => parts[0].to_vec(),
    }
}

/// Phase one of a reduction of `bytes` (a whole number of `size`-byte elements) split in
/// `segs` (element extents per rank): rank r receives every rank's segment r and combines
/// them. Returns this rank's combined segment.
fn scatter_phase(
    comm: &Comm,
    link: &Link,
    bytes: &[u8],
    segs: &[usize],
    size: usize,
    d: DType,
    op: ReduceOp,
) -> Result<Vec<u8>> {
    let (me, p) = (comm.rank, comm.size);
    let at: Vec<usize> = std::iter::once(0)
        .chain(segs.iter().scan(0, |s, &e| {
            *s += e * size;
            Some(*s)
        }))
        .collect();
    let mine = &bytes[at[me]..at[me + 1]];
    if p == 1 {
        return Ok(mine.to_vec());
    }
    let sends = (0..p)
        .filter(|&r| r != me)
        .map(|r| (r, bytes[at[r]..at[r + 1]].to_vec()))
        .collect();
    let recvs: Vec<(usize, usize)> = (0..p)
        .filter(|&r| r != me)
        .map(|r| (r, mine.len()))
        .collect();
    let got = exchange(link, sends, &recvs, TAG_SCATTER)?;
    let mut parts: Vec<&[u8]> = got.iter().map(|g| g.as_slice()).collect();
    parts.insert(me, mine);
    Ok(fold(d, op, &parts))
}

/// Byte extents of `segs` element extents.
fn byte_ranges(segs: &[usize], size: usize) -> Vec<std::ops::Range<usize>> {
    let mut at = 0;
    segs.iter()
        .map(|&e| {
            let r = at..at + e * size;
            at = r.end;
            r
        })
        .collect()
}

impl Comm {
    /// Checks `op` against `T` on this rank: the local error of a reduction.
    fn refuse<T: Element>(
        &self,
        name: &'static str,
        x: &Array<T>,
        op: ReduceOp,
    ) -> Option<crate::Error> {
        (!op.takes(T::DTYPE)).then(|| x.dev.unsupported(name, T::DTYPE))
    }

    /// Every rank's `x` combined elementwise by `op` ([`ReduceOp`]: in rank order), on
    /// every rank: a new array on `x`'s device, bitwise identical on every rank. Every
    /// rank passes an array of the same shape and dtype. Large arrays move in pipelined
    /// chunks ([`Comm::set_chunk_bytes`]): each rank combines one segment of each chunk
    /// (a reduce-scatter) and sends it to the others (an all-gather), so each rank sends
    /// and receives about twice the array's bytes whatever the number of ranks.
    ///
    /// # Errors
    /// [`Error::Mpi`](crate::Error::Mpi): ranks with other shapes or dtypes or operators
    /// ([`MpiErrorKind::Mismatch`](crate::MpiErrorKind::Mismatch), on every rank), a rank
    /// whose part failed (`Remote`), a timeout; [`Error::Unsupported`](crate::Error::Unsupported)
    /// for `Min`/`Max` of complex numbers and `Sum`/`Prod` of bool (on every rank).
    ///
    /// ```no_run
    /// # let comm = gpuarray::dist::init()?;
    /// use gpuarray::dist::ReduceOp;
    /// let x = comm.device().from_slice(&[comm.rank() as i32, 1], [2])?;
    /// let m = comm.allreduce(&x, ReduceOp::Max)?;
    /// assert_eq!(m.to_vec()?, vec![comm.size() as i32 - 1, 1]);
    /// # Ok::<(), gpuarray::Error>(())
    /// ```
    pub fn allreduce<T: Element>(&self, x: &Array<T>, op: ReduceOp) -> Result<Array<T>> {
        self.reduce_to("allreduce", x, op, None)
            .map(|r| r.expect("every rank gets the result"))
    }

    /// Every rank's `x` combined by `op` as [`Comm::allreduce`] does (the same bits), on
    /// rank `root` only: `Some` there, `None` on the others.
    ///
    /// # Errors
    /// Those of [`Comm::allreduce`]; [`MpiErrorKind::Argument`](crate::MpiErrorKind::Argument)
    /// for a root past the size.
    ///
    /// ```no_run
    /// # let comm = gpuarray::dist::init()?;
    /// use gpuarray::dist::ReduceOp;
    /// let x = comm.device().full::<f64>([3], 0.5)?;
    /// if let Some(s) = comm.reduce(&x, ReduceOp::Sum, 0)? {
    ///     assert_eq!(s.to_vec()?, vec![0.5 * comm.size() as f64; 3]);
    /// }
    /// # Ok::<(), gpuarray::Error>(())
    /// ```
    pub fn reduce<T: Element>(
        &self,
        x: &Array<T>,
        op: ReduceOp,
        root: usize,
    ) -> Result<Option<Array<T>>> {
        self.reduce_to("reduce", x, op, Some(root))
    }

    fn reduce_to<T: Element>(
        &self,
        name: &'static str,
        x: &Array<T>,
        op: ReduceOp,
        root: Option<usize>,
    ) -> Result<Option<Array<T>>> {
        let r = root.unwrap_or(0);
        let gets = root.is_none_or(|r| r == self.rank);
        let mut local = self.refuse(name, x, op);
        if local.is_none() {
            local = self.check_rank(name, "root", r).err();
        }
        let mut up = None;
        if local.is_none() && gets {
            match Uploader::<T>::new(&x.dev, name, x.shape.clone()) {
                Ok(u) => up = Some(u),
                Err(e) => local = Some(e),
            }
        }
        self.agree(
            name,
            T::DTYPE,
            Some(x.shape.clone()),
            r,
            0,
            op.code(),
            local,
            same_shapes,
        )?;
        let link = self.coll_link(name);
        let (size, p, me) = (T::DTYPE.size(), self.size, self.rank);
        if x.is_empty() {
            return Ok(up.map(Uploader::finish));
        }
        // Chunks of whole elements (16-byte complex128 past 8-byte chunks).
        let align = size.max(8);
        let chunk = self.chunk_bytes().div_ceil(align) * align;
        download_chunks(x, chunk, |start, bytes| {
            let segs = split_extents(bytes.len() / size, p);
            let ranges = byte_ranges(&segs, size);
            let combined = scatter_phase(self, &link, &bytes, &segs, size, T::DTYPE, op)?;
            let others: Vec<usize> = (0..p).filter(|&q| q != me).collect();
            match root {
                None => {
                    let mut out = bytes;
                    out[ranges[me].clone()].copy_from_slice(&combined);
                    // The combined segment itself goes to the last peer: one copy fewer.
                    let mut sends: Vec<(usize, Vec<u8>)> =
                        others.iter().map(|&q| (q, Vec::new())).collect();
                    if let Some((last, rest)) = sends.split_last_mut() {
                        for s in rest {
                            s.1 = combined.clone();
                        }
                        last.1 = combined;
                    }
                    let recvs: Vec<(usize, usize)> =
                        others.iter().map(|&q| (q, ranges[q].len())).collect();
                    let got = exchange(&link, sends, &recvs, TAG_GATHER)?;
                    for (&q, g) in others.iter().zip(got) {
                        out[ranges[q].clone()].copy_from_slice(&g);
                    }
                    if let Some(u) = up.as_mut() {
                        u.put(start, &out)?;
                    }
                    Ok(Some(out))
                }
                Some(r) if r == me => {
                    let recvs: Vec<(usize, usize)> =
                        others.iter().map(|&q| (q, ranges[q].len())).collect();
                    let got = exchange(&link, vec![], &recvs, TAG_GATHER)?;
                    let mut out = bytes;
                    out[ranges[me].clone()].copy_from_slice(&combined);
                    for (&q, g) in others.iter().zip(got) {
                        out[ranges[q].clone()].copy_from_slice(&g);
                    }
                    if let Some(u) = up.as_mut() {
                        u.put(start, &out)?;
                    }
                    Ok(Some(out))
                }
                Some(r) => {
                    exchange(&link, vec![(r, combined)], &[], TAG_GATHER)?;
                    Ok(Some(bytes))
                }
            }
        })?;
        Ok(up.map(Uploader::finish))
    }

    /// Every rank's `x` combined by `op` as [`Comm::allreduce`] does (the same bits), then
    /// split along axis 0 as NumPy's `array_split` (the first `len % size` parts one row
    /// longer): rank r gets part r, a new array on `x`'s device.
    ///
    /// # Errors
    /// Those of [`Comm::allreduce`]; [`Error::InvalidArgument`](crate::Error::InvalidArgument)
    /// for a 0-d array.
    ///
    /// ```no_run
    /// # let comm = gpuarray::dist::init()?;
    /// use gpuarray::dist::ReduceOp;
    /// let n = comm.size();
    /// let x = comm.device().ones::<f32>([n, 2])?;
    /// let part = comm.reduce_scatter(&x, ReduceOp::Sum)?;
    /// assert_eq!(part.to_vec()?, vec![n as f32; 2]);
    /// # Ok::<(), gpuarray::Error>(())
    /// ```
    pub fn reduce_scatter<T: Element>(&self, x: &Array<T>, op: ReduceOp) -> Result<Array<T>> {
        let name = "reduce_scatter";
        let mut local = self.refuse(name, x, op);
        if local.is_none() && x.shape.is_empty() {
            local = Some(crate::Error::InvalidArgument {
                op: name,
                reason: "reduce_scatter splits axis 0: the array needs at least 1 dimension",
            });
        }
        let rows = split_extents(x.shape.first().copied().unwrap_or(0), self.size);
        let mut bytes = Vec::new();
        if local.is_none() {
            match host_bytes(x) {
                Ok(b) => bytes = b,
                Err(e) => local = Some(e),
            }
        }
        self.agree(
            name,
            T::DTYPE,
            Some(x.shape.clone()),
            0,
            0,
            op.code(),
            local,
            same_shapes,
        )?;
        let link = self.coll_link(name);
        let row: usize = x.shape[1..].iter().product();
        let segs: Vec<usize> = rows.iter().map(|r| r * row).collect();
        let size = T::DTYPE.size();
        let combined = scatter_phase(self, &link, &bytes, &segs, size, T::DTYPE, op)?;
        let mut shape = x.shape.clone();
        shape[0] = rows[self.rank];
        from_bytes(&x.dev, name, shape, &combined)
    }
}

#[cfg(test)]
mod tests {
    use super::{fold, ReduceOp};
    use crate::dtype::{f16, DType};

    fn bytes<T: bytemuck::Pod>(v: &[T]) -> Vec<u8> {
        bytemuck::cast_slice(v).to_vec()
    }

    #[test]
    fn folds_in_rank_order_in_the_dtypes_arithmetic() {
        // f32: (1e8 + 1) + -1e8 is 0 in rank order (1e8 + 1 rounds to 1e8), not 1.
        let parts = [bytes(&[1e8f32]), bytes(&[1.0f32]), bytes(&[-1e8f32])];
        let refs: Vec<&[u8]> = parts.iter().map(|p| p.as_slice()).collect();
        assert_eq!(fold(DType::F32, ReduceOp::Sum, &refs), bytes(&[0.0f32]));
        // f16 rounds each step: 2048 + 1 is 2048 in f16.
        let h = |x: f32| f16::from_f32(x).to_bits();
        let parts = [bytes(&[h(2048.0)]), bytes(&[h(1.0)]), bytes(&[h(1.0)])];
        let refs: Vec<&[u8]> = parts.iter().map(|p| p.as_slice()).collect();
        assert_eq!(fold(DType::F16, ReduceOp::Sum, &refs), bytes(&[h(2048.0)]));
        // i8 wraps; min and max of NaN are NaN in either place.
        let parts = [bytes(&[100i8]), bytes(&[100i8])];
        let refs: Vec<&[u8]> = parts.iter().map(|p| p.as_slice()).collect();
        assert_eq!(fold(DType::I8, ReduceOp::Sum, &refs), bytes(&[-56i8]));
        for (a, b) in [(f64::NAN, 1.0), (1.0, f64::NAN)] {
            let parts = [bytes(&[a]), bytes(&[b])];
            let refs: Vec<&[u8]> = parts.iter().map(|p| p.as_slice()).collect();
            for op in [ReduceOp::Min, ReduceOp::Max] {
                let r: Vec<f64> = bytemuck::pod_collect_to_vec(&fold(DType::F64, op, &refs));
                assert!(r[0].is_nan(), "{op:?} of {a} and {b}");
            }
        }
        // bool (u32 words): min is and, max is or; complex products.
        let parts = [bytes(&[1u32, 0]), bytes(&[1u32, 1])];
        let refs: Vec<&[u8]> = parts.iter().map(|p| p.as_slice()).collect();
        assert_eq!(fold(DType::Bool, ReduceOp::Min, &refs), bytes(&[1u32, 0]));
        assert_eq!(fold(DType::Bool, ReduceOp::Max, &refs), bytes(&[1u32, 1]));
        let parts = [bytes(&[0.0f32, 1.0]), bytes(&[0.0f32, 1.0])];
        let refs: Vec<&[u8]> = parts.iter().map(|p| p.as_slice()).collect();
        assert_eq!(
            fold(DType::Complex64, ReduceOp::Prod, &refs),
            bytes(&[-1.0f32, 0.0])
        );
        assert!(!ReduceOp::Max.takes(DType::Complex64) && !ReduceOp::Sum.takes(DType::Bool));
    }

    #[test]
    fn splits_as_array_split() {
        assert_eq!(super::split_extents(7, 3), vec![3, 2, 2]);
        assert_eq!(super::split_extents(2, 3), vec![1, 1, 0]);
        assert_eq!(super::split_extents(0, 2), vec![0, 0]);
    }
}
