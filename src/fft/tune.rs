//! Switches of the in-workgroup kernel for measuring it on a device (read once from the
//! environment; unset: the library's rules): `GPUARRAY_FFT_M` transforms per workgroup,
//! `GPUARRAY_FFT_WG` invocations per workgroup, `GPUARRAY_FFT_PAD` (s: one element
//! of workgroup-memory padding per 2^s; 0: none), `GPUARRAY_FFT_TWSIN` (1) twiddles of the f32
//! passes computed by `sin` / `cos` rather than loaded (less accurate: for timing only),
//! and `GPUARRAY_FFT_PROFILE` (1) each dispatch's GPU time printed to stderr (every
//! dispatch then waits for its timestamps); `GPUARRAY_FFT_E` elements per invocation,
//! `GPUARRAY_FFT_ELEMS` elements per workgroup of row transforms, `GPUARRAY_FFT_COLM`
//! transforms per workgroup of column transforms, `GPUARRAY_FFT_COLCAP` the longest
//! column of a four-step plan, `GPUARRAY_FFT_R8` (1) radix 8 where the length allows,
//! rather than the rule's radix 4, `GPUARRAY_FFT_RADIX` (8, 16 or 32) the largest radix
//! (16 and 32 composed of 4s and 8s in registers), elements per invocation then the radix
//! unless `_E` says; `GPUARRAY_FFT_ROWCAP` the longest rows of a four-step plan (longer ones
//! split again); `GPUARRAY_FFT_RUN` (0: the earlier split of long transforms; 64 or 128:
//! passes whose strided runs reach that many bytes, src/fft/runs.rs), `GPUARRAY_FFT_RUNMIN`
//! (bytes of a transform from which that split applies), `GPUARRAY_FFT_ORDER` (0: the
//! earlier batch order of a split's last pass), `GPUARRAY_FFT_RUNM` (transforms per
//! workgroup of that split's strided passes, rounded down to a power of two),
//! `GPUARRAY_FFT_BANKS` (0: the earlier layout of workgroup memory, rows `l + 1` apart where
//! several share it and no swizzle; unset or 1: src/fft/banks.rs's layout), `GPUARRAY_FFT_TWREC`
//! (1: each pass's twiddles as powers of one loaded W^t, one load a butterfly rather than
//! r - 1: less traffic on the data path workgroup memory shares, about one rounding more; on
//! the H200 (2026-11-29) within 2% of the loaded twiddles: off by default),
//! `GPUARRAY_FFT_OFFS` (0: the in-workgroup kernel's batch offsets through the loop of two
//! divisions a dimension also for one-dimensional batches, as before). (Read through `config::switch`: the options module
//! reads the environment.)

use std::sync::OnceLock;

/// The switches; `None` / `false`: the rule.
#[derive(Debug, Default)]
pub(super) struct Knobs {
    pub m: Option<usize>,
    pub wg: Option<usize>,
    pub pad: Option<u32>,
    pub tw_sin: bool,
    pub profile: bool,
    /// `GPUARRAY_FFT_E`: elements per invocation.
    pub e: Option<usize>,
    /// `GPUARRAY_FFT_ELEMS`: elements per workgroup of row transforms.
    pub elems: Option<usize>,
    /// `GPUARRAY_FFT_COLM`: transforms per workgroup of column transforms.
    pub colm: Option<usize>,
    /// `GPUARRAY_FFT_COLCAP`: longest column of a four-step plan.
    pub colcap: Option<usize>,
    /// `GPUARRAY_FFT_R8` (1): radix 8 where the length allows, rather than 4.
    pub r8: bool,
    /// `GPUARRAY_FFT_RADIX`: the largest radix (8, 16, 32).
    pub radix: Option<usize>,
    /// `GPUARRAY_FFT_ROWCAP`: longest rows of a four-step plan.
    pub rowcap: Option<usize>,
    /// `GPUARRAY_FFT_RUN`: bytes of the runs of a long split's passes (0: the earlier rule).
    pub run: Option<usize>,
    /// `GPUARRAY_FFT_RUNMIN`: bytes of a transform from which the run split applies.
    pub runmin: Option<usize>,
    /// `GPUARRAY_FFT_ORDER` (0): the earlier batch order of a split's last pass.
    pub order: Option<usize>,
    /// `GPUARRAY_FFT_RUNM`: transforms per workgroup of a run split's strided passes.
    pub runm: Option<usize>,
    /// `GPUARRAY_FFT_BANKS` (0: the earlier layout of workgroup memory; else, and unset,
    /// src/fft/banks.rs's pitch and swizzle).
    pub banks: bool,
    /// `GPUARRAY_FFT_TWREC` (1): each pass's twiddles W^(2t), W^(3t), ... as products of
    /// W^t (one table load a butterfly) rather than loaded.
    pub tw_rec: bool,
    /// `GPUARRAY_FFT_OFFS` (0): the in-workgroup kernel's batch offsets through the loop
    /// over the batch dimensions (two divisions each) also where there is one dimension.
    pub offs_loop: bool,
}

fn num(name: &str) -> Option<usize> {
    crate::config::switch(name)
}

/// The process's switches.
pub(super) fn knobs() -> &'static Knobs {
    static K: OnceLock<Knobs> = OnceLock::new();
    K.get_or_init(|| Knobs {
        m: num("GPUARRAY_FFT_M").filter(|&m| m > 0),
        wg: num("GPUARRAY_FFT_WG").filter(|&w| w > 0),
        pad: num("GPUARRAY_FFT_PAD").map(|p| p.min(8) as u32),
        tw_sin: num("GPUARRAY_FFT_TWSIN").is_some_and(|p| p != 0),
        profile: num("GPUARRAY_FFT_PROFILE").is_some_and(|p| p != 0),
        e: num("GPUARRAY_FFT_E").filter(|&e| (1..=32).contains(&e)),
        elems: num("GPUARRAY_FFT_ELEMS").filter(|&e| e > 0),
        colm: num("GPUARRAY_FFT_COLM").filter(|&e| e > 0),
        colcap: num("GPUARRAY_FFT_COLCAP").filter(|&e| e > 1),
        r8: num("GPUARRAY_FFT_R8").is_some_and(|p| p != 0),
        rowcap: num("GPUARRAY_FFT_ROWCAP").filter(|&e| e > 1),
        run: num("GPUARRAY_FFT_RUN").filter(|r| [0, 64, 128].contains(r)),
        runmin: num("GPUARRAY_FFT_RUNMIN"),
        order: num("GPUARRAY_FFT_ORDER"),
        runm: num("GPUARRAY_FFT_RUNM").filter(|&m| m > 0),
        radix: num("GPUARRAY_FFT_RADIX").filter(|r| [8, 16, 32].contains(r)),
        banks: num("GPUARRAY_FFT_BANKS") != Some(0),
        tw_rec: num("GPUARRAY_FFT_TWREC").is_some_and(|p| p != 0),
        offs_loop: num("GPUARRAY_FFT_OFFS") == Some(0),
    })
}
