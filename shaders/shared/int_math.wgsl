// Integer helpers for the elementwise family, over the scalar type S.

// a^b by squaring; negative exponents give 0 except for bases 1 and -1.
fn ipow_(a: S, b: S) -> S {
    var base = a;
    var e = b;
    var r = S(1);
    if (e < S(0)) {
        if (a == S(1)) { return S(1); }
        if (a == S(0) - S(1)) { return select(S(1), S(0) - S(1), (e % S(2)) != S(0)); }
        return S(0);
    }
    loop {
        if (e == S(0)) { break; }
        if ((e % S(2)) != S(0)) { r = r * base; }
        base = base * base;
        e = e / S(2);
    }
    return r;
}

// NumPy's remainder of integers: the sign of y, 0 where y is 0 (WGSL's % gives 0 there, and
// 0 for i32::MIN % -1).
fn imod_(x: T, y: T) -> T {
    let r = x % y;
    return select(r, r + y, (r != T(0)) & ((r < T(0)) != (y < T(0))));
}

// NumPy's floor_divide of integers: the quotient rounded down, 0 where y is 0, and
// i32::MIN / -1 wrapping to i32::MIN (WGSL's / gives both).
fn ifloordiv_(x: T, y: T) -> T {
    let r = x % y;
    let q = select(x / y, T(0), y == T(0));
    return select(q, q - T(1), (r != T(0)) & ((r < T(0)) != (y < T(0))));
}
