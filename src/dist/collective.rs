//! The collectives that move arrays without combining them: `broadcast` (pipelined down a
//! binomial tree), `gather` / `allgather` / `scatter` along an axis (uneven parts),
//! `alltoall`.

use crate::array::Array;
use crate::dtype::Element;
use crate::error::{Error, Result};

use super::agree::{same_but, same_shapes};
use super::stage::{dense, download_chunks, from_bytes, host_bytes, Uploader};
use super::wire::{exchange, Link};
use super::{split_extents, Comm};

const TAG_DATA: i32 = 4;

/// The parent and children of `rank` in the binomial tree rooted at `root`.
fn tree(rank: usize, root: usize, p: usize) -> (Option<usize>, Vec<usize>) {
    let v = (rank + p - root) % p;
    let mut mask = 1;
    while mask < p && v & mask == 0 {
        mask <<= 1;
    }
    let parent = (v != 0).then(|| (v - mask + root) % p);
    let mut children = Vec::new();
    let mut m = mask >> 1;
    while m > 0 {
        if v + m < p {
            children.push((v + m + root) % p);
        }
        m >>= 1;
    }
    (parent, children)
}

/// The array's bytes with `axis` moved first, and that shape.
fn axis_first<T: Element>(x: &Array<T>, axis: usize) -> Result<(Vec<usize>, Vec<u8>)> {
    let m = x.moveaxis(axis as isize, 0)?;
    Ok((m.shape.clone(), host_bytes(&m)?))
}

/// An array from bytes laid out with `axis` first (`shape` that way), moved back.
fn axis_back<T: Element>(
    c: &Comm,
    op: &'static str,
    shape: Vec<usize>,
    bytes: &[u8],
    axis: usize,
) -> Result<Array<T>> {
    let a = from_bytes::<T>(c.device(), op, shape, bytes)?;
    if axis == 0 {
        return Ok(a);
    }
    dense(&a.moveaxis(0, axis as isize)?)
}

fn axis_error(op: &'static str, axis: usize, ndim: usize) -> Error {
    let _ = op;
    Error::AxisOutOfRange {
        axis: axis as isize,
        ndim,
    }
}

impl Comm {
    /// Rank `root`'s array on every rank: on the root, `x` itself (made contiguous); on
    /// the others a new array of the same shape and dtype on [`Comm::device`] (their `x`
    /// is not read: pass `None`). Large arrays move in pipelined chunks down a binomial
    /// tree (each rank forwards chunk i while it receives chunk i+1).
    ///
    /// # Errors
    /// [`Error::InvalidArgument`] on a root without an array (and `Remote` on the others);
    /// [`Error::Mpi`]: dtypes or roots that differ between ranks
    /// (`Mismatch`), a timeout.
    ///
    /// ```no_run
    /// # let comm = gpuarray::dist::init()?;
    /// let x = comm.device().arange::<f32>(0.0, 4.0, 1.0)?;
    /// let y = comm.broadcast((comm.rank() == 0).then_some(&x), 0)?;
    /// assert_eq!(y.to_vec()?, vec![0.0, 1.0, 2.0, 3.0]);
    /// # Ok::<(), gpuarray::Error>(())
    /// ```
    pub fn broadcast<T: Element>(&self, x: Option<&Array<T>>, root: usize) -> Result<Array<T>> {
        let op = "broadcast";
        let me = self.rank;
        let mut local = self.check_rank(op, "root", root).err();
        let mut src = None;
        if local.is_none() && me == root {
            match x.map(dense) {
                None => {
                    local = Some(Error::InvalidArgument {
                        op,
                        reason: "the root passes the array to broadcast",
                    })
                }
                Some(Err(e)) => local = Some(e),
                Some(Ok(a)) => src = Some(a),
            }
        }
        let shape = src.as_ref().map_or(vec![], |a| a.shape.clone());
        let table = self.agree(op, T::DTYPE, Some(shape), root, 0, 0, local, |_| Ok(()))?;
        let link = self.coll_link(op);
        let (parent, children) = tree(me, root, self.size);
        let forward = |link: &Link, buf: Vec<u8>| -> Result<Vec<u8>> {
            let sends = children.iter().map(|&c| (c, buf.clone())).collect();
            exchange(link, sends, &[], TAG_DATA)?;
            Ok(buf)
        };
        if let Some(a) = src {
            // Nothing to send for an empty array: the others receive nothing either.
            if !a.is_empty() {
                download_chunks(&a, self.chunk_bytes(), |_, b| forward(&link, b).map(Some))?;
            }
            return Ok(a);
        }
        let shape = table.shapes[root].clone();
        let bytes = shape.iter().product::<usize>() * T::DTYPE.size();
        let mut up = Uploader::<T>::new(&self.dev, op, shape)?;
        let parent = parent.expect("a rank other than the root has a parent");
        for start in (0..bytes).step_by(self.chunk_bytes().max(1)) {
            let len = self.chunk_bytes().min(bytes - start);
            let b = exchange(&link, vec![], &[(parent, len)], TAG_DATA)?.remove(0);
            let b = forward(&link, b)?;
            up.put(start, &b)?;
        }
        Ok(up.finish())
    }

    /// Every rank's `x` joined along `axis` in rank order, on rank `root` (`Some` there, a
    /// new contiguous array on [`Comm::device`]; `None` elsewhere). The shapes must agree
    /// except along `axis`, where the parts may differ (0 included).
    ///
    /// # Errors
    /// [`Error::AxisOutOfRange`] on a rank whose array lacks `axis` (`Remote` on the
    /// others); [`Error::Mpi`]: shapes, dtypes, axes or roots that
    /// differ (`Mismatch`), a timeout.
    ///
    /// ```no_run
    /// # let comm = gpuarray::dist::init()?;
    /// let x = comm.device().full::<i32>([comm.rank() + 1, 2], comm.rank() as i32)?;
    /// if let Some(all) = comm.gather(&x, 0, 0)? {
    ///     let n = comm.size();
    ///     assert_eq!(all.shape(), &[n * (n + 1) / 2, 2]);
    /// }
    /// # Ok::<(), gpuarray::Error>(())
    /// ```
    pub fn gather<T: Element>(
        &self,
        x: &Array<T>,
        axis: usize,
        root: usize,
    ) -> Result<Option<Array<T>>> {
        self.gather_to("gather", x, axis, Some(root))
    }

    /// [`Comm::gather`] onto every rank: the same array everywhere.
    ///
    /// # Errors
    /// Those of [`Comm::gather`].
    ///
    /// ```no_run
    /// # let comm = gpuarray::dist::init()?;
    /// let x = comm.device().full::<f32>([2, 1], comm.rank() as f32)?;
    /// let all = comm.allgather(&x, 1)?;
    /// assert_eq!(all.shape(), &[2, comm.size()]);
    /// # Ok::<(), gpuarray::Error>(())
    /// ```
    pub fn allgather<T: Element>(&self, x: &Array<T>, axis: usize) -> Result<Array<T>> {
        self.gather_to("allgather", x, axis, None)
            .map(|r| r.expect("every rank gets the result"))
    }

    fn gather_to<T: Element>(
        &self,
        op: &'static str,
        x: &Array<T>,
        axis: usize,
        root: Option<usize>,
    ) -> Result<Option<Array<T>>> {
        let me = self.rank;
        let r = root.unwrap_or(0);
        let mut local = self.check_rank(op, "root", r).err();
        if local.is_none() && axis >= x.ndim() {
            local = Some(axis_error(op, axis, x.ndim()));
        }
        let mut mine = (vec![], vec![]);
        if local.is_none() {
            match axis_first(x, axis) {
                Ok(m) => mine = m,
                Err(e) => local = Some(e),
            }
        }
        let (shape, bytes) = mine;
        let table = self.agree(op, T::DTYPE, Some(shape), r, axis, 0, local, same_but(0))?;
        let link = self.coll_link(op);
        let size = T::DTYPE.size();
        let lens: Vec<usize> = table
            .shapes
            .iter()
            .map(|s| s.iter().product::<usize>() * size)
            .collect();
        let others: Vec<usize> = (0..self.size).filter(|&q| q != me).collect();
        let gets = root.is_none_or(|r| r == me);
        let sends = match root {
            None => others.iter().map(|&q| (q, bytes.clone())).collect(),
            Some(r) if r != me => vec![(r, bytes.clone())],
            Some(_) => vec![],
        };
        let recvs: Vec<(usize, usize)> = if gets {
            others.iter().map(|&q| (q, lens[q])).collect()
        } else {
            vec![]
        };
        let got = exchange(&link, sends, &recvs, TAG_DATA)?;
        if !gets {
            return Ok(None);
        }
        let mut all = Vec::with_capacity(lens.iter().sum());
        let mut got = got.into_iter();
        for q in 0..self.size {
            if q == me {
                all.extend_from_slice(&bytes);
            } else if let Some(g) = got.next() {
                all.extend_from_slice(&g);
            }
        }
        let mut shape = table.shapes[0].clone();
        shape[0] = table.shapes.iter().map(|s| s[0]).sum();
        axis_back::<T>(self, op, shape, &all, axis).map(Some)
    }

    /// Rank `root`'s `x` split along `axis` as NumPy's `array_split` (the first
    /// `len % size` parts one longer): rank r gets part r, a new contiguous array on
    /// [`Comm::device`]. The other ranks' `x` is not read (pass `None`).
    ///
    /// # Errors
    /// [`Error::InvalidArgument`] on a root without an array, [`Error::AxisOutOfRange`]
    /// there (`Remote` on the others); [`Error::Mpi`]: dtypes, axes or
    /// roots that differ (`Mismatch`), a timeout.
    ///
    /// ```no_run
    /// # let comm = gpuarray::dist::init()?;
    /// let x = comm.device().arange::<f32>(0.0, 10.0, 1.0)?;
    /// let part = comm.scatter((comm.rank() == 0).then_some(&x), 0, 0)?;
    /// assert!(part.len() >= 10 / comm.size());
    /// # Ok::<(), gpuarray::Error>(())
    /// ```
    pub fn scatter<T: Element>(
        &self,
        x: Option<&Array<T>>,
        axis: usize,
        root: usize,
    ) -> Result<Array<T>> {
        let op = "scatter";
        let me = self.rank;
        let mut local = self.check_rank(op, "root", root).err();
        let mut mine = (vec![], vec![]);
        if local.is_none() && me == root {
            match x {
                None => {
                    local = Some(Error::InvalidArgument {
                        op,
                        reason: "the root passes the array to scatter",
                    })
                }
                Some(a) if axis >= a.ndim() => local = Some(axis_error(op, axis, a.ndim())),
                Some(a) => match axis_first(a, axis) {
                    Ok(m) => mine = m,
                    Err(e) => local = Some(e),
                },
            }
        }
        let (shape, bytes) = mine;
        let table = self.agree(op, T::DTYPE, Some(shape), root, axis, 0, local, |_| Ok(()))?;
        let link = self.coll_link(op);
        let full = &table.shapes[root];
        let row: usize = full[1..].iter().product::<usize>() * T::DTYPE.size();
        let parts = split_extents(full[0], self.size);
        let mut at = vec![0];
        for p in &parts {
            at.push(at.last().unwrap() + p * row);
        }
        let part = if me == root {
            let sends = (0..self.size)
                .filter(|&q| q != me)
                .map(|q| (q, bytes[at[q]..at[q + 1]].to_vec()))
                .collect();
            exchange(&link, sends, &[], TAG_DATA)?;
            bytes[at[me]..at[me + 1]].to_vec()
        } else {
            exchange(&link, vec![], &[(root, at[me + 1] - at[me])], TAG_DATA)?.remove(0)
        };
        let mut shape = full.clone();
        shape[0] = parts[me];
        axis_back::<T>(self, op, shape, &part, axis)
    }

    /// Every rank's `x` split along `axis` into `size` parts as [`Comm::scatter`] splits:
    /// part j goes to rank j, and rank r returns the parts r of every rank joined along
    /// `axis` in rank order (a new contiguous array on [`Comm::device`]). Every rank
    /// passes the same shape.
    ///
    /// # Errors
    /// Those of [`Comm::allgather`]; shapes that differ are `Mismatch`.
    ///
    /// ```no_run
    /// # let comm = gpuarray::dist::init()?;
    /// let n = comm.size();
    /// let x = comm.device().full::<u32>([n, 3], comm.rank() as u32)?;
    /// let y = comm.alltoall(&x, 0)?; // row r of every rank
    /// assert_eq!(y.to_vec()?, (0..n as u32).flat_map(|q| [q; 3]).collect::<Vec<_>>());
    /// # Ok::<(), gpuarray::Error>(())
    /// ```
    pub fn alltoall<T: Element>(&self, x: &Array<T>, axis: usize) -> Result<Array<T>> {
        let op = "alltoall";
        let me = self.rank;
        let mut local = None;
        if axis >= x.ndim() {
            local = Some(axis_error(op, axis, x.ndim()));
        }
        let mut mine = (vec![], vec![]);
        if local.is_none() {
            match axis_first(x, axis) {
                Ok(m) => mine = m,
                Err(e) => local = Some(e),
            }
        }
        let (shape, bytes) = mine;
        let table = self.agree(op, T::DTYPE, Some(shape), 0, axis, 0, local, same_shapes)?;
        let link = self.coll_link(op);
        let full = &table.shapes[0];
        let row: usize = full[1..].iter().product::<usize>() * T::DTYPE.size();
        let parts = split_extents(full[0], self.size);
        let mut at = vec![0];
        for p in &parts {
            at.push(at.last().unwrap() + p * row);
        }
        let others: Vec<usize> = (0..self.size).filter(|&q| q != me).collect();
        let sends = others
            .iter()
            .map(|&q| (q, bytes[at[q]..at[q + 1]].to_vec()))
            .collect();
        let recvs: Vec<(usize, usize)> = others.iter().map(|&q| (q, at[me + 1] - at[me])).collect();
        let got = exchange(&link, sends, &recvs, TAG_DATA)?;
        let mut all = Vec::with_capacity(self.size * (at[me + 1] - at[me]));
        let mut got = got.into_iter();
        for q in 0..self.size {
            if q == me {
                all.extend_from_slice(&bytes[at[me]..at[me + 1]]);
            } else if let Some(g) = got.next() {
                all.extend_from_slice(&g);
            }
        }
        let mut shape = full.clone();
        shape[0] = parts[me] * self.size;
        axis_back::<T>(self, op, shape, &all, axis)
    }
}

#[cfg(test)]
mod tests {
    use super::tree;

    #[test]
    fn binomial_trees_reach_every_rank_once() {
        for p in 1..12 {
            for root in 0..p {
                let mut seen = vec![0; p];
                seen[root] += 1;
                for r in 0..p {
                    let (parent, children) = tree(r, root, p);
                    assert_eq!(parent.is_none(), r == root);
                    for c in children {
                        assert_eq!(tree(c, root, p).0, Some(r));
                        seen[c] += 1;
                    }
                }
                assert!(seen.iter().all(|&s| s == 1), "{p} {root} {seen:?}");
            }
        }
    }
}
