//! The casts of the elementwise family: each pair of dtypes as one WGSL expression over
//! `a` with Rust's `as` semantics, exact on every adapter (part of the operation table in
//! `table.rs`, apart for its length).

use crate::dtype::DType;

/// The conversion from `from` to `to` with Rust's `as` semantics, exactly on every adapter
/// (WGSL leaves out-of-range conversions indeterminate and lets an integer convert to either
/// neighbouring float; Vulkan promises only conversions of representable values and correctly
/// rounded float-to-float ones): floats to integers truncate, saturate (infinities
/// included) and give 0 for NaN; integers to f32 are one correctly rounded sum of two exact
/// halves; integers to f16 round once (through exact f16 halves, the sum overflowing to
/// infinity from 65520 on); floats to narrower floats overflow to infinity where the value
/// rounds past the largest finite one.
pub(super) fn cast_expr(from: DType, to: DType) -> (String, bool) {
    use DType::*;
    let e = match (from, to) {
        _ if from == to => "U(a)".to_string(),
        // NumPy's truth: non-zero (NaN included) is true. f32 by its bits, as `all`/`any`:
        // an adapter that flushes subnormals would call 1e-45 zero.
        (F32, Bool) => "select(U(0u), U(1u), (bitcast<U>(a) & U(0x7fffffffu)) != U(0u))".into(),
        (_, Bool) => "select(U(0u), U(1u), !(a == T(0)))".to_string(),
        // Words of 0 and 1, converted as the u32 they are.
        (Bool, _) => return cast_expr(U32, to),
        _ if from.is_int64() || to.is_int64() => return (cast64_expr(from, to), false),
        (F16, I32) => int_sat(
            "a < T(-65504.0)",
            "a > T(65504.0)",
            "i32(-2147483648)",
            "2147483647",
        ),
        (F16, U32) => int_sat("a < T(0.0)", "a > T(65504.0)", "0u", "4294967295u"),
        (_, I32) if from.is_float() => int_sat(
            "a < T(-2147483648.0)",
            "a >= T(2147483648.0)",
            "i32(-2147483648)",
            "2147483647",
        ),
        (_, U32) if from.is_float() => {
            int_sat("a < T(0.0)", "a >= T(4294967296.0)", "0u", "4294967295u")
        }
        (I32 | U32, F32) => "U(a - (a & T(65535))) + U(a & T(65535))".to_string(),
        (I32, F16) => int_to_f16("clamp(a, T(-65520), T(65520))"),
        (U32, F16) => int_to_f16("min(a, T(65520))"),
        // f32's infinity converted (naga has no bitcast to f16).
        (F32 | F64, F16) => float_overflow("65520.0", "f16(bitcast<f32>(0x7f800000u))"),
        (F64, F32) => float_overflow("3.4028235677973366e38", "bitcast<f32>(0x7f800000u)"),
        _ => "U(a)".to_string(),
    };
    (e, true)
}

/// The casts from and to the 64-bit integers (scalar code), with Rust's `as` semantics:
/// floats saturate (NaN to 0); integers wrap, sign- or zero-extend as their source's
/// signedness says; conversions to floats round once (to f32 through a 32-bit value with a
/// sticky bit, shaders/shared/int64.wgsl; to f64 as a sum of two exact halves).
fn cast64_expr(from: DType, to: DType) -> String {
    use DType::*;
    const I64_MIN: &str = "(-9223372036854775807li - 1li)";
    match (from, to) {
        (F16, I64) => int_sat(
            "a < T(-65504.0)",
            "a > T(65504.0)",
            I64_MIN,
            "9223372036854775807li",
        ),
        (F16, U64) => int_sat(
            "a < T(0.0)",
            "a > T(65504.0)",
            "0lu",
            "18446744073709551615lu",
        ),
        (_, I64) if from.is_float() => int_sat(
            "a < T(-9223372036854775808.0)",
            "a >= T(9223372036854775808.0)",
            I64_MIN,
            "9223372036854775807li",
        ),
        (_, U64) if from.is_float() => int_sat(
            "a < T(0.0)",
            "a >= T(18446744073709551616.0)",
            "0lu",
            "18446744073709551615lu",
        ),
        (I64, F32) => "i64_to_f32_(a)".to_string(),
        (U64, F32) => "u64_to_f32_(a)".to_string(),
        (_, F64) => "U(a - (a & T(4294967295))) + U(a & T(4294967295))".to_string(),
        (I64, F16) => int_to_f16("clamp(a, T(-65520), T(65520))"),
        (U64, F16) => int_to_f16("min(a, T(65520))"),
        // Sign extension, as Rust's `-1i32 as u64`.
        (I32, U64) => "U(i64(a))".to_string(),
        // Zero extension (naga's i64(u32) extends the sign bit).
        (U32, I64) => "U(u64(a))".to_string(),
        _ => "U(a)".to_string(),
    }
}

/// A float to an integer: `lo` where `under`, `hi` where `over`, 0 for NaN, else truncated.
fn int_sat(under: &str, over: &str, lo: &str, hi: &str) -> String {
    format!("select(select(select(U(a), U({hi}), {over}), U({lo}), {under}), U(0), !(a == a))")
}

/// An integer (already clamped to ±65520) to f16, rounded once: its magnitude as two exact
/// f16 parts (multiples of 64 below 65536, and the low 6 bits), summed once.
fn int_to_f16(clamped: &str) -> String {
    format!(
        "select(U(abs({clamped}) - (abs({clamped}) & T(63))) + U(abs({clamped}) & T(63)), \
         -(U(abs({clamped}) - (abs({clamped}) & T(63))) + U(abs({clamped}) & T(63))), a < T(0))"
    )
}

/// A float to a narrower float: infinity of a's sign from `limit` (the midpoint past the
/// largest finite value, which rounds up) on, NaN staying NaN.
fn float_overflow(limit: &str, inf: &str) -> String {
    format!("select(U(a), select(U({inf}), -U({inf}), a < T(0.0)), abs(a) >= T({limit}))")
}
