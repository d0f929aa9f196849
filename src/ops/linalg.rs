//! Matrix products: `matmul`, `dot`, `outer`, `trace`. Host side of shaders/linalg.wgsl, of
//! the staged cooperative-matrix f16 kernel that src/ops/linalg_coop.rs generates, and of
//! its unstaged predecessor in shaders/linalg_coop.wgsl (`GPUARRAY_COOP_VARIANT=legacy`).
//!
//! Every product becomes one batched `C[z] = A[z] @ B[z]` over contiguous output. Each
//! operand is read in place when one of its two matrix dimensions has stride 1 (row-major,
//! or a transposed view); other layouts are copied first. Tiles (workgroup tile BM x BN x
//! BK, and TM x TN outputs per invocation) are override constants: small problems take
//! small tiles, large ones the configuration that a timed trial on first use found fastest
//! on this adapter (cached for the process). f16 products run on cooperative matrices
//! (tensor cores) where the adapter has them and the sizes are multiples of 16, else on the
//! tiled kernel with f32 accumulation.

use std::collections::HashMap;
use std::sync::Mutex;
use std::time::Instant;

use crate::array::Array;
use crate::device::Work;
use crate::device::{lock, Device};
use crate::dtype::{DType, Element};
use crate::error::{Error, Result};
use crate::kernel::cache::Key;
use crate::kernel::launch::{Binding, Params, MAX_DIMS, MAX_GROUPS};
use crate::kernel::source::Spec;
use crate::shape::{broadcast_shapes, collapse};

use super::linalg_coop::{self, CoopCfg};

const SRC: &str = include_str!("../../shaders/linalg.wgsl");
const COOP_SRC: &str = include_str!("../../shaders/linalg_coop.wgsl");

/// The tiling of the `matmul` kernel: a BM x BN tile of C per workgroup, K in steps of BK,
/// TM x TN outputs per invocation.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub(crate) struct Tiles {
    pub bm: u32,
    pub bn: u32,
    pub bk: u32,
    pub tm: u32,
    pub tn: u32,
}

impl Tiles {
    const fn new(bm: u32, bn: u32, bk: u32, tm: u32, tn: u32) -> Tiles {
        Tiles { bm, bn, bk, tm, tn }
    }

    /// Invocations per workgroup.
    fn wg(self) -> u32 {
        (self.bm / self.tm) * (self.bn / self.tn)
    }

    /// Whether the shader's fixed register arrays hold this tiling (MAX_ACC, MAX_LOAD) and
    /// its groups of 4 rows and columns divide the tile evenly.
    fn valid(self) -> bool {
        let (mv, nv) = (self.tm / 4, self.tn / 4);
        let wg = self.wg();
        matches!(self.tm, 4 | 8)
            && matches!(self.tn, 4 | 8 | 16)
            && self.tm * nv <= 16
            && self.bk.is_multiple_of(4)
            && self.bm.is_multiple_of(4 * mv)
            && self.bn.is_multiple_of(4 * nv)
            && self.bm.is_multiple_of(self.tm)
            && self.bn.is_multiple_of(self.tn)
            && self.bm * self.bk / 4 <= 8 * wg
            && self.bn * self.bk / 4 <= 8 * wg
    }

    /// Whether the adapter runs it: invocations and workgroup memory for element size `acc`.
    fn fits(self, dev: &Device, acc: usize) -> bool {
        let l = dev.limits();
        let smem = (self.bm + self.bn) as usize * self.bk as usize * acc;
        self.valid()
            && self.wg() <= l.max_compute_invocations_per_workgroup
            && smem <= l.max_compute_workgroup_storage_size as usize
    }
}

/// Large tiles: 64 outputs per invocation, 256 invocations.
const LARGE: Tiles = Tiles::new(128, 128, 16, 8, 8);
/// Medium tiles for problems with too few large tiles to fill the GPU.
const MEDIUM: Tiles = Tiles::new(64, 64, 16, 4, 4);
/// Small tiles for small matrices and matrix-vector products.
const SMALL: Tiles = Tiles::new(32, 32, 16, 4, 4);

/// The configurations a trial compares on large problems.
const CANDIDATES: [Tiles; 5] = [
    LARGE,
    Tiles::new(128, 128, 32, 8, 8),
    Tiles::new(128, 64, 16, 8, 4),
    Tiles::new(64, 128, 16, 4, 8),
    MEDIUM,
];

/// Problems of at least this many multiply-adds take the trial's configuration.
const TRIAL_MIN_FMAS: f64 = (1u64 << 30) as f64;
/// Workgroups below which a problem takes smaller tiles.
const MIN_WORKGROUPS: usize = 64;

/// Trial results by (adapter name, element type, size class).
type TrialKey = (String, DType, u32);
/// The fastest configuration each trial found.
static TUNED: Mutex<Option<HashMap<TrialKey, Tiles>>> = Mutex::new(None);

/// A configuration forced through `GPUARRAY_MATMUL_TILES=BM,BN,BK,TM,TN` (for tuning).
fn forced_tiles() -> Option<Tiles> {
    let s = crate::env::var("GPUARRAY_MATMUL_TILES")?;
    let v: Vec<u32> = s.split(',').filter_map(|x| x.trim().parse().ok()).collect();
    match v[..] {
        [bm, bn, bk, tm, tn] => Some(Tiles::new(bm, bn, bk, tm, tn)).filter(|t| t.valid()),
        _ => None,
    }
}

fn verbose() -> bool {
    crate::env::var("GPUARRAY_MATMUL_VERBOSE").is_some()
}

/// Bytes of one workgroup-tile element: the accumulator type.
fn acc_size(d: DType) -> usize {
    match d {
        DType::F16 => 4,
        d => d.size(),
    }
}

/// One operand of a batched product as the kernel reads it.
struct Operand<'a> {
    binding: Binding<'a>,
    offset: usize,
    /// The matrix is stored with its first dimension contiguous (a transposed view).
    trans: bool,
    /// Stride along the non-contiguous matrix dimension.
    ld: usize,
    /// Strides of the batch dimensions, broadcast to the output's batch shape.
    batch: Vec<usize>,
    /// Vec4 loads are safe: contiguous extent, `ld`, offset and batch strides multiples of 4.
    vec: bool,
}

/// How the kernel may read a matrix of `rows x cols` with strides `(sr, sc)`: `Some((trans,
/// ld))` when one dimension has stride 1 (or extent 1), preferring the layout that allows
/// vec4 loads.
fn layout_of(rows: usize, cols: usize, sr: usize, sc: usize) -> Option<(bool, usize)> {
    // Row-major: columns contiguous; the row stride matters only with several rows.
    let row_major = (cols == 1 || sc == 1).then_some((false, if rows == 1 { 0 } else { sr }));
    let col_major = (rows == 1 || sr == 1).then_some((true, if cols == 1 { 0 } else { sc }));
    let aligned = |(trans, ld): (bool, usize)| {
        let ext = if trans { rows } else { cols };
        ext.is_multiple_of(4) && ld.is_multiple_of(4)
    };
    match (row_major, col_major) {
        (Some(r), Some(c)) if !aligned(r) && aligned(c) => Some(c),
        (Some(r), _) => Some(r),
        (None, c) => c,
    }
}

/// `x` (at least 2-D), copied to contiguous memory when neither matrix dimension has
/// stride 1.
fn prepare<T: Element>(x: &Array<T>) -> Result<Array<T>> {
    let n = x.ndim();
    let (r, c) = (x.shape[n - 2], x.shape[n - 1]);
    if layout_of(r, c, x.strides[n - 2], x.strides[n - 1]).is_some() {
        Ok(x.clone())
    } else {
        x.contiguous()
    }
}

/// `x` (prepared) as an operand over the output's batch shape `batch`.
fn operand<'a, T: Element>(x: &'a Array<T>, batch: &[usize]) -> Operand<'a> {
    let n = x.ndim();
    let (r, c) = (x.shape[n - 2], x.shape[n - 1]);
    let (trans, ld) = layout_of(r, c, x.strides[n - 2], x.strides[n - 1])
        .expect("prepare made the operand readable");
    // Batch strides broadcast to the output's batch shape (0 along broadcast dimensions).
    let lead = batch.len() - (n - 2);
    let mut strides = vec![0; batch.len()];
    for d in 0..n - 2 {
        if x.shape[d] != 1 {
            strides[lead + d] = x.strides[d];
        }
    }
    let ext = if trans { r } else { c };
    let vec = ext.is_multiple_of(4)
        && ld.is_multiple_of(4)
        && x.offset.is_multiple_of(4)
        && strides.iter().all(|s| s.is_multiple_of(4));
    Operand {
        binding: x.binding(),
        offset: x.offset,
        trans,
        ld,
        batch: strides,
        vec,
    }
}

/// The source of the tiled kernel for element type `d` (f16 accumulates in f32), with
/// vec4 loads of A and/or B.
fn spec(d: DType, va: bool, vb: bool, tiles: Tiles, ta: bool, tb: bool) -> Spec {
    let acc = if d == DType::F16 { DType::F32 } else { d };
    let s = d.wgsl();
    let vector = |name: &str, buf: &str| {
        format!(
            "fn fetch_{name}(e: u32, cnt: u32) -> vec4<ACC> {{ if (cnt < 4u) {{ return vec4<ACC>(); }} return vec4<ACC>({buf}[e / 4u]); }}"
        )
    };
    let mut spec = Spec::new("linalg", SRC)
        .scalar(d)
        .alias("ACC", acc.wgsl())
        .alias("VA", if va { format!("vec4<{s}>") } else { s.into() })
        .alias("VB", if vb { format!("vec4<{s}>") } else { s.into() })
        .constant("BM", tiles.bm)
        .constant("BN", tiles.bn)
        .constant("BK", tiles.bk)
        .constant("TM", tiles.tm)
        .constant("TN", tiles.tn)
        .constant("TA", ta as u32)
        .constant("TB", tb as u32)
        .unchecked();
    if va {
        spec = spec.function("fetch_a", vector("a", "a")).function(
            "lane_a",
            "fn lane_a(k: u32) -> ACC { return ACC(a[k / 4u][k % 4u]); }",
        );
    }
    if vb {
        spec = spec.function("fetch_b", vector("b", "b"));
    }
    spec
}

fn coop_spec(ta: bool, tb: bool) -> Spec {
    Spec::new("linalg", COOP_SRC)
        .scalar(DType::F16)
        .constant("TA", ta as u32)
        .constant("TB", tb as u32)
        .unchecked()
}

pub(crate) fn coop_staged_spec(cfg: CoopCfg, ta: bool, tb: bool) -> Spec {
    Spec::new("linalg", linalg_coop::source(cfg, ta, tb))
        .scalar(DType::F16)
        .unchecked()
}

/// Every variant, for the shader validation test.
#[cfg(test)]
pub(crate) fn all_specs() -> Vec<Spec> {
    let mut specs = Vec::new();
    for &d in &DType::ALL {
        for (va, vb) in [(false, false), (true, false), (false, true), (true, true)] {
            specs.push(spec(d, va, vb, LARGE, false, true));
        }
    }
    specs.push(coop_spec(false, false));
    for cfg in COOP_DEFAULTS {
        for (ta, tb) in [(false, false), (true, false), (false, true), (true, true)] {
            specs.push(coop_staged_spec(cfg, ta, tb));
        }
    }
    specs
}

/// A product ready to launch: operands, sizes, batch layout.
struct Product<'a> {
    a: Operand<'a>,
    b: Operand<'a>,
    m: usize,
    n: usize,
    k: usize,
    /// Collapsed batch shape and the operands' strides along it.
    batch_shape: Vec<usize>,
    batches: usize,
}

impl Product<'_> {
    fn params(&self) -> Params {
        let (shape, strides) = collapse(&self.batch_shape, &[&self.a.batch, &self.b.batch]);
        let mut p = Params::new(self.batches as u32).layout(&shape, &strides);
        p.offs[0] = self.a.offset as u32;
        p.offs[1] = self.b.offset as u32;
        p.strides[2][..5].copy_from_slice(&[
            self.m as u32,
            self.n as u32,
            self.k as u32,
            self.a.ld as u32,
            self.b.ld as u32,
        ]);
        p
    }

    fn fmas(&self) -> f64 {
        self.m as f64 * self.n as f64 * self.k as f64 * self.batches as f64
    }
}

/// Records the dispatches of one product into `out` with the given kernel and tiles,
/// splitting grids beyond [`MAX_GROUPS`] workgroups per dimension.
fn dispatch(
    dev: &Device,
    kernel: &crate::kernel::cache::Kernel,
    prod: &Product<'_>,
    out: Binding<'_>,
    (bm, bn): (u32, u32),
) -> Result<()> {
    let base = prod.params();
    let gx = prod.n.div_ceil(bn as usize);
    let gy = prod.m.div_ceil(bm as usize);
    let gz = prod.batches;
    let step = MAX_GROUPS as usize;
    for z in (0..gz).step_by(step) {
        for y in (0..gy).step_by(step) {
            for x in (0..gx).step_by(step) {
                let mut p = base;
                p.aux = [y as u32, x as u32];
                p.strides[2][5] = z as u32;
                let grid = [
                    (gx - x).min(step) as u32,
                    (gy - y).min(step) as u32,
                    (gz - z).min(step) as u32,
                ];
                dev.launch(
                    kernel,
                    &p,
                    &[prod.a.binding, prod.b.binding],
                    out,
                    Work::Groups(grid),
                )?;
            }
        }
    }
    Ok(())
}

fn run_tiled<T: Element>(
    dev: &Device,
    prod: &Product<'_>,
    out: &Array<T>,
    tiles: Tiles,
) -> Result<()> {
    let (a, b) = (&prod.a, &prod.b);
    let key = Key {
        family: "linalg",
        entry: "matmul",
        variant: format!(
            "{}|{}{}|{}{}|{tiles:?}",
            T::DTYPE,
            a.vec as u8,
            b.vec as u8,
            a.trans as u8,
            b.trans as u8
        ),
        inputs: 2,
        wg: tiles.wg(),
        ndim: 0,
        per: 0,
    };
    let kernel = dev.kernel(key, || {
        spec(T::DTYPE, a.vec, b.vec, tiles, a.trans, b.trans)
    })?;
    dispatch(dev, &kernel, prod, out.binding(), (tiles.bm, tiles.bn))
}

/// Whether the cooperative-matrix kernel takes this f16 product.
fn coop_eligible(dev: &Device, prod: &Product<'_>) -> bool {
    let info = dev.info();
    let aligned = |x: &Operand<'_>| {
        x.offset.is_multiple_of(8)
            && x.ld.is_multiple_of(8)
            && x.batch.iter().all(|s| s.is_multiple_of(8))
    };
    dev.has_coop_matrix()
        && !crate::env::is("GPUARRAY_COOP", "0")
        && info.subgroup_min_size == 32
        && info.subgroup_max_size == 32
        && dev.limits().max_compute_invocations_per_workgroup >= 256
        && [prod.m, prod.n, prod.k]
            .iter()
            .all(|&d| d > 0 && d.is_multiple_of(16))
        && aligned(&prod.a)
        && aligned(&prod.b)
}

/// Whether the coop kernel failed to compile on a device (adapter name): then f16 takes
/// the tiled kernel.
static COOP_BROKEN: Mutex<Vec<String>> = Mutex::new(Vec::new());

/// The staged cooperative-matrix configuration: `GPUARRAY_COOP_VARIANT` (`legacy` for the
/// unstaged kernel of shaders/linalg_coop.wgsl, or `SGMxSGN:FMxFN:BK[:STAGES[:DEPTH]]`, with
/// `GPUARRAY_COOP_UNIT` 4 or 8 and `GPUARRAY_COOP_EPI` 0 or 1), else the default.
/// `None`: the legacy kernel.
fn coop_cfg(dev: &Device, prod: &Product<'_>) -> Option<CoopCfg> {
    let (ta, tb) = (prod.a.trans, prod.b.trans);
    // Large tiles only where they give at least ~2 workgroups per H100 SM (132): at 1024
    // the 128 x 128 tiles took 0.047 ms, the 128 x 256 ones 0.068 ms.
    let groups = |c: &CoopCfg| {
        prod.m.div_ceil(c.bm() as usize) * prod.n.div_ceil(c.bn() as usize) * prod.batches
    };
    let fits = |c: &CoopCfg| {
        c.valid()
            && (c.bm() * c.bn() <= 128 * 128 || groups(c) >= 256)
            && c.wg() <= dev.limits().max_compute_invocations_per_workgroup
            && c.shared_bytes(ta, tb) <= dev.limits().max_compute_workgroup_storage_size
    };
    let var = crate::env::var("GPUARRAY_COOP_VARIANT").unwrap_or_default();
    if var == "legacy" {
        return None;
    }
    let env = |k: &'static str| crate::env::var(k).and_then(|v| v.parse::<u32>().ok());
    let tweak = |c: CoopCfg| CoopCfg {
        unit: env("GPUARRAY_COOP_UNIT").unwrap_or(c.unit),
        epi: env("GPUARRAY_COOP_EPI").map_or(c.epi, |e| e.min(1)),
        ..c
    };
    parse_variant(var)
        .into_iter()
        .chain(COOP_DEFAULTS.iter().copied())
        .map(tweak)
        .find(fits)
}

/// `SGMxSGN:FMxFN:BK[:STAGES[:DEPTH]]` (`GPUARRAY_COOP_VARIANT`); `None` when malformed.
/// Whether the configuration is usable is for [`CoopCfg::valid`] and the adapter's limits.
fn parse_variant(v: &str) -> Option<CoopCfg> {
    let n: Vec<u32> = v
        .split([':', 'x'])
        .map(|x| x.trim().parse().ok())
        .collect::<Option<_>>()?;
    if !(5..=7).contains(&n.len()) {
        return None;
    }
    let c = CoopCfg::new(n[0], n[1], n[2], n[3], n[4]);
    Some(CoopCfg {
        stages: n.get(5).copied().unwrap_or(c.stages),
        depth: n.get(6).copied().unwrap_or(c.depth),
        ..c
    })
}

/// Staged configurations in order of preference (first that fits the adapter).
/// On the H100 (2026-11-22, 4096^3): 128 x 256 tiles of 16 subgroups with 2 x 4 fragments,
/// BK = 32 in one stage, loads two steps ahead, 16-byte loads: 0.63 ms (version 3's 8
/// subgroups of 4 x 4 fragments, BK = 16 in two stages: 1.23 ms). 1024^3 (too few large
/// tiles): 64 x 128 tiles of 8 subgroups with 2 x 2 fragments, 0.027-0.036 ms.
const COOP_DEFAULTS: [CoopCfg; 3] = [
    CoopCfg {
        stages: 1,
        depth: 2,
        unit: 8,
        ..CoopCfg::new(4, 4, 2, 4, 32)
    },
    CoopCfg {
        stages: 1,
        depth: 2,
        ..CoopCfg::new(2, 4, 2, 2, 32)
    },
    CoopCfg::new(2, 2, 2, 2, 32),
];

fn run_coop<T: Element>(dev: &Device, prod: &Product<'_>, out: &Array<T>) -> Result<bool> {
    let name = &dev.info().name;
    if lock(&COOP_BROKEN).contains(name) {
        return Ok(false);
    }
    let (ta, tb) = (prod.a.trans, prod.b.trans);
    let cfg = coop_cfg(dev, prod);
    let key = Key {
        family: "linalg",
        entry: "matmul_coop",
        variant: format!("f16|{}{}|{cfg:?}", ta as u8, tb as u8),
        inputs: 2,
        wg: cfg.map_or(256, |c| c.wg()),
        ndim: 0,
        per: 0,
    };
    let kernel = match dev.kernel(key, || {
        if verbose() {
            eprintln!("gpuarray: coop matmul {cfg:?} ta={ta} tb={tb}");
        }
        match cfg {
            Some(c) => coop_staged_spec(c, ta, tb),
            None => coop_spec(ta, tb),
        }
    }) {
        Ok(k) => k,
        Err(e) => {
            log::warn!("gpuarray: cooperative-matrix matmul unavailable, using tiles: {e}");
            if verbose() {
                eprintln!("gpuarray: cooperative-matrix matmul unavailable: {e}");
            }
            lock(&COOP_BROKEN).push(name.clone());
            return Ok(false);
        }
    };
    let tile = cfg.map_or((128, 128), |c| (c.bm(), c.bn()));
    dispatch(dev, &kernel, prod, out.binding(), tile)?;
    Ok(true)
}

/// The tiles for a product: forced, tuned (large problems), or by size.
fn choose<T: Element>(dev: &Device, prod: &Product<'_>, out: &Array<T>) -> Result<Tiles> {
    let acc = acc_size(T::DTYPE);
    if let Some(t) = forced_tiles().filter(|t| t.fits(dev, acc)) {
        return Ok(t);
    }
    if T::DTYPE == DType::F64 || T::DTYPE.size() > 4 {
        return Ok(if MEDIUM.fits(dev, acc) { MEDIUM } else { SMALL });
    }
    let workgroups =
        |t: Tiles| prod.m.div_ceil(t.bm as usize) * prod.n.div_ceil(t.bn as usize) * prod.batches;
    let large = workgroups(LARGE);
    if prod.fmas() >= TRIAL_MIN_FMAS && large >= MIN_WORKGROUPS {
        // Size classes by large-tile workgroups (a 1024^2 output has 64, a 4096^2 one
        // 1024): the best tiles differ between a partly and a fully occupied GPU.
        let class = match large {
            ..=511 => 0,
            512..=2047 => 1,
            _ => 2,
        };
        return tuned(dev, prod, out, class);
    }
    for t in [LARGE, MEDIUM] {
        if t.fits(dev, acc) && workgroups(t) >= MIN_WORKGROUPS {
            return Ok(t);
        }
    }
    Ok(SMALL)
}

/// The trial's configuration for this adapter, element type and size class, running the
/// trial on this product the first time: each candidate once to compile and warm up, then timed twice.
fn tuned<T: Element>(
    dev: &Device,
    prod: &Product<'_>,
    out: &Array<T>,
    class: u32,
) -> Result<Tiles> {
    let key = (dev.info().name.clone(), T::DTYPE, class);
    if let Some(t) = lock(&TUNED).as_ref().and_then(|m| m.get(&key)) {
        return Ok(*t);
    }
    let acc = acc_size(T::DTYPE);
    let mut best: Option<(f64, Tiles)> = None;
    for t in CANDIDATES.iter().copied().filter(|t| t.fits(dev, acc)) {
        run_tiled(dev, prod, out, t)?;
        dev.synchronize()?;
        let mut time = f64::INFINITY;
        for _ in 0..2 {
            let t0 = Instant::now();
            run_tiled(dev, prod, out, t)?;
            dev.synchronize()?;
            time = time.min(t0.elapsed().as_secs_f64());
        }
        if verbose() {
            eprintln!(
                "gpuarray matmul trial {}: {t:?} {:.3} ms, {:.2} TFLOP/s",
                T::DTYPE,
                time * 1e3,
                2.0 * prod.fmas() / time / 1e12
            );
        }
        if best.is_none_or(|(b, _)| time < b) {
            best = Some((time, t));
        }
    }
    let t = best.map_or(SMALL, |(_, t)| t);
    lock(&TUNED).get_or_insert_with(HashMap::new).insert(key, t);
    Ok(t)
}

/// The batched product of `a` (`[.., M, K]`) and `b` (`[.., K, N]`), both at least 2-D,
/// as a new array `[batch.., M, N]`.
fn matmul_nd<T: Element>(
    a: &Array<T>,
    b: &Array<T>,
    lhs: &[usize],
    rhs: &[usize],
) -> Result<Array<T>> {
    let dev = &a.dev;
    let mismatch = || Error::ShapeMismatch {
        op: "matmul",
        lhs: lhs.to_vec(),
        rhs: rhs.to_vec(),
    };
    let (na, nb) = (a.ndim(), b.ndim());
    let (m, k) = (a.shape[na - 2], a.shape[na - 1]);
    let (k2, n) = (b.shape[nb - 2], b.shape[nb - 1]);
    if k != k2 {
        return Err(mismatch());
    }
    let batch = broadcast_shapes("matmul", &a.shape[..na - 2], &b.shape[..nb - 2])
        .map_err(|_| mismatch())?;
    let mut shape = batch.clone();
    shape.extend([m, n]);
    let batches: usize = batch.iter().product();
    if m * n * batches == 0 {
        return Array::alloc(dev, "matmul", shape);
    }
    if k == 0 {
        return dev.zeros::<T>(shape);
    }
    let out = Array::<T>::alloc(dev, "matmul", shape)?;
    let (a, b) = (prepare(a)?, prepare(b)?);
    let prod = Product {
        a: operand(&a, &batch),
        b: operand(&b, &batch),
        m,
        n,
        k,
        batch_shape: batch,
        batches,
    };
    let (cshape, _) = collapse(&prod.batch_shape, &[&prod.a.batch, &prod.b.batch]);
    if cshape.len() > MAX_DIMS {
        return Err(Error::TooManyDims {
            ndim: cshape.len(),
            max: MAX_DIMS,
        });
    }
    if T::DTYPE == DType::F16 && coop_eligible(dev, &prod) && run_coop(dev, &prod, &out)? {
        return Ok(out);
    }
    let tiles = choose(dev, &prod, &out)?;
    run_tiled(dev, &prod, &out, tiles)?;
    Ok(out)
}

impl<T: Element> Array<T> {
    /// The matrix product `self @ other` with NumPy's `matmul` semantics: 2-D operands
    /// multiply as matrices; N-D operands are stacks of matrices in their last two
    /// dimensions, with the leading (batch) dimensions broadcast together; a 1-D left
    /// operand is a row vector and a 1-D right operand a column vector, and the added
    /// dimension is removed from the result.
    ///
    /// Transposed and strided views are read in place when one of their two matrix
    /// dimensions has stride 1; others are copied first. f16 accumulates in f32 (on
    /// cooperative matrices where the adapter has them); f32 in f32 on the GPU's FMA units
    /// (an order of summation different from a CPU's); integers wrap on overflow.
    ///
    /// # Errors
    /// [`Error::ShapeMismatch`] when the inner dimensions differ or the batch dimensions do
    /// not broadcast; [`Error::InvalidArgument`] for 0-d operands; [`Error::Unsupported`]
    /// when the adapter lacks `T`; [`Error::DeviceMismatch`] for arrays of two devices.
    ///
    /// ```
    /// # let dev = gpuarray::Device::new()?;
    /// let a = dev.from_slice(&[1.0f32, 2.0, 3.0, 4.0, 5.0, 6.0], [2, 3])?;
    /// let b = dev.from_slice(&[1.0f32, 0.0, 0.0, 1.0, 1.0, 1.0], [3, 2])?;
    /// assert_eq!(a.matmul(&b)?.to_vec()?, vec![4.0, 5.0, 10.0, 11.0]);
    /// // a @ a.T, the transposed view read without a copy
    /// assert_eq!(a.matmul(&a.t())?.to_vec()?, vec![14.0, 32.0, 32.0, 77.0]);
    /// // batched: [4, 2, 3] @ [3, 2] -> [4, 2, 2]
    /// let s = dev.ones::<f32>([4, 2, 3])?;
    /// assert_eq!(s.matmul(&b)?.shape(), &[4, 2, 2]);
    /// assert!(a.matmul(&a).is_err());
    /// # Ok::<(), gpuarray::Error>(())
    /// ```
    pub fn matmul(&self, other: &Array<T>) -> Result<Array<T>> {
        self.same_device("matmul", &other.dev)?;
        self.dev.require("matmul", T::DTYPE)?;
        if self.ndim() == 0 || other.ndim() == 0 {
            return Err(Error::InvalidArgument {
                op: "matmul",
                reason: "0-d operands have no matrix dimensions (use mul)",
            });
        }
        // 1-D operands as a row (left) or a column (right), as views.
        let a = if self.ndim() == 1 {
            self.view(
                vec![1, self.shape[0]],
                vec![0, self.strides[0]],
                self.offset,
            )
        } else {
            self.clone()
        };
        let b = if other.ndim() == 1 {
            other.view(
                vec![other.shape[0], 1],
                vec![other.strides[0], 0],
                other.offset,
            )
        } else {
            other.clone()
        };
        let out = matmul_nd(&a, &b, &self.shape, &other.shape)?;
        let mut shape = out.shape.clone();
        let nd = shape.len();
        match (self.ndim() == 1, other.ndim() == 1) {
            (false, false) => return Ok(out),
            (true, true) => shape.truncate(nd - 2),
            (true, false) => {
                shape.remove(nd - 2);
            }
            (false, true) => {
                shape.pop();
            }
        }
        out.reshape(shape)
    }

    /// NumPy's `dot`: the inner product of two 1-D arrays (a 0-d array), the matrix
    /// product of 2-D arrays and of a 2-D with a 1-D array, the product with a scalar when
    /// either is 0-d, and for N-D arrays the sum over the last axis of `self` and the
    /// second-to-last of `other` (`dot(a, b)[i, j, k, m] = sum(a[i, j, :] * b[k, :, m])`).
    ///
    /// # Errors
    /// [`Error::ShapeMismatch`] when the summed dimensions differ; [`Error::Unsupported`]
    /// when the adapter lacks `T`.
    ///
    /// ```
    /// # let dev = gpuarray::Device::new()?;
    /// let x = dev.from_slice(&[1i32, 2, 3], [3])?;
    /// let y = dev.from_slice(&[4i32, 5, 6], [3])?;
    /// assert_eq!(x.dot(&y)?.to_scalar()?, 32);
    /// let m = dev.from_slice(&[1i32, 0, 0, 0, 1, 0], [2, 3])?;
    /// assert_eq!(m.dot(&y)?.to_vec()?, vec![4, 5]);
    /// # Ok::<(), gpuarray::Error>(())
    /// ```
    pub fn dot(&self, other: &Array<T>) -> Result<Array<T>> {
        if self.ndim() == 0 || other.ndim() == 0 {
            return self.mul(other);
        }
        if other.ndim() <= 2 {
            return self.matmul(other);
        }
        // N-D: contract self's last axis with other's second-to-last.
        self.same_device("dot", &other.dev)?;
        let (na, nb) = (self.ndim(), other.ndim());
        let k = self.shape[na - 1];
        if other.shape[nb - 2] != k {
            return Err(Error::ShapeMismatch {
                op: "dot",
                lhs: self.shape.clone(),
                rhs: other.shape.clone(),
            });
        }
        let rows: usize = self.shape[..na - 1].iter().product();
        let a = self.reshape([rows, k])?;
        // other as [K, (its other axes, in order)].
        let mut perm = vec![nb - 2];
        perm.extend((0..nb).filter(|&d| d != nb - 2));
        let bt = other.transpose(&perm)?;
        let cols = other.len() / k.max(1);
        let b = if k == 0 {
            other.dev.zeros::<T>([0, cols])?
        } else {
            bt.reshape([k, cols])?
        };
        let mut shape = self.shape[..na - 1].to_vec();
        shape.extend(perm[1..].iter().map(|&d| other.shape[d]));
        a.matmul(&b)?.reshape(shape)
    }

    /// The outer product of two arrays, flattened: `out[i, j] = self[i] * other[j]`
    /// (NumPy's `outer`).
    ///
    /// # Errors
    /// [`Error::Unsupported`] when the adapter lacks `T`.
    ///
    /// ```
    /// # let dev = gpuarray::Device::new()?;
    /// let x = dev.from_slice(&[1.0f32, 2.0], [2])?;
    /// let y = dev.from_slice(&[1.0f32, 10.0, 100.0], [3])?;
    /// assert_eq!(x.outer(&y)?.to_vec()?, vec![1.0, 10.0, 100.0, 2.0, 20.0, 200.0]);
    /// # Ok::<(), gpuarray::Error>(())
    /// ```
    pub fn outer(&self, other: &Array<T>) -> Result<Array<T>> {
        let a = self.reshape([self.len(), 1])?;
        let b = other.reshape([1, other.len()])?;
        a.matmul(&b)
    }

    /// The sum of the main diagonal, NumPy's `trace`: a 0-d array for a 2-D array; for
    /// N-D arrays the traces over the first two axes, of shape `shape[2..]`. f16 sums in
    /// f32.
    ///
    /// # Errors
    /// [`Error::InvalidArgument`] for arrays of fewer than 2 dimensions;
    /// [`Error::Unsupported`] when the adapter lacks `T`.
    ///
    /// ```
    /// # let dev = gpuarray::Device::new()?;
    /// let m = dev.arange::<f32>(0.0, 9.0, 1.0)?.reshape([3, 3])?;
    /// assert_eq!(m.trace()?.to_scalar()?, 12.0);
    /// assert_eq!(m.t().trace()?.to_scalar()?, 12.0);
    /// # Ok::<(), gpuarray::Error>(())
    /// ```
    pub fn trace(&self) -> Result<Array<T>> {
        self.dev.require("trace", T::DTYPE)?;
        if self.ndim() < 2 {
            return Err(Error::InvalidArgument {
                op: "trace",
                reason: "trace needs at least 2 dimensions",
            });
        }
        let (r, c) = (self.shape[0], self.shape[1]);
        let diag = r.min(c);
        let rest = self.shape[2..].to_vec();
        let count: usize = rest.iter().product();
        let out = Array::<T>::alloc(&self.dev, "trace", rest)?;
        if count == 0 {
            return Ok(out);
        }
        if diag == 0 {
            return self.dev.zeros::<T>(out.shape.clone());
        }
        // Each trace's matrix: axes 0 and 1 moved last, so that matrix z starts at z * r * c.
        let (src, start, step, stride) = if self.ndim() == 2 {
            (
                self.clone(),
                self.offset,
                self.strides[0] + self.strides[1],
                0,
            )
        } else {
            let mut perm: Vec<usize> = (2..self.ndim()).collect();
            perm.extend([0, 1]);
            let m = self.transpose(&perm)?.contiguous()?;
            let off = m.offset;
            (m, off, c + 1, r * c)
        };
        let mut p = Params::new(count as u32);
        p.aux[0] = diag as u32;
        p.offs[0] = start as u32;
        p.strides[2][0] = stride as u32;
        p.strides[2][1] = step as u32;
        let tiles = SMALL;
        let key = Key {
            family: "linalg",
            entry: "trace",
            variant: format!("{}|trace", T::DTYPE),
            inputs: 2,
            wg: 64,
            ndim: 0,
            per: 0,
        };
        let kernel = self
            .dev
            .kernel(key, || spec(T::DTYPE, false, false, tiles, false, false))?;
        let bind = src.binding();
        self.dev.launch(
            &kernel,
            &p,
            &[bind, bind],
            out.binding(),
            Work::Items(count as u32),
        )?;
        Ok(out)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Malformed or absurd `GPUARRAY_COOP_VARIANT` values are refused without a panic (the
    /// default configuration is used instead).
    #[test]
    fn variants_parse_or_are_refused() {
        for bad in [
            "",
            "legacy2",
            "2x4",
            "2x4:4x4",
            "2x4:4x4:16:1:2:3",
            "axb:cxd:e",
            "-1x4:4x4:16",
        ] {
            assert!(parse_variant(bad).is_none(), "{bad}");
        }
        let c = parse_variant("4x4:2x4:32:1:2").unwrap();
        assert_eq!(
            (c.bm(), c.bn(), c.wg(), c.stages, c.depth),
            (128, 256, 512, 1, 2)
        );
        assert!(c.valid());
        let c = parse_variant("2x4:4x4:16").unwrap();
        assert_eq!((c.stages, c.depth), (2, 1));
        for absurd in [
            "4294967295x4294967295:4294967295x4294967295:16",
            "0x4:4x4:16",
            "2x4:4x4:0",
            "2x4:4x4:24",
            "2x4:4x4:4096",
            "2x4:4x4:16:3",
            "2x4:4x4:16:1:9",
        ] {
            assert!(!parse_variant(absurd).unwrap().valid(), "{absurd}");
        }
    }
}
