// Float helpers for the elementwise family. The math helpers work on TW: T itself, or T
// widened to f32 when T is f16, so that f16 results are f32 results rounded once (as NumPy
// computes them) rather than the looser f16 arithmetic of some drivers. The f32 functions
// (exp, log, pow, sin, division, ...) are in f32_math.wgsl and f32_trig.wgsl.

// The remainder with the sign of x, as Rust's %: x - y * trunc(x / y), corrected by one y
// where the division (approximate on some GPUs) lands on the wrong side of an integer. Not
// exact as C's fmod: within a rounding of a multiple of y the result may be 0 rather than
// a value just below |y| (Vulkan does not promise a fused fma). A finite x modulo an
// infinite y is x.
fn rem_(x: TW, y: TW) -> TW {
    var r = x - y * trunc(x / y);
    r = select(r, r - sign(r) * abs(y), abs(r) >= abs(y));
    r = select(r, r + sign(x) * abs(y), r * x < TW(0.0));
    // Comparisons, not x - x == 0: compilers may fold x - x to 0 for infinities too.
    let finite_x = abs(x) <= max_finite_();
    let infinite_y = abs(y) > max_finite_();
    return select(r, x, finite_x & infinite_y);
}

// Rounding to the nearest integer, halves to even, in arithmetic (used for f64): lavapipe's
// f64 round() (Mesa 22.3, seen on AMD EPYC hosts) rounds halves up, round(-17.5) giving -17.
// floor and the subtraction are exact; NaN and infinities make d NaN and stay as they are.
// A result has x's sign, zeros too (round(-0.3) is -0, as NumPy): -abs and abs set it
// (x * 0.0 was folded to +0 by lavapipe's compiler), and ±0 returns itself.
fn round_even_(x: TW) -> TW {
    let r = floor(x);
    let d = x - r;
    let odd = r - TW(2.0) * floor(r * TW(0.5)) != TW(0.0);
    let v = select(r, r + TW(1.0), (d > TW(0.5)) | ((d == TW(0.5)) & odd));
    let signed = select(abs(v), -abs(v), x < TW(0.0));
    return select(select(signed, x, !(d == d)), x, x == TW(0.0));
}

// Whether x is NaN. Written as !(x == x): naga emits ordered comparisons, so x != x is
// false for NaN.
fn isnan_(x: T) -> TB {
    return !(x == x);
}

// NaN-propagating maximum and minimum (NumPy's maximum/minimum).
fn max_(a: T, b: T) -> T {
    return select(max(a, b), a + b, isnan_(a) | isnan_(b));
}
fn min_(a: T, b: T) -> T {
    return select(min(a, b), a + b, isnan_(a) | isnan_(b));
}
