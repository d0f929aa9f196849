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
