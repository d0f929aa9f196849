// Float helpers for the elementwise family. The math helpers work on TW: T itself, or T
// widened to f32 when T is f16, so that f16 results are f32 results rounded once (as NumPy
// computes them) rather than the looser f16 arithmetic of some drivers. The f32 functions
// (exp, log, pow, sin, division, ...) are in f32_math.wgsl and f32_trig.wgsl.

// The remainder with the sign of x, as Rust's % and C's fmod, exactly (it is always
// representable): binary long division in floats. t starts as the largest |y| * 2^k not
// above |x| (found by multiplying by 2^64, then 2^32 ... 2^1); then, while t >= |y|, r - t
// replaces r where t <= r, and t halves. Scaling by powers of two and r - t (with
// r < 2t) are exact, so r stays exact. k + 1 <= e(x) - e(y) + 1 steps: at most 277 for f32
// (f16 is computed in f32), 2098 for f64, a few when |x / y| is small. No frexp or bit
// casts: naga's f64 has neither. A zero result has x's sign; x infinite, y zero or either
// NaN give NaN; a finite x modulo an infinite y is x.
fn rem_(x: TW, y: TW) -> TW {
    let ax = abs(x);
    let ay = abs(y);
    // Comparisons, not x - x == 0: compilers may fold x - x to 0 for infinities too. y == y
    // besides |y| > 0: Mesa's GL rewrites 0 < |y| as y != 0, true for a NaN (issue 36).
    let ok = (ax <= max_finite_()) & (ay > TW(0.0)) & (y == y);
    var t = ay;
    for (var i = 0; i < 40; i++) {
        let up = ok & (t * TW(18446744073709551616.0) <= ax);
        if (!any(up)) { break; }
        t = select(t, t * TW(18446744073709551616.0), up);
    }
    t = select(t, t * TW(4294967296.0), ok & (t * TW(4294967296.0) <= ax));
    t = select(t, t * TW(65536.0), ok & (t * TW(65536.0) <= ax));
    t = select(t, t * TW(256.0), ok & (t * TW(256.0) <= ax));
    t = select(t, t * TW(16.0), ok & (t * TW(16.0) <= ax));
    t = select(t, t * TW(4.0), ok & (t * TW(4.0) <= ax));
    t = select(t, t * TW(2.0), ok & (t * TW(2.0) <= ax));
    var r = ax;
    for (var i = 0; i < 2100; i++) {
        let live = ok & (t >= ay);
        if (!any(live)) { break; }
        r = select(r, r - t, live & (t <= r));
        t = t * TW(0.5);
    }
    let signed = select(r, -r, x < TW(0.0));
    return select(select(signed, x, x == TW(0.0)), nan_(), !ok);
}

// NumPy's remainder (Python's %): the sign of y. fmod moved by y where the signs differ (as
// NumPy, in TW: the sum may round, -1e-30 mod 1 giving 1), a zero result with y's sign.
fn mod_(x: TW, y: TW) -> TW {
    let m = rem_(x, y);
    let moved = select(m, m + y, (m != TW(0.0)) & ((y < TW(0.0)) != (m < TW(0.0))));
    let zero = select(abs(m), -abs(m), y < TW(0.0));
    return select(moved, zero, m == TW(0.0));
}

// NumPy's floor_divide: (x - fmod(x, y)) / y less one where the signs differ, snapped to the
// nearest integer; a zero quotient has the sign of x / y; x / y where y is 0.
fn floordiv_(x: TW, y: TW) -> TW {
    let m = rem_(x, y);
    let q = fdiv_(x, y);
    let shift = (m != TW(0.0)) & ((y < TW(0.0)) != (m < TW(0.0)));
    let exact = fdiv_(x - m, y);
    let div = select(exact, exact - TW(1.0), shift);
    let f = floor(div);
    let snapped = select(f, f + TW(1.0), div - f > TW(0.5));
    let zero = select(abs(div), -abs(div), (q < TW(0.0)) | (fdiv_(TW(1.0), q) < TW(0.0)));
    return select(select(snapped, zero, div == TW(0.0)), q, y == TW(0.0));
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
