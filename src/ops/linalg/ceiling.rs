//! The measurement behind the f32 square products' ceiling through SPIR-V (issue 16): the
//! tiled kernel (shaders/linalg.wgsl) and the large f32 kernel (shaders/linalg_big.wgsl)
//! as they are and with parts of their work taken out, each variant a text edit of the
//! kernel compiled with the same tiles the product itself takes. Results are not products
//! (only their time means something); nothing is eliminated, since every variant still
//! writes its accumulators to C.

use std::borrow::Cow;

use crate::array::Array;
use crate::dtype::DType;
use crate::error::{Error, Result};

use super::linalg_big::BigCfg;
use super::product::{operand, Product};
use super::tiled::Choice;
use super::{linalg_big as big, tiled, SRC};

/// A variant of the tiled kernel for [`Array::matmul_ceiling`], by its name there.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Ceiling {
    /// The kernel as it is: "as_is".
    AsIs,
    /// "no_fma": the FMAs removed: the workgroup tiles are still read (their values added into the
    /// accumulators, one add per vec4 instead of 16 FMAs), global loads and stores kept.
    NoFma,
    /// "no_global": the global loads removed: the fetched registers hold values computed from the
    /// indices; the workgroup-memory stores and loads and the FMAs kept.
    NoGlobal,
    /// "registers": FMAs only: no global loads and no workgroup-memory loads (the FMAs' operands come
    /// from the fetch registers); the workgroup-memory stores and barriers kept.
    Registers,
}

/// The variants by name (the large kernel's with the prefix `big_`).
const NAMES: [(&str, Ceiling); 4] = [
    ("as_is", Ceiling::AsIs),
    ("no_fma", Ceiling::NoFma),
    ("no_global", Ceiling::NoGlobal),
    ("registers", Ceiling::Registers),
];

/// The FMA block of the kernel's inner loop (shaders/linalg.wgsl, `matmul`).
const FMAS: &str = "            for (var i = 0u; i < MV; i++) {
                for (var ii = 0u; ii < 4u; ii++) {
                    let x = af[i][ii];
                    for (var j = 0u; j < NV; j++) {
                        acc[(i * 4u + ii) * NV + j] += x * bf[j];
                    }
                }
            }";
const NO_FMAS: &str = "            for (var i = 0u; i < MV; i++) { acc[i] += af[i]; }
            for (var j = 0u; j < NV; j++) { acc[MV + j] += bf[j]; }";
/// The workgroup-tile reads of the inner loop.
const SHARED_A: &str = "af[i] = As[k * (BM / 4u) + ty + i * (BM / 4u / MV)];";
const SHARED_B: &str = "bf[j] = Bs[k * (BN / 4u) + tx + j * (BN / 4u / NV)];";
/// A fetch without a memory access, its value unknown to the compiler's constant folding
/// only through the index.
const NO_FETCH: &str = "fn no_fetch(e: u32, cnt: u32) -> vec4<ACC> { return vec4<ACC>(ACC(e & 7u), ACC(cnt), ACC((e >> 3u) & 7u), ACC(1)); }\n";

/// The large kernel's FMA block (between these lines) and what replaces it in "no_fma".
const BIG_FMA_BEGIN: &str = "            // fma:begin\n";
const BIG_FMA_END: &str = "            // fma:end\n";
const BIG_NO_FMAS: &str = "            c00 += a0; c10 += a1; c01 += b0; c11 += b1;\n";
/// The large kernel's global loads, and loads without a memory access.
const BIG_LOADS: [(&str, &str); 2] = [
    (
        "fn load_a4(i: u32) -> vec4<f32> { return a[i]; }",
        "fn load_a4(i: u32) -> vec4<f32> { return vec4<f32>(f32(i & 7u), 1.0, f32((i >> 3u) & 7u), 0.5); }",
    ),
    (
        "fn load_b4(i: u32) -> vec4<f32> { return b[i]; }",
        "fn load_b4(i: u32) -> vec4<f32> { return vec4<f32>(0.5, f32(i & 7u), 1.0, f32((i >> 3u) & 7u)); }",
    ),
];
/// The large kernel's workgroup-memory reads of one k step, and their register operands
/// (the fetch registers of the next tile).
const BIG_SHARED: [(&str, &str); 4] = [
    ("let a0 = As[o + ty];", "let a0 = ra0;"),
    ("let a1 = As[o + 16u + ty];", "let a1 = ra0.wzyx;"),
    ("let b0 = Bs[o + tx];", "let b0 = rb0;"),
    ("let b1 = Bs[o + 16u + tx];", "let b1 = rb0.wzyx;"),
];

/// Replaces `from` in `s` by `to`; `None` where `from` is missing.
fn edit(s: String, from: &str, to: &str) -> Option<String> {
    s.contains(from).then(|| s.replace(from, to))
}

/// The large kernel's text for a variant, before its k loop is unrolled; `None` where an
/// edit finds nothing to replace.
fn big_source(what: Ceiling) -> Option<String> {
    let s = big::BIG_SRC.to_string();
    let no_global = |s: String| {
        BIG_LOADS
            .iter()
            .try_fold(s, |s, (from, to)| edit(s, from, to))
    };
    match what {
        Ceiling::AsIs => Some(s),
        Ceiling::NoFma => {
            let start = s.find(BIG_FMA_BEGIN)?;
            let end = start + s[start..].find(BIG_FMA_END)? + BIG_FMA_END.len();
            Some(format!("{}{BIG_NO_FMAS}{}", &s[..start], &s[end..]))
        }
        Ceiling::NoGlobal => no_global(s),
        Ceiling::Registers => BIG_SHARED
            .iter()
            .try_fold(no_global(s)?, |s, (from, to)| edit(s, from, to)),
    }
}

/// The tiled kernel's text for a variant; `None` where an edit finds nothing to replace
/// (the kernel changed under the measurement).
fn source(what: Ceiling) -> Option<String> {
    let s = SRC.to_string();
    let no_global = |s: String| {
        let s = edit(s, "v = fetch_a(", "v = no_fetch(")?;
        let s = edit(s, "v = fetch_b(", "v = no_fetch(")?;
        Some(format!("{s}\n{NO_FETCH}"))
    };
    match what {
        Ceiling::AsIs => Some(s),
        Ceiling::NoFma => edit(s, FMAS, NO_FMAS),
        Ceiling::NoGlobal => no_global(s),
        Ceiling::Registers => {
            let s = no_global(s)?;
            let s = edit(s, SHARED_A, "af[i] = ra[i];")?;
            edit(s, SHARED_B, "bf[j] = rb[j];")
        }
    }
}

impl Array<f32> {
    /// Diagnostics for the f32 products' ceiling through SPIR-V: `self @ other` (2-D,
    /// row-major) on the tiled kernel with the tiles the product takes, as the variant
    /// `what` of the kernel: "as_is" (the kernel as it is), "no_fma" (the FMAs removed;
    /// the workgroup tiles are still read and added up), "no_global" (the global loads
    /// removed; the fetch registers hold values computed from the indices), "registers"
    /// (no global loads and no workgroup-memory loads: FMAs on the fetch registers). Only
    /// "as_is" computes the product; the others return what their edited kernels write,
    /// for timing. Where the product takes the large f32 kernel, the tiled kernel's
    /// variants run on 64 x 128 x 16 tiles (the trial's choice for 4096^3 before that
    /// kernel). The same names with the prefix `big_` are the large f32 kernel's variants
    /// (M and N multiples of 128, K of 8), at the depth the product takes there.
    ///
    /// # Errors
    /// [`Error::InvalidArgument`] for another name, unless both operands are 2-D,
    /// row-major and their inner dimensions agree, or for a `big_` variant of a product
    /// the large kernel does not take; [`Error::DeviceMismatch`] for arrays of two
    /// devices.
    ///
    /// ```
    /// # let dev = gpuarray::Device::new()?;
    /// let a = dev.ones::<f32>([8, 8])?;
    /// assert_eq!(a.matmul_ceiling(&a, "as_is")?.to_vec()?, vec![8.0; 64]);
    /// assert_eq!(a.matmul_ceiling(&a, "no_fma")?.shape(), &[8, 8]);
    /// assert!(a.matmul_ceiling(&a, "fast").is_err());
    /// assert!(a.matmul_ceiling(&a, "big_as_is").is_err()); // 8 is not a multiple of 128
    /// # Ok::<(), gpuarray::Error>(())
    /// ```
    #[doc(hidden)]
    pub fn matmul_ceiling(&self, other: &Array<f32>, what: &str) -> Result<Array<f32>> {
        self.dev.expect_same("matmul_ceiling", &[&other.dev])?;
        let (big, name) = match what.strip_prefix("big_") {
            Some(rest) => (true, rest),
            None => (false, what),
        };
        let Some(&(_, what)) = NAMES.iter().find(|(n, _)| *n == name) else {
            return Err(Error::InvalidArgument {
                op: "matmul_ceiling",
                reason: "variants: as_is, no_fma, no_global, registers, each with big_ or not",
            });
        };
        let plain = |x: &Array<f32>| x.ndim() == 2 && x.is_contiguous();
        if !plain(self) || !plain(other) || self.shape[1] != other.shape[0] {
            return Err(Error::InvalidArgument {
                op: "matmul_ceiling",
                reason: "two 2-D row-major operands of agreeing inner dimensions",
            });
        }
        let dev = &self.dev;
        let prod = Product {
            a: operand(self, &[]),
            b: operand(other, &[]),
            m: self.shape[0],
            n: other.shape[1],
            k: self.shape[1],
            batch_shape: Vec::new(),
            batches: 1,
        };
        let out = Array::<f32>::alloc(dev, "matmul", vec![prod.m, prod.n])?;
        let choice = tiled::choose(dev, &prod, &out)?;
        let tag = format!("|{what:?}");
        if big {
            let depths = big::eligible(dev, DType::F32, &prod);
            let Some(cfg) = (match choice {
                Choice::Big(c) => Some(c),
                Choice::Tiled(_) => depths.first().map(|&bk| BigCfg { bk, quad: false }),
            }) else {
                return Err(Error::InvalidArgument {
                    op: "matmul_ceiling",
                    reason: "the large kernel takes M and N multiples of 128 and K of 8",
                });
            };
            let text = big_source(what).expect("shaders/linalg_big.wgsl has the edited lines");
            big::run_source(dev, &prod, &out, cfg, (&tag, Cow::Owned(text)))?;
            return Ok(out);
        }
        let tiles = match choice {
            Choice::Tiled(t) => t,
            Choice::Big(_) => tiled::SQUARE_TRIAL,
        };
        let text = source(what).expect("shaders/linalg.wgsl has the edited lines");
        tiled::run_source(dev, &prod, &out, tiles, (&tag, Cow::Owned(text)))?;
        Ok(out)
    }
}

/// Every variant's kernel (both kernels), for the shader validation test.
#[cfg(test)]
pub(super) fn specs() -> Vec<crate::kernel::source::Spec> {
    let mut specs = Vec::new();
    for &(_, w) in &NAMES {
        let text = source(w).expect("the edits apply");
        specs.push(tiled::spec_in(
            text.into(),
            DType::F32,
            [true; 3],
            tiled::LARGE,
            false,
            false,
        ));
        let text = big_source(w).expect("the edits apply");
        let cfg = BigCfg { bk: 16, quad: true };
        specs.push(big::spec_in(&text, (cfg, 33), false, false));
    }
    specs
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Every variant's edits find their lines in the kernel, and each variant is valid
    /// WGSL for f32 (the validation test covers the shader's own variants).
    #[test]
    fn every_variant_edits_the_kernel() {
        for (_, what) in NAMES {
            let text = source(what).unwrap_or_else(|| panic!("{what:?}"));
            assert_eq!(text == SRC, what == Ceiling::AsIs, "{what:?}");
            let text = big_source(what).unwrap_or_else(|| panic!("big {what:?}"));
            assert_eq!(text == big::BIG_SRC, what == Ceiling::AsIs, "big {what:?}");
        }
    }
}
