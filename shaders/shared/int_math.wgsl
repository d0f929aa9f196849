// Integer helpers for the elementwise family, over the scalar type S.

// a^b by squaring; negative exponents give 0 except for bases 1 and -1.
fn ipow_(a: S, b: S) -> S {
    var base = a;
    var e = b;
    var r = S(1);
    if (e < S(0)) {
        if (a == S(1)) { return S(1); }
        // The parity from the low bit: `%` of a negative integer is undefined in GLSL.
        if (a == S(0) - S(1)) { return select(S(1), S(0) - S(1), (e & S(1)) != S(0)); }
        return S(0);
    }
    loop {
        if (e == S(0)) { break; }
        if ((e & S(1)) != S(0)) { r = r * base; }
        base = base * base;
        e = e / S(2);
    }
    return r;
}

// Integer quotients and remainders that reach no backend's undefined behaviour: WGSL
// defines x / 0 (x), x % 0 (0), i32::MIN / -1 (i32::MIN) and the truncating % of negative
// operands, but GLSL leaves all of them undefined (Mesa's GL gave 7 % -2 = 7, -7 % 2 = 1),
// and LLVM-based drivers may fold a division by zero even where a select discards it. So the
// hardware division only ever sees a divisor other than 0 and -1, and `%` is never used:
// the remainder is x - (x / d) * d, exact for those divisors (|(x / d) * d| <= |x|).
// Generic over T (any integer type, scalar or vec4): `~T(0) < T(0)` holds for signed T only.

// y, with 0 and (signed T) -1 replaced by 1.
fn idivisor_(y: T) -> T {
    return select(y, T(1), (y == T(0)) | ((y == ~T(0)) & (~T(0) < T(0))));
}

// Rust's `/` (truncating), 0 where y is 0, i32::MIN / -1 wrapping to i32::MIN (as WGSL).
fn idiv_(x: T, y: T) -> T {
    let q = x / idivisor_(y);
    let neg = (y == ~T(0)) & (~T(0) < T(0));
    return select(select(q, T(0) - x, neg), T(0), y == T(0));
}

// Rust's `%` (the sign of x), 0 where y is 0 and for i32::MIN % -1 (as WGSL).
fn irem_(x: T, y: T) -> T {
    let d = idivisor_(y);
    return x - (x / d) * d;
}

// NumPy's remainder of integers: the sign of y, 0 where y is 0.
fn imod_(x: T, y: T) -> T {
    let r = irem_(x, y);
    return select(r, r + y, (r != T(0)) & ((r < T(0)) != (y < T(0))));
}

// NumPy's floor_divide of integers: the quotient rounded down, 0 where y is 0, and
// i32::MIN / -1 wrapping to i32::MIN.
fn ifloordiv_(x: T, y: T) -> T {
    let r = irem_(x, y);
    let q = idiv_(x, y);
    return select(q, q - T(1), (r != T(0)) & ((r < T(0)) != (y < T(0))));
}
