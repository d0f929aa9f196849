//! The collectives that move arrays without combining them: `broadcast` (pipelined down a
//! binomial tree), `gather` / `allgather` / `scatter` along an axis (uneven parts),
//! `alltoall`.

use crate::array::Array;
use crate::dtype::Element;
use crate::error::{Error, Result};

use super::agree::{same_but, same_shapes};
use super::pieces::move_pieces;
use super::profile::Profile;
use super::stage::{dense, download_chunks, Uploader};
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

/// The array with `axis` moved first, contiguous (a copy on the device unless it already
/// is), and that shape.
fn axis_first<T: Element>(x: &Array<T>, axis: usize) -> Result<(Vec<usize>, Array<T>)> {
    let m = dense(&x.moveaxis(axis as isize, 0)?)?;
    Ok((m.shape.clone(), m))
}

/// An array laid out with `axis` first, moved back (contiguous).
fn axis_back<T: Element>(a: Array<T>, axis: usize) -> Result<Array<T>> {
    if axis == 0 {
        return Ok(a);
    }
    dense(&a.moveaxis(0, axis as isize)?)
}

/// Byte offsets of consecutive parts of `lens` bytes: `p + 1` of them.
fn offsets(lens: &[usize]) -> Vec<usize> {
    std::iter::once(0)
        .chain(lens.iter().scan(0, |s, &l| {
            *s += l;
            Some(*s)
        }))
        .collect()
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
        let mut mine = (vec![], x.clone());
        if local.is_none() {
            match axis_first(x, axis) {
                Ok(m) => mine = m,
                Err(e) => local = Some(e),
            }
        }
        let (shape, mine) = mine;
        let table = self.agree(op, T::DTYPE, Some(shape), r, axis, 0, local, same_but(0))?;
        let link = self.coll_link(op);
        let size = T::DTYPE.size();
        let lens: Vec<usize> = table
            .shapes
            .iter()
            .map(|s| s.iter().product::<usize>() * size)
            .collect();
        let off = offsets(&lens);
        let gets = root.is_none_or(|r| r == me);
        let mut shape = table.shapes[0].clone();
        shape[0] = table.shapes.iter().map(|s| s[0]).sum();
        let mut up = if gets {
            Some(Uploader::<T>::new(&self.dev, op, shape)?)
        } else {
            None
        };
        let total = if gets { off[self.size] } else { 0 };
        let prof = Profile::new(self.profiling(), op);
        let route =
            |q: usize, to: usize| root.is_none_or(|r| r == to).then(|| (0..lens[q], off[q]));
        move_pieces(
            &link,
            me,
            self.size,
            self.chunk_bytes(),
            Some(&mine),
            &lens,
            total,
            route,
            up.as_mut(),
            &prof,
            self.fail_after.take(),
        )?;
        if me == 0 {
            prof.report(off[self.size], self.size);
        }
        match up {
            Some(u) => axis_back(u.finish(), axis).map(Some),
            None => Ok(None),
        }
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
        let mut mine = None;
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
                    Ok(m) => mine = Some(m),
                    Err(e) => local = Some(e),
                },
            }
        }
        let shape = mine.as_ref().map_or(vec![], |m| m.0.clone());
        let table = self.agree(op, T::DTYPE, Some(shape), root, axis, 0, local, |_| Ok(()))?;
        let link = self.coll_link(op);
        let full = &table.shapes[root];
        let row: usize = full[1..].iter().product::<usize>() * T::DTYPE.size();
        let parts = split_extents(full[0], self.size);
        let at = offsets(&parts.iter().map(|p| p * row).collect::<Vec<_>>());
        let mut lens = vec![0; self.size];
        lens[root] = at[self.size];
        let mut shape = full.clone();
        shape[0] = parts[me];
        let mut up = Uploader::<T>::new(&self.dev, op, shape)?;
        let prof = Profile::new(self.profiling(), op);
        let route = |q: usize, to: usize| (q == root).then(|| (at[to]..at[to + 1], 0));
        move_pieces(
            &link,
            me,
            self.size,
            self.chunk_bytes(),
            mine.as_ref().map(|m| &m.1),
            &lens,
            at[me + 1] - at[me],
            route,
            Some(&mut up),
            &prof,
            self.fail_after.take(),
        )?;
        if me == 0 {
            prof.report(at[self.size], self.size);
        }
        axis_back(up.finish(), axis)
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
        let mut mine = (vec![], x.clone());
        if local.is_none() {
            match axis_first(x, axis) {
                Ok(m) => mine = m,
                Err(e) => local = Some(e),
            }
        }
        let (shape, mine) = mine;
        let table = self.agree(op, T::DTYPE, Some(shape), 0, axis, 0, local, same_shapes)?;
        let link = self.coll_link(op);
        let full = &table.shapes[0];
        let row: usize = full[1..].iter().product::<usize>() * T::DTYPE.size();
        let parts = split_extents(full[0], self.size);
        let at = offsets(&parts.iter().map(|p| p * row).collect::<Vec<_>>());
        let lens = vec![at[self.size]; self.size];
        let mut shape = full.clone();
        shape[0] = parts[me] * self.size;
        let mut up = Uploader::<T>::new(&self.dev, op, shape)?;
        let prof = Profile::new(self.profiling(), op);
        // Part `to` of every rank's array, in rank order on rank `to`.
        let route = |q: usize, to: usize| {
            let part = at[to + 1] - at[to];
            Some((at[to]..at[to + 1], q * part))
        };
        let mine_part = at[me + 1] - at[me];
        move_pieces(
            &link,
            me,
            self.size,
            self.chunk_bytes(),
            Some(&mine),
            &lens,
            mine_part * self.size,
            route,
            Some(&mut up),
            &prof,
            self.fail_after.take(),
        )?;
        if me == 0 {
            prof.report(at[self.size], self.size);
        }
        axis_back(up.finish(), axis)
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
