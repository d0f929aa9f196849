//! Reductions across ranks: `reduce`, `allreduce`, `reduce_scatter`. Each element is
//! combined by one rank (the owner of its segment), on the host, in rank order and the
//! dtype's own arithmetic, then sent where it is wanted.

use crate::array::Array;
use crate::dtype::{DType, Element};
use crate::error::Result;

use super::agree::same_shapes;
use super::fold::{fold, fold_into};
use super::profile::{Profile, Stage};
use super::shm_reduce;
use super::stage::{chunks_of, from_bytes, host_bytes, pipeline, Ctl, Put, Uploader};
use super::wire::{exchange, Batch, Link};
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
pub(super) fn byte_ranges(segs: &[usize], size: usize) -> Vec<std::ops::Range<usize>> {
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
            op.code() | (u64::from(self.uses_shm()) << 8),
            local,
            same_shapes,
        )?;
        let link = self.coll_link(name);
        let (size, p, me) = (T::DTYPE.size(), self.size, self.rank);
        if x.is_empty() {
            return Ok(up.map(Uploader::finish));
        }
        if p == 1 {
            // One rank's reduction is its own array: copied on the device.
            return up.map(|_| x.copy()).transpose();
        }
        let prof = Profile::new(self.profiling(), name);
        // Chunks of whole elements (16-byte complex128 past 8-byte chunks).
        let align = size.max(8);
        let chunk = self.chunk_bytes().div_ceil(align) * align;
        let others: Vec<usize> = (0..p).filter(|&q| q != me).collect();
        // Receive buffers of the reduce-scatter, reused from chunk to chunk.
        let mut spare: Vec<Vec<u8>> = Vec::new();
        let steps = chunks_of(x.len() * size, chunk);
        let abort = |e: &crate::Error| link.notify_failure(&others, e);
        let ctl = Ctl {
            prof: &prof,
            fail_at: self.fail_after.take(),
            abort: &abort,
        };
        if self.uses_shm()
            && let Some(shm) = self.shm(&link, chunk)?
        {
            shm_reduce::reduce(&shm, &link, x, op, chunk, up.as_mut(), &ctl, (me, p))?;
            if me == 0 {
                prof.report(x.len() * size, p);
            }
            return Ok(up.map(Uploader::finish));
        }
        pipeline(Some(x), chunk, steps, up.as_mut(), &ctl, |_, own, _| {
            let (start, mut bytes) = own.expect("a chunk of x at every step");
            let put = |buf: Vec<u8>| {
                let range = 0..buf.len();
                vec![Put {
                    at: start,
                    buf,
                    range,
                }]
            };
            if p == 1 {
                return Ok(put(bytes));
            }
            let ranges = byte_ranges(&split_extents(bytes.len() / size, p), size);
            let mine = ranges[me].clone();
            // Reduce-scatter: segment q of this chunk goes to rank q straight from the
            // chunk's buffer; every rank's segment `me` arrives here.
            let mut b = Batch::new();
            let mut slots = Vec::with_capacity(others.len());
            for &q in &others {
                let mut v = spare.pop().unwrap_or_default();
                v.resize(mine.len(), 0);
                let slot = b.adopt(v);
                b.post(&link, slot, 0..mine.len(), q, TAG_SCATTER, true)?;
                slots.push(slot);
            }
            let at = b.adopt(bytes);
            for &q in &others {
                b.post(&link, at, ranges[q].clone(), q, TAG_SCATTER, false)?;
            }
            let mut bufs = prof.time(Stage::Scatter, || b.wait(&link))?;
            bytes = std::mem::take(&mut bufs[at]);
            let got: Vec<Vec<u8>> = slots
                .iter()
                .map(|&s| std::mem::take(&mut bufs[s]))
                .collect();
            // The fold over this rank's own segment, in place.
            prof.time(Stage::Fold, || {
                let refs: Vec<&[u8]> = got.iter().map(|g| g.as_slice()).collect();
                fold_into(T::DTYPE, op, &mut bytes[mine.clone()], me, &refs);
            });
            spare.extend(got);
            // The combined segments where they are wanted, received in place.
            let mut b = Batch::new();
            let at = b.adopt(bytes);
            match root {
                None => {
                    for &q in &others {
                        b.post(&link, at, ranges[q].clone(), q, TAG_GATHER, true)?;
                    }
                    for &q in &others {
                        b.post(&link, at, mine.clone(), q, TAG_GATHER, false)?;
                    }
                }
                Some(r) if r == me => {
                    for &q in &others {
                        b.post(&link, at, ranges[q].clone(), q, TAG_GATHER, true)?;
                    }
                }
                Some(r) => b.post(&link, at, mine.clone(), r, TAG_GATHER, false)?,
            }
            let mut bufs = prof.time(Stage::Gather, || b.wait(&link))?;
            Ok(put(std::mem::take(&mut bufs[at])))
        })?;
        if me == 0 {
            prof.report(x.len() * size, p);
        }
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
    #[test]
    fn splits_as_array_split() {
        assert_eq!(super::split_extents(7, 3), vec![3, 2, 2]);
        assert_eq!(super::split_extents(2, 3), vec![1, 1, 0]);
        assert_eq!(super::split_extents(0, 2), vec![0, 0]);
    }
}
