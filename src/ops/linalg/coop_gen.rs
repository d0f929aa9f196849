//! WGSL generator for the cooperative-matrix f16 matmul with workgroup-memory staging.
//!
//! A workgroup computes a BM x BN tile of C with SGM x SGN subgroups of 32, each a block of
//! FM x FN fragments of 16 x 16 (f16 A and B, f32 accumulators). Per step of BK along K,
//! the workgroup copies the A and B tiles from the storage buffers into workgroup memory.
//! Each invocation copies whole chunks of 4 or 8 halves, neighbouring invocations
//! neighbouring chunks, with loads of a width chosen per operand (`la`, `lb`): 16 bytes (a
//! 16-byte-aligned struct of two `vec4<f16>`), 8 (`vec4<f16>`), 4 (`vec2<f16>`) or 2 (one
//! f16), the widest that the operand's offset, leading dimension, batch strides and
//! contiguous extent are multiples of (so that no load straddles an edge of the matrix).
//! The loads run `depth` steps ahead of the multiplies, into register sets, and the
//! registers are stored to the next stage after the current step's multiplies: with two
//! stages one barrier per step, with one stage two (half the memory, so BK = 32 fits
//! beside 128 x 256 tiles). Fragments are loaded from workgroup memory (`coopLoad` through
//! a `vec4<f16>` pointer, stride in vector units; rows padded by 16 bytes against bank
//! conflicts). Tiles keep the operand's memory layout (rows of K for A, or of M for a
//! transposed A), and the fragment load picks row- or column-major. Elements beyond M, N,
//! K are zero-filled, each load tested on its own; so are the steps past K that the early
//! loads reach, which lets the unrolled loop run a whole number of iterations without a
//! branch around the multiplies. The output passes through a per-subgroup f32 scratch
//! fragment and is written as f16 (or f32, for split-K's partial products), only the
//! elements inside M x N: 4 per store where N is a multiple of 4, else one.
//!
//! The text is generated (unrolled fragment blocks, register sets and stages) once per
//! device, configuration and operand layout, by the kernel cache. Parameters are read
//! through the accessors of shaders/linalg.wgsl, which the text embeds. What each choice
//! measured on the H100 is in docs/benchmarks/foundation.md (matmul, version 4).

use std::fmt::Write;

use super::coop_copy::TileCopy;
use super::params::accessors;

/// One configuration of the staged kernel.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub(crate) struct CoopCfg {
    pub sgm: u32,
    pub sgn: u32,
    pub fm: u32,
    pub fn_: u32,
    pub bk: u32,
    /// Halves per global load of A and of B: 8 (a 16-byte-aligned struct of two
    /// `vec4<f16>`), 4 (`vec4<f16>`), 2 (`vec2<f16>`) or 1.
    pub la: u32,
    pub lb: u32,
    /// Output path: 0, f32 scratch as `vec4<f32>` and stores of 4 (N a multiple of 4);
    /// 1, scalar.
    pub epi: u32,
    /// The output is f32 (split-K's partial products), else f16.
    pub f32_out: bool,
    /// Workgroup-memory stages: 2 (one barrier per step) or 1 (two barriers per step,
    /// half the memory).
    pub stages: u32,
    /// How many steps ahead the global loads run, 1 to 4 (as many register sets).
    pub depth: u32,
}

impl CoopCfg {
    pub(crate) const fn new(sgm: u32, sgn: u32, fm: u32, fn_: u32, bk: u32) -> CoopCfg {
        CoopCfg {
            sgm,
            sgn,
            fm,
            fn_,
            bk,
            la: 4,
            lb: 4,
            epi: 0,
            f32_out: false,
            stages: 2,
            depth: 1,
        }
    }
    pub(crate) fn bm(&self) -> u32 {
        self.sgm * self.fm * 16
    }
    pub(crate) fn bn(&self) -> u32 {
        self.sgn * self.fn_ * 16
    }
    pub(crate) fn wg(&self) -> u32 {
        self.sgm * self.sgn * 32
    }
    /// (outer, inner) extents in halves of the A and B tiles as stored.
    fn tiles(&self, ta: bool, tb: bool) -> ((u32, u32), (u32, u32)) {
        let a = if ta {
            (self.bk, self.bm())
        } else {
            (self.bm(), self.bk)
        };
        let b = if tb {
            (self.bn(), self.bk)
        } else {
            (self.bk, self.bn())
        };
        (a, b)
    }
    /// Bytes of workgroup memory.
    pub(crate) fn shared_bytes(&self, ta: bool, tb: bool) -> u32 {
        let ((ao, ai), (bo, bi)) = self.tiles(ta, tb);
        let stage = ao * (ai / 4 + 2) + bo * (bi / 4 + 2);
        self.stages * stage * 8 + self.sgm * self.sgn * 1024
    }
    /// Whether the generator supports the configuration (and its sizes stay far from
    /// overflow: at most 16 subgroups or fragments along a side, BK at most 256).
    pub(crate) fn valid(&self) -> bool {
        [self.sgm, self.sgn, self.fm, self.fn_]
            .iter()
            .all(|n| (1..=16).contains(n))
            && self.bk.is_multiple_of(16)
            && (16..=256).contains(&self.bk)
            && [1, 2, 4, 8].contains(&self.la)
            && [1, 2, 4, 8].contains(&self.lb)
            && self.epi <= 1
            && [1, 2].contains(&self.stages)
            && (1..=4).contains(&self.depth)
    }
}

/// The WGSL text of the staged kernel for a configuration and operand layouts (`ta`: A
/// stored transposed, `tb`: B), without the shared parameter block that `Spec` appends.
pub(crate) fn generate(cfg: CoopCfg, ta: bool, tb: bool) -> String {
    let g = Gen::new(cfg, ta, tb);
    let mut s = String::new();
    let w = &mut s;
    g.module(w);
    g.entry(w);
    g.registers(w);
    g.prologue(w);
    g.main_loop(w);
    g.epilogue(w);
    emit!(w, "}}");
    emit!(w, "\n// Parameters: the accessors of shaders/linalg.wgsl.");
    s.push_str(accessors());
    s
}

/// A configuration, its operand layouts and the sizes derived from them: what every piece
/// of the generated text depends on.
struct Gen {
    cfg: CoopCfg,
    ta: bool,
    tb: bool,
    /// Row strides of the stored A and B tiles, in `vec4<f16>` units (16 bytes of padding).
    astr: u32,
    bstr: u32,
    /// Size of one stage of the A and of the B tile, in `vec4<f16>` units.
    astage: u32,
    bstage: u32,
    /// Where the B stages start in `sh` (after every A stage).
    b0: u32,
    ca: TileCopy,
    cb: TileCopy,
}

impl Gen {
    fn new(cfg: CoopCfg, ta: bool, tb: bool) -> Gen {
        let wg = cfg.wg();
        let (at, bt) = cfg.tiles(ta, tb);
        let (astr, bstr) = (at.1 / 4 + 2, bt.1 / 4 + 2);
        let (astage, bstage) = (at.0 * astr, bt.0 * bstr);
        let ca = TileCopy {
            bounds: if ta {
                ["k0 + o < K", "tm + i", "M", "oa + (k0 + o) * sa + tm + i"]
            } else {
                ["tm + o < M", "k0 + i", "K", "oa + (tm + o) * sa + k0 + i"]
            },
            ..TileCopy::new("a", at, cfg.la, wg)
        };
        let cb = TileCopy {
            bounds: if tb {
                ["tn + o < N", "k0 + i", "K", "ob + (tn + o) * sb + k0 + i"]
            } else {
                ["k0 + o < K", "tn + i", "N", "ob + (k0 + o) * sb + tn + i"]
            },
            ..TileCopy::new("b", bt, cfg.lb, wg)
        };
        Gen {
            cfg,
            ta,
            tb,
            astr,
            bstr,
            astage,
            bstage,
            b0: cfg.stages * astage,
            ca,
            cb,
        }
    }

    /// Module scope: types, bindings, workgroup memory.
    fn module(&self, w: &mut String) {
        let (cfg, ta, tb) = (self.cfg, self.ta, self.tb);
        let total = cfg.stages * (self.astage + self.bstage);
        let nscr = cfg.sgm * cfg.sgn * 64;
        let o = if cfg.f32_out { "f32" } else { "f16" };
        let (scr_ty, out_ty, nscr_e) = if cfg.epi == 0 {
            ("vec4<f32>", format!("vec4<{o}>"), nscr)
        } else {
            ("f32", o.to_string(), nscr * 4)
        };
        emit!(
            w,
            "enable wgpu_cooperative_matrix;
// Generated by src/ops/linalg/coop_gen.rs: {cfg:?} TA={ta} TB={tb}.
alias S = f16;
alias SC = f32;
override WG: u32 = {wg}u;
// 16 bytes per global load where the struct's alignment lets the compiler merge them.
struct H8 {{
    @align(16) lo: vec4<f16>,
    hi: vec4<f16>,
}}
@group(0) @binding(1) var<storage, read> a: array<{ea}>;
@group(0) @binding(2) var<storage, read> b: array<{eb}>;
@group(0) @binding(4) var<storage, read_write> out: array<{out_ty}>;
// A stages, then B stages; rows padded by 16 bytes against bank conflicts.
var<workgroup> sh: array<vec4<f16>, {total}>;
// Per-subgroup f32 scratch fragments for the output (coopStore needs an f32 pointer).
var<workgroup> scratch: array<{scr_ty}, {nscr_e}>;",
            wg = cfg.wg(),
            ea = self.ca.load_ty(),
            eb = self.cb.load_ty(),
        );
    }

    /// The entry point's signature and the values of the whole dispatch.
    // Long because it is one WGSL text, emitted as written with the configuration's values
    // filled in: cutting it would scatter one shader function over several Rust ones.
    fn entry(&self, w: &mut String) {
        let cfg = self.cfg;
        emit!(
            w,
            "
@compute @workgroup_size(WG)
fn matmul_coop(@builtin(workgroup_id) wid: vec3<u32>,
               @builtin(local_invocation_index) tid: u32,
               @builtin(subgroup_id) sg: u32,
               @builtin(subgroup_invocation_id) lane: u32) {{
    let M = dim_m();
    let N = dim_n();
    let K = dim_k();
    let sa = ld_a();
    let sb = ld_b();
    let batch = wid.z + first_batch();
    let offs = batch_offsets(batch);
    let oa = offs.x;
    let ob = offs.y;
    let tm = (wid.y + first_tile_m()) * {bm}u;
    let tn = (wid.x + first_tile_n()) * {bn}u;
    let wm = (sg / {sgn}u) * {fmr}u;
    let wn = (sg % {sgn}u) * {fnr}u;",
            bm = cfg.bm(),
            bn = cfg.bn(),
            sgn = cfg.sgn,
            fmr = cfg.fm * 16,
            fnr = cfg.fn_ * 16,
        );
    }

    /// The load register sets and the accumulator fragments.
    fn registers(&self, w: &mut String) {
        for set in 0..self.cfg.depth {
            self.ca.declare(w, set);
            self.cb.declare(w, set);
        }
        for i in 0..self.cfg.fm {
            for j in 0..self.cfg.fn_ {
                emit!(w, "    var c{i}_{j} = coop_mat16x16<f32, C>();");
            }
        }
    }

    /// Fragment loads of one 16-deep slice at `kk` of the stage at sA / sB.
    fn frags(&self, w: &mut String, kk: u32) {
        let (astr, bstr, k4) = (self.astr, self.bstr, kk / 4);
        for i in 0..self.cfg.fm {
            let rr = format!("(wm + {}u)", 16 * i);
            let l = if self.ta {
                format!("coopLoad<coop_mat16x16<f16, A>>(&sh[sA + {kk}u * {astr}u + {rr} / 4u], {astr}u)")
            } else {
                format!(
                    "coopLoadT<coop_mat16x16<f16, A>>(&sh[sA + {rr} * {astr}u + {k4}u], {astr}u)"
                )
            };
            emit!(w, "            let fa{i} = {l};");
        }
        for j in 0..self.cfg.fn_ {
            let c = format!("(wn + {}u)", 16 * j);
            let l = if self.tb {
                format!("coopLoad<coop_mat16x16<f16, B>>(&sh[sB + {c} * {bstr}u + {k4}u], {bstr}u)")
            } else {
                format!("coopLoadT<coop_mat16x16<f16, B>>(&sh[sB + {kk}u * {bstr}u + {c} / 4u], {bstr}u)")
            };
            emit!(w, "            let fb{j} = {l};");
        }
    }

    /// The multiply-adds of the loaded fragments.
    fn products(&self, w: &mut String) {
        for i in 0..self.cfg.fm {
            for j in 0..self.cfg.fn_ {
                emit!(
                    w,
                    "            c{i}_{j} = coopMultiplyAdd(fa{i}, fb{j}, c{i}_{j});"
                );
            }
        }
    }

    /// The multiplies of one step from the stage at sA / sB.
    fn step(&self, w: &mut String) {
        for kk in (0..self.cfg.bk).step_by(16) {
            emit!(w, "        {{");
            self.frags(w, kk);
            self.products(w);
            emit!(w, "        }}");
        }
    }

    /// Loads for the step at `k0` into register set `set` (a step past K loads zeros).
    fn fetch(&self, w: &mut String, set: u32, k0: &str) {
        emit!(w, "        let k0 = {k0};");
        self.ca.fetch(w, set);
        self.cb.fetch(w, set);
    }

    /// Stores of register set `set` into stage `stage` (a WGSL expression).
    fn store(&self, w: &mut String, set: u32, stage: &str) {
        let (astage, bstage, b0) = (self.astage, self.bstage, self.b0);
        self.ca.store(w, set, &format!("{stage} * {astage}u"));
        self.cb
            .store(w, set, &format!("{b0}u + {stage} * {bstage}u"));
    }

    /// Prologue: step 0 in stage 0, steps 1 .. depth - 1 in register sets 1 .. depth - 1.
    fn prologue(&self, w: &mut String) {
        let bk = self.cfg.bk;
        emit!(w, "    let nt = (K + {bk}u - 1u) / {bk}u;");
        for set in 0..self.cfg.depth {
            emit!(w, "    {{");
            self.fetch(w, set, &format!("{}u", set * bk));
            if set == 0 {
                self.store(w, 0, "0u");
            }
            emit!(w, "    }}");
        }
        emit!(w, "    workgroupBarrier();");
    }

    /// The loop over K. Step s (s = t + h) starts with its data in stage s % stages, steps
    /// s + 1 .. s + depth - 1 in their register sets, and set s % depth free. It loads step
    /// s + depth into that set, multiplies, and stores step s + 1 into the next stage (with
    /// one stage, after a barrier). The loop is unrolled by lcm(depth, stages) so that sets
    /// and stages are fixed names. Steps past K load zeros (the bounds tests fail), so a
    /// count that is not a multiple of the unrolling needs no branch around the multiplies
    /// (naga requires uniform control flow for them).
    fn main_loop(&self, w: &mut String) {
        let (bk, depth, st) = (self.cfg.bk, self.cfg.depth, self.cfg.stages);
        let (astage, bstage, b0) = (self.astage, self.bstage, self.b0);
        let unroll = if depth.is_multiple_of(st) {
            depth
        } else {
            depth * st
        };
        emit!(w, "    for (var t = 0u; t < nt; t += {unroll}u) {{");
        for h in 0..unroll {
            let (set, next_set) = (h % depth, (h + 1) % depth);
            let (stage, next_stage) = (h % st, (h + 1) % st);
            emit!(w, "        {{");
            self.fetch(w, set, &format!("(t + {}u) * {bk}u", h + depth));
            emit!(
                w,
                "        let sA = {stage}u * {astage}u;\n        let sB = {b0}u + {stage}u * {bstage}u;"
            );
            self.step(w);
            if st == 1 {
                emit!(w, "        workgroupBarrier();");
            }
            self.store(w, next_set, &format!("{next_stage}u"));
            emit!(w, "        }}\n        workgroupBarrier();");
        }
        emit!(w, "    }}");
    }

    /// The output: each accumulator fragment through the subgroup's f32 scratch into C as
    /// f16 (4 per store with epilogue 0, else one).
    fn epilogue(&self, w: &mut String) {
        emit!(w, "    let oc = batch * M * N;\n    let scr = sg * 64u;");
        let cv = if self.cfg.f32_out { "f32" } else { "f16" };
        let (store, body) = if self.cfg.epi == 0 {
            (
                "coopStoreT(c{i}_{j}, &scratch[scr], 4u);".to_string(),
                format!(
                    "for (var q = lane; q < 64u; q += 32u) {{
                let r = m + q / 4u;
                let s = n + (q % 4u) * 4u;
                if (r < M && s < N) {{
                    out[(oc + r * N + s) / 4u] = vec4<{cv}>(scratch[scr + q]);
                }}
            }}"
                ),
            )
        } else {
            (
                "coopStoreT(c{i}_{j}, &scratch[scr * 4u], 16u);".to_string(),
                format!(
                    "for (var q = lane; q < 256u; q += 32u) {{
                let r = m + q / 16u;
                let s = n + q % 16u;
                if (r < M && s < N) {{
                    out[oc + r * N + s] = {cv}(scratch[scr * 4u + q]);
                }}
            }}"
                ),
            )
        };
        for i in 0..self.cfg.fm {
            for j in 0..self.cfg.fn_ {
                let store = store
                    .replace("{i}", &i.to_string())
                    .replace("{j}", &j.to_string());
                emit!(
                    w,
                    "    {{
        let m = tm + wm + {mi}u;
        let n = tn + wn + {nj}u;
        {store}
        workgroupBarrier();
        if (m < M && n < N) {{
            {body}
        }}
        workgroupBarrier();
    }}",
                    mi = 16 * i,
                    nj = 16 * j
                );
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Configurations worth trying, every layout: generated text validates with naga (and
    /// is written into the `coop_dump` folder of the environment's options, if any).
    #[test]
    fn configurations_validate() {
        let caps = naga::valid::Capabilities::SHADER_FLOAT16
            | naga::valid::Capabilities::SUBGROUP
            | naga::valid::Capabilities::COOPERATIVE_MATRIX;
        let dump = crate::config::Options::from_env()
            .ok()
            .and_then(|o| o.diagnostics.coop_dump);
        for cfg in [
            CoopCfg::new(4, 2, 2, 4, 32),
            CoopCfg::new(2, 2, 4, 4, 32),
            CoopCfg::new(2, 4, 4, 4, 16),
            CoopCfg::new(2, 2, 2, 4, 32),
            CoopCfg::new(4, 2, 2, 8, 16),
            CoopCfg::new(2, 2, 4, 4, 16),
            CoopCfg::new(4, 4, 2, 4, 32),
            CoopCfg::new(2, 8, 4, 2, 32),
            CoopCfg::new(4, 4, 2, 4, 16),
            CoopCfg::new(3, 4, 4, 3, 16),
        ] {
            assert!(cfg.valid(), "{cfg:?}");
            // (A and B load widths, epilogue, stages, depth, f32 output)
            let variants = [
                (4, 4, 0, 2, 1, false),
                (8, 8, 0, 2, 1, false),
                (4, 1, 1, 2, 1, false),
                (8, 2, 1, 1, 1, true),
                (1, 4, 0, 2, 2, false),
                (2, 8, 1, 2, 2, false),
                (8, 8, 0, 1, 2, true),
                (1, 1, 1, 1, 3, false),
                (2, 2, 0, 2, 3, true),
                (8, 1, 0, 1, 4, false),
            ];
            for (la, lb, epi, stages, depth, f32_out) in variants {
                let cfg = CoopCfg {
                    la,
                    lb,
                    epi,
                    stages,
                    depth,
                    f32_out,
                    ..cfg
                };
                if !cfg.valid() {
                    continue;
                }
                for (ta, tb) in [(false, false), (true, false), (false, true), (true, true)] {
                    let spec = super::super::coop::spec(cfg, ta, tb);
                    if let Some(dir) = &dump {
                        super::super::coop::dump(dir, cfg, ta, tb, &spec);
                    }
                    let src = spec.render().unwrap();
                    if let Err(e) = crate::kernel::source::validate("linalg", &src, caps) {
                        panic!("{cfg:?} {ta} {tb}: {e}");
                    }
                }
            }
        }
    }
}
