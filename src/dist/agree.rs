//! The header exchange before every collective: each rank sends rank 0 a few words (the
//! operation, its sequence number, dtype, shape, root, axis and whether its own part is
//! ready), rank 0 sends the table of all of them back, and every rank checks the same
//! table by the same rules. A disagreement (or a rank whose part failed) is then one
//! error on every rank before any data moves, never a hang.

use crate::dtype::DType;
use crate::error::{Error, MpiErrorKind, Result};

use super::wire::{exchange, mpi_error, Link};

/// Words of one header.
const WORDS: usize = 48;
/// Dimensions a header carries.
pub(crate) const MAX_DIMS: usize = WORDS - 10;
const MAGIC: u64 = 0x6770_7561_7272_6179; // "gpuarray"
/// The tag of the header messages on the collectives' communicator.
const TAG: i32 = 1;

/// What one rank says about its part of a collective.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct Head {
    pub(crate) op: &'static str,
    pub(crate) seq: u64,
    pub(crate) dtype: DType,
    /// `None` where the rank's own part already failed (its error stays on that rank).
    pub(crate) shape: Option<Vec<usize>>,
    pub(crate) root: usize,
    pub(crate) axis: usize,
    /// A per-operation word (the reduction's operator).
    pub(crate) extra: u64,
    /// Bytes per pipelined chunk ([`super::Comm::set_chunk_bytes`]): the ranks must agree.
    pub(crate) chunk: usize,
}

/// The collectives, numbered for the header.
const OPS: [&str; 12] = [
    "barrier",
    "broadcast",
    "reduce",
    "allreduce",
    "gather",
    "allgather",
    "scatter",
    "alltoall",
    "reduce_scatter",
    "shard",
    "ShardedArray",
    "split",
];

fn op_code(op: &str) -> u64 {
    OPS.iter().position(|o| *o == op).map_or(99, |i| i as u64)
}

pub(crate) fn dtype_code(d: DType) -> u64 {
    match d {
        DType::F16 => 1,
        DType::F32 => 2,
        DType::F64 => 3,
        DType::I32 => 4,
        DType::U32 => 5,
        DType::I64 => 6,
        DType::U64 => 7,
        DType::Bool => 8,
        DType::U8 => 9,
        DType::I8 => 10,
        DType::U16 => 11,
        DType::I16 => 12,
        DType::Complex64 => 13,
        DType::Complex128 => 14,
        #[allow(unreachable_patterns)]
        _ => 15,
    }
}

fn encode(h: &Head) -> Vec<u8> {
    let mut w = [0u64; WORDS];
    w[0] = MAGIC;
    w[1] = h.seq;
    w[2] = op_code(h.op);
    w[3] = dtype_code(h.dtype);
    w[4] = h.root as u64;
    w[5] = h.axis as u64;
    w[6] = h.extra;
    w[9] = h.chunk as u64;
    match &h.shape {
        Some(s) if s.len() <= MAX_DIMS => {
            w[7] = 1;
            w[8] = s.len() as u64;
            for (k, &e) in s.iter().enumerate() {
                w[10 + k] = e as u64;
            }
        }
        _ => w[7] = 0,
    }
    bytemuck::cast_slice(&w).to_vec()
}

/// A decoded header: (seq, op code, dtype code, root, axis, extra, shape or None, chunk).
type Raw = (u64, u64, u64, u64, u64, u64, Option<Vec<usize>>, u64);

fn decode(b: &[u8]) -> Option<Raw> {
    let w: Vec<u64> = bytemuck::pod_collect_to_vec(b);
    if w.len() != WORDS || w[0] != MAGIC {
        return None;
    }
    let shape = (w[7] == 1).then(|| {
        let n = (w[8] as usize).min(MAX_DIMS);
        w[10..10 + n].iter().map(|&e| e as usize).collect()
    });
    Some((w[1], w[2], w[3], w[4], w[5], w[6], shape, w[9]))
}

/// The agreed table: every rank's shape (in rank order).
pub(crate) struct Table {
    pub(crate) shapes: Vec<Vec<usize>>,
}

/// Exchanges headers and checks them; `local` is this rank's own error, if its part
/// failed (returned here, after the exchange, so the others learn of it). `rule` checks
/// the shapes of a well-formed table (the same on every rank) and words a disagreement.
pub(crate) fn agree(
    link: &Link,
    rank: usize,
    size: usize,
    head: Head,
    local: Option<Error>,
    rule: impl FnOnce(&[Vec<usize>]) -> std::result::Result<(), String>,
) -> Result<Table> {
    let mine = encode(&head);
    let table: Vec<u8> = if size == 1 {
        mine
    } else if rank == 0 {
        let recvs: Vec<(usize, usize)> = (1..size).map(|r| (r, WORDS * 8)).collect();
        let got = exchange(link, vec![], &recvs, TAG)?;
        let mut all = mine;
        for g in got {
            all.extend_from_slice(&g);
        }
        let sends = (1..size).map(|r| (r, all.clone())).collect();
        exchange(link, sends, &[], TAG)?;
        all
    } else {
        exchange(link, vec![(0, mine)], &[], TAG)?;
        exchange(link, vec![], &[(0, WORDS * 8 * size)], TAG)?.remove(0)
    };
    let heads: Vec<Option<Raw>> = table.chunks(WORDS * 8).map(decode).collect();
    let op = head.op;
    let mismatch = |detail: String| mpi_error(op, MpiErrorKind::Mismatch, detail);
    // The same operation, in the same place of the sequence, on every rank.
    let first = heads[0].clone();
    for (r, h) in heads.iter().enumerate() {
        let (Some(h), Some(f)) = (h, &first) else {
            return Err(mismatch(format!("rank {r} sent a malformed header")));
        };
        if h.1 != f.1 || h.0 != f.0 {
            let name = |c: u64| OPS.get(c as usize).copied().unwrap_or("another operation");
            return Err(mismatch(format!(
                "rank 0 called {} (collective #{}), rank {r} called {} (collective #{})",
                name(f.1),
                f.0,
                name(h.1),
                h.0
            )));
        }
    }
    let heads: Vec<Raw> = heads.into_iter().flatten().collect();
    if let Some(e) = local {
        return Err(e);
    }
    let failed: Vec<usize> = (0..size).filter(|&r| heads[r].6.is_none()).collect();
    if !failed.is_empty() {
        return Err(mpi_error(
            op,
            MpiErrorKind::Remote,
            format!("the part of rank(s) {failed:?} failed there; nothing moved"),
        ));
    }
    for (r, h) in heads.iter().enumerate() {
        let f = &heads[0];
        if h.2 != f.2 {
            return Err(mismatch(format!(
                "rank 0 has dtype code {}, rank {r} code {} (the dtypes differ)",
                f.2, h.2
            )));
        }
        if h.3 != f.3 {
            return Err(mismatch(format!(
                "rank 0 names root {}, rank {r} root {}",
                f.3, h.3
            )));
        }
        if h.4 != f.4 {
            return Err(mismatch(format!(
                "rank 0 names axis {}, rank {r} axis {}",
                f.4, h.4
            )));
        }
        if h.7 != f.7 {
            return Err(mismatch(format!(
                "rank 0 moves chunks of {} bytes, rank {r} of {} (Comm::set_chunk_bytes must agree)",
                f.7, h.7
            )));
        }
        if h.5 != f.5 {
            return Err(mismatch(format!(
                "rank 0 asks for operator {}, rank {r} for {}",
                f.5, h.5
            )));
        }
    }
    let shapes: Vec<Vec<usize>> = heads.into_iter().map(|h| h.6.unwrap_or_default()).collect();
    rule(&shapes).map_err(mismatch)?;
    Ok(Table { shapes })
}

/// Rule: every rank's shape equal.
pub(crate) fn same_shapes(shapes: &[Vec<usize>]) -> std::result::Result<(), String> {
    for (r, s) in shapes.iter().enumerate() {
        if *s != shapes[0] {
            return Err(format!("rank 0 has shape {:?}, rank {r} {s:?}", shapes[0]));
        }
    }
    Ok(())
}

/// Rule: equal shapes except along `axis` (which every shape has).
pub(crate) fn same_but(axis: usize) -> impl Fn(&[Vec<usize>]) -> std::result::Result<(), String> {
    move |shapes| {
        for (r, s) in shapes.iter().enumerate() {
            let f = &shapes[0];
            let fits = s.len() == f.len()
                && axis < s.len()
                && s.iter()
                    .zip(f)
                    .enumerate()
                    .all(|(k, (a, b))| k == axis || a == b);
            if !fits {
                return Err(format!(
                    "rank 0 has shape {f:?}, rank {r} {s:?}: they must agree except along axis {axis}"
                ));
            }
        }
        Ok(())
    }
}
