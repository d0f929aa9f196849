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

pub(super) fn spec(d: DType) -> Spec {
    let s = Spec::new("chol_tall", SRC)
        .alias("T", d.wgsl())
        .scalar(d)
        .writable_last_input();
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
