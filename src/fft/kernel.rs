//! The kernels of shaders/fft.wgsl and shaders/fft_bluestein.wgsl: their `Spec`s (the
//! Stockham passes generated per length), pipeline keys, parameters and launches.

use std::sync::Arc;

use crate::device::{Device, Work};
use crate::dtype::DType;
use crate::error::Result;
use crate::kernel::cache::{Kernel, Key};
use crate::kernel::launch::{Binding, Params};
use crate::kernel::source::Spec;

use super::banks::{wgsl_swizzle, Exchanges, Layout};

const SRC: &str = include_str!("../../shaders/fft.wgsl");
const BLUESTEIN: &str = include_str!("../../shaders/fft_bluestein.wgsl");
const CHIRP: &str = include_str!("../../shaders/fft_chirp.wgsl");
/// Invocations of the elementwise entries (gather, crop, the Bluestein steps).
pub(super) const WG_COPY: usize = 256;
/// Most batch dimensions a launch addresses (shape slots 0..4 of the parameters).
pub(super) const MAX_BATCH_DIMS: usize = 4;

/// One batch dimension of a launch: its extent, the strides of the input and the output
/// (elements) and its four-step twiddle multiplier.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(super) struct Dim {
    pub extent: usize,
    pub s_in: isize,
    pub s_out: isize,
    pub tw: usize,
}

/// Parameters of one dispatch; shaders/fft.wgsl reads them through `batches()`,
/// `inverse()`, `herm()`, `row_len()`, `n_in()`, `n_out()`, `tw_n()`, `s_in()`, `s_out()`,
/// `tw_coarse()`, `tw_fine()`, `tw_shift()`, `scale()` and `batch_offs()`.
#[derive(Debug, Clone, Default)]
pub(super) struct FftParams {
    pub dims: Vec<Dim>,
    pub off_in: usize,
    pub off_out: usize,
    pub s_in: isize,
    pub s_out: isize,
    pub inverse: bool,
    pub herm: usize,
    pub row_len: usize,
    pub n_in: usize,
    pub n_out: usize,
    pub tw_n: usize,
    pub tw_coarse: usize,
    pub tw_fine: usize,
    pub tw_shift: u32,
    /// Bluestein's length n (shaders/fft_chirp.wgsl's `chirp_n()`).
    pub chirp_n: usize,
    pub scale: f64,
}

impl FftParams {
    pub fn batches(&self) -> usize {
        self.dims.iter().map(|d| d.extent).product()
    }

    fn encode(&self, d: DType) -> Params {
        debug_assert!(self.dims.len() <= MAX_BATCH_DIMS);
        let mut p = Params::new(self.batches() as u32);
        p.ndim = self.dims.len() as u32;
        p.aux = [self.inverse as u32, self.herm as u32];
        p.offs = [self.off_in as u32, 0, 0, self.off_out as u32];
        for (k, dim) in self.dims.iter().enumerate() {
            p.shape[k] = dim.extent as u32;
            p.strides[0][k] = dim.s_in as i32 as u32;
            p.strides[1][k] = dim.s_out as i32 as u32;
            p.strides[2][k] = dim.tw as u32;
        }
        p.shape[4] = self.row_len as u32;
        p.shape[5] = self.n_in as u32;
        p.shape[6] = self.n_out as u32;
        p.shape[7] = self.tw_n as u32;
        p.strides[0][7] = self.s_in as i32 as u32;
        p.strides[1][7] = self.s_out as i32 as u32;
        p.strides[2][7] = self.tw_coarse as u32;
        p.strides[2][6] = self.tw_fine as u32;
        p.strides[2][5] = self.tw_shift;
        p.strides[0][4] = self.chirp_n as u32;
        if d == DType::F64 {
            p.scalars::<f64>(&[self.scale])
        } else {
            p.scalars::<f32>(&[self.scale as f32])
        }
    }
}

/// What the input and output bindings hold: complex elements or real ones.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub(super) struct Io {
    pub real_in: bool,
    pub real_out: bool,
}

/// The specialisation shared by every entry: component type `d` (f32 or f64), input and
/// output kinds.
fn base(family: &'static str, d: DType, io: Io, sbuf: usize) -> Spec {
    let t = d.wgsl();
    let c = format!("vec2<{t}>");
    let s = Spec::new(family, SRC)
        .alias("T", t)
        .alias("S", t)
        .alias("SC", t)
        .alias("IN", if io.real_in { t.to_string() } else { c.clone() })
        .alias(
            "OUT",
            if io.real_out {
                t.to_string()
            } else {
                c.clone()
            },
        )
        .alias("SBUF", format!("array<{c}, {sbuf}>"));
    let s = if super::tune::knobs().offs_loop {
        s.function("one_dim", "fn one_dim() -> bool { return false; }")
    } else {
        s
    };
    let s = if io.real_in {
        s.function(
            "read_in",
            "fn read_in(i: u32) -> vec2<T> { return vec2<T>(src[i], T(0)); }",
        )
    } else {
        s
    };
    if io.real_out {
        s.function(
            "write_out",
            "fn write_out(i: u32, v: vec2<T>) { dst[i] = v.x; }",
        )
    } else {
        s
    }
}

/// The radices of the Stockham passes of length `l` (its factors 4, 2, 3, 5, 7, 11, 13,
/// fours first; eights first with `GPUARRAY_FFT_R8`); `None` when `l` has another prime
/// factor. Radix 4 by rule: on the H200 (2026-11-29, four elements an invocation) it was
/// faster than 8 on 8 of 11 shapes (65,536 x 1,024 0.67 against 0.79 ms, 2^24 0.94 against
/// 1.01, complex128 2^24 1.53 against 1.74; slower by up to 6% on 16,384 x 4,096, x 1,009
/// and the 4096^2 fft2).
pub(super) fn radices(mut l: usize) -> Option<Vec<usize>> {
    let mut out = Vec::new();
    let big = radix_rule();
    if big > 4 {
        while l.is_multiple_of(big) {
            out.push(big);
            l /= big;
        }
        for r in [16, 8] {
            while r < big && l.is_multiple_of(r) {
                out.push(r);
                l /= r;
            }
        }
    }
    for r in [4, 2, 3, 5, 7, 11, 13] {
        while l.is_multiple_of(r) {
            out.push(r);
            l /= r;
        }
    }
    (l == 1).then_some(out)
}

/// The largest radix of the Stockham passes (4; 8, 16 or 32 by `GPUARRAY_FFT_RADIX` or
/// `_R8`). On the H200 (2026-11-29, 65,536 x 1,024 complex64, the gathered twiddle reads
/// of then): radix 4 0.645 ms, 8 0.75, 16 1.06, 32 1.65 (16 with 8 elements per
/// invocation 1.04, with two transforms per workgroup 1.57): fewer exchanges do not pay
/// for the registers and the fewer invocations in flight.
pub(super) fn radix_rule() -> usize {
    let k = super::tune::knobs();
    k.radix.unwrap_or(if k.r8 { 8 } else { 4 })
}

/// Elements each invocation of the in-workgroup transform holds. Measured on the H200
/// (2026-11-29, 65,536 transforms of 1,024 complex64): 16 per invocation 1.64 ms, 8 1.07
/// ms, 4 0.80 ms; 262,144 of 256: 16 1.46 ms, 4 0.645 ms (the kernel is bound by how many
/// invocations are in flight, not by its arithmetic or its workgroup memory's banks).
/// Rows of 4,096 (1,024 invocations, one workgroup an SM where a lane holds more than 32
/// registers) with 8 an invocation (512 invocations, `GPUARRAY_FFT_WG=512`): 0.275
/// against 0.210 ms for 4,096 of them (H200, 2026-11-29): 4 kept.
pub(super) const PER_INVOCATION: usize = 4;

/// Invocations of a workgroup holding `elems` elements: [`PER_INVOCATION`] each (a
/// multiple of 32, at least 64), at most `max_inv` (then more each).
pub(super) fn direct_wg(elems: usize, max_inv: usize) -> usize {
    let max_inv = max_inv.clamp(64, 1024);
    match super::tune::knobs().wg {
        // At most 32 values per invocation.
        Some(w) => w.clamp(elems.div_ceil(32).max(1), max_inv),
        None => {
            let e = super::tune::knobs()
                .e
                .unwrap_or(PER_INVOCATION.max(radix_rule()));
            (elems.div_ceil(e).div_ceil(32) * 32).clamp(64, max_inv)
        }
    }
}

/// Elements of `sbuf` for `m` rows of `lp`: one more per 2^`pad` where `pad` > 0.
pub(super) fn sbuf_len(m: usize, lp: usize, pad: u32) -> usize {
    let n = m * lp;
    if pad > 0 {
        n + (n >> pad) + 1
    } else {
        n
    }
}

/// How the transform of `m` rows of length `l` pads its workgroup memory (one element
/// per 2^pad, so that the strided writes of the first exchanges spread over the banks; 0:
/// none), given `cap` elements of workgroup memory: where it fits.
pub(super) fn pad_rule(l: usize, m: usize, lp: usize, cap: usize) -> u32 {
    let want = super::tune::knobs().pad.unwrap_or(0);
    if want > 0 && l > 1 && sbuf_len(m, lp, want) <= cap {
        want
    } else {
        0
    }
}

/// The layout in `sbuf` of `m` transforms of length `l` of complex `d` in a workgroup of
/// `wg` ([`direct_wg`]), `col` the first / last pass's column mapping, within `cap`
/// elements: src/fft/banks.rs's choice (rows `l + 1` apart where several share the
/// workgroup, no swizzle, with `GPUARRAY_FFT_BANKS=0`).
pub(super) fn layout(
    d: DType,
    l: usize,
    m: usize,
    col: [bool; 2],
    wg: usize,
    cap: usize,
) -> Layout {
    let r = radices(l).unwrap_or_default();
    let x = Exchanges {
        elem: 2 * d.size(),
        l,
        m,
        wg,
        col_in: col[0],
        col_out: col[1],
        radices: &r,
    };
    super::banks::choose(x, cap)
}

/// What the in-workgroup transform's first pass loads and last pass stores.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub(super) enum Mode {
    /// The input through the caller's addressing, the output times scale (and the
    /// four-step twiddle); the direction from the parameters.
    Plain,
    /// Bluestein's forward transform: the input times the chirp, the output times the
    /// chirp filter's transform (shaders/fft_chirp.wgsl).
    ChirpIn,
    /// Bluestein's inverse transform: the output times the chirp (conjugated for inverse
    /// transforms) and the scale.
    ChirpOut,
}

/// The in-workgroup transform of length `l`, `m` transforms per workgroup: its Stockham
/// passes generated as straight-line code (src/fft/passes.rs); `col = [col_in, col_out]`:
/// the first / last pass maps neighbouring invocations to neighbouring transforms; `wg`
/// invocations ([`direct_wg`]); `pad`: one element of padding in `sbuf` per 2^pad (0: none);
/// `lay`: the rows' pitch and swizzle ([`layout`]).
#[allow(clippy::too_many_arguments)] // the kernel's specialisation, named
pub(super) fn direct_spec(
    d: DType,
    l: usize,
    m: usize,
    io: Io,
    col: [bool; 2],
    mode: Mode,
    wg: usize,
    pad: u32,
    lay: Layout,
) -> Spec {
    let lp = lay.pitch;
    let shape = super::passes::Shape {
        l,
        m,
        wg,
        lp,
        col_in: col[0],
        col_out: col[1],
        swizzle: lay.swizzle,
    };
    let passes = super::passes::run_passes(shape, &radices(l).unwrap_or_default());
    // Unchecked (no bounds clamps on every global and workgroup access, no loop
    // counters): `sbuf` indices stay below m * lp (+ padding) by construction, the table's
    // below its length, and the global accesses are those of the host's checked views,
    // guarded by `offs`' batch test and n_in / n_out. GPUARRAY_CHECKED=1 restores the checks.
    let s = base("fft", d, io, sbuf_len(m, lp, pad).max(1))
        .unchecked()
        .function("fft_len", format!("fn fft_len() -> u32 {{ return {l}u; }}"))
        .function(
            "per_group",
            format!("fn per_group() -> u32 {{ return {m}u; }}"),
        )
        .function("run_passes", passes);
    let s = if lay.swizzle {
        s.function("sw", wgsl_swizzle(2 * d.size()))
    } else {
        s
    };
    let s = if pad > 0 {
        s.function(
            "sb",
            format!("fn sb(i: u32) -> u32 {{ return i + (i >> {pad}u); }}"),
        )
    } else {
        s
    };
    let s = if super::tune::knobs().tw_sin && d == DType::F32 {
        s.function(
            "twp",
            format!(
                "fn twp(k: u32, j: u32) -> vec2<T> {{ let a = -6.283185307179586 * f32(j) / {l}.0; \
                 let w = vec2<T>(cos(a), sin(a)); if (inverse()) {{ return conj(w); }} return w; }}"
            ),
        )
    } else {
        s
    };
    let (inverse, store) = match mode {
        Mode::Plain => return s,
        Mode::ChirpIn => ("false", "store_filter"),
        Mode::ChirpOut => ("true", "store_chirp"),
    };
    let s = s.include(CHIRP).function(
        "inverse",
        format!("fn inverse() -> bool {{ return {inverse}; }}"),
    );
    let s = if mode == Mode::ChirpIn {
        s.function(
            "load_x",
            "fn load_x(o: vec4<u32>, k: u32) -> vec2<T> { return load_chirp(o, k); }",
        )
    } else {
        s
    };
    s.function(
        "store_x",
        format!("fn store_x(o: vec4<u32>, k: u32, v: vec2<T>) {{ {store}(o, k, v); }}"),
    )
}

/// The copies (`gather`, `crop`) and the Bluestein steps.
pub(super) fn copy_spec(d: DType, io: Io, bluestein: bool) -> Spec {
    let s = base(if bluestein { "fft_bluestein" } else { "fft" }, d, io, 1);
    if bluestein {
        s.include(BLUESTEIN)
    } else {
        s
    }
}

/// Every variant, for the shader validation test.
#[cfg(test)]
pub(crate) fn all_specs() -> Vec<Spec> {
    let mut v = Vec::new();
    for d in [DType::F32, DType::F64] {
        for (real_in, real_out) in [(false, false), (true, false), (false, true)] {
            let io = Io { real_in, real_out };
            v.push(copy_spec(d, io, false));
            v.push(copy_spec(d, io, true));
            for l in [1, 2, 8, 12, 60, 64, 1024, 2310, 4095] {
                let m = (4096 / l).max(1);
                let m = m.min(4096 / (l + 1)).max(1);
                let wg = direct_wg(l * m, 256);
                let lay = super::banks::plain(l, m);
                for col in [[false, false], [true, false], [false, true], [true, true]] {
                    v.push(direct_spec(d, l, m, io, col, Mode::Plain, wg, 0, lay));
                }
                v.push(direct_spec(
                    d,
                    l,
                    m,
                    io,
                    [false; 2],
                    Mode::Plain,
                    wg,
                    3,
                    lay,
                ));
                if super::banks::can_swizzle(2 * d.size(), l) {
                    let sw = Layout {
                        pitch: lay.pitch + 3,
                        swizzle: true,
                    };
                    v.push(direct_spec(d, l, m, io, [true; 2], Mode::Plain, wg, 0, sw));
                    v.push(direct_spec(d, l, m, io, [false; 2], Mode::Plain, wg, 3, sw));
                }
                if !io.real_out {
                    v.push(direct_spec(
                        d,
                        l,
                        m,
                        io,
                        [false; 2],
                        Mode::ChirpIn,
                        wg,
                        0,
                        lay,
                    ));
                }
                if !io.real_in {
                    v.push(direct_spec(
                        d,
                        l,
                        m,
                        io,
                        [false; 2],
                        Mode::ChirpOut,
                        wg,
                        0,
                        lay,
                    ));
                }
            }
        }
    }
    v
}

/// A launch of `entry` (`main`: the direct transform of length `l`, `m` per workgroup,
/// `col` its first / last pass's column mapping).
pub(super) struct Launch {
    pub entry: &'static str,
    pub d: DType,
    pub io: Io,
    pub l: usize,
    pub m: usize,
    pub col: [bool; 2],
    pub mode: Mode,
}

impl Launch {
    fn kernel(&self, dev: &Device, inputs: usize) -> Result<Arc<Kernel>> {
        let bluestein = matches!(self.entry, "chirp_in" | "pointwise" | "chirp_out");
        let max_inv = dev.limits().max_compute_invocations_per_workgroup as usize;
        let wg = if self.entry == "main" {
            direct_wg(self.l * self.m, max_inv)
        } else {
            WG_COPY
        };
        // Complex elements of workgroup memory (`self.d` is the component type). The layout
        // and padding follow from the key's fields and the process's switches: computed
        // only where the kernel is built (the layout's model counts every exchange).
        let cap = dev.limits().max_compute_workgroup_storage_size as usize / (2 * self.d.size());
        let key = Key {
            family: if bluestein { "fft_bluestein" } else { "fft" },
            entry: self.entry,
            variant: format!(
                "{:?}|{}|{}|{}|{}|{}|{}|{:?}",
                self.d,
                self.io.real_in,
                self.io.real_out,
                self.l,
                self.m,
                self.col[0],
                self.col[1],
                self.mode
            ),
            inputs,
            wg: wg as u32,
            ndim: 0,
            per: 0,
        };
        let (d, io, l, m, col, mode) = (self.d, self.io, self.l, self.m, self.col, self.mode);
        dev.kernel(key, || {
            if l == 0 {
                copy_spec(d, io, bluestein)
            } else {
                let lay = layout(d, l, m, col, wg, cap);
                let pad = pad_rule(l, m, lay.pitch, cap);
                direct_spec(d, l, m, io, col, mode, wg, pad, lay)
            }
        })
    }

    /// Records the dispatch over `items` work items (`main`: over the batch's workgroups).
    pub fn run(
        &self,
        dev: &Device,
        p: &FftParams,
        inputs: &[Binding<'_>],
        out: Binding<'_>,
        items: usize,
    ) -> Result<()> {
        let k = self.kernel(dev, inputs.len())?;
        let work = if self.entry == "main" {
            p.batches().div_ceil(self.m) * k.wg as usize
        } else {
            items
        };
        if work == 0 {
            return Ok(());
        }
        if !super::tune::knobs().profile {
            return dev.launch(&k, &p.encode(self.d), inputs, out, Work::Items(work as u32));
        }
        let t0 = dev.record_event()?;
        dev.launch(&k, &p.encode(self.d), inputs, out, Work::Items(work as u32))?;
        let t1 = dev.record_event()?;
        let ms = t0.elapsed_ms(&t1)?;
        let bytes = p.batches() * p.row_len.max(p.n_out) * 2 * 2 * self.d.size();
        eprintln!(
            "fft dispatch {} {:?} l={} m={} wg={} batches={} col={:?} tw_n={}: {ms:.4} ms ({:.0} GB/s at 1 r+w)",
            self.entry,
            self.d,
            self.l,
            self.m,
            k.wg,
            p.batches(),
            self.col,
            p.tw_n,
            bytes as f64 / ms / 1e6
        );
        Ok(())
    }
}
