//! `GPUARRAY_DIST_PROFILE` ([`Diagnostics::dist_profile`](crate::config::Diagnostics)):
//! the time of each stage of a pipelined collective, summed over its chunks and printed
//! by rank 0 to stderr, one line per call. The download and upload threads' stages overlap
//! the others; the waits (`wait`: this thread waiting for a downloaded chunk, `handoff`:
//! for the upload thread to take one, `drain`: for the last uploads) show which stage
//! bounds the pipeline.

use std::sync::atomic::{AtomicU64, Ordering};
use std::time::Instant;

/// The stages timed.
#[derive(Debug, Clone, Copy)]
pub(crate) enum Stage {
    /// The download thread: device to host (its whole time per chunk).
    Download = 0,
    /// This thread waiting for the next downloaded chunk.
    Wait,
    /// MPI: the reduce-scatter's sends and receives (through the shared-memory window:
    /// the copy of the chunk into it and the first barrier).
    Scatter,
    /// The host fold of this rank's segment.
    Fold,
    /// MPI: the combined segments sent where they are wanted (all-gather, or to the root;
    /// through the window: the second barrier and the copy out of it), or the pieces of a
    /// gather, scatter or alltoall.
    Gather,
    /// This thread waiting for the upload thread to take a chunk.
    Handoff,
    /// The upload thread: host to device (its whole time per chunk).
    Upload,
    /// Waiting for the upload thread after the last chunk.
    Drain,
}

const NAMES: [&str; 8] = [
    "download", "wait", "scatter", "fold", "gather", "handoff", "upload", "drain",
];

/// Stage times of one call, shared by its threads.
pub(crate) struct Profile {
    on: bool,
    op: &'static str,
    t0: Instant,
    ns: [AtomicU64; 8],
    chunks: AtomicU64,
}

impl Profile {
    /// A profile that records only when `on`.
    pub(crate) fn new(on: bool, op: &'static str) -> Profile {
        Profile {
            on,
            op,
            t0: Instant::now(),
            ns: Default::default(),
            chunks: AtomicU64::new(0),
        }
    }

    /// Runs `f`, adding its time to `stage`.
    pub(crate) fn time<R>(&self, stage: Stage, f: impl FnOnce() -> R) -> R {
        if !self.on {
            return f();
        }
        let t = Instant::now();
        let r = f();
        self.ns[stage as usize].fetch_add(t.elapsed().as_nanos() as u64, Ordering::Relaxed);
        r
    }

    /// Counts one chunk done.
    pub(crate) fn chunk(&self) {
        self.chunks.fetch_add(1, Ordering::Relaxed);
    }

    /// The line printed for `bytes` moved over `ranks` ranks.
    pub(crate) fn line(&self, bytes: usize, ranks: usize) -> String {
        let total = self.t0.elapsed().as_secs_f64();
        let chunks = self.chunks.load(Ordering::Relaxed).max(1);
        let mut s = format!(
            "dist profile: {} ranks={ranks} bytes={bytes} chunks={chunks} total_ms={:.3} \
             algbw_GBps={:.3} | ms per chunk:",
            self.op,
            total * 1e3,
            bytes as f64 / total.max(1e-12) / 1e9
        );
        for (name, ns) in NAMES.iter().zip(&self.ns) {
            let ms = ns.load(Ordering::Relaxed) as f64 / 1e6 / chunks as f64;
            s.push_str(&format!(" {name}={ms:.3}"));
        }
        s
    }

    /// Prints [`Profile::line`] to stderr when on.
    pub(crate) fn report(&self, bytes: usize, ranks: usize) {
        if self.on {
            eprintln!("{}", self.line(bytes, ranks));
        }
    }
}

#[cfg(test)]
mod tests {
    use super::{Profile, Stage};

    #[test]
    fn sums_stages_per_chunk_only_when_on() {
        let p = Profile::new(true, "allreduce");
        for _ in 0..2 {
            p.time(Stage::Fold, || {
                std::thread::sleep(std::time::Duration::from_millis(5))
            });
            p.chunk();
        }
        let line = p.line(1 << 20, 2);
        assert!(line.starts_with("dist profile: allreduce ranks=2 bytes=1048576 chunks=2"));
        let fold: f64 = line
            .split(" fold=")
            .nth(1)
            .unwrap()
            .split(' ')
            .next()
            .unwrap()
            .parse()
            .unwrap();
        assert!((4.5..100.0).contains(&fold), "{line}");
        let off = Profile::new(false, "allreduce");
        off.time(Stage::Fold, || {
            std::thread::sleep(std::time::Duration::from_millis(2))
        });
        assert!(off.line(8, 2).contains(" fold=0.000"));
    }
}
