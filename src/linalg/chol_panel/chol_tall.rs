//! Cholesky's panels as tall factorizations: host side of shaders/chol_tall.wgsl, the
//! default kernels of [`super::panel`] and [`super::diagonals`] (the measuring switch
//! `GPUARRAY_CHOL_PANEL=0` takes shaders/chol_panel.wgsl's instead; [`super`]'s header
//! gives the reasoning and the estimate).

use crate::dtype::DType;
use crate::kernel::source::Spec;

pub(super) const SRC: &str = include_str!("../../../shaders/chol_tall.wgsl");

/// f64's (sqrt(d), 1 / sqrt(d)) for `chol_tall`: where d is within f32's range, 1 /
/// sqrt(d) from f32's `inverseSqrt` (relative error ~2^-22) refined by two Newton steps
/// (~2^-44, then the rounding: about an ulp) and sqrt(d) = d / sqrt(d), a dozen f64
/// operations on the column chain where `sqrt64_` and `div64_` take four f64 divisions and
/// a square root; elsewhere (and for 0, negative, infinite and NaN d) those two.
const SR64: &str = "fn sr_(d: T) -> vec2<T> {
    if d >= T(0x1p-120) && d <= T(0x1p120) {
        var y = T(inverseSqrt(f32(d)));
        y = fma(y * T(0.5), fma(-(d * y), y, T(1.0)), y);
        y = fma(y * T(0.5), fma(-(d * y), y, T(1.0)), y);
        return vec2<T>(d * y, y);
    }
    let s = sqrt64_(d);
    return vec2<T>(s, div64_(T(1.0), s));
}";

/// A21 rows per workgroup of `chol_tall` (the measuring switch `GPUARRAY_CHOL_TALL_ROWS`,
/// read once: 16, 32 or 64; 32 by default). Each workgroup also factors A11 (64 x 64)
/// itself, which fixes most of its time: on the H200 (session 21) `chol_tall_diags`, A11
/// alone, took ~30 us a dispatch in f32, `chol_tall` with 64 rows ~47 us, as latency (one
/// workgroup of 8 warps an SM, 63 workgroups at 4096 for 132 SMs). 32 rows: half the
/// rows' work on the chain, twice the workgroups (126 at 4096, still one wave); 16: two
/// workgroups an SM at 4096's first steps.
pub(super) fn rows() -> usize {
    static S: std::sync::OnceLock<usize> = std::sync::OnceLock::new();
    *S.get_or_init(|| match crate::config::switch("GPUARRAY_CHOL_TALL_ROWS") {
        Some(16) => 16,
        Some(64) => 64,
        _ => 32,
    })
}

/// Whether each step's rows of L are solved once (one invocation a row) and shared
/// through workgroup memory after a second barrier (the measuring switch
/// `GPUARRAY_CHOL_TALL_SHARE`, read once: 0 has every invocation solve the up to 12 rows
/// it needs itself, as measured at 14:20; anything else, the default, shares). A solve is
/// 4 reads and ~10 operations: ~110 of each step's ~300 operations an invocation move
/// off the chain for one barrier. Blind.
fn share() -> bool {
    static S: std::sync::OnceLock<bool> = std::sync::OnceLock::new();
    *S.get_or_init(|| crate::config::switch("GPUARRAY_CHOL_TALL_SHARE") != Some(0))
}

pub(super) fn spec(d: DType) -> Spec {
    let s = Spec::new("chol_tall", SRC)
        .alias("T", d.wgsl())
        .scalar(d)
        .writable_last_input();
    let ru = format!("fn ru_() -> u32 {{ return {}u; }}", rows() / 16);
    let s = if rows() == 64 {
        s
    } else {
        s.function("ru_", ru)
    };
    let s = if share() {
        s
    } else {
        s.function("sh_", "fn sh_() -> bool { return false; }")
    };
    let s = if super::unchecked() { s.unchecked() } else { s };
    if d == DType::F64 {
        s.alias("TW", "f64")
            .import("f64_math")
            .function("div_", "fn div_(x: T, y: T) -> T { return div64_(x, y); }")
            .function("sqrt_", "fn sqrt_(x: T) -> T { return sqrt64_(x); }")
            .function("sr_", SR64)
    } else {
        s
    }
}
