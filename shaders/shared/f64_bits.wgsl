// f64 functions built from the bits (through u64, so the adapter needs SHADER_INT64): the
// next value, the spacing and frexp's two parts. Imported only into the kernels whose
// expression calls a `*_b64_` function (ops/elementwise/wgsl.rs's `spec`; fuse adds an
// `#import f64_bits` line to its helpers), so that no other f64 kernel needs 64-bit integers. Scalar only (f64 and u64, never vec4).
// Every result is assembled from bits and every comparison made on them, so subnormals are
// exact also where an adapter flushes them in f64 arithmetic or comparisons.

const B64_SIGN = 0x8000000000000000lu;
const B64_MAG = 0x7ffffffffffffffflu;
const B64_INF = 0x7ff0000000000000lu;
const B64_FRAC = 0x000ffffffffffffflu;

// The bits as a signed key in the order of the values (-0 and +0 both 0).
fn ord_b64_(u: u64) -> i64 {
    let m = bitcast<i64>(u & B64_MAG);
    return select(m, -m, (u & B64_SIGN) != 0lu);
}

fn is_nan_b64_(u: u64) -> bool {
    return (u & B64_MAG) > B64_INF;
}

// NumPy's nextafter: y where equal (so ±0 toward ∓0 gives y), the smallest subnormal of y's
// sign from ±0, one step of the bits otherwise (the largest finite steps to inf, inf back
// to the largest finite), NaN if either is NaN.
fn nextafter_b64_(x: f64, y: f64) -> f64 {
    let u = bitcast<u64>(x);
    let v = bitcast<u64>(y);
    let a = ord_b64_(u);
    let b = ord_b64_(v);
    let away = select(b > a, b < a, (u & B64_SIGN) != 0lu);
    var r = select(u - 1lu, u + 1lu, away);
    r = select(r, (v & B64_SIGN) | 1lu, (u & B64_MAG) == 0lu);
    r = select(r, v, a == b);
    r = select(r, 0x7ff8000000000000lu, is_nan_b64_(u) | is_nan_b64_(v));
    return bitcast<f64>(r);
}

// NumPy's spacing: the step to the next value away from zero with x's sign (-0 included):
// 2^(e - 1075) for biased exponent e (the smallest subnormal for e <= 1), inf from the
// largest finite, NaN for ±inf and NaN.
fn spacing_b64_(x: f64) -> f64 {
    let u = bitcast<u64>(x);
    let mag = u & B64_MAG;
    let e = u32(mag >> 52u);
    // 2^(e - 1075): normal bits from e = 53, the subnormal 1 << (e - 1) below.
    let normal = u64(e - min(e, 52u)) << 52u;
    let sub = 1lu << (max(e, 1u) - 1u);
    var r = select(sub, normal, e >= 53u);
    r = select(r, B64_INF, mag == 0x7feffffffffffffflu);
    r = select(r, 0x7ff8000000000000lu, e == 0x7ffu);
    return bitcast<f64>(r | (u & B64_SIGN));
}

// frexp's two parts, x = m 2^e with |m| in [0.5, 1): a normal's exponent field replaced
// by 1022 (e = field - 1022); a subnormal's fraction first shifted so its leading one
// reaches bit 52 (its count of leading zeros from two 32-bit words: naga has no 64-bit
// countLeadingZeros), e = -1010 - zeros. (x, 0) for ±0, ±inf and NaN.
fn frexp_parts_b64_(x: f64) -> vec2<f64> {
    let u = bitcast<u64>(x);
    let e = u32(u >> 52u) & 0x7ffu;
    let frac = u & B64_FRAC;
    let hi = u32(frac >> 32u);
    let zeros = select(countLeadingZeros(hi), 32u + countLeadingZeros(u32(frac)), hi == 0u);
    let sh = select(0u, zeros - 11u, e == 0u);
    let m = (u & B64_SIGN) | (1022lu << 52u) | ((frac << sh) & B64_FRAC);
    let ex = select(i32(e) - 1022, -1010 - i32(zeros), e == 0u);
    let special = ((u & B64_MAG) == 0lu) | (e == 0x7ffu);
    return select(vec2<f64>(bitcast<f64>(m), f64(ex)), vec2<f64>(x, 0.0), special);
}
fn frexp_mant_b64_(x: f64) -> f64 {
    return frexp_parts_b64_(x).x;
}
fn frexp_exp_b64_(x: f64) -> f64 {
    return frexp_parts_b64_(x).y;
}
