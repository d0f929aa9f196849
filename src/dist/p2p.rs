//! Point-to-point: `send` / `recv` of arrays and their non-blocking forms. A message is a
//! header (dtype, shape, chunk size) on tag 2t, then the bytes in chunks on tag 2t+1.

use std::collections::VecDeque;

use crate::array::Array;
use crate::dtype::{DType, Element};
use crate::error::{Error, MpiErrorKind, Result};

use super::agree::{dtype_code, MAX_DIMS};
use super::stage::{dense, download_chunks, host_bytes, Uploader};
use super::wire::{mpi_error, Batch, Link};
use super::{Comm, MAX_TAG};

const WORDS: usize = 4 + MAX_DIMS;
const MAGIC: u64 = 0x6770_7561_7032_7032;

fn header(d: DType, shape: &[usize], chunk: usize) -> Vec<u8> {
    let mut w = vec![0u64; WORDS];
    w[0] = MAGIC;
    w[1] = dtype_code(d);
    w[2] = chunk as u64;
    w[3] = shape.len() as u64;
    for (k, &e) in shape.iter().enumerate() {
        w[4 + k] = e as u64;
    }
    bytemuck::cast_slice(&w).to_vec()
}

/// (dtype code, chunk, shape) of a header.
fn parse(b: &[u8]) -> Option<(u64, usize, Vec<usize>)> {
    let w: Vec<u64> = bytemuck::pod_collect_to_vec(b);
    if w.len() != WORDS || w[0] != MAGIC || w[3] as usize > MAX_DIMS || w[2] == 0 {
        return None;
    }
    let shape = w[4..4 + w[3] as usize]
        .iter()
        .map(|&e| e as usize)
        .collect();
    Some((w[1], w[2] as usize, shape))
}

fn dtype_size(code: u64) -> usize {
    match code {
        9 | 10 => 1,
        1 | 11 | 12 => 2,
        2 | 4 | 5 | 8 => 4,
        14 => 16,
        _ => 8,
    }
}

/// A non-blocking send in flight ([`Comm::isend`]): the array's bytes were read when it
/// was made; [`SendRequest::wait`] waits until MPI is done with them.
///
/// ```no_run
/// # let comm = gpuarray::dist::init()?;
/// let x = comm.device().ones::<f32>([8])?;
/// let peer = (comm.rank() + 1) % comm.size();
/// let mut sent = comm.isend(&x, peer, 1)?;
/// let _maybe_done: bool = sent.test()?;
/// let got = comm.irecv::<f32>((comm.rank() + comm.size() - 1) % comm.size(), 1)?;
/// assert_eq!(got.wait()?.to_vec()?, vec![1.0; 8]);
/// sent.wait()?;
/// # Ok::<(), gpuarray::Error>(())
/// ```
#[must_use = "wait on the request: its bytes are sent by then"]
pub struct SendRequest<'c> {
    comm: &'c Comm,
    batch: Batch,
}

impl SendRequest<'_> {
    /// Whether the send has completed, without waiting.
    ///
    /// # Errors
    /// [`Error::Mpi`] when MPI fails.
    pub fn test(&mut self) -> Result<bool> {
        self.batch.test(&self.comm.p2p_link("isend"))
    }

    /// Waits until the send has completed (within the communicator's timeout).
    ///
    /// # Errors
    /// [`Error::Mpi`]: a timeout (the receiver never received).
    pub fn wait(self) -> Result<()> {
        self.batch.wait(&self.comm.p2p_link("isend")).map(|_| ())
    }
}

/// A non-blocking receive in flight ([`Comm::irecv`]): the header is posted; the data
/// move during [`RecvRequest::wait`].
#[must_use = "wait on the request to get the array"]
pub struct RecvRequest<'c, T: Element> {
    comm: &'c Comm,
    head: Batch,
    src: usize,
    tag: u32,
    _t: std::marker::PhantomData<T>,
}

impl<T: Element> RecvRequest<'_, T> {
    /// Waits for the message and returns the array (on [`Comm::device`]).
    ///
    /// # Errors
    /// Those of [`Comm::recv`].
    pub fn wait(self) -> Result<Array<T>> {
        let link = self.comm.p2p_link("irecv");
        let head = self.head.wait(&link)?.remove(0);
        self.comm.recv_body(&link, &head, self.src, self.tag)
    }
}

impl Comm {
    fn check_peer(&self, op: &'static str, peer: usize, tag: u32) -> Result<()> {
        self.check_rank(op, "rank", peer)?;
        if tag > MAX_TAG {
            return Err(mpi_error(
                op,
                MpiErrorKind::Argument,
                format!("tag {tag} is past {MAX_TAG}"),
            ));
        }
        Ok(())
    }

    /// Sends `x` (any dtype and shape; a view is made contiguous first) to rank `dest`
    /// with `tag` (`0..=MAX_TAG`), returning once MPI is done with the bytes. Large
    /// arrays go in pipelined chunks: chunk i+1 downloads while chunk i is sent.
    ///
    /// # Errors
    /// [`Error::Mpi`]: a rank or tag out of range (`Argument`), a
    /// timeout (the receiver never received), an MPI error.
    ///
    /// ```no_run
    /// # let comm = gpuarray::dist::init()?;
    /// if comm.rank() == 0 {
    ///     let x = comm.device().arange::<i32>(0, 6, 1)?.reshape([2, 3])?;
    ///     comm.send(&x.t(), 1, 7)?;
    /// } else if comm.rank() == 1 {
    ///     let y = comm.recv::<i32>(0, 7)?;
    ///     assert_eq!(y.shape(), &[3, 2]);
    ///     assert_eq!(y.to_vec()?, vec![0, 3, 1, 4, 2, 5]);
    /// }
    /// # Ok::<(), gpuarray::Error>(())
    /// ```
    pub fn send<T: Element>(&self, x: &Array<T>, dest: usize, tag: u32) -> Result<()> {
        let op = "send";
        self.check_peer(op, dest, tag)?;
        if x.ndim() > MAX_DIMS {
            return Err(Error::TooManyDims {
                ndim: x.ndim(),
                max: MAX_DIMS,
            });
        }
        let link = self.p2p_link(op);
        link.open()?;
        let src = dense(x)?;
        let chunk = self.chunk_bytes();
        let (t_head, t_data) = (2 * tag as i32, 2 * tag as i32 + 1);
        let mut b = Batch::new();
        b.send(&link, header(T::DTYPE, &src.shape, chunk), dest, t_head)?;
        b.wait(&link)?;
        if src.is_empty() {
            return Ok(());
        }
        let mut flying: VecDeque<Batch> = VecDeque::new();
        download_chunks(&src, chunk, |_, bytes| {
            let mut b = Batch::new();
            b.send(&link, bytes, dest, t_data)?;
            flying.push_back(b);
            if flying.len() > 1 {
                let done = flying.pop_front().expect("two in flight").wait(&link)?;
                return Ok(done.into_iter().next());
            }
            Ok(None)
        })?;
        for b in flying {
            b.wait(&link)?;
        }
        Ok(())
    }

    /// [`Comm::send`] without waiting: the array is read now (on this thread), the
    /// transfer goes on until [`SendRequest::wait`].
    ///
    /// # Errors
    /// Those of [`Comm::send`] that arise before the transfer.
    ///
    /// ```no_run
    /// # let comm = gpuarray::dist::init()?;
    /// let peer = (comm.rank() + 1) % comm.size();
    /// let from = (comm.rank() + comm.size() - 1) % comm.size();
    /// let x = comm.device().full::<f32>([5], comm.rank() as f32)?;
    /// let sent = comm.isend(&x, peer, 0)?; // a ring: no deadlock
    /// let got = comm.irecv::<f32>(from, 0)?.wait()?;
    /// sent.wait()?;
    /// assert_eq!(got.to_vec()?, vec![from as f32; 5]);
    /// # Ok::<(), gpuarray::Error>(())
    /// ```
    pub fn isend<T: Element>(
        &self,
        x: &Array<T>,
        dest: usize,
        tag: u32,
    ) -> Result<SendRequest<'_>> {
        let op = "isend";
        self.check_peer(op, dest, tag)?;
        if x.ndim() > MAX_DIMS {
            return Err(Error::TooManyDims {
                ndim: x.ndim(),
                max: MAX_DIMS,
            });
        }
        let link = self.p2p_link(op);
        link.open()?;
        let chunk = self.chunk_bytes();
        let (t_head, t_data) = (2 * tag as i32, 2 * tag as i32 + 1);
        let bytes = host_bytes(x)?;
        let mut batch = Batch::new();
        batch.send(&link, header(T::DTYPE, &x.shape, chunk), dest, t_head)?;
        for piece in bytes.chunks(chunk) {
            batch.send(&link, piece.to_vec(), dest, t_data)?;
        }
        Ok(SendRequest { comm: self, batch })
    }

    /// Receives the array rank `src` sends with `tag` ([`Comm::send`]), as a new
    /// contiguous array of the sent shape on [`Comm::device`].
    ///
    /// # Errors
    /// [`Error::Mpi`]: `Mismatch` when the sender sent another dtype
    /// (the bytes are received and dropped, so the sender is not left waiting), a rank or
    /// tag out of range (`Argument`), a timeout; [`Error::OutOfMemory`].
    ///
    /// See [`Comm::send`] for an example.
    pub fn recv<T: Element>(&self, src: usize, tag: u32) -> Result<Array<T>> {
        let op = "recv";
        self.check_peer(op, src, tag)?;
        let link = self.p2p_link(op);
        let mut b = Batch::new();
        b.recv(&link, WORDS * 8, src, 2 * tag as i32)?;
        let head = b.wait(&link)?.remove(0);
        self.recv_body(&link, &head, src, tag)
    }

    /// [`Comm::recv`] without waiting: the header's receive is posted now.
    ///
    /// # Errors
    /// A rank or tag out of range; a closed communicator.
    ///
    /// See [`Comm::isend`] for an example.
    pub fn irecv<T: Element>(&self, src: usize, tag: u32) -> Result<RecvRequest<'_, T>> {
        let op = "irecv";
        self.check_peer(op, src, tag)?;
        let link = self.p2p_link(op);
        let mut head = Batch::new();
        head.recv(&link, WORDS * 8, src, 2 * tag as i32)?;
        Ok(RecvRequest {
            comm: self,
            head,
            src,
            tag,
            _t: std::marker::PhantomData,
        })
    }

    fn recv_body<T: Element>(
        &self,
        link: &Link,
        head: &[u8],
        src: usize,
        tag: u32,
    ) -> Result<Array<T>> {
        let Some((code, chunk, shape)) = parse(head) else {
            return Err(mpi_error(
                link.op,
                MpiErrorKind::Mismatch,
                format!("rank {src} sent a malformed header on tag {tag}"),
            ));
        };
        let bytes = shape.iter().product::<usize>() * dtype_size(code);
        let t_data = 2 * tag as i32 + 1;
        let mut refused = None;
        if code != dtype_code(T::DTYPE) {
            refused = Some(mpi_error(
                link.op,
                MpiErrorKind::Mismatch,
                format!(
                    "rank {src} sent another dtype (code {code}) than {} on tag {tag}",
                    T::DTYPE
                ),
            ));
        }
        let mut up = None;
        if refused.is_none() {
            match Uploader::<T>::new(&self.dev, link.op, shape) {
                Ok(u) => up = Some(u),
                Err(e) => refused = Some(e),
            }
        }
        // Two receives posted ahead: chunk i+1 arrives while chunk i uploads.
        let starts: Vec<usize> = (0..bytes).step_by(chunk).collect();
        let mut posted: VecDeque<(usize, Batch)> = VecDeque::new();
        let mut next = starts.iter();
        let post = |at: usize| -> Result<(usize, Batch)> {
            let mut b = Batch::new();
            b.recv(link, chunk.min(bytes - at), src, t_data)?;
            Ok((at, b))
        };
        for &at in next.by_ref().take(2) {
            posted.push_back(post(at)?);
        }
        while let Some((at, b)) = posted.pop_front() {
            let data = b.wait(link)?.remove(0);
            if let Some(&n) = next.next() {
                posted.push_back(post(n)?);
            }
            if let Some(u) = up.as_mut()
                && let Err(e) = u.put(at, &data)
            {
                // Drain the rest so the sender is not left waiting.
                refused = Some(e);
                up = None;
            }
        }
        match (refused, up) {
            (Some(e), _) => Err(e),
            (None, Some(u)) => Ok(u.finish()),
            (None, None) => unreachable!("an uploader unless refused"),
        }
    }
}
